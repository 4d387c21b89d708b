//! Hand-built deals, one or more per rule option, with outcomes worked out by hand.
//! Cards are written top of the stack first; stacks are separated by `/`.

mod common;
use common::{play, play_seeded, rules, s};
use warlab_engine::{Deal, EndReason, Engine, GameSeed, HotLoop, RuleOptions, Rules};

const SEAT: (&str, &str) = ("pickup", "seat");

/// The worked example of docs/rules.md: Q♠ vs 9♥; 8♣/8♦ war won by K♥ over 4♠ taking 10 cards; A♦ vs K♣.
#[test]
fn rules_md_worked_example() {
    let (rec, log) = play(&[], "QS 8C 2C 3C 5C KH AD / 9H 8D 2D 3D 5D 4S KC");
    let b = &log.battles;
    assert_eq!(b[0].up, vec![(0, "Q".into(), 0), (1, "9".into(), 0)]);
    assert_eq!((b[0].winner, b[0].pot), (Some(0), 2), "Q wins both");
    assert_eq!(b[1].wars, 1);
    assert_eq!(b[1].down, vec![(0, 3, 1), (1, 3, 1)], "3 down each");
    assert_eq!(b[1].up[2..], [(0, "K".into(), 1), (1, "4".into(), 1)]);
    assert_eq!(
        (b[1].winner, b[1].pot),
        (Some(0), 10),
        "K♥ takes all 10 cards"
    );
    assert_eq!((b[2].winner, b[2].pot), (Some(0), 2), "aces high");
    assert_eq!(rec.end, EndReason::AllCards);
    assert_eq!(rec.winner, Some(0));
    assert_eq!(
        (rec.battles, rec.wars, rec.deepest_war, rec.cards_turned),
        (3, 1, 1, 14)
    );
}

#[test]
fn suits_never_matter() {
    let (_, log) = play(&[SEAT], "9S 2C 3C 4C AS / 9H 2D 3D 4D KS");
    assert_eq!(log.battles[0].wars, 1, "9♠ vs 9♥ is a tie");
}

// ---- short_war ----
const SHORT_DEAL: &str = "7S 2C AS / 7H 3C 4C 5C KH 9D";

/// A deal names each card at most as often as the deck holds it with that suit, and leaves no
/// seat empty; a rank without a suit may repeat up to the deck's copies.
#[test]
fn deals_are_checked_against_the_deck() {
    let one = rules(&[]);
    let err = Deal::parse(&one, "AS AS / KS KD").unwrap_err().to_string();
    assert!(
        err.contains("`AS` is dealt 2 times; the deck holds 1"),
        "{err}"
    );
    let err = Deal::parse(&one, "AS / / KS").unwrap_err().to_string();
    assert!(err.contains("has no cards"), "{err}");
    assert!(Deal::parse(&one, "A A / K K").is_ok());
    assert!(Deal::parse(&one, "AS AH / KS KD").is_ok());
    let two = rules(&[("decks", "2")]);
    assert!(Deal::parse(&two, "AS AS / KS KD").is_ok());
    let err = Deal::parse(&two, "AS AS AS / KS KD")
        .unwrap_err()
        .to_string();
    assert!(err.contains("the deck holds 2"), "{err}");
}

#[test]
fn short_all_but_last() {
    // Seat 0 has 2 cards after the tie: 1 down (2♣), the last (A♠) up; A beats K.
    let (_, log) = play(&[SEAT], SHORT_DEAL);
    let b = &log.battles[0];
    assert_eq!(b.down, vec![(0, 1, 1), (1, 3, 1)]);
    assert_eq!(b.up[2..], [(0, "A".into(), 1), (1, "K".into(), 1)]);
    assert_eq!((b.winner, b.pot), (Some(0), 8));
    assert_eq!(b.cards, vec![8, 1]);
}

