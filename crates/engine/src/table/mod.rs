//! The table loop: every rule set the two-seat loop does not play (3–4 players; hands), on
//! the compact [`Seats`] layout.
//!
//! A battle whose opening is a prize (where the rules have one) from the top of each stack and a
//! face-up card from there or from each hand, is played here in `N` fixed steps for `N` seats: the
//! cards straight from the rings, the speed grab, the best card, the pick-up, the lead. The tables
//! (two piles included) run as the [`ring`], battle after battle on lanes in registers
//! ([`plain_run`]; two seats with hands in [`pair_hands`]), with Brent's loop detection inline
//! where the rules are deterministic. A tie is a war in the run, on the lanes, where every tied
//! seat can play it in full ([`lane_war`](lane_war::lane_war); with hands each face-up card from
//! the hand; two seats with hands under an ordered ranking, [`pair_war`](lane_war::pair_war) first,
//! which with one pile also plays the rounds a stack is short of, by the short war rule, as a short
//! run's ties between two seats), else a war on the rings ([`tie`]), with hands
//! [`hand_war`](stepwise::hand_war) (which also plays the `war_cause_to_loser` wars). With a prize,
//! a seat down to its last card gives none and turns that card up, in the run too. Under
//! `on_empty = lose` a won pile never turns over: the runs and their wars draw from the stacks
//! alone, and a battle in which a stack is short of it (a seat out of the game, its won pile on the
//! table; with a prize, one giving none) is the general [`battle`](general::battle) on the same
//! seats; with hands, every battle from the first with a stack short is the table battle's, the
//! general battle's where a hand is empty (its seat out) or, with a prize, a stack is out (that
//! seat gives none). Short hands with an ending that counts cards are the table battle's too; other
//! seats with hands play down and grow back in [`short_run`](short::short_run) once a seat's supply
//! is out (with a prize, down to one card). Once two seats are left, the engine may take the game
//! over for the two-seat loops ([`Played::LastTwo`]).
//!
//! This module is the ring and what it hands to the runs; the runs are
//! [`plain`](mod@plain) and [`pair`], with [`short`] and [`lane_war`] for what they hand out
//! of their loops and [`lanes`] for the kernels they share; [`stepwise`] is the table battle,
//! battle by battle.

use crate::cycle::{self, Position, Saves, TRAIL};
use crate::general;
use crate::observe::Quiet;
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{Compare, OnEmpty, Pickup, Policy, Rules, pick, pick_of, policy};
use crate::seats::Seats;
use crate::state::{End, MAX_PLAYERS, Scratch, Tally, bit, seats};

/// `f::<N, PRIZE, HANDS>(args)` for the rules' number of players, prize and hands.
macro_rules! shaped {
    ($r:expr, $f:ident($($arg:expr),*)) => {
        match ($r.players, $r.prize, $r.hand > 0) {
            (2, false, false) => $f::<2, false, false>($($arg),*),
            (3, false, false) => $f::<3, false, false>($($arg),*),
            (_, false, false) => $f::<4, false, false>($($arg),*),
            (2, true, false) => $f::<2, true, false>($($arg),*),
            (3, true, false) => $f::<3, true, false>($($arg),*),
            (_, true, false) => $f::<4, true, false>($($arg),*),
            (2, false, true) => $f::<2, false, true>($($arg),*),
            (3, false, true) => $f::<3, false, true>($($arg),*),
            (_, false, true) => $f::<4, false, true>($($arg),*),
            (2, true, true) => $f::<2, true, true>($($arg),*),
            (3, true, true) => $f::<3, true, true>($($arg),*),
            (_, true, true) => $f::<4, true, true>($($arg),*),
        }
    };
}

mod lane_war;
mod lanes;
mod pair;
mod plain;
mod short;
mod stepwise;

pub(crate) use lanes::fold_hands;
use pair::pair_hands;
use plain::plain_run;
pub(crate) use stepwise::step;
use stepwise::{battle, counts_cards, plain_step, tie};

/// How the table loop left a game.
pub(crate) enum Played {
    /// Played to its end.
    Over(GameRecord),
    /// Only two seats are left, after the battles of the tally (whose leader, if any, is one
    /// of them): the rest of the game is a 2-player game from the seats as they stand
    /// ([`Rules::last_two`]), for the two-seat loops. Only where the caller asked for it.
    LastTwo(Tally),
}

/// Plays a dealt game to its end, as [`general::run`] does; or, with `last_two`, until only
/// two seats are left (see [`Played::LastTwo`]).
pub(crate) fn run(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    tally: Tally,
    rng: &mut GameRng,
    last_two: bool,
) -> Played {
    shaped!(r, run_with(r, t, s, saves, tally, rng, last_two))
}

