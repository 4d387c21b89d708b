//! War's rule options by their names: what a user wrote, with the classic defaults.
//!
//! [`RuleOptions`] holds every option; [`OPTIONS`] is the one table of them (name, meaning,
//! values, how each is read and written, the report's words), behind the command line
//! (`--rule pickup=seat`), the experiment files, `warlab rules` and the reports, so they cannot
//! disagree. [`RuleOptions::set`] reads `name = value` text; [`RuleOptions::to_pairs`] writes
//! every option back as text `set` reads.

use crate::choices;
use crate::spec::{
    self, Choice, Kind, Named, Opt, OptionError, none_or, parse_bool, parse_in, parse_none_or,
};

choices! {
    /// Which deck is dealt (a custom one takes its shape from `ranks` and `suits`).
    pub enum Deck {
        Standard52 = "standard52": "one 52-card deck",
        Piquet36 = "piquet36": "a 36-card piquet deck (6 to ace)",
        Jokers54 = "jokers54": "52 cards plus 2 jokers that beat the ace (joker against joker ties)",
        Custom = "custom": "a deck of numbered cards, `ranks` × `suits`",
    }
}

choices! {
    /// How card values compare.
    pub enum Ranking {
        AcesHigh = "aces-high": "aces high: 2 < 3 < … < K < A (< jokers)",
        AcesLow = "aces-low": "aces low: A < 2 < … < K (< jokers)",
        Peasant = "peasant": "peasant ranking: aces lowest, but a 2 beats everything except an ace, and an ace beats a 2",
        LowBeatsHigh = "low-beats-high": "aces high, but one low rank (`low_rank`, default 2) beats the ace, and only the ace",
        LowWins = "low-wins": "the lower card wins (Spivey's convention for numbered decks)",
    }
}

choices! {
    /// What a further tie during a war starts.
    pub enum ChainedWar {
        Repeat = "repeat": "a tie in a war starts another full war",
        FlipOne = "flip-one": "a tie in a war is settled by one face-up card each at a time",
    }
}

choices! {
    /// What a player without enough cards for a war does.
    pub enum ShortWar {
        AllButLast = "all-but-last": "a player short of cards for a war puts all but the last face down and turns up the last",
        LastCardUp = "last-card-up": "a player short of cards for a war puts none down and turns up the next card",
        Lose = "lose": "a player who cannot complete a war loses the game",
    }
}

choices! {
    /// The order won cards go under the winner's stack.
    pub enum Pickup {
        Shuffled = "shuffled": "won cards go under in random order",
        WinnerFirst = "winner-first": "won cards go under with the winner's cards first",
        LoserFirst = "loser-first": "won cards go under with the loser's cards first",
        Played = "played": "won cards go under in the order played, the winner's card first in each layer",
        Seat = "seat": "won cards go under in seat order",
        RankDesc = "rank-desc": "won cards go under highest first",
        RankAsc = "rank-asc": "won cards go under lowest first",
    }
}

choices! {
    /// Where won cards go.
    pub enum Pile {
        Single = "single": "won cards go under the stack",
        TwoPile = "two-pile": "won cards go to a separate won pile",
    }
}

choices! {
    /// What happens when a two-pile player's stack runs out.
    pub enum OnEmpty {
        TurnOver = "turn-over": "an empty stack is replaced by the won pile as it lies",
        Shuffle = "shuffle": "an empty stack is replaced by the won pile, shuffled",
        Lose = "lose": "a player whose stack runs out loses, even with a won pile",
    }
}

choices! {
    /// How a hand-of-N player chooses the card to play.
    pub enum Policy {
        Random = "random": "players play a card from their hand at random",
        Highest = "highest": "players play the strongest card in their hand",
        Lowest = "lowest": "players play the weakest card in their hand",
        Median = "median": "players play the middle card of their hand (the lower middle one of an even hand)",
    }
}

/// How many cards each player puts face down in a war.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarDown {
    /// The same number in every war.
    Fixed(u8),
    /// The tied rank's number: 2..10 as is, J 11, Q 12, K 13, A 14, joker 15, custom ranks their
    /// number.
    ByRank,
    /// `rank=count` pairs; ranks not listed use their by-rank number.
    Table(Vec<(String, u32)>),
}

