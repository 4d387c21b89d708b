//! The kernels the runs share: 16-bit lanes in words (a lane at zero, the leader's lane),
//! face-up cards and hands in words, the pick-up orders of a battle's cards in a word, and the
//! cards put under a stack or turned over from a won pile on the ring.

use super::LANE;
use crate::rng::GameRng;
use crate::rules::{Policy, Rules, choose_ordered, pick};
use crate::seats::shuffle_pile;
use crate::state::MAX_PLAYERS;

/// The lanes past the first `M` set to 1, so that only the first `M` can read as zero.
#[inline(always)]
pub(super) const fn pad<const M: usize>() -> u64 {
    if M >= 4 {
        0
    } else {
        0x0001_0001_0001_0001 & !((1 << (16 * M)) - 1)
    }
}

/// Whether one of the first `M` lanes of `x` is zero: a seat out of its supply, or out of
/// cards.
#[inline(always)]
pub(super) fn lane_out<const M: usize>(x: u64) -> bool {
    has_zero_lane(x | pad::<M>())
}

/// Whether the supply (`supply`, the first `M` lanes) of a seat is short of a battle in full:
/// out, or with a `PRIZE` down to one card (with hands: the prize, and no card to refill the
/// hand; without: no prize, the card turned up).
#[inline(always)]
pub(super) fn lane_short<const M: usize, const PRIZE: bool>(supply: u64) -> bool {
    // A lane below 2 is one with every bit above its lowest clear.
    lane_out::<M>(if PRIZE {
        supply & !0x0001_0001_0001_0001
    } else {
        supply
    })
}

