use std::time::Instant;
use warlab_engine::{EndReason, Engine, GameSeed, Rules};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pairs: Vec<(&str, &str)> = args.iter().map(|a| a.split_once('=').unwrap()).collect();
    let rules = Rules::from_pairs(pairs).unwrap();
    let mut e = Engine::new(&rules);
    let n = 1_000_000u64;
    let t = Instant::now();
    let mut battles = 0u64;
    let mut ends = std::collections::BTreeMap::new();
    for g in 0..n {
        let r = e.play(GameSeed::new(1, 0, g));
        battles += r.battles;
        *ends.entry(r.end).or_insert(0u64) += 1;
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{:.0} games/s, {:.2} ns/battle, mean battles {:.1} {:?}",
        n as f64 / s,
        s * 1e9 / battles as f64,
        battles as f64 / n as f64,
        ends
    );
    let _ = EndReason::AllCards;
}
