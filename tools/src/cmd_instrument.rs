//! `kperf instrument`.

use anyhow::{Context, Result};
use clap::Args;
use kperf_dialects::abi::{Counter, Strategy};
use kperf_dialects::meta::{BufferKind, Granularity, InstrumentMeta};
use kperf_instrument::options::{parse_cta_sampling, parse_u32_list, FpContract};
use kperf_instrument::{Emit, InstrumentOptions, KperfContext, RegionMode, Target};
use std::path::{Path, PathBuf};

/// Options shared by `instrument` and `run`.
#[derive(Args, Clone, Debug)]
pub struct LoweringArgs {
    /// host | simt | nvptx:sm_XX (sm_80, sm_86, sm_90a, sm_100a, sm_120, ...) | amdgpu:gfxNNN (gfx90a, gfx942, ...)
    #[arg(long, default_value = "nvptx:sm_90a")]
    pub target: String,
    /// Automatic regions, comma-separated: kernel, loops, iterations, async,
    /// ops=<glob> (MLIR), calls=<glob> and asm=<regex> (LLVM IR; write a
    /// comma inside a pattern as \\,). Explicit records (MLIR kperf.record,
    /// kperf.region; LLVM IR markers) are always used.
    #[arg(long, default_value = "")]
    pub regions: String,
    /// clock32 | clock64 | globaltimer (default: clock32; on the SIMT
    /// target clock64: its CPU threads may start hundreds of milliseconds
    /// apart, and a 32-bit clock then wraps between a unit's first record
    /// and thread 0's init stamp)
    #[arg(long)]
    pub counter: Option<String>,
    /// Which threads own one buffer segment: thread | warp | warpgroup | cta
    #[arg(long, default_value = "warp")]
    pub granularity: String,
    /// auto (shared when the rings fit the shared memory the kernel
    /// leaves, else global) | shared (rings in shared memory, copied out at
    /// the end) | global (records stored straight to global memory)
    #[arg(long, default_value = "auto")]
    pub buffer: String,
    /// circular (keep the newest records) | flush (write full segments through, keep the oldest)
    #[arg(long, default_value = "circular")]
    pub strategy: String,
    /// Record slots per unit segment (power of two); default: fit --shared-budget
    #[arg(long)]
    pub slots: Option<u32>,
    /// Global slots per unit for --strategy flush (default 16 × slots): a
    /// multiple of --slots (whole rings are copied); with --buffer global,
    /// where records go straight to the segment, a power of two
    #[arg(long)]
    pub flush_slots: Option<u32>,
    /// Shared-memory bytes the segments may use when --slots is not given
    #[arg(long, default_value_t = 8192)]
    pub shared_budget: u32,
    /// Dynamic shared memory (bytes) the kernel is launched with, so the
    /// default segment size leaves it room
    #[arg(long, default_value_t = 0)]
    pub dynamic_shared: u32,
    /// The launcher opts the kernel in to the device's full shared memory
    /// per block (kperf.triton does). Without it, a Triton kernel whose own
    /// shared memory is at most 48 KiB keeps kperf's rings within the
    /// default 48 KiB, since Triton's launcher opts in only above that
    #[arg(long)]
    pub shared_opt_in: bool,
    /// Threads per CTA (X[,Y,Z]) for kernels that do not say; a kernel that
    /// declares its block (reqntid, known_block_size) must agree, and one
    /// with __launch_bounds__ (maxntid) must allow it. Under `kperf run`
    /// the launch spec's block binds the launched kernel only, so a file
    /// whose kernels run with different blocks is run one kernel at a time
    #[arg(long)]
    pub block: Option<String>,
    /// Record only these units (e.g. 0,4)
    #[arg(long)]
    pub sample_units: Option<String>,
    /// Record only some CTAs: every:<k> or a list of linear CTA ids
    #[arg(long)]
    pub sample_ctas: Option<String>,
    /// LLVM IR: the parameter that receives the profile buffer: auto
    /// (Triton's profile scratch for Triton kernels, else a new trailing
    /// one), append, or a 0-based parameter index
    #[arg(long, default_value = "auto")]
    pub profile_param: String,
    /// Strip the regions the kernel's author placed (LLVM IR region
    /// markers; MLIR kperf.record ops and kperf.region attributes) and
    /// record only the automatic regions (--regions)
    #[arg(long)]
    pub ignore_markers: bool,
    /// LLVM IR: floating-point contraction (FMA fusion) for the plain and
    /// instrumented builds alike: auto (Triton kernels: as Triton's
    /// enable_fp_fusion, default on; others: the IR's own `contract`
    /// flags), fast, or as-written
    #[arg(long, default_value = "auto")]
    pub fp_contract: String,
    /// LLVM IR: replace the input's debug info with one line per
    /// instruction and put kperf's own code in a file of its own (what
    /// `kperf cost` compiles with; for looking at its builds)
    #[arg(long, hide = true)]
    pub line_tags: bool,
    /// MLIR: auto (strict on the host, relaxed on GPUs), relaxed, or
    /// strict: each region's inputs depend on its START record and its
    /// outputs feed its END, so no optimizer moves its work across them
    #[arg(long, default_value = "auto")]
    pub ordering: String,
    /// NVPTX: occupancy (where ptxas would give the instrumented kernel
    /// fewer CTAs per SM than the plain one, cap its registers with
    /// .maxnreg at the most that keep them, unless ptxas then spills more
    /// than the plain build: then warn and keep the registers; needs
    /// ptxas, skipped with a warning without it), occupancy-spill (cap
    /// even if it spills) or free (ptxas chooses)
    #[arg(long, default_value = "occupancy")]
    pub registers: String,
    /// MLIR: passes to run on the input first, in the plain and
    /// instrumented builds alike, as the file's own RUN line runs them
    /// before lowering: e.g. `convert-linalg-to-loops` (host code) or
    /// `transform-interpreter` (a transform schedule, erased afterwards)
    #[arg(long, value_name = "PASSES")]
    pub pre_pipeline: Option<String>,
}

