//! What decides a game of War: the starting hand, the position during play, and the time a
//! game takes at a table.
//!
//! Like every aggregate these are exact integer counts, so shards and slices merge into the
//! bytes of one run. Three parts:
//! - [`HandCounts`], from the deal alone (read after the game, costing it nothing): seat 0's
//!   games by its count of the strongest cards (the aces), by the sum of its card values, and
//!   by its count of every value;
//! - [`PositionCounts`], from an observer of every battle ([`Watch`]): seat 0's cards after
//!   the battles of [`CHECKPOINTS`] against who won, whether the winner trailed after each,
//!   and the battle of the last lead change;
//! - [`TimeCounts`]: each game's duration at a table from a linear time model.
//!
//! The estimates beside them (Wilson shares, grouped logistic fits, the "call it" lead,
//! duration quantiles with order-statistic intervals) are functions of these counts.

use serde::{Deserialize, Serialize};
use warlab_engine::{GameRecord, Observer, Rules, View};

use crate::aggregate::Hist;
use crate::summary::{t975, wilson, z975};

/// The battles after which the position is recorded: "seat 0 holds k cards after battle t".
pub const CHECKPOINTS: [u64; 10] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

/// What a game's class of games came to, from seat 0's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Outcomes {
    /// Games in the class.
    pub games: u64,
    /// Won by seat 0.
    pub wins: u64,
    /// Won by another seat (the rest were drawn, looped or capped).
    pub losses: u64,
    /// Games that ended (not looped, not capped): the lengths below are theirs.
    pub ended: u64,
    /// Σ battles of the ended games.
    pub length_sum: u64,
    /// Σ battles² of the ended games (a decimal string in JSON, whose numbers stop at 64
    /// bits).
    #[serde(with = "crate::casino::wide")]
    pub length_sq: u128,
}

impl Outcomes {
    fn add(&mut self, r: &GameRecord) {
        self.games += 1;
        match r.winner {
            Some(0) => self.wins += 1,
            Some(_) => self.losses += 1,
            None => {}
        }
        if r.end.finished() {
            self.ended += 1;
            self.length_sum += r.battles;
            self.length_sq += u128::from(r.battles) * u128::from(r.battles);
        }
    }

    /// Adds `o`'s counts.
    pub fn merge(&mut self, o: &Outcomes) {
        self.games += o.games;
        self.wins += o.wins;
        self.losses += o.losses;
        self.ended += o.ended;
        self.length_sum += o.length_sum;
        self.length_sq += o.length_sq;
    }

    /// P(seat 0 wins) and its 95 % Wilson interval (games that did not end count as not won).
    pub fn win_share(&self) -> Option<(f64, (f64, f64))> {
        let ci = wilson(self.wins, self.games)?;
        Some((self.wins as f64 / self.games as f64, ci))
    }

    /// Mean length in battles of the ended games, with its 95 % t interval (`None` for fewer
    /// than two).
    pub fn mean_length(&self) -> Option<(f64, (f64, f64))> {
        if self.ended < 2 {
            return None;
        }
        let n = self.ended as f64;
        let s = u128::from(self.length_sum);
        // Exact in integers: n·Σx² − (Σx)² = n(n−1)·s².
        let var =
            (u128::from(self.ended) * self.length_sq - s * s) as f64 / (n * (n - 1.0)).max(1.0);
        let mean = self.length_sum as f64 / n;
        let half = t975(self.ended - 1) * (var / n).sqrt();
        Some((mean, (mean - half, mean + half)))
    }
}

fn merge_vec<T: Clone + Default>(into: &mut Vec<T>, from: &[T], add: impl Fn(&mut T, &T)) {
    if into.len() < from.len() {
        into.resize(from.len(), T::default());
    }
    for (a, b) in into.iter_mut().zip(from) {
        add(a, b);
    }
}

/// `v[i]`, growing `v` to hold it: a class seen for the first time.
#[inline]
fn slot<T: Default + Clone>(v: &mut Vec<T>, i: usize) -> &mut T {
    if v.len() <= i {
        grow(v, i + 1);
    }
    &mut v[i]
}

#[cold]
fn grow<T: Default + Clone>(v: &mut Vec<T>, len: usize) {
    v.resize(len, T::default());
}

