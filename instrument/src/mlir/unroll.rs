//! Loops the plain build unrolls completely stay unrolled when instrumented.
//!
//! Records inside a loop body add to LLVM's size estimate of that body (a
//! clock read, the ring index, an inline-asm store: about ten per record),
//! and LLVM unrolls a loop whose trip count it only bounds, such as a
//! strided `for (i = tid; i < 1024; i += 128)`, only while the unrolled
//! size stays under a threshold (NVPTX at O3: 75 for this partial/runtime
//! path). examples/reduce.mlir's 8-iteration load loop is 8 straight-line
//! loads in the plain build; with `--regions iterations` it became a
//! peeled iteration and a loop unrolled by 4: 78 SASS instructions the
//! records do not explain, 102% of the plain kernel. The profiled kernel
//! was not the kernel.
//!
//! So before the instrumented module is emitted, both builds are lowered
//! to optimized LLVM IR with line tables, and their loops are told apart by
//! the source location of their branches. A loop of the source (`scf.for`)
//! that is still a loop in the instrumented IR but gone from the plain IR
//! gets LLVM's unroll-count pragma with a count above any trip count the
//! plain build could have unrolled completely ([`HINT_COUNT`]); LLVM then
//! unrolls it completely, as many times as the plain build did (a count at
//! or above the loop's maximum trip count is a complete unroll). A hint
//! that does not make its loop vanish (the plain loop was gone for another
//! reason: deleted, turned into a `memset`) is taken back, so no loop is
//! ever runtime-unrolled by the hint.
//!
//! NVPTX only: the AMDGPU pipeline has no line-table variant yet, and the
//! host target's JIT runs its own pipeline (docs/fidelity.md).

use super::ir::{self, Op};
use super::pipeline::{gpu_binary_objects, nvptx_lowering_with_lines};
use super::{module_op, KperfContext};
use crate::error::Result;
use crate::llvm::cfg::Cfg;
use crate::llvm::ir::Block;
use melior::ir::Module;
use mlir_sys::*;
use std::collections::BTreeSet;

/// The unroll count a hinted loop gets. LLVM unrolls completely only loops
/// whose trip count it knows or bounds, and within size thresholds that
/// keep that count well below this (full unroll: 300 instructions at O3;
/// bounded: a maximum trip count of 8; the partial path: 75); a count at
/// or above the trip count is a complete unroll.
pub const HINT_COUNT: i32 = 1024;

/// Where a loop's branches come from in the source: file name (without
/// directory), line, column.
pub type LoopSite = (String, u32, u32);

/// What [`unroll_as_plain`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct UnrollMatch {
    /// Source loops now unrolled completely, as in the plain build.
    pub hinted: Vec<LoopSite>,
    /// Source loops the plain build does not keep, which the hint did not
    /// unroll: left as they were.
    pub unmatched: Vec<LoopSite>,
    /// Why no loop was compared: a probe build failed (the line-table
    /// pipeline on an input the plain pipeline takes). The module is then
    /// emitted as it is; the probe is never a reason to refuse a kernel.
    pub probe_failed: Option<String>,
}

