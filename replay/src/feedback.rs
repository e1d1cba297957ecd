//! The feedback API: an in-memory replayed profile to query, and the
//! versioned JSON file a compiler pass reads.
//!
//! ```no_run
//! use kperf_replay::Profile;
//! let p = Profile::load("run.kprof")?;
//! if let Some(load) = p.region_by_name("load") {
//!     println!("load: {} instances, mean {:.0} ns, {:.1}% of unit time",
//!              load.count, load.mean_ns, load.share * 100.0);
//! }
//! std::fs::write("run.feedback.json", p.feedback_json()?)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The feedback file ([`Feedback`], `"feedback_version": 1`) holds, per
//! region, the instance count, mean corrected cycles and ns, share of unit
//! time and whether it lies on a CTA critical path; the cross-unit overlaps;
//! per-CTA critical paths folded per region; and async-wait latencies.
//! Fields are only ever *added* within a version; a reader should ignore
//! fields it does not know and check `feedback_version`.

use std::path::Path;

use kperf_dialects::abi::RegionId;
use kperf_dialects::meta::{Granularity, RegionKind};
use kperf_runtime::profile::{CtaTrace, RunInfo};
use serde::{Deserialize, Serialize};

use crate::analyze::{critical_path, CriticalPath, OverlapStats, RegionStats, ReplayReport};
use crate::engine::{ProfileScan, Replayer, SamplePlan};
use crate::pair::{CtaReplay, RegionInstance};
use crate::regions::RegionTable;
use crate::trace::{TraceFormat, TraceSink};
use crate::{ReplayError, ReplayOptions, TraceGrouping};

/// The version of the [`Feedback`] format this crate writes.
pub const FEEDBACK_VERSION: u32 = 1;

/// What a compiler pass reads back from a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// [`FEEDBACK_VERSION`].
    pub feedback_version: u32,
    pub kernel: String,
    pub target: String,
    pub granularity: Granularity,
    /// What `*_cycles` fields count: `cycles` or `ns` (nanosecond counters).
    pub tick_unit: String,
    /// Whether instrumentation overhead was subtracted.
    pub corrected: bool,
    pub corrections: Vec<String>,
    /// How ticks became ns.
    pub clock: String,
    /// Share basis: sum over CTAs of CTA duration × units.
    pub unit_time_ns: f64,
    /// Latest CTA end − earliest CTA start.
    pub wall_span_ns: f64,
    pub ctas: u64,
    /// Sorted by share, largest first.
    pub regions: Vec<FeedbackRegion>,
    pub overlaps: Vec<FeedbackOverlap>,
    pub critical_paths: Vec<FeedbackCriticalPath>,
    pub async_waits: Vec<FeedbackAsyncWait>,
    /// Limits of the data (lost records, assumed clock rate, estimated cost...).
    pub caveats: Vec<String>,
    /// The corrected kernel region against the same launch run
    /// uninstrumented, when `kperf run` timed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<crate::analyze::CheckReport>,
    /// The profiled launch's time against the same launch uninstrumented,
    /// when `kperf run` timed both the same way (device events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_time: Option<crate::analyze::RunTimeReport>,
}

/// Per-region figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedbackRegion {
    pub id: RegionId,
    pub name: String,
    pub kind: RegionKind,
    /// The id is in the records but not in the metadata: name and kind are
    /// made up (`region_<id>`, `explicit`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_in_metadata: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<RegionId>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub location: String,
    pub count: u64,
    /// Mean corrected duration in ticks. This, `mean_raw_cycles`,
    /// `mean_ns` and `p95_ns` are NaN (null in JSON) for a region with no
    /// complete instance (`count` 0).
    #[serde(deserialize_with = "nan_if_null")]
    pub mean_cycles: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub mean_raw_cycles: f64,
    /// Median and 95th percentile of the corrected duration in ticks
    /// (absent in files written before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_cycles: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_cycles: Option<f64>,
    #[serde(deserialize_with = "nan_if_null")]
    pub mean_ns: f64,
    /// Median corrected duration (absent in files written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ns: Option<f64>,
    #[serde(deserialize_with = "nan_if_null")]
    pub p95_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ns: Option<f64>,
    pub total_ns: f64,
    /// `total_ns / unit_time_ns`.
    pub share: f64,
    pub on_critical_path: bool,
    /// Fraction of CTAs on whose critical path the region appears.
    pub critical_path_fraction: f64,
    /// Time of its instances on CTA critical paths (absent in older files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_path_ns: Option<f64>,
    /// `critical_path_ns` over the summed length of the CTAs' critical
    /// paths (CTA start to the critical unit's last END): the region's
    /// share of the time that bounds the CTAs. Nested regions each count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_path_share: Option<f64>,
    pub unmatched_records: u64,
    /// The raw duration is under two records' cost: the figures are mostly
    /// the records themselves, not the region's work.
    #[serde(default)]
    pub below_resolution: bool,
}

