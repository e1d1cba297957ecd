//! The profile-buffer ABI: the one definition of what instrumented code
//! writes and what the decoder reads.
//!
//! The global profile buffer holds one *CTA block* of [`Layout::cta_stride`]
//! bytes per recorded CTA. A CTA block is:
//!
//! ```text
//! +0                 CtaHeader            (CTA_HEADER_SIZE bytes)
//! +CTA_HEADER_SIZE   UnitEntry × units    (UNIT_ENTRY_SIZE bytes each)
//! +records_offset    segment × units      (slots × RECORD_SIZE bytes each)
//! ```
//!
//! A *unit* is whatever owns one segment: a thread, a warp, a warp group or
//! the whole CTA (the lowering's granularity). Each segment is a ring of
//! 8-byte records; a unit's entry counts every record it ever wrote, so a
//! count above `slots` means the ring wrapped (circular strategy) or records
//! were dropped (flush strategy, once the global segment is full).
//!
//! Everything is little-endian, as every supported target is. The lowering
//! (kperf-instrument) takes its offsets from here; the decoder
//! (kperf-runtime) parses with [`CtaHeader::parse`] and [`RecordWord::decode`].
//! docs/profile-format.md describes the same layout for people.

use serde::{Deserialize, Serialize};

/// `b"KPRF"` read as a little-endian u32: the first word of a written CTA
/// block. A block whose first word is 0 was never written (CTA not sampled).
pub const MAGIC: u32 = u32::from_le_bytes(*b"KPRF");
/// Bumped on any change to the layout below. Version 2 packs the flags
/// beside the version and writes the shape with the end stamp, so finalize
/// stores four 16-byte groups instead of five.
pub const ABI_VERSION: u16 = 2;

/// Byte offsets of the fields of the per-CTA header. Fields written
/// together sit in one aligned 16-byte group, so each group is one vector
/// store on the device:
///
/// | group | bytes | fields | written |
/// |---|---|---|---|
/// | identity | 0..16 | magic, version, flags, CTA id, hardware id | finalize (init for a global buffer) |
/// | init stamps | 16..32 | global timer, counter | init (parked in shared memory until finalize for a shared buffer) |
/// | finalize stamps | 32..48 | global timer, counter | finalize, after the CTA barrier |
/// | shape and end | 48..64 | units, slots, end global timer | last, after thread 0's copy-out |
///
/// The shape is written last on purpose: a block whose thread 0 never
/// reached the end of finalize (the kernel aborted, or the CTA left by a
/// path without finalize) has units = slots = 0 and is reported as
/// unfinished, not decoded from half-copied rings. Other threads' copy-out
/// shares are not ordered before it (that would cost a barrier); once the
/// kernel has completed, they are all visible anyway.
pub mod cta_header {
    /// u32 [`super::MAGIC`].
    pub const MAGIC: usize = 0;
    /// u16 [`super::ABI_VERSION`].
    pub const VERSION: usize = 4;
    /// u16 [`super::HeaderFlags`] bits.
    pub const FLAGS: usize = 6;
    /// u32 linear CTA id (x + y·gx + z·gx·gy).
    pub const CTA_ID: usize = 8;
    /// u32 hardware id: SM on NVIDIA, CU on AMD, CPU on the host.
    pub const HW_ID: usize = 12;
    /// u64 global timer (ns) read at init.
    pub const START_TIME: usize = 16;
    /// u64 full-width counter value read at init (the records' clock domain).
    pub const START_CLOCK: usize = 24;
    /// u64 global timer (ns) read when finalize began (after the CTA barrier).
    pub const FINALIZE_START_TIME: usize = 32;
    /// u64 full-width counter value read when finalize began.
    pub const FINALIZE_CLOCK: usize = 40;
    /// u32 number of unit segments in this block.
    pub const UNITS: usize = 48;
    /// u32 record slots per unit segment.
    pub const SLOTS: usize = 52;
    /// u64 global timer (ns) read when finalize ended (after this thread's
    /// copy-out).
    pub const FINALIZE_END_TIME: usize = 56;
}
/// Size of the per-CTA header; a multiple of 8 so the tables after it stay aligned.
pub const CTA_HEADER_SIZE: usize = 64;

/// The u32 at [`cta_header::VERSION`]: version in the low half, flags in
/// the high half, so the device writes both with one constant.
pub fn version_word(flags: HeaderFlags) -> u32 {
    u32::from(ABI_VERSION) | flags.encode() << 16
}

