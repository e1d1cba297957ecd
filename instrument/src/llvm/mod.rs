//! The LLVM-IR path: `kperf instrument kernel.ll|.bc|.llir` for kernels
//! from Triton, clang CUDA or any front end that reaches LLVM IR.
//!
//! 1. Parse with inkwell (text or bitcode); find the kernels (`ptx_kernel`
//!    or `!nvvm.annotations`, `amdgpu_kernel`, or host-ABI functions).
//! 2. Find record sites ([`sites`]): markers and the automatic modes.
//! 3. Size the profile with the same plan as the MLIR path
//!    ([`crate::plan`]), then build the very same templates the MLIR path
//!    splices, as LLVM functions ([`crate::mlir::snippets`]), link them in,
//!    call them at each site and inline them.
//! 4. The profile pointer is Triton's profile-scratch parameter for Triton
//!    kernels, a new trailing parameter otherwise.
//! 5. Emit LLVM IR, bitcode, PTX (LLVM's NVPTX back end), cubin (ptxas) or
//!    AMDGPU ISA, plus the same `.kperf.json` metadata.

pub(crate) mod cfg;
pub mod compat;
pub(crate) mod ir;
pub mod line_tags;
pub(crate) mod sites;

use crate::error::{InstrumentError, Result};
use crate::mlir::snippets::{snippets_llvm_ir, SnippetNames};
use crate::mlir::templates::{LoweringConfig, INIT_RESULTS};
use crate::mlir::KperfContext;
use crate::options::{Emit, FpContract, InstrumentOptions, ProfileParam, RegionMode, Target};
use crate::plan::{plan_segments, RegionTable, SiteInfo};
use cfg::Cfg;
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::llvm_sys::core as sys;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::*;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine,
    TargetTriple,
};
use inkwell::types::{BasicMetadataTypeEnum, BasicType};
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, BasicValue, FunctionValue};
use inkwell::OptimizationLevel;
use ir::{Block, Inst};
use kperf_dialects::abi::{Edge, Layout, RegionId};
use kperf_dialects::meta::{InstrumentMeta, KernelMeta};
use line_tags::{tag_line_of_record, TAG_LINE_FINALIZE, TAG_LINE_INIT};
use sites::Site;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Once;

/// What the LLVM path produced.
pub struct LlvmOutput {
    pub bytes: Vec<u8>,
    /// None for `--plain`.
    pub meta: Option<InstrumentMeta>,
    /// Line-tagged builds: per kernel, the input lines each region owns
    /// ([`line_tags::region_lines`]), for `kperf cost`'s region fidelity.
    pub region_lines: BTreeMap<String, BTreeMap<u16, Vec<u32>>>,
}

/// Calling conventions of GPU kernels (llvm/IR/CallingConv.h).
const CC_PTX_KERNEL: u32 = 71;
const CC_AMDGPU_KERNEL: u32 = 91;
/// Host kernels end with block x,y,z and grid x,y,z (see `apply_host_abi`).
const HOST_GRID_ARGS: usize = 6;

/// LLVM bitcode, raw or in its wrapper header.
pub fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

/// Does this input look like LLVM IR (text or bitcode) rather than MLIR?
pub fn is_llvm_input(path: &str, bytes: &[u8]) -> bool {
    let ext = std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match ext {
        "ll" | "llir" | "bc" => true,
        "mlir" => false,
        _ => {
            is_bitcode(bytes)
                || String::from_utf8_lossy(&bytes[..bytes.len().min(4096)])
                    .lines()
                    .any(|l| {
                        l.starts_with("define ")
                            || l.starts_with("target triple")
                            || l.starts_with("; ModuleID")
                    })
        }
    }
}

fn init_targets() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let c = InitializationConfig::default();
        LlvmTarget::initialize_nvptx(&c);
        LlvmTarget::initialize_amd_gpu(&c);
        LlvmTarget::initialize_x86(&c);
    });
}

/// Named metadata that binds a bitcode output to its `.kperf.json`: one
/// string, `<key>=<digest>` (see the binary's `binding` module).
const BINDING_METADATA: &str = "kperf.binding";

/// `bitcode` with [`BINDING_METADATA`] set to `binding`: bitcode has no
/// comment to append, so the binding travels inside the module.
pub fn bind_bitcode(bitcode: &[u8], binding: &str, file: &str) -> Result<Vec<u8>> {
    let ctx = Context::create();
    let module = parse(&ctx, bitcode, file)?;
    let text = ctx.metadata_string(binding);
    let node = ctx.metadata_node(&[text.into()]);
    module
        .add_global_metadata(BINDING_METADATA, &node)
        .map_err(|e| InstrumentError::Tool {
            tool: "LLVM".into(),
            message: format!("cannot add {BINDING_METADATA}: {e}"),
        })?;
    Ok(module.write_bitcode_to_memory().as_slice().to_vec())
}

/// The binding string [`bind_bitcode`] stored in `bitcode`, if any.
pub fn bitcode_binding(bitcode: &[u8], file: &str) -> Result<Option<String>> {
    let ctx = Context::create();
    let module = parse(&ctx, bitcode, file)?;
    let node = module.get_global_metadata(BINDING_METADATA);
    Ok(node.first().and_then(|n| {
        n.get_node_values()?
            .first()
            .filter(|v| v.is_metadata_value())
            .and_then(|v| {
                let md = v.into_metadata_value();
                md.get_string_value()
                    .map(|c| String::from_utf8_lossy(c).into_owned())
            })
    }))
}

/// Parse LLVM IR text or bitcode and verify it; errors carry LLVM's
/// `file:line:col` or the verifier's message. The parser does not run the
/// verifier: a phi whose entries do not match its predecessors parsed,
/// and crashed kperf later (SIGSEGV in instrument and cost).
pub fn parse<'c>(ctx: &'c Context, bytes: &[u8], file: &str) -> Result<Module<'c>> {
    if let Some(diagnostics) = verify_without_debug_flag(bytes, file) {
        return Err(InstrumentError::ParseLlvm {
            file: file.to_string(),
            diagnostics,
        });
    }
    let module = parse_unverified(ctx, bytes, file)?;
    module.verify().map_err(|e| InstrumentError::ParseLlvm {
        file: file.to_string(),
        diagnostics: format!("the verifier says: {}", e.to_string().trim()),
    })?;
    Ok(module)
}

/// With the `Debug Info Version` module flag (Triton's IR, clang's with
/// `-g`/`-lineinfo`), LLVM's parser verifies the module itself and aborts
/// the process on a broken one ("LLVM ERROR: Broken module found"). So IR
/// text carrying the flag is verified first as a copy without it (the
/// parser then drops the debug info instead): the verifier's message, or
/// None when the module verifies or carries no flag.
fn verify_without_debug_flag(bytes: &[u8], file: &str) -> Option<String> {
    const FLAG: &str = "\"Debug Info Version\"";
    if is_bitcode(bytes) {
        return None;
    }
    let text = String::from_utf8_lossy(bytes);
    if !text.contains(FLAG) {
        return None;
    }
    let copy = text.replace(FLAG, "\"kperf: Debug Info Version (verifying)\"");
    // Its own context, with LLVM's diagnostics to nobody: without the flag
    // the parser warns "ignoring debug info with an invalid version (0)",
    // which every Triton kernel printed (the real parse keeps the info).
    let quiet = Context::create();
    // SAFETY: a handler that ignores its arguments, on a live context.
    unsafe {
        sys::LLVMContextSetDiagnosticHandler(
            quiet.raw(),
            Some(ignore_diagnostic),
            std::ptr::null_mut(),
        )
    };
    let module = parse_unverified(&quiet, copy.as_bytes(), file).ok()?;
    let verdict = module
        .verify()
        .err()
        .map(|e| format!("the verifier says: {}", e.to_string().trim()));
    drop(module);
    verdict
}

extern "C" fn ignore_diagnostic(_: LLVMDiagnosticInfoRef, _: *mut std::ffi::c_void) {}

fn parse_unverified<'c>(ctx: &'c Context, bytes: &[u8], file: &str) -> Result<Module<'c>> {
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, file);
    let bitcode = is_bitcode(bytes);
    let parsed = if bitcode {
        Module::parse_bitcode_from_buffer(&buf, ctx)
    } else {
        ctx.create_module_from_ir(buf)
    };
    let first_error = match parsed {
        Ok(m) => return Ok(m),
        Err(e) => e.to_string(),
    };
    // Newer LLVMs (Triton's) print float literals LLVM 22 cannot read:
    // retry once with them rewritten to the legacy syntax.
    if !bitcode {
        let text = String::from_utf8_lossy(bytes);
        if let Ok(fixed) = compat::to_llvm22(&text) {
            if fixed != text {
                let buf = MemoryBuffer::create_from_memory_range_copy(fixed.as_bytes(), file);
                if let Ok(m) = ctx.create_module_from_ir(buf) {
                    return Ok(m);
                }
            }
        }
    }
    Err(InstrumentError::ParseLlvm {
        file: file.to_string(),
        diagnostics: first_error.trim().to_string(),
    })
}

/// The PTX ISA version LLVM should target for `chip`: the chip's minimum
/// ([`Target::ptx_version`]), raised to what the module's functions ask
/// for (`"target-features"`).
fn ptx_features(target: &Target, module: &Module) -> String {
    let mut ptx = target.ptx_version().unwrap_or(80);
    for f in module.get_functions() {
        if let Some(a) = f.get_string_attribute(AttributeLoc::Function, "target-features") {
            for feat in a.get_string_value().to_string_lossy().split(',') {
                if let Some(v) = feat
                    .strip_prefix("+ptx")
                    .and_then(|v| v.parse::<u32>().ok())
                {
                    ptx = ptx.max(v);
                }
            }
        }
    }
    format!("+ptx{ptx}")
}

