//! Battles while a hand may be short (a seat's supply out, or with a prize down to one card),
//! out of the runs' loops: [`short_run`].

use super::lane_war::short_war;
use super::lanes::{
    best_lane, lane_out, lane_short, leader_lane, order, order_bare, order_prize, pick_slot,
    put_under, refill, refill_card, top_up_lane, tops,
};
use super::{LANE, NONE, Shape, Stop, Wars, by_seat, seat_mask};
use crate::cycle::TRAIL;
use crate::rng::GameRng;
use crate::rules::{Policy, Rules, choose_ordered, policy, policy_of};
use crate::state::MAX_PLAYERS;

/// A run's position and counts while a hand may be short ([`pair_hands`](super::pair::pair_hands)'
/// for two seats, [`plain_run`](super::plain::plain_run)'s for 3–4), lent to [`short_run`] at the
/// run's start or from its rarely taken branch (the run keeps its own in registers).
#[derive(Clone)]
pub(super) struct Short<const M: usize> {
    pub(super) heads: u64,
    pub(super) lens: u64,
    pub(super) wons: u64,
    pub(super) held: u64,
    /// Prizes not given (by a seat whose supply was out).
    pub(super) bare: u64,
    pub(super) words: [u64; M],
    pub(super) rng: GameRng,
    pub(super) shuffled: u64,
    pub(super) battles: u64,
    pub(super) leader: u8,
    pub(super) changes: u64,
    pub(super) lam: u64,
    /// The wars played on the lanes (`short_war`'s, for two seats).
    pub(super) wars: Wars,
}

impl<const M: usize> Short<M> {
    /// A copy read a field at a time: the run has just stored the fields one by one, and a
    /// copy of the whole, as the compiler makes it (16 bytes at a time), read across two of
    /// those stores and waited for both to reach the cache, at the start of every short
    /// run (and again at its end, from its own copy): about a tenth of the short runs' time
    /// under `hand=3 hand_policy=lowest,lowest`.
    #[inline(always)]
    fn load_by_fields(&self) -> Short<M> {
        use std::ptr::read_volatile as read;
        // SAFETY: references to fields of `self`. (Volatile: the compiler may not merge the
        // reads into wider ones.)
        unsafe {
            Short {
                heads: read(&self.heads),
                lens: read(&self.lens),
                wons: read(&self.wons),
                held: read(&self.held),
                bare: read(&self.bare),
                words: std::array::from_fn(|i| read(&self.words[i])),
                rng: self.rng.load_by_fields(),
                shuffled: read(&self.shuffled),
                battles: read(&self.battles),
                leader: read(&self.leader),
                changes: read(&self.changes),
                lam: read(&self.lam),
                wars: Wars {
                    rounds: read(&self.wars.rounds),
                    deepest: read(&self.wars.deepest),
                    cards: read(&self.wars.cards),
                },
            }
        }
    }

    /// `*to = self.clone()`, a field at a time, for the reason of [`Short::load_by_fields`].
    #[inline(always)]
    fn store_by_fields(&self, to: &mut Short<M>) {
        use std::ptr::write_volatile as write;
        // SAFETY: references to fields of `to`. (Volatile: each field read on its own.)
        unsafe {
            write(&mut to.heads, self.heads);
            write(&mut to.lens, self.lens);
            write(&mut to.wons, self.wons);
            write(&mut to.held, self.held);
            write(&mut to.bare, self.bare);
            for (to, &w) in to.words.iter_mut().zip(&self.words) {
                write(to, w);
            }
            self.rng.store_by_fields(&mut to.rng);
            write(&mut to.shuffled, self.shuffled);
            write(&mut to.battles, self.battles);
            write(&mut to.leader, self.leader);
            write(&mut to.changes, self.changes);
            write(&mut to.lam, self.lam);
            write(&mut to.wars.rounds, self.wars.rounds);
            write(&mut to.wars.deepest, self.wars.deepest);
            write(&mut to.wars.cards, self.wars.cards);
        }
    }
}

