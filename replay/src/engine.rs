//! The streaming replay driver.

use std::path::Path;

use kperf_dialects::abi::{ClockDomain, Edge, RegionId};
use kperf_dialects::meta::RegionKind;
use kperf_runtime::profile::{CtaTrace, RunInfo, UnitTrace};
use kperf_runtime::BlockHead;

use crate::analyze::{Accumulator, FinishContext, ReplayReport};
use crate::correct::{calibrated_cost, cost_after_gap, Correction, CostSource};
use crate::pair::{replay_cta, CtaReplay, PairScratch};
use crate::regions::RegionTable;
use crate::time::CtaClock;
use crate::trace::TraceSink;
use crate::{ReplayError, ReplayOptions};

/// What a replay must know before its first CTA: the time-axis zero and,
/// for the min-gap cost estimate, the smallest gap between consecutive
/// records, and the kernel region's raw spans for fitting the record cost to
/// an uninstrumented run. Gathered by a cheap first pass over the CTAs
/// ([`ProfileScan::observe`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileScan {
    pub ctas: u64,
    pub records: u64,
    /// Earliest CTA start (global timer, ns): the axis zero, unless a CTA's
    /// records come before it ([`ProfileScan::axis_origin_ns`]).
    pub time_origin_ns: Option<u64>,
    /// The CTAs whose first record may come before `time_origin_ns`
    /// ([`EarlyCta`]); where each lands takes the launch's rate, known
    /// when the scan ends.
    pub may_start_early: Vec<EarlyCta>,
    /// `may_start_early`'s length after its last pruning.
    pub pruned_len: usize,
    /// Smallest clock difference between consecutive records of any unit.
    pub min_gap_ticks: Option<u64>,
    /// Blocks skipped because their finalize never finished (see
    /// `kperf_runtime::BlockRead::Unfinished`), and the first of them.
    pub unfinished_blocks: u64,
    pub first_unfinished: Option<u64>,
    /// Blocks skipped because they failed the decoder's checks (a corrupt
    /// header or unit table), and the first one's error.
    pub bad_blocks: u64,
    pub first_bad: Option<String>,
    /// Blocks the kernel never wrote (all zero header: the CTA did not run
    /// or did not reach finalize).
    pub unwritten_blocks: u64,
    /// The kernel region of every unit, when [`ProfileScan::for_run`] named it.
    pub kernel_spans: KernelSpans,
    /// Every region id the records name, in the order they first do.
    pub regions: RegionsSeen,
    /// Whether the scan read the records or only the blocks' headers.
    pub depth: ScanDepth,
    /// Clock ticks and global-timer ns between init and finalize of the
    /// CTAs shorter than [`LONG_CTA_NS`] (whose own quotients the timer's
    /// resolution decides), summed; and each longer CTA's (id, ticks, ns),
    /// whose own rates can be compared: the launch's rate is pooled from
    /// both, less the long CTAs that disagree with the others.
    pub clock_ticks: f64,
    pub clock_ns: f64,
    pub long_ctas: Vec<(u32, u64, u64)>,
}

/// A CTA whose global-timer span is at least this long measures its own
/// clock rate within 10% whatever the timer's resolution (a microsecond
/// on NVIDIA by default).
pub const LONG_CTA_NS: u64 = 10_000;

/// The launch's clock rate and the long CTAs left out of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchRate {
    pub ticks_per_ns: Option<f64>,
    /// Long CTAs whose own rate is more than 1.5x off the long CTAs'
    /// median, and the first one's id.
    pub outliers: u64,
    pub first_outlier: Option<u32>,
}

/// How much of each block a scan reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScanDepth {
    /// Every record: the smallest record gap, the kernel region's spans and
    /// the region ids are known before the replay.
    #[default]
    Records,
    /// Headers and unit tables only (and each unit's oldest record, for
    /// the axis zero; a CTA placed by its finalize stamp is decoded
    /// whole), where the correction needs nothing of
    /// the records ahead ([`Correction::needs_record_scan`]): the replay
    /// decodes each block once, gathers the smallest record gap as it goes,
    /// and relies on the metadata's region table (a block that names
    /// another region stops it with [`ReplayError::Changed`], and the
    /// caller scans the records instead).
    Headers,
}

/// Region ids in the order the records first name them (block order, then
/// unit and record order): the order the replay enters ids the metadata
/// lacks into its table, so the scan's list fills the table ahead and the
/// CTAs replay without a serial pass over their records.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegionsSeen {
    pub order: Vec<RegionId>,
    /// One bit per id in `order`.
    seen: Vec<u64>,
}

impl RegionsSeen {
    fn note(&mut self, id: RegionId) {
        let (word, bit) = (usize::from(id.0) / 64, id.0 % 64);
        if word >= self.seen.len() {
            self.seen.resize(word + 1, 0);
        }
        if self.seen[word] >> bit & 1 == 0 {
            self.seen[word] |= 1 << bit;
            self.order.push(id);
        }
    }

    /// Fold in the ids of later blocks.
    fn merge(&mut self, later: &RegionsSeen) {
        for &id in &later.order {
            self.note(id);
        }
    }
}

/// Sums over the units whose kernel region survived whole: what the record
/// cost must be for the corrected kernel region to match an uninstrumented
/// run ([`crate::correct::CostFit`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelSpans {
    /// The kernel region's id (none: spans are not gathered).
    pub region: Option<RegionId>,
    /// The calibrated costs, to say what the calibration subtracts from the
    /// kernel region: in-context and back to back (see
    /// [`crate::correct::cost_after_gap`]).
    pub calibrated: Option<(f64, Option<f64>)>,
    pub units: u64,
    /// Σ (END − START) clock, ticks.
    pub raw_ticks: f64,
    /// Σ records from START (excluded) to END (included): the records whose
    /// cost the cumulative correction takes off the region.
    pub records: f64,
    /// Σ the kernel region corrected with the calibrated costs, as the
    /// replay corrects it (a record never moves before its predecessor).
    pub calibrated_corrected: f64,
    /// The record clocks (START..=END) of a sample of the units' kernel
    /// regions, spread over the grid ([`SamplePlan`]): the fit replays
    /// them, because the correction never moves a record before the one
    /// preceding it, and where records sit closer than their cost that
    /// clamp keeps more of the region than the sums above say
    /// ([`crate::correct::CostFit`]).
    pub samples: Vec<Vec<u64>>,
    /// Clocks the block being scanned may still add to the samples.
    pub sample_room: usize,
    /// Clocks the samples hold.
    pub kept_clocks: usize,
    /// The kernel region of every unit of the blocks [`SamplePlan`] names
    /// for the median, corrected with the calibrated cost, and the records
    /// after its START (what another cost would shift): the stall guard's
    /// median (one pair a unit, so heavy units count however many records
    /// they hold).
    pub calibrated_spans: Vec<(f64, f64)>,
    /// Whether the block being scanned gives its units to
    /// `calibrated_spans`.
    pub median_block: bool,
    /// Which blocks are sampled, and how much of each; set from the first
    /// block the scan sees unless the scan was given one
    /// ([`KernelSpans::plan_samples`]).
    pub plan: Option<SamplePlan>,
    /// The blocks the scan expects, to spread the samples over, when no
    /// plan is given: the uninstrumented run's count (CTAs on the host,
    /// units on a GPU: an upper bound either way).
    pub expected_blocks: u64,
    /// Segments per block, from the metadata's layout.
    pub units_per_block: u32,
}

