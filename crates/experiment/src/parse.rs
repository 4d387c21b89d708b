//! Reading an experiment file: the TOML with its spans, the top-level keys, the base rules and
//! the named variants, every value checked where it is written.

use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};
use warlab_engine::spec;

use crate::sweep::Axis;
use crate::{
    DecidesSettings, Experiment, ExperimentError, FigureSettings, GAMES, MAX_GAMES, Overrides,
    RuleSet, TOP_KEYS, Variant, check_name, fnv1a, line_col, top_key,
};

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

pub(crate) struct Parser<'a> {
    pub(crate) path: &'a Path,
    pub(crate) text: &'a str,
    /// The command line's changes, applied as the file is read.
    pub(crate) overrides: &'a Overrides,
}

/// No change to the file: what every reader but `warlab run`'s uses.
pub(crate) static NO_OVERRIDES: Overrides = Overrides {
    games: None,
    rules: Vec::new(),
    sweeps: Vec::new(),
    rows: false,
};

pub(crate) type Value<'i> = Spanned<DeValue<'i>>;

impl Parser<'_> {
    pub(crate) fn error(
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

    /// An error of a command-line override (`--rule pickup`): it has no place in the file.
    pub(crate) fn flag_error(&self, flag: &str, message: impl Into<String>) -> ExperimentError {
        ExperimentError {
            file: self.path.to_path_buf(),
            line: 0,
            column: 0,
            key: Some(flag.to_string()),
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
    pub(crate) fn game(&self) -> Result<String, ExperimentError> {
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
    pub(crate) fn experiment<R: RuleSet>(&self) -> Result<Experiment<R>, ExperimentError> {
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
        let mut figures = FigureSettings::default();
        let mut exact = None;
        let mut decides = DecidesSettings::default();

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
                "sweep" => sweep = self.sweep_axes::<R>(v, key)?,
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
                "report" => figures = self.figure_settings(v, key)?,
                "decides" => {
                    self.war_only::<R>(
                        offset,
                        key,
                        "has no battles to follow; `decides` is for War games",
                    )?;
                    decides = self.decides_settings(v, key)?;
                }
                "exact" => {
                    self.war_only::<R>(
                        offset,
                        key,
                        "has its exact values already (the house edge of every table); `exact` solves War games",
                    )?;
                    exact = Some(self.boolean(v, key)?);
                }
                "published" => {
                    self.war_only::<R>(
                        offset,
                        key,
                        "has no published-figures section, so these would be dropped; put Casino War figures (`casino_house_edge`, `casino_tie_bet_edge`) in a War experiment, as experiments/literature.toml does",
                    )?;
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
                    let hint = if spec::find(R::OPTIONS, key).is_some() {
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
        // The command line's changes, after the whole file is read: its rules first, then
        // the overrides', as `--rule` lands on a rule file.
        let ov = self.overrides;
        for (k, v) in &ov.rules {
            check_table_value(v)
                .and_then(|()| R::set(&mut base, k, v))
                .map_err(|e| self.flag_error(&format!("--rule {k}"), e))?;
        }
        for (k, values) in &ov.sweeps {
            let axis = self.override_axis::<R>(k, values)?;
            match sweep.iter_mut().find(|a| a.option == *k) {
                Some(a) => *a = axis,
                None => sweep.push(axis),
            }
        }
        rows |= ov.rows;
        let games = ov.games.or(games).ok_or_else(|| {
            self.error(
                0,
                Some("games"),
                format!("missing; required: {}", top_key("games")),
            )
        })?;

        let mut variants = self.sweep_variants::<R>(&sweep, &base, named.len(), variant_offset)?;
        variants.reserve(named.len());
        for (i, v) in named.iter().enumerate() {
            variants.push(self.named_variant::<R>(i, v, &base)?);
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
        for v in &mut variants {
            v.decides = decides;
        }
        Ok(Experiment {
            exact,
            decides,
            figures,
            published,
            file: self.path.to_path_buf(),
            text: self.text.to_string(),
            overrides: ov.clone(),
            name,
            description,
            games,
            seed,
            rows,
            baseline,
            variants,
        })
    }

    /// The `i`-th `[[variant]]` table over the base options: its name, own games, fixed deal
    /// and options.
    fn named_variant<R: RuleSet>(
        &self,
        i: usize,
        v: &Value<'_>,
        base: &R::Options,
    ) -> Result<Variant<R>, ExperimentError> {
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
        let vname = vname
            .ok_or_else(|| self.error(v.span().start, Some(&label), "a variant needs a `name`"))?;
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
        Ok(variant)
    }

    /// A file of rule options alone (`--rules FILE`): `name = value` lines, or one `[rules]`
    /// table, read as an experiment's `[rules]` is.
    pub(crate) fn rules_file<R: RuleSet>(&self, o: &mut R::Options) -> Result<(), ExperimentError> {
        let doc = self.document()?;
        let root = doc.get_ref();
        let (entries, prefix) = match root.get("rules") {
            Some(v) if root.len() == 1 => (self.table(v, "rules")?, "rules."),
            _ => (root, ""),
        };
        for (k, v) in entries.iter() {
            let opt = k.get_ref().as_ref();
            let full = format!("{prefix}{opt}");
            let text = self.option_value::<R>(v, opt, &full)?;
            self.set::<R>(o, opt, &text, k.span().start, &full)?;
        }
        Ok(())
    }

    pub(crate) fn set<R: RuleSet>(
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

    pub(crate) fn string(&self, v: &Value<'_>, key: &str) -> Result<String, ExperimentError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.to_string()),
            other => Err(self.error(
                v.span().start,
                Some(key),
                format!("expected a string, found {}", kind(other)),
            )),
        }
    }

    /// Refuses `key` in a file of a game other than War: a `{game} report {why}`.
    fn war_only<R: RuleSet>(
        &self,
        offset: usize,
        key: &str,
        why: &str,
    ) -> Result<(), ExperimentError> {
        if R::GAME == "war" {
            return Ok(());
        }
        Err(self.error(offset, Some(key), format!("a {} report {why}", R::GAME)))
    }

    /// The `[report]` table: figure width, height, PNG density and log histograms.
    fn figure_settings(&self, v: &Value<'_>, key: &str) -> Result<FigureSettings, ExperimentError> {
        let mut f = FigureSettings::default();
        let (side, dpi) = (FigureSettings::SIDE, FigureSettings::DPI);
        for (k, value) in self.table(v, key)?.iter() {
            let name = k.get_ref().as_ref();
            let full = format!("{key}.{name}");
            // The ranges fit in u32, so the conversions below cannot fail.
            let int = |lo, hi| self.integer(value, &full, lo, hi).map(|n| n as u32);
            match name {
                "width" => f.width = Some(int(side.0, side.1)?),
                "height" => f.height = Some(int(side.0, side.1)?),
                "dpi" => f.dpi = Some(int(dpi.0, dpi.1)?),
                "log_hist" => f.log_hist = Some(self.boolean(value, &full)?),
                _ => {
                    return Err(self.error(
                        k.span().start,
                        Some(&full),
                        format!(
                            "unknown key; allowed: width and height ({}–{} figure units, 96 per inch), dpi ({}–{}, the PNG's pixels per inch), log_hist (true or false)",
                            side.0, side.1, dpi.0, dpi.1
                        ),
                    ));
                }
            }
        }
        Ok(f)
    }

    fn decides_settings(
        &self,
        v: &Value<'_>,
        key: &str,
    ) -> Result<DecidesSettings, ExperimentError> {
        let mut d = DecidesSettings::default();
        for (k, value) in self.table(v, key)?.iter() {
            let name = k.get_ref().as_ref();
            let full = format!("{key}.{name}");
            let ms = || self.milliseconds(value, &full);
            match name {
                "position" => {
                    d.position = match value.get_ref() {
                        DeValue::Integer(_) => {
                            crate::Follow::First(self.integer(value, &full, 1, MAX_GAMES)?)
                        }
                        DeValue::Boolean(true) => crate::Follow::All,
                        DeValue::Boolean(false) => crate::Follow::Off,
                        other => {
                            return Err(self.error(
                                value.span().start,
                                Some(&full),
                                format!(
                                    "expected true (follow every game), false, or how many games to follow (1 to {MAX_GAMES}), found {}",
                                    kind(other)
                                ),
                            ));
                        }
                    }
                }
                "battle_seconds" => d.time.battle_ms = ms()?,
                "war_card_seconds" => d.time.war_card_ms = ms()?,
                "shuffle_seconds" => d.time.shuffle_ms = ms()?,
                _ => {
                    return Err(self.error(
                        k.span().start,
                        Some(&full),
                        "unknown key; allowed: position (true, false, or how many games to follow), battle_seconds, war_card_seconds, shuffle_seconds (seconds, 0 to 600, to the millisecond)",
                    ));
                }
            }
        }
        Ok(d)
    }

    /// A duration in seconds (an integer or a decimal, 0 to 600, at most three decimals) as
    /// whole milliseconds.
    fn milliseconds(&self, v: &Value<'_>, key: &str) -> Result<u32, ExperimentError> {
        let max = crate::TimeModel::MAX_MS;
        let (seconds, _) = self.number(v, key, "a number of seconds")?;
        let ms = seconds * 1000.0;
        if (0.0..=f64::from(max)).contains(&ms) && (ms - ms.round()).abs() < 1e-6 {
            return Ok(ms.round() as u32);
        }
        Err(self.error(
            v.span().start,
            Some(key),
            format!(
                "expected seconds from 0 to {} with at most three decimals",
                max / 1000
            ),
        ))
    }

    /// A finite number (an integer or a decimal), with its decimals as written (1.5e-9 has 10),
    /// so that the value's rounding is known; `what` says what was expected.
    pub(crate) fn number(
        &self,
        v: &Value<'_>,
        key: &str,
        what: &str,
    ) -> Result<(f64, u32), ExperimentError> {
        let text = match v.get_ref() {
            DeValue::Integer(n) => n.as_str().replace('_', ""),
            DeValue::Float(f) => f.as_str().replace('_', ""),
            other => {
                return Err(self.error(
                    v.span().start,
                    Some(key),
                    format!("expected {what}, found {}", kind(other)),
                ));
            }
        };
        let x: f64 = text
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| {
                self.error(
                    v.span().start,
                    Some(key),
                    format!("`{text}` is not a finite number"),
                )
            })?;
        let (mantissa, exp) = match text.to_ascii_lowercase().split_once('e') {
            Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
            None => (text.clone(), 0),
        };
        let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len() as i32);
        Ok((x, (frac - exp).max(0) as u32))
    }

    pub(crate) fn boolean(&self, v: &Value<'_>, key: &str) -> Result<bool, ExperimentError> {
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
    pub(crate) fn integer(
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

    pub(crate) fn table<'v, 'i>(
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
    pub(crate) fn option_value<R: RuleSet>(
        &self,
        v: &Value<'_>,
        opt: &str,
        full: &str,
    ) -> Result<String, ExperimentError> {
        let allowed = spec::find(R::OPTIONS, opt)
            .map(|o| o.allowed())
            .ok_or_else(|| {
                self.error(
                    v.span().start,
                    Some(full),
                    spec::OptionError {
                        kind: if R::GAME == "war" { "rule" } else { R::GAME },
                        key: opt.to_string(),
                        value: None,
                        allowed: spec::names(R::OPTIONS),
                    }
                    .to_string(),
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

pub(crate) fn kind(v: &DeValue<'_>) -> &'static str {
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

pub(crate) fn make_variant<R: RuleSet>(
    name: String,
    rules: R,
    settings: Vec<(String, String)>,
) -> Variant<R> {
    Variant {
        seed_id: fnv1a(name.as_bytes()),
        name,
        rules,
        settings,
        games: None,
        deal: None,
        decides: DecidesSettings::default(),
    }
}
