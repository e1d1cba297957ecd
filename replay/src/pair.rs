//! Pairing START/END records into region instances, and laying them out in rows.
//!
//! **Pairing rule.** Within one unit, records are paired *per region id*: an
//! END closes the most recent still-open START *of the same region* (a stack
//! per region, not one stack for the unit). Regions therefore may overlap
//! without nesting (`start0 start1 start2 end1 end0 end2` pairs 0–0, 1–1,
//! 2–2), nest, or repeat. Within one region the newest open START is closed
//! first: in one unit's sequential control flow a region can only reopen
//! before closing by nesting in itself, or when its END was skipped — in both
//! cases the newest START is the right partner.
//!
//! **Instances.** The k-th START of a region in a unit (k from 0, in record
//! order) opens instance k: for a region in a loop, instance k is iteration k
//! *of the surviving records* — when a ring overwrote the oldest records, the
//! first survivor is not iteration 0 (the report says so).
//!
//! **Unmatched records** — an END with no open START (its START was
//! overwritten by the ring), a START never closed (its END dropped by a full
//! flush buffer, or skipped) — are counted per unit and region, never dropped
//! silently. For async waits see [`crate::correct`].
//!
//! **Rows.** [`assign_rows`] puts each instance on the lowest row of its unit
//! where it either starts after everything open on that row ended or lies
//! entirely inside the innermost open instance: properly nested instances
//! share a row (`depth` is the nesting level there), overlapping ones go to
//! further rows, so a trace viewer hides nothing.

use std::cmp::Ordering;
use std::collections::VecDeque;

use kperf_dialects::abi::{Edge, RegionId, Strategy};
use kperf_runtime::profile::CtaTrace;
use serde::{Deserialize, Serialize};

use crate::correct::Correction;
use crate::regions::RegionTable;
use crate::time::{signed_difference, CtaClock, RateSource};

/// One executed instance of a region in one unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegionInstance {
    /// Linear CTA id.
    pub cta: u32,
    /// Unit id within the CTA.
    pub unit: u32,
    pub region: RegionId,
    /// k for the k-th START of this region in this unit (iteration k of a loop).
    pub instance: u32,
    /// Raw counter values of the START and END (for an async wait: CLK1, CLK2).
    pub start_clock: u64,
    pub end_clock: u64,
    /// Absolute record positions of START and END in the unit (see [`crate::correct`]).
    pub start_index: u64,
    pub end_index: u64,
    /// `end_clock − start_clock`.
    pub raw_ticks: u64,
    /// Raw ticks minus the instrumentation cost inside; equals raw without correction.
    pub corrected_ticks: f64,
    /// Start and end on the common time axis (ns since the axis zero, the
    /// earliest CTA start or record: `time`), corrected; `end_ns − start_ns` is the corrected duration in ns.
    pub start_ns: f64,
    pub end_ns: f64,
    /// Nesting level within its row (0 = outermost).
    pub depth: u32,
    /// Row of the unit's track (0, or more for overlapping non-nested instances).
    pub row: u32,
}

impl RegionInstance {
    /// Corrected duration in ns.
    pub fn duration_ns(&self) -> f64 {
        self.end_ns - self.start_ns
    }
}

/// One async wait measured as CLK2 − CLK1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AsyncWaitInstance {
    pub cta: u32,
    pub unit: u32,
    pub wait_region: RegionId,
    pub issue_region: RegionId,
    /// k for the k-th START of the wait region in this unit.
    pub instance: u32,
    /// Instance number of the issue region's START used as CLK1.
    pub issue_instance: u32,
    /// START of the issue region (before the async issue).
    pub clk1: u64,
    /// The issue region's END right before the wait, if recorded.
    pub issue_end: Option<u64>,
    /// START of the wait region (right after the wait).
    pub clk2: u64,
    /// CLK2 − CLK1 raw and corrected, in ticks and ns.
    pub raw_ticks: u64,
    pub corrected_ticks: f64,
    pub corrected_ns: f64,
    /// CLK2 − the later of END(issue) and the unit's release from its
    /// previous wait: the time blocked in this wait, raw and corrected.
    pub exposed_raw_ticks: Option<u64>,
    pub exposed_corrected_ticks: Option<f64>,
    pub exposed_ns: Option<f64>,
}

/// Records of one region in one unit that found no partner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnmatchedCount {
    pub unit: u32,
    pub region: RegionId,
    /// STARTs never closed (for an async wait region: waits with no issue START before them).
    pub starts: u64,
    /// ENDs with no open START.
    pub ends: u64,
    /// For an async issue region: STARTs that no wait consumed.
    pub unwaited_issues: u64,
    /// END records of an async wait region (the wait is measured from its START alone).
    pub ignored_wait_ends: u64,
}

