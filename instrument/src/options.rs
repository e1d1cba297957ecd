//! What the user asked for: target, region modes and lowering options.

use crate::error::{InstrumentError, Result};
use kperf_dialects::abi::{Counter, Strategy};
use kperf_dialects::meta::{BufferKind, CtaSampling, Granularity};

/// Where the instrumented kernel runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// NVIDIA, through NVVM; `chip` like `sm_90a`. `simt`: lowered for the
    /// SIMT host target (`kperf run --target simt`), which runs the NVPTX
    /// LLVM IR on the CPU with every thread of a block: the same lowering,
    /// except that records are plain predicated stores instead of inline
    /// PTX, and nothing is assembled.
    Nvptx { chip: String, simt: bool },
    /// AMD, through ROCDL; `chip` like `gfx942`.
    Amdgpu { chip: String },
    /// The CPU, through the MLIR ExecutionEngine: one thread per CTA.
    Host,
}

/// The NVPTX chips LLVM 22 knows, each with the oldest PTX ISA version
/// LLVM accepts for it (`llc -mcpu=<chip> -mattr=+ptx<v>` on an empty
/// kernel, lowest v that does not stop with "PTX version … does not support
/// target"). A chip LLVM does not know was written into the PTX as given and
/// ptxas refused it later, or stopped LLVM's instruction selection with an
/// abort; a PTX version below the chip's minimum stopped LLVM with an error
/// (Triton's `.llir` names no version: sm_86, sm_87 and sm_120 failed).
pub const NVPTX_CHIPS: &[(&str, u32)] = &[
    ("sm_20", 32),
    ("sm_21", 32),
    ("sm_30", 32),
    ("sm_32", 40),
    ("sm_35", 32),
    ("sm_37", 41),
    ("sm_50", 40),
    ("sm_52", 41),
    ("sm_53", 42),
    ("sm_60", 50),
    ("sm_61", 50),
    ("sm_62", 50),
    ("sm_70", 60),
    ("sm_72", 61),
    ("sm_75", 63),
    ("sm_80", 70),
    ("sm_86", 71),
    ("sm_87", 74),
    ("sm_88", 90),
    ("sm_89", 78),
    ("sm_90", 78),
    ("sm_90a", 80),
    ("sm_100", 86),
    ("sm_100a", 86),
    ("sm_100f", 88),
    ("sm_101", 86),
    ("sm_101a", 86),
    ("sm_101f", 88),
    ("sm_103", 88),
    ("sm_103a", 88),
    ("sm_103f", 88),
    ("sm_110", 90),
    ("sm_110a", 90),
    ("sm_110f", 90),
    ("sm_120", 87),
    ("sm_120a", 87),
    ("sm_120f", 88),
    ("sm_121", 88),
    ("sm_121a", 88),
    ("sm_121f", 88),
];

/// The AMDGPU processors LLVM 22 knows (`llc -march=amdgcn -mcpu=help`),
/// by their gfx names.
pub const AMDGPU_CHIPS: &[&str] = &[
    "gfx600", "gfx601", "gfx602", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705",
    "gfx801", "gfx802", "gfx803", "gfx805", "gfx810", "gfx900", "gfx902", "gfx904", "gfx906",
    "gfx908", "gfx909", "gfx90a", "gfx90c", "gfx942", "gfx950", "gfx1010", "gfx1011", "gfx1012",
    "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
    "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
    "gfx1200", "gfx1201", "gfx1250", "gfx1251",
];

/// The number of an NVPTX chip: 90 for `sm_90a`, 100 for `sm_100f`.
pub fn sm_number(chip: &str) -> Option<u32> {
    chip.strip_prefix("sm_")?
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .ok()
}

/// The oldest PTX ISA version LLVM 22 accepts for NVPTX `chip` (8.0 for
/// a chip it does not know; [`Target::parse`] refuses those).
pub fn nvptx_min_ptx(chip: &str) -> u32 {
    NVPTX_CHIPS
        .iter()
        .find(|(c, _)| *c == chip)
        .map_or(80, |(_, v)| *v)
}

