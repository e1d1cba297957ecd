//! The host target for LLVM IR: JIT a host-ABI module (what `kperf
//! instrument --target host` writes from a `.ll`) with LLVM's MCJIT through
//! inkwell, and run it over the grid with the same loop as the MLIR JIT.
//!
//! MCJIT calls functions by address, so a small wrapper with the packed
//! convention (`void(ptr args)`, one pointer per argument word) is added to
//! the module: it loads each argument and calls the kernel.

use crate::host::{kperf_host_cpu, kperf_host_now_ns, GridLauncher, HostRun, Packed, Param};
use crate::launch_error::LaunchError as RuntimeError;
use crate::spec::{DType, LaunchSpec};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::targets::{InitializationConfig, Target};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue};
use inkwell::{AddressSpace, OptimizationLevel};
use kperf_dialects::meta::KernelMeta;

/// Host kernels end with block x,y,z and grid x,y,z (`i64`).
const GRID_ARGS: u32 = 6;

fn launch(msg: impl Into<String>) -> RuntimeError {
    RuntimeError::Launch(msg.into())
}

/// The host runner's view of an LLVM parameter type.
pub(crate) fn param_of(t: &BasicMetadataTypeEnum) -> Option<Param> {
    Some(match t {
        BasicMetadataTypeEnum::PointerType(_) => Param::Pointer,
        BasicMetadataTypeEnum::IntType(i) if i.get_bit_width() == 32 => Param::Scalar(DType::I32),
        BasicMetadataTypeEnum::IntType(i) if i.get_bit_width() == 64 => Param::Scalar(DType::I64),
        BasicMetadataTypeEnum::IntType(i) if matches!(i.get_bit_width(), 1 | 8 | 16) => {
            Param::NarrowInt(i.get_bit_width())
        }
        BasicMetadataTypeEnum::FloatType(f) => {
            let ctx = f.get_context();
            if *f == ctx.f32_type() {
                Param::Scalar(DType::F32)
            } else if *f == ctx.f64_type() {
                Param::Scalar(DType::F64)
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

/// Add `__kperf_packed_<kernel>(ptr args)`: load every argument from its
/// word and call the kernel.
fn packed_wrapper<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    kernel: FunctionValue<'c>,
) -> Result<String, RuntimeError> {
    let name = format!("__kperf_packed_{}", kernel.get_name().to_string_lossy());
    let ptr = ctx.ptr_type(AddressSpace::default());
    let w = module.add_function(&name, ctx.void_type().fn_type(&[ptr.into()], false), None);
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(w, "entry"));
    let args = w.get_nth_param(0).expect("one param").into_pointer_value();
    let err = |e: inkwell::builder::BuilderError| launch(format!("JIT wrapper: {e}"));
    let mut call_args: Vec<BasicMetadataValueEnum> = Vec::new();
    for (i, p) in kernel.get_param_iter().enumerate() {
        let idx = ctx.i64_type().const_int(i as u64, false);
        // SAFETY: in-bounds by construction: the caller passes one word per parameter.
        let slot = unsafe { b.build_gep(ptr, args, &[idx], "") }.map_err(err)?;
        let word = b
            .build_load(ptr, slot, "")
            .map_err(err)?
            .into_pointer_value();
        let v = b.build_load(p.get_type(), word, "").map_err(err)?;
        call_args.push(v.into());
    }
    b.build_call(kernel, &call_args, "").map_err(err)?;
    b.build_return(None).map_err(err)?;
    Ok(name)
}

/// Run LLVM's O3 pipeline for this CPU before the JIT: MCJIT's
/// optimisation level only steers code generation, and MLIR's
/// ExecutionEngine runs O3, so without this an `.ll` kernel would be
/// compared unoptimised against its `.mlir` twin.
fn optimize_for_host(module: &Module) -> Result<(), RuntimeError> {
    use inkwell::targets::{CodeModel, RelocMode, TargetMachine};
    let triple = TargetMachine::get_default_triple();
    let target =
        Target::from_triple(&triple).map_err(|e| launch(format!("LLVM host target: {e}")))?;
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    let tm = target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or_else(|| launch("LLVM: no target machine for this CPU"))?;
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    // MCJIT generates code for a generic CPU unless each function says
    // otherwise; the MLIR JIT targets this CPU, so the LLVM path does too.
    let ctx = module.get_context();
    for f in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
    {
        let loc = inkwell::attributes::AttributeLoc::Function;
        f.add_attribute(loc, ctx.create_string_attribute("target-cpu", &cpu));
        f.add_attribute(
            loc,
            ctx.create_string_attribute("target-features", &features),
        );
    }
    module
        .run_passes(
            "default<O3>",
            &tm,
            inkwell::passes::PassBuilderOptions::create(),
        )
        .map_err(|e| launch(format!("LLVM O3 pipeline: {e}")))
}

extern "C" fn ignore_diagnostic(
    _: inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef,
    _: *mut std::ffi::c_void,
) {
}

/// Ready LLVM's native target for MCJIT and parse `ir` (text or bitcode)
/// into `ctx`.
pub(crate) fn parse_for_jit<'c>(
    ctx: &'c Context,
    ir: &[u8],
    file: &str,
) -> Result<Module<'c>, RuntimeError> {
    Target::initialize_x86(&InitializationConfig::default());
    Target::initialize_native(&InitializationConfig::default())
        .map_err(|e| launch(format!("LLVM native target: {e}")))?;
    // With the `Debug Info Version` flag the parser verifies the module
    // itself and aborts the process on a broken one: verify a copy without
    // it first (the parser then drops the debug info instead).
    const FLAG: &str = "\"Debug Info Version\"";
    if !ir.starts_with(b"BC") {
        let text = String::from_utf8_lossy(ir);
        if text.contains(FLAG) {
            let copy = text.replace(FLAG, "\"kperf: Debug Info Version (verifying)\"");
            let buf = MemoryBuffer::create_from_memory_range_copy(copy.as_bytes(), file);
            // Its own context, with LLVM's diagnostics to nobody: the copy's
            // parser warns that it ignores the debug info, which is the point.
            let quiet = Context::create();
            // SAFETY: a handler that ignores its arguments, on a live context.
            unsafe {
                inkwell::llvm_sys::core::LLVMContextSetDiagnosticHandler(
                    quiet.raw(),
                    Some(ignore_diagnostic),
                    std::ptr::null_mut(),
                )
            };
            let verdict = match quiet.create_module_from_ir(buf) {
                Ok(m) => m.verify().map_err(|e| e.to_string()),
                Err(_) => Ok(()),
            };
            verdict.map_err(|e| {
                launch(format!(
                    "{file}: not valid LLVM IR (the verifier says): {}",
                    e.trim()
                ))
            })?;
        }
    }
    let buf = MemoryBuffer::create_from_memory_range_copy(ir, file);
    let module = if ir.starts_with(b"BC") {
        Module::parse_bitcode_from_buffer(&buf, ctx)
    } else {
        ctx.create_module_from_ir(buf)
    }
    .map_err(|e| launch(format!("{file}: not valid LLVM IR: {e}")))?;
    // The parser does not verify: a broken phi parsed, and the JIT spun
    // forever in the forked child.
    module.verify().map_err(|e| {
        launch(format!(
            "{file}: not valid LLVM IR (the verifier says): {}",
            e.to_string().trim()
        ))
    })?;
    Ok(module)
}

/// Add the packed wrapper of `kernel`, optimise `module` for this CPU, JIT
/// it with `symbols` (name, address) bound, and return the engine (which
/// must outlive every call) and the wrapper.
pub(crate) fn jit_packed<'c>(
    ctx: &'c Context,
    module: &Module<'c>,
    kernel: FunctionValue<'c>,
    symbols: &[(&str, usize)],
) -> Result<(inkwell::execution_engine::ExecutionEngine<'c>, Packed), RuntimeError> {
    let wrapper = packed_wrapper(ctx, module, kernel)?;
    optimize_for_host(module)?;
    let engine = module
        .create_jit_execution_engine(OptimizationLevel::Aggressive)
        .map_err(|e| launch(format!("JIT: {e}")))?;
    for (sym, addr) in symbols {
        if let Some(decl) = module.get_function(sym) {
            engine.add_global_mapping(&decl, *addr);
        } else if let Some(global) = module.get_global(sym) {
            engine.add_global_mapping(&global, *addr);
        }
    }
    let addr = engine
        .get_function_address(&wrapper)
        .map_err(|e| launch(format!("JIT: `{wrapper}`: {e}")))?;
    // SAFETY: the wrapper has the packed signature built by packed_wrapper.
    let packed: Packed = unsafe { std::mem::transmute::<usize, Packed>(addr) };
    Ok((engine, packed))
}

