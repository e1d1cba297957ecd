//! `kperf run --target simt`: lower the kernel for NVPTX (records without
//! inline PTX), run it on the CPU with every thread of its blocks
//! (`kperf_runtime::simt`), write the raw profile and the outputs.

use crate::cmd_run::{print_buffers, write_outputs, RunArgs};
use crate::cmd_run_cuda::{
    build_device_kernel, report_device_run, write_device_profile, DeviceBuild,
};
use crate::host_job::pick_kernel;
use anyhow::{Context, Result};
use kperf_instrument::{Emit, InstrumentOptions, KperfContext};
use kperf_runtime::simt::run_simt;
use kperf_runtime::spec::LaunchSpec;

pub fn run(a: &RunArgs, opts: &InstrumentOptions, spec: &LaunchSpec) -> Result<()> {
    let file = a.input.display().to_string();
    let bytes = std::fs::read(&a.input).with_context(|| format!("cannot read {file}"))?;
    let DeviceBuild {
        code: ir,
        meta,
        name,
        params,
    } = if kperf_instrument::llvm::is_llvm_input(&file, &bytes) {
        build_nvptx_llvm_kernel(a, opts, spec, &bytes, &file)?
    } else {
        let source = String::from_utf8(bytes)
            .with_context(|| format!("{file}: not UTF-8 text (MLIR is text)"))?;
        build_device_kernel(a, opts, spec, &source, Emit::Llvm)?
    };
    let km = meta.as_ref().and_then(|m| m.kernel(&name)).cloned();
    let run = run_simt(&ir, &file, &name, &params, km.as_ref(), spec)?;
    report_device_run(&name, spec, &run);
    print_buffers(&run.buffers);
    if let Some(path) = &a.outputs {
        write_outputs(path, &run.buffers)?;
    }
    if let (Some(meta), Some(km)) = (meta, km) {
        write_device_profile(a, &meta, km, spec, &run.profile)?;
    }
    Ok(())
}

/// NVPTX LLVM IR (clang's `.ll` or `.bc`) through the LLVM path for the
/// SIMT target: records as plain stores, as for MLIR kernels.
fn build_nvptx_llvm_kernel(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    bytes: &[u8],
    file: &str,
) -> Result<DeviceBuild> {
    let kernels = kperf_runtime::simt::nvptx_kernels(bytes, file)?;
    let (name, params) = pick_kernel(file, spec.kernel.as_deref(), &kernels, "the spec")?;
    let mut opts = opts.clone();
    opts.block.get_or_insert(spec.block);
    let kctx = KperfContext::new()?;
    if !a.no_instrument {
        crate::registers::hold_occupancy(
            &kctx,
            bytes,
            file,
            &mut opts,
            a.lowering.registers()?,
            false,
        )?;
    }
    // Plain or not, through the LLVM path: the plain build drops kperf's
    // region markers, as for the GPU.
    let out = kperf_instrument::llvm::instrument_llvm(
        &kctx,
        bytes,
        file,
        &opts,
        Emit::Llvm,
        a.no_instrument,
        false,
    )?;
    let (code, meta) = (out.bytes, out.meta);
    Ok(DeviceBuild {
        code,
        meta,
        name,
        params,
    })
}