impl LoweringArgs {
    pub fn options(&self) -> Result<InstrumentOptions> {
        let mut o = InstrumentOptions {
            target: Target::parse(&self.target)?,
            regions: RegionMode::parse_list(&self.regions)?,
            ..InstrumentOptions::default()
        };
        let counter = self.counter.as_deref().unwrap_or(
            if matches!(o.target, Target::Nvptx { simt: true, .. }) {
                "clock64"
            } else {
                "clock32"
            },
        );
        o.counter = Counter::from_name(counter).with_context(|| {
            format!("unknown --counter `{counter}` (clock32, clock64, globaltimer)")
        })?;
        o.granularity = Granularity::from_name(&self.granularity).with_context(|| {
            format!(
                "unknown --granularity `{}` (thread, warp, warpgroup, cta)",
                self.granularity
            )
        })?;
        (o.buffer, o.buffer_auto) = match self.buffer.as_str() {
            "auto" => (BufferKind::Shared, true),
            "shared" => (BufferKind::Shared, false),
            "global" => (BufferKind::Global, false),
            b => anyhow::bail!("unknown --buffer `{b}` (auto, shared, global)"),
        };
        o.strategy = Strategy::from_name(&self.strategy)
            .with_context(|| format!("unknown --strategy `{}` (circular, flush)", self.strategy))?;
        o.slots = self.slots;
        o.flush_slots = self.flush_slots;
        o.pre_pipeline = self.pre_pipeline.clone();
        o.shared_budget = self.shared_budget;
        o.dynamic_shared = self.dynamic_shared;
        o.libdevice = kperf_runtime::simt::libdevice::path();
        if self.shared_opt_in {
            o.shared_capacity = o.target.shared_capacity(0);
        }
        if let Some(b) = &self.block {
            let v = parse_u32_list(b, "block dimension")?;
            anyhow::ensure!(
                !v.is_empty() && v.len() <= 3 && v.iter().all(|x| *x > 0),
                "--block takes 1 to 3 positive numbers"
            );
            let mut d = [1u32; 3];
            d[..v.len()].copy_from_slice(&v);
            // As launch specs are held (runtime::spec): segments sized for
            // a block no GPU launches describe nothing.
            let threads: u64 = d.iter().map(|x| *x as u64).product();
            anyhow::ensure!(
                d[2] <= 64,
                "--block {b}: z is {}, and a CTA's z is at most 64",
                d[2]
            );
            anyhow::ensure!(
                threads <= 1024,
                "--block {b} has {threads} threads: a CTA holds at most 1024"
            );
            o.block = Some(d);
        }
        if let Some(u) = &self.sample_units {
            o.sample_units = parse_u32_list(u, "unit id")?;
        }
        if let Some(c) = &self.sample_ctas {
            o.sample_ctas = parse_cta_sampling(c)?;
        }
        o.profile_param = kperf_instrument::options::ProfileParam::parse(&self.profile_param)?;
        o.markers = !self.ignore_markers;
        o.fp_contract = kperf_instrument::options::FpContract::parse(&self.fp_contract)?;
        o.line_tags = self.line_tags;
        o.ordering = kperf_instrument::options::Ordering::parse(&self.ordering)?;
        Ok(o)
    }