/// Record clocks the fit's samples hold at most, over the whole scan
/// (4 MiB).
pub const FIT_SAMPLE_CLOCKS: usize = 1 << 19;
/// Units whose calibrated kernel region the stall guard's median reads, at
/// most (8 MiB).
pub const MEDIAN_SAMPLE_UNITS: u64 = 1 << 20;

/// Which blocks the fit and the stall guard sample. The first units of
/// the grid alone were the sample before: on a grid whose first CTAs are
/// its light ones, the sample's median missed the check's median CTA, and
/// the stall guard found no stall where there was one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplePlan {
    /// Every `stride`-th block gives the fit up to `room` record clocks
    /// (its first units).
    pub stride: u64,
    pub room: usize,
    /// Every `median_stride`-th block gives every unit's calibrated kernel
    /// region to the stall guard's median.
    pub median_stride: u64,
}

impl SamplePlan {
    /// As many blocks as [`FIT_SAMPLE_CLOCKS`] holds at `clocks_per_block`
    /// (the most kernel-region clocks of the blocks probed), evenly spaced
    /// over `blocks`, with the budget shared equally among them: a block
    /// heavier than any probed gives its first units. For the median, as
    /// many blocks of `units_per_block` as [`MEDIAN_SAMPLE_UNITS`] holds.
    pub fn new(blocks: u64, units_per_block: u32, clocks_per_block: usize) -> SamplePlan {
        let blocks = blocks.max(1);
        // A probe without a whole kernel region says nothing of the
        // others: taken as 64 clocks (8192 blocks sampled at most).
        let fit = (FIT_SAMPLE_CLOCKS / clocks_per_block.max(64)).max(1) as u64;
        let stride = blocks.div_ceil(fit.min(blocks));
        let sampled = blocks.div_ceil(stride);
        let units = blocks.saturating_mul(u64::from(units_per_block.max(1)));
        SamplePlan {
            stride,
            room: FIT_SAMPLE_CLOCKS / sampled as usize,
            median_stride: units.div_ceil(MEDIAN_SAMPLE_UNITS).max(1),
        }
    }

    fn samples(&self, block: u64) -> bool {
        picked(block, self.stride)
    }

    fn median_samples(&self, block: u64) -> bool {
        picked(block ^ 0x5DEE_CE66_D1CE_4E5B, self.median_stride)
    }
}

/// About one block in `stride`, chosen by a hash of its index, not every
/// `stride`-th: a grid whose light CTAs are every 8th (a column of a 2-D
/// grid, the even ones) gave a stride of 8 a sample of one kind alone.
pub(crate) fn picked(block: u64, stride: u64) -> bool {
    stride <= 1 || mix64(block).is_multiple_of(stride)
}

/// SplitMix64's finalizer: a bijection of u64 that spreads every input bit.
pub(crate) fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub(crate) fn min_some<T: Ord>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The smallest clock difference between consecutive records of any of
/// `cta`'s units.
fn min_record_gap(cta: &CtaTrace) -> Option<u64> {
    cta.units
        .iter()
        .flat_map(|u| {
            u.records
                .windows(2)
                .filter_map(|w| w[1].clock.checked_sub(w[0].clock))
        })
        .min()
}

/// A CTA whose first record may come before every init stamp of the
/// launch: a unit recorded before thread 0's init stamps (warps start in no
/// fixed order; on an H200, 668 of a matmul's 1024 CTAs, by up to 696
/// ticks), or its init stamp is not believed and it is placed by its
/// finalize stamp. Its header and its earliest and latest record clocks:
/// enough for [`CtaClock::resolve`](crate::time::CtaClock::resolve) to
/// place it as the replay will.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EarlyCta {
    pub start_time_ns: u64,
    pub finalize_start_ns: u64,
    pub start_clock: u64,
    pub finalize_clock: u64,
    pub first_clock: u64,
    pub last_clock: u64,
}

impl EarlyCta {
    /// `cta`, if its first record may come before the earliest init stamp.
    pub fn of(cta: &CtaTrace) -> Option<EarlyCta> {
        let first = cta.earliest_first_clock()?;
        let last = cta
            .units
            .iter()
            .filter_map(|u| u.records.last())
            .map(|r| r.clock)
            .max()?;
        EarlyCta::from_parts(
            cta.start_time_ns,
            cta.finalize_start_ns,
            cta.start_clock,
            cta.finalize_clock,
            first,
            last,
        )
    }

    /// As [`EarlyCta::of`] from a block's header and its units' earliest
    /// first record, for a CTA placed by its init stamp (one placed by its
    /// finalize stamp needs its latest record: the scan decodes it whole).
    pub fn of_head(head: &BlockHead) -> Option<EarlyCta> {
        let first = head.earliest_first_clock?;
        EarlyCta::from_parts(
            head.start_time_ns,
            head.finalize_start_ns,
            head.start_clock,
            head.finalize_clock,
            first,
            first,
        )
        .filter(|e| !e.placed_by_finalize())
    }

    fn from_parts(
        start_time_ns: u64,
        finalize_start_ns: u64,
        start_clock: u64,
        finalize_clock: u64,
        first_clock: u64,
        last_clock: u64,
    ) -> Option<EarlyCta> {
        let e = EarlyCta {
            start_time_ns,
            finalize_start_ns,
            start_clock,
            finalize_clock,
            first_clock,
            last_clock,
        };
        (e.placed_by_finalize() || first_clock < start_clock).then_some(e)
    }

    /// Whether the CTA's init stamp is not believed (0 against an epoch
    /// timer, or after finalize): replay places it by its finalize stamp.
    pub fn placed_by_finalize(&self) -> bool {
        !crate::time::init_stamp_believed(self.start_time_ns, self.finalize_start_ns)
    }

