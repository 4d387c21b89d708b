//! Casino War's statistics: a "game" of the runner is one bankroll session.
//!
//! [`CasinoAggregate`] keeps exact integer counts of sessions, like [`crate::Aggregate`] does
//! for War: the distribution of hands played, how sessions ended, the final bankrolls, and the
//! sums the money estimates need. Two estimates of the main bet's value come out of it:
//!
//! - **fresh-shoe hands**: the first hand after every shuffle. Its expectation is exactly the
//!   fresh-shoe value [`warlab_casino::exact::hand_value`] computes, so the two must agree
//!   within the interval; the hands are independent (each from its own shuffle).
//! - **all hands**: Σ result / Σ hands over sessions, a ratio of sums of independent sessions,
//!   with a delta-method standard error. Hands dealt deep into a shoe see its depleted
//!   composition (the cut-card effect), so this may differ from the fresh-shoe value by a
//!   small real amount; for an infinite deck, or `penetration = 0`, it is the same quantity.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use warlab_casino::exact::{Exact, hand_value};
use warlab_casino::{CasinoRules, Decks, HandCounts, SessionEnd, SessionRecord};

use crate::aggregate::Hist;
use crate::summary::{Cell, mean_estimate, metric, share, t975};

/// A 128-bit integer kept as a decimal string in JSON (JSON numbers stop at 64 bits).
pub(crate) mod wide {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer, T: ToString>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: std::str::FromStr>(
        d: D,
    ) -> Result<T, D::Error> {
        let s = String::deserialize(d)?;
        s.parse()
            .map_err(|_| serde::de::Error::custom(format!("not an integer: {s}")))
    }
}

/// Sums over sessions of `x`, `x²` and `x·hands`: with the hands' own sums they give a ratio
/// estimate per hand and its standard error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatioSums {
    /// Σ x.
    #[serde(with = "wide")]
    pub x: i128,
    /// Σ x².
    #[serde(with = "wide")]
    pub xx: u128,
    /// Σ x·hands.
    #[serde(with = "wide")]
    pub xh: i128,
}

impl RatioSums {
    fn add(&mut self, x: i64, hands: u64) {
        let x = i128::from(x);
        self.x += x;
        self.xx += (x * x) as u128;
        self.xh += x * i128::from(hands);
    }

    fn merge(&mut self, o: &RatioSums) {
        self.x += o.x;
        self.xx += o.xx;
        self.xh += o.xh;
    }
}

/// Everything a Casino War summary needs about a set of sessions, mergeable by addition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CasinoAggregate {
    /// Sessions counted.
    pub sessions: u64,
    /// Hands per session.
    pub hands: Hist,
    /// Sessions by how they ended, in [`SessionEnd::ALL`] order.
    pub ends: [u64; 4],
    /// Bankroll at the end, in half-chips.
    pub final_bankroll: Hist,
    /// The hands of every session, counted by kind (in the file, their fields beside the
    /// others').
    #[serde(flatten)]
    pub counts: HandCounts,
    /// Per session: the main bet's result (half-bets) against hands played.
    pub main: RatioSums,
    /// Per session: the ties against hands played.
    pub tie_count: RatioSums,
    /// Hands per session in blocks of [`BLOCK`](crate::BLOCK) sessions:
    /// `[sessions, Σ hands, Σ hands²]`.
    pub blocks: BTreeMap<u64, [u64; 3]>,
}

impl CasinoAggregate {
    /// Counts one session.
    pub fn add(&mut self, r: &SessionRecord) {
        self.sessions += 1;
        self.hands.add(r.hands);
        let end = r.end.expect("a played session has ended");
        self.ends[end_index(end)] += 1;
        self.final_bankroll.add(r.final_bankroll.max(0) as u64);
        self.counts.add(&r.counts);
        self.main.add(r.main, r.hands);
        self.tie_count.add(r.counts.ties as i64, r.hands);
    }

