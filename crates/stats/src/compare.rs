//! Comparisons of two length distributions, computed exactly from their histograms.
//!
//! - Welch's t: difference of means with its 95 % CI and p-value;
//! - Mann–Whitney U (normal approximation with the tie correction) and the probability of
//!   superiority `A = P(X > Y) + P(X = Y)/2`;
//! - two-sample Kolmogorov–Smirnov (asymptotic p-value);
//! - Cohen's d with the pooled standard deviation;
//! - two shares: the difference with Newcombe's hybrid score interval and the pooled
//!   two-proportion z-test;
//! - Holm's step-down adjustment of a family of p-values;
//! - a weighted least-squares power law `y ∝ xᵃ` on log–log axes, with the χ² of the points
//!   about it, and the local slopes between neighbouring points.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal, StudentsT};

use crate::aggregate::Hist;
use crate::summary::{mean_estimate, t975_f, wilson, z975};

/// One variant against the baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// Difference of means, variant − baseline.
    pub diff: f64,
    /// 95 % CI of the difference (Welch).
    pub diff_ci: (f64, f64),
    /// Welch's t-test p-value (two-sided).
    pub welch_p: f64,
    /// Mann–Whitney U test p-value (two-sided, normal approximation with tie correction).
    pub mann_whitney_p: f64,
    /// P(X > Y) + P(X = Y)/2: X from the variant, Y from the baseline.
    pub superiority: f64,
    /// Kolmogorov–Smirnov distance between the two distributions.
    pub ks_d: f64,
    /// Kolmogorov–Smirnov p-value (asymptotic).
    pub ks_p: f64,
    /// Cohen's d (difference of means over the pooled SD).
    pub cohen_d: f64,
}

/// Compares two length histograms (variant `x`, baseline `y`); `None` when either has fewer than 2 games.
pub fn compare(x: &Hist, y: &Hist) -> Option<Comparison> {
    let (mx, my) = (mean_estimate(x)?, mean_estimate(y)?);
    let (sx, sy) = (mx.sd?, my.sd?);
    let (nx, ny) = (mx.n as f64, my.n as f64);
    let diff = mx.mean - my.mean;
    let (vx, vy) = (sx * sx / nx, sy * sy / ny);
    let se = (vx + vy).sqrt();
    let df = (vx + vy).powi(2) / (vx * vx / (nx - 1.0) + vy * vy / (ny - 1.0));
    let (welch_p, half) = if se > 0.0 {
        let t = (diff / se).abs();
        // statrs' t tail is slow for millions of degrees of freedom, where it is the normal's.
        let tail = if df > 1e4 {
            Normal::standard().sf(t)
        } else {
            StudentsT::new(0.0, 1.0, df).ok()?.sf(t)
        };
        ((2.0 * tail).min(1.0), t975_f(df) * se)
    } else {
        (if diff == 0.0 { 1.0 } else { 0.0 }, 0.0)
    };
    let pooled = (((nx - 1.0) * sx * sx + (ny - 1.0) * sy * sy) / (nx + ny - 2.0)).sqrt();
    let (mann_whitney_p, superiority) = mann_whitney(x, y);
    let (ks_d, ks_p) = kolmogorov_smirnov(x, y);
    Some(Comparison {
        diff,
        diff_ci: (diff - half, diff + half),
        welch_p,
        mann_whitney_p,
        superiority,
        ks_d,
        ks_p,
        cohen_d: if pooled > 0.0 { diff / pooled } else { 0.0 },
    })
}

/// Both histograms' counts over the union of their values, increasing.
fn joint(x: &Hist, y: &Hist) -> Vec<(u64, f64, f64)> {
    let mut a = x.iter().peekable();
    let mut b = y.iter().peekable();
    let mut out = Vec::new();
    loop {
        let next = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(&(v, c)), None) => {
                a.next();
                (v, c as f64, 0.0)
            }
            (None, Some(&(v, c))) => {
                b.next();
                (v, 0.0, c as f64)
            }
            (Some(&(va, ca)), Some(&(vb, cb))) => {
                if va < vb {
                    a.next();
                    (va, ca as f64, 0.0)
                } else if vb < va {
                    b.next();
                    (vb, 0.0, cb as f64)
                } else {
                    a.next();
                    b.next();
                    (va, ca as f64, cb as f64)
                }
            }
        };
        out.push(next);
    }
    out
}