#[test]
fn short_last_card_up() {
    // Seat 0 has 2 ≤ 3: nothing down, the next card (2♣) up, A♠ stays in the stack.
    let (_, log) = play(&[SEAT, ("short_war", "last-card-up")], SHORT_DEAL);
    let b = &log.battles[0];
    assert_eq!(b.down, vec![(0, 0, 1), (1, 3, 1)]);
    assert_eq!(b.up[2..], [(0, "2".into(), 1), (1, "K".into(), 1)]);
    assert_eq!((b.winner, b.pot), (Some(1), 7));
    assert_eq!(b.stacks[0], s("A"));
}

#[test]
fn short_lose_is_a_forfeit() {
    let (rec, log) = play(&[SEAT, ("short_war", "lose")], SHORT_DEAL);
    assert_eq!(log.battles[0].dropped, vec![(0, true)]);
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::Forfeit, Some(1), 1)
    );
}

#[test]
fn out_of_cards_in_a_war_loses() {
    // Seat 0 ties with its last card: no card to fight the war.
    let (rec, log) = play(&[SEAT], "7S / 7H 3C 4C");
    assert_eq!(log.battles[0].dropped, vec![(0, false)]);
    assert_eq!((rec.end, rec.winner), (EndReason::AllCards, Some(1)));
}

#[test]
fn both_out_in_one_war_is_a_draw() {
    let (rec, log) = play(&[SEAT], "7S / 7H");
    assert_eq!((rec.end, rec.winner), (EndReason::DrawInWar, None));
    assert_eq!(
        log.battles[0].cards,
        vec![1, 1],
        "each takes back their own cards"
    );
    // Same through the fast loop (no observer) and with all-but-last short stacks.
    let r = rules(&[]);
    let deal = Deal::parse(&r, "7S 2C / 7H").unwrap();
    let rec = Engine::new(&r).play_deal(&deal, GameSeed::new(0, 0, 0));
    assert_eq!(
        (rec.end, rec.winner),
        (EndReason::AllCards, Some(0)),
        "seat 1 has no war card"
    );
    let deal = Deal::parse(&r, "7S / 7H").unwrap();
    let rec = Engine::new(&r).play_deal(&deal, GameSeed::new(0, 0, 0));
    assert_eq!((rec.end, rec.winner), (EndReason::DrawInWar, None));
}

// ---- chained_war ----
#[test]
fn chained_war_repeat() {
    let (rec, log) = play(
        &[SEAT],
        "5S 2C 3C 4C 9S 6C 7C 8C AS / 5H 2D 3D 4D 9H 6D 7D 8D KS",
    );
    let b = &log.battles[0];
    assert_eq!(b.wars, 2);
    assert_eq!(b.down, vec![(0, 3, 1), (1, 3, 1), (0, 3, 2), (1, 3, 2)]);
    assert_eq!((b.winner, b.pot), (Some(0), 18));
    assert_eq!((rec.wars, rec.deepest_war, rec.battles), (2, 2, 1));
}

#[test]
fn chained_war_flip_one() {
    // After the first war, ties are broken one face-up card at a time: 9/9, then 6/6, then A/K.
    let (rec, log) = play(
        &[SEAT, ("chained_war", "flip-one")],
        "5S 2C 3C 4C 9S 6C AS / 5H 2D 3D 4D 9H 6D KS",
    );
    let b = &log.battles[0];
    assert_eq!(
        b.down,
        vec![
            (0, 3, 1),
            (1, 3, 1),
            (0, 0, 2),
            (1, 0, 2),
            (0, 0, 3),
            (1, 0, 3)
        ]
    );
    assert_eq!((b.winner, b.pot), (Some(0), 14));
    assert_eq!((rec.wars, rec.deepest_war), (3, 3));
}