    /// Adds another aggregate's counts (any order gives the same result).
    pub fn merge(&mut self, o: &CasinoAggregate) {
        self.sessions += o.sessions;
        self.hands.merge(&o.hands);
        for (m, t) in self.ends.iter_mut().zip(&o.ends) {
            *m += t;
        }
        self.final_bankroll.merge(&o.final_bankroll);
        self.counts.add(&o.counts);
        self.main.merge(&o.main);
        self.tie_count.merge(&o.tie_count);
        crate::aggregate::merge_blocks(&mut self.blocks, &o.blocks);
    }

    /// Sessions that ended for `end`.
    pub fn ended(&self, end: SessionEnd) -> u64 {
        self.ends[end_index(end)]
    }

    /// The main bet's value per chip bet over fresh-shoe hands: (mean, standard error).
    pub fn fresh_value(&self) -> Option<Estimate> {
        let n = self.counts.fresh;
        (n >= 2).then(|| {
            let nf = n as f64;
            let mean = self.counts.fresh_main as f64 / nf;
            let var = (self.counts.fresh_main_sq as f64 - nf * mean * mean) / (nf - 1.0);
            Estimate::new(mean / 2.0, (var.max(0.0) / nf).sqrt() / 2.0, n - 1)
        })
    }

    /// The main bet's value per chip bet over every hand (a ratio of session sums).
    pub fn all_hands_value(&self) -> Option<Estimate> {
        self.ratio(&self.main).map(|e| Estimate {
            mean: e.mean / 2.0,
            se: e.se / 2.0,
            ci: (e.ci.0 / 2.0, e.ci.1 / 2.0),
        })
    }

    /// Ties per hand over every hand.
    pub fn tie_rate(&self) -> Option<Estimate> {
        self.ratio(&self.tie_count)
    }

    fn ratio(&self, s: &RatioSums) -> Option<Estimate> {
        let n = self.sessions;
        let (h, hh) = self.hands.sums();
        if n < 2 || h == 0 {
            return None;
        }
        let (nf, h, hh) = (n as f64, h as f64, hh as f64);
        let r = s.x as f64 / h;
        // Residuals d = x − r·hands: Σd² = Σx² − 2rΣxh + r²Σh².
        let dd = s.xx as f64 - 2.0 * r * s.xh as f64 + r * r * hh;
        let mean_h = h / nf;
        let se = (dd.max(0.0) / (nf - 1.0) / nf).sqrt() / mean_h;
        Some(Estimate::new(r, se, n - 1))
    }
}

/// A mean with its standard error and 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The estimate.
    pub mean: f64,
    /// Its standard error.
    pub se: f64,
    /// Its 95 % CI (Student's t).
    pub ci: (f64, f64),
}

impl Estimate {
    fn new(mean: f64, se: f64, df: u64) -> Estimate {
        let t = t975(df.max(1));
        Estimate {
            mean,
            se,
            ci: (mean - t * se, mean + t * se),
        }
    }

    /// True when `value` lies inside the 95 % interval.
    pub fn covers(&self, value: f64) -> bool {
        self.ci.0 <= value && value <= self.ci.1
    }
}

/// The index of a session end in [`SessionEnd::ALL`] (and in [`CasinoAggregate::ends`]).
pub fn end_index(e: SessionEnd) -> usize {
    SessionEnd::ALL
        .iter()
        .position(|x| *x == e)
        .expect("ALL lists every session end")
}

/// The exact values of a table's hand: fresh shoe of its decks, and an infinite deck.
pub fn exact_values(rules: &CasinoRules) -> (Exact, Exact) {
    (
        hand_value(rules.decks(), rules.strategy(), rules.bonus()),
        hand_value(Decks::Infinite, rules.strategy(), rules.bonus()),
    )
}

