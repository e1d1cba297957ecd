//! Benchmarks of Python callables with kperf-bench's own sampling loop,
//! statistics, results schema and regression test: the numbers
//! `kperf.bench` returns are computed by the code `kperf bench` runs.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use kperf_bench::compare::CompareConfig;
use kperf_bench::flops::Work;
use kperf_bench::host::{CacheFlusher, CycleTimer, HostInfo};
use kperf_bench::measure::{measure as sample_loop, Sample};
use kperf_bench::results::{
    compare_results as compare_points, comparison_table, has_regression, table, DeviceInfo,
    DeviceKind, Param, PointResult, Results, Settings,
};
use kperf_runtime::output::AtomicFile;
use pyo3::prelude::*;

use crate::error::{BindingError, Result};

/// The host cycle timer, calibrated once per process (it takes a few
/// milliseconds and does not change).
fn timer() -> Result<&'static CycleTimer> {
    static TIMER: OnceLock<std::result::Result<CycleTimer, String>> = OnceLock::new();
    TIMER
        .get_or_init(|| CycleTimer::calibrate().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| BindingError::Invalid(format!("host timer: {e}")))
}

fn parse<T: serde::de::DeserializeOwned>(what: &str, json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(BindingError::json(what.to_string()))
}

fn to_json<T: serde::Serialize>(what: &str, v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(BindingError::json(what.to_string()))
}

/// `Settings::default()` as JSON: nvbench's stopping rule and kperf's
/// warm-up, no throttle filter (no clock is read from Python).
#[pyfunction]
pub fn default_settings() -> Result<String> {
    let s = Settings {
        throttle_threshold: None,
        ..Settings::default()
    };
    to_json("settings", &s)
}

/// This machine as `kperf bench` records it for a host run; `gpu` names a
/// CUDA device when the samples time one (its clocks are not read here).
#[pyfunction]
#[pyo3(signature = (gpu=None))]
pub fn host_device(py: Python<'_>, gpu: Option<String>) -> Result<String> {
    let info = py.detach(|| -> Result<DeviceInfo> {
        let host = HostInfo::collect(Some(timer()?));
        Ok(match gpu {
            Some(name) => DeviceInfo {
                name,
                kind: DeviceKind::Cuda,
                gpu_before: None,
                gpu_after: None,
                host: Some(host),
                notes: vec!["timed from Python; NVML not sampled".into()],
            },
            None => DeviceInfo::host(host),
        })
    })?;
    to_json("device", &info)
}

/// Sample `run` until the stopping rule in `settings` says so and return
/// the point's result (JSON, the `kperf bench` schema).
///
/// `callee_times`: `run()` returns the nanoseconds it measured itself (CUDA
/// events); otherwise the call is timed here with the host cycle timer.
/// `prepare` runs untimed before every sample (and warm-up run), after the
/// host cache flush when `settings.flush` is on and the host times.
#[pyfunction]
#[pyo3(signature = (run, *, settings, prepare=None, callee_times=false, params="{}",
                    implementation="python", flops=None, bytes=None))]
