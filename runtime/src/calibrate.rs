//! Calibration: what one record costs and how fast the counter ticks.
//!
//! The calibration kernel ([`calibration_kernel`]) opens and closes an empty
//! region `pairs` times back to back, in straight-line code, so the END of
//! each empty region follows its START with nothing but the record itself in
//! between: `END − START` is the cost of one record in counter ticks. A spin
//! of `spin_ticks` keeps each CTA alive long enough for the header's
//! global-timer and counter stamps to give a precise tick rate.
//!
//! The result is a [`DeviceProfile`], saved as JSON; `kperf run` copies it
//! into the `.kprof` header and replay subtracts the cost per record.

use crate::profile::{CtaTrace, RunInfo};
use crate::rank::percentile_sorted;
use kperf_dialects::abi::Counter;
use serde::{Deserialize, Serialize};

/// Name of the empty region in the calibration kernel.
pub const EMPTY_REGION: &str = "empty";
/// Name of the kernel symbol.
pub const KERNEL: &str = "kperf_calibrate";

/// What a calibration measured on one target with one counter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceProfile {
    pub target: String,
    pub counter: Counter,
    /// Ticks of one record: the mean gap between consecutive records of
    /// back-to-back empty regions, interruptions dropped.
    pub record_cost_ticks: f64,
    /// Ticks one record adds where records are used: in a loop whose
    /// iterations are regions around a dependent floating-point chain, the
    /// loop's time with the iteration records less its time without, per
    /// record. Out-of-order cores overlap much of a record with the work
    /// around it (host: about a third of the back-to-back cost), so this is
    /// the cost replay subtracts; absent in calibrations made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_cost_in_loop_ticks: Option<f64>,
    /// Smallest and 90th-percentile observed cost, to show the spread.
    pub record_cost_min_ticks: f64,
    pub record_cost_p90_ticks: f64,
    /// Median over CTAs of counter ticks per global-timer nanosecond.
    pub ticks_per_ns: f64,
    /// Empty regions measured.
    pub samples: u64,
    /// How it was measured, for people reading the file.
    pub method: String,
}