/// Every rule option, as written by the user. `Default` is the classic rule set.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleOptions {
    /// Seats at the table, 2..=4.
    pub players: u8,
    /// The deck dealt.
    pub deck: Deck,
    /// Copies of the deck shuffled together.
    pub decks: u16,
    /// How card values compare.
    pub ranking: Ranking,
    /// With `low-beats-high`: the rank that beats the ace (`None`: 2).
    pub low_rank: Option<String>,
    /// Cards face down in a war.
    pub war_down: WarDown,
    /// What a tie during a war starts.
    pub chained_war: ChainedWar,
    /// What a player short of cards for a war does.
    pub short_war: ShortWar,
    /// The order won cards go under.
    pub pickup: Pickup,
    /// Where won cards go.
    pub pile: Pile,
    /// With two piles: what an empty stack does (`None`: the rules decide, see `Rules::new`).
    pub on_empty: Option<OnEmpty>,
    /// Battles after which the player with more cards wins.
    pub battle_limit: Option<u64>,
    /// Wars that win the game.
    pub wars_to_win: Option<u32>,
    /// Cards that win the game.
    pub target_cards: Option<u32>,
    /// Cards below which a player loses.
    pub min_cards: Option<u32>,
    /// Every battle also carries a face-down prize card from each player.
    pub prize: bool,
    /// The loser of a war takes back the cards that caused it.
    pub war_cause_to_loser: bool,
    /// Cards held in hand (0: none, play from the stack).
    pub hand: u8,
    /// How hands are played: one policy for all, or one per seat.
    pub hand_policy: Option<Vec<Policy>>,
    /// The probability that seat 0 grabs a battle.
    pub speed: Option<f64>,
    /// `None`: no cap (deterministic rules only, where cycle detection stops every game).
    pub safety_cap: Option<u64>,
    /// With `deck = custom`: the number of ranks.
    pub ranks: Option<u16>,
    /// With `deck = custom`: cards of each rank (`None`: 4).
    pub suits: Option<u16>,
}

/// The default safety cap for games that cannot be stopped by cycle detection.
pub const DEFAULT_SAFETY_CAP: u64 = 1_000_000;

