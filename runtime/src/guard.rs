//! Guarded host memory for everything a JIT'd kernel can reach.
//!
//! A host kernel indexes its buffers with whatever the spec, the grid and
//! its own arithmetic give it; kperf cannot check that statically. So every
//! buffer argument and the profile buffer live in their own mapping,
//! between two inaccessible guard regions at least as large as the buffer
//! (address space is cheap, nothing is committed for them). An access that
//! leaves a buffer faults in its guard instead of landing in kperf's heap;
//! the fault handler names the buffer and the offset, as compute-sanitizer
//! would, and ends the process with an error.
//!
//! Pages are the unit of protection, so one edge of a buffer touches its
//! guard byte-exactly and the other has the rest of a page beside it: the
//! [`Placement`] chooses which. `kperf run` places the buffers against
//! their upper guards, so reading or writing one byte past the end faults,
//! and the uninstrumented check's launches against their lower guards, so
//! an under-run faults there. The slack on the other side holds a canary,
//! checked after each launch, so a write into it is still caught
//! ([`GuardedBuffer::check_canary`]); a read there returns the canary byte.
//!
//! Sizes are checked against [`memory_limit`] before anything is mapped.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Once;

/// The byte written into the slack beside a buffer and checked after a
/// launch.
const CANARY: u8 = 0xA5;
/// Smallest guard on each side, when the address space is limited
/// (`ulimit -v`): catches strides well past a small buffer.
const MIN_GUARD: usize = 16 << 20;
/// Usual guard on each side: any 32-bit index of elements up to 8 bytes
/// (2^31 × 8 = 16 GiB either way) lands in it, however small the buffer.
const WIDE_GUARD: usize = 16 << 30;
/// Largest guard on each side: 64 GiB of address space, none of it memory.
const MAX_GUARD: usize = 64 << 30;
/// The alignment a [`Placement::DeviceAligned`] buffer's start has at
/// least. A GPU allocator gives 256 bytes, and kernels rely on 16: clang compiles a CUDA `float4*` load
/// as `load ... align 16`, which an x86 JIT may turn into an aligned vector
/// load that faults on a 4-byte-aligned address (corpus/cuda/reduce_sum.ll
/// on an AVX-512 host, 2026-11-27).
pub const DEVICE_ALIGN: usize = 16;
/// Buffers the fault handler can name at once; more are still guarded,
/// only reported by address.
const SLOTS: usize = 256;

/// Which guard a buffer's bytes touch, so that an access one byte past
/// that edge faults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// The last byte lies just below the upper guard: over-runs fault.
    /// The data is aligned to the largest power of two dividing its
    /// length (a multiple of 64 bytes is 64-byte aligned).
    #[default]
    AgainstEnd,
    /// As a GPU's allocator would: the start [`DEVICE_ALIGN`]-aligned, as
    /// close to the upper guard as that allows. A length that is a multiple
    /// of 16 ends just below it, as with `AgainstEnd`; any other leaves
    /// fewer than 16 bytes of canaries between its end and the guard, which
    /// the check after the run reads (writes there are reported, reads are
    /// not). For GPU kernels run on the CPU (the SIMT target).
    DeviceAligned,
    /// As `DeviceAligned`, with the start aligned to this power of two
    /// (a kernel's dynamic shared memory declared `align 128`).
    AlignedTo(usize),
    /// The first byte is the first of a page, just above the lower guard:
    /// under-runs fault.
    AgainstStart,
}

/// Bytes in a guarded mapping. Derefs to `[u8]`, exactly the buffer.
pub struct GuardedBuffer {
    data: *mut u8,
    bytes: usize,
    map: *mut c_void,
    map_len: usize,
    /// Canary bytes between the start of the data pages and the data.
    lead: usize,
    /// Canary bytes between the end of the data and the upper guard.
    tail: usize,
    placement: Placement,
    name: String,
    slot: Option<usize>,
}

