//! Reports from a run's data folder: `reports/<experiment>/report.md` with tables, and every
//! figure as PNG and SVG.
//!
//! A report reads only what the runner wrote (`manifest.json` and `aggregates.json`, whose exact
//! counts hold every distribution), never re-simulates, and is written to a folder beside the
//! old report that is swapped in whole only when complete. It is built under the lock of the
//! data folder (which the caller has verified: `warlab_data::verify`), and the experiment name
//! read from the manifest is checked like an experiment file's `name` before it becomes a path:
//! nothing outside `REPORTS/<name>/` is ever replaced.
//!
//! This file builds a report from its folder; `input` reads and checks what the run wrote,
//! `war` and `casino` write each game's sections, `format` holds what both share (numbers as
//! text, the run header, figure files); `published` and `plots` compute and draw. Every
//! statistic (estimates, comparisons, survival) is `warlab-stats`'.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod canvas;
mod casino;
mod compare;
mod decides;
mod exact;
mod format;
mod input;
pub mod plots;
pub mod published;
mod war;
pub mod words;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use warlab_experiment::{Experiment, FigureSettings, check_name};
use warlab_folders::{FolderLock, refused, replace_dir};
use warlab_stats::Aggregate;
use warlab_stats::files::Manifest;

use crate::canvas::Look;
use crate::format::Figures;
use crate::input::{played_experiment, played_variant, read_aggregates};
use crate::war::write_report;

pub use crate::compare::{Pick, compare};
pub use crate::input::Row;

/// How the report is drawn, as the command line asks: over the experiment file's `[report]`
/// table, which is over the defaults.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Figure size, PNG density, log histograms.
    pub figures: FigureSettings,
}

impl Options {
    /// These options over `exp`'s `[report]` table.
    fn over<R: warlab_experiment::RuleSet>(&self, exp: &Experiment<R>) -> Options {
        Options {
            figures: self.figures.over(exp.figures),
        }
    }

    /// The figures' size and density.
    pub(crate) fn look(&self) -> Look {
        Look::of(&self.figures)
    }
}

/// Reads the locked data folder, writes `reports_root/<experiment>/`; returns that folder.
pub fn build(data: &FolderLock, reports_root: &Path, opts: &Options) -> Result<PathBuf> {
    let manifest = read_manifest(data.dir())?;
    if manifest.game == "casino-war" {
        return build_casino(data.dir(), reports_root, &manifest, opts);
    }
    let (exp, rows) = war_rows(data.dir(), &manifest)?;
    let opts = &opts.over(&exp);
    let baseline = exp
        .baseline
        .as_ref()
        .and_then(|b| rows.iter().position(|r| &r.name == b))
        .unwrap_or(0);

    into_place(reports_root, &manifest.experiment, |tmp| {
        let named = exp.baseline.is_some();
        write_report(tmp, &manifest, &rows, (baseline, named), &exp, opts)
    })
}

/// The manifest of a complete run's data folder, its experiment name checked.
pub(crate) fn read_manifest(data_dir: &Path) -> Result<Manifest> {
    let manifest_path = data_dir.join("manifest.json");
    if !manifest_path.is_file() {
        if data_dir.join(".parts").is_dir() {
            bail!(
                "{} holds a partial run (.parts/ without manifest.json): run the same `warlab run` command again to finish it, then report",
                data_dir.display()
            );
        }
        bail!(
            "{} has no manifest.json: not the data folder of a complete `warlab run`",
            data_dir.display()
        );
    }
    let manifest: Manifest = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path)
            .with_context(|| format!("cannot read {}", manifest_path.display()))?,
    )
    .with_context(|| format!("{} is not a warlab manifest", manifest_path.display()))?;
    // The name becomes a folder that is replaced: `..`, `` or `/abs` must never get there.
    check_name(&manifest.experiment).map_err(|e| {
        refused(format!(
            "{}: `experiment`: {e}; the manifest was edited or is not warlab's",
            manifest_path.display()
        ))
    })?;
    Ok(manifest)
}

/// A War run's experiment and its variants as the report sees them.
pub(crate) fn war_rows(data_dir: &Path, manifest: &Manifest) -> Result<(Experiment, Vec<Row>)> {
    let manifest_path = data_dir.join("manifest.json");
    let aggs = read_aggregates::<Aggregate>(data_dir, manifest)?;
    // The experiment text in the manifest gives the sweep axes, the baseline, each variant's
    // players and cards; it is parsed, not run.
    let exp: Experiment = played_experiment(&manifest_path, manifest)?;
    let rows: Vec<Row> = aggs
        .into_iter()
        .zip(&manifest.variants)
        .map(|(a, m)| {
            let v = played_variant(&manifest_path, &exp, &a.variant)?;
            Ok(Row {
                name: a.variant,
                rules: m
                    .options()
                    .map_err(|e| refused(format!("{}: {e}", manifest_path.display())))?
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                settings: v.settings.clone(),
                players: v.rules.players(),
                cards: v.rules.cards_in_play(),
                fixed_deal: v.deal.is_some(),
                lengths: a.aggregate.lengths(),
                agg: a.aggregate,
            })
        })
        .collect::<Result<_>>()?;
    Ok((exp, rows))
}

fn build_casino(
    data_dir: &Path,
    reports_root: &Path,
    manifest: &Manifest,
    opts: &Options,
) -> Result<PathBuf> {
    let aggs = read_aggregates::<warlab_stats::CasinoAggregate>(data_dir, manifest)?;
    let manifest_path = data_dir.join("manifest.json");
    let exp: Experiment<warlab_casino::CasinoRules> = played_experiment(&manifest_path, manifest)?;
    let rows = aggs
        .into_iter()
        .zip(&manifest.variants)
        .map(|(a, m)| {
            Ok(casino::CasinoRow {
                settings: played_variant(&manifest_path, &exp, &a.variant)?
                    .settings
                    .clone(),
                rules: casino::rules_of(m)
                    .with_context(|| format!("variant `{}` in the manifest", m.name))?,
                name: a.variant,
                agg: a.aggregate,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    into_place(reports_root, &manifest.experiment, |tmp| {
        let figs = Figures::new(tmp, opts.over(&exp).look());
        casino::write_report(&figs, manifest, &rows)?;
        figs.finish()
    })
}

/// Writes a report into `reports_root/.<name>.tmp/` beside the old one and swaps it in whole
/// only when complete; `name` is a checked folder name. One report is written at a time into
/// `reports_root` (its lock; reports take seconds, so a second one waits).
fn into_place(
    reports_root: &Path,
    name: &str,
    write: impl FnOnce(&Path) -> Result<()>,
) -> Result<PathBuf> {
    check_name(name).map_err(refused)?;
    let _one_at_a_time = FolderLock::wait(reports_root)?;
    let final_dir = reports_root.join(name);
    let tmp = reports_root.join(format!(".{name}.tmp"));
    if tmp.exists() {
        // Left by a report that was killed while it was written.
        std::fs::remove_dir_all(&tmp)
            .with_context(|| format!("cannot remove {}", tmp.display()))?;
    }
    std::fs::create_dir(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let written = write(&tmp);
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    replace_dir(&tmp, &final_dir)?;
    Ok(final_dir)
}
