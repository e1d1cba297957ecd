//! The host target: JIT the (instrumented) module with MLIR's
//! ExecutionEngine and run the kernel once per CTA of the grid, CTAs spread
//! over OS threads, each writing its own block of the profile buffer exactly
//! as a GPU CTA would.
//!
//! Host kernel ABI (set up by kperf-instrument's host pass): the kernel's
//! original arguments (memrefs expanded to allocated ptr, aligned ptr,
//! offset, sizes, strides), then the profile buffer pointer when
//! instrumented, then six `index` values: block x, y, z and grid x, y, z.

use crate::guard::{check_memory, human, GuardedBuffer, KernelRunning};
use crate::launch_error::LaunchError as RuntimeError;
use crate::spec::{DType, HostBuffer, LaunchSpec};
use kperf_dialects::meta::KernelMeta;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::ir::{BlockLike, RegionLike};
use melior::StringRef;
use std::ffi::c_void;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// A kernel parameter as the source declares it.
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Scalar(DType),
    /// A raw pointer (`!llvm.ptr`, `!llvm.ptr<1>`): a buffer passed by address.
    Pointer,
    /// An integer of 1, 8 or 16 bits (CUDA's `bool`, `char`, `short`):
    /// the spec gives an `i32` value that fits, passed in the low bytes of
    /// its word (the kernel loads its own width, little-endian).
    NarrowInt(u32),
    /// memref with this many dimensions and element type; `dims` are the
    /// static extents (`None` for `?`), checked against the spec's shape.
    MemRef {
        rank: usize,
        dtype: DType,
        dims: Vec<Option<u64>>,
        /// The layout's static strides and offset (`strided<[2], offset:
        /// 3>`; `None` for `?`), when the type has a strided layout.
        layout: Option<StridedLayout>,
    },
}

/// A memref's `strided<[s0, ...], offset: o>` layout; `None` entries are `?`.
#[derive(Clone, Debug, PartialEq)]
pub struct StridedLayout {
    pub strides: Vec<Option<u64>>,
    pub offset: Option<u64>,
    /// The layout as written, for messages.
    pub text: String,
    /// An `affine_map` layout other than the identity: kperf does not
    /// work out where it places elements, so it is refused.
    pub map: bool,
}

impl StridedLayout {
    fn parse(inner: &str) -> Option<StridedLayout> {
        if let Some(at) = inner.find("affine_map<") {
            // The identity map is the default layout; any other map (a
            // column-major `(d0, d1) -> (d1 * 4 + d0)`) read the row-major
            // buffer in another order, with no error.
            let text = inner[at..].trim_end_matches('>').to_string() + ">";
            let body = text["affine_map<".len()..].trim_end_matches('>');
            let (dims, results) = body.split_once("->")?;
            let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            if squash(dims) == squash(results) {
                return None;
            }
            return Some(StridedLayout {
                strides: Vec::new(),
                offset: None,
                text,
                map: true,
            });
        }
        let at = inner.find("strided<[")?;
        let rest = &inner[at + "strided<[".len()..];
        let (list, after) = rest.split_once(']')?;
        let value = |s: &str| -> Option<Option<u64>> {
            match s.trim() {
                "?" => Some(None),
                v => v.parse().ok().map(Some),
            }
        };
        let strides = if list.trim().is_empty() {
            Vec::new()
        } else {
            list.split(',').map(value).collect::<Option<Vec<_>>>()?
        };
        let offset = match after.split_once("offset:") {
            Some((_, o)) => value(o.split('>').next()?)?,
            None => Some(0),
        };
        let tail = after.split('>').next().unwrap_or("");
        Some(StridedLayout {
            strides,
            offset,
            text: format!("strided<[{list}]{tail}>"),
            map: false,
        })
    }

    /// Why a row-major buffer of `shape` (offset 0, what kperf's launchers
    /// pass) does not fit this layout, if it does not: a static stride or
    /// offset other than the row-major one would make the kernel index past
    /// the buffer, or read the wrong elements.
    pub fn mismatch(&self, shape: &[u64]) -> Option<String> {
        if self.map {
            return Some(format!(
                "its layout `{}` is an affine map other than the identity, whose element \
                 placement kperf does not check (write it as `strided<[...], offset: ...>`)",
                self.text
            ));
        }
        let mut row_major = vec![1u64; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            row_major[d] = row_major[d + 1].saturating_mul(shape[d + 1]);
        }
        for (d, (s, r)) in self.strides.iter().zip(&row_major).enumerate() {
            // A dimension of extent 1 is never stepped: any stride does.
            if shape.get(d).is_some_and(|&n| n <= 1) {
                continue;
            }
            if let Some(s) = s {
                if s != r {
                    return Some(format!(
                        "its layout `{}` has stride {s} in dimension {d}, where a row-major buffer of shape {shape:?} has {r}",
                        self.text
                    ));
                }
            }
        }
        match self.offset {
            Some(o) if o != 0 => Some(format!(
                "its layout `{}` has offset {o}, and kperf passes buffers at offset 0",
                self.text
            )),
            _ => None,
        }
    }
}

