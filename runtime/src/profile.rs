//! The decoded profile: what the decoder produces and replay consumes.
//!
//! Records are decoded one CTA at a time ([`crate::decode::ProfileReader`]
//! yields [`CtaTrace`]s lazily from a memory map), so a replay over a huge
//! profile holds one CTA's records at a time.

use kperf_dialects::abi::{ClockDomain, Counter, Edge, RegionId, Strategy};
use kperf_dialects::meta::{Granularity, InstrumentMeta};
use serde::{Deserialize, Serialize};

/// Where a profile came from and how to read its clocks. Stored as JSON in
/// the `.kprof` header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// `host`, `nvptx:sm_90a`, ... or `proton:cuda` / `proton:hip` for imports.
    pub target: String,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub counter: Counter,
    pub clock_domain: ClockDomain,
    pub granularity: Granularity,
    pub strategy: Strategy,
    /// Nominal counter ticks per nanosecond, when known from a calibration
    /// (replay prefers the per-CTA rate measured from header timestamps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticks_per_ns: Option<f64>,
    /// Calibrated cost of one record in counter ticks, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_cost_ticks: Option<f64>,
    /// A record's cost right after another record, when calibrated apart
    /// (replay uses it where nothing else separates two records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_cost_back_to_back_ticks: Option<f64>,
    /// Where `record_cost_ticks` came from, for the report ("calibrated on
    /// the fly", "device.json", "Proton's own time shift").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_cost_origin: Option<String>,
    /// The same launch run uninstrumented (`kperf run --check`): the truth
    /// replay compares the corrected kernel region with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<UninstrumentedRun>,
    /// The instrumentation metadata (region names, layout). Imports without
    /// one get synthetic region names (`scope_<id>`).
    pub meta: InstrumentMeta,
}

/// Most ticks a record can plausibly cost (a clock read and a store); the
/// same bound `--record-cost` has.
pub const MAX_RECORD_COST_TICKS: f64 = 1e6;
/// Longest launch a header may claim: a day, in ns.
const MAX_LAUNCH_NS: u64 = 86_400_000_000_000;

impl RunInfo {
    /// Fields of the header that contradict each other, named: the
    /// counter, clock domain, granularity and strategy are the metadata's
    /// whenever kperf writes a profile (a clock64 run said to count
    /// nanoseconds replayed every duration at the wrong rate, with no
    /// caveat). Such a header is refused.
    pub fn inconsistent_field(&self) -> Option<String> {
        if self.clock_domain != self.counter.clock_domain() {
            return Some(format!(
                "clock_domain {:?} disagrees with counter {} (which counts {:?})",
                self.clock_domain,
                self.counter.name(),
                self.counter.clock_domain()
            ));
        }
        if !self.meta.kernels.is_empty()
            && (self.meta.counter != self.counter
                || self.meta.granularity != self.granularity
                || self.meta.strategy != self.strategy)
        {
            return Some(format!(
                "counter/granularity/strategy {}/{}/{} disagree with the metadata's {}/{}/{}",
                self.counter.name(),
                self.granularity.name(),
                self.strategy.name(),
                self.meta.counter.name(),
                self.meta.granularity.name(),
                self.meta.strategy.name()
            ));
        }
        None
    }

