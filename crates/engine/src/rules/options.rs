//! Rule options by their names: what a user wrote, with the classic defaults.
//!
//! [`RuleOptions`] holds every option; [`RuleOptions::set`] is the one parser of `name = value`
//! text behind the command line (`--rule pickup=seat`) and the experiment files, so the two
//! cannot disagree; [`RuleOptions::to_pairs`] writes every option back as text `set` reads.

use std::fmt;

use crate::cards::DeckKind;

/// How card values compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranking {
    /// 2 < 3 < … < K < A (< jokers).
    AcesHigh,
    /// A < 2 < … < K (< jokers).
    AcesLow,
    /// Aces lowest, but a 2 beats everything except an ace, and an ace beats a 2.
    Peasant,
    /// Aces high, but one named low rank (`low_rank`, default 2) beats the ace, and only the ace.
    LowBeatsHigh,
    /// The lowest rank wins (Spivey's convention for numbered decks).
    LowWins,
}

/// How many cards each player puts face down in a war.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarDown {
    Fixed(u8),
    /// The tied rank's number: 2..10 as is, J 11, Q 12, K 13, A 14, joker 15, custom ranks their
    /// number.
    ByRank,
    /// `rank=count` pairs; ranks not listed use their by-rank number.
    Table(Vec<(String, u32)>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainedWar {
    /// Another full war (N down + 1 up) on every further tie.
    Repeat,
    /// After the first war, further ties are broken by one face-up card at a time.
    FlipOne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortWar {
    /// With n < N+1 cards: n−1 down, the last one up; n = 0 loses.
    AllButLast,
    /// With 1 ≤ n ≤ N cards: nothing down, the next card up; n = 0 loses.
    LastCardUp,
    /// Fewer than N+1 cards: the player forfeits the game.
    Lose,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pickup {
    Shuffled,
    WinnerFirst,
    LoserFirst,
    Played,
    Seat,
    RankDesc,
    RankAsc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pile {
    Single,
    TwoPile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnEmpty {
    /// The won pile becomes the stack in the order the cards were won.
    TurnOver,
    /// The won pile is shuffled, then becomes the stack.
    Shuffle,
    /// An empty stack loses, even with a won pile.
    Lose,
}

/// How a hand-of-N player chooses the card to play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Random,
    Highest,
    Lowest,
    Median,
}

/// Every rule option, as written by the user. `Default` is the classic rule set.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOptions {
    pub players: u8,
    pub deck: DeckKind,
    pub decks: u16,
    pub ranking: Ranking,
    pub low_rank: Option<String>,
    pub war_down: WarDown,
    pub chained_war: ChainedWar,
    pub short_war: ShortWar,
    pub pickup: Pickup,
    pub pile: Pile,
    pub on_empty: Option<OnEmpty>,
    pub battle_limit: Option<u64>,
    pub wars_to_win: Option<u32>,
    pub target_cards: Option<u32>,
    pub min_cards: Option<u32>,
    pub prize: bool,
    pub war_cause_to_loser: bool,
    pub hand: u8,
    pub hand_policy: Option<Vec<Policy>>,
    pub speed: Option<f64>,
    /// `None`: no cap (deterministic rules only, where cycle detection stops every game).
    pub safety_cap: Option<u64>,
    // Custom deck shape, only with `deck = "custom"`.
    pub ranks: Option<u16>,
    pub suits: Option<u16>,
}

/// The default safety cap for games that cannot be stopped by cycle detection.
pub const DEFAULT_SAFETY_CAP: u64 = 1_000_000;

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            players: 2,
            deck: DeckKind::Standard52,
            decks: 1,
            ranking: Ranking::AcesHigh,
            low_rank: None,
            war_down: WarDown::Fixed(3),
            chained_war: ChainedWar::Repeat,
            short_war: ShortWar::AllButLast,
            pickup: Pickup::Shuffled,
            pile: Pile::Single,
            on_empty: None,
            battle_limit: None,
            wars_to_win: None,
            target_cards: None,
            min_cards: None,
            prize: false,
            war_cause_to_loser: false,
            hand: 0,
            hand_policy: None,
            speed: None,
            safety_cap: Some(DEFAULT_SAFETY_CAP),
            ranks: None,
            suits: None,
        }
    }
}

