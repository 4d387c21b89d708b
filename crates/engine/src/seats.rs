//! The card layout of the specialised loops: every seat's cards in one buffer.
//!
//! Seat `p` owns the stretch `buf[p * cap .. (p + 1) * cap]`, a ring of `cap` bytes (a power of
//! two at least the deck). Its stack lies at ring positions `h .. h + l` (top first) and, under
//! two-pile rules, its won pile right behind it at `h + l .. h + l + m`: turning the won pile
//! over into the stack is `l = m, m = 0`, and no card moves. Cards won under one pile go behind
//! the stack (`l` grows), under two piles behind the won pile (`m` grows): either way at
//! `h + l + m`. Positions only grow and are masked on access; the vector block loop instead
//! slides a stack back to the start of its stretch, so that it never wraps (decks of up to
//! [`SMALL_DECK`] cards get stretches of [`SMALL_CAP`] bytes for that).

use crate::cycle::Position;
use crate::observe::{Seen, View};
use crate::rng::Draws;
use crate::rules::{OnEmpty, Rules};
use crate::state::{Holdings, MAX_HAND, MAX_PLAYERS, State};

/// Decks of up to this many cards get the fixed stretch [`SMALL_CAP`].
pub(crate) const SMALL_DECK: usize = 256;
/// The stretch of each seat for small decks: room for a stack of [`SMALL_DECK`] cards that the
/// block loop lets slide forward up to [`SLIDE`], plus a 64-byte store past its tail.
pub(crate) const SMALL_CAP: usize = 2048;
/// The block loop moves a stack back to the start of its stretch once its head reaches this.
pub(crate) const SLIDE: usize = 1024;

#[derive(Clone, Debug)]
pub(crate) struct Seats {
    buf: Box<[u8]>,
    cap: usize,
    /// Seats at the table.
    pub n: usize,
    /// Head (ring position of the top card), stack length and won-pile length per seat.
    pub h: [usize; MAX_PLAYERS],
    pub l: [usize; MAX_PLAYERS],
    pub m: [usize; MAX_PLAYERS],
    pub hands: [[u8; MAX_HAND]; MAX_PLAYERS],
    pub hand_len: [u8; MAX_PLAYERS],
    pub in_game: u8,
    /// Wars won per seat; counted only under `wars_to_win`.
    pub wars_won: [u32; MAX_PLAYERS],
    /// `on_empty` under two piles: whether the won pile can become the stack, and whether it is
    /// shuffled first.
    pile_feeds: bool,
    pile_shuffles: bool,
    two_pile: bool,
    /// Whether this CPU deals by byte permutation (two seats, [`split::deal_two`]; three or
    /// four, [`split::deal_one_chunk`]): asked once here rather than at every deal.
    permutes: bool,
    /// Whether the table loop's two-seat hand runs may use the block loop's vector code
    /// ([`crate::block::hand_battles`]): the CPU has it, unless a test or `bench --portable`
    /// turned it off.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    vectors: bool,
    /// Blocks of hand battles played with that code since these seats were made (a check
    /// for the tests that the vector path runs).
    hand_blocks: u64,
    /// Those of them that made Brent's compare (loops looked for, or the check past the
    /// safety cap; not a replay's).
    looking_blocks: u64,
    /// Those of them laid one battle at a time in place (`block::hand_battles_in_place`).
    in_place_blocks: u64,
    /// Whether the table loop's two-seat hand runs may lay blocks of battles in place with
    /// the code for every CPU ([`crate::block::hand_battles_laid`]) where the vector code is
    /// not used: unless a test or `bench --portable` turned it off.
    lays: bool,
    /// Blocks of hand battles played with that code since these seats were made.
    laid_blocks: u64,
    /// Rounds of war the table loop's runs played on their lanes since these seats were made
    /// (a check for the tests that they run).
    lane_wars: u64,
    /// Prizes the table loop's runs played without since these seats were made: a seat down
    /// to its last card, or a short hand's supply out (a check for the tests that they run).
    bare_prizes: u64,
    /// Won piles shuffled into a stack since the game was dealt or loaded (not part of the
    /// state).
    shuffles: u64,
}

