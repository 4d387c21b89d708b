//! The two-seat loop: every 2-player rule set whose battles are a card against a card, or a
//! prize and a card (no hands), one battle at a time, with its position in registers.
//!
//! It plays exactly the games of the general loop, with the same random draws in the same order
//! (property tests compare records, loop starts and periods). What makes it fast:
//! - both seats' cards live in one buffer ([`Seats`]), and heads, stack and pile lengths are
//!   local variables, so a battle carries no dependency through memory;
//! - the battle count and the lead changes share one register (low and high 32 bits): a
//!   separate lead-change counter was spilled, and its read-modify-write chained every battle
//!   to the previous one;
//! - who wins is a coin flip to the branch predictor, so the winner's stack, the pick-up order
//!   and the lead are chosen by arithmetic, not branches;
//! - what the rules fix for the whole game is compiled into the loop: the pick-up order and
//!   the ranking (a [`pick`] code and whether a duel table ranks the cards, as const
//!   parameters), two piles or one, the size of the buffer; wars (one battle in ~17) go to
//!   [`war`], on the seats, and what it cannot pay for to the general loop's
//!   [`fight`](general::fight);
//! - endings by counting cards (all cards, `target_cards`, `min_cards`) are one range check on
//!   seat 0's cards, and loop detection a compare of seat 0's count before the bytes.

use crate::cycle::{self, Position, Saves, TRAIL};
use crate::general::{self, Fight};
use crate::observe::Quiet;
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{Compare, OnEmpty, Pickup, Rules, pick, pick_of};
use crate::seats::{SMALL_CAP, Seats};
use crate::state::{End, Holdings, MAX_PLAYERS, Scratch, Tally};
use crate::table;

/// One register holding the battle count (low 32 bits) and the lead changes (high 32 bits).
pub(crate) const CHANGE: u64 = 1 << 32;

/// Whether the two-seat loop plays these rules.
pub(crate) fn plays(r: &Rules) -> bool {
    r.players == 2 && r.hand == 0 && r.battle_cap() < u64::from(u32::MAX)
}

/// Whether the two-seat loop traces these rules' games ([`Scratch::trace`]): those it plays,
/// without a prize (a followed game with a prize needs an observer for its war cards anyway).
pub(crate) fn traces(r: &Rules) -> bool {
    plays(r) && !r.prize
}

/// The outcome of a plain battle under a beats-table, for every pair of values: 0 seat 0's card
/// wins, 1 seat 1's, 2 a tie (war); `a` against `b` at `a * stride + b` ([`duel_stride`]).
pub(crate) fn duel_table(r: &Rules) -> Vec<u8> {
    match &r.compare {
        Compare::Ordered => Vec::new(),
        &Compare::Table {
            values, ref beats, ..
        } => {
            let stride = duel_stride(values);
            (0..stride * stride)
                .map(|i| {
                    let (a, b) = (i / stride, i % stride);
                    if a >= values || b >= values {
                        // (No card has this value.)
                        2
                    } else if beats[a * values + b] {
                        0
                    } else if beats[b * values + a] {
                        1
                    } else {
                        2
                    }
                })
                .collect()
        }
    }
}

/// The row length of [`duel_table`] for `values` values: 16 where they fit, so that the table
/// is 256 bytes which the block loop looks a card against a card up in with a byte index
/// `16 a + b` (four 64-byte registers).
#[inline(always)]
pub(crate) fn duel_stride(values: usize) -> usize {
    values.max(16)
}

/// Everything a two-seat game needs besides its cards.
pub(crate) struct Ctx<'a> {
    pub r: &'a Rules,
    pub t: &'a mut Scratch,
    pub duel: &'a [u8],
    pub saves: &'a mut Saves<Seats>,
}

pub(crate) fn run(c: Ctx<'_>, s: &mut Seats, tally: Tally, rng: &mut GameRng) -> GameRecord {
    match pick_of(c.r.pickup) {
        pick::SHUFFLED => run_picked::<{ pick::SHUFFLED }>(c, s, tally, rng),
        pick::SEAT => run_picked::<{ pick::SEAT }>(c, s, tally, rng),
        pick::WINNER => run_picked::<{ pick::WINNER }>(c, s, tally, rng),
        pick::LOSER => run_picked::<{ pick::LOSER }>(c, s, tally, rng),
        pick::DESC => run_picked::<{ pick::DESC }>(c, s, tally, rng),
        _ => run_picked::<{ pick::ASC }>(c, s, tally, rng),
    }
}

/// [`run_with`] for the pick-up order `PICK` and the rest of the shape: a beats-table ranking,
/// two piles, a small buffer, speed, a prize.
fn run_picked<const PICK: u8>(
    c: Ctx<'_>,
    s: &mut Seats,
    tally: Tally,
    rng: &mut GameRng,
) -> GameRecord {
    let table = !c.duel.is_empty();
    let two = c.r.two_pile.is_some();
    let small = s.cap() == SMALL_CAP;
    let (speed, prize) = (c.r.speed.is_some(), c.r.prize);
    macro_rules! go {
        ($($flag:literal),*) => {
            run_with::<PICK, $($flag),*, false>(c, s, tally, rng)
        };
    }
    if c.t.trace.is_some() {
        // A traced game, without a prize ([`traces`]), on a buffer of any size: its own
        // eight copies, so that an untraced game's loop is compiled as if tracing did not
        // exist (a trace looked for at run time cost the loop 2–3 instructions a battle).
        debug_assert!(!prize);
        macro_rules! traced {
            ($($flag:literal),*) => {
                run_with::<PICK, $($flag),*, true>(c, s, tally, rng)
            };
        }
        return match (table, two, speed) {
            (false, false, false) => traced!(false, false, false, false, false),
            (false, true, false) => traced!(false, true, false, false, false),
            (true, false, false) => traced!(true, false, false, false, false),
            (true, true, false) => traced!(true, true, false, false, false),
            (false, false, true) => traced!(false, false, false, true, false),
            (false, true, true) => traced!(false, true, false, true, false),
            (true, false, true) => traced!(true, false, false, true, false),
            (true, true, true) => traced!(true, true, false, true, false),
        };
    }
    match (table, two, small, speed, prize) {
        (false, false, false, false, false) => go!(false, false, false, false, false),
        (false, false, true, false, false) => go!(false, false, true, false, false),
        (false, true, false, false, false) => go!(false, true, false, false, false),
        (false, true, true, false, false) => go!(false, true, true, false, false),
        (true, false, false, false, false) => go!(true, false, false, false, false),
        (true, false, true, false, false) => go!(true, false, true, false, false),
        (true, true, false, false, false) => go!(true, true, false, false, false),
        (true, true, true, false, false) => go!(true, true, true, false, false),
        (false, false, false, true, false) => go!(false, false, false, true, false),
        (false, false, true, true, false) => go!(false, false, true, true, false),
        (false, true, false, true, false) => go!(false, true, false, true, false),
        (false, true, true, true, false) => go!(false, true, true, true, false),
        (true, false, false, true, false) => go!(true, false, false, true, false),
        (true, false, true, true, false) => go!(true, false, true, true, false),
        (true, true, false, true, false) => go!(true, true, false, true, false),
        (true, true, true, true, false) => go!(true, true, true, true, false),
        (false, false, false, false, true) => go!(false, false, false, false, true),
        (false, false, true, false, true) => go!(false, false, true, false, true),
        (false, true, false, false, true) => go!(false, true, false, false, true),
        (false, true, true, false, true) => go!(false, true, true, false, true),
        (true, false, false, false, true) => go!(true, false, false, false, true),
        (true, false, true, false, true) => go!(true, false, true, false, true),
        (true, true, false, false, true) => go!(true, true, false, false, true),
        (true, true, true, false, true) => go!(true, true, true, false, true),
        // Speed with a prize, the rarest shape, on the buffer of any size (`SMALL` only
        // saves a load of the size): four copies, not eight.
        (false, false, _, true, true) => go!(false, false, false, true, true),
        (false, true, _, true, true) => go!(false, true, false, true, true),
        (true, false, _, true, true) => go!(true, false, false, true, true),
        (true, true, _, true, true) => go!(true, true, false, true, true),
    }
}

