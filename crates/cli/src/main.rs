//! `warlab`: the command line of the War research workbench.

// The clap structs' doc comments are the `--help` text, printed as written: `OUT/<name>/` there
// is a placeholder for the user, not an HTML tag (an escape would be printed too).
#![allow(rustdoc::invalid_html_tags)]

mod bench;
mod exact;
mod options;
mod run;
mod slurm;
mod trace;

use std::path::PathBuf;
use std::process::ExitCode;

use std::path::Path;

use anyhow::Result;
use clap::{Parser, Subcommand};
use warlab_data::{FolderLock, Refused};
use warlab_experiment::ExperimentError;

use crate::options::{InputError, input_error};

#[derive(Parser)]
#[command(
    name = "warlab",
    version,
    about = "Game-length statistics of the card game War"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print one game battle by battle
    Trace(trace::TraceArgs),
    /// Solve a small deck exactly: mean length, wins, draws, loops, the length distribution
    Exact(exact::ExactArgs),
    /// Measure engine throughput (games/s, ns/battle) on one thread and on all threads
    Bench(bench::BenchArgs),
    /// List every rule option with its default and allowed values
    Rules {
        /// One JSON line: both games' options, each with its meaning, default and values
        #[arg(long)]
        json: bool,
    },
    /// Run an experiment file: every variant on all cores, data to DIR/<name>/
    Run {
        #[command(flatten)]
        args: run::RunArgs,
        /// Where reports go: REPORTS/<experiment>/
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        /// Do not write the report at the end
        #[arg(long)]
        no_report: bool,
        #[command(flatten)]
        figures: FigureArgs,
        /// End with one JSON line: the run's folder, report, games, time and overrides
        #[arg(long)]
        json: bool,
    },
    /// Rebuild the report of a run from its data folder alone (data/<experiment>)
    Report {
        /// The run's data folder
        data: PathBuf,
        /// Where reports go: REPORTS/<experiment>/
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        #[command(flatten)]
        figures: FigureArgs,
    },
    /// Combine the data folders of shards (or of --games-from/--games-to slices) of one
    /// experiment into OUT/<name>/, byte-identical to one run over all games
    Merge {
        /// The shard folders
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Output folder; the data goes to OUT/<experiment name>/
        #[arg(long, default_value = "data")]
        out: PathBuf,
        /// Where the report goes: REPORTS/<experiment>/
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        /// Do not write the report
        #[arg(long)]
        no_report: bool,
        #[command(flatten)]
        figures: FigureArgs,
        /// Replace finished results of another run in OUT/<name>/ (refused without it)
        #[arg(long)]
        force: bool,
    },
    /// Write a Slurm job array over the shards of an experiment, plus a dependent merge job
    Slurm(slurm::SlurmArgs),
    /// Compare two War runs variant by variant (A against B, B the baseline): differences
    /// with CIs, Mann–Whitney, KS, never-ended shares, one Holm family, survival curves
    Compare {
        /// Run A's data folder
        a: PathBuf,
        /// Run B's data folder (the baseline; may be A's, to compare two of its variants)
        b: PathBuf,
        /// The variant to compare (of A, and of B unless --variant-b names B's); default:
        /// every variant whose name both runs have
        #[arg(long)]
        variant: Option<String>,
        /// Run B's variant, when named otherwise than A's
        #[arg(long, requires = "variant")]
        variant_b: Option<String>,
        /// Where the comparison goes: REPORTS/<A>-vs-<B>/compare.md
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        #[command(flatten)]
        figures: FigureArgs,
    },
    /// Check experiment files without running them
    Validate {
        /// Experiment files
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// End with one JSON line: each file, valid or not, with its variants or its error
        #[arg(long)]
        json: bool,
    },
}

/// How the report draws its figures; each flag over the experiment file's `[report]` table.
#[derive(clap::Args, Clone, Copy, Debug)]
struct FigureArgs {
    /// Figure width in figure units (SVG pixels, 96 per inch) [default: 1000, or the
    /// experiment file's `[report] width`]
    #[arg(long, value_parser = clap::value_parser!(u32).range(200..=6000))]
    width: Option<u32>,
    /// Height of a single-panel figure [default: 600, or `[report] height`]
    #[arg(long, value_parser = clap::value_parser!(u32).range(200..=6000))]
    height: Option<u32>,
    /// PNG pixels per inch: 96 is one pixel per figure unit [default: 192 (print), or
    /// `[report] dpi`]
    #[arg(long, value_parser = clap::value_parser!(u32).range(48..=600))]
    dpi: Option<u32>,
    /// Histograms of length on a log y-axis [or `[report] log_hist = true`]
    #[arg(long)]
    log_hist: bool,
}

impl FigureArgs {
    fn options(self) -> warlab_report::Options {
        warlab_report::Options {
            figures: warlab_experiment::FigureSettings {
                width: self.width,
                height: self.height,
                dpi: self.dpi,
                // Absent, not false: the file's `log_hist = true` stands.
                log_hist: self.log_hist.then_some(true),
            },
        }
    }
}