impl Seats {
    pub fn new(r: &Rules) -> Seats {
        let total = r.cards.total();
        let cap = if total <= SMALL_DECK {
            SMALL_CAP
        } else {
            total.next_power_of_two()
        };
        Seats {
            buf: vec![0; r.players * cap].into_boxed_slice(),
            cap,
            n: r.players,
            h: [0; MAX_PLAYERS],
            l: [0; MAX_PLAYERS],
            m: [0; MAX_PLAYERS],
            hands: [[0; MAX_HAND]; MAX_PLAYERS],
            hand_len: [0; MAX_PLAYERS],
            in_game: 0,
            wars_won: [0; MAX_PLAYERS],
            pile_feeds: matches!(r.two_pile, Some(OnEmpty::TurnOver | OnEmpty::Shuffle)),
            pile_shuffles: r.two_pile == Some(OnEmpty::Shuffle),
            two_pile: r.two_pile.is_some(),
            #[cfg(target_arch = "x86_64")]
            permutes: split::available(),
            #[cfg(not(target_arch = "x86_64"))]
            permutes: false,
            vectors: crate::block::available(),
            hand_blocks: 0,
            looking_blocks: 0,
            in_place_blocks: 0,
            lays: true,
            laid_blocks: 0,
            lane_wars: 0,
            bare_prizes: 0,
            shuffles: 0,
        }
    }