impl Param {
    /// Parse an MLIR type string (`memref<64x?xf32>`, `index`, `f32`).
    pub fn parse(ty: &str) -> Option<Param> {
        let ty = ty.trim();
        if let Some(inner) = ty.strip_prefix("memref<").and_then(|s| s.split('>').next()) {
            let full = ty.strip_prefix("memref<")?;
            let layout = StridedLayout::parse(full);
            let inner = inner.split(',').next()?; // drop layout / memory space
            let parts: Vec<&str> = inner.split('x').collect();
            let dtype = DType::parse(parts.last()?.trim())?;
            let mut dims = Vec::new();
            for d in &parts[..parts.len() - 1] {
                dims.push(match d.trim() {
                    "?" => None,
                    d => Some(d.parse().ok()?),
                });
            }
            return Some(Param::MemRef {
                rank: dims.len(),
                dtype,
                dims,
                layout,
            });
        }
        if ty.starts_with("!llvm.ptr") {
            return Some(Param::Pointer);
        }
        // `bool`, `char`, `short` (upstream's assert test takes two i1).
        match ty {
            "i1" => return Some(Param::NarrowInt(1)),
            "i8" => return Some(Param::NarrowInt(8)),
            "i16" => return Some(Param::NarrowInt(16)),
            _ => {}
        }
        DType::parse(ty).map(Param::Scalar)
    }
}

// The profile's bytes are the kernel's words in memory order; the `.kprof`
// format is little-endian.
#[cfg(not(target_endian = "little"))]
compile_error!("the host target reads the profile buffer in place: little-endian hosts only");

/// The raw profile a host run wrote, read in place from the guarded buffer
/// the kernel wrote it to: a profile as large as memory allows is held
/// once, not copied before it is written.
pub struct ProfileBytes {
    buffer: GuardedBuffer,
    len: usize,
}

impl std::ops::Deref for ProfileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buffer[..self.len]
    }
}

impl std::fmt::Debug for ProfileBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ProfileBytes({} bytes)", self.len)
    }
}

/// What a host run produced.
pub struct HostRun {
    /// Buffer arguments after the run, in argument order.
    pub buffers: Vec<HostBuffer>,
    /// The raw profile buffer (empty when not instrumented), in place.
    pub profile: ProfileBytes,
    /// Wall time of the whole grid.
    pub wall_ns: u64,
    pub threads: usize,
}

static EPOCH: OnceLock<Instant> = OnceLock::new();

/// The host's "global timer": monotonic nanoseconds since the first use.
pub(crate) extern "C" fn kperf_host_now_ns() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

extern "C" {
    fn sched_getcpu() -> i32;
}

/// The host's "SM id": the CPU the calling thread runs on.
pub(crate) extern "C" fn kperf_host_cpu() -> u32 {
    unsafe { sched_getcpu() }.max(0) as u32
}

/// The host's cycle counter, as instrumented host kernels read it
/// (`llvm.readcyclecounter`: the time-stamp counter on x86-64), or the
/// host's nanosecond timer where there is none.
pub fn host_ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86-64.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        kperf_host_now_ns()
    }
}

/// [`host_ticks`] once everything before it has executed, and before
/// anything after it starts (`lfence` on both sides): what the check's
/// truth is timed with. Unfenced, a CTA's dependent chain was still in
/// flight at the second read: a CTA of 20 iterations (about 590 ticks by
/// the 2000-iteration CTAs' rate) timed 332.
pub fn host_ticks_fenced() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: lfence and rdtsc have no preconditions on x86-64.
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        host_ticks()
    }
}

/// What timing a call between two [`host_ticks_fenced`] reads adds when
/// the call does nothing: the least of 257 back-to-back fenced reads, in
/// ticks (their median fell on either of two values, 49 or 73 ticks, from
/// one run to the next; the least is what they can cost). The check takes it off each CTA's time, since a record's clock
/// read is calibrated out of the profile the same way (an empty kernel
/// read 74 ticks "uninstrumented" against its corrected 2).
pub fn fenced_read_floor() -> u64 {
    let gaps: Vec<u64> = (0..257)
        .map(|_| {
            let t0 = host_ticks_fenced();
            host_ticks_fenced().wrapping_sub(t0)
        })
        .collect();
    gaps.into_iter().min().unwrap_or(0)
}

/// The buffers' contents at one moment ([`GridLauncher::save_buffers`]).
pub struct SavedBuffers(Vec<Vec<u8>>);

/// A kernel called with one pointer per argument word.
pub type Packed = unsafe extern "C" fn(*mut *mut c_void);

/// JIT `module` (already lowered to the LLVM dialect) and run `kernel` over
/// the spec's grid. `params` are the kernel's original parameters; `meta`
/// is present when the kernel is instrumented.
pub fn run_host(
    module: &Module,
    kernel: &str,
    params: &[Param],
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
    threads: usize,
) -> Result<HostRun, RuntimeError> {
    with_host_kernel(module, kernel, params, meta, spec, threads, |mut grid| {
        let wall_ns = grid.launch_warm()?;
        grid.into_run(wall_ns)
    })?
}

/// Functions kperf gives every host module itself (registered with the
/// engine after it is made).
const KPERF_HOST_FUNCTIONS: [&str; 2] = ["kperf_host_now_ns", "kperf_host_cpu"];

