//! Timing a kernel on a CUDA GPU the careful way, for `kperf bench` and
//! `kperf peak --target cuda`.
//!
//! - Each sample is bracketed by two device events on the launch stream, so
//!   host-side launch latency is not counted.
//! - Optionally, before each sample, a memset of an L2-sized buffer
//!   (allocated once) evicts the kernel's data from L2.
//! - Optionally the launches are captured once into a CUDA graph of
//!   `graph_launches` back-to-back launches and replayed: one sample is the
//!   replay's time over that count, which hides launch gaps.
//! - After each sample a tiny probe kernel reads `%clock64` and
//!   `%globaltimer` over a short spin on one SM: the SM clock at that moment,
//!   used to drop throttled samples and to express samples in cycles.
//!
//! The driver is loaded at run time; without it every entry point returns
//! [`LaunchError::NoDriver`].

use crate::cuda::{check_driver, DeviceCode};
use crate::host::{pack_args, prepare_args, Param};
use crate::launch_error::LaunchError;
use crate::spec::LaunchSpec;
use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUstreamCaptureMode};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaSlice, CudaStream, DevicePtr,
    LaunchConfig, PushKernelArg,
};
use std::sync::Arc;

fn cuda(what: &str) -> impl Fn(cudarc::driver::DriverError) -> LaunchError + '_ {
    move |e| LaunchError::Cuda(format!("{what}: {e}"))
}

/// How samples are taken.
#[derive(Clone, Debug)]
pub struct CudaBenchOptions {
    pub ordinal: usize,
    pub flush_l2: bool,
    /// Launches per CUDA graph replay; 0 launches directly.
    pub graph_launches: u32,
    /// Run the clock probe after each sample.
    pub clock_probe: bool,
}

/// One timed sample.
#[derive(Clone, Copy, Debug)]
pub struct CudaSample {
    /// Time of one launch.
    pub ns: f64,
    /// SM clock right after the sample, when probed.
    pub sm_clock_mhz: Option<f64>,
}

/// The clock probe: thread 0 reads the global timer and the SM clock, spins
/// `spins` iterations, reads both again and stores the four values (the
/// spin's sum is stored too, so ptxas cannot drop the loop).
const CLOCK_PROBE_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry kperf_clock_probe(.param .u64 out, .param .u32 spins)
{
    .reg .u64 %rd<8>;
    .reg .u32 %r<6>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [spins];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u64 %rd2, %globaltimer;
    mov.u64 %rd3, %clock64;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
SPIN:
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p, %r2, %r1;
    @%p bra SPIN;
    mov.u64 %rd4, %clock64;
    mov.u64 %rd5, %globaltimer;
    st.global.v2.u64 [%rd1], {%rd2, %rd3};
    st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
    st.global.u32 [%rd1+32], %r3;
    ret;
}
"#;

/// Iterations of the probe's spin: ~30 µs at 2 GHz (ptxas unrolls it by 4), long against the
/// global timer's update interval.
const PROBE_SPINS: u32 = 40_000;

/// A kernel loaded with its arguments in device memory, ready to sample.
pub struct CudaBench {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    func: CudaFunction,
    cfg: LaunchConfig,
    words: Vec<u64>,
    _buffers: Vec<CudaSlice<u8>>,
    l2: Option<CudaSlice<u8>>,
    graph: Option<(CudaGraph, u32)>,
    probe: Option<(CudaFunction, CudaSlice<u64>)>,
    start: CudaEvent,
    end: CudaEvent,
    pub device_name: String,
    /// The SM clock the device reports as its maximum (MHz).
    pub max_sm_clock_mhz: f64,
    /// Device memory the point took (free memory before − after allocating).
    pub allocated_bytes: u64,
}

