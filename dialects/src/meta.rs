//! The instrumentation metadata (`<out>.kperf.json`): what a profile's
//! records mean. Written by kperf-instrument, read by the runtime (to launch
//! and size the buffer) and by replay (to name regions).

use crate::abi::{Counter, Layout, RegionId, Strategy, ABI_VERSION};
use serde::{Deserialize, Serialize};

/// Bumped when the JSON shape changes incompatibly.
pub const META_VERSION: u32 = 1;

/// Which threads own one segment; one leader lane of each unit writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    Thread,
    Warp,
    Warpgroup,
    Cta,
}

impl Granularity {
    pub const ALL: [Granularity; 4] = [
        Granularity::Thread,
        Granularity::Warp,
        Granularity::Warpgroup,
        Granularity::Cta,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Thread => "thread",
            Granularity::Warp => "warp",
            Granularity::Warpgroup => "warpgroup",
            Granularity::Cta => "cta",
        }
    }
    pub fn from_name(s: &str) -> Option<Granularity> {
        Granularity::ALL.into_iter().find(|g| g.name() == s)
    }
    /// Threads per unit on NVIDIA (32-thread warps), given the threads per CTA.
    pub fn threads_per_unit(self, cta_threads: u32) -> u32 {
        self.threads_per_unit_with(cta_threads, 32)
    }
    /// Threads per unit with `warp_size`-thread warps (64 on AMD's wave64);
    /// a warp group is four warps, as on Hopper.
    pub fn threads_per_unit_with(self, cta_threads: u32, warp_size: u32) -> u32 {
        match self {
            Granularity::Thread => 1,
            Granularity::Warp => warp_size,
            Granularity::Warpgroup => 4 * warp_size,
            Granularity::Cta => cta_threads.max(1),
        }
    }
    /// Units in a CTA of `cta_threads` threads.
    pub fn units_per_cta(self, cta_threads: u32) -> u32 {
        cta_threads
            .max(1)
            .div_ceil(self.threads_per_unit(cta_threads))
    }
}

/// Where the segments live while the kernel runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    /// Shared memory (a stack buffer on the host target), copied out at finalize.
    Shared,
    /// Straight into the global profile buffer.
    Global,
}

/// How a region was found.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegionKind {
    /// Written by hand as `kperf.record` ops or markers.
    Explicit,
    /// From a `kperf.region` attribute on an op.
    Attribute,
    /// The whole kernel body.
    Kernel,
    /// A whole loop.
    Loop,
    /// One loop iteration (one instance per iteration).
    Iteration,
    /// An op matched by `ops=<glob>` (or calls/asm in LLVM IR).
    Op,
    /// The issue-to-wait part of an asynchronous operation.
    AsyncIssue,
    /// The wait of an asynchronous operation, measured as CLK2 − CLK1.
    AsyncWait,
}

/// One region of the kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegionMeta {
    pub id: RegionId,
    pub name: String,
    pub kind: RegionKind,
    /// The enclosing region, when this one is nested in it lexically.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<RegionId>,
    /// `file:line:col` of the op the region came from.
    pub location: String,
    /// For an async wait region: the region whose start is CLK1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs_with: Option<RegionId>,
}

/// Which CTAs record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase", tag = "mode", content = "value")]
pub enum CtaSampling {
    #[default]
    All,
    /// CTAs whose linear id is a multiple of k; CTA c writes block c / k.
    Every(u32),
    /// Exactly these linear CTA ids; the i-th listed writes block i.
    List(Vec<u32>),
}

impl CtaSampling {
    /// Whether the CTA of linear id `cta` records.
    pub fn records(&self, cta: u64) -> bool {
        match self {
            CtaSampling::All => true,
            CtaSampling::Every(k) => cta.is_multiple_of((*k).max(1) as u64),
            CtaSampling::List(ids) => ids.iter().any(|i| *i as u64 == cta),
        }
    }
    /// Profile blocks the buffer needs for `grid_ctas` CTAs.
    pub fn blocks(&self, grid_ctas: u64) -> u64 {
        match self {
            CtaSampling::All => grid_ctas,
            CtaSampling::Every(k) => grid_ctas.div_ceil((*k).max(1) as u64),
            CtaSampling::List(ids) => ids.len() as u64,
        }
    }
}