/// Where a game of seat 0's cards `t0` out of `total` ends for counting cards: all cards, the
/// target and the minimum give two bounds on `t0`, `lo` and `hi`; at or beyond one of them the
/// game may have ended (see [`counted_end`]).
pub(crate) fn bounds(r: &Rules, total: usize) -> (usize, usize) {
    let (mut lo, mut hi) = (0, total);
    if let Some(t) = r.target_cards {
        // Seat 1 reaches the target when t0 ≤ total − target.
        let t = t as usize;
        hi = hi.min(t);
        lo = lo.max(total.saturating_sub(t));
    }
    if let Some(m) = r.min_cards {
        // A seat falls below m: t0 < m, or total − t0 < m.
        let m = m as usize;
        lo = lo.max(m.saturating_sub(1));
        hi = hi.min((total + 1).saturating_sub(m));
    }
    (lo, hi)
}

/// The position of the loop in registers, written back to (and read from) the [`Seats`] when
/// a war, a pile to shuffle (or a stack out under `lose`) or a loop check needs it there.
#[derive(Clone, Copy)]
struct Regs {
    h0: usize,
    h1: usize,
    l0: usize,
    l1: usize,
    m0: usize,
    m1: usize,
}

impl Regs {
    #[inline(always)]
    fn store(self, s: &mut Seats) {
        s.h[0] = self.h0;
        s.h[1] = self.h1;
        s.l[0] = self.l0;
        s.l[1] = self.l1;
        s.m[0] = self.m0;
        s.m[1] = self.m1;
    }

    #[inline(always)]
    fn load(s: &Seats) -> Regs {
        Regs {
            h0: s.h[0],
            h1: s.h[1],
            l0: s.l[0],
            l1: s.l[1],
            m0: s.m[0],
            m1: s.m[1],
        }
    }
}

/// The two stretches of the buffer, addressed without bounds checks: a position is masked to
/// its stretch, and the seat is 0 or 1, so every access lies inside the buffer.
struct Duo<'a, const SMALL: bool> {
    buf: &'a mut [u8],
    cap: usize,
}

impl<'a, const SMALL: bool> Duo<'a, SMALL> {
    fn new(buf: &'a mut [u8]) -> Self {
        let cap = buf.len() / 2;
        assert!(cap.is_power_of_two() && buf.len() == 2 * cap);
        assert!(!SMALL || cap == SMALL_CAP);
        Duo { buf, cap }
    }

    #[inline(always)]
    fn index(&self, seat: usize, pos: usize) -> usize {
        let cap = if SMALL { SMALL_CAP } else { self.cap };
        debug_assert!(seat <= 1);
        (seat & 1) * cap + (pos & (cap - 1))
    }

    #[inline(always)]
    fn get(&self, seat: usize, pos: usize) -> u8 {
        let i = self.index(seat, pos);
        // SAFETY: `index` is below `2 * cap == buf.len()` (seat masked to 0 or 1, position
        // masked to the stretch).
        unsafe { *self.buf.get_unchecked(i) }
    }

    /// The quick test of loop detection beside seat 0's count (see `run_with`), in the run's
    /// registers: the two top cards (seat 0's in the low byte), or with two piles the two
    /// stacks' lengths (a stack may be empty, and its top then a stale byte; [`quick_lens`]).
    /// It must equal `run_with`'s `quick` of the same position outside the run, where the
    /// tortoise's is taken: else a loop would be found later (never wrongly).
    #[inline(always)]
    fn quick<const TWO: bool>(&self, g: &Regs) -> u16 {
        if TWO {
            // (In the run `l` is where a stack ends.)
            quick_lens(g.l0 - g.h0, g.l1 - g.h1)
        } else {
            u16::from(self.get(0, g.h0)) | u16::from(self.get(1, g.h1)) << 8
        }
    }

    #[inline(always)]
    fn set(&mut self, seat: usize, pos: usize, card: u8) {
        let i = self.index(seat, pos);
        // SAFETY: as in `get`.
        unsafe { *self.buf.get_unchecked_mut(i) = card }
    }

    /// The four cards of a battle with prizes from `pos` on: one store where they do not wrap
    /// round the ring (nearly always), else one at a time.
    #[inline(always)]
    fn set4(&mut self, seat: usize, pos: usize, cards: [u8; 4]) {
        let cap = if SMALL { SMALL_CAP } else { self.cap };
        if (pos & (cap - 1)) + 4 <= cap {
            let i = self.index(seat, pos);
            // SAFETY: `i + 4 ≤ (seat & 1) * cap + cap ≤ buf.len()`: the position in the
            // stretch is at most `cap − 4`.
            unsafe {
                let to = self.buf.as_mut_ptr().add(i);
                std::ptr::write_unaligned(to.cast::<[u8; 4]>(), cards);
            }
        } else {
            for (i, card) in cards.into_iter().enumerate() {
                self.set(seat, pos + i, card);
            }
        }
    }
}

