//! Line tags for `kperf cost` ([`crate::InstrumentOptions::line_tags`]):
//! every instruction of the input gets a line of its own, and kperf's code
//! lines in a file of its own, so that the SASS line table (`ptxas
//! -lineinfo`, `nvdisasm -g`) says which instructions are the kernel's and
//! which are kperf's, and where each of the kernel's landed.
//!
//! Like LLVM's `debugify`, but line tables only: debugify's full debug
//! info (a variable per value) changes the PTX's virtual registers, and
//! ptxas then allocates registers differently (attention: 124 → 126).
//! Line tables leave the code as it is.

use inkwell::llvm_sys::core as sys;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::*;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use kperf_dialects::abi::{Edge, RegionId};

use super::ir::Block;

/// The file kperf's own code is attributed to.
pub const TAG_FILE: &str = "<kperf>";
/// The file the kernel's instructions are attributed to, line k being the
/// k-th instruction of the module (functions and blocks in order).
pub const KERNEL_FILE: &str = "<kernel>";
/// kperf's tag lines start here, far above any line the kernel's
/// instructions get: ptxas's line table can attribute an instruction to the
/// right line of the wrong file when two files share line numbers. (Below
/// 2^31: nvdisasm prints lines as signed numbers.)
pub const TAG_LINE_BASE: u32 = 1 << 30;
/// The line of every function's own scope (its subprogram): one no
/// instruction has, so that no instruction reads as the kernel's first by
/// sharing the scope's line. (LLVM 22 gives a location merged from two
/// different lines line 0, not the scope's: see [`name_line_zero`].)
pub const SCOPE_LINE: u32 = TAG_LINE_BASE - 1;
/// The line of the kernel's instructions whose location LLVM's code
/// generator lost ([`name_line_zero`]).
pub const KERNEL_UNKNOWN_LINE: u32 = TAG_LINE_BASE - 2;
/// The line of kperf's instructions whose location LLVM merged from two of
/// kperf's (which record's is unknown).
pub const TAG_LINE_UNKNOWN: u32 = TAG_LINE_BASE + 4;
/// Line of init's code in [`TAG_FILE`].
pub const TAG_LINE_INIT: u32 = TAG_LINE_BASE + 1;
/// Line of finalize's code in [`TAG_FILE`].
pub const TAG_LINE_FINALIZE: u32 = TAG_LINE_BASE + 2;
const TAG_LINE_RECORDS: u32 = TAG_LINE_BASE + 16;

/// Line of a record's code in [`TAG_FILE`]: which region and edge it is.
pub fn tag_line_of_record(region: RegionId, edge: Edge) -> u32 {
    TAG_LINE_RECORDS + 2 * region.0 as u32 + u32::from(edge == Edge::End)
}

/// The record a [`TAG_FILE`] line belongs to, if it is a record's.
pub fn record_of_tag_line(line: u32) -> Option<(RegionId, Edge)> {
    let k = line.checked_sub(TAG_LINE_RECORDS)?;
    let edge = if k % 2 == 1 { Edge::End } else { Edge::Start };
    Some((RegionId(u16::try_from(k / 2).ok()?), edge))
}

fn file(b: LLVMDIBuilderRef, name: &str) -> LLVMMetadataRef {
    unsafe { di::LLVMDIBuilderCreateFile(b, name.as_ptr().cast(), name.len(), c"".as_ptr(), 0) }
}

