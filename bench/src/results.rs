//! The results file and its tables.
//!
//! A benchmark result is only worth keeping if it can be re-judged later:
//! so the file holds every sample (not just a mean), the settings that
//! produced them, and the machine state (clocks, power, temperature,
//! throttle reasons, CPU frequency) next to them. Baseline comparisons read
//! two such files and re-run the statistics on the raw samples.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::compare::{compare, CompareConfig, Comparison, Samples, Verdict};
use crate::error::{BenchError, Result};
use crate::flops::Work;
use crate::host::{FlushMode, HostInfo};
use crate::measure::Measurement;
use crate::nvml::GpuState;
use crate::roofline::{analyze, DevicePeaks, Metrics, Point};
use crate::stats::{SkewRule, StopReason, StoppingRule, Summary};

/// Version of the results JSON; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole `kperf bench` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    /// `kperf-bench <version>`.
    pub tool: String,
    pub device: DeviceInfo,
    pub settings: Settings,
    pub points: Vec<PointResult>,
    /// The measured peaks the metrics were computed against, so
    /// `kperf roofline results.json` needs no second file.
    #[serde(default)]
    pub peaks: Option<DevicePeaks>,
    /// Filled by [`Results::compute_speedups`].
    #[serde(default)]
    pub speedups: Vec<Speedup>,
}

/// Host or CUDA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    Host,
    Cuda,
}

/// The machine, as it was during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    pub kind: DeviceKind,
    /// NVML snapshot before the first sample (CUDA).
    #[serde(default)]
    pub gpu_before: Option<GpuState>,
    /// NVML snapshot after the last sample (CUDA): a clock or temperature
    /// that moved during the run shows here.
    #[serde(default)]
    pub gpu_after: Option<GpuState>,
    /// CPU model, frequency, LLC and timer (host runs; also useful for
    /// CUDA launch overheads).
    #[serde(default)]
    pub host: Option<HostInfo>,
    /// Why some of the above is missing (e.g. "NVML: could not load ...").
    #[serde(default)]
    pub notes: Vec<String>,
}

impl DeviceInfo {
    /// The host CPU as the device, named by its model.
    pub fn host(host: HostInfo) -> DeviceInfo {
        DeviceInfo {
            name: host.cpu_model.clone().unwrap_or_else(|| "host CPU".into()),
            kind: DeviceKind::Host,
            gpu_before: None,
            gpu_after: None,
            host: Some(host),
            notes: vec![],
        }
    }
}

/// Warm-up before sampling.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    /// At least this many untimed runs...
    pub iterations: u32,
    /// ...and at least this much time in them.
    pub min_time_s: f64,
}

impl Default for Warmup {
    fn default() -> Self {
        Warmup {
            iterations: 3,
            min_time_s: 0.05,
        }
    }
}

/// How the samples were taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub stopping: StoppingRule,
    pub warmup: Warmup,
    /// Cache flushed before every sample (GPU L2 or host LLC).
    pub flush: bool,
    /// Host flush mode when `flush` is on.
    #[serde(default)]
    pub flush_mode: Option<FlushMode>,
    /// Samples replayed from a CUDA graph.
    pub cuda_graphs: bool,
    /// Samples whose SM clock was under this fraction of the default clock
    /// were dropped (nvbench: 0.75); `None` keeps every sample.
    pub throttle_threshold: Option<f64>,
    /// Pause between points, seconds.
    pub cooldown_s: f64,
    /// Seed of input generation and of the bootstrap.
    pub seed: u64,
    pub skew: SkewRule,
    /// What one timed sample contains, as the spec states it (e.g. "one
    /// launch; the scale conversion runs before timing").
    #[serde(default)]
    pub timed: Option<String>,
    /// Host threads the CTAs ran on (`kperf bench --threads`): a run on
    /// 2 threads is not comparable with one on 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_threads: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            stopping: StoppingRule::default(),
            warmup: Warmup::default(),
            flush: false,
            flush_mode: None,
            cuda_graphs: false,
            throttle_threshold: Some(0.75),
            cooldown_s: 0.0,
            seed: 0,
            skew: SkewRule::default(),
            timed: None,
            host_threads: None,
        }
    }
}

/// A parameter value of a point (`M = 1024`, `dtype = "bf16"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Param {
    Int(i64),
    Float(f64),
    Text(String),
}

