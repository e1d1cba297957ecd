//! `gpu.launch` bodies to `gpu.func` kernels, as the upstream NVVM pipeline
//! would, but early enough for kperf's passes to see the kernel's own ops.
//!
//! Upstream (`gpu-lower-to-nvvm-pipeline`) converts nvgpu to NVVM *before*
//! outlining, so a launch that captures a host-built
//! `!nvgpu.tensormap.descriptor` (every sm_90 TMA kernel) outlines into a
//! kernel taking an `!llvm.ptr`. kperf outlines first, to insert records
//! around `nvgpu.*` ops, and the outlined `gpu.func` would then take the
//! nvgpu type itself, which no later conversion legalizes ("failed to
//! legalize gpu.func"). So before outlining, each captured descriptor
//! crosses the launch boundary as a pointer: cast to `!llvm.ptr` on the
//! host, cast back as the body's first op. Inside, every nvgpu op still
//! sees its descriptor type; `convert-nvgpu-to-nvvm` later lowers the
//! descriptor to the same pointer, and `reconcile-unrealized-casts` folds
//! each cast pair away, leaving what the upstream order produces.

use super::ir::{sref, type_string, Op, Value};
use super::{module_op, KperfContext};
use crate::error::Result;
use melior::ir::Module;
use mlir_sys::*;
use std::collections::HashSet;

/// Types that cross the launch boundary as `!llvm.ptr` (the type
/// convert-nvgpu-to-nvvm gives them).
const POINTER_LIKE_NVGPU_TYPES: &[&str] = &["!nvgpu.tensormap.descriptor"];

/// Outline every `gpu.launch` of the module (`gpu-kernel-outlining`), with
/// captured nvgpu descriptors passed as pointers.
pub fn outline_launches(
    kctx: &KperfContext,
    module: &mut Module,
    sink_scalars: bool,
) -> Result<()> {
    let launches: Vec<Op> = module_op(module)
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "gpu.launch")
        .collect();
    if launches.is_empty() {
        return Ok(());
    }
    let ctx = kctx.ctx.to_raw();
    for launch in launches {
        pass_descriptors_as_pointers(ctx, launch);
        sink_constants(launch, sink_scalars);
    }
    kctx.run_pipeline(module, "gpu-kernel-outlining")
}

/// Copy every vector or tensor `arith.constant` the launch body uses from
/// the host function into the body: upstream's outlining made a vector
/// constant (`dense<2.0> : vector<1xf32>`, as in MLIR's own
/// vector-distribution tests) a kernel parameter, which no launcher of
/// kperf's can pass. Scalars stay parameters, as upstream outlines them
/// (sinking them too changed the corpus kernels' code), unless
/// `scalars_too`: `kperf run`, whose launch spec gives the host function's
/// arguments, not constants it defines (they were kernel parameters the
/// spec had to repeat, and a guessed value ran with exit 0).
fn sink_constants(launch: Op, scalars_too: bool) {
    let Some(body) = launch.regions().first().and_then(|r| r.first_block()) else {
        return;
    };
    let Some(first) = body.first_op() else { return };
    let inner = launch.nested_ops();
    let mut sunk: Vec<(Value, Value)> = Vec::new();
    for op in &inner {
        for i in 0..op.num_operands() {
            let v = op.operand(i);
            let Some(def) = v.defining_op() else { continue };
            let shaped = {
                let t = type_string(v.ty());
                t.starts_with("vector<") || t.starts_with("tensor<")
            };
            if inner.contains(&def) {
                continue;
            }
            let constant = def.name() == "arith.constant" && (shaped || scalars_too);
            let computed = scalars_too && !constant && host_computes(v, launch, &mut Vec::new());
            if !constant && !computed {
                continue;
            }
            let copy = sink_value(v, body, first, &mut sunk);
            unsafe { mlirOperationSetOperand(op.0, i, copy.0) };
        }
    }
}

/// The most ops of one host computation [`sink_constants`] copies.
const MOST_SUNK_OPS: usize = 32;

/// Whether `v` is a scalar the host function around `launch` computes
/// with `arith`/`index` ops from constants and its own arguments alone
/// (`m = 2 * n`). Outlined, such a value became a kernel parameter that a
/// launch spec listing the host's arguments cannot give: the spec's `n`
/// was passed as `m`, with exit 0. Copied into the body, the kernel takes
/// `n` itself.
///
/// `seen` holds the values already found computable (each is looked at
/// once: a chain reusing its values, `x1 = x0 + x0`, `x2 = x1 + x1`, took
/// 2^n steps, and 26 of them held `kperf run` for more than 30 s); at most
/// [`MOST_SUNK_OPS`] ops are taken.
fn host_computes(v: Value, launch: Op, seen: &mut Vec<*const std::ffi::c_void>) -> bool {
    if seen.contains(&v.0.ptr) {
        return true;
    }
    if seen.len() >= MOST_SUNK_OPS {
        return false;
    }
    let Some(def) = v.defining_op() else {
        // A host argument, memref or scalar: the kernel takes it.
        return is_host_argument(v, launch);
    };
    let name = def.name();
    let ty = type_string(v.ty());
    let scalar = !ty.contains('<')
        && (ty == "index" || ty.starts_with('i') || ty.starts_with('f') || ty.starts_with("bf"));
    // Scalar arithmetic, a buffer's dimension and a cast of a buffer: the
    // same in the kernel, given the host's buffer.
    let pure = match name.as_str() {
        "memref.dim" | "memref.cast" => true,
        n => (n.starts_with("arith.") || n.starts_with("index.")) && scalar,
    };
    let computable = pure
        && def.num_results() == 1
        && def.regions().is_empty()
        && (0..def.num_operands()).all(|i| host_computes(def.operand(i), launch, seen));
    if computable {
        seen.push(v.0.ptr);
    }
    computable
}