impl Target {
    pub fn parse(s: &str) -> Result<Target> {
        let (kind, chip) = s.split_once(':').unwrap_or((s, ""));
        let unknown_chip = |known: String| {
            InstrumentError::Option(format!(
                "unknown chip `{chip}` in --target {s}: LLVM 22 knows {known}"
            ))
        };
        match kind {
            "host" | "simt" if !chip.is_empty() => Err(InstrumentError::Option(format!(
                "--target {s}: the {kind} target takes no chip (`--target {kind}`)"
            ))),
            "host" => Ok(Target::Host),
            "nvptx" | "cuda" | "amdgpu" | "rocm" if s.ends_with(':') => Err(InstrumentError::Option(
                format!("--target {s}: name the chip after the colon, or leave the colon out for the default"),
            )),
            "nvptx" | "cuda" => {
                let chip = if chip.is_empty() { "sm_90a" } else { chip };
                if !NVPTX_CHIPS.iter().any(|(c, _)| *c == chip) {
                    let known: Vec<&str> = NVPTX_CHIPS.iter().map(|(c, _)| *c).collect();
                    return Err(unknown_chip(known.join(", ")));
                }
                Ok(Target::Nvptx {
                    chip: chip.into(),
                    simt: false,
                })
            }
            "simt" => Ok(Target::simt()),
            "amdgpu" | "rocm" => {
                let chip = if chip.is_empty() { "gfx942" } else { chip };
                if !AMDGPU_CHIPS.contains(&chip) {
                    return Err(unknown_chip(AMDGPU_CHIPS.join(", ")));
                }
                Ok(Target::Amdgpu { chip: chip.into() })
            }
            _ => Err(InstrumentError::Option(format!(
                "unknown target `{s}` (expected host, simt, nvptx:sm_XX or amdgpu:gfxNNN)"
            ))),
        }
    }
    /// The PTX ISA version kperf compiles for: the chip's minimum in LLVM
    /// 22, and at least 8.0 (the MLIR pipeline's) or, from Hopper on, 8.6
    /// (Triton's inline asm uses `.shared::cta` destinations of
    /// cp.async.bulk.tensor, which need it; CUDA 12.8 drivers JIT it).
    /// None off NVPTX.
    pub fn ptx_version(&self) -> Option<u32> {
        let Target::Nvptx { chip, .. } = self else {
            return None;
        };
        let min = nvptx_min_ptx(chip);
        let hopper = sm_number(chip).is_some_and(|n| n >= 90);
        Some(min.max(if hopper { 86 } else { 70 }))
    }
    pub fn name(&self) -> String {
        match self {
            Target::Nvptx { simt: true, .. } => "simt".into(),
            Target::Nvptx { chip, .. } => format!("nvptx:{chip}"),
            Target::Amdgpu { chip } => format!("amdgpu:{chip}"),
            Target::Host => "host".into(),
        }
    }
    /// The SIMT host target's lowering: NVPTX for sm_90 without inline PTX.
    pub fn simt() -> Target {
        Target::Nvptx {
            chip: "sm_90".into(),
            simt: true,
        }
    }
    /// Lowered for the SIMT host target (see [`Target::Nvptx`]).
    pub fn is_simt(&self) -> bool {
        matches!(self, Target::Nvptx { simt: true, .. })
    }
    /// Records may be written with inline PTX: NVPTX code that ptxas assembles.
    pub fn inline_ptx(&self) -> bool {
        matches!(self, Target::Nvptx { simt: false, .. })
    }
    /// The host runs one thread per CTA.
    pub fn is_host(&self) -> bool {
        matches!(self, Target::Host)
    }
    /// Shared memory a CTA may use on this target (bytes); `given` wins when non-zero.
    pub fn shared_capacity(&self, given: u32) -> u32 {
        if given != 0 {
            return given;
        }
        match self {
            Target::Nvptx { chip, .. } => match sm_number(chip) {
                Some(90 | 100 | 103) => 227 * 1024,
                Some(80 | 87) => 163 * 1024,
                Some(86 | 89 | 120) => 99 * 1024,
                _ => 48 * 1024,
            },
            Target::Amdgpu { .. } => 64 * 1024,
            Target::Host => u32::MAX,
        }
    }
    /// Threads per warp (wavefront): 64 on AMD's CDNA (wave64), 32 on NVIDIA.
    pub fn warp_size(&self) -> u32 {
        match self {
            Target::Amdgpu { .. } => 64,
            _ => 32,
        }
    }
    /// Threads per unit of `g` for a CTA of `cta_threads` threads.
    pub fn unit_threads(&self, g: kperf_dialects::meta::Granularity, cta_threads: u32) -> u32 {
        if self.is_host() {
            1
        } else {
            g.threads_per_unit_with(cta_threads, self.warp_size())
        }
    }
}