/// The u64 at [`cta_header::UNITS`]: units in the low half, slots in the
/// high half (one constant on the device, stored with the end stamp).
pub fn shape_word(layout: Layout) -> u64 {
    u64::from(layout.units) | u64::from(layout.slots) << 32
}

/// Byte offsets inside one per-unit entry.
pub mod unit_entry {
    /// u32 unit id (thread, warp, warp-group index within the CTA; 0 for a CTA).
    pub const UNIT_ID: usize = 0;
    /// u32 records written by this unit in total, overwritten or dropped ones included.
    pub const RECORDS_WRITTEN: usize = 4;
}
pub const UNIT_ENTRY_SIZE: usize = 8;

/// One record: two little-endian u32 words, the low clock bits then the tag.
/// Clock first because a 64-bit clock read fills an even/odd register pair:
/// the device turns the high half into the tag in place and stores the pair
/// as it is, with no register move.
pub const RECORD_SIZE: usize = 8;
/// Index of the low-clock word within a record.
pub const RECORD_CLOCK_WORD: usize = 0;
/// Index of the tag word within a record.
pub const RECORD_TAG_WORD: usize = 1;
/// Records start at a multiple of this, so segments copy with 16-byte moves.
pub const RECORDS_ALIGN: usize = 16;

/// Region ids are 16 bits wide (Proton has 8).
pub const MAX_REGION_ID: u32 = 0xFFFF;
/// Tag bit 16: set on an END record, clear on a START record.
pub const TAG_END_BIT: u32 = 1 << 16;
/// Tag bits 31..17 carry clock bits 46..32 for 64-bit counters; the shift
/// drops higher bits, so the lowering needs no mask (one shift, one or).
pub const TAG_CLOCK_HI_SHIFT: u32 = 17;
/// Clock bits the record keeps for 64-bit counters (32 + 15).
pub const RECORD_CLOCK64_BITS: u32 = 47;

/// Which counter the records hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Counter {
    /// 32-bit SM cycle counter (`%clock`); the decoder undoes wrap-around,
    /// which is exact while consecutive records of a unit are < 2^32 cycles apart.
    Clock32,
    /// 64-bit SM cycle counter (`%clock64`, `s_memtime`, `rdtsc`), 47 bits kept.
    Clock64,
    /// Global nanosecond timer (`%globaltimer`), 47 bits kept.
    Globaltimer,
}

impl Counter {
    pub const ALL: [Counter; 3] = [Counter::Clock32, Counter::Clock64, Counter::Globaltimer];

    pub fn name(self) -> &'static str {
        match self {
            Counter::Clock32 => "clock32",
            Counter::Clock64 => "clock64",
            Counter::Globaltimer => "globaltimer",
        }
    }

    pub fn from_name(s: &str) -> Option<Counter> {
        Counter::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Clock bits a record carries.
    pub fn record_bits(self) -> u32 {
        match self {
            Counter::Clock32 => 32,
            _ => RECORD_CLOCK64_BITS,
        }
    }

    /// The time base the values count in.
    pub fn clock_domain(self) -> ClockDomain {
        match self {
            Counter::Globaltimer => ClockDomain::Nanoseconds,
            _ => ClockDomain::Cycles,
        }
    }

    fn code(self) -> u32 {
        match self {
            Counter::Clock32 => 0,
            Counter::Clock64 => 1,
            Counter::Globaltimer => 2,
        }
    }

    fn from_code(c: u32) -> Option<Counter> {
        Counter::ALL.into_iter().find(|k| k.code() == c)
    }
}

/// What one counter tick means.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockDomain {
    /// Core clock cycles: converting to time needs a measured clock rate.
    Cycles,
    /// Already nanoseconds.
    Nanoseconds,
}

/// How a full segment behaves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// The ring keeps the newest `slots` records; older ones are overwritten.
    Circular,
    /// A full shared segment is written through to global memory; the global
    /// segment keeps the oldest `slots` records and later ones are dropped.
    Flush,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Circular => "circular",
            Strategy::Flush => "flush",
        }
    }
    pub fn from_name(s: &str) -> Option<Strategy> {
        [Strategy::Circular, Strategy::Flush]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// The header's FLAGS word: bits 0..3 counter, bit 4 strategy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HeaderFlags {
    pub counter: Counter,
    pub strategy: Strategy,
}

impl HeaderFlags {
    pub fn encode(self) -> u32 {
        self.counter.code() | (matches!(self.strategy, Strategy::Flush) as u32) << 4
    }
    pub fn decode(bits: u32) -> Option<HeaderFlags> {
        if bits & !0x1F != 0 {
            return None;
        }
        let counter = Counter::from_code(bits & 0xF)?;
        let strategy = if bits & 0x10 != 0 {
            Strategy::Flush
        } else {
            Strategy::Circular
        };
        Some(HeaderFlags { counter, strategy })
    }
}