fn run_with<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    tally: Tally,
    rng: &mut GameRng,
    last_two: bool,
) -> Played {
    let cap = r.safety_cap.unwrap_or(u64::MAX);
    // Two piles are on the ring too: a stack that runs out turns its won pile over in the run
    // (under `on_empty = lose`, the table battle plays on, and the general battle puts a seat
    // out).
    if s.cap() <= LANES_RING {
        // Hands stay at the table to the end: the two-seat loops have none.
        let last_two = last_two && !HANDS;
        return ring::<N, PRIZE, HANDS>(r, t, s, saves, tally, rng, cap, last_two);
    }
    let mut step = plain_step::<N, PRIZE, HANDS>(r, t, rng);
    let cycles = r.detects_cycles();
    if !last_two {
        return Played::Over(cycle::play_out(s, saves, tally, cap, cycles, &mut step));
    }
    let mut open = true;
    let hand_off = |s: &Seats, tally: &Tally| hand_over(r, s, tally, &mut open);
    match cycle::play_until(s, saves, tally, cap, cycles, &mut step, hand_off) {
        Ok(record) => Played::Over(record),
        Err(tally) => Played::LastTwo(tally),
    }
}

/// Whether a game goes to the two-seat loops ([`Played::LastTwo`]) now: at the first position
/// with two seats left (`open` until then) and only there, since a loop may run through any
/// later one, where Brent's detection in the two-seat loops would find it late. There, if the
/// leader, if any, is one of the two (one that is out would not fit the two-seat loops' margin;
/// it cannot be, as the two left cannot tie after the battle that put the third out) and,
/// under `speed`, seat 0 is one of them (without it nobody grabs, which the rules for two do
/// not say). Otherwise the game stays here to its end.
fn hand_over(r: &Rules, s: &Seats, tally: &Tally, open: &mut bool) -> bool {
    if !*open || s.in_game.count_ones() != 2 {
        return false;
    }
    *open = false;
    tally
        .leader
        .is_none_or(|l| s.in_game & bit(usize::from(l)) != 0)
        && (r.speed.is_none() || s.in_game & 1 != 0)
}

/// How the run of plain battles of [`ring`] stopped.
enum Stop {
    /// The face-up cards `up` (seat `p`'s in byte `p`) tie among the seats of the mask; the
    /// prizes under them, where the rules have one, are `prize`.
    Tie {
        tied: u8,
        prize: [u8; MAX_PLAYERS],
        up: [u8; MAX_PLAYERS],
    },
    /// A tie in a battle where a seat gave no prize: a short hand's, its supply out
    /// ([`short_run`](short::short_run)), or a seat's down to its last card (`plain_run`'s
    /// bare battle): the face-up cards `up`, the prizes `prize` of the seats in `given`. The
    /// general contest plays it, as the general battle does.
    Bare {
        given: u8,
        prize: [u8; MAX_PLAYERS],
        up: [u8; MAX_PLAYERS],
    },
    /// A player is out, or an ending that counts cards may have come: the general
    /// [`after`](general::after) decides, for the battle this seat won.
    Check(usize),
    /// A war on the lanes brought the wars this seat won to `wars_to_win`: the general
    /// [`after`](general::after) ends the game (or an ending before it in its order).
    WarWon { winner: usize, depth: u32 },
    /// A look at the position after the battle: the safety cap, or a moment of Brent's loop
    /// detection (a position that may equal the saved one, or a save due).
    Look,
}

impl Stop {
    /// The tie of a run's lanes `best` (a mask of lanes; lane `i` is seat `seat[i]`), with the
    /// prizes `prs` (0 without a prize) and face-up cards `ups` of its `M` lanes (lane `i`'s in
    /// byte `i`), handed to the table's tie by seat.
    fn tie<const M: usize>(seat: &[usize; MAX_PLAYERS], best: u8, prs: u64, ups: u64) -> Stop {
        Stop::Tie {
            tied: seat_mask::<M>(seat, best),
            prize: by_seat::<M>(seat, prs),
            up: by_seat::<M>(seat, ups),
        }
    }
}

/// A mask of a run's `M` lanes (lane `i` is seat `seat[i]`) as a mask of seats.
fn seat_mask<const M: usize>(seat: &[usize; MAX_PLAYERS], lanes: u8) -> u8 {
    let seats = seat.iter().enumerate().take(M);
    seats.fold(0, |m, (i, &p)| m | (lanes >> i & 1) << p)
}

/// The bytes of a run's `M` lanes (lane `i`'s in byte `i` of `lanes`; lane `i` is seat
/// `seat[i]`) by seat, 0 for a seat not in the run.
///
/// (Built in a register: bytes stored one by one at the seats' places and read back as one
/// word, as the table's tie reads them, waited for the stores to reach the cache at every tie.)
fn by_seat<const M: usize>(seat: &[usize; MAX_PLAYERS], lanes: u64) -> [u8; MAX_PLAYERS] {
    let bytes = seat.iter().enumerate().take(M).fold(0u32, |v, (i, &p)| {
        v | ((lanes >> (8 * i)) as u32 & 0xFF) << (8 * p)
    });
    bytes.to_le_bytes()
}

