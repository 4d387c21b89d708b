//! Criterion benchmark of the engine: games per second under a few rule sets, and the
//! Fisher–Yates shuffle alone (the deal's, a war's pot, a won pile turned over), which is
//! most of a game's cost where games are short.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use warlab_engine::{Engine, GameRng, GameSeed, Rules};

fn bench(c: &mut Criterion) {
    let sets: &[(&str, &[(&str, &str)])] = &[
        ("classic", &[]),
        ("pickup=seat", &[("pickup", "seat")]),
        ("players=4", &[("players", "4")]),
        ("hand=3", &[("hand", "3")]),
    ];
    let mut group = c.benchmark_group("games");
    group.throughput(Throughput::Elements(1));
    for (name, pairs) in sets {
        let rules = Rules::from_pairs(pairs.iter().copied()).expect("valid rules");
        let mut engine = Engine::new(&rules);
        let mut g = 0u64;
        group.bench_function(*name, |b| {
            b.iter(|| {
                g += 1;
                black_box(engine.play(GameSeed::new(1, 0, g)))
            })
        });
        if engine.hot_loop() == warlab_engine::HotLoop::Block {
            // The same games through the portable loop, for the ratio on this machine.
            engine.force_loop(warlab_engine::HotLoop::Duo);
            group.bench_function(format!("{name} (portable loop)"), |b| {
                b.iter(|| {
                    g += 1;
                    black_box(engine.play(GameSeed::new(1, 0, g)))
                })
            });
        }
    }
    group.finish();
}

/// Shuffles of `n` cards, each from the same fresh order (the engine copies its fresh deck
/// before each deal the same way), on one generator's stream.
fn shuffles(c: &mut Criterion) {
    let mut group = c.benchmark_group("shuffle");
    group.throughput(Throughput::Elements(1));
    for n in [6u8, 10, 26, 52] {
        let fresh: Vec<u8> = (0..n).collect();
        let mut cards = fresh.clone();
        let mut rng = GameRng::new(GameSeed::new(1, 0, u64::from(n)));
        group.bench_function(format!("{n} cards"), |b| {
            b.iter(|| {
                cards.copy_from_slice(&fresh);
                rng.shuffle(black_box(&mut cards));
                black_box(cards[0])
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, shuffles);
criterion_main!(benches);