    /// The CTA as replay sees it, reduced to one unit from its earliest
    /// to its latest record.
    fn trace(&self) -> CtaTrace {
        let record = |clock| kperf_runtime::profile::Record {
            region: RegionId(0),
            edge: Edge::Start,
            clock,
        };
        CtaTrace {
            start_time_ns: self.start_time_ns,
            finalize_start_ns: self.finalize_start_ns,
            finalize_end_ns: self.finalize_start_ns,
            start_clock: self.start_clock,
            finalize_clock: self.finalize_clock,
            units: vec![UnitTrace {
                unit_id: 0,
                records_written: 2,
                records_lost: 0,
                records: vec![record(self.first_clock), record(self.last_clock)],
            }],
            ..CtaTrace::default()
        }
    }
}

impl KernelSpans {
    /// The kernel region's record indexes (START, END) in `unit`, when it
    /// survived whole.
    fn span(&self, unit: &UnitTrace) -> Option<(usize, usize)> {
        let id = self.region?;
        let recs = &unit.records;
        let start = recs
            .iter()
            .position(|r| r.region == id && r.edge == Edge::Start)?;
        let end = recs
            .iter()
            .rposition(|r| r.region == id && r.edge == Edge::End)?;
        (end > start).then_some((start, end))
    }

    /// Sample the blocks `plan` names (a file's parallel scan sets one
    /// plan for all its chunks, so that the sample does not depend on how
    /// the blocks were split).
    pub fn plan_samples(&mut self, plan: SamplePlan) {
        self.plan = Some(plan);
    }

    /// The clocks `cta`'s kernel regions would add to the samples.
    pub fn sample_clocks(&self, cta: &CtaTrace) -> usize {
        cta.units
            .iter()
            .filter_map(|u| self.span(u))
            .map(|(s, e)| e - s + 1)
            .sum()
    }

    /// Start block `block` (its index in the file, or in the order the
    /// scan sees the CTAs): whether it is sampled, and how much of it.
    fn begin_block(&mut self, block: u64, cta: &CtaTrace) {
        if self.region.is_none() {
            return;
        }
        let plan = match self.plan {
            Some(p) => p,
            None => {
                let p = SamplePlan::new(
                    self.expected_blocks,
                    self.units_per_block,
                    self.sample_clocks(cta),
                );
                self.plan = Some(p);
                p
            }
        };
        self.sample_room = if plan.samples(block) { plan.room } else { 0 };
        self.median_block = plan.median_samples(block);
    }

    fn observe(&mut self, unit: &UnitTrace) {
        let Some((s, e)) = self.span(unit) else {
            return;
        };
        let recs = &unit.records;
        self.units += 1;
        // The plan's bound, and a hard one where the plan was made for
        // fewer blocks than came (a stream's expected count is the check's).
        if e - s < self.sample_room && self.kept_clocks + (e - s + 1) <= 2 * FIT_SAMPLE_CLOCKS {
            self.samples
                .push(recs[s..=e].iter().map(|r| r.clock).collect());
            self.sample_room -= e - s + 1;
            self.kept_clocks += e - s + 1;
        } else {
            self.sample_room = 0; // the block's first units only, in order
        }
        self.raw_ticks += recs[e].clock.saturating_sub(recs[s].clock) as f64;
        self.records += (e - s) as f64;
        // Corrected as the replay will, clamp included (without a
        // calibration: raw), every unit: the calibrated error is exact,
        // not extrapolated from a sample that a grid's layout can bias.
        let (cost, b2b) = self.calibrated.unwrap_or((0.0, None));
        let corrected =
            crate::correct::corrected_span(recs[s..=e].iter().map(|r| r.clock), |gap| {
                cost_after_gap(cost, b2b, gap)
            });
        self.calibrated_corrected += corrected;
        if self.median_block
            && self.calibrated.is_some()
            && self.calibrated_spans.len() < 2 * MEDIAN_SAMPLE_UNITS as usize
        {
            self.calibrated_spans.push((corrected, (e - s) as f64));
        }
    }
}

impl ProfileScan {
    /// A scan that also gathers the kernel region's spans of `info`'s
    /// kernel, for fitting the record cost to `info.check`.
    pub fn for_run(info: &RunInfo) -> ProfileScan {
        // As the replayer will see it (Replayer::new says what it drops).
        let (info, _) = info.plausible_figures();
        let info = &info;
        let region = RegionTable::kernel_meta(info).and_then(|k| {
            k.regions
                .iter()
                .find(|r| r.kind == RegionKind::Kernel)
                .map(|r| r.id)
        });
        let calibrated = calibrated_cost(info).map(|c| {
            let b2b = info
                .record_cost_back_to_back_ticks
                .filter(|b| b.is_finite() && *b >= 0.0);
            (c, b2b)
        });
        ProfileScan {
            kernel_spans: KernelSpans {
                region: info.check.as_ref().and(region),
                calibrated,
                expected_blocks: info.check.as_ref().map_or(1, |c| c.ctas),
                units_per_block: RegionTable::kernel_meta(info).map_or(1, |k| k.layout.units),
                ..KernelSpans::default()
            },
            ..ProfileScan::default()
        }
    }

    pub fn observe(&mut self, cta: &CtaTrace) {
        self.observe_block(self.ctas, cta);
    }

    /// [`ProfileScan::observe`] for the file's block `block`: the fit's
    /// samples are chosen by block ([`SamplePlan`]).
    pub fn observe_block(&mut self, block: u64, cta: &CtaTrace) {
        debug_assert_eq!(self.depth, ScanDepth::Records);
        self.kernel_spans.begin_block(block, cta);
        self.ctas += 1;
        self.observe_clock(cta.cta_id, cta.clock_spans());
        self.time_origin_ns = min_some(
            self.time_origin_ns,
            Some(crate::time::believable_start_ns(
                cta.start_time_ns,
                cta.finalize_start_ns,
            )),
        );
        self.note_early(EarlyCta::of(cta));
        self.min_gap_ticks = min_some(self.min_gap_ticks, min_record_gap(cta));
        for u in &cta.units {
            self.records += u.records.len() as u64;
            self.kernel_spans.observe(u);
            for r in &u.records {
                self.regions.note(r.region);
            }
        }
    }

    /// Keep `early` if it may start before the axis zero.
    pub fn note_early(&mut self, early: Option<EarlyCta>) {
        if let Some(e) = early {
            self.may_start_early.push(e);
            self.prune_early_when_grown();
        }
    }

    /// [`Self::prune_early`] once the list has doubled since the last time.
    fn prune_early_when_grown(&mut self) {
        if self.may_start_early.len() > 2 * self.pruned_len + 64 {
            self.prune_early();
        }
    }