    /// Whether the table loop's two-seat hand runs use the block loop's vector code.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn vectors(&self) -> bool {
        self.vectors
    }

    /// Blocks of hand battles played with the vector code: [`Seats::vectors`]' count.
    pub(crate) fn hand_blocks(&self) -> u64 {
        self.hand_blocks
    }

    /// Those of [`Seats::hand_blocks`] that made Brent's compare.
    pub(crate) fn looking_blocks(&self) -> u64 {
        self.looking_blocks
    }

    /// Those of [`Seats::hand_blocks`] that laid their battles in place.
    pub(crate) fn in_place_blocks(&self) -> u64 {
        self.in_place_blocks
    }

    /// Whether the table loop's two-seat hand runs lay blocks in place where they do not use
    /// the vector code.
    pub(crate) fn lays(&self) -> bool {
        self.lays
    }

    /// Blocks of hand battles laid in place without the vector code: [`Seats::lays`]' count.
    pub(crate) fn laid_blocks(&self) -> u64 {
        self.laid_blocks
    }

    /// Rounds of war played on the table loop's lanes.
    pub(crate) fn lane_wars(&self) -> u64 {
        self.lane_wars
    }

    /// Counts `n` more rounds of war played on the lanes.
    pub(crate) fn count_lane_wars(&mut self, n: u64) {
        self.lane_wars += n;
    }

    /// Prizes not given in the table loop's runs.
    pub(crate) fn bare_prizes(&self) -> u64 {
        self.bare_prizes
    }

    /// Counts `n` more prizes not given in a run.
    pub(crate) fn count_bare_prizes(&mut self, n: u64) {
        self.bare_prizes += n;
    }

    /// Counts `n` more blocks of hand battles played with the vector code, `looking` where
    /// they made Brent's compare, `in_place` of them laid in place; and `laid` blocks laid
    /// in place without it.
    pub(crate) fn count_hand_blocks(&mut self, n: u64, in_place: u64, laid: u64, looking: bool) {
        self.hand_blocks += n;
        self.in_place_blocks += in_place;
        self.looking_blocks += if looking { n } else { 0 };
        self.laid_blocks += laid;
    }

    /// Lets the table loop's two-seat hand runs use the block loop's vector code where this
    /// CPU has it and lay blocks in place elsewhere (`on`), or neither: every battle one by
    /// one.
    pub(crate) fn use_vectors(&mut self, on: bool) {
        self.vectors = on && crate::block::available();
        self.lays = on;
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    /// The whole buffer, for the loops that address it themselves.
    pub fn buf_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }

    /// Takes the dealt position of the general loop's state (stacks and hands; nothing won yet).
    pub fn load(&mut self, st: &State) {
        for p in 0..self.n {
            let stack = &st.stacks[p];
            let (front, back) = stack.as_slices();
            self.put(p, 0, front);
            self.put(p, front.len(), back);
            self.h[p] = 0;
            self.l[p] = stack.len();
            self.m[p] = 0;
        }
        self.hands = st.hands;
        self.hand_len = st.hand_len;
        self.in_game = st.in_game;
        self.wars_won = st.wars_won;
        self.shuffles = st.shuffles;
    }

    /// Deals `dealt` as [`load`](Self::load) takes a normal deal: card `i` to seat `i mod n`,
    /// the first dealt on top; nothing in hand or won, every seat in the game.
    pub fn deal(&mut self, dealt: &[u8]) {
        let n = self.n;
        // Divided by a constant for each table size: a division by `n` waited for the divider
        // in every deal (a third of this function's samples).
        let each = match n {
            2 => dealt.len() / 2,
            3 => dealt.len() / 3,
            _ => dealt.len() / 4,
        };
        debug_assert!((2..=4).contains(&n));
        debug_assert!(each >= 1 && each * n == dealt.len() && each <= self.cap);
        match n {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `permutes` is what `available()` said.
            2 if self.permutes => unsafe { split::deal_two(&mut self.buf, self.cap, dealt) },
            2 => deal_into::<2>(&mut self.buf, self.cap, dealt),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above; at most 64 cards.
            3 if self.permutes && dealt.len() <= 64 => unsafe {
                split::deal_one_chunk::<3>(&mut self.buf, self.cap, dealt)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above; at most 64 cards.
            4 if self.permutes && dealt.len() <= 64 => unsafe {
                split::deal_one_chunk::<4>(&mut self.buf, self.cap, dealt)
            },
            3 => deal_into::<3>(&mut self.buf, self.cap, dealt),
            _ => deal_into::<4>(&mut self.buf, self.cap, dealt),
        }
        for p in 0..n {
            self.h[p] = 0;
            self.l[p] = each;
            self.m[p] = 0;
        }
        self.hand_len = [0; MAX_PLAYERS];
        self.in_game = ((1u16 << n) - 1) as u8;
        self.wars_won = [0; MAX_PLAYERS];
        self.shuffles = 0;
    }

    /// After [`deal`](Self::deal), fills each hand of `hand` cards from the top of its stack, as
    /// the general loop's deal does ([`State::deal_in`]); the bytes past a hand are zero.
    pub fn deal_hands(&mut self, hand: usize) {
        debug_assert!(hand <= MAX_HAND);
        self.hands = [[0; MAX_HAND]; MAX_PLAYERS];
        for p in 0..self.n {
            let take = hand.min(self.l[p]);
            // (A fresh deal starts at ring position 0.)
            self.hands[p][..take].copy_from_slice(&self.buf[p * self.cap..][..take]);
            self.h[p] = take;
            self.l[p] -= take;
            self.hand_len[p] = take as u8;
        }
    }

    #[inline(always)]
    fn index(&self, p: usize, pos: usize) -> usize {
        p * self.cap + (pos & (self.cap - 1))
    }

    /// The card at ring position `pos` of seat `p`.
    #[inline(always)]
    pub fn get(&self, p: usize, pos: usize) -> u8 {
        self.buf[self.index(p, pos)]
    }

    #[inline(always)]
    pub fn set(&mut self, p: usize, pos: usize, card: u8) {
        let i = self.index(p, pos);
        self.buf[i] = card;
    }

    /// Takes seats `pair` of a larger table (both in the game) as seats 0 and 1, each stack
    /// and won pile from ring position 0: the position of the game's last two seats for the
    /// two-seat loops. Hands are not carried over (the two-seat loops play none).
    pub fn take_pair(&mut self, from: &Seats, pair: [usize; 2]) {
        debug_assert!(self.n == 2 && self.cap == from.cap);
        debug_assert!(
            pair.iter()
                .all(|&p| from.in_game & (1 << p) != 0 && from.hand_len[p] == 0)
        );
        for (i, &p) in pair.iter().enumerate() {
            self.copy_cards(i, from, p);
            self.l[i] = from.l[p];
            self.m[i] = from.m[p];
            self.wars_won[i] = from.wars_won[p];
        }
        self.hand_len = [0; MAX_PLAYERS];
        self.in_game = 0b11;
        self.shuffles = from.shuffles;
    }

    /// Seat `p`'s cards (stack and won pile) of `from` as seat `to`'s here, from ring position
    /// 0 (the head set to it; the lengths are the caller's).
    fn copy_cards(&mut self, to: usize, from: &Seats, p: usize) {
        let (h, len) = (from.h[p], from.l[p] + from.m[p]);
        match from.stretch(p, h, h + len) {
            Some(cards) => self.put(to, 0, cards),
            None => {
                for k in 0..len {
                    self.set(to, k, from.get(p, h + k));
                }
            }
        }
        self.h[to] = 0;
    }

    /// Seat `p`'s cards at ring positions `from .. to`, if they lie in one piece (they are
    /// split only where the ring wraps round).
    #[inline]
    pub fn stretch(&self, p: usize, from: usize, to: usize) -> Option<&[u8]> {
        let start = from & (self.cap - 1);
        let len = to - from;
        (start + len <= self.cap).then(|| {
            let at = p * self.cap + start;
            &self.buf[at..at + len]
        })
    }

    /// Writes `cards` at seat `p`'s ring positions from `pos` on.
    #[inline]
    fn put(&mut self, p: usize, pos: usize, cards: &[u8]) {
        let start = pos & (self.cap - 1);
        if start + cards.len() <= self.cap {
            let at = p * self.cap + start;
            self.buf[at..at + cards.len()].copy_from_slice(cards);
        } else {
            for (i, &c) in cards.iter().enumerate() {
                self.set(p, pos + i, c);
            }
        }
    }

    /// The first `k` cards of the word `cards` (card `i` in byte `i`) won by seat `p`, as
    /// [`Holdings::give`] gives them.
    #[inline(always)]
    pub fn give_word(&mut self, p: usize, cards: u64, k: usize) {
        let held = self.l[p] + self.m[p];
        self.put_few(p, self.h[p] + held, held, cards, k);
        if self.two_pile {
            self.m[p] += k;
        } else {
            self.l[p] += k;
        }
    }

    /// The first `k` cards of the word `cards` at seat `p`'s ring position `pos`, the tail of
    /// the `held` cards the seat has: one 8-byte store where the ring has room past the tail
    /// (the bytes after the `k`th land where no card lies), card by card otherwise.
    #[inline(always)]
    pub fn put_few(&mut self, p: usize, pos: usize, held: usize, cards: u64, k: usize) {
        let start = pos & (self.cap - 1);
        if start + 8 <= self.cap && held + 8 <= self.cap {
            let at = p * self.cap + start;
            self.buf[at..at + 8].copy_from_slice(&cards.to_le_bytes());
        } else {
            self.put_cold(p, pos, &cards.to_le_bytes()[..k]);
        }
    }

    /// [`put`](Self::put) out of line, so that the compiler does not fold a caller's fixed
    /// store into the same call to `memcpy`.
    #[cold]
    #[inline(never)]
    fn put_cold(&mut self, p: usize, pos: usize, cards: &[u8]) {
        self.put(p, pos, cards);
    }

    /// The won pile becomes the stack (shuffled first under `on_empty = shuffle`).
    #[cold]
    pub fn turn_over<D: Draws>(&mut self, p: usize, rng: &mut D) {
        debug_assert!(self.pile_feeds && self.l[p] == 0 && self.m[p] > 0);
        self.l[p] = self.m[p];
        self.m[p] = 0;
        if self.pile_shuffles {
            self.shuffles += 1;
            let cap = self.cap;
            let start = self.h[p] & (cap - 1);
            let stretch = &mut self.buf[p * cap..(p + 1) * cap];
            if shuffle_pile(stretch, start, self.l[p], rng) {
                self.h[p] = 0;
            }
        }
    }

    /// Seat `p`'s won pile goes under the one card left in its stack: the cards, in their
    /// order, and the random draws of a shuffle are those of [`turn_over`](Self::turn_over)
    /// once that card is drawn. A loop whose battle draws a prize and then a face-up card
    /// turns the pile over before the battle, and plays it without a turn-over in between.
    #[cold]
    pub fn turn_over_under<D: Draws>(&mut self, p: usize, rng: &mut D) {
        debug_assert!(self.pile_feeds && self.l[p] == 1 && self.m[p] > 0);
        self.h[p] += 1;
        self.l[p] = 0;
        self.turn_over(p, rng);
        // The card lies just before the pile's top: where it was, or, if a shuffle rotated
        // a pile that wrapped round the ring to position 0, at the ring's last position.
        self.h[p] = self.h[p].checked_sub(1).unwrap_or(self.cap - 1);
        self.l[p] += 1;
    }

    /// Counts `n` won piles shuffled into a stack by a loop that turns piles over itself.
    pub fn count_shuffles(&mut self, n: u64) {
        self.shuffles += n;
    }

    /// Whether seat `p`'s cards equal `other`'s seat `p`, in order.
    #[inline]
    pub fn same_cards(&self, other: &Seats, p: usize) -> bool {
        let len = self.l[p] + self.m[p];
        if len != other.l[p] + other.m[p] {
            return false;
        }
        let (h, oh) = (self.h[p], other.h[p]);
        match (self.stretch(p, h, h + len), other.stretch(p, oh, oh + len)) {
            (Some(a), Some(b)) => a == b,
            _ => (0..len).all(|i| self.get(p, h + i) == other.get(p, oh + i)),
        }
    }
}

