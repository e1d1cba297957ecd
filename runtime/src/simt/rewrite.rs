//! NVPTX LLVM IR → a host module the SIMT runner can JIT.
//!
//! The kernel's code is kept as it is; what only a GPU has is replaced:
//! - every NVVM intrinsic the runner implements (special registers,
//!   barriers, warp shuffles, votes and reductions, fences) gets a small
//!   body calling one of the `kperf_simt_*` entry points of
//!   [`super::threads`];
//! - intrinsics that are arithmetic or scoped atomics (`mulhi`, `prmt`,
//!   `f2i.rn`, `atomic.add.gen.i.cta`, ...) get LLVM IR definitions
//!   written for their declared types ([`super::pure`]), linked in;
//! - `vprintf` is the runner's (CUDA's argument buffer layout);
//! - conversions, shifts and divisions give the GPU's results where LLVM
//!   IR leaves them open ([`super::gpu_results`]);
//! - calling conventions become C, and the module is retargeted to the host.
//!   Address spaces stay: on x86-64 every address space below 256 is a plain
//!   pointer, `addrspace(3)` globals are ordinary globals (one CTA at a time
//!   owns them), and `addrspacecast` is a no-op.
//!
//! Anything else only a GPU runs is refused by name before anything runs:
//! inline PTX (Triton's kernels, kperf's own records for a real GPU),
//! tensor-core, TMA and asynchronous-copy intrinsics, and any other
//! `llvm.nvvm.*` or libdevice (`__nv_*`) function.

use super::threads::{warp_op, Sreg, BAR_AND, BAR_ARRIVE, BAR_OR, BAR_POPC, BAR_SYNC};
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::AsValueRef;
use inkwell::values::{
    AnyValue, BasicValue, BasicValueEnum, CallSiteValue, FunctionValue, InstructionOpcode,
    InstructionValue, IntValue,
};
use inkwell::AddressSpace;

/// The C entry points the rewritten module calls.
pub const ENTRY_SREG: &str = "kperf_simt_sreg";
pub const ENTRY_BARRIER: &str = "kperf_simt_barrier";
pub const ENTRY_WARP: &str = "kperf_simt_warp";
pub const ENTRY_FENCE: &str = "kperf_simt_fence";
pub const ENTRY_NANOSLEEP: &str = "kperf_simt_nanosleep";
pub const ENTRY_SITE: &str = "kperf_simt_site";
/// The runner's entry a thread calls before a call of a function that
/// reaches an `activemask`, with the call's number ([`activemask_sites`]).
pub const ENTRY_CALL_ENTER: &str = "kperf_simt_call_enter";
/// ... and after it returns.
pub const ENTRY_CALL_LEAVE: &str = "kperf_simt_call_leave";
/// CUDA's device-side assertion, the runner's own.
pub const ENTRY_ASSERTFAIL: &str = "__assertfail";
pub const ENTRY_POLL: &str = "kperf_simt_poll";
pub const ENTRY_VPRINTF: &str = "vprintf";
/// The global every dynamic shared-memory array becomes; the runner maps
/// it to a guarded buffer of the launch's `shared_bytes`.
pub const DYNAMIC_SHARED: &str = "kperf_simt_dynamic_shared";

/// What one NVVM intrinsic becomes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lowering {
    Sreg(Sreg),
    /// Block barrier; argument indices of the predicate, the barrier id
    /// (none: barrier 0) and the thread count (none: every thread).
    Barrier {
        op: u32,
        pred: Option<u32>,
        id: Option<u32>,
        count: Option<u32>,
    },
    /// Warp operation; argument indices of mask, value, b, c.
    Warp {
        op: u32,
        mask: Option<u32>,
        value: Option<u32>,
        b: Option<u32>,
        c: Option<u32>,
    },
    Fence,
    /// `nanosleep`: the thread gives up its core (a spin loop's backoff).
    Nanosleep,
}

fn classify(name: &str) -> Option<Lowering> {
    use warp_op::*;
    let n = name.strip_prefix("llvm.nvvm.")?;
    if let Some(r) = n.strip_prefix("read.ptx.sreg.") {
        return Sreg::parse(r).map(Lowering::Sreg);
    }
    let warp = |op, mask, value, b, c| {
        Some(Lowering::Warp {
            op,
            mask,
            value,
            b,
            c,
        })
    };
    if let Some(l) = classify_barrier(n) {
        return Some(l);
    }
    match n {
        "bar.warp.sync" => return warp(WARP_SYNC, Some(0), None, None, None),
        "activemask" => return warp(ACTIVEMASK, None, None, None, None),
        // 64-bit values meet twice, in `pure`.
        "match.any.sync.i32" => return warp(MATCH_ANY, Some(0), Some(1), None, None),
        "match.all.sync.i32p" => return warp(MATCH_ALL, Some(0), Some(1), None, None),
        _ => {}
    }
    if n.starts_with("membar.") || n.starts_with("fence.sc") || n.starts_with("fence.acq_rel") {
        return Some(Lowering::Fence);
    }
    if n == "nanosleep" {
        return Some(Lowering::Nanosleep);
    }
    if let Some(rest) = n.strip_prefix("shfl.sync.") {
        let mode = rest.split('.').next()?;
        let op = match mode {
            "idx" => SHFL_IDX,
            "up" => SHFL_UP,
            "down" => SHFL_DOWN,
            "bfly" => SHFL_BFLY,
            _ => return None,
        };
        return warp(op, Some(0), Some(1), Some(2), Some(3));
    }
    if let Some(rest) = n.strip_prefix("vote.") {
        let op = match rest.trim_end_matches(".sync") {
            "all" => VOTE_ALL,
            "any" => VOTE_ANY,
            "uni" => VOTE_UNI,
            "ballot" => VOTE_BALLOT,
            _ => return None,
        };
        return warp(op, Some(0), Some(1), None, None);
    }
    if let Some(rest) = n.strip_prefix("redux.sync.") {
        let op = match rest {
            "add" => REDUX_ADD,
            "min" => REDUX_MIN,
            "max" => REDUX_MAX,
            "umin" => REDUX_UMIN,
            "umax" => REDUX_UMAX,
            "and" => REDUX_AND,
            "or" => REDUX_OR,
            "xor" => REDUX_XOR,
            _ => return None,
        };
        // redux.sync takes (value, mask).
        return warp(op, Some(1), Some(0), None, None);
    }
    None
}

