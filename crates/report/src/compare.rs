//! `warlab compare`: two War runs side by side, variant by variant, with the statistics of a
//! report's comparison section (difference with CI, Mann–Whitney, KS, never-ended shares, one
//! Holm family) and the two runs' survival curves.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use warlab_folders::{FolderLock, refused};
use warlab_stats::files::Manifest;

use crate::format::{Figures, show};
use crate::plots::Survival;
use crate::war::{compare_pairs, forest, survival_curve};
use crate::{Options, Row, into_place, read_manifest, war_rows};

/// Which variants to compare: the same name in both runs, or one of each.
#[derive(Clone, Debug, Default)]
pub struct Pick {
    /// The variant of run A (and of run B, unless `b` names another); `None`: every variant
    /// whose name both runs have.
    pub a: Option<String>,
    /// The variant of run B, when it is named otherwise than A's.
    pub b: Option<String>,
}

/// Compares run `a` with run `b` (the baseline) and writes
/// `reports_root/<a's experiment>-vs-<b's experiment>/compare.md` with its figure; returns
/// the folder, its figures drawn as `opts` say. Both folders are locked and verified by the
/// caller.
pub fn compare(
    a: &FolderLock,
    b: &FolderLock,
    pick: &Pick,
    reports_root: &Path,
    opts: &Options,
) -> Result<PathBuf> {
    let (ma, ra) = run(a.dir())?;
    let (mb, rb) = run(b.dir())?;
    let find = |rows: &'_ [Row], name: &str, m: &Manifest, dir: &Path| -> Result<usize> {
        rows.iter().position(|r| r.name == name).ok_or_else(|| {
            refused(format!(
                "{} (`{}`) has no variant `{name}`; its variants: {}",
                dir.display(),
                m.experiment,
                names(rows)
            ))
        })
    };
    let pairs: Vec<(usize, usize)> = match (&pick.a, &pick.b) {
        (Some(va), vb) => vec![(
            find(&ra, va, &ma, a.dir())?,
            find(&rb, vb.as_deref().unwrap_or(va), &mb, b.dir())?,
        )],
        (None, Some(_)) => {
            return Err(refused(
                "--variant-b names run B's variant for the --variant of run A: give --variant too",
            ));
        }
        (None, None) => ra
            .iter()
            .enumerate()
            .filter_map(|(i, r)| rb.iter().position(|s| s.name == r.name).map(|j| (i, j)))
            .collect(),
    };
    if pairs.is_empty() {
        return Err(refused(format!(
            "{} and {} have no variant of the same name: pick one of each with --variant NAME \
             --variant-b NAME (A's: {}; B's: {})",
            a.dir().display(),
            b.dir().display(),
            names(&ra),
            names(&rb)
        )));
    }
    let name = format!("{}-vs-{}", ma.experiment, mb.experiment);
    into_place(reports_root, &name, |folder| {
        let figures = Figures::new(folder, opts.look());
        let tmp = &figures;
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# `{}` against `{}`\n\nRun A against run B, B as the baseline: each pair of \
             variants below is compared as a report compares its variants with the baseline.\n",
            ma.experiment, mb.experiment
        );
        runs_table(&mut md, (a.dir(), &ma), (b.dir(), &mb));
        md.push_str("## Comparison\n\n");
        let _ = writeln!(
            md,
            "{} pair(s): {}.\n",
            pairs.len(),
            pairs
                .iter()
                .map(|&(i, j)| format!("A `{}` − B `{}`", ra[i].name, rb[j].name))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let rows: Vec<(&Row, &Row)> = pairs.iter().map(|&(i, j)| (&ra[i], &rb[j])).collect();
        let diffs = compare_pairs(&mut md, &rows);
        forest(
            &mut md,
            tmp,
            &format!("{} (A) against {} (B)", ma.experiment, mb.experiment),
            diffs,
        )?;
        let series = pairs
            .iter()
            .flat_map(|&(i, j)| {
                [
                    survival_curve(&ra[i], &format!("A: {}", ra[i].name)),
                    survival_curve(&rb[j], &format!("B: {}", rb[j].name)),
                ]
            })
            .flatten()
            .collect();
        show(
            &mut md,
            tmp,
            "survival",
            Survival {
                title: format!(
                    "{} (A) against {} (B): P(game longer than n battles)",
                    ma.experiment, mb.experiment
                ),
                unit: "battles".into(),
                series,
            },
            "Kaplan–Meier survival curves of each compared variant of both runs, log y-axis; \
             a curve with loops levels off (dashed) at the share of games that never end",
        )?;
        // The figures' errors first: they name the figure.
        figures.finish()?;
        let path = folder.join("compare.md");
        std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))
    })
}

/// A War run's manifest and variants; a Casino War run is refused.
fn run(dir: &Path) -> Result<(Manifest, Vec<Row>)> {
    let manifest = read_manifest(dir)?;
    if manifest.game != "war" {
        return Err(refused(format!(
            "{} is a {} run: compare takes War runs",
            dir.display(),
            manifest.game
        )));
    }
    let (_, rows) = war_rows(dir, &manifest)?;
    Ok((manifest, rows))
}

fn names(rows: &[Row]) -> String {
    rows.iter()
        .map(|r| format!("`{}`", r.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where each run comes from and how it was played.
fn runs_table(md: &mut String, (da, a): (&Path, &Manifest), (db, b): (&Path, &Manifest)) {
    let both =
        |what: &str, f: &dyn Fn(&Manifest) -> String| format!("| {what} | {} | {} |\n", f(a), f(b));
    md.push_str("| | A | B |\n|---|---|---|\n");
    let _ = writeln!(md, "| data | `{}` | `{}` |", da.display(), db.display());
    md.push_str(&both("experiment file", &|m| format!("`{}`", m.file)));
    md.push_str(&both("file hash", &|m| format!("`{}`", m.file_hash)));
    md.push_str(&both("seed", &|m| m.seed.to_string()));
    md.push_str(&both("games per variant", &|m| {
        m.games_per_variant.to_string()
    }));
    md.push_str(&both("overrides", &|m| {
        if m.overrides.is_empty() {
            "none".into()
        } else {
            format!("`{}`", m.overrides.join(" "))
        }
    }));
    md.push_str(&both("warlab", &|m| m.warlab_version.clone()));
    md.push('\n');
}
