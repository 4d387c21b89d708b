//! Independent checks of "what decides a game" (issue 18): the runner's `aggregate.decides`
//! against counts recomputed from scratch.
//!
//! Every expected value here comes from a naive observer ([`History`]) that stores every
//! seat's card count after every battle, the war cards and the shuffles of each battle, and
//! from the game's [`GameRecord`], counted with plain loops. Nothing of
//! `warlab_stats::decides` computes an expected value: its types are only read (the runner's
//! output) or used as a container ([`Outcomes`]), and its [`Watch`] is only compared with.
//!
//! The definitions followed (issue 18's brief):
//! - hand: seat 0's dealt cards; `by_top[a]`: `a` cards of the highest value; `by_sum[s]`:
//!   values summing to `s`; `by_value[v][c]`: `[games, seat-0 wins]` with `c` cards of value
//!   `v`; outcomes: games, wins, losses, ended, Σ and Σ² of the ended games' battles;
//! - position: for each checkpoint `t`, the games still in play after battle `t` (or looping),
//!   by seat 0's cards then: `[games, seat-0 wins, other wins]`; `never_trails[i]`: games with
//!   a winner in play at `t`, and those whose winner never held strictly fewer cards than
//!   another seat in the game after any battle `> t`; `last_change`: the last battle after
//!   which the strict leader changed (a tie keeps the old leader; 0 if never);
//! - time: round-half-up((battles·battle_ms + war_cards·war_card_ms + shuffles·shuffle_ms) /
//!   1000) for ended games, `unended` for the rest.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use warlab_engine::{EndReason, Engine, GameRecord, GameSeed, Observer, Pile, View};
use warlab_experiment::{Experiment, Variant};
use warlab_runner::{GameRow, Plan, Sink, play_chunk, run};
use warlab_stats::Aggregate;
use warlab_stats::decides::{CHECKPOINTS, Decides, Outcomes, Watch};

/// The checkpoints as the brief lists them (so that a change of the constant is noticed).
const CHECKPOINTS_EXPECTED: [u64; 10] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

/// The time model of every experiment below, in milliseconds: battle, war card, shuffle.
/// Quarter and half seconds, so that round-half-up matters.
const TIME_MS: (u64, u64, u64) = (2250, 500, 7500);
const DECIDES_TABLE: &str = "[decides]\nposition = true\nbattle_seconds = 2.25\n\
                             war_card_seconds = 0.5\nshuffle_seconds = 7.5\n";

const SEED: u64 = 11;

#[test]
fn checkpoints_are_the_documented_ones() {
    assert_eq!(CHECKPOINTS, CHECKPOINTS_EXPECTED);
}