/// Why the plain battles stopped and handed the position back to the outer loop.
enum Exit {
    /// Two piles: a stack ran out before the battle, and its won pile is to be shuffled (or
    /// the player is out, under `lose`); `turn-over` turns it over in the run.
    Empty,
    /// The face-up cards tie: a war.
    Tie(u8, u8),
    /// A player cannot give a prize and turn up a card after it from its stack. With two
    /// piles, a stack of one card whose won pile turns over in between; the outer loop turns
    /// the pile over under the card first, or leaves the battle to the general one.
    Short,
    /// The battle just played may have ended the game, reached the cap, or needs a loop check.
    Check,
}

fn run_with<
    const PICK: u8,
    const TABLE: bool,
    const TWO: bool,
    const SMALL: bool,
    const SPEED: bool,
    const PRIZE: bool,
    const TRACE: bool,
>(
    c: Ctx<'_>,
    s: &mut Seats,
    tally: Tally,
    rng: &mut GameRng,
) -> GameRecord {
    let Ctx { r, t, duel, saves } = c;
    let values = r.cards.values();
    let speed = r.speed.unwrap_or(0);
    let cap = r.battle_cap() as u32;
    let total = s.total(0) + s.total(1);
    let (lo, hi) = bounds(r, total);
    // `lo < t0 < hi` in one unsigned comparison. A traced game (`TRACE`, its trace in the
    // scratch, [`Scratch::trace`]) leaves the plain battles after every battle (nothing is
    // inside), to be noted below with the battles that end there: the run's own loop is the
    // same code.
    let inside = if TRACE { 0 } else { hi.saturating_sub(lo + 1) };
    if TRACE {
        follow(t, s.total(0), s.total(1));
    }
    // Shuffled pick-up never loops: known at compile time, the loop checks cost nothing there.
    let cycles = PICK != pick::SHUFFLED && r.detects_cycles();
    let start = tally;
    let mut tally = tally;
    if cycles {
        saves.begin(s);
    }
    // Brent's algorithm, as in `cycle::brent` but with its first save after
    // `cycle::FIRST_LOOK` battles, and the tortoise's count of seat 0's cards as a quick first
    // test.
    let (mut power, mut lam) = (cycle::FIRST_LOOK, 0u64);
    let mut g = Regs::load(s);
    // Seat 0's cards; seat 1 holds `total - t0`.
    let mut t0 = g.l0 + g.m0;
    let mut tort_t0 = t0;
    // The tortoise's top cards too (with one pile a stack is all its seat's cards, so both
    // have one inside the game), or with two piles its stacks' lengths: a position is compared
    // in full only when its count and these match.
    let quick = |s: &Seats, g: &Regs| {
        if TWO {
            quick_lens(g.l0, g.l1)
        } else {
            u16::from(s.get(0, g.h0)) | u16::from(s.get(1, g.h1)) << 8
        }
    };
    let mut tort_quick = if cycles { quick(s, &g) } else { 0 };
    let mut first = tally.battles;
    let mut acc = first | (tally.lead_changes << 32);
    // Seat 0's count after each battle: two positions with different counts differ.
    if cycles {
        saves.trail[first as usize % TRAIL] = t0 as u8;
    }
    // Cards turned in a battle without a war: a prize and a face-up card each, or the card.
    let turned = if PRIZE { 4 } else { 2 };
    // Played with a prize: layer by layer (both prizes, then both cards), where winner-first
    // goes pot by pot; with one card each the two are the same order.
    let layered = r.pickup == Pickup::Played;
    // Two piles turned over as they lie: a stack that runs out becomes its won pile in the
    // run, where no card moves (a shuffle or `lose` goes to the outer loop).
    let turns = TWO && r.two_pile == Some(OnEmpty::TurnOver);
    let mut lead = margin_of(tally.leader);
    let mut bits = rng.take_bits();
    let end: End = 'game: loop {
        // Plain battles, with the buffer borrowed, until something needs the seats as a whole.
        let exit = {
            let mut d = Duo::<SMALL>::new(s.buf_mut());
            // The generator as a local copy, written back once (as the table's runs keep it):
            // its state can stay in registers rather than go through memory at every draw.
            let outer: &mut GameRng = rng;
            let mut local = outer.clone();
            let rng = &mut local;
            // Two piles: during the run, `l` is where a stack ends and `m` where its won pile
            // does (the tail), so a battle moves the heads and the winner's tail only.
            if TWO {
                (g.l0, g.l1) = (g.h0 + g.l0, g.h1 + g.l1);
                (g.m0, g.m1) = (g.l0 + g.m0, g.l1 + g.m1);
            }
            let exit = loop {
                if TWO && (g.h0 == g.l0 || g.h1 == g.l1) {
                    // Before the battle's draws, as the general draw turns a pile over. A seat
                    // in the game holds a card, so an empty stack has a won pile behind it.
                    if !turns {
                        break Exit::Empty;
                    }
                    debug_assert!(g.h0 < g.m0 && g.h1 < g.m1);
                    g.l0 = if g.h0 == g.l0 { g.m0 } else { g.l0 };
                    g.l1 = if g.h1 == g.l1 { g.m1 } else { g.l1 };
                }
                // A prize from each player and a card to turn up after it, both from the
                // stack (with one pile, all a seat's cards); a player short of that is the
                // outer loop's (with two piles, most often a won pile to turn over between
                // the two).
                if PRIZE {
                    if !TWO && (t0 < 2 || total - t0 < 2) {
                        (g.l0, g.l1) = (t0, total - t0);
                        break Exit::Short;
                    }
                    if TWO && (g.l0 - g.h0 < 2 || g.l1 - g.h1 < 2) {
                        break Exit::Short;
                    }
                }
                acc += 1;
                let k = usize::from(PRIZE);
                let (pa, pb) = (d.get(0, g.h0), d.get(1, g.h1));
                let a = d.get(0, g.h0 + k);
                let b = d.get(1, g.h1 + k);
                g.h0 += 1 + k;
                g.h1 += 1 + k;
                // Under `speed`, seat 0 grabs the cards before they are compared (a draw every
                // battle, before the pick-up's).
                let grab = SPEED && rng.next_u64() < speed;
                let outcome = duel_of::<TABLE>(duel, values, a, b) * u8::from(!grab);
                if outcome == 2 {
                    if !TWO {
                        (g.l0, g.l1) = (t0 - 1 - k, total - t0 - 1 - k);
                    }
                    break Exit::Tie(a, b);
                }
                let winner = usize::from(outcome);
                if PRIZE {
                    let cards = quad::<PICK>(winner, [pa, a, pb, b], layered, rng, &mut bits);
                    // The winner's tail: behind its won pile, or with one pile behind its
                    // remaining stack.
                    let (tail0, tail1) = if TWO {
                        (g.m0, g.m1)
                    } else {
                        (g.h0 + t0 - 2, g.h1 + (total - t0) - 2)
                    };
                    let tail = tail0 ^ ((tail0 ^ tail1) & 0usize.wrapping_sub(winner));
                    d.set4(winner, tail, cards);
                    if TWO {
                        g.m0 += 4 * (1 - winner);
                        g.m1 += 4 * winner;
                    }
                    t0 = t0 + 2 - 4 * winner;
                    acc += note(&mut lead, t0, total);
                    if cycles {
                        saves.trail[acc as u32 as usize % TRAIL] = t0 as u8;
                    }
                    if t0.wrapping_sub(lo + 1) >= inside
                        || acc as u32 >= cap
                        || cycles
                            && (t0 == tort_t0 && d.quick::<TWO>(&g) == tort_quick
                                || lam + 1 == power)
                    {
                        if !TWO {
                            (g.l0, g.l1) = (t0, total - t0);
                        }
                        break Exit::Check;
                    }
                    lam += u64::from(cycles);
                    continue;
                }
                // The random bit only where the order is shuffled (a closure here would keep `bits`
                // out of a register).
                let coin = PICK == pick::SHUFFLED && rng.bit_from(&mut bits);
                let (x, y) = pair::<PICK>(winner, a, b, coin);
                // The winner's tail, behind its stack and won pile. With one pile a seat's
                // stack is all its cards, so seat 0's count `t0` is the only length carried.
                // Who wins is a coin toss to the branch predictor: both tails are computed and
                // one is picked by a mask.
                let (tail0, tail1) = if TWO {
                    (g.m0, g.m1)
                } else {
                    (g.h0 + t0 - 1, g.h1 + (total - t0) - 1)
                };
                let tail = tail0 ^ ((tail0 ^ tail1) & 0usize.wrapping_sub(winner));
                d.set(winner, tail, x);
                d.set(winner, tail + 1, y);
                if TWO {
                    g.m0 += 2 * (1 - winner);
                    g.m1 += 2 * winner;
                }
                t0 = t0 + 1 - 2 * winner;
                acc += note(&mut lead, t0, total);
                if cycles {
                    saves.trail[acc as u32 as usize % TRAIL] = t0 as u8;
                }
                if t0.wrapping_sub(lo + 1) >= inside
                    || acc as u32 >= cap
                    || cycles
                        && (t0 == tort_t0 && d.quick::<TWO>(&g) == tort_quick || lam + 1 == power)
                {
                    if !TWO {
                        (g.l0, g.l1) = (t0, total - t0);
                    }
                    break Exit::Check;
                }
                lam += u64::from(cycles);
            };
            if TWO {
                (g.m0, g.m1) = (g.m0 - g.l0, g.m1 - g.l1);
                (g.l0, g.l1) = (g.l0 - g.h0, g.l1 - g.h1);
            }
            *outer = local;
            exit
        };
        let (mut depth, mut forfeited) = (0, 0u8);
        match exit {
            Exit::Empty => {
                // A stack ran out: its won pile becomes the stack, or the player is out (and
                // no battle is played).
                rng.put_bits(bits);
                g.store(s);
                if r.two_pile == Some(OnEmpty::Lose) {
                    let able = u8::from(g.l0 > 0) | u8::from(g.l1 > 0) << 1;
                    s.in_game = able;
                    break 'game (
                        EndReason::Forfeit,
                        (able != 0).then(|| able.trailing_zeros() as u8),
                    );
                }
                for p in 0..2 {
                    if s.l[p] == 0 {
                        s.turn_over(p, rng);
                    }
                }
                g = Regs::load(s);
                bits = rng.take_bits();
                continue 'game;
            }
            Exit::Tie(a, b) => {
                rng.put_bits(bits);
                g.store(s);
                match war(r, t, s, &mut tally, rng, duel, a, b, 1 + usize::from(PRIZE)) {
                    War::Won {
                        depth: dp,
                        forfeited: f,
                        ..
                    } => (depth, forfeited) = (dp, f),
                    War::Draw => {
                        acc += note(&mut lead, s.total(0), total);
                        if TRACE {
                            follow(t, s.total(0), s.total(1));
                        }
                        break 'game (EndReason::DrawInWar, None);
                    }
                }
                g = Regs::load(s);
                t0 = g.l0 + g.m0;
                bits = rng.take_bits();
                acc += note(&mut lead, t0, total);
            }
            Exit::Short => {
                rng.put_bits(bits);
                g.store(s);
                if TWO && piles_under_last_cards(r, s, rng) {
                    g = Regs::load(s);
                    bits = rng.take_bits();
                    continue 'game;
                }
                // One battle of the general loop, on the tally it keeps: the loop's own counts
                // are handed over first and taken back after.
                let (battles, changes) = unpack(acc);
                let counts = (first, battles, changes, turned);
                let end = table_battle(r, t, s, &mut tally, rng, counts, &mut lead);
                first = tally.battles;
                acc = first | (tally.lead_changes << 32);
                if let Some(end) = end {
                    if TRACE {
                        follow(t, s.total(0), s.total(1));
                    }
                    break 'game end;
                }
                g = Regs::load(s);
                t0 = g.l0 + g.m0;
                bits = rng.take_bits();
            }
            Exit::Check => {}
        }
        if TRACE {
            follow(t, t0, total - t0);
        }
        // The battle's byte for the replay's hint (a plain battle noted it already).
        if cycles {
            saves.trail[acc as u32 as usize % TRAIL] = t0 as u8;
        }
        // After the battle: the endings in the general loop's order, then the loop check, then
        // the cap.
        if t0 <= lo || t0 >= hi || depth > 0 && (forfeited != 0 || r.wars_to_win.is_some()) {
            g.store(s);
            if let Some(end) = counted_end(r, s, t0, total, depth, forfeited) {
                break 'game end;
            }
        }
        if cycles {
            lam += 1;
            if t0 == tort_t0 && quick(s, &g) == tort_quick {
                g.store(s);
                if s.same(&saves.tortoise) {
                    rng.put_bits(bits);
                    let found = acc as u32 as u64;
                    let how = Finish::Loop { lam, found };
                    let c = Ctx { r, t, duel, saves };
                    return finish_with::<PICK, TABLE>(c, s, start, rng, how);
                }
            }
            if power == lam {
                g.store(s);
                let at = tally_packed(&tally, first, acc, turned, lead);
                saves.move_tortoise(s, Some(at));
                tort_t0 = t0;
                tort_quick = quick(s, &g);
                power *= 2;
                lam = 0;
            }
        }
        if acc as u32 >= cap {
            let end = at_cap(r, acc as u32, t0, total);
            if cycles && end.0 == EndReason::Capped {
                g.store(s);
                rng.put_bits(bits);
                let how = Finish::Capped(record_packed(&tally, first, acc, turned, end));
                let c = Ctx { r, t, duel, saves };
                return finish_with::<PICK, TABLE>(c, s, start, rng, how);
            }
            break 'game end;
        }
    };
    rng.put_bits(bits);
    record_packed(&tally, first, acc, turned, end)
}

