//! The run's folder while it goes: finished variants kept in `.parts/`, and the final files
//! written from them at the end.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use warlab_engine::Rules;
use warlab_experiment::Experiment;
use warlab_folders::FolderLock;
use warlab_runner::{Game, Sink};

use crate::files::{atomic_write, temp_path};
use crate::folder::{claim, parts_dir, read_parts_key};
use crate::frames::{Segment, Tables, write_outputs};
use crate::rowfile::{Records, RowsPart, RowsWriter, check_rows, read_part};
use warlab_stats::files::{Manifest, RunKey};

use crate::manifest::{Timing, describe, utc};

/// Receives a run's results and keeps each finished variant in `.parts/`. It exists only
/// under the lock of its folder.
pub struct PartStore<'l, G: Game = Rules> {
    dir: PathBuf,
    _lock: &'l FolderLock,
    parts: PathBuf,
    names: Vec<String>,
    key: RunKey,
    done: Vec<bool>,
    writer: Option<(usize, RowsWriter<G>, PathBuf)>,
    resumed: usize,
    repairs: Vec<String>,
}

impl<'l, G: Tables> PartStore<'l, G> {
    /// Opens the locked folder for `exp` under `key`. Parts of an earlier run with the same
    /// key are kept (that run was interrupted: it resumes), except damaged ones, whose
    /// variants are played again (see [`PartStore::repairs`]). A folder holding finished
    /// results or parts of a run with another key is refused unless `force`.
    pub fn open(
        lock: &'l FolderLock,
        exp: &Experiment<G>,
        key: &RunKey,
        force: bool,
    ) -> Result<PartStore<'l, G>> {
        let dir = lock.dir();
        claim(dir, key, force)?;
        let parts = parts_dir(dir);
        std::fs::create_dir_all(&parts)
            .with_context(|| format!("cannot create {}", parts.display()))?;
        let key_file = parts.join("run.json");
        let same = read_parts_key(dir).is_some_and(|k| k.is_ok_and(|k| k == *key));
        let entries = std::fs::read_dir(&parts)
            .with_context(|| format!("cannot read {}", parts.display()))?;
        for entry in entries {
            let path = entry
                .with_context(|| format!("cannot read {}", parts.display()))?
                .path();
            let stale = !same || path.extension().is_some_and(|e| e == "tmp");
            if stale && path.is_file() {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
            }
        }
        if !same {
            atomic_write(&key_file, |w| Ok(serde_json::to_writer_pretty(w, key)?))?;
        }
        let mut store = PartStore {
            dir: dir.to_path_buf(),
            _lock: lock,
            parts,
            names: exp.variants.iter().map(|v| v.name.clone()).collect(),
            key: key.clone(),
            done: vec![false; exp.variants.len()],
            writer: None,
            resumed: 0,
            repairs: Vec::new(),
        };
        // Parts are checked on every core: a run with rows reads and hashes every kept part
        // whole here, which can be tens of GB.
        let checks: Vec<Option<Result<()>>> = (0..exp.variants.len())
            .into_par_iter()
            .map(|v| store.agg_path(v).is_file().then(|| store.check_part(v)))
            .collect();
        for (v, check) in checks.into_iter().enumerate() {
            let Some(check) = check else { continue };
            match check {
                Ok(()) => store.done[v] = true,
                Err(problem) => {
                    store.repairs.push(format!(
                        "{problem:#}: variant `{}` is played again",
                        store.names[v]
                    ));
                    for path in [store.agg_path(v), store.rows_path(v)] {
                        if path.exists() {
                            std::fs::remove_file(&path)
                                .with_context(|| format!("cannot remove {}", path.display()))?;
                        }
                    }
                }
            }
        }
        store.resumed = store.done.iter().filter(|d| **d).count();
        Ok(store)
    }

    /// Variants finished before this run started (resumed from `.parts/`).
    pub fn resumed(&self) -> usize {
        self.resumed
    }

    /// Damaged parts found when the store was opened, each naming its file; their variants
    /// are played again.
    pub fn repairs(&self) -> &[String] {
        &self.repairs
    }

    /// A finished variant's parts are whole: its aggregate reads, and its rows (when kept)
    /// are a whole rows part of this run with as many rows as the aggregate counts games,
    /// every block matching its checksum (a part kept across an interruption, perhaps a
    /// power cut, is read whole once more).
    fn check_part(&self, v: usize) -> Result<()> {
        let aggregate = self.load(v)?;
        if self.key.rows {
            let records = self.rows_records(v, G::played(&aggregate))?;
            check_rows(&self.rows_path(v), &records)?;
        }
        Ok(())
    }

    /// Where the records of variant `v`'s rows part are, once the part is found whole, of
    /// this run, of the game's row size and holding `played` rows. (Its checksums are
    /// checked by whoever reads the rows.)
    fn rows_records(&self, v: usize, played: u64) -> Result<Records> {
        let path = self.rows_path(v);
        if !path.is_file() {
            bail!("{} is missing", path.display());
        }
        let RowsPart { key, records } = read_part(&path)?;
        if key != self.key {
            bail!("{} holds rows of another run", path.display());
        }
        if records.row_bytes != G::ROW_BYTES as u64 {
            bail!(
                "{} holds rows of {} bytes, not {}",
                path.display(),
                records.row_bytes,
                G::ROW_BYTES
            );
        }
        if records.rows != played {
            bail!(
                "{} holds {} rows, its aggregate counts {played} games",
                path.display(),
                records.rows
            );
        }
        Ok(records)
    }

    fn agg_path(&self, v: usize) -> PathBuf {
        self.parts.join(format!("v{v:04}.aggregate.json"))
    }

    fn rows_path(&self, v: usize) -> PathBuf {
        self.parts.join(format!("v{v:04}.games.rows"))
    }

    fn load(&self, v: usize) -> Result<G::Aggregate> {
        let path = self.agg_path(v);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not an aggregate", path.display()))
    }
}

