//! Statistics that stream: exact counts, merged by adding.
//!
//! Everything is an integer count, so merging chunks in any order, on any number of threads or
//! machines, gives the same bytes. Means, spreads and quantiles are computed from the counts
//! only when a summary is asked for.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use warlab_engine::{EndReason, GameRecord};

use crate::decides::Decides;

/// Exact histogram of non-negative integers: dense below 2^16, a map above (long
/// capped games), so a run's memory does not grow with its number of games.
#[derive(Clone, Debug, Default)]
pub struct Hist {
    dense: Vec<u64>,
    sparse: BTreeMap<u64, u64>,
}

impl Hist {
    const DENSE: u64 = 1 << 16;

    /// Counts one value.
    #[inline]
    pub fn add(&mut self, value: u64) {
        self.add_n(value, 1);
    }

    /// Counts `value` `count` times.
    #[inline]
    pub fn add_n(&mut self, value: u64, count: u64) {
        if count == 0 {
            return;
        }
        if value < Self::DENSE {
            let i = value as usize;
            if i >= self.dense.len() {
                self.dense.resize((i + 1).next_power_of_two(), 0);
            }
            self.dense[i] += count;
        } else {
            *self.sparse.entry(value).or_insert(0) += count;
        }
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &Hist) {
        for (v, c) in other.iter() {
            self.add_n(v, c);
        }
    }

    /// The counts of `self` less those of `other`; `None` if `other` holds a value more often.
    pub fn minus(&self, other: &Hist) -> Option<Hist> {
        let mut out = self.clone();
        for (v, c) in other.iter() {
            let slot = if v < Self::DENSE {
                out.dense.get_mut(v as usize)?
            } else {
                out.sparse.get_mut(&v)?
            };
            *slot = slot.checked_sub(c)?;
            if v >= Self::DENSE && *slot == 0 {
                out.sparse.remove(&v);
            }
        }
        Some(out)
    }

    /// `(value, count)` for every value seen, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(v, c)| (v as u64, *c))
            .chain(self.sparse.iter().map(|(v, c)| (*v, *c)))
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.iter().map(|(_, c)| c).sum()
    }

    /// True when nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// Σ value·count and Σ value²·count, exactly.
    pub fn sums(&self) -> (u128, u128) {
        self.iter().fold((0u128, 0u128), |(s, q), (v, c)| {
            let (v, c) = (u128::from(v), u128::from(c));
            (s + v * c, q + v * v * c)
        })
    }

    /// The smallest value counted.
    pub fn min(&self) -> Option<u64> {
        self.iter().next().map(|(v, _)| v)
    }

    /// The largest value counted.
    pub fn max(&self) -> Option<u64> {
        self.sparse
            .keys()
            .next_back()
            .copied()
            .or_else(|| self.dense.iter().rposition(|c| *c > 0).map(|i| i as u64))
    }

    /// The nearest-rank quantile: the smallest value with at least `⌈q·n⌉` values at or below
    /// it (`q = 0.5` is the lower median).
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (v, c) in self.iter() {
            seen += c;
            if seen >= rank {
                return Some(v);
            }
        }
        None
    }

    /// Share of values strictly above `n`, for every `n` where it changes: the survival
    /// function as `(n, P(X > n))`.
    pub fn survival(&self) -> Vec<(u64, f64)> {
        let total = self.count() as f64;
        let mut left = self.count();
        let mut out = Vec::new();
        for (v, c) in self.iter() {
            left -= c;
            out.push((v, left as f64 / total));
        }
        out
    }
}

/// Equal counts of equal values (however much room either keeps).
impl PartialEq for Hist {
    fn eq(&self, other: &Hist) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Hist {}

impl Serialize for Hist {
    /// As `[[value, count], …]`, increasing values, no zero counts.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|(v, c)| [v, c]))
    }
}

impl<'de> Deserialize<'de> for Hist {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let pairs = Vec::<[u64; 2]>::deserialize(d)?;
        let mut h = Hist::default();
        for [v, c] in pairs {
            h.add_n(v, c);
        }
        Ok(h)
    }
}

/// Games per chunk the runner plays, and the most games per block of an aggregate's running
/// counts (`blocks`: block `b` holds games `b·block_games .. (b+1)·block_games`).
pub const BLOCK: u64 = 4096;