/// The per-variant summary columns of a Casino War run, after `variant` and the options.
pub fn casino_summary_cells(a: &CasinoAggregate, rules: &CasinoRules) -> Vec<(String, Cell)> {
    let mut out = vec![("sessions".to_string(), Cell::Int(a.sessions as i64))];
    metric(&mut out, "hands", &a.hands);
    for end in SessionEnd::ALL {
        share(
            &mut out,
            &format!("share_{}", end.name()),
            a.ended(end),
            a.sessions,
        );
    }
    let bank = mean_estimate(&a.final_bankroll);
    let chips = |v: Option<f64>| Cell::opt_float(v.map(|x| x / 2.0));
    out.push(("final_bankroll_mean".into(), chips(bank.map(|m| m.mean))));
    out.push(("final_bankroll_se".into(), chips(bank.and_then(|m| m.se))));
    let (fresh, infinite) = exact_values(rules);
    out.push(("ev_exact".into(), Cell::Float(fresh.ev.to_f64())));
    out.push(("ev_exact_fraction".into(), Cell::Text(fresh.ev.to_string())));
    out.push(("house_edge_exact".into(), Cell::Float(-fresh.ev.to_f64())));
    out.push((
        "ev_exact_infinite".into(),
        Cell::Float(infinite.ev.to_f64()),
    ));
    let est = |out: &mut Vec<(String, Cell)>, name: &str, e: Option<Estimate>| {
        out.push((format!("{name}_mean"), Cell::opt_float(e.map(|e| e.mean))));
        out.push((format!("{name}_se"), Cell::opt_float(e.map(|e| e.se))));
        out.push((format!("{name}_ci_lo"), Cell::opt_float(e.map(|e| e.ci.0))));
        out.push((format!("{name}_ci_hi"), Cell::opt_float(e.map(|e| e.ci.1))));
    };
    est(&mut out, "ev_fresh", a.fresh_value());
    out.push(("fresh_hands".into(), Cell::Int(a.counts.fresh as i64)));
    est(&mut out, "ev_all_hands", a.all_hands_value());
    let hands = a.hands.sums().0 as u64;
    out.push(("hands_total".into(), Cell::Int(hands as i64)));
    out.push((
        "tie_bet_ev_exact".into(),
        Cell::Float(fresh.tie_bet_ev.to_f64()),
    ));
    share(
        &mut out,
        "tie_share_fresh",
        a.counts.fresh_ties,
        a.counts.fresh,
    );
    est(&mut out, "tie_rate", a.tie_rate());
    share(&mut out, "war_share", a.counts.wars, hands);
    share(&mut out, "surrender_share", a.counts.surrenders, hands);
    out.push((
        "shuffles_per_session".into(),
        Cell::opt_float((a.sessions > 0).then(|| a.counts.shuffles as f64 / a.sessions as f64)),
    ));
    out
}

#[cfg(test)]
mod tests {
    use warlab_casino::{CasinoOptions, Table};
    use warlab_engine::GameSeed;

    use super::*;

    /// The hand counts are written beside the other fields, as before they were a struct of
    /// their own, and read back with the rest (the blocks' integer keys included).
    #[test]
    fn the_json_keeps_its_shape_and_reads_back() {
        let rules = CasinoRules::new(CasinoOptions::default()).unwrap();
        let mut table = Table::new(&rules);
        let mut a = CasinoAggregate::default();
        for g in 0..50 {
            a.add(&table.session(GameSeed::new(3, 0, g)));
        }
        a.blocks.insert(0, [50, a.hands.sums().0 as u64, 0]);
        a.blocks.insert(7, [1, 2, 4]);
        assert!(a.counts.ties > 0 && a.counts.fresh > 0, "{:?}", a.counts);
        let json = serde_json::to_value(&a).unwrap();
        let fields = json.as_object().unwrap();
        for name in [
            "ties",
            "wars",
            "surrenders",
            "shuffles",
            "cards",
            "fresh_main_sq",
        ] {
            assert!(fields[name].is_number(), "{name} at the top level");
        }
        assert!(!fields.contains_key("counts"));
        let back: CasinoAggregate = serde_json::from_str(&json.to_string()).unwrap();
        assert_eq!(back, a);
    }
}
