//! A fixed-capacity ring buffer of cards: a player's stack or won pile.
//!
//! The capacity is a power of two at least as large as the deck, fixed when the engine is set
//! up, so pushing never allocates and never fails.

#[derive(Clone, Debug)]
pub(crate) struct Ring {
    buf: Box<[u8]>,
    head: usize,
    len: usize,
    mask: usize,
}

impl Ring {
    pub fn with_capacity(cards: usize) -> Ring {
        let cap = cards.max(2).next_power_of_two();
        Ring {
            buf: vec![0; cap].into_boxed_slice(),
            head: 0,
            len: 0,
            mask: cap - 1,
        }
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.mask
    }

    /// The card `i` places from the top.
    #[inline(always)]
    pub fn get(&self, i: usize) -> u8 {
        debug_assert!(i < self.len);
        let s = self.slot(i);
        // SAFETY: `mask + 1 == buf.len()`, so `s <= mask` is in bounds.
        unsafe { *self.buf.get_unchecked(s) }
    }

    /// Takes the top card. The caller checks that the ring is not empty.
    #[inline(always)]
    pub fn pop_front(&mut self) -> u8 {
        debug_assert!(self.len > 0, "pop from an empty stack");
        let c = self.get(0);
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        c
    }

    /// Puts a card under the stack. Capacity covers the whole deck, so this cannot overflow.
    #[inline(always)]
    pub fn push_back(&mut self, card: u8) {
        debug_assert!(self.len <= self.mask, "ring overflow");
        let s = self.slot(self.len);
        // SAFETY: as in `get`.
        unsafe { *self.buf.get_unchecked_mut(s) = card };
        self.len += 1;
    }

    #[inline]
    pub fn extend(&mut self, cards: &[u8]) {
        for &c in cards {
            self.push_back(c);
        }
    }

    /// Puts `cards[first]`, `cards[first + step]`, … under the stack: one seat's share of a
    /// deal dealt one card at a time. The length is written once, at the end, so the writes
    /// do not wait on each other.
    #[inline]
    pub fn extend_strided(&mut self, cards: &[u8], first: usize, step: usize) {
        let mut n = 0;
        for &c in cards.iter().skip(first).step_by(step) {
            debug_assert!(self.len + n <= self.mask, "ring overflow");
            let s = self.slot(self.len + n);
            // SAFETY: as in `get`.
            unsafe { *self.buf.get_unchecked_mut(s) = c };
            n += 1;
        }
        self.len += n;
    }

    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }

    /// The cards in order, as the one or two stretches of the buffer they lie in.
    pub fn as_slices(&self) -> (&[u8], &[u8]) {
        let end = self.head + self.len;
        if end <= self.buf.len() {
            (&self.buf[self.head..end], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..end - self.buf.len()])
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.len).map(move |i| self.get(i))
    }

    /// Makes `self` hold `other`'s cards in the same order (same capacity, no allocation).
    pub fn copy_from(&mut self, other: &Ring) {
        debug_assert_eq!(self.buf.len(), other.buf.len());
        self.head = 0;
        self.len = other.len;
        for i in 0..other.len {
            self.buf[i] = other.get(i);
        }
    }

    /// The cards as one contiguous slice, top first (rotates the buffer in place).
    pub fn make_contiguous(&mut self) -> &mut [u8] {
        if self.head + self.len > self.buf.len() {
            self.buf.rotate_left(self.head);
            self.head = 0;
        }
        let (h, l) = (self.head, self.len);
        &mut self.buf[h..h + l]
    }

    pub fn same_cards(&self, other: &Ring) -> bool {
        self.len == other.len && (0..self.len).all(|i| self.get(i) == other.get(i))
    }
}
