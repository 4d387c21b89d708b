//! Runs experiments: every variant's games in chunks on all cores, aggregated as they stream.
//!
//! - [`mod@run`]: the chunked, ordered, thread-count-independent schedule and the [`Sink`] that
//!   receives its results; the [`Game`] impl of War;
//! - [`casino`]: the [`Game`] impl of Casino War (a game is a bankroll session).
//!
//! The aggregates the games are counted in, and every statistic computed from them, are
//! `warlab-stats`'. No file formats here: `warlab-data` writes what a [`Sink`] receives.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod casino;
pub mod run;

pub use casino::SessionRow;
pub use run::{CHUNK, Game, GameRow, Plan, Sink, play_chunk, run, shard_range};
