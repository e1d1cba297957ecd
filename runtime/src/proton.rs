//! Importing Proton's host dumps (Triton's intra-kernel profiler).
//!
//! Proton's buffers are the only profiles at hand that real GPUs wrote, so
//! kperf reads them into the same model as its own ([`CtaTrace`], with a
//! synthesised [`RunInfo`]): replay and trace output then prove themselves
//! on hardware data. The layout (tests/fixtures/proton/README.md):
//!
//! ```text
//! host dump v1 (little-endian)
//! +0   u32 × 10  version (1), header offset, header size, payload offset,
//!                payload size, device type (1 CUDA, 2 HIP), CTAs,
//!                units per CTA, per-CTA stride, number of unit ids
//! +40  u32 × n   unit ids (n = number of unit ids = segments per CTA)
//! +payload offset: one block of `stride` bytes per CTA
//!
//! CTA block (u = units per CTA: every warp, recorded or not)
//! +0   u32 preamble 0xDEADBEEF (0: the CTA never wrote, skip it)
//! +4   u32 CTA id        +8  u32 hardware id     +12 u32 data size (bytes)
//! +16  u64 start time    +24 u64 finalize start  +32 u64 finalize end (ns)
//! +40  u32 × u  words written per warp, by warp id (2 per record,
//!               overwritten ones included; 0 for warps not recorded)
//! +40+4u  data: n equal segments, one per recorded unit id in table order,
//!               each a ring of 8-byte records
//! ```
//!
//! With every warp recorded (u = n, ids 0..n) the two readings agree; when
//! Proton records selected warps only, the count table is still one word
//! per warp of the CTA (Triton's `FinalizeOp` lowering writes warp w's
//! count at header + w), while segments exist for the selected warps
//! alone.
//!
//! ```text
//!
//! record: word 0 tag, word 1 clock bits 31..0
//! tag bit 31 end (1) / start (0), bits 30..23 scope id, bits 10..0 clock bits 42..32
//! ```
//!
//! The header-offset and header-size fields are not needed to find
//! anything (the unit-id table follows the ten words, the payload offset is
//! explicit) and are not checked.

use crate::decode::{read_ring, Unwrapper};
use crate::error::RuntimeError;
use crate::kprof::{read_u32, read_u64, slice};
use crate::profile::{CtaTrace, Record, RunInfo, UnitTrace};
use kperf_dialects::abi::{Counter, Edge, Layout, RegionId, Strategy, RECORD_SIZE};
use kperf_dialects::meta::{
    BufferKind, CtaSampling, Granularity, InstrumentMeta, KernelMeta, RegionKind, RegionMeta,
};
use std::path::Path;

/// The host-dump version this build reads.
pub const PROTON_DUMP_VERSION: u32 = 1;
/// First word of a CTA block Proton wrote.
pub const PROTON_PREAMBLE: u32 = 0xDEAD_BEEF;
/// Tag bit 31: set on an end record.
pub const PROTON_TAG_END_BIT: u32 = 1 << 31;
/// Tag bits 30..23: the scope id.
pub const PROTON_SCOPE_SHIFT: u32 = 23;
pub const PROTON_SCOPE_MASK: u32 = 0xFF;
/// Tag bits 10..0: clock bits 42..32.
pub const PROTON_CLOCK_HI_MASK: u32 = 0x7FF;
/// Clock bits a Proton record keeps.
pub const PROTON_CLOCK_BITS: u32 = 43;

/// Byte offsets of the host-dump header words.
mod host {
    pub const VERSION: usize = 0;
    pub const PAYLOAD_OFFSET: usize = 12;
    pub const PAYLOAD_SIZE: usize = 16;
    pub const DEVICE: usize = 20;
    pub const NUM_CTAS: usize = 24;
    pub const UNITS_PER_CTA: usize = 28;
    pub const STRIDE: usize = 32;
    pub const NUM_UNIT_IDS: usize = 36;
    /// The unit-id table follows the ten header words.
    pub const UNIT_IDS: usize = 40;
}