impl<G: Tables> Sink<G> for PartStore<'_, G> {
    type Error = anyhow::Error;

    fn is_done(&self, variant: usize) -> bool {
        self.done[variant]
    }

    fn rows(&mut self, variant: usize, rows: &[G::Row]) -> Result<()> {
        if self.writer.as_ref().is_none_or(|(v, _, _)| *v != variant) {
            let path = temp_path(&self.rows_path(variant));
            self.writer = Some((variant, RowsWriter::create(&path, &self.key)?, path));
        }
        let (_, w, _) = self.writer.as_mut().expect("opened above");
        w.write(rows)
    }

    fn variant_done(&mut self, variant: usize, aggregate: G::Aggregate) -> Result<()> {
        if self.key.rows {
            if self.writer.is_none() {
                // A variant with no games in range still gets its (empty) rows part.
                self.rows(variant, &[])?;
            }
            let (_, w, tmp) = self.writer.take().expect("opened above");
            w.finish()?;
            let path = self.rows_path(variant);
            std::fs::rename(&tmp, &path).with_context(|| {
                format!("cannot rename {} to {}", tmp.display(), path.display())
            })?;
        }
        atomic_write(&self.agg_path(variant), |w| {
            Ok(serde_json::to_writer(w, &aggregate)?)
        })?;
        self.done[variant] = true;
        Ok(())
    }
}

