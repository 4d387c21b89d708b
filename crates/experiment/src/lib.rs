//! Experiment files: what to run, read from TOML and checked before anything runs.
//!
//! An experiment is a name, a description, games per variant, a seed, base rules, and variants:
//! the cartesian product of a `[sweep]` (every option given as a list is an axis), named
//! `[[variant]]` tables, or both. Every problem is an [`ExperimentError`] that names the file,
//! the line and column, the key, and what is allowed. The format is documented in
//! `experiments/README.md`.
//!
//! Read top-down: this file holds the public types and bounds; `parse` reads a file (its
//! top-level keys, base rules and named variants), `sweep` its axes and their product,
//! `published` its figures from the literature; `rule_set` puts War and Casino War behind one
//! trait; `error` gives every problem its file, line and column.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
mod overrides;
mod parse;
mod published;
mod rule_set;
mod sweep;

use std::path::{Path, PathBuf};

use warlab_casino::CasinoRules;
use warlab_engine::Rules;

use crate::error::read;
use crate::parse::{NO_OVERRIDES, Parser};
pub use error::{ExperimentError, line_col};
pub use overrides::Overrides;
pub use parse::check_table_value;
pub use published::{LengthUnit, Measure, Published, STATISTICS, Statistic};
pub use rule_set::{NoDeal, RuleSet};

/// The games an experiment file can declare with `game = "…"`.
pub const GAMES: &[&str] = &["war", "casino-war"];

/// At most this many variants in one experiment (the sweep's product and the named ones):
/// every variant keeps a part file while it runs and a row in every table.
pub const MAX_VARIANTS: usize = 100_000;

/// At most this many games per variant. A variant's aggregate keeps one record per block of
/// games (`warlab_stats::BLOCK`; about 100 MB at this bound), and game ranges stay far from
/// `u64` overflow.
pub const MAX_GAMES: u64 = 10_000_000_000;

/// An experiment file (or a rule file) is at most this many bytes; anything larger is not one.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// The longest `name`: it becomes a folder name with suffixes (`.shard-I-of-N`) and the stem
/// of script and log names, all within file-system limits.
pub const MAX_NAME_CHARS: usize = 100;

/// Checks a name that becomes a folder (`OUT/<name>/`, `REPORTS/<name>/`): letters, digits,
/// `-`, `_`, `.`, not starting with `.` (so never `..` or hidden), at most
/// [`MAX_NAME_CHARS`]. Every name read from a file (an experiment's `name`, a manifest's
/// `experiment`) is checked with this before it becomes a path.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        let shown: String = name.chars().take(MAX_NAME_CHARS + 20).collect();
        let more = if shown.len() < name.len() { "…" } else { "" };
        Err(format!(
            "`{}{more}` cannot name an output folder; allowed: {}",
            shown.escape_debug(),
            top_key("name")
        ))
    }
}

/// Reads a text file of at most [`MAX_FILE_BYTES`]; the error says why not, without the path.
pub fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read the file: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if meta.is_dir() {
        return Err("is a folder, not a file".into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "larger than {} MiB: not an experiment or rule file",
            MAX_FILE_BYTES >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Top-level keys, with what each takes (for error messages).
pub const TOP_KEYS: &[(&str, &str)] = &[
    (
        "name",
        "a name of letters, digits, `-`, `_` or `.` (the output folder)",
    ),
    ("description", "a string"),
    (
        "game",
        "`war` (default) or `casino-war`: which game's options [rules] and [sweep] take",
    ),
    (
        "games",
        "an integer from 1 to 10000000000 (MAX_GAMES): games per variant",
    ),
    ("seed", "an integer ≥ 0 (default 1)"),
    (
        "rows",
        "true or false: also write one row per game (default false)",
    ),
    (
        "baseline",
        "the name of a variant that the report compares the others with",
    ),
    ("rules", "a table of rule options: the base rules"),
    (
        "sweep",
        "a table of rule options, each with a list of values",
    ),
    (
        "variant",
        "an array of tables `[[variant]]`, each with a `name`, rule options, and optionally `games` and `deal`",
    ),
    (
        "published",
        "an array of tables `[[published]]`: figures from the literature that the report sets beside this run's",
    ),
    (
        "report",
        "a table of how the report draws its figures: `width`, `height`, `dpi`, `log_hist`",
    ),
    (
        "decides",
        "a table of what the report says decides a game: `position` (true, false, or how many games to follow) and the time model's `battle_seconds`, `war_card_seconds`, `shuffle_seconds`",
    ),
    (
        "exact",
        "true or false: solve every variant exactly (`warlab exact`) and set the exact values beside the simulated ones in the report (default: the variants of at most 8 cards)",
    ),
];

/// How the report draws its figures, from a file's `[report]` table or the command line; what
/// neither gives takes the default. Changing it changes no data: `warlab report` redraws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FigureSettings {
    /// Width of a figure in figure units (SVG pixels, 96 per inch); default 1000.
    pub width: Option<u32>,
    /// Height of a single-panel figure; default 600.
    pub height: Option<u32>,
    /// PNG pixels per inch; default 192 (twice the SVG's 96: sharp in print).
    pub dpi: Option<u32>,
    /// Histograms of length on a log y-axis; default false.
    pub log_hist: Option<bool>,
}

impl FigureSettings {
    /// Allowed figure widths and heights, in figure units.
    pub const SIDE: (u64, u64) = (200, 6000);
    /// Allowed PNG densities, pixels per inch.
    pub const DPI: (u64, u64) = (48, 600);

    /// These settings where given, `under`'s elsewhere (the command line over the file).
    pub fn over(self, under: FigureSettings) -> FigureSettings {
        FigureSettings {
            width: self.width.or(under.width),
            height: self.height.or(under.height),
            dpi: self.dpi.or(under.dpi),
            log_hist: self.log_hist.or(under.log_hist),
        }
    }
}

/// What the run records of what decides a game, from the file's `[decides]` table. The
/// starting hand is always counted (it costs a game nothing); the rest is asked for here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecidesSettings {
    /// Which games are followed battle by battle: the position heat map, "call it", who
    /// trails, the last lead change, and the time of the rule sets whose record does not
    /// give it. A followed game plays through the reference loop (with an observer), several
    /// times slower; off by default.
    pub position: Follow,
    /// How long a game takes at the table.
    pub time: TimeModel,
}

