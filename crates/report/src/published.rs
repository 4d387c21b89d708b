//! Figures from the literature beside warlab's own values (`[[published]]` in an experiment).
//!
//! Every published figure is compared with warlab's value of the same statistic under the
//! same rules, with both sides' uncertainty:
//!
//! - warlab's standard error (or, for quantiles, the distribution-free rank interval);
//! - the source's own sampling error when it states its sample size (`games`), estimated from
//!   warlab's distribution, since sources rarely give theirs; not for a range the source gives
//!   over several runs, which holds that noise already (adding it would count it twice);
//! - the rounding of the published value (half a unit of its last digit), or its range.
//!
//! Length statistics are over the games that ended: a looping or capped game has no length.
//!
//! A figure **agrees** when the distance between the two is at most 2.58 combined standard
//! errors (99 %) plus the rounding. Exact quantities (Casino War edges, the sweep
//! probability, a fixed deal's loop) have no sampling error: they agree when equal up to the
//! published rounding.

use std::collections::HashMap;
use std::fmt::Write as _;

use warlab_casino::exact::hand_value;
use warlab_casino::{CasinoOptions, CasinoRules};
use warlab_experiment::{LengthUnit, Measure, Published, Statistic};
use warlab_stats::compare::power_law;
use warlab_stats::{Hist, mean_estimate};

use crate::format::{Figures, show};
use crate::input::Row;
use crate::plots::Forest;

/// The z of the agreement criterion (two-sided 99 %).
pub const Z_AGREE: f64 = 2.576;

/// warlab's value of a published figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Ours {
    /// warlab's value.
    pub value: f64,
    /// warlab's standard error (0 for exact values).
    pub se: f64,
    /// The source's sampling error, when its sample size is known.
    pub their_se: Option<f64>,
    /// warlab's value is exact (computed, not simulated).
    pub exact: bool,
    /// How warlab's value was obtained, in words.
    pub how: String,
}

/// The verdict on one published figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// warlab's value of the figure.
    pub ours: Ours,
    /// |warlab − published| (0 inside a published range).
    pub distance: f64,
    /// What the distance may be: 2.58 combined SEs plus the rounding.
    pub tolerance: f64,
    /// The distance is within the tolerance.
    pub agrees: bool,
}

/// Evaluates every published figure of an experiment against its rows.
pub fn evaluate(rows: &[Row], published: &[Published]) -> Vec<Result<Verdict, String>> {
    published.iter().map(|p| verdict(rows, p)).collect()
}

fn verdict(rows: &[Row], p: &Published) -> Result<Verdict, String> {
    let ours = ours(rows, p)?;
    // A rounded value stands for anything within half a unit of its last digit; a range and
    // an exact law stand for themselves.
    let rounding = if p.exact || p.range.is_some() {
        0.0
    } else {
        0.5 * 10f64.powi(-(p.decimals as i32))
    };
    let distance = match (p.value, p.range) {
        (Some(v), _) => (ours.value - v).abs(),
        (None, Some((lo, hi))) => (lo - ours.value).max(ours.value - hi).max(0.0),
        (None, None) => return Err("no published value".into()),
    };
    let combined = (ours.se.powi(2) + ours.their_se.unwrap_or(0.0).powi(2)).sqrt();
    // Exact values carry floating-point noise only.
    let slack = if ours.exact {
        1e-12 * ours.value.abs()
    } else {
        0.0
    };
    let tolerance = Z_AGREE * combined + rounding + slack;
    Ok(Verdict {
        agrees: distance <= tolerance,
        ours,
        distance,
        tolerance,
    })
}

fn old_data(name: &str) -> String {
    format!(
        "`{name}` was run by an older warlab that did not keep its looping or capped games apart; run the experiment again"
    )
}

fn row<'a>(rows: &'a [Row], name: &str) -> Result<&'a Row, String> {
    rows.iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("variant `{name}` is not in this run"))
}