/// One instrumented kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelMeta {
    /// Symbol name, as the runtime launches it.
    pub name: String,
    /// Arguments the kernel had before instrumentation; the profile buffer
    /// pointer follows them (or Triton's profile-scratch argument is used).
    pub original_arg_count: u32,
    /// Threads per CTA the lowering assumed for sizing (x, y, z).
    pub block: [u32; 3],
    /// Unit segments per CTA block and slots per segment in the global buffer.
    pub layout: Layout,
    /// Unit ids that record (empty: all `layout.units` units, in order).
    #[serde(default)]
    pub sampled_units: Vec<u32>,
    #[serde(default)]
    pub cta_sampling: CtaSampling,
    /// The kernel parameter (0-based) that already receives the profile
    /// buffer: Triton's profile-scratch pointer. None: kperf appended its
    /// own parameter after the original ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_param: Option<u32>,
    /// Bytes of profile buffer one recorded CTA (a Triton program) writes,
    /// the layout's CTA stride: what Triton's `profile_scratch_size` must be
    /// at least. Informational; readers use [`Layout`].
    #[serde(default)]
    pub profile_bytes_per_cta: u64,
    /// The register cap the instrumented kernel was built with (NVPTX
    /// `.maxnreg`): the plain kernel's count, so that both run as many
    /// CTAs per SM. None: ptxas chose freely.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_registers: Option<u32>,
    pub regions: Vec<RegionMeta>,
}

/// The whole `.kperf.json` file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstrumentMeta {
    pub meta_version: u32,
    pub abi_version: u32,
    /// `nvptx:sm_90a`, `amdgpu:gfx942`, `host`.
    pub target: String,
    pub counter: Counter,
    pub granularity: Granularity,
    pub buffer: BufferKind,
    pub strategy: Strategy,
    /// Shared-memory slots per unit (the ring); equals `layout.slots` for circular.
    pub shared_slots: u32,
    pub kernels: Vec<KernelMeta>,
    /// Kernels in which the region modes found nothing to record: left
    /// exactly as they were (no init, finalize or profile parameter).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub uninstrumented: Vec<String>,
    /// Source file the kernel came from.
    #[serde(default)]
    pub source: String,
    /// SHA-256 of the source text, hex: `kperf annotate` checks the file it
    /// writes figures onto is the one that was profiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_sha256: Option<String>,
    /// Source loops (`file:line:col`) the plain build unrolls completely
    /// and the records would have kept rolled: given LLVM's unroll pragma,
    /// they are unrolled completely in the instrumented build too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrolled_as_plain: Vec<String>,
    /// What the build could not do as asked and the user should hear
    /// (a region attribute outside any kernel); not saved.
    #[serde(skip)]
    pub notes: Vec<String>,
}

impl InstrumentMeta {
    /// `None` when these kernels write the buffer ABI this build reads;
    /// otherwise what to tell the user.
    pub fn abi_mismatch(&self) -> Option<String> {
        (self.abi_version != u32::from(ABI_VERSION)).then(|| {
            format!(
                "the kernel was instrumented for profile-buffer ABI {}, this build reads ABI {}: \
                 instrument it again with this kperf",
                self.abi_version, ABI_VERSION
            )
        })
    }

