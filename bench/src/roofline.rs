//! Device peaks, the metrics derived from them, and the roofline plot.
//!
//! The roofs that matter are the *measured* ones (`kperf peak`: a streaming
//! copy for bandwidth, a tensor-core loop per dtype for compute), because
//! they are what a kernel can actually reach on this machine, clocks, power
//! caps and all. Vendor datasheet numbers are kept only as dashed reference
//! lines: MFU against a datasheet peak mixes "my kernel is slow" with "the
//! datasheet is optimistic".

use std::collections::BTreeMap;
use std::path::Path;

use plotters::coord::combinators::LogCoord;
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};

/// Version of the device-profile JSON.
pub const PROFILE_VERSION: u32 = 1;

/// Where peak numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PeakSource {
    /// Measured on this device by `kperf peak`.
    Measured,
    /// From a datasheet; reference only.
    Vendor,
}

/// Peak bandwidth and compute of one device: the device profile file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DevicePeaks {
    pub version: u32,
    /// Device name as the driver reports it.
    pub device: String,
    pub source: PeakSource,
    /// Main-memory (HBM/DRAM) bandwidth.
    pub bandwidth_bytes_per_s: f64,
    /// Compute roof per kind, e.g. `"bf16_tensor"`, `"fp32"`, `"fp8_tensor"`.
    pub compute_flops_per_s: BTreeMap<String, f64>,
    /// Free-form provenance: clocks during measurement, kernel used, ...
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Peak bandwidths a device can have, bytes/s.
const PLAUSIBLE_BANDWIDTH: std::ops::RangeInclusive<f64> = 1e3..=1e16;
/// Peak compute rates a device can have, FLOP/s.
const PLAUSIBLE_COMPUTE: std::ops::RangeInclusive<f64> = 1e3..=1e20;

impl DevicePeaks {
    /// Peaks with a bandwidth and no compute roofs yet.
    pub fn new(device: &str, source: PeakSource, bandwidth_bytes_per_s: f64) -> DevicePeaks {
        DevicePeaks {
            version: PROFILE_VERSION,
            device: device.to_string(),
            source,
            bandwidth_bytes_per_s,
            compute_flops_per_s: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    /// Adds (or replaces) one compute roof.
    pub fn with_compute(mut self, kind: &str, flops_per_s: f64) -> DevicePeaks {
        self.compute_flops_per_s
            .insert(kind.to_string(), flops_per_s);
        self
    }

    /// Every peak must be one a device can have (bandwidth 1 kB/s to
    /// 10 PB/s, compute 1 kFLOP/s to 100 EFLOP/s: far beyond today's
    /// devices either way, and finite metrics and plot axes follow) and
    /// there must be at least one compute roof, or no metric can be derived.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str, v: f64, range: &str| {
            // 1e-299, not three hundred digits.
            let shown = if v.is_finite() && v != 0.0 && !(1e-3..1e21).contains(&v.abs()) {
                format!("{v:e}")
            } else {
                format!("{v}")
            };
            BenchError::setting(what, shown, &format!("a peak must lie in {range}"))
        };
        if !PLAUSIBLE_BANDWIDTH.contains(&self.bandwidth_bytes_per_s) {
            return Err(bad(
                "bandwidth_bytes_per_s",
                self.bandwidth_bytes_per_s,
                "1e3..=1e16 bytes/s",
            ));
        }
        if self.compute_flops_per_s.is_empty() {
            return Err(BenchError::setting(
                "compute_flops_per_s",
                "{}",
                "at least one compute roof is needed",
            ));
        }
        for (k, &v) in &self.compute_flops_per_s {
            if !PLAUSIBLE_COMPUTE.contains(&v) {
                return Err(bad(
                    &format!("compute_flops_per_s.{k}"),
                    v,
                    "1e3..=1e20 FLOP/s",
                ));
            }
        }
        Ok(())
    }

    /// The compute roof named `kind`, or the highest one when `None`.
    pub fn compute(&self, kind: Option<&str>) -> Result<(String, f64)> {
        match kind {
            Some(k) => self
                .compute_flops_per_s
                .get(k)
                .map(|&v| (k.to_string(), v))
                .ok_or_else(|| BenchError::Metric {
                    what: format!("the compute roof `{k}` of {}", self.device),
                    why: format!(
                        "the profile has {}",
                        self.compute_flops_per_s
                            .keys()
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }),
            None => self
                .compute_flops_per_s
                .iter()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(k, &v)| (k.clone(), v))
                .ok_or_else(|| BenchError::Metric {
                    what: format!("a compute roof of {}", self.device),
                    why: "the profile has no compute roofs".into(),
                }),
        }
    }

