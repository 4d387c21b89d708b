//! The War report's sections, in the order `report.md` shows them: variants, published
//! figures, lengths, numeric axes, comparisons, endings, cycles, parity, running means.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use warlab_engine::EndReason;
use warlab_stats::aggregate::{NO_WINNER, end_index};
use warlab_stats::compare::{
    Comparison, LocalSlope, PowerLaw, ShareComparison, compare, compare_shares, holm, local_slopes,
    power_law,
};
use warlab_stats::survival::horizon;
use warlab_stats::{Lengths, MeanEstimate, mean_estimate, t975};

use crate::Options;
use crate::format::{
    Figures, box_rows, fmt_ci, length_cells, p_is, pct, pvalue, run_header, share_text, show, slug,
    variants_table,
};
use warlab_stats::files::Manifest;

use crate::input::Row;
use crate::plots::{
    AxisMeans, Boxes, Curve, Forest, IntervalSeries, LengthHist, Lines, StackedShares, Survival,
    TwoHists,
};
use crate::published;
use crate::words;

pub(crate) fn write_report(
    folder: &Path,
    m: &Manifest,
    rows: &[Row],
    (baseline, named): (usize, bool),
    exp: &warlab_experiment::Experiment,
    opts: &Options,
) -> Result<()> {
    let figures = Figures::new(folder, opts.look());
    let dir = &figures;
    let log_hist = opts.figures.log_hist.unwrap_or(false);
    let mut md = String::new();
    run_header(&mut md, m, "", "games", rows.len());
    md.push_str(
        "Lengths are in battles (a war, however deep, is one battle). A looping game never ends \
         and a capped game was stopped before it ended: neither has a length. Every mean, \
         quantile, box, histogram, parity count and running mean below is over the games that \
         **ended** (a winner or a draw), with the looping and capped shares beside it: never \
         averaged in, never dropped. The survival curves count a looping game as never ending \
         and a capped game as right-censored at the cap (Kaplan–Meier); where loops or caps \
         exist, a restricted mean up to a stated horizon compares all games. Every mean has its \
         95 % confidence interval (Student's t); shares have 95 % Wilson intervals, which give \
         an upper bound when nothing was seen.\n\n",
    );

    variants_table(
        &mut md,
        m,
        "rules",
        rows.iter()
            .map(|r| (&r.name[..], words::describe(&r.rules))),
    );
    published::section(&mut md, dir, rows, &exp.published)?;

    lengths_table(&mut md, rows);
    crate::exact::section(&mut md, dir, exp, rows)?;
    crate::decides::section(&mut md, dir, exp, rows)?;
    let all: Vec<&Row> = rows.iter().collect();
    let note = unended_note(&all);

    // Figures of length.
    let survival = Survival {
        title: format!("{}: P(game longer than n battles)", m.experiment),
        unit: "battles".into(),
        series: rows
            .iter()
            .filter_map(|r| survival_curve(r, &r.name))
            .collect(),
    };
    show(
        &mut md,
        dir,
        "survival",
        survival,
        "Kaplan–Meier survival curves P(length > n) of all variants, log y-axis: the tails \
         compared. A looping game never ends, so a curve with loops stops falling and levels \
         off (dashed) at the share of games that never end; a capped game is right-censored \
         at the cap (counted as running up to it, and not after). More than 8 variants are \
         drawn in panels of 6, each over the other variants in grey",
    )?;
    if rows.len() >= 2 {
        let lengths: Vec<(&str, &Lengths)> = rows
            .iter()
            .filter_map(|r| Some((r.name.as_str(), r.lengths()?)))
            .collect();
        let boxes = box_rows(lengths.iter().map(|(n, l)| (*n, &l.ended_battles)));
        show(
            &mut md,
            dir,
            "boxes",
            Boxes {
                title: format!(
                    "{}: length of ended games by variant, sorted by median",
                    m.experiment
                ),
                unit: "battles".into(),
                rows: boxes,
            },
            &format!(
                "Length of the games that ended, by variant, sorted by median (box 25–75 %, \
                 whiskers 5–95 %, bar median, dot mean).{note}"
            ),
        )?;
    }

    numeric_axes(&mut md, dir, m, rows)?;
    let diffs = comparisons(&mut md, rows, baseline, named);
    forest(
        &mut md,
        dir,
        &format!("{}: difference from the baseline", m.experiment),
        diffs,
    )?;
    endings(&mut md, dir, m, rows)?;
    cycles(&mut md, dir, m, rows)?;
    parity(&mut md, dir, rows)?;
    running_means(&mut md, dir, m, rows)?;

    md.push_str("## Histograms\n\n");
    for r in per_variant(&mut md, rows.iter().collect(), "length histograms") {
        let Some(l) = r.lengths() else {
            continue;
        };
        let h = &l.ended_battles;
        let Some(mean) = mean_estimate(h) else {
            continue;
        };
        let stem = format!("hist-{}", slug(&r.name));
        show(
            &mut md,
            dir,
            &stem,
            LengthHist {
                title: format!("{}: {} (ended games)", m.experiment, r.name),
                unit: "battles (a war counts as one)".into(),
                values: h.iter().collect(),
                mean: mean.mean,
                median: h.quantile(0.5).unwrap_or(0) as f64,
                log_y: log_hist,
            },
            &format!(
                "`{}`: length of the {} games that ended (up to the 99.9th percentile), mean \
                 and median marked.{}",
                r.name,
                mean.n,
                unended_note(&[r])
            ),
        )?;
    }
    // The figures' errors first: they name the figure.
    figures.finish()?;
    let path = folder.join("report.md");
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))
}

