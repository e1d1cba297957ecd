//! `kperf calibrate`: measure one record's cost and the tick rate.

use crate::cmd_instrument::write_atomically;
use crate::host_job::{default_threads, run_host_job};
use anyhow::{bail, Context, Result};
use clap::Args;
use kperf_dialects::abi::Counter;
use kperf_dialects::meta::Granularity;
use kperf_instrument::{InstrumentOptions, Target};
use kperf_runtime::calibrate::{calibration_kernel, compute, KERNEL};
use kperf_runtime::spec::LaunchSpec;
use kperf_runtime::ProfileReader;
use std::path::PathBuf;

#[derive(Args)]
pub struct CalibrateArgs {
    /// host | nvptx:sm_90a
    #[arg(long, default_value = "host")]
    pub target: String,
    /// clock32 | clock64 | globaltimer (calibrate each counter you profile with)
    #[arg(long, default_value = "clock32")]
    pub counter: String,
    /// Back-to-back empty regions per CTA (straight-line code; upstream
    /// scf-to-cf grows quadratically with thousands of records in one block)
    #[arg(long, default_value_t = 256)]
    pub pairs: usize,
    /// CTAs to run
    #[arg(long, default_value_t = 8)]
    pub ctas: u32,
    /// Device profile to write
    #[arg(short, long, default_value = "device.json")]
    pub output: PathBuf,
}

pub fn run(a: CalibrateArgs) -> Result<()> {
    let target = Target::parse(&a.target)?;
    let counter = Counter::from_name(&a.counter)
        .with_context(|| format!("unknown --counter `{}`", a.counter))?;
    match target {
        Target::Host => {}
        Target::Nvptx { .. } => {
            kperf_runtime::cuda::check_driver()?;
            bail!("GPU calibration runs through `kperf run --target nvptx`, which is not available in this build")
        }
        Target::Amdgpu { .. } => bail!("calibration on AMD GPUs is not supported"),
    }
    anyhow::ensure!(
        a.pairs > 0 && a.ctas > 0,
        "--pairs and --ctas must be positive"
    );
    let records = 2 * a.pairs as u32;
    let opts = InstrumentOptions {
        target,
        counter,
        granularity: Granularity::Cta,
        slots: Some(records.next_power_of_two()),
        ..InstrumentOptions::default()
    };
    // 2 ms of spin per CTA makes the header's tick-rate measurement precise.
    let source = calibration_kernel(a.pairs, 5_000_000);
    let spec = LaunchSpec {
        kernel: Some(KERNEL.into()),
        grid: [a.ctas, 1, 1],
        block: [1, 1, 1],
        shared_bytes: 0,
        args: vec![],
    };
    let job = run_host_job(
        &source,
        "<kperf calibrate>",
        &opts,
        &spec,
        true,
        default_threads(),
    )?;
    let info = job
        .info
        .context("calibration kernel was not instrumented")?;
    let bytes = kperf_runtime::kprof::encode_kprof(&info, job.cta_stride, &job.run.profile)?;
    let reader = ProfileReader::from_bytes(bytes)?;
    let ctas = reader.ctas().collect::<Result<Vec<_>, _>>()?;
    let profile = compute(&info, &ctas)?;
    write_atomically(&a.output, &serde_json::to_vec_pretty(&profile)?)?;
    println!(
        "kperf calibrate ({}, {}): one record costs {:.1} ticks (min {:.0}, p90 {:.0}, {} samples); {:.4} ticks/ns",
        profile.target,
        counter.name(),
        profile.record_cost_ticks,
        profile.record_cost_min_ticks,
        profile.record_cost_p90_ticks,
        profile.samples,
        profile.ticks_per_ns
    );
    eprintln!("kperf: wrote {}", a.output.display());
    Ok(())
}
