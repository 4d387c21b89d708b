//! The game loop: deal, battles, wars, pick-up, endings, and exact cycle detection.
//!
//! Everything a game needs is allocated in [`Engine::new`]; playing a game allocates nothing.
//! Battles are played by [`battle`], one function for every rule option (the options are
//! plain branches that predict perfectly); classic-shaped 2-player rules go through the
//! specialised loop in [`crate::fast`], which plays the same games with the same random draws.

use crate::deal::Deal;
use crate::observe::{Observer, Quiet, View};
use crate::record::{Cycle, EndReason, GameRecord};
use crate::ring::Ring;
use crate::rng::{GameRng, GameSeed};
use crate::rules::{ChainedWar, Compare, DownRule, OnEmpty, Pickup, Policy, Rules, ShortWar};

pub(crate) const MAX_HAND: usize = 8;
pub(crate) const MAX_PLAYERS: usize = 4;

#[inline(always)]
pub(crate) fn bit(p: usize) -> u8 {
    1 << p
}

/// Seats in a bit mask, lowest first.
#[inline(always)]
pub(crate) fn seats(mut mask: u8) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let p = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(p)
        }
    })
}

/// Everything that decides how a game goes on: the complete state cycle detection compares.
#[derive(Clone, Debug)]
pub(crate) struct State {
    pub stacks: Vec<Ring>,
    pub piles: Vec<Ring>,
    pub hands: [[u8; MAX_HAND]; MAX_PLAYERS],
    pub hand_len: [u8; MAX_PLAYERS],
    pub in_game: u8,
    /// Wars won per seat; part of the state only under `wars_to_win`.
    pub wars_won: [u32; MAX_PLAYERS],
}

impl State {
    fn new(r: &Rules) -> State {
        let cap = r.cards.total();
        let pile_cap = if r.two_pile.is_some() { cap } else { 0 };
        State {
            stacks: (0..r.players).map(|_| Ring::with_capacity(cap)).collect(),
            piles: (0..r.players)
                .map(|_| Ring::with_capacity(pile_cap))
                .collect(),
            hands: [[0; MAX_HAND]; MAX_PLAYERS],
            hand_len: [0; MAX_PLAYERS],
            in_game: 0,
            wars_won: [0; MAX_PLAYERS],
        }
    }

    fn clear(&mut self) {
        self.stacks.iter_mut().for_each(Ring::clear);
        self.piles.iter_mut().for_each(Ring::clear);
        self.hand_len = [0; MAX_PLAYERS];
        self.in_game = 0;
        self.wars_won = [0; MAX_PLAYERS];
    }

    fn copy_from(&mut self, o: &State) {
        for (a, b) in self.stacks.iter_mut().zip(&o.stacks) {
            a.copy_from(b);
        }
        for (a, b) in self.piles.iter_mut().zip(&o.piles) {
            a.copy_from(b);
        }
        self.hands = o.hands;
        self.hand_len = o.hand_len;
        self.in_game = o.in_game;
        self.wars_won = o.wars_won;
    }

    /// Exact equality of everything that affects play.
    fn same(&self, o: &State) -> bool {
        self.in_game == o.in_game
            && self.hand_len == o.hand_len
            && self.wars_won == o.wars_won
            && self
                .stacks
                .iter()
                .zip(&o.stacks)
                .all(|(a, b)| a.len() == b.len())
            && (0..self.stacks.len()).all(|p| {
                self.hands[p][..usize::from(self.hand_len[p])]
                    == o.hands[p][..usize::from(o.hand_len[p])]
            })
            && self
                .stacks
                .iter()
                .zip(&o.stacks)
                .all(|(a, b)| a.same_cards(b))
            && self
                .piles
                .iter()
                .zip(&o.piles)
                .all(|(a, b)| a.same_cards(b))
    }

    /// Cards player `p` holds anywhere.
    #[inline]
    pub fn total(&self, p: usize) -> usize {
        self.stacks[p].len() + self.piles[p].len() + usize::from(self.hand_len[p])
    }