// SAFETY: the mapping is owned exclusively, like a Vec's storage.
unsafe impl Send for GuardedBuffer {}
unsafe impl Sync for GuardedBuffer {}

fn page() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// The guard each side of a buffer gets at least: [`WIDE_GUARD`], unless
/// the process's address space is limited, where the guards of a few
/// dozen buffers must still leave room for everything else: then 1/64 of
/// the limit, never below [`MIN_GUARD`].
fn guard_floor() -> usize {
    let mut lim: libc::rlimit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    let limited = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0
        && lim.rlim_cur != libc::RLIM_INFINITY;
    if !limited {
        return WIDE_GUARD;
    }
    ((lim.rlim_cur / 64) as usize).clamp(MIN_GUARD, WIDE_GUARD) / page() * page()
}

/// A random address for the next mapping (a hint; the kernel places the
/// mapping elsewhere if it is taken). Left to itself, mmap packs mappings
/// next to each other, so a buffer's neighbour lies exactly two guards
/// away and an index just past the guard hits it every time; at random
/// places across 64 TiB a wild index almost always lands on nothing
/// mapped, and faults.
fn placement_hint() -> *mut c_void {
    if !cfg!(target_pointer_width = "64") {
        return std::ptr::null_mut();
    }
    const LOW: u64 = 1 << 40;
    const HIGH: u64 = 1 << 46;
    let at = LOW + rand::random::<u64>() % (HIGH - LOW);
    (at & !((2u64 << 20) - 1)) as usize as *mut c_void
}

fn round_up(n: usize, to: usize) -> Option<usize> {
    n.checked_add(to - 1).map(|v| v / to * to)
}

impl GuardedBuffer {
    /// A zeroed buffer of `bytes` bytes named `name` (the name errors
    /// use), placed against its upper guard.
    pub fn zeroed(bytes: usize, name: &str) -> Result<GuardedBuffer, String> {
        GuardedBuffer::zeroed_placed(bytes, name, Placement::AgainstEnd)
    }

    /// A zeroed profile buffer of at least `bytes` bytes: a multiple of 16
    /// against its upper guard, so its start is 16-byte aligned, since CTA
    /// blocks are written with 16-byte vector stores.
    pub fn for_profile(bytes: usize) -> Result<GuardedBuffer, String> {
        GuardedBuffer::zeroed(bytes.div_ceil(16) * 16, "profile buffer")
    }

    /// A zeroed buffer of `bytes` bytes named `name`, its bytes against
    /// the guard `placement` says.
    pub fn zeroed_placed(
        bytes: usize,
        name: &str,
        placement: Placement,
    ) -> Result<GuardedBuffer, String> {
        GuardedBuffer::build(bytes, name, placement, false)
    }

    /// Like [`GuardedBuffer::zeroed_placed`], but a fault near it is
    /// reported as an access to it even when it is empty: memory the kernel
    /// is given (a spec's buffer of shape `[0]`, the SIMT target's dynamic
    /// shared memory of 0 bytes).
    pub fn zeroed_named(
        bytes: usize,
        name: &str,
        placement: Placement,
    ) -> Result<GuardedBuffer, String> {
        GuardedBuffer::build(bytes, name, placement, true)
    }

