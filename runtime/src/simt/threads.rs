//! The SIMT host target's execution model: every thread of a CTA is an OS
//! thread; CTAs run one after another (shared memory is the module's
//! `addrspace(3)` globals, so one CTA owns them at a time). The NVVM
//! primitives the rewritten kernel calls (`kperf_simt_*`) are implemented
//! here with the hardware's semantics:
//!
//! - `bar.sync`, `bar.red` (`__syncthreads_count/and/or`) and `bar.arrive`
//!   on the CTA's 16 barriers: without a thread count, all threads of the
//!   CTA that have not exited (a thread that returns stops counting, as on
//!   Volta and later); with one, that many arrivals.
//! - warp operations (`shfl.sync`, `vote.sync`, `redux.sync`,
//!   `bar.warp.sync`): the lanes that pass the same member mask meet (PTX:
//!   a thread waits for the non-exited threads of its mask executing the
//!   operation with the same mask); each deposits its value and computes
//!   its own result from the values of all; a source lane outside the
//!   meeting gives the caller its own value back, as PTX leaves it
//!   undefined. Lanes that pass different masks never meet.
//! - `activemask`: the lanes at the same call site, gathered until every
//!   other live lane of the warp waits elsewhere (at a barrier or a warp
//!   operation) or has exited, so lanes a branch sent elsewhere are not in
//!   it, as on a GPU; when several gatherings could close, the first in
//!   program order closes alone, and its lanes may join a later one (the
//!   reconvergence after an if/else); lanes that keep running (a spin on a flag) are taken
//!   to be elsewhere once no lane has come for [`ACTIVEMASK_PATIENCE`]. Lanes reaching the site
//!   in different iterations of a divergent loop can gather together,
//!   where a GPU that reconverges after the branch keeps them apart.
//!
//! A CTA in which every live thread waits and none can release another
//! (threads parked at different barriers, a warp op whose mask names a lane
//! that waits elsewhere) is a deadlock on the GPU too: reported at once,
//! naming the CTA and where its threads wait, and the kernel's process ends
//! ([`DEADLOCK_EXIT`]). Threads that wait on a thread that still runs are no
//! deadlock; after `KPERF_SIMT_TIMEOUT_S` seconds (default 20) without
//! progress a note says so, and the run goes on.

use std::cell::Cell;
use std::io::Write as _;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Special registers, by the code the rewritten kernel passes.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sreg {
    TidX = 0,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    NtidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    LaneId,
    WarpSize,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    Clock,
    Clock64,
    GlobalTimer,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    GridId,
}

impl Sreg {
    /// The register named by an `llvm.nvvm.read.ptx.sreg.<name>` intrinsic.
    pub fn parse(name: &str) -> Option<Sreg> {
        use Sreg::*;
        Some(match name {
            "tid.x" => TidX,
            "tid.y" => TidY,
            "tid.z" => TidZ,
            "ntid.x" => NtidX,
            "ntid.y" => NtidY,
            "ntid.z" => NtidZ,
            "ctaid.x" => CtaidX,
            "ctaid.y" => CtaidY,
            "ctaid.z" => CtaidZ,
            "nctaid.x" => NctaidX,
            "nctaid.y" => NctaidY,
            "nctaid.z" => NctaidZ,
            "laneid" => LaneId,
            "warpsize" => WarpSize,
            "warpid" => WarpId,
            "nwarpid" => NWarpId,
            "smid" => SmId,
            "nsmid" => NSmId,
            "clock" => Clock,
            "clock64" => Clock64,
            "globaltimer" => GlobalTimer,
            "lanemask.eq" => LanemaskEq,
            "lanemask.le" => LanemaskLe,
            "lanemask.lt" => LanemaskLt,
            "lanemask.ge" => LanemaskGe,
            "lanemask.gt" => LanemaskGt,
            "gridid" => GridId,
            _ => return None,
        })
    }
}

/// Block-wide barrier flavours (`kperf_simt_barrier`'s `op`).
pub const BAR_SYNC: u32 = 0;
pub const BAR_POPC: u32 = 1;
pub const BAR_AND: u32 = 2;
pub const BAR_OR: u32 = 3;
/// `bar.arrive`: count this thread in and go on without waiting.
pub const BAR_ARRIVE: u32 = 4;

/// Hardware barriers per CTA (`bar.sync 0..15`).
pub const BARRIERS: u32 = 16;

/// Warp operations (`kperf_simt_warp`'s `op`).
pub mod warp_op {
    pub const SHFL_IDX: u32 = 0;
    pub const SHFL_UP: u32 = 1;
    pub const SHFL_DOWN: u32 = 2;
    pub const SHFL_BFLY: u32 = 3;
    pub const VOTE_ALL: u32 = 4;
    pub const VOTE_ANY: u32 = 5;
    pub const VOTE_UNI: u32 = 6;
    pub const VOTE_BALLOT: u32 = 7;
    pub const REDUX_ADD: u32 = 8;
    pub const REDUX_MIN: u32 = 9;
    pub const REDUX_MAX: u32 = 10;
    pub const REDUX_UMIN: u32 = 11;
    pub const REDUX_UMAX: u32 = 12;
    pub const REDUX_AND: u32 = 13;
    pub const REDUX_OR: u32 = 14;
    pub const REDUX_XOR: u32 = 15;
    pub const WARP_SYNC: u32 = 16;
    /// `activemask`; its `b` is the call site (the rewrite numbers them).
    pub const ACTIVEMASK: u32 = 17;
    /// `match.any.sync`: the lanes whose value equals the caller's.
    pub const MATCH_ANY: u32 = 18;
    /// `match.all.sync`: the lanes present if all values are equal, else
    /// 0; the flag says which.
    pub const MATCH_ALL: u32 = 19;
}

