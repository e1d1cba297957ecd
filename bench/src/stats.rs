//! Statistics of one sample set and the rule that decides when to stop
//! sampling.
//!
//! Kernel timings are rarely normal: they have a hard floor (the kernel cannot
//! run faster than its critical path) and a long right tail (interrupts, clock
//! changes, other tenants). A [`Summary`] therefore reports both the mean and
//! the median, measures skew and outliers, and picks the median as the
//! reported [`Center`] when the mean would be pulled by the tail — and says
//! why, so a reader never has to guess which number the table shows.
//!
//! The [`StoppingRule`] follows nvbench: sample until the relative noise
//! (std/mean) is under a target *and* at least a minimum number of samples and
//! a minimum amount of measured time have been collected, or until a wall-clock
//! timeout or a sample cap is hit.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{check_samples, BenchError, Result};

/// Which statistic a summary reports as "the" time, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Center {
    /// The distribution looks symmetric and outlier-free: the mean is the
    /// most efficient estimate and the one throughput numbers add up with.
    Mean,
    /// The distribution is skewed or has outliers: the median is reported
    /// because the mean would be dragged by the tail. `reason` is a sentence
    /// for the report.
    Median { reason: String },
}

/// When a distribution counts as skewed. The defaults are documented on
/// [`SkewRule::default`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SkewRule {
    /// Largest |Pearson's second skewness coefficient| = |3(mean − median)/std|
    /// still treated as symmetric.
    pub max_pearson: f64,
    /// A sample is an outlier when its modified z-score
    /// 0.6745·|x − median|/MAD exceeds this (Iglewicz & Hoaglin).
    pub outlier_z: f64,
    /// Largest fraction of outliers still treated as clean.
    pub max_outlier_fraction: f64,
}

impl Default for SkewRule {
    /// `max_pearson = 0.5`: an exponential tail gives 0.92, a normal
    /// distribution 0 (its sampling spread is about 2.3/√n, so with very few
    /// samples the rule may fall back to the median, which costs little).
    /// `outlier_z = 3.5` is Iglewicz & Hoaglin's recommendation.
    /// `max_outlier_fraction = 0.01`: for a normal distribution about 0.05% of
    /// samples exceed 3.5, so 1% means a real tail; below 100 samples a
    /// single outlier is enough, which is where one outlier moves the mean
    /// most.
    fn default() -> Self {
        SkewRule {
            max_pearson: 0.5,
            outlier_z: 3.5,
            max_outlier_fraction: 0.01,
        }
    }
}

/// Everything a report needs about one set of samples (nanoseconds, or
/// cycles: the statistics do not care about the unit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub count: usize,
    pub mean: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (divides by n − 1); 0 for one sample.
    pub std: f64,
    /// 5th percentile, linear interpolation (see [`percentile`]).
    pub p5: f64,
    /// 95th percentile, linear interpolation (see [`percentile`]).
    pub p95: f64,
    /// Median absolute deviation from the median (unscaled).
    pub mad: f64,
    /// std / mean; 0 when the mean is 0. This is the noise nvbench reports
    /// and the one the [`StoppingRule`] targets.
    pub rel_noise: f64,
    /// 1.4826·MAD / median; 0 when the median is 0. The factor makes it
    /// estimate std/mean for normal data, so the two are comparable; unlike
    /// `rel_noise` a few outliers do not move it.
    pub robust_noise: f64,
    /// Pearson's second skewness coefficient 3(mean − median)/std; 0 when
    /// std is 0. Positive means a right (slow) tail.
    pub skewness: f64,
    /// Samples whose modified z-score exceeds [`SkewRule::outlier_z`].
    pub outliers: usize,
    /// The statistic reported as "the" time.
    pub center: Center,
}

impl Summary {
    /// Summarises `samples_ns` with the default [`SkewRule`].
    ///
    /// Errors on an empty set or a negative/non-finite sample, since such a
    /// set cannot be a set of durations.
    pub fn of(samples_ns: &[f64]) -> Result<Summary> {
        Summary::with_rule(samples_ns, &SkewRule::default())
    }

