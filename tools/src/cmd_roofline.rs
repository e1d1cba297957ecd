//! `kperf roofline results.json -o roofline.svg`: the measured roofs and
//! every benchmarked point that has work attached, on log-log axes.

use anyhow::{bail, Context, Result};
use kperf_bench::results::Results;
use kperf_bench::roofline::{analyze, plot_svg, si, DevicePeaks};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RooflineArgs {
    /// Results from `kperf bench` (several files are drawn on one plot)
    #[arg(required = true)]
    pub results: Vec<PathBuf>,
    /// SVG to write
    #[arg(short, long, default_value = "roofline.svg")]
    pub output: PathBuf,
    /// Measured peaks (default: the ones stored in the results)
    #[arg(long)]
    pub peaks: Option<PathBuf>,
    /// Vendor peaks, drawn dashed as reference lines
    #[arg(long)]
    pub vendor: Option<PathBuf>,
}

pub fn run(a: RooflineArgs) -> Result<()> {
    let all: Vec<Results> = a
        .results
        .iter()
        .map(|p| Results::load(p))
        .collect::<Result<_, _>>()?;
    let peaks = match &a.peaks {
        Some(p) => DevicePeaks::load(p)?,
        None => all.iter().find_map(|r| r.peaks.clone()).with_context(|| {
            format!(
                "{}: no device peaks stored; run `kperf peak` and pass --peaks",
                a.results[0].display()
            )
        })?,
    };
    let vendor = a.vendor.as_deref().map(DevicePeaks::load).transpose()?;
    let points: Vec<_> = all.iter().flat_map(|r| r.roofline_points()).collect();
    if points.is_empty() {
        bail!("no point has work (FLOPs, bytes); add a [work] section to the bench spec");
    }
    for p in &points {
        let m = analyze(&peaks, p)?;
        println!(
            "{:<40} {:>14} {:>12} AI {:>8} MFU {:>5.1}% MBU {:>5.1}% {}",
            p.label,
            si(m.flops_per_s, "FLOP/s"),
            si(m.bytes_per_s, "B/s"),
            m.intensity.map_or("-".into(), |i| format!("{i:.3}")),
            100.0 * m.mfu,
            100.0 * m.mbu,
            m.bound
        );
    }
    plot_svg(&peaks, vendor.as_ref(), &points, &a.output)?;
    eprintln!("kperf: wrote {}", a.output.display());
    Ok(())
}