    /// `--registers`, parsed.
    pub fn registers(&self) -> Result<kperf_instrument::options::Registers> {
        Ok(kperf_instrument::options::Registers::parse(
            &self.registers,
        )?)
    }
}

#[derive(Args)]
pub struct InstrumentArgs {
    /// Input kernel: .mlir, or LLVM IR (.ll, .llir, .bc)
    pub input: PathBuf,
    /// Output file (default: <input stem>.<ext> beside the input)
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// kperf | kperfgpu | mlir | llvm | bc | ptx | cubin | isa
    #[arg(long)]
    pub emit: Option<String>,
    /// Lower through the same pipeline without instrumenting: the baseline
    /// to compare registers, SASS and timings against
    #[arg(long)]
    pub plain: bool,
    #[command(flatten)]
    pub lowering: LoweringArgs,
}

fn default_emit(t: &Target) -> Emit {
    match t {
        Target::Nvptx { simt: true, .. } => Emit::Llvm,
        Target::Nvptx { .. } => Emit::Ptx,
        Target::Amdgpu { .. } => Emit::Isa,
        Target::Host => Emit::Mlir,
    }
}

fn extension(e: Emit) -> &'static str {
    match e {
        Emit::Kperf | Emit::KperfGpu | Emit::Mlir => "kperf.mlir",
        Emit::Llvm => "ll",
        Emit::Bitcode => "bc",
        Emit::Ptx => "ptx",
        Emit::Cubin => "cubin",
        Emit::Isa => "s",
    }
}

/// Write `bytes` to `path` through a unique temporary file, so an error
/// or interrupt never leaves a half-written output behind (see
/// kperf_runtime::output).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(kperf_runtime::output::write_atomically(path, bytes)?)
}

/// Write two outputs that belong together: both temporaries are written
/// before either replaces its output.
pub fn write_pair(a: &Path, a_bytes: &[u8], b: &Path, b_bytes: &[u8]) -> Result<()> {
    use kperf_runtime::output::AtomicFile;
    use std::io::Write;
    let mut fa = AtomicFile::create(a)?;
    let mut fb = AtomicFile::create(b)?;
    fa.writer().write_all(a_bytes).map_err(|e| fa.error(e))?;
    fb.writer().write_all(b_bytes).map_err(|e| fb.error(e))?;
    fa.commit()?;
    fb.commit()?;
    Ok(())
}