    /// Summarises `samples` with an explicit skew rule.
    pub fn with_rule(samples: &[f64], rule: &SkewRule) -> Result<Summary> {
        check_samples(samples, "summary")?;
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let std = sample_std(&sorted, mean);
        let median = percentile(&sorted, 0.5);
        let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let mad = percentile(&deviations, 0.5);
        let rel_noise = ratio_or_zero(std, mean);
        let robust_noise = ratio_or_zero(MAD_TO_STD * mad, median);
        let skewness = if std > 0.0 {
            3.0 * (mean - median) / std
        } else {
            0.0
        };
        let outliers = sorted
            .iter()
            .filter(|&&x| is_outlier(x, median, mad, rule.outlier_z))
            .count();
        let center = choose_center(n, skewness, outliers, rule);
        Ok(Summary {
            count: n,
            mean,
            median,
            min: sorted[0],
            max: sorted[n - 1],
            std,
            p5: percentile(&sorted, 0.05),
            p95: percentile(&sorted, 0.95),
            mad,
            rel_noise,
            robust_noise,
            skewness,
            outliers,
            center,
        })
    }

    /// The value of the reported center (mean or median).
    pub fn center_value(&self) -> f64 {
        match self.center {
            Center::Mean => self.mean,
            Center::Median { .. } => self.median,
        }
    }

    /// "mean" or "median", for table columns.
    pub fn center_name(&self) -> &'static str {
        match self.center {
            Center::Mean => "mean",
            Center::Median { .. } => "median",
        }
    }
}

/// Scales a MAD to a standard deviation for normal data (1/Φ⁻¹(3/4)).
pub const MAD_TO_STD: f64 = 1.4826;

fn ratio_or_zero(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

fn sample_std(values: &[f64], mean: f64) -> f64 {
    let n = values.len();
    if n < 2 {
        return 0.0;
    }
    let ss: f64 = values.iter().map(|x| (x - mean) * (x - mean)).sum();
    (ss / (n - 1) as f64).sqrt()
}

/// Modified z-score test. With MAD = 0 (more than half the samples equal,
/// common with quantised timers) any sample off the median is an outlier.
fn is_outlier(x: f64, median: f64, mad: f64, z: f64) -> bool {
    if mad > 0.0 {
        0.6745 * (x - median).abs() / mad > z
    } else {
        x != median
    }
}

fn choose_center(n: usize, skewness: f64, outliers: usize, rule: &SkewRule) -> Center {
    // Two samples have mean == median; below three there is no shape to see.
    if n < 3 {
        return Center::Mean;
    }
    if skewness.abs() > rule.max_pearson {
        let side = if skewness > 0.0 { "right" } else { "left" };
        return Center::Median {
            reason: format!(
                "skewed to the {side}: Pearson skewness 3(mean-median)/std = {skewness:.2} exceeds {:.2}",
                rule.max_pearson
            ),
        };
    }
    let fraction = outliers as f64 / n as f64;
    if outliers > 0 && fraction > rule.max_outlier_fraction {
        return Center::Median {
            reason: format!(
                "{outliers} of {n} samples are outliers (modified z-score > {}), {:.1}% > {:.1}%",
                rule.outlier_z,
                100.0 * fraction,
                100.0 * rule.max_outlier_fraction
            ),
        };
    }
    Center::Mean
}

/// The `p`-quantile (0 ≤ p ≤ 1) of an ascending slice by linear
/// interpolation between closest ranks (Hyndman & Fan type 7, numpy's
/// default): with h = (n − 1)·p, the result is x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] −
/// x[⌊h⌋]). It never leaves [min, max] and is continuous in p, which keeps
/// p5/p95 stable for small sample counts. `p` is clamped to [0, 1]; an empty
/// slice gives NaN (callers check emptiness first).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// The median of an unsorted slice (copies and sorts).
pub fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    percentile(&v, 0.5)
}

/// The longest a point may be timed or time out after, in seconds.
pub const MAX_POINT_SECONDS: f64 = 86_400.0;

/// When to stop sampling, as in nvbench. Times are seconds so the rule reads
/// naturally in the results JSON.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StoppingRule {
    /// Never stop on the noise target before this many samples: the noise
    /// estimate itself is meaningless with very few.
    pub min_samples: usize,
    /// Hard cap on samples (every sample is kept in memory and in the JSON).
    pub max_samples: usize,
    /// Never stop on the noise target before the samples add up to this much
    /// *measured* time, so a 2 µs kernel is not declared stable after 20 µs of
    /// data that all fell between two interrupts.
    pub min_time_s: f64,
    /// Stop once std/mean of the samples is at or under this.
    pub max_relative_noise: f64,
    /// Stop after this much *wall-clock* time (warm-up excluded) whatever the
    /// noise, so a noisy machine cannot hang the benchmark.
    pub timeout_s: f64,
}

