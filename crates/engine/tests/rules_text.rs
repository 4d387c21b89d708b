//! A rule set's text (`Display`, shown by `trace` and `bench`) reads back as the same rules:
//! values that hold `,` and `=` (war-size tables, policy lists) stay whole.

use proptest::prelude::*;
use warlab_engine::Rules;

/// `rules` written as text and read back: the same options, and the same text again.
fn round_trip(rules: &Rules) -> String {
    let text = rules.to_string();
    let back: Rules = text
        .parse()
        .unwrap_or_else(|e| panic!("{text:?} does not read back: {e}"));
    assert_eq!(back.options(), rules.options(), "{text:?}");
    assert_eq!(back.to_string(), text);
    text
}

fn rules(pairs: &[(&str, &str)]) -> Rules {
    Rules::from_pairs(pairs.iter().copied()).unwrap_or_else(|e| panic!("{pairs:?}: {e}"))
}

#[test]
fn worked_examples_read_back() {
    assert_eq!(round_trip(&Rules::classic()), "classic");
    assert_eq!(
        round_trip(&rules(&[
            ("pickup", "seat"),
            ("war_down", "J=1,Q=2,K=3,A=4")
        ])),
        "war_down=J=1,Q=2,K=3,A=4 pickup=seat"
    );
    assert_eq!(
        round_trip(&rules(&[
            ("players", "3"),
            ("hand", "2"),
            ("hand_policy", "highest,lowest,median"),
        ])),
        "players=3 hand=2 hand_policy=highest,lowest,median"
    );
    assert_eq!(
        round_trip(&rules(&[("ranking", "low-beats-high"), ("low_rank", "10")])),
        "ranking=low-beats-high low_rank=10"
    );
    assert_eq!(
        round_trip(&rules(&[
            ("deck", "custom"),
            ("ranks", "5"),
            ("speed", "0.1")
        ])),
        "deck=custom ranks=5 speed=0.1"
    );
}

#[test]
fn bad_text_is_an_error_not_other_rules() {
    for (text, says) in [
        ("pickup", "no `=value`"),
        ("pickup =seat", "no `=value`"),
        ("pickup=seat,war_down=1", "pickup"),
        ("colour=red", "colour"),
    ] {
        let e = text.parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains(says), "{text:?}: {e}");
    }
}

const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];
const POLICIES: [&str; 4] = ["random", "highest", "lowest", "median"];

/// A valid rule set with a war-size table (and often a policy list): every option here is
/// valid with every other, so every case is tested (none skipped).
fn table_rules() -> impl Strategy<Value = Vec<(String, String)>> {
    (
        proptest::sample::subsequence(RANKS.to_vec(), 1..=RANKS.len()),
        proptest::collection::vec(0u32..=64, RANKS.len()),
        2usize..=4,
        0u8..=3,
        proptest::sample::select(vec!["shuffled", "seat", "winner-first", "rank-desc"]),
        proptest::collection::vec(proptest::sample::select(POLICIES.to_vec()), 4),
        any::<bool>(),
    )
        .prop_map(|(ranks, counts, players, hand, pickup, policies, one)| {
            let table: Vec<String> = ranks
                .iter()
                .zip(&counts)
                .map(|(r, c)| format!("{r}={c}"))
                .collect();
            let mut pairs = vec![
                ("players".to_string(), players.to_string()),
                ("war_down".to_string(), table.join(",")),
                ("pickup".to_string(), pickup.to_string()),
                ("hand".to_string(), hand.to_string()),
            ];
            if hand > 0 {
                let n = if one { 1 } else { players };
                pairs.push(("hand_policy".to_string(), policies[..n].join(",")));
            }
            pairs
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn war_size_tables_read_back(pairs in table_rules()) {
        let rules = Rules::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
        let text = round_trip(&rules);
        prop_assert!(text.contains("war_down="), "{}", text);
    }
}
