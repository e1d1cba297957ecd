//! Ordering records with the work they measure (`--ordering strict`, the
//! host's default).
//!
//! A record is a clock read and a store; nothing ties the region's own
//! arithmetic to it, so an optimizer may move that arithmetic across it.
//! On the host, LLVM's O3 pipeline and instruction selection did: both
//! clock reads of a loop iteration ended up before its 64-operation chain,
//! and the iteration measured 18% of its work. ptxas keeps program order
//! around its clock reads (kperf cost's region fidelity shows 100% on the
//! corpus), but LLVM's O3 pipeline on the MLIR path may not.
//!
//! Pinning gives the order a data dependence, for each region whose START
//! and END are in one block: right after START, the scalar values the
//! region uses from outside (constants aside) pass through an empty side-effecting inline asm
//! ("this may change them"), so the region's work depends on something that
//! happens after the START clock read; right before END, an empty
//! side-effecting asm takes the scalar values the region hands to later
//! code, so they are computed before the END clock read. No instruction is
//! emitted for the asm itself; the values it holds stay in registers.

use super::ir::{type_string, Op, Value};
use super::KperfContext;
use crate::error::Result;
use crate::options::Target;
use kperf_dialects::irdl::ops;
use mlir_sys::*;
use std::collections::HashSet;

/// The inline-asm register constraint for a scalar of MLIR type `t` on
/// `target`, and the LLVM type the asm sees (`index` goes through i64).
fn constraint(target: &Target, t: &str) -> Option<(&'static str, &'static str)> {
    let ty = match t {
        "index" | "i64" => "i64",
        "i32" => "i32",
        "i16" => "i16",
        "f32" => "f32",
        "f64" => "f64",
        _ => return None,
    };
    let c = match (target, ty) {
        (Target::Host, "f32" | "f64") => "x",
        (Target::Host, _) => "r",
        (Target::Nvptx { .. }, "i64") => "l",
        (Target::Nvptx { .. }, "i32") => "r",
        (Target::Nvptx { .. }, "i16") => "h",
        (Target::Nvptx { .. }, "f32") => "f",
        (Target::Nvptx { .. }, "f64") => "d",
        _ => return None,
    };
    Some((c, ty))
}

fn is_record(op: Op, start: bool, name: &str) -> bool {
    op.name() == ops::RECORD
        && (op.int_attr("is_start").unwrap_or(0) != 0) == start
        && op.str_attr("name").as_deref() == Some(name)
}

/// Pin every single-block region of kernel `f`; returns how many.
pub fn pin_regions(kctx: &KperfContext, f: Op, target: &Target) -> Result<usize> {
    if matches!(target, Target::Amdgpu { .. }) {
        return Ok(0);
    }
    let mut blocks = Vec::new();
    for op in std::iter::once(f).chain(f.nested_ops()) {
        for r in op.regions() {
            blocks.extend(r.blocks());
        }
    }
    let mut pinned = 0;
    for b in blocks {
        let list = b.ops();
        for (i, start) in list.iter().enumerate() {
            if start.name() != ops::RECORD || start.int_attr("is_start").unwrap_or(0) == 0 {
                continue;
            }
            let name = start.str_attr("name").unwrap_or_default();
            let Some(j) = (i + 1..list.len()).find(|&j| is_record(list[j], false, &name)) else {
                continue;
            };
            let inner: Vec<Op> = list[i + 1..j]
                .iter()
                .copied()
                .filter(|o| o.name() != ops::RECORD)
                .collect();
            if inner.is_empty() {
                continue;
            }
            pin_one(kctx, target, *start, list[j], &inner)?;
            pinned += 1;
        }
    }
    Ok(pinned)
}

fn value_key(v: Value) -> usize {
    v.0.ptr as usize
}

/// Is `op` one of `inner` or nested in one of them?
fn inside(mut op: Op, inner: &HashSet<usize>) -> bool {
    loop {
        if inner.contains(&(op.0.ptr as usize)) {
            return true;
        }
        match op.parent() {
            Some(p) => op = p,
            None => return false,
        }
    }
}

