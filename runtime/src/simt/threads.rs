//! The SIMT host target's execution model: every thread of a CTA is an OS
//! thread; CTAs run one after another (shared memory is the module's
//! `addrspace(3)` globals, so one CTA owns them at a time). The NVVM
//! primitives the rewritten kernel calls (`kperf_simt_*`) are implemented
//! here with the hardware's semantics:
//!
//! - `bar.sync` (and `__syncthreads_count/and/or`): all threads of the CTA
//!   that have not exited; a thread that returns stops counting, as on
//!   Volta and later.
//! - warp operations (`shfl.sync`, `vote.sync`, `redux.sync`,
//!   `bar.warp.sync`): the lanes of `mask` that have not exited meet, each
//!   deposits its value, and each computes its own result from the values
//!   of all; a source lane outside the meeting gives the caller its own
//!   value back, as PTX leaves it undefined.
//!
//! A CTA in which every live thread waits and none can be released (threads
//! parked at different barriers, a warp op whose mask names a lane that
//! waits elsewhere) is a deadlock on the GPU too: after
//! `KPERF_SIMT_TIMEOUT_S` seconds (default 20) without progress the run ends
//! with a report naming the CTA and where its threads wait.

use std::cell::Cell;
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
    pub const ACTIVEMASK: u32 = 17;
}

const WARP: u32 = 32;
/// Completed warp meetings kept for lanes that have not read theirs yet.
const KEPT: usize = 4;

#[derive(Clone, Copy, Default)]
struct Meeting {
    gen: u64,
    present: u32,
    vals: [u32; WARP as usize],
}

#[derive(Default)]
struct Warp {
    /// Lanes of this warp that exist and have not exited.
    live: u32,
    arrived: u32,
    gen: u64,
    vals: [u32; WARP as usize],
    /// The mask each waiting lane gave (the meeting is complete when every
    /// live lane of the union has arrived).
    want: u32,
    done: [Meeting; KEPT],
}

struct State {
    live: u32,
    arrived: u32,
    gen: u64,
    popc: u32,
    all: bool,
    any: bool,
    result: [(u64, u32, bool, bool); 2],
    warps: Vec<Warp>,
    /// Bumped on every arrival and exit: a wait that sees it unchanged for
    /// the timeout is a deadlock.
    progress: u64,
}

/// One CTA's synchronisation state.
pub struct Cta {
    threads: u32,
    state: Mutex<State>,
    cv: Condvar,
    timeout: Duration,
    /// (x, y, z) of the CTA now running, for reports.
    pub id: Mutex<[u32; 3]>,
}

impl Cta {
    pub fn new(threads: u32) -> Cta {
        let timeout = std::env::var("KPERF_SIMT_TIMEOUT_S")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .map_or(Duration::from_secs(20), Duration::from_secs_f64);
        let cta = Cta {
            threads,
            state: Mutex::new(State {
                live: 0,
                arrived: 0,
                gen: 0,
                popc: 0,
                all: true,
                any: false,
                result: [(0, 0, true, false); 2],
                warps: Vec::new(),
                progress: 0,
            }),
            cv: Condvar::new(),
            timeout,
            id: Mutex::new([0; 3]),
        };
        cta.reset();
        cta
    }