/// Replace the module's debug info with line tables in [`KERNEL_FILE`]:
/// one line per instruction, counted from 1 in module order.
pub fn tag_kernel_lines(module: &Module) {
    unsafe {
        let m = module.as_mut_ptr();
        di::LLVMStripModuleDebugInfo(m);
        let ctx = sys::LLVMGetModuleContext(m);
        let version = sys::LLVMValueAsMetadata(sys::LLVMConstInt(
            sys::LLVMInt32TypeInContext(ctx),
            di::LLVMDebugMetadataVersion() as u64,
            0,
        ));
        let key = "Debug Info Version";
        // Stripping keeps the flag the input may already have.
        if sys::LLVMGetModuleFlag(m, key.as_ptr().cast(), key.len()).is_null() {
            sys::LLVMAddModuleFlag(
                m,
                inkwell::llvm_sys::LLVMModuleFlagBehavior::LLVMModuleFlagBehaviorWarning,
                key.as_ptr().cast(),
                key.len(),
                version,
            );
        }
        let b = di::LLVMCreateDIBuilder(m);
        let f = file(b, KERNEL_FILE);
        let producer = "kperf line tags";
        di::LLVMDIBuilderCreateCompileUnit(
            b,
            di::LLVMDWARFSourceLanguage::LLVMDWARFSourceLanguageC,
            f,
            producer.as_ptr().cast(),
            producer.len(),
            1,
            c"".as_ptr(),
            0,
            0,
            c"".as_ptr(),
            0,
            di::LLVMDWARFEmissionKind::LLVMDWARFEmissionKindLineTablesOnly,
            0,
            0,
            0,
            c"".as_ptr(),
            0,
            c"".as_ptr(),
            0,
        );
        let ty = di::LLVMDIBuilderCreateSubroutineType(
            b,
            f,
            std::ptr::null_mut(),
            0,
            di::LLVMDIFlagZero,
        );
        let mut line = 1u32;
        for func in module.get_functions() {
            if func.count_basic_blocks() == 0 {
                continue;
            }
            let name = func.get_name().to_bytes();
            let sp = di::LLVMDIBuilderCreateFunction(
                b,
                f,
                name.as_ptr().cast(),
                name.len(),
                name.as_ptr().cast(),
                name.len(),
                f,
                SCOPE_LINE,
                ty,
                0,
                1,
                SCOPE_LINE,
                di::LLVMDIFlagZero,
                1,
            );
            di::LLVMSetSubprogram(func.as_value_ref(), sp);
            for bb in func.get_basic_blocks() {
                for i in Block(bb.as_mut_ptr()).instructions() {
                    // Column 1: a location LLVM merges from two gets
                    // column 0 ([`name_line_zero`]).
                    let loc = di::LLVMDIBuilderCreateDebugLocation(
                        ctx,
                        line,
                        1,
                        sp,
                        std::ptr::null_mut(),
                    );
                    di::LLVMInstructionSetDebugLoc(i.0, loc);
                    line += 1;
                }
            }
        }
        di::LLVMDIBuilderFinalize(b);
        di::LLVMDisposeDIBuilder(b);
    }
}

/// The scope kperf's code in `f` is attributed to: [`TAG_FILE`] inside
/// `f`'s subprogram (which [`tag_kernel_lines`] gave it).
pub fn tag_scope(module: &Module, f: FunctionValue) -> Option<LLVMMetadataRef> {
    unsafe {
        let sp = di::LLVMGetSubprogram(f.as_value_ref());
        if sp.is_null() {
            return None;
        }
        let b = di::LLVMCreateDIBuilder(module.as_mut_ptr());
        let scope = di::LLVMDIBuilderCreateLexicalBlockFile(b, sp, file(b, TAG_FILE), 0);
        di::LLVMDIBuilderFinalize(b);
        di::LLVMDisposeDIBuilder(b);
        Some(scope)
    }
}

