//! Survival of game length when some games never end.
//!
//! A game's length T is the number of battles it lasts. A game that ended has T observed. A
//! looping game never ends: T = ∞, so it stays "at risk" for ever and `P(T > n)` levels off at
//! the loop share. A capped game was stopped after c battles without ending: all that is known
//! is T > c (right-censored). The Kaplan–Meier estimator uses exactly that:
//!
//! `S(n) = P(T > n) = Π_{t ≤ n} (1 − d_t / r_t)`, over the lengths t at which games ended, with
//! `d_t` games ending at t and `r_t` games still at risk just before t (every game not yet ended
//! or censored; a game censored at c is at risk at c, since it did not end there).
//!
//! The restricted mean `μ(τ) = E[min(T, τ)] = Σ_{n<τ} S(n)` is finite whatever loops: a
//! looping game contributes τ. Its variance is Greenwood's, as in Klein & Moeschberger (2003,
//! §4.5): `Σ_{t<τ} A_t² d_t / (r_t (r_t − d_t))` with `A_t = Σ_{t≤n<τ} S(n)`.

use crate::aggregate::Hist;
use crate::summary::z975;

/// `P(T > n)` just after the games that ended at `n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The length.
    pub n: u64,
    /// `P(T > n)`.
    pub survival: f64,
    /// Games still at risk just before `n`, and the games that ended at `n`.
    pub at_risk: u64,
    /// Games that ended at `n`.
    pub ended: u64,
}

/// The Kaplan–Meier estimate of `P(T > n)` from exact counts.
#[derive(Clone, Debug, PartialEq)]
pub struct KaplanMeier {
    /// The steps, by increasing `n`.
    pub steps: Vec<Step>,
    /// All games (ended, censored and never ending).
    pub games: u64,
    /// Games that never end (loops): always at risk.
    pub never: u64,
    /// The largest censoring point (a capped game's battles), if any: beyond it the estimate
    /// rests on the games that never end alone.
    pub last_censored: Option<u64>,
}

/// A restricted mean with its standard error and 95 % interval (normal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Restricted {
    /// The horizon the mean is restricted to.
    pub horizon: u64,
    /// The restricted mean `E[min(T, horizon)]`.
    pub mean: f64,
    /// Its standard error.
    pub se: f64,
    /// Its 95 % interval.
    pub ci: (f64, f64),
}

impl KaplanMeier {
    /// `ended`: lengths of the games that ended; `censored`: battles at which games were
    /// stopped unended (capped); `never`: games that never end (loops).
    pub fn new(ended: &Hist, censored: &Hist, never: u64) -> KaplanMeier {
        let games = ended.count() + censored.count() + never;
        let mut at_risk = games;
        let mut survival = 1.0;
        let mut steps = Vec::new();
        let mut ends = ended.iter().peekable();
        let mut cens = censored.iter().peekable();
        loop {
            let t = match (ends.peek(), cens.peek()) {
                (None, None) => break,
                (Some(&(a, _)), Some(&(b, _))) => a.min(b),
                (Some(&(a, _)), None) => a,
                (None, Some(&(b, _))) => b,
            };
            let d = ends.next_if(|e| e.0 == t).map_or(0, |e| e.1);
            let c = cens.next_if(|e| e.0 == t).map_or(0, |e| e.1);
            if d > 0 {
                survival *= 1.0 - d as f64 / at_risk as f64;
                steps.push(Step {
                    n: t,
                    survival,
                    at_risk,
                    ended: d,
                });
            }
            at_risk -= d + c;
        }
        KaplanMeier {
            steps,
            games,
            never,
            last_censored: censored.max(),
        }
    }

    /// `P(T > n)`.
    pub fn at(&self, n: u64) -> f64 {
        let i = self.steps.partition_point(|s| s.n <= n);
        if i == 0 {
            1.0
        } else {
            self.steps[i - 1].survival
        }
    }

    /// The level the curve ends at: after the last game that ended, `P(T > n)` no longer falls.
    /// With loops and no capped game it is the loop share.
    pub fn plateau(&self) -> f64 {
        self.steps.last().map_or(1.0, |s| s.survival)
    }

    /// The restricted mean `E[min(T, τ)]` with Greenwood's standard error. `None` without
    /// games or for τ = 0.
    pub fn restricted_mean(&self, horizon: u64) -> Option<Restricted> {
        if self.games == 0 || horizon == 0 {
            return None;
        }
        // Area under S from 0 to each step, then to τ.
        let mut area = 0.0;
        let (mut from, mut level) = (0u64, 1.0);
        let mut before = Vec::new();
        for s in self.steps.iter().take_while(|s| s.n < horizon) {
            area += level * (s.n - from) as f64;
            before.push(area);
            from = s.n;
            level = s.survival;
        }
        let mean = area + level * (horizon - from) as f64;
        let var: f64 = self
            .steps
            .iter()
            .zip(&before)
            .filter(|(s, _)| s.at_risk > s.ended)
            .map(|(s, a)| {
                let tail = mean - a;
                let (r, d) = (s.at_risk as f64, s.ended as f64);
                tail * tail * d / (r * (r - d))
            })
            .sum();
        let se = var.sqrt();
        let z = z975();
        Some(Restricted {
            horizon,
            mean,
            se,
            ci: (mean - z * se, mean + z * se),
        })
    }
}