    fn build(
        bytes: usize,
        name: &str,
        placement: Placement,
        name_when_empty: bool,
    ) -> Result<GuardedBuffer, String> {
        check_memory(bytes as u64, name)?;
        let page = page();
        let data_pages = round_up(bytes.max(1), page)
            .ok_or_else(|| format!("{name}: {bytes} bytes overflow the address space"))?;
        let guard = round_up(data_pages.clamp(guard_floor(), MAX_GUARD), page).unwrap_or(MAX_GUARD);
        let map_len = data_pages
            .checked_add(2 * guard)
            .ok_or_else(|| format!("{name}: {bytes} bytes overflow the address space"))?;
        // SAFETY: a fresh anonymous mapping; nothing else refers to it.
        let map = unsafe {
            libc::mmap(
                placement_hint(),
                map_len,
                libc::PROT_NONE,
                // Shared: a launch runs in a child process
                // (crate::isolate), and what it writes here must reach us.
                libc::MAP_SHARED | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(format!(
                "{name}: cannot reserve {map_len} bytes of address space: {}",
                std::io::Error::last_os_error()
            ));
        }
        let pages = unsafe { (map as *mut u8).add(guard) };
        // SAFETY: `pages..pages + data_pages` lies inside the mapping.
        if unsafe {
            libc::mprotect(
                pages as *mut c_void,
                data_pages,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        } != 0
        {
            let err = std::io::Error::last_os_error();
            unsafe { libc::munmap(map, map_len) };
            return Err(format!("{name}: cannot allocate {bytes} bytes: {err}"));
        }
        let slack = data_pages - bytes;
        let (lead, tail) = match placement {
            Placement::AgainstEnd => (slack, 0),
            Placement::DeviceAligned => {
                let lead = slack / DEVICE_ALIGN * DEVICE_ALIGN;
                (lead, slack - lead)
            }
            Placement::AlignedTo(align) => {
                // The page start is page-aligned: alignments up to a page
                // hold exactly; the tail (< align) is canary.
                let align = align.clamp(1, page);
                let lead = slack / align * align;
                (lead, slack - lead)
            }
            Placement::AgainstStart => (0, slack),
        };
        // SAFETY: inside the readable, writable data pages.
        let data = unsafe { pages.add(lead) };
        let mut g = GuardedBuffer {
            data,
            bytes,
            map,
            map_len,
            lead,
            tail,
            placement,
            name: name.to_string(),
            slot: None,
        };
        g.fill_slack();
        // An empty buffer (no profile without instrumentation) is never
        // passed to the kernel: a fault near it is better reported as
        // outside every buffer than as an access to it.
        if bytes > 0 || name_when_empty {
            g.slot = register(&g, guard, data_pages);
        }
        Ok(g)
    }

    fn data_pages(&self) -> *mut u8 {
        unsafe { self.data.sub(self.lead) }
    }

    fn fill_slack(&mut self) {
        // SAFETY: the slack lies in the data pages, outside the buffer's bytes.
        unsafe {
            std::ptr::write_bytes(self.data_pages(), CANARY, self.lead);
            std::ptr::write_bytes(self.data.add(self.bytes), CANARY, self.tail);
        }
    }

    /// The slack beside the buffer must still hold the canary: otherwise a
    /// kernel wrote out of bounds without reaching a guard page. Names the
    /// buffer and the first offending offset, relative to the buffer start.
    pub fn check_canary(&self) -> Result<(), String> {
        // SAFETY: both ranges lie in the readable data pages.
        let before = unsafe { std::slice::from_raw_parts(self.data_pages(), self.lead) };
        let after = unsafe { std::slice::from_raw_parts(self.data.add(self.bytes), self.tail) };
        if let Some(i) = before.iter().position(|b| *b != CANARY) {
            return Err(format!(
                "the kernel wrote `{}` out of bounds: byte {} before its start (it holds {} bytes)",
                self.name,
                self.lead - i,
                self.bytes
            ));
        }
        if let Some(i) = after.iter().position(|b| *b != CANARY) {
            return Err(format!(
                "the kernel wrote `{}` out of bounds: byte {} past its end (it holds {} bytes)",
                self.name, i, self.bytes
            ));
        }
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl std::ops::Deref for GuardedBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `bytes` initialised bytes, alive as long as `self`.
        unsafe { std::slice::from_raw_parts(self.data, self.bytes) }
    }
}

impl std::ops::DerefMut for GuardedBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in Deref, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.data, self.bytes) }
    }
}