    /// Arithmetic intensity (FLOP/byte) where the memory slope meets the
    /// compute roof `kind`.
    pub fn ridge(&self, kind: Option<&str>) -> Result<f64> {
        Ok(self.compute(kind)?.1 / self.bandwidth_bytes_per_s)
    }

    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self).map_err(|source| BenchError::Json {
            action: "serialising device profile",
            path: self.device.clone().into(),
            source,
        })
    }

    /// Parses and validates a profile; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &Path) -> Result<DevicePeaks> {
        let p: DevicePeaks = serde_json::from_str(text).map_err(|source| BenchError::Json {
            action: "reading device profile",
            path: origin.to_path_buf(),
            source,
        })?;
        if p.version != PROFILE_VERSION {
            return Err(BenchError::SchemaVersion {
                path: origin.to_path_buf(),
                found: p.version,
                supported: PROFILE_VERSION,
            });
        }
        p.validate()?;
        Ok(p)
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_json()?).map_err(|source| BenchError::Io {
            action: "writing device profile",
            path: path.to_path_buf(),
            source,
        })
    }

    pub fn load(path: &Path) -> Result<DevicePeaks> {
        let text = crate::error::read_input(path).map_err(|source| BenchError::Io {
            action: "reading device profile",
            path: path.to_path_buf(),
            source,
        })?;
        DevicePeaks::from_json(&text, path)
    }
}

/// One measured kernel for the roofline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub label: String,
    pub flops: f64,
    pub bytes: f64,
    /// The reported time (the summary's center), in seconds.
    pub time_s: f64,
    /// Which compute roof applies (`None`: the highest).
    #[serde(default)]
    pub compute: Option<String>,
}

/// What bounds a kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Left of the ridge: bytes limit it.
    Memory,
    /// Right of the ridge: FLOPs limit it.
    Compute,
    /// Far under both roofs (see [`LATENCY_THRESHOLD`]).
    Latency,
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
            Bound::Latency => "latency",
        })
    }
}

/// A kernel achieving less than this fraction of its attainable
/// performance is called latency-bound.
///
/// Attainable = min(peak compute, AI × bandwidth), and achieved/attainable
/// equals max(MFU, MBU) (left of the ridge it is MBU, right of it MFU), so
/// this is the same as "both MFU and MBU under 10%". At that point neither
/// throughput is the limit: what remains is latency — launch overhead, too
/// few CTAs to fill the machine, dependency chains, synchronisation — and
/// the fix is more parallelism or fusion, not fewer bytes or FLOPs. 10% is
/// a convention, loose enough that well-tuned small kernels (which reach
/// 20–50%) are still classified by their roof.
pub const LATENCY_THRESHOLD: f64 = 0.1;

/// Derived metrics of one point against one set of peaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub flops_per_s: f64,
    pub bytes_per_s: f64,
    /// FLOP/byte; `None` when no bytes move (infinitely compute-heavy).
    pub intensity: Option<f64>,
    /// The compute roof used.
    pub compute_kind: String,
    pub peak_flops_per_s: f64,
    /// Achieved FLOP/s over the compute peak.
    pub mfu: f64,
    /// Achieved bytes/s over the bandwidth peak.
    pub mbu: f64,
    /// min(peak compute, AI × bandwidth).
    pub attainable_flops_per_s: f64,
    /// Achieved over attainable (= max(MFU, MBU)).
    pub fraction_of_attainable: f64,
    pub ridge_intensity: f64,
    pub bound: Bound,
}

impl Metrics {
    pub fn tflops(&self) -> f64 {
        self.flops_per_s * 1e-12
    }
    pub fn gbps(&self) -> f64 {
        self.bytes_per_s * 1e-9
    }
}

/// TFLOP/s, GB/s, AI, MFU, MBU, attainable bound and classification of one
/// point with the default [`LATENCY_THRESHOLD`].
pub fn analyze(peaks: &DevicePeaks, point: &Point) -> Result<Metrics> {
    analyze_with(peaks, point, LATENCY_THRESHOLD)
}

