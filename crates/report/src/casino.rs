//! The Casino War report: the house edge exact beside simulated, the tie bet, the exact table
//! by deck count, and how long a bankroll lasts.

use std::fmt::Write as _;

use anyhow::{Context, Result, anyhow};
use statrs::distribution::{ContinuousCDF, Normal};
use warlab_casino::exact::{Exact, hand_value};
use warlab_casino::{CasinoOptions, CasinoRules, Decks, SessionEnd, Strategy};
use warlab_stats::compare::holm;
use warlab_stats::files::{Manifest, ManifestVariant};
use warlab_stats::{CasinoAggregate, Estimate, exact_values, mean_estimate, wilson};

use crate::format::{Figures, box_rows, fmt_ci, length_cells, pct, pvalue, show};
use crate::plots::{AxisMeans, Boxes, Curve, IntervalSeries, Survival};

/// One variant as the Casino War report sees it.
pub(crate) struct CasinoRow {
    pub name: String,
    pub rules: CasinoRules,
    pub settings: Vec<(String, String)>,
    pub agg: CasinoAggregate,
}

/// The rule set a manifest's variant lists as `name=value` pairs.
pub(crate) fn rules_of(variant: &ManifestVariant) -> Result<CasinoRules> {
    let mut o = CasinoOptions::default();
    for (k, v) in variant.options().map_err(|e| anyhow!(e))? {
        o.set(k, v).map_err(|e| anyhow!("{e}"))?;
    }
    CasinoRules::new(o).map_err(|e| anyhow!("{e}"))
}

fn pct_f(x: f64, digits: usize) -> String {
    format!("{:.digits$} %", 100.0 * x)
}

fn decks_label(d: Decks) -> String {
    match d {
        Decks::Finite(d) => d.to_string(),
        Decks::Infinite => "∞".into(),
    }
}

/// What a table plays, in words.
pub(crate) fn describe(r: &CasinoRules) -> String {
    let mut s = format!(
        "{} deck{}, reshuffled at {} %; on a tie: {}",
        decks_label(r.decks()),
        if r.decks() == Decks::Finite(1) {
            ""
        } else {
            "s"
        },
        r.penetration(),
        match r.strategy() {
            Strategy::War => "go to war",
            Strategy::Surrender => "surrender half",
        }
    );
    match (r.strategy(), r.bonus()) {
        (Strategy::War, true) => s.push_str(", a tie after a tie pays a bonus"),
        (Strategy::Surrender, true) => {
            s.push_str(" (the tie-after-tie bonus never applies when surrendering)")
        }
        _ => {}
    }
    let _ = write!(s, "; bet {} of a bankroll of {}", r.bet(), r.bankroll());
    if r.tie_bet() > 0 {
        let _ = write!(s, ", tie bet {}", r.tie_bet());
    }
    match r.target() {
        Some(t) => {
            let _ = write!(s, ", stops at {t}");
        }
        None => s.push_str(", no win target"),
    }
    if let Some(h) = r.hands() {
        let _ = write!(s, ", at most {h} hands");
    }
    s
}