/// The input lines (as [`tag_kernel_lines`] numbered them) of the
/// instructions inside each region: region id → lines. An instruction is
/// inside a region when every path from the kernel's entry to it passes a
/// START of the region after the last END (forward dataflow over the CFG,
/// open regions intersected where paths meet); START-only regions (async
/// waits) own nothing.
pub fn region_lines(
    cfg: &super::cfg::Cfg,
    sites: &[super::sites::Site],
    ids: &std::collections::HashMap<String, u32>,
) -> std::collections::BTreeMap<u16, Vec<u32>> {
    use std::collections::{BTreeMap, BTreeSet, HashMap};
    let paired: BTreeSet<&str> = sites
        .iter()
        .filter(|s| !s.is_start)
        .map(|s| s.name.as_str())
        .collect();
    let mut at: HashMap<super::ir::Inst, Vec<&super::sites::Site>> = HashMap::new();
    for s in sites.iter().filter(|s| paired.contains(s.name.as_str())) {
        at.entry(s.before).or_default().push(s);
    }
    // ENDs before STARTs at one anchor, as the records are inserted.
    for list in at.values_mut() {
        list.sort_by_key(|s| s.is_start);
    }
    let id = |s: &super::sites::Site| ids[&s.name] as u16;
    // Called with each instruction and the regions open at it.
    type OnInstruction<'f> = dyn FnMut(super::ir::Inst, &BTreeSet<u16>) + 'f;
    let n = cfg.blocks.len();
    let mut open_out: Vec<Option<BTreeSet<u16>>> = vec![None; n];
    let walk = |b: usize, mut open: BTreeSet<u16>, mut on_inst: Option<&mut OnInstruction>| {
        for i in cfg.blocks[b].instructions() {
            for s in at.get(&i).into_iter().flatten() {
                if s.is_start {
                    open.insert(id(s));
                } else {
                    open.remove(&id(s));
                }
            }
            if let Some(f) = on_inst.as_mut() {
                f(i, &open);
            }
        }
        open
    };
    let open_in = |b: usize, out: &[Option<BTreeSet<u16>>]| -> BTreeSet<u16> {
        if b == 0 {
            return BTreeSet::new();
        }
        let mut acc: Option<BTreeSet<u16>> = None;
        for &p in &cfg.preds[b] {
            if let Some(o) = &out[p] {
                acc = Some(match acc {
                    None => o.clone(),
                    Some(a) => a.intersection(o).copied().collect(),
                });
            }
        }
        acc.unwrap_or_default()
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            let out = walk(b, open_in(b, &open_out), None);
            if open_out[b].as_ref() != Some(&out) {
                open_out[b] = Some(out);
                changed = true;
            }
        }
    }
    let mut lines: BTreeMap<u16, Vec<u32>> = BTreeMap::new();
    for b in 0..n {
        let mut record = |i: super::ir::Inst, open: &BTreeSet<u16>| {
            if let Some((line, _)) = i.line_col() {
                for r in open {
                    lines.entry(*r).or_default().push(line);
                }
            }
        };
        walk(b, open_in(b, &open_out), Some(&mut record));
    }
    lines
}

/// Say whose the PTX's line-0 records are (`.loc F 0 C`), before ptxas,
/// which keeps no line-table row for line 0 and files such instructions
/// under whatever row precedes them, often kperf's. Two ways lead there,
/// both in LLVM's code generator after the IR is final:
/// - machine sinking merges a moved instruction's location with its
///   insertion point's: different lines merge to line 0, column 0 (a
///   Triton reduction's row pointers, sunk into a loop's preheader next to
///   kperf's code: 8 LEA, 4 IMAD, 4 LOP3 of the kernel read as kperf's);
/// - SelectionDAG's constants and the branches of block layout have no
///   location: with `use-unknown-locations`
///   ([`super::set_unknown_locations`]) each run of them gets line 0 in
///   the previous record's file and column (every tag has column 1).
///
/// A merge is kperf's where both lines were (kperf's file, column 0), else
/// the kernel's. A location-less run after the kernel's code is the
/// kernel's; after kperf's, each instruction is kperf's (finalize's copy
/// loop branches, its conversions) except a move of zero, which is the
/// kernel's: loop-carried values zeroed in a loop's preheader, right after
/// kperf's START record (a persistent matmul's 72 accumulators read as
/// kperf's). The kernel's lines are [`KERNEL_UNKNOWN_LINE`], kperf's
/// [`TAG_LINE_UNKNOWN`]. `kperf cost` claims back kperf's own constants
/// among the kernel's unknown lines where it can tell them apart
/// (`cost::location_less_constants`). Only `.loc` records change: the
/// SASS is the same.
pub fn name_line_zero(ptx: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(ptx);
    // `.file N "name"`: which numbers are whose.
    let file_number = |name: &str| {
        text.lines().find_map(|l| {
            let rest = l.trim_start().strip_prefix(".file")?;
            let mut parts = rest.split_whitespace();
            let n: u32 = parts.next()?.parse().ok()?;
            parts
                .next()
                .is_some_and(|q| q.trim_matches(|c| c == '"' || c == ',') == name)
                .then_some(n)
        })
    };
    let (Some(kernel), Some(kperf)) = (file_number(KERNEL_FILE), file_number(TAG_FILE)) else {
        return ptx.to_vec();
    };
    let kernels = format!(".loc\t{kernel} {KERNEL_UNKNOWN_LINE} 0");
    let kperfs = format!(".loc\t{kperf} {TAG_LINE_UNKNOWN} 0");
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    // Inside a location-less run after kperf's code: whose record is in
    // force (None: none written yet).
    let mut split_run: Option<Option<bool>> = None;
    for l in text.split_inclusive('\n') {
        let body = l.trim_start();
        let indent = &l[..l.len() - body.len()];
        let eol = if l.ends_with('\n') { "\n" } else { "" };
        let fields: Option<(u32, u32, u32)> = body.strip_prefix(".loc").and_then(|r| {
            let mut p = r.split_whitespace();
            Some((
                p.next()?.parse().ok()?,
                p.next()?.parse().ok()?,
                p.next()?.trim_end_matches(',').parse().ok()?,
            ))
        });
        if let Some((f, line, c)) = fields {
            split_run = None;
            if line != 0 {
                out.push_str(l);
            } else if f == kperf && c != 0 {
                // Decided per instruction below.
                split_run = Some(None);
            } else {
                out.push_str(indent);
                out.push_str(if f == kperf { &kperfs } else { &kernels });
                out.push_str(eol);
            }
            continue;
        }
        if let Some(current) = split_run {
            let instruction = !body.is_empty()
                && !body.starts_with("//")
                && !body.starts_with('$')
                && !body.starts_with('.')
                && !body.starts_with('{')
                && !body.starts_with('}');
            if instruction {
                let kernels_own = moves_zero(body);
                if current != Some(kernels_own) {
                    out.push_str(indent);
                    out.push_str(if kernels_own { &kernels } else { &kperfs });
                    out.push('\n');
                    split_run = Some(Some(kernels_own));
                }
            }
        }
        out.push_str(l);
    }
    out.into_bytes()
}

