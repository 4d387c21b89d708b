//! The table loop: every rule set the two-seat loop does not play (3–4 players; hands), on
//! the compact [`Seats`] layout.
//!
//! A battle whose opening is a prize (where the rules have one) from the top of each stack and
//! a face-up card from there or from each hand, is played here in `N` fixed steps for `N` seats:
//! the cards straight from the rings, the speed grab, the best card, the pick-up, the lead. The
//! tables (two piles included) run as the [`ring`], battle after battle
//! on lanes in registers ([`plain_run`]; two seats with hands in [`pair_hands`]), with Brent's
//! loop detection inline where the rules are deterministic. A tie is a war on the rings
//! ([`tie`]), or with hands a war that plays each face-up card from the hand: in the run, on
//! the lanes, where every tied seat can play it in full ([`lane_war`]), else [`hand_war`]
//! (which also plays the `war_cause_to_loser` wars);
//! short stacks and `on_empty = lose` are the general [`battle`](general::battle) on the same
//! seats, but for seats with hands (without an ending that counts cards), whose hands play
//! down and grow back in [`short_run`] once a seat's supply is out (with a prize, down to one
//! card). Once two seats are left, the engine may take the game over for the two-seat loops
//! ([`Played::LastTwo`]).

use crate::cycle::{self, Position, Saves, TRAIL};
use crate::general;
use crate::observe::Quiet;
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{
    Compare, OnEmpty, Pickup, Policy, Rules, Stake, pick, pick_of, policy, policy_code, policy_of,
};
use crate::seats::{Seats, shuffle_pile};
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally, bit, seats};

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
    if !plain(r) {
        return Played::Over(general::run(r, t, s, saves, tally, rng, &mut Quiet));
    }
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
    // Two piles are on the ring too (`plain` leaves out `on_empty = lose`): a stack that runs
    // out turns its won pile over in the run.
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
    /// A tie in a battle of short hands ([`short_run`]) where a seat gave no prize (its supply
    /// was out): the face-up cards `up`, the prizes `prize` of the seats in `given`. The
    /// general contest plays it, as the general battle does.
    Bare {
        given: u8,
        prize: [u8; MAX_PLAYERS],
        up: [u8; MAX_PLAYERS],
    },
    /// A player is out, or an ending that counts cards may have come: the general
    /// [`after`](general::after) decides, for the battle this seat won.
    Check(usize),
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
fn by_seat<const M: usize>(seat: &[usize; MAX_PLAYERS], lanes: u64) -> [u8; MAX_PLAYERS] {
    let mut bytes = [0; MAX_PLAYERS];
    for (i, &p) in seat.iter().enumerate().take(M) {
        bytes[p] = (lanes >> (8 * i)) as u8;
    }
    bytes
}

/// [`run_with`] for the tables on rings: a face-up card from each stack (after a prize from
/// it, with `PRIZE`), or from each full hand refilled from the stack (`HANDS`, after the prize
/// where there is one); under two piles, a stack that runs out turning its won pile over in the
/// run (with hands or a prize where it draws: every prize, then each face-up card or refill
/// after the seat's pick); under `speed`, seat 0's grab drawn after the face-up cards. Runs of
/// plain battles are [`plain_run`]'s (two seats
/// with hands: [`pair_hands`]'), on lanes in registers, and with hands their wars too, where
/// every tied seat can play them in full and they are neither `wars_to_win` nor
/// `war_cause_to_loser` wars ([`lane_war`]); other wars and endings go to the
/// [`battle`]'s own [`tie`] and [`general::after`], and a battle where a hand is not full or
/// cannot be refilled, or a seat cannot give a prize and turn up a card ([`off_ring`]; the
/// run stops after the battle that leaves a seat that short, its won pile counted under two
/// piles) to [`battle`] itself, but where hands may play short ([`short_run`]).
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
    // `off_ring` counts a won pile as cards to play from: the ring turns it over where a
    // stack that has run out draws.
    let counted = counts_cards(r);
    let cycles = r.detects_cycles();
    let start = tally;
    if cycles {
        saves.initial.copy_from(s);
        saves.tortoise.copy_from(s);
        saves.trail[start.battles as usize % TRAIL] = trail_byte(s);
    }
    // A full hand's cards count towards `target_cards` and `min_cards` on top of the lanes'.
    let hand = r.hand as u64;
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
        speed: r.speed,
        lane_wars: r.wars_to_win.is_none() && !r.cause_to_loser,
        short_hands: HANDS && !counted,
    };
    let (mut power, mut lam) = (cycle::FIRST_LOOK, 0u64);
    let mut open = last_two;
    loop {
        if hand_over(r, s, &tally, &mut open) {
            return Played::LastTwo(tally);
        }
        let tortoise = cycles.then_some(&saves.tortoise);
        let (b, e) = (&mut tally, &mut lam);
        let (looked, end) = if off_ring::<PRIZE, HANDS>(r, s, &shape) {
            (false, battle::<N, PRIZE, HANDS>(r, t, s, b, rng))
        } else {
            let (stop, end) = leg::<N, PRIZE, HANDS>(
                r,
                t,
                s,
                b,
                rng,
                &shape,
                e,
                power,
                tortoise,
                &mut saves.trail[..],
            );
            (matches!(stop, Stop::Look), end)
        };
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
                let hint = cycle::start_after(&saves.trail, start.battles, tally.battles, lam);
                let mut step = Replay::<N, PRIZE, HANDS> { r, t, rng, shape };
                return Played::Over(cycle::finish_loop_after(
                    s,
                    saves,
                    start,
                    lam,
                    &mut step,
                    hint,
                    tally.battles,
                ));
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
            saves.tortoise.copy_from(s);
            power *= 2;
            lam = 0;
        }
    }
}

/// Whether the next battle is the table [`battle`]'s, not the ring's: a seat in the game
/// holds fewer cards than the battle takes from its stack (a prize and a face-up card; with
/// hands the card that refills the hand, after the prize if there is one; under two piles,
/// its won pile counts: the ring turns it over where the stack draws), or
/// with hands fewer cards in hand than the rules' hand. Seats with hands where the [`Shape`]
/// lets them play short hands ([`short_run`]) never are.
fn off_ring<const PRIZE: bool, const HANDS: bool>(r: &Rules, s: &Seats, shape: &Shape) -> bool {
    let need = if HANDS { 1 } else { usize::from(PRIZE) } + usize::from(PRIZE);
    need > 0
        && !shape.short_hands
        && seats(s.in_game)
            .any(|p| s.l[p] + s.m[p] < need || HANDS && usize::from(s.hand_len[p]) < r.hand)
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
        wars: Wars::default(),
        held: (0..seated).fold(0u64, |v, i| v | u64::from(s.hand_len[seat[i]]) << (16 * i)),
        bare: 0,
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
    }
    s.count_shuffles(run.shuffled);
    s.count_lane_wars(run.wars.rounds);
    let need = 1 + u64::from(PRIZE);
    tally.cards_turned +=
        (run.battles - tally.battles) * seated as u64 * need + run.wars.cards - run.bare;
    tally.wars += run.wars.rounds;
    tally.deepest = tally.deepest.max(run.wars.deepest);
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
            if off_ring::<PRIZE, HANDS>(self.r, s, &self.shape) {
                self.step(s, tally, false);
                continue;
            }
            let (r, t, rng) = (self.r, &mut *self.t, &mut *self.rng);
            let (_, end) =
                leg::<N, PRIZE, HANDS>(r, t, s, tally, rng, &shape, &mut 0, 0, None, &mut []);
            debug_assert!(end.is_none(), "a replayed battle cannot end the game");
        }
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
    /// Two piles (`on_empty` turns the won pile over; never `lose` on the ring), and whether
    /// the pile is shuffled first.
    two_pile: bool,
    shuffles: bool,
    /// `speed`'s threshold: seat 0, while in the game, grabs a battle's cards when a draw
    /// falls below it.
    speed: Option<u64>,
    /// A war among seats with hands may be played on the lanes ([`lane_war`]): it counts
    /// for no ending of its own (no `wars_to_win`), and no tied card is set apart for the
    /// loser (no `war_cause_to_loser`, which `hand_war` plays).
    lane_wars: bool,
    /// Seats with hands play on in the run ([`pair_hands`], [`plain_run`]) once a seat's
    /// stack (with its won pile under two piles) has run out, or with a prize is down to one
    /// card ([`short_run`]): its hand plays down and grows back after a pick-up. Not with an
    /// ending that counts cards (its bounds count full hands).
    short_hands: bool,
}

