//! Instrumentation-overhead correction.
//!
//! Every record costs the unit that writes it a roughly constant number of
//! ticks (clock read, tag materialisation, store). Replay removes that cost
//! *cumulatively*: the record at absolute position `i` of its unit is moved
//! `i · cost` ticks earlier, but never before the record preceding it in
//! program order (the records of a unit execute in order, so measurement
//! noise must not reorder them):
//!
//! ```text
//! t_i = max(clock_i − i · cost, t_(i−1))
//! corrected(region from s to e) = t_e − t_s
//! ```
//!
//! Without clamping, a region thus loses `(e − s) · cost` = (records strictly
//! inside it + 1) · cost; where noise would have made a record precede its
//! predecessor, it is held at the predecessor's time.
//!
//! Positions are absolute: with the circular strategy the records the ring
//! overwrote came *before* the surviving ones, so the first survivor of a unit
//! that lost `L` records is at position `L`. With the flush strategy the lost
//! records are the newest, so survivors start at position 0.
//!
//! **Cost.** [`crate::ReplayOptions::record_cost_ticks`] if given, else the
//! calibrated `RunInfo::record_cost_ticks`, else an *estimate*: the smallest gap
//! between two consecutive records of any unit in the profile (the JAX Mosaic
//! profiler's approach; an upper bound of the true cost, and 0 with a coarse
//! counter). The report says which.
//!
//! **Async waits.** An async wait region `W` (`RegionKind::AsyncWait`) names
//! its issue region `A` in `pairs_with`. The instrumentation writes
//! `START A` (CLK1) before the async issue, `END A` right before the wait and
//! `START W` (CLK2) right after it. The wait time is `CLK2 − CLK1`, the issue
//! to data-ready latency the unit saw; corrected, it loses the
//! `(pos(CLK2) − pos(CLK1)) · cost` of the records in between, consistent with
//! the cumulative rule. The exposed (blocking) part is `CLK2 − END A`. The k-th
//! `START W` of a unit pairs with the oldest unconsumed `START A` before it
//! (FIFO, so software-pipelined issues pair in order).

use kperf_dialects::abi::Strategy;
use kperf_runtime::profile::{CtaTrace, RunInfo, UnitTrace};
use serde::{Deserialize, Serialize};

use crate::{ProfileScan, ReplayOptions};

/// Where the per-record cost came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// Correction switched off (`--no-correction`).
    Disabled,
    /// Given in the options.
    Override,
    /// Calibrated (`RunInfo::record_cost_ticks`).
    Calibrated,
    /// Only an estimate was available (the minimum gap between consecutive
    /// records, an upper bound): not subtracted, durations are raw.
    EstimatedMinGap,
    /// Correction wanted but no cost known and none estimable.
    Unknown,
    /// Calibrated, but the calibration put the kernel region off the
    /// uninstrumented run of the same launch by more than
    /// [`crate::analyze::CHECK_TOLERANCE`]: the cost is fitted to that run
    /// instead ([`CostFit`]).
    FittedToCheck,
}

