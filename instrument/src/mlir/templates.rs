//! MLIR text for what each `kperfgpu` op becomes on each target.
//!
//! Each template is a `func.func` whose arguments are the values the
//! lowering passes in and whose `return` operands are the values it hands
//! back; [`super::lower`] parses it, replaces the arguments, and moves the
//! body in front of the op being lowered. Writing the lowering as MLIR text
//! keeps it readable next to the ABI it implements: every offset comes from
//! `kperf_dialects::abi`, never from a literal here.

use crate::options::Target;
use kperf_dialects::abi::{
    cta_header as H, shape_word, version_word, Counter, Edge, HeaderFlags, RecordWord, RegionId,
    MAGIC,
};
use kperf_dialects::abi::{
    Strategy, CTA_HEADER_SIZE, RECORD_CLOCK_WORD, RECORD_SIZE, RECORD_TAG_WORD, TAG_CLOCK_HI_SHIFT,
    UNIT_ENTRY_SIZE,
};
use kperf_dialects::meta::{BufferKind, CtaSampling, Granularity};
use std::fmt::Write;

/// Everything the templates need to know about one kernel's lowering.
#[derive(Clone, Debug)]
pub struct LoweringConfig {
    pub target: Target,
    pub counter: Counter,
    pub granularity: Granularity,
    pub buffer: BufferKind,
    pub strategy: Strategy,
    /// Threads per CTA along x, y, z.
    pub block: [u32; 3],
    /// True when the block is known to be one-dimensional (tid = tid.x).
    pub block_1d: bool,
    /// Threads per unit.
    pub unit_threads: u32,
    /// Units (segments) per CTA block.
    pub units: u32,
    /// Slots per unit in shared memory (the ring) — a power of two.
    pub slots: u32,
    /// Slots per unit in the global block (== slots for circular).
    pub global_slots: u32,
    /// Recorded unit ids in segment order (empty: all units).
    pub sampled_units: Vec<u32>,
    pub sample_ctas: CtaSampling,
    /// Symbol of the shared buffer global (device targets).
    pub smem_symbol: String,
    /// Shared-memory pointers are 32 bits wide (the module's data layout
    /// says `p3:32`, as Triton's short pointers do): inline asm then takes
    /// them in 32-bit registers, not widened to 64 for every record.
    pub short_shared_ptr: bool,
    /// The most records one thread can write, when the kernel holds them
    /// all outside its cycles (each runs at most once): finalize then
    /// copies the ring out without a loop (see `copy_ring`).
    pub max_records: Option<u32>,
    /// The record right before finalize derives its ring slot itself
    /// ([`store_at_exit`]) instead of taking init's.
    pub derive_exit_slot: bool,
}

impl LoweringConfig {
    fn gptr(&self) -> &'static str {
        if self.target.is_host() {
            "!llvm.ptr"
        } else {
            "!llvm.ptr<1>"
        }
    }
    /// Pointer type of the ring counter's stack slot: AMDGPU keeps allocas
    /// in the private address space 5.
    pub fn cnt_ptr(&self) -> &'static str {
        match self.target {
            Target::Amdgpu { .. } => "!llvm.ptr<5>",
            _ => "!llvm.ptr",
        }
    }
    /// Pointer type of the segments while the kernel runs.
    pub fn seg_ptr(&self) -> &'static str {
        match (self.buffer, &self.target) {
            (BufferKind::Global, _) => self.gptr(),
            (BufferKind::Shared, Target::Host) => "!llvm.ptr",
            (BufferKind::Shared, _) => "!llvm.ptr<3>",
        }
    }
    fn layout(&self) -> kperf_dialects::abi::Layout {
        kperf_dialects::abi::Layout {
            units: self.units,
            slots: self.global_slots,
        }
    }
    pub fn cta_stride(&self) -> usize {
        self.layout().cta_stride()
    }
    /// The host keeps the "shared" ring on the kernel's stack.
    pub fn host_ring(&self) -> bool {
        self.target.is_host() && self.buffer == BufferKind::Shared
    }
    pub fn shared_bytes(&self) -> u64 {
        match self.buffer {
            BufferKind::Shared => self.ring_words() * 8,
            BufferKind::Global => 0,
        }
    }
    /// 8-byte words of the shared allocation: the rings, then (shared
    /// buffer only) the init stamp slot, then the trash ring if there is one.
    pub fn ring_words(&self) -> u64 {
        let rings = self.units as u64 * self.slots as u64 * RECORD_SIZE as u64;
        match self.buffer {
            BufferKind::Shared => {
                shared_layout(
                    &self.target,
                    self.buffer,
                    self.strategy,
                    self.units,
                    self.slots,
                )
                .bytes
                    / 8
            }
            BufferKind::Global => rings / 8,
        }
    }
    /// Byte offset of the init stamp slot from the start of the rings.
    fn stamp_offset(&self) -> usize {
        self.units as usize * self.slots as usize * RECORD_SIZE
    }
    /// Do records store without a predicate, threads that do not record
    /// writing into a trash ring? See [`uses_trash_ring`].
    pub fn trash_ring(&self) -> bool {
        uses_trash_ring(&self.target, self.buffer, self.strategy)
    }
    /// Byte offset of the trash ring from the start of the rings.
    fn trash_offset(&self) -> usize {
        shared_layout(
            &self.target,
            self.buffer,
            self.strategy,
            self.units,
            self.slots,
        )
        .trash_offset as usize
    }
    /// The header's constant words: magic, version and flags (identity
    /// group), units, slots (shape group).
    pub fn header_constants(&self) -> [u32; 4] {
        let flags = HeaderFlags {
            counter: self.counter,
            strategy: self.strategy,
        };
        let shape = shape_word(self.layout());
        [
            MAGIC,
            version_word(flags),
            shape as u32,
            (shape >> 32) as u32,
        ]
    }
    /// NVPTX: the symbol of a 16-byte `.const` table holding
    /// [`LoweringConfig::header_constants`]. One 64-bit constant-bank load
    /// (LDC.64) fills a register pair that two immediate moves would
    /// otherwise fill, two SASS instructions fewer in finalize. The table
    /// is `externally_initialized` so LLVM does not fold the loads back
    /// into immediates. Other targets use immediates.
    /// The inline-asm constraint for a pointer of type `pty`: a 32-bit
    /// register for short shared pointers, a 64-bit one otherwise.
    fn ptr_constraint(&self, pty: &str) -> &'static str {
        if self.short_shared_ptr && pty.ends_with("<3>") {
            "r"
        } else {
            "l"
        }
    }
    pub fn header_table_symbol(&self) -> Option<String> {
        matches!(self.target, Target::Nvptx { .. }).then(|| format!("{}_hdr", self.smem_symbol))
    }
}

/// On NVPTX with circular rings in shared memory, a record is an
/// unpredicated store: every thread stores, into its unit's ring when it
/// records (the unit's leader, in a sampled unit) and into one shared trash
/// ring otherwise (init picks the base once). A predicated store keeps its
/// predicate live across the whole kernel; in predicate-heavy code
/// (matmul_pipelined's software pipeline) ptxas then gives up its PLOP3s
/// and takes 14 more registers (104 → 118). The trash ring costs one
/// ring's shared memory. The semantics are the predicated store's: what
/// reaches a unit's ring is what its leader recorded.
pub fn uses_trash_ring(target: &Target, buffer: BufferKind, strategy: Strategy) -> bool {
    matches!(target, Target::Nvptx { .. })
        && buffer == BufferKind::Shared
        && strategy == Strategy::Circular
}

/// Where the pieces of a shared-memory profile sit, in bytes from its
/// start: `units` rings of `slots` records, the init stamps
/// ([`INIT_STAMP_BYTES`]), and the trash ring if there is one.
pub struct SharedLayout {
    pub trash_offset: u64,
    /// All of it.
    pub bytes: u64,
}

/// The shared-memory layout, the one definition the plan (budget checks)
/// and the templates use. The trash ring starts 32 bytes past a 128-byte
/// boundary: rings start at multiples of 64 bytes (8 slots or more), so
/// slot k of a ring and of the trash ring sit in different banks, and a
/// warp's store (the leader into its ring, the others into the trash
/// ring) takes one wavefront, not two.
pub fn shared_layout(
    target: &Target,
    buffer: BufferKind,
    strategy: Strategy,
    units: u32,
    slots: u32,
) -> SharedLayout {
    let ring = slots as u64 * RECORD_SIZE as u64;
    let stamps_end = units as u64 * ring + INIT_STAMP_BYTES;
    let (trash_offset, bytes) = if uses_trash_ring(target, buffer, strategy) {
        let trash_offset = stamps_end.next_multiple_of(128) + 32;
        (trash_offset, trash_offset + ring)
    } else {
        (stamps_end, stamps_end)
    };
    let bytes = bytes.next_multiple_of(shared_align(target));
    SharedLayout {
        trash_offset,
        bytes,
    }
}

