//! The solver against the engine itself: every deal of tiny decks under deterministic rules
//! (length, winner, loop start and period, deal by deal), and Monte-Carlo samples of random
//! rules (mean length and win share within 4 standard errors).

use warlab_engine::{Deal, EndReason, Engine, GameSeed, Rules};
use warlab_exact::{Fraction, LoopShape, Method, Options, Start, solve};

fn rules(pairs: &[(&str, &str)]) -> Rules {
    Rules::from_pairs(pairs.iter().copied()).expect("valid rules")
}

/// Every distinct order of the deck's values, dealt as the engine deals (card i to seat
/// i mod players, the rest set aside).
fn every_deal(r: &Rules) -> Vec<Deal> {
    let mut deck = r.cards().fresh_deck();
    deck.sort_unstable();
    let np = r.players();
    let mut deals = Vec::new();
    loop {
        let mut stacks = vec![Vec::new(); np];
        for (i, &c) in deck[..r.cards_per_player() * np].iter().enumerate() {
            stacks[i % np].push(c);
        }
        deals.push(Deal::from_values(r, stacks).expect("a deal of the deck"));
        let Some(i) = (1..deck.len()).rev().find(|&i| deck[i - 1] < deck[i]) else {
            return deals;
        };
        let j = (i..deck.len())
            .rev()
            .find(|&j| deck[j] > deck[i - 1])
            .unwrap();
        deck.swap(i - 1, j);
        deck[i..].reverse();
    }
}

