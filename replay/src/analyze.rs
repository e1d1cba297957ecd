//! Analyses over replayed CTAs, accumulated one CTA at a time.
//!
//! Definitions (all times corrected unless correction is off, in ns on the
//! common axis; see [`crate::time`] and [`crate::correct`]):
//!
//! - **CTA duration**: from the CTA's init (header clock, or its first record
//!   when the header has no clock) to its latest corrected record in any unit.
//! - **Share** of a region: its total time (sum of instance durations over all
//!   units and CTAs) divided by the *recorded unit-time*, the sum over CTAs of
//!   CTA duration × units in the CTA. A region busy in every unit for the whole
//!   kernel has share 1; nested regions are counted in their parents too, so
//!   shares may add up to more than 1. Per unit id the share is relative to
//!   that unit's time (sum of durations of the CTAs it appears in). The
//!   kernel's wall span (latest CTA end − earliest CTA start) is reported too.
//! - **Percentiles**: nearest rank on the instance durations (kept exactly;
//!   past 65536 instances of a region, an HDR histogram within 0.1%: see
//!   [`crate::quantiles`]).
//! - **Idle**: per unit, the part of its span (first to last record) that no
//!   region instance covers; *lead* is CTA init → first record, *tail* last
//!   record → CTA end (waiting for slower units).
//! - **Overlap** of ordered pair (a, b): the time region `a` is active in some
//!   unit `u` while region `b` is active in some *other* unit of the same CTA,
//!   summed over units `u` and CTAs; the fraction is relative to the time `a`
//!   is active (union per unit, summed).
//! - **Critical path** of a CTA: the *critical unit* is the unit whose last
//!   region END is latest; it bounds the CTA's end. Walking back from that END:
//!   take the instance with the latest end (the outermost on ties), then
//!   repeatedly the instance with the latest end among those starting strictly
//!   before the current one's start. The chain's instances, in time order,
//!   bound the end time; within each, the same walk over the instances it
//!   contains gives the next level. Instances hidden under an overlapping
//!   chain member are off the path. `slack` is how much later the critical
//!   unit's last END is than the next unit's.
//! - **Imbalance**: min/mean/max CTA duration and max/mean; per SM (hw_id) the
//!   busy time is the union of its CTAs' [start, end] intervals on the axis.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use kperf_dialects::abi::{ClockDomain, Counter, RegionId, Strategy};
use kperf_dialects::meta::{Granularity, RegionKind};
use serde::{Deserialize, Serialize};

use crate::correct::Correction;
use crate::pair::{CtaReplay, RegionInstance, UnitReplay};
use crate::regions::RegionTable;
use crate::time::{CtaClock, RateSource};

/// Everything a replay found. `--json` prints this.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayReport {
    pub kernel: String,
    pub target: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub counter: Counter,
    pub clock_domain: ClockDomain,
    pub granularity: Granularity,
    pub strategy: Strategy,
    /// What one tick is: `cycles` or `ns`.
    pub tick_unit: String,
    pub totals: Totals,
    pub clock: ClockReport,
    pub correction: Correction,
    /// Human-readable list of the corrections applied.
    pub corrections_applied: Vec<String>,
    pub kernel_time: KernelTime,
    /// Sorted by share, largest first.
    pub regions: Vec<RegionStats>,
    pub async_waits: Vec<AsyncWaitStats>,
    /// Sorted by overlap time, largest first.
    pub overlaps: Vec<OverlapStats>,
    pub idle: Vec<UnitIdle>,
    /// How often each unit was the critical unit of its CTA.
    pub critical_units: Vec<CriticalUnitCount>,
    pub critical_paths: Vec<CriticalPathSummary>,
    pub imbalance: Imbalance,
    pub lost: LostRecords,
    /// Unmatched records per CTA and region.
    pub unmatched: Vec<UnmatchedEntry>,
    pub ctas: Vec<CtaSummary>,
    /// Anything that limits how far the numbers can be trusted.
    pub caveats: Vec<String>,
    /// The corrected kernel region against the same launch uninstrumented
    /// (`kperf run --check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckReport>,
    /// The profiled launch's time against the same launch uninstrumented,
    /// timed the same way: what the records cost the kernel as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_time: Option<RunTimeReport>,
}

/// The run-time overhead of instrumentation: the profiled launch against
/// the same launch uninstrumented, both timed the same way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunTimeReport {
    pub profiled_ns: u64,
    pub uninstrumented_ns: u64,
    /// profiled / uninstrumented − 1.
    pub overhead: f64,
}

impl RunTimeReport {
    /// None unless the check timed the profiled launch too.
    pub fn compare(run: &kperf_runtime::profile::UninstrumentedRun) -> Option<RunTimeReport> {
        let profiled = run.profiled_wall_ns?;
        (run.wall_ns > 0).then(|| RunTimeReport {
            profiled_ns: profiled,
            uninstrumented_ns: run.wall_ns,
            overhead: profiled as f64 / run.wall_ns as f64 - 1.0,
        })
    }
}

/// A profile checked against the truth: the kernel region's mean duration
/// per CTA, corrected, against the uninstrumented run's mean CTA time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckReport {
    pub region: String,
    /// Mean corrected duration of the region per instance, ticks.
    pub measured_ticks: f64,
    /// Mean time of one kernel-region instance uninstrumented (a CTA on
    /// the host, a unit on a GPU), ticks.
    pub truth_ticks: f64,
    /// measured / truth − 1.
    pub error: f64,
    pub method: String,
    /// The record cost was fitted to this run: agreement is by
    /// construction, and `calibrated_error` is the independent figure.
    #[serde(default)]
    pub fitted: bool,
    /// What the calibrated cost gave, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated_error: Option<f64>,
    /// Complete kernel-region instances in the profile, and instances the
    /// uninstrumented run timed (0: not known). Where they differ, the two
    /// means are of different CTAs or units and `error` is not the
    /// profile's ([`CheckReport::same_instances`]).
    #[serde(default)]
    pub instances: u64,
    #[serde(default)]
    pub truth_instances: u64,
    /// The record cost was fitted to this run (`fitted` is false where the
    /// fit found the kernel below resolution: nothing then matches by
    /// construction, but the cost is still the fitted one).
    #[serde(default)]
    pub cost_fitted: bool,
    /// The region's median corrected instance against the uninstrumented
    /// run's median (p50 / median − 1), where the run kept a median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_error: Option<f64>,
}

/// Beyond this relative error the report says the profile's corrected
/// times are off.
pub const CHECK_TOLERANCE: f64 = 0.05;

/// Whether a kernel region `mean_error` off its check is the doing of a few
/// stalled instances, going by its median instance's `median_error`: the
/// mean beyond [`CHECK_TOLERANCE`] and the median within 10% (the check's
/// own median moved 6–11% between runs on a busy 2-core host), or within
/// 25% and a quarter of the mean's error, so most of it is not the
/// median's. A record cost that is wrong moves every instance, median and
/// mean alike; a median 1268% off holds nothing.
pub fn stall_driven(mean_error: f64, median_error: f64) -> bool {
    let (mean, median) = (mean_error.abs(), median_error.abs());
    mean > CHECK_TOLERANCE
        && (median <= 2.0 * CHECK_TOLERANCE || (median <= 0.25 && median <= mean / 4.0))
}

/// Whether `instances` measured are the `truth_instances` an
/// uninstrumented run timed (0: a file from before the count was kept,
/// taken as the same).
pub(crate) fn same_instances(instances: u64, truth_instances: u64) -> bool {
    truth_instances == 0 || instances == truth_instances
}

impl CheckReport {
    /// Whether the profile's kernel-region instances are the ones the
    /// uninstrumented run timed.
    pub fn same_instances(&self) -> bool {
        same_instances(self.instances, self.truth_instances)
    }

    /// Whether the median instance matches the uninstrumented median
    /// where the mean does not ([`stall_driven`]): a few stalled instances
    /// (a preempted CTA) moved the mean, not the records.
    pub fn median_agrees(&self) -> bool {
        self.median_error
            .is_some_and(|median| stall_driven(self.error, median))
    }