fn ours(rows: &[Row], p: &Published) -> Result<Ours, String> {
    match p.statistic {
        Statistic::Length { unit, measure } => {
            let r = row(rows, p.variant.as_deref().unwrap_or_default())?;
            length(r, unit, measure, p)
        }
        Statistic::SweepProbability => {
            let (ranks, suits) = p.deck;
            let value = p_sweep(ranks as usize, suits as usize).ok_or_else(|| {
                format!("a {ranks} × {suits} deck is too large for the exact sweep")
            })?;
            Ok(Ours {
                value,
                se: 0.0,
                their_se: None,
                exact: true,
                how: format!(
                    "exact: P(no tie in the {} battles) / 2^{}, by dynamic programming over rank multiplicities",
                    ranks * suits / 2,
                    ranks * suits / 2
                ),
            })
        }
        Statistic::Exponent => {
            let pts: Vec<(f64, f64, f64)> = p
                .variants
                .iter()
                .map(|name| {
                    let r = row(rows, name)?;
                    let l = r.lengths().ok_or_else(|| old_data(&r.name))?;
                    let m = mean_estimate(&l.ended_battles)
                        .ok_or_else(|| format!("`{name}` has no game that ended"))?;
                    Ok((r.cards as f64, m.mean, m.se.unwrap_or(0.0)))
                })
                .collect::<Result<_, String>>()?;
            let fit = power_law(&pts).ok_or("the power law could not be fitted")?;
            Ok(Ours {
                value: fit.exponent,
                se: fit.exponent_se,
                their_se: None,
                exact: false,
                how: format!(
                    "weighted least squares of ln(mean battles of ended games) on ln(cards in \
                     play) over {} decks ({}–{} cards); χ² = {:.1} on {} degrees of freedom \
                     (p {}): {} The local exponents between neighbouring decks, with their \
                     CIs, are under \"Length against a numeric setting\"",
                    fit.points,
                    pts.iter().map(|p| p.0 as u64).min().unwrap_or(0),
                    pts.iter().map(|p| p.0 as u64).max().unwrap_or(0),
                    fit.chi2,
                    fit.points - 2,
                    crate::format::p_is(fit.fit_p),
                    if fit.fit_p < 0.01 {
                        "the decks do not lie on one power law, so this exponent and its SE \
                         describe the best line through them, not an asymptotic exponent."
                    } else {
                        "consistent with one power law over these decks (a description of \
                         them, not of larger ones)."
                    }
                ),
            })
        }
        Statistic::LoopShare => {
            let r = row(rows, p.variant.as_deref().unwrap_or_default())?;
            let n = r.agg.games;
            if n == 0 {
                return Err(format!("`{}` has no games", r.name));
            }
            let k = r.agg.ended(warlab_engine::EndReason::Cycle);
            let share = k as f64 / n as f64;
            Ok(Ours {
                value: share,
                se: (share * (1.0 - share) / n as f64).sqrt(),
                their_se: None,
                exact: false,
                how: format!("{k} of {n} games looped (exact cycle detection)"),
            })
        }
        Statistic::CyclePeriod | Statistic::CycleStart => {
            let r = row(rows, p.variant.as_deref().unwrap_or_default())?;
            let h = if p.statistic == Statistic::CyclePeriod {
                &r.agg.cycle_periods
            } else {
                &r.agg.cycle_starts
            };
            let (Some(lo), Some(hi)) = (h.min(), h.max()) else {
                return Err(format!("`{}` did not loop", r.name));
            };
            if lo != hi {
                return Err(format!(
                    "`{}` looped with different {}",
                    r.name, p.statistic_name
                ));
            }
            Ok(Ours {
                value: lo as f64,
                se: 0.0,
                their_se: None,
                exact: true,
                how: "exact: the complete state repeated (Brent's cycle detection)".into(),
            })
        }
        Statistic::CasinoHouseEdge | Statistic::CasinoTieBetEdge => {
            let mut o = CasinoOptions::default();
            for (k, v) in &p.casino {
                o.set(k, v).map_err(|e| e.to_string())?;
            }
            let rules = CasinoRules::new(o).map_err(|e| e.to_string())?;
            let x = hand_value(rules.decks(), rules.strategy(), rules.bonus());
            let edge = if p.statistic == Statistic::CasinoHouseEdge {
                x.house_edge()
            } else {
                x.tie_bet_edge()
            };
            Ok(Ours {
                value: 100.0 * edge.to_f64(),
                se: 0.0,
                their_se: None,
                exact: true,
                how: format!("exact, in percent: {edge} of the bet (fresh shoe)"),
            })
        }
    }
}

