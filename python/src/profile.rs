//! Profiles: load (`.kprof`, Proton dump, raw buffer + metadata), replay,
//! query, write traces; and the `.kprof` writer the Triton hook uses.

use std::path::{Path, PathBuf};

use kperf_replay::{Profile, ReplayOptions, TraceFormat, TraceGrouping};
use kperf_runtime::output::{check_output, TempPath};
use kperf_runtime::raw::{pick_kernel, read_meta, RawRun};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::columns::Columns;
use crate::error::{BindingError, Result};

/// A replayed profile held in memory (every region instance, not the raw
/// records). Made by `load`; wrapped by `kperf.Profile`.
#[pyclass(name = "_Profile", module = "kperf._kperf", frozen)]
pub struct PyProfile {
    inner: Profile,
    /// The files it was read from: a trace is never written over them.
    sources: Vec<PathBuf>,
}

fn grid3(grid: Option<Vec<u32>>) -> Result<Option<[u32; 3]>> {
    let Some(v) = grid else { return Ok(None) };
    if v.is_empty() || v.len() > 3 {
        return Err(BindingError::Invalid(format!(
            "grid takes 1 to 3 dimensions, got {v:?}"
        )));
    }
    let mut d = [1u32; 3];
    d[..v.len()].copy_from_slice(&v);
    Ok(Some(d))
}

fn options(
    correction: bool,
    record_cost_ticks: Option<f64>,
    ticks_per_ns: Option<f64>,
) -> Result<ReplayOptions> {
    let opts = ReplayOptions {
        correction,
        record_cost_ticks,
        ticks_per_ns,
        ..ReplayOptions::default()
    };
    opts.validate()?;
    Ok(opts)
}

/// Decode and replay a profile. `meta` given: `path` is a raw buffer as the
/// kernel wrote it, described by that `.kperf.json` (`kernel` and `grid` as
/// for `kperf replay --raw`); `proton`: a Proton host dump; else a `.kprof`.
#[pyfunction]
#[pyo3(signature = (path, *, proton=false, meta=None, kernel=None, grid=None,
                    correction=true, record_cost_ticks=None, ticks_per_ns=None))]
#[allow(clippy::too_many_arguments)]
pub fn load(
    py: Python<'_>,
    path: PathBuf,
    proton: bool,
    meta: Option<PathBuf>,
    kernel: Option<String>,
    grid: Option<Vec<u32>>,
    correction: bool,
    record_cost_ticks: Option<f64>,
    ticks_per_ns: Option<f64>,
) -> PyResult<PyProfile> {
    let opts = options(correction, record_cost_ticks, ticks_per_ns)?;
    let grid = grid3(grid)?;
    // Decoding and replay run on all cores without holding the GIL.
    let loaded = py.detach(|| -> Result<PyProfile> {
        let (inner, sources) = match &meta {
            Some(m) => {
                let reader = kperf_runtime::raw::open(&path, m, kernel.as_deref(), grid)?;
                (
                    Profile::load_reader(&reader, &opts)?,
                    vec![path.clone(), m.clone()],
                )
            }
            None if proton => (Profile::load_proton(&path, &opts)?, vec![path.clone()]),
            None => (Profile::load_with(&path, &opts)?, vec![path.clone()]),
        };
        Ok(PyProfile { inner, sources })
    })?;
    Ok(loaded)
}

fn trace_format(format: Option<&str>, path: &Path) -> Result<TraceFormat> {
    match format {
        None => Ok(TraceFormat::for_path(path)),
        Some("chrome" | "json") => Ok(TraceFormat::Chrome),
        Some("perfetto" | "pftrace") => Ok(TraceFormat::Perfetto),
        Some(other) => Err(BindingError::Invalid(format!(
            "trace format `{other}`: expected `chrome` or `perfetto`"
        ))),
    }
}

fn grouping(group_by: &str) -> Result<TraceGrouping> {
    match group_by {
        "sm" => Ok(TraceGrouping::Sm),
        "cta" => Ok(TraceGrouping::Cta),
        other => Err(BindingError::Invalid(format!(
            "group_by `{other}`: expected `sm` or `cta`"
        ))),
    }
}

#[pymethods]
impl PyProfile {
    /// The run's header (`RunInfo`: target, kernel, grid, block, counter,
    /// calibration, instrumentation metadata) as JSON.
    fn info_json(&self) -> Result<String> {
        serde_json::to_string(self.inner.info()).map_err(BindingError::json("run info"))
    }