pub(crate) fn write_report(dir: &Figures, m: &Manifest, rows: &[CasinoRow]) -> Result<()> {
    let mut md = String::new();
    crate::format::run_header(&mut md, m, "Casino War. ", "sessions", rows.len());
    md.push_str(
        "A session starts at a freshly shuffled shoe with the bankroll and plays hands until the \
         bankroll cannot cover one more hand (the bet, the tie bet, and the raise when the \
         strategy is war: *ruin*), reaches the target, or reaches the hands limit. The house \
         edge is the expected loss per chip of the original bet.\n\n",
    );
    let _ = writeln!(
        md,
        "Any session replays hand by hand: `warlab trace --experiment {} --variant '<variant>' --game <G>` (`--json` for JSON lines).\n",
        m.file
    );
    crate::format::variants_table(
        &mut md,
        m,
        "table",
        rows.iter().map(|r| (&r.name[..], describe(&r.rules))),
    );

    house_edge(&mut md, rows);
    tie_bet(&mut md, rows);
    exact_table(&mut md);
    bankroll(&mut md, dir, m, rows)?;
    let path = dir.dir.join("report.md");
    std::fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// The z-score of a simulated house edge against the exact one, `(simulated − exact) / SE`,
/// from the simulated mean value of a hand to the player (the edge is its negative).
fn edge_z(ev_mean: f64, se: f64, exact_edge: f64) -> f64 {
    (-ev_mean - exact_edge) / se
}

fn house_edge(md: &mut String, rows: &[CasinoRow]) {
    md.push_str(
        "## House edge: exact and simulated\n\n\
         *Exact* is computed from the card counts as a fraction (not simulated): the first hand \
         from a freshly shuffled shoe of the table's decks, and the same for an infinite deck. \
         *Simulated, fresh shoe* averages the first hand after every shuffle, exactly the hand \
         the fresh-shoe figure is about, so the two must agree: the z-score is \
         (simulated − exact) / SE and the p-values are Holm-adjusted over the variants; \
         **agrees** means adjusted p ≥ 0.01. *All hands* averages every hand played, shoe \
         depth and all (a ratio of session sums, delta-method CI): hands deep in a shoe see a \
         depleted composition, so this may differ from the fresh-shoe figure by a small real \
         amount (the cut-card effect), except with an infinite deck or `penetration = 0`.\n\n\
         | variant | exact, fresh shoe | exact fraction (EV) | exact, infinite deck | simulated, fresh shoe (95 % CI) | hands | z | adj. p | agrees | simulated, all hands (95 % CI) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---|---:|\n",
    );
    let mut ps = Vec::new();
    let mut zs = Vec::new();
    for r in rows {
        let (fresh, _) = exact_values(&r.rules);
        let z = r
            .agg
            .fresh_value()
            .filter(|e| e.se > 0.0)
            .map(|e| edge_z(e.mean, e.se, fresh.house_edge().to_f64()));
        zs.push(z);
        ps.push(z.map_or(1.0, |z| 2.0 * (1.0 - Normal::standard().cdf(z.abs()))));
    }
    let adj = holm(&ps);
    for (i, r) in rows.iter().enumerate() {
        let (fresh, infinite) = exact_values(&r.rules);
        let sim = r.agg.fresh_value();
        let all = r.agg.all_hands_value();
        let edge_ci = |e: Option<Estimate>| {
            e.map_or("–".into(), |e| {
                format!(
                    "{} ({:.3}–{:.3} %)",
                    pct_f(-e.mean, 3),
                    -100.0 * e.ci.1,
                    -100.0 * e.ci.0
                )
            })
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            pct_f(fresh.house_edge().to_f64(), 3),
            fresh.ev,
            pct_f(infinite.house_edge().to_f64(), 3),
            edge_ci(sim),
            r.agg.counts.fresh,
            zs[i].map_or("–".into(), |z| format!("{z:+.2}")),
            pvalue(adj[i]),
            if sim.is_none() {
                "–"
            } else if adj[i] >= 0.01 {
                "**agrees**"
            } else {
                "**differs**"
            },
            edge_ci(all),
        );
    }
    md.push('\n');
}

fn tie_bet(md: &mut String, rows: &[CasinoRow]) {
    md.push_str(
        "## Tie bet\n\n\
         The tie bet pays 10 to 1 when the first two cards tie, so its value per chip is \
         11·P(tie) − 1. Simulated from the ties among fresh-shoe hands (Wilson interval for \
         P(tie)), whatever the table's tie bet amount.\n\n\
         | variant | exact P(tie) | exact tie-bet edge | simulated P(tie), fresh shoe (95 % CI) | simulated tie-bet edge (95 % CI) | ties per hand, all hands (95 % CI) |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let (fresh, _) = exact_values(&r.rules);
        let a = &r.agg;
        let edge = wilson(a.counts.fresh_ties, a.counts.fresh)
            .map(|(lo, hi)| (1.0 - 11.0 * hi, 1.0 - 11.0 * lo));
        let rate = a.tie_rate();
        let _ = writeln!(
            md,
            "| `{}` | {} = {} | {} | {} | {} | {} |",
            r.name,
            fresh.p_tie,
            pct_f(fresh.p_tie.to_f64(), 3),
            pct_f(fresh.tie_bet_edge().to_f64(), 2),
            pct(a.counts.fresh_ties, a.counts.fresh),
            match edge {
                Some((lo, hi)) => format!(
                    "{} ({:.2}–{:.2} %)",
                    pct_f(
                        1.0 - 11.0 * a.counts.fresh_ties as f64 / a.counts.fresh.max(1) as f64,
                        2
                    ),
                    100.0 * lo,
                    100.0 * hi
                ),
                None => "–".into(),
            },
            rate.map_or("–".into(), |e| format!(
                "{} ({})",
                pct_f(e.mean, 3),
                fmt_ci(Some((100.0 * e.ci.0, 100.0 * e.ci.1)), 3)
            )),
        );
    }
    md.push('\n');
}

/// The exact house edge of every option by deck count: a table to check against published
/// ones (Wizard of Odds lists 1, 2, 4, 6 and 8 decks).
pub fn exact_rows() -> Vec<(Decks, [Exact; 3])> {
    (1..=8)
        .map(Decks::Finite)
        .chain([Decks::Infinite])
        .map(|d| {
            (
                d,
                [
                    hand_value(d, Strategy::War, false),
                    hand_value(d, Strategy::War, true),
                    hand_value(d, Strategy::Surrender, false),
                ],
            )
        })
        .collect()
}

fn exact_table(md: &mut String) {
    md.push_str(
        "## Exact house edge by deck count\n\n\
         Computed exactly for a fresh shoe (first hand), for every deck count a table may use. \
         *War + bonus*: a tie on the war cards also pays the original bet.\n\n\
         | decks | P(tie) | go to war | war + bonus | surrender | tie bet (10 to 1) |\n\
         |---:|---:|---:|---:|---:|---:|\n",
    );
    for (d, [war, bonus, surrender]) in exact_rows() {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            decks_label(d),
            pct_f(war.p_tie.to_f64(), 4),
            pct_f(war.house_edge().to_f64(), 4),
            pct_f(bonus.house_edge().to_f64(), 4),
            pct_f(surrender.house_edge().to_f64(), 4),
            pct_f(war.tie_bet_edge().to_f64(), 4),
        );
    }
    md.push('\n');
}

