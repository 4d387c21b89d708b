//! Wars played on a run's lanes where every tied seat can play them in full: [`lane_war`], and
//! [`pair_war`] for two seats with hands under an ordered ranking, which with one pile also
//! plays on where a stack is short of a round ([`short_pair_war`], as from a short run's tie,
//! [`short_war`]).

use super::LANE;
use super::lanes::{best_among, pick_slot, refill, top_up_lane, turn_over_lane};
use crate::rng::GameRng;
use crate::rules::{Pickup, Policy, Rules, Stake, choose_ordered, pick, policy, policy_of};
use std::mem::MaybeUninit;

/// Room for each pot of a war on the lanes; a longer war is the general rounds'.
const ROOM: usize = 64;

/// The pots of `M` lanes as a war opens them: lane `i`'s prize (with `PRIZE`) from byte `i` of
/// `prs`, then its face-up card from byte `i` of `ups`. Each pot is `1 + PRIZE` cards long.
#[inline(always)]
fn opening<const M: usize, const PRIZE: bool>(prs: u64, ups: u64) -> [[u8; ROOM]; M] {
    let mut pots = [[0u8; ROOM]; M];
    for (i, pot) in pots.iter_mut().enumerate() {
        if PRIZE {
            pot[0] = (prs >> (8 * i)) as u8;
        }
        pot[usize::from(PRIZE)] = (ups >> (8 * i)) as u8;
    }
    pots
}

/// A war that a run hands over, as [`lane_war`] played it: the lane that won, the lanes and
/// hands after, the generator, the wars played and the cards they turned.
pub(super) struct LaneWar<const M: usize> {
    pub(super) winner: usize,
    pub(super) heads: u64,
    pub(super) lens: u64,
    pub(super) wons: u64,
    pub(super) words: [u64; M],
    pub(super) rng: GameRng,
    pub(super) depth: u32,
    pub(super) cards: u64,
    /// Won piles shuffled into a stack in the war.
    pub(super) shuffled: u64,
}

/// The war after a tie among the lanes `tied` (a mask of lanes) of a run of `M` seats
/// ([`pair_hands`](super::pair::pair_hands), [`plain_run`](super::plain::plain_run); the prizes
/// `prs` under the face-up cards `ups` with `PRIZE`, lane `i`'s in byte `i`), played as the table's
/// war plays it ([`hand_war`](super::stepwise::hand_war) with `HANDS`, else the general rounds of
/// [`stepwise::war`](super::stepwise)): each round, each tied lane in turn puts its `n` cards face
/// down from its stack and turns up its next card (with hands, plays a card from its hand by its
/// policy and refills the slot from its stack), until one lane's card is best; the winner picks up
/// every pot in [`Rules::order_pickup`]'s order ([`pick_up`]) behind everything it holds (under its
/// stack, or with `TWO` piles onto its won pile). With `TWO` piles a stack that runs out turns its
/// won pile over where the general draw does (a face-down card, or the face-up card or the refill
/// after the pick). The lanes, hands and generator come in by value and go back in the result, and
/// a won pile shuffled in the war is saved first, so a war given up leaves the run's position
/// untouched: `None`, and the table's war plays it from the start. A war is given up where a tied
/// lane's stack (with its won pile under two piles, where the pile `feeds` the stack: not under
/// `on_empty = lose`) holds no more cards than the round puts face down (it could not turn up or
/// refill after them, and a short war rule decides), where it would shuffle a pile of more than 128
/// cards, or where the pots outgrow their room.
///
/// # Safety
///
/// Every stretch `base[i] .. base[i] + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(never)]
pub(super) unsafe fn lane_war<
    const M: usize,
    const HANDS: bool,
    const PRIZE: bool,
    const TWO: bool,
    const ORDERED: bool,