    /// The compiler-facing feedback document (`feedback_version` 1).
    fn feedback_json(&self) -> Result<String> {
        Ok(self.inner.feedback_json()?)
    }

    /// The full replay report (what `kperf replay --json` writes).
    fn report_json(&self) -> Result<String> {
        Ok(self.inner.report().to_json()?)
    }

    /// The terminal summary `kperf replay --summary` prints.
    fn summary(&self) -> String {
        self.inner.report().render_summary()
    }

    /// `[(id, name)]` of every region the profile knows.
    fn region_names(&self) -> Vec<(u16, String)> {
        self.inner
            .regions()
            .iter()
            .map(|r| (r.id.0, r.name.clone()))
            .collect()
    }

    /// Every region instance (of region id `region` only, if given), CTA by
    /// CTA and unit by unit, in start order. Filtered here: one region of a
    /// 33M-record profile built every row first (25 s, 7.2 GB).
    #[pyo3(signature = (region=None))]
    fn instances<'py>(&self, py: Python<'py>, region: Option<u16>) -> PyResult<Bound<'py, PyDict>> {
        let all: Vec<_> = self
            .inner
            .ctas()
            .iter()
            .flat_map(|c| c.instances())
            .filter(|i| region.is_none_or(|r| i.region.0 == r))
            .collect();
        let cols = Columns::build::<_, u32>(
            &all,
            &[
                ("cta", |i| i.cta),
                ("unit", |i| i.unit),
                ("instance", |i| i.instance),
                ("depth", |i| i.depth),
                ("row", |i| i.row),
            ],
        )
        .join(Columns::build::<_, u16>(
            &all,
            &[("region", |i| i.region.0)],
        ))
        .join(Columns::build::<_, f64>(
            &all,
            &[
                ("start_ns", |i| i.start_ns),
                ("end_ns", |i| i.end_ns),
                ("duration_ns", |i| i.duration_ns()),
                ("corrected_ticks", |i| i.corrected_ticks),
            ],
        ))
        .join(Columns::build::<_, u64>(
            &all,
            &[
                ("raw_ticks", |i| i.raw_ticks),
                ("start_clock", |i| i.start_clock),
                ("end_clock", |i| i.end_clock),
            ],
        ));
        cols.into_py(py)
    }

    /// One row per replayed CTA.
    fn ctas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ctas = self.inner.ctas();
        let cols = Columns::build::<_, u64>(
            ctas,
            &[
                ("block_index", |c| c.block_index),
                ("header_span_ns", |c| c.header_span_ns),
                ("nonmonotone_clocks", |c| c.nonmonotone_clocks),
            ],
        )
        .join(Columns::build::<_, u32>(
            ctas,
            &[
                ("cta", |c| c.cta_id),
                ("hw_id", |c| c.hw_id),
                ("units", |c| c.units.len() as u32),
            ],
        ))
        .join(Columns::build::<_, f64>(
            ctas,
            &[
                ("start_ns", |c| c.start_ns),
                ("end_ns", |c| c.end_ns),
                ("ticks_per_ns", |c| c.ticks_per_ns),
            ],
        ));
        cols.into_py(py)
    }

    /// One row per (CTA, unit): records kept, written and lost.
    fn units<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows: Vec<_> = self
            .inner
            .ctas()
            .iter()
            .flat_map(|c| c.units.iter().map(move |u| (c.cta_id, u)))
            .collect();
        let cols = Columns::build::<_, u32>(&rows, &[("cta", |r| r.0), ("unit", |r| r.1.unit_id)])
            .join(Columns::build::<_, u64>(
                &rows,
                &[
                    ("records", |r| r.1.records),
                    ("records_written", |r| r.1.records_written),
                    ("records_lost", |r| r.1.records_lost),
                ],
            ))
            .join(Columns::build::<_, f64>(
                &rows,
                &[
                    ("first_ns", |r| r.1.first_ns.unwrap_or(f64::NAN)),
                    ("last_ns", |r| r.1.last_ns.unwrap_or(f64::NAN)),
                ],
            ));
        cols.into_py(py)
    }

    /// One row per measured async wait (CLK2 − CLK1).
    fn async_waits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let all: Vec<_> = self
            .inner
            .ctas()
            .iter()
            .flat_map(|c| c.async_waits.iter())
            .collect();
        let cols = Columns::build::<_, u32>(
            &all,
            &[
                ("cta", |w| w.cta),
                ("unit", |w| w.unit),
                ("instance", |w| w.instance),
                ("issue_instance", |w| w.issue_instance),
            ],
        )
        .join(Columns::build::<_, u16>(
            &all,
            &[
                ("wait_region", |w| w.wait_region.0),
                ("issue_region", |w| w.issue_region.0),
            ],
        ))
        .join(Columns::build::<_, u64>(
            &all,
            &[
                ("clk1", |w| w.clk1),
                ("clk2", |w| w.clk2),
                ("raw_ticks", |w| w.raw_ticks),
            ],
        ))
        .join(Columns::build::<_, f64>(
            &all,
            &[
                ("corrected_ticks", |w| w.corrected_ticks),
                ("corrected_ns", |w| w.corrected_ns),
            ],
        ));
        cols.into_py(py)
    }

    /// The critical path of the CTA with linear id `cta`, as JSON, or None.
    fn critical_path_json(&self, cta: u32) -> Result<Option<String>> {
        self.inner
            .critical_path(cta)
            .map(|p| serde_json::to_string(&p).map_err(BindingError::json("critical path")))
            .transpose()
    }

    /// Write the trace: Chrome JSON, or Perfetto protobuf for `.pftrace`,
    /// `.perfetto-trace`, `.pb` (or `format`). Atomic: a unique temporary
    /// replaces `path` only when complete; never one of the inputs.
    #[pyo3(signature = (path, *, format=None, group_by="sm"))]
    fn write_trace(
        &self,
        py: Python<'_>,
        path: PathBuf,
        format: Option<&str>,
        group_by: &str,
    ) -> PyResult<()> {
        let format = trace_format(format, &path)?;
        let grouping = grouping(group_by)?;
        py.detach(|| -> Result<()> {
            let inputs: Vec<(&str, &Path)> = self
                .sources
                .iter()
                .map(|p| ("the profile", p.as_path()))
                .collect();
            check_output(&path, &inputs)?;
            let tmp = TempPath::beside(&path)?;
            self.inner.write_trace(tmp.path(), format, grouping)?;
            tmp.persist()?;
            Ok(())
        })?;
        Ok(())
    }
}

