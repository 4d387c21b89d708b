//! The data files' tables: each game's columns (`Tables`), the polars frames of the summary,
//! the length histograms and the per-game rows, and the one writer of every final file.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use polars::prelude::{Column, DataFrame, ParquetReader, SerReader};
use warlab_casino::CasinoRules;
use warlab_engine::Rules;
use warlab_engine::spec::Kind;
use warlab_experiment::{Experiment, Variant, fnv1a};
use warlab_runner::{Game, GameRow, SessionRow};
use warlab_stats::files::{AggregatesFile, Manifest, NamedAggregate, RunKey};
use warlab_stats::{Aggregate, CasinoAggregate, Cell, Hist, casino_summary_cells, summary_cells};

use crate::files::{atomic_write, csv_bytes, keyed_writer, write_bytes, write_parquet};

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
pub(crate) const ROW_GROUP: usize = 1 << 16;

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
    let mut columns = run_columns(exp, n);
    columns.push(Column::new(
        "variant".into(),
        exp.variants
            .iter()
            .map(|v| v.name.as_str())
            .collect::<Vec<_>>(),
    ));
    let pairs: Vec<Vec<(&str, String)>> = exp.variants.iter().map(|v| v.rules.pairs()).collect();
    // Each option's column has the type the option table gives it, in every run: counts are
    // integers and `none` or unset is null, switches are booleans, the rest text.
    for opt in G::OPTIONS {
        let values: Vec<Option<&str>> = pairs
            .iter()
            .map(|p| {
                p.iter()
                    .find(|(k, _)| *k == opt.name)
                    .map(|(_, v)| v.as_str())
            })
            .collect();
        let name = opt.name.into();
        columns.push(match opt.column {
            Kind::Int => Column::new(name, parsed::<i64>(&values)),
            Kind::Float => Column::new(name, parsed::<f64>(&values)),
            Kind::Bool => Column::new(name, parsed::<bool>(&values)),
            Kind::Text => Column::new(name, values),
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
    let mut columns = run_columns(exp, n);
    columns.extend([
        Column::new("variant".into(), names),
        Column::new(unit.into(), battles),
        Column::new("count".into(), counts),
    ]);
    Ok(DataFrame::new(n, columns)?)
}

/// The run's own columns, the same in every row: which experiment, seed and file (with its
/// overrides, by hash) the rows come from, so that files of several runs concatenate and
/// still say where each row belongs.
fn run_columns<G: Tables>(exp: &Experiment<G>, n: usize) -> Vec<Column> {
    vec![
        Column::new("experiment".into(), vec![exp.name.as_str(); n]),
        Column::new("seed".into(), vec![exp.seed; n]),
        Column::new("file_hash".into(), vec![exp.text_hash(); n]),
    ]
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use warlab_experiment::Experiment;
    use warlab_stats::Aggregate;

    use super::summary_frame;

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
        assert_eq!(dtype("on_empty"), "str");
        assert_eq!(dtype("ended_battles_mean"), "f64");
        assert_eq!(dtype("ended_battles_p25"), "i64");
        assert_eq!(dtype("seed"), "u64");
    }
}
