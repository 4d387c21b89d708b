//! Figures from the literature (`[[published]]` tables): what each is about, and how it is read
//! and checked against the experiment's variants.

use toml::de::DeValue;
use warlab_casino::CasinoOptions;

use crate::parse::{Parser, Value, kind};
use crate::{ExperimentError, RuleSet, Variant};

/// What a `[[published]]` figure is about, and how warlab computes its own value of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Statistic {
    /// A statistic of a variant's game length, in battles (a war is one) or in plays (pairs
    /// of cards laid, face-down pairs included: cards turned / 2).
    Length {
        /// Battles or plays.
        unit: LengthUnit,
        /// Which statistic of the length.
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
    /// The pre-period (battles before the loop starts) of a fixed deal's loop.
    CycleStart,
    /// Casino War's exact house edge (percent) of the main bet, and of the tie bet.
    CasinoHouseEdge,
    /// Casino War's exact house edge (percent) of the tie bet.
    CasinoTieBetEdge,
}

/// What a length statistic counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LengthUnit {
    /// Battles (a war, however deep, is one).
    Battles,
    /// Plays: pairs of cards laid, face-down pairs included (cards turned / 2).
    Plays,
}

/// Which statistic of a length distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    /// The mean.
    Mean,
    /// The standard deviation.
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
    /// The statistic a `statistic = "…"` names, if any ([`STATISTICS`] lists them).
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
    /// What the figure is about, as warlab computes it.
    pub statistic: Statistic,
    /// The statistic's name as written in the file.
    pub statistic_name: String,
    /// The variant it is about (length, sweep and cycle statistics).
    pub variant: Option<String>,
    /// The variants a power law is fitted over (`exponent`).
    pub variants: Vec<String>,
    /// The published value, or the range the source gives (up to infinity for a lower bound).
    pub value: Option<f64>,
    /// The range the source gives instead of a value (`[low, high]`).
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
    /// How the source's rules and counting were read, and why a figure may differ.
    pub note: Option<String>,
}

impl Parser<'_> {
    /// One `[[published]]` table, checked against the variants.
    pub(crate) fn published<R: RuleSet>(
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
                    let (x, d) = self.number(val, &full, "a number")?;
                    p.value = Some(x);
                    p.decimals = d;
                }
                "low" => low = Some(self.number(val, &full, "a number")?),
                "high" => high = Some(self.number(val, &full, "a number")?),
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
}