/// CTA barriers, by the name after `llvm.nvvm.`: LLVM 22's
/// `barrier.cta.{sync,arrive,red.*}.[aligned.]{all,count}` (older names are
/// upgraded to these when the IR is read) and the `barrier0*` forms.
fn classify_barrier(n: &str) -> Option<Lowering> {
    let barrier = |op, pred, id, count| {
        Some(Lowering::Barrier {
            op,
            pred,
            id,
            count,
        })
    };
    match n {
        "barrier0" => return barrier(BAR_SYNC, None, None, None),
        "barrier0.popc" => return barrier(BAR_POPC, Some(0), None, None),
        "barrier0.and" => return barrier(BAR_AND, Some(0), None, None),
        "barrier0.or" => return barrier(BAR_OR, Some(0), None, None),
        _ => {}
    }
    let rest = n.strip_prefix("barrier.cta.")?;
    let (kind, rest) = rest.split_once('.')?;
    let (op, rest) = match kind {
        "sync" => (BAR_SYNC, rest),
        "arrive" => (BAR_ARRIVE, rest),
        "red" => {
            let (r, rest) = rest.split_once('.')?;
            let op = match r {
                "popc" => BAR_POPC,
                "and" => BAR_AND,
                "or" => BAR_OR,
                _ => return None,
            };
            (op, rest)
        }
        _ => return None,
    };
    let counted = match rest.strip_prefix("aligned.").unwrap_or(rest) {
        "all" => false,
        "count" => true,
        _ => return None,
    };
    // (id[, count][, pred]).
    let reduces = matches!(op, BAR_POPC | BAR_AND | BAR_OR);
    let count = counted.then_some(1);
    let pred = reduces.then_some(if counted { 2 } else { 1 });
    if op == BAR_ARRIVE && !counted {
        return None;
    }
    barrier(op, pred, Some(0), count)
}

/// Why a function only a GPU runs is refused, by its name.
fn refusal(name: &str) -> String {
    let n = name.trim_start_matches("llvm.nvvm.");
    let what = if n.starts_with("wgmma")
        || n.starts_with("mma")
        || n.starts_with("wmma")
        || n.starts_with("ldmatrix")
        || n.starts_with("stmatrix")
    {
        "a tensor-core operation"
    } else if n.contains("tensor") || n.starts_with("cp.async.bulk") || n.contains("tma") {
        "a TMA (tensor memory accelerator) operation"
    } else if n.starts_with("cp.async") || n.starts_with("mbarrier") {
        "an asynchronous copy or mbarrier operation"
    } else if name.starts_with("__nv_") {
        "a libdevice function, and no libdevice was found to link"
    } else if n.starts_with("barrier") || n.starts_with("bar.") {
        "a barrier form the SIMT target does not implement"
    } else {
        "an NVVM intrinsic the SIMT target does not implement"
    };
    format!("`{name}` is {what}")
}

fn err(e: BuilderError) -> String {
    format!("SIMT rewrite: {e}")
}

/// What [`rewrite_for_host`] made of a module.
pub struct Rewritten {
    /// Functions with the PTX kernel calling convention.
    pub kernels: Vec<String>,
    /// The alignment the kernel's dynamic shared memory needs, when it
    /// has any (then [`DYNAMIC_SHARED`] is to be mapped).
    pub dynamic_shared_align: Option<u32>,
    /// Each barrier and warp operation call site, as a deadlock report
    /// names it (`bar.sync` at kernel.cu:12 in `k`), by the number the
    /// rewritten module passes to [`ENTRY_SITE`] before the call.
    pub sites: Vec<String>,
    /// The kernel's static shared arrays (kperf's rings among them), each
    /// to be mapped to a guarded buffer of its own ([`StaticShared`]).
    pub static_shared: Vec<StaticShared>,
}

/// One static shared array, moved out of the module's globals: the runner
/// maps `symbol` to a zeroed guarded buffer of `bytes`, its start aligned
/// to `align`. Side by side in the JIT's data, a kernel writing one past
/// its array wrote kperf's ring header, and the run said it had worked.
#[derive(Clone, Debug)]
pub struct StaticShared {
    pub symbol: String,
    /// The array's name in the kernel (`partial`, `__wg_k_0`, kperf's
    /// `kperf_ring...`).
    pub name: String,
    pub bytes: u64,
    pub align: u32,
}

/// The prefix of [`StaticShared::symbol`].
pub const STATIC_SHARED: &str = "kperf_simt_static_shared.";

/// Rewrite `module` (NVPTX LLVM IR) for the host in place. Returns the
/// kernels (functions with the PTX kernel calling convention) and what the
/// runner must provide, or why the module cannot run.
pub fn rewrite_for_host<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<Rewritten, String> {
    refuse_inline_asm(module)?;
    refuse_shared_window_addresses(module)?;
    let kernels = kernel_names(module);
    let dynamic_shared_align = redirect_dynamic_shared(ctx, module);
    let static_shared = redirect_static_shared(module);
    let i32t = ctx.i32_type();
    let i64t = ctx.i64_type();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let sreg = module.add_function(ENTRY_SREG, i64t.fn_type(&[i32t.into()], false), None);
    let barrier = module.add_function(ENTRY_BARRIER, i32t.fn_type(&[i32t.into(); 4], false), None);
    let warp = module.add_function(
        ENTRY_WARP,
        i32t.fn_type(
            &[i32t.into(); 5]
                .iter()
                .copied()
                .chain([ptr.into()])
                .collect::<Vec<_>>(),
            false,
        ),
        None,
    );
    let fence = module.add_function(ENTRY_FENCE, ctx.void_type().fn_type(&[], false), None);
    let nanosleep = module.add_function(ENTRY_NANOSLEEP, ctx.void_type().fn_type(&[], false), None);
    let entries = Entries {
        sreg,
        barrier,
        warp,
        fence,
        nanosleep,
    };
    refuse_variadic_functions(module)?;
    let libdevice = super::libdevice::link(ctx, module)?;
    // What libdevice brought: its inline PTX is translated, and what is
    // left (none known) must not reach the JIT, which computes garbage
    // or stops on PTX text.
    refuse_inline_asm(module)?;
    let mut sites = mark_sites(ctx, module)?;
    check_alignment(ctx, module, &mut sites)?;
    let decls: Vec<FunctionValue> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
        .collect();
    let mut refused = Vec::new();
    let mut defined_in_ir = Vec::new();
    for f in decls {
        let name = f.get_name().to_string_lossy().into_owned();
        // The runner's own entry points, declared above.
        if name.starts_with("kperf_simt_") || name == ENTRY_VPRINTF || name == ENTRY_ASSERTFAIL {
            continue;
        }
        if let Some(l) = classify(&name) {
            define(ctx, module, f, &name, l, &entries)?;
        } else if let Some(text) = ir_definition(f, &name) {
            defined_in_ir.push((f, text));
        } else if name.starts_with("__nv_") && libdevice.is_some() {
            refused.push(format!(
                "`{name}` is not a libdevice function (libdevice.10.bc, linked from {}, has no such function)",
                libdevice.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
            ));
        } else if name.starts_with("llvm.nvvm.") || name.starts_with("__nv_") {
            refused.push(refusal(&name));
        } else if !name.starts_with("llvm.") {
            // On a GPU this fails to link; JITted, the call would jump to
            // whatever (or nothing) the host has under that name.
            refused.push(format!(
                "`{name}` is declared but not defined in the module (a device function from another file, or kperf's region markers in a kernel run with --no-instrument)"
            ));
        }
    }
    if !refused.is_empty() {
        let unlinked = libdevice.is_none()
            && refused
                .iter()
                .any(|r| r.starts_with("`__nv_") && r.contains("no libdevice was found"));
        return Err(format!(
            "the SIMT target cannot run this kernel: {}{}",
            refused.join("; "),
            if unlinked {
                format!(" ({})", super::libdevice::WHERE)
            } else {
                String::new()
            }
        ));
    }
    // The kernel's own code, before the runner's definitions join it.
    super::gpu_results::use_gpu_results(module.as_mut_ptr());
    for (f, text) in defined_in_ir {
        link_definition(ctx, module, f, &text)?;
    }
    for f in module.get_functions() {
        // PTX_Kernel (71) and PTX_Device (72) are not host conventions.
        f.set_call_conventions(0);
        for bb in f.get_basic_block_iter() {
            for i in bb.get_instructions() {
                if i.get_opcode() == InstructionOpcode::Call {
                    if let Ok(call) = CallSiteValue::try_from(i) {
                        call.set_call_convention(0);
                    }
                }
            }
        }
    }
    poll_after_shared_reads(ctx, module)?;
    zero_printf_arguments(ctx, module)?;
    Ok(Rewritten {
        kernels,
        dynamic_shared_align,
        sites,
        static_shared,
    })
}