const WARP: u32 = 32;

/// What lanes meet on: `shfl.sync`, `vote.sync`, `redux.sync` and
/// `bar.warp.sync` pair the lanes that pass the same member mask (PTX ISA);
/// `activemask` gathers the lanes at one call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Mask(u32),
    Active(SitePath),
}

/// Where an `activemask` is: the numbers of the calls the thread is in
/// (outermost first) and the site's own, padded with 0 (numbers start at
/// 1). Compared in that order, the first in flow order of the kernel
/// comes first. Calls nested deeper than the path holds share its last
/// slot, mixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct SitePath([u32; 8]);

impl SitePath {
    /// The calling thread's path to `site`.
    fn here(site: u32) -> SitePath {
        CALL_PATH.with(|p| {
            let calls = p.borrow();
            let mut path = [0u32; 8];
            for (k, &c) in calls.iter().chain([&site]).enumerate() {
                let slot = k.min(path.len() - 1);
                path[slot] = if k < path.len() - 1 {
                    c
                } else {
                    path[slot].wrapping_mul(0x9e37_79b9).wrapping_add(c)
                };
            }
            SitePath(path)
        })
    }
}

thread_local! {
    /// The numbers of the calls (of functions that reach an `activemask`)
    /// the calling thread is in ([`kperf_simt_call_enter`]).
    static CALL_PATH: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A warp meeting some lanes wait in.
struct Open {
    key: Key,
    id: u64,
    arrived: u32,
    vals: [u32; WARP as usize],
}

/// A completed meeting, kept until every lane present has read it.
struct Done {
    id: u64,
    present: u32,
    vals: [u32; WARP as usize],
    unread: u32,
}

#[derive(Default)]
struct Warp {
    /// Lanes of this warp that exist and have not exited.
    live: u32,
    /// Lanes waiting at a block barrier, and which barrier each waits at.
    at_barrier: u32,
    barrier_of: [u8; WARP as usize],
    open: Vec<Open>,
    done: Vec<Done>,
    next_id: u64,
}

/// How long after its last arrival an `activemask` gathering waits for
/// lanes that neither come nor wait elsewhere (they run: a spin loop, a
/// long branch).
const ACTIVEMASK_PATIENCE: Duration = Duration::from_millis(250);

impl Warp {
    /// Complete open meeting `id` with the lanes present.
    fn complete(&mut self, id: u64) {
        self.complete_where(|o| o.id == id);
    }

    /// Lanes waiting in a warp meeting.
    fn in_meetings(&self) -> u32 {
        self.open.iter().fold(0, |m, o| m | o.arrived)
    }

    /// Complete every open meeting that can be: one on a mask when every
    /// live lane of the mask has arrived; an `activemask` gathering when
    /// every other live lane of the warp waits elsewhere (at a barrier or
    /// another meeting), so none can still join it. Returns whether any
    /// completed.
    ///
    /// Mask meetings complete first: their lanes run on and may still come
    /// to a gathering, so they do not count as waiting elsewhere. (Counted
    /// before, the last lane of one reduction closed an `activemask` of
    /// the other lanes in the same step: 110 to 154 of 704 lanes read half
    /// their warp, 6 runs in 6.)
    fn settle(&mut self) -> bool {
        let live = self.live;
        let mask_ready = |o: &Open| match o.key {
            Key::Mask(mask) => {
                let needed = (mask | o.arrived) & live;
                o.arrived & needed == needed
            }
            Key::Active(_) => false,
        };
        let mut any = self.complete_where(mask_ready);
        let waiting = self.at_barrier | self.in_meetings();
        let gathered = |o: &Open| match o.key {
            Key::Active(site) => (live & !o.arrived & !waiting == 0).then_some(site),
            Key::Mask(_) => None,
        };
        // One gathering at a time, the first in program order: the lanes
        // it releases run on and may come to a later one. (All at once,
        // lanes of three if/else arms, each at its own `activemask`, and
        // those at the one after the join closed four gatherings together:
        // the join's read two arms' lanes, the other arm's lanes, never the
        // whole warp the GPU reconverges there.)
        if let Some(first) = self.open.iter().filter_map(gathered).min() {
            any |= self.complete_where(|o| o.key == Key::Active(first));
        }
        any
    }

    /// Complete the open meetings `ready` picks; whether there were any.
    fn complete_where(&mut self, ready: impl Fn(&Open) -> bool) -> bool {
        let (complete, open): (Vec<Open>, Vec<Open>) =
            std::mem::take(&mut self.open).into_iter().partition(ready);
        self.open = open;
        let any = !complete.is_empty();
        self.done.extend(complete.into_iter().map(|o| Done {
            id: o.id,
            present: o.arrived,
            vals: o.vals,
            unread: o.arrived,
        }));
        any
    }
}

/// One of the CTA's 16 hardware barriers.
struct Bar {
    /// Threads counted in this round (waiting or arrive-only).
    arrived: u32,
    /// Threads of the round that wait for it.
    waiting: u32,
    /// Threads the round needs; 0: every thread that has not exited.
    expected: u32,
    gen: u64,
    popc: u32,
    all: bool,
    any: bool,
    /// Released rounds some waiter has not read yet. With a thread count
    /// below the threads using the barrier, others can complete rounds
    /// before a slow waiter wakes (keeping 2 rounds panicked, 6 runs in 6).
    done: Vec<Round>,
}

/// A released round's reductions, and how many waiters still read them.
#[derive(Clone, Copy)]
struct Round {
    gen: u64,
    popc: u32,
    all: bool,
    any: bool,
    unread: u32,
}

impl Default for Bar {
    fn default() -> Bar {
        Bar {
            arrived: 0,
            waiting: 0,
            expected: 0,
            gen: 0,
            popc: 0,
            all: true,
            any: false,
            done: Vec::new(),
        }
    }
}

impl Bar {
    fn full(&self, live: u32) -> bool {
        self.arrived > 0
            && self.arrived
                >= if self.expected == 0 {
                    live
                } else {
                    self.expected
                }
    }

    /// The round's result as (popc, all, any).
    fn result(&self) -> (u32, bool, bool) {
        (self.popc, self.all, self.any)
    }

    fn release(&mut self) {
        if self.waiting > 0 {
            self.done.push(Round {
                gen: self.gen,
                popc: self.popc,
                all: self.all,
                any: self.any,
                unread: self.waiting,
            });
        }
        *self = Bar {
            gen: self.gen + 1,
            done: std::mem::take(&mut self.done),
            ..Bar::default()
        };
    }

    /// A waiter of round `gen` takes its result.
    fn take(&mut self, gen: u64) -> (u32, bool, bool) {
        let k = self
            .done
            .iter()
            .position(|r| r.gen == gen)
            .expect("a released round keeps its result until its waiters read it");
        let r = &mut self.done[k];
        r.unread -= 1;
        let got = (r.popc, r.all, r.any);
        if r.unread == 0 {
            self.done.swap_remove(k);
        }
        got
    }
}

struct State {
    live: u32,
    bars: [Bar; BARRIERS as usize],
    warps: Vec<Warp>,
    /// Bumped on every arrival and exit, for the note on long waits.
    progress: u64,
    /// The note on a long wait was printed (once per CTA).
    noted: bool,
    /// Threads stopped by a failed device-side assertion (`__assertfail`):
    /// they wait for the CTA's other threads to stop too.
    asserted: u32,
}

impl State {
    /// Threads that wait (at a barrier or in a warp meeting) and can only
    /// be released by another thread.
    fn blocked(&self) -> u32 {
        let at_bars: u32 = self.bars.iter().map(|b| b.waiting).sum();
        let in_warps: u32 = self
            .warps
            .iter()
            .map(|w| w.in_meetings().count_ones())
            .sum();
        at_bars + in_warps + self.asserted
    }

    /// Release barrier `k`: its round's results kept, its threads no
    /// longer waiting.
    fn release(&mut self, k: usize) {
        self.bars[k].release();
        for w in &mut self.warps {
            for lane in 0..WARP {
                if w.at_barrier & (1 << lane) != 0 && w.barrier_of[lane as usize] as usize == k {
                    w.at_barrier &= !(1 << lane);
                }
            }
        }
    }

    /// Release the barriers that have all their threads (after an exit:
    /// a barrier for every live thread may need one fewer).
    fn release_full_barriers(&mut self) {
        for k in 0..BARRIERS as usize {
            if self.bars[k].full(self.live) {
                self.release(k);
            }
        }
    }
}

/// One CTA's synchronisation state.
pub struct Cta {
    threads: u32,
    state: Mutex<State>,
    /// Barrier waiters wait here, each warp's meeting waiters on their
    /// warp's: a shuffle wakes 32 threads, not the CTA's 1024 (a warp
    /// bitonic sort over 64 CTAs of 256 threads took 11 s, 80% of it in
    /// the kernel waking threads).
    bar_cv: Condvar,
    warp_cv: Vec<Condvar>,
    /// After this long without progress while some threads still run, a
    /// note says who waits (a real deadlock, where every live thread
    /// waits, is reported at once).
    patience: Duration,
    /// (x, y, z) of the CTA now running, for reports.
    pub id: Mutex<[u32; 3]>,
    /// The CTA's `printf` lines not yet written.
    printed: Mutex<Printed>,
    /// The barrier or warp-operation site each thread came to last
    /// (`u32::MAX`: none yet), for deadlock reports.
    site_of: Vec<std::sync::atomic::AtomicU32>,
}

/// The names of the kernel's barrier and warp-operation sites
/// (`rewrite::Rewritten::sites`), for deadlock reports.
static SITES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Name the rewritten kernel's sites (before it runs).
pub fn set_sites(sites: Vec<String>) {
    *SITES.lock().unwrap_or_else(|e| e.into_inner()) = sites;
}

/// `printf` output held until the CTA ends, then written in the order a
/// GPU's printf buffer holds it when each warp prints together: by each
/// thread's n-th call, then by thread. The threads are OS threads, so
/// written as they came, upstream's printf test (threads 0 and 1 print one
/// line each; it expects 0 then 1) passed or failed by scheduling.
#[derive(Default)]
struct Printed {
    /// (the thread's call number, thread, text).
    lines: Vec<(u32, u32, Vec<u8>)>,
    bytes: usize,
    calls: Vec<u32>,
}

/// Buffered `printf` bytes beyond which the lines so far are written (a
/// GPU's printf buffer is 1 MB by default).
const PRINTED_LIMIT: usize = 1 << 20;

impl Cta {
    pub fn new(threads: u32) -> Cta {
        let patience = std::env::var("KPERF_SIMT_TIMEOUT_S")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(Duration::from_secs(20), Duration::from_secs_f64);
        let cta = Cta {
            threads,
            state: Mutex::new(State {
                live: 0,
                bars: std::array::from_fn(|_| Bar::default()),
                warps: Vec::new(),
                progress: 0,
                noted: false,
                asserted: 0,
            }),
            bar_cv: Condvar::new(),
            warp_cv: (0..threads.div_ceil(WARP))
                .map(|_| Condvar::new())
                .collect(),
            patience,
            id: Mutex::new([0; 3]),
            printed: Mutex::new(Printed::default()),
            site_of: (0..threads)
                .map(|_| std::sync::atomic::AtomicU32::new(u32::MAX))
                .collect(),
        };
        cta.reset();
        cta
    }

    /// Hold thread `linear`'s `printf` output for the CTA's end.
    pub fn print(&self, linear: u32, text: Vec<u8>) {
        let mut p = self.printed.lock().unwrap_or_else(|e| e.into_inner());
        if p.calls.len() <= linear as usize {
            p.calls.resize(self.threads.max(linear + 1) as usize, 0);
        }
        let n = p.calls[linear as usize];
        p.calls[linear as usize] = n.saturating_add(1);
        p.bytes += text.len();
        p.lines.push((n, linear, text));
        if p.bytes > PRINTED_LIMIT {
            write_printed(&mut p);
        }
    }

    /// Write the `printf` lines held so far, in the GPU's order.
    pub fn flush_printed(&self) {
        write_printed(&mut self.printed.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// Every thread alive again, for the next CTA.
    pub fn reset(&self) {
        self.flush_printed();
        if let Ok(mut p) = self.printed.lock() {
            p.calls.clear();
        }
        let mut s = self.lock();
        s.live = self.threads;
        s.noted = false;
        s.asserted = 0;
        s.bars = std::array::from_fn(|_| Bar::default());
        s.warps = (0..self.threads.div_ceil(WARP))
            .map(|w| {
                let lanes = (self.threads - w * WARP).min(WARP);
                Warp {
                    live: if lanes == 32 {
                        u32::MAX
                    } else {
                        (1u32 << lanes) - 1
                    },
                    ..Warp::default()
                }
            })
            .collect();
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere poisons the lock; the state is still consistent
        // enough to report, so take it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait on the condition variable until `done` holds. Every live
    /// thread waiting with nothing left to release it is a deadlock, on a
    /// GPU too: reported at once. Waiting on threads that still run is
    /// not (a long serial loop in one thread); after the patience runs out
    /// a note says so once, and the wait goes on.
    fn wait_until<'a>(
        &'a self,
        mut s: MutexGuard<'a, State>,
        cv: &Condvar,
        what: &str,
        done: impl Fn(&State) -> bool,
    ) -> MutexGuard<'a, State> {
        let mut seen = s.progress;
        let mut since = Instant::now();
        while !done(&s) {
            if s.blocked() >= s.live {
                self.deadlock(&s, what);
            }
            let (g, _) = cv
                .wait_timeout(s, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner());
            s = g;
            if s.progress != seen {
                seen = s.progress;
                since = Instant::now();
            } else if !s.noted && since.elapsed() > self.patience {
                s.noted = true;
                // What the CTA printed so far shows where it is.
                self.flush_printed();
                let id = *self.id.lock().unwrap_or_else(|e| e.into_inner());
                let _ = writeln!(
                    std::io::stderr(),
                    "kperf: note: SIMT: CTA ({}, {}, {}): {} of {} live threads have waited {:.0} s (one at {what}) for threads that still run (a long loop, or a spin that never ends: a wait on another CTA never ends here, where CTAs run one after another; the run goes on)",
                    id[0],
                    id[1],
                    id[2],
                    s.blocked(),
                    s.live,
                    self.patience.as_secs_f64()
                );
            }
        }
        s
    }

    /// A note, once per CTA, where the CTA has run for the patience with
    /// no thread waiting on another (every one of them computing: a loop
    /// that never ends hung the run without a word; a GPU hangs on it
    /// too). Called by the launch's watchdog with the CTA's running time.
    pub fn note_if_running_long(&self, running: Duration) {
        if running <= self.patience {
            return;
        }
        let mut s = self.lock();
        if s.noted {
            return;
        }
        s.noted = true;
        drop(s);
        self.flush_printed();
        let id = *self.id.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            std::io::stderr(),
            "kperf: note: SIMT: CTA ({}, {}, {}) has run for {:.0} s (KPERF_SIMT_TIMEOUT_S) \
             with its threads still computing: a loop that never ends (which hangs a GPU too) \
             or a long one; the run goes on (Ctrl-C stops it)",
            id[0],
            id[1],
            id[2],
            self.patience.as_secs_f64()
        );
    }

    fn deadlock(&self, s: &State, what: &str) -> ! {
        let id = *self.id.lock().unwrap_or_else(|e| e.into_inner());
        if s.asserted > 0 {
            self.stop_asserted(s, id);
        }
        let at_bars: Vec<String> = s
            .bars
            .iter()
            .enumerate()
            .filter(|(_, b)| b.waiting > 0)
            .map(|(k, b)| format!("{} at barrier {k}", b.waiting))
            .collect();
        let in_warps: u32 = s.warps.iter().map(|w| w.in_meetings().count_ones()).sum();
        let where_ = self.waiting_sites(s);
        let _ = writeln!(
                    std::io::stderr(),
            "kperf: error: SIMT: CTA ({}, {}, {}) deadlocked: every live thread waits and none can release another (this one at {what}; {} of {} threads alive; {}{} in warp operations). On a GPU this kernel hangs too: barriers or warp masks that not every live thread reaches.{where_}",
            id[0],
            id[1],
            id[2],
            s.live,
            self.threads,
            if at_bars.is_empty() {
                String::new()
            } else {
                format!("{}, ", at_bars.join(", "))
            },
            in_warps,
        );
        self.stop()
    }

    /// Where the blocked threads wait, by site: " Waiting: 32 threads
    /// (first 0) at `barrier0` at k.cu:12 in `k`; ...", or nothing when
    /// the kernel's sites are unknown.
    fn waiting_sites(&self, s: &State) -> String {
        let names = SITES.lock().unwrap_or_else(|e| e.into_inner());
        let mut by_site: std::collections::BTreeMap<u32, (u32, u32)> = Default::default();
        for (wi, w) in s.warps.iter().enumerate() {
            let blocked = w.at_barrier | w.in_meetings();
            for lane in 0..WARP {
                if blocked & (1 << lane) == 0 {
                    continue;
                }
                let t = wi as u32 * WARP + lane;
                let site = self.site_of[t as usize].load(std::sync::atomic::Ordering::Relaxed);
                let e = by_site.entry(site).or_insert((0, t));
                e.0 += 1;
            }
        }
        let parts: Vec<String> = by_site
            .iter()
            .filter_map(|(site, (n, first))| {
                let name = names.get(*site as usize)?;
                Some(format!("{n} thread(s) (first {first}) at {name}"))
            })
            .collect();
        if parts.is_empty() {
            String::new()
        } else {
            format!(" Waiting: {}.", parts.join("; "))
        }
    }

    /// Thread `linear` failed a device-side assertion (its message is
    /// printed): on a GPU it traps and the launch fails. Here it waits
    /// until no other thread of the CTA can run on (each stopped too, at an
    /// assertion, a barrier or a warp operation, or gone), so that their
    /// assertions print as a GPU's would, then the kernel's process ends.
    pub fn assert_failed(&self) -> ! {
        // The message stays with the CTA's lines, in their order (written
        // at once, thread 1's assertion came before thread 0's printf);
        // they are written when the launch stops, below.
        let mut s = self.lock();
        s.asserted += 1;
        s.progress += 1;
        self.bar_cv.notify_all();
        for cv in &self.warp_cv {
            cv.notify_all();
        }
        let (mut seen, mut since) = (s.progress, Instant::now());
        loop {
            // Every other thread stopped too, or none has come anywhere for
            // the patience: threads spinning on what the failed thread
            // would have done spin forever here, where the GPU's trap ends
            // the launch at once.
            if s.blocked() >= s.live || since.elapsed() > self.patience {
                let id = *self.id.lock().unwrap_or_else(|e| e.into_inner());
                self.stop_asserted(&s, id);
            }
            let (g, _) = self
                .bar_cv
                .wait_timeout(s, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner());
            s = g;
            if s.progress != seen {
                (seen, since) = (s.progress, Instant::now());
            }
        }
    }

    fn stop_asserted(&self, s: &State, id: [u32; 3]) -> ! {
        let _ = writeln!(
            std::io::stderr(),
            "kperf: error: SIMT: CTA ({}, {}, {}): {} thread(s) failed a device-side assertion \
             (printed above); on a GPU the launch fails",
            id[0],
            id[1],
            id[2],
            s.asserted
        );
        self.stop()
    }

    /// End the kernel's process after a report: the CTA's printf lines and
    /// C's streams written first; the parent says the runner stopped it.
    fn stop(&self) -> ! {
        self.flush_printed();
        // SAFETY: flushing C streams (the kernel's printf) and ending the
        // kernel's process, whose parent reports why.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(DEADLOCK_EXIT)
        }
    }

    /// Thread `linear` comes to site `site` (see [`kperf_simt_site`]).
    pub fn at_site(&self, linear: u32, site: u32) {
        if let Some(a) = self.site_of.get(linear as usize) {
            a.store(site, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// `bar.sync`/`bar.red` (or `bar.arrive`) on barrier `id` by thread
    /// `linear`, for `count` threads (0: every thread that has not exited),
    /// reducing `pred` as `op` asks.
    pub fn barrier(&self, linear: u32, op: u32, pred: bool, id: u32, count: u32) -> u32 {
        if id >= BARRIERS {
            self.fail(&format!(
                "thread {linear} used barrier {id}; a CTA has barriers 0 to {}",
                BARRIERS - 1
            ));
        }
        let (k, warp, lane) = (id as usize, (linear / WARP) as usize, linear % WARP);
        let mut s = self.lock();
        s.progress += 1;
        let live = s.live;
        let b = &mut s.bars[k];
        if b.arrived > 0 && b.expected != count {
            let threads = |n: u32| {
                if n == 0 {
                    "all".to_string()
                } else {
                    n.to_string()
                }
            };
            let was = b.expected;
            drop(s);
            self.fail(&format!(
                "barrier {id} used for {} and for {} threads in one round",
                threads(was),
                threads(count)
            ));
        }
        b.expected = count;
        b.arrived += 1;
        b.popc += pred as u32;
        b.all &= pred;
        b.any |= pred;
        let gen = b.gen;
        let (popc, all, any) = if b.full(live) {
            // The last arrival reads the round as it closes it.
            let r = b.result();
            s.release(k);
            self.bar_cv.notify_all();
            r
        } else if op == BAR_ARRIVE {
            return 0;
        } else {
            s.bars[k].waiting += 1;
            let w = &mut s.warps[warp];
            w.at_barrier |= 1 << lane;
            w.barrier_of[lane as usize] = id as u8;
            if w.settle() {
                self.warp_cv[warp].notify_all();
            }
            s = self.wait_until(s, &self.bar_cv, &format!("barrier {id}"), |s| {
                s.bars[k].gen != gen
            });
            s.bars[k].take(gen)
        };
        match op {
            BAR_POPC => popc,
            BAR_AND => all as u32,
            BAR_OR => any as u32,
            _ => 0,
        }
    }

    /// Stop the kernel's process with a report: a use of a primitive the
    /// hardware would not accept.
    fn fail(&self, why: &str) -> ! {
        let id = *self.id.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            std::io::stderr(),
            "kperf: error: SIMT: CTA ({}, {}, {}): {why}",
            id[0],
            id[1],
            id[2]
        );
        self.stop()
    }

    /// Thread `linear` returned from the kernel: it no longer counts at
    /// barriers or in warp meetings.
    pub fn exit(&self, linear: u32) {
        let mut s = self.lock();
        s.progress += 1;
        s.live -= 1;
        // A barrier waiting for every live thread may now have them all.
        s.release_full_barriers();
        let warp = (linear / WARP) as usize;
        let w = &mut s.warps[warp];
        w.live &= !(1 << (linear % WARP));
        w.settle();
        self.bar_cv.notify_all();
        self.warp_cv[warp].notify_all();
    }

    /// Lane `lane` of warp `warp` meets the lanes `key` names with
    /// `value`; returns the lanes present and their values.
    fn meet(&self, warp: u32, lane: u32, key: Key, value: u32) -> (u32, [u32; 32]) {
        let bit = 1u32 << lane;
        let mut s = self.lock();
        s.progress += 1;
        let w = &mut s.warps[warp as usize];
        let id = match w.open.iter_mut().find(|o| o.key == key) {
            Some(o) => {
                o.arrived |= bit;
                o.vals[lane as usize] = value;
                o.id
            }
            None => {
                let id = w.next_id;
                w.next_id += 1;
                let mut vals = [0; WARP as usize];
                vals[lane as usize] = value;
                w.open.push(Open {
                    key,
                    id,
                    arrived: bit,
                    vals,
                });
                id
            }
        };
        let cv = &self.warp_cv[warp as usize];
        if w.settle() {
            cv.notify_all();
        }
        let what = match key {
            Key::Mask(m) => format!("a warp operation with mask {m:#010x}"),
            Key::Active(_) => "activemask".to_string(),
        };
        let done = |s: &State| s.warps[warp as usize].done.iter().any(|d| d.id == id);
        if matches!(key, Key::Active(_)) {
            // Lanes that spin (on a flag the gathered lanes set, with
            // independent thread scheduling) never wait elsewhere: after a
            // short while the lanes present are the mask, not a hang.
            // The patience counts from the last lane that came: lanes
            // still being scheduled (32 threads on 2 cores beside spinning
            // ones) keep coming.
            let present = |s: &State| {
                s.warps[warp as usize]
                    .open
                    .iter()
                    .find(|o| o.id == id)
                    .map_or(0, |o| o.arrived)
            };
            let (mut seen, mut since) = (present(&s), Instant::now());
            while !done(&s) && since.elapsed() < ACTIVEMASK_PATIENCE {
                s = cv
                    .wait_timeout(s, Duration::from_millis(5))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                if present(&s) != seen {
                    (seen, since) = (present(&s), Instant::now());
                }
            }
            if !done(&s) {
                s.warps[warp as usize].complete(id);
                cv.notify_all();
            }
        }
        s = self.wait_until(s, cv, &what, done);
        let w = &mut s.warps[warp as usize];
        let k = w
            .done
            .iter()
            .position(|d| d.id == id)
            .expect("the meeting waited for is done");
        let d = &mut w.done[k];
        d.unread &= !bit;
        let got = (d.present, d.vals);
        if d.unread == 0 {
            w.done.swap_remove(k);
        }
        got
    }

    /// One warp-level operation (see [`warp_op`]) by the thread of linear
    /// id `thread`; also returns whether a shuffle's source lane was in
    /// range.
    pub fn warp(&self, thread: u32, op: u32, mask: u32, value: u32, b: u32, c: u32) -> (u32, bool) {
        use warp_op::*;
        let (warp, lane) = (thread / WARP, thread % WARP);
        if op == ACTIVEMASK {
            return (
                self.meet(warp, lane, Key::Active(SitePath::here(b)), 0).0,
                true,
            );
        }
        if mask & (1 << lane) == 0 {
            // PTX leaves a warp operation by a thread outside its own
            // member mask undefined; MLIR's `gpu.shuffle` of width 16 run
            // by the whole warp is one (its lowering passes mask 0xffff to
            // every lane, and lanes 16.. read "an unspecified value" and
            // `valid = false`). Such a lane meets nobody: it reads its own
            // value (shuffles: not valid), the same in every run. Joining
            // the mask's meeting when it came early enough made the result,
            // and a reported deadlock, depend on the schedule.
            let own = 1u32 << lane;
            return match op {
                SHFL_IDX | SHFL_UP | SHFL_DOWN | SHFL_BFLY => (value, false),
                VOTE_ALL | VOTE_ANY | VOTE_UNI => ((value != 0) as u32, true),
                VOTE_BALLOT => (if value != 0 { own } else { 0 }, true),
                MATCH_ANY => (own, true),
                MATCH_ALL => (own, true),
                REDUX_ADD..=REDUX_XOR => (value, true),
                _ => (0, true),
            };
        }
        let (present, vals) = self.meet(warp, lane, Key::Mask(mask), value);
        let in_mask = present & mask;
        let lanes = || (0..WARP).filter(move |l| in_mask & (1 << l) != 0);
        match op {
            SHFL_IDX | SHFL_UP | SHFL_DOWN | SHFL_BFLY => {
                let (src, ok) = shuffle_source(op, lane, b, c);
                if ok && present & (1 << src) != 0 {
                    (vals[src as usize], true)
                } else {
                    (value, ok)
                }
            }
            VOTE_ALL => (lanes().all(|l| vals[l as usize] != 0) as u32, true),
            VOTE_ANY => (lanes().any(|l| vals[l as usize] != 0) as u32, true),
            VOTE_UNI => {
                let first = lanes().next().map(|l| vals[l as usize] != 0);
                (
                    lanes().all(|l| Some(vals[l as usize] != 0) == first) as u32,
                    true,
                )
            }
            VOTE_BALLOT => (
                lanes()
                    .filter(|l| vals[*l as usize] != 0)
                    .fold(0, |m, l| m | (1 << l)),
                true,
            ),
            MATCH_ANY => (
                lanes()
                    .filter(|l| vals[*l as usize] == value)
                    .fold(0, |m, l| m | (1 << l)),
                true,
            ),
            MATCH_ALL => {
                let all = lanes().all(|l| vals[l as usize] == value);
                (if all { in_mask } else { 0 }, all)
            }
            REDUX_ADD..=REDUX_XOR => {
                let it = lanes().map(|l| vals[l as usize]);
                let r = match op {
                    REDUX_ADD => it.fold(0u32, |a, v| a.wrapping_add(v)),
                    REDUX_MIN => it.map(|v| v as i32).min().unwrap_or(0) as u32,
                    REDUX_MAX => it.map(|v| v as i32).max().unwrap_or(0) as u32,
                    REDUX_UMIN => it.min().unwrap_or(0),
                    REDUX_UMAX => it.max().unwrap_or(0),
                    REDUX_AND => it.fold(u32::MAX, |a, v| a & v),
                    REDUX_OR => it.fold(0, |a, v| a | v),
                    _ => it.fold(0, |a, v| a ^ v),
                };
                (r, true)
            }
            _ => (0, true),
        }
    }
}

/// The source lane of `shfl.sync` (PTX ISA: `b` the lane or offset, `c`
/// the clamp in bits 0..5 and the segment mask in bits 8..13) and whether
/// it is in range.
pub fn shuffle_source(mode: u32, lane: u32, b: u32, c: u32) -> (u32, bool) {
    use warp_op::*;
    let bval = b & 31;
    let cval = c & 31;
    let seg = (c >> 8) & 31;
    let max_lane = (lane & seg) | (cval & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        SHFL_UP => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        SHFL_DOWN => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        SHFL_BFLY => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        _ => {
            let j = (min_lane | (bval & !seg)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

/// Exit status of the kernel's process when the SIMT runner stopped it (a
/// deadlock, a barrier the hardware has not): the report is printed, the
/// parent names it ([`crate::isolate`]).
pub const DEADLOCK_EXIT: i32 = 104;

/// What the calling OS thread is, as a GPU thread.
#[derive(Clone, Copy)]
pub struct Me {
    pub tid: [u32; 3],
    pub ntid: [u32; 3],
    pub ctaid: [u32; 3],
    pub nctaid: [u32; 3],
    pub linear: u32,
    pub sm: u32,
    pub cta: *const Cta,
}

thread_local! {
    static ME: Cell<Option<Me>> = const { Cell::new(None) };
}

pub fn set_me(me: Option<Me>) {
    ME.with(|m| m.set(me));
    CALL_PATH.with(|p| p.borrow_mut().clear());
}

fn me() -> Me {
    match ME.with(|m| m.get()) {
        Some(m) => m,
        None => {
            let _ = writeln!(
                std::io::stderr(),
                "kperf: internal error: a SIMT primitive called outside a SIMT thread"
            );
            std::process::abort();
        }
    }
}

fn write_printed(p: &mut Printed) {
    p.lines.sort_by_key(|(n, t, _)| (*n, *t));
    let mut out = std::io::stdout().lock();
    for (_, _, text) in p.lines.drain(..) {
        let _ = out.write_all(&text);
    }
    let _ = out.flush();
    p.bytes = 0;
}

/// `printf` output of the calling GPU thread (written at once outside one).
pub fn print(text: Vec<u8>) {
    match ME.with(|m| m.get()) {
        Some(m) => cta(&m).print(m.linear, text),
        None => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(&text);
            let _ = out.flush();
        }
    }
}

fn cta(m: &Me) -> &Cta {
    // SAFETY: the runner sets `cta` to a `Cta` that outlives every kernel
    // call made with it.
    unsafe { &*m.cta }
}

pub extern "C" fn kperf_simt_sreg(code: u32) -> u64 {
    let m = me();
    let lane = m.linear % WARP;
    let below = (1u64 << lane) as u32;
    match code {
        c if c <= Sreg::TidZ as u32 => m.tid[c as usize] as u64,
        c if c <= Sreg::NtidZ as u32 => m.ntid[(c - Sreg::NtidX as u32) as usize] as u64,
        c if c <= Sreg::CtaidZ as u32 => m.ctaid[(c - Sreg::CtaidX as u32) as usize] as u64,
        c if c <= Sreg::NctaidZ as u32 => m.nctaid[(c - Sreg::NctaidX as u32) as usize] as u64,
        c if c == Sreg::LaneId as u32 => lane as u64,
        c if c == Sreg::WarpSize as u32 => WARP as u64,
        c if c == Sreg::WarpId as u32 => (m.linear / WARP) as u64,
        // PTX: the number of warp identifiers an SM has, not the CTA's
        // warps (64 on sm_80 and sm_90).
        c if c == Sreg::NWarpId as u32 => 64,
        c if c == Sreg::SmId as u32 => m.sm as u64,
        c if c == Sreg::NSmId as u32 => 1,
        c if c == Sreg::Clock as u32 => crate::host::host_ticks() & 0xffff_ffff,
        c if c == Sreg::Clock64 as u32 => crate::host::host_ticks(),
        c if c == Sreg::GlobalTimer as u32 => crate::host::kperf_host_now_ns(),
        c if c == Sreg::LanemaskEq as u32 => below as u64,
        c if c == Sreg::LanemaskLe as u32 => (below | (below - 1)) as u64,
        c if c == Sreg::LanemaskLt as u32 => (below - 1) as u64,
        c if c == Sreg::LanemaskGe as u32 => !(below - 1) as u64,
        c if c == Sreg::LanemaskGt as u32 => !(below | (below - 1)) as u64,
        _ => 0,
    }
}

/// `op` on barrier `id` for `count` threads (0: all that have not exited).
pub extern "C" fn kperf_simt_barrier(op: u32, pred: u32, id: u32, count: u32) -> u32 {
    let m = me();
    cta(&m).barrier(m.linear, op, pred != 0, id, count)
}

/// # Safety
/// `valid` is null or points to a writable u32.
pub unsafe extern "C" fn kperf_simt_warp(
    op: u32,
    mask: u32,
    value: u32,
    b: u32,
    c: u32,
    valid: *mut u32,
) -> u32 {
    let m = me();
    let (r, ok) = cta(&m).warp(m.linear, op, mask, value, b, c);
    if !valid.is_null() {
        // SAFETY: the caller's contract.
        unsafe { *valid = ok as u32 };
    }
    r
}

/// `__assertfail(message, file, line, function, char size)`: CUDA's
/// device-side assertion (`assert()`, MLIR's `cf.assert`). Prints what a
/// GPU prints and stops the thread (see [`Cta::assert_failed`]).
///
/// # Safety
/// The string arguments are null or NUL-terminated.
pub unsafe extern "C" fn kperf_simt_assertfail(
    message: *const std::ffi::c_char,
    file: *const std::ffi::c_char,
    line: u32,
    function: *const std::ffi::c_char,
    _char_size: usize,
) {
    let text = |p: *const std::ffi::c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: the caller's contract.
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        }
    };
    let m = me();
    let (b, t) = (m.ctaid, m.tid);
    print(
        format!(
            "{}:{line}: {}: block: [{},{},{}], thread: [{},{},{}] Assertion `{}` failed.\n",
            text(file),
            text(function),
            b[0],
            b[1],
            b[2],
            t[0],
            t[1],
            t[2],
            text(message)
        )
        .into_bytes(),
    );
    cta(&m).assert_failed()
}

/// A load, store or atomic at `addr` that a GPU stops as misaligned (it
/// needs `need`-byte alignment): named with its site (see
/// `rewrite::check_alignment`) and the thread, then the launch stops, as
/// a GPU's does with `cudaErrorMisalignedAddress`.
pub extern "C" fn kperf_simt_misaligned(addr: u64, need: u64, site: u32) {
    let m = me();
    let name = SITES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(site as usize)
        .cloned()
        .unwrap_or_else(|| format!("access {site}"));
    let (b, t) = (m.ctaid, m.tid);
    let _ = writeln!(
        std::io::stderr(),
        "kperf: error: SIMT: misaligned address 0x{addr:x}: {name} needs {need}-byte alignment \
         (block [{},{},{}], thread [{},{},{}]); on a GPU the launch fails with a misaligned \
         address error",
        b[0],
        b[1],
        b[2],
        t[0],
        t[1],
        t[2]
    );
    cta(&m).stop()
}

/// The calling thread is about to wait at barrier or warp-operation site
/// `site` (numbered by the rewrite).
pub extern "C" fn kperf_simt_site(site: u32) {
    let m = me();
    cta(&m).at_site(m.linear, site);
}

/// The calling thread calls function call number `call` (one that reaches
/// an `activemask`; numbered by the rewrite).
pub extern "C" fn kperf_simt_call_enter(call: u32) {
    CALL_PATH.with(|p| p.borrow_mut().push(call));
}

/// ... and has returned from it.
pub extern "C" fn kperf_simt_call_leave() {
    CALL_PATH.with(|p| {
        p.borrow_mut().pop();
    });
}

pub extern "C" fn kperf_simt_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

/// `nanosleep`: a spinning GPU thread's backoff. Here the OS thread yields
/// its core, so the thread it waits for (one of hundreds on a few cores)
/// gets to run.
pub extern "C" fn kperf_simt_nanosleep() {
    std::thread::yield_now();
}

/// After a volatile or atomic read (see `rewrite::poll_after_shared_reads`):
/// every 64th on this thread yields its core, so a spin-wait lets the
/// thread it waits for run; a kernel that merely uses such reads pays a
/// thread-local increment for the other 63.
pub extern "C" fn kperf_simt_poll() {
    thread_local! {
        static READS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    READS.with(|n| {
        let k = n.get().wrapping_add(1);
        n.set(k);
        if k % 64 == 0 {
            std::thread::yield_now();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_sources_follow_the_ptx_isa() {
        use warp_op::*;
        // xor 4 over 32 lanes: clamp 31, no segment.
        assert_eq!(shuffle_source(SHFL_BFLY, 5, 4, 0x1f), (1, true));
        // gpu.shuffle's width 13: MLIR passes c = 0x1f & ... ; lanes past the clamp are invalid.
        assert_eq!(shuffle_source(SHFL_BFLY, 9, 4, 12), (9, false));
        assert_eq!(shuffle_source(SHFL_DOWN, 30, 2, 0x1f), (30, false));
        assert_eq!(shuffle_source(SHFL_DOWN, 3, 2, 0x1f), (5, true));
        assert_eq!(shuffle_source(SHFL_UP, 1, 2, 0), (1, false));
        assert_eq!(shuffle_source(SHFL_UP, 7, 2, 0), (5, true));
        assert_eq!(shuffle_source(SHFL_IDX, 7, 3, 0x1f), (3, true));
        // width 8 segments for idx: c = ((32 - 8) << 8) | 31.
        assert_eq!(shuffle_source(SHFL_IDX, 13, 3, (24 << 8) | 31), (11, true));
    }
}
