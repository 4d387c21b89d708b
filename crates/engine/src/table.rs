//! The table loop: every rule set the two-seat loop does not play (3–4 players; hands; two
//! piles with a prize or speed), on the compact [`Seats`] layout.
//!
//! A battle whose opening is a prize (where the rules have one) and a face-up card from the top
//! of each stack, or a card from each hand, is played here in `N` fixed steps for `N` seats:
//! the cards straight from the rings, the speed grab, the best card, the pick-up, the lead; the
//! commonest table (one pile, no prize, speed or hands) runs as the [`ring`], battle after
//! battle in registers. A tie is a war on the rings ([`tie`]); short stacks, prizes with hands
//! and `on_empty = lose` are the general [`battle`](general::battle) on the same seats.

use crate::cycle::{self, Position, Saves};
use crate::general;
use crate::observe::Quiet;
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{OnEmpty, Pickup, Rules};
use crate::seats::Seats;
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally, bit};

/// `f::<N, PRIZE, HANDS>(args)` for the rules' number of players, prize and hands (a prize
/// with hands is not [`plain`]).
macro_rules! shaped {
    ($r:expr, $f:ident($($arg:expr),*)) => {
        match ($r.players, $r.prize, $r.hand > 0) {
            (2, false, false) => $f::<2, false, false>($($arg),*),
            (3, false, false) => $f::<3, false, false>($($arg),*),
            (_, false, false) => $f::<4, false, false>($($arg),*),
            (2, true, _) => $f::<2, true, false>($($arg),*),
            (3, true, _) => $f::<3, true, false>($($arg),*),
            (_, true, _) => $f::<4, true, false>($($arg),*),
            (2, false, true) => $f::<2, false, true>($($arg),*),
            (3, false, true) => $f::<3, false, true>($($arg),*),
            (_, false, true) => $f::<4, false, true>($($arg),*),
        }
    };
}

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
    shaped!(r, run_with(r, t, s, saves, tally, rng))
}

fn run_with<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    tally: Tally,
    rng: &mut GameRng,
) -> GameRecord {
    let cap = r.safety_cap.unwrap_or(u64::MAX);
    if !PRIZE && !HANDS && r.speed.is_none() && r.two_pile.is_none() {
        return ring::<N>(r, t, s, saves, tally, rng, cap);
    }
    let mut step = plain_step::<N, PRIZE, HANDS>(r, t, rng);
    cycle::play_out(s, saves, tally, cap, r.detects_cycles(), &mut step)
}

/// How the run of plain battles of [`ring`] stopped.
enum Stop {
    /// The face-up cards tie among the seats of the mask.
    Tie(u8, [u8; MAX_PLAYERS]),
    /// A player is out, or an ending that counts cards may have come: the general
    /// [`after`](general::after) decides, for the battle `winner` won.
    Check(usize),
    /// A look at the position after the battle: the safety cap, or a moment of Brent's loop
    /// detection (a position that may equal the saved one, or a save due).
    Look,
}