/// The alignment and size granule of kperf's shared memory on NVPTX.
/// Dynamic shared memory (`extern __shared__`, Triton's `@global_smem`)
/// starts where the static shared memory ends, and Triton's swizzled
/// tiles for wgmma and TMA assume that start is 1024-byte aligned (it is
/// with no static shared memory) while declaring `align 16`. A ring of
/// 9376 bytes moved it off and a 4096³ Triton matmul on an H200 computed
/// wrong results (max error 519) instrumented, right ones plain. So the
/// profile is a multiple of 1024 bytes, aligned to 1024: where dynamic
/// shared memory starts modulo 1024 does not change when the kernel has no
/// other static shared memory (Triton's kernels) or ptxas places kperf's
/// first. Placed after the kernel's own, it may leave up to 1008 bytes
/// before it, which the plan counts (`plan::plan_segments`).
pub const SHARED_ALIGN: u64 = 1024;

/// The alignment (and size granule) of kperf's shared memory on `target`:
/// [`SHARED_ALIGN`] on NVPTX, 16 bytes elsewhere.
pub fn shared_align(target: &Target) -> u64 {
    if matches!(target, Target::Nvptx { .. }) {
        SHARED_ALIGN
    } else {
        16
    }
}

/// With the ring in shared memory, thread 0 parks the init stamps (global
/// timer, counter) in these 16 bytes after the rings and writes the whole
/// header at finalize: init then costs two timer reads and one predicated
/// shared store instead of a branch around three global stores.
pub const INIT_STAMP_BYTES: u64 = 16;

// The PTX record block below stores {lo, hi} in that order.
const _: () = assert!(RECORD_CLOCK_WORD == 0 && RECORD_TAG_WORD == 1);

/// Keeps copy loops rolled: their static size is part of the fixed cost,
/// and fully or runtime-unrolled copies grow with the buffer.
const NO_UNROLL: &str = "{loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>}";

/// Text builder: `v.line(...)`, with a counter for fresh SSA names.
struct Body {
    text: String,
    next: usize,
    /// Read NVPTX special registers through inline asm, which LLVM does
    /// not merge with other reads (see [`finalize`]).
    opaque_sregs: bool,
}

impl Body {
    fn new() -> Self {
        Body {
            text: String::new(),
            next: 0,
            opaque_sregs: false,
        }
    }
    /// A 32-bit NVPTX special register (`tid.x`, `ctaid.y`, …).
    fn sreg(&mut self, name: &str) -> String {
        if self.opaque_sregs {
            self.def(format!(
                "llvm.inline_asm asm_dialect = att \"mov.u32 $0, %{name};\", \"=r\"  : () -> i32"
            ))
        } else {
            self.def(format!("nvvm.read.ptx.sreg.{name} : i32"))
        }
    }
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }
    fn line(&mut self, s: impl AsRef<str>) {
        self.text.push_str("    ");
        self.text.push_str(s.as_ref());
        self.text.push('\n');
    }
    /// `%x = op` returning the fresh name.
    fn def(&mut self, rhs: impl AsRef<str>) -> String {
        let v = self.fresh();
        self.line(format!("{v} = {}", rhs.as_ref()));
        v
    }
    fn c32(&mut self, n: i64) -> String {
        self.def(format!("llvm.mlir.constant({n} : i32) : i32"))
    }
    fn c64(&mut self, n: i64) -> String {
        self.def(format!("llvm.mlir.constant({n} : i64) : i64"))
    }
    fn gep(&mut self, base: &str, ty: &str, off: usize) -> String {
        if off == 0 {
            return base.to_string();
        }
        self.def(format!(
            "llvm.getelementptr {base}[{off}] : ({ty}) -> {ty}, i8"
        ))
    }
    fn store(&mut self, val: &str, vty: &str, ptr: &str, pty: &str, align: usize) {
        self.line(format!(
            "llvm.store {val}, {ptr} {{alignment = {align} : i64}} : {vty}, {pty}"
        ));
    }
}

/// Wrap a body as the template function.
fn function(name: &str, args: &[(&str, &str)], body: Body, results: &[(&str, &str)]) -> String {
    let params = args
        .iter()
        .map(|(n, t)| format!("{n}: {t}"))
        .collect::<Vec<_>>()
        .join(", ");
    let rtys = results
        .iter()
        .map(|(_, t)| *t)
        .collect::<Vec<_>>()
        .join(", ");
    let rvals = results
        .iter()
        .map(|(v, _)| *v)
        .collect::<Vec<_>>()
        .join(", ");
    let mut s = String::new();
    let _ = writeln!(s, "func.func @{name}({params}) -> ({rtys}) {{");
    s.push_str(&body.text);
    if results.is_empty() {
        let _ = writeln!(s, "    return\n}}");
    } else {
        let _ = writeln!(s, "    return {rvals} : {rtys}\n}}");
    }
    s
}

// ---- target primitives ------------------------------------------------------

fn read_globaltimer(b: &mut Body, t: &Target) -> String {
    match t {
        Target::Nvptx { .. } => b.def("nvvm.read.ptx.sreg.globaltimer : i64"),
        Target::Amdgpu { .. } => {
            b.def("llvm.call_intrinsic \"llvm.readsteadycounter\"() : () -> i64")
        }
        Target::Host => b.def("llvm.call @kperf_host_now_ns() : () -> i64"),
    }
}

fn read_clock64(b: &mut Body, t: &Target) -> String {
    match t {
        Target::Nvptx { .. } => b.def("nvvm.read.ptx.sreg.clock64 : i64"),
        Target::Host => read_tsc_fenced(b),
        _ => b.def("llvm.call_intrinsic \"llvm.readcyclecounter\"() : () -> i64"),
    }
}

/// The time-stamp counter read as `rdtscp; lfence`: `rdtscp` waits until
/// every earlier instruction has executed, `lfence` keeps later ones from
/// starting before it. A plain `rdtsc` is not ordered with the work around
/// it: on an AMD EPYC host the out-of-order core read an iteration's END
/// before its 64-op FP chain had finished, so iteration regions held a
/// third of the loop's time in most runs (tools/tests/host_fidelity.rs).
fn read_tsc_fenced(b: &mut Body) -> String {
    let r = b.def(
        "llvm.inline_asm has_side_effects \"rdtscp; lfence\", \"={eax},={edx},~{ecx}\" : () -> !llvm.struct<(i32, i32)>",
    );
    let lo = b.def(format!(
        "llvm.extractvalue {r}[0] : !llvm.struct<(i32, i32)>"
    ));
    let hi = b.def(format!(
        "llvm.extractvalue {r}[1] : !llvm.struct<(i32, i32)>"
    ));
    let lo = b.def(format!("llvm.zext {lo} : i32 to i64"));
    let hi = b.def(format!("llvm.zext {hi} : i32 to i64"));
    let sh = b.c64(32);
    let hi = b.def(format!("llvm.shl {hi}, {sh} : i64"));
    b.def(format!("llvm.or {hi}, {lo} : i64"))
}

/// The counter as the records see it (i32 for clock32, i64 otherwise).
pub fn read_counter(cfg: &LoweringConfig) -> String {
    let mut b = Body::new();
    let v = match (cfg.counter, &cfg.target) {
        (Counter::Clock32, Target::Nvptx { .. }) => b.def("nvvm.read.ptx.sreg.clock : i32"),
        (Counter::Clock32, _) => {
            let c = read_clock64(&mut b, &cfg.target);
            b.def(format!("llvm.trunc {c} : i64 to i32"))
        }
        (Counter::Clock64, t) => read_clock64(&mut b, t),
        (Counter::Globaltimer, t) => read_globaltimer(&mut b, t),
    };
    function(
        "kperf_read_counter",
        &[],
        b,
        &[(&v, counter_type(cfg.counter))],
    )
}

pub fn counter_type(c: Counter) -> &'static str {
    if c == Counter::Clock32 {
        "i32"
    } else {
        "i64"
    }
}

/// The full-width counter in the records' domain, for the header.
fn read_counter_full(b: &mut Body, cfg: &LoweringConfig) -> String {
    match cfg.counter {
        Counter::Globaltimer => read_globaltimer(b, &cfg.target),
        _ => read_clock64(b, &cfg.target),
    }
}

