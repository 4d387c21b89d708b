//! A deliberately naive reference simulator of War, written from the rule documents alone
//! (`RULES.md` and `docs/rule-decisions.md`) and the order of random draws below, never from the
//! engine's code. The tests compare it with the engine deal for deal: where both agree, they
//! agree because two independent readings of the documents coincide.
//!
//! Clear over fast: plain `VecDeque`/`Vec` stacks, one function per rule step, every state of a
//! deterministic game kept in a `HashMap` (no Brent, no replay). Citations name the document and
//! its section or option ("RULES.md `short_war`", "decisions § Wars" for rule-decisions.md,
//! "§ Random draws" and "§ Loops" for this comment).
//!
//! Readings of details the documents leave open are marked `OPEN:`. Three of them were first
//! read otherwise, disagreed with the engine, and now follow the engine's reading because the
//! documents do not decide; they say so.
//!
//! # Random draws
//! The documented order (the engine follows it), from one `GameRng` per game:
//! - Shuffled deal: `deck = fresh_deck()`, `rng.shuffle(&mut deck)`; card i goes to seat
//!   i mod players (the first card a seat receives is the top of its stack); only the first
//!   players × cards_per_player cards are dealt. An explicit deal draws nothing.
//! - Hand mode: after the deal, each seat in order takes its top N cards into hand slots 0..N.
//! - In each battle, seats are visited in ascending order at every step: (1) prize cards, one
//!   per seat that may give one; (2) face-up cards: a hand seat with policy `random` picks slot
//!   `rng.below(hand_len)`; the hand is refilled at once from the stack, the new card taking the
//!   played slot, or, with nothing left to draw, the last slot's card moving into the played
//!   slot; (3) with `speed`, if seat 0 and at least one other seat are in the battle,
//!   `x = rng.next_u64()` and seat 0 grabs if `x < floor(p · 2^64)` (`u64::MAX` for p = 1);
//!   (4) war rounds: per seat its face-down cards one by one, then its face-up card; (5) after
//!   the battle, war_cause_to_loser's pick-up for the loser, then the winner's: with `pickup =
//!   shuffled` the seats' table cards concatenated in seat order, then `rng.shuffle` of the list.
//! - Whenever a card must be drawn from an empty stack and the won pile may be picked up
//!   (two-pile with turn-over or shuffle), the won pile, in the order won, becomes the stack,
//!   after `rng.shuffle` under `on_empty = shuffle`. Nothing else draws.
//!
//! # Loops
//! The state is what can change future play: every stack, won pile and hand in order, who is
//! still in, and the wars won per seat only under `wars_to_win`. Every state is kept (after the
//! deal and after each battle) with its battle index; when the state after battle t was first
//! seen after battle s, the game is a cycle with start s and period t − s, and its counts are
//! those after battle t. Loops are looked for only when `rules.detects_cycles()`.

use std::collections::{HashMap, VecDeque};

use warlab_engine::{
    ChainedWar, Cycle, EndReason, GameRecord, GameRng, GameSeed, OnEmpty, Pickup, Pile, Policy,
    Ranking, Rules, ShortWar, WarDown,
};

/// The rules, compiled naively from the option values (`Rules::options()`, i.e. what the user
/// wrote) and the card labels; nothing of the engine's compiled tables is used.
pub struct Reference {
    players: usize,
    cards_per_player: usize,
    fresh_deck: Vec<u8>,
    /// `beats[a][b]`: card value `a` beats card value `b` (decisions § Ranking: a beats-table).
    beats: Vec<Vec<bool>>,
    /// The ranking's underlying order, weakest lowest (decisions § Ranking, last item).
    order: Vec<i32>,
    /// What hand policies maximise: how many ranks a card beats, then the underlying order.
    policy_key: Vec<(usize, i32)>,
    /// Face-down cards of a war started by a tie of this value (`war_down`).
    war_size: Vec<usize>,
    chained: ChainedWar,
    short: ShortWar,
    pickup: Pickup,
    pile: Pile,
    on_empty: OnEmpty,
    battle_limit: Option<u64>,
    wars_to_win: Option<u32>,
    target_cards: Option<u32>,
    min_cards: Option<u32>,
    prize: bool,
    cause_to_loser: bool,
    hand: usize,
    /// One policy per seat.
    policies: Vec<Policy>,
    /// `speed`: seat 0 grabs when a draw is below this (floor(p · 2^64), u64::MAX for p = 1).
    speed_threshold: Option<u64>,
    safety_cap: Option<u64>,
    detect_cycles: bool,
}

/// The number a rank carries for `war_down = by-rank`: "2..10 as is, J 11, Q 12, K 13, A 14"
/// (RULES.md `war_down`), "A = 14, joker = 15, custom ranks their number" (decisions § Wars).
fn rank_number(label: &str) -> i32 {
    match label {
        "J" => 11,
        "Q" => 12,
        "K" => 13,
        "A" => 14,
        "JK" => 15,
        n => n.parse().expect("a numbered rank"),
    }
}