impl Default for StoppingRule {
    /// nvbench's defaults: 10 samples, 0.5 s, 0.5% noise, 15 s timeout; and at
    /// most a million samples (8 MB per point).
    fn default() -> Self {
        StoppingRule {
            min_samples: 10,
            max_samples: 1_000_000,
            min_time_s: 0.5,
            max_relative_noise: 0.005,
            timeout_s: 15.0,
        }
    }
}

/// Why sampling stopped. `noise` is std/mean at that point.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StopReason {
    /// Minimum samples and time reached with noise under the target.
    NoiseTarget { noise: f64 },
    /// The wall-clock timeout hit first; the result is valid but noisier
    /// than asked (and may have fewer than `min_samples`).
    Timeout { noise: f64, samples: usize },
    /// The sample cap hit first.
    MaxSamples { noise: f64 },
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::NoiseTarget { noise } => {
                write!(f, "noise target met ({:.2}%)", 100.0 * noise)
            }
            StopReason::Timeout { noise, samples } => write!(
                f,
                "timeout after {samples} samples (noise {:.2}%)",
                100.0 * noise
            ),
            StopReason::MaxSamples { noise } => {
                write!(f, "sample cap reached (noise {:.2}%)", 100.0 * noise)
            }
        }
    }
}

impl StoppingRule {
    /// Rejects rules that could never stop or stop meaninglessly.
    pub fn validate(&self) -> Result<()> {
        if self.min_samples < 2 {
            return Err(BenchError::setting(
                "min_samples",
                self.min_samples,
                "at least 2 samples are needed to estimate noise",
            ));
        }
        if self.max_samples < self.min_samples {
            return Err(BenchError::setting(
                "max_samples",
                self.max_samples,
                "must be at least min_samples",
            ));
        }
        for (name, v) in [
            ("min_time_s", self.min_time_s),
            ("max_relative_noise", self.max_relative_noise),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(BenchError::setting(name, v, "must be finite and >= 0"));
            }
        }
        if !(self.timeout_s.is_finite() && self.timeout_s > 0.0) {
            return Err(BenchError::setting(
                "timeout_s",
                self.timeout_s,
                "must be finite and > 0",
            ));
        }
        // 1e300 s is finite, and a point whose noise never settles then
        // samples for ever.
        for (name, v) in [
            ("timeout_s", self.timeout_s),
            ("min_time_s", self.min_time_s),
        ] {
            if v > MAX_POINT_SECONDS {
                return Err(BenchError::setting(
                    name,
                    format!("{v:e}"),
                    "must be at most 86400 (a day per point)",
                ));
            }
        }
        Ok(())
    }

    /// Decides from the samples so far (ns) and the wall-clock time spent
    /// sampling. O(n); loops that check after every sample should use a
    /// [`Sampler`], which keeps running sums.
    pub fn should_stop(&self, samples_ns: &[f64], elapsed: Duration) -> Option<StopReason> {
        let n = samples_ns.len();
        let sum: f64 = samples_ns.iter().sum();
        let noise = if n > 0 {
            let mean = sum / n as f64;
            ratio_or_zero(sample_std(samples_ns, mean), mean)
        } else {
            f64::INFINITY
        };
        self.decide(n, sum, noise, elapsed)
    }

    fn decide(
        &self,
        n: usize,
        measured_ns: f64,
        noise: f64,
        elapsed: Duration,
    ) -> Option<StopReason> {
        if n >= self.max_samples {
            return Some(StopReason::MaxSamples { noise });
        }
        if n >= self.min_samples
            && measured_ns >= self.min_time_s * 1e9
            && noise <= self.max_relative_noise
        {
            return Some(StopReason::NoiseTarget { noise });
        }
        if elapsed.as_secs_f64() >= self.timeout_s {
            return Some(StopReason::Timeout { noise, samples: n });
        }
        None
    }
}

/// Collects samples and answers the stopping rule in O(1) per sample
/// (Welford's running mean and variance).
#[derive(Debug, Clone)]
pub struct Sampler {
    rule: StoppingRule,
    samples: Vec<f64>,
    mean: f64,
    m2: f64,
    sum: f64,
}

impl Sampler {
    /// Validates the rule and starts empty.
    pub fn new(rule: StoppingRule) -> Result<Sampler> {
        rule.validate()?;
        Ok(Sampler {
            rule,
            samples: Vec::new(),
            mean: 0.0,
            m2: 0.0,
            sum: 0.0,
        })
    }