    /// Drop the CTAs that cannot come before the axis zero: a CTA the
    /// replay places by its init stamp puts its first record at most
    /// [`crate::time::INIT_LEAD_NS`] before it (a longer lead is not
    /// believed). Those placed by their finalize stamp stay (rare: a bad
    /// stamp). Amortized: a hostile file whose every CTA shares one start
    /// stamp prunes in linear time.
    fn prune_early(&mut self) {
        if let Some(origin) = self.time_origin_ns {
            let window = crate::time::INIT_LEAD_NS as u64;
            self.may_start_early.retain(|e| {
                e.placed_by_finalize() || e.start_time_ns <= origin.saturating_add(window)
            });
        }
        self.pruned_len = self.may_start_early.len();
    }

    /// The axis zero: the earliest CTA start, or the earliest record
    /// before it, each CTA placed as the replay will place it
    /// ([`CtaClock::resolve`](crate::time::CtaClock::resolve) at the
    /// launch's rate). It was the earliest init stamp alone, so records a
    /// warp took before thread 0's stamps had negative times, which the
    /// Perfetto exporter clamped to 0.
    pub fn axis_origin_ns(
        &self,
        info: &RunInfo,
        opts: &ReplayOptions,
        correction: &Correction,
    ) -> Option<u64> {
        let origin = self.time_origin_ns?;
        let launch_rate = self.launch_rate().ticks_per_ns;
        let earliest_ns = self
            .may_start_early
            .iter()
            .filter_map(|e| {
                let cta = e.trace();
                let clock = crate::time::CtaClock::resolve(
                    &cta,
                    info,
                    opts.ticks_per_ns,
                    launch_rate,
                    origin,
                    correction,
                );
                // Its first record, uncorrected (nothing precedes it).
                let at = clock.axis_ns(e.first_clock, 0.0);
                at.is_finite().then_some(at)
            })
            .fold(0.0f64, f64::min);
        // In integer ns: an epoch-scale timer as f64 resolves 256 ns.
        Some(origin.saturating_sub((-earliest_ns).ceil() as u64))
    }

    /// A scan that reads block headers only (see [`ScanDepth::Headers`]).
    pub fn headers_only() -> ProfileScan {
        ProfileScan {
            depth: ScanDepth::Headers,
            ..ProfileScan::default()
        }
    }

    /// Count a block from its header alone ([`ScanDepth::Headers`]).
    pub fn observe_head(&mut self, head: &BlockHead) {
        debug_assert_eq!(self.depth, ScanDepth::Headers);
        self.ctas += 1;
        self.time_origin_ns = min_some(
            self.time_origin_ns,
            Some(crate::time::believable_start_ns(
                head.start_time_ns,
                head.finalize_start_ns,
            )),
        );
        self.records += head.records;
        self.observe_clock(head.cta_id, head.clock_spans());
        self.note_early(EarlyCta::of_head(head));
    }

    fn observe_clock(&mut self, cta_id: u32, spans: Option<(u64, u64)>) {
        match spans {
            Some((ticks, ns)) if ns >= LONG_CTA_NS => self.long_ctas.push((cta_id, ticks, ns)),
            // A timer span of 0 says nothing alone but counts in the pool;
            // a positive one must give a rate a counter can have.
            Some((ticks, ns))
                if ns == 0 || crate::time::plausible_rate(ticks as f64 / ns as f64) =>
            {
                self.clock_ticks += ticks as f64;
                self.clock_ns += ns as f64;
            }
            _ => {}
        }
    }

    /// The launch's clock rate (ticks per ns): the CTAs' clock spans over
    /// their global-timer spans, pooled. One CTA's own quotient is off by
    /// up to the timer's resolution over its span (NVIDIA's global timer
    /// ticks every microsecond unless a profiler raises it: a 1.5 µs CTA
    /// measures 1.5 or 3.0 ticks/ns on a 2 GHz clock, a 500 ns one 0 or 4);
    /// pooled, timer spans of 0 included, the quantization averages out.
    /// A long CTA whose own rate is more than 1.5x off the long CTAs'
    /// median (a corrupt or stale stamp: one CTA 20 ms late made every
    /// region 32x too long) is left out and counted.
    pub fn launch_rate(&self) -> LaunchRate {
        let mut rates: Vec<f64> = self
            .long_ctas
            .iter()
            .map(|&(_, t, n)| t as f64 / n as f64)
            .collect();
        let median = (!rates.is_empty()).then(|| {
            let k = rates.len() / 2;
            *rates.select_nth_unstable_by(k, f64::total_cmp).1
        });
        let (mut ticks, mut ns) = (self.clock_ticks, self.clock_ns);
        let mut out = LaunchRate::default();
        for &(id, t, n) in &self.long_ctas {
            let r = t as f64 / n as f64;
            let agrees = median.is_some_and(|m| r >= m / 1.5 && r <= m * 1.5);
            if agrees && crate::time::plausible_rate(r) {
                ticks += t as f64;
                ns += n as f64;
            } else {
                out.outliers += 1;
                out.first_outlier.get_or_insert(id);
            }
        }
        out.ticks_per_ns = (ns > 0.0)
            .then(|| ticks / ns)
            .filter(|r| crate::time::plausible_rate(*r));
        out
    }

    /// Fold in the scan of the blocks that follow this scan's (the order
    /// keeps the first unfinished and first bad block the earliest).
    pub fn merge(&mut self, later: ProfileScan) {
        self.ctas += later.ctas;
        self.records += later.records;
        self.time_origin_ns = min_some(self.time_origin_ns, later.time_origin_ns);
        self.may_start_early.extend(later.may_start_early);
        self.prune_early_when_grown();
        self.min_gap_ticks = min_some(self.min_gap_ticks, later.min_gap_ticks);
        self.unfinished_blocks += later.unfinished_blocks;
        self.first_unfinished = self.first_unfinished.or(later.first_unfinished);
        self.bad_blocks += later.bad_blocks;
        self.first_bad = self.first_bad.take().or(later.first_bad);
        self.unwritten_blocks += later.unwritten_blocks;
        self.clock_ticks += later.clock_ticks;
        self.clock_ns += later.clock_ns;
        self.long_ctas.extend(later.long_ctas);
        let (k, l) = (&mut self.kernel_spans, later.kernel_spans);
        k.units += l.units;
        k.raw_ticks += l.raw_ticks;
        k.records += l.records;
        k.calibrated_corrected += l.calibrated_corrected;
        // Merged in block order, as the chunks were split (scan_reader).
        k.samples.extend(l.samples);
        k.kept_clocks += l.kept_clocks;
        k.calibrated_spans.extend(l.calibrated_spans);
        self.regions.merge(&later.regions);
    }

    /// Count a block that was skipped as unfinished.
    pub fn observe_unfinished(&mut self, block_index: u64) {
        self.unfinished_blocks += 1;
        self.first_unfinished.get_or_insert(block_index);
    }

