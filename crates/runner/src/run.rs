//! Plays an experiment's games on a thread pool, in chunks, and hands the results to a
//! [`Sink`] in a fixed order.
//!
//! The games of a variant are cut into chunks of [`CHUNK`] game indices, aligned to multiples of
//! [`CHUNK`], so a chunk's games do not depend on the range asked for. Chunks of all variants
//! go to the pool together (a slow variant never leaves a core idle) with a bounded number in
//! flight; the calling thread puts the finished chunks back in order and gives them to the sink
//! one by one. Whatever the thread count, the sink sees the same calls with the same data.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use warlab_engine::{Deal, Engine, GameRecord, GameSeed, Rules};
use warlab_experiment::{Experiment, RuleSet, Variant};
use warlab_stats::decides::{Decides, TimeCounts, Watch};
use warlab_stats::{Aggregate, BlockSums, running_block};

/// A game the runner can play: War ([`Rules`]) or Casino War
/// ([`warlab_casino::CasinoRules`]). A "game" of the plan is one War game or one Casino War
/// session; its aggregate holds exact, mergeable counts.
pub trait Game: RuleSet {
    /// Exact counts of a set of games, mergeable in any order.
    type Aggregate: Clone + Default + Send + Serialize + DeserializeOwned + 'static;
    /// One game's per-game row (written when rows are asked for).
    type Row: Clone + Send + 'static;
    /// Plays game indices `games` of `variant` (of an experiment of `total` games per
    /// variant): their aggregate and, when `rows`, their rows.
    fn play_chunk(
        variant: &Variant<Self>,
        seed: u64,
        games: Range<u64>,
        rows: bool,
        total: u64,
    ) -> (Self::Aggregate, Vec<Self::Row>);
    /// Adds `other`'s counts to `into`.
    fn merge(into: &mut Self::Aggregate, other: &Self::Aggregate);
    /// Games counted in an aggregate.
    fn played(aggregate: &Self::Aggregate) -> u64;
}

impl Game for Rules {
    type Aggregate = Aggregate;
    type Row = GameRow;
    fn play_chunk(
        variant: &Variant<Rules>,
        seed: u64,
        games: Range<u64>,
        rows: bool,
        total: u64,
    ) -> (Aggregate, Vec<GameRow>) {
        play_chunk(variant, seed, games, rows, total)
    }
    fn merge(into: &mut Aggregate, other: &Aggregate) {
        into.merge(other);
    }
    fn played(aggregate: &Aggregate) -> u64 {
        aggregate.games
    }
}

/// Games per chunk: one block of the aggregates' running counts ([`warlab_stats::BLOCK`]),
/// so that a chunk fills exactly one block. Large enough that merging and scheduling cost
/// nothing, small enough that a slow variant still splits over every core.
pub const CHUNK: u64 = warlab_stats::BLOCK;

/// Shard `i` of `n` (0-based) of a variant's `games`: whole chunks, contiguous, the same for
/// every variant, so the shards in order are exactly the one-machine run. Shards beyond the
/// number of chunks are empty.
pub fn shard_range(games: u64, i: u64, n: u64) -> Range<u64> {
    assert!(n >= 1 && i < n, "shard {i} of {n}");
    // In 128 bits: `i × chunks` overflows 64 for large shard counts and game counts.
    let chunks = u128::from(games.div_ceil(CHUNK));
    let at = |k: u64| {
        let games_before = u128::from(k) * chunks / u128::from(n) * u128::from(CHUNK);
        u64::try_from(games_before).map_or(games, |g| g.min(games))
    };
    at(i)..at(i + 1)
}

/// One game, as written to `games.parquet`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game's index in its variant.
    pub game: u64,
    /// What the game left behind.
    pub record: GameRecord,
}

/// What a run does with its results. Calls come in order: for each variant (in experiment
/// order, skipping those [`Sink::is_done`] reports), its chunks' rows in game order, then
/// [`Sink::variant_done`] with the variant's aggregate.
pub trait Sink<G: Game = Rules> {
    /// What can go wrong while keeping results (a write error).
    type Error;
    /// A variant already finished by an earlier, interrupted run: not played again.
    fn is_done(&self, variant: usize) -> bool;
    /// Per-game rows of one chunk (only when rows were asked for).
    fn rows(&mut self, variant: usize, rows: &[G::Row]) -> Result<(), Self::Error>;
    /// The variant's aggregate, after all its rows.
    fn variant_done(&mut self, variant: usize, aggregate: G::Aggregate) -> Result<(), Self::Error>;
    /// `games` more games of `variant` were played (in any order; for progress only).
    fn progress(&mut self, _variant: usize, _games: u64) {}