fn pin_one(kctx: &KperfContext, target: &Target, start: Op, end: Op, inner: &[Op]) -> Result<()> {
    let inner_set: HashSet<usize> = inner.iter().map(|o| o.0.ptr as usize).collect();
    let all: Vec<Op> = inner
        .iter()
        .flat_map(|o| std::iter::once(*o).chain(o.nested_ops()))
        .collect();
    let mut defined: HashSet<usize> = HashSet::new();
    for op in &all {
        for k in 0..op.num_results() {
            defined.insert(value_key(op.result(k)));
        }
        for r in op.regions() {
            for blk in r.blocks() {
                for k in 0..blk.num_args() {
                    defined.insert(value_key(blk.arg(k)));
                }
            }
        }
    }
    // Live-ins: scalars used inside, defined outside. Not an affine op's
    // operands: a value through the asm is no longer a valid affine
    // dimension or symbol (`affine.load %m[%i, %k - 1]` with `%i` of an
    // outer loop: "operand cannot be used as a dimension id").
    let mut ins: Vec<Value> = Vec::new();
    let mut seen = HashSet::new();
    // Nor constants: no work hides in them, and a loop bound or step
    // through the asm is no longer known, so LLVM no longer vectorized or
    // unrolled the loop (a streaming phase ran at half speed pinned, +60
    // to +115% against its time unpinned).
    for op in all.iter().filter(|o| !is_affine(**o)) {
        for k in 0..op.num_operands() {
            let v = op.operand(k);
            let key = value_key(v);
            if !defined.contains(&key)
                && !is_constant(v)
                && constraint(target, &type_string(v.ty())).is_some()
                && seen.insert(key)
            {
                ins.push(v);
            }
        }
    }
    // Live-outs: scalar results of the region's ops used after it.
    let mut outs: Vec<Value> = Vec::new();
    for op in inner {
        for k in 0..op.num_results() {
            let v = op.result(k);
            if constraint(target, &type_string(v.ty())).is_none() {
                continue;
            }
            if uses(v).into_iter().any(|u| !inside(u, &inner_set)) {
                outs.push(v);
            }
        }
    }
    if !ins.is_empty() {
        let anchor = start.next().expect("a START has the region after it");
        let pinned = splice(kctx, anchor, &pin_in_text(target, &ins), &ins)?;
        for (old, new) in ins.iter().zip(pinned) {
            for (owner, k) in operand_uses(*old) {
                if inside(owner, &inner_set) && !is_affine(owner) {
                    unsafe { mlirOperationSetOperand(owner.0, k, new.0) };
                }
            }
        }
    }
    if !outs.is_empty() {
        splice(kctx, end, &pin_out_text(target, &outs), &outs)?;
    }
    Ok(())
}

/// A value a constant op defines.
fn is_constant(v: Value) -> bool {
    v.defining_op().is_some_and(|o| {
        matches!(
            o.name().as_str(),
            "arith.constant" | "llvm.mlir.constant" | "index.constant"
        )
    })
}

/// An op of the affine dialect, whose index operands must stay valid
/// dimensions or symbols.
fn is_affine(op: Op) -> bool {
    op.name().starts_with("affine.")
}

/// The ops using `v`, once per use.
fn uses(v: Value) -> Vec<Op> {
    operand_uses(v).into_iter().map(|(o, _)| o).collect()
}

/// (user, operand index) of every use of `v`.
fn operand_uses(v: Value) -> Vec<(Op, isize)> {
    let mut out = Vec::new();
    let mut u = unsafe { mlirValueGetFirstUse(v.0) };
    while !u.ptr.is_null() {
        let owner = Op(unsafe { mlirOpOperandGetOwner(u) });
        let k = unsafe { mlirOpOperandGetOperandNumber(u) } as isize;
        out.push((owner, k));
        u = unsafe { mlirOpOperandGetNextUse(u) };
    }
    out
}