/// As [`analyze`], with an explicit latency threshold.
pub fn analyze_with(peaks: &DevicePeaks, point: &Point, latency_threshold: f64) -> Result<Metrics> {
    peaks.validate()?;
    let what = || format!("metrics of `{}`", point.label);
    if !(point.time_s.is_finite() && point.time_s > 0.0) {
        return Err(BenchError::Metric {
            what: what(),
            why: format!("time {} s is not a positive duration", point.time_s),
        });
    }
    for (name, v) in [("flops", point.flops), ("bytes", point.bytes)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(BenchError::Metric {
                what: what(),
                why: format!("{name} = {v} is not a finite non-negative count"),
            });
        }
    }
    let (kind, peak) = peaks.compute(point.compute.as_deref())?;
    let bw = peaks.bandwidth_bytes_per_s;
    let flops_per_s = point.flops / point.time_s;
    let bytes_per_s = point.bytes / point.time_s;
    let intensity = (point.bytes > 0.0).then(|| point.flops / point.bytes);
    let attainable = intensity.map_or(peak, |ai| peak.min(ai * bw));
    let mfu = flops_per_s / peak;
    let mbu = bytes_per_s / bw;
    let fraction = if attainable > 0.0 {
        flops_per_s / attainable
    } else {
        // No FLOPs at all (a copy): only bandwidth can be judged.
        mbu
    };
    let ridge = peak / bw;
    let bound = if fraction < latency_threshold {
        Bound::Latency
    } else if intensity.is_some_and(|ai| ai < ridge) {
        Bound::Memory
    } else {
        Bound::Compute
    };
    Ok(Metrics {
        flops_per_s,
        bytes_per_s,
        intensity,
        compute_kind: kind,
        peak_flops_per_s: peak,
        mfu,
        mbu,
        attainable_flops_per_s: attainable,
        fraction_of_attainable: fraction,
        ridge_intensity: ridge,
        bound,
    })
}

/// Size and title of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotOptions {
    pub title: String,
    pub width: u32,
    pub height: u32,
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            title: "Roofline".into(),
            width: 1000,
            height: 700,
        }
    }
}

type LogChart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

fn plot_err<E: std::fmt::Display>(e: E) -> BenchError {
    BenchError::Plot(e.to_string())
}

/// Renders the roofline to an SVG string: log-log axes (FLOP/byte against
/// FLOP/s), the measured memory slope and one ceiling per measured compute
/// roof with its ridge point marked, the vendor roofs dashed when given,
/// and each point as a labelled dot. Points with no FLOPs or no bytes have
/// no place on a log-log roofline; they are listed under the title instead.
pub fn plot_svg_string(
    peaks: &DevicePeaks,
    vendor: Option<&DevicePeaks>,
    points: &[Point],
    options: &PlotOptions,
) -> Result<String> {
    peaks.validate()?;
    if let Some(v) = vendor {
        v.validate()?;
    }
    // Place the points.
    let mut placed = Vec::new();
    let mut skipped = Vec::new();
    for p in points {
        let (ai, perf) = (p.flops / p.bytes, p.flops / p.time_s);
        // Inputs finite and positive, and so the quotients (1e308 FLOPs in
        // 1e-300 s is not a rate a plot can place).
        let usable = [p.flops, p.bytes, p.time_s, ai, perf]
            .iter()
            .all(|v| v.is_finite() && *v > 0.0);
        if usable {
            placed.push((p.label.clone(), ai, perf));
        } else {
            skipped.push(p.label.clone());
        }
    }
    // Axis ranges: every point and ridge, with a decade of margin.
    let roofs: Vec<&DevicePeaks> = std::iter::once(peaks).chain(vendor).collect();
    let mut xs: Vec<f64> = placed.iter().map(|p| p.1).collect();
    let mut ys: Vec<f64> = placed.iter().map(|p| p.2).collect();
    for r in &roofs {
        for &c in r.compute_flops_per_s.values() {
            xs.push(c / r.bandwidth_bytes_per_s);
            ys.push(c);
        }
    }
    let decade_floor = |v: f64| 10f64.powf(v.log10().floor());
    let decade_ceil = |v: f64| 10f64.powf(v.log10().ceil());
    let x_lo = decade_floor(xs.iter().copied().fold(f64::INFINITY, f64::min) / 4.0);
    let x_hi = decade_ceil(xs.iter().copied().fold(0.0, f64::max) * 4.0);
    let min_bw = roofs
        .iter()
        .map(|r| r.bandwidth_bytes_per_s)
        .fold(f64::INFINITY, f64::min);
    let y_lo = decade_floor(
        ys.iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .min(x_lo * min_bw)
            / 2.0,
    );
    let y_hi = decade_ceil(ys.iter().copied().fold(0.0, f64::max) * 2.0);
    // A log axis from 0 or to infinity never ends its ticks (plotters
    // looped forever), nor is one of hundreds of decades a plot.
    let span_ok =
        |lo: f64, hi: f64| lo.is_finite() && hi.is_finite() && lo > 0.0 && hi / lo <= 1e40;
    if !span_ok(x_lo, x_hi) || !span_ok(y_lo, y_hi) {
        return Err(BenchError::Metric {
            what: "the roofline plot".into(),
            why: format!(
                "its axes would span {x_lo:e} to {x_hi:e} FLOP/byte and {y_lo:e} to {y_hi:e} \
                 FLOP/s: a result's FLOPs, bytes or time is implausible"
            ),
        });
    }

    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (options.width, options.height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let mut title = options.title.clone();
        if !skipped.is_empty() {
            title.push_str(&format!(
                " (not plotted, zero or non-finite FLOPs or bytes: {})",
                skipped.join(", ")
            ));
        }
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(90)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("arithmetic intensity (FLOP/byte)")
            .y_desc("performance (FLOP/s)")
            .x_label_formatter(&|v| si(*v, ""))
            .y_label_formatter(&|v| si(*v, "FLOP/s"))
            .draw()
            .map_err(plot_err)?;

        if let Some(v) = vendor {
            draw_roofs(&mut chart, v, x_lo, x_hi, true)?;
        }
        draw_roofs(&mut chart, peaks, x_lo, x_hi, false)?;

        for (i, (label, ai, perf)) in placed.iter().enumerate() {
            let color = PALETTE[(i + 2) % PALETTE.len()];
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((*ai, *perf))
                        + Circle::new((0, 0), 5, color.filled())
                        + Text::new(label.clone(), (8, -14), ("sans-serif", 14).into_font()),
                ))
                .map_err(plot_err)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err)?;
        root.present().map_err(plot_err)?;
    }
    Ok(svg)
}