fn hw_id(b: &mut Body, t: &Target) -> String {
    match t {
        Target::Nvptx { .. } => b.def("nvvm.read.ptx.sreg.smid : i32"),
        Target::Amdgpu { .. } => {
            // s_getreg HW_REG_HW_ID (gfx9: register 4, all 32 bits): CU id in
            // bits 11..8, shader engine in bits 15..13 → se·16 + cu.
            let reg = b.c32((31 << 11) | 4);
            let v = b.def(format!(
                "llvm.call_intrinsic \"llvm.amdgcn.s.getreg\"({reg}) : (i32) -> i32"
            ));
            let (c8, c13, m15, m7, c16) = (b.c32(8), b.c32(13), b.c32(15), b.c32(7), b.c32(16));
            let cu = b.def(format!("llvm.lshr {v}, {c8} : i32"));
            let cu = b.def(format!("llvm.and {cu}, {m15} : i32"));
            let se = b.def(format!("llvm.lshr {v}, {c13} : i32"));
            let se = b.def(format!("llvm.and {se}, {m7} : i32"));
            let se = b.def(format!("llvm.mul {se}, {c16} : i32"));
            b.def(format!("llvm.add {se}, {cu} : i32"))
        }
        Target::Host => b.def("llvm.call @kperf_host_cpu() : () -> i32"),
    }
}

/// Linear thread id within the CTA.
fn thread_id(b: &mut Body, cfg: &LoweringConfig) -> String {
    match &cfg.target {
        Target::Host => b.c32(0),
        Target::Nvptx { .. } => {
            let x = b.sreg("tid.x");
            if cfg.block_1d {
                return x;
            }
            let y = b.sreg("tid.y");
            let z = b.sreg("tid.z");
            let nx = b.sreg("ntid.x");
            let ny = b.sreg("ntid.y");
            linearize(b, [&x, &y, &z], [&nx, &ny])
        }
        Target::Amdgpu { .. } => {
            let x = b.def("rocdl.workitem.id.x : i32");
            if cfg.block_1d {
                return x;
            }
            let y = b.def("rocdl.workitem.id.y : i32");
            let z = b.def("rocdl.workitem.id.z : i32");
            let nx = b.c32(cfg.block[0] as i64);
            let ny = b.c32(cfg.block[1] as i64);
            linearize(b, [&x, &y, &z], [&nx, &ny])
        }
    }
}

/// x + nx·(y + ny·z)
fn linearize(b: &mut Body, [x, y, z]: [&str; 3], [nx, ny]: [&str; 2]) -> String {
    let t = b.def(format!("llvm.mul {ny}, {z} : i32"));
    let t = b.def(format!("llvm.add {y}, {t} : i32"));
    let t = b.def(format!("llvm.mul {nx}, {t} : i32"));
    b.def(format!("llvm.add {x}, {t} : i32"))
}

/// Linear CTA id; host gets block and grid ids as arguments.
fn cta_id(b: &mut Body, t: &Target, block: [u32; 3]) -> String {
    match t {
        Target::Nvptx { .. } => {
            let x = b.sreg("ctaid.x");
            let y = b.sreg("ctaid.y");
            let z = b.sreg("ctaid.z");
            let nx = b.sreg("nctaid.x");
            let ny = b.sreg("nctaid.y");
            linearize(b, [&x, &y, &z], [&nx, &ny])
        }
        Target::Amdgpu { .. } => {
            let x = b.def("rocdl.workgroup.id.x : i32");
            let y = b.def("rocdl.workgroup.id.y : i32");
            let z = b.def("rocdl.workgroup.id.z : i32");
            // Workgroups per dimension from the HSA dispatch packet (grid size
            // in work-items at +12/+16) over the known block size; ROCDL's
            // grid.dim would need ROCm's device library.
            let pkt =
                b.def("llvm.call_intrinsic \"llvm.amdgcn.dispatch.ptr\"() : () -> !llvm.ptr<4>");
            let gx = b.gep(&pkt, "!llvm.ptr<4>", 12);
            let gy = b.gep(&pkt, "!llvm.ptr<4>", 16);
            let gx = b.def(format!(
                "llvm.load {gx} {{alignment = 4 : i64}} : !llvm.ptr<4> -> i32"
            ));
            let gy = b.def(format!(
                "llvm.load {gy} {{alignment = 4 : i64}} : !llvm.ptr<4> -> i32"
            ));
            let (bx, by) = (b.c32(block[0].max(1) as i64), b.c32(block[1].max(1) as i64));
            let nx = b.def(format!("llvm.udiv {gx}, {bx} : i32"));
            let ny = b.def(format!("llvm.udiv {gy}, {by} : i32"));
            linearize(b, [&x, &y, &z], [&nx, &ny])
        }
        Target::Host => {
            let mut i = |n: &str| b.def(format!("arith.index_cast {n} : index to i32"));
            let (x, y, z, nx, ny) = (i("%bx"), i("%by"), i("%bz"), i("%gx"), i("%gy"));
            linearize(b, [&x, &y, &z], [&nx, &ny])
        }
    }
}

/// Host kernels receive block and grid ids as trailing `index` arguments.
pub const HOST_GRID_ARGS: [&str; 6] = ["%bx", "%by", "%bz", "%gx", "%gy", "%gz"];

// ---- locals -----------------------------------------------------------------

/// The kernel's stack slots, allocated at its entry and handed to `init`:
/// the ring counter (SROA turns it into a register) and, on the host with a
/// shared buffer, the ring itself. Kept out of `init` so that `init` can be
/// an ordinary function that the LLVM-IR path inlines: a stack slot created
/// inside an inlined callee ends its lifetime where the callee returns.
pub fn locals(cfg: &LoweringConfig) -> String {
    let mut b = Body::new();
    let one = b.c32(1);
    let cp = cfg.cnt_ptr();
    let cnt = b.def(format!("llvm.alloca {one} x i32 : (i32) -> {cp}"));
    let mut results = vec![(cnt, cp)];
    if cfg.host_ring() {
        let n = b.c32(cfg.ring_words() as i64);
        let ring = b.def(format!(
            "llvm.alloca {n} x i64 {{alignment = 16 : i64}} : (i32) -> !llvm.ptr"
        ));
        results.push((ring, "!llvm.ptr"));
    }
    let results: Vec<(&str, &str)> = results.iter().map(|(v, t)| (v.as_str(), *t)).collect();
    function("kperf_locals", &[], b, &results)
}

// ---- init -------------------------------------------------------------------

/// Values init hands to the record stores, in this order: `%rec`, `%seg`,
/// `%cnt`, `%blk`, `%unit_idx` (the stores' first five arguments).
pub const INIT_RESULTS: usize = 5;

/// Where a thread stands in the profile: what init and finalize both
/// derive from the thread and CTA ids and the profile pointer.
struct State {
    tid: String,
    cta: String,
    /// This thread leads a sampled unit.
    leader: String,
    /// This thread records: a [`State::leader`] in an active CTA.
    rec: String,
    /// This CTA records and has a profile buffer.
    active: String,
    /// Thread 0 of an active CTA.
    hdr: String,
    /// Segment index of the thread's unit.
    unit_idx: String,
    /// This CTA's block of the profile buffer.
    blk: String,
    /// Base of all segments.
    base: String,
    /// Where this thread's records go: its unit's segment, or the trash
    /// ring ([`uses_trash_ring`]).
    seg: String,
}

/// The SSA names of one unit's CTA block, segment index and segment.
#[derive(Clone, Copy)]
struct UnitRefs<'a> {
    blk: &'a str,
    unit_idx: &'a str,
    seg: &'a str,
}