    /// This header without the figures no run can have produced, and a
    /// note naming each one dropped: used as given, a record cost of 1e7
    /// ticks made every duration 0, and a wall time of 2^64 - 1 read as
    /// +27154719533812464% of overhead (a header edited or corrupted by
    /// hand). The records stay readable: replay goes on without them.
    /// What is wrong with the launch's block, if it cannot be the block
    /// that wrote the profile: a zero dimension, or fewer units than the
    /// rings the metadata laid out for every unit (a corrupt `.kprof`
    /// showed block [0, 1, 1] without a word). Replay needs the block for
    /// nothing but the report.
    fn block_disagreement(&self) -> Option<String> {
        let [x, y, z] = self.block;
        let threads = u64::from(x) * u64::from(y) * u64::from(z);
        if threads == 0 {
            return Some(format!(
                "the profile's block {:?} has a zero dimension: no launch's block (corrupt metadata?)",
                self.block
            ));
        }
        let kernel = self.meta.kernel(&self.kernel)?;
        let units = self
            .granularity
            .units_per_cta(u32::try_from(threads).unwrap_or(u32::MAX));
        (kernel.sampled_units.is_empty() && units < kernel.layout.units).then(|| {
            format!(
                "the profile's block {:?} has {units} {} unit(s), but the metadata lays out rings \
                 for {}: block or metadata is corrupt",
                self.block,
                self.granularity.name(),
                kernel.layout.units
            )
        })
    }

    pub fn plausible_figures(&self) -> (RunInfo, Vec<String>) {
        let mut info = self.clone();
        let mut notes = Vec::new();
        let cost_ok = |c: &f64| (0.0..=MAX_RECORD_COST_TICKS).contains(c);
        for (name, v) in [
            ("record_cost_ticks", &mut info.record_cost_ticks),
            (
                "record_cost_back_to_back_ticks",
                &mut info.record_cost_back_to_back_ticks,
            ),
        ] {
            if let Some(c) = v.filter(|c| !cost_ok(c)) {
                notes.push(format!(
                    "the profile's {name} = {c:e} is no record's cost (0 to \
                     {MAX_RECORD_COST_TICKS:e} ticks): it is ignored"
                ));
                *v = None;
            }
        }
        if let Some(note) = info.block_disagreement() {
            notes.push(note);
        }
        if let Some(check) = &info.check {
            let bad_time =
                |v: Option<f64>| v.filter(|t| !(t.is_finite() && *t >= 1.0 && *t < 1e18));
            let bad_wall = |v: Option<u64>| v.filter(|t| *t > MAX_LAUNCH_NS);
            let bad = bad_time(check.cta_mean_ticks)
                .map(|t| format!("check.cta_mean_ticks = {t:e}"))
                .or_else(|| {
                    bad_time(check.cta_median_ticks)
                        .map(|t| format!("check.cta_median_ticks = {t:e}"))
                })
                .or_else(|| bad_wall(Some(check.wall_ns)).map(|t| format!("check.wall_ns = {t}")))
                // A per-CTA mean over no CTA: a cost was fitted to it
                // ("+200% off"). A check of the launch's wall time alone
                // (CUDA, SIMT) has no CTAs and no mean.
                .or_else(|| {
                    (check.ctas == 0 && check.cta_mean_ticks.is_some())
                        .then(|| "check.ctas = 0 beside a per-CTA mean".to_string())
                })
                .or_else(|| {
                    bad_wall(check.profiled_wall_ns)
                        .map(|t| format!("check.profiled_wall_ns = {t}"))
                });
            if let Some(what) = bad {
                notes.push(format!(
                    "the profile's uninstrumented check holds {what}, which no run measures: the \
                     check is ignored"
                ));
                info.check = None;
            }
        }
        (info, notes)
    }

    /// The header of a run of one instrumented kernel: counter, granularity
    /// and strategy come from the instrumentation metadata, which keeps only
    /// that kernel. Calibration fields start empty.
    pub fn for_kernel(
        meta: &InstrumentMeta,
        kernel: kperf_dialects::meta::KernelMeta,
        grid: [u32; 3],
        block: [u32; 3],
    ) -> RunInfo {
        RunInfo {
            target: meta.target.clone(),
            kernel: kernel.name.clone(),
            grid,
            block,
            counter: meta.counter,
            clock_domain: meta.counter.clock_domain(),
            granularity: meta.granularity,
            strategy: meta.strategy,
            ticks_per_ns: None,
            record_cost_ticks: None,
            record_cost_back_to_back_ticks: None,
            record_cost_origin: None,
            check: None,
            meta: InstrumentMeta {
                kernels: vec![kernel],
                ..meta.clone()
            },
        }
    }
}

