//! `kperf run --target nvptx`: instrument to PTX, launch with the CUDA
//! driver, write the raw profile.

use crate::cmd_run::{report_outputs, RunArgs};
use crate::device_check::{check_device_run, report_check, Launch};
use crate::host_job::{parse_params, pick_kernel};
use anyhow::{Context, Result};
use kperf_dialects::meta::InstrumentMeta;
use kperf_instrument::mlir::pipeline::{
    compile_plain, device_kernel_params, host_launch, HostLaunch,
};
use kperf_instrument::{instrument, Emit, InstrumentOptions, KperfContext};
use kperf_runtime::calibrate::DeviceProfile;
use kperf_runtime::cuda::{run_cuda, DeviceCode, DeviceRun};
use kperf_runtime::profile::RunInfo;
use kperf_runtime::spec::LaunchSpec;

/// A kernel built for a device launch: its code (as `emit` asks), its
/// metadata when instrumented, and its name and parameters.
pub struct DeviceBuild {
    pub code: Vec<u8>,
    pub meta: Option<InstrumentMeta>,
    pub name: String,
    pub params: Vec<kperf_runtime::host::Param>,
}

/// Pick the spec's kernel in the MLIR input and build it as `emit` asks,
/// instrumented or plain (with the occupancy hold where the target
/// assembles: CUDA, not SIMT).
pub fn build_device_kernel(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    source: &str,
    emit: Emit,
    instrumented: bool,
) -> Result<DeviceBuild> {
    let file = a.input.display().to_string();
    let kctx = KperfContext::new()?;
    // The spec gives the host function's arguments: constants it defines
    // go into the launch body, not the kernel's parameters.
    let mut opts = opts.clone();
    opts.sink_constants = true;
    let kernels = device_kernel_params(&kctx, source, &file, &opts)?;
    let (name, types) = pick_kernel(&file, spec.kernel.as_deref(), &kernels, "the spec")?;
    let params = parse_params(&types, "the launcher")?;
    opts.block.get_or_insert(spec.block);
    opts.block_kernel = Some(name.clone());
    let (code, meta) = if !instrumented {
        (compile_plain(&kctx, source, &file, &opts, emit)?, None)
    } else {
        crate::registers::hold_occupancy(
            &kctx,
            source.as_bytes(),
            &file,
            &mut opts,
            a.lowering.registers()?,
            false,
        )?;
        let out = instrument(&kctx, source, &file, &opts, emit)?;
        (out.bytes, Some(out.meta))
    };
    Ok(DeviceBuild {
        code,
        meta,
        name,
        params,
    })
}

/// Pick the spec's kernel in NVPTX LLVM IR (clang's `.ll` or `.bc`) and
/// build it through the LLVM path as `emit` asks: PTX for the GPU, LLVM IR
/// with records as plain stores for the SIMT target. Plain or not, the same
/// path: the plain build drops kperf's region markers, as instrumenting does.
pub fn build_nvptx_llvm_kernel(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    bytes: &[u8],
    file: &str,
    emit: Emit,
    instrumented: bool,
) -> Result<DeviceBuild> {
    let kernels = kperf_runtime::simt::nvptx_kernels(bytes, file)?;
    let (name, params) = pick_kernel(file, spec.kernel.as_deref(), &kernels, "the spec")?;
    let params = params.map_err(|why| anyhow::anyhow!("{why}"))?;
    let mut opts = opts.clone();
    opts.block.get_or_insert(spec.block);
    opts.block_kernel = Some(name.clone());
    let kctx = KperfContext::new()?;
    if instrumented {
        crate::registers::hold_occupancy(
            &kctx,
            bytes,
            file,
            &mut opts,
            a.lowering.registers()?,
            false,
        )?;
    }
    let out = kperf_instrument::llvm::instrument_llvm(
        &kctx,
        bytes,
        file,
        &opts,
        emit,
        !instrumented,
        false,
    )?;
    Ok(DeviceBuild {
        code: out.bytes,
        meta: out.meta,
        name,
        params,
    })
}