    /// Cards `p` can still draw from the stack (and the won pile, where it may be picked up).
    #[inline]
    fn supply(&self, r: &Rules, p: usize) -> usize {
        match r.two_pile {
            None | Some(OnEmpty::Lose) => self.stacks[p].len(),
            Some(_) => self.stacks[p].len() + self.piles[p].len(),
        }
    }

    /// Cards `p` can turn face up.
    #[inline]
    fn up_supply(&self, r: &Rules, p: usize) -> usize {
        if r.hand > 0 {
            usize::from(self.hand_len[p])
        } else {
            self.supply(r, p)
        }
    }

    /// Takes the top card of `p`'s stack, first turning the won pile into the stack if the stack
    /// is empty. The caller checks `supply > 0`.
    #[inline]
    fn draw_down(&mut self, r: &Rules, p: usize, rng: &mut GameRng) -> u8 {
        if self.stacks[p].is_empty() {
            std::mem::swap(&mut self.stacks[p], &mut self.piles[p]);
            if r.two_pile == Some(OnEmpty::Shuffle) {
                rng.shuffle(self.stacks[p].make_contiguous());
            }
        }
        self.stacks[p].pop_front()
    }

    /// Turns up `p`'s next card: from the hand by the seat's policy (then refills the hand), or
    /// the top of the stack. The caller checks `up_supply > 0`.
    #[inline]
    fn draw_up(&mut self, r: &Rules, p: usize, rng: &mut GameRng) -> u8 {
        if r.hand == 0 {
            return self.draw_down(r, p, rng);
        }
        let n = usize::from(self.hand_len[p]);
        let hand = &self.hands[p][..n];
        let key = |i: usize| r.strength[usize::from(hand[i])];
        let i = match r.policies[p] {
            Policy::Random => rng.below(n as u32) as usize,
            Policy::Highest => (0..n)
                .max_by_key(|&i| (key(i), std::cmp::Reverse(i)))
                .unwrap_or(0),
            Policy::Lowest => (0..n).min_by_key(|&i| (key(i), i)).unwrap_or(0),
            Policy::Median => {
                // The card with as many cards below it as above (the lower middle for an even
                // hand); ties broken by hand position.
                let mut order = [0usize; MAX_HAND];
                for (k, slot) in order[..n].iter_mut().enumerate() {
                    *slot = k;
                }
                order[..n].sort_unstable_by_key(|&i| (key(i), i));
                order[(n - 1) / 2]
            }
        };
        let card = self.hands[p][i];
        if self.supply(r, p) > 0 {
            self.hands[p][i] = self.draw_down(r, p, rng);
        } else {
            self.hands[p][i] = self.hands[p][n - 1];
            self.hand_len[p] -= 1;
        }
        card
    }

    /// Won cards go under the stack, or onto the won pile.
    #[inline]
    fn give(&mut self, r: &Rules, p: usize, cards: &[u8]) {
        if r.two_pile.is_some() {
            self.piles[p].extend(cards);
        } else {
            self.stacks[p].extend(cards);
        }
    }

    /// A forfeiting player's cards all go to the table; the battle's winner takes them.
    fn forfeit(&mut self, p: usize, pot: &mut Vec<u8>) {
        pot.extend(self.stacks[p].iter());
        pot.extend(self.piles[p].iter());
        pot.extend_from_slice(&self.hands[p][..usize::from(self.hand_len[p])]);
        self.stacks[p].clear();
        self.piles[p].clear();
        self.hand_len[p] = 0;
    }

    /// The seat holding strictly the most cards, if there is one.
    fn leader(&self, players: usize) -> Option<usize> {
        self.most_cards((1u8 << players) - 1).map(usize::from)
    }

    /// The seat with strictly the most cards among `mask`, or `None` on a tie.
    fn most_cards(&self, mask: u8) -> Option<u8> {
        let mut best = 0;
        let mut who = None;
        for p in seats(mask) {
            let t = self.total(p);
            if t > best {
                best = t;
                who = Some(p as u8);
            } else if t == best {
                who = None;
            }
        }
        who
    }
}

/// Running counts for one game.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    pub battles: u64,
    pub wars: u64,
    pub deepest: u32,
    pub cards_turned: u64,
    pub lead_changes: u64,
    pub leader: Option<u8>,
}

