//! The statistics behind the summary: the Wilson score interval of a violation rate, Newcombe's
//! interval for the difference of two rates (used by `diff`), and the paired Wilcoxon
//! signed-rank test with MT4MRC's decision rule (seed-000 §4, RQ4).
//!
//! # Wilcoxon signed-rank test: decisions recorded here
//!
//! * **Zeros** (pairs with `x == y`) are **dropped** before ranking (Wilcoxon's original
//!   treatment, `zero_method="wilcox"` in SciPy and the default of R's `wilcox.test`); the number
//!   dropped is reported. Pratt's variant is not implemented: with violation rates, a zero means
//!   "no evidence either way" and dropping it is what the seed's table reproduces.
//! * **Ties** among the `|x − y|` get **midranks** (the average of the ranks they span).
//!   Differences are rounded to 12 decimals first, so that rates equal as fractions tie
//!   (`0.5 − 0.3` and `0.3 − 0.1` differ in the last bit in floating point).
//! * **Exact** p-values for `n ≤ 50` non-zero differences: the permutation distribution of
//!   `W⁺` (every sign pattern equally likely under H₀), computed by dynamic programming over
//!   doubled ranks, so that midranks stay integers. Without ties this is the classical exact
//!   null distribution (for `n = 10`, p-values are multiples of 1/1024 as in seed-000 Table 2);
//!   with ties it is the exact conditional distribution given the observed ranks.
//! * **Normal approximation** above 50, with the tie correction
//!   `σ² = n(n+1)(2n+1)/24 − Σ(t³ − t)/48` and no continuity correction (SciPy's defaults).
//! * Two-sided `p = min(1, 2 · min(p_less, p_greater))`.
//!
//! The decision rule (seed-000, inferred from Table 2 and consistent with every cell) compares
//! `x` with `y` at level 0.05: two-sided `p ≥ 0.05` → [`Decision::Similar`]; else one-sided
//! `p_less < 0.05` (x tends to be less than y) → [`Decision::Better`]; else [`Decision::Worse`].

use serde::{Deserialize, Serialize};

/// The standard normal quantile of 0.975.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Largest number of non-zero differences for which the exact distribution is used.
pub const EXACT_MAX_N: usize = 50;

/// The significance level of the decision rule.
pub const ALPHA: f64 = 0.05;

/// Wilson score 95% interval `[low, high]` for `k` successes in `n` trials; `None` when `n` is 0.
///
/// ```
/// let [lo, hi] = metamorph_judge::wilson(7, 12).unwrap();
/// assert!((lo - 0.319_511).abs() < 1e-6 && (hi - 0.806_740).abs() < 1e-6);
/// ```
pub fn wilson(k: u64, n: u64) -> Option<[f64; 2]> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k.min(n) as f64, n as f64);
    let z = Z95;
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / denom;
    Some([(centre - half).max(0.0), (centre + half).min(1.0)])
}

/// Newcombe's hybrid score 95% interval (his method 10, 1998) for the difference `p₂ − p₁` of two
/// independent proportions `k₁/n₁` and `k₂/n₂`, built from their Wilson intervals; `None` when
/// either `n` is 0. An interval that excludes 0 means the rate changed beyond its uncertainty.
pub fn newcombe_difference(k1: u64, n1: u64, k2: u64, n2: u64) -> Option<[f64; 2]> {
    let [l1, u1] = wilson(k1, n1)?;
    let [l2, u2] = wilson(k2, n2)?;
    let p1 = k1.min(n1) as f64 / n1 as f64;
    let p2 = k2.min(n2) as f64 / n2 as f64;
    let d = p2 - p1;
    let low = d - ((p2 - l2).powi(2) + (u1 - p1).powi(2)).sqrt();
    let high = d + ((u2 - p2).powi(2) + (p1 - l1).powi(2)).sqrt();
    Some([low.max(-1.0), high.min(1.0)])
}

/// How the p-values of a [`SignedRank`] test were computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The exact (permutation) distribution of `W⁺`.
    Exact,
    /// The normal approximation with tie correction.
    Normal,
}

/// seed-000's three-way outcome of comparing `x` with `y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Two-sided `p ≥ 0.05`: no detectable difference.
    Similar,
    /// Two-sided `p < 0.05` and one-sided `p_less < 0.05`: `x` tends to be less than `y`.
    Better,
    /// Two-sided `p < 0.05` otherwise: `x` tends to be greater than `y`.
    Worse,
}

/// The result of a paired Wilcoxon signed-rank test of `x` against `y` (differences `x − y`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SignedRank {
    /// Pairs compared (including zeros).
    pub pairs: usize,
    /// Non-zero differences ranked.
    pub n: usize,
    /// Zero differences dropped.
    pub zeros: usize,
    /// Whether some `|x − y|` were tied (midranks used).
    pub ties: bool,
    /// Sum of the ranks of positive differences (`x > y`).
    pub w_plus: f64,
    /// Sum of the ranks of negative differences (`x < y`).
    pub w_minus: f64,
    /// Two-sided p-value.
    pub p_two_sided: f64,
    /// One-sided p-value for the alternative "x tends to be less than y".
    pub p_less: f64,
    /// One-sided p-value for the alternative "x tends to be greater than y".
    pub p_greater: f64,
    /// Exact or normal approximation.
    pub method: Method,
    /// seed-000's decision rule applied to the p-values.
    pub decision: Decision,
}

