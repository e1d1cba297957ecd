//! The SIMT host target: run an NVPTX kernel (LLVM IR, as `kperf
//! instrument --target simt` or clang emit it) on the CPU with every
//! thread of its blocks, for debugging kernels and kperf's own GPU
//! lowering without a GPU, the way Triton's interpreter is used. It is not
//! a timing model: clocks are the host's.
//!
//! [`rewrite`] turns the module into host code whose GPU primitives call
//! [`threads`]; this module JITs it with MCJIT and runs the grid: the CTAs
//! one after another, the threads of a CTA as OS threads.

mod gpu_results;
pub mod libdevice;
pub mod printf;
mod pure;
pub mod rewrite;
pub mod rounding;
pub mod threads;

use crate::cuda::DeviceRun;
use crate::guard::{check_memory, GuardedBuffer, KernelRunning};
use crate::host::{pack_host_args, prepare_args, Packed, Param};
use crate::host_llvm::{jit_packed, parse_for_jit};
use crate::launch_error::LaunchError;
use crate::spec::LaunchSpec;
use inkwell::context::Context;
use kperf_dialects::meta::KernelMeta;
use std::ffi::c_void;
use std::time::Instant;
use threads::{Cta, Me};

/// The most threads a CTA may have (CUDA's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Stack of each GPU thread's OS thread.
const THREAD_STACK: usize = 1 << 20;

fn launch(msg: impl Into<String>) -> LaunchError {
    LaunchError::Launch(msg.into())
}

/// The argument pointers, shared read-only by every thread of the grid.
struct Argv(Vec<*mut c_void>);
// SAFETY: the pointers address argument words that live, unchanged, for
// the whole launch; the kernel wrapper only reads through them.
unsafe impl Sync for Argv {}
unsafe impl Send for Argv {}

/// A kernel's name and its parameters, or why they cannot be passed.
pub type KernelParams = (String, Result<Vec<Param>, String>);

/// The kernels of NVPTX LLVM IR (clang's `.ll`/`.bc`: functions with the
/// PTX kernel calling convention) and their parameters as the SIMT runner
/// passes them: pointers take a spec buffer, integers and floats a value.
pub fn nvptx_kernels(ir: &[u8], file: &str) -> Result<Vec<KernelParams>, LaunchError> {
    let ctx = Context::create();
    let module = parse_for_jit(&ctx, ir, file)?;
    // Each kernel's parameters or why they cannot be passed: only the
    // launched kernel's count (a sibling taking an i16 refused the file).
    Ok(rewrite::kernel_names(&module)
        .into_iter()
        .map(|name| {
            let f = module
                .get_function(&name)
                .expect("a kernel the module lists");
            let params = (0..f.count_params())
                .zip(f.get_type().get_param_types())
                .map(|(i, t)| kernel_param(f, i, &t, &name, file))
                .collect::<Result<Vec<_>, String>>();
            (name, params)
        })
        .collect())
}

/// Parameter `i` of kernel `name` as the runner passes it, or why it cannot.
fn kernel_param(
    f: inkwell::values::FunctionValue,
    i: u32,
    t: &inkwell::types::BasicMetadataTypeEnum,
    name: &str,
    file: &str,
) -> Result<Param, String> {
    // clang passes a struct argument by value as a `byval` pointer: the
    // spec's buffer would be read as the struct's bytes (a GPU launcher
    // copies the struct).
    let byval = inkwell::attributes::Attribute::get_named_enum_kind_id("byval");
    if f.get_enum_attribute(inkwell::attributes::AttributeLoc::Param(i), byval)
        .is_some()
    {
        return Err(format!(
            "{file}: kernel `{name}` parameter {i} is a struct passed by value (`byval`), which \
             kperf's launchers cannot pass: pass a pointer to the struct instead"
        ));
    }
    crate::host_llvm::param_of(t).ok_or_else(|| {
        format!(
            "{file}: kernel `{name}` parameter {i} has type {t}, which the SIMT runner cannot \
             pass (pointers, i1, i8, i16, i32, i64, float, double)"
        )
    })
}

/// The most shared memory one CTA may have on any NVIDIA GPU: 227 KiB
/// (sm_90, sm_100; sm_80 allows 163 KiB, sm_86 99 KiB).
pub const MAX_SHARED_PER_CTA: u64 = 227 * 1024;
/// The most static shared memory ptxas accepts in one kernel.
pub const MAX_STATIC_SHARED: u64 = 48 * 1024;