    /// Compare `report`'s kernel region with `run`; None without a kernel
    /// region or a per-CTA truth.
    pub fn compare(
        report: &ReplayReport,
        run: &kperf_runtime::profile::UninstrumentedRun,
    ) -> Option<CheckReport> {
        let truth = run.cta_mean_ticks.filter(|t| *t > 0.0)?;
        let k = report
            .regions
            .iter()
            .find(|r| r.kind == RegionKind::Kernel)
            // No complete instance (the rings wrapped over its START):
            // there is nothing to compare, not a 0 to call -100%.
            .filter(|k| k.count > 0)?;
        let measured = if report.correction.enabled {
            k.mean_corrected_ticks
        } else {
            k.mean_raw_ticks
        };
        // Raw percentiles are not kept: the median is compared corrected.
        // With the calibrated cost kept, the fit's own reading, which
        // allows the median a band of ranks (correct::CostFit): on a grid
        // of two kinds of CTA half and half, one stall moved p50 to the
        // other kind (+100%).
        let fit_median = report
            .correction
            .fit
            .as_ref()
            .filter(|f| !f.applied)
            .and_then(|f| f.calibrated_median_error);
        let median_error = run
            .cta_median_ticks
            .filter(|t| *t > 0.0 && report.correction.enabled)
            .map(|t| fit_median.unwrap_or(k.p50_corrected_ticks / t - 1.0));
        Some(CheckReport {
            region: k.name.clone(),
            measured_ticks: measured,
            truth_ticks: truth,
            error: measured / truth - 1.0,
            method: crate::regions::shown(&run.method),
            // Fitted and matching by construction: not where the fit found
            // the kernel's work below the records' resolution.
            fitted: report.correction.source == crate::correct::CostSource::FittedToCheck
                && !report.correction.kernel_below_resolution(),
            calibrated_error: report.correction.fit.as_ref().map(|f| f.calibrated_error),
            instances: k.count,
            truth_instances: run.ctas,
            cost_fitted: report.correction.source == crate::correct::CostSource::FittedToCheck,
            median_error,
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub ctas: u64,
    pub units: u64,
    /// Surviving records.
    pub records: u64,
    pub records_written: u64,
    pub records_lost: u64,
    pub instances: u64,
}

/// How ticks became nanoseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockReport {
    pub domain: ClockDomain,
    /// CTAs per rate source.
    pub ctas_nanoseconds: u64,
    pub ctas_override: u64,
    pub ctas_measured: u64,
    pub ctas_nominal: u64,
    pub ctas_assumed: u64,
    pub nominal_ticks_per_ns: Option<f64>,
    pub override_ticks_per_ns: Option<f64>,
    /// Over CTAs whose measured rate was used.
    pub measured_min: Option<f64>,
    pub measured_mean: Option<f64>,
    pub measured_max: Option<f64>,
    /// Measured rates rejected as more than 2x off the nominal one.
    pub measured_rejected: u64,
    /// The range of the CTAs' own measurements (clock span over timer
    /// span, each CTA alone); the rate used is the launch's, pooled.
    #[serde(default)]
    pub cta_measured_min: Option<f64>,
    #[serde(default)]
    pub cta_measured_max: Option<f64>,
    /// CTAs whose header clock was unusable (aligned on their first record).
    pub ctas_without_header_clock: u64,
    /// One line for people.
    pub description: String,
}

/// The time bases shares are computed against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelTime {
    /// Sum over CTAs of CTA duration.
    pub cta_time_ns: f64,
    /// Sum over CTAs of CTA duration × units: the denominator of `share`.
    pub unit_time_ns: f64,
    /// Latest CTA end − earliest CTA start.
    pub wall_span_ns: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegionStats {
    pub id: RegionId,
    pub name: String,
    /// For ids found only in the records (`not_in_metadata`), `explicit` as
    /// a placeholder: nothing says what they are.
    pub kind: RegionKind,
    /// The id is in the records but not in the instrumentation metadata: the
    /// name `region_<id>` is made up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_in_metadata: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<RegionId>,
    /// `file:line:col` from the metadata.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub location: String,
    pub count: u64,
    pub total_ns: f64,
    pub mean_ns: f64,
    pub p50_ns: f64,
    pub p95_ns: f64,
    pub max_ns: f64,
    pub mean_raw_ticks: f64,
    pub mean_corrected_ticks: f64,
    /// Percentiles of the corrected durations in ticks (cycles, or ns for
    /// nanosecond counters), from the same exact-then-histogram store.
    #[serde(default)]
    pub p50_corrected_ticks: f64,
    #[serde(default)]
    pub p95_corrected_ticks: f64,
    /// `total_ns` / recorded unit-time.
    pub share: f64,
    /// Time at least one instance is active, per unit, summed (the overlap base).
    pub covered_ns: f64,
    pub unmatched_starts: u64,
    pub unmatched_ends: u64,
    pub per_unit: Vec<UnitRegionStats>,
    pub on_critical_path: bool,
    /// Time of its instances on CTA critical paths.
    pub critical_path_ns: f64,
    /// CTAs on whose critical path it appears.
    pub critical_path_ctas: u64,
    /// Its mean raw duration is under two records' cost: the records
    /// themselves are most of what was measured, and the corrected figure
    /// says less than its digits suggest.
    #[serde(default)]
    pub below_resolution: bool,
}

/// A region's time in one unit id, over all CTAs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitRegionStats {
    pub unit: u32,
    pub count: u64,
    pub total_ns: f64,
    pub mean_ns: f64,
    /// `total_ns` / the unit's time.
    pub share_of_unit: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AsyncWaitStats {
    pub wait_region: RegionId,
    pub wait_name: String,
    pub issue_region: RegionId,
    pub issue_name: String,
    /// Waits measured (CLK2 − CLK1).
    pub count: u64,
    pub mean_raw_ticks: f64,
    pub mean_corrected_ticks: f64,
    pub mean_ns: f64,
    pub total_ns: f64,
    /// Waits whose issue END (right before the wait) was recorded.
    pub exposed_count: u64,
    /// Mean of CLK2 − END(issue) in ns.
    pub mean_exposed_ns: f64,
    /// Sum of exposed / sum of CLK2 − CLK1 over the waits with an issue END.
    pub exposed_fraction: f64,
    /// Wait STARTs with no issue START before them.
    pub unmatched_waits: u64,
    /// Issue STARTs no wait consumed.
    pub unwaited_issues: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverlapStats {
    pub first: RegionId,
    pub first_name: String,
    pub second: RegionId,
    pub second_name: String,
    pub overlap_ns: f64,
    /// Time `first` is active (union per unit, summed).
    pub first_ns: f64,
    pub fraction_of_first: f64,
}

/// Idle time of one unit id, over all CTAs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitIdle {
    pub unit: u32,
    pub ctas: u64,
    /// First record → last record, summed.
    pub span_ns: f64,
    pub covered_ns: f64,
    pub idle_ns: f64,
    pub idle_fraction: f64,
    pub gaps: u64,
    pub max_gap_ns: f64,
    /// CTA start → the unit's first record, summed over the CTAs whose
    /// start is known (a usable header clock; `lead_ctas` of them).
    pub lead_ns: f64,
    #[serde(default)]
    pub lead_ctas: u64,
    pub tail_ns: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CriticalUnitCount {
    pub unit: u32,
    pub ctas: u64,
}

/// One step of a critical path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriticalStep {
    pub region: RegionId,
    pub instance: u32,
    pub start_ns: f64,
    pub end_ns: f64,
    /// 0 for the chain bounding the end, 1 inside a level-0 step, ...
    pub level: u32,
}

/// The full critical path of one CTA.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriticalPath {
    pub cta: u32,
    pub block_index: u64,
    pub hw_id: u32,
    pub unit: u32,
    /// The critical unit's last END.
    pub end_ns: f64,
    /// Lead over the next unit's last END (`None` with one unit).
    pub slack_ns: Option<f64>,
    /// In time order, each step followed by the steps inside it.
    pub steps: Vec<CriticalStep>,
    /// Nesting deeper than [`CRITICAL_PATH_LEVELS`] was not descended into.
    #[serde(default)]
    pub depth_limited: bool,
}

/// Overlapping region pairs a report lists, the largest first.
pub const OVERLAPS_LISTED: usize = 10_000;

/// Levels of nesting the critical path picks chains at. Each level's chain
/// is picked among the instances inside its parent, so a region nested in
/// itself N deep cost N² (80000 levels: 13 s, 500000 never finished).
/// Runs of equal intervals (iterations clamped to one instant) are laid
/// out in one step and do not count against it.
pub const CRITICAL_PATH_LEVELS: u32 = 256;

/// A CTA's critical path folded per region (what the report keeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriticalPathSummary {
    pub cta: u32,
    pub block_index: u64,
    pub hw_id: u32,
    pub unit: u32,
    pub end_ns: f64,
    pub slack_ns: Option<f64>,
    pub regions: Vec<CriticalRegion>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CriticalRegion {
    pub region: RegionId,
    pub instances: u64,
    pub time_ns: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Imbalance {
    pub ctas: u64,
    pub cta_min_ns: f64,
    pub cta_mean_ns: f64,
    pub cta_max_ns: f64,
    /// max / mean CTA duration (1 = perfectly balanced).
    pub cta_max_over_mean: f64,
    pub fastest_cta: Option<u32>,
    pub slowest_cta: Option<u32>,
    pub sms: Vec<SmBusy>,
    pub sm_busy_min_ns: f64,
    pub sm_busy_mean_ns: f64,
    pub sm_busy_max_ns: f64,
    pub sm_max_over_mean: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SmBusy {
    pub hw_id: u32,
    pub ctas: u64,
    /// Union of its CTAs' intervals.
    pub busy_ns: f64,
    /// Sum of its CTAs' durations.
    pub cta_time_ns: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LostRecords {
    pub records_written: u64,
    pub records_lost: u64,
    pub units_with_loss: u64,
    pub ctas_with_loss: u64,
    /// What was lost, given the strategy.
    pub note: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnmatchedEntry {
    pub cta: u32,
    pub block_index: u64,
    pub region: RegionId,
    /// Units of the CTA with unmatched records of this region.
    pub units: u64,
    pub starts: u64,
    pub ends: u64,
    pub unwaited_issues: u64,
    pub ignored_wait_ends: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CtaSummary {
    pub block_index: u64,
    pub cta_id: u32,
    pub hw_id: u32,
    pub start_ns: f64,
    pub end_ns: f64,
    pub duration_ns: f64,
    pub header_span_ns: u64,
    pub ticks_per_ns: f64,
    pub rate_source: RateSource,
    pub records: u64,
    pub records_lost: u64,
    pub critical_unit: Option<u32>,
}

/// Whether the records' cost subtracted from a region (`raw` − `corrected`,
/// mean ticks) is more than twice what is left of it: a record cost off
/// by a quarter then moves the result by half. (A loop body holding 34
/// records read 0 ns for 15.6 µs raw with no caveat: the rule looked at
/// two records' cost only.)
fn records_dominate(raw: f64, corrected: f64) -> bool {
    raw - corrected > 2.0 * corrected
}

/// Critical path of one replayed CTA (see the module docs for the definition).
pub fn critical_path(c: &CtaReplay) -> Option<CriticalPath> {
    let mut ends: Vec<(f64, &UnitReplay)> = c
        .units
        .iter()
        .filter_map(|u| u.last_end_ns().map(|e| (e, u)))
        .collect();
    // Latest end first; the lower unit id wins ties.
    ends.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.unit_id.cmp(&b.1.unit_id)));
    let (end_ns, unit) = *ends.first()?;
    let slack_ns = ends.get(1).map(|(e, _)| end_ns - e);
    let inst = &unit.instances;
    let cands: Vec<usize> = (0..inst.len()).collect();
    let mut used = vec![false; inst.len()];
    let mut steps = Vec::new();
    let depth_limited = chain(inst, &cands, 0, &mut used, &mut steps);
    Some(CriticalPath {
        cta: c.cta_id,
        block_index: c.block_index,
        hw_id: c.hw_id,
        unit: unit.unit_id,
        end_ns,
        slack_ns,
        steps,
        depth_limited,
    })
}

/// `cands` index `inst` and are sorted by start ascending, end descending.
///
/// Linear in `cands` at each nesting level: the backward walk over the chain
/// and the forward walk over its members' inner ranges each move one pointer
/// monotonically (chain members' ends never decrease from first to last), so
/// the whole path costs O(instances × nesting depth), with no searches.
///
/// The levels are walked with a stack of their own, not recursion: a
/// corrected profile can clamp thousands of iterations to one instant, and
/// equal intervals nest (each contains the next), which overflowed the
/// thread's stack (a host matmul with 16384 slots per unit). A level whose
/// last member is being descended into leaves the stack first, so a chain
/// of single nested instances holds one level; and a run of intervals equal
/// to their container, which would each be a level holding only the next,
/// is laid out at once.
/// Returns whether nesting was cut at [`CRITICAL_PATH_LEVELS`].
fn chain(
    inst: &[RegionInstance],
    cands: &[usize],
    level: u32,
    used: &mut [bool],
    out: &mut Vec<CriticalStep>,
) -> bool {
    let mut limited = false;
    let mut stack: Vec<ChainLevel> = ChainLevel::pick(inst, cands, level, used)
        .into_iter()
        .collect();
    while let Some(top) = stack.last_mut() {
        let Some(&k) = top.picked.get(top.next) else {
            stack.pop();
            continue;
        };
        top.next += 1;
        let me = &inst[top.cands[k]];
        let step = |i: &RegionInstance, level| CriticalStep {
            region: i.region,
            instance: i.instance,
            start_ns: i.start_ns,
            end_ns: i.end_ns,
            level,
        };
        out.push(step(me, top.level));
        top.hi = top.hi.max(k + 1);
        let start = |p: usize| inst[top.cands[p]].start_ns;
        while top.hi < top.cands.len() && start(top.hi) <= me.end_ns {
            top.hi += 1;
        }
        let mut inner: Vec<usize> = top.cands[k + 1..top.hi]
            .iter()
            .copied()
            .filter(|&i| !used[i] && inst[i].end_ns <= me.end_ns && inst[i].start_ns >= me.start_ns)
            .collect();
        let mut level = top.level + 1;
        if top.next == top.picked.len() {
            stack.pop(); // nothing of this level is left after `me`'s inner chain
        }
        // Intervals equal to `me` come first (sorted by start, then end
        // descending); each would be its level's whole chain, holding the
        // rest.
        let equal = inner
            .iter()
            .take_while(|&&i| inst[i].start_ns == me.start_ns && inst[i].end_ns == me.end_ns)
            .count();
        for &i in &inner[..equal] {
            used[i] = true;
            out.push(step(&inst[i], level));
            level += 1;
        }
        inner.drain(..equal);
        // A run of equal intervals is laid out at once, whatever its
        // length; picking a level's chain among the rest is what repeats.
        if level >= CRITICAL_PATH_LEVELS {
            limited |= !inner.is_empty();
            continue;
        }
        stack.extend(ChainLevel::pick(inst, &inner, level, used));
    }
    limited
}

/// One nesting level of [`chain`]: its candidates, the chain picked among
/// them (positions in `cands`, in time order), the next member to lay out
/// and how far its inner ranges reach.
struct ChainLevel {
    cands: Vec<usize>,
    picked: Vec<usize>,
    next: usize,
    hi: usize,
    level: u32,
}

impl ChainLevel {
    /// The chain among the unused `cands`, marked used; `None` if none is left.
    fn pick(
        inst: &[RegionInstance],
        cands: &[usize],
        level: u32,
        used: &mut [bool],
    ) -> Option<ChainLevel> {
        let cands: Vec<usize> = cands.iter().copied().filter(|&i| !used[i]).collect();
        if cands.is_empty() {
            return None;
        }
        let start = |k: usize| inst[cands[k]].start_ns;
        // best[k]: position in `cands` of the latest end among cands[..=k] (earliest on ties).
        let mut best: Vec<usize> = Vec::with_capacity(cands.len());
        for k in 0..cands.len() {
            let b = match best.last() {
                Some(&p) if inst[cands[p]].end_ns >= inst[cands[k]].end_ns => p,
                _ => k,
            };
            best.push(b);
        }
        // Backward: the latest end among those starting strictly before the
        // current member. `first_at` is the first position starting at or after
        // the current member's start; it only moves down.
        let mut picked = Vec::new();
        let mut cur = best[cands.len() - 1];
        loop {
            picked.push(cur);
            let s = start(cur);
            let mut first_at = cur;
            while first_at > 0 && start(first_at - 1) >= s {
                first_at -= 1;
            }
            if first_at == 0 {
                break;
            }
            cur = best[first_at - 1];
        }
        picked.reverse();
        for &k in &picked {
            used[cands[k]] = true;
        }
        Some(ChainLevel {
            cands,
            picked,
            next: 0,
            hi: 0,
            level,
        })
    }
}

/// Fold a critical path per region, in order of first appearance.
pub fn summarize_path(p: &CriticalPath) -> CriticalPathSummary {
    // In first-step order; found by a map (a search of the list was
    // quadratic in the regions: seconds with thousands).
    let mut regions: Vec<CriticalRegion> = Vec::new();
    let mut at: HashMap<RegionId, usize> = HashMap::new();
    // A chain's members may overlap (the member before another is the one
    // that ends last among those starting earlier): each is credited only
    // the time after the previous member of its level ended, so a level
    // never holds more time than it spans. (Pipelined async waits, each
    // starting before the last ended, read 670 ns on a 500 ns path.)
    let mut level_end: Vec<f64> = Vec::new();
    for s in &p.steps {
        let level = s.level as usize;
        level_end.truncate(level + 1);
        level_end.resize(level + 1, f64::NEG_INFINITY);
        let d = (s.end_ns - s.start_ns.max(level_end[level])).max(0.0);
        level_end[level] = level_end[level].max(s.end_ns);
        let k = *at.entry(s.region).or_insert_with(|| {
            regions.push(CriticalRegion {
                region: s.region,
                instances: 0,
                time_ns: 0.0,
            });
            regions.len() - 1
        });
        regions[k].instances += 1;
        regions[k].time_ns += d;
    }
    CriticalPathSummary {
        cta: p.cta,
        block_index: p.block_index,
        hw_id: p.hw_id,
        unit: p.unit,
        end_ns: p.end_ns,
        slack_ns: p.slack_ns,
        regions,
    }
}

/// Idle analysis of one unit: (span, covered, gaps, max gap).
/// Gaps shorter than this (float noise between two computations of one
/// instant) are not counted as gaps.
const GAP_EPS_NS: f64 = 1e-6;

fn unit_idle(u: &UnitReplay) -> Option<(f64, f64, u64, f64)> {
    let (first, last) = (u.first_ns?, u.last_ns?);
    let mut covered = 0.0;
    let mut gaps = 0u64;
    let mut max_gap = 0.0f64;
    let mut cursor = first; // end of the covered prefix
    for i in &u.instances {
        let (s, e) = (i.start_ns.max(first), i.end_ns.min(last));
        if e <= cursor {
            continue;
        }
        if s > cursor {
            if s - cursor > GAP_EPS_NS {
                gaps += 1;
                max_gap = max_gap.max(s - cursor);
            }
            covered += e - s;
        } else {
            covered += e - cursor;
        }
        cursor = e;
    }
    if last - cursor > GAP_EPS_NS {
        gaps += 1;
        max_gap = max_gap.max(last - cursor);
    }
    Some((last - first, covered, gaps, max_gap))
}

/// A u64 whose unsigned order is the order of the f64 `x` (not NaN).
fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn from_order_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// An overlap event as one integer: time as an order-preserving key (bits
/// 127..64), start (1) or end (0) (bit 63), local region (bits 62..32, at
/// most 2^16 of them), unit (bits 31..0). Integer order is the tuple order.
fn pack_event(t: f64, start: bool, local: u32, unit: u32) -> u128 {
    debug_assert!(local < 1 << 31);
    (u128::from(order_key(t)) << 64)
        | (u128::from(start) << 63)
        | (u128::from(local) << 32)
        | u128::from(unit)
}

/// The (time key, start, local region, unit) of a [`pack_event`].
fn unpack_event(e: u128) -> (u64, bool, u32, u32) {
    (
        (e >> 64) as u64,
        (e >> 63) & 1 == 1,
        ((e >> 32) as u32) & 0x7fff_ffff,
        e as u32,
    )
}

/// Units whose event runs are merged by scanning their heads; a CTA with
/// more has its events sorted.
const MERGE_SCAN_RUNS: usize = 16;

/// Working memory of the overlap sweep.
#[derive(Default)]
struct OverlapScratch {
    local: Vec<u32>,
    globals: Vec<usize>,
    /// Events packed by [`pack_event`], so that sorting the integers
    /// sorts by time, ends before starts: a 16-byte compare and move
    /// instead of a 24-byte tuple's.
    events: Vec<u128>,
    /// One unit's end events not yet passed by its starts (its open
    /// instances: as many as are nested).
    ends: BinaryHeap<Reverse<u128>>,
    /// Each unit's events as one sorted run, back to back, and where each
    /// run ends.
    runs: Vec<u128>,
    run_ends: Vec<usize>,
    /// One unit's instances as `push_run` takes them.
    spans: Vec<(f64, f64, u32)>,
    /// Open instances per (local region, unit).
    counts: Cells<u32>,
    /// Units with an open instance, per local region.
    n_units: Vec<u32>,
    /// The sum of those units' ids: the unit itself while there is one.
    unit_sum: Vec<u64>,
    /// Local regions open in some unit, and each one's position there.
    active: Vec<u32>,
    active_pos: Vec<u32>,
    /// Per (a, b): accumulated unit-time of `a` overlapped by `b` in another
    /// unit, the current rate (units of `a` so overlapped) and since when.
    pairs: Cells<PairCell>,
    /// Per region: accumulated unit-time open, and since when at `n_units`.
    covered: Vec<f64>,
    covered_since: Vec<f64>,
    /// Tables up to this many cells are vectors (`None`: 4 Mi cells of
    /// open counts, 64 Ki pairs, i.e. 256 regions; tests force the maps
    /// with `Some(0)`).
    dense_limit: Option<usize>,
}

impl OverlapScratch {
    /// Cross-unit overlap of one CTA, added into `overlap` and `covered` (by table index).
    fn run(
        &mut self,
        c: &CtaReplay,
        table: &RegionTable,
        overlap: &mut HashMap<(usize, usize), f64>,
        covered: &mut [f64],
    ) {
        const NONE: u32 = u32::MAX;
        if self.local.len() < table.len() {
            self.local.resize(table.len(), NONE);
        }
        self.globals.clear();
        self.runs.clear();
        self.run_ends.clear();
        let units = c.units.len();
        for (ui, u) in c.units.iter().enumerate() {
            let mut spans = std::mem::take(&mut self.spans);
            spans.clear();
            for i in &u.instances {
                if i.end_ns <= i.start_ns {
                    continue;
                }
                let g = table.idx(i.region);
                let l = match self.local[g] {
                    NONE => {
                        let l = self.globals.len() as u32;
                        self.local[g] = l;
                        self.globals.push(g);
                        l
                    }
                    l => l,
                };
                spans.push((i.start_ns, i.end_ns, l));
            }
            self.push_run(ui as u32, &spans);
            self.spans = spans;
        }
        let nl = self.globals.len();
        if nl == 0 {
            return;
        }
        self.merge_runs();
        self.sweep(nl, units);
        for a in 0..nl {
            covered[self.globals[a]] += self.covered[a];
        }
        for (cell, c) in self.pairs.iter() {
            if c.overlapped > 0.0 {
                let (a, b) = (cell / nl, cell % nl);
                *overlap
                    .entry((self.globals[a], self.globals[b]))
                    .or_insert(0.0) += c.overlapped;
            }
        }
        for &g in &self.globals {
            self.local[g] = NONE;
        }
    }

    /// Add unit `unit`'s events as one sorted run: its instances'
    /// `(start, end, local region)`, which come in start order
    /// (`pair::instance_order`), with the ends up to each start put before
    /// it (a heap of the open instances' ends: as many as are nested).
    fn push_run(&mut self, unit: u32, spans: &[(f64, f64, u32)]) {
        let run_start = self.runs.len();
        for &(start_ns, end_ns, l) in spans {
            let start = pack_event(start_ns, true, l, unit);
            while let Some(&Reverse(end)) = self.ends.peek() {
                if end > start {
                    break;
                }
                self.runs.push(end);
                self.ends.pop();
            }
            self.runs.push(start);
            self.ends.push(Reverse(pack_event(end_ns, false, l, unit)));
        }
        while let Some(Reverse(end)) = self.ends.pop() {
            self.runs.push(end);
        }
        // Starts at one time come in instance order, not region order.
        let run = &mut self.runs[run_start..];
        if !run.is_sorted() {
            run.sort_unstable();
        }
        self.run_ends.push(self.runs.len());
    }

    /// Merge the units' sorted runs into `events`, in time order, ends
    /// before starts at equal times (touching instances do not overlap).
    /// Events of two units always differ (the unit is part of the event),
    /// and equal events of one unit are interchangeable, so any correct
    /// merge gives the same sequence.
    ///
    /// Up to [`MERGE_SCAN_RUNS`] runs, each event is the least of the runs'
    /// heads, found by a branch-free scan: which unit comes next is a coin
    /// toss, and the stable sort's merges and a heap both paid for it in
    /// mispredicted branches and copies (a fifth of `kperf report`). More
    /// runs are sorted.
    fn merge_runs(&mut self) {
        self.events.clear();
        if self.run_ends.len() > MERGE_SCAN_RUNS {
            self.events.extend_from_slice(&self.runs);
            self.events.sort();
            return;
        }
        const DONE: u128 = u128::MAX;
        let mut heads = [DONE; MERGE_SCAN_RUNS];
        let mut next = [0usize; MERGE_SCAN_RUNS];
        let runs = self.run_ends.len();
        let mut start = 0;
        for (r, &end) in self.run_ends.iter().enumerate() {
            if start < end {
                heads[r] = self.runs[start];
            }
            next[r] = start + 1;
            start = end;
        }
        // No event is DONE: its unit bits would be u32::MAX, more units than
        // a CTA holds.
        for _ in 0..self.runs.len() {
            // The least head kept in a register: indexing `heads[best]`
            // made each step wait for the one before.
            let (mut best, mut least) = (0, heads[0]);
            for (r, &head) in heads.iter().enumerate().take(runs).skip(1) {
                let less = head < least;
                best = if less { r } else { best };
                least = if less { head } else { least };
            }
            self.events.push(least);
            let i = next[best];
            heads[best] = if i < self.run_ends[best] {
                self.runs[i]
            } else {
                DONE
            };
            next[best] = i + 1;
        }
    }

    /// Integrate over the sorted `events` of `nl` local regions in `units`
    /// units: `covered[a]`, the unit-time `a` is open, and `pairs[a][b]`,
    /// the unit-time `a` is open while `b` is open in another unit.
    ///
    /// Both rates of a pair depend only on the two regions' own state (the
    /// units each is open in), so an event that opens or closes a region in
    /// a unit changes the rates of that region's row and column only: those
    /// are settled up to the event and re-rated, O(open regions) per event
    /// instead of a pass over every open pair between every two events.
    fn sweep(&mut self, nl: usize, units: usize) {
        // Vectors, unless either table would be large: then maps. Decided
        // once, so the event loop has no representation branch (a tenth
        // of `kperf report` as a run-time check per access).
        let dense = nl * units <= self.dense_limit.unwrap_or(1 << 22)
            && nl * nl <= self.dense_limit.unwrap_or(1 << 16);
        if dense {
            self.sweep_in::<true>(nl, units)
        } else {
            self.sweep_in::<false>(nl, units)
        }
    }

    fn sweep_in<const DENSE: bool>(&mut self, nl: usize, units: usize) {
        const NONE: u32 = u32::MAX;
        self.counts.reset::<DENSE>(nl * units);
        self.n_units.clear();
        self.n_units.resize(nl, 0);
        self.unit_sum.clear();
        self.unit_sum.resize(nl, 0);
        self.active.clear();
        self.active_pos.clear();
        self.active_pos.resize(nl, NONE);
        self.pairs.reset::<DENSE>(nl * nl);
        for v in [&mut self.covered, &mut self.covered_since] {
            v.clear();
            v.resize(nl, 0.0);
        }
        for k in 0..self.events.len() {
            let (key, start, l, u) = unpack_event(self.events[k]);
            let (l, u) = (l as usize, u as usize);
            let cell = self.counts.get::<DENSE>(l * units + u);
            // Only opening the first or closing the last instance of a
            // region in a unit changes a rate.
            let changes = if start { cell == 0 } else { cell == 1 };
            if !changes {
                *self.counts.get_mut::<DENSE>(l * units + u) = if start {
                    cell + 1
                } else {
                    cell.saturating_sub(1)
                };
                continue;
            }
            let t = from_order_key(key);
            let open_before = self.n_units[l];
            if start {
                *self.counts.get_mut::<DENSE>(l * units + u) = 1;
                self.n_units[l] += 1;
                self.unit_sum[l] += u as u64;
                if self.n_units[l] == 1 {
                    self.active_pos[l] = self.active.len() as u32;
                    self.active.push(l as u32);
                }
            } else {
                *self.counts.get_mut::<DENSE>(l * units + u) = 0;
                self.n_units[l] -= 1;
                self.unit_sum[l] -= u as u64;
                if self.n_units[l] == 0 {
                    let p = self.active_pos[l] as usize;
                    self.active.swap_remove(p);
                    if let Some(&moved) = self.active.get(p) {
                        self.active_pos[moved as usize] = p as u32;
                    }
                    self.active_pos[l] = NONE;
                }
            }
            if open_before > 0 {
                self.covered[l] += f64::from(open_before) * (t - self.covered_since[l]);
            }
            self.covered_since[l] = t;
            self.rerate::<DENSE>(l, t, nl, units);
        }
        // Every instance ends, so every rate is back to zero here.
        debug_assert!(self.pairs.iter().all(|(_, c)| c.rate == 0.0));
    }

    /// Units of `a` open while `b` is open in another unit.
    fn pair_rate<const DENSE: bool>(&self, a: usize, b: usize, units: usize) -> f64 {
        let na = self.n_units[a];
        match self.n_units[b] {
            0 => 0.0,
            1 => {
                let v = self.unit_sum[b] as usize;
                f64::from(na - u32::from(self.counts.get::<DENSE>(a * units + v) > 0))
            }
            _ => f64::from(na),
        }
    }

    /// Row and column `l` after `l`'s state changed at `t`: each cell's
    /// time at its old rate is added up to `t`, then it takes its new rate.
    /// The cells are those of `l` with the regions open now; a region that
    /// closed or opened only here had rate 0 with `l` since it last changed.
    /// One pass over them: settling every cell before the state change and
    /// re-rating after it was a third of the sweep.
    fn rerate<const DENSE: bool>(&mut self, l: usize, t: f64, nl: usize, units: usize) {
        // One unit has no other unit to overlap with: every rate stays 0
        // (and the pass over the open regions made nesting N deep cost N²).
        if units < 2 {
            return;
        }
        // `l` itself, also when it just closed everywhere (not in `active`).
        self.rate_cell::<DENSE>(l * nl + l, self.pair_rate::<DENSE>(l, l, units), t);
        for k in 0..self.active.len() {
            let x = self.active[k] as usize;
            if x == l {
                continue;
            }
            self.rate_cell::<DENSE>(l * nl + x, self.pair_rate::<DENSE>(l, x, units), t);
            self.rate_cell::<DENSE>(x * nl + l, self.pair_rate::<DENSE>(x, l, units), t);
        }
    }

    /// Settle `cell` up to `t` at its old rate, and give it `rate` from `t`.
    #[inline]
    fn rate_cell<const DENSE: bool>(&mut self, cell: usize, rate: f64, t: f64) {
        // A map holds only pairs that ever overlapped: a cell never rated
        // stays absent while its rate is 0 (8000 regions nested in one unit
        // made 64 M zero cells, and the allocation aborted).
        if !DENSE && rate == 0.0 && !self.pairs.sparse.contains_key(&cell) {
            return;
        }
        let c = self.pairs.get_mut::<DENSE>(cell);
        // A select, not a branch: whether a pair was overlapping depends on
        // the data, and the compare and add were a fifth of a CTA's
        // statistics time as a branch (`perf annotate`, 10M records).
        let add = c.rate * (t - c.since);
        c.overlapped += if c.rate > 0.0 { add } else { 0.0 };
        c.rate = rate;
        c.since = t;
    }
}

/// A table of `n` cells, all `T::default()` at first: a vector, or (for
/// many regions) a map holding the cells touched. The
/// sweep's tables grow as regions² and regions × units: 8000 regions in one
/// CTA (`--regions ops=*` can make thousands) needed 1.5 GB dense, and
/// summing every cell of every CTA took seconds.
#[derive(Default)]
struct Cells<T> {
    dense: Vec<T>,
    sparse: HashMap<usize, T>,
    is_dense: bool,
}

impl<T: Copy + Default> Cells<T> {
    /// `n` cells, all default: a vector if `DENSE`, else a map. Callers
    /// pass the same `DENSE` to every access until the next reset.
    fn reset<const DENSE: bool>(&mut self, n: usize) {
        self.is_dense = DENSE;
        self.dense.clear();
        self.sparse.clear();
        if DENSE {
            self.dense.resize(n, T::default());
        }
    }

    #[inline]
    fn get<const DENSE: bool>(&self, i: usize) -> T {
        if DENSE {
            self.dense[i]
        } else {
            self.sparse.get(&i).copied().unwrap_or_default()
        }
    }

    #[inline]
    fn get_mut<const DENSE: bool>(&mut self, i: usize) -> &mut T {
        if DENSE {
            &mut self.dense[i]
        } else {
            self.sparse.entry(i).or_default()
        }
    }

    /// Every cell that may differ from the default, with its index.
    fn iter(&self) -> Box<dyn Iterator<Item = (usize, &T)> + '_> {
        if self.is_dense {
            Box::new(self.dense.iter().enumerate())
        } else {
            Box::new(self.sparse.iter().map(|(i, c)| (*i, c)))
        }
    }
}

/// One (a, b) pair of the overlap sweep: the unit-time of `a` overlapped by
/// `b` in another unit so far, the current rate (units of `a` so
/// overlapped), and since when. Together, so that a re-rate touches one
/// cache line and checks one bound.
#[derive(Clone, Copy, Default)]
struct PairCell {
    overlapped: f64,
    rate: f64,
    since: f64,
}

#[derive(Default)]
struct RegionAcc {
    count: u64,
    total_ns: f64,
    max_ns: f64,
    raw_ticks: f64,
    corrected_ticks: f64,
    durations: crate::quantiles::Durations,
    /// Corrected durations in ticks, for percentiles in cycles, and the
    /// largest (histogram percentiles are kept below it).
    ticks: crate::quantiles::Durations,
    max_ticks: f64,
    unmatched_starts: u64,
    unmatched_ends: u64,
    covered_ns: f64,
    crit_ns: f64,
    crit_ctas: u64,
    /// Two instances of the region in one unit overlap in time (async
    /// waits of a pipeline): its total sums more than its time in flight.
    overlapping: bool,
}

#[derive(Default)]
struct UnitAcc {
    count: u64,
    total_ns: f64,
    /// End of the unit's latest instance of the region so far.
    last_end: f64,
}

#[derive(Default)]
struct IdleAcc {
    ctas: u64,
    span: f64,
    covered: f64,
    gaps: u64,
    max_gap: f64,
    lead: f64,
    lead_ctas: u64,
    tail: f64,
}

#[derive(Default)]
struct AsyncAcc {
    issue: Option<RegionId>,
    count: u64,
    raw: f64,
    corrected: f64,
    ns: f64,
    exposed_count: u64,
    exposed_ns: f64,
    total_with_exposed_ns: f64,
    unmatched: u64,
    unwaited: u64,
}

#[derive(Default)]
struct ClockAcc {
    by_source: [u64; 5],
    measured_min: f64,
    measured_max: f64,
    measured_sum: f64,
    rejected: u64,
    no_header_clock: u64,
    /// The first CTA without a usable header clock.
    first_no_header_clock: Option<u32>,
    /// CTAs whose header clock and timer spans disagree, and the first
    /// (CTA id and the two spans).
    stamps_disagree: u64,
    first_stamps_disagree: Option<(u32, crate::time::StampDisagreement)>,
    /// CTAs' own measured rates (used or not): how many, and their range.
    own_n: u64,
    own_min: f64,
    own_max: f64,
    /// Units with records later than their CTA's finalize clock, and the
    /// first (CTA id, unit id).
    beyond_units: u64,
    first_beyond: Option<(u32, u32)>,
    /// Units other than thread 0's whose records span longer than thread
    /// 0's CTA lifetime but no longer than the launch: legitimate where
    /// they outlive thread 0 (finalize has no barrier), and the first
    /// (CTA id, unit id).
    outlived_units: u64,
    first_outlived: Option<(u32, u32)>,
    /// CTAs whose header span reaches the record clock's wrap, and the
    /// first one's id.
    wrapping_ctas: u64,
    first_wrapping: Option<u32>,
    /// CTAs whose global-timer stamps go backwards, and the first's id.
    timer_backwards: u64,
    first_timer_backwards: Option<u32>,
}

/// Running statistics of a replay.
#[derive(Default)]
pub(crate) struct Accumulator {
    regions: Vec<RegionAcc>,
    per_unit: BTreeMap<(usize, u32), UnitAcc>,
    unit_local: Vec<UnitAcc>,
    unit_touched: Vec<usize>,
    unit_time: BTreeMap<u32, f64>,
    idle: BTreeMap<u32, IdleAcc>,
    overlap: HashMap<(usize, usize), f64>,
    overlap_scratch: OverlapScratch,
    waits: BTreeMap<usize, AsyncAcc>,
    critical_paths: Vec<CriticalPathSummary>,
    critical_units: BTreeMap<u32, u64>,
    /// CTAs whose critical path was cut at [`CRITICAL_PATH_LEVELS`].
    critical_depth_limited: u64,
    ctas: Vec<CtaSummary>,
    unmatched: Vec<UnmatchedEntry>,
    clock: ClockAcc,
    totals: Totals,
    units_with_loss: u64,
    ctas_with_loss: u64,
    nonmonotone: u64,
    /// Units with a records-written count their CTA's ticks cannot hold,
    /// and the first one (CTA, unit, count).
    implausible_units: u64,
    implausible_first: Option<(u32, u32, u64)>,
    /// Instances of raw length above 0 that the correction took to exactly
    /// 0 (the record cost covers their raw span).
    corrected_to_zero: u64,
    ignored_wait_ends: u64,
    cta_time: f64,
    unit_time_total: f64,
    /// The smallest gap between consecutive records, gathered here when the
    /// scan read block headers only ([`crate::engine::ScanDepth::Headers`]).
    pub(crate) min_record_gap: Option<u64>,
}

impl Accumulator {
    fn region(&mut self, idx: usize) -> &mut RegionAcc {
        if idx >= self.regions.len() {
            self.regions.resize_with(idx + 1, RegionAcc::default);
        }
        &mut self.regions[idx]
    }

    /// Fold `other`, the statistics of the CTAs after this one's, into
    /// this one. Replay folds each CTA into an accumulator of its own (in
    /// parallel) and merges them in block order, so the figures do not
    /// depend on the number of threads.
    pub(crate) fn merge(&mut self, other: Accumulator) {
        // Destructured so that a new field cannot be forgotten here.
        let Accumulator {
            regions,
            per_unit,
            unit_time,
            idle,
            overlap,
            waits,
            critical_paths,
            critical_units,
            critical_depth_limited,
            ctas,
            unmatched,
            clock,
            totals,
            units_with_loss,
            ctas_with_loss,
            nonmonotone,
            implausible_units,
            implausible_first,
            corrected_to_zero,
            ignored_wait_ends,
            cta_time,
            unit_time_total,
            min_record_gap,
            unit_local: _,
            unit_touched: _,
            overlap_scratch: _,
        } = other;
        for (idx, o) in regions.into_iter().enumerate() {
            let r = self.region(idx);
            r.count += o.count;
            r.total_ns += o.total_ns;
            r.max_ns = r.max_ns.max(o.max_ns);
            r.max_ticks = r.max_ticks.max(o.max_ticks);
            r.raw_ticks += o.raw_ticks;
            r.corrected_ticks += o.corrected_ticks;
            r.durations.merge(o.durations);
            r.ticks.merge(o.ticks);
            r.unmatched_starts += o.unmatched_starts;
            r.unmatched_ends += o.unmatched_ends;
            r.covered_ns += o.covered_ns;
            r.crit_ns += o.crit_ns;
            r.crit_ctas += o.crit_ctas;
            r.overlapping |= o.overlapping;
        }
        for (k, o) in per_unit {
            let u = self.per_unit.entry(k).or_default();
            u.count += o.count;
            u.total_ns += o.total_ns;
        }
        for (k, v) in unit_time {
            *self.unit_time.entry(k).or_insert(0.0) += v;
        }
        for (k, o) in idle {
            let i = self.idle.entry(k).or_default();
            i.ctas += o.ctas;
            i.span += o.span;
            i.covered += o.covered;
            i.gaps += o.gaps;
            i.max_gap = i.max_gap.max(o.max_gap);
            i.lead += o.lead;
            i.lead_ctas += o.lead_ctas;
            i.tail += o.tail;
        }
        for (k, v) in overlap {
            *self.overlap.entry(k).or_insert(0.0) += v;
        }
        for (k, o) in waits {
            let a = self.waits.entry(k).or_default();
            if o.issue.is_some() {
                a.issue = o.issue;
            }
            a.count += o.count;
            a.raw += o.raw;
            a.corrected += o.corrected;
            a.ns += o.ns;
            a.exposed_count += o.exposed_count;
            a.exposed_ns += o.exposed_ns;
            a.total_with_exposed_ns += o.total_with_exposed_ns;
            a.unmatched += o.unmatched;
            a.unwaited += o.unwaited;
        }
        self.min_record_gap = crate::engine::min_some(self.min_record_gap, min_record_gap);
        self.critical_paths.extend(critical_paths);
        for (k, v) in critical_units {
            *self.critical_units.entry(k).or_insert(0) += v;
        }
        self.critical_depth_limited += critical_depth_limited;
        self.ctas.extend(ctas);
        self.unmatched.extend(unmatched);
        let (c, o) = (&mut self.clock, clock);
        if o.by_source[2] > 0 {
            if c.by_source[2] == 0 {
                c.measured_min = o.measured_min;
                c.measured_max = o.measured_max;
            } else {
                c.measured_min = c.measured_min.min(o.measured_min);
                c.measured_max = c.measured_max.max(o.measured_max);
            }
        }
        c.measured_sum += o.measured_sum;
        for (a, b) in c.by_source.iter_mut().zip(o.by_source) {
            *a += b;
        }
        c.rejected += o.rejected;
        c.no_header_clock += o.no_header_clock;
        c.first_no_header_clock = c.first_no_header_clock.or(o.first_no_header_clock);
        c.stamps_disagree += o.stamps_disagree;
        c.first_stamps_disagree = c.first_stamps_disagree.or(o.first_stamps_disagree);
        if o.own_n > 0 {
            if c.own_n == 0 {
                (c.own_min, c.own_max) = (o.own_min, o.own_max);
            } else {
                c.own_min = c.own_min.min(o.own_min);
                c.own_max = c.own_max.max(o.own_max);
            }
            c.own_n += o.own_n;
        }
        c.beyond_units += o.beyond_units;
        c.first_beyond = c.first_beyond.or(o.first_beyond);
        c.outlived_units += o.outlived_units;
        c.first_outlived = c.first_outlived.or(o.first_outlived);
        c.wrapping_ctas += o.wrapping_ctas;
        c.first_wrapping = c.first_wrapping.or(o.first_wrapping);
        c.timer_backwards += o.timer_backwards;
        c.first_timer_backwards = c.first_timer_backwards.or(o.first_timer_backwards);
        let (t, o) = (&mut self.totals, totals);
        t.ctas += o.ctas;
        t.units += o.units;
        t.records += o.records;
        t.records_written += o.records_written;
        t.records_lost += o.records_lost;
        t.instances += o.instances;
        self.units_with_loss += units_with_loss;
        self.ctas_with_loss += ctas_with_loss;
        self.nonmonotone += nonmonotone;
        self.implausible_units += implausible_units;
        if self.implausible_first.is_none() {
            self.implausible_first = implausible_first;
        }
        self.corrected_to_zero += corrected_to_zero;
        self.ignored_wait_ends += ignored_wait_ends;
        self.cta_time += cta_time;
        self.unit_time_total += unit_time_total;
    }

    pub(crate) fn add_clock(&mut self, clock: &CtaClock, cta_id: u32) {
        let k = match clock.source {
            RateSource::Nanoseconds => 0,
            RateSource::Override => 1,
            RateSource::Measured => 2,
            RateSource::Nominal => 3,
            RateSource::Assumed => 4,
        };
        let c = &mut self.clock;
        if clock.source == RateSource::Measured {
            let r = clock.ticks_per_ns;
            if c.by_source[2] == 0 {
                c.measured_min = r;
                c.measured_max = r;
            } else {
                c.measured_min = c.measured_min.min(r);
                c.measured_max = c.measured_max.max(r);
            }
            c.measured_sum += r;
        }
        c.by_source[k] += 1;
        c.rejected += u64::from(clock.rejected_rate.is_some());
        c.no_header_clock += u64::from(!clock.header_clock_used);
        if !clock.header_clock_used {
            c.first_no_header_clock.get_or_insert(cta_id);
        }
        if let Some(d) = clock.stamps_disagree {
            c.stamps_disagree += 1;
            c.first_stamps_disagree.get_or_insert((cta_id, d));
        }
        if let Some(r) = clock.own_rate {
            if c.own_n == 0 {
                (c.own_min, c.own_max) = (r, r);
            } else {
                c.own_min = c.own_min.min(r);
                c.own_max = c.own_max.max(r);
            }
            c.own_n += 1;
        }
    }

    /// What `cta`'s header stamps say about its records: a record of
    /// thread 0's unit later than the finalize clock (which thread 0 reads
    /// after its own records) comes from a count
    /// or clock the block cannot hold; a CTA that ran 2^bits ticks or more
    /// may hide whole wraps of its `counter`'s record clock between two
    /// records; thread 0's unit whose records span more ticks than the
    /// CTA's global-timer span allows at 100 GHz (Proton dumps, which carry
    /// no header clocks: a flipped clock bit read as 8796 s), or any unit
    /// beyond the measured launch (another unit may outlive thread 0:
    /// finalize has no barrier; it gets a hedged caveat); and global-timer
    /// stamps that go backwards, which leave the CTA's place on the axis
    /// unknown.
    /// `launch_ns`: the profiled launch's wall time, when measured: no
    /// unit records for longer.
    pub(crate) fn check_clocks(
        &mut self,
        cta: &kperf_runtime::profile::CtaTrace,
        counter: Counter,
        launch_ns: Option<u64>,
    ) {
        let c = &mut self.clock;
        // A unit is counted once, whichever checks it fails.
        let mut beyond: Vec<u32> = Vec::new();
        if cta.finalize_end_ns == 0 {
            // No timer at all (a dump whose stamps are all 0): nothing to
            // compare the records with.
        } else if cta.finalize_end_ns < cta.start_time_ns
            || cta.finalize_start_ns < cta.start_time_ns
        {
            c.timer_backwards += 1;
            c.first_timer_backwards.get_or_insert(cta.cta_id);
        } else {
            // The timer's resolution (a microsecond on NVIDIA by default)
            // is allowed on top of its span.
            // The timer spans thread 0's life in the CTA (init to its
            // finalize). Other units may outlive it (finalize has no
            // barrier: a warp 0 that returns at once, a producer warp
            // done early), so theirs is held to the launch, where known.
            let ns = (cta.finalize_end_ns - cta.start_time_ns) as f64 + 1_000.0;
            let most = ns * crate::time::PLAUSIBLE_TICKS_PER_NS.end();
            let launch_most =
                launch_ns.map(|l| (l as f64 + 1_000.0) * crate::time::PLAUSIBLE_TICKS_PER_NS.end());
            for u in &cta.units {
                if let (Some(a), Some(b)) = (u.records.first(), u.records.last()) {
                    let span = b.clock.saturating_sub(a.clock) as f64;
                    if span <= most {
                        continue;
                    }
                    if u.unit_id == 0 || launch_most.is_some_and(|l| span > l) {
                        beyond.push(u.unit_id);
                    } else {
                        c.outlived_units += 1;
                        c.first_outlived.get_or_insert((cta.cta_id, u.unit_id));
                    }
                }
            }
        }
        let count_beyond = |c: &mut ClockAcc, beyond: &[u32]| {
            for &u in beyond {
                c.beyond_units += 1;
                c.first_beyond.get_or_insert((cta.cta_id, u));
            }
        };
        if cta.finalize_clock <= cta.start_clock {
            count_beyond(c, &beyond);
            return;
        }
        let bits = counter.record_bits();
        if bits < 64 && cta.finalize_clock - cta.start_clock >= 1u64 << bits {
            c.wrapping_ctas += 1;
            c.first_wrapping.get_or_insert(cta.cta_id);
        }
        // Only thread 0's unit reads the finalize clock after its own
        // records: finalize has no barrier, so other units (a producer warp
        // still working, a thread that returned later) may record after
        // it (docs/profile-format.md).
        for u in cta.units.iter().filter(|u| u.unit_id == 0) {
            if u.records
                .last()
                .is_some_and(|r| r.clock > cta.finalize_clock)
                && !beyond.contains(&u.unit_id)
            {
                beyond.push(u.unit_id);
            }
        }
        count_beyond(c, &beyond);
    }

    pub(crate) fn add_cta(&mut self, c: &CtaReplay, table: &RegionTable) {
        let dur = c.duration_ns();
        let t = &mut self.totals;
        t.ctas += 1;
        t.units += c.units.len() as u64;
        let mut lost = 0u64;
        let mut records = 0u64;
        for u in &c.units {
            t.records += u.records;
            t.records_written += u.records_written;
            t.records_lost += u.records_lost;
            t.instances += u.instances.len() as u64;
            records += u.records;
            lost += u.records_lost;
            self.units_with_loss += u64::from(u.records_lost > 0);
        }
        self.ctas_with_loss += u64::from(lost > 0);
        self.nonmonotone += c.nonmonotone_clocks;
        for &(unit, written) in &c.implausible_counts {
            self.implausible_units += 1;
            if self.implausible_first.is_none() {
                self.implausible_first = Some((c.cta_id, unit, written));
            }
        }
        self.cta_time += dur;
        self.unit_time_total += dur * c.units.len() as f64;

        for u in &c.units {
            *self.unit_time.entry(u.unit_id).or_insert(0.0) += dur;
            for i in &u.instances {
                let idx = table.idx(i.region);
                let d = i.duration_ns();
                if i.corrected_ticks == 0.0 && i.raw_ticks > 0 {
                    self.corrected_to_zero += 1;
                }
                let r = self.region(idx);
                r.count += 1;
                r.total_ns += d;
                r.max_ns = r.max_ns.max(d);
                r.raw_ticks += i.raw_ticks as f64;
                r.corrected_ticks += i.corrected_ticks;

                r.durations.push(d);
                r.ticks.push(i.corrected_ticks);
                r.max_ticks = r.max_ticks.max(i.corrected_ticks);
                if idx >= self.unit_local.len() {
                    self.unit_local.resize_with(idx + 1, UnitAcc::default);
                }
                let ua = &mut self.unit_local[idx];
                if ua.count == 0 {
                    self.unit_touched.push(idx);
                } else if d > 0.0 && i.start_ns < ua.last_end - 1e-6 {
                    // A zero-length instance (an iteration corrected to
                    // nothing, at the next one's start) adds no time twice:
                    // it made loops read as overlapping.
                    self.regions[idx].overlapping = true;
                }
                ua.last_end = if ua.count == 0 {
                    i.end_ns
                } else {
                    ua.last_end.max(i.end_ns)
                };
                ua.count += 1;
                ua.total_ns += d;
            }
            // Fold the unit's per-region sums into the (region, unit) map once.
            self.unit_touched.sort_unstable();
            for &idx in &self.unit_touched {
                let local = std::mem::take(&mut self.unit_local[idx]);
                let ua = self.per_unit.entry((idx, u.unit_id)).or_default();
                ua.count += local.count;
                ua.total_ns += local.total_ns;
            }
            self.unit_touched.clear();
            let ia = self.idle.entry(u.unit_id).or_default();
            ia.ctas += 1;
            if let Some((span, covered, gaps, max_gap)) = unit_idle(u) {
                ia.span += span;
                ia.covered += covered;
                ia.gaps += gaps;
                ia.max_gap = ia.max_gap.max(max_gap);
                // Aligned on its first record, a CTA without a usable
                // header clock has no start to measure from.
                if c.header_clock_used {
                    // A unit that recorded before thread 0's init stamp
                    // (time::INIT_LEAD_NS) waited for nothing.
                    ia.lead += u.first_ns.map_or(0.0, |f| (f - c.start_ns).max(0.0));
                    ia.lead_ctas += 1;
                }
                ia.tail += u.last_ns.map_or(0.0, |l| c.end_ns - l);
            }
        }

        // Unmatched records, folded per region over the CTA's units.
        let mut per_region: BTreeMap<RegionId, UnmatchedEntry> = BTreeMap::new();
        for m in &c.unmatched {
            let idx = table.idx(m.region);
            let is_wait = table.wait_issue(idx).is_some();
            let r = self.region(idx);
            r.unmatched_starts += m.starts;
            r.unmatched_ends += m.ends;
            self.ignored_wait_ends += m.ignored_wait_ends;
            if is_wait {
                self.waits.entry(idx).or_default().unmatched += m.starts;
            }
            if m.unwaited_issues > 0 {
                // Credit the wait regions that pair with this issue region.
                if let Some(w) = (0..table.len()).find(|&w| table.wait_issue(w) == Some(idx)) {
                    self.waits.entry(w).or_default().unwaited += m.unwaited_issues;
                }
            }
            let e = per_region.entry(m.region).or_insert(UnmatchedEntry {
                cta: c.cta_id,
                block_index: c.block_index,
                region: m.region,
                units: 0,
                starts: 0,
                ends: 0,
                unwaited_issues: 0,
                ignored_wait_ends: 0,
            });
            e.units += 1;
            e.starts += m.starts;
            e.ends += m.ends;
            e.unwaited_issues += m.unwaited_issues;
            e.ignored_wait_ends += m.ignored_wait_ends;
        }
        self.unmatched.extend(per_region.into_values());

        for w in &c.async_waits {
            let idx = table.idx(w.wait_region);
            let a = self.waits.entry(idx).or_default();
            a.issue = Some(w.issue_region);
            a.count += 1;
            a.raw += w.raw_ticks as f64;
            a.corrected += w.corrected_ticks;
            a.ns += w.corrected_ns;
            if let Some(e) = w.exposed_ns {
                a.exposed_count += 1;
                a.exposed_ns += e;
                a.total_with_exposed_ns += w.corrected_ns;
            }
        }

        // Overlap across units.
        let mut scratch = std::mem::take(&mut self.overlap_scratch);
        let mut covered = vec![0.0; table.len()];
        scratch.run(c, table, &mut self.overlap, &mut covered);
        self.overlap_scratch = scratch;
        for (idx, v) in covered.into_iter().enumerate() {
            if v > 0.0 {
                self.region(idx).covered_ns += v;
            }
        }

        // Critical path.
        let path = critical_path(c);
        if let Some(p) = &path {
            *self.critical_units.entry(p.unit).or_insert(0) += 1;
            self.critical_depth_limited += u64::from(p.depth_limited);
            let s = summarize_path(p);
            for r in &s.regions {
                let acc = self.region(table.idx(r.region));
                acc.crit_ns += r.time_ns;
                acc.crit_ctas += 1;
            }
            self.critical_paths.push(s);
        }

        self.ctas.push(CtaSummary {
            block_index: c.block_index,
            cta_id: c.cta_id,
            hw_id: c.hw_id,
            start_ns: c.start_ns,
            end_ns: c.end_ns,
            duration_ns: dur,
            header_span_ns: c.header_span_ns,
            ticks_per_ns: c.ticks_per_ns,
            rate_source: c.rate_source,
            records,
            records_lost: lost,
            critical_unit: path.map(|p| p.unit),
        });
    }

    pub(crate) fn finish(self, ctx: FinishContext<'_>) -> ReplayReport {
        let FinishContext {
            info,
            table,
            correction,
            corrections_applied,
            mut caveats,
            override_rate,
        } = ctx;
        let kernel_unresolved = correction.kernel_below_resolution();
        // The kernel region's corrected mean within the check's tolerance
        // of the same launch uninstrumented, with the calibrated cost: a
        // measured number, however many records it holds.
        let checked_within_tolerance = |corrected: f64| {
            correction.source != crate::correct::CostSource::FittedToCheck
                && info
                    .check
                    .as_ref()
                    .and_then(|c| c.cta_mean_ticks)
                    .filter(|t| *t > 0.0)
                    .is_some_and(|t| (corrected / t - 1.0).abs() <= CHECK_TOLERANCE)
        };
        // Totals over sampled CTAs read as the grid's unless said.
        let sampling = info
            .meta
            .kernels
            .iter()
            .find(|k| k.name == info.kernel)
            .map(|k| &k.cta_sampling);
        let grid_ctas: u64 = info.grid.iter().map(|g| u64::from(*g)).product();
        match sampling {
            Some(kperf_dialects::meta::CtaSampling::Every(k)) if *k > 1 => caveats.push(format!(
                "CTAs were sampled (every {k}th of the grid's {grid_ctas}): totals, shares and \
                 counts cover the CTAs that recorded, not the whole grid"
            )),
            Some(kperf_dialects::meta::CtaSampling::List(ids)) => caveats.push(format!(
                "CTAs were sampled ({} listed of the grid's {grid_ctas}): totals, shares and \
                 counts cover the CTAs that recorded, not the whole grid",
                ids.len()
            )),
            _ => {}
        }
        let unit_time_total = self.unit_time_total;
        let share = |ns: f64, base: f64| if base > 0.0 { ns / base } else { 0.0 };

        // Per-region statistics.
        let mut regions = Vec::new();
        let mut overlapping: Vec<String> = Vec::new();
        let mut sketched = Vec::new();
        let mut accs = self.regions;
        accs.resize_with(table.len(), RegionAcc::default);
        for (idx, mut a) in accs.into_iter().enumerate() {
            let Some(meta) = table.get(idx) else { continue };
            if a.count == 0 && a.unmatched_starts == 0 && a.unmatched_ends == 0 && !meta.in_meta {
                continue;
            }
            let n = a.count as f64;
            let mean = |x: f64| if a.count > 0 { x / n } else { 0.0 };
            let p50 = a.durations.percentile(50.0);
            let p95 = a.durations.percentile(95.0);
            if !a.durations.is_exact() {
                sketched.push(meta.name.clone());
            }
            let per_unit = self
                .per_unit
                .range((idx, 0)..=(idx, u32::MAX))
                .map(|(&(_, unit), ua)| UnitRegionStats {
                    unit,
                    count: ua.count,
                    total_ns: ua.total_ns,
                    mean_ns: ua.total_ns / ua.count.max(1) as f64,
                    share_of_unit: share(
                        ua.total_ns,
                        self.unit_time.get(&unit).copied().unwrap_or(0.0),
                    ),
                })
                .collect();
            if a.overlapping {
                overlapping.push(meta.name.clone());
            }
            regions.push(RegionStats {
                id: meta.id,
                name: meta.name.clone(),
                kind: meta.kind,
                not_in_metadata: !meta.in_meta,
                parent: meta.parent,
                location: meta.location.clone(),
                count: a.count,
                total_ns: a.total_ns,
                mean_ns: mean(a.total_ns),
                // Past 65536 instances percentiles come from a histogram:
                // never let its rounding put them above the exact maximum.
                p50_ns: p50.min(a.max_ns),
                p95_ns: p95.min(a.max_ns),
                max_ns: a.max_ns,
                mean_raw_ticks: mean(a.raw_ticks),
                mean_corrected_ticks: mean(a.corrected_ticks),
                p50_corrected_ticks: a.ticks.percentile(50.0).min(a.max_ticks),
                p95_corrected_ticks: a.ticks.percentile(95.0).min(a.max_ticks),
                share: share(a.total_ns, unit_time_total),
                covered_ns: a.covered_ns,
                unmatched_starts: a.unmatched_starts,
                unmatched_ends: a.unmatched_ends,
                per_unit,
                on_critical_path: a.crit_ctas > 0,
                critical_path_ns: a.crit_ns,
                critical_path_ctas: a.crit_ctas,
                // The median instance too: one preempted instance lifted
                // a mean of 18-tick iterations to 1216 ticks.
                below_resolution: correction.cost_ticks > 0.0
                    && a.count > 0
                    && (mean(a.raw_ticks) < 2.0 * correction.cost_ticks
                        || a.ticks.percentile(50.0).min(a.max_ticks) < correction.cost_ticks
                        || (records_dominate(mean(a.raw_ticks), mean(a.corrected_ticks))
                            && !(meta.kind == RegionKind::Kernel
                                && checked_within_tolerance(mean(a.corrected_ticks))))
                        || kernel_unresolved),
            });
        }
        regions.sort_by(|a, b| b.share.total_cmp(&a.share).then(a.id.cmp(&b.id)));
        let tiny: Vec<&str> = regions
            .iter()
            .filter(|r| r.below_resolution)
            .map(|r| r.name.as_str())
            .collect();
        if !sketched.is_empty() {
            caveats.push(format!(
                "p50/p95 of regions with more than {} instances come from an HDR histogram (3 \
                 significant digits: within 0.1% or 1 ps): {}",
                crate::quantiles::EXACT_MAX,
                sketched.join(", ")
            ));
        }
        // Instances of one region that overlap in a unit (pipelined async
        // waits, each in flight before the last completes): the total sums
        // more than the time any is in flight, past 100% of the unit even.
        if !overlapping.is_empty() {
            caveats.push(format!(
                "instances overlap in time within a unit (async waits of a pipeline, each in \
                 flight before the last completes): total and share sum their durations, \
                 more than the time any is in flight: {}",
                overlapping.join(", ")
            ));
        }
        if !tiny.is_empty() && !kernel_unresolved {
            caveats.push(format!(
                "below resolution (mean raw duration under two records' cost of {} ticks, \
                 the median instance's corrected one under one record's, or the records inside \
                 it more than twice what is left: the figures are mostly the records \
                 themselves): {}",
                crate::correct::fmt_ticks(correction.cost_ticks),
                tiny.join(", ")
            ));
        }

        // By id, once: a search of the region list per overlapping pair was
        // half of a report's time with 65536 regions in 8 drifting warps.
        let covered_by_id: HashMap<RegionId, f64> =
            regions.iter().map(|r| (r.id, r.covered_ns)).collect();
        let covered_of = |idx: usize| {
            table
                .get(idx)
                .and_then(|m| covered_by_id.get(&m.id))
                .copied()
                .unwrap_or(0.0)
        };
        let mut overlaps: Vec<OverlapStats> = self
            .overlap
            .iter()
            .filter_map(|(&(a, b), &ns)| {
                let (ma, mb) = (table.get(a)?, table.get(b)?);
                let first_ns = covered_of(a);
                Some(OverlapStats {
                    first: ma.id,
                    first_name: ma.name.clone(),
                    second: mb.id,
                    second_name: mb.name.clone(),
                    overlap_ns: ns,
                    first_ns,
                    fraction_of_first: share(ns, first_ns).min(1.0),
                })
            })
            .collect();
        overlaps.sort_by(|a, b| {
            b.overlap_ns
                .total_cmp(&a.overlap_ns)
                .then(a.first.cmp(&b.first))
                .then(a.second.cmp(&b.second))
        });
        // Regions nested 2000 deep in two units overlap pairwise: 4M pairs
        // made a 728 MB report. The largest are what a reader acts on.
        if overlaps.len() > OVERLAPS_LISTED {
            caveats.push(format!(
                "{} pairs of regions overlap across units; the {OVERLAPS_LISTED} with the most \
                 overlap are listed",
                overlaps.len()
            ));
            overlaps.truncate(OVERLAPS_LISTED);
        }

        let async_waits = self
            .waits
            .iter()
            .filter_map(|(&w, a)| {
                let wm = table.get(w)?;
                let issue_idx = table.wait_issue(w)?;
                let im = table.get(issue_idx)?;
                let n = a.count.max(1) as f64;
                Some(AsyncWaitStats {
                    wait_region: wm.id,
                    wait_name: wm.name.clone(),
                    issue_region: a.issue.unwrap_or(im.id),
                    issue_name: im.name.clone(),
                    count: a.count,
                    mean_raw_ticks: a.raw / n,
                    mean_corrected_ticks: a.corrected / n,
                    mean_ns: a.ns / n,
                    total_ns: a.ns,
                    exposed_count: a.exposed_count,
                    mean_exposed_ns: a.exposed_ns / a.exposed_count.max(1) as f64,
                    exposed_fraction: share(a.exposed_ns, a.total_with_exposed_ns),
                    unmatched_waits: a.unmatched,
                    unwaited_issues: a.unwaited,
                })
            })
            .collect();

        let idle = self
            .idle
            .iter()
            .map(|(&unit, a)| UnitIdle {
                unit,
                ctas: a.ctas,
                span_ns: a.span,
                covered_ns: a.covered,
                idle_ns: (a.span - a.covered).max(0.0),
                idle_fraction: share((a.span - a.covered).max(0.0), a.span),
                gaps: a.gaps,
                max_gap_ns: a.max_gap,
                lead_ns: a.lead,
                lead_ctas: a.lead_ctas,
                tail_ns: a.tail,
            })
            .collect();

        let imbalance = imbalance(&self.ctas);
        let wall_span_ns = match (
            self.ctas.iter().map(|c| c.start_ns).min_by(f64::total_cmp),
            self.ctas.iter().map(|c| c.end_ns).max_by(f64::total_cmp),
        ) {
            (Some(s), Some(e)) => e - s,
            _ => 0.0,
        };

        // Clock.
        let ck = &self.clock;
        let [c_ns, c_ovr, c_meas, c_nom, c_ass] = ck.by_source;
        let measured_mean = (c_meas > 0).then(|| ck.measured_sum / c_meas as f64);
        let mut parts = Vec::new();
        if c_ns > 0 {
            parts.push("nanosecond counter: 1 tick = 1 ns".to_string());
        }
        if c_ovr > 0 {
            parts.push(format!(
                "{} ticks/ns given in the options",
                override_rate.unwrap_or(1.0)
            ));
        }
        if let Some(m) = measured_mean {
            let spread = if ck.measured_max > ck.measured_min {
                format!(", min {:.4}, max {:.4}", ck.measured_min, ck.measured_max)
            } else {
                String::new()
            };
            let own = if ck.own_n > 1 && ck.own_max > ck.own_min {
                format!(
                    "; each CTA alone measured {:.4} to {:.4}, as a coarse global timer reads short CTAs",
                    ck.own_min, ck.own_max
                )
            } else {
                String::new()
            };
            parts.push(format!(
                "measured from the global timer (all CTAs' clock spans over their timer spans): mean {m:.4} ticks/ns{spread} for {c_meas} CTAs{own}"
            ));
        }
        if c_nom > 0 {
            parts.push(format!(
                "nominal {} ticks/ns for {c_nom} CTAs",
                info.ticks_per_ns.unwrap_or(1.0)
            ));
        }
        if c_ass > 0 {
            parts.push(format!(
                "ASSUMED 1 tick = 1 ns for {c_ass} CTAs (no clock rate known)"
            ));
            caveats.push(format!(
                "no clock rate known for {c_ass} CTAs (no usable header clock stamps, no nominal \
                 rate): 1 tick was taken as 1 ns, so the ns figures are really ticks"
            ));
        }
        if ck.rejected > 0 {
            caveats.push(format!(
                "{} CTAs measured a clock rate more than 2x off the nominal one (global timer too \
                 coarse for a short CTA?); the nominal rate was used for them",
                ck.rejected
            ));
        }
        if let Some((cta, unit)) = ck.first_beyond {
            caveats.push(format!(
                "{} units have records later than their CTA's finalize clock, or spanning more \
                 ticks than its global-timer span allows (first: CTA {cta} unit {unit}): their \
                 record count or clocks are not what the kernel wrote, so their durations \
                 cannot be trusted",
                ck.beyond_units
            ));
        }
        if let Some((cta, unit)) = ck.first_outlived {
            caveats.push(format!(
                "{} units recorded for longer than thread 0 lived in their CTA (first: CTA {cta} \
                 unit {unit}): right where they outlive thread 0 (it returned early, or its warp \
                 finished first: finalize has no barrier); if nothing in the kernel lets them, \
                 their clocks are corrupt",
                ck.outlived_units
            ));
        }
        if let Some(cta) = ck.first_timer_backwards {
            caveats.push(format!(
                "{} CTAs have global-timer stamps that go backwards (first: CTA {cta}; a \
                 corrupt header): their place on the time axis, and the wall span, cannot be \
                 trusted",
                ck.timer_backwards
            ));
        }
        if let Some(cta) = ck.first_wrapping {
            let bits = info.counter.record_bits();
            caveats.push(format!(
                "{} CTAs ran 2^{bits} ticks or longer (first: CTA {cta}), as long as the {}-bit \
                 record clock takes to wrap: a gap of a whole wrap between two records of a unit \
                 reads as a short one (record with --counter clock64)",
                ck.wrapping_ctas, bits
            ));
        }
        if let Some((cta, d)) = ck.first_stamps_disagree {
            caveats.push(format!(
                "{} CTAs have header stamps that disagree (first: CTA {cta}, init to finalize \
                 {:.0} ns by its clock and {:.0} ns by the global timer): one stamp is corrupt; \
                 such a CTA is aligned on its first record where the clock span is the longer, \
                 placed by its finalize stamp where the timer's is, and its place on the time \
                 axis is uncertain by the difference",
                ck.stamps_disagree, d.clock_span_ns, d.timer_span_ns
            ));
        }
        if ck.no_header_clock > 0 {
            caveats.push(format!(
                "{} CTAs carry no usable header clock (first: CTA {}): each is aligned on its \
                 first record, so the time from CTA start to its first record is unknown",
                ck.no_header_clock,
                ck.first_no_header_clock
                    .map_or("?".to_string(), |c| c.to_string())
            ));
        }
        let clock = ClockReport {
            domain: info.clock_domain,
            ctas_nanoseconds: c_ns,
            ctas_override: c_ovr,
            ctas_measured: c_meas,
            ctas_nominal: c_nom,
            ctas_assumed: c_ass,
            nominal_ticks_per_ns: info.ticks_per_ns,
            override_ticks_per_ns: override_rate,
            measured_min: measured_mean.map(|_| ck.measured_min),
            measured_mean,
            measured_max: measured_mean.map(|_| ck.measured_max),
            measured_rejected: ck.rejected,
            cta_measured_min: (ck.own_n > 0).then_some(ck.own_min),
            cta_measured_max: (ck.own_n > 0).then_some(ck.own_max),
            ctas_without_header_clock: ck.no_header_clock,
            description: if parts.is_empty() {
                "no CTAs".into()
            } else {
                parts.join("; ")
            },
        };

        let t = &self.totals;
        let note = if t.records_lost == 0 {
            "no records lost".to_string()
        } else {
            match info.strategy {
                Strategy::Circular => format!(
                    "{} of {} records lost in {} units of {} CTAs: the rings wrapped and kept the \
                     newest records (about {} START/END pairs gone); instance numbers count the \
                     surviving records",
                    t.records_lost,
                    t.records_written,
                    self.units_with_loss,
                    self.ctas_with_loss,
                    t.records_lost / 2
                ),
                Strategy::Flush => format!(
                    "{} of {} records lost in {} units of {} CTAs: the global segments filled up \
                     and the newest records were dropped (about {} START/END pairs gone)",
                    t.records_lost,
                    t.records_written,
                    self.units_with_loss,
                    self.ctas_with_loss,
                    t.records_lost / 2
                ),
            }
        };
        if t.records_lost > 0 {
            caveats.push(note.clone());
        }
        // Blocks that cannot be this launch's CTAs: an id beyond the grid,
        // or one id in two blocks (a header corrupted, or a buffer of
        // another launch): "slowest CTA 4000000000" of a 4-CTA grid.
        {
            let grid_ctas = kperf_runtime::profile::checked_ctas(&info.grid).filter(|g| *g > 0);
            let mut ids: Vec<u32> = self.ctas.iter().map(|c| c.cta_id).collect();
            ids.sort_unstable();
            let outside: Vec<u32> = ids
                .iter()
                .copied()
                .filter(|&i| grid_ctas.is_some_and(|g| u64::from(i) >= g))
                .collect();
            if let Some(first) = outside.first() {
                caveats.push(format!(
                    "{} CTA block(s) name CTA ids outside the grid {:?} (first: {first}): their \
                     headers are corrupt or the buffer is another launch's",
                    outside.len(),
                    info.grid
                ));
            }
            // A grid of no CTA that recorded some: nothing above could say.
            if grid_ctas.is_none() && !ids.is_empty() {
                caveats.push(format!(
                    "the profile's grid {:?} holds no CTA, yet {} CTA block(s) were recorded: its \
                     header is corrupt",
                    info.grid,
                    ids.len()
                ));
            }
            let mut repeated: Vec<u32> = ids
                .windows(2)
                .filter(|w| w[0] == w[1])
                .map(|w| w[0])
                .collect();
            // One id in three blocks is one repeated id.
            repeated.dedup();
            if let Some(first) = repeated.first() {
                caveats.push(format!(
                    "{} CTA id(s) appear in more than one block (first: CTA {first}): their \
                     headers are corrupt or the buffer is another launch's",
                    repeated.len()
                ));
            }
        }
        if self.critical_depth_limited > 0 {
            caveats.push(format!(
                "{} CTA(s) nest regions more than {CRITICAL_PATH_LEVELS} deep on their critical \
                 unit: the critical path stops there, and regions below get no critical-path time",
                self.critical_depth_limited
            ));
        }
        if self.corrected_to_zero > 0 {
            let n = self.corrected_to_zero;
            caveats.push(format!(
                "{n} region instance{} corrected to exactly 0: the record cost covers {} raw \
                 span (below resolution; the raw ticks are kept with each instance and in the \
                 trace's args)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "its" } else { "their" }
            ));
        }
        if let Some((cta, unit, written)) = self.implausible_first {
            caveats.push(format!(
                "{} unit(s) claim more records written than their CTA ran ticks (first: CTA {cta} \
                 unit {unit}, {written} records): the counts are corrupt; their lost records are \
                 taken as unknown and positions counted from the first surviving record",
                self.implausible_units
            ));
        }
        if self.nonmonotone > 0 {
            caveats.push(format!(
                "{} records have a clock earlier than the record before them in their unit; \
                 durations spanning them are clamped at 0",
                self.nonmonotone
            ));
        }
        if self.ignored_wait_ends > 0 {
            caveats.push(format!(
                "{} END records of async wait regions were ignored (a wait is measured from its \
                 START, CLK2)",
                self.ignored_wait_ends
            ));
        }
        let unknown = table.unknown_count();
        if unknown > 0 {
            caveats.push(format!(
                "{unknown} region ids in the records are not in the metadata; they are named region_<id>"
            ));
        }
        let (um_s, um_e) = regions.iter().fold((0, 0), |(s, e), r| {
            (s + r.unmatched_starts, e + r.unmatched_ends)
        });
        if um_s + um_e > 0 {
            caveats.push(format!(
                "{um_s} START and {um_e} END records found no partner (see the unmatched list)"
            ));
        }

        ReplayReport {
            kernel: crate::regions::shown(&info.kernel),
            target: crate::regions::shown(&info.target),
            grid: info.grid,
            block: info.block,
            counter: info.counter,
            clock_domain: info.clock_domain,
            granularity: info.granularity,
            strategy: info.strategy,
            tick_unit: match info.clock_domain {
                ClockDomain::Cycles => "cycles".into(),
                ClockDomain::Nanoseconds => "ns".into(),
            },
            totals: self.totals.clone(),
            clock,
            correction: correction.clone(),
            corrections_applied,
            kernel_time: KernelTime {
                cta_time_ns: self.cta_time,
                unit_time_ns: unit_time_total,
                wall_span_ns,
            },
            regions,
            async_waits,
            overlaps,
            idle,
            critical_units: self
                .critical_units
                .into_iter()
                .map(|(unit, ctas)| CriticalUnitCount { unit, ctas })
                .collect(),
            critical_paths: self.critical_paths,
            imbalance,
            lost: LostRecords {
                records_written: t.records_written,
                records_lost: t.records_lost,
                units_with_loss: self.units_with_loss,
                ctas_with_loss: self.ctas_with_loss,
                note,
            },
            unmatched: self.unmatched,
            ctas: self.ctas,
            caveats,
            check: None,
            run_time: None,
        }
    }
}

/// What [`Accumulator::finish`] needs besides the accumulated data.
pub(crate) struct FinishContext<'a> {
    pub info: &'a kperf_runtime::profile::RunInfo,
    pub table: &'a RegionTable,
    pub correction: &'a Correction,
    pub corrections_applied: Vec<String>,
    pub caveats: Vec<String>,
    pub override_rate: Option<f64>,
}

/// Nearest-rank percentile (p in 0..=100) of `v`; 0 for an empty slice
/// (kperf's one rule: [`kperf_runtime::rank`]).
pub use kperf_runtime::rank::percentile;

fn imbalance(ctas: &[CtaSummary]) -> Imbalance {
    let n = ctas.len();
    let durs = ctas.iter().map(|c| c.duration_ns);
    let min = durs.clone().min_by(f64::total_cmp).unwrap_or(0.0);
    let max = durs.clone().max_by(f64::total_cmp).unwrap_or(0.0);
    let mean = if n > 0 {
        durs.sum::<f64>() / n as f64
    } else {
        0.0
    };
    let fastest = ctas
        .iter()
        .min_by(|a, b| a.duration_ns.total_cmp(&b.duration_ns))
        .map(|c| c.cta_id);
    let slowest = ctas
        .iter()
        .max_by(|a, b| a.duration_ns.total_cmp(&b.duration_ns))
        .map(|c| c.cta_id);
    let mut by_sm: BTreeMap<u32, Vec<(f64, f64)>> = BTreeMap::new();
    for c in ctas {
        by_sm
            .entry(c.hw_id)
            .or_default()
            .push((c.start_ns, c.end_ns));
    }
    let sms: Vec<SmBusy> = by_sm
        .into_iter()
        .map(|(hw_id, mut iv)| {
            let cta_time_ns = iv.iter().map(|(s, e)| e - s).sum();
            iv.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut busy = 0.0;
            let mut cursor = f64::NEG_INFINITY;
            for (s, e) in &iv {
                if *e > cursor {
                    busy += e - s.max(cursor);
                    cursor = *e;
                }
            }
            SmBusy {
                hw_id,
                ctas: iv.len() as u64,
                busy_ns: busy,
                cta_time_ns,
            }
        })
        .collect();
    let busy = sms.iter().map(|s| s.busy_ns);
    let sm_min = busy.clone().min_by(f64::total_cmp).unwrap_or(0.0);
    let sm_max = busy.clone().max_by(f64::total_cmp).unwrap_or(0.0);
    let sm_mean = if sms.is_empty() {
        0.0
    } else {
        busy.sum::<f64>() / sms.len() as f64
    };
    Imbalance {
        ctas: n as u64,
        cta_min_ns: min,
        cta_mean_ns: mean,
        cta_max_ns: max,
        cta_max_over_mean: if mean > 0.0 { max / mean } else { 0.0 },
        fastest_cta: fastest,
        slowest_cta: slowest,
        sms,
        sm_busy_min_ns: sm_min,
        sm_busy_mean_ns: sm_mean,
        sm_busy_max_ns: sm_max,
        sm_max_over_mean: if sm_mean > 0.0 { sm_max / sm_mean } else { 0.0 },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn stalls_are_told_from_a_wrong_record_cost_by_the_median() {
        // (mean error, median error, stall-driven): the check's median moved
        // 6-11% between runs on a busy host (a retest, 2026-11-28), so a
        // median within 10% of a mean far off is a stall, as is a median
        // with under a quarter of the mean's error; a wrong cost moves both.
        for (mean, median, stalled) in [
            (1.357, 0.036, true),
            (0.9, 0.11, true),
            (2.0, 0.24, true),
            (341.6, 13.68, false),
            (0.3, 0.09, true),
            (0.3, 0.2, false),
            (-0.3, -0.28, false),
            (-0.2, 0.01, true),
            (0.04, 0.0, false),
        ] {
            assert_eq!(stall_driven(mean, median), stalled, "{mean} {median}");
        }
    }

    /// The search-based chain the linear one replaced: the critical path's
    /// definition, read directly (two binary searches per member).
    fn chain_by_search(
        inst: &[RegionInstance],
        cands: &[usize],
        level: u32,
        used: &mut [bool],
        out: &mut Vec<CriticalStep>,
    ) {
        let cands: Vec<usize> = cands.iter().copied().filter(|&i| !used[i]).collect();
        if cands.is_empty() {
            return;
        }
        let mut best: Vec<usize> = Vec::new();
        for k in 0..cands.len() {
            let b = match best.last() {
                Some(&p) if inst[cands[p]].end_ns >= inst[cands[k]].end_ns => p,
                _ => k,
            };
            best.push(b);
        }
        let mut picked = Vec::new();
        let mut cur = best[cands.len() - 1];
        loop {
            picked.push(cur);
            let s = inst[cands[cur]].start_ns;
            let p = cands.partition_point(|&i| inst[i].start_ns < s);
            if p == 0 {
                break;
            }
            cur = best[p - 1];
        }
        picked.reverse();
        for &k in &picked {
            used[cands[k]] = true;
        }
        for &k in &picked {
            let me = &inst[cands[k]];
            out.push(CriticalStep {
                region: me.region,
                instance: me.instance,
                start_ns: me.start_ns,
                end_ns: me.end_ns,
                level,
            });
            let hi = cands.partition_point(|&i| inst[i].start_ns <= me.end_ns);
            let inner: Vec<usize> = cands[k + 1..hi.max(k + 1)]
                .iter()
                .copied()
                .filter(|&i| {
                    !used[i] && inst[i].end_ns <= me.end_ns && inst[i].start_ns >= me.start_ns
                })
                .collect();
            chain_by_search(inst, &inner, level + 1, used, out);
        }
    }

    fn instance(region: u16, k: u32, start: u32, len: u32) -> RegionInstance {
        RegionInstance {
            cta: 0,
            unit: 0,
            region: RegionId(region),
            instance: k,
            start_clock: start as u64,
            end_clock: (start + len) as u64,
            start_index: 0,
            end_index: 0,
            raw_ticks: len as u64,
            corrected_ticks: len as f64,
            start_ns: start as f64,
            end_ns: (start + len) as f64,
            depth: 0,
            row: 0,
        }
    }

    /// Sorted as a unit's instances are: start ascending, end descending.
    fn sorted(spans: &[(u16, u32, u32)]) -> Vec<RegionInstance> {
        let mut v: Vec<RegionInstance> = spans
            .iter()
            .enumerate()
            .map(|(k, &(r, s, l))| instance(r, k as u32, s, l))
            .collect();
        v.sort_by(|a, b| {
            a.start_ns
                .total_cmp(&b.start_ns)
                .then(b.end_ns.total_cmp(&a.end_ns))
        });
        v
    }

    fn path(inst: &[RegionInstance], linear: bool) -> Vec<CriticalStep> {
        let cands: Vec<usize> = (0..inst.len()).collect();
        let mut used = vec![false; inst.len()];
        let mut out = Vec::new();
        if linear {
            chain(inst, &cands, 0, &mut used, &mut out);
        } else {
            chain_by_search(inst, &cands, 0, &mut used, &mut out);
        }
        out
    }

    #[test]
    fn nested_loop_path_is_kernel_loop_and_iterations() {
        // kernel [0,100) ⊃ loop [10,90) ⊃ iterations [10,30) [30,60) [60,90);
        // a load [5,20) overlaps the loop's start without nesting.
        let inst = sorted(&[
            (0, 0, 100),
            (1, 10, 80),
            (2, 10, 20),
            (2, 30, 30),
            (2, 60, 30),
            (3, 5, 15),
        ]);
        let steps: Vec<(u16, u32, u32)> = path(&inst, true)
            .iter()
            .map(|s| (s.region.0, s.start_ns as u32, s.level))
            .collect();
        assert_eq!(
            steps,
            [
                (0, 0, 0),
                (3, 5, 1),
                (1, 10, 1),
                (2, 10, 2),
                (2, 30, 2),
                (2, 60, 2)
            ]
        );
    }

    /// The overlap sweep the rate-based one replaced: its definition read
    /// directly, every open pair charged between every two events.
    fn overlap_by_intervals(o: &OverlapScratch, nl: usize, units: usize) -> (Vec<f64>, Vec<f64>) {
        let mut counts = vec![0u32; nl * units];
        let mut matrix = vec![0.0; nl * nl];
        let mut covered = vec![0.0; nl];
        let mut prev_t = f64::NEG_INFINITY;
        for &e in &o.events {
            let (key, start, l, u) = unpack_event(e);
            let t = from_order_key(key);
            let dt = t - prev_t;
            let open_units = |counts: &[u32], r: usize| {
                (0..units).filter(|&v| counts[r * units + v] > 0).count()
            };
            if dt > 0.0 && prev_t.is_finite() {
                for a in 0..nl {
                    let na = open_units(&counts, a);
                    covered[a] += na as f64 * dt;
                    for b in 0..nl {
                        // Units of a with b open in some other unit.
                        let cnt = (0..units)
                            .filter(|&ua| counts[a * units + ua] > 0)
                            .filter(|&ua| {
                                (0..units).any(|ub| ub != ua && counts[b * units + ub] > 0)
                            })
                            .count();
                        matrix[a * nl + b] += cnt as f64 * dt;
                    }
                }
            }
            prev_t = t;
            let cell = &mut counts[l as usize * units + u as usize];
            *cell = if start {
                *cell + 1
            } else {
                cell.saturating_sub(1)
            };
        }
        (matrix, covered)
    }

    /// Events of `units` units of instances `(unit, region, start, length)`, as `run` builds them.
    fn overlap_events(spans: &[(u32, u32, u32, u32)]) -> OverlapScratch {
        let mut o = OverlapScratch::default();
        for &(u, r, s, len) in spans {
            let (s, e) = (f64::from(s) * 0.25, f64::from(s + len) * 0.25);
            o.events.push(pack_event(s, true, r, u));
            o.events.push(pack_event(e, false, r, u));
        }
        o.events.sort();
        o
    }

    proptest! {
        /// Each unit's instances in start order become one sorted run, and
        /// the runs merge into the sorted events, by a scan of the heads
        /// (up to 16 units) or a sort (more).
        #[test]
        fn unit_runs_merge_into_the_sorted_events(
            units in 1u32..20,
            spans in proptest::collection::vec((0u32..20, 0u32..4, 0u32..120, 1u32..40), 0..160)
        ) {
            let mut o = OverlapScratch::default();
            let mut want = Vec::new();
            for unit in 0..units {
                let mut mine: Vec<(f64, f64, u32)> = spans
                    .iter()
                    .filter(|s| s.0 % units == unit)
                    .map(|&(_, r, s, len)| (f64::from(s) * 0.25, f64::from(s + len) * 0.25, r))
                    .collect();
                mine.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
                for &(s, e, r) in &mine {
                    want.push(pack_event(s, true, r, unit));
                    want.push(pack_event(e, false, r, unit));
                }
                o.push_run(unit, &mine);
            }
            want.sort();
            o.merge_runs();
            prop_assert_eq!(o.events, want);
        }

        /// Packed events round-trip and sort as the tuples they stand for:
        /// by time (negative, zero, positive), then ends before starts.
        #[test]
        fn packed_events_sort_as_their_tuples(
            a in (-1e12f64..1e12, any::<bool>(), 0u32..1 << 16, any::<u32>()),
            b in (-1e12f64..1e12, any::<bool>(), 0u32..1 << 16, any::<u32>()),
        ) {
            let (pa, pb) = (pack_event(a.0, a.1, a.2, a.3), pack_event(b.0, b.1, b.2, b.3));
            let tuple = |x: (f64, bool, u32, u32)| (order_key(x.0), x.1, x.2, x.3);
            prop_assert_eq!(unpack_event(pa), tuple(a));
            prop_assert_eq!(pa.cmp(&pb), tuple(a).cmp(&tuple(b)));
            prop_assert_eq!(from_order_key(tuple(a).0), a.0);
        }
    }

    proptest! {
        /// Nested, overlapping, touching and same-region instances in up to
        /// four units: the rate-based sweep gives the definition's figures.
        #[test]
        fn overlap_sweep_equals_the_interval_definition(
            spans in proptest::collection::vec((0u32..4, 0u32..4, 0u32..120, 1u32..40), 0..80)
        ) {
            let (nl, units) = (4, 4);
            // Vectors, and the maps tables of many regions use.
            for dense_limit in [None, Some(0)] {
                let mut o = overlap_events(&spans);
                o.dense_limit = dense_limit;
                let (matrix, covered) = overlap_by_intervals(&o, nl, units);
                o.sweep(nl, units);
                let mut swept = vec![0.0; nl * nl];
                for (cell, c) in o.pairs.iter() {
                    swept[cell] = c.overlapped;
                }
                for (got, want) in swept.iter().zip(&matrix).chain(o.covered.iter().zip(&covered)) {
                    prop_assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{:?} vs {:?}", swept, matrix);
                }
            }
        }
    }

    proptest! {
        /// Overlapping, nested, tied and disjoint intervals alike.
        #[test]
        fn linear_chain_equals_the_search_definition(
            spans in proptest::collection::vec((0u16..4, 0u32..200, 0u32..80), 0..120)
        ) {
            let inst = sorted(&spans);
            prop_assert_eq!(path(&inst, true), path(&inst, false));
        }

        /// Mostly equal and zero-length intervals, as a correction that
        /// clamps records leaves them: runs of equal intervals nest.
        #[test]
        fn linear_chain_equals_the_search_definition_on_ties(
            spans in proptest::collection::vec((0u16..3, 0u32..6, 0u32..3), 0..120)
        ) {
            let inst = sorted(&spans);
            prop_assert_eq!(path(&inst, true), path(&inst, false));
        }
    }

    /// 100000 iterations clamped to one instant inside a kernel region: each
    /// contains the next, and the path lays them out, one level each, on a
    /// thread with a 256 KiB stack (it recursed once per level and
    /// overflowed with a few thousand).
    #[test]
    fn a_hundred_thousand_equal_instances_nest_without_recursion() {
        let mut spans = vec![(0u16, 0u32, 100u32)];
        spans.extend(std::iter::repeat_n((1, 50, 0), 100_000));
        let inst = sorted(&spans);
        let steps = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || path(&inst, true))
            .expect("thread")
            .join()
            .expect("no overflow");
        assert_eq!(steps.len(), 100_001);
        let levels: Vec<u32> = steps.iter().map(|s| s.level).collect();
        assert!(
            levels.iter().copied().eq(0..=100_000),
            "one level per instance"
        );
    }

    /// 20000 distinct intervals, each inside the one before: the path picks
    /// chains down to CRITICAL_PATH_LEVELS and says it stopped, in time
    /// linear in the instances (it was quadratic: 80000 levels took 13 s).
    #[test]
    fn deep_distinct_nesting_stops_at_the_level_limit() {
        let spans: Vec<(u16, u32, u32)> = (0..20_000u32)
            .map(|i| (0u16, i, 2 * (20_000 - i)))
            .collect();
        let inst = sorted(&spans);
        let cands: Vec<usize> = (0..inst.len()).collect();
        let mut used = vec![false; inst.len()];
        let mut steps = Vec::new();
        let limited = chain(&inst, &cands, 0, &mut used, &mut steps);
        assert!(limited);
        assert_eq!(steps.len(), CRITICAL_PATH_LEVELS as usize);
        assert_eq!(
            steps.last().map(|s| s.level),
            Some(CRITICAL_PATH_LEVELS - 1)
        );
    }
}