/// Battles of a run of `M` seats with hands while a seat's supply (its stack, with its won
/// pile under two piles) is out, or with a `PRIZE` down to one card ([`lane_short`]), as the
/// general battle plays them. `POLICY` is every seat's where they share a deterministic one
/// under an `ORDERED` ranking (the pick compares the hand's values in registers), else
/// `MIXED` (the `policies` read per battle). With a prize, each seat with a card in its
/// supply gives its top card as its prize first (under two piles, turning its won pile over
/// where its stack is out; a seat whose supply is out gives none). Each seat picks from the
/// cards in its hand by its policy; a seat with a supply refills the slot from it (under two
/// piles turning its won pile over where its stack is out), a seat without one plays its hand
/// down, its last card moved into the slot (`Holdings::draw_up`). The winner picks up (with a prize
/// from every seat as the runs do, else by [`Rules::order_pickup`], as the pots are uneven),
/// and its hand, if short, grows back from its supply (`Holdings::top_up`; the others' cannot,
/// for a hand is short only while its supply is out). With `tail`, the run has just played the
/// battle that took a supply out, and that battle's steps after it (the leader, Brent's
/// count, the cap) come first. Returns `None` once every supply is back (every hand full
/// again), or why the run stops: a tie that the run does not play (two seats with one pile play
/// theirs here, [`short_war`], where the runs play wars and no `wars_to_win` is counted; other
/// ties are `hand_war`'s, or where a prize is missing the general contest's), a seat out of
/// cards, or a look.
///
/// # Safety
///
/// Every stretch `base[i] .. base[i] + cap` lies in `buf`, and `cap` is a power of two.
#[allow(clippy::too_many_arguments)] // the run's context, handed over
#[cold]
#[inline(never)]
pub(super) unsafe fn short_run<
    const M: usize,
    const PRIZE: bool,
    const TWO: bool,
    const PICK: u8,
    const ORDERED: bool,
    const POLICY: u8,
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
    out: &mut Short<M>,
    mut tail: bool,
) -> Option<Stop> {
    // The position as a local, written back once: through the caller's reference every
    // count and hand went to memory and back at every battle.
    let mut q = out.load_by_fields();
    let p = &mut q;
    debug_assert!(
        shape.short_hands,
        "short hands only where the shape lets them"
    );
    let (hand, mask) = (r.hand as u64, cap - 1);
    let ones = (0..M).fold(0u64, |v, i| v | 1 << (16 * i));
    let wrap = ones * mask as u64;
    let (grabs, threshold) = shape.grab(seat);
    let lane = |x: u64, i: usize| (x >> (16 * i)) & LANE as u64;
    // A policy compiled in (not `MIXED`) is a deterministic one under an ordered ranking.
    debug_assert!(POLICY == policy::MIXED || ORDERED && POLICY != policy::RANDOM);
    let stop = 'run: loop {
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
                    break 'run Some(Stop::Look);
                }
            }
            if p.battles >= shape.cap {
                break 'run Some(Stop::Look);
            }
            if !lane_short::<M, PRIZE>(p.lens + p.wons) {
                debug_assert_eq!(p.held, hand * ones, "a short hand with a supply");
                break 'run None;
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
            // (A deterministic policy under an ordered ranking compares the hand's values in
            // registers.)
            let slot = if POLICY != policy::MIXED {
                choose_ordered(policy_of(POLICY), p.words[i], n)
            } else {
                pick_slot::<ORDERED>(r, policies[i], n, p.words[i], &mut p.rng)
            };
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
        let w;
        if best & (best - 1) != 0 {
            // Two seats with one pile play their war here, short hands and stacks and all
            // (`short_war`), where the runs play wars; else, or where it gives the war up, the
            // run stops there.
            let war = if M == 2
                && !TWO
                && ORDERED
                && shape.lane_wars
                && shape.wars_to_win.is_none()
                && (!PRIZE || prized == 0b11)
            {
                let lanes = (p.heads, p.lens, p.wons, [p.words[0], p.words[1]]);
                // SAFETY: both stretches lie in `buf`, and `cap` is a power of two (the
                // caller's word).
                unsafe {
                    short_war::<PRIZE>(
                        r,
                        buf,
                        [base[0], base[1]],
                        cap,
                        lanes,
                        &mut p.held,
                        p.rng.clone(),
                        [policies[0], policies[1]],
                        prs,
                        ups as u8,
                        order_buf,
                    )
                }
            } else {
                None
            };
            let Some(war) = war else {
                break 'run Some(if PRIZE && prized.count_ones() < M as u32 {
                    Stop::Bare {
                        given: seat_mask::<M>(seat, prized),
                        prize: by_seat::<M>(seat, prs),
                        up: by_seat::<M>(seat, ups),
                    }
                } else {
                    Stop::tie::<M>(seat, best, prs, ups)
                });
            };
            (p.heads, p.lens, p.rng) = (war.heads, war.lens, war.rng);
            p.words[..2].copy_from_slice(&war.words);
            p.wars = p.wars.and(war.depth, war.cards);
            w = war.winner;
        } else {
            // The best card's lane: `best` has one bit set, none above the `M` lanes.
            w = best.trailing_zeros() as usize;
            let (cards, k) = if PRIZE && u32::from(prized) == (1 << M) - 1 {
                // Every seat gave a prize: the runs' own pick-up of a battle with a prize.
                (
                    order_prize::<M, PICK>(&mut p.rng, prs, ups, w, shape.layered),
                    2 * M,
                )
            } else if PRIZE {
                // Some seat gave none: the general battle's pick-up of its opening.
                order_bare::<M, PICK>(r, &mut p.rng, seat, prs, ups, prized, w, order_buf)
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
            let lanes = (&mut p.heads, &mut p.lens, &mut p.wons);
            let (held, word) = (&mut p.held, &mut p.words[w]);
            // SAFETY: as above.
            p.shuffled += unsafe {
                top_up_lane(
                    buf,
                    base[w],
                    cap,
                    w,
                    hand,
                    lanes,
                    held,
                    word,
                    shape.shuffles,
                    &mut p.rng,
                )
            };
        }
        if lane_out::<M>(p.lens + p.wons + p.held) {
            break 'run Some(Stop::Check(seat[w]));
        }
    };
    q.store_by_fields(out);
    stop
}

/// The top card of each of the `M` stacks at `base` with heads `heads` (lane `i`'s in byte
/// `i`), 0 for a seat with no supply (stack and won pile, `supply`): what lies at its head is
/// no card of the position, and equal positions must give equal tops. (A stack that has run
/// out under two piles has its won pile's top at its head.)
#[inline(always)]
pub(super) fn short_tops<const M: usize>(
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
