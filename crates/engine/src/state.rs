//! What a game is made of while it is played by the general loop: the cards each seat holds
//! ([`State`], everything that decides how the game goes on), the running counts ([`Tally`]) and
//! the buffers of the table ([`Scratch`]).

use crate::observe::{Seen, View};
use crate::record::{Cycle, EndReason, GameRecord};
use crate::ring::Ring;
use crate::rng::Draws;
use crate::rules::{OnEmpty, Rules};

pub(crate) const MAX_HAND: usize = 8;
pub(crate) const MAX_PLAYERS: usize = 4;

/// How a game ended, and who won it.
pub(crate) type End = (EndReason, Option<u8>);

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
    /// Wars won per seat; counted (and so part of the state) only under `wars_to_win`.
    pub wars_won: [u32; MAX_PLAYERS],
    /// Won piles shuffled into a stack this game: not part of the state (never compared or
    /// copied), a count for observers.
    pub shuffles: u64,
}

impl State {
    pub fn new(r: &Rules) -> State {
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
            shuffles: 0,
        }
    }

    pub fn clear(&mut self) {
        self.stacks.iter_mut().for_each(Ring::clear);
        self.piles.iter_mut().for_each(Ring::clear);
        self.hand_len = [0; MAX_PLAYERS];
        self.in_game = 0;
        self.wars_won = [0; MAX_PLAYERS];
        self.shuffles = 0;
    }

    pub fn copy_from(&mut self, o: &State) {
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

    /// A game starts: each seat's hand is filled from the top of its stack (hand mode) and
    /// every seat holding cards is in the game. Returns the seats in the game.
    pub fn deal_in(&mut self, r: &Rules) -> u8 {
        for p in 0..r.players {
            let take = r.hand.min(self.stacks[p].len());
            for k in 0..take {
                self.hands[p][k] = self.stacks[p].pop_front();
            }
            self.hand_len[p] = take as u8;
            if self.total(p) > 0 {
                self.in_game |= bit(p);
            }
        }
        self.in_game
    }

    /// Exact equality of everything that affects play.
    pub fn same(&self, o: &State) -> bool {
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
}

/// Where the seats' cards are, as the rules see them: the general loop's [`State`] and the
/// specialised loops' [`Seats`](crate::seats::Seats) both hold a game, and the one battle of
/// [`crate::general`] plays on either.
pub(crate) trait Holdings {
    /// Seats at the table.
    fn players(&self) -> usize;
    /// Seats still in the game, as a bit mask.
    fn in_game(&self) -> u8;
    fn set_in_game(&mut self, mask: u8);
    /// Cards player `p` holds anywhere.
    fn total(&self, p: usize) -> usize;
    fn hand_len(&self, p: usize) -> usize;
    /// Cards `p` can still draw from the stack (and the won pile, where it may be picked up).
    fn supply(&self, r: &Rules, p: usize) -> usize;
    /// Takes the top card of `p`'s stack, first turning the won pile into the stack if the
    /// stack is empty (shuffled under `on_empty = shuffle`). The caller checks `supply > 0`.
    fn draw_down<D: Draws>(&mut self, r: &Rules, p: usize, rng: &mut D) -> u8;
    /// Player `p`'s hand and its length (hand mode).
    fn hand(&mut self, p: usize) -> (&mut [u8; MAX_HAND], &mut u8);
    /// Won cards go under the stack, or onto the won pile.
    fn give(&mut self, r: &Rules, p: usize, cards: &[u8]);
    /// A drawn war: each player's table cards go back under its stack.
    fn take_back(&mut self, p: usize, cards: &[u8]);
    /// A forfeiting player's cards all go onto the table.
    fn forfeit(&mut self, p: usize, pot: &mut Vec<u8>);
    fn wars_won(&mut self) -> &mut [u32; MAX_PLAYERS];
    /// An observer's look at the cards.
    fn view(&self) -> View<'_>;

    /// Cards `p` can turn face up.
    #[inline]
    fn up_supply(&self, r: &Rules, p: usize) -> usize {
        if r.hand > 0 {
            self.hand_len(p)
        } else {
            self.supply(r, p)
        }
    }

    /// Turns up `p`'s next card: from the hand by the seat's policy (then refills the hand from
    /// the stack at once), or the top of the stack. The caller checks `up_supply > 0`.
    #[inline(always)]
    fn draw_up<D: Draws>(&mut self, r: &Rules, p: usize, rng: &mut D) -> u8 {
        if r.hand == 0 {
            return self.draw_down(r, p, rng);
        }
        let refill = self.supply(r, p) > 0;
        let (hand, len) = self.hand(p);
        let n = usize::from(*len);
        let i = r.choose(p, &hand[..n], rng);
        let card = hand[i];
        if refill {
            let c = self.draw_down(r, p, rng);
            self.hand(p).0[i] = c;
        } else {
            hand[i] = hand[n - 1];
            *len -= 1;
        }
        card
    }

    /// Hand mode, after a battle's pick-ups: a hand that shrank while nothing was left to draw
    /// grows back from the stack into new slots at its end, up to the hand size.
    #[inline(always)]
    fn top_up<D: Draws>(&mut self, r: &Rules, p: usize, rng: &mut D) {
        while self.hand_len(p) < r.hand && self.supply(r, p) > 0 {
            let c = self.draw_down(r, p, rng);
            let (hand, len) = self.hand(p);
            hand[usize::from(*len)] = c;
            *len += 1;
        }
    }

    /// The seat with strictly the most cards among `mask`, or `None` on a tie.
    #[inline]
    fn most_cards(&self, mask: u8) -> Option<u8> {
        most_cards(mask, |p| self.total(p))
    }

    /// The seat holding strictly the most cards, if there is one.
    #[inline]
    fn leader(&self) -> Option<usize> {
        self.most_cards((1u8 << self.players()) - 1)
            .map(usize::from)
    }
}

impl Holdings for State {
    fn players(&self) -> usize {
        self.stacks.len()
    }

    fn in_game(&self) -> u8 {
        self.in_game
    }

    fn set_in_game(&mut self, mask: u8) {
        self.in_game = mask;
    }

    #[inline]
    fn total(&self, p: usize) -> usize {
        self.stacks[p].len() + self.piles[p].len() + usize::from(self.hand_len[p])
    }

    #[inline]
    fn hand_len(&self, p: usize) -> usize {
        usize::from(self.hand_len[p])
    }

    #[inline]
    fn supply(&self, r: &Rules, p: usize) -> usize {
        match r.two_pile {
            None | Some(OnEmpty::Lose) => self.stacks[p].len(),
            Some(_) => self.stacks[p].len() + self.piles[p].len(),
        }
    }

    #[inline]
    fn draw_down<D: Draws>(&mut self, r: &Rules, p: usize, rng: &mut D) -> u8 {
        if self.stacks[p].is_empty() {
            std::mem::swap(&mut self.stacks[p], &mut self.piles[p]);
            if r.two_pile == Some(OnEmpty::Shuffle) {
                rng.shuffle(self.stacks[p].make_contiguous());
                self.shuffles += 1;
            }
        }
        self.stacks[p].pop_front()
    }

    #[inline]
    fn hand(&mut self, p: usize) -> (&mut [u8; MAX_HAND], &mut u8) {
        (&mut self.hands[p], &mut self.hand_len[p])
    }

    #[inline]
    fn give(&mut self, r: &Rules, p: usize, cards: &[u8]) {
        if r.two_pile.is_some() {
            self.piles[p].extend(cards);
        } else {
            self.stacks[p].extend(cards);
        }
    }

    fn take_back(&mut self, p: usize, cards: &[u8]) {
        self.stacks[p].extend(cards);
    }

    fn forfeit(&mut self, p: usize, pot: &mut Vec<u8>) {
        pot.extend(self.stacks[p].iter());
        pot.extend(self.piles[p].iter());
        pot.extend_from_slice(&self.hands[p][..usize::from(self.hand_len[p])]);
        self.stacks[p].clear();
        self.piles[p].clear();
        self.hand_len[p] = 0;
    }

    fn wars_won(&mut self) -> &mut [u32; MAX_PLAYERS] {
        &mut self.wars_won
    }

    fn view(&self) -> View<'_> {
        View { seen: self }
    }
}