/// Build the spec's kernel from `a.input` (MLIR, or NVPTX LLVM IR) as
/// `emit` asks, instrumented with `opts` or plain.
pub fn build_input_kernel(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    emit: Emit,
    instrumented: bool,
) -> Result<DeviceBuild> {
    let file = a.input.display().to_string();
    let bytes =
        kperf_runtime::input::read(&a.input).with_context(|| format!("cannot read {file}"))?;
    if kperf_instrument::llvm::is_llvm_input(&file, &bytes) {
        build_nvptx_llvm_kernel(a, opts, spec, &bytes, &file, emit, instrumented)
    } else {
        let source = String::from_utf8(bytes)
            .with_context(|| format!("{file}: not UTF-8 text (MLIR is text)"))?;
        build_device_kernel(a, opts, spec, &source, emit, instrumented)
    }
}

/// The spec of an MLIR kernel launched by host code in the same file, as
/// that code launches it: the args in the kernel's order
/// ([`args_in_kernel_order`]) and, where the spec gives no `shared_bytes`,
/// the constant dynamic shared memory the file's launches give (before,
/// a `gpu.launch ... dynamic_shared_memory_size` kernel faulted on a
/// 0-byte buffer unless the spec repeated the size).
pub fn spec_from_host_code(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: LaunchSpec,
) -> Result<LaunchSpec> {
    if a.input.extension().is_none_or(|e| e != "mlir") {
        return Ok(spec);
    }
    let file = a.input.display().to_string();
    let source = kperf_runtime::input::read_to_string(&a.input)
        .with_context(|| format!("cannot read {file}"))?;
    let kctx = KperfContext::new()?;
    let mut o = opts.clone();
    o.sink_constants = true;
    let Some(launch) = host_launch(&kctx, &source, &file, &o, spec.kernel.as_deref())? else {
        return Ok(spec);
    };
    let mut spec = args_in_kernel_order(a, &source, &launch, spec)?;
    if let Some(bytes) = launch.dynamic_shared_bytes.filter(|b| *b > 0) {
        if spec.shared_bytes == 0 {
            eprintln!(
                "kperf: `{}` is launched with {bytes} B of dynamic shared memory in {file}: the spec gives no shared_bytes, so it runs with {bytes} B",
                crate::shown(&launch.kernel)
            );
            spec.shared_bytes = bytes;
        } else if spec.shared_bytes != bytes {
            eprintln!(
                "kperf: warning: {} gives shared_bytes = {}, {file} launches `{}` with {bytes} B of dynamic shared memory: the spec's size is used",
                a.spec.display(),
                spec.shared_bytes,
                crate::shown(&launch.kernel)
            );
        }
    }
    Ok(spec)
}