/// Refuse, before any work, an output (or its metadata) that is the input.
fn check_outputs(path: &Path, input: &Path) -> Result<()> {
    use kperf_runtime::output::check_output;
    // The kernel and its metadata are a pair, the metadata beside the
    // kernel: `-o /dev/null` created `/dev/null.kperf.json`.
    if let Ok(m) = std::fs::metadata(path) {
        anyhow::ensure!(
            m.is_file(),
            "-o {}: not a regular file; kperf instrument writes the kernel there and its \
             metadata beside it as {} (name a file)",
            path.display(),
            meta_path(path).display()
        );
    }
    check_output(path, &[("the input", input)])?;
    check_output(&meta_path(path), &[("the input", input)])?;
    Ok(())
}

pub fn meta_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".kperf.json");
    PathBuf::from(s)
}

/// Triton's metadata file beside a dumped kernel (`<stem>.json` next to
/// `<stem>.llir`): its warps and dynamic shared memory size the profile.
pub struct TritonMetadata {
    pub path: PathBuf,
    pub num_warps: u32,
    pub shared: u32,
    /// Triton's `enable_fp_fusion` (absent in old dumps: Triton's default, on).
    pub enable_fp_fusion: bool,
}

pub fn triton_metadata_beside(input: &Path) -> Option<TritonMetadata> {
    let path = input.with_extension("json");
    let v: serde_json::Value =
        serde_json::from_slice(&kperf_runtime::input::read(&path).ok()?).ok()?;
    Some(TritonMetadata {
        num_warps: v.get("num_warps")?.as_u64()? as u32,
        shared: v.get("shared")?.as_u64()? as u32,
        enable_fp_fusion: v
            .get("enable_fp_fusion")
            .and_then(|f| f.as_bool())
            .unwrap_or(true),
        path,
    })
}

/// Shared memory per block without an opt-in; Triton's launcher opts in
/// only for kernels whose own dynamic size exceeds it.
const TRITON_DEFAULT_SHARED: u32 = 48 * 1024;

/// Name the way out when kperf's rings do not fit the 48 KiB Triton's
/// launcher leaves a kernel that does not opt in.
fn triton_shared_hint(e: anyhow::Error, within_triton_default: bool) -> anyhow::Error {
    let shared = matches!(
        e.downcast_ref::<kperf_instrument::InstrumentError>(),
        Some(kperf_instrument::InstrumentError::SharedMemory { .. })
    );
    if shared && within_triton_default {
        e.context(
            "Triton's launcher leaves a kernel with at most 48 KiB of its own shared memory at 48 KiB \
             per block: kperf.triton opts the kernel in itself, and so may your launcher \
             (--shared-opt-in then lets the rings use the device's capacity)",
        )
    } else {
        e
    }
}

/// Size the profile from Triton's metadata beside the input, when there is
/// one (see docs/triton.md).
pub fn apply_triton_metadata(
    input: &Path,
    opts: &mut InstrumentOptions,
    say: bool,
) -> Option<TritonMetadata> {
    let t = triton_metadata_beside(input)?;
    if opts.block.is_none() {
        opts.block = Some([t.num_warps * 32, 1, 1]);
    }
    if opts.dynamic_shared == 0 {
        opts.dynamic_shared = t.shared;
    }
    if opts.fp_contract == FpContract::Auto {
        opts.fp_contract = if t.enable_fp_fusion {
            FpContract::Fast
        } else {
            FpContract::AsWritten
        };
    }
    // Triton opts in to more than 48 KiB of shared memory only when its
    // own dynamic size exceeds 48 KiB (driver.c:loadBinary): below that,
    // ring + dynamic must fit the default 48 KiB, unless the launcher opts
    // in itself (--shared-opt-in, which sets the capacity).
    if t.shared <= TRITON_DEFAULT_SHARED && opts.shared_capacity == 0 {
        opts.shared_capacity = TRITON_DEFAULT_SHARED;
    }
    if say {
        eprintln!(
            "kperf: Triton metadata {}: {} warps, {} bytes of dynamic shared memory",
            t.path.display(),
            t.num_warps,
            t.shared
        );
    }
    Some(t)
}

