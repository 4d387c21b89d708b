//! The Kaplan–Meier curve and restricted mean from exact counts against a naive computation
//! from the per-game records: a small deck under seat order with a low safety cap, so
//! that games end, loop and are capped.

use warlab_engine::{EndReason, Engine, GameRecord, GameSeed, RuleOptions, Rules};
use warlab_stats::Aggregate;
use warlab_stats::survival::KaplanMeier;

/// `(length or None for a loop, ended?)` per game, as the records say.
fn observations(records: &[GameRecord]) -> Vec<(Option<u64>, bool)> {
    records
        .iter()
        .map(|r| match r.end {
            EndReason::Cycle => (None, false),
            EndReason::Capped => (Some(r.battles), false),
            _ => (Some(r.battles), true),
        })
        .collect()
}

/// The product-limit estimate by its definition, looking at every game for every length.
fn naive(obs: &[(Option<u64>, bool)], n: u64) -> (f64, f64) {
    let mut times: Vec<u64> = obs
        .iter()
        .filter(|o| o.1)
        .filter_map(|o| o.0)
        .filter(|t| *t <= n)
        .collect();
    times.sort_unstable();
    times.dedup();
    let (mut s, mut greenwood) = (1.0, 0.0);
    for t in times {
        let at_risk = obs.iter().filter(|o| o.0.is_none_or(|x| x >= t)).count() as f64;
        let d = obs.iter().filter(|o| o.1 && o.0 == Some(t)).count() as f64;
        s *= 1.0 - d / at_risk;
        if at_risk > d {
            greenwood += d / (at_risk * (at_risk - d));
        }
    }
    (s, greenwood)
}

#[test]
fn kaplan_meier_from_counts_equals_the_naive_product_over_records() {
    let mut options = RuleOptions::default();
    for (key, value) in [
        ("deck", "custom"),
        ("ranks", "6"),
        ("suits", "2"),
        ("pickup", "seat"),
        ("war_down", "1"),
        ("safety_cap", "60"),
    ] {
        options.set(key, value).unwrap();
    }
    let mut engine = Engine::new(&Rules::new(options).unwrap());
    let mut a = Aggregate::default();
    let records: Vec<GameRecord> = (0..3000)
        .map(|g| {
            let r = engine.play(GameSeed::new(11, 0, g));
            a.add(g, &r);
            r
        })
        .collect();
    let obs = observations(&records);
    let (loops, capped) = (a.ended(EndReason::Cycle), a.ended(EndReason::Capped));
    assert!(loops > 0 && capped > 0, "loops {loops}, capped {capped}");
    let l = a.lengths().unwrap();
    let km = KaplanMeier::new(&l.ended_battles, &l.capped_battles, loops);
    assert_eq!(km.games, 3000);
    let last = l.ended_battles.max().unwrap();
    let curve: Vec<(f64, f64)> = (0..=last + 5).map(|n| naive(&obs, n)).collect();
    for (n, (s, _)) in curve.iter().enumerate() {
        let n = n as u64;
        assert!((km.at(n) - s).abs() < 1e-12, "n = {n}: {} vs {s}", km.at(n));
    }
    // The curve ends at the share of games still running: loops, and capped games (at risk
    // up to the cap, and no game ends after it).
    assert!((km.plateau() - naive(&obs, u64::MAX).0).abs() < 1e-12);
    assert!(km.plateau() >= loops as f64 / 3000.0);
    // The restricted mean is the sum of the naive curve below τ; its variance Greenwood's:
    // Σ_t A_t² d_t / (r_t (r_t − d_t)), A_t the area under the curve from t to τ.
    let s_at = |n: u64| {
        curve
            .get(n as usize)
            .map_or(curve[curve.len() - 1].0, |c| c.0)
    };
    let g_at = |n: u64| {
        curve
            .get(n as usize)
            .map_or(curve[curve.len() - 1].1, |c| c.1)
    };
    for tau in [5u64, 20, 60, 90] {
        let mu = km.restricted_mean(tau).unwrap();
        let sum: f64 = (0..tau).map(s_at).sum();
        assert!(
            (mu.mean - sum).abs() < 1e-9,
            "τ {tau}: {} vs {sum}",
            mu.mean
        );
        let mut var = 0.0;
        for t in 0..tau {
            let jump = g_at(t) - if t == 0 { 0.0 } else { g_at(t - 1) };
            if jump > 0.0 {
                let tail: f64 = (t..tau).map(s_at).sum();
                var += tail * tail * jump;
            }
        }
        assert!(
            (mu.se - var.sqrt()).abs() < 1e-9 * (1.0 + var.sqrt()),
            "τ {tau}: {} vs {}",
            mu.se,
            var.sqrt()
        );
    }
    // Beyond the cap only loops and capped games remain: flat.
    assert_eq!(km.at(60), km.at(10_000));
}
