//! # warlab-casino
//!
//! Casino War (docs/rules.md): one player against the dealer, from a shoe of 1–8 decks
//! (or an infinite deck), a bet on every hand, surrender or war on a tie, an optional
//! tie-after-tie bonus and a tie side bet.
//!
//! - [`CasinoOptions`] holds the table's options by name; [`CasinoRules`] is a validated set.
//! - A table's shoe deals ranks from decks shuffled lazily as they are dealt, down to a cut card
//!   (penetration), or from an infinite deck; its draws come from the engine's per-game
//!   generator, so session `g` of a run can be replayed alone.
//! - [`Table`] plays hands and whole bankroll sessions ([`SessionRecord`]), its loop compiled
//!   once for each kind of shoe; a session allocates nothing after its table is set up.
//! - [`exact`] computes the expected value of a hand exactly, as a fraction, for an infinite
//!   deck and for a freshly shuffled finite shoe.
//!
//! Money is counted in half-chips inside, so that a surrender (half the bet) stays exact.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod exact;
mod rules;
mod session;
mod shoe;

pub use rules::{CasinoOptions, CasinoRules, Decks, OPTIONS, SAFETY_CAP, Strategy};
pub use session::{Hand, HandCounts, HandResult, SessionEnd, SessionRecord, Table};

/// Ranks are `0..13` for 2..A, aces high: suits never matter in Casino War.
pub const RANKS: u8 = 13;

/// The most cards one hand can use: two, then three burnt and two more in a war.
pub const MAX_CARDS_PER_HAND: usize = 7;
