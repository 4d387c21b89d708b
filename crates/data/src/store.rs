//! The run's folder: finished variants in `.parts/` while it goes, the final files at the end.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use polars::io::parquet::write::BatchedWriter;
use polars::prelude::{Column, DataFrame, ParquetReader, ParquetWriter, SerReader};
use serde::{Deserialize, Serialize};
use warlab_casino::CasinoRules;
use warlab_engine::Rules;
use warlab_experiment::{Experiment, RuleSet, Variant, fnv1a};
use warlab_folders::FolderLock;
use warlab_runner::{
    Aggregate, CasinoAggregate, Cell, Game, GameRow, Hist, SessionRow, Sink, casino_summary_cells,
    summary_cells,
};

use crate::files::{
    atomic_write, csv_bytes, keyed_writer, parquet_footer, temp_path, write_bytes, write_parquet,
};
use crate::folder::{claim, read_parts_key};

/// What the data files of a game hold: its summary columns, its length histogram and its
/// per-game rows. War and Casino War write the same files with their own columns.
pub trait Tables: Game {
    /// The summary columns of one variant, after `variant` and the rule options.
    fn summary_cells(variant: &Variant<Self>, aggregate: &Self::Aggregate) -> Vec<(String, Cell)>;
    /// The length a game is measured in (`battles`, `hands`) and its exact histogram.
    fn lengths(aggregate: &Self::Aggregate) -> (&'static str, &Hist);
    /// One batch of per-game rows.
    fn rows_frame(variant: &str, rows: &[Self::Row]) -> Result<DataFrame>;
}

impl Tables for Rules {
    fn summary_cells(variant: &Variant<Rules>, aggregate: &Aggregate) -> Vec<(String, Cell)> {
        summary_cells(aggregate, variant.rules.players())
    }
    fn lengths(aggregate: &Aggregate) -> (&'static str, &Hist) {
        ("battles", &aggregate.battles)
    }
    fn rows_frame(variant: &str, rows: &[GameRow]) -> Result<DataFrame> {
        rows_frame(variant, rows)
    }
}

impl Tables for CasinoRules {
    fn summary_cells(
        variant: &Variant<CasinoRules>,
        aggregate: &CasinoAggregate,
    ) -> Vec<(String, Cell)> {
        casino_summary_cells(aggregate, &variant.rules)
    }
    fn lengths(aggregate: &CasinoAggregate) -> (&'static str, &Hist) {
        ("hands", &aggregate.hands)
    }
    fn rows_frame(variant: &str, rows: &[SessionRow]) -> Result<DataFrame> {
        session_frame(variant, rows)
    }
}

/// Rows are written to Parquet in row groups of this many games.
const ROW_GROUP: usize = 1 << 16;

/// What makes two runs' results interchangeable. Every data file carries it (Parquet
/// key-value metadata, a field of the JSON files, the manifest's hash of the CSV); parts are
/// reused, and finished results replaced without `--force`, only under an equal key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunKey {
    pub experiment_hash: String,
    pub seed: u64,
    pub games_from: u64,
    pub games_to: u64,
    pub rows: bool,
    pub warlab_version: String,
}

impl RunKey {
    /// What differs from `other`: the field's name, this key's value, `other`'s value.
    pub fn differences(&self, other: &RunKey) -> Vec<(&'static str, String, String)> {
        let mut out = Vec::new();
        let mut field = |what, a: String, b: String| {
            if a != b {
                out.push((what, a, b));
            }
        };
        field(
            "experiment file hash",
            self.experiment_hash.clone(),
            other.experiment_hash.clone(),
        );
        field("seed", self.seed.to_string(), other.seed.to_string());
        field(
            "games",
            format!("{}..{}", self.games_from, self.games_to),
            format!("{}..{}", other.games_from, other.games_to),
        );
        field("rows", self.rows.to_string(), other.rows.to_string());
        field(
            "warlab version",
            self.warlab_version.clone(),
            other.warlab_version.clone(),
        );
        out
    }