/// MLIR's runner libraries (what `mlir-runner -shared-libs=` loads for
/// upstream's tests: `printMemrefF32`, `vector.print`'s `printF32`, ...),
/// in `$KPERF_MLIR_RUNNER_UTILS_DIR` or LLVM 22's library directory.
fn runner_libraries() -> Vec<String> {
    let dir = std::env::var("KPERF_MLIR_RUNNER_UTILS_DIR")
        .unwrap_or_else(|_| "/usr/lib/llvm-22/lib".to_string());
    ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"]
        .iter()
        .map(|name| format!("{dir}/{name}"))
        .filter(|p| std::path::Path::new(p).is_file())
        .collect()
}

/// Whether `name` is a symbol of this process, or of `library` (opened,
/// when given, and kept open: the engine loads it again).
fn defined_in(name: &str, library: Option<&str>) -> bool {
    let Ok(symbol) = std::ffi::CString::new(name) else {
        return false;
    };
    // SAFETY: dlopen/dlsym with NUL-terminated strings; a handle that
    // is never closed stays valid.
    unsafe {
        let handle = match library {
            None => libc::RTLD_DEFAULT,
            Some(path) => {
                let Ok(path) = std::ffi::CString::new(path) else {
                    return false;
                };
                libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL)
            }
        };
        !handle.is_null() && !libc::dlsym(handle, symbol.as_ptr()).is_null()
    }
}

/// The runner libraries the module's undefined functions need; an error
/// naming the functions nothing defines. The JIT printed "Symbols not
/// found" and kperf then said the kernel itself was "not found after
/// compilation".
fn runtime_libraries_for(module: &Module) -> Result<Vec<String>, RuntimeError> {
    let mut undefined = Vec::new();
    let mut op = module.body().first_operation();
    while let Some(o) = op {
        let is_declaration = o.name().as_string_ref().as_str() == Ok("llvm.func")
            && o.region(0).ok().and_then(|r| r.first_block()).is_none();
        if is_declaration {
            if let Some(name) = o
                .attribute("sym_name")
                .ok()
                .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
                .map(|a| a.value().to_string())
            {
                if !KPERF_HOST_FUNCTIONS.contains(&name.as_str()) && !defined_in(&name, None) {
                    undefined.push(name);
                }
            }
        }
        op = o.next_in_block();
    }
    if undefined.is_empty() {
        return Ok(Vec::new());
    }
    let libraries = runner_libraries();
    let missing: Vec<&String> = undefined
        .iter()
        .filter(|name| !libraries.iter().any(|l| defined_in(name, Some(l))))
        .collect();
    if !missing.is_empty() {
        return Err(RuntimeError::Launch(format!(
            "JIT: {} declared but not defined in the module, and neither kperf nor MLIR's \
             runner libraries ({}) define {}",
            missing
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if libraries.is_empty() {
                "none found: set KPERF_MLIR_RUNNER_UTILS_DIR to the directory of \
                 libmlir_c_runner_utils.so"
                    .to_string()
            } else {
                libraries.join(", ")
            },
            if missing.len() == 1 { "it" } else { "them" }
        )));
    }
    Ok(libraries)
}

/// MLIR's execution engine over a module, at O3. Its C API returns a null
/// engine where the module does not translate to LLVM IR or compile (an op
/// the host target has no lowering for, such as `gpu.printf`), which
/// melior's wrapper does not check: registering a symbol in it crashed
/// kperf. This one is never null.
struct JitEngine {
    raw: mlir_sys::MlirExecutionEngine,
}

impl JitEngine {
    fn new(module: &Module) -> Result<JitEngine, RuntimeError> {
        // NUL-terminated: the C API reads each path's `data` as a C string.
        let libraries: Vec<std::ffi::CString> = runtime_libraries_for(module)?
            .into_iter()
            .filter_map(|p| std::ffi::CString::new(p).ok())
            .collect();
        let paths: Vec<mlir_sys::MlirStringRef> = libraries
            .iter()
            .map(|p| mlir_sys::MlirStringRef {
                data: p.as_ptr(),
                length: p.as_bytes().len(),
            })
            .collect();
        // SAFETY: the module is valid for the call; `paths` outlive it.
        let raw = unsafe {
            mlir_sys::mlirExecutionEngineCreate(
                module.to_raw(),
                3,
                paths.len() as i32,
                paths.as_ptr(),
                false,
                false,
            )
        };
        if raw.ptr.is_null() {
            return Err(RuntimeError::Launch(
                "JIT: the module did not compile for the host (MLIR's execution engine could not \
                 translate it to LLVM IR or compile it: an op with no CPU lowering or LLVM \
                 translation is still in it)"
                    .into(),
            ));
        }
        Ok(JitEngine { raw })
    }

    /// # Safety
    /// `ptr` must be a function with the signature the module declares for `name`.
    unsafe fn register_symbol(&self, name: &str, ptr: *mut ()) {
        // SAFETY: the engine is not null; the caller vouches for `ptr`.
        unsafe {
            mlir_sys::mlirExecutionEngineRegisterSymbol(
                self.raw,
                StringRef::new(name).to_raw(),
                ptr as *mut c_void,
            )
        }
    }

    fn lookup(&self, name: &str) -> *mut () {
        // SAFETY: the engine is not null.
        unsafe {
            mlir_sys::mlirExecutionEngineLookup(self.raw, StringRef::new(name).to_raw()) as *mut ()
        }
    }
}

