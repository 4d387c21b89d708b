//! Exact cycle detection on deals known to loop.

use warlab_engine::{
    Choice, Cycle, Deal, EndReason, Engine, GameSeed, HotLoop, Observer, Pickup, Rules, View,
};

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

/// The positions of a game as the general loop shows them: after the deal and after every
/// battle, each seat's stack and won pile.
#[derive(Default)]
struct Positions(Vec<[Vec<u8>; 4]>);

impl Observer for Positions {
    fn game_start(&mut self, v: &View<'_>) {
        self.note(v);
    }

    fn battle_end(&mut self, _winner: Option<usize>, _pot: usize, v: &View<'_>) {
        self.note(v);
    }
}

impl Positions {
    fn note(&mut self, v: &View<'_>) {
        self.0.push([v.stack(0), v.pile(0), v.stack(1), v.pile(1)]);
    }

    /// The battle at which the specialised loops' Brent saves find the loop of a game that
    /// loops from battle `start` with `period`, followed here on the positions: the first
    /// save is the deal, the next ones 32 · (2^k − 1) battles in (after 32 battles, then
    /// after gaps that double), and each position is compared with the last save. Past the
    /// positions seen (the general loop stops where it finds the loop), the loop's own
    /// repeat them.
    fn brent_find(&self, start: u64, period: u64) -> u64 {
        let seen = self.0.len() as u64;
        let at = |j: u64| {
            let j = if j < seen {
                j
            } else {
                start + (j - start) % period
            };
            &self.0[j as usize]
        };
        let (mut save, mut power, mut lam) = (0, 32, 0);
        for j in 1.. {
            lam += 1;
            if at(j) == at(save) {
                return j;
            }
            if lam == power {
                (save, power, lam) = (j, power * 2, 0);
            }
        }
        unreachable!("a game that loops comes back to a save")
    }
}

/// Each specialised loop finds a game's loop at the battle its Brent saves imply, followed
/// on the general loop's positions, under every fixed pick-up order, with one pile or two
/// turned over (under `lose` no game loops), with a prize or without, on standard and small
/// decks and under a beats-table ranking. Records alone cannot see a loop found late: a quick
/// test in front of the full comparison that let an equal position pass unseen only costs
/// time (the loop is found at a later save, or past the cap, with the same record). Two seats
/// without hands, whose loops' passes start at the deal.
#[test]
fn loops_are_found_where_the_saves_find_them() {
    let mut checked = [0usize; HotLoop::ALL.len()];
    // Every fixed pick-up order, read from the engine's own table of them.
    let fixed = Pickup::NAMED
        .iter()
        .map(|p| p.name)
        .filter(|&p| p != "shuffled");
    for pickup in fixed {
        for pile in [None, Some("turn-over")] {
            for prize in [false, true] {
                // Each deal's options beside the pick-up, and its games.
                let decks: [(&[(&str, &str)], u64); 4] = [
                    (&[("war_down", "1")], 200),
                    (&[("war_down", "3")], 200),
                    (
                        &[
                            ("deck", "custom"),
                            ("ranks", "5"),
                            ("suits", "2"),
                            ("war_down", "1"),
                        ],
                        200,
                    ),
                    (
                        &[
                            ("deck", "piquet36"),
                            ("ranking", "low-beats-high"),
                            ("low_rank", "6"),
                            ("war_down", "1"),
                        ],
                        100,
                    ),
                ];
                for (deal, games) in decks {
                    let mut pairs = vec![("pickup", pickup)];
                    pairs.extend_from_slice(deal);
                    if let Some(on_empty) = pile {
                        pairs.extend([("pile", "two-pile"), ("on_empty", on_empty)]);
                    }
                    if prize {
                        pairs.push(("prize", "true"));
                    }
                    let rules = Rules::from_pairs(pairs.iter().copied()).unwrap();
                    assert!(rules.detects_cycles(), "{rules}");
                    let cap = rules.safety_cap().unwrap_or(u64::MAX);
                    let mut general = Engine::new(&rules);
                    let mut engine = Engine::new(&rules);
                    for g in 0..games {
                        let id = GameSeed::new(29, 0, g);
                        let mut seen = Positions::default();
                        let want = general.play_observed(id, &mut seen);
                        let find = match (want.end, want.cycle) {
                            (EndReason::Cycle, Some(c)) => {
                                Some(seen.brent_find(c.start, c.period)).filter(|&f| f <= cap)
                            }
                            _ => None,
                        };
                        for (i, hot) in HotLoop::ALL.into_iter().enumerate().skip(1) {
                            if !engine.force_loop(hot) {
                                continue;
                            }
                            let before = engine.first_finds();
                            assert_eq!(
                                engine.play(id),
                                want,
                                "{} loop, {rules}, game {g}",
                                hot.name()
                            );
                            assert_eq!(
                                engine.first_finds() - before,
                                find.unwrap_or(0),
                                "the battle at which the {} loop found the loop, {rules}, game {g}",
                                hot.name()
                            );
                            checked[i] += usize::from(find.is_some());
                        }
                    }
                }
            }
        }
    }
    // The table loop and the two-seat loop play every one of these rule sets; the block loop
    // only on a CPU with AVX-512.
    for (hot, &n) in HotLoop::ALL.iter().zip(&checked).skip(1) {
        assert!(
            n >= 100 || *hot == HotLoop::Block,
            "{} loop: {n} loops",
            hot.name()
        );
    }
}