/// Shuffles the `len` cards from position `start` of a seat's ring `stretch` where they lie;
/// a pile that wraps round the ring is first rotated to the start of the stretch, and then
/// the answer is `true` (the pile's top is now position 0). The won pile turned over under
/// `on_empty = shuffle`, by the general draw ([`Seats::turn_over`]) and the table loop's runs.
pub(crate) fn shuffle_pile<D: Draws>(
    stretch: &mut [u8],
    start: usize,
    len: usize,
    rng: &mut D,
) -> bool {
    if start + len <= stretch.len() {
        rng.shuffle(&mut stretch[start..start + len]);
        false
    } else {
        stretch.rotate_left(start);
        rng.shuffle(&mut stretch[..len]);
        true
    }
}

/// Card `i` of `dealt` to the `i / N`th place of seat `i mod N`'s stretch (`cap` bytes each):
/// a round of the deal at a time, so that the stores need no stride of their own; for two
/// seats, eight cards at a time, split into each seat's four in a word (where the CPU has a
/// byte permutation, [`split::deal_two`] deals two seats instead, and
/// [`split::deal_one_chunk`] up to 64 cards to three or four).
fn deal_into<const N: usize>(buf: &mut [u8], cap: usize, dealt: &[u8]) {
    let each = dealt.len() / N;
    let mut rest = buf;
    let mut stretches: [&mut [u8]; N] = std::array::from_fn(|_| {
        let (stretch, after) = std::mem::take(&mut rest).split_at_mut(cap);
        rest = after;
        &mut stretch[..each]
    });
    let mut done = 0;
    if N == 2 {
        // Even bytes of a word to one half, odd to the other, halving the lanes twice.
        let evens = |x: u64| {
            let x = x & 0x00FF_00FF_00FF_00FF;
            let x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF;
            ((x | x >> 16) as u32).to_le_bytes()
        };
        for (k, eight) in dealt.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(eight.try_into().expect("eight cards"));
            stretches[0][4 * k..4 * k + 4].copy_from_slice(&evens(x));
            stretches[1][4 * k..4 * k + 4].copy_from_slice(&evens(x >> 8));
        }
        done = dealt.len() / 8 * 4;
    }
    for (k, round) in dealt.chunks_exact(N).enumerate().skip(done) {
        for (stretch, &card) in stretches.iter_mut().zip(round) {
            stretch[k] = card;
        }
    }
}