/// Refuse a launch no NVIDIA GPU makes: a grid beyond 2^31 - 1 CTAs in x
/// or 65535 in y or z, or a CTA with more shared memory (the module's
/// `addrspace(3)` globals, kperf's rings among them, plus the spec's
/// dynamic `shared_bytes`) than [`MAX_SHARED_PER_CTA`]. The CPU would run
/// them; a profile of a launch no GPU makes is fiction.
fn check_launch_limits(
    module: &inkwell::module::Module,
    kernel: &str,
    spec: &LaunchSpec,
) -> Result<(), LaunchError> {
    let [x, y, z] = spec.grid;
    if x > i32::MAX as u32 || y > 65535 || z > 65535 {
        return Err(spec.error(format!(
            "grid {:?}: CUDA launches at most 2147483647 CTAs in x and 65535 in y and z",
            spec.grid
        )));
    }
    let layout = module.get_data_layout();
    let target = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
    let static_bytes: u64 = module
        .get_globals()
        .filter(|g| {
            g.as_pointer_value().get_type().get_address_space() == inkwell::AddressSpace::from(3u16)
        })
        .map(|g| target.get_abi_size(&g.get_value_type()))
        .sum();
    // ptxas refuses a kernel declaring more than 48 KiB of static shared
    // memory (more must be dynamic, opted in); kperf's rings are its own.
    let kernels_own: u64 = module
        .get_globals()
        .filter(|g| {
            g.as_pointer_value().get_type().get_address_space() == inkwell::AddressSpace::from(3u16)
                && !g.get_name().to_bytes().starts_with(b"__kperf_")
        })
        .map(|g| target.get_abi_size(&g.get_value_type()))
        .sum();
    if kernels_own > MAX_STATIC_SHARED {
        return Err(launch(format!(
            "kernel `{kernel}` declares {kernels_own} B of static shared memory: ptxas refuses \
             more than {MAX_STATIC_SHARED} B (48 KiB); more must be dynamic shared memory"
        )));
    }
    let total = static_bytes + spec.shared_bytes as u64;
    if total > MAX_SHARED_PER_CTA {
        return Err(spec.error(format!(
            "kernel `{kernel}` would have {total} B of shared memory per CTA ({static_bytes} B \
             declared in the kernel, kperf's rings included when instrumented, and shared_bytes \
             = {}): no NVIDIA GPU launches more than {MAX_SHARED_PER_CTA} B (227 KiB, sm_90)",
            spec.shared_bytes
        )));
    }
    Ok(())
}