/// Seat 0's starting hand against the game's outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HandCounts {
    /// How many of the strongest values `by_top` counts: the fewest that make up at least
    /// four cards of the deck (1 for a French deck's aces; the jokers and the aces of a deck
    /// with two jokers; the four highest ranks of a one-suit deck). 0 is read as 1.
    #[serde(default)]
    pub top_values: u32,
    /// `[a]`: the games in which seat 0 was dealt `a` cards of the `top_values` strongest
    /// values (the aces of a French deck).
    pub by_top: Vec<Outcomes>,
    /// `[s]`: the games in which seat 0's card values (0 = the weakest value) sum to `s`.
    pub by_sum: Vec<Outcomes>,
    /// `[v][c]`: the games in which seat 0 was dealt `c` cards of value `v`: `[games, seat-0
    /// wins]`.
    pub by_value: Vec<Vec<[u64; 2]>>,
}

impl HandCounts {
    /// Counts one game from seat 0's dealt cards: every `step`-th card of `dealt` from the
    /// first.
    pub fn add(&mut self, values: usize, dealt: &[u8], step: usize, r: &GameRecord) {
        let mut count = [0u16; 256];
        let mut sum = 0usize;
        for &c in dealt.iter().step_by(step) {
            count[usize::from(c)] += 1;
            sum += usize::from(c);
        }
        let k = (self.top_values.max(1) as usize).min(values);
        let top: u16 = count[values - k..values].iter().sum();
        slot(&mut self.by_top, usize::from(top)).add(r);
        slot(&mut self.by_sum, sum).add(r);
        if self.by_value.len() < values {
            self.by_value.resize(values, Vec::new());
        }
        let won = u64::from(r.winner == Some(0));
        for (v, row) in self.by_value.iter_mut().enumerate() {
            let cell = slot(row, usize::from(count[v]));
            cell[0] += 1;
            cell[1] += won;
        }
    }

    /// The fewest strongest values of `rules`' deck that make up at least four cards.
    pub fn top_values_of(rules: &Rules) -> u32 {
        let deck = rules.cards().fresh_deck();
        let values = rules.cards().values();
        let (mut k, mut cards) = (0, 0);
        while cards < 4 && k < values {
            k += 1;
            cards += deck
                .iter()
                .filter(|&&c| usize::from(c) == values - k)
                .count();
        }
        k.max(1) as u32
    }

    fn merge(&mut self, o: &HandCounts) {
        self.top_values = self.top_values.max(o.top_values);
        merge_vec(&mut self.by_top, &o.by_top, Outcomes::merge);
        merge_vec(&mut self.by_sum, &o.by_sum, Outcomes::merge);
        merge_vec(&mut self.by_value, &o.by_value, |a, b| {
            merge_vec(a, b, |x, y| {
                x[0] += y[0];
                x[1] += y[1];
            })
        });
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.by_top.iter().map(|o| o.games).sum()
    }
}

/// The position during play against the game's outcome (recorded when a [`Watch`] follows
/// every battle).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PositionCounts {
    /// Cards in play: seat 0 holds `0..=cards`.
    pub cards: u32,
    /// Games followed battle by battle (all the variant's, or its first ones by index).
    pub followed: u64,
    /// `[i][k]`: the games still in play after battle [`CHECKPOINTS`]`[i]` (not ended in it or
    /// before; a looping game at every checkpoint, its loop replayed) in which seat 0 then
    /// held `k` cards: `[games, won by seat 0, won by another seat]`.
    pub at: Vec<Vec<[u64; 3]>>,
    /// `[i]`: the games with a winner still in play after battle [`CHECKPOINTS`]`[i]`, and
    /// those of them whose winner never held fewer cards than another seat after it.
    pub never_trails: Vec<[u64; 2]>,
    /// The battle of the last lead change (0: none) of every game with a winner.
    pub last_change: Hist,
}

impl PositionCounts {
    /// Empty counts for a game of `cards` cards in play.
    pub fn new(cards: usize) -> PositionCounts {
        PositionCounts {
            cards: cards as u32,
            followed: 0,
            at: vec![vec![[0; 3]; cards + 1]; CHECKPOINTS.len()],
            never_trails: vec![[0; 2]; CHECKPOINTS.len()],
            last_change: Hist::default(),
        }
    }

    /// Counts one game that `w` followed.
    pub fn add(&mut self, r: &GameRecord, w: &Watch) {
        self.followed += 1;
        for (i, &t) in CHECKPOINTS.iter().enumerate() {
            let Some(k) = w.seat0_after(t, r) else { break };
            let cell = slot(slot(&mut self.at, i), usize::from(k));
            cell[0] += 1;
            match r.winner {
                Some(0) => cell[1] += 1,
                Some(_) => cell[2] += 1,
                None => {}
            }
            if let Some(p) = r.winner {
                let row = slot(&mut self.never_trails, i);
                row[0] += 1;
                row[1] += u64::from(w.last_trail[usize::from(p)] <= t);
            }
        }
        if r.winner.is_some() {
            self.last_change.add(w.last_change);
        }
    }

