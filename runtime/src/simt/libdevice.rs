//! libdevice for the SIMT target: a kernel's `__nv_*` calls (CUDA's math
//! library: `expf`, `tanhf`, `erff`, ...; what MLIR's `math` dialect lowers
//! to for NVVM) run NVIDIA's own implementation, linked from
//! `libdevice.10.bc` as a CUDA build links it. Its bodies are NVVM IR made
//! of ordinary LLVM operations and arithmetic intrinsics
//! (`llvm.nvvm.fma.rn.f`, `ex2.approx`, `d2i.hi`, ...), which
//! [`super::pure`] defines for the host, so the results are libdevice's
//! (apart from what docs/simt.md says of `.approx` and `.ftz`).
//!
//! The bitcode is NVIDIA's and is not shipped with kperf; it is found at
//! `$KPERF_LIBDEVICE`, in a CUDA toolkit (`$CUDA_HOME`, `/usr/local/cuda`),
//! or in the Triton package the project's setup installs (`.tools/`), which
//! carries a copy.

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, BasicValue, FunctionValue};
use std::path::{Path, PathBuf};

/// Where libdevice was looked for, for the refusal when it is not found.
pub const WHERE: &str = "set KPERF_LIBDEVICE to a libdevice.10.bc (a CUDA toolkit's \
                         nvvm/libdevice, or Triton's triton/backends/nvidia/lib)";

/// The libdevice bitcode to link, if one is found.
pub fn path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KPERF_LIBDEVICE") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let in_toolkit = |root: PathBuf| root.join("nvvm/libdevice/libdevice.10.bc");
    let toolkits = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .chain([PathBuf::from("/usr/local/cuda")])
        .map(in_toolkit);
    toolkits.chain(project_copies()).find(|p| p.is_file())
}

/// The copies in the project's `.tools/` (Triton's), found from the
/// running binary upwards: `target/release/kperf` in a checkout.
fn project_copies() -> Vec<PathBuf> {
    let Ok(exe) = std::env::current_exe() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in exe.ancestors().skip(1) {
        let tools = dir.join(".tools");
        if !tools.is_dir() {
            continue;
        }
        out.push(tools.join("triton-gpu-image/triton/backends/nvidia/lib/libdevice.10.bc"));
        if let Ok(libs) = std::fs::read_dir(tools.join("triton-venv/lib")) {
            for py in libs.flatten() {
                out.push(
                    py.path()
                        .join("site-packages/triton/backends/nvidia/lib/libdevice.10.bc"),
                );
            }
        }
    }
    out
}

/// Link libdevice into `module` when it declares `__nv_*` functions and a
/// libdevice is found; returns the file linked. Only what the kernel calls
/// stays (the rest would bring intrinsics nothing runs). `__nvvm_reflect`
/// queries are answered as NVPTX's reflection pass answers them for
/// sm_90 without flush-to-zero.
pub fn link<'c>(ctx: &'c Context, module: &Module<'c>) -> Result<Option<PathBuf>, String> {
    let wanted = module
        .get_functions()
        .any(|f| f.count_basic_blocks() == 0 && is_libdevice(&f));
    if !wanted {
        return Ok(None);
    }
    let Some(path) = path() else {
        return Ok(None);
    };
    let lib = load(ctx, &path)?;
    lib.set_triple(&module.get_triple());
    lib.set_data_layout(&module.get_data_layout());
    // What the kernel's module defines: everything defined after the link
    // besides is libdevice's (its `__nv_*` and its `__internal_*`
    // helpers: the double trigonometry's range reduction is one).
    let own: std::collections::HashSet<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    module
        .link_in_module(lib)
        .map_err(|e| format!("linking {}: {}", path.display(), e.to_string_lossy()))?;
    answer_reflection(module);
    let linked: std::collections::HashSet<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|n| !own.contains(n))
        .collect();
    for f in module.get_functions() {
        if linked.contains(f.get_name().to_string_lossy().as_ref()) {
            f.set_linkage(Linkage::Internal);
        }
    }
    drop_uncalled(module, &linked);
    // SAFETY: rewriting calls inside the live module's own functions.
    unsafe { translate_inline_ptx(module, &linked)? };
    Ok(Some(path))
}