/// A figure JSON holds as null (NaN and infinities are written so) reads
/// back as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedbackOverlap {
    pub first: RegionId,
    pub second: RegionId,
    pub first_name: String,
    pub second_name: String,
    pub overlap_ns: f64,
    pub fraction_of_first: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedbackCriticalPath {
    pub cta: u32,
    pub hw_id: u32,
    /// The unit whose last END bounds the CTA's end.
    pub unit: u32,
    pub end_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slack_ns: Option<f64>,
    pub regions: Vec<FeedbackPathRegion>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedbackPathRegion {
    pub id: RegionId,
    pub instances: u64,
    pub time_ns: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeedbackAsyncWait {
    pub wait: RegionId,
    pub issue: RegionId,
    pub count: u64,
    /// Mean CLK2 − CLK1, corrected.
    pub mean_cycles: f64,
    pub mean_ns: f64,
    /// Mean CLK2 − END(issue).
    pub mean_exposed_ns: f64,
    pub exposed_fraction: f64,
}

impl ReplayReport {
    /// The compiler-facing subset of the report.
    pub fn feedback(&self) -> Feedback {
        let ctas = self.totals.ctas;
        let cta_start: std::collections::HashMap<u64, f64> = self
            .ctas
            .iter()
            .map(|c| (c.block_index, c.start_ns))
            .collect();
        let critical_total_ns: f64 = self
            .critical_paths
            .iter()
            .filter_map(|p| Some(p.end_ns - cta_start.get(&p.block_index)?))
            .filter(|d| d.is_finite() && *d > 0.0)
            .sum();
        Feedback {
            feedback_version: FEEDBACK_VERSION,
            kernel: self.kernel.clone(),
            target: self.target.clone(),
            granularity: self.granularity,
            tick_unit: self.tick_unit.clone(),
            corrected: self.correction.enabled,
            corrections: self.corrections_applied.clone(),
            clock: self.clock.description.clone(),
            unit_time_ns: self.kernel_time.unit_time_ns,
            wall_span_ns: self.kernel_time.wall_span_ns,
            ctas,
            regions: self
                .regions
                .iter()
                .map(|r| {
                    // No complete instance (its records lost to a wrapped
                    // ring, or never both reached): no duration to report.
                    // NaN is written as null, not as a 0 ns a pass would
                    // take for a free region.
                    let timed = r.count > 0;
                    let figure = |v: f64| if timed { v } else { f64::NAN };
                    let some = |v: f64| timed.then_some(v);
                    FeedbackRegion {
                        id: r.id,
                        name: r.name.clone(),
                        kind: r.kind,
                        not_in_metadata: r.not_in_metadata,
                        parent: r.parent,
                        location: r.location.clone(),
                        count: r.count,
                        mean_cycles: figure(r.mean_corrected_ticks),
                        mean_raw_cycles: figure(r.mean_raw_ticks),
                        p50_cycles: some(r.p50_corrected_ticks),
                        p95_cycles: some(r.p95_corrected_ticks),
                        mean_ns: figure(r.mean_ns),
                        p50_ns: some(r.p50_ns),
                        p95_ns: figure(r.p95_ns),
                        max_ns: some(r.max_ns),
                        total_ns: r.total_ns,
                        share: r.share,
                        on_critical_path: r.on_critical_path,
                        critical_path_fraction: if ctas > 0 {
                            r.critical_path_ctas as f64 / ctas as f64
                        } else {
                            0.0
                        },
                        critical_path_ns: Some(r.critical_path_ns),
                        critical_path_share: Some(if critical_total_ns > 0.0 {
                            r.critical_path_ns / critical_total_ns
                        } else {
                            0.0
                        }),
                        unmatched_records: r.unmatched_starts + r.unmatched_ends,
                        below_resolution: r.below_resolution,
                    }
                })
                .collect(),
            overlaps: self
                .overlaps
                .iter()
                .map(|o| FeedbackOverlap {
                    first: o.first,
                    second: o.second,
                    first_name: o.first_name.clone(),
                    second_name: o.second_name.clone(),
                    overlap_ns: o.overlap_ns,
                    fraction_of_first: o.fraction_of_first,
                })
                .collect(),
            critical_paths: self
                .critical_paths
                .iter()
                .map(|p| FeedbackCriticalPath {
                    cta: p.cta,
                    hw_id: p.hw_id,
                    unit: p.unit,
                    end_ns: p.end_ns,
                    slack_ns: p.slack_ns,
                    regions: p
                        .regions
                        .iter()
                        .map(|r| FeedbackPathRegion {
                            id: r.region,
                            instances: r.instances,
                            time_ns: r.time_ns,
                        })
                        .collect(),
                })
                .collect(),
            async_waits: self
                .async_waits
                .iter()
                .map(|w| FeedbackAsyncWait {
                    wait: w.wait_region,
                    issue: w.issue_region,
                    count: w.count,
                    mean_cycles: w.mean_corrected_ticks,
                    mean_ns: w.mean_ns,
                    mean_exposed_ns: w.mean_exposed_ns,
                    exposed_fraction: w.exposed_fraction,
                })
                .collect(),
            caveats: self.caveats.clone(),
            check: self.check.clone(),
            run_time: self.run_time.clone(),
        }
    }

    /// [`ReplayReport::feedback`] as pretty JSON.
    pub fn feedback_json(&self) -> Result<String, ReplayError> {
        serde_json::to_string_pretty(&self.feedback()).map_err(|source| ReplayError::Json {
            what: "feedback",
            source,
        })
    }

    /// The whole report as pretty JSON (`--json`).
    pub fn to_json(&self) -> Result<String, ReplayError> {
        serde_json::to_string_pretty(self).map_err(|source| ReplayError::Json {
            what: "replay report",
            source,
        })
    }
}

/// A replayed profile kept in memory: every region instance of every CTA
/// (not the raw records), the region table and the report.
#[derive(Clone, Debug)]
pub struct Profile {
    info: RunInfo,
    options: ReplayOptions,
    regions: RegionTable,
    ctas: Vec<CtaReplay>,
    report: ReplayReport,
}

impl Profile {
    /// Load and replay a `.kprof` file with default options.
    pub fn load(path: impl AsRef<Path>) -> Result<Profile, ReplayError> {
        crate::load::load_profile(path.as_ref(), &ReplayOptions::default(), false)
    }

    /// Load and replay a `.kprof` file.
    pub fn load_with(path: impl AsRef<Path>, opts: &ReplayOptions) -> Result<Profile, ReplayError> {
        crate::load::load_profile(path.as_ref(), opts, false)
    }

    /// Load and replay a Proton host dump.
    pub fn load_proton(
        path: impl AsRef<Path>,
        opts: &ReplayOptions,
    ) -> Result<Profile, ReplayError> {
        crate::load::load_profile(path.as_ref(), opts, true)
    }

    /// Load and replay an opened profile (e.g. a raw buffer with its
    /// metadata: [`kperf_runtime::raw::open`]).
    pub fn load_reader(
        reader: &kperf_runtime::ProfileReader,
        opts: &ReplayOptions,
    ) -> Result<Profile, ReplayError> {
        crate::load::load_reader(reader, opts)
    }

    /// Replay decoded CTAs with default options.
    pub fn from_parts(info: RunInfo, ctas: Vec<CtaTrace>) -> Result<Profile, ReplayError> {
        Self::from_parts_with(info, ctas, &ReplayOptions::default())
    }

    /// Replay decoded CTAs.
    pub fn from_parts_with(
        info: RunInfo,
        ctas: Vec<CtaTrace>,
        opts: &ReplayOptions,
    ) -> Result<Profile, ReplayError> {
        let mut scan = ProfileScan::for_run(&info);
        // The heaviest CTA sizes the fit's sample (engine::SamplePlan).
        let spans = &scan.kernel_spans;
        let heaviest = ctas.iter().map(|c| spans.sample_clocks(c)).max();
        let plan = SamplePlan::new(
            ctas.len() as u64,
            spans.units_per_block,
            heaviest.unwrap_or(0),
        );
        scan.kernel_spans.plan_samples(plan);
        for c in &ctas {
            scan.observe(c);
        }
        Self::from_source(info, opts, &scan, ctas.into_iter().map(Ok))
    }

    /// Replay a stream of CTAs that `scan` describes (see [`ProfileScan`]).
    pub fn from_source(
        info: RunInfo,
        opts: &ReplayOptions,
        scan: &ProfileScan,
        ctas: impl Iterator<Item = Result<CtaTrace, ReplayError>>,
    ) -> Result<Profile, ReplayError> {
        let mut r = Replayer::new(&info, opts, scan)?;
        let mut kept = Vec::new();
        for cta in ctas {
            kept.push(r.push_cta(&cta?).cta.clone());
        }
        let regions = r.regions().clone();
        let report = r.finish();
        Ok(Profile {
            info,
            options: opts.clone(),
            regions,
            ctas: kept,
            report,
        })
    }

    pub fn info(&self) -> &RunInfo {
        &self.info
    }

    pub fn options(&self) -> &ReplayOptions {
        &self.options
    }

    pub fn report(&self) -> &ReplayReport {
        &self.report
    }

    pub fn regions(&self) -> &RegionTable {
        &self.regions
    }

    /// The replayed CTAs, in the order they were read.
    pub fn ctas(&self) -> &[CtaReplay] {
        &self.ctas
    }

    /// Statistics of the region named `name`.
    pub fn region_by_name(&self, name: &str) -> Option<&RegionStats> {
        self.report.regions.iter().find(|r| r.name == name)
    }

    /// Statistics of region `id`.
    pub fn region(&self, id: RegionId) -> Option<&RegionStats> {
        self.report.regions.iter().find(|r| r.id == id)
    }

    /// Every instance of `region`, CTA by CTA, unit by unit, in start order.
    pub fn instances(&self, region: RegionId) -> impl Iterator<Item = &RegionInstance> + '_ {
        self.ctas
            .iter()
            .flat_map(|c| c.instances())
            .filter(move |i| i.region == region)
    }

    /// The full critical path of the CTA with linear id `cta`.
    pub fn critical_path(&self, cta: u32) -> Option<CriticalPath> {
        self.ctas
            .iter()
            .find(|c| c.cta_id == cta)
            .and_then(critical_path)
    }

    /// Overlap of `a` (in one unit) with `b` (in another unit of the same
    /// CTA); zero when they never overlap, `None` for an unknown region.
    pub fn overlap(&self, a: RegionId, b: RegionId) -> Option<OverlapStats> {
        let (ra, rb) = (self.region(a)?, self.region(b)?);
        Some(
            self.report
                .overlaps
                .iter()
                .find(|o| o.first == a && o.second == b)
                .cloned()
                .unwrap_or(OverlapStats {
                    first: a,
                    first_name: ra.name.clone(),
                    second: b,
                    second_name: rb.name.clone(),
                    overlap_ns: 0.0,
                    first_ns: ra.covered_ns,
                    fraction_of_first: 0.0,
                }),
        )
    }

    pub fn feedback(&self) -> Feedback {
        self.report.feedback()
    }

    pub fn feedback_json(&self) -> Result<String, ReplayError> {
        self.report.feedback_json()
    }

    /// Write the Chrome trace of the whole profile.
    pub fn write_chrome_trace(
        &self,
        path: &Path,
        grouping: TraceGrouping,
    ) -> Result<(), ReplayError> {
        self.write_trace(path, TraceFormat::Chrome, grouping)
    }

    /// Write the trace of the whole profile in `format` (the file is
    /// written in place; callers that need atomic replacement write to a
    /// temporary, as the CLI does).
    pub fn write_trace(
        &self,
        path: &Path,
        format: TraceFormat,
        grouping: TraceGrouping,
    ) -> Result<(), ReplayError> {
        let mut w = TraceSink::create(path, format, &self.info, grouping)?;
        for c in &self.ctas {
            w.write_cta(c, &self.regions)?;
        }
        w.finish(Some(&self.report))
    }
}
