//! The table loop: every rule set the two-seat loop does not play (3–4 players; prize, speed,
//! hands), on the compact [`Seats`] layout.
//!
//! A plain battle (no prize, no speed grab, no hand, every seat turning up the top card of its
//! stack) is played here in a few steps: the face-up cards straight from the rings, the best
//! card, the pick-up. A tie goes on in the general loop's [`contest`](general::contest) from
//! there; every other battle is the general [`battle`](general::battle) on the same seats.

use crate::cycle::{self, Saves};
use crate::general;
use crate::observe::Quiet;
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{OnEmpty, Rules};
use crate::seats::Seats;
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally, seats};

/// Plays a dealt game to its end, as [`general::run`] does.
pub(crate) fn run(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    tally: Tally,
    rng: &mut GameRng,
) -> GameRecord {
    if !plain(r) {
        return general::run(r, t, s, saves, tally, rng, &mut Quiet);
    }
    let cap = r.safety_cap.unwrap_or(u64::MAX);
    let mut tally = tally;
    if !r.detects_cycles() {
        loop {
            if let Some((end, w)) = battle(r, t, s, &mut tally, rng) {
                return tally.record(end, w, None);
            }
            if tally.battles >= cap {
                return tally.record(EndReason::Capped, None, None);
            }
        }
    }
    let mut step = |s: &mut Seats, tally: &mut Tally, _: bool| battle(r, t, s, tally, rng);
    cycle::brent(s, saves, tally, cap, &mut step)
}

/// One battle of any rule set on the seats: [`battle`] where the rules are plain, the general
/// battle otherwise. The two-seat loop replays with it to find a loop's start.
#[inline]
pub(crate) fn step(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    if plain(r) {
        battle(r, t, s, tally, rng)
    } else {
        general::battle(r, t, s, tally, rng, &mut Quiet)
    }
}

/// Whether every battle's opening is one card per seat from the top of its stack.
fn plain(r: &Rules) -> bool {
    !r.prize && r.speed.is_none() && r.hand == 0 && r.two_pile != Some(OnEmpty::Lose)
}

/// One battle under [`plain`] rules.
#[inline]
fn battle(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    let in_game = s.in_game;
    if seats(in_game).any(|p| s.l[p] == 0) {
        // A won pile to turn over first.
        return general::battle(r, t, s, tally, rng, &mut Quiet);
    }
    tally.battles += 1;
    tally.cards_turned += u64::from(in_game.count_ones());
    let mut up = [0u8; MAX_PLAYERS];
    for p in seats(in_game) {
        up[p] = s.get(p, s.h[p]);
        s.h[p] += 1;
        s.l[p] -= 1;
    }
    let best = r.best_of(in_game, &up);
    if best.count_ones() != 1 {
        t.clear();
        for p in seats(in_game) {
            t.pots[p].push(up[p]);
        }
        return general::contest(r, t, s, tally, rng, &mut Quiet, in_game, &mut up, 0);
    }
    let winner = best.trailing_zeros() as usize;
    let mut pots: [&[u8]; MAX_PLAYERS] = [&[]; MAX_PLAYERS];
    for p in seats(in_game) {
        pots[p] = std::slice::from_ref(&up[p]);
    }
    r.order_pickup(winner, &pots[..r.players], &mut t.order, rng);
    s.give(r, winner, &t.order);
    general::after(r, s, tally, winner, 0, 0)
}
