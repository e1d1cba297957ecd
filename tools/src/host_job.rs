//! One host job: instrument (or not), JIT-run over the grid, describe the
//! run. Shared by `kperf run` and `kperf calibrate`.

use anyhow::{bail, Context, Result};
use kperf_dialects::meta::InstrumentMeta;
use kperf_instrument::mlir::pipeline::prepare_host;
use kperf_instrument::{InstrumentOptions, KperfContext};
use kperf_runtime::calibrate::{calibration_kernel, calibration_records, DeviceProfile};
use kperf_runtime::host::{run_host, with_host_kernel, HostRun, Param};
use kperf_runtime::profile::{RunInfo, UninstrumentedRun};
use kperf_runtime::spec::LaunchSpec;
use kperf_runtime::ProfileReader;

/// The run and, when instrumented, its profile header.
pub struct HostJob {
    pub run: HostRun,
    pub kernel: String,
    pub info: Option<RunInfo>,
    pub cta_stride: usize,
}

pub fn run_host_job(
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    instrument: bool,
    threads: usize,
    previous_meta: Option<InstrumentMeta>,
) -> Result<HostJob> {
    let kctx = KperfContext::new()?;
    let hm = prepare_host(
        &kctx,
        source,
        file,
        opts,
        spec.kernel.as_deref(),
        instrument,
        previous_meta,
    )?;
    let name = hm.kernel.clone();
    for note in &hm.notes {
        eprintln!("kperf: {note}");
    }
    let params = parse_params(&hm.param_types, "the host runner", file, &hm.kernel)?;
    let kmeta = hm.meta.as_ref().and_then(|m| m.kernel(&name)).cloned();
    if hm.meta.is_some() && kmeta.is_none() {
        bail!("kernel `{name}` has no regions to record");
    }
    let run = run_host(&hm.module, &name, &params, kmeta.as_ref(), spec, threads)?;
    let (info, cta_stride) = match (hm.meta, kmeta) {
        (Some(meta), Some(km)) => {
            let stride = km.layout.cta_stride();
            let info = RunInfo::for_kernel(&meta, km, spec.grid, [1, 1, 1]);
            (Some(info), stride)
        }
        _ => (None, 0),
    };
    Ok(HostJob {
        run,
        kernel: name,
        info,
        cta_stride,
    })
}

/// The same job for LLVM IR input (host-ABI `.ll`/`.bc`): instrument it
/// through the LLVM path unless it is already instrumented (metadata
/// beside it) or `instrument` is false, then JIT it with MCJIT.
pub fn run_host_job_llvm(
    bytes: &[u8],
    file: &str,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    instrument: bool,
    threads: usize,
    previous_meta: Option<InstrumentMeta>,
) -> Result<HostJob> {
    let mut host_opts = opts.clone();
    host_opts.target = kperf_instrument::Target::Host;
    let (ir, meta) = match previous_meta {
        Some(m) => (bytes.to_vec(), Some(m)),
        None if instrument => {
            let kctx = KperfContext::new()?;
            let out = kperf_instrument::llvm::instrument_llvm(
                &kctx,
                bytes,
                file,
                &host_opts,
                kperf_instrument::Emit::Llvm,
                false,
                false,
            )?;
            (out.bytes, out.meta)
        }
        None => (bytes.to_vec(), None),
    };
    let want = spec.kernel.as_deref();
    let kmeta = match (&meta, want) {
        (Some(m), Some(k)) => Some(
            m.kernel(k)
                .cloned()
                .with_context(|| format!("kernel `{k}` has no regions to record"))?,
        ),
        (Some(m), None) => match m.kernels.as_slice() {
            [one] => Some(one.clone()),
            _ => {
                bail!("{file}: several instrumented kernels; name one in the spec (`kernel = ...`)")
            }
        },
        (None, _) => None,
    };
    let (run, name) =
        kperf_runtime::host_llvm::run_host_llvm(&ir, file, want, kmeta.as_ref(), spec, threads)?;
    let (info, cta_stride) = match (meta, kmeta) {
        (Some(meta), Some(km)) => {
            let stride = km.layout.cta_stride();
            (
                Some(RunInfo::for_kernel(&meta, km, spec.grid, [1, 1, 1])),
                stride,
            )
        }
        _ => (None, 0),
    };
    Ok(HostJob {
        run,
        kernel: name,
        info,
        cta_stride,
    })
}

/// Launches of the uninstrumented check (the median one is kept).
const CHECK_LAUNCHES: usize = 5;