/// [`run_with`] for the tables on rings: a face-up card from each stack (after a prize from
/// it, with `PRIZE`), or from each full hand refilled from the stack (`HANDS`, after the prize
/// where there is one); under two piles, a stack that runs out turning its won pile over in the
/// run (with hands or a prize where it draws: every prize, then each face-up card or refill
/// after the seat's pick); under `speed`, seat 0's grab drawn after the face-up cards. Runs of
/// plain battles are [`plain_run`]'s (two seats with hands: [`pair_hands`]'), on lanes in
/// registers, and their wars too, where every tied seat can play them in full and they are not
/// `war_cause_to_loser` wars ([`lane_war`]; under `wars_to_win` the run counts each seat's
/// wars won and stops where one reaches the count, [`Stop::WarWon`]); other wars and endings
/// go to the [`battle`]'s own [`tie`] and [`general::after`]. Without hands, a seat down to
/// one card (its won pile counted under two piles) gives no prize in the run, whose ties then
/// go to the general contest. With hands, a battle where a hand is not full or cannot be
/// refilled, or a seat cannot give a prize and refill its hand ([`off_ring`]; the run stops
/// after the battle that leaves a seat that short) goes to [`battle`] itself, but where hands
/// may play short ([`short_run`](short::short_run)). Under `on_empty = lose` no won pile turns
/// over and none counts: a battle in which a stack is short of it (out, or with a prize down to
/// one card; with hands, or a hand not full) goes to [`battle`], which gives it to the general
/// battle where a seat is out of the game or gives no prize (without hands its stack down to one
/// card, with hands out), and a run stops after the battle that leaves a stack that short.
/// Loops are found with Brent's algorithm as [`cycle::brent`] finds them, its first save after
/// [`cycle::FIRST_LOOK`] battles, and a position compared in full only when its stack lengths
/// and top cards match the saved one's.
#[allow(clippy::too_many_arguments)] // the loop's context, handed over
fn ring<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    saves: &mut Saves<Seats>,
    mut tally: Tally,
    rng: &mut GameRng,
    cap: u64,
    last_two: bool,
) -> Played {
    // With hands, `off_ring` counts a won pile as cards to play from: the ring turns it over
    // where a stack that has run out draws (under `on_empty = lose`, only stacks count).
    let counted = counts_cards(r);
    let cycles = r.detects_cycles();
    let start = tally;
    if cycles {
        saves.begin(s);
        saves.trail[start.battles as usize % TRAIL] = trail_byte(s);
    }
    // A full hand's cards count towards `target_cards` and `min_cards` on top of the lanes'.
    let hand = r.hand as u64;
    let lose = r.two_pile == Some(OnEmpty::Lose);
    let shape = Shape {
        pick: pick_of(r.pickup),
        layered: r.pickup == Pickup::Played,
        ordered: matches!(r.compare, Compare::Ordered),
        counted,
        lo: r.min_cards.map_or(0, |m| u64::from(m).saturating_sub(hand)),
        hi: r
            .target_cards
            .map_or(u64::MAX, |t| u64::from(t).saturating_sub(hand)),
        limit: r.battle_limit.unwrap_or(u64::MAX),
        cycles,
        cap,
        two_pile: r.two_pile.is_some(),
        shuffles: r.two_pile == Some(OnEmpty::Shuffle),
        lose,
        speed: r.speed,
        lane_wars: r.wars_to_win.is_none_or(|n| n <= WARS_WON) && !r.cause_to_loser,
        // (Above the bound the runs play no war and count none: the table's wars count them.)
        wars_to_win: r.wars_to_win.filter(|&n| n <= WARS_WON).map(u64::from),
        // Under `on_empty = lose` a hand short of cards never grows back (its stack is out, and
        // no won pile turns over): such battles are the table battle's.
        short_hands: HANDS && !counted && !lose,
    };
    let (mut power, mut lam) = (cycle::FIRST_LOOK, 0u64);
    let mut open = last_two;
    loop {
        if hand_over(r, s, &tally, &mut open) {
            return Played::LastTwo(tally);
        }
        let tortoise = cycles.then_some(&saves.tortoise);
        let (b, e, trail) = (&mut tally, &mut lam, &mut saves.trail[..]);
        let (looked, end) =
            ring_step::<N, PRIZE, HANDS>(r, t, s, b, rng, &shape, e, power, tortoise, trail);
        if let Some((end, winner)) = end {
            return Played::Over(tally.record(end, winner, None));
        }
        // Brent's step after the battle, as `cycle::brent` takes it (the run of plain battles
        // counted its own).
        if cycles {
            if !looked {
                lam += 1;
                saves.trail[tally.battles as usize % TRAIL] = trail_byte(s);
            }
            if s.same(&saves.tortoise) {
                let mut step = Replay::<N, PRIZE, HANDS> { r, t, rng, shape };
                let found = tally.battles;
                return Played::Over(cycle::finish_found(s, saves, start, lam, &mut step, found));
            }
        }
        if tally.battles >= cap {
            let capped = tally.record(EndReason::Capped, None, None);
            if cycles {
                let mut step = Replay::<N, PRIZE, HANDS> { r, t, rng, shape };
                return Played::Over(cycle::past_cap(s, saves, start, capped, &mut step));
            }
            return Played::Over(capped);
        }
        if cycles && power == lam {
            saves.move_tortoise(s, Some(tally));
            power *= 2;
            lam = 0;
        }
    }
}