/// The deals by byte permutation with AVX-512 (x86-64, chosen at run time).
#[cfg(target_arch = "x86_64")]
mod split {
    use std::arch::x86_64::*;

    /// Lane `i < 32`: byte `2i` (seat 0's cards); lane `32 + i`: byte `2i + 1` (seat 1's).
    static SPLIT: [u8; 64] = {
        let mut a = [0u8; 64];
        let mut i = 0;
        while i < 32 {
            a[i] = 2 * i as u8;
            a[32 + i] = 2 * i as u8 + 1;
            i += 1;
        }
        a
    };

    /// Whether this CPU has every instruction [`deal_two`] and [`deal_one_chunk`] use.
    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vbmi")
    }

    /// [`super::deal_into`]`::<2>`: 64 dealt cards at a time, the even ones to seat 0's
    /// stretch and the odd ones to seat 1's, by one permutation and two masked stores.
    ///
    /// # Safety
    /// The CPU must have the features enabled here ([`available`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
    pub(super) unsafe fn deal_two(buf: &mut [u8], cap: usize, dealt: &[u8]) {
        let each = dealt.len() / 2;
        assert!(2 * each == dealt.len() && each <= cap && 2 * cap <= buf.len());
        let (seat0, seat1) = buf.split_at_mut(cap);
        // SAFETY: 64 bytes.
        let split = unsafe { _mm512_loadu_si512(SPLIT.as_ptr().cast()) };
        for (k, chunk) in dealt.chunks(64).enumerate() {
            // A chunk holds an even number of cards (every one but the last holds 64).
            let n = chunk.len();
            let load = u64::MAX >> (64 - n);
            let store = u32::MAX >> (32 - n / 2);
            // SAFETY: the masks cover the chunk's `n` cards and each seat's `n / 2` places
            // from `32 k`, which end at `each ≤ cap`, inside the seat's stretch.
            unsafe {
                let cards = _mm512_maskz_loadu_epi8(load, chunk.as_ptr().cast());
                let both = _mm512_permutexvar_epi8(split, cards);
                let to0 = seat0.as_mut_ptr().add(32 * k).cast();
                let to1 = seat1.as_mut_ptr().add(32 * k).cast();
                _mm256_mask_storeu_epi8(to0, store, _mm512_castsi512_si256(both));
                _mm256_mask_storeu_epi8(to1, store, _mm512_extracti64x4_epi64::<1>(both));
            }
        }
    }

    /// Row `p` of `ROUNDS[N - 3]`: lane `i` is byte `p + N i`, the `i`th card of seat `p` in a
    /// deal to `N` seats (a lane whose byte would lie past the 64th reads the 64th; no lane
    /// past a seat's share is stored).
    static ROUNDS: [[[u8; 64]; 4]; 2] = {
        let mut t = [[[0u8; 64]; 4]; 2];
        let mut n = 3;
        while n <= 4 {
            let mut p = 0;
            while p < n {
                let mut i = 0;
                while i < 64 {
                    let at = p + n * i;
                    t[n - 3][p][i] = if at < 64 { at as u8 } else { 63 };
                    i += 1;
                }
                p += 1;
            }
            n += 1;
        }
        t
    };

    /// [`super::deal_into`]`::<N>` for 3 or 4 seats and at most 64 cards: each seat's cards
    /// gathered by one permutation and stored by one masked store (a round of the deal at a
    /// time took a store a card).
    ///
    /// # Safety
    /// The CPU must have the features enabled here ([`available`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
    pub(super) unsafe fn deal_one_chunk<const N: usize>(buf: &mut [u8], cap: usize, dealt: &[u8]) {
        let each = dealt.len() / N;
        assert!(
            (3..=4).contains(&N)
                && each >= 1
                && dealt.len() <= 64
                && N * each == dealt.len()
                && each <= cap
                && N * cap <= buf.len()
        );
        let load = u64::MAX >> (64 - dealt.len());
        let store = u64::MAX >> (64 - each);
        // SAFETY: the load's mask covers the `dealt.len()` cards; each store's covers `each ≤
        // cap` places from the start of seat `p`'s stretch, which lies in `buf` (asserted).
        unsafe {
            let cards = _mm512_maskz_loadu_epi8(load, dealt.as_ptr().cast());
            for (p, row) in ROUNDS[N - 3].iter().enumerate().take(N) {
                let index = _mm512_loadu_si512(row.as_ptr().cast());
                let seat = _mm512_permutexvar_epi8(index, cards);
                _mm512_mask_storeu_epi8(buf.as_mut_ptr().add(p * cap).cast(), store, seat);
            }
        }
    }
}

