//! `kperf run`: instrument on the fly, launch, write the raw profile.

use crate::cmd_instrument::LoweringArgs;
use crate::host_job::{default_threads, run_host_job, run_host_job_llvm};
use anyhow::{bail, Context, Result};
use clap::Args;
use kperf_instrument::Target;
use kperf_runtime::calibrate::DeviceProfile;
use kperf_runtime::spec::{HostBuffer, LaunchSpec};
use std::path::PathBuf;

#[derive(Args)]
pub struct RunArgs {
    /// Kernel (.mlir, or host-ABI LLVM IR .ll/.bc; `--target simt`: .mlir GPU kernels or NVPTX LLVM IR); instrumented on the fly unless --no-instrument
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
    /// Device profile from `kperf calibrate` (record cost, tick rate) to store with the profile
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Write the buffer arguments after the run as JSON (for checking results; integers exact,
    /// non-finite floats as the strings "inf", "-inf" and "nan")
    #[arg(long)]
    pub outputs: Option<PathBuf>,
    /// Do not time the same launch uninstrumented. By default `kperf run`
    /// does (host: each CTA timed by the launcher), and replay reports the
    /// corrected kernel region against it as a measured error
    #[arg(long)]
    pub no_check: bool,
    /// Time the same launch uninstrumented where it is off by default: on
    /// the SIMT target, whose CPU threads are no timing model, this runs the
    /// steps a GPU's check takes (a plain launch and a build of the kernel
    /// region alone)
    #[arg(long, conflicts_with = "no_check")]
    pub check: bool,
    #[command(flatten)]
    pub lowering: LoweringArgs,
}

pub fn run(a: RunArgs) -> Result<()> {
    let opts = a.lowering.options()?;
    check_outputs(&a)?;
    let spec = LaunchSpec::load(&a.spec)?;
    // A sampled CTA the grid does not have records nothing: every listed
    // id outside it gave an empty profile and exit 0.
    if let kperf_dialects::meta::CtaSampling::List(ids) = &opts.sample_ctas {
        let ctas = spec.grid_ctas();
        let outside: Vec<String> = ids
            .iter()
            .filter(|&&c| u64::from(c) >= ctas)
            .map(u32::to_string)
            .collect();
        if !outside.is_empty() {
            bail!(
                "--sample-ctas names CTA(s) {} outside the grid {:?} ({ctas} CTAs, linear ids 0..{})",
                outside.join(", "),
                spec.grid,
                ctas - 1
            );
        }
    }
    match &opts.target {
        Target::Host => {}
        Target::Nvptx { simt: true, .. } => {
            let spec = crate::cmd_run_cuda::spec_from_host_code(&a, &opts, spec)?;
            let opts = with_launch_shared(&opts, &spec);
            return crate::cmd_run_simt::run(&a, &opts, &spec);
        }
        Target::Nvptx { .. } => {
            kperf_runtime::cuda::check_driver()?;
            let spec = crate::cmd_run_cuda::spec_from_host_code(&a, &opts, spec)?;
            let opts = with_launch_shared(&opts, &spec);
            return crate::cmd_run_cuda::run(&a, &opts, &spec);
        }
        Target::Amdgpu { .. } => bail!("running on AMD GPUs is not supported; instrument with --target amdgpu and run with your own launcher"),
    }
    let file = a.input.display().to_string();
    let bytes =
        kperf_runtime::input::read(&a.input).with_context(|| format!("cannot read {file}"))?;
    let is_llvm = kperf_instrument::llvm::is_llvm_input(&file, &bytes);
    let threads = a.threads.unwrap_or_else(default_threads);
    // 0 ran on a default silently; a million would spawn a million.
    anyhow::ensure!(
        (1..=MAX_THREADS).contains(&threads),
        "--threads {threads}: give 1 to {MAX_THREADS} worker threads"
    );
    // A module `kperf instrument` already lowered carries its metadata beside it.
    let meta_file = crate::cmd_instrument::meta_path(&a.input);
    let previous_meta = match kperf_runtime::input::read(&meta_file) {
        Ok(meta_bytes) => {
            // Metadata that does not describe this very IR would size the
            // buffer for a layout the kernel does not write.
            crate::binding::check(&a.input, &bytes, &meta_file, &meta_bytes)?;
            let meta: kperf_dialects::meta::InstrumentMeta = serde_json::from_slice(&meta_bytes)
                .with_context(|| format!("{} is not kperf metadata", meta_file.display()))?;
            if let Some(why) = meta.abi_mismatch() {
                anyhow::bail!("{}: {why}", meta_file.display());
            }
            Some(meta)
        }
        Err(_) => None,
    };
    // A calibration given, or one measured now: without it replay could
    // only guess the record's cost.
    let calibration = match a.calibration.as_deref() {
        Some(p) => {
            let c = DeviceProfile::load(p)?;
            c.check_for(&opts.target.name(), opts.counter, p)?;
            Some((c, p.display().to_string()))
        }
        None if !a.no_instrument => {
            let c = crate::host_job::calibrate_host(&opts, 256, 4)?;
            eprintln!("kperf: calibrated the host: {}", c.summary());
            Some((c, "calibrated on the fly by kperf run".to_string()))
        }
        None => None,
    };
    // The uninstrumented truth first, on a CPU the calibration warmed, so
    // that the profiled launch is not the only one that ran cold.
    // (A kernel kperf already instrumented has no plain version to time.)
    let check = if a.no_check || a.no_instrument || previous_meta.is_some() {
        None
    } else {
        let check = crate::host_job::check_host_job(&bytes, &file, &opts, &spec, threads, is_llvm)?;
        eprintln!(
            "kperf: checked: the same launch uninstrumented takes {:.3} ms, {:.0} ticks per CTA (mean of {})",
            check.wall_ns as f64 / 1e6,
            check.cta_mean_ticks.unwrap_or(0.0),
            check.ctas
        );
        Some(check)
    };
    let job = if is_llvm {
        run_host_job_llvm(
            &bytes,
            &file,
            &opts,
            &spec,
            !a.no_instrument,
            threads,
            previous_meta,
        )?
    } else {
        let source = String::from_utf8(bytes)
            .with_context(|| format!("{file}: not UTF-8 text (MLIR is text)"))?;
        run_host_job(
            &source,
            &file,
            &opts,
            &spec,
            !a.no_instrument,
            threads,
            previous_meta,
        )?
    };
    let run = &job.run;
    eprintln!(
        "kperf: ran `{}` on the host: grid {:?}, {} CTA(s) on {} thread(s) in {:.3} ms",
        crate::shown(&job.kernel),
        spec.grid,
        spec.grid_ctas(),
        run.threads,
        run.wall_ns as f64 / 1e6
    );
    report_outputs(&a, &run.buffers)?;
    if let Some(mut info) = job.info {
        if let Some((c, origin)) = &calibration {
            c.apply(&mut info);
            info.record_cost_origin = Some(origin.clone());
        }
        info.check = check;
        let input = if is_llvm {
            crate::cmd_instrument::InputKind::Llvm
        } else {
            crate::cmd_instrument::InputKind::Mlir
        };
        crate::cmd_instrument::report_modes_without_regions(&opts, &info.meta, input, None);
        kperf_runtime::write_kprof(&a.output, &info, job.cta_stride, &run.profile)?;
        eprintln!(
            "kperf: wrote {} ({} bytes of profile)",
            a.output.display(),
            run.profile.len()
        );
    }
    Ok(())
}

/// The buffers after a run, as every target gives them: one line each on
/// stderr, and the JSON file `--outputs` names (what scripts/gpu-check.sh
/// compares instrumented against plain, GPU against SIMT).
pub fn report_outputs(a: &RunArgs, buffers: &[HostBuffer]) -> Result<()> {
    print_buffers(buffers);
    match &a.outputs {
        Some(path) => write_outputs(path, buffers),
        None => Ok(()),
    }
}

/// One line per buffer argument after the run: name, shape, type, sum.
fn print_buffers(buffers: &[HostBuffer]) {
    for b in buffers {
        let sum: f64 = (0..b.len()).map(|i| b.get(i)).sum();
        eprintln!(
            "  {:<8} {:?} {:<5} sum {:.6}",
            b.name,
            b.shape,
            b.dtype.mlir_name(),
            sum
        );
    }
}

/// The most worker threads `--threads` may ask for.
const MAX_THREADS: usize = 4096;

/// The buffer arguments after the run as JSON (`--outputs`): a list of
/// `{"dtype", "name", "shape", "values"}`, streamed element by element (as
/// one JSON value it took 44 bytes an element beside the buffers, outside
/// the memory limit: 0.69 GB of buffers became 3.36 GB).
fn write_outputs(path: &std::path::Path, buffers: &[HostBuffer]) -> Result<()> {
    use std::io::Write as _;
    let mut out = kperf_runtime::output::AtomicFile::create(path)?;
    let written = (|| -> std::io::Result<()> {
        let w = out.writer();
        w.write_all(b"[")?;
        for (k, b) in buffers.iter().enumerate() {
            if k > 0 {
                w.write_all(b",")?;
            }
            w.write_all(b"{\"dtype\":")?;
            serde_json::to_writer(&mut *w, b.dtype.mlir_name())?;
            w.write_all(b",\"name\":")?;
            serde_json::to_writer(&mut *w, &b.name)?;
            w.write_all(b",\"shape\":")?;
            serde_json::to_writer(&mut *w, &b.shape)?;
            w.write_all(b",\"values\":[")?;
            for i in 0..b.len() {
                if i > 0 {
                    w.write_all(b",")?;
                }
                serde_json::to_writer(&mut *w, &b.get_json(i))?;
            }
            w.write_all(b"]}")?;
        }
        w.write_all(b"]")
    })();
    written.map_err(|e| out.error(e))?;
    out.commit()?;
    Ok(())
}

/// Refuse, before the launch, outputs that are inputs or cannot be written.
fn check_outputs(a: &RunArgs) -> Result<()> {
    use kperf_runtime::output::check_output;
    let mut inputs: Vec<(&str, &std::path::Path)> =
        vec![("the kernel", &a.input), ("the launch spec", &a.spec)];
    if let Some(c) = &a.calibration {
        inputs.push(("the calibration", c));
    }
    // Already-instrumented IR is run with the metadata beside it.
    let beside = crate::cmd_instrument::meta_path(&a.input);
    inputs.push(("the kernel's metadata", &beside));
    if !a.no_instrument {
        check_output(&a.output, &inputs)?;
    }
    if let Some(o) = &a.outputs {
        check_output(o, &inputs)?;
        anyhow::ensure!(
            a.no_instrument || !kperf_runtime::output::same_file(o, &a.output),
            "--outputs {} and -o {} name the same file",
            o.display(),
            a.output.display()
        );
    }
    Ok(())
}

/// The options for instrumenting the launch `spec` describes: the ring
/// planner leaves room for the launch's dynamic shared memory (`--buffer
/// auto` put the rings in shared memory beside 230000 B of it, and the
/// launch was refused for more shared memory than a GPU has).
fn with_launch_shared(
    opts: &kperf_instrument::options::InstrumentOptions,
    spec: &LaunchSpec,
) -> kperf_instrument::options::InstrumentOptions {
    let mut o = opts.clone();
    o.dynamic_shared = o.dynamic_shared.max(spec.shared_bytes);
    o
}