/// Two piles' quick test of loop detection: the stacks' lengths `l0` and `l1`, a byte each
/// (positions whose bytes differ differ; equal bytes are compared in full). Seat 0's count
/// alone let a tenth of the battles of deterministic two-pile rules through to a full
/// comparison.
#[inline(always)]
fn quick_lens(l0: usize, l1: usize) -> u16 {
    u16::from(l0 as u8) | u16::from(l1 as u8) << 8
}

/// Notes both seats' cards (`a`, `b`) after a battle, or as dealt, where a trace is kept.
#[inline(always)]
fn follow(t: &mut Scratch, a: usize, b: usize) {
    if let Some(trace) = &mut t.trace {
        // (As a watch counts them: 16 bits a seat.)
        trace.push([a as u16, b as u16]);
    }
}

/// [`record`] from the loop's packed counter `acc` (battles low, lead changes high).
fn record_packed(tally: &Tally, first: u64, acc: u64, turned: u64, end: End) -> GameRecord {
    let (battles, changes) = unpack(acc);
    record(tally, first, battles, changes, turned, end)
}

/// The tally after the battles of the loop's packed counter `acc`, as [`record_packed`] counts
/// them, with the leader of the margin `lead` ([`note`]): where the replays may start.
/// (`#[inline(always)]`, as `cycle`'s `replay_to`: of the five placements measured, this one
/// ran classic fastest. Classic games call neither: the gain is where the code lies.)
#[inline(always)]
fn tally_packed(tally: &Tally, first: u64, acc: u64, turned: u64, lead: i64) -> Tally {
    let (battles, changes) = unpack(acc);
    Tally {
        leader: leader_of(lead),
        ..counted(tally, first, battles, changes, turned)
    }
}

