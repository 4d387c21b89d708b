//! The war pots of the fixed and rank pick-up orders laid in registers, where the CPU has what
//! the block loop uses (AVX-512, [`available`], checked at run time):
//! [`Rules::order_pickup`](super::Rules::order_pickup)'s answers for two seats' pots (pot
//! after pot, or layer by layer) and for up to 16 cards sorted by value, each `false` (nothing
//! written) where it does not apply, and the general code then lays the cards. A war picks
//! up its pots once; here by a few loads, a permute or a sorting network and one or two
//! stores, where the general code called `memcpy` per pot, laid a layer's cards one at a time
//! or counted values through memory.
//!
//! Each writes a whole register (16 or 64 bytes) past the cards, into room it reserves first;
//! [`Scratch`](crate::state::Scratch)'s order keeps 64 bytes of room past a deck's cards, so
//! in play no pick-up allocates. (The general loop asks these too: the tests that compare loops
//! cannot see a mistake here; the unit tests of `decide.rs` compare them with the cards laid
//! one by one and sorted, and the naive reference simulator of the tests uses neither.)

#[cfg(target_arch = "x86_64")]
use crate::block::available;

/// Two pots of at most 64 cards each into `out` (cleared), `pots[first]` first: the pick-ups
/// of two seats' war that lay pot after pot (`winner-first`, `loser-first`, and `shuffled`
/// before its shuffle) by two masked loads and two stores ([`x86::join_two`]) where the CPU
/// has what the block loop uses ([`available`]), rather than two calls of `memcpy`; `false`,
/// and nothing written, elsewhere.
#[inline]
pub(super) fn joined(pots: &[&[u8]], first: usize, out: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let Some([a, b]) = two(pots, first, |a, b| a <= 64 && b <= 64) else {
            return false;
        };
        out.clear();
        out.reserve(a.len() + 64);
        // SAFETY: the CPU has the features (`available`); each pot holds at most 64 cards,
        // and `out` has room for 64 bytes past the first pot's, so the first
        // `a.len() + b.len()` bytes are written.
        unsafe {
            x86::join_two(a, b, out.as_mut_ptr());
            out.set_len(a.len() + b.len());
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (pots, first, out);
        false
    }
}

/// Two pots of the same length, at most 32 cards each, laid layer by layer into `out`
/// (cleared): in each layer `pots[first]`'s card, then the other's. The layered pick-ups'
/// order (`seat`, and `played` with the taker first) for two seats' war, by one byte
/// permute of two registers ([`x86::layer_two`]) where the CPU has what the block loop uses
/// ([`available`]); `false`, and nothing written, elsewhere.
#[inline]
pub(super) fn layered(pots: &[&[u8]], first: usize, out: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let Some([a, b]) = two(pots, first, |a, b| a == b && a <= 32) else {
            return false;
        };
        out.clear();
        out.reserve(64);
        // SAFETY: the CPU has the features (`available`); each pot holds at most 32 cards,
        // and `out` has room for 64 bytes, of which the first `2 * len` are the layers.
        unsafe {
            x86::layer_two(a, b, out.as_mut_ptr());
            out.set_len(2 * a.len());
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (pots, first, out);
        false
    }
}

/// The two pots of a two seats' war, `pots[first]` first, where their lengths `fit` and the CPU
/// has what the block loop uses.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn two<'a>(
    pots: &[&'a [u8]],
    first: usize,
    fit: impl Fn(usize, usize) -> bool,
) -> Option<[&'a [u8]; 2]> {
    match *pots {
        [p0, p1] if first < 2 && fit(p0.len(), p1.len()) && available() => {
            Some(if first == 0 { [p0, p1] } else { [p1, p0] })
        }
        _ => None,
    }
}