    fn merge(&mut self, o: &PositionCounts) {
        self.cards = self.cards.max(o.cards);
        self.followed += o.followed;
        merge_vec(&mut self.at, &o.at, |a, b| {
            merge_vec(a, b, |x, y| {
                for (xj, yj) in x.iter_mut().zip(y) {
                    *xj += yj;
                }
            })
        });
        merge_vec(&mut self.never_trails, &o.never_trails, |a, b| {
            a[0] += b[0];
            a[1] += b[1];
        });
        self.last_change.merge(&o.last_change);
    }

    /// After battle [`CHECKPOINTS`]`[i]` (two players): `[d]` = `[games in which a seat led by
    /// d cards, of them won by the leader]`, from both seats' side (a game with no lead, `d =
    /// 0`, is left out). `None` past the checkpoints.
    pub fn by_lead(&self, i: usize) -> Option<Vec<[u64; 2]>> {
        let row = self.at.get(i)?;
        let total = i64::from(self.cards);
        let mut by_lead = vec![[0u64; 2]; row.len().max(self.cards as usize + 1)];
        for (k, cell) in row.iter().enumerate() {
            let d = 2 * k as i64 - total;
            if d == 0 {
                continue;
            }
            let leader_wins = if d > 0 { cell[1] } else { cell[2] };
            let e = slot(&mut by_lead, d.unsigned_abs() as usize);
            e[0] += cell[0];
            e[1] += leader_wins;
        }
        Some(by_lead)
    }

    /// "Call it" after battle [`CHECKPOINTS`]`[i]` (two players): the smallest lead `d` (seat
    /// against seat, in cards) such that the games in which a seat led by `d` or more were won
    /// by the leader at least `target` of the time. Games that never ended count as not won.
    /// Leads pooled over fewer than `min_games` games are not judged, and a few games of the
    /// largest leads falling short do not stop the search (the pooled games of a smaller lead
    /// include theirs). The answer carries its Wilson interval and whether its lower end
    /// reaches the level too ([`CallIt::sure`]).
    pub fn call_it(&self, i: usize, target: f64, min_games: u64) -> Verdict {
        let Some(by_lead) = self.by_lead(i) else {
            return Verdict::TooFew { games: 0 };
        };
        let in_play: u64 = by_lead.iter().map(|e| e[0]).sum();
        // Pooled from the largest lead down; the answer is the smallest lead that passes.
        let (mut games, mut wins) = (0u64, 0u64);
        let mut best = None;
        for d in (1..by_lead.len()).rev() {
            if by_lead[d][0] == 0 {
                // No game had this lead (with an even number of cards, odd leads never
                // happen): the answer is a lead some game had.
                continue;
            }
            games += by_lead[d][0];
            wins += by_lead[d][1];
            if games < min_games {
                continue;
            }
            if (wins as f64) < target * games as f64 {
                continue;
            }
            let ci = wilson(wins, games).expect("games > 0");
            best = Some(CallIt {
                lead: d as u32,
                games,
                wins,
                ci,
                sure: ci.0 >= target,
            });
        }
        match best {
            Some(c) => Verdict::Called(c),
            None if in_play >= min_games => Verdict::NotReached { games: in_play },
            None => Verdict::TooFew { games: in_play },
        }
    }
}

/// What "call it" finds after a battle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The smallest lead from which the leader won at the level.
    Called(CallIt),
    /// No lead reaches the level: `games` with a lead were in play.
    NotReached {
        /// Games in play with a lead.
        games: u64,
    },
    /// Fewer games in play with a lead than the minimum: nothing to say.
    TooFew {
        /// Games in play with a lead.
        games: u64,
    },
}

/// The smallest lead that decides a game at a given level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallIt {
    /// The lead in cards (seat against seat).
    pub lead: u32,
    /// Games in which a seat led by at least `lead`.
    pub games: u64,
    /// Of them, those the leader won.
    pub wins: u64,
    /// The 95 % Wilson interval of `wins / games`.
    pub ci: (f64, f64),
    /// Whether the interval's lower end reaches the level as well: shown with 95 %
    /// confidence, not only estimated.
    pub sure: bool,
}

