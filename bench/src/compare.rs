//! Is the new build slower than the baseline?
//!
//! A regression gate that fires on noise is switched off within a week, and
//! one that needs a 30% change misses real regressions. So a verdict here
//! needs two things at once:
//!
//! 1. **statistical significance**: the two-sided Mann-Whitney U test
//!    (p < `alpha`, 0.01 by default), and/or a seeded bootstrap confidence
//!    interval on the ratio of medians that excludes 1 (see
//!    [`Significance`]); both are distribution-free, which matters for
//!    skewed timing data;
//! 2. **a practical effect**: the ratio of medians new/base moves by more
//!    than `threshold` (5% by default).
//!
//! When both sides carry cycle counts (CUDA: `clock64` deltas per sample),
//! cycles are compared the same way and the time verdict only stands if the
//! cycle verdict agrees. A GPU that clocked down makes every kernel slower in
//! nanoseconds but not in cycles; that is a machine change, not a code
//! change. (Host TSC ticks run at a constant rate and are *not* core cycles:
//! do not pass them as cycles.)

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::error::{check_samples, BenchError, Result};
use crate::stats::percentile;

/// Which test(s) must agree for a difference to count as significant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Significance {
    /// Mann-Whitney p < alpha.
    MannWhitney,
    /// The bootstrap CI of the median ratio excludes 1.
    Bootstrap,
    /// Either of the two (default, as the issue asks: "Mann-Whitney U or
    /// bootstrap CI"). The effect threshold guards against the looser one.
    Either,
    /// Both: fewer false alarms, a little less power.
    Both,
}

/// Settings of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompareConfig {
    /// Significance level of the Mann-Whitney test.
    pub alpha: f64,
    /// Minimum relative change of the median ratio to call a regression or
    /// improvement (0.05 = 5%).
    pub threshold: f64,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Confidence level of the bootstrap interval.
    pub confidence: f64,
    /// Seed of the bootstrap, so a verdict is reproducible.
    pub seed: u64,
    pub significance: Significance,
    /// Sides larger than this are bootstrapped from a seeded subsample of
    /// this size (without replacement), bounding the cost at
    /// `resamples × 2 × max_bootstrap_samples`; the interval only gets wider,
    /// i.e. more conservative. Mann-Whitney always uses every sample.
    pub max_bootstrap_samples: usize,
}

impl Default for CompareConfig {
    fn default() -> Self {
        CompareConfig {
            alpha: 0.01,
            threshold: 0.05,
            resamples: 2000,
            confidence: 0.95,
            seed: 0x6b70_6572_665f_6263, // "kperf_bc"
            significance: Significance::Either,
            max_bootstrap_samples: 10_000,
        }
    }
}

impl CompareConfig {
    /// Rejects settings that make the test meaningless.
    pub fn validate(&self) -> Result<()> {
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(BenchError::setting(
                "alpha",
                self.alpha,
                "must be in (0, 1)",
            ));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return Err(BenchError::setting(
                "threshold",
                self.threshold,
                "must be finite and >= 0",
            ));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(BenchError::setting(
                "confidence",
                self.confidence,
                "must be in (0, 1)",
            ));
        }
        if self.resamples < 100 {
            return Err(BenchError::setting(
                "resamples",
                self.resamples,
                "at least 100 resamples are needed for a percentile interval",
            ));
        }
        if self.max_bootstrap_samples < 2 {
            return Err(BenchError::setting(
                "max_bootstrap_samples",
                self.max_bootstrap_samples,
                "must be at least 2",
            ));
        }
        Ok(())
    }
}

/// The outcome for one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// New is significantly and materially slower.
    Regression,
    /// New is significantly and materially faster.
    Improvement,
    /// Anything else.
    NoChange,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Regression => "REGRESSION",
            Verdict::Improvement => "improvement",
            Verdict::NoChange => "no change",
        })
    }
}

/// Mann-Whitney U test of base vs new.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the baseline: pairs (b, x) with b > x, ties counting ½.
    pub u_base: f64,
    /// Fraction of pairs where the new sample is larger (ties ½): 0.5 means
    /// no shift, 1.0 means every new sample is slower than every baseline
    /// one (the common-language effect size).
    pub p_new_greater: f64,
    /// Standardised statistic with tie and continuity corrections.
    pub z: f64,
    /// Two-sided p-value from the normal approximation.
    pub p_value: f64,
}