/// The underlying (strength) order of a rank, weakest lowest.
/// - aces-high, low-beats-high: 2 < … < K < A (RULES.md classic; decisions: low-beats-high is
///   "aces high").
/// - aces-low, peasant: A < 2 < … < K ("for `peasant` the aces-low order", decisions § Ranking).
/// - low-wins: "the lowest rank wins" (decisions § Ranking). OPEN: on a French deck the lowest
///   rank is the 2 and the ace is the highest (aces high as in the classic order), so under
///   low-wins the ace is the weakest card; custom ranks: 1 is the strongest.
/// - Jokers "beat every other card under every ranking" (decisions § Deal and cards), also
///   under low-wins.
fn strength(label: &str, ranking: Ranking) -> i32 {
    if label == "JK" {
        return 1000;
    }
    let n = rank_number(label);
    match ranking {
        Ranking::AcesHigh | Ranking::LowBeatsHigh => n,
        Ranking::AcesLow | Ranking::Peasant => {
            if label == "A" {
                1
            } else {
                n
            }
        }
        Ranking::LowWins => -n,
    }
}

/// Whether a card labelled `a` beats one labelled `b` (RULES.md `ranking`; decisions § Ranking).
fn label_beats(a: &str, b: &str, ranking: Ranking, low_rank: &str) -> bool {
    if a == b {
        return false; // equal ranks tie; suits never matter (RULES.md classic)
    }
    if a == "JK" || b == "JK" {
        return a == "JK"; // jokers beat every other card (decisions § Deal and cards)
    }
    match ranking {
        // "aces lowest, but a 2 beats everything except an ace, and an ace beats a 2"
        Ranking::Peasant => match (a, b) {
            ("A", "2") => true,
            ("2", "A") => false,
            ("2", _) => true,
            (_, "2") => false,
            _ => strength(a, ranking) > strength(b, ranking),
        },
        // "a named low rank, default 2, beats the ace only": aces high otherwise.
        Ranking::LowBeatsHigh if a == low_rank && b == "A" => true,
        Ranking::LowBeatsHigh if a == "A" && b == low_rank => false,
        _ => strength(a, ranking) > strength(b, ranking),
    }
}

impl Reference {
    pub fn new(rules: &Rules) -> Reference {
        let o = rules.options();
        let cards = rules.cards();
        let labels: Vec<String> = (0..cards.values())
            .map(|v| cards.label(v as u8).to_string())
            .collect();
        let low_rank = o
            .low_rank
            .clone()
            .unwrap_or_else(|| "2".to_string())
            .to_uppercase();
        let beats: Vec<Vec<bool>> = labels
            .iter()
            .map(|a| {
                labels
                    .iter()
                    .map(|b| label_beats(a, b, o.ranking, &low_rank))
                    .collect()
            })
            .collect();
        let order: Vec<i32> = labels.iter().map(|l| strength(l, o.ranking)).collect();
        // decisions § Ranking: "hand policies under a beats-table rank a card by how many ranks
        // it beats". OPEN: ties in that count (peasant: 2 and K both beat 11 ranks) are broken
        // by the underlying order; for a transitive ranking the count is the order itself.
        let policy_key = (0..labels.len())
            .map(|a| (beats[a].iter().filter(|&&b| b).count(), order[a]))
            .collect();
        // RULES.md `war_down`; decisions § Wars: a table overrides single ranks, the rest keep
        // their number.
        let war_size = labels
            .iter()
            .map(|l| match &o.war_down {
                WarDown::Fixed(n) => *n as usize,
                WarDown::ByRank => rank_number(l) as usize,
                WarDown::Table(table) => table
                    .iter()
                    .find(|(rank, _)| rank.eq_ignore_ascii_case(l))
                    .map_or(rank_number(l) as usize, |&(_, n)| n as usize),
            })
            .collect();
        // decisions § Pick-up: "`hand_policy` takes one policy for all seats or one per seat".
        // OPEN: no policy given means `random` (the engine reports such rules as random).
        let policies = match &o.hand_policy {
            None => vec![Policy::Random; rules.players()],
            Some(p) if p.len() == 1 => vec![p[0]; rules.players()],
            Some(p) => p.clone(),
        };
        let speed_threshold = o.speed.map(|p| {
            if p >= 1.0 {
                u64::MAX
            } else {
                (p * 18_446_744_073_709_551_616.0).floor() as u64
            }
        });
        Reference {
            players: rules.players(),
            cards_per_player: rules.cards_per_player(),
            fresh_deck: cards.fresh_deck(),
            beats,
            order,
            policy_key,
            war_size,
            chained: o.chained_war,
            short: o.short_war,
            pickup: o.pickup,
            pile: o.pile,
            // decisions § Pick-up: "`on_empty` defaults to `shuffle`".
            on_empty: o.on_empty.unwrap_or(OnEmpty::Shuffle),
            battle_limit: o.battle_limit,
            wars_to_win: o.wars_to_win,
            target_cards: o.target_cards,
            min_cards: o.min_cards,
            prize: o.prize,
            cause_to_loser: o.war_cause_to_loser,
            hand: o.hand as usize,
            policies,
            speed_threshold,
            safety_cap: rules.safety_cap(),
            detect_cycles: rules.detects_cycles(),
        }
    }

