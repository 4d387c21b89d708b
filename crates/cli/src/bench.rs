//! `warlab bench`: engine throughput on one thread (thread CPU time) and on all threads (wall
//! time), median of several repetitions.

use std::io::IsTerminal;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use rayon::prelude::*;
use warlab_engine::{Engine, GameSeed, HotLoop, Rules, SAMPLE_VALUES, splitmix64};

use crate::options::RuleArgs;

pub struct BenchConfig {
    pub games: u64,
    pub reps: usize,
    pub threads: usize,
    pub seed: u64,
    /// Never the vector block loop's code: the two-seat loop plays the same games.
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
    let engine_for = |rules: &Rules| engine_for(rules, cfg.portable);
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
    (
        "two-pile, prize",
        &[("pile", "two-pile"), ("prize", "true")],
    ),
    (
        "two-pile, speed=0.1",
        &[("pile", "two-pile"), ("speed", "0.1")],
    ),
    ("speed=0.1", &[("speed", "0.1")]),
    ("prize, speed=0.1", &[("prize", "true"), ("speed", "0.1")]),
    // Nothing random: loops are looked for.
    (
        "two-pile, turn-over, seat",
        &[
            ("pile", "two-pile"),
            ("on_empty", "turn-over"),
            ("pickup", "seat"),
        ],
    ),
    ("prize, seat", &[("prize", "true"), ("pickup", "seat")]),
    (
        "prize, winner-first",
        &[("prize", "true"), ("pickup", "winner-first")],
    ),
    ("target_cards=40", &[("target_cards", "40")]),
    ("min_cards=5", &[("min_cards", "5")]),
    ("wars_to_win=3", &[("wars_to_win", "3")]),
    ("battle_limit=500", &[("battle_limit", "500")]),
    ("hand=3 (random)", &[("hand", "3")]),
    (
        "hand=3 (highest)",
        &[("hand", "3"), ("hand_policy", "highest")],
    ),
    // Nothing random after the deal: loops found by Brent's detection in the two-seat hand run.
    (
        "hand=3 (highest, seat)",
        &[
            ("hand", "3"),
            ("hand_policy", "highest"),
            ("pickup", "seat"),
        ],
    ),
    // Nothing random after the deal, games longer than the safety cap: each plays on past
    // the cap, looking for a loop closed inside it (counted as the cap's battles).
    (
        "hand=3 (lowest, winner-first, cap 1000)",
        &[
            ("hand", "3"),
            ("hand_policy", "lowest"),
            ("pickup", "winner-first"),
            ("safety_cap", "1000"),
        ],
    ),
    ("players=3", &[("players", "3")]),
    ("players=4", &[("players", "4")]),
    ("players=3, seat", &[("players", "3"), ("pickup", "seat")]),
    (
        "players=4, peasant",
        &[("players", "4"), ("ranking", "peasant")],
    ),
    (
        "players=3, two-pile",
        &[("players", "3"), ("pile", "two-pile")],
    ),
    // Short games: a seat whose stack runs out is out, its won pile never played.
    (
        "players=3, two-pile, lose",
        &[("players", "3"), ("pile", "two-pile"), ("on_empty", "lose")],
    ),
    // The same with hands: a hand plays down once its stack is out.
    (
        "players=3, two-pile, lose, hand=3",
        &[
            ("players", "3"),
            ("pile", "two-pile"),
            ("on_empty", "lose"),
            ("hand", "3"),
        ],
    ),
    ("players=4, prize", &[("players", "4"), ("prize", "true")]),
    ("players=3, hand=3", &[("players", "3"), ("hand", "3")]),
    // Nothing random after the deal, three seats with hands: loops looked for on the table.
    (
        "players=3, hand=3 (highest, seat)",
        &[
            ("players", "3"),
            ("hand", "3"),
            ("hand_policy", "highest"),
            ("pickup", "seat"),
        ],
    ),
    ("prize, hand=3", &[("prize", "true"), ("hand", "3")]),
    ("two-pile, hand=3", &[("pile", "two-pile"), ("hand", "3")]),
];

