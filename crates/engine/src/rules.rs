//! Rule options (by their RULES.md names) and the validated [`Rules`] the engine plays.
//!
//! [`RuleOptions`] is what a user wrote: every option, by name, with its default. It is filled
//! from `name = value` text by [`RuleOptions::set`], which is the one parser behind the command
//! line (`--rule pickup=seat`) and the experiment files, so the two cannot disagree.
//! [`Rules::new`] checks the options against each other and compiles them into the tables the
//! hot loop uses; a `Rules` value is always playable.

use std::fmt;

use crate::cards::{CardSet, DeckKind};

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

/// Every option name with its allowed values, in RULES.md order.
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

    /// Every option as `(name, value)` text, in RULES.md order; `set` reads each back.
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

/// Options that do not fit together, or do not fit the deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError {
    /// The options involved, by name.
    pub options: Vec<&'static str>,
    pub message: String,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid rules ({}): {}",
            self.options.join(" + "),
            self.message
        )
    }
}

impl std::error::Error for RulesError {}

fn err(options: &[&'static str], message: impl Into<String>) -> RulesError {
    RulesError {
        options: options.to_vec(),
        message: message.into(),
    }
}

/// How card values compare, compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Compare {
    /// Higher value wins; equal values tie.
    Ordered,
    /// `beats[a * values + b]`: a beats b. Neither beating the other is a tie.
    Table { values: usize, beats: Vec<bool> },
}

/// War size, compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DownRule {
    Fixed(u32),
    PerValue(Vec<u32>),
}

/// A validated rule set: every option checked, every table built.
#[derive(Clone, Debug)]
pub struct Rules {
    pub(crate) options: RuleOptions,
    pub(crate) cards: CardSet,
    pub(crate) players: usize,
    pub(crate) per_player: usize,
    pub(crate) compare: Compare,
    pub(crate) down: DownRule,
    pub(crate) chained: ChainedWar,
    pub(crate) short: ShortWar,
    pub(crate) pickup: Pickup,
    pub(crate) two_pile: Option<OnEmpty>,
    pub(crate) battle_limit: Option<u64>,
    pub(crate) wars_to_win: Option<u32>,
    pub(crate) target_cards: Option<u32>,
    pub(crate) min_cards: Option<u32>,
    pub(crate) prize: bool,
    pub(crate) cause_to_loser: bool,
    pub(crate) hand: usize,
    pub(crate) policies: [Policy; 4],
    /// Policy preference key per value: higher = stronger.
    pub(crate) strength: Vec<u16>,
    /// `speed` as a threshold on a uniform u64.
    pub(crate) speed: Option<u64>,
    pub(crate) safety_cap: Option<u64>,
    pub(crate) deterministic: bool,
}

impl Rules {
    /// The classic rules (every option at its default).
    pub fn classic() -> Rules {
        Rules::new(RuleOptions::default()).expect("the defaults are valid")
    }

    /// Parses `name=value` pairs over the classic defaults and validates them.
    pub fn from_pairs<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Rules, Box<dyn std::error::Error + Send + Sync>> {
        let mut o = RuleOptions::default();
        for (k, v) in pairs {
            o.set(k, v)?;
        }
        Ok(Rules::new(o)?)
    }