    /// Count a block the kernel never wrote.
    pub fn observe_unwritten(&mut self) {
        self.unwritten_blocks += 1;
    }

    /// Count a block that failed the decoder's checks; the others still
    /// replay.
    pub fn observe_bad(&mut self, error: &dyn std::fmt::Display) {
        self.bad_blocks += 1;
        self.first_bad.get_or_insert_with(|| error.to_string());
    }

    /// The report's caveats for the blocks left out, if there were any.
    pub fn skipped_caveats(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(first) = &self.first_bad {
            out.push(format!(
                "{} CTA block(s) failed their checks and were left out; the first: {first}",
                self.bad_blocks
            ));
        }
        out.extend(self.unfinished_caveat());
        let rate = self.launch_rate();
        if let Some(first) = rate.first_outlier {
            out.push(format!(
                "{} CTA(s) measured a clock rate (clock span over global-timer span) more than \
                 1.5x off the other long CTAs' (first: CTA {first}; a stale or corrupt timer \
                 stamp?): left out of the launch's rate",
                rate.outliers
            ));
        }
        if self.unwritten_blocks > 0 {
            out.push(if self.ctas == 0 && self.bad_blocks == 0 && self.unfinished_blocks == 0 {
                format!(
                    "none of the {} CTA block(s) was written: the kernel did not run (or no CTA \
                     reached its finalize), or this is not the buffer it wrote; nothing was measured",
                    self.unwritten_blocks
                )
            } else {
                format!(
                    "{} CTA block(s) were never written (their CTAs did not run or did not reach \
                     finalize) and are left out",
                    self.unwritten_blocks
                )
            });
        }
        out
    }

    fn unfinished_caveat(&self) -> Option<String> {
        let first = self.first_unfinished?;
        Some(format!(
            "{} CTA block(s) left out, the first at block index {first}: their finalize never \
             finished (units = 0 in the header: the kernel aborted, or a CTA left by a path \
             without finalize), so their rings may be half-copied",
            self.unfinished_blocks
        ))
    }
}

/// A replayed CTA together with the region table that names its regions.
pub struct CtaView<'a> {
    pub cta: &'a CtaReplay,
    pub regions: &'a RegionTable,
}

/// Streaming replay: push CTAs one at a time, then [`Replayer::finish`].
///
/// Memory: the region table, running statistics (one f64 per region
/// instance for percentiles, a few numbers per CTA) and the current CTA.
pub struct Replayer {
    info: RunInfo,
    opts: ReplayOptions,
    table: RegionTable,
    correction: Correction,
    t0: Option<u64>,
    /// The launch's measured clock rate ([`ProfileScan::launch_rate`]).
    launch_rate: Option<f64>,
    /// The scan read headers only: the smallest record gap is gathered
    /// during the replay.
    gathers_min_gap: bool,
    early_ctas: u64,
    skipped_caveats: Vec<String>,
    acc: Accumulator,
    scratch: PairScratch,
    current: Option<CtaReplay>,
}

impl Replayer {
    /// `scan` should cover all CTAs that will be pushed; with a default scan
    /// the first CTA's start is the axis zero and no cost can be estimated.
    pub fn new(
        info: &RunInfo,
        opts: &ReplayOptions,
        scan: &ProfileScan,
    ) -> Result<Replayer, ReplayError> {
        opts.validate()?;
        let mut table = RegionTable::from_info(info);
        // In the order `prepare` would meet them, so that replay_blocks,
        // which skips it, builds the same table.
        for &id in &scan.regions.order {
            table.ensure(id);
        }
        let (mut info, dropped) = info.plausible_figures();
        table.notes.extend(dropped);
        if let Some(rate) = info
            .ticks_per_ns
            .filter(|r| !crate::time::plausible_rate(*r))
        {
            table.notes.push(format!(
                "the profile's nominal clock rate, {rate:e} ticks per ns, is not one a counter \
                 can have (1 MHz to 100 GHz): it is ignored"
            ));
            info.ticks_per_ns = None;
        }
        let correction = Correction::resolve(&info, opts, scan);
        let t0 = scan.axis_origin_ns(&info, opts, &correction);
        Ok(Replayer {
            correction,
            table,
            info,
            opts: opts.clone(),
            t0,
            launch_rate: scan.launch_rate().ticks_per_ns,
            gathers_min_gap: scan.depth == ScanDepth::Headers,
            early_ctas: 0,
            skipped_caveats: scan.skipped_caveats(),
            acc: Accumulator::default(),
            scratch: PairScratch::default(),
            current: None,
        })
    }

    pub fn regions(&self) -> &RegionTable {
        &self.table
    }

    pub fn correction(&self) -> &Correction {
        &self.correction
    }

    pub fn info(&self) -> &RunInfo {
        &self.info
    }

