//! `kperf bench spec.toml`: time kernels over a parameter sweep, several
//! implementations side by side, with warm-up, a stopping rule, cache
//! flushes and (on CUDA) events, graphs and throttle checks; write JSON
//! results, print a table, and compare against a baseline.

use crate::bench_spec::{parse_override, BenchSpec, Point, Sweep};
use crate::host_job::{parse_params, pick_kernel};
use anyhow::{bail, Context, Result};
use kperf_bench::compare::CompareConfig;
use kperf_bench::host::{CacheFlusher, CycleTimer, FlushMode, HostInfo};
use kperf_bench::measure::{cool_down, measure, Measurement, Sample, ThrottleFilter};
use kperf_bench::progress::Progress;
use kperf_bench::results::{
    compare_results, comparison_table, has_regression, table, DeviceInfo, DeviceKind, PointResult,
    Results, Settings, Warmup,
};
use kperf_bench::roofline::DevicePeaks;
use kperf_bench::stats::StoppingRule;
use kperf_instrument::mlir::pipeline::{compile_plain, device_kernel_params, prepare_host};
use kperf_instrument::{Emit, InstrumentOptions, KperfContext, Target};
use kperf_runtime::cuda::DeviceCode;
use kperf_runtime::cuda_bench::{CudaBench, CudaBenchOptions};
use kperf_runtime::host::{with_host_kernel, GridLauncher, Param};
use kperf_runtime::spec::{DType, LaunchSpec};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Exit status when the baseline comparison finds a regression.
pub const EXIT_REGRESSION: i32 = 3;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Bench spec (TOML): implementations, sweep, launch, work, settings
    pub spec: PathBuf,
    /// host (JIT on this CPU) | cuda (the first GPU, or --device)
    #[arg(long, default_value = "host")]
    pub target: String,
    /// CUDA device ordinal
    #[arg(long, default_value_t = 0)]
    pub device: usize,
    /// GPU architecture for kernels compiled from .mlir/.ll (default: the device's)
    #[arg(long)]
    pub chip: Option<String>,
    /// Results JSON to write
    #[arg(short, long, default_value = "bench-results.json")]
    pub output: PathBuf,
    /// Compare with these results; exit with status 3 on a regression
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Smallest change of the median that counts as a regression
    #[arg(long, default_value_t = 0.05)]
    pub threshold: f64,
    /// Device peaks from `kperf peak` (adds TFLOP/s, GB/s, MFU, MBU, bound)
    #[arg(long)]
    pub peaks: Option<PathBuf>,
    /// Fix a sweep parameter (or add one): --set n=4096
    #[arg(long = "set")]
    pub set: Vec<String>,
    /// Flush the cache (host LLC, GPU L2) before every sample
    #[arg(long, overrides_with = "no_flush")]
    pub flush: bool,
    /// Do not flush the cache before samples (the default flushes; a spec's
    /// `flush = false` does the same)
    #[arg(long)]
    pub no_flush: bool,
    /// Untimed launches before sampling each point (default 3)
    #[arg(long)]
    pub warmup: Option<u32>,
    /// Samples taken before the noise target may stop sampling (default 10)
    #[arg(long)]
    pub min_samples: Option<usize>,
    /// Samples after which sampling stops whatever the noise (default 1000000)
    #[arg(long)]
    pub max_samples: Option<usize>,
    /// Seconds of measured time before the noise target may stop sampling
    #[arg(long)]
    pub min_time: Option<f64>,
    /// Relative noise (std/mean) that stops sampling, e.g. 0.005
    #[arg(long)]
    pub max_noise: Option<f64>,
    /// Seconds per point after which sampling stops whatever the noise
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Host worker threads per launch (default 1: no thread start-up in the timing)
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seconds to sleep between points
    #[arg(long)]
    pub cooldown: Option<f64>,
    /// CUDA: replay launches from a graph of this many launches (0: launch directly)
    #[arg(long, default_value_t = 0)]
    pub graph: u32,
    /// CUDA: drop samples taken under this fraction of the maximum SM clock
    #[arg(long, default_value_t = 0.75)]
    pub throttle_threshold: f64,
    /// No progress bar
    #[arg(long)]
    pub quiet: bool,
}

