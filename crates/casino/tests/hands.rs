//! Casino War by hand-built shoes: every branch of a hand, sessions, and the exact values.

use warlab_casino::exact::{Ratio, hand_value};
use warlab_casino::{CasinoOptions, CasinoRules, Decks, HandResult, SessionEnd, Strategy, Table};
use warlab_engine::{GameRng, GameSeed};

/// Rank of a card label: 2..10, J, Q, K, A → 0..12.
fn r(label: &str) -> u8 {
    match label {
        "J" => 9,
        "Q" => 10,
        "K" => 11,
        "A" => 12,
        n => n.parse::<u8>().expect("a rank") - 2,
    }
}

fn shoe(labels: &str) -> Vec<u8> {
    labels.split_whitespace().map(r).collect()
}

fn rules(pairs: &[(&str, &str)]) -> CasinoRules {
    let mut o = CasinoOptions::default();
    for (k, v) in pairs {
        o.set(k, v).unwrap();
    }
    CasinoRules::new(o).unwrap()
}

fn rng() -> GameRng {
    GameRng::new(GameSeed::new(0, 0, 0))
}

/// One hand from a stacked shoe: result, main (half-bets), tie bet (half-chips per chip).
fn hand(pairs: &[(&str, &str)], cards: &str) -> (HandResult, i64, i64, u8) {
    let mut t = Table::stacked(&rules(pairs), &shoe(cards));
    let h = t.hand(&mut rng());
    (h.result, h.main, h.tie_bet, h.cards)
}

#[test]
fn each_branch_of_a_hand() {
    // Player Q, dealer 9: the bet wins 1 to 1; the tie bet loses.
    assert_eq!(hand(&[], "Q 9"), (HandResult::Win, 2, -2, 2));
    // Player 9, dealer Q: the bet is lost.
    assert_eq!(hand(&[], "9 Q"), (HandResult::Loss, -2, -2, 2));
    // 8 and 8, surrender: half the bet is lost; the tie bet pays 10 to 1.
    assert_eq!(
        hand(&[("strategy", "surrender")], "8 8 K"),
        (HandResult::Surrender, -1, 20, 2)
    );
    // 8 and 8, war: 3 burnt (2 3 4), then K for the player and 4 for the dealer: the raise
    // wins, the bet pushes: +1 bet.
    assert_eq!(hand(&[], "8 8 2 3 4 K 4"), (HandResult::WarWon, 2, 20, 7));
    // War lost: 5 against J: bet and raise lost, −2 bets.
    assert_eq!(hand(&[], "8 8 A A A 5 J"), (HandResult::WarLost, -4, 20, 7));
    // Tie after tie: the player's equal card wins the raise (+1 bet) …
    assert_eq!(hand(&[], "8 8 2 2 2 7 7"), (HandResult::WarTie, 2, 20, 7));
    // … and with the bonus, the original bet is paid too (+2 bets).
    assert_eq!(
        hand(&[("bonus", "true")], "8 8 2 2 2 7 7"),
        (HandResult::WarTie, 4, 20, 7)
    );
    // The bonus changes nothing when the war cards differ.
    assert_eq!(
        hand(&[("bonus", "true")], "8 8 2 3 4 K 4"),
        (HandResult::WarWon, 2, 20, 7)
    );
    // Aces are high: A beats K.
    assert_eq!(hand(&[], "A K"), (HandResult::Win, 2, -2, 2));
}

#[test]
fn a_session_pays_bets_and_tie_bets_in_chips() {
    // Bankroll 10, bet 2, tie bet 1, war: a stake of 5 chips per hand. A loss (−2 −1), a win
    // (+2 −1), then a tie: the tie bet pays 10, the war is won (+2): 10 − 3 + 1 + 12 = 20, the
    // target (double), so the session ends there.
    let rules = rules(&[("bankroll", "10"), ("bet", "2"), ("tie_bet", "1")]);
    let cards = shoe("3 K  K 3  5 5 2 2 2 9 8");
    let mut t = Table::stacked(&rules, &cards);
    let r = t.session_with(&mut rng());
    assert_eq!(r.hands, 3);
    assert_eq!(r.final_bankroll, 2 * 20);
    assert_eq!(r.end, Some(SessionEnd::Target));
    assert_eq!(
        (r.counts.ties, r.counts.wars, r.counts.surrenders),
        (1, 1, 0)
    );
    // A loss (−2 half-bets), a win (+2), a war won (+2).
    assert_eq!(r.main, 2);
    assert_eq!(r.peak_bankroll, 2 * 20);
    assert_eq!(r.counts.cards, 2 + 2 + 7);
}

