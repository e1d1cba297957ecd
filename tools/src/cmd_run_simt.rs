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
        let mut runs = (0..timed.max(1))
            .map(|_| run_simt(&b.code, &file, &b.name, &b.params, km, spec))
            .collect::<Result<Vec<_>, _>>()?;
        runs.sort_by_key(|r| r.kernel_ns);
        let median = runs.len() / 2;
        Ok(runs.swap_remove(median))
    };
    // Threads on a CPU are no timing model: the check runs only when asked
    // for, to exercise on the CPU the steps a GPU's check takes.
    run_device(a, opts, spec, Emit::Llvm, a.check, &launch)
}