/// A horizon for restricted means shared by every variant of a report: the largest 99th
/// percentile of ended lengths, rounded up to two significant digits, and no later than the
/// earliest capped game (beyond a cap the curve would rest on the loops alone).
pub fn horizon(p99s: impl Iterator<Item = u64>, earliest_cap: Option<u64>) -> Option<u64> {
    let top = p99s.max()?.max(1);
    let digits = top.ilog10();
    let unit = 10u64.pow(digits.saturating_sub(1));
    let rounded = top.div_ceil(unit) * unit;
    Some(earliest_cap.map_or(rounded, |c| rounded.min(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: &[u64]) -> Hist {
        let mut h = Hist::default();
        for v in values {
            h.add(*v);
        }
        h
    }

    /// A textbook example (Kaplan and Meier's style, by hand): ends at 3, 5, 5, 8; one censored
    /// at 4 and one at 8; one never ends. 7 games.
    #[test]
    fn steps_of_a_small_sample_by_hand() {
        let km = KaplanMeier::new(&hist(&[3, 5, 5, 8]), &hist(&[4, 8]), 1);
        // At 3: 7 at risk, 1 ends → 6/7. At 4 one is censored. At 5: 5 at risk, 2 end → ×3/5.
        // At 8: 3 at risk (one censored at 8 still counts), 1 ends → ×2/3.
        let want = [
            (3, 6.0 / 7.0, 7),
            (5, 6.0 / 7.0 * 3.0 / 5.0, 5),
            (8, 6.0 / 7.0 * 3.0 / 5.0 * 2.0 / 3.0, 3),
        ];
        assert_eq!(km.steps.len(), 3);
        for (s, (n, surv, r)) in km.steps.iter().zip(want) {
            assert_eq!((s.n, s.at_risk), (n, r));
            assert!((s.survival - surv).abs() < 1e-15);
        }
        assert_eq!(km.at(2), 1.0);
        assert!((km.at(4) - 6.0 / 7.0).abs() < 1e-15);
        assert!((km.plateau() - 12.0 / 35.0).abs() < 1e-15);
        // μ(10) = 3·1 + 2·6/7 + 3·18/35 + 2·12/35.
        let mu = km.restricted_mean(10).unwrap();
        let want = 3.0 + 12.0 / 7.0 + 54.0 / 35.0 + 24.0 / 35.0;
        assert!((mu.mean - want).abs() < 1e-12, "{mu:?}");
    }

    /// Without censoring before τ, μ(τ) is the plain mean of min(T, τ) (a loop counts τ) and
    /// Greenwood's variance is its plug-in variance / N.
    #[test]
    fn restricted_mean_without_censoring_is_the_plain_mean() {
        let ended: Vec<u64> = (0..500).map(|i| 1 + (i * i * 7 + 3 * i) % 97).collect();
        let loops = 37u64;
        let capped = [200u64, 250];
        let km = KaplanMeier::new(&hist(&ended), &hist(&capped), loops);
        for tau in [1u64, 10, 50, 98, 150] {
            let xs: Vec<f64> = ended
                .iter()
                .map(|t| (*t).min(tau) as f64)
                .chain((0..loops + 2).map(|_| tau as f64))
                .collect();
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n / n;
            let mu = km.restricted_mean(tau).unwrap();
            assert!(
                (mu.mean - mean).abs() < 1e-9,
                "τ {tau}: {} vs {mean}",
                mu.mean
            );
            assert!(
                (mu.se - var.sqrt()).abs() < 1e-9 * (1.0 + var.sqrt()),
                "τ {tau}: {} vs {}",
                mu.se,
                var.sqrt()
            );
        }
    }

    #[test]
    fn horizons_round_up_and_stop_at_the_cap() {
        assert_eq!(horizon([7112u64, 2908].into_iter(), None), Some(7200));
        assert_eq!(horizon([95u64].into_iter(), None), Some(95));
        assert_eq!(horizon([1001u64].into_iter(), None), Some(1100));
        assert_eq!(horizon([7112u64].into_iter(), Some(5000)), Some(5000));
        assert_eq!(horizon(std::iter::empty(), Some(10)), None);
    }
}
