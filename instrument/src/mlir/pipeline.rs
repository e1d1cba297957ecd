//! The whole MLIR path for one input: stage detection, region insertion,
//! the two lowerings, and the upstream pipelines to LLVM IR, PTX or ISA.

use super::ir::{self, Op};
use super::lower::{self, HOST_GRID_ARG_COUNT};
use super::outline::outline_launches;
use super::regions;
use super::{module_op, print_module, KperfContext};
use crate::error::{InstrumentError, Result};
use crate::options::{Emit, InstrumentOptions, RegionMode, Target};
use kperf_dialects::irdl::ops;
use kperf_dialects::meta::{InstrumentMeta, KernelMeta};
use melior::ir::Module;
use mlir_sys::*;
use std::collections::HashMap;

/// What `instrument` produced.
pub struct Output {
    /// Text (MLIR, LLVM IR, PTX, ISA) or binary (cubin).
    pub bytes: Vec<u8>,
    pub meta: InstrumentMeta,
}

/// Upstream passes that take a host module (func/scf/arith/memref plus the
/// kperf lowering's llvm ops) to the LLVM dialect the ExecutionEngine runs.
pub const HOST_LOWERING: &str = "lower-affine,convert-scf-to-cf,expand-strided-metadata,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts";

/// PTX 8.0 (upstream's default), or the chip's minimum where that is later
/// (sm_100: 8.6, sm_120: 8.7).
fn mlir_ptx_version(chip: &str) -> u32 {
    crate::options::nvptx_min_ptx(chip).max(80)
}

/// `format` is what `gpu-module-to-binary` produces: `isa` (PTX text) or
/// `llvm` (LLVM bitcode).
pub fn nvptx_lowering(chip: &str, format: &str) -> String {
    let ptx = mlir_ptx_version(chip);
    format!(
        "nvvm-attach-target{{chip={chip} features=+ptx{ptx} O=3}},gpu-lower-to-nvvm-pipeline{{cubin-chip={chip} cubin-features=+ptx{ptx} cubin-format={format} opt-level=3}}"
    )
}

/// [`nvptx_lowering`] with the source's locations kept as a line table,
/// for `kperf cost` (`line_tags`): upstream's pipeline strips debug info
/// from GPU modules, so this spells out its passes (MLIR 22's
/// `buildLowerToNVVMPassPipeline`, same order and options) without
/// `strip-debuginfo` and with line-table debug info made for every
/// `llvm.func` before serialisation. kperf's own ops carry the locations of
/// the templates they were parsed from (`<kperf template init>`, ...), so
/// the SASS line table tells kperf's instructions from the kernel's, as
/// line tags do on the LLVM-IR path. Debug info changes no code: a test
/// holds the SASS of both pipelines equal.
///
/// `link`: bitcode to link into each GPU module before it is serialized
/// (libdevice).
pub fn nvptx_lowering_with_lines(chip: &str, format: &str, link: Option<&str>) -> String {
    let ptx = mlir_ptx_version(chip);
    let link = link.map_or(String::new(), |l| format!(" l={l}"));
    format!(
        "nvvm-attach-target{{chip={chip} features=+ptx{ptx} O=3}},\
         convert-nvgpu-to-nvvm,gpu-kernel-outlining,convert-vector-to-scf,convert-scf-to-cf,\
         convert-nvvm-to-llvm,convert-func-to-llvm,expand-strided-metadata,\
         nvvm-attach-target{{chip={chip} features=+ptx{ptx} O=3 triple=nvptx64-nvidia-cuda}},\
         lower-affine,convert-arith-to-llvm,convert-index-to-llvm{{index-bitwidth=64}},canonicalize,cse,\
         gpu.module(convert-gpu-to-nvvm{{index-bitwidth=64 use-bare-ptr-memref-call-conv=0}},\
         llvm-optimize-for-nvvm-target,canonicalize,cse,reconcile-unrealized-casts),\
         ensure-debug-info-scope-on-llvm-func{{emission-kind=DebugDirectivesOnly}},\
         gpu-to-llvm{{use-bare-pointers-for-host=0 use-bare-pointers-for-kernels=0}},\
         gpu-module-to-binary{{format={format}{link}}},convert-math-to-llvm,canonicalize,cse,\
         reconcile-unrealized-casts"
    )
}

/// Whether the module's GPU code calls libdevice: `math` dialect ops
/// (which the NVVM lowering turns into `__nv_*` calls) or `__nv_*`
/// functions declared or called.
fn uses_libdevice(module: Op) -> bool {
    module.nested_ops().into_iter().any(|o| {
        let name = o.name();
        name.starts_with("math.")
            || (matches!(name.as_str(), "llvm.func" | "func.func")
                && o.str_attr("sym_name")
                    .is_some_and(|s| s.starts_with("__nv_")))
    })
}

/// The chip goes to `convert-gpu-to-rocdl` too: its AMDGPU patterns (raw
/// buffer ops, LDS barriers) depend on the chipset and refuse the default.
/// `runtime=HIP` lowers `gpu.printf` as upstream's ROCm tests do (HIP's
/// device library, linked from ROCm's amdgcn bitcode: a machine without
/// ROCm says that directory is missing); it changes nothing else.
/// `expand-strided-metadata` and `lower-affine` first, as the NVVM pipeline
/// runs them: a `memref.subview` (or `expand_shape`, `reinterpret_cast`)
/// failed to translate as an `unrealized_conversion_cast`.
pub fn amdgpu_lowering(chip: &str, format: &str) -> String {
    format!("rocdl-attach-target{{chip={chip} O=3}},gpu.module(expand-strided-metadata,lower-affine,convert-scf-to-cf,convert-gpu-to-rocdl{{chipset={chip} runtime=HIP}}),gpu-module-to-binary{{format={format}}}")
}

/// Instrument `source` (named `file` in diagnostics) up to `emit`.
pub fn instrument(
    kctx: &KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
    emit: Emit,
) -> Result<Output> {
    crate::plan::with_buffer_choice(opts, |opts| {
        let mut module = parse_input(kctx, source, file, opts)?;
        let mut meta = instrument_module(kctx, &mut module, file, opts, emit)?;
        meta.source_sha256 = Some(crate::source_digest(source.as_bytes()));
        if let (Target::Nvptx { chip, simt: false }, Emit::Llvm | Emit::Ptx | Emit::Cubin) =
            (&opts.target, emit)
        {
            if !meta.kernels.is_empty() {
                let plain = plain_module(kctx, source, file, opts)?;
                let matched = super::unroll::unroll_as_plain(kctx, &mut module, &plain, chip)?;
                meta.unrolled_as_plain = matched
                    .hinted
                    .iter()
                    .map(|(f, l, c)| format!("{f}:{l}:{c}"))
                    .collect();
            }
        }
        let bytes = emit_module(kctx, &mut module, opts, emit)?;
        Ok(Output { bytes, meta })
    })
}

/// Whether `op` lies inside a `gpu.module`.
fn inside_gpu_module(op: Op) -> bool {
    let mut p = op.parent();
    while let Some(o) = p {
        if o.name() == "gpu.module" {
            return true;
        }
        p = o.parent();
    }
    false
}

