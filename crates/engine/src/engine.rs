//! [`Engine`]: plays games of one rule set, choosing once which loop plays them.
//!
//! Everything a game needs is allocated in [`Engine::new`]; playing a game allocates nothing.
//! The loops, from the most general to the most specialised (all play the same games with the
//! same random draws; property tests compare them record for record):
//! - [`HotLoop::General`]: the reference ([`crate::general`]) on ring buffers; it plays
//!   whenever an observer watches.
//! - [`HotLoop::Table`]: the table loop ([`crate::table`]) on the compact [`Seats`] layout, for
//!   every rule set: battles of 3–4 players and of hands in a few steps or in runs on lanes,
//!   wars on the seats, what they cannot pay for (and under `on_empty = lose` a battle that
//!   puts a seat out, or without hands one in which a stack is short of it) by the general
//!   battle on the same seats. Where the rules for two allow it, a game's last two seats go to the
//!   two-seat loops ([`LastTwo`]).
//! - [`HotLoop::Duo`]: the two-seat loop ([`crate::duo`]) for the 2-player rule sets without
//!   hands ([`duo::plays`]).
//! - [`HotLoop::Block`]: the vector loop ([`crate::block`], AVX-512) for the 2-player rule
//!   sets it plays ([`block::plays`]): no hands, an ordered ranking or a beats-table of at
//!   most 16 values, one pile or two, a prize or not, `speed` or not, any pick-up order,
//!   loops looked for where nothing is random, a deck of at most 256 cards.

use std::fmt;

use crate::cycle::Saves;
use crate::deal::Deal;
use crate::observe::{Observer, Quiet, View};
use crate::record::{EndReason, GameRecord};
use crate::rng::{GameRng, GameSeed, VariantSeed};
use crate::rules::Rules;
use crate::seats::Seats;
use crate::state::{Holdings, Scratch, State, Tally};
use crate::{block, duo, general, table};

/// The loops that can play a game, most general first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HotLoop {
    /// The reference loop, on ring buffers; every rule set, with or without an observer.
    General,
    /// The reference battle on the compact layout of the specialised loops; every rule set.
    Table,
    /// The two-seat loop: 2 players without hands.
    Duo,
    /// The vector block loop (the classic shape, two piles, a prize), on CPUs with AVX-512.
    Block,
}

impl HotLoop {
    /// Every loop, the reference first.
    pub const ALL: [HotLoop; 4] = [
        HotLoop::General,
        HotLoop::Table,
        HotLoop::Duo,
        HotLoop::Block,
    ];

    /// The loop's name, as `warlab bench` and the tests print it.
    pub fn name(self) -> &'static str {
        match self {
            HotLoop::General => "general",
            HotLoop::Table => "table",
            HotLoop::Duo => "duo",
            HotLoop::Block => "block",
        }
    }

    /// Whether this loop can play `rules` on this CPU.
    pub fn plays(self, rules: &Rules) -> bool {
        match self {
            HotLoop::General | HotLoop::Table => true,
            HotLoop::Duo => duo::plays(rules),
            HotLoop::Block => block::available() && block::plays(rules),
        }
    }

    /// The fastest loop for `rules` on this CPU.
    pub fn best(rules: &Rules) -> HotLoop {
        *HotLoop::ALL
            .iter()
            .rev()
            .find(|l| l.plays(rules))
            .expect("the general loop plays everything")
    }
}

impl fmt::Display for HotLoop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A reusable game player for one rule set. Create one per worker thread.
pub struct Engine {
    rules: Rules,
    hot: HotLoop,
    scratch: Scratch,
    /// The general loop's state: a game is dealt here for the general loop (and an observer)
    /// or from an explicit deal; the others go straight into `seats`, hands filled there.
    st: State,
    saves: Saves<State>,
    /// The specialised loops' layout and their loop-detection copies.
    seats: Seats,
    seat_saves: Saves<Seats>,
    /// Plain-battle outcomes under a beats-table ranking (empty for ordered rankings).
    duel: Vec<u8>,
    /// The deck of the last deal and the fresh order it is dealt from, each padded with zeros
    /// to whole 64-byte chunks: the copy before a shuffle is then a few fixed-size moves in
    /// line, not a call to `memmove` for a length known only at run time (games of 21 battles,
    /// `two-pile, lose`, ran 1.7 % faster; BENCHMARKS.md). Cards are the first `cards` bytes
    /// of each.
    deck: Vec<u8>,
    fresh: Vec<u8>,
    cards: usize,
    /// The two-seat loop that plays the last two seats of a table game, where one can.
    last_two: Option<LastTwo>,
    /// The seed chain's links of the variant played last: a run plays many games of one
    /// variant in a row, and the chain's first half is the same for all of them.
    variant_seed: VariantSeed,
}