/// Two-sided p-value of Mann–Whitney U (normal approximation, tie-corrected), and the
/// probability of superiority of `x` over `y`.
pub fn mann_whitney(x: &Hist, y: &Hist) -> (f64, f64) {
    let (n1, n2) = (x.count() as f64, y.count() as f64);
    let n = n1 + n2;
    let (mut below, mut rank_sum, mut ties) = (0.0f64, 0.0f64, 0.0f64);
    for (_, cx, cy) in joint(x, y) {
        let t = cx + cy;
        // The tie group takes ranks below+1 ..= below+t: its average rank for each member.
        rank_sum += cx * (below + (t + 1.0) / 2.0);
        ties += t * t * t - t;
        below += t;
    }
    let u = rank_sum - n1 * (n1 + 1.0) / 2.0;
    let superiority = u / (n1 * n2);
    let var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if var <= 0.0 {
        return (1.0, superiority);
    }
    let z = (u - n1 * n2 / 2.0) / var.sqrt();
    let p = 2.0 * Normal::standard().sf(z.abs());
    (p.clamp(0.0, 1.0), superiority)
}

/// The two-sample Kolmogorov–Smirnov statistic and its asymptotic p-value.
pub fn kolmogorov_smirnov(x: &Hist, y: &Hist) -> (f64, f64) {
    let (n1, n2) = (x.count() as f64, y.count() as f64);
    let (mut fx, mut fy, mut d) = (0.0f64, 0.0f64, 0.0f64);
    for (_, cx, cy) in joint(x, y) {
        fx += cx / n1;
        fy += cy / n2;
        d = d.max((fx - fy).abs());
    }
    let ne = n1 * n2 / (n1 + n2);
    let lambda = (ne.sqrt() + 0.12 + 0.11 / ne.sqrt()) * d;
    (d, kolmogorov_q(lambda))
}

/// `Q(λ) = 2 Σ_{j≥1} (−1)^{j−1} exp(−2 j² λ²)`, the Kolmogorov tail.
fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 1e-3 {
        return 1.0;
    }
    let mut sum = 0.0;
    let mut sign = 1.0;
    for j in 1..=200 {
        let j = f64::from(j);
        let term = sign * (-2.0 * j * j * lambda * lambda).exp();
        sum += term;
        if term.abs() < 1e-16 {
            break;
        }
        sign = -sign;
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// Two shares `k1/n1` (the variant) and `k2/n2` (the baseline) compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShareComparison {
    /// `k1/n1 − k2/n2`.
    pub diff: f64,
    /// 95 % interval of the difference: Newcombe's hybrid score interval (his method 10),
    /// built from the two Wilson intervals, so it stays inside [−1, 1] and is meaningful when
    /// a share is 0 or 1.
    pub diff_ci: (f64, f64),
    /// Two-sided p-value: the pooled two-proportion z-test, or Fisher's exact test where an
    /// expected count is below 5 and the normal approximation does not hold (1 when both
    /// shares are 0 or both are 1).
    pub p: f64,
}

/// Compares two shares `k1/n1` (variant) and `k2/n2` (baseline); `None` when either has no games.
pub fn compare_shares(k1: u64, n1: u64, k2: u64, n2: u64) -> Option<ShareComparison> {
    let ((l1, u1), (l2, u2)) = (wilson(k1, n1)?, wilson(k2, n2)?);
    let (p1, p2) = (k1 as f64 / n1 as f64, k2 as f64 / n2 as f64);
    let diff = p1 - p2;
    let lo = diff - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
    let hi = diff + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
    let pooled = (k1 + k2) as f64 / (n1 + n2) as f64;
    let se = (pooled * (1.0 - pooled) * (1.0 / n1 as f64 + 1.0 / n2 as f64)).sqrt();
    let smallest_expected = [n1, n2]
        .iter()
        .map(|&n| n as f64 * pooled.min(1.0 - pooled))
        .fold(f64::INFINITY, f64::min);
    let p = if se == 0.0 {
        1.0
    } else if smallest_expected < 5.0 {
        fisher_exact(k1, n1, k2, n2)
    } else {
        (2.0 * Normal::standard().sf((diff / se).abs())).min(1.0)
    };
    Some(ShareComparison {
        diff,
        diff_ci: (lo, hi),
        p,
    })
}

