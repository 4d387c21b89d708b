//! Where a session's cards come from: a finite shoe dealt down to its cut card, an infinite
//! deck, or a hand-built order. Each is a [`Deal`], and the session loop is compiled once for
//! each (`Table` picks it once per session), so no card asks what kind of shoe it comes from.
//!
//! # Draws
//! Card positions are uniform draws by Lemire's multiply-shift with rejection on 32-bit words,
//! two to a 64-bit word of the session's [`GameRng`]: a hand's first two cards are the low
//! and the high half of one word. A war's five cards (three burnt, then the player's and the
//! dealer's) take three words: two pairs, then the low half of a third. A rejected half (a
//! chance below 416 / 2³², once per ten million hands) is drawn again from the low halves of
//! the words that follow.
//!
//! # The lazy shuffle
//! A finite shoe is shuffled one Fisher–Yates step at a time, as it is dealt: the undealt
//! cards are `cards[..left]`, and a card is dealt by drawing a uniform position among them,
//! swapping that card to `cards[left − 1]` and taking it. The dealt cards are therefore a
//! uniformly random sequence without replacement, exactly as from a shoe shuffled in full
//! before the first hand, but only the cards dealt before the cut card cost a draw, and a
//! shuffle itself costs nothing (`left` goes back to the whole shoe: every dealt card stays in
//! the array, behind the undealt ones).

use warlab_engine::GameRng;

use crate::{MAX_CARDS_PER_HAND, RANKS};

/// A source of cards for hands, played by [`crate::Table`]'s session loop.
pub(crate) trait Deal {
    /// Every hand is dealt as if from a freshly shuffled shoe.
    const INFINITE: bool;

    /// The first two cards of a hand: the player's, then the dealer's.
    fn two(&mut self, rng: &mut GameRng) -> (u8, u8);

    /// One more card.
    fn one(&mut self, rng: &mut GameRng) -> u8;

    /// True when the next hand must come from a freshly shuffled shoe.
    fn needs_shuffle(&self) -> bool;

    /// Every card back in, shuffled.
    fn shuffle(&mut self);

    /// The cards put back in deck order, to be shuffled before the next hand: what a session
    /// starts from, so that it depends on its seed alone and not on the sessions played at
    /// this table before.
    fn new_shoe(&mut self);
}