/// The end of a game of 3–4 players, once only two seats are left: a 2-player game under the
/// same rules ([`Rules::last_two`]), played by the fastest two-seat loop on its own seats.
/// The table loop hands it over with the tally of the battles so far; the two seats' numbers
/// are mapped to 0 and 1 in seat order (so every pick-up order keeps its order) and back.
struct LastTwo {
    rules: Rules,
    /// The two-seat loop that plays, or `None` where a test keeps the game in the table loop.
    hot: Option<HotLoop>,
    /// Games handed over so far (the tests check that the hand-over happens).
    games: u64,
    scratch: Scratch,
    seats: Seats,
    saves: Saves<Seats>,
    duel: Vec<u8>,
}

impl LastTwo {
    fn new(rules: &Rules) -> Option<LastTwo> {
        let rules = rules.last_two()?;
        let hot = HotLoop::best(&rules);
        if !matches!(hot, HotLoop::Duo | HotLoop::Block) {
            return None;
        }
        let seats = Seats::new(&rules);
        Some(LastTwo {
            hot: Some(hot),
            games: 0,
            scratch: Scratch::new(&rules),
            saves: saves_for(&rules, &seats),
            seats,
            duel: duo::duel_table(&rules),
            rules,
        })
    }

    /// Plays the rest of the game of `from`'s two seats in the game, after the battles of
    /// `tally`.
    fn play(&mut self, from: &Seats, mut tally: Tally, rng: &mut GameRng) -> GameRecord {
        let a = from.in_game.trailing_zeros() as usize;
        let b = 7 - from.in_game.leading_zeros() as usize;
        debug_assert_eq!(from.in_game.count_ones(), 2);
        self.seats.take_pair(from, [a, b]);
        tally.leader = tally.leader.map(|l| {
            debug_assert!(
                l as usize == a || l as usize == b,
                "the leader is one of the two"
            );
            u8::from(l as usize == b)
        });
        self.games += 1;
        let r = &self.rules;
        let s = &mut self.seats;
        let mut record = match self.hot.expect("handed over only to a loop") {
            #[cfg(target_arch = "x86_64")]
            HotLoop::Block => {
                let (t, saves) = (&mut self.scratch, &mut self.saves);
                block::run(r, s, t, &self.duel, saves, tally, rng)
            }
            _ => {
                let ctx = duo::Ctx {
                    r,
                    t: &mut self.scratch,
                    duel: &self.duel,
                    saves: &mut self.saves,
                };
                duo::run(ctx, s, tally, rng)
            }
        };
        record.winner = record.winner.map(|w| [a, b][usize::from(w)] as u8);
        record
    }
}

/// Both seats' cards as dealt and after every battle, as [`Engine::play_traced`] writes them,
/// from an observer of the general loop.
struct Tracer<'a>(&'a mut Vec<[u16; 2]>);

impl Tracer<'_> {
    fn note(&mut self, view: &View<'_>) {
        self.0.push([view.cards(0) as u16, view.cards(1) as u16]);
    }
}

impl Observer for Tracer<'_> {
    fn game_start(&mut self, view: &View<'_>) {
        self.note(view);
    }

    fn battle_end(&mut self, _winner: Option<usize>, _pot: usize, view: &View<'_>) {
        self.note(view);
    }
}

/// The specialised loops' loop-detection copies, with the trail they note where the rules
/// look for loops.
fn saves_for(rules: &Rules, seats: &Seats) -> Saves<Seats> {
    if rules.detects_cycles() {
        Saves::with_trail(seats)
    } else {
        Saves::new(seats)
    }
}

impl Engine {
    /// Allocates everything any game under `rules` will need.
    pub fn new(rules: &Rules) -> Engine {
        let mut fresh = rules.cards.fresh_deck();
        let cards = fresh.len();
        fresh.resize(cards.next_multiple_of(64), 0);
        let st = State::new(rules);
        let seats = Seats::new(rules);
        Engine {
            hot: HotLoop::best(rules),
            scratch: Scratch::new(rules),
            saves: Saves::new(&st),
            st,
            seat_saves: saves_for(rules, &seats),
            seats,
            duel: duo::duel_table(rules),
            deck: fresh.clone(),
            fresh,
            cards,
            rules: rules.clone(),
            last_two: LastTwo::new(rules),
            variant_seed: VariantSeed::new(0, 0),
        }
    }