/// Blocks of running counts a variant gets at least (when it has that many games): the
/// running mean is drawn from one point per block.
pub const RUNNING_POINTS: u64 = 100;

/// Games per block of the running counts of a variant of `games` games: the largest power of
/// two that gives at least [`RUNNING_POINTS`] blocks, at most [`BLOCK`] (so a chunk holds
/// whole blocks), at least 1. It depends on the variant's games only, so every shard and
/// slice of a run uses the same blocks and their counts merge.
pub fn running_block(games: u64) -> u64 {
    let most = (games / RUNNING_POINTS).clamp(1, BLOCK);
    1 << most.ilog2()
}

/// The running counts of one block's games as they are played: `[games, Σ battles,
/// Σ battles²]` of all of them, of the looping ones and of the capped ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockSums {
    all: [u64; 3],
    looped: [u64; 3],
    capped: [u64; 3],
}

impl BlockSums {
    /// Counts one game.
    #[inline]
    pub fn add(&mut self, r: &GameRecord) {
        let add = |s: &mut [u64; 3]| {
            let square = u128::from(r.battles).pow(2);
            let fit = |x: u128| u64::try_from(x).expect("a block's sums fit in 64 bits");
            s[0] += 1;
            s[1] += r.battles;
            s[2] = fit(u128::from(s[2]) + square);
        };
        add(&mut self.all);
        match r.end {
            EndReason::Cycle => add(&mut self.looped),
            e if !e.finished() => add(&mut self.capped),
            _ => {}
        }
    }
}

/// Seats a game can have, and the outcome slot for "no winner".
pub const SEATS: usize = 4;
/// The outcome slot of games without a winner.
pub const NO_WINNER: usize = SEATS;

/// Everything a summary needs about a set of games, mergeable by addition.
///
/// `battles`, `wars`, `cards`, `deepest_war` and `lead_changes` count every game as recorded: a
/// looping game with the battles up to its first repeated state, a capped game with the cap.
/// Those are conventions, not lengths. The games that did not end are also counted apart
/// ([`Unended`]), so the ended games' counts are the difference ([`Aggregate::lengths`]), and
/// every length statistic is computed from those. (Games that end, nearly all of them, cost
/// nothing more to count.)
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Games counted.
    pub games: u64,
    /// Battles per game, as recorded.
    pub battles: Hist,
    /// Wars (ties) per game, as recorded.
    pub wars: Hist,
    /// Cards turned per game, as recorded.
    pub cards: Hist,
    /// The deepest chain of wars per game.
    pub deepest_war: Hist,
    /// Changes of the strict leader per game, as recorded.
    pub lead_changes: Hist,
    /// Games by end reason (in [`EndReason::ALL`] order) and outcome: the winning seat
    /// `0..4`, or [`NO_WINNER`] (a draw, a loop, a capped game).
    pub outcomes: [[u64; SEATS + 1]; EndReason::ALL.len()],
    /// Periods of the loops found.
    pub cycle_periods: Hist,
    /// Battles before each loop starts.
    pub cycle_starts: Hist,
    /// For each cycle period seen, the first game (lowest index) that looped with it: an
    /// example to replay with `warlab trace`.
    pub cycle_examples: BTreeMap<u64, u64>,
    /// Games per block of the running counts ([`running_block`] of the variant's games;
    /// [`BLOCK`] in files written before blocks could be smaller).
    #[serde(default = "block_default")]
    pub block_games: u64,
    /// Battles per block of `block_games` consecutive games (block = game / block_games),
    /// every game as recorded: `[games, Σ battles, Σ battles²]`. (Absent from files of warlab
    /// before 0.1's runner kept it: read as empty.)
    #[serde(default)]
    pub blocks: BTreeMap<u64, [u64; 3]>,
    /// The looping and the capped games' counts. `None` only when read from an
    /// `aggregates.json` written before warlab kept them: [`Aggregate::lengths`] then knows the
    /// ended games only where no game looped or was capped.
    #[serde(default)]
    pub unended: Option<Unended>,
    /// What decides a game: the starting hand, and the position and time where they were
    /// recorded. (Empty in files written before warlab counted them.)
    #[serde(default)]
    pub decides: Decides,
}

