//! Where regions come from: explicit `kperf.record` ops, `kperf.region`
//! attributes, and the automatic modes. Every source ends up as pairs of
//! `kperf.record` ops, which [`check_balance`] verifies before lowering.

use super::ir::{self, dominates, sref, Op, Value};
use crate::error::{InstrumentError, Result};
use crate::options::{RegionMode, Target};
use globset::Glob;
use kperf_dialects::irdl::{attrs, ops};
use kperf_dialects::meta::RegionKind;
use mlir_sys::*;
use std::collections::{BTreeMap, HashMap};

/// Families of asynchronous work: a wait retires only issues of its own
/// family (a `cp.async` wait_group never completes a TMA load).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AsyncFamily {
    /// TMA and bulk copies into shared memory, completed on an mbarrier.
    Mbarrier,
    /// `cp.async` copies, completed by commit groups.
    CpAsync,
    /// TMA stores from shared memory, completed by bulk groups.
    BulkGroup,
    /// Warpgroup MMAs, completed by wgmma groups.
    Wgmma,
    /// Work no wait op here retires (AMD buffer loads complete on use).
    Unwaited,
}

/// Ops that start asynchronous work whose completion a later op waits for.
const ASYNC_ISSUE: &[(&str, AsyncFamily)] = &[
    ("nvgpu.tma.async.load", AsyncFamily::Mbarrier),
    ("nvgpu.tma.async.store", AsyncFamily::BulkGroup),
    ("nvgpu.device_async_copy", AsyncFamily::CpAsync),
    ("nvgpu.warpgroup.mma", AsyncFamily::Wgmma),
    ("nvvm.cp.async.shared.global", AsyncFamily::CpAsync),
    (
        "nvvm.cp.async.bulk.tensor.shared.cluster.global",
        AsyncFamily::Mbarrier,
    ),
    (
        "nvvm.cp.async.bulk.shared.cluster.global",
        AsyncFamily::Mbarrier,
    ),
    ("nvvm.wgmma.mma_async", AsyncFamily::Wgmma),
    ("amdgpu.raw_buffer_load", AsyncFamily::Unwaited),
    ("gpu.async_copy", AsyncFamily::CpAsync),
];
/// Ops that wait for asynchronous work.
const ASYNC_WAIT: &[(&str, AsyncFamily)] = &[
    ("nvgpu.mbarrier.try_wait.parity", AsyncFamily::Mbarrier),
    ("nvgpu.mbarrier.test.wait", AsyncFamily::Mbarrier),
    ("nvgpu.device_async_wait", AsyncFamily::CpAsync),
    ("nvvm.cp.async.wait.group", AsyncFamily::CpAsync),
    ("nvvm.cp.async.bulk.wait_group", AsyncFamily::BulkGroup),
    ("nvvm.wgmma.wait.group.sync.aligned", AsyncFamily::Wgmma),
    (
        "nvvm.mbarrier.try_wait.parity.shared",
        AsyncFamily::Mbarrier,
    ),
    ("nvvm.mbarrier.try_wait.parity", AsyncFamily::Mbarrier),
];

const RETURNS: &[&str] = &["func.return", "gpu.return", "llvm.return"];
const LOOPS: &[&str] = &[
    "scf.for",
    "scf.while",
    "scf.forall",
    "scf.parallel",
    "affine.for",
];

pub fn is_return(op: Op) -> bool {
    RETURNS.contains(&op.name().as_str())
}

/// The kernels of a module for a target, in module order.
///
/// Device targets: `gpu.func` with `gpu.kernel`, and `llvm.func` with
/// `nvvm.kernel`/`rocdl.kernel` (kernels already lowered). An `llvm.func`
/// marked `gpu.kernel` alone is a device function: the NVVM and ROCDL
/// translations emit it as `.func`, not `.entry` (upstream's dump-ptx
/// test), and no launch can start it.
/// `llvm.func`s with the PTX kernel calling convention (`ptx_kernelcc`,
/// what `mlir-translate --import-llvm` makes of a `ptx_kernel` function)
/// are kernels too.
/// Host: `func.func` with `kperf.kernel`, or, when none is marked, every
/// public `func.func` with a body that no other function calls (a public
/// helper is not a kernel: giving it the host ABI broke its calls).
pub fn find_kernels(module: Op, target: &Target) -> Vec<Op> {
    let all = module.nested_ops();
    let has_body = |f: &Op| f.regions().first().and_then(|r| r.first_block()).is_some();
    if target.is_host() {
        let called = calls(module);
        let funcs: Vec<Op> = all
            .iter()
            .copied()
            .filter(|o| o.name() == "func.func" && has_body(o))
            .collect();
        let marked: Vec<Op> = funcs
            .iter()
            .copied()
            .filter(|f| f.has_attr("kperf.kernel"))
            .collect();
        if !marked.is_empty() {
            return marked;
        }
        return funcs
            .into_iter()
            .filter(|f| f.str_attr("sym_visibility").as_deref() != Some("private"))
            .filter(|f| {
                let name = symbol_name(*f);
                !called
                    .iter()
                    .any(|(callee, caller)| *callee == name && *caller != name)
            })
            .collect();
    }
    let ptx_kernelcc = |o: &Op| {
        o.attr("CConv")
            .is_some_and(|a| ir::attr_string(a).contains("ptx_kernel"))
    };
    all.into_iter()
        .filter(|o| {
            let n = o.name();
            (n == "gpu.func" && o.has_attr("gpu.kernel"))
                || (n == "llvm.func"
                    && (o.has_attr("nvvm.kernel") || o.has_attr("rocdl.kernel") || ptx_kernelcc(o)))
        })
        .filter(has_body)
        .collect()
}

