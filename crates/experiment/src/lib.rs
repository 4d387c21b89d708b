//! Experiment files: what to run, read from TOML and checked before anything runs.
//!
//! An experiment is a name, a description, games per variant, a seed, base rules, and variants:
//! the cartesian product of a `[sweep]` (every option given as a list is an axis), named
//! `[[variant]]` tables, or both. Every problem is an [`ExperimentError`] that names the file,
//! the line and column, the key, and what is allowed. The format is documented in
//! `experiments/README.md`.

use std::fmt;
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};
use warlab_casino::{CasinoOptions, CasinoRules};
use warlab_engine::{RuleOptions, Rules};

/// A game's validated rule set, as experiment files name and build it: War's [`Rules`] or
/// Casino War's [`CasinoRules`]. The file's top-level `game` picks one.
pub trait RuleSet: Clone + fmt::Debug + Send + Sync + 'static {
    type Options: Default + Clone;
    /// A fixed deal a variant may play instead of shuffled ones.
    type Deal: Clone + fmt::Debug + Send + Sync + 'static;
    /// The value of `game = "…"` that selects this game.
    const GAME: &'static str;
    /// Every option: its name and what it allows.
    const OPTIONS: &'static [(&'static str, &'static str)];
    fn set(options: &mut Self::Options, key: &str, value: &str) -> Result<(), String>;
    fn build(options: Self::Options) -> Result<Self, String>;
    /// Every option as `(name, value)`, as `set` reads it.
    fn pairs(&self) -> Vec<(&'static str, String)>;
    /// Every option of unchecked options as `(name, value)`: values in their one written form
    /// (`01` is `1`), so that two spellings of one value can be told apart from two values.
    fn option_pairs(options: &Self::Options) -> Vec<(&'static str, String)>;
    /// Reads a fixed deal for these rules.
    fn deal(&self, text: &str) -> Result<Self::Deal, String>;
    /// True when nothing random happens after the deal.
    fn deterministic(&self) -> bool;
}

impl RuleSet for Rules {
    type Options = RuleOptions;
    type Deal = warlab_engine::Deal;
    const GAME: &'static str = "war";
    const OPTIONS: &'static [(&'static str, &'static str)] = warlab_engine::OPTIONS;
    fn set(options: &mut RuleOptions, key: &str, value: &str) -> Result<(), String> {
        options.set(key, value).map_err(|e| e.to_string())
    }
    fn build(options: RuleOptions) -> Result<Rules, String> {
        Rules::new(options).map_err(|e| e.to_string())
    }
    fn pairs(&self) -> Vec<(&'static str, String)> {
        self.options().to_pairs()
    }
    fn option_pairs(options: &RuleOptions) -> Vec<(&'static str, String)> {
        options.to_pairs()
    }
    fn deal(&self, text: &str) -> Result<warlab_engine::Deal, String> {
        warlab_engine::Deal::parse(self, text).map_err(|e| e.to_string())
    }
    fn deterministic(&self) -> bool {
        self.is_deterministic()
    }
}

/// Casino War deals come from shuffled shoes only.
#[derive(Clone, Debug)]
pub enum NoDeal {}

impl RuleSet for CasinoRules {
    type Options = CasinoOptions;
    type Deal = NoDeal;
    const GAME: &'static str = "casino-war";
    const OPTIONS: &'static [(&'static str, &'static str)] = warlab_casino::OPTIONS;
    fn set(options: &mut CasinoOptions, key: &str, value: &str) -> Result<(), String> {
        options.set(key, value).map_err(|e| e.to_string())
    }
    fn build(options: CasinoOptions) -> Result<CasinoRules, String> {
        CasinoRules::new(options).map_err(|e| e.to_string())
    }
    fn pairs(&self) -> Vec<(&'static str, String)> {
        self.options().to_pairs()
    }
    fn option_pairs(options: &CasinoOptions) -> Vec<(&'static str, String)> {
        options.to_pairs()
    }
    fn deal(&self, _text: &str) -> Result<NoDeal, String> {
        Err(
            "a casino-war variant cannot have a fixed deal: sessions come from shuffled shoes"
                .into(),
        )
    }
    fn deterministic(&self) -> bool {
        false
    }
}

/// The games an experiment file can declare with `game = "…"`.
pub const GAMES: &[&str] = &["war", "casino-war"];

/// At most this many variants in one experiment (the sweep's product and the named ones):
/// every variant keeps a part file while it runs and a row in every table.
pub const MAX_VARIANTS: usize = 100_000;

/// At most this many games per variant. A variant's aggregate keeps one record per 4096
/// games (about 100 MB at this bound), and game ranges stay far from `u64` overflow.
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

/// Line and column (both from 1) of the byte `offset` in `text`, as an editor shows them: the
/// column counts characters, not bytes. Every `file:line:column` of an error, in experiment
/// files and rule files alike, comes from here.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// Checks an option value written as a table of `KEY=N` pairs (`war_down = "J=1,Q=2"`): a
/// key given twice would silently keep one of its values.
pub fn check_table_value(value: &str) -> Result<(), String> {
    if !value.contains('=') {
        return Ok(());
    }
    let mut seen = std::collections::HashSet::new();
    for pair in value.split(',') {
        if let Some((k, _)) = pair.split_once('=') {
            let k = k.trim().to_ascii_uppercase();
            if !seen.insert(k.clone()) {
                return Err(format!(
                    "`{k}` is given twice in `{value}`: each key at most once"
                ));
            }
        }
    }
    Ok(())
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
];

/// What a top-level key takes, as [`TOP_KEYS`] says.
fn top_key(key: &str) -> &'static str {
    TOP_KEYS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or("", |(_, what)| what)
}

