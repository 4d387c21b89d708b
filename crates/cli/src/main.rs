//! `warlab`: the command line of the War research workbench.

// The clap structs' doc comments are the `--help` text, printed as written: `OUT/<name>/` there
// is a placeholder for the user, not an HTML tag (an escape would be printed too).
#![allow(rustdoc::invalid_html_tags)]

mod bench;
mod options;
mod run;
mod slurm;
mod trace;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use std::path::Path;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use warlab_data::{FolderLock, Refused};
use warlab_engine::{Deal, GameSeed};
use warlab_experiment::ExperimentError;

use crate::options::{InputError, input_error, rules_from};

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

#[derive(Args, Clone)]
struct RuleArgs {
    /// A rule option, NAME=VALUE, as in docs/rules.md (repeatable): --rule pickup=seat --rule war_down=1
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    rule: Vec<String>,
    /// A TOML file of rule options (`name = value` lines, or a `[rules]` table); --rule overrides it
    #[arg(long = "rules", value_name = "FILE")]
    rules: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Print one game battle by battle
    Trace {
        #[command(flatten)]
        rules: RuleArgs,
        /// Experiment seed of the game to replay [default: the experiment's, else 1]
        #[arg(long)]
        seed: Option<u64>,
        /// An experiment file: replay its variant's game (rules and seed from the file)
        #[arg(long, value_name = "FILE", conflicts_with_all = ["rule", "rules"])]
        experiment: Option<PathBuf>,
        /// The variant of the game: its name with --experiment, else its seed id (a number)
        #[arg(long, default_value = "0")]
        variant: String,
        /// Game index of the game to replay
        #[arg(long, default_value_t = 0)]
        game: u64,
        /// An explicit deal, each seat's stack top first, seats separated by `/`: "QS 8C AD / 9H 8D KC"
        #[arg(long, conflicts_with = "deck_order")]
        deal: Option<String>,
        /// A full deck order (top first), dealt one card at a time starting with seat 0
        #[arg(long)]
        deck_order: Option<String>,
        /// JSON lines instead of text
        #[arg(long)]
        json: bool,
    },
    /// Measure engine throughput (games/s, ns/battle) on one thread and on all threads
    Bench {
        #[command(flatten)]
        rules: RuleArgs,
        /// Games per repetition (per thread)
        #[arg(long, default_value_t = 200_000)]
        games: u64,
        /// Repetitions; the median is reported
        #[arg(long, default_value_t = 5)]
        reps: usize,
        /// Threads for the all-threads run (default: all cores)
        #[arg(long)]
        threads: Option<usize>,
        /// Seed of the games played
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Never the vector block loop, even where this CPU has it: the two-seat loop plays
        /// the same games
        #[arg(long)]
        portable: bool,
        /// Measure every rule shape of the engine side by side on one thread (ns/battle and
        /// the ratio to classic), instead of one rule set; --games is per shape and repetition
        #[arg(long, conflicts_with_all = ["rule", "rules"])]
        shapes: bool,
    },
    /// List every rule option with its default and allowed values
    Rules,
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
        /// Histograms of length on a log y-axis
        #[arg(long)]
        log_hist: bool,
    },
    /// Rebuild the report of a run from its data folder alone (data/<experiment>)
    Report {
        /// The run's data folder
        data: PathBuf,
        /// Where reports go: REPORTS/<experiment>/
        #[arg(long, default_value = "reports")]
        reports: PathBuf,
        /// Histograms of length on a log y-axis
        #[arg(long)]
        log_hist: bool,
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
        /// Replace finished results of another run in OUT/<name>/ (refused without it)
        #[arg(long)]
        force: bool,
    },
    /// Write a Slurm job array over the shards of an experiment, plus a dependent merge job
    Slurm(slurm::SlurmArgs),
    /// Check experiment files without running them
    Validate {
        /// Experiment files
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// Exit status 2: refused before anything was done (bad input, or a folder that is busy,
/// holds another run's results, or mixes runs); 1: failed while working.
fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
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

/// A trace's output: a reader that stopped early (`warlab trace | head`) is fine.
fn quiet_pipe(written: std::io::Result<()>) -> Result<()> {
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Writes the report of a locked data folder, after checking that its files are one run's.
fn report(data: &FolderLock, reports: &Path, log_hist: bool) -> Result<()> {
    warlab_data::verify(data.dir())?;
    let dir = warlab_report::build(data, reports, &warlab_report::Options { log_hist })?;
    println!("report: {}", dir.join("report.md").display());
    Ok(())
}

/// `warlab report DATA`: the folder must be a run's data folder.
fn report_folder(data: &Path, reports: &Path, log_hist: bool) -> Result<()> {
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
    report(&FolderLock::acquire(data)?, reports, log_hist)
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run {
            args,
            reports,
            no_report,
            log_hist,
        } => {
            let ran = run::run(args)?;
            // A shard or a slice is only part of the data: the report comes with the merge.
            if !no_report && ran.whole {
                report(&ran.lock, &reports, log_hist)?;
            }
            Ok(())
        }
        Command::Merge {
            dirs,
            out,
            reports,
            no_report,
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
                report(&merged.lock, &reports, false)?;
            }
            Ok(())
        }
        Command::Slurm(args) => slurm::slurm(args),
        Command::Report {
            data,
            reports,
            log_hist,
        } => report_folder(&data, &reports, log_hist),
        Command::Validate { files } => run::validate(&files),
        Command::Rules => {
            print!("{}", options::describe_options());
            Ok(())
        }
        Command::Trace {
            rules,
            seed,
            experiment,
            variant,
            game,
            deal,
            deck_order,
            json,
        } => {
            let (rules, seed, variant, fixed) = match experiment {
                Some(file) => {
                    // The file is read once; its `game` decides which trace it gets.
                    let exp = match run::load_any(&file)? {
                        warlab_experiment::AnyExperiment::Casino(exp) => {
                            let v = run::variant(&exp, &file, &variant)?;
                            let id = GameSeed::new(seed.unwrap_or(exp.seed), v.seed_id, game);
                            return quiet_pipe(
                                trace::casino(&v.rules, id, json, std::io::stdout().lock())
                                    .map(|_| ()),
                            );
                        }
                        warlab_experiment::AnyExperiment::War(exp) => exp,
                    };
                    let v = run::variant(&exp, &file, &variant)?;
                    (
                        v.rules.clone(),
                        seed.unwrap_or(exp.seed),
                        v.seed_id,
                        v.deal.clone(),
                    )
                }
                None => {
                    let id = variant.parse::<u64>().map_err(|_| {
                        input_error(format!(
                            "--variant `{variant}`: without --experiment, give the variant's seed id (a number)"
                        ))
                    })?;
                    (
                        rules_from(rules.rules.as_deref(), &rules.rule)?,
                        seed.unwrap_or(1),
                        id,
                        None,
                    )
                }
            };
            let deal = match (deal, deck_order) {
                (Some(d), _) => {
                    Some(Deal::parse(&rules, &d).map_err(|e| input_error(format!("--deal: {e}")))?)
                }
                (None, Some(d)) => Some(
                    Deal::from_deck_order(&rules, &d)
                        .map_err(|e| input_error(format!("--deck-order: {e}")))?,
                ),
                // A variant with a fixed deal plays it in every game.
                (None, None) => fixed,
            };
            let stdout = std::io::stdout().lock();
            quiet_pipe(
                trace::trace(
                    &rules,
                    deal.as_ref(),
                    GameSeed::new(seed, variant, game),
                    json,
                    stdout,
                )
                .map(|_| ()),
            )
        }
        Command::Bench {
            rules,
            games,
            reps,
            threads,
            seed,
            portable,
            shapes,
        } => {
            if shapes {
                return bench_shapes(games, reps, seed, portable);
            }
            let rules = rules_from(rules.rules.as_deref(), &rules.rule)?;
            options::check_positive("games", games)?;
            options::check_positive("reps", reps as u64)?;
            let threads = options::threads(threads)?;
            let cfg = bench::BenchConfig {
                games,
                reps,
                threads,
                seed,
                portable,
            };
            let verbose = std::io::stderr().is_terminal();
            eprintln!(
                "benchmarking `{rules}`: {reps} reps of {games} games (1 thread), then {threads} threads"
            );
            let r = bench::run(&rules, &cfg, |line| {
                if verbose {
                    eprintln!("{line}");
                }
            })?;
            println!("rules:            {rules}");
            println!("engine loop:      {}", r.hot_loop);
            println!(
                "battles per game: {:.1} (median of reps)",
                r.battles_per_game
            );
            println!(
                "1 thread:         {:.0} games/s, {:.2} ns/battle (thread CPU time, median of {reps})",
                r.games_per_s_1t, r.ns_per_battle_1t
            );
            println!(
                "{threads} threads:        {:.0} games/s (wall time, median of {reps})",
                r.games_per_s_all
            );
            // Rounded as the table above shows them: games/s whole, ns to 0.001.
            let round = |x: f64, places: i32| (x * 10f64.powi(places)).round() / 10f64.powi(places);
            let whole = |v: &[f64]| v.iter().map(|x| x.round() as u64).collect::<Vec<_>>();
            let line = serde_json::json!({
                "rules": rules.to_string(),
                "loop": r.hot_loop,
                "games_per_s_1t": r.games_per_s_1t.round() as u64,
                "ns_per_battle_1t": round(r.ns_per_battle_1t, 3),
                "games_per_s_all": r.games_per_s_all.round() as u64,
                "threads": threads,
                "battles_per_game": round(r.battles_per_game, 2),
                "reps": reps,
                "games_per_rep": games,
                "reps_1t": whole(&r.reps_1t),
                "reps_all": whole(&r.reps_all),
            });
            println!("{line}");
            Ok(())
        }
    }
}