/// The runner's entry for a misaligned access (see [`check_alignment`]).
pub const ENTRY_MISALIGNED: &str = "kperf_simt_misaligned";
/// The test [`check_alignment`] puts before each access, inlined by the
/// JIT's optimizer.
const ALIGN_CHECK: &str = "kperf_simt_align_check";

/// Before every load, store and atomic of the module's functions, a test
/// of its address against the alignment a GPU needs for it, calling
/// [`ENTRY_MISALIGNED`] (which stops the launch, as a GPU's misaligned
/// address error does) when it fails. The host's loads do not care: an
/// `int` read 2 bytes into a buffer ran silently, and a misaligned
/// `float4` store stopped with "a null or non-canonical address" (the SSE
/// fault carries none). The alignment tested is the one the IR promises
/// (up to 16 bytes, the widest GPU access): NVPTX emits instructions as
/// wide as the promise allows (`align 1`: byte loads) and its vectorizer
/// joins neighbouring accesses on it (four `float` stores, the first
/// promised `align 16`, become one 16-byte store), so a broken promise is
/// a misaligned address on a GPU. Each access site is named in `sites`.
fn check_alignment<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    sites: &mut Vec<String>,
) -> Result<(), String> {
    use inkwell::llvm_sys::core::{LLVMGetAlignment, LLVMGetOperand, LLVMTypeOf};
    use inkwell::llvm_sys::target::LLVMStoreSizeOfType;
    let layout = module.get_data_layout();
    let td = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
    let functions: Vec<FunctionValue> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .collect();
    let mut accesses = Vec::new();
    for func in functions {
        let fname = func.get_name().to_string_lossy().into_owned();
        for i in func
            .get_basic_block_iter()
            .flat_map(|bb| bb.get_instructions())
        {
            let r = i.as_value_ref();
            // SAFETY: a store's operand 0 is its value and 1 its pointer;
            // an atomic's 0 its pointer and 1 its value.
            let (ptr, value) = unsafe {
                match i.get_opcode() {
                    InstructionOpcode::Load => (LLVMGetOperand(r, 0), r),
                    InstructionOpcode::Store => (LLVMGetOperand(r, 1), LLVMGetOperand(r, 0)),
                    InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg => {
                        (LLVMGetOperand(r, 0), LLVMGetOperand(r, 1))
                    }
                    _ => continue,
                }
            };
            // SAFETY: the value is the access's; the layout is the module's.
            let size = unsafe { LLVMStoreSizeOfType(td.as_mut_ptr(), LLVMTypeOf(value)) };
            // SAFETY: loads, stores and atomics have an alignment.
            let promised = unsafe { LLVMGetAlignment(r) } as u64;
            let need = if promised == 0 { size } else { promised }.min(16);
            if need <= 1 || !need.is_power_of_two() {
                continue;
            }
            let text = i.print_to_string().to_string();
            let what = text.trim().split(',').next().unwrap_or("").to_string();
            let at = source_line(i).unwrap_or_else(|| format!("access {}", sites.len()));
            sites.push(format!("`{what}` at {at} in `{fname}`"));
            accesses.push((i, ptr, need, sites.len() as u64 - 1));
        }
    }
    if accesses.is_empty() {
        return Ok(());
    }
    let text = format!(
        "declare void @{ENTRY_MISALIGNED}(i64, i64, i32)\n\
         define void @{ALIGN_CHECK}(i64 %a, i64 %need, i32 %site) alwaysinline {{\n\
         \x20 %m = sub i64 %need, 1\n\
         \x20 %low = and i64 %a, %m\n\
         \x20 %bad = icmp ne i64 %low, 0\n\
         \x20 br i1 %bad, label %f, label %ok\n\
         f:\n\
         \x20 call void @{ENTRY_MISALIGNED}(i64 %a, i64 %need, i32 %site) cold\n\
         \x20 ret void\n\
         ok:\n\
         \x20 ret void\n\
         }}\n"
    );
    link_ir_text(ctx, module, &text, "the alignment test")?;
    let check = module
        .get_function(ALIGN_CHECK)
        .ok_or("SIMT rewrite: the alignment test is missing")?;
    check.set_linkage(Linkage::Internal);
    let (i32t, i64t) = (ctx.i32_type(), ctx.i64_type());
    let b = ctx.create_builder();
    for (i, ptr, need, site) in accesses {
        b.position_before(&i);
        // SAFETY: `ptr` is the access's pointer operand.
        let p = unsafe { inkwell::values::PointerValue::new(ptr) };
        let addr = b.build_ptr_to_int(p, i64t, "kperf.addr").map_err(err)?;
        b.build_call(
            check,
            &[
                addr.into(),
                i64t.const_int(need, false).into(),
                i32t.const_int(site, false).into(),
            ],
            "",
        )
        .map_err(err)?;
    }
    Ok(())
}

