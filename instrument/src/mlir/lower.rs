//! The two lowering steps:
//! 1. [`to_kperfgpu`]: `kperf.record` → `kperfgpu.read_counter` +
//!    `kperfgpu.circular_store`/`store_counter`, with `kperfgpu.local_alloc`
//!    and `kperfgpu.init` at entry and `kperfgpu.finalize` before each return.
//!    Region ids are assigned here; each store keeps its region's name, kind
//!    and location so a hand-edited `kperfgpu` module is self-describing.
//! 2. [`to_llvm`]: each `kperfgpu` op → the target's template
//!    ([`super::templates`]), the profile-buffer argument added to the kernel.

use super::ir::{self, sref, type_string, Op, Value};
use super::launch;
use super::regions::{self, is_return, named_attr, record_sites, serde_json_kind};
use super::templates::{self, LoweringConfig, INIT_RESULTS};
use super::KperfContext;
use crate::error::{InstrumentError, Result};
use crate::options::{InstrumentOptions, Target};
use crate::plan::{RegionTable, SiteInfo};
use kperf_dialects::abi::{Counter, Edge, Layout, RegionId, Strategy, MAX_REGION_ID};
use kperf_dialects::irdl::ops;
use kperf_dialects::meta::{
    BufferKind, CtaSampling, Granularity, KernelMeta, RegionKind, RegionMeta,
};
use mlir_sys::*;
use std::collections::HashMap;

/// Number of trailing `index` arguments the host ABI adds (block xyz, grid xyz).
pub const HOST_GRID_ARG_COUNT: isize = 6;

fn ctx_of(op: Op) -> MlirContext {
    unsafe { mlirLocationGetContext(op.location()) }
}

fn str_attr(ctx: MlirContext, s: &str) -> MlirAttribute {
    unsafe { mlirStringAttrGet(ctx, sref(s)) }
}
fn int_attr(ctx: MlirContext, bits: u32, v: i64) -> MlirAttribute {
    unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, bits), v) }
}

fn create(
    name: &str,
    loc: MlirLocation,
    attrs: &[MlirNamedAttribute],
    operands: &[MlirValue],
    results: &[MlirType],
) -> MlirOperation {
    unsafe {
        let mut st = mlirOperationStateGet(sref(name), loc);
        mlirOperationStateAddAttributes(&mut st, attrs.len() as isize, attrs.as_ptr());
        mlirOperationStateAddOperands(&mut st, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut st, results.len() as isize, results.as_ptr());
        mlirOperationCreate(&mut st)
    }
}

use crate::plan::block_threads as threads;

/// Threads per CTA: `known_block_size` (set by gpu-kernel-outlining for
/// constant launches), Triton's `nvvm.reqntid`, or the user's `--block`.
pub(crate) fn block_shape(f: Op, opts: &InstrumentOptions) -> Result<[u32; 3]> {
    if opts.target.is_host() {
        return Ok([1, 1, 1]);
    }
    // A block the user gave (--block, or `kperf run`'s launch spec) must
    // be the one the kernel declares.
    let given = opts.block.filter(|_| {
        opts.block_kernel
            .as_ref()
            .is_none_or(|k| *k == regions::symbol_name(f))
    });
    let agree = |d: [u32; 3], what: &str| -> Result<[u32; 3]> {
        match given {
            // `nvvm.maxntid` is a bound (`__launch_bounds__`): any block
            // with no more threads launches.
            Some(b) if what.ends_with("nvvm.maxntid") && threads(b) <= threads(d) => Ok(b),
            Some(b) if b != d => Err(InstrumentError::Option(format!(
                "the block size given ({b:?}, by --block or the launch spec's `block`) \
                 disagrees with {what} {d:?} ({})",
                f.loc_string()
            ))),
            _ => Ok(d),
        }
    };
    for name in [
        "known_block_size",
        "gpu.known_block_size",
        "nvvm.reqntid",
        "nvvm.maxntid",
        "rocdl.reqd_work_group_size",
    ] {
        if let Some(a) = f.attr(name) {
            let text = ir::attr_string(a);
            let nums: Vec<u32> = text
                .split(|c: char| !c.is_ascii_digit())
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.parse().ok())
                .collect();
            // `array<i32: 128, 1, 1>`: the first number is the element width.
            let dims: Vec<u32> = if text.starts_with("array<i") {
                nums.into_iter().skip(1).collect()
            } else {
                nums
            };
            if let Some(d) = crate::plan::block_dims(&dims) {
                return agree(d, &format!("the kernel's {name}"));
            }
        }
    }
    // `mlir-translate --import-llvm` keeps LLVM's string attribute
    // "nvvm.reqntid"="128[,y,z]" as `passthrough = [["nvvm.reqntid", "128"]]`.
    if let Some(a) = f.attr("passthrough") {
        let text = ir::attr_string(a);
        if let Some(rest) = text.split("\"nvvm.reqntid\", \"").nth(1) {
            let value = rest.split('"').next().unwrap_or("");
            let dims: Vec<u32> = value
                .split(',')
                .filter_map(|v| v.trim().parse().ok())
                .collect();
            if let Some(d) = crate::plan::block_dims(&dims) {
                return agree(d, "the kernel's passthrough nvvm.reqntid");
            }
        }
    }
    if let Some(d) = launch::launch_block_size(f) {
        return agree(
            d,
            &format!(
                "the block size of the gpu.launch_func of `{}`",
                regions::symbol_name(f)
            ),
        );
    }
    opts.block.ok_or_else(|| InstrumentError::At {
        location: f.loc_string(),
        message: format!(
            "kernel `{}` does not say its block size (no known_block_size / nvvm.reqntid, and no gpu.launch_func with constant block sizes in the file): pass --block X[,Y,Z] so the profile segments can be sized",
            regions::symbol_name(f)
        ),
    })
}