/// Automatic region discovery, combinable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionMode {
    Kernel,
    Loops,
    Iterations,
    /// Bracket every op whose name matches the glob.
    Ops(String),
    /// LLVM IR: bracket every direct call whose callee matches the glob.
    Calls(String),
    /// LLVM IR: bracket every inline asm whose text matches the regex.
    Asm(String),
    /// `n` nested empty regions at the kernel's entry (2n records in
    /// straight-line code): what `kperf cost` measures a record's cost with.
    Probe(u32),
    Async,
}

impl RegionMode {
    /// Parse `kernel,loops,ops=nvvm.wgmma.*,async`. A comma inside a
    /// pattern is written `\,`.
    pub fn parse_list(s: &str) -> Result<Vec<RegionMode>> {
        let mut out = Vec::new();
        let mut items: Vec<String> = vec![String::new()];
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&',') => {
                    chars.next();
                    items.last_mut().expect("non-empty").push(',');
                }
                ',' => items.push(String::new()),
                c => items.last_mut().expect("non-empty").push(c),
            }
        }
        for item in items.iter().map(|x| x.trim()).filter(|x| !x.is_empty()) {
            if let Some(glob) = item.strip_prefix("calls=").filter(|g| !g.is_empty()) {
                out.push(RegionMode::Calls(glob.to_string()));
                continue;
            }
            if let Some(n) = item.strip_prefix("probe=") {
                let n = n.parse().map_err(|_| {
                    InstrumentError::Option(format!("probe=<n>: `{n}` is not a count"))
                })?;
                out.push(RegionMode::Probe(n));
                continue;
            }
            if let Some(re) = item.strip_prefix("asm=").filter(|g| !g.is_empty()) {
                out.push(RegionMode::Asm(re.to_string()));
                continue;
            }
            out.push(match item {
                "kernel" => RegionMode::Kernel,
                "loops" => RegionMode::Loops,
                "iterations" => RegionMode::Iterations,
                "async" => RegionMode::Async,
                "explicit" | "none" => continue,
                _ => match item.strip_prefix("ops=") {
                    Some(glob) if !glob.is_empty() => RegionMode::Ops(glob.to_string()),
                    _ => {
                        return Err(InstrumentError::Option(format!(
                            "unknown region mode `{item}` (expected kernel, loops, iterations, async, ops=<glob>, calls=<glob>, asm=<regex>)"
                        )))
                    }
                },
            });
        }
        Ok(out)
    }
}

/// How far to lower; each stage is a readable, re-loadable artifact.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    /// `kperf.record` ops inserted, nothing lowered.
    Kperf,
    /// Lowered to the GPU-level `kperfgpu` ops.
    KperfGpu,
    /// Lowered to LLVM/NVVM/ROCDL dialects (before upstream lowering).
    Mlir,
    /// LLVM IR text of the device module (host: the whole module).
    Llvm,
    /// LLVM bitcode (LLVM-IR input only).
    Bitcode,
    /// PTX text.
    Ptx,
    /// cubin via ptxas.
    Cubin,
    /// AMDGPU ISA text.
    Isa,
}

impl Emit {
    pub fn parse(s: &str) -> Result<Emit> {
        Ok(match s {
            "kperf" => Emit::Kperf,
            "kperfgpu" => Emit::KperfGpu,
            "mlir" => Emit::Mlir,
            "llvm" | "ll" => Emit::Llvm,
            "bc" | "bitcode" => Emit::Bitcode,
            "ptx" => Emit::Ptx,
            "cubin" => Emit::Cubin,
            "isa" => Emit::Isa,
            _ => {
                return Err(InstrumentError::Option(format!(
                    "unknown --emit `{s}` (kperf, kperfgpu, mlir, llvm, bc, ptx, cubin, isa)"
                )))
            }
        })
    }
}

/// Which kernel parameter receives the profile buffer (LLVM-IR input).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ProfileParam {
    /// Triton's profile-scratch parameter for Triton kernels, else a new one.
    #[default]
    Auto,
    /// Always a new trailing parameter.
    Append,
    /// This existing parameter (0-based).
    Index(u32),
}