/// A target machine for `target`, and the triple the module must carry.
fn target_machine(target: &Target, module: &Module) -> Result<TargetMachine> {
    init_targets();
    let (triple, cpu, features) = match target {
        Target::Nvptx { chip, .. } => (
            TargetTriple::create("nvptx64-nvidia-cuda"),
            chip.clone(),
            ptx_features(target, module),
        ),
        Target::Amdgpu { chip } => (
            TargetTriple::create("amdgcn-amd-amdhsa"),
            chip.clone(),
            String::new(),
        ),
        Target::Host => (
            TargetMachine::get_default_triple(),
            TargetMachine::get_host_cpu_name().to_string(),
            TargetMachine::get_host_cpu_features().to_string(),
        ),
    };
    let t = LlvmTarget::from_triple(&triple).map_err(|e| {
        InstrumentError::Option(format!(
            "LLVM has no back end for {}: {e}",
            triple.as_str().to_string_lossy()
        ))
    })?;
    t.create_target_machine(
        &triple,
        &cpu,
        &features,
        OptimizationLevel::Aggressive,
        if target.is_host() {
            RelocMode::PIC
        } else {
            RelocMode::Default
        },
        CodeModel::Default,
    )
    .ok_or_else(|| InstrumentError::Option(format!("LLVM cannot target {} ({cpu})", target.name())))
}

/// Check the module is for `target` and give it the target's triple and
/// data layout when it has none.
fn check_triple(module: &Module, target: &Target, tm: &TargetMachine, file: &str) -> Result<()> {
    let triple = module.get_triple().as_str().to_string_lossy().into_owned();
    let ok = match target {
        Target::Nvptx { .. } => triple.is_empty() || triple.starts_with("nvptx"),
        Target::Amdgpu { .. } => triple.is_empty() || triple.starts_with("amdgcn"),
        Target::Host => !triple.starts_with("nvptx") && !triple.starts_with("amdgcn"),
    };
    if !ok {
        return Err(InstrumentError::At {
            location: file.to_string(),
            message: format!(
                "the module is for `{triple}`, not for --target {}",
                target.name()
            ),
        });
    }
    if triple.is_empty() {
        module.set_triple(&tm.get_triple());
    }
    if module.get_data_layout().as_str().to_bytes().is_empty() {
        module.set_data_layout(&tm.get_target_data().get_data_layout());
    }
    Ok(())
}

/// Refuse intrinsics LLVM compiles only for an architecture-specific chip
/// (`sm_90a`, `sm_100a`) when the target is another one: LLVM's instruction
/// selection stops the process with "Cannot select: intrinsic …" there.
fn check_arch_specific(module: &Module, target: &Target, file: &str) -> Result<()> {
    let Target::Nvptx { chip, simt: false } = target else {
        return Ok(());
    };
    let generation = crate::options::sm_number(chip).unwrap_or(0);
    let specific = chip.ends_with('a') || chip.ends_with('f');
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy();
        let needs = if name.starts_with("llvm.nvvm.wgmma.") {
            (chip != "sm_90a").then_some("sm_90a")
        } else if name.starts_with("llvm.nvvm.tcgen05.") {
            (!(specific && (100..=110).contains(&generation))).then_some("sm_100a")
        } else if name.starts_with("llvm.nvvm.setmaxnreg.") {
            // sm_90a, and from sm_100 on the family chips too (llc accepts
            // sm_100f).
            let ok = chip.ends_with('a') && generation >= 90 || specific && generation >= 100;
            (!ok).then_some("sm_90a or sm_100a")
        } else {
            None
        };
        if let Some(needs) = needs {
            return Err(InstrumentError::At {
                location: file.to_string(),
                message: format!(
                    "the module calls `{name}`, which LLVM compiles only for an \
                     architecture-specific chip ({needs}), not for --target {}: use \
                     --target nvptx:{}",
                    target.name(),
                    needs.split(' ').next().unwrap_or(needs)
                ),
            });
        }
    }
    Ok(())
}

/// NVPTX has no indirect branch: LLVM's instruction selection aborts the
/// process on `indirectbr` ("Cannot select: brind", exit 134, even for
/// `--emit llvm`, whose occupancy check compiles to PTX). Refused, naming
/// the function and block, before anything compiles it; the SIMT target
/// runs on the CPU, which has one.
fn refuse_indirect_branches(module: &Module, target: &Target, file: &str) -> Result<()> {
    if !matches!(target, Target::Nvptx { simt: false, .. }) {
        return Ok(());
    }
    for f in module.get_functions() {
        for bb in f.get_basic_blocks() {
            let Some(term) = bb.get_terminator() else {
                continue;
            };
            if term.get_opcode() == inkwell::values::InstructionOpcode::IndirectBr {
                let block = bb.get_name().to_string_lossy().into_owned();
                return Err(InstrumentError::At {
                    location: file.to_string(),
                    message: format!(
                        "@{}{}: `indirectbr` (a computed goto), which NVPTX cannot compile \
                         (LLVM's code generator stops on it); --target simt runs it on the CPU",
                        f.get_name().to_string_lossy(),
                        if block.is_empty() {
                            String::new()
                        } else {
                            format!(", block %{block}")
                        }
                    ),
                });
            }
        }
    }
    Ok(())
}

fn is_definition(f: FunctionValue) -> bool {
    f.count_basic_blocks() > 0
}

/// Functions listed as kernels in `!nvvm.annotations` (older NVVM IR).
fn annotated_kernels(module: &Module) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    for node in module.get_global_metadata("nvvm.annotations") {
        let vals = node.get_node_values().unwrap_or_default();
        let is_kernel = vals.iter().any(|v| {
            v.is_metadata_value()
                && v.into_metadata_value()
                    .get_string_value()
                    .is_some_and(|s| s == b"kernel")
        });
        if is_kernel {
            if let Some(f) = vals.first().filter(|v| v.is_pointer_value()) {
                out.push(f.as_value_ref());
            }
        }
    }
    out
}

/// The kernels of the module for `target`, in module order.
pub fn find_kernels<'c>(module: &Module<'c>, target: &Target) -> Vec<FunctionValue<'c>> {
    let annotated = annotated_kernels(module);
    module
        .get_functions()
        .filter(|f| is_definition(*f))
        .filter(|f| match target {
            Target::Nvptx { .. } => {
                f.get_call_conventions() == CC_PTX_KERNEL || annotated.contains(&f.as_value_ref())
            }
            Target::Amdgpu { .. } => f.get_call_conventions() == CC_AMDGPU_KERNEL,
            Target::Host => {
                let name = f.get_name().to_string_lossy();
                f.get_linkage() == Linkage::External
                    && !name.starts_with("_mlir_")
                    && !name.starts_with("__kperf")
                    && host_grid_params(*f)
            }
        })
        .collect()
}

/// Does `f` end with the six `i64` grid parameters of the host ABI?
fn host_grid_params(f: FunctionValue) -> bool {
    let ps = f.get_type().get_param_types();
    ps.len() >= HOST_GRID_ARGS
        && ps[ps.len() - HOST_GRID_ARGS..]
            .iter()
            .all(|t| matches!(t, BasicMetadataTypeEnum::IntType(i) if i.get_bit_width() == 64))
}

/// Threads per CTA the kernel declares (`nvvm.reqntid`/`nvvm.maxntid`,
/// `!nvvm.annotations`, `amdgpu-flat-work-group-size` with min = max).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Declared {
    Exactly,
    AtMost,
}

/// The three sizes of `f`'s `!reqd_work_group_size` metadata (OpenCL).
fn reqd_work_group_size(f: FunctionValue) -> Option<[u32; 3]> {
    // SAFETY: metadata entries read from a live function and disposed once;
    // the node's operands are read into a buffer of their count.
    unsafe {
        let ctx = sys::LLVMGetTypeContext(sys::LLVMTypeOf(f.as_value_ref()));
        let name = b"reqd_work_group_size";
        let kind = sys::LLVMGetMDKindIDInContext(ctx, name.as_ptr().cast(), name.len() as u32);
        let mut n = 0usize;
        let entries = sys::LLVMGlobalCopyAllMetadata(f.as_value_ref(), &mut n);
        let mut found = None;
        for k in 0..n as u32 {
            if sys::LLVMValueMetadataEntriesGetKind(entries, k) != kind {
                continue;
            }
            let node =
                sys::LLVMMetadataAsValue(ctx, sys::LLVMValueMetadataEntriesGetMetadata(entries, k));
            let count = sys::LLVMGetMDNodeNumOperands(node) as usize;
            let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); count];
            sys::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
            let sizes: Vec<u32> = ops
                .iter()
                .filter(|v| !v.is_null() && !sys::LLVMIsAConstantInt(**v).is_null())
                .map(|v| sys::LLVMConstIntGetZExtValue(*v) as u32)
                .collect();
            found = crate::plan::block_dims(&sizes);
        }
        if !entries.is_null() {
            sys::LLVMDisposeValueMetadataEntries(entries);
        }
        found
    }
}