fn profile_state(b: &mut Body, cfg: &LoweringConfig) -> State {
    let g = cfg.gptr();
    let seg_ty = cfg.seg_ptr();
    let tid = thread_id(b, cfg);
    let cta = cta_id(b, &cfg.target, cfg.block);
    let zero = b.c32(0);
    let tpu = b.c32(cfg.unit_threads as i64);
    let (unit, lane) = if cfg.unit_threads == 1 {
        (tid.clone(), zero.clone())
    } else {
        (
            b.def(format!("llvm.udiv {tid}, {tpu} : i32")),
            b.def(format!("llvm.urem {tid}, {tpu} : i32")),
        )
    };
    let leader = b.def(format!("llvm.icmp \"eq\" {lane}, {zero} : i32"));

    // Unit sampling: the segment index is the unit's position in the list.
    let (unit_sel, unit_idx) = if cfg.sampled_units.is_empty() {
        (b.def("llvm.mlir.constant(true) : i1"), unit.clone())
    } else {
        let mut sel = b.def("llvm.mlir.constant(false) : i1");
        let mut idx = zero.clone();
        for (i, u) in cfg.sampled_units.iter().enumerate() {
            let cu = b.c32(*u as i64);
            let is = b.def(format!("llvm.icmp \"eq\" {unit}, {cu} : i32"));
            sel = b.def(format!("llvm.or {sel}, {is} : i1"));
            let ci = b.c32(i as i64);
            idx = b.def(format!("llvm.select {is}, {ci}, {idx} : i1, i32"));
        }
        (sel, idx)
    };

    // CTA sampling: which CTAs record and which block each writes.
    let (cta_sel, block_idx) = match &cfg.sample_ctas {
        CtaSampling::All => (b.def("llvm.mlir.constant(true) : i1"), cta.clone()),
        CtaSampling::Every(k) => {
            let ck = b.c32(*k as i64);
            let r = b.def(format!("llvm.urem {cta}, {ck} : i32"));
            let sel = b.def(format!("llvm.icmp \"eq\" {r}, {zero} : i32"));
            (sel, b.def(format!("llvm.udiv {cta}, {ck} : i32")))
        }
        CtaSampling::List(ids) => {
            let mut sel = b.def("llvm.mlir.constant(false) : i1");
            let mut idx = zero.clone();
            for (i, id) in ids.iter().enumerate() {
                let cu = b.c32(*id as i64);
                let is = b.def(format!("llvm.icmp \"eq\" {cta}, {cu} : i32"));
                sel = b.def(format!("llvm.or {sel}, {is} : i1"));
                let ci = b.c32(i as i64);
                idx = b.def(format!("llvm.select {is}, {ci}, {idx} : i1, i32"));
            }
            (sel, idx)
        }
    };
    // A null profile pointer (a host program that launches the kernel
    // itself) disables recording instead of faulting.
    let nonnull = if b.opaque_sregs {
        // Not the form init tests: LLVM would merge the two and keep the
        // predicate live across the kernel (see `finalize`).
        let addr = b.def(format!("llvm.ptrtoint %prof : {g} to i64"));
        let zero64 = b.c64(0);
        b.def(format!("llvm.icmp \"ne\" {addr}, {zero64} : i64"))
    } else {
        let null = b.def(format!("llvm.mlir.zero : {g}"));
        b.def(format!("llvm.icmp \"ne\" %prof, {null} : {g}"))
    };
    let active = b.def(format!("llvm.and {cta_sel}, {nonnull} : i1"));
    let leader = b.def(format!("llvm.and {leader}, {unit_sel} : i1"));
    let rec = b.def(format!("llvm.and {leader}, {active} : i1"));

    // CTA block: prof + block_idx × stride.
    let bi = b.def(format!("llvm.zext {block_idx} : i32 to i64"));
    let stride = b.c64(cfg.cta_stride() as i64);
    let boff = b.def(format!("llvm.mul {bi}, {stride} : i64"));
    let blk = b.def(format!(
        "llvm.getelementptr %prof[{boff}] : ({g}, i64) -> {g}, i8"
    ));

    // Segment base.
    let seg_bytes = b.c32(cfg.slots as i64 * RECORD_SIZE as i64);
    let segoff = b.def(format!("llvm.mul {unit_idx}, {seg_bytes} : i32"));
    let base = match (cfg.buffer, &cfg.target) {
        (BufferKind::Global, _) => b.gep(
            &blk,
            g,
            kperf_dialects::abi::Layout {
                units: cfg.units,
                slots: cfg.global_slots,
            }
            .records_offset(),
        ),
        (BufferKind::Shared, Target::Host) => "%ring".to_string(),
        (BufferKind::Shared, _) => b.def(format!(
            "llvm.mlir.addressof @{} : !llvm.ptr<3>",
            cfg.smem_symbol
        )),
    };
    let own = |b: &mut Body| {
        b.def(format!(
            "llvm.getelementptr {base}[{segoff}] : ({seg_ty}, i32) -> {seg_ty}, i8"
        ))
    };
    let simt = matches!(cfg.target, Target::Nvptx { simt: true, .. });
    let seg = if cfg.trash_ring() && cfg.units > 1 {
        // A leader of an inactive CTA may fill its ring: finalize copies
        // nothing out there, and no null-pointer test need stay live.
        // The offsets are selected, not the addresses: a select of two
        // shared addresses makes ptxas compute the shared window's base
        // in a vector register, and its CSE then moves the kernel's own
        // shared addressing off the uniform datapath (Triton's
        // tl.histogram: 9 LEA became IMAD, 20% of the kernel changed).
        let trash = b.c32(cfg.trash_offset() as i64);
        let off = b.def(format!("llvm.select {leader}, {segoff}, {trash} : i1, i32"));
        // Pinned in init (see `pinned_int`); finalize's, past its
        // null-pointer test, may sink.
        let off = if simt || b.opaque_sregs {
            off
        } else {
            pinned_int(b, &off, "i32")
        };
        b.def(format!(
            "llvm.getelementptr {base}[{off}] : ({seg_ty}, i32) -> {seg_ty}, i8"
        ))
    } else if cfg.trash_ring() {
        let own = own(b);
        let trash = b.gep(&base, seg_ty, cfg.trash_offset());
        let seg = b.def(format!(
            "llvm.select {leader}, {own}, {trash} : i1, {seg_ty}"
        ));
        if !simt {
            // One ring: `own` is a constant address like `trash`, and
            // LLVM folds every record's slot offset into both arms, one
            // select and two adds per record (4.9 SASS a record instead
            // of 2.5 at CTA granularity). Passed through an opaque move,
            // the ring base is one register and each slot an immediate.
            // (The SIMT target runs no inline PTX, and its cost is not SASS.)
            opaque_pointer(b, cfg, &seg, seg_ty)
        } else {
            seg
        }
    } else {
        own(b)
    };

    let t0 = b.def(format!("llvm.icmp \"eq\" {tid}, {zero} : i32"));
    let hdr = b.def(format!("llvm.and {t0}, {active} : i1"));
    State {
        tid,
        cta,
        leader,
        rec,
        active,
        hdr,
        unit_idx,
        blk,
        base,
        seg,
    }
}

/// `p` through an inline-asm move LLVM cannot see through (ptxas can: it
/// costs nothing in SASS).
fn opaque_pointer(b: &mut Body, cfg: &LoweringConfig, p: &str, pty: &str) -> String {
    let int = if cfg.ptr_constraint(pty) == "r" {
        "i32"
    } else {
        "i64"
    };
    let i = b.def(format!("llvm.ptrtoint {p} : {pty} to {int}"));
    let o = opaque_int(b, &i, int);
    b.def(format!("llvm.inttoptr {o} : {int} to {pty}"))
}

/// `v` (an `int`, i32 or i64) through an inline-asm move LLVM cannot see
/// through (ptxas can: it costs nothing in SASS).
fn opaque_int(b: &mut Body, v: &str, int: &str) -> String {
    asm_move(b, v, int, "")
}

/// [`opaque_int`] that also stays where init puts it: a move with side
/// effects, which neither LLVM nor its machine sinking moves. Without it
/// the ring's offset (lane test, unit × ring size, select) sank to the
/// first record, past the kernel's first branch, and took there a location
/// merged with the kernel's: `kperf cost` counted kperf's 4–5 instructions
/// as the kernel's in loop modes (Triton's softmax, a row loop), and in
/// matmul_pipelined the sunk lane test kept a predicate live in its loop.
fn pinned_int(b: &mut Body, v: &str, int: &str) -> String {
    asm_move(b, v, int, "has_side_effects ")
}

/// `v` through a PTX `mov` written as inline asm (`effects`: the op's
/// side-effect keyword, or nothing).
fn asm_move(b: &mut Body, v: &str, int: &str, effects: &str) -> String {
    let (reg, c) = if int == "i32" {
        ("b32", "r")
    } else {
        ("b64", "l")
    };
    b.def(format!(
        "llvm.inline_asm {effects}asm_dialect = att \"mov.{reg} $0, $1;\", \"={c},{c}\" {v} : ({int}) -> {int}"
    ))
}

