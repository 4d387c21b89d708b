//! A run's folder as a whole: whose results it holds, whether a command may write into it, and
//! whether its files belong together.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::de::IgnoredAny;
use warlab_casino::CasinoRules;
use warlab_engine::Rules;
use warlab_experiment::{Experiment, Overrides, RuleSet, check_name, fnv1a};
use warlab_folders::refused;
use warlab_stats::files::{AggregatesFile, Manifest, RunKey};

use crate::files::{csv_bytes, parquet_footer, temp_path};
use crate::frames::{Tables, variants_frame};

/// The final files of a run, `manifest.json` last (the order they are written in).
pub const FILES: [&str; 8] = [
    "summary.parquet",
    "summary.csv",
    "variants.parquet",
    "variants.csv",
    "lengths.parquet",
    "games.parquet",
    "aggregates.json",
    "manifest.json",
];

/// Where a run in `dir` keeps its finished variants until its final files are written:
/// `dir/.parts/`.
pub fn parts_dir(dir: &Path) -> PathBuf {
    dir.join(".parts")
}

/// The key of `dir/.parts/`: `None` without a key file, `Some(Err)` when it is unreadable.
pub(crate) fn read_parts_key(dir: &Path) -> Option<Result<RunKey>> {
    read_json(&parts_dir(dir).join("run.json"), "is damaged")
}

/// Reads `dir/manifest.json`: `None` when there is none.
fn read_manifest(dir: &Path) -> Option<Result<Manifest>> {
    read_json(&dir.join("manifest.json"), "is not a warlab manifest")
}

/// Reads a JSON file: `None` when there is none; an error names the file and says `bad`.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path, bad: &str) -> Option<Result<T>> {
    if !path.exists() {
        return None;
    }
    Some(
        std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))
            .and_then(|t| {
                serde_json::from_str(&t).with_context(|| format!("{} {bad}", path.display()))
            }),
    )
}

/// Finished variants kept in `dir/.parts/`.
fn finished_parts(dir: &Path) -> Result<usize> {
    let parts = parts_dir(dir);
    if !parts.is_dir() {
        return Ok(0);
    }
    let mut n = 0;
    for entry in
        std::fs::read_dir(&parts).with_context(|| format!("cannot read {}", parts.display()))?
    {
        let name = entry
            .with_context(|| format!("cannot read {}", parts.display()))?
            .file_name();
        if name.to_string_lossy().ends_with(".aggregate.json") {
            n += 1;
        }
    }
    Ok(n)
}

/// Makes the locked folder `dir` ready for results under `key`: removes temporary files a
/// killed command left, and refuses (unless `force`) when the folder holds finished results,
/// or finished variants of an interrupted run, under another key. With `force` those are
/// discarded, the manifest first, so the folder never claims results it no longer holds.
pub(crate) fn claim(dir: &Path, key: &RunKey, force: bool) -> Result<()> {
    for name in FILES {
        let tmp = temp_path(&dir.join(name));
        if tmp.exists() {
            std::fs::remove_file(&tmp)
                .with_context(|| format!("cannot remove the stale {}", tmp.display()))?;
        }
    }
    let mut held = Vec::new();
    match read_manifest(dir) {
        None => {}
        Some(Ok(m)) if m.key() == *key => {}
        Some(Ok(m)) => held.push(format!(
            "the finished results of another run ({})",
            m.key().describe_differences(key, "there", "this run")
        )),
        Some(Err(e)) => held.push(format!("a manifest.json that cannot be read ({e:#})")),
    }
    let parts = finished_parts(dir)?;
    if parts > 0 {
        match read_parts_key(dir) {
            Some(Ok(k)) if k == *key => {}
            Some(Ok(k)) => held.push(format!(
                "{parts} finished variant(s) of an interrupted run with another key in .parts/ ({})",
                k.describe_differences(key, "there", "this run")
            )),
            Some(Err(e)) => held.push(format!(
                "{parts} finished variant(s) of an interrupted run in .parts/ whose key cannot be read ({e:#})"
            )),
            None => held.push(format!(
                "{parts} finished variant(s) of an unknown run in .parts/ (no run.json)"
            )),
        }
    }
    if held.is_empty() {
        return Ok(());
    }
    if !force {
        return Err(refused(format!(
            "{} holds {}: they are not overwritten; give --force to replace them, or another --out",
            dir.display(),
            held.join("; and ")
        )));
    }
    let manifest = dir.join("manifest.json");
    if manifest.exists() {
        std::fs::remove_file(&manifest)
            .with_context(|| format!("cannot remove {}", manifest.display()))?;
    }
    if !read_parts_key(dir).is_some_and(|k| k.is_ok_and(|k| k == *key)) {
        let parts = parts_dir(dir);
        if parts.exists() {
            std::fs::remove_dir_all(&parts)
                .with_context(|| format!("cannot remove {}", parts.display()))?;
        }
    }
    Ok(())
}

