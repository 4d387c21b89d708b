//! Casino War through the whole pipeline: run, data files, report, shards and merge, errors.

mod common;

use std::path::{Path, PathBuf};

use common::{Scratch, warlab};
use polars::prelude::DataType;

fn scratch(name: &str) -> Scratch {
    common::scratch("casino", name)
}

const TEXT: &str = "name = \"cw\"\ngame = \"casino-war\"\ngames = 5000\nseed = 3\nrows = true\n\
[rules]\nbankroll = 10\n\
[sweep]\ndecks = [1, 6]\nstrategy = [\"war\", \"surrender\"]\n";

const FILES: [&str; 7] = [
    "summary.parquet",
    "summary.csv",
    "variants.parquet",
    "variants.csv",
    "lengths.parquet",
    "games.parquet",
    "aggregates.json",
];

fn run(dir: &Path, file: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join("data");
    let reports = dir.join("reports");
    let mut args = vec![
        "run",
        file,
        "--out",
        out.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = warlab(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("edge exact"), "{stdout}");
    out.join("cw")
}

#[test]
fn a_casino_run_is_the_same_on_any_thread_count_and_reports() {
    let dir = scratch("threads");
    let file = dir.join("cw.toml");
    std::fs::write(&file, TEXT).unwrap();
    let file = file.to_str().unwrap();
    let one = run(&dir.join("one"), file, &["--threads", "1"]);
    let three = run(&dir.join("three"), file, &["--threads", "3"]);
    for f in FILES {
        assert_eq!(
            std::fs::read(one.join(f)).unwrap(),
            std::fs::read(three.join(f)).unwrap(),
            "{f} differs"
        );
    }
    let csv = std::fs::read_to_string(one.join("summary.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in [
        "variant",
        "decks",
        "strategy",
        "sessions",
        "hands_mean",
        "share_ruin",
        "share_target",
        "ev_exact",
        "ev_fresh_mean",
        "ev_all_hands_ci_lo",
        "tie_bet_ev_exact",
    ] {
        assert!(header.split(',').any(|c| c == col), "{col} in {header}");
    }
    assert_eq!(csv.lines().count(), 5);
    let lengths = std::fs::read(one.join("lengths.parquet")).unwrap();
    assert!(lengths.starts_with(b"PAR1"));
    let md = std::fs::read_to_string(dir.join("one/reports/cw/report.md")).unwrap();
    for section in [
        "## House edge: exact and simulated",
        "## Tie bet",
        "## Exact house edge by deck count",
        "## How long a bankroll lasts",
        "## Against the number of decks",
        "-142853/4965115",
    ] {
        assert!(md.contains(section), "{section} in the report");
    }
    // Every variant's fresh-shoe simulation agrees with the exact value.
    assert!(!md.contains("**differs**"), "{md}");
    for stem in ["survival", "boxes", "edge-by-decks", "target-by-decks"] {
        for ext in ["png", "svg"] {
            assert!(dir.join(format!("one/reports/cw/{stem}.{ext}")).is_file());
        }
    }
}

#[test]
fn casino_shards_merge_into_one_run() {
    let dir = scratch("shards");
    let file = dir.join("cw.toml");
    std::fs::write(&file, TEXT.replace("games = 5000", "games = 9000")).unwrap();
    let file = file.to_str().unwrap();
    let single = run(&dir.join("single"), file, &["--no-report"]);
    let shards = dir.join("shards");
    let mut folders = Vec::new();
    for i in 1..=2 {
        let (code, _, stderr) = warlab(&[
            "run",
            file,
            "--shard",
            &format!("{i}/2"),
            "--out",
            shards.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        folders.push(shards.join(format!("cw.shard-{i}-of-2")));
    }
    let merged = dir.join("merged");
    let (code, _, stderr) = warlab(&[
        "merge",
        folders[0].to_str().unwrap(),
        folders[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{stderr}");
    for f in FILES {
        assert_eq!(
            std::fs::read(single.join(f)).unwrap(),
            std::fs::read(merged.join("cw").join(f)).unwrap(),
            "{f} differs"
        );
    }
}

#[test]
fn bad_casino_files_name_the_line_and_the_allowed_values() {
    let dir = scratch("bad");
    let cases = [
        (
            TEXT.replace("decks = [1, 6]", "decks = [1, 9]"),
            ":9:13:",
            "infinite",
        ),
        (
            TEXT.replace("bankroll = 10", "bankroll = 1"),
            ":9:",
            "cannot cover one hand",
        ),
        (
            TEXT.replace("casino-war", "poker"),
            ":2:8:",
            "allowed: war, casino-war",
        ),
        (
            TEXT.replace("bankroll = 10", "pickup = \"seat\""),
            ":7:",
            "unknown casino-war option `pickup`",
        ),
    ];
    for (i, (text, place, message)) in cases.iter().enumerate() {
        let file = dir.join(format!("bad{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let (code, _, stderr) = warlab(&["validate", file.to_str().unwrap()]);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(place) && stderr.contains(message),
            "case {i}: {stderr}"
        );
        let out = dir.join(format!("out{i}"));
        let (code, _, _) = warlab(&[
            "run",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2);
        assert!(!out.exists(), "nothing written for a bad file");
    }
}

#[test]
fn a_traced_session_is_the_session_in_the_data() {
    let dir = scratch("trace");
    let file = dir.join("cw.toml");
    std::fs::write(&file, TEXT.replace("games = 5000", "games = 100")).unwrap();
    let file = file.to_str().unwrap();
    let data = run(&dir, file, &["--no-report"]);
    let games = warlab_data::read_parquet(&data.join("games.parquet")).unwrap();
    let variant = "decks=6,strategy=war";
    let names = games.column("variant").unwrap().str().unwrap().clone();
    let hands = games.column("hands").unwrap().u64().unwrap().clone();
    // end_reason is an Enum of the session endings; its labels as text.
    let ends = games.column("end_reason").unwrap();
    assert!(
        matches!(ends.dtype(), DataType::Enum(..)),
        "{}",
        ends.dtype()
    );
    let ends = ends.cast(&DataType::String).unwrap().str().unwrap().clone();
    let game = games.column("game").unwrap().u64().unwrap().clone();
    let row = (0..games.height())
        .find(|&i| names.get(i) == Some(variant) && game.get(i) == Some(17))
        .unwrap();
    let (code, stdout, stderr) = warlab(&[
        "trace",
        "--experiment",
        file,
        "--variant",
        variant,
        "--game",
        "17",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let last = stdout.lines().last().unwrap();
    assert_eq!(
        last,
        format!(
            "end: {} after {} hands, bankroll {}",
            ends.get(row).unwrap(),
            hands.get(row).unwrap(),
            games
                .column("final_bankroll")
                .unwrap()
                .f64()
                .unwrap()
                .get(row)
                .unwrap()
        )
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("hand ")).count() as u64,
        hands.get(row).unwrap()
    );
    let (code, json, _) = warlab(&[
        "trace",
        "--experiment",
        file,
        "--variant",
        variant,
        "--game",
        "17",
        "--json",
    ]);
    assert_eq!(code, 0);
    assert!(json.lines().all(|l| l.starts_with('{') && l.ends_with('}')));
    assert!(json.lines().last().unwrap().starts_with("{\"end\":"));
}
