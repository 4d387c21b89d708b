//! Every deal of a deck, once per distinct order of its card values (suits are not stored:
//! orders that differ only in suits deal the same game), with how many orders of the cards
//! deal it.

use warlab_engine::Rules;

use crate::script::distinct_orders;

/// The deck's card values, sorted (each value as often as the deck holds it).
pub fn deck(rules: &Rules) -> Vec<u8> {
    let mut v = rules.cards().fresh_deck();
    v.sort_unstable();
    v
}

/// Distinct orders of the deck's values: the number of equally likely deals (`None` beyond
/// u128).
pub fn count(rules: &Rules) -> Option<u128> {
    distinct_orders(&deck(rules))
}

/// Calls `each` with every distinct order of the sorted `deck`, in lexicographic order
/// (the next permutation of a multiset, so no order comes twice).
pub fn each_order(mut deck: Vec<u8>, mut each: impl FnMut(&[u8])) {
    loop {
        each(&deck);
        // Next permutation: the longest non-increasing tail, its pivot swapped with the tail's
        // smallest larger value, the tail reversed.
        let Some(i) = (1..deck.len()).rev().find(|&i| deck[i - 1] < deck[i]) else {
            return;
        };
        let pivot = i - 1;
        let j = (i..deck.len())
            .rev()
            .find(|&j| deck[j] > deck[pivot])
            .expect("the tail holds a larger value");
        deck.swap(pivot, j);
        deck[i..].reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_distinct_order_once() {
        let mut seen = std::collections::BTreeSet::new();
        each_order(vec![0, 0, 1, 2], |d| {
            assert!(seen.insert(d.to_vec()));
        });
        assert_eq!(seen.len() as u128, distinct_orders(&[0, 0, 1, 2]).unwrap());
    }
}
