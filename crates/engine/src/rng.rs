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
    /// The experiment's seed.
    pub seed: u64,
    /// The variant's seed id (FNV-1a 64 of its name).
    pub variant: u64,
    /// The game's index within the variant.
    pub game: u64,
}

impl GameSeed {
    /// Game `game` of variant `variant` under experiment seed `seed`.
    pub fn new(seed: u64, variant: u64, game: u64) -> GameSeed {
        GameSeed {
            seed,
            variant,
            game,
        }
    }
}

/// SplitMix64's output function: mixes a seed into 64 well-spread bits (the seed chain's step).
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed chain's links shared by every game of one variant: `b` of the module's comment,
/// with the experiment seed and variant it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VariantSeed {
    seed: u64,
    variant: u64,
    b: u64,
}

impl VariantSeed {
    pub(crate) fn new(seed: u64, variant: u64) -> VariantSeed {
        VariantSeed {
            seed,
            variant,
            b: splitmix64(splitmix64(seed) ^ variant),
        }
    }

    /// This variant's links if they are `id`'s, else `id`'s own.
    #[inline]
    pub(crate) fn for_game(self, id: GameSeed) -> VariantSeed {
        if self.seed == id.seed && self.variant == id.variant {
            self
        } else {
            VariantSeed::new(id.seed, id.variant)
        }
    }
}

/// One game's random numbers: a `Pcg64Mcg` seeded from its [`GameSeed`], with the engine's own
/// bounded draws, bits and shuffles (value-stable across dependency versions).
#[derive(Clone)]
pub struct GameRng {
    pcg: Pcg64Mcg,
    /// Unread bits, lowest first, under a sentinel 1 bit; `≤ 1` means empty.
    bits: u64,
    half: u32,
    has_half: bool,
}

impl GameRng {
    /// The generator of game `id`, seeded by the splitmix64 chain of the module's comment.
    pub fn new(id: GameSeed) -> GameRng {
        GameRng::of_game(VariantSeed::new(id.seed, id.variant), id.game)
    }