    /// Checks the options together and compiles them.
    pub fn new(o: RuleOptions) -> Result<Rules, RulesError> {
        // Deck.
        let deck = match (&o.deck, o.ranks, o.suits) {
            (DeckKind::Custom { .. }, Some(ranks), suits) => DeckKind::Custom {
                ranks,
                suits: suits.unwrap_or(4),
            },
            (DeckKind::Custom { .. }, None, _) => {
                return Err(err(
                    &["deck", "ranks"],
                    "deck = custom needs `ranks` (and optionally `suits`, default 4)",
                ));
            }
            (_, Some(_), _) | (_, _, Some(_)) => {
                return Err(err(
                    &["deck", "ranks", "suits"],
                    "`ranks` and `suits` only go with deck = custom",
                ));
            }
            (d, None, None) => d.clone(),
        };
        let specs = deck.ranks();
        let french = deck.is_french();
        let needs_ace = matches!(
            o.ranking,
            Ranking::AcesLow | Ranking::Peasant | Ranking::LowBeatsHigh
        );
        if needs_ace && !french {
            return Err(err(
                &["ranking", "deck"],
                "aces-low, peasant and low-beats-high need a deck with aces (standard52, piquet36, jokers54)",
            ));
        }
        if o.ranking == Ranking::Peasant && !specs.iter().any(|s| s.label == "2") {
            return Err(err(
                &["ranking", "deck"],
                "peasant ranking needs a deck with 2s",
            ));
        }
        if o.low_rank.is_some() && o.ranking != Ranking::LowBeatsHigh {
            return Err(err(
                &["low_rank", "ranking"],
                "`low_rank` only goes with ranking = low-beats-high",
            ));
        }
        // Order the ranks by value: value order = strength for transitive rankings, and the
        // natural order of the ranking otherwise.
        let mut order: Vec<usize> = (0..specs.len()).collect();
        match o.ranking {
            Ranking::AcesHigh | Ranking::LowBeatsHigh => {}
            Ranking::AcesLow | Ranking::Peasant => {
                // Move the ace below the 2 (jokers stay on top).
                let ace = specs
                    .iter()
                    .position(|s| s.is_ace)
                    .expect("French decks have aces");
                order.remove(ace);
                order.insert(0, ace);
            }
            Ranking::LowWins => order.reverse(),
        }
        let cards = CardSet {
            labels: order.iter().map(|&i| specs[i].label.clone()).collect(),
            numbers: order.iter().map(|&i| specs[i].number).collect(),
            copies: order
                .iter()
                .map(|&i| specs[i].copies * u32::from(o.decks))
                .collect(),
            french,
        };
        let values = cards.values();
        let total = cards.total();
        if total > 16_384 {
            return Err(err(
                &["deck", "decks"],
                format!("{total} cards is more than the 16384 the engine supports"),
            ));
        }
        let players = usize::from(o.players);
        let per_player = total / players;
        if per_player == 0 {
            return Err(err(&["deck", "players"], "fewer cards than players"));
        }
        let compare = match o.ranking {
            Ranking::AcesHigh | Ranking::AcesLow | Ranking::LowWins => Compare::Ordered,
            Ranking::Peasant | Ranking::LowBeatsHigh => {
                let is = |v: usize, label: &str| cards.labels[v] == label;
                let joker = |v: usize| cards.labels[v] == "JK";
                let low = match o.ranking {
                    Ranking::Peasant => "2".to_string(),
                    _ => o.low_rank.clone().unwrap_or_else(|| "2".to_string()),
                };
                if !cards.labels.contains(&low) || low == "A" || low == "JK" {
                    return Err(err(
                        &["low_rank"],
                        format!(
                            "`{low}` is not a rank below the ace in this deck; allowed: {}",
                            cards.labels.join(" ")
                        ),
                    ));
                }
                let mut beats = vec![false; values * values];
                for a in 0..values {
                    for b in 0..values {
                        beats[a * values + b] = if a == b {
                            false
                        } else if joker(a) || joker(b) {
                            joker(a)
                        } else if is(a, &low) && is(b, "A") {
                            o.ranking == Ranking::LowBeatsHigh
                        } else if is(a, "A") && is(b, &low) {
                            o.ranking == Ranking::Peasant
                        } else if o.ranking == Ranking::Peasant && is(a, "2") {
                            true // 2 beats everything but the ace (handled above)
                        } else if o.ranking == Ranking::Peasant && is(b, "2") {
                            false
                        } else {
                            a > b
                        };
                    }
                }
                Compare::Table { values, beats }
            }
        };
        let strength: Vec<u16> = match &compare {
            Compare::Ordered => (0..values as u16).collect(),
            Compare::Table { values, beats } => (0..*values)
                .map(|a| {
                    let wins = (0..*values).filter(|&b| beats[a * values + b]).count() as u16;
                    wins * 256 + a as u16
                })
                .collect(),
        };
        let down = match &o.war_down {
            WarDown::Fixed(n) => DownRule::Fixed(u32::from(*n)),
            WarDown::ByRank => DownRule::PerValue(cards.numbers.clone()),
            WarDown::Table(t) => {
                let mut per = cards.numbers.clone();
                for (rank, count) in t {
                    let v = cards.labels.iter().position(|l| l == rank).ok_or_else(|| {
                        err(
                            &["war_down"],
                            format!(
                                "rank `{rank}` is not in this deck; ranks: {}",
                                cards.labels.join(" ")
                            ),
                        )
                    })?;
                    per[v] = *count;
                }
                DownRule::PerValue(per)
            }
        };
        let two_pile = match (o.pile, o.on_empty) {
            (Pile::Single, Some(_)) => {
                return Err(err(
                    &["on_empty", "pile"],
                    "`on_empty` only goes with pile = two-pile",
                ));
            }
            (Pile::Single, None) => None,
            (Pile::TwoPile, e) => Some(e.unwrap_or(OnEmpty::Shuffle)),
        };
        if o.war_cause_to_loser && players > 2 {
            return Err(err(
                &["war_cause_to_loser", "players"],
                "the war's loser taking back its cause is a 2-player rule (Arneson)",
            ));
        }
        if let Some(t) = o.target_cards
            && t as usize > per_player * players
        {
            return Err(err(
                &["target_cards", "players", "deck"],
                format!(
                    "target_cards must be at most the {} cards in play",
                    per_player * players
                ),
            ));
        }
        if let Some(m) = o.min_cards
            && m as usize > per_player
        {
            return Err(err(
                &["min_cards", "players", "deck"],
                format!("min_cards must be at most the {per_player} cards each player starts with"),
            ));
        }
        let hand = usize::from(o.hand);
        let mut policies = [Policy::Random; 4];
        match (&o.hand_policy, hand) {
            (Some(_), 0) => {
                return Err(err(
                    &["hand_policy", "hand"],
                    "`hand_policy` needs hand ≥ 1",
                ));
            }
            (Some(list), _) => {
                if list.len() != 1 && list.len() != players {
                    return Err(err(
                        &["hand_policy", "players"],
                        format!(
                            "give one policy, or one per seat ({players}); got {}",
                            list.len()
                        ),
                    ));
                }
                for (p, slot) in policies.iter_mut().enumerate() {
                    *slot = list[if list.len() == 1 {
                        0
                    } else {
                        p.min(list.len() - 1)
                    }];
                }
            }
            (None, _) => {}
        }
        let speed = o.speed.map(|p| {
            if p >= 1.0 {
                u64::MAX
            } else {
                (p * 18_446_744_073_709_551_616.0) as u64
            }
        });
        let deterministic = o.pickup != Pickup::Shuffled
            && two_pile != Some(OnEmpty::Shuffle)
            && !(hand > 0 && policies[..players].contains(&Policy::Random))
            && speed.is_none();
        let safety_cap = match o.safety_cap {
            None if !deterministic && o.battle_limit.is_none() => {
                return Err(err(
                    &["safety_cap", "pickup"],
                    "a game under random rules can run for ever and cannot be stopped by cycle detection: give a safety_cap or a battle_limit",
                ));
            }
            c => c,
        };
        Ok(Rules {
            cards,
            players,
            per_player,
            compare,
            down,
            chained: o.chained_war,
            short: o.short_war,
            pickup: o.pickup,
            two_pile,
            battle_limit: o.battle_limit,
            wars_to_win: o.wars_to_win,
            target_cards: o.target_cards,
            min_cards: o.min_cards,
            prize: o.prize,
            cause_to_loser: o.war_cause_to_loser,
            hand,
            policies,
            strength,
            speed,
            safety_cap,
            deterministic,
            options: o,
        })
    }