/// Run the kperf passes in place, stopping after the stage `emit` asks for.
pub fn instrument_module(
    kctx: &KperfContext,
    module: &mut Module,
    file: &str,
    opts: &InstrumentOptions,
    emit: Emit,
) -> Result<InstrumentMeta> {
    opts.validate()?;
    let opts = &opts.normalized();
    if !opts.target.is_host() {
        outline_launches(kctx, module, opts.sink_constants)?;
    }
    let top = module_op(module);
    unique_kernel_names(kctx, top);
    let all = regions::find_kernels(top, &opts.target);
    let kernels: Vec<Op> = all
        .iter()
        .copied()
        .filter(|k| !k.has_attr(INSTRUMENTED))
        .collect();
    if kernels.is_empty() {
        // `kperf opt`'s output: "no kernel found" denied the kernel there.
        if let Some(k) = all.first() {
            return Err(InstrumentError::At {
                location: k.loc_string(),
                message: format!(
                    "kernel `{}` is instrumented already (`{INSTRUMENTED}`: the output of \
                     `kperf opt` or `kperf instrument --emit mlir`): instrument or run the \
                     source it came from",
                    regions::symbol_name(*k)
                ),
            });
        }
        return Err(no_kernel(top, &opts.target, file));
    }
    if opts.target.is_host() {
        for k in &kernels {
            apply_host_abi(kctx, *k)?;
        }
    }
    let ctx = kctx.ctx.to_raw();
    let already_gpu = |k: Op| k.nested_ops().iter().any(|o| o.name() == ops::INIT);
    for k in &kernels {
        if !already_gpu(*k) {
            if !opts.markers {
                regions::strip_user_regions(*k);
            }
            // Finalize once, at one return, in a kernel that records (one
            // the modes found nothing in stays exactly as it was). With the
            // kernel region, its END goes there too: ENDs before each old
            // return kept LLVM from sinking the paths' common stores.
            let kernel_region = opts.regions.contains(&RegionMode::Kernel);
            if kernel_region {
                regions::unify_returns(*k);
            }
            regions::insert_regions(ctx, *k, &opts.regions)?;
            if !kernel_region && k.nested_ops().iter().any(|o| o.name() == ops::RECORD) {
                regions::unify_returns(*k);
            }
            if opts.ordering.strict_for(&opts.target) {
                super::pin::pin_regions(kctx, *k, &opts.target)?;
            }
        }
    }
    kctx.verify(module)?;
    let mut meta = new_meta(opts, file);
    meta.notes.extend(regions_outside_kernels(top, &kernels));
    // A kernel the modes found nothing in stays exactly as it was: no
    // init, finalize, ring or profile parameter for zero records.
    let (kernels, untouched): (Vec<Op>, Vec<Op>) = kernels
        .into_iter()
        .partition(|k| already_gpu(*k) || k.nested_ops().iter().any(|o| o.name() == ops::RECORD));
    meta.uninstrumented = untouched.iter().map(|k| regions::symbol_name(*k)).collect();
    if emit == Emit::Kperf {
        return Ok(meta);
    }
    for k in &kernels {
        if !already_gpu(*k) {
            lower::to_kperfgpu(*k, opts)?;
        }
    }
    kctx.verify(module)?;
    if emit == Emit::KperfGpu {
        for k in &kernels {
            meta.kernels.extend(lower::kernel_meta(*k, &opts.target)?);
        }
        return Ok(meta);
    }
    let top = module_op(module);
    for k in &kernels {
        if let Some(mut km) = lower_kernel(kctx, top, *k, &opts.target)? {
            km.max_registers = cap_registers(*k, opts, &km.name);
            meta.kernels.push(km);
        }
    }
    if let Some(init) = top
        .nested_ops()
        .into_iter()
        .find(|o| o.name().starts_with("kperf"))
    {
        return Err(InstrumentError::At {
            location: init.loc_string(),
            message: format!("`{}` outside any kernel was not lowered", init.name()),
        });
    }
    meta.shared_slots = meta.kernels.first().map(|k| k.layout.slots).unwrap_or(0);
    kctx.verify(module)?;
    Ok(meta)
}

/// A note for each `kperf.region` attribute outside every kernel (in a
/// device function a kernel calls): regions are recorded in kernels only,
/// and such an attribute vanished without a word. Explicit records there
/// are refused ("outside any kernel was not lowered").
fn regions_outside_kernels(top: Op, kernels: &[Op]) -> Vec<String> {
    let inside = |o: Op| {
        let mut p = o.parent();
        while let Some(q) = p {
            if kernels.iter().any(|k| k.0.ptr == q.0.ptr) {
                return true;
            }
            p = q.parent();
        }
        false
    };
    top.nested_ops()
        .into_iter()
        .filter(|o| o.has_attr(kperf_dialects::irdl::attrs::REGION) && !inside(*o))
        .map(|o| {
            let holder = {
                let mut p = o.parent();
                while let Some(q) = p.filter(|q| !q.name().ends_with(".func")) {
                    p = q.parent();
                }
                p.map(regions::symbol_name).unwrap_or_default()
            };
            let on_device = {
                let mut p = o.parent();
                while let Some(q) = p.filter(|q| q.name() != "gpu.module") {
                    p = q.parent();
                }
                p.is_some()
            };
            format!(
                "{}: `kperf.region = \"{}\"` on `{}` is in `{holder}`, not in a kernel: it is not \
                 recorded (regions are recorded in kernels only: {})",
                o.loc_string(),
                o.str_attr(kperf_dialects::irdl::attrs::REGION)
                    .unwrap_or_default(),
                o.name(),
                if on_device {
                    "put the attribute on the kernel's call of the function instead"
                } else {
                    "this is host code, which runs on the CPU"
                }
            )
        })
        .collect()
}

/// Give every device kernel a name of its own across `gpu.module`s:
/// outlining two `gpu.launch` of `@main` makes `@main_kernel::@main_kernel`
/// and `@main_kernel_0::@main_kernel`, which one PTX file and the metadata
/// cannot tell apart. A repeated kernel takes its module's name (unique in
/// the file), or `<module>_<kernel>`; its `gpu.launch_func`s follow.
pub fn unique_kernel_names(kctx: &KperfContext, top: Op) {
    unique_device_function_names(kctx, top);
    let ctx = kctx.ctx.to_raw();
    let kernels: Vec<Op> = top
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "gpu.func" && o.has_attr("gpu.kernel"))
        .collect();
    let mut taken: std::collections::HashSet<String> =
        kernels.iter().map(|k| regions::symbol_name(*k)).collect();
    let mut seen = std::collections::HashSet::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    for k in kernels {
        let name = regions::symbol_name(k);
        if seen.insert(name.clone()) {
            continue;
        }
        let Some(module) = k.parent().filter(|m| m.name() == "gpu.module") else {
            continue;
        };
        let module_name = regions::symbol_name(module);
        let new = [module_name.clone(), format!("{module_name}_{name}")]
            .into_iter()
            .find(|n| !taken.contains(n))
            .unwrap_or_else(|| format!("{module_name}_{name}_{}", taken.len()));
        taken.insert(new.clone());
        seen.insert(new.clone());
        k.set_attr("sym_name", unsafe {
            mlirStringAttrGet(ctx, ir::sref(&new))
        });
        renames.push((
            format!("@{module_name}::@{name}"),
            format!("@{module_name}::@{new}"),
        ));
    }
    if renames.is_empty() {
        return;
    }
    for launch in top.nested_ops() {
        if launch.name() != "gpu.launch_func" {
            continue;
        }
        let Some(a) = launch.attr("kernel") else {
            continue;
        };
        let text = ir::attr_string(a);
        if let Some((_, new)) = renames.iter().find(|(old, _)| *old == text) {
            let attr = unsafe { mlirAttributeParseGet(ctx, ir::sref(new)) };
            if !attr.ptr.is_null() {
                launch.set_attr("kernel", attr);
            }
        }
    }
}