/// On the host target, the public functions that are not kernels only
/// because another function calls them, each with its callers: what a
/// "no kernel" error names when every public function is called (mutual
/// recursion between two entry points, say).
pub fn called_public_functions(module: Op) -> Vec<(String, Vec<String>)> {
    let called = calls(module);
    module
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "func.func")
        .filter(|f| f.regions().first().and_then(|r| r.first_block()).is_some())
        .filter(|f| f.str_attr("sym_visibility").as_deref() != Some("private"))
        .filter_map(|f| {
            let name = symbol_name(f);
            let mut callers: Vec<String> = called
                .iter()
                .filter(|(callee, caller)| *callee == name && *caller != name)
                .map(|(_, caller)| caller.clone())
                .collect();
            callers.dedup();
            (!callers.is_empty()).then_some((name, callers))
        })
        .collect()
}

/// Every `func.call` in `module`, and every `func.constant` (a function
/// taken as a value, for `func.call_indirect`): (callee, caller) symbol
/// names.
pub fn calls(module: Op) -> Vec<(String, String)> {
    module
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "func.call" || o.name() == "func.constant")
        .filter_map(|call| {
            let callee = ir::attr_string(call.attr("callee").or_else(|| call.attr("value"))?);
            let callee = callee.trim_start_matches('@').trim_matches('"').to_string();
            let mut caller = call.parent();
            while let Some(p) = caller {
                if p.name() == "func.func" {
                    break;
                }
                caller = p.parent();
            }
            Some((callee, caller.map(symbol_name).unwrap_or_default()))
        })
        .collect()
}

/// The function's symbol name.
pub fn symbol_name(f: Op) -> String {
    f.str_attr("sym_name")
        .unwrap_or_else(|| "<anonymous>".into())
}

/// Create a `kperf.record` op (not yet inserted).
pub fn make_record(
    ctx: MlirContext,
    loc: MlirLocation,
    name: &str,
    is_start: bool,
    kind: RegionKind,
) -> MlirOperation {
    unsafe {
        let i1 = mlirIntegerTypeGet(ctx, 1);
        let kind_s = serde_json_kind(kind);
        let named = [
            named_attr(ctx, "name", mlirStringAttrGet(ctx, sref(name))),
            named_attr(ctx, "is_start", mlirIntegerAttrGet(i1, is_start as i64)),
            named_attr(ctx, "kind", mlirStringAttrGet(ctx, sref(&kind_s))),
        ];
        let mut state = mlirOperationStateGet(sref(ops::RECORD), loc);
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        mlirOperationCreate(&mut state)
    }
}

pub(crate) fn named_attr(ctx: MlirContext, name: &str, a: MlirAttribute) -> MlirNamedAttribute {
    unsafe { mlirNamedAttributeGet(mlirIdentifierGet(ctx, sref(name)), a) }
}

pub(crate) fn serde_json_kind(kind: RegionKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "explicit".into())
}

pub(crate) fn kind_from_str(s: &str) -> RegionKind {
    serde_json::from_value(serde_json::Value::String(s.to_string())).unwrap_or(RegionKind::Explicit)
}

fn insert_before(anchor: Op, rec: MlirOperation) {
    if let Some(b) = anchor.block() {
        b.insert_before(anchor, rec);
    }
}

fn insert_after(anchor: Op, rec: MlirOperation) {
    match anchor.next() {
        Some(n) => insert_before(n, rec),
        None => {
            if let Some(b) = anchor.block() {
                b.append_op(rec)
            }
        }
    }
}

/// Name for the `index`-th site of something in a kernel, e.g. `loop#2`.
fn site_name(base: &str, counts: &mut HashMap<String, usize>) -> String {
    let n = counts.entry(base.to_string()).or_default();
    *n += 1;
    if *n == 1 {
        base.to_string()
    } else {
        format!("{base}#{}", *n - 1)
    }
}

/// Remove the regions the kernel's author placed: explicit `kperf.record`
/// ops and `kperf.region` attributes, everywhere under `op`. The MLIR
/// counterpart of the LLVM IR path's marker stripping: the plain baseline
/// must compile without them, and with `markers = false` only the automatic
/// modes record.
pub fn strip_user_regions(op: Op) {
    for o in op.nested_ops() {
        if o.name() == ops::RECORD {
            o.erase();
        } else if o.has_attr(attrs::REGION) {
            o.remove_attr(attrs::REGION);
        }
    }
}