impl Tally {
    #[inline(always)]
    pub fn note_leader(&mut self, leader: Option<usize>) {
        if let Some(l) = leader {
            let l = l as u8;
            if self.leader.is_some_and(|old| old != l) {
                self.lead_changes += 1;
            }
            self.leader = Some(l);
        }
    }

    fn record(&self, end: EndReason, winner: Option<u8>, cycle: Option<Cycle>) -> GameRecord {
        GameRecord {
            battles: self.battles,
            wars: self.wars,
            deepest_war: self.deepest,
            cards_turned: self.cards_turned,
            lead_changes: self.lead_changes,
            winner,
            end,
            cycle,
        }
    }
}

/// Cards on the table during a battle, per player in play order, and scratch for pick-up.
pub(crate) struct Table {
    pub pots: Vec<Vec<u8>>,
    pub cause: Vec<Vec<u8>>,
    pub scratch: Vec<u8>,
    /// Both stacks of the 2-player fast loop, seat 1 at offset `len / 2`. For decks of up to
    /// [`crate::fast::NARROW_CAP`] cards: [`crate::fast::LINEAR_SEAT`] bytes per seat for the
    /// block loop's linear stretches (the narrow rings use the first `2 * NARROW_CAP` bytes);
    /// for larger decks, the deck's power of two per seat.
    pub duo: Vec<u8>,
    /// Whether the fast loop may use the vector block loop: this CPU has the instructions.
    pub block: bool,
    /// Both pots of a war in the fast loop, seat 1's at offset `len / 2`.
    pub pot2: Vec<u8>,
}

impl Table {
    fn new(r: &Rules) -> Table {
        let cap = r.cards.total();
        Table {
            pots: (0..r.players).map(|_| Vec::with_capacity(cap)).collect(),
            cause: (0..r.players).map(|_| Vec::with_capacity(1)).collect(),
            scratch: Vec::with_capacity(cap),
            duo: vec![
                0;
                if cap <= crate::fast::NARROW_CAP {
                    2 * crate::fast::LINEAR_SEAT
                } else {
                    2 * cap.next_power_of_two()
                }
            ],
            block: crate::block::available(),
            pot2: vec![0; 2 * cap],
        }
    }
}

type End = (EndReason, Option<u8>);

/// The seats whose face-up card is best among `contenders`: one seat, or the tied ones.
#[inline]
fn best_of(r: &Rules, contenders: u8, up: &[u8; MAX_PLAYERS]) -> u8 {
    match &r.compare {
        Compare::Ordered => {
            let max = seats(contenders).map(|p| up[p]).max().unwrap_or(0);
            seats(contenders)
                .filter(|&p| up[p] == max)
                .fold(0, |m, p| m | bit(p))
        }
        Compare::Table { values, beats } => {
            // Undefeated cards win; a rock-paper-scissors round with none undefeated is a war
            // among everyone in it.
            let beaten = |p: usize| {
                seats(contenders)
                    .any(|q| q != p && beats[usize::from(up[q]) * values + usize::from(up[p])])
            };
            let undefeated = seats(contenders)
                .filter(|&p| !beaten(p))
                .fold(0, |m, p| m | bit(p));
            if undefeated == 0 {
                contenders
            } else {
                undefeated
            }
        }
    }
}