/// Which games of a variant are followed battle by battle (`[decides] position`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Follow {
    /// None (`position = false`, the default).
    #[default]
    Off,
    /// Every game (`position = true`).
    All,
    /// The games of index below this (`position = N`): a sample of the variant's games that
    /// does not depend on shards or slices, at a fraction of the cost.
    First(u64),
}

impl Follow {
    /// Whether game `game` is followed.
    pub fn follows(self, game: u64) -> bool {
        match self {
            Follow::Off => false,
            Follow::All => true,
            Follow::First(n) => game < n,
        }
    }

    /// Whether any game is.
    pub fn any(self) -> bool {
        self != Follow::Off
    }
}

/// How long a game takes at a real table: a duration per battle, per war card and per
/// shuffle of a won pile, in whole milliseconds so that every game's duration is exact.
///
/// The defaults are warlab's assumption, not a measurement (no source gives one): two
/// seconds to turn up two cards, compare them and put them under a stack; one second to put
/// down or turn up each further card of a war; fifteen seconds to shuffle a won pile. With
/// them a classic game's middle half takes 4.8 to 14.8 minutes, in line with a rule source's
/// "ten minutes, sometimes an hour or longer" (docs/what-decides.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeModel {
    /// Milliseconds per battle (its first face-up cards and the pick-up).
    pub battle_ms: u32,
    /// Milliseconds per card of a war (face down or face up after the battle's first).
    pub war_card_ms: u32,
    /// Milliseconds per shuffle of a won pile into a stack (`pile = two-pile`, `on_empty =
    /// shuffle`).
    pub shuffle_ms: u32,
}

impl TimeModel {
    /// The longest a step may take: ten minutes.
    pub const MAX_MS: u32 = 600_000;
}

impl Default for TimeModel {
    fn default() -> TimeModel {
        TimeModel {
            battle_ms: 2_000,
            war_card_ms: 1_000,
            shuffle_ms: 15_000,
        }
    }
}

/// What a top-level key takes, as [`TOP_KEYS`] says.
pub(crate) fn top_key(key: &str) -> &'static str {
    TOP_KEYS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, what)| what)
}

/// One rule set to play: from the sweep's product or from a `[[variant]]`.
#[derive(Clone, Debug)]
pub struct Variant<R: RuleSet = Rules> {
    /// Stable and readable: the sweep values (`pickup=seat,war_down=1`) or the given name.
    pub name: String,
    /// Seeds the variant's games: a hash of the name, so adding or reordering variants
    /// never changes another variant's data.
    pub seed_id: u64,
    /// The validated rule set the variant plays.
    pub rules: R,
    /// The sweep axes' values (or the named variant's own options) that make this variant.
    pub settings: Vec<(String, String)>,
    /// Games this variant plays, when fewer than the experiment's (`games` in a
    /// `[[variant]]`).
    pub games: Option<u64>,
    /// A fixed deal the variant plays in every game instead of a shuffled one.
    pub deal: Option<R::Deal>,
    /// What the runner records of what decides a game (the experiment's `[decides]`).
    pub decides: DecidesSettings,
}

impl<R: RuleSet> Variant<R> {
    /// The game indices of `range` this variant plays.
    pub fn games_in(&self, range: std::ops::Range<u64>) -> std::ops::Range<u64> {
        match self.games {
            Some(g) => range.start.min(g)..range.end.min(g),
            None => range,
        }
    }
}