// ---- players ----
#[test]
fn three_player_war_while_third_waits() {
    let (_, log) = play(
        &[SEAT, ("players", "3"), ("war_down", "1")],
        "8S 2C KC / 8H 3D 4D / 5C 6C 7C",
    );
    let b = &log.battles[0];
    assert_eq!(
        b.down,
        vec![(0, 1, 1), (1, 1, 1)],
        "only the tied seats fight"
    );
    assert_eq!(b.up.len(), 5);
    assert_eq!(
        (b.winner, b.pot),
        (Some(0), 7),
        "the waiting seat's 5 goes to the war's winner"
    );
    assert_eq!(b.cards, vec![7, 0, 2]);
    // Seat-order pick-up, layer by layer: 8 8 5 / 2 3 / K 4.
    assert_eq!(b.stacks[0], s("8 8 5 2 3 K 4"));
}

#[test]
fn deals_for_three_and_four_players() {
    let r3 = rules(&[("players", "3")]);
    assert_eq!((r3.cards_per_player(), r3.cards_in_play()), (17, 51));
    let r4 = rules(&[("players", "4")]);
    assert_eq!((r4.cards_per_player(), r4.cards_in_play()), (13, 52));
    let rec = Engine::new(&r4).play(GameSeed::new(1, 0, 0));
    assert!(rec.end.finished());
}

// ---- ranking ----
#[test]
fn peasant_two_beats_king_ace_beats_two() {
    let (rec, log) = play(&[SEAT, ("ranking", "peasant")], "2S 2H / KS AD");
    let w: Vec<_> = log.battles.iter().map(|b| b.winner).collect();
    // 2 beats K; A beats 2; then 2/2 tie, war with one card each: K beats A (aces low).
    assert_eq!(w, vec![Some(0), Some(1), Some(0)]);
    assert_eq!((rec.end, rec.winner), (EndReason::AllCards, Some(0)));
}

#[test]
fn aces_low_and_low_beats_high() {
    let (_, log) = play(&[SEAT, ("ranking", "aces-low")], "AS 3C / 2H 4D");
    assert_eq!(log.battles[0].winner, Some(1), "aces low: 2 beats A");
    let (_, log) = play(
        &[SEAT, ("ranking", "low-beats-high")],
        "2S 2C AC / AH 3D KD",
    );
    let w: Vec<_> = log.battles.iter().take(3).map(|b| b.winner).collect();
    assert_eq!(
        w,
        vec![Some(0), Some(1), Some(0)],
        "2 beats A; 3 beats 2; A beats K"
    );
    let (_, log) = play(
        &[SEAT, ("ranking", "low-beats-high"), ("low_rank", "3")],
        "3S / AH 2D",
    );
    assert_eq!(
        log.battles[0].winner,
        Some(0),
        "a named low rank beats the ace"
    );
}

#[test]
fn jokers_beat_aces_and_tie_each_other() {
    let (_, log) = play(
        &[SEAT, ("deck", "jokers54"), ("decks", "2")],
        "JK JK 2C 3C 4C AS / AH JK 2D 3D 4D KS",
    );
    assert_eq!(log.battles[0].winner, Some(0));
    assert_eq!(log.battles[1].wars, 1, "joker vs joker is a war");
}

#[test]
fn deck_shapes() {
    assert_eq!(rules(&[("deck", "piquet36")]).cards_in_play(), 36);
    assert_eq!(rules(&[("deck", "jokers54")]).cards_in_play(), 54);
    assert_eq!(rules(&[("decks", "2")]).cards_in_play(), 104);
    let custom = rules(&[
        ("deck", "custom"),
        ("ranks", "64"),
        ("suits", "4"),
        ("decks", "2"),
    ]);
    assert_eq!(custom.cards_in_play(), 512);
    let rec = Engine::new(&custom).play(GameSeed::new(1, 0, 0));
    assert!(rec.battles > 0);
    // Multi-deck: identical cards tie.
    let (_, log) = play(&[SEAT, ("decks", "2")], "AS 2C 3C 4C KS / AS 2D 3D 4D QS");
    assert_eq!(log.battles[0].wars, 1);
}