/// The record cost that makes the corrected kernel region match the
/// uninstrumented run (`RunInfo::check`): on an out-of-order core, and
/// wherever a record hides behind latency, what a record costs depends on
/// the code around it, and no calibration kernel can say it for every
/// kernel (the host: 0 ticks between 64 dependent multiplies, 20 between 4,
/// 25 back to back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostFit {
    /// Mean uninstrumented CTA time, ticks.
    pub truth_ticks: f64,
    /// Mean raw kernel region per unit, ticks.
    pub raw_ticks: f64,
    /// Mean records per kernel region whose cost the region carries.
    pub records: f64,
    /// (raw − truth) / records, never below 0.
    pub fitted_cost_ticks: f64,
    /// How far off the truth the calibrated cost leaves the kernel region
    /// (corrected / truth − 1).
    pub calibrated_error: f64,
    /// Whether the fit replaced the calibrated cost.
    pub applied: bool,
    /// Whether the kernel's work is within the records' resolution: false
    /// where the work is under a quarter of the instrumented region. The
    /// corrected times are then mostly the subtraction: with raw = 4 ×
    /// truth, a 1% error in the record cost moves them by 3%, so a fit that
    /// matches the kernel region says nothing of the regions inside it, and
    /// whether a fit exists at all depends on the host's mood (the README's
    /// demo kernel, 8–13× its work in records, fitted on a slower CI host
    /// and did not here). Where matching (with the clamp that keeps each
    /// record after its predecessor) would take a cost far beyond the
    /// average the raw sums give and the calibrated costs,
    /// `fitted_cost_ticks` is that average, and `needed_cost_ticks` what
    /// matching would take.
    #[serde(default = "yes")]
    pub resolved: bool,
    #[serde(default)]
    pub needed_cost_ticks: f64,
    /// Whether the records can account for the difference: false where the
    /// average cost it would take, (raw − truth) / records, is more than
    /// [`FIT_BEYOND_CALIBRATED`] times the larger calibrated cost. The
    /// instrumented launch then ran slower for another reason (a disturbed
    /// host, a launch that ran cold, code the records changed), and fitting
    /// would subtract that from every record (before host launches ran
    /// warm, one cold CTA of 16 with one record in its kernel region fitted
    /// 7598 ticks a record against 85 calibrated, and 12 of 16 CTAs
    /// corrected to 0 ns). The calibrated cost is kept, and the check
    /// reports the difference.
    #[serde(default = "yes")]
    pub plausible: bool,
    /// Kernel-region instances the profile holds, and how many the
    /// uninstrumented run timed: a fit needs the same ones (a profile of
    /// some CTAs, or one whose rings lost the START of the long CTAs,
    /// against the mean of all, fitted a cost of 0).
    #[serde(default)]
    pub instances: u64,
    #[serde(default)]
    pub truth_instances: u64,
    /// With the calibrated cost, the sampled units' median kernel region
    /// against the uninstrumented run's median CTA (corrected / truth − 1),
    /// where the run kept a median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated_median_error: Option<f64>,
    /// The same median with the fitted cost ([`CostFit::outlier_driven`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted_median_error: Option<f64>,
    /// Records in the median unit's kernel region, against `records` (the
    /// mean): how much a cost error moves the median unit against the mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_unit_records: Option<f64>,
}

fn yes() -> bool {
    true
}

/// How far past the average cost ((raw − truth) / records), or the
/// calibrated costs if larger, the clamp-aware fit may go and still be
/// believed.
const FIT_BEYOND_AVERAGE: f64 = 1.5;
/// The share of the instrumented kernel region the kernel's own work must
/// hold for a refuted calibration not to mean "below resolution".
const RESOLVED_WORK_SHARE: f64 = 0.25;
/// How many times the larger calibrated cost a record may cost in a kernel
/// for a fit to be believed ([`CostFit::plausible`]). On the host a record
/// costs 0 (hidden behind 64 dependent multiplies) to about 1.3 times the
/// calibration (back to back) in the fidelity kernels.
pub const FIT_BEYOND_CALIBRATED: f64 = 4.0;

impl CostFit {
    /// Whether the profile's kernel regions are the instances the
    /// uninstrumented run timed (files written before the count was kept
    /// say 0: taken as the same).
    pub fn same_instances(&self) -> bool {
        crate::analyze::same_instances(self.instances, self.truth_instances)
    }

    /// Whether the records could have made the kernel region longer than
    /// the uninstrumented run: not where the raw region is shorter by more
    /// than the check's tolerance (a record makes nothing faster; a fit to
    /// cost 0 would only hide that the two runs differ).
    pub fn slower_than_truth(&self) -> bool {
        self.raw_ticks >= self.truth_ticks * (1.0 - crate::analyze::CHECK_TOLERANCE)
    }