/// The games that did not end, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unended {
    /// Looping games, as recorded up to the first repeated state.
    pub looped: Recorded,
    /// Capped games: `battles` holds where the cap stopped each one (its length is only known
    /// to exceed that).
    pub capped: Recorded,
}

/// Counts of a set of games as recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    /// Battles per game.
    pub battles: Hist,
    /// Wars per game.
    pub wars: Hist,
    /// Cards turned per game.
    pub cards: Hist,
    /// Lead changes per game.
    pub lead_changes: Hist,
    /// `[games, Σ battles, Σ battles²]` per block of the aggregate's `block_games` games.
    pub blocks: BTreeMap<u64, [u64; 3]>,
}

impl Recorded {
    fn add(&mut self, r: &GameRecord) {
        self.battles.add(r.battles);
        self.wars.add(r.wars);
        self.cards.add(r.cards_turned);
        self.lead_changes.add(r.lead_changes);
    }

    fn merge(&mut self, o: &Recorded) {
        self.battles.merge(&o.battles);
        self.wars.merge(&o.wars);
        self.cards.merge(&o.cards);
        self.lead_changes.merge(&o.lead_changes);
        merge_blocks(&mut self.blocks, &o.blocks);
    }
}

/// The games that ended (a winner or a draw), apart from those that did not: a looping game
/// never ends, a capped game is right-censored where the cap stopped it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lengths {
    /// Battles of the games that ended.
    pub ended_battles: Hist,
    /// Wars of the games that ended.
    pub ended_wars: Hist,
    /// Cards turned in the games that ended.
    pub ended_cards: Hist,
    /// Lead changes in the games that ended.
    pub ended_lead_changes: Hist,
    /// `[ended games, Σ battles, Σ battles²]` per block of the aggregate's `block_games`
    /// games, for the running mean of ended lengths.
    pub ended_blocks: BTreeMap<u64, [u64; 3]>,
    /// Battles played by each capped game (its length is known only to exceed this).
    pub capped_battles: Hist,
}

impl Lengths {
    /// The ended games.
    pub fn ended(&self) -> u64 {
        self.ended_battles.count()
    }
}

impl Default for Aggregate {
    fn default() -> Aggregate {
        Aggregate {
            games: 0,
            battles: Hist::default(),
            wars: Hist::default(),
            cards: Hist::default(),
            deepest_war: Hist::default(),
            lead_changes: Hist::default(),
            outcomes: Default::default(),
            cycle_periods: Hist::default(),
            cycle_starts: Hist::default(),
            cycle_examples: BTreeMap::new(),
            block_games: BLOCK,
            blocks: BTreeMap::new(),
            unended: Some(Unended::default()),
            decides: Decides::default(),
        }
    }
}

fn block_default() -> u64 {
    BLOCK
}

/// `blocks` of `from` games each as blocks of `to` (a multiple of `from`) games each.
fn coarsen(blocks: &mut BTreeMap<u64, [u64; 3]>, from: u64, to: u64) {
    if from == to {
        return;
    }
    let fine = std::mem::take(blocks);
    for (b, sums) in fine {
        add_block(blocks, b * from / to, &sums);
    }
}

/// Adds `sums` to block `b`'s running counts.
fn add_block(blocks: &mut BTreeMap<u64, [u64; 3]>, b: u64, sums: &[u64; 3]) {
    let m = blocks.entry(b).or_default();
    for (m, t) in m.iter_mut().zip(sums) {
        // (A block's games are counted in parts, whose sums add up here: as `BlockSums::add`
        // checks each part's, the sum is checked too.)
        *m = m.checked_add(*t).expect("a block's sums fit in 64 bits");
    }
}

/// Adds `theirs` block by block to `mine` (War's and Casino War's running counts alike).
pub(crate) fn merge_blocks(mine: &mut BTreeMap<u64, [u64; 3]>, theirs: &BTreeMap<u64, [u64; 3]>) {
    for (&b, sums) in theirs {
        add_block(mine, b, sums);
    }
}