impl Default for RuleOptions {
    fn default() -> Self {
        RuleOptions {
            players: 2,
            deck: Deck::Standard52,
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

/// `false` and `true` of an option that switches something on.
const fn switch(off: &'static str, on: &'static str) -> [Named; 2] {
    [
        Named {
            name: "false",
            means: off,
        },
        Named {
            name: "true",
            means: on,
        },
    ]
}

const NONE_LIMIT: &[Named] = &[Named {
    name: "none",
    means: "no such limit",
}];

/// Every War rule option, in the order of docs/rules.md.
pub const OPTIONS: &[Opt<RuleOptions>] = &[
    Opt {
        name: "players",
        column: Kind::Int,
        means: "seats at the table (3 get 17 cards each, 4 get 13; the rest is set aside)",
        named: &[],
        other: "2, 3 or 4",
        phrase: "{} players",
        read: |o, v| {
            o.players = parse_in(v, 2..=4)?;
            Some(())
        },
        write: |o| Some(o.players.to_string()),
    },
    Opt {
        name: "deck",
        column: Kind::Text,
        means: "the deck dealt",
        named: Deck::NAMED,
        other: "",
        phrase: "{} deck",
        read: |o, v| {
            o.deck = Deck::parse(v)?;
            Some(())
        },
        write: |o| Some(o.deck.name().to_string()),
    },
    Opt {
        name: "decks",
        column: Kind::Int,
        means: "copies of the deck shuffled together",
        named: &[],
        other: "a number 1..=16",
        phrase: "{} decks shuffled together",
        read: |o, v| {
            o.decks = parse_in(v, 1..=16)?;
            Some(())
        },
        write: |o| Some(o.decks.to_string()),
    },
    Opt {
        name: "ranks",
        column: Kind::Int,
        means: "with deck = custom: the number of ranks (numbered 1, 2, …)",
        named: &[],
        other: "a number 2..=250",
        phrase: "{} ranks",
        read: |o, v| {
            o.ranks = Some(parse_in(v, 2..=250)?);
            Some(())
        },
        write: |o| o.ranks.map(|r| r.to_string()),
    },
    Opt {
        name: "suits",
        column: Kind::Int,
        means: "with deck = custom: cards of each rank (default 4)",
        named: &[],
        other: "a number 1..=64",
        phrase: "{} card{s} of each rank",
        read: |o, v| {
            o.suits = Some(parse_in(v, 1..=64)?);
            Some(())
        },
        write: |o| o.suits.map(|s| s.to_string()),
    },
    Opt {
        name: "ranking",
        column: Kind::Text,
        means: "how card values compare",
        named: Ranking::NAMED,
        other: "",
        phrase: "ranking {}",
        read: |o, v| {
            o.ranking = Ranking::parse(v)?;
            Some(())
        },
        write: |o| Some(o.ranking.name().to_string()),
    },
    Opt {
        name: "low_rank",
        column: Kind::Text,
        means: "with ranking = low-beats-high: the rank that beats the ace (default 2)",
        named: &[],
        other: "a rank of the deck, like 2 or J",
        phrase: "rank {} beats the ace",
        read: |o, v| {
            if v.is_empty() {
                return None;
            }
            o.low_rank = Some(v.to_ascii_uppercase());
            Some(())
        },
        write: |o| o.low_rank.clone(),
    },
    Opt {
        name: "war_down",
        column: Kind::Text,
        means: "cards each player puts face down in a war",
        named: &[Named {
            name: "by-rank",
            means: "as many cards face down in a war as the tied rank's number (J 11, Q 12, K 13, A 14)",
        }],
        other: "a number 0..=64, or a table like `J=1,Q=2,K=3,A=4` (unlisted ranks by-rank)",
        phrase: "{} card{s} face down in a war",
        read: |o, v| {
            o.war_down = read_war_down(v)?;
            Some(())
        },
        write: |o| {
            Some(match &o.war_down {
                WarDown::Fixed(n) => n.to_string(),
                WarDown::ByRank => "by-rank".to_string(),
                WarDown::Table(t) => t
                    .iter()
                    .map(|(r, c)| format!("{r}={c}"))
                    .collect::<Vec<_>>()
                    .join(","),
            })
        },
    },
    Opt {
        name: "chained_war",
        column: Kind::Text,
        means: "what a further tie during a war starts",
        named: ChainedWar::NAMED,
        other: "",
        phrase: "chained wars: {}",
        read: |o, v| {
            o.chained_war = ChainedWar::parse(v)?;
            Some(())
        },
        write: |o| Some(o.chained_war.name().to_string()),
    },
    Opt {
        name: "short_war",
        column: Kind::Text,
        means: "what a player without enough cards for a war does",
        named: ShortWar::NAMED,
        other: "",
        phrase: "short of cards in a war: {}",
        read: |o, v| {
            o.short_war = ShortWar::parse(v)?;
            Some(())
        },
        write: |o| Some(o.short_war.name().to_string()),
    },
    Opt {
        name: "pickup",
        column: Kind::Text,
        means: "the order won cards go under the winner's stack",
        named: Pickup::NAMED,
        other: "",
        phrase: "pick-up order {}",
        read: |o, v| {
            o.pickup = Pickup::parse(v)?;
            Some(())
        },
        write: |o| Some(o.pickup.name().to_string()),
    },
    Opt {
        name: "pile",
        column: Kind::Text,
        means: "where won cards go",
        named: Pile::NAMED,
        other: "",
        phrase: "pile {}",
        read: |o, v| {
            o.pile = Pile::parse(v)?;
            Some(())
        },
        write: |o| Some(o.pile.name().to_string()),
    },
    Opt {
        name: "on_empty",
        column: Kind::Text,
        means: "with pile = two-pile: what happens when a stack runs out (default shuffle)",
        named: OnEmpty::NAMED,
        other: "",
        phrase: "on an empty stack: {}",
        read: |o, v| {
            o.on_empty = Some(OnEmpty::parse(v)?);
            Some(())
        },
        write: |o| o.on_empty.map(|e| e.name().to_string()),
    },
    Opt {
        name: "battle_limit",
        column: Kind::Int,
        means: "battles after which the player with more cards wins (equal counts draw)",
        named: NONE_LIMIT,
        other: "a number of battles ≥ 1",
        phrase: "the game stops after {} battle{s} (most cards wins)",
        read: |o, v| {
            o.battle_limit = parse_none_or(v, 1)?;
            Some(())
        },
        write: |o| Some(none_or(o.battle_limit)),
    },
    Opt {
        name: "wars_to_win",
        column: Kind::Int,
        means: "the first player to win this many wars wins",
        named: NONE_LIMIT,
        other: "a number of wars ≥ 1",
        phrase: "the first to win {} war{s} wins",
        read: |o, v| {
            o.wars_to_win = parse_none_or(v, 1)?;
            Some(())
        },
        write: |o| Some(none_or(o.wars_to_win)),
    },
    Opt {
        name: "target_cards",
        column: Kind::Int,
        means: "the first player to hold this many cards wins",
        named: NONE_LIMIT,
        other: "a number of cards ≥ 1",
        phrase: "the first to hold {} card{s} wins",
        read: |o, v| {
            o.target_cards = parse_none_or(v, 1)?;
            Some(())
        },
        write: |o| Some(none_or(o.target_cards)),
    },
    Opt {
        name: "min_cards",
        column: Kind::Int,
        means: "a player who holds fewer cards than this loses",
        named: NONE_LIMIT,
        other: "a number of cards ≥ 1",
        phrase: "a player with fewer than {} card{s} loses",
        read: |o, v| {
            o.min_cards = parse_none_or(v, 1)?;
            Some(())
        },
        write: |o| Some(none_or(o.min_cards)),
    },
    Opt {
        name: "prize",
        column: Kind::Bool,
        means: "every battle also carries one face-down prize card from each player",
        named: &switch(
            "no prize card",
            "the winner of a battle also takes a face-down prize card from each player",
        ),
        other: "",
        phrase: "prize {}",
        read: |o, v| {
            o.prize = parse_bool(v)?;
            Some(())
        },
        write: |o| Some(o.prize.to_string()),
    },
    Opt {
        name: "war_cause_to_loser",
        column: Kind::Bool,
        means: "the loser of a war takes back the cards that caused it (Arneson)",
        named: &switch(
            "the winner of a war takes every card on the table",
            "the cards that caused a war go back to its loser",
        ),
        other: "",
        phrase: "war_cause_to_loser {}",
        read: |o, v| {
            o.war_cause_to_loser = parse_bool(v)?;
            Some(())
        },
        write: |o| Some(o.war_cause_to_loser.to_string()),
    },
    Opt {
        name: "hand",
        column: Kind::Int,
        means: "cards held in hand: a player chooses one to play and refills from the stack",
        named: &[],
        other: "a number 0..=8 (Arneson's variant uses 3)",
        phrase: "each player holds {} card{s} in hand and chooses which to play",
        read: |o, v| {
            o.hand = parse_in(v, 0..=8)?;
            Some(())
        },
        write: |o| Some(o.hand.to_string()),
    },
    Opt {
        name: "hand_policy",
        column: Kind::Text,
        means: "how a hand is played (default random)",
        named: Policy::NAMED,
        other: "one per seat, like `highest,random`",
        phrase: "hand policy per seat: {}",
        read: |o, v| {
            let list = v
                .split(',')
                .map(|p| Policy::parse(p.trim()))
                .collect::<Option<Vec<_>>>()?;
            if list.is_empty() || list.len() > 4 {
                return None;
            }
            o.hand_policy = Some(list);
            Some(())
        },
        write: |o| {
            o.hand_policy
                .as_ref()
                .map(|p| p.iter().map(|p| p.name()).collect::<Vec<_>>().join(","))
        },
    },
    Opt {
        name: "speed",
        column: Kind::Float,
        means: "\"fast War\": the probability that seat 0 grabs a battle's cards, whatever the ranks",
        named: &[Named {
            name: "none",
            means: "no grabbing",
        }],
        other: "a probability 0 < p ≤ 1",
        phrase: "seat 0 grabs a battle with probability {}",
        read: |o, v| {
            o.speed = match v {
                "none" => None,
                _ => Some(v.parse::<f64>().ok().filter(|p| *p > 0.0 && *p <= 1.0)?),
            };
            Some(())
        },
        write: |o| Some(none_or(o.speed)),
    },
    Opt {
        name: "safety_cap",
        column: Kind::Int,
        means: "battles after which a game that has not ended stops, recorded as capped",
        named: &[Named {
            name: "none",
            means: "no safety cap (deterministic rules only)",
        }],
        other: "a number of battles ≥ 1 (default 1000000)",
        phrase: "games stop (as capped) after {} battle{s}",
        read: |o, v| {
            o.safety_cap = parse_none_or(v, 1)?;
            Some(())
        },
        write: |o| Some(none_or(o.safety_cap)),
    },
];

/// `every!(T)`: every value's name of the [`Choice`] `T`, in its order, as a `&'static` slice.
macro_rules! every {
    ($t:ty) => {
        &names::<{ <$t as Choice>::NAMED.len() }>(<$t as Choice>::NAMED)
    };
}

/// The names of `named`, which holds `N` values.
const fn names<const N: usize>(named: &'static [Named]) -> [&'static str; N] {
    assert!(named.len() == N);
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = named[i].name;
        i += 1;
    }
    out
}

/// Values to draw rule sets from, option by option: the options that change how a game is
/// played, every value of those whose values have names, and for the others the values the
/// bundled experiments and the sources use (2 players listed twice, as the most played; decks
/// by `ranks`/`suits`, `low_rank` and the safety cap left at their defaults).
/// `warlab bench --combos` draws the rule sets it measures from them, and the property tests
/// theirs (with a few odd values of their own). Not every draw is a valid rule set:
/// `on_empty` goes only with two piles, `hand_policy` only with hands, and [`Rules::new`]
/// refuses what else does not fit together.
///
/// [`Rules::new`]: crate::Rules::new
pub const SAMPLE_VALUES: &[(&str, &[&str])] = &[
    ("players", &["2", "2", "3", "4"]),
    ("pickup", every!(Pickup)),
    ("short_war", every!(ShortWar)),
    ("chained_war", every!(ChainedWar)),
    (
        "war_down",
        &["0", "1", "2", "3", "by-rank", "J=1,Q=2,K=3,A=4"],
    ),
    ("pile", every!(Pile)),
    ("on_empty", every!(OnEmpty)),
    ("ranking", every!(Ranking)),
    // A custom deck needs `ranks` and `suits`.
    ("deck", &["standard52", "piquet36", "jokers54"]),
    ("decks", &["1", "2"]),
    ("prize", &["false", "true"]),
    ("war_cause_to_loser", &["false", "true"]),
    ("hand", &["0", "3"]),
    ("hand_policy", every!(Policy)),
    ("speed", &["none", "0.1"]),
    ("battle_limit", &["none", "500"]),
    ("target_cards", &["none", "40"]),
    ("min_cards", &["none", "5"]),
    ("wars_to_win", &["none", "3"]),
];

/// `by-rank`, a number 0..=64, or `rank=count` pairs with counts 0..=64.
fn read_war_down(v: &str) -> Option<WarDown> {
    if v == "by-rank" {
        return Some(WarDown::ByRank);
    }
    if let Ok(n) = v.parse::<u8>() {
        return (n <= 64).then_some(WarDown::Fixed(n));
    }
    if !v.contains('=') {
        return None;
    }
    let mut table = Vec::new();
    for pair in v.split(',') {
        let (rank, count) = pair.split_once('=')?;
        let count = count.trim().parse::<u32>().ok().filter(|c| *c <= 64)?;
        table.push((rank.trim().to_ascii_uppercase(), count));
    }
    Some(WarDown::Table(table))
}

impl RuleOptions {
    /// Sets one option from its text form, e.g. `set("pickup", "seat")`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionError> {
        spec::set(OPTIONS, "rule", self, key, value)
    }

    /// Every option as `(name, value)` text, in the order of docs/rules.md; `set` reads each back.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        spec::pairs(OPTIONS, self)
    }
}