/// An uninstrumented run of the same launch, the truth for a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UninstrumentedRun {
    /// Kernel-region instances timed: CTAs on the host, units on a GPU.
    pub ctas: u64,
    /// Mean and median time of one kernel-region instance, in the
    /// profile's counter ticks. Host: the launcher reads the same counter
    /// around each CTA's call. GPU, where nothing outside a CTA can time
    /// it: each unit's kernel region in a build of the kernel region alone
    /// (no record between its START and END), corrected as replay corrects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cta_mean_ticks: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cta_median_ticks: Option<f64>,
    /// Wall time of the whole launch, ns.
    pub wall_ns: u64,
    /// The profiled launch timed the same way as `wall_ns` (device events
    /// on a GPU), for the run-time overhead of instrumentation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiled_wall_ns: Option<u64>,
    /// How it was timed, for people reading the report.
    pub method: String,
}

/// One record after decoding: clock unwrapped to the full width.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub region: RegionId,
    pub edge: Edge,
    /// Counter value, unwrapped and extended to 64 bits; monotone within a unit.
    pub clock: u64,
}

/// One unit's (thread, warp, warp group or CTA) surviving records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitTrace {
    pub unit_id: u32,
    /// Records the unit wrote in total, including overwritten or dropped ones.
    pub records_written: u64,
    /// Records lost: overwritten by the ring (circular) or dropped once the
    /// global segment was full (flush).
    pub records_lost: u64,
    /// Surviving records in chronological order (oldest first).
    pub records: Vec<Record>,
}

/// One CTA's header and units. `Default` gives an empty trace to decode
/// into with [`crate::decode::ProfileReader::read_cta_into`], which reuses
/// its vectors from one CTA to the next.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CtaTrace {
    /// Index of the block in the buffer (differs from `cta_id` under sampling).
    pub block_index: u64,
    pub cta_id: u32,
    /// SM (NVIDIA), CU (AMD) or CPU (host).
    pub hw_id: u32,
    /// Global timer at init / finalize start / finalize end, in ns.
    pub start_time_ns: u64,
    pub finalize_start_ns: u64,
    pub finalize_end_ns: u64,
    /// Counter at init and at finalize start (full width, same domain as records).
    pub start_clock: u64,
    pub finalize_clock: u64,
    pub units: Vec<UnitTrace>,
}

impl CtaTrace {
    /// The earliest of its units' first records' clocks: a unit may record
    /// before thread 0's init stamps.
    pub fn earliest_first_clock(&self) -> Option<u64> {
        self.units
            .iter()
            .filter_map(|u| u.records.first().map(|r| r.clock))
            .min()
    }

    /// Counter ticks per nanosecond measured over this CTA's lifetime, if
    /// the header carries usable timestamps.
    pub fn measured_ticks_per_ns(&self) -> Option<f64> {
        let (dc, dt) = self.clock_spans().filter(|&(_, dt)| dt > 0)?;
        Some(dc as f64 / dt as f64)
    }

    /// The clock span and global-timer span (ns) between init and
    /// finalize, when the clock moved forward and the timer did not go
    /// back (the timer span may be 0: a CTA shorter than its resolution).
    pub fn clock_spans(&self) -> Option<(u64, u64)> {
        crate::decode::spans(
            self.start_clock,
            self.finalize_clock,
            self.start_time_ns,
            self.finalize_start_ns,
        )
    }
}

/// CTAs in a grid, `None` when the count does not fit in 64 bits (three
/// dimensions of 2^32 - 1 do not).
pub fn checked_ctas(grid: &[u32]) -> Option<u64> {
    grid.iter()
        .try_fold(1u64, |n, &g| n.checked_mul(u64::from(g)))
}