/// `count` rule sets drawn at random (from `seed`) over [`SAMPLE_VALUES`]: each option set
/// with probability 1/2 to one of its values, combinations the rules refuse drawn again.
pub fn combos(count: usize, seed: u64) -> Vec<(String, Rules)> {
    // splitmix64: a fixed, seeded sequence, so that a list of combinations can be measured
    // again with another binary.
    let mut state = seed;
    let mut next = move || {
        let z = splitmix64(state);
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z
    };
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for &(key, values) in SAMPLE_VALUES {
            let pick = next();
            let set = |k: &str, v: &str| pairs.iter().any(|&(pk, pv)| pk == k && pv == v);
            let depends = match key {
                "on_empty" => set("pile", "two-pile"),
                "hand_policy" => set("hand", "3"),
                _ => true,
            };
            if depends && pick & 1 == 1 {
                pairs.push((key, values[(pick >> 1) as usize % values.len()]));
            }
        }
        // Named as the rules print themselves: defaults left out, `classic` for none.
        if let Ok(rules) = Rules::from_pairs(pairs.iter().copied()) {
            out.push((rules.to_string(), rules));
        }
    }
    out
}

/// One shape's one-thread measurement.
pub struct ShapeResult {
    pub name: String,
    pub rules: Rules,
    pub hot_loop: &'static str,
    pub battles_per_game: f64,
    /// Median over repetitions.
    pub ns_per_battle: f64,
    pub reps: Vec<f64>,
}

/// The shapes of [`SHAPES`], named.
pub fn shape_rules() -> anyhow::Result<Vec<(String, Rules)>> {
    SHAPES
        .iter()
        .map(|(name, pairs)| {
            Rules::from_pairs(pairs.iter().copied())
                .map(|rules| (name.to_string(), rules))
                .map_err(|e| anyhow::anyhow!("shape `{name}`: {e}"))
        })
        .collect()
}