/// seed-000's decision rule: two-sided `p ≥ 0.05` → Similar, else one-sided `p_less < 0.05` →
/// Better, else Worse.
pub fn decide(p_two_sided: f64, p_less: f64) -> Decision {
    if p_two_sided >= ALPHA {
        Decision::Similar
    } else if p_less < ALPHA {
        Decision::Better
    } else {
        Decision::Worse
    }
}

/// The paired Wilcoxon signed-rank test of `x` against `y` (see the module docs for zeros, ties
/// and the exact/normal switch). Pairs where either value is not finite are left out. Returns
/// `None` when no non-zero difference remains (nothing to test; the decision would be Similar).
///
/// ```
/// use metamorph_judge::{wilcoxon_signed_rank, Decision};
/// // Ten pairs, x below y every time: the smallest exact p-values for n = 10 (seed-000 Table 2).
/// let x = [0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.0, 0.2, 0.1, 0.3];
/// let y = [0.5, 0.6, 0.2, 0.9, 0.4, 0.7, 0.1, 0.5, 0.8, 0.4];
/// let t = wilcoxon_signed_rank(&x, &y).unwrap();
/// assert_eq!(t.p_less, 1.0 / 1024.0);
/// assert_eq!(t.p_two_sided, 2.0 / 1024.0);
/// assert_eq!(t.decision, Decision::Better);
/// ```
///
/// # Panics
/// When `x` and `y` differ in length (the test is paired).
pub fn wilcoxon_signed_rank(x: &[f64], y: &[f64]) -> Option<SignedRank> {
    assert_eq!(x.len(), y.len(), "paired samples must have equal length");
    let diffs: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(a, b)| ((a - b) * 1e12).round() / 1e12)
        .filter(|d| d.is_finite())
        .collect();
    let pairs = diffs.len();
    let mut nonzero: Vec<f64> = diffs.into_iter().filter(|d| *d != 0.0).collect();
    let n = nonzero.len();
    if n == 0 {
        return None;
    }
    nonzero.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    // Doubled midranks: a tie group spanning ranks i+1..=j gets (i+1+j)/2, doubled = i+1+j.
    let mut rank2 = vec![0u64; n];
    let mut tie_term = 0.0;
    let mut ties = false;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && nonzero[j].abs() == nonzero[i].abs() {
            j += 1;
        }
        let t = (j - i) as f64;
        if j - i > 1 {
            ties = true;
            tie_term += t * t * t - t;
        }
        for r in &mut rank2[i..j] {
            *r = (i + 1 + j) as u64;
        }
        i = j;
    }
    let t_plus: u64 = nonzero
        .iter()
        .zip(&rank2)
        .filter(|(d, _)| **d > 0.0)
        .map(|(_, r)| r)
        .sum();
    let total: u64 = rank2.iter().sum();
    let (p_less, p_greater, method) = if n <= EXACT_MAX_N {
        // counts[s] = sign patterns whose positive doubled ranks sum to s.
        let mut counts = vec![0f64; total as usize + 1];
        counts[0] = 1.0;
        let mut reach = 0usize;
        for &r in &rank2 {
            let r = r as usize;
            for s in (0..=reach).rev() {
                if counts[s] != 0.0 {
                    counts[s + r] += counts[s];
                }
            }
            reach += r;
        }
        let all = 2f64.powi(n as i32);
        let t = t_plus as usize;
        let le: f64 = counts[..=t].iter().sum();
        let ge: f64 = counts[t..].iter().sum();
        (le / all, ge / all, Method::Exact)
    } else {
        let nf = n as f64;
        let mean = nf * (nf + 1.0) / 4.0;
        let var = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - tie_term / 48.0;
        let z = (t_plus as f64 / 2.0 - mean) / var.sqrt();
        (normal_cdf(z), normal_cdf(-z), Method::Normal)
    };
    let p_two_sided = (2.0 * p_less.min(p_greater)).min(1.0);
    Some(SignedRank {
        pairs,
        n,
        zeros: pairs - n,
        ties,
        w_plus: t_plus as f64 / 2.0,
        w_minus: (total - t_plus) as f64 / 2.0,
        p_two_sided,
        p_less,
        p_greater,
        method,
        decision: decide(p_two_sided, p_less),
    })
}

/// The standard normal distribution function, Φ(z) = erfc(−z/√2)/2.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_handles_the_edges() {
        assert_eq!(wilson(0, 0), None);
        let [lo, hi] = wilson(5, 5).unwrap();
        assert!(hi == 1.0 && (lo - 0.565_518).abs() < 1e-6, "{lo}");
        let [lo, hi] = wilson(0, 10).unwrap();
        assert!(lo == 0.0 && (hi - 0.277_533).abs() < 1e-6, "{hi}");
    }

    #[test]
    fn decision_rule_matches_every_kind_of_seed_cell() {
        // seed-000 Table 2: NEB/MR2-1 (0.0645, 0.0322) is Similar; WS/MR2-2 (0.0020, 1.0) Worse;
        // GF/MR1-1 (0.0137, 0.0068) Better.
        assert_eq!(decide(0.0645, 0.0322), Decision::Similar);
        assert_eq!(decide(0.0020, 1.0), Decision::Worse);
        assert_eq!(decide(0.0137, 0.0068), Decision::Better);
    }

    #[test]
    fn no_nonzero_difference_is_no_test() {
        assert!(wilcoxon_signed_rank(&[0.1, 0.2], &[0.1, 0.2]).is_none());
        assert!(wilcoxon_signed_rank(&[], &[]).is_none());
    }
}