/// JIT host-ABI LLVM IR and run `kernel` (or the only kernel) over the
/// spec's grid. `meta` is present when the module is instrumented; its
/// profile parameter then sits before the six grid parameters.
pub fn run_host_llvm(
    ir: &[u8],
    file: &str,
    kernel: Option<&str>,
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
    threads: usize,
) -> Result<(HostRun, String), RuntimeError> {
    let (run, name) = with_host_llvm_kernel(ir, file, kernel, meta, spec, threads, |mut grid| {
        let wall_ns = grid.launch_warm()?;
        grid.into_run(wall_ns)
    })?;
    Ok((run?, name))
}

/// JIT host-ABI LLVM IR and hand `body` a launcher for `kernel` (or the
/// only kernel) with the spec's arguments in place. Returns what `body`
/// returns and the kernel's name.
pub fn with_host_llvm_kernel<R>(
    ir: &[u8],
    file: &str,
    kernel: Option<&str>,
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
    threads: usize,
    body: impl for<'jit> FnOnce(GridLauncher<'jit>) -> R,
) -> Result<(R, String), RuntimeError> {
    let ctx = Context::create();
    let module = parse_for_jit(&ctx, ir, file)?;
    let want = kernel.or(meta.map(|m| m.name.as_str()));
    let candidates: Vec<FunctionValue> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0 && f.count_params() >= GRID_ARGS)
        .filter(|f| {
            let n = f.get_name().to_string_lossy();
            !n.starts_with("_mlir_") && !n.starts_with("__kperf")
        })
        .collect();
    let f = match want {
        Some(w) => candidates
            .iter()
            .copied()
            .find(|f| f.get_name().to_string_lossy() == w)
            .ok_or_else(|| launch(format!("{file}: no host kernel `{w}`")))?,
        None => match candidates.as_slice() {
            [one] => *one,
            [] => {
                return Err(launch(format!(
                    "{file}: no host kernel (a function ending with six i64 grid parameters)"
                )))
            }
            many => {
                return Err(launch(format!(
                    "{file}: several kernels ({}); name one in the spec (`kernel = ...`)",
                    many.iter()
                        .map(|f| f.get_name().to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        },
    };
    let name = f.get_name().to_string_lossy().into_owned();
    let types = f.get_type().get_param_types();
    let extra = GRID_ARGS + meta.is_some() as u32;
    let own = &types[..types.len() - extra as usize];
    let params: Vec<Param> = own
        .iter()
        .enumerate()
        .map(|(i, t)| {
            param_of(t).ok_or_else(|| {
                launch(format!(
                    "kernel `{name}` parameter {i} has type {t:?}, which the host runner does not support"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let (engine, packed) = jit_packed(
        &ctx,
        &module,
        f,
        &[
            ("kperf_host_now_ns", kperf_host_now_ns as *const () as usize),
            ("kperf_host_cpu", kperf_host_cpu as *const () as usize),
        ],
    )?;
    // SAFETY: the wrapper has the packed signature for `params` and lives
    // as long as `engine`, which outlives the launcher.
    let grid = unsafe { GridLauncher::new(packed, &name, &params, meta, spec, threads)? };
    let out = body(grid);
    drop(engine);
    Ok((out, name))
}