>(
    r: &Rules,
    buf: &mut [u8],
    base: [usize; M],
    cap: usize,
    (mut heads, mut lens, mut wons, mut words): (u64, u64, u64, [u64; M]),
    mut g: GameRng,
    policies: [Policy; M],
    shuffles: bool,
    feeds: bool,
    tied: u8,
    prs: u64,
    mut ups: u64,
    order: &mut Vec<u8>,
) -> Option<LaneWar<M>> {
    let mask = cap - 1;
    let lane = |x: u64, i: usize| (x >> (16 * i)) as usize & LANE;
    // SAFETY: every position is masked into a stretch that lies in `buf` (the caller's word).
    let card =
        |buf: &[u8], i: usize, pos: usize| unsafe { *buf.get_unchecked(base[i] + (pos & mask)) };
    let hand = r.hand;
    // Every pot starts with its prize and face-up card; the pots of the lanes still in the
    // war grow alike, to `len`, and a lane out of it keeps the pot it had (`pot_lens`).
    let mut pots = opening::<M, PRIZE>(prs, ups);
    let first = 1 + usize::from(PRIZE);
    let mut pot_lens = [first; M];
    let (mut contenders, mut len, mut depth, mut cards) = (tied, first, 0u32, 0u64);
    let wrap = (0..M).fold(0u64, |v, i| v | (mask as u64) << (16 * i));
    // Under `on_empty = shuffle`, each won pile the war shuffled (a lane's at most once: its
    // war adds nothing to it), as it was: where it started in the ring and its cards, up to
    // `SAVED` of them (a longer one gives the war up instead). Left unset until a pile is
    // saved: zeroing them cost every war under two piles a `memset` of `M × SAVED` bytes,
    // 2.8 % of `players=3, two-pile, lose` (BENCHMARKS.md), and most wars save none.
    const SAVED: usize = 128;
    let mut saved = [[MaybeUninit::<u8>::uninit(); SAVED]; M];
    let (mut starts, mut saved_lanes) = ([0usize; M], 0u8);
    let mut shuffled = 0u64;
    // Puts the piles back: `shuffle_pile` shuffled each where it lay, or a pile that wrapped
    // round the ring after turning the stretch left to put it first.
    let restore =
        |buf: &mut [u8], saved: &[[MaybeUninit<u8>; SAVED]; M], starts: &[usize; M], lanes: u8| {
            for i in (0..M).filter(|&i| lanes >> i & 1 != 0) {
                let (start, len) = (starts[i] & mask, starts[i] >> 16);
                // SAFETY: a lane in `lanes` had its first `len` bytes set when its pile was saved.
                let pile =
                    unsafe { &*(&saved[i][..len] as *const [MaybeUninit<u8>] as *const [u8]) };
                let stretch = &mut buf[base[i]..base[i] + cap];
                if start + len <= cap {
                    stretch[start..start + len].copy_from_slice(pile);
                } else {
                    stretch[..len].copy_from_slice(pile);
                    stretch.rotate_right(start);
                }
            }
        };
    let winner = loop {
        let lead = contenders.trailing_zeros() as usize;
        let n = r.war_size(depth + 1, (ups >> (8 * lead)) as u8);
        // Under two piles the won pile counts where it `feeds` the stack: it is turned over
        // where the stack runs out (not under `on_empty = lose`).
        let supply = |i: usize| lane(lens, i) + if TWO && feeds { lane(wons, i) } else { 0 };
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
                                c.write(card(buf, i, start + k));
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
            let head = lane(heads, i);
            if (!TWO || lane(lens, i) >= n) && n <= 8 && head + 8 <= cap && len + 8 <= ROOM {
                // The `n` cards at once, as a word from the stack's top (the bytes past them are
                // overwritten or past the pot's length), where no pile is turned over among them
                // and the word lies in the stretch and in the pot.
                // SAFETY: `head + 8 ≤ cap`: the word lies in the stretch, which lies in `buf`.
                let word = unsafe {
                    buf.as_ptr()
                        .add(base[i] + head)
                        .cast::<[u8; 8]>()
                        .read_unaligned()
                };
                pot[len..len + 8].copy_from_slice(&word);
                heads = (heads + ((n as u64) << (16 * i))) & wrap;
                lens -= (n as u64) << (16 * i);
            } else {
                for j in 0..n {
                    turn_over!();
                    pot[len + j] = take!();
                }
            }
            let up = if HANDS {
                let slot = pick_slot::<ORDERED>(r, policies[i], hand, words[i], &mut g);
                turn_over!();
                let fill = take!();
                let up;
                (up, words[i]) = refill(words[i], slot, u64::from(fill));
                up
            } else {
                turn_over!();
                u64::from(take!())
            };
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
    let (l, w) = (&mut lens, &mut wons);
    // SAFETY: the stretch at `base[winner]` lies in `buf` (the caller's word).
    unsafe {
        pick_up::<TWO>(
            r,
            buf,
            base[winner],
            mask,
            winner,
            &refs,
            order,
            &mut g,
            heads,
            l,
            w,
        )
    };
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

/// Two seats' pots of `len` cards each (`pots[i][..len]`, in the order played) in the fixed
/// pick-up order `pickup` for `winner`, as [`Rules::order_pickup`] lays them, into the first
/// `2 * len` bytes of `laid` (the bytes after them as they were, or overwritten): winner-first
/// and loser-first pot by pot, `played` and `seat` layer by layer (the winner's card first in
/// each, or seat 0's). Returns `false`, with nothing laid, for the other orders.
#[inline(always)]
fn lay_pair(
    pickup: Pickup,
    winner: usize,
    pots: &[[u8; ROOM]; 2],
    len: usize,
    laid: &mut [u8; 2 * ROOM],
) -> bool {
    let (first, second) = match pickup {
        Pickup::WinnerFirst | Pickup::Played => (&pots[winner], &pots[winner ^ 1]),
        Pickup::LoserFirst => (&pots[winner ^ 1], &pots[winner]),
        Pickup::Seat => (&pots[0], &pots[1]),
        _ => return false,
    };
    if matches!(pickup, Pickup::WinnerFirst | Pickup::LoserFirst) {
        // Whole pots: the bytes of the first past `len` are overwritten by the second's.
        laid[..ROOM].copy_from_slice(first);
        laid[len..len + ROOM].copy_from_slice(second);
    } else {
        for (i, pair) in laid.chunks_exact_mut(2).take(len).enumerate() {
            pair.copy_from_slice(&[first[i], second[i]]);
        }
    }
    true
}

/// The winner's pick-up of a war's pots `pots` on the lanes, in [`Rules::order_pickup`]'s order
/// (the orders by rank and the shuffle through it, into `order`): laid behind everything lane
/// `winner` holds (its stretch at `base`, ring positions `mask`ed; under its stack, or with
/// `TWO` piles onto its won pile), whose count grows.
///
/// # Safety
///
/// The stretch `base .. base + mask + 1` lies in `buf`.
#[allow(clippy::too_many_arguments)] // a war's end, handed over
#[inline(always)]
unsafe fn pick_up<const TWO: bool>(
    r: &Rules,
    buf: &mut [u8],
    base: usize,
    mask: usize,
    winner: usize,
    pots: &[&[u8]],
    order: &mut Vec<u8>,
    g: &mut GameRng,
    heads: u64,
    lens: &mut u64,
    wons: &mut u64,
) {
    let lane = |x: u64| (x >> (16 * winner)) as usize & LANE;
    let at = lane(heads) + lane(*lens) + lane(*wons);
    let fixed = matches!(
        r.pickup,
        Pickup::WinnerFirst | Pickup::LoserFirst | Pickup::Played | Pickup::Seat
    );
    let laid = if fixed {
        // SAFETY: the caller's word.
        unsafe { lay_fixed(r.pickup, buf, base, mask, at, winner, pots) }
    } else {
        r.order_pickup(winner, pots, order, g);
        for (k, &c) in order.iter().enumerate() {
            // SAFETY: the position is masked into the stretch, which lies in `buf` (the
            // caller's word).
            unsafe { *buf.get_unchecked_mut(base + ((at + k) & mask)) = c };
        }
        order.len()
    };
    let grown = if TWO { wons } else { lens };
    *grown += (laid as u64) << (16 * winner);
}

/// [`pick_up`] in a fixed order (`pickup`: winner-first, loser-first, `played` or `seat`),
/// laid straight onto the ring from ring position `at` on, as [`Rules::order_pickup`] orders
/// the pots (through its vector they were about a third of a war's time with three seats under
/// `seat`). Out of line: in line it slowed the shuffled pick-up's wars by where the code lay
/// (`players=3, two-pile, lose` 6 % for 1 % more instructions). Returns the cards laid.
///
/// # Safety
///
/// The stretch `base .. base + mask + 1` lies in `buf`.
#[inline(never)]
unsafe fn lay_fixed(
    pickup: Pickup,
    buf: &mut [u8],
    base: usize,
    mask: usize,
    at: usize,
    winner: usize,
    pots: &[&[u8]],
) -> usize {
    let mut laid = 0;
    let mut put = |c: u8| {
        // SAFETY: the position is masked into the stretch, which lies in `buf` (the caller's
        // word).
        unsafe { *buf.get_unchecked_mut(base + ((at + laid) & mask)) = c };
        laid += 1;
    };
    let others = || pots.iter().enumerate().filter(|&(p, _)| p != winner);
    match pickup {
        Pickup::WinnerFirst => {
            pots[winner].iter().for_each(|&c| put(c));
            others().for_each(|(_, pot)| pot.iter().for_each(|&c| put(c)));
        }
        Pickup::LoserFirst => {
            others().for_each(|(_, pot)| pot.iter().for_each(|&c| put(c)));
            pots[winner].iter().for_each(|&c| put(c));
        }
        _ => {
            // Layer by layer: the winner's card first in each (`played`), or seat by seat.
            debug_assert!(matches!(pickup, Pickup::Played | Pickup::Seat));
            let first = (pickup == Pickup::Played).then_some(winner);
            let layers = pots.iter().map(|p| p.len()).max().unwrap_or(0);
            for i in 0..layers {
                if let Some(w) = first
                    && let Some(&c) = pots[w].get(i)
                {
                    put(c);
                }
                for (p, pot) in pots.iter().enumerate() {
                    if Some(p) != first
                        && let Some(&c) = pot.get(i)
                    {
                        put(c);
                    }
                }
            }
        }
    }
    laid
}

/// [`lane_war`] for the commonest war of a hand game: two seats with hands under an ordered
/// ranking (the higher card wins), with the seats' policy `POLICY` compiled in (`MIXED`: read
/// from `policies`). The same rounds, draws and pick-up as `lane_war`'s (a deterministic
/// policy's slot by [`choose_ordered`], which `choose_by` gives under an ordered ranking),
/// without what a war that both stacks play in full leaves out: no won pile turned over or
/// saved, no lane out of the war before it ends (two seats tie only on equal cards), no ranking
/// looked up. The arguments are `lane_war`'s (both seats tied, on the cards `ups`), and so is
/// the result. The buffer is written only once the war is won. A war with a round that a stack
/// cannot play in full (holding no more cards than the round puts face down) goes on with one
/// pile in [`short_pair_war`] from that round where the run lets hands play short (`held`, the
/// hands' sizes, which that war may change: `Shape::short_hands`), and is otherwise given up
/// (`None`) with one pile or where the won pile does not `feed` the stack (`on_empty = lose`),
/// as `lane_war` gives it up, or under `TWO` piles (a won pile to turn over, or a short war)
/// goes to `lane_war` from its start. A war whose pots outgrow their room is given up.
///
/// # Safety
///
/// Both stretches `base[i] .. base[i] + cap` lie in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a run's registers, handed over
#[inline(never)]
pub(super) unsafe fn pair_war<
    const PICK: u8,
    const PRIZE: bool,
    const TWO: bool,
    const POLICY: u8,
    const HAND: usize,
>(
    r: &Rules,
    buf: &mut [u8],
    base: [usize; 2],
    cap: usize,
    lanes: (u64, u64, u64, [u64; 2]),
    rng: &GameRng,
    policies: [Policy; 2],
    shuffles: bool,
    feeds: bool,
    prs: u64,
    ups: u64,
    held: Option<&mut u64>,
    order: &mut Vec<u8>,
) -> Option<LaneWar<2>> {
    debug_assert!(cap.is_power_of_two());
    // (Compiled in where `HAND` is not 0.)
    let hand = if HAND == 0 { r.hand } else { HAND };
    let mask = cap - 1;
    const BOTH: u64 = 0x0001_0001;
    let wrap = mask as u64 * BOTH;
    let lane = |x: u64, i: usize| (x >> (16 * i)) as usize & LANE;
    let (mut heads, mut lens, wons, mut words) = lanes;
    let up = ups as u8;
    let mut g = rng.clone();
    // (Both face-up cards are `up`: the seats tied under an ordered ranking.)
    let mut pots = opening::<2, PRIZE>(prs, u64::from(up) * 0x0101);
    let first = 1 + usize::from(PRIZE);
    let (mut len, mut depth, mut up, mut faces) = (first, 0u32, up, [0u8; 2]);
    let winner = loop {
        let n = r.war_size(depth + 1, up);
        if lane(lens, 0) <= n || lane(lens, 1) <= n || len + n + 1 > ROOM {
            // With one pile the stack is the supply: where hands may play short, the war goes
            // on by the short war rule (`short_pair_war`), else `lane_war` would give it up too.
            if !TWO {
                return match held {
                    // SAFETY: the caller's word; nothing is written yet.
                    Some(held) => unsafe {
                        short_pair_war(
                            r,
                            buf,
                            base,
                            cap,
                            (heads, lens, wons, words),
                            held,
                            g,
                            policies,
                            &mut pots,
                            [len; 2],
                            depth,
                            up,
                            first,
                            order,
                        )
                    },
                    None => None,
                };
            }
            // So does `lane_war` where the won pile does not feed the stack (`on_empty = lose`).
            if !feeds {
                return None;
            }
            // SAFETY: the caller's word; nothing is written yet.
            return unsafe {
                lane_war::<2, true, PRIZE, TWO, true>(
                    r,
                    buf,
                    base,
                    cap,
                    lanes,
                    rng.clone(),
                    policies,
                    shuffles,
                    feeds,
                    0b11,
                    prs,
                    ups,
                    order,
                )
            };
        }
        depth += 1;
        for (i, pot) in pots.iter_mut().enumerate() {
            let (from, head) = (base[i], lane(heads, i));
            if n <= 8 && head + 8 <= cap && len + 8 <= ROOM {
                // The `n` cards at once, as a word from the stack's top (the bytes past them are
                // overwritten or past the pot's length).
                // SAFETY: `head + 8 ≤ cap`: the word lies in the stretch, which lies in `buf`.
                let word = unsafe {
                    buf.as_ptr()
                        .add(from + head)
                        .cast::<[u8; 8]>()
                        .read_unaligned()
                };
                pot[len..len + 8].copy_from_slice(&word);
            } else {
                for (j, c) in pot[len..len + n].iter_mut().enumerate() {
                    // SAFETY: the position is masked into the stretch, which lies in `buf`.
                    *c = unsafe { *buf.get_unchecked(from + ((head + j) & mask)) };
                }
            }
            // The face-up card from the hand, its slot refilled from the stack after them.
            let slot = match POLICY {
                policy::RANDOM => g.below(hand as u32) as usize,
                policy::MIXED => r.choose_by(policies[i], &words[i].to_le_bytes()[..hand], &mut g),
                _ => choose_ordered(policy_of(POLICY), words[i], hand),
            };
            // SAFETY: as above.
            let fill = unsafe { *buf.get_unchecked(from + ((head + n) & mask)) };
            let card;
            (card, words[i]) = refill(words[i], slot, u64::from(fill));
            (faces[i], pot[len + n]) = (card as u8, card as u8);
        }
        heads = (heads + (n as u64 + 1) * BOTH) & wrap;
        lens -= (n as u64 + 1) * BOTH;
        len += n + 1;
        if faces[0] != faces[1] {
            break usize::from(faces[1] > faces[0]);
        }
        up = faces[0];
    };
    // The pick-up laid here on the stack where its order is fixed by the two pots of equal
    // length (`lay_pair`) or shuffled (seat 0's pot then seat 1's, as `order_pickup` joins them
    // before the same shuffle); the orders by rank are `order_pickup`'s.
    let mut laid = [0u8; 2 * ROOM];
    let total = 2 * len;
    let on_stack = PICK == pick::SHUFFLED || lay_pair(r.pickup, winner, &pots, len, &mut laid);
    let cards: &[u8] = if PICK == pick::SHUFFLED {
        laid[..ROOM].copy_from_slice(&pots[0]);
        laid[len..len + ROOM].copy_from_slice(&pots[1]);
        g.shuffle(&mut laid[..total]);
        &laid[..total]
    } else if on_stack {
        &laid[..total]
    } else {
        r.order_pickup(winner, &[&pots[0][..len], &pots[1][..len]], order, &mut g);
        order
    };
    // Behind everything the winner holds: under its stack, or under two piles onto its won pile.
    let held = lane(lens, winner) + if TWO { lane(wons, winner) } else { 0 };
    let at = (lane(heads, winner) + held) & mask;
    if on_stack && at + 2 * ROOM <= cap && held + 2 * ROOM <= cap {
        // The whole of `laid` at once: the bytes past the winnings land where no card lies.
        buf[base[winner] + at..][..2 * ROOM].copy_from_slice(&laid);
    } else {
        for (k, &c) in cards.iter().enumerate() {
            // SAFETY: the position is masked into the stretch, which lies in `buf`.
            unsafe { *buf.get_unchecked_mut(base[winner] + ((at + k) & mask)) = c };
        }
    }
    let grown = (total as u64) << (16 * winner);
    let (lens, wons) = if TWO {
        (lens, wons + grown)
    } else {
        (lens + grown, wons)
    };
    Some(LaneWar {
        winner,
        heads,
        lens,
        wons,
        words,
        rng: g,
        depth,
        cards: 2 * (len - first) as u64,
        shuffled: 0,
    })
}

/// The war after a tie of the two seats of a short run ([`short_run`](super::short::short_run)),
/// one pile, on the face-up cards `up` (with `PRIZE`, after the prizes `prs`, lane `i`'s in
/// byte `i`): [`short_pair_war`] from its first round. The arguments and the result are its.
///
/// # Safety
///
/// Both stretches `base[i] .. base[i] + cap` lie in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a run's position, handed over
pub(super) unsafe fn short_war<const PRIZE: bool>(
    r: &Rules,
    buf: &mut [u8],
    base: [usize; 2],
    cap: usize,
    lanes: (u64, u64, u64, [u64; 2]),
    held: &mut u64,
    g: GameRng,
    policies: [Policy; 2],
    prs: u64,
    up: u8,
    order: &mut Vec<u8>,
) -> Option<LaneWar<2>> {
    let first = 1 + usize::from(PRIZE);
    let mut pots = opening::<2, PRIZE>(prs, u64::from(up) * 0x0101);
    // SAFETY: the caller's word.
    unsafe {
        short_pair_war(
            r, buf, base, cap, lanes, held, g, policies, &mut pots, [first; 2], 0, up, first, order,
        )
    }
}

/// The rest of [`pair_war`]'s war (one pile) from a round that a stack cannot play in full, as
/// the general [`fight`](crate::general::fight) plays it with hands: each round, each seat in
/// turn stakes what [`Rules::stake`] allows it (`n` cards face down, or under a short war rule
/// the stack's cards that are left, or none), then plays a card from its hand by its policy,
/// the slot refilled from its stack while the stack holds a card, else its hand played down
/// (its last card moved into the slot). The winner picks up the two pots, uneven now, by
/// [`Rules::order_pickup`] under its stack, and then every hand short of the hand's size grows
/// back from its stack, seat by seat (`Holdings::top_up`; with one pile no draw is random). The
/// war comes in as `pair_war` leaves it: the lanes, the hands and their sizes `held`, the
/// generator, the two pots `pots` (of lengths `pot_lens`, each from its prize or face-up card
/// on), the wars played `depth`, and the tied face-up card `up`. The hands' sizes after the war
/// go into `held`; a hand short of cards stays short only for a seat whose stack is out. A
/// round where a seat drops out of the war or forfeits (an empty hand, or `short_war = lose`),
/// or whose pots outgrow their room, gives the war up (`None`, nothing written), for the
/// general rounds to play it from its start.
///
/// # Safety
///
/// Both stretches `base[i] .. base[i] + cap` lie in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // a war in progress, handed over
#[cold]
#[inline(never)]
unsafe fn short_pair_war(
    r: &Rules,
    buf: &mut [u8],
    base: [usize; 2],
    cap: usize,
    (mut heads, mut lens, wons, mut words): (u64, u64, u64, [u64; 2]),
    held: &mut u64,
    mut g: GameRng,
    policies: [Policy; 2],
    pots: &mut [[u8; ROOM]; 2],
    mut pot_lens: [usize; 2],
    mut depth: u32,
    mut up: u8,
    first: usize,
    order: &mut Vec<u8>,
) -> Option<LaneWar<2>> {
    let mask = cap - 1;
    let wrap = mask as u64 * 0x0001_0001;
    let lane = |x: u64, i: usize| (x >> (16 * i)) as usize & LANE;
    let at = |i: usize, pos: usize| base[i] + (pos & mask);
    // SAFETY: a position masked into a stretch, which lies in `buf` (the caller's word).
    let card = |buf: &[u8], i: usize, pos: usize| unsafe { *buf.get_unchecked(at(i, pos)) };
    let mut sizes = *held;
    let winner = loop {
        let n = r.war_size(depth + 1, up);
        let mut plan = [0usize; 2];
        for (i, d) in plan.iter_mut().enumerate() {
            // (One pile: the supply is the stack.)
            match r.stake(lane(lens, i), lane(sizes, i), n) {
                Stake::Play(k) if pot_lens[i] + k < ROOM => *d = k,
                _ => return None,
            }
        }
        depth += 1;
        let mut faces = [0u8; 2];
        for (i, pot) in pots.iter_mut().enumerate() {
            let (one, head, d) = (1u64 << (16 * i), lane(heads, i), plan[i]);
            for (k, c) in pot[pot_lens[i]..pot_lens[i] + d].iter_mut().enumerate() {
                *c = card(buf, i, head + k);
            }
            heads = (heads + d as u64 * one) & wrap;
            lens -= d as u64 * one;
            let size = lane(sizes, i);
            let slot = pick_slot::<true>(r, policies[i], size, words[i], &mut g);
            let face;
            if lane(lens, i) > 0 {
                let fill = card(buf, i, lane(heads, i));
                (face, words[i]) = refill(words[i], slot, u64::from(fill));
                heads = (heads + one) & wrap;
                lens -= one;
            } else {
                let last = (words[i] >> (8 * (size - 1))) & 0xFF;
                (face, words[i]) = refill(words[i], slot, last);
                sizes -= one;
            }
            faces[i] = face as u8;
            pot[pot_lens[i] + d] = face as u8;
            pot_lens[i] += d + 1;
        }
        if faces[0] != faces[1] {
            // (An ordered ranking: the higher card wins.)
            break usize::from(faces[1] > faces[0]);
        }
        up = faces[0];
    };
    let played = [&pots[0][..pot_lens[0]], &pots[1][..pot_lens[1]]];
    let mut wons = wons;
    let (l, w) = (&mut lens, &mut wons);
    // SAFETY: the stretch at `base[winner]` lies in `buf` (the caller's word).
    unsafe {
        pick_up::<false>(
            r,
            buf,
            base[winner],
            mask,
            winner,
            &played,
            order,
            &mut g,
            heads,
            l,
            w,
        )
    };
    // Hands short of cards grow back, seat by seat: only the winner's can, as a hand is short
    // only while its stack is out. (One pile: no pile is turned over, no draw made.)
    for (i, word) in words.iter_mut().enumerate() {
        let lanes = (&mut heads, &mut lens, &mut wons);
        // SAFETY: the caller's word.
        unsafe {
            top_up_lane(
                buf,
                base[i],
                cap,
                i,
                r.hand as u64,
                lanes,
                &mut sizes,
                word,
                false,
                &mut g,
            )
        };
    }
    *held = sizes;
    Some(LaneWar {
        winner,
        heads,
        lens,
        wons,
        words,
        rng: g,
        depth,
        cards: (pot_lens[0] + pot_lens[1] - 2 * first) as u64,
        shuffled: 0,
    })
}