/// A length statistic of a variant: from the exact histogram of battles, or of cards turned
/// (plays = cards turned / players), optionally without games longer than `cap`.
fn length(r: &Row, unit: LengthUnit, measure: Measure, p: &Published) -> Result<Ours, String> {
    let lengths = r.lengths().ok_or_else(|| old_data(&r.name))?;
    // Only the games that ended have a length; the others are said, not averaged.
    let (hist, scale, unit_name) = match unit {
        LengthUnit::Battles => (&lengths.ended_battles, 1.0, "battles"),
        LengthUnit::Plays => (&lengths.ended_cards, 1.0 / r.players.max(1) as f64, "plays"),
    };
    let mut kept = Hist::default();
    let mut dropped = 0;
    for (v, c) in hist.iter() {
        if p.cap.is_some_and(|cap| v as f64 * scale > cap as f64) {
            dropped += c;
        } else {
            kept.add_n(v, c);
        }
    }
    let n = kept.count();
    if n < 2 {
        return Err(format!("`{}` has too few games that ended", r.name));
    }
    let mut capped = match p.cap {
        Some(cap) => format!(
            "; {dropped} of {} ended games longer than {cap} {unit_name} left out, as the source did",
            n + dropped
        ),
        None => String::new(),
    };
    let unended = r.agg.games - lengths.ended();
    if unended > 0 {
        let _ = write!(
            capped,
            "; {unended} looping or capped games never ended and have no length"
        );
    }
    // A range the source gives over several runs already holds its sampling noise.
    let their_games = if p.range.is_some() { None } else { p.games };
    let m = mean_estimate(&kept).expect("n ≥ 2");
    let sd = m.sd.unwrap_or(0.0);
    match measure {
        Measure::Mean => Ok(Ours {
            value: m.mean * scale,
            se: m.se.unwrap_or(0.0) * scale,
            their_se: their_games.map(|g| sd * scale / (g as f64).sqrt()),
            exact: false,
            how: format!("mean {unit_name} of {n} games that ended{capped}"),
        }),
        Measure::Sd => {
            // SE of s: sqrt((m4 − s⁴) / n) / (2s), m4 the fourth central moment.
            let m4 = kept
                .iter()
                .map(|(v, c)| (v as f64 - m.mean).powi(4) * c as f64)
                .sum::<f64>()
                / n as f64;
            let se_for = |k: f64| ((m4 - sd.powi(4)).max(0.0) / k).sqrt() / (2.0 * sd);
            Ok(Ours {
                value: sd * scale,
                se: se_for(n as f64) * scale,
                their_se: their_games.map(|g| se_for(g as f64) * scale),
                exact: false,
                how: format!("standard deviation of {unit_name} over {n} games that ended{capped}"),
            })
        }
        Measure::Quantile(q) => {
            let at = |x: f64| kept.quantile(x.clamp(1e-12, 1.0)).unwrap_or(0) as f64 * scale;
            // Distribution-free: the quantile's rank is binomial, so its ±1 SE band is the
            // quantiles at q ± sqrt(q(1 − q)/n).
            let band = |k: f64| {
                let h = (q * (1.0 - q) / k).sqrt();
                (at(q + h) - at(q - h)) / 2.0
            };
            Ok(Ours {
                value: at(q),
                se: band(n as f64),
                their_se: their_games.map(|g| band(g as f64)),
                exact: false,
                how: format!(
                    "nearest-rank {}th percentile of {unit_name} over {n} games that ended{capped}",
                    (q * 100.0).round()
                ),
            })
        }
    }
}

