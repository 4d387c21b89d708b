//! The war pots of the fixed and rank pick-up orders laid in registers:
//! [`Rules::order_pickup`](super::Rules::order_pickup)'s answers for two seats' pots (pot
//! after pot, or layer by layer) and for up to 16 cards sorted by value, each `false` (nothing
//! written) where it does not apply, and the general code then lays the cards. A war picks
//! up its pots once; here by a few loads, a permute or a sorting network and one or two
//! stores, where the general code called `memcpy` per pot, laid a layer's cards one at a time
//! or counted values through memory.
//!
//! Where the CPU has what the block loop uses (AVX-512, [`available`], checked at run time),
//! pots of up to 64 cards go through its masked loads ([`x86`]). Elsewhere pots of up to 16
//! cards are joined by short copies ([`copy_short`]), read into 128-bit words by two loads each
//! ([`word`]) and laid layer by layer by SSE2's byte unpacks (by shifts off x86-64,
//! [`words`]), and sorted by a network of SSE2 steps ([`x86::sort16_sse2`]; every x86-64 CPU
//! has SSE2). On an AVX2-only machine the general code was 8–20 % of the time of the games with
//! a fixed or rank order (BENCHMARKS.md, 2026-12-07 second). The `shuffled` pick-up joins its
//! two pots in registers only with AVX-512 ([`joined_wide`]).
//!
//! The register kernels write whole words past the cards, into room they reserve first, and
//! keep the cards' length (the short copies write the cards alone, into room reserved too);
//! [`Scratch`](crate::state::Scratch)'s order keeps 64 bytes of room past a deck's cards, so
//! in play no pick-up allocates. (The general loop asks these too: the tests that compare loops
//! cannot see a mistake here; the unit tests of `decide.rs` compare them with the cards laid
//! one by one and sorted, and this module's compare the word kernels on every CPU. The naive
//! reference simulator of the tests uses neither.)

#[cfg(target_arch = "x86_64")]
use crate::block::available;
use std::mem::MaybeUninit;

/// Two pots into `out` (cleared), `pots[first]` first: the pick-ups of two seats' war that lay
/// pot after pot (`winner-first`, `loser-first`), by [`joined_wide`] where it applies, else by
/// two short copies ([`words::join`], up to 16 cards each), rather than two calls of `memcpy`
/// and the general code's loop over the other seats (8 % of a `winner-first` game on an AVX2
/// machine); `false`, and nothing written, for longer pots.
#[inline]
pub(super) fn joined(pots: &[&[u8]], first: usize, out: &mut Vec<u8>) -> bool {
    if joined_wide(pots, first, out) {
        return true;
    }
    match two(pots, first) {
        Some([a, b]) if a.len() <= 16 && b.len() <= 16 => {
            words::join(a, b, out);
            true
        }
        _ => false,
    }
}

/// [`joined`] by two masked loads and two stores ([`x86::join_two`], pots of up to 64 cards)
/// where the CPU has what the block loop uses ([`available`]); `false`, and nothing written,
/// elsewhere. The `shuffled` pick-up's join before its shuffle: on an AVX2 machine the short
/// copies made classic games 1.4 % slower than `memcpy` did (BENCHMARKS.md, 2026-12-07 second).
#[inline]
pub(super) fn joined_wide(pots: &[&[u8]], first: usize, out: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Some([a, b]) = two(pots, first)
        && a.len() <= 64
        && b.len() <= 64
        && available()
    {
        out.clear();
        out.reserve(a.len() + 64);
        // SAFETY: the CPU has the features (`available`); each pot holds at most 64 cards,
        // and `out` has room for 64 bytes past the first pot's, so the first
        // `a.len() + b.len()` bytes are written.
        unsafe {
            x86::join_two(a, b, out.as_mut_ptr());
            out.set_len(a.len() + b.len());
        }
        return true;
    }
    let _ = (pots, first, out);
    false
}