    /// Replay one CTA and fold it into the statistics; the returned view
    /// lives until the next push (write its trace events from it).
    pub fn push_cta(&mut self, cta: &CtaTrace) -> CtaView<'_> {
        self.prepare(cta);
        let mut scratch = std::mem::take(&mut self.scratch);
        let (replayed, acc) = self.replay_one(cta, &mut scratch);
        self.scratch = scratch;
        self.acc.merge(acc);
        let cta = self.current.insert(replayed);
        CtaView {
            cta,
            regions: &self.table,
        }
    }

    /// What must happen in block order before a CTA replays: its region ids
    /// enter the table, and the axis zero is fixed.
    fn prepare(&mut self, cta: &CtaTrace) {
        for u in &cta.units {
            for r in &u.records {
                if self.table.index_of(r.region).is_none() {
                    self.table.ensure(r.region);
                }
            }
        }
        let start = crate::time::believable_start_ns(cta.start_time_ns, cta.finalize_start_ns);
        let t0 = *self.t0.get_or_insert(start);
        if start < t0 {
            self.early_ctas += 1;
        }
    }

    /// Whether every region `cta`'s records name is in the table.
    fn knows_regions_of(&self, cta: &CtaTrace) -> bool {
        cta.units.iter().all(|u| {
            u.records
                .iter()
                .all(|r| self.table.index_of(r.region).is_some())
        })
    }

    /// Replay a CTA whose regions are in the table ([`prepare`](Self::prepare),
    /// or the scan's list in `replay_blocks`) and gather its statistics
    /// on their own, to be merged in block order: this is the part that runs
    /// in parallel.
    fn replay_one(&self, cta: &CtaTrace, scratch: &mut PairScratch) -> (CtaReplay, Accumulator) {
        let t0 = self.t0.unwrap_or(cta.start_time_ns);
        let clock = CtaClock::resolve(
            cta,
            &self.info,
            self.opts.ticks_per_ns,
            self.launch_rate,
            t0,
            &self.correction,
        );
        let mut acc = Accumulator::default();
        if self.gathers_min_gap {
            acc.min_record_gap = min_record_gap(cta);
        }
        acc.add_clock(&clock, cta.cta_id);
        let launch_ns = self.info.check.as_ref().and_then(|c| c.profiled_wall_ns);
        acc.check_clocks(cta, self.info.counter, launch_ns);
        let replayed = replay_cta(
            cta,
            &self.table,
            &clock,
            &self.correction,
            self.info.strategy,
            scratch,
        );
        acc.add_cta(&replayed, &self.table);
        (replayed, acc)
    }

    /// The report over every CTA pushed.
    pub fn finish(mut self) -> ReplayReport {
        if self.gathers_min_gap {
            self.correction.min_gap_ticks = self.acc.min_record_gap;
        }
        let mut corrections_applied = self.correction.describe(self.info.strategy);
        let has_waits = (0..self.table.len()).any(|i| self.table.wait_issue(i).is_some());
        if has_waits {
            corrections_applied.push(
                "async waits measured as CLK2 - CLK1 (START before the issue to START after the \
                 wait), minus the cost of the records between; exposed wait = CLK2 - END(issue)"
                    .into(),
            );
        }
        corrections_applied.push(
            "CTAs aligned on a common axis: global-timer start minus the earliest CTA start".into(),
        );
        let mut caveats = self.table.notes.clone();
        match self.correction.source {
            CostSource::EstimatedMinGap => {
                caveats.push(format!(
                    "no calibrated record cost: durations are raw and include each record's own \
                     cost (at most {} ticks, the smallest gap between consecutive records); \
                     calibrate (kperf calibrate) or give --record-cost",
                    self.correction.min_gap_ticks.unwrap_or(0)
                ));
                if self.info.clock_domain == ClockDomain::Nanoseconds {
                    caveats.push(
                        "with a nanosecond timer the minimum record gap reflects the timer's \
                         resolution more than the record cost"
                            .into(),
                    );
                }
            }
            CostSource::Unknown => caveats.push(
                "overhead correction wanted but no record cost is known or estimable: \
                 durations are raw"
                    .into(),
            ),
            _ => {}
        }
        caveats.extend(self.skipped_caveats);
        if self.info.meta.target == "simt" {
            caveats.push(
                "recorded on the SIMT target, which runs each GPU thread as an OS thread: its \
                 times are the CPU's and the scheduler's, not a GPU's (a debugging target, not \
                 a timing model)"
                    .into(),
            );
        }
        if self.early_ctas > 0 {
            caveats.push(format!(
                "{} CTAs started before the first CTA replayed (no scan pass): they have \
                 negative times",
                self.early_ctas
            ));
        }
        let mut report = self.acc.finish(FinishContext {
            info: &self.info,
            table: &self.table,
            correction: &self.correction,
            corrections_applied,
            caveats,
            override_rate: self.opts.ticks_per_ns,
        });
        if let Some(run) = &self.info.check {
            report.check = crate::analyze::CheckReport::compare(&report, run);
            report.run_time = crate::analyze::RunTimeReport::compare(run);
            let check_error = report.check.as_ref().map(|c| c.error);
            if let Some(f) = self
                .correction
                .fit
                .as_ref()
                .filter(|f| f.applied && !f.resolved)
            {
                report.caveats.push(below_resolution_caveat(f, check_error));
            }
            if let Some(f) = self.correction.fit.as_ref().filter(|f| {
                !f.plausible
                    && f.same_instances()
                    && f.calibrated_error.abs() > crate::analyze::CHECK_TOLERANCE
            }) {
                report
                    .caveats
                    .push(implausible_fit_caveat(f, self.correction.cost_ticks));
            }
            if let Some(f) = self.correction.fit.as_ref().filter(|f| {
                f.same_instances()
                    && !f.slower_than_truth()
                    && f.calibrated_error.abs() > crate::analyze::CHECK_TOLERANCE
            }) {
                report.caveats.push(faster_than_truth_caveat(f));
            }
            match &report.check {
                Some(c) if !c.same_instances() => {
                    let instance = report.kernel_region_instance();
                    report.caveats.push(different_instances_caveat(c, instance))
                }
                Some(c) if c.fitted && c.error.abs() <= crate::analyze::CHECK_TOLERANCE => {
                    report.caveats.push(format!(
                    "the calibrated record cost put the `{}` region {:+.1}% off the same launch \
                     run uninstrumented, so the cost was fitted to that run ({} ticks per record): \
                     the kernel region matches by construction, and regions inside it are \
                     corrected with this kernel's mean record cost, which is exact only on \
                     average (--no-fit keeps the calibration)",
                    c.region,
                    100.0 * c.calibrated_error.unwrap_or(f64::NAN),
                    crate::correct::fmt_ticks(self.correction.cost_ticks)
                ))
                }
                Some(c)
                    if c.error.abs() > crate::analyze::CHECK_TOLERANCE
                        && !self.correction.kernel_below_resolution()
                        && c.median_agrees() =>
                {
                    report.caveats.push(stalled_instances_caveat(c, &report))
                }
                Some(c)
                    if c.error.abs() > crate::analyze::CHECK_TOLERANCE
                        && !self.correction.kernel_below_resolution() =>
                {
                    report.caveats.push(format!(
                        "the {} `{}` region is {:+.1}% off the same launch run uninstrumented \
                         ({:.0} vs {:.0} ticks per instance{}): its figures are off by about as \
                         much",
                        // --no-correction: the figure is the raw one.
                        if self.correction.source == crate::correct::CostSource::Disabled {
                            "uncorrected"
                        } else {
                            "corrected"
                        },
                        c.region,
                        100.0 * c.error,
                        c.measured_ticks,
                        c.truth_ticks,
                        // A fit that matches on the samples can miss over
                        // all units: say it was made.
                        if c.cost_fitted {
                            format!(
                                ", with the record cost fitted to that run: {} ticks",
                                crate::correct::fmt_ticks(self.correction.cost_ticks)
                            )
                        } else {
                            String::new()
                        }
                    ))
                }
                Some(_) => {}
                // A device check of a profile whose only region is the
                // kernel times the launches alone (the profile is its own
                // truth): nothing to compare, nothing lost.
                None if run.cta_mean_ticks.is_none() => {}
                None if report.regions.iter().any(|r| r.kind == RegionKind::Kernel) => {
                    report.caveats.push(
                        "an uninstrumented run was timed, but the kernel region has no complete \
                         instance to compare with it (its START or END was lost: the rings \
                         wrapped, see the lost records; raise --slots)"
                            .into(),
                    )
                }
                None => report.caveats.push(
                    "an uninstrumented run was timed, but the profile has no kernel region to \
                     compare with it (add --regions kernel)"
                        .into(),
                ),
            }
        }
        report
    }
}