/// `kperfgpu.init`: the thread's [`State`], the ring counter at zero, and
/// thread 0's init stamps.
///
/// Arguments ([`init_args`]): `%prof` (global profile buffer), `%cnt` and,
/// on the host with a shared buffer, `%ring` (both from [`locals`]), then,
/// on the host, the grid ids. Results: see [`INIT_RESULTS`].
pub fn init(cfg: &LoweringConfig) -> String {
    let mut b = Body::new();
    let g = cfg.gptr();
    let seg_ty = cfg.seg_ptr();
    let zero = b.c32(0);
    let State {
        tid,
        cta,
        rec,
        hdr,
        unit_idx,
        blk,
        base,
        seg,
        ..
    } = profile_state(&mut b, cfg);
    // The ring counter starts at zero (its stack slot comes from `locals`).
    let cp = cfg.cnt_ptr();
    let cnt = "%cnt".to_string();
    b.store(&zero, "i32", &cnt, cp, 4);

    if cfg.buffer == BufferKind::Shared {
        // Park the init stamps in shared memory (INIT_STAMP_BYTES); the
        // header is written at finalize.
        let t = read_globaltimer(&mut b, &cfg.target);
        let c = read_counter_full(&mut b, cfg);
        let slot = b.gep(&base, seg_ty, cfg.stamp_offset());
        if cfg.target.inline_ptx() {
            // Thread 0 tested as `tid < 1` inside the asm, not as
            // finalize's `tid == 0`: ptxas merges identical predicates of
            // init and finalize and keeps the result live across the kernel
            // (attention: saved with P2R, 128 registers instead of 123),
            // and LLVM would turn `< 1` into `== 0` outside an asm.
            b.line(format!(
                "llvm.inline_asm has_side_effects asm_dialect = att \"{{ .reg .pred p; setp.lt.u32 p, $0, 1; @p st.shared.v2.b64 [$1], {{$2, $3}}; }}\", \"r,{pc},l,l\" {tid}, {slot}, {t}, {c} : (i32, {seg_ty}, i64, i64) -> ()",
                pc = cfg.ptr_constraint(seg_ty)
            ));
        } else {
            let t0 = b.def(format!("llvm.icmp \"eq\" {tid}, {zero} : i32"));
            store16(
                &mut b,
                &cfg.target,
                Some(&t0),
                &[&t, &c],
                "i64",
                &slot,
                seg_ty,
            );
        }
    } else {
        // Thread 0 of a recording CTA writes the header's init fields now.
        b.line(format!("scf.if {hdr} {{"));
        let t = &cfg.target;
        let id = identity_words(&mut b, cfg, &cta);
        store_words(&mut b, t, None, &id, &blk, g);
        let time = read_globaltimer(&mut b, t);
        let c = read_counter_full(&mut b, cfg);
        store_pair64(
            &mut b,
            t,
            None,
            H::START_TIME,
            &time,
            H::START_CLOCK,
            &c,
            &blk,
            g,
        );
        b.line("}");
    }

    function(
        "kperf_init",
        &init_args(cfg),
        b,
        &[
            (&rec, "i1"),
            (&seg, seg_ty),
            (&cnt, cfg.cnt_ptr()),
            (&blk, g),
            (&unit_idx, "i32"),
        ],
    )
}

/// The arguments of init and finalize: the profile pointer, the ring
/// counter's slot, the host's ring and grid ids.
fn init_args(cfg: &LoweringConfig) -> Vec<(&'static str, &'static str)> {
    let mut args = vec![("%prof", cfg.gptr()), ("%cnt", cfg.cnt_ptr())];
    if cfg.host_ring() {
        args.push(("%ring", "!llvm.ptr"));
    }
    if cfg.target.is_host() {
        args.extend(HOST_GRID_ARGS.iter().map(|a| (*a, "index")));
    }
    args
}

/// The header's identity group: magic, version and flags, CTA id, SM (CU,
/// CPU) id.
fn identity_words(b: &mut Body, cfg: &LoweringConfig, cta: &str) -> [(usize, String); 4] {
    let hw = hw_id(b, &cfg.target);
    let [magic, version, ..] = cfg.header_constants();
    let (magic, version) = match cfg.header_table_symbol() {
        Some(sym) => {
            let p = b.def(format!("llvm.mlir.addressof @{sym} : !llvm.ptr<4>"));
            let v = b.def(format!(
                "llvm.load {p} {{alignment = 16 : i64}} : !llvm.ptr<4> -> vector<2xi32>"
            ));
            let (i0, i1) = (b.c32(0), b.c32(1));
            (
                b.def(format!(
                    "llvm.extractelement {v}[{i0} : i32] : vector<2xi32>"
                )),
                b.def(format!(
                    "llvm.extractelement {v}[{i1} : i32] : vector<2xi32>"
                )),
            )
        }
        None => (b.c32(magic as i64), b.c32(version as i64)),
    };
    [
        (H::MAGIC, magic),
        (H::VERSION, version),
        (H::CTA_ID, cta.to_string()),
        (H::HW_ID, hw),
    ]
}

/// The header's shape as one u64 (units, slots): [`shape_word`].
fn shape_value(b: &mut Body, cfg: &LoweringConfig) -> String {
    match cfg.header_table_symbol() {
        Some(sym) => {
            let p = b.def(format!("llvm.mlir.addressof @{sym} : !llvm.ptr<4>"));
            let p = b.gep(&p, "!llvm.ptr<4>", 8);
            b.def(format!(
                "llvm.load {p} {{alignment = 8 : i64}} : !llvm.ptr<4> -> i64"
            ))
        }
        None => b.c64(shape_word(cfg.layout()) as i64),
    }
}

/// Store four consecutive u32 header fields as one 16-byte store.
fn store_words(
    b: &mut Body,
    t: &Target,
    pred: Option<&str>,
    fields: &[(usize, String); 4],
    blk: &str,
    g: &str,
) {
    let first = fields[0].0;
    debug_assert!(
        first.is_multiple_of(16) && fields.iter().enumerate().all(|(i, f)| f.0 == first + 4 * i)
    );
    let p = b.gep(blk, g, first);
    let words: Vec<&str> = fields.iter().map(|(_, v)| v.as_str()).collect();
    store16(b, t, pred, &words, "i32", &p, g);
}

/// Store two adjacent u64 header fields as one 16-byte store.
#[allow(clippy::too_many_arguments)]
fn store_pair64(
    b: &mut Body,
    t: &Target,
    pred: Option<&str>,
    off_a: usize,
    a: &str,
    off_b: usize,
    v_b: &str,
    blk: &str,
    g: &str,
) {
    debug_assert!(off_a.is_multiple_of(16) && off_b == off_a + 8);
    let p = b.gep(blk, g, off_a);
    store16(b, t, pred, &[a, v_b], "i64", &p, g);
}

/// One 16-byte store of `words` (4 × i32 or 2 × i64) at `ptr`, by the
/// threads where `pred` holds (`None`: the caller already branched). On
/// NVPTX a predicated `st.v4.b32`/`st.v2.b64`, so no branch is left around
/// the store; elsewhere a vector store under `scf.if`.
fn store16(
    b: &mut Body,
    t: &Target,
    pred: Option<&str>,
    words: &[&str],
    wty: &str,
    ptr: &str,
    pty: &str,
) {
    let (n, cons, ty) = if wty == "i64" {
        (2, "l", "b64")
    } else {
        (4, "r", "b32")
    };
    debug_assert_eq!(words.len(), n);
    if let (Some(p), true) = (pred, t.inline_ptx()) {
        let space = if pty.ends_with("<3>") {
            "shared"
        } else {
            "global"
        };
        let regs: Vec<String> = (0..n).map(|i| format!("${}", i + 2)).collect();
        b.line(format!(
            "llvm.inline_asm has_side_effects asm_dialect = att \"@$0 st.{space}.v{n}.{ty} [$1], {{{}}};\", \"b,l,{}\" {p}, {ptr}, {} : (i1, {pty}, {}) -> ()",
            regs.join(", "),
            vec![cons; n].join(","),
            words.join(", "),
            vec![wty; n].join(", ")
        ));
        return;
    }
    let vty = format!("vector<{n}x{wty}>");
    let mut v = b.def(format!("llvm.mlir.poison : {vty}"));
    for (i, w) in words.iter().enumerate() {
        let idx = b.c32(i as i64);
        v = b.def(format!("llvm.insertelement {w}, {v}[{idx} : i32] : {vty}"));
    }
    if let Some(p) = pred {
        b.line(format!("scf.if {p} {{"));
    }
    b.store(&v, &vty, ptr, pty, 16);
    if pred.is_some() {
        b.line("}");
    }
}

// ---- record store -----------------------------------------------------------

/// `kperfgpu.circular_store` / `store_counter`: one 8-byte store of {tag,
/// clock} at the ring slot: predicated inline PTX on NVPTX GPUs, a masked
/// store on the SIMT target and into global buffers, a branch for a flush
/// ring and on AMDGPU, unconditional into the host's stack ring. The
/// counter update stays outside the predicate so that in straight-line
/// code the slot folds to an immediate.
pub fn store(cfg: &LoweringConfig, region: RegionId, edge: Edge) -> String {
    let refs = StoreRefs {
        rec: "%rec",
        unit: UnitRefs {
            blk: "%blk",
            unit_idx: "%unit_idx",
            seg: "%seg",
        },
    };
    let mut b = Body::new();
    store_body(&mut b, cfg, region, edge, refs);
    let mut args = vec![
        ("%rec", "i1"),
        ("%seg", cfg.seg_ptr()),
        ("%cnt", cfg.cnt_ptr()),
        ("%blk", cfg.gptr()),
        ("%unit_idx", "i32"),
    ];
    args.push(("%clock", counter_type(cfg.counter)));
    function("kperf_store", &args, b, &[])
}