/// Bytes of one element of an MLIR element type, when known.
fn element_bytes(t: &str) -> Option<u64> {
    let t = t.trim();
    Some(match t {
        "f64" | "i64" | "index" => 8,
        "f32" | "i32" | "tf32" => 4,
        "f16" | "bf16" | "i16" => 2,
        "i8" | "i1" => 1,
        _ if t.starts_with("f8") || t.starts_with("f6") || t.starts_with("f4") => 1,
        _ => return None,
    })
}

/// Bytes of a static shape `128x64xf16` (the inside of `memref<...>`) or an
/// `!llvm.array<N x T>`.
fn type_bytes(ty: &str) -> Option<u64> {
    if let Some(inner) = ty
        .strip_prefix("!llvm.array<")
        .and_then(|t| t.strip_suffix('>'))
    {
        let (n, elem) = inner.split_once(" x ")?;
        return Some(
            n.trim().parse::<u64>().ok()? * type_bytes(elem).or_else(|| element_bytes(elem))?,
        );
    }
    let inner = ty
        .strip_prefix("memref<")
        .and_then(|t| t.rsplit_once('>').map(|x| x.0))
        .unwrap_or(ty);
    let shape = inner.split(',').next()?;
    let parts: Vec<&str> = shape.split('x').collect();
    let elem = element_bytes(parts.last()?)?;
    parts[..parts.len() - 1]
        .iter()
        .try_fold(elem, |acc, d| Some(acc * d.trim().parse::<u64>().ok()?))
}

/// Static shared memory the kernel already uses: workgroup attributions of
/// a `gpu.func`, and workgroup-space globals beside it (`memref.global` in
/// `#gpu.address_space<workgroup>`, `llvm.mlir.global` in address space 3).
/// Returns the bytes and what could not be sized.
pub fn kernel_static_shared(f: Op) -> (u64, Vec<String>) {
    let mut bytes = 0u64;
    let mut unknown = Vec::new();
    let mut add = |what: String, ty: &str| match type_bytes(ty) {
        Some(b) => bytes += b,
        None => unknown.push(what),
    };
    if let (Some(n), Some(entry)) = (
        f.int_attr("workgroup_attributions"),
        f.regions().first().and_then(|r| r.first_block()),
    ) {
        let inputs = num_inputs(f);
        for i in inputs..inputs + n as isize {
            let ty = type_string(entry.arg(i).ty());
            add(format!("workgroup attribution {ty}"), &ty);
        }
    }
    for g in f.block().map(|b| b.ops()).unwrap_or_default() {
        let ty_attr = |name: &str| {
            g.attr(name)
                .map(|a| type_string(unsafe { mlirTypeAttrGetValue(a) }))
        };
        match g.name().as_str() {
            "memref.global" => {
                let Some(ty) = ty_attr("type") else { continue };
                if ty.contains("workgroup") || ty.ends_with(", 3>") {
                    add(format!("memref.global {ty}"), &ty);
                }
            }
            "llvm.mlir.global"
                if g.int_attr("addr_space") == Some(3)
                    && !g
                        .str_attr("sym_name")
                        .is_some_and(|n| n.starts_with("__kperf_smem")) =>
            {
                let Some(ty) = ty_attr("global_type") else {
                    continue;
                };
                add(format!("llvm.mlir.global {ty}"), &ty);
            }
            _ => {}
        }
    }
    (bytes, unknown)
}