/// Time the same launch uninstrumented, CTA by CTA (MLIR input, or LLVM IR
/// when `llvm` is set): what `kperf run --check` stores with the profile.
pub fn check_host_job(
    input: &[u8],
    file: &str,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    threads: usize,
    llvm: bool,
) -> Result<UninstrumentedRun> {
    // The profiled launch's buffer, as the host plan sizes it: a grid too
    // big for it is refused before the check spends a minute timing it
    // (67M CTAs: 88 s and 3.9 GB, then the 517 GiB buffer refused).
    if let Ok(plan) = kperf_instrument::plan::plan_segments(opts, "", [1, 1, 1], 0, &[]) {
        let layout = kperf_dialects::abi::Layout {
            units: plan.units,
            slots: plan.global_slots,
        };
        let profile_bytes = layout
            .checked_cta_stride()
            .map_or(u64::MAX, |s| s as u64)
            .saturating_mul(opts.sample_ctas.blocks(spec.grid_ctas()));
        kperf_runtime::guard::check_memory(profile_bytes, "the profile buffer")
            .map_err(anyhow::Error::msg)?;
    }
    // The child keeps one launch's timing per CTA at a time (8 bytes a
    // CTA per worker thread's vector, grown by doubling) and sends back
    // only its summary: counted against the memory limit before anything
    // runs. (Each launch's per-CTA times crossed pipes as JSON: 67M CTAs
    // took 3.9 GB; 4G CTAs were killed at 23.5 GB.)
    let per_cta = 32;
    kperf_runtime::guard::check_memory(
        spec.grid_ctas().saturating_mul(per_cta),
        &format!(
            "timing the launch uninstrumented ({} CTAs, {CHECK_LAUNCHES} launches; --no-check \
             skips it)",
            spec.grid_ctas()
        ),
    )
    .map_err(anyhow::Error::msg)?;
    // The buffers against their lower guards: the profiled launch
    // catches over-runs, these launches under-runs (kperf_runtime::guard).
    let spec = &LaunchSpec {
        placement: kperf_runtime::guard::Placement::AgainstStart,
        ..spec.clone()
    };
    // Several launches, the median one kept: one cold launch of a few
    // milliseconds varies by more than the error being measured (13%
    // between two runs of the same grid on this 2-core machine).
    // All launches in one child process (warm after the first, as they
    // were in-process), the median chosen here.
    // The CTAs the profile records (--sample-ctas): the truth is theirs.
    // Over every CTA, a launch whose CTAs differ was judged against the
    // others' mean: odd CTAs of 20 iterations against all CTAs of 20 and
    // 2000 read -97.8%, and the fit then took the record cost to 0.
    let timed = |cta: u64| opts.sample_ctas.records(cta);
    let body = |mut grid: kperf_runtime::host::GridLauncher| {
        // Every launch from the buffers the profiled launch starts from: a
        // kernel that updates its input in place (zeroing its own trip
        // count) did its work in the first of five launches, and the check
        // called a correct profile +25000% off.
        let restore = grid.buffer_copy_fits();
        let summary = grid.in_child(|g| {
            let saved = restore.is_ok().then(|| g.save_buffers());
            // Without the inputs back, only the first launch times the
            // profiled launch's work (an in-place kernel read +25000%).
            let launches = if saved.is_some() { CHECK_LAUNCHES } else { 1 };
            let mut runs = (0..launches)
                .map(|_| {
                    if let Some(saved) = &saved {
                        g.restore_buffers(saved);
                    }
                    let floor = kperf_runtime::host::fenced_read_floor();
                    let (wall, mut ticks) = g.launch_timed_here(&timed);
                    // At least a tick: no call takes none, and a profile's
                    // check of 0 ticks reads as a corrupt one.
                    for t in &mut ticks {
                        *t = t.saturating_sub(floor).max(1);
                    }
                    (floor, (wall, summarize(ticks)))
                })
                .collect::<Vec<(u64, (u64, CtaTimes))>>();
            runs.sort_by(|a, b| a.1 .1.mean.total_cmp(&b.1 .1.mean));
            runs.swap_remove(launches / 2)
        })?;
        grid.check_bounds().map(|_| (summary, restore.err()))
    };
    let ((floor, (wall_ns, times)), not_restored) = if llvm {
        let ir = strip_to_plain_llvm(input, file, opts)?;
        kperf_runtime::host_llvm::with_host_llvm_kernel(
            &ir,
            file,
            spec.kernel.as_deref(),
            None,
            spec,
            threads,
            body,
        )?
        .0?
    } else {
        let source = std::str::from_utf8(input).with_context(|| format!("{file}: not UTF-8"))?;
        let kctx = KperfContext::new()?;
        let hm = prepare_host(
            &kctx,
            source,
            file,
            opts,
            spec.kernel.as_deref(),
            false,
            None,
        )?;
        let params = parse_params(&hm.param_types, "the host runner", file, &hm.kernel)?;
        with_host_kernel(&hm.module, &hm.kernel, &params, None, spec, threads, body)??
    };
    Ok(UninstrumentedRun {
        ctas: times.ctas,
        cta_mean_ticks: Some(times.mean),
        cta_median_ticks: times.median,
        wall_ns,
        method: format!(
            "the same launch uninstrumented on {threads} thread(s), {} call timed with the host counter (less {floor} ticks, what the counter's two reads take around an empty call), {}",
            if opts.sample_ctas == kperf_dialects::meta::CtaSampling::All {
                "each CTA's"
            } else {
                "each recorded CTA's (--sample-ctas)"
            },
            match &not_restored {
                None => format!(
                    "the median of {CHECK_LAUNCHES} launches, each from the profiled launch's \
                     inputs"
                ),
                Some(_) => "one launch, cold: a copy of the inputs to restore between \
                            launches is over the memory limit"
                    .to_string(),
            }
        ),
        profiled_wall_ns: None,
    })
}