/// Puts the cards of `pots` into `out` in the pick-up order, for `taker`.
pub(crate) fn order_pickup(
    r: &Rules,
    taker: usize,
    pots: &[Vec<u8>],
    out: &mut Vec<u8>,
    rng: &mut GameRng,
) {
    out.clear();
    let others = || (0..pots.len()).filter(move |&p| p != taker);
    match r.pickup {
        Pickup::Shuffled => {
            for pot in pots {
                out.extend_from_slice(pot);
            }
            rng.shuffle(out);
        }
        Pickup::WinnerFirst => {
            out.extend_from_slice(&pots[taker]);
            others().for_each(|p| out.extend_from_slice(&pots[p]));
        }
        Pickup::LoserFirst => {
            others().for_each(|p| out.extend_from_slice(&pots[p]));
            out.extend_from_slice(&pots[taker]);
        }
        Pickup::Played | Pickup::Seat => {
            let layers = pots.iter().map(Vec::len).max().unwrap_or(0);
            for i in 0..layers {
                if r.pickup == Pickup::Played {
                    if let Some(&c) = pots[taker].get(i) {
                        out.push(c);
                    }
                    others()
                        .filter_map(|p| pots[p].get(i))
                        .for_each(|&c| out.push(c));
                } else {
                    pots.iter()
                        .filter_map(|pot| pot.get(i))
                        .for_each(|&c| out.push(c));
                }
            }
        }
        Pickup::RankDesc | Pickup::RankAsc => {
            for pot in pots {
                out.extend_from_slice(pot);
            }
            out.sort_unstable();
            if r.pickup == Pickup::RankDesc {
                out.reverse();
            }
        }
    }
}

/// What a player can put into a war of `n` face-down cards.
enum Stake {
    Play(usize),
    Drop,
    Forfeit,
}

#[inline]
fn stake(r: &Rules, st: &State, p: usize, n: usize) -> Stake {
    let s = st.supply(r, p);
    if r.hand > 0 {
        // Face-down cards come from the stack, the face-up one from the hand (which is only
        // short once the stack is empty).
        if st.hand_len[p] == 0 {
            return if r.short == ShortWar::Lose {
                Stake::Forfeit
            } else {
                Stake::Drop
            };
        }
        if s >= n {
            return Stake::Play(n);
        }
        return match r.short {
            ShortWar::AllButLast => Stake::Play(s),
            ShortWar::LastCardUp => Stake::Play(0),
            ShortWar::Lose => Stake::Forfeit,
        };
    }
    if s > n {
        return Stake::Play(n);
    }
    match r.short {
        ShortWar::AllButLast if s >= 1 => Stake::Play(s - 1),
        ShortWar::LastCardUp if s >= 1 => Stake::Play(0),
        ShortWar::AllButLast | ShortWar::LastCardUp => Stake::Drop,
        ShortWar::Lose => Stake::Forfeit,
    }
}

