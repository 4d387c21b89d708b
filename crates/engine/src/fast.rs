//! The specialised loop for the classic shape: two players, ordered ranking, a fixed war size,
//! repeated wars, all-but-last when short, one pile, no extras, no cycle detection.
//!
//! It plays exactly the games [`crate::engine::battle`] plays, with the same random draws in the
//! same order (a property test checks record-for-record equality). What makes it fast:
//! - both stacks live in one buffer (seat 1 at offset `cap`, and `cap` is the constant 256
//!   whenever the cards fit, so an index is its low byte), and their heads and lengths are
//!   local variables, so the loop carries no dependency through memory;
//! - battles and lead changes share one register (low and high 32 bits): a separate lead-change
//!   counter was spilled to the stack, and its read-modify-write chained every battle to the
//!   previous one;
//! - who wins a battle is a coin flip to the branch predictor, so the winner's stack, the
//!   pick-up order and the lead are chosen by arithmetic, not by branches.

use crate::engine::{State, Table, Tally};
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{DownRule, Pickup, Rules};

/// Stack capacity of the narrow loop: any deal of up to this many cards.
pub(crate) const NARROW_CAP: usize = 256;

/// Per-seat length of the linear buffers of the block loop ([`crate::block`]): the stacks slide
/// forward through them and are moved back to the front once a head passes [`SLIDE`].
pub(crate) const LINEAR_SEAT: usize = 2048;
/// A head at or past this index moves its stack back to the front. Below it, everything a step
/// touches (a stack of at most [`NARROW_CAP`] cards, plus a 32-byte store past its tail, plus
/// a war's advance of at most [`NARROW_CAP`]) stays inside [`LINEAR_SEAT`].
pub(crate) const SLIDE: usize = 1024;

/// How the two stacks sit in their buffer.
pub(crate) mod mode {
    /// Rings of [`super::NARROW_CAP`] cards: an index is its low byte.
    pub const NARROW: u8 = 0;
    /// Rings of any power-of-two capacity.
    pub const WIDE: u8 = 1;
    /// Linear stretches of [`super::LINEAR_SEAT`] bytes, no wrap-around.
    pub const LINEAR: u8 = 2;
}

/// Two stacks in one buffer: seat 0 at `buf[..cap]`, seat 1 at `buf[cap..]`.
pub(crate) struct Duo<const MODE: u8> {
    base: *mut u8,
    mask: usize,
}

impl<const MODE: u8> Duo<MODE> {
    pub(crate) fn new(buf: &mut [u8]) -> Duo<MODE> {
        let cap = buf.len() / 2;
        assert!(cap.is_power_of_two() && buf.len() == 2 * cap);
        assert!(MODE != mode::NARROW || cap == NARROW_CAP);
        assert!(MODE != mode::LINEAR || cap == LINEAR_SEAT);
        Duo {
            base: buf.as_mut_ptr(),
            mask: cap - 1,
        }
    }

    #[inline(always)]
    fn stride(&self) -> usize {
        match MODE {
            mode::NARROW => NARROW_CAP,
            mode::LINEAR => LINEAR_SEAT,
            _ => self.mask + 1,
        }
    }

    /// The start of `seat`'s stretch.
    #[inline(always)]
    pub(crate) fn seat(&self, seat: usize) -> *mut u8 {
        debug_assert!(seat <= 1);
        // SAFETY: the buffer holds two stretches of `stride` bytes.
        unsafe { self.base.add(seat * self.stride()) }
    }

    #[inline(always)]
    fn at(&self, seat: usize, pos: usize) -> *mut u8 {
        let pos = match MODE {
            mode::NARROW => pos & (NARROW_CAP - 1),
            mode::LINEAR => {
                debug_assert!(pos < LINEAR_SEAT);
                pos
            }
            _ => pos & self.mask,
        };
        // SAFETY: `base` points at two stretches of `stride` bytes, borrowed for the whole game
        // (the loops hold `&mut Table`); `seat ≤ 1` and `pos < stride` (masked for rings; for
        // the linear stretches the block loop slides the stacks back before a head passes
        // `SLIDE`, which keeps every position below `LINEAR_SEAT`).
        unsafe { self.seat(seat).add(pos) }
    }

    #[inline(always)]
    pub(crate) fn get(&self, seat: usize, pos: usize) -> u8 {
        // SAFETY: `at` stays inside the buffer.
        unsafe { *self.at(seat, pos) }
    }

    #[inline(always)]
    pub(crate) fn set(&mut self, seat: usize, pos: usize, card: u8) {
        // SAFETY: `at` stays inside the buffer.
        unsafe { *self.at(seat, pos) = card }
    }
}