impl Clone for GuardedBuffer {
    fn clone(&self) -> GuardedBuffer {
        // A copy of a buffer that was allocated fits the limit again; a
        // failure here is address-space exhaustion, as for a Vec.
        let mut g = GuardedBuffer::zeroed_placed(self.bytes, &self.name, self.placement)
            .unwrap_or_else(|e| panic!("cannot copy buffer: {e}"));
        g.copy_from_slice(self);
        g
    }
}

impl PartialEq for GuardedBuffer {
    fn eq(&self, other: &GuardedBuffer) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for GuardedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedBuffer")
            .field("name", &self.name)
            .field("bytes", &self.bytes)
            .field("placement", &self.placement)
            .finish()
    }
}

impl Drop for GuardedBuffer {
    fn drop(&mut self) {
        if let Some(s) = self.slot {
            unregister(s);
        }
        // SAFETY: the mapping was made by `zeroed_placed` and is unmapped once.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}

// ---------------------------------------------------------------------------
// Memory limit

/// Bytes one launch may allocate for its buffers and profile: the
/// `KPERF_MEMORY_LIMIT` environment variable (bytes, or with a K/M/G/T
/// suffix), else three quarters of physical memory.
/// A value that does not parse is an error, not silently the default.
pub fn memory_limit() -> Result<u64, String> {
    if let Some(text) = std::env::var_os("KPERF_MEMORY_LIMIT") {
        let text = text.to_string_lossy();
        return parse_size(&text).ok_or_else(|| {
            format!(
                "KPERF_MEMORY_LIMIT=`{}` is not a size (bytes, or a number with K, M, G or T)",
                kperf_dialects::meta::displayable_name(&text, 64).unwrap_or(text.to_string())
            )
        });
    }
    // SAFETY: sysconf has no preconditions.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    if pages <= 0 {
        return Ok(u64::MAX);
    }
    Ok((pages as u64).saturating_mul(page() as u64) / 4 * 3)
}

/// `123`, `64K`, `1.5G` (powers of 1024).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    // Plain integers exactly: u64::MAX does not survive the f64 below.
    if let Ok(v) = s.parse::<u64>() {
        return Some(v);
    }
    let (num, mult) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1 << 20),
        (i, 'g' | 'G') => (&s[..i], 1 << 30),
        (i, 't' | 'T') => (&s[..i], 1 << 40),
        _ => (s, 1),
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0 && v * (mult as f64) < u64::MAX as f64)
        .then_some((v * mult as f64) as u64)
}

/// Refuse an allocation of `bytes` for `what` over [`memory_limit`].
pub fn check_memory(bytes: u64, what: &str) -> Result<(), String> {
    let limit = memory_limit()?;
    if bytes > limit {
        return Err(format!(
            "{what} needs {} bytes ({}), over the memory limit of {} bytes ({}; \
             set KPERF_MEMORY_LIMIT to change it)",
            bytes,
            human(bytes),
            limit,
            human(limit)
        ));
    }
    Ok(())
}