/// Before every call of a barrier or warp operation, a call telling the
/// runner which site the thread is at (numbered in module order), so that
/// a deadlock report says where its threads wait: "barrier 0" alone named
/// no line, with line tables or without. Returns the sites' names.
fn mark_sites<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<Vec<String>, String> {
    let site_fn = module.add_function(
        ENTRY_SITE,
        ctx.void_type().fn_type(&[ctx.i32_type().into()], false),
        None,
    );
    let b = ctx.create_builder();
    let mut sites = Vec::new();
    for func in module.get_functions() {
        let fname = func.get_name().to_string_lossy().into_owned();
        for bb in func.get_basic_block_iter() {
            for i in bb.get_instructions() {
                if i.get_opcode() != InstructionOpcode::Call {
                    continue;
                }
                let Ok(call) = CallSiteValue::try_from(i) else {
                    continue;
                };
                let Some(callee) = call.get_called_fn_value() else {
                    continue;
                };
                let name = callee.get_name().to_string_lossy().into_owned();
                let waits = matches!(
                    classify(&name),
                    Some(Lowering::Barrier { .. } | Lowering::Warp { .. })
                );
                if !waits {
                    continue;
                }
                let short = name.trim_start_matches("llvm.nvvm.");
                let at = source_line(i).unwrap_or_else(|| format!("site {}", sites.len()));
                sites.push(format!("`{short}` at {at} in `{fname}`"));
                b.position_before(&i);
                let id = ctx.i32_type().const_int(sites.len() as u64 - 1, false);
                b.build_call(site_fn, &[id.into()], "").map_err(err)?;
            }
        }
    }
    Ok(sites)
}

/// `file:line` of an instruction's debug location, when it has one: the
/// user's call where the intrinsic was inlined from a helper (clang's
/// `__syncwarp` and shuffles are inline functions of its CUDA headers), with
/// the helper's line after it.
fn source_line(i: InstructionValue<'_>) -> Option<String> {
    use inkwell::llvm_sys::debuginfo::*;
    // SAFETY: reading a live instruction's debug location.
    let loc = unsafe { LLVMInstructionGetDebugLoc(i.as_value_ref()) };
    if loc.is_null() {
        return None;
    }
    let mut outer = loc;
    // SAFETY: walking a location's inlined-at chain, owned by the module.
    unsafe {
        loop {
            let up = LLVMDILocationGetInlinedAt(outer);
            if up.is_null() {
                break;
            }
            outer = up;
        }
    }
    let here = location_text(loc);
    if outer == loc {
        return Some(here);
    }
    Some(format!("{} (inlined from {here})", location_text(outer)))
}

/// `file:line` of one debug location.
fn location_text(loc: inkwell::llvm_sys::prelude::LLVMMetadataRef) -> String {
    use inkwell::llvm_sys::debuginfo::*;
    // SAFETY: reading a live location and its scope's file.
    unsafe {
        let line = LLVMDILocationGetLine(loc);
        let scope = LLVMDILocationGetScope(loc);
        let file = if scope.is_null() {
            std::ptr::null_mut()
        } else {
            LLVMDIScopeGetFile(scope)
        };
        let name = if file.is_null() {
            String::new()
        } else {
            let mut len = 0u32;
            let p = LLVMDIFileGetFilename(file, &mut len);
            if p.is_null() {
                String::new()
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
                    .into_owned()
            }
        };
        format!("{name}:{line}")
    }
}

/// A call to [`ENTRY_POLL`] after every volatile or atomic load and every
/// atomic read-modify-write: what a spin-wait on a flag is made of. On a
/// GPU the spinning warp shares its SM with the one it waits for; here
/// hundreds of OS threads share a few cores, and a spinner that never
/// yields kept the producer off its core (a warp-specialised hand-off took
/// 0.4 s). The poll yields now and then; plain loads are untouched.
fn poll_after_shared_reads<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<(), String> {
    let poll = module.add_function(ENTRY_POLL, ctx.void_type().fn_type(&[], false), None);
    let b = ctx.create_builder();
    for f in module.get_functions() {
        for bb in f.get_basic_block_iter() {
            let reads: Vec<_> = bb
                .get_instructions()
                .filter(|i| match i.get_opcode() {
                    InstructionOpcode::Load => {
                        i.get_volatile().unwrap_or(false)
                            || i.get_atomic_ordering()
                                .is_ok_and(|o| o != inkwell::AtomicOrdering::NotAtomic)
                    }
                    InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg => true,
                    _ => false,
                })
                .collect();
            for i in reads {
                if let Some(next) = i.get_next_instruction() {
                    b.position_before(&next);
                    b.build_call(poll, &[], "").map_err(err)?;
                }
            }
        }
    }
    Ok(())
}

/// Each `vprintf` argument buffer on the stack starts zeroed. CUDA's
/// `vprintf` reads an integer conversion as 4 bytes at least; C promotes a
/// `char` or `short` argument to `int`, but MLIR's `gpu.printf` lowering
/// packs an `i8` or `i16` as it is, so `%d` of an `i8` reads 3 bytes of
/// padding. A GPU's fresh local memory holds zeros there in practice
/// (upstream's printf test expects `2`); the host's stack held garbage
/// (`-1165630718`, a new value each run).
fn zero_printf_arguments<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<(), String> {
    let Some(vprintf) = module.get_function(ENTRY_VPRINTF) else {
        return Ok(());
    };
    let b = ctx.create_builder();
    let mut zeroed = std::collections::HashSet::new();
    for call in calls_of(module, vprintf) {
        let Some(inkwell::values::Operand::Value(BasicValueEnum::PointerValue(args))) =
            call.get_operand(1)
        else {
            continue;
        };
        let Some(alloca) = args
            .as_instruction()
            .filter(|i| i.get_opcode() == InstructionOpcode::Alloca)
        else {
            continue;
        };
        let Some(ty) = alloca.get_allocated_type().ok() else {
            continue;
        };
        if !zeroed.insert(alloca) {
            continue;
        }
        // A `lifetime.start` (an inlined device function's buffer has one)
        // makes the bytes undefined again after the memset below, and the
        // optimizer dropped it: `%d` of an `i8` printed garbage in a
        // called function's printf only.
        drop_lifetime_markers(args);
        // The buffer with room past the struct: with no wider argument
        // after a narrow one there is no padding, and `%d` of a lone `i8`
        // read 3 bytes past it. Each conversion reads at most 8 bytes, from
        // an offset aligned to its size.
        let fields = match ty {
            BasicTypeEnum::StructType(st) => st.count_fields(),
            _ => 1,
        };
        let Some(size) = inkwell::types::BasicType::size_of(&ty) else {
            continue;
        };
        let room = ctx
            .i64_type()
            .const_int(8 * u64::from(fields.max(1)) + 8, false);
        b.position_before(&alloca);
        let padded = b
            .build_array_alloca(ctx.i8_type(), size.const_add(room), "kperf.printf.args")
            .map_err(err)?;
        if let Some(p) = padded.as_instruction() {
            p.set_alignment(16).map_err(|e| e.to_string())?;
        }
        let Some(after) = alloca.get_next_instruction() else {
            continue;
        };
        b.position_before(&after);
        b.build_memset(padded, 16, ctx.i8_type().const_zero(), size.const_add(room))
            .map_err(err)?;
        args.replace_all_uses_with(padded);
    }
    Ok(())
}

