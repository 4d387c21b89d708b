//! The table's options by name, and the validated rule set.

use std::fmt;

use warlab_engine::OptionError;

/// Every option: its name and what it allows (for messages and docs).
pub const OPTIONS: &[(&str, &str)] = &[
    ("decks", "1, 2, …, 8 or `infinite` (default 6)"),
    (
        "penetration",
        "percent of the shoe dealt before it is reshuffled, 0..100 (default 75; 0 = a freshly shuffled shoe every hand)",
    ),
    (
        "strategy",
        "`war` (default: raise and go to war on a tie) or `surrender` (give up half the bet)",
    ),
    (
        "bonus",
        "false (default) or true: a tie on the war cards pays a bonus equal to the original bet",
    ),
    (
        "tie_bet",
        "chips on the tie side bet every hand, an integer ≥ 0 (default 0; a tie pays 10 to 1)",
    ),
    ("bet", "chips bet on every hand, an integer ≥ 1 (default 1)"),
    (
        "bankroll",
        "chips at the start of a session, an integer ≥ 1 (default 50)",
    ),
    (
        "target",
        "`double` (default: twice the bankroll), chips above the bankroll that end the session as a win, or `none`",
    ),
    (
        "hands",
        "hands per session at most, an integer ≥ 1, or `none` (default; a safety cap of 10,000,000 hands is then reported as capped)",
    ),
];

/// Hands after which a session with no `hands` limit stops, reported as capped.
pub const SAFETY_CAP: u64 = 10_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decks {
    Finite(u8),
    /// Every card drawn independently: the limit of a huge shoe.
    Infinite,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    War,
    Surrender,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    Double,
    Chips(u64),
    None,
}

/// The options by name, unchecked against each other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CasinoOptions {
    decks: Decks,
    penetration: u8,
    strategy: Strategy,
    bonus: bool,
    tie_bet: u64,
    bet: u64,
    bankroll: u64,
    target: Target,
    hands: Option<u64>,
}

impl Default for CasinoOptions {
    fn default() -> Self {
        CasinoOptions {
            decks: Decks::Finite(6),
            penetration: 75,
            strategy: Strategy::War,
            bonus: false,
            tie_bet: 0,
            bet: 1,
            bankroll: 50,
            target: Target::Double,
            hands: None,
        }
    }
}

fn allowed(key: &str) -> String {
    OPTIONS
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(String::new(), |(_, a)| (*a).to_string())
}

impl CasinoOptions {
    /// Sets one option from its text, as experiment files and the command line give it.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let v = value.trim();
        let bad = || OptionError {
            kind: "casino-war",
            key: key.to_string(),
            value: Some(value.to_string()),
            allowed: allowed(key),
        };
        let int = |min: u64| v.parse::<u64>().ok().filter(|n| *n >= min).ok_or_else(bad);
        match key {
            "decks" => {
                self.decks = match v {
                    "infinite" => Decks::Infinite,
                    _ => Decks::Finite(
                        v.parse::<u8>()
                            .ok()
                            .filter(|d| (1..=8).contains(d))
                            .ok_or_else(bad)?,
                    ),
                }
            }
            "penetration" => {
                self.penetration = v.parse::<u8>().ok().filter(|p| *p <= 100).ok_or_else(bad)?
            }
            "strategy" => {
                self.strategy = match v {
                    "war" => Strategy::War,
                    "surrender" => Strategy::Surrender,
                    _ => return Err(bad()),
                }
            }
            "bonus" => {
                self.bonus = match v {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad()),
                }
            }
            "tie_bet" => self.tie_bet = int(0)?,
            "bet" => self.bet = int(1)?,
            "bankroll" => self.bankroll = int(1)?,
            "target" => {
                self.target = match v {
                    "double" => Target::Double,
                    "none" => Target::None,
                    _ => Target::Chips(int(1)?),
                }
            }
            "hands" => {
                self.hands = match v {
                    "none" => None,
                    _ => Some(int(1)?),
                }
            }
            _ => {
                return Err(OptionError {
                    kind: "casino-war",
                    key: key.to_string(),
                    value: None,
                    allowed: OPTIONS
                        .iter()
                        .map(|(k, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        Ok(())
    }

    /// Every option as `(name, value)`, in [`OPTIONS`] order, as [`CasinoOptions::set`] reads it.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "decks",
                match self.decks {
                    Decks::Finite(d) => d.to_string(),
                    Decks::Infinite => "infinite".into(),
                },
            ),
            ("penetration", self.penetration.to_string()),
            (
                "strategy",
                match self.strategy {
                    Strategy::War => "war",
                    Strategy::Surrender => "surrender",
                }
                .into(),
            ),
            ("bonus", self.bonus.to_string()),
            ("tie_bet", self.tie_bet.to_string()),
            ("bet", self.bet.to_string()),
            ("bankroll", self.bankroll.to_string()),
            (
                "target",
                match self.target {
                    Target::Double => "double".into(),
                    Target::Chips(c) => c.to_string(),
                    Target::None => "none".into(),
                },
            ),
            ("hands", self.hands.map_or("none".into(), |h| h.to_string())),
        ]
    }
}

/// A checked table: every session it describes can be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CasinoRules {
    options: CasinoOptions,
    target: Option<u64>,
}