/// One unit after pairing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitReplay {
    pub unit_id: u32,
    /// Surviving records.
    pub records: u64,
    pub records_written: u64,
    pub records_lost: u64,
    /// Corrected axis time of the first and last surviving record (ns).
    pub first_ns: Option<f64>,
    pub last_ns: Option<f64>,
    /// Rows the instances need (0 when there are none).
    pub rows: u32,
    /// Instances sorted by start (then longest first).
    pub instances: Vec<RegionInstance>,
}

impl UnitReplay {
    /// The latest END of the unit's instances.
    pub fn last_end_ns(&self) -> Option<f64> {
        self.instances
            .iter()
            .map(|i| i.end_ns)
            .max_by(f64::total_cmp)
    }
}

/// One CTA after pairing and time conversion.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CtaReplay {
    pub block_index: u64,
    pub cta_id: u32,
    pub hw_id: u32,
    pub ticks_per_ns: f64,
    pub rate_source: RateSource,
    /// False when the header clock was unusable and the first record is the CTA's zero.
    pub header_clock_used: bool,
    /// CTA init on the common axis (ns), or its earliest record where a
    /// unit recorded before init.
    pub start_ns: f64,
    /// The latest corrected record of any unit (or `start_ns` with no records).
    pub end_ns: f64,
    /// Global-timer span init → finalize start (ns), including instrumentation.
    pub header_span_ns: u64,
    pub units: Vec<UnitReplay>,
    pub async_waits: Vec<AsyncWaitInstance>,
    pub unmatched: Vec<UnmatchedCount>,
    /// Consecutive records of a unit whose clock went backwards.
    pub nonmonotone_clocks: u64,
    /// Units whose count of records written is more than the CTA's
    /// elapsed ticks can hold: (unit id, the count). Their positions are
    /// counted from their first surviving record.
    pub implausible_counts: Vec<(u32, u64)>,
}

impl CtaReplay {
    /// `end_ns − start_ns`: from CTA init (or an earlier first record) to
    /// its last corrected record.
    pub fn duration_ns(&self) -> f64 {
        self.end_ns - self.start_ns
    }

    pub fn instances(&self) -> impl Iterator<Item = &RegionInstance> {
        self.units.iter().flat_map(|u| u.instances.iter())
    }
}

impl Default for UnmatchedCount {
    fn default() -> Self {
        UnmatchedCount {
            unit: 0,
            region: RegionId(0),
            starts: 0,
            ends: 0,
            unwaited_issues: 0,
            ignored_wait_ends: 0,
        }
    }
}

#[derive(Copy, Clone)]
struct Open {
    pos: u64,
    clock: u64,
    /// Corrected time in ticks (see `corrected_at` in `replay_cta`).
    at: f64,
    instance: u32,
}

#[derive(Clone, Default)]
struct Slot {
    open: Vec<Open>,
    issues: VecDeque<Open>,
    /// (position, clock, corrected time) of the latest END of an issue region.
    last_end: Option<(u64, u64, f64)>,
    starts_seen: u32,
    unmatched: UnmatchedCount,
    touched: bool,
}

/// Per-region working state reused across units and CTAs.
#[derive(Default)]
pub(crate) struct PairScratch {
    slots: Vec<Slot>,
    touched: Vec<usize>,
}

impl PairScratch {
    fn slot(&mut self, idx: usize) -> &mut Slot {
        if idx >= self.slots.len() {
            self.slots.resize_with(idx + 1, Slot::default);
        }
        let s = &mut self.slots[idx];
        if !s.touched {
            s.touched = true;
            self.touched.push(idx);
        }
        s
    }
}