/// Replay CTAs from any source, streaming, optionally writing a trace.
///
/// `source` is called twice: a first pass gathers the [`ProfileScan`] (axis
/// zero, record-gap estimate), the second replays. Each pass holds one CTA
/// at a time.
pub fn replay_ctas<F, I>(
    info: &RunInfo,
    opts: &ReplayOptions,
    mut source: F,
    trace_out: Option<&Path>,
) -> Result<ReplayReport, ReplayError>
where
    F: FnMut() -> Result<I, ReplayError>,
    I: Iterator<Item = Result<CtaTrace, ReplayError>>,
{
    opts.validate()?;
    let mut scan = ProfileScan::for_run(info);
    for cta in source()? {
        scan.observe(&cta?);
    }
    replay_with_scan(info, opts, &scan, source()?, trace_out)
}

/// CTAs replayed per batch and thread: a batch is decoded, replayed and
/// analysed in parallel while the previous one's trace is written, so memory
/// holds three batches' worth at most (the decoded and the replayed batch,
/// and the one being written, with its layouts and, for Perfetto, its
/// encoded packets; about 1 MB per CTA of 10k records).
const BATCH_PER_THREAD: usize = 4;

/// The replay pass over the blocks `0..blocks` of a profile, in parallel:
/// `decode` gives a block's CTA (`None`: left out, as the scan counted).
/// Batches of CTAs are decoded and replayed on all cores; each CTA's
/// statistics are gathered on their own and merged in block order, and the
/// trace is written in block order while the next batch replays, so the
/// output does not depend on the number of threads.
pub(crate) fn replay_blocks<D>(
    info: &RunInfo,
    opts: &ReplayOptions,
    scan: &ProfileScan,
    blocks: u64,
    decode: D,
    trace_out: Option<&Path>,
) -> Result<ReplayReport, ReplayError>
where
    D: Fn(u64) -> Option<CtaTrace> + Sync,
{
    use rayon::prelude::*;
    let mut replayer = Replayer::new(info, opts, scan)?;
    let mut trace = trace_out
        .map(|p| TraceSink::create(p, opts.trace_format, info, opts.trace_grouping))
        .transpose()?;
    let batch = (rayon::current_num_threads() * BATCH_PER_THREAD).max(8) as u64;
    let mut acc = std::mem::take(&mut replayer.acc);
    let mut pending: Vec<(CtaReplay, Accumulator)> = Vec::new();
    let mut start = 0;
    loop {
        let end = (start + batch).min(blocks);
        let r = &replayer;
        let (written, replayed) = rayon::join(
            || {
                fold_and_write(
                    std::mem::take(&mut pending),
                    &mut acc,
                    trace.as_mut(),
                    &r.table,
                )
            },
            // Each block decoded and replayed by one task: no pause between
            // decoding a batch and replaying it, and no serial pass over its
            // records (the scan's region list filled the table already).
            || {
                (start..end)
                    .into_par_iter()
                    .filter_map(|block| decode(block).map(|cta| (block, cta)))
                    .map_init(PairScratch::default, |s, (block, cta)| {
                        if !r.knows_regions_of(&cta) {
                            return Err(ReplayError::Changed { block });
                        }
                        Ok(r.replay_one(&cta, s))
                    })
                    .collect::<Result<Vec<_>, _>>()
            },
        );
        written?;
        pending = replayed?;
        if end >= blocks {
            break;
        }
        start = end;
    }
    fold_and_write(pending, &mut acc, trace.as_mut(), &replayer.table)?;
    replayer.acc = acc;
    let report = replayer.finish();
    if let Some(t) = trace {
        // How the trace draws instances shorter than its time step is the
        // trace's own note (its metadata): the report is the same with or
        // without a trace, and Python's (no trace) equals the CLI's.
        t.finish(Some(&report))?;
    }
    Ok(report)
}

/// Merge a batch's statistics and write its trace, in block order.
fn fold_and_write(
    batch: Vec<(CtaReplay, Accumulator)>,
    acc: &mut Accumulator,
    trace: Option<&mut TraceSink>,
    table: &RegionTable,
) -> Result<(), ReplayError> {
    let mut ctas = Vec::with_capacity(batch.len());
    for (cta, cta_acc) in batch {
        acc.merge(cta_acc);
        ctas.push(cta);
    }
    match trace {
        Some(t) => t.write_ctas(&ctas.iter().collect::<Vec<_>>(), table),
        None => Ok(()),
    }
}

/// The single replay pass over `ctas`, which `scan` describes: each CTA is
/// replayed, its trace events written and its figures accumulated, then
/// dropped.
pub fn replay_with_scan(
    info: &RunInfo,
    opts: &ReplayOptions,
    scan: &ProfileScan,
    ctas: impl Iterator<Item = Result<CtaTrace, ReplayError>>,
    trace_out: Option<&Path>,
) -> Result<ReplayReport, ReplayError> {
    let mut replayer = Replayer::new(info, opts, scan)?;
    let mut trace = trace_out
        .map(|p| TraceSink::create(p, opts.trace_format, info, opts.trace_grouping))
        .transpose()?;
    for cta in ctas {
        let cta = cta?;
        let view = replayer.push_cta(&cta);
        if let Some(t) = trace.as_mut() {
            t.write_cta(view.cta, view.regions)?;
        }
    }
    let report = replayer.finish();
    if let Some(t) = trace {
        // The trace's note on instances shorter than its time step is in
        // its own metadata, as in `replay_blocks`.
        t.finish(Some(&report))?;
    }
    Ok(report)
}