/// The block a kernel declares, and whether exactly (`reqntid`) or as a
/// bound (`maxntid`, clang's `__launch_bounds__`).
fn declared_block(module: &Module, f: FunctionValue) -> Option<([u32; 3], Declared)> {
    let dims = |s: &str| -> Option<[u32; 3]> {
        let nums: Vec<u32> = s
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|x| x.parse().ok())
            .collect();
        crate::plan::block_dims(&nums)
    };
    for (key, how) in [
        ("nvvm.reqntid", Declared::Exactly),
        ("nvvm.maxntid", Declared::AtMost),
    ] {
        if let Some(a) = f.get_string_attribute(AttributeLoc::Function, key) {
            if let Some(d) = dims(&a.get_string_value().to_string_lossy()) {
                return Some((d, how));
            }
        }
    }
    if let Some(a) = f.get_string_attribute(AttributeLoc::Function, "amdgpu-flat-work-group-size") {
        let v = a.get_string_value().to_string_lossy().into_owned();
        if let Some((lo, hi)) = v.split_once(',') {
            if lo.trim() == hi.trim() {
                return dims(hi).map(|d| (d, Declared::Exactly));
            }
        }
    }
    // OpenCL's `reqd_work_group_size(64, 1, 1)`, as clang writes it for
    // NVPTX: `!reqd_work_group_size !{i32 64, i32 1, i32 1}` on the kernel.
    if let Some(d) = reqd_work_group_size(f) {
        return Some((d, Declared::Exactly));
    }
    // !nvvm.annotations: !{ptr @k, !"reqntidx", i32 128, ...}
    let mut d = [0u32; 3];
    let mut how = Declared::AtMost;
    for node in module.get_global_metadata("nvvm.annotations") {
        let vals = node.get_node_values().unwrap_or_default();
        if vals.first().map(|v| v.as_value_ref()) != Some(f.as_value_ref()) {
            continue;
        }
        let mut k = 1;
        while k + 1 < vals.len() {
            let key = if vals[k].is_metadata_value() {
                let md = vals[k].into_metadata_value();
                md.get_string_value()
                    .map(|s| String::from_utf8_lossy(s).into_owned())
            } else {
                None
            };
            let val = vals[k + 1]
                .is_int_value()
                .then(|| vals[k + 1].into_int_value().get_zero_extended_constant())
                .flatten();
            if let (Some(key), Some(val)) = (key, val) {
                for (i, axis) in ["x", "y", "z"].iter().enumerate() {
                    if key == format!("reqntid{axis}") {
                        d[i] = val as u32;
                        how = Declared::Exactly;
                    } else if key == format!("maxntid{axis}") {
                        d[i] = val as u32;
                    }
                }
            }
            k += 2;
        }
    }
    (d[0] != 0).then(|| ([d[0], d[1].max(1), d[2].max(1)], how))
}

fn block_shape(
    module: &Module,
    f: FunctionValue,
    opts: &InstrumentOptions,
    file: &str,
) -> Result<[u32; 3]> {
    if opts.target.is_host() {
        return Ok([1, 1, 1]);
    }
    let name = f.get_name().to_string_lossy().into_owned();
    let threads = crate::plan::block_threads;
    // The launch's block is for the launched kernel; the file's other
    // kernels keep what they declare.
    let given = opts
        .block
        .filter(|_| opts.block_kernel.as_ref().is_none_or(|k| *k == name));
    match (declared_block(module, f), given) {
        (Some((d, Declared::AtMost)), Some(b)) if threads(b) <= threads(d) => Ok(b),
        (Some((d, how)), Some(b)) if b != d => Err(InstrumentError::Option(format!(
            "the block size given ({b:?}, by --block or the launch spec's `block`) disagrees with kernel `{name}`'s declared block {d:?}{} ({file})",
            if how == Declared::AtMost {
                " (a bound, nvvm.maxntid / __launch_bounds__: the block has more threads)"
            } else {
                ""
            }
        ))),
        (Some((d, _)), _) => Ok(d),
        (None, Some(b)) => Ok(b),
        // Another kernel of the file without a declared block: the
        // launch's block is the best guess for sizing its segments.
        (None, None) if opts.block.is_some() => Ok(opts.block.unwrap_or_default()),
        (None, None) => Err(InstrumentError::At {
            location: file.to_string(),
            message: format!(
                "kernel `{name}` does not say its block size (no nvvm.reqntid / nvvm.maxntid / reqntid annotation / reqd_work_group_size): pass --block X[,Y,Z] so the profile segments can be sized"
            ),
        }),
    }
}

/// Shared memory kernel `f` uses with a size (address space 3 globals
/// that it or a function it calls refers to), and the names of its shared
/// arrays sized at launch (dynamic shared memory). Another kernel's arrays
/// and rings are not `f`'s: counted, a file's other kernels took shared
/// memory from the launched one (four kernels' rings made a kernel with
/// none of its own fall back to global memory, or be refused with
/// `--buffer shared` naming another kernel).
fn static_shared(module: &Module, f: FunctionValue) -> (u64, Vec<String>) {
    let td =
        inkwell::targets::TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    let reach = ir::reachable_functions(f.as_value_ref());
    let (mut bytes, mut dynamic) = (0u64, Vec::new());
    for g in module.get_globals() {
        let v = g.as_value_ref();
        let space = unsafe { sys::LLVMGetPointerAddressSpace(sys::LLVMTypeOf(v)) };
        if space != 3 {
            continue;
        }
        if ir::using_functions(v).is_disjoint(&reach) {
            continue;
        }
        let ty = unsafe { sys::LLVMGlobalGetValueType(v) };
        let size = unsafe { inkwell::llvm_sys::target::LLVMABISizeOfType(td.as_mut_ptr(), ty) };
        if size == 0 {
            dynamic.push(format!(
                "@{} (sized at launch: pass --dynamic-shared)",
                g.get_name().to_string_lossy()
            ));
        }
        bytes += size;
    }
    (bytes, dynamic)
}

/// The width of a shared-memory pointer (address space 3) in the module's
/// data layout, in bytes.
fn shared_pointer_bytes(module: &Module) -> u32 {
    let td =
        inkwell::targets::TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    td.get_pointer_byte_size(Some(inkwell::AddressSpace::from(3u16)))
}

/// Is this a Triton kernel, whose last two parameters are Triton's global
/// and profile scratch pointers?
fn triton_profile_param(f: FunctionValue, is_triton: bool) -> Option<u32> {
    let ps = f.get_type().get_param_types();
    let n = ps.len();
    let global1 = |t: &BasicMetadataTypeEnum| matches!(t, BasicMetadataTypeEnum::PointerType(p) if p.get_address_space() == inkwell::AddressSpace::from(1u16));
    (is_triton && n >= 2 && global1(&ps[n - 1]) && global1(&ps[n - 2])).then(|| (n - 1) as u32)
}

/// A name from the input as it may be printed (control characters escaped,
/// cut to 256 bytes).
fn shown(name: &str) -> String {
    kperf_dialects::meta::displayable_name(name, 256).unwrap_or_else(|| name.to_string())
}

/// A use of a kernel inside its module that instrumenting would break.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum KernelUse {
    /// A direct call from this function.
    CalledBy(String),
    /// Its address kept in (or used by) this global or function.
    AddressIn(String),
}

impl KernelUse {
    fn describe(&self) -> String {
        match self {
            KernelUse::CalledBy(f) => format!("`{}`", shown(f)),
            KernelUse::AddressIn(g) => format!("its address in `{}`", shown(g)),
        }
    }
}

/// The name of a live LLVM value (a function, a global).
fn value_name(v: LLVMValueRef) -> String {
    // SAFETY: reading the name of a live value with LLVM's C API.
    unsafe {
        let mut len = 0usize;
        let p = sys::LLVMGetValueName2(v, &mut len);
        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
    }
}

/// What in the module calls `f` or takes its address, by name: the
/// functions that call it (a kernel that recurses, or is also called as a
/// function), and where its address is kept for any other use (a function
/// pointer stored, selected or kept in a global) but the `llvm.used` lists.
fn callers_of(f: FunctionValue) -> Vec<KernelUse> {
    let name_of = value_name;
    let mut callers = Vec::new();
    // SAFETY: walking use lists of live values with LLVM's C API; every
    // pointer comes from LLVM and is only read.
    unsafe {
        let mut u = sys::LLVMGetFirstUse(f.as_value_ref());
        while !u.is_null() {
            let user = sys::LLVMGetUser(u);
            let is_call =
                !sys::LLVMIsACallInst(user).is_null() || !sys::LLVMIsAInvokeInst(user).is_null();
            if is_call && sys::LLVMGetCalledValue(user) == f.as_value_ref() {
                let caller = sys::LLVMGetBasicBlockParent(sys::LLVMGetInstructionParent(user));
                callers.push(KernelUse::CalledBy(name_of(caller)));
            } else if !sys::LLVMIsAInstruction(user).is_null() {
                let holder = sys::LLVMGetBasicBlockParent(sys::LLVMGetInstructionParent(user));
                callers.push(KernelUse::AddressIn(name_of(holder)));
            } else {
                // A constant: a global's initializer, directly or through
                // an array or cast (the `llvm.used` lists hold kernels).
                let in_used_list = |g: LLVMValueRef| {
                    let n = name_of(g);
                    n == "llvm.used" || n == "llvm.compiler.used"
                };
                let holders: Vec<LLVMValueRef> = if !sys::LLVMIsAGlobalVariable(user).is_null() {
                    vec![user]
                } else {
                    let mut v = Vec::new();
                    let mut w = sys::LLVMGetFirstUse(user);
                    while !w.is_null() {
                        v.push(sys::LLVMGetUser(w));
                        w = sys::LLVMGetNextUse(w);
                    }
                    v
                };
                for g in holders {
                    if sys::LLVMIsAGlobalVariable(g).is_null() || !in_used_list(g) {
                        callers.push(KernelUse::AddressIn(name_of(g)));
                    }
                }
            }
            u = sys::LLVMGetNextUse(u);
        }
    }
    callers.sort();
    callers.dedup();
    callers
}

