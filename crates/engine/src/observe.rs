//! Hooks into a game as it is played, for traces and tests.
//!
//! The engine is generic over an [`Observer`]; the default [`Quiet`] observer has `ACTIVE =
//! false`, so every hook call is compiled out of the hot loop.

/// What an observer may see of the cards: implemented by whatever holds a game's cards.
pub(crate) trait Seen {
    fn players(&self) -> usize;
    fn cards(&self, p: usize) -> usize;
    fn stack(&self, p: usize) -> Vec<u8>;
    fn pile(&self, p: usize) -> Vec<u8>;
    fn shuffles(&self) -> u64;
    fn hand(&self, p: usize) -> &[u8];
    fn in_game(&self) -> u8;
}

/// A read-only look at the cards each player holds between battles.
pub struct View<'a> {
    pub(crate) seen: &'a dyn Seen,
}

impl View<'_> {
    /// Seats at the table.
    pub fn players(&self) -> usize {
        self.seen.players()
    }

    /// Cards player `p` holds: stack, won pile and hand.
    pub fn cards(&self, p: usize) -> usize {
        self.seen.cards(p)
    }

    /// Cards in player `p`'s stack, top first.
    pub fn stack(&self, p: usize) -> Vec<u8> {
        self.seen.stack(p)
    }

    /// Cards in player `p`'s won pile (two-pile rules), in the order they will be drawn.
    pub fn pile(&self, p: usize) -> Vec<u8> {
        self.seen.pile(p)
    }

    /// Won piles shuffled into a stack so far this game (`on_empty = shuffle`), every seat's.
    pub fn shuffles(&self) -> u64 {
        self.seen.shuffles()
    }

    /// Cards in player `p`'s hand (hand-of-N rules).
    pub fn hand(&self, p: usize) -> &[u8] {
        self.seen.hand(p)
    }

    /// Whether player `p` is still in the game.
    pub fn in_game(&self, p: usize) -> bool {
        self.seen.in_game() & (1 << p) != 0
    }

    /// Every card held by anyone, as counts per card value (for conservation checks).
    pub fn value_counts(&self, values: usize) -> Vec<usize> {
        let mut counts = vec![0; values];
        for p in 0..self.players() {
            for c in self
                .stack(p)
                .into_iter()
                .chain(self.pile(p))
                .chain(self.hand(p).iter().copied())
            {
                counts[usize::from(c)] += 1;
            }
        }
        counts
    }
}

/// Receives the events of a game. Every method has an empty default.
pub trait Observer {
    /// `false` lets the compiler drop every hook call.
    const ACTIVE: bool = true;

    /// The deal, before the first battle (hands already drawn).
    fn game_start(&mut self, _view: &View<'_>) {}
    /// A battle begins; `battle` counts from 0.
    fn battle_start(&mut self, _battle: u64) {}
    /// A prize card put face down under the battle (`prize = true`).
    fn prize(&mut self, _player: usize, _card: u8) {}
    /// A face-up card; `depth` 0 is the battle's first card, 1 the first war's, …
    fn face_up(&mut self, _player: usize, _card: u8, _depth: u32) {}
    /// A tie among `players` (bit mask): war number `depth`, each putting `down` face down.
    fn war(&mut self, _depth: u32, _players: u8, _down: usize) {}
    /// Cards a player actually put face down (fewer than asked when short).
    fn face_down(&mut self, _player: usize, _count: usize, _depth: u32) {}
    /// A player could not fight the war: out of cards, or a forfeit.
    fn drop_out(&mut self, _player: usize, _forfeit: bool) {}
    /// Seat 0 grabbed the battle (`speed`).
    fn grab(&mut self) {}
    /// The battle is over: `winner` took `pot` cards (`None`: drawn war).
    fn battle_end(&mut self, _winner: Option<usize>, _pot: usize, _view: &View<'_>) {}
}

/// Observes nothing, costs nothing.
pub struct Quiet;

impl Observer for Quiet {
    const ACTIVE: bool = false;
}
