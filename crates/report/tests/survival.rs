//! The Kaplan–Meier curve and restricted mean from a run's exact counts against a naive
//! computation from its per-game rows: a small deck under seat order with a low safety cap, so
//! that games end, loop and are capped.

use std::path::Path;

use warlab_engine::EndReason;
use warlab_experiment::Experiment;
use warlab_report::survival::KaplanMeier;
use warlab_runner::{Aggregate, GameRow, Plan, Sink, run};

#[derive(Default)]
struct Collect {
    rows: Vec<GameRow>,
    agg: Option<Aggregate>,
}

impl Sink for Collect {
    type Error = String;
    fn is_done(&self, _: usize) -> bool {
        false
    }
    fn rows(&mut self, _: usize, rows: &[GameRow]) -> Result<(), String> {
        self.rows.extend_from_slice(rows);
        Ok(())
    }
    fn variant_done(&mut self, _: usize, a: Aggregate) -> Result<(), String> {
        self.agg = Some(a);
        Ok(())
    }
}

/// `(length or None for a loop, ended?)` per game, as the rows say.
fn observations(rows: &[GameRow]) -> Vec<(Option<u64>, bool)> {
    rows.iter()
        .map(|r| match r.record.end {
            EndReason::Cycle => (None, false),
            EndReason::Capped => (Some(r.record.battles), false),
            _ => (Some(r.record.battles), true),
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
fn kaplan_meier_from_counts_equals_the_naive_product_over_rows() {
    let exp = Experiment::parse(
        Path::new("t.toml"),
        "name = \"t\"\ngames = 3000\nrows = true\n[rules]\ndeck = \"custom\"\nranks = 6\nsuits = 2\n\
         pickup = \"seat\"\nwar_down = 1\nsafety_cap = 60\n",
    )
    .unwrap();
    let mut sink = Collect::default();
    run(
        &Plan {
            experiment: &exp,
            games: 0..3000,
            seed: 11,
            rows: true,
            threads: 2,
        },
        &mut sink,
    )
    .unwrap();
    let a = sink.agg.unwrap();
    let obs = observations(&sink.rows);
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
