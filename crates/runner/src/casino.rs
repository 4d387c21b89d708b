//! Casino War through the same runner: a "game" is one bankroll session.
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

use std::ops::Range;

use serde::{Deserialize, Serialize};
use warlab_casino::exact::{Exact, hand_value};
use warlab_casino::{CasinoRules, Decks, SessionEnd, SessionRecord, Table};
use warlab_engine::GameSeed;
use warlab_experiment::Variant;

use crate::aggregate::Hist;
use crate::run::{CHUNK, Game};
use crate::summary::{Cell, metric, share, t975};

/// One session, as written to `games.parquet`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub game: u64,
    pub record: SessionRecord,
}

/// A 128-bit integer kept as a decimal string in JSON (JSON numbers stop at 64 bits).
mod wide {
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
    #[serde(with = "wide")]
    pub x: i128,
    #[serde(with = "wide")]
    pub xx: u128,
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
    pub sessions: u64,
    /// Hands per session.
    pub hands: Hist,
    /// Sessions by how they ended, in [`SessionEnd::ALL`] order.
    pub ends: [u64; 4],
    /// Bankroll at the end, in half-chips.
    pub final_bankroll: Hist,
    pub ties: u64,
    pub wars: u64,
    pub war_ties: u64,
    pub wars_lost: u64,
    pub surrenders: u64,
    pub shuffles: u64,
    pub cards: u64,
    /// First hands of a fresh shoe: count, Σ result, Σ result² (half-bets), ties.
    pub fresh: u64,
    pub fresh_main: i64,
    pub fresh_main_sq: u64,
    pub fresh_ties: u64,
    /// Per session: the main bet's result (half-bets) and the ties, against hands played.
    pub main: RatioSums,
    pub tie_count: RatioSums,
    /// Hands per session in blocks of [`CHUNK`] sessions: `[sessions, Σ hands, Σ hands²]`.
    pub blocks: std::collections::BTreeMap<u64, [u64; 3]>,
}

impl CasinoAggregate {
    pub fn add(&mut self, r: &SessionRecord) {
        self.sessions += 1;
        self.hands.add(r.hands);
        let end = r.end.expect("a played session has ended");
        self.ends[end_index(end)] += 1;
        self.final_bankroll.add(r.final_bankroll.max(0) as u64);
        self.ties += r.ties;
        self.wars += r.wars;
        self.war_ties += r.war_ties;
        self.wars_lost += r.wars_lost;
        self.surrenders += r.surrenders;
        self.shuffles += r.shuffles;
        self.cards += r.cards;
        self.fresh += r.fresh;
        self.fresh_main += r.fresh_main;
        self.fresh_main_sq += r.fresh_main_sq;
        self.fresh_ties += r.fresh_ties;
        self.main.add(r.main, r.hands);
        self.tie_count.add(r.ties as i64, r.hands);
    }

    pub fn merge(&mut self, o: &CasinoAggregate) {
        self.sessions += o.sessions;
        self.hands.merge(&o.hands);
        for (m, t) in self.ends.iter_mut().zip(&o.ends) {
            *m += t;
        }
        self.final_bankroll.merge(&o.final_bankroll);
        self.ties += o.ties;
        self.wars += o.wars;
        self.war_ties += o.war_ties;
        self.wars_lost += o.wars_lost;
        self.surrenders += o.surrenders;
        self.shuffles += o.shuffles;
        self.cards += o.cards;
        self.fresh += o.fresh;
        self.fresh_main += o.fresh_main;
        self.fresh_main_sq += o.fresh_main_sq;
        self.fresh_ties += o.fresh_ties;
        self.main.merge(&o.main);
        self.tie_count.merge(&o.tie_count);
        for (&b, o) in &o.blocks {
            let mine = self.blocks.entry(b).or_default();
            for (m, t) in mine.iter_mut().zip(o) {
                *m += t;
            }
        }
    }

    pub fn ended(&self, end: SessionEnd) -> u64 {
        self.ends[end_index(end)]
    }

    /// The main bet's value per chip bet over fresh-shoe hands: (mean, standard error).
    pub fn fresh_value(&self) -> Option<Estimate> {
        let n = self.fresh;
        (n >= 2).then(|| {
            let nf = n as f64;
            let mean = self.fresh_main as f64 / nf;
            let var = (self.fresh_main_sq as f64 - nf * mean * mean) / (nf - 1.0);
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
    pub mean: f64,
    pub se: f64,
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

pub fn end_index(e: SessionEnd) -> usize {
    SessionEnd::ALL
        .iter()
        .position(|x| *x == e)
        .expect("ALL lists every session end")
}

impl Game for CasinoRules {
    type Aggregate = CasinoAggregate;
    type Row = SessionRow;

    fn play_chunk(
        variant: &Variant<CasinoRules>,
        seed: u64,
        games: Range<u64>,
        rows: bool,
    ) -> (CasinoAggregate, Vec<SessionRow>) {
        let mut table = Table::new(&variant.rules);
        let mut aggregate = CasinoAggregate::default();
        let mut out = Vec::new();
        let block = games.start / CHUNK;
        let (mut s, mut q) = (0u64, 0u64);
        for g in games {
            let record = table.session(GameSeed::new(seed, variant.seed_id, g));
            aggregate.add(&record);
            s += record.hands;
            q = q.saturating_add(record.hands.saturating_mul(record.hands));
            if rows {
                out.push(SessionRow { game: g, record });
            }
        }
        if aggregate.sessions > 0 {
            aggregate.blocks.insert(block, [aggregate.sessions, s, q]);
        }
        (aggregate, out)
    }

    fn merge(into: &mut CasinoAggregate, other: &CasinoAggregate) {
        into.merge(other);
    }

    fn played(aggregate: &CasinoAggregate) -> u64 {
        aggregate.sessions
    }
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
    let bank = crate::summary::mean_estimate(&a.final_bankroll);
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
    out.push(("fresh_hands".into(), Cell::Int(a.fresh as i64)));
    est(&mut out, "ev_all_hands", a.all_hands_value());
    let hands = a.hands.sums().0 as u64;
    out.push(("hands_total".into(), Cell::Int(hands as i64)));
    out.push((
        "tie_bet_ev_exact".into(),
        Cell::Float(fresh.tie_bet_ev.to_f64()),
    ));
    share(&mut out, "tie_share_fresh", a.fresh_ties, a.fresh);
    est(&mut out, "tie_rate", a.tie_rate());
    share(&mut out, "war_share", a.wars, hands);
    share(&mut out, "surrender_share", a.surrenders, hands);
    out.push((
        "shuffles_per_session".into(),
        Cell::opt_float((a.sessions > 0).then(|| a.shuffles as f64 / a.sessions as f64)),
    ));
    out
}