/// Replace `f` by a copy with a `ptr addrspace(1)` (host: `ptr`) parameter
/// inserted at `pos`: LLVM cannot add a parameter in place. Body,
/// attributes, metadata and uses move over; the name stays.
fn insert_param<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    f: FunctionValue<'c>,
    pos: u32,
    host: bool,
) -> FunctionValue<'c> {
    let ty = f.get_type();
    let mut params: Vec<BasicMetadataTypeEnum> = ty.get_param_types();
    let space = if host { 0u16 } else { 1u16 };
    params.insert(
        pos as usize,
        ctx.ptr_type(inkwell::AddressSpace::from(space)).into(),
    );
    let new_ty = match ty.get_return_type() {
        Some(r) => r.fn_type(&params, ty.is_var_arg()),
        None => ctx.void_type().fn_type(&params, ty.is_var_arg()),
    };
    let name = f.get_name().to_string_lossy().into_owned();
    f.as_global_value().set_name(&format!("{name}.kperf.old"));
    let nf = module.add_function(&name, new_ty, Some(f.get_linkage()));
    nf.set_call_conventions(f.get_call_conventions());
    // What else the function itself carries: without its personality a
    // kernel with `invoke`/`landingpad` no longer verified.
    if let Some(personality) = f.get_personality_function() {
        nf.set_personality_function(personality);
    }
    let (old_global, new_global) = (f.as_global_value(), nf.as_global_value());
    if let Some(section) = old_global.get_section() {
        new_global.set_section(section.to_str().ok());
    }
    new_global.set_alignment(old_global.get_alignment());
    new_global.set_visibility(old_global.get_visibility());
    new_global.set_unnamed_address(old_global.get_unnamed_address());
    for loc in [AttributeLoc::Function, AttributeLoc::Return] {
        for a in f.attributes(loc) {
            nf.add_attribute(loc, a);
        }
    }
    let map = |i: u32| if i >= pos { i + 1 } else { i };
    for i in 0..f.count_params() {
        for a in f.attributes(AttributeLoc::Param(i)) {
            nf.add_attribute(AttributeLoc::Param(map(i)), a);
        }
    }
    unsafe {
        // Metadata (the DISubprogram among it).
        let mut n = 0usize;
        let entries = sys::LLVMGlobalCopyAllMetadata(f.as_value_ref(), &mut n);
        for k in 0..n as u32 {
            let kind = sys::LLVMValueMetadataEntriesGetKind(entries, k);
            let md = sys::LLVMValueMetadataEntriesGetMetadata(entries, k);
            sys::LLVMGlobalSetMetadata(nf.as_value_ref(), kind, md);
        }
        if !entries.is_null() {
            sys::LLVMDisposeValueMetadataEntries(entries);
        }
        for bb in f.get_basic_blocks() {
            sys::LLVMRemoveBasicBlockFromParent(bb.as_mut_ptr());
            sys::LLVMAppendExistingBasicBlock(nf.as_value_ref(), bb.as_mut_ptr());
        }
        for (i, p) in f.get_param_iter().enumerate() {
            let np = nf.get_nth_param(map(i as u32)).expect("param exists");
            let mut len = 0usize;
            let pn = sys::LLVMGetValueName2(p.as_value_ref(), &mut len);
            if len > 0 {
                sys::LLVMSetValueName2(np.as_value_ref(), pn, len);
            }
            sys::LLVMReplaceAllUsesWith(p.as_value_ref(), np.as_value_ref());
        }
        // Annotations and other references to the kernel follow it.
        sys::LLVMReplaceAllUsesWith(f.as_value_ref(), nf.as_value_ref());
        sys::LLVMDeleteFunction(f.as_value_ref());
    }
    nf
}

/// The profile pointer may be written: drop `readnone`/`readonly` & co. that
/// Triton puts on its (unused) profile-scratch parameter.
fn make_param_writable(f: FunctionValue, i: u32) {
    for a in f.attributes(AttributeLoc::Param(i)) {
        if a.is_enum() {
            let kind = a.get_enum_kind_id();
            for bad in ["readnone", "readonly", "writeonly", "nofree"] {
                if kind == Attribute::get_named_enum_kind_id(bad) {
                    f.remove_enum_attribute(AttributeLoc::Param(i), kind);
                }
            }
        }
    }
}

fn run_function_passes(f: FunctionValue, passes: &str, tm: &TargetMachine) -> Result<()> {
    let opts = inkwell::passes::PassBuilderOptions::create();
    let p = std::ffi::CString::new(passes).expect("no NUL in pass names");
    let err = unsafe {
        inkwell::llvm_sys::transforms::pass_builder::LLVMRunPassesOnFunction(
            f.as_value_ref(),
            p.as_ptr(),
            tm.as_mut_ptr(),
            opts.as_mut_ptr(),
        )
    };
    check_error(err, passes)
}

fn run_module_passes(module: &Module, passes: &str, tm: &TargetMachine) -> Result<()> {
    module
        .run_passes(passes, tm, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| InstrumentError::Pipeline {
            pipeline: passes.to_string(),
            diagnostics: e.to_string(),
        })
}

fn check_error(err: inkwell::llvm_sys::error::LLVMErrorRef, passes: &str) -> Result<()> {
    if err.is_null() {
        return Ok(());
    }
    let msg = unsafe { inkwell::llvm_sys::error::LLVMGetErrorMessage(err) };
    let text = ir::message(msg);
    unsafe { inkwell::llvm_sys::error::LLVMDisposeErrorMessage(msg) };
    Err(InstrumentError::Pipeline {
        pipeline: passes.to_string(),
        diagnostics: text,
    })
}

/// Sites at one anchor in insertion order: ENDs innermost first, then
/// STARTs outermost first, so regions nest; ties keep discovery order.
fn order_at_anchor(sites: &mut [(usize, &Site)]) {
    sites.sort_by_key(|(seq, s)| {
        let depth = if s.is_start {
            s.depth as i64
        } else {
            -(s.depth as i64)
        };
        (s.is_start, depth, *seq)
    });
}

/// Sites in program order (blocks in reverse post-order, instructions in
/// order, ordered at each anchor), for region ids and parents.
fn program_order<'s>(cfg: &Cfg, sites: &'s [Site]) -> Vec<&'s Site> {
    let mut by_anchor: HashMap<Inst, Vec<(usize, &Site)>> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        by_anchor.entry(s.before).or_default().push((i, s));
    }
    let mut out = Vec::new();
    for b in &cfg.blocks {
        for i in b.instructions() {
            if let Some(v) = by_anchor.get_mut(&i) {
                order_at_anchor(v);
                out.extend(v.iter().map(|(_, s)| *s));
            }
        }
    }
    out
}

/// Set the builder's debug location before `anchor`: the anchor's own, or
/// line 0 of the function's subprogram (the verifier requires a location
/// on calls to inlinable functions inside functions with debug info).
fn set_debug_location(ctx: &Context, builder: &Builder, f: FunctionValue, anchor: Inst) {
    unsafe {
        let b = builder.as_mut_ptr();
        let loc = di::LLVMInstructionGetDebugLoc(anchor.0);
        if !loc.is_null() {
            sys::LLVMSetCurrentDebugLocation2(b, loc);
            return;
        }
        let sp = di::LLVMGetSubprogram(f.as_value_ref());
        if sp.is_null() {
            sys::LLVMSetCurrentDebugLocation2(b, std::ptr::null_mut());
        } else {
            let l = di::LLVMDIBuilderCreateDebugLocation(ctx.raw(), 0, 0, sp, std::ptr::null_mut());
            sys::LLVMSetCurrentDebugLocation2(b, l);
        }
    }
}

/// The sites at one anchor instruction, with their discovery order.
type AnchorSites<'s> = (Inst, Vec<(usize, &'s Site)>);

struct KernelPlan {
    meta: KernelMeta,
    cfg: LoweringConfig,
}

/// Instrument (or, with `plain`, only compile) LLVM IR `bytes` from `file`.
/// `triton_hint`: a Triton metadata file was found beside the input.
pub fn instrument_llvm(
    kctx: &KperfContext,
    bytes: &[u8],
    file: &str,
    opts: &InstrumentOptions,
    emit: Emit,
    plain: bool,
    triton_hint: bool,
) -> Result<LlvmOutput> {
    crate::plan::with_buffer_choice(opts, |opts| {
        instrument_llvm_with(kctx, bytes, file, opts, emit, plain, triton_hint)
    })
}