/// libdevice's few inline PTX statements, as host operations: the JIT
/// cannot compile PTX (it stopped with "Cannot pop empty stack"). `tanhf`
/// takes a reciprocal with `rcp.approx.ftz.f32`, the double trigonometry's
/// range reduction multiplies 64-bit words with carry chains.
///
/// # Safety
/// `module` is live; only calls of inline asm in libdevice's functions are
/// replaced.
unsafe fn translate_inline_ptx(
    module: &Module,
    linked: &std::collections::HashSet<String>,
) -> Result<(), String> {
    use inkwell::llvm_sys::LLVMIntPredicate;
    let m = module.as_mut_ptr();
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    let f32t = LLVMFloatTypeInContext(ctx);
    let f64t = LLVMDoubleTypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    let i128t = LLVMInt128TypeInContext(ctx);
    let i1t = LLVMInt1TypeInContext(ctx);
    let declare = |name: &str, ret, params: &mut [inkwell::llvm_sys::prelude::LLVMTypeRef]| {
        let cname = std::ffi::CString::new(name).expect("no NUL");
        let existing = LLVMGetNamedFunction(m, cname.as_ptr());
        let ty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let f = if existing.is_null() {
            LLVMAddFunction(m, cname.as_ptr(), ty)
        } else {
            existing
        };
        (f, ty)
    };
    let mut calls = Vec::new();
    for f in module
        .get_functions()
        .filter(|f| linked.contains(f.get_name().to_string_lossy().as_ref()))
    {
        for bb in f.get_basic_block_iter() {
            for i in bb.get_instructions() {
                let v = i.as_value_ref();
                if LLVMIsACallInst(v).is_null() {
                    continue;
                }
                let callee = LLVMGetCalledValue(v);
                if LLVMIsAInlineAsm(callee).is_null() {
                    continue;
                }
                let mut len = 0usize;
                let text = LLVMGetInlineAsmAsmString(callee, &mut len);
                let text =
                    String::from_utf8_lossy(std::slice::from_raw_parts(text as *const u8, len));
                let asm: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
                calls.push((f.get_name().to_string_lossy().into_owned(), v, asm));
            }
        }
    }
    let arg = |v, k| LLVMGetOperand(v, k);
    let name = c"".as_ptr();
    for (func, call, asm) in calls {
        LLVMPositionBuilderBefore(b, call);
        let ret = LLVMTypeOf(call);
        // The 128-bit value of words `lo`, `hi` (each i64).
        let wide = |lo, hi| {
            let l = LLVMBuildZExt(b, lo, i128t, name);
            let h = LLVMBuildZExt(b, hi, i128t, name);
            let h = LLVMBuildShl(b, h, LLVMConstInt(i128t, 64, 0), name);
            LLVMBuildOr(b, h, l, name)
        };
        // {lo, hi} of a 2w-bit value, as the asm's struct result.
        let halves = |v, w: u64, half| {
            let lo = LLVMBuildTrunc(b, v, half, name);
            let s = LLVMBuildLShr(b, v, LLVMConstInt(LLVMTypeOf(v), w, 0), name);
            let hi = LLVMBuildTrunc(b, s, half, name);
            let agg = LLVMGetPoison(ret);
            let agg = LLVMBuildInsertValue(b, agg, lo, 0, name);
            LLVMBuildInsertValue(b, agg, hi, 1, name)
        };
        let directed_sub = |ty, a, c, mode: &str| {
            let neg = LLVMBuildFNeg(b, c, name);
            if mode == "rn" {
                return LLVMBuildFSub(b, a, c, name);
            }
            let entry = if ty == f32t {
                "kperf_simt_rounded_f32"
            } else {
                "kperf_simt_rounded_f64"
            };
            let (f, fty) = declare(entry, ty, &mut [i32t, i32t, ty, ty, ty]);
            let mode = super::rounding::mode_of(mode).unwrap_or(0) as u64;
            let mut args = [
                LLVMConstInt(i32t, super::rounding::op::ADD as u64, 0),
                LLVMConstInt(i32t, mode, 0),
                a,
                neg,
                LLVMConstReal(ty, 0.0),
            ];
            LLVMBuildCall2(b, fty, f, args.as_mut_ptr(), 5, name)
        };
        let words: Vec<&str> = asm.split(' ').collect();
        let value = match words.as_slice() {
            ["rcp.approx.ftz.f32", ..] => {
                LLVMBuildFDiv(b, LLVMConstReal(f32t, 1.0), arg(call, 0), name)
            }
            ["rsqrt.approx.ftz.f64", ..] => {
                let (sqrt, ty) = declare("llvm.sqrt.f64", f64t, &mut [f64t]);
                let mut args = [arg(call, 0)];
                let s = LLVMBuildCall2(b, ty, sqrt, args.as_mut_ptr(), 1, name);
                LLVMBuildFDiv(b, LLVMConstReal(f64t, 1.0), s, name)
            }
            [sub, ..] if sub.starts_with("sub.r") => {
                let parts: Vec<&str> = sub.split('.').collect();
                let ty = if parts.last() == Some(&"f64") {
                    f64t
                } else {
                    f32t
                };
                directed_sub(ty, arg(call, 0), arg(call, 1), parts[1])
            }
            ["bfind.shiftamt.u32", ..] => {
                let x = arg(call, 0);
                let (ctlz, ty) = declare("llvm.ctlz.i32", i32t, &mut [i32t, i1t]);
                let mut args = [x, LLVMConstInt(i1t, 0, 0)];
                let n = LLVMBuildCall2(b, ty, ctlz, args.as_mut_ptr(), 2, name);
                let zero = LLVMBuildICmp(
                    b,
                    LLVMIntPredicate::LLVMIntEQ,
                    x,
                    LLVMConstInt(i32t, 0, 0),
                    name,
                );
                LLVMBuildSelect(b, zero, LLVMConstAllOnes(i32t), n, name)
            }
            // {lo, hi} of a * b + c, 32-bit words.
            ["{", "mad.lo.cc.u32", "$0,", "$2,", "$3,", "$4;", "madc.hi.u32", "$1,", "$2,", "$3,", "0;", "}"] =>
            {
                let z = |v| LLVMBuildZExt(b, v, i64t, name);
                let p = LLVMBuildMul(b, z(arg(call, 0)), z(arg(call, 1)), name);
                let s = LLVMBuildAdd(b, p, z(arg(call, 2)), name);
                halves(s, 32, i32t)
            }
            _ if asm.contains("mul.lo.u32 r0, alo, blo;") => {
                let z = |v| LLVMBuildZExt(b, v, i128t, name);
                let p = LLVMBuildMul(b, z(arg(call, 0)), z(arg(call, 1)), name);
                halves(p, 64, i64t)
            }
            _ if asm.contains("mad.lo.cc.u32 r0, alo, blo, clo;") => {
                let z = |v| LLVMBuildZExt(b, v, i128t, name);
                let p = LLVMBuildMul(b, z(arg(call, 0)), z(arg(call, 1)), name);
                let s = LLVMBuildAdd(b, p, z(arg(call, 2)), name);
                halves(s, 64, i64t)
            }
            _ if asm.contains("add.cc.u32 r0, a0, b0;")
                || asm.contains("sub.cc.u32 r0, a0, b0;") =>
            {
                let x = wide(arg(call, 0), arg(call, 1));
                let y = wide(arg(call, 2), arg(call, 3));
                let r = if asm.contains("add.cc") {
                    LLVMBuildAdd(b, x, y, name)
                } else {
                    LLVMBuildSub(b, x, y, name)
                };
                halves(r, 64, i64t)
            }
            _ => {
                LLVMDisposeBuilder(b);
                return Err(format!(
                    "the SIMT target cannot run this kernel: libdevice's `{func}` uses inline PTX kperf does not translate (`{asm}`)"
                ));
            }
        };
        LLVMReplaceAllUsesWith(call, value);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(b);
    Ok(())
}

fn load<'c>(ctx: &'c Context, path: &Path) -> Result<Module<'c>, String> {
    Module::parse_bitcode_from_path(path, ctx).map_err(|e| {
        format!(
            "reading libdevice {}: {}",
            path.display(),
            e.to_string_lossy()
        )
    })
}