enum Runner {
    Host {
        timer: CycleTimer,
        flusher: Option<CacheFlusher>,
        threads: usize,
    },
    Cuda {
        opts: CudaBenchOptions,
        chip: String,
        /// Names the same GPU to NVML (whose indices need not be CUDA's).
        pci_bus_id: String,
    },
}

/// Results written atomically (kperf_runtime::output).
fn save_results(results: &Results, path: &Path) -> Result<()> {
    crate::cmd_instrument::write_atomically(path, results.to_json()?.as_bytes())
}

/// Saves a sweep's results as points complete, so an interrupt keeps what
/// was measured, without rewriting the whole file after every point: that
/// is quadratic in the points, and on a sweep of thousands of fast points
/// the rewrites would outlast the measurements. A save is due once the time
/// since the last one is `WRITE_SHARE_INVERSE` times what that save took,
/// so writing stays under ~10% of the run; small files (a save well under a
/// millisecond) are still written after every point.
struct Checkpoints {
    last_save: Instant,
    last_cost: Duration,
}

const WRITE_SHARE_INVERSE: u32 = 10;

impl Checkpoints {
    fn new() -> Self {
        Checkpoints {
            last_save: Instant::now(),
            last_cost: Duration::ZERO,
        }
    }

    fn point_done(&mut self, results: &Results, path: &Path) -> Result<()> {
        if self.last_save.elapsed() < self.last_cost * WRITE_SHARE_INVERSE {
            return Ok(());
        }
        let start = Instant::now();
        save_results(results, path)?;
        self.last_save = Instant::now();
        self.last_cost = self.last_save - start;
        Ok(())
    }
}

/// A baseline that a comparison would refuse after the whole sweep ran:
/// refused before it, naming the file and the point.
fn check_baseline(base: &Results, path: &std::path::Path) -> Result<()> {
    base.check_unique(&path.display().to_string())?;
    for p in &base.points {
        if p.samples_ns.is_empty() {
            anyhow::bail!(
                "{}: point `{}` of `{}` has no samples to compare with",
                path.display(),
                crate::shown(&p.label()),
                crate::shown(&p.implementation)
            );
        }
        // The ratio divides by them: a zero, negative or non-finite sample
        // failed only after the sweep.
        if let Some((i, v)) = p
            .samples_ns
            .iter()
            .enumerate()
            .find(|(_, v)| !v.is_finite() || **v <= 0.0)
        {
            anyhow::bail!(
                "{}: point `{}` of `{}`: sample {i} is {v}; baseline samples must be positive, finite durations",
                path.display(),
                crate::shown(&p.label()),
                crate::shown(&p.implementation)
            );
        }
    }
    Ok(())
}