impl Position for Seats {
    fn same(&self, o: &Seats) -> bool {
        // The counts first: they tell most positions apart.
        self.l == o.l
            && self.m == o.m
            && self.in_game == o.in_game
            && self.hand_len == o.hand_len
            && self.wars_won == o.wars_won
            && (self.hand_len == [0; MAX_PLAYERS]
                || (0..self.n).all(|p| {
                    let k = usize::from(self.hand_len[p]);
                    self.hands[p][..k] == o.hands[p][..k]
                }))
            && (0..self.n).all(|p| self.same_cards(o, p))
    }

    fn copy_from(&mut self, o: &Seats) {
        for p in 0..self.n {
            self.copy_cards(p, o, p);
        }
        self.l = o.l;
        self.m = o.m;
        self.hands = o.hands;
        self.hand_len = o.hand_len;
        self.in_game = o.in_game;
        self.wars_won = o.wars_won;
    }
}

impl Holdings for Seats {
    fn players(&self) -> usize {
        self.n
    }

    fn in_game(&self) -> u8 {
        self.in_game
    }

    fn set_in_game(&mut self, mask: u8) {
        self.in_game = mask;
    }

    #[inline]
    fn total(&self, p: usize) -> usize {
        self.l[p] + self.m[p] + usize::from(self.hand_len[p])
    }