/// Test 1: the runner's counts of 3000 games against per-game replays, field by field.
/// Classic, one card down, three players and a two-pile shuffle as the brief asks; besides
/// them a looping rule set (the loop replay of the positions) and the two-pile rule sets whose
/// shuffles are hardest to see (the war's cause back to its loser, hands, prizes of 4 seats).
#[test]
fn counts_match_replays_of_every_game() {
    let variants = "\
[[variant]]
name = \"classic\"
[[variant]]
name = \"war-down-1\"
war_down = 1
[[variant]]
name = \"three-players\"
players = 3
[[variant]]
name = \"two-pile\"
pile = \"two-pile\"
on_empty = \"shuffle\"
[[variant]]
name = \"seat-loops\"
pickup = \"seat\"
war_down = 1
[[variant]]
name = \"two-pile-cause\"
pile = \"two-pile\"
war_cause_to_loser = true
[[variant]]
name = \"two-pile-hand\"
pile = \"two-pile\"
hand = 3
[[variant]]
name = \"four-two-pile-prize\"
players = 4
pile = \"two-pile\"
prize = true
";
    let exp = experiment(3000, variants);
    let mut failures = Vec::new();
    for v in &exp.variants {
        let (agg, rows) = play_chunk(v, SEED, 0..3000, true, exp.games);
        assert_eq!(agg.games, 3000);
        let expected = replay(v, SEED, 0..3000, Some(&rows));
        if v.name == "seat-loops" {
            assert!(agg.ended(EndReason::Cycle) > 0, "seat order loops");
        }
        if let Err(e) = compare(&v.name, &agg.decides, &expected) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Test 2a: seat 0 dealt all four aces, in every game of a fixed deal (random pick-ups).
#[test]
fn all_four_aces_in_every_game() {
    // Seat 0: the aces, spades K..2, hearts K..4; seat 1: 3H 2H, diamonds and clubs K..2.
    let exp = experiment(
        200,
        "[[variant]]\nname = \"aces\"\ndeal = \"AS AH AD AC KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S \
         KH QH JH 10H 9H 8H 7H 6H 5H 4H / 3H 2H KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D KC QC JC \
         10C 9C 8C 7C 6C 5C 4C 3C 2C\"\n",
    );
    let v = &exp.variants[0];
    let (agg, _) = play_chunk(v, SEED, 0..200, false, exp.games);
    let h = &agg.decides.hand;
    // Every game in by_top[4], and nowhere else.
    let top = nonzero_outcomes(&h.by_top);
    assert_eq!(top.keys().copied().collect::<Vec<_>>(), [4]);
    let o = top[&4];
    assert_eq!(o.games, 200);
    // Values 2 = 0 … A = 12: 4·12 + 2·(2 + … + 11) + 1 (the 3S) + 0 (the 2S) = 179.
    let sums = nonzero_outcomes(&h.by_sum);
    assert_eq!(sums.keys().copied().collect::<Vec<_>>(), [179]);
    assert_eq!(sums[&179], o);
    // Counts by value: one 2, one 3, two of each of 4..K, four aces.
    let mut by_value = BTreeMap::new();
    for v in 0..13 {
        let c = match v {
            0 | 1 => 1,
            12 => 4,
            _ => 2,
        };
        by_value.insert((v, c), [200, o.wins]);
    }
    assert_eq!(nonzero_by_value(&h.by_value), by_value);
    // Seat 0 with every ace wins most games (a sanity check on the outcomes' side).
    assert!(o.wins > 150 && o.wins + o.losses == o.ended, "{o:?}");
    // And every field as the replays count it.
    let expected = replay(v, SEED, 0..200, None);
    compare("aces", &agg.decides, &expected).unwrap_or_else(|e| panic!("{e}"));
}

/// Test 2b: sweeps worked out by hand. Seat 0 holds the 26 highest cards (9..A and two 8s;
/// the brief's "8..A plus two 7s" would be 30 cards), seat 1 the rest, ordered so that no
/// battle ties (seat 1's 8s meet seat 0's 9s, seat 0's 8s meet 7s): seat 0 wins every battle
/// with its own 26 cards, the won ones never come up, and the game is the same whatever the
/// random pick-up order.
#[test]
fn sweeps_worked_out_by_hand() {
    let exp = experiment(
        20,
        "\
[[variant]]
name = \"sweep\"
deal = \"9S 9H 9D 9C 10S 10H 10D 10C JS JH JD JC QS QH QD QC KS KH KD KC AS AH AD AC 8S 8H / \
8D 8C 2S 2H 2D 2C 3S 3H 3D 3C 4S 4H 4D 4C 5S 5H 5D 5C 6S 6H 6D 6C 7S 7H 7D 7C\"
[[variant]]
name = \"sweep-one-war\"
deal = \"8S 9S 9H 9D AS 9C 10S 10H 10D 10C JS JH JD JC QS QH QD QC KS KH KD KC AH AD AC 8H / \
8D 2S 3S 4S 5S 8C 2H 2D 2C 3H 3D 3C 4H 4D 4C 5H 5D 5C 6S 6H 6D 6C 7S 7H 7D 7C\"
",
    );
    let n = 20;
    let all_won = |battles: u64| Outcomes {
        games: n,
        wins: n,
        losses: 0,
        ended: n,
        length_sum: n * battles,
        length_sq: u128::from(n * battles * battles),
    };
    // Values 2 = 0 … A = 12; seat 0's: 4·(7 + 8 + 9 + 10 + 11 + 12) + 2·6 = 240.
    let mut by_value = BTreeMap::new();
    for v in 0..13 {
        let c = match v {
            0..=5 => 0,
            6 => 2,
            _ => 4,
        };
        by_value.insert((v, c), [n, n]);
    }

    // The plain sweep: 26 battles, no war; seat 0 holds 26 + t cards after battle t ≤ 26.
    let (sweep, _) = play_chunk(&exp.variants[0], SEED, 0..n, false, exp.games);
    let d = &sweep.decides;
    assert_eq!(
        nonzero_outcomes(&d.hand.by_top),
        BTreeMap::from([(4, all_won(26))])
    );
    assert_eq!(
        nonzero_outcomes(&d.hand.by_sum),
        BTreeMap::from([(240, all_won(26))])
    );
    assert_eq!(nonzero_by_value(&d.hand.by_value), by_value);
    let p = d.position.as_ref().expect("position = true");
    // Checkpoints 5, 10, 25 (index 0, 1, 2); the game is over before battle 50.
    let at = BTreeMap::from([
        ((0, 31), [n, n, 0]),
        ((1, 36), [n, n, 0]),
        ((2, 51), [n, n, 0]),
    ]);
    assert_eq!(nonzero_at(&p.at), at);
    // The winner never trails after battles 5, 10, 25.
    let nt = BTreeMap::from([(0, [n, n]), (1, [n, n]), (2, [n, n])]);
    assert_eq!(nonzero_pairs(&p.never_trails), nt);
    // Tied at the deal, seat 0 leads from battle 1 on: no lead change.
    assert_eq!(hist(&p.last_change), BTreeMap::from([(0, n)]));
    // 26 · 2.25 s = 58.5 s: rounded half up, 59 s.
    let t = d.time.as_ref().expect("time");
    assert_eq!(hist(&t.seconds), BTreeMap::from([(59, n)]));
    assert_eq!(t.unended, 0);

    // One war at battle 1 (8 against 8; 9S 9H 9D against 2S 3S 4S down, AS beats 5S up): seat
    // 0 has 31 cards after it, then 30 + t after battle t; seat 1's other 21 cards lose one by
    // one, 22 battles. War cards: 3 down + 1 up a seat = 8.
    let (war, rows) = play_chunk(&exp.variants[1], SEED, 0..n, true, exp.games);
    for row in &rows {
        let r = row.record;
        assert_eq!((r.battles, r.wars, r.cards_turned), (22, 1, 52), "{r:?}");
    }
    let d = &war.decides;
    assert_eq!(
        nonzero_outcomes(&d.hand.by_top),
        BTreeMap::from([(4, all_won(22))])
    );
    assert_eq!(
        nonzero_outcomes(&d.hand.by_sum),
        BTreeMap::from([(240, all_won(22))])
    );
    assert_eq!(nonzero_by_value(&d.hand.by_value), by_value);
    let p = d.position.as_ref().expect("position = true");
    assert_eq!(
        nonzero_at(&p.at),
        BTreeMap::from([((0, 35), [n, n, 0]), ((1, 40), [n, n, 0])])
    );
    assert_eq!(
        nonzero_pairs(&p.never_trails),
        BTreeMap::from([(0, [n, n]), (1, [n, n])])
    );
    assert_eq!(hist(&p.last_change), BTreeMap::from([(0, n)]));
    // 22 · 2.25 s + 8 · 0.5 s = 53.5 s: 54 s.
    let t = d.time.as_ref().expect("time");
    assert_eq!(hist(&t.seconds), BTreeMap::from([(54, n)]));

    // Both also as the replays count them.
    for (v, agg) in exp.variants.iter().zip([&sweep, &war]) {
        let expected = replay(v, SEED, 0..n, None);
        compare(&v.name, &agg.decides, &expected).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Test 2c: shuffles of won piles worked out by hand (`pile = two-pile`: a won pile is
/// shuffled into the stack when the stack runs out), with deals of a few cards. Time model
/// 2.25 s a battle, 0.5 s a war card, 7.5 s a shuffle.
///
/// - "winner-shuffles", AS KS / 4S 3S 2S: seat 0 wins 4S and 3S and its stack is empty;
///   battle 3 shuffles its pile of four, any of which beats the 2S. 3 battles, 1 shuffle:
///   6.75 + 7.5 = 14.25 s, 14 s. Seat 1 leads at the deal (3 cards to 2), seat 0 from battle
///   1 on: the last lead change is battle 1.
/// - "loser-shuffles", 2S 9S KS KH KD AS / 3S 9H: seat 1 wins battle 1 (3S over 2S: its pile
///   holds both). Battle 2 ties 9 against 9; seat 1's stack is empty, so its pile of two is
///   shuffled into the stack, one card goes down and one up (all but the last); seat 0 puts
///   KS KH KD down and turns up AS, which beats either. Seat 1 is out. 2 battles, 4 + 2 = 6
///   war cards, 1 shuffle: 4.5 + 3 + 7.5 = 15 s.
/// - "cause-back-shuffles": the same deal with `war_cause_to_loser = true` and
///   `battle_limit = 2`. Battle 2 as above, but the loser (seat 1) takes back the two 9s onto
///   its pile: it keeps 2 cards, seat 0 has 6 and wins at the limit. 15 s again.
/// - "hand-shuffles-twice", `hand = 3`, `hand_policy = highest`, `war_down = 1`,
///   `battle_limit = 2`, AS KS QS 2S / 3S 4S 5S KH 6S 7S 8S (hands: the first three cards).
///   Battle 1: AS (refilled with 2S, seat 0's stack is now empty) beats 5S: seat 0's pile
///   holds two. Battle 2: seat 0 turns up KS and refills its hand: shuffle 1 (the pile of
///   two); KH ties it; one card down each (seat 0's last), seat 0 turns up AS or QS (no
///   refill), seat 1 turns up 6S: seat 0 wins six cards onto its empty pile, and refilling
///   its hand of two after the pick-up shuffles that pile into the stack: shuffle 2. 2
///   battles, 4 war cards, 2 shuffles: 4.5 + 2 + 15 = 21.5 s, 22 s. Seat 1 leads with 7
///   cards to 4 and 6 to 5 after battle 1; seat 0 leads (8 to 3) after battle 2.
///
/// The runner's `Watch` reads the engine's count of shuffles; an earlier `Watch` that
/// inferred them from won piles shrinking over a battle missed the last three cases.
#[test]
fn shuffles_worked_out_by_hand() {
    let exp = experiment(
        20,
        "\
[[variant]]
name = \"winner-shuffles\"
pile = \"two-pile\"
deal = \"AS KS / 4S 3S 2S\"
[[variant]]
name = \"loser-shuffles\"
pile = \"two-pile\"
deal = \"2S 9S KS KH KD AS / 3S 9H\"
[[variant]]
name = \"cause-back-shuffles\"
pile = \"two-pile\"
war_cause_to_loser = true
battle_limit = 2
deal = \"2S 9S KS KH KD AS / 3S 9H\"
[[variant]]
name = \"hand-shuffles-twice\"
pile = \"two-pile\"
hand = 3
hand_policy = \"highest\"
war_down = 1
battle_limit = 2
deal = \"AS KS QS 2S / 3S 4S 5S KH 6S 7S 8S\"
",
    );
    let n = 20;
    let mut failures = Vec::new();
    // (battles, war cards, seconds, seat 0's value sum, last lead change)
    let cases = [
        (3u64, 0u64, 14u64, 23usize, 1u64),
        (2, 6, 15, 52, 0),
        (2, 6, 15, 52, 0),
        (2, 4, 22, 33, 2),
    ];
    for (v, (battles, war, seconds, sum, last_change)) in exp.variants.iter().zip(cases) {
        let (agg, rows) = play_chunk(v, SEED, 0..n, true, exp.games);
        for row in &rows {
            let r = row.record;
            assert_eq!(
                (r.battles, r.cards_turned - 2 * r.battles),
                (battles, war),
                "{}: {r:?}",
                v.name
            );
            assert_eq!(r.winner, Some(0), "{}", v.name);
        }
        let d = &agg.decides;
        // One ace each; the sums (2 = 0 … A = 12): A + K = 23; 2 + 9 + 3·K + A = 0 + 7 + 33
        // + 12 = 52; A + K + Q + 2 = 12 + 11 + 10 + 0 = 33.
        assert_eq!(
            nonzero_outcomes(&d.hand.by_top).keys().collect::<Vec<_>>(),
            [&1],
            "{}",
            v.name
        );
        assert_eq!(
            nonzero_outcomes(&d.hand.by_sum).keys().collect::<Vec<_>>(),
            [&sum],
            "{}",
            v.name
        );
        let p = d.position.as_ref().expect("position = true");
        assert!(nonzero_at(&p.at).is_empty(), "over before battle 5");
        assert_eq!(
            hist(&p.last_change),
            BTreeMap::from([(last_change, n)]),
            "{}",
            v.name
        );
        let t = d.time.as_ref().expect("time");
        let got = hist(&t.seconds);
        if got != BTreeMap::from([(seconds, n)]) {
            failures.push(format!(
                "{}: durations {got:?}, by hand {seconds} s in every game",
                v.name
            ));
        }
        if let Err(e) = compare(&v.name, d, &replay(v, SEED, 0..n, None)) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Test 3: without an observer the time takes war cards = cards turned − 2 · battles (two
/// players, no prize); that must be the observer's count of war cards, game by game, under
/// many option combinations. The Watch's war cards and lead changes are compared on the
/// way, and the runner's record-only time with the replays'.
#[test]
fn war_cards_from_the_record_equal_the_observers() {
    let axes: [&[&str]; 7] = [
        &[
            "short_war = \"all-but-last\"",
            "short_war = \"last-card-up\"",
            "short_war = \"lose\"",
        ],
        &[
            "war_down = 0",
            "war_down = 1",
            "war_down = 3",
            "war_down = \"by-rank\"",
        ],
        &["chained_war = \"repeat\"", "chained_war = \"flip-one\""],
        &[
            "pickup = \"shuffled\"",
            "pickup = \"seat\"",
            "pickup = \"winner-first\"",
        ],
        &["hand = 0", "hand = 3"],
        &["speed = \"none\"", "speed = 0.3"],
        &[
            "pile = \"single\"",
            "pile = \"two-pile\"\non_empty = \"turn-over\"",
            "pile = \"two-pile\"\non_empty = \"lose\"",
        ],
    ];
    let combos: usize = axes.iter().map(|a| a.len()).product();
    // 36 combinations spread over the product (97 is prime to its size), classic first.
    let picks: Vec<usize> = (0..36).map(|i| i * 97 % combos).collect();
    let games = 200;
    let mut failures = Vec::new();
    let mut looped = 0;
    for pick in picks {
        let mut k = pick;
        let mut lines = Vec::new();
        for axis in &axes {
            lines.push(axis[k % axis.len()]);
            k /= axis.len();
        }
        let rules = lines.join("\n");
        let text = format!("name = \"w\"\ngames = {games}\nseed = {SEED}\n[rules]\n{rules}\n");
        let exp = Experiment::parse(Path::new("w.toml"), &text)
            .unwrap_or_else(|e| panic!("{rules}: {e}"));
        let v = &exp.variants[0];
        let label = rules.replace('\n', ", ");
        let mut engine = Engine::new(&v.rules);
        let mut h = History::new(v);
        let mut w = Watch::default();
        let mut seconds = BTreeMap::new();
        let mut unended = 0;
        for g in 0..games {
            let r =
                engine.play_observed(GameSeed::new(SEED, v.seed_id, g), &mut Both(&mut h, &mut w));
            let n = r.battles as usize;
            // The record covers the first `battles` battles (a loop: up to its first repeat).
            let observed: u64 = h.war[..n].iter().sum();
            let formula = r.cards_turned - 2 * r.battles;
            if observed != formula {
                failures.push(format!(
                    "{label}, game {g}: observer's war cards {observed}, cards turned − 2 · battles {formula} ({r:?})"
                ));
            }
            let (changes, last) = lead_changes(&h, r.battles);
            if changes != r.lead_changes {
                failures.push(format!(
                    "{label}, game {g}: {changes} lead changes replayed, {} recorded",
                    r.lead_changes
                ));
            }
            if r.end.finished() {
                assert_eq!(h.war.len(), n, "an ended game is observed to its end");
                if w.war_cards != observed || w.last_change != last {
                    failures.push(format!(
                        "{label}, game {g}: Watch war cards {} last change {}; replay {observed}, {last}",
                        w.war_cards, w.last_change
                    ));
                }
                if (r.lead_changes == 0) != (w.last_change == 0) {
                    failures.push(format!(
                        "{label}, game {g}: {} lead changes recorded, Watch's last at {}",
                        r.lead_changes, w.last_change
                    ));
                }
                let (bm, wm, _) = TIME_MS;
                *seconds
                    .entry(round_half_up(r.battles * bm + observed * wm))
                    .or_insert(0u64) += 1;
            } else {
                unended += 1;
                looped += u64::from(r.end == EndReason::Cycle);
            }
        }
        // The runner without `position`: the time from the record alone, under the same model.
        let text = format!(
            "name = \"w\"\ngames = {games}\nseed = {SEED}\n[decides]\nbattle_seconds = 2.25\n\
             war_card_seconds = 0.5\n[rules]\n{rules}\n"
        );
        let exp = Experiment::parse(Path::new("w.toml"), &text).unwrap();
        let (agg, _) = play_chunk(&exp.variants[0], SEED, 0..games, false, games);
        assert!(
            agg.decides.position.is_none(),
            "{label}: no position without the observer"
        );
        let t = agg
            .decides
            .time
            .as_ref()
            .unwrap_or_else(|| panic!("{label}: time kept"));
        if hist(&t.seconds) != seconds || t.unended != unended {
            failures.push(format!(
                "{label}: record-only durations {:?} (+{} unended), replays {seconds:?} (+{unended})",
                hist(&t.seconds),
                t.unended
            ));
        }
    }
    assert!(looped > 0, "some sampled rule sets loop");
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // Where the record does not give the war cards and shuffles, no time without `position`.
    for (rules, kept) in [
        ("players = 3", false),
        ("prize = true", false),
        ("pile = \"two-pile\"", false),
        ("pile = \"two-pile\"\non_empty = \"turn-over\"", true),
        ("war_down = 2", true),
    ] {
        let text = format!("name = \"w\"\ngames = 10\n[rules]\n{rules}\n");
        let exp = Experiment::parse(Path::new("w.toml"), &text).unwrap();
        let (agg, _) = play_chunk(&exp.variants[0], SEED, 0..10, false, 10);
        assert_eq!(agg.decides.time.is_some(), kept, "{rules}");
        assert_eq!(
            agg.decides.hand.games(),
            10,
            "{rules}: the hand is always counted"
        );
    }
}

/// Test 4: the counts of games 0..8192 are the merge of 0..4096 and 4096..8192, in either
/// order, including deterministic rule sets. (The brief's example of a looping one, classic
/// with `pickup = winner-first`, loops in no game of these 8192: seat order with one card down
/// loops in about four games of ten, and is the looping one here.)
#[test]
fn halves_merge_into_the_whole() {
    let exp = experiment(
        8192,
        "[[variant]]\nname = \"classic\"\n[[variant]]\nname = \"winner-first\"\n\
         pickup = \"winner-first\"\n[[variant]]\nname = \"seat-loops\"\npickup = \"seat\"\n\
         war_down = 1\n",
    );
    let whole = play_all(&exp, 0..8192);
    let a = play_all(&exp, 0..4096);
    let b = play_all(&exp, 4096..8192);
    for v in 0..3 {
        let name = &exp.variants[v].name;
        let mut ab = a[v].clone();
        ab.merge(&b[v]);
        let mut ba = b[v].clone();
        ba.merge(&a[v]);
        assert_eq!(
            ab.decides, whole[v].decides,
            "{name}: decides, first half first"
        );
        assert_eq!(
            ba.decides, whole[v].decides,
            "{name}: decides, second half first"
        );
        assert_eq!(ab, whole[v], "{name}: the whole aggregate");
        let p = whole[v].decides.position.as_ref().expect("position = true");
        let at5: u64 = p.at[0].iter().map(|c| c[0]).sum();
        assert_eq!(whole[v].decides.hand.games(), 8192, "{name}");
        let t = whole[v].decides.time.as_ref().expect("time");
        assert_eq!(t.games(), 8192, "{name}");
        assert!(at5 > 8000, "{name}: nearly every game lasts 5 battles");
    }
    assert_eq!(whole[1].ended(EndReason::Cycle), 0, "winner-first: no loop");
    let loops = whole[2].ended(EndReason::Cycle);
    assert!(
        loops > 2000,
        "seat order with one card down loops often: {loops}"
    );
    assert_eq!(whole[2].decides.time.as_ref().unwrap().unended, loops);
    // The merged counts of the deterministic rule sets are also the replays' counts.
    for (v, agg) in exp.variants.iter().zip(&whole).skip(1) {
        let expected = replay(v, SEED, 0..8192, None);
        compare(&v.name, &agg.decides, &expected).unwrap_or_else(|e| panic!("{e}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

/// An experiment of `games` games per variant with the [`TIME_MS`] model and `position = true`.
fn experiment(games: u64, variants: &str) -> Experiment {
    let text = format!("name = \"d\"\ngames = {games}\nseed = {SEED}\n{DECIDES_TABLE}{variants}");
    Experiment::parse(Path::new("decides.toml"), &text).unwrap_or_else(|e| panic!("{e}"))
}

/// Seconds rounded half up, written as the definition says (not as the code does it).
fn round_half_up(ms: u64) -> u64 {
    let (whole, rest) = (ms / 1000, ms % 1000);
    if rest >= 500 { whole + 1 } else { whole }
}

/// A naive observer: every seat's cards (and whether it is in the game) after every battle,
/// seat 0's dealt cards, and each battle's war cards and shuffles, worked out from the cards
/// each seat put on the table and the stack, pile and hand sizes before and after.
struct History {
    /// Under `pile = two-pile` with `on_empty = shuffle` (the default with two piles).
    shuffling: bool,
    hand_mode: bool,
    /// `[b][p]`: seat `p`'s cards after battle `b` (`b = 0`: as dealt).
    cards: Vec<[usize; 4]>,
    in_game: Vec<[bool; 4]>,
    /// Seat 0's cards at the deal (stack, pile and hand).
    seat0: Vec<u8>,
    /// `[b - 1]`: the war cards of battle `b`: face down, and face up after the first.
    war: Vec<u64>,
    /// `[b - 1]`: the won piles shuffled into a stack in battle `b`.
    shuffles: Vec<u64>,
    /// Each seat's stack, pile and hand sizes before the battle being played.
    sizes: [[usize; 3]; 4],
    /// Cards each seat put on the table in this battle (prizes, face up, face down).
    table: [usize; 4],
    forfeit: [bool; 4],
}

impl History {
    fn new(v: &Variant) -> History {
        let o = v.rules.options();
        // The definition's reading: a won pile is shuffled under two piles unless `on_empty`
        // says otherwise.
        let shuffling = o.pile == Pile::TwoPile
            && o.on_empty
                .is_none_or(|e| e == warlab_engine::OnEmpty::Shuffle);
        History {
            shuffling,
            hand_mode: o.hand > 0,
            cards: Vec::new(),
            in_game: Vec::new(),
            seat0: Vec::new(),
            war: Vec::new(),
            shuffles: Vec::new(),
            sizes: [[0; 3]; 4],
            table: [0; 4],
            forfeit: [false; 4],
        }
    }

    fn snapshot(&mut self, view: &View<'_>) {
        let mut cards = [0; 4];
        let mut in_game = [false; 4];
        for p in 0..view.players() {
            cards[p] = view.cards(p);
            in_game[p] = view.in_game(p);
            self.sizes[p] = [view.stack(p).len(), view.pile(p).len(), view.hand(p).len()];
            assert_eq!(cards[p], self.sizes[p].iter().sum::<usize>());
        }
        self.cards.push(cards);
        self.in_game.push(in_game);
    }
}

impl Observer for History {
    fn game_start(&mut self, view: &View<'_>) {
        self.cards.clear();
        self.in_game.clear();
        self.war.clear();
        self.shuffles.clear();
        self.seat0 = view.stack(0);
        self.seat0.extend(view.pile(0));
        self.seat0.extend_from_slice(view.hand(0));
        self.snapshot(view);
    }

    fn battle_start(&mut self, _battle: u64) {
        self.war.push(0);
        self.shuffles.push(0);
        self.table = [0; 4];
        self.forfeit = [false; 4];
    }

    fn prize(&mut self, player: usize, _card: u8) {
        self.table[player] += 1;
    }

    fn face_up(&mut self, player: usize, _card: u8, depth: u32) {
        self.table[player] += 1;
        if depth > 0 {
            *self.war.last_mut().expect("in a battle") += 1;
        }
    }

    fn face_down(&mut self, player: usize, count: usize, _depth: u32) {
        self.table[player] += count;
        *self.war.last_mut().expect("in a battle") += count as u64;
    }

    fn drop_out(&mut self, player: usize, forfeit: bool) {
        self.forfeit[player] |= forfeit;
    }

    fn battle_end(&mut self, _winner: Option<usize>, _pot: usize, view: &View<'_>) {
        if self.shuffling {
            for p in 0..view.players() {
                let [stack, pile, hand] = self.sizes[p];
                // Cards drawn from the stack this battle: every card put on the table, less
                // those that came from the hand (the hand shrank by them, and grew by the
                // refills, which are draws). A forfeit moves cards without drawing them.
                let drawn = if self.forfeit[p] {
                    assert!(!self.hand_mode, "forfeits with hands are not followed here");
                    self.table[p]
                } else {
                    (self.table[p] + view.hand(p).len())
                        .checked_sub(hand)
                        .expect("a hand shrinks only by cards put on the table")
                };
                // The stack runs out after `stack` draws: the next draw takes the pile. Won
                // cards reach the pile only at the end of the battle, so a second turn (hand
                // refills after the pick-up) needs more than the stack and the pile.
                let turns = u64::from(drawn > stack) + u64::from(pile > 0 && drawn > stack + pile);
                *self.shuffles.last_mut().expect("in a battle") += turns;
            }
        }
        self.snapshot(view);
    }
}

/// Feeds one game's events to a [`History`] and a [`Watch`] together.
struct Both<'a>(&'a mut History, &'a mut Watch);

impl Observer for Both<'_> {
    fn game_start(&mut self, view: &View<'_>) {
        self.0.game_start(view);
        self.1.game_start(view);
    }
    fn battle_start(&mut self, battle: u64) {
        self.0.battle_start(battle);
        self.1.battle_start(battle);
    }
    fn prize(&mut self, player: usize, card: u8) {
        self.0.prize(player, card);
        self.1.prize(player, card);
    }
    fn face_up(&mut self, player: usize, card: u8, depth: u32) {
        self.0.face_up(player, card, depth);
        self.1.face_up(player, card, depth);
    }
    fn war(&mut self, depth: u32, players: u8, down: usize) {
        self.0.war(depth, players, down);
        self.1.war(depth, players, down);
    }
    fn face_down(&mut self, player: usize, count: usize, depth: u32) {
        self.0.face_down(player, count, depth);
        self.1.face_down(player, count, depth);
    }
    fn drop_out(&mut self, player: usize, forfeit: bool) {
        self.0.drop_out(player, forfeit);
        self.1.drop_out(player, forfeit);
    }
    fn grab(&mut self) {
        self.0.grab();
        self.1.grab();
    }
    fn battle_end(&mut self, winner: Option<usize>, pot: usize, view: &View<'_>) {
        self.0.battle_end(winner, pot, view);
        self.1.battle_end(winner, pot, view);
    }
}

/// The strict leader after battle `b` (most cards; `None` on a tie).
fn strict_leader(h: &History, b: usize) -> Option<usize> {
    let c = &h.cards[b];
    let most = *c.iter().max().expect("seats");
    let at_most: Vec<usize> = (0..4).filter(|&p| c[p] == most).collect();
    (at_most.len() == 1).then(|| at_most[0])
}

/// The lead changes in the first `battles` battles and the battle of the last one (0: none):
/// a tie keeps the old leader; the first leader is no change.
fn lead_changes(h: &History, battles: u64) -> (u64, u64) {
    let mut leader = strict_leader(h, 0);
    let (mut changes, mut last) = (0, 0);
    for b in 1..=battles as usize {
        if let Some(l) = strict_leader(h, b) {
            if leader.is_some_and(|old| old != l) {
                changes += 1;
                last = b as u64;
            }
            leader = Some(l);
        }
    }
    (changes, last)
}

/// Everything the counts hold, as maps of their non-zero entries.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    by_top: BTreeMap<usize, Outcomes>,
    by_sum: BTreeMap<usize, Outcomes>,
    /// `(v, c)`: `[games, seat-0 wins]`.
    by_value: BTreeMap<(usize, usize), [u64; 2]>,
    /// `(checkpoint index, seat 0's cards)`: `[games, seat-0 wins, other wins]`.
    at: BTreeMap<(usize, usize), [u64; 3]>,
    never_trails: BTreeMap<usize, [u64; 2]>,
    last_change: BTreeMap<u64, u64>,
    seconds: BTreeMap<u64, u64>,
    unended: u64,
    /// The time model the counts were made under (ms).
    model: (u64, u64, u64),
}

/// Adds one game to the outcomes of its class.
fn count_outcome(o: &mut Outcomes, r: &GameRecord) {
    o.games += 1;
    match r.winner {
        Some(0) => o.wins += 1,
        Some(_) => o.losses += 1,
        None => {}
    }
    if r.end.finished() {
        o.ended += 1;
        o.length_sum += r.battles;
        o.length_sq += u128::from(r.battles) * u128::from(r.battles);
    }
}

/// Replays games `games` of `v` with a [`History`] and counts them by the definitions; when
/// the runner's rows are given, each replayed record must be the row's.
fn replay(v: &Variant, seed: u64, games: Range<u64>, rows: Option<&[GameRow]>) -> Counts {
    let mut engine = Engine::new(&v.rules);
    let mut h = History::new(v);
    let values = v.rules.cards().values();
    let mut e = Counts {
        model: TIME_MS,
        ..Counts::default()
    };
    for (i, g) in games.enumerate() {
        let id = GameSeed::new(seed, v.seed_id, g);
        let r = match &v.deal {
            Some(deal) => engine.play_deal_observed(deal, id, &mut h),
            None => engine.play_observed(id, &mut h),
        };
        if let Some(rows) = rows {
            assert_eq!(
                (rows[i].game, rows[i].record),
                (g, r),
                "{}: game {g}",
                v.name
            );
        }
        if let Some(deal) = &v.deal {
            let mut dealt = deal.stacks()[0].clone();
            let mut seen = h.seat0.clone();
            dealt.sort_unstable();
            seen.sort_unstable();
            assert_eq!(dealt, seen, "the observer sees the deal's first stack");
        }
        count_game(&mut e, &h, &r, values);
    }
    e
}

/// Counts one replayed game by the definitions.
fn count_game(e: &mut Counts, h: &History, r: &GameRecord, values: usize) {
    let won = u64::from(r.winner == Some(0));
    // Hand: seat 0's dealt cards, value by value.
    let mut count = vec![0usize; values];
    for &c in &h.seat0 {
        count[usize::from(c)] += 1;
    }
    let sum: usize = h.seat0.iter().map(|&c| usize::from(c)).sum();
    count_outcome(e.by_top.entry(count[values - 1]).or_default(), r);
    count_outcome(e.by_sum.entry(sum).or_default(), r);
    for (v, &c) in count.iter().enumerate() {
        let cell = e.by_value.entry((v, c)).or_default();
        cell[0] += 1;
        cell[1] += won;
    }

    // The history is what was observed: an ended game to its end, a looping one at least up
    // to its first repeat (the engine notices the loop a little later).
    let observed = h.cards.len() - 1;
    if r.end.finished() {
        assert_eq!(
            observed as u64, r.battles,
            "an ended game is observed to its end"
        );
    } else {
        assert!(observed as u64 >= r.battles, "{observed} < {r:?}");
    }
    if let Some(c) = r.cycle {
        // The whole position repeats with the period from the loop's start.
        for b in c.start as usize..=observed - c.period as usize {
            assert_eq!(
                h.cards[b],
                h.cards[b + c.period as usize],
                "battle {b} of {c:?}"
            );
        }
    }

    // Position at every checkpoint: observed directly where it was, and for a loop beyond
    // that, a period earlier (again and again).
    for (i, &t) in CHECKPOINTS_EXPECTED.iter().enumerate() {
        let b = match r.cycle {
            Some(c) => {
                let mut b = t;
                while b > observed as u64 {
                    b -= c.period;
                }
                b
            }
            // In play after battle t: an ended game only if it went on past t, a capped one
            // up to where the cap stopped it.
            None if r.end.finished() && t < r.battles => t,
            None if !r.end.finished() && t <= r.battles => t,
            None => continue,
        };
        let cell = e.at.entry((i, h.cards[b as usize][0])).or_default();
        cell[0] += 1;
        match r.winner {
            Some(0) => cell[1] += 1,
            Some(_) => cell[2] += 1,
            None => {}
        }
        if let Some(w) = r.winner {
            let w = usize::from(w);
            let trails_later = (t + 1..=r.battles).any(|b| {
                let c = &h.cards[b as usize];
                (0..4).any(|q| q != w && h.in_game[b as usize][q] && c[w] < c[q])
            });
            let row = e.never_trails.entry(i).or_default();
            row[0] += 1;
            row[1] += u64::from(!trails_later);
        }
    }
    if r.winner.is_some() {
        let (_, last) = lead_changes(h, r.battles);
        *e.last_change.entry(last).or_default() += 1;
    }

    // Time.
    if r.end.finished() {
        let war: u64 = h.war.iter().sum();
        let shuffles: u64 = h.shuffles.iter().sum();
        let (bm, wm, sm) = TIME_MS;
        let ms = r.battles * bm + war * wm + shuffles * sm;
        *e.seconds.entry(round_half_up(ms)).or_default() += 1;
    } else {
        e.unended += 1;
    }
}

/// The runner's counts in the form of [`Counts`].
fn counts_of(d: &Decides) -> Counts {
    let p = d.position.as_ref().expect("position = true");
    let t = d.time.as_ref().expect("time kept with position = true");
    Counts {
        by_top: nonzero_outcomes(&d.hand.by_top),
        by_sum: nonzero_outcomes(&d.hand.by_sum),
        by_value: nonzero_by_value(&d.hand.by_value),
        at: nonzero_at(&p.at),
        never_trails: nonzero_pairs(&p.never_trails),
        last_change: hist(&p.last_change),
        seconds: hist(&t.seconds),
        unended: t.unended,
        model: (
            u64::from(t.battle_ms),
            u64::from(t.war_card_ms),
            u64::from(t.shuffle_ms),
        ),
    }
}

/// Compares the runner's counts with the replays', field by field; the error names every
/// entry that differs, with both values.
fn compare(name: &str, d: &Decides, expected: &Counts) -> Result<(), String> {
    let got = counts_of(d);
    let mut diffs = Vec::new();
    macro_rules! map {
        ($f:ident) => {
            diffs.extend(map_diff(stringify!($f), &got.$f, &expected.$f));
        };
    }
    macro_rules! value {
        ($f:ident) => {
            if got.$f != expected.$f {
                diffs.push(format!(
                    "  {}: runner {:?}, replay {:?}",
                    stringify!($f),
                    got.$f,
                    expected.$f
                ));
            }
        };
    }
    map!(by_top);
    map!(by_sum);
    map!(by_value);
    map!(at);
    map!(never_trails);
    map!(last_change);
    map!(seconds);
    value!(unended);
    value!(model);
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}:\n{}", diffs.join("\n")))
    }
}

/// The entries of two maps that differ (at most 12 shown, and how many there are).
fn map_diff<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    field: &str,
    got: &BTreeMap<K, V>,
    expected: &BTreeMap<K, V>,
) -> Vec<String> {
    let keys: std::collections::BTreeSet<&K> = got.keys().chain(expected.keys()).collect();
    let differ: Vec<String> = keys
        .into_iter()
        .filter(|k| got.get(k) != expected.get(k))
        .map(|k| {
            format!(
                "  {field}[{k:?}]: runner {:?}, replay {:?}",
                got.get(k),
                expected.get(k)
            )
        })
        .collect();
    let n = differ.len();
    let mut out: Vec<String> = differ.into_iter().take(12).collect();
    if n > 12 {
        out.push(format!("  {field}: {n} entries differ in all"));
    }
    out
}

fn nonzero_outcomes(v: &[Outcomes]) -> BTreeMap<usize, Outcomes> {
    v.iter()
        .enumerate()
        .filter(|(_, o)| **o != Outcomes::default())
        .map(|(i, o)| (i, *o))
        .collect()
}

fn nonzero_by_value(v: &[Vec<[u64; 2]>]) -> BTreeMap<(usize, usize), [u64; 2]> {
    let mut out = BTreeMap::new();
    for (value, row) in v.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            if *cell != [0, 0] {
                out.insert((value, c), *cell);
            }
        }
    }
    out
}

fn nonzero_at(v: &[Vec<[u64; 3]>]) -> BTreeMap<(usize, usize), [u64; 3]> {
    let mut out = BTreeMap::new();
    for (i, row) in v.iter().enumerate() {
        for (k, cell) in row.iter().enumerate() {
            if *cell != [0, 0, 0] {
                out.insert((i, k), *cell);
            }
        }
    }
    out
}

fn nonzero_pairs(v: &[[u64; 2]]) -> BTreeMap<usize, [u64; 2]> {
    v.iter()
        .enumerate()
        .filter(|(_, c)| **c != [0, 0])
        .map(|(i, c)| (i, *c))
        .collect()
}

fn hist(h: &warlab_stats::Hist) -> BTreeMap<u64, u64> {
    h.iter().collect()
}

/// Keeps every variant's aggregate.
#[derive(Default)]
struct Keep(BTreeMap<usize, Aggregate>);

impl Sink for Keep {
    type Error = String;
    fn is_done(&self, _: usize) -> bool {
        false
    }
    fn rows(&mut self, _: usize, _: &[GameRow]) -> Result<(), String> {
        Ok(())
    }
    fn variant_done(&mut self, v: usize, a: Aggregate) -> Result<(), String> {
        self.0.insert(v, a);
        Ok(())
    }
}

/// Every variant's aggregate of games `games`, through the runner's schedule.
fn play_all(exp: &Experiment, games: Range<u64>) -> Vec<Aggregate> {
    let mut keep = Keep::default();
    let plan = Plan {
        experiment: exp,
        games,
        seed: SEED,
        rows: false,
        threads: 2,
    };
    run(&plan, &mut keep).unwrap();
    keep.0.into_values().collect()
}