/// A `name = value` that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// Whose option: `rule` for War, `casino-war` for the casino game's table.
    pub kind: &'static str,
    pub key: String,
    pub value: Option<String>,
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

/// Every option name with its allowed values, in the order of docs/rules.md.
pub const OPTIONS: &[(&str, &str)] = &[
    ("players", "2, 3, 4"),
    (
        "deck",
        "standard52, piquet36, jokers54, custom (with `ranks` and `suits`)",
    ),
    ("decks", "a number of copies of the deck, 1..=16"),
    ("ranks", "with deck = custom: the number of ranks, 2..=250"),
    ("suits", "with deck = custom: cards of each rank, 1..=64"),
    (
        "ranking",
        "aces-high, aces-low, peasant, low-beats-high, low-wins",
    ),
    (
        "low_rank",
        "with ranking = low-beats-high: the rank that beats the ace (default 2)",
    ),
    (
        "war_down",
        "a number 0..=64, by-rank, or a table like `J=1,Q=2,K=3,A=4`",
    ),
    ("chained_war", "repeat, flip-one"),
    ("short_war", "all-but-last, last-card-up, lose"),
    (
        "pickup",
        "shuffled, winner-first, loser-first, played, seat, rank-desc, rank-asc",
    ),
    ("pile", "single, two-pile"),
    ("on_empty", "with pile = two-pile: turn-over, shuffle, lose"),
    ("battle_limit", "none or a number of battles ≥ 1"),
    ("wars_to_win", "none or a number of wars ≥ 1"),
    ("target_cards", "none or a number of cards"),
    ("min_cards", "none or a number of cards ≥ 1"),
    ("prize", "false, true"),
    ("war_cause_to_loser", "false, true"),
    (
        "hand",
        "0..=8 cards held in hand (Arneson's variant uses 3)",
    ),
    (
        "hand_policy",
        "random, highest, lowest, median, or one per seat: `highest,random`",
    ),
    (
        "speed",
        "none or a probability 0 < p ≤ 1 that seat 0 grabs a battle",
    ),
    (
        "safety_cap",
        "a number of battles (default 1000000), or none for deterministic rules",
    ),
];

fn allowed(key: &str) -> String {
    OPTIONS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, a)| (*a).to_string())
        .unwrap_or_default()
}

fn option_names() -> String {
    OPTIONS
        .iter()
        .map(|(k, _)| *k)
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_none_or<T: std::str::FromStr + PartialOrd>(v: &str, min: T) -> Result<Option<T>, ()> {
    if v == "none" {
        return Ok(None);
    }
    match v.parse::<T>() {
        Ok(n) if n >= min => Ok(Some(n)),
        _ => Err(()),
    }
}

fn parse_bool(v: &str) -> Result<bool, ()> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(()),
    }
}

fn parse_policy(v: &str) -> Result<Policy, ()> {
    Ok(match v.trim() {
        "random" => Policy::Random,
        "highest" => Policy::Highest,
        "lowest" => Policy::Lowest,
        "median" => Policy::Median,
        _ => return Err(()),
    })
}