/// The battles and lead changes of the loop's packed counter `acc`.
#[inline(always)]
fn unpack(acc: u64) -> (u64, u64) {
    (acc & u64::from(u32::MAX), acc >> 32)
}

/// A card against a card: 0 if seat 0's `a` wins, 1 if seat 1's `b` wins, 2 on a tie; from
/// the outcome table `duel` under a beats-table ranking (`TABLE`), by value otherwise.
#[inline(always)]
fn duel_of<const TABLE: bool>(duel: &[u8], values: usize, a: u8, b: u8) -> u8 {
    if TABLE {
        duel[usize::from(a) * duel_stride(values) + usize::from(b)]
    } else if a == b {
        2
    } else {
        u8::from(b > a)
    }
}

/// The pick-up of a battle without a war: the winner's two cards in the order `PICK` puts them
/// (`shuffled` swaps them on the random bit `coin`).
#[inline(always)]
fn pair<const PICK: u8>(winner: usize, a: u8, b: u8, coin: bool) -> (u8, u8) {
    let swap = match PICK {
        pick::SHUFFLED => coin,
        pick::SEAT => false,
        pick::WINNER => winner == 1,
        pick::LOSER => winner == 0,
        pick::DESC => b > a,
        _ => a > b,
    };
    let mask = 0u8.wrapping_sub(u8::from(swap));
    let x = a ^ ((a ^ b) & mask);
    (x, a ^ b ^ x)
}

/// The pick-up of a battle with a prize and no war: seat 0's prize and card, seat 1's
/// (`[pa, a, pb, b]`) in the order `PICK` puts them (`layered`: `played`). Shuffled takes its
/// draws from the generator and the loop's bit buffer `bits`, as the general loop does.
#[inline(always)]
pub(crate) fn quad<const PICK: u8>(
    winner: usize,
    cards: [u8; 4],
    layered: bool,
    rng: &mut GameRng,
    bits: &mut u64,
) -> [u8; 4] {
    let [pa, a, pb, b] = cards;
    // The winner's pot and the loser's, picked by a mask rather than a branch.
    let mask = 0u8.wrapping_sub(winner as u8);
    let (pw, w) = (pa ^ ((pa ^ pb) & mask), a ^ ((a ^ b) & mask));
    let (pl, l) = (pa ^ pb ^ pw, a ^ b ^ w);
    match PICK {
        pick::SHUFFLED => {
            rng.put_bits(*bits);
            let shuffled = rng.shuffle_word(u64::from(u32::from_le_bytes(cards)), 4);
            *bits = rng.take_bits();
            (shuffled as u32).to_le_bytes()
        }
        pick::SEAT => [pa, pb, a, b],
        pick::WINNER if layered => [pw, pl, w, l],
        pick::WINNER => [pw, w, pl, l],
        pick::LOSER => [pl, l, pw, w],
        pick::DESC => {
            let mut c = cards;
            c.sort_unstable_by(|x, y| y.cmp(x));
            c
        }
        _ => {
            let mut c = cards;
            c.sort_unstable();
            c
        }
    }
}