    /// True when the run should stop early (an interrupt): no chunk is started after it says
    /// so, the chunks in flight are finished and handed over in order, and [`run`] returns.
    fn should_stop(&self) -> bool {
        false
    }
}

/// What to play.
#[derive(Clone, Debug)]
pub struct Plan<'a, G: RuleSet = Rules> {
    /// The checked experiment.
    pub experiment: &'a Experiment<G>,
    /// Game indices played in every variant.
    pub games: Range<u64>,
    /// The experiment seed the games are played with (the file's, or `--seed`).
    pub seed: u64,
    /// Whether per-game rows are produced.
    pub rows: bool,
    /// Worker threads of the pool (at least one).
    pub threads: usize,
}

struct Job {
    variant: usize,
    games: Range<u64>,
    last: bool,
}

struct Done<G: Game> {
    aggregate: G::Aggregate,
    rows: Vec<G::Row>,
}

/// The chunks of the pending variants, in order, made as they are needed: a plan of many
/// variants × billions of games has more chunks than memory would hold as a list.
fn jobs<'p, G: Game>(
    plan: &'p Plan<'_, G>,
    pending: &'p [usize],
) -> impl Iterator<Item = Job> + 'p {
    pending.iter().flat_map(move |&v| {
        // A variant may play fewer games than the plan (its own `games`).
        let Range { start, end } = plan.experiment.variants[v].games_in(plan.games.clone());
        let mut lo = start;
        // A variant with no games in range still gets one (empty) job, to be finished.
        let mut empty = start >= end;
        std::iter::from_fn(move || {
            if empty {
                empty = false;
                return Some(Job {
                    variant: v,
                    games: start..start,
                    last: true,
                });
            }
            if lo >= end {
                return None;
            }
            let hi = ((lo / CHUNK + 1) * CHUNK).min(end);
            let job = Job {
                variant: v,
                games: lo..hi,
                last: hi == end,
            };
            lo = hi;
            Some(job)
        })
    })
}

/// Plays game indices `games` of `variant`, of an experiment of `total` games per variant
/// (which sets the blocks of the running counts).
///
/// The games go in pieces of 256. Where the games played so far say that the rest of the
/// range (at least two pieces) would take 20 ms or more, the rest is cut in two halves that
/// an idle worker of the pool may take over (`rayon::join`; otherwise this thread plays
/// both), each half going on the same way (called outside a pool, the halves go to rayon's
/// global pool). A chunk of slow games (4,096 games of 70,000 battles with hands of three
/// take seconds) would otherwise hold a run's end on one core while the others wait. The
/// halves' counts are merged exactly and their rows laid in game order: the result is the
/// same whichever thread played which game.
pub fn play_chunk(
    variant: &Variant,
    seed: u64,
    games: Range<u64>,
    rows: bool,
    total: u64,
) -> (Aggregate, Vec<GameRow>) {
    debug_assert!(
        games.is_empty() || (games.end - 1) / CHUNK == games.start / CHUNK,
        "a chunk is within one chunk's games"
    );
    let setup = Setup {
        variant,
        seed,
        rows,
        // The variant's games, not the range's: every shard and slice cuts the same blocks.
        block_games: running_block(variant.games.unwrap_or(total)),
        split_after: SPLIT_AFTER,
    };
    play_range(&setup, games)
}

/// Games played before a range looks at whether its rest is worth cutting in two.
const PIECE: u64 = 256;

/// The rest of a range worth cutting in two: far more than what a cut costs (an engine and
/// empty counts made, the counts merged: well under a millisecond).
const SPLIT_AFTER: Duration = Duration::from_millis(20);

/// What every part of a chunk plays with.
struct Setup<'a> {
    variant: &'a Variant,
    seed: u64,
    rows: bool,
    block_games: u64,
    /// [`SPLIT_AFTER`] (a test cuts wherever it may).
    split_after: Duration,
}