impl ProfileParam {
    pub fn parse(s: &str) -> Result<ProfileParam> {
        match s {
            "auto" => Ok(ProfileParam::Auto),
            "append" | "new" => Ok(ProfileParam::Append),
            n => n.parse().map(ProfileParam::Index).map_err(|_| {
                InstrumentError::Option(format!(
                    "--profile-param `{s}`: expected auto, append or a parameter index"
                ))
            }),
        }
    }
}

/// Floating-point contraction (fusing a multiply and an add into an FMA)
/// for LLVM-IR input, so the plain and instrumented builds compile the way
/// the source's own compiler does: Triton fuses unless its
/// `enable_fp_fusion` is off (it sets LLVM's `AllowFPOpFusion = Fast`
/// instead of marking the IR), clang CUDA marks the IR itself (`contract`
/// flags, from its default `-ffp-contract=fast`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum FpContract {
    /// Triton kernels (by their producer or the metadata beside them): as
    /// `enable_fp_fusion` says, on by default; anything else: as written.
    #[default]
    Auto,
    /// Every floating-point add, subtract, multiply and negate may fuse.
    Fast,
    /// The IR's own flags.
    AsWritten,
}

impl FpContract {
    pub fn parse(s: &str) -> Result<FpContract> {
        match s {
            "auto" => Ok(FpContract::Auto),
            "fast" | "on" => Ok(FpContract::Fast),
            "as-written" | "off" => Ok(FpContract::AsWritten),
            _ => Err(InstrumentError::Option(format!(
                "--fp-contract `{s}`: expected auto, fast or as-written"
            ))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            FpContract::Auto => "auto",
            FpContract::Fast => "fast",
            FpContract::AsWritten => "as-written",
        }
    }
}

/// Whether records are ordered with the work they measure by data
/// dependences (see `mlir::pin`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Ordering {
    /// Strict on the host (LLVM moved a loop iteration's work out of its
    /// records there), relaxed on GPUs (ptxas keeps program order around
    /// its clock reads).
    #[default]
    Auto,
    /// No dependences: the back end may schedule work across records.
    Relaxed,
    /// Each single-block region's inputs depend on its START and its
    /// outputs feed its END.
    Strict,
}

impl Ordering {
    pub fn parse(s: &str) -> Result<Ordering> {
        match s {
            "auto" => Ok(Ordering::Auto),
            "relaxed" => Ok(Ordering::Relaxed),
            "strict" => Ok(Ordering::Strict),
            _ => Err(InstrumentError::Option(format!(
                "--ordering `{s}`: expected auto, relaxed or strict"
            ))),
        }
    }
    /// Is it strict for `target`?
    pub fn strict_for(self, target: &Target) -> bool {
        match self {
            Ordering::Auto => target.is_host(),
            Ordering::Relaxed => false,
            Ordering::Strict => true,
        }
    }
}

/// Whether the instrumented kernel's registers are capped to keep the
/// plain kernel's occupancy (NVPTX; see [`crate::registers`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Registers {
    /// Cap a kernel (`.maxnreg`) only where ptxas would otherwise give the
    /// instrumented build fewer CTAs per SM than the plain one, and only
    /// where the capped build spills no more registers to local memory
    /// than the plain one (spills are loads and stores the kernel never
    /// made: then the CTAs are lost instead, and said).
    #[default]
    Occupancy,
    /// Cap to keep the CTAs per SM even where ptxas then spills.
    OccupancySpill,
    /// Let ptxas choose.
    Free,
}

impl Registers {
    pub fn parse(s: &str) -> Result<Registers> {
        match s {
            "occupancy" => Ok(Registers::Occupancy),
            "occupancy-spill" => Ok(Registers::OccupancySpill),
            "free" => Ok(Registers::Free),
            _ => Err(InstrumentError::Option(format!(
                "--registers `{s}`: expected occupancy, occupancy-spill or free"
            ))),
        }
    }
}