/// How long each game takes at a table: `battle_ms` per battle, `war_card_ms` per card of a
/// war (face down, or face up after the battle's first cards), `shuffle_ms` per shuffle of a
/// won pile.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimeCounts {
    /// Milliseconds per battle.
    pub battle_ms: u32,
    /// Milliseconds per war card.
    pub war_card_ms: u32,
    /// Milliseconds per shuffle of a won pile.
    pub shuffle_ms: u32,
    /// The ended games' durations, in whole seconds (rounded to the nearest).
    pub seconds: Hist,
    /// Games that never ended (a loop, the cap): longer than any duration.
    pub unended: u64,
}

impl TimeCounts {
    /// Empty counts under a time model.
    pub fn new(battle_ms: u32, war_card_ms: u32, shuffle_ms: u32) -> TimeCounts {
        TimeCounts {
            battle_ms,
            war_card_ms,
            shuffle_ms,
            ..TimeCounts::default()
        }
    }

    /// A game's duration in whole seconds.
    pub fn seconds_of(&self, battles: u64, war_cards: u64, shuffles: u64) -> u64 {
        let ms = battles * u64::from(self.battle_ms)
            + war_cards * u64::from(self.war_card_ms)
            + shuffles * u64::from(self.shuffle_ms);
        (ms + 500) / 1000
    }

    fn add(&mut self, r: &GameRecord, war_cards: u64, shuffles: u64) {
        if r.end.finished() {
            self.seconds
                .add(self.seconds_of(r.battles, war_cards, shuffles));
        } else {
            self.unended += 1;
        }
    }

    fn merge(&mut self, o: &TimeCounts) {
        if self.seconds.count() == 0 && self.unended == 0 {
            (self.battle_ms, self.war_card_ms, self.shuffle_ms) =
                (o.battle_ms, o.war_card_ms, o.shuffle_ms);
        }
        self.seconds.merge(&o.seconds);
        self.unended += o.unended;
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.seconds.count() + self.unended
    }

    /// The `q`-quantile of the duration in seconds over every game (those that never ended
    /// are longer than all), with a distribution-free 95 % interval from the order
    /// statistics. `None` for the estimate (or an end of its interval) beyond every ended
    /// game: unbounded.
    pub fn quantile(&self, q: f64) -> Option<Quantile> {
        let n = self.games();
        if n == 0 {
            return None;
        }
        let nf = n as f64;
        let half = z975() * (nf * q * (1.0 - q)).sqrt();
        let rank = ((q * nf).ceil() as u64).clamp(1, n);
        let lo = ((nf * q - half).floor() as u64).clamp(1, n);
        let hi = ((nf * q + half).ceil() as u64 + 1).clamp(1, n);
        Some(Quantile {
            value: self.at_rank(rank),
            lo: self.at_rank(lo),
            hi: self.at_rank(hi),
        })
    }

    /// The `rank`-th smallest duration (1-based), `None` past the ended games.
    fn at_rank(&self, rank: u64) -> Option<u64> {
        let mut seen = 0;
        for (v, c) in self.seconds.iter() {
            seen += c;
            if seen >= rank {
                return Some(v);
            }
        }
        None
    }
}

/// A quantile and its 95 % interval; `None` is beyond every game that ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantile {
    /// The estimate.
    pub value: Option<u64>,
    /// The interval's lower end.
    pub lo: Option<u64>,
    /// The interval's upper end.
    pub hi: Option<u64>,
}

/// Everything a variant's aggregate counts of what decides a game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Decides {
    /// The starting hand (every War game).
    pub hand: HandCounts,
    /// The position during play: only when every battle was followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<PositionCounts>,
    /// The time at a table: when every battle was followed, or when the record alone gives
    /// it ([`Decides::time_from_record`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeCounts>,
}

impl Decides {
    /// Empty counts for `rules` with `cards` in play (the rules' deal, or a fixed deal's
    /// cards): the position when any game is followed battle by battle (`follow`), the time
    /// under `time` where it can be known.
    pub fn new(rules: &Rules, cards: usize, follow: bool, time: TimeCounts) -> Decides {
        Decides {
            hand: HandCounts {
                top_values: HandCounts::top_values_of(rules),
                ..HandCounts::default()
            },
            position: follow.then(|| PositionCounts::new(cards)),
            time: (follow || Decides::time_from_record(rules)).then_some(time),
        }
    }

    /// Whether a game's record alone gives its war cards and shuffles: two players (both turn
    /// up one card in every battle, so the war cards are the cards turned less two a battle),
    /// no prize cards, and no won pile to shuffle.
    pub fn time_from_record(rules: &Rules) -> bool {
        rules.players() == 2 && !rules.options().prize && !rules.shuffles_won_piles()
    }

