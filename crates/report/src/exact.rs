//! Exact values beside the simulated ones: every variant the exact solver reaches (`warlab
//! exact`, the `warlab-exact` crate) gets its true mean length, P(seat 0 wins) and P(never
//! ends), with the simulation's z-score against each: a standing check of the engine and of
//! the statistics, and for small decks the answer itself.

use std::fmt::Write as _;

use anyhow::Result;
use warlab_exact::{Options, Solution, Start};
use warlab_experiment::Experiment;
use warlab_stats::mean_estimate;

use crate::format::{Figures, show};
use crate::input::Row;
use crate::plots::{AxisMeans, Interval, IntervalSeries};

/// Cards in a deck the report solves without being asked (`exact` unset): well under a second
/// each, whatever the rules.
pub const AUTO_CARDS: usize = 8;

/// States a report's solve may keep (about 300 MB); a larger variant is named, not solved.
const REPORT_STATES: usize = 2_000_000;

/// A solved variant: its row and the solution.
struct Solved<'r> {
    row: &'r Row,
    sol: Solution,
}

/// The section "Exact values", when any variant is solved; a sentence for each one that was
/// asked for and could not be.
pub(crate) fn section(
    md: &mut String,
    figs: &Figures,
    exp: &Experiment,
    rows: &[Row],
) -> Result<()> {
    let wanted = |r: &Row| match exp.exact {
        Some(all) => all,
        None => r.cards <= AUTO_CARDS,
    };
    let options = Options {
        max_states: REPORT_STATES,
        ..Options::default()
    };
    let mut solved = Vec::new();
    let mut refused = Vec::new();
    for row in rows.iter().filter(|r| wanted(r)) {
        let Some(variant) = exp.variant(&row.name) else {
            continue;
        };
        let start = match &variant.deal {
            Some(deal) => Start::Deal(deal.clone()),
            None => Start::AllDeals,
        };
        match warlab_exact::solve(&variant.rules, &start, &options, &mut |_| {}) {
            Ok(sol) => solved.push(Solved { row, sol }),
            Err(e) => refused.push(format!("`{}`: {e}", row.name)),
        }
    }
    if solved.is_empty() && refused.is_empty() {
        return Ok(());
    }
    md.push_str("## Exact values\n\n");
    md.push_str(
        "The exact solver (`warlab exact`) builds every position reachable from every deal \
         (each with its probability, or the variant's fixed deal) through the engine's own \
         battle and solves the chain: deterministic rules deal by deal in exact fractions, \
         random rules by pushing the distribution forward until less than 10⁻¹² of it is left. \
         Beside each exact value: the simulation's estimate and its z-score, (simulated − \
         exact) / standard error; |z| above 4 would mean a fault in the engine or in the \
         statistics, not chance.\n\n",
    );
    if !solved.is_empty() {
        table(md, &solved);
        figure(md, figs, exp, &solved)?;
    }
    for r in &refused {
        let _ = writeln!(md, "- Not solved: {r}.");
    }
    if !refused.is_empty() {
        md.push('\n');
    }
    Ok(())
}

fn table(md: &mut String, solved: &[Solved]) {
    md.push_str(
        "| variant | method | states | exact mean | simulated mean (95 % CI) | z | exact P(seat 0 wins) | simulated | z | exact P(never ends) | simulated | z |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut worst: Option<(f64, &str)> = None;
    for s in solved {
        let r = s.row;
        let games = r.agg.games;
        let sim = r.lengths().and_then(|l| mean_estimate(&l.ended_battles));
        let z_mean = sim.as_ref().and_then(|m| {
            m.se.filter(|se| *se > 0.0)
                .map(|se| (m.mean - s.sol.battles_mean) / se)
        });
        let seat0: u64 = r.agg.outcomes.iter().map(|o| o[0]).sum();
        let never = r.loops() + r.capped();
        let never_exact = s.sol.loop_share + s.sol.capped_share;
        let (z_win, z_never) = (
            share_z(seat0, games, s.sol.win_share[0]),
            share_z(never, games, never_exact),
        );
        for z in [z_mean, z_win, z_never].into_iter().flatten() {
            if z.is_finite() && worst.is_none_or(|(w, _)| z.abs() > w.abs()) {
                worst = Some((z, &r.name));
            }
        }
        let mean_exact = match &s.sol.battles_mean_exact {
            Some(f) if f.to_string().len() <= 24 => format!("{:.4} (= {f})", s.sol.battles_mean),
            _ => format!("{:.4}", s.sol.battles_mean),
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {:.5} | {} | {} | {:.5} | {} | {} |",
            r.name,
            s.sol.method.name(),
            s.sol.states,
            mean_exact,
            sim.as_ref().map_or("–".into(), |m| format!(
                "{:.3} ({})",
                m.mean,
                crate::format::fmt_ci(m.ci, 3)
            )),
            z_text(z_mean),
            s.sol.win_share[0],
            ratio(seat0, games),
            z_text(z_win),
            never_exact,
            ratio(never, games),
            z_text(z_never),
        );
    }
    md.push('\n');
    if let Some((z, name)) = worst {
        let verdict = if z.abs() < 4.0 {
            "every simulated value agrees with its exact value"
        } else {
            "**a simulated value disagrees with its exact value beyond chance: report it**"
        };
        let _ = writeln!(md, "Largest |z|: {:.2} (`{name}`): {verdict}.\n", z.abs());
    }
}

/// The z-score of `k` in `n` against the exact probability `p`; infinite where `p` is 0 or 1
/// and the sample says otherwise, `None` where both agree on a certainty.
fn share_z(k: u64, n: u64, p: f64) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let hat = k as f64 / n as f64;
    let var = p * (1.0 - p) / n as f64;
    if var <= 1e-300 {
        return ((hat - p).abs() > 1e-12).then_some(f64::INFINITY);
    }
    Some((hat - p) / var.sqrt())
}

