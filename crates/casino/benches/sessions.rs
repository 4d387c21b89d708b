//! Criterion benchmark of Casino War sessions: time per hand for every table of the bundled
//! `experiments/casino-war.toml` (its `[rules]` and the product of its `[sweep]`), plus an
//! infinite deck, on one thread.
//!
//! Each measured iteration plays the same 200 sessions (seeds `(1, 0, 0..200)`); the throughput
//! is their hands, so criterion's "elem/s" is hands per second and its time over the hands
//! is the time per hand.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use warlab_casino::{CasinoOptions, CasinoRules, Table};
use warlab_engine::GameSeed;

const SESSIONS: u64 = 200;

/// The bundled experiment's tables as option pairs: its `[rules]`, then every combination of
/// its `[sweep]` values (keys in alphabetical order, the first varying slowest).
fn bundled_tables() -> Vec<Vec<(String, String)>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../experiments/casino-war.toml"
    );
    let text = std::fs::read_to_string(path).expect("the bundled casino-war.toml");
    let doc: toml::Table = text.parse().expect("casino-war.toml is TOML");
    let value = |v: &toml::Value| match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let base: Vec<(String, String)> = doc["rules"]
        .as_table()
        .expect("[rules]")
        .iter()
        .map(|(k, v)| (k.clone(), value(v)))
        .collect();
    let mut tables = vec![base];
    for (key, values) in doc["sweep"].as_table().expect("[sweep]") {
        let values = values.as_array().expect("a sweep lists its values");
        tables = tables
            .iter()
            .flat_map(|t| {
                values.iter().map(move |v| {
                    let mut t = t.clone();
                    t.push((key.clone(), value(v)));
                    t
                })
            })
            .collect();
    }
    tables
}

fn rules(pairs: &[(String, String)]) -> CasinoRules {
    let mut o = CasinoOptions::default();
    for (k, v) in pairs {
        o.set(k, v).expect("a valid option");
    }
    CasinoRules::new(o).expect("a valid table")
}

/// A short name: the swept options only.
fn name(pairs: &[(String, String)], swept: usize) -> String {
    pairs[pairs.len() - swept..]
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn bench(c: &mut Criterion) {
    let mut tables = bundled_tables();
    let swept = 3;
    let mut infinite = tables[0][..tables[0].len() - swept].to_vec();
    infinite.extend([
        ("decks".into(), "infinite".into()),
        ("strategy".into(), "war".into()),
        ("bonus".into(), "false".into()),
    ]);
    tables.push(infinite);
    let mut group = c.benchmark_group("hands");
    group.sample_size(20);
    group.warm_up_time(std::time::Duration::from_secs(1));
    group.measurement_time(std::time::Duration::from_secs(4));
    for pairs in &tables {
        let rules = rules(pairs);
        let mut table = Table::new(&rules);
        let hands: u64 = (0..SESSIONS)
            .map(|g| table.session(GameSeed::new(1, 0, g)).hands)
            .sum();
        group.throughput(Throughput::Elements(hands));
        group.bench_function(name(pairs, swept), |b| {
            b.iter(|| {
                for g in 0..SESSIONS {
                    black_box(table.session(GameSeed::new(1, 0, g)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