/// The probability that seat 0 wins each of the first `n/2` battles with no tie, for a deck of
/// `ranks × suits` cards dealt at random to two players (any total ranking).
///
/// For a fixed sequence of unordered pairs, swapping the two cards of any pair is a bijection
/// of deals, so the 2^(n/2) orientations are equally likely and exactly one has seat 0 win
/// every pair: P(sweep) = P(no pair is a tie) / 2^(n/2). P(no tie) follows the deal pair by
/// pair; it depends only on how many ranks have 1, 2, … copies left, so the states are
/// multiplicity profiles (as in Norvig's "abstract deck").
pub fn p_sweep(ranks: usize, suits: usize) -> Option<f64> {
    if ranks * suits > 4096 || suits > 16 {
        return None;
    }
    let mut start = vec![0u16; suits + 1];
    start[suits] = ranks as u16;
    let mut states: HashMap<Vec<u16>, f64> = HashMap::from([(start, 1.0)]);
    let pairs = ranks * suits / 2;
    for _ in 0..pairs {
        let mut next: HashMap<Vec<u16>, f64> = HashMap::new();
        for (state, p) in states {
            let left: usize = state.iter().enumerate().map(|(i, c)| i * *c as usize).sum();
            // Seat 0's card: from a rank with i copies left.
            for i in 1..state.len() {
                if state[i] == 0 {
                    continue;
                }
                let p_i = (i * state[i] as usize) as f64 / left as f64;
                let mut one = state.clone();
                one[i] -= 1;
                one[i - 1] += 1;
                // Seat 1's card: any other rank (a tie ends the sweep).
                for j in 1..one.len() {
                    let ranks_j = one[j] as usize - usize::from(j == i - 1);
                    if ranks_j == 0 {
                        continue;
                    }
                    let p_j = (j * ranks_j) as f64 / (left - 1) as f64;
                    let mut two = one.clone();
                    two[j] -= 1;
                    two[j - 1] += 1;
                    two[0] = 0;
                    *next.entry(two).or_insert(0.0) += p * p_i * p_j;
                }
            }
        }
        states = next;
    }
    let no_tie: f64 = states.values().sum();
    Some(no_tie / 2f64.powi(pairs as i32))
}

