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
    // The SVG must never replace what it is drawn from.
    let mut inputs: Vec<(&str, &std::path::Path)> = a
        .results
        .iter()
        .map(|r| ("a results file", r.as_path()))
        .collect();
    if let Some(p) = &a.peaks {
        inputs.push(("the peaks file", p.as_path()));
    }
    if let Some(v) = &a.vendor {
        inputs.push(("the vendor peaks file", v.as_path()));
    }
    kperf_runtime::output::check_output(&a.output, &inputs)?;
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
    // One plot has one set of roofs: points measured on another device are
    // drawn against roofs they were not measured under.
    for (r, path) in all.iter().zip(&a.results) {
        if r.device.name != peaks.device {
            eprintln!(
                "kperf: warning: {} was measured on `{}`, the roofs are `{}`'s: its points are \
                 not comparable with them (plot each device's results apart, or pass its --peaks)",
                path.display(),
                crate::shown(&r.device.name),
                crate::shown(&peaks.device)
            );
        }
    }
    // With several files, a point says which one it comes from.
    let several = all.len() > 1;
    let points: Vec<_> = all
        .iter()
        .zip(&a.results)
        .flat_map(|(r, path)| {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            r.roofline_points().into_iter().map(move |mut p| {
                if several {
                    p.label = format!("{stem}: {}", p.label);
                }
                p
            })
        })
        .collect();
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