    pub fn options(&self) -> &RuleOptions {
        &self.options
    }

    pub fn cards(&self) -> &CardSet {
        &self.cards
    }

    pub fn players(&self) -> usize {
        self.players
    }

    /// Cards dealt to each player (the rest of the deck is set aside).
    pub fn cards_per_player(&self) -> usize {
        self.per_player
    }

    /// Cards in play: `players × cards_per_player`.
    pub fn cards_in_play(&self) -> usize {
        self.per_player * self.players
    }

    /// True when nothing in play is random after the deal: games can loop, and cycles are
    /// detected exactly.
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// Whether exact cycle detection runs (deterministic rules without a battle limit: with a
    /// limit, the limit ends every game and the battle count is part of the state).
    pub fn detects_cycles(&self) -> bool {
        self.deterministic && self.battle_limit.is_none()
    }

    pub fn safety_cap(&self) -> Option<u64> {
        self.safety_cap
    }

    /// True for the classic 2-player shape the specialised loop plays.
    pub(crate) fn is_simple_two_player(&self) -> bool {
        self.players == 2
            && self.compare == Compare::Ordered
            && matches!(self.down, DownRule::Fixed(_))
            && self.chained == ChainedWar::Repeat
            && self.short == ShortWar::AllButLast
            && self.two_pile.is_none()
            && self.hand == 0
            && !self.prize
            && !self.cause_to_loser
            && self.speed.is_none()
            && self.wars_to_win.is_none()
            && self.target_cards.is_none()
            && self.min_cards.is_none()
            && !self.detects_cycles()
            && crate::fast::battle_cap(self) < u64::from(u32::MAX)
    }
}

impl fmt::Display for Rules {
    /// `name=value` for every option that differs from the classic default.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let classic = RuleOptions::default().to_pairs();
        let diff: Vec<String> = self
            .options
            .to_pairs()
            .into_iter()
            .filter(|p| !classic.contains(p))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if diff.is_empty() {
            write!(f, "classic")
        } else {
            write!(f, "{}", diff.join(","))
        }
    }
}