/// Pair and place every unit of `cta`. Every region id in its records must
/// already be in `table` ([`RegionTable::ensure`]).
pub(crate) fn replay_cta(
    cta: &CtaTrace,
    table: &RegionTable,
    clock: &CtaClock,
    corr: &Correction,
    strategy: Strategy,
    scratch: &mut PairScratch,
) -> CtaReplay {
    let mut out = CtaReplay {
        block_index: cta.block_index,
        cta_id: cta.cta_id,
        hw_id: cta.hw_id,
        ticks_per_ns: clock.ticks_per_ns,
        rate_source: clock.source,
        header_clock_used: clock.header_clock_used,
        start_ns: clock.offset_ns,
        end_ns: clock.offset_ns,
        header_span_ns: cta.finalize_start_ns.saturating_sub(cta.start_time_ns),
        units: Vec::with_capacity(cta.units.len()),
        async_waits: Vec::new(),
        unmatched: Vec::new(),
        nonmonotone_clocks: 0,
        implausible_counts: Vec::new(),
    };
    // More records than ticks passed cannot have been written (a record
    // takes at least a tick): such a count is corrupt, and positions from
    // it would move the unit's records by seconds.
    let elapsed_ticks = Correction::elapsed_ticks_bound(cta);
    for unit in &cta.units {
        let base = match Correction::plausible_first_position(strategy, unit, elapsed_ticks) {
            Some(b) => b,
            None => {
                out.implausible_counts
                    .push((unit.unit_id, unit.records_written));
                0
            }
        };
        let mut instances = Vec::with_capacity(unit.records.len() / 2);
        let mut prev_clock: Option<u64> = None;
        // Corrected record times: each record moves `shift(pos)` earlier, but
        // never before the record that precedes it in program order, so
        // measurement noise cannot make a nested region start before its
        // parent. Durations are differences of these times.
        // Times are ticks after the CTA's clock origin: an absolute clock as
        // f64 keeps 53 bits, and %globaltimer (Unix-epoch nanoseconds,
        // about 2^60) rounded every time to 256 ns (a 50 ns region read 0
        // or 256 ns).
        let rel = |c: u64| signed_difference(c, clock.origin_clock);
        let mut prev_at = f64::MIN;
        let mk = |region: RegionId, instance: u32, s: Open, e_pos: u64, e_clock: u64, e_at: f64| {
            let raw = e_clock.saturating_sub(s.clock);
            let corrected = (e_at - s.at).max(0.0);
            let start_ns = clock.axis_ns(s.clock, rel(s.clock) - s.at);
            RegionInstance {
                cta: cta.cta_id,
                unit: unit.unit_id,
                region,
                instance,
                start_clock: s.clock,
                end_clock: e_clock,
                start_index: s.pos,
                end_index: e_pos,
                raw_ticks: raw,
                corrected_ticks: corrected,
                start_ns,
                end_ns: start_ns + clock.ns(corrected),
                depth: 0,
                row: 0,
            }
        };
        // Ticks of instrumentation before each record: the lost records'
        // at the in-context cost, then each surviving predecessor's at what
        // its gap says it cost (Correction::cost_after_gap).
        let mut shift = corr.shift(base);
        // The records a ring lost, and their cost, all fit between the
        // CTA's start and the first surviving record: with a header clock,
        // their shift is at most that time. (1002 records 8 ticks apart
        // under a calibrated cost of 10 put the survivors 2 µs before the
        // CTA began, every duration 0.)
        if clock.header_clock_used {
            if let Some(first) = unit.records.first() {
                shift = shift.min(first.clock.saturating_sub(cta.start_clock) as f64);
                // A unit may record before thread 0's init stamps
                // (time::INIT_LEAD_NS): its first record stays where it is.
                prev_at = rel(cta.start_clock).min(rel(first.clock));
            }
        }
        let first_shift = shift;
        // The unit's last release from an async wait: (position, clock, time).
        let mut released: Option<(u64, u64, f64)> = None;
        for (j, rec) in unit.records.iter().enumerate() {
            let pos = base + j as u64;
            if let Some(p) = prev_clock {
                if rec.clock < p {
                    out.nonmonotone_clocks += 1;
                }
                shift += corr.cost_after_gap(rec.clock.saturating_sub(p));
            }
            prev_clock = Some(rec.clock);
            let at = (rel(rec.clock) - shift).max(prev_at);
            prev_at = at;
            let idx = table.idx(rec.region);
            let here = Open {
                pos,
                clock: rec.clock,
                at,
                instance: 0,
            };
            if let Some(issue_idx) = table.wait_issue(idx) {
                // CLK2 marker of an async wait.
                if rec.edge == Edge::End {
                    scratch.slot(idx).unmatched.ignored_wait_ends += 1;
                    continue;
                }
                let k = {
                    let s = scratch.slot(idx);
                    s.starts_seen += 1;
                    s.starts_seen - 1
                };
                let issue_slot = scratch.slot(issue_idx);
                let Some(clk1) = issue_slot.issues.pop_front() else {
                    scratch.slot(idx).unmatched.starts += 1;
                    continue;
                };
                // Blocked from the issue's END, or from the unit's release
                // from its previous wait when that came later: a pipeline
                // drained by two waits counted the first wait's time again
                // in the second's (900 ticks blocked for 400).
                let issue_end = issue_slot.last_end.filter(|(p, _, _)| *p > clk1.pos);
                let blocked_from = match (issue_end, released) {
                    (Some(e), Some(r)) if r.0 > e.0 => Some(r),
                    (e, _) => e,
                };
                let inst = mk(rec.region, k, clk1, pos, rec.clock, at);
                let exposed_raw = blocked_from.map(|(_, c, _)| rec.clock.saturating_sub(c));
                let exposed_corr = blocked_from.map(|(_, _, end_at)| (at - end_at).max(0.0));
                released = Some((pos, rec.clock, at));
                out.async_waits.push(AsyncWaitInstance {
                    cta: cta.cta_id,
                    unit: unit.unit_id,
                    wait_region: rec.region,
                    issue_region: table.get(issue_idx).map_or(RegionId(0), |r| r.id),
                    instance: k,
                    issue_instance: clk1.instance,
                    clk1: clk1.clock,
                    issue_end: issue_end.map(|(_, c, _)| c),
                    clk2: rec.clock,
                    raw_ticks: inst.raw_ticks,
                    corrected_ticks: inst.corrected_ticks,
                    corrected_ns: inst.duration_ns(),
                    exposed_raw_ticks: exposed_raw,
                    exposed_corrected_ticks: exposed_corr,
                    exposed_ns: exposed_corr.map(|t| clock.ns(t)),
                });
                instances.push(inst);
                continue;
            }
            let is_issue = table.is_issue(idx);
            let s = scratch.slot(idx);
            match rec.edge {
                Edge::Start => {
                    let open = Open {
                        instance: s.starts_seen,
                        ..here
                    };
                    s.starts_seen += 1;
                    s.open.push(open);
                    if is_issue {
                        s.issues.push_back(open);
                    }
                }
                Edge::End => {
                    if is_issue {
                        s.last_end = Some((pos, rec.clock, at));
                    }
                    // An issue region's END closes its oldest open START: in
                    // a software pipeline several stages are in flight and
                    // the wait retires the oldest (first in, first out, as
                    // the wait pairing). Other regions nest (last in, first out).
                    let closed = if is_issue && !s.open.is_empty() {
                        Some(s.open.remove(0))
                    } else {
                        s.open.pop()
                    };
                    match closed {
                        Some(o) => {
                            instances.push(mk(rec.region, o.instance, o, pos, rec.clock, at))
                        }
                        None => s.unmatched.ends += 1,
                    }
                }
            }
        }
        // Collect what stayed open and reset the touched slots for the next unit.
        let mut touched = std::mem::take(&mut scratch.touched);
        touched.sort_unstable();
        for &idx in &touched {
            let s = &mut scratch.slots[idx];
            let mut u = std::mem::take(&mut s.unmatched);
            // An issue left open is an issue no recorded wait retired (a
            // pipeline's last stages, drained after the loop): counted once,
            // as unwaited, not also as a start without an end.
            if table.is_issue(idx) {
                u.unwaited_issues += s.issues.len() as u64;
            } else {
                u.starts += s.open.len() as u64;
            }
            if u.starts + u.ends + u.unwaited_issues + u.ignored_wait_ends > 0 {
                u.unit = unit.unit_id;
                u.region = table.get(idx).map_or(RegionId(0), |r| r.id);
                out.unmatched.push(u);
            }
            s.open.clear();
            s.issues.clear();
            s.last_end = None;
            s.starts_seen = 0;
            s.touched = false;
        }
        touched.clear();
        scratch.touched = touched;

        instances.sort_by(instance_order);
        let rows = assign_rows(&mut instances);
        let mut first_ns = unit
            .records
            .first()
            .map(|r| clock.axis_ns(r.clock, first_shift));
        let mut last_ns = unit.records.last().map(|r| clock.axis_ns(r.clock, shift));
        for i in &instances {
            first_ns = first_ns.map(|f| f.min(i.start_ns));
            last_ns = last_ns.map(|l| l.max(i.end_ns));
        }
        if let Some(l) = last_ns {
            out.end_ns = out.end_ns.max(l);
        }
        // A unit that recorded before thread 0's init stamps starts the
        // CTA: its wall span, CTA time and shares count that time (a CTA
        // whose warp recorded 1.95 us early read a 20 ns wall span and
        // shares of 4937%).
        if let Some(f) = first_ns {
            out.start_ns = out.start_ns.min(f);
        }
        out.units.push(UnitReplay {
            unit_id: unit.unit_id,
            records: unit.records.len() as u64,
            records_written: unit.records_written,
            records_lost: unit.records_lost,
            first_ns,
            last_ns,
            rows,
            instances,
        });
    }
    out
}

