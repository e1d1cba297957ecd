//! Write measured figures back onto the IR, so later compiler passes can
//! read them: each region's figures become an entry of a `kperf.measured`
//! dictionary attribute on the op the region came from.
//!
//! Regions are matched to ops by the source location recorded in the
//! metadata (`file:line:col`, compared by file name, line and column) and
//! by kind: an explicit region lands on its START `kperf.record`, an
//! attribute region on the op carrying `kperf.region`, a kernel region on the
//! kernel function, loop and iteration regions on the loop, op and async
//! regions on the matched op.

use super::ir::Op;
use super::{module_op, KperfContext};
use crate::error::{InstrumentError, Result};
use kperf_dialects::irdl::{attrs, ops};
use kperf_dialects::meta::RegionKind;
use melior::ir::Module;
use std::collections::BTreeMap;

/// One figure's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

/// The figures of one region, and where it came from.
#[derive(Clone, Debug)]
pub struct RegionFigures {
    pub name: String,
    pub kind: RegionKind,
    /// `file:line:col` from the metadata.
    pub location: String,
    pub figures: Vec<(String, Figure)>,
}

/// What `annotate` did.
#[derive(Debug, Default)]
pub struct AnnotateReport {
    /// Region name → `op name @ location` it was written to.
    pub annotated: Vec<(String, String)>,
    /// Regions no op matched (e.g. the file changed since instrumenting).
    pub unmatched: Vec<String>,
}

/// `(file name, line, col)` of a `file:line:col` string.
fn loc_key(loc: &str) -> Option<(String, u32, u32)> {
    let mut parts = loc.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    Some((base_name(file), line, col))
}

fn base_name(file: &str) -> String {
    std::path::Path::new(file)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn fits(op: Op, r: &RegionFigures) -> bool {
    let n = op.name();
    match r.kind {
        RegionKind::Explicit => {
            n == ops::RECORD
                && op.str_attr("name").as_deref() == Some(&r.name)
                && op.int_attr("is_start") == Some(1)
        }
        RegionKind::Attribute => op.str_attr(attrs::REGION).as_deref() == Some(&r.name),
        RegionKind::Kernel => matches!(n.as_str(), "func.func" | "gpu.func" | "llvm.func"),
        RegionKind::Loop | RegionKind::Iteration => matches!(
            n.as_str(),
            "scf.for" | "scf.while" | "scf.forall" | "scf.parallel" | "affine.for"
        ),
        RegionKind::Op => r.name.split('#').next() == Some(n.as_str()),
        RegionKind::AsyncIssue | RegionKind::AsyncWait => !n.starts_with("kperf"),
    }
}

fn render(f: &Figure) -> Option<String> {
    Some(match f {
        Figure::Int(i) => format!("{i} : i64"),
        // Six significant digits: MLIR prints a float attribute in
        // decimal only where six digits give it back, else in hex
        // (`mean_ns = 0x415BF51280000000` beside decimal figures).
        Figure::Float(x) if x.is_finite() => format!("{x:.5e} : f64"),
        Figure::Float(_) => return None,
        Figure::Bool(b) => b.to_string(),
        Figure::Text(t) => format!("{t:?}"),
    })
}

/// Annotate `module` in place with `regions`' figures. `renamed` maps the
/// profiled file's name to the annotated file's, when they differ (a copy
/// of the profiled source under another name matched nothing: the
/// locations carry the file name).
pub fn annotate(
    kctx: &KperfContext,
    module: &Module,
    regions: &[RegionFigures],
    renamed: Option<(&str, &str)>,
) -> Result<AnnotateReport> {
    let all = module_op(module).nested_ops();
    let mut per_op: BTreeMap<usize, (Op, Vec<String>)> = BTreeMap::new();
    let mut report = AnnotateReport::default();
    for r in regions {
        let want = loc_key(&r.location).map(|(file, line, col)| match renamed {
            Some((from, to)) if file == base_name(from) => (base_name(to), line, col),
            _ => (file, line, col),
        });
        let at_location = |op: &Op| want.is_some() && loc_key(&op.loc_string()) == want;
        let found = all
            .iter()
            .copied()
            .enumerate()
            .find(|(_, op)| at_location(op) && fits(*op, r));
        // A region the build's passes made from an op of the file (a
        // `--pre-pipeline` lowering a `linalg.matmul` to loops, a kernel
        // outlined from an `scf.parallel`) carries that op's location: its
        // figures go on that op, said so in the report.
        let derived = || {
            all.iter()
                .copied()
                .enumerate()
                .find(|(_, op)| at_location(op) && !op.name().starts_with("kperf"))
        };
        let (index, op, made) = match found {
            Some((i, op)) => (i, op, false),
            None => match derived() {
                Some((i, op)) => (i, op, true),
                None => {
                    report.unmatched.push(r.name.clone());
                    continue;
                }
            },
        };
        let body: Vec<String> = std::iter::once(format!(
            "kind = {:?}",
            super::regions::serde_json_kind(r.kind)
        ))
        .chain(
            r.figures
                .iter()
                .filter_map(|(k, v)| render(v).map(|v| format!("{k} = {v}"))),
        )
        .collect();
        per_op
            .entry(index)
            .or_insert_with(|| (op, Vec::new()))
            .1
            .push(format!("{:?} = {{{}}}", r.name, body.join(", ")));
        report.annotated.push((
            r.name.clone(),
            format!(
                "{} @ {}{}",
                op.name(),
                op.loc_string(),
                if made {
                    " (the op the region was made from by the build's passes)"
                } else {
                    ""
                }
            ),
        ));
    }
    for (op, entries) in per_op.into_values() {
        let text = format!("{{{}}}", entries.join(", "));
        let attr =
            unsafe { mlir_sys::mlirAttributeParseGet(kctx.ctx.to_raw(), super::ir::sref(&text)) };
        if attr.ptr.is_null() {
            return Err(InstrumentError::At {
                location: op.loc_string(),
                message: format!(
                    "cannot build the annotation {text}: {}",
                    kctx.take_diagnostics()
                ),
            });
        }
        op.set_attr(attrs::MEASURED, attr);
    }
    Ok(report)
}
