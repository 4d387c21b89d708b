//! Runs experiments: every variant's games in chunks on all cores, aggregated as they stream.
//!
//! - [`aggregate`]: exact, mergeable counts (histograms, outcomes, cycles);
//! - [`mod@run`]: the chunked, ordered, thread-count-independent schedule and the [`Sink`] that
//!   receives its results;
//! - [`summary`]: the estimates (means with CIs, quantiles, Wilson shares) of an aggregate.
//!
//! No file formats here: `warlab-data` writes what a [`Sink`] receives.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod aggregate;
// runner/casino.rs is being reworked on the Casino War branch; its docs come with that work.
#[allow(missing_docs)]
pub mod casino;
pub mod run;
pub mod summary;

pub use aggregate::{Aggregate, Hist};
pub use casino::{CasinoAggregate, Estimate, SessionRow, casino_summary_cells, exact_values};
pub use run::{CHUNK, Game, GameRow, Plan, Sink, play_chunk, run, shard_range};
pub use summary::{Cell, MeanEstimate, mean_estimate, summary_cells, t975, t975_f, wilson};
