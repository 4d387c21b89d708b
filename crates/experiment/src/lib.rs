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
    /// The value of `game = "…"` that selects this game.
    const GAME: &'static str;
    /// Every option: its name and what it allows.
    const OPTIONS: &'static [(&'static str, &'static str)];
    fn set(options: &mut Self::Options, key: &str, value: &str) -> Result<(), String>;
    fn build(options: Self::Options) -> Result<Self, String>;
    /// Every option as `(name, value)`, as `set` reads it.
    fn pairs(&self) -> Vec<(&'static str, String)>;
}

impl RuleSet for Rules {
    type Options = RuleOptions;
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
}

impl RuleSet for CasinoRules {
    type Options = CasinoOptions;
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
}

/// The games an experiment file can declare with `game = "…"`.
pub const GAMES: &[&str] = &["war", "casino-war"];

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
    ("games", "an integer ≥ 1: games per variant"),
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
        "an array of tables `[[variant]]`, each with a `name` and rule options",
    ),
];

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
pub struct Variant<R = Rules> {
    /// Stable and readable: the sweep values (`pickup=seat,war_down=1`) or the given name.
    pub name: String,
    /// Seeds the variant's games: a hash of the name, so adding or reordering variants
    /// never changes another variant's data.
    pub seed_id: u64,
    pub rules: R,
    /// The sweep axes' values (or the named variant's own options) that make this variant.
    pub settings: Vec<(String, String)>,
}

/// A checked experiment, ready to run.
#[derive(Clone, Debug)]
pub struct Experiment<R = Rules> {
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
}

fn read(path: &Path) -> Result<String, ExperimentError> {
    std::fs::read_to_string(path).map_err(|e| ExperimentError {
        file: path.to_path_buf(),
        line: 0,
        column: 0,
        key: None,
        message: format!("cannot read the file: {e}"),
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
    fn at(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.chars().count()
            - before
                .rfind('\n')
                .map_or(0, |i| before[..=i].chars().count())
            + 1;
        (line, column)
    }

    fn error(
        &self,
        offset: usize,
        key: Option<&str>,
        message: impl Into<String>,
    ) -> ExperimentError {
        let (line, column) = self.at(offset);
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
        let mut variant_offset = 0;

        for (k, v) in doc.iter() {
            let key = k.get_ref().as_ref();
            let offset = k.span().start;
            match key {
                "name" => {
                    let s = self.string(v, key)?;
                    if s.is_empty()
                        || !s
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                        || s.starts_with('.')
                    {
                        return Err(self.error(
                            v.span().start,
                            Some(key),
                            format!(
                                "`{s}` cannot name an output folder; allowed: {}",
                                TOP_KEYS[0].1
                            ),
                        ));
                    }
                    name = Some(s);
                }
                "description" => description = self.string(v, key)?,
                "game" => {}
                "games" => games = Some(self.integer(v, key, 1)?),
                "seed" => seed = self.integer(v, key, 0)?,
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
                        for item in items.iter() {
                            let text = self.option_value::<R>(item, opt, &full)?;
                            // Each value on its own must be valid for the option.
                            let mut probe = R::Options::default();
                            self.set::<R>(&mut probe, opt, &text, item.span().start, &full)?;
                            if values.iter().any(|(t, _)| *t == text) {
                                return Err(self.error(
                                    item.span().start,
                                    Some(&full),
                                    format!("`{text}` is listed twice"),
                                ));
                            }
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
                format!("missing; required: {}", TOP_KEYS[0].1),
            )
        })?;
        let games = games.ok_or_else(|| {
            self.error(
                0,
                Some("games"),
                format!("missing; required: {}", TOP_KEYS[2].1),
            )
        })?;

        let mut variants = Vec::new();
        // The sweep's product, the first axis varying slowest.
        let axes_len: usize = sweep.iter().map(|a| a.values.len()).product();
        if !sweep.is_empty() {
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
        }
        for (i, v) in named.iter().enumerate() {
            let label = format!("variant[{i}]");
            let table = self.table(v, &label)?;
            let mut o = base.clone();
            let mut vname = None;
            let mut settings = Vec::new();
            for (k, val) in table.iter() {
                let key = k.get_ref().as_ref();
                let full = format!("{label}.{key}");
                if key == "name" {
                    vname = Some(self.string(val, &full)?);
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
            variants.push(make_variant(vname, rules, settings));
        }
        if sweep.is_empty() && named.is_empty() {
            let rules = R::build(base).map_err(|e| self.error(0, Some("rules"), e))?;
            variants.push(make_variant("base".to_string(), rules, Vec::new()));
        }
        for (i, v) in variants.iter().enumerate() {
            if variants[..i].iter().any(|w| w.name == v.name) {
                return Err(self.error(
                    variant_offset,
                    Some("variant"),
                    format!("two variants are named `{}`", v.name),
                ));
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
        Ok(Experiment {
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

    fn set<R: RuleSet>(
        &self,
        o: &mut R::Options,
        key: &str,
        value: &str,
        offset: usize,
        full: &str,
    ) -> Result<(), ExperimentError> {
        R::set(o, key, value).map_err(|e| self.error(offset, Some(full), e))
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

    fn integer(&self, v: &Value<'_>, key: &str, min: u64) -> Result<u64, ExperimentError> {
        let bad = |what: String| {
            self.error(
                v.span().start,
                Some(key),
                format!("expected an integer ≥ {min}, found {what}"),
            )
        };
        match v.get_ref() {
            DeValue::Integer(i) => {
                let n = u64::from_str_radix(&i.as_str().replace('_', ""), i.radix())
                    .map_err(|_| bad(i.as_str().to_string()))?;
                if n < min {
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

fn make_variant<R>(name: String, rules: R, settings: Vec<(String, String)>) -> Variant<R> {
    Variant {
        seed_id: fnv1a(name.as_bytes()),
        name,
        rules,
        settings,
    }
}