/// Every knob of the lowering.
#[derive(Clone, Debug)]
pub struct InstrumentOptions {
    pub target: Target,
    pub regions: Vec<RegionMode>,
    pub counter: Counter,
    pub granularity: Granularity,
    pub buffer: BufferKind,
    /// `--buffer auto`: with `buffer` shared, record into global memory
    /// instead when the rings do not fit the shared memory the kernel leaves
    /// ([`crate::plan::with_buffer_choice`]).
    pub buffer_auto: bool,
    pub strategy: Strategy,
    /// Record slots per unit segment (a power of two); None: fit the budget.
    pub slots: Option<u32>,
    /// Global slots per unit for the flush strategy; None: 16 × shared slots.
    pub flush_slots: Option<u32>,
    /// Threads per CTA when the IR does not say (gpu.launch constants and
    /// `known_block_size` take precedence).
    pub block: Option<[u32; 3]>,
    /// The kernel `block` is the launch's block of (`kperf run`'s spec):
    /// other kernels of the file keep the block they declare, where the
    /// given one would disagree. None: `block` is for every kernel. On the
    /// LLVM-IR path only this kernel is instrumented (the one `kperf run`
    /// launches).
    pub block_kernel: Option<String>,
    /// MLIR: copy every constant a `gpu.launch` body uses into it before
    /// outlining, scalars too (`kperf run`: the spec gives the host
    /// function's arguments); otherwise only vector and tensor constants.
    pub sink_constants: bool,
    /// Shared memory the segments may use when `slots` is not given, bytes.
    pub shared_budget: u32,
    /// Shared memory per CTA the device has; 0: from the target chip.
    pub shared_capacity: u32,
    /// Dynamic shared memory the kernel is launched with, bytes.
    pub dynamic_shared: u32,
    /// Units that record (empty: all).
    pub sample_units: Vec<u32>,
    pub sample_ctas: CtaSampling,
    /// LLVM-IR input: where the profile pointer comes from.
    pub profile_param: ProfileParam,
    /// Record the regions the kernel's author placed (true): region
    /// markers in LLVM IR, explicit `kperf.record` ops and `kperf.region`
    /// attributes in MLIR. False strips them and records only the automatic
    /// regions: what `kperf cost` measures init and finalize with, so
    /// records that markers put in loops are not counted as fixed cost.
    pub markers: bool,
    /// LLVM-IR input: floating-point contraction for every build.
    pub fp_contract: FpContract,
    /// LLVM-IR input, for `kperf cost` only: give every instruction of the
    /// input a line of its own (LLVM's `debugify`, replacing the input's
    /// debug info) and kperf's own code lines in the file
    /// [`crate::llvm::TAG_FILE`], so that the SASS's line table tells the
    /// kernel's instructions from the instrumentation's. MLIR input keeps
    /// its own locations as the line table instead, kperf's ops located in
    /// the templates they come from (`<kperf template ...>`).
    pub line_tags: bool,
    /// libdevice (`libdevice.10.bc`) to link into MLIR NVPTX builds whose
    /// kernels use the `math` dialect or call `__nv_*` functions (upstream's
    /// serializer links it only from a CUDA toolkit: without one, the PTX
    /// named `__nv_rsqrtf` unresolved and ptxas refused it).
    pub libdevice: Option<std::path::PathBuf>,
    /// LLVM-IR input, for `kperf cost`'s hollow reference: finalize copies
    /// the ring in a loop even where the records a thread can write are
    /// bounded, as it does in a kernel whose copy is a loop.
    pub copy_loop: bool,
    /// MLIR input: tie each region's work to its records.
    pub ordering: Ordering,
    /// Per kernel name, the register cap to give ptxas (NVPTX:
    /// `nvvm.maxnreg`, lowered to `.maxnreg`), never raising one the kernel
    /// has; see [`crate::registers::hold_occupancy`].
    pub register_limits: std::collections::BTreeMap<String, u32>,
    /// LLVM IR on NVPTX: the kernels whose record right before finalize
    /// derives its ring slot there instead of keeping init's live across
    /// the kernel, chosen where that leaves the kernel's own code closer
    /// to the plain build ([`crate::registers::hold_occupancy`]).
    pub derive_exit_slot: std::collections::BTreeSet<String>,
    /// MLIR: passes run on the input right after parsing, in both builds,
    /// as the file's own RUN line runs them before lowering
    /// (`convert-linalg-to-loops` for host code, `transform-interpreter`).
    pub pre_pipeline: Option<String>,
}