impl Drop for JitEngine {
    fn drop(&mut self) {
        // SAFETY: created by mlirExecutionEngineCreate, destroyed once.
        unsafe { mlir_sys::mlirExecutionEngineDestroy(self.raw) }
    }
}

/// JIT `module` and hand `body` a launcher for `kernel` with the spec's
/// arguments in place; the compiled code lives until `body` returns.
pub fn with_host_kernel<R>(
    module: &Module,
    kernel: &str,
    params: &[Param],
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
    threads: usize,
    body: impl for<'jit> FnOnce(GridLauncher<'jit>) -> R,
) -> Result<R, RuntimeError> {
    let engine = JitEngine::new(module);
    // The perf listener has opened its dump file by now (see jitdump).
    crate::jitdump::discard();
    let engine = engine?;
    unsafe {
        engine.register_symbol(KPERF_HOST_FUNCTIONS[0], kperf_host_now_ns as *mut ());
        engine.register_symbol(KPERF_HOST_FUNCTIONS[1], kperf_host_cpu as *mut ());
    }
    let name = format!("_mlir_{kernel}");
    let f = engine.lookup(&name);
    if f.is_null() {
        return Err(RuntimeError::Launch(format!(
            "JIT: `{kernel}` not found after compilation (did the module lower to LLVM?)"
        )));
    }
    let f: Packed = unsafe { std::mem::transmute::<*mut (), Packed>(f) };
    // SAFETY: `f` has the packed signature and lives as long as `engine`,
    // which outlives the launcher: `body` cannot return it (its lifetime is
    // local to the call).
    let grid = unsafe { GridLauncher::new(f, kernel, params, meta, spec, threads)? };
    let out = body(grid);
    drop(engine);
    Ok(out)
}

/// A JIT-compiled kernel with its arguments allocated and filled once,
/// ready to run over the grid as often as asked (`kperf run` runs it once,
/// `kperf bench` many times). Buffers keep their addresses between launches.
/// `'jit` is the life of the compiled code: the launcher cannot outlive it.
pub struct GridLauncher<'jit> {
    f: Packed,
    _code: std::marker::PhantomData<&'jit ()>,
    buffers: Vec<HostBuffer>,
    /// Guarded like the buffers ([`GuardedBuffer::for_profile`]).
    profile: GuardedBuffer,
    profile_bytes: usize,
    /// The per-call argument words: memref descriptors, scalars, profile
    /// pointer; the six grid ids are appended per CTA.
    template: Vec<u64>,
    /// The single-thread path's argument words (template + grid ids) and
    /// one pointer to each, built once so a timed launch allocates nothing.
    words: Vec<u64>,
    ptrs: Vec<*mut c_void>,
    grid: [u32; 3],
    threads: usize,
    /// Whether this process is the one launches leave for a child: false
    /// inside [`GridLauncher::in_child`]'s child.
    isolated: bool,
    /// Names the launch in errors.
    kernel: String,
}