    pub fn new_header(
        target: &str,
        counter: Counter,
        granularity: Granularity,
        buffer: BufferKind,
        strategy: Strategy,
    ) -> Self {
        InstrumentMeta {
            meta_version: META_VERSION,
            abi_version: ABI_VERSION.into(),
            target: target.to_string(),
            counter,
            granularity,
            buffer,
            strategy,
            shared_slots: 0,
            kernels: Vec::new(),
            uninstrumented: Vec::new(),
            source: String::new(),
            source_sha256: None,
            unrolled_as_plain: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelMeta> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

impl KernelMeta {
    /// An entry for `name` with `regions`, recorded by every unit and CTA
    /// into kperf's own appended parameter: what synthetic profiles, tests
    /// and benchmarks describe (the lowerings fill in the rest).
    pub fn new(
        name: &str,
        block: [u32; 3],
        layout: Layout,
        regions: Vec<RegionMeta>,
    ) -> KernelMeta {
        KernelMeta {
            name: name.into(),
            original_arg_count: 0,
            block,
            layout,
            sampled_units: Vec::new(),
            cta_sampling: CtaSampling::All,
            profile_param: None,
            profile_bytes_per_cta: layout.cta_stride() as u64,
            max_registers: None,
            regions,
        }
    }

    pub fn region(&self, id: RegionId) -> Option<&RegionMeta> {
        self.regions.iter().find(|r| r.id == id)
    }
    /// Bytes of global profile buffer one launch of `grid_ctas` CTAs needs.
    pub fn buffer_bytes(&self, grid_ctas: u64) -> u64 {
        self.cta_sampling.blocks(grid_ctas) * self.layout.cta_stride() as u64
    }
    /// [`KernelMeta::buffer_bytes`] with overflow checked, for metadata
    /// and grids from untrusted files.
    pub fn checked_buffer_bytes(&self, grid_ctas: u64) -> Option<u64> {
        self.cta_sampling
            .blocks(grid_ctas)
            .checked_mul(self.layout.checked_cta_stride()? as u64)
    }
}

/// Characters a name must not carry to a terminal: control characters,
/// and the bidirectional overrides and isolates that make text display in
/// an order other than the one it is stored in.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Refuse a name (`what`) that holds [`is_unsafe_char`]s, showing it
/// escaped: for names kperf's own inputs introduce, where nothing but a
/// printable name makes sense.
pub fn refuse_unsafe_name(what: &str, text: &str) -> Result<(), String> {
    if !text.chars().any(is_unsafe_char) {
        return Ok(());
    }
    Err(format!(
        "{what} `{}` holds control characters (escape sequences, newlines, tabs) or \
         bidirectional overrides: names are printed in tables and on the terminal, use \
         printable text",
        displayable_name(text, 256).unwrap_or_default()
    ))
}

/// `text` made fit to show as one line of a terminal, a table or a trace:
/// control characters (newline and tab included, C1 too) written as
/// `\x1b`-style escapes, and the result cut to at most `max_bytes` bytes
/// at a character boundary with `…` appended. `None` when `text` needs
/// neither. Names come from IR and profiles kperf did not write; one with
/// an escape sequence must not drive the terminal, one with a newline must
/// not forge a line of a report.
pub fn displayable_name(text: &str, max_bytes: usize) -> Option<String> {
    let has_control = text.chars().any(is_unsafe_char);
    if !has_control && text.len() <= max_bytes {
        return None;
    }
    let mut out = String::with_capacity(text.len().min(max_bytes) + 4);
    let mut buf = [0u8; 4];
    for c in text.chars() {
        let escaped;
        let piece: &str = if c.is_control() {
            escaped = format!("\\x{:02x}", c as u32);
            &escaped
        } else if is_unsafe_char(c) {
            escaped = format!("\\u{{{:04x}}}", c as u32);
            &escaped
        } else {
            c.encode_utf8(&mut buf)
        };
        if out.len() + piece.len() > max_bytes {
            out.push('…');
            return Some(out);
        }
        out.push_str(piece);
    }
    Some(out)
}

#[cfg(test)]
mod displayable_name_tests {
    use super::displayable_name;

    #[test]
    fn control_characters_are_escaped_and_long_names_cut() {
        let cases: [(&str, usize, Option<&str>); 6] = [
            ("matmul", 256, None),
            ("ev\u{1b}[31mIL\u{7}", 256, Some("ev\\x1b[31mIL\\x07")),
            (
                "a\nFAKE LINE\t\u{9b}2J",
                256,
                Some("a\\x0aFAKE LINE\\x09\\x9b2J"),
            ),
            ("abcdef", 4, Some("abcd…")),
            ("ab\u{202e}cd", 256, Some("ab\\u{202e}cd")),
            ("é\u{1b}", 3, Some("é…")),
        ];
        for (text, max, want) in cases {
            assert_eq!(displayable_name(text, max).as_deref(), want, "{text:?}");
        }
    }
}
