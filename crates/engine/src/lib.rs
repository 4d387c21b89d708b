//! # warlab-engine
//!
//! The War card game, every rule variant of `RULES.md`, played fast and exactly.
//!
//! - [`RuleOptions`] holds the options by their RULES.md names; [`Rules`] is a validated set.
//! - [`Engine`] plays games: from a [`GameSeed`] (shuffled deal, reproducible on any thread) or
//!   from an explicit [`Deal`]. After [`Engine::new`], a game allocates nothing.
//! - Deterministic rule sets (no randomness after the deal) are checked for loops by exact
//!   comparison of the complete state with Brent's algorithm; a loop is reported as
//!   [`EndReason::Cycle`] with its start and period. Random rule sets stop at a safety cap.
//! - An [`Observer`] sees every card played; [`Quiet`] compiles to nothing.
//! - Classic-shaped rules (two players, ordered ranks, a fixed war size, one pile) run through
//!   specialised loops: a vector block loop on CPUs with AVX-512 (detected at run time) and a
//!   portable one elsewhere. They play exactly the games of the general loop, draw for draw, so
//!   results never depend on the CPU.
//!
//! This crate does no I/O and has no heavy dependencies: it builds in seconds.

mod block;
mod cards;
mod deal;
mod engine;
mod fast;
mod observe;
mod record;
mod ring;
mod rng;
mod rules;

pub use cards::{CardSet, DeckKind};
pub use deal::{Deal, DealError};
pub use engine::Engine;
pub use observe::{Observer, Quiet, View};
pub use record::{Cycle, EndReason, GameRecord};
pub use rng::{GameRng, GameSeed, splitmix64};
pub use rules::{
    ChainedWar, DEFAULT_SAFETY_CAP, OPTIONS, OnEmpty, OptionError, Pickup, Pile, Policy, Ranking,
    RuleOptions, Rules, RulesError, ShortWar, WarDown,
};