impl Param {
    /// The numeric value, for FLOP/byte expressions.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Param::Int(i) => Some(*i as f64),
            Param::Float(f) => Some(*f),
            Param::Text(_) => None,
        }
    }
}

impl std::fmt::Display for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Param::Int(i) => write!(f, "{i}"),
            Param::Float(x) => write!(f, "{x}"),
            Param::Text(s) => f.write_str(s),
        }
    }
}

impl From<i64> for Param {
    fn from(v: i64) -> Self {
        Param::Int(v)
    }
}
impl From<f64> for Param {
    fn from(v: f64) -> Self {
        Param::Float(v)
    }
}
impl From<&str> for Param {
    fn from(v: &str) -> Self {
        Param::Text(v.to_string())
    }
}

/// The numeric parameters as expression variables.
pub fn numeric_params(params: &BTreeMap<String, Param>) -> BTreeMap<String, f64> {
    params
        .iter()
        .filter_map(|(k, v)| v.as_f64().map(|x| (k.clone(), x)))
        .collect()
}

/// "M=1024 N=512 dtype=bf16": the point's name in tables and matches.
pub fn point_label(params: &BTreeMap<String, Param>) -> String {
    if params.is_empty() {
        return "-".to_string();
    }
    params
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One (point, implementation) measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    pub params: BTreeMap<String, Param>,
    pub implementation: String,
    /// Every kept sample, in order.
    pub samples_ns: Vec<f64>,
    /// SM cycles per kept sample (CUDA: time × the SM clock the probe
    /// measured right after the sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<Vec<f64>>,
    /// SM clock per kept sample, MHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<Vec<f64>>,
    /// Samples dropped because the clock was throttled.
    #[serde(default)]
    pub dropped_throttled: usize,
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    pub summary: Summary,
    #[serde(default)]
    pub cycles_summary: Option<Summary>,
    #[serde(default)]
    pub work: Option<Work>,
    /// Against measured peaks, at the summary's center time.
    #[serde(default)]
    pub metrics: Option<Metrics>,
    #[serde(default)]
    pub peak_memory_bytes: Option<u64>,
}

impl PointResult {
    /// Summarises `samples_ns` (default skew rule).
    pub fn new(
        params: BTreeMap<String, Param>,
        implementation: &str,
        samples_ns: Vec<f64>,
    ) -> Result<PointResult> {
        PointResult::with_rule(params, implementation, samples_ns, &SkewRule::default())
    }

    /// Summarises `samples_ns` with `rule` (use the run's
    /// [`Settings::skew`]).
    pub fn with_rule(
        params: BTreeMap<String, Param>,
        implementation: &str,
        samples_ns: Vec<f64>,
        rule: &SkewRule,
    ) -> Result<PointResult> {
        let summary = Summary::with_rule(&samples_ns, rule)?;
        Ok(PointResult {
            params,
            implementation: implementation.to_string(),
            samples_ns,
            cycles: None,
            sm_clock_mhz: None,
            dropped_throttled: 0,
            stop_reason: None,
            summary,
            cycles_summary: None,
            work: None,
            metrics: None,
            peak_memory_bytes: None,
        })
    }

    /// The result of one [`crate::measure::measure`]: its kept samples
    /// summarised with `rule`, their cycles and clocks, the throttled
    /// samples dropped and why sampling stopped.
    pub fn from_measurement(
        params: BTreeMap<String, Param>,
        implementation: &str,
        m: Measurement,
        rule: &SkewRule,
    ) -> Result<PointResult> {
        let mut r = PointResult::with_rule(params, implementation, m.samples_ns, rule)?;
        if let Some(c) = m.cycles {
            r = r.with_cycles(c)?;
        }
        r.sm_clock_mhz = m.sm_clock_mhz;
        r.dropped_throttled = m.dropped_throttled;
        r.stop_reason = Some(m.stop);
        Ok(r)
    }

    /// Attaches per-sample cycles; one per time sample.
    pub fn with_cycles(mut self, cycles: Vec<f64>) -> Result<PointResult> {
        if cycles.len() != self.samples_ns.len() {
            return Err(BenchError::setting(
                "cycles",
                format!("{} values", cycles.len()),
                &format!("expected one per time sample ({})", self.samples_ns.len()),
            ));
        }
        self.cycles_summary = Some(Summary::of(&cycles)?);
        self.cycles = Some(cycles);
        Ok(self)
    }

