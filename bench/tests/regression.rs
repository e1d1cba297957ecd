//! End-to-end check of the regression gate on simulated, seeded timings:
//! a 10% slowdown must be caught, a rerun of the same code must not be.

use kperf_bench::compare::{compare, CompareConfig, Samples, Verdict};
use kperf_bench::stats::{Center, Summary};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Kernel-like timings: a 1 ms kernel with 3% log-normal jitter and a 5%
/// chance of an extra exponential delay of mean 50 us (interrupts, other
/// tenants), times `scale`.
fn timings(seed: u64, n: usize, scale: f64) -> Vec<f64> {
    tailed(seed, n, scale, 0.05, 50_000.0)
}

/// As [`timings`] with a `p_tail` chance of an exponential delay of mean
/// `tail_ns`.
fn tailed(seed: u64, n: usize, scale: f64, p_tail: f64, tail_ns: f64) -> Vec<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            // Box-Muller standard normal.
            let (u1, u2): (f64, f64) = (rng.gen_range(f64::EPSILON..1.0), rng.gen());
            let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
            let mut t = 1.0e6 * (0.03 * z).exp();
            if rng.gen_bool(p_tail) {
                t += -tail_ns * rng.gen_range(f64::EPSILON..1.0f64).ln();
            }
            t * scale
        })
        .collect()
}

#[test]
fn ten_percent_slower_is_a_regression_and_a_rerun_is_not() {
    let cfg = CompareConfig::default();
    let base = timings(1, 60, 1.0);

    let slower = timings(2, 60, 1.10);
    let c = compare(Samples::time(&base), Samples::time(&slower), &cfg).unwrap();
    assert_eq!(c.verdict, Verdict::Regression, "{}", c.reason);
    assert!(
        c.time.mann_whitney.p_value < 1e-6,
        "{:?}",
        c.time.mann_whitney
    );
    assert!(c.time.bootstrap.low > 1.05, "{:?}", c.time.bootstrap);

    let rerun = timings(3, 60, 1.0);
    let c = compare(Samples::time(&base), Samples::time(&rerun), &cfg).unwrap();
    assert_eq!(c.verdict, Verdict::NoChange, "{}", c.reason);
    assert!(c.time.change().abs() < 0.05, "{}", c.reason);
}

#[test]
fn verdicts_hold_across_many_seeds() {
    // (scale of the new samples, expected verdict) over 10 seed pairs each:
    // no false alarm on reruns, no miss on a 10% change either way.
    // 1000 resamples keep the debug-build test quick.
    let cfg = CompareConfig {
        resamples: 1000,
        ..CompareConfig::default()
    };
    let cases = [
        (1.0, Verdict::NoChange),
        (1.02, Verdict::NoChange),
        (1.10, Verdict::Regression),
        (0.90, Verdict::Improvement),
    ];
    for (scale, want) in cases {
        for seed in 0..10u64 {
            let base = timings(100 + seed, 40, 1.0);
            let new = timings(200 + seed, 40, scale);
            let c = compare(Samples::time(&base), Samples::time(&new), &cfg).unwrap();
            assert_eq!(c.verdict, want, "scale {scale}, seed {seed}: {}", c.reason);
        }
    }
}

#[test]
fn clock_drop_with_cycles_is_not_a_regression() {
    // Same code (same cycle distribution), GPU clocked 10% lower: time
    // regresses, cycles do not, so the verdict is NoChange.
    let cfg = CompareConfig::default();
    let base_ns = timings(5, 50, 1.0);
    let base_cyc: Vec<f64> = base_ns.iter().map(|t| t * 1.98).collect();
    let new_cyc = timings(6, 50, 1.98);
    let new_ns: Vec<f64> = new_cyc.iter().map(|c| c / 1.98 * 1.10).collect();
    let c = compare(
        Samples::with_cycles(&base_ns, &base_cyc),
        Samples::with_cycles(&new_ns, &new_cyc),
        &cfg,
    )
    .unwrap();
    assert_eq!(c.time.verdict, Verdict::Regression);
    assert_eq!(
        c.cycles.as_ref().map(|m| m.verdict),
        Some(Verdict::NoChange)
    );
    assert_eq!(c.verdict, Verdict::NoChange, "{}", c.reason);
}

#[test]
fn tailed_timings_report_the_median() {
    // (tail probability, tail mean ns, median expected?): the mild tail of
    // `timings` leaves the mean in charge; a 10% chance of +300 us does not.
    let cases = [
        (0.05, 50_000.0, false),
        (0.10, 300_000.0, true),
        (0.0, 0.0, false),
    ];
    for (p, tail, median) in cases {
        let s = Summary::of(&tailed(7, 200, 1.0, p, tail)).unwrap();
        assert_eq!(matches!(s.center, Center::Median { .. }), median, "{s:?}");
    }
}