/// JIT `ir` (NVPTX LLVM IR text or bitcode) for the host and run `kernel`
/// over the spec's grid with every thread of each block. `params` are the
/// kernel's original parameters; `meta` is present when it is instrumented
/// (its profile pointer is then the last parameter).
pub fn run_simt(
    ir: &[u8],
    file: &str,
    kernel: &str,
    params: &[Param],
    meta: Option<&KernelMeta>,
    spec: &LaunchSpec,
) -> Result<DeviceRun, LaunchError> {
    if let Some(m) = meta {
        if m.block != spec.block {
            return Err(launch(format!(
                "the kernel was instrumented for blocks of {:?} threads, the spec launches {:?}",
                m.block, spec.block
            )));
        }
    }
    let block_threads: u64 = spec.block.iter().map(|b| *b as u64).product();
    if block_threads == 0 || block_threads > MAX_BLOCK_THREADS {
        return Err(launch(format!(
            "a block of {:?} is {block_threads} threads; CUDA allows 1 to {MAX_BLOCK_THREADS}",
            spec.block
        )));
    }
    let ctx = Context::create();
    let module = parse_for_jit(&ctx, ir, file)?;
    let kernels = rewrite::kernel_names(&module);
    if !kernels.iter().any(|k| k == kernel) {
        return Err(launch(format!(
            "{file}: no NVPTX kernel `{kernel}` (kernels: {})",
            kernels.join(", ")
        )));
    }
    rewrite::keep_only_kernel(&module, kernel);
    check_launch_limits(&module, kernel, spec)?;
    let rewritten = rewrite::rewrite_for_host(&ctx, &module).map_err(launch)?;
    let f = module
        .get_function(kernel)
        .ok_or_else(|| launch(format!("{file}: no function `{kernel}`")))?;
    // Buffers and profile, guarded like the host target's.
    let profile_bytes = match meta {
        Some(m) => m.checked_buffer_bytes(spec.grid_ctas()).ok_or_else(|| {
            launch(format!(
                "the profile buffer of {} CTAs overflows 64 bits",
                spec.grid_ctas()
            ))
        })?,
        None => 0,
    };
    check_memory(profile_bytes, "the profile buffer").map_err(launch)?;
    // Aligned as a GPU allocator aligns them: device code may assume it.
    let spec = &LaunchSpec {
        placement: crate::guard::Placement::DeviceAligned,
        ..spec.clone()
    };
    let (mut buffers, scalars) = prepare_args(kernel, params, spec)?;
    let mut profile = GuardedBuffer::for_profile(profile_bytes as usize).map_err(launch)?;
    let profile_addr = meta.is_some().then(|| profile.as_mut_ptr() as u64);
    // The launch's dynamic shared memory, guarded like the buffers, so an
    // access past `shared_bytes` faults with the buffer's name. One CTA
    // runs at a time, so one buffer serves them all.
    let mut dynamic_shared = match rewritten.dynamic_shared_align {
        Some(align) => Some(
            // Exactly the spec's bytes, the start aligned as the kernel
            // declares (rounding the size up to the alignment let writes
            // past `shared_bytes` go unseen).
            GuardedBuffer::zeroed_named(
                spec.shared_bytes as usize,
                "dynamic shared memory (the spec's shared_bytes)",
                crate::guard::Placement::AlignedTo(align as usize),
            )
            .map_err(launch)?,
        ),
        None => None,
    };
    let mut symbols = vec![
        (
            rewrite::ENTRY_SREG,
            threads::kperf_simt_sreg as *const () as usize,
        ),
        (
            rewrite::ENTRY_BARRIER,
            threads::kperf_simt_barrier as *const () as usize,
        ),
        (
            rewrite::ENTRY_WARP,
            threads::kperf_simt_warp as *const () as usize,
        ),
        (
            rewrite::ENTRY_FENCE,
            threads::kperf_simt_fence as *const () as usize,
        ),
        (
            rewrite::ENTRY_POLL,
            threads::kperf_simt_poll as *const () as usize,
        ),
        (
            rewrite::ENTRY_NANOSLEEP,
            threads::kperf_simt_nanosleep as *const () as usize,
        ),
        (
            rewrite::ENTRY_VPRINTF,
            printf::kperf_simt_vprintf as *const () as usize,
        ),
        (
            rewrite::ENTRY_SITE,
            threads::kperf_simt_site as *const () as usize,
        ),
        (
            "kperf_simt_rounded_f32",
            rounding::kperf_simt_rounded_f32 as *const () as usize,
        ),
        (
            "kperf_simt_rounded_f64",
            rounding::kperf_simt_rounded_f64 as *const () as usize,
        ),
        (
            "kperf_simt_convert",
            rounding::kperf_simt_convert as *const () as usize,
        ),
        (
            rewrite::ENTRY_CALL_ENTER,
            threads::kperf_simt_call_enter as *const () as usize,
        ),
        (
            rewrite::ENTRY_CALL_LEAVE,
            threads::kperf_simt_call_leave as *const () as usize,
        ),
        (
            rewrite::ENTRY_ASSERTFAIL,
            threads::kperf_simt_assertfail as *const () as usize,
        ),
        (
            rewrite::ENTRY_MISALIGNED,
            threads::kperf_simt_misaligned as *const () as usize,
        ),
    ];
    if let Some(b) = dynamic_shared.as_mut() {
        symbols.push((rewrite::DYNAMIC_SHARED, b.as_mut_ptr() as usize));
    }
    // Each static shared array in a guarded buffer of its own.
    let mut static_shared = rewritten
        .static_shared
        .iter()
        .map(|a| {
            GuardedBuffer::zeroed_named(
                a.bytes as usize,
                &format!("shared array {}", a.name),
                crate::guard::Placement::AlignedTo(a.align as usize),
            )
            .map_err(launch)
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (a, b) in rewritten.static_shared.iter().zip(static_shared.iter_mut()) {
        symbols.push((a.symbol.as_str(), b.as_mut_ptr() as usize));
    }
    let mut words = pack_host_args(params, &mut buffers, &scalars, profile_addr);
    if words.len() != f.count_params() as usize {
        return Err(launch(format!(
            "kernel `{kernel}` takes {} parameter words, the spec's arguments{} make {}",
            f.count_params(),
            if meta.is_some() {
                " and the profile pointer"
            } else {
                ""
            },
            words.len()
        )));
    }
    let (engine, packed) = jit_packed(&ctx, &module, f, &symbols)?;
    threads::set_sites(rewritten.sites.clone());
    let argv = Argv(
        words
            .iter_mut()
            .map(|w| w as *mut u64 as *mut c_void)
            .collect(),
    );
    // In a child process (crate::isolate): what the threads write outside
    // the shared buffers cannot reach kperf.
    let run = || {
        let _running = KernelRunning::start();
        let start = Instant::now();
        run_grid(packed, &argv, spec.grid, spec.block)
            .map(|()| start.elapsed().as_nanos() as u64)
            .map_err(|e| match e {
                LaunchError::Launch(m) => m,
                e => e.to_string(),
            })
    };
    let kernel_ns =
        crate::isolate::in_child(&crate::isolate::kernel_label(kernel), run)?.map_err(launch)?;
    drop(engine);
    for b in &buffers {
        b.data.check_canary().map_err(LaunchError::OutOfBounds)?;
    }
    profile.check_canary().map_err(LaunchError::OutOfBounds)?;
    if let Some(b) = &dynamic_shared {
        b.check_canary().map_err(LaunchError::OutOfBounds)?;
    }
    for b in &static_shared {
        b.check_canary().map_err(LaunchError::OutOfBounds)?;
    }
    let bytes = profile[..profile_bytes as usize].to_vec();
    Ok(DeviceRun {
        buffers,
        profile: bytes,
        kernel_ns,
        device_name: "the SIMT host target (one CTA at a time, one OS thread per GPU thread)"
            .into(),
    })
}

/// Run every CTA of `grid` in turn, each with one OS thread per thread of
/// `block`.
fn run_grid(f: Packed, argv: &Argv, grid: [u32; 3], block: [u32; 3]) -> Result<(), LaunchError> {
    let n = block.iter().product::<u32>();
    let total: u64 = grid.iter().map(|g| *g as u64).product();
    let cta = Cta::new(n);
    let boundary = std::sync::Barrier::new(n as usize);
    // CTAs begun, and whether the launch is over, for the watchdog.
    let begun = std::sync::atomic::AtomicU64::new(0);
    let over = std::sync::atomic::AtomicBool::new(false);
    let spawned = std::thread::scope(|s| -> Result<(), LaunchError> {
        {
            let (cta, begun, over) = (&cta, &begun, &over);
            s.spawn(move || {
                use std::sync::atomic::Ordering::Relaxed;
                let (mut seen, mut since) = (begun.load(Relaxed), std::time::Instant::now());
                while !over.load(Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    let now = begun.load(Relaxed);
                    if now != seen {
                        (seen, since) = (now, std::time::Instant::now());
                    } else {
                        cta.note_if_running_long(since.elapsed());
                    }
                }
            });
        }
        // The watchdog stops on every way out, a failed spawn included.
        let run = || -> Result<(), LaunchError> {
            let mut handles = Vec::with_capacity(n as usize);
            for t in 0..n {
                let (cta, boundary, begun) = (&cta, &boundary, &begun);
                let tid = [
                    t % block[0],
                    (t / block[0]) % block[1],
                    t / (block[0] * block[1]),
                ];
                let h = std::thread::Builder::new()
                    .name(format!("simt-t{t}"))
                    .stack_size(THREAD_STACK)
                    .spawn_scoped(s, move || {
                        for c in 0..total {
                            let ctaid = [
                                (c % grid[0] as u64) as u32,
                                ((c / grid[0] as u64) % grid[1] as u64) as u32,
                                (c / (grid[0] as u64 * grid[1] as u64)) as u32,
                            ];
                            if t == 0 {
                                *cta.id.lock().unwrap_or_else(|e| e.into_inner()) = ctaid;
                                begun.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            // The warps of a CTA start together, as the GPU
                            // launches them.
                            boundary.wait();
                            threads::set_me(Some(Me {
                                tid,
                                ntid: block,
                                ctaid,
                                nctaid: grid,
                                linear: t,
                                sm: 0,
                                cta,
                            }));
                            // SAFETY: the wrapper reads one pointer per
                            // parameter word; `argv` outlives the launch.
                            unsafe { f(argv.0.as_ptr() as *mut *mut c_void) };
                            cta.exit(t);
                            // Every thread done with this CTA before its state
                            // (and shared memory) is reused.
                            if boundary.wait().is_leader() {
                                cta.reset();
                            }
                            boundary.wait();
                        }
                        threads::set_me(None);
                    })
                    .map_err(|e| launch(format!("SIMT: cannot start thread {t} of {n}: {e}")))?;
                handles.push(h);
            }
            handles
                .into_iter()
                .try_for_each(|h| h.join().map_err(|_| launch("SIMT: a GPU thread panicked")))
        };
        let joined = run();
        over.store(true, std::sync::atomic::Ordering::Relaxed);
        joined
    });
    spawned
}