/// The [`ring`]'s next step, as its replays take it too: the table [`battle`] where the next
/// battle is not the ring's ([`off_ring`]), else a [`leg`] (with Brent's count `lam`, the
/// `power` of its next save and the saved `tortoise` where loops are looked for). Returns
/// whether it stopped at a look (the leg then took that battle's Brent's step) and the game's
/// end, if it came.
#[allow(clippy::too_many_arguments)] // the ring's context, handed over
#[inline(always)]
fn ring_step<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    shape: &Shape,
    lam: &mut u64,
    power: u64,
    tortoise: Option<&Seats>,
    trail: &mut [u8],
) -> (bool, Option<End>) {
    if off_ring::<PRIZE, HANDS>(r, s, shape) {
        return (false, battle::<N, PRIZE, HANDS>(r, t, s, tally, rng));
    }
    let (stop, end) =
        leg::<N, PRIZE, HANDS>(r, t, s, tally, rng, shape, lam, power, tortoise, trail);
    (matches!(stop, Stop::Look), end)
}

/// Whether the next battle is the table [`battle`]'s, not the ring's: with hands, a seat in
/// the game holds fewer cards than the battle takes from its stack (the card that refills the
/// hand, after the prize if there is one; under two piles, its won pile counts: the ring turns
/// it over where the stack draws), or fewer cards in hand than the rules' hand. Seats with
/// hands where the [`Shape`] lets them play short hands ([`short_run`](short::short_run))
/// never are, nor seats without hands: one down to a card gives no prize in the run
/// ([`plain_run`]'s bare battle); but under `on_empty = lose` a seat whose stack is short of
/// the battle (out: without hands, the general battle puts it out of the game; or with a prize
/// down to one card), whose won pile does not count, with hands or without.
fn off_ring<const PRIZE: bool, const HANDS: bool>(r: &Rules, s: &Seats, shape: &Shape) -> bool {
    let need = 1 + usize::from(PRIZE);
    if !HANDS {
        // Under `on_empty = lose`, a stack short of the battle: a seat out, or giving no prize.
        return shape.lose && seats(s.in_game).any(|p| s.l[p] < need);
    }
    // (Under `on_empty = lose` the stack alone: its won pile never turns over.)
    let supply = |p: usize| s.l[p] + if shape.lose { 0 } else { s.m[p] };
    !shape.short_hands
        && seats(s.in_game).any(|p| supply(p) < need || usize::from(s.hand_len[p]) < r.hand)
}