/// Erase the `llvm.lifetime.start`/`end` calls on `ptr`.
fn drop_lifetime_markers(ptr: inkwell::values::PointerValue<'_>) {
    let mut markers = Vec::new();
    let mut next = ptr.get_first_use();
    while let Some(u) = next {
        next = u.get_next_use();
        // Calls of void functions are instruction values.
        let inkwell::values::AnyValueEnum::InstructionValue(call) = u.get_user() else {
            continue;
        };
        if call.get_opcode() != InstructionOpcode::Call {
            continue;
        }
        let callee = call
            .get_operand(call.get_num_operands() - 1)
            .and_then(|o| o.value())
            .map(|v| v.get_name().to_string_lossy().into_owned())
            .unwrap_or_default();
        if callee.starts_with("llvm.lifetime.") {
            markers.push(call);
        }
    }
    for call in markers {
        call.erase_from_basic_block();
    }
}

/// Dynamic shared memory: clang's `extern __shared__ T buf[]` (an external
/// `addrspace(3)` declaration) and MLIR's `gpu.dynamic_shared_memory` (a
/// zero-length `addrspace(3)` array). On a GPU every one of them starts at
/// the launch's dynamic shared memory; here they all become one external
/// global, [`DYNAMIC_SHARED`], which the runner maps to a guarded buffer
/// of the launch's size. Without this the JIT would give them no storage:
/// a declaration resolves to nothing (a null access) and a zero-length
/// array to the bytes of whatever global follows it (kperf's rings, say).
/// Returns the largest alignment they declare (at least 16), or `None`
/// when the module has none.
fn redirect_dynamic_shared<'c>(ctx: &'c Context, module: &Module<'c>) -> Option<u32> {
    let shared = AddressSpace::from(3u16);
    let dynamic: Vec<_> = module
        .get_globals()
        .filter(|g| g.as_pointer_value().get_type().get_address_space() == shared)
        .filter(|g| {
            let zero_length = match g.get_value_type() {
                inkwell::types::AnyTypeEnum::ArrayType(a) => a.is_empty(),
                _ => false,
            };
            g.get_initializer().is_none() || zero_length
        })
        .collect();
    if dynamic.is_empty() {
        return None;
    }
    let align = dynamic.iter().map(|g| g.get_alignment()).fold(16, u32::max);
    let target = module.add_global(ctx.i8_type().array_type(0), Some(shared), DYNAMIC_SHARED);
    target.set_linkage(Linkage::External);
    target.set_alignment(align);
    for g in dynamic {
        g.as_pointer_value()
            .replace_all_uses_with(target.as_pointer_value());
        // SAFETY: no uses are left.
        unsafe { g.delete() };
    }
    Some(align)
}

/// Static shared arrays (`__shared__ float partial[32]`, MLIR's workgroup
/// attributions, kperf's rings): each becomes an external global the
/// runner maps to a guarded buffer of its own, so an access past one
/// faults naming it instead of landing in its neighbour. An array with a
/// non-zero initializer (CUDA allows none) stays where it is.
fn redirect_static_shared(module: &Module<'_>) -> Vec<StaticShared> {
    let shared = AddressSpace::from(3u16);
    let layout = module.get_data_layout();
    let target = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
    let arrays: Vec<_> = module
        .get_globals()
        .filter(|g| g.as_pointer_value().get_type().get_address_space() == shared)
        .filter(|g| {
            g.get_initializer().is_some_and(|init| {
                let v = init.as_value_ref();
                // SAFETY: classifying a live constant.
                unsafe {
                    use inkwell::llvm_sys::core::{LLVMIsNull, LLVMIsPoison, LLVMIsUndef};
                    LLVMIsNull(v) != 0 || LLVMIsUndef(v) != 0 || LLVMIsPoison(v) != 0
                }
            })
        })
        .collect();
    let mut out = Vec::new();
    for (k, g) in arrays.into_iter().enumerate() {
        let ty = g.get_value_type();
        let Ok(basic) = inkwell::types::BasicTypeEnum::try_from(ty) else {
            continue;
        };
        let bytes = target.get_abi_size(&basic);
        if bytes == 0 {
            continue;
        }
        let symbol = format!("{STATIC_SHARED}{k}");
        let name = g.get_name().to_string_lossy().into_owned();
        let moved = module.add_global(basic, Some(shared), &symbol);
        moved.set_linkage(Linkage::External);
        // The array's own alignment, so that it ends where its guard
        // begins: at 16, a 33-int array had 12 bytes of canary after it,
        // and a read past its end returned the canary unseen.
        let align = match g.get_alignment() {
            0 => target.get_abi_alignment(&basic),
            a => a,
        }
        .max(1);
        moved.set_alignment(align);
        g.as_pointer_value()
            .replace_all_uses_with(moved.as_pointer_value());
        // SAFETY: no uses are left.
        unsafe { g.delete() };
        out.push(StaticShared {
            symbol,
            name,
            bytes,
            align,
        });
    }
    out
}

struct Entries<'c> {
    sreg: FunctionValue<'c>,
    barrier: FunctionValue<'c>,
    warp: FunctionValue<'c>,
    fence: FunctionValue<'c>,
    nanosleep: FunctionValue<'c>,
}

/// Shared-memory addresses as 32-bit integers (`__cvta_generic_to_shared`,
/// a shared pointer's `ptrtoint` truncated or masked to 32 bits and turned
/// back): on a GPU the shared window fits 32 bits; here shared memory lives
/// at 64-bit host addresses, and the round trip faulted far outside every
/// buffer, blamed on the spec.
fn refuse_shared_window_addresses(module: &Module) -> Result<(), String> {
    use inkwell::values::{AnyValue, AnyValueEnum, BasicValueEnum};
    let narrows_to_32 = |user: AnyValueEnum| {
        let AnyValueEnum::IntValue(v) = user else {
            return false;
        };
        let Some(u) = v.as_instruction() else {
            return false;
        };
        match u.get_opcode() {
            InstructionOpcode::Trunc => v.get_type().get_bit_width() <= 32,
            InstructionOpcode::And => (0..u.get_num_operands()).any(|k| {
                matches!(
                    u.get_operand(k),
                    Some(inkwell::values::Operand::Value(BasicValueEnum::IntValue(c)))
                        if c.get_zero_extended_constant() == Some(u32::MAX as u64)
                )
            }),
            _ => false,
        }
    };
    for (f, i) in instructions(module) {
        if i.get_opcode() != InstructionOpcode::PtrToInt {
            continue;
        }
        let from_shared = matches!(
            i.get_operand(0),
            Some(inkwell::values::Operand::Value(v))
                if v.get_type().is_pointer_type()
                    && v.into_pointer_value().get_type().get_address_space()
                        == AddressSpace::from(3u16)
        );
        if !from_shared {
            continue;
        }
        let mut users = std::iter::successors(i.get_first_use(), |u| u.get_next_use());
        let narrowed = i.get_type().into_int_type().get_bit_width() < 64
            || users.any(|u| narrows_to_32(u.get_user()));
        if narrowed {
            return Err(format!(
                "the SIMT target cannot run this kernel: function `{}` takes a shared-memory address as a 32-bit integer (`{}`; a shared window address, as `__cvta_generic_to_shared` gives), and shared memory lives at 64-bit addresses here",
                f.get_name().to_string_lossy(),
                i.print_to_string().to_string().trim()
            ));
        }
    }
    Ok(())
}