fn bankroll(md: &mut String, dir: &Figures, m: &Manifest, rows: &[CasinoRow]) -> Result<()> {
    md.push_str(
        "## How long a bankroll lasts\n\n\
         | variant | bankroll / bet / target | hands mean (95 % CI) | sd | median | p90 | p99 | max | ruined | reached the target | hands limit | capped | final bankroll (± SE) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let a = &r.agg;
        let bank = mean_estimate(&a.final_bankroll);
        let _ = writeln!(
            md,
            "| `{}` | {} / {} / {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.rules.bankroll(),
            r.rules.bet(),
            r.rules.target().map_or("none".into(), |t| t.to_string()),
            length_cells(Some(&a.hands), 1),
            pct(a.ended(SessionEnd::Ruin), a.sessions),
            pct(a.ended(SessionEnd::Target), a.sessions),
            pct(a.ended(SessionEnd::HandsLimit), a.sessions),
            pct(a.ended(SessionEnd::Capped), a.sessions),
            bank.map_or("–".into(), |b| format!(
                "{:.2} ± {:.2}",
                b.mean / 2.0,
                b.se.unwrap_or(0.0) / 2.0
            )),
        );
    }
    md.push_str(
        "\n*Reached the target* is the probability of, e.g., doubling the bankroll before ruin \
         (when the target is `double`). Sessions that hit the hands limit or the safety cap \
         count in every mean with the hands they played; their shares are shown.\n\n",
    );
    show(
        md,
        dir,
        "survival",
        Survival {
            title: format!("{}: P(session longer than n hands)", m.experiment),
            unit: "hands".into(),
            series: rows
                .iter()
                .map(|r| Curve {
                    name: r.name.clone(),
                    steps: r.agg.hands.survival(),
                    plateau: None,
                })
                .collect(),
        },
        "Survival curves P(session > n hands) of all variants, log y-axis",
    )?;
    if rows.len() >= 2 {
        let boxes = box_rows(rows.iter().map(|r| (r.name.as_str(), &r.agg.hands)));
        show(
            md,
            dir,
            "boxes",
            Boxes {
                title: format!("{}: hands per session, sorted by median", m.experiment),
                unit: "hands".into(),
                rows: boxes,
            },
            "Hands per session by variant (box 25–75 %, whiskers 5–95 %, bar median, dot mean)",
        )?;
    }
    by_decks(md, dir, m, rows)
}