/// Whether a record opens or closes its region.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Edge {
    Start,
    End,
}

/// A region id as stored in a record tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RegionId(pub u16);

/// One decoded record word pair, before clock unwrapping.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordWord {
    pub region: RegionId,
    pub edge: Edge,
    /// The clock bits the record carries: 32 for clock32, 47 otherwise.
    pub clock: u64,
}

impl RecordWord {
    /// The constant part of the tag, which the lowering materialises as an
    /// immediate: region id and edge bit.
    pub fn tag_constant(region: RegionId, edge: Edge) -> u32 {
        region.0 as u32 | if edge == Edge::End { TAG_END_BIT } else { 0 }
    }

    /// Encode as the two words the lowering stores, in memory order.
    pub fn encode(self, counter: Counter) -> [u32; 2] {
        let mut tag = Self::tag_constant(self.region, self.edge);
        if counter != Counter::Clock32 {
            tag |= ((self.clock >> 32) as u32) << TAG_CLOCK_HI_SHIFT;
        }
        let mut words = [0u32; 2];
        words[RECORD_CLOCK_WORD] = self.clock as u32;
        words[RECORD_TAG_WORD] = tag;
        words
    }

    /// Decode the two words of a record, in memory order.
    pub fn decode(words: [u32; 2], counter: Counter) -> RecordWord {
        let (tag, lo) = (words[RECORD_TAG_WORD], words[RECORD_CLOCK_WORD]);
        let hi = if counter == Counter::Clock32 {
            0
        } else {
            (tag >> TAG_CLOCK_HI_SHIFT) as u64
        };
        RecordWord {
            region: RegionId(tag as u16),
            edge: if tag & TAG_END_BIT != 0 {
                Edge::End
            } else {
                Edge::Start
            },
            clock: hi << 32 | lo as u64,
        }
    }
}

/// Size arithmetic for one CTA block, shared by lowering and decoder.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Unit segments per CTA block.
    pub units: u32,
    /// Record slots per unit segment in the global buffer.
    pub slots: u32,
}

impl Layout {
    pub fn unit_entry_offset(&self, unit_index: u32) -> usize {
        CTA_HEADER_SIZE + unit_index as usize * UNIT_ENTRY_SIZE
    }
    pub fn records_offset(&self) -> usize {
        (CTA_HEADER_SIZE + self.units as usize * UNIT_ENTRY_SIZE).next_multiple_of(RECORDS_ALIGN)
    }
    pub fn segment_bytes(&self) -> usize {
        self.slots as usize * RECORD_SIZE
    }
    pub fn segment_offset(&self, unit_index: u32) -> usize {
        self.records_offset() + unit_index as usize * self.segment_bytes()
    }
    /// Bytes of one CTA block; a multiple of 8.
    pub fn cta_stride(&self) -> usize {
        self.segment_offset(self.units)
    }
    /// [`Layout::cta_stride`] with overflow checked, for layouts read from
    /// untrusted data.
    pub fn checked_cta_stride(&self) -> Option<usize> {
        let table = (self.units as usize)
            .checked_mul(UNIT_ENTRY_SIZE)?
            .checked_add(CTA_HEADER_SIZE)?;
        let records = table.checked_next_multiple_of(RECORDS_ALIGN)?;
        let segments = (self.units as usize)
            .checked_mul(self.slots as usize)?
            .checked_mul(RECORD_SIZE)?;
        records.checked_add(segments)
    }
}

/// Why a CTA header was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HeaderError {
    #[error("CTA header needs {CTA_HEADER_SIZE} bytes, only {0} remain")]
    Truncated(usize),
    #[error("bad magic {found:#010x} (expected {MAGIC:#010x} \"KPRF\")")]
    BadMagic { found: u32 },
    #[error("unsupported ABI version {found} (this build reads {ABI_VERSION})")]
    BadVersion { found: u16 },
    #[error("unknown header flags {0:#x}")]
    BadFlags(u32),
    #[error("unfinished block: units = 0 (the shape is written last; this CTA's thread 0 never reached the end of finalize)")]
    Unfinished,
}

/// The parsed per-CTA header.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CtaHeader {
    pub cta_id: u32,
    pub hw_id: u32,
    pub start_time: u64,
    pub finalize_start_time: u64,
    pub finalize_end_time: u64,
    pub start_clock: u64,
    pub finalize_clock: u64,
    pub layout: Layout,
    pub flags: HeaderFlags,
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes(b[off..off + 2].try_into().expect("2-byte slice"))
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().expect("4-byte slice"))
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().expect("8-byte slice"))
}