/// Start ascending, then end descending (outer before inner), then id.
pub fn instance_order(a: &RegionInstance, b: &RegionInstance) -> Ordering {
    a.start_ns
        .total_cmp(&b.start_ns)
        .then(b.end_ns.total_cmp(&a.end_ns))
        .then(a.region.cmp(&b.region))
        .then(a.instance.cmp(&b.instance))
}

/// Assign `row` and `depth` to instances sorted by [`instance_order`]
/// (start ascending, end descending); returns the number of rows used.
pub fn assign_rows(instances: &mut [RegionInstance]) -> u32 {
    let mut rows = RowPlacer::<f64, ()>::default();
    for inst in instances.iter_mut() {
        (inst.row, inst.depth) = rows.place(inst.start_ns, inst.end_ns, None);
    }
    rows.rows()
}

/// The row layout behind [`assign_rows`], for any ordered time type (the
/// Chrome trace runs it again on its quantised times). Spans are placed in
/// order of start ascending, then end descending; each goes on the lowest
/// row where it starts at or after the end of everything still open there,
/// or lies inside the innermost open span (`end <=` its end) — and, when it
/// comes with a key, no open span there has the same key.
#[derive(Debug)]
pub(crate) struct RowPlacer<T, K> {
    /// Per row: the ends (and keys) of the spans still open on it, innermost last.
    stacks: Vec<Vec<(T, Option<K>)>>,
    /// Rows in use (`stacks` beyond them are kept for their allocations).
    used: usize,
    /// Most spans open at once on one row; deeper ones go to another row.
    max_depth: usize,
}