/// Uniform in `0..n` (`1 ≤ n`) from the 32-bit `x`, drawing again on a rejection.
#[inline(always)]
fn below(rng: &mut GameRng, x: u32, n: u32) -> u32 {
    let mut m = u64::from(x) * u64::from(n);
    if (m as u32) < n {
        let t = rejected_below(n);
        while (m as u32) < t {
            m = u64::from(rng.next_u64() as u32) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

/// Products whose low half is below `2³² mod n` are rejected. Out of line and without the
/// generator, so that the generator never leaves the session loop's registers.
#[cold]
#[inline(never)]
fn rejected_below(n: u32) -> u32 {
    n.wrapping_neg() % n
}

/// The most cards a finite shoe holds (8 decks: 416), rounded up to a power of two so that a
/// masked position is visibly in bounds: positions are below `left ≤ 416` anyway.
const CAPACITY: usize = 512;
const MASK: usize = CAPACITY - 1;

/// One deck's ranks in deck order, four times over.
const DECK_ORDER: [u8; 4 * RANKS as usize] = {
    let mut d = [0; 4 * RANKS as usize];
    let mut i = 0;
    while i < d.len() {
        d[i] = (i % RANKS as usize) as u8;
        i += 1;
    }
    d
};

/// `decks` shuffled decks with a cut card, shuffled lazily (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct Finite {
    /// Undealt cards in `cards[..left]`; the dealt ones after them, the last dealt first.
    cards: [u8; CAPACITY],
    len: u32,
    left: u32,
    /// A hand needs a freshly shuffled shoe when fewer than this many cards are left: the cut
    /// card has come out, or the hand might run out of cards.
    reshuffle_below: u32,
}

impl Finite {
    /// `decks` (1..=8) decks, reshuffled once `penetration` percent of them are dealt.
    pub(crate) fn new(decks: u8, penetration: u8) -> Finite {
        assert!((1..=8).contains(&decks), "1 to 8 decks");
        let n = usize::from(decks) * DECK_ORDER.len();
        let cut = (n * usize::from(penetration)).div_ceil(100);
        let mut shoe = Finite {
            cards: [0; CAPACITY],
            len: n as u32,
            left: 0,
            // Dealt ≥ cut, i.e. left ≤ n − cut, or left < MAX_CARDS_PER_HAND.
            reshuffle_below: (n - cut + 1).max(MAX_CARDS_PER_HAND) as u32,
        };
        shoe.new_shoe();
        shoe.shuffle();
        shoe
    }

    /// Deals the card at undealt position `j`: it goes to the top of the dealt ones.
    #[inline(always)]
    fn take(&mut self, j: u32) -> u8 {
        let top = (self.left as usize - 1) & MASK;
        self.cards.swap(j as usize & MASK, top);
        self.left -= 1;
        self.cards[top]
    }
}

impl Deal for Finite {
    const INFINITE: bool = false;

    #[inline(always)]
    fn two(&mut self, rng: &mut GameRng) -> (u8, u8) {
        let x = rng.next_u64();
        let player = self.take(below(rng, x as u32, self.left));
        let dealer = self.take(below(rng, (x >> 32) as u32, self.left));
        (player, dealer)
    }

    #[inline(always)]
    fn one(&mut self, rng: &mut GameRng) -> u8 {
        let x = rng.next_u64();
        self.take(below(rng, x as u32, self.left))
    }

    #[inline(always)]
    fn needs_shuffle(&self) -> bool {
        self.left < self.reshuffle_below
    }

    #[inline(always)]
    fn shuffle(&mut self) {
        self.left = self.len;
    }

    fn new_shoe(&mut self) {
        for deck in self.cards[..self.len as usize].chunks_exact_mut(DECK_ORDER.len()) {
            deck.copy_from_slice(&DECK_ORDER);
        }
        self.left = 0;
    }
}

/// Every card drawn independently, each rank with probability 1/13: the limit of a huge shoe.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Infinite;

impl Deal for Infinite {
    const INFINITE: bool = true;

    #[inline(always)]
    fn two(&mut self, rng: &mut GameRng) -> (u8, u8) {
        let x = rng.next_u64();
        let r = u32::from(RANKS);
        (
            below(rng, x as u32, r) as u8,
            below(rng, (x >> 32) as u32, r) as u8,
        )
    }

    #[inline(always)]
    fn one(&mut self, rng: &mut GameRng) -> u8 {
        let x = rng.next_u64();
        below(rng, x as u32, u32::from(RANKS)) as u8
    }

    fn needs_shuffle(&self) -> bool {
        false
    }

    fn shuffle(&mut self) {}

    fn new_shoe(&mut self) {}
}

/// A hand-built order, dealt as is (for tests and worked examples). It counts as shuffled once,
/// before its first card (it is the order a shuffle produced), and never again.
#[derive(Clone, Debug)]
pub(crate) struct Stacked {
    cards: Vec<u8>,
    next: usize,
}

impl Stacked {
    pub(crate) fn new(cards: &[u8]) -> Stacked {
        assert!(cards.iter().all(|c| *c < RANKS), "ranks are 0..13");
        Stacked {
            cards: cards.to_vec(),
            next: 0,
        }
    }
}

impl Deal for Stacked {
    const INFINITE: bool = false;

    #[inline(always)]
    fn two(&mut self, rng: &mut GameRng) -> (u8, u8) {
        (self.one(rng), self.one(rng))
    }

    #[inline(always)]
    fn one(&mut self, _: &mut GameRng) -> u8 {
        let c = *self
            .cards
            .get(self.next)
            .expect("a stacked shoe ran out of cards");
        self.next += 1;
        c
    }

    fn needs_shuffle(&self) -> bool {
        self.next == 0
    }

    fn shuffle(&mut self) {}

    fn new_shoe(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use warlab_engine::GameSeed;

    #[test]
    fn deck_order_is_every_rank_four_times() {
        let shoe = Finite::new(2, 75);
        let mut counts = [0u32; RANKS as usize];
        for c in &shoe.cards[..shoe.len as usize] {
            counts[usize::from(*c)] += 1;
        }
        assert_eq!(counts, [8; RANKS as usize]);
        assert_eq!(&shoe.cards[..13], &DECK_ORDER[..13]);
    }

    /// The cut card: 1 deck at 75 % is reshuffled once 39 cards are dealt (13 left); at 100 %
    /// once fewer than a hand's 7 cards are left.
    #[test]
    fn the_cut_card_and_the_last_cards_call_for_a_shuffle() {
        let mut rng = GameRng::new(GameSeed::new(0, 0, 0));
        for (penetration, dealt) in [(75u8, 39usize), (100, 46), (0, 0), (1, 1)] {
            let mut shoe = Finite::new(1, penetration);
            let mut n = 0;
            while !shoe.needs_shuffle() {
                shoe.one(&mut rng);
                n += 1;
            }
            assert_eq!(n, dealt, "penetration {penetration}");
            shoe.shuffle();
            assert_eq!(shoe.left, 52);
        }
    }

    /// A shuffle puts every card back: dealing a whole shoe twice yields each card of the
    /// shoe once per pass.
    #[test]
    fn every_card_comes_out_once_per_shoe() {
        let mut rng = GameRng::new(GameSeed::new(3, 0, 0));
        let mut shoe = Finite::new(3, 100);
        for _ in 0..2 {
            let mut counts = [0u32; RANKS as usize];
            for _ in 0..shoe.len {
                counts[usize::from(shoe.one(&mut rng))] += 1;
            }
            assert_eq!(counts, [12; RANKS as usize]);
            shoe.shuffle();
        }
    }

    /// The lazy shuffle deals every order of a small shoe equally often: 5 cards (a shoe of
    /// distinct cards, set up by hand), all 120 orders, a chi-square test on 120,000 deals.
    #[test]
    fn the_lazy_shuffle_deals_every_order_uniformly() {
        let mut shoe = Finite {
            cards: [0; CAPACITY],
            len: 5,
            left: 5,
            reshuffle_below: 0,
        };
        shoe.cards[..5].copy_from_slice(&[0, 1, 2, 3, 4]);
        let mut rng = GameRng::new(GameSeed::new(11, 0, 0));
        let mut counts = std::collections::HashMap::new();
        let deals = 120_000u32;
        for _ in 0..deals {
            shoe.shuffle();
            let (a, b) = shoe.two(&mut rng);
            let order = [
                a,
                b,
                shoe.one(&mut rng),
                shoe.one(&mut rng),
                shoe.one(&mut rng),
            ];
            *counts.entry(order).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 120, "every order dealt");
        let expected = f64::from(deals) / 120.0;
        let chi2: f64 = counts
            .values()
            .map(|&c| (f64::from(c) - expected).powi(2) / expected)
            .sum();
        // 119 degrees of freedom: the 99.9th percentile is 173.
        assert!(chi2 < 173.0, "chi-square {chi2} over 120 orders");
    }

    #[test]
    fn a_stacked_shoe_deals_in_order() {
        let mut rng = GameRng::new(GameSeed::new(0, 0, 0));
        let mut shoe = Stacked::new(&[5, 0, 12, 7]);
        assert_eq!(shoe.two(&mut rng), (5, 0));
        shoe.shuffle();
        assert!(!shoe.needs_shuffle());
        assert_eq!(shoe.one(&mut rng), 12);
        assert_eq!(shoe.one(&mut rng), 7);
    }

    /// A rejected draw is drawn again. With `n = 3·2³⁰` multiply-shift alone would give the
    /// positions divisible by 3 two words each and the others one (a share of 1/2 instead of
    /// 1/3); rejecting the quarter of words whose low product falls below `2³² mod n` makes
    /// every position equally likely.
    #[test]
    fn rejection_keeps_draws_uniform() {
        let mut rng = GameRng::new(GameSeed::new(5, 0, 0));
        let n = 3 << 30;
        let (mut thirds, draws) = (0u32, 30_000u32);
        for _ in 0..draws {
            let x = rng.next_u64() as u32;
            thirds += u32::from(below(&mut rng, x, n).is_multiple_of(3));
        }
        // A third of the draws; the standard deviation is 82.
        let dev = (f64::from(thirds) - f64::from(draws) / 3.0).abs();
        assert!(dev < 400.0, "{thirds} of {draws} divisible by 3");
    }
}
