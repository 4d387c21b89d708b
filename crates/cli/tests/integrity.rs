//! Issue 14: data is never destroyed or mixed, whatever runs at once, is killed, or is edited.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Scratch, kill_when, warlab, write};
use warlab_data::{FolderLock, parquet_footer, rows_part, verify};

fn scratch(name: &str) -> Scratch {
    common::scratch("integrity", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const SMALL: &str = "name = \"small\"\ngames = 3000\nseed = 3\nrows = true\n\
[sweep]\npickup = [\"shuffled\", \"seat\"]\nwar_down = [1, 3]\n";

/// Runs SMALL (or `text`) into `out`: the data folder.
fn run_into(dir: &Path, text: &str, out: &Path, extra: &[&str]) -> PathBuf {
    let file = write(dir, "small.toml", text);
    let mut args = vec!["run", file.as_str(), "--out", s(out), "--no-report"];
    args.extend_from_slice(extra);
    let (code, _, stderr) = warlab(&args);
    assert_eq!(code, 0, "{stderr}");
    out.join("small")
}

/// Every figure report.md links to exists.
fn assert_report_whole(report: &Path) {
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    for link in md.split("](").skip(1) {
        let target = link.split(')').next().unwrap();
        assert!(
            report.join(target).is_file(),
            "report.md links to missing {target}"
        );
    }
}

#[test]
fn report_never_touches_anything_outside_its_folder() {
    let dir = scratch("names");
    let data = run_into(&dir, SMALL, &dir.join("data"), &[]);
    let reports = dir.join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    std::fs::write(reports.join("keep.md"), "the user's").unwrap();
    let manifest = std::fs::read_to_string(data.join("manifest.json")).unwrap();
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for bad in ["..", "", ".", s(&elsewhere), "../data", "a/b"] {
        let edited = manifest.replace(
            "\"experiment\": \"small\"",
            &format!("\"experiment\": {bad:?}"),
        );
        assert_ne!(edited, manifest);
        std::fs::write(data.join("manifest.json"), &edited).unwrap();
        let (code, _, stderr) = warlab(&["report", s(&data), "--reports", s(&reports)]);
        assert_eq!(code, 2, "{bad:?}: {stderr}");
        assert!(stderr.contains("`experiment`"), "{stderr}");
        assert!(
            data.join("games.parquet").is_file(),
            "the data survives {bad:?}"
        );
        assert!(
            reports.join("keep.md").is_file(),
            "the reports survive {bad:?}"
        );
        assert!(elsewhere.is_dir(), "an absolute path is not replaced");
    }
}

#[test]
fn a_second_command_on_a_locked_folder_is_refused_naming_it_and_the_holder() {
    let dir = scratch("lock");
    let out = dir.join("data");
    let data = run_into(&dir, SMALL, &out, &[]);
    let file = dir.join("small.toml");
    let held = FolderLock::acquire(&data).unwrap();
    let pid = format!("pid {}", std::process::id());
    for args in [
        vec!["run", s(&file), "--out", s(&out), "--no-report"],
        vec!["report", s(&data), "--reports", s(&dir.join("reports"))],
    ] {
        let (code, _, stderr) = warlab(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(s(&data)) && stderr.contains(&pid) && stderr.contains("in use"),
            "{stderr}"
        );
    }
    // A merge into it, and a merge reading a locked shard.
    let shards = dir.join("shards");
    for i in 1..=2 {
        let (code, _, stderr) = warlab(&[
            "run",
            s(&file),
            "--shard",
            &format!("{i}/2"),
            "--out",
            s(&shards),
        ]);
        assert_eq!(code, 0, "{stderr}");
    }
    let (a, b) = (
        shards.join("small.shard-1-of-2"),
        shards.join("small.shard-2-of-2"),
    );
    let (code, _, stderr) = warlab(&["merge", s(&a), s(&b), "--out", s(&out), "--no-report"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(&pid), "{stderr}");
    drop(held);
    let shard_lock = FolderLock::acquire(&b).unwrap();
    let (code, _, stderr) = warlab(&["merge", s(&a), s(&b), "--out", s(&out), "--no-report"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(s(&b)) && stderr.contains(&pid), "{stderr}");
    drop(shard_lock);
    let (code, _, stderr) = warlab(&["merge", s(&a), s(&b), "--out", s(&out), "--no-report"]);
    assert_eq!(code, 0, "the lock is gone with its holder: {stderr}");
}

#[test]
fn two_files_of_one_name_run_at_once_never_mix() {
    let dir = scratch("race");
    let out = dir.join("data");
    let texts = [
        SMALL.replace("seed = 3", "seed = 4"),
        "name = \"small\"\ngames = 3000\n[sweep]\nplayers = [2, 3, 4]\n".to_string(),
    ];
    for round in 0..3 {
        let _ = std::fs::remove_dir_all(&out);
        let children: Vec<_> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let file = write(&dir, &format!("f{i}.toml"), t);
                Command::new(env!("CARGO_BIN_EXE_warlab"))
                    .args(["run", &file, "--out", s(&out), "--no-report"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let results: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let ok = results.iter().filter(|r| r.status.success()).count();
        assert_eq!(ok, 1, "round {round}: exactly one run writes the folder");
        let loser = results.iter().find(|r| !r.status.success()).unwrap();
        let err = String::from_utf8_lossy(&loser.stderr);
        assert_eq!(loser.status.code(), Some(2), "{err}");
        assert!(
            err.contains("in use by another warlab command")
                || err.contains("holds the finished results of another run"),
            "{err}"
        );
        // The folder is one run's, through and through.
        let m = verify(&out.join("small")).unwrap();
        let winner = texts
            .iter()
            .find(|t| m.text == **t)
            .expect("one file's text");
        let names: Vec<&str> = m.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names.len(), if winner.contains("players") { 3 } else { 4 });
    }
}

#[test]
fn every_data_file_carries_the_run_key_and_a_mixed_folder_is_refused() {
    let dir = scratch("mixed");
    let one = run_into(&dir, SMALL, &dir.join("one"), &[]);
    let two = run_into(&dir, SMALL, &dir.join("two"), &["--seed", "9"]);
    let m = verify(&one).unwrap();
    for f in [
        "summary.parquet",
        "variants.parquet",
        "lengths.parquet",
        "games.parquet",
    ] {
        let (_, key) = parquet_footer(&one.join(f)).unwrap();
        assert_eq!(key.as_ref(), Some(&m.key()), "{f} carries the run key");
    }
    let agg = std::fs::read_to_string(one.join("aggregates.json")).unwrap();
    assert!(
        agg.starts_with("{\"run\":{\"experiment_hash\""),
        "aggregates.json"
    );
    assert_eq!(
        m.summary_csv_fnv1a.len(),
        16,
        "the manifest vouches for the CSV"
    );
    // Files of the other seed copied in, as a kill between renames once left them.
    let reports = dir.join("reports");
    for files in [
        &["summary.parquet", "summary.csv"][..],
        &["variants.parquet", "variants.csv"],
        &["variants.csv"],
        &["lengths.parquet"],
        &["games.parquet"],
        &["aggregates.json"],
    ] {
        let mixed = dir.join("mixed");
        let _ = std::fs::remove_dir_all(&mixed);
        std::fs::create_dir_all(&mixed).unwrap();
        for f in warlab_data::FILES {
            let from = if files.contains(&f) { &two } else { &one };
            std::fs::copy(from.join(f), mixed.join(f)).unwrap();
        }
        let (code, _, stderr) = warlab(&["report", s(&mixed), "--reports", s(&reports)]);
        assert_eq!(code, 2, "{files:?}: {stderr}");
        assert!(stderr.contains("mixes files of different runs"), "{stderr}");
        for f in files {
            assert!(stderr.contains(&format!("{f}: ")), "{f} named: {stderr}");
        }
        assert!(
            !reports.join("small").exists(),
            "no report of a mixed folder"
        );
        // A mixed shard is refused by merge the same way.
        let (code, _, stderr) = warlab(&["merge", s(&mixed), "--out", s(&dir.join("m"))]);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("mixes files of different runs"), "{stderr}");
    }
}

#[test]
fn finished_results_of_another_run_key_are_never_overwritten_without_force() {
    let dir = scratch("overwrite");
    let out = dir.join("data");
    let data = run_into(&dir, SMALL, &out, &[]);
    let file = dir.join("small.toml");
    let before = std::fs::read(data.join("summary.parquet")).unwrap();
    let edited = dir.join("edited.toml");
    std::fs::write(&edited, SMALL.replace("games = 3000", "games = 2000")).unwrap();
    for (args, differs) in [
        (
            vec![s(&file), "--seed", "5"],
            "seed `3` (there) against `5` (this run)",
        ),
        (
            vec![s(&file), "--games", "100"],
            "games `0..3000` (there) against `0..100`",
        ),
        (vec![s(&edited)], "experiment file hash"),
    ] {
        let mut all = vec!["run"];
        all.extend(args);
        all.extend(["--out", s(&out), "--no-report"]);
        let (code, _, stderr) = warlab(&all);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains(s(&data)) && stderr.contains(differs) && stderr.contains("--force"),
            "{stderr}"
        );
        assert_eq!(std::fs::read(data.join("summary.parquet")).unwrap(), before);
        verify(&data).unwrap();
    }
    // The same key again is fine (and writes the same bytes).
    run_into(&dir, SMALL, &out, &[]);
    assert_eq!(std::fs::read(data.join("summary.parquet")).unwrap(), before);
    // A slice goes to its own folder, leaving the whole run alone.
    let (code, _, stderr) = warlab(&[
        "run",
        s(&file),
        "--games-from",
        "0",
        "--games-to",
        "100",
        "--out",
        s(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("small.games-0-100"), "{stderr}");
    verify(&out.join("small.games-0-100")).unwrap();
    assert_eq!(std::fs::read(data.join("summary.parquet")).unwrap(), before);
    assert!(
        !dir.join("reports").exists(),
        "a slice gets no report of its own"
    );
    // Slices merge like shards.
    let (code, _, stderr) = warlab(&[
        "run",
        s(&file),
        "--games-from",
        "100",
        "--games-to",
        "3000",
        "--out",
        s(&out),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let merged = dir.join("merged");
    let (code, _, stderr) = warlab(&[
        "merge",
        s(&out.join("small.games-0-100")),
        s(&out.join("small.games-100-3000")),
        "--out",
        s(&merged),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{stderr}");
    for f in warlab_data::FILES.iter().filter(|f| **f != "manifest.json") {
        assert_eq!(
            std::fs::read(merged.join("small").join(f)).unwrap(),
            std::fs::read(data.join(f)).unwrap(),
            "{f}"
        );
    }
    // A merge into a folder with another run's results (or its parts) is refused too.
    let (code, _, stderr) = warlab(&[
        "run",
        s(&file),
        "--seed",
        "5",
        "--out",
        s(&merged),
        "--force",
        "--no-report",
    ]);
    assert_eq!(code, 0, "--force replaces: {stderr}");
    assert_eq!(verify(&merged.join("small")).unwrap().seed, 5);
    let slices = [
        s(&out.join("small.games-0-100")).to_string(),
        s(&out.join("small.games-100-3000")).to_string(),
    ];
    let merge_args = [
        "merge",
        &slices[0],
        &slices[1],
        "--out",
        s(&merged),
        "--no-report",
    ];
    let (code, _, stderr) = warlab(&merge_args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("seed `5` (there) against `3`"), "{stderr}");
    std::fs::remove_file(merged.join("small/manifest.json")).unwrap();
    let parts = merged.join("small/.parts");
    std::fs::create_dir_all(&parts).unwrap();
    std::fs::copy(dir.join("small.toml"), parts.join("v0000.aggregate.json")).unwrap();
    let (code, _, stderr) = warlab(&merge_args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(".parts"), "{stderr}");
    assert!(
        parts.join("v0000.aggregate.json").exists(),
        "the parts are kept"
    );
    let mut forced = merge_args.to_vec();
    forced.push("--force");
    let (code, _, stderr) = warlab(&forced);
    assert_eq!(code, 0, "{stderr}");
    assert!(!parts.exists());
}

#[test]
fn a_report_killed_at_any_moment_leaves_a_whole_report() {
    let dir = scratch("killreport");
    let data = run_into(&dir, SMALL, &dir.join("data"), &[]);
    let reports = dir.join("reports");
    let (code, _, stderr) = warlab(&["report", s(&data), "--reports", s(&reports)]);
    assert_eq!(code, 0, "{stderr}");
    let report = reports.join("small");
    assert_report_whole(&report);
    let started = Instant::now();
    let (code, _, _) = warlab(&["report", s(&data), "--reports", s(&reports)]);
    assert_eq!(code, 0);
    let full = started.elapsed();
    for k in 0..12u32 {
        // Kills spread over the whole report, the final swap included.
        let started = Instant::now();
        kill_when(&["report", s(&data), "--reports", s(&reports)], || {
            started.elapsed() >= full * k / 10
        });
        assert!(
            report.join("report.md").is_file(),
            "kill {k}: the report is there"
        );
        assert_report_whole(&report);
    }
    // The next report cleans up after a killed one.
    let (code, _, stderr) = warlab(&["report", s(&data), "--reports", s(&reports)]);
    assert_eq!(code, 0, "{stderr}");
    let left: Vec<String> = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn bad_arguments_are_refused_with_status_2() {
    let dir = scratch("args");
    let file = write(&dir, "small.toml", SMALL);
    let out = dir.join("out");
    let readme = write(&dir, "README.md", "# not data\n");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["run", &file, "--games", "18446744073709551615"],
            "from 1 to 10000000000",
        ),
        (
            vec![
                "run",
                &file,
                "--games-from",
                "18446744073709551000",
                "--games-to",
                "18446744073709551615",
            ],
            "beyond the experiment's 3000 games",
        ),
        (
            vec!["run", &file, "--games-to", "3001"],
            "beyond the experiment's 3000 games",
        ),
        (vec!["run", "/dev/zero"], "larger than 16 MiB"),
        (
            vec!["trace", "--rules", "/nonexistent/r.toml"],
            "/nonexistent/r.toml",
        ),
        (
            vec!["trace", "--deal", "AS AS / KS KD"],
            "`AS` is dealt 2 times",
        ),
        (
            vec!["trace", "--deal", "AS KS // QS JS"],
            "seat 1 has no cards",
        ),
        (
            vec!["trace", "--rule", "war_down=J=1,J=2"],
            "`J` is given twice",
        ),
        (
            vec!["report", &readme],
            "is a file, not a run's data folder",
        ),
        (vec!["report", "/nonexistent/data/x"], "does not exist"),
        (
            vec!["slurm", &file, "--time", "junk"],
            "not a Slurm time limit",
        ),
        (vec!["slurm", &file, "--shards", "1000000"], "at most 1000"),
        (
            vec!["slurm", &file, "--partition", "short\n#SBATCH --mem=1T"],
            "a partition name is",
        ),
    ];
    let scripts = dir.join("slurm");
    for (mut args, says) in cases {
        if args[0] == "run" {
            args.extend(["--out", s(&out), "--no-report"]);
        }
        if args[0] == "slurm" {
            args.extend(["--dir", s(&scripts)]);
        }
        let started = Instant::now();
        let (code, _, stderr) = warlab(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{args:?} returns at once"
        );
    }
    assert!(!out.exists(), "nothing written");
    assert!(!scripts.exists(), "no script written");
    // Too many threads: capped, with a warning.
    let (code, _, stderr) = warlab(&[
        "run",
        &file,
        "--games",
        "100",
        "--threads",
        "100000",
        "--out",
        s(&out),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("warning: --threads 100000"), "{stderr}");
}

#[test]
fn io_errors_name_their_path() {
    let dir = scratch("io");
    let file = write(&dir, "small.toml", SMALL);
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, "not a folder").unwrap();
    let (code, _, stderr) = warlab(&["run", &file, "--out", s(&blocker), "--no-report"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(s(&blocker.join("small"))), "{stderr}");
    let data = run_into(&dir, SMALL, &dir.join("data"), &[]);
    let (code, _, stderr) = warlab(&["report", s(&data), "--reports", s(&blocker)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains(s(&blocker)), "{stderr}");
}

#[test]
fn damaged_parts_are_named_and_only_their_variants_played_again() {
    let dir = scratch("parts");
    let (file, reference, out) = common::long_run_killed_after(&dir, "v0002.aggregate.json");
    let parts = out.join("long").join(".parts");
    if out.join("long/manifest.json").exists() {
        eprintln!("the run finished before it could be killed; damaged parts are not exercised");
        return;
    }
    // Parts carry the run key as the final files do.
    let key = verify(&reference.join("long")).unwrap().key();
    let (_, part_key) = rows_part(&parts.join("v0000.games.rows")).unwrap();
    assert_eq!(part_key, key, "a rows part carries the run key");
    std::fs::write(parts.join("v0000.aggregate.json"), "{\"games\": 12, \"batt").unwrap();
    let rows = parts.join("v0001.games.rows");
    let len = std::fs::metadata(&rows).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&rows)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    // A part whole in length, header and footer, one of whose rows changed (as after a power
    // cut that lost some of its pages): found by its checksum.
    let rows = parts.join("v0002.games.rows");
    let mut bytes = std::fs::read(&rows).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&rows, &bytes).unwrap();
    // A stale temporary of a final file, as a kill mid-write leaves it.
    std::fs::write(out.join("long/games.parquet.tmp"), "half a file").unwrap();
    let (code, _, stderr) = warlab(&["run", &file, "--out", s(&out), "--no-report"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "checking the finished variants kept in {}",
            parts.display()
        )),
        "{stderr}"
    );
    for (part, variant) in [
        ("v0000.aggregate.json", "war_down=0"),
        ("v0001.games.rows", "war_down=1"),
        (
            "v0002.games.rows is damaged: its rows 0..40000 do not match",
            "war_down=2",
        ),
    ] {
        assert!(
            stderr.contains(part)
                && stderr.contains(&format!("variant `{variant}` is played again")),
            "{part}: {stderr}"
        );
    }
    assert!(
        !out.join("long/games.parquet.tmp").exists(),
        "the stale temporary is gone"
    );
    for f in warlab_data::FILES.iter().filter(|f| **f != "manifest.json") {
        assert_eq!(
            std::fs::read(reference.join("long").join(f)).unwrap(),
            std::fs::read(out.join("long").join(f)).unwrap(),
            "{f} after the repair"
        );
    }
}

#[test]
fn merge_names_a_missing_or_truncated_shard_file_and_leaves_no_output() {
    let dir = scratch("merge");
    let file = write(&dir, "small.toml", SMALL);
    let shards = dir.join("shards");
    let dirs: Vec<PathBuf> = (1..=3)
        .map(|i| {
            let (code, _, stderr) = warlab(&[
                "run",
                &file,
                "--shard",
                &format!("{i}/3"),
                "--out",
                s(&shards),
            ]);
            assert_eq!(code, 0, "{stderr}");
            shards.join(format!("small.shard-{i}-of-3"))
        })
        .collect();
    let out = dir.join("merged");
    let merge = || {
        warlab(&[
            "merge",
            s(&dirs[0]),
            s(&dirs[1]),
            s(&dirs[2]),
            "--out",
            s(&out),
            "--no-report",
        ])
    };
    let games = dirs[0].join("games.parquet");
    let saved = std::fs::read(&games).unwrap();
    std::fs::write(&games, &saved[..saved.len() / 2]).unwrap();
    let (code, _, stderr) = merge();
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(s(&games)) && stderr.contains("truncated"),
        "{stderr}"
    );
    assert!(!out.join("small").exists(), "no partial output");
    std::fs::write(&games, &saved).unwrap();
    let lengths = dirs[2].join("lengths.parquet");
    std::fs::rename(&lengths, dir.join("aside")).unwrap();
    let (code, _, stderr) = merge();
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(s(&lengths)) && stderr.contains("missing"),
        "{stderr}"
    );
    assert!(!out.join("small").exists(), "no partial output");
    std::fs::rename(dir.join("aside"), &lengths).unwrap();
    let (code, _, stderr) = merge();
    assert_eq!(code, 0, "{stderr}");
    verify(&out.join("small")).unwrap();
}
