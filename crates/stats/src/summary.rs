//! One summary row per variant, computed from its [`Aggregate`]: every estimate with its
//! uncertainty.
//!
//! - Means come with the standard deviation, the standard error and a 95 % confidence interval
//!   from Student's t (n − 1 degrees of freedom).
//! - Quantiles are exact nearest-rank quantiles of the exact histogram.
//! - Shares (end reasons, wins, loops) come with 95 % Wilson score intervals, which stay
//!   meaningful at 0 % and 100 % (the upper bound of a share never seen).
//! - Lengths (battles, wars, cards turned, lead changes) are those of the games that ended
//!   (`ended_*`). A looping game never ends and a capped game was stopped before it did: neither
//!   has a length to average. They are counted in their own shares (`cycle_share`,
//!   `share_capped`), never in a mean and never dropped.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use warlab_engine::EndReason;

use crate::aggregate::{Aggregate, Hist};

/// A summary cell: the data crate turns a column of them into a typed column. A missing value
/// keeps its type, so that a column has one type in every run, whatever its values.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A count.
    Int(i64),
    /// A value; not finite is written as null.
    Float(f64),
    /// Text (an option's value).
    Text(String),
    /// No count (nothing to count from).
    NullInt,
    /// No value (nothing to estimate).
    NullFloat,
}

impl Cell {
    pub(crate) fn opt_int(v: Option<u64>) -> Cell {
        v.map_or(Cell::NullInt, |v| Cell::Int(v as i64))
    }

    pub(crate) fn opt_float(v: Option<f64>) -> Cell {
        match v {
            Some(x) if x.is_finite() => Cell::Float(x),
            _ => Cell::NullFloat,
        }
    }
}

/// Mean, spread and interval of an exact histogram.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanEstimate {
    /// Values counted.
    pub n: u64,
    /// Their mean.
    pub mean: f64,
    /// Their standard deviation (`None` below 2 values).
    pub sd: Option<f64>,
    /// The mean's standard error.
    pub se: Option<f64>,
    /// The mean's 95 % CI (Student's t).
    pub ci: Option<(f64, f64)>,
}

/// Mean, SD, SE and 95 % CI of a histogram; `None` when it is empty.
pub fn mean_estimate(h: &Hist) -> Option<MeanEstimate> {
    let n = h.count();
    if n == 0 {
        return None;
    }
    let (s, q) = h.sums();
    let mean = s as f64 / n as f64;
    if n < 2 {
        return Some(MeanEstimate {
            n,
            mean,
            sd: None,
            se: None,
            ci: None,
        });
    }
    // Exact in integers: n·Σx² − (Σx)² = n(n−1)·s².
    let n128 = u128::from(n);
    let var = (n128 * q - s * s) as f64 / (n as f64 * (n - 1) as f64);
    let sd = var.sqrt();
    let se = sd / (n as f64).sqrt();
    let t = t975(n - 1);
    Some(MeanEstimate {
        n,
        mean,
        sd: Some(sd),
        se: Some(se),
        ci: Some((mean - t * se, mean + t * se)),
    })
}

/// The 97.5 % quantile of Student's t with `df` degrees of freedom.
pub fn t975(df: u64) -> f64 {
    t975_f(df as f64)
}

/// [`t975`] for fractional degrees of freedom (Welch). Above 10⁴ degrees of freedom the
/// Cornish–Fisher expansion `z + (z³ + z)/(4ν) + (5z⁵ + 16z³ + 3z)/(96ν²)` is exact to better
/// than 10⁻¹⁰, and statrs' iterative inverse becomes very slow for millions of degrees of
/// freedom.
pub fn t975_f(df: f64) -> f64 {
    if df > 1e4 {
        let z = z975();
        let (z3, z5) = (z.powi(3), z.powi(5));
        return z + (z3 + z) / (4.0 * df) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df);
    }
    StudentsT::new(0.0, 1.0, df)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(f64::NAN)
}

/// The 97.5 % quantile of the standard normal.
pub fn z975() -> f64 {
    Normal::standard().inverse_cdf(0.975)
}

