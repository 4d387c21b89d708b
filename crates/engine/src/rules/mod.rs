//! Rule options (by their names in docs/rules.md) and the validated [`Rules`] the engine plays.
//!
//! [`RuleOptions`] is what a user wrote: every option, by name, with its default. It is filled
//! from `name = value` text by [`RuleOptions::set`], which is the one parser behind the command
//! line (`--rule pickup=seat`) and the experiment files, so the two cannot disagree.
//! [`Rules::new`] checks the options against each other and compiles them into the tables the
//! hot loop uses; a `Rules` value is always playable.

mod decide;
mod options;
mod pots;

use std::fmt;

use crate::cards::{CardSet, DeckKind};

pub(crate) use decide::{Stake, choose_ordered, pick, pick_of, policy, policy_code, policy_of};
pub use options::{
    ChainedWar, DEFAULT_SAFETY_CAP, Deck, OPTIONS, OnEmpty, Pickup, Pile, Policy, Ranking,
    RuleOptions, SAMPLE_VALUES, ShortWar, WarDown,
};

/// Options that do not fit together, or do not fit the deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError {
    /// The options involved, by name.
    pub options: Vec<&'static str>,
    /// What is wrong, in words.
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
    /// `beats[a * values + b]`: a beats b. Neither beating the other is a tie. With at most
    /// 64 values, `beaten_by[b]` has bit `a` set where a beats b (for every byte `b`), so that
    /// a table of seats is decided by one lookup a seat.
    Table {
        values: usize,
        beats: Vec<bool>,
        beaten_by: Option<Box<[u64; 256]>>,
    },
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
    pub(crate) strength: Box<[u16; 256]>,
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
        let deck = match (o.deck, o.ranks, o.suits) {
            (Deck::Custom, Some(ranks), suits) => DeckKind::Custom {
                ranks,
                suits: suits.unwrap_or(4),
            },
            (Deck::Custom, None, _) => {
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
            (Deck::Standard52, None, None) => DeckKind::Standard52,
            (Deck::Piquet36, None, None) => DeckKind::Piquet36,
            (Deck::Jokers54, None, None) => DeckKind::Jokers54,
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
            Ranking::LowWins => {
                // Jokers beat every card under every ranking: only the ranks below them turn.
                let ranks = specs.iter().filter(|s| s.label != "JK").count();
                order[..ranks].reverse();
            }
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
                let beaten_by = (values <= 64).then(|| {
                    let mut by = Box::new([0u64; 256]);
                    for (b, mask) in by.iter_mut().enumerate().take(values) {
                        *mask =
                            (0..values).fold(0, |m, a| m | u64::from(beats[a * values + b]) << a);
                    }
                    by
                });
                Compare::Table {
                    values,
                    beats,
                    beaten_by,
                }
            }
        };
        // A key for every byte a card can be, so that a lookup needs no bounds check.
        let mut strength = Box::new([0u16; 256]);
        for (a, key) in strength.iter_mut().enumerate().take(values) {
            *key = match &compare {
                Compare::Ordered => a as u16,
                Compare::Table { values, beats, .. } => {
                    let wins = (0..*values).filter(|&b| beats[a * values + b]).count() as u16;
                    wins * 256 + a as u16
                }
            };
        }
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

    /// The options as the user wrote them.
    pub fn options(&self) -> &RuleOptions {
        &self.options
    }

    /// The deck: its cards, values and labels.
    pub fn cards(&self) -> &CardSet {
        &self.cards
    }

    /// Seats at the table.
    pub fn players(&self) -> usize {
        self.players
    }

    /// The rules of a game of 3–4 players once only two seats are left in it: the same rules
    /// for two players. Nothing in a battle depends on the seats that are out, so the rest of
    /// the game is a 2-player game from that position (the engine hands it to the two-seat
    /// loops). These rules are never dealt from: `per_player` keeps the original deal's, so
    /// `cards_per_player` and `cards_in_play` do not describe the game (the two-seat loops
    /// count the cards the seats hold).
    pub(crate) fn last_two(&self) -> Option<Rules> {
        (self.players > 2).then(|| {
            let mut r = self.clone();
            r.players = 2;
            r.options.players = 2;
            r
        })
    }

    /// Cards dealt to each player (the rest of the deck is set aside).
    pub fn cards_per_player(&self) -> usize {
        self.per_player
    }

    /// Whether a won pile is shuffled before it becomes the stack (`pile = two-pile`,
    /// `on_empty = shuffle`).
    pub fn shuffles_won_piles(&self) -> bool {
        self.two_pile == Some(OnEmpty::Shuffle)
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

    /// Battles after which a game that has not ended stops as capped (`None`: no cap).
    pub fn safety_cap(&self) -> Option<u64> {
        self.safety_cap
    }

    /// The battle count at which a game stops if nothing else ends it: the battle limit or
    /// the safety cap.
    pub(crate) fn battle_cap(&self) -> u64 {
        self.safety_cap
            .unwrap_or(u64::MAX)
            .min(self.battle_limit.unwrap_or(u64::MAX))
    }
}

impl fmt::Display for Rules {
    /// `name=value` for every option that differs from the classic default, separated by
    /// spaces (`pickup=seat war_down=J=1,Q=2 hand_policy=highest,lowest`), or `classic`;
    /// `str::parse` reads it back. Values hold `,` and `=` (war-size tables, policy lists), so
    /// pairs are not joined by either; no value of a valid rule set holds a space (numbers,
    /// words, rank labels).
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
            write!(f, "{}", diff.join(" "))
        }
    }
}

impl std::str::FromStr for Rules {
    type Err = Box<dyn std::error::Error + Send + Sync>;

    /// Reads what `Display` writes: `classic`, or `name=value` pairs separated by spaces, over
    /// the classic defaults, validated.
    fn from_str(text: &str) -> Result<Rules, Self::Err> {
        if text.trim() == "classic" {
            return Ok(Rules::classic());
        }
        let pairs = text
            .split_whitespace()
            .map(|pair| {
                pair.split_once('=').ok_or_else(|| {
                    format!("`{pair}` has no `=value`: rules are written `name=value name=value`")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Rules::from_pairs(pairs)
    }
}
