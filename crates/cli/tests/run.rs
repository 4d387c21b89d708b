//! `warlab run` and `warlab validate` end to end: the files, their bytes, errors, resuming.

use common::{Scratch, warlab, write};
use polars::prelude::DataType;

mod common;

fn scratch(name: &str) -> Scratch {
    common::scratch("test", name)
}

const DATA_FILES: [&str; 7] = [
    "summary.parquet",
    "summary.csv",
    "variants.parquet",
    "variants.csv",
    "lengths.parquet",
    "games.parquet",
    "aggregates.json",
];

const SMALL: &str = "name = \"small\"\ndescription = \"test\"\ngames = 6000\nseed = 3\nrows = true\n\
[sweep]\npickup = [\"shuffled\", \"seat\"]\nwar_down = [1, 3]\n";

#[test]
fn one_thread_and_all_threads_write_identical_bytes() {
    let dir = scratch("threads");
    let file = write(&dir, "small.toml", SMALL);
    let mut outs = Vec::new();
    for threads in ["1", "3"] {
        let out = dir.join(format!("out{threads}"));
        let (code, stdout, stderr) = warlab(&[
            "run",
            &file,
            "--threads",
            threads,
            "--out",
            out.to_str().unwrap(),
            "--reports",
            dir.join(format!("reports{threads}")).to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("pickup=seat,war_down=1"), "{stdout}");
        let report = dir.join(format!("reports{threads}/small/report.md"));
        assert!(report.is_file(), "run ends with the report");
        assert!(stdout.contains("report: "), "{stdout}");
        outs.push(out.join("small"));
    }
    for f in DATA_FILES {
        let a = std::fs::read(outs[0].join(f)).unwrap();
        let b = std::fs::read(outs[1].join(f)).unwrap();
        assert!(a == b, "{f} differs between 1 and 3 threads");
    }
    let manifest = std::fs::read_to_string(outs[0].join("manifest.json")).unwrap();
    assert!(manifest.contains("\"seed\": 3"), "{manifest}");
    assert!(manifest.contains("\"file_hash\""), "{manifest}");
    assert!(
        manifest.contains("games = 6000"),
        "the file's text: {manifest}"
    );
    assert!(
        !outs[0].join(".parts").exists(),
        "parts are removed when the run completes"
    );
}

#[test]
fn data_reads_back_and_matches_the_aggregates() {
    let dir = scratch("readback");
    let file = write(&dir, "small.toml", SMALL);
    let out = dir.join("out");
    let (code, _, stderr) = warlab(&["run", &file, "--out", out.to_str().unwrap(), "--no-report"]);
    assert_eq!(code, 0, "{stderr}");
    let d = out.join("small");
    let games = warlab_data::read_parquet(&d.join("games.parquet")).unwrap();
    assert_eq!(games.height(), 4 * 6000);
    let summary = warlab_data::read_parquet(&d.join("summary.parquet")).unwrap();
    assert_eq!(summary.height(), 4);
    let lengths = warlab_data::read_parquet(&d.join("lengths.parquet")).unwrap();
    // Per variant: the histogram's counts add up to the games and agree with the rows; the
    // summary's ended mean is the mean of the rows that ended (not looping, not capped).
    let variants = summary.column("variant").unwrap().str().unwrap().clone();
    let means = summary
        .column("ended_battles_mean")
        .unwrap()
        .f64()
        .unwrap()
        .clone();
    let ended_ns = summary.column("ended_n").unwrap().i64().unwrap().clone();
    let ns = summary.column("n").unwrap().i64().unwrap().clone();
    let lv = lengths.column("variant").unwrap().str().unwrap().clone();
    let lb = lengths.column("battles").unwrap().u64().unwrap().clone();
    let lc = lengths.column("count").unwrap().u64().unwrap().clone();
    let gv = games.column("variant").unwrap().str().unwrap().clone();
    let gb = games.column("battles").unwrap().u64().unwrap().clone();
    // end_reason is an Enum of the end reasons; its labels as text.
    let ge = games.column("end_reason").unwrap();
    assert!(matches!(ge.dtype(), DataType::Enum(..)), "{}", ge.dtype());
    let ge = ge.cast(&DataType::String).unwrap().str().unwrap().clone();
    let mut loops = 0;
    for i in 0..4 {
        let name = variants.get(i).unwrap();
        let (mut n, mut sum) = (0u64, 0u64);
        for j in 0..lengths.height() {
            if lv.get(j) == Some(name) {
                n += lc.get(j).unwrap();
                sum += lb.get(j).unwrap() * lc.get(j).unwrap();
            }
        }
        assert_eq!(n as i64, ns.get(i).unwrap());
        let (mut gn, mut gsum) = (0u64, 0u64);
        let (mut en, mut esum) = (0u64, 0u64);
        for j in 0..games.height() {
            if gv.get(j) == Some(name) {
                gn += 1;
                gsum += gb.get(j).unwrap();
                if !matches!(ge.get(j), Some("cycle" | "capped")) {
                    en += 1;
                    esum += gb.get(j).unwrap();
                }
            }
        }
        assert_eq!(
            (gn, gsum),
            (n, sum),
            "games.parquet agrees with lengths.parquet"
        );
        assert_eq!(en as i64, ended_ns.get(i).unwrap());
        assert!((esum as f64 / en as f64 - means.get(i).unwrap()).abs() < 1e-9);
        loops += gn - en;
    }
    assert!(
        loops > 0,
        "seat order loops: the ended mean leaves those games out"
    );
    let csv = std::fs::read_to_string(d.join("summary.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        !header.split(',').any(|c| c == "battles_mean"),
        "no all-game mean under a length's name"
    );
    for col in [
        "variant",
        "pickup",
        "war_down",
        "n",
        "ended_n",
        "ended_battles_mean",
        "ended_battles_ci_lo",
        "ended_battles_p99",
        "ended_wars_median",
        "ended_cards_max",
        "share_all_cards",
        "share_capped",
        "cycle_share",
        "cycle_share_ci_hi",
        "cycle_period_median",
        "win_share_0",
        "draws",
    ] {
        assert!(
            header.split(',').any(|c| c == col),
            "summary.csv lacks {col}"
        );
    }
}

#[test]
fn validate_and_run_reject_bad_files_with_place_and_status_2() {
    let dir = scratch("bad");
    let bad = write(
        &dir,
        "bad.toml",
        "name = \"bad\"\ngames = 10\n[sweep]\npickup = [\"seat\", \"upside-down\"]\n",
    );
    let good = write(&dir, "good.toml", "name = \"good\"\ngames = 10\n");
    let (code, stdout, stderr) = warlab(&["validate", &good, &bad]);
    assert_eq!(code, 2);
    assert!(
        stdout.contains("ok: ") && stdout.contains("good.toml"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "bad.toml:4:19: `sweep.pickup`: rule option `pickup` cannot be `upside-down`"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("winner-first"),
        "allowed values listed: {stderr}"
    );
    let out = dir.join("out");
    let (code, _, stderr) = warlab(&["run", &bad, "--out", out.to_str().unwrap(), "--no-report"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(!out.exists(), "nothing written for an invalid file");
    let (code, _, stderr) = warlab(&[
        "run",
        &good,
        "--games-from",
        "5",
        "--games-to",
        "5",
        "--no-report",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("empty range"), "{stderr}");
}

#[test]
fn a_killed_run_resumes_and_ends_with_the_same_data() {
    let dir = scratch("resume");
    // Eight variants that each take a noticeable time, so that the run can be killed midway.
    let (file, reference, out) = common::long_run_killed_after(&dir, "v0000.aggregate.json");
    if out.join("long").join("manifest.json").exists() {
        eprintln!("the run finished before it could be killed; resuming is not exercised");
    } else {
        let (code, _, stderr) =
            warlab(&["run", &file, "--out", out.to_str().unwrap(), "--no-report"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stderr.contains("resuming long:"), "{stderr}");
        let manifest = std::fs::read_to_string(out.join("long/manifest.json")).unwrap();
        assert!(!manifest.contains("\"variants_resumed\": 0"), "{manifest}");
    }
    for f in DATA_FILES {
        let a = std::fs::read(reference.join("long").join(f)).unwrap();
        let b = std::fs::read(out.join("long").join(f)).unwrap();
        assert!(a == b, "{f} differs after resuming");
    }
    // The report is rebuilt from the data alone.
    let reports = dir.join("rebuilt");
    let (code, stdout, stderr) = warlab(&[
        "report",
        out.join("long").to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("long/report.md"), "{stdout}");
    assert!(reports.join("long/survival.svg").is_file());
    // No temporary file is left anywhere.
    let leftovers: Vec<_> = std::fs::read_dir(out.join("long"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp") || n == ".parts")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn parts_of_another_run_are_kept_unless_forced() {
    let dir = scratch("stale");
    let out = dir.join("out");
    let parts = out.join("s").join(".parts");
    std::fs::create_dir_all(&parts).unwrap();
    // Parts of some other run: a key that cannot be read, and a finished variant.
    std::fs::write(parts.join("run.json"), "{\"experiment_hash\":\"x\"}").unwrap();
    std::fs::write(parts.join("v0000.aggregate.json"), "{}").unwrap();
    let file = write(&dir, "s.toml", "name = \"s\"\ngames = 100\n");
    let args = ["run", &file, "--out", out.to_str().unwrap(), "--no-report"];
    let (code, _, stderr) = warlab(&args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("1 finished variant(s)") && stderr.contains("--force"),
        "{stderr}"
    );
    assert!(parts.join("v0000.aggregate.json").exists(), "kept");
    let mut forced = args.to_vec();
    forced.push("--force");
    let (code, _, stderr) = warlab(&forced);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("resuming"), "{stderr}");
    let summary = std::fs::read_to_string(out.join("s/summary.csv")).unwrap();
    // The run's columns (experiment, seed, file hash), then the variant.
    assert!(
        summary.lines().nth(1).unwrap().starts_with("s,1,") && summary.contains(",base,"),
        "{summary}"
    );
    // Parts under a readable key of another run are refused the same way, naming what differs.
    std::fs::create_dir_all(&parts).unwrap();
    let other = "{\"experiment_hash\":\"0000\",\"seed\":5,\"games_from\":0,\"games_to\":100,\"rows\":false,\"warlab_version\":\"0.1.0\"}";
    std::fs::write(parts.join("run.json"), other).unwrap();
    std::fs::write(parts.join("v0000.aggregate.json"), "{}").unwrap();
    let (code, _, stderr) = warlab(&args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("seed `5` (there) against `1` (this run)"),
        "{stderr}"
    );
    // Parts without a finished variant hold nothing to lose: replaced without a word.
    std::fs::remove_file(parts.join("v0000.aggregate.json")).unwrap();
    let (code, _, stderr) = warlab(&args);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn trace_replays_a_game_of_an_experiment() {
    let dir = scratch("trace");
    let file = write(&dir, "small.toml", SMALL);
    let out = dir.join("out");
    let (code, _, stderr) = warlab(&["run", &file, "--out", out.to_str().unwrap(), "--no-report"]);
    assert_eq!(code, 0, "{stderr}");
    let games = warlab_data::read_parquet(&out.join("small/games.parquet")).unwrap();
    let variant = "pickup=seat,war_down=3";
    let names = games.column("variant").unwrap().str().unwrap().clone();
    let battles = games.column("battles").unwrap().u64().unwrap().clone();
    let game = games.column("game").unwrap().u64().unwrap().clone();
    let row = (0..games.height())
        .find(|&i| names.get(i) == Some(variant) && game.get(i) == Some(17))
        .unwrap();
    let (code, stdout, stderr) = warlab(&[
        "trace",
        "--experiment",
        &file,
        "--variant",
        variant,
        "--game",
        "17",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let expected = battles.get(row).unwrap();
    assert!(
        stdout.contains(&format!("after {expected} battles")),
        "trace ends after the battles games.parquet records ({expected}): {}",
        stdout.lines().last().unwrap_or("")
    );
    let (code, _, stderr) = warlab(&["trace", "--experiment", &file, "--variant", "nope"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("its variants: pickup=shuffled,war_down=1"),
        "{stderr}"
    );
}

/// The width and height of a PNG, from its header.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let png = std::fs::read(path).unwrap();
    let word = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn figure_size_and_dpi_come_from_the_file_and_the_command_line() {
    let dir = scratch("look");
    let file = write(
        &dir,
        "look.toml",
        "name = \"look\"\ngames = 3000\n[rules]\nwar_down = 1\n[report]\nwidth = 800\nheight = 500\ndpi = 96\n",
    );
    let (out, reports) = (dir.join("out"), dir.join("reports"));
    let (code, _, stderr) = warlab(&[
        "run",
        &file,
        "--out",
        out.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    // The file's table: 800 × 500 units at one pixel a unit.
    assert_eq!(png_size(&reports.join("look/survival.png")), (800, 500));
    let svg = std::fs::read_to_string(reports.join("look/survival.svg")).unwrap();
    assert!(
        svg.contains("width=\"800\"") && !svg.contains("<text"),
        "{svg:.300}"
    );
    // The running mean has a point per block of 16 games: at least 100 of them.
    let md = std::fs::read_to_string(reports.join("look/report.md")).unwrap();
    assert!(md.contains("running-mean.png"), "{md}");
    let aggregates = std::fs::read_to_string(out.join("look/aggregates.json")).unwrap();
    assert!(
        aggregates.contains("\"block_games\":16"),
        "{aggregates:.400}"
    );

    // The command line over the file: the file's height stays.
    let (code, _, stderr) = warlab(&[
        "report",
        out.join("look").to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
        "--width",
        "1200",
        "--dpi",
        "192",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(png_size(&reports.join("look/survival.png")), (2400, 1000));
    let (code, _, stderr) = warlab(&[
        "report",
        out.join("look").to_str().unwrap(),
        "--dpi",
        "5000",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--dpi") && stderr.contains("48..=600"),
        "{stderr}"
    );
}