/// Byte offsets inside one Proton CTA block.
mod block {
    pub const PREAMBLE: usize = 0;
    pub const CTA_ID: usize = 4;
    pub const HW_ID: usize = 8;
    pub const DATA_SIZE: usize = 12;
    pub const START_TIME: usize = 16;
    pub const FINALIZE_START_TIME: usize = 24;
    pub const FINALIZE_END_TIME: usize = 32;
    pub const COUNTS: usize = 40;
}

/// Which runtime wrote the dump.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProtonDevice {
    Cuda,
    Hip,
}

impl ProtonDevice {
    /// The [`RunInfo::target`] of an imported profile.
    pub fn target(self) -> &'static str {
        match self {
            ProtonDevice::Cuda => "proton:cuda",
            ProtonDevice::Hip => "proton:hip",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            ProtonDevice::Cuda => "CUDA",
            ProtonDevice::Hip => "HIP",
        }
    }
    /// The cost Proton's own replay subtracts per record, in cycles
    /// (third_party/proton: 7 on CUDA, 36 on HIP).
    pub fn record_cost_ticks(self) -> f64 {
        match self {
            ProtonDevice::Cuda => 7.0,
            ProtonDevice::Hip => 36.0,
        }
    }
}

/// A parsed and validated Proton host-dump header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtonDump {
    pub device: ProtonDevice,
    pub num_ctas: u32,
    /// Units (warps) per CTA, recorded or not.
    pub units_per_cta: u32,
    pub cta_stride: u32,
    /// The recorded units: one segment and one word count per id, in order.
    pub unit_ids: Vec<u32>,
    pub payload_offset: u64,
}

/// Decode one Proton record: end bit, scope id, and 43 clock bits.
#[inline]
fn proton_record([tag, lo]: [u32; 2]) -> (RegionId, Edge, u64) {
    let edge = if tag & PROTON_TAG_END_BIT != 0 {
        Edge::End
    } else {
        Edge::Start
    };
    let scope = (tag >> PROTON_SCOPE_SHIFT) & PROTON_SCOPE_MASK;
    (
        RegionId(scope as u16),
        edge,
        ((tag & PROTON_CLOCK_HI_MASK) as u64) << 32 | lo as u64,
    )
}

impl ProtonDump {
    /// Parse and validate the host header; blocks are checked when decoded.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<ProtonDump, RuntimeError> {
        let word = |off: usize| read_u32(bytes, off, path, "Proton host header");
        let version = word(host::VERSION)?;
        if version != PROTON_DUMP_VERSION {
            return Err(RuntimeError::BadVersion {
                path: path.to_path_buf(),
                offset: host::VERSION as u64,
                what: "Proton host dump",
                found: version.into(),
                supported: PROTON_DUMP_VERSION.into(),
            });
        }
        let payload_offset = word(host::PAYLOAD_OFFSET)? as u64;
        let payload_size = word(host::PAYLOAD_SIZE)? as u64;
        let device = match word(host::DEVICE)? {
            1 => ProtonDevice::Cuda,
            2 => ProtonDevice::Hip,
            other => {
                return Err(RuntimeError::Invalid {
                    path: path.to_path_buf(),
                    offset: host::DEVICE as u64,
                    what: "Proton device type",
                    detail: format!("{other} (1 = CUDA, 2 = HIP)"),
                })
            }
        };
        let num_ctas = word(host::NUM_CTAS)?;
        let units_per_cta = word(host::UNITS_PER_CTA)?;
        let cta_stride = word(host::STRIDE)?;
        let num_ids = word(host::NUM_UNIT_IDS)?;