/// Does this output go on to ptxas (LLVM IR or bitcode for Triton's own
/// ptxas run included), so that a register cap means something?
fn emit_reaches_ptxas(emit: Emit) -> bool {
    matches!(emit, Emit::Llvm | Emit::Bitcode | Emit::Ptx | Emit::Cubin)
}

fn default_llvm_emit(t: &Target) -> Emit {
    match t {
        Target::Nvptx { simt: true, .. } => Emit::Llvm,
        Target::Nvptx { .. } => Emit::Ptx,
        Target::Amdgpu { .. } => Emit::Isa,
        Target::Host => Emit::Llvm,
    }
}

pub fn run(a: InstrumentArgs) -> Result<()> {
    let mut opts = a.lowering.options()?;
    let bytes = kperf_runtime::input::read(&a.input)
        .with_context(|| format!("cannot read {}", a.input.display()))?;
    let file = a.input.display().to_string();
    let kctx = KperfContext::new()?;
    if kperf_instrument::llvm::is_llvm_input(&file, &bytes) {
        return run_llvm(&a, &mut opts, &bytes, &file, &kctx);
    }
    let emit = match &a.emit {
        Some(e) => Emit::parse(e)?,
        None => default_emit(&opts.target),
    };
    let source = String::from_utf8(bytes)
        .with_context(|| format!("{}: not UTF-8 text (MLIR is text)", a.input.display()))?;
    let path = a
        .output
        .clone()
        .unwrap_or_else(|| a.input.with_extension(extension(emit)));
    check_outputs(&path, &a.input)?;
    if a.plain {
        let bytes =
            kperf_instrument::mlir::pipeline::compile_plain(&kctx, &source, &file, &opts, emit)?;
        write_atomically(&path, &bytes)?;
        eprintln!("kperf: wrote {} (not instrumented)", path.display());
        return Ok(());
    }
    if emit_reaches_ptxas(emit) {
        crate::registers::hold_occupancy(
            &kctx,
            source.as_bytes(),
            &file,
            &mut opts,
            a.lowering.registers()?,
            false,
        )?;
    }
    let out = kperf_instrument::instrument(&kctx, &source, &file, &opts, emit)?;
    if emit == Emit::Kperf {
        // Region ids and the buffer layout are fixed by the next stage.
        write_atomically(&path, &out.bytes)?;
        eprintln!(
            "kperf: wrote {} (records only; metadata is written from --emit kperfgpu on)",
            path.display()
        );
        return Ok(());
    }
    report_buffer(&opts, &out.meta);
    report_unrolled(&out.meta);
    report_modes_without_regions(&opts, &out.meta, InputKind::Mlir, None);
    write_with_meta(&path, &out.bytes, &out.meta)
}

/// Name the source loops given the plain build's complete unroll
/// (`InstrumentMeta::unrolled_as_plain`).
pub fn report_unrolled(meta: &InstrumentMeta) {
    if !meta.unrolled_as_plain.is_empty() {
        eprintln!(
            "kperf: unrolled completely, as the plain build unrolls them (the records would \
             have kept them rolled): {}",
            meta.unrolled_as_plain.join(", ")
        );
    }
}

/// Which front door a kernel came in by, for hints that differ.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Mlir,
    Llvm,
}

/// Why `calls=` matched nothing, most often.
const CALLEE_HINT: &str = "no direct call's callee matches (callees are matched by their names \
     in the IR, which C++ mangles: `helper` is `_ZL6helperfi`; write `calls=*helper*`)";