/// Ops whose regions are the kernel's own control flow, where records can
/// go. Any other region (a `gpu.all_reduce` or `scf.reduce` body, a
/// `linalg.generic` payload, a nested function) computes a value apart
/// from the kernel's program order, often isolated from the ring state:
/// `--regions ops=arith.maxsi` matched the op inside a `gpu.all_reduce`
/// body and the module no longer verified.
const CONTROL_FLOW_OPS: &[&str] = &[
    "scf.for",
    "scf.while",
    "scf.if",
    "scf.execute_region",
    "scf.index_switch",
    "scf.parallel",
    "scf.forall",
    "affine.for",
    "affine.if",
    "affine.parallel",
    "memref.alloca_scope",
    "gpu.warp_execute_on_lane_0",
];

/// The first op between `op` and kernel `f` whose body is not control flow.
fn enclosing_body(op: Op, f: Op) -> Option<Op> {
    let mut p = op.parent();
    while let Some(x) = p {
        if x == f {
            return None;
        }
        if !CONTROL_FLOW_OPS.contains(&x.name().as_str()) {
            return Some(x);
        }
        p = x.parent();
    }
    None
}

/// Whether records may bracket `op` in kernel `f`.
fn recordable(op: Op, f: Op) -> bool {
    enclosing_body(op, f).is_none()
}

/// Give kernel `f` one return: each of its returns (several blocks of a
/// `cf`-style body, `gpu.return` on each path) becomes a branch to a new
/// last block holding the one return, so the kernel region ends and
/// finalize runs in one place. LLVM merges identical returns in the plain
/// build anyway; with finalize before each, it could not, and the stores
/// the plain build sank into the common exit stayed three (a kernel with
/// three returns read 133% unexplained in `kperf cost`). Returns with
/// values (a host `func.func` never has them; kernels return nothing)
/// are left as they are.
pub fn unify_returns(f: Op) {
    let returns: Vec<Op> = f
        .nested_ops()
        .into_iter()
        .filter(|o| is_return(*o) && innermost_function(*o) == Some(f))
        .collect();
    if returns.len() < 2 || returns.iter().any(|r| r.num_operands() > 0) {
        return;
    }
    let Some(region) = f.regions().first().copied() else {
        return;
    };
    let branch = if f.name() == "llvm.func" {
        "llvm.br"
    } else {
        "cf.br"
    };
    // SAFETY: building and linking ops and a block with MLIR's C API; the
    // new block is owned by the region, each branch by its block, and each
    // old return is erased once, after its replacement is in place.
    unsafe {
        let exit = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
        mlirRegionAppendOwnedBlock(region.0, exit);
        mlirBlockAppendOwnedOperation(exit, mlirOperationClone(returns[0].0));
        for r in returns {
            let mut st = mlirOperationStateGet(sref(branch), r.location());
            mlirOperationStateAddSuccessors(&mut st, 1, &exit);
            let br = mlirOperationCreate(&mut st);
            if let Some(b) = r.block() {
                b.insert_before(r, br);
                r.erase();
            }
        }
    }
}