/// Two-sided Mann-Whitney U test with the normal approximation.
///
/// Ranks are averaged over ties; the variance is corrected for ties,
/// σ² = n₁n₂/12 · ((N+1) − Σ(t³−t)/(N(N−1))), and |U − n₁n₂/2| is shrunk by
/// ½ (continuity correction) before dividing by σ. The approximation is good
/// for n ≥ 8 per side, which any benchmark has; the exact distribution is not
/// computed (below ~4 per side no p under 0.01 is reachable anyway). When
/// every value is tied, σ = 0 and p = 1.
pub fn mann_whitney_u(base: &[f64], new: &[f64]) -> Result<MannWhitney> {
    check_samples(base, "baseline samples")?;
    check_samples(new, "new samples")?;
    let (n1, n2) = (base.len(), new.len());
    let n = n1 + n2;
    let mut all: Vec<(f64, bool)> = base
        .iter()
        .map(|&x| (x, true))
        .chain(new.iter().map(|&x| (x, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut rank_sum_base = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && all[j].0 == all[i].0 {
            j += 1;
        }
        // Ranks i+1 ..= j share their average.
        let avg_rank = (i + 1 + j) as f64 / 2.0;
        let in_base = all[i..j].iter().filter(|e| e.1).count();
        rank_sum_base += avg_rank * in_base as f64;
        let t = (j - i) as f64;
        tie_term += t * t * t - t;
        i = j;
    }
    let (n1f, n2f, nf) = (n1 as f64, n2 as f64, n as f64);
    let u_base = rank_sum_base - n1f * (n1f + 1.0) / 2.0;
    let mu = n1f * n2f / 2.0;
    let var = if n > 1 {
        n1f * n2f / 12.0 * ((nf + 1.0) - tie_term / (nf * (nf - 1.0)))
    } else {
        0.0
    };
    let (z, p_value) = if var > 0.0 {
        let d = u_base - mu;
        let z = d.signum() * (d.abs() - 0.5).max(0.0) / var.sqrt();
        (z, two_sided_p(z))
    } else {
        (0.0, 1.0)
    };
    Ok(MannWhitney {
        u_base,
        p_new_greater: (n1f * n2f - u_base) / (n1f * n2f),
        z,
        p_value,
    })
}

/// Two-sided normal tail probability 2(1 − Φ(|z|)); exactly 1 at z = 0.
fn two_sided_p(z: f64) -> f64 {
    if z == 0.0 {
        1.0
    } else {
        erfc(z.abs() / std::f64::consts::SQRT_2).min(1.0)
    }
}

/// Complementary error function (Numerical Recipes' Chebyshev fit,
/// relative error < 1.2e-7 everywhere), enough for p-values.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ans = t * poly.exp();
    if x >= 0.0 {
        ans
    } else {
        2.0 - ans
    }
}

/// Percentile bootstrap interval of median(new)/median(base).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BootstrapCi {
    /// The point estimate on all samples.
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub confidence: f64,
    pub resamples: usize,
}

impl BootstrapCi {
    /// True when the interval does not contain 1.
    pub fn excludes_one(&self) -> bool {
        self.low > 1.0 || self.high < 1.0
    }
}

/// Seeded percentile bootstrap of the ratio of medians: each resample
/// draws both sides with replacement (independently, since the samples are
/// unpaired) and takes median(new*)/median(base*); the interval is the
/// ((1−c)/2, (1+c)/2) percentiles of those ratios. Baseline samples must be
/// positive (a zero median has no ratio).
pub fn bootstrap_median_ratio(
    base: &[f64],
    new: &[f64],
    resamples: usize,
    confidence: f64,
    seed: u64,
    max_samples: usize,
) -> Result<BootstrapCi> {
    check_samples(base, "baseline samples")?;
    check_samples(new, "new samples")?;
    if let Some(index) = base.iter().position(|&x| x == 0.0) {
        return Err(BenchError::InvalidSample {
            context: "baseline samples".into(),
            index,
            value: 0.0,
            rule: "the median ratio divides by baseline samples, which must be positive",
        });
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let ratio = crate::stats::median(new) / crate::stats::median(base);
    let base_pool = subsample(base, max_samples.max(2), &mut rng);
    let new_pool = subsample(new, max_samples.max(2), &mut rng);
    let mut buf_b = vec![0.0; base_pool.len()];
    let mut buf_n = vec![0.0; new_pool.len()];
    let mut ratios = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for slot in buf_b.iter_mut() {
            *slot = base_pool[rng.gen_range(0..base_pool.len())];
        }
        for slot in buf_n.iter_mut() {
            *slot = new_pool[rng.gen_range(0..new_pool.len())];
        }
        ratios.push(median_in_place(&mut buf_n) / median_in_place(&mut buf_b));
    }
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Ok(BootstrapCi {
        ratio,
        low: percentile(&ratios, tail),
        high: percentile(&ratios, 1.0 - tail),
        confidence,
        resamples,
    })
}