/// The spec of an MLIR kernel outlined from a host function's `gpu.launch`
/// lists the host function's arguments; the kernel takes them in the
/// order its body first uses them (and not those it never uses). Passed
/// as written, a body that stores `out` before it loads `in` bound the
/// spec's `in` to `out`, and ran with exit 0. The args are put in the
/// kernel's order; a spec that already lists the kernel's parameters (a
/// host computing some of them) is left as it is.
fn args_in_kernel_order(
    a: &RunArgs,
    source: &str,
    launch: &HostLaunch,
    spec: LaunchSpec,
) -> Result<LaunchSpec> {
    let Some(kperf_instrument::mlir::launch::HostArguments {
        host,
        order,
        host_args,
    }) = &launch.arguments
    else {
        return Ok(spec);
    };
    let (name, host_args) = (&launch.kernel, *host_args);
    let spec = host_arguments_by_name(a, source, host, spec);
    if order.len() == host_args && order.iter().enumerate().all(|(i, h)| *h == Some(i)) {
        return Ok(spec);
    }
    let shown = |h: &Option<usize>| match h {
        Some(i) => spec.args.get(*i).map_or(format!("argument {i}"), |x| {
            format!("`{}`", crate::shown(&x.name))
        }),
        None => format!("a value `{}` computes", crate::shown(host)),
    };
    let listed: Vec<String> = order.iter().map(shown).collect();
    if spec.args.len() == host_args && order.iter().all(Option::is_some) {
        let args = order
            .iter()
            .map(|h| spec.args[h.unwrap_or_default()].clone())
            .collect();
        eprintln!(
            "kperf: `{}` (outlined from `{}`'s gpu.launch) takes the host's arguments as {}: the spec's args are passed in that order",
            crate::shown(name),
            crate::shown(host),
            listed.join(", ")
        );
        return Ok(LaunchSpec { args, ..spec });
    }
    if spec.args.len() == order.len() {
        // The kernel's own parameters, as the spec lists them, unless its
        // names are the host's: then it lists the host's arguments, and a
        // value the host computes (a loop's counter) has no spec to come
        // from. (Passed as the kernel's, the spec's `steps` became the
        // loop counter, with exit 0.)
        let names: Vec<&str> = spec.args.iter().map(|x| x.name.as_str()).collect();
        if let Some(host_names) = host_parameter_names(source, host) {
            let mut given = names.clone();
            let mut declared: Vec<&str> = host_names.iter().map(String::as_str).collect();
            given.sort_unstable();
            declared.sort_unstable();
            if spec.args.len() == host_args
                && given == declared
                && order.iter().any(Option::is_none)
            {
                anyhow::bail!(
                    "{}: the spec lists `{}`'s arguments ({}), but `{}` (outlined from its gpu.launch) takes {}: a value the host computes inside a loop or from more than its arguments and constants cannot come from the spec; list the kernel's own {} parameter(s) in that order, named otherwise",
                    a.spec.display(),
                    crate::shown(host),
                    host_names.join(", "),
                    crate::shown(name),
                    listed.join(", "),
                    order.len()
                );
            }
        }
        if order.iter().any(Option::is_none) {
            eprintln!(
                "kperf: `{}` (outlined from `{}`'s gpu.launch) takes {}: the spec's args ({}) are passed as those parameters, in that order",
                crate::shown(name),
                crate::shown(host),
                listed.join(", "),
                names.join(", ")
            );
        }
        return Ok(spec);
    }
    anyhow::bail!(
        "{}: `{}` (outlined from `{}`'s gpu.launch) takes {} parameter(s): {}; the spec gives {} args, neither the host's {} arguments nor the kernel's parameters",
        a.spec.display(),
        crate::shown(name),
        crate::shown(host),
        order.len(),
        listed.join(", "),
        spec.args.len(),
        host_args
    )
}

/// A spec whose args carry the names of `host`'s arguments in another
/// order, put in the host's order: they are bound by name (positionally, a
/// spec naming `out` first had the input buffer written as `out`).
fn host_arguments_by_name(a: &RunArgs, source: &str, host: &str, spec: LaunchSpec) -> LaunchSpec {
    let Some(declared) = host_parameter_names(source, host) else {
        return spec;
    };
    if spec.args.len() != declared.len() {
        return spec;
    }
    let by_name: Option<Vec<_>> = declared
        .iter()
        .map(|d| {
            let mut same = spec.args.iter().filter(|x| &x.name == d);
            match (same.next(), same.next()) {
                (Some(x), None) => Some(x.clone()),
                _ => None,
            }
        })
        .collect();
    let Some(args) = by_name else {
        return spec;
    };
    if args.iter().zip(&spec.args).all(|(x, y)| x.name == y.name) {
        return spec;
    }
    eprintln!(
        "kperf: {} names `{}`'s arguments in another order: they are bound by name ({})",
        a.spec.display(),
        crate::shown(host),
        declared.join(", ")
    );
    LaunchSpec { args, ..spec }
}

