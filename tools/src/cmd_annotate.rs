//! `kperf annotate`: measured figures back onto the IR.

use crate::cmd_instrument::write_atomically;
use anyhow::{Context, Result};
use clap::Args;
use kperf_instrument::mlir::annotate::{annotate, Figure, RegionFigures};
use kperf_instrument::mlir::print_module;
use kperf_instrument::KperfContext;
use kperf_replay::{Feedback, Profile, ReplayOptions};
use std::path::PathBuf;

#[derive(Args)]
pub struct AnnotateArgs {
    /// The kernel as it was before instrumentation (.mlir)
    pub input: PathBuf,
    /// Raw profile of a run of that kernel
    #[arg(long)]
    pub profile: PathBuf,
    /// Annotated output (default: <input stem>.annotated.mlir)
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Use raw timings (no overhead correction)
    #[arg(long)]
    pub no_correction: bool,
}

/// The figures a later pass reads, per region.
pub fn figures(fb: &Feedback) -> Vec<RegionFigures> {
    fb.regions
        .iter()
        .map(|r| RegionFigures {
            name: r.name.clone(),
            kind: r.kind,
            location: r.location.clone(),
            figures: vec![
                ("count".into(), Figure::Int(r.count as i64)),
                ("mean_cycles".into(), Figure::Float(r.mean_cycles)),
                ("mean_ns".into(), Figure::Float(r.mean_ns)),
                ("p95_ns".into(), Figure::Float(r.p95_ns)),
                ("share".into(), Figure::Float(r.share)),
                ("on_critical_path".into(), Figure::Bool(r.on_critical_path)),
                ("tick_unit".into(), Figure::Text(fb.tick_unit.clone())),
            ],
        })
        .collect()
}

pub fn run(a: AnnotateArgs) -> Result<()> {
    let out = a
        .output
        .clone()
        .unwrap_or_else(|| a.input.with_extension("annotated.mlir"));
    kperf_runtime::output::check_output(
        &out,
        &[("the kernel", &a.input), ("the profile", &a.profile)],
    )?;
    let opts = if a.no_correction {
        ReplayOptions::no_correction()
    } else {
        ReplayOptions::default()
    };
    let profile = Profile::load_with(&a.profile, &opts)
        .with_context(|| format!("cannot replay {}", a.profile.display()))?;
    let fb = profile.feedback();
    let file = a.input.display().to_string();
    let source = kperf_runtime::input::read_to_string(&a.input)
        .with_context(|| format!("cannot read {file}"))?;
    let kctx = KperfContext::new()?;
    let module = kctx.parse(&source, &file)?;
    let report = annotate(&kctx, &module, &figures(&fb))?;
    write_atomically(&out, print_module(&module).as_bytes())?;
    for (name, at) in &report.annotated {
        eprintln!(
            "{}",
            crate::escape_controls(&format!("  {name:<24} → {at}"))
        );
    }
    if !report.unmatched.is_empty() {
        eprintln!(
            "kperf: no op matched region(s) {} (has the file changed since it was instrumented?)",
            report.unmatched.join(", ")
        );
    }
    eprintln!(
        "kperf: wrote {} ({} region(s) annotated)",
        out.display(),
        report.annotated.len()
    );
    Ok(())
}