/// Insert `kperf.record` pairs for the attribute and automatic modes into
/// kernel `f`. Explicit records already present are left as they are.
pub fn insert_regions(ctx: MlirContext, f: Op, modes: &[RegionMode]) -> Result<()> {
    let all = f.nested_ops();
    let body: Vec<Op> = all.iter().copied().filter(|o| recordable(*o, f)).collect();
    let mut counts: HashMap<String, usize> = HashMap::new();
    let rec = |op: Op, name: &str, start: bool, kind: RegionKind| {
        make_record(ctx, op.location(), name, start, kind)
    };

    // A record written by hand inside a reduction or payload body: lowered,
    // it used ring state from outside an isolated region (an internal
    // verifier error at --emit ptx).
    if let Some(r) = all
        .iter()
        .find(|o| o.name() == ops::RECORD && !recordable(**o, f))
    {
        return Err(InstrumentError::At {
            location: r.loc_string(),
            message: format!(
                "a `kperf.record` inside a `{}` body: records can go only in the kernel's own \
                 control flow (a reduction or payload body runs apart from it); record around \
                 the enclosing op",
                enclosing_body(*r, f).map(|o| o.name()).unwrap_or_default()
            ),
        });
    }
    // `kperf.region = "name"` on any op: bracket it.
    for op in &all {
        if let Some(name) = op.str_attr(attrs::REGION) {
            if op.name() == ops::RECORD {
                continue;
            }
            if !recordable(*op, f) {
                return Err(InstrumentError::At {
                    location: op.loc_string(),
                    message: format!(
                        "`kperf.region` on `{}` inside a `{}` body: records can go only in the \
                         kernel's own control flow (a reduction or payload body runs apart from \
                         it); put the attribute on the enclosing op",
                        op.name(),
                        enclosing_body(*op, f).map(|o| o.name()).unwrap_or_default()
                    ),
                });
            }
            if is_terminator_like(*op) {
                return Err(InstrumentError::At {
                    location: op.loc_string(),
                    message: format!(
                        "`kperf.region` on terminator `{}` cannot be bracketed",
                        op.name()
                    ),
                });
            }
            insert_before(*op, rec(*op, &name, true, RegionKind::Attribute));
            insert_after(*op, rec(*op, &name, false, RegionKind::Attribute));
            op.remove_attr(attrs::REGION);
        }
    }

    for mode in modes {
        match mode {
            RegionMode::Kernel => {
                let entry = f.regions()[0]
                    .first_block()
                    .expect("kernel has a body (checked by find_kernels)");
                let first = entry.first_op().ok_or_else(|| InstrumentError::At {
                    location: f.loc_string(),
                    message: "kernel body is empty".into(),
                })?;
                insert_before(first, rec(f, "kernel", true, RegionKind::Kernel));
                for r in f
                    .nested_ops()
                    .into_iter()
                    .filter(|o| is_return(*o) && innermost_function(*o) == Some(f))
                {
                    insert_before(r, rec(r, "kernel", false, RegionKind::Kernel));
                }
            }
            RegionMode::Loops => {
                for op in body.iter().filter(|o| LOOPS.contains(&o.name().as_str())) {
                    let name = site_name(&format!("loop@{}", short_loc(*op)), &mut counts);
                    insert_before(*op, rec(*op, &name, true, RegionKind::Loop));
                    insert_after(*op, rec(*op, &name, false, RegionKind::Loop));
                }
            }
            RegionMode::Iterations => {
                for op in body.iter().filter(|o| LOOPS.contains(&o.name().as_str())) {
                    // scf.while runs its body in the second ("after")
                    // region. A spin loop does all its work in the first
                    // ("before": the condition) and has an empty body:
                    // records there would make a second block of it, and
                    // LLVM's loop rotation then copies the condition's
                    // work (an atomic, in upstream's concurrent-kernels)
                    // in front of the loop. Its iteration is the
                    // condition, recorded on every evaluation.
                    let regions = op.regions();
                    let empty_body = |r: &super::ir::Region| {
                        r.first_block()
                            .is_some_and(|b| b.first_op().is_some() && b.first_op() == b.terminator())
                    };
                    let Some(r) = (match regions.as_slice() {
                        [before, after] if op.name() == "scf.while" && empty_body(after) => {
                            Some(before)
                        }
                        [_, after] if op.name() == "scf.while" => Some(after),
                        other => other.first(),
                    }) else {
                        continue;
                    };
                    let Some(b) = r.first_block() else { continue };
                    let (Some(first), Some(term)) = (b.first_op(), b.terminator()) else {
                        continue;
                    };
                    let name = site_name(&format!("iter@{}", short_loc(*op)), &mut counts);
                    insert_before(first, rec(*op, &name, true, RegionKind::Iteration));
                    insert_before(term, rec(*op, &name, false, RegionKind::Iteration));
                }
            }
            RegionMode::Ops(glob) => {
                let matcher = Glob::new(glob)
                    .map_err(|e| InstrumentError::Option(format!("bad ops glob `{glob}`: {e}")))?
                    .compile_matcher();
                for op in &body {
                    let n = op.name();
                    if n.starts_with("kperf") || is_terminator_like(*op) || !matcher.is_match(&n) {
                        continue;
                    }
                    let name = site_name(&n, &mut counts);
                    insert_before(*op, rec(*op, &name, true, RegionKind::Op));
                    insert_after(*op, rec(*op, &name, false, RegionKind::Op));
                }
            }
            RegionMode::Async => insert_async(ctx, &body, &mut counts)?,
            RegionMode::Probe(n) => {
                let entry = f.regions()[0]
                    .first_block()
                    .expect("kernel has a body (checked by find_kernels)");
                let first = entry.first_op().ok_or_else(|| InstrumentError::At {
                    location: f.loc_string(),
                    message: "kernel body is empty".into(),
                })?;
                for i in 0..*n {
                    let name = format!("probe#{i}");
                    insert_before(first, rec(f, &name, true, RegionKind::Explicit));
                }
                for i in (0..*n).rev() {
                    let name = format!("probe#{i}");
                    insert_before(first, rec(f, &name, false, RegionKind::Explicit));
                }
            }
            RegionMode::Calls(_) | RegionMode::Asm(_) => {
                return Err(InstrumentError::Option(
                    "calls=<glob> and asm=<regex> apply to LLVM IR input; in MLIR, bracket ops with ops=<glob> (e.g. ops=llvm.call, ops=llvm.inline_asm)".into(),
                ))
            }
        }
    }
    Ok(())
}