    /// Every thread alive again, for the next CTA.
    pub fn reset(&self) {
        let mut s = self.lock();
        s.live = self.threads;
        s.arrived = 0;
        s.popc = 0;
        s.all = true;
        s.any = false;
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

    /// Wait on the condition variable until `done` holds, watching for a
    /// deadlock.
    fn wait_until<'a>(
        &'a self,
        mut s: MutexGuard<'a, State>,
        what: &str,
        done: impl Fn(&State) -> bool,
    ) -> MutexGuard<'a, State> {
        let mut seen = s.progress;
        let mut since = Instant::now();
        while !done(&s) {
            let (g, _) = self
                .cv
                .wait_timeout(s, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner());
            s = g;
            if s.progress != seen {
                seen = s.progress;
                since = Instant::now();
            } else if since.elapsed() > self.timeout {
                self.deadlock(&s, what);
            }
        }
        s
    }

    fn deadlock(&self, s: &State, what: &str) -> ! {
        let id = *self.id.lock().unwrap_or_else(|e| e.into_inner());
        let waiting_warp: u32 = s.warps.iter().map(|w| w.arrived.count_ones()).sum();
        eprintln!(
            "kperf: error: SIMT: CTA ({}, {}, {}) deadlocked: no thread progressed for {:.0} s (a thread waits at {what}; {} of {} threads alive, {} at a block barrier, {} at warp operations). On a GPU this kernel hangs too: barriers or warp masks that not every live thread reaches.",
            id[0],
            id[1],
            id[2],
            self.timeout.as_secs_f64(),
            s.live,
            self.threads,
            s.arrived,
            waiting_warp
        );
        std::process::exit(DEADLOCK_EXIT);
    }

    /// `bar.sync` over the live threads, reducing `pred` as `op` asks.
    pub fn barrier(&self, op: u32, pred: bool) -> u32 {
        let mut s = self.lock();
        s.progress += 1;
        s.arrived += 1;
        s.popc += pred as u32;
        s.all &= pred;
        s.any |= pred;
        let gen = s.gen;
        if s.arrived >= s.live {
            Self::release_barrier(&mut s);
            self.cv.notify_all();
        } else {
            s = self.wait_until(s, "a block barrier", |s| s.gen != gen);
        }
        let (g, popc, all, any) = s.result[(gen % 2) as usize];
        debug_assert_eq!(g, gen);
        match op {
            BAR_POPC => popc,
            BAR_AND => all as u32,
            BAR_OR => any as u32,
            _ => 0,
        }
    }

    fn release_barrier(s: &mut State) {
        let gen = s.gen;
        s.result[(gen % 2) as usize] = (gen, s.popc, s.all, s.any);
        s.gen += 1;
        s.arrived = 0;
        s.popc = 0;
        s.all = true;
        s.any = false;
    }

    /// Thread `linear` returned from the kernel: it no longer counts at
    /// barriers or in warp meetings.
    pub fn exit(&self, linear: u32) {
        let mut s = self.lock();
        s.progress += 1;
        s.live -= 1;
        if s.arrived > 0 && s.arrived >= s.live {
            Self::release_barrier(&mut s);
        }
        let w = &mut s.warps[(linear / WARP) as usize];
        w.live &= !(1 << (linear % WARP));
        Self::try_complete(w);
        self.cv.notify_all();
    }

    fn try_complete(w: &mut Warp) {
        if w.arrived == 0 {
            return;
        }
        let needed = w.want & w.live;
        if w.arrived & needed == needed {
            let m = Meeting {
                gen: w.gen,
                present: w.arrived,
                vals: w.vals,
            };
            w.done[(w.gen % KEPT as u64) as usize] = m;
            w.gen += 1;
            w.arrived = 0;
            w.want = 0;
        }
    }

    /// Lane `lane` of warp `warp` meets the live lanes of `mask` with
    /// `value`; returns the lanes present and their values.
    fn meet(&self, warp: u32, lane: u32, mask: u32, value: u32) -> (u32, [u32; 32]) {
        let mut s = self.lock();
        s.progress += 1;
        let w = &mut s.warps[warp as usize];
        let gen = w.gen;
        w.vals[lane as usize] = value;
        w.arrived |= 1 << lane;
        w.want |= mask | (1 << lane);
        Self::try_complete(w);
        if w.gen != gen {
            self.cv.notify_all();
        } else {
            s = self.wait_until(s, "a warp operation", |s| s.warps[warp as usize].gen != gen);
        }
        let m = s.warps[warp as usize].done[(gen % KEPT as u64) as usize];
        debug_assert_eq!(m.gen, gen);
        (m.present, m.vals)
    }

    /// One warp-level operation (see [`warp_op`]) by the thread of linear
    /// id `thread`; also returns whether a shuffle's source lane was in
    /// range.
    pub fn warp(&self, thread: u32, op: u32, mask: u32, value: u32, b: u32, c: u32) -> (u32, bool) {
        use warp_op::*;
        let (warp, lane) = (thread / WARP, thread % WARP);
        if op == ACTIVEMASK {
            return (self.lock().warps[warp as usize].live, true);
        }
        let (present, vals) = self.meet(warp, lane, mask, value);
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

/// Exit status of a SIMT run that deadlocked.
pub const DEADLOCK_EXIT: i32 = 4;

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
}

fn me() -> Me {
    match ME.with(|m| m.get()) {
        Some(m) => m,
        None => {
            eprintln!("kperf: internal error: a SIMT primitive called outside a SIMT thread");
            std::process::abort();
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
        c if c == Sreg::NWarpId as u32 => (m.ntid.iter().product::<u32>()).div_ceil(WARP) as u64,
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

pub extern "C" fn kperf_simt_barrier(op: u32, pred: u32) -> u32 {
    let m = me();
    cta(&m).barrier(op, pred != 0)
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

pub extern "C" fn kperf_simt_fence() {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
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