/// Device functions of one name in two `gpu.module`s (upstream's
/// gpu-to-nvvm-target-attr.mlir has `@kernel_0` in both): the modules are
/// linked into one LLVM module, so the later ones are renamed
/// `<module>_<name>`, with their calls, as kernels are. The PTX held two
/// definitions and did not assemble, written with exit 0.
fn unique_device_function_names(kctx: &KperfContext, top: Op) {
    let ctx = kctx.ctx.to_raw();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for module in top
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "gpu.module")
    {
        let module_name = regions::symbol_name(module);
        let symbols: Vec<Op> = module
            .regions()
            .into_iter()
            .filter_map(|r| r.first_block())
            .flat_map(|b| b.ops())
            .filter(|o| o.has_attr("sym_name"))
            .collect();
        for f in symbols {
            let name = regions::symbol_name(f);
            if taken.insert(name.clone()) || f.has_attr("gpu.kernel") {
                continue;
            }
            let new = (0..)
                .map(|k| match k {
                    0 => format!("{module_name}_{name}"),
                    k => format!("{module_name}_{name}_{k}"),
                })
                .find(|n| !taken.contains(n))
                .expect("an unused name");
            taken.insert(new.clone());
            // SAFETY: a live symbol op and its module; the names outlive
            // the calls.
            unsafe {
                mlirSymbolTableReplaceAllSymbolUses(ir::sref(&name), ir::sref(&new), module.0);
            }
            f.set_attr("sym_name", unsafe {
                mlirStringAttrGet(ctx, ir::sref(&new))
            });
        }
    }
}

fn new_meta(opts: &InstrumentOptions, file: &str) -> InstrumentMeta {
    let mut meta = InstrumentMeta::new_header(
        &opts.target.name(),
        opts.counter,
        opts.granularity,
        opts.buffer,
        opts.strategy,
    );
    meta.source = file.to_string();
    meta
}

/// Cap kernel `name` at its register limit from the options (the NVVM
/// attribute `nvvm.maxnreg`, written as `.maxnreg`), keeping a lower cap the
/// kernel already has; the cap in force, if any.
fn cap_registers(kernel: Op, opts: &InstrumentOptions, name: &str) -> Option<u32> {
    const ATTR: &str = "nvvm.maxnreg";
    if !matches!(opts.target, Target::Nvptx { .. }) {
        return None;
    }
    let existing = kernel.int_attr(ATTR).and_then(|v| u32::try_from(v).ok());
    let cap = match (opts.register_limits.get(name).copied(), existing) {
        (Some(l), Some(e)) => l.min(e),
        (Some(l), None) => l,
        (None, e) => return e,
    };
    let ctx = unsafe { mlirLocationGetContext(kernel.location()) };
    kernel.set_attr(ATTR, unsafe {
        mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 32), cap as i64)
    });
    Some(cap)
}

/// Lower one kernel's `kperfgpu` ops and make host launches of it pass a
/// profile pointer; returns its metadata when it was instrumented.
fn lower_kernel(
    kctx: &KperfContext,
    module: Op,
    kernel: Op,
    target: &Target,
) -> Result<Option<KernelMeta>> {
    let km = lower::to_llvm(kctx, kernel, target)?;
    if km.is_some() {
        kernel.set_attr(INSTRUMENTED, unsafe {
            mlirUnitAttrGet(mlirLocationGetContext(kernel.location()))
        });
        if !target.is_host() {
            lower::pass_null_profile_at_launches(kctx, module, kernel, "!llvm.ptr<1>")?;
        }
    }
    Ok(km)
}

/// Lower the instrumented module to what `emit` names and return its bytes.
pub fn emit_module(
    kctx: &KperfContext,
    module: &mut Module,
    opts: &InstrumentOptions,
    emit: Emit,
) -> Result<Vec<u8>> {
    // MLIR's NVPTX target compiles with LLVM's defaults, whatever an LLVM-IR
    // build in this process set before.
    crate::llvm::set_nvptx_codegen_options(false);
    crate::llvm::set_unknown_locations(false);
    match emit {
        Emit::Kperf | Emit::KperfGpu | Emit::Mlir => Ok(print_module(module).into_bytes()),
        Emit::Bitcode => Err(InstrumentError::Option(
            "--emit bc is for LLVM IR input; from MLIR use --emit llvm".into(),
        )),
        Emit::Llvm => match &opts.target {
            Target::Host => {
                kctx.run_pipeline(module, HOST_LOWERING)?;
                // What `kperf run --target host` refuses by name (a
                // `gpu.launch` left in the module) must not reach the
                // translation, which cannot say where it failed.
                refuse_unlowered(module)?;
                translate_to_llvm_ir(module)
            }
            Target::Nvptx { chip, .. } => {
                kctx.run_pipeline(module, &nvptx_lowering(chip, "llvm"))?;
                bitcode_objects_to_text(gpu_binary_objects(module)?)
            }
            Target::Amdgpu { chip } => {
                kctx.run_pipeline(module, &amdgpu_lowering(chip, "llvm"))?;
                bitcode_objects_to_text(gpu_binary_objects(module)?)
            }
        },
        Emit::Ptx | Emit::Cubin => {
            let Target::Nvptx { chip, .. } = &opts.target else {
                return Err(InstrumentError::Option(
                    "--emit ptx/cubin needs --target nvptx:<sm>".into(),
                ));
            };
            let libdevice = opts
                .libdevice
                .as_ref()
                .filter(|_| uses_libdevice(module_op(module)))
                .map(|p| p.display().to_string());
            let lowering = match (opts.line_tags, &libdevice) {
                (false, None) => nvptx_lowering(chip, "isa"),
                // Upstream's pipeline cannot link a file: its passes
                // spelled out can (their code is the same, a test holds it).
                _ => nvptx_lowering_with_lines(chip, "isa", libdevice.as_deref()),
            };
            kctx.run_pipeline(module, &lowering)?;
            let ptx = gpu_binary_ptx(module)?;
            if emit == Emit::Ptx {
                Ok(ptx.into_bytes())
            } else {
                crate::tools::ptxas_cubin(&ptx, chip)
            }
        }
        Emit::Isa => {
            let Target::Amdgpu { chip } = &opts.target else {
                return Err(InstrumentError::Option(
                    "--emit isa needs --target amdgpu:<gfx>".into(),
                ));
            };
            kctx.run_pipeline(module, &amdgpu_lowering(chip, "isa"))?;
            Ok(gpu_binary_assembly(module)?.into_bytes())
        }
    }
}

pub(crate) fn translate_to_llvm_ir(module: &Module) -> Result<Vec<u8>> {
    use inkwell::llvm_sys::core::{
        LLVMContextCreate, LLVMContextDispose, LLVMDisposeMessage, LLVMDisposeModule,
        LLVMPrintModuleToString,
    };
    // Not mlirTranslateModuleToLLVMIRToString: it prints the module without
    // checking that translation produced one, and a module with ops that
    // have no LLVM translation (a `gpu.launch` on the host) crashed kperf.
    unsafe {
        let ctx = LLVMContextCreate();
        let m = mlirTranslateModuleToLLVMIR(module_op(module).0, ctx as _);
        if m.is_null() {
            LLVMContextDispose(ctx);
            return Err(InstrumentError::Verify(
                "translation to LLVM IR failed: the module holds an op without an LLVM IR \
                 translation"
                    .into(),
            ));
        }
        let p = LLVMPrintModuleToString(m as _);
        let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        LLVMDisposeModule(m as _);
        LLVMContextDispose(ctx);
        Ok(s.into_bytes())
    }
}

/// The payload bytes of every object in the module's `gpu.binary` ops
/// (`#gpu.object<target, kind = "...">`), MLIR's string escapes undone.
pub fn gpu_binary_payload(module: &Module) -> Result<Vec<u8>> {
    Ok(gpu_binary_objects(module)?.concat())
}

