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
use crate::rules::{OnEmpty, Pickup, Rules};
use crate::seats::Seats;
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally, bit, most_cards};

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
    match r.players {
        2 => run_with::<2>(r, t, s, saves, tally, rng),
        3 => run_with::<3>(r, t, s, saves, tally, rng),
        _ => run_with::<4>(r, t, s, saves, tally, rng),
    }
}

fn run_with<const N: usize>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    tally: Tally,
    rng: &mut GameRng,
) -> GameRecord {
    let cap = r.safety_cap.unwrap_or(u64::MAX);
    let mut tally = tally;
    if !r.detects_cycles() {
        loop {
            if let Some((end, w)) = battle::<N>(r, t, s, &mut tally, rng) {
                return tally.record(end, w, None);
            }
            if tally.battles >= cap {
                return tally.record(EndReason::Capped, None, None);
            }
        }
    }
    let mut step = |s: &mut Seats, tally: &mut Tally, _: bool| battle::<N>(r, t, s, tally, rng);
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
        match r.players {
            2 => battle::<2>(r, t, s, tally, rng),
            3 => battle::<3>(r, t, s, tally, rng),
            _ => battle::<4>(r, t, s, tally, rng),
        }
    } else {
        general::battle(r, t, s, tally, rng, &mut Quiet)
    }
}

/// Whether every battle's opening is one card per seat from the top of its stack.
fn plain(r: &Rules) -> bool {
    !r.prize && r.speed.is_none() && r.hand == 0 && r.two_pile != Some(OnEmpty::Lose)
}

/// One battle under [`plain`] rules with `N` seats at the table.
#[inline]
fn battle<const N: usize>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    let in_game = s.in_game;
    // Seats in a fixed order of `N` steps rather than the bits of the mask.
    let playing = |p: usize| in_game & bit(p) != 0;
    if (0..N).any(|p| playing(p) && s.l[p] == 0) {
        // A won pile to turn over first.
        return general::battle(r, t, s, tally, rng, &mut Quiet);
    }
    // Every player still in turns up the top card of its stack.
    tally.battles += 1;
    tally.cards_turned += u64::from(in_game.count_ones());
    let mut up = [0u8; MAX_PLAYERS];
    for (p, card) in up.iter_mut().enumerate().take(N) {
        if playing(p) {
            *card = s.get(p, s.h[p]);
            s.h[p] += 1;
            s.l[p] -= 1;
        }
    }
    let best = r.best_of(in_game, &up);
    if best.count_ones() != 1 {
        t.clear();
        for p in (0..N).filter(|&p| playing(p)) {
            t.pots[p].push(up[p]);
        }
        return general::contest(r, t, s, tally, rng, &mut Quiet, in_game, &mut up, 0);
    }
    let winner = best.trailing_zeros() as usize;
    // The pick-up of one card per player: `order_pickup` on pots of one card.
    let mut cards = [0u8; MAX_PLAYERS];
    let mut k = 0;
    let mut put = |c: u8| {
        cards[k] = c;
        k += 1;
    };
    let others = (0..N).filter(|&p| p != winner && playing(p));
    match r.pickup {
        Pickup::WinnerFirst | Pickup::Played => {
            put(up[winner]);
            others.for_each(|p| put(up[p]));
        }
        Pickup::LoserFirst => {
            others.for_each(|p| put(up[p]));
            put(up[winner]);
        }
        _ => (0..N).filter(|&p| playing(p)).for_each(|p| put(up[p])),
    }
    let cards = &mut cards[..k];
    match r.pickup {
        Pickup::Shuffled => rng.shuffle(cards),
        Pickup::RankAsc => cards.sort_unstable(),
        Pickup::RankDesc => cards.sort_unstable_by(|a, b| b.cmp(a)),
        _ => {}
    }
    s.give(r, winner, cards);
    // Nobody forfeited: a player is out only if it has no card left.
    let mut totals = [0usize; MAX_PLAYERS];
    for (p, total) in totals.iter_mut().enumerate().take(N) {
        *total = s.l[p] + s.m[p];
    }
    let out = (0..N).any(|p| playing(p) && totals[p] == 0);
    if out || r.target_cards.is_some() || r.min_cards.is_some() || r.battle_limit.is_some() {
        return general::after(r, s, tally, winner, 0, 0);
    }
    tally.note_leader(most_cards((1 << N) - 1, |p| totals[p]).map(usize::from));
    None
}
