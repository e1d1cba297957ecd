//! `kperf calibrate`: measure one record's cost and the tick rate.

use crate::cmd_instrument::write_atomically;
use anyhow::{bail, Context, Result};
use clap::Args;
use kperf_dialects::abi::Counter;
use kperf_dialects::meta::Granularity;
use kperf_instrument::{instrument, Emit, InstrumentOptions, KperfContext, Target};
use kperf_runtime::calibrate::{calibration_kernel_gpu, compute, DeviceProfile, KERNEL};
use kperf_runtime::cuda::{run_cuda, DeviceCode};
use kperf_runtime::profile::RunInfo;
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
    anyhow::ensure!(
        a.pairs > 0 && a.ctas > 0,
        "--pairs and --ctas must be positive"
    );
    let records = kperf_runtime::calibrate::calibration_records(a.pairs);
    let (info, stride, profile) = match &target {
        Target::Host => {
            let opts = InstrumentOptions {
                target: target.clone(),
                counter,
                ..InstrumentOptions::default()
            };
            let profile = crate::host_job::calibrate_host(&opts, a.pairs, a.ctas)?;
            return save(&a, counter, &profile);
        }
        Target::Nvptx { simt: true, .. } => anyhow::bail!(
            "the SIMT target runs GPU threads as CPU threads and is no timing model: there is \
             no record cost to measure (calibrate --target host for host runs, or a GPU)"
        ),
        Target::Nvptx { .. } => {
            kperf_runtime::cuda::check_driver()?;
            let opts = InstrumentOptions {
                target: target.clone(),
                counter,
                granularity: Granularity::Warp,
                slots: Some(records.next_power_of_two()),
                ..InstrumentOptions::default()
            };
            // About 2 ms at 2 GHz.
            let source = calibration_kernel_gpu(a.pairs, 4_000_000);
            let kctx = KperfContext::new()?;
            let out = instrument(&kctx, &source, "<kperf calibrate>", &opts, Emit::Ptx)?;
            let km = out
                .meta
                .kernel(KERNEL)
                .cloned()
                .context("calibration kernel was not instrumented")?;
            let spec = LaunchSpec {
                kernel: Some(KERNEL.into()),
                grid: [a.ctas, 1, 1],
                block: [32, 1, 1],
                shared_bytes: 0,
                args: vec![],
                origin: None,
                placement: Default::default(),
            };
            let ptx = String::from_utf8(out.bytes).context("PTX is not UTF-8")?;
            let run = run_cuda(DeviceCode::Ptx(ptx), KERNEL, &[], Some(&km), &spec, 0, 1)?;
            let stride = km.layout.cta_stride();
            (
                RunInfo::for_kernel(&out.meta, km, spec.grid, spec.block),
                stride,
                run.profile,
            )
        }
        Target::Amdgpu { .. } => {
            bail!("calibration on AMD GPUs is not supported: kperf has no AMD launcher")
        }
    };
    let bytes = kperf_runtime::kprof::encode_kprof(&info, stride, &profile)?;
    let reader = ProfileReader::from_bytes(bytes)?;
    let ctas = reader.ctas().collect::<Result<Vec<_>, _>>()?;
    let profile = compute(&info, &ctas)?;
    save(&a, counter, &profile)
}

fn save(a: &CalibrateArgs, counter: Counter, profile: &DeviceProfile) -> Result<()> {
    write_atomically(&a.output, &serde_json::to_vec_pretty(profile)?)?;
    println!(
        "kperf calibrate ({}, {}): {}",
        profile.target,
        counter.name(),
        profile.summary()
    );
    eprintln!("kperf: wrote {}", a.output.display());
    Ok(())
}
