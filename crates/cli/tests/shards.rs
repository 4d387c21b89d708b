//! Sharded runs merge into the bytes of one run; bad sets of shards are refused.

mod common;

use common::{Scratch, warlab};

fn scratch(name: &str) -> Scratch {
    common::scratch("shards", name)
}

// 10,000 games a variant are 3 chunks: 7 shards include empty ones.
const TEXT: &str = "name = \"sh\"\ngames = 10000\nseed = 4\nrows = true\n\
[sweep]\npickup = [\"shuffled\", \"seat\"]\nwar_down = [1, 3]\n";

const FILES: [&str; 7] = [
    "summary.parquet",
    "summary.csv",
    "variants.parquet",
    "variants.csv",
    "lengths.parquet",
    "games.parquet",
    "aggregates.json",
];

fn run_shards(dir: &std::path::Path, file: &str, n: u64, seed: &str) -> Vec<String> {
    let out = dir.join("shards");
    (1..=n)
        .map(|i| {
            let (code, _, stderr) = warlab(&[
                "run",
                file,
                "--shard",
                &format!("{i}/{n}"),
                "--seed",
                seed,
                "--out",
                out.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{stderr}");
            out.join(format!("sh.shard-{i}-of-{n}"))
                .to_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// Every data file of the run in `single` and of the merge of `n` shards in `merged` holds the
/// same bytes.
fn assert_same_files(single: &std::path::Path, merged: &std::path::Path, n: u64) {
    for f in FILES {
        let a = std::fs::read(single.join("sh").join(f)).unwrap();
        let b = std::fs::read(merged.join("sh").join(f)).unwrap();
        assert!(a == b, "{f} differs after merging {n} shards");
    }
}

#[test]
fn merged_shards_equal_one_run_byte_for_byte() {
    let dir = scratch("equal");
    let file = dir.join("sh.toml");
    std::fs::write(&file, TEXT).unwrap();
    let file = file.to_str().unwrap();
    let single = dir.join("single");
    // A seed other than the file's: the merge must write the run's seed in the run columns,
    // not the one it reads back from the file's text.
    let (code, _, stderr) = warlab(&[
        "run",
        file,
        "--seed",
        "6",
        "--out",
        single.to_str().unwrap(),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let reports = dir.join("reports");
    for n in [1u64, 3, 7] {
        let shards = run_shards(&dir, file, n, "6");
        let merged = dir.join(format!("merged{n}"));
        let mut args = vec!["merge"];
        // Any order: the merge sorts shards by their game ranges.
        args.extend(shards.iter().rev().map(String::as_str));
        args.extend([
            "--out",
            merged.to_str().unwrap(),
            "--reports",
            reports.to_str().unwrap(),
        ]);
        let (code, stdout, stderr) = warlab(&args);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("merged"), "{stdout}");
        assert_same_files(&single, &merged, n);
        let manifest = std::fs::read_to_string(merged.join("sh/manifest.json")).unwrap();
        assert!(manifest.contains("merged_from"), "{manifest}");
    }
    assert!(
        dir.join("reports/sh/report.md").is_file(),
        "merge writes the report"
    );
}

/// `warlab merge DIRS --out OUT`, which must fail: its stderr.
fn merge_refused(dirs: &[&str], out: &std::path::Path) -> String {
    let mut args = vec!["merge"];
    args.extend_from_slice(dirs);
    args.extend(["--out", out.to_str().unwrap()]);
    let (code, _, stderr) = warlab(&args);
    assert_ne!(code, 0, "merge of {dirs:?} must fail");
    stderr
}

#[test]
fn incomplete_or_mixed_shards_are_refused() {
    let dir = scratch("refuse");
    let file = dir.join("sh.toml");
    std::fs::write(&file, TEXT).unwrap();
    let file = file.to_str().unwrap();
    let shards = run_shards(&dir, file, 3, "4");
    let out = dir.join("merged");
    let stderr = merge_refused(&[&shards[0], &shards[2]], &out);
    assert!(stderr.contains("a shard is missing"), "{stderr}");
    let stderr = merge_refused(&[&shards[0], &shards[1]], &out);
    assert!(stderr.contains("incomplete"), "{stderr}");
    let stderr = merge_refused(&[&shards[0], &shards[0], &shards[1], &shards[2]], &out);
    assert!(stderr.contains("overlaps"), "{stderr}");
    // A shard of another seed.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let (code, _, stderr) = warlab(&[
        "run",
        file,
        "--shard",
        "2/3",
        "--seed",
        "5",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let odd = other.join("sh.shard-2-of-3");
    let stderr = merge_refused(&[&shards[0], odd.to_str().unwrap(), &shards[2]], &out);
    assert!(stderr.contains("seed `4` against `5`"), "{stderr}");
    assert!(
        !out.join("sh").join("summary.parquet").exists(),
        "nothing merged"
    );
    // An unfinished shard.
    std::fs::remove_file(std::path::Path::new(&shards[1]).join("manifest.json")).unwrap();
    let stderr = merge_refused(&[&shards[0], &shards[1], &shards[2]], &out);
    assert!(stderr.contains("not a finished run"), "{stderr}");
    let (code, _, stderr) = warlab(&["run", file, "--shard", "4/3"]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn slurm_writes_an_array_and_a_dependent_merge() {
    let dir = scratch("slurm");
    let file = dir.join("sh.toml");
    std::fs::write(&file, TEXT).unwrap();
    let scripts = dir.join("scripts");
    let (code, stdout, stderr) = warlab(&[
        "slurm",
        file.to_str().unwrap(),
        "--shards",
        "4",
        "--partition",
        "debug",
        "--time",
        "00:10:00",
        "--cpus-per-task",
        "2",
        "--dir",
        scripts.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("--dependency=afterok:"), "{stdout}");
    let array = std::fs::read_to_string(scripts.join("sh.sbatch")).unwrap();
    for want in [
        "#SBATCH --array=1-4",
        "#SBATCH --partition=debug",
        "#SBATCH --time=00:10:00",
        "#SBATCH --cpus-per-task=2",
        "--shard \"${SLURM_ARRAY_TASK_ID}/4\"",
    ] {
        assert!(array.contains(want), "{want} missing:\n{array}");
    }
    let merge = std::fs::read_to_string(scripts.join("sh.merge.sbatch")).unwrap();
    assert!(
        merge.contains(" merge ") && merge.contains("sh.shard-4-of-4"),
        "{merge}"
    );
}

/// Row groups of 65,536 games that span shards: 300,000 games of one variant with rows are 5
/// row groups (more than one window of the final write on 2 cores), and 3 shards cut inside
/// them. The merge writes the bytes of one run.
#[test]
fn row_groups_across_shards_merge_into_one_runs_bytes() {
    let dir = scratch("groups");
    let file = dir.join("sh.toml");
    std::fs::write(
        &file,
        "name = \"sh\"\ngames = 300000\nseed = 9\nrows = true\n[rules]\nshort_war = \"lose\"\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let single = dir.join("single");
    let (code, _, stderr) = warlab(&[
        "run",
        file,
        "--out",
        single.to_str().unwrap(),
        "--no-report",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let shards = run_shards(&dir, file, 3, "9");
    let merged = dir.join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--out", merged.to_str().unwrap(), "--no-report"]);
    let (code, _, stderr) = warlab(&args);
    assert_eq!(code, 0, "{stderr}");
    assert_same_files(&single, &merged, 3);
    let games = warlab_data::read_parquet(&single.join("sh/games.parquet")).unwrap();
    assert_eq!(games.height(), 300_000);
}
