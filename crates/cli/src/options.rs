//! Rule options from the command line (`--rule k=v`) and from a TOML file (`--rules F`).
//!
//! Both go through `RuleOptions::set`, the one parser of option names and values (a file
//! through the experiment files' reader, which names file, line, column and key); this module
//! adds where a `--rule` came from, and `warlab rules`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use clap::Args;
use warlab_engine::{OPTIONS, Opt, RuleOptions, Rules, spec};

/// A problem with the user's input: printed as is, exit status 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

pub fn input_error(msg: impl Into<String>) -> anyhow::Error {
    anyhow!(InputError(msg.into()))
}

/// `--rule NAME=VALUE` and `--rules FILE`, as `trace` and `bench` take them.
#[derive(Args, Clone)]
pub struct RuleArgs {
    /// A rule option, NAME=VALUE, as in docs/rules.md (repeatable): --rule pickup=seat --rule war_down=1
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rule: Vec<String>,
    /// A TOML file of rule options (`name = value` lines, or a `[rules]` table); --rule overrides it
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Option<PathBuf>,
}

impl RuleArgs {
    /// The rules: the file's options over the classic defaults, then every `--rule` on top.
    pub fn build(&self) -> Result<Rules> {
        rules_from(self.rules.as_deref(), &self.rule)
    }
}

/// Builds rules from an optional TOML file, then `--rule` pairs on top.
pub fn rules_from(file: Option<&Path>, pairs: &[String]) -> Result<Rules> {
    let mut o = RuleOptions::default();
    if let Some(path) = file {
        apply_toml_file(&mut o, path)?;
    }
    for pair in pairs {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(input_error(format!(
                "--rule `{pair}`: expected NAME=VALUE, e.g. --rule pickup=seat (see `warlab rules`)"
            )));
        };
        warlab_experiment::check_table_value(v.trim())
            .map_err(|e| input_error(format!("--rule {pair}: {e}")))?;
        o.set(k.trim(), v.trim())
            .map_err(|e| input_error(format!("--rule {pair}: {e}")))?;
    }
    Rules::new(o).map_err(|e| input_error(e.to_string()))
}

/// Reads `name = value` lines (or a `[rules]` table) of a TOML file into `o`: the experiment
/// files' reader, so a value means the same in both.
pub fn apply_toml_file(o: &mut RuleOptions, path: &Path) -> Result<()> {
    warlab_experiment::read_rules_file::<Rules>(path, o)
        .map_err(|e| input_error(format!("--rules {e}")))
}

/// `warlab rules`: every option with what it decides, its default, and each value in one line.
pub fn describe_options() -> String {
    let mut out = String::from(
        "Rule options (docs/rules.md explains them; set with --rule NAME=VALUE or in an experiment file):\n",
    );
    describe_table(&mut out, OPTIONS, &RuleOptions::default());
    out.push_str(
        "\nCasino War options (an experiment file with game = \"casino-war\"; see experiments/casino-war.toml):\n",
    );
    describe_table(
        &mut out,
        warlab_casino::OPTIONS,
        &warlab_casino::CasinoOptions::default(),
    );
    out
}

/// `warlab rules --json`: both games' option tables as one JSON object.
pub fn options_json() -> serde_json::Value {
    serde_json::json!({
        "war": table_json(OPTIONS, &RuleOptions::default()),
        "casino-war": table_json(
            warlab_casino::OPTIONS,
            &warlab_casino::CasinoOptions::default()
        ),
    })
}

/// One game's options: name, meaning, default (`null` when unset), named values, other values.
fn table_json<O>(table: &[Opt<O>], defaults: &O) -> serde_json::Value {
    let defaults = spec::pairs(table, defaults);
    table
        .iter()
        .map(|opt| {
            serde_json::json!({
                "name": opt.name,
                "means": opt.means,
                "default": defaults.iter().find(|(d, _)| *d == opt.name).map(|(_, v)| v),
                "values": opt
                    .named
                    .iter()
                    .map(|n| serde_json::json!({ "name": n.name, "means": n.means }))
                    .collect::<Vec<_>>(),
                "other": opt.other,
                "allowed": opt.allowed(),
            })
        })
        .collect()
}

/// One game's options: name, default and meaning, then each named value and what else it takes.
fn describe_table<O>(out: &mut String, table: &[Opt<O>], defaults: &O) {
    let defaults = spec::pairs(table, defaults);
    for opt in table {
        let default = defaults
            .iter()
            .find(|(d, _)| *d == opt.name)
            .map_or("unset", |(_, v)| v.as_str());
        let _ = writeln!(out, "\n  {:<20} default {default}", opt.name);
        let _ = writeln!(out, "      {}", opt.means);
        for n in opt.named {
            let _ = writeln!(out, "      {:<16} {}", n.name, n.means);
        }
        if !opt.other.is_empty() {
            let or = if opt.named.is_empty() { "" } else { "or " };
            let _ = writeln!(out, "      {or}{}", opt.other);
        }
    }
}

pub fn check_positive(name: &str, n: u64) -> Result<u64> {
    if n == 0 {
        bail!(InputError(format!("--{name} must be at least 1")));
    }
    Ok(n)
}

/// Worker threads beyond this many per core only add start-up time and memory: a pool of
/// CPU-bound games gains nothing from them.
pub const THREADS_PER_CORE: usize = 4;

/// The worker threads to use: `asked` (at least 1), at most [`THREADS_PER_CORE`] per core
/// with a warning; all cores by default.
pub fn threads(asked: Option<usize>) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let Some(n) = asked else {
        return Ok(cores);
    };
    check_positive("threads", n as u64)?;
    let most = cores * THREADS_PER_CORE;
    if n > most {
        eprintln!(
            "warning: --threads {n}: this machine has {cores} core(s); using {most} threads ({THREADS_PER_CORE} per core at most)"
        );
        return Ok(most);
    }
    Ok(n)
}