    /// Game `id`'s generator ([`GameRng::new`]'s), with the chain's first half kept from the
    /// last game when it was of the same variant.
    fn rng_of(&mut self, id: GameSeed) -> GameRng {
        self.variant_seed = self.variant_seed.for_game(id);
        GameRng::of_game(self.variant_seed, id.game)
    }

    /// Game `id`'s generator, after it shuffled the fresh deck into `deck`: the deal of every
    /// game played from a seed. (In line: the two callers' hot paths stay as they were.)
    #[inline(always)]
    fn shuffle_deck(&mut self, id: GameSeed) -> GameRng {
        let mut rng = self.rng_of(id);
        for (to, from) in self
            .deck
            .chunks_exact_mut(64)
            .zip(self.fresh.chunks_exact(64))
        {
            to.copy_from_slice(from);
        }
        rng.shuffle(&mut self.deck[..self.cards]);
        rng
    }

    /// The loop that plays these rules when no observer watches.
    pub fn hot_loop(&self) -> HotLoop {
        self.hot
    }

    /// The two-seat loop that plays a table game's last two seats, if these rules have one
    /// (3–4 players whose rules for two a two-seat loop plays).
    #[doc(hidden)]
    pub fn last_two_loop(&self) -> Option<HotLoop> {
        self.last_two.as_ref().and_then(|l| l.hot)
    }

    /// Has the last two seats of a table game played by `hot` (the duo or the block loop), or
    /// kept in the table loop (`None`), so that tests can compare every way. Returns `false`
    /// (and changes nothing) where these rules have no last two seats for that loop.
    #[doc(hidden)]
    pub fn force_last_two_loop(&mut self, hot: Option<HotLoop>) -> bool {
        let Some(last) = self.last_two.as_mut() else {
            return false;
        };
        let ok =
            hot.is_none_or(|h| matches!(h, HotLoop::Duo | HotLoop::Block) && h.plays(&last.rules));
        if ok {
            last.hot = hot;
        }
        ok
    }

    /// Lets the table loop play runs of two seats' hand battles in blocks (`on`, the default):
    /// with the block loop's vector code where this CPU has it, laid in place elsewhere where
    /// the rules allow it; or never, every battle one by one, so that tests and benchmarks can
    /// compare the ways. The games are the same.
    #[doc(hidden)]
    pub fn force_vectors(&mut self, on: bool) {
        // (The last two seats of a table game play in a two-seat loop, without hands.)
        self.seats.use_vectors(on);
    }

    /// Blocks of two seats' hand battles the table loop played with the block loop's vector
    /// code since this engine was made (counted again where loop detection replays a stretch;
    /// tests and `bench --portable` check the switch above).
    #[doc(hidden)]
    pub fn hand_blocks(&self) -> u64 {
        self.seats.hand_blocks()
    }

    /// Those of [`Engine::hand_blocks`] that made Brent's compare of a loop looked for, or
    /// the same compare with the position at the safety cap in the check past it (not counted
    /// again by the replays that find a loop's start, which look for none).
    #[doc(hidden)]
    pub fn looking_hand_blocks(&self) -> u64 {
        self.seats.looking_blocks()
    }

    /// Those of [`Engine::hand_blocks`] whose battles were laid one by one in place (no
    /// prize, one pile, no `speed`).
    #[doc(hidden)]
    pub fn in_place_hand_blocks(&self) -> u64 {
        self.seats.in_place_blocks()
    }

    /// Blocks of two seats' hand battles (no prize, one pile, no `speed`, one policy, an
    /// ordered ranking) the table loop laid in place with the code for every CPU, where it
    /// did not use the vector code (tests check the switch above).
    #[doc(hidden)]
    pub fn laid_hand_blocks(&self) -> u64 {
        self.seats.laid_blocks()
    }

    /// Loop replays since this engine was made whose hint, from the trail of a byte per
    /// battle the specialised loops note, proved wrong (a check for the tests: right trails
    /// give none, and a wrong hint changes no record, only the replay's time).
    #[doc(hidden)]
    pub fn wrong_hints(&self) -> u64 {
        let last_two = self.last_two.as_ref().map_or(0, |l| l.saves.wrong_hints);
        self.seat_saves.wrong_hints + last_two
    }