/// What a `[[published]]` figure is about, and how warlab computes its own value of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Statistic {
    /// A statistic of a variant's game length, in battles (a war is one) or in plays (pairs
    /// of cards laid, face-down pairs included: cards turned / 2).
    Length {
        unit: LengthUnit,
        measure: Measure,
    },
    /// The exact probability that seat 0 wins every battle of the first half-deck with no tie
    /// (a deck of `ranks` × `suits`, 2 players).
    SweepProbability,
    /// The exponent of a power law fitted to mean battles against cards in play.
    Exponent,
    /// The share of a variant's games that loop forever (deterministic rules).
    LoopShare,
    /// The period and pre-period of a fixed deal's loop.
    CyclePeriod,
    CycleStart,
    /// Casino War's exact house edge (percent) of the main bet, and of the tie bet.
    CasinoHouseEdge,
    CasinoTieBetEdge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthUnit {
    Battles,
    Plays,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    Mean,
    Sd,
    /// A quantile, `0 < q < 1` (the median is 0.5).
    Quantile(f64),
}

/// The statistics a `[[published]]` figure may name.
pub const STATISTICS: &[&str] = &[
    "battles_mean",
    "battles_sd",
    "battles_median",
    "battles_p90",
    "battles_p95",
    "battles_p99",
    "plays_mean",
    "plays_sd",
    "plays_median",
    "plays_p90",
    "plays_p95",
    "plays_p99",
    "sweep_probability",
    "exponent",
    "loop_share",
    "cycle_period",
    "cycle_start",
    "casino_house_edge",
    "casino_tie_bet_edge",
];

impl Statistic {
    pub fn parse(name: &str) -> Option<Statistic> {
        Some(match name {
            "sweep_probability" => Statistic::SweepProbability,
            "exponent" => Statistic::Exponent,
            "loop_share" => Statistic::LoopShare,
            "cycle_period" => Statistic::CyclePeriod,
            "cycle_start" => Statistic::CycleStart,
            "casino_house_edge" => Statistic::CasinoHouseEdge,
            "casino_tie_bet_edge" => Statistic::CasinoTieBetEdge,
            _ => {
                let (unit, measure) = name.split_once('_')?;
                let unit = match unit {
                    "battles" => LengthUnit::Battles,
                    "plays" => LengthUnit::Plays,
                    _ => return None,
                };
                let measure = match measure {
                    "mean" => Measure::Mean,
                    "sd" => Measure::Sd,
                    "median" => Measure::Quantile(0.5),
                    "p90" => Measure::Quantile(0.9),
                    "p95" => Measure::Quantile(0.95),
                    "p99" => Measure::Quantile(0.99),
                    _ => return None,
                };
                Statistic::Length { unit, measure }
            }
        })
    }

    /// Statistics about one variant's games.
    pub fn needs_variant(self) -> bool {
        matches!(
            self,
            Statistic::Length { .. }
                | Statistic::LoopShare
                | Statistic::CyclePeriod
                | Statistic::CycleStart
        )
    }
}