/// Plays one battle (a war, however deep, included). Returns the end of the game if it ended.
pub(crate) fn battle<O: Observer>(
    r: &Rules,
    t: &mut Table,
    st: &mut State,
    tally: &mut Tally,
    rng: &mut GameRng,
    obs: &mut O,
) -> Option<End> {
    let np = r.players;
    if r.two_pile == Some(OnEmpty::Lose)
        && let Some(end) = empty_stacks_lose(r, st)
    {
        return Some(end);
    }
    tally.battles += 1;
    for p in 0..np {
        t.pots[p].clear();
        t.cause[p].clear();
    }
    if O::ACTIVE {
        obs.battle_start(tally.battles);
    }
    let mut forfeited = 0u8;
    let mut contenders = st.in_game;

    if r.prize {
        for p in seats(contenders) {
            let ok = if r.hand > 0 {
                st.supply(r, p) >= 1 && st.hand_len[p] >= 1
            } else {
                st.supply(r, p) >= 2
            };
            if ok {
                let c = st.draw_down(r, p, rng);
                t.pots[p].push(c);
                tally.cards_turned += 1;
                if O::ACTIVE {
                    obs.prize(p, c);
                }
            }
        }
    }

    let mut up = [0u8; MAX_PLAYERS];
    for p in seats(contenders) {
        if st.up_supply(r, p) == 0 {
            // Only `on_empty = lose`: a stack ran out while a won pile remains.
            st.forfeit(p, &mut t.pots[p]);
            forfeited |= bit(p);
            contenders &= !bit(p);
            if O::ACTIVE {
                obs.drop_out(p, true);
            }
            continue;
        }
        let c = st.draw_up(r, p, rng);
        t.pots[p].push(c);
        up[p] = c;
        tally.cards_turned += 1;
        if O::ACTIVE {
            obs.face_up(p, c, 0);
        }
    }

    let mut depth = 0u32;
    let winner: usize;
    if let Some(th) = r
        .speed
        .filter(|_| contenders & 1 != 0 && contenders.count_ones() > 1)
        && rng.next_u64() < th
    {
        if O::ACTIVE {
            obs.grab();
        }
        contenders = 1;
    }
    loop {
        match contenders.count_ones() {
            0 => {
                tally.deepest = tally.deepest.max(depth);
                return Some(draw_in_war(r, t, st, tally, obs));
            }
            1 => {
                winner = contenders.trailing_zeros() as usize;
                break;
            }
            _ => {}
        }
        let best = best_of(r, contenders, &up);
        if best.count_ones() == 1 {
            winner = best.trailing_zeros() as usize;
            break;
        }
        depth += 1;
        tally.wars += 1;
        if r.cause_to_loser && depth == 1 {
            for p in seats(best) {
                let c = t.pots[p].pop().expect("a tied player has a face-up card");
                t.cause[p].push(c);
            }
        }
        contenders = best;
        let first = best.trailing_zeros() as usize;
        let n = if depth > 1 && r.chained == ChainedWar::FlipOne {
            0
        } else {
            match &r.down {
                DownRule::Fixed(n) => *n as usize,
                DownRule::PerValue(v) => v[usize::from(up[first])] as usize,
            }
        };
        if O::ACTIVE {
            obs.war(depth, best, n);
        }
        let mut plan = [0usize; MAX_PLAYERS];
        for p in seats(best) {
            match stake(r, st, p, n) {
                Stake::Play(d) => plan[p] = d,
                Stake::Drop => {
                    contenders &= !bit(p);
                    if O::ACTIVE {
                        obs.drop_out(p, false);
                    }
                }
                Stake::Forfeit => {
                    st.forfeit(p, &mut t.pots[p]);
                    forfeited |= bit(p);
                    contenders &= !bit(p);
                    if O::ACTIVE {
                        obs.drop_out(p, true);
                    }
                }
            }
        }
        if contenders.count_ones() < 2 {
            continue;
        }
        for p in seats(contenders) {
            for _ in 0..plan[p] {
                let c = st.draw_down(r, p, rng);
                t.pots[p].push(c);
            }
            tally.cards_turned += plan[p] as u64 + 1;
            if O::ACTIVE {
                obs.face_down(p, plan[p], depth);
            }
            let c = st.draw_up(r, p, rng);
            t.pots[p].push(c);
            up[p] = c;
            if O::ACTIVE {
                obs.face_up(p, c, depth);
            }
        }
    }
    tally.deepest = tally.deepest.max(depth);

    if depth > 0 {
        // Wars won decide nothing but `wars_to_win`: counted only there, so that they never
        // keep an otherwise repeating state from repeating (cycle detection compares them).
        if r.wars_to_win.is_some() {
            st.wars_won[winner] += 1;
        }
        if r.cause_to_loser {
            let loser = 1 - winner;
            if forfeited & bit(loser) == 0 {
                order_pickup(r, loser, &t.cause, &mut t.scratch, rng);
                st.give(r, loser, &t.scratch);
            } else {
                for p in 0..np {
                    if let Some(c) = t.cause[p].pop() {
                        t.pots[p].push(c);
                    }
                }
            }
        }
    }
    order_pickup(r, winner, &t.pots, &mut t.scratch, rng);
    st.give(r, winner, &t.scratch);

    let mut by_forfeit = false;
    for p in seats(st.in_game) {
        if forfeited & bit(p) != 0 || st.total(p) == 0 {
            st.in_game &= !bit(p);
            by_forfeit |= forfeited & bit(p) != 0;
        }
    }
    tally.note_leader(st.leader(np));
    if O::ACTIVE {
        obs.battle_end(Some(winner), t.scratch.len(), &View { st, players: np });
    }

    if st.in_game.count_ones() == 1 {
        let w = st.in_game.trailing_zeros() as u8;
        return Some((
            if by_forfeit {
                EndReason::Forfeit
            } else {
                EndReason::AllCards
            },
            Some(w),
        ));
    }
    if let Some(target) = r.target_cards {
        let reached = seats(st.in_game)
            .filter(|&p| st.total(p) >= target as usize)
            .fold(0, |m, p| m | bit(p));
        if reached != 0 {
            return Some((EndReason::Target, st.most_cards(reached)));
        }
    }
    if let Some(min) = r.min_cards
        && seats(st.in_game).any(|p| st.total(p) < min as usize)
    {
        return Some((EndReason::MinCards, st.most_cards(st.in_game)));
    }
    if let Some(n) = r.wars_to_win
        && depth > 0
        && st.wars_won[winner] >= n
    {
        return Some((EndReason::WarsToWin, Some(winner as u8)));
    }
    if r.battle_limit.is_some_and(|l| tally.battles >= l) {
        return Some((EndReason::BattleLimit, st.most_cards(st.in_game)));
    }
    None
}