/// Every instruction of the module, with its function.
fn instructions<'c>(
    module: &Module<'c>,
) -> impl Iterator<Item = (FunctionValue<'c>, InstructionValue<'c>)> {
    module.get_functions().flat_map(|f| {
        f.get_basic_block_iter()
            .flat_map(|bb| bb.get_instructions())
            .map(move |i| (f, i))
    })
}

/// A variadic device function: NVPTX's `va_list` is one pointer to the
/// packed arguments, x86-64's a 24-byte record the JIT'd `va_start` wrote
/// over the 8 bytes clang allocates for NVPTX (garbage results, or a fault
/// blamed on the launch spec).
fn refuse_variadic_functions(module: &Module) -> Result<(), String> {
    match module
        .get_functions()
        .find(|f| f.count_basic_blocks() > 0 && f.get_type().is_var_arg())
    {
        Some(f) => Err(format!(
            "the SIMT target cannot run this kernel: function `{}` is variadic, and NVPTX \
             passes variadic arguments differently from the host the SIMT target compiles for \
             (a va_list is one pointer on NVPTX); printf is supported",
            f.get_name().to_string_lossy()
        )),
        None => Ok(()),
    }
}

fn refuse_inline_asm(module: &Module) -> Result<(), String> {
    for (f, i) in instructions(module) {
        if i.get_opcode() != InstructionOpcode::Call {
            continue;
        }
        // A call of inline asm prints as `call <ty> asm [sideeffect] "…"`.
        let text = i.print_to_string().to_string();
        if let Some((_, asm)) = text.split_once(" asm ") {
            let asm: String = asm.chars().take(80).collect();
            return Err(format!(
                "the SIMT target cannot run this kernel: function `{}` uses inline PTX (asm {asm}…), which only a GPU runs (Triton's kernels do; kperf's own records use none on this target)",
                f.get_name().to_string_lossy()
            ));
        }
    }
    Ok(())
}

/// Kernels: functions with the PTX kernel calling convention (71), which
/// is how LLVM 22 (clang, MLIR's NVVM translation) marks them.
/// Drop what launching `kernel` cannot reach: the module's other kernels
/// and, transitively, the functions nothing uses any more. A kernel is
/// then judged by what it runs: an intrinsic only a sibling kernel calls
/// (`nanosleep` in another kernel of the file) refused the whole file.
pub(crate) fn keep_only_kernel(module: &Module, kernel: &str) {
    let unused = |f: &FunctionValue| {
        f.as_global_value()
            .as_pointer_value()
            .get_first_use()
            .is_none()
    };
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy().into_owned();
        if name != kernel && f.get_call_conventions() == PTX_KERNEL && unused(&f) {
            // SAFETY: a function no instruction or constant refers to.
            unsafe { f.delete() };
        }
    }
    loop {
        let dead: Vec<FunctionValue> = module
            .get_functions()
            .filter(|f| f.get_name().to_bytes() != kernel.as_bytes() && unused(f))
            .collect();
        if dead.is_empty() {
            break;
        }
        for f in dead {
            // SAFETY: as above; deleting it may leave its callees unused,
            // which the next round collects.
            unsafe { f.delete() };
        }
    }
}

pub(crate) fn kernel_names(module: &Module) -> Vec<String> {
    module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0 && f.get_call_conventions() == PTX_KERNEL)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect()
}

const PTX_KERNEL: u32 = 71;

/// Give the intrinsic `f` an internal definition that calls the runner.
fn define<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    f: FunctionValue<'c>,
    name: &str,
    l: Lowering,
    e: &Entries<'c>,
) -> Result<(), String> {
    let short = name.trim_start_matches("llvm.nvvm.");
    if matches!(
        l,
        Lowering::Warp {
            op: warp_op::ACTIVEMASK,
            ..
        }
    ) {
        // `activemask` gathers the lanes at one call site: each call gets
        // its own definition, which passes the site's number, numbered in
        // flow order (the runner closes the first of several gatherings
        // first; a use list's order is the reverse of creation, and the
        // block layout may put a loop's exit before its body). Calls of
        // functions that reach one are numbered in the same order and tell
        // the runner the thread enters and leaves them, so the lanes of two
        // branches that call one helper are two gatherings, as on a GPU.
        for (site, call) in activemask_sites(ctx, module, f) {
            let callee = call.get_num_operands() - 1;
            let g = module.add_function(
                &format!("__kperf_simt.{short}.{site}"),
                f.get_type(),
                Some(Linkage::Internal),
            );
            build_body(ctx, g, f, l, e, Some(site))?;
            call.set_operand(callee, g.as_global_value().as_pointer_value());
        }
    }
    let g = module.add_function(
        &format!("__kperf_simt.{short}"),
        f.get_type(),
        Some(Linkage::Internal),
    );
    build_body(ctx, g, f, l, e, None)?;
    f.replace_all_uses_with(g);
    // SAFETY: `f` has no uses left and is a declaration.
    unsafe { f.delete() };
    Ok(())
}

/// The calls of `activemask` (`f`) in `module`, numbered with the calls of
/// functions that reach one (directly or through others) in each
/// function's flow order ([`blocks_in_flow_order`]), from 1. Each call of
/// such a function is put between [`ENTRY_CALL_ENTER`] with its number and
/// [`ENTRY_CALL_LEAVE`]: the runner keys a gathering by the numbers of the
/// calls the thread is in and the site's, and closes the first of several
/// by that path.
fn activemask_sites<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    f: FunctionValue<'c>,
) -> Vec<(u64, InstructionValue<'c>)> {
    let callee_of = |i: &InstructionValue<'c>| -> Option<FunctionValue<'c>> {
        if i.get_opcode() != InstructionOpcode::Call {
            return None;
        }
        CallSiteValue::try_from(*i).ok()?.get_called_fn_value()
    };
    // The functions that reach an `activemask`, to a fixed point.
    let mut reaching = std::collections::HashSet::from([f]);
    loop {
        let before = reaching.len();
        for func in module.get_functions() {
            let calls_one = func
                .get_basic_block_iter()
                .flat_map(|bb| bb.get_instructions())
                .any(|i| callee_of(&i).is_some_and(|c| reaching.contains(&c)));
            if calls_one {
                reaching.insert(func);
            }
        }
        if reaching.len() == before {
            break;
        }
    }
    let void = ctx.void_type();
    let enter = module.add_function(
        ENTRY_CALL_ENTER,
        void.fn_type(&[ctx.i32_type().into()], false),
        None,
    );
    let leave = module.add_function(ENTRY_CALL_LEAVE, void.fn_type(&[], false), None);
    let b = ctx.create_builder();
    let mut sites = Vec::new();
    let mut number = 0u64;
    let functions: Vec<FunctionValue<'c>> = module.get_functions().collect();
    // A call through a pointer may reach one too (a helper picked from a
    // table): it is numbered and wrapped like a direct call of one.
    let indirect = |i: &InstructionValue<'c>| {
        i.get_opcode() == InstructionOpcode::Call
            && callee_of(i).is_none()
            && !i.print_to_string().to_string().contains(" asm ")
    };
    // Call number `n` between ENTRY_CALL_ENTER(n) and ENTRY_CALL_LEAVE.
    let wrap = |i: &InstructionValue<'c>, n: u64| {
        b.position_before(i);
        let n = ctx.i32_type().const_int(n, false);
        let _ = b.build_call(enter, &[n.into()], "");
        if let Some(next) = i.get_next_instruction() {
            b.position_before(&next);
            let _ = b.build_call(leave, &[], "");
        }
    };
    for func in functions {
        for bb in blocks_in_flow_order(func) {
            for i in bb.get_instructions() {
                let callee = callee_of(&i);
                if callee == Some(f) {
                    number += 1;
                    sites.push((number, i));
                } else if indirect(&i) || callee.is_some_and(|c| c != func && reaching.contains(&c))
                {
                    number += 1;
                    wrap(&i, number);
                }
            }
        }
    }
    sites
}