pub fn run(a: BenchArgs) -> Result<()> {
    let mut inputs = vec![("the bench spec", a.spec.as_path())];
    if let Some(b) = &a.baseline {
        // Results are saved before the baseline is read.
        inputs.push(("the baseline", b.as_path()));
    }
    if let Some(p) = &a.peaks {
        inputs.push(("the peaks file", p.as_path()));
    }
    kperf_runtime::output::check_output(&a.output, &inputs)?;
    let spec = BenchSpec::load(&a.spec)?;
    let mut overrides: BTreeMap<String, kperf_bench::results::Param> = BTreeMap::new();
    for s in &a.set {
        let (k, v) = parse_override(s)?;
        // Twice the same name: the last silently won.
        anyhow::ensure!(
            !overrides.contains_key(&k),
            "--set {k} given twice: set each parameter once (a sweep is the spec's list)"
        );
        overrides.insert(k, v);
    }
    let settings = settings(&spec, &a)?;
    // Every point resolved once before anything runs, so a bad one fails
    // now, not hours in; then dropped: points are resolved again as they
    // run, one at a time.
    let points = spec.sweep(&overrides)?;
    let mut compute_kinds = std::collections::BTreeSet::new();
    for i in 0..points.len() {
        let p = points.point(i)?;
        for imp in &spec.impls {
            let source = spec.source_path(&a.spec, imp, &p.params)?;
            kperf_runtime::output::check_output(&a.output, &[("a kernel source", &source)])?;
        }
        if let Some((_, kind)) = &p.work {
            compute_kinds.insert(kind.clone());
        }
    }
    let peaks = a.peaks.as_deref().map(DevicePeaks::load).transpose()?;
    // A baseline that cannot be read is refused now, not after the sweep
    // (a FIFO was refused 47 s later, every point run for nothing).
    let compare_cfg = CompareConfig {
        threshold: a.threshold,
        seed: settings.seed,
        ..CompareConfig::default()
    };
    if let Some(b) = &a.baseline {
        compare_cfg.validate()?;
        check_baseline(&Results::load(b)?, b)?;
    }
    let (mut runner, device) = match a.target.as_str() {
        "host" => {
            let timer = CycleTimer::calibrate().context("host timer")?;
            let host = HostInfo::collect(Some(&timer));
            let flusher = settings.flush.then(CacheFlusher::for_this_machine);
            let device = DeviceInfo::host(host);
            let threads = settings.host_threads.unwrap_or(1);
            (
                Runner::Host {
                    timer,
                    flusher,
                    threads,
                },
                device,
            )
        }
        "cuda" => {
            kperf_runtime::cuda::check_driver()?;
            let info = kperf_runtime::cuda_bench::describe_device(a.device)?;
            let mut notes = vec![];
            let gpu_before = kperf_bench::nvml::GpuState::sample_pci(&info.pci_bus_id)
                .map_err(|e| notes.push(format!("NVML: {e}")))
                .ok();
            let device = DeviceInfo {
                name: format!("cuda:{} {} (PCI {})", a.device, info.name, info.pci_bus_id),
                kind: DeviceKind::Cuda,
                gpu_before,
                gpu_after: None,
                host: Some(HostInfo::collect(None)),
                notes,
            };
            let opts = CudaBenchOptions {
                ordinal: a.device,
                flush_l2: settings.flush,
                graph_launches: a.graph,
                clock_probe: true,
            };
            let chip = a.chip.clone().unwrap_or_else(|| info.chip.clone());
            (
                Runner::Cuda {
                    opts,
                    chip,
                    pci_bus_id: info.pci_bus_id,
                },
                device,
            )
        }
        t => bail!("--target {t}: expected host or cuda"),
    };
    if let Some(p) = &peaks {
        // An unknown compute roof fails now, not after the first point ran.
        for k in &compute_kinds {
            p.compute(k.as_deref())
                .with_context(|| format!("{}: [work] compute", a.spec.display()))?;
        }
    }
    let mut results = Results::new(device, settings.clone());
    results.peaks = peaks.clone();
    if cfg!(debug_assertions) {
        results.device.notes.push(
            "kperf was built without optimisation: its timing loop adds overhead to every sample; use a release build (cargo build --release)".into(),
        );
    }
    let out = run_points(
        &a,
        &spec,
        &points,
        &settings,
        peaks.as_ref(),
        &mut runner,
        &mut results,
    );
    if let Runner::Cuda { pci_bus_id, .. } = &runner {
        results.device.gpu_after = kperf_bench::nvml::GpuState::sample_pci(pci_bus_id).ok();
    }
    results.compute_speedups(spec.settings.baseline_impl.as_deref());
    if let Err(e) = out {
        // Keep what was measured before the failure.
        if !results.points.is_empty() {
            save_results(&results, &a.output)?;
            eprintln!(
                "kperf: wrote the {} points measured before the error to {}",
                results.points.len(),
                a.output.display()
            );
        }
        return Err(e);
    }
    print!("{}", table(&results));
    save_results(&results, &a.output)?;
    eprintln!("kperf: wrote {}", a.output.display());
    if let Some(base) = &a.baseline {
        let base = Results::load(base)?;
        let cmp = compare_results(&base, &results, &compare_cfg)?;
        print!("{}", comparison_table(&cmp));
        for w in kperf_bench::results::comparability_warnings(&base, &results, &cmp) {
            eprintln!("kperf: warning: {w}");
        }
        if has_regression(&cmp) {
            eprintln!(
                "kperf: regression against {}",
                a.baseline
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            );
            std::process::exit(EXIT_REGRESSION);
        }
    }
    Ok(())
}

