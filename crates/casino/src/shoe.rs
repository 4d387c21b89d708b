//! The dealing shoe: shuffled decks dealt down to a cut card, or an infinite deck.

use warlab_engine::GameRng;

use crate::rules::{CasinoRules, Decks};
use crate::{MAX_CARDS_PER_HAND, RANKS};

/// Deals ranks `0..13` (2..A). A finite shoe is reshuffled before a hand once the cut card is
/// reached (the penetration) or when fewer cards remain than one hand can use; a hand in
/// progress is always finished from the same shoe.
#[derive(Clone, Debug)]
pub struct Shoe {
    cards: Vec<u8>,
    next: usize,
    /// Cards dealt before the cut card comes out.
    cut: usize,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Finite,
    Infinite,
    /// A hand-built order, dealt as is and never reshuffled (for tests and worked examples).
    Stacked,
}

impl Shoe {
    /// A shoe for `rules`, in deck order until the first shuffle.
    pub fn new(rules: &CasinoRules) -> Shoe {
        match rules.decks() {
            Decks::Infinite => Shoe {
                cards: Vec::new(),
                next: 0,
                cut: 0,
                kind: Kind::Infinite,
            },
            Decks::Finite(d) => {
                let cards: Vec<u8> = (0..usize::from(d) * 4 * usize::from(RANKS))
                    .map(|i| (i % usize::from(RANKS)) as u8)
                    .collect();
                let n = cards.len();
                Shoe {
                    cut: (n * usize::from(rules.penetration())).div_ceil(100),
                    next: n,
                    cards,
                    kind: Kind::Finite,
                }
            }
        }
    }

    /// A shoe that deals exactly `cards` (ranks 0..13, top first) and is never reshuffled.
    pub fn stacked(cards: &[u8]) -> Shoe {
        assert!(cards.iter().all(|c| *c < RANKS), "ranks are 0..13");
        Shoe {
            cards: cards.to_vec(),
            next: 0,
            cut: usize::MAX,
            kind: Kind::Stacked,
        }
    }

    /// True when the next hand must come from a freshly shuffled shoe.
    #[inline]
    pub fn needs_shuffle(&self) -> bool {
        self.kind == Kind::Finite
            && (self.next >= self.cut || self.cards.len() - self.next < MAX_CARDS_PER_HAND)
    }

    /// The cards put back in deck order and shuffled: what a session starts from, so that it
    /// depends on its seed alone and not on the sessions played at this table before.
    pub fn new_shoe(&mut self, rng: &mut GameRng) {
        if self.kind == Kind::Finite {
            for (i, c) in self.cards.iter_mut().enumerate() {
                *c = (i % usize::from(RANKS)) as u8;
            }
            self.shuffle(rng);
        }
    }

    /// Every card back in, shuffled uniformly.
    pub fn shuffle(&mut self, rng: &mut GameRng) {
        if self.kind == Kind::Finite {
            rng.shuffle(&mut self.cards);
            self.next = 0;
        }
    }

    /// True for an infinite deck: every hand is as if from a fresh shoe.
    pub fn is_infinite(&self) -> bool {
        self.kind == Kind::Infinite
    }

    /// Cards left before the end of the shoe (0 for an infinite deck).
    pub fn remaining(&self) -> usize {
        self.cards.len().saturating_sub(self.next)
    }

    #[inline]
    pub fn draw(&mut self, rng: &mut GameRng) -> u8 {
        if self.kind == Kind::Infinite {
            return rng.below(u32::from(RANKS)) as u8;
        }
        let c = *self
            .cards
            .get(self.next)
            .expect("a stacked shoe ran out of cards");
        self.next += 1;
        c
    }
}
