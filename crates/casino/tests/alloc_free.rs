//! After `Table::new`, playing sessions allocates nothing: a counting global allocator proves it
//! for every deck kind, strategy and bankroll rule.

#[path = "../../engine/tests/common/counting.rs"]
mod counting;
use counting::allocations;

use warlab_casino::{CasinoOptions, CasinoRules, Table};
use warlab_engine::GameSeed;

#[test]
fn sessions_allocate_nothing_after_set_up() {
    let sets: &[&[(&str, &str)]] = &[
        &[],
        &[("decks", "1"), ("penetration", "100")],
        &[("decks", "8"), ("penetration", "0")],
        &[("decks", "infinite")],
        &[
            ("strategy", "surrender"),
            ("tie_bet", "1"),
            ("bankroll", "20"),
        ],
        &[("bonus", "true"), ("hands", "300"), ("target", "none")],
    ];
    for set in sets {
        let mut o = CasinoOptions::default();
        for (k, v) in *set {
            o.set(k, v).unwrap();
        }
        let rules = CasinoRules::new(o).unwrap();
        let mut table = Table::new(&rules);
        let before = allocations();
        let mut hands = 0;
        for g in 0..2_000 {
            hands += table.session(GameSeed::new(1, 2, g)).hands;
        }
        let after = allocations();
        assert_eq!(after - before, 0, "{set:?}: allocations in {hands} hands");
        assert!(hands > 10_000, "{set:?}: {hands} hands played");
    }
}