/// The lanes among `contenders` (a mask) holding the best face-up card (lane `i`'s in byte `i`
/// of `ups`), as a mask: [`Rules::best_of_first`] on the lanes.
#[inline(always)]
pub(super) fn best_among<const M: usize, const ORDERED: bool>(
    r: &Rules,
    ups: u64,
    contenders: u8,
) -> u8 {
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
pub(super) fn draw_up<const ORDERED: bool>(
    r: &Rules,
    policy: Policy,
    hand: usize,
    word: u64,
    top: u64,
    rng: &mut GameRng,
) -> (u64, u64) {
    refill(word, pick_slot::<ORDERED>(r, policy, hand, word, rng), top)
}

/// The slot `policy` plays from the first `hand` slots of the hand `word` ([`Rules::choose_by`]).
/// Under an `ORDERED` ranking a deterministic policy compares the values in the word
/// ([`choose_ordered`], the same slot), hands of three unrolled: no lookup of each card's
/// strength and no loop over a length read at run time. The policy is a seat's, the same
/// through a game, so its branch is one a predictor learns.
#[inline(always)]
pub(super) fn pick_slot<const ORDERED: bool>(
    r: &Rules,
    policy: Policy,
    hand: usize,
    word: u64,
    rng: &mut GameRng,
) -> usize {
    if ORDERED && policy != Policy::Random {
        if hand == 3 {
            choose_ordered(policy, word, 3)
        } else {
            choose_ordered(policy, word, hand)
        }
    } else {
        r.choose_by(policy, &word.to_le_bytes()[..hand], rng)
    }
}

/// Both seats' [`pick_slot`]s from the hands `words`, seat 0's first, for a caller that makes
/// no draw between them: where both pick at random, the two draws of
/// [`GameRng::below_pair`], the same as the two calls make.
#[inline(always)]
pub(super) fn pick_slots<const ORDERED: bool>(
    r: &Rules,
    policies: [Policy; 2],
    hand: usize,
    words: [u64; 2],
    rng: &mut GameRng,
) -> [usize; 2] {
    if policies == [Policy::Random; 2] {
        let (a, b) = rng.below_pair(hand as u32, hand as u32);
        return [a as usize, b as usize];
    }
    let first = pick_slot::<ORDERED>(r, policies[0], hand, words[0], rng);
    [
        first,
        pick_slot::<ORDERED>(r, policies[1], hand, words[1], rng),
    ]
}

/// The card in slot `slot` of the hand `word`, and the hand after, the slot refilled with
/// `top`.
#[inline(always)]
pub(super) fn refill(word: u64, slot: usize, top: u64) -> (u64, u64) {
    let at = 8 * slot as u32;
    ((word >> at) & 0xFF, word & !(0xFF << at) | top << at)
}

/// The top card of each of the `M` stacks at `base` with heads `heads` (lane `i`'s in byte `i`).
/// Runs look only while every seat has a supply: a stack that is out under two piles has its won
/// pile's top at its head (a seat with neither is [`short_tops`](super::short::short_tops)').
#[inline(always)]
pub(super) fn tops<const M: usize>(buf: &[u8], base: &[usize; M], heads: u64, mask: usize) -> u64 {
    (0..M).fold(0, |v, i| {
        v | u64::from(buf[base[i] + ((heads >> (16 * i)) as usize & mask)]) << (8 * i)
    })
}

/// The seats holding the best face-up card (seat `i`'s in byte `i` of `ups`), as a mask:
/// [`best_among`] every lane.
#[inline(always)]
pub(super) fn best_lane<const M: usize, const ORDERED: bool>(r: &Rules, ups: u64) -> u8 {
    best_among::<M, ORDERED>(r, ups, ((1u16 << M) - 1) as u8)
}

/// The largest of the first `M` lanes.
#[inline(always)]
pub(super) fn most_lane<const M: usize>(lens: u64) -> usize {
    (0..M)
        .map(|i| (lens >> (16 * i)) as usize & LANE)
        .max()
        .unwrap_or(0)
}

/// The one lane of the first `M` holding the most cards, and whether there is one (no tie):
/// [`leader_of`](super::stepwise::leader_of) on lanes.
#[inline(always)]
pub(super) fn leader_lane<const M: usize>(lens: u64) -> (bool, usize) {
    let len = |i: usize| (lens >> (16 * i)) as usize & LANE;
    let most = most_lane::<M>(lens);
    let holders = (0..M).fold(0u8, |m, i| m | u8::from(len(i) == most) << i);
    (
        holders & holders.wrapping_sub(1) == 0,
        holders.trailing_zeros() as usize,
    )
}

/// Two seats' hands (a word each, card `i` in byte `i`) folded into one word for Brent's first
/// compare, `kept` masking the hand's cards: two positions whose folds differ differ (folds
/// that match may not, which the compare in full rejects). One fold for the table loop's
/// two-seat run and its vector blocks, which compare the same positions.
#[inline(always)]
pub(crate) fn fold_hands(words: [u64; 2], kept: u64) -> u64 {
    (words[0] & kept) ^ (words[1] & kept).rotate_left(32)
}

/// Whether a 16-bit lane of `x` is zero (exact: a borrow only runs on from a zero lane).
#[inline(always)]
pub(super) fn has_zero_lane(x: u64) -> bool {
    const LOW: u64 = 0x0001_0001_0001_0001;
    const HIGH: u64 = 0x8000_8000_8000_8000;
    x.wrapping_sub(LOW) & !x & HIGH != 0
}

/// The pick-up of a plain battle of `M` seats that lane `w` won, from the face-up cards (lane `i`'s
/// in byte `i`), in the order `PICK`: the cards of [`pickup`](super::stepwise::pickup) without a
/// prize, in a word.
#[inline(always)]
pub(super) fn order<const M: usize, const PICK: u8>(rng: &mut GameRng, ups: u64, w: usize) -> u64 {
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
pub(super) fn apart<const M: usize>(word: u64, w: usize, bits: u32, first: bool) -> u64 {
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
/// face-up cards `ups` (lane `i`'s in byte `i`), in [`pickup`](super::stepwise::pickup)'s order of
/// the `2M` cards (`layered`: `played`, layer by layer), in a word.
#[inline(always)]
pub(super) fn order_prize<const M: usize, const PICK: u8>(
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

/// The pick-up of a battle with a prize in which only the lanes of `prized` gave one (a seat
/// down to its last card, or a short hand's supply out), for the winner's lane `w`: as the
/// general battle picks up its opening, each seat's pot (its prize, if any, under its face-up
/// card) in seat order, then ordered by the rules; under the shuffled pick-up in a word, with
/// the same draws. Returns the cards in a word and how many.
#[allow(clippy::too_many_arguments)] // a battle's cards, handed over
pub(super) fn order_bare<const M: usize, const PICK: u8>(
    r: &Rules,
    rng: &mut GameRng,
    seat: &[usize; MAX_PLAYERS],
    prs: u64,
    ups: u64,
    prized: u8,
    w: usize,
    order_buf: &mut Vec<u8>,
) -> (u64, usize) {
    if PICK == pick::SHUFFLED {
        // The pots in seat order (lane order) in a word.
        let (mut word, mut k) = (0u64, 0);
        for i in 0..M {
            if prized >> i & 1 != 0 {
                word |= (prs >> (8 * i) & 0xFF) << (8 * k);
                k += 1;
            }
            word |= (ups >> (8 * i) & 0xFF) << (8 * k);
            k += 1;
        }
        return (rng.shuffle_word(word, k), k);
    }
    let mut pots = [[0u8; 2]; MAX_PLAYERS];
    let mut sizes = [0usize; MAX_PLAYERS];
    for (i, &q) in seat.iter().enumerate().take(M) {
        let up = (ups >> (8 * i)) as u8;
        (pots[q], sizes[q]) = if prized >> i & 1 != 0 {
            ([(prs >> (8 * i)) as u8, up], 2)
        } else {
            ([up, 0], 1)
        };
    }
    let of: [&[u8]; MAX_PLAYERS] = std::array::from_fn(|q| &pots[q][..sizes[q]]);
    r.order_pickup(seat[w], &of[..r.players], order_buf, rng);
    let cards = order_buf
        .iter()
        .rev()
        .fold(0u64, |v, &c| v << 8 | u64::from(c));
    (cards, order_buf.len())
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
pub(super) unsafe fn put_under(
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

/// Under two piles, the lanes whose stacks have run out turn their won piles over into the stack,
/// in lane (seat) order, as [`Seats::turn_over`](crate::seats::Seats::turn_over) does when the
/// general battle draws from an empty stack: the cards stay where they lie, or under `on_empty =
/// shuffle` are shuffled there first (a pile that wraps round the ring is rotated to the start of
/// its stretch). Returns the piles shuffled. Every lane holds a card (`plain_run` stops when a seat
/// is out).
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(never)]
pub(super) fn turn_over_lanes<const M: usize>(
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
pub(super) unsafe fn refill_card(
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

/// `Holdings::top_up` for lane `i` (its stretch at `b`): its hand `word`, holding lane `i` of
/// `held` cards, grows back into new slots at its end, up to `hand` cards, from its supply (its
/// stack, under two piles its won pile turned over where the stack is out: [`refill_card`]).
/// Returns the piles shuffled.
///
/// # Safety
///
/// The stretch `b .. b + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(always)]
pub(super) unsafe fn top_up_lane(
    buf: &mut [u8],
    b: usize,
    cap: usize,
    i: usize,
    hand: u64,
    (heads, lens, wons): (&mut u64, &mut u64, &mut u64),
    held: &mut u64,
    word: &mut u64,
    shuffles: bool,
    rng: &mut GameRng,
) -> u64 {
    let lane = |x: u64| (x >> (16 * i)) & LANE as u64;
    let one = 1u64 << (16 * i);
    let mut shuffled = 0;
    while lane(*held) < hand && lane(*lens + *wons) > 0 {
        // SAFETY: the caller's word.
        let (turned, top) =
            unsafe { refill_card(buf, b, cap, i, heads, lens, wons, shuffles, rng) };
        shuffled += turned;
        let at = 8 * lane(*held);
        *word = *word & !(0xFF << at) | top << at;
        // The head moves on round the ring: a head at `cap` clears to 0 (every head is below
        // `cap`, a power of two, so no other lane holds that bit).
        *heads = (*heads + one) & !((cap as u64) << (16 * i));
        *lens -= one;
        *held += one;
    }
    shuffled
}

/// Lane `i`'s won pile, in the stretch at `b`, turned over into its empty stack, as
/// [`Seats::turn_over`](crate::seats::Seats::turn_over) does; returns 1 if it was shuffled.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[cold]
#[inline(never)]
pub(super) fn turn_over_lane(
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