// ---- war_down ----
#[test]
fn war_down_by_rank_and_table() {
    // A tie on 2s puts 2 cards down; on 3s, 3.
    let (_, log) = play(
        &[SEAT, ("war_down", "by-rank")],
        "2S 3C 4C AS / 2H 5D 6D KS",
    );
    assert_eq!(log.battles[0].down, vec![(0, 2, 1), (1, 2, 1)]);
    assert_eq!(log.battles[0].pot, 8);
    let (_, log) = play(&[SEAT, ("war_down", "2=1,3=0")], "2S 3C AS / 2H 5D KS");
    assert_eq!(log.battles[0].down, vec![(0, 1, 1), (1, 1, 1)]);
    let (_, log) = play(&[SEAT, ("war_down", "0")], "2S AS / 2H KS");
    assert_eq!(log.battles[0].down, vec![(0, 0, 1), (1, 0, 1)]);
    assert_eq!(log.battles[0].pot, 4);
}

// ---- pickup ----
const WAR_DEAL: &str = "5S 2C 3C 4C AS / 5H 2D 3D 4D KS";

fn stack_after_war(pickup: &str) -> Vec<String> {
    let (_, log) = play(&[("pickup", pickup)], WAR_DEAL);
    log.battles[0].stacks[0].clone()
}

#[test]
fn pickup_orders() {
    assert_eq!(stack_after_war("winner-first"), s("5 2 3 4 A 5 2 3 4 K"));
    assert_eq!(stack_after_war("loser-first"), s("5 2 3 4 K 5 2 3 4 A"));
    assert_eq!(stack_after_war("played"), s("5 5 2 2 3 3 4 4 A K"));
    assert_eq!(stack_after_war("seat"), s("5 5 2 2 3 3 4 4 A K"));
    assert_eq!(stack_after_war("rank-desc"), s("A K 5 5 4 4 3 3 2 2"));
    assert_eq!(stack_after_war("rank-asc"), s("2 2 3 3 4 4 5 5 K A"));
    let shuffled = stack_after_war("shuffled");
    let mut sorted = shuffled.clone();
    sorted.sort();
    let mut expect = s("5 2 3 4 A 5 2 3 4 K");
    expect.sort();
    assert_eq!(sorted, expect, "shuffled keeps the same cards");
    // `played` and `seat` differ when seat 1 wins: winner's card first vs seat 0's first.
    let (_, log) = play(
        &[("pickup", "played")],
        "5S 2C 3C 4C KS 9C / 5H 2D 3D 4D AS",
    );
    assert_eq!(log.battles[0].stacks[1], s("5 5 2 2 3 3 4 4 A K"));
    let (_, log) = play(&[("pickup", "seat")], "5S 2C 3C 4C KS 9C / 5H 2D 3D 4D AS");
    assert_eq!(log.battles[0].stacks[1], s("5 5 2 2 3 3 4 4 K A"));
}

#[test]
fn shuffled_pickup_is_uniform_for_two_cards() {
    let mut first_is_winner = 0;
    for seed in 0..2000 {
        let (_, log) = play_seeded(&[], "QS 3C / 9H 4D", seed);
        if log.battles[0].stacks[0][1] == "Q" {
            first_is_winner += 1;
        }
    }
    // Binomial(2000, 1/2): sd ≈ 22; 5 sd either side.
    assert!((890..=1110).contains(&first_is_winner), "{first_is_winner}");
}

