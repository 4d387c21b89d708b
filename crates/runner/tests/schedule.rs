//! The schedule gives the same results for any thread count and any split of the game range.

use std::path::Path;

use warlab_experiment::Experiment;
use warlab_runner::{CHUNK, GameRow, Plan, Sink, run};
use warlab_stats::Aggregate;

/// Records every call, in order.
#[derive(Default)]
struct Record {
    calls: Vec<String>,
    rows: Vec<(usize, GameRow)>,
    done: Vec<(usize, Aggregate)>,
    skip: Vec<usize>,
    progress: u64,
}

impl Sink for Record {
    type Error = String;
    fn is_done(&self, v: usize) -> bool {
        self.skip.contains(&v)
    }
    fn rows(&mut self, v: usize, rows: &[GameRow]) -> Result<(), String> {
        self.calls.push(format!("rows {v} {}", rows.len()));
        self.rows.extend(rows.iter().map(|r| (v, *r)));
        Ok(())
    }
    fn variant_done(&mut self, v: usize, a: Aggregate) -> Result<(), String> {
        self.calls.push(format!("done {v}"));
        self.done.push((v, a));
        Ok(())
    }
    fn progress(&mut self, _: usize, games: u64) {
        self.progress += games;
    }
}

fn experiment() -> Experiment {
    Experiment::parse(
        Path::new("t.toml"),
        "name = \"t\"\ngames = 10000\n[sweep]\npickup = [\"shuffled\", \"seat\"]\nwar_down = [1, 3]\n",
    )
    .unwrap()
}

fn play(exp: &Experiment, games: std::ops::Range<u64>, threads: usize, rows: bool) -> Record {
    let mut rec = Record::default();
    run(
        &Plan {
            experiment: exp,
            games,
            seed: 5,
            rows,
            threads,
        },
        &mut rec,
    )
    .unwrap();
    rec
}

#[test]
fn any_thread_count_gives_the_same_calls_and_data() {
    let exp = experiment();
    let one = play(&exp, 0..10_000, 1, true);
    assert_eq!(one.progress, 40_000);
    assert_eq!(one.rows.len(), 40_000);
    assert_eq!(one.done.len(), 4);
    for threads in [2, 3] {
        let other = play(&exp, 0..10_000, threads, true);
        assert_eq!(one.calls, other.calls, "{threads} threads");
        assert_eq!(one.rows, other.rows, "{threads} threads");
        assert_eq!(one.done, other.done, "{threads} threads");
    }
    // Rows come variant by variant, in game order.
    let games: Vec<u64> = one
        .rows
        .iter()
        .filter(|(v, _)| *v == 2)
        .map(|(_, r)| r.game)
        .collect();
    assert_eq!(games, (0..10_000).collect::<Vec<_>>());
}

#[test]
fn disjoint_ranges_merge_into_the_whole() {
    let exp = experiment();
    let whole = play(&exp, 0..10_000, 2, false);
    // A split that is not on a chunk boundary, and one that is.
    for cut in [3_333, CHUNK] {
        let a = play(&exp, 0..cut, 2, false);
        let b = play(&exp, cut..10_000, 2, false);
        for v in 0..4 {
            let mut merged = a.done[v].1.clone();
            merged.merge(&b.done[v].1);
            assert_eq!(merged, whole.done[v].1, "variant {v}, cut {cut}");
        }
    }
}

#[test]
fn finished_variants_are_skipped() {
    let exp = experiment();
    let mut rec = Record {
        skip: vec![0, 2],
        ..Record::default()
    };
    run(
        &Plan {
            experiment: &exp,
            games: 0..100,
            seed: 5,
            rows: false,
            threads: 2,
        },
        &mut rec,
    )
    .unwrap();
    assert_eq!(rec.calls, ["done 1", "done 3"]);
}

#[test]
fn a_looping_variant_counts_its_cycles() {
    let exp = Experiment::parse(
        Path::new("t.toml"),
        "name = \"t\"\ngames = 3000\n[rules]\npickup = \"seat\"\nwar_down = 1\n",
    )
    .unwrap();
    let rec = play(&exp, 0..3000, 2, false);
    let a = &rec.done[0].1;
    let loops = a.ended(warlab_engine::EndReason::Cycle);
    assert!(loops > 0, "seat order with one card down loops");
    assert_eq!(a.cycle_periods.count(), loops);
    assert_eq!(
        a.cycle_examples.len() as u64,
        a.cycle_periods.iter().count() as u64
    );
    // Every game is counted once, looping ones included.
    assert_eq!(a.battles.count(), 3000);
    let ends: u64 = warlab_engine::EndReason::ALL
        .iter()
        .map(|e| a.ended(*e))
        .sum();
    assert_eq!(ends, 3000);
}