/// `mine − theirs` block by block; `None` if a count would go below zero.
fn blocks_minus(
    mine: &BTreeMap<u64, [u64; 3]>,
    theirs: &BTreeMap<u64, [u64; 3]>,
) -> Option<BTreeMap<u64, [u64; 3]>> {
    let mut out = mine.clone();
    for (b, t) in theirs {
        let m = out.get_mut(b)?;
        for (m, t) in m.iter_mut().zip(t) {
            *m = m.checked_sub(*t)?;
        }
    }
    out.retain(|_, v| v[0] > 0);
    Some(out)
}

impl Aggregate {
    /// Counts game `game` (its index, for the cycle examples) with its record.
    #[inline]
    pub fn add(&mut self, game: u64, r: &GameRecord) {
        self.games += 1;
        self.battles.add(r.battles);
        self.wars.add(r.wars);
        self.cards.add(r.cards_turned);
        self.deepest_war.add(u64::from(r.deepest_war));
        self.lead_changes.add(r.lead_changes);
        let seat = r.winner.map_or(NO_WINNER, usize::from);
        self.outcomes[end_index(r.end)][seat] += 1;
        if let Some(c) = r.cycle {
            self.cycle_periods.add(c.period);
            self.cycle_starts.add(c.start);
            let first = self.cycle_examples.entry(c.period).or_insert(game);
            *first = (*first).min(game);
        }
        if !r.end.finished() {
            let u = self.unended.get_or_insert_with(Unended::default);
            match r.end {
                EndReason::Cycle => u.looped.add(r),
                _ => u.capped.add(r),
            }
        }
    }

    /// Records `sums`, the games of block `block` (of `block_games` games), as its running
    /// counts: call it once per block, on the aggregate that counted its games (or once on
    /// each aggregate that counted a part of them: their sums add up when they merge).
    pub fn seal(&mut self, block: u64, sums: &BlockSums) {
        let put = |blocks: &mut BTreeMap<u64, [u64; 3]>, s: [u64; 3]| {
            if s[0] > 0 {
                add_block(blocks, block, &s);
            }
        };
        put(&mut self.blocks, sums.all);
        if let Some(u) = self.unended.as_mut() {
            put(&mut u.looped.blocks, sums.looped);
            put(&mut u.capped.blocks, sums.capped);
        }
    }

    /// Makes every block `to` games (a multiple of the present size), adding up the blocks
    /// that fall in one.
    fn coarsen_blocks(&mut self, to: u64) {
        let from = self.block_games;
        coarsen(&mut self.blocks, from, to);
        if let Some(u) = self.unended.as_mut() {
            coarsen(&mut u.looped.blocks, from, to);
            coarsen(&mut u.capped.blocks, from, to);
        }
        self.block_games = to;
    }