/// The memory slope up to the highest ridge, then one ceiling per compute
/// roof from its own ridge; dashed and grey for vendor peaks.
fn draw_roofs(
    chart: &mut LogChart<'_, '_>,
    peaks: &DevicePeaks,
    x_lo: f64,
    x_hi: f64,
    dashed: bool,
) -> Result<()> {
    let bw = peaks.bandwidth_bytes_per_s;
    let who = if dashed { "vendor" } else { "measured" };
    let grey = RGBColor(130, 130, 130);
    let (_, top) = peaks.compute(None)?;
    let mem_color = if dashed { grey } else { PALETTE[0] };
    let mem_line = vec![(x_lo, x_lo * bw), (top / bw, top)];
    let mem_label = format!("{who} memory {:.0} GB/s", bw * 1e-9);
    draw_line(chart, mem_line, mem_color, dashed, mem_label)?;
    for (i, (kind, &peak)) in peaks.compute_flops_per_s.iter().enumerate() {
        let ridge = peak / bw;
        let color = if dashed {
            grey
        } else {
            PALETTE[(1 + i * 3) % PALETTE.len()]
        };
        let label = format!("{who} {kind} {}", si(peak, "FLOP/s"));
        draw_line(
            chart,
            vec![(ridge, peak), (x_hi, peak)],
            color,
            dashed,
            label,
        )?;
        if !dashed {
            let text = format!("ridge {kind}: {:.1} FLOP/B", ridge);
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((ridge, peak))
                        + Circle::new((0, 0), 4, color.filled())
                        + Text::new(text, (6, 8), ("sans-serif", 12).into_font()),
                ))
                .map_err(plot_err)?;
        }
    }
    Ok(())
}

fn draw_line(
    chart: &mut LogChart<'_, '_>,
    pts: Vec<(f64, f64)>,
    color: RGBColor,
    dashed: bool,
    label: String,
) -> Result<()> {
    let style = color.stroke_width(if dashed { 1 } else { 2 });
    let anno = if dashed {
        chart
            .draw_series(DashedLineSeries::new(pts, 8, 5, style))
            .map_err(plot_err)?
    } else {
        chart
            .draw_series(LineSeries::new(pts, style))
            .map_err(plot_err)?
    };
    anno.label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    Ok(())
}

