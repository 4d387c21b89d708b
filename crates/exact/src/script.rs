//! A scripted source of draws: each draw's outcome is forced from a list of choices, so that
//! replaying one battle with every list in turn (a depth-first walk over the draws' outcomes)
//! meets every outcome of the battle once, with its probability.
//!
//! A draw's number of outcomes (its arity) is learnt when the battle makes it; the walk then
//! moves to the next list like an odometer: the last draw that has an outcome left takes its
//! next one, and the draws after it (which may differ) start again from their first.

use warlab_engine::Draws;

/// Draw sequences of one battle beyond which a state is refused (its shuffles are too long).
pub const MAX_BRANCHES: u64 = 5_000_000;

/// Forces every draw of a battle from a prefix of choices (0 past its end) and records what
/// each draw could have been.
#[derive(Default)]
pub struct Script {
    /// The choices to make, in draw order.
    forced: Vec<u32>,
    /// The draws made so far in this replay: (choice, arity).
    made: Vec<(u32, u32)>,
    /// Probability of the outcomes chosen so far.
    prob: f64,
    /// Set when a draw had more outcomes than can be enumerated (a shuffle of many cards).
    pub too_wide: Option<u128>,
    scratch: Vec<u8>,
    /// The sorted cards as (value, copies).
    runs: Vec<(u8, u64)>,
}

impl Script {
    /// Starts the walk over a new battle: the first replay takes every draw's first outcome.
    pub fn reset(&mut self) {
        self.forced.clear();
        self.begin();
    }

    /// Starts one replay with the current choices.
    pub fn begin(&mut self) {
        self.made.clear();
        self.prob = 1.0;
    }

    /// The probability of the replay just played.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    /// Moves to the next list of choices; `false` when every outcome has been played.
    pub fn advance(&mut self) -> bool {
        while let Some((choice, arity)) = self.made.pop() {
            if choice + 1 < arity {
                self.forced.clear();
                self.forced.extend(self.made.iter().map(|&(c, _)| c));
                self.forced.push(choice + 1);
                return true;
            }
        }
        false
    }

    /// The outcome of the next draw, which has `arity` equally likely outcomes.
    fn choose(&mut self, arity: u32) -> u32 {
        let choice = self.forced.get(self.made.len()).copied().unwrap_or(0);
        debug_assert!(choice < arity, "a replay draws as the one before it");
        self.made.push((choice, arity));
        self.prob /= f64::from(arity);
        choice
    }
}

impl Draws for Script {
    fn below(&mut self, n: u32) -> u32 {
        if n == 1 {
            return 0;
        }
        self.choose(n)
    }

    fn bit(&mut self) -> bool {
        self.choose(2) == 1
    }

    /// One draw over the distinct orders of the cards: every permutation being equally likely,
    /// so is every distinct order of a multiset (each stands for the same number of them).
    fn shuffle(&mut self, cards: &mut [u8]) {
        if cards.len() < 2 {
            return;
        }
        self.scratch.clear();
        self.scratch.extend_from_slice(cards);
        self.scratch.sort_unstable();
        self.runs.clear();
        for &c in &self.scratch {
            match self.runs.last_mut() {
                Some((v, n)) if *v == c => *n += 1,
                _ => self.runs.push((c, 1)),
            }
        }
        let Some(arity) = orders_of_runs(&self.runs) else {
            self.too_wide = Some(distinct_orders(&self.scratch).unwrap_or(u128::MAX));
            cards.copy_from_slice(&self.scratch);
            return;
        };
        let k = if arity == 1 { 0 } else { self.choose(arity) };
        unrank(&mut self.runs, u64::from(arity), u64::from(k), cards);
    }

    /// Two outcomes with probabilities `threshold / 2^64` and the rest; one that cannot happen
    /// is not a branch.
    fn chance(&mut self, threshold: u64) -> bool {
        let p = threshold as f64 / 18_446_744_073_709_551_616.0;
        if threshold == 0 {
            return false;
        }
        if p >= 1.0 {
            // 2^-64 away from certain: below anything the solver's residual can show.
            return true;
        }
        let choice = self.forced.get(self.made.len()).copied().unwrap_or(0);
        self.made.push((choice, 2));
        if choice == 0 {
            self.prob *= p;
            true
        } else {
            self.prob *= 1.0 - p;
            false
        }
    }
}

/// Distinct orders of the multiset `runs` ((value, copies)) when they fit a draw (`u32`).
fn orders_of_runs(runs: &[(u8, u64)]) -> Option<u32> {
    let (mut total, mut placed) = (1u64, 0u64);
    for &(_, c) in runs {
        for m in 1..=c {
            placed += 1;
            total = total.checked_mul(placed)? / m;
        }
    }
    u32::try_from(total).ok()
}

/// Distinct orders of the sorted multiset `cards`: n! / ∏ (copies of each value)!, `None`
/// beyond u128.
pub fn distinct_orders(sorted: &[u8]) -> Option<u128> {
    let mut total: u128 = 1;
    let mut placed: u128 = 0;
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j < sorted.len() && sorted[j] == sorted[i] {
            j += 1;
        }
        // Place this value's copies among the places so far: C(placed + k, k).
        for m in 1..=(j - i) as u128 {
            placed += 1;
            total = total.checked_mul(placed)? / m;
        }
        i = j;
    }
    Some(total)
}

/// The `k`-th distinct order (lexicographic) of the multiset `runs` ((value, copies), values
/// ascending, `orders` distinct orders in all), into `out`; `runs` is used up. Of the `orders`
/// orders of `m` cards, those starting with a value of `c` copies are `orders · c / m`.
fn unrank(runs: &mut [(u8, u64)], mut orders: u64, mut k: u64, out: &mut [u8]) {
    let mut m = out.len() as u64;
    for slot in out.iter_mut() {
        for (v, c) in runs.iter_mut().filter(|(_, c)| *c > 0) {
            let first = orders * *c / m;
            if k < first {
                *slot = *v;
                orders = first;
                *c -= 1;
                m -= 1;
                break;
            }
            k -= first;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_of_a_multiset() {
        assert_eq!(distinct_orders(&[1, 1, 2, 2]), Some(6));
        assert_eq!(distinct_orders(&[0, 1, 2, 3]), Some(24));
        assert_eq!(distinct_orders(&[5, 5, 5]), Some(1));
        let mut seen = std::collections::BTreeSet::new();
        for k in 0..6 {
            let mut runs = [(1, 2), (2, 2)];
            let mut out = [0u8; 4];
            unrank(&mut runs, 6, k, &mut out);
            seen.insert(out);
        }
        assert_eq!(seen.len(), 6);
        assert_eq!(seen.first(), Some(&[1, 1, 2, 2]));
    }

    #[test]
    fn the_walk_meets_every_outcome_once() {
        let mut s = Script::default();
        s.reset();
        let mut total = 0.0;
        let mut outcomes = Vec::new();
        loop {
            s.begin();
            let a = s.below(3);
            let b = if a == 1 { u32::from(s.bit()) } else { 9 };
            let mut cards = [4, 4, 7];
            s.shuffle(&mut cards);
            outcomes.push((a, b, cards));
            total += s.prob();
            if !s.advance() {
                break;
            }
        }
        // a = 0 or 2: 3 orders each; a = 1: 2 bits × 3 orders.
        assert_eq!(outcomes.len(), 12);
        assert!((total - 1.0).abs() < 1e-15);
    }
}