/// The 95 % Wilson score interval of `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let z = z975();
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// The per-variant columns after `variant` and the rule options, in order.
pub fn summary_cells(a: &Aggregate, players: usize) -> Vec<(String, Cell)> {
    let mut out = vec![("n".to_string(), Cell::Int(a.games as i64))];
    // An aggregate from an old file whose loops or caps were not kept apart: no ended-game
    // statistic can be known, so they are empty rather than wrong.
    let lengths = a.lengths();
    let none = Hist::default();
    let (ended, wars, cards, lead) = match &lengths {
        Some(l) => (
            &l.ended_battles,
            &l.ended_wars,
            &l.ended_cards,
            &l.ended_lead_changes,
        ),
        None => (&none, &none, &none, &none),
    };
    out.push((
        "ended_n".into(),
        lengths
            .as_ref()
            .map_or(Cell::NullInt, |l| Cell::Int(l.ended() as i64)),
    ));
    match &lengths {
        Some(l) => share(&mut out, "ended_share", l.ended(), a.games),
        None => null_share(&mut out, "ended_share"),
    }
    for (prefix, h) in [
        ("ended_battles", ended),
        ("ended_wars", wars),
        ("ended_cards", cards),
    ] {
        metric(&mut out, prefix, h);
    }
    let lead = mean_estimate(lead);
    out.push((
        "ended_lead_changes_mean".into(),
        Cell::opt_float(lead.map(|m| m.mean)),
    ));
    out.push((
        "ended_lead_changes_se".into(),
        Cell::opt_float(lead.and_then(|m| m.se)),
    ));
    // The deepest war any game saw: a loop's period is played in full before it is found.
    out.push(("deepest_war_max".into(), Cell::opt_int(a.deepest_war.max())));
    for end in EndReason::ALL {
        share(
            &mut out,
            &format!("share_{}", end.name()),
            a.ended(end),
            a.games,
        );
    }
    share(&mut out, "cycle_share", a.ended(EndReason::Cycle), a.games);
    let period = mean_estimate(&a.cycle_periods);
    out.push((
        "cycle_periods_distinct".into(),
        Cell::Int(a.cycle_examples.len() as i64),
    ));
    out.push((
        "cycle_period_mean".into(),
        Cell::opt_float(period.map(|m| m.mean)),
    ));
    out.push((
        "cycle_period_median".into(),
        Cell::opt_int(a.cycle_periods.quantile(0.5)),
    ));
    out.push((
        "cycle_period_min".into(),
        Cell::opt_int(a.cycle_periods.min()),
    ));
    out.push((
        "cycle_period_max".into(),
        Cell::opt_int(a.cycle_periods.max()),
    ));
    let start = mean_estimate(&a.cycle_starts);
    out.push((
        "cycle_start_mean".into(),
        Cell::opt_float(start.map(|m| m.mean)),
    ));
    out.push((
        "cycle_start_median".into(),
        Cell::opt_int(a.cycle_starts.quantile(0.5)),
    ));
    out.push((
        "cycle_start_max".into(),
        Cell::opt_int(a.cycle_starts.max()),
    ));
    for seat in 0..crate::aggregate::SEATS {
        let name = format!("win_share_{seat}");
        if seat < players {
            share(&mut out, &name, a.wins(seat), a.games);
        } else {
            null_share(&mut out, &name);
        }
    }
    out.push(("draws".into(), Cell::Int(a.draws() as i64)));
    share(&mut out, "draw_share", a.draws(), a.games);
    out
}

pub(crate) fn metric(out: &mut Vec<(String, Cell)>, prefix: &str, h: &Hist) {
    let m = mean_estimate(h);
    let cells = [
        ("mean", Cell::opt_float(m.map(|m| m.mean))),
        ("sd", Cell::opt_float(m.and_then(|m| m.sd))),
        ("se", Cell::opt_float(m.and_then(|m| m.se))),
        ("ci_lo", Cell::opt_float(m.and_then(|m| m.ci).map(|c| c.0))),
        ("ci_hi", Cell::opt_float(m.and_then(|m| m.ci).map(|c| c.1))),
        ("p25", Cell::opt_int(h.quantile(0.25))),
        ("median", Cell::opt_int(h.quantile(0.5))),
        ("p75", Cell::opt_int(h.quantile(0.75))),
        ("p90", Cell::opt_int(h.quantile(0.9))),
        ("p95", Cell::opt_int(h.quantile(0.95))),
        ("p99", Cell::opt_int(h.quantile(0.99))),
        ("max", Cell::opt_int(h.max())),
    ];
    for (name, c) in cells {
        out.push((format!("{prefix}_{name}"), c));
    }
}

