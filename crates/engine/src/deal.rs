//! Explicit deals: each player's stack written out, or a whole deck order dealt normally.

use crate::rules::Rules;
use std::fmt;

/// Each player's stack, top card first, as card values of a rule set's deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    pub(crate) stacks: Vec<Vec<u8>>,
}

/// A deal that cannot be read, or does not fit the rules; the text says why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DealError(pub String);

impl fmt::Display for DealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad deal: {}", self.0)
    }
}

impl std::error::Error for DealError {}

impl Deal {
    /// Reads one stack per player, separated by `/` or `|` or new lines, top card first:
    /// `"QS 8C AD / 9H 8D KC"`. Cards are `QS`, `10H`, `JK` (suits optional, ignored by the
    /// game) or rank numbers for custom decks. A deal may use fewer cards than the deck has.
    pub fn parse(rules: &Rules, text: &str) -> Result<Deal, DealError> {
        check_text(rules, text)?;
        let parts: Vec<&str> = text
            .split(['/', '|', '\n'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if parts.len() != rules.players() {
            return Err(DealError(format!(
                "{} stacks given for {} players (separate stacks with `/`)",
                parts.len(),
                rules.players()
            )));
        }
        let stacks = parts
            .iter()
            .map(|p| Self::cards(rules, p))
            .collect::<Result<Vec<_>, _>>()?;
        Self::check(rules, stacks)
    }

    /// Deals a full deck order (top first) the normal way: one card at a time, seat 0 first;
    /// the first card dealt is the top of seat 0's stack. Cards past the last full round are set
    /// aside.
    pub fn from_deck_order(rules: &Rules, text: &str) -> Result<Deal, DealError> {
        check_text(rules, text)?;
        let order = Self::cards(rules, text)?;
        if order.len() != rules.cards().total() {
            return Err(DealError(format!(
                "a deck order needs all {} cards of the deck; got {}",
                rules.cards().total(),
                order.len()
            )));
        }
        let np = rules.players();
        let mut stacks = vec![Vec::new(); np];
        for (i, &c) in order[..rules.cards_per_player() * np].iter().enumerate() {
            stacks[i % np].push(c);
        }
        Self::check(rules, stacks)
    }

    /// A deal from card values directly.
    pub fn from_values(rules: &Rules, stacks: Vec<Vec<u8>>) -> Result<Deal, DealError> {
        if stacks.len() != rules.players() {
            return Err(DealError(format!(
                "{} stacks for {} players",
                stacks.len(),
                rules.players()
            )));
        }
        Self::check(rules, stacks)
    }

    fn cards(rules: &Rules, text: &str) -> Result<Vec<u8>, DealError> {
        text.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(|t| rules.cards().parse_card(t).map_err(DealError))
            .collect()
    }

    fn check(rules: &Rules, stacks: Vec<Vec<u8>>) -> Result<Deal, DealError> {
        let cards = rules.cards();
        let mut counts = vec![0u32; cards.values()];
        for &c in stacks.iter().flatten() {
            let Some(n) = counts.get_mut(usize::from(c)) else {
                return Err(DealError(format!("card value {c} is not in this deck")));
            };
            *n += 1;
            if *n > cards.copies[usize::from(c)] {
                return Err(DealError(format!(
                    "more `{}` cards than the deck's {}",
                    cards.label(c),
                    cards.copies[usize::from(c)]
                )));
            }
        }
        Ok(Deal { stacks })
    }

    /// Each seat's stack, top card first, as card values.
    pub fn stacks(&self) -> &[Vec<u8>] {
        &self.stacks
    }

    /// Cards in play.
    pub fn len(&self) -> usize {
        self.stacks.iter().map(Vec::len).sum()
    }

    /// True when no seat holds a card.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The deal written back as text that [`Deal::parse`] reads.
    pub fn to_text(&self, rules: &Rules) -> String {
        self.stacks
            .iter()
            .map(|s| {
                s.iter()
                    .map(|&c| rules.cards().label(c))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// What the deal's text says beyond the card values the engine keeps: no seat left empty
/// between `/` (or `|`) separators, and no card named with the same suit more often than the
/// deck holds it (`"AS AS / KS KD"` with one deck).
fn check_text(rules: &Rules, text: &str) -> Result<(), DealError> {
    if text.contains(['/', '|']) {
        for (i, seat) in text.split(['/', '|']).enumerate() {
            if seat.trim().is_empty() {
                return Err(DealError(format!(
                    "bad deal: seat {i} has no cards (an empty stack between separators in `{}`)",
                    text.trim()
                )));
            }
        }
    }
    let cards = rules.cards();
    let mut seen: std::collections::HashMap<(u8, char), u32> = std::collections::HashMap::new();
    for token in text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '/' | '|'))
        .filter(|t| !t.is_empty())
    {
        let upper = token.to_ascii_uppercase();
        let Some(suit) = upper
            .chars()
            .last()
            .filter(|c| matches!(c, 'S' | 'H' | 'D' | 'C'))
        else {
            continue;
        };
        let rank = &upper[..upper.len() - 1];
        if upper == "JK" || rank.is_empty() {
            continue;
        }
        // Only a token read as rank + suit counts; bad tokens are reported where they are read.
        let Ok(value) = cards.parse_card(rank) else {
            continue;
        };
        let per_suit = cards.copies[usize::from(value)] / 4;
        let n = seen.entry((value, suit)).or_default();
        *n += 1;
        if *n > per_suit {
            return Err(DealError(format!(
                "bad deal: `{token}` is dealt {} times; the deck holds {per_suit} of it",
                *n
            )));
        }
    }
    Ok(())
}
