//! Running the `warlab` binary from tests.
// Each test binary includes this module and uses a part of it.
#![allow(dead_code, unused_imports)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `warlab ARGS`: (exit status, stdout, stderr).
pub fn warlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warlab"))
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub use warlab_scratch::{Scratch, scratch};

/// Writes `text` to `dir/name`; returns the path as text.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// Starts `warlab ARGS` and kills it as soon as `ready()` holds (or after two minutes);
/// returns whether `ready()` held.
pub fn kill_when(args: &[&str], ready: impl Fn() -> bool) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_warlab"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !ready() && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    child.wait().unwrap();
    ready()
}

/// An experiment `long` of 8 variants × 40,000 games with rows: long enough to be killed mid-run.
pub const LONG: &str = "name = \"long\"\ngames = 40000\nseed = 9\nrows = true\n[sweep]\n\
                        war_down = [0, 1, 2, 3, 4, 5, 6, 7]\n";

/// Plays `LONG` whole into `dir/reference/`, then again on one thread into `dir/out/`, killed
/// as soon as `.parts/<part>` exists: (file, reference, out).
pub fn long_run_killed_after(dir: &Path, part: &str) -> (String, PathBuf, PathBuf) {
    let file = write(dir, "long.toml", LONG);
    let reference = dir.join("reference");
    let (code, _, stderr) = warlab(&[
        "run",
        &file,
        "--out",
        reference.to_str().unwrap(),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.join("out");
    let part = out.join("long").join(".parts").join(part);
    let out_arg = out.to_str().unwrap();
    let args = [
        "run",
        &file,
        "--threads",
        "1",
        "--out",
        out_arg,
        "--no-report",
    ];
    assert!(
        kill_when(&args, || part.exists()),
        "{} was written before the kill",
        part.display()
    );
    (file, reference, out)
}