/// The paper's pattern: START(issue) before the async issue, END(issue)
/// right before the wait, START(wait) right after it. Replay measures the
/// wait as CLK(START wait) − CLK(END issue), where the record costs cancel.
///
/// Three passes, so that a wait is paired with the issue it really retires:
/// 1. Issues outside loops pair with the first later wait that can retire
///    them ([`retiring_wait`]). The wait may sit outside the branch that
///    issues: upstream TMA kernels issue under `scf.if %tid == 0` and every
///    thread waits after it. Then the three records go in the wait's block,
///    START(issue) before the branch, so every thread records all three.
///    Several issues that share both anchors are one region.
/// 2. Software pipelines ([`pipeline`]): a loop whose wait retires the
///    issue of an earlier iteration or of the prologue before the loop.
/// 3. Issues in loops that no pipeline took pair within their iteration.
fn insert_async(ctx: MlirContext, body: &[Op], counts: &mut HashMap<String, usize>) -> Result<()> {
    let issues: Vec<Op> = body.iter().copied().filter(is_async_issue).collect();
    let mut claimed: Vec<Op> = Vec::new();
    let mut placed: Vec<(Op, Op)> = Vec::new();
    for issue in issues.iter().filter(|i| enclosing_loop(**i).is_none()) {
        pair_with_retiring_wait(ctx, *issue, &mut placed, &mut claimed, counts);
    }
    for l in body.iter().filter(|o| LOOPS.contains(&o.name().as_str())) {
        for family in [
            AsyncFamily::Mbarrier,
            AsyncFamily::CpAsync,
            AsyncFamily::BulkGroup,
            AsyncFamily::Wgmma,
        ] {
            if let Some(p) = pipeline(*l, family, body, &claimed) {
                place_pipeline(ctx, &p, counts);
                claimed.extend(p.taken);
            }
        }
    }
    let in_loops: Vec<Op> = issues
        .iter()
        .copied()
        .filter(|i| enclosing_loop(*i).is_some() && !claimed.contains(i))
        .collect();
    for issue in &in_loops {
        pair_with_retiring_wait(ctx, *issue, &mut placed, &mut claimed, counts);
    }
    Ok(())
}

/// `async:<op>` for an issue: the op name without its dialect
/// (`nvgpu.tma.async.load` → `async:tma.async.load`), numbered per kernel.
fn async_region_name(issue: Op, counts: &mut HashMap<String, usize>) -> String {
    let full = issue.name();
    let short = full.split_once('.').map_or(full.as_str(), |(_, rest)| rest);
    site_name(&format!("async:{short}"), counts)
}

/// END(issue) before the wait unit and START(wait) after it, naming the
/// issue region it pairs with.
fn place_wait_records(ctx: MlirContext, wait: Op, base: &str) {
    let wait_name = format!("wait:{}", base.trim_start_matches("async:"));
    insert_before(
        wait,
        make_record(ctx, wait.location(), base, false, RegionKind::AsyncIssue),
    );
    let w = make_record(
        ctx,
        wait.location(),
        &wait_name,
        true,
        RegionKind::AsyncWait,
    );
    unsafe {
        let a = mlirStringAttrGet(ctx, sref(base));
        mlirOperationSetAttributeByName(w, sref("pairs_with"), a);
    }
    insert_after(wait, w);
}

fn pair_with_retiring_wait(
    ctx: MlirContext,
    issue: Op,
    placed: &mut Vec<(Op, Op)>,
    claimed: &mut Vec<Op>,
    counts: &mut HashMap<String, usize>,
) {
    let Some((from, wait)) = retiring_wait(issue) else {
        return;
    };
    claimed.push(issue);
    if placed.contains(&(from, wait)) {
        return;
    }
    placed.push((from, wait));
    let base = async_region_name(issue, counts);
    insert_before(
        from,
        make_record(ctx, issue.location(), &base, true, RegionKind::AsyncIssue),
    );
    place_wait_records(ctx, wait, &base);
}

fn async_family(table: &[(&str, AsyncFamily)], op: Op) -> Option<AsyncFamily> {
    let n = op.name();
    table.iter().find(|(k, _)| *k == n).map(|(_, f)| *f)
}

fn issue_family(op: Op) -> Option<AsyncFamily> {
    async_family(ASYNC_ISSUE, op)
}

fn wait_family(op: Op) -> Option<AsyncFamily> {
    async_family(ASYNC_WAIT, op)
}

fn is_async_wait(op: &Op) -> bool {
    wait_family(*op).is_some()
}

fn is_async_issue(op: &Op) -> bool {
    issue_family(*op).is_some()
}

/// The mbarrier group an op arrives on or waits for (nvgpu's TMA loads and
/// `mbarrier.try_wait`), which ties a wait to the issues it retires.
fn mbarrier_operand(op: Op) -> Option<MlirValue> {
    (0..op.num_operands())
        .map(|i| op.operand(i))
        .find(|v| super::ir::type_string(v.ty()).starts_with("!nvgpu.mbarrier.group"))
        .map(|v| v.0)
}