/// Give the loops of `module` (instrumented, not yet lowered past the kperf
/// passes) that `plain` (the same source, uninstrumented, not yet lowered)
/// unrolls completely the pragma that unrolls them completely too.
pub fn unroll_as_plain(
    kctx: &KperfContext,
    module: &mut Module,
    plain: &Module,
    chip: &str,
) -> Result<UnrollMatch> {
    let mut out = UnrollMatch::default();
    let candidates: Vec<(Op, LoopSite)> = source_loops(module_op(module))
        .into_iter()
        .filter(|(op, _)| !op.has_attr(LOOP_ANNOTATION))
        .collect();
    if candidates.is_empty() {
        return Ok(out);
    }
    let probes = optimized_loops(kctx, plain, chip)
        .and_then(|p| Ok((p, optimized_loops(kctx, module, chip)?)));
    let (plain_loops, inst_loops) = match probes {
        Ok(loops) => loops,
        Err(e) => {
            out.probe_failed = Some(e.to_string());
            return Ok(out);
        }
    };
    let hinted: Vec<(Op, LoopSite)> = candidates
        .into_iter()
        .filter(|(_, site)| inst_loops.contains(site) && !plain_loops.contains(site))
        .collect();
    if hinted.is_empty() {
        return Ok(out);
    }
    let hint = unroll_count_attr(kctx, HINT_COUNT)?;
    for (op, _) in &hinted {
        op.set_attr(LOOP_ANNOTATION, hint);
    }
    // A hint whose loop survives would runtime-unroll it by the count; so
    // would every hint if the check cannot be made.
    let after = match optimized_loops(kctx, module, chip) {
        Ok(after) => after,
        Err(e) => {
            for (op, _) in &hinted {
                op.remove_attr(LOOP_ANNOTATION);
            }
            out.probe_failed = Some(e.to_string());
            return Ok(out);
        }
    };
    for (op, site) in hinted {
        if after.contains(&site) {
            op.remove_attr(LOOP_ANNOTATION);
            out.unmatched.push(site);
        } else {
            out.hinted.push(site);
        }
    }
    Ok(out)
}

/// The attribute `convert-scf-to-cf` carries from an `scf.for` to its
/// latch branch, and the translation to LLVM IR turns into `!llvm.loop`.
const LOOP_ANNOTATION: &str = "loop_annotation";

fn unroll_count_attr(kctx: &KperfContext, count: i32) -> Result<MlirAttribute> {
    let text = format!("#llvm.loop_annotation<unroll = <count = {count} : i32>>");
    let a = unsafe { mlirAttributeParseGet(kctx.ctx.to_raw(), ir::sref(&text)) };
    if a.ptr.is_null() {
        return Err(crate::error::InstrumentError::Verify(format!(
            "cannot build {text}: {}",
            kctx.take_diagnostics()
        )));
    }
    Ok(a)
}

/// The `scf.for` loops of the source, with their locations.
fn source_loops(top: Op) -> Vec<(Op, LoopSite)> {
    top.nested_ops()
        .into_iter()
        .filter(|o| o.name() == "scf.for")
        .filter_map(|o| {
            let (file, line, col) = ir::file_line_col(o.location())?;
            Some((o, (base_name(&file), line, col)))
        })
        .collect()
}

fn base_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

/// The source sites of the loops LLVM's optimized IR of a copy of `module`
/// still holds: the locations of their latches' and headers' branches.
fn optimized_loops(kctx: &KperfContext, module: &Module, chip: &str) -> Result<BTreeSet<LoopSite>> {
    let mut copy = clone_module(module);
    crate::llvm::set_nvptx_codegen_options(false);
    crate::llvm::set_unknown_locations(false);
    kctx.run_pipeline(&mut copy, &nvptx_lowering_with_lines(chip, "llvm", None))?;
    let mut sites = BTreeSet::new();
    for bitcode in gpu_binary_objects(&copy)? {
        let ctx = inkwell::context::Context::create();
        let m = crate::llvm::parse(&ctx, &bitcode, "<optimized probe>")?;
        for f in m.get_functions() {
            let Some(entry) = f.get_first_basic_block() else {
                continue;
            };
            let cfg = Cfg::new(Block(entry.as_mut_ptr()));
            for l in cfg.loops() {
                for b in l.latches.iter().chain([&l.header]) {
                    let Some(t) = cfg.blocks[*b].terminator() else {
                        continue;
                    };
                    if let (Some(file), Some((line, col))) = (t.debug_file(), t.line_col()) {
                        sites.insert((base_name(&file), line, col));
                    }
                }
            }
        }
    }
    Ok(sites)
}

/// A copy of `module` (with its locations, which printing would drop).
fn clone_module<'c>(module: &Module<'c>) -> Module<'c> {
    unsafe {
        let op = mlirOperationClone(module_op(module).0);
        Module::from_raw(mlirModuleFromOperation(op))
    }
}