fn instrument_llvm_with(
    kctx: &KperfContext,
    bytes: &[u8],
    file: &str,
    opts: &InstrumentOptions,
    emit: Emit,
    plain: bool,
    triton_hint: bool,
) -> Result<LlvmOutput> {
    opts.validate()?;
    let opts = opts.normalized();
    match emit {
        Emit::Kperf | Emit::KperfGpu | Emit::Mlir => {
            return Err(InstrumentError::Option(format!(
                "--emit {} is for MLIR input; LLVM IR input emits llvm, bc, ptx, cubin or isa",
                match emit {
                    Emit::Kperf => "kperf",
                    Emit::KperfGpu => "kperfgpu",
                    _ => "mlir",
                }
            )))
        }
        _ => {}
    }
    let ctx = Context::create();
    let module = parse(&ctx, bytes, file)?;
    let source_text = if is_bitcode(bytes) {
        String::new()
    } else {
        String::from_utf8_lossy(bytes).into_owned()
    };
    let triton = triton_hint || is_triton_source(&source_text);
    // Before the target machine exists: it reads them when it is made.
    set_nvptx_codegen_options(triton);
    set_unknown_locations(opts.line_tags);
    let tm = target_machine(&opts.target, &module)?;
    check_triple(&module, &opts.target, &tm, file)?;
    check_arch_specific(&module, &opts.target, file)?;
    refuse_indirect_branches(&module, &opts.target, file)?;
    if fp_contract_of(&opts, triton) == FpContract::Fast {
        allow_contraction(&module);
    }
    if opts.line_tags {
        line_tags::tag_kernel_lines(&module);
    }
    if plain || !opts.markers {
        strip_markers(&module, &opts.target, file)?;
    } else {
        refuse_markers_outside_kernels(&module, &opts.target, file, opts.block_kernel.as_deref())?;
    }
    if plain {
        // A launch's block the kernel refuses (more threads than its
        // __launch_bounds__) fails on a GPU: the plain run refuses it too.
        if let Some(f) = opts
            .block_kernel
            .as_deref()
            .and_then(|k| module.get_function(k))
        {
            block_shape(&module, f, &opts, file)?;
        }
        return Ok(LlvmOutput {
            bytes: emit_module(&module, &tm, &opts, emit, file)?,
            meta: None,
            region_lines: BTreeMap::new(),
        });
    }
    let kernels = find_kernels(&module, &opts.target);
    if kernels.is_empty() {
        return Err(InstrumentError::At {
            location: file.to_string(),
            message: match opts.target {
                Target::Nvptx { .. } => "no kernel found: no `ptx_kernel` function and no `!nvvm.annotations` kernel".into(),
                Target::Amdgpu { .. } => "no kernel found: no `amdgpu_kernel` function".into(),
                Target::Host => "no kernel found: a host kernel is an external function whose last six parameters are i64 block x,y,z and grid x,y,z (what `kperf instrument --plain --target host --emit llvm` writes)".into(),
            },
        });
    }
    let needs_edges = opts.regions.iter().any(|m| {
        matches!(
            m,
            RegionMode::Loops | RegionMode::Iterations | RegionMode::Async
        )
    });
    let mut meta = InstrumentMeta::new_header(
        &opts.target.name(),
        opts.counter,
        opts.granularity,
        opts.buffer,
        opts.strategy,
    );
    meta.source = file.to_string();
    let mut snippet_fns: Vec<String> = Vec::new();
    let mut instrumented: Vec<String> = Vec::new();
    let mut region_lines = BTreeMap::new();
    let names: Vec<String> = kernels
        .iter()
        .map(|k| k.get_name().to_string_lossy().into_owned())
        .collect();
    for name in names {
        // Under `kperf run`, the launched kernel only: a sibling the modes
        // cannot instrument (a loop of two switches) failed the run of
        // another, and its records would go nowhere.
        if opts.block_kernel.as_ref().is_some_and(|k| *k != name) {
            continue;
        }
        let f = module.get_function(&name).expect("kernel listed");
        // A called kernel would run init and finalize again inside itself,
        // over the caller's ring, and a new profile parameter would leave
        // its calls passing the old arguments (the callee then recorded
        // through a grid argument as its profile pointer).
        // MLIR's C-interface wrapper (`_mlir_ciface_<kernel>`, from
        // `--emit llvm` on the host) calls the kernel with its plain
        // signature: it would pass the wrong arguments once the profile
        // parameter is in. kperf's launchers never call it: it goes.
        let ciface = format!("_mlir_ciface_{name}");
        if let Some(w) = module.get_function(&ciface) {
            if callers_of(f) == [KernelUse::CalledBy(ciface.clone())]
                && w.as_global_value()
                    .as_pointer_value()
                    .get_first_use()
                    .is_none()
            {
                // SAFETY: a function nothing refers to.
                unsafe { w.delete() };
            }
        }
        let callers = callers_of(f);
        if !callers.is_empty() {
            return Err(InstrumentError::At {
                location: file.to_string(),
                message: format!(
                    "kernel `{}` is called by {} (recursion, a kernel also used as a \
                     function, or through a pointer): kperf cannot instrument a kernel that \
                     is called; move the body into a function both call",
                    shown(&name),
                    callers
                        .iter()
                        .map(KernelUse::describe)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        if needs_edges {
            run_function_passes(f, "loop-simplify", &tm)?;
        }
        let (cfg, found) = collect_sites(f, &name, file, &opts.regions)?;
        if found.sites.is_empty() {
            meta.uninstrumented.push(name.clone());
            continue;
        }
        // Finalize once, at one return, in a kernel that records (one the
        // modes found nothing in stays exactly as it was); the sites are
        // found again, since a record may have been before a return.
        let (cfg, found) = if ir::unify_returns(f.as_value_ref()) {
            collect_sites(f, &name, file, &opts.regions)?
        } else {
            (cfg, found)
        };
        // Finalize goes before a return: a kernel whose every path ends in
        // `unreachable` (a trap) would record a START and copy nothing out,
        // said to hold a region.
        if !cfg
            .blocks
            .iter()
            .any(|b| b.terminator().is_some_and(|t| t.is_return()))
        {
            return Err(InstrumentError::At {
                location: format!("{file}: @{}", shown(&name)),
                message: "the kernel never returns (every path ends in `unreachable` or a \
                          trap): kperf copies a profile out at a return, so nothing would be \
                          recorded"
                    .into(),
            });
        }
        // Markers are the user's; automatic sites are balanced by construction
        // (an iteration may start on several edges, none dominating alone).
        let explicit: Vec<Site> = found
            .sites
            .iter()
            .filter(|s| {
                s.kind == kperf_dialects::meta::RegionKind::Explicit
                    && !s.name.starts_with("probe#")
            })
            .cloned()
            .collect();
        sites::check_balance(&cfg, &explicit)?;
        let ordered = program_order(&cfg, &found.sites);
        let table = RegionTable::build(ordered.iter().map(|s| SiteInfo {
            name: &s.name,
            is_start: s.is_start,
            kind: s.kind,
            location: &s.location,
            pairs_with: s.pairs_with.as_deref(),
        }))?;
        if opts.line_tags {
            region_lines.insert(
                name.clone(),
                line_tags::region_lines(&cfg, &found.sites, &table.ids),
            );
        }
        // Each record outside the kernel's cycles runs at most once (a
        // block missing from the CFG counts as on one). One search per
        // block that holds records.
        let site_blocks: BTreeSet<Option<usize>> = found
            .sites
            .iter()
            .map(|s| cfg.index.get(&s.before.block()).copied())
            .collect();
        let max_records = (!opts.copy_loop
            && site_blocks
                .iter()
                .all(|b| b.is_some_and(|b| !cfg.on_cycle(b))))
        .then(|| u32::try_from(found.sites.len()).unwrap_or(u32::MAX));
        let plan = plan_kernel(&module, f, &opts, file, &name, &table, max_records)?;
        // The profile pointer.
        let (f, prof_index, profile_param) =
            match (opts.profile_param, triton_profile_param(f, triton)) {
                (ProfileParam::Append, _) | (ProfileParam::Auto, None) => {
                    let n = f.count_params();
                    let pos = if opts.target.is_host() {
                        n - HOST_GRID_ARGS as u32
                    } else {
                        n
                    };
                    (
                        insert_param(&ctx, &module, f, pos, opts.target.is_host()),
                        pos,
                        None,
                    )
                }
                (ProfileParam::Auto, Some(i)) => (f, i, Some(i)),
                (ProfileParam::Index(i), _) => {
                    // The host's last six parameters are the block and
                    // grid sizes the launcher passes, not the kernel's.
                    let own = if opts.target.is_host() {
                        f.count_params().saturating_sub(HOST_GRID_ARGS as u32)
                    } else {
                        f.count_params()
                    };
                    if i >= own {
                        return Err(InstrumentError::Option(format!(
                            "--profile-param {i}: kernel `{name}` has {own} parameters"
                        )));
                    }
                    // A pointer only: an i64 failed LLVM's verifier
                    // ("Both operands to ICmp instruction are not of the
                    // same type!") instead of this.
                    let ty = f.get_type().get_param_types()[i as usize];
                    if !ty.is_pointer_type() {
                        return Err(InstrumentError::Option(format!(
                            "--profile-param {i}: parameter {i} of kernel `{name}` is {}, not a \
                             pointer: the profile buffer is passed as a pointer",
                            ty.print_to_string().to_string().trim_matches('"')
                        )));
                    }
                    (f, i, Some(i))
                }
            };
        if profile_param.is_some() {
            make_param_writable(f, prof_index);
        }
        let snippet_names = SnippetNames::new(&name);
        let store_kinds = |at_exit: bool| {
            let mut v: Vec<(RegionId, Edge)> = found
                .sites
                .iter()
                .filter(|s| stores_at_exit(s, &plan.cfg) == at_exit)
                .map(|s| (RegionId(table.ids[&s.name] as u16), edge_of(s)))
                .collect();
            v.sort_by_key(|(r, e)| (r.0, *e == Edge::End));
            v.dedup();
            v
        };
        let (stores, exit_stores) = (store_kinds(false), store_kinds(true));
        let text = snippets_llvm_ir(kctx, &plan.cfg, &snippet_names, &stores, &exit_stores)?;
        let snip = ctx
            .create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
                text.as_bytes(),
                "kperf-snippets",
            ))
            .map_err(|e| InstrumentError::Template {
                template: "snippets".into(),
                diagnostics: e.to_string(),
            })?;
        snip.set_triple(&module.get_triple());
        snip.set_data_layout(&module.get_data_layout());
        module
            .link_in_module(snip)
            .map_err(|e| InstrumentError::Template {
                template: "snippets (link)".into(),
                diagnostics: e.to_string(),
            })?;
        let mut fn_names = vec![
            snippet_names.init(),
            snippet_names.read_counter(),
            snippet_names.finalize(),
        ];
        fn_names.extend(stores.iter().map(|(r, e)| snippet_names.store(*r, *e)));
        fn_names.extend(
            exit_stores
                .iter()
                .map(|(r, e)| snippet_names.store_at_exit(*r, *e)),
        );
        let always =
            ctx.create_enum_attribute(Attribute::get_named_enum_kind_id("alwaysinline"), 0);
        for n in &fn_names {
            let sf = module
                .get_function(n)
                .ok_or_else(|| InstrumentError::Template {
                    template: n.clone(),
                    diagnostics: "missing after linking the snippets".into(),
                })?;
            sf.set_linkage(Linkage::Internal);
            sf.add_attribute(AttributeLoc::Function, always);
        }
        snippet_fns.extend(fn_names);

        let tags = opts
            .line_tags
            .then(|| line_tags::tag_scope(&module, f))
            .flatten();
        insert_records(
            &ctx,
            &module,
            f,
            prof_index,
            &plan.cfg,
            &snippet_names,
            &found.sites,
            &table,
            tags,
        )?;
        for m in &found.markers {
            if !m.call.has_uses() {
                m.call.erase();
            }
        }
        if opts.target.inline_ptx() {
            let own: std::collections::HashSet<&str> =
                snippet_fns.iter().map(String::as_str).collect();
            ir::latches_fall_through_to_exits(f.as_value_ref(), |i| {
                i.callee_name().is_some_and(|n| own.contains(n.as_str()))
            });
        }
        let mut km = plan.meta;
        km.original_arg_count = if profile_param.is_some() {
            f.count_params()
        } else {
            f.count_params()
                - 1
                - if opts.target.is_host() {
                    HOST_GRID_ARGS as u32
                } else {
                    0
                }
        };
        km.profile_param = profile_param;
        km.max_registers = cap_registers(&ctx, f, &opts, &name);
        meta.shared_slots = plan.cfg.slots;
        meta.kernels.push(km);
        instrumented.push(name);
    }
    // Marker declarations nothing calls any more.
    remove_unused_markers(&module);
    if !instrumented.is_empty() {
        run_module_passes(&module, "always-inline", &tm)?;
        for n in &snippet_fns {
            if let Some(f) = module.get_function(n) {
                if !ir::has_uses(f.as_value_ref()) {
                    unsafe { f.delete() };
                }
            }
        }
        for n in &instrumented {
            if let Some(f) = module.get_function(n) {
                // The ring counter's stack slot becomes a register; constant
                // slots fold so straight-line stores use immediate offsets.
                run_function_passes(f, "sroa,instsimplify", &tm)?;
            }
        }
    }
    module
        .verify()
        .map_err(|e| InstrumentError::Verify(e.to_string()))?;
    Ok(LlvmOutput {
        bytes: emit_module(&module, &tm, &opts, emit, file)?,
        meta: Some(meta),
        region_lines,
    })
}

/// Cap kernel `name` at its register limit from the options (`nvvm.maxnreg`,
/// which the NVPTX back end writes as `.maxnreg`), keeping a lower cap the
/// kernel already has; the cap in force, if any.
fn cap_registers(
    ctx: &Context,
    f: FunctionValue,
    opts: &InstrumentOptions,
    name: &str,
) -> Option<u32> {
    const ATTR: &str = "nvvm.maxnreg";
    if !matches!(opts.target, Target::Nvptx { .. }) {
        return None;
    }
    let existing = f
        .get_string_attribute(AttributeLoc::Function, ATTR)
        .and_then(|a| a.get_string_value().to_str().ok()?.parse::<u32>().ok());
    let cap = match (opts.register_limits.get(name).copied(), existing) {
        (Some(l), Some(e)) => l.min(e),
        (Some(l), None) => l,
        (None, e) => return e,
    };
    f.add_attribute(
        AttributeLoc::Function,
        ctx.create_string_attribute(ATTR, &cap.to_string()),
    );
    Some(cap)
}

/// The kernel's CFG and record sites. Edges that need a record and have
/// no instruction to stand for them (critical edges) are split, and the
/// sites collected again on the new CFG.
fn collect_sites(
    f: FunctionValue,
    name: &str,
    file: &str,
    modes: &[RegionMode],
) -> Result<(Cfg, sites::Found)> {
    let entry = Block(
        f.get_first_basic_block()
            .expect("kernel has a body")
            .as_mut_ptr(),
    );
    // Splitting some edges can leave others that need a place (a loop
    // holding two switches: the iteration records' edges are found on the
    // CFG the loop records' splits made), so split until every record has
    // one; each round splits at least one edge, and there are finitely many.
    const ROUNDS: usize = 8;
    for _ in 0..ROUNDS {
        let cfg = Cfg::new(entry);
        let found = sites::collect(&cfg, name, file, modes)?;
        if found.unplaced.is_empty() {
            return Ok((cfg, found));
        }
        for &(u, v) in &found.unplaced {
            ir::split_edge(cfg.blocks[u], cfg.blocks[v]);
        }
    }
    let cfg = Cfg::new(entry);
    let found = sites::collect(&cfg, name, file, modes)?;
    if let Some(&(u, v)) = found.unplaced.first() {
        return Err(InstrumentError::At {
            location: format!("{file}: @{name}"),
            message: format!(
                "no place for a record on the edge from block {u} to block {v}, even after splitting it {ROUNDS} times"
            ),
        });
    }
    Ok((cfg, found))
}

/// What the hollow reference of a kernel does besides init, records and
/// finalize (see [`hollow_kernel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HollowBody {
    /// Nothing: a bare return.
    Empty,
    /// One call to `vprintf`: the kernel calls functions.
    Call,
    /// A global store, then the call: the kernel touches global memory
    /// before its first call.
    GlobalThenCall,
}

/// LLVM IR of an NVPTX kernel `name` declaring `block` threads whose body
/// is `body`: instrumented with the kernel region, it holds init, two
/// records and finalize and nothing of any kernel's own, which is what
/// `kperf cost` measures a lowering's fixed cost on.
///
/// A kernel that calls functions is compiled by ptxas under the call ABI,
/// which changes how finalize compiles: global stores need the memory
/// descriptor in a uniform register, and uniform registers below UR36 do
/// not survive a call. If the kernel loaded the descriptor before its
/// first call, ptxas keeps it in a callee-saved UR36 and finalize pays
/// nothing more; if not, every store of finalize in divergent code takes
/// it from a vector register (`LDC.64` once, two `R2UR` per store). The
/// reference takes the same shape as the kernel to pay the same (it is
/// only assembled, never run: `vprintf` gets null pointers).
pub fn hollow_kernel(name: &str, block: [u32; 3], body: HollowBody) -> String {
    let quoted = name.replace('\\', "\\5C").replace('"', "\\22");
    let call = "  %r = call i32 @vprintf(ptr null, ptr null)\n";
    let (params, body, declare) = match body {
        HollowBody::Empty => ("", String::new(), ""),
        HollowBody::Call => ("", call.to_string(), "declare i32 @vprintf(ptr, ptr)\n"),
        HollowBody::GlobalThenCall => (
            "ptr addrspace(1) %out",
            format!("  store i32 0, ptr addrspace(1) %out\n{call}"),
            "declare i32 @vprintf(ptr, ptr)\n",
        ),
    };
    format!(
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         {declare}\
         define ptx_kernel void @\"{quoted}\"({params}) #0 {{\n{body}  ret void\n}}\n\
         attributes #0 = {{ \"nvvm.reqntid\"=\"{},{},{}\" }}\n",
        block[0], block[1], block[2]
    )
}

/// The contraction to compile with: `Auto` is Triton's default (fuse) for
/// a Triton kernel (its producer string, or metadata found beside it) and
/// the IR's own flags otherwise.
fn fp_contract_of(opts: &InstrumentOptions, triton: bool) -> FpContract {
    match opts.fp_contract {
        FpContract::Auto if triton => FpContract::Fast,
        FpContract::Auto => FpContract::AsWritten,
        other => other,
    }
}

/// Does LLVM IR text come from Triton (its debug info names the producer)?
fn is_triton_source(source: &str) -> bool {
    source.contains("producer: \"triton\"")
}

extern "C" {
    /// cxx/llvm_options.cpp: 1 when set, 0 when LLVM has no such option,
    /// -1 when it is not a boolean one.
    fn kperf_set_llvm_bool_option(name: *const std::os::raw::c_char, value: i32) -> i32;
    /// cxx/llvm_options.cpp: 1 when set, 0 when LLVM has no such option,
    /// -1 when it refused the value.
    fn kperf_set_llvm_option(
        name: *const std::os::raw::c_char,
        value: *const std::os::raw::c_char,
    ) -> i32;
}

/// Line-tagged builds (`kperf cost`) give each instruction without a
/// location a line record of its own (line 0), where the PTX otherwise
/// continues the previous `.loc`: the constants SelectionDAG makes (a
/// loop's accumulators zeroed after kperf's START) read as kperf's.
/// [`line_tags::name_line_zero`] then says whose they are. LLVM keeps the
/// option process-wide: every NVPTX build sets it.
pub fn set_unknown_locations(line_tags: bool) {
    let value = if line_tags { c"Enable" } else { c"Default" };
    // SAFETY: NUL-terminated name and value.
    unsafe { kperf_set_llvm_option(c"use-unknown-locations".as_ptr(), value.as_ptr()) };
}

/// The NVPTX code-generation options of the kernel's own compiler: Triton
/// compiles with `nvptx-short-ptr` (32-bit shared, constant and local
/// pointers) and `nvptx-mad-wide-opt`; clang and MLIR with neither. They
/// change the kernel (matmul_pipelined: 686 SASS instructions without,
/// Triton's own 671 with). LLVM keeps them process-wide, so every NVPTX
/// build sets both before it starts.
pub fn set_nvptx_codegen_options(triton: bool) {
    for name in [c"nvptx-short-ptr", c"nvptx-mad-wide-opt"] {
        // SAFETY: a NUL-terminated name; the helper checks the option is a
        // boolean before it sets it.
        unsafe { kperf_set_llvm_bool_option(name.as_ptr(), i32::from(triton)) };
    }
}

/// Let every floating-point add, subtract, multiply and negate fuse, as
/// LLVM's `AllowFPOpFusion = Fast` (Triton's `enable_fp_fusion`) does for
/// the whole back end; the C API has no such target option, and a flag on
/// each instruction says the same to the NVPTX back end's FMA combines.
fn allow_contraction(module: &Module) {
    use inkwell::llvm_sys::LLVMOpcode as Op;
    for f in module.get_functions() {
        for bb in f.get_basic_blocks() {
            for i in Block(bb.as_mut_ptr()).instructions() {
                // Calls too: `llvm.vector.reduce.fadd` expands to adds the
                // flag must reach (Triton's int4 GEMV: 16 FFMA against
                // Triton's 18, 3.0% of it unexplained in the plain build).
                if !matches!(
                    i.opcode(),
                    Op::LLVMFAdd | Op::LLVMFSub | Op::LLVMFMul | Op::LLVMFNeg | Op::LLVMCall
                ) {
                    continue;
                }
                unsafe {
                    if sys::LLVMCanValueUseFastMathFlags(i.0) != 0 {
                        let flags = sys::LLVMGetFastMathFlags(i.0);
                        sys::LLVMSetFastMathFlags(
                            i.0,
                            flags | inkwell::llvm_sys::LLVMFastMathAllowContract,
                        );
                    }
                }
            }
        }
    }
}

/// The plain baseline: the module as it is, less its markers (a marker
/// call left in would be an undefined function for ptxas).
fn strip_markers(module: &Module, target: &Target, file: &str) -> Result<()> {
    for f in find_kernels(module, target) {
        let entry = f.get_first_basic_block().expect("kernel has a body");
        let cfg = Cfg::new(Block(entry.as_mut_ptr()));
        let name = f.get_name().to_string_lossy().into_owned();
        let found = sites::collect(&cfg, &name, file, &[])?;
        for m in found.markers.iter().filter(|m| !m.call.has_uses()) {
            m.call.erase();
        }
    }
    for (call, _) in marker_calls_outside_kernels(module, target) {
        // SAFETY: a marker call (void, no uses) of a live function, erased
        // once; the list was collected before any erasure.
        unsafe {
            if sys::LLVMGetFirstUse(call).is_null() {
                sys::LLVMInstructionEraseFromParent(call);
            }
        }
    }
    remove_unused_markers(module);
    Ok(())
}

/// Marker calls in functions that are not kernels, each with its function's
/// name. The plain build drops them; an instrumented one cannot record
/// there (a device function has no ring of its own), and left alone they
/// were undefined functions for ptxas.
fn marker_calls_outside_kernels(module: &Module, target: &Target) -> Vec<(LLVMValueRef, String)> {
    let kernels: Vec<LLVMValueRef> = find_kernels(module, target)
        .iter()
        .map(|k| k.as_value_ref())
        .collect();
    let mut out = Vec::new();
    for m in [sites::MARKER_START, sites::MARKER_END] {
        let Some(f) = module.get_function(m) else {
            continue;
        };
        // SAFETY: walking the use list of a live function with LLVM's C
        // API; every pointer comes from LLVM and is only read.
        unsafe {
            let mut u = sys::LLVMGetFirstUse(f.as_value_ref());
            while !u.is_null() {
                let user = sys::LLVMGetUser(u);
                if !sys::LLVMIsACallInst(user).is_null() {
                    let holder = sys::LLVMGetBasicBlockParent(sys::LLVMGetInstructionParent(user));
                    if !kernels.contains(&holder) {
                        out.push((user, value_name(holder)));
                    }
                }
                u = sys::LLVMGetNextUse(u);
            }
        }
    }
    // Inline-asm markers (`// kperf:start name`) in device functions.
    for f in module.get_functions() {
        if kernels.contains(&f.as_value_ref()) || f.count_basic_blocks() == 0 {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        for b in f.get_basic_block_iter() {
            for i in Block(b.as_mut_ptr()).instructions() {
                if i.inline_asm()
                    .is_some_and(|asm| sites::marker_asm().is_match(&asm))
                {
                    out.push((i.0, name.clone()));
                }
            }
        }
    }
    out
}

/// Refuse region markers placed in a device function (a `noinline`
/// helper): the PTX kept the calls, which ptxas cannot resolve, while
/// kperf said it wrote the kernel with one region less.
///
/// Only functions a recorded kernel reaches count: the launched one under
/// `kperf run` (`launched`), else every kernel. Markers in a function none
/// of them calls are dropped, as the plain build drops them (a sibling
/// kernel's helper with markers refused `kperf run` of another kernel).
fn refuse_markers_outside_kernels(
    module: &Module,
    target: &Target,
    file: &str,
    launched: Option<&str>,
) -> Result<()> {
    let roots: Vec<LLVMValueRef> = match launched.and_then(|k| module.get_function(k)) {
        Some(k) => vec![k.as_value_ref()],
        None => find_kernels(module, target)
            .iter()
            .map(|k| k.as_value_ref())
            .collect(),
    };
    let reach: std::collections::HashSet<LLVMValueRef> = roots
        .into_iter()
        .flat_map(ir::reachable_functions)
        .collect();
    let mut functions: Vec<String> = Vec::new();
    for (call, holder) in marker_calls_outside_kernels(module, target) {
        // SAFETY: the function holding a live instruction.
        let holder_fn =
            unsafe { sys::LLVMGetBasicBlockParent(sys::LLVMGetInstructionParent(call)) };
        if reach.contains(&holder_fn) {
            functions.push(holder);
        } else {
            // SAFETY: a marker (a void call, or inline asm without
            // results) in a function no recorded kernel reaches, erased
            // once; the list was collected before any erasure.
            unsafe {
                if sys::LLVMGetFirstUse(call).is_null() {
                    sys::LLVMInstructionEraseFromParent(call);
                }
            }
        }
    }
    functions.dedup();
    if functions.is_empty() {
        remove_unused_markers(module);
        return Ok(());
    }
    Err(InstrumentError::At {
        location: file.to_string(),
        message: format!(
            "region markers in {}, which {} not a kernel: kperf records only in kernels (a device \
             function cannot reach the kernel's ring); inline the function into its kernel \
             (`__forceinline__`, `alwaysinline`), move the markers to the call site, or drop \
             them with --ignore-markers",
            functions
                .iter()
                .map(|f| format!("`{}`", shown(f)))
                .collect::<Vec<_>>()
                .join(", "),
            if functions.len() == 1 { "is" } else { "are" }
        ),
    })
}

fn remove_unused_markers(module: &Module) {
    for m in [sites::MARKER_START, sites::MARKER_END] {
        if let Some(f) = module.get_function(m) {
            if !ir::has_uses(f.as_value_ref()) {
                unsafe { f.delete() };
            }
        }
    }
}

fn plan_kernel(
    module: &Module,
    f: FunctionValue,
    opts: &InstrumentOptions,
    file: &str,
    name: &str,
    table: &RegionTable,
    max_records: Option<u32>,
) -> Result<KernelPlan> {
    let block = block_shape(module, f, opts, file)?;
    let (shared, dynamic) = static_shared(module, f);
    let plan = plan_segments(opts, name, block, shared, &dynamic)?;
    let cfg = LoweringConfig {
        target: opts.target.clone(),
        counter: opts.counter,
        granularity: opts.granularity,
        buffer: opts.buffer,
        strategy: opts.strategy,
        block,
        block_1d: block[1] == 1 && block[2] == 1,
        unit_threads: plan.unit_threads,
        units: plan.units,
        slots: plan.slots,
        global_slots: plan.global_slots,
        sampled_units: opts.sample_units.clone(),
        sample_ctas: opts.sample_ctas.clone(),
        smem_symbol: format!("__kperf_smem_{name}"),
        short_shared_ptr: shared_pointer_bytes(module) == 4,
        max_records,
        // The SIMT target runs the derived form (the riskier one), so its
        // runs check it whichever form a GPU build keeps.
        derive_exit_slot: opts.derive_exit_slot.contains(name)
            || matches!(opts.target, Target::Nvptx { simt: true, .. }),
    };
    let layout = Layout {
        units: plan.units,
        slots: plan.global_slots,
    };
    Ok(KernelPlan {
        meta: KernelMeta {
            name: name.to_string(),
            original_arg_count: 0,
            block,
            layout,
            sampled_units: opts.sample_units.clone(),
            cta_sampling: opts.sample_ctas.clone(),
            profile_param: None,
            profile_bytes_per_cta: layout.cta_stride() as u64,
            max_registers: None,
            regions: table.regions.clone(),
        },
        cfg,
    })
}

fn edge_of(s: &Site) -> Edge {
    if s.is_start {
        Edge::Start
    } else {
        Edge::End
    }
}

/// A record right before the return (and so right before finalize), in a
/// kernel whose build derives its exit slot
/// ([`LoweringConfig::derive_exit_slot`], chosen per kernel by
/// [`crate::registers::hold_occupancy`]), derives its ring slot itself
/// ([`templates::store_at_exit`]) rather than keep init's live across the
/// kernel.
fn stores_at_exit(s: &Site, cfg: &LoweringConfig) -> bool {
    s.before.is_return() && cfg.derive_exit_slot
}

/// Locals and init at the entry, read_counter + store at each site,
/// finalize before the return (one, once [`ir::unify_returns`] ran).
#[allow(clippy::too_many_arguments)]
fn insert_records<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    f: FunctionValue<'c>,
    prof_index: u32,
    cfg: &LoweringConfig,
    names: &SnippetNames,
    sites: &[Site],
    table: &RegionTable,
    tags: Option<LLVMMetadataRef>,
) -> Result<()> {
    let builder = ctx.create_builder();
    // Where the inserted calls (and, once inlined, their code) say they
    // come from: the anchor's own location, or a tag line.
    let locate = |anchor: Inst, line: u32| match tags {
        Some(scope) => unsafe {
            let l = di::LLVMDIBuilderCreateDebugLocation(
                ctx.raw(),
                line,
                // Column 1: a location LLVM merges from two gets column
                // 0 (line_tags::name_line_zero).
                1,
                scope,
                std::ptr::null_mut(),
            );
            sys::LLVMSetCurrentDebugLocation2(builder.as_mut_ptr(), l);
        },
        None => set_debug_location(ctx, &builder, f, anchor),
    };
    let get = |n: &str| {
        module
            .get_function(n)
            .ok_or_else(|| InstrumentError::Template {
                template: n.to_string(),
                diagnostics: "snippet missing".into(),
            })
    };
    let entry = f.get_first_basic_block().expect("kernel has a body");
    let first = Block(entry.as_mut_ptr())
        .instructions()
        .first()
        .copied()
        .expect("entry block has a terminator");
    // Positioning takes the anchor's location: locate after it.
    builder.position_before(&unsafe { inkwell::values::InstructionValue::new(first.0) });
    locate(first, TAG_LINE_INIT);
    let bad = |e: inkwell::builder::BuilderError| InstrumentError::Template {
        template: "builder".into(),
        diagnostics: e.to_string(),
    };
    // Stack slots (templates::locals): the ring counter, and the host's ring.
    let cnt = builder
        .build_alloca(ctx.i32_type(), "kperf.cnt")
        .map_err(bad)?;
    let mut init_args: Vec<BasicMetadataValueEnum> = vec![
        f.get_nth_param(prof_index).expect("profile param").into(),
        cnt.into(),
    ];
    if cfg.host_ring() {
        let n = ctx.i32_type().const_int(cfg.ring_words(), false);
        let ring = builder
            .build_array_alloca(ctx.i64_type(), n, "kperf.ring")
            .map_err(bad)?;
        unsafe { sys::LLVMSetAlignment(ring.as_value_ref(), 16) };
        init_args.push(ring.into());
    }
    if cfg.target.is_host() {
        let n = f.count_params();
        for i in n - HOST_GRID_ARGS as u32..n {
            init_args.push(f.get_nth_param(i).expect("grid param").into());
        }
    }
    let init = builder
        .build_call(get(&names.init())?, &init_args, "kperf.init")
        .map_err(bad)?;
    let st = init
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| InstrumentError::Template {
            template: "init".into(),
            diagnostics: "returns nothing".into(),
        })?
        .into_struct_value();
    // rec, seg, cnt, blk, unit_idx: what a store needs (templates::store).
    let mut store_state: Vec<BasicMetadataValueEnum> = Vec::with_capacity(INIT_RESULTS);
    for i in 0..INIT_RESULTS as u32 {
        store_state.push(builder.build_extract_value(st, i, "").map_err(bad)?.into());
    }

    let mut by_anchor: BTreeMap<usize, AnchorSites> = BTreeMap::new();
    let mut anchor_ids: HashMap<Inst, usize> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        let next = anchor_ids.len();
        let k = *anchor_ids.entry(s.before).or_insert(next);
        by_anchor
            .entry(k)
            .or_insert((s.before, Vec::new()))
            .1
            .push((i, s));
    }
    let read = get(&names.read_counter())?;
    for (_, (anchor, mut list)) in by_anchor {
        order_at_anchor(&mut list);
        builder.position_before(&unsafe { inkwell::values::InstructionValue::new(anchor.0) });
        for (_, s) in list {
            let id = RegionId(table.ids[&s.name] as u16);
            let edge = edge_of(s);
            locate(anchor, tag_line_of_record(id, edge));
            let clock = builder
                .build_call(read, &[], "kperf.clock")
                .map_err(bad)?
                .try_as_basic_value()
                .expect_basic("read_counter returns the counter");
            let (store, mut args) = if stores_at_exit(s, cfg) {
                (names.store_at_exit(id, edge), init_args.clone())
            } else {
                (names.store(id, edge), store_state.clone())
            };
            args.push(clock.into());
            builder.build_call(get(&store)?, &args, "").map_err(bad)?;
        }
    }
    // Finalize takes init's arguments and derives the rest itself.
    let finalize = get(&names.finalize())?;
    for bb in f.get_basic_blocks() {
        let Some(t) = Block(bb.as_mut_ptr())
            .terminator()
            .filter(|t| t.is_return())
        else {
            continue;
        };
        builder.position_before(&unsafe { inkwell::values::InstructionValue::new(t.0) });
        locate(t, TAG_LINE_FINALIZE);
        builder.build_call(finalize, &init_args, "").map_err(bad)?;
    }
    Ok(())
}

