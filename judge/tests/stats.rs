//! Every statistic against reference values computed outside this crate.
//!
//! Wilcoxon references: SciPy 1.17.1 (`scipy.stats.wilcoxon`, `zero_method="wilcox"`), in a venv
//! at `target/venv-scipy`:
//! * exact without ties: `wilcoxon(x, y, method="exact", alternative=…)`;
//! * exact with ties and zeros: `method=PermutationMethod(n_resamples=10**6)` (more resamples
//!   than sign patterns, so SciPy enumerates them all), checked by brute-force enumeration of
//!   the 2ⁿ sign patterns over `rankdata(|d|)` midranks;
//! * normal: `method="approx", correction=False`.
//!
//! Wilson and Newcombe references: the textbook formulas evaluated with Python's `math`
//! module; Newcombe (1998, Stat. Med. 17:873, method 10) prints 0.0524 to 0.3339 for 56/70 vs
//! 48/80.

use metamorph_judge::{newcombe_difference, wilcoxon_signed_rank, wilson, Decision, Method};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// Ten differences ±1..±10 (in hundredths), positive for the ranks in `positive`.
fn ranks(positive: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let x = (1..=10)
        .map(|i| {
            let d = i as f64 / 100.0;
            if positive.contains(&i) {
                0.5 + d
            } else {
                0.5 - d
            }
        })
        .collect();
    (x, vec![0.5; 10])
}

#[test]
fn exact_n10_reproduces_seed_000_table_2_cells() {
    // (positive ranks, 2-tailed p × 1024, 1-tailed p × 1024, decision, the seed cell it matches)
    let cells: [(&[usize], f64, f64, Decision, &str); 4] = [
        (
            &[1, 2, 3, 4, 5, 6],
            570.0,
            285.0,
            Decision::Similar,
            "GF/MR1-3 0.5566 0.2783",
        ),
        (
            &[1, 3],
            14.0,
            7.0,
            Decision::Better,
            "GF/MR1-1 0.0137 0.0068",
        ),
        (
            &[2, 3, 4],
            66.0,
            33.0,
            Decision::Similar,
            "NEB/MR2-1 0.0645 0.0322",
        ),
        (&[], 2.0, 1.0, Decision::Better, "WS/MR1-1 0.0020 0.0010"),
    ];
    for (positive, two, one, decision, cell) in cells {
        let (x, y) = ranks(positive);
        let t = wilcoxon_signed_rank(&x, &y).unwrap();
        assert_eq!(t.method, Method::Exact);
        assert_eq!((t.n, t.zeros, t.ties), (10, 0, false), "{cell}");
        assert_eq!(t.p_two_sided * 1024.0, two, "{cell}");
        assert_eq!(t.p_less * 1024.0, one, "{cell}");
        assert_eq!(t.decision, decision, "{cell}");
        assert_eq!(t.w_plus, positive.iter().sum::<usize>() as f64);
    }
    // The mirror image: x above y everywhere is Worse, with p_less = 1 (WS/MR2-3: 0.0020, 1.0).
    let (y, x) = ranks(&[]);
    let t = wilcoxon_signed_rank(&x, &y).unwrap();
    assert_eq!((t.p_two_sided, t.p_less), (2.0 / 1024.0, 1.0));
    assert_eq!(t.decision, Decision::Worse);
}

#[test]
fn exact_with_ties_and_zeros_matches_scipy() {
    // Differences 0.2, 0, −0.2, 0.2, 0, 0.2, −0.2, 0.2, 0.5: two zeros, a tie group of six.
    let x = [0.5, 0.2, 0.3, 0.3, 0.1, 0.6, 0.4, 0.25, 0.9];
    let y = [0.3, 0.2, 0.5, 0.1, 0.1, 0.4, 0.6, 0.05, 0.4];
    let t = wilcoxon_signed_rank(&x, &y).unwrap();
    assert_eq!((t.pairs, t.n, t.zeros, t.ties), (9, 7, 2, true));
    assert_eq!((t.w_plus, t.w_minus), (21.0, 7.0));
    assert_eq!(t.method, Method::Exact);
    assert!(close(t.p_two_sided, 0.359_375, 1e-12), "{}", t.p_two_sided);
    assert!(close(t.p_less, 0.945_312_5, 1e-12), "{}", t.p_less);
    assert!(close(t.p_greater, 0.179_687_5, 1e-12), "{}", t.p_greater);
    assert_eq!(t.decision, Decision::Similar);
}

