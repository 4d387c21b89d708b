//! Combining the data folders of runs over disjoint game ranges (shards, slices) into one.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use warlab_folders::{FolderLock, refused};
use warlab_stats::files::{AggregatesFile, Manifest, RunKey};

use crate::files::parquet_footer;
use crate::folder::{FILES, claim, parts_dir, recorded_experiment, verify};
use crate::frames::{Segment, Tables, write_outputs};
use crate::manifest::describe;

struct Shard<A> {
    dir: PathBuf,
    manifest: Manifest,
    run: RunKey,
    aggregates: Vec<A>,
}

/// A merged folder, still locked: the report is written under the same lock.
pub struct Merged {
    /// The merged folder, `OUT/<name>/`.
    pub dir: PathBuf,
    /// Its manifest, as written.
    pub manifest: Manifest,
    /// The merged folder's lock, held for the report.
    pub lock: FolderLock,
}

/// Reads a verified shard folder's aggregates and checks its rows file holds its games.
fn read<G: Tables>(dir: &Path, manifest: Manifest) -> Result<Shard<G::Aggregate>> {
    let apath = dir.join("aggregates.json");
    let aggs: AggregatesFile<G::Aggregate> = serde_json::from_str(
        &std::fs::read_to_string(&apath)
            .with_context(|| format!("cannot read {}", apath.display()))?,
    )
    .with_context(|| format!("{} is not a warlab aggregates file", apath.display()))?;
    let names: Vec<&str> = aggs.variants.iter().map(|v| v.variant.as_str()).collect();
    let listed: Vec<&str> = manifest.variants.iter().map(|v| v.name.as_str()).collect();
    if names != listed {
        return Err(refused(format!(
            "{}: manifest.json and aggregates.json list different variants",
            dir.display()
        )));
    }
    let aggregates: Vec<G::Aggregate> = aggs.variants.into_iter().map(|v| v.aggregate).collect();
    if manifest.rows {
        let path = dir.join("games.parquet");
        let (rows, _) = parquet_footer(&path)?;
        let played: u64 = aggregates.iter().map(G::played).sum();
        if rows as u64 != played {
            return Err(refused(format!(
                "{} holds {rows} rows, its aggregates count {played} games: the file is incomplete; run that shard again",
                path.display()
            )));
        }
    }
    Ok(Shard {
        dir: dir.to_path_buf(),
        run: manifest.key(),
        manifest,
        aggregates,
    })
}

/// Merges the data folders `dirs` (runs of one experiment file, seed and warlab version over
/// game ranges that together cover every game exactly once) into `out_root/<experiment>/`:
/// the same files, byte for byte, as one run over all the games. Every folder is locked and
/// verified first (a missing, truncated or foreign file is named); the output is built in
/// `out_root/<experiment>/.merge/` and moved into place only when complete, and a failed merge
/// leaves no output folder it created. Finished results of another run in the output folder
/// are replaced only with `force`.
pub fn merge(dirs: &[PathBuf], out_root: &Path, force: bool) -> Result<Merged> {
    if dirs.is_empty() {
        bail!("nothing to merge: give the shard folders");
    }
    // One lock per distinct folder (the same one given twice is reported as an overlap).
    let mut seen = HashSet::new();
    let mut locks = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            return Err(refused(format!(
                "{} is not a folder: give the shards' data folders",
                d.display()
            )));
        }
        let real =
            std::fs::canonicalize(d).with_context(|| format!("cannot read {}", d.display()))?;
        if seen.insert(real) {
            locks.push(FolderLock::acquire(d)?);
        }
    }
    let manifests = dirs.iter().map(|d| verify(d)).collect::<Result<Vec<_>>>()?;
    if manifests[0].game == "casino-war" {
        merge_game::<warlab_casino::CasinoRules>(dirs, manifests, out_root, force)
    } else {
        merge_game::<warlab_engine::Rules>(dirs, manifests, out_root, force)
    }
}

