//! A small fixed workload for instruction counts (`valgrind --tool=callgrind`): plays the same
//! games through one loop under a few rule sets, so two builds can be compared exactly.
//!
//! `cargo run --release -p warlab-engine --example loop_instr -- general 2000`, or with rule
//! options after the count (`table 2000 hand=3 hand_policy=highest`) for that one rule set.

use std::hint::black_box;
use warlab_engine::{Engine, GameSeed, HotLoop, Rules};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "general".into());
    let games: u64 = args
        .next()
        .map_or(2_000, |g| g.parse().expect("a game count"));
    let hot = *HotLoop::ALL
        .iter()
        .find(|l| l.name() == name)
        .expect("a loop: general, table, duo or block");
    let given: Vec<String> = args.collect();
    let given: Vec<(&str, &str)> = given
        .iter()
        .map(|a| a.split_once('=').expect("a rule option as NAME=VALUE"))
        .collect();
    let sets: &[&[(&str, &str)]] = if given.is_empty() {
        &[
            &[],
            &[("pickup", "shuffled")],
            &[("players", "3")],
            &[("hand", "3")],
            &[("pile", "two-pile"), ("on_empty", "shuffle")],
        ]
    } else {
        &[&given]
    };
    let mut battles = 0u64;
    for pairs in sets {
        let rules = Rules::from_pairs(pairs.iter().copied()).expect("valid rules");
        let mut engine = Engine::new(&rules);
        if !engine.force_loop(hot) {
            continue;
        }
        for g in 0..games {
            battles += black_box(engine.play(GameSeed::new(1, 0, g))).battles;
        }
    }
    println!("{name}: {battles} battles");
}
