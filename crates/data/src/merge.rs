//! Combining the data folders of runs over disjoint game ranges (shards) into one.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use warlab_experiment::{AnyExperiment, Experiment};

use crate::store::{Manifest, RunKey, Segment, Tables, write_outputs};

#[derive(Deserialize)]
#[serde(bound = "A: DeserializeOwned")]
struct Aggregates<A> {
    run: RunKey,
    variants: Vec<Named<A>>,
}

#[derive(Deserialize)]
#[serde(bound = "A: DeserializeOwned")]
struct Named<A> {
    variant: String,
    aggregate: A,
}

struct Shard<A> {
    dir: PathBuf,
    manifest: Manifest,
    run: RunKey,
    aggregates: Vec<A>,
}

fn read<A: DeserializeOwned>(dir: &Path) -> Result<Shard<A>> {
    let mpath = dir.join("manifest.json");
    if !mpath.is_file() {
        bail!(
            "{} is not a finished run (no manifest.json): run that shard again (the same `warlab run … --shard I/N` command resumes it)",
            dir.display()
        );
    }
    let manifest: Manifest = serde_json::from_str(&std::fs::read_to_string(&mpath)?)
        .with_context(|| format!("{} is not a warlab manifest", mpath.display()))?;
    let apath = dir.join("aggregates.json");
    let aggs: Aggregates<A> = serde_json::from_str(
        &std::fs::read_to_string(&apath)
            .with_context(|| format!("cannot read {}", apath.display()))?,
    )
    .with_context(|| format!("{} is not a warlab aggregates file", apath.display()))?;
    let names: Vec<&str> = aggs.variants.iter().map(|v| v.variant.as_str()).collect();
    let listed: Vec<&str> = manifest.variants.iter().map(|v| v.name.as_str()).collect();
    if names != listed {
        bail!(
            "{}: manifest.json and aggregates.json list different variants",
            dir.display()
        );
    }
    Ok(Shard {
        dir: dir.to_path_buf(),
        manifest,
        run: aggs.run,
        aggregates: aggs.variants.into_iter().map(|v| v.aggregate).collect(),
    })
}

/// Merges the data folders `dirs` (runs of one experiment file, seed and warlab version over
/// game ranges that together cover every game exactly once) into `out_root/<experiment>/`:
/// the same files, byte for byte, as one run over all the games.
pub fn merge(dirs: &[PathBuf], out_root: &Path) -> Result<(PathBuf, Manifest)> {
    if dirs.is_empty() {
        bail!("nothing to merge: give the shard folders");
    }
    let mpath = dirs[0].join("manifest.json");
    let manifest: Option<Manifest> = std::fs::read_to_string(&mpath)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let experiment = manifest
        .map(|m| AnyExperiment::parse(Path::new(&m.file), &m.text))
        .transpose()
        .map_err(|e| {
            anyhow::anyhow!(
                "{}: the experiment in its manifest no longer parses: {e}",
                dirs[0].display()
            )
        })?;
    match experiment {
        Some(AnyExperiment::Casino(_)) => merge_game::<warlab_casino::CasinoRules>(dirs, out_root),
        // A missing manifest is reported by `read`, with the folder named.
        _ => merge_game::<warlab_engine::Rules>(dirs, out_root),
    }
}