/// [`run_with`] for the commonest table: a face-up card from each stack, one pile. Heads,
/// stack lengths and the counts live in local variables, and a battle carries no dependency
/// through memory, as in the two-seat loop; wars and endings go to the [`battle`]'s own [`tie`]
/// and [`general::after`]. Loops are found as [`cycle::brent`] finds them, with the stack
/// lengths as a quick first test.
fn ring<const N: usize>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    mut tally: Tally,
    rng: &mut GameRng,
    cap: u64,
) -> GameRecord {
    let counted = counts_cards(r);
    let cycles = r.detects_cycles();
    let start = tally;
    if cycles {
        saves.initial.copy_from(s);
        saves.tortoise.copy_from(s);
    }
    let (mut power, mut lam) = (1u64, 0u64);
    let mut tort_l = s.l;
    loop {
        let in_game = s.in_game;
        let live = |p: usize| usize::from(in_game & bit(p) != 0);
        let seated = u64::from(in_game.count_ones());
        let (mut h, mut l) = (s.h, s.l);
        let (mut battles, mut turned) = (tally.battles, tally.cards_turned);
        // The leader as a seat number, `NONE` for none yet.
        const NONE: u8 = u8::MAX;
        let mut leader = tally.leader.unwrap_or(NONE);
        let mut changes = tally.lead_changes;
        let stop = loop {
            battles += 1;
            turned += seated;
            // A seat that is out reads a card it does not own, and does not move.
            let mut ups = 0u32;
            for p in 0..N {
                ups |= u32::from(s.get(p, h[p])) << (8 * p);
                h[p] += live(p);
                l[p] -= live(p);
            }
            let up = ups.to_le_bytes();
            let best = r.best_of_first::<N>(in_game, &up);
            if best.count_ones() != 1 {
                break Stop::Tie(best, up);
            }
            let winner = best.trailing_zeros() as usize;
            let (cards, k) = pickup::<N, false>(r, rng, winner, in_game, &[0; MAX_PLAYERS], &up);
            // The winner's stack picked out and grown without indexing by the winner: the
            // heads and lengths then stay in registers.
            let held = (0..N).fold(0, |x, p| if p == winner { l[p] } else { x });
            let head = (0..N).fold(0, |x, p| if p == winner { h[p] } else { x });
            s.put_few(winner, head + held, held, cards, k);
            for (p, len) in l.iter_mut().enumerate().take(N) {
                *len += k * usize::from(p == winner);
            }
            // One pile: a seat's stack is all its cards.
            if someone_out::<N>(in_game, &l) || counted {
                break Stop::Check(winner);
            }
            // `Tally::note_leader`, on the counts in registers.
            if let Some(now) = leader_of::<N>(&l) {
                changes += u64::from(leader != NONE && leader != now);
                leader = now;
            }
            if cycles {
                lam += 1;
                if l == tort_l || lam == power {
                    break Stop::Look;
                }
            }
            if battles >= cap {
                break Stop::Look;
            }
        };
        (s.h, s.l) = (h, l);
        tally.battles = battles;
        tally.cards_turned = turned;
        tally.leader = (leader != NONE).then_some(leader);
        tally.lead_changes = changes;
        let end = match stop {
            Stop::Tie(tied, up) => tie::<N, false, false>(
                r,
                t,
                s,
                &mut tally,
                rng,
                in_game,
                tied,
                [0; MAX_PLAYERS],
                up,
            ),
            Stop::Check(winner) => general::after(r, s, &mut tally, winner, 0, 0),
            Stop::Look => None,
        };
        if let Some((end, winner)) = end {
            return tally.record(end, winner, None);
        }
        // Brent's step after the battle, as `cycle::brent` takes it (the run of plain battles
        // counted its own).
        if cycles {
            if !matches!(stop, Stop::Look) {
                lam += 1;
            }
            if s.same(&saves.tortoise) {
                let mut step = plain_step::<N, false, false>(r, t, rng);
                return cycle::finish_loop(s, saves, start, lam, &mut step);
            }
        }
        if tally.battles >= cap {
            let capped = tally.record(EndReason::Capped, None, None);
            if cycles {
                let mut step = plain_step::<N, false, false>(r, t, rng);
                return cycle::past_cap(s, saves, start, capped, &mut step);
            }
            return capped;
        }
        if cycles && power == lam {
            saves.tortoise.copy_from(s);
            tort_l = s.l;
            power *= 2;
            lam = 0;
        }
    }
}

/// [`battle`] as the step that [`cycle`] plays (and replays) battle by battle.
fn plain_step<'a, const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &'a Rules,
    t: &'a mut Scratch,
    rng: &'a mut GameRng,
) -> impl FnMut(&mut Seats, &mut Tally, bool) -> Option<End> + 'a {
    move |s: &mut Seats, tally: &mut Tally, _: bool| battle::<N, PRIZE, HANDS>(r, t, s, tally, rng)
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
        shaped!(r, battle(r, t, s, tally, rng))
    } else {
        general::battle(r, t, s, tally, rng, &mut Quiet)
    }
}

