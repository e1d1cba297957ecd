//! `kperf run --target simt`: lower the kernel for NVPTX (records without
//! inline PTX), run it on the CPU with every thread of its blocks
//! (`kperf_runtime::simt`), write the raw profile and the outputs.

use crate::cmd_run::RunArgs;
use crate::cmd_run_cuda::{run_device, DeviceBuild};
use anyhow::Result;
use kperf_instrument::{Emit, InstrumentOptions};
use kperf_runtime::cuda::DeviceRun;
use kperf_runtime::simt::run_simt;
use kperf_runtime::spec::LaunchSpec;

pub fn run(a: &RunArgs, opts: &InstrumentOptions, spec: &LaunchSpec) -> Result<()> {
    let file = a.input.display().to_string();
    let launch = |b: &DeviceBuild, timed: usize| -> Result<DeviceRun> {
        let km = b.meta.as_ref().and_then(|m| m.kernel(&b.name));
        // As on CUDA: the median launch's time, the last launch's buffers
        // and profile (one run's memory held at a time, not `timed`).
        let mut times = Vec::with_capacity(timed.max(1));
        let mut last = run_simt(&b.code, &file, &b.name, &b.params, km, spec)?;
        times.push(last.kernel_ns);
        for _ in 1..timed {
            last = run_simt(&b.code, &file, &b.name, &b.params, km, spec)?;
            times.push(last.kernel_ns);
        }
        times.sort_unstable();
        last.kernel_ns = times[times.len() / 2];
        Ok(last)
    };
    // Threads on a CPU are no timing model: the check runs only when asked
    // for, to exercise on the CPU the steps a GPU's check takes.
    run_device(a, opts, spec, Emit::Llvm, a.check, &launch)
}