fn merge_game<G: Tables>(dirs: &[PathBuf], out_root: &Path) -> Result<(PathBuf, Manifest)> {
    let mut shards: Vec<Shard<G::Aggregate>> =
        dirs.iter().map(|d| read(d)).collect::<Result<_>>()?;
    shards.sort_by_key(|s| (s.run.games_from, s.run.games_to));
    let first = &shards[0];
    for s in &shards[1..] {
        let differs = |what: &str, a: &str, b: &str| {
            anyhow::anyhow!(
                "{} and {} come from different runs: {what} `{a}` against `{b}`; merge only shards of one experiment file, seed and warlab version",
                first.dir.display(),
                s.dir.display()
            )
        };
        let (a, b) = (&first.run, &s.run);
        if a.experiment_hash != b.experiment_hash {
            return Err(differs(
                "experiment file hash",
                &a.experiment_hash,
                &b.experiment_hash,
            ));
        }
        if a.seed != b.seed {
            return Err(differs("seed", &a.seed.to_string(), &b.seed.to_string()));
        }
        if a.warlab_version != b.warlab_version {
            return Err(differs(
                "warlab version",
                &a.warlab_version,
                &b.warlab_version,
            ));
        }
        if a.rows != b.rows {
            return Err(differs("rows", &a.rows.to_string(), &b.rows.to_string()));
        }
    }
    let exp = Experiment::<G>::parse_game(Path::new(&first.manifest.file), &first.manifest.text)
        .map_err(|e| {
            anyhow::anyhow!(
                "{}: the experiment in its manifest no longer parses: {e}",
                first.dir.display()
            )
        })?;
    // The ranges must tile 0..games: no gap, no overlap.
    let mut next = 0;
    for s in &shards {
        let (from, to) = (s.run.games_from, s.run.games_to);
        if from > next {
            bail!(
                "games {next}..{from} of every variant are in none of the folders: a shard is missing (the set is incomplete)"
            );
        }
        if from < next {
            bail!(
                "{} (games {from}..{to}) overlaps another folder: the same shard given twice, or shards of different splits",
                s.dir.display()
            );
        }
        next = to;
    }
    if next != exp.games {
        bail!(
            "the folders cover games 0..{next} of every variant, the experiment has {}: a shard is missing (the set is incomplete)",
            exp.games
        );
    }
    let out = out_root.join(&exp.name);
    for s in &shards {
        if std::fs::canonicalize(&s.dir).ok() == std::fs::canonicalize(&out).ok() {
            bail!(
                "the output {} is one of the shards: choose another --out",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let n = exp.variants.len();
    let mut aggregates = vec![G::Aggregate::default(); n];
    for s in &shards {
        if s.aggregates.len() != n {
            bail!(
                "{} has {} variants, the experiment {}",
                s.dir.display(),
                s.aggregates.len(),
                n
            );
        }
        for (total, a) in aggregates.iter_mut().zip(&s.aggregates) {
            G::merge(total, a);
        }
    }
    let key = RunKey {
        games_from: 0,
        games_to: exp.games,
        ..first.run.clone()
    };
    let rows = key.rows.then(|| {
        (0..n)
            .map(|v| {
                shards
                    .iter()
                    .map(|s| Segment {
                        path: s.dir.join("games.parquet"),
                        offset: s.aggregates[..v]
                            .iter()
                            .map(|a| G::played(a) as usize)
                            .sum(),
                        len: G::played(&s.aggregates[v]) as usize,
                    })
                    .collect()
            })
            .collect::<Vec<Vec<Segment>>>()
    });
    let played: u64 = shards.iter().map(|s| s.manifest.games_played).sum();
    let seconds: f64 = shards.iter().map(|s| s.manifest.seconds).sum();
    let started = shards
        .iter()
        .map(|s| s.manifest.started_utc.clone())
        .min()
        .unwrap_or_default();
    let threads = shards.iter().map(|s| s.manifest.threads).max().unwrap_or(0);
    let manifest = write_outputs(&out, &exp, &key, &aggregates, rows.as_deref(), |finished| {
        Manifest {
            threads,
            started_utc: started,
            finished_utc: crate::store::utc(finished),
            seconds,
            games_played: played,
            games_per_s: played as f64 / seconds.max(1e-9),
            merged_from: shards.iter().map(|s| s.dir.display().to_string()).collect(),
            ..Manifest::describe(&exp, &key)
        }
    })?;
    // A half-finished single run in the same folder would no longer match.
    let _ = std::fs::remove_dir_all(out.join(".parts"));
    Ok((out, manifest))
}
