//! Timing a kernel on a CUDA GPU the careful way, for `kperf bench` and
//! `kperf peak --target cuda`.
//!
//! - Each sample is bracketed by two device events on a stream of its own.
//!   A short spin kernel goes first, so the start event completes only after
//!   the launch behind it is queued: host-side launch latency is not counted
//!   (nvbench's blocking-kernel idea, with a bounded spin).
//! - Optionally, before each sample, a memset of a buffer twice the L2 size
//!   (allocated once) evicts the kernel's data from L2 (hashed, partitioned
//!   L2s keep some lines when only their size is written).
//! - Optionally the launches are captured once into a CUDA graph of
//!   `graph_launches` back-to-back launches and replayed: one sample is the
//!   replay's time over that count, which hides launch gaps (only the
//!   first launch of a replay sees the flushed L2).
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
/// until the global timer has advanced `ns` nanoseconds, reads both again
/// and stores the four values. Bounded by time, not iterations, so its
/// length (and the timer's resolution error) is known on any GPU.
pub const CLOCK_PROBE_PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry kperf_clock_probe(.param .u64 out, .param .u64 ns)
{
    .reg .u64 %rd<10>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd6, [ns];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u64 %rd2, %globaltimer;
    mov.u64 %rd3, %clock64;
SPIN:
    mov.u64 %rd5, %globaltimer;
    sub.u64 %rd7, %rd5, %rd2;
    setp.lt.u64 %p, %rd7, %rd6;
    @%p bra SPIN;
    mov.u64 %rd4, %clock64;
    mov.u64 %rd5, %globaltimer;
    st.global.v2.u64 [%rd1], {%rd2, %rd3};
    st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
    ret;
}
"#;

/// The probe's spin: long against the global timer's update interval (up
/// to 1 µs on some GPUs), so the measured clock is good to ~2%.
const PROBE_NS: u64 = 50_000;
/// The spin before each sample's start event: longer than a launch takes
/// to reach the GPU.
const HOLD_NS: u64 = 20_000;

/// A kernel loaded with its arguments in device memory, ready to sample.
pub struct CudaBench {
    stream: Arc<CudaStream>,
    func: CudaFunction,
    cfg: LaunchConfig,
    words: Vec<u64>,
    _buffers: Vec<CudaSlice<u8>>,
    l2: Option<CudaSlice<u8>>,
    graph: Option<(CudaGraph, u32)>,
    /// The probe kernel and its output; also the hold before each sample.
    probe: (CudaFunction, CudaSlice<u64>),
    clock_probe: bool,
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
        // Not the legacy default stream: it cannot be captured into a graph.
        let stream = ctx.new_stream().map_err(cuda("create stream"))?;
        let free_before = ctx.mem_get_info().map_err(cuda("memory info"))?.0;
        let module = match code {
            DeviceCode::Ptx(p) => ctx.load_module(cudarc::nvrtc::Ptx::from_src(p)),
            DeviceCode::Cubin(b) => ctx.load_module(cudarc::nvrtc::Ptx::from_binary(b)),
        }
        .map_err(cuda("load module"))?;
        let func = module
            .load_function(kernel)
            .map_err(|e| LaunchError::Cuda(format!("kernel `{kernel}`: {e}")))?;
        crate::cuda::fit_dynamic_shared(&ctx, &func, kernel, spec.shared_bytes)?;
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
        let probe = {
            let m = ctx
                .load_module(cudarc::nvrtc::Ptx::from_src(CLOCK_PROBE_PTX))
                .map_err(cuda("load clock probe"))?;
            let f = m
                .load_function("kperf_clock_probe")
                .map_err(cuda("clock probe"))?;
            (
                f,
                stream.alloc_zeros::<u64>(4).map_err(cuda("probe buffer"))?,
            )
        };
        let khz = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)
            .map_err(cuda("clock rate"))?;
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = ctx.new_event(timing).map_err(cuda("event"))?;
        let end = ctx.new_event(timing).map_err(cuda("event"))?;
        let mut bench = CudaBench {
            stream,
            func,
            cfg,
            words,
            _buffers: dev,
            l2,
            graph: None,
            probe,
            clock_probe: opts.clock_probe,
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
        let captured = (0..launches).try_for_each(|_| self.launch());
        // End the capture even when a launch failed, so the stream is usable.
        let ended = self
            .stream
            .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))
            .map_err(cuda("end graph capture"));
        captured?;
        let graph =
            ended?.ok_or_else(|| LaunchError::Cuda("graph capture recorded nothing".into()))?;
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
        let (f, out) = &mut self.probe;
        launch_probe(&self.stream, f, out, HOLD_NS)?;
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
        let sm_clock_mhz = if self.clock_probe {
            let (f, out) = &mut self.probe;
            Some(probe_clock(&self.stream, f, out)?)
        } else {
            None
        };
        Ok(CudaSample {
            ns: ms as f64 * 1e6 / per as f64,
            sm_clock_mhz,
        })
    }
}