fn is_libdevice(f: &FunctionValue) -> bool {
    f.get_name().to_bytes().starts_with(b"__nv_")
}

/// Replace each `__nvvm_reflect("<name>")` call by its answer: the
/// module's `nvvm-reflect-ftz` flag for `__CUDA_FTZ` (clang sets it with
/// `-fgpu-flush-denormals-to-zero`), 900 for `__CUDA_ARCH`, 0 otherwise,
/// as LLVM's NVVMReflect pass does.
fn answer_reflection(module: &Module) {
    let Some(reflect) = module.get_function("__nvvm_reflect") else {
        return;
    };
    // SAFETY: reading a module flag of a live module; a constant or none.
    let ftz = unsafe {
        let key = "nvvm-reflect-ftz";
        let md = LLVMGetModuleFlag(module.as_mut_ptr(), key.as_ptr().cast(), key.len());
        if md.is_null() {
            0
        } else {
            let v = LLVMMetadataAsValue(LLVMGetModuleContext(module.as_mut_ptr()), md);
            let c = if LLVMIsAConstantInt(v).is_null() {
                LLVMGetOperand(v, 0)
            } else {
                v
            };
            if !c.is_null() && !LLVMIsAConstantInt(c).is_null() {
                LLVMConstIntGetZExtValue(c)
            } else {
                0
            }
        }
    };
    // SAFETY: walking the uses of a live function.
    let calls: Vec<_> = unsafe {
        let mut out = Vec::new();
        let mut u = LLVMGetFirstUse(reflect.as_value_ref());
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsACallInst(user).is_null() {
                out.push(user);
            }
            u = LLVMGetNextUse(u);
        }
        out
    };
    for call in calls {
        // SAFETY: a call instruction of the module; its first operand is
        // the queried name, a constant string (through casts and GEPs).
        unsafe {
            let arg = LLVMGetOperand(call, 0);
            let name = reflected_name(arg).unwrap_or_default();
            let answer = match name.as_str() {
                "__CUDA_FTZ" => ftz,
                "__CUDA_ARCH" => 900,
                _ => 0,
            };
            let ty = LLVMTypeOf(call);
            let value = LLVMConstInt(ty, answer, 0);
            LLVMReplaceAllUsesWith(call, value);
            LLVMInstructionEraseFromParent(call);
        }
    }
    if reflect
        .as_global_value()
        .as_pointer_value()
        .get_first_use()
        .is_none()
    {
        // SAFETY: a declaration nothing refers to any more.
        unsafe { reflect.delete() };
    }
}