    #[inline]
    fn hand_len(&self, p: usize) -> usize {
        usize::from(self.hand_len[p])
    }

    #[inline]
    fn supply(&self, _: &Rules, p: usize) -> usize {
        self.l[p] + if self.pile_feeds { self.m[p] } else { 0 }
    }

    #[inline]
    fn draw_down<D: Draws>(&mut self, _: &Rules, p: usize, rng: &mut D) -> u8 {
        if self.l[p] == 0 {
            self.turn_over(p, rng);
        }
        let c = self.get(p, self.h[p]);
        self.h[p] += 1;
        self.l[p] -= 1;
        c
    }

    #[inline]
    fn hand(&mut self, p: usize) -> (&mut [u8; MAX_HAND], &mut u8) {
        (&mut self.hands[p], &mut self.hand_len[p])
    }

    /// Won cards go behind everything `p` holds in its stretch: under the stack, or onto the
    /// won pile.
    #[inline]
    fn give(&mut self, _: &Rules, p: usize, cards: &[u8]) {
        self.put(p, self.h[p] + self.l[p] + self.m[p], cards);
        if self.two_pile {
            self.m[p] += cards.len();
        } else {
            self.l[p] += cards.len();
        }
    }

    /// A drawn war ends the game, and only the counts are read after it: the cards go behind
    /// everything, like won ones.
    fn take_back(&mut self, p: usize, cards: &[u8]) {
        self.put(p, self.h[p] + self.l[p] + self.m[p], cards);
        self.l[p] += cards.len();
    }

    fn forfeit(&mut self, p: usize, pot: &mut Vec<u8>) {
        let (h, len) = (self.h[p], self.l[p] + self.m[p]);
        pot.extend((h..h + len).map(|pos| self.get(p, pos)));
        pot.extend_from_slice(&self.hands[p][..usize::from(self.hand_len[p])]);
        self.h[p] += len;
        self.l[p] = 0;
        self.m[p] = 0;
        self.hand_len[p] = 0;
    }

    fn wars_won(&mut self) -> &mut [u32; MAX_PLAYERS] {
        &mut self.wars_won
    }

    fn view(&self) -> View<'_> {
        View { seen: self }
    }
}

