//! `kperf`: intra-kernel profiling from the command line.
//!
//! Subcommands map one-to-one onto the crates: `instrument` (kperf-instrument),
//! `run` (kperf-runtime), `replay`/`report` (kperf-replay). See
//! docs/ARCHITECTURE.md for how data flows between them.

// kperf's own printing never ends a job. The standard macros panic when
// stdout or stderr is a closed pipe (`kperf report p.kprof | head -1`,
// `kperf run ... 2>&1 | head -1`): the run then died before writing its
// profile. These shadow them in the whole binary and drop what cannot be
// written; the job goes on and its files are written. Standard output that
// fails otherwise (a full disk) makes the exit status 1 at the end: it may
// be the command's product.
macro_rules! println {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        $crate::stdout_written(writeln!(std::io::stdout(), $($t)*));
    }};
}
macro_rules! print {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        $crate::stdout_written(write!(std::io::stdout(), $($t)*));
    }};
}
macro_rules! eprintln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

mod bench_spec;
mod binding;
mod cmd_annotate;
mod cmd_bench;
mod cmd_calibrate;
mod cmd_cost;
mod cmd_instrument;
mod cmd_opt;
mod cmd_peak;
mod cmd_replay;
mod cmd_replay_bench;
mod cmd_roofline;
mod cmd_run;
mod cmd_run_cuda;
mod cmd_run_simt;
mod device_check;
mod host_job;
mod registers;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// The first error writing standard output other than a closed pipe.
static STDOUT_ERROR: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Note how a write to standard output went (see the print macros).
fn stdout_written(r: std::io::Result<()>) {
    if let Err(e) = r {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            let _ = STDOUT_ERROR.set(e.to_string());
        }
    }
}

#[derive(Parser)]
#[command(name = "kperf", version, about = "Compiler-centric intra-kernel GPU profiling (KPerfIR-style)", long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Insert region records into a kernel and lower them for a target.
    ///
    /// Reads MLIR (gpu.launch bodies, gpu.func, llvm.func NVVM kernels, or
    /// func.func for --target host). Writes the instrumented output (MLIR at
    /// any stage, LLVM IR, PTX, cubin or AMDGPU ISA) and `<out>.kperf.json`,
    /// the metadata that names every region and the buffer layout.
    Instrument(cmd_instrument::InstrumentArgs),
    /// Run a pass pipeline that mixes upstream MLIR passes and kperf's.
    ///
    /// Lets a user instrument before or after any named pass, e.g.
    /// `-p 'canonicalize,gpu.module(convert-gpu-to-nvvm),kperf-instrument'`
    /// instruments the kernel after it was lowered to NVVM (a pass that
    /// runs on `gpu.module`s is written nested, `gpu.module(pass)`, as in
    /// mlir-opt's pipeline syntax; its `-pass` flag nests it for you, this
    /// does not). Writes the resulting
    /// MLIR to -o.
    Opt(cmd_opt::OptArgs),
    /// Run an instrumented kernel (CUDA GPU, CPU with every GPU thread, or host JIT) and write a raw profile.
    ///
    /// Takes a kernel (instrumented on the fly with the same options as
    /// `instrument`) and a launch spec (TOML: grid, block, arguments). Runs
    /// every CTA of the grid and writes `.kprof`: on an NVIDIA GPU with
    /// `--target nvptx:sm_XX` (the default, sm_90a), on the CPU with every
    /// thread of each block with `--target simt` (GPU kernels without a
    /// GPU), or as host code with `--target host` (CTAs over OS threads).
    Run(cmd_run::RunArgs),
    /// Replay a raw profile: pair records, correct overhead, write a trace.
    ///
    /// Writes `trace.json` (Chrome trace format: open it in ui.perfetto.dev
    /// or chrome://tracing), or Perfetto's protobuf format for `-o
    /// x.pftrace` (smaller and faster to load), prints a summary with --summary, writes the
    /// machine-readable feedback JSON with --json. `--proton` reads a Triton
    /// Proton host dump instead of a .kprof.
    Replay(cmd_replay::ReplayArgs),
    /// Print the summary table of a raw profile (replay without a trace).
    Report(cmd_replay::ReportArgs),
    /// Time replay on synthetic profiles of 1M, 10M and 100M records.
    ///
    /// Prints records/s, output bytes per record, peak RSS and peak
    /// anonymous memory of `report`, `replay -o trace.json` and `replay -o
    /// trace.pftrace`, beside a memcpy of the profile's bytes.
    ReplayBench(cmd_replay_bench::ReplayBenchArgs),
    /// Write measured figures back onto the kernel's IR for later passes.
    ///
    /// Each region's count, mean cycles/ns, p95, share and whether it is on
    /// the critical path become a `kperf.measured` attribute on the op the
    /// region came from (the loop, the bracketed op, the kernel function).
    Annotate(cmd_annotate::AnnotateArgs),
    /// Measure what one record costs and how fast the counter ticks.
    ///
    /// Runs a kernel of back-to-back empty regions and writes a device
    /// profile (JSON) that `kperf run --calibration` stores with a profile,
    /// so replay subtracts the calibrated cost (without one it subtracts
    /// nothing, and says the durations are raw).
    Calibrate(cmd_calibrate::CalibrateArgs),
    /// What instrumentation costs a kernel, proven in SASS.
    ///
    /// Assembles the plain and instrumented kernel with ptxas, disassembles
    /// both with cuobjdump, and reports SASS added in total and per record
    /// (clock reads, stores, index arithmetic, predicates), the fixed cost of
    /// init and finalize, registers, spills, stack and shared memory before
    /// and after, and whether records landed in loops.
    Cost(cmd_cost::CostArgs),
    /// Time kernels over a parameter sweep, implementations side by side.
    ///
    /// Reads a bench spec (TOML: implementations, sweep, launch, work,
    /// settings). Warms up, samples until a noise target or a time budget
    /// is met, flushes the cache before each sample, and on CUDA times with
    /// events, optionally replays CUDA graphs and drops throttled samples.
    /// Writes JSON results, prints a table, and with --baseline exits with
    /// status 3 when a point regressed (significant and above --threshold).
    Bench(cmd_bench::BenchArgs),
    /// Measure the device's achievable bandwidth and compute rate.
    ///
    /// Host: a multi-threaded large copy and an FMA-bound JIT kernel; CUDA:
    /// a device copy and cuBLAS SGEMM. Writes the device peaks (JSON) used
    /// by `kperf bench --peaks` and `kperf roofline`.
    Peak(cmd_peak::PeakArgs),
    /// Draw a roofline (SVG) from bench results and measured peaks.
    Roofline(cmd_roofline::RooflineArgs),
}