/// The names of function `host`'s arguments as its signature in `source`
/// writes them (`func.func @host(%a: memref<4xf32>, %n: index)` gives a,
/// n); MLIR keeps no argument names once parsed. None when the signature
/// is not found in that form.
fn host_parameter_names(source: &str, host: &str) -> Option<Vec<String>> {
    let at = source
        .match_indices(&format!("@{host}("))
        .map(|(i, _)| i)
        .find(|&i| {
            source[..i].trim_end().ends_with("func.func") || {
                let before = source[..i].trim_end();
                before.ends_with("public")
                    || before.ends_with("private")
                    || before.ends_with("nested")
            }
        })?;
    let rest = &source[at + host.len() + 2..];
    let (mut depth, mut end) = (0i32, None);
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' if depth == 0 => {
                end = Some(i);
                break;
            }
            ')' | '>' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    let list = &rest[..end?];
    let mut names = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let mut push = |item: &str| -> Option<()> {
        let item = item.trim();
        if item.is_empty() {
            return Some(());
        }
        let name = item.strip_prefix('%')?.split(':').next()?.trim();
        names.push(name.to_string());
        Some(())
    };
    for (i, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                push(&list[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&list[start..])?;
    Some(names)
}

pub fn run(a: &RunArgs, opts: &InstrumentOptions, spec: &LaunchSpec) -> Result<()> {
    let launch = |b: &DeviceBuild, timed: usize| -> Result<DeviceRun> {
        let km = b.meta.as_ref().and_then(|m| m.kernel(&b.name));
        let ptx = String::from_utf8(b.code.clone()).context("PTX is not UTF-8")?;
        Ok(run_cuda(
            DeviceCode::Ptx(ptx),
            &b.name,
            &b.params,
            km,
            spec,
            0,
            timed,
        )?)
    };
    // Cheap next to the profiled launch: a plain build and a few launches.
    run_device(a, opts, spec, Emit::Ptx, !a.no_check, &launch)
}

/// What every device target does: build the kernel as `emit` asks, launch
/// it, report its outputs and, when instrumented, write the profile, with
/// the same launch checked uninstrumented when `check` is set
/// ([`crate::device_check`]).
pub fn run_device(
    a: &RunArgs,
    opts: &InstrumentOptions,
    spec: &LaunchSpec,
    emit: Emit,
    check: bool,
    launch: &Launch<'_>,
) -> Result<()> {
    let calibration = match a.calibration.as_deref() {
        Some(p) => {
            let c = DeviceProfile::load(p)?;
            c.check_for(&opts.target.name(), opts.counter, p)?;
            Some(c)
        }
        None => None,
    };
    let build = build_input_kernel(a, opts, spec, emit, !a.no_instrument)?;
    if let Some(meta) = &build.meta {
        let input = if a.input.extension().is_some_and(|e| e == "mlir") {
            crate::cmd_instrument::InputKind::Mlir
        } else {
            crate::cmd_instrument::InputKind::Llvm
        };
        crate::cmd_instrument::report_modes_without_regions(opts, meta, input, Some(&build.name));
    }
    // As on the host: a profiled run whose kernel has nothing to record
    // would exit 0 with no profile written, and a script's replay fail.
    if !a.no_instrument
        && build
            .meta
            .as_ref()
            .and_then(|m| m.kernel(&build.name))
            .is_none()
    {
        anyhow::bail!(
            "kernel `{}` has no regions to record with these --regions: no profile would be \
             written (choose some, e.g. --regions kernel, or run it as written with --no-instrument)",
            crate::shown(&build.name)
        );
    }
    // Timed as the check times the plain build, for a like-for-like
    // run-time overhead; each launch starts from the same state.
    let timed = if check && build.meta.is_some() {
        crate::device_check::CHECK_LAUNCHES
    } else {
        1
    };
    let run = launch(&build, timed)?;
    report_device_run(&build.name, spec, &run);
    report_outputs(a, &run.buffers)?;
    let (Some(meta), Some(km)) = (
        build.meta.as_ref(),
        build.meta.as_ref().and_then(|m| m.kernel(&build.name)),
    ) else {
        return Ok(());
    };
    let check = if check {
        let c = check_device_run(
            a,
            opts,
            spec,
            emit,
            &build.name,
            km,
            run.kernel_ns,
            calibration.as_ref(),
            launch,
        )?;
        report_check(&c);
        Some(c)
    } else {
        None
    };
    let stride = km.layout.cta_stride();
    let mut info = RunInfo::for_kernel(meta, km.clone(), spec.grid, spec.block);
    if let Some(c) = &calibration {
        c.apply(&mut info);
    }
    info.check = check;
    kperf_runtime::write_kprof(&a.output, &info, stride, &run.profile)?;
    eprintln!("kperf: wrote {}", a.output.display());
    Ok(())
}

/// The line every device run prints: where it ran and how long the kernel
/// took (the CUDA and SIMT targets share it).
pub fn report_device_run(name: &str, spec: &LaunchSpec, run: &DeviceRun) {
    eprintln!(
        "kperf: ran `{}` on {}: grid {:?}, block {:?} in {:.3} ms",
        crate::shown(name),
        run.device_name,
        spec.grid,
        spec.block,
        run.kernel_ns as f64 / 1e6
    );
}
