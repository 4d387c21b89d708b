//! Exact cycle detection on deals known to loop.

use warlab_engine::{Cycle, Deal, EndReason, Engine, GameSeed, Rules};

/// Spivey, "Cycles in War", Integers 10 (2010): 52 cards of distinct rank, the LOWER number
/// wins, the winner's card goes under first, then the loser's.
#[test]
fn spivey_deal_cycles() {
    let rules = Rules::from_pairs([
        ("deck", "custom"),
        ("ranks", "52"),
        ("suits", "1"),
        ("ranking", "low-wins"),
        ("pickup", "winner-first"),
    ])
    .unwrap();
    let deal = Deal::parse(
        &rules,
        "26 46 1 7 8 27 9 28 29 47 2 10 11 30 12 31 32 48 3 13 14 33 15 34 35 49 / \
         16 36 17 37 38 50 4 18 19 39 20 40 41 51 5 21 22 42 23 43 44 52 6 24 25 45",
    )
    .unwrap();
    let rec = Engine::new(&rules).play_deal(&deal, GameSeed::new(0, 0, 0));
    assert_eq!(rec.end, EndReason::Cycle, "{rec:?}");
    assert_eq!(rec.winner, None);
    let cycle = rec.cycle.expect("a cycle has its period and start");
    // The period and start this engine finds for Spivey's deal (the deal is itself on the
    // cycle, so the loop starts at battle 0).
    assert_eq!(
        cycle,
        Cycle {
            start: CYCLE_START,
            period: CYCLE_PERIOD
        },
        "{rec:?}"
    );
    assert_eq!(rec.battles, cycle.start + cycle.period);
    assert_eq!(rec.wars, 0, "all ranks distinct: no war ever");
}

const CYCLE_START: u64 = 0;
const CYCLE_PERIOD: u64 = 31_920;

/// An independent, naive check of the same loop: plain `VecDeque`s, no engine code.
#[test]
fn spivey_period_by_naive_simulation() {
    use std::collections::VecDeque;
    let p0: VecDeque<u32> = [
        26, 46, 1, 7, 8, 27, 9, 28, 29, 47, 2, 10, 11, 30, 12, 31, 32, 48, 3, 13, 14, 33, 15, 34,
        35, 49,
    ]
    .into();
    let p1: VecDeque<u32> = [
        16, 36, 17, 37, 38, 50, 4, 18, 19, 39, 20, 40, 41, 51, 5, 21, 22, 42, 23, 43, 44, 52, 6,
        24, 25, 45,
    ]
    .into();
    let (mut a, mut b) = (p0.clone(), p1.clone());
    for battle in 1..=CYCLE_PERIOD {
        let (x, y) = (a.pop_front().unwrap(), b.pop_front().unwrap());
        assert_ne!(x, y);
        // Lower number wins; winner's card first.
        if x < y {
            a.extend([x, y]);
        } else {
            b.extend([y, x]);
        }
        assert!(!a.is_empty() && !b.is_empty());
        let back = a == p0 && b == p1;
        assert_eq!(
            back,
            battle == CYCLE_PERIOD,
            "the deal recurs first at battle {battle}"
        );
    }
}

/// A deterministic rule set finds a cycle in an ordinary deal too, and the counts cover exactly
/// `start + period` battles.
#[test]
fn cycles_found_under_deterministic_pickup() {
    let rules = Rules::from_pairs([("pickup", "seat"), ("war_down", "1")]).unwrap();
    let mut engine = Engine::new(&rules);
    let mut cycles = 0;
    for g in 0..2000 {
        let rec = engine.play(GameSeed::new(7, 0, g));
        if rec.end == EndReason::Cycle {
            cycles += 1;
            let c = rec.cycle.unwrap();
            assert!(c.period >= 1);
            assert_eq!(rec.battles, c.start + c.period);
        } else {
            assert!(rec.cycle.is_none());
        }
    }
    assert!(
        cycles > 0,
        "pickup=seat with one card down loops in some deals"
    );
}

/// Random rules never report a cycle.
#[test]
fn random_rules_never_cycle() {
    let mut engine = Engine::new(&Rules::classic());
    for g in 0..5000 {
        let rec = engine.play(GameSeed::new(1, 0, g));
        assert_ne!(rec.end, EndReason::Cycle);
    }
}

/// A loop whose period holds a war is found too: the wars won are not part of the state unless
/// `wars_to_win` needs them (they once were, and such loops ran to the safety cap).
#[test]
fn loops_holding_wars_are_found() {
    for pairs in [
        vec![
            ("deck", "custom"),
            ("ranks", "5"),
            ("suits", "2"),
            ("pickup", "seat"),
            ("war_down", "1"),
        ],
        vec![("pickup", "seat"), ("war_down", "1")],
    ] {
        let rules = Rules::from_pairs(pairs.iter().copied()).unwrap();
        let mut engine = Engine::new(&rules);
        let (mut cycles, mut with_wars) = (0, 0);
        for g in 0..3000 {
            let rec = engine.play(GameSeed::new(11, 0, g));
            assert_ne!(rec.end, EndReason::Capped, "{pairs:?} game {g}: {rec:?}");
            if rec.end == EndReason::Cycle {
                cycles += 1;
                with_wars += usize::from(rec.wars > 0);
            }
        }
        assert!(
            cycles > 0 && with_wars > 0,
            "{pairs:?}: {cycles} {with_wars}"
        );
    }
}