/// Options that do not fit together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError(pub String);

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RulesError {}

impl CasinoRules {
    pub fn new(options: CasinoOptions) -> Result<CasinoRules, RulesError> {
        let o = &options;
        let stake = o.bet
            + o.tie_bet
            + if o.strategy == Strategy::War {
                o.bet
            } else {
                0
            };
        if o.bankroll < stake {
            return Err(RulesError(format!(
                "bankroll = {} cannot cover one hand: bet = {} + tie_bet = {}{} needs {stake} chips",
                o.bankroll,
                o.bet,
                o.tie_bet,
                if o.strategy == Strategy::War {
                    " + the raise of strategy = war"
                } else {
                    ""
                }
            )));
        }
        let target = match o.target {
            Target::Double => Some(2 * o.bankroll),
            Target::Chips(c) => Some(c),
            Target::None => None,
        };
        if let Some(t) = target
            && t <= o.bankroll
        {
            return Err(RulesError(format!(
                "target = {t} must be above bankroll = {}",
                o.bankroll
            )));
        }
        Ok(CasinoRules { options, target })
    }

    pub fn options(&self) -> &CasinoOptions {
        &self.options
    }
    pub fn decks(&self) -> Decks {
        self.options.decks
    }
    /// Percent of the shoe dealt before a reshuffle.
    pub fn penetration(&self) -> u8 {
        self.options.penetration
    }
    pub fn strategy(&self) -> Strategy {
        self.options.strategy
    }
    pub fn bonus(&self) -> bool {
        self.options.bonus
    }
    pub fn tie_bet(&self) -> u64 {
        self.options.tie_bet
    }
    pub fn bet(&self) -> u64 {
        self.options.bet
    }
    pub fn bankroll(&self) -> u64 {
        self.options.bankroll
    }
    /// Chips that end a session as a win, if any.
    pub fn target(&self) -> Option<u64> {
        self.target
    }
    /// The session limit in hands, if the table sets one.
    pub fn hands(&self) -> Option<u64> {
        self.options.hands
    }
    /// Chips a player must hold to start a hand: the bet, the tie bet, and the raise when the
    /// strategy is to go to war, so that a tie can always be played as the strategy says.
    pub fn stake(&self) -> u64 {
        let o = &self.options;
        o.bet
            + o.tie_bet
            + if o.strategy == Strategy::War {
                o.bet
            } else {
                0
            }
    }
}

impl fmt::Display for CasinoRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<String> = self
            .options
            .to_pairs()
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&pairs.join(" "))
    }
}
