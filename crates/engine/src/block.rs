//! The block loop: the classic shape's battles sixteen at a time, with AVX-512 (x86-64, chosen
//! at run time; [`crate::fast`]'s loop plays the same games everywhere else).
//!
//! Between two wars the game needs no decisions: battle `i` compares the `i`-th cards of the two
//! stacks, and the two cards go under the winner's stack, behind every card it holds now. So
//! the next `min(l0, l1)` battles, up to the first tie, depend only on cards already in the
//! stacks, and a block plays them together:
//! - one compare of sixteen cards against sixteen finds the first tie and every winner;
//! - the pairs are laid side by side (each turned round where the pick-up order says so) and
//!   each seat's winnings are packed into place with one compress and one store;
//! - the lead changes come from the running margin, computed for all sixteen battles at once
//!   from prefix population counts of the winner mask.
//!
//! The stacks are linear stretches, not rings: a store of 32 bytes behind a tail never wraps.
//! They slide forward as they are played and move back to the front when a head passes
//! [`SLIDE`]. A tie starts a war with the same steps and draws as [`fast::war`].
//! Random bits are taken from the same buffer in the same order as one `bit()` per battle, so
//! every game, record and draw is identical to the general loop's (a property test compares
//! the three loops game for game).

use crate::engine::{State, Table, Tally};
use crate::fast::{self, Duo, SLIDE, War, mode};
use crate::record::{EndReason, GameRecord};
use crate::rng::GameRng;
use crate::rules::{Pickup, Rules};