/// The calls of `f` in `module`, each function's in flow order
/// ([`blocks_in_flow_order`]).
fn calls_of<'c>(module: &Module<'c>, f: FunctionValue<'c>) -> Vec<InstructionValue<'c>> {
    let target = f.as_global_value().as_pointer_value();
    module
        .get_functions()
        .flat_map(blocks_in_flow_order)
        .flat_map(|bb| bb.get_instructions())
        .filter(|i| {
            i.get_opcode() == InstructionOpcode::Call
                && matches!(
                    i.get_operand(i.get_num_operands() - 1),
                    Some(inkwell::values::Operand::Value(v)) if v == target
                )
        })
        .collect()
}

/// `func`'s blocks in reverse post-order: each block after the blocks
/// that reach it, a loop's body before what follows the loop, whatever the
/// layout (clang lays a loop's exit block out before its body).
fn blocks_in_flow_order(func: FunctionValue<'_>) -> Vec<inkwell::basic_block::BasicBlock<'_>> {
    use inkwell::llvm_sys::core::{LLVMGetNumSuccessors, LLVMGetSuccessor};
    let Some(entry) = func.get_first_basic_block() else {
        return Vec::new();
    };
    let succs = |b: inkwell::basic_block::BasicBlock<'_>| -> Vec<inkwell::llvm_sys::prelude::LLVMBasicBlockRef> {
        b.get_terminator().map_or(Vec::new(), |t| {
            // SAFETY: the successors of a live terminator.
            unsafe {
                (0..LLVMGetNumSuccessors(t.as_value_ref()))
                    .map(|k| LLVMGetSuccessor(t.as_value_ref(), k))
                    .collect()
            }
        })
    };
    let by_ref: std::collections::HashMap<_, _> = func
        .get_basic_block_iter()
        .map(|b| (b.as_mut_ptr(), b))
        .collect();
    let mut seen = std::collections::HashSet::from([entry.as_mut_ptr()]);
    let mut post = Vec::new();
    let mut stack = vec![(entry, succs(entry), 0usize)];
    while let Some((b, next, k)) = stack.last_mut() {
        if let Some(&s) = next.get(*k) {
            *k += 1;
            if seen.insert(s) {
                if let Some(&sb) = by_ref.get(&s) {
                    let ss = succs(sb);
                    stack.push((sb, ss, 0));
                }
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// The name an intrinsic's host definition gets.
fn host_name(intrinsic: &str) -> String {
    format!(
        "__kperf_simt.{}",
        intrinsic.trim_start_matches("llvm.nvvm.")
    )
}

/// IR text defining intrinsic `f` (see [`super::pure`]), if it is one
/// that is arithmetic or an atomic.
fn ir_definition(f: FunctionValue<'_>, name: &str) -> Option<String> {
    let short = name.strip_prefix("llvm.nvvm.")?;
    let ret = f
        .get_type()
        .get_return_type()?
        .print_to_string()
        .to_string();
    let params: Vec<String> = f
        .get_params()
        .iter()
        .map(|p| p.get_type().print_to_string().to_string())
        .collect();
    super::pure::definition(short, &host_name(name), &ret, &params)
}

/// Parse LLVM IR `text` (`what` it is, for errors) for `module`'s target
/// and link it in.
fn link_ir_text<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    text: &str,
    what: &str,
) -> Result<(), String> {
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
        text.as_bytes(),
        "kperf-simt",
    );
    let lib = ctx
        .create_module_from_ir(buf)
        .map_err(|e| format!("SIMT rewrite: {what}: {e}"))?;
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    module
        .link_in_module(lib)
        .map_err(|e| format!("SIMT rewrite: linking {what}: {e}"))
}

/// Link `text` (the definition of `f`) into `module` and call it where
/// `f` was called.
fn link_definition<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    f: FunctionValue<'c>,
    text: &str,
) -> Result<(), String> {
    let name = f.get_name().to_string_lossy().into_owned();
    link_ir_text(
        ctx,
        module,
        text,
        &format!("the host definition of `{name}`"),
    )?;
    let g = module
        .get_function(&host_name(&name))
        .ok_or_else(|| format!("SIMT rewrite: the host definition of `{name}` is missing"))?;
    // Defined external: the linker leaves out internal functions nothing
    // calls yet.
    g.set_linkage(Linkage::Internal);
    f.replace_all_uses_with(g);
    // SAFETY: `f` has no uses left and is a declaration.
    unsafe { f.delete() };
    Ok(())
}

/// The body of `g`, the definition of intrinsic `f`; `site` numbers an
/// `activemask` call site (none: one definition for every use).
fn build_body<'c>(
    ctx: &'c Context,
    g: FunctionValue<'c>,
    f: FunctionValue<'c>,
    l: Lowering,
    e: &Entries<'c>,
    site: Option<u64>,
) -> Result<(), String> {
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(g, "entry"));
    let i32t = ctx.i32_type();
    let arg = |i: Option<u32>| -> Result<IntValue<'c>, String> {
        match i.and_then(|i| g.get_nth_param(i)) {
            Some(v) => to_i32(ctx, &b, v),
            None => Ok(i32t.const_zero()),
        }
    };
    let ret_ty = f.get_type().get_return_type();
    match l {
        Lowering::Sreg(s) => {
            let code = i32t.const_int(s as u64, false);
            let v = b
                .build_call(e.sreg, &[code.into()], "")
                .map_err(err)?
                .try_as_basic_value()
                .basic()
                .ok_or("SIMT rewrite: sreg entry returns nothing")?
                .into_int_value();
            ret_int(ctx, &b, ret_ty, v, None)?;
        }
        Lowering::Barrier {
            op,
            pred,
            id,
            count,
        } => {
            let v = b
                .build_call(
                    e.barrier,
                    &[
                        i32t.const_int(op as u64, false).into(),
                        arg(pred)?.into(),
                        arg(id)?.into(),
                        arg(count)?.into(),
                    ],
                    "",
                )
                .map_err(err)?
                .try_as_basic_value()
                .basic()
                .ok_or("SIMT rewrite: barrier entry returns nothing")?
                .into_int_value();
            ret_int(ctx, &b, ret_ty, v, None)?;
        }
        Lowering::Warp {
            op,
            mask,
            value,
            b: bi,
            c,
        } => {
            let valid = b.build_alloca(i32t, "valid").map_err(err)?;
            let mask = if mask.is_some() {
                arg(mask)?
            } else {
                i32t.const_all_ones()
            };
            let args = [
                i32t.const_int(op as u64, false).into(),
                mask.into(),
                arg(value)?.into(),
                match site {
                    Some(k) => i32t.const_int(k, false),
                    None if op == warp_op::ACTIVEMASK => i32t.const_all_ones(),
                    None => arg(bi)?,
                }
                .into(),
                arg(c)?.into(),
                valid.into(),
            ];
            let v = b
                .build_call(e.warp, &args, "")
                .map_err(err)?
                .try_as_basic_value()
                .basic()
                .ok_or("SIMT rewrite: warp entry returns nothing")?
                .into_int_value();
            let ok = b
                .build_load(i32t, valid, "ok")
                .map_err(err)?
                .into_int_value();
            ret_int(ctx, &b, ret_ty, v, Some(ok))?;
        }
        Lowering::Fence => {
            b.build_call(e.fence, &[], "").map_err(err)?;
            ret_int(ctx, &b, ret_ty, i32t.const_zero(), None)?;
        }
        Lowering::Nanosleep => {
            b.build_call(e.nanosleep, &[], "").map_err(err)?;
            ret_int(ctx, &b, ret_ty, i32t.const_zero(), None)?;
        }
    }
    Ok(())
}

