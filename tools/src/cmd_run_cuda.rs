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
    let params = parse_params(&types, "the launcher", &file, &name)?;
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
    let agreed = match &launch.dynamic_shared[..] {
        [] => None,
        [first, rest @ ..] => first.filter(|b| rest.iter().all(|r| r == &Some(*b))),
    };
    if agreed.is_none() && !launch.dynamic_shared.is_empty() && spec.shared_bytes == 0 {
        // A kernel faulting on a 0-byte buffer said nothing of why.
        let sizes: Vec<String> = launch
            .dynamic_shared
            .iter()
            .map(|s| s.map_or("a size computed at run time".into(), |b| format!("{b} B")))
            .collect();
        eprintln!(
            "kperf: warning: {file} launches `{}` with dynamic shared memory of {}: give the launch's size as the spec's shared_bytes",
            crate::shown(&launch.kernel),
            sizes.join(", ")
        );
    }
    if let Some(bytes) = agreed.filter(|b| *b > 0) {
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
/// spec's `in` to `out`, and ran with exit 0. Where the spec names the
/// host's arguments (by the names the host's signature gives them, in any
/// order, the unused ones left out if it likes), each kernel parameter is
/// bound by name; otherwise a spec of all the host's arguments is taken in
/// the host's order, and one of the kernel's own parameters as it is.
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
    let host_names = host_parameter_names(source, host).filter(|n| n.len() == host_args);
    // Each named by the host's argument, or by its position where the host
    // computes it ("a value `main` computes" three times named none).
    let shown = |k: usize, h: &Option<usize>| match (h, &host_names) {
        (Some(i), Some(names)) => format!("`{}`", crate::shown(&names[*i])),
        (Some(i), None) => spec.args.get(*i).map_or(format!("argument {i}"), |x| {
            format!("`{}`", crate::shown(&x.name))
        }),
        (None, _) => format!("parameter {k} (a value `{}` computes)", crate::shown(host)),
    };
    let mut listed: Vec<String> = order.iter().enumerate().map(|(k, h)| shown(k, h)).collect();
    if listed.is_empty() {
        listed.push("no parameters".into());
    }
    if let Some(names) = &host_names {
        let given: Vec<&str> = spec.args.iter().map(|x| x.name.as_str()).collect();
        let is_host = |n: &str| names.iter().any(|h| h == n);
        let unique = given
            .iter()
            .enumerate()
            .all(|(k, n)| !given[..k].contains(n));
        if !given.is_empty() && unique && given.iter().all(|n| is_host(n)) {
            // A kernel's own parameter may share a host argument's name
            // (`out`): where the names do not give every argument the
            // kernel takes, the spec is read as below.
            if let Some(bound) = bind_by_name(a, host, name, names, order, &listed, &spec)? {
                return Ok(bound);
            }
        } else if given.iter().any(|n| is_host(n)) {
            let strangers: Vec<String> = given
                .iter()
                .filter(|n| !is_host(n))
                .map(|n| format!("`{}`", crate::shown(n)))
                .collect();
            anyhow::bail!(
                "{}: the spec names some of `{}`'s arguments ({}) and {}; `{}` (outlined from its gpu.launch) takes {}{}",
                a.spec.display(),
                crate::shown(host),
                names.join(", "),
                if strangers.is_empty() {
                    "one of them twice".to_string()
                } else {
                    format!("{}, which it does not have", strangers.join(", "))
                },
                crate::shown(name),
                listed.join(", "),
                if order.iter().any(Option::is_none) {
                    ": to give a value the host computes, list the kernel's own parameters in that order, none named as the host's arguments"
                } else {
                    ""
                }
            );
        }
    }
    if order.len() == host_args && order.iter().enumerate().all(|(i, h)| *h == Some(i)) {
        return Ok(spec);
    }
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
        // The kernel's own parameters, as the spec lists them.
        if order.iter().any(Option::is_none) {
            let names: Vec<&str> = spec.args.iter().map(|x| x.name.as_str()).collect();
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

/// Each kernel parameter from the spec arg named as the host argument it
/// is; `None` where the spec does not name one the kernel takes. A
/// parameter the host computes otherwise (a loop's counter) cannot come
/// from a spec naming all the host's arguments.
fn bind_by_name(
    a: &RunArgs,
    host: &str,
    kernel: &str,
    names: &[String],
    order: &[Option<usize>],
    listed: &[String],
    spec: &LaunchSpec,
) -> Result<Option<LaunchSpec>> {
    let mut args = Vec::with_capacity(order.len());
    for (k, h) in order.iter().enumerate() {
        let Some(i) = h else {
            if spec.args.len() < names.len() {
                return Ok(None);
            }
            anyhow::bail!(
                "{}: the spec lists `{}`'s arguments ({}), but `{}` (outlined from its gpu.launch) takes {}: parameter {k}, a value the host computes inside a loop or from more than its arguments and constants, cannot come from the spec; list the kernel's own {} parameter(s) in that order, named otherwise",
                a.spec.display(),
                crate::shown(host),
                names.join(", "),
                crate::shown(kernel),
                listed.join(", "),
                order.len()
            );
        };
        let want = &names[*i];
        let Some(x) = spec.args.iter().find(|x| &x.name == want) else {
            return Ok(None);
        };
        args.push(x.clone());
    }
    let same =
        args.len() == spec.args.len() && args.iter().zip(&spec.args).all(|(x, y)| x.name == y.name);
    if !same {
        eprintln!(
            "kperf: `{}` (outlined from `{}`'s gpu.launch) takes {}: the spec's args are bound by name",
            crate::shown(kernel),
            crate::shown(host),
            listed.join(", ")
        );
    }
    Ok(Some(LaunchSpec {
        args,
        ..spec.clone()
    }))
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
    // The argument list with its `//` comments blanked (a `,` or `)` in
    // one misled the count), then split at the top level, where `->`
    // (an affine map's `(d0) -> (d0)`) closes nothing.
    let mut rest = String::new();
    for line in source[at + host.len() + 2..].split_inclusive('\n') {
        match line.find("//") {
            Some(c) => {
                rest.push_str(&line[..c]);
                rest.push('\n');
            }
            None => rest.push_str(line),
        }
    }
    let (mut depth, mut end, mut prev) = (0i32, None, ' ');
    let mut items = Vec::new();
    let mut start = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' if depth == 0 => {
                end = Some(i);
                break;
            }
            '>' if prev == '-' => {}
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        prev = c;
    }
    items.push(&rest[start..end?]);
    let mut names = Vec::new();
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let name = item.strip_prefix('%')?.split(':').next()?.trim();
        names.push(name.to_string());
    }
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