fn null_share(out: &mut Vec<(String, Cell)>, name: &str) {
    for suffix in ["", "_ci_lo", "_ci_hi"] {
        out.push((format!("{name}{suffix}"), Cell::NullFloat));
    }
}

pub(crate) fn share(out: &mut Vec<(String, Cell)>, name: &str, k: u64, n: u64) {
    let ci = wilson(k, n);
    out.push((
        name.to_string(),
        Cell::opt_float((n > 0).then(|| k as f64 / n as f64)),
    ));
    out.push((format!("{name}_ci_lo"), Cell::opt_float(ci.map(|c| c.0))));
    out.push((format!("{name}_ci_hi"), Cell::opt_float(ci.map(|c| c.1))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlab_engine::{Cycle, GameRecord};

    fn game(battles: u64, end: EndReason) -> GameRecord {
        GameRecord {
            battles,
            wars: battles / 10,
            deepest_war: 1,
            cards_turned: 2 * battles + 7,
            lead_changes: battles / 5,
            winner: end.finished().then_some(0),
            end,
            cycle: (end == EndReason::Cycle).then_some(Cycle {
                start: battles / 4,
                period: battles - battles / 4,
            }),
        }
    }

    fn cell<'a>(cells: &'a [(String, Cell)], name: &str) -> &'a Cell {
        &cells
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no column {name}"))
            .1
    }

    fn float(cells: &[(String, Cell)], name: &str) -> f64 {
        match cell(cells, name) {
            Cell::Float(x) => *x,
            c => panic!("{name} is {c:?}"),
        }
    }

    /// Four games that ended, two loops and one capped game: every length column is the plain
    /// sample statistic of the four ended games, computed here without histograms; the loops
    /// and the capped game are shares only.
    #[test]
    fn lengths_are_those_of_the_ended_games() {
        let ended = [10u64, 20, 30, 40];
        let mut a = Aggregate::default();
        for (i, b) in ended.iter().enumerate() {
            a.add(i as u64, &game(*b, EndReason::AllCards));
        }
        a.add(4, &game(1000, EndReason::Cycle));
        a.add(5, &game(2000, EndReason::Cycle));
        a.add(6, &game(500, EndReason::Capped));
        let c = summary_cells(&a, 2);
        assert_eq!(cell(&c, "n"), &Cell::Int(7));
        assert_eq!(cell(&c, "ended_n"), &Cell::Int(4));
        assert!((float(&c, "ended_share") - 4.0 / 7.0).abs() < 1e-12);
        let naive = |xs: &[f64]| {
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (mean, var.sqrt())
        };
        let t3 = 3.182_446_305_284_263; // t(0.975, 3)
        for (prefix, xs) in [
            ("ended_battles", ended.map(|b| b as f64)),
            ("ended_wars", ended.map(|b| (b / 10) as f64)),
            ("ended_cards", ended.map(|b| (2 * b + 7) as f64)),
        ] {
            let (mean, sd) = naive(&xs);
            let se = sd / 2.0;
            assert!((float(&c, &format!("{prefix}_mean")) - mean).abs() < 1e-9);
            assert!((float(&c, &format!("{prefix}_sd")) - sd).abs() < 1e-9);
            assert!((float(&c, &format!("{prefix}_se")) - se).abs() < 1e-9);
            assert!((float(&c, &format!("{prefix}_ci_lo")) - (mean - t3 * se)).abs() < 1e-6);
            assert!((float(&c, &format!("{prefix}_ci_hi")) - (mean + t3 * se)).abs() < 1e-6);
            // Nearest rank: the 2nd of 4 for the median, the 4th for p90 and p99.
            let int = |q: &str| cell(&c, &format!("{prefix}_{q}")).clone();
            assert_eq!(int("median"), Cell::Int(xs[1] as i64));
            assert_eq!(int("p90"), Cell::Int(xs[3] as i64));
            assert_eq!(int("p99"), Cell::Int(xs[3] as i64));
            assert_eq!(int("max"), Cell::Int(xs[3] as i64));
        }
        assert!((float(&c, "ended_lead_changes_mean") - 5.0).abs() < 1e-12);
        assert!((float(&c, "cycle_share") - 2.0 / 7.0).abs() < 1e-12);
        assert!((float(&c, "share_cycle") - 2.0 / 7.0).abs() < 1e-12);
        assert!((float(&c, "share_capped") - 1.0 / 7.0).abs() < 1e-12);
        let (lo, hi) = wilson(1, 7).unwrap();
        assert_eq!(float(&c, "share_capped_ci_lo"), lo);
        assert_eq!(float(&c, "share_capped_ci_hi"), hi);
        assert_eq!(cell(&c, "cycle_start_median"), &Cell::Int(250));
        // No all-game length column is left to be read as a length.
        assert!(c.iter().all(|(n, _)| !n.starts_with("battles_")));
    }

    /// An aggregates file of an older warlab has no `lengths`: where no game looped or was
    /// capped they are the all-game counts; otherwise the ended columns stay empty.
    #[test]
    fn older_aggregates_give_ended_columns_only_where_they_are_known() {
        let mut clean = Aggregate::default();
        let mut looped = Aggregate::default();
        for (i, b) in [12u64, 30, 18].iter().enumerate() {
            clean.add(i as u64, &game(*b, EndReason::AllCards));
            looped.add(i as u64, &game(*b, EndReason::AllCards));
        }
        looped.add(3, &game(400, EndReason::Cycle));
        let strip = |a: &Aggregate| {
            let mut v = serde_json::to_value(a).unwrap();
            v.as_object_mut().unwrap().remove("unended");
            serde_json::from_value::<Aggregate>(v).unwrap()
        };
        let old = strip(&clean);
        assert_eq!(old.unended, None);
        assert_eq!(summary_cells(&old, 2), summary_cells(&clean, 2));
        let old = strip(&looped);
        let c = summary_cells(&old, 2);
        assert_eq!(cell(&c, "ended_n"), &Cell::NullInt);
        assert_eq!(cell(&c, "ended_battles_mean"), &Cell::NullFloat);
        assert!((float(&c, "cycle_share") - 0.25).abs() < 1e-12);
        // Merged with a new aggregate, an old one that cannot be split stays unknown; one that
        // can be split adds up.
        let mut m = old.clone();
        m.merge(&looped);
        assert_eq!(m.unended, None);
        let mut m = strip(&clean);
        m.merge(&looped);
        let mut want = clean.clone();
        want.merge(&looped);
        assert_eq!(m, want);
    }

    #[test]
    fn mean_and_interval_of_known_sample() {
        let mut h = Hist::default();
        for v in [2u64, 4, 4, 4, 5, 5, 7, 9] {
            h.add(v);
        }
        let m = mean_estimate(&h).unwrap();
        assert_eq!(m.mean, 5.0);
        // Sample variance 32/7.
        assert!((m.sd.unwrap() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        let (lo, hi) = m.ci.unwrap();
        let t = 2.364_624_251_592_785; // t(0.975, 7)
        assert!((hi - lo - 2.0 * t * m.se.unwrap()).abs() < 1e-9);
    }

    #[test]
    fn t_quantile_is_continuous_across_the_expansion() {
        let exact = StudentsT::new(0.0, 1.0, 1e4).unwrap().inverse_cdf(0.975);
        assert!((t975_f(1e4 + 1e-9) - exact).abs() < 1e-9, "{exact}");
        assert!((t975(7) - 2.364_624_251_592_785).abs() < 1e-9);
        assert!((t975(1_000_000_000) - z975()).abs() < 1e-8);
    }

    #[test]
    fn wilson_bounds_the_zero_case() {
        let (lo, hi) = wilson(0, 1000).unwrap();
        assert_eq!(lo, 0.0);
        // About 3.84 / 1003.84.
        assert!((hi - 0.003_825).abs() < 1e-4, "{hi}");
        let (lo, hi) = wilson(500, 1000).unwrap();
        assert!(lo < 0.5 && hi > 0.5 && (hi - lo - 0.0619).abs() < 1e-3);
    }
}