fn ratio(k: u64, n: u64) -> String {
    if n == 0 {
        "–".into()
    } else {
        format!("{:.5}", k as f64 / n as f64)
    }
}

fn z_text(z: Option<f64>) -> String {
    match z {
        None => "–".into(),
        Some(z) if z.is_infinite() => "∞".into(),
        Some(z) => format!("{z:+.2}"),
    }
}

/// Exact against simulated mean length by cards in play, one exact line and its simulated
/// points per deck shape and rule set, when at least three variants differ in their deck.
fn figure(md: &mut String, figs: &Figures, exp: &Experiment, solved: &[Solved]) -> Result<()> {
    let deck_keys = ["ranks", "suits", "decks", "deck"];
    let label = |r: &Row| {
        let others: Vec<String> = r
            .settings
            .iter()
            .filter(|(k, _)| !deck_keys.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let suits = r
            .rules
            .iter()
            .find(|(k, _)| k == "suits")
            .map_or(String::new(), |(_, v)| format!("{v} suit(s)"));
        [suits]
            .into_iter()
            .chain(others)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut groups: Vec<(String, Vec<&Solved>)> = Vec::new();
    for s in solved.iter().filter(|s| !s.row.fixed_deal) {
        let l = label(s.row);
        match groups.iter_mut().find(|g| g.0 == l) {
            Some(g) => g.1.push(s),
            None => groups.push((l, vec![s])),
        }
    }
    groups.retain(|g| g.1.len() >= 2);
    if groups.iter().map(|g| g.1.len()).sum::<usize>() < 3 {
        return Ok(());
    }
    let mut series: Vec<IntervalSeries> = Vec::new();
    let (mut lo_x, mut hi_x) = (f64::MAX, 0f64);
    for (name, mut members) in groups {
        members.sort_by_key(|s| s.row.cards);
        let exact: Vec<Interval> = members
            .iter()
            .map(|s| {
                let m = s.sol.battles_mean;
                (s.row.cards as f64, m, m, m)
            })
            .collect();
        let simulated: Vec<Interval> = members
            .iter()
            .filter_map(|s| {
                let m = mean_estimate(&s.row.lengths()?.ended_battles)?;
                let (lo, hi) = m.ci.unwrap_or((m.mean, m.mean));
                Some((s.row.cards as f64, m.mean, lo, hi))
            })
            .collect();
        for p in &exact {
            lo_x = lo_x.min(p.0);
            hi_x = hi_x.max(p.0);
        }
        series.push((format!("exact: {name}"), exact));
        series.push((format!("simulated: {name}"), simulated));
    }
    show(
        md,
        figs,
        "exact",
        AxisMeans {
            title: format!("{}: exact and simulated mean length", exp.name),
            axis: "cards in play, n".into(),
            y_desc: "mean battles of ended games".into(),
            series,
            fits: Vec::new(),
            log_log: hi_x >= 3.0 * lo_x,
            exact_pairs: true,
        },
        "Exact mean length of the games that end (lines) and the simulated mean with its 95 % \
         CI (points), against the cards in play.",
    )
}