    /// The generator of game `game` of a variant whose chain's first two links are `v`: the
    /// same generator as [`GameRng::new`], for a caller that plays many games of one variant
    /// and keeps `v` (half of the chain's dependent multiplications).
    #[inline]
    pub(crate) fn of_game(v: VariantSeed, game: u64) -> GameRng {
        let hi = splitmix64(v.b ^ game);
        let lo = splitmix64(hi ^ 0x9E37_79B9_7F4A_7C15);
        GameRng {
            pcg: Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo)),
            bits: 0,
            half: 0,
            has_half: false,
        }
    }

    /// A copy read a field at a time (the state in its two words), for a loop that takes over
    /// a generator its caller has just stored field by field: a copy of the whole, as the
    /// compiler makes it (16 bytes at a time), reads across two such stores and waits for both
    /// to reach the cache. [`GameRng::store_by_fields`] is its counterpart.
    #[inline(always)]
    pub(crate) fn load_by_fields(&self) -> GameRng {
        use std::ptr::read_volatile as read;
        // SAFETY: references to fields of `self`. (Volatile: the compiler may not merge the
        // reads into wider ones.)
        unsafe {
            GameRng {
                pcg: read(&self.pcg),
                bits: read(&self.bits),
                half: read(&self.half),
                has_half: read(&self.has_half),
            }
        }
    }

    /// `*to = self.clone()`, written a field at a time from fields read one by one, for the
    /// reason [`GameRng::load_by_fields`] gives.
    #[inline(always)]
    pub(crate) fn store_by_fields(&self, to: &mut GameRng) {
        use std::ptr::write_volatile as write;
        // SAFETY: references to fields of `to`.
        unsafe {
            write(&mut to.pcg, self.pcg.clone());
            write(&mut to.bits, self.bits);
            write(&mut to.half, self.half);
            write(&mut to.has_half, self.has_half);
        }
    }

    /// The generator's next 64 bits.
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

    /// One fair bit (64 bits are drawn at once and handed out one by one).
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

    /// Two draws in a row, [`below(n1)`](Self::below) then `below(n2)`, exactly as two calls
    /// make them, from one generator step (two calls use one step between them, whichever
    /// half is pending): a loop that draws twice skips the second call's check for a pending
    /// half, and both draws' rejection tests are one. A draw that may be rejected sends both
    /// to `below`, from where they started.
    #[inline(always)]
    pub(crate) fn below_pair(&mut self, n1: u32, n2: u32) -> (u32, u32) {
        debug_assert!(n1 >= 1 && n2 >= 1);
        let start = (self.pcg.clone(), self.half, self.has_half);
        let x = self.pcg.next_u64();
        let (a, b) = if self.has_half {
            (self.half, x as u32)
        } else {
            (x as u32, (x >> 32) as u32)
        };
        self.half = (x >> 32) as u32;
        let (ma, mb) = (u64::from(a) * u64::from(n1), u64::from(b) * u64::from(n2));
        // A low half below its bound may mean a rejection (below the exact threshold
        // `2^32 mod n`).
        if (ma as u32) < n1 || (mb as u32) < n2 {
            (self.pcg, self.half, self.has_half) = start;
            let first = self.below(n1);
            return (first, self.below(n2));
        }
        ((ma >> 32) as u32, (mb >> 32) as u32)
    }

    /// Fisher–Yates as the module documentation describes it. A pot of a few cards (a battle
    /// of 3–4 players) is shuffled in line, one draw at a time; the draws are the same either
    /// way.
    #[inline(always)]
    pub fn shuffle(&mut self, s: &mut [u8]) {
        if s.len() > 5 {
            return self.shuffle_long(s);
        }
        for i in (2..s.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            s.swap(i, j);
        }
        if s.len() >= 2 {
            let coin = self.bit();
            swap_first_two_if(s, coin);
        }
    }

    /// [`shuffle`](Self::shuffle) of the first `n ≤ 8` cards of a word (card `i` in byte `i`),
    /// with the same draws: a pot of a battle shuffled in a register rather than in memory,
    /// where the bytes written one by one would stall the word read back.
    #[inline(always)]
    pub(crate) fn shuffle_word(&mut self, mut w: u64, n: usize) -> u64 {
        debug_assert!(n <= 8);
        let swap = |w: u64, i: usize, j: usize| {
            let d = ((w >> (8 * i)) ^ (w >> (8 * j))) & 0xFF;
            w ^ (d << (8 * i)) ^ (d << (8 * j))
        };
        for i in (2..n).rev() {
            let j = self.below(i as u32 + 1) as usize;
            w = swap(w, i, j);
        }
        if n >= 2 {
            // The last swap by a mask, not a branch: the bit is a coin toss, and a branch on it
            // is mispredicted every other battle.
            let d = (w ^ (w >> 8)) & 0xFF;
            w ^= u64::from(self.bit()).wrapping_neg() & (d | d << 8);
        }
        w
    }

    /// The draws of [`shuffle_word`](Self::shuffle_word) of 4 cards, in its order, with the
    /// bit from a buffer held outside ([`GameRng::take_bits`]): the order they pick, as
    /// [`SHUFFLE4`]'s entry (byte `i`: the card that goes to place `i`). A caller that can
    /// move bytes by a table (a byte shuffle instruction) applies it in one step instead of
    /// the three swaps.
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    pub(crate) fn shuffle4_order(&mut self, bits: &mut u64) -> u32 {
        let j3 = self.below(4) as usize;
        let j2 = self.below(3) as usize;
        let coin = usize::from(self.bit_from(bits));
        SHUFFLE4[(j3 * 3 + j2) * 2 + coin]
    }

    /// A `speed` battle's draws under the shuffled pick-up with a prize, as the two-seat loop
    /// makes them: the grab (`next_u64() < threshold`), then, unless it is not grabbed and
    /// `tie` (the war's draws follow instead), the 4-card shuffle's
    /// ([`shuffle4_order`](Self::shuffle4_order)). Its two generator steps are computed side by
    /// side (`state·M` and `state·M²`), as [`shuffle_long`](Self::shuffle_long) computes them:
    /// a run of such battles waits for one 128-bit multiplication a battle, not two. The
    /// draws and the state left behind are exactly those of the calls one by one. Returns the
    /// grab and the shuffle's order (`None` where it is not drawn).
    #[cfg(any(target_arch = "x86_64", test))]
    #[inline(always)]
    pub(crate) fn grab_and_shuffle4(
        &mut self,
        threshold: u64,
        tie: bool,
        bits: &mut u64,
    ) -> (bool, Option<u32>) {
        let state = self.pcg.state();
        let (one, two) = (
            state.wrapping_mul(PCG_MULTIPLIER),
            state.wrapping_mul(PCG_MULTIPLIER_2),
        );
        let grabbed = output_xsl_rr(one) < threshold;
        if !grabbed && tie {
            self.pcg = Pcg64Mcg::new(one);
            return (false, None);
        }
        let x = output_xsl_rr(two);
        // `below(4)` then `below(3)`: the pending half and the low half of the second step,
        // or both halves of it; the half left pending is its high half either way.
        let (a, b) = if self.has_half {
            (self.half, x as u32)
        } else {
            (x as u32, (x >> 32) as u32)
        };
        let (m3, m2) = (u64::from(a) * 4, u64::from(b) * 3);
        // A low half below its bound may mean a rejection (probability < 2^-31): leave the
        // shuffle to the draws one by one, which know the exact rule.
        if (m3 as u32) < 4 || (m2 as u32) < 3 {
            self.pcg = Pcg64Mcg::new(one);
            return (grabbed, Some(self.shuffle4_order(bits)));
        }
        self.pcg = Pcg64Mcg::new(two);
        self.half = (x >> 32) as u32;
        let (j3, j2) = ((m3 >> 32) as usize, (m2 >> 32) as usize);
        let coin = usize::from(self.bit_from(bits));
        (grabbed, Some(SHUFFLE4[(j3 * 3 + j2) * 2 + coin]))
    }

    /// [`shuffle`](Self::shuffle) of more than 5 cards. Four draws at a time come from two
    /// generator steps computed side by side (`state·M` and `state·M²`), so the 128-bit
    /// multiplications of consecutive steps do not wait for each other; the draws, and the
    /// state left behind, are exactly those of one step at a time.
    #[inline(never)]
    fn shuffle_long(&mut self, s: &mut [u8]) {
        let n = s.len();
        if n < 2 {
            return;
        }
        let mut i = n - 1;
        // A pending half first, one draw at a time: a draw `below` rejects leaves another half
        // pending, which the next draw takes before the steps below begin.
        while i >= 2 && self.has_half {
            let j = self.below(i as u32 + 1) as usize;
            s.swap(i, j);
            i -= 1;
        }
        let mut state = self.pcg.state();
        while i >= 5 {
            let x = output_xsl_rr(state.wrapping_mul(PCG_MULTIPLIER));
            let next = state.wrapping_mul(PCG_MULTIPLIER_2);
            let y = output_xsl_rr(next);
            let bound = i as u64;
            let m = [
                (x & 0xFFFF_FFFF) * (bound + 1),
                (x >> 32) * bound,
                (y & 0xFFFF_FFFF) * (bound - 1),
                (y >> 32) * (bound - 2),
            ];
            // A low half below the bound may mean a rejection (probability < 2^-24): leave
            // those four draws to `below`, which knows the exact rule.
            if (m[0] as u32 as u64) < bound + 1
                || (m[1] as u32 as u64) < bound
                || (m[2] as u32 as u64) < bound - 1
                || (m[3] as u32 as u64) < bound - 2
            {
                break;
            }
            for (k, m) in m.into_iter().enumerate() {
                let j = (m >> 32) as usize;
                debug_assert!(j <= i - k && i < n);
                // SAFETY: `j ≤ i − k ≤ i < n`: Lemire's draw below `i − k + 1` is under its
                // bound. Unchecked: the four swaps' bounds checks were a fifth of the loop.
                unsafe {
                    let p = s.as_mut_ptr();
                    std::ptr::swap(p.add(i - k), p.add(j));
                }
            }
            i -= 4;
            state = next;
        }
        self.pcg = Pcg64Mcg::new(state);
        while i >= 2 {
            let j = self.below(i as u32 + 1) as usize;
            s.swap(i, j);
            i -= 1;
        }
        let coin = self.bit();
        swap_first_two_if(s, coin);
    }
}