/// A figure from the literature, to be set beside warlab's own value of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    /// The source, as cited (author, title, where).
    pub source: String,
    /// What the source reports, in its words.
    pub figure: String,
    pub statistic: Statistic,
    /// The statistic's name as written in the file.
    pub statistic_name: String,
    /// The variant it is about (length, sweep and cycle statistics).
    pub variant: Option<String>,
    /// The variants a power law is fitted over (`exponent`).
    pub variants: Vec<String>,
    /// The published value, or the range the source gives (up to infinity for a lower bound).
    pub value: Option<f64>,
    pub range: Option<(f64, f64)>,
    /// Decimals of the published value as written: it is taken as rounded to them.
    pub decimals: u32,
    /// The published value is exact (a theoretical law), not rounded.
    pub exact: bool,
    /// The source's sample size, when it states one: its own sampling error then counts.
    pub games: Option<u64>,
    /// Games longer than this (in the statistic's unit) were excluded by the source.
    pub cap: Option<u64>,
    /// Casino War table options (`decks`, `strategy`, `bonus`) for casino statistics.
    pub casino: Vec<(String, String)>,
    /// The deck of a `sweep_probability`: ranks × suits (default 13 × 4).
    pub deck: (u64, u64),
    pub note: Option<String>,
}

/// One thing wrong with an experiment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentError {
    pub file: PathBuf,
    /// 1-based; 0 when the problem has no place in the file (e.g. it cannot be read).
    pub line: usize,
    pub column: usize,
    /// The key involved (`games`, `sweep.pickup`, `variant[2].war_down`), if any.
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ExperimentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if let Some(k) = &self.key {
            write!(f, ": `{k}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ExperimentError {}

/// One rule set to play: from the sweep's product or from a `[[variant]]`.
#[derive(Clone, Debug)]
pub struct Variant<R: RuleSet = Rules> {
    /// Stable and readable: the sweep values (`pickup=seat,war_down=1`) or the given name.
    pub name: String,
    /// Seeds the variant's games: a hash of the name, so adding or reordering variants
    /// never changes another variant's data.
    pub seed_id: u64,
    pub rules: R,
    /// The sweep axes' values (or the named variant's own options) that make this variant.
    pub settings: Vec<(String, String)>,
    /// Games this variant plays, when fewer than the experiment's (`games` in a
    /// `[[variant]]`).
    pub games: Option<u64>,
    /// A fixed deal the variant plays in every game instead of a shuffled one.
    pub deal: Option<R::Deal>,
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
    pub file: PathBuf,
    /// The file's text, kept for the manifest.
    pub text: String,
    pub name: String,
    pub description: String,
    pub games: u64,
    pub seed: u64,
    pub rows: bool,
    pub baseline: Option<String>,
    pub variants: Vec<Variant<R>>,
    /// Figures from the literature the report compares with (`[[published]]`).
    pub published: Vec<Published>,
}

fn read(path: &Path) -> Result<String, ExperimentError> {
    read_text(path).map_err(|message| ExperimentError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        key: None,
        message,
    })
}

impl Experiment {
    /// Reads and checks a War experiment file.
    pub fn load(path: &Path) -> Result<Experiment, ExperimentError> {
        Experiment::parse(path, &read(path)?)
    }

    /// Checks a War experiment given as text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<Experiment, ExperimentError> {
        Parser { path, text }.experiment()
    }
}

/// An experiment of either game, as its file's `game` says.
#[derive(Clone, Debug)]
pub enum AnyExperiment {
    War(Experiment<Rules>),
    Casino(Experiment<CasinoRules>),
}

impl AnyExperiment {
    pub fn load(path: &Path) -> Result<AnyExperiment, ExperimentError> {
        AnyExperiment::parse(path, &read(path)?)
    }

    pub fn parse(path: &Path, text: &str) -> Result<AnyExperiment, ExperimentError> {
        let parser = Parser { path, text };
        Ok(match parser.game()?.as_str() {
            "casino-war" => AnyExperiment::Casino(parser.experiment()?),
            _ => AnyExperiment::War(parser.experiment()?),
        })
    }

    pub fn name(&self) -> &str {
        match self {
            AnyExperiment::War(e) => &e.name,
            AnyExperiment::Casino(e) => &e.name,
        }
    }

    pub fn games(&self) -> u64 {
        match self {
            AnyExperiment::War(e) => e.games,
            AnyExperiment::Casino(e) => e.games,
        }
    }

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
        Parser { path, text }.experiment()
    }

    /// A hash of the file's text (FNV-1a, 64 bits, hex), recorded with the data so that
    /// outputs from different files are never mixed.
    pub fn text_hash(&self) -> String {
        format!("{:016x}", fnv1a(self.text.as_bytes()))
    }

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

/// One `[sweep]` list: the option, where its key is, and each value's text and place.
struct Axis {
    option: String,
    offset: usize,
    values: Vec<(String, usize)>,
}

struct Parser<'a> {
    path: &'a Path,
    text: &'a str,
}

type Value<'i> = Spanned<DeValue<'i>>;

