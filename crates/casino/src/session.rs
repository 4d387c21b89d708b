//! Hands and bankroll sessions.

use warlab_engine::{GameRng, GameSeed};

use crate::rules::{CasinoRules, Strategy};
use crate::shoe::Shoe;

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
    pub const ALL: [HandResult; 6] = [
        HandResult::Win,
        HandResult::Loss,
        HandResult::Surrender,
        HandResult::WarWon,
        HandResult::WarTie,
        HandResult::WarLost,
    ];

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
    pub const ALL: [SessionEnd; 4] = [
        SessionEnd::Ruin,
        SessionEnd::Target,
        SessionEnd::HandsLimit,
        SessionEnd::Capped,
    ];

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
    pub hands: u64,
    pub end: Option<SessionEnd>,
    /// Bankroll at the end, in half-chips.
    pub final_bankroll: i64,
    /// The highest bankroll during the session, in half-chips.
    pub peak_bankroll: i64,
    /// Σ over hands of [`Hand::main`] (half-bets): the main bet's result per chip bet.
    pub main: i64,
    /// Hands whose first two cards tied.
    pub ties: u64,
    /// Hands that went to war, and of those, how many ended in a tie on the war cards.
    pub wars: u64,
    pub war_ties: u64,
    pub wars_lost: u64,
    pub surrenders: u64,
    /// Shuffles of the shoe, the first included.
    pub shuffles: u64,
    pub cards: u64,
    /// Hands dealt first from a fresh shoe: their count, Σ main, Σ main² and ties. These are
    /// exactly the hands whose expected value [`crate::exact`] computes.
    pub fresh: u64,
    pub fresh_main: i64,
    pub fresh_main_sq: u64,
    pub fresh_ties: u64,
}

/// A table set up once for a rule set: plays hands and sessions without allocating.
pub struct Table {
    rules: CasinoRules,
    shoe: Shoe,
}

impl Table {
    pub fn new(rules: &CasinoRules) -> Table {
        Table {
            rules: rules.clone(),
            shoe: Shoe::new(rules),
        }
    }

    /// A table dealing from a hand-built shoe (never reshuffled).
    pub fn stacked(rules: &CasinoRules, cards: &[u8]) -> Table {
        Table {
            rules: rules.clone(),
            shoe: Shoe::stacked(cards),
        }
    }

    pub fn rules(&self) -> &CasinoRules {
        &self.rules
    }

    /// Plays one hand from the shoe as it is (no reshuffle): the player's card, the dealer's,
    /// and on a tie the strategy's choice.
    pub fn hand(&mut self, rng: &mut GameRng) -> Hand {
        let shoe = &mut self.shoe;
        let player = shoe.draw(rng);
        let dealer = shoe.draw(rng);
        let mut hand = Hand {
            result: HandResult::Win,
            tie: player == dealer,
            main: 2,
            tie_bet: if player == dealer { 20 } else { -2 },
            cards: 2,
            fresh: false,
            shown: [player, dealer],
            war: None,
        };
        if player < dealer {
            hand.result = HandResult::Loss;
            hand.main = -2;
        } else if player == dealer {
            match self.rules.strategy() {
                Strategy::Surrender => {
                    hand.result = HandResult::Surrender;
                    hand.main = -1;
                }
                Strategy::War => {
                    // The dealer burns three cards, then deals one to each.
                    for _ in 0..3 {
                        shoe.draw(rng);
                    }
                    let player = shoe.draw(rng);
                    let dealer = shoe.draw(rng);
                    hand.cards = 7;
                    hand.war = Some([player, dealer]);
                    (hand.result, hand.main) = if player > dealer {
                        (HandResult::WarWon, 2)
                    } else if player == dealer {
                        (HandResult::WarTie, if self.rules.bonus() { 4 } else { 2 })
                    } else {
                        (HandResult::WarLost, -4)
                    };
                }
            }
        }
        hand
    }

    /// Plays one session from the seed: a freshly shuffled shoe, then hands until the bankroll
    /// cannot cover a hand, reaches the target, or the hands limit (or safety cap) is reached.
    pub fn session(&mut self, seed: GameSeed) -> SessionRecord {
        let mut rng = GameRng::new(seed);
        self.session_with(&mut rng)
    }

    /// [`Table::session`] with the caller's random source (a stacked shoe needs none).
    pub fn session_with(&mut self, rng: &mut GameRng) -> SessionRecord {
        self.session_observed(rng, |_, _, _| {})
    }

    /// A session that shows every hand to `watch`: the hand, the bankroll after it (in
    /// half-chips), and whether the shoe was shuffled just before it.
    pub fn session_observed<F: FnMut(&Hand, i64, bool)>(
        &mut self,
        rng: &mut GameRng,
        mut watch: F,
    ) -> SessionRecord {
        let bet = self.rules.bet() as i64;
        let tie_bet = self.rules.tie_bet() as i64;
        let stake = 2 * self.rules.stake() as i64;
        let target = self.rules.target().map(|t| 2 * t as i64);
        let (limit, limit_end) = match self.rules.hands() {
            Some(h) => (h, SessionEnd::HandsLimit),
            None => (crate::SAFETY_CAP, SessionEnd::Capped),
        };
        let mut bank = 2 * self.rules.bankroll() as i64;
        let mut r = SessionRecord {
            peak_bankroll: bank,
            ..SessionRecord::default()
        };
        // A session sits down at a freshly shuffled shoe.
        let mut fresh = true;
        self.shoe.new_shoe(rng);
        r.shuffles += u64::from(!self.shoe.is_infinite());
        let end = loop {
            if bank < stake {
                break SessionEnd::Ruin;
            }
            if target.is_some_and(|t| bank >= t) {
                break SessionEnd::Target;
            }
            if r.hands == limit {
                break limit_end;
            }
            if self.shoe.needs_shuffle() {
                self.shoe.shuffle(rng);
                r.shuffles += 1;
                fresh = true;
            }
            let mut h = self.hand(rng);
            h.fresh = fresh || self.shoe.is_infinite();
            let shuffled = fresh && !self.shoe.is_infinite();
            fresh = false;
            bank += h.main * bet + h.tie_bet * tie_bet;
            watch(&h, bank, shuffled);
            r.peak_bankroll = r.peak_bankroll.max(bank);
            r.hands += 1;
            r.main += h.main;
            r.cards += u64::from(h.cards);
            r.ties += u64::from(h.tie);
            match h.result {
                HandResult::Surrender => r.surrenders += 1,
                HandResult::WarWon => r.wars += 1,
                HandResult::WarTie => {
                    r.wars += 1;
                    r.war_ties += 1;
                }
                HandResult::WarLost => {
                    r.wars += 1;
                    r.wars_lost += 1;
                }
                HandResult::Win | HandResult::Loss => {}
            }
            if h.fresh {
                r.fresh += 1;
                r.fresh_main += h.main;
                r.fresh_main_sq += (h.main * h.main) as u64;
                r.fresh_ties += u64::from(h.tie);
            }
        };
        r.end = Some(end);
        r.final_bankroll = bank;
        r
    }
}