/// The battle count at which the game stops: the battle limit or the safety cap. The fast loop
/// counts battles in 32 bits, so [`Rules::is_simple_two_player`] sends larger caps to the
/// general loop.
pub(crate) fn battle_cap(r: &Rules) -> u64 {
    r.safety_cap
        .unwrap_or(u64::MAX)
        .min(r.battle_limit.unwrap_or(u64::MAX))
}

pub(crate) fn run(
    r: &Rules,
    st: &mut State,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> GameRecord {
    if uses_block(r, t) {
        #[cfg(target_arch = "x86_64")]
        return crate::block::run(r, st, t, tally, rng);
    }
    if r.cards.total() <= NARROW_CAP {
        run_sized::<{ mode::NARROW }>(r, st, t, tally, rng)
    } else {
        run_sized::<{ mode::WIDE }>(r, st, t, tally, rng)
    }
}

/// Whether [`run`] hands these rules to the vector block loop: the CPU has it and the deck
/// fits its linear stretches.
pub(crate) fn uses_block(r: &Rules, t: &Table) -> bool {
    t.block && r.cards.total() <= NARROW_CAP
}

#[inline(always)]
fn run_sized<const MODE: u8>(
    r: &Rules,
    st: &mut State,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> GameRecord {
    // One copy of the loop per pick-up order, so the order costs nothing per battle.
    match r.pickup {
        Pickup::Shuffled => run_with::<0, MODE>(r, st, t, tally, rng),
        Pickup::Seat => run_with::<1, MODE>(r, st, t, tally, rng),
        Pickup::WinnerFirst | Pickup::Played => run_with::<2, MODE>(r, st, t, tally, rng),
        Pickup::LoserFirst => run_with::<3, MODE>(r, st, t, tally, rng),
        Pickup::RankDesc => run_with::<4, MODE>(r, st, t, tally, rng),
        Pickup::RankAsc => run_with::<5, MODE>(r, st, t, tally, rng),
    }
}

/// One register holding the battle count (low 32 bits) and the lead changes (high 32 bits).
const CHANGE: u64 = 1 << 32;

fn run_with<const PICKUP: u8, const MODE: u8>(
    r: &Rules,
    st: &mut State,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> GameRecord {
    let buf = if MODE == mode::NARROW {
        &mut t.duo[..2 * NARROW_CAP]
    } else {
        &mut t.duo[..]
    };
    let mut d = Duo::<MODE>::new(buf);
    let Start {
        n,
        cap,
        mut l0,
        total,
        first,
        mut lead,
    } = start(r, st, &mut d, tally);
    let (mut h0, mut h1) = (0usize, 0usize);
    // Between battles every card is in one of the two stacks, so seat 1's length is
    // `total - l0`: one length to carry instead of two.
    let mut acc = first | (tally.lead_changes << 32);
    let mut bits = rng.take_bits();
    let end = loop {
        acc += 1;
        let a = d.get(0, h0);
        let b = d.get(1, h1);
        h0 += 1;
        h1 += 1;
        let winner;
        if a != b {
            winner = usize::from(b > a);
            let swap = match PICKUP {
                0 => rng.bit_from(&mut bits),
                1 => false,
                2 => winner == 1,
                3 => winner == 0,
                4 => b > a,
                _ => a > b,
            };
            let mask = 0u8.wrapping_sub(u8::from(swap));
            let x = a ^ ((a ^ b) & mask);
            let y = a ^ b ^ x;
            // Tail of the winner's stack after both pops.
            let tail = if winner == 1 {
                h1 + total - l0 - 1
            } else {
                h0 + l0 - 1
            };
            d.set(winner, tail, x);
            d.set(winner, tail + 1, y);
            l0 = l0 + 1 - 2 * winner;
        } else {
            rng.put_bits(bits);
            let out = war(
                r,
                n,
                &mut d,
                t,
                tally,
                rng,
                [h0 - 1, h1 - 1],
                [l0, total - l0],
            );
            bits = rng.take_bits();
            match out {
                War::Won { seat, h, l0: left } => {
                    winner = seat;
                    [h0, h1] = h;
                    l0 = left;
                }
                War::Draw { own0, own1 } => {
                    // Both out at once: each takes back their own cards; a draw.
                    acc += note(&mut lead, own0, own0 + own1);
                    break (EndReason::DrawInWar, None);
                }
            }
        }
        acc += note(&mut lead, l0, total);
        if l0 == 0 || l0 == total {
            break (EndReason::AllCards, Some(winner as u8));
        }
        if acc as u32 >= cap {
            break at_cap(r, acc as u32, l0, total);
        }
    };
    rng.put_bits(bits);
    record(tally, first, acc & u64::from(u32::MAX), acc >> 32, end)
}

/// Where both fast loops start, after [`start`] has copied the stacks into their buffer.
pub(crate) struct Start {
    /// The war size.
    pub n: usize,
    /// The battle count at which the game stops ([`battle_cap`]).
    pub cap: u32,
    /// Seat 0's cards; seat 1 holds `total - l0`.
    pub l0: usize,
    pub total: usize,
    /// Battles already played (the dealt position may come after some).
    pub first: u64,
    /// The last lead as a sign: > 0 seat 0, < 0 seat 1, 0 nobody yet.
    pub lead: i64,
}

pub(crate) fn start<const MODE: u8>(
    r: &Rules,
    st: &State,
    d: &mut Duo<MODE>,
    tally: &Tally,
) -> Start {
    let n = match r.down {
        DownRule::Fixed(n) => n as usize,
        DownRule::PerValue(_) => unreachable!("the fast loop is for a fixed war size"),
    };
    let cap = u32::try_from(battle_cap(r)).expect("checked by is_simple_two_player");
    for seat in 0..2 {
        for (i, c) in st.stacks[seat].iter().enumerate() {
            d.set(seat, i, c);
        }
    }
    let l0 = st.stacks[0].len();
    let first = tally.battles;
    assert!(first < u64::from(cap) && tally.lead_changes <= first);
    Start {
        n,
        cap,
        l0,
        total: l0 + st.stacks[1].len(),
        first,
        lead: match tally.leader {
            Some(0) => 1,
            Some(_) => -1,
            None => 0,
        },
    }
}

/// The end at the battle cap: the rules' battle limit (the leader wins) or the safety cap.
pub(crate) fn at_cap(r: &Rules, battles: u32, l0: usize, total: usize) -> (EndReason, Option<u8>) {
    if r.battle_limit.is_some_and(|lim| u64::from(battles) >= lim) {
        let s = 2 * l0 as i64 - total as i64;
        (EndReason::BattleLimit, (s != 0).then_some(u8::from(s < 0)))
    } else {
        (EndReason::Capped, None)
    }
}

/// The record of a fast-loop game that started after `first` battles.
pub(crate) fn record(
    tally: &Tally,
    first: u64,
    battles: u64,
    lead_changes: u64,
    end: (EndReason, Option<u8>),
) -> GameRecord {
    GameRecord {
        battles,
        wars: tally.wars,
        deepest_war: tally.deepest,
        cards_turned: tally.cards_turned + 2 * (battles - first),
        lead_changes,
        winner: end.1,
        end: end.0,
        cycle: None,
    }
}

/// The cards a seat holding `len` cards puts down in the next round of a war, before its
/// up card (`n` when it can, all but the last when short), or `None` if it has none.
#[inline(always)]
pub(crate) fn stake(len: usize, n: usize) -> Option<usize> {
    if len > n {
        Some(n)
    } else if len >= 1 {
        Some(len - 1)
    } else {
        None
    }
}

/// How a war ended: taken by `seat`, leaving the stacks' heads at `h` and seat 0 with `l0`
/// cards; or both players out, holding `own0` and `own1` cards between them.
pub(crate) enum War {
    Won {
        seat: usize,
        h: [usize; 2],
        l0: usize,
    },
    Draw {
        own0: usize,
        own1: usize,
    },
}

/// The rounds of a war between two seats, from the tied cards at the heads `start` (`l`
/// counts them): each seat stakes its down cards and an up card ([`stake`]) until the up cards
/// differ or a seat has none left. `card(seat, pos)` reads a stack. Returns the taker (`None`:
/// both out), the heads past every card staked and the cards left; counts the wars, the cards
/// turned and the depth into `tally`. Each seat's pot is the run of its stack from `start` to
/// the returned head.
#[inline(always)]
pub(crate) fn rounds(
    n: usize,
    start: [usize; 2],
    l: [usize; 2],
    tally: &mut Tally,
    card: impl Fn(usize, usize) -> u8,
) -> (Option<usize>, [usize; 2], [usize; 2]) {
    // Past the tied cards.
    let mut h = [start[0] + 1, start[1] + 1];
    let mut l = [l[0] - 1, l[1] - 1];
    let (mut wars, mut turned, mut depth) = (0u64, 0u64, 0u32);
    let won = loop {
        depth += 1;
        wars += 1;
        let (d0, d1) = match (stake(l[0], n), stake(l[1], n)) {
            (Some(d0), Some(d1)) => (d0, d1),
            (None, None) => break None,
            (None, Some(_)) => break Some(1),
            (Some(_), None) => break Some(0),
        };
        h = [h[0] + d0 + 1, h[1] + d1 + 1];
        l = [l[0] - d0 - 1, l[1] - d1 - 1];
        turned += (d0 + d1 + 2) as u64;
        let up = [card(0, h[0] - 1), card(1, h[1] - 1)];
        if up[0] != up[1] {
            break Some(usize::from(up[1] > up[0]));
        }
    };
    tally.wars += wars;
    tally.cards_turned += turned;
    tally.deepest = tally.deepest.max(depth);
    (won, h, l)
}

/// A war from the tied cards at the heads `start` (`l` counts them): the same steps as the
/// general loop, on two seats. Out of line so that the battle loop keeps its few variables in
/// registers; a war comes once in about 17 battles.
#[allow(clippy::too_many_arguments)] // the loop's state, passed in registers
#[inline(never)]
pub(crate) fn war<const MODE: u8>(
    r: &Rules,
    n: usize,
    d: &mut Duo<MODE>,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
    start: [usize; 2],
    l: [usize; 2],
) -> War {
    let (won, h, mut l) = rounds(n, start, l, tally, |seat, pos| d.get(seat, pos));
    let k = [h[0] - start[0], h[1] - start[1]];
    let Some(w) = won else {
        return War::Draw {
            own0: k[0],
            own1: k[1],
        };
    };
    // Both pots in one buffer, seat 1's at `stride`; nothing has been written to the stacks
    // since the cards were staked, so they are read back from there.
    let stride = t.pot2.len() / 2;
    let (p0, p1) = t.pot2.split_at_mut(stride);
    for (seat, pot) in [&mut *p0, &mut *p1].into_iter().enumerate() {
        for (i, c) in pot[..k[seat]].iter_mut().enumerate() {
            *c = d.get(seat, start[seat] + i);
        }
    }
    let taken = order2(r.pickup, w, [&p0[..k[0]], &p1[..k[1]]], &mut t.scratch, rng);
    for &c in taken {
        d.set(w, h[w] + l[w], c);
        l[w] += 1;
    }
    War::Won {
        seat: w,
        h,
        l0: l[0],
    }
}

/// [`order_pickup`](crate::engine::order_pickup) for two seats: the same order, and the same
/// random draws, without per-seat vectors. Returns the cards in the order they go under.
#[inline(always)]
pub(crate) fn order2<'a>(
    pickup: Pickup,
    taker: usize,
    pots: [&'a [u8]; 2],
    scratch: &'a mut Vec<u8>,
    rng: &mut GameRng,
) -> &'a [u8] {
    let (mine, theirs) = (pots[taker], pots[1 - taker]);
    scratch.clear();
    match pickup {
        Pickup::Shuffled => {
            scratch.extend_from_slice(pots[0]);
            scratch.extend_from_slice(pots[1]);
            rng.shuffle(scratch);
        }
        Pickup::WinnerFirst => {
            scratch.extend_from_slice(mine);
            scratch.extend_from_slice(theirs);
        }
        Pickup::LoserFirst => {
            scratch.extend_from_slice(theirs);
            scratch.extend_from_slice(mine);
        }
        Pickup::Played | Pickup::Seat => {
            let first = if pickup == Pickup::Played {
                mine
            } else {
                pots[0]
            };
            let second = if pickup == Pickup::Played {
                theirs
            } else {
                pots[1]
            };
            for i in 0..first.len().max(second.len()) {
                scratch.extend(first.get(i));
                scratch.extend(second.get(i));
            }
        }
        Pickup::RankDesc | Pickup::RankAsc => {
            scratch.extend_from_slice(pots[0]);
            scratch.extend_from_slice(pots[1]);
            scratch.sort_unstable();
            if pickup == Pickup::RankDesc {
                scratch.reverse();
            }
        }
    }
    scratch
}

/// [`Tally::note_leader`](crate::engine::Tally) without branches, as an amount to add to the
/// packed counter: seat 0 holds `l0` of `total` cards. Who leads flips often near a tie, which
/// a branch would mispredict. `lead` keeps the last non-zero margin; the lead changed when the
/// new margin has the other sign, that is when their product is negative.
#[inline(always)]
pub(crate) fn note(lead: &mut i64, l0: usize, total: usize) -> u64 {
    let s = 2 * l0 as i64 - total as i64;
    let flip = ((s * *lead) as u64) >> 63;
    *lead = if s != 0 { s } else { *lead };
    flip * CHANGE
}
