//! The CUDA target: load PTX or cubin with the driver (loaded at run time,
//! so building needs no CUDA), allocate the inputs from the launch spec and
//! a zeroed profile buffer, launch, synchronize, copy back.
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
use std::time::Instant;

/// Is a CUDA driver loadable? cudarc panics on the first driver call when
/// libcuda is absent, so ask first and turn the answer into an error.
pub fn check_driver() -> Result<(), LaunchError> {
    // SAFETY: only probes whether the library can be opened.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(LaunchError::NoDriver(
            "libcuda.so (the NVIDIA driver library) could not be loaded; install the NVIDIA driver or run with --target host".into(),
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
    /// Launch to synchronize, wall clock.
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

/// Run `kernel` from `code` on device `ordinal` over the spec's grid.
pub fn run_cuda(
    code: DeviceCode,
    kernel: &str,
    params: &[Param],
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
    ordinal: usize,
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
    let profile = stream
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
    let start = Instant::now();
    let mut launch = stream.launch_builder(&func);
    for w in &words {
        launch.arg(w);
    }
    // SAFETY: the argument words follow the lowered kernel's signature
    // (checked against the spec by `prepare_args`).
    unsafe { launch.launch(cfg) }.map_err(cuda)?;
    stream.synchronize().map_err(cuda)?;
    let kernel_ns = start.elapsed().as_nanos() as u64;

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