/// The 24 orders of a 4-card Fisher–Yates shuffle by its draws: entry `(j3 * 3 + j2) * 2 +
/// coin` (`j3` below 4, `j2` below 3, the last step's coin) holds in byte `i` the place the
/// card at place `i` comes from, after the swaps `(3, j3)`, `(2, j2)` and `(0, 1)` if `coin`.
#[cfg(any(target_arch = "x86_64", test))]
pub(crate) static SHUFFLE4: [u32; 24] = {
    let mut t = [0u32; 24];
    let mut e = 0;
    while e < 24 {
        let (j3, j2, coin) = (e / 6, e / 2 % 3, e % 2);
        let mut from = [0u8, 1, 2, 3];
        let x = from[3];
        from[3] = from[j3];
        from[j3] = x;
        let x = from[2];
        from[2] = from[j2];
        from[j2] = x;
        if coin == 1 {
            from = [from[1], from[0], from[2], from[3]];
        }
        t[e] = u32::from_le_bytes(from);
        e += 1;
    }
    t
};

/// Fisher–Yates' last step: the first two cards swapped if `coin`, by a mask rather than a
/// branch (the coin is a coin toss: a branch on it is mispredicted every other time).
#[inline(always)]
fn swap_first_two_if(s: &mut [u8], coin: bool) {
    let (a, b) = (s[0], s[1]);
    let m = u8::from(coin).wrapping_neg() & (a ^ b);
    s[0] = a ^ m;
    s[1] = b ^ m;
}

