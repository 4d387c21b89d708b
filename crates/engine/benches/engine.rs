//! Criterion benchmark of the engine: games per second under a few rule sets.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use warlab_engine::{Engine, GameSeed, Rules};

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

criterion_group!(benches, bench);
criterion_main!(benches);
