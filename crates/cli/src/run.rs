//! `warlab run` and `warlab validate`.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use warlab_casino::{CasinoRules, SessionEnd};
use warlab_data::{FolderLock, PartStore, Tables, Timing, finish_run};
use warlab_experiment::{AnyExperiment, Experiment, Overrides};
use warlab_runner::{Plan, Sink};
use warlab_stats::files::RunKey;
use warlab_stats::{Aggregate, CasinoAggregate, exact_values, mean_estimate};

use crate::options::input_error;

#[derive(clap::Args)]
pub struct RunArgs {
    /// The experiment file (see experiments/README.md)
    pub file: PathBuf,
    /// Games per variant (overrides the file's `games`), 1..=10000000000
    #[arg(long)]
    pub games: Option<u64>,
    /// A base rule option over the file's `[rules]`, NAME=VALUE (repeatable): --rule pickup=seat
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rule: Vec<String>,
    /// A sweep axis, added or replacing the file's axis of that option (repeatable):
    /// --sweep war_down=1,2,3 (war-size tables separated by `;`)
    #[arg(long = "sweep", value_name = "NAME=V1,V2")]
    pub sweep: Vec<String>,
    /// Worker threads (default: all cores)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Output folder; the data goes to OUT/<experiment name>/
    #[arg(long, default_value = "data")]
    pub out: PathBuf,
    /// Seed (overrides the file's `seed`)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Also write one row per game (games.parquet), as `rows = true` in the file does
    #[arg(long)]
    pub rows: bool,
    /// First game index to play in every variant (default 0); a slice goes to
    /// OUT/<name>.games-A-B/ (combine slices with `warlab merge`)
    #[arg(long, value_name = "A")]
    pub games_from: Option<u64>,
    /// Game index to stop before in every variant (default: the number of games)
    #[arg(long, value_name = "B")]
    pub games_to: Option<u64>,
    /// Run shard I of N (1-based) of every variant's games into OUT/<name>.shard-I-of-N/;
    /// combine the shards with `warlab merge`
    #[arg(long, value_name = "I/N", value_parser = parse_shard, conflicts_with_all = ["games_from", "games_to"])]
    pub shard: Option<(u64, u64)>,
    /// Replace finished results (or finished variants of an interrupted run) of another run
    /// key in the output folder; without it such a folder is refused
    #[arg(long)]
    pub force: bool,
}

/// A finished run: the lock of its folder, still held (the report is written under it).
pub struct Ran {
    pub lock: FolderLock,
    /// All games of the experiment, not a shard or a slice.
    pub whole: bool,
    /// What `run --json` prints: the folder, the games, the time, the overrides.
    pub summary: serde_json::Value,
}

/// `I/N` with 1 ≤ I ≤ N (clap reports a bad value with exit status 2).
fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || "expected I/N with 1 ≤ I ≤ N, e.g. --shard 2/8".to_string();
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let i: u64 = i.trim().parse().map_err(|_| bad())?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    if i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Reads and checks an experiment file of either game; problems are input errors (exit
/// status 2).
pub fn load_any(path: &Path) -> Result<AnyExperiment> {
    AnyExperiment::load(path).map_err(|e| input_error(e.to_string()))
}

/// The variant `name` of `exp` (read from `file`), or an input error listing the variants.
pub fn variant<'a, R: warlab_experiment::RuleSet>(
    exp: &'a Experiment<R>,
    file: &Path,
    name: &str,
) -> Result<&'a warlab_experiment::Variant<R>> {
    exp.variant(name).ok_or_else(|| {
        let names: Vec<&str> = exp.variants.iter().map(|v| v.name.as_str()).collect();
        input_error(format!(
            "--variant `{name}`: {} has no such variant; its variants: {}",
            file.display(),
            names.join(" | ")
        ))
    })
}