    /// Whether a few units alone refute the calibration: the median kernel
    /// region matches the uninstrumented median with the calibrated cost
    /// while the mean does not. A unit stalled for milliseconds (a
    /// preempted CTA on a busy host) moved the mean, and a fit spread its
    /// stall over every record: 139 ticks a record against a calibrated
    /// 68 corrected a 29.6 us kernel to 3 ns at the median.
    /// Unless a cost error explains both: the units hold very different
    /// numbers of records (the mean unit at least 4 times the median
    /// one's), so a cost that is off moves the mean far more than the
    /// median, and the fitted cost brings the median closer to the check,
    /// within its tolerance (512 units, one of 40000 records among units
    /// of 6, records costing 6 against a calibrated 4: mean +12%, median
    /// +1%, fitted 6 puts the median at +0.0%). A stall spread over every
    /// record by a fit moves a median that already agreed away from it
    /// (a preempted CTA beside that heavy unit: 0.0% → −1.1%).
    pub fn outlier_driven(&self) -> bool {
        let stall = self
            .calibrated_median_error
            .is_some_and(|median| crate::analyze::stall_driven(self.calibrated_error, median));
        let cost_explains_both = match (
            self.calibrated_median_error,
            self.fitted_median_error,
            self.median_unit_records,
        ) {
            (Some(before), Some(after), Some(median_records)) => {
                self.records >= 4.0 * median_records
                    && after.abs() < before.abs()
                    && after.abs() <= crate::analyze::CHECK_TOLERANCE
            }
            _ => false,
        };
        stall && !cost_explains_both
    }

    fn new(info: &RunInfo, scan: &ProfileScan) -> Option<CostFit> {
        let spans = &scan.kernel_spans;
        let check = info.check.as_ref()?;
        let truth = check.cta_mean_ticks.filter(|t| *t > 0.0)?;
        if spans.units == 0 || spans.records <= 0.0 {
            return None;
        }
        let n = spans.units as f64;
        let (raw, records) = (spans.raw_ticks / n, spans.records / n);
        let linear = ((raw - truth) / records).max(0.0);
        // The median of the calibrated kernel regions of every unit of
        // blocks spread over the grid (engine::SamplePlan), so that it
        // meets the check's median CTA on an imbalanced grid too.
        let check_median = check.cta_median_ticks.filter(|m| *m > 0.0);
        let calibrated_median_error =
            check_median.and_then(|m| banded_median_error(&spans.calibrated_spans, 0.0, m));
        // Every unit corrected as the replay will (the scan's sum): a
        // sample of a grid whose first block, or whose every sampled
        // block, was unlike the rest read +20% on an exact calibration.
        let calibrated_error = (spans.calibrated_corrected / n) / truth - 1.0;
        let fitted = if spans.samples.is_empty() {
            linear
        } else {
            // Replay the sampled spans as the correction will, clamp
            // included; the units past the sample are corrected linearly
            // (their raw excess less the cost of their excess records).
            let samples = &spans.samples;
            fit_cost(
                samples,
                truth,
                linear,
                unsampled_excess(samples, raw, records),
            )
        };
        // Believable up to 1.5x the larger of the average and the
        // calibrated costs: an average near 0 (a record hidden behind
        // latency) must not make any clamp-aware correction "unresolved".
        let calibrated_max = spans
            .calibrated
            .map_or(0.0, |(cost, b2b)| cost.max(b2b.unwrap_or(0.0)));
        let believable = fitted <= FIT_BEYOND_AVERAGE * linear.max(calibrated_max);
        // Below resolution where the records outweigh the work, whether or
        // not a fit matched; where the work holds its own, an unbelievable
        // fit is a disturbed run (one long stall in one gap), and the
        // average is kept.
        let resolved = truth >= RESOLVED_WORK_SHARE * raw;
        let plausible = calibrated_max <= 0.0 || linear <= FIT_BEYOND_CALIBRATED * calibrated_max;
        let mut fit = CostFit {
            truth_ticks: truth,
            raw_ticks: raw,
            records,
            fitted_cost_ticks: if believable { fitted } else { linear },
            calibrated_error,
            applied: false,
            resolved,
            needed_cost_ticks: fitted,
            plausible,
            instances: spans.units,
            truth_instances: check.ctas,
            calibrated_median_error,
            fitted_median_error: None,
            median_unit_records: median_unit(&spans.calibrated_spans).map(|(_, r)| r),
        };
        // With the fitted cost, each median unit is corrected by the cost's
        // change times its records.
        if let (Some(m), Some((cost, _))) = (check_median, spans.calibrated) {
            let shift = fit.fitted_cost_ticks - cost;
            fit.fitted_median_error = banded_median_error(&spans.calibrated_spans, shift, m);
        }
        fit.applied = plausible
            && !fit.outlier_driven()
            && fit.same_instances()
            && fit.slower_than_truth()
            && calibrated_error.abs() > crate::analyze::CHECK_TOLERANCE;
        Some(fit)
    }
}

