//! Exact loop detection for deterministic rules: Brent's algorithm on the complete position,
//! then the loop's start by replaying from the deal.
//!
//! Any loop can use it: the general loop on its [`State`](crate::state::State), the specialised
//! loops on their [`Seats`](crate::seats::Seats). A loop that checks for repeats in its own way
//! (the two-seat loop keeps its positions in registers) finds the period itself and hands it to
//! [`finish_loop`].

use crate::record::{Cycle, EndReason, GameRecord};
use crate::state::{End, Tally};

/// The battles before the specialised loops' first Brent save (then twice as many each time;
/// [`brent`], the reference, starts at one). Every save copies every card, and a loop is found
/// with its exact start and period whatever the powers, since the replay of [`finish_loop`]
/// finds them (the powers only move when it is found, earlier or later).
pub(crate) const FIRST_LOOK: u64 = 32;

/// A position of a game that can be saved and compared exactly.
pub(crate) trait Position {
    /// Exact equality of everything that can change how the game goes on.
    fn same(&self, other: &Self) -> bool;
    fn copy_from(&mut self, other: &Self);
}

/// The positions Brent's algorithm and the replay keep, allocated once per engine.
#[derive(Clone)]
pub(crate) struct Saves<P> {
    pub initial: P,
    pub tortoise: P,
    pub replay: P,
}

impl<P: Clone> Saves<P> {
    pub fn new(p: &P) -> Saves<P> {
        Saves {
            initial: p.clone(),
            tortoise: p.clone(),
            replay: p.clone(),
        }
    }
}

/// One battle from a position: `Some` when the game ended. `observed` is true on the first pass
/// (an observer sees it) and false on the replay that finds the loop's start.
pub(crate) trait Step<P> {
    fn step(&mut self, p: &mut P, tally: &mut Tally, observed: bool) -> Option<End>;
}

impl<P, F: FnMut(&mut P, &mut Tally, bool) -> Option<End>> Step<P> for F {
    #[inline(always)]
    fn step(&mut self, p: &mut P, tally: &mut Tally, observed: bool) -> Option<End> {
        self(p, tally, observed)
    }
}

/// Plays a game from `live` to its end with `step`: Brent's loop detection where `cycles`
/// (deterministic rules without a limit), otherwise battle after battle up to the safety cap.
pub(crate) fn play_out<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    tally: Tally,
    cap: u64,
    cycles: bool,
    step: &mut impl Step<P>,
) -> GameRecord {
    let never = |_: &P, _: &Tally| false;
    match play_until(live, saves, tally, cap, cycles, step, never) {
        Ok(record) => record,
        Err(_) => unreachable!("`never` hands nothing over"),
    }
}

/// [`play_out`], except that it stops before the first battle from a position where
/// `hand_off` says so, and hands back the tally (the position is `live`). A loop cannot run
/// through such a moment where it is one that never comes back (only two seats left), so
/// Brent's detection can stop there: the loop, if any, is found from there on.
pub(crate) fn play_until<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    mut tally: Tally,
    cap: u64,
    cycles: bool,
    step: &mut impl Step<P>,
    hand_off: impl Fn(&P, &Tally) -> bool,
) -> Result<GameRecord, Tally> {
    if cycles {
        return brent(live, saves, tally, cap, step, hand_off);
    }
    loop {
        if hand_off(live, &tally) {
            return Err(tally);
        }
        if let Some((end, w)) = step.step(live, &mut tally, true) {
            return Ok(tally.record(end, w, None));
        }
        if tally.battles >= cap {
            return Ok(tally.record(EndReason::Capped, None, None));
        }
    }
}

/// Plays from `live` (the tally holding what came before) until the game ends, the safety cap
/// `cap` is reached, or a position repeats (or `hand_off` stops it, as in [`play_until`]).
/// Brent: the tortoise jumps to the hare at every power of two; the first time they meet, the
/// battles since the jump are the period.
pub(crate) fn brent<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    mut tally: Tally,
    cap: u64,
    step: &mut impl Step<P>,
    hand_off: impl Fn(&P, &Tally) -> bool,
) -> Result<GameRecord, Tally> {
    let start = tally;
    saves.initial.copy_from(live);
    saves.tortoise.copy_from(live);
    let (mut power, mut lam) = (1u64, 0u64);
    loop {
        if hand_off(live, &tally) {
            return Err(tally);
        }
        if let Some((end, w)) = step.step(live, &mut tally, true) {
            return Ok(tally.record(end, w, None));
        }
        lam += 1;
        if live.same(&saves.tortoise) {
            return Ok(finish_loop(live, saves, start, lam, step));
        }
        if tally.battles >= cap {
            let capped = tally.record(EndReason::Capped, None, None);
            return Ok(past_cap(live, saves, start, capped, step));
        }
        if power == lam {
            saves.tortoise.copy_from(live);
            power *= 2;
            lam = 0;
        }
    }
}

/// The record of a game that loops with period `lam` from `saves.initial` (where the tally was
/// `start`): replay from there, one copy `lam` battles ahead; they first meet at the loop's
/// start. The copy ahead has then played exactly start + period battles: its counts are the
/// game's. Replayed battles cannot end the game: the first pass went past them.
pub(crate) fn finish_loop<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    start: Tally,
    lam: u64,
    step: &mut impl Step<P>,
) -> GameRecord {
    live.copy_from(&saves.initial);
    saves.replay.copy_from(&saves.initial);
    let mut ahead = start;
    let mut behind = start;
    for _ in 0..lam {
        step.step(live, &mut ahead, false);
    }
    let mut mu = 0u64;
    while !live.same(&saves.replay) {
        step.step(live, &mut ahead, false);
        step.step(&mut saves.replay, &mut behind, false);
        mu += 1;
    }
    ahead.record(
        EndReason::Cycle,
        None,
        Some(Cycle {
            start: mu + start.battles,
            period: lam,
        }),
    )
}

/// A game reached the safety cap (`capped` is its record there) without a repeat found. Brent
/// finds a loop only some battles after the position first recurs, so it may have recurred
/// inside the cap all the same: then the position at the cap is on the loop and comes back
/// within `cap` battles. Play on (unobserved) until it does or that many battles pass; a
/// loop found this way is the game's end only when it first closed inside the cap.
pub(crate) fn past_cap<P: Position>(
    live: &mut P,
    saves: &mut Saves<P>,
    start: Tally,
    capped: GameRecord,
    step: &mut impl Step<P>,
) -> GameRecord {
    let cap = capped.battles;
    saves.tortoise.copy_from(live);
    let mut tally = start;
    for lam in 1..=cap - start.battles {
        if step.step(live, &mut tally, false).is_some() {
            return capped;
        }
        if live.same(&saves.tortoise) {
            let found = finish_loop(live, saves, start, lam, step);
            return match found.cycle {
                Some(c) if c.start + c.period <= cap => found,
                _ => capped,
            };
        }
    }
    capped
}