/// Each object's payload, in module order.
pub(crate) fn gpu_binary_objects(module: &Module) -> Result<Vec<Vec<u8>>> {
    let top = module_op(module);
    let mut out = Vec::new();
    for b in top
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "gpu.binary")
    {
        let Some(objs) = b.attr("objects") else {
            continue;
        };
        let n = unsafe { mlirArrayAttrGetNumElements(objs) };
        for i in 0..n {
            let obj = unsafe { mlirArrayAttrGetElement(objs, i) };
            let text = ir::attr_string(obj);
            out.push(unescape_mlir_string(&text));
        }
    }
    if out.is_empty() {
        return Err(InstrumentError::Verify(
            "no gpu.binary object was produced".into(),
        ));
    }
    Ok(out)
}

/// The assembly text (PTX, AMDGPU ISA) inside `gpu.binary` objects.
pub fn gpu_binary_assembly(module: &Module) -> Result<String> {
    Ok(String::from_utf8_lossy(&gpu_binary_payload(module)?).into_owned())
}

/// The PTX of every `gpu.binary` as one file ptxas and the driver accept:
/// one module per `gpu.module` would repeat `.version`, `.target` and
/// `.address_size`, which ptxas rejects; later modules lose them (all
/// modules are compiled for the same chip), and a repeated `.extern`
/// declaration is dropped.
pub fn gpu_binary_ptx(module: &Module) -> Result<String> {
    let mut out = String::new();
    let mut externs = std::collections::HashSet::new();
    let mut files = LineTableFiles::default();
    for (i, ptx) in gpu_binary_objects(module)?.iter().enumerate() {
        let text = String::from_utf8_lossy(ptx);
        let renumber = files.add_module(&text);
        for line in text.split_inclusive('\n') {
            let t = line.trim_start();
            let header = t.starts_with(".version")
                || t.starts_with(".target")
                || t.starts_with(".address_size");
            if i > 0 && (header || t.starts_with(".section\t.debug_macinfo")) {
                continue;
            }
            if t.starts_with(".extern")
                && t.trim_end().ends_with(';')
                && !externs.insert(t.to_string())
            {
                continue;
            }
            match LineTableFiles::rewrite(t, &renumber) {
                Some(None) => continue,
                Some(Some(rewritten)) => {
                    out.push('\t');
                    out.push_str(&rewritten);
                    out.push('\n');
                }
                None => out.push_str(line),
            }
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

/// The source files of the line tables of several PTX modules joined into
/// one: each module numbers its `.file`s from 1, and ptxas refuses a
/// repeated index ("Duplicate file index"). Every path gets one index
/// across the modules; each module's `.loc`s follow it.
#[derive(Default)]
struct LineTableFiles {
    paths: Vec<String>,
}

impl LineTableFiles {
    /// Register `ptx`'s `.file` directives; its local index → the joined one.
    fn add_module(&mut self, ptx: &str) -> HashMap<u32, (u32, bool)> {
        let mut map = HashMap::new();
        for t in ptx.lines().map(str::trim_start) {
            let Some((index, path)) = Self::file_directive(t) else {
                continue;
            };
            let (global, new) = match self.paths.iter().position(|p| *p == path) {
                Some(k) => (k as u32 + 1, false),
                None => {
                    self.paths.push(path);
                    (self.paths.len() as u32, true)
                }
            };
            map.insert(index, (global, new));
        }
        map
    }

    /// `.file N "path"...` → (N, path).
    fn file_directive(t: &str) -> Option<(u32, String)> {
        let rest = t.strip_prefix(".file")?.trim_start();
        let (index, rest) = rest.split_once(char::is_whitespace)?;
        let path = rest.trim_start().strip_prefix('"')?.split('"').next()?;
        Some((index.parse().ok()?, path.to_string()))
    }

    /// A `.file` or `.loc` line with its index renumbered (`None` inside:
    /// drop a `.file` already given), or `None` for any other line.
    fn rewrite(t: &str, renumber: &HashMap<u32, (u32, bool)>) -> Option<Option<String>> {
        let t = t.trim_end();
        if let Some((index, _)) = Self::file_directive(t) {
            let &(global, new) = renumber.get(&index)?;
            if !new {
                return Some(None);
            }
            let rest = t
                .strip_prefix(".file")?
                .trim_start()
                .split_once(char::is_whitespace)?
                .1;
            return Some(Some(format!(".file\t{global} {}", rest.trim_start())));
        }
        let rest = t.strip_prefix(".loc")?;
        let mut words = rest.split_whitespace();
        let index: u32 = words.next()?.parse().ok()?;
        let &(global, _) = renumber.get(&index)?;
        let tail: Vec<&str> = words.collect();
        Some(Some(format!(".loc\t{global} {}", tail.join(" "))))
    }
}

/// One LLVM IR text for the bitcode of every `gpu.module`: one module is
/// disassembled as it is; several (a file with two `gpu.module`s) are
/// linked into one, since concatenated bitcode is not a module.
fn bitcode_objects_to_text(objects: Vec<Vec<u8>>) -> Result<Vec<u8>> {
    use inkwell::memory_buffer::MemoryBuffer;
    if let [one] = objects.as_slice() {
        return disassemble_bitcode(one);
    }
    let ctx = inkwell::context::Context::create();
    let mut linked: Option<inkwell::module::Module> = None;
    for (i, bc) in objects.iter().enumerate() {
        let name = format!("gpu.module #{}", i + 1);
        let buf = MemoryBuffer::create_from_memory_range_copy(bc, &name);
        let m = inkwell::module::Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| {
            InstrumentError::Verify(format!("{name}: the backend's bitcode does not load: {e}"))
        })?;
        match &linked {
            None => linked = Some(m),
            Some(into) => into.link_in_module(m).map_err(|e| {
                InstrumentError::Verify(format!(
                    "the file's gpu.modules do not link into one LLVM module ({name}: {e}); \
                     emit ptx or cubin, which keep one object per gpu.module"
                ))
            })?,
        }
    }
    Ok(linked
        .map(|m| m.print_to_string().to_string().into_bytes())
        .unwrap_or_default())
}

/// In process, with the LLVM kperf links: a machine that runs kperf need not
/// have LLVM's tools (the lent GPU machines have none; llvm-dis missing there
/// stopped every MLIR kernel on the SIMT target).
fn disassemble_bitcode(bc: &[u8]) -> Result<Vec<u8>> {
    use inkwell::memory_buffer::MemoryBuffer;
    let ctx = inkwell::context::Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(bc, "gpu.module");
    let m = inkwell::module::Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| {
        InstrumentError::Verify(format!("the backend's bitcode does not load: {e}"))
    })?;
    Ok(m.print_to_string().to_string().into_bytes())
}

/// Pull the quoted payload out of `#gpu.object<#nvvm.target<...>, kind = "...">`
/// and undo MLIR's string escapes (llvm::printEscapedString): a backslash
/// is printed as two, `"` and non-printable bytes as a backslash and two hex
/// digits, so the payload is the text between the last two quotes.
fn unescape_mlir_string(attr: &str) -> Vec<u8> {
    let Some(end) = attr.rfind('"') else {
        return Vec::new();
    };
    let Some(start) = attr[..end].rfind('"') else {
        return Vec::new();
    };
    let bytes = &attr.as_bytes()[start + 1..end];
    let hex = |c: u8| (c as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
            continue;
        }
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|c| hex(*c)),
            bytes.get(i + 2).and_then(|c| hex(*c)),
        ) {
            (b'\\', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The error for a module without kernels. On the host, where a public
/// `func.func` is a kernel unless another function calls it, a module whose
/// public functions all call each other says so instead of "no kernel".
fn no_kernel(module: Op, target: &Target, file: &str) -> InstrumentError {
    // A GPU kernel given to the host target: say which target takes it
    // (first: a `func.func` helper it calls read as "called by ``").
    let device = target.is_host().then(|| {
        regions::find_kernels(
            module,
            &Target::Nvptx {
                chip: "sm_90".into(),
                simt: false,
            },
        )
    });
    if let Some(k) = device.as_ref().and_then(|d| d.first()) {
        return InstrumentError::At {
            location: k.loc_string(),
            message: format!(
                "`{}` is a GPU kernel ({}), and the host target runs `func.func` kernels \
                 with one thread per CTA: use --target simt to run it with its threads \
                 on the CPU, or --target nvptx",
                regions::symbol_name(*k),
                k.name()
            ),
        };
    }
    // The reverse: host kernels (`func.func`) given to a device target.
    // They run on the CPU only; a GPU build has nothing to launch.
    let host = (!target.is_host()).then(|| regions::find_kernels(module, &Target::Host));
    if let Some(k) = host.as_ref().and_then(|h| h.first()) {
        return InstrumentError::At {
            location: k.loc_string(),
            message: format!(
                "`{}` is a host kernel (`func.func`), which runs on the host target only \
                 (`--target host`; `kperf bench` without `--target cuda`): a GPU target \
                 needs a `gpu.func` kernel, a `gpu.launch` body or an `llvm.func` marked \
                 `nvvm.kernel` or `rocdl.kernel`",
                regions::symbol_name(*k)
            ),
        };
    }
    let called = if target.is_host() {
        regions::called_public_functions(module)
    } else {
        Vec::new()
    };
    if called.is_empty() {
        return InstrumentError::NoKernel(file.to_string());
    }
    let shown: Vec<String> = called
        .iter()
        .map(|(f, by)| format!("`{f}` by `{}`", by.join("`, `")))
        .collect();
    InstrumentError::At {
        location: file.to_string(),
        message: format!(
            "no kernel: every public function is called by another ({}), and a called \
             function is taken as a helper, not a kernel; mark the kernel with the \
             `kperf.kernel` attribute (a kernel that is called, as in recursion, cannot \
             be instrumented)",
            shown.join("; ")
        ),
    }
}

/// Host kernels run one thread per CTA: `gpu.block_id`/`gpu.grid_dim` become
/// six trailing `index` arguments (block x,y,z, grid x,y,z) that the runtime
/// passes, `gpu.thread_id` becomes 0 and `gpu.block_dim` 1. The C interface
/// is requested so the ExecutionEngine can call the kernel packed.
pub fn apply_host_abi(kctx: &KperfContext, f: Op) -> Result<()> {
    if f.has_attr("kperf.host_abi") {
        return Ok(());
    }
    // The six grid arguments change the kernel's signature: a call of it
    // (recursion, or a kernel also called as a function) would no longer
    // verify, and would run init and finalize inside the caller's records.
    let mut top = f;
    while let Some(p) = top.parent() {
        top = p;
    }
    let name = regions::symbol_name(f);
    let callers: Vec<String> = regions::calls(top)
        .into_iter()
        .filter(|(callee, _)| *callee == name)
        .map(|(_, caller)| format!("`{caller}`"))
        .collect();
    if !callers.is_empty() {
        return Err(InstrumentError::At {
            location: f.loc_string(),
            message: format!(
                "host kernel `{name}` is called by {} (recursion, a kernel also used as a \
                 function, or through `func.constant`): kperf cannot instrument a kernel that \
                 is called; mark the kernels with `kperf.kernel`, or move the body into a \
                 function both call",
                callers.join(", ")
            ),
        });
    }
    let ctx = kctx.ctx.to_raw();
    let n = lower::num_inputs(f);
    let mut args = Vec::new();
    for i in 0..HOST_GRID_ARG_COUNT {
        args.push(insert_index_arg(f, n + i)?);
    }
    for op in f.nested_ops() {
        let name = op.name();
        let dim = || {
            op.attr("dimension")
                .map(ir::attr_string)
                .map(|s| {
                    if s.contains('z') {
                        2
                    } else if s.contains('y') {
                        1
                    } else {
                        0
                    }
                })
                .unwrap_or(0)
        };
        let replacement = match name.as_str() {
            "gpu.block_id" => Some(args[dim()]),
            "gpu.grid_dim" => Some(args[3 + dim()]),
            "gpu.thread_id" | "gpu.lane_id" => Some(index_constant(kctx, op, 0)?),
            "gpu.block_dim" => Some(index_constant(kctx, op, 1)?),
            _ => None,
        };
        if let Some(v) = replacement {
            op.result(0).replace_all_uses_with(v);
            op.erase();
        }
    }
    unsafe {
        f.set_attr("llvm.emit_c_interface", mlirUnitAttrGet(ctx));
        f.set_attr("kperf.host_abi", mlirUnitAttrGet(ctx));
    }
    Ok(())
}

fn insert_index_arg(f: Op, pos: isize) -> Result<ir::Value> {
    lower::insert_function_arg(f, pos, "index")
}

fn index_constant(kctx: &KperfContext, anchor: Op, v: i64) -> Result<ir::Value> {
    lower::materialize(
        kctx,
        anchor,
        &format!("arith.constant {v} : index"),
        "index",
    )
}

/// A host module ready for the JIT: lowered to the LLVM dialect, with the
/// kernel's original parameter types (as MLIR type strings) and, when
/// instrumented, its metadata.
pub struct HostModule<'c> {
    pub module: Module<'c>,
    pub kernel: String,
    pub param_types: Vec<String>,
    pub meta: Option<InstrumentMeta>,
    /// What the user should hear about the build (dropped results).
    pub notes: Vec<String>,
}

/// Parse, pick the kernel (by name, or the only one), instrument unless
/// `instrument` is false, and lower for the host. A kernel kperf already
/// lowered is run as it is, described by `previous_meta` (its
/// `.kperf.json`).
pub fn prepare_host<'c>(
    kctx: &'c KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
    kernel: Option<&str>,
    instrument: bool,
    previous_meta: Option<InstrumentMeta>,
) -> Result<HostModule<'c>> {
    let mut module = parse_input(kctx, source, file, opts)?;
    let kernels = regions::find_kernels(module_op(&module), &Target::Host);
    let names: Vec<String> = kernels.iter().map(|k| regions::symbol_name(*k)).collect();
    let f = match (kernel, kernels.as_slice()) {
        (_, []) => return Err(no_kernel(module_op(&module), &Target::Host, file)),
        (Some(k), _) => kernels
            .iter()
            .copied()
            .find(|f| regions::symbol_name(*f) == k)
            .ok_or_else(|| InstrumentError::At {
                location: file.to_string(),
                message: format!("no kernel `{k}` (kernels: {})", names.join(", ")),
            })?,
        (None, [one]) => *one,
        (None, _) => {
            return Err(InstrumentError::At {
                location: file.into(),
                message: format!("several kernels ({}); name one", names.join(", ")),
            })
        }
    };
    let name = regions::symbol_name(f);
    let fty = f.attr("function_type").ok_or_else(|| InstrumentError::At {
        location: f.loc_string(),
        message: "no function_type".into(),
    })?;
    let mut param_types: Vec<String> = unsafe {
        let t = mlirTypeAttrGetValue(fty);
        (0..mlirFunctionTypeGetNumInputs(t))
            .map(|i| ir::type_string(mlirFunctionTypeGetInput(t, i)))
            .collect()
    };
    let notes: Vec<String> = drop_kernel_results(kctx, f, &name)?.into_iter().collect();
    // A module kperf already instrumented (`--emit mlir`): run it as it is,
    // with the metadata written beside it; its own parameters come first.
    if f.has_attr(INSTRUMENTED) {
        let meta = previous_meta.ok_or_else(|| InstrumentError::At {
            location: f.loc_string(),
            message: format!("kernel `{name}` is already instrumented, but its metadata (<input>.kperf.json) was not found beside the input"),
        })?;
        let km = meta.kernel(&name).ok_or_else(|| InstrumentError::At {
            location: f.loc_string(),
            message: format!("the metadata beside the input does not describe kernel `{name}`"),
        })?;
        param_types.truncate(km.original_arg_count as usize);
        kctx.run_pipeline(&mut module, HOST_LOWERING)?;
        refuse_unlowered(&module)?;
        return Ok(HostModule {
            module,
            kernel: name,
            param_types,
            meta: Some(meta),
            notes,
        });
    }
    let mut host_opts = opts.clone();
    host_opts.target = Target::Host;
    let meta = if instrument {
        let mut meta = instrument_module(kctx, &mut module, file, &host_opts, Emit::Mlir)?;
        meta.source_sha256 = Some(crate::source_digest(source.as_bytes()));
        Some(meta)
    } else {
        // The plain build (the check's truth): the author's records go, as
        // on the GPU's plain build; kept, no host lowering knew them and
        // every `kperf run` of a file with `kperf.record` ops failed its
        // check.
        regions::strip_user_regions(f);
        apply_host_abi(kctx, f)?;
        None
    };
    kctx.run_pipeline(&mut module, HOST_LOWERING)?;
    refuse_unlowered(&module)?;
    Ok(HostModule {
        module,
        kernel: name,
        param_types,
        meta,
        notes,
    })
}