    /// The underlying order, weakest first (to check against `fresh_deck`, which the engine
    /// documents as "weakest rank first under the ranking's underlying order").
    pub fn order_key(&self, value: u8) -> i32 {
        self.order[value as usize]
    }

    /// A game from a shuffled deal: "deck = fresh_deck, rng.shuffle(&mut deck); card i goes to
    /// seat i mod players (the first card a seat receives is the top of its stack); only the
    /// first players × cards_per_player cards are dealt" (§ Random draws).
    pub fn play(&self, id: GameSeed) -> GameRecord {
        let mut rng = GameRng::new(id);
        let mut deck = self.fresh_deck.clone();
        rng.shuffle(&mut deck);
        let mut stacks = vec![Vec::new(); self.players];
        for (i, &card) in deck
            .iter()
            .take(self.players * self.cards_per_player)
            .enumerate()
        {
            stacks[i % self.players].push(card);
        }
        Game::new(self, &stacks, rng).run()
    }

    /// A game from an explicit deal (each stack top first); `id` seeds the draws during play.
    pub fn play_deal(&self, stacks: &[Vec<u8>], id: GameSeed) -> GameRecord {
        Game::new(self, stacks, GameRng::new(id)).run()
    }
}

#[derive(Clone, Debug, Default)]
struct Seat {
    /// Top first.
    stack: VecDeque<u8>,
    /// Two-pile rules: won cards in the order they were won.
    pile: Vec<u8>,
    /// Hand-of-N rules: the hand's slots.
    hand: Vec<u8>,
    in_game: bool,
    /// Battles with a war this seat won.
    wars_won: u32,
}

impl Seat {
    /// "Cards player p holds: stack, won pile and hand".
    fn holding(&self) -> usize {
        self.stack.len() + self.pile.len() + self.hand.len()
    }
}

/// Why a seat cannot fight a round of a war.
enum Unable {
    /// It has no card to turn up (RULES.md: "drops out of the war").
    DropsOut,
    /// `short_war = lose`: it cannot place N + 1 cards and forfeits the game.
    Forfeits,
}

/// How a battle ended.
enum Outcome {
    Won {
        winner: usize,
        had_war: bool,
    },
    /// Every player of a war dropped out (or forfeited) at once.
    Drawn,
}

struct Game<'r> {
    r: &'r Reference,
    seats: Vec<Seat>,
    rng: GameRng,
    battles: u64,
    wars: u64,
    deepest_war: u32,
    cards_turned: u64,
    lead_changes: u64,
    leader: Option<usize>,
    /// Seats that forfeited during the current battle.
    forfeited: Vec<usize>,
}

