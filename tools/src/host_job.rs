//! One host job: instrument (or not), JIT-run over the grid, describe the
//! run. Shared by `kperf run` and `kperf calibrate`.

use anyhow::{bail, Context, Result};
use kperf_dialects::meta::InstrumentMeta;
use kperf_instrument::mlir::pipeline::prepare_host;
use kperf_instrument::{InstrumentOptions, KperfContext};
use kperf_runtime::host::{run_host, HostRun, Param};
use kperf_runtime::profile::RunInfo;
use kperf_runtime::spec::LaunchSpec;

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
    let params = parse_params(&hm.param_types, "the host runner")?;
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

/// The kernel's parameters (MLIR type strings) as the launchers see them;
/// `runner` names who cannot take an unsupported one.
pub fn parse_params(types: &[String], runner: &str) -> Result<Vec<Param>> {
    types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Param::parse(t).with_context(|| {
                format!("kernel parameter {i} has type {t}, which {runner} does not support")
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
