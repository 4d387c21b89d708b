//! `warlab bench`: engine throughput on one thread (thread CPU time) and on all threads (wall
//! time), median of several repetitions.

use std::time::Instant;

use rayon::prelude::*;
use warlab_engine::{Engine, GameSeed, HotLoop, Rules};

pub struct BenchConfig {
    pub games: u64,
    pub reps: usize,
    pub threads: usize,
    pub seed: u64,
    /// Never the vector block loop: the two-seat loop plays the same games.
    pub portable: bool,
}

pub struct BenchResult {
    pub games_per_s_1t: f64,
    pub ns_per_battle_1t: f64,
    pub games_per_s_all: f64,
    pub battles_per_game: f64,
    pub reps_1t: Vec<f64>,
    pub reps_all: Vec<f64>,
    /// The engine loop that played the games (`Engine::hot_loop`).
    pub hot_loop: &'static str,
}

/// CPU time of the calling thread: other load on the machine does not count against it.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_THREAD_CPUTIME_ID is supported on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn run(
    rules: &Rules,
    cfg: &BenchConfig,
    mut progress: impl FnMut(&str),
) -> anyhow::Result<BenchResult> {
    let engine_for = |rules: &Rules| {
        let mut e = Engine::new(rules);
        if cfg.portable && e.hot_loop() == HotLoop::Block {
            e.force_loop(HotLoop::Duo);
        }
        e
    };
    let mut engine = engine_for(rules);
    // Warm-up: caches, branch predictors, CPU frequency.
    for g in 0..cfg.games.min(20_000) {
        engine.play(GameSeed::new(cfg.seed, 1, g));
    }
    let mut rates = Vec::new();
    let mut ns = Vec::new();
    let mut bpg = Vec::new();
    for rep in 0..cfg.reps {
        let first = rep as u64 * cfg.games;
        let t0 = thread_cpu_seconds();
        let mut battles = 0u64;
        for g in first..first + cfg.games {
            battles += engine.play(GameSeed::new(cfg.seed, 0, g)).battles;
        }
        let dt = thread_cpu_seconds() - t0;
        rates.push(cfg.games as f64 / dt);
        ns.push(dt * 1e9 / battles as f64);
        bpg.push(battles as f64 / cfg.games as f64);
        progress(&format!(
            "  1 thread, rep {}: {:>10.0} games/s  {:>6.2} ns/battle",
            rep + 1,
            rates[rep],
            ns[rep]
        ));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()?;
    let total = cfg.games * cfg.threads as u64;
    const CHUNK: u64 = 4096;
    let mut all = Vec::new();
    for rep in 0..cfg.reps {
        let first = rep as u64 * total;
        let t0 = Instant::now();
        let battles: u64 = pool.install(|| {
            (0..total.div_ceil(CHUNK))
                .into_par_iter()
                .map_init(
                    || engine_for(rules),
                    |e, c| {
                        let lo = first + c * CHUNK;
                        let hi = (lo + CHUNK).min(first + total);
                        (lo..hi)
                            .map(|g| e.play(GameSeed::new(cfg.seed, 0, g)).battles)
                            .sum::<u64>()
                    },
                )
                .sum()
        });
        let dt = t0.elapsed().as_secs_f64();
        std::hint::black_box(battles);
        all.push(total as f64 / dt);
        progress(&format!(
            "  {} threads, rep {}: {:>10.0} games/s (wall)",
            cfg.threads,
            rep + 1,
            all[rep]
        ));
    }
    Ok(BenchResult {
        games_per_s_1t: median(&mut rates.clone()),
        ns_per_battle_1t: median(&mut ns),
        games_per_s_all: median(&mut all.clone()),
        battles_per_game: median(&mut bpg),
        reps_1t: rates,
        reps_all: all,
        hot_loop: engine.hot_loop().name(),
    })
}

/// The rule shapes `warlab bench --shapes` measures side by side: one per option value that
/// changes how a battle is played, each against the classic rules. Names are what the table
/// prints; the pairs are `--rule` options over the classic defaults.
pub const SHAPES: &[(&str, &[(&str, &str)])] = &[
    ("classic", &[]),
    ("war_down=1", &[("war_down", "1")]),
    ("pickup=winner-first", &[("pickup", "winner-first")]),
    ("pickup=loser-first", &[("pickup", "loser-first")]),
    ("pickup=played", &[("pickup", "played")]),
    ("pickup=seat", &[("pickup", "seat")]),
    ("pickup=rank-desc", &[("pickup", "rank-desc")]),
    ("pickup=rank-asc", &[("pickup", "rank-asc")]),
    ("seat, war_down=1", &[("pickup", "seat"), ("war_down", "1")]),
    ("short_war=last-card-up", &[("short_war", "last-card-up")]),
    ("short_war=lose", &[("short_war", "lose")]),
    ("chained_war=flip-one", &[("chained_war", "flip-one")]),
    ("war_down=by-rank", &[("war_down", "by-rank")]),
    ("war_down=table", &[("war_down", "J=1,Q=2,K=3,A=4")]),
    ("war_cause_to_loser", &[("war_cause_to_loser", "true")]),
    (
        "two-pile, turn-over",
        &[("pile", "two-pile"), ("on_empty", "turn-over")],
    ),
    (
        "two-pile, shuffle",
        &[("pile", "two-pile"), ("on_empty", "shuffle")],
    ),
    (
        "two-pile, lose",
        &[("pile", "two-pile"), ("on_empty", "lose")],
    ),
    ("ranking=aces-low", &[("ranking", "aces-low")]),
    ("ranking=peasant", &[("ranking", "peasant")]),
    ("ranking=low-beats-high", &[("ranking", "low-beats-high")]),
    ("ranking=low-wins", &[("ranking", "low-wins")]),
    ("deck=piquet36", &[("deck", "piquet36")]),
    ("deck=jokers54", &[("deck", "jokers54")]),
    ("decks=2", &[("decks", "2")]),
    ("decks=8", &[("decks", "8")]),
    ("prize", &[("prize", "true")]),
    ("speed=0.1", &[("speed", "0.1")]),
    ("target_cards=40", &[("target_cards", "40")]),
    ("min_cards=5", &[("min_cards", "5")]),
    ("wars_to_win=3", &[("wars_to_win", "3")]),
    ("battle_limit=500", &[("battle_limit", "500")]),
    ("hand=3 (random)", &[("hand", "3")]),
    (
        "hand=3 (highest)",
        &[("hand", "3"), ("hand_policy", "highest")],
    ),
    ("players=3", &[("players", "3")]),
    ("players=4", &[("players", "4")]),
    ("players=3, seat", &[("players", "3"), ("pickup", "seat")]),
    (
        "players=4, peasant",
        &[("players", "4"), ("ranking", "peasant")],
    ),
];

/// One shape's one-thread measurement.
pub struct ShapeResult {
    pub name: &'static str,
    pub rules: Rules,
    pub hot_loop: &'static str,
    pub battles_per_game: f64,
    /// Median over repetitions.
    pub ns_per_battle: f64,
    pub reps: Vec<f64>,
}

/// Every shape of [`SHAPES`] on one thread (thread CPU time). The repetitions go round the
/// shapes (rep 1 of every shape, then rep 2, …), so a burst of load on this shared machine
/// falls on all shapes alike rather than on one of them: compare the ratios.
pub fn shapes(
    cfg: &BenchConfig,
    mut progress: impl FnMut(&str),
) -> anyhow::Result<Vec<ShapeResult>> {
    let mut engines = Vec::new();
    for (name, pairs) in SHAPES {
        let rules = Rules::from_pairs(pairs.iter().copied())
            .map_err(|e| anyhow::anyhow!("shape `{name}`: {e}"))?;
        let mut e = Engine::new(&rules);
        if cfg.portable && e.hot_loop() == HotLoop::Block {
            e.force_loop(HotLoop::Duo);
        }
        // Warm-up.
        for g in 0..cfg.games.min(2_000) {
            e.play(GameSeed::new(cfg.seed, 1, g));
        }
        engines.push((name, rules, e, Vec::new(), Vec::new()));
    }
    for rep in 0..cfg.reps {
        for (name, _, engine, ns, bpg) in &mut engines {
            let first = rep as u64 * cfg.games;
            let t0 = thread_cpu_seconds();
            let mut battles = 0u64;
            for g in first..first + cfg.games {
                battles += engine.play(GameSeed::new(cfg.seed, 0, g)).battles;
            }
            let dt = thread_cpu_seconds() - t0;
            ns.push(dt * 1e9 / battles as f64);
            bpg.push(battles as f64 / cfg.games as f64);
            progress(&format!(
                "  rep {} {name:<24} {:>7.2} ns/battle",
                rep + 1,
                ns[rep]
            ));
        }
    }
    Ok(engines
        .into_iter()
        .map(|(name, rules, engine, ns, mut bpg)| ShapeResult {
            name,
            hot_loop: engine.hot_loop().name(),
            rules,
            battles_per_game: median(&mut bpg),
            ns_per_battle: median(&mut ns.clone()),
            reps: ns,
        })
        .collect())
}