/// Step 1 on one kernel. Returns nothing: everything needed later is on the ops.
pub fn to_kperfgpu(f: Op, opts: &InstrumentOptions) -> Result<()> {
    let ctx = ctx_of(f);
    regions::check_balance(f)?;
    let sites = record_sites(f);
    let block = block_shape(f, opts)?;
    let (static_shared, not_sized) = kernel_static_shared(f);
    let plan = crate::plan::plan_segments(
        opts,
        &regions::symbol_name(f),
        block,
        static_shared,
        &not_sized,
    )?;
    let (units, slots, global_slots) = (plan.units, plan.slots, plan.global_slots);

    // Region ids and lexical parents, decided as on the LLVM-IR path.
    let locations: Vec<String> = sites.iter().map(|s| s.op.loc_string()).collect();
    let table = RegionTable::build(sites.iter().zip(&locations).map(|(s, l)| SiteInfo {
        name: &s.name,
        is_start: s.is_start,
        kind: s.kind,
        location: l,
        pairs_with: s.pairs_with.as_deref(),
    }))?;
    let ids = &table.ids;

    let counter_ty = unsafe {
        mlirIntegerTypeGet(
            ctx,
            if opts.counter == Counter::Clock32 {
                32
            } else {
                64
            },
        )
    };
    let store_name = if opts.strategy == Strategy::Flush {
        ops::STORE_COUNTER
    } else {
        ops::CIRCULAR_STORE
    };
    for s in &sites {
        let loc = s.op.location();
        let read = create(
            ops::READ_COUNTER,
            loc,
            &[named_attr(
                ctx,
                "counter",
                str_attr(ctx, opts.counter.name()),
            )],
            &[],
            &[counter_ty],
        );
        let block_of = s.op.block().expect("record is in a block");
        block_of.insert_before(s.op, read);
        let clock = Op(read).result(0);
        let mut attrs = vec![
            named_attr(ctx, "region_id", int_attr(ctx, 32, ids[&s.name] as i64)),
            named_attr(ctx, "is_start", int_attr(ctx, 1, s.is_start as i64)),
            named_attr(ctx, "name", str_attr(ctx, &s.name)),
            named_attr(ctx, "kind", str_attr(ctx, &serde_json_kind(s.kind))),
            named_attr(ctx, "src", str_attr(ctx, &s.op.loc_string())),
        ];
        let region = &table.regions[ids[&s.name] as usize];
        if let Some(p) = region.parent {
            attrs.push(named_attr(ctx, "parent", int_attr(ctx, 32, p.0 as i64)));
        }
        if let Some(pw) = region.pairs_with {
            attrs.push(named_attr(
                ctx,
                "pairs_with",
                int_attr(ctx, 32, pw.0 as i64),
            ));
        }
        let st = create(store_name, loc, &attrs, &[clock.0], &[]);
        block_of.insert_before(s.op, st);
        s.op.erase();
    }

    let entry = f.regions()[0].first_block().expect("kernel has a body");
    let first = entry.first_op().ok_or_else(|| InstrumentError::At {
        location: f.loc_string(),
        message: "kernel body is empty".into(),
    })?;
    let loc = f.location();
    let space = match (opts.buffer, &opts.target) {
        (BufferKind::Global, _) => "global",
        (BufferKind::Shared, Target::Host) => "stack",
        (BufferKind::Shared, _) => "shared",
    };
    let alloc = create(
        ops::LOCAL_ALLOC,
        loc,
        &[
            named_attr(
                ctx,
                "bytes",
                int_attr(
                    ctx,
                    64,
                    if opts.buffer == BufferKind::Shared {
                        units as i64 * slots as i64 * 8
                    } else {
                        0
                    },
                ),
            ),
            named_attr(ctx, "space", str_attr(ctx, space)),
        ],
        &[],
        &[],
    );
    entry.insert_before(first, alloc);
    let sampling = match &opts.sample_ctas {
        CtaSampling::All => "all".to_string(),
        CtaSampling::Every(k) => format!("every:{k}"),
        CtaSampling::List(ids) => format!(
            "list:{}",
            ids.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    let init = create(
        ops::INIT,
        loc,
        &[
            named_attr(ctx, "counter", str_attr(ctx, opts.counter.name())),
            named_attr(ctx, "granularity", str_attr(ctx, opts.granularity.name())),
            named_attr(ctx, "units", int_attr(ctx, 32, units as i64)),
            named_attr(ctx, "slots", int_attr(ctx, 32, slots as i64)),
            named_attr(ctx, "global_slots", int_attr(ctx, 32, global_slots as i64)),
            named_attr(ctx, "strategy", str_attr(ctx, opts.strategy.name())),
            named_attr(ctx, "buffer", str_attr(ctx, space)),
            named_attr(
                ctx,
                "block",
                str_attr(ctx, &format!("{},{},{}", block[0], block[1], block[2])),
            ),
            named_attr(
                ctx,
                "sample_units",
                str_attr(
                    ctx,
                    &opts
                        .sample_units
                        .iter()
                        .map(|u| u.to_string())
                        .collect::<Vec<_>>()
                        .join(","),
                ),
            ),
            named_attr(ctx, "sample_ctas", str_attr(ctx, &sampling)),
        ],
        &[],
        &[],
    );
    entry.insert_before(first, init);
    for r in f
        .nested_ops()
        .into_iter()
        .filter(|o| is_return(*o) && regions::innermost_function(*o) == Some(f))
    {
        let fin = create(
            ops::FINALIZE,
            r.location(),
            &[named_attr(
                ctx,
                "strategy",
                str_attr(ctx, opts.strategy.name()),
            )],
            &[],
            &[],
        );
        r.block().expect("return in a block").insert_before(r, fin);
    }
    Ok(())
}

/// Read the lowering configuration back from a kernel's `kperfgpu.init`.
fn config_from_init(init: Op, f: Op, target: &Target) -> Result<LoweringConfig> {
    let bad = |what: &str| InstrumentError::At {
        location: init.loc_string(),
        message: format!("kperfgpu.init: missing or bad `{what}`"),
    };
    let s = |n: &str| init.str_attr(n).ok_or_else(|| bad(n));
    let i = |n: &str| init.int_attr(n).map(|v| v as u32).ok_or_else(|| bad(n));
    let counter = Counter::from_name(&s("counter")?).ok_or_else(|| bad("counter"))?;
    let granularity =
        Granularity::from_name(&s("granularity")?).ok_or_else(|| bad("granularity"))?;
    let units = i("units")?;
    let slots = i("slots")?;
    if slots == 0 || !slots.is_power_of_two() {
        return Err(bad("slots (must be a power of two)"));
    }
    let global_slots = init
        .int_attr("global_slots")
        .map(|v| v as u32)
        .unwrap_or(slots);
    let strategy = Strategy::from_name(
        &init
            .str_attr("strategy")
            .unwrap_or_else(|| "circular".into()),
    )
    .ok_or_else(|| bad("strategy"))?;
    let buffer = match init.str_attr("buffer").as_deref().unwrap_or("shared") {
        "global" => BufferKind::Global,
        _ => BufferKind::Shared,
    };
    let block: Vec<u32> = init
        .str_attr("block")
        .unwrap_or_else(|| "1,1,1".into())
        .split(',')
        .filter_map(|x| x.parse().ok())
        .collect();
    if block.len() != 3 {
        return Err(bad("block"));
    }
    let cta_threads = if target.is_host() {
        1
    } else {
        block.iter().product()
    };
    let sampled_units: Vec<u32> = init
        .str_attr("sample_units")
        .unwrap_or_default()
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    let sample_ctas = match init.str_attr("sample_ctas").unwrap_or_else(|| "all".into()) {
        x if x == "all" => CtaSampling::All,
        x => match (x.strip_prefix("every:"), x.strip_prefix("list:")) {
            (Some(k), _) => CtaSampling::Every(k.parse().map_err(|_| bad("sample_ctas"))?),
            (_, Some(l)) => {
                CtaSampling::List(l.split(',').filter_map(|v| v.parse().ok()).collect())
            }
            _ => return Err(bad("sample_ctas")),
        },
    };
    Ok(LoweringConfig {
        target: target.clone(),
        counter,
        granularity,
        buffer,
        strategy,
        block: [block[0], block[1], block[2]],
        block_1d: block[1] == 1 && block[2] == 1,
        unit_threads: target.unit_threads(granularity, cta_threads),
        units,
        slots,
        global_slots,
        sampled_units,
        sample_ctas,
        smem_symbol: format!("__kperf_smem_{}", regions::symbol_name(f)),
        // MLIR's NVPTX data layout has 64-bit shared pointers.
        short_shared_ptr: false,
        max_records: None,
        // Only the SIMT target: on ptxas the derived form helped one
        // kernel and cost upstream's all-reduce tests 3% (docs/fidelity.md).
        derive_exit_slot: matches!(target, Target::Nvptx { simt: true, .. }),
    })
}

/// Declarations a template may reference, so it verifies on its own.
pub(crate) fn template_prelude(cfg: &LoweringConfig) -> String {
    let mut s = String::new();
    if cfg.target.is_host() {
        s.push_str(
            "  llvm.func @kperf_host_now_ns() -> i64\n  llvm.func @kperf_host_cpu() -> i32\n",
        );
    } else if cfg.buffer == BufferKind::Shared {
        s.push_str(&format!(
            "  llvm.mlir.global internal @{}() {{addr_space = 3 : i32, alignment = {} : i64}} : !llvm.array<{} x i64>\n",
            cfg.smem_symbol,
            templates::shared_align(&cfg.target),
            cfg.ring_words().max(1)
        ));
    }
    if let Some(sym) = cfg.header_table_symbol() {
        let words = cfg.header_constants().map(|w| (w as i32).to_string());
        s.push_str(&format!(
            "  llvm.mlir.global internal @{sym}(dense<[{}]> : vector<4xi32>) {{addr_space = 4 : i32, alignment = 16 : i64, externally_initialized}} : vector<4xi32>\n",
            words.join(", ")
        ));
    }
    s
}

/// Parsed templates, keyed by their text: a kernel with thousands of
/// records parses each distinct template once and clones it per use.
pub struct Templates<'c> {
    kctx: &'c KperfContext,
    parsed: HashMap<String, melior::ir::Module<'c>>,
}

impl<'c> Templates<'c> {
    pub fn new(kctx: &'c KperfContext) -> Self {
        Templates {
            kctx,
            parsed: HashMap::new(),
        }
    }

    /// Instantiate `template` in front of `anchor` with `args` for its
    /// arguments; returns what its `return` returned.
    fn splice(
        &mut self,
        cfg: &LoweringConfig,
        name: &str,
        template: &str,
        anchor: Op,
        args: &[Value],
    ) -> Result<Vec<Value>> {
        let text = format!("module {{\n{}{}}}\n", template_prelude(cfg), template);
        if !self.parsed.contains_key(&text) {
            let m = self
                .kctx
                .parse(&text, &format!("<kperf template {name}>"))
                .map_err(|e| InstrumentError::Template {
                    template: format!("{name}\n{text}"),
                    diagnostics: e.to_string(),
                })?;
            self.parsed.insert(text.clone(), m);
        }
        let module = &self.parsed[&text];
        let top = super::module_op(module);
        let func = top.regions()[0]
            .first_block()
            .and_then(|b| b.ops().into_iter().find(|o| o.name() == "func.func"))
            .ok_or_else(|| InstrumentError::Template {
                template: name.into(),
                diagnostics: "no func.func".into(),
            })?;
        // Work on a detached clone so the cached template stays intact.
        let copy = Op(unsafe { mlirOperationClone(func.0) });
        let result = instantiate(copy, name, anchor, args);
        copy.erase();
        result
    }
}

pub(crate) fn instantiate(func: Op, name: &str, anchor: Op, args: &[Value]) -> Result<Vec<Value>> {
    let body = func.regions()[0]
        .first_block()
        .expect("template has a body");
    if body.num_args() as usize != args.len() {
        return Err(InstrumentError::Template {
            template: name.into(),
            diagnostics: format!(
                "takes {} arguments, lowering passed {}",
                body.num_args(),
                args.len()
            ),
        });
    }
    for (i, a) in args.iter().enumerate() {
        let formal = body.arg(i as isize);
        let (ft, at) = (type_string(formal.ty()), type_string(a.ty()));
        if ft != at {
            return Err(InstrumentError::Template {
                template: name.into(),
                diagnostics: format!("argument {i} is {ft}, lowering passed {at}"),
            });
        }
        formal.replace_all_uses_with(*a);
    }
    let term = body.terminator().expect("template ends in return");
    let outs: Vec<Value> = (0..term.num_operands()).map(|i| term.operand(i)).collect();
    for op in body.ops() {
        if op != term {
            op.move_before(anchor);
        }
    }
    Ok(outs)
}

/// Insert `ty` as argument `pos` of function-like `f` (gpu.func, func.func,
/// llvm.func), updating its type and argument attributes.
pub fn insert_function_arg(f: Op, pos: isize, ty_text: &str) -> Result<Value> {
    let ctx = ctx_of(f);
    let ty = unsafe { mlirTypeParseGet(ctx, sref(ty_text)) };
    let fty_attr = f.attr("function_type").ok_or_else(|| InstrumentError::At {
        location: f.loc_string(),
        message: "function has no function_type".into(),
    })?;
    let fty = unsafe { mlirTypeAttrGetValue(fty_attr) };
    let new_ty = unsafe {
        if f.name() == "llvm.func" {
            let n = mlirLLVMFunctionTypeGetNumInputs(fty);
            let mut ins: Vec<MlirType> = (0..n)
                .map(|i| mlirLLVMFunctionTypeGetInput(fty, i))
                .collect();
            ins.insert(pos as usize, ty);
            mlirLLVMFunctionTypeGet(
                mlirLLVMFunctionTypeGetReturnType(fty),
                ins.len() as isize,
                ins.as_ptr(),
                false,
            )
        } else {
            let n = mlirFunctionTypeGetNumInputs(fty);
            let mut ins: Vec<MlirType> = (0..n).map(|i| mlirFunctionTypeGetInput(fty, i)).collect();
            ins.insert(pos as usize, ty);
            let nr = mlirFunctionTypeGetNumResults(fty);
            let outs: Vec<MlirType> = (0..nr).map(|i| mlirFunctionTypeGetResult(fty, i)).collect();
            mlirFunctionTypeGet(
                ctx,
                ins.len() as isize,
                ins.as_ptr(),
                outs.len() as isize,
                outs.as_ptr(),
            )
        }
    };
    f.set_attr("function_type", unsafe { mlirTypeAttrGet(new_ty) });
    if let Some(aa) = f.attr("arg_attrs") {
        unsafe {
            let n = mlirArrayAttrGetNumElements(aa);
            let mut el: Vec<MlirAttribute> =
                (0..n).map(|i| mlirArrayAttrGetElement(aa, i)).collect();
            el.insert(
                pos as usize,
                mlirDictionaryAttrGet(ctx, 0, std::ptr::null()),
            );
            f.set_attr(
                "arg_attrs",
                mlirArrayAttrGet(ctx, el.len() as isize, el.as_ptr()),
            );
        }
    }
    let entry = f.regions()[0].first_block().expect("function has a body");
    Ok(entry.insert_arg(pos, ty, f.location()))
}

/// Number of inputs of a function-like op.
pub fn num_inputs(f: Op) -> isize {
    let Some(a) = f.attr("function_type") else {
        return 0;
    };
    unsafe {
        let t = mlirTypeAttrGetValue(a);
        if f.name() == "llvm.func" {
            mlirLLVMFunctionTypeGetNumInputs(t)
        } else {
            mlirFunctionTypeGetNumInputs(t)
        }
    }
}

/// Step 2 on one kernel: returns its metadata.
/// The region table of one region op at the `kperfgpu` level.
fn region_of(op: Op) -> Result<RegionMeta> {
    let n = op.name();
    let bad = || InstrumentError::At {
        location: op.loc_string(),
        message: format!("{n}: missing region_id/is_start"),
    };
    let id = op.int_attr("region_id").ok_or_else(bad)?;
    op.int_attr("is_start").ok_or_else(bad)?;
    if !(0..=MAX_REGION_ID as i64).contains(&id) {
        return Err(InstrumentError::At {
            location: op.loc_string(),
            message: format!("region id {id} does not fit 16 bits"),
        });
    }
    Ok(RegionMeta {
        id: RegionId(id as u16),
        name: op
            .str_attr("name")
            .unwrap_or_else(|| format!("region_{id}")),
        kind: op
            .str_attr("kind")
            .map(|k| regions::kind_from_str(&k))
            .unwrap_or(RegionKind::Explicit),
        parent: op.int_attr("parent").map(|p| RegionId(p as u16)),
        location: op.str_attr("src").unwrap_or_else(|| op.loc_string()),
        pairs_with: op.int_attr("pairs_with").map(|p| RegionId(p as u16)),
    })
}

/// Only records (counter reads and stores) stand between `op` and
/// finalize: where the config derives the exit slot
/// (`LoweringConfig::derive_exit_slot`: the SIMT target on this path), a
/// record there derives its ring slot itself ([`templates::store_at_exit`]).
fn just_before_finalize(op: Op) -> bool {
    let mut next = op.next();
    while let Some(o) = next {
        if o.name() == ops::FINALIZE {
            return true;
        }
        if o.name() != ops::READ_COUNTER && !is_store(o) {
            return false;
        }
        next = o.next();
    }
    false
}

fn is_store(op: Op) -> bool {
    let n = op.name();
    n == ops::CIRCULAR_STORE || n == ops::STORE_COUNTER
}

/// The metadata of a kernel at the `kperfgpu` level (None when it has no
/// `kperfgpu.init`): what `.kperf.json` says about it. Reads, never mutates.
pub fn kernel_meta(f: Op, target: &Target) -> Result<Option<KernelMeta>> {
    let Some(init) = f.nested_ops().into_iter().find(|o| o.name() == ops::INIT) else {
        return Ok(None);
    };
    let cfg = config_from_init(init, f, target)?;
    let mut regions: Vec<RegionMeta> = Vec::new();
    for op in f.nested_ops().into_iter().filter(|o| is_store(*o)) {
        let r = region_of(op)?;
        if !regions.iter().any(|x| x.id == r.id) {
            regions.push(r);
        }
    }
    regions.sort_by_key(|r| r.id);
    let n_in = num_inputs(f);
    let original = if target.is_host() && f.has_attr("kperf.host_abi") {
        n_in - HOST_GRID_ARG_COUNT
    } else {
        n_in
    };
    Ok(Some(KernelMeta {
        name: regions::symbol_name(f),
        original_arg_count: original as u32,
        block: cfg.block,
        layout: Layout {
            units: cfg.units,
            slots: cfg.global_slots,
        },
        sampled_units: cfg.sampled_units.clone(),
        cta_sampling: cfg.sample_ctas.clone(),
        profile_param: None,
        profile_bytes_per_cta: Layout {
            units: cfg.units,
            slots: cfg.global_slots,
        }
        .cta_stride() as u64,
        max_registers: None,
        regions,
    }))
}

/// Step 2 on one kernel: returns its metadata.
pub fn to_llvm(kctx: &KperfContext, f: Op, target: &Target) -> Result<Option<KernelMeta>> {
    let Some(meta) = kernel_meta(f, target)? else {
        return Ok(None);
    };
    let init = f
        .nested_ops()
        .into_iter()
        .find(|o| o.name() == ops::INIT)
        .expect("kernel_meta found it");
    let cfg = config_from_init(init, f, target)?;

    // The profile buffer argument: after the original arguments (before the
    // host's trailing grid arguments).
    let host_abi = target.is_host() && f.has_attr("kperf.host_abi");
    let gty = if target.is_host() {
        "!llvm.ptr"
    } else {
        "!llvm.ptr<1>"
    };
    let prof = insert_function_arg(f, meta.original_arg_count as isize, gty)?;

    add_prelude(kctx, f, &cfg)?;
    let entry = f.regions()[0].first_block().expect("kernel has a body");
    let mut tpl = Templates::new(kctx);
    let mut init_args = vec![prof];
    init_args.extend(tpl.splice(&cfg, "locals", &templates::locals(&cfg), init, &[])?);
    if target.is_host() {
        if !host_abi {
            return Err(InstrumentError::At {
                location: f.loc_string(),
                message: "host kernel lacks the host ABI (internal)".into(),
            });
        }
        let n = num_inputs(f);
        init_args.extend((n - HOST_GRID_ARG_COUNT..n).map(|i| entry.arg(i)));
    }
    let st = tpl.splice(&cfg, "init", &templates::init(&cfg), init, &init_args)?;
    debug_assert_eq!(st.len(), INIT_RESULTS);
    let (rec, seg, cnt, blk, unit_idx) = (st[0], st[1], st[2], st[3], st[4]);
    for op in f.nested_ops() {
        let n = op.name();
        if n == ops::READ_COUNTER {
            let out = tpl.splice(
                &cfg,
                "read_counter",
                &templates::read_counter(&cfg),
                op,
                &[],
            )?;
            op.result(0).replace_all_uses_with(out[0]);
            op.erase();
        } else if is_store(op) {
            let r = region_of(op)?;
            let edge = if op.int_attr("is_start").unwrap_or(0) != 0 {
                Edge::Start
            } else {
                Edge::End
            };
            if cfg.derive_exit_slot && just_before_finalize(op) {
                let t = templates::store_at_exit(&cfg, r.id, edge);
                let mut args = init_args.clone();
                args.push(op.operand(0));
                tpl.splice(&cfg, "store_at_exit", &t, op, &args)?;
            } else {
                let t = templates::store(&cfg, r.id, edge);
                tpl.splice(
                    &cfg,
                    "store",
                    &t,
                    op,
                    &[rec, seg, cnt, blk, unit_idx, op.operand(0)],
                )?;
            }
            op.erase();
        } else if n == ops::FINALIZE {
            tpl.splice(&cfg, "finalize", &templates::finalize(&cfg), op, &init_args)?;
            op.erase();
        }
    }
    for op in f
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == ops::LOCAL_ALLOC || o.name() == ops::INIT)
    {
        op.erase();
    }
    Ok(Some(meta))
}