/// Warn, per requested automatic mode, when it found nothing in any
/// instrumented kernel: `--regions kernel,loops` on a kernel whose loops are
/// already branches otherwise gives one region and no word about the loops.
/// (Kernels where every mode found nothing get their own warning.)
pub fn report_modes_without_regions(
    opts: &InstrumentOptions,
    meta: &InstrumentMeta,
    input: InputKind,
    launched: Option<&str>,
) {
    use kperf_dialects::meta::RegionKind;
    for note in &meta.notes {
        eprintln!("kperf: warning: {note}");
    }
    // Under `kperf run`, the launched kernel only: the file's other kernels
    // were named too ("found nothing in `a`, `b`, `c`, `d`").
    let kernels: Vec<&kperf_dialects::meta::KernelMeta> = meta
        .kernels
        .iter()
        .filter(|k| launched.is_none_or(|b| b == k.name))
        .collect();
    if kernels.is_empty() {
        return;
    }
    let has = |kinds: &[RegionKind]| {
        kernels
            .iter()
            .flat_map(|k| &k.regions)
            .any(|r| kinds.contains(&r.kind))
    };
    let has_op = |named: fn(&str) -> bool| {
        kernels
            .iter()
            .flat_map(|k| &k.regions)
            .any(|r| r.kind == RegionKind::Op && named(&r.name))
    };
    let loop_hint = match input {
        InputKind::Mlir => {
            "kperf finds loops as `scf.for`, `scf.while`, `scf.forall`, `scf.parallel` and `affine.for`: a kernel \
             already lowered to `cf`/`llvm` branches has none (instrument before \
             `convert-scf-to-cf`, e.g. with `kperf opt`)"
        }
        InputKind::Llvm => {
            "the kernel has no natural loop of its own: its loops may be in a function it \
             calls (clang's OpenCL kernels call `__clang_ocl_kern_imp_<kernel>`; regions go in \
             kernels, and `--regions calls=<function>` times the call), or be irreducible (a \
             cycle entered at more than one block: kperf records natural loops only)"
        }
    };
    let names: Vec<String> = kernels
        .iter()
        .map(|k| format!("`{}`", crate::shown(&k.name)))
        .collect();
    let kernels = names.join(", ");
    for mode in &opts.regions {
        let (found, what, hint) = match mode {
            RegionMode::Loops => (has(&[RegionKind::Loop]), "loops".to_string(), loop_hint),
            RegionMode::Iterations => (
                has(&[RegionKind::Iteration]),
                "iterations".to_string(),
                loop_hint,
            ),
            RegionMode::Async => (
                has(&[RegionKind::AsyncIssue, RegionKind::AsyncWait]),
                "async".to_string(),
                "no asynchronous copy, TMA or wgmma issue with a wait of its own",
            ),
            // Op regions by what named them (`call:<callee>`, `asm:<token>`,
            // an op's name): `ops=` finding something hid an empty `calls=`.
            // (On LLVM IR `ops=` brackets calls, as `calls=` does.)
            RegionMode::Ops(g) if input == InputKind::Llvm => (
                has_op(|n| n.starts_with("call:")),
                format!("ops={g}"),
                CALLEE_HINT,
            ),
            RegionMode::Ops(g) => (
                has_op(|n| !n.starts_with("call:") && !n.starts_with("asm:")),
                format!("ops={g}"),
                "no op's name matches",
            ),
            RegionMode::Calls(g) => (
                has_op(|n| n.starts_with("call:")),
                format!("calls={g}"),
                CALLEE_HINT,
            ),
            RegionMode::Asm(r) => (
                has_op(|n| n.starts_with("asm:")),
                format!("asm={r}"),
                "no inline asm's text matches",
            ),
            RegionMode::Kernel | RegionMode::Probe(_) => continue,
        };
        if !found {
            eprintln!(
                "kperf: warning: --regions {} found nothing in {kernels}: {hint}",
                crate::shown(&what)
            );
        }
    }
}