impl Shape {
    /// Seat 0's grab under `speed` in a run whose lanes are the seats `seat`: whether the run
    /// draws for it (seat 0 is in the game, as lane 0) and the threshold the draw must fall
    /// below.
    fn grab(&self, seat: &[usize; MAX_PLAYERS]) -> (bool, u64) {
        (
            self.speed.is_some() && seat[0] == 0,
            self.speed.unwrap_or(0),
        )
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
    /// Brent's loop detection: battles since the saved position, and the power of two at which
    /// the next is saved; `tort`, the saved position's stack lengths as lanes, and
    /// `tort_tops` its top cards (lane `i`'s in byte `i`; 0 for a seat with neither stack nor
    /// won pile, as [`short_tops`] reads one): a position whose lengths and tops both match is
    /// compared in full.
    lam: u64,
    power: u64,
    tort: u64,
    tort_tops: u64,
    /// The wars played on the lanes ([`lane_war`]).
    wars: Wars,
    /// The hands' lengths, as lanes: full, but where [`short_run`] leaves a hand short.
    held: u64,
    /// Prizes not given in the run's battles: by a seat whose supply was out ([`short_run`]).
    bare: u64,
}

/// What the wars a run played on its lanes ([`lane_war`]) add to the tally: rounds of war, the
/// deepest, and the cards they turned.
#[derive(Clone, Copy, Default)]
struct Wars {
    rounds: u64,
    deepest: u32,
    cards: u64,
}

impl Wars {
    /// These and a war of `depth` rounds that turned `cards` cards.
    #[inline(always)]
    fn and(self, depth: u32, cards: u64) -> Wars {
        Wars {
            rounds: self.rounds + u64::from(depth),
            deepest: self.deepest.max(depth),
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
/// seats with hands in [`pair_hands`], compiled for their policy too (with one pile).
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
    macro_rules! pair {
        ($policy:path; $pick:path, $ordered:literal) => {
            pair_hands::<PRIZE, false, { $policy }, { $pick }, $ordered>(
                r, rng, s, shape, seat, run, hands, trail, order_buf,
            )
        };
    }
    macro_rules! pair_piles {
        ($policy:path; $pick:path, $ordered:literal) => {
            pair_hands::<PRIZE, true, { $policy }, { $pick }, $ordered>(
                r, rng, s, shape, seat, run, hands, trail, order_buf,
            )
        };
    }
    debug_assert!(
        (2..=4).contains(&seated),
        "a game with one seat in has ended"
    );
    // Two piles with hands run with the policies read per run (`MIXED`): one instance per
    // policy more would not pay for itself.
    if HANDS && seated == 2 && shape.two_pile {
        return compiled!(shape, pair_piles!(policy::MIXED));
    }
    if HANDS && seated == 2 {
        let (p0, p1) = (r.policies[seat[0]], r.policies[seat[1]]);
        return match p0 {
            _ if p0 != p1 => compiled!(shape, pair!(policy::MIXED)),
            Policy::Random => compiled!(shape, pair!(policy::RANDOM)),
            Policy::Highest => compiled!(shape, pair!(policy::HIGHEST)),
            Policy::Lowest => compiled!(shape, pair!(policy::LOWEST)),
            Policy::Median => compiled!(shape, pair!(policy::MEDIAN)),
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

/// Plain battles of the `M` seats still in the game (a face-up card from each stack; with
/// `PRIZE`, the top card as the prize and the next face up) until one is not: a tie (with
/// hands, one whose war [`lane_war`] cannot play), a battle after which an ending may come,
/// or a look for the safety cap or Brent's detection. Heads
/// and stack lengths (and won-pile lengths with two piles) are 16-bit lanes of words, so a
/// battle moves every seat in one addition; who won picks its lane by a shift, not a branch
/// (which seat wins is what a branch predictor cannot guess). The pick-up order `PICK` and
/// whether the ranking is `ORDERED` are compiled in. With `HANDS` (3–4 seats; two are
/// [`pair_hands`]'), each seat plays the card its policy picks from its full hand (`hands`,
/// lane `i`'s in word `i`) and refills the slot from its stack (after the prize, with
/// `PRIZE`), as long as every stack has the cards; once one has not (where the [`Shape`] lets
/// hands play short), [`short_run`] plays on until every supply is back. With `TWO` piles
/// won cards go onto the won piles (`wons`), and a stack that has run out turns its won pile
/// over where the general draw would: at the start of the next battle ([`turn_over_lanes`]),
/// or with hands or a prize where it draws ([`refill_card`]): every prize first, then each
/// face-up card or refill (after the seat's pick).
#[allow(clippy::too_many_arguments)] // the run's position, handed over
#[inline(never)]
fn plain_run<
    const M: usize,
    const PRIZE: bool,
    const HANDS: bool,
    const TWO: bool,
    const PICK: u8,
    const ORDERED: bool,
>(
    r: &Rules,
    rng_out: &mut GameRng,
    s: &mut Seats,
    shape: &Shape,
    seat: &[usize; MAX_PLAYERS],
    run: &mut Run,
    hands: &mut [u64; MAX_PLAYERS],
    trail: &mut [u8],
    order_buf: &mut Vec<u8>,
) -> Stop {
    let cap = s.cap();
    debug_assert!((8..=LANES_RING).contains(&cap));
    let buf = &mut s.buf_mut()[..];
    let mask = cap - 1;
    let ones = (0..M).fold(0u64, |v, i| v | 1 << (16 * i));
    let wrap = ones * mask as u64;
    // The lanes past the seats in the game read as holding a card: only an empty stack of a
    // seat in the game reads as zero.
    let pad = pad::<M>();
    let base: [usize; M] = std::array::from_fn(|i| seat[i] * cap);
    // Every lane's stretch lies in the buffer: the reads and the store below stay inside it.
    assert!(base.iter().all(|&b| b + cap <= buf.len()));
    // The trail too, once here rather than at every battle's note.
    assert!(!shape.cycles || trail.len() == TRAIL);
    // Lane `i`'s seat in byte `i`, read without a load.
    let seat_bytes = (0..M).fold(0u32, |v, i| v | (seat[i] as u32) << (8 * i));
    let Run {
        mut heads,
        mut lens,
        mut wons,
        mut shuffled,
        mut battles,
        mut leader,
        mut changes,
        mut lam,
        power,
        tort,
        tort_tops,
        ..
    } = *run;
    debug_assert!(TWO || wons == 0);
    let hand = r.hand;
    let policy: [Policy; M] = std::array::from_fn(|i| r.policies[seat[i]]);
    let mut words: [u64; M] = std::array::from_fn(|i| hands[i]);
    // The generator as a local copy, written back once: its state and half-drawn words can stay
    // in registers for the whole run rather than go through memory at every draw.
    let mut g = rng_out.clone();
    let rng = &mut g;
    let mut wars = run.wars;
    let (grabs, threshold) = shape.grab(seat);
    // The leader's lane once it is known to be among the seats holding the most cards (then
    // `leader` is not kept up to date), `M` until then.
    let mut lead = leading_lane::<M>(leader, lens + wons, seat);
    // Brent's count: with `cycles` each battle's steps raise `lam` by one, and the run stops to
    // look where it reaches `power`. Rather than count, the run keeps `lam`'s offset from
    // `battles` (`lam = lam_at + battles` once a battle's steps are done) and stops at the
    // battle where `lam` reaches `power` or at the cap, whichever comes first (`look_at`): one
    // compare a battle for both.
    let looks = |battles: u64, lam: u64| {
        // (`ring` resets `lam` where it reaches `power`, and `short_run` stops there: never
        // past it.)
        debug_assert!(!shape.cycles || lam <= power);
        let brent = if shape.cycles {
            battles + (power - lam)
        } else {
            u64::MAX
        };
        (lam.wrapping_sub(battles), brent.min(shape.cap))
    };
    let (mut lam_at, mut look_at) = looks(battles, lam);
    // Battles counted whose steps are not done when the run stops (a tie or a seat out stops
    // it before them): `lam` is worked out once, after the run.
    let mut ahead = 0;
    // Hands are short only while a supply is out (which `short_run` plays first).
    debug_assert!(
        !HANDS
            || shape.short_hands && lane_short::<M, PRIZE>(lens + wons)
            || run.held == hand as u64 * ones
    );
    // The battles while a hand may be short, out of the loop, as in `pair_hands`: the run's
    // position goes to [`short_run`] with the leader settled, and comes back with its lane
    // looked for again.
    macro_rules! short {
        ($tail:expr) => {
            short!($tail; heads, lens, wons, words, shuffled, battles, leader, changes, lam)
        };
        ($tail:expr; $($field:ident),*) => {{
            if lead < M {
                leader = seat[lead] as u8;
            }
            if $tail && shape.cycles {
                // (This battle's steps are `short_run`'s.)
                lam = lam_at.wrapping_add(battles - 1);
            }
            let mut p = Short { $($field,)* held: run.held, bare: 0, rng: rng.clone() };
            let brent = (power, tort, tort_tops);
            // SAFETY: every lane's stretch lies in `buf` (asserted); `cap` is a power of two.
            let stop = unsafe {
                short_run::<M, PRIZE, TWO, PICK, ORDERED>(
                    r, buf, base, cap, policy, shape, seat, brent, trail, order_buf, &mut p,
                    $tail,
                )
            };
            let bare;
            Short { $($field,)* held: run.held, bare, rng: *rng } = p;
            if PRIZE {
                run.bare += bare;
            }
            lead = leading_lane::<M>(leader, lens + wons, seat);
            (lam_at, look_at) = looks(battles, lam);
            stop
        }};
    }
    let stop = 'run: {
        // A leg may start with a seat's supply out (its hand full or not).
        if HANDS
            && shape.short_hands
            && lane_short::<M, PRIZE>(lens + wons)
            && let Some(stop) = short!(false)
        {
            break 'run stop;
        }
        loop {
            // (With hands or a prize, a stack turns its pile over where it draws.)
            if TWO && !HANDS && !PRIZE && has_zero_lane(lens | pad) {
                let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                shuffled += turn_over_lanes::<M>(buf, &base, cap, h, l, w, shape.shuffles, rng);
            }
            battles += 1;
            let (mut prs, mut ups) = (0u64, 0u64);
            if PRIZE && TWO {
                // Under two piles every prize first, each stack turning its won pile over where
                // it has run out, as the general draw does; then the face-up cards, alike. (This
                // loop, `pair_hands`' and `short_run`'s as one helper measured 3–18 % more
                // instructions.)
                for (i, &b) in base.iter().enumerate() {
                    let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                    // SAFETY: the stretch `b .. b + cap` lies in `buf` (asserted).
                    let (turned, card) =
                        unsafe { refill_card(buf, b, cap, i, h, l, w, shape.shuffles, rng) };
                    shuffled += turned;
                    prs |= card << (8 * i);
                    heads = (heads + (1 << (16 * i))) & wrap;
                    lens -= 1 << (16 * i);
                }
            }
            for (i, &b) in base.iter().enumerate() {
                let pos = (heads >> (16 * i)) as usize & mask;
                // SAFETY: `pos < cap` and the stretch `b .. b + cap` lies in `buf` (asserted).
                let top = u64::from(unsafe { *buf.get_unchecked(b + pos) });
                if PRIZE && !TWO {
                    // The top card is the prize, the one under it turned up (or, with hands, put
                    // into the hand in place of the card played).
                    // SAFETY: as above, the position masked into the stretch.
                    let next = u64::from(unsafe { *buf.get_unchecked(b + ((pos + 1) & mask)) });
                    prs |= top << (8 * i);
                    let up = if HANDS {
                        let up;
                        (up, words[i]) = draw_up(r, policy[i], hand, words[i], next, rng);
                        up
                    } else {
                        next
                    };
                    ups |= up << (8 * i);
                } else if HANDS {
                    let slot = r.choose_by(policy[i], &words[i].to_le_bytes()[..hand], rng);
                    let top = if TWO {
                        let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                        // SAFETY: as above, the stretch lies in `buf`.
                        let (turned, card) =
                            unsafe { refill_card(buf, b, cap, i, h, l, w, shape.shuffles, rng) };
                        shuffled += turned;
                        card
                    } else {
                        top
                    };
                    let up;
                    (up, words[i]) = refill(words[i], slot, top);
                    ups |= up << (8 * i);
                } else if PRIZE {
                    // (Two piles.)
                    let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                    // SAFETY: as above, the stretch lies in `buf`.
                    let (turned, card) =
                        unsafe { refill_card(buf, b, cap, i, h, l, w, shape.shuffles, rng) };
                    shuffled += turned;
                    ups |= card << (8 * i);
                } else {
                    ups |= top << (8 * i);
                }
            }
            // (Under two piles the prizes are taken already.)
            let moved = if PRIZE && !TWO { 2 * ones } else { ones };
            heads = (heads + moved) & wrap;
            lens -= moved;
            let best = best_lane::<M, ORDERED>(r, ups);
            // The grab's draw comes after the face-up cards, as in the table battle.
            let best = if grabs && rng.next_u64() < threshold {
                1
            } else {
                best
            };
            let (w, warred);
            if best & (best - 1) != 0 {
                // With hands, the war among the tied lanes is played here where they can play it
                // in full ([`lane_war`]); otherwise it is the table's.
                let war = if HANDS && shape.lane_wars {
                    let lanes = (heads, lens, wons, words);
                    // SAFETY: every lane's stretch lies in `buf` (asserted); `cap` is a power of
                    // two.
                    unsafe {
                        lane_war::<M, PRIZE, TWO, ORDERED>(
                            r,
                            buf,
                            base,
                            cap,
                            lanes,
                            rng.clone(),
                            policy,
                            shape.shuffles,
                            best,
                            prs,
                            ups,
                            order_buf,
                        )
                    }
                } else {
                    None
                };
                let Some(war) = war else {
                    ahead = 1;
                    break Stop::tie::<M>(seat, best, prs, ups);
                };
                (heads, lens, wons, words) = (war.heads, war.lens, war.wons, war.words);
                *rng = war.rng;
                (w, warred) = (war.winner, true);
                wars = wars.and(war.depth, war.cards);
                shuffled += war.shuffled;
            } else {
                // The best card's lane: `best` has a bit set, and none above the `M` lanes.
                (w, warred) = (best.trailing_zeros() as usize, false);
                debug_assert!(w < M);
                let (cards, k) = if PRIZE {
                    (
                        order_prize::<M, PICK>(rng, prs, ups, w, shape.layered),
                        2 * M,
                    )
                } else {
                    (order::<M, PICK>(rng, ups, w), M)
                };
                // Every card a seat holds: its stack, and its won pile under two piles.
                let held = if TWO { lens + wons } else { lens };
                let grown = if TWO { &mut wons } else { &mut lens };
                // SAFETY: `w < M` (above), and every lane's stretch lies in `buf` (asserted).
                unsafe {
                    put_under(
                        buf,
                        *base.get_unchecked(w),
                        cap,
                        heads,
                        held,
                        grown,
                        w,
                        cards,
                        k,
                    )
                };
            }
            let totals = if TWO { lens + wons } else { lens };
            // A seat out of cards stops the run. With a prize, a seat down to one card stops it
            // too (the next battle is the table battle's, or with hands `short_run`'s).
            if has_zero_lane(totals | pad)
                || PRIZE && has_zero_lane((totals - ones) | pad)
                || shape.may_end::<M>(totals, battles)
            {
                // With hands, a seat out of its supply plays on short hands where it may, this
                // battle's steps after it included.
                if !(HANDS && shape.short_hands) {
                    ahead = 1;
                    break Stop::Check(seat[w]);
                }
                match short!(true) {
                    Some(stop) => break stop,
                    None => continue,
                }
            }
            // `Tally::note_leader`. Every battle (and the deal) notes the leader, so whenever one
            // seat holds strictly the most cards, the leader is that seat. A plain battle raises
            // only the winner's count and lowers every other by the same one card (two with a
            // prize), which keeps the others' order: once a game has a leader, the lead changes
            // only to the winner, when it now holds more than every other seat. Without a branch on
            // the cards.
            //
            // Once the leader is a lane's seat holding the most cards (`lead`), it stays among the
            // seats holding the most: only the winner can pass it, so one count is compared.
            let count = |lane: usize| (totals >> (16 * lane)) as usize & LANE;
            if warred {
                // A war takes more cards from the tied seats than from the others, which may pass
                // them: the leader is looked for among every seat, as `note_leader` would.
                if lead < M {
                    leader = (seat_bytes >> (8 * lead)) as u8;
                }
                let (unique, now) = leader_lane::<M>(totals);
                lead = M;
                if unique {
                    let now_seat = (seat_bytes >> (8 * now)) as u8;
                    changes += u64::from(leader != NONE && leader != now_seat);
                    (leader, lead) = (now_seat, now);
                }
            } else if lead < M {
                let takes = w != lead && count(w) > count(lead);
                changes += u64::from(takes);
                lead = if takes { w } else { lead };
            } else if leader == NONE {
                let (unique, now) = leader_lane::<M>(totals);
                if unique {
                    (leader, lead) = ((seat_bytes >> (8 * now)) as u8, now);
                }
            } else {
                // A leader out of the game, or not among the most after a war.
                let sh = 16 * w;
                let takes = count(w) > most_lane::<M>(totals & !((LANE as u64) << sh));
                if takes {
                    changes += u64::from(leader != (seat_bytes >> (8 * w)) as u8);
                    (leader, lead) = ((seat_bytes >> (8 * w)) as u8, w);
                }
            }
            debug_assert!({
                let (unique, now) = leader_lane::<M>(totals);
                let leader = if lead < M { seat[lead] as u8 } else { leader };
                !unique || leader == (seat_bytes >> (8 * now)) as u8
            });
            if shape.cycles {
                // The replay's hint (`ring`'s `trail_byte`): lane 0's count.
                // SAFETY: the index is below `TRAIL`, the trail's length (asserted).
                unsafe { *trail.get_unchecked_mut(battles as usize % TRAIL) = lens as u8 };
                if lens == tort && tops::<M>(buf, &base, heads, mask) == tort_tops {
                    break Stop::Look;
                }
            }
            if battles >= look_at {
                break Stop::Look;
            }
        }
    };
    if shape.cycles {
        // (Through `black_box`, else the compiler keeps `lam_at + battles` as a second count
        // in memory through the loop.)
        lam = lam_at.wrapping_add(std::hint::black_box(battles) - ahead);
    }
    hands[..M].copy_from_slice(&words);
    *rng_out = g;
    if lead < M {
        leader = seat[lead] as u8;
    }
    *run = Run {
        heads,
        lens,
        wons,
        shuffled,
        battles,
        leader,
        changes,
        lam,
        wars,
        ..*run
    };
    stop
}

/// The lane among the first `M` (lane `i` is seat `seat[i]`'s, holding lane `i` of `totals`)
/// whose seat is `leader` and holds the most cards, if there is one; `M` otherwise.
#[inline(always)]
fn leading_lane<const M: usize>(leader: u8, totals: u64, seat: &[usize; MAX_PLAYERS]) -> usize {
    let total = |i: usize| (totals >> (16 * i)) as usize & LANE;
    (0..M)
        .find(|&i| leader == seat[i] as u8 && (0..M).all(|j| total(j) <= total(i)))
        .unwrap_or(M)
}

/// [`plain_run`] with hands for two seats in the game (a 2-player game, or the last two of a larger
/// one): the same battles, draws and stops, on two lanes with the policy `POLICY` (both seats', or
/// `MIXED`), the pick-up order `PICK` and whether the ranking is `ORDERED` compiled in. The general
/// run spends most of a hand battle moving its state between registers and the stack (its loops
/// over the lanes and the policy chosen per card); two hands, two heads and the generator fit in
/// registers. With `PRIZE`, each stack's top card is the prize and the one under it refills the
/// hand. With `TWO` piles, won cards go onto the won piles, and a seat's stack that has run out is
/// turned over where it draws: for its prize (every prize first), and at its refill, after its
/// pick. A tie (one that ends a vector block below too) is a war in the run where [`lane_war`] can
/// play it (the lanes handed over by value: a run that lent them to the call would keep them in
/// memory). Once a seat's supply (its stack, with its won pile under two piles) is
/// out, or with a prize down to one card, where the [`Shape`] lets hands play short, the battles
/// until both supplies are back are [`short_run`]'s, out of the loop, so the battles with full
/// hands carry nothing for them (they are about 3 % of the battles with hands of 3). Where both
/// seats play by one policy under an ordered ranking, without a prize or speed, no ending counts
/// cards and no loop is looked for (a random policy or pick-up, shuffled won piles, or the leaps
/// of a loop's replay), blocks of up to 16 battles (no more than either stack holds: under two
/// piles a block turns no pile over) go to the block loop's
/// [`hand_battles`](crate::block::hand_battles) on CPUs with AVX-512, while the leader agrees
/// with what the seats hold (a leader that is out of the game, or no leader while they hold
/// different counts, is first settled by a battle here).
#[allow(clippy::too_many_arguments)] // the run's position, handed over
#[inline(never)]
fn pair_hands<
    const PRIZE: bool,
    const TWO: bool,
    const POLICY: u8,
    const PICK: u8,
    const ORDERED: bool,
>(
    r: &Rules,
    rng_out: &mut GameRng,
    s: &mut Seats,
    shape: &Shape,
    seat: &[usize; MAX_PLAYERS],
    run: &mut Run,
    hands: &mut [u64; MAX_PLAYERS],
    trail: &mut [u8],
    order_buf: &mut Vec<u8>,
) -> Stop {
    let policies = if POLICY == policy::MIXED {
        [r.policies[seat[0]], r.policies[seat[1]]]
    } else {
        [policy_of(POLICY); 2]
    };
    // Both seats on one policy under an ordered ranking, without a prize, speed, an ending that
    // counts cards, or a loop to look for: blocks of battles with the block loop's vector code,
    // where the CPU has it. (Two piles run with the policies read per run, `MIXED`; with one,
    // `MIXED` means two policies.)
    #[cfg(target_arch = "x86_64")]
    let mut vector_blocks = 0u64;
    #[cfg(target_arch = "x86_64")]
    let blocks = !PRIZE
        && (POLICY != policy::MIXED || TWO && policies[0] == policies[1])
        && ORDERED
        && !shape.counted
        && !shape.cycles
        && shape.speed.is_none()
        && s.vectors();
    let cap = s.cap();
    debug_assert!((8..=LANES_RING).contains(&cap));
    let buf = &mut s.buf_mut()[..];
    let mask = cap - 1;
    const BOTH: u64 = 0x0001_0001;
    let wrap = BOTH * mask as u64;
    let base = [seat[0] * cap, seat[1] * cap];
    // Both stretches lie in the buffer: the reads and the store below stay inside it.
    assert!(base.iter().all(|&b| b + cap <= buf.len()));
    let seat_bytes = seat[0] as u32 | (seat[1] as u32) << 8;
    let Run {
        mut heads,
        mut lens,
        mut wons,
        mut shuffled,
        mut battles,
        mut leader,
        mut changes,
        mut lam,
        power,
        tort,
        tort_tops,
        ..
    } = *run;
    debug_assert_eq!(TWO, shape.two_pile);
    let hand = r.hand;
    debug_assert!((1..=8).contains(&hand));
    let mut words = [hands[0], hands[1]];
    let mut wars = run.wars;
    let (grabs, threshold) = shape.grab(seat);
    // The generator as a local copy, written back once (as in `plain_run`).
    let mut g = rng_out.clone();
    // Hands are short only while a supply is out (which `short_run` plays first).
    debug_assert!(
        shape.short_hands && lane_short::<2, PRIZE>(lens + wons) || run.held == hand as u64 * BOTH
    );
    // The battles while a hand may be short, out of the loop: the run's position (its
    // fields named once) goes to [`short_run`] and comes back; `$tail` is its `tail`.
    macro_rules! short {
        ($tail:expr) => {
            short!($tail; heads, lens, wons, words, shuffled, battles, leader, changes, lam)
        };
        ($tail:expr; $($field:ident),*) => {{
            let mut p = Short { $($field,)* held: run.held, bare: 0, rng: g };
            let brent = (power, tort, tort_tops);
            // SAFETY: both stretches lie in `buf` (asserted); `cap` is a power of two.
            let stop = unsafe {
                short_run::<2, PRIZE, TWO, PICK, ORDERED>(
                    r, buf, base, cap, policies, shape, seat, brent, trail, order_buf, &mut p,
                    $tail,
                )
            };
            let bare;
            Short { $($field,)* held: run.held, bare, rng: g } = p;
            if PRIZE {
                run.bare += bare;
            }
            stop
        }};
    }
    let stop = 'run: {
        // A leg may start with a seat's supply out (its hand full or not).
        if shape.short_hands
            && lane_short::<2, PRIZE>(lens + wons)
            && let Some(stop) = short!(false)
        {
            break 'run stop;
        }
        loop {
            // A tie that ended a vector block: its cards are played, the slots refilled and the
            // stacks moved on, as a battle below leaves them; its war is theirs.
            #[cfg(target_arch = "x86_64")]
            let block_tie = if blocks {
                let (l0, l1) = (lens as usize & LANE, (lens >> 16) as usize & LANE);
                // (Under two piles no card is drawn from an empty stack inside a block: a stack
                // its last battle empties turns its won pile over in the next battle, below.)
                let k = l0.min(l1).min(16).min((shape.cap - battles) as usize);
                let (m0, m1) = if TWO {
                    (wons as usize & LANE, (wons >> 16) as usize & LANE)
                } else {
                    (0, 0)
                };
                let (t0, t1) = (l0 + m0, l1 + m1);
                // The block counts lead changes from the sign of the margin of what the seats
                // hold, which must agree with the leader (a seat out of the game, or none while
                // they differ, leads only until the next battle).
                let lead = if leader == seat_bytes as u8 {
                    Some(1)
                } else if leader == (seat_bytes >> 8) as u8 {
                    Some(-1)
                } else if leader == NONE {
                    Some(0)
                } else {
                    None
                };
                let agreed = lead.filter(|&lead| t0 == t1 || lead != 0 && (t0 > t1) == (lead > 0));
                if k >= 2
                    && let Some(lead) = agreed
                {
                    let mut hr = crate::block::HandRun {
                        heads: [heads as usize & mask, (heads >> 16) as usize & mask],
                        lens: [l0, l1],
                        wons: [m0, m1],
                        words,
                        lead,
                        changes,
                    };
                    // SAFETY: `blocks` says the CPU has the vector code; `2 ≤ k ≤ 16` and both
                    // stacks hold `k` cards; `cap` is a power of two (the seats' stretches are)
                    // and both stretches lie in the buffer (asserted), each ring holding its won
                    // pile (if any) right behind its stack; hands of `hand ≤ 8` cards; the lead
                    // agrees.
                    let b = unsafe {
                        macro_rules! battles {
                            ($policy:expr) => {
                                crate::block::hand_battles::<PICK, TWO, { $policy }>(
                                    buf,
                                    base,
                                    cap,
                                    hand as u32,
                                    k,
                                    &mut hr,
                                    &mut g,
                                )
                            };
                        }
                        // (Under `MIXED`, both seats' policy, read per run.)
                        let code = if POLICY == policy::MIXED {
                            policy_code(policies[0])
                        } else {
                            POLICY
                        };
                        match code {
                            policy::RANDOM => battles!(policy::RANDOM),
                            policy::HIGHEST => battles!(policy::HIGHEST),
                            policy::LOWEST => battles!(policy::LOWEST),
                            _ => battles!(policy::MEDIAN),
                        }
                    };
                    heads = hr.heads[0] as u64 | (hr.heads[1] as u64) << 16;
                    lens = hr.lens[0] as u64 | (hr.lens[1] as u64) << 16;
                    if TWO {
                        wons = hr.wons[0] as u64 | (hr.wons[1] as u64) << 16;
                    }
                    words = hr.words;
                    changes = hr.changes;
                    leader = match hr.lead.signum() {
                        1 => seat_bytes as u8,
                        -1 => (seat_bytes >> 8) as u8,
                        _ => leader,
                    };
                    battles += b.played as u64;
                    vector_blocks += 1;
                    if b.tie.is_none() {
                        // (A seat with no stack left under two piles has its won pile to turn
                        // over, in the next battle.)
                        let out = |p: usize| hr.lens[p] + if TWO { hr.wons[p] } else { 0 } == 0;
                        if out(0) || out(1) {
                            let w = (b.won1 >> (b.played - 1)) as usize & 1;
                            break Stop::Check(seat[w]);
                        }
                        if battles >= shape.cap {
                            break Stop::Look;
                        }
                        continue;
                    }
                    b.tie
                } else {
                    None
                }
            } else {
                None
            };
            #[cfg(not(target_arch = "x86_64"))]
            let block_tie: Option<[u8; 2]> = None;
            let (ups, top0, top1, best) = if let Some([up0, up1]) = block_tie {
                (u64::from(up0) | u64::from(up1) << 8, 0, 0, 0b11)
            } else {
                battles += 1;
                let (top0, top1, up0, up1);
                if TWO {
                    // With a prize, each seat's first, from its stack (turned over where it has run
                    // out); then each seat picks its card and refills the slot from its stack, which
                    // turns its won pile over first where it has run out (the general draw's order).
                    let (mut top, mut ups) = ([0u64; 2], [0u64; 2]);
                    let mut prizes = [0u64; 2];
                    if PRIZE {
                        for (i, &b) in base.iter().enumerate() {
                            let (h, l, m) = (&mut heads, &mut lens, &mut wons);
                            // SAFETY: the stretch `b .. b + cap` lies in `buf` (asserted).
                            let (turned, card) = unsafe {
                                refill_card(buf, b, cap, i, h, l, m, shape.shuffles, &mut g)
                            };
                            (shuffled, prizes[i]) = (shuffled + turned, card);
                            heads = (heads + (1 << (16 * i))) & wrap;
                            lens -= 1 << (16 * i);
                        }
                    }
                    for (i, &b) in base.iter().enumerate() {
                        let slot =
                            r.choose_by(policies[i], &words[i].to_le_bytes()[..hand], &mut g);
                        let (h, l, m) = (&mut heads, &mut lens, &mut wons);
                        // SAFETY: the stretch `b .. b + cap` lies in `buf` (asserted).
                        let (turned, card) =
                            unsafe { refill_card(buf, b, cap, i, h, l, m, shape.shuffles, &mut g) };
                        (shuffled, top[i]) = (shuffled + turned, card);
                        (ups[i], words[i]) = refill(words[i], slot, top[i]);
                    }
                    // (With a prize, the prizes are what the battle needs of the tops.)
                    [top0, top1] = if PRIZE { prizes } else { top };
                    [up0, up1] = ups;
                } else {
                    let (h0, h1) = (heads as usize & mask, (heads >> 16) as usize & mask);
                    // SAFETY: `h < cap` and each stretch `b .. b + cap` lies in `buf` (asserted).
                    (top0, top1) = unsafe {
                        (
                            u64::from(*buf.get_unchecked(base[0] + h0)),
                            u64::from(*buf.get_unchecked(base[1] + h1)),
                        )
                    };
                    // With a prize, the top card is the prize and the one under it refills the hand.
                    let (fill0, fill1) = if PRIZE {
                        // SAFETY: as above, the positions masked into the stretches.
                        unsafe {
                            (
                                u64::from(*buf.get_unchecked(base[0] + ((h0 + 1) & mask))),
                                u64::from(*buf.get_unchecked(base[1] + ((h1 + 1) & mask))),
                            )
                        }
                    } else {
                        (top0, top1)
                    };
                    let (word0, word1);
                    (up0, word0) = draw_up(r, policies[0], hand, words[0], fill0, &mut g);
                    (up1, word1) = draw_up(r, policies[1], hand, words[1], fill1, &mut g);
                    words = [word0, word1];
                }
                let ups = up0 | up1 << 8;
                // (Under two piles the prizes are taken already.)
                let moved = if PRIZE && !TWO { 2 * BOTH } else { BOTH };
                heads = (heads + moved) & wrap;
                lens -= moved;
                let best = best_lane::<2, ORDERED>(r, ups);
                let best = if grabs && g.next_u64() < threshold {
                    1
                } else {
                    best
                };
                (ups, top0, top1, best)
            };
            let w;
            if best == 0b11 {
                // The war between the two is played here where both can play it in full; a war
                // that cannot is `hand_war`'s, from its start.
                let prs = if PRIZE { top0 | top1 << 8 } else { 0 };
                let war = if shape.lane_wars {
                    let lanes = (heads, lens, wons, words);
                    // SAFETY: both stretches lie in `buf` (asserted); `cap` is a power of two.
                    unsafe {
                        lane_war::<2, PRIZE, TWO, ORDERED>(
                            r,
                            buf,
                            base,
                            cap,
                            lanes,
                            g.clone(),
                            policies,
                            shape.shuffles,
                            0b11,
                            prs,
                            ups,
                            order_buf,
                        )
                    }
                } else {
                    None
                };
                let Some(war) = war else {
                    break Stop::tie::<2>(seat, 0b11, prs, ups);
                };
                (heads, lens, wons, words) = (war.heads, war.lens, war.wons, war.words);
                g = war.rng;
                w = war.winner;
                wars = wars.and(war.depth, war.cards);
                shuffled += war.shuffled;
            } else {
                // Lane 1 won if its bit is the one set.
                w = usize::from(best >> 1);
                let (cards, k) = if PRIZE {
                    let prs = top0 | top1 << 8;
                    (
                        order_prize::<2, PICK>(&mut g, prs, ups, w, shape.layered),
                        4,
                    )
                } else {
                    (order::<2, PICK>(&mut g, ups, w), 2)
                };
                // The won cards go under the stack, or under two piles onto the won pile (`wons`
                // is zero with one pile).
                let mut grown = if TWO { wons } else { lens };
                // SAFETY: both stretches lie in `buf` (asserted).
                unsafe {
                    put_under(
                        buf,
                        base[w],
                        cap,
                        heads,
                        lens + wons,
                        &mut grown,
                        w,
                        cards,
                        k,
                    )
                };
                (lens, wons) = if TWO { (lens, grown) } else { (grown, wons) };
            }
            // A seat that cannot refill its hand (after a prize) stops the run, or with short
            // hands goes on in `short_run`.
            let totals = lens + wons;
            let (l0, l1) = (totals & LANE as u64, (totals >> 16) & LANE as u64);
            let need = 1 + u64::from(PRIZE);
            if l0 < need || l1 < need || shape.may_end::<2>(totals, battles) {
                // A seat out of its supply plays on short hands where it may, this battle's
                // steps after it included.
                if !shape.short_hands {
                    break Stop::Check(seat[w]);
                }
                match short!(true) {
                    Some(stop) => break stop,
                    None => continue,
                }
            }
            // (Hands are full and the same size: the cards outside them decide the lead.)
            (leader, changes) = note_pair_leader(leader, changes, l0, l1, seat_bytes);
            if shape.cycles {
                // As in `plain_run`: the replay's hint, and Brent's count against the saved
                // position (its hands compared by `ring` only where lengths and tops match).
                trail[battles as usize % TRAIL] = lens as u8;
                lam += 1;
                if lam == power || lens == tort && tops::<2>(buf, &base, heads, mask) == tort_tops {
                    break Stop::Look;
                }
            }
            if battles >= shape.cap {
                break Stop::Look;
            }
        }
    };
    #[cfg(target_arch = "x86_64")]
    s.count_hand_blocks(vector_blocks);
    hands[..2].copy_from_slice(&words);
    *rng_out = g;
    run.heads = heads;
    run.lens = lens;
    run.wons = wons;
    run.shuffled = shuffled;
    run.battles = battles;
    run.leader = leader;
    run.changes = changes;
    run.lam = lam;
    run.wars = wars;
    stop
}

/// `Tally::note_leader` for two seats holding `l0` and `l1` cards (lanes 0 and 1, whose seats
/// are the bytes of `seat_bytes`): the one holding more leads, and on equal counts the lead
/// stays. A change is counted whenever a leader there was gives way (to the other seat: a
/// leader that is out of the game lasts only while the two are level).
#[inline(always)]
fn note_pair_leader(leader: u8, changes: u64, l0: u64, l1: u64, seat_bytes: u32) -> (u8, u64) {
    let now = if l0 > l1 {
        seat_bytes as u8
    } else if l1 > l0 {
        (seat_bytes >> 8) as u8
    } else {
        leader
    };
    (now, changes + u64::from(leader != NONE && now != leader))
}

/// The lanes past the first `M` set to 1, so that only the first `M` can read as zero.
#[inline(always)]
const fn pad<const M: usize>() -> u64 {
    if M >= 4 {
        0
    } else {
        0x0001_0001_0001_0001 & !((1 << (16 * M)) - 1)
    }
}

/// Whether one of the first `M` lanes of `x` is zero: a seat out of its supply, or out of
/// cards.
#[inline(always)]
fn lane_out<const M: usize>(x: u64) -> bool {
    has_zero_lane(x | pad::<M>())
}

/// Whether the supply (`supply`, the first `M` lanes) of a seat is short of a battle in full:
/// out, or with a `PRIZE` down to one card (the prize, and no card to refill the hand).
#[inline(always)]
fn lane_short<const M: usize, const PRIZE: bool>(supply: u64) -> bool {
    // A lane below 2 is one with every bit above its lowest clear.
    lane_out::<M>(if PRIZE {
        supply & !0x0001_0001_0001_0001
    } else {
        supply
    })
}

/// A run's position and counts while a hand may be short ([`pair_hands`]' for two seats,
/// [`plain_run`]'s for 3–4), lent to [`short_run`] at the run's start or from its rarely taken
/// branch (the run keeps its own in registers).
struct Short<const M: usize> {
    heads: u64,
    lens: u64,
    wons: u64,
    held: u64,
    /// Prizes not given (by a seat whose supply was out).
    bare: u64,
    words: [u64; M],
    rng: GameRng,
    shuffled: u64,
    battles: u64,
    leader: u8,
    changes: u64,
    lam: u64,
}

/// Battles of a run of `M` seats with hands while a seat's supply (its stack, with its won
/// pile under two piles) is out, or with a `PRIZE` down to one card ([`lane_short`]), as the
/// general battle plays them. With a prize, each seat with a card in its supply gives its top
/// card as its prize first (under two piles, turning its won pile over where its stack is
/// out; a seat whose supply is out gives none). Each seat picks from the cards in
/// its hand by its policy; a seat with a supply refills the slot from it (under two piles
/// turning its won pile over where its stack is out), a seat without one plays its hand down,
/// its last card moved into the slot (`Holdings::draw_up`). The winner picks up (with a prize,
/// by [`Rules::order_pickup`], as the pots may be uneven), and its
/// hand, if short, grows back from its supply (`Holdings::top_up`; the others' cannot, for a
/// hand is short only while its supply is out). With `tail`, the run has just played the
/// battle that took a supply out, and that battle's steps after it (the leader, Brent's
/// count, the cap) come first. Returns `None` once every supply is back (every hand full
/// again), or why the run stops: a tie (its war is `hand_war`'s, as a war with a supply out
/// cannot be played on the lanes, or where a prize is missing the general contest's), a seat
/// out of cards, or a look.
///
/// # Safety
///
/// Every stretch `base[i] .. base[i] + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // the run's context, handed over
#[cold]
#[inline(never)]
unsafe fn short_run<
    const M: usize,
    const PRIZE: bool,
    const TWO: bool,
    const PICK: u8,
    const ORDERED: bool,
>(
    r: &Rules,
    buf: &mut [u8],
    base: [usize; M],
    cap: usize,
    policies: [Policy; M],
    shape: &Shape,
    seat: &[usize; MAX_PLAYERS],
    (power, tort, tort_tops): (u64, u64, u64),
    trail: &mut [u8],
    order_buf: &mut Vec<u8>,
    p: &mut Short<M>,
    mut tail: bool,
) -> Option<Stop> {
    debug_assert!(
        shape.short_hands,
        "short hands only where the shape lets them"
    );
    let (hand, mask) = (r.hand as u64, cap - 1);
    let ones = (0..M).fold(0u64, |v, i| v | 1 << (16 * i));
    let wrap = ones * mask as u64;
    let (grabs, threshold) = shape.grab(seat);
    let lane = |x: u64, i: usize| (x >> (16 * i)) & LANE as u64;
    loop {
        if tail {
            // `Tally::note_leader`: the one seat holding the most leads, else the lead stays.
            let (unique, now) = leader_lane::<M>(p.lens + p.wons + p.held);
            if unique {
                let now = seat[now] as u8;
                p.changes += u64::from(p.leader != NONE && now != p.leader);
                p.leader = now;
            }
            if shape.cycles {
                trail[p.battles as usize % TRAIL] = p.lens as u8;
                p.lam += 1;
                let supply = p.lens + p.wons;
                if p.lam == power
                    || p.lens == tort && short_tops(buf, &base, p.heads, supply, mask) == tort_tops
                {
                    return Some(Stop::Look);
                }
            }
            if p.battles >= shape.cap {
                return Some(Stop::Look);
            }
            if !lane_short::<M, PRIZE>(p.lens + p.wons) {
                debug_assert_eq!(p.held, hand * ones, "a short hand with a supply");
                return None;
            }
        }
        tail = true;
        p.battles += 1;
        // With a prize, the top card of each seat with a supply first; `prized`, the lanes that
        // gave one.
        let (mut prs, mut prized) = (0u64, 0u8);
        if PRIZE {
            for (i, &b) in base.iter().enumerate() {
                if lane(p.lens + p.wons, i) > 0 {
                    let one = 1u64 << (16 * i);
                    let (h, l, m) = (&mut p.heads, &mut p.lens, &mut p.wons);
                    // SAFETY: the stretch `b .. b + cap` lies in `buf` (the caller's word).
                    let (turned, top) =
                        unsafe { refill_card(buf, b, cap, i, h, l, m, shape.shuffles, &mut p.rng) };
                    p.shuffled += turned;
                    prs |= top << (8 * i);
                    p.heads = (p.heads + one) & wrap;
                    p.lens -= one;
                    prized |= 1 << i;
                }
            }
            p.bare += u64::from(M as u32 - prized.count_ones());
        }
        let mut ups = 0;
        for (i, &b) in base.iter().enumerate() {
            let one = 1u64 << (16 * i);
            let n = lane(p.held, i) as usize;
            debug_assert!(n > 0, "a seat in the game holds a card");
            let slot = r.choose_by(policies[i], &p.words[i].to_le_bytes()[..n], &mut p.rng);
            let card;
            if lane(p.lens + p.wons, i) > 0 {
                let (h, l, m) = (&mut p.heads, &mut p.lens, &mut p.wons);
                // SAFETY: the stretch `b .. b + cap` lies in `buf` (the caller's word).
                let (turned, top) =
                    unsafe { refill_card(buf, b, cap, i, h, l, m, shape.shuffles, &mut p.rng) };
                p.shuffled += turned;
                (card, p.words[i]) = refill(p.words[i], slot, top);
                p.heads = (p.heads + one) & wrap;
                p.lens -= one;
            } else {
                let last = (p.words[i] >> (8 * (n - 1))) & 0xFF;
                (card, p.words[i]) = refill(p.words[i], slot, last);
                p.held -= one;
            }
            ups |= card << (8 * i);
        }
        let best = best_lane::<M, ORDERED>(r, ups);
        let best = if grabs && p.rng.next_u64() < threshold {
            1
        } else {
            best
        };
        if best & (best - 1) != 0 {
            return Some(if PRIZE && prized.count_ones() < M as u32 {
                Stop::Bare {
                    given: seat_mask::<M>(seat, prized),
                    prize: by_seat::<M>(seat, prs),
                    up: by_seat::<M>(seat, ups),
                }
            } else {
                Stop::tie::<M>(seat, best, prs, ups)
            });
        }
        // The best card's lane: `best` has one bit set, none above the `M` lanes.
        let w = best.trailing_zeros() as usize;
        let (cards, k) = if PRIZE {
            // Each seat's pot, the prize under its face-up card, in seat order: the general
            // battle's pick-up of its opening.
            let mut pots = [[0u8; 2]; MAX_PLAYERS];
            let mut sizes = [0usize; MAX_PLAYERS];
            for (i, &q) in seat.iter().enumerate().take(M) {
                let up = (ups >> (8 * i)) as u8;
                sizes[q] = if prized >> i & 1 != 0 {
                    pots[q] = [(prs >> (8 * i)) as u8, up];
                    2
                } else {
                    pots[q][0] = up;
                    1
                };
            }
            let of: [&[u8]; MAX_PLAYERS] = std::array::from_fn(|q| &pots[q][..sizes[q]]);
            r.order_pickup(seat[w], &of[..r.players], order_buf, &mut p.rng);
            let cards = order_buf
                .iter()
                .rev()
                .fold(0u64, |v, &c| v << 8 | u64::from(c));
            (cards, order_buf.len())
        } else {
            (order::<M, PICK>(&mut p.rng, ups, w), M)
        };
        let mut grown = if TWO { p.wons } else { p.lens };
        // SAFETY: `w < M`, and every stretch lies in `buf` (the caller's word).
        unsafe {
            put_under(
                buf,
                base[w],
                cap,
                p.heads,
                p.lens + p.wons,
                &mut grown,
                w,
                cards,
                k,
            )
        };
        (p.lens, p.wons) = if TWO {
            (p.lens, grown)
        } else {
            (grown, p.wons)
        };
        let one = 1u64 << (16 * w);
        while lane(p.held, w) < hand && lane(p.lens + p.wons, w) > 0 {
            let (h, l, m) = (&mut p.heads, &mut p.lens, &mut p.wons);
            // SAFETY: as above.
            let (turned, top) =
                unsafe { refill_card(buf, base[w], cap, w, h, l, m, shape.shuffles, &mut p.rng) };
            p.shuffled += turned;
            let at = 8 * lane(p.held, w);
            p.words[w] = p.words[w] & !(0xFF << at) | top << at;
            p.heads = (p.heads + one) & wrap;
            p.lens -= one;
            p.held += one;
        }
        if lane_out::<M>(p.lens + p.wons + p.held) {
            return Some(Stop::Check(seat[w]));
        }
    }
}

/// The top card of each of the `M` stacks at `base` with heads `heads` (lane `i`'s in byte
/// `i`), 0 for a seat with no supply (stack and won pile, `supply`): what lies at its head is
/// no card of the position, and equal positions must give equal tops. (A stack that has run
/// out under two piles has its won pile's top at its head.)
#[inline(always)]
fn short_tops<const M: usize>(
    buf: &[u8],
    base: &[usize; M],
    heads: u64,
    supply: u64,
    mask: usize,
) -> u64 {
    let held = (0..M)
        .filter(|&i| (supply >> (16 * i)) & LANE as u64 != 0)
        .fold(0, |v, i| v | 0xFF << (8 * i));
    tops::<M>(buf, base, heads, mask) & held
}

/// A war that a run with hands hands over, as [`lane_war`] played it: the lane that won, the
/// lanes and hands after, the generator, the wars played and the cards they turned.
struct LaneWar<const M: usize> {
    winner: usize,
    heads: u64,
    lens: u64,
    wons: u64,
    words: [u64; M],
    rng: GameRng,
    depth: u32,
    cards: u64,
    /// Won piles shuffled into a stack in the war.
    shuffled: u64,
}

/// The war after a tie among the lanes `tied` (a mask of lanes) of a run of `M` seats with
/// hands ([`pair_hands`], [`plain_run`]; the prizes `prs` under the face-up cards `ups` with
/// `PRIZE`, lane `i`'s in byte `i`), played as [`hand_war`] plays it: each round, each tied
/// lane in turn puts its `n` cards face down from its stack and plays a card from its hand by
/// its policy, the slot refilled from its stack, until one lane's card is best; the winner
/// picks up every pot by [`Rules::order_pickup`] behind everything it holds (under its stack,
/// or with `TWO` piles onto its won pile). With `TWO` piles a stack that runs out turns its
/// won pile over where the general draw does (a face-down card, or the refill after the
/// pick). The lanes, hands and generator come in by value and go back in the result, and a
/// won pile shuffled in the war is saved first, so a war given up leaves the run's position
/// untouched: `None`, and [`hand_war`] plays it from the start. A war is given up where a tied
/// lane's stack (with its won pile under two piles) holds no more cards than the round puts
/// face down (it could not refill its hand after them, or a short war rule decides), where
/// it would shuffle a pile of more than 128 cards, or where the pots outgrow their room.
///
/// # Safety
///
/// Every stretch `base[i] .. base[i] + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(never)]
unsafe fn lane_war<const M: usize, const PRIZE: bool, const TWO: bool, const ORDERED: bool>(
    r: &Rules,
    buf: &mut [u8],
    base: [usize; M],
    cap: usize,
    (mut heads, mut lens, mut wons, mut words): (u64, u64, u64, [u64; M]),
    mut g: GameRng,
    policies: [Policy; M],
    shuffles: bool,
    tied: u8,
    prs: u64,
    mut ups: u64,
    order: &mut Vec<u8>,
) -> Option<LaneWar<M>> {
    // `pair_war`'s room: a longer war is the general rounds'.
    const ROOM: usize = 64;
    let mask = cap - 1;
    let lane = |x: u64, i: usize| (x >> (16 * i)) as usize & LANE;
    // SAFETY: every position is masked into a stretch that lies in `buf` (the caller's word).
    let card =
        |buf: &[u8], i: usize, pos: usize| unsafe { *buf.get_unchecked(base[i] + (pos & mask)) };
    let hand = r.hand;
    let mut pots = [[0u8; ROOM]; M];
    // Every pot starts with its prize and face-up card; the pots of the lanes still in the
    // war grow alike, to `len`, and a lane out of it keeps the pot it had (`pot_lens`).
    let first = 1 + usize::from(PRIZE);
    for (i, pot) in pots.iter_mut().enumerate() {
        if PRIZE {
            pot[0] = (prs >> (8 * i)) as u8;
        }
        pot[first - 1] = (ups >> (8 * i)) as u8;
    }
    let mut pot_lens = [first; M];
    let (mut contenders, mut len, mut depth, mut cards) = (tied, first, 0u32, 0u64);
    let wrap = (0..M).fold(0u64, |v, i| v | (mask as u64) << (16 * i));
    // Under `on_empty = shuffle`, each won pile the war shuffled (a lane's at most once: its
    // war adds nothing to it), as it was: where it started in the ring and its cards, up to
    // `SAVED` of them (a longer one gives the war up instead).
    const SAVED: usize = 128;
    let (mut saved, mut starts, mut saved_lanes) = ([[0u8; SAVED]; M], [0usize; M], 0u8);
    let mut shuffled = 0u64;
    // Puts the piles back: `shuffle_pile` shuffled each where it lay, or a pile that wrapped
    // round the ring after turning the stretch left to put it first.
    let restore = |buf: &mut [u8], saved: &[[u8; SAVED]; M], starts: &[usize; M], lanes: u8| {
        for i in (0..M).filter(|&i| lanes >> i & 1 != 0) {
            let (start, len) = (starts[i] & mask, starts[i] >> 16);
            let stretch = &mut buf[base[i]..base[i] + cap];
            if start + len <= cap {
                stretch[start..start + len].copy_from_slice(&saved[i][..len]);
            } else {
                stretch[..len].copy_from_slice(&saved[i][..len]);
                stretch.rotate_right(start);
            }
        }
    };
    let winner = loop {
        let lead = contenders.trailing_zeros() as usize;
        let n = r.war_size(depth + 1, (ups >> (8 * lead)) as u8);
        // Under two piles the won pile counts: it is turned over where the stack runs out.
        let supply = |i: usize| lane(lens, i) + if TWO { lane(wons, i) } else { 0 };
        let short = (0..M).any(|i| contenders >> i & 1 != 0 && supply(i) <= n);
        if short || len + n + 1 > ROOM {
            restore(buf, &saved, &starts, saved_lanes);
            return None;
        }
        depth += 1;
        cards += u64::from(contenders.count_ones()) * (n as u64 + 1);
        for (i, pot) in pots.iter_mut().enumerate() {
            if contenders >> i & 1 == 0 {
                continue;
            }
            // Card by card, under two piles the stack turning its won pile over where it runs
            // out (as the general draw does; the refill's after the pick). A pile shuffled in
            // place is saved first, for a war given up later to leave the buffer as it was; a
            // war that would shuffle a pile it cannot save is given up. (With one pile the
            // stack holds the round: `supply`.)
            macro_rules! turn_over {
                () => {
                    if TWO && lane(lens, i) == 0 {
                        if shuffles {
                            let (start, len) = (lane(heads, i), lane(wons, i));
                            if len > SAVED {
                                restore(buf, &saved, &starts, saved_lanes);
                                return None;
                            }
                            for (k, c) in saved[i][..len].iter_mut().enumerate() {
                                *c = card(buf, i, start + k);
                            }
                            starts[i] = start | len << 16;
                            saved_lanes |= 1 << i;
                        }
                        let (h, l, w) = (&mut heads, &mut lens, &mut wons);
                        shuffled += turn_over_lane(buf, base[i], cap, i, h, l, w, shuffles, &mut g);
                    }
                };
            }
            // The stack's top card, taken.
            macro_rules! take {
                () => {{
                    let c = card(buf, i, lane(heads, i));
                    heads = (heads + (1 << (16 * i))) & wrap;
                    lens -= 1 << (16 * i);
                    c
                }};
            }
            for j in 0..n {
                turn_over!();
                pot[len + j] = take!();
            }
            let slot = r.choose_by(policies[i], &words[i].to_le_bytes()[..hand], &mut g);
            turn_over!();
            let fill = take!();
            let up;
            (up, words[i]) = refill(words[i], slot, u64::from(fill));
            pot[len + n] = up as u8;
            pot_lens[i] = len + n + 1;
            let sh = 8 * i as u32;
            ups = ups & !(0xFF << sh) | up << sh;
        }
        len += n + 1;
        let best = best_among::<M, ORDERED>(r, ups, contenders);
        if best & (best - 1) == 0 {
            break best.trailing_zeros() as usize;
        }
        contenders = best;
    };
    let refs: [&[u8]; M] = std::array::from_fn(|i| &pots[i][..pot_lens[i]]);
    r.order_pickup(winner, &refs, order, &mut g);
    let at = lane(heads, winner) + lane(lens, winner) + lane(wons, winner);
    for (k, &c) in order.iter().enumerate() {
        // SAFETY: as `card`'s.
        unsafe { *buf.get_unchecked_mut(base[winner] + ((at + k) & mask)) = c };
    }
    let grown = if TWO { &mut wons } else { &mut lens };
    *grown += (order.len() as u64) << (16 * winner);
    Some(LaneWar {
        winner,
        heads,
        lens,
        wons,
        words,
        rng: g,
        depth,
        cards,
        shuffled,
    })
}

/// The lanes among `contenders` (a mask) holding the best face-up card (lane `i`'s in byte `i`
/// of `ups`), as a mask: [`Rules::best_of_first`] on the lanes.
#[inline(always)]
fn best_among<const M: usize, const ORDERED: bool>(r: &Rules, ups: u64, contenders: u8) -> u8 {
    let card = |i: usize| (ups >> (8 * i)) as u8;
    let contends = |i: usize| contenders >> i & 1 != 0;
    if ORDERED {
        let max = (0..M).filter(|&i| contends(i)).map(card).max().unwrap_or(0);
        (0..M).fold(0, |m, i| m | u8::from(contends(i) && card(i) == max) << i)
    } else {
        let up = (ups as u32).to_le_bytes();
        r.best_of_first::<M>(contenders, &up)
    }
}

/// `Holdings::draw_up` on a hand in a word (slot `i` in byte `i`): the card `policy` plays
/// from the `hand` slots of `word`, and the hand after, the slot refilled with the stack's top
/// card `top`.
#[inline(always)]
fn draw_up(
    r: &Rules,
    policy: Policy,
    hand: usize,
    word: u64,
    top: u64,
    rng: &mut GameRng,
) -> (u64, u64) {
    let slot = r.choose_by(policy, &word.to_le_bytes()[..hand], rng);
    refill(word, slot, top)
}

/// The card in slot `slot` of the hand `word`, and the hand after, the slot refilled with
/// `top`.
#[inline(always)]
fn refill(word: u64, slot: usize, top: u64) -> (u64, u64) {
    let at = 8 * slot as u32;
    ((word >> at) & 0xFF, word & !(0xFF << at) | top << at)
}

/// The top card of each of the `M` stacks at `base` with heads `heads` (lane `i`'s in byte
/// `i`). Runs look only while every seat has a supply: a stack that is out under two piles has
/// its won pile's top at its head (a seat with neither is [`short_tops`]').
#[inline(always)]
fn tops<const M: usize>(buf: &[u8], base: &[usize; M], heads: u64, mask: usize) -> u64 {
    (0..M).fold(0, |v, i| {
        v | u64::from(buf[base[i] + ((heads >> (16 * i)) as usize & mask)]) << (8 * i)
    })
}

/// The seats holding the best face-up card (seat `i`'s in byte `i` of `ups`), as a mask:
/// [`best_among`] every lane.
#[inline(always)]
fn best_lane<const M: usize, const ORDERED: bool>(r: &Rules, ups: u64) -> u8 {
    best_among::<M, ORDERED>(r, ups, ((1u16 << M) - 1) as u8)
}

/// The largest of the first `M` lanes.
#[inline(always)]
fn most_lane<const M: usize>(lens: u64) -> usize {
    (0..M)
        .map(|i| (lens >> (16 * i)) as usize & LANE)
        .max()
        .unwrap_or(0)
}

/// The one lane of the first `M` holding the most cards, and whether there is one (no tie):
/// [`leader_of`] on lanes.
#[inline(always)]
fn leader_lane<const M: usize>(lens: u64) -> (bool, usize) {
    let len = |i: usize| (lens >> (16 * i)) as usize & LANE;
    let most = most_lane::<M>(lens);
    let holders = (0..M).fold(0u8, |m, i| m | u8::from(len(i) == most) << i);
    (
        holders & holders.wrapping_sub(1) == 0,
        holders.trailing_zeros() as usize,
    )
}

/// Whether a 16-bit lane of `x` is zero (exact: a borrow only runs on from a zero lane).
#[inline(always)]
fn has_zero_lane(x: u64) -> bool {
    const LOW: u64 = 0x0001_0001_0001_0001;
    const HIGH: u64 = 0x8000_8000_8000_8000;
    x.wrapping_sub(LOW) & !x & HIGH != 0
}

/// The pick-up of a plain battle of `M` seats that lane `w` won, from the face-up cards (lane
/// `i`'s in byte `i`), in the order `PICK`: the cards of [`pickup`] without a prize, in a word.
#[inline(always)]
fn order<const M: usize, const PICK: u8>(rng: &mut GameRng, ups: u64, w: usize) -> u64 {
    match PICK {
        pick::SHUFFLED => rng.shuffle_word(ups, M),
        pick::SEAT => ups,
        pick::WINNER | pick::LOSER => apart::<M>(ups, w, 8, PICK == pick::WINNER),
        _ => {
            // A sorting network on the bytes, with no branch on the cards.
            let mut b = ups.to_le_bytes();
            for i in 1..M {
                for j in (0..i).rev() {
                    let (x, y) = (b[j], b[j + 1]);
                    let (lo, hi) = (x.min(y), x.max(y));
                    (b[j], b[j + 1]) = if PICK == pick::DESC {
                        (hi, lo)
                    } else {
                        (lo, hi)
                    };
                }
            }
            u64::from_le_bytes(b)
        }
    }
}

/// The `M` units of `bits` bits of `word` (a card, or a prize and its card) with lane `w`'s
/// taken out and put first (`first`) or last, the others closing up in seat order: the
/// winner-first and loser-first orders.
#[inline(always)]
fn apart<const M: usize>(word: u64, w: usize, bits: u32, first: bool) -> u64 {
    let at = bits * w as u32;
    let own = (word >> at) & ((1 << bits) - 1);
    let below = word & ((1 << at) - 1);
    // (A shift by 64, past the last of four pots, is nothing.)
    let above = word.checked_shr(at + bits).unwrap_or(0);
    let others = below | above << at;
    if first {
        own | others << bits
    } else {
        others | own << (bits * (M as u32 - 1))
    }
}

/// The pick-up of a plain battle with a prize that lane `w` won, from the prizes `prs` and the
/// face-up cards `ups` (lane `i`'s in byte `i`), in [`pickup`]'s order of the `2M` cards
/// (`layered`: `played`, layer by layer), in a word.
#[inline(always)]
fn order_prize<const M: usize, const PICK: u8>(
    rng: &mut GameRng,
    prs: u64,
    ups: u64,
    w: usize,
    layered: bool,
) -> u64 {
    // Pot by pot in seat order: lane `i`'s prize and card in bytes `2i` and `2i + 1`.
    let pots = (0..M).fold(0u64, |v, i| {
        let pot = (prs >> (8 * i)) & 0xFF | ((ups >> (8 * i)) & 0xFF) << 8;
        v | pot << (16 * i)
    });
    match PICK {
        pick::SHUFFLED => rng.shuffle_word(pots, 2 * M),
        // Layer by layer in seat order.
        pick::SEAT => prs | ups << (8 * M),
        pick::WINNER if layered => {
            // Each layer winner first, the others in seat order: a card each's order twice.
            order::<M, PICK>(rng, prs, w) | order::<M, PICK>(rng, ups, w) << (8 * M)
        }
        pick::WINNER | pick::LOSER => apart::<M>(pots, w, 16, PICK == pick::WINNER),
        _ => {
            let mut b = pots.to_le_bytes();
            if PICK == pick::DESC {
                b[..2 * M].sort_unstable_by(|x, y| y.cmp(x));
            } else {
                b[..2 * M].sort_unstable();
            }
            u64::from_le_bytes(b)
        }
    }
}

/// A run's pick-up: the first `k` cards of the word `cards` put behind every card lane `w`
/// holds (the ring of `cap` bytes at `stretch`; heads and the cards held as lanes of `heads`
/// and `held`), and its lane of `grown` (the stack's lengths with one pile, the won piles'
/// with two) raised by `k`. Where the ring leaves room, one word is written past the tail: the
/// bytes after the `k`th land where no card lies.
///
/// # Safety
/// `stretch + cap <= buf.len()`.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(always)]
unsafe fn put_under(
    buf: &mut [u8],
    stretch: usize,
    cap: usize,
    heads: u64,
    held: u64,
    grown: &mut u64,
    w: usize,
    cards: u64,
    k: usize,
) {
    let sh = 16 * w;
    let mask = cap - 1;
    let head = (heads >> sh) as usize & LANE;
    let held = (held >> sh) as usize & LANE;
    let at = (head + held) & mask;
    if at + 8 <= cap && held + 8 <= cap {
        // SAFETY: `at + 8 <= cap`, and the stretch lies in `buf` (the caller's promise).
        unsafe {
            let to = buf.as_mut_ptr().add(stretch + at);
            std::ptr::write_unaligned(to.cast::<u64>(), cards.to_le());
        }
    } else {
        put_wrapped(buf, stretch, mask, head + held, cards, k);
    }
    *grown += (k as u64) << sh;
}

/// The first `k` cards of the word `cards` written from ring position `pos` of the stretch at
/// `base`, one at a time (where the ring wraps round, or a long stack leaves no room for a
/// word past its tail).
#[cold]
#[inline(never)]
fn put_wrapped(buf: &mut [u8], base: usize, mask: usize, pos: usize, cards: u64, k: usize) {
    for (i, &c) in cards.to_le_bytes().iter().take(k).enumerate() {
        buf[base + ((pos + i) & mask)] = c;
    }
}

/// Under two piles, the lanes whose stacks have run out turn their won piles over into the
/// stack, in lane (seat) order, as [`Seats::turn_over`] does when the general battle draws
/// from an empty stack: the cards stay where they lie, or under `on_empty = shuffle` are
/// shuffled there first (a pile that wraps round the ring is rotated to the start of its
/// stretch). Returns the piles shuffled. Every lane holds a card (`plain_run` stops when a
/// seat is out).
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(never)]
fn turn_over_lanes<const M: usize>(
    buf: &mut [u8],
    base: &[usize; M],
    cap: usize,
    heads: &mut u64,
    lens: &mut u64,
    wons: &mut u64,
    shuffles: bool,
    rng: &mut GameRng,
) -> u64 {
    let mut shuffled = 0;
    for (i, &b) in base.iter().enumerate() {
        if (*lens >> (16 * i)) & LANE as u64 == 0 {
            shuffled += turn_over_lane(buf, b, cap, i, heads, lens, wons, shuffles, rng);
        }
    }
    shuffled
}

/// Under two piles, the card lane `i` draws next (a prize, a face-up card, or the card that
/// refills its hand after the seat's pick): the top of its stack (in the stretch at `b`),
/// where the stack has run out once its won pile is turned over ([`turn_over_lane`]), as the
/// general draw turns it over then (under `on_empty = shuffle` the draws come in that order).
/// The card stays on the stack. Returns the piles shuffled and the card.
///
/// # Safety
///
/// The stretch `b .. b + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(always)]
unsafe fn refill_card(
    buf: &mut [u8],
    b: usize,
    cap: usize,
    i: usize,
    heads: &mut u64,
    lens: &mut u64,
    wons: &mut u64,
    shuffles: bool,
    rng: &mut GameRng,
) -> (u64, u64) {
    let shuffled = if (*lens >> (16 * i)) & LANE as u64 == 0 {
        turn_over_lane(buf, b, cap, i, heads, lens, wons, shuffles, rng)
    } else {
        0
    };
    let at = (*heads >> (16 * i)) as usize & (cap - 1);
    // SAFETY: the position masked into the stretch, which lies in `buf` (the caller's word).
    (shuffled, u64::from(unsafe { *buf.get_unchecked(b + at) }))
}

/// Lane `i`'s won pile, in the stretch at `b`, turned over into its empty stack, as
/// [`Seats::turn_over`] does; returns 1 if it was shuffled.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[cold]
#[inline(never)]
fn turn_over_lane(
    buf: &mut [u8],
    b: usize,
    cap: usize,
    i: usize,
    heads: &mut u64,
    lens: &mut u64,
    wons: &mut u64,
    shuffles: bool,
    rng: &mut GameRng,
) -> u64 {
    let (lane, sh) = (LANE as u64, 16 * i);
    let len = (*wons >> sh) & lane;
    debug_assert!(len > 0, "a seat out of cards is not a lane");
    *lens |= len << sh;
    *wons &= !(lane << sh);
    if !shuffles {
        return 0;
    }
    let start = (*heads >> sh) as usize & (cap - 1);
    if shuffle_pile(&mut buf[b..b + cap], start, len as usize, rng) {
        *heads &= !(lane << sh);
    }
    1
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

/// Whether every battle's opening is a prize (if the rules have one) from the top of each
/// stack and a face-up card from the top of each stack or from each hand, and no player is
/// out by an empty stack (`on_empty = lose`).
fn plain(r: &Rules) -> bool {
    r.two_pile != Some(OnEmpty::Lose)
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
    // grow back after each battle), and the hand refills itself; a prize comes from the stack.
    let need = 1 + usize::from(PRIZE);
    let short = |p: usize| {
        if HANDS {
            s.hand_len[p] == 0 || PRIZE && s.l[p] == 0
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
        // Every prize first, then every seat's pick from its hand (a random pick draws from
        // the generator, in seat order).
        if PRIZE {
            for p in (0..N).filter(|&p| playing(p)) {
                prizes |= u32::from(s.get(p, s.h[p])) << (8 * p);
                s.h[p] += 1;
                s.l[p] -= 1;
            }
        }
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
/// `tied`: a war of hands ([`hand_war`]), a war on the rings, or the general contest where
/// `war_cause_to_loser` changes what a war on the rings is.
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
    if HANDS {
        return hand_war::<N, PRIZE>(r, t, s, tally, rng, in_game, tied, prize, up);
    }
    if r.cause_to_loser {
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

/// A tie among `tied` in hand mode (with `PRIZE`, after the prizes `prize`), as the general
/// [`fight`](general::fight) plays it: each war, every tied seat puts its `n` cards face down
/// from its stack and plays one from its hand by its policy (the slot refilled from the stack),
/// seat by seat, until one seat's card is best; the winner picks up every pot, after the loser
/// takes back the tied cards under `war_cause_to_loser` (set apart as the first war begins, as
/// the general fight sets them apart). While every tied seat holds a card in hand and `n` to
/// put down, this is every war; a war with a seat short of either goes on in the general
/// contest, from where the wars stopped.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(never)]
fn hand_war<const N: usize, const PRIZE: bool>(
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
    let (mut contenders, mut depth) = (tied, 0u32);
    if in_game.count_ones() == 2 && tied == in_game {
        let won = pair_war::<N, PRIZE>(r, t, s, tally, rng, in_game, &prize, &mut up, &mut depth);
        if let Some(winner) = won {
            return after::<N, true>(r, s, tally, winner, in_game, depth);
        }
        // `pair_war` left the cards played so far in the pots (the tied cards apart in
        // `t.cause` under `war_cause_to_loser`, once a war has begun): the general rounds go
        // on.
    } else {
        t.clear();
        for p in (0..N).filter(|&p| in_game & bit(p) != 0) {
            if PRIZE {
                t.pots[p].push(prize[p]);
            }
            t.pots[p].push(up[p]);
        }
    }
    let winner = loop {
        let n = r.war_size(depth + 1, up[contenders.trailing_zeros() as usize]);
        // Every tied seat stakes the war in full, or the general contest plays it.
        let full = |p: usize| r.stake(s.supply(r, p), s.hand_len(p), n) == Stake::Play(n);
        if !seats(contenders).all(full) {
            return general::contest(
                r, t, s, tally, rng, &mut Quiet, contenders, &mut up, 0, depth,
            );
        }
        depth += 1;
        tally.wars += 1;
        if r.cause_to_loser && depth == 1 {
            t.set_causes_apart(contenders);
        }
        for p in seats(contenders) {
            for _ in 0..n {
                let c = s.draw_down(r, p, rng);
                t.pots[p].push(c);
            }
            tally.cards_turned += n as u64 + 1;
            let c = s.draw_up(r, p, rng);
            t.pots[p].push(c);
            up[p] = c;
        }
        let best = r.best_of_first::<N>(contenders, &up);
        if best.count_ones() == 1 {
            break best.trailing_zeros() as usize;
        }
        contenders = best;
    };
    tally.deepest = tally.deepest.max(depth);
    general::settle(r, t, s, rng, winner, depth, 0);
    after::<N, true>(r, s, tally, winner, in_game, depth)
}

/// [`hand_war`] between the only two seats in the game, both tied (after the prizes `prize`,
/// with `PRIZE`), `depth` wars in: each round, while both hands are full and both stacks hold
/// the round's face-down cards and a card to refill the hand with, the same draws, cards and
/// counts as the general rounds, with the pots in local arrays rather than the table's
/// vectors, and the winner's pick-up and [`settle`](general::settle)'s steps after it (under
/// `war_cause_to_loser`, the general settle itself, the tied cards set apart). Returns the
/// winner; or `None` with the cards played so far in `t`'s pots (and, once a war has begun
/// under `war_cause_to_loser`, the tied cards in `t.cause`), for the general rounds to go on
/// from.
#[allow(clippy::too_many_arguments)] // the battle so far
#[inline(always)]
fn pair_war<const N: usize, const PRIZE: bool>(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    in_game: u8,
    prize: &[u8; MAX_PLAYERS],
    up: &mut [u8; MAX_PLAYERS],
    depth: &mut u32,
) -> Option<usize> {
    // Room for the pots of a long war; a longer one goes on in the general rounds.
    const ROOM: usize = 64;
    let pair = [
        in_game.trailing_zeros() as usize,
        7 - in_game.leading_zeros() as usize,
    ];
    let mut pots = [[0u8; ROOM]; 2];
    // Both pots grow alike: one length.
    let mut len = 1 + usize::from(PRIZE);
    for (pot, &p) in pots.iter_mut().zip(&pair) {
        if PRIZE {
            pot[0] = prize[p];
        }
        pot[len - 1] = up[p];
    }
    let hand = r.hand;
    loop {
        let n = r.war_size(*depth + 1, up[pair[0]]);
        let full = |p: usize| s.l[p] > n && usize::from(s.hand_len[p]) == hand;
        if !(full(pair[0]) && full(pair[1])) || len + n + 1 > ROOM {
            let played = [&pots[0][..len], &pots[1][..len]];
            pots_to_table(r, t, played, &pair, 1 + usize::from(PRIZE), *depth);
            return None;
        }
        *depth += 1;
        tally.wars += 1;
        tally.cards_turned += 2 * (n as u64 + 1);
        for (pot, &p) in pots.iter_mut().zip(&pair) {
            // `n` cards face down from the stack, then one from the hand by the seat's policy,
            // its slot refilled from the stack (which `full` found long enough for both).
            let h = s.h[p];
            for (i, c) in pot[len..len + n].iter_mut().enumerate() {
                *c = s.get(p, h + i);
            }
            let slot = r.choose(p, &s.hands[p][..hand], rng);
            let card = s.hands[p][slot];
            s.hands[p][slot] = s.get(p, h + n);
            s.h[p] = h + n + 1;
            s.l[p] -= n + 1;
            pot[len + n] = card;
            up[p] = card;
        }
        len += n + 1;
        let best = r.best_of_first::<N>(in_game, up);
        if best.count_ones() == 1 {
            let winner = best.trailing_zeros() as usize;
            tally.deepest = tally.deepest.max(*depth);
            if r.cause_to_loser {
                let played = [&pots[0][..len], &pots[1][..len]];
                pots_to_table(r, t, played, &pair, 1 + usize::from(PRIZE), *depth);
                general::settle(r, t, s, rng, winner, *depth, 0);
                return Some(winner);
            }
            // `general::settle` after a war without `war_cause_to_loser`: the seats out of the
            // game hold no pot, so the two pots in seat order are the table's.
            if r.wars_to_win.is_some() {
                s.wars_won[winner] += 1;
            }
            let taker = usize::from(winner == pair[1]);
            r.order_pickup(
                taker,
                &[&pots[0][..len], &pots[1][..len]],
                &mut t.order,
                rng,
            );
            s.give(r, winner, &t.order);
            general::top_up_hands(r, s, rng);
            return Some(winner);
        }
    }
}

/// [`pair_war`]'s `pots` of the two seats `pair` onto the table's, `depth` wars in: under
/// `war_cause_to_loser`, once a war has begun, each seat's tied card (the last of its
/// `opening` cards) apart in `t.cause`, where the general fight sets it.
fn pots_to_table(
    r: &Rules,
    t: &mut Scratch,
    pots: [&[u8]; 2],
    pair: &[usize; 2],
    opening: usize,
    depth: u32,
) {
    t.clear();
    for (pot, &p) in pots.into_iter().zip(pair) {
        t.pots[p].extend_from_slice(pot);
        if r.cause_to_loser && depth > 0 {
            t.set_cause_apart(p, opening - 1);
        }
    }
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