impl<'jit> GridLauncher<'jit> {
    /// # Safety
    /// `f` must stay callable for the launcher's life, with the packed
    /// signature of a kernel taking `params` (then the profile pointer when
    /// `meta` is given, then six grid ids).
    pub unsafe fn new(
        f: Packed,
        kernel: &str,
        params: &[Param],
        meta: Option<&KernelMeta>,
        spec: &LaunchSpec,
        threads: usize,
    ) -> Result<GridLauncher<'jit>, RuntimeError> {
        let profile_bytes = match meta {
            Some(m) => m.checked_buffer_bytes(spec.grid_ctas()).ok_or_else(|| {
                RuntimeError::Launch(format!(
                    "the profile buffer of {} CTAs overflows 64 bits",
                    spec.grid_ctas()
                ))
            })?,
            None => 0,
        };
        check_launch_memory(spec, profile_bytes)?;
        let (mut buffers, scalars) = prepare_args(kernel, params, spec)?;
        let profile_bytes = profile_bytes as usize;
        let mut profile =
            GuardedBuffer::for_profile(profile_bytes).map_err(RuntimeError::Launch)?;
        let _ = kperf_host_now_ns();
        // The vectors' heap storage does not move when the launcher does,
        // so the addresses baked into the template stay valid.
        let profile_addr = meta.is_some().then(|| profile.as_mut_ptr() as u64);
        let template = pack_host_args(params, &mut buffers, &scalars, profile_addr);
        let total = spec.grid_ctas();
        let (words, ptrs) = call_words(&template);
        Ok(GridLauncher {
            f,
            _code: std::marker::PhantomData,
            buffers,
            profile,
            profile_bytes,
            template,
            words,
            ptrs,
            grid: spec.grid,
            // More OS threads than cores only adds start-up (100,000
            // threads took 4.8 s for a 0.1 s grid): at most 4 per core.
            threads: threads.clamp(1, total.max(1) as usize).min(max_threads()),
            isolated: true,
            kernel: kernel.to_string(),
        })
    }

    /// Bytes the launch holds: buffer arguments and profile buffer.
    pub fn allocated_bytes(&self) -> u64 {
        let bufs: usize = self.buffers.iter().map(|b| b.data.len()).sum();
        (bufs + self.profile.len()) as u64
    }

    /// Run `body` with this launcher in a child process (see
    /// [`crate::isolate`]; in this one with `KPERF_IN_PROCESS` set), its
    /// launches run there directly: for a caller that launches many times,
    /// e.g. a benchmark's whole sampling loop, so samples hold no fork. What
    /// `body` returns comes back serialized; what the kernel wrote is in the
    /// shared buffers.
    pub fn in_child<R>(&mut self, body: impl FnOnce(&mut Self) -> R) -> Result<R, RuntimeError>
    where
        R: serde::Serialize + serde::de::DeserializeOwned,
    {
        if !self.isolated {
            return Ok(body(self)); // already in the child
        }
        let what = crate::isolate::kernel_label(&self.kernel);
        self.isolated = false;
        let out = crate::isolate::in_child(&what, || body(self));
        self.isolated = true;
        out
    }

    /// Run every CTA of the grid once, in a child process (see
    /// [`GridLauncher::in_child`]); returns the wall time in ns. With one
    /// thread the CTAs run on the calling thread, so a timed launch holds no
    /// thread start-up.
    pub fn launch(&mut self) -> Result<u64, RuntimeError> {
        self.in_child(|g| g.launch_here())
    }

    /// Run the grid once unrecorded and then once for the record, in one
    /// child process ([`GridLauncher::in_child`]); returns the second's wall
    /// time. A first launch pays for the forked child's copy-on-write pages,
    /// the JIT'd code's first run, the profile's fresh pages and cold caches
    /// (one CTA of 16 ran 20x longer than the rest in examples/matmul_host),
    /// which the uninstrumented check, the median of several launches in one
    /// child, does not: the profiled launch must be as warm to be compared
    /// with it. Between the two, the buffers get their contents back and the
    /// profile its zeros, so what the kernel wrote to them is one launch's
    /// work; the first launch's stdout (a kernel's printf) goes to /dev/null
    /// in the child. State outside the buffers (a module's mutable globals,
    /// files, stderr) sees both launches.
    ///
    /// The copy of the buffers counts against the memory limit: where
    /// launch, profile and copy do not fit, the launch runs cold, once, and
    /// a line on stderr says so.
    pub fn launch_warm(&mut self) -> Result<u64, RuntimeError> {
        if let Err(why) = self.buffer_copy_fits() {
            let _ = writeln!(
                std::io::stderr(),
                "kperf: the profiled launch runs cold, without a warm-up launch: {why}"
            );
            return self.launch();
        }
        let quiet_stdout = crate::isolate::enabled();
        self.in_child(|g| {
            let saved = g.save_buffers();
            {
                // In kperf's own process (KPERF_IN_PROCESS), kperf's
                // output would go too: not silenced there.
                let _quiet = quiet_stdout.then(Silenced::stdout);
                g.launch_here();
            }
            g.restore_buffers(&saved);
            g.profile.fill(0);
            g.launch_here()
        })
    }

    /// Whether a copy of the buffers ([`GridLauncher::save_buffers`]) fits
    /// the memory limit beside what the launch holds; the reason if not.
    pub fn buffer_copy_fits(&self) -> Result<(), String> {
        let buffer_bytes: u64 = self.buffers.iter().map(|b| b.data.len() as u64).sum();
        check_memory(
            self.allocated_bytes().saturating_add(buffer_bytes),
            "the launch with a copy of its buffers",
        )
    }

    /// The buffers' contents now, for [`GridLauncher::restore_buffers`]:
    /// launches that are to be compared must start from the same inputs
    /// (a kernel that zeroes its own trip count ran its work once in five).
    pub fn save_buffers(&self) -> SavedBuffers {
        SavedBuffers(self.buffers.iter().map(|b| b.data.to_vec()).collect())
    }

    /// Put back what [`GridLauncher::save_buffers`] saved.
    pub fn restore_buffers(&mut self, saved: &SavedBuffers) {
        for (b, bytes) in self.buffers.iter_mut().zip(&saved.0) {
            b.data.copy_from_slice(bytes);
        }
    }

    fn launch_here(&mut self) -> u64 {
        let grid = self.grid;
        let total = grid.iter().map(|g| *g as u64).product::<u64>();
        let f = self.f;
        let base = self.template.len();
        let _running = KernelRunning::start();
        let start = Instant::now();
        if self.threads == 1 {
            for c in 0..total {
                let ids = grid_ids(c, grid);
                self.words[base..].copy_from_slice(&ids);
                // SAFETY: `ptrs` points into `words` (not moved since `new`);
                // the packed wrapper reads one pointer per argument.
                unsafe { f(self.ptrs.as_mut_ptr()) };
            }
            return start.elapsed().as_nanos() as u64;
        }
        // The kernel writes the buffers through the template's addresses;
        // `&mut self` keeps anyone else from reading them meanwhile.
        run_grid(f, &self.template, grid, self.threads, |_, call| {
            call();
            None::<()>
        });
        start.elapsed().as_nanos() as u64
    }

    /// Run every CTA of the grid once, reading the host counter between
    /// fences ([`host_ticks_fenced`]) around each CTA's call: the uninstrumented truth a
    /// profile is checked against. Returns the wall time in ns and the
    /// ticks of each CTA `timed` takes (by linear CTA id; in no particular
    /// order): a profile that records some CTAs is checked against those.
    /// In a child process, as [`GridLauncher::launch`].
    pub fn launch_timed(
        &mut self,
        timed: &(dyn Fn(u64) -> bool + Sync),
    ) -> Result<(u64, Vec<u64>), RuntimeError> {
        self.in_child(|g| g.launch_timed_here(timed))
    }

    /// [`GridLauncher::launch_timed`] in this process: for code already in
    /// a child (the check times its launches there and sends back only a
    /// summary, where each launch's per-CTA times crossed a pipe as JSON).
    pub fn launch_timed_here(&mut self, timed: &(dyn Fn(u64) -> bool + Sync)) -> (u64, Vec<u64>) {
        let _running = KernelRunning::start();
        let start = Instant::now();
        let ticks = run_grid(
            self.f,
            &self.template,
            self.grid,
            self.threads,
            |cta, call| {
                let t0 = host_ticks_fenced();
                call();
                let t = host_ticks_fenced().wrapping_sub(t0);
                timed(cta).then_some(t)
            },
        );
        (start.elapsed().as_nanos() as u64, ticks)
    }

    /// The buffers and the raw profile after the last launch, once the
    /// bounds check passed.
    pub fn into_run(self, wall_ns: u64) -> Result<HostRun, RuntimeError> {
        self.check_bounds()?;
        debug_assert!(self.profile_bytes <= self.profile.len());
        Ok(HostRun {
            buffers: self.buffers,
            profile: ProfileBytes {
                buffer: self.profile,
                len: self.profile_bytes,
            },
            wall_ns,
            threads: self.threads,
        })
    }

    /// Whether the launches so far stayed inside every buffer: an access
    /// beyond the slack beside a buffer faults at once (see [`crate::guard`]);
    /// one into the slack is found here.
    pub fn check_bounds(&self) -> Result<(), RuntimeError> {
        for b in &self.buffers {
            b.data.check_canary().map_err(RuntimeError::OutOfBounds)?;
        }
        self.profile
            .check_canary()
            .map_err(RuntimeError::OutOfBounds)
    }
}