impl CudaBench {
    pub fn new(
        code: DeviceCode,
        kernel: &str,
        params: &[Param],
        spec: &LaunchSpec,
        opts: &CudaBenchOptions,
    ) -> Result<CudaBench, LaunchError> {
        check_driver()?;
        let (buffers, scalars) = prepare_args(kernel, params, spec)?;
        let ctx = CudaContext::new(opts.ordinal).map_err(cuda("create context"))?;
        let device_name = ctx
            .name()
            .unwrap_or_else(|_| format!("cuda:{}", opts.ordinal));
        let stream = ctx.default_stream();
        let free_before = ctx.mem_get_info().map_err(cuda("memory info"))?.0;
        let module = match code {
            DeviceCode::Ptx(p) => ctx.load_module(cudarc::nvrtc::Ptx::from_src(p)),
            DeviceCode::Cubin(b) => ctx.load_module(cudarc::nvrtc::Ptx::from_binary(b)),
        }
        .map_err(cuda("load module"))?;
        let func = module
            .load_function(kernel)
            .map_err(|e| LaunchError::Cuda(format!("kernel `{kernel}`: {e}")))?;
        let mut dev = Vec::with_capacity(buffers.len());
        for b in &buffers {
            dev.push(stream.clone_htod(b.bytes()).map_err(cuda("upload"))?);
        }
        let addrs: Vec<u64> = dev.iter().map(|d| d.device_ptr(&stream).0).collect();
        let words = pack_args(params, &buffers, &addrs, &scalars);
        let cfg = LaunchConfig {
            grid_dim: (spec.grid[0], spec.grid[1], spec.grid[2]),
            block_dim: (spec.block[0], spec.block[1], spec.block[2]),
            shared_mem_bytes: spec.shared_bytes,
        };
        stream.synchronize().map_err(cuda("synchronize"))?;
        let free_after = ctx.mem_get_info().map_err(cuda("memory info"))?.0;
        let l2 = if opts.flush_l2 {
            let bytes = ctx
                .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
                .map_err(cuda("L2 size"))?
                .max(1) as usize;
            Some(
                stream
                    .alloc_zeros::<u8>(bytes)
                    .map_err(cuda("L2 flush buffer"))?,
            )
        } else {
            None
        };
        let probe = if opts.clock_probe {
            let m = ctx
                .load_module(cudarc::nvrtc::Ptx::from_src(CLOCK_PROBE_PTX))
                .map_err(cuda("load clock probe"))?;
            let f = m
                .load_function("kperf_clock_probe")
                .map_err(cuda("clock probe"))?;
            Some((
                f,
                stream.alloc_zeros::<u64>(5).map_err(cuda("probe buffer"))?,
            ))
        } else {
            None
        };
        let khz = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
            .map_err(cuda("clock rate"))?;
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = ctx.new_event(timing).map_err(cuda("event"))?;
        let end = ctx.new_event(timing).map_err(cuda("event"))?;
        let mut bench = CudaBench {
            ctx,
            stream,
            func,
            cfg,
            words,
            _buffers: dev,
            l2,
            graph: None,
            probe,
            start,
            end,
            device_name,
            max_sm_clock_mhz: khz as f64 / 1000.0,
            allocated_bytes: free_before.saturating_sub(free_after) as u64,
        };
        if opts.graph_launches > 0 {
            bench.capture(opts.graph_launches)?;
        }
        Ok(bench)
    }

    fn launch(&self) -> Result<(), LaunchError> {
        let mut l = self.stream.launch_builder(&self.func);
        for w in &self.words {
            l.arg(w);
        }
        // SAFETY: the words follow the kernel's signature, checked against
        // the spec by `prepare_args`.
        unsafe { l.launch(self.cfg) }
            .map(|_| ())
            .map_err(cuda("launch"))
    }

    fn capture(&mut self, launches: u32) -> Result<(), LaunchError> {
        self.stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(cuda("begin graph capture"))?;
        for _ in 0..launches {
            self.launch()?;
        }
        let graph = self
            .stream
            .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))
            .map_err(cuda("end graph capture"))?
            .ok_or_else(|| LaunchError::Cuda("graph capture recorded nothing".into()))?;
        graph.upload().map_err(cuda("upload graph"))?;
        self.graph = Some((graph, launches));
        Ok(())
    }

    /// Untimed work before a sample: the L2 flush.
    pub fn prepare(&mut self) -> Result<(), LaunchError> {
        if let Some(l2) = self.l2.as_mut() {
            self.stream.memset_zeros(l2).map_err(cuda("L2 flush"))?;
        }
        Ok(())
    }

    /// One sample: events around a launch (or a graph replay), then the
    /// clock probe.
    pub fn sample(&mut self) -> Result<CudaSample, LaunchError> {
        self.start.record(&self.stream).map_err(cuda("event"))?;
        let per = match &self.graph {
            Some((g, n)) => {
                g.launch().map_err(cuda("graph launch"))?;
                *n
            }
            None => {
                self.launch()?;
                1
            }
        };
        self.end.record(&self.stream).map_err(cuda("event"))?;
        let ms = self
            .start
            .elapsed_ms(&self.end)
            .map_err(cuda("event time"))?;
        let sm_clock_mhz = match &mut self.probe {
            Some((f, out)) => Some(probe_clock(&self.stream, f, out)?),
            None => None,
        };
        Ok(CudaSample {
            ns: ms as f64 * 1e6 / per as f64,
            sm_clock_mhz,
        })
    }

    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