/// `1.5 GiB`.
pub fn human(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

// ---------------------------------------------------------------------------
// The fault handler and the table it reads

/// One guarded mapping, as the fault handler sees it. Zero `map_start`
/// marks a free slot. Written before publication with `map_start` last.
struct Slot {
    map_start: AtomicUsize,
    map_end: AtomicUsize,
    data_start: AtomicUsize,
    data_len: AtomicUsize,
    name: AtomicPtr<u8>,
    name_len: AtomicUsize,
}

impl Slot {
    /// Registered and published (not free, not being written).
    fn live(&self) -> bool {
        let start = self.map_start.load(Ordering::Acquire);
        start != 0 && start != usize::MAX
    }

    /// The buffer's name.
    fn name(&self) -> &'static [u8] {
        // SAFETY: the name was leaked at registration and never freed.
        unsafe {
            std::slice::from_raw_parts(
                self.name.load(Ordering::Relaxed),
                self.name_len.load(Ordering::Relaxed),
            )
        }
    }
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot = Slot {
    map_start: AtomicUsize::new(0),
    map_end: AtomicUsize::new(0),
    data_start: AtomicUsize::new(0),
    data_len: AtomicUsize::new(0),
    name: AtomicPtr::new(std::ptr::null_mut()),
    name_len: AtomicUsize::new(0),
};
static TABLE: [Slot; SLOTS] = [FREE; SLOTS];
static INSTALL: Once = Once::new();
static REPORTED: AtomicBool = AtomicBool::new(false);
static mut PREVIOUS: [Option<libc::sigaction>; 2] = [None, None];

fn register(g: &GuardedBuffer, guard: usize, data_pages: usize) -> Option<usize> {
    INSTALL.call_once(install_handler);
    // The name outlives the slot: leaked once per buffer, a few bytes.
    let name: &'static [u8] = Box::leak(g.name.clone().into_bytes().into_boxed_slice());
    for (i, s) in TABLE.iter().enumerate() {
        if s.map_start
            .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            s.map_end
                .store(g.map as usize + 2 * guard + data_pages, Ordering::Relaxed);
            s.data_start.store(g.data as usize, Ordering::Relaxed);
            s.data_len.store(g.bytes, Ordering::Relaxed);
            s.name.store(name.as_ptr() as *mut u8, Ordering::Relaxed);
            s.name_len.store(name.len(), Ordering::Relaxed);
            s.map_start.store(g.map as usize, Ordering::Release);
            return Some(i);
        }
    }
    None
}

fn unregister(i: usize) {
    TABLE[i].map_start.store(0, Ordering::Release);
}

fn install_handler() {
    for (k, sig) in [libc::SIGSEGV, libc::SIGBUS].into_iter().enumerate() {
        // SAFETY: a zeroed sigaction is valid; the handler below only
        // calls async-signal-safe functions (write, _exit, sigaction).
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_fault as *const () as usize;
            act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut act.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &act, &mut old) == 0 {
                PREVIOUS[k] = Some(old);
            }
        }
    }
}

/// Exit status of a process ended by an out-of-bounds access.
pub const OUT_OF_BOUNDS_EXIT: i32 = 3;

/// Kernel launches in progress (host and SIMT targets). A fault outside
/// every guarded mapping while one runs is the kernel's too: a wild
/// pointer past the guards, reported with the nearest buffer.
static KERNELS_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Marks a kernel launch in progress for the fault handler, until dropped.
pub struct KernelRunning(());

impl KernelRunning {
    pub fn start() -> KernelRunning {
        INSTALL.call_once(install_handler);
        KERNELS_RUNNING.fetch_add(1, Ordering::AcqRel);
        KernelRunning(())
    }
}

