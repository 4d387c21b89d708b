//! Hands and bankroll sessions.

use serde::{Deserialize, Serialize};
use warlab_engine::{GameRng, GameSeed};

use crate::rules::{CasinoRules, Decks, Strategy};
use crate::shoe::{Deal, Finite, Infinite, Stacked};

/// How a hand's main bet ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandResult {
    /// The player's card was higher: the bet wins 1 to 1.
    Win,
    /// The dealer's card was higher: the bet is lost.
    Loss,
    /// A tie, and the player gave up half the bet.
    Surrender,
    /// A tie, then the player's war card was higher: the raise wins, the bet pushes.
    WarWon,
    /// A tie, then the war cards tied too: as a war won, plus the bonus when the table pays it.
    WarTie,
    /// A tie, then the dealer's war card was higher: bet and raise are lost.
    WarLost,
}

impl HandResult {
    /// Every result, in the order of the data files' counts.
    pub const ALL: [HandResult; 6] = [
        HandResult::Win,
        HandResult::Loss,
        HandResult::Surrender,
        HandResult::WarWon,
        HandResult::WarTie,
        HandResult::WarLost,
    ];

    /// The name the data files use.
    pub fn name(self) -> &'static str {
        match self {
            HandResult::Win => "win",
            HandResult::Loss => "loss",
            HandResult::Surrender => "surrender",
            HandResult::WarWon => "war_won",
            HandResult::WarTie => "war_tie",
            HandResult::WarLost => "war_lost",
        }
    }
}

/// One hand: its cards' outcome and what it paid, per chip of the bet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hand {
    /// How the hand came out.
    pub result: HandResult,
    /// The first two cards tied (the tie bet wins).
    pub tie: bool,
    /// What the main bet (and raise) returned, in half-bets: +2 a win, −2 a loss, −1 a
    /// surrender, −4 a war lost, +4 a war tie with the bonus.
    pub main: i64,
    /// What the tie bet returned, in half-chips per chip of the tie bet: +20 or −2.
    pub tie_bet: i64,
    /// Cards taken from the shoe (2, or 7 with a war).
    pub cards: u8,
    /// The player's and the dealer's card, then their war cards (when there was a war).
    pub shown: [u8; 2],
    /// The player's and the dealer's war card, after a tie the player took to war.
    pub war: Option<[u8; 2]>,
    /// The hand was the first from a freshly shuffled shoe (always, for an infinite deck).
    pub fresh: bool,
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SessionEnd {
    /// The bankroll could no longer cover a hand (see [`CasinoRules::stake`]).
    Ruin,
    /// The bankroll reached the target.
    Target,
    /// The table's `hands` limit was reached.
    HandsLimit,
    /// No `hands` limit and the safety cap was hit: the session did not end.
    Capped,
}

impl SessionEnd {
    /// Every ending, in the order of the data files' counts.
    pub const ALL: [SessionEnd; 4] = [
        SessionEnd::Ruin,
        SessionEnd::Target,
        SessionEnd::HandsLimit,
        SessionEnd::Capped,
    ];

    /// The name the data files use.
    pub fn name(self) -> &'static str {
        match self {
            SessionEnd::Ruin => "ruin",
            SessionEnd::Target => "target",
            SessionEnd::HandsLimit => "hands_limit",
            SessionEnd::Capped => "capped",
        }
    }
}

/// One session's statistics. Money is in half-chips.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionRecord {
    /// Hands played.
    pub hands: u64,
    /// How the session ended (`None` while it is still being played).
    pub end: Option<SessionEnd>,
    /// Bankroll at the end, in half-chips.
    pub final_bankroll: i64,
    /// The highest bankroll during the session, in half-chips.
    pub peak_bankroll: i64,
    /// Σ over hands of [`Hand::main`] (half-bets): the main bet's result per chip bet.
    pub main: i64,
    /// The session's hands counted by kind.
    pub counts: HandCounts,
}

