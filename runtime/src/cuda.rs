//! The CUDA target: load PTX or cubin with the driver (loaded at run time,
//! so building needs no CUDA), allocate the inputs from the launch spec and
//! a zeroed profile buffer, launch once to warm up, launch again from the
//! same initial state timed by device events, copy back.
//!
//! Kernel arguments follow the lowered kernel's signature: the original
//! parameters (memrefs expanded to descriptors, see [`crate::host::pack_args`])
//! then the profile buffer pointer when instrumented.

use crate::host::{pack_args, prepare_args, Param};
use crate::launch_error::LaunchError;
use crate::spec::{HostBuffer, LaunchSpec};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, DevicePtr, LaunchConfig, PushKernelArg};
use kperf_dialects::meta::KernelMeta;

/// Is a CUDA driver loadable? cudarc panics on the first driver call when
/// libcuda is absent, so ask first and turn the answer into an error.
pub fn check_driver() -> Result<(), LaunchError> {
    // SAFETY: only probes whether the library can be opened.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(LaunchError::NoDriver(
            "libcuda.so (the NVIDIA driver library) could not be loaded; install the NVIDIA driver, or run GPU kernels on the CPU with --target simt (host kernels: --target host)".into(),
        ))
    }
}

/// Device code to load.
pub enum DeviceCode {
    Ptx(String),
    Cubin(Vec<u8>),
}

/// What a device run produced.
pub struct DeviceRun {
    pub buffers: Vec<HostBuffer>,
    pub profile: Vec<u8>,
    /// The launch's time (CUDA: device events around the launch, the
    /// median of the timed launches; SIMT: launch to join, wall clock).
    pub kernel_ns: u64,
    pub device_name: String,
}

/// Let `func` launch with `dynamic` bytes of dynamic shared memory. The
/// driver's default cap is 48 KiB minus the kernel's static shared memory,
/// and instrumentation adds static shared memory (the rings), so a Triton
/// kernel that fit before can exceed it: opt in up to the device's per-block
/// maximum, and name both amounts when even that is too small.
pub(crate) fn fit_dynamic_shared(
    ctx: &CudaContext,
    func: &CudaFunction,
    kernel: &str,
    dynamic: u32,
) -> Result<(), LaunchError> {
    if dynamic == 0 {
        return Ok(());
    }
    let static_bytes = func.shared_size_bytes().map_err(cuda)?.max(0) as u64;
    // A device without opt-in (reported as 0) still has the default cap.
    let attr = |a| ctx.attribute(a).map_err(cuda).map(|v| v.max(0) as u64);
    let limit = attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
        .max(attr(
            CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        )?);
    if static_bytes + u64::from(dynamic) > limit {
        return Err(LaunchError::Launch(format!(
            "kernel `{kernel}` needs {static_bytes} B of static shared memory (kperf's rings \
             included, if instrumented) + {dynamic} B dynamic, over the device's {limit} B per \
             block: lower --shared-budget or --slots, or the launch's shared_bytes"
        )));
    }
    func.set_attribute(
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        dynamic as i32,
    )
    .map_err(|e| {
        LaunchError::Cuda(format!(
            "kernel `{kernel}`: opt in to {dynamic} B of dynamic shared memory: {e}"
        ))
    })
}

fn cuda(e: impl std::fmt::Display) -> LaunchError {
    LaunchError::Cuda(e.to_string())
}