/// A seeded subsample without replacement (partial Fisher-Yates), or the
/// whole slice when it is small enough.
fn subsample(xs: &[f64], max: usize, rng: &mut StdRng) -> Vec<f64> {
    let mut v = xs.to_vec();
    if v.len() > max {
        for i in 0..max {
            let j = rng.gen_range(i..v.len());
            v.swap(i, j);
        }
        v.truncate(max);
    }
    v
}

/// Median in O(n) by selection; reorders `buf`.
fn median_in_place(buf: &mut [f64]) -> f64 {
    let n = buf.len();
    let mid = n / 2;
    let (left, m, _) = buf.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *m;
    if n % 2 == 1 {
        upper
    } else {
        let lower = left.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lower + upper) / 2.0
    }
}

/// One side of a comparison: time samples and, when measured, the cycle
/// counts of the same runs.
#[derive(Debug, Clone, Copy)]
pub struct Samples<'a> {
    pub ns: &'a [f64],
    pub cycles: Option<&'a [f64]>,
}

impl<'a> Samples<'a> {
    pub fn time(ns: &'a [f64]) -> Self {
        Samples { ns, cycles: None }
    }
    pub fn with_cycles(ns: &'a [f64], cycles: &'a [f64]) -> Self {
        Samples {
            ns,
            cycles: Some(cycles),
        }
    }
}

/// The comparison of one metric (time or cycles).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricComparison {
    /// "time" or "cycles".
    pub metric: String,
    pub median_base: f64,
    pub median_new: f64,
    /// median_new / median_base (> 1: slower).
    pub ratio: f64,
    pub mann_whitney: MannWhitney,
    pub bootstrap: BootstrapCi,
    pub significant: bool,
    pub verdict: Verdict,
}

impl MetricComparison {
    /// ratio − 1: +0.10 is 10% slower.
    pub fn change(&self) -> f64 {
        self.ratio - 1.0
    }

    fn describe(&self) -> String {
        format!(
            "{} {} (p={:.2e}, {:.0}% CI of median ratio {})",
            self.metric,
            signed_percent(self.change()),
            self.mann_whitney.p_value,
            100.0 * self.bootstrap.confidence,
            ratio_interval(self.bootstrap.low, self.bootstrap.high)
        )
    }
}

/// A relative change as a signed percentage, in scientific notation past
/// a million percent (a baseline 1e300 times faster printed 300 digits).
pub(crate) fn signed_percent(change: f64) -> String {
    let p = 100.0 * change;
    if p.is_finite() && p.abs() >= 1e6 {
        format!("{p:+.2e}%")
    } else {
        format!("{p:+.1}%")
    }
}

/// `[low, high]` of a ratio, three decimals, or scientific past a million.
pub(crate) fn ratio_interval(low: f64, high: f64) -> String {
    let one = |v: f64| {
        if v.is_finite() && v.abs() >= 1e6 {
            format!("{v:.3e}")
        } else {
            format!("{v:.3}")
        }
    };
    format!("[{}, {}]", one(low), one(high))
}

/// The full answer: per-metric tests, the final verdict and a sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub time: MetricComparison,
    /// Present when both sides carried cycles.
    pub cycles: Option<MetricComparison>,
    pub verdict: Verdict,
    pub reason: String,
}

/// The fewest samples on each side for the bootstrap interval to count as
/// evidence.
pub const MIN_BOOTSTRAP_SIDE: usize = 5;