impl<T, K> Default for RowPlacer<T, K> {
    fn default() -> Self {
        RowPlacer {
            stacks: Vec::new(),
            used: 0,
            max_depth: usize::MAX,
        }
    }
}

/// Rows on which a span never lies inside an open span of its own key;
/// beyond them the key is not kept apart (see [`RowPlacer::place`]).
const KEYED_ROWS: usize = 16;

impl<T, K> RowPlacer<T, K> {
    /// A placer whose rows hold at most `max_depth` nested spans.
    pub(crate) fn with_max_depth(max_depth: usize) -> Self {
        RowPlacer {
            max_depth: max_depth.max(1),
            ..RowPlacer::default()
        }
    }
}

impl<T: Copy + PartialOrd, K: Copy + PartialEq> RowPlacer<T, K> {
    /// Forget every span, keeping the allocations.
    pub(crate) fn clear(&mut self) {
        self.stacks.iter_mut().for_each(Vec::clear);
        self.used = 0;
    }

    /// Place the span `start..end`; returns its row and its depth there.
    /// With a `key`, the span never lies inside an open span with that key.
    pub(crate) fn place(&mut self, start: T, end: T, key: Option<K>) -> (u32, u32) {
        for (r, stack) in self.stacks[..self.used].iter_mut().enumerate() {
            while stack.last().is_some_and(|&(e, _)| e <= start) {
                stack.pop();
            }
            if stack.last().is_none_or(|&(e, _)| end <= e)
                && stack.len() < self.max_depth
                && (key.is_none() || stack.iter().all(|&(_, k)| k != key))
            {
                let depth = stack.len();
                stack.push((end, key));
                return (r as u32, depth as u32);
            }
        }
        // A region nested in itself needs a new row per level to keep the
        // rule: 40000 rows of one slice each, and placing every instance
        // scanned them all (80000 records: 2.3 s to write the trace, 500000
        // never finished). Past KEYED_ROWS rows the rule yields: the span
        // nests by time on a row that has room (Perfetto and Chrome pair by
        // nesting; only speedscope pairs by name).
        if key.is_some() && self.used >= KEYED_ROWS {
            for (r, stack) in self.stacks[..self.used].iter_mut().enumerate() {
                if stack.last().is_none_or(|&(e, _)| end <= e) && stack.len() < self.max_depth {
                    let depth = stack.len();
                    stack.push((end, key));
                    return (r as u32, depth as u32);
                }
            }
        }
        if self.used == self.stacks.len() {
            self.stacks.push(Vec::new());
        }
        self.stacks[self.used].push((end, key));
        self.used += 1;
        ((self.used - 1) as u32, 0)
    }

    /// Rows used so far.
    pub(crate) fn rows(&self) -> u32 {
        self.used as u32
    }
}