/// Standard output sent to /dev/null while this lives (C streams flushed
/// on both sides). Best effort: where a descriptor cannot be had, output
/// goes where it went.
struct Silenced {
    saved: Option<i32>,
}

impl Silenced {
    fn stdout() -> Silenced {
        let _ = std::io::Write::flush(&mut std::io::stdout());
        // SAFETY: fflush(NULL) flushes every C stream; dup, open and dup2 on
        // descriptors this process owns; a failed call leaves fd 1 as it was.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            let saved = libc::dup(1);
            if saved < 0 {
                return Silenced { saved: None };
            }
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if null < 0 || libc::dup2(null, 1) < 0 {
                if null >= 0 {
                    libc::close(null);
                }
                libc::close(saved);
                return Silenced { saved: None };
            }
            libc::close(null);
            Silenced { saved: Some(saved) }
        }
    }
}

impl Drop for Silenced {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(&mut std::io::stdout());
        if let Some(saved) = self.saved {
            // SAFETY: as in `stdout`; `saved` is ours.
            unsafe {
                libc::fflush(std::ptr::null_mut());
                libc::dup2(saved, 1);
                libc::close(saved);
            }
        }
    }
}

/// Run every CTA of `grid` once on `threads` workers taking CTAs in turn.
/// `per_cta` gets a closure that calls the kernel for one CTA (its grid ids
/// in place) and returns what to keep of that CTA; the kept values come
/// back in no particular order.
fn run_grid<T: Send>(
    f: Packed,
    template: &[u64],
    grid: [u32; 3],
    threads: usize,
    per_cta: impl Fn(u64, &mut dyn FnMut()) -> Option<T> + Sync,
) -> Vec<T> {
    let total = grid.iter().map(|g| *g as u64).product::<u64>();
    let base = template.len();
    let next = AtomicU64::new(0);
    let worker = || {
        let (_words, mut ptrs) = call_words(template);
        let mut mine = Vec::new();
        loop {
            let c = next.fetch_add(1, Ordering::Relaxed);
            if c >= total {
                break;
            }
            for (k, v) in grid_ids(c, grid).iter().enumerate() {
                // SAFETY: ptrs[base + k] points into `words`, which is not moved.
                unsafe { *(ptrs[base + k] as *mut u64) = *v };
            }
            // SAFETY: the packed wrapper reads one pointer per argument.
            mine.extend(per_cta(c, &mut || unsafe { f(ptrs.as_mut_ptr()) }));
        }
        mine
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(worker)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// The most worker threads a launch starts: four per available core.
fn max_threads() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get() * 4)
}

/// One call's argument words (the template, then six grid ids) and a
/// pointer to each, as the packed convention takes them. The pointers stay
/// valid while the words live: moving a Vec does not move its storage.
fn call_words(template: &[u64]) -> (Vec<u64>, Vec<*mut c_void>) {
    let mut words = template.to_vec();
    words.extend([0u64; 6]);
    let ptrs = words
        .iter_mut()
        .map(|w| w as *mut u64 as *mut c_void)
        .collect();
    (words, ptrs)
}

/// Block x, y, z and grid x, y, z of linear CTA `c`.
fn grid_ids(c: u64, grid: [u32; 3]) -> [u64; 6] {
    let (gx, gy) = (grid[0] as u64, grid[1] as u64);
    [
        c % gx,
        (c / gx) % gy,
        c / (gx * gy),
        grid[0] as u64,
        grid[1] as u64,
        grid[2] as u64,
    ]
}

