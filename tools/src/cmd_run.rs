//! `kperf run`: instrument on the fly, launch, write the raw profile.

use crate::cmd_instrument::{write_atomically, LoweringArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use kperf_dialects::meta::InstrumentMeta;
use kperf_instrument::mlir::pipeline::prepare_host;
use kperf_instrument::{KperfContext, Target};
use kperf_runtime::host::{run_host, HostRun, Param};
use kperf_runtime::profile::RunInfo;
use kperf_runtime::spec::LaunchSpec;
use std::path::PathBuf;

#[derive(Args)]
pub struct RunArgs {
    /// Kernel (.mlir); instrumented on the fly unless --no-instrument
    pub input: PathBuf,
    /// Launch spec (TOML): kernel, grid, block, args
    #[arg(long)]
    pub spec: PathBuf,
    /// Raw profile to write
    #[arg(short, long, default_value = "run.kprof")]
    pub output: PathBuf,
    /// Run the kernel as it is, without instrumentation (no profile written)
    #[arg(long)]
    pub no_instrument: bool,
    /// Worker threads for the host target (default: all cores)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the buffer arguments after the run as JSON (for checking results)
    #[arg(long)]
    pub outputs: Option<PathBuf>,
    #[command(flatten)]
    pub lowering: LoweringArgs,
}

pub fn run(a: RunArgs) -> Result<()> {
    let opts = a.lowering.options()?;
    let spec = LaunchSpec::load(&a.spec)?;
    match &opts.target {
        Target::Host => {}
        Target::Nvptx { .. } => {
            kperf_runtime::cuda::check_driver()?;
            bail!("the CUDA launcher is not built yet: a driver is present, but `kperf run --target nvptx` cannot launch on it in this version")
        }
        Target::Amdgpu { .. } => bail!("running on AMD GPUs is not supported; instrument with --target amdgpu and run with your own launcher"),
    }
    let file = a.input.display().to_string();
    let source =
        std::fs::read_to_string(&a.input).with_context(|| format!("cannot read {file}"))?;
    let kctx = KperfContext::new()?;
    let hm = prepare_host(
        &kctx,
        &source,
        &file,
        &opts,
        spec.kernel.as_deref(),
        !a.no_instrument,
    )?;
    let name = hm.kernel.clone();
    let params: Vec<Param> = hm
        .param_types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Param::parse(t).with_context(|| {
                format!("kernel parameter {i} has type {t}, which the host runner does not support")
            })
        })
        .collect::<Result<_>>()?;
    let meta = hm.meta.clone();
    let kmeta = meta.as_ref().and_then(|m| m.kernel(&name)).cloned();
    if meta.is_some() && kmeta.is_none() {
        bail!("kernel `{name}` has no regions to record");
    }
    let threads = a.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let run: HostRun = run_host(&hm.module, &name, &params, kmeta.as_ref(), &spec, threads)?;
    eprintln!(
        "kperf: ran `{name}` on the host: grid {:?}, {} CTA(s) on {} thread(s) in {:.3} ms",
        spec.grid,
        spec.grid_ctas(),
        run.threads,
        run.wall_ns as f64 / 1e6
    );
    for b in &run.buffers {
        let n = b.len();
        let sum: f64 = (0..n).map(|i| b.get(i)).sum();
        eprintln!(
            "  {:<8} {:?} {:<5} sum {:.6}",
            b.name,
            b.shape,
            b.dtype.mlir_name(),
            sum
        );
    }
    if let Some(path) = &a.outputs {
        let j: Vec<serde_json::Value> = run
            .buffers
            .iter()
            .map(|b| serde_json::json!({"name": b.name, "shape": b.shape, "dtype": b.dtype.mlir_name(), "values": (0..b.len()).map(|i| b.get(i)).collect::<Vec<_>>()}))
            .collect();
        write_atomically(path, &serde_json::to_vec(&j)?)?;
    }
    if let (Some(meta), Some(km)) = (meta, kmeta) {
        let info = RunInfo {
            target: opts.target.name(),
            kernel: name.clone(),
            grid: spec.grid,
            block: [1, 1, 1],
            counter: opts.counter,
            clock_domain: opts.counter.clock_domain(),
            granularity: opts.granularity,
            strategy: opts.strategy,
            ticks_per_ns: None,
            record_cost_ticks: None,
            meta: InstrumentMeta {
                kernels: vec![km.clone()],
                ..meta
            },
        };
        kperf_runtime::write_kprof(&a.output, &info, km.layout.cta_stride(), &run.profile)?;
        eprintln!(
            "kperf: wrote {} ({} bytes of profile)",
            a.output.display(),
            run.profile.len()
        );
    }
    Ok(())
}