fn to_i32<'c>(
    ctx: &'c Context,
    b: &Builder<'c>,
    v: BasicValueEnum<'c>,
) -> Result<IntValue<'c>, String> {
    let i32t = ctx.i32_type();
    Ok(match v {
        BasicValueEnum::IntValue(i) => match i.get_type().get_bit_width() {
            32 => i,
            w if w < 32 => b.build_int_z_extend(i, i32t, "").map_err(err)?,
            _ => b.build_int_truncate(i, i32t, "").map_err(err)?,
        },
        BasicValueEnum::FloatValue(f) => {
            b.build_bit_cast(f, i32t, "").map_err(err)?.into_int_value()
        }
        other => return Err(format!("SIMT rewrite: unexpected argument {other:?}")),
    })
}

/// Return `v` as the intrinsic's return type: nothing, an integer, a float
/// (bit pattern), or `{T, i1}` with `valid` as the flag.
fn ret_int<'c>(
    ctx: &'c Context,
    b: &Builder<'c>,
    ty: Option<BasicTypeEnum<'c>>,
    v: IntValue<'c>,
    valid: Option<IntValue<'c>>,
) -> Result<(), String> {
    let Some(ty) = ty else {
        b.build_return(None).map_err(err)?;
        return Ok(());
    };
    let value = |t: BasicTypeEnum<'c>| -> Result<BasicValueEnum<'c>, String> {
        Ok(match t {
            BasicTypeEnum::IntType(it) => {
                let w = it.get_bit_width();
                let vw = v.get_type().get_bit_width();
                if w == 1 {
                    b.build_int_compare(inkwell::IntPredicate::NE, v, v.get_type().const_zero(), "")
                        .map_err(err)?
                        .into()
                } else if w == vw {
                    v.into()
                } else if w < vw {
                    b.build_int_truncate(v, it, "").map_err(err)?.into()
                } else {
                    b.build_int_z_extend(v, it, "").map_err(err)?.into()
                }
            }
            BasicTypeEnum::FloatType(ft) => {
                let v32 = if v.get_type().get_bit_width() == 32 {
                    v
                } else {
                    b.build_int_truncate(v, ctx.i32_type(), "").map_err(err)?
                };
                b.build_bit_cast(v32, ft, "").map_err(err)?
            }
            other => return Err(format!("SIMT rewrite: unexpected result type {other:?}")),
        })
    };
    let out: BasicValueEnum = match ty {
        BasicTypeEnum::StructType(st) => {
            let fields = st.get_field_types();
            let first = value(fields[0])?;
            let ok = valid.unwrap_or_else(|| ctx.i32_type().const_int(1, false));
            let ok = b
                .build_int_compare(
                    inkwell::IntPredicate::NE,
                    ok,
                    ok.get_type().const_zero(),
                    "",
                )
                .map_err(err)?;
            let agg = st.get_undef();
            let agg = b.build_insert_value(agg, first, 0, "").map_err(err)?;
            let agg = b.build_insert_value(agg, ok, 1, "").map_err(err)?;
            match agg {
                inkwell::values::AggregateValueEnum::StructValue(v) => v.into(),
                inkwell::values::AggregateValueEnum::ArrayValue(v) => v.into(),
            }
        }
        t => value(t)?,
    };
    b.build_return(Some(&out)).map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intrinsics_are_classified_by_name() {
        assert_eq!(
            classify("llvm.nvvm.read.ptx.sreg.tid.y"),
            Some(Lowering::Sreg(Sreg::TidY))
        );
        assert!(matches!(
            classify("llvm.nvvm.shfl.sync.bfly.f32p"),
            Some(Lowering::Warp {
                op: warp_op::SHFL_BFLY,
                ..
            })
        ));
        assert!(matches!(
            classify("llvm.nvvm.barrier.cta.red.popc.aligned.all"),
            Some(Lowering::Barrier {
                op: BAR_POPC,
                pred: Some(1),
                id: Some(0),
                count: None,
            })
        ));
        // Named barriers keep their id and count; bar.arrive needs a count.
        assert_eq!(
            classify("llvm.nvvm.barrier.cta.sync.aligned.count"),
            Some(Lowering::Barrier {
                op: BAR_SYNC,
                pred: None,
                id: Some(0),
                count: Some(1),
            })
        );
        assert_eq!(
            classify("llvm.nvvm.barrier.cta.red.and.count"),
            Some(Lowering::Barrier {
                op: BAR_AND,
                pred: Some(2),
                id: Some(0),
                count: Some(1),
            })
        );
        assert!(matches!(
            classify("llvm.nvvm.barrier.cta.arrive.count"),
            Some(Lowering::Barrier { op: BAR_ARRIVE, .. })
        ));
        assert_eq!(classify("llvm.nvvm.barrier.cta.arrive.all"), None);
        assert_eq!(classify("llvm.nvvm.wgmma.fence.sync.aligned"), None);
        assert!(refusal("llvm.nvvm.wgmma.fence.sync.aligned").contains("tensor-core"));
        assert!(refusal("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d").contains("TMA"));
    }
}