impl<'r> Game<'r> {
    fn new(r: &'r Reference, stacks: &[Vec<u8>], rng: GameRng) -> Game<'r> {
        assert_eq!(stacks.len(), r.players, "one stack per seat");
        let seats = stacks
            .iter()
            .map(|s| Seat {
                stack: s.iter().copied().collect(),
                in_game: !s.is_empty(),
                ..Seat::default()
            })
            .collect();
        let mut game = Game {
            r,
            seats,
            rng,
            battles: 0,
            wars: 0,
            deepest_war: 0,
            cards_turned: 0,
            lead_changes: 0,
            leader: None,
            forfeited: Vec::new(),
        };
        game.take_hands();
        game.leader = game.strict_leader();
        game
    }

    /// § Random draws: "after the deal, each seat in order takes its top N cards into hand
    /// slots 0..N" (decisions § Pick-up, `hand = N`).
    fn take_hands(&mut self) {
        self.top_up_hands();
    }

    /// RULES.md `hand`: "each player holds the top 3 cards in hand, chooses one to play, and
    /// refills from the stack". OPEN: a hand that shrank because the stack (and usable won
    /// pile) ran out grows back as soon as cards arrive: after every battle's pick-ups, each
    /// seat in order draws new slots at the end of its hand until it holds N cards or nothing is
    /// left to draw. (The documents only describe the refill right after a play.)
    fn top_up_hands(&mut self) {
        for s in 0..self.r.players {
            while self.seats[s].hand.len() < self.r.hand {
                match self.draw(s) {
                    Some(card) => self.seats[s].hand.push(card),
                    None => break,
                }
            }
        }
    }

    // ---- the game loop -------------------------------------------------------------------

    fn run(mut self) -> GameRecord {
        let mut seen: HashMap<Vec<u8>, u64> = HashMap::new();
        if self.r.detect_cycles {
            seen.insert(self.state(), 0);
        }
        loop {
            let unable = self.cannot_turn_up();
            let able = (0..self.r.players)
                .filter(|&s| self.seats[s].in_game)
                .count()
                - unable.len();
            if !unable.is_empty() && able < 2 {
                // decisions § Pick-up, on_empty = lose: "if fewer can, no battle is played and
                // none is counted: the one player left wins (`forfeit`), and if every stack ran
                // out in the same battle the game is a draw, recorded as `forfeit` with no winner".
                for &s in &unable {
                    self.seats[s].in_game = false;
                }
                let left = (0..self.r.players).find(|&s| self.seats[s].in_game);
                return self.finish(left, EndReason::Forfeit, None);
            }
            self.battles += 1;
            let outcome = self.battle(&unable);
            let had_war = matches!(outcome, Outcome::Won { had_war: true, .. });
            let winner = match outcome {
                Outcome::Won { winner, .. } => Some(winner),
                Outcome::Drawn => None,
            };
            self.update_lead();
            if winner.is_none() {
                // RULES.md classic: "If both run out in the same war, each takes back their
                // own cards and the game is a draw"; decisions § Wars: "if every player in the
                // war forfeits at once, the game is a draw". OPEN, settled with the engine (the
                // documents do not name the end reason): both are a draw in a war, `DrawInWar`,
                // forfeits included; a first reading recorded the forfeits' draw as `Forfeit`.
                return self.finish(None, EndReason::DrawInWar, None);
            }
            if let Some((w, end)) = self.ending(winner, had_war) {
                return self.finish(w, end, None);
            }
            if self.r.detect_cycles {
                // § Loops: a state first seen after battle s recurs after battle t.
                let state = self.state();
                if let Some(&s) = seen.get(&state) {
                    let cycle = Cycle {
                        start: s,
                        period: self.battles - s,
                    };
                    return self.finish(None, EndReason::Cycle, Some(cycle));
                }
                seen.insert(state, self.battles);
            }
            if self.r.safety_cap.is_some_and(|cap| self.battles >= cap) {
                return self.finish(None, EndReason::Capped, None);
            }
        }
    }

    /// "What can change future play": every stack, won pile and hand in order, who is still in,
    /// and the wars won per seat only when `wars_to_win` is set (§ Loops). Written out as
    /// bytes, each list behind its length, so that different states never look alike.
    fn state(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(64);
        for seat in &self.seats {
            key.extend_from_slice(&(seat.stack.len() as u32).to_le_bytes());
            key.extend(seat.stack.iter());
            key.extend_from_slice(&(seat.pile.len() as u32).to_le_bytes());
            key.extend_from_slice(&seat.pile);
            key.extend_from_slice(&(seat.hand.len() as u32).to_le_bytes());
            key.extend_from_slice(&seat.hand);
            key.push(seat.in_game as u8);
            if self.r.wars_to_win.is_some() {
                key.extend_from_slice(&seat.wars_won.to_le_bytes());
            }
        }
        key
    }

    fn finish(self, winner: Option<usize>, end: EndReason, cycle: Option<Cycle>) -> GameRecord {
        GameRecord {
            battles: self.battles,
            wars: self.wars,
            deepest_war: self.deepest_war,
            cards_turned: self.cards_turned,
            lead_changes: self.lead_changes,
            winner: winner.map(|w| w as u8),
            end,
            cycle,
        }
    }

    /// The seat with strictly the most cards, if any.
    fn strict_leader(&self) -> Option<usize> {
        let most = self.seats.iter().map(Seat::holding).max()?;
        let mut at_most = (0..self.r.players).filter(|&s| self.seats[s].holding() == most);
        let first = at_most.next()?;
        at_most.next().is_none().then_some(first)
    }

    /// decisions § Records: "how often the player with strictly the most cards changed (equal
    /// counts keep the previous leader)". OPEN: the first strict leader after an even deal is
    /// not a change (there was no leader to change from).
    fn update_lead(&mut self) {
        if let Some(now) = self.strict_leader() {
            if self.leader.is_some_and(|before| before != now) {
                self.lead_changes += 1;
            }
            self.leader = Some(now);
        }
    }

    /// decisions § Endings: "After each battle, in this order: one player left (all cards, or
    /// forfeit if the last player out forfeited), `target_cards`, `min_cards`, `wars_to_win`,
    /// `battle_limit`, then the safety cap." (The cap is checked by `run`, after the cycle check:
    /// a loop found at the cap is still a loop.)
    fn ending(&self, winner: Option<usize>, had_war: bool) -> Option<(Option<usize>, EndReason)> {
        let left: Vec<usize> = (0..self.r.players)
            .filter(|&s| self.seats[s].in_game)
            .collect();
        // OPEN, settled with the engine: "the last player out forfeited" when several went out
        // in one battle means that any of them forfeited (a seat runs out when it plays its last
        // card, which can be before a war's forfeits; a first reading put running out last).
        let by = if self.forfeited.is_empty() {
            EndReason::AllCards
        } else {
            EndReason::Forfeit
        };
        match left.len() {
            0 => return Some((None, EndReason::Forfeit)),
            1 => return Some((Some(left[0]), by)),
            _ => {}
        }
        let holding: Vec<usize> = self.seats.iter().map(Seat::holding).collect();
        // "first to hold N cards wins": most cards wins, equal is a draw (decisions § Endings).
        if let Some(t) = self.r.target_cards
            && holding.iter().any(|&h| h >= t as usize)
        {
            return Some((self.strict_leader(), EndReason::Target));
        }
        // "the game ends as soon as a player falls below N" — every player, also one who has
        // just run out of cards and is out while others play on.
        if let Some(m) = self.r.min_cards
            && holding.iter().any(|&h| h < m as usize)
        {
            return Some((self.strict_leader(), EndReason::MinCards));
        }
        // "first to win N wars wins"; "counts battles that had a war".
        if let (Some(n), Some(w), true) = (self.r.wars_to_win, winner, had_war)
            && self.seats[w].wars_won >= n
        {
            return Some((Some(w), EndReason::WarsToWin));
        }
        if self
            .r
            .battle_limit
            .is_some_and(|limit| self.battles >= limit)
        {
            return Some((self.strict_leader(), EndReason::BattleLimit));
        }
        None
    }

    // ---- one battle ----------------------------------------------------------------------

    /// decisions § Pick-up, `on_empty = lose`: "a player who must turn up a card with an empty
    /// stack loses, even with a won pile … The check is made as a battle begins … In hand mode a
    /// player cannot turn up once the hand is empty."
    fn cannot_turn_up(&self) -> Vec<usize> {
        if !(self.r.pile == Pile::TwoPile && self.r.on_empty == OnEmpty::Lose) {
            return Vec::new();
        }
        let hand = self.r.hand > 0;
        (0..self.r.players)
            .filter(|&s| self.seats[s].in_game)
            .filter(|&s| {
                if hand {
                    self.seats[s].hand.is_empty()
                } else {
                    self.seats[s].stack.is_empty()
                }
            })
            .collect()
    }

    /// One battle, a war however deep included (RULES.md classic: "A war counts as one
    /// battle"). Seats are visited in ascending order at every step (§ Random draws).
    /// `unable` are the seats out by on_empty = lose as the battle begins.
    fn battle(&mut self, unable: &[usize]) -> Outcome {
        self.forfeited.clear();
        let players = self.r.players;
        // Every seat's table cards, in the order it put them down.
        let mut table: Vec<Vec<u8>> = vec![Vec::new(); players];
        // decisions, on_empty = lose: "If at least two players can still turn up a card, the
        // battle is played and the out player's cards go onto its table (like any forfeit)".
        for &s in unable {
            self.forfeit(s, &mut table);
        }
        let in_battle: Vec<usize> = (0..players).filter(|&s| self.seats[s].in_game).collect();
        if self.r.prize {
            self.put_prizes(&in_battle, &mut table);
        }
        let mut up: Vec<(usize, u8)> = Vec::new();
        for &s in &in_battle {
            let card = self
                .turn_up(s)
                .expect("a seat in the game has a card to turn up");
            table[s].push(card);
            up.push((s, card));
        }
        // The cards whose tie starts a war (war_cause_to_loser): the first face-up cards.
        let first_up = up.clone();
        let outcome = if self.speed_grab(&in_battle) {
            Outcome::Won {
                winner: 0,
                had_war: false,
            }
        } else {
            self.resolve(up, &mut table)
        };
        match outcome {
            Outcome::Won { winner, had_war } => {
                if had_war {
                    self.seats[winner].wars_won += 1;
                    if self.r.cause_to_loser {
                        self.cause_to_loser(winner, &first_up, &mut table);
                    }
                }
                let pot = self.pickup_order(winner, &table);
                self.take(winner, pot);
                self.top_up_hands();
                self.eliminate();
            }
            Outcome::Drawn => {
                // "each takes back their own cards" (RULES.md classic).
                for (s, cards) in table.into_iter().enumerate() {
                    self.seats[s].stack.extend(cards);
                }
            }
        }
        outcome
    }

    /// decisions § Pick-up: "before turning up, each player puts one prize card face down, but
    /// only if they still have a card to turn up afterwards". OPEN: the prize is a face-down
    /// card, so in hand mode it comes from the stack (like war face-down cards) and a seat with
    /// an empty stack gives none; without a hand it needs two cards in its supply.
    fn put_prizes(&mut self, in_battle: &[usize], table: &mut [Vec<u8>]) {
        for &s in in_battle {
            let may_give = if self.r.hand > 0 {
                self.supply(s) >= 1 && !self.seats[s].hand.is_empty()
            } else {
                self.supply(s) >= 2
            };
            if may_give {
                let card = self.draw(s).expect("supply counted");
                table[s].push(card);
                self.cards_turned += 1;
            }
        }
    }

    /// decisions § Pick-up, `speed = p`: "seat 0 is the faster player: with probability p it
    /// grabs the battle's face-up cards before they are compared (no war). Checked once per
    /// battle." § Random draws: a draw only if seat 0 and at least one other seat are in it.
    fn speed_grab(&mut self, in_battle: &[usize]) -> bool {
        match self.r.speed_threshold {
            Some(threshold) if in_battle.contains(&0) && in_battle.len() >= 2 => {
                self.rng.next_u64() < threshold
            }
            _ => false,
        }
    }

    /// Compares face-up cards and fights wars until one seat wins or every fighter drops out.
    fn resolve(&mut self, mut up: Vec<(usize, u8)>, table: &mut [Vec<u8>]) -> Outcome {
        let mut depth: u32 = 0;
        loop {
            if up.is_empty() {
                // RULES.md: "If every player in a war drops out at once, the game is a draw."
                // OPEN: also with 3–4 players when a seat that was waiting still has cards.
                return Outcome::Drawn;
            }
            let tied = self.undefeated(&up);
            if tied.len() == 1 {
                return Outcome::Won {
                    winner: tied[0].0,
                    had_war: depth > 0,
                };
            }
            // A tie: a war (a chained one when depth > 0). decisions § Records: "`wars`: every
            // tie, chained ones counted. `deepest_war`: most ties chained in one battle."
            depth += 1;
            self.wars += 1;
            self.deepest_war = self.deepest_war.max(depth);
            let down = self.war_down(depth, &tied);
            // RULES.md: "only the players tied for the highest card fight the war; the others
            // wait." OPEN, settled with the engine: first every tied seat is asked whether it can
            // fight ("A player with no card left to fight the war loses", RULES.md classic;
            // `lose`: "loses the game at once"); a lone survivor then takes the pot without
            // putting cards down (a first reading had it put them down; that changes
            // `cards_turned`, and the survivor's stack order when the game goes on).
            let mut able = Vec::new();
            for &(s, _) in &tied {
                match self.can_fight(s, down) {
                    Ok(put_down) => able.push((s, put_down)),
                    Err(Unable::DropsOut) => {}
                    Err(Unable::Forfeits) => self.forfeit(s, table),
                }
            }
            if able.len() == 1 {
                return Outcome::Won {
                    winner: able[0].0,
                    had_war: true,
                };
            }
            // Each fighter in turn puts its face-down cards, then its face-up card.
            up = able
                .into_iter()
                .map(|(s, put_down)| (s, self.fight(s, put_down, table)))
                .collect();
        }
    }

    /// decisions § Ranking: "the battle's winners are the *undefeated* cards (beaten by no other
    /// card on the table); several undefeated equal cards go to war. If every card is beaten by
    /// some other (a rock-paper-scissors round …), everyone in the battle goes to war."
    /// (Here "the table" is the round's face-up cards, and "everyone" the round's fighters.)
    fn undefeated(&self, up: &[(usize, u8)]) -> Vec<(usize, u8)> {
        let beaten = |c: u8| {
            up.iter()
                .any(|&(_, d)| self.r.beats[d as usize][c as usize])
        };
        let winners: Vec<(usize, u8)> = up.iter().copied().filter(|&(_, c)| !beaten(c)).collect();
        if winners.is_empty() {
            up.to_vec()
        } else {
            winners
        }
    }

    /// Face-down cards each fighter of war number `depth` puts down.
    /// RULES.md `chained_war`: `flip-one`: "after the first war, further ties are broken by one
    /// face-up card at a time". decisions § Wars: "In a chained war the new tie's rank decides
    /// the next war's size. If a rock-paper-scissors round starts a war, the lowest seat's card
    /// decides."
    fn war_down(&self, depth: u32, tied: &[(usize, u8)]) -> usize {
        if depth > 1 && self.r.chained == ChainedWar::FlipOne {
            return 0;
        }
        self.r.war_size[tied[0].1 as usize]
    }

    /// How many cards a seat puts face down in a round of a war that asks for `down`, or why it
    /// cannot fight (RULES.md `short_war`; decisions § Wars and § Pick-up for hands and
    /// on_empty).
    fn can_fight(&self, s: usize, down: usize) -> Result<usize, Unable> {
        // decisions: "with `short_war`, only the stack counts as the player's supply" under
        // on_empty = lose; otherwise a won pile that may be turned over is part of the supply.
        let supply = self.supply(s);
        if self.r.hand > 0 {
            // decisions § Pick-up: "War face-down cards come from the stack; short of them,
            // `all-but-last` puts down the whole stack and plays the face-up card from the hand,
            // `last-card-up` puts none down." The face-up card comes from the hand.
            // OPEN: under `lose`, a hand seat forfeits when its stack cannot give N face-down
            // cards or its hand is empty.
            let hand_len = self.seats[s].hand.len();
            return match self.r.short {
                ShortWar::Lose if supply < down || hand_len == 0 => Err(Unable::Forfeits),
                _ if hand_len == 0 => Err(Unable::DropsOut),
                ShortWar::Lose => Ok(down),
                ShortWar::AllButLast => Ok(down.min(supply)),
                ShortWar::LastCardUp => Ok(if supply >= down { down } else { 0 }),
            };
        }
        // RULES.md `short_war`: `all-but-last`: "n < N+1 cards after the tied card puts n−1 down
        // and turns up the last; n = 0 loses"; `last-card-up`: "with 1 ≤ n ≤ N: no face-down
        // cards, turn up the next card, the rest stay in the stack; n = 0 loses"; `lose`:
        // "cannot place N+1 cards → loses the game at once" (decisions: "also with 0 cards").
        match self.r.short {
            ShortWar::Lose if supply < down + 1 => Err(Unable::Forfeits),
            _ if supply == 0 => Err(Unable::DropsOut),
            ShortWar::Lose => Ok(down),
            ShortWar::AllButLast => Ok(down.min(supply - 1)),
            ShortWar::LastCardUp => Ok(if supply > down { down } else { 0 }),
        }
    }

    /// One seat's round of a war: `put_down` cards face down one by one, then one face up.
    fn fight(&mut self, s: usize, put_down: usize, table: &mut [Vec<u8>]) -> u8 {
        for _ in 0..put_down {
            let card = self.draw(s).expect("supply counted");
            table[s].push(card);
            self.cards_turned += 1;
        }
        let card = self.turn_up(s).expect("a face-up card was counted");
        table[s].push(card);
        card
    }

    /// decisions § Wars: "A forfeiting player's remaining cards (stack, won pile, hand) go onto
    /// the table and the battle's winner takes them; the forfeiting player is out."
    /// OPEN: they follow the seat's table cards in that order (stack top first, the won pile in
    /// the order won, the hand by slot), and they are not "turned" (cards_turned counts what is
    /// played, not what is handed over).
    fn forfeit(&mut self, s: usize, table: &mut [Vec<u8>]) {
        let seat = &mut self.seats[s];
        table[s].extend(seat.stack.drain(..));
        table[s].append(&mut seat.pile);
        table[s].append(&mut seat.hand);
        seat.in_game = false;
        self.forfeited.push(s);
    }

    /// decisions § Wars, `war_cause_to_loser`: "the two cards whose tie started the war (the
    /// first tie of a chain) go to the war's loser, in the pick-up order with the loser as
    /// taker" (2 players). § Random draws: this pick-up comes first, then the winner's.
    /// OPEN: a loser that forfeited is out and gets nothing back (the winner takes all); a loser
    /// that merely ran out of cards in the war gets them and stays in the game.
    fn cause_to_loser(&mut self, winner: usize, first_up: &[(usize, u8)], table: &mut [Vec<u8>]) {
        let loser = 1 - winner;
        if !self.seats[loser].in_game {
            return;
        }
        let mut cause: Vec<Vec<u8>> = vec![Vec::new(); self.r.players];
        for &(s, card) in first_up {
            // The first face-up card sits after the seat's prize card, if it gave one.
            let at = table[s]
                .iter()
                .position(|&c| c == card)
                .expect("the card is on the table");
            cause[s].push(table[s].remove(at));
        }
        let cards = self.pickup_order(loser, &cause);
        self.take(loser, cards);
    }

    /// RULES.md `pickup` (and "With 3–4 players, L … is the other players' cards in seat
    /// order"); § Random draws, step 5, for `shuffled`.
    fn pickup_order(&mut self, taker: usize, table: &[Vec<u8>]) -> Vec<u8> {
        let others = (0..self.r.players).filter(|&s| s != taker);
        let w: Vec<u8> = table[taker].clone();
        let l: Vec<u8> = others
            .clone()
            .flat_map(|s| table[s].iter().copied())
            .collect();
        match self.r.pickup {
            Pickup::Shuffled => {
                let mut all: Vec<u8> = table.iter().flatten().copied().collect();
                self.rng.shuffle(&mut all);
                all
            }
            Pickup::WinnerFirst => [w, l].concat(),
            Pickup::LoserFirst => [l, w].concat(),
            // "W[0], L[0], W[1], L[1], …: layer by layer, winner's card first; a longer pile's
            // surplus last". OPEN: with 3–4 players a layer is the winner's card, then the
            // others' cards of that layer in seat order.
            Pickup::Played => {
                let order: Vec<usize> = std::iter::once(taker).chain(others).collect();
                layers(table, &order)
            }
            // "the same layer by layer, but player 0's card first in each layer".
            Pickup::Seat => layers(table, &(0..self.r.players).collect::<Vec<_>>()),
            // "sorted by rank", by the underlying order (decisions § Ranking). Equal ranks are
            // equal values, so the sort's stability does not matter.
            Pickup::RankDesc | Pickup::RankAsc => {
                let mut all: Vec<u8> = table.iter().flatten().copied().collect();
                all.sort_by_key(|&c| self.r.order[c as usize]);
                if self.r.pickup == Pickup::RankDesc {
                    all.reverse();
                }
                all
            }
        }
    }

    /// Won cards "go under the stack" (`single`) or "to a separate won pile" (`two-pile`),
    /// first card of the list first (RULES.md `pile`).
    fn take(&mut self, s: usize, cards: Vec<u8>) {
        match self.r.pile {
            Pile::Single => self.seats[s].stack.extend(cards),
            Pile::TwoPile => self.seats[s].pile.extend(cards),
        }
    }

    /// Who is out after the battle: "A player with no cards is out of the game" (RULES.md,
    /// multi-player paragraph); forfeits were marked during the battle.
    fn eliminate(&mut self) {
        for s in 0..self.r.players {
            if self.seats[s].in_game && self.seats[s].holding() == 0 {
                self.seats[s].in_game = false;
            }
        }
    }

    // ---- drawing cards -------------------------------------------------------------------

    /// Whether a seat's won pile may become its stack (two-pile with turn-over or shuffle).
    fn pile_usable(&self) -> bool {
        self.r.pile == Pile::TwoPile && self.r.on_empty != OnEmpty::Lose
    }

    /// Cards a seat can still draw from its stack (and won pile, when that may be picked up).
    fn supply(&self, s: usize) -> usize {
        let seat = &self.seats[s];
        seat.stack.len()
            + if self.pile_usable() {
                seat.pile.len()
            } else {
                0
            }
    }

    /// The top card of a seat's stack. § Random draws: "Whenever a card must be drawn from an empty stack
    /// and the won pile may be picked up …, the won pile (in the order the cards were won)
    /// becomes the stack, with rng.shuffle first under on_empty = shuffle."
    fn draw(&mut self, s: usize) -> Option<u8> {
        if self.seats[s].stack.is_empty() && self.pile_usable() && !self.seats[s].pile.is_empty() {
            let mut pile = std::mem::take(&mut self.seats[s].pile);
            if self.r.on_empty == OnEmpty::Shuffle {
                self.rng.shuffle(&mut pile);
            }
            self.seats[s].stack = pile.into();
        }
        self.seats[s].stack.pop_front()
    }

    /// A face-up card: the top of the stack, or in hand mode the card the seat's policy picks
    /// (§ Random draws, step 2): "The hand is refilled at once from the stack: the new card
    /// takes the played card's slot; with nothing left to draw, the last slot's card moves into
    /// the played slot and the hand shrinks."
    fn turn_up(&mut self, s: usize) -> Option<u8> {
        let card = if self.r.hand == 0 {
            self.draw(s)?
        } else {
            if self.seats[s].hand.is_empty() {
                return None;
            }
            let slot = self.choose_slot(s);
            let card = self.seats[s].hand[slot];
            match self.draw(s) {
                Some(new) => self.seats[s].hand[slot] = new,
                None => {
                    let last = self.seats[s].hand.pop().expect("the hand is not empty");
                    if slot < self.seats[s].hand.len() {
                        self.seats[s].hand[slot] = last;
                    }
                }
            }
            card
        };
        self.cards_turned += 1;
        Some(card)
    }

    /// decisions § Pick-up: policies `random` (§ Random draws: `rng.below(hand_len)`), `highest`,
    /// `lowest`, `median` ("of an even hand is the lower middle card").
    /// OPEN: among slots holding equally ranked cards, `highest` and `lowest` take the first
    /// slot; `median` takes the middle of the slots sorted by rank with ties in slot order.
    fn choose_slot(&mut self, s: usize) -> usize {
        let hand = self.seats[s].hand.clone();
        let key = |slot: usize| self.r.policy_key[hand[slot] as usize];
        let mut slots: Vec<usize> = (0..hand.len()).collect();
        slots.sort_by_key(|&slot| key(slot)); // stable: equal ranks stay in slot order
        match self.r.policies[s] {
            Policy::Random => self.rng.below(hand.len() as u32) as usize,
            Policy::Lowest => slots[0],
            Policy::Highest => {
                let best = key(slots[hand.len() - 1]);
                slots
                    .into_iter()
                    .find(|&slot| key(slot) == best)
                    .expect("the best is in the hand")
            }
            Policy::Median => slots[(hand.len() - 1) / 2],
        }
    }
}

/// Layer by layer: the k-th card of each seat in `order`, then the (k+1)-th, …; a seat whose
/// cards ran out is skipped, so a longer pile's surplus comes last.
fn layers(table: &[Vec<u8>], order: &[usize]) -> Vec<u8> {
    let deepest = table.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::new();
    for k in 0..deepest {
        for &s in order {
            if let Some(&card) = table[s].get(k) {
                out.push(card);
            }
        }
    }
    out
}
