//! The minimum Rust version the workspace states (`rust-version` in Cargo.toml, README) is at
//! least the `rust-version` of every package the lock pins for this platform: a dependency
//! updated in Cargo.lock to one needing a newer Rust fails here, naming it.
//!
//! Where the stated toolchain itself is installed, `.ci/run` also checks the workspace with it;
//! this test runs everywhere (no toolchain to install, only `cargo metadata`).

use std::path::Path;
use std::process::Command;

/// `"1.89"` or `"1.89.0"` as (major, minor, patch).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| {
        p.parse::<u64>()
            .unwrap_or_else(|_| panic!("rust-version {text:?} is not a version"))
    });
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

fn shown((major, minor, patch): (u64, u64, u64)) -> String {
    format!("{major}.{minor}.{patch}")
}

/// The platform the tests run on (`host:` of `rustc -vV`).
fn host() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names its host")
}

#[test]
fn stated_msrv_covers_every_locked_package() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
        ])
        .arg(host())
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members = metadata["workspace_members"].as_array().unwrap();

    let mut stated = None;
    let mut needed = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let Some(rust_version) = package["rust_version"].as_str() else {
            continue;
        };
        let id = format!(
            "{} {}",
            package["name"].as_str().unwrap(),
            package["version"].as_str().unwrap()
        );
        if members.contains(&package["id"]) {
            let v = version(rust_version);
            assert!(
                stated.is_none_or(|s| s == v),
                "{id} states rust-version {rust_version}, another member {}",
                shown(stated.unwrap())
            );
            stated = Some(v);
        } else {
            needed.push((version(rust_version), id));
        }
    }
    let stated = stated.expect("the workspace states a rust-version");
    assert!(
        needed.len() > 100,
        "only {} packages state a rust-version",
        needed.len()
    );
    needed.sort();
    let too_new: Vec<String> = needed
        .iter()
        .filter(|(v, _)| *v > stated)
        .map(|(v, id)| format!("{id} needs {}", shown(*v)))
        .collect();
    assert!(
        too_new.is_empty(),
        "Cargo.toml states rust-version {} but the lock pins {}: raise it (and README's) to the largest",
        shown(stated),
        too_new.join(", ")
    );
    let (newest, by) = needed.last().unwrap();
    eprintln!(
        "rust-version {}: the largest a locked package needs is {} ({by})",
        shown(stated),
        shown(*newest)
    );
}