/// A checked experiment, ready to run.
#[derive(Clone, Debug)]
pub struct Experiment<R: RuleSet = Rules> {
    /// The file the experiment was read from (named in errors and the manifest).
    pub file: PathBuf,
    /// The file's text, kept for the manifest.
    pub text: String,
    /// The command line's changes to the file, applied (`warlab run --rule …`).
    pub overrides: Overrides,
    /// The experiment's name: its output folder (checked by [`check_name`]).
    pub name: String,
    /// A line saying what the experiment asks.
    pub description: String,
    /// Games per variant.
    pub games: u64,
    /// The experiment seed (game seeds derive from it).
    pub seed: u64,
    /// Whether one row per game is written (`games.parquet`).
    pub rows: bool,
    /// The variant the report compares every other one with (default: the first).
    pub baseline: Option<String>,
    /// The variants, the sweep's product first, then the named ones.
    pub variants: Vec<Variant<R>>,
    /// Figures from the literature the report compares with (`[[published]]`).
    pub published: Vec<Published>,
    /// The `[report]` table: how the report draws its figures.
    pub figures: FigureSettings,
    /// The `[decides]` table: what the run records of what decides a game.
    pub decides: DecidesSettings,
    /// `exact`: solve every variant (`true`), none (`false`), or those of small decks (unset).
    pub exact: Option<bool>,
}

impl Experiment {
    /// Reads and checks a War experiment file.
    pub fn load(path: &Path) -> Result<Experiment, ExperimentError> {
        Experiment::parse(path, &read(path)?)
    }

    /// Checks a War experiment given as text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Experiment, ExperimentError> {
        Experiment::parse_game(path, text)
    }
}

/// Reads a rule file (`--rules FILE`: `name = value` lines, or one `[rules]` table) into
/// `options`, each value checked as an experiment's `[rules]` checks it.
pub fn read_rules_file<R: RuleSet>(
    path: &Path,
    options: &mut R::Options,
) -> Result<(), ExperimentError> {
    Parser {
        path,
        text: &read(path)?,
        overrides: &NO_OVERRIDES,
    }
    .rules_file::<R>(options)
}

/// An experiment of either game, as its file's `game` says.
#[derive(Clone, Debug)]
pub enum AnyExperiment {
    /// A War experiment (`game = "war"`, the default).
    War(Experiment<Rules>),
    /// A Casino War experiment (`game = "casino-war"`).
    Casino(Experiment<CasinoRules>),
}

impl AnyExperiment {
    /// Reads and checks an experiment file of either game.
    pub fn load(path: &Path) -> Result<AnyExperiment, ExperimentError> {
        AnyExperiment::parse(path, &read(path)?)
    }

    /// Checks an experiment of either game given as text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<AnyExperiment, ExperimentError> {
        AnyExperiment::parse_with(path, text, &NO_OVERRIDES)
    }

    /// Reads an experiment file of either game with the command line's changes applied.
    pub fn load_with(path: &Path, overrides: &Overrides) -> Result<AnyExperiment, ExperimentError> {
        AnyExperiment::parse_with(path, &read(path)?, overrides)
    }

    /// Checks an experiment of either game given as text, with the command line's changes.
    pub fn parse_with(
        path: &Path,
        text: &str,
        overrides: &Overrides,
    ) -> Result<AnyExperiment, ExperimentError> {
        let parser = Parser {
            path,
            text,
            overrides,
        };
        Ok(match parser.game()?.as_str() {
            "casino-war" => AnyExperiment::Casino(parser.experiment()?),
            _ => AnyExperiment::War(parser.experiment()?),
        })
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        match self {
            AnyExperiment::War(e) => &e.name,
            AnyExperiment::Casino(e) => &e.name,
        }
    }

    /// Games per variant.
    pub fn games(&self) -> u64 {
        match self {
            AnyExperiment::War(e) => e.games,
            AnyExperiment::Casino(e) => e.games,
        }
    }

    /// The number of variants.
    pub fn variant_count(&self) -> usize {
        match self {
            AnyExperiment::War(e) => e.variants.len(),
            AnyExperiment::Casino(e) => e.variants.len(),
        }
    }
}

impl<R: RuleSet> Experiment<R> {
    /// Reads and checks an experiment file of this game.
    pub fn load_game(path: &Path) -> Result<Experiment<R>, ExperimentError> {
        Experiment::parse_game(path, &read(path)?)
    }

    /// Checks an experiment of this game given as text; `path` names it in errors.
    pub fn parse_game(path: &Path, text: &str) -> Result<Experiment<R>, ExperimentError> {
        Experiment::parse_game_with(path, text, &NO_OVERRIDES)
    }

    /// Checks an experiment of this game given as text, with the command line's changes.
    pub fn parse_game_with(
        path: &Path,
        text: &str,
        overrides: &Overrides,
    ) -> Result<Experiment<R>, ExperimentError> {
        Parser {
            path,
            text,
            overrides,
        }
        .experiment()
    }

    /// A hash of the file's text and the command line's changes to it (FNV-1a, 64 bits, hex;
    /// the text's alone when there are none), recorded with the data so that outputs of
    /// different files, or of one file changed differently, are never mixed.
    pub fn text_hash(&self) -> String {
        let keyed = format!("{}{}", self.text, self.overrides.key_text());
        format!("{:016x}", fnv1a(keyed.as_bytes()))
    }

    /// The variant named `name`, if any.
    pub fn variant(&self, name: &str) -> Option<&Variant<R>> {
        self.variants.iter().find(|v| v.name == name)
    }
}

/// FNV-1a over bytes: small, stable across platforms and versions.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