/// Whether this CPU has every instruction the block loop uses.
pub(crate) fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vbmi2")
            && std::is_x86_feature_detected!("avx512bitalg")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("bmi1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) fn run(
    r: &Rules,
    st: &mut State,
    t: &mut Table,
    tally: &mut Tally,
    rng: &mut GameRng,
) -> GameRecord {
    assert!(
        t.block,
        "the block loop runs only where `available()` said yes"
    );
    // SAFETY: `t.block` is set only where `available()` found every feature these enable.
    unsafe {
        match r.pickup {
            Pickup::Shuffled => x86::run_with::<0>(r, st, t, tally, rng),
            Pickup::Seat => x86::run_with::<1>(r, st, t, tally, rng),
            Pickup::WinnerFirst | Pickup::Played => x86::run_with::<2>(r, st, t, tally, rng),
            Pickup::LoserFirst => x86::run_with::<3>(r, st, t, tally, rng),
            // In a plain battle the winner's card is the higher one.
            Pickup::RankDesc => x86::run_with::<2>(r, st, t, tally, rng),
            Pickup::RankAsc => x86::run_with::<3>(r, st, t, tally, rng),
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;
    use std::arch::x86_64::*;

    /// Lane `i`: the battles `0..=i` of a block, as a bit mask.
    static UPTO: [u16; 16] = {
        let mut m = [0u16; 16];
        let mut i = 0;
        while i < 16 {
            m[i] = ((2u32 << i) - 1) as u16;
            i += 1;
        }
        m
    };

    /// Lane `i`: the change of the margin `2 * l0 - total` if seat 0 lost battles `0..=i`.
    static LOSSES: [i16; 16] = {
        let mut m = [0i16; 16];
        let mut i = 0;
        while i < 16 {
            m[i] = 2 * (i as i16 + 1);
            i += 1;
        }
        m
    };

    /// The block loop for one pick-up order of a plain battle: 0 shuffled (a random bit per
    /// battle), 1 by seat (seat 0's card first), 2 the winner's card first, 3 the loser's.
    ///
    /// # Safety
    /// The CPU must have the features enabled here ([`super::available`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx512bitalg")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1")]
    pub(super) unsafe fn run_with<const PICKUP: u8>(
        r: &Rules,
        st: &mut State,
        t: &mut Table,
        tally: &mut Tally,
        rng: &mut GameRng,
    ) -> GameRecord {
        let mut d = Duo::<{ mode::LINEAR }>::new(&mut t.duo);
        let fast::Start {
            n,
            cap,
            mut l0,
            total,
            first,
            mut lead,
        } = fast::start(r, st, &mut d, tally);
        let (s0, s1) = (d.seat(0), d.seat(1));
        let (mut h0, mut h1) = (0usize, 0usize);
        // Between blocks every card is in one of the stacks: seat 1 holds `total - l0`.
        assert!(total <= fast::NARROW_CAP);
        let mut battles = first as u32;
        let mut changes = tally.lead_changes;
        let mut bits = rng.take_bits();
        // SAFETY: both tables are sixteen 16-bit lanes.
        let (upto, losses) = unsafe {
            (
                _mm256_loadu_si256(UPTO.as_ptr().cast()),
                _mm256_loadu_si256(LOSSES.as_ptr().cast()),
            )
        };
        let zero = _mm256_setzero_si256();
        let end = loop {
            if (h0 | h1) >= SLIDE {
                // SAFETY: each stack's cards lie at `h..h + l` of its stretch; `copy` allows
                // the overlap.
                unsafe {
                    std::ptr::copy(s0.add(h0), s0, l0);
                    std::ptr::copy(s1.add(h1), s1, total - l0);
                }
                (h0, h1) = (0, 0);
            }
            let l1 = total - l0;
            // SAFETY: `h < SLIDE`, so the sixteen bytes lie inside the stretch; those past
            // the stack's last card are never used (`k ≤ l`).
            let (va, vb) = unsafe {
                (
                    _mm_loadu_si128(s0.add(h0).cast()),
                    _mm_loadu_si128(s1.add(h1).cast()),
                )
            };
            let ties = u32::from(_mm_cmpeq_epi8_mask(va, vb));
            let higher1 = u32::from(_mm_cmpgt_epu8_mask(vb, va));
            let room = l0.min(l1).min((cap - battles) as usize).min(16) as u32;
            let k = (ties | 1 << 16).trailing_zeros().min(room);
            if k > 0 {
                let km = (1u32 << k) - 1;
                let w1 = higher1 & km;
                let w0 = !higher1 & km;
                // Which pairs go down the other way round: the second card first.
                let swap = match PICKUP {
                    0 => {
                        let avail = 63 - (bits | 1).leading_zeros();
                        if avail >= k {
                            let s = bits as u32 & km;
                            bits >>= k;
                            s
                        } else {
                            // What is left, then a fresh word, as `bit()` would refill.
                            let x = rng.next_u64();
                            let need = k - avail;
                            let s = (bits as u32 & ((1 << avail) - 1))
                                | ((x as u32 & ((1 << need) - 1)) << avail);
                            bits = (x >> need) | (1 << (64 - need));
                            s
                        }
                    }
                    1 => 0,
                    2 => w1,
                    _ => w0,
                };
                let a16 = _mm256_cvtepu8_epi16(va);
                let b16 = _mm256_cvtepu8_epi16(vb);
                let ab = _mm256_or_si256(a16, _mm256_slli_epi16::<8>(b16));
                let ba = _mm256_or_si256(b16, _mm256_slli_epi16::<8>(a16));
                let pairs = _mm256_mask_blend_epi16(swap as u16, ab, ba);
                // SAFETY: a tail is below `SLIDE + 16 + NARROW_CAP`, and 32 bytes past it
                // still lie inside the stretch; bytes past the new tail are not cards.
                unsafe {
                    _mm256_storeu_si256(
                        s0.add(h0 + l0).cast(),
                        _mm256_maskz_compress_epi16(w0 as u16, pairs),
                    );
                    _mm256_storeu_si256(
                        s1.add(h1 + l1).cast(),
                        _mm256_maskz_compress_epi16(w1 as u16, pairs),
                    );
                }
                // The margin after each battle of the block, and where its sign flips from the
                // last non-zero one (a margin of 0 leads nobody).
                let before = 2 * l0 as i64 - total as i64;
                let won0 = _mm256_popcnt_epi16(_mm256_and_si256(
                    _mm256_set1_epi16(w0 as u16 as i16),
                    upto,
                ));
                let margin = _mm256_sub_epi16(
                    _mm256_add_epi16(
                        _mm256_set1_epi16(before as i16),
                        _mm256_slli_epi16::<2>(won0),
                    ),
                    losses,
                );
                let pos = u32::from(_mm256_cmpgt_epi16_mask(margin, zero)) & km;
                let neg = u32::from(_mm256_cmplt_epi16_mask(margin, zero)) & km;
                changes += u64::from((flips(pos, neg, before, lead) & km << 2).count_ones());
                let won = w0.count_ones() as usize;
                let k = k as usize;
                (h0, h1) = (h0 + k, h1 + k);
                l0 = l0 + 2 * won - k;
                battles += k as u32;
                let after = 2 * l0 as i64 - total as i64;
                // A margin of 0 now: the last non-zero one was a step of 2 the other way.
                lead = if after != 0 {
                    after
                } else if w1 >> (k - 1) & 1 != 0 {
                    2
                } else {
                    -2
                };
                // Neither end can come before a block's last battle: `k ≤ l0, l1` and the cap.
                if l0 == 0 || l0 == total {
                    break (EndReason::AllCards, Some(u8::from(l0 == 0)));
                }
                if battles >= cap {
                    break fast::at_cap(r, battles, l0, total);
                }
                if k as u32 == room {
                    continue;
                }
            } else if room == 0 {
                unreachable!("both stacks hold cards and the cap is not reached");
            }
            // A tie at the heads: a war.
            battles += 1;
            rng.put_bits(bits);
            // SAFETY: the stacks are as `war` needs them (heads below `SLIDE + 16`: the block
            // advanced them at most 16 past the check at the top).
            let out = unsafe { war(r, n, s0, s1, h0, h1, l0, total - l0, t, tally, rng) };
            bits = rng.take_bits();
            let winner = match out {
                War::Won { seat, h, l0: left } => {
                    [h0, h1] = h;
                    l0 = left;
                    seat
                }
                War::Draw { own0, own1 } => {
                    changes += fast::note(&mut lead, own0, own0 + own1) >> 32;
                    break (EndReason::DrawInWar, None);
                }
            };
            changes += fast::note(&mut lead, l0, total) >> 32;
            if l0 == 0 || l0 == total {
                break (EndReason::AllCards, Some(winner as u8));
            }
            if battles >= cap {
                break fast::at_cap(r, battles, l0, total);
            }
        };
        rng.put_bits(bits);
        fast::record(tally, first, u64::from(battles), changes, end)
    }

    /// A war on the linear stacks, from the tied cards at the heads (`l0`, `l1` count them):
    /// the rounds of [`fast::rounds`], then each seat's pot is simply the run of its stack from
    /// the tied card to its last card staked, so nothing is copied until the winner takes the
    /// cards: both runs go straight behind the winner's tail, and a shuffled pick-up shuffles
    /// them there.
    ///
    /// # Safety
    /// `s0`, `s1`, `h0`, `h1`, `l0`, `l1` describe the stacks of the block loop's linear
    /// stretches, with the heads below `SLIDE + 16` and a tie at them.
    #[allow(clippy::too_many_arguments)] // the loop's state, passed in registers
    #[inline(never)]
    unsafe fn war(
        r: &Rules,
        n: usize,
        s0: *mut u8,
        s1: *mut u8,
        h0: usize,
        h1: usize,
        l0: usize,
        l1: usize,
        t: &mut Table,
        tally: &mut Tally,
        rng: &mut GameRng,
    ) -> War {
        // Scalars, not pairs, cross the call: a pair stored as two words and loaded as one
        // vector stalls store-to-load forwarding.
        let (s, start) = ([s0, s1], [h0, h1]);
        // SAFETY: `rounds` reads only cards it has staked, inside each stack.
        let (won, h, mut l) = fast::rounds(n, start, [l0, l1], tally, |seat, pos| unsafe {
            *s[seat].add(pos)
        });
        let k = [h[0] - start[0], h[1] - start[1]];
        let Some(w) = won else {
            return War::Draw {
                own0: k[0],
                own1: k[1],
            };
        };
        // SAFETY (for the reads and writes below): each pot is a run of its seat's stretch
        // that the stack has left behind, starting below `SLIDE + 16`; the winner's tail,
        // `h[w] + l[w]`, is below `SLIDE + 16 + NARROW_CAP`, and the pots (at most `NARROW_CAP`
        // cards together) fit behind it inside the stretch, which no pot overlaps (the pots
        // lie before the heads, the tail after them).
        let tail = unsafe { s[w].add(h[w] + l[w]) };
        let taken = k[0] + k[1];
        let (pots, dst) = unsafe {
            (
                [
                    std::slice::from_raw_parts(s[0].add(start[0]), k[0]),
                    std::slice::from_raw_parts(s[1].add(start[1]), k[1]),
                ],
                std::slice::from_raw_parts_mut(tail, taken),
            )
        };
        if r.pickup == Pickup::Shuffled {
            dst[..k[0]].copy_from_slice(pots[0]);
            dst[k[0]..].copy_from_slice(pots[1]);
            rng.shuffle(dst);
        } else {
            dst.copy_from_slice(fast::order2(r.pickup, w, pots, &mut t.scratch, rng));
        }
        l[w] += k[0] + k[1];
        War::Won {
            seat: w,
            h,
            l0: l[0],
        }
    }

    /// The battles of a block where the lead changed, as bits `2..` (battle `i` at bit
    /// `i + 2`), from the signs of the margins after each (`pos`, `neg`), the margin before
    /// the block and the last non-zero margin before it (`lead`). The margin moves by 2 a
    /// battle, so a sign flips either directly (odd totals) or through one 0, after which the
    /// sign before the 0 counts.
    #[inline(always)]
    fn flips(pos: u32, neg: u32, before: i64, lead: i64) -> u32 {
        let p = pos << 2 | u32::from(before > 0) << 1 | u32::from(lead > 0);
        let q = neg << 2 | u32::from(before < 0) << 1 | u32::from(lead < 0);
        let zero = !(p | q);
        (p & q << 1) | (q & p << 1) | (zero << 1 & (p & q << 2 | q & p << 2))
    }
}