    /// Attaches the work and, given peaks, the derived metrics at the
    /// reported center time.
    pub fn with_work(
        mut self,
        work: Work,
        peaks: Option<&DevicePeaks>,
        compute_kind: Option<&str>,
    ) -> Result<PointResult> {
        if let Some(p) = peaks {
            self.metrics = Some(analyze(p, &self.roofline_point(work, compute_kind))?);
        }
        self.work = Some(work);
        Ok(self)
    }

    /// This result as a roofline point.
    pub fn roofline_point(&self, work: Work, compute_kind: Option<&str>) -> Point {
        Point {
            label: format!("{} {}", self.implementation, self.label()),
            flops: work.flops,
            bytes: work.bytes,
            time_s: self.summary.center_value() * 1e-9,
            compute: compute_kind.map(str::to_string),
        }
    }

    pub fn label(&self) -> String {
        point_label(&self.params)
    }
}

/// Speed of one implementation relative to the baseline implementation of
/// the same point: median(baseline) / median(implementation), so 2.0 is
/// twice as fast. Medians on both sides keep the ratio robust and
/// consistent with [`crate::compare`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Speedup {
    pub point: String,
    pub baseline: String,
    pub implementation: String,
    pub speedup: f64,
}

impl Results {
    pub fn new(device: DeviceInfo, settings: Settings) -> Results {
        Results {
            schema_version: SCHEMA_VERSION,
            tool: format!("kperf-bench {}", env!("CARGO_PKG_VERSION")),
            device,
            settings,
            points: Vec::new(),
            peaks: None,
            speedups: Vec::new(),
        }
    }

    pub fn push(&mut self, point: PointResult) {
        self.points.push(point);
    }

    /// Recomputes [`Results::speedups`] for every point measured with two
    /// or more implementations. The baseline is `baseline` where that
    /// implementation exists for the point, else the first one measured.
    pub fn compute_speedups(&mut self, baseline: Option<&str>) {
        let mut groups: Vec<(String, Vec<&PointResult>)> = Vec::new();
        for p in &self.points {
            let label = p.label();
            match groups.iter_mut().find(|(l, _)| *l == label) {
                Some((_, g)) => g.push(p),
                None => groups.push((label, vec![p])),
            }
        }
        let mut out = Vec::new();
        for (label, group) in groups {
            if group.len() < 2 {
                continue;
            }
            let base = baseline
                .and_then(|b| group.iter().find(|p| p.implementation == b))
                .unwrap_or(&group[0]);
            for p in &group {
                if p.summary.median > 0.0 {
                    out.push(Speedup {
                        point: label.clone(),
                        baseline: base.implementation.clone(),
                        implementation: p.implementation.clone(),
                        speedup: base.summary.median / p.summary.median,
                    });
                }
            }
        }
        self.speedups = out;
    }

    /// Roofline points of every result that has work attached, using the
    /// compute roof its metrics were computed against.
    pub fn roofline_points(&self) -> Vec<Point> {
        self.points
            .iter()
            .filter_map(|p| {
                let kind = p.metrics.as_ref().map(|m| m.compute_kind.as_str());
                p.work.map(|w| p.roofline_point(w, kind))
            })
            .collect()
    }

    fn speedup_of(&self, p: &PointResult) -> Option<f64> {
        let label = p.label();
        self.speedups
            .iter()
            .find(|s| s.point == label && s.implementation == p.implementation)
            .map(|s| s.speedup)
    }

    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|source| BenchError::Json {
            action: "serialising results",
            path: "<results>".into(),
            source,
        })
    }

    /// Parses results; `origin` names the source in errors.
    pub fn from_json(text: &str, origin: &Path) -> Result<Results> {
        // Check the version first so an old file gets a version error, not
        // a confusing "missing field".
        #[derive(Deserialize)]
        struct Version {
            schema_version: u32,
        }
        let v: Version = serde_json::from_str(text).map_err(|source| BenchError::Json {
            action: "reading results",
            path: origin.to_path_buf(),
            source,
        })?;
        if v.schema_version != SCHEMA_VERSION {
            return Err(BenchError::SchemaVersion {
                path: origin.to_path_buf(),
                found: v.schema_version,
                supported: SCHEMA_VERSION,
            });
        }
        serde_json::from_str(text).map_err(|source| BenchError::Json {
            action: "reading results",
            path: origin.to_path_buf(),
            source,
        })
    }

    /// Each (point, implementation) once: `origin` names the results in
    /// the error.
    pub fn check_unique(&self, origin: &str) -> Result<()> {
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        for p in &self.points {
            *seen
                .entry((p.label(), p.implementation.clone()))
                .or_default() += 1;
        }
        match seen.into_iter().find(|(_, n)| *n > 1) {
            Some(((point, implementation), count)) => Err(BenchError::DuplicatePoint {
                origin: origin.to_string(),
                point,
                implementation,
                count,
            }),
            None => Ok(()),
        }
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        self.check_unique(&path.display().to_string())?;
        std::fs::write(path, self.to_json()?).map_err(|source| BenchError::Io {
            action: "writing results",
            path: path.to_path_buf(),
            source,
        })
    }

    pub fn load(path: &Path) -> Result<Results> {
        let text = crate::error::read_input(path).map_err(|source| BenchError::Io {
            action: "reading results",
            path: path.to_path_buf(),
            source,
        })?;
        Results::from_json(&text, path)
    }
}

