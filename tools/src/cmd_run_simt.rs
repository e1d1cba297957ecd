//! `kperf run --target simt`: lower the kernel for NVPTX (records without
//! inline PTX), run it on the CPU with every thread of its blocks
//! (`kperf_runtime::simt`), write the raw profile and the outputs.

use crate::cmd_run::{report_outputs, RunArgs};
use crate::cmd_run_cuda::{
    build_input_kernel, report_device_run, write_device_profile, DeviceBuild,
};
use anyhow::Result;
use kperf_instrument::{Emit, InstrumentOptions};
use kperf_runtime::simt::run_simt;
use kperf_runtime::spec::LaunchSpec;

pub fn run(a: &RunArgs, opts: &InstrumentOptions, spec: &LaunchSpec) -> Result<()> {
    let file = a.input.display().to_string();
    let DeviceBuild {
        code: ir,
        meta,
        name,
        params,
    } = build_input_kernel(a, opts, spec, Emit::Llvm)?;
    let km = meta.as_ref().and_then(|m| m.kernel(&name)).cloned();
    let run = run_simt(&ir, &file, &name, &params, km.as_ref(), spec)?;
    report_device_run(&name, spec, &run);
    report_outputs(a, &run.buffers)?;
    if let (Some(meta), Some(km)) = (meta, km) {
        write_device_profile(a, &meta, km, spec, &run.profile)?;
    }
    Ok(())
}