/// Two-sided Fisher's exact test of `k1/n1` against `k2/n2`: the probability, given the
/// margins, of every table at most as likely as the one seen (with a relative tolerance of
/// 10⁻⁷ for ties, as R's `fisher.test`).
pub fn fisher_exact(k1: u64, n1: u64, k2: u64, n2: u64) -> f64 {
    use statrs::function::gamma::ln_gamma;
    let ln_choose = |n: u64, k: u64| {
        ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
    };
    let (k, n) = (k1 + k2, n1 + n2);
    let ln_total = ln_choose(n, k);
    // P(the first group holds x of the k successes): hypergeometric.
    let ln_p = |x: u64| ln_choose(n1, x) + ln_choose(n2, k - x) - ln_total;
    let seen = ln_p(k1);
    let (lo, hi) = (k.saturating_sub(n2), k.min(n1));
    let p: f64 = (lo..=hi)
        .map(ln_p)
        .filter(|l| *l <= seen + 1e-7_f64.ln_1p())
        .map(f64::exp)
        .sum();
    p.min(1.0)
}

/// Holm's step-down adjusted p-values, in the input order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (k, &i) in order.iter().enumerate() {
        running = running.max(((m - k) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// `y = c·xᵃ` fitted by weighted least squares of `ln y` on `ln x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerLaw {
    /// The exponent `a`.
    pub exponent: f64,
    /// Standard error of `a` (scaled up by the reduced χ² when that exceeds 1).
    pub exponent_se: f64,
    /// 95 % CI of `a` (Student's t on `points − 2` degrees of freedom).
    pub exponent_ci: (f64, f64),
    /// The scale `c`.
    pub scale: f64,
    /// Points fitted.
    pub points: usize,
    /// χ² of the points about the line (in units of their errors), on `points − 2` degrees
    /// of freedom, and its upper-tail p-value: a small p says the points do not lie on any
    /// single power law within their errors, so the fit only describes them.
    pub chi2: f64,
    /// Upper-tail p-value of `chi2`.
    pub fit_p: f64,
}

/// Fits `(x, y, se of y)` points; the weight of a point is `1 / var(ln y) = (y / se)²`. The
/// exponent's standard error is scaled up by the reduced χ² when that exceeds 1 (when the
/// points scatter more than their errors say, the law is only approximate).
pub fn power_law(points: &[(f64, f64, f64)]) -> Option<PowerLaw> {
    let pts: Vec<(f64, f64, f64)> = points
        .iter()
        .filter(|(x, y, se)| *x > 0.0 && *y > 0.0 && *se > 0.0)
        .map(|(x, y, se)| (x.ln(), y.ln(), (y / se).powi(2)))
        .collect();
    let k = pts.len();
    if k < 3 {
        return None;
    }
    let sw: f64 = pts.iter().map(|p| p.2).sum();
    let mx = pts.iter().map(|p| p.2 * p.0).sum::<f64>() / sw;
    let my = pts.iter().map(|p| p.2 * p.1).sum::<f64>() / sw;
    let sxx: f64 = pts.iter().map(|p| p.2 * (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.1 - my)).sum();
    let a = sxy / sxx;
    let b = my - a * mx;
    let chi2: f64 = pts.iter().map(|p| p.2 * (p.1 - b - a * p.0).powi(2)).sum();
    let reduced = chi2 / (k - 2) as f64;
    let se = (1.0 / sxx).sqrt() * reduced.max(1.0).sqrt();
    let t = t975_f((k - 2) as f64);
    let fit_p = ChiSquared::new((k - 2) as f64).map_or(f64::NAN, |c| c.sf(chi2));
    Some(PowerLaw {
        exponent: a,
        exponent_se: se,
        exponent_ci: (a - t * se, a + t * se),
        scale: b.exp(),
        points: k,
        chi2,
        fit_p,
    })
}

/// The log–log slope between two neighbouring points: `(x from, x to, slope, 95 % CI)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalSlope {
    /// The smaller x.
    pub from: f64,
    /// The larger x.
    pub to: f64,
    /// The slope between the two points.
    pub slope: f64,
    /// Its 95 % CI.
    pub ci: (f64, f64),
}