/// Whether every battle's opening is a prize (if the rules have one) and a face-up card from
/// the top of each stack, or a card from each hand (hands without a prize), and no player is
/// out by an empty stack (`on_empty = lose`).
fn plain(r: &Rules) -> bool {
    !(r.hand > 0 && r.prize) && r.two_pile != Some(OnEmpty::Lose)
}

/// One battle under [`plain`] rules with `N` seats at the table (`PRIZE`, `HANDS`: the rules'
/// `prize`, and `hand` above 0).
#[inline]
fn battle<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    let in_game = s.in_game;
    // Seats in a fixed order of `N` steps rather than the bits of the mask.
    let playing = |p: usize| in_game & bit(p) != 0;
    // With a stack this long, every player gives its prize (if the rules have one) and turns up
    // a card straight from its stack; shorter stacks (a pile to turn over, a prize not given)
    // are the general battle's. In hand mode every player still in holds a card to play (hands
    // grow back after each battle), and the hand refills itself.
    let need = 1 + usize::from(PRIZE);
    let short = |p: usize| {
        if HANDS {
            s.hand_len[p] == 0
        } else {
            s.l[p] < need
        }
    };
    // Every seat asked, without a branch per seat.
    if (0..N).fold(false, |any, p| any | (playing(p) & short(p))) {
        return general::battle(r, t, s, tally, rng, &mut Quiet);
    }
    tally.battles += 1;
    tally.cards_turned += (need * in_game.count_ones() as usize) as u64;
    // The cards are gathered in words: bytes stored one by one and read back as a word would
    // stall the read until the stores retire.
    let (mut prizes, mut ups) = (0u32, 0u32);
    if HANDS {
        for p in (0..N).filter(|&p| playing(p)) {
            ups |= u32::from(s.draw_up(r, p, rng)) << (8 * p);
        }
    } else {
        // Every seat in `N` steps without a branch: a seat that is out reads a card it does
        // not own, and does not move.
        for p in 0..N {
            let h = s.h[p];
            if PRIZE {
                prizes |= u32::from(s.get(p, h)) << (8 * p);
            }
            ups |= u32::from(s.get(p, h + need - 1)) << (8 * p);
            let moved = need * usize::from(playing(p));
            s.h[p] = h + moved;
            s.l[p] -= moved;
        }
    }
    let prize = prizes.to_le_bytes();
    let up = ups.to_le_bytes();
    // The faster player grabs the cards before they are compared.
    let grab = r.speed.is_some_and(|th| playing(0) && rng.next_u64() < th);
    let best = if grab {
        1
    } else {
        r.best_of_first::<N>(in_game, &up)
    };
    if best.count_ones() != 1 {
        return tie::<N, PRIZE, HANDS>(r, t, s, tally, rng, in_game, best, prize, up);
    }
    let winner = best.trailing_zeros() as usize;
    let (cards, k) = pickup::<N, PRIZE>(r, rng, winner, in_game, &prize, &up);
    s.give_word(winner, cards, k);
    if HANDS {
        general::top_up_hands(r, s, rng);
    }
    after::<N, HANDS>(r, s, tally, winner, in_game, 0)
}

/// The face-up cards `up` (after the prizes `prize`, if any) of the seats `in_game` tie among
/// `tied`: a war on the rings, or the general contest where hands or `war_cause_to_loser`
/// change what a war is.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(always)]
fn tie<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    tied: u8,
    prize: [u8; MAX_PLAYERS],
    mut up: [u8; MAX_PLAYERS],
) -> Option<End> {
    if HANDS || r.cause_to_loser {
        t.clear();
        for p in (0..N).filter(|&p| in_game & bit(p) != 0) {
            if PRIZE {
                t.pots[p].push(prize[p]);
            }
            t.pots[p].push(up[p]);
        }
        return general::contest(r, t, s, tally, rng, &mut Quiet, in_game, &mut up, 0, 0);
    }
    war::<N>(
        r,
        t,
        s,
        tally,
        rng,
        in_game,
        tied,
        up,
        1 + usize::from(PRIZE),
    )
}