/// [`store`] for a record right before finalize (the kernel region's END at
/// the exit): it derives the thread's ring slot itself, as finalize does,
/// instead of taking init's. Init's ring address, used only there, stayed
/// live across the whole kernel: one register more, and ptxas no longer
/// coalesced a binary search's loop registers (its loop 13 → 15 SASS, three
/// MOVs more; docs/fidelity.md, fifth round). Derived again (3–4 SASS), the
/// kernel's own code is the plain kernel's. The derivation is
/// [`profile_state`], so the slot is init's: same unit and CTA sampling,
/// same trash ring, same null-profile test.
///
/// Used only where [`LoweringConfig::derive_exit_slot`] is set (chosen per
/// kernel by the register hold on LLVM IR; always on the SIMT target).
///
/// Arguments: init's ([`init_args`]), then the clock.
pub fn store_at_exit(cfg: &LoweringConfig, region: RegionId, edge: Edge) -> String {
    let mut b = Body::new();
    b.opaque_sregs = cfg.target.inline_ptx();
    let st = profile_state(&mut b, cfg);
    b.opaque_sregs = false;
    let refs = StoreRefs {
        rec: &st.rec,
        unit: UnitRefs {
            blk: &st.blk,
            unit_idx: &st.unit_idx,
            seg: &st.seg,
        },
    };
    store_body(&mut b, cfg, region, edge, refs);
    let mut args = init_args(cfg);
    args.push(("%clock", counter_type(cfg.counter)));
    function("kperf_store", &args, b, &[])
}

/// Where a record store writes: the thread's recording predicate and its
/// unit's ring and CTA block.
#[derive(Clone, Copy)]
struct StoreRefs<'a> {
    rec: &'a str,
    unit: UnitRefs<'a>,
}

/// The record store itself, shared by [`store`] and [`store_at_exit`].
fn store_body(b: &mut Body, cfg: &LoweringConfig, region: RegionId, edge: Edge, refs: StoreRefs) {
    let StoreRefs { rec, unit } = refs;
    let seg = unit.seg;
    let seg_ty = cfg.seg_ptr();
    let cp = cfg.cnt_ptr();
    let n = b.def(format!(
        "llvm.load %cnt {{alignment = 4 : i64}} : {cp} -> i32"
    ));
    let mask = b.c32(cfg.slots as i64 - 1);
    // Flush into a global buffer: the segment is the record's place, slot n
    // while it has room (no ring to stage in; see [`flushes_in_place`]).
    let in_place = flushes_in_place(cfg.strategy, cfg.buffer);
    let slot = if in_place {
        n.clone()
    } else {
        b.def(format!("llvm.and {n}, {mask} : i32"))
    };
    let three = b.c32(3);
    let off = b.def(format!("llvm.shl {slot}, {three} : i32"));
    let p = b.def(format!(
        "llvm.getelementptr {seg}[{off}] : ({seg_ty}, i32) -> {seg_ty}, i8"
    ));
    let tag_const = RecordWord::tag_constant(region, edge) as i64;
    let nvptx_circular = cfg.strategy == Strategy::Circular && cfg.target.inline_ptx();
    let space = if cfg.buffer == BufferKind::Shared {
        "shared"
    } else {
        "global"
    };
    if nvptx_circular && cfg.counter != Counter::Clock32 {
        // Split the 64-bit counter into its register pair, turn the high half
        // into the tag in place and store the pair: 4 SASS instructions with
        // the clock read. Word order as abi::RECORD_CLOCK_WORD/RECORD_TAG_WORD.

        let guard = if cfg.trash_ring() { "" } else { "@$0 " };
        b.line(format!(
            "llvm.inline_asm has_side_effects asm_dialect = att \"{{ .reg .b32 lo, hi; mov.b64 {{lo, hi}}, $2; shl.b32 hi, hi, {TAG_CLOCK_HI_SHIFT}; or.b32 hi, hi, {tag_const}; {guard}st.{space}.v2.b32 [$1], {{lo, hi}}; }}\", \"b,{pc},l\" {rec}, {p}, %clock : (i1, {seg_ty}, i64) -> ()",
            pc = cfg.ptr_constraint(seg_ty)
        ));
        count_record(b, cfg, &n);
        return;
    }
    if nvptx_circular {
        // One store and no branch: a branch here lets LLVM duplicate the
        // code around the record (e.g. a TMA issue) into both arms,
        // changing the kernel being measured. Unpredicated into the trash
        // ring's scheme (see `uses_trash_ring`), predicated otherwise.
        // The tag is a constant of the asm, not an operand: as an operand,
        // LLVM's machine passes shared its register with the kernel's own
        // equal constant (a loop counter's initial 0 moved before the first
        // record, out of the loop's preheader, and ptxas no longer unrolled
        // the loop fully: 27 → 62 SASS on a 4-trip loop). Word order as
        // abi::RECORD_CLOCK_WORD/RECORD_TAG_WORD.
        let guard = if cfg.trash_ring() { "" } else { "@$0 " };
        let mut words = ["", ""];
        words[RECORD_CLOCK_WORD] = "$2";
        words[RECORD_TAG_WORD] = "tag";
        b.line(format!(
            "llvm.inline_asm has_side_effects asm_dialect = att \"{{ .reg .b32 tag; mov.b32 tag, {tag_const}; {guard}st.{space}.v2.b32 [$1], {{{w0}, {w1}}}; }}\", \"b,{pc},r\" {rec}, {p}, %clock : (i1, {seg_ty}, i32) -> ()",
            pc = cfg.ptr_constraint(seg_ty),
            w0 = words[0],
            w1 = words[1]
        ));
        count_record(b, cfg, &n);
        return;
    }
    let (tag, lo) = if cfg.counter == Counter::Clock32 {
        (b.c32(tag_const), "%clock".to_string())
    } else {
        let c32 = b.c64(32);
        let hi = b.def(format!("llvm.lshr %clock, {c32} : i64"));
        let hi = b.def(format!("llvm.trunc {hi} : i64 to i32"));
        let sh = b.c32(TAG_CLOCK_HI_SHIFT as i64);
        let hi = b.def(format!("llvm.shl {hi}, {sh} : i32"));
        let k = b.c32(tag_const);
        let tag = b.def(format!("llvm.or {hi}, {k} : i32"));
        (tag, b.def("llvm.trunc %clock : i64 to i32"))
    };
    // The two words in memory order, as the ABI defines it.
    let mut words = [String::new(), String::new()];
    words[RECORD_CLOCK_WORD] = lo;
    words[RECORD_TAG_WORD] = tag;
    let undef = b.def("llvm.mlir.poison : vector<2xi32>");
    let i0 = b.c32(0);
    let i1 = b.c32(1);
    let v = b.def(format!(
        "llvm.insertelement {}, {undef}[{i0} : i32] : vector<2xi32>",
        words[0]
    ));
    let v = b.def(format!(
        "llvm.insertelement {}, {v}[{i1} : i32] : vector<2xi32>",
        words[1]
    ));
    let go = if in_place {
        let cap = b.c32(cfg.global_slots as i64);
        let room = b.def(format!("llvm.icmp \"ult\" {n}, {cap} : i32"));
        b.def(format!("llvm.and {rec}, {room} : i1"))
    } else {
        rec.to_string()
    };
    let flushes = cfg.strategy == Strategy::Flush && !in_place;
    if flushes || matches!(cfg.target, Target::Amdgpu { .. }) {
        b.line(format!("scf.if {go} {{"));
        b.store(&v, "vector<2xi32>", &p, seg_ty, 8);
        if flushes {
            flush_if_full(b, cfg, &n, &mask, unit);
        }
        b.line("}");
    } else if cfg.host_ring() && !in_place {
        // The host's ring is the thread's own stack array, written whether
        // or not the CTA records: finalize copies nothing out of one that
        // does not.
        b.store(&v, "vector<2xi32>", &p, seg_ty, 8);
    } else {
        // A masked store, not a branch: one `scf.if` per record made a
        // block of 2000 records take 18 s and 3.65 GB to lower on the host
        // (MLIR's scf-to-cf splits the block at each, copying the rest).
        let none = b.def("llvm.mlir.poison : vector<2xi1>");
        let i0 = b.c32(0);
        let one = b.def(format!(
            "llvm.insertelement {go}, {none}[{i0} : i32] : vector<2xi1>"
        ));
        let mask = b.def(format!(
            "llvm.shufflevector {one}, {none} [0, 0] : vector<2xi1>"
        ));
        b.line(format!(
            "llvm.intr.masked.store {v}, {p}, {mask} {{alignment = 8 : i32}} : vector<2xi32>, vector<2xi1> into {seg_ty}"
        ));
    }
    count_record(b, cfg, &n);
}