/// Formats nanoseconds with a unit that keeps 3–4 significant digits.
/// Durations no table should hold (over a day, or under a picosecond but
/// not 0) are written in scientific notation, not as 300 digits or "0".
pub fn format_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return format!("{ns} ns");
    }
    if ns.abs() >= 1e14 {
        return format!("{:.3e} s", ns * 1e-9);
    }
    if ns != 0.0 && ns.abs() < 1e-3 {
        return format!("{ns:.3e} ns");
    }
    let (v, unit) = if ns >= 1e9 {
        (ns * 1e-9, "s")
    } else if ns >= 1e6 {
        (ns * 1e-6, "ms")
    } else if ns >= 1e3 {
        (ns * 1e-3, "us")
    } else {
        (ns, "ns")
    };
    let digits = if v >= 100.0 {
        1
    } else if v >= 10.0 {
        2
    } else {
        3
    };
    format!("{v:.digits$} {unit}")
}

/// Lays out rows under headers; `right[i]` right-aligns column i.
fn render(headers: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut s = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i > 0 {
                s.push_str("  ");
            }
            if right[i] {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            } else {
                s.push_str(cell);
                if i + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        s.trim_end().to_string()
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = line(headers.to_vec());
    out.push('\n');
    out.push_str(&line(rule.iter().map(String::as_str).collect()));
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

/// The results table: one row per (point, implementation) with the center
/// (value and `mean`/`median*`), median, mean, noise (std/mean), TFLOP/s,
/// GB/s, bound and speedup; footnotes give the reason for every median
/// choice and every sample drop, so the table stands alone.
pub fn table(results: &Results) -> String {
    let headers = [
        "point", "impl", "center", "median", "mean", "noise", "TFLOP/s", "GB/s", "bound", "speedup",
    ];
    let right = [
        false, false, true, true, true, true, true, true, false, true,
    ];
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for p in &results.points {
        let s = &p.summary;
        let center = match &s.center {
            crate::stats::Center::Mean => format!("{} mean", format_ns(s.mean)),
            crate::stats::Center::Median { reason } => {
                notes.push(format!(
                    "* {} / {}: median reported, {reason}",
                    p.label(),
                    p.implementation
                ));
                format!("{} median*", format_ns(s.median))
            }
        };
        // A point that stopped before its noise target is valid but noisier
        // than asked; nvbench warns, and so does the table.
        // (A fixed sample count that met the target is no such point.)
        let target = results.settings.stopping.max_relative_noise;
        if let Some(
            reason @ (StopReason::Timeout { noise, .. } | StopReason::MaxSamples { noise }),
        ) = &p.stop_reason
        {
            if s.count < 2 {
                // A timeout after one sample read as 0% noise, within any
                // target (adversarial test, 2026-11-27).
                notes.push(format!(
                    "! {} / {}: stopped after one sample ({}): its noise cannot be measured",
                    p.label(),
                    p.implementation,
                    match reason {
                        StopReason::Timeout { .. } => "the timeout",
                        _ => "the sample cap",
                    }
                ));
            } else if *noise <= target {
                // Stopped by the cap or the clock, but within the target.
            } else {
                notes.push(format!(
                    "! {} / {}: {reason}, above the {}% noise target",
                    p.label(),
                    p.implementation,
                    rate(100.0 * target, 2)
                ));
            }
        }
        if p.dropped_throttled > 0 {
            notes.push(format!(
                "{} / {}: {} throttled samples dropped",
                p.label(),
                p.implementation,
                p.dropped_throttled
            ));
        }
        let dash = || "-".to_string();
        // A work count not given (0) is no rate: "0.0 GB/s" read as a
        // kernel that moved nothing.
        let given = |count: f64, r: String| if count > 0.0 { r } else { dash() };
        let (tflops, gbps, bound) = match (&p.metrics, &p.work) {
            (Some(m), w) => {
                let (f, b) = w.as_ref().map_or((1.0, 1.0), |w| (w.flops, w.bytes));
                (
                    given(f, rate(m.tflops(), 2)),
                    given(b, rate(m.gbps(), 1)),
                    m.bound.to_string(),
                )
            }
            (None, Some(w)) => {
                let t = s.center_value() * 1e-9;
                if t > 0.0 {
                    (
                        given(w.flops, rate(w.flops / t * 1e-12, 2)),
                        given(w.bytes, rate(w.bytes / t * 1e-9, 1)),
                        dash(),
                    )
                } else {
                    (dash(), dash(), dash())
                }
            }
            _ => (dash(), dash(), dash()),
        };
        rows.push(vec![
            p.label(),
            p.implementation.clone(),
            center,
            format_ns(s.median),
            format_ns(s.mean),
            // One sample has no spread to measure: not 0%.
            if s.count < 2 {
                dash()
            } else {
                format!("{}%", rate(100.0 * s.rel_noise, 2))
            },
            tflops,
            gbps,
            bound,
            results
                .speedup_of(p)
                .map_or_else(dash, |x| format!("{x:.2}x")),
        ]);
    }
    let mut out = render(&headers, &right, &rows);
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// The outcome of matching one (point, implementation) across two files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MatchOutcome {
    Compared(Box<Comparison>),
    OnlyInBaseline,
    OnlyInNew,
}

/// One row of a baseline check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointComparison {
    pub point: String,
    pub implementation: String,
    pub outcome: MatchOutcome,
}

impl PointComparison {
    pub fn verdict(&self) -> Option<Verdict> {
        match &self.outcome {
            MatchOutcome::Compared(c) => Some(c.verdict),
            _ => None,
        }
    }
}

/// Why two results files are not like for like (device, target, host
/// threads), or why nothing was compared: what a baseline check must say
/// before its verdicts, so a CI gate does not pass against an unrelated
/// baseline.
pub fn comparability_warnings(
    base: &Results,
    new: &Results,
    cmp: &[PointComparison],
) -> Vec<String> {
    let mut out = Vec::new();
    if base.device.name != new.device.name || base.device.kind != new.device.kind {
        out.push(format!(
            "the baseline was measured on `{}` ({:?}), these results on `{}` ({:?}): times are not comparable",
            base.device.name, base.device.kind, new.device.name, new.device.kind
        ));
    }
    // What one sample contains must match: a cold cache against a warm one
    // read +500% as a regression.
    let (bs, ns) = (&base.settings, &new.settings);
    if bs.flush != ns.flush {
        let state = |f: bool| {
            if f {
                "flushed before every sample"
            } else {
                "not flushed"
            }
        };
        out.push(format!(
            "the baseline's cache was {}, these results' {}: times are not comparable",
            state(bs.flush),
            state(ns.flush)
        ));
    }
    if bs.cuda_graphs != ns.cuda_graphs {
        out.push(
            "one side replayed CUDA graphs and the other did not: times are not comparable".into(),
        );
    }
    if let (Some(b), Some(n)) = (&bs.timed, &ns.timed) {
        if b != n {
            out.push(format!(
                "the baseline timed \"{b}\", these results \"{n}\": times are not comparable"
            ));
        }
    }
    if let (Some(b), Some(n)) = (base.settings.host_threads, new.settings.host_threads) {
        if b != n {
            out.push(format!(
                "the baseline ran on {b} host thread(s), these results on {n}: times are not comparable"
            ));
        }
    }
    if !cmp.is_empty() && cmp.iter().all(|c| c.verdict().is_none()) {
        out.push(
            "no point of the baseline matches these results (same parameters and implementation): \
             nothing was compared"
                .into(),
        );
    }
    out
}

/// Matches points by (parameters, implementation) and compares their raw
/// samples (cycles too when both files have them).
pub fn compare_results(
    base: &Results,
    new: &Results,
    cfg: &CompareConfig,
) -> Result<Vec<PointComparison>> {
    cfg.validate()?;
    base.check_unique("the baseline")?;
    new.check_unique("the new results")?;
    let key = |p: &PointResult| (p.label(), p.implementation.clone());
    let mut out = Vec::new();
    for b in &base.points {
        let k = key(b);
        let outcome = match new.points.iter().find(|n| key(n) == k) {
            Some(n) => {
                MatchOutcome::Compared(Box::new(compare(samples_of(b), samples_of(n), cfg)?))
            }
            None => MatchOutcome::OnlyInBaseline,
        };
        out.push(PointComparison {
            point: k.0,
            implementation: k.1,
            outcome,
        });
    }
    for n in &new.points {
        let k = key(n);
        if !base.points.iter().any(|b| key(b) == k) {
            out.push(PointComparison {
                point: k.0,
                implementation: k.1,
                outcome: MatchOutcome::OnlyInNew,
            });
        }
    }
    Ok(out)
}

fn samples_of(p: &PointResult) -> Samples<'_> {
    Samples {
        ns: &p.samples_ns,
        cycles: p.cycles.as_deref(),
    }
}