fn launch_probe(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    out: &mut CudaSlice<u64>,
    ns: u64,
) -> Result<(), LaunchError> {
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut l = stream.launch_builder(f);
    l.arg(&mut *out);
    l.arg(&ns);
    // SAFETY: the probe takes (u64*, u64) and writes four u64 words.
    unsafe { l.launch(cfg) }
        .map(|_| ())
        .map_err(cuda("clock probe"))
}

fn probe_clock(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    out: &mut CudaSlice<u64>,
) -> Result<f64, LaunchError> {
    launch_probe(stream, f, out, PROBE_NS)?;
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

/// The device's chip, name and PCI bus id, from one context. The chip is
/// the `--chip` it runs: `sm_<major><minor>`, with Hopper's `a` features
/// (sm_90a PTX loads on every sm_90 device).
pub fn describe_device(ordinal: usize) -> Result<CudaDeviceInfo, LaunchError> {
    check_driver()?;
    let ctx = CudaContext::new(ordinal).map_err(cuda("create context"))?;
    let attr = |a: CUdevice_attribute, what: &str| ctx.attribute(a).map_err(cuda(what));
    let major = attr(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
        "compute capability",
    )?;
    let minor = attr(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        "compute capability",
    )?;
    let suffix = if (major, minor) == (9, 0) { "a" } else { "" };
    let domain = attr(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
        "PCI domain",
    )?;
    let bus = attr(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
        "PCI bus",
    )?;
    let device = attr(
        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID,
        "PCI device",
    )?;
    Ok(CudaDeviceInfo {
        chip: format!("sm_{major}{minor}{suffix}"),
        name: ctx.name().unwrap_or_else(|_| format!("cuda:{ordinal}")),
        pci_bus_id: format!("{domain:08x}:{bus:02x}:{device:02x}.0"),
    })
}

/// What `kperf bench --target cuda` needs to know of a device up front.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaDeviceInfo {
    /// Target chip for ptxas and the lowering, e.g. `sm_90a`.
    pub chip: String,
    pub name: String,
    /// `domain:bus:device.function` in hex, as NVML takes it.
    pub pci_bus_id: String,
}

/// The fastest of `reps` event-timed runs of `work` on `stream` (ms), after
/// one untimed run.
fn best_event_ms(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    reps: u32,
    mut work: impl FnMut() -> Result<(), LaunchError>,
) -> Result<f64, LaunchError> {
    let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let (a, b) = (
        ctx.new_event(timing).map_err(cuda("event"))?,
        ctx.new_event(timing).map_err(cuda("event"))?,
    );
    work()?;
    let mut best = f64::INFINITY;
    for _ in 0..reps.max(1) {
        a.record(stream).map_err(cuda("event"))?;
        work()?;
        b.record(stream).map_err(cuda("event"))?;
        best = best.min(a.elapsed_ms(&b).map_err(cuda("event time"))? as f64);
    }
    Ok(best)
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
    let best = best_event_ms(&ctx, &stream, reps, || {
        stream.memcpy_dtod(&src, &mut dst).map_err(cuda("copy"))
    })?;
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
    let best = best_event_ms(&ctx, &stream, reps, || {
        // SAFETY: a, b, c hold n × n floats, matching the configuration.
        unsafe { blas.gemm(cfg, &a, &b, &mut c) }
            .map_err(|e| LaunchError::Cuda(format!("cuBLAS SGEMM: {e}")))
    })?;
    Ok(2.0 * (n as f64).powi(3) / (best * 1e-3))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_probe_assembles_with_ptxas() {
        // Where ptxas is installed (scripts/setup.sh), the probe must
        // assemble; elsewhere there is nothing to check.
        let Ok(dir) = std::env::var("KPERF_TEST_PTXAS_DIR").or_else(|_| {
            let d = concat!(env!("CARGO_MANIFEST_DIR"), "/../.tools/bin");
            std::path::Path::new(d)
                .join("ptxas")
                .exists()
                .then(|| d.to_string())
                .ok_or(())
        }) else {
            return;
        };
        let tmp = std::env::temp_dir().join(format!("kperf-probe-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).unwrap();
        let ptx = tmp.join("probe.ptx");
        std::fs::write(&ptx, super::CLOCK_PROBE_PTX).unwrap();
        let out = std::process::Command::new(std::path::Path::new(&dir).join("ptxas"))
            .args(["-arch=sm_90", "-o"])
            .arg(tmp.join("probe.cubin"))
            .arg(&ptx)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&tmp);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

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