    /// The battles at which the specialised loops' first passes (the two-seat loop's, the
    /// block's and the ring's; not the reference detection that tables too big for the
    /// ring run) found their loops since this engine was made, summed: a check for the
    /// tests. Each must be the battle Brent's saves from the first look on imply, 32 · (2^k −
    /// 1) battles into a pass; a loop found later changes no record, only the time.
    #[doc(hidden)]
    pub fn first_finds(&self) -> u64 {
        let last_two = self.last_two.as_ref().map_or(0, |l| l.saves.first_finds);
        self.seat_saves.first_finds + last_two
    }

    /// Rounds of war the table loop played inside its runs, on the lanes, since this
    /// engine was made (counted again where loop detection replays a stretch; the tests check
    /// that they run).
    #[doc(hidden)]
    pub fn lane_wars(&self) -> u64 {
        self.seats.lane_wars()
    }

    /// Prizes the table loop's runs played without (a seat down to its last card, or a short
    /// hand's supply out) since this engine was made (counted again where loop detection
    /// replays a stretch; the tests check that such battles run).
    #[doc(hidden)]
    pub fn bare_prizes(&self) -> u64 {
        self.seats.bare_prizes()
    }

    /// Games whose last two seats went to a two-seat loop since this engine was made.
    #[doc(hidden)]
    pub fn last_two_games(&self) -> u64 {
        self.last_two.as_ref().map_or(0, |l| l.games)
    }

    /// Plays every later game with `hot` instead of the fastest loop, so that tests and
    /// benchmarks can compare the loops on one machine. Returns `false` (and changes nothing)
    /// if that loop cannot play these rules here.
    #[doc(hidden)]
    pub fn force_loop(&mut self, hot: HotLoop) -> bool {
        let ok = hot.plays(&self.rules);
        if ok {
            self.hot = hot;
        }
        ok
    }

    /// The rules this engine plays.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Plays game `id` from a shuffled deal.
    pub fn play(&mut self, id: GameSeed) -> GameRecord {
        self.play_observed(id, &mut Quiet)
    }

    /// Plays game `id` from a shuffled deal, showing every card to `obs`.
    pub fn play_observed<O: Observer>(&mut self, id: GameSeed, obs: &mut O) -> GameRecord {
        let mut rng = self.shuffle_deck(id);
        let np = self.rules.players;
        let dealt = &self.deck[..self.rules.per_player * np];
        // Card i goes to seat i mod np: each seat's share is every np-th card.
        if !O::ACTIVE && self.hot != HotLoop::General && dealt.len() >= np {
            // Straight into the specialised loops' seats: the general state would only be
            // copied there (`run`). Every seat holds the same number of cards, at least one
            // (a hand's count too): all are in the game and nobody leads.
            self.seats.deal(dealt);
            if self.rules.hand > 0 {
                self.seats.deal_hands(self.rules.hand);
            }
            return self.play_seats(Tally::default(), &mut rng);
        }
        self.st.clear();
        for p in 0..np {
            self.st.stacks[p].extend_strided(dealt, p, np);
        }
        self.run(&mut rng, obs)
    }

    /// Whether [`Engine::play_traced`] plays these rules through the two-seat loop: 2 players
    /// without hands ([`HotLoop::Duo`]'s rules) and without a prize. Other 2-player rules are
    /// traced through the general loop.
    pub fn traces_fast(&self) -> bool {
        duo::traces(&self.rules)
    }

