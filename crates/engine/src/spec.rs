//! How a game declares its options: one table per game, each option written once.
//!
//! An [`Opt`] holds everything about one option: its name, what it decides, the values it
//! takes (named ones with a one-line meaning each, and what else it reads), how its text is read
//! into the options and written back, and how a report says a value in words. The parser
//! ([`set`]), the printer ([`pairs`]), the allowed values of every error message, `warlab rules`
//! and the report's sentences all read the same table, so they cannot disagree. War's table is
//! [`crate::OPTIONS`]; Casino War's lives in its crate.
//!
//! Options whose values are a fixed set of names are enums declared with [`crate::choices!`], which
//! writes each name and meaning once and derives the enum's docs from the meanings.

use std::fmt;

/// A named value: how it is written, and what it means in one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named {
    /// The value as it is written (`"seat"`).
    pub name: &'static str,
    /// What it means, as a clause a sentence can hold ("won cards go under in seat order").
    pub means: &'static str,
}

/// An enum whose values all have names: an option value read and written by name.
pub trait Choice: Copy + Eq + 'static {
    /// Every value, in the order of [`Choice::NAMED`].
    const ALL: &'static [Self];
    /// Every value's name and meaning.
    const NAMED: &'static [Named];

    /// The value's name and meaning.
    fn named(self) -> Named {
        let i = Self::ALL
            .iter()
            .position(|v| *v == self)
            .expect("ALL lists every value");
        Self::NAMED[i]
    }

    /// The value as it is written.
    fn name(self) -> &'static str {
        self.named().name
    }

    /// The value written `text`, if any.
    fn parse(text: &str) -> Option<Self> {
        Self::NAMED
            .iter()
            .position(|n| n.name == text)
            .map(|i| Self::ALL[i])
    }
}

/// Declares an enum of named values: `Variant = "name": "what it means",` per value. The
/// meaning becomes the variant's doc comment, `warlab rules`' line and the report's words.
#[macro_export]
macro_rules! choices {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($variant:ident = $text:literal : $means:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(#[doc = $means] $variant,)+
        }

        impl $crate::spec::Choice for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            const NAMED: &'static [$crate::spec::Named] =
                &[$($crate::spec::Named { name: $text, means: $means }),+];
        }
    };
}

/// The type of an option's column in the data files, the same in every run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number; `none` (or unset) is null.
    Int,
    /// A number; `none` (or unset) is null.
    Float,
    /// `true` or `false`.
    Bool,
    /// Text: a named value, a table, a list.
    Text,
}

/// One option of a game whose options are an `O`.
pub struct Opt<O: 'static> {
    /// The option's name, as files and `--rule` write it.
    pub name: &'static str,
    /// Its column's type in the data files.
    pub column: Kind,
    /// What the option decides, in one line.
    pub means: &'static str,
    /// The values it takes by name, each with its meaning.
    pub named: &'static [Named],
    /// What else it takes (numbers, tables), or `""` when only the named values.
    pub other: &'static str,
    /// The report's words for a value that is not named: `{}` is the value, `{s}` an `s` unless
    /// the value is 1 (`"{} card{s} face down in a war"`).
    pub phrase: &'static str,
    /// Reads the value's text into the options; `None` if the text is not allowed.
    pub read: fn(&mut O, &str) -> Option<()>,
    /// The value as text `read` takes back; `None` for an option left unset.
    pub write: fn(&O) -> Option<String>,
}

impl<O> Opt<O> {
    /// The allowed values in one line: the names, then anything else.
    pub fn allowed(&self) -> String {
        let names: Vec<&str> = self.named.iter().map(|n| n.name).collect();
        match (names.is_empty(), self.other.is_empty()) {
            (true, _) => self.other.to_string(),
            (false, true) => names.join(", "),
            (false, false) => format!("{}, or {}", names.join(", "), self.other),
        }
    }

    /// A value in words, as a clause of a sentence: a named value's meaning, else the phrase.
    pub fn words(&self, value: &str) -> String {
        match self.named.iter().find(|n| n.name == value) {
            Some(n) => n.means.to_string(),
            None => self
                .phrase
                .replace("{s}", if value == "1" { "" } else { "s" })
                .replace("{}", value),
        }
    }
}

/// The option called `key`.
pub fn find<'t, O>(table: &'t [Opt<O>], key: &str) -> Option<&'t Opt<O>> {
    table.iter().find(|o| o.name == key)
}

/// Every option's name, comma-separated, for "the options are: …".
pub fn names<O>(table: &[Opt<O>]) -> String {
    table.iter().map(|o| o.name).collect::<Vec<_>>().join(", ")
}

/// Sets option `key` of `options` from its text; `kind` names whose options they are in the
/// error (`rule`, `casino-war`).
pub fn set<O>(
    table: &[Opt<O>],
    kind: &'static str,
    options: &mut O,
    key: &str,
    value: &str,
) -> Result<(), OptionError> {
    let Some(opt) = find(table, key) else {
        return Err(OptionError {
            kind,
            key: key.to_string(),
            value: None,
            allowed: names(table),
        });
    };
    (opt.read)(options, value.trim()).ok_or_else(|| OptionError {
        kind,
        key: key.to_string(),
        value: Some(value.to_string()),
        allowed: opt.allowed(),
    })
}

/// Every option that is set, as `(name, value)` text in table order; [`set`] reads each back.
pub fn pairs<O>(table: &[Opt<O>], options: &O) -> Vec<(&'static str, String)> {
    table
        .iter()
        .filter_map(|o| (o.write)(options).map(|v| (o.name, v)))
        .collect()
}

/// A `name = value` that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// Whose option: `rule` for War, `casino-war` for the casino game's table.
    pub kind: &'static str,
    /// The option's name as given.
    pub key: String,
    /// The value given, or `None` when the name itself is unknown.
    pub value: Option<String>,
    /// What would have been accepted: the allowed values, or the option names.
    pub allowed: String,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            None => write!(
                f,
                "unknown {} option `{}`; the options are: {}",
                self.kind, self.key, self.allowed
            ),
            Some(v) => write!(
                f,
                "{} option `{}` cannot be `{}`; allowed: {}",
                self.kind, self.key, v, self.allowed
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// `true` or `false`.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// `none`, or a number at least `min`.
pub fn parse_none_or<T: std::str::FromStr + PartialOrd>(v: &str, min: T) -> Option<Option<T>> {
    if v == "none" {
        return Some(None);
    }
    v.parse::<T>().ok().filter(|n| *n >= min).map(Some)
}

/// A number in `range`.
pub fn parse_in<T: std::str::FromStr + PartialOrd>(
    v: &str,
    range: std::ops::RangeInclusive<T>,
) -> Option<T> {
    v.parse::<T>().ok().filter(|n| range.contains(n))
}

/// `none` for `None`, else the number.
pub fn none_or<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "none".to_string(), |n| n.to_string())
}

/// The options and named values a document does not mention as `` `name` ``: what a
/// reference that should list the whole table is missing.
pub fn unmentioned<O>(table: &[Opt<O>], doc: &str) -> Vec<String> {
    let mentions = |name: &str| doc.contains(&format!("`{name}`"));
    let mut out = Vec::new();
    for opt in table {
        if !mentions(opt.name) {
            out.push(opt.name.to_string());
        }
        for n in opt.named {
            if !mentions(n.name) {
                out.push(format!("{}={}", opt.name, n.name));
            }
        }
    }
    out
}