fn run_points(
    a: &BenchArgs,
    spec: &BenchSpec,
    points: &Sweep,
    settings: &Settings,
    peaks: Option<&DevicePeaks>,
    runner: &mut Runner,
    results: &mut Results,
) -> Result<()> {
    let total = (points.len() * spec.impls.len()) as u64;
    let progress = if a.quiet {
        Progress::with_visibility(Some(total), "bench", false)
    } else {
        Progress::new(total, spec.name.as_deref().unwrap_or("bench"))
    };
    let mut checkpoints = Checkpoints::new();
    for pi in 0..points.len() {
        let p = &points.point(pi)?;
        for imp in &spec.impls {
            let label = kperf_bench::results::point_label(&p.params);
            progress.set_message(format!("{} {label}", imp.name));
            let path = spec.source_path(&a.spec, imp, &p.params)?;
            let mut launch = p.launch.clone();
            launch.kernel = imp
                .kernel
                .as_deref()
                .map(|k| crate::bench_spec::substitute(k, &p.params))
                .transpose()?;
            let (m, bytes) = match runner {
                Runner::Host {
                    timer,
                    flusher,
                    threads,
                } => {
                    let (m, bytes) =
                        bench_host(&path, &launch, settings, *threads, timer, flusher.as_mut())
                            .with_context(|| {
                                format!("{} at {label} ({})", imp.name, path.display())
                            })?;
                    (m, bytes)
                }
                Runner::Cuda { opts, chip, .. } => {
                    // The device's name (with ordinal and PCI bus id) was
                    // set once, from describe_device, before the first point.
                    bench_cuda(&path, &launch, settings, opts, chip)
                        .with_context(|| format!("{} at {label} ({})", imp.name, path.display()))?
                }
            };
            let r = point_result(p, &imp.name, m, bytes, settings, peaks)?;
            progress.println(format!(
                "{:>10} {label}: {} ({})",
                imp.name,
                kperf_bench::results::format_ns(r.summary.center_value()),
                r.summary.center_name()
            ));
            results.push(r);
            // An interrupt keeps what the last checkpoint saved; a later
            // failure and the end of the sweep save everything.
            checkpoints.point_done(results, &a.output)?;
            progress.inc(1);
            if pi + 1 < points.len()
                || imp.name
                    != spec
                        .impls
                        .last()
                        .map(|i| i.name.clone())
                        .unwrap_or_default()
            {
                cool_down(settings.cooldown_s);
            }
        }
    }
    progress.finish();
    Ok(())
}