/// Deal by deal, deterministic rules: the solver from the deal says what the engine plays.
/// Returns the deals that loop.
fn every_deal_as_the_engine(pairs: &[(&str, &str)]) -> usize {
    let r = rules(pairs);
    assert!(r.is_deterministic());
    let mut engine = Engine::new(&r);
    let (mut loops, mut n) = (0usize, 0usize);
    let (mut ended, mut len_sum, mut wins0) = (0u128, 0u128, 0u128);
    for deal in every_deal(&r) {
        let rec = engine.play_deal(&deal, GameSeed::new(0, 0, 0));
        let s = solve(
            &r,
            &Start::Deal(deal.clone()),
            &Options::default(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(s.method, Method::Exact);
        let what = format!("{pairs:?}, deal {}", deal.to_text(&r));
        match rec.end {
            EndReason::Cycle => {
                let c = rec.cycle.unwrap();
                let shape = LoopShape {
                    start: c.start,
                    period: c.period,
                };
                assert_eq!(s.loops, vec![(shape, 1.0)], "{what}");
                loops += 1;
            }
            EndReason::Capped => assert_eq!(s.capped_share, 1.0, "{what}"),
            end => {
                ended += 1;
                len_sum += u128::from(rec.battles);
                wins0 += u128::from(rec.winner == Some(0));
                assert_eq!(s.endings.len(), 1, "{what}");
                assert_eq!(s.endings[0].0.reason, end, "{what}");
                assert_eq!(s.endings[0].0.winner, rec.winner, "{what}");
                assert_eq!(s.lengths.len() as u64, rec.battles + 1, "{what}");
                assert_eq!(s.lengths[rec.battles as usize], 1.0, "{what}");
            }
        }
        n += 1;
    }
    assert!(n > 0);
    // Every deal at once: the same counts, as exact fractions.
    let all = solve(&r, &Start::AllDeals, &Options::default(), &mut |_| {}).unwrap();
    assert_eq!(all.deals, n as u128);
    if ended > 0 {
        assert_eq!(
            all.battles_mean_exact,
            Some(Fraction::new(len_sum, ended)),
            "{pairs:?}"
        );
    }
    assert_eq!(
        all.win_share_exact.unwrap()[0],
        Fraction::new(wins0, n as u128)
    );
    assert_eq!(
        all.other_exact.unwrap()[1],
        Fraction::new(loops as u128, n as u128)
    );
    eprintln!("{pairs:?}: {n} deals, {loops} loops, {} states", all.states);
    loops
}

#[test]
fn deterministic_rules_deal_by_deal() {
    let small = [("deck", "custom"), ("ranks", "3"), ("suits", "2")];
    let sets: &[&[(&str, &str)]] = &[
        &[("pickup", "winner-first")],
        &[("pickup", "winner-first"), ("war_down", "1")],
        &[("pickup", "seat"), ("war_down", "1")],
        &[("pickup", "played"), ("war_down", "2")],
        &[("pickup", "loser-first"), ("short_war", "lose")],
        &[("pickup", "rank-desc"), ("short_war", "last-card-up")],
        &[
            ("pickup", "winner-first"),
            ("pile", "two-pile"),
            ("on_empty", "turn-over"),
        ],
        &[
            ("pickup", "winner-first"),
            ("pile", "two-pile"),
            ("on_empty", "lose"),
        ],
        &[("pickup", "winner-first"), ("battle_limit", "5")],
        &[
            ("pickup", "winner-first"),
            ("war_down", "1"),
            ("prize", "true"),
        ],
        &[
            ("pickup", "winner-first"),
            ("hand", "2"),
            ("hand_policy", "highest,lowest"),
        ],
        &[("pickup", "winner-first"), ("wars_to_win", "1")],
        &[("pickup", "winner-first"), ("target_cards", "5")],
        &[("pickup", "seat"), ("war_down", "1"), ("safety_cap", "6")],
    ];
    for set in sets {
        let pairs: Vec<_> = small.iter().chain(set.iter()).copied().collect();
        every_deal_as_the_engine(&pairs);
    }
    // Bigger decks where many deals loop (38 % and 10 %), a safety cap inside some loops, and
    // three players.
    let d8 = [("deck", "custom"), ("ranks", "4"), ("suits", "2")];
    let d6 = [("deck", "custom"), ("ranks", "6"), ("suits", "1")];
    assert!(
        every_deal_as_the_engine(&[d8[0], d8[1], d8[2], ("pickup", "seat"), ("war_down", "1")])
            > 900
    );
    assert!(every_deal_as_the_engine(&[d6[0], d6[1], d6[2], ("pickup", "loser-first")]) > 50);
    every_deal_as_the_engine(&[d6[0], d6[1], d6[2], ("pickup", "seat"), ("safety_cap", "7")]);
    every_deal_as_the_engine(&[
        ("deck", "custom"),
        ("ranks", "3"),
        ("suits", "2"),
        ("players", "3"),
        ("pickup", "seat"),
        ("war_down", "1"),
    ]);
}

/// The engine's games from shuffled deals: mean length of the games that end and seat 0's
/// win share agree with the solver's within 4 standard errors; so do the loop and draw
/// shares.
fn monte_carlo(pairs: &[(&str, &str)], games: u64) {
    let r = rules(pairs);
    let s = solve(&r, &Start::AllDeals, &Options::default(), &mut |_| {}).unwrap();
    let mut engine = Engine::new(&r);
    let (mut n, mut sum, mut sum2, mut wins0, mut draws, mut loops) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for g in 0..games {
        let rec = engine.play(GameSeed::new(17, 3, g));
        if rec.end.finished() {
            let x = rec.battles as f64;
            n += 1.0;
            sum += x;
            sum2 += x * x;
            match rec.winner {
                Some(0) => wins0 += 1.0,
                None => draws += 1.0,
                _ => {}
            }
        } else {
            loops += 1.0;
        }
    }
    let g = games as f64;
    let mean = sum / n;
    let sd = (sum2 / n - mean * mean).max(0.0).sqrt();
    let z = |est: f64, exact: f64, se: f64| {
        if se == 0.0 {
            if (est - exact).abs() < 1e-9 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (est - exact) / se
        }
    };
    let share = |k: f64, p: f64| z(k / g, p, (p * (1.0 - p) / g).sqrt());
    let checks = [
        ("mean", z(mean, s.battles_mean, sd / n.sqrt())),
        ("win 0", share(wins0, s.win_share[0])),
        ("draw", share(draws, s.draw_share)),
        ("never ends", share(loops, s.loop_share + s.capped_share)),
    ];
    eprintln!(
        "{pairs:?}: {} states, exact mean {:.4} vs {mean:.4}, win0 {:.4} vs {:.4}, z {checks:?}",
        s.states,
        s.battles_mean,
        s.win_share[0],
        wins0 / g
    );
    for (what, z) in checks {
        assert!(z.abs() < 4.0, "{pairs:?}: {what} z = {z}");
    }
}

#[test]
fn random_rules_against_monte_carlo() {
    let d8 = [("deck", "custom"), ("ranks", "4"), ("suits", "2")];
    let sets: &[&[(&str, &str)]] = &[
        &[],
        &[("war_down", "1")],
        &[("pile", "two-pile"), ("on_empty", "shuffle")],
        &[
            ("pile", "two-pile"),
            ("on_empty", "turn-over"),
            ("war_down", "1"),
        ],
        &[("prize", "true"), ("war_down", "1")],
        &[
            ("hand", "2"),
            ("hand_policy", "random"),
            ("pickup", "winner-first"),
        ],
        &[("speed", "0.1"), ("war_down", "1")],
        &[("battle_limit", "12")],
    ];
    for set in sets {
        let pairs: Vec<_> = d8.iter().chain(set.iter()).copied().collect();
        monte_carlo(&pairs, 40_000);
    }
    // Deterministic rules too (their loops), and three players.
    monte_carlo(
        &[
            ("deck", "custom"),
            ("ranks", "4"),
            ("suits", "2"),
            ("pickup", "winner-first"),
        ],
        40_000,
    );
    monte_carlo(
        &[
            ("deck", "custom"),
            ("ranks", "3"),
            ("suits", "3"),
            ("players", "3"),
            ("war_down", "1"),
        ],
        40_000,
    );
}