/// One leg of the [`ring`]: plain battles on lanes ([`plain_any`]) until one is not, then that
/// battle's war or endings. Brent's count `lam` (against the saved `tortoise`, which is there
/// where loops are looked for) and the power of two at which the next save is due go with it.
#[allow(clippy::too_many_arguments)] // the loop's context, handed over
fn leg<const N: usize, const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    shape: &Shape,
    lam: &mut u64,
    power: u64,
    tortoise: Option<&Seats>,
    trail: &mut [u8],
) -> (Stop, Option<End>) {
    let mask = s.cap() - 1;
    // The seats still in the game, in seat order: lane `i` is seat `seat[i]`'s.
    let in_game = s.in_game;
    let seated = in_game.count_ones() as usize;
    let mut seat = [0usize; MAX_PLAYERS];
    for (i, p) in seats(in_game).enumerate() {
        seat[i] = p;
    }
    let lanes = |x: &[usize; MAX_PLAYERS], mask: usize| {
        (0..seated).fold(0u64, |v, i| v | ((x[seat[i]] & mask) as u64) << (16 * i))
    };
    let mut run = Run {
        heads: lanes(&s.h, mask),
        lens: lanes(&s.l, LANE),
        wons: lanes(&s.m, LANE),
        shuffled: 0,
        battles: tally.battles,
        leader: tally.leader.unwrap_or(NONE),
        changes: tally.lead_changes,
        lam: *lam,
        power,
        tort: tortoise.map_or(0, |o| lanes(&o.l, LANE)),
        // A seat with neither stack nor won pile (a short hand) has no top: 0, as
        // `short_run` reads it.
        tort_tops: tortoise.map_or(0, |o| {
            (0..seated).fold(0, |v, i| {
                let p = seat[i];
                let top = if o.l[p] + o.m[p] == 0 {
                    0
                } else {
                    o.get(p, o.h[p])
                };
                v | u64::from(top) << (8 * i)
            })
        }),
        tort_hands: std::array::from_fn(|i| match tortoise {
            Some(o) if HANDS && i < seated => u64::from_le_bytes(o.hands[seat[i]]),
            _ => 0,
        }),
        wars: Wars::default(),
        held: (0..seated).fold(0u64, |v, i| v | u64::from(s.hand_len[seat[i]]) << (16 * i)),
        bare: 0,
        // (Each below `wars_to_win`, or the game would have ended.)
        won: if shape.wars_to_win.is_some() {
            (0..seated).fold(0u64, |v, i| v | u64::from(s.wars_won[seat[i]]) << (16 * i))
        } else {
            0
        },
    };
    let mut hands = [0u64; MAX_PLAYERS];
    if HANDS {
        for (i, &p) in seat.iter().enumerate().take(seated) {
            hands[i] = u64::from_le_bytes(s.hands[p]);
        }
    }
    let stop = plain_any::<PRIZE, HANDS>(
        r,
        rng,
        s,
        shape,
        &seat,
        seated,
        &mut run,
        &mut hands,
        trail,
        &mut t.order,
    );
    for (i, &p) in seat.iter().enumerate().take(seated) {
        if HANDS {
            s.hands[p] = hands[i].to_le_bytes();
            s.hand_len[p] = (run.held >> (16 * i)) as u8;
        }
        // Ring positions are read modulo the ring; a head at least the ring's size lets
        // a war count back from it.
        s.h[p] = mask + 1 + ((run.heads >> (16 * i)) as usize & mask);
        s.l[p] = (run.lens >> (16 * i)) as usize & LANE;
        s.m[p] = (run.wons >> (16 * i)) as usize & LANE;
        if shape.wars_to_win.is_some() {
            s.wars_won[p] = (run.won >> (16 * i)) as u32 & LANE as u32;
        }
    }
    s.count_shuffles(run.shuffled);
    s.count_lane_wars(run.wars.rounds);
    s.count_bare_prizes(run.bare);
    let need = 1 + u64::from(PRIZE);
    tally.cards_turned +=
        (run.battles - tally.battles) * seated as u64 * need + run.wars.cards - run.bare;
    tally.wars += run.wars.rounds;
    // (At most a war's rounds, which a `u32` counts.)
    tally.deepest = tally.deepest.max(run.wars.deepest as u32);
    tally.battles = run.battles;
    tally.leader = (run.leader != NONE).then_some(run.leader);
    tally.lead_changes = run.changes;
    *lam = run.lam;
    let end = match stop {
        Stop::Tie { tied, prize, up } => {
            tie::<N, PRIZE, HANDS>(r, t, s, tally, rng, in_game, tied, prize, up)
        }
        Stop::Bare {
            given,
            prize,
            mut up,
        } => {
            t.clear();
            for p in seats(in_game) {
                if given & bit(p) != 0 {
                    t.pots[p].push(prize[p]);
                }
                t.pots[p].push(up[p]);
            }
            general::contest(r, t, s, tally, rng, &mut Quiet, in_game, &mut up, 0, 0)
        }
        Stop::Check(winner) => general::after(r, s, tally, winner, 0, 0),
        Stop::WarWon { winner, depth } => general::after(r, s, tally, winner, depth, 0),
        Stop::Look => None,
    };
    (stop, end)
}

/// The replays of the ring's loop detection ([`cycle::finish_loop_after`],
/// [`cycle::past_cap`]): a battle at a time by the table [`battle`], and long stretches on the
/// ring's lanes, as the first pass played them.
struct Replay<'a, const N: usize, const PRIZE: bool, const HANDS: bool> {
    r: &'a Rules,
    t: &'a mut Scratch,
    rng: &'a mut GameRng,
    shape: Shape,
}

impl<const N: usize, const PRIZE: bool, const HANDS: bool> cycle::Step<Seats>
    for Replay<'_, N, PRIZE, HANDS>
{
    fn step(&mut self, s: &mut Seats, tally: &mut Tally, _: bool) -> Option<End> {
        battle::<N, PRIZE, HANDS>(self.r, self.t, s, tally, self.rng)
    }

    fn leap(&mut self, s: &mut Seats, tally: &mut Tally, to: u64) {
        let shape = Shape {
            cycles: false,
            cap: to,
            ..self.shape
        };
        while tally.battles < to {
            let (r, t, rng) = (self.r, &mut *self.t, &mut *self.rng);
            let (_, end) =
                ring_step::<N, PRIZE, HANDS>(r, t, s, tally, rng, &shape, &mut 0, 0, None, &mut []);
            debug_assert!(end.is_none(), "a replayed battle cannot end the game");
        }
    }

    /// On the ring's lanes as the first pass plays, its compare of each position with the
    /// saved one included (stack lengths and top cards, then in full): a game at the safety
    /// cap plays as many battles again here, a battle at a time it took four times as long.
    /// No Brent's save comes: the next look is at `to`.
    fn recur(
        &mut self,
        s: &mut Seats,
        tally: &mut Tally,
        saves: &mut Saves<Seats>,
        to: u64,
    ) -> Option<u64> {
        debug_assert!(self.shape.cycles, "a ring that looks for loops replays");
        let shape = Shape {
            cap: to,
            ..self.shape
        };
        // Brent's count from here (`lam`, never past `power`): the lanes look at `to` at the
        // latest, as `Shape::looks` takes the earlier of the two.
        let (mut lam, power) = (0, to);
        while tally.battles < to {
            let (r, t, rng) = (self.r, &mut *self.t, &mut *self.rng);
            let (tortoise, trail) = (Some(&saves.tortoise), &mut saves.trail[..]);
            let (looked, end) = ring_step::<N, PRIZE, HANDS>(
                r, t, s, tally, rng, &shape, &mut lam, power, tortoise, trail,
            );
            if end.is_some() {
                return None;
            }
            if !looked {
                lam += 1;
            }
            if s.same(&saves.tortoise) {
                return Some(tally.battles);
            }
        }
        None
    }
}