/// The first op the host lowering left that the JIT cannot translate,
/// named with its location: in the module's own body and its LLVM
/// functions (nested `builtin.module` and `gpu.module` bodies are not
/// translated, so they are not looked into), an op outside the dialects
/// with a translation to LLVM IR. `gpu.printf`, `gpu.shuffle` and
/// `gpu.barrier` have no CPU lowering (the SIMT target runs such kernels);
/// the JIT used to come back empty on them, and kperf crashed.
fn refuse_unlowered(module: &Module) -> Result<()> {
    let translated = |o: &Op| {
        let name = o.name();
        [
            "llvm.",
            "omp.",
            "arm_neon.",
            "arm_sve.",
            "arm_sme.",
            "x86vector.",
            "amx.",
        ]
        .iter()
        .any(|d| name.starts_with(d))
            || matches!(name.as_str(), "builtin.module" | "gpu.module")
    };
    let mut ops = Vec::new();
    for top in module_op(module)
        .regions()
        .into_iter()
        .filter_map(|r| r.first_block())
        .flat_map(|b| b.ops())
    {
        ops.push(top);
        if top.name() == "llvm.func" {
            ops.extend(top.nested_ops());
        }
    }
    // A cast the conversion left is a symptom; the op it could not convert
    // is the cause, named first.
    let left = ops
        .iter()
        .find(|o| !translated(o) && !o.name().starts_with("builtin."))
        .or_else(|| ops.iter().find(|o| !translated(o)))
        .copied();
    match left {
        None => Ok(()),
        Some(op) => Err(InstrumentError::At {
            location: op.loc_string(),
            message: format!(
                "`{}` has no lowering for the host target (it is still there after the host \
                 lowering, and the JIT cannot compile it); {}",
                op.name(),
                lowering_hint(op)
            ),
        }),
    }
}