/// Why the kernel's work is below the records' resolution
/// ([`crate::correct::CostFit::resolved`]): no single record cost matched
/// the kernel region, or one did but the corrected times are mostly the
/// subtraction.
fn below_resolution_caveat(f: &crate::correct::CostFit, check_error: Option<f64>) -> String {
    let share = f.truth_ticks / f.raw_ticks.max(f64::MIN_POSITIVE);
    let why = if f.needed_cost_ticks > f.fitted_cost_ticks {
        format!(
            "the records sit closer together than their average cost ({} ticks) in places and \
             farther apart in others: no single record cost makes the corrected kernel region \
             match (that would take {} ticks per record), or the records changed the code \
             between them (what the plain build keeps in registers or overlaps). The average \
             cost is subtracted",
            crate::correct::fmt_ticks(f.fitted_cost_ticks),
            crate::correct::fmt_ticks(f.needed_cost_ticks)
        )
    } else {
        let fitted = crate::correct::fmt_ticks(f.fitted_cost_ticks);
        let matched = match check_error {
            Some(e) if e.abs() > crate::analyze::CHECK_TOLERANCE => format!(
                "though a record cost of {fitted} ticks was fitted to the uninstrumented run, \
                 it leaves the corrected kernel region {:+.1}% off over all units (the records' \
                 clamps fall unevenly), and",
                100.0 * e
            ),
            _ => format!(
                "though a record cost of {fitted} ticks makes the corrected kernel region match,"
            ),
        };
        format!(
            "{matched} every corrected time is mostly that subtraction: a 1% error in the cost \
             moves them by {:.0}%",
            (1.0 / share.max(f64::MIN_POSITIVE) - 1.0)
        )
    };
    format!(
        "below resolution: the kernel's own work ({:.0} ticks per instance uninstrumented) is \
         {:.1}% of the instrumented kernel region ({:.0} ticks raw over {:.1} records), and \
         {why}; durations inside this kernel are not meaningful. Fewer records (coarser \
         --regions) would measure it",
        f.truth_ticks,
        100.0 * share,
        f.raw_ticks,
        f.records,
    )
}

/// Why the check's figure is not the profile's error: the profile's kernel
/// regions and the uninstrumented run's are different instances.
fn different_instances_caveat(c: &crate::analyze::CheckReport, instance: &str) -> String {
    let why = if c.instances < c.truth_instances {
        "the others were not recorded (--sample-ctas) or their rings lost the region's START \
         or END (see the lost records)"
    } else {
        "the profile holds more than were timed"
    };
    format!(
        "the check compares different {instance}s: the profile's `{}` region has {} complete \
         instances and the uninstrumented run timed {} ({why}), so its {:+.1}% is the \
         difference between two sets, not this profile's error, and no record cost was fitted \
         to it",
        c.region,
        c.instances,
        c.truth_instances,
        100.0 * c.error
    )
}

/// Why a kernel region whose mean misses the uninstrumented run while its
/// median agrees is not called off: a few instances stalled
/// ([`crate::analyze::CheckReport::median_agrees`]).
fn stalled_instances_caveat(c: &crate::analyze::CheckReport, report: &ReplayReport) -> String {
    let longest = report
        .regions
        .iter()
        .find(|r| r.name == c.region)
        .map_or(String::new(), |r| {
            format!(" (the longest {})", crate::summary::fmt_ns(r.max_ns))
        });
    let median = 100.0 * c.median_error.unwrap_or(f64::NAN);
    if c.error > 0.0 {
        format!(
            "the corrected `{}` region's mean is {:+.1}% off the same launch run uninstrumented, \
             but its median instance {median:+.1}% off the uninstrumented median: a few instances \
             ran far longer than the rest{longest}, as on a disturbed host (a preempted CTA), which \
             no record cost explains and none is fitted to; the median holds, while means, \
             totals, shares and the upper percentiles carry those stalls",
            c.region,
            100.0 * c.error,
        )
    } else {
        format!(
            "the corrected `{}` region's mean is {:+.1}% off the same launch run uninstrumented, \
             but its median instance {median:+.1}% off the uninstrumented median: the \
             uninstrumented run's mean is the one a few stalled CTAs lengthened (a disturbed \
             host), so no record cost is fitted to it",
            c.region,
            100.0 * c.error,
        )
    }
}

/// Why a calibrated cost that misses the uninstrumented run was kept
/// where the raw kernel region is shorter than the truth.
fn faster_than_truth_caveat(f: &crate::correct::CostFit) -> String {
    format!(
        "the instrumented kernel region ({:.0} ticks raw) is shorter than the same launch run \
         uninstrumented ({:.0} ticks): records make nothing faster, so the two launches ran \
         differently (a disturbed host, a launch that ran cold); the calibrated record cost is \
         kept, not fitted",
        f.raw_ticks, f.truth_ticks
    )
}

/// Why a calibrated cost that misses the uninstrumented run was kept
/// ([`crate::correct::CostFit::plausible`]).
fn implausible_fit_caveat(f: &crate::correct::CostFit, kept_ticks: f64) -> String {
    format!(
        "the calibrated record cost puts the kernel region {:+.1}% off the same launch run \
         uninstrumented, but matching it would take {} ticks per record on average ({:.0} ticks \
         raw over {:.1} records against {:.0} uninstrumented), more than {}x the calibration: the \
         difference is not the records' cost (the instrumented launch ran slower for another \
         reason: a disturbed host, a launch that ran cold, or code the records changed), so the \
         calibrated {} ticks are kept",
        100.0 * f.calibrated_error,
        crate::correct::fmt_ticks((f.raw_ticks - f.truth_ticks) / f.records),
        f.raw_ticks,
        f.records,
        f.truth_ticks,
        crate::correct::FIT_BEYOND_CALIBRATED,
        crate::correct::fmt_ticks(kept_ticks),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kperf_runtime::synthetic;

    #[test]
    fn sampled_blocks_follow_no_period_of_the_grid() {
        // One block in 8 of 4096, by hash: both parities and every column
        // of an 8-wide grid, about 512 in all.
        let picked: Vec<u64> = (0..4096).filter(|b| picked(*b, 8)).collect();
        assert!((448..=576).contains(&picked.len()), "{}", picked.len());
        for column in 0..8 {
            let n = picked.iter().filter(|b| *b % 8 == column).count();
            assert!((32..=96).contains(&n), "column {column}: {n}");
        }
    }

    #[test]
    fn a_block_that_changed_after_the_scan_stops_the_replay() {
        let info = synthetic::run_info(2);
        let ctas: Vec<CtaTrace> = (0..2).map(synthetic::cta_trace).collect();
        let mut scan = ProfileScan::for_run(&info);
        for c in &ctas {
            scan.observe(c);
        }
        let ids: Vec<u16> = scan.regions.order.iter().map(|r| r.0).collect();
        assert_eq!(ids, [0, 1, 2, 3], "first-seen order");
        let opts = ReplayOptions::default();
        let replay = |ctas: &[CtaTrace]| {
            replay_blocks(
                &info,
                &opts,
                &scan,
                2,
                |b| ctas.get(b as usize).cloned(),
                None,
            )
        };
        let report = replay(&ctas).expect("the scanned blocks replay");
        assert_eq!(report.totals.ctas, 2);
        // Block 1 now names region 9, which no record named in the scan.
        let mut changed = ctas.clone();
        changed[1].units[0].records[1].region = RegionId(9);
        match replay(&changed) {
            Err(ReplayError::Changed { block: 1 }) => {}
            other => panic!("expected block 1 to have changed, got {:?}", other.err()),
        }
    }
}