/// Plays the games `games` of a chunk, piece by piece, cutting the rest in two where it is
/// worth it ([`play_chunk`]).
fn play_range(setup: &Setup<'_>, games: Range<u64>) -> (Aggregate, Vec<GameRow>) {
    let mut part = Part::new(setup, &games);
    let started = Instant::now();
    let mut g = games.start;
    while g < games.end {
        let to = (g + PIECE).min(games.end);
        part.play(setup, g..to);
        g = to;
        let left = games.end - g;
        let done = u32::try_from(g - games.start).unwrap_or(u32::MAX);
        let rest =
            (started.elapsed() / done).saturating_mul(u32::try_from(left).unwrap_or(u32::MAX));
        if left >= 2 * PIECE && rest >= setup.split_after {
            let mid = g + left / 2;
            // (Finished first: its engine is not kept while the halves play.)
            let (mut aggregate, mut out) = part.finish();
            let ((a, rows_a), (b, rows_b)) = rayon::join(
                || play_range(setup, g..mid),
                || play_range(setup, mid..games.end),
            );
            aggregate.merge(&a);
            aggregate.merge(&b);
            out.extend(rows_a);
            out.extend(rows_b);
            return (aggregate, out);
        }
    }
    part.finish()
}

/// The engine and the counts of one part of a chunk's games, as they are played.
struct Part {
    engine: Engine,
    aggregate: Aggregate,
    out: Vec<GameRow>,
    watch: Watch,
    trace: Vec<[u16; 2]>,
    /// Whether followed games are traced by the two-seat loop.
    traced: bool,
    /// The block of the running counts being filled, and its sums so far.
    block: u64,
    sums: BlockSums,
}

impl Part {
    fn new(setup: &Setup<'_>, games: &Range<u64>) -> Part {
        let variant = setup.variant;
        let rules = &variant.rules;
        let engine = Engine::new(rules);
        let mut aggregate = Aggregate {
            block_games: setup.block_games,
            ..Aggregate::default()
        };
        let time = variant.decides.time;
        let cards = variant
            .deal
            .as_ref()
            .map_or(rules.cards_in_play(), Deal::len);
        aggregate.decides = Decides::new(
            rules,
            cards,
            variant.decides.position.any(),
            TimeCounts::new(time.battle_ms, time.war_card_ms, time.shuffle_ms),
        );
        // (`traces_fast`: two seats without hands or a prize.)
        let traced = engine.traces_fast() && Decides::time_from_record(rules);
        let out = Vec::with_capacity(if setup.rows {
            (games.end - games.start) as usize
        } else {
            0
        });
        Part {
            engine,
            aggregate,
            out,
            watch: Watch::default(),
            trace: Vec::new(),
            traced,
            block: games.start / setup.block_games,
            sums: BlockSums::default(),
        }
    }

    /// Plays and counts the games `games`, which follow those counted so far.
    fn play(&mut self, setup: &Setup<'_>, games: Range<u64>) {
        let variant = setup.variant;
        let rules = &variant.rules;
        // A followed game plays through the reference loop with an observer, or, where two
        // seats without hands need the cards alone (their times come from the record),
        // through the two-seat loop, which traces the cards; the others through the fastest
        // loop. The hand is read from the deal afterwards.
        let follow = variant.decides.position;
        let (engine, watch, trace) = (&mut self.engine, &mut self.watch, &mut self.trace);
        for g in games {
            if g / setup.block_games != self.block {
                self.aggregate.seal(self.block, &self.sums);
                (self.block, self.sums) = (g / setup.block_games, BlockSums::default());
            }
            let id = GameSeed::new(setup.seed, variant.seed_id, g);
            let followed = follow.follows(g);
            let record = match (&variant.deal, followed) {
                (Some(deal), false) => engine.play_deal(deal, id),
                (Some(deal), true) => engine.play_deal_observed(deal, id, watch),
                (None, false) => engine.play(id),
                (None, true) if self.traced => {
                    let record = engine.play_traced(id, trace);
                    watch.follow_trace(trace);
                    record
                }
                (None, true) => engine.play_observed(id, watch),
            };
            self.aggregate.add(g, &record);
            let watched = followed.then_some(&*watch);
            match &variant.deal {
                Some(deal) => {
                    let seat0 = (&deal.stacks()[0][..], 1);
                    self.aggregate.decides.add(rules, seat0, &record, watched);
                }
                None => {
                    let dealt = (engine.dealt(), rules.players());
                    self.aggregate.decides.add(rules, dealt, &record, watched);
                }
            }
            self.sums.add(&record);
            if setup.rows {
                self.out.push(GameRow { game: g, record });
            }
        }
    }

    /// The counts and rows of the games played, the last block's sums sealed (a block cut
    /// between two ranges is sealed by each, and their sums add up in the merge).
    fn finish(mut self) -> (Aggregate, Vec<GameRow>) {
        self.aggregate.seal(self.block, &self.sums);
        (self.aggregate, self.out)
    }
}