#[test]
fn ruin_when_a_hand_cannot_be_covered() {
    // Bankroll 3, bet 1, war: a hand needs 2 chips (bet + raise). Two losses leave 1 chip.
    let rules = rules(&[("bankroll", "3")]);
    let mut t = Table::stacked(&rules, &shoe("2 3 2 3"));
    let r = t.session_with(&mut rng());
    assert_eq!(
        (r.hands, r.end, r.final_bankroll),
        (2, Some(SessionEnd::Ruin), 2)
    );
    // Surrender needs only the bet: the third hand is played with the last chip.
    let rules = self::rules(&[("bankroll", "3"), ("strategy", "surrender")]);
    let mut t = Table::stacked(&rules, &shoe("2 3 2 3 2 3"));
    let r = t.session_with(&mut rng());
    assert_eq!(
        (r.hands, r.end, r.final_bankroll),
        (3, Some(SessionEnd::Ruin), 0)
    );
}

#[test]
fn the_hands_limit_ends_a_session() {
    let rules = rules(&[("hands", "2"), ("target", "none")]);
    let mut t = Table::stacked(&rules, &shoe("K 3 K 3 K 3"));
    let r = t.session_with(&mut rng());
    assert_eq!((r.hands, r.end), (2, Some(SessionEnd::HandsLimit)));
}

#[test]
fn bad_tables_are_refused_with_the_options_named() {
    let mut o = CasinoOptions::default();
    let e = o.set("decks", "9").unwrap_err().to_string();
    assert!(e.contains("decks") && e.contains("infinite"), "{e}");
    assert!(o.set("strategy", "fold").is_err());
    assert!(o.set("penetration", "101").is_err());
    let e = o.set("colour", "red").unwrap_err().to_string();
    assert!(e.contains("the options are"), "{e}");
    o.set("bankroll", "3").unwrap();
    o.set("bet", "2").unwrap();
    let e = CasinoRules::new(o.clone()).unwrap_err().to_string();
    assert!(e.contains("bankroll = 3") && e.contains("needs 4"), "{e}");
    o.set("bet", "1").unwrap();
    o.set("target", "2").unwrap();
    let e = CasinoRules::new(o).unwrap_err().to_string();
    assert!(e.contains("target = 2"), "{e}");
}

/// Every ordered pair of the 52 cards, and after a tie every ordered pair of war cards from
/// the other 50 (three of the rest burnt in front), played through `Table::hand`: the exact
/// one-deck value must be the plain average.
#[test]
fn one_deck_exact_value_equals_brute_force_enumeration() {
    for (strategy, bonus) in [("war", "false"), ("war", "true"), ("surrender", "false")] {
        let rules = rules(&[("decks", "1"), ("strategy", strategy), ("bonus", bonus)]);
        let rank = |c: usize| (c % 13) as u8;
        let mut sum_main = 0i128;
        let mut sum_tie = 0i128;
        // Every first pair is weighted by the 50·49 war pairs that may follow it.
        let weight = 50 * 49;
        let mut rng = rng();
        for i in 0..52 {
            for j in 0..52 {
                if i == j {
                    continue;
                }
                let tie = rank(i) == rank(j);
                if !tie || strategy == "surrender" {
                    let mut t = Table::stacked(&rules, &[rank(i), rank(j)]);
                    let h = t.hand(&mut rng);
                    sum_main += i128::from(h.main) * weight;
                    sum_tie += i128::from(h.tie_bet) * weight;
                    continue;
                }
                let rest: Vec<usize> = (0..52).filter(|c| *c != i && *c != j).collect();
                for &k in &rest {
                    for &l in &rest {
                        if k == l {
                            continue;
                        }
                        let burn: Vec<u8> = rest
                            .iter()
                            .filter(|c| **c != k && **c != l)
                            .take(3)
                            .map(|c| rank(*c))
                            .collect();
                        let mut cards = vec![rank(i), rank(j)];
                        cards.extend(burn);
                        cards.extend([rank(k), rank(l)]);
                        let mut t = Table::stacked(&rules, &cards);
                        let h = t.hand(&mut rng);
                        sum_main += i128::from(h.main);
                        sum_tie += i128::from(h.tie_bet);
                    }
                }
            }
        }
        let cases = 52 * 51 * 50 * 49;
        let exact = hand_value(
            Decks::Finite(1),
            if strategy == "war" {
                Strategy::War
            } else {
                Strategy::Surrender
            },
            bonus == "true",
        );
        // Payoffs are in halves: divide by 2.
        assert_eq!(
            exact.ev,
            Ratio::new(sum_main, 2 * cases),
            "{strategy} bonus={bonus}"
        );
        assert_eq!(exact.tie_bet_ev, Ratio::new(sum_tie, 2 * cases));
        assert_eq!(exact.p_tie, Ratio::new(3, 51));
    }
}