/// True when any point regressed: the CLI exits non-zero on this.
pub fn has_regression(comparisons: &[PointComparison]) -> bool {
    comparisons
        .iter()
        .any(|c| c.verdict() == Some(Verdict::Regression))
}

/// The baseline-check table: base and new medians, change, Mann-Whitney p,
/// the bootstrap interval of the median ratio, the cycle change and the
/// verdict; each verdict's reason follows as a note.
pub fn comparison_table(comparisons: &[PointComparison]) -> String {
    let headers = [
        "point",
        "impl",
        "base",
        "new",
        "change",
        "p",
        "CI (ratio)",
        "cycles",
        "verdict",
    ];
    let right = [false, false, true, true, true, true, true, true, false];
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for c in comparisons {
        let dash = || "-".to_string();
        let row = match &c.outcome {
            MatchOutcome::Compared(cmp) => {
                let t = &cmp.time;
                if cmp.verdict != Verdict::NoChange || t.verdict != cmp.verdict {
                    notes.push(format!(
                        "{} / {}: {}",
                        c.point, c.implementation, cmp.reason
                    ));
                }
                vec![
                    format_ns(t.median_base),
                    format_ns(t.median_new),
                    crate::compare::signed_percent(t.change()),
                    format!("{:.1e}", t.mann_whitney.p_value),
                    crate::compare::ratio_interval(t.bootstrap.low, t.bootstrap.high),
                    cmp.cycles
                        .as_ref()
                        .map_or_else(dash, |m| crate::compare::signed_percent(m.change())),
                    cmp.verdict.to_string(),
                ]
            }
            MatchOutcome::OnlyInBaseline => {
                let mut r = vec![dash(); 6];
                r.push("missing in new".into());
                r
            }
            MatchOutcome::OnlyInNew => {
                let mut r = vec![dash(); 6];
                r.push("new point".into());
                r
            }
        };
        let mut full = vec![c.point.clone(), c.implementation.clone()];
        full.extend(row);
        rows.push(full);
    }
    let mut out = render(&headers, &right, &rows);
    for n in notes {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// A rate for a table cell: `decimals` places, or `1.29e296` once it
/// would take more than a dozen digits (a declared work count of 1e300
/// printed three hundred).
fn rate(v: f64, decimals: usize) -> String {
    if (v.is_finite() && v.abs() >= 1e12) || (v != 0.0 && v.abs() < 1e-6) {
        format!("{v:.2e}")
    } else if v != 0.0 && v.abs() < 10f64.powi(-(decimals as i32)) {
        // 0.0021 TFLOP/s on a host, not "0.00": three significant digits.
        let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
        format!("{v:.decimals$}")
    } else {
        format!("{v:.decimals$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flops::{matmul, DType};
    use crate::roofline::PeakSource;

    fn params(m: i64, dtype: &str) -> BTreeMap<String, Param> {
        [
            ("M".to_string(), Param::Int(m)),
            ("dtype".to_string(), Param::from(dtype)),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn rates_stay_short_in_table_cells() {
        for (v, d, want) in [
            (1.2345, 2, "1.23"),
            (812.34, 1, "812.3"),
            (1.2949578e296, 2, "1.29e296"),
            (f64::INFINITY, 2, "inf"),
        ] {
            assert_eq!(rate(v, d), want);
        }
    }

    fn device() -> DeviceInfo {
        DeviceInfo {
            name: "Test GPU".into(),
            kind: DeviceKind::Cuda,
            gpu_before: None,
            gpu_after: None,
            host: None,
            notes: vec!["NVML: not loaded".into()],
        }
    }

    fn sample_results() -> Results {
        let peaks =
            DevicePeaks::new("Test GPU", PeakSource::Measured, 3e12).with_compute("bf16", 600e12);
        let mut r = Results::new(device(), Settings::default());
        let base: Vec<f64> = (0..20)
            .map(|i| 1_000_000.0 + 1000.0 * (i % 5) as f64)
            .collect();
        let fast: Vec<f64> = base.iter().map(|x| x / 2.0).collect();
        let mut skewed = base.clone();
        skewed.push(9_000_000.0);
        let w = matmul(4096, 4096, 4096, DType::Bf16, DType::Bf16);
        r.push(
            PointResult::new(params(4096, "bf16"), "naive", base.clone())
                .unwrap()
                .with_work(w, Some(&peaks), None)
                .unwrap(),
        );
        r.push(
            PointResult::new(params(4096, "bf16"), "tiled", fast)
                .unwrap()
                .with_cycles(base.iter().map(|x| x * 1.98).collect())
                .unwrap()
                .with_work(w, None, None)
                .unwrap(),
        );
        let mut odd = PointResult::new(params(128, "bf16"), "naive", skewed).unwrap();
        odd.dropped_throttled = 3;
        r.push(odd);
        r.compute_speedups(None);
        r.peaks = Some(peaks);
        r
    }

    #[test]
    fn roofline_points_from_results() {
        let r = sample_results();
        let pts = r.roofline_points();
        assert_eq!(pts.len(), 2, "only points with work");
        assert_eq!(pts[0].label, "naive M=4096 dtype=bf16");
        assert_eq!(pts[0].compute.as_deref(), Some("bf16"));
        assert_eq!(pts[1].compute, None);
        assert!((pts[1].time_s - 501e-6).abs() < 1e-12);
        let svg = crate::roofline::plot_svg_string(
            r.peaks.as_ref().unwrap(),
            None,
            &pts,
            &crate::roofline::PlotOptions::default(),
        )
        .unwrap();
        assert!(svg.contains("tiled M=4096 dtype=bf16"));
    }

    #[test]
    fn speedups_use_the_baseline_impl() {
        let mut r = sample_results();
        assert_eq!(r.speedups.len(), 2);
        let tiled = r
            .speedups
            .iter()
            .find(|s| s.implementation == "tiled")
            .unwrap();
        assert_eq!((tiled.baseline.as_str(), tiled.speedup), ("naive", 2.0));
        r.compute_speedups(Some("tiled"));
        let naive = r
            .speedups
            .iter()
            .find(|s| s.implementation == "naive")
            .unwrap();
        assert_eq!((naive.baseline.as_str(), naive.speedup), ("tiled", 0.5));
        // Unknown baseline name: first measured.
        r.compute_speedups(Some("cublas"));
        assert!(r.speedups.iter().all(|s| s.baseline == "naive"));
    }

    #[test]
    fn json_round_trip_and_version_check() {
        let r = sample_results();
        let dir = std::env::temp_dir().join(format!("kperf-bench-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("results.json");
        r.save(&path).unwrap();
        let back = Results::load(&path).unwrap();
        // serde_json may round long decimals by an ulp on the way back, so
        // compare exact fields exactly and derived ones closely.
        assert_eq!(
            (&back.device, &back.settings, &back.speedups),
            (&r.device, &r.settings, &r.speedups)
        );
        for (a, b) in back.points.iter().zip(&r.points) {
            assert_eq!(
                (&a.params, &a.implementation, &a.samples_ns, &a.cycles),
                (&b.params, &b.implementation, &b.samples_ns, &b.cycles)
            );
            assert!((a.summary.rel_noise - b.summary.rel_noise).abs() <= 1e-15);
            assert_eq!(a.summary.center_name(), b.summary.center_name());
            assert_eq!(
                a.metrics.as_ref().map(|m| m.bound),
                b.metrics.as_ref().map(|m| m.bound)
            );
        }
        assert_eq!(back.points.len(), r.points.len());
        let text = std::fs::read_to_string(&path).unwrap();
        for field in [
            "\"samples_ns\"",
            "\"cycles\"",
            "\"dropped_throttled\": 3",
            "\"stopping\"",
            "\"kind\": \"median\"",
            "\"M\": 4096",
            "\"dtype\": \"bf16\"",
        ] {
            assert!(text.contains(field), "missing {field}");
        }
        let old = text.replacen("\"schema_version\": 1", "\"schema_version\": 0", 1);
        let e = Results::from_json(&old, &path).unwrap_err().to_string();
        assert!(e.contains("schema version 0"), "{e}");
        let e = Results::from_json("{", &path).unwrap_err().to_string();
        assert!(e.contains("results.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn results_table_layout() {
        let t = table(&sample_results());
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("point"), "{t}");
        for h in [
            "impl", "center", "median", "mean", "noise", "TFLOP/s", "GB/s", "bound", "speedup",
        ] {
            assert!(lines[0].contains(h), "{h} in {}", lines[0]);
        }
        assert!(
            lines[1].chars().all(|c| c == '-' || c == ' '),
            "{}",
            lines[1]
        );
        // Rows: naive (metrics: 2·4096³ FLOP in 1.002 ms = 137.16 TFLOP/s, compute
        // side but 23% of peak), tiled (work only), the skewed one.
        assert!(
            lines[2].contains("M=4096 dtype=bf16") && lines[2].contains("naive"),
            "{t}"
        );
        assert!(
            lines[2].contains("1.002 ms mean") && lines[2].contains("137.16"),
            "{t}"
        );
        assert!(
            lines[2].contains("compute") && lines[2].contains("1.00x"),
            "{t}"
        );
        assert!(
            lines[3].contains("274.33") && lines[3].contains("2.00x"),
            "{t}"
        );
        assert!(lines[4].contains("median*"), "{t}");
        assert!(
            t.contains("* M=128 dtype=bf16 / naive: median reported"),
            "{t}"
        );
        assert!(t.contains("3 throttled samples dropped"), "{t}");
        // Columns line up: every data row is as wide as the rule at most.
        let width = lines[1].chars().count();
        assert!(
            lines[2..5].iter().all(|l| l.chars().count() <= width),
            "{t}"
        );
        assert_eq!(format_ns(812.0), "812.0 ns");
        assert_eq!(format_ns(12_345.0), "12.35 us");
        assert_eq!(format_ns(1_234_567.0), "1.235 ms");
        assert_eq!(format_ns(2.5e9), "2.500 s");
        assert_eq!(format_ns(1e300), "1.000e291 s");
        assert_eq!(format_ns(1e-320), "1.000e-320 ns");
        assert_eq!(format_ns(0.0), "0.000 ns");
    }

    #[test]
    fn baseline_check_table() {
        let base = sample_results();
        let mut new = sample_results();
        // naive 20% slower in time; tiled slower in time but not in cycles
        // (a clock drop); the M=128 point removed; a new point added.
        for x in new.points[0].samples_ns.iter_mut() {
            *x *= 1.2;
        }
        for x in new.points[1].samples_ns.iter_mut() {
            *x *= 1.2;
        }
        new.points.remove(2);
        new.push(PointResult::new(params(8192, "bf16"), "naive", vec![1.0, 2.0, 3.0]).unwrap());
        let cmp = compare_results(&base, &new, &CompareConfig::default()).unwrap();
        let verdicts: Vec<(String, Option<Verdict>)> = cmp
            .iter()
            .map(|c| (format!("{} {}", c.point, c.implementation), c.verdict()))
            .collect();
        assert_eq!(
            verdicts,
            [
                (
                    "M=4096 dtype=bf16 naive".to_string(),
                    Some(Verdict::Regression)
                ),
                (
                    "M=4096 dtype=bf16 tiled".to_string(),
                    Some(Verdict::NoChange)
                ),
                ("M=128 dtype=bf16 naive".to_string(), None),
                ("M=8192 dtype=bf16 naive".to_string(), None),
            ]
        );
        assert!(has_regression(&cmp));
        let t = comparison_table(&cmp);
        assert!(t.contains("REGRESSION") && t.contains("+20.0%"), "{t}");
        assert!(
            t.contains("missing in new") && t.contains("new point"),
            "{t}"
        );
        assert!(t.contains("clock change"), "{t}");
        let same = compare_results(&base, &base, &CompareConfig::default()).unwrap();
        assert!(!has_regression(&same));
        assert!(numeric_params(&params(7, "f16")).get("M") == Some(&7.0));
        assert_eq!(point_label(&BTreeMap::new()), "-");
    }
}