/// Checks that every file of the finished run in `dir` belongs to the run its manifest
/// describes: the Parquet files' run keys, `aggregates.json`'s, and `summary.csv`'s hash
/// recorded in the manifest. A folder that mixes runs (a kill between renames, a disk that
/// filled, files copied in by hand) is refused, naming each file that disagrees.
pub fn verify(dir: &Path) -> Result<Manifest> {
    if !dir.is_dir() {
        return Err(refused(format!(
            "{} is not a folder: give a run's data folder (data/<name>)",
            dir.display()
        )));
    }
    let manifest = match read_manifest(dir) {
        None if parts_dir(dir).is_dir() => {
            return Err(refused(format!(
                "{} is not a finished run, but a partial one (.parts/ without manifest.json): run the same `warlab run` command again (with the same --shard I/N for a shard) to finish it",
                dir.display()
            )));
        }
        None => {
            return Err(refused(format!(
                "{} is not a finished run (no manifest.json): not the data folder of a finished `warlab run`",
                dir.display()
            )));
        }
        Some(m) => m.map_err(|e| refused(format!("{e:#}")))?,
    };
    let mpath = dir.join("manifest.json");
    check_name(&manifest.experiment).map_err(|e| {
        refused(format!(
            "{}: `experiment`: {e}; the manifest was edited or is not warlab's",
            mpath.display()
        ))
    })?;
    let key = manifest.key();
    let mut disagree = Vec::new();
    let mut differs = |file: &str, other: Option<&RunKey>| match other {
        Some(k) if *k == key => {}
        Some(k) => disagree.push(format!(
            "{file}: {}",
            k.describe_differences(&key, file, "manifest.json")
        )),
        None => disagree.push(format!(
            "{file}: carries no run key (written by another tool or an older warlab)"
        )),
    };
    let apath = dir.join("aggregates.json");
    let text = std::fs::read_to_string(&apath)
        .with_context(|| format!("cannot read {}", apath.display()))?;
    let aggregates: AggregatesFile<IgnoredAny> = serde_json::from_str(&text).map_err(|e| {
        refused(format!(
            "{} is not a warlab aggregates file: {e}",
            apath.display()
        ))
    })?;
    differs("aggregates.json", aggregates.run.as_ref());
    let mut parquet = vec!["summary.parquet", "variants.parquet", "lengths.parquet"];
    if manifest.rows || dir.join("games.parquet").exists() {
        parquet.push("games.parquet");
    }
    for name in parquet {
        let path = dir.join(name);
        if !path.exists() {
            return Err(refused(format!(
                "{} is missing: the folder is not a whole run; run the experiment again",
                path.display()
            )));
        }
        let (_, file_key) = parquet_footer(&path).map_err(|e| refused(format!("{e:#}")))?;
        differs(name, file_key.as_ref());
    }
    let cpath = dir.join("summary.csv");
    let csv = std::fs::read(&cpath).with_context(|| format!("cannot read {}", cpath.display()))?;
    let hash = format!("{:016x}", fnv1a(&csv));
    if hash != manifest.summary_csv_fnv1a {
        disagree.push(format!(
            "summary.csv: its FNV-1a hash `{hash}` is not the `{}` manifest.json records",
            manifest.summary_csv_fnv1a
        ));
    }
    // variants.csv has no place for the run key either, and the manifest predates it: it must
    // be the bytes this warlab writes for the experiment the manifest records.
    let vpath = dir.join("variants.csv");
    if !vpath.exists() {
        return Err(refused(format!(
            "{} is missing: the folder is not a whole run; run the experiment again",
            vpath.display()
        )));
    }
    let written =
        std::fs::read(&vpath).with_context(|| format!("cannot read {}", vpath.display()))?;
    let expected = if manifest.game == CasinoRules::GAME {
        variants_csv::<CasinoRules>(dir, &manifest)
    } else {
        variants_csv::<Rules>(dir, &manifest)
    }?;
    if written != expected {
        disagree.push(
            "variants.csv: it is not the rules of the experiment manifest.json records".into(),
        );
    }
    if !disagree.is_empty() {
        return Err(refused(format!(
            "{} mixes files of different runs; manifest.json is the run of {}, but\n  {}\nrun the experiment again (or give --force to replace the folder)",
            dir.display(),
            describe(&key),
            disagree.join("\n  ")
        )));
    }
    Ok(manifest)
}

/// The bytes of `variants.csv` for the run `manifest` (of the folder `dir`) records.
fn variants_csv<G: Tables>(dir: &Path, manifest: &Manifest) -> Result<Vec<u8>> {
    csv_bytes(&mut variants_frame(&recorded_experiment::<G>(
        dir, manifest,
    )?)?)
}

/// The experiment a finished run played, read back from its manifest (of the folder `dir`):
/// the file's text with the recorded overrides, and the recorded seed (`--seed` changes the
/// seed without being an override of the text).
pub(crate) fn recorded_experiment<G: Tables>(
    dir: &Path,
    manifest: &Manifest,
) -> Result<Experiment<G>> {
    let mut exp = Overrides::from_recorded(&manifest.overrides)
        .and_then(|o| {
            Experiment::<G>::parse_game_with(Path::new(&manifest.file), &manifest.text, &o)
                .map_err(|e| e.to_string())
        })
        .map_err(|e| {
            refused(format!(
                "{}: the experiment in its manifest no longer parses: {e}",
                dir.display()
            ))
        })?;
    if exp.name != manifest.experiment {
        return Err(refused(format!(
            "{}: manifest.json names the experiment `{}` but its text names `{}`: the manifest was edited",
            dir.display(),
            manifest.experiment,
            exp.name
        )));
    }
    exp.seed = manifest.seed;
    Ok(exp)
}

/// A run key in words.
fn describe(k: &RunKey) -> String {
    format!(
        "experiment file hash `{}`, seed `{}`, games `{}..{}`, rows `{}`, warlab `{}`",
        k.experiment_hash, k.seed, k.games_from, k.games_to, k.rows, k.warlab_version
    )
}