/// The byte of a position the ring notes after each battle for the replay's hint
/// ([`cycle::start_after`]): the count of the first seat in the game (lane 0's), as
/// [`plain_run`] notes it. Equal positions give equal bytes.
fn trail_byte(s: &Seats) -> u8 {
    s.l[s.in_game.trailing_zeros() as usize] as u8
}

/// A seat's lane in [`Run`]: 16 bits.
const LANE: usize = 0xFFFF;
/// The largest ring [`plain_run`] and [`pair_hands`] address: a head below it plus one still
/// fits its lane.
const LANES_RING: usize = 1 << 15;
/// The largest `wars_to_win` whose count of wars won [`Run::won`]'s lanes hold.
const WARS_WON: u32 = 0x7FFF;
/// No leader yet, as [`Run::leader`] says it.
const NONE: u8 = u8::MAX;

/// What [`ring`] fixes for the whole game.
#[derive(Clone, Copy)]
struct Shape {
    /// The pick-up order ([`pick`]).
    pick: u8,
    /// `played`, which [`pick`] counts as winner-first: the same for a card each, not with a
    /// prize (layer by layer rather than pot by pot).
    layered: bool,
    /// The ranking is an order (the highest card wins), not a beats-table.
    ordered: bool,
    /// An ending that counts cards may come after any battle ([`counts_cards`]).
    counted: bool,
    /// Where it may: a run goes on only while every seat in holds `lo ≤ c < hi` cards outside
    /// its full hand (stack and won pile) and fewer than `limit` battles are played; beyond,
    /// the general [`after`](general::after) looks after each battle ([`Shape::may_end`]).
    lo: u64,
    hi: u64,
    limit: u64,
    cycles: bool,
    /// The safety cap on battles.
    cap: u64,
    /// Two piles, and whether a won pile is shuffled where it turns over.
    two_pile: bool,
    shuffles: bool,
    /// Two piles under `on_empty = lose`: a won pile never turns over and never counts as
    /// cards to play from; a seat that cannot turn a card up at a battle's start (without hands
    /// its stack out, with hands its hand empty) is out of the game, its won pile on the table
    /// for that battle's winner. The ring's battles and wars draw from the stacks alone, and a
    /// run stops after a battle that leaves a stack short of the next (out, or with a prize
    /// down to one card): that battle and, with hands, every one after it (hands do not play
    /// short in the runs) is the table [`battle`]'s, the general battle's where it puts a seat
    /// out or a seat gives no prize ([`off_ring`]).
    lose: bool,
    /// `speed`'s threshold: seat 0, while in the game, grabs a battle's cards when a draw
    /// falls below it.
    speed: Option<u64>,
    /// A war may be played on the lanes ([`lane_war`]): no tied card is set apart for the
    /// loser (no `war_cause_to_loser`, which the table's wars play), and the wars a seat wins
    /// fit its lane (`wars_to_win` at most [`WARS_WON`]).
    lane_wars: bool,
    /// `wars_to_win` (at most [`WARS_WON`]): the runs count each seat's wars won on the lanes
    /// ([`Run::won`]) and stop where one reaches it ([`Stop::WarWon`]).
    wars_to_win: Option<u64>,
    /// Seats with hands play on in the run ([`pair_hands`], [`plain_run`]) once a seat's stack
    /// (with its won pile under two piles) has run out, or with a prize is down to one card
    /// ([`short_run`](short::short_run)): its hand plays down and grows back after a pick-up. Not
    /// with an ending that counts cards (its bounds count full hands), nor under
    /// `on_empty = lose` (where a hand would never grow back: played in a run, those battles
    /// measured 10 % slower, the run stopping each time a hand ran out).
    short_hands: bool,
}

impl Shape {
    /// Under `wars_to_win`, counts a war that lane `w` won on the lanes in `won` (the general
    /// settle's count of the wars a seat won) and says whether it brings the lane to the count
    /// (the general after's ending); without, nothing.
    #[inline(always)]
    fn war_won(&self, won: &mut u64, w: usize) -> bool {
        let Some(n) = self.wars_to_win else {
            return false;
        };
        *won += 1 << (16 * w);
        (*won >> (16 * w)) & LANE as u64 >= n
    }