/// The device kernels' names and original parameter types (MLIR type
/// strings), read after outlining and before any kperf pass.
pub fn device_kernel_params(
    kctx: &KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
) -> Result<Vec<(String, Vec<String>)>> {
    // Parsed as the builds parse it (with --pre-pipeline), so the
    // parameters are the ones the built kernel takes.
    let mut module = parse_input(kctx, source, file, opts)?;
    outline_launches(kctx, &mut module, opts.sink_constants)?;
    unique_kernel_names(kctx, module_op(&module));
    let kernels = regions::find_kernels(module_op(&module), &opts.target);
    if kernels.is_empty() {
        return Err(no_kernel(module_op(&module), &opts.target, file));
    }
    let mut out = Vec::new();
    for f in kernels {
        let Some(fty) = f.attr("function_type") else {
            continue;
        };
        let types = unsafe {
            let t = mlirTypeAttrGetValue(fty);
            if f.name() == "llvm.func" {
                (0..mlirLLVMFunctionTypeGetNumInputs(t))
                    .map(|i| ir::type_string(mlirLLVMFunctionTypeGetInput(t, i)))
                    .collect()
            } else {
                (0..mlirFunctionTypeGetNumInputs(t))
                    .map(|i| ir::type_string(mlirFunctionTypeGetInput(t, i)))
                    .collect()
            }
        };
        out.push((regions::symbol_name(f), types));
    }
    Ok(out)
}

/// What the host code in the file fixes about the launch of one kernel
/// ([`host_launch`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HostLaunch {
    /// The kernel, as the builds name it.
    pub kernel: String,
    /// Where each kernel parameter comes from, when one `func.func`
    /// launches it.
    pub arguments: Option<super::launch::HostArguments>,
    /// The dynamic shared memory each launch of it gives (bytes where
    /// constant), for the launches that give some.
    pub dynamic_shared: Vec<Option<u32>>,
}

/// For a kernel outlined from a `gpu.launch` (or launched by
/// `gpu.launch_func`s of a `func.func`): where each of its parameters comes
/// from (the host argument, `Some(i)`, or a value the host computes,
/// `None`) with the host's name and argument count, and the dynamic shared
/// memory the launches give. `kernel` names it, or the file's only kernel is
/// meant. `None` when no kernel fits (the build says why). Parsed and
/// outlined as the builds are.
pub fn host_launch(
    kctx: &KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
    kernel: Option<&str>,
) -> Result<Option<HostLaunch>> {
    let mut module = parse_input(kctx, source, file, opts)?;
    outline_launches(kctx, &mut module, opts.sink_constants)?;
    unique_kernel_names(kctx, module_op(&module));
    let kernels = regions::find_kernels(module_op(&module), &opts.target);
    let f = match (kernel, kernels.as_slice()) {
        (Some(k), _) => kernels
            .iter()
            .copied()
            .find(|f| regions::symbol_name(*f) == k),
        (None, [one]) => Some(*one),
        (None, _) => None,
    };
    Ok(f.map(|f| HostLaunch {
        kernel: regions::symbol_name(f),
        arguments: super::launch::host_argument_order(f),
        dynamic_shared: super::launch::launch_dynamic_shared(f),
    }))
}

/// Lower a module for `opts.target` without instrumenting it (baselines).
pub fn compile_plain(
    kctx: &KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
    emit: Emit,
) -> Result<Vec<u8>> {
    let mut module = plain_module(kctx, source, file, opts)?;
    // `--emit kperfgpu` output fed back: its records are lowered already
    // and reached translation ("missing LLVMTranslationDialectInterface
    // registration ... kperfgpu.local_alloc").
    if let Some(op) = module_op(&module)
        .nested_ops()
        .into_iter()
        .find(|o| o.name().starts_with("kperfgpu."))
    {
        return Err(InstrumentError::At {
            location: op.loc_string(),
            message: format!(
                "the file holds kperf's lowered records (`{}`, as `--emit kperfgpu` writes \
                 them): it has no plain build; give the kernel as it was before instrumenting",
                op.name()
            ),
        });
    }
    emit_module(kctx, &mut module, opts, emit)
}

