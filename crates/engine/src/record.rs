//! What one game leaves behind.

use std::fmt;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndReason {
    /// One player holds every card in play (every other player ran out).
    AllCards,
    /// `battle_limit` reached: most cards wins, equal = draw.
    BattleLimit,
    /// A player won `wars_to_win` wars.
    WarsToWin,
    /// A player reached `target_cards`.
    Target,
    /// A player fell below `min_cards`.
    MinCards,
    /// The last elimination was a forfeit (`short_war = lose`, or `on_empty = lose`). Under
    /// `on_empty = lose` every remaining stack can run out at once: a forfeit with no winner.
    Forfeit,
    /// Every player in a war ran out at once: each took back their cards, the game is drawn.
    DrawInWar,
    /// Deterministic rules and the complete state repeated: the game never ends.
    Cycle,
    /// The safety cap on battles was hit (random rules): the game did not end.
    Capped,
}

impl EndReason {
    /// Every way a game ends, in the order of the data files' counts.
    pub const ALL: [EndReason; 9] = [
        EndReason::AllCards,
        EndReason::BattleLimit,
        EndReason::WarsToWin,
        EndReason::Target,
        EndReason::MinCards,
        EndReason::Forfeit,
        EndReason::DrawInWar,
        EndReason::Cycle,
        EndReason::Capped,
    ];

    /// The name the data files use (`all_cards`, `cycle`, …).
    pub fn name(self) -> &'static str {
        match self {
            EndReason::AllCards => "all_cards",
            EndReason::BattleLimit => "battle_limit",
            EndReason::WarsToWin => "wars_to_win",
            EndReason::Target => "target",
            EndReason::MinCards => "min_cards",
            EndReason::Forfeit => "forfeit",
            EndReason::DrawInWar => "draw_in_war",
            EndReason::Cycle => "cycle",
            EndReason::Capped => "capped",
        }
    }

    /// True when the game reached a real end (it did not loop or hit the cap).
    pub fn finished(self) -> bool {
        !matches!(self, EndReason::Cycle | EndReason::Capped)
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A detected loop: the state after `start` battles recurs every `period` battles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cycle {
    /// Battles before the loop: the state after them recurs.
    pub start: u64,
    /// Battles of one turn of the loop.
    pub period: u64,
}

/// One game's statistics. For a cycle, the counts cover the first `start + period` battles
/// (up to the first repeated state).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameRecord {
    /// Battles played; a war, however deep, is one battle.
    pub battles: u64,
    /// Ties: every tie is a war, chained ones counted one by one.
    pub wars: u64,
    /// The most ties chained in one battle (0: no war at all).
    pub deepest_war: u32,
    /// Every card put on the table: face-up, face-down and prize cards.
    pub cards_turned: u64,
    /// How often the strict leader (most cards) changed.
    pub lead_changes: u64,
    /// The winning seat, `None` for a draw, a cycle or a capped game.
    pub winner: Option<u8>,
    /// How the game ended.
    pub end: EndReason,
    /// The loop, for a game that ended in one.
    pub cycle: Option<Cycle>,
}
