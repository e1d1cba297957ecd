//! `kperf replay` and `kperf report`.

use crate::cmd_instrument::write_atomically;
use anyhow::{Context, Result};
use clap::Args;
use kperf_replay::{
    replay_file, replay_proton_file, ReplayOptions, ReplayReport, TraceFormat, TraceGrouping,
};
use kperf_runtime::decode::ProfileReader;
use kperf_runtime::output::{check_output, same_file, TempPath};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReplayArgs {
    /// Raw profile (.kprof), or a Proton host dump with --proton
    pub profile: PathBuf,
    /// Trace to write: Chrome JSON, or Perfetto's protobuf format for
    /// `.pftrace` / `.perfetto-trace` / `.pb` (see --format)
    #[arg(short, long, default_value = "trace.json")]
    pub output: PathBuf,
    /// Trace format: `chrome` (JSON) or `perfetto` (protobuf); default:
    /// from the output's extension
    #[arg(long)]
    pub format: Option<String>,
    /// Print the summary table
    #[arg(long)]
    pub summary: bool,
    /// Write the versioned feedback JSON (per-region stats, overlaps, critical paths)
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// One trace process per SM (default) or per CTA
    #[arg(long, default_value = "sm")]
    pub group_by: String,
    /// Show raw timings: no overhead correction
    #[arg(long)]
    pub no_correction: bool,
    /// Cost of one record in counter ticks (default: the profile's calibration; without one nothing is subtracted and the report says the durations are raw)
    #[arg(long)]
    pub record_cost: Option<f64>,
    /// Keep the calibrated record cost even where it puts the kernel region
    /// more than 5% off the uninstrumented run `kperf run` timed (by
    /// default the cost is then fitted to that run)
    #[arg(long)]
    pub no_fit: bool,
    /// Counter ticks per ns (default: measured from the global timer, all CTAs' clock spans over their timer spans)
    #[arg(long)]
    pub ticks_per_ns: Option<f64>,
    /// The input is a Triton Proton host dump
    #[arg(long)]
    pub proton: bool,
    /// The input is a raw profile buffer as the kernel wrote it (e.g.
    /// Triton's profile scratch saved to a file), described by --meta
    #[arg(long, requires = "meta")]
    pub raw: bool,
    /// With --raw: the `.kperf.json` written by `kperf instrument`
    #[arg(long)]
    pub meta: Option<PathBuf>,
    /// With --raw: the launch grid (X[,Y,Z]); default: one row of as many
    /// CTAs as the buffer holds
    #[arg(long)]
    pub grid: Option<String>,
    /// With --raw: the kernel, when the metadata describes several
    #[arg(long)]
    pub kernel: Option<String>,
}

/// Open a raw buffer with its metadata: the ordinary reader, with its
/// checks, over the user's own file, so errors name it and its offsets.
fn open_raw(a: &ReplayArgs) -> Result<ProfileReader> {
    let meta_path = a
        .meta
        .as_ref()
        .context("--raw needs --meta <out>.kperf.json")?;
    let grid = match &a.grid {
        Some(g) => {
            let v = kperf_instrument::options::parse_u32_list(g, "grid dimension")?;
            anyhow::ensure!(!v.is_empty() && v.len() <= 3, "--grid takes 1 to 3 numbers");
            let mut d = [1u32; 3];
            d[..v.len()].copy_from_slice(&v);
            Some(d)
        }
        None => None,
    };
    Ok(kperf_runtime::raw::open(
        &a.profile,
        meta_path,
        a.kernel.as_deref(),
        grid,
    )?)
}

#[derive(Args)]
pub struct ReportArgs {
    /// Raw profile (.kprof), or a Proton host dump with --proton
    pub profile: PathBuf,
    /// The profile is a Triton Proton host dump (as `kperf replay --proton`)
    #[arg(long)]
    pub proton: bool,
    /// Show raw timings: no overhead correction
    #[arg(long)]
    pub no_correction: bool,
    /// Print the feedback JSON instead of the table
    #[arg(long)]
    pub json: bool,
}

fn options(
    no_correction: bool,
    no_fit: bool,
    record_cost: Option<f64>,
    ticks_per_ns: Option<f64>,
    group_by: &str,
) -> Result<ReplayOptions> {
    let trace_grouping = match group_by {
        "sm" => TraceGrouping::Sm,
        "cta" => TraceGrouping::Cta,
        g => anyhow::bail!("unknown --group-by `{g}` (sm, cta)"),
    };
    Ok(ReplayOptions {
        correction: !no_correction,
        record_cost_ticks: record_cost,
        ticks_per_ns,
        trace_grouping,
        trace_format: TraceFormat::Chrome,
        fit_to_check: !no_fit,
    })
}

fn load(
    profile: &Path,
    proton: bool,
    opts: &ReplayOptions,
    trace: Option<&Path>,
) -> Result<ReplayReport> {
    let r = if proton {
        replay_proton_file(profile, opts, trace)
    } else {
        replay_file(profile, opts, trace)
    };
    r.with_context(|| format!("cannot replay {}", profile.display()))
}

pub fn replay(a: ReplayArgs) -> Result<()> {
    let mut opts = options(
        a.no_correction,
        a.no_fit,
        a.record_cost,
        a.ticks_per_ns,
        &a.group_by,
    )?;
    opts.trace_format = match a.format.as_deref() {
        None => TraceFormat::for_path(&a.output),
        Some("chrome" | "json") => TraceFormat::Chrome,
        Some("perfetto" | "pftrace") => TraceFormat::Perfetto,
        Some(f) => anyhow::bail!("unknown --format `{f}` (chrome, perfetto)"),
    };
    let mut inputs: Vec<(&str, &Path)> = vec![("the profile", &a.profile)];
    if let Some(m) = &a.meta {
        inputs.push(("the metadata", m));
    }
    check_output(&a.output, &inputs)?;
    if let Some(j) = &a.json {
        check_output(j, &inputs)?;
        anyhow::ensure!(
            !same_file(j, &a.output),
            "--json {} and -o {} name the same file",
            j.display(),
            a.output.display()
        );
    }
    // The trace streams into a unique temporary that replaces the output
    // only on success, and the feedback JSON is made before either lands.
    let trace = TempPath::beside(&a.output)?;
    let report = if a.raw {
        let reader = open_raw(&a)?;
        kperf_replay::replay_reader(&reader, &opts, Some(trace.path()))
            .with_context(|| format!("cannot replay {}", a.profile.display()))?
    } else {
        load(&a.profile, a.proton, &opts, Some(trace.path()))?
    };
    let feedback = a
        .json
        .as_ref()
        .map(|_| report.feedback_json())
        .transpose()?;
    trace.persist()?;
    if let (Some(j), Some(f)) = (&a.json, feedback) {
        write_atomically(j, f.as_bytes())?;
    }
    if a.summary {
        print!("{}", crate::escape_controls(&report.render_summary()));
    }
    let viewers = match opts.trace_format {
        TraceFormat::Chrome => "ui.perfetto.dev or chrome://tracing",
        TraceFormat::Perfetto => "ui.perfetto.dev or trace_processor",
    };
    eprintln!("kperf: wrote {} (open it in {viewers})", a.output.display());
    Ok(())
}

pub fn report(a: ReportArgs) -> Result<()> {
    let opts = options(a.no_correction, false, None, None, "sm")?;
    let report = load(&a.profile, a.proton, &opts, None)?;
    if a.json {
        println!("{}", report.feedback_json()?);
    } else {
        print!("{}", crate::escape_controls(&report.render_summary()));
    }
    Ok(())
}