    /// Counts one game of `rules`: the cards dealt (seat 0's are every `step`-th from the
    /// first: the engine's deal has a step of the players, an explicit deal's first stack
    /// one), its record, and the [`Watch`] that followed it (when the position is counted).
    pub fn add(
        &mut self,
        rules: &Rules,
        (dealt, step): (&[u8], usize),
        r: &GameRecord,
        watch: Option<&Watch>,
    ) {
        self.hand.add(rules.cards().values(), dealt, step, r);
        if let (Some(p), Some(w)) = (&mut self.position, watch) {
            p.add(r, w);
        }
        if let Some(t) = &mut self.time {
            // The record where it suffices (every game), else the watch (the games followed).
            if Decides::time_from_record(rules) {
                t.add(r, r.cards_turned.saturating_sub(2 * r.battles), 0);
            } else if let Some(w) = watch {
                assert!(
                    w.timed,
                    "a game's time needs a watch that counted its war cards"
                );
                t.add(r, w.war_cards, w.shuffles);
            }
        }
    }

    /// Adds `o`'s counts.
    pub fn merge(&mut self, o: &Decides) {
        self.hand.merge(&o.hand);
        merge_option(&mut self.position, &o.position, PositionCounts::merge);
        merge_option(&mut self.time, &o.time, TimeCounts::merge);
    }
}

fn merge_option<T: Clone>(into: &mut Option<T>, from: &Option<T>, add: impl Fn(&mut T, &T)) {
    match (into.as_mut(), from) {
        (Some(a), Some(b)) => add(a, b),
        (None, Some(b)) => *into = Some(b.clone()),
        (_, None) => {}
    }
}

/// Follows a game battle by battle (an engine [`Observer`]): seat 0's cards after every
/// battle, who led and who trailed when, the war cards and the shuffles of won piles.
/// Allocates only while its history grows past the longest game it has followed. One watch
/// follows any number of games, one after the other (`Watch::default()` to start).
#[derive(Clone, Debug, Default)]
pub struct Watch {
    battle: u64,
    /// Seat 0's cards after each battle, `[0]` as dealt.
    seat0: Vec<u16>,
    leader: Option<u8>,
    /// The battle of the last lead change.
    pub last_change: u64,
    /// The last battle after which each seat held fewer cards than another seat (0: never).
    pub last_trail: [u64; 4],
    /// Cards of wars: face down, or face up after the battle's first.
    pub war_cards: u64,
    /// Won piles shuffled into a stack.
    pub shuffles: u64,
    /// Whether the war cards and shuffles were counted: a watch that followed the cards alone
    /// ([`Watch::follow_trace`]) has the position only.
    timed: bool,
}

impl Watch {
    /// Seat 0's cards after battle `t` of the game `r` this watch followed, if the game was
    /// still in play then: `None` if it ended in battle `t` or before (or the cap stopped it
    /// before). A looping game is periodic from its loop's start, so its later positions are
    /// read from one turn of the loop.
    pub fn seat0_after(&self, t: u64, r: &GameRecord) -> Option<u16> {
        let t = match r.cycle {
            Some(c) if t > c.start => c.start + (t - c.start) % c.period,
            Some(_) => t,
            // A game that ended in battle t is decided, no longer a position to judge.
            None if r.end.finished() && t >= r.battles => return None,
            // A capped game was stopped after its last battle, still in play.
            None if t > r.battles => return None,
            None => t,
        };
        self.seat0.get(t as usize).copied()
    }

    /// Whether the war cards and shuffles were counted ([`Watch::follow_trace`] counts the
    /// position only).
    pub fn timed(&self) -> bool {
        self.timed
    }