/// The figures Wizard of Odds publishes for six decks (house edge, rounded to 0.01 %).
#[test]
fn six_decks_match_the_published_house_edges() {
    let pct = |r: Ratio| (r.to_f64() * 10_000.0).round() / 100.0;
    let war = hand_value(Decks::Finite(6), Strategy::War, false);
    let bonus = hand_value(Decks::Finite(6), Strategy::War, true);
    let surrender = hand_value(Decks::Finite(6), Strategy::Surrender, false);
    assert_eq!(pct(war.house_edge()), 2.88);
    assert_eq!(pct(bonus.house_edge()), 2.33);
    assert_eq!(pct(surrender.house_edge()), 3.70);
    assert_eq!(pct(war.tie_bet_edge()), 18.65);
    // P(tie) = 23/311 with 24 cards of each rank in 312.
    assert_eq!(war.p_tie, Ratio::new(23, 311));
}

/// Simulated fresh-shoe hands agree with the exact value within their standard error.
#[test]
fn simulation_agrees_with_the_exact_value() {
    for decks in ["1", "6", "infinite"] {
        for (strategy, bonus) in [("war", "false"), ("war", "true"), ("surrender", "false")] {
            let rules = rules(&[
                ("decks", decks),
                ("strategy", strategy),
                ("bonus", bonus),
                ("penetration", "0"),
                ("hands", "200"),
                ("target", "none"),
                ("bankroll", "1000"),
            ]);
            let mut table = Table::new(&rules);
            let (mut n, mut s, mut q) = (0u64, 0i64, 0u64);
            for g in 0..1000 {
                let r = table.session(GameSeed::new(7, 1, g));
                assert_eq!(
                    r.counts.fresh, r.hands,
                    "penetration 0: every hand is fresh"
                );
                n += r.counts.fresh;
                s += r.counts.fresh_main;
                q += r.counts.fresh_main_sq;
            }
            let mean = s as f64 / n as f64 / 2.0;
            let var = (q as f64 / n as f64 / 4.0 - mean * mean) * n as f64 / (n - 1) as f64;
            let se = (var / n as f64).sqrt();
            let exact = hand_value(rules.decks(), rules.strategy(), rules.bonus())
                .ev
                .to_f64();
            assert!(
                (mean - exact).abs() < 4.0 * se,
                "{decks} {strategy} {bonus}: simulated {mean} ± {se}, exact {exact}"
            );
        }
    }
}

#[test]
fn a_session_is_a_pure_function_of_its_seed() {
    let rules = rules(&[("decks", "2")]);
    let mut a = Table::new(&rules);
    let mut b = Table::new(&rules);
    let first = a.session(GameSeed::new(1, 2, 3));
    b.session(GameSeed::new(9, 9, 9));
    assert_eq!(b.session(GameSeed::new(1, 2, 3)), first);
    // The shoe is reshuffled at the cut card: 2 decks, 75 %: 78 cards, about 32 hands.
    let long = a.session(GameSeed::new(1, 2, 4));
    assert!(long.counts.shuffles > long.hands / 40, "{long:?}");
    assert!(long.counts.shuffles <= 1 + long.hands / 11, "{long:?}");
}