    /// Brent's count in a run, kept as two marks so that a battle makes one compare: `lam`'s
    /// offset from the battle count (`lam = lam_at + battles` once a battle's steps are done)
    /// and the battle at which the run stops to look, where `lam` reaches `power` or at the
    /// cap, whichever comes first. From the run's `battles` and `lam` now.
    #[inline(always)]
    fn looks(&self, power: u64, battles: u64, lam: u64) -> (u64, u64) {
        // (`ring` resets `lam` where it reaches `power`, and `short_run` stops there: never
        // past it.)
        debug_assert!(!self.cycles || lam <= power);
        let brent = if self.cycles {
            battles + (power - lam)
        } else {
            u64::MAX
        };
        (lam.wrapping_sub(battles), brent.min(self.cap))
    }

    /// Seat 0's grab under `speed` in a run whose lanes are the seats `seat`: whether the run
    /// draws for it (seat 0 is in the game, as lane 0) and the threshold the draw must fall
    /// below.
    fn grab(&self, seat: &[usize; MAX_PLAYERS]) -> (bool, u64) {
        (
            self.speed.is_some() && seat[0] == 0,
            self.speed.unwrap_or(0),
        )
    }

    /// The battles a block may play from the `battles`-th on, the first `M` lanes of `counts`
    /// the seats' cards outside their hands (each moving by `step` a battle: 2 with a prize),
    /// so that only its last battle can be one after which [`may_end`](Self::may_end) holds.
    #[inline(always)]
    fn room<const M: usize>(&self, counts: u64, battles: u64, step: usize) -> usize {
        let step = step as u64;
        let room = (0..M).fold(self.limit.saturating_sub(battles), |room, i| {
            let c = (counts >> (16 * i)) & LANE as u64;
            // Battle `j` (from 0) leaves `c ± step (j + 1)`: the first `room` battles but the
            // last leave it within `lo .. hi`.
            let down = if c < self.lo {
                0
            } else {
                (c - self.lo) / step + 1
            };
            room.min(down).min(self.hi.saturating_sub(c).div_ceil(step))
        });
        room.min(usize::MAX as u64) as usize
    }

    /// Whether an ending that counts cards may have come after the `battles`-th battle, with
    /// the first `M` lanes of `counts` (16 bits each) the seats' cards outside their hands.
    #[inline(always)]
    fn may_end<const M: usize>(&self, counts: u64, battles: u64) -> bool {
        self.counted
            && (battles >= self.limit
                || (0..M).any(|i| {
                    let c = (counts >> (16 * i)) & LANE as u64;
                    c < self.lo || c >= self.hi
                }))
    }
}

/// The position and counts of a run of plain battles, kept in registers: lane `i` (16 bits) of
/// `heads`, `lens` and `wons` is the `i`-th seat still in the game, so every seat moves at once
/// in one word operation.
#[derive(Clone, Copy)]
struct Run {
    /// Ring position of each stack's top card, below the ring's size.
    heads: u64,
    /// Stack lengths.
    lens: u64,
    /// Won-pile lengths (two piles; zero with one).
    wons: u64,
    /// Won piles shuffled into a stack during the run.
    shuffled: u64,
    battles: u64,
    /// The leader as a seat number, [`NONE`] for none yet.
    leader: u8,
    changes: u64,
    /// Brent's loop detection: battles since the saved position, and the power of two at which the
    /// next is saved; `tort`, the saved position's stack lengths as lanes, and `tort_tops` its top
    /// cards (lane `i`'s in byte `i`; 0 for a seat with neither stack nor won pile, as
    /// [`short_tops`](short::short_tops) reads one): a position whose lengths and tops both match
    /// is compared in full.
    lam: u64,
    power: u64,
    tort: u64,
    tort_tops: u64,
    /// The saved position's hands, lane `i`'s in word `i` (zero without hands):
    /// [`pair_hands`] looks at a position only where its hands match too.
    tort_hands: [u64; MAX_PLAYERS],
    /// The wars played on the lanes ([`lane_war`]).
    wars: Wars,
    /// The hands' lengths, as lanes: full, but where [`short_run`](short::short_run) leaves a hand
    /// short.
    held: u64,
    /// Prizes not given in the run's battles: by a seat whose supply was out
    /// ([`short_run`](short::short_run)), or down to its last card (`plain_run`'s bare
    /// battle).
    bare: u64,
    /// Under `wars_to_win`, the wars each seat has won, as lanes (zero otherwise).
    won: u64,
}

/// What the wars a run played on its lanes ([`lane_war`]) add to the tally: rounds of war, the
/// deepest, and the cards they turned.
///
/// (`deepest` is a word like the others: as four bytes, the copy of the run's start read it with
/// its padding, eight bytes over a four-byte store, which waited for the store at every leg.)
#[derive(Clone, Copy, Default)]
struct Wars {
    rounds: u64,
    deepest: u64,
    cards: u64,
}

impl Wars {
    /// These and a war of `depth` rounds that turned `cards` cards.
    #[inline(always)]
    fn and(self, depth: u32, cards: u64) -> Wars {
        Wars {
            rounds: self.rounds + u64::from(depth),
            deepest: self.deepest.max(u64::from(depth)),
            cards: self.cards + cards,
        }
    }
}