impl Drop for KernelRunning {
    fn drop(&mut self) {
        KERNELS_RUNNING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether `addr` lies just below the faulting thread's stack pointer: a
/// stack overflow, which Rust's own handler reports better than we could.
fn near_stack_pointer(addr: usize, ctx: *mut c_void) -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        if ctx.is_null() {
            return false;
        }
        // SAFETY: an SA_SIGINFO handler's third argument is the ucontext
        // of the interrupted thread.
        let sp = unsafe {
            (*(ctx as *const libc::ucontext_t)).uc_mcontext.gregs[libc::REG_RSP as usize]
        } as usize;
        addr <= sp.saturating_add(4096) && addr >= sp.saturating_sub(1 << 20)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        let _ = (addr, ctx);
        false
    }
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    for s in TABLE.iter() {
        if !s.live()
            || addr < s.map_start.load(Ordering::Relaxed)
            || addr >= s.map_end.load(Ordering::Relaxed)
        {
            continue;
        }
        claim_report();
        let data = s.data_start.load(Ordering::Relaxed);
        let len = s.data_len.load(Ordering::Relaxed);
        let name = s.name();
        let mut msg = Msg::new();
        msg.push(b"kperf: error: the kernel accessed `");
        msg.push(name);
        msg.push(b"` out of bounds: byte ");
        if addr < data {
            msg.push(b"-");
            msg.num((data - addr) as u64);
        } else {
            msg.num((addr - data) as u64);
        }
        msg.push(b" of a ");
        msg.num(len as u64);
        msg.push(b"-byte buffer (");
        if addr >= data + len {
            msg.num((addr - data - len) as u64);
            msg.push(b" bytes past its end");
        } else {
            msg.num((data - addr) as u64);
            msg.push(b" bytes before its start");
        }
        msg.push(
            b"). Check the launch spec's shapes, scalars and grid against the kernel's indexing.\n",
        );
        msg.write_stderr();
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(OUT_OF_BOUNDS_EXIT) };
    }
    if KERNELS_RUNNING.load(Ordering::Acquire) > 0 && !near_stack_pointer(addr, ctx) {
        report_wild(addr);
    }
    // Not one of ours: put the previous disposition back and return, so
    // the faulting instruction runs again under it (Rust's stack-overflow
    // report, or the default core dump).
    let k = if sig == libc::SIGBUS { 1 } else { 0 };
    // SAFETY: PREVIOUS is written once, before the handler is installed.
    unsafe {
        let prev = std::ptr::addr_of!(PREVIOUS[k]).read();
        match prev {
            Some(old) => {
                libc::sigaction(sig, &old, std::ptr::null_mut());
            }
            None => {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
    }
}

/// Let one faulting thread report; any other waits for its exit.
fn claim_report() {
    if REPORTED.swap(true, Ordering::AcqRel) {
        loop {
            // SAFETY: pause is async-signal-safe.
            unsafe { libc::pause() };
        }
    }
}

/// Report a fault at `addr`, in no guarded mapping, during a kernel
/// launch, naming the buffer whose data lies nearest; then exit.
fn report_wild(addr: usize) -> ! {
    claim_report();
    let mut nearest: Option<(usize, &Slot)> = None;
    for s in TABLE.iter() {
        if !s.live() {
            continue;
        }
        let data = s.data_start.load(Ordering::Relaxed);
        let end = data + s.data_len.load(Ordering::Relaxed);
        let distance = if addr < data {
            data - addr
        } else {
            addr.saturating_sub(end)
        };
        if nearest.is_none_or(|(d, _)| distance < d) {
            nearest = Some((distance, s));
        }
    }
    let mut msg = Msg::new();
    if addr == 0 {
        // Null, or a non-canonical address the CPU reports without one.
        msg.push(
            b"kperf: error: the kernel accessed a null or non-canonical address, \
                   far outside every buffer kperf gave it",
        );
        nearest = None;
    } else {
        msg.push(b"kperf: error: the kernel accessed address 0x");
        msg.hex(addr as u64);
        msg.push(b", outside every buffer kperf gave it and beyond their guard pages");
    }
    if let Some((distance, s)) = nearest {
        let data = s.data_start.load(Ordering::Relaxed);
        let name = s.name();
        msg.push(b" (the nearest is `");
        msg.push(name);
        msg.push(b"`, ");
        msg.num(distance as u64);
        msg.push(if addr < data {
            b" bytes before its start)"
        } else {
            b" bytes past its end)"
        });
    }
    msg.push(
        b". Check the launch spec's shapes, scalars and grid against the kernel's indexing.\n",
    );
    msg.write_stderr();
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(OUT_OF_BOUNDS_EXIT) };
}

/// A fixed buffer a signal handler can format into without allocating.
struct Msg {
    buf: [u8; 1024],
    len: usize,
}