impl RuleOptions {
    /// Sets one option from its text form, e.g. `set("pickup", "seat")`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        let v = value.trim();
        let bad = || OptionError {
            kind: "rule",
            key: key.to_string(),
            value: Some(value.to_string()),
            allowed: allowed(key),
        };
        match key {
            "players" => {
                self.players = match v {
                    "2" => 2,
                    "3" => 3,
                    "4" => 4,
                    _ => return Err(bad()),
                }
            }
            "deck" => {
                self.deck = match v {
                    "standard52" => DeckKind::Standard52,
                    "piquet36" => DeckKind::Piquet36,
                    "jokers54" => DeckKind::Jokers54,
                    "custom" => DeckKind::Custom { ranks: 0, suits: 0 },
                    _ => return Err(bad()),
                }
            }
            "decks" => match v.parse::<u16>() {
                Ok(n @ 1..=16) => self.decks = n,
                _ => return Err(bad()),
            },
            "ranks" => match v.parse::<u16>() {
                Ok(n @ 2..=250) => self.ranks = Some(n),
                _ => return Err(bad()),
            },
            "suits" => match v.parse::<u16>() {
                Ok(n @ 1..=64) => self.suits = Some(n),
                _ => return Err(bad()),
            },
            "ranking" => {
                self.ranking = match v {
                    "aces-high" => Ranking::AcesHigh,
                    "aces-low" => Ranking::AcesLow,
                    "peasant" => Ranking::Peasant,
                    "low-beats-high" => Ranking::LowBeatsHigh,
                    "low-wins" => Ranking::LowWins,
                    _ => return Err(bad()),
                }
            }
            "low_rank" => {
                if v.is_empty() {
                    return Err(bad());
                }
                self.low_rank = Some(v.to_ascii_uppercase());
            }
            "war_down" => {
                self.war_down = if v == "by-rank" {
                    WarDown::ByRank
                } else if let Ok(n) = v.parse::<u8>() {
                    if n > 64 {
                        return Err(bad());
                    }
                    WarDown::Fixed(n)
                } else if v.contains('=') {
                    let mut table = Vec::new();
                    for pair in v.split(',') {
                        let (rank, count) = pair.split_once('=').ok_or_else(bad)?;
                        let count = count.trim().parse::<u32>().map_err(|_| bad())?;
                        if count > 64 {
                            return Err(bad());
                        }
                        table.push((rank.trim().to_ascii_uppercase(), count));
                    }
                    WarDown::Table(table)
                } else {
                    return Err(bad());
                }
            }
            "chained_war" => {
                self.chained_war = match v {
                    "repeat" => ChainedWar::Repeat,
                    "flip-one" => ChainedWar::FlipOne,
                    _ => return Err(bad()),
                }
            }
            "short_war" => {
                self.short_war = match v {
                    "all-but-last" => ShortWar::AllButLast,
                    "last-card-up" => ShortWar::LastCardUp,
                    "lose" => ShortWar::Lose,
                    _ => return Err(bad()),
                }
            }
            "pickup" => {
                self.pickup = match v {
                    "shuffled" => Pickup::Shuffled,
                    "winner-first" => Pickup::WinnerFirst,
                    "loser-first" => Pickup::LoserFirst,
                    "played" => Pickup::Played,
                    "seat" => Pickup::Seat,
                    "rank-desc" => Pickup::RankDesc,
                    "rank-asc" => Pickup::RankAsc,
                    _ => return Err(bad()),
                }
            }
            "pile" => {
                self.pile = match v {
                    "single" => Pile::Single,
                    "two-pile" => Pile::TwoPile,
                    _ => return Err(bad()),
                }
            }
            "on_empty" => {
                self.on_empty = Some(match v {
                    "turn-over" => OnEmpty::TurnOver,
                    "shuffle" => OnEmpty::Shuffle,
                    "lose" => OnEmpty::Lose,
                    _ => return Err(bad()),
                })
            }
            "battle_limit" => self.battle_limit = parse_none_or(v, 1u64).map_err(|_| bad())?,
            "wars_to_win" => self.wars_to_win = parse_none_or(v, 1u32).map_err(|_| bad())?,
            "target_cards" => self.target_cards = parse_none_or(v, 1u32).map_err(|_| bad())?,
            "min_cards" => self.min_cards = parse_none_or(v, 1u32).map_err(|_| bad())?,
            "prize" => self.prize = parse_bool(v).map_err(|_| bad())?,
            "war_cause_to_loser" => self.war_cause_to_loser = parse_bool(v).map_err(|_| bad())?,
            "hand" => match v.parse::<u8>() {
                Ok(n @ 0..=8) => self.hand = n,
                _ => return Err(bad()),
            },
            "hand_policy" => {
                let list = v
                    .split(',')
                    .map(parse_policy)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| bad())?;
                if list.is_empty() || list.len() > 4 {
                    return Err(bad());
                }
                self.hand_policy = Some(list);
            }
            "speed" => {
                self.speed = if v == "none" {
                    None
                } else {
                    match v.parse::<f64>() {
                        Ok(p) if p > 0.0 && p <= 1.0 => Some(p),
                        _ => return Err(bad()),
                    }
                }
            }
            "safety_cap" => {
                self.safety_cap = parse_none_or(v, 1u64).map_err(|_| bad())?;
            }
            _ => {
                return Err(OptionError {
                    kind: "rule",
                    key: key.to_string(),
                    value: None,
                    allowed: option_names(),
                });
            }
        }
        Ok(())
    }

    /// Every option as `(name, value)` text, in the order of docs/rules.md; `set` reads each back.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let none_or = |o: Option<u64>| o.map_or("none".to_string(), |n| n.to_string());
        let mut out = vec![
            ("players", self.players.to_string()),
            (
                "deck",
                match self.deck {
                    DeckKind::Standard52 => "standard52",
                    DeckKind::Piquet36 => "piquet36",
                    DeckKind::Jokers54 => "jokers54",
                    DeckKind::Custom { .. } => "custom",
                }
                .to_string(),
            ),
            ("decks", self.decks.to_string()),
        ];
        if let Some(r) = self.ranks {
            out.push(("ranks", r.to_string()));
        }
        if let Some(s) = self.suits {
            out.push(("suits", s.to_string()));
        }
        out.push((
            "ranking",
            match self.ranking {
                Ranking::AcesHigh => "aces-high",
                Ranking::AcesLow => "aces-low",
                Ranking::Peasant => "peasant",
                Ranking::LowBeatsHigh => "low-beats-high",
                Ranking::LowWins => "low-wins",
            }
            .to_string(),
        ));
        if let Some(l) = &self.low_rank {
            out.push(("low_rank", l.clone()));
        }
        out.push((
            "war_down",
            match &self.war_down {
                WarDown::Fixed(n) => n.to_string(),
                WarDown::ByRank => "by-rank".to_string(),
                WarDown::Table(t) => t
                    .iter()
                    .map(|(r, c)| format!("{r}={c}"))
                    .collect::<Vec<_>>()
                    .join(","),
            },
        ));
        out.push((
            "chained_war",
            match self.chained_war {
                ChainedWar::Repeat => "repeat",
                ChainedWar::FlipOne => "flip-one",
            }
            .to_string(),
        ));
        out.push((
            "short_war",
            match self.short_war {
                ShortWar::AllButLast => "all-but-last",
                ShortWar::LastCardUp => "last-card-up",
                ShortWar::Lose => "lose",
            }
            .to_string(),
        ));
        out.push((
            "pickup",
            match self.pickup {
                Pickup::Shuffled => "shuffled",
                Pickup::WinnerFirst => "winner-first",
                Pickup::LoserFirst => "loser-first",
                Pickup::Played => "played",
                Pickup::Seat => "seat",
                Pickup::RankDesc => "rank-desc",
                Pickup::RankAsc => "rank-asc",
            }
            .to_string(),
        ));
        out.push((
            "pile",
            match self.pile {
                Pile::Single => "single",
                Pile::TwoPile => "two-pile",
            }
            .to_string(),
        ));
        if let Some(e) = self.on_empty {
            out.push((
                "on_empty",
                match e {
                    OnEmpty::TurnOver => "turn-over",
                    OnEmpty::Shuffle => "shuffle",
                    OnEmpty::Lose => "lose",
                }
                .to_string(),
            ));
        }
        out.push(("battle_limit", none_or(self.battle_limit)));
        out.push(("wars_to_win", none_or(self.wars_to_win.map(u64::from))));
        out.push(("target_cards", none_or(self.target_cards.map(u64::from))));
        out.push(("min_cards", none_or(self.min_cards.map(u64::from))));
        out.push(("prize", self.prize.to_string()));
        out.push(("war_cause_to_loser", self.war_cause_to_loser.to_string()));
        out.push(("hand", self.hand.to_string()));
        if let Some(p) = &self.hand_policy {
            out.push((
                "hand_policy",
                p.iter()
                    .map(|p| policy_name(*p))
                    .collect::<Vec<_>>()
                    .join(","),
            ));
        }
        out.push((
            "speed",
            self.speed.map_or("none".to_string(), |p| p.to_string()),
        ));
        out.push(("safety_cap", none_or(self.safety_cap)));
        out
    }
}

pub(crate) fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Random => "random",
        Policy::Highest => "highest",
        Policy::Lowest => "lowest",
        Policy::Median => "median",
    }
}