pub fn validate(files: &[PathBuf], json: bool) -> Result<()> {
    let mut failed = Vec::new();
    let mut lines = Vec::new();
    for f in files {
        match AnyExperiment::load(f) {
            Ok(exp) => {
                let (game, unit) = match exp {
                    AnyExperiment::War(_) => ("war", "games"),
                    AnyExperiment::Casino(_) => ("casino-war", "sessions"),
                };
                println!(
                    "ok: {} — `{}`: {} variant(s) × {} {unit}",
                    f.display(),
                    exp.name(),
                    exp.variant_count(),
                    exp.games(),
                );
                lines.push(serde_json::json!({
                    "file": f.display().to_string(),
                    "ok": true,
                    "game": game,
                    "experiment": exp.name(),
                    "variants": exp.variant_count(),
                    "games": exp.games(),
                }));
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed.push(f.display().to_string());
                lines.push(serde_json::json!({
                    "file": f.display().to_string(),
                    "ok": false,
                    "error": e.to_string(),
                    "line": e.line,
                    "column": e.column,
                    "key": e.key,
                }));
            }
        }
    }
    if json {
        println!("{}", serde_json::json!({ "files": lines }));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(input_error(format!(
            "{} of {} file(s) invalid: {}",
            failed.len(),
            files.len(),
            failed.join(", ")
        )))
    }
}

/// What the console prints at the end of a run of a game.
trait Console: Tables {
    /// What a variant plays: `games` of War, `sessions` of Casino War.
    const UNIT: &'static str;
    fn print_table(exp: &Experiment<Self>, aggregates: &[Self::Aggregate]);
}

impl Console for warlab_engine::Rules {
    const UNIT: &'static str = "games";
    fn print_table(exp: &Experiment, aggregates: &[Aggregate]) {
        print_table(exp, aggregates);
    }
}

impl Console for CasinoRules {
    const UNIT: &'static str = "sessions";
    fn print_table(exp: &Experiment<CasinoRules>, aggregates: &[CasinoAggregate]) {
        print_casino_table(exp, aggregates);
    }
}

pub fn run(args: RunArgs) -> Result<Ran> {
    // The command line's changes are read with the file: the same checks, the same errors.
    let overrides = Overrides::from_args(args.games, &args.rule, &args.sweep, args.rows)
        .map_err(input_error)?;
    let exp =
        AnyExperiment::load_with(&args.file, &overrides).map_err(|e| input_error(e.to_string()))?;
    match exp {
        AnyExperiment::War(exp) => run_game(args, exp),
        AnyExperiment::Casino(exp) => run_game(args, exp),
    }
}