/// The pick-up of a battle without a war that `winner` won: `order_pickup` on pots of the
/// same few layers (the prizes, if any, then the face-up cards), written out for them. The
/// cards come back in a word (card `i` in byte `i`) with their number.
#[inline(always)]
fn pickup<const N: usize, const PRIZE: bool>(
    r: &Rules,
    rng: &mut GameRng,
    winner: usize,
    in_game: u8,
    prize: &[u8; MAX_PLAYERS],
    up: &[u8; MAX_PLAYERS],
) -> (u64, usize) {
    let playing = |p: usize| in_game & bit(p) != 0;
    let layers = [prize, up];
    let layers = &layers[usize::from(!PRIZE)..];
    let others = |p: usize| playing(p) && p != winner;
    // Every seat's card is written, in a fixed number of steps: a card that is not part of
    // the pick-up adds nothing and is overwritten by the next.
    let mut cards = 0u64;
    let mut k = 0;
    let mut take = |card: u8, counts: bool| {
        cards |= u64::from(card * u8::from(counts)).wrapping_shl(8 * k as u32);
        k += usize::from(counts);
    };
    match r.pickup {
        Pickup::WinnerFirst | Pickup::LoserFirst => {
            // Pot by pot: the winner's first or last, the others in seat order.
            let first = r.pickup == Pickup::WinnerFirst;
            if first {
                layers.iter().for_each(|l| take(l[winner], true));
            }
            for p in 0..N {
                layers.iter().for_each(|l| take(l[p], others(p)));
            }
            if !first {
                layers.iter().for_each(|l| take(l[winner], true));
            }
        }
        Pickup::Played | Pickup::Seat => {
            // Layer by layer: the winner's card first in each, or the seats in order.
            let played = r.pickup == Pickup::Played;
            for l in layers {
                if played {
                    take(l[winner], true);
                }
                for p in 0..N {
                    take(l[p], if played { others(p) } else { playing(p) });
                }
            }
        }
        Pickup::Shuffled | Pickup::RankAsc | Pickup::RankDesc => {
            // Pot by pot in seat order, then shuffled or sorted.
            for p in 0..N {
                layers.iter().for_each(|l| take(l[p], playing(p)));
            }
        }
    }
    let cards = match r.pickup {
        Pickup::Shuffled => rng.shuffle_word(cards, k),
        Pickup::RankAsc | Pickup::RankDesc => {
            let mut bytes = cards.to_le_bytes();
            if r.pickup == Pickup::RankAsc {
                bytes[..k].sort_unstable();
            } else {
                bytes[..k].sort_unstable_by(|a, b| b.cmp(a));
            }
            u64::from_le_bytes(bytes)
        }
        _ => cards,
    };
    (cards, k)
}

/// After a battle of [`battle`]: nobody forfeited, so a player is out only if it has no card
/// left; the endings that count cards are the general [`after`](general::after)'s.
#[inline(always)]
fn after<const N: usize, const HANDS: bool>(
    r: &Rules,
    s: &mut Seats,
    tally: &mut Tally,
    winner: usize,
    in_game: u8,
    depth: u32,
) -> Option<End> {
    let mut totals = [0usize; MAX_PLAYERS];
    for (p, total) in totals.iter_mut().enumerate().take(N) {
        *total = s.l[p] + s.m[p] + if HANDS { usize::from(s.hand_len[p]) } else { 0 };
    }
    if someone_out::<N>(in_game, &totals) || counts_cards(r) || depth > 0 && r.wars_to_win.is_some()
    {
        return general::after(r, s, tally, winner, depth, 0);
    }
    tally.note_leader(leader_of::<N>(&totals).map(usize::from));
    None
}