/// The cards of `pots` sorted by value into `out` (cleared), the highest first if `desc`, where
/// they are at most 16 and the CPU has what the block loop uses ([`available`]): `false`, and
/// nothing written, elsewhere. The rank orders' pick-up of a war's pots by a sorting network
/// in one register ([`x86::sort16`]): the counting sort it saves waited on its counts' stores
/// (about a sixth of a rank-ordered game's time).
#[inline]
pub(super) fn sorted(pots: &[&[u8]], desc: bool, out: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let total = pots.iter().map(|p| p.len()).sum::<usize>();
        if total > 16 || !available() {
            return false;
        }
        out.clear();
        out.reserve(16);
        // SAFETY: the CPU has the features (`available`); the pots hold 16 cards at most, and
        // `out` has room for 16 bytes, of which the first `total` are the sorted cards.
        unsafe {
            x86::sort16(pots, desc, out.as_mut_ptr());
            out.set_len(total);
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (pots, desc, out);
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// The pot `a` then the pot `b` (at most 64 cards each) at `out`: 64 bytes stored at `out`
    /// and 64 at `out + a.len()`.
    ///
    /// # Safety
    /// The CPU must have the features enabled here, the pots hold 64 cards at most, and
    /// `a.len() + 64` bytes from `out` are writable.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn join_two(a: &[u8], b: &[u8], out: *mut u8) {
        debug_assert!(a.len() <= 64 && b.len() <= 64);
        let len = |p: &[u8]| {
            if p.len() == 64 {
                u64::MAX
            } else {
                (1u64 << p.len()) - 1
            }
        };
        // SAFETY: the masked loads read the pots' bytes only; the stores are the caller's.
        unsafe {
            let (va, vb) = (
                _mm512_maskz_loadu_epi8(len(a), a.as_ptr().cast()),
                _mm512_maskz_loadu_epi8(len(b), b.as_ptr().cast()),
            );
            _mm512_storeu_si512(out.cast(), va);
            _mm512_storeu_si512(out.add(a.len()).cast(), vb);
        }
    }

    /// Byte `2 i` is `a`'s card `i`, byte `2 i + 1` is `b`'s (a two-register byte permute's
    /// control: 64 and up index the second).
    static LAYERS: [u8; 64] = {
        let mut m = [0u8; 64];
        let mut i = 0;
        while i < 32 {
            (m[2 * i], m[2 * i + 1]) = (i as u8, 64 + i as u8);
            i += 1;
        }
        m
    };

    /// The pots `a` and `b` (the same length, at most 32 cards) laid layer by layer, `a`'s card
    /// first in each, as 64 bytes at `out` (the first `2 * a.len()` of them).
    ///
    /// # Safety
    /// The CPU must have the features enabled here, the pots hold 32 cards at most and the
    /// same number, and 64 bytes from `out` are writable.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn layer_two(a: &[u8], b: &[u8], out: *mut u8) {
        debug_assert!(a.len() == b.len() && a.len() <= 32);
        let len = (1u64 << a.len()) - 1;
        // SAFETY: the masked loads read the pots' bytes only; `LAYERS` is 64 bytes; the
        // store is the caller's.
        unsafe {
            let (a, b) = (
                _mm512_maskz_loadu_epi8(len, a.as_ptr().cast()),
                _mm512_maskz_loadu_epi8(len, b.as_ptr().cast()),
            );
            let control = _mm512_loadu_si512(LAYERS.as_ptr().cast());
            _mm512_storeu_si512(out.cast(), _mm512_permutex2var_epi8(a, control, b));
        }
    }

    /// A bitonic sorting network of 16 bytes, ascending: each stage's partners (byte `i` is
    /// compared with byte `partner[i]`) and the bytes that keep the smaller of the two.
    static SORT16: [([u8; 16], u16); 10] = {
        let mut stages = [([0u8; 16], 0u16); 10];
        let (mut at, mut k) = (0, 2);
        while k <= 16 {
            let mut j = k / 2;
            while j > 0 {
                let mut i = 0;
                while i < 16 {
                    stages[at].0[i] = (i ^ j) as u8;
                    // The lower of a pair keeps the smaller in an ascending run of `k`.
                    if (i & j == 0) == (i & k == 0) {
                        stages[at].1 |= 1 << i;
                    }
                    i += 1;
                }
                at += 1;
                j /= 2;
            }
            k *= 2;
        }
        stages
    };

    /// The cards of `pots` (16 at most in all) sorted by value, the highest first if `desc`,
    /// as 16 bytes at `out` (the first cards of them; the rest is padding): the pots expanded
    /// one after the other into a register of padding that sorts last, then the ten
    /// compare-exchange stages of [`SORT16`].
    ///
    /// # Safety
    /// The CPU must have the features enabled here, the pots hold 16 cards at most, and 16
    /// bytes from `out` are writable.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2")]
    pub(super) unsafe fn sort16(pots: &[&[u8]], desc: bool, out: *mut u8) {
        let mut v = _mm_set1_epi8(if desc { 0 } else { -1 });
        let mut at = 0;
        for pot in pots {
            debug_assert!(at + pot.len() <= 16);
            let len = (1u32 << pot.len()) - 1;
            // SAFETY: the masked load reads the pot's bytes only.
            let cards = unsafe { _mm_maskz_loadu_epi8(len as u16, pot.as_ptr().cast()) };
            v = _mm_mask_expand_epi8(v, (len << at) as u16, cards);
            at += pot.len();
        }
        for (partner, smaller) in &SORT16 {
            // SAFETY: 16 bytes.
            let partner = unsafe { _mm_loadu_si128(partner.as_ptr().cast()) };
            let p = _mm_shuffle_epi8(v, partner);
            let (low, high) = (_mm_min_epu8(v, p), _mm_max_epu8(v, p));
            v = if desc {
                _mm_mask_blend_epi8(*smaller, low, high)
            } else {
                _mm_mask_blend_epi8(*smaller, high, low)
            };
        }
        // SAFETY: the caller's.
        unsafe { _mm_storeu_si128(out.cast(), v) };
    }
}