/// The ended games' counts and the capped games' stopping points, rebuilt from the per-game
/// rows: loops and capped games are apart from the ended ones, block by block.
#[test]
fn lengths_keep_the_ended_games_apart() {
    let exp = Experiment::parse(
        Path::new("t.toml"),
        "name = \"t\"\ngames = 9000\n[rules]\npickup = \"seat\"\nwar_down = 1\nsafety_cap = 400\n",
    )
    .unwrap();
    let rec = play(&exp, 0..9000, 2, true);
    let a = &rec.done[0].1;
    let l = a.lengths().expect("kept by the runner");
    let (mut ended, mut capped) = (Vec::new(), Vec::new());
    let mut blocks = std::collections::BTreeMap::<u64, [u64; 3]>::new();
    for (_, row) in &rec.rows {
        let r = &row.record;
        match r.end {
            warlab_engine::EndReason::Capped => capped.push(r.battles),
            warlab_engine::EndReason::Cycle => {}
            _ => {
                ended.push((r.battles, r.wars, r.cards_turned));
                let b = blocks.entry(row.game / a.block_games).or_default();
                b[0] += 1;
                b[1] += r.battles;
                b[2] += r.battles * r.battles;
            }
        }
    }
    let loops = a.ended(warlab_engine::EndReason::Cycle);
    assert!(loops > 0 && !capped.is_empty() && !ended.is_empty());
    assert_eq!(l.ended(), ended.len() as u64);
    assert_eq!(ended.len() as u64 + capped.len() as u64 + loops, 9000);
    let sum = |xs: &mut dyn Iterator<Item = u64>| xs.map(u128::from).sum::<u128>();
    assert_eq!(
        l.ended_battles.sums().0,
        sum(&mut ended.iter().map(|e| e.0))
    );
    assert_eq!(l.ended_wars.sums().0, sum(&mut ended.iter().map(|e| e.1)));
    assert_eq!(l.ended_cards.sums().0, sum(&mut ended.iter().map(|e| e.2)));
    assert_eq!(l.capped_battles.count(), capped.len() as u64);
    assert!(capped.iter().all(|b| *b == 400), "stopped at the cap");
    // Blocks of 64 games: the most that gives 9000 games at least 100 running points.
    assert_eq!(a.block_games, 64);
    assert_eq!(l.ended_blocks, blocks);
}

#[test]
fn shards_tile_the_games_in_whole_chunks() {
    for games in [1u64, 4096, 10_000, 100_000] {
        for n in [1u64, 3, 7, 40] {
            let mut next = 0;
            for i in 0..n {
                let r = warlab_runner::shard_range(games, i, n);
                assert_eq!(r.start, next.max(r.start).min(games));
                assert!(
                    r.start == next,
                    "games {games}, shard {i}/{n}: {r:?} after {next}"
                );
                assert!(r.start.is_multiple_of(CHUNK) || r.start == games);
                next = r.end;
            }
            assert_eq!(next, games, "games {games}, {n} shards");
        }
    }
}

#[test]
fn shards_of_huge_game_counts_do_not_overflow() {
    // `--shard 3/3` of 2^64 − 1 games once played nothing: i × chunks wrapped around.
    for games in [warlab_experiment::MAX_GAMES, u64::MAX] {
        for n in [2u64, 3, 1000, 1 << 40, u64::MAX] {
            let last = warlab_runner::shard_range(games, n - 1, n);
            assert_eq!(last.end, games, "games {games}, {n} shards");
            assert!(last.start <= last.end);
            let mut next = 0;
            for i in 0..n.min(1000) {
                let r = warlab_runner::shard_range(games, i, n);
                assert_eq!(r.start, next, "games {games}, shard {i}/{n}");
                next = r.end;
            }
            if n > 1000 {
                assert!(last.start >= next, "shards stay in order");
            } else {
                assert_eq!(next, games, "the shards tile every game");
            }
        }
        assert_eq!(warlab_runner::shard_range(games, 2, 3).end, games);
    }
}