    /// Plays game `id` (the record [`Engine::play`] gives) and writes into `trace` (cleared
    /// first) both seats' cards as dealt, then after every battle: the position a follower of
    /// a game reads ([`View::cards`](crate::View::cards) at the game's start and at each
    /// battle's end), without an observer on the general loop. Where the two-seat loop plays
    /// the rules ([`Engine::traces_fast`]) it plays the game, several times faster. A game
    /// found to loop may be traced past its loop's first turn, by a different number of
    /// battles than an observer of the general loop sees (each loop looks for loops at its own
    /// battles); the battles up to the end of the loop's first turn are always there. Panics
    /// unless the rules are for 2 players.
    pub fn play_traced(&mut self, id: GameSeed, trace: &mut Vec<[u16; 2]>) -> GameRecord {
        assert_eq!(self.rules.players, 2, "a trace is of two seats");
        trace.clear();
        if !self.traces_fast() {
            return self.play_observed(id, &mut Tracer(trace));
        }
        let mut rng = self.shuffle_deck(id);
        // (Every seat is dealt a card: a 2-player deck holds at least two.)
        self.seats.deal(&self.deck[..self.rules.per_player * 2]);
        // The buffer lent to the two-seat loop for the game, through its scratch.
        self.scratch.trace = Some(std::mem::take(trace));
        let ctx = duo::Ctx {
            r: &self.rules,
            t: &mut self.scratch,
            duel: &self.duel,
            saves: &mut self.seat_saves,
        };
        let record = duo::run(ctx, &mut self.seats, Tally::default(), &mut rng);
        *trace = self
            .scratch
            .trace
            .take()
            .expect("the trace lent for the game");
        record
    }

    /// The cards dealt in the last game [`Engine::play`] (or [`Engine::play_observed`])
    /// played, in the order they were dealt: card `i` went to seat `i mod players`. Nothing is
    /// copied or kept for it, so reading the deal costs the game nothing. (After an explicit
    /// deal, read the [`Deal`] instead.)
    pub fn dealt(&self) -> &[u8] {
        &self.deck[..self.rules.per_player * self.rules.players]
    }

    /// Plays an explicit deal. `id` seeds whatever is random during play (shuffled pick-ups).
    pub fn play_deal(&mut self, deal: &Deal, id: GameSeed) -> GameRecord {
        self.play_deal_observed(deal, id, &mut Quiet)
    }

    /// Plays an explicit deal, showing every card to `obs`.
    pub fn play_deal_observed<O: Observer>(
        &mut self,
        deal: &Deal,
        id: GameSeed,
        obs: &mut O,
    ) -> GameRecord {
        assert_eq!(
            deal.stacks.len(),
            self.rules.players,
            "deal checked against these rules"
        );
        let mut rng = self.rng_of(id);
        self.st.clear();
        for (p, s) in deal.stacks.iter().enumerate() {
            self.st.stacks[p].extend(s);
        }
        self.run(&mut rng, obs)
    }

    fn run<O: Observer>(&mut self, rng: &mut GameRng, obs: &mut O) -> GameRecord {
        let r = &self.rules;
        self.st.deal_in(r);
        if O::ACTIVE {
            obs.game_start(&self.st.view());
        }
        let mut tally = Tally::default();
        tally.note_leader(self.st.leader());
        if self.st.in_game.count_ones() <= 1 {
            let w = (self.st.in_game != 0).then(|| self.st.in_game.trailing_zeros() as u8);
            return tally.record(EndReason::AllCards, w, None);
        }
        if O::ACTIVE || self.hot == HotLoop::General {
            let t = &mut self.scratch;
            return general::run(r, t, &mut self.st, &mut self.saves, tally, rng, obs);
        }
        self.seats.load(&self.st);
        self.play_seats(tally, rng)
    }

    /// Plays the game from the seats (dealt, nothing won yet) with the specialised loop.
    fn play_seats(&mut self, tally: Tally, rng: &mut GameRng) -> GameRecord {
        let (r, t, s) = (&self.rules, &mut self.scratch, &mut self.seats);
        match self.hot {
            HotLoop::General => unreachable!("the general loop plays in `run`"),
            HotLoop::Table => {
                let saves = &mut self.seat_saves;
                let two = self.last_two.as_ref().is_some_and(|l| l.hot.is_some());
                match table::run(r, t, s, saves, tally, rng, two) {
                    table::Played::Over(record) => record,
                    table::Played::LastTwo(tally) => self
                        .last_two
                        .as_mut()
                        .expect("asked for only with a two-seat loop")
                        .play(s, tally, rng),
                }
            }
            HotLoop::Duo => {
                let ctx = duo::Ctx {
                    r,
                    t,
                    duel: &self.duel,
                    saves: &mut self.seat_saves,
                };
                duo::run(ctx, s, tally, rng)
            }
            #[cfg(target_arch = "x86_64")]
            HotLoop::Block => block::run(r, s, t, &self.duel, &mut self.seat_saves, tally, rng),
            #[cfg(not(target_arch = "x86_64"))]
            HotLoop::Block => unreachable!("no block loop off x86-64"),
        }
    }
}