/// Compares one metric's samples: both tests, then the effect threshold.
pub fn compare_metric(
    metric: &str,
    base: &[f64],
    new: &[f64],
    cfg: &CompareConfig,
) -> Result<MetricComparison> {
    cfg.validate()?;
    let mw = mann_whitney_u(base, new)?;
    let seed = cfg.seed ^ fnv1a(metric.as_bytes());
    let ci = bootstrap_median_ratio(
        base,
        new,
        cfg.resamples,
        cfg.confidence,
        seed,
        cfg.max_bootstrap_samples,
    )?;
    let by_mw = mw.p_value < cfg.alpha;
    // A percentile bootstrap of a side with a sample or two has no spread:
    // its interval collapses onto the point ratio and "excludes 1" for any
    // difference (one 0.20 s sample against one 0.22 s was a significant
    // regression). Such sides can only be significant by Mann-Whitney.
    let by_ci = ci.excludes_one() && base.len().min(new.len()) >= MIN_BOOTSTRAP_SIDE;
    let significant = match cfg.significance {
        Significance::MannWhitney => by_mw,
        Significance::Bootstrap => by_ci,
        Significance::Either => by_mw || by_ci,
        Significance::Both => by_mw && by_ci,
    };
    let change = ci.ratio - 1.0;
    let verdict = if significant && change > cfg.threshold {
        Verdict::Regression
    } else if significant && -change > cfg.threshold {
        Verdict::Improvement
    } else {
        Verdict::NoChange
    };
    Ok(MetricComparison {
        metric: metric.to_string(),
        median_base: crate::stats::median(base),
        median_new: crate::stats::median(new),
        ratio: ci.ratio,
        mann_whitney: mw,
        bootstrap: ci,
        significant,
        verdict,
    })
}

/// Small stable hash so each metric gets its own bootstrap stream.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Compares baseline and new samples of one point. Cycles are used when
/// both sides have them; the final verdict is the time verdict when the
/// cycle verdict agrees (or there are no cycles), and `NoChange` with an
/// explanation when they disagree.
pub fn compare(base: Samples<'_>, new: Samples<'_>, cfg: &CompareConfig) -> Result<Comparison> {
    let time = compare_metric("time", base.ns, new.ns, cfg)?;
    let cycles = match (base.cycles, new.cycles) {
        (Some(b), Some(n)) => Some(compare_metric("cycles", b, n, cfg)?),
        _ => None,
    };
    let (verdict, mut reason) = match &cycles {
        None => (time.verdict, explain(&time, cfg)),
        Some(c) if c.verdict == time.verdict => (
            time.verdict,
            format!("{}; {}", explain(&time, cfg), c.describe()),
        ),
        Some(c) => {
            let why = if time.verdict == Verdict::NoChange {
                "cycles changed but time did not: the clock changed with the code; not counted"
            } else {
                "time changed but cycles did not agree: a clock change, not a code change"
            };
            (
                Verdict::NoChange,
                format!("{}; {}: {why}", time.describe(), c.describe()),
            )
        }
    };
    if base.cycles.is_some() != new.cycles.is_some() {
        reason.push_str("; cycles only on one side, compared time only");
    }
    let smallest = base.ns.len().min(new.ns.len());
    if smallest < MIN_BOOTSTRAP_SIDE {
        let who = match cfg.significance {
            Significance::MannWhitney | Significance::Either => {
                "only Mann-Whitney can show a difference"
            }
            Significance::Bootstrap | Significance::Both => "no difference can be significant",
        };
        reason.push_str(&format!(
            "; only {smallest} sample(s) on one side: too few for the bootstrap interval, {who}"
        ));
    } else if smallest < 8 {
        reason.push_str(&format!(
            "; only {smallest} samples on one side: the normal approximation is rough"
        ));
    }
    Ok(Comparison {
        time,
        cycles,
        verdict,
        reason,
    })
}