/// For captions: which variants had games that never ended, and how many (empty when none).
fn unended_note(rows: &[&Row]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .filter(|r| r.loops() + r.capped() > 0)
        .map(|r| {
            let mut p = Vec::new();
            if r.loops() > 0 {
                p.push(format!("{} looping", share_text(r.loops(), r.agg.games)));
            }
            if r.capped() > 0 {
                p.push(format!("{} capped", share_text(r.capped(), r.agg.games)));
            }
            format!("`{}` {}", r.name, p.join(", "))
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(
            " Games that never ended are not in it: {}.",
            parts.join("; ")
        )
    }
}

/// The length table: ended games' statistics, the looping and capped shares, and where
/// loops or caps exist, the restricted mean of all games to one horizon.
fn lengths_table(md: &mut String, rows: &[Row]) {
    let censored = rows.iter().any(|r| r.loops() + r.capped() > 0);
    let earliest_cap = rows
        .iter()
        .filter_map(|r| r.lengths()?.capped_battles.min())
        .min();
    let tau = if censored {
        horizon(
            rows.iter()
                .filter_map(|r| r.lengths()?.ended_battles.quantile(0.99)),
            earliest_cap,
        )
    } else {
        None
    };
    md.push_str(
        "## Game length\n\nOver the games that ended; looping and capped games are counted in \
         their own columns.\n\n| variant | games | ended | mean (95 % CI) | sd | median | p90 | \
         p99 | max | wars/game | cards turned/game | looping | capped |",
    );
    if let Some(t) = tau {
        let _ = write!(md, " restricted mean to {t} (95 % CI) |");
    }
    md.push_str("\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    if tau.is_some() {
        md.push_str("---:|");
    }
    md.push('\n');
    let mut unknown = Vec::new();
    for r in rows {
        let a = &r.agg;
        let l = r.lengths();
        if l.is_none() {
            unknown.push(r.name.as_str());
        }
        let w = l.as_ref().and_then(|l| mean_estimate(&l.ended_wars));
        let c = l.as_ref().and_then(|l| mean_estimate(&l.ended_cards));
        let _ = write!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            a.games,
            l.as_ref().map_or("–".into(), |l| l.ended().to_string()),
            length_cells(l.as_ref().map(|l| &l.ended_battles), 2),
            w.map_or("–".into(), |w| format!(
                "{:.2} ± {:.2}",
                w.mean,
                w.se.unwrap_or(0.0)
            )),
            c.map_or("–".into(), |c| format!(
                "{:.1} ± {:.1}",
                c.mean,
                c.se.unwrap_or(0.0)
            )),
            pct(r.loops(), a.games),
            pct(r.capped(), a.games),
        );
        if let Some(t) = tau {
            let rm = r.survival().and_then(|km| km.restricted_mean(t));
            let _ = write!(
                md,
                " {} |",
                rm.map_or("–".into(), |rm| format!(
                    "{:.2} ({})",
                    rm.mean,
                    fmt_ci(Some(rm.ci), 2)
                ))
            );
        }
        md.push('\n');
    }
    md.push_str("\n(± is one standard error.)");
    if let Some(t) = tau {
        let _ = write!(
            md,
            " The restricted mean is E[min(length, {t})], the expected battles played when a \
             game is stopped at {t}, read off the Kaplan–Meier curve (a looping game counts \
             {t}; a capped game is censored at its cap), with Greenwood's standard error. It \
             compares all the games of two variants, the ones that never end included; its \
             horizon, the same for every variant, is the largest 99th percentile of ended \
             lengths rounded up{}.",
            if earliest_cap.is_some_and(|c| c <= t) {
                ", held at the earliest cap"
            } else {
                ""
            }
        );
    }
    if !unknown.is_empty() {
        let _ = write!(
            md,
            " Written by an older warlab that did not keep looping or capped games apart: {}; \
             their lengths cannot be separated (run the experiment again).",
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    md.push_str("\n\n");
}

/// Sweep axes whose values are numbers: the mean length of the ended games with its CI against
/// the axis, one line per combination of the other settings. Deck-size axes are drawn against
/// the cards in play, with the local log–log slope between neighbouring decks and, for a single
/// line, a power law fitted as a description. A fixed deal is one game, not a sample of its
/// deck: it is never a point of a line.
fn numeric_axes(md: &mut String, dir: &Figures, m: &Manifest, rows: &[Row]) -> Result<()> {
    let Some(first) = rows.iter().find(|r| !r.settings.is_empty()) else {
        return Ok(());
    };
    let axes: Vec<String> = first.settings.iter().map(|(k, _)| k.clone()).collect();
    let mut header = false;
    for axis in &axes {
        // The variants with a number on this axis, and the ended games' mean of each.
        let on_axis: Vec<(&Row, f64, MeanEstimate)> = rows
            .iter()
            .filter(|r| !r.fixed_deal)
            .filter_map(|r| {
                let (_, v) = r.settings.iter().find(|(k, _)| k == axis)?;
                let x = v.parse::<f64>().ok()?;
                let est = mean_estimate(&r.lengths()?.ended_battles)?;
                Some((r, x, est))
            })
            .collect();
        let value = |r: &Row, key: &str| {
            r.settings
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        // Another setting labels the lines where these variants differ in it (or some lack it).
        let label_of = |r: &Row| {
            let others: Vec<String> = r
                .settings
                .iter()
                .filter(|(k, _)| k != axis)
                .filter(|(k, _)| {
                    let v = value(r, k);
                    on_axis.iter().any(|(o, _, _)| value(o, k) != v)
                })
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if others.is_empty() {
                "mean".to_string()
            } else {
                others.join(",")
            }
        };
        // Per line: (x, mean, ci lo, ci hi, se, cards in play) of each variant.
        let mut series: Vec<(String, Vec<[f64; 6]>)> = Vec::new();
        for (r, x, est) in &on_axis {
            let (lo, hi) = est.ci.unwrap_or((est.mean, est.mean));
            let label = label_of(r);
            let point = [*x, est.mean, lo, hi, est.se.unwrap_or(0.0), r.cards as f64];
            match series.iter_mut().find(|s| s.0 == label) {
                Some(s) => s.1.push(point),
                None => series.push((label, vec![point])),
            }
        }
        let distinct = {
            let mut xs: Vec<f64> = on_axis.iter().map(|p| p.1).collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            xs.len()
        };
        if distinct < 3 {
            continue;
        }
        if !header {
            md.push_str("## Length against a numeric setting\n\n");
            header = true;
        }
        let on_rows: Vec<&Row> = on_axis.iter().map(|p| p.0).collect();
        // Values that are not numbers (`by-rank`) have no x: said, not silently left out.
        let mut words: Vec<String> = rows
            .iter()
            .filter_map(|r| value(r, axis))
            .filter(|v| v.parse::<f64>().is_err())
            .collect();
        words.sort();
        words.dedup();
        let mut note = unended_note(&on_rows);
        if !words.is_empty() {
            let named: Vec<String> = words.iter().map(|w| format!("`{axis}={w}`")).collect();
            let _ = write!(
                note,
                " Not drawn, as they are not numbers (their lengths are in the tables above): {}.",
                named.join(", ")
            );
        }
        let deck_axis = matches!(axis.as_str(), "ranks" | "suits" | "decks");
        let stem = format!("axis-{}", slug(axis));
        // Deck-size axes are plotted against the number of cards in play, n.
        let x_of = |q: &[f64; 6]| if deck_axis { q[5] } else { q[0] };
        let plain: Vec<IntervalSeries> = series
            .iter()
            .map(|(l, p)| {
                (
                    l.clone(),
                    p.iter().map(|q| (x_of(q), q[1], q[2], q[3])).collect(),
                )
            })
            .collect();
        if !deck_axis {
            show(
                md,
                dir,
                &stem,
                AxisMeans {
                    title: format!("{}: mean length against {axis}", m.experiment),
                    axis: axis.clone(),
                    y_desc: "mean battles of ended games, 95 % CI".into(),
                    series: plain,
                    fits: Vec::new(),
                    log_log: false,
                    exact_pairs: false,
                },
                &format!("Mean length of the games that ended (95 % CI) against `{axis}`.{note}"),
            )?;
            continue;
        }
        let points = |p: &[[f64; 6]]| -> Vec<(f64, f64, f64)> {
            p.iter().map(|q| (q[5], q[1], q[4])).collect()
        };
        // A power law per line: each line of its own deck shape (4 suits, 1 suit, …).
        let fits: Vec<(usize, PowerLaw)> = series
            .iter()
            .enumerate()
            .filter_map(|(i, (_, p))| power_law(&points(p)).map(|f| (i, f)))
            .collect();
        show(
            md,
            dir,
            &stem,
            AxisMeans {
                title: format!("{}: mean length against cards in play", m.experiment),
                axis: "cards in play, n".into(),
                y_desc: "mean battles of ended games, 95 % CI".into(),
                series: plain,
                fits: fits.clone(),
                log_log: true,
                exact_pairs: false,
            },
            &format!(
                "Mean length of the games that ended (95 % CI) against the number of cards in \
                 play as `{axis}` varies, log–log.{note}"
            ),
        )?;
        for (i, f) in fits {
            let of = if series.len() > 1 {
                format!(" (`{}`)", series[i].0)
            } else {
                String::new()
            };
            let _ = writeln!(
                md,
                "Power law{of} fitted by weighted least squares of ln(mean) on ln(n) over {} \
                 decks: **length ∝ n^{:.3}**, 95 % CI {:.3}–{:.3} (SE {:.3}; scale {:.4}), χ² = \
                 {:.1} on {} degrees of freedom (p {}). {}\n",
                f.points,
                f.exponent,
                f.exponent_ci.0,
                f.exponent_ci.1,
                f.exponent_se,
                f.scale,
                f.chi2,
                f.points - 2,
                p_is(f.fit_p),
                fit_words(&f)
            );
        }
        // The local exponent between neighbouring decks, line by line.
        let slopes: Vec<(String, Vec<LocalSlope>)> = series
            .iter()
            .map(|(l, p)| (l.clone(), local_slopes(&points(p))))
            .filter(|(_, s)| !s.is_empty())
            .collect();
        if slopes.is_empty() {
            continue;
        }
        show(
            md,
            dir,
            &format!("slopes-{}", slug(axis)),
            AxisMeans {
                title: format!(
                    "{}: local exponent between neighbouring decks",
                    m.experiment
                ),
                axis: "cards in play, n (geometric middle of each pair)".into(),
                y_desc: "Δ ln(mean) / Δ ln(n), 95 % CI".into(),
                series: slopes
                    .iter()
                    .map(|(l, s)| {
                        (
                            l.clone(),
                            s.iter()
                                .map(|s| ((s.from * s.to).sqrt(), s.slope, s.ci.0, s.ci.1))
                                .collect(),
                        )
                    })
                    .collect(),
                fits: Vec::new(),
                log_log: false,
                exact_pairs: false,
            },
            &format!(
                "The local exponent: the log–log slope of the mean length of ended games \
                 between each deck and the next as `{axis}` varies (95 % CI, delta method). A \
                 power law n^a would give one flat line at a."
            ),
        )?;
        md.push_str("| line | cards in play | local exponent (95 % CI) |\n|---|---:|---:|\n");
        for (l, s) in &slopes {
            for s in s {
                let _ = writeln!(
                    md,
                    "| {l} | {} → {} | {:.3} ({}) |",
                    s.from,
                    s.to,
                    s.slope,
                    fmt_ci(Some(s.ci), 3)
                );
            }
        }
        md.push('\n');
    }
    Ok(())
}

/// What a power-law fit may be taken for, from the χ² of the points about it.
fn fit_words(f: &PowerLaw) -> &'static str {
    if f.fit_p < 0.01 {
        "The points do not lie on one power law within their errors (the local exponents \
         below drift): the exponent only describes this range of decks, its CI is that of the \
         best line through them, not of an asymptotic exponent."
    } else {
        "The points are consistent with one power law over this range; the fit still \
         describes these decks only, not larger ones."
    }
}

/// Each variant against the baseline. Lengths are compared over the games that ended; where
/// either side has games that never end, the shares of those are compared too. Every p-value
/// of the section is one Holm family. `named`: the experiment file chose the baseline.
fn comparisons(md: &mut String, rows: &[Row], baseline: usize, named: bool) -> Vec<ForestRow> {
    if rows.len() < 2 {
        return Vec::new();
    }
    let base = &rows[baseline];
    // A fixed deal is one game, not a sample of a distribution: nothing to test.
    let fixed: Vec<String> = rows
        .iter()
        .filter(|r| r.fixed_deal)
        .map(|r| format!("`{}`", r.name))
        .collect();
    let pairs: Vec<(&Row, &Row)> = rows
        .iter()
        .enumerate()
        .filter(|(i, r)| *i != baseline && !r.fixed_deal)
        .map(|(_, r)| (r, base))
        .collect();
    if base.fixed_deal || pairs.is_empty() {
        return Vec::new();
    }
    let why = if named {
        format!("The experiment file names `{}` as its baseline.", base.name)
    } else {
        format!(
            "The experiment file names no `baseline`, so the first variant, `{}`, is the \
             baseline; `baseline = \"<variant>\"` in the file names another.",
            base.name
        )
    };
    let fixed = if fixed.is_empty() {
        String::new()
    } else {
        format!(
            " A fixed deal is one game, not a sample, and is not compared: {}.",
            fixed.join(", ")
        )
    };
    let _ = writeln!(
        md,
        "## Comparison with the baseline `{}`\n\n{why} Each variant against the baseline.{fixed}\n",
        base.name
    );
    compare_pairs(md, &pairs)
}

/// A variant's difference of mean length from its baseline: `(name, difference, CI low, CI high)`.
pub(crate) type ForestRow = (String, f64, f64, f64);

/// Each `(variant, baseline)` pair: the lengths of the games that ended, and where either side
/// has games that never end, their shares; every p-value one Holm family. Written for the
/// experiment's comparison with its baseline and for `warlab compare` of two runs.
pub(crate) fn compare_pairs(md: &mut String, pairs: &[(&Row, &Row)]) -> Vec<ForestRow> {
    let lengths: Vec<Option<Comparison>> = pairs
        .iter()
        .map(|(r, base)| {
            let (x, y) = (r.lengths()?, base.lengths()?);
            compare(&x.ended_battles, &y.ended_battles)
        })
        .collect();
    let unended = |r: &Row| r.loops() + r.capped();
    let shares: Vec<Option<ShareComparison>> = pairs
        .iter()
        .map(|(r, base)| {
            (unended(r) + unended(base) > 0)
                .then(|| compare_shares(unended(r), r.agg.games, unended(base), base.agg.games))?
        })
        .collect();
    // One family: Welch, Mann–Whitney and KS of every comparison of lengths, and every
    // comparison of shares.
    let mut family = Vec::new();
    for c in lengths.iter().flatten() {
        family.extend([c.welch_p, c.mann_whitney_p, c.ks_p]);
    }
    family.extend(shares.iter().flatten().map(|s| s.p));
    let adjusted = holm(&family);
    let mut next = adjusted.iter().copied();
    let length_p: Vec<Option<[f64; 3]>> = lengths
        .iter()
        .map(|c| {
            c.map(|_| {
                [
                    next.next().unwrap_or(1.0),
                    next.next().unwrap_or(1.0),
                    next.next().unwrap_or(1.0),
                ]
            })
        })
        .collect();
    let share_p: Vec<Option<f64>> = shares
        .iter()
        .map(|s| s.map(|_| next.next().unwrap_or(1.0)))
        .collect();
    let _ = writeln!(
        md,
        "**Lengths** are those of the games that ended: the difference of their means (variant − \
         baseline) with its 95 % CI (Welch), Welch's, Mann–Whitney U's and the two-sample \
         Kolmogorov–Smirnov test's p-values, and two effect sizes, Cohen's d and A = P(variant \
         longer) + ½ P(tie). Where either side has games that never end (looping or capped), \
         **their shares** are compared too: the difference with its 95 % CI (Newcombe's score \
         interval) and the two-proportion z-test (Fisher's exact test where an expected count is \
         below 5). All {} p-values of this section are Holm-adjusted as one family. **Real** \
         marks an adjusted p below 1 % (Welch's for the lengths).\n",
        family.len(),
    );
    md.push_str("| variant | ended games | difference (95 % CI) | Welch p (Holm) | Mann–Whitney p (Holm) | KS D | KS p (Holm) | Cohen's d | A | real at 1 % |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|\n");
    for (((r, _), c), p) in pairs.iter().zip(&lengths).zip(&length_p) {
        let ended = r.lengths().map_or("–".into(), |l| l.ended().to_string());
        match (c, p) {
            (Some(c), Some([welch, mw, ks])) => {
                let _ = writeln!(
                    md,
                    "| `{}` | {} | {:+.2} ({:+.2} to {:+.2}) | {} | {} | {:.4} | {} | {:+.3} | {:.3} | {} |",
                    r.name,
                    ended,
                    c.diff,
                    c.diff_ci.0,
                    c.diff_ci.1,
                    pvalue(*welch),
                    pvalue(*mw),
                    c.ks_d,
                    pvalue(*ks),
                    c.cohen_d,
                    c.superiority,
                    if *welch < 0.01 { "**real**" } else { "no" }
                );
            }
            _ => {
                let _ = writeln!(
                    md,
                    "| `{}` | {ended} | – (fewer than 2 ended games on a side) | | | | | | | |",
                    r.name
                );
            }
        }
    }
    md.push('\n');
    let forest = pairs
        .iter()
        .zip(&lengths)
        .filter_map(|((r, _), c)| c.map(|c| (r.name.clone(), c.diff, c.diff_ci.0, c.diff_ci.1)))
        .collect();
    if shares.iter().all(Option::is_none) {
        return forest;
    }
    md.push_str(
        "Games that never ended (looping or capped), against the baseline's:\n\n\
         | variant | never ended | baseline: never ended | difference (95 % CI) | two-proportion p (Holm) | real at 1 % |\n\
         |---|---:|---:|---:|---:|:---:|\n",
    );
    for (((r, base), s), p) in pairs.iter().zip(&shares).zip(&share_p) {
        let (Some(s), Some(p)) = (s, p) else {
            continue;
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {:+.2} pp ({:+.2} to {:+.2}) | {} | {} |",
            r.name,
            pct(unended(r), r.agg.games),
            pct(unended(base), base.agg.games),
            100.0 * s.diff,
            100.0 * s.diff_ci.0,
            100.0 * s.diff_ci.1,
            pvalue(*p),
            if *p < 0.01 { "**real**" } else { "no" }
        );
    }
    md.push_str("\n(pp: percentage points.)\n\n");
    forest
}

/// The forest plot of a comparison: each variant's difference of mean length with its CI.
pub(crate) fn forest(
    md: &mut String,
    dir: &Figures,
    title: &str,
    rows: Vec<ForestRow>,
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    show(
        md,
        dir,
        "forest",
        Forest {
            title: title.to_string(),
            x_desc: "difference of mean battles of ended games, variant − baseline (95 % CI)"
                .into(),
            rows,
        },
        "Each variant's difference of mean length (games that ended) from its baseline, with \
         its 95 % CI (Welch); the line at 0 is the baseline. The table above has the tests",
    )
}

fn endings(md: &mut String, dir: &Figures, m: &Manifest, rows: &[Row]) -> Result<()> {
    let ends: Vec<EndReason> = EndReason::ALL
        .into_iter()
        .filter(|e| rows.iter().any(|r| r.agg.ended(*e) > 0))
        .collect();
    // Only where games end more than one way is there something to see.
    if ends.len() > 1 {
        show(
            md,
            dir,
            "endings",
            StackedShares {
                title: format!("{}: how games end", m.experiment),
                parts: ends.iter().map(|e| e.name().to_string()).collect(),
                rows: rows
                    .iter()
                    .map(|r| {
                        let n = r.agg.games.max(1) as f64;
                        let shares = ends.iter().map(|e| r.agg.ended(*e) as f64 / n).collect();
                        (r.name.clone(), shares)
                    })
                    .collect(),
            },
            "Share of each variant's games by how they ended (the table below has the \
             shares with their CIs)",
        )?;
    }
    md.push_str("## How games end, and who wins\n\nShare of games by end reason (95 % Wilson CI):\n\n| variant |");
    for e in &ends {
        let _ = write!(md, " {} |", e.name());
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|".repeat(ends.len()));
    md.push('\n');
    for r in rows {
        let _ = write!(md, "| `{}` |", r.name);
        for e in &ends {
            let _ = write!(md, " {} |", pct(r.agg.ended(*e), r.agg.games));
        }
        md.push('\n');
    }
    let seats = rows.iter().map(|r| r.players).max().unwrap_or(2);
    md.push_str(
        "\nWins by seat, and games with no winner (drawn, looping or capped):\n\n| variant |",
    );
    for s in 0..seats {
        let _ = write!(md, " seat {s} |");
    }
    md.push_str(" no winner |\n|---|");
    md.push_str(&"---:|".repeat(seats + 1));
    md.push('\n');
    for r in rows {
        let _ = write!(md, "| `{}` |", r.name);
        for s in 0..seats {
            if s < r.players {
                let _ = write!(md, " {} |", pct(r.agg.wins(s), r.agg.games));
            } else {
                md.push_str(" – |");
            }
        }
        let none: u64 = r.agg.outcomes.iter().map(|o| o[NO_WINNER]).sum();
        let _ = writeln!(md, " {} |", pct(none, r.agg.games));
    }
    // Who is ahead when an early ending decides the game.
    let early: Vec<EndReason> = ends
        .iter()
        .copied()
        .filter(|e| {
            matches!(
                e,
                EndReason::BattleLimit
                    | EndReason::WarsToWin
                    | EndReason::Target
                    | EndReason::MinCards
            )
        })
        .collect();
    if !early.is_empty() {
        md.push_str("\nWhen an early ending decides the game, the winner (seat shares among those games):\n\n| variant | ending | games | seat 0 | seat 1 | no winner |\n|---|---|---:|---:|---:|---:|\n");
        for r in rows {
            for e in &early {
                let o = &r.agg.outcomes[end_index(*e)];
                let n: u64 = o.iter().sum();
                if n == 0 {
                    continue;
                }
                let _ = writeln!(
                    md,
                    "| `{}` | {} | {} | {} | {} | {} |",
                    r.name,
                    e.name(),
                    n,
                    pct(o[0], n),
                    pct(o[1], n),
                    pct(o[NO_WINNER], n)
                );
            }
        }
    }
    md.push('\n');
    Ok(())
}

fn cycles(md: &mut String, dir: &Figures, m: &Manifest, rows: &[Row]) -> Result<()> {
    md.push_str("## Loops\n\nShare of games whose state repeats (deterministic rules only; random rules cannot loop and report 0). With no loop seen, the interval's upper end bounds how common loops can be.\n\n| variant | looping games | share (95 % CI) | distinct periods | median period | shortest | longest | mean start | median start | latest start |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in rows {
        let a = &r.agg;
        let k = a.ended(EndReason::Cycle);
        let p = &a.cycle_periods;
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            k,
            pct(k, a.games),
            a.cycle_examples.len(),
            p.quantile(0.5).map_or("–".into(), |v| v.to_string()),
            p.min().map_or("–".into(), |v| v.to_string()),
            p.max().map_or("–".into(), |v| v.to_string()),
            mean_estimate(&a.cycle_starts).map_or("–".into(), |e| format!("{:.1}", e.mean)),
            a.cycle_starts
                .quantile(0.5)
                .map_or("–".into(), |v| v.to_string()),
            a.cycle_starts.max().map_or("–".into(), |v| v.to_string()),
        );
    }
    md.push('\n');
    let looping = rows
        .iter()
        .filter(|r| r.agg.ended(EndReason::Cycle) > 0)
        .collect();
    for r in per_variant(md, looping, "loop figures") {
        let stem = format!("cycles-{}", slug(&r.name));
        show(
            md,
            dir,
            &stem,
            TwoHists {
                title: format!("{}: loops of {}", m.experiment, r.name),
                panels: [
                    (
                        "cycle period (battles)".into(),
                        r.agg.cycle_periods.iter().collect(),
                    ),
                    (
                        "battle where the cycle starts".into(),
                        r.agg.cycle_starts.iter().collect(),
                    ),
                ],
            },
            &format!("`{}`: cycle periods and cycle starts", r.name),
        )?;
        let _ = writeln!(
            md,
            "One example game per period (the first game that looped with it); `warlab trace` replays it to its first repeated state:\n"
        );
        let shown = r.agg.cycle_examples.len().min(20);
        for (period, game) in r.agg.cycle_examples.iter().take(shown) {
            let _ = writeln!(
                md,
                "- period {period}: `warlab trace --experiment {} --variant '{}' --game {game}`",
                m.file, r.name
            );
        }
        if r.agg.cycle_examples.len() > shown {
            let _ = writeln!(
                md,
                "- … {} more periods (all in `aggregates.json`, `cycle_examples`)",
                r.agg.cycle_examples.len() - shown
            );
        }
        md.push('\n');
    }
    Ok(())
}

/// Share of the ended games with an even number of battles, and where it is far from ½, the
/// distribution of even against odd lengths.
fn parity(md: &mut String, dir: &Figures, rows: &[Row]) -> Result<()> {
    md.push_str("## Even and odd game lengths\n\nShare of the games that ended that last an even number of battles (games stopped by a battle limit, which all last the limit, left out). Where it differs from ½ beyond doubt (two-sided binomial test, p < 0.001), the lengths show an even/odd pattern and the figure splits the distribution by parity.\n\n| variant | ended games | even share (95 % CI) | pattern |\n|---|---:|---:|:---:|\n");
    let z = statrs::distribution::Normal::standard();
    let mut flagged = Vec::new();
    for r in rows {
        let Some(l) = r.lengths() else {
            continue;
        };
        let h = &l.ended_battles;
        // Games stopped by a battle limit all last the limit: an even limit would make a
        // "pattern" of its own. They are left out of the count.
        let stopped = r.agg.ended(EndReason::BattleLimit);
        let limit = r
            .rules
            .iter()
            .find(|(k, _)| k == "battle_limit")
            .and_then(|(_, v)| v.parse::<u64>().ok());
        let n = h.count() - stopped;
        let even: u64 = h
            .iter()
            .filter(|(v, _)| v % 2 == 0)
            .map(|(_, c)| c)
            .sum::<u64>()
            - if limit.is_some_and(|b| b % 2 == 0) {
                stopped
            } else {
                0
            };
        let p = if n == 0 {
            1.0
        } else {
            let zs = (even as f64 - n as f64 / 2.0) / (n as f64 / 4.0).sqrt();
            use statrs::distribution::ContinuousCDF;
            2.0 * z.sf(zs.abs())
        };
        let pattern = p < 1e-3;
        if pattern {
            flagged.push(r);
        }
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} |",
            r.name,
            n,
            pct(even, n),
            if pattern { "**yes**" } else { "no" }
        );
    }
    md.push('\n');
    for r in per_variant(md, flagged, "parity figures") {
        let Some(l) = r.lengths() else {
            continue;
        };
        let h = &l.ended_battles;
        let n = h.count() as f64;
        let cut = h.quantile(0.99).unwrap_or(0);
        let pts = |even: bool| -> Vec<(f64, f64)> {
            h.iter()
                .filter(|(v, _)| (v % 2 == 0) == even && *v <= cut)
                .map(|(v, c)| (v as f64, c as f64 / n))
                .collect()
        };
        let stem = format!("parity-{}", slug(&r.name));
        show(
            md,
            dir,
            &stem,
            Lines {
                title: format!("{}: even against odd lengths", r.name),
                x_desc: "battles".into(),
                y_desc: "share of ended games".into(),
                series: vec![
                    ("even lengths".into(), pts(true), Vec::new()),
                    ("odd lengths".into(), pts(false), Vec::new()),
                ],
                y_range: None,
            },
            &format!(
                "`{}`: P(length = n) among the games that ended, for even and for odd n (to \
                 the 99th percentile).{}",
                r.name,
                unended_note(&[r])
            ),
        )?;
    }
    Ok(())
}