/// Against deck count, one line per combination of the other settings: the simulated house
/// edge with its CI beside the exact one, and the chance of reaching the target.
fn by_decks(md: &mut String, dir: &Figures, m: &Manifest, rows: &[CasinoRow]) -> Result<()> {
    let finite = |r: &CasinoRow| match r.rules.decks() {
        Decks::Finite(d) => Some(f64::from(d)),
        Decks::Infinite => None,
    };
    let mut groups: Vec<(String, Vec<&CasinoRow>)> = Vec::new();
    for r in rows.iter().filter(|r| finite(r).is_some()) {
        let label: Vec<String> = r
            .settings
            .iter()
            .filter(|(k, _)| k != "decks")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let label = if label.is_empty() {
            "all".to_string()
        } else {
            label.join(",")
        };
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(g) => g.1.push(r),
            None => groups.push((label, vec![r])),
        }
    }
    let distinct: std::collections::BTreeSet<u64> = rows
        .iter()
        .filter_map(|r| finite(r).map(|d| d as u64))
        .collect();
    if distinct.len() < 2 {
        return Ok(());
    }
    let mut edge: Vec<IntervalSeries> = Vec::new();
    let mut target: Vec<IntervalSeries> = Vec::new();
    for (label, members) in &groups {
        let mut sim = Vec::new();
        let mut exact = Vec::new();
        let mut reach = Vec::new();
        for r in members {
            let d = finite(r).expect("finite decks only");
            let (fresh, _) = exact_values(&r.rules);
            let e = 100.0 * fresh.house_edge().to_f64();
            exact.push((d, e, e, e));
            if let Some(s) = r.agg.fresh_value() {
                sim.push((d, -100.0 * s.mean, -100.0 * s.ci.1, -100.0 * s.ci.0));
            }
            if let Some((lo, hi)) = wilson(r.agg.ended(SessionEnd::Target), r.agg.sessions) {
                let p = r.agg.ended(SessionEnd::Target) as f64 / r.agg.sessions as f64;
                reach.push((d, 100.0 * p, 100.0 * lo, 100.0 * hi));
            }
        }
        edge.push((format!("{label}: exact"), exact));
        edge.push((format!("{label}: simulated"), sim));
        target.push((label.clone(), reach));
    }
    md.push_str("## Against the number of decks\n\n");
    show(
        md,
        dir,
        "edge-by-decks",
        AxisMeans {
            title: format!("{}: house edge against decks", m.experiment),
            axis: "decks in the shoe".into(),
            y_desc: "house edge %, 95 % CI".into(),
            series: edge,
            fits: Vec::new(),
            log_log: false,
            exact_pairs: true,
        },
        "House edge of the main bet against the number of decks: exact (fresh shoe) as lines, every other one dashed so that equal ones both show; simulated fresh-shoe hands as points with their 95 % CI, in the colour of their exact line and set a little apart along x",
    )?;
    show(
        md,
        dir,
        "target-by-decks",
        AxisMeans {
            title: format!("{}: P(reaching the target before ruin)", m.experiment),
            axis: "decks in the shoe".into(),
            y_desc: "% of sessions, 95 % Wilson CI".into(),
            series: target,
            fits: Vec::new(),
            log_log: false,
            exact_pairs: false,
        },
        "Probability of reaching the target (e.g. doubling) before ruin, against the number of decks",
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::edge_z;

    #[test]
    fn z_is_simulated_minus_exact_edge() {
        // The player loses 3 % a hand where the exact edge is 2.88 %: the simulated edge is
        // higher, z positive.
        let z = edge_z(-0.03, 0.0006, 0.0288);
        assert!((z - 2.0).abs() < 1e-9, "{z}");
        assert!(edge_z(-0.0276, 0.0006, 0.0288) < 0.0);
    }
}