/// A function taking `vals` and returning them through one empty
/// side-effecting asm with tied outputs.
fn pin_in_text(target: &Target, vals: &[Value]) -> String {
    let tys: Vec<String> = vals.iter().map(|v| type_string(v.ty())).collect();
    let mut body = String::new();
    let mut asm_in = Vec::new();
    let mut asm_ty = Vec::new();
    let mut cons_out = Vec::new();
    for (k, t) in tys.iter().enumerate() {
        let (c, lt) = constraint(target, t).expect("filtered");
        let name = if t == "index" {
            body.push_str(&format!(
                "    %c{k} = arith.index_cast %a{k} : index to i64\n"
            ));
            format!("%c{k}")
        } else {
            format!("%a{k}")
        };
        asm_in.push(name);
        asm_ty.push(lt.to_string());
        cons_out.push(format!("={c}"));
    }
    let ties: Vec<String> = (0..vals.len()).map(|k| k.to_string()).collect();
    let cons = format!("{},{}", cons_out.join(","), ties.join(","));
    let result_ty = if vals.len() == 1 {
        asm_ty[0].clone()
    } else {
        format!("!llvm.struct<({})>", asm_ty.join(", "))
    };
    body.push_str(&format!(
        "    %s = llvm.inline_asm has_side_effects asm_dialect = att \"\", \"{cons}\" {} : ({}) -> {result_ty}\n",
        asm_in.join(", "),
        asm_ty.join(", ")
    ));
    let mut rets = Vec::new();
    for (k, t) in tys.iter().enumerate() {
        let v = if vals.len() == 1 {
            "%s".to_string()
        } else {
            body.push_str(&format!(
                "    %e{k} = llvm.extractvalue %s[{k}] : {result_ty}\n"
            ));
            format!("%e{k}")
        };
        if t == "index" {
            body.push_str(&format!(
                "    %r{k} = arith.index_cast {v} : i64 to index\n"
            ));
            rets.push(format!("%r{k}"));
        } else {
            rets.push(v);
        }
    }
    let params: Vec<String> = tys
        .iter()
        .enumerate()
        .map(|(k, t)| format!("%a{k}: {t}"))
        .collect();
    format!(
        "func.func @pin({}) -> ({}) {{\n{body}    return {} : {}\n}}\n",
        params.join(", "),
        tys.join(", "),
        rets.join(", "),
        tys.join(", ")
    )
}

/// A function handing `vals` to one empty side-effecting asm.
fn pin_out_text(target: &Target, vals: &[Value]) -> String {
    let tys: Vec<String> = vals.iter().map(|v| type_string(v.ty())).collect();
    let mut body = String::new();
    let (mut names, mut asm_ty, mut cons) = (Vec::new(), Vec::new(), Vec::new());
    for (k, t) in tys.iter().enumerate() {
        let (c, lt) = constraint(target, t).expect("filtered");
        if t == "index" {
            body.push_str(&format!(
                "    %c{k} = arith.index_cast %a{k} : index to i64\n"
            ));
            names.push(format!("%c{k}"));
        } else {
            names.push(format!("%a{k}"));
        }
        asm_ty.push(lt.to_string());
        cons.push(c.to_string());
    }
    body.push_str(&format!(
        "    llvm.inline_asm has_side_effects asm_dialect = att \"\", \"{}\" {} : ({}) -> ()\n",
        cons.join(","),
        names.join(", "),
        asm_ty.join(", ")
    ));
    let params: Vec<String> = tys
        .iter()
        .enumerate()
        .map(|(k, t)| format!("%a{k}: {t}"))
        .collect();
    format!(
        "func.func @pin({}) {{\n{body}    return\n}}\n",
        params.join(", ")
    )
}

/// Parse `text` (one `func.func`) and move its body before `anchor` with
/// `args` for its arguments; returns what it returns.
fn splice(kctx: &KperfContext, anchor: Op, text: &str, args: &[Value]) -> Result<Vec<Value>> {
    let m = kctx.parse(&format!("module {{\n{text}}}\n"), "<kperf pin>")?;
    let func = super::module_op(&m).regions()[0]
        .first_block()
        .and_then(|b| b.first_op())
        .expect("pin function");
    let out = super::lower::instantiate(func, "pin", anchor, args);
    drop(m);
    out
}
