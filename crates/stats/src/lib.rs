//! From counts to statistics, like criterion's analysis stage: what turns the runner's exact
//! counts into estimates, and the types of the data files that carry them. No scheduling, no
//! threads, no file formats' writers (polars), no figures.
//!
//! - [`aggregate`]: exact, mergeable counts of War games (histograms, outcomes, cycles) and
//!   the ended games' lengths apart from loops and caps;
//! - [`casino`]: the same for Casino War sessions, with the money estimates and the exact
//!   values they are set beside;
//! - [`decides`]: what decides a game: the starting hand, the position during play (an
//!   engine observer, [`decides::Watch`]), the time at a table; counts and their estimates;
//! - [`summary`]: the estimates (means with CIs, quantiles, Wilson shares) of an aggregate, as
//!   the summary table's cells;
//! - [`compare`]: comparisons of two variants (Welch, Mann–Whitney, Kolmogorov–Smirnov, shares,
//!   Holm, effect sizes) and power-law fits;
//! - [`survival`]: Kaplan–Meier survival and restricted means, loops and caps censored;
//! - [`files`]: the types of the data files (the run key, `manifest.json`,
//!   `aggregates.json`), for their writer and their readers.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod aggregate;
pub mod casino;
pub mod compare;
pub mod decides;
pub mod files;
pub mod summary;
pub mod survival;

pub use aggregate::{Aggregate, BLOCK, BlockSums, Hist, Lengths, RUNNING_POINTS, running_block};
pub use casino::{CasinoAggregate, Estimate, RatioSums, casino_summary_cells, exact_values};
pub use summary::{Cell, MeanEstimate, mean_estimate, summary_cells, t975, t975_f, wilson, z975};