    /// Adds another aggregate's counts (any order gives the same result). Blocks of
    /// different sizes are added up in the larger (sizes are powers of two).
    pub fn merge(&mut self, o: &Aggregate) {
        if self.games == 0 && self.blocks.is_empty() {
            self.block_games = o.block_games;
        }
        let coarser;
        let o = if o.block_games == self.block_games {
            o
        } else if o.block_games > self.block_games {
            self.coarsen_blocks(o.block_games);
            o
        } else {
            let mut c = o.clone();
            c.coarsen_blocks(self.block_games);
            coarser = c;
            &coarser
        };
        // An old aggregate with no game that did not end has an empty split; otherwise the
        // split is unknown, and stays unknown in the sum.
        let empty = Unended::default();
        let theirs = match &o.unended {
            Some(u) => Some(u),
            None => (o.not_ended() == 0).then_some(&empty),
        };
        if self.unended.is_none() && self.not_ended() == 0 {
            self.unended = Some(Unended::default());
        }
        match (self.unended.as_mut(), theirs) {
            (Some(mine), Some(theirs)) => {
                mine.looped.merge(&theirs.looped);
                mine.capped.merge(&theirs.capped);
            }
            _ => self.unended = None,
        }
        self.games += o.games;
        self.battles.merge(&o.battles);
        self.wars.merge(&o.wars);
        self.cards.merge(&o.cards);
        self.deepest_war.merge(&o.deepest_war);
        self.lead_changes.merge(&o.lead_changes);
        for (mine, theirs) in self.outcomes.iter_mut().zip(&o.outcomes) {
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
        self.cycle_periods.merge(&o.cycle_periods);
        self.cycle_starts.merge(&o.cycle_starts);
        for (&p, &g) in &o.cycle_examples {
            let first = self.cycle_examples.entry(p).or_insert(g);
            *first = (*first).min(g);
        }
        merge_blocks(&mut self.blocks, &o.blocks);
        self.decides.merge(&o.decides);
    }

    /// The ended games' counts (every game's, less the looping and capped ones) and the capped
    /// games' stopping points. `None` when they cannot be known: an aggregate read from an
    /// older file in which some game looped or was capped (or counts that do not add up).
    pub fn lengths(&self) -> Option<Lengths> {
        let none = Unended::default();
        let u = match &self.unended {
            Some(u) => u,
            None if self.not_ended() == 0 => &none,
            None => return None,
        };
        let less =
            |all: &Hist, f: fn(&Recorded) -> &Hist| all.minus(f(&u.looped))?.minus(f(&u.capped));
        Some(Lengths {
            ended_battles: less(&self.battles, |r| &r.battles)?,
            ended_wars: less(&self.wars, |r| &r.wars)?,
            ended_cards: less(&self.cards, |r| &r.cards)?,
            ended_lead_changes: less(&self.lead_changes, |r| &r.lead_changes)?,
            ended_blocks: blocks_minus(
                &blocks_minus(&self.blocks, &u.looped.blocks)?,
                &u.capped.blocks,
            )?,
            capped_battles: u.capped.battles.clone(),
        })
    }

    /// Games that ended for `end`.
    pub fn ended(&self, end: EndReason) -> u64 {
        self.outcomes[end_index(end)].iter().sum()
    }

    /// Games that did not end: looping or capped.
    pub fn not_ended(&self) -> u64 {
        self.ended(EndReason::Cycle) + self.ended(EndReason::Capped)
    }

    /// Games won by `seat` (any end reason).
    pub fn wins(&self, seat: usize) -> u64 {
        self.outcomes.iter().map(|o| o[seat]).sum()
    }

    /// Games that ended with no winner although they did end (drawn wars, tied limits).
    pub fn draws(&self) -> u64 {
        EndReason::ALL
            .iter()
            .filter(|e| e.finished())
            .map(|e| self.outcomes[end_index(*e)][NO_WINNER])
            .sum()
    }
}

/// The index of an end reason in [`EndReason::ALL`] (and in [`Aggregate::outcomes`]).
pub fn end_index(e: EndReason) -> usize {
    EndReason::ALL
        .iter()
        .position(|x| *x == e)
        .expect("ALL lists every end reason")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hist_quantiles_and_sums_are_exact() {
        let mut h = Hist::default();
        for v in [5u64, 1, 3, 3, 100_000, 2] {
            h.add(v);
        }
        assert_eq!(h.count(), 6);
        assert_eq!(h.min(), Some(1));
        assert_eq!(h.max(), Some(100_000));
        assert_eq!(h.quantile(0.5), Some(3));
        assert_eq!(h.quantile(1.0), Some(100_000));
        assert_eq!(h.quantile(0.0), Some(1));
        let (s, q) = h.sums();
        assert_eq!(s, 100_014);
        assert_eq!(q, 25 + 1 + 9 + 9 + 10_000_000_000 + 4);
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(json, "[[1,1],[2,1],[3,2],[5,1],[100000,1]]");
        assert_eq!(serde_json::from_str::<Hist>(&json).unwrap(), h);
        let mut less = Hist::default();
        for v in [3u64, 100_000] {
            less.add(v);
        }
        let left = h.minus(&less).unwrap();
        assert_eq!(
            left.iter().collect::<Vec<_>>(),
            [(1, 1), (2, 1), (3, 1), (5, 1)]
        );
        assert_eq!(left.max(), Some(5));
        less.add(7);
        assert_eq!(h.minus(&less), None, "7 is not in h");
    }

    #[test]
    fn survival_steps_down_to_zero() {
        let mut h = Hist::default();
        for v in [1u64, 2, 2, 4] {
            h.add(v);
        }
        assert_eq!(h.survival(), vec![(1, 0.75), (2, 0.25), (4, 0.0)]);
    }
}