/// The flush strategy with a global buffer: records go straight to their
/// unit's global segment, the first `global_slots` of them, and later ones
/// are dropped. A staging ring in global memory, copied to the segment
/// when full, would only cost time; and placed at the segments' own
/// offsets (as it once was, `slots` apart where segments are
/// `global_slots` apart), sixteen threads' rings sat inside unit 0's
/// segment and overwrote its records, with no record counted lost.
pub fn flushes_in_place(strategy: Strategy, buffer: BufferKind) -> bool {
    strategy == Strategy::Flush && buffer == BufferKind::Global
}

/// The ring counter update, shared by every form of the record store.
fn count_record(b: &mut Body, cfg: &LoweringConfig, n: &str) {
    let one = b.c32(1);
    let n1 = b.def(format!("llvm.add {n}, {one} : i32"));
    b.store(&n1, "i32", "%cnt", cfg.cnt_ptr(), 4);
}

/// Flush strategy: when the record just stored filled the shared segment,
/// the leader writes the whole segment through to its global segment at
/// chunk `n / slots`, while the global segment has room.
fn flush_if_full(b: &mut Body, cfg: &LoweringConfig, n: &str, mask: &str, unit: UnitRefs) {
    let slot = b.def(format!("llvm.and {n}, {mask} : i32"));
    let full = b.def(format!("llvm.icmp \"eq\" {slot}, {mask} : i32"));
    let chunk_first = b.def(format!("llvm.sub {n}, {mask} : i32"));
    let cap = b.c32(cfg.global_slots as i64);
    let room = b.def(format!("llvm.icmp \"ult\" {chunk_first}, {cap} : i32"));
    let go = b.def(format!("llvm.and {full}, {room} : i1"));
    b.line(format!("scf.if {go} {{"));
    let full_count = b.c32(cfg.slots as i64);
    copy_segment(b, cfg, unit, &chunk_first, &full_count);
    b.line("}");
}

/// Copy `count` records (an i32 SSA value) of this unit's shared segment to
/// its global segment, starting at global record `first`. Used when a ring
/// fills (flush) and for the partly filled last chunk at finalize.
/// `unit` names the unit's CTA block, segment index and shared segment.
fn copy_segment(b: &mut Body, cfg: &LoweringConfig, unit: UnitRefs, first: &str, count: &str) {
    let (g, seg_ty) = (cfg.gptr(), cfg.seg_ptr());
    let UnitRefs { blk, unit_idx, seg } = unit;
    let layout = kperf_dialects::abi::Layout {
        units: cfg.units,
        slots: cfg.global_slots,
    };
    let recs = b.gep(blk, g, layout.records_offset());
    let gseg_bytes = b.c64(cfg.global_slots as i64 * RECORD_SIZE as i64);
    let u64_ = b.def(format!("llvm.zext {unit_idx} : i32 to i64"));
    let uoff = b.def(format!("llvm.mul {u64_}, {gseg_bytes} : i64"));
    let gseg = b.def(format!(
        "llvm.getelementptr {recs}[{uoff}] : ({g}, i64) -> {g}, i8"
    ));
    let (lb, st) = (b.c32(0), b.c32(1));
    let i = b.fresh();
    b.line(format!("scf.for {i} = {lb} to {count} step {st} : i32 {{"));
    let sp = b.def(format!(
        "llvm.getelementptr {seg}[{i}] : ({seg_ty}, i32) -> {seg_ty}, i64"
    ));
    let v = b.def(format!(
        "llvm.load {sp} {{alignment = 8 : i64}} : {seg_ty} -> i64"
    ));
    let k = b.def(format!("llvm.add {first}, {i} : i32"));
    let dp = b.def(format!(
        "llvm.getelementptr {gseg}[{k}] : ({g}, i32) -> {g}, i64"
    ));
    b.store(&v, "i64", &dp, g, 8);
    b.line(format!("}} {NO_UNROLL}"));
}

// ---- finalize ---------------------------------------------------------------

/// `kperfgpu.finalize`, run by every thread once, at whichever return it
/// takes. In a recording CTA with a profile buffer (checked once here):
/// thread 0 writes the header (with a shared ring, all of it: the init
/// stamps come from the shared slot thread 0 itself filled), each leader
/// its unit entry and, with a shared ring, copies the records its ring
/// holds to its global segment; thread 0 writes the shape and end stamp
/// last.
///
/// No barrier, and no thread touches another's records: every value a
/// thread writes here it wrote itself earlier (a unit's records are all
/// the leader's). A CTA barrier here would be wrong, not only slow: in a
/// kernel whose threads leave early (`if (i >= n) return;` before a
/// `__syncthreads()`), the leaving threads' `bar.sync 0` pairs with the
/// others' barrier, and a copy-out shared by all threads then copies rings
/// that are still being written (tests/simt/early_exit_barrier shows it).
/// The header's finalize stamps are therefore thread 0's, not the CTA's
/// last thread's.
///
pub fn finalize(cfg: &LoweringConfig) -> String {
    let mut b = Body::new();
    let g = cfg.gptr();
    let seg_ty = cfg.seg_ptr();
    b.opaque_sregs = cfg.target.inline_ptx();
    let st = profile_state(&mut b, cfg);
    b.opaque_sregs = false;
    b.line(format!("scf.if {} {{", st.active));
    // Thread 0 writes the header: on NVPTX with predicated stores (no
    // branch), elsewhere inside one branch. Inside `%active`, thread 0 is
    // the whole condition (`%hdr` would repeat the `%active` test).
    let t = &cfg.target;
    let zero = b.c32(0);
    let t0 = b.def(format!("llvm.icmp \"eq\" {}, {zero} : i32", st.tid));
    let nvptx = t.inline_ptx();
    let pred = if nvptx {
        Some(t0.as_str())
    } else {
        b.line(format!("scf.if {t0} {{"));
        None
    };
    if cfg.buffer == BufferKind::Shared {
        let id = identity_words(&mut b, cfg, &st.cta);
        store_words(&mut b, t, pred, &id, &st.blk, g);
        let slot = b.gep(&st.base, seg_ty, cfg.stamp_offset());
        let stamps = b.def(format!(
            "llvm.load {slot} {{alignment = 16 : i64}} : {seg_ty} -> vector<2xi64>"
        ));
        let (i0, i1) = (b.c32(0), b.c32(1));
        let init_time = b.def(format!(
            "llvm.extractelement {stamps}[{i0} : i32] : vector<2xi64>"
        ));
        let init_clock = b.def(format!(
            "llvm.extractelement {stamps}[{i1} : i32] : vector<2xi64>"
        ));
        store_pair64(
            &mut b,
            t,
            pred,
            H::START_TIME,
            &init_time,
            H::START_CLOCK,
            &init_clock,
            &st.blk,
            g,
        );
    }
    let time = read_globaltimer(&mut b, t);
    let c = read_counter_full(&mut b, cfg);
    store_pair64(
        &mut b,
        t,
        pred,
        H::FINALIZE_START_TIME,
        &time,
        H::FINALIZE_CLOCK,
        &c,
        &st.blk,
        g,
    );
    if pred.is_none() {
        b.line("}");
    }

    // Unit entry {unit id, records written}, by each leader (the CTA is
    // active here).
    b.line(format!("scf.if {} {{", st.leader));
    let n = b.def(format!(
        "llvm.load %cnt {{alignment = 4 : i64}} : {} -> i32",
        cfg.cnt_ptr()
    ));
    let uid = if cfg.sampled_units.is_empty() {
        st.unit_idx.clone()
    } else {
        // segment index → unit id
        let mut id = b.c32(0);
        for (i, u) in cfg.sampled_units.iter().enumerate() {
            let ci = b.c32(i as i64);
            let is = b.def(format!("llvm.icmp \"eq\" {}, {ci} : i32", st.unit_idx));
            let cu = b.c32(*u as i64);
            id = b.def(format!("llvm.select {is}, {cu}, {id} : i1, i32"));
        }
        id
    };
    let n64 = b.def(format!("llvm.zext {n} : i32 to i64"));
    let sh = b.c64(32);
    let n64 = b.def(format!("llvm.shl {n64}, {sh} : i64"));
    let u64_ = b.def(format!("llvm.zext {uid} : i32 to i64"));
    let entry = b.def(format!("llvm.or {u64_}, {n64} : i64"));
    let tab = b.gep(&st.blk, g, CTA_HEADER_SIZE);
    let esz = b.c32(UNIT_ENTRY_SIZE as i64);
    let eoff = b.def(format!("llvm.mul {}, {esz} : i32", st.unit_idx));
    let ep = b.def(format!(
        "llvm.getelementptr {tab}[{eoff}] : ({g}, i32) -> {g}, i8"
    ));
    b.store(&entry, "i64", &ep, g, 8);
    if cfg.strategy == Strategy::Flush && cfg.buffer == BufferKind::Shared {
        // The partly filled last chunk: records [n - n%slots, n) if they fit.
        let mask = b.c32(cfg.slots as i64 - 1);
        let part = b.def(format!("llvm.and {n}, {mask} : i32"));
        let first = b.def(format!("llvm.sub {n}, {part} : i32"));
        let cap = b.c32(cfg.global_slots as i64);
        let room = b.def(format!("llvm.icmp \"ult\" {first}, {cap} : i32"));
        b.line(format!("scf.if {room} {{"));
        let unit = UnitRefs {
            blk: &st.blk,
            unit_idx: &st.unit_idx,
            seg: &st.seg,
        };
        copy_segment(&mut b, cfg, unit, &first, &part);
        b.line("}");
    }
    if cfg.buffer == BufferKind::Shared && cfg.strategy == Strategy::Circular {
        copy_ring(&mut b, cfg, &st, &n);
    }
    b.line("}");

    // The shape and the end stamp, written last by thread 0.
    if !nvptx {
        b.line(format!("scf.if {t0} {{"));
    }
    let shape = shape_value(&mut b, cfg);
    let end = read_globaltimer(&mut b, t);
    store_pair64(
        &mut b,
        t,
        pred,
        H::UNITS,
        &shape,
        H::FINALIZE_END_TIME,
        &end,
        &st.blk,
        g,
    );
    if !nvptx {
        b.line("}");
    }
    b.line("}");
    function("kperf_finalize", &init_args(cfg), b, &[])
}