fn settings(spec: &BenchSpec, a: &BenchArgs) -> Result<Settings> {
    let s = &spec.settings;
    let d = StoppingRule::default();
    let w = Warmup::default();
    let stopping = StoppingRule {
        min_samples: a.min_samples.or(s.min_samples).unwrap_or(d.min_samples),
        max_samples: a.max_samples.or(s.max_samples).unwrap_or(d.max_samples),
        min_time_s: a.min_time.or(s.min_time).unwrap_or(d.min_time_s),
        max_relative_noise: a.max_noise.or(s.max_noise).unwrap_or(d.max_relative_noise),
        timeout_s: a.timeout.or(s.timeout).unwrap_or(d.timeout_s),
    };
    stopping.validate()?;
    let host_threads = a.threads.or(s.threads).unwrap_or(1);
    anyhow::ensure!(
        (1..=4096).contains(&host_threads),
        "threads = {host_threads}: give 1 to 4096 worker threads"
    );
    let flush = if a.flush {
        true
    } else if a.no_flush {
        false
    } else {
        s.flush.unwrap_or(true)
    };
    Ok(Settings {
        stopping,
        warmup: Warmup {
            iterations: a.warmup.or(s.warmup).unwrap_or(w.iterations),
            min_time_s: s.warmup_time.unwrap_or(w.min_time_s),
        },
        flush,
        flush_mode: (flush && a.target == "host").then_some(FlushMode::ReadWrite),
        cuda_graphs: a.graph > 0,
        throttle_threshold: (a.target == "cuda").then_some(a.throttle_threshold),
        cooldown_s: a.cooldown.or(s.cooldown).unwrap_or(0.0),
        seed: spec.seed,
        timed: Some(spec.timed.clone()),
        host_threads: (a.target == "host").then_some(host_threads),
        ..Settings::default()
    })
}

fn point_result(
    p: &Point,
    imp: &str,
    m: Measurement,
    bytes: u64,
    settings: &Settings,
    peaks: Option<&DevicePeaks>,
) -> Result<PointResult> {
    let mut r = PointResult::from_measurement(p.params.clone(), imp, m, &settings.skew)?;
    r.peak_memory_bytes = Some(bytes);
    if let Some((w, kind)) = &p.work {
        // Without peaks only the work is kept; with peaks an unknown
        // compute roof is an error worth seeing.
        r = r.with_work(*w, peaks, kind.as_deref())?;
    }
    Ok(r)
}

fn ext(path: &Path) -> &str {
    path.extension().and_then(|e| e.to_str()).unwrap_or("")
}

fn bench_host(
    path: &Path,
    launch: &LaunchSpec,
    settings: &Settings,
    threads: usize,
    timer: &CycleTimer,
    flusher: Option<&mut CacheFlusher>,
) -> Result<(Measurement, u64)> {
    let file = path.display().to_string();
    let bytes = kperf_runtime::input::read(path).with_context(|| format!("cannot read {file}"))?;
    // The whole sampling loop runs in one child process (see
    // kperf_runtime::isolate): a wild kernel cannot corrupt kperf, and no
    // sample holds a fork.
    let time = |mut grid: GridLauncher| -> Result<(Measurement, u64)> {
        let sampled = grid
            .in_child(|g| sample_host(g, settings, timer, flusher).map_err(|e| format!("{e:#}")))?;
        let sampled = sampled.map_err(anyhow::Error::msg)?;
        grid.check_bounds()?;
        Ok(sampled)
    };
    match ext(path) {
        "mlir" => {
            let source = String::from_utf8(bytes).with_context(|| format!("{file}: not UTF-8"))?;
            let kctx = KperfContext::new()?;
            let opts = InstrumentOptions {
                target: Target::Host,
                ..InstrumentOptions::default()
            };
            let hm = prepare_host(
                &kctx,
                &source,
                &file,
                &opts,
                launch.kernel.as_deref(),
                false,
                None,
            )?;
            let params = parse_params(&hm.param_types, "the host runner", &file, &hm.kernel)?;
            with_host_kernel(&hm.module, &hm.kernel, &params, None, launch, threads, time)?
        }
        "ll" | "llir" | "bc" => {
            let want = launch.kernel.clone();
            kperf_runtime::host_llvm::with_host_llvm_kernel(
                &bytes,
                &file,
                want.as_deref(),
                None,
                launch,
                threads,
                time,
            )?
            .0
        }
        "ptx" => bail!("{file}: PTX runs only on a GPU (--target cuda)"),
        e => bail!(
            "{file}: unknown kernel kind `.{e}` (.mlir, .ll, .llir, .bc; .ptx with --target cuda)"
        ),
    }
}

