//! The data files of a run, written and read through polars.
//!
//! `DIR/<experiment>/` receives, when a run completes:
//! - `summary.parquet`, `summary.csv`: one row per variant (see `warlab_runner::summary`);
//! - `lengths.parquet`: the exact histogram of battles (`variant`, `battles`, `count`);
//! - `games.parquet` (rows on): one row per game;
//! - `aggregates.json`: every variant's mergeable counts (histograms of battles, wars, cards,
//!   outcomes, cycles), from which all of the above can be rebuilt and runs combined;
//! - `manifest.json`: the experiment text and hash, version, seed, range, threads, times, speed.
//!
//! While a run is going, finished variants are kept in `.parts/` (their aggregate, and their
//! rows when asked for), each file written under a temporary name and renamed when complete.
//! An interrupted run therefore keeps every finished variant, and the same command resumes
//! from them; final files are likewise renamed into place only when complete.

mod files;
mod merge;
mod store;

pub use files::{read_parquet, write_csv, write_parquet};
pub use merge::merge;
pub use store::{Manifest, ManifestVariant, PartStore, RunKey, Tables, Timing, finish_run};