impl Default for InstrumentOptions {
    fn default() -> Self {
        InstrumentOptions {
            target: Target::Nvptx {
                chip: "sm_90a".into(),
                simt: false,
            },
            regions: Vec::new(),
            counter: Counter::Clock32,
            granularity: Granularity::Warp,
            buffer: BufferKind::Shared,
            buffer_auto: false,
            strategy: Strategy::Circular,
            slots: None,
            flush_slots: None,
            block: None,
            block_kernel: None,
            sink_constants: false,
            shared_budget: 8 * 1024,
            shared_capacity: 0,
            dynamic_shared: 0,
            sample_units: Vec::new(),
            sample_ctas: CtaSampling::All,
            profile_param: ProfileParam::Auto,
            markers: true,
            fp_contract: FpContract::Auto,
            line_tags: false,
            libdevice: None,
            copy_loop: false,
            ordering: Ordering::Auto,
            register_limits: Default::default(),
            derive_exit_slot: Default::default(),
            pre_pipeline: None,
        }
    }
}

impl InstrumentOptions {
    /// The options as the target can honour them: a host CTA is one
    /// thread, so its only unit is the CTA whatever granularity was asked.
    /// Refuse ring sizes no plan could take, before any kernel is looked
    /// at (a kernel the modes leave untouched must not hide a bad option).
    pub fn validate(&self) -> Result<()> {
        if let Some(s) = self.slots {
            check_ring_slots(s)?;
        }
        if let Some(g) = self.flush_slots {
            check_flush_slots(g)?;
        }
        Ok(())
    }

    pub fn normalized(&self) -> InstrumentOptions {
        let mut o = self.clone();
        if o.target.is_host() {
            o.granularity = Granularity::Cta;
        }
        o
    }
}

/// A ring of `s` slots: a power of two, at least 2, at most `MAX_SLOTS`.
pub(crate) fn check_ring_slots(s: u32) -> Result<()> {
    use crate::plan::MAX_SLOTS;
    if s < 2 || !s.is_power_of_two() {
        return Err(InstrumentError::Option(format!(
            "--slots {s}: the ring needs a power of two, at least 2"
        )));
    }
    if s > MAX_SLOTS {
        return Err(InstrumentError::Option(format!(
            "--slots {s}: at most {MAX_SLOTS} records per unit"
        )));
    }
    Ok(())
}

/// A global segment of `g` records per unit (flush): at most `MAX_SLOTS`.
pub(crate) fn check_flush_slots(g: u32) -> Result<()> {
    use crate::plan::MAX_SLOTS;
    if g > MAX_SLOTS {
        return Err(InstrumentError::Option(format!(
            "--flush-slots {g}: at most {MAX_SLOTS} records per unit (the CTA block would hold {} bytes per unit)",
            g as u64 * 8
        )));
    }
    Ok(())
}

/// Parse `every:4` or `0,3,9` into a CTA sampling.
pub fn parse_cta_sampling(s: &str) -> Result<CtaSampling> {
    if s == "all" {
        return Ok(CtaSampling::All);
    }
    if let Some(k) = s.strip_prefix("every:") {
        let k: u32 = k.parse().map_err(|_| {
            InstrumentError::Option(format!("bad CTA sampling `{s}`: every:<k> needs a number"))
        })?;
        if k == 0 {
            return Err(InstrumentError::Option(
                "CTA sampling every:0 samples nothing".into(),
            ));
        }
        return Ok(CtaSampling::Every(k));
    }
    let ids = parse_u32_list(s, "CTA id")?;
    if ids.is_empty() {
        // `--sample-ctas ""` recorded no CTA and exited 0.
        return Err(InstrumentError::Option(format!(
            "CTA sampling `{s}` names no CTA (all, every:<k>, or a list of ids)"
        )));
    }
    if let Some(dup) = ids
        .iter()
        .enumerate()
        .find(|(i, id)| ids[..*i].contains(id))
    {
        // As --sample-units: a CTA named twice is a typo, not a weight.
        return Err(InstrumentError::Option(format!(
            "CTA sampling `{s}` names CTA {} twice: list each CTA once",
            dup.1
        )));
    }
    Ok(CtaSampling::List(ids))
}

pub fn parse_u32_list(s: &str, what: &str) -> Result<Vec<u32>> {
    s.split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| {
            x.parse()
                .map_err(|_| InstrumentError::Option(format!("bad {what} `{x}` in `{s}`")))
        })
        .collect()
}