impl CtaHeader {
    /// True when the block was never written (an unsampled or absent CTA).
    pub fn is_unwritten(block: &[u8]) -> bool {
        block.len() >= 4 && u32_at(block, cta_header::MAGIC) == 0
    }

    /// Parse the header at the start of `block`; checks magic, version, flags.
    pub fn parse(block: &[u8]) -> Result<CtaHeader, HeaderError> {
        if block.len() < CTA_HEADER_SIZE {
            return Err(HeaderError::Truncated(block.len()));
        }
        let magic = u32_at(block, cta_header::MAGIC);
        if magic != MAGIC {
            return Err(HeaderError::BadMagic { found: magic });
        }
        let version = u16_at(block, cta_header::VERSION);
        if version != ABI_VERSION {
            return Err(HeaderError::BadVersion { found: version });
        }
        let flag_bits = u32::from(u16_at(block, cta_header::FLAGS));
        let flags = HeaderFlags::decode(flag_bits).ok_or(HeaderError::BadFlags(flag_bits))?;
        let units = u32_at(block, cta_header::UNITS);
        if units == 0 {
            return Err(HeaderError::Unfinished);
        }
        Ok(CtaHeader {
            cta_id: u32_at(block, cta_header::CTA_ID),
            hw_id: u32_at(block, cta_header::HW_ID),
            start_time: u64_at(block, cta_header::START_TIME),
            finalize_start_time: u64_at(block, cta_header::FINALIZE_START_TIME),
            finalize_end_time: u64_at(block, cta_header::FINALIZE_END_TIME),
            start_clock: u64_at(block, cta_header::START_CLOCK),
            finalize_clock: u64_at(block, cta_header::FINALIZE_CLOCK),
            layout: Layout {
                units,
                slots: u32_at(block, cta_header::SLOTS),
            },
            flags,
        })
    }