    /// Follows a two-seat game from its trace ([`Engine::play_traced`]: both seats' cards as
    /// dealt and after every battle), as an observer of the game would have: the same
    /// position, lead and trailing, but no war cards or shuffles ([`Watch::timed`] is false).
    /// A seat is in the game while it holds a card: with two seats, one out ends the game.
    ///
    /// [`Engine::play_traced`]: warlab_engine::Engine::play_traced
    pub fn follow_trace(&mut self, trace: &[[u16; 2]]) {
        self.restart(false);
        self.seat0.extend(trace.iter().map(|&[a, _]| a));
        // `note_cards` for two seats, one of them out where it holds no card, read from the
        // end, where what is asked for lies: the last battle each seat trailed (in the game,
        // fewer cards than the other), and the last time the lead went to the last leader (the
        // seat holding more). Forward, battle by battle, this took a quarter of a traced game.
        let last = |f: fn(u16, u16) -> bool| trace.iter().rposition(|&[a, b]| f(a, b));
        let battle = |t: usize| t as u64;
        self.last_trail[0] = last(|a, b| 0 < a && a < b).map_or(0, battle);
        self.last_trail[1] = last(|a, b| 0 < b && b < a).map_or(0, battle);
        if let Some(end) = last(|a, b| a != b) {
            let [a, b] = trace[end];
            let leader = b > a;
            self.leader = Some(u8::from(leader));
            // The last battle the other seat led after, and the first after it this one led.
            let before = trace[..end]
                .iter()
                .rposition(|&[a, b]| a != b && (b > a) != leader);
            if let Some(i) = before {
                let took = trace[i + 1..end].iter().position(|&[a, b]| a != b);
                self.last_change = battle(took.map_or(end, |k| i + 1 + k));
            }
        }
    }

    /// A fresh watch that keeps its history's allocation.
    fn restart(&mut self, timed: bool) {
        let mut seat0 = std::mem::take(&mut self.seat0);
        seat0.clear();
        *self = Watch {
            seat0,
            timed,
            ..Watch::default()
        };
    }

    fn note(&mut self, view: &View<'_>) {
        let mut cards = [0usize; 4];
        let mut in_game = 0u8;
        for (p, c) in cards.iter_mut().enumerate().take(view.players()) {
            *c = view.cards(p);
            in_game |= u8::from(view.in_game(p)) << p;
        }
        self.note_cards(&cards[..view.players()], in_game);
    }

    /// Notes the cards each seat holds (`in_game`: the seats in the game, by bit).
    fn note_cards(&mut self, cards: &[usize], in_game: u8) {
        let playing = |p: usize| in_game & (1 << p) != 0;
        let mut most = 0;
        let mut leader = None;
        for (p, &c) in cards.iter().enumerate() {
            if !playing(p) {
                continue;
            }
            if c > most {
                (most, leader) = (c, Some(p as u8));
            } else if c == most {
                leader = None;
            }
        }
        for (p, &c) in cards.iter().enumerate() {
            if playing(p) && c < most {
                self.last_trail[p] = self.battle;
            }
        }
        if let Some(l) = leader {
            if self.leader.is_some_and(|old| old != l) {
                self.last_change = self.battle;
            }
            self.leader = Some(l);
        }
        self.seat0.push(cards[0] as u16);
    }
}

impl Observer for Watch {
    fn game_start(&mut self, view: &View<'_>) {
        self.restart(true);
        self.note(view);
    }

    fn battle_start(&mut self, battle: u64) {
        self.battle = battle;
    }

    fn face_up(&mut self, _player: usize, _card: u8, depth: u32) {
        self.war_cards += u64::from(depth > 0);
    }

    fn face_down(&mut self, _player: usize, count: usize, _depth: u32) {
        self.war_cards += count as u64;
    }

    fn battle_end(&mut self, _winner: Option<usize>, _pot: usize, view: &View<'_>) {
        self.shuffles = view.shuffles();
        self.note(view);
    }
}

/// A logistic regression of a share on one predictor, fitted to grouped counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Logistic {
    /// log-odds at predictor 0.
    pub intercept: f64,
    /// Change of the log-odds per unit of the predictor.
    pub slope: f64,
    /// Standard error of the slope (from the Fisher information).
    pub slope_se: f64,
}

impl Logistic {
    /// The slope's 95 % interval.
    pub fn slope_ci(&self) -> (f64, f64) {
        let h = z975() * self.slope_se;
        (self.slope - h, self.slope + h)
    }

    /// The fitted share at `x`.
    pub fn at(&self, x: f64) -> f64 {
        1.0 / (1.0 + (-(self.intercept + self.slope * x)).exp())
    }
}