    /// The differences from `other` in words: "seed `1` (there) against `2` (here)".
    pub(crate) fn describe_differences(&self, other: &RunKey, there: &str, here: &str) -> String {
        self.differences(other)
            .iter()
            .map(|(what, a, b)| format!("{what} `{a}` ({there}) against `{b}` ({here})"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Receives a run's results and keeps each finished variant in `.parts/`. It exists only
/// under the lock of its folder.
pub struct PartStore<'l, G: Game = Rules> {
    dir: PathBuf,
    _lock: &'l FolderLock,
    parts: PathBuf,
    names: Vec<String>,
    rows: bool,
    done: Vec<bool>,
    writer: Option<(usize, BatchedWriter<File>, PathBuf)>,
    buffer: Vec<G::Row>,
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
        let parts = dir.join(".parts");
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
            rows: key.rows,
            done: vec![false; exp.variants.len()],
            writer: None,
            buffer: Vec::new(),
            resumed: 0,
            repairs: Vec::new(),
        };
        for v in 0..exp.variants.len() {
            if !store.agg_path(v).is_file() {
                continue;
            }
            match store.check_part(v) {
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
    /// are a readable Parquet file with as many rows as the aggregate counts games.
    fn check_part(&self, v: usize) -> Result<()> {
        let aggregate = self.load(v)?;
        if self.rows {
            let path = self.rows_path(v);
            if !path.is_file() {
                bail!("{} is missing", path.display());
            }
            let (rows, _) = parquet_footer(&path)?;
            let played = G::played(&aggregate);
            if rows as u64 != played {
                bail!(
                    "{} holds {rows} rows, its aggregate counts {played} games",
                    path.display()
                );
            }
        }
        Ok(())
    }

    fn agg_path(&self, v: usize) -> PathBuf {
        self.parts.join(format!("v{v:04}.aggregate.json"))
    }

    fn rows_path(&self, v: usize) -> PathBuf {
        self.parts.join(format!("v{v:04}.games.parquet"))
    }

    fn flush(&mut self) -> Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let (v, w, tmp) = self.writer.as_mut().expect("rows go to an open writer");
        let df = G::rows_frame(&self.names[*v], &self.buffer)?;
        w.write_batch(&df)
            .with_context(|| format!("writing {}", tmp.display()))?;
        self.buffer.clear();
        Ok(())
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
            let file =
                File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
            let schema = G::rows_frame("", &[])?.schema().clone();
            let w = ParquetWriter::new(file).batched(&schema)?;
            self.writer = Some((variant, w, path));
        }
        self.buffer.extend_from_slice(rows);
        if self.buffer.len() >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn variant_done(&mut self, variant: usize, aggregate: G::Aggregate) -> Result<()> {
        if self.rows {
            if self.writer.is_none() {
                // A variant with no games in range still gets its (empty) rows part.
                self.rows(variant, &[])?;
            }
            self.flush()?;
            let (_, w, tmp) = self.writer.take().expect("opened above");
            w.finish()
                .with_context(|| format!("writing {}", tmp.display()))?;
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

/// One batch of per-game rows.
fn rows_frame(variant: &str, rows: &[GameRow]) -> Result<DataFrame> {
    let n = rows.len();
    let col_u64 = |name: &str, f: &dyn Fn(&GameRow) -> u64| {
        Column::new(name.into(), rows.iter().map(f).collect::<Vec<u64>>())
    };
    let columns = vec![
        Column::new("variant".into(), vec![variant; n]),
        col_u64("game", &|r| r.game),
        col_u64("battles", &|r| r.record.battles),
        col_u64("wars", &|r| r.record.wars),
        Column::new(
            "deepest_war".into(),
            rows.iter()
                .map(|r| r.record.deepest_war)
                .collect::<Vec<u32>>(),
        ),
        col_u64("cards_turned", &|r| r.record.cards_turned),
        col_u64("lead_changes", &|r| r.record.lead_changes),
        Column::new(
            "winner".into(),
            rows.iter()
                .map(|r| r.record.winner.map(u32::from))
                .collect::<Vec<Option<u32>>>(),
        ),
        Column::new(
            "end_reason".into(),
            rows.iter()
                .map(|r| r.record.end.name())
                .collect::<Vec<&str>>(),
        ),
        Column::new(
            "cycle_period".into(),
            rows.iter()
                .map(|r| r.record.cycle.map(|c| c.period))
                .collect::<Vec<Option<u64>>>(),
        ),
        Column::new(
            "cycle_start".into(),
            rows.iter()
                .map(|r| r.record.cycle.map(|c| c.start))
                .collect::<Vec<Option<u64>>>(),
        ),
    ];
    Ok(DataFrame::new(n, columns)?)
}

fn war() -> String {
    "war".into()
}

/// One batch of Casino War sessions.
fn session_frame(variant: &str, rows: &[SessionRow]) -> Result<DataFrame> {
    let n = rows.len();
    let col_u64 = |name: &str, f: &dyn Fn(&SessionRow) -> u64| {
        Column::new(name.into(), rows.iter().map(f).collect::<Vec<u64>>())
    };
    let chips = |name: &str, f: &dyn Fn(&SessionRow) -> i64| {
        Column::new(
            name.into(),
            rows.iter().map(|r| f(r) as f64 / 2.0).collect::<Vec<f64>>(),
        )
    };
    let columns = vec![
        Column::new("variant".into(), vec![variant; n]),
        col_u64("game", &|r| r.game),
        col_u64("hands", &|r| r.record.hands),
        Column::new(
            "end_reason".into(),
            rows.iter()
                .map(|r| r.record.end.map_or("", |e| e.name()))
                .collect::<Vec<&str>>(),
        ),
        chips("final_bankroll", &|r| r.record.final_bankroll),
        chips("peak_bankroll", &|r| r.record.peak_bankroll),
        chips("main_result_bets", &|r| r.record.main),
        col_u64("ties", &|r| r.record.ties),
        col_u64("wars", &|r| r.record.wars),
        col_u64("war_ties", &|r| r.record.war_ties),
        col_u64("wars_lost", &|r| r.record.wars_lost),
        col_u64("surrenders", &|r| r.record.surrenders),
        col_u64("shuffles", &|r| r.record.shuffles),
        col_u64("cards", &|r| r.record.cards),
    ];
    Ok(DataFrame::new(n, columns)?)
}

/// What `manifest.json` records. Its seed, range, rows, file hash and version are the run
/// key of the folder's files.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// `war` or `casino-war` (manifests written before Casino War have no field: War).
    #[serde(default = "war")]
    pub game: String,
    pub experiment: String,
    pub description: String,
    pub file: String,
    pub file_hash: String,
    pub text: String,
    pub warlab_version: String,
    pub seed: u64,
    pub games_from: u64,
    pub games_to: u64,
    pub games_per_variant: u64,
    pub rows: bool,
    pub threads: usize,
    pub started_utc: String,
    pub finished_utc: String,
    pub seconds: f64,
    /// Games played by this invocation (not counting variants resumed from an earlier one).
    pub games_played: u64,
    pub games_per_s: f64,
    pub variants_resumed: usize,
    /// The folders a `warlab merge` combined (empty for a run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    pub seed_scheme: String,
    /// FNV-1a 64 (hex) of `summary.csv`'s bytes: a CSV file has no place for the run key, so
    /// the manifest vouches for it (empty in folders written before run keys).
    #[serde(default)]
    pub summary_csv_fnv1a: String,
    pub variants: Vec<ManifestVariant>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ManifestVariant {
    pub name: String,
    pub seed_id: u64,
    /// Every rule option, `name=value`.
    pub rules: Vec<String>,
}

/// Timing of a run, for the manifest.
pub struct Timing {
    pub started: std::time::SystemTime,
    pub seconds: f64,
    pub games_played: u64,
    pub threads: usize,
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
    let rows = key.rows.then(|| {
        (0..store.names.len())
            .map(|v| {
                vec![Segment {
                    path: store.rows_path(v),
                    offset: 0,
                    len: G::played(&aggregates[v]) as usize,
                }]
            })
            .collect::<Vec<_>>()
    });
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
            ..Manifest::describe(exp, key)
        },
    )?;
    std::fs::remove_dir_all(&store.parts)
        .with_context(|| format!("cannot remove {}", store.parts.display()))?;
    Ok((manifest, aggregates))
}

impl Manifest {
    /// The run key of the folder this manifest describes.
    pub fn key(&self) -> RunKey {
        RunKey {
            experiment_hash: self.file_hash.clone(),
            seed: self.seed,
            games_from: self.games_from,
            games_to: self.games_to,
            rows: self.rows,
            warlab_version: self.warlab_version.clone(),
        }
    }

    /// The manifest of `exp` under `key`, with no timing yet.
    pub(crate) fn describe<R: RuleSet>(exp: &Experiment<R>, key: &RunKey) -> Manifest {
        Manifest {
            game: R::GAME.into(),
            experiment: exp.name.clone(),
            description: exp.description.clone(),
            file: exp.file.display().to_string(),
            file_hash: key.experiment_hash.clone(),
            text: exp.text.clone(),
            warlab_version: key.warlab_version.clone(),
            seed: key.seed,
            games_from: key.games_from,
            games_to: key.games_to,
            games_per_variant: key.games_to - key.games_from,
            rows: key.rows,
            threads: 0,
            started_utc: String::new(),
            finished_utc: String::new(),
            seconds: 0.0,
            games_played: 0,
            games_per_s: 0.0,
            variants_resumed: 0,
            merged_from: Vec::new(),
            summary_csv_fnv1a: String::new(),
            seed_scheme: "game g of a variant uses Pcg64Mcg seeded from (seed, seed_id, g) by the splitmix64 chain documented in crates/engine/src/rng.rs; seed_id = FNV-1a 64 of the variant name".into(),
            variants: exp
                .variants
                .iter()
                .map(|v| ManifestVariant {
                    name: v.name.clone(),
                    seed_id: v.seed_id,
                    rules: v
                        .rules
                        .pairs()
                        .into_iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect(),
                })
                .collect(),
        }
    }
}

/// A run of consecutive per-game rows of one variant inside a Parquet file.
pub(crate) struct Segment {
    pub path: PathBuf,
    pub offset: usize,
    pub len: usize,
}

/// Writes every final file of `dir` from the variants' aggregates and, when rows are on,
/// each variant's row segments (in game order), each carrying the run key; `manifest.json`
/// last. One code path for a run and for a merge, so that both give the same bytes.
pub(crate) fn write_outputs<G: Tables>(
    dir: &Path,
    exp: &Experiment<G>,
    key: &RunKey,
    aggregates: &[G::Aggregate],
    rows: Option<&[Vec<Segment>]>,
    manifest: impl FnOnce(std::time::SystemTime) -> Manifest,
) -> Result<Manifest> {
    let mut summary = summary_frame(exp, aggregates)?;
    write_parquet(&dir.join("summary.parquet"), &mut summary, key)?;
    let csv = csv_bytes(&mut summary)?;
    write_bytes(&dir.join("summary.csv"), &csv)?;
    let mut lengths = lengths_frame(exp, aggregates)?;
    write_parquet(&dir.join("lengths.parquet"), &mut lengths, key)?;
    let games = dir.join("games.parquet");
    match rows {
        Some(segments) => copy_rows::<G>(segments, &games, key)?,
        // A games.parquet from an earlier run with rows would not match this run's data.
        None if games.exists() => std::fs::remove_file(&games)
            .with_context(|| format!("cannot remove {}", games.display()))?,
        None => {}
    }
    let all: Vec<serde_json::Value> = exp
        .variants
        .iter()
        .zip(aggregates)
        .map(|(v, a)| serde_json::json!({ "variant": v.name, "aggregate": a }))
        .collect();
    atomic_write(&dir.join("aggregates.json"), |w| {
        Ok(serde_json::to_writer(
            w,
            &serde_json::json!({ "run": key, "variants": all }),
        )?)
    })?;
    let manifest = Manifest {
        summary_csv_fnv1a: format!("{:016x}", fnv1a(&csv)),
        ..manifest(std::time::SystemTime::now())
    };
    atomic_write(&dir.join("manifest.json"), |w| {
        Ok(serde_json::to_writer_pretty(w, &manifest)?)
    })?;
    Ok(manifest)
}

/// Writes each variant's rows, in order, in row groups of exactly [`ROW_GROUP`] rows counted
/// from the variant's first game (the last one shorter), whatever files they come from.
fn copy_rows<G: Tables>(variants: &[Vec<Segment>], path: &Path, key: &RunKey) -> Result<()> {
    let schema = G::rows_frame("", &[])?.schema().clone();
    atomic_write(path, |w| {
        let mut out = keyed_writer(w, key)?.batched(&schema)?;
        for segments in variants {
            let mut batch: Option<DataFrame> = None;
            for seg in segments {
                let mut done = 0;
                while done < seg.len {
                    let have = batch.as_ref().map_or(0, DataFrame::height);
                    let take = (ROW_GROUP - have).min(seg.len - done);
                    let file = File::open(&seg.path)
                        .with_context(|| format!("cannot open {}", seg.path.display()))?;
                    let piece = ParquetReader::new(file)
                        .with_slice(Some((seg.offset + done, take)))
                        .finish()
                        .with_context(|| format!("cannot read {}", seg.path.display()))?;
                    if piece.height() != take {
                        bail!(
                            "{} holds fewer rows than its aggregate counts",
                            seg.path.display()
                        );
                    }
                    batch = Some(match batch {
                        Some(mut b) => {
                            b.vstack_mut_owned(piece)?;
                            b
                        }
                        None => piece,
                    });
                    done += take;
                    if batch.as_ref().map_or(0, DataFrame::height) == ROW_GROUP {
                        let mut full = batch.take().expect("just filled");
                        full.rechunk_mut();
                        out.write_batch(&full)?;
                    }
                }
            }
            if let Some(mut rest) = batch {
                rest.rechunk_mut();
                out.write_batch(&rest)?;
            }
        }
        out.finish()?;
        Ok(())
    })
}

fn summary_frame<G: Tables>(exp: &Experiment<G>, aggregates: &[G::Aggregate]) -> Result<DataFrame> {
    let n = exp.variants.len();
    let mut columns = vec![Column::new(
        "variant".into(),
        exp.variants
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
    )];
    let pairs: Vec<Vec<(&str, String)>> = exp.variants.iter().map(|v| v.rules.pairs()).collect();
    for (opt, _) in G::OPTIONS {
        let values: Vec<Option<&str>> = pairs
            .iter()
            .map(|p| p.iter().find(|(k, _)| k == opt).map(|(_, v)| v.as_str()))
            .collect();
        let ints: Option<Vec<Option<i64>>> = values
            .iter()
            .map(|v| {
                v.map(|s| s.parse::<i64>().ok())
                    .map_or(Some(None), |p| p.map(Some))
            })
            .collect();
        columns.push(match ints {
            Some(ints) => Column::new((*opt).into(), ints),
            None => Column::new((*opt).into(), values),
        });
    }
    let cells: Vec<Vec<(String, Cell)>> = exp
        .variants
        .iter()
        .zip(aggregates)
        .map(|(v, a)| G::summary_cells(v, a))
        .collect();
    for (i, (name, _)) in cells[0].iter().enumerate() {
        let col: Vec<&Cell> = cells.iter().map(|row| &row[i].1).collect();
        columns.push(cell_column(name, &col));
    }
    Ok(DataFrame::new(n, columns)?)
}

fn cell_column(name: &str, cells: &[&Cell]) -> Column {
    let any_float = cells.iter().any(|c| matches!(c, Cell::Float(_)));
    let any_text = cells.iter().any(|c| matches!(c, Cell::Text(_)));
    if any_text {
        let v: Vec<Option<String>> = cells
            .iter()
            .map(|c| match c {
                Cell::Text(s) => Some(s.clone()),
                Cell::Int(i) => Some(i.to_string()),
                Cell::Float(f) => Some(f.to_string()),
                Cell::Null => None,
            })
            .collect();
        Column::new(name.into(), v)
    } else if any_float
        || name.ends_with("_mean")
        || name.contains("share")
        || name.ends_with("_sd")
        || name.ends_with("_se")
        || name.contains("_ci_")
    {
        let v: Vec<Option<f64>> = cells
            .iter()
            .map(|c| match c {
                Cell::Float(f) => Some(*f),
                Cell::Int(i) => Some(*i as f64),
                _ => None,
            })
            .collect();
        Column::new(name.into(), v)
    } else {
        let v: Vec<Option<i64>> = cells
            .iter()
            .map(|c| if let Cell::Int(i) = c { Some(*i) } else { None })
            .collect();
        Column::new(name.into(), v)
    }
}

fn lengths_frame<G: Tables>(exp: &Experiment<G>, aggregates: &[G::Aggregate]) -> Result<DataFrame> {
    let (mut names, mut battles, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    let mut unit = "battles";
    for (v, a) in exp.variants.iter().zip(aggregates) {
        let (name, hist) = G::lengths(a);
        unit = name;
        for (b, c) in hist.iter() {
            names.push(v.name.as_str());
            battles.push(b);
            counts.push(c);
        }
    }
    let n = names.len();
    Ok(DataFrame::new(
        n,
        vec![
            Column::new("variant".into(), names),
            Column::new(unit.into(), battles),
            Column::new("count".into(), counts),
        ],
    )?)
}

/// `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, whole seconds, UTC); a clock set before 1970 gives 1970.
pub(crate) fn utc(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_seconds(t.max(std::time::UNIX_EPOCH)).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_formats_known_instants() {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000);
        assert_eq!(super::utc(t), "2026-11-18T11:06:40Z");
        assert_eq!(super::utc(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