/// The random draws a battle makes, whatever makes them: [`GameRng`] in every game played, or
/// a scripted source that forces each draw's outcome (the exact solver enumerates every outcome
/// of every draw with its probability that way). The general battle is generic over it and
/// monomorphised, so a game played with [`GameRng`] runs the same code as before it existed.
///
/// Every draw is exactly uniform over its outcomes (or exactly `threshold / 2^64` for
/// [`chance`](Draws::chance)): that is what lets a scripted source give each outcome its
/// probability.
pub trait Draws {
    /// Uniform in `0..n`, `n ≥ 1`.
    fn below(&mut self, n: u32) -> u32;
    /// One fair bit.
    fn bit(&mut self) -> bool;
    /// A uniformly random order of `cards` (every permutation equally likely).
    fn shuffle(&mut self, cards: &mut [u8]);
    /// True with probability `threshold / 2^64` (`speed`'s grab).
    fn chance(&mut self, threshold: u64) -> bool;
}

impl Draws for GameRng {
    #[inline(always)]
    fn below(&mut self, n: u32) -> u32 {
        GameRng::below(self, n)
    }

    #[inline(always)]
    fn bit(&mut self) -> bool {
        GameRng::bit(self)
    }

    #[inline(always)]
    fn shuffle(&mut self, cards: &mut [u8]) {
        GameRng::shuffle(self, cards)
    }

    /// The next 64 bits below the threshold: the draw the engine has always made.
    #[inline(always)]
    fn chance(&mut self, threshold: u64) -> bool {
        self.next_u64() < threshold
    }
}

/// rand_pcg's multiplier for `Pcg64Mcg` (`Mcg128Xsl64`), and its square: a step is
/// `state ← state·M`, then the output of the new state.
const PCG_MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;
const PCG_MULTIPLIER_2: u128 = PCG_MULTIPLIER.wrapping_mul(PCG_MULTIPLIER);