impl Parser<'_> {
    fn error(
        &self,
        offset: usize,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> ExperimentError {
        let (line, column) = line_col(self.text, offset);
        ExperimentError {
            file: self.path.to_path_buf(),
            line,
            column,
            key: key.map(str::to_string),
            message: message.into(),
        }
    }

    fn document(&self) -> Result<Spanned<DeTable<'_>>, ExperimentError> {
        DeTable::parse(self.text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            self.error(
                offset,
                None,
                format!("not valid TOML: {}", e.message().trim()),
            )
        })
    }

    /// The file's `game` (default `war`), checked.
    fn game(&self) -> Result<String, ExperimentError> {
        let doc = self.document()?;
        let Some(v) = doc.get_ref().get("game") else {
            return Ok("war".into());
        };
        let g = self.string(v, "game")?;
        if !GAMES.contains(&g.as_str()) {
            return Err(self.error(
                v.span().start,
                Some("game"),
                format!("unknown game `{g}`; allowed: {}", GAMES.join(", ")),
            ));
        }
        Ok(g)
    }

    fn experiment<R: RuleSet>(&self) -> Result<Experiment<R>, ExperimentError> {
        let game = self.game()?;
        let doc = self.document()?;
        let doc = doc.get_ref();
        if game != R::GAME {
            let offset = doc.get("game").map_or(0, |v| v.span().start);
            return Err(self.error(
                offset,
                Some("game"),
                format!("this is a {game} experiment, expected {}", R::GAME),
            ));
        }

        let mut name = None;
        let mut description = String::new();
        let mut games = None;
        let mut seed = 1;
        let mut rows = false;
        let mut baseline = None;
        let mut base = R::Options::default();
        let mut sweep: Vec<Axis> = Vec::new();
        let mut named: Vec<&Value<'_>> = Vec::new();
        let mut published: Vec<&Value<'_>> = Vec::new();
        let mut variant_offset = 0;

        for (k, v) in doc.iter() {
            let key = k.get_ref().as_ref();
            let offset = k.span().start;
            match key {
                "name" => {
                    let s = self.string(v, key)?;
                    check_name(&s).map_err(|e| self.error(v.span().start, Some(key), e))?;
                    name = Some(s);
                }
                "description" => description = self.string(v, key)?,
                "game" => {}
                "games" => games = Some(self.integer(v, key, 1, MAX_GAMES)?),
                "seed" => seed = self.integer(v, key, 0, u64::MAX)?,
                "rows" => rows = self.boolean(v, key)?,
                "baseline" => baseline = Some((self.string(v, key)?, v.span().start)),
                "rules" => {
                    for (rk, rv) in self.table(v, key)?.iter() {
                        let opt = rk.get_ref().as_ref();
                        let full = format!("rules.{opt}");
                        let text = self.option_value::<R>(rv, opt, &full)?;
                        self.set::<R>(&mut base, opt, &text, rk.span().start, &full)?;
                    }
                }
                "sweep" => {
                    for (sk, sv) in self.table(v, key)?.iter() {
                        let opt = sk.get_ref().as_ref();
                        let full = format!("sweep.{opt}");
                        let DeValue::Array(items) = sv.get_ref() else {
                            return Err(self.error(
                                sv.span().start,
                                Some(&full),
                                "a sweep axis is a list of values, e.g. `pickup = [\"seat\", \"shuffled\"]`; for one value, put it under [rules]",
                            ));
                        };
                        if items.is_empty() {
                            return Err(self.error(
                                sv.span().start,
                                Some(&full),
                                "an empty list: give at least one value",
                            ));
                        }
                        let mut values = Vec::new();
                        // Each value in its one written form, to catch `[1, "01"]`.
                        let mut normal: std::collections::HashMap<String, String> =
                            std::collections::HashMap::with_capacity(items.len());
                        for item in items.iter() {
                            let text = self.option_value::<R>(item, opt, &full)?;
                            // Each value on its own must be valid for the option.
                            let mut probe = R::Options::default();
                            self.set::<R>(&mut probe, opt, &text, item.span().start, &full)?;
                            let form = R::option_pairs(&probe)
                                .into_iter()
                                .find(|(k, _)| *k == opt)
                                .map_or_else(|| text.clone(), |(_, v)| v);
                            if let Some(first) = normal.get(&form) {
                                let again = if *first == text {
                                    format!("`{text}` is listed twice")
                                } else {
                                    format!(
                                        "`{text}` is `{first}` again (both read as `{form}`): each value at most once"
                                    )
                                };
                                return Err(self.error(item.span().start, Some(&full), again));
                            }
                            normal.insert(form, text.clone());
                            values.push((text, item.span().start));
                        }
                        sweep.push(Axis {
                            option: opt.to_string(),
                            offset: sk.span().start,
                            values,
                        });
                    }
                }
                "variant" => {
                    variant_offset = offset;
                    let DeValue::Array(items) = v.get_ref() else {
                        return Err(self.error(
                            v.span().start,
                            Some(key),
                            "expected `[[variant]]` tables, each with a `name` and rule options",
                        ));
                    };
                    named.extend(items.iter());
                }
                "published" => {
                    if R::GAME != "war" {
                        return Err(self.error(
                            offset,
                            Some(key),
                            format!(
                                "a {} report has no published-figures section, so these would be dropped; put Casino War figures (`casino_house_edge`, `casino_tie_bet_edge`) in a War experiment, as experiments/literature.toml does",
                                R::GAME
                            ),
                        ));
                    }
                    let DeValue::Array(items) = v.get_ref() else {
                        return Err(self.error(
                            v.span().start,
                            Some(key),
                            "expected `[[published]]` tables, each with `source`, `figure`, `statistic` and `value`",
                        ));
                    };
                    published.extend(items.iter());
                }
                _ => {
                    let keys: Vec<&str> = TOP_KEYS.iter().map(|(k, _)| *k).collect();
                    let hint = if R::OPTIONS.iter().any(|(o, _)| *o == key) {
                        format!("; `{key}` is a rule option: put it under [rules] or [sweep]")
                    } else {
                        String::new()
                    };
                    return Err(self.error(
                        offset,
                        Some(key),
                        format!("unknown key; allowed: {}{hint}", keys.join(", ")),
                    ));
                }
            }
        }

        let name = name.ok_or_else(|| {
            self.error(
                0,
                Some("name"),
                format!("missing; required: {}", top_key("name")),
            )
        })?;
        let games = games.ok_or_else(|| {
            self.error(
                0,
                Some("games"),
                format!("missing; required: {}", top_key("games")),
            )
        })?;

        let mut variants = Vec::new();
        // The sweep's product, the first axis varying slowest; checked before anything is
        // built (axes can multiply past any memory, or past 2^64).
        let axes_len = if sweep.is_empty() {
            Some(0)
        } else {
            sweep
                .iter()
                .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        }
        .filter(|n| n.saturating_add(named.len()) <= MAX_VARIANTS);
        let Some(axes_len) = axes_len else {
            let lens: Vec<String> = sweep.iter().map(|a| a.values.len().to_string()).collect();
            let product = sweep
                .iter()
                .try_fold(1u128, |n, a| n.checked_mul(a.values.len() as u128))
                .map_or("more than 2^128".to_string(), |n| n.to_string());
            return Err(self.error(
                sweep.first().map_or(variant_offset, |a| a.offset),
                Some("sweep"),
                format!(
                    "the sweep's axes ({}) make {product} variants{}; at most {MAX_VARIANTS} variants per experiment",
                    lens.join(" × "),
                    if named.is_empty() {
                        String::new()
                    } else {
                        format!(", plus {} named", named.len())
                    }
                ),
            ));
        };
        variants.reserve(axes_len + named.len());
        for i in 0..axes_len {
            let mut o = base.clone();
            let mut settings = Vec::new();
            let mut rest = i;
            let mut picks = vec![0; sweep.len()];
            for (a, axis) in sweep.iter().enumerate().rev() {
                picks[a] = rest % axis.values.len();
                rest /= axis.values.len();
            }
            for (a, axis) in sweep.iter().enumerate() {
                let (text, offset) = &axis.values[picks[a]];
                let opt = &axis.option;
                self.set::<R>(&mut o, opt, text, *offset, &format!("sweep.{opt}"))?;
                settings.push((opt.clone(), text.clone()));
            }
            // Axes with a single value are the same in every variant: left out of names.
            let named_axes: Vec<&(String, String)> = settings
                .iter()
                .zip(&sweep)
                .filter(|(_, axis)| axis.values.len() > 1)
                .map(|(s, _)| s)
                .collect();
            let shown = if named_axes.is_empty() {
                settings.iter().collect()
            } else {
                named_axes
            };
            let vname = shown
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            let rules = R::build(o).map_err(|e| {
                self.error(
                    sweep[0].offset,
                    Some("sweep"),
                    format!("variant `{vname}`: {e}"),
                )
            })?;
            variants.push(make_variant(vname, rules, settings));
        }
        for (i, v) in named.iter().enumerate() {
            let label = format!("variant[{i}]");
            let table = self.table(v, &label)?;
            let mut o = base.clone();
            let mut vname = None;
            let mut settings = Vec::new();
            let mut own_games = None;
            let mut deal_text = None;
            for (k, val) in table.iter() {
                let key = k.get_ref().as_ref();
                let full = format!("{label}.{key}");
                if key == "name" {
                    vname = Some(self.string(val, &full)?);
                    continue;
                }
                if key == "games" {
                    own_games = Some(self.integer(val, &full, 1, MAX_GAMES)?);
                    continue;
                }
                if key == "deal" {
                    deal_text = Some((self.string(val, &full)?, val.span().start));
                    continue;
                }
                let text = self.option_value::<R>(val, key, &full)?;
                self.set::<R>(&mut o, key, &text, k.span().start, &full)?;
                settings.push((key.to_string(), text));
            }
            let vname = vname.ok_or_else(|| {
                self.error(v.span().start, Some(&label), "a variant needs a `name`")
            })?;
            if vname.is_empty() || vname.contains(['/', '\\', '\n']) {
                return Err(self.error(
                    v.span().start,
                    Some(&format!("{label}.name")),
                    "a variant name must be non-empty, on one line, without `/` or `\\`",
                ));
            }
            let rules = R::build(o).map_err(|e| {
                self.error(
                    v.span().start,
                    Some(&label),
                    format!("variant `{vname}`: {e}"),
                )
            })?;
            let deal = match deal_text {
                Some((text, offset)) => {
                    let deal = rules
                        .deal(&text)
                        .map_err(|e| self.error(offset, Some(&format!("{label}.deal")), e))?;
                    if rules.deterministic() && own_games != Some(1) {
                        return Err(self.error(
                            offset,
                            Some(&format!("{label}.deal")),
                            "a fixed deal under deterministic rules plays the same game every time: add `games = 1` to this variant",
                        ));
                    }
                    Some(deal)
                }
                None => None,
            };
            let mut variant = make_variant(vname, rules, settings);
            variant.games = own_games;
            variant.deal = deal;
            variants.push(variant);
        }
        if sweep.is_empty() && named.is_empty() {
            let rules = R::build(base).map_err(|e| self.error(0, Some("rules"), e))?;
            variants.push(make_variant("base".to_string(), rules, Vec::new()));
        }
        // Names, and the seed ids hashed from them, are unique (one pass: linear in the
        // number of variants).
        let mut ids: std::collections::HashMap<u64, &str> =
            std::collections::HashMap::with_capacity(variants.len());
        for v in &variants {
            if let Some(other) = ids.insert(v.seed_id, &v.name) {
                let message = if other == v.name {
                    format!("two variants are named `{}`", v.name)
                } else {
                    format!(
                        "variants `{other}` and `{}` have the same seed id (an FNV-1a collision): rename one",
                        v.name
                    )
                };
                return Err(self.error(variant_offset, Some("variant"), message));
            }
        }
        let baseline = match baseline {
            Some((b, offset)) => {
                if !variants.iter().any(|v| v.name == b) {
                    let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
                    return Err(self.error(
                        offset,
                        Some("baseline"),
                        format!(
                            "no variant is named `{b}`; the variants: {}",
                            names.join(" | ")
                        ),
                    ));
                }
                Some(b)
            }
            None => None,
        };
        let published = published
            .iter()
            .enumerate()
            .map(|(i, p)| self.published::<R>(i, p, &variants))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Experiment {
            published,
            file: self.path.to_path_buf(),
            text: self.text.to_string(),
            name,
            description,
            games,
            seed,
            rows,
            baseline,
            variants,
        })
    }

    /// One `[[published]]` table, checked against the variants.
    fn published<R: RuleSet>(
        &self,
        i: usize,
        v: &Value<'_>,
        variants: &[Variant<R>],
    ) -> Result<Published, ExperimentError> {
        let label = format!("published[{i}]");
        let table = self.table(v, &label)?;
        let at = v.span().start;
        let mut p = Published {
            source: String::new(),
            figure: String::new(),
            statistic: Statistic::Exponent,
            statistic_name: String::new(),
            variant: None,
            variants: Vec::new(),
            value: None,
            range: None,
            decimals: 0,
            exact: false,
            games: None,
            cap: None,
            casino: Vec::new(),
            deck: (13, 4),
            note: None,
        };
        let mut low = None;
        let mut high = None;
        let number = |val: &Value<'_>, full: &str| -> Result<(f64, u32), ExperimentError> {
            let text = match val.get_ref() {
                DeValue::Integer(n) => n.as_str().replace('_', ""),
                DeValue::Float(f) => f.as_str().replace('_', ""),
                other => {
                    return Err(self.error(
                        val.span().start,
                        Some(full),
                        format!("expected a number, found {}", kind(other)),
                    ));
                }
            };
            let x: f64 = text
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| {
                    self.error(
                        val.span().start,
                        Some(full),
                        format!("`{text}` is not a finite number"),
                    )
                })?;
            // Decimals as written (1.5e-9 has 10), so the value's rounding is known.
            let (mantissa, exp) = match text.to_ascii_lowercase().split_once('e') {
                Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
                None => (text.clone(), 0),
            };
            let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32);
            Ok((x, (frac - exp).max(0) as u32))
        };
        for (k, val) in table.iter() {
            let key = k.get_ref().as_ref();
            let full = format!("{label}.{key}");
            match key {
                "source" => p.source = self.string(val, &full)?,
                "figure" => p.figure = self.string(val, &full)?,
                "note" => p.note = Some(self.string(val, &full)?),
                "statistic" => {
                    let name = self.string(val, &full)?;
                    p.statistic = Statistic::parse(&name).ok_or_else(|| {
                        self.error(
                            val.span().start,
                            Some(&full),
                            format!(
                                "unknown statistic `{name}`; allowed: {}",
                                STATISTICS.join(", ")
                            ),
                        )
                    })?;
                    p.statistic_name = name;
                }
                "variant" => {
                    let name = self.string(val, &full)?;
                    if !variants.iter().any(|v| v.name == name) {
                        return Err(self.error(
                            val.span().start,
                            Some(&full),
                            format!("no variant is named `{name}`"),
                        ));
                    }
                    p.variant = Some(name);
                }
                "variants" => {
                    let DeValue::Array(items) = val.get_ref() else {
                        return Err(self.error(
                            val.span().start,
                            Some(&full),
                            "expected a list of variant names, or a name prefix ending in `*`",
                        ));
                    };
                    for item in items.iter() {
                        let name = self.string(item, &full)?;
                        let matched: Vec<String> = variants
                            .iter()
                            .filter(|v| match name.strip_suffix('*') {
                                Some(prefix) => v.name.starts_with(prefix),
                                None => v.name == name,
                            })
                            .map(|v| v.name.clone())
                            .collect();
                        if matched.is_empty() {
                            return Err(self.error(
                                item.span().start,
                                Some(&full),
                                format!("no variant is named `{name}`"),
                            ));
                        }
                        p.variants.extend(matched);
                    }
                }
                "value" => {
                    let (x, d) = number(val, &full)?;
                    p.value = Some(x);
                    p.decimals = d;
                }
                "low" => low = Some(number(val, &full)?),
                "high" => high = Some(number(val, &full)?),
                "games" => p.games = Some(self.integer(val, &full, 1, u64::MAX)?),
                "exact" => p.exact = self.boolean(val, &full)?,
                "cap" => p.cap = Some(self.integer(val, &full, 1, u64::MAX)?),
                "ranks" => p.deck.0 = self.integer(val, &full, 1, u64::MAX)?,
                "suits" => p.deck.1 = self.integer(val, &full, 1, u64::MAX)?,
                "decks" | "strategy" | "bonus" => {
                    let text = match val.get_ref() {
                        DeValue::String(s) => s.to_string(),
                        DeValue::Integer(n) => n.as_str().to_string(),
                        DeValue::Boolean(b) => b.to_string(),
                        other => {
                            return Err(self.error(
                                val.span().start,
                                Some(&full),
                                format!(
                                    "expected a Casino War option value, found {}",
                                    kind(other)
                                ),
                            ));
                        }
                    };
                    CasinoOptions::default()
                        .set(key, &text)
                        .map_err(|e| self.error(val.span().start, Some(&full), e.to_string()))?;
                    p.casino.push((key.to_string(), text));
                }
                _ => {
                    return Err(self.error(
                        k.span().start,
                        Some(&full),
                        "unknown key; allowed: source, figure, statistic, variant, variants, value, low, high, exact, games, cap, ranks, suits, decks, strategy, bonus, note",
                    ));
                }
            }
        }
        let missing =
            |what: &str| self.error(at, Some(&label), format!("a published figure needs {what}"));
        if p.source.is_empty() {
            return Err(missing("a `source`"));
        }
        if p.figure.is_empty() {
            return Err(missing("a `figure` (what the source reports, in words)"));
        }
        if p.statistic_name.is_empty() {
            return Err(missing(&format!(
                "a `statistic`, one of {}",
                STATISTICS.join(", ")
            )));
        }
        match (p.value, low, high) {
            (Some(_), None, None) => {}
            (None, Some((lo, d1)), Some((hi, d2))) if lo <= hi => {
                p.range = Some((lo, hi));
                p.decimals = d1.max(d2);
            }
            // A bound the source gives ("over 30,000 battles"): the range up from it.
            (None, Some((lo, d)), None) => {
                p.range = Some((lo, f64::INFINITY));
                p.decimals = d;
            }
            _ => {
                return Err(missing(
                    "either a `value`, or `low` and `high` (low ≤ high), or `low` alone (a lower bound)",
                ));
            }
        }
        if p.statistic.needs_variant() && p.variant.is_none() {
            return Err(missing(&format!("a `variant` for `{}`", p.statistic_name)));
        }
        if p.statistic == Statistic::Exponent && p.variants.len() < 3 {
            return Err(missing("`variants` (at least 3) to fit a power law over"));
        }
        Ok(p)
    }

    fn set<R: RuleSet>(
        &self,
        o: &mut R::Options,
        key: &str,
        value: &str,
        offset: usize,
        full: &str,
    ) -> Result<(), ExperimentError> {
        check_table_value(value)
            .and_then(|()| R::set(o, key, value))
            .map_err(|e| self.error(offset, Some(full), e))
    }

    fn string(&self, v: &Value<'_>, key: &str) -> Result<String, ExperimentError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.error(
                v.span().start,
                Some(key),
                format!("expected a string, found {}", kind(other)),
            )),
        }
    }

    fn boolean(&self, v: &Value<'_>, key: &str) -> Result<bool, ExperimentError> {
        match v.get_ref() {
            DeValue::Boolean(b) => Ok(*b),
            other => Err(self.error(
                v.span().start,
                Some(key),
                format!("expected true or false, found {}", kind(other)),
            )),
        }
    }

    /// An integer in `min..=max`.
    fn integer(
        &self,
        v: &Value<'_>,
        key: &str,
        min: u64,
        max: u64,
    ) -> Result<u64, ExperimentError> {
        let bad = |what: String| {
            let range = if max == u64::MAX {
                format!("an integer ≥ {min}")
            } else {
                format!("an integer from {min} to {max}")
            };
            self.error(
                v.span().start,
                Some(key),
                format!("expected {range}, found {what}"),
            )
        };
        match v.get_ref() {
            DeValue::Integer(i) => {
                let n = u64::from_str_radix(&i.as_str().replace('_', ""), i.radix())
                    .map_err(|_| bad(i.as_str().to_string()))?;
                if n < min || n > max {
                    return Err(bad(n.to_string()));
                }
                Ok(n)
            }
            other => Err(bad(kind(other).to_string())),
        }
    }

    fn table<'v, 'i>(
        &self,
        v: &'v Value<'i>,
        key: &str,
    ) -> Result<&'v DeTable<'i>, ExperimentError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            other => Err(self.error(
                v.span().start,
                Some(key),
                format!("expected a table, found {}", kind(other)),
            )),
        }
    }

    /// The text [`RuleOptions::set`] reads: strings as is, numbers and booleans printed, an
    /// inline table (`war_down = { K = 1, A = 2 }`) as `K=1,A=2`.
    fn option_value<R: RuleSet>(
        &self,
        v: &Value<'_>,
        opt: &str,
        full: &str,
    ) -> Result<String, ExperimentError> {
        let allowed = R::OPTIONS
            .iter()
            .find(|(k, _)| *k == opt)
            .map(|(_, a)| *a)
            .ok_or_else(|| {
                let names: Vec<&str> = R::OPTIONS.iter().map(|(k, _)| *k).collect();
                self.error(
                    v.span().start,
                    Some(full),
                    format!(
                        "unknown {} option `{opt}`; the options are: {}",
                        if R::GAME == "war" { "rule" } else { R::GAME },
                        names.join(", ")
                    ),
                )
            })?;
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            DeValue::Integer(i) => Ok(i.as_str().replace('_', "")),
            DeValue::Float(f) => Ok(f.as_str().replace('_', "")),
            DeValue::Boolean(b) => Ok(b.to_string()),
            DeValue::Table(t) => {
                let mut parts = Vec::new();
                for (k, n) in t.iter() {
                    let DeValue::Integer(n) = n.get_ref() else {
                        return Err(self.error(
                            n.span().start,
                            Some(full),
                            format!("a table value must be a number; allowed: {allowed}"),
                        ));
                    };
                    parts.push(format!("{}={}", k.get_ref(), n.as_str()));
                }
                Ok(parts.join(","))
            }
            other => Err(self.error(
                v.span().start,
                Some(full),
                format!(
                    "{} is not a value of this option; allowed: {allowed}",
                    kind(other)
                ),
            )),
        }
    }
}

fn kind(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a number",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "a list",
        DeValue::Table(_) => "a table",
    }
}

fn make_variant<R: RuleSet>(name: String, rules: R, settings: Vec<(String, String)>) -> Variant<R> {
    Variant {
        seed_id: fnv1a(name.as_bytes()),
        name,
        rules,
        settings,
        games: None,
        deal: None,
    }
}