/// One launch's per-CTA times, summarized in the child that took them.
#[derive(serde::Serialize, serde::Deserialize)]
struct CtaTimes {
    ctas: u64,
    mean: f64,
    median: Option<f64>,
}

fn summarize(ticks: Vec<u64>) -> CtaTimes {
    let mut ticks: Vec<f64> = ticks.into_iter().map(|t| t as f64).collect();
    let n = ticks.len().max(1) as f64;
    CtaTimes {
        ctas: ticks.len() as u64,
        mean: ticks.iter().sum::<f64>() / n,
        // Replay's nearest-rank rule, the one its p50 and the fit read: with
        // 2 CTAs an upper middle here against a lower one there read a
        // correct profile -15% off.
        median: (!ticks.is_empty()).then(|| kperf_runtime::rank::percentile(&mut ticks, 50.0)),
    }
}

/// Host-ABI LLVM IR as the plain build compiles it (markers stripped).
fn strip_to_plain_llvm(bytes: &[u8], file: &str, opts: &InstrumentOptions) -> Result<Vec<u8>> {
    let mut host_opts = opts.clone();
    host_opts.target = kperf_instrument::Target::Host;
    let kctx = KperfContext::new()?;
    let out = kperf_instrument::llvm::instrument_llvm(
        &kctx,
        bytes,
        file,
        &host_opts,
        kperf_instrument::Emit::Llvm,
        true,
        false,
    )?;
    Ok(out.bytes)
}

/// Calibrate the host for `opts`' counter and ordering: the record's cost
/// back to back and in a loop, and the tick rate (see
/// kperf_runtime::calibrate). `ctas` CTAs of `pairs` empty regions.
pub fn calibrate_host(opts: &InstrumentOptions, pairs: usize, ctas: u32) -> Result<DeviceProfile> {
    let opts = InstrumentOptions {
        target: kperf_instrument::Target::Host,
        granularity: kperf_dialects::meta::Granularity::Cta,
        slots: Some(calibration_records(pairs).next_power_of_two()),
        regions: Vec::new(),
        // Every CTA of the calibration kernel records: the run's own
        // sampling (`--sample-ctas 4` on a grid of 4 calibration CTAs)
        // left none, and the run failed with "no complete empty region
        // survived (rings too small for the calibration?)".
        sample_ctas: kperf_dialects::meta::CtaSampling::All,
        sample_units: Vec::new(),
        // Its own ring size: the run's --flush-slots was measured against
        // the calibration's ring ("at least its ring's 2048" for --slots 4).
        flush_slots: None,
        // The user's passes are for the user's kernel: buffer deallocation
        // refused the calibration kernel's `kperf.record`s, naming
        // `<kperf calibrate>`.
        pre_pipeline: None,
        ..opts.clone()
    };
    // A 2 ms spin per CTA makes the header's tick-rate measurement precise.
    let source = calibration_kernel(pairs, 5_000_000);
    let spec = LaunchSpec {
        kernel: Some(kperf_runtime::calibrate::KERNEL.into()),
        grid: [ctas, 1, 1],
        block: [1, 1, 1],
        shared_bytes: 0,
        args: vec![],
        origin: None,
        placement: Default::default(),
    };
    let job = run_host_job(
        &source,
        "<kperf calibrate>",
        &opts,
        &spec,
        true,
        default_threads(),
        None,
    )?;
    let info = job
        .info
        .context("calibration kernel was not instrumented")?;
    let bytes = kperf_runtime::kprof::encode_kprof(&info, job.cta_stride, &job.run.profile)?;
    let reader = ProfileReader::from_bytes(bytes)?;
    let decoded = reader.ctas().collect::<Result<Vec<_>, _>>()?;
    Ok(kperf_runtime::calibrate::compute(&info, &decoded)?)
}

/// The kernel's parameters (MLIR type strings) as the launchers see them;
/// `runner` names who cannot take an unsupported one, in `file`'s `kernel`.
pub fn parse_params(
    types: &[String],
    runner: &str,
    file: &str,
    kernel: &str,
) -> Result<Vec<Param>> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Param::parse(t).with_context(|| {
                format!(
                    "{file}: kernel `{}` parameter {i} has type {t}, which {runner} does not support",
                    crate::shown(kernel)
                )
            })
        })
        .collect()
}

/// The kernel `want` names, or the only one in `file`; `hint` says where to
/// name one when there are several.
pub fn pick_kernel<T: Clone>(
    file: &str,
    want: Option<&str>,
    kernels: &[(String, T)],
    hint: &str,
) -> Result<(String, T)> {
    match (want, kernels) {
        (Some(k), _) => kernels
            .iter()
            .find(|(n, _)| n == k)
            .cloned()
            .with_context(|| format!("{file}: no kernel `{k}`")),
        (None, [one]) => Ok(one.clone()),
        (None, []) => bail!("{file}: no kernel found"),
        (None, _) => bail!("{file}: several kernels; name one with `kernel = \"...\"` in {hint}"),
    }
}

pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