/// One battle of the two-seat rules on the seats in memory: how the replays that find a loop's
/// start (and the check past the safety cap) play, at nearly the loop's own speed. Whatever
/// is not a card against a card, or a prize and a card, from two stacks that hold them is the
/// table loop's step.
#[inline]
fn step<const PICK: u8, const TABLE: bool>(
    r: &Rules,
    t: &mut Scratch,
    duel: &[u8],
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> Option<End> {
    // A prize and a card from each stack, or the card.
    let need = 1 + usize::from(r.prize);
    if PICK == pick::SHUFFLED || s.l[0] < need || s.l[1] < need {
        return table::step(r, t, s, tally, rng);
    }
    let (pa, pb) = (s.get(0, s.h[0]), s.get(1, s.h[1]));
    let (a, b) = (s.get(0, s.h[0] + need - 1), s.get(1, s.h[1] + need - 1));
    for p in 0..2 {
        s.h[p] += need;
        s.l[p] -= need;
    }
    tally.battles += 1;
    tally.cards_turned += 2 * need as u64;
    let outcome = duel_of::<TABLE>(duel, r.cards.values(), a, b);
    if outcome == 2 {
        return match war(r, t, s, tally, rng, duel, a, b, need) {
            War::Won {
                winner,
                depth,
                forfeited,
            } => settled(r, s, tally, winner, depth, forfeited),
            War::Draw => {
                tally.note_leader(s.leader());
                Some((EndReason::DrawInWar, None))
            }
        };
    }
    let winner = usize::from(outcome);
    // Shuffled pick-up never loops: no replay plays it (nor draws for it).
    if r.prize {
        let layered = r.pickup == Pickup::Played;
        let cards = quad::<PICK>(winner, [pa, a, pb, b], layered, rng, &mut 0);
        s.give_word(winner, u64::from(u32::from_le_bytes(cards)), 4);
    } else {
        let (x, y) = pair::<PICK>(winner, a, b, false);
        s.give(r, winner, &[x, y]);
    }
    settled(r, s, tally, winner, 0, 0)
}

/// How a two-seat game under loop detection stopped before its end was known: its position
/// came back `lam` battles after the saved one, found after `found` battles; or it reached the
/// safety cap (the record there) without a loop found.
pub(crate) enum Finish {
    Loop { lam: u64, found: u64 },
    Capped(GameRecord),
}

/// The record of a two-seat game (two-seat loop or block loop) that stopped as `how` says, on
/// the seats `s`, from the replays of [`cycle::finish_loop_after`] or [`cycle::past_cap`] from
/// `saves.initial`, where the tally was `start` (or from the marks on the way); the replay's
/// hint from `saves.trail`.
pub(crate) fn finish(
    c: Ctx<'_>,
    s: &mut Seats,
    start: Tally,
    rng: &mut GameRng,
    how: Finish,
) -> GameRecord {
    macro_rules! go {
        ($pick:expr) => {
            if c.duel.is_empty() {
                finish_with::<{ $pick }, false>(c, s, start, rng, how)
            } else {
                finish_with::<{ $pick }, true>(c, s, start, rng, how)
            }
        };
    }
    match pick_of(c.r.pickup) {
        pick::SEAT => go!(pick::SEAT),
        pick::WINNER => go!(pick::WINNER),
        pick::LOSER => go!(pick::LOSER),
        pick::DESC => go!(pick::DESC),
        pick::ASC => go!(pick::ASC),
        _ => unreachable!("a shuffled pick-up never loops"),
    }
}

/// [`finish`] for the pick-up order `PICK`, under a beats-table ranking (`TABLE`) or not.
#[cold]
fn finish_with<const PICK: u8, const TABLE: bool>(
    c: Ctx<'_>,
    s: &mut Seats,
    start: Tally,
    rng: &mut GameRng,
    how: Finish,
) -> GameRecord {
    let Ctx { r, t, duel, saves } = c;
    let plain = r.two_pile.is_none() && !r.prize;
    let mut step = Replay::<PICK, TABLE> {
        r,
        t,
        duel,
        rng,
        plain,
    };
    match how {
        Finish::Loop { lam, found } => cycle::finish_found(s, saves, start, lam, &mut step, found),
        Finish::Capped(capped) => cycle::past_cap(s, saves, start, capped, &mut step),
    }
}

/// The replays of the two-seat loop's detection ([`cycle::finish_loop_after`],
/// [`cycle::past_cap`]): a battle at a time by [`step`], and long stretches of a card against
/// a card from one pile (`plain`) in registers, as the first pass played them.
struct Replay<'a, const PICK: u8, const TABLE: bool> {
    r: &'a Rules,
    t: &'a mut Scratch,
    duel: &'a [u8],
    rng: &'a mut GameRng,
    plain: bool,
}

impl<const PICK: u8, const TABLE: bool> cycle::Step<Seats> for Replay<'_, PICK, TABLE> {
    fn step(&mut self, s: &mut Seats, tally: &mut Tally, _: bool) -> Option<End> {
        step::<PICK, TABLE>(self.r, self.t, self.duel, s, tally, self.rng)
    }

    /// Plain battles in registers up to the next tie, which [`step`] plays; replayed battles
    /// end nothing (the first pass went past them), so only ties stop a stretch.
    fn leap(&mut self, s: &mut Seats, tally: &mut Tally, to: u64) {
        if !self.plain {
            return cycle::step_to(self, s, tally, to);
        }
        let values = self.r.cards.values();
        // One pile: a seat's stack is all its cards.
        let total = s.l[0] + s.l[1];
        while tally.battles < to {
            let (mut h0, mut h1, mut t0) = (s.h[0], s.h[1], s.l[0]);
            let mut lead = margin_of(tally.leader);
            let (mut battles, mut changes) = (tally.battles, 0);
            {
                let mut d = Duo::<false>::new(s.buf_mut());
                while battles < to {
                    let (a, b) = (d.get(0, h0), d.get(1, h1));
                    let outcome = duel_of::<TABLE>(self.duel, values, a, b);
                    if outcome == 2 {
                        break;
                    }
                    h0 += 1;
                    h1 += 1;
                    battles += 1;
                    let winner = usize::from(outcome);
                    let (x, y) = pair::<PICK>(winner, a, b, false);
                    // The winner's tail, behind its remaining stack, as the loop finds it.
                    let (tail0, tail1) = (h0 + t0 - 1, h1 + (total - t0) - 1);
                    let tail = tail0 ^ ((tail0 ^ tail1) & 0usize.wrapping_sub(winner));
                    d.set(winner, tail, x);
                    d.set(winner, tail + 1, y);
                    t0 = t0 + 1 - 2 * winner;
                    changes += note(&mut lead, t0, total) / CHANGE;
                }
            }
            (s.h[0], s.h[1], s.l[0], s.l[1]) = (h0, h1, t0, total - t0);
            tally.cards_turned += 2 * (battles - tally.battles);
            tally.battles = battles;
            tally.lead_changes += changes;
            tally.leader = leader_of(lead);
            if battles < to {
                // A tie: the war is the step's.
                self.step(s, tally, false);
            }
        }
    }
}