/// Writes the final files from the parts, then removes the parts; returns the manifest and
/// every variant's aggregate.
pub fn finish_run<G: Tables>(
    store: PartStore<'_, G>,
    exp: &Experiment<G>,
    key: &RunKey,
    timing: Timing,
) -> Result<(Manifest, Vec<G::Aggregate>)> {
    let resumed = store.resumed();
    if let Some(v) = store.done.iter().position(|d| !d) {
        bail!(
            "variant `{}` has not finished: the run is incomplete",
            store.names[v]
        );
    }
    let aggregates: Vec<G::Aggregate> = (0..store.names.len())
        .map(|v| store.load(v))
        .collect::<Result<_>>()?;
    // Until the new manifest is written last, the folder claims no finished run: a kill
    // between the renames below leaves a partial run (resumed by the same command), never a
    // folder whose manifest describes files of two runs.
    let manifest_path = store.dir.join("manifest.json");
    if manifest_path.exists() {
        std::fs::remove_file(&manifest_path)
            .with_context(|| format!("cannot remove {}", manifest_path.display()))?;
    }
    // Each part's header and footer checked once here; the final write then reads its records
    // where they are, checking each block's checksum as it reads it.
    let rows = key
        .rows
        .then(|| {
            (0..store.names.len())
                .map(|v| {
                    let played = G::played(&aggregates[v]);
                    Ok(vec![Segment {
                        path: store.rows_path(v),
                        offset: 0,
                        len: played as usize,
                        rows_at: Some(store.rows_records(v, played)?),
                    }])
                })
                .collect::<Result<Vec<_>>>()
        })
        .transpose()?;
    let manifest = write_outputs(
        &store.dir,
        exp,
        key,
        &aggregates,
        rows.as_deref(),
        |finished| Manifest {
            threads: timing.threads,
            started_utc: utc(timing.started),
            finished_utc: utc(finished),
            seconds: timing.seconds,
            games_played: timing.games_played,
            games_per_s: timing.games_played as f64 / timing.seconds.max(1e-9),
            variants_resumed: resumed,
            ..describe(exp, key)
        },
    )?;
    std::fs::remove_dir_all(&store.parts)
        .with_context(|| format!("cannot remove {}", store.parts.display()))?;
    Ok((manifest, aggregates))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use warlab_experiment::Experiment;
    use warlab_folders::FolderLock;
    use warlab_runner::{Plan, Sink};
    use warlab_stats::files::RunKey;

    use super::{PartStore, finish_run};
    use crate::manifest::Timing;

    /// Rows damaged on the disk after their variant finished (a part whole in length, header
    /// and footer) stop the final write, naming the part and leaving no final file; the same
    /// command then finds the damage when it resumes and plays that variant alone again.
    #[test]
    fn rows_damaged_before_the_final_write_stop_it_and_are_played_again() {
        let dir = std::env::temp_dir().join(format!("warlab-parts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // 70,000 games a variant: two blocks of rows in each part, the second one short.
        let text =
            "name = \"t\"\ngames = 70000\nseed = 3\nrows = true\n[sweep]\nwar_down = [1, 2]\n";
        let exp = Experiment::parse(Path::new("t.toml"), text).unwrap();
        let key = RunKey {
            experiment_hash: exp.text_hash(),
            seed: exp.seed,
            games_from: 0,
            games_to: exp.games,
            rows: true,
            warlab_version: "test".into(),
        };
        let plan = Plan {
            experiment: &exp,
            games: 0..exp.games,
            seed: exp.seed,
            rows: true,
            threads: 2,
        };
        let timing = || Timing {
            started: std::time::SystemTime::now(),
            seconds: 1.0,
            games_played: 2 * exp.games,
            threads: 2,
        };
        let lock = FolderLock::acquire(&dir).unwrap();
        let mut store = PartStore::open(&lock, &exp, &key, false).unwrap();
        warlab_runner::run(&plan, &mut store).unwrap();
        let part = dir.join(".parts/v0001.games.rows");
        let mut bytes = std::fs::read(&part).unwrap();
        let at = bytes.len() - 16 - 8 - 100; // in the rows of the second block
        bytes[at] ^= 0x04;
        std::fs::write(&part, &bytes).unwrap();

        let err = format!("{:#}", finish_run(store, &exp, &key, timing()).unwrap_err());
        assert!(
            err.contains("v0001.games.rows is damaged: its rows 65536..70000"),
            "{err}"
        );
        for file in ["manifest.json", "games.parquet", "games.parquet.tmp"] {
            assert!(!dir.join(file).exists(), "{file} after the failed write");
        }
        assert!(part.exists() && dir.join(".parts/v0000.games.rows").exists());

        let mut store = PartStore::open(&lock, &exp, &key, false).unwrap();
        assert_eq!(store.repairs().len(), 1, "{:?}", store.repairs());
        let repair = &store.repairs()[0];
        assert!(
            repair.contains("v0001.games.rows is damaged")
                && repair.contains("variant `war_down=2` is played again"),
            "{repair}"
        );
        assert!(store.is_done(0) && !store.is_done(1));
        warlab_runner::run(&plan, &mut store).unwrap();
        let (manifest, _) = finish_run(store, &exp, &key, timing()).unwrap();
        assert_eq!(manifest.variants_resumed, 1);
        assert!(dir.join("games.parquet").exists() && !dir.join(".parts").exists());
        drop(lock);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