// ---- pile / on_empty ----
#[test]
fn two_pile_turn_over_plays_like_one_pile() {
    // Turning the won pile over keeps the won order: play is identical to a single pile.
    let single = rules(&[]);
    let two = rules(&[("pile", "two-pile"), ("on_empty", "turn-over")]);
    let (mut a, mut b) = (Engine::new(&single), Engine::new(&two));
    for g in 0..2000 {
        let id = GameSeed::new(3, 0, g);
        assert_eq!(a.play(id), b.play(id), "game {g}");
    }
    let (rec, log) = play(
        &[SEAT, ("pile", "two-pile"), ("on_empty", "turn-over")],
        "5C / 3D 4D",
    );
    assert_eq!(
        log.battles[0].piles[0],
        s("5 3"),
        "won cards go to the won pile"
    );
    assert_eq!(log.battles[0].stacks[0], Vec::<String>::new());
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::AllCards, Some(0), 2)
    );
}

#[test]
fn two_pile_on_empty_shuffle_and_lose() {
    // Seat 0 wins the 5 against the 3 and its stack is empty: it cannot turn up the next card,
    // so it loses with its won pile, and no further battle is played.
    let lose = [SEAT, ("pile", "two-pile"), ("on_empty", "lose")];
    let (rec, log) = play(&lose, "5C / 3D 4D");
    assert_eq!(log.battles.len(), 1, "no battle without a card to turn");
    assert_eq!(log.battles[0].piles[0], s("5 3"));
    assert_eq!(
        (rec.end, rec.winner, rec.battles, rec.cards_turned),
        (EndReason::Forfeit, Some(1), 1, 2),
        "empty stack loses even with a won pile"
    );
    // Both stacks run out in the same battle: nobody can play on, a draw (by forfeit, not a war).
    let (rec, log) = play(&lose, "5C 2C / 3D 4D");
    assert_eq!(log.battles.len(), 2);
    assert_eq!(log.battles[1].wars, 0);
    assert_eq!(
        (rec.end, rec.winner, rec.battles, rec.cards_turned),
        (EndReason::Forfeit, None, 2, 4)
    );
    // Three players: the one whose stack ran out drops out before the next battle, and its won
    // pile goes to that battle's winner; the other two play on.
    let (rec, log) = play(
        &[
            SEAT,
            ("pile", "two-pile"),
            ("on_empty", "lose"),
            ("players", "3"),
        ],
        "9C / 3D 4D / 2H 5H",
    );
    assert_eq!(log.battles[1].dropped, vec![(0, true)]);
    assert_eq!(
        log.battles[1].winner,
        Some(2),
        "5 beats 4; the 9 and 3 of seat 0's pile go along"
    );
    assert_eq!(log.battles[1].pot, 5);
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::Forfeit, Some(2), 2)
    );
    let mut firsts = std::collections::BTreeSet::new();
    for seed in 0..64 {
        let (_, log) = play_seeded(
            &[SEAT, ("pile", "two-pile"), ("on_empty", "shuffle")],
            "5C / 3D 4D",
            seed,
        );
        firsts.insert(log.battles[1].up[0].1.clone());
    }
    assert_eq!(
        firsts,
        ["3".to_string(), "5".to_string()].into(),
        "the won pile is shuffled"
    );
}

// ---- endings ----
const END_DEAL: &str = "QS 8C 2C 3C 5C KH AD 7C / 9H 8D 2D 3D 5D 4S KC 7D";

#[test]
fn endings() {
    let (rec, _) = play(&[("battle_limit", "1")], END_DEAL);
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::BattleLimit, Some(0), 1)
    );
    let (rec, _) = play(&[("wars_to_win", "1")], END_DEAL);
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::WarsToWin, Some(0), 2)
    );
    let (rec, _) = play(&[("target_cards", "12")], END_DEAL);
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::Target, Some(0), 2)
    );
    let (rec, _) = play(&[("min_cards", "4")], END_DEAL);
    assert_eq!(
        (rec.end, rec.winner, rec.battles),
        (EndReason::MinCards, Some(0), 2)
    );
    // At the limit, equal counts are a draw.
    let (rec, _) = play(&[("battle_limit", "2")], "QS 2C / 9H 3D");
    assert_eq!((rec.end, rec.winner), (EndReason::BattleLimit, None));
}