/// After a battle of [`step`]: the lead, who is out and the endings, from seat 0's count.
#[inline]
fn settled(
    r: &Rules,
    s: &mut Seats,
    tally: &mut Tally,
    winner: usize,
    depth: u32,
    forfeited: u8,
) -> Option<End> {
    let t0 = s.total(0);
    let total = t0 + s.total(1);
    tally.note_leader(match (2 * t0).cmp(&total) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    });
    if t0 == 0 || t0 == total {
        s.in_game = 1 << winner;
    } else if r.target_cards.is_none()
        && r.min_cards.is_none()
        && (depth == 0 || forfeited == 0 && r.wars_to_win.is_none())
    {
        return None;
    }
    counted_end(r, s, t0, total, depth, forfeited)
}

/// How a war of the two-seat loops ended.
pub(crate) enum War {
    /// `winner` took the table after `depth` wars; `forfeited` seats are out.
    Won {
        winner: usize,
        depth: u32,
        forfeited: u8,
    },
    /// Both players ran out at once and took their cards back: a draw.
    Draw,
}

/// A war between the two seats, whose tied cards `a` and `b` have just been taken from their
/// stacks after `need - 1` prizes (the seats' positions are in `s`; `duel` is the loop's
/// outcome table, empty for the ordered rankings). Rounds both seats can pay for in full are
/// played here, running on into a won pile that turns over where it lies ([`into_pile`]);
/// anything else (a short supply, a pile to shuffle that wraps round the ring) goes on in the
/// general loop's [`fight`](general::fight). The winner picks the table up from the rings, or
/// takes it by the general [`settle`](general::settle), which under `war_cause_to_loser` first
/// gives the loser back the war's cause.
#[inline(never)]
#[allow(clippy::too_many_arguments)] // the loop's whole context, as `general::fight` takes it
pub(crate) fn war(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    duel: &[u8],
    a: u8,
    b: u8,
    need: usize,
) -> War {
    let mut up = [0u8; MAX_PLAYERS];
    (up[0], up[1]) = (a, b);
    // The common war first, without the general fight's questions: while both stacks hold a
    // whole round, a round is the heads moving on and a comparison. Each seat's table cards
    // are then one stretch of its ring, from its opening (`need` cards: the prize, if any,
    // and the tied card) to its head.
    let tied = [s.h[0] - need, s.h[1] - need];
    let mut depth = 0u32;
    let mut decided = None;
    // A won pile lies right behind its stack and turns over where it lies (shuffled there under
    // `on_empty = shuffle`): a round may run on into it, and the table cards are still one
    // stretch; unless a pile to shuffle wraps round the ring, which `Seats::turn_over` rotates.
    let feeds = matches!(r.two_pile, Some(OnEmpty::TurnOver | OnEmpty::Shuffle));
    let shuffles = r.two_pile == Some(OnEmpty::Shuffle);
    let values = r.cards.values();
    let supply = |s: &Seats, p: usize| s.l[p] + if feeds { s.m[p] } else { 0 };
    let wraps = |s: &Seats, p: usize| {
        let pile = s.h[p] + s.l[p];
        s.stretch(p, pile, pile + s.m[p]).is_none()
    };
    loop {
        let n = r.war_size(depth + 1, up[0]);
        // A stack that cannot pay the round: its won pile may (two piles).
        if (s.l[0] <= n || s.l[1] <= n)
            && (!feeds
                || supply(s, 0) <= n
                || supply(s, 1) <= n
                || shuffles && (0..2).any(|p| s.l[p] <= n && wraps(s, p)))
        {
            break;
        }
        depth += 1;
        tally.wars += 1;
        tally.cards_turned += 2 * (n as u64 + 1);
        for (p, card) in up.iter_mut().enumerate().take(2) {
            if s.l[p] <= n {
                into_pile(s, p, n + 1, shuffles, rng);
            } else {
                s.h[p] += n + 1;
                s.l[p] -= n + 1;
            }
            *card = s.get(p, s.h[p] - 1);
        }
        let outcome = if duel.is_empty() {
            duel_of::<false>(duel, values, up[0], up[1])
        } else {
            duel_of::<true>(duel, values, up[0], up[1])
        };
        if outcome != 2 {
            decided = Some(usize::from(outcome));
            break;
        }
    }
    if let Some(winner) = decided {
        tally.deepest = tally.deepest.max(depth);
        // The winner picks the two stretches up straight from the rings, where they lie in
        // one piece (nearly always): what the general settle does, without the table's copy.
        // Not under `war_cause_to_loser`: the copy below sets the cause apart, and the
        // general settle gives it to the loser.
        if !r.cause_to_loser
            && let (Some(p0), Some(p1)) =
                (s.stretch(0, tied[0], s.h[0]), s.stretch(1, tied[1], s.h[1]))
        {
            r.order_pickup(winner, &[p0, p1], &mut t.order, rng);
            if r.wars_to_win.is_some() {
                s.wars_won[winner] += 1;
            }
            s.give(r, winner, &t.order);
            return War::Won {
                winner,
                depth,
                forfeited: 0,
            };
        }
    }
    t.clear();
    for (p, &from) in tied.iter().enumerate() {
        t.pots[p].extend((from..s.h[p]).map(|pos| s.get(p, pos)));
        // Once a war is under way, its cause (the tied card, the opening's last) waits apart
        // for the loser under `war_cause_to_loser`, where the general fight put it when the
        // first round began.
        if r.cause_to_loser && depth > 0 {
            t.set_cause_apart(p, need - 1);
        }
    }
    if let Some(winner) = decided {
        general::settle(r, t, s, rng, winner, depth, 0);
        return War::Won {
            winner,
            depth,
            forfeited: 0,
        };
    }
    let mut forfeited = 0u8;
    match general::fight(
        r,
        t,
        s,
        tally,
        rng,
        &mut Quiet,
        0b11,
        &mut up,
        &mut forfeited,
        depth,
    ) {
        Fight::Won { winner, depth } => {
            general::settle(r, t, s, rng, winner, depth, forfeited);
            War::Won {
                winner,
                depth,
                forfeited,
            }
        }
        Fight::Draw => {
            general::draw_in_war(t, s, &mut Tally::default(), &mut Quiet);
            War::Draw
        }
    }
}