impl Seen for Seats {
    fn players(&self) -> usize {
        self.n
    }
    fn cards(&self, p: usize) -> usize {
        Holdings::total(self, p)
    }
    fn stack(&self, p: usize) -> Vec<u8> {
        (0..self.l[p]).map(|i| self.get(p, self.h[p] + i)).collect()
    }
    fn pile(&self, p: usize) -> Vec<u8> {
        let from = self.h[p] + self.l[p];
        (0..self.m[p]).map(|i| self.get(p, from + i)).collect()
    }
    fn shuffles(&self) -> u64 {
        self.shuffles
    }
    fn hand(&self, p: usize) -> &[u8] {
        &self.hands[p][..usize::from(self.hand_len[p])]
    }
    fn in_game(&self) -> u8 {
        self.in_game
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{GameRng, GameSeed};

    /// A won pile turned over under a stack's last card ([`Seats::turn_over_under`]) gives,
    /// card for card, what the general draw gives when it draws that card and then turns the
    /// pile over, and leaves the generator where that draw does: for piles in one piece, piles
    /// that wrap round the ring (rotated before a shuffle), a card on the ring's last place,
    /// shuffled or turned over as they lie; the other seat's cards stay as they were.
    #[test]
    fn a_pile_turned_over_under_the_last_card_is_what_the_general_draw_finds() {
        for on_empty in ["turn-over", "shuffle"] {
            let pairs = [("pile", "two-pile"), ("on_empty", on_empty), ("decks", "8")];
            let r = Rules::from_pairs(pairs).unwrap();
            let mut s = Seats::new(&r);
            let cap = s.cap();
            for (k, (h, m)) in [
                (3, 40),
                (cap - 5, 40),
                (cap - 1, 30),
                (cap + 7, 9),
                (0, 200),
            ]
            .into_iter()
            .enumerate()
            {
                for p in 0..2 {
                    for i in 0..=m {
                        s.set(p, h + i, (i % 250 + 1) as u8 + p as u8);
                    }
                    (s.h[p], s.l[p], s.m[p]) = (h, 1, m);
                }
                let mut general = s.clone();
                let mut under = s.clone();
                let seed = GameSeed::new(7, 1, k as u64);
                let (mut rg, mut ru) = (GameRng::new(seed), GameRng::new(seed));
                under.turn_over_under(0, &mut ru);
                assert_eq!((under.l[0], under.m[0]), (m + 1, 0));
                let drawn: Vec<u8> = (0..=m).map(|_| general.draw_down(&r, 0, &mut rg)).collect();
                let laid: Vec<u8> = (0..=m).map(|_| under.draw_down(&r, 0, &mut ru)).collect();
                assert_eq!(drawn, laid, "{on_empty}, head {h}, pile {m}");
                assert_eq!(general.shuffles, under.shuffles);
                assert!((0..8).all(|_| rg.below(1000) == ru.below(1000)));
                let seat1 = |x: &Seats| (0..=m).map(|i| x.get(1, x.h[1] + i)).collect::<Vec<_>>();
                assert_eq!(seat1(&under), seat1(&s));
            }
        }
    }

    /// The deals by permutation put every card where the deals without do: to two seats, every
    /// even deal up to two full stretches (partial chunks of 64 included); to three or four,
    /// every deal of up to 64 cards, on stretches as short as a seat's share.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_permuted_deals_are_the_deals_by_words_and_rounds() {
        if !split::available() {
            eprintln!("no AVX-512 here: nothing to compare");
            return;
        }
        let cards = |len: usize| {
            (0..len)
                .map(|i| (i * 37 % 251) as u8 | 1)
                .collect::<Vec<u8>>()
        };
        let cap = 256;
        for len in (2..=2 * cap).step_by(2) {
            let dealt = cards(len);
            let (mut words, mut permuted) = (vec![0u8; 2 * cap], vec![0u8; 2 * cap]);
            deal_into::<2>(&mut words, cap, &dealt);
            // SAFETY: `available()` said yes.
            unsafe { split::deal_two(&mut permuted, cap, &dealt) };
            assert_eq!(words, permuted, "{len} cards");
        }
        fn compare<const N: usize>(cap: usize, cards: impl Fn(usize) -> Vec<u8>) {
            for len in (N..=64).step_by(N).filter(|&len| len / N <= cap) {
                let dealt = cards(len);
                let (mut rounds, mut permuted) = (vec![0u8; N * cap], vec![0u8; N * cap]);
                deal_into::<N>(&mut rounds, cap, &dealt);
                // SAFETY: `available()` said yes; at most 64 cards.
                unsafe { split::deal_one_chunk::<N>(&mut permuted, cap, &dealt) };
                assert_eq!(
                    rounds, permuted,
                    "{N} seats, {len} cards, stretches of {cap}"
                );
            }
        }
        for cap in [8, 16, 32, 64] {
            compare::<3>(cap, cards);
            compare::<4>(cap, cards);
        }
    }
}
