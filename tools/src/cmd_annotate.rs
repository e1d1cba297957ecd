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
    /// Annotate even when the kernel is not the source the profile was
    /// recorded from (regions are then matched by name and location only)
    #[arg(long)]
    pub allow_changed_source: bool,
}

/// The figures a later pass reads, per region. A region with no complete
/// instance gets its count and unmatched records only: `mean_ns = 0.0`
/// there read as a region that costs nothing.
pub fn figures(fb: &Feedback) -> Vec<RegionFigures> {
    fb.regions
        .iter()
        .map(|r| RegionFigures {
            name: r.name.clone(),
            kind: r.kind,
            location: r.location.clone(),
            figures: if r.count == 0 {
                vec![
                    ("count".into(), Figure::Int(0)),
                    (
                        "unmatched_records".into(),
                        Figure::Int(r.unmatched_records as i64),
                    ),
                ]
            } else {
                vec![
                    ("count".into(), Figure::Int(r.count as i64)),
                    ("mean_cycles".into(), Figure::Float(r.mean_cycles)),
                    ("mean_ns".into(), Figure::Float(r.mean_ns)),
                    ("p95_ns".into(), Figure::Float(r.p95_ns)),
                    ("share".into(), Figure::Float(r.share)),
                    ("on_critical_path".into(), Figure::Bool(r.on_critical_path)),
                    // Replay's verdict travels with the figures: a pass
                    // reading `mean_cycles = 3.86` of a region made mostly
                    // of its records could not tell (adversarial pass,
                    // 2026-11-28).
                    ("below_resolution".into(), Figure::Bool(r.below_resolution)),
                    ("tick_unit".into(), Figure::Text(fb.tick_unit.clone())),
                ]
            },
        })
        .collect()
}

/// Regions a profile has no complete instance of, named for a warning.
fn untimed_regions(fb: &Feedback) -> Vec<String> {
    fb.regions
        .iter()
        .filter(|r| r.count == 0)
        .map(|r| {
            format!(
                "`{}` ({} unmatched records)",
                crate::shown(&r.name),
                r.unmatched_records
            )
        })
        .collect()
}

/// Figures written onto another text than the profiled one land on
/// whatever op now has a region's name or location: refuse unless asked.
/// Profiles from before the digest was recorded (or from Proton) carry
/// none, and are matched by name and location as before.
/// Whether `source` is the profiled one; an error where it is not and
/// `allow_changed` is off. `Ok(true)`: changed, and allowed.
fn check_source(
    meta: &kperf_dialects::meta::InstrumentMeta,
    source: &str,
    file: &str,
    allow_changed: bool,
) -> Result<bool> {
    let Some(recorded) = &meta.source_sha256 else {
        return Ok(false);
    };
    let digest = kperf_instrument::source_digest(source.as_bytes());
    if &digest == recorded {
        return Ok(false);
    }
    let what = format!(
        "{file} is not the source this profile was recorded from (it was `{}`, sha256 {}…; this file's is {}…)",
        crate::shown(&meta.source),
        recorded.chars().take(12).collect::<String>(),
        &digest[..12]
    );
    if allow_changed {
        eprintln!("kperf: warning: {what}: annotating by region name and location anyway");
        Ok(true)
    } else {
        anyhow::bail!(
            "{what}: its figures could land on the wrong ops; annotate the profiled file, or pass --allow-changed-source"
        )
    }
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
    let changed = check_source(&profile.info().meta, &source, &file, a.allow_changed_source)?;
    let kctx = KperfContext::new()?;
    let module = kctx.parse(&source, &file)?;
    // The profiled source under another name (a copy, or the file moved):
    // its locations name the profiled file.
    let profiled = profile.info().meta.source.clone();
    let renamed = (!profiled.is_empty()).then_some((profiled.as_str(), file.as_str()));
    let report = annotate(&kctx, &module, &figures(&fb), renamed)?;
    write_atomically(&out, print_module(&module).as_bytes())?;
    for (name, at) in &report.annotated {
        eprintln!(
            "{}",
            crate::escape_controls(&format!("  {name:<24} → {at}"))
        );
    }
    if !report.unmatched.is_empty() {
        // A one-line edit above every region moved them all, and the
        // reason given was the build's location-less ops.
        let why = if changed {
            "the file changed since it was profiled: an op whose line moved no longer sits at its \
             region's location"
        } else {
            "regions of ops the build made without a location of the file"
        };
        eprintln!(
            "kperf: no op of the file is at the location of region(s) {} ({why})",
            report.unmatched.join(", ")
        );
    }
    let untimed = untimed_regions(&fb);
    if !untimed.is_empty() {
        eprintln!(
            "kperf: warning: no complete instance of region(s) {} in the profile: annotated with \
             their count only (records lost to a wrapped ring? raise --slots, or record with \
             --strategy flush)",
            untimed.join(", ")
        );
    }
    eprintln!(
        "kperf: wrote {} ({} region(s) annotated)",
        out.display(),
        report.annotated.len()
    );
    Ok(())
}