#[test]
fn exact_with_ties_matches_scipy_permutation() {
    let x = [0.12, 0.30, 0.25, 0.41, 0.05, 0.33, 0.27, 0.19, 0.50, 0.08];
    let y = [0.10, 0.35, 0.21, 0.49, 0.11, 0.30, 0.40, 0.16, 0.44, 0.20];
    let t = wilcoxon_signed_rank(&x, &y).unwrap();
    assert!(t.ties);
    assert_eq!(t.w_plus, 16.5);
    assert!(
        close(t.p_two_sided, 0.292_968_75, 1e-12),
        "{}",
        t.p_two_sided
    );
    assert!(close(t.p_less, 0.146_484_375, 1e-12));
    assert!(close(t.p_greater, 0.873_046_875, 1e-12));
}

#[test]
fn normal_approximation_with_ties_matches_scipy() {
    #[rustfmt::skip]
    let x = [1.0, 0.6, 0.8, 1.0, 0.6, 0.8, 1.0, 0.2, 0.0, 0.2, 0.2, 1.0, 1.0, 0.0, 0.4, 0.8, 0.0, 0.8, 0.0, 0.4, 0.8, 0.2, 0.4, 0.2, 0.8, 0.2, 1.0, 0.4, 0.4, 0.6, 0.6, 0.6, 0.6, 1.0, 0.8, 0.8, 0.8, 0.6, 0.4, 1.0, 0.4, 0.2, 1.0, 0.0, 1.0, 0.6, 0.0, 0.0, 0.4, 0.0, 0.0, 0.6, 1.0, 0.4, 0.8, 1.0, 0.8, 0.6, 0.4, 0.6];
    #[rustfmt::skip]
    let y = [0.2, 0.4, 0.4, 0.4, 1.0, 0.2, 0.0, 0.4, 1.0, 1.0, 1.0, 0.2, 0.8, 0.4, 0.6, 0.0, 0.6, 0.8, 0.6, 0.2, 0.8, 0.2, 1.0, 1.2, 0.2, 0.6, 1.0, 1.0, 0.8, 0.8, 0.2, 0.8, 0.4, 0.0, 0.2, 0.6, 1.0, 0.6, 0.8, 1.2, 0.8, 0.4, 0.6, 0.6, 0.0, 0.0, 0.6, 0.4, 0.6, 0.2, 0.2, 0.0, 0.6, 0.8, 0.6, 0.4, 0.6, 1.2, 0.4, 0.6];
    // Rates in fifths: round the differences so that 0.6 − 0.4 and 0.4 − 0.2 tie as in SciPy's
    // input (it was given the rounded differences).
    let xr: Vec<f64> = x.iter().map(|v| (v * 10.0_f64).round()).collect();
    let yr: Vec<f64> = y.iter().map(|v| (v * 10.0_f64).round()).collect();
    let t = wilcoxon_signed_rank(&xr, &yr).unwrap();
    assert_eq!((t.n, t.method), (53, Method::Normal));
    assert_eq!(t.w_plus, 703.5);
    assert!(
        close(t.p_two_sided, 0.914_730_226_971, 1e-9),
        "{}",
        t.p_two_sided
    );
    assert!(close(t.p_less, 0.457_365_113_485, 1e-9), "{}", t.p_less);
    assert!(
        close(t.p_greater, 0.542_634_886_515, 1e-9),
        "{}",
        t.p_greater
    );
}

#[test]
fn wilson_matches_reference_values() {
    let [lo, hi] = wilson(7, 12).unwrap();
    assert!(close(lo, 0.319_511_312_5, 1e-9) && close(hi, 0.806_739_686_3, 1e-9));
    let [lo, hi] = wilson(5, 5).unwrap();
    assert!(close(lo, 0.565_517_535_2, 1e-9) && hi == 1.0);
    assert_eq!(wilson(3, 0), None);
}

#[test]
fn newcombe_matches_the_published_example() {
    // Difference p2 − p1 with p1 = 48/80, p2 = 56/70: Newcombe's 0.0524 to 0.3339.
    let [lo, hi] = newcombe_difference(48, 80, 56, 70).unwrap();
    assert!(
        close(lo, 0.052_431_472_4, 1e-9) && close(hi, 0.333_872_654_0, 1e-9),
        "{lo} {hi}"
    );
    // Same counts: the interval straddles 0.
    let [lo, hi] = newcombe_difference(5, 10, 5, 10).unwrap();
    assert!(lo < 0.0 && hi > 0.0);
}