    /// Adds one sample (ns). Errors on a negative or non-finite value, which
    /// means the timer or the caller is broken.
    pub fn push(&mut self, ns: f64) -> Result<()> {
        check_samples(&[ns], "sampler")?;
        self.samples.push(ns);
        self.sum += ns;
        let n = self.samples.len() as f64;
        let delta = ns - self.mean;
        self.mean += delta / n;
        self.m2 += delta * (ns - self.mean);
        Ok(())
    }

    /// std/mean of the samples so far (infinite before the first sample).
    pub fn relative_noise(&self) -> f64 {
        let n = self.samples.len();
        match n {
            0 => f64::INFINITY,
            1 => 0.0,
            _ => ratio_or_zero((self.m2 / (n - 1) as f64).max(0.0).sqrt(), self.mean),
        }
    }

    /// Sum of the samples, in seconds.
    pub fn measured_s(&self) -> f64 {
        self.sum * 1e-9
    }

    /// The stopping decision, given the wall-clock time spent sampling.
    pub fn check(&self, elapsed: Duration) -> Option<StopReason> {
        self.rule
            .decide(self.samples.len(), self.sum, self.relative_noise(), elapsed)
    }

    pub fn samples(&self) -> &[f64] {
        &self.samples
    }

    pub fn into_samples(self) -> Vec<f64> {
        self.samples
    }
}

/// Samples left after dropping throttled ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    pub ns: Vec<f64>,
    pub cycles: Option<Vec<f64>>,
    pub sm_clock_mhz: Vec<f64>,
    /// How many samples were dropped (recorded in the results).
    pub dropped: usize,
}