        // The id table must be in the file (this also bounds the allocation below).
        let table = slice(
            bytes,
            host::UNIT_IDS,
            (num_ids as usize).saturating_mul(4),
            path,
            "Proton unit-id table",
        )?;
        let unit_ids: Vec<u32> = table
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let table_end = (host::UNIT_IDS + table.len()) as u64;
        if payload_offset < table_end {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: host::PAYLOAD_OFFSET as u64,
                what: "Proton payload offset",
                detail: format!("{payload_offset} overlaps the header, which ends at {table_end}"),
            });
        }
        if let Some((k, &id)) = unit_ids
            .iter()
            .enumerate()
            .find(|(_, &id)| id >= units_per_cta)
        {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: (host::UNIT_IDS + 4 * k) as u64,
                what: "Proton unit id",
                detail: format!(
                    "{id} is not a warp of a CTA of {units_per_cta} units (the header's units per CTA)"
                ),
            });
        }
        let min_stride = block::COUNTS as u64 + 4 * units_per_cta as u64;
        if (cta_stride as u64) < min_stride {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: host::STRIDE as u64,
                what: "Proton CTA stride",
                detail: format!("{cta_stride} bytes cannot hold a block header with {units_per_cta} word counts ({min_stride})"),
            });
        }
        let file_len = bytes.len() as u64;
        if payload_offset.saturating_add(payload_size) > file_len {
            return Err(RuntimeError::Truncated {
                path: path.to_path_buf(),
                offset: payload_offset,
                what: "Proton payload",
                needed: payload_size,
                available: file_len.saturating_sub(payload_offset),
            });
        }
        // Proton's reader takes the CTA count as the payload's whole
        // blocks: a header that says fewer (0 read as an empty profile with
        // exit 0, 1 of 4 dropped 3 CTAs silently) is refused too.
        let blocks = payload_size / cta_stride as u64;
        if (num_ctas as u64) < blocks {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: host::NUM_CTAS as u64,
                what: "Proton CTA count",
                detail: format!(
                    "{num_ctas}, but the payload of {payload_size} bytes holds {blocks} CTA blocks \
                     of {cta_stride} bytes"
                ),
            });
        }
        // Proton writes the selected warps' ids in increasing order, each
        // once: a repeated or unsorted table merged or swapped warps' rows.
        if unit_ids.is_empty() {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: host::NUM_UNIT_IDS as u64,
                what: "Proton unit-id count",
                detail: "0: no warp recorded anything".into(),
            });
        }
        if let Some(k) = (1..unit_ids.len()).find(|&k| unit_ids[k] <= unit_ids[k - 1]) {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: (host::UNIT_IDS + 4 * k) as u64,
                what: "Proton unit id",
                detail: format!(
                    "{} after {}: Proton lists the recorded warps once each, in increasing order",
                    unit_ids[k],
                    unit_ids[k - 1]
                ),
            });
        }
        if num_ctas as u64 * cta_stride as u64 > payload_size {
            return Err(RuntimeError::Implausible {
                path: path.to_path_buf(),
                offset: host::NUM_CTAS as u64,
                what: "Proton CTA count",
                value: num_ctas.into(),
                limit: payload_size / cta_stride as u64,
            });
        }
        Ok(ProtonDump {
            device,
            num_ctas,
            units_per_cta,
            cta_stride,
            unit_ids,
            payload_offset,
        })
    }

    /// Absolute offset of CTA block `index` (< `num_ctas`, which parse()
    /// checked to fit the file, so this cannot overflow).
    fn block_offset(&self, index: u64) -> u64 {
        self.payload_offset + index * self.cta_stride as u64
    }

    /// Decode CTA block `index` of the dump in `bytes` into `out`; `Ok(false)`
    /// when the CTA never wrote (preamble 0).
    pub(crate) fn decode_block(
        &self,
        bytes: &[u8],
        index: u64,
        path: &Path,
        out: &mut CtaTrace,
    ) -> Result<bool, RuntimeError> {
        let base = self.block_offset(index);
        let b = slice(
            bytes,
            base as usize,
            self.cta_stride as usize,
            path,
            "Proton CTA block",
        )?;
        let at = |rel: usize| base + rel as u64;
        // Every fixed field lies below `block::COUNTS`, which parse() made the stride cover.
        let u32_at = |rel: usize| read_u32(b, rel, path, "Proton CTA block");
        let u64_at = |rel: usize| read_u64(b, rel, path, "Proton CTA block");
        let preamble = u32_at(block::PREAMBLE)?;
        if preamble == 0 {
            return Ok(false);
        }
        if preamble != PROTON_PREAMBLE {
            return Err(RuntimeError::BadMagic {
                path: path.to_path_buf(),
                offset: at(block::PREAMBLE),
                what: "Proton CTA preamble",
                found: preamble.to_le_bytes().to_vec(),
                expected: PROTON_PREAMBLE.to_le_bytes().to_vec(),
            });
        }
        let n = self.unit_ids.len();
        let data_off = block::COUNTS + 4 * self.units_per_cta as usize;
        let data_size = u32_at(block::DATA_SIZE)? as usize;
        let room = b.len().saturating_sub(data_off); // parse() checked stride ≥ data_off.
        if data_size > room {
            return Err(RuntimeError::Implausible {
                path: path.to_path_buf(),
                offset: at(block::DATA_SIZE),
                what: "Proton data size",
                value: data_size as u64,
                limit: room as u64,
            });
        }
        if n > 0 && data_size.checked_rem(n * RECORD_SIZE) != Some(0) {
            return Err(RuntimeError::Invalid {
                path: path.to_path_buf(),
                offset: at(block::DATA_SIZE),
                what: "Proton data size",
                detail: format!(
                    "{data_size} bytes do not split into {n} segments of whole records"
                ),
            });
        }
        let segment_bytes = data_size.checked_div(n).unwrap_or(0);

        out.block_index = index;
        out.cta_id = u32_at(block::CTA_ID)?;
        out.hw_id = u32_at(block::HW_ID)?;
        out.start_time_ns = u64_at(block::START_TIME)?;
        out.finalize_start_ns = u64_at(block::FINALIZE_START_TIME)?;
        out.finalize_end_ns = u64_at(block::FINALIZE_END_TIME)?;
        out.units.resize_with(n, UnitTrace::default);
        let mut earliest: Option<u64> = None;
        // The CTA's units are unwrapped against one reference, the first
        // unit's first record (one clock range up, so a unit that began
        // just before the wrap stays positive): each unit's first record
        // is placed within half a range of it. Unwrapped alone, a warp
        // that began after the 2^43 wrap and one that began before it sat
        // 2^43 ticks (8796 s) apart.
        let mut reference: Option<u64> = None;
        let range = 1u64 << PROTON_CLOCK_BITS;
        for (k, (unit, &unit_id)) in out.units.iter_mut().zip(&self.unit_ids).enumerate() {
            // By warp id: parse() checked every id is below units_per_cta.
            let count_at = block::COUNTS + 4 * unit_id as usize;
            let words = u32_at(count_at)?;
            if words % 2 != 0 {
                return Err(RuntimeError::Invalid {
                    path: path.to_path_buf(),
                    offset: at(count_at),
                    what: "Proton word count",
                    detail: format!("{words} is odd; every record is 2 words"),
                });
            }
            let written = (words / 2) as u64;
            let segment = slice(
                b,
                data_off + k * segment_bytes,
                segment_bytes,
                path,
                "Proton segment",
            )?;
            // Proton records no counter value at init, so each unit's clock is
            // unwrapped from its own first surviving record.
            let mut clock: Option<Unwrapper> = None;
            unit.unit_id = unit_id;
            unit.records.clear();
            let surviving = read_ring(segment, written, true, &mut unit.records, |w| {
                let (region, edge, raw) = proton_record(w);
                let c = clock
                    .get_or_insert_with(|| {
                        let r = *reference.get_or_insert(raw + range);
                        let ahead = raw.wrapping_sub(r) & (range - 1);
                        let first = if ahead < range / 2 {
                            r + ahead
                        } else {
                            r - (range - ahead)
                        };
                        Unwrapper::new(first, PROTON_CLOCK_BITS)
                    })
                    .next(raw);
                Record {
                    region,
                    edge,
                    clock: c,
                }
            });
            unit.records_written = written;
            unit.records_lost = written - surviving;
            if let Some(first) = unit.records.first() {
                earliest = Some(earliest.map_or(first.clock, |e| e.min(first.clock)));
            }
        }
        // Back to the raw clock values where no unit needed the range added
        // (every unit's first record at or after the reference's wrap).
        if earliest.is_some_and(|e| e >= range) {
            for r in out.units.iter_mut().flat_map(|u| u.records.iter_mut()) {
                r.clock -= range;
            }
            earliest = earliest.map(|e| e - range);
        }
        // No counter value at init or finalize either: use the earliest record
        // as the clock origin for both, so clocks relative to start_clock stay
        // small and measured_ticks_per_ns() says "unknown" instead of a wrong rate.
        out.start_clock = earliest.unwrap_or(0);
        out.finalize_clock = out.start_clock;
        Ok(true)
    }

    /// The [`RunInfo`] of an imported dump: what Proton records (43-bit
    /// cycle counter as clock64, circular rings of warps in shared memory),
    /// and metadata naming every scope id that occurs `scope_<id>`, since
    /// the dump does not carry scope names. Block and grid sizes are lower
    /// bounds (32 threads per unit, the CTAs that were dumped).
    pub(crate) fn run_info(&self, bytes: &[u8], kernel: &str) -> RunInfo {
        let mut seen = [false; 256];
        let mut slots = 0;
        let mut scratch = CtaTrace::default();
        for i in 0..self.num_ctas as u64 {
            // Corrupt blocks are reported when the caller decodes them.
            if let Ok(true) = self.decode_block(bytes, i, Path::new(""), &mut scratch) {
                for r in scratch.units.iter().flat_map(|u| &u.records) {
                    seen[(r.region.0 & 0xFF) as usize] = true;
                }
                if slots == 0 {
                    // Decoding succeeded, so the data size is readable and whole.
                    let field = self.block_offset(i) as usize + block::DATA_SIZE;
                    let data_size = read_u32(bytes, field, Path::new(""), "").unwrap_or(0) as usize;
                    slots = data_size
                        .checked_div(self.unit_ids.len() * RECORD_SIZE)
                        .unwrap_or(0) as u32;
                }
            }
        }
        let regions = (0u16..256)
            .filter(|id| seen[*id as usize])
            .map(|id| RegionMeta {
                id: RegionId(id),
                name: format!("scope_{id}"),
                kind: RegionKind::Explicit,
                parent: None,
                location: String::new(),
                pairs_with: None,
            })
            .collect();
        let target = self.device.target();
        let mut meta = InstrumentMeta::new_header(
            target,
            Counter::Clock64,
            Granularity::Warp,
            BufferKind::Shared,
            Strategy::Circular,
        );
        meta.shared_slots = slots;
        let block = [self.units_per_cta.saturating_mul(32), 1, 1];
        meta.kernels.push(KernelMeta {
            name: kernel.to_string(),
            original_arg_count: 0,
            block,
            layout: Layout {
                units: self.unit_ids.len() as u32,
                slots,
            },
            sampled_units: self.unit_ids.clone(),
            cta_sampling: CtaSampling::All,
            profile_param: None,
            profile_bytes_per_cta: 0,
            max_registers: None,
            regions,
        });
        RunInfo {
            target: target.to_string(),
            kernel: kernel.to_string(),
            grid: [self.num_ctas, 1, 1],
            block,
            counter: Counter::Clock64,
            clock_domain: Counter::Clock64.clock_domain(),
            granularity: Granularity::Warp,
            strategy: Strategy::Circular,
            ticks_per_ns: None,
            // Proton's own replay shifts each record by a constant it
            // measured for its lowering; that, not an estimate from the
            // dump's gaps, is the cost a Proton dump gets unless a
            // calibration is given.
            record_cost_ticks: Some(self.device.record_cost_ticks()),
            record_cost_origin: Some(format!(
                "Proton's own time shift per record on {} ({} cycles)",
                self.device.name(),
                self.device.record_cost_ticks()
            )),
            record_cost_back_to_back_ticks: None,
            check: None,
            meta,
        }
    }
}
