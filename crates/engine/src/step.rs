//! One battle at a time, from any position: the hook of the exact solver (`warlab-exact`).
//!
//! A [`Battler`] plays exactly the engine's battle ([`crate::general::battle`], the reference
//! every loop is tested against) from a [`Position`] and hands back the position after it, or
//! how the game ended. The random draws come from any [`Draws`]: a scripted
//! source can force each draw's outcome and so enumerate every outcome of a battle with its
//! probability. Nothing here is a second implementation of the rules: the deal is the
//! engine's (cards dealt one at a time, hands filled as a game starts) and the battle is the
//! general loop's.

use crate::deal::Deal;
use crate::observe::Quiet;
use crate::record::EndReason;
use crate::rng::Draws;
use crate::rules::Rules;
use crate::state::{MAX_PLAYERS, Scratch, State, Tally};

/// Everything that decides how a game goes on between two battles: each seat's stack, won
/// pile and hand, who is still in the game and, under `wars_to_win`, the wars each seat won.
/// Two games in equal positions go on alike (this is what cycle detection compares).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// Each seat's stack, top card first.
    pub stacks: Vec<Vec<u8>>,
    /// Each seat's won pile, in the order it is picked up (empty with one pile).
    pub piles: Vec<Vec<u8>>,
    /// Each seat's hand, slot by slot (empty without `hand`).
    pub hands: Vec<Vec<u8>>,
    /// Seats still in the game, as a bit mask (bit `p` for seat `p`).
    pub in_game: u8,
    /// Wars won by each seat: counted only under `wars_to_win` (zero otherwise).
    pub wars_won: Vec<u32>,
}

/// How a game ended: the reason and the winner (`None` for a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ending {
    /// Why the game ended.
    pub reason: EndReason,
    /// The winning seat, or `None` for a draw.
    pub winner: Option<u8>,
}

/// What one battle did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    /// The game goes on from the position written out.
    Next,
    /// The game ended, after `battles` battles in all (the battles before this call, plus
    /// one if a battle was played: under `on_empty = lose` a game can end before it).
    Ended {
        /// How it ended.
        ending: Ending,
        /// The game's length in battles.
        battles: u64,
    },
}

/// Plays single battles of one rule set from given positions (buffers allocated once).
pub struct Battler {
    rules: Rules,
    st: State,
    scratch: Scratch,
}

impl Battler {
    /// A battler for `rules`.
    pub fn new(rules: &Rules) -> Battler {
        Battler {
            rules: rules.clone(),
            st: State::new(rules),
            scratch: Scratch::new(rules),
        }
    }

    /// The rules played.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The position a game starts from after the deck, in `order` (top first, every card of
    /// the deck), is dealt as [`Engine::play`](crate::Engine::play) deals a shuffled deck:
    /// card `i` to seat `i mod players`, the cards past the last full round set aside. `Err`
    /// when the game is over before its first battle (one seat or none holds cards).
    pub fn deal_order(&mut self, order: &[u8]) -> Result<Position, Ending> {
        let r = &self.rules;
        assert_eq!(order.len(), r.cards.total(), "every card of the deck");
        self.st.clear();
        let np = r.players;
        let dealt = &order[..r.per_player * np];
        for p in 0..np {
            self.st.stacks[p].extend_strided(dealt, p, np);
        }
        self.start()
    }

    /// The position a game starts from with an explicit deal, as
    /// [`Engine::play_deal`](crate::Engine::play_deal) starts it. `Err` when the game is over
    /// before its first battle.
    pub fn deal(&mut self, deal: &Deal) -> Result<Position, Ending> {
        assert_eq!(
            deal.stacks.len(),
            self.rules.players,
            "deal checked against these rules"
        );
        self.st.clear();
        for (p, s) in deal.stacks.iter().enumerate() {
            self.st.stacks[p].extend(s);
        }
        self.start()
    }

    /// Hands filled, seats in the game: what the engine does as a game starts.
    fn start(&mut self) -> Result<Position, Ending> {
        let in_game = self.st.deal_in(&self.rules);
        if in_game.count_ones() <= 1 {
            let winner = (in_game != 0).then(|| in_game.trailing_zeros() as u8);
            return Err(Ending {
                reason: EndReason::AllCards,
                winner,
            });
        }
        let mut pos = Position::default();
        self.save(&mut pos);
        Ok(pos)
    }

    /// Plays the battle number `battles + 1` of a game in position `from` (`battles` battles
    /// played so far: only `battle_limit` looks at the count), drawing from `draws`. On
    /// [`Played::Next`] the position after it is in `to`.
    pub fn battle<D: Draws>(
        &mut self,
        from: &Position,
        battles: u64,
        draws: &mut D,
        to: &mut Position,
    ) -> Played {
        self.load(from);
        let mut tally = Tally {
            battles,
            ..Tally::default()
        };
        let end = crate::general::battle(
            &self.rules,
            &mut self.scratch,
            &mut self.st,
            &mut tally,
            draws,
            &mut Quiet,
        );
        match end {
            Some((reason, winner)) => Played::Ended {
                ending: Ending { reason, winner },
                battles: tally.battles,
            },
            None => {
                self.save(to);
                Played::Next
            }
        }
    }

    fn load(&mut self, pos: &Position) {
        let st = &mut self.st;
        st.clear();
        for p in 0..self.rules.players {
            st.stacks[p].extend(&pos.stacks[p]);
            if let Some(pile) = pos.piles.get(p) {
                st.piles[p].extend(pile);
            }
            if let Some(hand) = pos.hands.get(p) {
                st.hands[p][..hand.len()].copy_from_slice(hand);
                st.hand_len[p] = hand.len() as u8;
            }
            if let Some(&w) = pos.wars_won.get(p) {
                st.wars_won[p] = w;
            }
        }
        st.in_game = pos.in_game;
    }

    fn save(&self, pos: &mut Position) {
        let st = &self.st;
        let np = self.rules.players;
        pos.stacks.resize_with(np, Vec::new);
        pos.piles.resize_with(np, Vec::new);
        pos.hands.resize_with(np, Vec::new);
        pos.wars_won.resize(np, 0);
        for p in 0..np {
            pos.stacks[p].clear();
            pos.stacks[p].extend(st.stacks[p].iter());
            pos.piles[p].clear();
            pos.piles[p].extend(st.piles[p].iter());
            pos.hands[p].clear();
            pos.hands[p].extend_from_slice(&st.hands[p][..usize::from(st.hand_len[p])]);
            pos.wars_won[p] = st.wars_won[p];
        }
        pos.in_game = st.in_game;
        debug_assert!(np <= MAX_PLAYERS);
    }
}

impl Position {
    /// Cards seat `p` holds (stack, won pile and hand).
    pub fn cards(&self, p: usize) -> usize {
        self.stacks.get(p).map_or(0, Vec::len)
            + self.piles.get(p).map_or(0, Vec::len)
            + self.hands.get(p).map_or(0, Vec::len)
    }

    /// Cards held by every seat together (the cards in play).
    pub fn total(&self) -> usize {
        (0..self.stacks.len()).map(|p| self.cards(p)).sum()
    }
}
