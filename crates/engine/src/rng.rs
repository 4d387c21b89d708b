//! Per-game randomness: the seed scheme and the few draws the engine makes.
//!
//! # Seed scheme
//! Game `g` of variant `v` in an experiment with seed `s` uses the generator
//! `Pcg64Mcg::new(state)` (rand_pcg's 128-bit MCG with XSL-RR output) where
//! ```text
//! a = splitmix64(s)
//! b = splitmix64(a ^ v)
//! hi = splitmix64(b ^ g)
//! lo = splitmix64(hi ^ 0x9E37_79B9_7F4A_7C15)
//! state = hi << 64 | lo
//! ```
//! and `splitmix64` is Vigna's finaliser (add 0x9E3779B97F4A7C15, then the two xor-shift-multiply
//! rounds). A game is therefore a pure function of `(s, v, g)` and the rules: any game can be
//! replayed alone, on any thread, in any order.
//!
//! # Draws
//! The engine does its own bounded draws (not `rand`'s) so that results cannot change when a
//! dependency changes its algorithms:
//! - `below(n)`: Lemire's multiply-shift with rejection, on 32-bit halves of a `u64` (low half
//!   first);
//! - `bit()`: one bit from a separate 64-bit buffer, lowest bit first (the buffer keeps a
//!   sentinel bit above the unread ones, so it needs no count);
//! - `shuffle`: Fisher–Yates from the end, `j = below(i + 1)`, except the last step (`i = 1`),
//!   which uses `bit()`: so a 2-card pot costs one bit.

use rand_pcg::Pcg64Mcg;
use rand_pcg::rand_core::Rng;

/// Identifies one game: (experiment seed, variant index, game index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameSeed {
    pub seed: u64,
    pub variant: u64,
    pub game: u64,
}

impl GameSeed {
    pub fn new(seed: u64, variant: u64, game: u64) -> GameSeed {
        GameSeed {
            seed,
            variant,
            game,
        }
    }
}

#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub struct GameRng {
    pcg: Pcg64Mcg,
    /// Unread bits, lowest first, under a sentinel 1 bit; `≤ 1` means empty.
    bits: u64,
    half: u32,
    has_half: bool,
}

impl GameRng {
    pub fn new(id: GameSeed) -> GameRng {
        let a = splitmix64(id.seed);
        let b = splitmix64(a ^ id.variant);
        let hi = splitmix64(b ^ id.game);
        let lo = splitmix64(hi ^ 0x9E37_79B9_7F4A_7C15);
        GameRng {
            pcg: Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo)),
            bits: 0,
            half: 0,
            has_half: false,
        }
    }

    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.pcg.next_u64()
    }

    #[inline(always)]
    fn next_u32(&mut self) -> u32 {
        if self.has_half {
            self.has_half = false;
            self.half
        } else {
            let x = self.pcg.next_u64();
            self.half = (x >> 32) as u32;
            self.has_half = true;
            x as u32
        }
    }

    #[inline(always)]
    pub fn bit(&mut self) -> bool {
        next_bit(&mut self.bits, &mut self.pcg)
    }

    /// Lends the bit buffer to a hot loop that keeps it in registers; give it back with
    /// [`GameRng::put_bits`] before any other draw.
    #[inline(always)]
    pub(crate) fn take_bits(&self) -> u64 {
        self.bits
    }

    #[inline(always)]
    pub(crate) fn put_bits(&mut self, bits: u64) {
        self.bits = bits;
    }

    /// [`GameRng::bit`] on a bit buffer held outside (see [`GameRng::take_bits`]).
    #[inline(always)]
    pub(crate) fn bit_from(&mut self, bits: &mut u64) -> bool {
        next_bit(bits, &mut self.pcg)
    }

    /// Uniform in `0..n`, `n ≥ 1`.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n >= 1);
        let mut m = u64::from(self.next_u32()) * u64::from(n);
        if (m as u32) < n {
            let t = n.wrapping_neg() % n;
            while (m as u32) < t {
                m = u64::from(self.next_u32()) * u64::from(n);
            }
        }
        (m >> 32) as u32
    }

    #[inline]
    pub fn shuffle(&mut self, s: &mut [u8]) {
        let n = s.len();
        if n < 2 {
            return;
        }
        for i in (2..n).rev() {
            let j = self.below(i as u32 + 1) as usize;
            s.swap(i, j);
        }
        if self.bit() {
            s.swap(0, 1);
        }
    }
}

#[inline(always)]
fn next_bit(bits: &mut u64, pcg: &mut Pcg64Mcg) -> bool {
    if *bits <= 1 {
        let x = pcg.next_u64();
        *bits = (x >> 1) | (1 << 63);
        x & 1 != 0
    } else {
        let b = *bits & 1 != 0;
        *bits >>= 1;
        b
    }
}
