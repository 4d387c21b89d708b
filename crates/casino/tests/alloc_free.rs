//! After `Table::new`, playing sessions allocates nothing: a counting global allocator proves it
//! for every deck kind, strategy and bankroll rule.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use warlab_casino::{CasinoOptions, CasinoRules, Table};
use warlab_engine::GameSeed;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: defers to the system allocator; only counts calls on the current thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: `layout` is the caller's, valid as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (every allocation goes there) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: `ptr`, `layout` and `new_size` are the caller's, valid as `realloc` requires;
        // `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
        let before = ALLOCATIONS.with(Cell::get);
        let mut hands = 0;
        for g in 0..2_000 {
            hands += table.session(GameSeed::new(1, 2, g)).hands;
        }
        let after = ALLOCATIONS.with(Cell::get);
        assert_eq!(after - before, 0, "{set:?}: allocations in {hands} hands");
        assert!(hands > 10_000, "{set:?}: {hands} hands played");
    }
}