fn fmt_value(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e7) {
        format!("{x:.15e}")
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

/// A difference or tolerance: enough digits to compare, no more.
fn fmt_small(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-3 {
        format!("{x:.2e}")
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

/// The report section: one row per published figure, then the notes.
pub(crate) fn section(
    md: &mut String,
    figs: &Figures,
    rows: &[Row],
    published: &[Published],
) -> anyhow::Result<()> {
    if published.is_empty() {
        return Ok(());
    }
    md.push_str(
        "## Published figures\n\n\
         Each figure from the literature beside warlab's value of the same statistic under the \
         source's rules. *± SE* is warlab's standard error; *theirs* is the source's own \
         sampling error, estimated from warlab's distribution and the source's sample size \
         when it states one; a range the source gives over several runs already holds that \
         noise, so nothing is added to it. A figure **agrees** when the difference is at most 2.58 combined \
         standard errors (99 %) plus the published rounding; exact quantities must be equal \
         up to that rounding. Where a figure does not agree, the note says why.\n\n\
         | # | source | figure | variant | published | warlab | ± SE (theirs) | difference / tolerance | agrees |\n\
         |---:|---|---|---|---:|---:|---:|---:|---|\n",
    );
    let verdicts = evaluate(rows, published);
    for (i, (p, v)) in published.iter().zip(&verdicts).enumerate() {
        let published_text = match (p.value, p.range) {
            (Some(x), _) => fmt_value(x),
            (None, Some((lo, hi))) if hi.is_infinite() => format!("≥ {}", fmt_value(lo)),
            (None, Some((lo, hi))) => format!("{}–{}", fmt_value(lo), fmt_value(hi)),
            _ => "–".into(),
        };
        let variant = p
            .variant
            .clone()
            .map(|v| format!("`{v}`"))
            .or_else(|| {
                (!p.casino.is_empty()).then(|| {
                    p.casino
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
            })
            .or_else(|| (!p.variants.is_empty()).then(|| format!("{} variants", p.variants.len())))
            .unwrap_or_else(|| format!("{} × {} deck", p.deck.0, p.deck.1));
        let _ = write!(
            md,
            "| {} | {} | {} (`{}`) | {} | {} |",
            i + 1,
            p.source,
            p.figure,
            p.statistic_name,
            variant,
            published_text,
        );
        match v {
            Ok(v) => {
                let _ = writeln!(
                    md,
                    " {} | {} | {} / {} | {} |",
                    fmt_value(v.ours.value),
                    if v.ours.exact {
                        "exact".to_string()
                    } else {
                        format!(
                            "{:.3}{}",
                            v.ours.se,
                            match (v.ours.their_se, p.statistic) {
                                (Some(t), _) => format!(" ({t:.3})"),
                                (None, Statistic::Length { .. }) if p.range.is_some() => {
                                    " (in their range)".into()
                                }
                                (None, Statistic::Length { .. }) => " (n not stated)".into(),
                                (None, _) => String::new(),
                            }
                        )
                    },
                    fmt_small(v.distance),
                    fmt_small(v.tolerance),
                    if v.agrees {
                        "**agrees**"
                    } else {
                        "**differs**"
                    },
                );
            }
            Err(e) => {
                let _ = writeln!(md, " – | – | – | not computed: {e} |");
            }
        }
    }
    md.push_str("\nHow each warlab value was obtained, and notes on the sources:\n\n");
    for (i, (p, v)) in published.iter().zip(&verdicts).enumerate() {
        let how = v.as_ref().map_or("–".to_string(), |v| v.ours.how.clone());
        let _ = write!(md, "{}. {how}.", i + 1);
        if let Some(n) = &p.note {
            let _ = write!(md, " {n}");
        }
        md.push('\n');
    }
    md.push('\n');
    figure(md, figs, published, &verdicts)
}

/// Each published figure (at 0) and warlab's value beside it, as % of the published value, both
/// with 95 % intervals: the source's own sampling error or range, warlab's standard error.
/// Figures of a published zero, and warlab's exact values, stay in the table only.
fn figure(
    md: &mut String,
    figs: &Figures,
    published: &[Published],
    verdicts: &[Result<Verdict, String>],
) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for (i, (p, v)) in published.iter().zip(verdicts).enumerate() {
        // An exact value (a formula, not a sample) agrees or not in the table: no interval.
        let Ok(v) = v else { continue };
        if v.ours.exact {
            continue;
        }
        let (reference, half) = match (p.value, p.range) {
            (Some(x), _) => (x, 1.96 * v.ours.their_se.unwrap_or(0.0)),
            (None, Some((lo, hi))) if hi.is_finite() => ((lo + hi) / 2.0, (hi - lo) / 2.0),
            _ => continue,
        };
        if reference == 0.0 || !reference.is_finite() {
            continue;
        }
        let pct = |x: f64| 100.0 * x / reference.abs();
        let name = format!("#{} {}", i + 1, p.statistic_name);
        rows.push((format!("{name}: published"), 0.0, -pct(half), pct(half)));
        let d = pct(v.ours.value - reference);
        let w = pct(1.96 * v.ours.se);
        rows.push((format!("{name}: warlab"), d, d - w, d + w));
    }
    if rows.len() < 2 {
        return Ok(());
    }
    show(
        md,
        figs,
        "published",
        Forest {
            title: "Published figures and warlab's, in % of the published value".into(),
            x_desc: "difference from the published value, % (95 % intervals)".into(),
            rows,
        },
        "Each published figure (at 0, with the source's own sampling error or range where \
         known) and warlab's value of the same statistic under the source's rules (with its \
         95 % CI), both in % of the published value; the numbers are those of the table above \
         (warlab's exact values, computed rather than simulated, are in the table only).",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlab_engine::{Cycle, EndReason, GameRecord};
    use warlab_stats::Aggregate;

    /// Ended games of 10, 20, …, 100 battles and 5 loops of 10,000 recorded battles.
    fn looping_row() -> Row {
        let mut agg = Aggregate::default();
        let mut add = |g: u64, battles: u64, end: EndReason| {
            agg.add(
                g,
                &GameRecord {
                    battles,
                    wars: 0,
                    deepest_war: 0,
                    cards_turned: 2 * battles,
                    lead_changes: 0,
                    winner: end.finished().then_some(1),
                    end,
                    cycle: (end == EndReason::Cycle).then_some(Cycle {
                        start: 0,
                        period: battles,
                    }),
                },
            )
        };
        for g in 0..10 {
            add(g, 10 * (g + 1), EndReason::AllCards);
        }
        for g in 10..15 {
            add(g, 10_000, EndReason::Cycle);
        }
        Row {
            name: "v".into(),
            rules: Vec::new(),
            settings: Vec::new(),
            players: 2,
            cards: 52,
            fixed_deal: false,
            lengths: agg.lengths(),
            agg,
        }
    }

    fn mean_of(value: Option<f64>, range: Option<(f64, f64)>, games: Option<u64>) -> Published {
        Published {
            source: "s".into(),
            figure: "f".into(),
            statistic: Statistic::parse("battles_mean").unwrap(),
            statistic_name: "battles_mean".into(),
            variant: Some("v".into()),
            variants: Vec::new(),
            value,
            range,
            decimals: 0,
            exact: false,
            games,
            cap: None,
            casino: Vec::new(),
            deck: (13, 4),
            note: None,
        }
    }

    #[test]
    fn lengths_are_of_ended_games_and_a_range_adds_no_sampling_error_of_theirs() {
        let rows = [looping_row()];
        // The mean of the ten ended games (55), not of all 15 (3,370).
        let v = verdict(&rows, &mean_of(Some(55.0), None, Some(100))).unwrap();
        assert_eq!(v.ours.value, 55.0);
        // Sample variance of 10, 20, …, 100: 100 × 55/6.
        let sd = (5_500.0f64 / 6.0).sqrt();
        assert!((v.ours.se - sd / 10f64.sqrt()).abs() < 1e-9, "{:?}", v.ours);
        assert!(
            v.ours.how.contains("5 looping or capped games"),
            "{}",
            v.ours.how
        );
        // Their sampling error for a single published value of 100 games...
        assert!((v.ours.their_se.unwrap() - sd / 10.0).abs() < 1e-9);
        // ...but none for a range over runs: it holds that noise already.
        let v = verdict(&rows, &mean_of(None, Some((50.0, 56.0)), Some(100))).unwrap();
        assert_eq!(v.ours.their_se, None);
        assert_eq!(v.distance, 0.0);
        let v = verdict(&rows, &mean_of(None, Some((60.0, 70.0)), Some(100))).unwrap();
        assert!((v.tolerance - Z_AGREE * sd / 10f64.sqrt()).abs() < 1e-9);
        // A lower bound: anything above it agrees.
        let v = verdict(&rows, &mean_of(None, Some((40.0, f64::INFINITY)), None)).unwrap();
        assert!(v.agrees && v.distance == 0.0);
    }

    /// Every distinct order of a small deck, dealt alternately: does seat 0 win every pair?
    fn brute_force(ranks: usize, suits: usize) -> f64 {
        let mut deck: Vec<usize> = (0..ranks * suits).map(|c| c % ranks).collect();
        deck.sort_unstable();
        let (mut sweeps, mut total) = (0u64, 0u64);
        loop {
            total += 1;
            if deck.chunks_exact(2).all(|p| p[0] > p[1]) {
                sweeps += 1;
            }
            // Next distinct permutation (lexicographic).
            let Some(i) = (1..deck.len()).rev().find(|&i| deck[i - 1] < deck[i]) else {
                break;
            };
            let j = (i..deck.len())
                .rev()
                .find(|&j| deck[j] > deck[i - 1])
                .unwrap();
            deck.swap(i - 1, j);
            deck[i..].reverse();
        }
        sweeps as f64 / total as f64
    }

    #[test]
    fn sweep_probability_equals_brute_force_on_small_decks() {
        for (r, s) in [
            (2, 1),
            (4, 1),
            (6, 1),
            (8, 1),
            (2, 2),
            (2, 3),
            (3, 2),
            (2, 4),
            (4, 2),
            (3, 3),
            (5, 2),
        ] {
            let exact = p_sweep(r, s).unwrap();
            let brute = brute_force(r, s);
            assert!((exact - brute).abs() < 1e-12, "{r}×{s}: {exact} vs {brute}");
        }
        // Distinct cards never tie: (1/2)^(n/2).
        assert_eq!(p_sweep(8, 1), Some(1.0 / 16.0));
        assert!((p_sweep(2, 2).unwrap() - 1.0 / 6.0).abs() < 1e-15);
    }

    #[test]
    fn sweep_probability_of_a_full_deck_matches_norvig() {
        let p = p_sweep(13, 4).unwrap();
        assert!((p / 3.132_436_174_322_294e-9 - 1.0).abs() < 1e-12, "{p:e}");
    }
}