/// Fits `P(success) = 1 / (1 + e^−(a + b·x))` to groups `(x, trials, successes)` by
/// Newton–Raphson. `None` when fewer than two values of `x` have trials, or the fit does not
/// settle (every group all successes or all failures: the slope runs off to infinity).
pub fn logistic(groups: &[(f64, u64, u64)]) -> Option<Logistic> {
    let used: Vec<_> = groups.iter().filter(|g| g.1 > 0).collect();
    if used.len() < 2 {
        return None;
    }
    // Centre x so the two parameters are nearly independent and Newton converges fast.
    let n: f64 = used.iter().map(|g| g.1 as f64).sum();
    let centre = used.iter().map(|g| g.0 * g.1 as f64).sum::<f64>() / n;
    let (mut a, mut b) = (0.0f64, 0.0f64);
    for _ in 0..100 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &&(x, m, k) in &used {
            let x = x - centre;
            let p = 1.0 / (1.0 + (-(a + b * x)).exp());
            let (m, k) = (m as f64, k as f64);
            ga += k - m * p;
            gb += (k - m * p) * x;
            let w = m * p * (1.0 - p);
            haa += w;
            hab += w * x;
            hbb += w * x * x;
        }
        let det = haa * hbb - hab * hab;
        if det <= 0.0 || !det.is_finite() {
            return None;
        }
        let da = (hbb * ga - hab * gb) / det;
        let db = (haa * gb - hab * ga) / det;
        a += da;
        b += db;
        if da.abs() < 1e-12 && db.abs() < 1e-12 {
            if !(a.is_finite() && b.is_finite()) || b.abs() > 50.0 {
                return None;
            }
            return Some(Logistic {
                intercept: a - b * centre,
                slope: b,
                slope_se: (haa / det).sqrt(),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlab_engine::{Engine, GameSeed, SAMPLE_VALUES};

    /// A watch that follows a two-seat game's trace ([`Watch::follow_trace`]) reads the
    /// position an observer of the game reads: seat 0's cards after every battle (of a looping
    /// game, up to the end of its loop's first turn), the last lead change and the last battle
    /// each seat trailed; so do the position counts. Under every sample option value, alone
    /// and beside short wars lost, war sizes, `wars_to_win` and two piles.
    #[test]
    fn a_traced_watch_reads_the_observed_position() {
        let bases: &[&[(&str, &str)]] = &[
            &[],
            &[("short_war", "lose")],
            &[("short_war", "last-card-up"), ("war_down", "3")],
            &[("pickup", "seat"), ("war_down", "1")],
            &[("wars_to_win", "3")],
            &[("pile", "two-pile"), ("on_empty", "lose")],
            &[
                ("pile", "two-pile"),
                ("on_empty", "turn-over"),
                ("pickup", "seat"),
            ],
        ];
        let (mut sets, mut games, mut loops) = (0, 0, 0);
        for base in bases {
            for &(key, values) in SAMPLE_VALUES {
                for value in values {
                    let mut pairs = base.to_vec();
                    pairs.retain(|(k, _)| *k != key);
                    pairs.extend([(key, *value), ("safety_cap", "3000")]);
                    let Ok(rules) = Rules::from_pairs(pairs) else {
                        continue;
                    };
                    let mut engine = Engine::new(&rules);
                    if rules.players() != 2 || !engine.traces_fast() {
                        continue;
                    }
                    sets += 1;
                    let cards = rules.cards_in_play();
                    let (mut seen, mut read) =
                        (PositionCounts::new(cards), PositionCounts::new(cards));
                    let (mut watch, mut traced, mut trace) =
                        (Watch::default(), Watch::default(), Vec::new());
                    for g in 0..40 {
                        let id = GameSeed::new(5, 2, g);
                        let r = engine.play_observed(id, &mut watch);
                        assert_eq!(engine.play_traced(id, &mut trace), r);
                        traced.follow_trace(&trace);
                        assert!(watch.timed() && !traced.timed());
                        let longest = r.battles.max(CHECKPOINTS[CHECKPOINTS.len() - 1]);
                        for t in 0..=longest + 1 {
                            assert_eq!(
                                traced.seat0_after(t, &r),
                                watch.seat0_after(t, &r),
                                "battle {t}, {rules}, game {g}"
                            );
                        }
                        if r.cycle.is_none() {
                            assert_eq!(traced.last_change, watch.last_change, "{rules}, game {g}");
                            assert_eq!(traced.last_trail, watch.last_trail, "{rules}, game {g}");
                        } else {
                            loops += 1;
                        }
                        seen.add(&r, &watch);
                        read.add(&r, &traced);
                        games += 1;
                    }
                    assert_eq!(read, seen, "{rules}");
                }
            }
        }
        eprintln!("{sets} rule sets, {games} games, {loops} looped");
        assert!(
            sets >= 200 && loops >= 20,
            "{sets} rule sets, {loops} loops"
        );
    }

    #[test]
    fn logistic_recovers_a_known_curve() {
        // Expected counts of a = −1, b = 0.5 at x = 0..8, 10⁶ trials each: the fit is exact.
        let groups: Vec<_> = (0..9)
            .map(|x| {
                let p = 1.0 / (1.0 + (-(-1.0 + 0.5 * f64::from(x))).exp());
                (f64::from(x), 1_000_000, (p * 1e6).round() as u64)
            })
            .collect();
        let f = logistic(&groups).unwrap();
        assert!((f.slope - 0.5).abs() < 1e-4, "{f:?}");
        assert!((f.intercept + 1.0).abs() < 1e-4, "{f:?}");
        assert!(f.slope_se > 0.0 && f.slope_se < 0.01);
        assert!(logistic(&groups[..1]).is_none());
        // Separated groups have no finite fit.
        assert!(logistic(&[(0.0, 10, 0), (1.0, 10, 10)]).is_none());
    }

    #[test]
    fn the_strongest_cards_are_at_least_four() {
        let of = |pairs: &[(&str, &str)]| {
            HandCounts::top_values_of(&Rules::from_pairs(pairs.iter().copied()).unwrap())
        };
        assert_eq!(of(&[]), 1);
        assert_eq!(of(&[("deck", "jokers54")]), 2);
        assert_eq!(of(&[("decks", "2")]), 1);
        assert_eq!(
            of(&[("deck", "custom"), ("ranks", "13"), ("suits", "1")]),
            4
        );
        assert_eq!(of(&[("deck", "custom"), ("ranks", "2"), ("suits", "1")]), 2);
    }

    #[test]
    fn quantiles_treat_unended_games_as_longest() {
        let mut t = TimeCounts::new(1000, 0, 0);
        for s in 1..=10 {
            t.seconds.add(s);
        }
        t.unended = 10;
        let q = t.quantile(0.5).unwrap();
        assert_eq!(q.value, Some(10));
        assert_eq!(t.quantile(0.9).unwrap().value, None);
        assert_eq!(TimeCounts::new(2500, 1000, 0).seconds_of(3, 1, 0), 9);
    }

    #[test]
    fn call_it_pools_from_the_largest_lead() {
        let mut p = PositionCounts::new(10);
        // k = seat 0's cards of 10: lead 2k − 10.
        p.at[0][9] = [100, 99, 1]; // seat 0 leads by 8
        p.at[0][1] = [100, 2, 98]; // seat 1 leads by 8
        p.at[0][7] = [100, 80, 20]; // lead 4
        p.at[0][6] = [100, 60, 40]; // lead 2
        let called = |target| match p.call_it(0, target, 10) {
            Verdict::Called(c) => (c.lead, c.games, c.wins),
            other => panic!("{other:?}"),
        };
        // Lead 8: 197 of 200 (98.5 %, Wilson lower end 0.957).
        assert_eq!(called(0.95), (8, 200, 197));
        // Leads of 4 or more: 277 of 300 (92.3 %); of 2 or more 337 of 400 (84.25 %).
        assert_eq!(called(0.85), (4, 300, 277));
        assert_eq!(called(0.92), (4, 300, 277));
        match p.call_it(0, 0.92, 10) {
            // 92.3 % estimated, but the interval's lower end (0.888) is below 92 %.
            Verdict::Called(c) => assert!(!c.sure),
            other => panic!("{other:?}"),
        }
        assert_eq!(p.call_it(0, 0.995, 10), Verdict::NotReached { games: 400 });
        assert_eq!(p.call_it(0, 0.95, 10_000), Verdict::TooFew { games: 400 });
        // A few games with the largest lead falling short (33 of 40) do not hide a smaller
        // lead that reaches the level (8 or more: 230 of 240, 95.8 %).
        p.at[0][10] = [40, 33, 7];
        match p.call_it(0, 0.95, 10) {
            Verdict::Called(c) => assert_eq!((c.lead, c.games, c.wins), (8, 240, 230)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn counts_survive_json_and_merge_in_any_order() {
        let mut a = Decides::default();
        a.hand.by_top = vec![Outcomes {
            games: 3,
            wins: 1,
            losses: 2,
            ended: 3,
            length_sum: 30,
            length_sq: u128::from(u64::MAX) * 3,
        }];
        a.time = Some(TimeCounts::new(2000, 1000, 15000));
        let mut b = Decides::default();
        b.hand.by_value = vec![vec![[1, 1]], vec![[2, 0], [3, 1]]];
        b.position = Some(PositionCounts::new(4));
        let text = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<Decides>(&text).unwrap(), a);
        let (mut ab, mut ba) = (a.clone(), b.clone());
        ab.merge(&b);
        ba.merge(&a);
        assert_eq!(ab, ba);
    }
}