/// `$f!(args; PICK, ORDERED)`: the macro `$f` called with the [`Shape`]'s pick-up code and
/// whether its ranking is ordered, as constants.
macro_rules! compiled {
    ($shape:expr, $f:ident!($($arg:tt)*)) => {
        if $shape.ordered {
            picked!($shape, $f!($($arg)*), true)
        } else {
            picked!($shape, $f!($($arg)*), false)
        }
    };
}

/// [`compiled!`]'s dispatch on the pick-up code.
macro_rules! picked {
    ($shape:expr, $f:ident!($($arg:tt)*), $ordered:literal) => {
        match $shape.pick {
            pick::SHUFFLED => $f!($($arg)*; pick::SHUFFLED, $ordered),
            pick::SEAT => $f!($($arg)*; pick::SEAT, $ordered),
            pick::WINNER => $f!($($arg)*; pick::WINNER, $ordered),
            pick::LOSER => $f!($($arg)*; pick::LOSER, $ordered),
            pick::DESC => $f!($($arg)*; pick::DESC, $ordered),
            _ => $f!($($arg)*; pick::ASC, $ordered),
        }
    };
}

/// [`plain_run`] compiled for the seats in the game, the pick-up order and the ranking; two
/// seats with hands in [`pair_hands`], compiled for their policy too (with two piles, the random
/// policy and a deterministic one with hands of three).
#[allow(clippy::too_many_arguments)] // the run's position, handed over
fn plain_any<const PRIZE: bool, const HANDS: bool>(
    r: &Rules,
    rng: &mut GameRng,
    s: &mut Seats,
    shape: &Shape,
    seat: &[usize; MAX_PLAYERS],
    seated: usize,
    run: &mut Run,
    hands: &mut [u64; MAX_PLAYERS],
    trail: &mut [u8],
    order_buf: &mut Vec<u8>,
) -> Stop {
    macro_rules! call {
        ($m:literal; $pick:path, $ordered:literal) => {
            plain_run::<$m, PRIZE, HANDS, false, { $pick }, $ordered>(
                r, rng, s, shape, seat, run, hands, trail, order_buf,
            )
        };
    }
    // Two seats with hands are `pair_hands`'.
    macro_rules! piles {
        ($m:literal, $hands:tt; $pick:path, $ordered:literal) => {
            plain_run::<$m, PRIZE, $hands, true, { $pick }, $ordered>(
                r, rng, s, shape, seat, run, hands, trail, order_buf,
            )
        };
    }
    // Two seats with hands, with `$two` piles or one.
    macro_rules! pair {
        ($two:literal, $policy:path; $pick:path, $ordered:literal) => {
            pair!($two, $policy, 0; $pick, $ordered)
        };
        ($two:literal, $policy:path, $hand:literal; $pick:path, $ordered:literal) => {
            pair_hands::<PRIZE, $two, { $policy }, { $pick }, $ordered, $hand>(
                r, rng, s, shape, seat, run, hands, trail, order_buf,
            )
        };
    }
    debug_assert!(
        (2..=4).contains(&seated),
        "a game with one seat in has ended"
    );
    if HANDS && seated == 2 {
        let (p0, p1) = (r.policies[seat[0]], r.policies[seat[1]]);
        // Hands of three (the usual size) under one deterministic policy and an ordered
        // ranking: the pick compiled for three cards, without a loop over the hand.
        macro_rules! three {
            ($two:literal) => {
                match p0 {
                    Policy::Highest => picked!(shape, pair!($two, policy::HIGHEST, 3), true),
                    Policy::Lowest => picked!(shape, pair!($two, policy::LOWEST, 3), true),
                    _ => picked!(shape, pair!($two, policy::MEDIAN, 3), true),
                }
            };
        }
        let three = p0 == p1 && p0 != Policy::Random && r.hand == 3 && shape.ordered;
        // Two piles: besides those, the random policy (the default) compiled in; other
        // policies read per run (`MIXED`), where an instance each would not pay for itself.
        if shape.two_pile {
            return match p0 {
                _ if three => three!(true),
                Policy::Random if p1 == p0 => compiled!(shape, pair!(true, policy::RANDOM)),
                _ => compiled!(shape, pair!(true, policy::MIXED)),
            };
        }
        if three {
            return three!(false);
        }
        return match p0 {
            _ if p0 != p1 => compiled!(shape, pair!(false, policy::MIXED)),
            Policy::Random => compiled!(shape, pair!(false, policy::RANDOM)),
            Policy::Highest => compiled!(shape, pair!(false, policy::HIGHEST)),
            Policy::Lowest => compiled!(shape, pair!(false, policy::LOWEST)),
            Policy::Median => compiled!(shape, pair!(false, policy::MEDIAN)),
        };
    }
    if shape.two_pile {
        return match seated {
            2 => compiled!(shape, piles!(2, false)),
            3 => compiled!(shape, piles!(3, HANDS)),
            _ => compiled!(shape, piles!(4, HANDS)),
        };
    }
    match seated {
        2 => compiled!(shape, call!(2)),
        3 => compiled!(shape, call!(3)),
        _ => compiled!(shape, call!(4)),
    }
}