/// The C string a reflection query points at.
///
/// # Safety
/// `v` is a live value.
unsafe fn reflected_name(mut v: inkwell::llvm_sys::prelude::LLVMValueRef) -> Option<String> {
    for _ in 0..8 {
        if !LLVMIsAGlobalVariable(v).is_null() {
            let init = LLVMGetInitializer(v);
            if init.is_null() || LLVMIsConstantString(init) == 0 {
                return None;
            }
            let mut len = 0usize;
            let p = LLVMGetAsString(init, &mut len);
            let bytes = std::slice::from_raw_parts(p as *const u8, len);
            let text = bytes.split(|b| *b == 0).next().unwrap_or_default();
            return Some(String::from_utf8_lossy(text).into_owned());
        }
        if LLVMIsAConstantExpr(v).is_null() && LLVMIsAInstruction(v).is_null() {
            return None;
        }
        v = LLVMGetOperand(v, 0);
    }
    None
}

/// Delete the functions linked from libdevice (`linked`) that nothing
/// calls, to a fixed point, and the declarations only they used
/// (intrinsics the kernel never runs).
fn drop_uncalled(module: &Module, linked: &std::collections::HashSet<String>) {
    loop {
        let dead: Vec<FunctionValue> = module
            .get_functions()
            .filter(|f| {
                let libdevice = f.get_linkage() == Linkage::Internal
                    && linked.contains(f.get_name().to_string_lossy().as_ref());
                let declared_intrinsic = f.count_basic_blocks() == 0
                    && f.get_name().to_bytes().starts_with(b"llvm.nvvm.");
                (libdevice || declared_intrinsic)
                    && f.as_global_value()
                        .as_pointer_value()
                        .get_first_use()
                        .is_none()
            })
            .collect();
        if dead.is_empty() {
            return;
        }
        for f in dead {
            // SAFETY: a function no instruction or constant refers to.
            unsafe { f.delete() };
        }
    }
}