/// Every rule set of `list` on one thread (thread CPU time). The repetitions go round the
/// rule sets (rep 1 of every one, then rep 2, …), so a burst of load on this shared machine
/// falls on all alike rather than on one of them: compare the ratios.
pub fn shapes(
    cfg: &BenchConfig,
    list: Vec<(String, Rules)>,
    mut progress: impl FnMut(&str),
) -> anyhow::Result<Vec<ShapeResult>> {
    let mut engines = Vec::new();
    for (name, rules) in list {
        let mut e = engine_for(&rules, cfg.portable);
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
                "  rep {} {name:<40} {:>7.2} ns/battle",
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

/// `warlab bench`'s arguments.
#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Games per repetition (per thread)
    #[arg(long, default_value_t = 200_000)]
    games: u64,
    /// Repetitions; the median is reported
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Threads for the all-threads run (default: all cores)
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the games played
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Never the vector block loop's code, even where this CPU has it: the two-seat loop
    /// plays the same games, and the table loop its two-seat hand battles one by one (no
    /// blocks, vector or laid in place)
    #[arg(long)]
    portable: bool,
    /// Measure every rule shape of the engine side by side on one thread (ns/battle and
    /// the ratio to classic), instead of one rule set; --games is per shape and repetition
    /// (20,000 unless given)
    #[arg(long, conflicts_with_all = ["rule", "rules"])]
    shapes: bool,
    /// Measure N rule sets drawn at random over the options (from --seed) against classic, on
    /// one thread, and say which are over the goal (2× classic with 2 players, 3× with 3–4);
    /// --games is per rule set and repetition (20,000 unless given)
    #[arg(long, value_name = "N", conflicts_with_all = ["rule", "rules", "shapes", "threads"])]
    combos: Option<usize>,
}

/// An engine for `rules`; with `portable`, kept off the vector block loop, for a table game's
/// last two seats too (the two-seat loop plays the same games), and off its blocks of two
/// seats' hand battles (vector, or laid in place on any CPU): every battle one by one.
fn engine_for(rules: &Rules, portable: bool) -> Engine {
    let mut e = Engine::new(rules);
    if portable {
        e.force_vectors(false);
        if e.hot_loop() == HotLoop::Block {
            e.force_loop(HotLoop::Duo);
        }
        if e.last_two_loop() == Some(HotLoop::Block) {
            e.force_last_two_loop(Some(HotLoop::Duo));
        }
    }
    e
}

/// `warlab bench`: one rule set on one thread and on all threads, or every shape side by side.
pub fn command(args: BenchArgs) -> Result<()> {
    let BenchArgs {
        rules,
        games,
        reps,
        threads,
        seed,
        portable,
        shapes,
        combos,
    } = args;
    if shapes {
        return bench_shapes(games, reps, seed, portable);
    }
    if let Some(count) = combos {
        crate::options::check_positive("combos", count as u64)?;
        return bench_combos(count, games, reps, seed, portable);
    }
    let rules = rules.build()?;
    crate::options::check_positive("games", games)?;
    crate::options::check_positive("reps", reps as u64)?;
    let threads = crate::options::threads(threads)?;
    let cfg = BenchConfig {
        games,
        reps,
        threads,
        seed,
        portable,
    };
    let verbose = std::io::stderr().is_terminal();
    eprintln!(
        "benchmarking `{rules}`: {reps} reps of {games} games (1 thread), then {threads} threads"
    );
    let r = run(&rules, &cfg, |line| {
        if verbose {
            eprintln!("{line}");
        }
    })?;
    println!("rules:            {rules}");
    println!("engine loop:      {}", r.hot_loop);
    println!(
        "battles per game: {:.1} (median of reps)",
        r.battles_per_game
    );
    println!(
        "1 thread:         {:.0} games/s, {:.2} ns/battle (thread CPU time, median of {reps})",
        r.games_per_s_1t, r.ns_per_battle_1t
    );
    println!(
        "{threads} threads:        {:.0} games/s (wall time, median of {reps})",
        r.games_per_s_all
    );
    // Rounded as the table above shows them: games/s whole, ns to 0.001.
    let round = |x: f64, places: i32| (x * 10f64.powi(places)).round() / 10f64.powi(places);
    let whole = |v: &[f64]| v.iter().map(|x| x.round() as u64).collect::<Vec<_>>();
    let line = serde_json::json!({
        "rules": rules.to_string(),
        "loop": r.hot_loop,
        "games_per_s_1t": r.games_per_s_1t.round() as u64,
        "ns_per_battle_1t": round(r.ns_per_battle_1t, 3),
        "games_per_s_all": r.games_per_s_all.round() as u64,
        "threads": threads,
        "battles_per_game": round(r.battles_per_game, 2),
        "reps": reps,
        "games_per_rep": games,
        "reps_1t": whole(&r.reps_1t),
        "reps_all": whole(&r.reps_all),
    });
    println!("{line}");
    Ok(())
}

/// The one-thread configuration of `--shapes` and `--combos`, the arguments checked.
fn side_by_side(games: u64, reps: usize, seed: u64, portable: bool) -> Result<BenchConfig> {
    crate::options::check_positive("games", games)?;
    crate::options::check_positive("reps", reps as u64)?;
    // The default of 200,000 games is for one rule set; these play tens of them.
    let games = if games == 200_000 { 20_000 } else { games };
    Ok(BenchConfig {
        games,
        reps,
        threads: 1,
        seed,
        portable,
    })
}

/// `warlab bench --shapes`: a table of every engine shape on one thread, with the ratio of its
/// ns/battle to classic's, and one JSON line per shape.
fn bench_shapes(games: u64, reps: usize, seed: u64, portable: bool) -> Result<()> {
    let cfg = side_by_side(games, reps, seed, portable)?;
    let games = cfg.games;
    eprintln!(
        "benchmarking {} shapes: {reps} reps of {games} games each, one thread, round robin",
        SHAPES.len()
    );
    let verbose = std::io::stderr().is_terminal();
    let results = shapes(&cfg, shape_rules()?, |line| {
        if verbose {
            eprintln!("{line}");
        }
    })?;
    let classic = results[0].ns_per_battle;
    println!("| shape | loop | battles/game | ns/battle (median of {reps}) | × classic |");
    println!("|---|---|---:|---:|---:|");
    for r in &results {
        println!(
            "| {} | {} | {:.1} | {:.2} | {:.2} |",
            r.name,
            r.hot_loop,
            r.battles_per_game,
            r.ns_per_battle,
            r.ns_per_battle / classic
        );
    }
    for r in &results {
        let line = serde_json::json!({
            "shape": r.name,
            "rules": r.rules.to_string(),
            "loop": r.hot_loop,
            "battles_per_game": r.battles_per_game,
            "ns_per_battle": r.ns_per_battle,
            "ratio_to_classic": r.ns_per_battle / classic,
            "reps": r.reps,
            "games_per_rep": games,
        });
        println!("{line}");
    }
    Ok(())
}

/// `warlab bench --combos N`: `N` random rule sets ([`combos`]) and classic side by side on
/// one thread, slowest first (ratio to classic), with how many are over the goal; one JSON
/// line per rule set.
fn bench_combos(count: usize, games: u64, reps: usize, seed: u64, portable: bool) -> Result<()> {
    let cfg = side_by_side(games, reps, seed, portable)?;
    let games = cfg.games;
    let mut list = vec![("classic".to_string(), Rules::classic())];
    list.extend(combos(count, seed));
    eprintln!(
        "benchmarking {count} random rule sets (seed {seed}) and classic: {reps} reps of {games} \
         games each, one thread, round robin"
    );
    let verbose = std::io::stderr().is_terminal();
    let mut results = shapes(&cfg, list, |line| {
        if verbose {
            eprintln!("{line}");
        }
    })?;
    let classic = results.remove(0).ns_per_battle;
    let goal = |r: &ShapeResult| if r.rules.players() == 2 { 2.0 } else { 3.0 };
    // Farthest over its goal first.
    results.sort_by(|a, b| (b.ns_per_battle / goal(b)).total_cmp(&(a.ns_per_battle / goal(a))));
    println!("classic: {classic:.2} ns/battle (median of {reps})");
    println!("| rule set | loop | battles/game | ns/battle | × classic | goal |");
    println!("|---|---|---:|---:|---:|---:|");
    for r in &results {
        println!(
            "| {} | {} | {:.1} | {:.2} | {:.2} | {:.0} |",
            r.name,
            r.hot_loop,
            r.battles_per_game,
            r.ns_per_battle,
            r.ns_per_battle / classic,
            goal(r)
        );
    }
    let mut ratios: Vec<f64> = results.iter().map(|r| r.ns_per_battle / classic).collect();
    let over = results
        .iter()
        .filter(|r| r.ns_per_battle / classic > goal(r))
        .count();
    println!(
        "{count} rule sets: median {:.2}× classic, {over} over the goal (2× with 2 players, 3× \
         with 3–4)",
        median(&mut ratios)
    );
    println!(
        "(a game of a few battles is mostly its fixed cost, the deal and the engine's setup, \
         which its ns/battle shows)"
    );
    for r in &results {
        let line = serde_json::json!({
            "rules": r.name,
            "loop": r.hot_loop,
            "battles_per_game": r.battles_per_game,
            "ns_per_battle": r.ns_per_battle,
            "ratio_to_classic": r.ns_per_battle / classic,
            "goal": goal(r),
            "reps": r.reps,
            "games_per_rep": games,
        });
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--portable` keeps every game off the vector loop: a 2-player game, and the last two
    /// seats of a 3-player game with two piles (which the block loop plays where it runs).
    #[test]
    fn portable_engines_never_use_the_block_loop() {
        let two = Rules::from_pairs([("pile", "two-pile")]).unwrap();
        assert_eq!(engine_for(&two, true).hot_loop(), HotLoop::Duo);
        let three = Rules::from_pairs([("players", "3"), ("pile", "two-pile")]).unwrap();
        let e = engine_for(&three, true);
        assert_eq!(e.hot_loop(), HotLoop::Table);
        assert_eq!(e.last_two_loop(), Some(HotLoop::Duo));
        // Nor the table loop's vector blocks of hand battles.
        let hands = Rules::from_pairs([("hand", "3")]).unwrap();
        let mut e = engine_for(&hands, true);
        for g in 0..20 {
            e.play(GameSeed::new(1, 0, g));
        }
        assert_eq!(e.hand_blocks(), 0);
        assert_eq!(e.laid_hand_blocks(), 0);
    }

    /// The random rule sets are valid, as many as asked, the same for the same seed, and
    /// reach the options that depend on another.
    #[test]
    fn combos_are_valid_and_reproducible() {
        let a = combos(200, 7);
        assert_eq!(a.len(), 200);
        let names = |v: &[(String, Rules)]| v.iter().map(|c| c.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&a), names(&combos(200, 7)));
        assert_ne!(names(&a), names(&combos(200, 8)));
        for key in [
            "on_empty=",
            "hand_policy=",
            "players=4",
            "prize=true",
            "speed=",
        ] {
            assert!(a.iter().any(|c| c.0.contains(key)), "{key}");
        }
        for (name, rules) in &a {
            assert_eq!(name.contains("players=3"), rules.players() == 3, "{name}");
        }
    }
}
