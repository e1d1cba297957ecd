//! The check of a device profile: the same launch uninstrumented, the
//! truth replay compares the profile with (`kperf run --target nvptx`, on
//! by default; `--target simt --check`, whose times are no timing model
//! but run the same steps on the CPU).
//!
//! On the host the launcher times each CTA from outside. Nothing outside a
//! GPU's CTA can, so the check takes two measurements:
//! - the plain kernel's launch, timed as the profiled launch is (device
//!   events around a warm launch, the median of several): the run-time
//!   overhead of instrumentation, and the launch's wall time;
//! - where the profile has regions inside its kernel region, a build of
//!   the kernel region alone (its START after init, its END before
//!   finalize, no record between them), replayed as the profile is: each
//!   unit's kernel region there is the plain kernel's work plus one
//!   record, in the profile's own counter and units, and is what the
//!   profile's corrected kernel region must come back to once the records
//!   inside it are subtracted.

use crate::cmd_run::RunArgs;
use crate::cmd_run_cuda::{build_input_kernel, DeviceBuild};
use anyhow::{Context, Result};
use kperf_dialects::meta::{InstrumentMeta, KernelMeta, RegionKind};
use kperf_instrument::{Emit, InstrumentOptions, RegionMode};
use kperf_replay::analyze::ReplayReport;
use kperf_runtime::calibrate::DeviceProfile;
use kperf_runtime::cuda::DeviceRun;
use kperf_runtime::profile::{RunInfo, UninstrumentedRun};
use kperf_runtime::spec::LaunchSpec;

/// Timed launches of the plain kernel; the median is kept.
pub const CHECK_LAUNCHES: usize = 5;

/// Runs a build on the device: the build and how many timed launches to
/// take the median of, each from the spec's initial buffers (CUDA: after
/// one untimed warm-up; SIMT: none, its times are no timing model). State
/// a kernel keeps outside its buffers (a `__device__` counter) is not
/// restored between launches.
pub type Launch<'a> = dyn Fn(&DeviceBuild, usize) -> Result<DeviceRun> + 'a;

/// Does a profile with these regions need the kernel-region-alone build
/// to be checked? Only where its kernel region has records inside it: a
/// kernel region alone is its own truth.
pub fn has_records_inside_kernel(km: &KernelMeta) -> bool {
    km.regions.iter().any(|r| r.kind == RegionKind::Kernel)
        && km.regions.iter().any(|r| r.kind != RegionKind::Kernel)
}

/// Time the same launch uninstrumented (see the module's comment).
/// `profiled` is the profiled build's metadata for `kernel`, and
/// `profiled_ns` that launch's time by the same method.
#[allow(clippy::too_many_arguments)]
pub fn check_device_run(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    emit: Emit,
    kernel: &str,
    profiled: &KernelMeta,
    profiled_ns: u64,
    calibration: Option<&DeviceProfile>,
    launch: &Launch<'_>,
) -> Result<UninstrumentedRun> {
    let plain = build_input_kernel(a, opts, spec, emit, false)?;
    let plain_run = launch(&plain, CHECK_LAUNCHES).context("the uninstrumented check launch")?;
    let mut method = format!(
        "plain launch timed like the profiled one, the median of {CHECK_LAUNCHES} warm launches"
    );
    let mut truth = KernelRegionTruth::default();
    if has_records_inside_kernel(profiled) {
        let alone = InstrumentOptions {
            regions: vec![RegionMode::Kernel],
            markers: false,
            ..opts.clone()
        };
        let build = build_input_kernel(a, &alone, spec, emit, true)?;
        let meta = build
            .meta
            .as_ref()
            .context("the kernel-region build wrote no metadata")?;
        let run = launch(&build, 1).context("the kernel-region check launch")?;
        truth = kernel_region_truth(meta, kernel, spec, calibration, &run.profile)?;
        method = format!(
            "each unit's kernel region in a build with no record inside it, corrected as replay corrects; {method}"
        );
    }
    Ok(UninstrumentedRun {
        ctas: truth.instances,
        cta_mean_ticks: truth.mean_ticks,
        cta_median_ticks: truth.median_ticks,
        wall_ns: plain_run.kernel_ns,
        method,
        profiled_wall_ns: Some(profiled_ns),
    })
}

/// The kernel region's instances in a profile of the kernel region alone.
#[derive(Default)]
struct KernelRegionTruth {
    instances: u64,
    mean_ticks: Option<f64>,
    median_ticks: Option<f64>,
}

/// Replay the kernel-region-alone profile as the profile itself will be
/// replayed (same counter, units and calibration) and read its kernel
/// region.
fn kernel_region_truth(
    meta: &InstrumentMeta,
    kernel: &str,
    spec: &LaunchSpec,
    calibration: Option<&DeviceProfile>,
    profile: &[u8],
) -> Result<KernelRegionTruth> {
    let km = meta
        .kernel(kernel)
        .cloned()
        .with_context(|| format!("the kernel-region build has no kernel `{kernel}`"))?;
    let stride = km.layout.cta_stride();
    let mut info = RunInfo::for_kernel(meta, km, spec.grid, spec.block);
    if let Some(c) = calibration {
        c.apply(&mut info);
    }
    let bytes = kperf_runtime::kprof::encode_kprof(&info, stride, profile)?;
    let reader = kperf_runtime::decode::ProfileReader::from_bytes(bytes)?;
    let report =
        kperf_replay::replay_reader(&reader, &kperf_replay::ReplayOptions::default(), None)?;
    Ok(truth_of(&report))
}

fn truth_of(report: &ReplayReport) -> KernelRegionTruth {
    match report
        .regions
        .iter()
        .find(|r| r.kind == RegionKind::Kernel && r.count > 0)
    {
        Some(k) => KernelRegionTruth {
            instances: k.count,
            mean_ticks: Some(k.mean_corrected_ticks),
            median_ticks: Some(k.p50_corrected_ticks),
        },
        None => KernelRegionTruth::default(),
    }
}

/// The check's line on stderr.
pub fn report_check(check: &UninstrumentedRun) {
    match check.cta_mean_ticks {
        Some(t) => eprintln!(
            "kperf: checked: the same launch uninstrumented takes {:.3} ms; its kernel region alone {t:.0} ticks per unit (mean of {})",
            check.wall_ns as f64 / 1e6,
            check.ctas
        ),
        None => eprintln!(
            "kperf: checked: the same launch uninstrumented takes {:.3} ms",
            check.wall_ns as f64 / 1e6
        ),
    }
}