/// Put the template prelude (the shared-memory ring global, the host's
/// timer declarations) beside the kernel, once per symbol table.
fn add_prelude(kctx: &KperfContext, f: Op, cfg: &LoweringConfig) -> Result<()> {
    let prelude = template_prelude(cfg);
    if prelude.is_empty() {
        return Ok(());
    }
    let siblings: Vec<String> = f
        .block()
        .map(|b| b.ops())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|o| o.str_attr("sym_name"))
        .collect();
    let m = kctx.parse(&format!("module {{\n{prelude}}}\n"), "<kperf prelude>")?;
    let ops = super::module_op(&m).regions()[0]
        .first_block()
        .map(|b| b.ops())
        .unwrap_or_default();
    for op in ops {
        if !op
            .str_attr("sym_name")
            .is_some_and(|n| siblings.contains(&n))
        {
            op.move_before(f);
        }
    }
    drop(m);
    Ok(())
}

/// Host code that launches an instrumented kernel (`gpu.launch_func`) must
/// pass its new profile argument. kperf launches kernels itself, so host
/// code passes a null pointer, which the kernel's init turns into "record
/// nothing": the program still runs as before.
pub fn pass_null_profile_at_launches(
    kctx: &KperfContext,
    module: Op,
    kernel: Op,
    gty: &str,
) -> Result<()> {
    let name = regions::symbol_name(kernel);
    let owner = kernel
        .parent()
        .and_then(|p| p.str_attr("sym_name"))
        .unwrap_or_default();
    for launch in module
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "gpu.launch_func")
    {
        let Some(target) = launch.attr("kernel") else {
            continue;
        };
        let text = ir::attr_string(target);
        if text != format!("@{owner}::@{name}") {
            continue;
        }
        let Some(seg) = launch.attr("operandSegmentSizes") else {
            return Err(InstrumentError::At {
                location: launch.loc_string(),
                message: "gpu.launch_func without operandSegmentSizes".into(),
            });
        };
        let n = unsafe { mlirDenseArrayGetNumElements(seg) };
        let mut sizes: Vec<i32> = (0..n)
            .map(|i| unsafe { mlirDenseI32ArrayGetElement(seg, i) })
            .collect();
        use launch::KERNEL_OPERANDS;
        if sizes.len() <= KERNEL_OPERANDS {
            return Err(InstrumentError::At {
                location: launch.loc_string(),
                message: format!(
                    "gpu.launch_func has {} operand segments, expected at least {}",
                    sizes.len(),
                    KERNEL_OPERANDS + 1
                ),
            });
        }
        let insert_at: i32 = sizes[..=KERNEL_OPERANDS].iter().sum();
        let zero = materialize(kctx, launch, &format!("llvm.mlir.zero : {gty}"), gty)?;
        let mut operands: Vec<MlirValue> = (0..launch.num_operands())
            .map(|i| launch.operand(i).0)
            .collect();
        operands.insert(insert_at as usize, zero.0);
        sizes[KERNEL_OPERANDS] += 1;
        unsafe {
            mlirOperationSetOperands(launch.0, operands.len() as isize, operands.as_ptr());
            let ctx = mlirLocationGetContext(launch.location());
            launch.set_attr(
                "operandSegmentSizes",
                mlirDenseI32ArrayGet(ctx, sizes.len() as isize, sizes.as_ptr()),
            );
        }
    }
    Ok(())
}

/// Create the value of a one-op snippet (`arith.constant 0 : index`) in
/// front of `anchor`, by parsing it and moving the op in.
pub fn materialize(kctx: &KperfContext, anchor: Op, op_text: &str, ty: &str) -> Result<Value> {
    let m = kctx.parse(
        &format!("module {{ func.func @m() -> {ty} {{\n %v = {op_text}\n return %v : {ty}\n }} }}"),
        "<kperf snippet>",
    )?;
    let func = super::module_op(&m).regions()[0]
        .first_block()
        .and_then(|b| b.first_op())
        .expect("snippet function");
    let op = func.regions()[0]
        .first_block()
        .and_then(|b| b.first_op())
        .expect("snippet op");
    op.move_before(anchor);
    drop(m);
    Ok(op.result(0))
}