/// The word of spec argument `a` (number `i`) for a scalar parameter of
/// type `t`: a value, of the spec's dtype `dt` matching `t`, that fits.
fn scalar_word(
    t: DType,
    a: &crate::spec::ArgSpec,
    i: usize,
    dt: DType,
    spec: &LaunchSpec,
) -> Result<u64, RuntimeError> {
    let v = a.value.ok_or_else(|| {
        spec.error(format!(
            "argument {i} ({}) is a scalar {}; the spec gives a buffer",
            a.name,
            t.mlir_name()
        ))
    })?;
    // `index` and `i64` are the same word on the host, so one spec fits an
    // MLIR kernel and its LLVM IR.
    let word64 = |d: DType| matches!(d, DType::I64 | DType::Index);
    if dt != t && !(word64(dt) && word64(t)) {
        return Err(spec.error(format!(
            "argument {i} ({}) is {}, the spec says {}",
            a.name,
            t.mlir_name(),
            a.dtype
        )));
    }
    crate::spec::number_bits(t, v).map_err(|why| {
        spec.error(format!(
            "argument {i} ({}) is {}: the spec's value {v} {why}",
            a.name,
            t.mlir_name()
        ))
    })
}

/// The word for a `bits`-wide integer parameter (`bool`: 1): an `i32`
/// scalar's, in range for the width, signed or not.
fn narrow_int_word(
    bits: u32,
    a: &crate::spec::ArgSpec,
    i: usize,
    dt: DType,
    spec: &LaunchSpec,
) -> Result<u64, RuntimeError> {
    let value = scalar_word(DType::I32, a, i, dt, spec)? as i32 as i64;
    let (lo, hi) = if bits == 1 {
        (0, 1)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << bits) - 1)
    };
    if value < lo || value > hi {
        let what = match bits {
            1 => "a bool (i1)".to_string(),
            b => format!("an i{b}"),
        };
        return Err(spec.error(format!(
            "argument {i} ({}) is {what}: the spec's value {value} is out of its range ({lo} to {hi})",
            a.name
        )));
    }
    Ok(value as u64)
}

/// Allocate and fill the spec's buffers and encode its scalars, checking
/// each against the kernel's parameters.
pub fn prepare_args(
    kernel: &str,
    params: &[Param],
    spec: &LaunchSpec,
) -> Result<(Vec<HostBuffer>, Vec<u64>), RuntimeError> {
    if params.len() != spec.args.len() {
        return Err(spec.error(format!(
            "kernel `{kernel}` takes {} arguments, the spec gives {}",
            params.len(),
            spec.args.len()
        )));
    }
    let mut buffers = Vec::new();
    let mut scalars: Vec<u64> = Vec::new();
    for (i, (p, a)) in params.iter().zip(&spec.args).enumerate() {
        let dt =
            DType::parse(&a.dtype).ok_or_else(|| spec.error(format!("argument {i}: bad dtype")))?;
        match p {
            Param::Pointer => {
                if a.shape.is_none() {
                    return Err(spec.error(format!(
                        "argument {i} is a pointer; the spec gives a scalar"
                    )));
                }
                buffers
                    .push(HostBuffer::from_spec(a, i, spec.placement).map_err(|m| spec.error(m))?);
            }
            Param::MemRef {
                rank,
                dtype,
                dims,
                layout,
            } => {
                let shape = a.shape.as_ref().ok_or_else(|| {
                    spec.error(format!("argument {i} is a memref; the spec gives a scalar"))
                })?;
                if shape.len() != *rank || dt != *dtype {
                    return Err(spec.error(format!(
                        "argument {i} ({}) is memref of rank {rank} of {}, the spec says shape {shape:?} of {}",
                        a.name,
                        dtype.mlir_name(),
                        a.dtype
                    )));
                }
                for (d, (want, got)) in dims.iter().zip(shape).enumerate() {
                    if let Some(want) = want {
                        if want != got {
                            return Err(spec.error(format!(
                                "argument {i} ({}) is {}: dimension {d} is {want}, the spec's shape {shape:?} gives {got}",
                                a.name,
                                memref_name(dims, *dtype),
                            )));
                        }
                    }
                }
                if let Some(why) = layout.as_ref().and_then(|l| l.mismatch(shape)) {
                    return Err(spec.error(format!(
                        "argument {i} ({}) is {} with a layout other than row-major: {why}; kperf's launchers \
                         pass row-major buffers, so give the kernel the whole buffer \
                         (memref<NxT>) and take the strided view inside it (memref.subview)",
                        a.name,
                        memref_name(dims, *dtype),
                    )));
                }
                buffers
                    .push(HostBuffer::from_spec(a, i, spec.placement).map_err(|m| spec.error(m))?);
            }
            Param::NarrowInt(bits) => {
                scalars.push(narrow_int_word(*bits, a, i, dt, spec)?);
            }
            Param::Scalar(t) => scalars.push(scalar_word(*t, a, i, dt, spec)?),
        }
    }

    Ok((buffers, scalars))
}

fn memref_name(dims: &[Option<u64>], dtype: DType) -> String {
    let mut s = String::from("memref<");
    for d in dims {
        match d {
            Some(n) => s.push_str(&n.to_string()),
            None => s.push('?'),
        }
        s.push('x');
    }
    s.push_str(dtype.mlir_name());
    s.push('>');
    s
}