/// Writes [`plot_svg_string`] to `path` with default options and the
/// device name in the title.
pub fn plot_svg(
    peaks: &DevicePeaks,
    vendor: Option<&DevicePeaks>,
    points: &[Point],
    path: &Path,
) -> Result<()> {
    let options = PlotOptions {
        title: format!("Roofline: {}", peaks.device),
        ..PlotOptions::default()
    };
    let svg = plot_svg_string(peaks, vendor, points, &options)?;
    std::fs::write(path, svg).map_err(|source| BenchError::Io {
        action: "writing roofline",
        path: path.to_path_buf(),
        source,
    })
}

/// `1.5e12` with unit `FLOP/s` -> `1.5 TFLOP/s`; keeps axis labels short.
pub fn si(v: f64, unit: &str) -> String {
    // Rounded first, so 999999.99 reads "1 M", not "1000 k".
    let v = round_significant(v, 3);
    let prefixes = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, p) in prefixes {
        if v.abs() >= scale {
            return format!("{} {p}{unit}", trim(v / scale));
        }
    }
    if unit.is_empty() {
        trim(v)
    } else {
        format!("{} {unit}", trim(v))
    }
}

/// `v` to three significant digits, without trailing zeros: 0.0001 is
/// "0.0001", not "0" (axis ticks below 0.001 FLOP/B all read "0").
fn trim(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    if v.abs() < 1e-4 {
        return format!("{v:.2e}");
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn round_significant(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(digits - 1 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H100-like profile: 3.35 TB/s, 989 TFLOP/s bf16, 67 TFLOP/s fp32.
    fn peaks() -> DevicePeaks {
        DevicePeaks::new("Test GPU", PeakSource::Measured, 3.0e12)
            .with_compute("bf16_tensor", 600e12)
            .with_compute("fp32", 60e12)
    }

    fn pt(label: &str, flops: f64, bytes: f64, time_s: f64, kind: Option<&str>) -> Point {
        Point {
            label: label.into(),
            flops,
            bytes,
            time_s,
            compute: kind.map(str::to_string),
        }
    }

    #[test]
    fn metrics_table() {
        let p = peaks();
        // ridge bf16 = 200 FLOP/B, fp32 = 20 FLOP/B.
        // (point, bound, mfu, mbu, attainable)
        let cases = [
            // AI 1000 > 200, 300 TFLOP/s: MFU .5
            (
                pt("gemm", 300e12, 0.3e12, 1.0, None),
                Bound::Compute,
                0.5,
                0.1,
                600e12,
            ),
            // AI 0.25, 2.4 TB/s: MBU .8
            (
                pt("copy-ish", 0.6e12, 2.4e12, 1.0, None),
                Bound::Memory,
                0.001,
                0.8,
                0.75e12,
            ),
            // AI 10 < ridge, 1.5 TB/s: MBU .5
            (
                pt("fp32 mid", 15e12, 1.5e12, 1.0, Some("fp32")),
                Bound::Memory,
                0.25,
                0.5,
                30e12,
            ),
            // Tiny: 5% of both roofs.
            (
                pt("tiny", 30e12, 0.15e12, 1.0, None),
                Bound::Latency,
                0.05,
                0.05,
                600e12,
            ),
            // Pure copy: no FLOPs, MBU .9.
            (
                pt("memcpy", 0.0, 2.7e12, 1.0, None),
                Bound::Memory,
                0.0,
                0.9,
                0.0,
            ),
            // Bytes 0: infinite AI, compute side.
            (
                pt("alu", 420e12, 0.0, 1.0, None),
                Bound::Compute,
                0.7,
                0.0,
                600e12,
            ),
        ];
        for (point, bound, mfu, mbu, attainable) in cases {
            let m = analyze(&p, &point).unwrap();
            let near = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            assert_eq!(m.bound, bound, "{}: {m:?}", point.label);
            assert!(near(m.mfu, mfu), "{}: mfu {}", point.label, m.mfu);
            assert!(near(m.mbu, mbu), "{}: mbu {}", point.label, m.mbu);
            assert!(
                near(m.attainable_flops_per_s, attainable),
                "{}: {m:?}",
                point.label
            );
            if point.flops > 0.0 {
                assert!(
                    near(m.fraction_of_attainable, m.mfu.max(m.mbu)),
                    "{}",
                    point.label
                );
            }
        }
        let m = analyze(&p, &pt("gemm", 300e12, 0.3e12, 2.0, None)).unwrap();
        assert!((m.tflops() - 150.0).abs() < 1e-9 && (m.gbps() - 150.0).abs() < 1e-9);
        assert_eq!(m.intensity, Some(1000.0));
        assert_eq!(
            (m.ridge_intensity, m.compute_kind.as_str()),
            (200.0, "bf16_tensor")
        );
    }

    #[test]
    fn metric_errors_name_the_problem() {
        let p = peaks();
        let cases = [
            (pt("a", 1.0, 1.0, 0.0, None), "time 0 s"),
            (pt("b", -1.0, 1.0, 1.0, None), "flops = -1"),
            (pt("c", 1.0, f64::NAN, 1.0, None), "bytes = NaN"),
            (pt("d", 1.0, 1.0, 1.0, Some("fp64")), "bf16_tensor, fp32"),
        ];
        for (point, words) in cases {
            let e = analyze(&p, &point).unwrap_err().to_string();
            assert!(e.contains(words), "{e}");
        }
        let bad = DevicePeaks::new("x", PeakSource::Vendor, 1e12);
        assert!(bad.validate().unwrap_err().to_string().contains("compute"));
    }

    #[test]
    fn profile_round_trips_through_json() {
        let dir = std::env::temp_dir().join(format!("kperf-bench-roof-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("device.json");
        let mut p = peaks();
        p.notes.push("sm clock 1980 MHz".into());
        p.save(&path).unwrap();
        assert_eq!(DevicePeaks::load(&path).unwrap(), p);
        // Wrong version is refused with the path.
        let text = p
            .to_json()
            .unwrap()
            .replace("\"version\": 1", "\"version\": 9");
        let e = DevicePeaks::from_json(&text, &path)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("schema version 9") && e.contains("device.json"),
            "{e}"
        );
        let e = DevicePeaks::load(&dir.join("missing.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing.json"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn svg_has_roofs_points_and_labels() {
        let vendor = DevicePeaks::new("Test GPU", PeakSource::Vendor, 3.35e12)
            .with_compute("bf16_tensor", 989e12);
        let points = [
            pt("gemm 4096³", 300e12, 0.3e12, 1.0, None),
            pt("softmax <fp32>", 1e12, 2e12, 1.0, None),
            pt("memcpy", 0.0, 2.7e12, 1.0, None),
            pt("broken", f64::INFINITY, 1.0, 1.0, None),
        ];
        let svg =
            plot_svg_string(&peaks(), Some(&vendor), &points, &PlotOptions::default()).unwrap();
        for needle in [
            "<svg",
            "Roofline",
            "gemm 4096³",
            "softmax &lt;fp32&gt;",
            "measured memory 3000 GB/s",
            "measured bf16_tensor 600 TFLOP/s",
            "measured fp32 60 TFLOP/s",
            "ridge bf16_tensor: 200.0 FLOP/B",
            "vendor memory 3350 GB/s",
            "vendor bf16_tensor 989 TFLOP/s",
            "not plotted, zero or non-finite FLOPs or bytes: memcpy, broken",
            "arithmetic intensity (FLOP/byte)",
        ] {
            assert!(svg.contains(needle), "missing {needle:?}");
        }
        // Without vendor peaks there is nothing dashed.
        let svg = plot_svg_string(&peaks(), None, &points[..1], &PlotOptions::default()).unwrap();
        assert!(!svg.contains("vendor"));

        let path = std::env::temp_dir().join(format!("kperf-bench-{}.svg", std::process::id()));
        plot_svg(&peaks(), None, &points, &path).unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.contains("Roofline: Test GPU"));
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn si_labels() {
        let cases = [
            (1.5e12, "FLOP/s", "1.5 TFLOP/s"),
            (989e12, "FLOP/s", "989 TFLOP/s"),
            (0.25, "", "0.25"),
            (1000.0, "", "1 k"),
            (2e15, "FLOP/s", "2 PFLOP/s"),
            (1e-4, "", "0.0001"),
            (0.001, "", "0.001"),
            (999_999.99, "", "1 M"),
            (3e-5, "", "3.00e-5"),
            (123.456e12, "FLOP/s", "123 TFLOP/s"),
        ];
        for (v, unit, want) in cases {
            assert_eq!(si(v, unit), want);
        }
    }
}