/// `on_empty = lose`, before a battle: a player who cannot turn up a card from the stack (or
/// the hand) is out. With two or more players left the battle is played and the out players'
/// cards go onto its table (see `battle`); with fewer, no battle is played: the one player
/// left wins by forfeit, and if nobody can play, the game is a draw.
fn empty_stacks_lose(r: &Rules, st: &mut State) -> Option<End> {
    let able = seats(st.in_game)
        .filter(|&p| st.up_supply(r, p) > 0)
        .fold(0u8, |m, p| m | bit(p));
    if able.count_ones() >= 2 {
        return None;
    }
    // The game is over: the cards stay with their holders.
    st.in_game = able;
    Some((
        EndReason::Forfeit,
        (able != 0).then(|| able.trailing_zeros() as u8),
    ))
}

/// Every player in the war ran out at once: each takes back their own cards; a draw.
fn draw_in_war<O: Observer>(
    r: &Rules,
    t: &mut Table,
    st: &mut State,
    tally: &mut Tally,
    obs: &mut O,
) -> End {
    for p in 0..r.players {
        st.stacks[p].extend(&t.pots[p]);
        st.stacks[p].extend(&t.cause[p]);
    }
    tally.note_leader(st.leader(r.players));
    if O::ACTIVE {
        obs.battle_end(
            None,
            0,
            &View {
                st,
                players: r.players,
            },
        );
    }
    (EndReason::DrawInWar, None)
}

/// A reusable game player for one rule set. Create one per worker thread.
pub struct Engine {
    rules: Rules,
    table: Table,
    st: State,
    tortoise: State,
    initial: State,
    replay: State,
    deck: Vec<u8>,
    fresh: Vec<u8>,
    simple: bool,
}

impl Engine {
    /// Allocates everything any game under `rules` will need.
    pub fn new(rules: &Rules) -> Engine {
        let fresh = rules.cards.fresh_deck();
        Engine {
            table: Table::new(rules),
            st: State::new(rules),
            tortoise: State::new(rules),
            initial: State::new(rules),
            replay: State::new(rules),
            deck: fresh.clone(),
            fresh,
            simple: rules.is_simple_two_player(),
            rules: rules.clone(),
        }
    }

    /// Turns the vector block loop of the classic shape off (or back on, where the CPU has
    /// it). It plays the same games as the portable loop; this exists so that tests and
    /// benchmarks can compare the two on one machine.
    #[doc(hidden)]
    pub fn set_block_loop(&mut self, on: bool) {
        self.table.block = on && crate::block::available();
    }