/// Whether the wait op `wait` can retire `issue`: only within one family,
/// and a wait on another mbarrier group cannot; without barriers on both
/// sides (cp.async groups, wgmma groups) program order decides.
fn can_retire(wait: Op, issue: Op) -> bool {
    let (Some(w), Some(i)) = (wait_family(wait), issue_family(issue)) else {
        return false;
    };
    if w != i {
        return false;
    }
    if let Some(sources) = token_sources(wait) {
        return sources.contains(&issue);
    }
    match (mbarrier_operand(issue), mbarrier_operand(wait)) {
        (Some(b), Some(w)) => unsafe { mlirValueEqual(b, w) },
        _ => true,
    }
}

/// The copies an `nvgpu.device_async_wait` waits for, read from the token
/// it consumes: one copy's token, or a `device_async_create_group` of
/// copies' tokens. None when the token comes from elsewhere (a value
/// carried around a loop), and program order decides.
fn token_sources(wait: Op) -> Option<Vec<Op>> {
    if wait.name() != "nvgpu.device_async_wait" || wait.num_operands() == 0 {
        return None;
    }
    let def = wait.operand(0).defining_op()?;
    match def.name().as_str() {
        "nvgpu.device_async_copy" => Some(vec![def]),
        "nvgpu.device_async_create_group" => (0..def.num_operands())
            .map(|i| def.operand(i).defining_op())
            .collect(),
        _ => None,
    }
}

/// The innermost loop around `op` inside its function, if any.
fn enclosing_loop(op: Op) -> Option<Op> {
    let mut cur = op.parent();
    while let Some(p) = cur {
        let n = p.name();
        if matches!(n.as_str(), "func.func" | "gpu.func" | "llvm.func") {
            return None;
        }
        if LOOPS.contains(&n.as_str()) {
            return Some(p);
        }
        cur = p.parent();
    }
    None
}

fn is_branch(op: Op) -> bool {
    matches!(
        op.name().as_str(),
        "scf.if" | "scf.execute_region" | "scf.index_switch"
    )
}

/// Where the records of `issue`'s async pair go: `(from, wait)`, with
/// START(issue) before `from` and the wait pair around `wait`, both in one
/// block. The wait is the first later op that can retire the issue: a wait
/// op, a branch holding one, or a spin loop (`scf.while` around
/// `try_wait`) that issues nothing, bracketed whole. The search leaves the
/// issue's block upwards through branches (`scf.if`, `scf.execute_region`,
/// `scf.index_switch`), never out of a loop body or the kernel, and `from`
/// is then the branch holding the issue. It ends without a pair at an op
/// that issues async work of its own (its waits belong to its own issues)
/// and at a counted loop that waits (a software pipeline consuming the
/// prologue, [`pipeline`]'s to pair; bracketing it would count the loop's
/// work as waiting).
fn retiring_wait(issue: Op) -> Option<(Op, Op)> {
    let mut from = issue;
    loop {
        let mut cur = from.next();
        while let Some(op) = cur {
            if is_async_wait(&op) {
                if can_retire(op, issue) {
                    return Some((from, op));
                }
            } else {
                let nested = op.nested_ops();
                if nested.iter().any(is_async_issue) {
                    return None;
                }
                if nested.iter().any(|w| can_retire(*w, issue)) {
                    let counted_loop =
                        LOOPS.contains(&op.name().as_str()) && op.name() != "scf.while";
                    return (!counted_loop).then_some((from, op));
                }
            }
            cur = op.next();
        }
        let parent = from.parent()?;
        if !is_branch(parent) {
            return None;
        }
        from = parent;
    }
}

/// One software pipeline of a loop (see [`pipeline`]).
struct Pipeline {
    /// START(issue) goes before each: one per prologue stage, then the
    /// loop's first issue of the family when the loop issues.
    starts: Vec<Op>,
    /// The loop's wait unit: END(issue) before it, START(wait) after it.
    wait: Op,
    /// The issue that names the region.
    named_by: Op,
    /// Every issue the pipeline accounts for.
    taken: Vec<Op>,
}