/// Keeps the memory freed between batches for the next one. glibc serves blocks above its
/// mmap threshold (128 KiB at first, raised as such blocks are freed) from the kernel and
/// trims freed heap memory above its trim threshold; with `--rows` (a chunk's rows, the polars
/// frames of a row group) the memory went back to the kernel and came back zeroed, page fault
/// by page fault: 9 % of a run's CPU time (BENCHMARKS.md, "--rows"). Fixed thresholds (glibc
/// then stops adjusting them) keep it in the process instead. The price: the process holds
/// what it has freed (a 4 M-game run with rows peaks at ≈ 95 MB instead of ≈ 55 MB, which a
/// memory limit such as Slurm's `--mem` counts), and these two thresholds set through
/// `MALLOC_*_` or `GLIBC_TUNABLES` are overridden.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: `mallopt` only sets the allocator's parameters and is not thread-safe; it is
    // called first thing in `main`, before any thread starts. A value it refuses (none on
    // 64-bit) leaves glibc's default, which is also correct.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

/// Exit status 2: refused before anything was done (bad input, or a folder that is busy,
/// holds another run's results, or mixes runs); 1: failed while working; 130: interrupted
/// (Ctrl-C), with every finished variant kept.
fn main() -> ExitCode {
    keep_freed_memory();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<run::Interrupted>() => {
            eprintln!("{e}");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            let refused = e
                .chain()
                .any(|c| c.is::<InputError>() || c.is::<Refused>() || c.is::<ExperimentError>());
            if refused {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Writes the report of a locked data folder, after checking that its files are one run's.
fn report(data: &FolderLock, reports: &Path, figures: FigureArgs) -> Result<PathBuf> {
    warlab_data::verify(data.dir())?;
    let dir = warlab_report::build(data, reports, &figures.options())?;
    let md = dir.join("report.md");
    println!("report: {}", md.display());
    Ok(md)
}

/// A run's data folder, locked; a path that is not a folder is refused, saying what to give.
fn run_folder(data: &Path) -> Result<FolderLock> {
    if !data.exists() {
        return Err(input_error(format!(
            "{} does not exist: run the experiment first (`warlab run experiments/<name>.toml`), then give its folder data/<name>",
            data.display()
        )));
    }
    if !data.is_dir() {
        return Err(input_error(format!(
            "{} is a file, not a run's data folder: give the folder a run wrote, e.g. data/<name>",
            data.display()
        )));
    }
    FolderLock::acquire(data)
}

/// `warlab report DATA`: the folder must be a run's data folder.
fn report_folder(data: &Path, reports: &Path, figures: FigureArgs) -> Result<()> {
    report(&run_folder(data)?, reports, figures).map(|_| ())
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run {
            args,
            reports,
            no_report,
            figures,
            json,
        } => {
            let ran = run::run(args)?;
            // A shard or a slice is only part of the data: the report comes with the merge.
            let written = if !no_report && ran.whole {
                Some(report(&ran.lock, &reports, figures)?)
            } else {
                None
            };
            if json {
                let mut line = ran.summary;
                line["report"] = serde_json::json!(written.map(|p| p.display().to_string()));
                println!("{line}");
            }
            Ok(())
        }
        Command::Merge {
            dirs,
            out,
            reports,
            no_report,
            figures,
            force,
        } => {
            let merged = warlab_data::merge(&dirs, &out, force)?;
            println!(
                "merged {} folder(s): {} games of each of {} variant(s) in {}",
                dirs.len(),
                merged.manifest.games_per_variant,
                merged.manifest.variants.len(),
                merged.dir.display()
            );
            if !no_report {
                report(&merged.lock, &reports, figures)?;
            }
            Ok(())
        }
        Command::Slurm(args) => slurm::slurm(args),
        Command::Compare {
            a,
            b,
            variant,
            variant_b,
            reports,
            figures,
        } => {
            let lock_a = run_folder(&a)?;
            // The same folder twice compares two of its variants: it is locked once.
            let same = a.canonicalize().ok() == b.canonicalize().ok();
            let lock_b = if same { None } else { Some(run_folder(&b)?) };
            let lock_b = lock_b.as_ref().unwrap_or(&lock_a);
            for lock in [&lock_a, lock_b] {
                warlab_data::verify(lock.dir())?;
            }
            let pick = warlab_report::Pick {
                a: variant,
                b: variant_b,
            };
            let dir = warlab_report::compare(&lock_a, lock_b, &pick, &reports, &figures.options())?;
            println!("comparison: {}", dir.join("compare.md").display());
            Ok(())
        }
        Command::Report {
            data,
            reports,
            figures,
        } => report_folder(&data, &reports, figures),
        Command::Validate { files, json } => run::validate(&files, json),
        Command::Trace(args) => trace::command(args),
        Command::Bench(args) => bench::command(args),
        Command::Exact(args) => exact::command(args),
        Command::Rules { json } => {
            if json {
                println!("{}", options::options_json());
            } else {
                print!("{}", options::describe_options());
            }
            Ok(())
        }
    }
}