/// Running mean length of the ended games (relative to the final one) with its 95 % CI,
/// against games played.
fn running_means(md: &mut String, dir: &Figures, m: &Manifest, rows: &[Row]) -> Result<()> {
    let mut series = Vec::new();
    let mut table = String::from(
        "| variant | ended games | final mean | CI half-width | relative |\n|---|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let Some(l) = r.lengths() else {
            continue;
        };
        let Some(fin) = mean_estimate(&l.ended_battles) else {
            continue;
        };
        let (mut n, mut s, mut q) = (0f64, 0f64, 0f64);
        let (mut played, mut line, mut band) = (0u64, Vec::new(), Vec::new());
        // Games played by the end of each block: every game of the blocks so far.
        let mut all_blocks = r.agg.blocks.iter().peekable();
        for (block, [bn, bs, bq]) in &l.ended_blocks {
            while let Some((_, [g, _, _])) = all_blocks.next_if(|(b, _)| *b <= block) {
                played += g;
            }
            n += *bn as f64;
            s += *bs as f64;
            q += *bq as f64;
            if n < 2.0 {
                continue;
            }
            let mean = s / n;
            let var = ((q - s * s / n) / (n - 1.0)).max(0.0);
            let half = t975(n as u64 - 1) * (var / n).sqrt();
            let rel = |x: f64| 100.0 * (x / fin.mean - 1.0);
            line.push((played as f64, rel(mean)));
            band.push((played as f64, rel(mean - half), rel(mean + half)));
        }
        if let Some((lo, hi)) = fin.ci {
            let _ = writeln!(
                table,
                "| `{}` | {} | {:.2} | {:.2} | ±{:.2} % |",
                r.name,
                fin.n,
                fin.mean,
                (hi - lo) / 2.0,
                100.0 * (hi - lo) / 2.0 / fin.mean
            );
        }
        if !line.is_empty() {
            series.push((r.name.clone(), line, band));
        }
    }
    md.push_str("## Was the sample large enough?\n\n");
    if !series.is_empty() {
        let all: Vec<&Row> = rows.iter().collect();
        show(
            md,
            dir,
            "running-mean",
            Lines {
                title: format!("{}: running mean against games played", m.experiment),
                x_desc: "games played".into(),
                y_desc: "running mean − final mean, % of final".into(),
                series,
                y_range: Some(-10.0..10.0),
            },
            &format!(
                "Running mean length of the games that ended, in % of the final mean, against \
                 games played (bands: 95 % CI; more than 8 variants are drawn in panels of 6); \
                 it settles as the sample grows.{}",
                unended_note(&all)
            ),
        )?;
    }
    md.push_str(&table);
    md.push('\n');
    Ok(())
}