/// Refuse a launch whose buffers and profile would not fit the memory
/// limit, before any of them is allocated, naming the largest.
fn check_launch_memory(spec: &LaunchSpec, profile_bytes: u64) -> Result<(), RuntimeError> {
    let mut parts: Vec<(String, u64)> = vec![("profile buffer".into(), profile_bytes)];
    for (i, a) in spec.args.iter().enumerate() {
        let Some(shape) = &a.shape else { continue };
        let size = DType::parse(&a.dtype).map(|d| d.size() as u64).unwrap_or(8);
        let bytes = shape
            .iter()
            .try_fold(size, |acc, d| acc.checked_mul(*d))
            .unwrap_or(u64::MAX);
        let name = if a.name.is_empty() {
            format!("argument {i}")
        } else {
            a.name.clone()
        };
        parts.push((name, bytes));
    }
    let total = parts.iter().fold(0u64, |t, (_, b)| t.saturating_add(*b));
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    let largest: Vec<String> = parts
        .iter()
        .filter(|p| p.1 > 0)
        .take(3)
        .map(|(n, b)| format!("{n} {}", human(*b)))
        .collect();
    check_memory(total, &format!("the launch ({})", largest.join(", ")))
        .map_err(RuntimeError::Launch)
}

/// [`pack_args`] for a kernel that runs in this process (host and SIMT
/// targets): the buffers' own addresses, then the profile buffer's address
/// when the kernel was instrumented.
pub fn pack_host_args(
    params: &[Param],
    buffers: &mut [HostBuffer],
    scalars: &[u64],
    profile: Option<u64>,
) -> Vec<u64> {
    let addrs: Vec<u64> = buffers
        .iter_mut()
        .map(|b| b.data.as_mut_ptr() as u64)
        .collect();
    let mut words = pack_args(params, buffers, &addrs, scalars);
    words.extend(profile);
    words
}

/// The kernel's argument words in launch order: a memref expands to its
/// descriptor (allocated ptr, aligned ptr, offset, sizes, row-major
/// strides), a pointer to its address, a scalar to its bits. `addrs` are the
/// buffers' addresses where the kernel runs (host or device).
pub fn pack_args(
    params: &[Param],
    buffers: &[HostBuffer],
    addrs: &[u64],
    scalars: &[u64],
) -> Vec<u64> {
    let mut words: Vec<u64> = Vec::new();
    let (mut bi, mut si) = (0, 0);
    for p in params {
        match p {
            Param::MemRef { .. } => {
                let b = &buffers[bi];
                words.extend([addrs[bi], addrs[bi], 0]);
                words.extend(b.shape.iter().copied());
                let mut strides = vec![1u64; b.shape.len()];
                for d in (0..b.shape.len().saturating_sub(1)).rev() {
                    strides[d] = strides[d + 1] * b.shape[d + 1];
                }
                words.extend(strides);
                bi += 1;
            }
            Param::Pointer => {
                words.push(addrs[bi]);
                bi += 1;
            }
            Param::Scalar(_) | Param::NarrowInt(_) => {
                words.push(scalars[si]);
                si += 1;
            }
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memref_layouts_fit_row_major_buffers_or_say_why() {
        // (type, spec shape, the mismatch's words or None)
        let cases: &[(&str, &[u64], Option<&str>)] = &[
            ("memref<8xf32>", &[8], None),
            ("memref<8xf32, strided<[1]>>", &[8], None),
            (
                "memref<8xf32, strided<[2]>>",
                &[8],
                Some("`strided<[2]>` has stride 2 in dimension 0"),
            ),
            ("memref<4x8xf32, strided<[8, 1], offset: ?>>", &[4, 8], None),
            (
                "memref<4x8xf32, strided<[16, 1]>>",
                &[4, 8],
                Some("stride 16 in dimension 0, where a row-major buffer of shape [4, 8] has 8"),
            ),
            (
                "memref<8xf32, strided<[1], offset: 3>>",
                &[8],
                Some("`strided<[1], offset: 3>` has offset 3"),
            ),
            (
                "memref<?x?xf32, strided<[?, 2], offset: ?>>",
                &[4, 8],
                Some("stride 2 in dimension 1"),
            ),
            ("memref<?xf32, strided<[?], offset: ?>, 1>", &[8], None),
            (
                "memref<4x8xf32, affine_map<(d0, d1) -> (d1 * 4 + d0)>>",
                &[4, 8],
                Some("is an affine map other than the identity"),
            ),
            (
                "memref<4x8xf32, affine_map<(d0, d1) -> (d0, d1)>>",
                &[4, 8],
                None,
            ),
            ("memref<1x8xf32, strided<[16, 1]>>", &[1, 8], None),
        ];
        for (ty, shape, want) in cases {
            let Some(Param::MemRef { layout, .. }) = Param::parse(ty) else {
                panic!("{ty}: not a memref");
            };
            let got = layout.and_then(|l| l.mismatch(shape));
            match (want, &got) {
                (None, None) => {}
                (Some(w), Some(g)) if g.contains(w) => {}
                _ => panic!("{ty} {shape:?}: expected {want:?}, got {got:?}"),
            }
        }
    }
}