/// Counts of a set of hands: one session's (in its [`SessionRecord`]), or many sessions'
/// added up ([`HandCounts::add`]; an aggregate of sessions holds them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandCounts {
    /// Hands whose first two cards tied.
    pub ties: u64,
    /// Hands that went to war.
    pub wars: u64,
    /// Wars whose war cards tied too.
    pub war_ties: u64,
    /// Wars the dealer's war card won.
    pub wars_lost: u64,
    /// Ties the player surrendered.
    pub surrenders: u64,
    /// Shuffles of the shoe, the first of each session included.
    pub shuffles: u64,
    /// Cards taken from the shoe.
    pub cards: u64,
    /// Hands dealt first from a fresh shoe: exactly the hands whose expected value
    /// [`crate::exact`] computes.
    pub fresh: u64,
    /// Σ [`Hand::main`] over the fresh-shoe hands (half-bets).
    pub fresh_main: i64,
    /// Σ main² over the fresh-shoe hands.
    pub fresh_main_sq: u64,
    /// Fresh-shoe hands whose first two cards tied.
    pub fresh_ties: u64,
}

impl HandCounts {
    /// Adds another set's counts.
    pub fn add(&mut self, o: &HandCounts) {
        // Taken apart, so that a new count cannot be left out of the sum.
        let HandCounts {
            ties,
            wars,
            war_ties,
            wars_lost,
            surrenders,
            shuffles,
            cards,
            fresh,
            fresh_main,
            fresh_main_sq,
            fresh_ties,
        } = *o;
        self.ties += ties;
        self.wars += wars;
        self.war_ties += war_ties;
        self.wars_lost += wars_lost;
        self.surrenders += surrenders;
        self.shuffles += shuffles;
        self.cards += cards;
        self.fresh += fresh;
        self.fresh_main += fresh_main;
        self.fresh_main_sq += fresh_main_sq;
        self.fresh_ties += fresh_ties;
    }
}

/// A table set up once for a rule set: plays hands and sessions without allocating.
pub struct Table {
    rules: CasinoRules,
    shoe: Shoe,
}

/// The table's kind of shoe: each session's loop is compiled for one of them.
// A finite shoe holds its cards inline (512 bytes): a box would put a pointer between the
// session loop and the cards, and a table is built once per chunk of sessions.
#[allow(clippy::large_enum_variant)]
enum Shoe {
    Finite(Finite),
    Infinite(Infinite),
    Stacked(Stacked),
}

/// Runs `$body` with `$shoe` bound to the table's shoe as its own type.
macro_rules! with_shoe {
    ($table:expr, |$rules:ident, $shoe:ident| $body:expr) => {{
        let $rules = &$table.rules;
        match &mut $table.shoe {
            Shoe::Finite($shoe) => $body,
            Shoe::Infinite($shoe) => $body,
            Shoe::Stacked($shoe) => $body,
        }
    }};
}

impl Table {
    /// A table for `rules`, its shoe and loop set up once.
    pub fn new(rules: &CasinoRules) -> Table {
        Table {
            rules: rules.clone(),
            shoe: match rules.decks() {
                Decks::Finite(d) => Shoe::Finite(Finite::new(d, rules.penetration())),
                Decks::Infinite => Shoe::Infinite(Infinite),
            },
        }
    }

    /// A table dealing from a hand-built shoe (ranks 0..13, top first; never reshuffled).
    pub fn stacked(rules: &CasinoRules, cards: &[u8]) -> Table {
        Table {
            rules: rules.clone(),
            shoe: Shoe::Stacked(Stacked::new(cards)),
        }
    }

    /// The rules the table plays.
    pub fn rules(&self) -> &CasinoRules {
        &self.rules
    }

    /// Plays one hand from the shoe as it is (no reshuffle): the player's card, the dealer's,
    /// and on a tie the strategy's choice.
    pub fn hand(&mut self, rng: &mut GameRng) -> Hand {
        with_shoe!(self, |rules, shoe| play_hand(rules, shoe, rng, false))
    }