/// Write the raw profile buffer of one launch as a `.kprof`: `buffer` as
/// the kernel wrote it, `meta` the `.kperf.json` of its instrumentation,
/// `kernel` (optional when the metadata has one), the launch `grid` and
/// `block` (default: the metadata's), and a `kperf calibrate` device
/// profile when there is one. Atomic; refuses to replace the metadata.
#[pyfunction]
#[pyo3(signature = (path, buffer, meta, *, kernel=None, grid=None, block=None, calibration=None))]
#[allow(clippy::too_many_arguments)]
pub fn write_kprof(
    py: Python<'_>,
    path: PathBuf,
    buffer: &[u8],
    meta: PathBuf,
    kernel: Option<String>,
    grid: Option<Vec<u32>>,
    block: Option<Vec<u32>>,
    calibration: Option<PathBuf>,
) -> PyResult<()> {
    let grid = grid3(grid)?;
    let block = grid3(block)?;
    py.detach(|| -> Result<()> {
        let mut inputs = vec![("the metadata", meta.as_path())];
        if let Some(c) = &calibration {
            inputs.push(("the calibration", c.as_path()));
        }
        check_output(&path, &inputs)?;
        let m = read_meta(&meta)?;
        let km = pick_kernel(&m, &meta, kernel.as_deref())?;
        let mut run = RawRun::describe(&m, &meta, km, grid, block, &path, buffer.len() as u64)?;
        if let Some(c) = &calibration {
            let device = kperf_runtime::calibrate::DeviceProfile::load(c)
                .map_err(|e| BindingError::Invalid(e.to_string()))?;
            if device.counter != run.info.counter {
                return Err(BindingError::Invalid(format!(
                    "{}: calibrated for the {:?} counter, the kernel reads {:?}",
                    c.display(),
                    device.counter,
                    run.info.counter
                )));
            }
            device.apply(&mut run.info);
        }
        kperf_runtime::write_kprof(&path, &run.info, run.cta_stride as usize, buffer)?;
        Ok(())
    })?;
    Ok(())
}