/// A war round of `k` cards from seat `p`, whose stack runs out during it: the rest of the
/// stack, then the won pile, turned over (and shuffled, with `shuffles`) when the general draw
/// finds the stack empty; seat 0's round, with its shuffle's draws, comes before seat 1's, as
/// the general fight draws. Out of line: the classic shape never turns a pile over, and its
/// wars run faster with this away from the rounds.
#[cold]
#[inline(never)]
fn into_pile(s: &mut Seats, p: usize, k: usize, shuffles: bool, rng: &mut GameRng) {
    let rest = s.l[p];
    s.h[p] += rest;
    if shuffles {
        s.l[p] = 0;
        s.turn_over(p, rng);
    } else {
        (s.l[p], s.m[p]) = (s.m[p], 0);
    }
    s.h[p] += k - rest;
    s.l[p] -= k - rest;
}

/// Two piles, a battle with a prize where a stack is down to one card: that card is the prize,
/// and its won pile is turned over for the face-up card. The pile does not change before then,
/// so it goes under the card now (seat 0's first, as the general battle draws) and the battle
/// is the calling loop's own: whether it could. Not under `lose` (the stack's end is the
/// player's), nor where a seat has neither two cards in its stack nor a won pile: those battles
/// are the table loop's ([`table_battle`]).
pub(crate) fn piles_under_last_cards(r: &Rules, s: &mut Seats, rng: &mut GameRng) -> bool {
    if r.two_pile == Some(OnEmpty::Lose) || !(0..2).all(|p| s.l[p] >= 2 || s.m[p] > 0) {
        return false;
    }
    for p in 0..2 {
        if s.l[p] < 2 {
            s.turn_over_under(p, rng);
        }
    }
    true
}

/// One battle of the table loop in the middle of a two-seat loop's game (a player short of a
/// prize and a card in its stack), on the tally it keeps: the loop's own `counts` (its first
/// battle, the battles and lead changes so far, the cards turned in each plain battle) are
/// handed over first, and the lead (`lead`, as [`note`] keeps it) taken back after; the loop
/// takes its first battle and counts back from the tally.
#[cold]
pub(crate) fn table_battle(
    r: &Rules,
    t: &mut Scratch,
    s: &mut Seats,
    tally: &mut Tally,
    rng: &mut GameRng,
    (first, battles, changes, turned): (u64, u64, u64, u64),
    lead: &mut i64,
) -> Option<End> {
    *tally = Tally {
        leader: leader_of(*lead),
        ..counted(tally, first, battles, changes, turned)
    };
    let end = table::step(r, t, s, tally, rng);
    *lead = margin_of(tally.leader);
    end
}

/// The record of a game played by a two-seat loop that started after `first` battles: the
/// loop counted battles and lead changes itself, and `turned` cards turned per battle (wars
/// aside).
pub(crate) fn record(
    tally: &Tally,
    first: u64,
    battles: u64,
    lead_changes: u64,
    turned: u64,
    end: End,
) -> GameRecord {
    counted(tally, first, battles, lead_changes, turned).record(end.0, end.1, None)
}

/// `tally` with a two-seat loop's own counts put in, as [`record`] describes them.
#[inline(always)]
fn counted(tally: &Tally, first: u64, battles: u64, lead_changes: u64, turned: u64) -> Tally {
    Tally {
        battles,
        cards_turned: tally.cards_turned + turned * (battles - first),
        lead_changes,
        ..*tally
    }
}

/// Whether a battle that left seat 0 with `t0` of `total` cards (after `depth` wars, with
/// `forfeited` seats out) ended the game, in the general loop's order of endings.
#[cold]
pub(crate) fn counted_end(
    r: &Rules,
    s: &mut Seats,
    t0: usize,
    total: usize,
    depth: u32,
    forfeited: u8,
) -> Option<End> {
    if t0 == 0 || t0 == total {
        let end = if forfeited != 0 {
            EndReason::Forfeit
        } else {
            EndReason::AllCards
        };
        return Some((end, Some(u8::from(t0 == 0))));
    }
    let most = |mask: u8| s.most_cards(mask);
    if let Some(target) = r.target_cards {
        let target = target as usize;
        let reached = u8::from(t0 >= target) | u8::from(total - t0 >= target) << 1;
        if reached != 0 {
            return Some((EndReason::Target, most(reached)));
        }
    }
    if let Some(min) = r.min_cards
        && (t0 < min as usize || total - t0 < min as usize)
    {
        return Some((EndReason::MinCards, most(0b11)));
    }
    if let Some(n) = r.wars_to_win
        && depth > 0
    {
        for p in 0..2 {
            if s.wars_won[p] >= n {
                return Some((EndReason::WarsToWin, Some(p as u8)));
            }
        }
    }
    None
}

/// The end at the battle cap: the rules' battle limit (the leader wins) or the safety cap.
pub(crate) fn at_cap(r: &Rules, battles: u32, t0: usize, total: usize) -> End {
    if r.battle_limit.is_some_and(|l| u64::from(battles) >= l) {
        let s = 2 * t0 as i64 - total as i64;
        (EndReason::BattleLimit, (s != 0).then_some(u8::from(s < 0)))
    } else {
        (EndReason::Capped, None)
    }
}

/// The sign of a margin that [`note`] keeps for the leader `leader`: seat 0 ahead `1`, seat 1
/// ahead `-1`, nobody yet `0`.
pub(crate) fn margin_of(leader: Option<u8>) -> i64 {
    match leader {
        Some(0) => 1,
        Some(_) => -1,
        None => 0,
    }
}

/// The leader whose margin has the sign `lead`: [`margin_of`] undone.
#[inline(always)]
fn leader_of(lead: i64) -> Option<u8> {
    (lead != 0).then_some(u8::from(lead < 0))
}

/// [`Tally::note_leader`] without branches, as an amount to add to the packed counter: seat 0
/// holds `t0` of `total` cards. Who leads flips often near a tie, which a branch would
/// mispredict. `lead` keeps the last non-zero margin; the lead changed when the new margin has
/// the other sign, that is when their product is negative.
#[inline(always)]
pub(crate) fn note(lead: &mut i64, t0: usize, total: usize) -> u64 {
    let s = 2 * t0 as i64 - total as i64;
    let flip = ((s * *lead) as u64) >> 63;
    *lead = if s != 0 { s } else { *lead };
    flip * CHANGE
}