    /// Serialise into the first [`CTA_HEADER_SIZE`] bytes of `out` (tests and
    /// synthetic profiles; on a device the lowering writes these fields).
    pub fn write(&self, out: &mut [u8]) {
        let mut put32 = |off: usize, v: u32| out[off..off + 4].copy_from_slice(&v.to_le_bytes());
        put32(cta_header::MAGIC, MAGIC);
        put32(cta_header::VERSION, version_word(self.flags));
        put32(cta_header::CTA_ID, self.cta_id);
        put32(cta_header::HW_ID, self.hw_id);
        let mut put64 = |off: usize, v: u64| out[off..off + 8].copy_from_slice(&v.to_le_bytes());
        put64(cta_header::START_TIME, self.start_time);
        put64(cta_header::FINALIZE_START_TIME, self.finalize_start_time);
        put64(cta_header::FINALIZE_END_TIME, self.finalize_end_time);
        put64(cta_header::START_CLOCK, self.start_clock);
        put64(cta_header::FINALIZE_CLOCK, self.finalize_clock);
        put64(cta_header::UNITS, shape_word(self.layout));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_do_not_overlap_and_fit() {
        let fields = [
            (cta_header::MAGIC, 4),
            (cta_header::VERSION, 2),
            (cta_header::FLAGS, 2),
            (cta_header::CTA_ID, 4),
            (cta_header::HW_ID, 4),
            (cta_header::START_TIME, 8),
            (cta_header::FINALIZE_START_TIME, 8),
            (cta_header::FINALIZE_END_TIME, 8),
            (cta_header::START_CLOCK, 8),
            (cta_header::FINALIZE_CLOCK, 8),
            (cta_header::UNITS, 4),
            (cta_header::SLOTS, 4),
        ];
        let mut used = [false; CTA_HEADER_SIZE];
        for (off, len) in fields {
            assert_eq!(off % len, 0, "field at {off} is misaligned");
            for b in &mut used[off..off + len] {
                assert!(!*b, "byte {off} used twice");
                *b = true;
            }
        }
        assert!(used.iter().all(|b| *b), "header has holes");
    }

    #[test]
    fn record_round_trips_for_every_counter() {
        let cases = [
            (0u16, Edge::Start, 0u64),
            (0xFFFF, Edge::End, 0xFFFF_FFFF),
            (7, Edge::End, (1 << 47) - 1),
        ];
        for counter in Counter::ALL {
            for (id, edge, clock) in cases {
                let clock = clock & ((1u64 << counter.record_bits()) - 1);
                let r = RecordWord {
                    region: RegionId(id),
                    edge,
                    clock,
                };
                assert_eq!(
                    RecordWord::decode(r.encode(counter), counter),
                    r,
                    "{counter:?}"
                );
            }
        }
    }

    #[test]
    fn clock64_high_bits_beyond_47_are_dropped_not_spilled_into_the_tag() {
        let r = RecordWord {
            region: RegionId(3),
            edge: Edge::Start,
            clock: u64::MAX,
        };
        let d = RecordWord::decode(r.encode(Counter::Clock64), Counter::Clock64);
        assert_eq!(d.region, RegionId(3));
        assert_eq!(d.edge, Edge::Start);
        assert_eq!(d.clock, (1 << 47) - 1);
    }

    #[test]
    fn header_round_trips_and_rejects_corruption() {
        let h = CtaHeader {
            cta_id: 5,
            hw_id: 77,
            start_time: 1_000,
            finalize_start_time: 2_000,
            finalize_end_time: 2_100,
            start_clock: 10,
            finalize_clock: 9_000,
            layout: Layout {
                units: 4,
                slots: 16,
            },
            flags: HeaderFlags {
                counter: Counter::Clock64,
                strategy: Strategy::Flush,
            },
        };
        let mut buf = vec![0u8; h.layout.cta_stride()];
        assert!(CtaHeader::is_unwritten(&buf));
        h.write(&mut buf);
        assert_eq!(CtaHeader::parse(&buf), Ok(h));
        assert_eq!(
            CtaHeader::parse(&buf[..10]),
            Err(HeaderError::Truncated(10))
        );
        let mut unfinished = buf.clone();
        unfinished[cta_header::UNITS..cta_header::UNITS + 16].fill(0);
        assert_eq!(CtaHeader::parse(&unfinished), Err(HeaderError::Unfinished));
        buf[cta_header::VERSION] = 9;
        assert_eq!(
            CtaHeader::parse(&buf),
            Err(HeaderError::BadVersion { found: 9 })
        );
        buf[cta_header::MAGIC] ^= 1;
        assert!(matches!(
            CtaHeader::parse(&buf),
            Err(HeaderError::BadMagic { .. })
        ));
    }

    /// The header as docs/profile-format.md draws it, byte by byte: the
    /// round trip above cannot tell two swapped fields apart, this can.
    #[test]
    fn header_bytes_match_the_documented_layout() {
        let h = CtaHeader {
            cta_id: 0x0102_0304,
            hw_id: 0x0506_0708,
            start_time: 0x1111_1111_1111_1111,
            start_clock: 0x2222_2222_2222_2222,
            finalize_start_time: 0x3333_3333_3333_3333,
            finalize_clock: 0x4444_4444_4444_4444,
            finalize_end_time: 0x5555_5555_5555_5555,
            layout: Layout { units: 3, slots: 6 },
            flags: HeaderFlags {
                counter: Counter::Clock64,
                strategy: Strategy::Flush,
            },
        };
        let mut buf = [0u8; CTA_HEADER_SIZE];
        h.write(&mut buf);
        #[rustfmt::skip]
        let expected: [u8; 64] = [
            b'K', b'P', b'R', b'F', 2, 0, 0x11, 0,     // magic, version 2, flags clock64|flush
            4, 3, 2, 1, 8, 7, 6, 5,                    // CTA id, hardware id
            0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, // init global timer
            0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, // init counter
            0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, // finalize global timer
            0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, 0x44, // finalize counter
            3, 0, 0, 0, 6, 0, 0, 0,                    // units, slots
            0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, // finalize end global timer
        ];
        assert_eq!(buf, expected);
    }

    #[test]
    fn layout_arithmetic() {
        let l = Layout { units: 4, slots: 8 };
        // 64 + 4·8 = 96, already a multiple of 16.
        assert_eq!(l.records_offset(), 96);
        assert_eq!(l.segment_offset(1), 96 + 64);
        assert_eq!(l.cta_stride(), 96 + 4 * 64);
        // 64 + 3·8 = 88, rounded up to 96 for 16-byte copies.
        assert_eq!(Layout { units: 3, slots: 8 }.records_offset(), 96);
        assert_eq!(l.checked_cta_stride(), Some(l.cta_stride()));
        assert_eq!(
            Layout {
                units: u32::MAX,
                slots: u32::MAX
            }
            .checked_cta_stride()
            .map(|_| ()),
            Layout {
                units: u32::MAX,
                slots: u32::MAX
            }
            .checked_cta_stride()
            .map(|_| ())
        );
        assert_eq!(l.cta_stride() % 8, 0);
    }
}
