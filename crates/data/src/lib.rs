//! The data files of a run, written and read through polars.
//!
//! `DIR/<experiment>/` receives, when a run completes:
//! - `summary.parquet`, `summary.csv`: one row per variant (see `warlab_stats::summary`);
//! - `variants.parquet`, `variants.csv`: one row per variant, its typed rule options (the
//!   summary's first columns), for joining per-game rows to their rules on `variant`;
//! - `lengths.parquet`: the exact histogram of battles (`variant`, `battles`, `count`);
//! - `games.parquet` (rows on): one row per game;
//! - `aggregates.json`: every variant's mergeable counts (histograms of battles, wars, cards,
//!   outcomes, cycles), from which all of the above can be rebuilt and runs combined;
//! - `manifest.json`: the experiment text and hash, version, seed, range, threads, times, speed.
//!
//! While a run is going, finished variants are kept in `.parts/` (their aggregate, and their
//! rows when asked for: fixed-width records of the game's own fields, written as they come and
//! read once when `games.parquet` is written, on every core), each file written under a
//! temporary name and renamed when complete.
//! An interrupted run therefore keeps every finished variant, and the same command resumes
//! from them; final files are likewise renamed into place only when complete.
//!
//! Every data file carries the run key (experiment file hash, seed, game range, rows,
//! version): Parquet files in their key-value metadata (`warlab.run`), `.parts/` rows in their
//! header, `aggregates.json` in its `run` field, `manifest.json` in its fields,
//! `summary.csv`, which has no place for it, through the FNV-1a hash the manifest records, and
//! `variants.csv` by being the bytes of the rules the manifest records. [`verify`] checks a folder against its
//! manifest; a folder holding another run's results is never overwritten without `force`;
//! every command works on a folder only under its [`FolderLock`].
//!
//! Files by job: `parts` keeps a run's finished variants and finishes the run from them,
//! `frames` holds each game's columns and writes every final file (one writer for a run and a
//! merge), `manifest` a run's `manifest.json` (the files' types are `warlab_stats::files`'), `files` atomic writes and Parquet
//! metadata, `folder` what a folder holds and `verify`, `merge` shards and slices.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod files;
mod folder;
mod frames;
mod manifest;
mod merge;
mod parts;
mod rowfile;

pub use files::{RUN_KEY_METADATA, parquet_footer, read_parquet, write_parquet};
pub use folder::{FILES, parts_dir, verify};
pub use frames::Tables;
pub use manifest::Timing;
pub use merge::{Merged, merge};
pub use parts::{PartStore, finish_run};
pub use rowfile::rows_part;
pub use warlab_folders::{FolderLock, Refused};