/// The kernel region's corrected length, averaged over `samples` (each the
/// record clocks from START to END of one unit), when the record before
/// each gap costs `cost_of_gap(gap)`: every record moves by the cost of
/// those before it, never before its predecessor, as `pair` corrects.
fn mean_corrected_span(samples: &[Vec<u64>], cost_of_gap: impl Fn(u64) -> f64) -> f64 {
    let total: f64 = corrected_spans(samples, cost_of_gap).iter().sum();
    total / samples.len().max(1) as f64
}

/// Each sample's corrected kernel region ([`mean_corrected_span`]).
fn corrected_spans(samples: &[Vec<u64>], cost_of_gap: impl Fn(u64) -> f64) -> Vec<f64> {
    samples
        .iter()
        .map(|clocks| corrected_span(clocks.iter().copied(), &cost_of_gap))
        .collect()
}

/// One kernel region's corrected length from its record clocks (START to
/// END), when the record before each gap costs `cost_of_gap(gap)`: every
/// record moves by the cost of those before it, never before its
/// predecessor, as `pair` corrects.
pub(crate) fn corrected_span(
    mut clocks: impl Iterator<Item = u64>,
    cost_of_gap: impl Fn(u64) -> f64,
) -> f64 {
    let Some(first) = clocks.next() else {
        return 0.0;
    };
    let (mut shift, mut at, mut prev) = (0.0, first as f64, first);
    for c in clocks {
        shift += cost_of_gap(c.saturating_sub(prev));
        at = at.max(c as f64 - shift);
        prev = c;
    }
    at - first as f64
}

/// How much more the units past the sample hold than the sampled ones, per
/// unit of the profile: (raw ticks, records). The samples are some of the
/// profile's units (engine::SamplePlan) and the check is judged on every
/// unit, so a fit that matches the truth on the samples alone misses it
/// wherever the sampled units ran faster or slower than the rest (a busy
/// host; loop_short, whose records outweigh its work 15 to 1, missed by
/// −28% and +48% fitted on its first 128 of 256 CTAs), or held fewer
/// records: counted as work alone, one heavy CTA of 1024 outside the
/// sample fitted 8.4 ticks a record against a true 6.
fn unsampled_excess(samples: &[Vec<u64>], raw: f64, records: f64) -> (f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let n = samples.len() as f64;
    let (mut sampled_raw, mut sampled_records) = (0.0, 0.0);
    for c in samples {
        if let (Some(&a), Some(&b)) = (c.first(), c.last()) {
            sampled_raw += b.saturating_sub(a) as f64;
        }
        sampled_records += c.len().saturating_sub(1) as f64;
    }
    (raw - sampled_raw / n, records - sampled_records / n)
}