fn run_game<G: Console>(args: RunArgs, mut exp: Experiment<G>) -> Result<Ran> {
    if let Some(s) = args.seed {
        exp.seed = s;
    }
    let (from, to) = match args.shard {
        Some((i, n)) => {
            let r = warlab_runner::shard_range(exp.games, i - 1, n);
            (r.start, r.end)
        }
        None => (
            args.games_from.unwrap_or(0),
            args.games_to.unwrap_or(exp.games),
        ),
    };
    if args.shard.is_none() && from >= to {
        return Err(input_error(format!(
            "--games-from {from} --games-to {to}: an empty range of games (the experiment has {} per variant)",
            exp.games
        )));
    }
    if to > exp.games {
        return Err(input_error(format!(
            "--games-to {to}: beyond the experiment's {} games per variant (`--games` or the file's `games` sets them)",
            exp.games
        )));
    }
    let rows = exp.rows;
    let threads = crate::options::threads(args.threads)?;
    let key = RunKey {
        experiment_hash: exp.text_hash(),
        seed: exp.seed,
        games_from: from,
        games_to: to,
        rows,
        warlab_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    // A shard or a slice is part of the data: it gets its own folder, never the whole run's.
    let whole = (from, to) == (0, exp.games) && args.shard.is_none();
    let dir = match args.shard {
        Some((i, n)) => args.out.join(format!("{}.shard-{i}-of-{n}", exp.name)),
        None if !whole => args.out.join(format!("{}.games-{from}-{to}", exp.name)),
        None => args.out.join(&exp.name),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let lock = FolderLock::acquire(&dir)?;
    let parts = warlab_data::parts_dir(&dir);
    if rows && parts.is_dir() {
        // Resuming reads every kept rows part whole (its checksums): say why it waits.
        eprintln!("checking the finished variants kept in {}", parts.display());
    }
    let store = PartStore::open(&lock, &exp, &key, args.force)?;
    for problem in store.repairs() {
        eprintln!("warning: {problem}");
    }
    if store.resumed() > 0 {
        eprintln!(
            "resuming {}: {} of {} variant(s) already finished in {}",
            exp.name,
            store.resumed(),
            exp.variants.len(),
            dir.display()
        );
    }
    if let Some((i, n)) = args.shard {
        eprintln!(
            "shard {i}/{n} of {}: games {from}..{to} of every variant → {}",
            exp.name,
            dir.display()
        );
    } else if !whole {
        eprintln!(
            "slice of {}: games {from}..{to} of every variant → {}",
            exp.name,
            dir.display()
        );
    }
    // Games each variant plays in this range (a variant may play fewer: its own `games`).
    let sizes: Vec<u64> = exp
        .variants
        .iter()
        .map(|v| {
            let r = v.games_in(from..to);
            r.end - r.start
        })
        .collect();
    let to_play: u64 = (0..exp.variants.len())
        .filter(|&v| !store.is_done(v))
        .map(|v| sizes[v])
        .sum();
    let mut sink = Progress::new(store, &exp, sizes, to_play);
    let plan = Plan {
        experiment: &exp,
        games: from..to,
        seed: exp.seed,
        rows,
        threads,
    };
    let started = SystemTime::now();
    let clock = Instant::now();
    catch_interrupts();
    warlab_runner::run(&plan, &mut sink)?;
    let seconds = clock.elapsed().as_secs_f64();
    let store = sink.finish();
    if INTERRUPTED.load(Ordering::SeqCst) {
        let kept = (0..exp.variants.len())
            .filter(|&v| store.is_done(v))
            .count();
        return Err(anyhow::Error::new(Interrupted(format!(
            "interrupted: {kept} of {} variant(s) finished and kept in {}; run the same command \
             again to resume from them (the other variants start again)",
            exp.variants.len(),
            dir.display()
        ))));
    }
    let (manifest, aggregates) = finish_run(
        store,
        &exp,
        &key,
        Timing {
            started,
            seconds,
            games_played: to_play,
            threads,
        },
    )
    .with_context(|| format!("writing the data of {}", exp.name))?;
    G::print_table(&exp, &aggregates);
    let unit = G::UNIT;
    println!(
        "{} {unit} in {:.1} s ({:.0} {unit}/s on {} thread(s)); data in {}",
        manifest.games_played,
        manifest.seconds,
        manifest.games_per_s,
        threads,
        dir.display()
    );
    let summary = serde_json::json!({
        "experiment": exp.name,
        "game": G::GAME,
        "data": dir.display().to_string(),
        "variants": exp.variants.len(),
        "unit": G::UNIT,
        "games_from": from,
        "games_to": to,
        "games_played": manifest.games_played,
        "variants_resumed": manifest.variants_resumed,
        "seconds": manifest.seconds,
        "games_per_s": manifest.games_per_s,
        "threads": threads,
        "seed": exp.seed,
        "overrides": exp.overrides.args(),
        "whole": whole,
    });
    Ok(Ran {
        lock,
        whole,
        summary,
    })
}

/// Set by the first Ctrl-C (or SIGTERM): the run starts no more chunks and keeps every variant
/// already finished. A second one ends the process at once.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// A run stopped by Ctrl-C: what was kept and how to resume (exit status 130).
#[derive(Debug)]
pub struct Interrupted(pub String);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Interrupted {}

extern "C" fn on_interrupt(_signal: libc::c_int) {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: `_exit` is async-signal-safe; a second interrupt means "stop now".
        unsafe { libc::_exit(130) };
    }
}

/// Ctrl-C and SIGTERM (Slurm's `scancel`) stop the run between chunks instead of killing it.
fn catch_interrupts() {
    let handler = on_interrupt as extern "C" fn(libc::c_int);
    // SAFETY: the handler only swaps an atomic and calls `_exit`, both async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
}

/// Progress in words where stderr is not a terminal (Slurm logs, nohup): a line per finished
/// variant and one every [`LOG_EVERY`].
struct Log {
    started: Instant,
    last: Instant,
    played: u64,
    total: u64,
    finished: usize,
    /// Variants this run plays (those resumed from an earlier run are not counted).
    to_finish: usize,
}

/// How often a log line reports progress between finished variants.
const LOG_EVERY: Duration = Duration::from_secs(30);

/// `42s`, `3m 05s`, `1h 02m`.
fn duration_text(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s / 60 % 60),
    }
}