/// The slope `Δ ln y / Δ ln x` between each point and the next (in increasing x; points at
/// the same x pooled) of `(x, y, se of y)` points, with a 95 % interval from the delta method: the two means are
/// independent samples, so `var(ln y) ≈ (se / y)²` adds. A local exponent that drifts beyond
/// these intervals is what a single power-law fit cannot show.
pub fn local_slopes(points: &[(f64, f64, f64)]) -> Vec<LocalSlope> {
    let mut sorted: Vec<(f64, f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y, se)| *x > 0.0 && *y > 0.0 && *se > 0.0 && se.is_finite())
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Points at the same x (decks with the same cards in play) estimate the same mean:
    // pooled by inverse-variance weights.
    let mut pts: Vec<(f64, f64, f64)> = Vec::new();
    for group in sorted.chunk_by(|a, b| a.0 == b.0) {
        let w: f64 = group.iter().map(|p| p.2.powi(-2)).sum();
        let y = group.iter().map(|p| p.1 * p.2.powi(-2)).sum::<f64>() / w;
        pts.push((group[0].0, y, w.sqrt().recip()));
    }
    let z = z975();
    pts.windows(2)
        .map(|w| {
            let ((x0, y0, s0), (x1, y1, s1)) = (w[0], w[1]);
            let dx = (x1 / x0).ln();
            let slope = (y1 / y0).ln() / dx;
            let se = ((s0 / y0).powi(2) + (s1 / y1).powi(2)).sqrt() / dx;
            LocalSlope {
                from: x0,
                to: x1,
                slope,
                ci: (slope - z * se, slope + z * se),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(values: impl IntoIterator<Item = (u64, u64)>) -> Hist {
        let mut h = Hist::default();
        for (v, c) in values {
            h.add_n(v, c);
        }
        h
    }

    /// Geometric on 1, 2, …: P(X = k) = (1 − p)^(k−1) p, in counts out of 2³⁰ (rounded).
    fn geometric(p: f64) -> Hist {
        let total = (1u64 << 30) as f64;
        hist((1..400).map(|k| (k, (total * (1.0 - p).powi(k as i32 - 1) * p).round() as u64)))
    }

    #[test]
    fn geometric_mean_and_survival() {
        let h = geometric(0.1);
        let m = mean_estimate(&h).unwrap();
        assert!((m.mean - 10.0).abs() < 1e-3, "{}", m.mean);
        // Variance (1 − p)/p² = 90.
        assert!((m.sd.unwrap().powi(2) - 90.0).abs() < 0.05, "{:?}", m.sd);
        // P(X > n) = 0.9ⁿ.
        for (n, s) in h.survival().into_iter().take(50) {
            assert!((s - 0.9f64.powi(n as i32)).abs() < 1e-6, "n = {n}: {s}");
        }
    }

    #[test]
    fn identical_samples_do_not_differ() {
        let a = geometric(0.05);
        let c = compare(&a, &a).unwrap();
        assert_eq!(c.diff, 0.0);
        assert!((c.welch_p - 1.0).abs() < 1e-12);
        assert_eq!(c.ks_d, 0.0);
        assert_eq!(c.ks_p, 1.0);
        assert!((c.mann_whitney_p - 1.0).abs() < 1e-9);
        assert!((c.superiority - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_shifted_sample_differs_by_its_shift() {
        let a = hist((0..100).map(|v| (v, 10)));
        let b = hist((5..105).map(|v| (v, 10)));
        let c = compare(&b, &a).unwrap();
        assert!((c.diff - 5.0).abs() < 1e-12);
        assert!(c.diff_ci.0 < 5.0 && c.diff_ci.1 > 5.0);
        // The largest CDF gap of two uniforms shifted by 5 of 100 values is 0.05.
        assert!((c.ks_d - 0.05).abs() < 1e-12, "{}", c.ks_d);
        assert!(c.superiority > 0.5);
        let far = hist((50..150).map(|v| (v, 10)));
        let c = compare(&far, &a).unwrap();
        assert!(c.welch_p < 1e-12 && c.ks_p < 1e-12 && c.mann_whitney_p < 1e-12);
        assert!((c.ks_d - 0.5).abs() < 1e-12);
    }

    #[test]
    fn ks_p_value_matches_the_kolmogorov_tail() {
        // Q(1.36) ≈ 0.049 (the 5 % critical value of the Kolmogorov distribution).
        assert!((kolmogorov_q(1.358) - 0.05).abs() < 1e-3);
        assert!((kolmogorov_q(1.628) - 0.01).abs() < 1e-3);
    }

    /// Newcombe (1998), Statistics in Medicine 17, 873–890, Table II, method 10.
    #[test]
    fn share_differences_match_newcombe() {
        for (k1, n1, k2, n2, lo, hi) in [
            (56, 70, 48, 80, 0.0524, 0.3339),
            (9, 10, 3, 10, 0.1705, 0.8090),
            (6, 7, 2, 7, 0.0582, 0.8062),
            (5, 56, 0, 29, -0.0381, 0.1926),
            (0, 10, 0, 20, -0.1611, 0.2775),
            (10, 10, 0, 20, 0.6791, 1.0000),
        ] {
            let c = compare_shares(k1, n1, k2, n2).unwrap();
            assert!(
                (c.diff_ci.0 - lo).abs() < 6e-5 && (c.diff_ci.1 - hi).abs() < 6e-5,
                "{k1}/{n1} − {k2}/{n2}: {:?}",
                c.diff_ci
            );
        }
        // The pooled z-test, by hand: 56/70 vs 48/80, p̂ = 104/150.
        let c = compare_shares(56, 70, 48, 80).unwrap();
        let pool: f64 = 104.0 / 150.0;
        let z = (0.8 - 0.6) / (pool * (1.0 - pool) * (1.0 / 70.0 + 1.0 / 80.0)).sqrt();
        assert!((c.p - 2.0 * Normal::standard().sf(z)).abs() < 1e-15);
        assert!((z - 2.6502).abs() < 1e-4, "{z}");
        assert_eq!(compare_shares(0, 10, 0, 20).unwrap().p, 1.0);
        assert_eq!(compare_shares(1, 0, 0, 20), None);
    }

    #[test]
    fn fisher_exact_matches_known_values() {
        // Fisher's tea tasting: 3 of 4 against 1 of 4, two-sided p = 34/70.
        assert!((fisher_exact(3, 4, 1, 4) - 34.0 / 70.0).abs() < 1e-12);
        // One game of one that loops against none of N: only that table is as unlikely.
        assert!((fisher_exact(1, 1, 0, 200_000) - 1.0 / 200_001.0).abs() < 1e-15);
        assert!((fisher_exact(0, 5, 0, 7) - 1.0).abs() < 1e-12);
        // Small expected counts use it, large ones the z-test.
        let small = compare_shares(1, 1, 0, 200_000).unwrap();
        assert!((small.p - 1.0 / 200_001.0).abs() < 1e-15);
    }

    #[test]
    fn local_slopes_follow_a_changing_exponent() {
        // y = x² up to 8, then x³ (continuous at 8): slopes 2, 2, then 3; unordered input.
        let y = |x: f64| if x <= 8.0 { x * x } else { x.powi(3) / 8.0 };
        let pts: Vec<(f64, f64, f64)> = [16.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&x| (x, y(x), 0.01 * y(x)))
            .collect();
        let s = local_slopes(&pts);
        assert_eq!(s.len(), 3);
        for (l, want) in s.iter().zip([2.0, 2.0, 3.0]) {
            assert!((l.slope - want).abs() < 1e-12, "{l:?}");
            // Relative errors of 1 % on both ends, over ln 2: ±1.96·√2·0.01/ln 2.
            let half = 1.959_964 * 2f64.sqrt() * 0.01 / 2f64.ln();
            assert!((l.ci.1 - l.slope - half).abs() < 1e-5, "{l:?}");
        }
        assert_eq!((s[0].from, s[0].to), (2.0, 4.0));
        // A second point at x = 4 is pooled with the first by its weight.
        let mut twice = pts.clone();
        twice.push((4.0, 16.0 * 1.03, 0.16));
        let s2 = local_slopes(&twice);
        assert_eq!(s2.len(), 3);
        let pooled: f64 = (16.0 / 0.0256 + 16.48 / 0.0256) / (2.0 / 0.0256);
        assert!((s2[0].slope - (pooled / 4.0).ln() / 2f64.ln()).abs() < 1e-12);
        // One power law through them does not fit: the χ² test says so.
        let fit = power_law(&pts).unwrap();
        assert!(fit.fit_p < 1e-6, "{fit:?}");
    }

    #[test]
    fn holm_steps_down() {
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        assert_eq!(adj, vec![0.03, 0.06, 0.06, 0.02]);
    }

    #[test]
    fn power_law_recovers_an_exact_exponent() {
        let pts: Vec<(f64, f64, f64)> = (1..=10)
            .map(|i| {
                let x = f64::from(i) * 4.0;
                let y = 0.3 * x.powf(2.0);
                (x, y, y * 0.01)
            })
            .collect();
        let fit = power_law(&pts).unwrap();
        assert!((fit.exponent - 2.0).abs() < 1e-9);
        assert!((fit.scale - 0.3).abs() < 1e-9);
        assert!(fit.chi2 < 1e-12 && fit.fit_p > 0.999, "{fit:?}");
        assert!(fit.exponent_ci.0 <= 2.0 && fit.exponent_ci.1 >= 2.0);
    }
}