fn merge_game<G: Tables>(
    dirs: &[PathBuf],
    manifests: Vec<Manifest>,
    out_root: &Path,
    force: bool,
) -> Result<Merged> {
    let mut shards: Vec<Shard<G::Aggregate>> = dirs
        .iter()
        .zip(manifests)
        .map(|(d, m)| read::<G>(d, m))
        .collect::<Result<_>>()?;
    shards.sort_by_key(|s| (s.run.games_from, s.run.games_to));
    let first = &shards[0];
    for s in &shards[1..] {
        if let Some((what, a, b)) = first
            .run
            .differences(&s.run)
            .into_iter()
            .find(|(what, _, _)| *what != "games")
        {
            return Err(refused(format!(
                "{} and {} come from different runs: {what} `{a}` against `{b}`; merge only shards of one experiment file, seed and warlab version",
                first.dir.display(),
                s.dir.display()
            )));
        }
    }
    let exp = recorded_experiment::<G>(&first.dir, &first.manifest)?;
    // The ranges must tile 0..games: no gap, no overlap.
    let mut next = 0;
    for s in &shards {
        let (from, to) = (s.run.games_from, s.run.games_to);
        if from > next {
            return Err(refused(format!(
                "games {next}..{from} of every variant are in none of the folders: a shard is missing (the set is incomplete)"
            )));
        }
        if from < next {
            return Err(refused(format!(
                "{} (games {from}..{to}) overlaps another folder: the same shard given twice, or shards of different splits",
                s.dir.display()
            )));
        }
        next = to;
    }
    if next != exp.games {
        return Err(refused(format!(
            "the folders cover games 0..{next} of every variant, the experiment has {}: a shard is missing (the set is incomplete)",
            exp.games
        )));
    }
    let out = out_root.join(&exp.name);
    for s in &shards {
        if std::fs::canonicalize(&s.dir).ok() == std::fs::canonicalize(&out).ok() {
            return Err(refused(format!(
                "the output {} is one of the shards: choose another --out",
                out.display()
            )));
        }
    }
    let n = exp.variants.len();
    let mut aggregates = vec![G::Aggregate::default(); n];
    for s in &shards {
        if s.aggregates.len() != n {
            return Err(refused(format!(
                "{} has {} variants, the experiment {}",
                s.dir.display(),
                s.aggregates.len(),
                n
            )));
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
                        rows_at: None,
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
    let describe = |finished| Manifest {
        threads,
        started_utc: started,
        finished_utc: crate::manifest::utc(finished),
        seconds,
        games_played: played,
        games_per_s: played as f64 / seconds.max(1e-9),
        merged_from: shards.iter().map(|s| s.dir.display().to_string()).collect(),
        ..describe(&exp, &key)
    };

    let created = !out.exists();
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let lock = FolderLock::acquire(&out)?;
    let staging = out.join(".merge");
    let written = (|| {
        claim(&out, &key, force)?;
        if staging.exists() {
            std::fs::remove_dir_all(&staging)
                .with_context(|| format!("cannot remove {}", staging.display()))?;
        }
        std::fs::create_dir(&staging)
            .with_context(|| format!("cannot create {}", staging.display()))?;
        let manifest = write_outputs(&staging, &exp, &key, &aggregates, rows.as_deref(), describe)?;
        move_into_place(&staging, &out)?;
        // Parts of an interrupted single run of this same key are superseded.
        let parts = parts_dir(&out);
        if parts.exists() {
            std::fs::remove_dir_all(&parts)
                .with_context(|| format!("cannot remove {}", parts.display()))?;
        }
        Ok(manifest)
    })();
    match written {
        Ok(manifest) => Ok(Merged {
            dir: out,
            manifest,
            lock,
        }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            if created {
                let _ = std::fs::remove_dir_all(&out);
            }
            Err(e)
        }
    }
}

/// Moves the finished files of `staging` into `out`: the old manifest goes first and the new
/// one comes last, so `out` never claims files of two runs.
fn move_into_place(staging: &Path, out: &Path) -> Result<()> {
    let old = out.join("manifest.json");
    if old.exists() {
        std::fs::remove_file(&old).with_context(|| format!("cannot remove {}", old.display()))?;
    }
    for name in FILES {
        let (from, to) = (staging.join(name), out.join(name));
        if from.exists() {
            std::fs::rename(&from, &to)
                .with_context(|| format!("cannot rename {} to {}", from.display(), to.display()))?;
        } else if to.exists() {
            // A games.parquet of an earlier run with rows does not belong to this one.
            std::fs::remove_file(&to).with_context(|| format!("cannot remove {}", to.display()))?;
        }
    }
    std::fs::remove_dir(staging).with_context(|| format!("cannot remove {}", staging.display()))
}