/// A software pipeline in loop `l` for one family: the loop's first wait
/// retires an issue made before it, by the prologue (issues before the
/// loop, outside other loops, that no wait retires before the loop) or
/// by an earlier iteration. Upstream's sm_90 GEMMs issue two stages under
/// `scf.if` and the K loop only waits and multiplies; Triton-style loops
/// wait for the oldest stage and issue the next.
///
/// One region per stage, the paper's two-START pattern: START(issue)
/// before each prologue stage and before the loop's first issue of the
/// family, END(issue) before the loop's wait and START(wait) after it.
/// Replay pairs the k-th START(wait) of a unit with its oldest unconsumed
/// START(issue), which is the stage the wait retires when each wait
/// retires one stage. When the loop issues, a prologue stage is as many
/// issues as one iteration makes, and a prologue that is not a whole
/// number of stages is no pipeline. When the loop only consumes, each
/// top-level op of the prologue that issues (a branch, or a lone issue)
/// is one stage, and the loop must run exactly once per stage: a constant
/// trip count, equal to the stages.
fn pipeline(l: Op, family: AsyncFamily, body: &[Op], claimed: &[Op]) -> Option<Pipeline> {
    let own: Vec<Op> = l
        .nested_ops()
        .into_iter()
        .filter(|o| enclosing_loop(*o) == Some(l))
        .collect();
    // The first wait unit of the family: a wait op, or a spin loop around one.
    let (wait, wait_op) = own.iter().find_map(|o| {
        if wait_family(*o) == Some(family) {
            return Some((*o, *o));
        }
        if o.name() != "scf.while" {
            return None;
        }
        let nested = o.nested_ops();
        if nested.iter().any(is_async_issue) {
            return None;
        }
        nested
            .into_iter()
            .find(|w| wait_family(*w) == Some(family))
            .map(|w| (*o, w))
    })?;
    let retired = |i: &Op| !claimed.contains(i) && can_retire(wait_op, *i);
    let in_loop: Vec<Op> = own.iter().copied().filter(retired).collect();
    let at = body.iter().position(|o| *o == l)?;
    let mut prologue: Vec<(Op, Op)> = Vec::new();
    for (k, issue) in body[..at].iter().enumerate().filter(|(_, i)| retired(i)) {
        let waited_before_loop = body[k + 1..at].iter().any(|w| can_retire(*w, *issue));
        if waited_before_loop {
            continue;
        }
        if let Some(anchor) = prologue_anchor(*issue, l) {
            prologue.push((*issue, anchor));
        }
    }
    let (first, _) = *prologue.first()?;
    let mut starts: Vec<Op> = if in_loop.is_empty() {
        let mut stages: Vec<(StageKey, Op)> = prologue
            .iter()
            .map(|(i, a)| (stage_key(*i, *a), *a))
            .collect();
        stages.dedup_by(|b, a| a.0 == b.0);
        if constant_trip_count(l) != Some(stages.len() as i64) {
            return None;
        }
        stages.into_iter().map(|(_, a)| a).collect()
    } else {
        if !prologue.len().is_multiple_of(in_loop.len()) {
            return None;
        }
        prologue.chunks(in_loop.len()).map(|c| c[0].1).collect()
    };
    if let Some(i) = in_loop.first() {
        starts.push(ancestor_in_body_of(*i, l)?);
    }
    Some(Pipeline {
        starts,
        wait,
        named_by: first,
        taken: prologue.iter().map(|(i, _)| *i).chain(in_loop).collect(),
    })
}

fn place_pipeline(ctx: MlirContext, p: &Pipeline, counts: &mut HashMap<String, usize>) {
    let base = async_region_name(p.named_by, counts);
    for s in &p.starts {
        insert_before(
            *s,
            make_record(
                ctx,
                p.named_by.location(),
                &base,
                true,
                RegionKind::AsyncIssue,
            ),
        );
    }
    place_wait_records(ctx, p.wait, &base);
}

/// What makes prologue issues one stage of a consume-only pipeline.
#[derive(PartialEq)]
enum StageKey {
    /// The branch that holds them (upstream's `scf.if %tid == 0 { ... }`).
    Branch(Op),
    /// The mbarrier slot they complete on (predicated issues in a row).
    Slot(Value),
    /// A lone issue.
    Issue(Op),
}

fn stage_key(issue: Op, anchor: Op) -> StageKey {
    if anchor != issue {
        return StageKey::Branch(anchor);
    }
    match mbarrier_slot(issue) {
        Some(v) => StageKey::Slot(v),
        None => StageKey::Issue(issue),
    }
}

/// The mbarrier index (`%bars[%i]`) of an `nvgpu.tma.async.load`, located
/// by its operand segments: dst, barriers, descriptor, coordinates, mbarId.
fn mbarrier_slot(issue: Op) -> Option<Value> {
    if issue.name() != "nvgpu.tma.async.load" {
        return None;
    }
    let seg = issue.attr("operandSegmentSizes")?;
    let n = unsafe { mlirDenseArrayGetNumElements(seg) };
    if n < 5 {
        return None;
    }
    let at: i32 = (0..4)
        .map(|i| unsafe { mlirDenseI32ArrayGetElement(seg, i) })
        .sum();
    (at >= 0 && (at as isize) < issue.num_operands()).then(|| issue.operand(at as isize))
}

/// Where START(issue) goes for a prologue issue of loop `l`: the issue, or
/// the branch holding it, in a block that holds `l`, so the record
/// dominates the loop. None when the issue is in another loop.
fn prologue_anchor(issue: Op, l: Op) -> Option<Op> {
    let mut anchor = issue;
    loop {
        let block = anchor.block()?;
        let mut x = l;
        while let Some(xb) = x.block() {
            if xb == block {
                return Some(anchor);
            }
            x = x.parent()?;
        }
        let parent = anchor.parent()?;
        if !is_branch(parent) {
            return None;
        }
        anchor = parent;
    }
}

