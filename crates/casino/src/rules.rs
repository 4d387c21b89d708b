//! The table's options by name, and the validated rule set.

use std::fmt;

use warlab_engine::spec::{self, Choice, Kind, Named, none_or, parse_bool, parse_in};
use warlab_engine::{Opt, OptionError, choices};

/// Hands after which a session with no `hands` limit stops, reported as capped.
pub const SAFETY_CAP: u64 = 10_000_000;

/// The shoe's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decks {
    /// A shoe of this many 52-card decks, 1..=8.
    Finite(u8),
    /// Every card drawn independently: the limit of a huge shoe.
    Infinite,
}

choices! {
    /// What the player does when the first two cards tie.
    pub enum Strategy {
        War = "war": "on a tie the player raises and goes to war",
        Surrender = "surrender": "on a tie the player surrenders half the bet",
    }
}

/// Where a session stops as a win.
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

/// An integer at least `min`.
fn at_least(v: &str, min: u64) -> Option<u64> {
    v.parse::<u64>().ok().filter(|n| *n >= min)
}

/// Every Casino War option, in the order `warlab rules` lists them.
pub const OPTIONS: &[Opt<CasinoOptions>] = &[
    Opt {
        name: "decks",
        column: Kind::Text,
        means: "52-card decks in the shoe (default 6)",
        named: &[Named {
            name: "infinite",
            means: "an infinite deck: every card drawn independently",
        }],
        other: "a number 1..=8",
        phrase: "{} deck{s} in the shoe",
        read: |o, v| {
            o.decks = match v {
                "infinite" => Decks::Infinite,
                _ => Decks::Finite(parse_in(v, 1..=8)?),
            };
            Some(())
        },
        write: |o| {
            Some(match o.decks {
                Decks::Finite(d) => d.to_string(),
                Decks::Infinite => "infinite".into(),
            })
        },
    },
    Opt {
        name: "penetration",
        column: Kind::Int,
        means: "percent of the shoe dealt before it is reshuffled (default 75; 0 = a freshly shuffled shoe every hand)",
        named: &[],
        other: "a number 0..=100",
        phrase: "{} % of the shoe dealt before a reshuffle",
        read: |o, v| {
            o.penetration = parse_in(v, 0..=100)?;
            Some(())
        },
        write: |o| Some(o.penetration.to_string()),
    },
    Opt {
        name: "strategy",
        column: Kind::Text,
        means: "what the player does on a tie (default war)",
        named: Strategy::NAMED,
        other: "",
        phrase: "strategy {}",
        read: |o, v| {
            o.strategy = Strategy::parse(v)?;
            Some(())
        },
        write: |o| Some(o.strategy.name().to_string()),
    },
    Opt {
        name: "bonus",
        column: Kind::Bool,
        means: "a tie on the war cards pays a bonus equal to the original bet (default false)",
        named: &[
            Named {
                name: "false",
                means: "no bonus on a tie after a tie",
            },
            Named {
                name: "true",
                means: "a tie on the war cards pays a bonus equal to the original bet",
            },
        ],
        other: "",
        phrase: "bonus {}",
        read: |o, v| {
            o.bonus = parse_bool(v)?;
            Some(())
        },
        write: |o| Some(o.bonus.to_string()),
    },
    Opt {
        name: "tie_bet",
        column: Kind::Int,
        means: "chips on the tie side bet every hand; a tie pays 10 to 1 (default 0)",
        named: &[],
        other: "an integer ≥ 0",
        phrase: "{} chip{s} on the tie bet every hand",
        read: |o, v| {
            o.tie_bet = at_least(v, 0)?;
            Some(())
        },
        write: |o| Some(o.tie_bet.to_string()),
    },
    Opt {
        name: "bet",
        column: Kind::Int,
        means: "chips bet on every hand (default 1)",
        named: &[],
        other: "an integer ≥ 1",
        phrase: "{} chip{s} bet on every hand",
        read: |o, v| {
            o.bet = at_least(v, 1)?;
            Some(())
        },
        write: |o| Some(o.bet.to_string()),
    },
    Opt {
        name: "bankroll",
        column: Kind::Int,
        means: "chips at the start of a session (default 50)",
        named: &[],
        other: "an integer ≥ 1",
        phrase: "a bankroll of {} chip{s}",
        read: |o, v| {
            o.bankroll = at_least(v, 1)?;
            Some(())
        },
        write: |o| Some(o.bankroll.to_string()),
    },
    Opt {
        name: "target",
        column: Kind::Text,
        means: "the bankroll that ends a session as a win (default double)",
        named: &[
            Named {
                name: "double",
                means: "a session is won at twice the starting bankroll",
            },
            Named {
                name: "none",
                means: "a session is never won, only lost or stopped",
            },
        ],
        other: "a number of chips above the bankroll",
        phrase: "a session is won at {} chips",
        read: |o, v| {
            o.target = match v {
                "double" => Target::Double,
                "none" => Target::None,
                _ => Target::Chips(at_least(v, 1)?),
            };
            Some(())
        },
        write: |o| {
            Some(match o.target {
                Target::Double => "double".into(),
                Target::Chips(c) => c.to_string(),
                Target::None => "none".into(),
            })
        },
    },
    Opt {
        name: "hands",
        column: Kind::Int,
        means: "hands per session at most (default none)",
        named: &[Named {
            name: "none",
            means: "no limit; a safety cap of 10,000,000 hands is reported as capped",
        }],
        other: "an integer ≥ 1",
        phrase: "sessions stop after {} hand{s}",
        read: |o, v| {
            o.hands = match v {
                "none" => None,
                _ => Some(at_least(v, 1)?),
            };
            Some(())
        },
        write: |o| Some(none_or(o.hands)),
    },
];

impl CasinoOptions {
    /// Sets one option from its text, as experiment files and the command line give it.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        spec::set(OPTIONS, "casino-war", self, key, value)
    }

    /// Every option as `(name, value)`, in [`OPTIONS`] order, as [`CasinoOptions::set`] reads it.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        spec::pairs(OPTIONS, self)
    }

    /// Chips a player must hold to start a hand: the bet, the tie bet, and the raise when the
    /// strategy is to go to war, so that a tie can always be played as the strategy says.
    fn stake(&self) -> u64 {
        self.bet
            + self.tie_bet
            + if self.strategy == Strategy::War {
                self.bet
            } else {
                0
            }
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
    /// Checks the options together: the bankroll covers one hand, the target lies above it.
    pub fn new(options: CasinoOptions) -> Result<CasinoRules, RulesError> {
        let o = &options;
        let stake = o.stake();
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

    /// The options as the user wrote them.
    pub fn options(&self) -> &CasinoOptions {
        &self.options
    }
    /// The shoe's size.
    pub fn decks(&self) -> Decks {
        self.options.decks
    }
    /// Percent of the shoe dealt before a reshuffle.
    pub fn penetration(&self) -> u8 {
        self.options.penetration
    }
    /// What the player does on a tie.
    pub fn strategy(&self) -> Strategy {
        self.options.strategy
    }
    /// Whether a tie on the war cards pays a bonus.
    pub fn bonus(&self) -> bool {
        self.options.bonus
    }
    /// Chips on the tie side bet every hand.
    pub fn tie_bet(&self) -> u64 {
        self.options.tie_bet
    }
    /// Chips bet on every hand.
    pub fn bet(&self) -> u64 {
        self.options.bet
    }
    /// Chips at the start of a session.
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
        self.options.stake()
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