fn sample_host(
    grid: &mut GridLauncher,
    settings: &Settings,
    timer: &CycleTimer,
    mut flusher: Option<&mut CacheFlusher>,
) -> Result<(Measurement, u64)> {
    let bytes = grid.allocated_bytes();
    let m = measure::<anyhow::Error>(
        &settings.warmup,
        &settings.stopping,
        None,
        || {
            if let Some(f) = flusher.as_deref_mut() {
                f.flush();
            }
            Ok(())
        },
        || {
            let (launched, t) = timer.time(|| grid.launch());
            launched?;
            Ok(Sample::time(t.ns))
        },
    )?;
    Ok((m, bytes))
}

fn bench_cuda(
    path: &Path,
    launch: &LaunchSpec,
    settings: &Settings,
    opts: &CudaBenchOptions,
    chip: &str,
) -> Result<(Measurement, u64)> {
    let file = path.display().to_string();
    let bytes = kperf_runtime::input::read(path).with_context(|| format!("cannot read {file}"))?;
    let iopts = InstrumentOptions {
        target: Target::Nvptx {
            chip: chip.to_string(),
            simt: false,
        },
        block: Some(launch.block),
        // As kperf run: the launch's block binds the launched kernel
        // (set below), and the spec gives the host function's arguments,
        // not constants it defines.
        sink_constants: true,
        ..InstrumentOptions::default()
    };
    let (ptx, kernel, params) = match ext(path) {
        "mlir" => {
            let source = String::from_utf8(bytes).with_context(|| format!("{file}: not UTF-8"))?;
            let kctx = KperfContext::new()?;
            let kernels = device_kernel_params(&kctx, &source, &file, &iopts)?;
            let (name, types) =
                pick_kernel(&file, launch.kernel.as_deref(), &kernels, "the [[impl]]")?;
            let params = parse_params(&types, "the launcher", &file, &name)?;
            let ptx = compile_plain(&kctx, &source, &file, &iopts, Emit::Ptx)?;
            (String::from_utf8(ptx)?, name, params)
        }
        "ll" | "llir" | "bc" => {
            let kctx = KperfContext::new()?;
            let out = kperf_instrument::llvm::instrument_llvm(
                &kctx,
                &bytes,
                &file,
                &iopts,
                Emit::Ptx,
                true,
                false,
            )?;
            let ptx = String::from_utf8(out.bytes)?;
            let (name, params) = ptx_kernel(&file, &ptx, launch)?;
            (ptx, name, params)
        }
        "ptx" => {
            let ptx = String::from_utf8(bytes).with_context(|| format!("{file}: not UTF-8"))?;
            let (name, params) = ptx_kernel(&file, &ptx, launch)?;
            (ptx, name, params)
        }
        e => bail!("{file}: unknown kernel kind `.{e}` (.mlir, .ll, .bc, .ptx)"),
    };
    let mut bench = CudaBench::new(DeviceCode::Ptx(ptx), &kernel, &params, launch, opts)?;
    let throttle = settings.throttle_threshold.map(|t| ThrottleFilter {
        reference_mhz: bench.max_sm_clock_mhz,
        threshold: t,
    });
    let bench_cell = std::cell::RefCell::new(&mut bench);
    let m = measure::<anyhow::Error>(
        &settings.warmup,
        &settings.stopping,
        throttle,
        || Ok(bench_cell.borrow_mut().prepare()?),
        || {
            let s = bench_cell.borrow_mut().sample()?;
            Ok(Sample {
                ns: s.ns,
                // Cycles at the probed clock: a clock change then shows as
                // a time change without a cycle change.
                cycles: s.sm_clock_mhz.map(|mhz| s.ns * mhz * 1e-3),
                sm_clock_mhz: s.sm_clock_mhz,
            })
        },
    )?;
    Ok((m, bench.allocated_bytes))
}