impl Seen for State {
    fn players(&self) -> usize {
        self.stacks.len()
    }
    fn cards(&self, p: usize) -> usize {
        Holdings::total(self, p)
    }
    fn stack(&self, p: usize) -> Vec<u8> {
        self.stacks[p].iter().collect()
    }
    fn pile(&self, p: usize) -> Vec<u8> {
        self.piles[p].iter().collect()
    }
    fn shuffles(&self) -> u64 {
        self.shuffles
    }
    fn hand(&self, p: usize) -> &[u8] {
        &self.hands[p][..usize::from(self.hand_len[p])]
    }
    fn in_game(&self) -> u8 {
        self.in_game
    }
}

/// The seat with strictly the most cards among `mask` (`total(p)` cards each), or `None` on a
/// tie: the leader, and the winner of an ending decided by counting cards.
#[inline]
pub(crate) fn most_cards(mask: u8, total: impl Fn(usize) -> usize) -> Option<u8> {
    let mut best = 0;
    let mut who = None;
    // Every seat in turn rather than the bits of `mask`: four steps the compiler unrolls.
    for p in 0..MAX_PLAYERS {
        if mask & bit(p) == 0 {
            continue;
        }
        let t = total(p);
        if t > best {
            best = t;
            who = Some(p as u8);
        } else if t == best {
            who = None;
        }
    }
    who
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
    /// A new leader (the seat with strictly the most cards; `None` keeps the last one) counts
    /// as a lead change when it differs from the last.
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

    pub fn record(&self, end: EndReason, winner: Option<u8>, cycle: Option<Cycle>) -> GameRecord {
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

/// Cards on the table during a battle, per seat in play order, and scratch for pick-up.
pub(crate) struct Scratch {
    pub pots: Vec<Vec<u8>>,
    pub cause: Vec<Vec<u8>>,
    pub order: Vec<u8>,
    /// Where a traced game's cards after each battle go ([`Engine::play_traced`] lends its
    /// buffer for the game). The two-seat loop picks its traced copies (`TRACE`) when it is
    /// there; the other copies never read it, and compile as if it did not exist.
    ///
    /// [`Engine::play_traced`]: crate::Engine::play_traced
    pub trace: Option<Vec<[u16; 2]>>,
}

impl Scratch {
    pub fn new(r: &Rules) -> Scratch {
        let cap = r.cards.total();
        Scratch {
            pots: (0..r.players).map(|_| Vec::with_capacity(cap)).collect(),
            cause: (0..r.players).map(|_| Vec::with_capacity(1)).collect(),
            // Room past the cards for the register pick-ups' whole-register stores (64 bytes
            // past a pot), so that no pick-up grows it.
            order: Vec::with_capacity(cap + 64),
            trace: None,
        }
    }

    /// Empties the table for a new battle.
    #[inline]
    pub fn clear(&mut self) {
        self.pots.iter_mut().for_each(Vec::clear);
        self.cause.iter_mut().for_each(Vec::clear);
    }

    /// Under `war_cause_to_loser`, as a war begins: seat `p`'s tied card, at `at` in its pot,
    /// waits apart for the loser (see [`order_pots`](Self::order_pots)).
    #[inline]
    pub fn set_cause_apart(&mut self, p: usize, at: usize) {
        let cause = self.pots[p].remove(at);
        self.cause[p].push(cause);
    }

    /// [`set_cause_apart`](Self::set_cause_apart) for each seat of `tied` (a mask) as the first
    /// war begins, its tied card the last in its pot.
    pub fn set_causes_apart(&mut self, tied: u8) {
        for p in seats(tied) {
            let up = self.pots[p].len().checked_sub(1);
            self.set_cause_apart(p, up.expect("a tied seat has a face-up card"));
        }
    }

    /// Puts the pots (with `taker` as the one who picks them up) into `order` in the pick-up
    /// order; `cause` picks up the war's cause instead.
    pub fn order_pots<D: Draws>(&mut self, r: &Rules, taker: usize, cause: bool, rng: &mut D) {
        let src = if cause { &self.cause } else { &self.pots };
        let mut refs: [&[u8]; MAX_PLAYERS] = [&[]; MAX_PLAYERS];
        for (slot, pot) in refs.iter_mut().zip(src) {
            *slot = pot;
        }
        r.order_pickup(taker, &refs[..src.len()], &mut self.order, rng);
    }
}

impl crate::cycle::Position for State {
    fn same(&self, other: &Self) -> bool {
        State::same(self, other)
    }
    fn copy_from(&mut self, other: &Self) {
        State::copy_from(self, other)
    }
}