impl DeviceProfile {
    pub fn load(path: &std::path::Path) -> Result<DeviceProfile, crate::LaunchError> {
        let text = crate::input::read_to_string(path).map_err(|e| crate::LaunchError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let bad = |message: String| crate::LaunchError::Calibration {
            path: path.display().to_string(),
            message,
        };
        let p: DeviceProfile = serde_json::from_str(&text)
            .map_err(|e| bad(format!("not a kperf calibration (kperf calibrate -o): {e}")))?;
        p.validate().map_err(bad)?;
        Ok(p)
    }

    /// Figures a measurement can give: costs from 0 to a million ticks (a
    /// record is a clock read and a store; 1e300 printed 300 digits) and a
    /// counter rate of 1 MHz to 100 GHz.
    pub fn validate(&self) -> Result<(), String> {
        let costs = [
            ("record_cost_ticks", Some(self.record_cost_ticks)),
            ("record_cost_in_loop_ticks", self.record_cost_in_loop_ticks),
            ("record_cost_min_ticks", Some(self.record_cost_min_ticks)),
            ("record_cost_p90_ticks", Some(self.record_cost_p90_ticks)),
        ];
        for (name, v) in costs {
            if let Some(v) = v.filter(|v| !(0.0..=1e6).contains(v)) {
                return Err(format!(
                    "{name} = {} is not a record's cost (0 to 1e6 ticks)",
                    crate::short_number(v)
                ));
            }
        }
        if !(1e-3..=1e2).contains(&self.ticks_per_ns) {
            return Err(format!(
                "ticks_per_ns = {} is not a counter's rate (1e-3 to 1e2: 1 MHz to 100 GHz)",
                crate::short_number(self.ticks_per_ns)
            ));
        }
        Ok(())
    }

    /// Refuse a calibration measured on another kind of target than
    /// `target` (`host`, `nvptx:sm_90a`, `simt`) or with another counter:
    /// its costs and rate say nothing about this run (a counter mismatch
    /// was dropped silently, and the report asked to calibrate). Chips of
    /// one family are accepted.
    pub fn check_for(
        &self,
        target: &str,
        counter: Counter,
        path: &std::path::Path,
    ) -> Result<(), crate::LaunchError> {
        let family = |t: &str| t.split(':').next().unwrap_or(t).to_string();
        let bad = |message: String| crate::LaunchError::Calibration {
            path: path.display().to_string(),
            message,
        };
        if family(&self.target) != family(target) {
            return Err(bad(format!(
                "measured on `{}`, and this run is on `{target}`: calibrate this target \
                 (kperf calibrate --target ...)",
                self.target
            )));
        }
        if self.counter != counter {
            return Err(bad(format!(
                "measured with the {} counter, and this run records {}: calibrate with \
                 --counter {}",
                self.counter.name(),
                counter.name(),
                counter.name()
            )));
        }
        Ok(())
    }

    /// One line for people: both costs, the spread and the tick rate.
    pub fn summary(&self) -> String {
        let in_loop = match self.record_cost_in_loop_ticks {
            Some(c) => format!("{c:.1} ticks in a loop (subtracted), "),
            None => String::new(),
        };
        format!(
            "one record costs {in_loop}{:.1} back to back (min {:.1}, p90 {:.1}, {} samples); {:.4} ticks/ns",
            self.record_cost_ticks,
            self.record_cost_min_ticks,
            self.record_cost_p90_ticks,
            self.samples,
            self.ticks_per_ns
        )
    }

    /// The cost replay should subtract per record: the in-loop cost when
    /// measured, else the back-to-back one.
    pub fn correction_ticks(&self) -> f64 {
        self.record_cost_in_loop_ticks
            .filter(|c| c.is_finite() && *c >= 0.0)
            .unwrap_or(self.record_cost_ticks)
    }

    /// Put the calibrated figures into a run's header.
    pub fn apply(&self, info: &mut RunInfo) {
        if info.counter == self.counter {
            info.record_cost_ticks = Some(self.correction_ticks());
            info.record_cost_back_to_back_ticks = self
                .record_cost_in_loop_ticks
                .is_some()
                .then_some(self.record_cost_ticks);
            if info.counter.clock_domain() == kperf_dialects::abi::ClockDomain::Cycles {
                info.ticks_per_ns = Some(self.ticks_per_ns);
            }
        }
    }
}

/// Regions of the in-loop measurement: the same loop without and with a
/// region around every iteration.
pub const LOOP_BARE: &str = "loop_bare";
pub const LOOP_RECORDED: &str = "loop_recorded";
const LOOP_ITERATION: &str = "iteration";
/// Iterations of the calibration loops, and dependent floating-point
/// operations per iteration (multiply, add, alternating).
pub const LOOP_ITERATIONS: usize = 256;
const LOOP_OPS: usize = 16;

/// Records one CTA of a calibration kernel with `pairs` empty regions
/// writes: its ring needs this many slots (rounded up to a power of two).
pub fn calibration_records(pairs: usize) -> u32 {
    (2 * pairs + 2 * LOOP_ITERATIONS + 4) as u32
}

/// MLIR for the host calibration kernel: `pairs` back-to-back empty regions
/// in straight-line code, the in-loop measurement, then a spin of
/// `spin_ticks` cycles.
pub fn calibration_kernel(pairs: usize, spin_ticks: u64) -> String {
    let clock = "llvm.call_intrinsic \"llvm.readcyclecounter\"() : () -> i64";
    let mut s = String::new();
    s.push_str(
        "// Generated by kperf calibrate: back-to-back empty regions, records in a loop, then a spin.\nmodule {\n",
    );
    s.push_str(&format!(
        "  func.func @{KERNEL}() attributes {{kperf.kernel}} {{\n"
    ));
    s.push_str(&empty_pairs("    ", pairs));
    s.push_str(&loops_mlir("    ", clock, "x"));
    s.push_str(&spin_mlir("    ", spin_ticks));
    s.push_str("    return\n  }\n}\n");
    s
}

/// The in-loop measurement: two loops of [`LOOP_ITERATIONS`] iterations,
/// each a chain of [`LOOP_OPS`] dependent operations started from the
/// clock (nothing for an optimizer to fold) and sunk into an empty asm
/// (nothing to drop, `sink` being the register constraint of an f32); the
/// first bare inside [`LOOP_BARE`], the second with every iteration a
/// region inside [`LOOP_RECORDED`].
fn loops_mlir(indent: &str, clock: &str, sink: &str) -> String {
    let rec = |name: &str, start: bool, ind: &str| {
        format!(
            "{ind}\"kperf.record\"() {{name = \"{name}\", is_start = {} : i1}} : () -> ()\n",
            start as u8
        )
    };
    let i = indent;
    let mut s = String::new();
    s.push_str(&format!(
        "{i}%cal_t = {clock}\n{i}%cal_f = arith.uitofp %cal_t : i64 to f32\n\
         {i}%cal_m = arith.constant 0.999 : f32\n{i}%cal_b = arith.constant 0.001 : f32\n\
         {i}%cal_0 = arith.constant 0 : index\n{i}%cal_1 = arith.constant 1 : index\n\
         {i}%cal_n = arith.constant {LOOP_ITERATIONS} : index\n"
    ));
    for (k, (outer, recorded)) in [(LOOP_BARE, false), (LOOP_RECORDED, true)]
        .iter()
        .enumerate()
    {
        s.push_str(&rec(outer, true, i));
        s.push_str(&format!(
            "{i}%cal_v{k} = scf.for %it{k} = %cal_0 to %cal_n step %cal_1 iter_args(%a{k} = %cal_f) -> (f32) {{\n"
        ));
        let body = format!("{i}  ");
        if *recorded {
            s.push_str(&rec(LOOP_ITERATION, true, &body));
        }
        let mut cur = format!("%a{k}");
        for op in 0..LOOP_OPS {
            let (name, c) = if op % 2 == 0 {
                ("arith.mulf", "%cal_m")
            } else {
                ("arith.addf", "%cal_b")
            };
            s.push_str(&format!("{body}%c{k}_{op} = {name} {cur}, {c} : f32\n"));
            cur = format!("%c{k}_{op}");
        }
        if *recorded {
            s.push_str(&rec(LOOP_ITERATION, false, &body));
        }
        s.push_str(&format!("{body}scf.yield {cur} : f32\n{i}}}\n"));
        s.push_str(&format!(
            "{i}llvm.inline_asm has_side_effects asm_dialect = att \"\", \"{sink}\" %cal_v{k} : (f32) -> ()\n"
        ));
        s.push_str(&rec(outer, false, i));
    }
    s
}

/// The GPU calibration kernel: one warp (a single warp-granularity unit)
/// running the same empty regions, then spinning on `%clock64`.
pub fn calibration_kernel_gpu(pairs: usize, spin_ticks: u64) -> String {
    let mut s = String::new();
    s.push_str("// Generated by kperf calibrate for a GPU: one warp, back-to-back empty regions, then a spin.\n");
    s.push_str("module attributes {gpu.container_module} {\n  gpu.module @kperf_calibration {\n");
    s.push_str(&format!("    gpu.func @{KERNEL}() kernel attributes {{known_block_size = array<i32: 32, 1, 1>}} {{\n"));
    s.push_str(&empty_pairs("      ", pairs));
    s.push_str(&loops_mlir(
        "      ",
        "nvvm.read.ptx.sreg.clock64 : i64",
        "f",
    ));
    s.push_str(&spin_with(
        "      ",
        spin_ticks,
        "nvvm.read.ptx.sreg.clock64 : i64",
    ));
    s.push_str("      gpu.return\n    }\n  }\n}\n");
    s
}

fn empty_pairs(indent: &str, pairs: usize) -> String {
    let mut s = String::new();
    for _ in 0..pairs {
        s.push_str(&format!("{indent}\"kperf.record\"() {{name = \"{EMPTY_REGION}\", is_start = 1 : i1}} : () -> ()\n"));
        s.push_str(&format!("{indent}\"kperf.record\"() {{name = \"{EMPTY_REGION}\", is_start = 0 : i1}} : () -> ()\n"));
    }
    s
}

/// Name of the known-work region and kernel in [`known_work_kernel`].
pub const WORK_REGION: &str = "work";
pub const WORK_KERNEL: &str = "kperf_known_work";

/// MLIR for a host kernel whose `work` region holds exactly `spin_ticks`
/// cycles of real work plus `inner_pairs` nested empty regions: the truth
/// its corrected duration must match, while the raw duration also carries
/// the cost of the 2·`inner_pairs` + 1 records inside it.
pub fn known_work_kernel(inner_pairs: usize, spin_ticks: u64) -> String {
    let rec = |name: &str, start: bool| {
        format!(
            "    \"kperf.record\"() {{name = \"{name}\", is_start = {} : i1}} : () -> ()\n",
            start as u8
        )
    };
    let mut s = String::new();
    s.push_str("// Generated: a region of known work (a spin of N cycles) with nested records.\nmodule {\n");
    s.push_str(&format!(
        "  func.func @{WORK_KERNEL}() attributes {{kperf.kernel}} {{\n"
    ));
    s.push_str(&rec(WORK_REGION, true));
    for _ in 0..inner_pairs {
        s.push_str(&rec("inner", true));
        s.push_str(&rec("inner", false));
    }
    s.push_str(&spin_mlir("    ", spin_ticks));
    s.push_str(&rec(WORK_REGION, false));
    s.push_str("    return\n  }\n}\n");
    s
}

/// A host busy loop that runs until `ticks` cycles have passed.
pub fn spin_mlir(indent: &str, ticks: u64) -> String {
    spin_with(
        indent,
        ticks,
        "llvm.call_intrinsic \"llvm.readcyclecounter\"() : () -> i64",
    )
}

/// A busy loop on `clock` (an op producing an i64 counter) for `ticks`.
fn spin_with(indent: &str, ticks: u64, clock: &str) -> String {
    format!(
        "{i}%spin_n_{ticks} = arith.constant {ticks} : i64\n\
         {i}%spin_t0_{ticks} = {clock}\n\
         {i}scf.while : () -> () {{\n\
         {i}  %t = {clock}\n\
         {i}  %d = arith.subi %t, %spin_t0_{ticks} : i64\n\
         {i}  %more = arith.cmpi ult, %d, %spin_n_{ticks} : i64\n\
         {i}  scf.condition(%more)\n\
         {i}}} do {{\n\
         {i}  scf.yield\n\
         {i}}}\n",
        i = indent
    )
}

/// How many times the back-to-back cost a record may cost in the
/// calibration loop for the figure to be believed. A record in a loop
/// costs less than back to back where an out-of-order core hides part of
/// it (host: 8–15 ticks against 25) and about as much in order; on the fly
/// on a busy 2-core machine the loop once read 180.6 against 55.0 (alone,
/// 55–56), and replay subtracted 180 ticks a record.
pub const IN_LOOP_BEYOND_BACK_TO_BACK: f64 = 2.0;

/// Ticks per record in the loop: the median over units of (recorded loop −
/// bare loop) / (2 × iterations); None when the profile lacks the loops.
fn in_loop_cost(info: &RunInfo, ctas: &[CtaTrace]) -> Option<f64> {
    let id = |name: &str| {
        info.meta
            .kernels
            .iter()
            .flat_map(|k| k.regions.iter())
            .find(|r| r.name == name)
            .map(|r| r.id)
    };
    let (bare, recorded) = (id(LOOP_BARE)?, id(LOOP_RECORDED)?);
    let span = |unit: &crate::profile::UnitTrace, r| {
        let start = unit
            .records
            .iter()
            .find(|x| x.region == r && x.edge == kperf_dialects::abi::Edge::Start)?;
        let end = unit
            .records
            .iter()
            .find(|x| x.region == r && x.edge == kperf_dialects::abi::Edge::End)?;
        Some(end.clock.checked_sub(start.clock)? as f64)
    };
    let mut per_record: Vec<f64> = ctas
        .iter()
        .flat_map(|c| c.units.iter())
        .filter_map(|u| {
            let extra = span(u, recorded)? - span(u, bare)?;
            Some(extra / (2 * LOOP_ITERATIONS) as f64)
        })
        .collect();
    if per_record.is_empty() {
        return None;
    }
    per_record.sort_by(f64::total_cmp);
    Some(percentile_sorted(&per_record, 50.0).max(0.0))
}

/// Why a calibration could not be computed.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CalibrationError {
    #[error("the calibration profile has no `{EMPTY_REGION}` region")]
    NoRegion,
    #[error("no complete empty region survived (rings too small for the calibration?)")]
    NoSamples,
    #[error("no CTA header carries usable global-timer and counter stamps")]
    NoClockRate,
}