/// The entry's name and parameters from PTX. A `.u64`/`.b64` parameter is a
/// buffer when the spec gives that argument a shape, else a 64-bit scalar.
pub fn ptx_kernel(file: &str, ptx: &str, launch: &LaunchSpec) -> Result<(String, Vec<Param>)> {
    let code = strip_ptx_comments(ptx);
    let mut entries = Vec::new();
    let mut rest = code.as_str();
    while let Some(i) = find_directive(rest, ".entry") {
        let after = rest[i + 6..].trim_start();
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '%')))
            .unwrap_or(after.len());
        let name = after[..name_len].to_string();
        if name.is_empty() {
            bail!("{file}: .entry without a kernel name");
        }
        let tail = after[name_len..].trim_start();
        // The parameter list is optional in PTX: `.entry k { ... }`.
        let (params, next) = match tail.strip_prefix('(') {
            Some(list) => {
                let close = list
                    .find(')')
                    .with_context(|| format!("{file}: unclosed parameter list of .entry {name}"))?;
                let params: Vec<String> = list[..close]
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                (params, &list[close..])
            }
            None => (Vec::new(), tail),
        };
        entries.push((name, params));
        rest = next;
    }
    let (name, decls) = pick_kernel(file, launch.kernel.as_deref(), &entries, "the [[impl]]")?;
    if decls.len() != launch.args.len() {
        bail!(
            "{file}: kernel `{name}` takes {} parameters, the spec gives {} arguments",
            decls.len(),
            launch.args.len()
        );
    }
    let params = decls
        .iter()
        .zip(&launch.args)
        .map(|(d, a)| {
            let ty = d.split_whitespace().nth(1).unwrap_or("");
            Ok(match ty {
                ".u64" | ".b64" | ".s64" if a.shape.is_some() => Param::Pointer,
                ".u64" | ".b64" | ".s64" => Param::Scalar(DType::I64),
                ".u32" | ".b32" | ".s32" => Param::Scalar(DType::I32),
                ".f32" => Param::Scalar(DType::F32),
                ".f64" => Param::Scalar(DType::F64),
                t => bail!("{file}: parameter `{d}` of type {t} is not supported"),
            })
        })
        .collect::<Result<_>>()?;
    Ok((name, params))
}