/// Runs the plan; returns the first error of the sink (after the chunks in flight finish).
pub fn run<G: Game, S: Sink<G>>(plan: &Plan<'_, G>, sink: &mut S) -> Result<(), S::Error> {
    let exp = plan.experiment;
    let pending: Vec<usize> = (0..exp.variants.len())
        .filter(|&v| !sink.is_done(v))
        .collect();
    let mut submit = jobs(plan, &pending).enumerate().peekable();
    let mut emit = jobs(plan, &pending);
    if submit.peek().is_none() {
        return Ok(());
    }
    let threads = plan.threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("warlab-worker-{i}"))
        .build()
        .expect("a thread pool");
    // Enough chunks in flight to keep every worker busy while the sink writes; bounded so
    // that rows waiting to be written stay few.
    let window = threads * 3;
    let (tx, rx) = mpsc::channel::<(usize, usize, Done<G>)>();
    let mut next_emit = 0;
    let mut ready: BTreeMap<usize, Done<G>> = BTreeMap::new();
    let mut aggregates: BTreeMap<usize, G::Aggregate> = BTreeMap::new();
    let mut failure = None;
    let mut in_flight = 0;
    loop {
        while failure.is_none() && in_flight < window && !sink.should_stop() {
            let Some((i, job)) = submit.next() else {
                break;
            };
            let v = job.variant;
            let variant = exp.variants[v].clone();
            let (games, seed, rows, total) = (job.games, plan.seed, plan.rows, exp.games);
            let tx = tx.clone();
            pool.spawn(move || {
                let (aggregate, rows) = G::play_chunk(&variant, seed, games, rows, total);
                // The receiver only goes away after every chunk in flight came back.
                let _ = tx.send((i, v, Done { aggregate, rows }));
            });
            in_flight += 1;
        }
        if in_flight == 0 {
            break;
        }
        let (i, v, done) = rx
            .recv()
            .expect("workers hold a sender while chunks are in flight");
        in_flight -= 1;
        sink.progress(v, G::played(&done.aggregate));
        ready.insert(i, done);
        while let Some(done) = ready.remove(&next_emit) {
            let job = emit.next().expect("the same jobs as submitted, in order");
            next_emit += 1;
            if failure.is_some() {
                continue;
            }
            if plan.rows
                && let Err(e) = sink.rows(job.variant, &done.rows)
            {
                failure = Some(e);
                continue;
            }
            let agg = aggregates.entry(job.variant).or_default();
            G::merge(agg, &done.aggregate);
            if job.last {
                let agg = aggregates.remove(&job.variant).unwrap_or_default();
                if let Err(e) = sink.variant_done(job.variant, agg) {
                    failure = Some(e);
                }
            }
        }
    }
    failure.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use warlab_experiment::Experiment;

    /// A chunk cut into parts wherever it may be (after every piece, into halves that do not
    /// fall on the running counts' blocks) gives the counts and rows of one played straight
    /// through: games followed battle by battle or not, hands, loops.
    #[test]
    fn a_chunk_cut_into_parts_plays_as_one() {
        let text = "name = \"cut\"\ngames = 3000\nseed = 9\n[decides]\nposition = 700\n\
                    [[variant]]\nname = \"classic\"\n\
                    [[variant]]\nname = \"hands\"\nhand = 3\n\
                    [[variant]]\nname = \"loops\"\npickup = \"seat\"\nwar_down = 1\n";
        let exp = Experiment::parse(Path::new("cut.toml"), text).unwrap_or_else(|e| panic!("{e}"));
        for variant in &exp.variants {
            let play = |split_after| {
                let setup = Setup {
                    variant,
                    seed: 9,
                    rows: true,
                    block_games: running_block(3000),
                    split_after,
                };
                play_range(&setup, 0..3000)
            };
            let (whole, rows) = play(Duration::MAX);
            let (cut, cut_rows) = play(Duration::ZERO);
            assert_eq!(cut, whole, "{}", variant.name);
            assert_eq!(cut_rows, rows, "{}", variant.name);
            assert_eq!(whole.games, 3000);
            assert!(
                whole.blocks.len() > 100,
                "{}: blocks of 16 games",
                variant.name
            );
            let position = whole.decides.position.as_ref().expect("followed games");
            assert!(position.followed > 0, "{}", variant.name);
        }
        // (Games that loop are among the counts compared.)
        let setup = Setup {
            variant: &exp.variants[2],
            seed: 9,
            rows: false,
            block_games: running_block(3000),
            split_after: Duration::ZERO,
        };
        let (cut, _) = play_range(&setup, 0..3000);
        assert!(!cut.cycle_examples.is_empty(), "games that loop");
    }
}
