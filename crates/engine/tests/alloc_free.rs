//! After `Engine::new`, playing games allocates nothing: a counting global allocator proves it
//! under every rule option.

#[path = "common/counting.rs"]
mod counting;
use counting::allocations;
use warlab_engine::{Engine, GameSeed, Rules};

const GAMES: u64 = 10_000;

/// One rule set per option value (and a few combinations).
const SETS: &[&[(&str, &str)]] = &[
    &[],
    &[("players", "3")],
    &[("players", "4")],
    &[("deck", "piquet36")],
    &[("deck", "jokers54")],
    &[("decks", "2")],
    &[("deck", "custom"), ("ranks", "40"), ("suits", "3")],
    &[("ranking", "aces-low")],
    &[("ranking", "peasant"), ("players", "4")],
    &[("ranking", "low-beats-high")],
    &[("war_down", "0")],
    &[("war_down", "5")],
    &[("war_down", "by-rank")],
    &[("war_down", "J=1,Q=2,K=3,A=4")],
    &[("chained_war", "flip-one")],
    &[("short_war", "last-card-up")],
    &[("short_war", "lose")],
    &[("pickup", "winner-first")],
    &[("pickup", "loser-first")],
    &[("pickup", "played"), ("players", "3")],
    &[("pickup", "seat"), ("war_down", "1")],
    &[("pickup", "rank-desc")],
    &[("pickup", "rank-asc")],
    &[("pile", "two-pile")],
    &[("pile", "two-pile"), ("on_empty", "turn-over")],
    &[("pile", "two-pile"), ("on_empty", "lose")],
    &[("battle_limit", "100")],
    &[("wars_to_win", "3")],
    &[("target_cards", "40")],
    &[("min_cards", "5")],
    &[("prize", "true")],
    &[("war_cause_to_loser", "true")],
    &[("hand", "3")],
    &[("hand", "3"), ("hand_policy", "highest,lowest")],
    &[("hand", "3"), ("hand_policy", "median"), ("players", "4")],
    &[("speed", "0.2")],
    &[
        ("players", "4"),
        ("decks", "3"),
        ("hand", "3"),
        ("prize", "true"),
        ("pile", "two-pile"),
    ],
];

#[test]
fn playing_allocates_nothing_after_setup() {
    for pairs in SETS {
        let rules =
            Rules::from_pairs(pairs.iter().copied()).unwrap_or_else(|e| panic!("{pairs:?}: {e}"));
        let mut engine = Engine::new(&rules);
        let before = allocations();
        let mut battles = 0;
        for g in 0..GAMES {
            battles += engine.play(GameSeed::new(11, 0, g)).battles;
        }
        let after = allocations();
        assert_eq!(
            after - before,
            0,
            "{pairs:?}: {} allocations in {GAMES} games",
            after - before
        );
        assert!(battles > 0);
    }
}