impl Log {
    /// `1,234,000/5,000,000 games (24.7 %), 51234 games/s, ETA 1m 18s`.
    fn status(&self, unit: &str) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = self.played as f64 / secs;
        let left = self.total.saturating_sub(self.played) as f64 / rate.max(1e-9);
        format!(
            "{}/{} {unit} ({:.1} %), {:.0} {unit}/s, ETA {}",
            self.played,
            self.total,
            100.0 * self.played as f64 / self.total.max(1) as f64,
            rate,
            duration_text(left)
        )
    }
}

/// The store, plus progress: bars on a terminal, lines in a log.
struct Progress<'l, G: Tables> {
    store: PartStore<'l, G>,
    bars: Option<(MultiProgress, ProgressBar, HashMap<usize, ProgressBar>)>,
    log: Option<Log>,
    names: Vec<String>,
    /// Games each variant plays.
    sizes: Vec<u64>,
    unit: &'static str,
}

impl<'l, G: Console> Progress<'l, G> {
    /// Progress of `total` games to play, `sizes[v]` in variant `v` (resumed variants are done).
    fn new(store: PartStore<'l, G>, exp: &Experiment<G>, sizes: Vec<u64>, total: u64) -> Self {
        let unit = G::UNIT;
        let terminal = std::io::stderr().is_terminal();
        let bars = terminal.then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let main = multi.add(ProgressBar::new(total));
            main.set_style(
                ProgressStyle::with_template(&format!(
                    "{{prefix:>12}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit}  {{rate}}  ETA {{eta}}"
                ))
                .expect("a valid template")
                // Whole numbers: a rate of "51234.5678/s" says nothing more.
                .with_key("rate", move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} {unit}/s", s.per_sec());
                })
                .progress_chars("=> "),
            );
            main.set_prefix(exp.name.clone());
            main.enable_steady_tick(Duration::from_millis(200));
            (multi, main, HashMap::new())
        });
        let to_finish = (0..exp.variants.len())
            .filter(|&v| !store.is_done(v))
            .count();
        let log = (!terminal && total > 0).then(|| {
            eprintln!(
                "{}: {total} {unit} to play in {} variant(s)",
                exp.name,
                exp.variants.len()
            );
            Log {
                started: Instant::now(),
                last: Instant::now(),
                played: 0,
                total,
                finished: 0,
                to_finish,
            }
        });
        Progress {
            store,
            bars,
            log,
            names: exp.variants.iter().map(|v| v.name.clone()).collect(),
            sizes,
            unit,
        }
    }

    fn finish(self) -> PartStore<'l, G> {
        if let Some((multi, main, _)) = &self.bars {
            main.finish_and_clear();
            let _ = multi.clear();
        }
        self.store
    }
}

impl<G: Tables> Sink<G> for Progress<'_, G> {
    type Error = anyhow::Error;

    fn is_done(&self, variant: usize) -> bool {
        self.store.is_done(variant)
    }

    fn rows(&mut self, variant: usize, rows: &[G::Row]) -> Result<()> {
        self.store.rows(variant, rows)
    }

    fn variant_done(&mut self, variant: usize, aggregate: G::Aggregate) -> Result<()> {
        if let Some((_, _, per)) = &mut self.bars
            && let Some(bar) = per.remove(&variant)
        {
            bar.finish_and_clear();
        }
        self.store.variant_done(variant, aggregate)?;
        if let Some(log) = &mut self.log {
            log.finished += 1;
            log.last = Instant::now();
            eprintln!(
                "variant {} finished ({} of {}); {}",
                self.names[variant],
                log.finished,
                log.to_finish,
                log.status(self.unit)
            );
        }
        Ok(())
    }

    fn progress(&mut self, variant: usize, games: u64) {
        let per_variant = self.sizes[variant];
        if let Some(log) = &mut self.log {
            log.played += games;
            if log.last.elapsed() >= LOG_EVERY {
                log.last = Instant::now();
                eprintln!("{}", log.status(self.unit));
            }
        }
        if let Some((multi, main, per)) = &mut self.bars {
            main.inc(games);
            let bar = per.entry(variant).or_insert_with(|| {
                let b = multi.add(ProgressBar::new(per_variant));
                b.set_style(
                    ProgressStyle::with_template("{prefix:>12} [{bar:30}] {percent:>3}%  {msg}")
                        .expect("a valid template")
                        .progress_chars("=> "),
                );
                b.set_prefix("variant");
                b.set_message(self.names[variant].clone());
                b
            });
            bar.inc(games);
        }
    }

    fn should_stop(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }
}

