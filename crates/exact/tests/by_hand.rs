//! Tiny decks solved by hand: the solver must give exactly these figures.

use warlab_engine::{Deal, EndReason, Rules};
use warlab_exact::{Fraction, Method, Options, Start, solve};

fn rules(pairs: &[(&str, &str)]) -> Rules {
    Rules::from_pairs(pairs.iter().copied()).expect("valid rules")
}

/// P(length = n), 0 past the end of the distribution.
fn at(lengths: &[f64], n: usize) -> f64 {
    lengths.get(n).copied().unwrap_or(0.0)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Two ranks × two suits, the classic rules otherwise (3 cards down in a war, all but the last
/// when short, won cards shuffled). Cards L L H H; the 6 distinct orders of the deck are
/// equally likely, card i to seat i mod 2 (seat 0 gets cards 0 and 2):
///
/// | order | seat 0 | seat 1 | game |
/// |---|---|---|---|
/// | LLHH | L H | L H | L–L war: each has 1 card, turns it up: H–H, war with no cards: draw in 1 |
/// | HHLL | H L | H L | the same: draw in 1 |
/// | LHLH | L L | H H | seat 1 wins both battles: seat 1 in 2 |
/// | HLHL | H H | L L | seat 0 in 2 |
/// | LHHL | L H | H L | state A below |
/// | HLLH | H L | L H | state B (A with the seats swapped) |
///
/// From A: seat 1 wins battle 1 (its stack: L, then {L, H} shuffled), seat 0 wins battle 2
/// (its stack: {H, L} shuffled; seat 1 keeps its two shuffled cards). So after 2 battles each
/// seat holds one L and one H in an independent uniform order: 1/4 each of LH–LH and HL–HL
/// (a draw in one more battle, as above), LH–HL (A again) and HL–LH (B). B is A mirrored and
/// does the same. Nobody ever wins from A or B: the game is drawn after 2K + 1 battles with
/// K ≥ 1 geometric(1/2): P(3) = 1/2, P(5) = 1/4, …, mean 5.
///
/// So P(seat 0) = P(seat 1) = 1/6, P(draw) = 2/3; P(length = 1) = P(2) = 1/3,
/// P(2k + 1) = (1/3)(1/2)^k for k ≥ 1; E[length] = (1 + 1 + 2 + 2 + 5 + 5) / 6 = 8/3.
#[test]
fn two_ranks_two_suits_shuffled() {
    let r = rules(&[("deck", "custom"), ("ranks", "2"), ("suits", "2")]);
    let s = solve(&r, &Start::AllDeals, &Options::default(), &mut |_| {}).unwrap();
    assert_eq!(s.method, Method::Iterated);
    assert_eq!(s.deals, 6);
    assert!(close(s.win_share[0], 1.0 / 6.0), "{:?}", s.win_share);
    assert!(close(s.win_share[1], 1.0 / 6.0));
    assert!(close(s.draw_share, 2.0 / 3.0));
    assert!(close(s.loop_share, 0.0));
    assert!(close(s.battles_mean, 8.0 / 3.0), "{}", s.battles_mean);
    assert!(close(s.lengths[1], 1.0 / 3.0));
    assert!(close(s.lengths[2], 1.0 / 3.0));
    assert!(close(s.lengths[4], 0.0));
    for k in 1..30 {
        assert!(close(
            at(&s.lengths, 2 * k + 1),
            (1.0 / 3.0) * 0.5f64.powi(k as i32)
        ));
    }
    assert!(s.residual <= 1e-12 && s.mean_residual <= 1e-12);
}

/// The same deck with winner-first pick-up (deterministic). LLHH, HHLL: draws in 1 as above;
/// LHLH, HLHL: won in 2. LHHL (A): seat 1 wins L–H and puts H, L under its L: seat 0 holds H,
/// seat 1 holds L H L. Seat 0 wins H–L: holds H L, seat 1 holds H L. H–H war: each turns up
/// its L, L–L war with no cards left: draw, 3 battles. HLLH (B) mirrors it: draw in 3.
/// So wins 1/6 each, draws 2/3, mean (1 + 1 + 2 + 2 + 3 + 3) / 6 = 2, no loops.
#[test]
fn two_ranks_two_suits_winner_first() {
    let r = rules(&[
        ("deck", "custom"),
        ("ranks", "2"),
        ("suits", "2"),
        ("pickup", "winner-first"),
    ]);
    let s = solve(&r, &Start::AllDeals, &Options::default(), &mut |_| {}).unwrap();
    assert_eq!(s.method, Method::Exact);
    assert_eq!(s.battles_mean_exact, Some(Fraction::new(2, 1)));
    assert_eq!(
        s.win_share_exact,
        Some(vec![Fraction::new(1, 6), Fraction::new(1, 6)])
    );
    assert_eq!(s.other_exact.unwrap()[0], Fraction::new(2, 3));
    assert_eq!(s.loop_share, 0.0);
    assert!(close(s.lengths[3], 1.0 / 3.0));
}

/// Three ranks × two suits (1 1 2 2 3 3), one card down in a war, won cards shuffled.
///
/// From every deal (each seat holds 3 cards): the first battle ends the game exactly when the
/// top cards tie (a war takes each seat's other two cards, one down and one up), which happens
/// with probability 1/5 (one of the 5 other cards matches seat 0's top card); a battle without
/// a war leaves the loser two cards. So P(length = 1) = 1/5. The seats are alike (the deal is
/// uniform and the rules treat them alike): P(seat 0 wins) = P(seat 1 wins).
///
/// From the deal 3 1 2 / 1 3 2: seat 0 wins 3–1 (holds 1 2 and {3, 1} shuffled), seat 1 wins
/// 1–3 (holds 2 and {1, 3} shuffled; seat 0 holds 2 x y). The 2–2 war: each puts one card down
/// and turns up its last: seat 0's y and seat 1's b, each 1 or 3 with probability 1/2, apart.
/// y = 3, b = 1: seat 0 takes all six; y = 1, b = 3: seat 1 does; equal: a war with no cards
/// left, a draw. Every game lasts 3 battles: P(seat 0) = P(seat 1) = 1/4, P(draw) = 1/2.
#[test]
fn three_ranks_two_suits_one_card_down() {
    let r = rules(&[
        ("deck", "custom"),
        ("ranks", "3"),
        ("suits", "2"),
        ("war_down", "1"),
    ]);
    let s = solve(&r, &Start::AllDeals, &Options::default(), &mut |_| {}).unwrap();
    assert_eq!(s.deals, 90);
    assert!(close(s.lengths[1], 1.0 / 5.0), "{:?}", &s.lengths[..4]);
    assert!(close(s.win_share[0], s.win_share[1]));
    assert!(close(s.win_share[0] + s.win_share[1] + s.draw_share, 1.0));

    let deal = Deal::parse(&r, "3 1 2 / 1 3 2").unwrap();
    let s = solve(&r, &Start::Deal(deal), &Options::default(), &mut |_| {}).unwrap();
    assert!(close(s.win_share[0], 0.25) && close(s.win_share[1], 0.25));
    assert!(close(s.draw_share, 0.5));
    assert!(close(s.battles_mean, 3.0));
    assert_eq!(s.lengths.len(), 4);
    let draws: f64 = s
        .endings
        .iter()
        .filter(|(e, _)| e.reason == EndReason::DrawInWar)
        .map(|(_, p)| p)
        .sum();
    assert!(close(draws, 0.5));
}

/// From seat 0: 1 2 against seat 1: 3 (three ranks, shuffled pick-up): no two cards are equal,
/// so no war, and seat 0 can never take the 3: seat 1 wins for sure. A round from there takes 2
/// battles: seat 1 takes the 1 (holding {1, 3} shuffled), then meets the 2 with its 1 or its 3.
/// With the 3 (1/2) it has every card: the game ends at 2. With the 1 (1/2) seat 0 takes it and
/// holds {2, 1} shuffled against the 3: as 1 2 (1/2) the round starts again; as 2 1 (1/2) seat 1
/// takes the 2, then the 1, whatever its order: 2 more battles. So P(2) = 1/2 and P(2j) =
/// (3/8)(1/4)^(j−2) for j ≥ 2; the mean m = 2 + (1/4)·m + (1/4)·2 gives m = 10/3.
#[test]
fn a_position_that_can_only_be_lost() {
    let r = rules(&[("deck", "custom"), ("ranks", "3"), ("suits", "2")]);
    let deal = Deal::parse(&r, "1 2 / 3").unwrap();
    let s = solve(&r, &Start::Deal(deal), &Options::default(), &mut |_| {}).unwrap();
    assert!(close(s.win_share[1], 1.0) && close(s.win_share[0], 0.0));
    assert!(close(s.battles_mean, 10.0 / 3.0), "{}", s.battles_mean);
    assert!(close(s.lengths[2], 0.5));
    for j in 2..20 {
        assert!(close(
            at(&s.lengths, 2 * j),
            0.375 * 0.25f64.powi(j as i32 - 2)
        ));
        assert!(close(at(&s.lengths, 2 * j - 1), 0.0));
    }
}