/// The most 16-byte chunks finalize copies without a loop.
const STRAIGHT_COPY_MAX_CHUNKS: u32 = 8;

/// Chunks to copy without a loop, when the records a thread can write
/// are bounded ([`LoweringConfig::max_records`]) and few: all the slots
/// they can fill, 16-byte aligned (records start 16-aligned and a ring
/// holds an even number).
fn straight_copy_chunks(cfg: &LoweringConfig) -> Option<u32> {
    let records = cfg.max_records?.min(cfg.slots);
    let chunks = records.div_ceil(2);
    (chunks <= STRAIGHT_COPY_MAX_CHUNKS).then_some(chunks)
}

/// Chunks of 16 bytes each trip of the ring copy moves: all loads, then
/// all stores, so that the shared-memory latency is paid once per trip
/// rather than once per chunk (the copy runs in one thread per unit).
const COPY_CHUNKS_PER_TRIP: u64 = 4;

/// Circular + shared, by the unit's leader: copy the slots its ring holds,
/// min(n, slots) records from slot 0, to its global segment, in 16-byte
/// chunks (records start 16-aligned, abi::RECORDS_ALIGN, and a segment holds
/// an even number of 8-byte records). A trip moves
/// [`COPY_CHUNKS_PER_TRIP`] chunks, so up to 7 unused slots of the ring are
/// copied too; readers take only the records the unit entry counts. Only
/// what was written: a kernel of 18 records copies 3 trips, not the ring.
/// Where a thread can write only a few records (none in a cycle), the copy
/// is straight-line instead ([`straight_copy_chunks`]).
fn copy_ring(b: &mut Body, cfg: &LoweringConfig, st: &State, n: &str) {
    let (g, seg_ty) = (cfg.gptr(), cfg.seg_ptr());
    let layout = kperf_dialects::abi::Layout {
        units: cfg.units,
        slots: cfg.global_slots,
    };
    debug_assert_eq!(cfg.global_slots, cfg.slots, "circular: one ring size");
    // Slots are a power of two and even: a trip never runs past the ring.
    let per_trip = COPY_CHUNKS_PER_TRIP.min(cfg.slots as u64 / 2).max(1);
    let recs_per_trip = 2 * per_trip;
    let recs = b.gep(&st.blk, g, layout.records_offset());
    // The segment's offset in 32 bits (a CTA block is far below 4 GiB),
    // widened once: two adds onto the block address instead of 64-bit
    // multiply arithmetic.
    let sbytes = b.c32(cfg.slots as i64 * RECORD_SIZE as i64);
    let soff = b.def(format!("llvm.mul {}, {sbytes} : i32", st.unit_idx));
    let woff = b.def(format!("llvm.zext {soff} : i32 to i64"));
    let dst = b.def(format!(
        "llvm.getelementptr {recs}[{woff}] : ({g}, i64) -> {g}, i8"
    ));
    if let Some(chunks) = straight_copy_chunks(cfg) {
        // Every slot a thread can have written, whatever `n` says: no loop
        // in finalize. In a kernel without loops, one would change how
        // ptxas allocates the whole kernel (Triton's libdevice kernel: 44
        // registers instead of its own 56, and 30 of its 619 instructions
        // different).
        let mut loaded = Vec::new();
        for j in 0..chunks {
            let o = b.c32(16 * j as i64);
            let o = b.def(format!("llvm.add {soff}, {o} : i32"));
            let sp = b.def(format!(
                "llvm.getelementptr {}[{o}] : ({seg_ty}, i32) -> {seg_ty}, i8",
                st.base
            ));
            let v = b.def(format!(
                "llvm.load {sp} {{alignment = 16 : i64}} : {seg_ty} -> vector<2xi64>"
            ));
            loaded.push(v);
        }
        for (j, v) in loaded.iter().enumerate() {
            let dp = b.gep(&dst, g, 16 * j);
            b.store(v, "vector<2xi64>", &dp, g, 16);
        }
        return;
    }
    let slots = b.c32(cfg.slots as i64);
    let full = b.def(format!("llvm.icmp \"ult\" {n}, {slots} : i32"));
    let held = b.def(format!("llvm.select {full}, {n}, {slots} : i1, i32"));
    let round = b.c32(recs_per_trip as i64 - 1);
    let up = b.def(format!("llvm.add {held}, {round} : i32"));
    let shift = b.c32(recs_per_trip.trailing_zeros() as i64);
    let trips = b.def(format!("llvm.lshr {up}, {shift} : i32"));
    let (lb, one) = (b.c32(0), b.c32(1));
    let t = b.fresh();
    b.line(format!("scf.for {t} = {lb} to {trips} step {one} : i32 {{"));
    let k = b.c32(per_trip as i64);
    let first = b.def(format!("llvm.mul {t}, {k} : i32"));
    // The ring's base is added to each trip's offset, not carried in the
    // loop as a pointer: a shared pointer induction variable makes ptxas
    // compute the shared window's base in a vector register, and its CSE
    // moves the kernel's own shared addressing off the uniform datapath
    // (see `profile_state`). LLVM's loop strength reduction would build
    // that pointer again from a visible offset, so on NVPTX the offset
    // passes through an opaque move (which ptxas folds).
    let c16 = b.c32(16);
    let fb = b.def(format!("llvm.mul {first}, {c16} : i32"));
    let o = b.def(format!("llvm.add {soff}, {fb} : i32"));
    let o = if cfg.target.inline_ptx() {
        opaque_int(b, &o, "i32")
    } else {
        o
    };
    let trip_src = b.def(format!(
        "llvm.getelementptr {}[{o}] : ({seg_ty}, i32) -> {seg_ty}, i8",
        st.base
    ));
    let mut chunks = Vec::new();
    for j in 0..per_trip {
        let cj = b.c32(j as i64);
        let i = b.def(format!("llvm.add {first}, {cj} : i32"));
        let sp = b.gep(&trip_src, seg_ty, 16 * j as usize);
        let v = b.def(format!(
            "llvm.load {sp} {{alignment = 16 : i64}} : {seg_ty} -> vector<2xi64>"
        ));
        chunks.push((i, v));
    }
    for (i, v) in chunks {
        let dp = b.def(format!(
            "llvm.getelementptr {dst}[{i}] : ({g}, i32) -> {g}, vector<2xi64>"
        ));
        b.store(&v, "vector<2xi64>", &dp, g, 16);
    }
    b.line(format!("}} {NO_UNROLL}"));
}