/// Say where the records go on a GPU target, and why when `--buffer auto`
/// chose global memory.
pub fn report_buffer(opts: &InstrumentOptions, meta: &InstrumentMeta) {
    if opts.target.is_host() || meta.kernels.is_empty() {
        return;
    }
    match meta.buffer {
        BufferKind::Global if opts.buffer_auto => eprintln!(
            "kperf: profile buffer: global memory (records stored straight to it): the shared-memory \
             rings do not fit what the kernel leaves (--buffer auto; --buffer shared says why)"
        ),
        BufferKind::Global => eprintln!("kperf: profile buffer: global memory (--buffer global)"),
        BufferKind::Shared => eprintln!(
            "kperf: profile buffer: rings in shared memory, copied out at the end{}",
            if opts.buffer_auto { " (--buffer auto)" } else { "" }
        ),
    }
}

/// Write the instrumented kernel and `<path>.kperf.json`. Both are produced
/// before either is written: a failure leaves neither.
/// The kernel ends with a line binding it to the metadata
/// (crate::binding), so a torn or mixed pair is refused when loaded.
pub fn write_with_meta(path: &Path, bytes: &[u8], meta: &InstrumentMeta) -> Result<()> {
    let meta_bytes = serde_json::to_vec_pretty(meta)?;
    let bytes = crate::binding::bind(bytes, &meta_bytes, &path.display().to_string())?;
    write_pair(path, &bytes, &meta_path(path), &meta_bytes)?;
    let regions: usize = meta.kernels.iter().map(|k| k.regions.len()).sum();
    for k in &meta.uninstrumented {
        eprintln!(
            "kperf: warning: the region modes found nothing to record in kernel `{}`: \
             it is left exactly as it was",
            crate::shown(k)
        );
    }
    eprintln!(
        "kperf: wrote {} and {} ({} kernel(s), {} region(s))",
        path.display(),
        meta_path(path).display(),
        meta.kernels.len(),
        regions
    );
    Ok(())
}

/// The LLVM-IR path: same options, same metadata.
fn run_llvm(
    a: &InstrumentArgs,
    opts: &mut InstrumentOptions,
    bytes: &[u8],
    file: &str,
    kctx: &KperfContext,
) -> Result<()> {
    let triton = apply_triton_metadata(&a.input, opts, true);
    let within_triton_default = triton
        .as_ref()
        .is_some_and(|t| t.shared <= TRITON_DEFAULT_SHARED)
        && !a.lowering.shared_opt_in;
    let hint = |e| triton_shared_hint(e, within_triton_default);
    let emit = match &a.emit {
        Some(e) => Emit::parse(e)?,
        None => default_llvm_emit(&opts.target),
    };
    if !a.plain && emit_reaches_ptxas(emit) {
        crate::registers::hold_occupancy(
            kctx,
            bytes,
            file,
            opts,
            a.lowering.registers()?,
            triton.is_some(),
        )
        .map_err(hint)?;
    }
    let path = a.output.clone().unwrap_or_else(|| {
        let ext = extension(emit);
        let ext = if a.plain {
            format!("plain.{ext}")
        } else {
            format!("kperf.{ext}")
        };
        a.input.with_extension(ext)
    });
    check_outputs(&path, &a.input)?;
    let out = kperf_instrument::llvm::instrument_llvm(
        kctx,
        bytes,
        file,
        opts,
        emit,
        a.plain,
        triton.is_some(),
    )
    .map_err(|e| hint(e.into()))?;
    let Some(meta) = out.meta else {
        write_atomically(&path, &out.bytes)?;
        eprintln!("kperf: wrote {} (not instrumented)", path.display());
        return Ok(());
    };
    report_buffer(opts, &meta);
    report_unrolled(&meta);
    report_modes_without_regions(opts, &meta, InputKind::Llvm, None);
    write_with_meta(&path, &out.bytes, &meta)?;
    for k in meta.kernels.iter().filter(|k| k.profile_param.is_some()) {
        eprintln!(
            "kperf: `{}` records into parameter {} (Triton's profile scratch): give it at least {} bytes per program (profile_scratch_size)",
            k.name,
            k.profile_param.unwrap_or(0),
            k.profile_bytes_per_cta
        );
    }
    Ok(())
}