#[test]
fn safety_cap_is_reported() {
    let r = rules(&[("safety_cap", "10")]);
    let rec = Engine::new(&r).play(GameSeed::new(1, 0, 0));
    assert_eq!(
        (rec.end, rec.battles, rec.winner),
        (EndReason::Capped, 10, None)
    );
}

// ---- extras ----
#[test]
fn prize_card() {
    let (_, log) = play(&[SEAT, ("prize", "true")], "4C QS 5C / 6D 9H 7D");
    let b = &log.battles;
    assert_eq!(b[0].prizes, vec![(0, "4".into()), (1, "6".into())]);
    assert_eq!(
        (b[0].winner, b[0].pot),
        (Some(0), 4),
        "the winner takes the prizes too"
    );
    assert_eq!(
        b[1].prizes,
        vec![(0, "5".into())],
        "a player with one card keeps it to play"
    );
    assert_eq!((b[1].winner, b[1].pot), (Some(1), 3));
}

/// Three seats with a prize, one of them dealt a single card; seats down to their last card
/// give no prize and turn that card up. Worked by hand (pick-up layer by layer, seat 0's card
/// first in each layer; a pot is each seat's prize, then its face-up card):
/// 1. prizes 4♣ 6♦, none from seat 2; Q 9 K: seat 2 takes 4 6 K Q 9.
/// 2. seats 0 and 1 hold one card each: no prizes but seat 2's 4; 5 7 6: seat 1 takes 5 7 4 6,
///    and seat 0 is out.
/// 3. prizes 5 K; 7 Q: seat 2 takes 5 K 7 Q (seat 1: 4 6; seat 2: 9 5 K 7 Q).
/// 4. prizes 4 9; 6 5: seat 1 takes 4 9 6 5 (seat 1: 4 9 6 5; seat 2: K 7 Q).
/// 5. prizes 4 K; 9 7: seat 1 takes 4 K 9 7 (seat 1: 6 5 4 K 9 7; seat 2: Q).
/// 6. seat 2's last card: prize 6 from seat 1 only; 5 Q: seat 2 takes 6 Q 5.
/// 7. prizes 4 6; K Q: seat 1 takes 4 6 K Q (seat 1: 9 7 4 6 K Q; seat 2: 5).
/// 8. prize 9 from seat 1 only; 7 5: seat 1 takes 9 5 7, and seat 2 is out.
///
/// Every loop that plays the rules plays the same game, with the last two seats kept at the
/// table or handed to the two-seat loops.
#[test]
fn prize_not_given_from_a_last_card() {
    let pairs = [SEAT, ("prize", "true"), ("players", "3")];
    let text = "4C QS 5C / 6D 9H 7D / KS";
    let (rec, log) = play(&pairs, text);
    let b = &log.battles;
    let p = |v: &[(usize, &str)]| {
        v.iter()
            .map(|&(q, c)| (q, c.to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(b[0].prizes, p(&[(0, "4"), (1, "6")]), "seat 2 has one card");
    assert_eq!((b[0].winner, b[0].pot), (Some(2), 5));
    assert_eq!(b[1].prizes, p(&[(2, "4")]), "seats 0 and 1 have one card");
    assert_eq!((b[1].winner, b[1].pot), (Some(1), 4));
    assert_eq!(b[5].prizes, p(&[(1, "6")]));
    assert_eq!((b[5].winner, b[5].pot), (Some(2), 3));
    assert_eq!(b[7].prizes, p(&[(1, "9")]));
    assert_eq!((b[7].winner, b[7].pot), (Some(1), 3));
    assert_eq!(
        (rec.end, rec.winner, rec.battles, rec.wars, rec.cards_turned),
        (EndReason::AllCards, Some(1), 8, 0, 31)
    );
    let rules = rules(&pairs);
    let deal = Deal::parse(&rules, text).unwrap();
    let mut engine = Engine::new(&rules);
    let mut played = 0;
    for hot in HotLoop::ALL {
        if !engine.force_loop(hot) {
            continue;
        }
        for last in [None, Some(HotLoop::Duo), Some(HotLoop::Block)] {
            if engine.force_last_two_loop(last) || last.is_none() {
                let got = engine.play_deal(&deal, GameSeed::new(0, 0, 0));
                assert_eq!(got, rec, "{hot} loop, last two {last:?}");
                played += 1;
            }
        }
    }
    assert!(
        played >= 3,
        "the general loop and the table loop, the last two kept or not"
    );
}

#[test]
fn war_cause_goes_to_loser() {
    let (_, log) = play(
        &[SEAT, ("war_cause_to_loser", "true")],
        "5S 2C 3C 4C AS 9C / 5H 2D 3D 4D KS 9D",
    );
    let b = &log.battles[0];
    assert_eq!(
        b.stacks[0],
        s("9 2 2 3 3 4 4 A K"),
        "the winner takes all but the two fives"
    );
    assert_eq!(
        b.stacks[1],
        s("9 5 5"),
        "the loser takes back the cards that caused the war"
    );
}

#[test]
fn hand_of_three_policies() {
    // Hands: seat 0 holds 2 9 5, seat 1 holds 4 6 8.
    let deal = "2C 9C 5C 3C / 4D 6D 8D 7D";
    let first = |policy: &str| {
        let (_, log) = play(&[SEAT, ("hand", "3"), ("hand_policy", policy)], deal);
        let b = &log.battles[0];
        (b.up[0].1.clone(), b.up[1].1.clone(), b.winner)
    };
    assert_eq!(first("highest"), ("9".into(), "8".into(), Some(0)));
    assert_eq!(first("lowest"), ("2".into(), "4".into(), Some(1)));
    assert_eq!(first("median"), ("5".into(), "6".into(), Some(1)));
    // Per-seat policies: highest against lowest.
    assert_eq!(first("highest,lowest"), ("9".into(), "4".into(), Some(0)));
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..60 {
        let (_, log) = play_seeded(
            &[SEAT, ("hand", "3"), ("hand_policy", "random")],
            deal,
            seed,
        );
        seen.insert(log.battles[0].up[0].1.clone());
    }
    assert_eq!(seen.len(), 3, "random picks any card of the hand: {seen:?}");
    // The played card is replaced from the stack.
    let (_, log) = play(&[SEAT, ("hand", "3"), ("hand_policy", "highest")], deal);
    assert_eq!(
        log.battles[1].up[0].1, "5",
        "hand 2 3 5 after refilling with the 3"
    );
}

/// A war with hands that a stack cannot play in full, worked by hand. Hands of three, lowest
/// card first: both play their 5 (seat 0 refills with its 2, seat 1 with its 3), a war of
/// three. Seat 0's stack holds two cards (8 4), one short of the three a war puts down: under
/// `all-but-last` both go down and its 2 comes up from the hand, which has no card to refill
/// from (K 9 left); under `last-card-up` none go down, its 2 comes up and the 8 refills the
/// hand (4 left in the stack). Seat 1 puts 4 6 7 down and its 3 up, its hand short too (K 9),
/// and wins; it takes the pots and its hand grows back from them. The table loop plays the
/// same games, this war on its lanes.
#[test]
fn hand_war_with_a_short_stack() {
    let deal = "5C 9C KC 2C 8C 4C / 5D 9D KD 3D 4D 6D 7D";
    for (short, seat0_down, pot, cards) in [
        ("all-but-last", 2, 9, vec![2, 11]),
        ("last-card-up", 0, 7, vec![4, 9]),
    ] {
        let pairs = [
            SEAT,
            ("hand", "3"),
            ("hand_policy", "lowest"),
            ("short_war", short),
        ];
        let (rec, log) = play(&pairs, deal);
        let b = &log.battles[0];
        assert_eq!(b.down, vec![(0, seat0_down, 1), (1, 3, 1)], "{short}");
        assert_eq!(
            b.up,
            [
                (0, "5".into(), 0),
                (1, "5".into(), 0),
                (0, "2".into(), 1),
                (1, "3".into(), 1)
            ],
            "{short}"
        );
        assert_eq!(
            (b.winner, b.pot, &b.cards),
            (Some(1), pot, &cards),
            "{short}"
        );
        let r = rules(&pairs);
        let mut table = Engine::new(&r);
        assert_eq!(table.hot_loop(), HotLoop::Table);
        let fast = table.play_deal(&Deal::parse(&r, deal).unwrap(), GameSeed::new(0, 0, 0));
        assert_eq!(
            fast, rec,
            "{short}: the table loop plays the general loop's game"
        );
        assert!(
            table.lane_wars() >= 1,
            "{short}: the war is played on the lanes"
        );
    }
}

#[test]
fn speed_grab() {
    let (rec, log) = play(&[SEAT, ("speed", "1")], "2C 3C / AD KD");
    assert!(log.battles.iter().all(|b| b.grabbed && b.winner == Some(0)));
    assert_eq!((rec.winner, rec.battles), (Some(0), 2));
}

// ---- options and errors ----
#[test]
fn option_errors_name_the_option_and_the_allowed_values() {
    let mut o = RuleOptions::default();
    let e = o.set("pickup", "sideways").unwrap_err().to_string();
    assert!(
        e.contains("pickup") && e.contains("winner-first") && e.contains("sideways"),
        "{e}"
    );
    let e = o.set("pikcup", "seat").unwrap_err().to_string();
    assert!(
        e.contains("unknown rule option") && e.contains("pickup"),
        "{e}"
    );
    let e = Rules::from_pairs([("on_empty", "shuffle")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("on_empty") && e.contains("pile"), "{e}");
    let e = Rules::from_pairs([("players", "3"), ("war_cause_to_loser", "true")])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("war_cause_to_loser") && e.contains("players"),
        "{e}"
    );
    let e = Rules::from_pairs([("safety_cap", "none")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("safety_cap"), "{e}");
    assert!(Rules::from_pairs([("safety_cap", "none"), ("pickup", "seat")]).is_ok());
    let e = Rules::from_pairs([("deck", "custom"), ("ranks", "20"), ("ranking", "peasant")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("ranking") && e.contains("deck"), "{e}");
    let e = Rules::from_pairs([("hand_policy", "highest")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("hand"), "{e}");
}

#[test]
fn options_round_trip_through_text() {
    let r = rules(&[
        ("pickup", "seat"),
        ("war_down", "by-rank"),
        ("hand", "3"),
        ("hand_policy", "highest,random"),
    ]);
    let mut o = RuleOptions::default();
    for (k, v) in r.options().to_pairs() {
        o.set(k, &v).unwrap();
    }
    assert_eq!(&o, r.options());
    assert_eq!(
        r.to_string(),
        "war_down=by-rank pickup=seat hand=3 hand_policy=highest,random"
    );
    assert_eq!(
        r.to_string().parse::<Rules>().unwrap().options(),
        r.options()
    );
    assert_eq!(Rules::classic().to_string(), "classic");
}

#[test]
fn deck_order_deals_one_at_a_time() {
    let r = rules(&[
        ("deck", "custom"),
        ("ranks", "3"),
        ("suits", "2"),
        ("players", "2"),
    ]);
    let d = Deal::from_deck_order(&r, "1 2 3 1 2 3").unwrap();
    assert_eq!(d.to_text(&r), "1 3 2 / 2 1 3");
    assert!(
        Deal::parse(&r, "1 1 1 / 2")
            .unwrap_err()
            .to_string()
            .contains("more `1` cards")
    );
    assert!(
        Deal::parse(&r, "9 / 2")
            .unwrap_err()
            .to_string()
            .contains("ranks are")
    );
}