/// Whether `v` is an argument of the entry block of the function whose
/// body holds `launch` (directly, or under an `scf.if`; a loop's counter is
/// its body's argument, not the function's).
fn is_host_argument(v: Value, launch: Op) -> bool {
    if !unsafe { mlirValueIsABlockArgument(v.0) } {
        return false;
    }
    let owner = unsafe { mlirBlockArgumentGetOwner(v.0) };
    let mut host = launch.parent();
    while let Some(h) = host.filter(|h| h.name() != "func.func") {
        host = h.parent();
    }
    let entry = host.and_then(|h| h.regions().first().and_then(|r| r.first_block()));
    entry.is_some_and(|e| e.0.ptr == owner.ptr)
}

/// The copy of host value `v` at the start of the launch body (before
/// `first`), with the ops it is computed by copied before it; host
/// arguments stay themselves (outlining makes them parameters).
fn sink_value(
    v: Value,
    body: super::ir::Block,
    first: Op,
    sunk: &mut Vec<(Value, Value)>,
) -> Value {
    if let Some((_, to)) = sunk
        .iter()
        .find(|(from, _)| unsafe { mlirValueEqual(from.0, v.0) })
    {
        return *to;
    }
    let Some(def) = v.defining_op() else {
        return v;
    };
    let operands: Vec<Value> = (0..def.num_operands())
        .map(|i| sink_value(def.operand(i), body, first, sunk))
        .collect();
    let clone = unsafe { mlirOperationClone(def.0) };
    for (i, o) in operands.iter().enumerate() {
        unsafe { mlirOperationSetOperand(clone, i as isize, o.0) };
    }
    body.insert_before(first, clone);
    let to = Value(unsafe { mlirOperationGetResult(clone, 0) });
    sunk.push((v, to));
    to
}

/// Values used inside `launch` and defined outside it whose type is one of
/// [`POINTER_LIKE_NVGPU_TYPES`], in first-use order.
fn captured_descriptors(launch: Op, inner: &[Op]) -> Vec<Value> {
    let mut defined: HashSet<*const std::ffi::c_void> = HashSet::new();
    for op in inner {
        for i in 0..op.num_results() {
            defined.insert(op.result(i).0.ptr);
        }
        for r in op.regions() {
            for b in r.blocks() {
                for i in 0..b.num_args() {
                    defined.insert(b.arg(i).0.ptr);
                }
            }
        }
    }
    for r in launch.regions() {
        for b in r.blocks() {
            for i in 0..b.num_args() {
                defined.insert(b.arg(i).0.ptr);
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for op in inner {
        for i in 0..op.num_operands() {
            let v = op.operand(i);
            if defined.contains(&v.0.ptr) || !is_pointer_like(v) || !seen.insert(v.0.ptr) {
                continue;
            }
            out.push(v);
        }
    }
    out
}

fn is_pointer_like(v: Value) -> bool {
    let t = type_string(v.ty());
    POINTER_LIKE_NVGPU_TYPES.iter().any(|p| t.starts_with(p))
}

fn pass_descriptors_as_pointers(ctx: MlirContext, launch: Op) {
    let Some(body) = launch.regions().first().and_then(|r| r.first_block()) else {
        return;
    };
    let Some(first) = body.first_op() else { return };
    let Some(host_block) = launch.block() else {
        return;
    };
    let ptr = unsafe { mlirTypeParseGet(ctx, sref("!llvm.ptr")) };
    let inner = launch.nested_ops();
    for desc in captured_descriptors(launch, &inner) {
        let at = launch.location();
        let to_ptr = cast(at, desc, ptr);
        host_block.insert_before(launch, to_ptr);
        let back = cast(
            at,
            Value(unsafe { mlirOperationGetResult(to_ptr, 0) }),
            desc.ty(),
        );
        body.insert_before(first, back);
        let back = Value(unsafe { mlirOperationGetResult(back, 0) });
        for op in &inner {
            for i in 0..op.num_operands() {
                if unsafe { mlirValueEqual(op.operand(i).0, desc.0) } {
                    unsafe { mlirOperationSetOperand(op.0, i, back.0) };
                }
            }
        }
    }
}

fn cast(loc: MlirLocation, from: Value, to: MlirType) -> MlirOperation {
    unsafe {
        let mut st = mlirOperationStateGet(sref("builtin.unrealized_conversion_cast"), loc);
        mlirOperationStateAddOperands(&mut st, 1, &from.0);
        mlirOperationStateAddResults(&mut st, 1, &to);
        mlirOperationCreate(&mut st)
    }
}
