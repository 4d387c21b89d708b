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
/// battle, each seat's stack, won pile and hand, and whether it is in the game.
#[derive(Default)]
struct Positions(Vec<Vec<Seat>>);

/// A seat's part of a position: stack, won pile, hand, in the game. (The wars it has won are
/// part of the engine's position only under `wars_to_win`, which these tests leave out.)
type Seat = (Vec<u8>, Vec<u8>, Vec<u8>, bool);

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
        let seat = |p| (v.stack(p), v.pile(p), v.hand(p).to_vec(), v.in_game(p));
        self.0.push((0..v.players()).map(seat).collect());
    }

    /// Seats in the game at position `j`.
    fn seated(&self, j: usize) -> usize {
        self.0[j].iter().filter(|seat| seat.3).count()
    }

    /// The battle at which the specialised loops' Brent saves find the loop of a game that
    /// loops from battle `start` with `period`, followed here on the positions, for a pass
    /// that begins at position `from`: the first save is that position, the next ones
    /// 32 · (2^k − 1) battles past it (after 32 battles, then after gaps that double), and
    /// each position is compared with the last save. Past the positions seen (the general
    /// loop stops where it finds the loop), the loop's own repeat them.
    fn brent_find(&self, from: u64, start: u64, period: u64) -> u64 {
        let seen = self.0.len() as u64;
        let at = |j: u64| {
            let j = if j < seen {
                j
            } else {
                start + (j - start) % period
            };
            &self.0[j as usize]
        };
        let (mut save, mut power, mut lam) = (from, 32, 0);
        for j in from + 1.. {
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

/// Plays `games` games of `rules` on the general loop, watching every position, and then on
/// each specialised loop that can be made to play them ([`Engine::force_loop`]): each must give
/// the general loop's record and find each loop at the battle its Brent saves imply
/// ([`Positions::brent_find`]). A pass starts at the deal. A larger table without hands is
/// played every way its last two seats can be: kept in the table loop, whose pass goes on, or
/// handed to a two-seat loop ([`Engine::force_last_two_loop`]) at the first position with two
/// seats left, where that loop's pass starts ([`Engine::first_finds`] counts its finds too).
/// (The table loop hands over there unless the leader is out of the game or `speed` has no
/// seat 0 left, neither of which these rules reach, and only on the ring: a deck too big for
/// it is played by `cycle::brent`, whose finds are not counted.) Adds the loops checked to
/// `checked`, by loop; returns the loops found and those of them found after a hand-over.
fn check_first_finds(rules: &Rules, games: u64, checked: &mut [usize]) -> (usize, usize) {
    let (mut loops, mut handed) = (0, 0);
    assert!(rules.detects_cycles(), "{rules}");
    let cap = rules.safety_cap().unwrap_or(u64::MAX);
    let larger = rules.players() > 2 && rules.options().hand == 0;
    // The ways to play the last two seats of a larger table.
    let lasts: &[Option<HotLoop>] = if larger {
        &[None, Some(HotLoop::Duo), Some(HotLoop::Block)]
    } else {
        &[None]
    };
    let mut general = Engine::new(rules);
    let mut engine = Engine::new(rules);
    for g in 0..games {
        let id = GameSeed::new(29, 0, g);
        let mut seen = Positions::default();
        let want = general.play_observed(id, &mut seen);
        // Where the loops' passes find the loop: in a pass from the deal, and in one from the
        // first position with two seats left (the same where the loop holds more seats).
        let (from_deal, from_two, two) = match (want.end, want.cycle) {
            (EndReason::Cycle, Some(c)) => {
                let last = seen.0.len() - 1;
                let two = (larger && seen.seated(last) == 2)
                    .then(|| (0..=last).find(|&j| seen.seated(j) == 2).unwrap() as u64);
                let find =
                    |from| Some(seen.brent_find(from, c.start, c.period)).filter(|&f| f <= cap);
                let (deal, after) = (find(0), find(two.unwrap_or(0)));
                loops += usize::from(after.is_some());
                handed += usize::from(after.is_some() && two.is_some());
                (deal, after, two.is_some())
            }
            _ => (None, None, false),
        };
        for (i, hot) in HotLoop::ALL.into_iter().enumerate().skip(1) {
            if !engine.force_loop(hot) {
                continue;
            }
            for &last in lasts {
                if larger && !engine.force_last_two_loop(last) {
                    continue;
                }
                let (find, way) = match last {
                    Some(l) => (
                        from_two,
                        format!("{} loop, last two on the {}", hot.name(), l.name()),
                    ),
                    None => (from_deal, format!("{} loop", hot.name())),
                };
                let (before, games_before) = (engine.first_finds(), engine.last_two_games());
                assert_eq!(engine.play(id), want, "{way}, {rules}, game {g}");
                assert_eq!(
                    engine.first_finds() - before,
                    find.unwrap_or(0),
                    "the battle at which the {way} found the loop, {rules}, game {g}",
                );
                if last.is_some() && two {
                    assert_eq!(
                        engine.last_two_games() - games_before,
                        1,
                        "{way}, {rules}, game {g}"
                    );
                }
                checked[i] += usize::from(find.is_some());
            }
        }
    }
    (loops, handed)
}

/// Rules from `pairs`, with the pick-up `pickup`, and two piles turned over or a prize where
/// asked.
fn with(pairs: &[(&str, &str)], pickup: &str, two_pile: bool, prize: bool) -> Rules {
    let mut pairs = pairs.to_vec();
    pairs.push(("pickup", pickup));
    if two_pile {
        pairs.extend([("pile", "two-pile"), ("on_empty", "turn-over")]);
    }
    if prize {
        pairs.push(("prize", "true"));
    }
    Rules::from_pairs(pairs.iter().copied()).unwrap()
}

/// Every fixed pick-up order, read from the engine's own table of them.
fn fixed_pickups() -> impl Iterator<Item = &'static str> {
    Pickup::NAMED
        .iter()
        .map(|p| p.name)
        .filter(|&p| p != "shuffled")
}

/// Each specialised loop finds a game's loop at the battle its Brent saves imply, followed
/// on the general loop's positions, under every fixed pick-up order, with one pile or two
/// turned over (under `lose` no game loops), with a prize or without, on standard and small
/// decks and under a beats-table ranking. Records alone cannot see a loop found late: a quick
/// test in front of the full comparison that let an equal position pass unseen only costs
/// time (the loop is found at a later save, or past the cap, with the same record). Two seats
/// without hands.
#[test]
fn loops_are_found_where_the_saves_find_them() {
    let mut checked = [0usize; HotLoop::ALL.len()];
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
    for pickup in fixed_pickups() {
        for two_pile in [false, true] {
            for prize in [false, true] {
                for (deal, games) in decks {
                    let rules = with(deal, pickup, two_pile, prize);
                    check_first_finds(&rules, games, &mut checked);
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

/// [`loops_are_found_where_the_saves_find_them`] at larger tables and with hands, where the
/// table loop plays: 3 and 4 seats (a game down to two seats handed over to the two-seat
/// loop, whose pass starts there), and hands of three played by a fixed policy (on the table
/// to the end).
#[test]
fn loops_at_larger_tables_and_with_hands_are_found_where_the_saves_find_them() {
    let mut checked = [0usize; HotLoop::ALL.len()];
    let (mut loops, mut handed_over) = ([0usize; 5], 0);
    // (A short cap: the general loop keeps every position of a game. A loop found past it is
    // checked as found by none.)
    const CAP: (&str, &str) = ("safety_cap", "3000");
    let tables: [(&[(&str, &str)], u64); 5] = [
        (&[("players", "3"), ("war_down", "1"), CAP], 40),
        (&[("players", "4"), ("war_down", "1"), CAP], 40),
        (&[("hand", "3"), ("hand_policy", "highest"), CAP], 150),
        (&[("hand", "3"), ("hand_policy", "lowest"), CAP], 60),
        (
            &[
                ("players", "3"),
                ("hand", "3"),
                ("hand_policy", "lowest"),
                CAP,
            ],
            40,
        ),
    ];
    for pickup in fixed_pickups() {
        for two_pile in [false, true] {
            for prize in [false, true] {
                for (k, (table, games)) in tables.into_iter().enumerate() {
                    let rules = with(table, pickup, two_pile, prize);
                    let (found, handed) = check_first_finds(&rules, games, &mut checked);
                    loops[k] += found;
                    handed_over += handed;
                }
            }
        }
    }
    // (Here 74, 41, 41, 302 and 128 loops, 107 of them after a hand-over; 701 checks of the
    // table loop, those 107 checked both kept at the table and handed over.)
    for ((table, _), n) in tables.iter().zip(loops) {
        assert!(n >= 20, "{table:?}: {n} loops");
    }
    assert!(handed_over >= 20, "{handed_over} loops after a hand-over");
    let table = HotLoop::ALL
        .iter()
        .position(|&l| l == HotLoop::Table)
        .unwrap();
    assert!(
        checked[table] >= 300,
        "table loop: {} loops",
        checked[table]
    );
}