    /// Plays one session from the seed: a freshly shuffled shoe, then hands until the bankroll
    /// cannot cover a hand, reaches the target, or the hands limit (or safety cap) is reached.
    pub fn session(&mut self, seed: GameSeed) -> SessionRecord {
        // The generator is a local of the inlined loop: its state can stay in registers.
        let mut rng = GameRng::new(seed);
        self.session_observed(&mut rng, |_, _, _| {})
    }

    /// [`Table::session`] with the caller's random source (a stacked shoe needs none).
    pub fn session_with(&mut self, rng: &mut GameRng) -> SessionRecord {
        self.session_observed(rng, |_, _, _| {})
    }

    /// A session that shows every hand to `watch`: the hand, the bankroll after it (in
    /// half-chips), and whether the shoe was shuffled just before it.
    #[inline(always)]
    pub fn session_observed<F: FnMut(&Hand, i64, bool)>(
        &mut self,
        rng: &mut GameRng,
        watch: F,
    ) -> SessionRecord {
        with_shoe!(self, |rules, shoe| play_session(rules, shoe, rng, watch))
    }
}

/// One hand from `shoe`, the first after a shuffle if `fresh`.
#[inline(always)]
fn play_hand<D: Deal>(rules: &CasinoRules, shoe: &mut D, rng: &mut GameRng, fresh: bool) -> Hand {
    let (player, dealer) = shoe.two(rng);
    let hand = first_two::<D>(player, dealer, fresh);
    if hand.tie {
        play_tie(rules, shoe, rng, hand)
    } else {
        hand
    }
}

/// A hand as its first two cards decide it: a win, a loss, or a tie still to be played out.
/// Which card is higher is a coin toss: the result is computed without a branch (a
/// mispredicted one costs more than the rest of the hand).
#[inline(always)]
fn first_two<D: Deal>(player: u8, dealer: u8, fresh: bool) -> Hand {
    let higher = i64::from(player > dealer) - i64::from(player < dealer);
    Hand {
        result: if higher > 0 {
            HandResult::Win
        } else {
            HandResult::Loss
        },
        tie: higher == 0,
        main: 2 * higher,
        tie_bet: if higher == 0 { 20 } else { -2 },
        cards: 2,
        fresh: fresh || D::INFINITE,
        shown: [player, dealer],
        war: None,
    }
}

/// A tied hand played out: the strategy's surrender, or a war.
#[inline(always)]
fn play_tie<D: Deal>(rules: &CasinoRules, shoe: &mut D, rng: &mut GameRng, mut hand: Hand) -> Hand {
    match rules.strategy() {
        Strategy::Surrender => {
            hand.result = HandResult::Surrender;
            hand.main = -1;
        }
        Strategy::War => {
            // The dealer burns three cards, then deals one to each.
            shoe.two(rng);
            let (_, player) = shoe.two(rng);
            let dealer = shoe.one(rng);
            hand.cards = 7;
            hand.war = Some([player, dealer]);
            // Looked up, not branched on: the war cards are a coin toss too.
            let order = usize::from(player > dealer) + usize::from(player >= dealer);
            let tie_main = if rules.bonus() { 4 } else { 2 };
            hand.result = [HandResult::WarLost, HandResult::WarTie, HandResult::WarWon][order];
            hand.main = [-4, tie_main, 2][order];
        }
    }
    hand
}

/// What a session carries from hand to hand. Only `spare`, `peak` and `hands_left` change
/// with every hand; the record's counts change with a tie, a shuffle or a fresh hand.
struct Seat {
    /// The bankroll above the stake (half-chips): the session goes on while
    /// `0 ≤ spare < span`, one unsigned comparison.
    spare: i64,
    span: u64,
    peak: i64,
    hands_left: u64,
    r: SessionRecord,
}