    /// Which loop plays these rules (without an observer): `block` (the vector loop of the
    /// classic shape), `portable` (the classic shape's scalar loop) or `general`.
    pub fn hot_loop(&self) -> &'static str {
        if !self.simple {
            "general"
        } else if crate::fast::uses_block(&self.rules, &self.table) {
            "block"
        } else {
            "portable"
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Plays game `id` from a shuffled deal.
    pub fn play(&mut self, id: GameSeed) -> GameRecord {
        self.play_observed(id, &mut Quiet)
    }

    pub fn play_observed<O: Observer>(&mut self, id: GameSeed, obs: &mut O) -> GameRecord {
        let mut rng = GameRng::new(id);
        self.deck.copy_from_slice(&self.fresh);
        rng.shuffle(&mut self.deck);
        self.st.clear();
        let np = self.rules.players;
        let dealt = &self.deck[..self.rules.per_player * np];
        // Card i goes to seat i mod np: each seat's share is every np-th card.
        for p in 0..np {
            self.st.stacks[p].extend_strided(dealt, p, np);
        }
        self.run(&mut rng, obs)
    }

    /// Plays an explicit deal. `id` seeds whatever is random during play (shuffled pick-ups).
    pub fn play_deal(&mut self, deal: &Deal, id: GameSeed) -> GameRecord {
        self.play_deal_observed(deal, id, &mut Quiet)
    }

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
        let mut rng = GameRng::new(id);
        self.st.clear();
        for (p, s) in deal.stacks.iter().enumerate() {
            self.st.stacks[p].extend(s);
        }
        self.run(&mut rng, obs)
    }

    fn run<O: Observer>(&mut self, rng: &mut GameRng, obs: &mut O) -> GameRecord {
        let r = &self.rules;
        let np = r.players;
        for p in 0..np {
            let take = r.hand.min(self.st.stacks[p].len());
            for k in 0..take {
                self.st.hands[p][k] = self.st.stacks[p].pop_front();
            }
            self.st.hand_len[p] = take as u8;
            if self.st.total(p) > 0 {
                self.st.in_game |= bit(p);
            }
        }
        if O::ACTIVE {
            obs.game_start(&View {
                st: &self.st,
                players: np,
            });
        }
        let mut tally = Tally::default();
        tally.note_leader(self.st.leader(np));
        if self.st.in_game.count_ones() <= 1 {
            let w = (self.st.in_game != 0).then(|| self.st.in_game.trailing_zeros() as u8);
            return tally.record(EndReason::AllCards, w, None);
        }
        if self.simple && !O::ACTIVE {
            return crate::fast::run(r, &mut self.st, &mut self.table, &mut tally, rng);
        }
        let cap = r.safety_cap.unwrap_or(u64::MAX);
        if !r.detects_cycles() {
            loop {
                if let Some((end, w)) =
                    battle(r, &mut self.table, &mut self.st, &mut tally, rng, obs)
                {
                    return tally.record(end, w, None);
                }
                if tally.battles >= cap {
                    return tally.record(EndReason::Capped, None, None);
                }
            }
        }
        // Brent's algorithm: the tortoise jumps to the hare at every power of two; the first
        // time they meet, `lam` is the period.
        self.initial.copy_from(&self.st);
        self.tortoise.copy_from(&self.st);
        let (mut power, mut lam) = (1u64, 0u64);
        loop {
            if let Some((end, w)) = battle(r, &mut self.table, &mut self.st, &mut tally, rng, obs) {
                return tally.record(end, w, None);
            }
            lam += 1;
            if self.st.same(&self.tortoise) {
                break;
            }
            if tally.battles >= cap {
                return tally.record(EndReason::Capped, None, None);
            }
            if power == lam {
                self.tortoise.copy_from(&self.st);
                power *= 2;
                lam = 0;
            }
        }
        // The start: replay from the deal, one copy `lam` battles ahead; they first meet at the
        // cycle's start. The copy ahead has then played exactly start + period battles: its
        // counts are the game's.
        self.st.copy_from(&self.initial);
        self.replay.copy_from(&self.initial);
        let mut ahead = Tally::default();
        ahead.note_leader(self.st.leader(np));
        let mut behind = Tally::default();
        let (t, st, replay) = (&mut self.table, &mut self.st, &mut self.replay);
        // Replayed battles cannot end the game: the first pass went past them.
        let mut step = |state: &mut State, tally: &mut Tally| {
            battle(r, t, state, tally, rng, &mut Quiet);
        };
        for _ in 0..lam {
            step(st, &mut ahead);
        }
        let mut mu = 0u64;
        while !st.same(replay) {
            step(st, &mut ahead);
            step(replay, &mut behind);
            mu += 1;
        }
        ahead.record(
            EndReason::Cycle,
            None,
            Some(Cycle {
                start: mu,
                period: lam,
            }),
        )
    }
}