/// The constant record cost under which the profile's kernel regions
/// average `truth` ticks: the sampled ones corrected with the clamp, the
/// rest (`unsampled`: their excess raw ticks and records per unit)
/// linearly. `linear` (the cost if nothing were clamped) is a lower bound:
/// clamping only lengthens regions. The corrected length falls as the cost
/// rises, so bisection finds it.
fn fit_cost(samples: &[Vec<u64>], truth: f64, linear: f64, unsampled: (f64, f64)) -> f64 {
    let (excess_raw, excess_records) = unsampled;
    let span = |c: f64| mean_corrected_span(samples, |_| c) + excess_raw - c * excess_records;
    if span(linear) <= truth {
        return linear;
    }
    let (mut lo, mut hi) = (linear, linear.max(1.0));
    for _ in 0..64 {
        if span(hi) <= truth {
            break;
        }
        (lo, hi) = (hi, hi * 2.0);
    }
    for _ in 0..48 {
        let mid = 0.5 * (lo + hi);
        if span(mid) > truth {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The (corrected span, records) pair of the nearest-rank median unit.
fn median_unit(spans: &[(f64, f64)]) -> Option<(f64, f64)> {
    let mut v = spans.to_vec();
    if v.is_empty() {
        return None;
    }
    let k = kperf_runtime::rank::nearest_rank_index(v.len(), 50.0);
    let (_, m, _) = v.select_nth_unstable_by(k, |a, b| a.0.total_cmp(&b.0));
    Some(*m)
}

/// The units' median kernel region, each corrected `shift` ticks a record
/// more than `spans` holds it ((corrected span, records) pairs), against
/// the check's `median` (corrected / median − 1): the nearest rank, or the
/// rank within 1% of it closest to the check (100 units or more). One
/// outlier moves a nearest-rank median a whole rank, and on a grid of two
/// kinds of CTA half and half that is from one kind to the other: a stall
/// in one light CTA of 4096 read the median +100% off. Below 100 units a
/// rank is too large a share (of 3 units, a band of one covers them all).
fn banded_median_error(spans: &[(f64, f64)], shift: f64, median: f64) -> Option<f64> {
    if spans.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = spans.iter().map(|(s, r)| s - shift * r).collect();
    v.sort_by(f64::total_cmp);
    let k = kperf_runtime::rank::nearest_rank_index(v.len(), 50.0);
    let band = v.len() / 100;
    let (lo, hi) = (k.saturating_sub(band), (k + band).min(v.len() - 1));
    let (below, above) = (v[lo] / median - 1.0, v[hi] / median - 1.0);
    Some(if below <= 0.0 && above >= 0.0 {
        // The check's median lies within the band: the nearest rank to it.
        let at = v[lo..=hi].partition_point(|x| *x < median) + lo;
        let near = [at.saturating_sub(1).max(lo), at.min(hi)];
        near.iter()
            .map(|&i| v[i] / median - 1.0)
            .min_by(|a, b| a.abs().total_cmp(&b.abs()))
            .unwrap_or(0.0)
    } else if above < 0.0 {
        above
    } else {
        below
    })
}

/// What the record before a gap of `gap` ticks cost: the back-to-back cost
/// `b2b` where the gap holds nothing but that record (under 1.5 times the
/// back-to-back cost), the in-context `cost` otherwise. An out-of-order core
/// hides much of a record behind the work around it (the host: 8 ticks in a
/// loop, 25 back to back), which a single constant cannot say: nested empty
/// regions were under-corrected by 5% with the first, loop iterations
/// over-corrected with the second.
pub fn cost_after_gap(cost: f64, b2b: Option<f64>, gap: u64) -> f64 {
    match b2b {
        Some(b) if (gap as f64) < 1.5 * b => b.max(cost),
        _ => cost,
    }
}

/// The run's calibrated record cost, if it is one a record can have.
pub(crate) fn calibrated_cost(info: &RunInfo) -> Option<f64> {
    info.record_cost_ticks
        .filter(|c| c.is_finite() && *c >= 0.0)
}

/// The correction a replay applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub enabled: bool,
    /// Ticks subtracted per record (0 when disabled or unknown).
    pub cost_ticks: f64,
    pub source: CostSource,
    /// The smallest gap between consecutive records seen, in ticks.
    pub min_gap_ticks: Option<u64>,
    /// Where a calibrated cost came from (`RunInfo::record_cost_origin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// A record's cost back to back with the one before it, when
    /// calibrated apart from `cost_ticks` (see [`Correction::cost_after_gap`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back_to_back_ticks: Option<f64>,
    /// The cost fitted to the uninstrumented run, when the run was timed
    /// uninstrumented and the cost was calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<CostFit>,
}

impl Correction {
    /// Whether resolving the correction needs the records of the whole
    /// profile before the first CTA replays: the smallest record gap where
    /// no cost is given or calibrated (it tells an estimate from none), or
    /// the kernel region's spans where a calibrated cost may be fitted to an
    /// uninstrumented run. Otherwise a scan of the block headers will do
    /// ([`crate::engine::ScanDepth::Headers`]).
    pub fn needs_record_scan(info: &RunInfo, opts: &ReplayOptions) -> bool {
        if !opts.correction || opts.record_cost_ticks.is_some() {
            return false;
        }
        match calibrated_cost(info) {
            None => true,
            Some(_) => opts.fit_to_check && info.check.is_some(),
        }
    }

    pub fn resolve(info: &RunInfo, opts: &ReplayOptions, scan: &ProfileScan) -> Correction {
        let min_gap_ticks = scan.min_gap_ticks;
        let calibrated = calibrated_cost(info);
        // An estimate is never subtracted: the smallest gap is an upper
        // bound of the cost, and where it spans work (a profile with only
        // a kernel region) it is the work itself.
        let (cost_ticks, source) = if !opts.correction {
            (0.0, CostSource::Disabled)
        } else if let Some(c) = opts.record_cost_ticks {
            (c, CostSource::Override)
        } else if let Some(c) = calibrated {
            (c, CostSource::Calibrated)
        } else if min_gap_ticks.is_some() {
            (0.0, CostSource::EstimatedMinGap)
        } else {
            (0.0, CostSource::Unknown)
        };
        let mut back_to_back_ticks = (source == CostSource::Calibrated)
            .then_some(info.record_cost_back_to_back_ticks)
            .flatten()
            .filter(|c| c.is_finite() && *c >= 0.0);
        let fit = (source == CostSource::Calibrated && opts.fit_to_check)
            .then(|| CostFit::new(info, scan))
            .flatten();
        let (cost_ticks, source) = match &fit {
            Some(f) if f.applied => {
                back_to_back_ticks = None;
                (f.fitted_cost_ticks, CostSource::FittedToCheck)
            }
            _ => (cost_ticks, source),
        };
        Correction {
            enabled: matches!(
                source,
                CostSource::Override | CostSource::Calibrated | CostSource::FittedToCheck
            ),
            cost_ticks,
            source,
            min_gap_ticks,
            origin: info
                .record_cost_origin
                .as_deref()
                .map(crate::regions::shown),
            back_to_back_ticks,
            fit,
        }
    }

    /// Absolute position of a unit's first surviving record.
    pub fn first_position(strategy: Strategy, unit: &UnitTrace) -> u64 {
        match strategy {
            Strategy::Circular => unit.records_lost,
            Strategy::Flush => 0,
        }
    }

    /// [`Correction::first_position`], or None when the unit claims more
    /// records written than `elapsed_ticks` ([`Correction::elapsed_ticks_bound`])
    /// can hold (a record takes at least a tick): a corrupt count, whose
    /// position would move the unit's records by seconds.
    pub fn plausible_first_position(
        strategy: Strategy,
        unit: &UnitTrace,
        elapsed_ticks: Option<u64>,
    ) -> Option<u64> {
        elapsed_ticks
            .is_none_or(|t| unit.records_written <= t)
            .then(|| Correction::first_position(strategy, unit))
    }

    /// At most how many counter ticks `cta` ran: from its header's clock
    /// stamps when they are usable, else its global-timer span at a generous
    /// 8 ticks per ns (no GPU or CPU counter runs faster), else unknown; never
    /// less than the span of its records.
    pub fn elapsed_ticks_bound(cta: &CtaTrace) -> Option<u64> {
        let records_span = cta
            .units
            .iter()
            .flat_map(|u| u.records.first().zip(u.records.last()))
            .map(|(a, b)| b.clock.saturating_sub(a.clock))
            .max()
            .unwrap_or(0);
        let first = cta.earliest_first_clock();
        // Thread 0's finalize clock, or the last record of a unit still
        // running after it (finalize has no barrier: a producer warp of a
        // warp-specialised kernel records on), whichever is later.
        let last = cta
            .units
            .iter()
            .filter_map(|u| u.records.last().map(|r| r.clock))
            .max()
            .unwrap_or(0);
        // At the same generous 8 ticks per ns: another unit may record
        // before thread 0's init stamps (time::INIT_LEAD_NS).
        let header = crate::time::header_clock_usable(cta, 8.0).then(|| {
            let from = first.map_or(cta.start_clock, |f| f.min(cta.start_clock));
            cta.finalize_clock.max(last) - from
        });
        let timer = cta
            .finalize_end_ns
            .max(cta.finalize_start_ns)
            .checked_sub(cta.start_time_ns)
            .filter(|ns| *ns > 0)
            .map(|ns| ns.saturating_mul(8));
        header.or(timer).map(|t| t.max(records_span))
    }

    /// Ticks removed from a record at absolute position `pos` when every
    /// record before it cost the in-context cost (the records a ring lost,
    /// whose gaps are unknown).
    pub fn shift(&self, pos: u64) -> f64 {
        pos as f64 * self.cost_ticks
    }

    /// Whether the fit replaced the calibrated cost but found the kernel's
    /// work below the records' resolution ([`CostFit::resolved`]): every
    /// region is then, and nothing matches by construction.
    pub fn kernel_below_resolution(&self) -> bool {
        self.fit.as_ref().is_some_and(|f| f.applied && !f.resolved)
    }

    /// What the record before a gap of `gap` ticks cost ([`cost_after_gap`]).
    pub fn cost_after_gap(&self, gap: u64) -> f64 {
        cost_after_gap(self.cost_ticks, self.back_to_back_ticks, gap)
    }

    /// Lines for the "corrections applied" list of a report.
    pub fn describe(&self, strategy: Strategy) -> Vec<String> {
        let mut out = Vec::new();
        match self.source {
            CostSource::Disabled => {
                out.push("overhead correction disabled (--no-correction): durations are raw".into())
            }
            CostSource::Unknown => out.push(
                "overhead correction not applied: no calibrated record cost and no two \
                 consecutive records to estimate one from"
                    .into(),
            ),
            CostSource::EstimatedMinGap => out.push(format!(
                "overhead correction not applied: no calibrated record cost (each record's own \
                 cost is in the durations; it is at most {} ticks, the smallest gap between \
                 consecutive records); calibrate, or give --record-cost",
                self.min_gap_ticks.unwrap_or(0)
            )),
            src => {
                let from = match (src, &self.origin, &self.fit) {
                    (CostSource::Override, _, _) => "given in the options".to_string(),
                    (CostSource::FittedToCheck, origin, Some(f)) => format!(
                        "fitted to the same launch run uninstrumented (kernel region {:.0} ticks \
                         raw over {:.1} records vs {:.0} ticks per instance uninstrumented), because \
                         the calibrated cost ({}) put the kernel region {:+.1}% off",
                        f.raw_ticks,
                        f.records,
                        f.truth_ticks,
                        origin.as_deref().unwrap_or("run info"),
                        100.0 * f.calibrated_error
                    ),
                    (_, Some(o), _) => o.clone(),
                    _ => "calibrated (run info)".to_string(),
                };
                let b2b = match self.back_to_back_ticks {
                    Some(b) => format!(
                        ", {} ticks for a record right after another (gap under 1.5x that)",
                        fmt_ticks(b)
                    ),
                    None => String::new(),
                };
                out.push(format!(
                    "record cost {} ticks{b2b} subtracted cumulatively per unit (record i moved \
                     by the cost of the records before it; a region loses the cost of the \
                     records inside it and of its START, clamped at 0); cost {from}",
                    fmt_ticks(self.cost_ticks)
                ));
                if strategy == Strategy::Circular {
                    out.push(
                        "record positions count the records a ring overwrote (they came first)"
                            .into(),
                    );
                }
            }
        }
        out
    }
}

pub(crate) fn fmt_ticks(t: f64) -> String {
    if t.fract() == 0.0 {
        format!("{t:.0}")
    } else {
        format!("{t:.3}")
    }
}

#[cfg(test)]
mod fit_tests {
    use super::{banded_median_error, fit_cost, mean_corrected_span, unsampled_excess};

    /// One unit's kernel region: START at 0, then records `gaps` apart.
    fn span(gaps: &[u64]) -> Vec<u64> {
        let mut clocks = vec![0];
        for g in gaps {
            clocks.push(clocks.last().unwrap() + g);
        }
        clocks
    }

    #[test]
    fn evenly_spaced_records_fit_the_average_cost() {
        // 100 gaps of 40 ticks, 100 ticks of work: (4000 - 100) / 100.
        let samples = vec![span(&[40; 100])];
        let fitted = fit_cost(&samples, 100.0, 39.0, (0.0, 0.0));
        assert_eq!(fitted, 39.0, "no record is clamped: the average is exact");
        assert!((mean_corrected_span(&samples, |_| fitted) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn units_past_the_sample_move_the_fit_target() {
        // Sampled: two units of 10 gaps of 10 ticks (raw 100). All units
        // average 120 raw (the rest ran longer), the truth is 50: the cost
        // that brings all units to 50 is (120 - 50) / 10 = 7, not the
        // samples' (100 - 50) / 10 = 5, which leaves all units at 70.
        let samples = vec![span(&[10; 10]), span(&[10; 10])];
        let excess = unsampled_excess(&samples, 120.0, 10.0);
        assert_eq!(excess, (20.0, 0.0));
        let fitted = fit_cost(&samples, 50.0, 5.0, excess);
        assert!((fitted - 7.0).abs() < 1e-9, "{fitted}");
        assert!((mean_corrected_span(&samples, |_| fitted) + excess.0 - 50.0).abs() < 1e-9);
        assert_eq!(unsampled_excess(&[], 120.0, 10.0), (0.0, 0.0));
    }

    #[test]
    fn records_past_the_sample_are_corrected_too() {
        // Sampled: units of 10 gaps of 10 ticks. The units past the sample
        // hold 2 records more a unit on average and run 20 ticks longer:
        // all units average 120 raw over 12 records. Against a truth of 60,
        // the cost is (120 - 60) / 12 = 5 (the records' excess counted as
        // work alone: (120 - 60) / 10 = 6).
        let samples = vec![span(&[10; 10]), span(&[10; 10])];
        let excess = unsampled_excess(&samples, 120.0, 12.0);
        assert_eq!(excess, (20.0, 2.0));
        let fitted = fit_cost(&samples, 60.0, 5.0, excess);
        assert!((fitted - 5.0).abs() < 1e-9, "{fitted}");
    }

    #[test]
    fn the_median_is_read_within_a_band_of_ranks() {
        // (span, records) pairs; check median 100. Half at 100 and half at
        // 200: the nearest rank is the last 100; one outlier moves it to a
        // 200, and the band (1% of the ranks) still finds the 100. A median
        // off by a cost shows at every rank of the band. Below 100 units,
        // no band.
        let mut spans: Vec<(f64, f64)> =
            [vec![(100.0, 10.0); 50], vec![(200.0, 10.0); 50]].concat();
        assert_eq!(banded_median_error(&spans, 0.0, 100.0), Some(0.0));
        spans[0] = (1e9, 10.0);
        assert_eq!(banded_median_error(&spans, 0.0, 100.0), Some(0.0));
        let off: Vec<(f64, f64)> = vec![(150.0, 10.0); 100];
        assert_eq!(banded_median_error(&off, 0.0, 100.0), Some(0.5));
        // Each corrected 5 ticks a record more: 150 - 50 = 100.
        assert_eq!(banded_median_error(&off, 5.0, 100.0), Some(0.0));
        assert_eq!(banded_median_error(&[], 0.0, 100.0), None);
        let three = [(40.0, 1.0), (60.0, 1.0), (80.0, 1.0)];
        assert_eq!(banded_median_error(&three, 0.0, 80.0), Some(-0.25));
    }

    #[test]
    fn records_closer_than_their_cost_need_more_than_the_average() {
        // 50 gaps of 75 ticks, then 50 of 5: 4000 raw, 500 of work, an
        // average cost of 35. At 35 the tail's records cannot move back
        // past their predecessors (the clamp), so the region keeps the
        // 2000 ticks it had reached; matching needs 65 per record.
        let samples = vec![span(&[[75; 50], [5; 50]].concat())];
        let average = (4000.0 - 500.0) / 100.0;
        assert!((mean_corrected_span(&samples, |_| average) - 2000.0).abs() < 1e-9);
        let fitted = fit_cost(&samples, 500.0, average, (0.0, 0.0));
        assert!((fitted - 65.0).abs() < 1e-6, "{fitted}");
        let matched = mean_corrected_span(&samples, |_| fitted);
        assert!((matched - 500.0).abs() < 1e-6, "{matched}");
    }
}