/// The ancestor of `op` (or `op`) directly in the body of loop `l`.
fn ancestor_in_body_of(op: Op, l: Op) -> Option<Op> {
    let mut x = op;
    loop {
        let parent = x.parent()?;
        if parent == l {
            return Some(x);
        }
        x = parent;
    }
}

/// Iterations of an `scf.for` whose bounds and step the file fixes:
/// constants in the kernel, or kernel arguments every launch in the file
/// passes as the same constant (upstream GEMMs' `0 to 2 step 1`).
fn constant_trip_count(l: Op) -> Option<i64> {
    if l.name() != "scf.for" || l.num_operands() < 3 {
        return None;
    }
    let f = innermost_function(l)?;
    let known = |i: isize| super::launch::known_index(f, l.operand(i));
    let (lb, ub, step) = (known(0)?, known(1)?, known(2)?);
    if step <= 0 {
        return None;
    }
    Some(((ub - lb).max(0) + step - 1) / step)
}

fn is_terminator_like(op: Op) -> bool {
    op.next().is_none() && op.block().and_then(|b| b.terminator()) == Some(op)
}

fn short_loc(op: Op) -> String {
    let l = op.loc_string();
    // keep `line:col` (the file is the same for the whole kernel)
    let parts: Vec<&str> = l.rsplitn(3, ':').collect();
    if parts.len() == 3 {
        format!("{}:{}", parts[1], parts[0])
    } else {
        l
    }
}

/// The nearest enclosing function-like op.
pub fn innermost_function(op: Op) -> Option<Op> {
    let mut cur = op.parent();
    while let Some(p) = cur {
        if matches!(p.name().as_str(), "func.func" | "gpu.func" | "llvm.func") {
            return Some(p);
        }
        cur = p.parent();
    }
    None
}

/// One `kperf.record` site.
#[derive(Clone, Debug)]
pub struct RecordSite {
    pub op: Op,
    pub name: String,
    pub is_start: bool,
    pub kind: RegionKind,
    pub pairs_with: Option<String>,
}

pub fn record_sites(f: Op) -> Vec<RecordSite> {
    f.nested_ops()
        .into_iter()
        .filter(|o| o.name() == ops::RECORD)
        .map(|op| RecordSite {
            op,
            name: op.str_attr("name").unwrap_or_default(),
            is_start: op.int_attr("is_start").unwrap_or(0) != 0,
            kind: op
                .str_attr("kind")
                .map(|k| kind_from_str(&k))
                .unwrap_or(RegionKind::Explicit),
            pairs_with: op.str_attr("pairs_with"),
        })
        .collect()
}

/// Every region must open and close: a start with no end, an end with no
/// start, and a start that does not dominate its end are errors naming the
/// region and where it is. Async-wait regions are a lone START by design.
pub fn check_balance(f: Op) -> Result<()> {
    let sites = record_sites(f);
    let mut by_name: BTreeMap<&str, (Vec<&RecordSite>, Vec<&RecordSite>)> = BTreeMap::new();
    for s in &sites {
        if s.name.is_empty() {
            return Err(InstrumentError::At {
                location: s.op.loc_string(),
                message: "kperf.record without a `name`".into(),
            });
        }
        let e = by_name.entry(&s.name).or_default();
        if s.is_start {
            e.0.push(s)
        } else {
            e.1.push(s)
        }
    }
    for (name, (starts, ends)) in by_name {
        let wait_only = starts.iter().all(|s| s.kind == RegionKind::AsyncWait);
        if wait_only && ends.is_empty() {
            continue;
        }
        if let Some(s) = starts.first().filter(|_| ends.is_empty()) {
            return Err(unbalanced(name, s.op, "start with no end"));
        }
        if let Some(e) = ends.first().filter(|_| starts.is_empty()) {
            return Err(unbalanced(name, e.op, "end with no start"));
        }
        for e in &ends {
            if !starts.iter().any(|s| dominates(s.op, e.op)) {
                return Err(unbalanced(name, e.op, "end is not dominated by any start of the region (misordered or on another path)"));
            }
        }
        for s in &starts {
            // A pipelined loop's START(issue) follows the loop's wait: it
            // reaches the END of the next iteration over the back edge.
            let next_iteration = s.kind == RegionKind::AsyncIssue
                && enclosing_loop(s.op)
                    .is_some_and(|l| ends.iter().any(|e| enclosing_loop(e.op) == Some(l)));
            if !next_iteration && !ends.iter().any(|e| dominates(s.op, e.op)) {
                return Err(unbalanced(
                    name,
                    s.op,
                    "start does not dominate any end of the region",
                ));
            }
        }
    }
    Ok(())
}

fn unbalanced(region: &str, op: Op, problem: &str) -> InstrumentError {
    InstrumentError::Unbalanced {
        region: region.to_string(),
        location: op.loc_string(),
        problem: problem.to_string(),
    }
}