/// PTX without its `//` and `/* */` comments (a commented-out `.entry`
/// is not a kernel). One pass; a block comment leaves its newlines, so
/// line structure is kept, and `"..."` strings (`.file` paths) are copied
/// as they are.
fn strip_ptx_comments(ptx: &str) -> String {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        Line,
        Block,
    }
    let mut out = String::with_capacity(ptx.len());
    let mut state = In::Code;
    let mut chars = ptx.chars().peekable();
    while let Some(c) = chars.next() {
        match state {
            In::Code => match (c, chars.peek()) {
                ('/', Some('/')) => {
                    chars.next();
                    state = In::Line;
                }
                ('/', Some('*')) => {
                    chars.next();
                    out.push(' ');
                    state = In::Block;
                }
                ('"', _) => {
                    out.push(c);
                    state = In::Str;
                }
                _ => out.push(c),
            },
            In::Str => {
                out.push(c);
                if c == '\\' {
                    out.extend(chars.next());
                } else if c == '"' || c == '\n' {
                    state = In::Code;
                }
            }
            In::Line => {
                if c == '\n' {
                    out.push(c);
                    state = In::Code;
                }
            }
            In::Block => {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    state = In::Code;
                } else if c == '\n' {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// Byte index of directive `d` standing as a word of its own (not inside
/// `.entry_point` or a longer name).
fn find_directive(text: &str, d: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(d).map(|i| i + from) {
        let before_ok = i == 0 || text[..i].ends_with(|c: char| c.is_whitespace());
        let after_ok = text[i + d.len()..].starts_with(|c: char| c.is_whitespace());
        if before_ok && after_ok {
            return Some(i);
        }
        from = i + d.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use kperf_runtime::spec::ArgSpec;

    #[test]
    fn commented_out_entries_are_not_kernels() {
        let ptx = "// .entry old(.param .u64 a)\n/* .visible .entry older(\n .param .u64 b) */\n.visible .entry axpy(\n .param .u64 axpy_param_0 // the x vector\n)\n{ ret; }";
        let launch = LaunchSpec {
            kernel: None,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
            args: vec![ArgSpec {
                name: String::new(),
                dtype: "f32".into(),
                shape: Some(vec![4]),
                fill: None,
                seed: None,
                values: None,
                value: None,
            }],
            origin: None,
            placement: Default::default(),
        };
        let (name, params) = ptx_kernel("k.ptx", ptx, &launch).unwrap();
        assert_eq!((name.as_str(), params), ("axpy", vec![Param::Pointer]));
    }

    #[test]
    fn comments_are_stripped_in_one_pass() {
        let cases = [
            ("a // b\nc", "a \nc"),
            ("a /* b\n c */ d", "a  \n d"),
            ("a //* b\nc", "a \nc"),
            ("a /*/ b */c", "a  c"),
            ("a /* never closed\n.entry k(", "a  \n"),
            (
                ".file 1 \"/tmp/a/*b.cu\"\n.entry k(",
                ".file 1 \"/tmp/a/*b.cu\"\n.entry k(",
            ),
            (".file 1 \"x\\\"//y\" // z", ".file 1 \"x\\\"//y\" "),
        ];
        for (ptx, want) in cases {
            assert_eq!(strip_ptx_comments(ptx), want, "{ptx:?}");
        }
    }

    #[test]
    fn entry_headers_parse_without_panics() {
        let launch = LaunchSpec {
            kernel: None,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
            args: vec![],
            origin: None,
            placement: Default::default(),
        };
        // Without a parameter list, a kernel that takes nothing.
        let (name, params) = ptx_kernel("k.ptx", ".visible .entry k {\n ret;\n}", &launch).unwrap();
        assert_eq!((name.as_str(), params), ("k", vec![]));
        for (ptx, error) in [
            (
                ".visible .entry k (\n .param .u64 a\n{ ret; }",
                "k.ptx: unclosed parameter list of .entry k",
            ),
            (
                ".visible .entry (.param .u64 a)",
                "k.ptx: .entry without a kernel name",
            ),
        ] {
            let e = ptx_kernel("k.ptx", ptx, &launch).unwrap_err().to_string();
            assert_eq!(e, error);
        }
    }

    #[test]
    fn ptx_parameters_follow_the_spec() {
        let ptx = ".visible .entry axpy(\n .param .u64 axpy_param_0,\n .param .f32 axpy_param_1,\n .param .u64 axpy_param_2\n)\n{ ret; }";
        let arg = |shape: Option<Vec<u64>>, dtype: &str| ArgSpec {
            name: String::new(),
            dtype: dtype.into(),
            shape,
            fill: None,
            seed: None,
            values: None,
            value: None,
        };
        let launch = LaunchSpec {
            kernel: None,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_bytes: 0,
            args: vec![
                arg(Some(vec![4]), "f32"),
                arg(None, "f32"),
                arg(None, "i64"),
            ],
            origin: None,
            placement: Default::default(),
        };
        let (name, params) = ptx_kernel("k.ptx", ptx, &launch).unwrap();
        assert_eq!(name, "axpy");
        assert_eq!(
            params,
            vec![
                Param::Pointer,
                Param::Scalar(DType::F32),
                Param::Scalar(DType::I64)
            ]
        );
        let short = LaunchSpec {
            args: vec![],
            ..launch
        };
        let e = ptx_kernel("k.ptx", ptx, &short).unwrap_err().to_string();
        assert!(e.contains("takes 3 parameters"), "{e}");
    }
}