impl Seat {
    /// Counts a hand that paid `paid` half-chips.
    #[inline(always)]
    fn settle(&mut self, h: &Hand, paid: i64) {
        self.spare += paid;
        self.peak = self.peak.max(self.spare);
        self.hands_left -= 1;
        let r = &mut self.r.counts;
        if h.tie {
            // Counted without a branch on the result.
            r.ties += 1;
            r.wars += u64::from(h.war.is_some());
            r.war_ties += u64::from(h.result == HandResult::WarTie);
            r.wars_lost += u64::from(h.result == HandResult::WarLost);
            r.surrenders += u64::from(h.result == HandResult::Surrender);
        }
        if h.fresh {
            r.fresh += 1;
            r.fresh_main += h.main;
            r.fresh_main_sq += (h.main * h.main) as u64;
            r.fresh_ties += u64::from(h.tie);
        }
    }
}

/// The session loop. Σ main is not counted hand by hand but worked out from the bankroll at
/// the end, and a tie is settled in its own branch, so that the loop of plain hands carries
/// little more than the generator, the shoe's position and the seat.
#[inline(always)]
fn play_session<D: Deal, F: FnMut(&Hand, i64, bool)>(
    rules: &CasinoRules,
    shoe: &mut D,
    rng: &mut GameRng,
    mut watch: F,
) -> SessionRecord {
    let bet = rules.bet() as i64;
    let tie_bet = rules.tie_bet() as i64;
    let stake = 2 * rules.stake() as i64;
    let target = rules.target().map_or(i64::MAX, |t| 2 * t as i64);
    let (limit, limit_end) = match rules.hands() {
        Some(h) => (h, SessionEnd::HandsLimit),
        None => (crate::SAFETY_CAP, SessionEnd::Capped),
    };
    // What a plain loss and a plain win pay (half-chips), looked up by the result.
    let plain = [-2 * bet - 2 * tie_bet, 2 * bet - 2 * tie_bet];
    let start = 2 * rules.bankroll() as i64 - stake;
    let mut seat = Seat {
        spare: start,
        span: (target - stake) as u64,
        peak: start,
        hands_left: limit,
        r: SessionRecord::default(),
    };
    // A session sits down at a freshly shuffled shoe.
    shoe.new_shoe();
    let end = loop {
        if seat.spare as u64 >= seat.span {
            break if seat.spare < 0 {
                SessionEnd::Ruin
            } else {
                SessionEnd::Target
            };
        }
        if seat.hands_left == 0 {
            break limit_end;
        }
        let shuffled = shoe.needs_shuffle();
        if shuffled {
            shoe.shuffle();
            seat.r.counts.shuffles += 1;
        }
        let (player, dealer) = shoe.two(rng);
        let h = first_two::<D>(player, dealer, shuffled);
        if h.tie {
            let h = play_tie(rules, shoe, rng, h);
            seat.settle(&h, h.main * bet + h.tie_bet * tie_bet);
            watch(&h, seat.spare + stake, shuffled);
        } else {
            seat.settle(&h, plain[usize::from(h.main > 0)]);
            watch(&h, seat.spare + stake, shuffled);
        }
    };
    let mut r = seat.r;
    r.end = Some(end);
    r.hands = limit - seat.hands_left;
    // The bankroll moved by bet · Σ main plus the tie bets, which paid 20 half-chips a tie and
    // took 2 otherwise.
    let ties = r.counts.ties;
    let tie_bets = 20 * ties as i64 - 2 * (r.hands - ties) as i64;
    let moved = seat.spare - start - tie_bet * tie_bets;
    debug_assert_eq!(moved % bet, 0);
    r.main = moved / bet;
    r.peak_bankroll = seat.peak + stake;
    r.final_bankroll = seat.spare + stake;
    // Two cards a hand, five more for every war.
    r.counts.cards = 2 * r.hands + 5 * r.counts.wars;
    r
}