/// Two pots of the same length laid layer by layer into `out` (cleared): in each layer
/// `pots[first]`'s card, then the other's. The layered pick-ups' order (`seat`, and `played`
/// with the taker first) for two seats' war, by one byte permute of two registers
/// ([`x86::layer_two`], pots of up to 32 cards) where the CPU has what the block loop uses
/// ([`available`]), else by interleaving two words ([`words::layer`], up to 16 cards each);
/// `false`, and nothing written, for other pots.
#[inline]
pub(super) fn layered(pots: &[&[u8]], first: usize, out: &mut Vec<u8>) -> bool {
    let Some([a, b]) = two(pots, first) else {
        return false;
    };
    if a.len() != b.len() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if a.len() <= 32 && available() {
        out.clear();
        out.reserve(64);
        // SAFETY: the CPU has the features (`available`); each pot holds at most 32 cards,
        // and `out` has room for 64 bytes, of which the first `2 * len` are the layers.
        unsafe {
            x86::layer_two(a, b, out.as_mut_ptr());
            out.set_len(2 * a.len());
        }
        return true;
    }
    if a.len() <= 16 {
        put(out, &words::layer(a, b), 2 * a.len());
        return true;
    }
    false
}

/// The two pots of a two seats' war, `pots[first]` first.
#[inline(always)]
fn two<'a>(pots: &[&'a [u8]], first: usize) -> Option<[&'a [u8]; 2]> {
    match *pots {
        [p0, p1] if first < 2 => Some(if first == 0 { [p0, p1] } else { [p1, p0] }),
        _ => None,
    }
}

/// The first `len` bytes of `laid` as `out`'s cards: the whole array copied (a copy of a
/// length known here, in line) and the rest cut off.
#[inline(always)]
fn put<const B: usize>(out: &mut Vec<u8>, laid: &[u8; B], len: usize) {
    debug_assert!(len <= B);
    out.clear();
    out.extend_from_slice(laid);
    out.truncate(len);
}