fn probe_clock(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    out: &mut CudaSlice<u64>,
) -> Result<f64, LaunchError> {
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut l = stream.launch_builder(f);
    l.arg(&mut *out);
    l.arg(&PROBE_SPINS);
    // SAFETY: the probe takes (u64*, u32) and writes five u64 words.
    unsafe { l.launch(cfg) }.map_err(cuda("clock probe"))?;
    let v: Vec<u64> = stream.clone_dtoh(&*out).map_err(cuda("clock probe"))?;
    let (t0, c0, c1, t1) = (v[0], v[1], v[2], v[3]);
    let dt = t1.saturating_sub(t0);
    if dt == 0 {
        return Err(LaunchError::Cuda(
            "clock probe: the global timer did not advance".into(),
        ));
    }
    Ok(c1.saturating_sub(c0) as f64 / dt as f64 * 1000.0)
}

/// `kperf peak --target cuda`: device-to-device copy bandwidth (bytes read
/// plus written per second) over `bytes`-sized buffers, best of `reps`.
pub fn copy_bandwidth(
    ordinal: usize,
    bytes: usize,
    reps: u32,
) -> Result<(String, f64), LaunchError> {
    check_driver()?;
    let ctx = CudaContext::new(ordinal).map_err(cuda("create context"))?;
    let name = ctx.name().unwrap_or_else(|_| format!("cuda:{ordinal}"));
    let stream = ctx.default_stream();
    let src = stream.alloc_zeros::<u8>(bytes).map_err(cuda("alloc"))?;
    let mut dst = stream.alloc_zeros::<u8>(bytes).map_err(cuda("alloc"))?;
    let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let (a, b) = (
        ctx.new_event(timing).map_err(cuda("event"))?,
        ctx.new_event(timing).map_err(cuda("event"))?,
    );
    let mut best = f64::INFINITY;
    for i in 0..reps + 1 {
        a.record(&stream).map_err(cuda("event"))?;
        stream.memcpy_dtod(&src, &mut dst).map_err(cuda("copy"))?;
        b.record(&stream).map_err(cuda("event"))?;
        let ms = a.elapsed_ms(&b).map_err(cuda("event time"))? as f64;
        if i > 0 {
            best = best.min(ms);
        }
    }
    Ok((name, 2.0 * bytes as f64 / (best * 1e-3)))
}

/// `kperf peak --target cuda`: FP32 matrix-product rate through cuBLAS
/// (n × n × n SGEMM), best of `reps`.
pub fn sgemm_rate(ordinal: usize, n: usize, reps: u32) -> Result<f64, LaunchError> {
    use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
    check_driver()?;
    // SAFETY: only probes whether the library can be opened.
    if !unsafe { cudarc::cublas::sys::is_culib_present() } {
        return Err(LaunchError::NoDriver(
            "libcublas.so could not be loaded; install the CUDA toolkit's cuBLAS".into(),
        ));
    }
    let ctx = CudaContext::new(ordinal).map_err(cuda("create context"))?;
    let stream = ctx.default_stream();
    let blas =
        CudaBlas::new(stream.clone()).map_err(|e| LaunchError::Cuda(format!("cuBLAS: {e}")))?;
    let fill: Vec<f32> = (0..n * n)
        .map(|i| ((i * 7919) % 1000) as f32 / 1000.0)
        .collect();
    let a = stream.clone_htod(&fill).map_err(cuda("upload"))?;
    let b = stream.clone_htod(&fill).map_err(cuda("upload"))?;
    let mut c = stream.alloc_zeros::<f32>(n * n).map_err(cuda("alloc"))?;
    let n32 = n as i32;
    let cfg = GemmConfig {
        transa: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
        transb: cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N,
        m: n32,
        n: n32,
        k: n32,
        alpha: 1.0f32,
        lda: n32,
        ldb: n32,
        beta: 0.0f32,
        ldc: n32,
    };
    let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let (e0, e1) = (
        ctx.new_event(timing).map_err(cuda("event"))?,
        ctx.new_event(timing).map_err(cuda("event"))?,
    );
    let mut best = f64::INFINITY;
    for i in 0..reps + 1 {
        e0.record(&stream).map_err(cuda("event"))?;
        // SAFETY: a, b, c hold n × n floats, matching the configuration.
        unsafe { blas.gemm(cfg, &a, &b, &mut c) }
            .map_err(|e| LaunchError::Cuda(format!("cuBLAS SGEMM: {e}")))?;
        e1.record(&stream).map_err(cuda("event"))?;
        let ms = e0.elapsed_ms(&e1).map_err(cuda("event time"))? as f64;
        if i > 0 {
            best = best.min(ms);
        }
    }
    Ok(2.0 * (n as f64).powi(3) / (best * 1e-3))
}

#[cfg(test)]
mod tests {
    #[test]
    fn without_a_driver_the_bench_says_so() {
        // SAFETY: only probes whether the library can be opened.
        if unsafe { cudarc::driver::sys::is_culib_present() } {
            return; // a machine with a GPU driver: nothing to check here
        }
        let e = super::copy_bandwidth(0, 1 << 20, 1).unwrap_err();
        assert!(matches!(e, crate::LaunchError::NoDriver(_)), "{e}");
    }
}