fn main() {
    let cli = Cli::parse();
    // No perf jitdump directory left behind by the JIT (before any thread:
    // this sets an environment variable).
    kperf_runtime::jitdump::redirect();
    // An interrupted run leaves no hidden temporaries behind.
    kperf_runtime::output::install_interrupt_cleanup();
    // A pass that traps says so instead of ending kperf silently.
    kperf_runtime::output::install_crash_report();
    let r: Result<()> = match cli.cmd {
        Cmd::Instrument(a) => cmd_instrument::run(a),
        Cmd::Opt(a) => cmd_opt::run(a),
        Cmd::Run(a) => cmd_run::run(a),
        Cmd::Replay(a) => cmd_replay::replay(a),
        Cmd::Report(a) => cmd_replay::report(a),
        Cmd::ReplayBench(a) => cmd_replay_bench::run(a),
        Cmd::Calibrate(a) => cmd_calibrate::run(a),
        Cmd::Cost(a) => cmd_cost::run(a),
        Cmd::Annotate(a) => cmd_annotate::run(a),
        Cmd::Bench(a) => cmd_bench::run(a),
        Cmd::Peak(a) => cmd_peak::run(a),
        Cmd::Roofline(a) => cmd_roofline::run(a),
    };
    kperf_runtime::jitdump::discard();
    if let Err(e) = r {
        eprintln!("kperf: error: {}", error_text(&e));
        std::process::exit(exit_status(&e));
    }
    use std::io::Write as _;
    let flushed = std::io::stdout().flush();
    stdout_written(flushed);
    if let Some(e) = STDOUT_ERROR.get() {
        eprintln!("kperf: error: writing standard output failed: {e}");
        std::process::exit(1);
    }
}

/// 3 when the kernel went out of bounds (as the guard-page handler exits),
/// 4 when the SIMT runner stopped it (a deadlock), else 1.
fn exit_status(e: &anyhow::Error) -> i32 {
    use kperf_runtime::LaunchError;
    for c in e.chain() {
        match c.downcast_ref::<LaunchError>() {
            Some(LaunchError::OutOfBounds(_)) => return kperf_runtime::guard::OUT_OF_BOUNDS_EXIT,
            Some(LaunchError::Deadlock(_)) => return 4,
            _ => {}
        }
    }
    1
}

/// The error and its causes, each said once: library errors often print
/// their source in their own message too, which `{:#}` would repeat
/// ("x.toml: No such file: No such file"). Control characters are escaped.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    // Continuation lines (diagnostics, or a newline smuggled in through a
    // spec or profile value echoed in the message) are indented, so no
    // line of an error can pass for a line kperf printed.
    escape_controls(&text).replace('\n', "\n  ")
}

/// A name from IR, a spec or a profile, fit for one line of output:
/// control characters (newline included) escaped, cut to 256 bytes.
pub fn shown(name: &str) -> String {
    kperf_dialects::meta::displayable_name(name, 256).unwrap_or_else(|| name.to_string())
}

/// Terminal control characters (ESC, BEL, CR...) from names in profiles
/// and IR shown as `\x1b`, bidirectional overrides as `\u{202e}`, so
/// output cannot drive the terminal or reorder what it shows.
pub fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else if !c.is_control() && kperf_dialects::meta::is_unsafe_char(c) {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