/// rand_pcg's output function for `Pcg64Mcg`: xorshift low, random rotation.
#[inline(always)]
fn output_xsl_rr(state: u128) -> u64 {
    let rot = (state >> 122) as u32;
    (((state >> 64) as u64) ^ (state as u64)).rotate_right(rot)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shuffle one draw at a time, through the public draws.
    fn reference_shuffle(rng: &mut GameRng, s: &mut [u8]) {
        let n = s.len();
        if n < 2 {
            return;
        }
        for i in (2..n).rev() {
            let j = rng.below(i as u32 + 1) as usize;
            s.swap(i, j);
        }
        if rng.bit() {
            s.swap(0, 1);
        }
    }

    /// Mixed draws: the fast shuffle must leave every card and every later draw as the
    /// reference does, whatever half-word or bit is pending when it starts.
    fn same_as_reference(id: GameSeed, sizes: &[usize]) {
        let (mut a, mut b) = (GameRng::new(id), GameRng::new(id));
        for (step, &n) in sizes.iter().enumerate() {
            let mut x: Vec<u8> = (0..n).map(|c| c as u8).collect();
            let mut y = x.clone();
            a.shuffle(&mut x);
            reference_shuffle(&mut b, &mut y);
            assert_eq!(x, y, "{id:?}, shuffle {step} of {n} cards");
            if step % 3 == 1 {
                assert_eq!(a.below(7), b.below(7));
            }
            if step % 4 == 2 {
                assert_eq!(a.bit(), b.bit());
            }
        }
        assert_eq!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn word_shuffle_equals_the_shuffle() {
        for g in 0..2_000 {
            let (mut a, mut b) = (
                GameRng::new(GameSeed::new(3, 2, g)),
                GameRng::new(GameSeed::new(3, 2, g)),
            );
            // A pending half-word or bit on odd games.
            if g % 2 == 1 {
                assert_eq!(a.below(5), b.below(5));
                assert_eq!(a.bit(), b.bit());
            }
            for n in 0..=8 {
                let cards: [u8; 8] =
                    std::array::from_fn(|i| (i as u8 * 7).wrapping_add(g as u8) | 0x80);
                let mut x = cards;
                a.shuffle(&mut x[..n]);
                let w = b.shuffle_word(u64::from_le_bytes(cards), n);
                assert_eq!(w.to_le_bytes(), x, "game {g}, {n} cards");
            }
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn fast_shuffle_equals_one_draw_at_a_time() {
        let sizes: Vec<usize> = (0..60).chain([52, 104, 255, 256, 10, 10, 3]).collect();
        for g in 0..300 {
            same_as_reference(GameSeed::new(7, 1, g), &sizes);
        }
    }

    /// Deals whose 52-card shuffle meets a draw with a low half below its bound (found by a
    /// search over game indices of seed 0): the fast loop hands those draws to `below`.
    #[test]
    fn possible_rejections_are_left_to_below() {
        for (g, draw, bound) in [
            (4_202_571u64, 0u64, 52u64),
            (4_104_780, 31, 21),
            (6_323_860, 40, 12),
        ] {
            let mut rng = GameRng::new(GameSeed::new(0, 0, g));
            let words: Vec<u64> = (0..=draw / 2).map(|_| rng.next_u64()).collect();
            let half = (words[(draw / 2) as usize] >> (32 * (draw % 2))) as u32;
            assert!((u64::from(half) * bound) as u32 as u64 <= bound);
            same_as_reference(GameSeed::new(0, 0, g), &[52, 52, 10]);
        }
    }

    /// A shuffle that starts on a pending half its first draw rejects: `below` takes a new
    /// step and leaves its upper half pending, which the next draw must take (as one draw at a
    /// time takes it) before the long shuffle's steps two at a time begin.
    #[test]
    fn a_rejected_first_draw_on_a_pending_half() {
        for n in [7usize, 9, 10, 13, 26, 52] {
            for g in 0..50 {
                let mut a = GameRng::new(GameSeed::new(5, 1, g));
                // A pending half of 0: `0 · n` has a low half of 0, below `2^32 mod n` for
                // every bound that is not a power of two.
                (a.half, a.has_half) = (0, true);
                assert!(!n.is_power_of_two());
                let mut b = a.clone();
                let mut x: Vec<u8> = (0..n as u8).collect();
                let mut y = x.clone();
                a.shuffle(&mut x);
                reference_shuffle(&mut b, &mut y);
                assert_eq!(x, y, "{n} cards, game {g}");
                assert_eq!((a.below(7), a.next_u64()), (b.below(7), b.next_u64()));
            }
        }
    }

    /// The engine's draws written plainly on rand_pcg's `Pcg64Mcg` itself, as the module's
    /// comment describes them: the reference for every fast path over the generator.
    struct Plain {
        pcg: Pcg64Mcg,
        /// The word bits are taken from, lowest first, and how many are left in it.
        word: u64,
        left: u32,
        half: Option<u32>,
    }

    impl Plain {
        fn new(id: GameSeed) -> Plain {
            let hi = splitmix64(splitmix64(splitmix64(id.seed) ^ id.variant) ^ id.game);
            let lo = splitmix64(hi ^ 0x9E37_79B9_7F4A_7C15);
            let pcg = Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo));
            Plain {
                pcg,
                word: 0,
                left: 0,
                half: None,
            }
        }

        fn next_u32(&mut self) -> u32 {
            self.half.take().unwrap_or_else(|| {
                let x = self.pcg.next_u64();
                self.half = Some((x >> 32) as u32);
                x as u32
            })
        }

        fn below(&mut self, n: u32) -> u32 {
            let threshold = n.wrapping_neg() % n;
            loop {
                let m = u64::from(self.next_u32()) * u64::from(n);
                if m as u32 >= threshold {
                    return (m >> 32) as u32;
                }
            }
        }

        fn bit(&mut self) -> bool {
            if self.left == 0 {
                (self.word, self.left) = (self.pcg.next_u64(), 64);
            }
            let b = self.word & 1 != 0;
            (self.word, self.left) = (self.word >> 1, self.left - 1);
            b
        }

        /// A 4-card shuffle's order as `shuffle4_order` gives it (byte `i`: where the card
        /// at place `i` comes from).
        fn order4(&mut self) -> [u8; 4] {
            let (j3, j2) = (self.below(4) as usize, self.below(3) as usize);
            let mut y = [0u8, 1, 2, 3];
            y.swap(3, j3);
            y.swap(2, j2);
            if self.bit() {
                y.swap(0, 1);
            }
            y
        }
    }

    /// Every draw of the engine, fast paths included (the long shuffle, the paired draws, the
    /// 4-card order, a speed battle's), mixed in many orders, gives what the plain draws on
    /// rand_pcg's generator give, and leaves it where they leave it; the bit buffer runs out
    /// and is refilled many times.
    #[test]
    fn the_draws_are_those_on_rand_pcgs_generator() {
        for g in 0..2_000u64 {
            let id = GameSeed::new(21, 5, g);
            let (mut fast, mut plain) = (GameRng::new(id), Plain::new(id));
            for step in 0..300u64 {
                match (g + step * 7) % 8 {
                    0 => {
                        let n = 2 + ((g * 31 + step * 13) % 60) as usize;
                        let mut x: Vec<u8> = (0..n as u8).collect();
                        let mut y = x.clone();
                        fast.shuffle(&mut x);
                        for i in (2..n).rev() {
                            y.swap(i, plain.below(i as u32 + 1) as usize);
                        }
                        if plain.bit() {
                            y.swap(0, 1);
                        }
                        assert_eq!(x, y, "{id:?}, step {step}: {n} cards");
                    }
                    1 => assert_eq!(fast.below(13), plain.below(13)),
                    2 | 6 => assert_eq!(fast.bit(), plain.bit()),
                    3 => assert_eq!(fast.next_u64(), plain.pcg.next_u64()),
                    4 => {
                        let n = [3, 52, (1 << 31) + 5, u32::MAX][(step % 4) as usize];
                        let want = (plain.below(n), plain.below(4));
                        assert_eq!(fast.below_pair(n, 4), want, "{id:?}, step {step}");
                    }
                    5 => {
                        let mut bits = fast.take_bits();
                        let order = fast.shuffle4_order(&mut bits).to_le_bytes();
                        fast.put_bits(bits);
                        assert_eq!(order, plain.order4(), "{id:?}, step {step}");
                    }
                    _ => {
                        // Thresholds that grab never, sometimes, often and always.
                        let threshold =
                            [0, u64::MAX / 10, u64::MAX / 2, u64::MAX][(step % 4) as usize];
                        let tie = (step / 4 + g) % 3 == 0;
                        let grabbed = plain.pcg.next_u64() < threshold;
                        let want = (!tie || grabbed).then(|| plain.order4());
                        let mut bits = fast.take_bits();
                        let (got, order) = fast.grab_and_shuffle4(threshold, tie, &mut bits);
                        fast.put_bits(bits);
                        let order = order.map(u32::to_le_bytes);
                        assert_eq!((got, order), (grabbed, want), "{id:?}, step {step}");
                    }
                }
            }
            assert_eq!(fast.below(7), plain.below(7));
            assert_eq!(fast.next_u64(), plain.pcg.next_u64());
        }
    }

    /// The chain as the module's comment writes it, and the first half kept from one game to
    /// the next of a variant (as `Engine` keeps it), give every game the same generator.
    #[test]
    fn kept_variant_links_give_the_documented_chain() {
        let mut kept = VariantSeed::new(0, 0);
        for (seed, variant) in [
            (1, 0),
            (1, 0),
            (1, 7),
            (2, 7),
            (0, 0),
            (u64::MAX, 3),
            (1, 0),
        ] {
            for game in [0, 1, 99, u64::MAX] {
                let id = GameSeed::new(seed, variant, game);
                let a = splitmix64(seed);
                let b = splitmix64(a ^ variant);
                let hi = splitmix64(b ^ game);
                let lo = splitmix64(hi ^ 0x9E37_79B9_7F4A_7C15);
                let mut documented = Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo));
                kept = kept.for_game(id);
                let mut fast = GameRng::of_game(kept, game);
                let mut plain = GameRng::new(id);
                for _ in 0..3 {
                    let x = documented.next_u64();
                    assert_eq!(fast.next_u64(), x, "{id:?}");
                    assert_eq!(plain.next_u64(), x, "{id:?}");
                }
            }
        }
    }

    /// The 4-card order from the table is the 4-card word shuffle's, with the same draws left
    /// behind, whatever half-word or bit is pending.
    #[test]
    fn table_order_of_four_equals_the_word_shuffle() {
        for g in 0..5_000 {
            let id = GameSeed::new(9, 1, g);
            let (mut a, mut b) = (GameRng::new(id), GameRng::new(id));
            for step in 0..40u64 {
                if step % 5 == g % 5 {
                    assert_eq!(a.below(13), b.below(13));
                }
                if step % 3 == g % 3 {
                    assert_eq!(a.bit(), b.bit());
                }
                let w = 0x4433_2211u64.wrapping_mul(step + 1) & 0xFFFF_FFFF;
                let expected = a.shuffle_word(w, 4);
                let mut bits = b.take_bits();
                let order = b.shuffle4_order(&mut bits).to_le_bytes();
                b.put_bits(bits);
                let got = u64::from_le_bytes(std::array::from_fn(|i| {
                    if i < 4 {
                        (w >> (8 * order[i])) as u8
                    } else {
                        0
                    }
                }));
                assert_eq!(got, expected, "{id:?}, step {step}");
            }
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    /// Two draws at once are two draws in turn, whatever half is pending, rejections
    /// included (large bounds reject often).
    #[test]
    fn two_draws_at_once_are_two_in_turn() {
        for g in 0..3_000 {
            let id = GameSeed::new(4, 4, g);
            let (mut a, mut b) = (GameRng::new(id), GameRng::new(id));
            for step in 0..30u32 {
                let n = match (g + u64::from(step)) % 4 {
                    0 => 1 + step % 8,
                    1 => 3,
                    2 => (1 << 31) + 1 + step,
                    _ => u32::MAX - step,
                };
                if step % 3 == (g % 3) as u32 {
                    assert_eq!(a.below(7), b.below(7));
                }
                // A second bound of its own (equal to the first every other step).
                let m = if step % 2 == 0 { n } else { (n / 2).max(1) };
                let first = a.below(n);
                assert_eq!(
                    b.below_pair(n, m),
                    (first, a.below(m)),
                    "{id:?}, step {step}, bounds {n} and {m}"
                );
                if step % 4 == 1 {
                    assert_eq!(a.bit(), b.bit());
                }
            }
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }
}