#[allow(clippy::too_many_arguments)]
pub fn measure(
    run: Bound<'_, PyAny>,
    settings: &str,
    prepare: Option<Bound<'_, PyAny>>,
    callee_times: bool,
    params: &str,
    implementation: &str,
    flops: Option<f64>,
    bytes: Option<f64>,
) -> Result<String> {
    let settings: Settings = parse("settings", settings)?;
    settings.stopping.validate()?;
    let params: BTreeMap<String, Param> = parse("params", params)?;
    // Checked before sampling, which can take the whole timeout.
    let work = (flops.is_some() || bytes.is_some())
        .then(|| Work {
            flops: flops.unwrap_or(0.0),
            bytes: bytes.unwrap_or(0.0),
        })
        .map(|w| {
            let ok = |x: f64| x.is_finite() && x >= 0.0;
            if ok(w.flops) && ok(w.bytes) {
                Ok(w)
            } else {
                Err(BindingError::Invalid(format!(
                    "flops = {}, bytes = {}: expected finite, non-negative counts",
                    w.flops, w.bytes
                )))
            }
        })
        .transpose()?;
    let timer = timer()?;
    let mut flusher = (settings.flush && !callee_times).then(CacheFlusher::for_this_machine);
    let m = sample_loop::<BindingError>(
        &settings.warmup,
        &settings.stopping,
        None,
        || {
            if let Some(f) = flusher.as_mut() {
                f.flush();
            }
            if let Some(p) = &prepare {
                p.call0()?;
            }
            Ok(())
        },
        || {
            if callee_times {
                let ns: f64 = run.call0()?.extract()?;
                if !(ns.is_finite() && ns >= 0.0) {
                    return Err(BindingError::Invalid(format!(
                        "the timed function returned {ns} ns: expected a finite, non-negative time"
                    )));
                }
                Ok(Sample::time(ns))
            } else {
                let (r, t) = timer.time(|| run.call0());
                r?;
                Ok(Sample::time(t.ns))
            }
        },
    )?;
    let mut r = PointResult::from_measurement(params, implementation, m, &settings.skew)?;
    if let Some(work) = work {
        r = r.with_work(work, None, None)?;
    }
    to_json("point result", &r)
}

/// A results document from a device, settings and point results (JSON
/// each), with speedups against `baseline` (an implementation name).
#[pyfunction]
#[pyo3(signature = (device, settings, points, baseline=None))]
pub fn make_results(
    device: &str,
    settings: &str,
    points: Vec<String>,
    baseline: Option<&str>,
) -> Result<String> {
    let mut r = Results::new(parse("device", device)?, parse("settings", settings)?);
    for p in &points {
        r.push(parse("point result", p)?);
    }
    r.compute_speedups(baseline);
    Ok(r.to_json()?)
}

fn results_of(json: &str, origin: &Path) -> Result<Results> {
    Ok(Results::from_json(json, origin)?)
}

/// Check `json` is a results document and write it to `path` atomically.
#[pyfunction]
pub fn save_results(py: Python<'_>, json: &str, path: PathBuf) -> Result<()> {
    let results = results_of(json, &path)?;
    results.check_unique(&path.display().to_string())?;
    py.detach(|| -> Result<()> {
        let text = results.to_json()?;
        let mut out = AtomicFile::create(&path)?;
        let written = out.writer().write_all(text.as_bytes());
        written.map_err(|e| out.error(e))?;
        out.commit()?;
        Ok(())
    })
}

/// Compare two results documents point by point with `kperf bench
/// --baseline`'s test (Mann-Whitney and a bootstrap interval of the median
/// ratio; a regression is significant and more than `threshold`).
/// Returns (table, any regression, comparisons as JSON, warnings: why the
/// two are not like for like or nothing was compared, as the CLI prints).
#[pyfunction]
#[pyo3(signature = (base, new, threshold=0.05))]
pub fn compare_results(
    py: Python<'_>,
    base: &str,
    new: &str,
    threshold: f64,
) -> Result<(String, bool, String, Vec<String>)> {
    let base = results_of(base, Path::new("<baseline>"))?;
    let new = results_of(new, Path::new("<new>"))?;
    let cfg = CompareConfig {
        threshold,
        ..CompareConfig::default()
    };
    let cmp = py.detach(|| compare_points(&base, &new, &cfg))?;
    Ok((
        comparison_table(&cmp),
        has_regression(&cmp),
        to_json("comparisons", &cmp)?,
        kperf_bench::results::comparability_warnings(&base, &new, &cmp),
    ))
}

/// The table `kperf bench` prints for a results document.
#[pyfunction]
pub fn results_table(json: &str) -> Result<String> {
    Ok(table(&results_of(json, Path::new("<results>"))?))
}