/// Variants that get figures of their own, at most.
const PER_VARIANT_FIGURES: usize = 24;

/// The first [`PER_VARIANT_FIGURES`] of `rows` (in experiment order), with a sentence in the
/// report when there are more: a report of a thousand variants stays a readable size, and says
/// which figures it left out.
fn per_variant<'r>(
    md: &mut String,
    rows: Vec<&'r Row>,
    what: &str,
) -> impl Iterator<Item = &'r Row> + use<'r> {
    let n = rows.len();
    if n > PER_VARIANT_FIGURES {
        let _ = writeln!(
            md,
            "There are {what} for the first {PER_VARIANT_FIGURES} of these {n} variants (in \
             experiment order); the data files hold every variant's counts.\n"
        );
    }
    rows.into_iter().take(PER_VARIANT_FIGURES)
}

/// A variant's Kaplan–Meier curve for the survival figure, named `name` (with its share of
/// loops, which never end).
pub(crate) fn survival_curve(r: &Row, name: &str) -> Option<Curve> {
    let km = r.survival()?;
    let loops = r.loops();
    Some(Curve {
        name: if loops > 0 {
            format!(
                "{name} (loops {:.1} %)",
                100.0 * loops as f64 / r.agg.games as f64
            )
        } else {
            name.to_string()
        },
        steps: km.steps.iter().map(|s| (s.n, s.survival)).collect(),
        plateau: (loops > 0).then(|| km.plateau()),
    })
}
