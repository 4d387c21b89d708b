//! # warlab-engine
//!
//! The War card game, every rule variant of `docs/rules.md`, played fast and exactly.
//!
//! - [`RuleOptions`] holds the options by their names in docs/rules.md, read and written through
//!   the one table [`OPTIONS`] (see [`spec`]); [`Rules`] is a validated set.
//! - [`Engine`] plays games: from a [`GameSeed`] (shuffled deal, reproducible on any thread) or
//!   from an explicit [`Deal`]. After [`Engine::new`], a game allocates nothing.
//! - Deterministic rule sets (no randomness after the deal) are checked for loops by exact
//!   comparison of the complete state with Brent's algorithm; a loop is reported as
//!   [`EndReason::Cycle`] with its start and period. Random rule sets stop at a safety cap.
//! - An [`Observer`] sees every card played; [`Quiet`] compiles to nothing.
//! - One general loop plays every rule set in the plain words of the rules; specialised loops
//!   ([`HotLoop`]) play the same games faster: a compact layout for every rule set, a two-seat
//!   loop for 2-player rules, a vector block loop (AVX-512, detected at run time) for the
//!   classic shape and its variants (two piles, a prize, speed, the endings, beats-table rankings;
//!   and blocks of two seats' hand battles for the compact layout's loop). They play exactly
//!   the games of the general loop, draw for draw, so results never depend on the CPU or the
//!   loop.
//!
//! - [`Battler`] plays one battle at a time from any [`Position`], with the random draws from
//!   any [`Draws`] source: the hook of the exact solver (`warlab-exact`), which forces every
//!   draw's outcome in turn to enumerate a battle's outcomes with their probabilities.
//!
//! This crate does no I/O and has no heavy dependencies: it builds in seconds.

#![warn(missing_docs)]

mod block;
mod cards;
mod cycle;
mod deal;
mod duo;
mod engine;
mod general;
mod observe;
mod record;
mod ring;
mod rng;
mod rules;
mod seats;
pub mod spec;
mod state;
mod step;
mod table;

pub use cards::{CardSet, DeckKind};
pub use deal::{Deal, DealError};
pub use engine::{Engine, HotLoop};
pub use observe::{Observer, Quiet, View};
pub use record::{Cycle, EndReason, GameRecord};
pub use rng::{Draws, GameRng, GameSeed, splitmix64};
pub use rules::{
    ChainedWar, DEFAULT_SAFETY_CAP, Deck, OPTIONS, OnEmpty, Pickup, Pile, Policy, Ranking,
    RuleOptions, Rules, RulesError, SAMPLE_VALUES, ShortWar, WarDown,
};
pub use spec::{Choice, Named, Opt, OptionError};
pub use step::{Battler, Ending, Played, Position};