/// LLVM 22 marks the PTX target `, debug` for any debug info, including
/// Triton's line tables only; ptxas then compiles for debugging (it ignores
/// `setmaxnreg`, and register use changes). Without full debug info the mark
/// goes: line info (`.loc`) stays, as with Triton's own PTX.
fn line_tables_only_target(module: &Module, ptx: Vec<u8>) -> Vec<u8> {
    let ir = module.print_to_string().to_string();
    if ir.contains("emissionKind: FullDebug") {
        return ptx;
    }
    let text = String::from_utf8_lossy(&ptx);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.starts_with(".target ") {
            out.push_str(&line.replace(", debug", ""));
        } else {
            out.push_str(line);
        }
    }
    out.into_bytes()
}

/// Write the module as `emit` asks.
fn emit_module(
    module: &Module,
    tm: &TargetMachine,
    opts: &InstrumentOptions,
    emit: Emit,
    file: &str,
) -> Result<Vec<u8>> {
    let target = &opts.target;
    match emit {
        Emit::Llvm => Ok(module.print_to_string().to_bytes().to_vec()),
        Emit::Bitcode => Ok(module.write_bitcode_to_memory().as_slice().to_vec()),
        Emit::Ptx | Emit::Cubin => {
            let Target::Nvptx { chip, .. } = target else {
                return Err(InstrumentError::Option(
                    "--emit ptx/cubin needs --target nvptx:<sm>".into(),
                ));
            };
            let ptx = tm
                .write_to_memory_buffer(module, FileType::Assembly)
                .map_err(|e| InstrumentError::Tool {
                    tool: "LLVM NVPTX back end".into(),
                    message: e.to_string(),
                })?
                .as_slice()
                .to_vec();
            let ptx = line_tables_only_target(module, ptx);
            let ptx = if opts.line_tags {
                line_tags::name_line_zero(&ptx)
            } else {
                ptx
            };
            if emit == Emit::Ptx {
                Ok(ptx)
            } else {
                crate::tools::ptxas_cubin(&String::from_utf8_lossy(&ptx), chip).map_err(|e| match e
                {
                    InstrumentError::Tool { tool, message } => InstrumentError::Tool {
                        tool,
                        message: format!("{message} (assembling the PTX of {file})"),
                    },
                    other => other,
                })
            }
        }
        Emit::Isa => {
            if !matches!(target, Target::Amdgpu { .. }) {
                return Err(InstrumentError::Option(
                    "--emit isa needs --target amdgpu:<gfx>".into(),
                ));
            }
            Ok(tm
                .write_to_memory_buffer(module, FileType::Assembly)
                .map_err(|e| InstrumentError::Tool {
                    tool: "LLVM AMDGPU back end".into(),
                    message: e.to_string(),
                })?
                .as_slice()
                .to_vec())
        }
        Emit::Kperf | Emit::KperfGpu | Emit::Mlir => unreachable!("rejected before parsing"),
    }
}