/// `warlab bench --shapes`: a table of every engine shape on one thread, with the ratio of its
/// ns/battle to classic's, and one JSON line per shape.
fn bench_shapes(games: u64, reps: usize, seed: u64, portable: bool) -> Result<()> {
    options::check_positive("games", games)?;
    options::check_positive("reps", reps as u64)?;
    // The default of 200,000 games is for one rule set; the shapes table plays ~40 of them.
    let games = if games == 200_000 { 20_000 } else { games };
    let cfg = bench::BenchConfig {
        games,
        reps,
        threads: 1,
        seed,
        portable,
    };
    eprintln!(
        "benchmarking {} shapes: {reps} reps of {games} games each, one thread, round robin",
        bench::SHAPES.len()
    );
    let verbose = std::io::stderr().is_terminal();
    let results = bench::shapes(&cfg, |line| {
        if verbose {
            eprintln!("{line}");
        }
    })?;
    let classic = results[0].ns_per_battle;
    println!("| shape | loop | battles/game | ns/battle (median of {reps}) | × classic |");
    println!("|---|---|---:|---:|---:|");
    for r in &results {
        println!(
            "| {} | {} | {:.1} | {:.2} | {:.2} |",
            r.name,
            r.hot_loop,
            r.battles_per_game,
            r.ns_per_battle,
            r.ns_per_battle / classic
        );
    }
    for r in &results {
        let line = serde_json::json!({
            "shape": r.name,
            "rules": r.rules.to_string(),
            "loop": r.hot_loop,
            "battles_per_game": r.battles_per_game,
            "ns_per_battle": r.ns_per_battle,
            "ratio_to_classic": r.ns_per_battle / classic,
            "reps": r.reps,
            "games_per_rep": games,
        });
        println!("{line}");
    }
    Ok(())
}