/// The plain build's module: `source` without records, with the
/// instrumented build's outlining, kernel names and host ABI, not lowered.
pub fn plain_module<'c>(
    kctx: &'c KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
) -> Result<Module<'c>> {
    let mut module = parse_input(kctx, source, file, opts)?;
    // Records the author placed would reach translation unlowered.
    regions::strip_user_regions(module_op(&module));
    if !opts.target.is_host() {
        outline_launches(kctx, &mut module, opts.sink_constants)?;
    }
    // The same names as the instrumented build (`kperf cost` pairs them).
    unique_kernel_names(kctx, module_op(&module));
    let kernels = regions::find_kernels(module_op(&module), &opts.target);
    // As the instrumented build refuses it: a device target given host
    // kernels (`func.func`) would otherwise fail later, in the pipeline's
    // output, as "no gpu.binary object was produced".
    if kernels.is_empty() {
        return Err(no_kernel(module_op(&module), &opts.target, file));
    }
    if opts.target.is_host() {
        // The same host ABI as instrumented kernels (grid ids as arguments).
        for k in kernels {
            apply_host_abi(kctx, k)?;
        }
    } else if let Some(name) = &opts.block_kernel {
        // A launch's block the kernel refuses (more threads than its
        // nvvm.maxntid, another than its known_block_size) fails on a GPU:
        // the plain run refuses it as the instrumented build does.
        if let Some(k) = kernels.iter().find(|k| regions::symbol_name(**k) == *name) {
            super::lower::block_shape(*k, opts)?;
        }
    }
    Ok(module)
}

/// Parse `source` and run on it what its own RUN line runs before
/// lowering ([`InstrumentOptions::pre_pipeline`]). A transform schedule
/// (top-level `transform.*` ops, as upstream's transform-dialect tests hold
/// next to their payload) is erased once the interpreter ran, as
/// `test-transform-dialect-erase-schedule` does in those RUN lines; without
/// the interpreter the payload is not the kernel the file describes, so
/// A host kernel's results are dropped, with a note: the C interface
/// passes a memref result through a pointer before the arguments, so a
/// kernel returning one, launched as a function of its arguments alone,
/// read every argument a slot off and faulted, blamed on the spec. Its
/// outputs are its buffer arguments (a bufferized tensor function returns
/// one of them).
fn drop_kernel_results(kctx: &KperfContext, f: Op, name: &str) -> Result<Option<String>> {
    let Some(fty) = f.attr("function_type") else {
        return Ok(None);
    };
    let (inputs, results): (Vec<String>, Vec<String>) = unsafe {
        let t = mlirTypeAttrGetValue(fty);
        (
            (0..mlirFunctionTypeGetNumInputs(t))
                .map(|i| ir::type_string(mlirFunctionTypeGetInput(t, i)))
                .collect(),
            (0..mlirFunctionTypeGetNumResults(t))
                .map(|i| ir::type_string(mlirFunctionTypeGetResult(t, i)))
                .collect(),
        )
    };
    if results.is_empty() {
        return Ok(None);
    }
    let text = format!("({}) -> ()", inputs.join(", "));
    let ty = unsafe { mlirTypeParseGet(kctx.ctx.to_raw(), ir::sref(&text)) };
    if ty.ptr.is_null() {
        return Err(InstrumentError::At {
            location: f.loc_string(),
            message: format!(
                "kernel `{name}` returns {}, and its type without them does not parse",
                results.join(", ")
            ),
        });
    }
    f.set_attr("function_type", unsafe { mlirTypeAttrGet(ty) });
    // Attributes of the results that are gone (`llvm.noalias` on a
    // bufferized result) fail the verifier.
    f.remove_attr("res_attrs");
    for ret in f
        .nested_ops()
        .into_iter()
        .filter(|o| o.name() == "func.return" && o.parent().is_some_and(|p| p.0.ptr == f.0.ptr))
    {
        unsafe { mlirOperationSetOperands(ret.0, 0, std::ptr::null()) };
    }
    Ok(Some(format!(
        "kernel `{name}` returns {}: the host runner drops its results (a kernel's outputs are its buffer arguments)",
        results.join(", ")
    )))
}

/// What lowers an op the host lowering left: a structured op needs its
/// dialect's own lowering first (as the file's RUN line would run it); a
/// GPU op, the SIMT target.
fn lowering_hint(op: Op) -> &'static str {
    // Tensors (a linalg op on them, a function taking them) are bufferized
    // first: converted to loops as they are, they stay tensors.
    let on_tensors = {
        let text = op.print();
        let head = text.lines().next().unwrap_or("").to_string();
        head.contains("tensor<")
    };
    if on_tensors {
        return "it works on tensors: bufferize it first, e.g. --pre-pipeline 'one-shot-bufferize{bufferize-function-boundaries},convert-linalg-to-loops'";
    }
    let name = op.name();
    match name.split('.').next().unwrap_or("") {
        "linalg" => "lower it first with --pre-pipeline convert-linalg-to-loops",
        "tensor" | "bufferization" => {
            "bufferize it first, e.g. --pre-pipeline 'one-shot-bufferize{bufferize-function-boundaries},convert-linalg-to-loops'"
        }
        "affine" => "lower it first with --pre-pipeline lower-affine",
        "gpu" | "nvvm" | "nvgpu" | "rocdl" => "run the kernel with --target simt",
        _ => "lower it first with --pre-pipeline (as the file's RUN line does), or run a GPU kernel with --target simt",
    }
}

/// A file whose top-level module holds nothing but one nested
/// `builtin.module` (a dump of one module of a larger program, or a
/// payload wrapped beside its removed transform schedule) is compiled as
/// that module: MLIR's GPU passes attach targets to and serialize the
/// `gpu.module`s directly in the top-level body, so such a kernel got as
/// far as "no gpu.binary object was produced". The inner module's
/// attributes (`gpu.container_module`, data layouts) move with its ops;
/// its name goes, since nothing outside it can refer to it.
fn unwrap_lone_nested_module(top: Op) {
    loop {
        let Some(body) = top.regions().first().and_then(|r| r.first_block()) else {
            return;
        };
        let inner = match body.ops()[..] {
            [only] if only.name() == "builtin.module" => only,
            _ => return,
        };
        let Some(inner_body) = inner.regions().first().and_then(|r| r.first_block()) else {
            return;
        };
        for op in inner_body.ops() {
            op.move_before(inner);
        }
        let n = unsafe { mlirOperationGetNumAttributes(inner.0) };
        for i in 0..n {
            let named = unsafe { mlirOperationGetAttribute(inner.0, i) };
            let name = ir::string_of(unsafe { mlirIdentifierStr(named.name) });
            if name == "sym_name" || name == "sym_visibility" || top.has_attr(&name) {
                continue;
            }
            top.set_attr(&name, named.attribute);
        }
        inner.erase();
    }
}