/// The cards of `pots` sorted by value into `out` (cleared), the highest first if `desc`, where
/// they are at most 16 on an x86-64 CPU: `false`, and nothing written, elsewhere. The rank
/// orders' pick-up of a war's pots by a sorting network in one register ([`x86::sort16`] where
/// the CPU has what the block loop uses, [`x86::sort16_sse2`] on the others): the counting sort
/// it saves waited on its counts' stores (about a sixth of a rank-ordered game's time on the
/// AVX-512 machine, a fifth on an AVX2 one).
#[inline]
pub(super) fn sorted(pots: &[&[u8]], desc: bool, out: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let total = pots.iter().map(|p| p.len()).sum::<usize>();
        if total > 16 {
            return false;
        }
        if !available() {
            put(out, &x86::sort16_sse2(pots, desc), total);
            return true;
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

/// A pot of at most 16 cards as a 128-bit word, card `i` in byte `i` and zeros past the cards:
/// two loads of 8 bytes (or 4, for 4 to 7 cards) from its two ends, which overlap where it
/// holds fewer than 16 (the bytes they share are the same cards), rather than a call to
/// `memcpy` for a length known only at run time. Each half is its own 64-bit word: a shift of
/// all 128 bits by a count known only at run time was a chain of `shld` and `cmov`.
#[inline(always)]
fn word(pot: &[u8]) -> u128 {
    let n = pot.len();
    debug_assert!(n <= 16);
    let le8 = |s: &[u8]| u64::from_le_bytes(s.try_into().expect("8 bytes"));
    let le4 = |s: &[u8]| u64::from(u32::from_le_bytes(s.try_into().expect("4 bytes")));
    let (low, high) = if n > 8 {
        // The last 8 cards moved down past the bytes the first load has.
        (le8(&pot[..8]), le8(&pot[n - 8..n]) >> (8 * (16 - n)))
    } else if n == 8 {
        (le8(pot), 0)
    } else if n >= 4 {
        (le4(&pot[..4]) | le4(&pot[n - 4..n]) << (8 * (n - 4)), 0)
    } else {
        let low = pot
            .iter()
            .enumerate()
            .fold(0, |v, (i, &c)| v | u64::from(c) << (8 * i));
        (low, 0)
    };
    u128::from(low) | u128::from(high) << 64
}

/// `pot` (at most 16 cards) written at the start of `room`, which has room for it, as
/// `memcpy` writes a short copy: two stores of 8 bytes (or 4, or bytes) from its two ends,
/// which overlap where it holds fewer than 16, rather than a call for a length known only at
/// run time.
#[inline(always)]
fn copy_short(room: &mut [MaybeUninit<u8>], pot: &[u8]) {
    let n = pot.len();
    debug_assert!(n <= 16 && room.len() >= n);
    fn bytes<const N: usize>(cards: [u8; N]) -> [MaybeUninit<u8>; N] {
        cards.map(MaybeUninit::new)
    }
    if n >= 8 {
        let (first, last): ([u8; 8], [u8; 8]) = (
            pot[..8].try_into().expect("8 bytes"),
            pot[n - 8..n].try_into().expect("8 bytes"),
        );
        room[..8].copy_from_slice(&bytes(first));
        room[n - 8..n].copy_from_slice(&bytes(last));
    } else if n >= 4 {
        let (first, last): ([u8; 4], [u8; 4]) = (
            pot[..4].try_into().expect("4 bytes"),
            pot[n - 4..n].try_into().expect("4 bytes"),
        );
        room[..4].copy_from_slice(&bytes(first));
        room[n - 4..n].copy_from_slice(&bytes(last));
    } else {
        for (r, &c) in room.iter_mut().zip(pot) {
            r.write(c);
        }
    }
}

/// The word kernels of pots of up to 16 cards: any CPU, no intrinsics.
mod words {
    use super::{copy_short, word};

    /// The pot `a` then the pot `b` (at most 16 cards each) into `out` (cleared), each written
    /// as a short copy ([`copy_short`]) into the room past the cards.
    #[inline(always)]
    pub(super) fn join(a: &[u8], b: &[u8], out: &mut Vec<u8>) {
        debug_assert!(a.len() <= 16 && b.len() <= 16);
        out.clear();
        out.reserve(32);
        let room = out.spare_capacity_mut();
        copy_short(room, a);
        copy_short(&mut room[a.len()..], b);
        // SAFETY: within the capacity (32 reserved), and the first `a.len() + b.len()` bytes
        // of the room were written.
        unsafe { out.set_len(a.len() + b.len()) };
    }

    /// The pots `a` and `b` (the same length, at most 16 cards) laid layer by layer, `a`'s card
    /// first in each, as 32 bytes: the first `2 * a.len()` are the cards, zeros after them. On
    /// x86-64 by SSE2's byte unpacks ([`x86::layer_sse2`](super::x86::layer_sse2)), elsewhere
    /// by [`layer_spread`].
    #[inline(always)]
    pub(super) fn layer(a: &[u8], b: &[u8]) -> [u8; 32] {
        debug_assert_eq!(a.len(), b.len());
        #[cfg(target_arch = "x86_64")]
        return super::x86::layer_sse2(word(a), word(b));
        #[cfg(not(target_arch = "x86_64"))]
        return layer_spread(a, b);
    }

    /// [`layer`] by shifts and masks on any CPU: each word's bytes spread to every other byte.
    // (Only the tests call it on x86-64, where SSE2 lays the pots.)
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline(always)]
    pub(super) fn layer_spread(a: &[u8], b: &[u8]) -> [u8; 32] {
        let (va, vb) = (word(a), word(b));
        // Byte `i` of 8 to byte `2 i` of 16, in three steps of halving: the halves of 4 bytes
        // apart, then the pairs, then the bytes.
        let spread = |x: u128| {
            let x = x & u128::from(u64::MAX);
            let x = (x | x << 32) & 0x0000_0000_FFFF_FFFF_0000_0000_FFFF_FFFF;
            let x = (x | x << 16) & 0x0000_FFFF_0000_FFFF_0000_FFFF_0000_FFFF;
            (x | x << 8) & 0x00FF_00FF_00FF_00FF_00FF_00FF_00FF_00FF
        };
        let low = spread(va) | spread(vb) << 8;
        let high = spread(va >> 64) | spread(vb >> 64) << 8;
        let mut laid = [0u8; 32];
        laid[..16].copy_from_slice(&low.to_le_bytes());
        laid[16..].copy_from_slice(&high.to_le_bytes());
        laid
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
    static SORT16: [([u8; 16], u16); 10] = sort16_stages();

    /// Two words of 16 bytes laid layer by layer, `a`'s byte first in each, as 32 bytes: SSE2's
    /// byte unpacks, which every x86-64 CPU has (the spread by shifts and masks,
    /// [`layer_spread`](super::words::layer_spread), left the `played` games' pick-ups 8 % of
    /// their time on an AVX2 machine).
    #[inline(always)]
    pub(super) fn layer_sse2(a: u128, b: u128) -> [u8; 32] {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { layer_steps(a, b) }
    }

    /// [`layer_sse2`]'s unpacks.
    #[target_feature(enable = "sse2")]
    #[inline]
    fn layer_steps(a: u128, b: u128) -> [u8; 32] {
        let va = _mm_set_epi64x((a >> 64) as i64, a as i64);
        let vb = _mm_set_epi64x((b >> 64) as i64, b as i64);
        let mut laid = [0u8; 32];
        // SAFETY: 32 bytes.
        unsafe {
            _mm_storeu_si128(laid.as_mut_ptr().cast(), _mm_unpacklo_epi8(va, vb));
            _mm_storeu_si128(laid.as_mut_ptr().add(16).cast(), _mm_unpackhi_epi8(va, vb));
        }
        laid
    }

    /// [`SORT16`]'s stages.
    const fn sort16_stages() -> [([u8; 16], u16); 10] {
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
    }

    /// [`SORT16`]'s bytes that keep the smaller of a pair, a byte each (`0xFF` where it keeps
    /// the smaller), for the SSE2 steps' selection ([`sort16_sse2`]).
    static KEEP16: [[u8; 16]; 10] = {
        let stages = sort16_stages();
        let mut keep = [[0u8; 16]; 10];
        let mut s = 0;
        while s < 10 {
            let mut i = 0;
            while i < 16 {
                if stages[s].1 >> i & 1 != 0 {
                    keep[s][i] = 0xFF;
                }
                i += 1;
            }
            s += 1;
        }
        keep
    };

    /// [`sort16`] by SSE2 steps, which every x86-64 CPU has: the pots joined into a word
    /// ([`word`](super::word)) over padding that sorts last, then [`SORT16`]'s ten stages, each
    /// stage's partners (byte `i`'s is byte `i ^ j`) by a fixed shuffle of dwords, words or
    /// bytes and the smaller or larger of each pair kept by masks ([`KEEP16`]). Returns the 16
    /// bytes, the sorted cards first.
    #[inline]
    pub(super) fn sort16_sse2(pots: &[&[u8]], desc: bool) -> [u8; 16] {
        let (mut cards, mut at) = (0u128, 0u32);
        for pot in pots.iter().filter(|p| !p.is_empty()) {
            debug_assert!(at as usize + pot.len() <= 16);
            cards |= super::word(pot) << (8 * at);
            at += pot.len() as u32;
        }
        // Padding that sorts last: `0xFF` ascending, zeros descending.
        let pad = if desc {
            0
        } else {
            u128::MAX.checked_shl(8 * at).unwrap_or(0)
        };
        // SAFETY: SSE2 is part of x86-64.
        unsafe { sort16_steps(cards | pad, desc) }
    }

    /// [`sort16_sse2`]'s network on the word `cards` (padding included).
    #[target_feature(enable = "sse2")]
    #[inline]
    fn sort16_steps(cards: u128, desc: bool) -> [u8; 16] {
        let mut v = _mm_set_epi64x((cards >> 64) as i64, cards as i64);
        macro_rules! stage {
            ($s:literal, $j:literal) => {
                let p = match $j {
                    8 => _mm_shuffle_epi32::<0b01_00_11_10>(v),
                    4 => _mm_shuffle_epi32::<0b10_11_00_01>(v),
                    2 => _mm_shufflehi_epi16::<0b10_11_00_01>(
                        _mm_shufflelo_epi16::<0b10_11_00_01>(v),
                    ),
                    _ => _mm_or_si128(_mm_slli_epi16::<8>(v), _mm_srli_epi16::<8>(v)),
                };
                let (low, high) = (_mm_min_epu8(v, p), _mm_max_epu8(v, p));
                // SAFETY: 16 bytes.
                let keep = unsafe { _mm_loadu_si128(KEEP16[$s].as_ptr().cast()) };
                let (kept, other) = if desc { (high, low) } else { (low, high) };
                v = _mm_or_si128(_mm_and_si128(keep, kept), _mm_andnot_si128(keep, other));
            };
        }
        stage!(0, 1);
        stage!(1, 2);
        stage!(2, 1);
        stage!(3, 4);
        stage!(4, 2);
        stage!(5, 1);
        stage!(6, 8);
        stage!(7, 4);
        stage!(8, 2);
        stage!(9, 1);
        let mut sorted = [0u8; 16];
        // SAFETY: 16 bytes.
        unsafe { _mm_storeu_si128(sorted.as_mut_ptr().cast(), v) };
        sorted
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{GameRng, GameSeed};

    /// Random pots of `0..=max` cards each, values over the whole byte (0 and 255 included).
    fn pot(rng: &mut GameRng, max: u32) -> Vec<u8> {
        let len = rng.below(max + 1) as usize;
        (0..len).map(|_| rng.below(256) as u8).collect()
    }

    /// The word kernels, on every CPU (the AVX-512 machine's pick-ups never call them): a pot's
    /// word, two pots joined and laid layer by layer, for every length up to 16, with zeros
    /// after the cards.
    #[test]
    fn word_kernels_lay_pots_as_the_cards_one_by_one() {
        let mut rng = GameRng::new(GameSeed::new(8, 3, 7));
        for round in 0..20_000u32 {
            let a = pot(&mut rng, 16);
            let b = if round % 2 == 0 {
                pot(&mut rng, 16)
            } else {
                (0..a.len()).map(|_| rng.below(256) as u8).collect()
            };
            let naive = a
                .iter()
                .enumerate()
                .fold(0u128, |v, (i, &c)| v | u128::from(c) << (8 * i));
            assert_eq!(word(&a), naive, "{a:?}");
            let mut joined = vec![0xAA; 3];
            words::join(&a, &b, &mut joined);
            assert_eq!(joined, [&a[..], &b[..]].concat(), "{a:?} {b:?}");
            if a.len() == b.len() {
                let layers: Vec<u8> = a.iter().zip(&b).flat_map(|(&x, &y)| [x, y]).collect();
                for laid in [words::layer(&a, &b), words::layer_spread(&a, &b)] {
                    assert_eq!(laid[..2 * a.len()], layers[..], "{a:?} {b:?}");
                    assert!(laid[2 * a.len()..].iter().all(|&c| c == 0), "{a:?} {b:?}");
                }
            }
        }
    }

    /// The SSE2 network sorts one to four pots of 16 cards in all, either way, whatever the
    /// CPU's pick-ups use: values that repeat, and 0 and 255, which tie with the padding.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_network_sorts_up_to_16_cards() {
        let mut rng = GameRng::new(GameSeed::new(8, 4, 8));
        for round in 0..20_000u32 {
            let n = 1 + round as usize % 4;
            let values = [2, 13, 256][round as usize / 4 % 3];
            let mut left = 16;
            let pots: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = rng.below(left + 1);
                    left -= len;
                    (0..len)
                        .map(|_| {
                            let v = rng.below(values);
                            if values == 2 {
                                [0, 255][v as usize]
                            } else {
                                v as u8
                            }
                        })
                        .collect()
                })
                .collect();
            let refs: Vec<&[u8]> = pots.iter().map(|p| &p[..]).collect();
            let mut want = pots.concat();
            for desc in [false, true] {
                want.sort_unstable();
                if desc {
                    want.reverse();
                }
                let sorted = x86::sort16_sse2(&refs, desc);
                assert_eq!(sorted[..want.len()], want[..], "{desc} {pots:?}");
            }
        }
    }
}