/// Whether a PTX instruction moves zero into a register (`mov.b32 %r1, 0;`,
/// `mov.f32 %f2, 0f00000000;`).
fn moves_zero(instruction: &str) -> bool {
    let Some(rest) = instruction.strip_prefix("mov.") else {
        return false;
    };
    let Some((_, source)) = rest.trim_end().trim_end_matches(';').rsplit_once(',') else {
        return false;
    };
    let s = source.trim();
    s == "0"
        || s.strip_prefix("0f")
            .or_else(|| s.strip_prefix("0d"))
            .or_else(|| s.strip_prefix("0x"))
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c == '0'))
}

#[cfg(test)]
mod line_zero_tests {
    use super::*;

    #[test]
    fn line_zero_is_the_kernels_unless_merged_from_kperfs() {
        // A merge of kperf's lines; a location-less run after kperf's code
        // (a zeroing, then a branch); a merge of the kernel's lines.
        let ptx = ".file\t1 \"<kernel>\"\n.file\t2 \"<kperf>\"\n\t.loc\t1 7 1\n\tmov.u32 %r1, 0;\n\t.loc\t2 0 0\n\tadd.s32 %r2, %r1, 1;\n\t.loc\t2 0 1\n\tmov.b32 %r3, 0f00000000;\n\tmov.b32 %r5, 0;\n\t@%p1 bra $L__BB0_2;\n$L__BB0_1:\n\tcvt.u64.u32 %rd1, %r5;\n\t.loc\t1 0 0\n\tadd.s32 %r4, %r3, 1;\n";
        let out = String::from_utf8(name_line_zero(ptx.as_bytes())).unwrap();
        let kernel = format!("\t.loc\t1 {KERNEL_UNKNOWN_LINE} 0");
        let kperf = format!("\t.loc\t2 {TAG_LINE_UNKNOWN} 0");
        let want = [
            ".file\t1 \"<kernel>\"",
            ".file\t2 \"<kperf>\"",
            "\t.loc\t1 7 1",
            "\tmov.u32 %r1, 0;",
            &kperf,
            "\tadd.s32 %r2, %r1, 1;",
            &kernel,
            "\tmov.b32 %r3, 0f00000000;",
            "\tmov.b32 %r5, 0;",
            &kperf,
            "\t@%p1 bra $L__BB0_2;",
            "$L__BB0_1:",
            "\tcvt.u64.u32 %rd1, %r5;",
            &kernel,
            "\tadd.s32 %r4, %r3, 1;",
        ];
        assert_eq!(out.lines().collect::<Vec<_>>(), want);
    }
}