/// it is refused.
pub fn parse_input<'c>(
    kctx: &'c KperfContext,
    source: &str,
    file: &str,
    opts: &InstrumentOptions,
) -> Result<Module<'c>> {
    let mut module = kctx.parse(source, file)?;
    let pre = opts.pre_pipeline.as_deref().unwrap_or("").trim();
    if !pre.is_empty() {
        kctx.run_pipeline(&mut module, pre)?;
    }
    // Schedules sit at the top level or in a nested
    // `module attributes {transform.with_named_sequence}`.
    let schedules: Vec<Op> = module_op(&module)
        .nested_ops()
        .into_iter()
        .filter(|o| {
            o.name().starts_with("transform.")
                && !o
                    .parent()
                    .is_some_and(|p| p.name().starts_with("transform."))
        })
        .collect();
    if let Some(first) = schedules.first() {
        if !pre.contains("transform-interpreter") {
            return Err(InstrumentError::At {
                location: first.loc_string(),
                message: format!(
                    "the file holds a transform schedule (`{}`) for its payload: run it first \
                     as the file's RUN line does (--pre-pipeline transform-interpreter)",
                    first.name()
                ),
            });
        }
        for s in schedules {
            let holder = s.parent().filter(|p| {
                p.name() == "builtin.module" && p.has_attr("transform.with_named_sequence")
            });
            s.erase();
            if let Some(h) = holder.filter(|h| h.nested_ops().is_empty()) {
                h.erase();
            }
        }
    }
    unwrap_lone_nested_module(module_op(&module));
    if !opts.target.is_host() {
        let kernels = regions::find_kernels(module_op(&module), &opts.target);
        if let Some(k) = kernels.iter().find(|k| !inside_gpu_module(**k)) {
            // The GPU pipeline compiles gpu.modules only: such a kernel got
            // as far as "no gpu.binary object was produced".
            return Err(InstrumentError::At {
                location: k.loc_string(),
                message: format!(
                    "kernel `{}` is an llvm.func outside any gpu.module (as `mlir-translate \
                     --import-llvm` writes it): the MLIR GPU pipeline compiles gpu.modules \
                     only; wrap it and what it uses in `gpu.module @m {{ ... }}`, or give kperf \
                     the LLVM IR (`mlir-translate --mlir-to-llvmir`), which it instruments \
                     directly",
                    regions::symbol_name(*k)
                ),
            });
        }
        // An `llvm.func` already lowered for one GPU cannot be built for
        // the other: LLVM stopped with a bare "unsupported calling
        // convention".
        let (want, other) = match opts.target {
            Target::Amdgpu { .. } => ("rocdl.kernel", "nvvm.kernel"),
            _ => ("nvvm.kernel", "rocdl.kernel"),
        };
        if let Some(k) = kernels
            .iter()
            .find(|k| k.has_attr(other) && !k.has_attr(want))
        {
            return Err(InstrumentError::At {
                location: k.loc_string(),
                message: format!(
                    "kernel `{}` is already lowered for {} (`{other}`), and --target {} \
                     builds for the other vendor: give the file its own target's --target",
                    regions::symbol_name(*k),
                    if other == "nvvm.kernel" {
                        "NVIDIA (NVVM)"
                    } else {
                        "AMD (ROCDL)"
                    },
                    opts.target.name()
                ),
            });
        }
        // A dump taken after `nvvm-attach-target` carries its target:
        // attached again, the module had two, became two objects (two
        // definitions of every kernel) and PTX for the first, another chip
        // than `--target`'s (sm_50 from a bare `#nvvm.target`). The build
        // is `--target`'s.
        for m in module_op(&module).nested_ops() {
            if m.name() == "gpu.module" && m.has_attr("targets") {
                m.remove_attr("targets");
            }
        }
    }
    Ok(module)
}

/// Set on a kernel once its records are lowered: the passes leave it alone.
pub const INSTRUMENTED: &str = "kperf.instrumented";

/// kperf's own passes, nameable inside `kperf opt` pipelines.
pub const KPERF_PASSES: &[&str] = &[
    "kperf-insert",
    "kperf-lower-gpu",
    "kperf-lower-llvm",
    "kperf-instrument",
];

/// Split a pipeline at top-level commas (not inside `{...}` or `(...)`).
pub fn split_pipeline(p: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in p.chars() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Run a pipeline that mixes upstream passes (run by MLIR's pass manager,
/// consecutive ones together) and kperf's passes:
/// `kperf-insert{regions=kernel,loops}` (find kernels, insert and check
/// regions), `kperf-lower-gpu` (records → kperfgpu ops), `kperf-lower-llvm`
/// (kperfgpu → LLVM/NVVM/ROCDL), `kperf-instrument` (all three). Returns the
/// metadata of the kernels lowered by `kperf-lower-llvm`.
pub fn run_opt(
    kctx: &KperfContext,
    module: &mut Module,
    file: &str,
    pipeline: &str,
    opts: &InstrumentOptions,
) -> Result<InstrumentMeta> {
    opts.validate()?;
    let opts = &opts.normalized();
    let mut meta = new_meta(opts, file);
    let mut upstream: Vec<String> = Vec::new();
    let flush = |module: &mut Module, upstream: &mut Vec<String>| -> Result<()> {
        if !upstream.is_empty() {
            kctx.run_pipeline(module, &upstream.join(","))?;
            upstream.clear();
        }
        Ok(())
    };
    // `builtin.module(...)` around the whole pipeline, as mlir-opt's
    // `--pass-pipeline` spells it: its passes are the pipeline (kperf's
    // passes inside it were not recognized).
    // Any top-level element `builtin.module(a,b)` is `a,b`: the module is
    // what the pipeline runs on anyway.
    let pipeline = split_pipeline(pipeline)
        .into_iter()
        .map(|p| {
            p.strip_prefix("builtin.module(")
                .and_then(|q| q.strip_suffix(')'))
                .map(str::to_string)
                .unwrap_or(p)
        })
        .collect::<Vec<_>>()
        .join(",");
    let pipeline = pipeline.as_str();
    let nested_kperf = split_pipeline(pipeline)
        .into_iter()
        .find(|p| p.contains('(') && KPERF_PASSES.iter().any(|k| p.contains(k)));
    if let Some(p) = nested_kperf {
        return Err(InstrumentError::Option(format!(
            "`{p}`: kperf's passes run on the whole module, at the pipeline's top level (not inside an op's nested pipeline)"
        )));
    }
    for pass in split_pipeline(pipeline) {
        let (name, args) = match pass.find('{') {
            Some(i) => (
                pass[..i].trim().to_string(),
                pass[i + 1..].trim_end_matches('}').to_string(),
            ),
            None => (pass.clone(), String::new()),
        };
        if !KPERF_PASSES.contains(&name.as_str()) {
            upstream.push(pass);
            continue;
        }
        flush(module, &mut upstream)?;
        // As `kperf instrument` does: kernels written as `gpu.launch`
        // bodies become functions first.
        if !opts.target.is_host() {
            outline_launches(kctx, module, opts.sink_constants)?;
        }
        let mut o = opts.clone();
        // Options as in MLIR: space-separated `key=value`.
        for kv in args.split_whitespace() {
            match kv.split_once('=') {
                Some(("regions", v)) => o.regions = RegionMode::parse_list(v)?,
                _ => {
                    return Err(InstrumentError::Option(format!(
                        "{name}: unknown option `{kv}` (it takes regions=<modes>)"
                    )))
                }
            }
        }
        let kernels: Vec<Op> = regions::find_kernels(module_op(module), &o.target)
            .into_iter()
            .filter(|k| !k.has_attr(INSTRUMENTED))
            .collect();
        if kernels.is_empty() {
            return Err(InstrumentError::NoKernel(format!("{file} (at `{name}`)")));
        }
        let ctx = kctx.ctx.to_raw();
        let do_insert = name == "kperf-insert" || name == "kperf-instrument";
        let do_gpu = name == "kperf-lower-gpu" || name == "kperf-instrument";
        let do_llvm = name == "kperf-lower-llvm" || name == "kperf-instrument";
        for k in &kernels {
            let lowered = k.nested_ops().iter().any(|x| x.name() == ops::INIT);
            if do_insert && !lowered {
                if o.target.is_host() {
                    apply_host_abi(kctx, *k)?;
                }
                regions::insert_regions(ctx, *k, &o.regions)?;
                regions::check_balance(*k)?;
            }
            if do_gpu && !lowered {
                lower::to_kperfgpu(*k, &o)?;
            }
            if do_llvm {
                meta.kernels
                    .extend(lower_kernel(kctx, module_op(module), *k, &o.target)?);
            }
        }
        kctx.verify(module)?;
    }
    flush(module, &mut upstream)?;
    Ok(meta)
}

#[cfg(test)]
mod tests {
    use super::unescape_mlir_string;

    #[test]
    fn object_payload_is_unescaped_from_the_last_quoted_string() {
        // A backslash prints as two; `\\AB` after it is text, not a hex escape.
        let attr = r#"#gpu.object<#nvvm.target<O = 3, chip = "sm_90a">, offload = "BC\C0\DE5\14\00b\22\\AB">"#;
        assert_eq!(
            unescape_mlir_string(attr),
            b"BC\xC0\xDE5\x14\x00b\"\\AB".to_vec()
        );
    }
}