/// Compute a device profile from the decoded calibration run.
pub fn compute(info: &RunInfo, ctas: &[CtaTrace]) -> Result<DeviceProfile, CalibrationError> {
    let id = info
        .meta
        .kernels
        .iter()
        .flat_map(|k| k.regions.iter())
        .find(|r| r.name == EMPTY_REGION)
        .map(|r| r.id)
        .ok_or(CalibrationError::NoRegion)?;
    // Every two consecutive gaps of the empty region (START→END→START or
    // END→START→END) are two records' cost. Single gaps are not: ptxas may
    // schedule a region's two clock reads next to each other and both
    // stores after them, so on clock32 an H200 read START→END gaps of 2
    // ticks and END→START gaps of 25; a median over single gaps then threw
    // every END→START gap away as an interruption and called a record 2
    // ticks (the loop measured 13.5). Spans far above the median are
    // interruptions (an OS tick, a migration), not the records.
    let mut half_spans: Vec<f64> = Vec::new();
    for cta in ctas {
        for unit in &cta.units {
            for w in unit.records.windows(3) {
                if w.iter().all(|r| r.region == id) {
                    half_spans.push(w[2].clock.saturating_sub(w[0].clock) as f64 / 2.0);
                }
            }
        }
    }
    if half_spans.is_empty() {
        return Err(CalibrationError::NoSamples);
    }
    half_spans.sort_by(f64::total_cmp);
    let median = percentile_sorted(&half_spans, 50.0);
    let kept: Vec<f64> = half_spans
        .iter()
        .copied()
        .filter(|h| *h <= 4.0 * median.max(1.0))
        .collect();
    let mean = kept.iter().sum::<f64>() / kept.len() as f64;
    let in_loop = in_loop_cost(info, ctas);
    let doubted = in_loop
        .filter(|c| *c > IN_LOOP_BEYOND_BACK_TO_BACK * mean.max(1.0))
        .map(|c| {
            format!(
                "; the in-loop cost measured {c:.1} ticks, more than {IN_LOOP_BEYOND_BACK_TO_BACK}x \
                 back to back (an interrupted run): not believed, the back-to-back cost is used"
            )
        })
        .unwrap_or_default();
    let mut rates: Vec<f64> = ctas
        .iter()
        .filter_map(CtaTrace::measured_ticks_per_ns)
        .collect();
    rates.sort_by(f64::total_cmp);
    let ticks_per_ns = match info.counter.clock_domain() {
        kperf_dialects::abi::ClockDomain::Nanoseconds => 1.0,
        kperf_dialects::abi::ClockDomain::Cycles if rates.is_empty() => {
            return Err(CalibrationError::NoClockRate)
        }
        kperf_dialects::abi::ClockDomain::Cycles => percentile_sorted(&rates, 50.0),
    };
    Ok(DeviceProfile {
        target: info.target.clone(),
        counter: info.counter,
        record_cost_ticks: mean,
        record_cost_in_loop_ticks: in_loop
            .filter(|c| *c <= IN_LOOP_BEYOND_BACK_TO_BACK * mean.max(1.0)),
        record_cost_min_ticks: half_spans[0],
        record_cost_p90_ticks: percentile_sorted(&half_spans, 90.0),
        ticks_per_ns,
        samples: kept.len() as u64,
        method: format!(
            "mean of {} half-spans of three consecutive records of back-to-back empty regions ({} above 4x the median dropped as interruptions) over {} CTA(s); in a loop: median over units of (loop with a region per iteration - the same loop bare) / (2 x {LOOP_ITERATIONS}) records, {LOOP_OPS} dependent operations per iteration{doubted}; tick rate = median over CTAs of (finalize clock - start clock) / (finalize time - start time)",
            kept.len(),
            half_spans.len() - kept.len(),
            ctas.len()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Record, UnitTrace};
    use kperf_dialects::abi::{ClockDomain, Edge, RegionId, Strategy};
    use kperf_dialects::meta::{
        BufferKind, Granularity, InstrumentMeta, KernelMeta, RegionKind, RegionMeta,
    };

    fn info() -> RunInfo {
        let mut meta = InstrumentMeta::new_header(
            "host",
            Counter::Clock64,
            Granularity::Cta,
            BufferKind::Shared,
            Strategy::Circular,
        );
        meta.kernels.push(KernelMeta {
            name: KERNEL.into(),
            original_arg_count: 0,
            block: [1, 1, 1],
            layout: kperf_dialects::abi::Layout {
                units: 1,
                slots: 64,
            },
            sampled_units: vec![],
            cta_sampling: Default::default(),
            profile_param: None,
            profile_bytes_per_cta: 0,
            max_registers: None,
            regions: vec![RegionMeta {
                id: RegionId(0),
                name: EMPTY_REGION.into(),
                kind: RegionKind::Explicit,
                parent: None,
                location: "x".into(),
                pairs_with: None,
            }],
        });
        RunInfo {
            target: "host".into(),
            kernel: KERNEL.into(),
            grid: [1, 1, 1],
            block: [1, 1, 1],
            counter: Counter::Clock64,
            clock_domain: ClockDomain::Cycles,
            granularity: Granularity::Cta,
            strategy: Strategy::Circular,
            ticks_per_ns: None,
            record_cost_ticks: None,
            record_cost_back_to_back_ticks: None,
            record_cost_origin: None,
            check: None,
            meta,
        }
    }

    /// A CTA of one unit holding `records`, 25000 ticks over 10 µs.
    fn one_unit_cta(records: Vec<Record>) -> CtaTrace {
        CtaTrace {
            block_index: 0,
            cta_id: 0,
            hw_id: 0,
            start_time_ns: 1_000,
            finalize_start_ns: 11_000,
            finalize_end_ns: 11_100,
            start_clock: 0,
            finalize_clock: 25_000,
            units: vec![UnitTrace {
                unit_id: 0,
                records_written: records.len() as u64,
                records_lost: 0,
                records,
            }],
        }
    }

    fn rec(edge: Edge, clock: u64) -> Record {
        Record {
            region: RegionId(0),
            edge,
            clock,
        }
    }

    #[test]
    fn cost_is_the_mean_gap_without_interruptions_and_rate_comes_from_the_header() {
        // Two-record spans 50, 40, 50, 60 (25, 20, 25, 30 a record, mean
        // 25) and one over a 9000-tick interruption.
        let records = vec![
            rec(Edge::Start, 100),
            rec(Edge::End, 130),
            rec(Edge::Start, 150),
            rec(Edge::End, 170),
            rec(Edge::Start, 200),
            rec(Edge::End, 230),
            rec(Edge::Start, 9230),
        ];
        let p = compute(&info(), &[one_unit_cta(records)]).expect("calibrates");
        assert_eq!(p.record_cost_ticks, 25.0);
        assert_eq!(p.record_cost_min_ticks, 20.0);
        assert_eq!(p.samples, 4, "the span over the interruption is dropped");
        assert_eq!(p.ticks_per_ns, 2.5);
    }

    /// What an H200 recorded with clock32: the two clock reads of a region
    /// side by side (gaps of 2 ticks), the stores between regions (25).
    /// A record costs the mean, 13.5, not the smaller gap.
    #[test]
    fn uneven_gaps_cost_their_mean_not_the_shorter() {
        let mut records = Vec::new();
        let mut clock = 1_000;
        for _ in 0..100 {
            records.push(rec(Edge::Start, clock));
            records.push(rec(Edge::End, clock + 2));
            clock += 27;
        }
        let p = compute(&info(), &[one_unit_cta(records)]).expect("calibrates");
        assert_eq!(p.record_cost_ticks, 13.5);
        assert_eq!(p.samples, 198, "no span is an interruption");
    }

    /// The in-loop cost is believed up to twice the back-to-back one: an
    /// interrupted loop on a busy machine read 180.6 against 55.0.
    #[test]
    fn an_in_loop_cost_far_above_back_to_back_is_not_believed() {
        let with_loop_cost = |per_record: u64| {
            let mut info = info();
            for (id, name) in [(1, LOOP_BARE), (2, LOOP_RECORDED)] {
                info.meta.kernels[0].regions.push(RegionMeta {
                    id: RegionId(id),
                    name: name.into(),
                    kind: RegionKind::Explicit,
                    parent: None,
                    location: "x".into(),
                    pairs_with: None,
                });
            }
            let at = |region: u16, edge: Edge, clock: u64| Record {
                region: RegionId(region),
                edge,
                clock,
            };
            let extra = 2 * LOOP_ITERATIONS as u64 * per_record;
            // Back to back: gaps of 25.
            let records = vec![
                rec(Edge::Start, 100),
                rec(Edge::End, 125),
                rec(Edge::Start, 150),
                at(1, Edge::Start, 1_000),
                at(1, Edge::End, 2_000),
                at(2, Edge::Start, 3_000),
                at(2, Edge::End, 4_000 + extra),
            ];
            compute(&info, &[one_unit_cta(records)]).expect("calibrates")
        };
        let fine = with_loop_cost(10);
        assert_eq!(fine.record_cost_in_loop_ticks, Some(10.0));
        assert_eq!(fine.correction_ticks(), 10.0);
        let doubted = with_loop_cost(180);
        assert_eq!(doubted.record_cost_in_loop_ticks, None);
        assert_eq!(doubted.correction_ticks(), 25.0);
        assert!(
            doubted.method.contains("not believed"),
            "{}",
            doubted.method
        );
    }

    #[test]
    fn no_samples_is_an_error() {
        assert_eq!(compute(&info(), &[]), Err(CalibrationError::NoSamples));
    }

    #[test]
    fn kernel_text_has_the_requested_pairs() {
        let k = calibration_kernel(3, 100);
        let empty = |start: u8| {
            k.matches(&format!("name = \"{EMPTY_REGION}\", is_start = {start}"))
                .count()
        };
        assert_eq!((empty(1), empty(0)), (3, 3));
        // The loops: bare, recorded, and the recorded loop's iteration.
        assert_eq!(k.matches("is_start = 1").count(), 3 + 3);
        assert!(k.contains("scf.while"));
    }
}
