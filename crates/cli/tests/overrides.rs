//! `warlab run FILE --games N --rule NAME=VALUE --sweep NAME=V1,V2`: the file as changed on
//! the command line, recorded, reproducible, and mergeable in shards.

mod common;

use std::path::Path;

use common::{Scratch, warlab};

fn scratch(name: &str) -> Scratch {
    common::scratch("overrides", name)
}

const TEXT: &str = "name = \"ov\"\ngames = 100000\nseed = 5\n\
[rules]\nwar_down = 3\n[sweep]\npickup = [\"shuffled\", \"seat\"]\n";

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn overrides_change_the_run_are_recorded_and_reproduce() {
    let dir = scratch("record");
    let file = dir.join("ov.toml");
    std::fs::write(&file, TEXT).unwrap();
    let (out, reports) = (dir.join("data"), dir.join("reports"));
    let args = [
        "run",
        file.to_str().unwrap(),
        "--games",
        "3000",
        "--rule",
        "war_down=1",
        "--sweep",
        "pickup=played,rank-desc,seat",
        "--out",
        out.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ];
    let (code, _, err) = warlab(&args);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&out.join("ov"));
    assert_eq!(m["games_per_variant"], 3000);
    let variants: Vec<&str> = m["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        variants,
        ["pickup=played", "pickup=rank-desc", "pickup=seat"]
    );
    assert!(
        m["variants"][0]["rules"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("war_down=1"))
    );
    assert_eq!(
        m["overrides"],
        serde_json::json!([
            "--games",
            "3000",
            "--rule",
            "war_down=1",
            "--sweep",
            "pickup=played,rank-desc,seat"
        ])
    );
    // The run key holds the overrides: the same file with other changes is another run.
    let plain = dir.join("plain");
    let (code, _, err) = warlab(&[
        "run",
        file.to_str().unwrap(),
        "--games",
        "3000",
        "--out",
        plain.to_str().unwrap(),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(m["file_hash"], manifest(&plain.join("ov"))["file_hash"]);
    assert_eq!(
        manifest(&plain.join("ov"))["overrides"],
        serde_json::json!(["--games", "3000"])
    );
    // The report says how to play exactly this run again.
    let md = std::fs::read_to_string(reports.join("ov").join("report.md")).unwrap();
    let want = format!(
        "`warlab run {} --seed 5 --games 3000 --rule war_down=1 --sweep pickup=played,rank-desc,seat`",
        file.display()
    );
    assert!(md.contains(&want), "{md}");
    // Other overrides into the same folder are another run: refused without --force.
    let mut other = args.to_vec();
    other[5] = "war_down=2";
    let (code, _, err) = warlab(&other);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--force"), "{err}");
}

#[test]
fn shards_of_a_run_with_fewer_games_merge() {
    let dir = scratch("shards");
    let file = dir.join("ov.toml");
    std::fs::write(&file, TEXT).unwrap();
    let out = dir.join("shards");
    let mut folders = Vec::new();
    for i in 1..=2 {
        let (code, _, err) = warlab(&[
            "run",
            file.to_str().unwrap(),
            "--games",
            "5000",
            "--shard",
            &format!("{i}/2"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        folders.push(out.join(format!("ov.shard-{i}-of-2")));
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge".to_string()];
    args.extend(folders.iter().map(|f| f.to_str().unwrap().to_string()));
    args.extend([
        "--out".into(),
        merged.to_str().unwrap().into(),
        "--no-report".into(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = warlab(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(manifest(&merged.join("ov"))["games_per_variant"], 5000);
}

#[test]
fn bad_overrides_are_refused_naming_the_flag() {
    let dir = scratch("bad");
    let file = dir.join("ov.toml");
    std::fs::write(&file, TEXT).unwrap();
    let file = file.to_str().unwrap();
    for (args, want) in [
        (vec!["--rule", "pickup"], "expected NAME=VALUE"),
        (
            vec!["--rule", "pickup=upside"],
            "`--rule pickup`: rule option `pickup` cannot be `upside`; allowed: shuffled",
        ),
        (vec!["--rule", "colour=red"], "unknown rule option `colour`"),
        (vec!["--sweep", "war_down=1,01"], "`01` is `1` again"),
        (
            vec!["--sweep", "pickup=seat", "--sweep", "pickup=played"],
            "swept twice",
        ),
        (vec!["--rule", "players=5"], "cannot be `5`"),
    ] {
        let mut all = vec!["run", file, "--out", dir.to_str().unwrap()];
        all.extend(args.iter().copied());
        let (code, _, err) = warlab(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert!(
        !dir.join("ov").exists(),
        "nothing written for a refused run"
    );
}