/// Drops samples whose SM clock was under `threshold × reference_mhz`
/// (nvbench: 0.75 of the default clock). A sample taken while the GPU was
/// power- or thermally-throttled measures the cooling, not the kernel;
/// dropping it (and counting it) keeps the distribution about the code.
/// `sm_clock_mhz[i]` is the clock measured during sample i (cycles/ns ×
/// 1000); `cycles`, when given, is filtered alongside.
pub fn drop_throttled(
    samples_ns: &[f64],
    cycles: Option<&[f64]>,
    sm_clock_mhz: &[f64],
    reference_mhz: f64,
    threshold: f64,
) -> Result<Kept> {
    if sm_clock_mhz.len() != samples_ns.len() || cycles.is_some_and(|c| c.len() != samples_ns.len())
    {
        return Err(BenchError::setting(
            "per-sample clocks/cycles",
            format!(
                "{} clocks, {} cycles",
                sm_clock_mhz.len(),
                cycles.map_or(0, <[f64]>::len)
            ),
            &format!("expected one per time sample ({})", samples_ns.len()),
        ));
    }
    if !(reference_mhz.is_finite() && reference_mhz > 0.0) {
        return Err(BenchError::setting(
            "reference clock (MHz)",
            reference_mhz,
            "must be > 0",
        ));
    }
    if !(threshold.is_finite() && (0.0..=1.0).contains(&threshold)) {
        return Err(BenchError::setting(
            "throttle threshold",
            threshold,
            "must be in [0, 1]",
        ));
    }
    let floor = threshold * reference_mhz;
    let keep: Vec<bool> = sm_clock_mhz.iter().map(|&c| c >= floor).collect();
    let pick = |xs: &[f64]| -> Vec<f64> {
        xs.iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(x, _)| *x)
            .collect()
    };
    Ok(Kept {
        ns: pick(samples_ns),
        cycles: cycles.map(pick),
        sm_clock_mhz: pick(sm_clock_mhz),
        dropped: keep.iter().filter(|k| !**k).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-12)
    }

    #[test]
    fn percentiles_by_linear_interpolation() {
        // (sorted input, p, expected) — expected by hand from h = (n-1)p.
        let cases: &[(&[f64], f64, f64)] = &[
            (&[10.0], 0.05, 10.0),
            (&[10.0], 0.95, 10.0),
            (&[1.0, 2.0, 3.0, 4.0], 0.5, 2.5),
            (&[1.0, 2.0, 3.0, 4.0], 0.05, 1.15),
            (&[1.0, 2.0, 3.0, 4.0], 0.95, 3.85),
            (&[1.0, 2.0, 3.0, 4.0], 0.0, 1.0),
            (&[1.0, 2.0, 3.0, 4.0], 1.0, 4.0),
            (&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5, 3.0),
            (&[0.0, 100.0], 0.25, 25.0),
            (&[1.0, 2.0, 3.0, 4.0], 7.0, 4.0), // clamped
        ];
        for &(xs, p, want) in cases {
            let got = percentile(xs, p);
            assert!(close(got, want, 1e-12), "p{p} of {xs:?}: {got} != {want}");
        }
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert!(close(percentile(&hundred, 0.05), 5.95, 1e-12));
        assert!(close(percentile(&hundred, 0.95), 95.05, 1e-12));
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn summary_of_hand_computed_sets() {
        // [2,4,4,4,5,5,7,9]: mean 5, sum of squares 32, sample std sqrt(32/7).
        let s = Summary::of(&[9.0, 2.0, 4.0, 5.0, 4.0, 7.0, 4.0, 5.0]).unwrap();
        assert_eq!(s.count, 8);
        assert_eq!((s.min, s.max, s.mean, s.median), (2.0, 9.0, 5.0, 4.5));
        assert!(close(s.std, (32.0f64 / 7.0).sqrt(), 1e-12));
        assert!(close(s.rel_noise, (32.0f64 / 7.0).sqrt() / 5.0, 1e-12));
        // |x-4.5| sorted: .5 .5 .5 .5 .5 1.5 2.5 4.5 -> MAD .5
        assert_eq!(s.mad, 0.5);
        assert!(close(s.robust_noise, 1.4826 * 0.5 / 4.5, 1e-12));
        // p5: h = 0.35 -> 2 + .35*2 = 2.7 ; p95: h = 6.65 -> 7 + .65*2 = 8.3
        assert!(close(s.p5, 2.7, 1e-12));
        assert!(close(s.p95, 8.3, 1e-12));
        assert!(close(s.skewness, 3.0 * 0.5 / (32.0f64 / 7.0).sqrt(), 1e-12));

        let one = Summary::of(&[42.0]).unwrap();
        assert_eq!(
            (one.std, one.rel_noise, one.center.clone()),
            (0.0, 0.0, Center::Mean)
        );
        assert_eq!(one.center_value(), 42.0);

        let zeros = Summary::of(&[0.0, 0.0, 0.0]).unwrap();
        assert_eq!((zeros.rel_noise, zeros.robust_noise), (0.0, 0.0));
    }

    #[test]
    fn summary_rejects_bad_input() {
        assert!(matches!(
            Summary::of(&[]),
            Err(BenchError::NoSamples { .. })
        ));
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            match Summary::of(&[1.0, bad]) {
                Err(BenchError::InvalidSample { index: 1, .. }) => {}
                other => panic!("{bad}: {other:?}"),
            }
        }
    }

    #[test]
    fn center_choice() {
        // (samples, expect median?, words the reason must contain)
        let symmetric: Vec<f64> = (0..101).map(|i| 1000.0 + (i as f64 - 50.0)).collect();
        let mut one_outlier = vec![1000.0; 49];
        one_outlier.push(3000.0);
        let mut quantised = vec![1000.0; 49];
        quantised.push(1001.0);
        // Right-skewed: exponential quantiles.
        let exponential: Vec<f64> = (1..200)
            .map(|i| 1000.0 - 100.0 * (1.0 - i as f64 / 200.0).ln())
            .collect();
        let cases: Vec<(&str, Vec<f64>, Option<&str>)> = vec![
            ("symmetric", symmetric, None),
            ("two samples", vec![1.0, 100.0], None),
            ("one outlier in 50", one_outlier, Some("outliers")),
            ("quantised timer", quantised, Some("outliers")),
            ("exponential tail", exponential, Some("skewed to the right")),
        ];
        for (name, xs, want) in cases {
            let s = Summary::of(&xs).unwrap();
            match (&s.center, want) {
                (Center::Mean, None) => assert_eq!(s.center_value(), s.mean),
                (Center::Median { reason }, Some(words)) => {
                    assert!(reason.contains(words), "{name}: {reason}");
                    assert_eq!(s.center_value(), s.median, "{name}");
                }
                (c, w) => panic!("{name}: got {c:?}, wanted median={w:?}"),
            }
        }
    }

    #[test]
    fn stopping_rule_decisions() {
        let rule = StoppingRule {
            min_samples: 5,
            max_samples: 8,
            min_time_s: 1e-6, // 1000 ns
            max_relative_noise: 0.01,
            timeout_s: 1.0,
        };
        let quiet = [300.0; 5];
        let ms = Duration::from_millis;
        // (samples, elapsed, expected kind)
        let cases: Vec<(&[f64], Duration, Option<&str>)> = vec![
            (&quiet[..4], ms(1), None),                          // too few samples
            (&[100.0; 5], ms(1), None),                          // 500 ns < min time
            (&quiet, ms(1), Some("noise")),                      // all met
            (&[300.0, 600.0, 300.0, 600.0, 300.0], ms(1), None), // noisy
            (
                &[300.0, 600.0, 300.0, 600.0, 300.0],
                ms(1000),
                Some("timeout"),
            ),
            (&[100.0; 2], ms(2000), Some("timeout")), // timeout before min samples
            (
                &[300.0, 600.0, 300.0, 600.0, 300.0, 600.0, 300.0, 600.0],
                ms(1),
                Some("max"),
            ),
            (&[], ms(1), None),
        ];
        for (xs, elapsed, want) in cases {
            let got = rule.should_stop(xs, elapsed);
            let kind = got.map(|r| match r {
                StopReason::NoiseTarget { .. } => "noise",
                StopReason::Timeout { .. } => "timeout",
                StopReason::MaxSamples { .. } => "max",
            });
            assert_eq!(kind, want, "{xs:?} after {elapsed:?}: {got:?}");

            // The incremental sampler agrees with the slice version.
            let mut sampler = Sampler::new(rule).unwrap();
            for &x in xs {
                sampler.push(x).unwrap();
            }
            assert_eq!(
                sampler.check(elapsed).map(|r| std::mem::discriminant(&r)),
                got.map(|r| std::mem::discriminant(&r))
            );
        }
        if let Some(StopReason::Timeout { samples, .. }) = rule.should_stop(&[1.0, 2.0], ms(5000)) {
            assert_eq!(samples, 2);
        } else {
            panic!("expected timeout");
        }
    }

    #[test]
    fn sampler_noise_matches_summary() {
        let xs = [9.0, 2.0, 4.0, 5.0, 4.0, 7.0, 4.0, 5.0];
        let mut s = Sampler::new(StoppingRule::default()).unwrap();
        assert!(s.relative_noise().is_infinite());
        for x in xs {
            s.push(x).unwrap();
        }
        let summary = Summary::of(&xs).unwrap();
        assert!(close(s.relative_noise(), summary.rel_noise, 1e-12));
        assert!(close(s.measured_s(), 40e-9, 1e-12));
        assert!(s.push(-3.0).is_err());
        assert_eq!(s.samples().len(), 8);
        assert_eq!(s.into_samples().len(), 8);
    }

    #[test]
    fn throttled_samples_are_dropped_and_counted() {
        let ns = [10.0, 11.0, 30.0, 12.0];
        let cyc = [19.0, 21.0, 30.0, 23.0];
        let clk = [1900.0, 1910.0, 1000.0, 1920.0];
        let k = drop_throttled(&ns, Some(&cyc), &clk, 1980.0, 0.75).unwrap();
        assert_eq!(k.ns, [10.0, 11.0, 12.0]);
        assert_eq!(k.cycles.as_deref(), Some(&[19.0, 21.0, 23.0][..]));
        assert_eq!((k.dropped, k.sm_clock_mhz.len()), (1, 3));
        let none = drop_throttled(&ns, None, &clk, 1980.0, 0.0).unwrap();
        assert_eq!(none.dropped, 0);
        let cases = [
            drop_throttled(&ns, None, &clk[..2], 1980.0, 0.75),
            drop_throttled(&ns, Some(&cyc[..1]), &clk, 1980.0, 0.75),
            drop_throttled(&ns, None, &clk, 0.0, 0.75),
            drop_throttled(&ns, None, &clk, 1980.0, 1.5),
        ];
        for c in cases {
            assert!(matches!(c, Err(BenchError::InvalidSetting { .. })), "{c:?}");
        }
    }

    #[test]
    fn invalid_rules_are_rejected_with_the_setting_name() {
        let base = StoppingRule::default();
        let cases = [
            (
                StoppingRule {
                    min_samples: 1,
                    ..base
                },
                "min_samples",
            ),
            (
                StoppingRule {
                    max_samples: 3,
                    ..base
                },
                "max_samples",
            ),
            (
                StoppingRule {
                    min_time_s: -1.0,
                    ..base
                },
                "min_time_s",
            ),
            (
                StoppingRule {
                    max_relative_noise: f64::NAN,
                    ..base
                },
                "max_relative_noise",
            ),
            (
                StoppingRule {
                    timeout_s: 0.0,
                    ..base
                },
                "timeout_s",
            ),
        ];
        for (rule, name) in cases {
            let err = rule.validate().unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
        assert!(base.validate().is_ok());
    }
}