fn explain(m: &MetricComparison, cfg: &CompareConfig) -> String {
    let d = m.describe();
    match (m.verdict, m.significant) {
        (Verdict::NoChange, false) => format!("{d}: not significant"),
        (Verdict::NoChange, true) => format!(
            "{d}: significant but within the {:.1}% threshold",
            100.0 * cfg.threshold
        ),
        _ => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_sides_are_not_significant_by_the_bootstrap() {
        // (base, new, verdict): a side of one or two samples has no spread
        // to bootstrap; 0.20 s against 0.22 s was a "REGRESSION" at p = 1.
        let many: Vec<f64> = (0..20).map(|i| 100.0 + f64::from(i % 3)).collect();
        let many_slow: Vec<f64> = many.iter().map(|v| v * 2.0).collect();
        let cases: Vec<(Vec<f64>, Vec<f64>, Verdict)> = vec![
            (vec![0.20], vec![0.22], Verdict::NoChange),
            (vec![0.20, 0.21], vec![0.40, 0.41], Verdict::NoChange),
            (many.clone(), many_slow, Verdict::Regression),
        ];
        let cfg = CompareConfig::default();
        for (base, new, want) in cases {
            let m = compare_metric("time", &base, &new, &cfg).unwrap();
            assert_eq!(m.verdict, want, "{base:?} vs {new:?}: {m:?}");
        }
    }

    #[test]
    fn erfc_matches_tabulated_values() {
        // (x, erfc(x)) from tables.
        let cases = [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_1),
            (2.0, 0.004_677_734_981_047_266),
            (3.0, 2.209_049_699_858_544e-5),
            (-1.0, 1.842_700_792_949_715),
        ];
        for (x, want) in cases {
            let got = erfc(x);
            assert!(((got - want) / want).abs() < 2e-7, "erfc({x}) = {got}");
        }
    }

    #[test]
    fn mann_whitney_hand_computed() {
        // (base, new, U_base, z, two-sided p), worked by hand:
        // [1,2,3] vs [4,5,6]: U=0, mu=4.5, var=9/12*7=5.25, z=-(4.5-.5)/sqrt(5.25)
        // [1,2,3,4] vs [2,3,4,5]: ranks with ties; U=4.5, mu=8,
        //   var = 16/12*(9 - 18/56) = 11.571..., z = -(3.5-.5)/sqrt(var)
        // identical values: sigma = 0 -> p = 1.
        let z1 = -4.0 / 5.25f64.sqrt();
        let var2 = 16.0 / 12.0 * (9.0 - 18.0 / 56.0);
        let z2 = -3.0 / f64::sqrt(var2);
        let cases: Vec<(Vec<f64>, Vec<f64>, f64, f64)> = vec![
            (vec![1., 2., 3.], vec![4., 5., 6.], 0.0, z1),
            (vec![4., 5., 6.], vec![1., 2., 3.], 9.0, -z1),
            (vec![1., 2., 3., 4.], vec![2., 3., 4., 5.], 4.5, z2),
            (vec![7., 7., 7.], vec![7., 7.], 3.0, 0.0),
        ];
        for (b, n, u, z) in cases {
            let r = mann_whitney_u(&b, &n).unwrap();
            assert!((r.u_base - u).abs() < 1e-12, "{b:?} {n:?}: U {}", r.u_base);
            assert!((r.z - z).abs() < 1e-12, "{b:?} {n:?}: z {} != {z}", r.z);
            assert!((r.p_value - two_sided_p(z)).abs() < 1e-12);
        }
        // scipy.stats.mannwhitneyu([1,2,3],[4,5,6], method="asymptotic") -> 0.0808556
        let r = mann_whitney_u(&[1., 2., 3.], &[4., 5., 6.]).unwrap();
        assert!((r.p_value - 0.080_855_6).abs() < 1e-6, "{}", r.p_value);
        assert_eq!(r.p_new_greater, 1.0);
        assert!(mann_whitney_u(&[], &[1.0]).is_err());
    }

    #[test]
    fn median_in_place_odd_even() {
        for (xs, want) in [
            (vec![3.0, 1.0, 2.0], 2.0),
            (vec![4.0, 1.0, 3.0, 2.0], 2.5),
            (vec![5.0], 5.0),
            (vec![2.0, 2.0, 1.0, 9.0], 2.0),
        ] {
            let mut v = xs.clone();
            assert_eq!(median_in_place(&mut v), want, "{xs:?}");
        }
    }

    #[test]
    fn bootstrap_is_seeded_and_brackets_the_ratio() {
        let base: Vec<f64> = (0..40).map(|i| 100.0 + (i % 7) as f64).collect();
        let new: Vec<f64> = base.iter().map(|x| x * 1.2).collect();
        let a = bootstrap_median_ratio(&base, &new, 500, 0.95, 7, 10_000).unwrap();
        let b = bootstrap_median_ratio(&base, &new, 500, 0.95, 7, 10_000).unwrap();
        assert_eq!(a, b);
        assert!((a.ratio - 1.2).abs() < 1e-12);
        assert!(a.low <= 1.2 && 1.2 <= a.high && a.excludes_one(), "{a:?}");
        // Subsampling keeps the estimate, only the interval may widen.
        let c = bootstrap_median_ratio(&base, &new, 500, 0.95, 7, 10).unwrap();
        assert!((c.ratio - 1.2).abs() < 1e-12);
        assert!(bootstrap_median_ratio(&[0.0, 1.0], &[1.0], 500, 0.95, 7, 10).is_err());
    }

    #[test]
    fn config_validation_names_the_setting() {
        let d = CompareConfig::default();
        let cases = [
            (CompareConfig { alpha: 0.0, ..d }, "alpha"),
            (
                CompareConfig {
                    threshold: -0.1,
                    ..d
                },
                "threshold",
            ),
            (
                CompareConfig {
                    confidence: 1.0,
                    ..d
                },
                "confidence",
            ),
            (CompareConfig { resamples: 10, ..d }, "resamples"),
            (
                CompareConfig {
                    max_bootstrap_samples: 1,
                    ..d
                },
                "max_bootstrap_samples",
            ),
        ];
        for (cfg, name) in cases {
            let e = cfg.validate().unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        }
    }

    #[test]
    fn verdict_table() {
        // Deterministic, well separated sets: 30 samples each.
        let base: Vec<f64> = (0..30).map(|i| 1000.0 + (i % 10) as f64).collect();
        let scaled = |f: f64| base.iter().map(|x| x * f).collect::<Vec<_>>();
        let cfg = CompareConfig::default();
        // (new samples, expected verdict, words in the reason)
        let cases: Vec<(Vec<f64>, Verdict, &str)> = vec![
            (scaled(1.10), Verdict::Regression, "time +10.0%"),
            (scaled(0.90), Verdict::Improvement, "time -10.0%"),
            (scaled(1.02), Verdict::NoChange, "within the 5.0% threshold"),
            (base.clone(), Verdict::NoChange, "not significant"),
        ];
        for (new, want, words) in cases {
            let c = compare(Samples::time(&base), Samples::time(&new), &cfg).unwrap();
            assert_eq!(c.verdict, want, "{}", c.reason);
            assert!(c.reason.contains(words), "{}", c.reason);
            assert!(c.cycles.is_none());
        }
    }

    #[test]
    fn cycles_veto_a_clock_change() {
        let base: Vec<f64> = (0..30).map(|i| 1000.0 + (i % 10) as f64).collect();
        let slower: Vec<f64> = base.iter().map(|x| x * 1.2).collect();
        let cyc: Vec<f64> = base.iter().map(|x| x * 1.7).collect();
        let more_cyc: Vec<f64> = cyc.iter().map(|x| x * 1.2).collect();
        let cfg = CompareConfig::default();
        // Clock dropped 20%: time slower, cycles equal -> no change.
        let c = compare(
            Samples::with_cycles(&base, &cyc),
            Samples::with_cycles(&slower, &cyc),
            &cfg,
        )
        .unwrap();
        assert_eq!(c.verdict, Verdict::NoChange);
        assert_eq!(c.time.verdict, Verdict::Regression);
        assert!(c.reason.contains("clock change"), "{}", c.reason);
        // Code got slower: both agree -> regression.
        let c = compare(
            Samples::with_cycles(&base, &cyc),
            Samples::with_cycles(&slower, &more_cyc),
            &cfg,
        )
        .unwrap();
        assert_eq!(c.verdict, Verdict::Regression, "{}", c.reason);
        assert_eq!(
            c.cycles.as_ref().map(|m| m.verdict),
            Some(Verdict::Regression)
        );
        // Cycles on one side only: time decides, and the reason says so.
        let c = compare(
            Samples::with_cycles(&base, &cyc),
            Samples::time(&slower),
            &cfg,
        )
        .unwrap();
        assert_eq!(c.verdict, Verdict::Regression);
        assert!(c.reason.contains("one side"), "{}", c.reason);
    }
}