/// The width of the variant column: the longest name, within 7..=48 characters.
fn name_width<'a>(names: impl Iterator<Item = &'a str>) -> usize {
    names.map(str::len).max().unwrap_or(7).clamp(7, 48)
}

/// A short table on stdout: the answer at a glance (the files hold everything). Lengths are
/// those of the games that ended; looping and capped games are shares of their own.
fn print_table(exp: &Experiment, aggregates: &[Aggregate]) {
    let width = name_width(exp.variants.iter().map(|v| v.name.as_str()));
    println!(
        "{:<width$}  {:>9}  {:>26}  {:>7}  {:>8}  {:>8}  {:>11}",
        "variant", "games", "ended: mean (95% CI)", "median", "looping", "capped", "seat 0 wins"
    );
    let share = |k: u64, n: u64| 100.0 * k as f64 / n.max(1) as f64;
    for (v, a) in exp.variants.iter().zip(aggregates) {
        let lengths = a.lengths();
        let ended = lengths.as_ref().map(|l| &l.ended_battles);
        let mean = ended
            .and_then(mean_estimate)
            .map_or("-".to_string(), |m| match m.ci {
                Some((lo, hi)) => format!("{:.1} ({lo:.1}–{hi:.1})", m.mean),
                None => format!("{:.1}", m.mean),
            });
        println!(
            "{:<width$}  {:>9}  {:>26}  {:>7}  {:>7.3}%  {:>7.3}%  {:>10.2}%",
            v.name,
            a.games,
            mean,
            ended
                .and_then(|h| h.quantile(0.5))
                .map_or("-".into(), |q| q.to_string()),
            share(a.ended(warlab_engine::EndReason::Cycle), a.games),
            share(a.ended(warlab_engine::EndReason::Capped), a.games),
            share(a.wins(0), a.games)
        );
    }
}

/// The Casino War table: how long a bankroll lasts, how often it doubles, and the house
/// edge, exact beside simulated.
fn print_casino_table(exp: &Experiment<CasinoRules>, aggregates: &[CasinoAggregate]) {
    let width = name_width(exp.variants.iter().map(|v| v.name.as_str()));
    println!(
        "{:<width$}  {:>9}  {:>22}  {:>8}  {:>8}  {:>11}  {:>22}",
        "variant",
        "sessions",
        "hands mean (95% CI)",
        "ruined",
        "doubled",
        "edge exact",
        "edge sim. (95% CI)"
    );
    for (v, a) in exp.variants.iter().zip(aggregates) {
        let m = mean_estimate(&a.hands);
        let hands = m.map_or("-".to_string(), |m| match m.ci {
            Some((lo, hi)) => format!("{:.1} ({lo:.1}–{hi:.1})", m.mean),
            None => format!("{:.1}", m.mean),
        });
        let (fresh, _) = exact_values(&v.rules);
        let sim = a.fresh_value().map_or("-".to_string(), |e| {
            format!(
                "{:.2}% ({:.2}–{:.2})",
                -100.0 * e.mean,
                -100.0 * e.ci.1,
                -100.0 * e.ci.0
            )
        });
        let share = |e| 100.0 * a.ended(e) as f64 / a.sessions.max(1) as f64;
        println!(
            "{:<width$}  {:>9}  {:>22}  {:>7.2}%  {:>7.2}%  {:>10.3}%  {:>22}",
            v.name,
            a.sessions,
            hands,
            share(SessionEnd::Ruin),
            share(SessionEnd::Target),
            -100.0 * fresh.ev.to_f64(),
            sim
        );
    }
}
