//! Decks and card labels.
//!
//! A card in the engine is a `u8` *value*. Values are ordered by strength for every transitive
//! ranking (value 0 is the weakest), so the hot loop compares two bytes. Suits never matter in
//! War, so they are not stored: the deck is a multiset of values. Labels exist only to read and
//! print deals.

/// The shape of a deck, as the experiment asked for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeckKind {
    /// 2..10 J Q K A, four suits.
    Standard52,
    /// 6..10 J Q K A, four suits.
    Piquet36,
    /// The standard deck plus two jokers above the ace.
    Jokers54,
    /// Ranks numbered `1..=ranks`, `suits` cards of each rank.
    Custom {
        /// Ranks, 2..=250.
        ranks: u16,
        /// Cards of each rank, 1..=64.
        suits: u16,
    },
}

/// One rank of a deck before ranking: its label, the number `war_down = "by-rank"` uses, and
/// how many cards of it one deck has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RankSpec {
    pub label: String,
    pub number: u32,
    pub copies: u32,
    /// True for the ace of a French-suited deck (rankings that move the ace need one).
    pub is_ace: bool,
    pub is_joker: bool,
}

impl DeckKind {
    /// The ranks in natural ascending order (2 < … < A < joker).
    pub(crate) fn ranks(&self) -> Vec<RankSpec> {
        const FRENCH: [&str; 13] = [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
        ];
        let french = |from: usize| {
            FRENCH[from..]
                .iter()
                .enumerate()
                .map(|(i, l)| RankSpec {
                    label: (*l).to_string(),
                    number: (from + i + 2) as u32,
                    copies: 4,
                    is_ace: *l == "A",
                    is_joker: false,
                })
                .collect::<Vec<_>>()
        };
        match self {
            DeckKind::Standard52 => french(0),
            DeckKind::Piquet36 => french(4),
            DeckKind::Jokers54 => {
                let mut r = french(0);
                r.push(RankSpec {
                    label: "JK".into(),
                    number: 15,
                    copies: 2,
                    is_ace: false,
                    is_joker: true,
                });
                r
            }
            DeckKind::Custom { ranks, suits } => (1..=u32::from(*ranks))
                .map(|n| RankSpec {
                    label: n.to_string(),
                    number: n,
                    copies: u32::from(*suits),
                    is_ace: false,
                    is_joker: false,
                })
                .collect(),
        }
    }

    pub(crate) fn is_french(&self) -> bool {
        !matches!(self, DeckKind::Custom { .. })
    }
}

/// The deck after ranking: value `v` has label `labels[v]`, and the deck holds `copies[v]` cards
/// of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardSet {
    pub(crate) labels: Vec<String>,
    pub(crate) numbers: Vec<u32>,
    pub(crate) copies: Vec<u32>,
    pub(crate) french: bool,
}

impl CardSet {
    /// Number of distinct values.
    pub fn values(&self) -> usize {
        self.labels.len()
    }

    /// Total cards in the deck (all copies).
    pub fn total(&self) -> usize {
        self.copies.iter().map(|&c| c as usize).sum()
    }

    /// The label of a card value, e.g. `"Q"` or `"17"`.
    pub fn label(&self, value: u8) -> &str {
        &self.labels[value as usize]
    }

    /// Every card of the deck, in value order (the order a fresh deck is shuffled from).
    pub fn fresh_deck(&self) -> Vec<u8> {
        let mut deck = Vec::with_capacity(self.total());
        for (v, &c) in self.copies.iter().enumerate() {
            deck.extend(std::iter::repeat_n(v as u8, c as usize));
        }
        deck
    }

    /// Reads one card: `QS`, `10h`, `JK`, `9` (French decks: rank then an optional suit letter
    /// S H D C), or a plain rank number for custom decks.
    pub fn parse_card(&self, token: &str) -> Result<u8, String> {
        let t = token.trim();
        let upper = t.to_ascii_uppercase();
        let rank_part = if self.french && upper != "JK" && upper.len() >= 2 {
            match upper.as_bytes()[upper.len() - 1] {
                b'S' | b'H' | b'D' | b'C' => &upper[..upper.len() - 1],
                _ => upper.as_str(),
            }
        } else {
            upper.as_str()
        };
        let rank_part = match rank_part {
            "T" => "10",
            "JOKER" => "JK",
            other => other,
        };
        self.labels
            .iter()
            .position(|l| l == rank_part)
            .map(|v| v as u8)
            .ok_or_else(|| {
                format!(
                    "unknown card `{t}`; this deck's ranks are {}{}",
                    self.labels.join(" "),
                    if self.french {
                        " (each optionally followed by a suit S H D C)"
                    } else {
                        ""
                    }
                )
            })
    }
}