/// Run `kernel` from `code` on device `ordinal` over the spec's grid: one
/// untimed warm-up launch (module load, first-touch and cache effects stay
/// out of the measured launch, as on the host), then `timed` launches
/// (at least one), each from the spec's initial buffers and a zeroed
/// profile, bracketed by device events. The run reports the median
/// launch's time and the last launch's buffers and profile: every launch
/// starts from the same state, so they are one launch's work.
pub fn run_cuda(
    code: DeviceCode,
    kernel: &str,
    params: &[Param],
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
    ordinal: usize,
    timed: usize,
) -> Result<DeviceRun, LaunchError> {
    check_driver()?;
    if let Some(m) = meta {
        if m.block != spec.block {
            return Err(LaunchError::Launch(format!(
                "the kernel was instrumented for blocks of {:?} threads, the spec launches {:?}",
                m.block, spec.block
            )));
        }
    }
    let (buffers, scalars) = prepare_args(kernel, params, spec)?;
    let ctx = CudaContext::new(ordinal).map_err(cuda)?;
    let device_name = ctx.name().unwrap_or_else(|_| format!("cuda:{ordinal}"));
    let stream = ctx.default_stream();
    let module = match code {
        DeviceCode::Ptx(p) => ctx.load_module(cudarc::nvrtc::Ptx::from_src(p)),
        DeviceCode::Cubin(b) => ctx.load_module(cudarc::nvrtc::Ptx::from_binary(b)),
    }
    .map_err(cuda)?;
    let func = module
        .load_function(kernel)
        .map_err(|e| LaunchError::Cuda(format!("kernel `{kernel}`: {e}")))?;
    fit_dynamic_shared(&ctx, &func, kernel, spec.shared_bytes)?;

    let mut dev_bufs = Vec::with_capacity(buffers.len());
    for b in &buffers {
        dev_bufs.push(stream.clone_htod(b.bytes()).map_err(cuda)?);
    }
    let profile_bytes = meta.map(|m| m.buffer_bytes(spec.grid_ctas())).unwrap_or(0) as usize;
    let mut profile = stream
        .alloc_zeros::<u8>(profile_bytes.max(8))
        .map_err(cuda)?;

    let mut words = {
        let addrs: Vec<u64> = dev_bufs.iter().map(|d| d.device_ptr(&stream).0).collect();
        pack_args(params, &buffers, &addrs, &scalars)
    };
    if meta.is_some() {
        words.push(profile.device_ptr(&stream).0);
    }
    let cfg = LaunchConfig {
        grid_dim: (spec.grid[0], spec.grid[1], spec.grid[2]),
        block_dim: (spec.block[0], spec.block[1], spec.block[2]),
        shared_mem_bytes: spec.shared_bytes,
    };
    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let start = ctx.new_event(timing).map_err(cuda)?;
    let end = ctx.new_event(timing).map_err(cuda)?;
    let launch = || -> Result<(), LaunchError> {
        let mut launch = stream.launch_builder(&func);
        for w in &words {
            launch.arg(w);
        }
        // SAFETY: the argument words follow the lowered kernel's signature
        // (checked against the spec by `prepare_args`).
        unsafe { launch.launch(cfg) }.map(|_| ()).map_err(cuda)
    };
    launch()?;
    stream.synchronize().map_err(cuda)?;
    let mut times = Vec::with_capacity(timed.max(1));
    for _ in 0..timed.max(1) {
        // Back to the spec's initial state: a kernel that accumulates into
        // its outputs must not see the warm-up's (or the last launch's) work.
        for (b, d) in buffers.iter().zip(dev_bufs.iter_mut()) {
            stream.memcpy_htod(b.bytes(), d).map_err(cuda)?;
        }
        stream.memset_zeros(&mut profile).map_err(cuda)?;
        start.record(&stream).map_err(cuda)?;
        launch()?;
        end.record(&stream).map_err(cuda)?;
        stream.synchronize().map_err(cuda)?;
        let ms = start.elapsed_ms(&end).map_err(cuda)?;
        times.push((f64::from(ms) * 1e6) as u64);
    }
    times.sort_unstable();
    let kernel_ns = times[times.len() / 2];

    let mut out = buffers;
    for (b, d) in out.iter_mut().zip(&dev_bufs) {
        let bytes: Vec<u8> = stream.clone_dtoh(d).map_err(cuda)?;
        b.bytes_mut().copy_from_slice(&bytes);
    }
    let mut profile_host: Vec<u8> = stream.clone_dtoh(&profile).map_err(cuda)?;
    profile_host.truncate(profile_bytes);
    Ok(DeviceRun {
        buffers: out,
        profile: profile_host,
        kernel_ns,
        device_name,
    })
}