impl Msg {
    fn new() -> Msg {
        Msg {
            buf: [0; 1024],
            len: 0,
        }
    }
    fn push(&mut self, s: &[u8]) {
        for b in s {
            if self.len < self.buf.len() {
                // Names are escaped: no terminal control bytes.
                self.buf[self.len] = if b.is_ascii_control() && *b != b'\n' {
                    b'?'
                } else {
                    *b
                };
                self.len += 1;
            }
        }
    }
    fn num(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (v % 10) as u8;
            n += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        digits[..n].reverse();
        self.push(&digits[..n]);
    }
    fn hex(&mut self, v: u64) {
        let mut digits = [0u8; 16];
        for (i, d) in digits.iter_mut().enumerate() {
            let nibble = (v >> (60 - 4 * i)) & 0xf;
            *d = b"0123456789abcdef"[nibble as usize];
        }
        let first = digits.iter().position(|d| *d != b'0').unwrap_or(15);
        self.push(&digits[first..]);
    }
    fn write_stderr(&self) {
        // SAFETY: write is async-signal-safe; the buffer is ours.
        unsafe { libc::write(2, self.buf.as_ptr() as *const c_void, self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (bytes, the alignment the data must have at least when placed
    /// against the end, exactly or as a device allocator would).
    /// 16396 bytes are 4099 floats, which a CUDA kernel reads as `float4`s
    /// from a 16-byte-aligned base.
    const LAYOUTS: &[(usize, usize, usize)] = &[
        (4, 4, 16),
        (12, 4, 16),
        (3996, 4, 16),
        (16396, 4, 16),
        (8, 8, 16),
        (56, 8, 16),
        (64, 64, 64),
        (4104, 8, 16),
        (800_000, 64, 64),
    ];

    #[test]
    fn buffers_are_zeroed_aligned_and_touch_their_guard() {
        for &(bytes, align, device_align) in LAYOUTS {
            let g = GuardedBuffer::zeroed(bytes, "x").expect("allocates");
            assert_eq!(g.len(), bytes);
            assert!(g.iter().all(|b| *b == 0));
            assert_eq!(g.as_ptr() as usize % align, 0, "{bytes} bytes");
            let end = g.as_ptr() as usize + bytes;
            assert_eq!(end % page(), 0, "{bytes} bytes end at the upper guard");
            g.check_canary().expect("untouched");
            // Aligned as a GPU kernel may assume, as close to the upper
            // guard as that allows.
            let g = GuardedBuffer::zeroed_placed(bytes, "x", Placement::DeviceAligned)
                .expect("allocates");
            assert_eq!(g.as_ptr() as usize % device_align, 0, "{bytes} bytes");
            let end = g.as_ptr() as usize + bytes;
            assert_eq!(
                end.next_multiple_of(page()) - end,
                bytes.next_multiple_of(DEVICE_ALIGN) - bytes,
                "{bytes} bytes end next to the upper guard"
            );
            g.check_canary().expect("untouched");
            let g = GuardedBuffer::zeroed_placed(bytes, "x", Placement::AgainstStart)
                .expect("allocates");
            assert_eq!(
                g.as_ptr() as usize % page(),
                0,
                "{bytes} bytes start a page"
            );
            g.check_canary().expect("untouched");
        }
        assert!(GuardedBuffer::zeroed(0, "x").expect("allocates").is_empty());
    }

    #[test]
    fn a_write_into_the_slack_is_reported_with_its_offset() {
        // 12 bytes against the start: byte 13 is in the slack after it.
        let mut g =
            GuardedBuffer::zeroed_placed(12, "C", Placement::AgainstStart).expect("allocates");
        unsafe { *g.as_mut_ptr().add(13) = 1 };
        let err = g.check_canary().expect_err("slack written");
        assert!(
            err.contains("`C`") && err.contains("byte 1 past its end (it holds 12 bytes)"),
            "{err}"
        );
        let mut g = GuardedBuffer::zeroed(24, "D").expect("allocates");
        unsafe { *g.as_mut_ptr().sub(5) = 1 };
        let err = g.check_canary().expect_err("slack written");
        assert!(err.contains("byte 5 before its start"), "{err}");
    }

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_size("64K"), Some(65536));
        assert_eq!(parse_size("1.5G"), Some(3 << 29));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("x"), None);
    }
}
