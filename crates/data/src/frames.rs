//! The data files' tables: each game's columns (`Tables`), the polars frames of the summary,
//! the length histograms and the per-game rows, and the one writer of every final file.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use polars::prelude::{
    ChunkedArray, ChunkedCollectInferIterExt, Column, DataFrame, DataType, FrozenCategories,
    IntoColumn, NamedFrom, ParquetReader, PolarsNumericType, PolarsResult, SerReader, Series,
    UInt8Type, UInt32Type, UInt64Type,
};
use rayon::prelude::*;
use warlab_casino::{CasinoRules, HandCounts, SessionEnd, SessionRecord};
use warlab_engine::spec::{Kind, Opt};
use warlab_engine::{Cycle, EndReason, GameRecord, Rules};
use warlab_experiment::{Experiment, Variant, fnv1a};
use warlab_runner::{Game, GameRow, SessionRow};
use warlab_stats::files::{AggregatesFile, Manifest, NamedAggregate, RunKey};
use warlab_stats::{Aggregate, CasinoAggregate, Cell, Hist, casino_summary_cells, summary_cells};

use crate::files::{atomic_write, csv_bytes, keyed_writer, write_bytes, write_parquet};
use crate::rowfile::{Records, read_rows};

/// What the data files of a game hold: its summary columns, its length histogram and its
/// per-game rows. War and Casino War write the same files with their own columns.
pub trait Tables: Game {
    /// The summary columns of one variant, after `variant` and the rule options.
    fn summary_cells(variant: &Variant<Self>, aggregate: &Self::Aggregate) -> Vec<(String, Cell)>;
    /// The length a game is measured in (`battles`, `hands`) and its exact histogram.
    fn lengths(aggregate: &Self::Aggregate) -> (&'static str, &Hist);
    /// One batch of per-game rows, the game's own columns (the variant's name and the run
    /// columns lead each row of `games.parquet`; they are added when it is written).
    fn rows_frame(rows: &[Self::Row]) -> Result<DataFrame>;
    /// The bytes of one row in a run's rows part ([`put_row`](Self::put_row)).
    const ROW_BYTES: usize;
    /// Appends `row`'s [`ROW_BYTES`](Self::ROW_BYTES) bytes to `out`: every field, little-endian.
    fn put_row(row: &Self::Row, out: &mut Vec<u8>);
    /// The row [`put_row`](Self::put_row) wrote as `bytes`; `None` where they cannot be one
    /// (a damaged part).
    fn get_row(bytes: &[u8]) -> Option<Self::Row>;
}

/// Reads a row's fields from its bytes, in the order they were written.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (field, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*field)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn i64(&mut self) -> Option<i64> {
        self.take().map(i64::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
}

/// A small value or none, in one byte: none is `u8::MAX`.
const NONE: u8 = u8::MAX;

impl Tables for Rules {
    fn summary_cells(variant: &Variant<Rules>, aggregate: &Aggregate) -> Vec<(String, Cell)> {
        summary_cells(aggregate, variant.rules.players())
    }
    fn lengths(aggregate: &Aggregate) -> (&'static str, &Hist) {
        ("battles", &aggregate.battles)
    }
    fn rows_frame(rows: &[GameRow]) -> Result<DataFrame> {
        rows_frame(rows)
    }
    const ROW_BYTES: usize = 8 * 7 + 4 + 3;
    fn put_row(row: &GameRow, out: &mut Vec<u8>) {
        let r = &row.record;
        let cycle = r.cycle.map_or([0, 0], |c| [c.start, c.period]);
        for v in [
            r.battles,
            r.wars,
            r.cards_turned,
            r.lead_changes,
            cycle[0],
            cycle[1],
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&row.game.to_le_bytes());
        out.extend_from_slice(&r.deepest_war.to_le_bytes());
        let end = EndReason::ALL.iter().position(|e| *e == r.end);
        out.extend_from_slice(&[
            r.winner.unwrap_or(NONE),
            end.expect("every ending is in EndReason::ALL") as u8,
            u8::from(r.cycle.is_some()),
        ]);
    }
    fn get_row(bytes: &[u8]) -> Option<GameRow> {
        let mut f = Fields(bytes);
        let (battles, wars, cards_turned, lead_changes) = (f.u64()?, f.u64()?, f.u64()?, f.u64()?);
        let (start, period, game) = (f.u64()?, f.u64()?, f.u64()?);
        let deepest_war = f.u32()?;
        let winner = Some(f.u8()?).filter(|&w| w != NONE);
        let end = *EndReason::ALL.get(usize::from(f.u8()?))?;
        let cycle = match f.u8()? {
            0 => None,
            1 => Some(Cycle { start, period }),
            _ => return None,
        };
        f.0.is_empty().then_some(GameRow {
            game,
            record: GameRecord {
                battles,
                wars,
                deepest_war,
                cards_turned,
                lead_changes,
                winner,
                end,
                cycle,
            },
        })
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
    fn rows_frame(rows: &[SessionRow]) -> Result<DataFrame> {
        session_frame(rows)
    }
    const ROW_BYTES: usize = 8 * 16 + 1;
    fn put_row(row: &SessionRow, out: &mut Vec<u8>) {
        let (r, c) = (&row.record, &row.record.counts);
        for v in [
            row.game,
            r.hands,
            c.ties,
            c.wars,
            c.war_ties,
            c.wars_lost,
            c.surrenders,
            c.shuffles,
            c.cards,
            c.fresh,
            c.fresh_main_sq,
            c.fresh_ties,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [r.final_bankroll, r.peak_bankroll, r.main, c.fresh_main] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let end = r.end.map(|e| {
            SessionEnd::ALL
                .iter()
                .position(|x| *x == e)
                .expect("every ending is in ALL") as u8
        });
        out.push(end.unwrap_or(NONE));
    }
    fn get_row(bytes: &[u8]) -> Option<SessionRow> {
        let mut f = Fields(bytes);
        let (game, hands) = (f.u64()?, f.u64()?);
        let (ties, wars, war_ties, wars_lost) = (f.u64()?, f.u64()?, f.u64()?, f.u64()?);
        let (surrenders, shuffles, cards, fresh) = (f.u64()?, f.u64()?, f.u64()?, f.u64()?);
        let (fresh_main_sq, fresh_ties) = (f.u64()?, f.u64()?);
        let (final_bankroll, peak_bankroll, main, fresh_main) =
            (f.i64()?, f.i64()?, f.i64()?, f.i64()?);
        let end = match f.u8()? {
            NONE => None,
            e => Some(*SessionEnd::ALL.get(usize::from(e))?),
        };
        f.0.is_empty().then_some(SessionRow {
            game,
            record: SessionRecord {
                hands,
                end,
                final_bankroll,
                peak_bankroll,
                main,
                counts: HandCounts {
                    ties,
                    wars,
                    war_ties,
                    wars_lost,
                    surrenders,
                    shuffles,
                    cards,
                    fresh,
                    fresh_main,
                    fresh_main_sq,
                    fresh_ties,
                },
            },
        })
    }
}

/// Rows are written to Parquet in row groups of this many games.
pub(crate) const ROW_GROUP: usize = 1 << 16;

/// One batch of per-game rows.
fn rows_frame(rows: &[GameRow]) -> Result<DataFrame> {
    let n = rows.len();
    let col_u64 = |name: &str, f: &dyn Fn(&GameRow) -> u64| {
        Column::new(name.into(), rows.iter().map(f).collect::<Vec<u64>>())
    };
    let columns = vec![
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
        // A seat (0..=3) or null for a game without a winner: a small integer, not a float.
        optional::<UInt8Type, _>("winner", rows, |r| r.record.winner),
        label_column(
            "end_reason",
            &EndReason::ALL.map(EndReason::name),
            rows,
            |r| EndReason::ALL.iter().position(|e| *e == r.record.end),
        )?,
        optional::<UInt64Type, _>("cycle_period", rows, |r| r.record.cycle.map(|c| c.period)),
        optional::<UInt64Type, _>("cycle_start", rows, |r| r.record.cycle.map(|c| c.start)),
    ];
    Ok(DataFrame::new(n, columns)?)
}

/// One batch of Casino War sessions.
fn session_frame(rows: &[SessionRow]) -> Result<DataFrame> {
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
        col_u64("game", &|r| r.game),
        col_u64("hands", &|r| r.record.hands),
        // A finished session always has an ending; none would be null, never a made-up label.
        label_column(
            "end_reason",
            &SessionEnd::ALL.map(SessionEnd::name),
            rows,
            |r| {
                r.record
                    .end
                    .and_then(|end| SessionEnd::ALL.iter().position(|e| *e == end))
            },
        )?,
        chips("final_bankroll", &|r| r.record.final_bankroll),
        chips("peak_bankroll", &|r| r.record.peak_bankroll),
        chips("main_result_bets", &|r| r.record.main),
        col_u64("ties", &|r| r.record.counts.ties),
        col_u64("wars", &|r| r.record.counts.wars),
        col_u64("war_ties", &|r| r.record.counts.war_ties),
        col_u64("wars_lost", &|r| r.record.counts.wars_lost),
        col_u64("surrenders", &|r| r.record.counts.surrenders),
        col_u64("shuffles", &|r| r.record.counts.shuffles),
        col_u64("cards", &|r| r.record.counts.cards),
    ];
    Ok(DataFrame::new(n, columns)?)
}

/// A run of consecutive per-game rows of one variant: in a run's rows part, or in a shard's
/// `games.parquet` (merged).
pub(crate) struct Segment {
    pub path: PathBuf,
    pub offset: usize,
    pub len: usize,
    /// Where the records are in a run's rows part ([`crate::rowfile`], its header and footer
    /// checked when the segment was made); `None` for a Parquet file (a shard's
    /// `games.parquet`, merged).
    pub rows_at: Option<Records>,
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
    let mut variants = variants_frame(exp)?;
    write_parquet(&dir.join("variants.parquet"), &mut variants, key)?;
    write_bytes(&dir.join("variants.csv"), &csv_bytes(&mut variants)?)?;
    let mut lengths = lengths_frame(exp, aggregates)?;
    write_parquet(&dir.join("lengths.parquet"), &mut lengths, key)?;
    let games = dir.join("games.parquet");
    match rows {
        Some(segments) => copy_rows(exp, segments, &games, key)?,
        // A games.parquet from an earlier run with rows would not match this run's data.
        None if games.exists() => std::fs::remove_file(&games)
            .with_context(|| format!("cannot remove {}", games.display()))?,
        None => {}
    }
    let file = AggregatesFile {
        run: Some(key.clone()),
        variants: exp
            .variants
            .iter()
            .zip(aggregates)
            .map(|(v, a)| NamedAggregate {
                aggregate: a,
                variant: v.name.clone(),
            })
            .collect(),
    };
    // Through a JSON value, whose objects keep their keys sorted: the bytes of every
    // aggregates.json written so far (a struct would keep its fields' order).
    let json = serde_json::to_value(&file)?;
    atomic_write(&dir.join("aggregates.json"), |w| {
        Ok(serde_json::to_writer(w, &json)?)
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
/// from the variant's first game (the last one shorter), whatever files they come from, each
/// row led by the run columns and the variant's name.
///
/// The row groups are read, and their dictionaries built, on rayon's global pool (every core,
/// whatever the run's `--threads`), a window at a time; one thread compresses and writes them
/// in order while the next window is read. The bytes are those of one writer encoding
/// them one after the other (a row group's encoding depends on its rows only). Done on one
/// thread, this final write took 0.52–0.58 s of a 3 s run of 4 M games, now 0.34–0.46 s
/// (BENCHMARKS.md, "--rows").
fn copy_rows<G: Tables>(
    exp: &Experiment<G>,
    variants: &[Vec<Segment>],
    path: &Path,
    key: &RunKey,
) -> Result<()> {
    debug_assert_eq!(
        variants.len(),
        exp.variants.len(),
        "segments for every variant"
    );
    let game_columns: Vec<String> = G::rows_frame(&[])?
        .get_column_names_owned()
        .iter()
        .map(|c| c.to_string())
        .collect();
    // The run columns of a whole row group, built once: a row group takes a slice of them (no
    // copy). The variant's name is built per row group: built once per variant, its column
    // would hold memory for every variant at once (100,000 of them may be asked for).
    //
    // The text columns (the experiment, the file's hash, the variant) hold one value in a row
    // group. Given as text, polars estimated each one's number of distinct values and built its
    // dictionary by hashing every value, in every row group: a fifth of the final write. They
    // are given as dictionaries already (a one-label enum: one code repeated), under a schema
    // that says text. Polars writes a dictionary array as the dictionary it would have built,
    // so the file is the same, to the byte (`constant_text`); the file's schema, from `schema`
    // below, says text.
    let run = run_columns(exp, ROW_GROUP, constant_text)?;
    let with_lead = |variant: &str, rows: DataFrame| {
        let variant = constant_text("variant", variant, rows.height())?;
        lead(&run, variant, rows)
    };
    let groups: Vec<Group> = variants
        .iter()
        .enumerate()
        .flat_map(|(variant, segments)| {
            let rows: usize = segments.iter().map(|s| s.len).sum();
            (0..rows).step_by(ROW_GROUP).map(move |from| Group {
                variant,
                from,
                len: ROW_GROUP.min(rows - from),
            })
        })
        .collect();
    // One row group: its rows read from the segments that hold them, led by the run columns
    // and the variant's name.
    let read = |group: &Group| -> Result<DataFrame> {
        let mut batch: Option<DataFrame> = None;
        let mut start = 0;
        for seg in &variants[group.variant] {
            let (lo, hi) = (
                group.from.max(start),
                (group.from + group.len).min(start + seg.len),
            );
            if lo < hi {
                let from = seg.offset + lo - start;
                let piece = if let Some(at) = seg.rows_at {
                    G::rows_frame(&read_rows::<G>(&seg.path, &at, from as u64, hi - lo)?)?
                } else {
                    let file = File::open(&seg.path)
                        .with_context(|| format!("cannot open {}", seg.path.display()))?;
                    // A merge reads shards' games.parquet, which hold the run columns and the
                    // variant too: only the game's own columns are read, the others written
                    // anew.
                    ParquetReader::new(file)
                        .with_columns(Some(game_columns.clone()))
                        .with_slice(Some((from, hi - lo)))
                        .finish()
                        .with_context(|| format!("cannot read {}", seg.path.display()))?
                };
                if piece.height() != hi - lo {
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
            }
            start += seg.len;
        }
        let mut batch = batch.expect("a row group holds at least one row");
        batch.rechunk_mut();
        with_lead(&exp.variants[group.variant].name, batch)
    };
    // The file's schema: the same columns with the text ones as text.
    let text_run = run_columns(exp, 0, plain_text)?;
    let variant = plain_text("variant", "", 0)?;
    let schema = lead(&text_run, variant, G::rows_frame(&[])?)?
        .schema()
        .clone();
    let threads = rayon::current_num_threads();
    atomic_write(path, |w| {
        let out = keyed_writer(w, key)?.batched(&schema)?;
        // Windows of two row groups a thread, so that one slow row group leaves the others
        // something to do; at most one window waits for the writer: the memory in flight
        // (up to ≈ 7 MB a row group before compression) grows with the cores, not the rows.
        std::thread::scope(|scope| {
            let (send, receive) = std::sync::mpsc::sync_channel(2 * threads);
            let writer = scope.spawn(|| -> Result<()> {
                for row_groups in receive {
                    out.write_row_groups(row_groups)?;
                }
                Ok(())
            });
            'windows: for window in groups.chunks(2 * threads) {
                let encoded: Vec<Result<_>> = window
                    .par_iter()
                    .map(|group| {
                        let batch = read(group)?;
                        Ok(out
                            .encode_and_compress(&batch)
                            .collect::<PolarsResult<Vec<_>>>()?)
                    })
                    .collect();
                for row_groups in encoded {
                    if send.send(row_groups?).is_err() {
                        break 'windows; // the writer failed: its error is returned below
                    }
                }
            }
            drop(send);
            writer.join().expect("the writing thread panicked")
        })?;
        out.finish()?;
        Ok(())
    })
}

/// A row group of `games.parquet`: the run columns `run` (as many rows as `rows` taken from
/// them), the variant's name, then the game's own columns `rows`.
fn lead(run: &[Column], variant: Column, rows: DataFrame) -> Result<DataFrame> {
    let n = rows.height();
    let mut columns: Vec<Column> = run.iter().map(|c| c.slice(0, n)).collect();
    columns.push(variant);
    columns.extend(rows.into_columns());
    Ok(DataFrame::new(n, columns)?)
}

/// A row group of `games.parquet`: a variant's rows `from..from + len`, counted from its first
/// game.
struct Group {
    variant: usize,
    from: usize,
    len: usize,
}

fn summary_frame<G: Tables>(exp: &Experiment<G>, aggregates: &[G::Aggregate]) -> Result<DataFrame> {
    let n = exp.variants.len();
    let mut columns = variant_columns(exp)?;
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

/// `variants.parquet` and `variants.csv`: one row per variant with its rules, the same
/// columns as the summary's first ones, so that per-game rows join to their rules on
/// `variant` (and files of several runs on `experiment`, `seed`, `file_hash`) without
/// parsing the variant's name.
pub(crate) fn variants_frame<G: Tables>(exp: &Experiment<G>) -> Result<DataFrame> {
    Ok(DataFrame::new(exp.variants.len(), variant_columns(exp)?)?)
}

/// The columns that say what each variant is: the run columns, `variant`, then every rule
/// option under its name. The summary and `variants.parquet` both start with these.
fn variant_columns<G: Tables>(exp: &Experiment<G>) -> Result<Vec<Column>> {
    let mut columns = run_columns(exp, exp.variants.len(), plain_text)?;
    columns.push(Column::new(
        "variant".into(),
        exp.variants
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
    ));
    let pairs: Vec<Vec<(&str, String)>> = exp.variants.iter().map(|v| v.rules.pairs()).collect();
    for opt in G::OPTIONS {
        let values: Vec<Option<&str>> = pairs
            .iter()
            .map(|p| {
                p.iter()
                    .find(|(k, _)| *k == opt.name)
                    .map(|(_, v)| v.as_str())
            })
            .collect();
        columns.push(option_column(opt, &values)?);
    }
    Ok(columns)
}

/// One option's column, with the type the option table gives it in every run: counts are
/// integers and `none` or unset is null, switches are booleans, an option that takes only
/// named values is an `Enum` of those names (in the table's order), the rest text.
fn option_column<O>(opt: &Opt<O>, values: &[Option<&str>]) -> Result<Column> {
    let name = opt.name.into();
    Ok(match opt.column {
        Kind::Int => Column::new(name, parsed::<i64>(values)),
        Kind::Float => Column::new(name, parsed::<f64>(values)),
        Kind::Bool => Column::new(name, parsed::<bool>(values)),
        Kind::Text if opt.other.is_empty() && !opt.named.is_empty() => {
            let labels: Vec<&str> = opt.named.iter().map(|n| n.name).collect();
            let codes = values
                .iter()
                .map(|v| {
                    v.map(|text| {
                        labels.iter().position(|l| *l == text).with_context(|| {
                            format!(
                                "option `{}` has the value `{text}`, not one of its names ({})",
                                opt.name,
                                labels.join(", ")
                            )
                        })
                    })
                    .transpose()
                })
                .collect::<Result<Vec<_>>>()?;
            label_column(opt.name, &labels, &codes, |c| *c)?
        }
        Kind::Text => Column::new(name, values),
    })
}

/// A column of labels from the closed set `labels`, as a polars `Enum` of them: Parquet
/// stores it dictionary-encoded with the labels in the Arrow schema, so polars reads it back
/// as the same `Enum` (and pyarrow as a dictionary, pandas as a categorical) in every file,
/// which is what lets files of several runs concatenate. `code` gives each row's index into
/// `labels` (`None`: null). The CSV writer writes the labels as text.
fn label_column<R>(
    name: &str,
    labels: &[&str],
    rows: &[R],
    code: impl Fn(&R) -> Option<usize>,
) -> Result<Column> {
    let codes = optional::<UInt32Type, _>(name, rows, |r| {
        code(r).map(|c| u32::try_from(c).expect("a label set has few labels"))
    });
    enum_column(labels, codes.take_materialized_series())
}

/// The column of `codes` (indices into `labels`, any unsigned type; null stays null) as a
/// polars `Enum` of `labels`.
fn enum_column(labels: &[&str], codes: Series) -> Result<Column> {
    let dtype = DataType::from_frozen_categories(FrozenCategories::new(labels.iter().copied())?);
    let physical = codes.cast(&DataType::from(dtype.cat_physical()?))?;
    Ok(Series::from_cats_and_dtype(&physical, &dtype, true)?.into_column())
}

/// A column of values that may be missing, built in one pass (values and validity), not value
/// by value.
fn optional<T: PolarsNumericType, R>(
    name: &str,
    rows: &[R],
    value: impl Fn(&R) -> Option<T::Native>,
) -> Column {
    let values: ChunkedArray<T> = rows.iter().map(value).collect_ca_trusted(name.into());
    values.into_column()
}

/// Option values read as `T`; unset and `none` (which no `T` reads) are null.
fn parsed<T: std::str::FromStr>(values: &[Option<&str>]) -> Vec<Option<T>> {
    values
        .iter()
        .map(|v| v.and_then(|s| s.parse().ok()))
        .collect()
}

/// A column of cells: every cell of a column is of one kind (a count, a value or text, each
/// possibly missing), which gives the column its type whatever the values.
fn cell_column(name: &str, cells: &[&Cell]) -> Column {
    if cells.iter().any(|c| matches!(c, Cell::Text(_))) {
        let v: Vec<Option<String>> = cells
            .iter()
            .map(|c| match c {
                Cell::Text(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        Column::new(name.into(), v)
    } else if cells
        .iter()
        .any(|c| matches!(c, Cell::Float(_) | Cell::NullFloat))
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
    let mut columns = run_columns(exp, n, plain_text)?;
    columns.extend([
        Column::new("variant".into(), names),
        Column::new(unit.into(), battles),
        Column::new("count".into(), counts),
    ]);
    Ok(DataFrame::new(n, columns)?)
}

/// The run's own columns, the same in every row: which experiment, seed and file (with its
/// overrides, by hash) the rows come from, so that files of several runs concatenate and
/// still say where each row belongs. `text` makes the text ones (`n` rows of one value):
/// [`plain_text`], or [`constant_text`] for `games.parquet`'s row groups.
fn run_columns<G: Tables>(
    exp: &Experiment<G>,
    n: usize,
    text: fn(&str, &str, usize) -> Result<Column>,
) -> Result<Vec<Column>> {
    Ok(vec![
        text("experiment", &exp.name, n)?,
        Column::new("seed".into(), vec![exp.seed; n]),
        text("file_hash", &exp.text_hash(), n)?,
    ])
}

/// A text column of `n` rows of `value`.
fn plain_text(name: &str, value: &str, n: usize) -> Result<Column> {
    Ok(Column::new(name.into(), vec![value; n]))
}

/// A column of `n` rows of the text `value`, as a dictionary: an enum of that one label, its
/// code repeated. Only for a file whose schema says the column is text (`games.parquet`):
/// polars writes the dictionary's pages as it writes a text column's, but a frame's own schema
/// would call it an enum.
fn constant_text(name: &str, value: &str, n: usize) -> Result<Column> {
    enum_column(&[value], Series::new(name.into(), vec![0u8; n]))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use warlab_experiment::Experiment;
    use warlab_stats::Aggregate;

    use polars::prelude::{Column, DataFrame, ParquetWriter, PolarsResult};

    use super::{ROW_GROUP, constant_text, summary_frame, variants_frame};

    /// A text column of one value handed to the writer as `constant_text` (under a schema that
    /// says text, as `games.parquet`'s writer has it) gives the bytes the text column gives:
    /// the file `games.parquet` always was. An empty name, a short one, one past a string
    /// view's 12 inline bytes; one row, a few, a whole row group.
    #[test]
    fn constant_text_writes_the_bytes_of_its_text() {
        for (value, n) in [
            ("", 1),
            ("base", 5),
            ("pickup=winner-first,war_down=3", ROW_GROUP),
        ] {
            let game = || Column::new("game".into(), (0..n as u64).collect::<Vec<u64>>());
            let text = DataFrame::new(
                n,
                vec![Column::new("variant".into(), vec![value; n]), game()],
            )
            .unwrap();
            let enumed =
                DataFrame::new(n, vec![constant_text("variant", value, n).unwrap(), game()])
                    .unwrap();
            assert_ne!(text.schema(), enumed.schema());
            let write = |df: &DataFrame| -> Vec<u8> {
                let mut bytes = Vec::new();
                let out = ParquetWriter::new(&mut bytes)
                    .batched(text.schema())
                    .unwrap();
                let groups = out
                    .encode_and_compress(df)
                    .collect::<PolarsResult<Vec<_>>>()
                    .unwrap();
                out.write_row_groups(groups).unwrap();
                out.finish().unwrap();
                bytes
            };
            assert!(write(&text) == write(&enumed), "`{value}`, {n} rows");
        }
    }

    /// Two experiments whose option values differ in kind (a number and `by-rank`, `none` and
    /// a number, unset and set) and whose estimates are all missing in one: the same schema.
    #[test]
    fn summaries_of_different_runs_have_one_schema() {
        let schema = |text: &str| {
            let exp = Experiment::parse(Path::new("t.toml"), text).unwrap();
            let aggs = vec![Aggregate::default(); exp.variants.len()];
            summary_frame(&exp, &aggs)
                .unwrap()
                .schema()
                .as_ref()
                .clone()
        };
        let a = schema("name = \"a\"\ngames = 10\n[rules]\nwar_down = 1\n");
        let b = schema(
            "name = \"b\"\ngames = 10\n[rules]\nwar_down = \"by-rank\"\nbattle_limit = 50\n\
             speed = 0.5\npile = \"two-pile\"\non_empty = \"shuffle\"\nprize = true\n",
        );
        assert_eq!(a, b);
        let dtype = |name: &str| a.get(name).unwrap().to_string();
        assert_eq!(dtype("war_down"), "str");
        assert_eq!(dtype("battle_limit"), "i64");
        assert_eq!(dtype("speed"), "f64");
        assert_eq!(dtype("prize"), "bool");
        assert_eq!(dtype("on_empty"), "enum");
        assert_eq!(dtype("ended_battles_mean"), "f64");
        assert_eq!(dtype("ended_battles_p25"), "i64");
        assert_eq!(dtype("seed"), "u64");
    }

    /// variants.parquet is the summary's first columns, value for value: one code writes both.
    #[test]
    fn variants_are_the_summarys_first_columns() {
        let text = "name = \"v\"\ngames = 10\n[sweep]\npile = [\"single\", \"two-pile\"]\n\
                    battle_limit = [\"none\", 50]\n";
        let exp = Experiment::parse(Path::new("t.toml"), text).unwrap();
        let aggs = vec![Aggregate::default(); exp.variants.len()];
        let summary = summary_frame(&exp, &aggs).unwrap();
        let variants = variants_frame(&exp).unwrap();
        assert_eq!(variants.height(), 4);
        let first = summary.select(variants.get_column_names_owned()).unwrap();
        assert!(first.equals_missing(&variants), "{first}\n{variants}");
        assert_eq!(
            summary.get_column_names()[..variants.width()],
            variants.get_column_names()[..]
        );
        let pile = variants.column("pile").unwrap();
        assert_eq!(pile.dtype().to_string(), "enum");
        assert_eq!(
            pile.cast(&polars::prelude::DataType::String)
                .unwrap()
                .str()
                .unwrap()
                .get(3),
            Some("two-pile")
        );
        assert_eq!(variants.column("battle_limit").unwrap().null_count(), 2);
    }
}