/// Whether an ending that counts cards or battles (`target_cards`, `min_cards`,
/// `battle_limit`) may come after any battle: the general [`after`](general::after) decides it.
fn counts_cards(r: &Rules) -> bool {
    r.target_cards.is_some() || r.min_cards.is_some() || r.battle_limit.is_some()
}

/// Whether a seat of `in_game` holds no card, the first `N` seats holding `totals`; every seat
/// asked, without a branch per seat.
#[inline(always)]
fn someone_out<const N: usize>(in_game: u8, totals: &[usize; MAX_PLAYERS]) -> bool {
    (0..N).fold(false, |any, p| {
        any | ((in_game & bit(p) != 0) & (totals[p] == 0))
    })
}

/// The one seat of the first `N` holding the most cards (`totals`), or none on a tie: the
/// general [`most_cards`](crate::state::most_cards) without a branch per seat.
#[inline(always)]
fn leader_of<const N: usize>(totals: &[usize; MAX_PLAYERS]) -> Option<u8> {
    let most = (0..N).map(|p| totals[p]).max().unwrap_or(0);
    let holders = (0..N).fold(0u8, |m, p| m | u8::from(totals[p] == most) << p);
    (holders.count_ones() == 1).then(|| holders.trailing_zeros() as u8)
}

/// A tie among `tied` after a plain opening (`need` cards from each stack; no hands, no
/// `war_cause_to_loser`): rounds every tied player can pay for from its stack are played on the
/// rings, and each player's table cards are then one stretch of its ring, from its first card
/// to its head. Anything else (a short stack, a stretch split by the ring's end) goes on in the
/// general loop's [`contest`](general::contest) from where the rounds stopped.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(never)]
fn war<const N: usize>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    tied: u8,
    mut up: [u8; MAX_PLAYERS],
    need: usize,
) -> Option<End> {
    let playing = |p: usize| in_game & bit(p) != 0;
    let mut first = [0usize; MAX_PLAYERS];
    for p in (0..N).filter(|&p| playing(p)) {
        first[p] = s.h[p] - need;
    }
    let (mut contenders, mut depth) = (tied, 0u32);
    let mut winner = None;
    loop {
        let fighting = |p: usize| contenders & bit(p) != 0;
        let n = r.war_size(depth + 1, up[contenders.trailing_zeros() as usize]);
        if (0..N).any(|p| fighting(p) && s.l[p] <= n) {
            break;
        }
        depth += 1;
        tally.wars += 1;
        tally.cards_turned += (n as u64 + 1) * u64::from(contenders.count_ones());
        for (p, card) in up.iter_mut().enumerate().take(N) {
            if fighting(p) {
                s.h[p] += n + 1;
                s.l[p] -= n + 1;
                *card = s.get(p, s.h[p] - 1);
            }
        }
        let best = r.best_of_first::<N>(contenders, &up);
        if best.count_ones() == 1 {
            winner = Some(best.trailing_zeros() as usize);
            break;
        }
        contenders = best;
    }
    if let Some(winner) = winner {
        let mut pots: [&[u8]; MAX_PLAYERS] = [&[]; MAX_PLAYERS];
        let mut whole = true;
        for (p, pot) in pots.iter_mut().enumerate().take(N) {
            if playing(p) {
                match s.stretch(p, first[p], s.h[p]) {
                    Some(cards) => *pot = cards,
                    None => whole = false,
                }
            }
        }
        if whole {
            tally.deepest = tally.deepest.max(depth);
            r.order_pickup(winner, &pots[..N], &mut t.order, rng);
            if r.wars_to_win.is_some() {
                s.wars_won[winner] += 1;
            }
            s.give(r, winner, &t.order);
            return after::<N, false>(r, s, tally, winner, in_game, depth);
        }
    }
    t.clear();
    for p in (0..N).filter(|&p| playing(p)) {
        let (from, to) = (first[p], s.h[p]);
        t.pots[p].extend((from..to).map(|pos| s.get(p, pos)));
    }
    general::contest(
        r, t, s, tally, rng, &mut Quiet, contenders, &mut up, 0, depth,
    )
}
