//! Decoding a profile buffer into [`CtaTrace`]s.
//!
//! The decoder reads the per-CTA blocks that [`kperf_dialects::abi`]
//! defines, one block at a time, straight from a memory map: a profile of
//! many gigabytes costs one CTA's worth of decoded records in memory, and
//! opening it costs nothing but the header. [`ProfileReader`] serves both
//! kperf's own `.kprof` files and Proton's host dumps ([`crate::proton`])
//! through the same [`ProfileReader::ctas`] iterator, so replay and trace
//! output do not care where a profile came from.
//!
//! Every byte of a profile is untrusted: a block is checked against its own
//! size and the run's metadata before anything is sliced, all reads are
//! checked, and a bad block is an `Err` for that block, never a panic.

use crate::error::RuntimeError;
use crate::kprof::{self, read_u32};
use crate::profile::{CtaTrace, Record, RunInfo, UnitTrace};
use crate::proton::ProtonDump;
use kperf_dialects::abi::{
    cta_header, unit_entry, Counter, CtaHeader, HeaderError, Layout, RecordWord, Strategy,
    RECORD_SIZE,
};
use std::path::{Path, PathBuf};

/// What decoding a kperf CTA block needs to know besides the block itself.
///
/// The block header says how it was written (counter, strategy, layout);
/// these are what the run *claims*, and a block that disagrees is refused,
/// because decoding a clock32 block as clock64 (say) gives plausible-looking
/// but wrong times.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DecodeParams {
    pub counter: Counter,
    pub strategy: Strategy,
    /// The layout the instrumentation metadata promises, when there is one.
    pub layout: Option<Layout>,
    /// Whether unit entry `i` must name unit `i` (the metadata samples no
    /// units: the lowering writes each segment's index as its id), or be
    /// all zero (a unit that never ran). A corrupt id (0xFFFFFFFF) used to
    /// pass as a unit of its own.
    pub units_indexed: bool,
}

impl DecodeParams {
    /// The parameters a run's [`RunInfo`] implies: its counter and strategy,
    /// and the layout of its kernel's metadata if the metadata names it.
    pub fn for_run(info: &RunInfo) -> DecodeParams {
        DecodeParams {
            counter: info.counter,
            strategy: info.strategy,
            layout: info.meta.kernel(&info.kernel).map(|k| k.layout),
            units_indexed: info
                .meta
                .kernel(&info.kernel)
                .is_some_and(|k| k.sampled_units.is_empty()),
        }
    }
}

/// Undoes wrap-around of a clock that keeps only its low `bits` bits.
///
/// Each value is placed at the smallest full-width value at or after the
/// previous one that has the same low bits, i.e. `prev + ((raw − prev) mod
/// 2^bits)`. This is exact as long as consecutive values are less than
/// 2^bits ticks apart; a longer gap is silently shortened by a multiple of
/// 2^bits (it cannot be detected from the low bits alone).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Unwrapper {
    prev: u64,
    mask: u64,
}

impl Unwrapper {
    pub(crate) fn new(seed: u64, bits: u32) -> Unwrapper {
        Unwrapper {
            prev: seed,
            mask: if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
        }
    }

    #[inline(always)]
    pub(crate) fn next(&mut self, raw: u64) -> u64 {
        self.prev = self
            .prev
            .wrapping_add(raw.wrapping_sub(self.prev) & self.mask);
        self.prev
    }
}

/// How far before the CTA's start stamp a unit's first record may lie and
/// still be read as before it: 1/16 of the clock's range (2^28 ticks for
/// `clock`). A first record more than 15/16 of the range after the start,
/// with none before it, is read one range too early instead; no profile
/// can tell the two apart from the low bits.
fn first_record_lead(bits: u32) -> u64 {
    if bits >= 64 {
        0
    } else {
        1u64 << (bits - 4)
    }
}

#[inline(always)]
fn words(rec: &[u8]) -> [u32; 2] {
    let mut b = [0u8; RECORD_SIZE];
    b.copy_from_slice(rec);
    let v = u64::from_le_bytes(b);
    [v as u32, (v >> 32) as u32]
}

/// Append one unit's surviving records, oldest first, to `out`.
///
/// `segment` is the unit's whole ring (`slots` records). Only the first
/// `min(written, slots)` slots were ever written. When a circular ring
/// wrapped (`written > slots`), slot `written % slots` holds the oldest
/// survivor, so the ring is read from there to the end, then from the start.
/// Returns the number of surviving records.
#[inline(always)]
pub(crate) fn read_ring(
    segment: &[u8],
    written: u64,
    circular: bool,
    out: &mut Vec<Record>,
    mut decode: impl FnMut([u32; 2]) -> Record,
) -> u64 {
    let slots = (segment.len() / RECORD_SIZE) as u64;
    let surviving = written.min(slots);
    let start = if circular && written > slots && slots > 0 {
        (written % slots) as usize * RECORD_SIZE
    } else {
        0
    };
    let end = surviving as usize * RECORD_SIZE;
    // start ≤ end ≤ segment.len() by construction; `get` keeps that panic-free.
    let (newer, older) = (
        segment.get(start..end).unwrap_or(&[]),
        segment.get(..start).unwrap_or(&[]),
    );
    out.reserve(surviving as usize);
    out.extend(
        newer
            .chunks_exact(RECORD_SIZE)
            .chain(older.chunks_exact(RECORD_SIZE))
            .map(|r| decode(words(r))),
    );
    surviving
}

/// Where a block came from, so that errors can name the file and absolute offset.
pub(crate) struct BlockCtx<'a> {
    pub path: &'a Path,
    /// Absolute byte offset of the block's first byte in the file.
    pub offset: u64,
    pub index: u64,
}

impl BlockCtx<'_> {
    fn at(&self, rel: usize) -> u64 {
        self.offset.saturating_add(rel as u64)
    }
}

const MEMORY: &str = "<memory>";

/// Decode one kperf CTA block held in memory: `block` is the block's bytes
/// (at least its layout's `cta_stride`; extra bytes are ignored).
///
/// An unwritten block (first word 0, see [`CtaHeader::is_unwritten`]) is an
/// error here (bad magic); callers iterating a buffer skip such blocks, as
/// [`ProfileReader::ctas`] does. Error offsets are relative to `block`.
pub fn decode_block(block: &[u8], params: &DecodeParams) -> Result<CtaTrace, RuntimeError> {
    let mut out = CtaTrace::default();
    decode_block_into(
        block,
        params,
        &BlockCtx {
            path: Path::new(MEMORY),
            offset: 0,
            index: 0,
        },
        &mut out,
    )?;
    Ok(out)
}

/// A kperf block's header and unit table (and each unit's oldest surviving
/// record's clock), checked as the decoder checks
/// them: what a scan needs of a block without reading its records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockHead {
    /// The CTA's global-timer start (ns).
    pub start_time_ns: u64,
    /// Records that survive in the block's rings (what decoding would give).
    pub records: u64,
    /// The CTA's id, and its counter at init and at finalize start, and
    /// the global timer at finalize start (ns): its clock rate's
    /// measurement.
    pub cta_id: u32,
    pub start_clock: u64,
    pub finalize_clock: u64,
    pub finalize_start_ns: u64,
    /// The earliest of the units' first surviving records' clocks (as
    /// [`decode_block`] unwraps them): a unit may record before thread 0's
    /// init stamps, and the axis zero must come before its record.
    pub earliest_first_clock: Option<u64>,
}

impl BlockHead {
    /// The clock span and global-timer span of the CTA (see `spans`):
    /// what [`crate::profile::CtaTrace::measured_ticks_per_ns`] divides.
    pub fn clock_spans(&self) -> Option<(u64, u64)> {
        spans(
            self.start_clock,
            self.finalize_clock,
            self.start_time_ns,
            self.finalize_start_ns,
        )
    }
}

/// (ticks, ns) between init and finalize, when the clock moved forward and
/// the timer did not go back. The timer span may be 0: a CTA shorter than
/// the timer's resolution (a microsecond on NVIDIA by default), which a
/// pooled rate must count, or it is biased towards the CTAs that crossed a
/// tick (500 ns CTAs read 1.0 ticks/ns on a 2 GHz clock).
pub(crate) fn spans(
    start_clock: u64,
    finalize_clock: u64,
    start_ns: u64,
    finalize_ns: u64,
) -> Option<(u64, u64)> {
    let dc = finalize_clock.checked_sub(start_clock)?;
    let dt = finalize_ns.checked_sub(start_ns)?;
    (dc > 0).then_some((dc, dt))
}

/// The block's header, parsed and checked against the block's size and the
/// run's claims (layout, counter, strategy).
fn checked_header(
    block: &[u8],
    params: &DecodeParams,
    ctx: &BlockCtx<'_>,
) -> Result<CtaHeader, RuntimeError> {
    let header = CtaHeader::parse(block).map_err(|source| {
        let field = match source {
            HeaderError::Truncated(_) => 0,
            HeaderError::BadMagic { .. } => cta_header::MAGIC,
            HeaderError::BadVersion { .. } => cta_header::VERSION,
            HeaderError::BadFlags(_) => cta_header::FLAGS,
            HeaderError::Unfinished => cta_header::UNITS,
        };
        RuntimeError::BadCtaHeader {
            path: ctx.path.to_path_buf(),
            offset: ctx.at(field),
            block_index: ctx.index,
            source,
        }
    })?;
    let layout = header.layout;

    // Check the layout fits the block before using any Layout arithmetic
    // (which is unchecked usize math): units and slots come from the file.
    let needed = layout.checked_cta_stride();
    if needed.is_none_or(|n| n > block.len()) {
        return Err(RuntimeError::Implausible {
            path: ctx.path.to_path_buf(),
            offset: ctx.at(cta_header::UNITS),
            what: "CTA block size for its units × slots",
            value: needed.map_or(u64::MAX, |n| n as u64),
            limit: block.len() as u64,
        });
    }
    let mismatch = |what: &'static str, field: usize, found: String, expected: String| {
        RuntimeError::MetaMismatch {
            path: ctx.path.to_path_buf(),
            offset: ctx.at(field),
            block_index: ctx.index,
            what,
            found,
            expected,
        }
    };
    if let Some(expected) = params.layout {
        if expected != layout {
            return Err(mismatch(
                "layout (units, slots)",
                cta_header::UNITS,
                format!("({}, {})", layout.units, layout.slots),
                format!("({}, {})", expected.units, expected.slots),
            ));
        }
    }
    if header.flags.counter != params.counter {
        return Err(mismatch(
            "counter",
            cta_header::FLAGS,
            header.flags.counter.name().into(),
            params.counter.name().into(),
        ));
    }
    if header.flags.strategy != params.strategy {
        return Err(mismatch(
            "strategy",
            cta_header::FLAGS,
            header.flags.strategy.name().into(),
            params.strategy.name().into(),
        ));
    }
    Ok(header)
}

/// Unit `i`'s entry in the unit table of a checked block: its id and how
/// many records it wrote.
fn unit_entry_of(
    block: &[u8],
    header: &CtaHeader,
    i: u32,
    params: &DecodeParams,
    ctx: &BlockCtx<'_>,
) -> Result<(u32, u64), RuntimeError> {
    let entry = header.layout.unit_entry_offset(i);
    let id = read_u32(block, entry + unit_entry::UNIT_ID, ctx.path, "unit entry")?;
    let written = read_u32(
        block,
        entry + unit_entry::RECORDS_WRITTEN,
        ctx.path,
        "unit entry",
    )?;
    if params.units_indexed && id != i && (id, written) != (0, 0) {
        return Err(RuntimeError::MetaMismatch {
            path: ctx.path.to_path_buf(),
            offset: ctx.at(entry + unit_entry::UNIT_ID),
            block_index: ctx.index,
            what: "unit id of a unit entry (the metadata samples no units: entry i is unit i)",
            found: id.to_string(),
            expected: i.to_string(),
        });
    }
    Ok((id, written.into()))
}

/// Refuse a unit's count of records written that the CTA's run could not
/// hold: each record takes at least a tick; twice the span plus 64 Ki covers
/// a coarse timer. Such a count is corrupt, and would otherwise turn into
/// billions of lost records.
fn check_written(
    header: &CtaHeader,
    i: u32,
    written: u64,
    ctx: &BlockCtx<'_>,
) -> Result<(), RuntimeError> {
    let slots = (header.layout.segment_bytes() / RECORD_SIZE) as u64;
    let span = header.finalize_clock.saturating_sub(header.start_clock);
    let limit = span.saturating_mul(2).saturating_add(1 << 16);
    if written > slots && span > 0 && written > limit {
        return Err(RuntimeError::Implausible {
            path: ctx.path.to_path_buf(),
            offset: ctx.at(header.layout.unit_entry_offset(i) + unit_entry::RECORDS_WRITTEN),
            what: "records written by one unit for the ticks its CTA ran",
            value: written,
            limit,
        });
    }
    Ok(())
}

/// What [`decode_block_into`] would find in a block, and every error it
/// would give, without reading the records.
pub(crate) fn read_block_head(
    block: &[u8],
    params: &DecodeParams,
    ctx: &BlockCtx<'_>,
) -> Result<BlockHead, RuntimeError> {
    let header = checked_header(block, params, ctx)?;
    let layout = header.layout;
    let slots = (layout.segment_bytes() / RECORD_SIZE) as u64;
    let counter = header.flags.counter;
    let circular = header.flags.strategy == Strategy::Circular;
    let mut records = 0;
    let mut earliest_first_clock: Option<u64> = None;
    for i in 0..layout.units {
        let (_, written) = unit_entry_of(block, &header, i, params, ctx)?;
        check_written(&header, i, written, ctx)?;
        records += written.min(slots);
        if written == 0 || slots == 0 {
            continue;
        }
        // The oldest surviving slot, as read_ring starts.
        let slot = if circular && written > slots {
            written % slots
        } else {
            0
        };
        let at = layout.segment_offset(i) + slot as usize * RECORD_SIZE;
        let word = kprof::slice(block, at, RECORD_SIZE, ctx.path, "unit segment")?;
        let bits = counter.record_bits();
        let raw = RecordWord::decode(words(word), counter).clock;
        let clock = Unwrapper::new(
            header.start_clock.saturating_sub(first_record_lead(bits)),
            bits,
        )
        .next(raw);
        earliest_first_clock = Some(earliest_first_clock.map_or(clock, |e| e.min(clock)));
    }
    Ok(BlockHead {
        earliest_first_clock,
        start_time_ns: header.start_time,
        records,
        cta_id: header.cta_id,
        start_clock: header.start_clock,
        finalize_clock: header.finalize_clock,
        finalize_start_ns: header.finalize_start_time,
    })
}

/// [`decode_block`] into an existing trace, reusing its vectors.
pub(crate) fn decode_block_into(
    block: &[u8],
    params: &DecodeParams,
    ctx: &BlockCtx<'_>,
    out: &mut CtaTrace,
) -> Result<(), RuntimeError> {
    let header = checked_header(block, params, ctx)?;
    let layout = header.layout;
    out.block_index = ctx.index;
    out.cta_id = header.cta_id;
    out.hw_id = header.hw_id;
    out.start_time_ns = header.start_time;
    out.finalize_start_ns = header.finalize_start_time;
    out.finalize_end_ns = header.finalize_end_time;
    out.start_clock = header.start_clock;
    out.finalize_clock = header.finalize_clock;
    out.units
        .resize_with(layout.units as usize, UnitTrace::default);

    let counter = header.flags.counter;
    let circular = header.flags.strategy == Strategy::Circular;
    let bits = counter.record_bits();
    for (i, unit) in (0..layout.units).zip(out.units.iter_mut()) {
        let (id, written) = unit_entry_of(block, &header, i, params, ctx)?;
        unit.unit_id = id;
        let segment = kprof::slice(
            block,
            layout.segment_offset(i),
            layout.segment_bytes(),
            ctx.path,
            "unit segment",
        )?;
        // Seeded a little before start_clock: a unit's first record may
        // precede thread 0's start stamp (its warp ran first), which must
        // read as slightly earlier, not as a whole wrap later.
        let mut clock = Unwrapper::new(
            header.start_clock.saturating_sub(first_record_lead(bits)),
            bits,
        );
        unit.records.clear();
        let surviving = read_ring(segment, written, circular, &mut unit.records, |w| {
            let r = RecordWord::decode(w, counter);
            Record {
                region: r.region,
                edge: r.edge,
                clock: clock.next(r.clock),
            }
        });
        check_written(&header, i, written, ctx)?;
        unit.records_written = written;
        unit.records_lost = written - surviving;
    }
    Ok(())
}

/// Lay a CTA block out exactly as the device lowering does, for tests,
/// benchmarks and synthetic profiles.
///
/// Each unit is `(unit_id, written, records)`: the unit wrote `written`
/// records in total and `records` are the last `records.len()` of them, in
/// order (pass all of them, or only a tail to fake a ring that wrapped many
/// times). Record number `n` (counting from 0 over all `written`) goes to
/// slot `n % slots` under the circular strategy, and to slot `n` if
/// `n < slots` under flush (later ones are dropped). The clocks are stored
/// truncated to the counter's record bits, as the device does.
///
/// # Panics
/// On arguments that describe no valid block (this builds test data; it
/// never sees file bytes): `counter` differing from the header's, a unit
/// count other than `header.layout.units`, or more records than `written`.
pub fn encode_block(
    header: &CtaHeader,
    units: &[(u32, u32, &[RecordWord])],
    counter: Counter,
) -> Vec<u8> {
    assert_eq!(
        counter, header.flags.counter,
        "encode_block: counter must match the header flags"
    );
    let layout = header.layout;
    assert_eq!(
        units.len(),
        layout.units as usize,
        "encode_block: one entry per unit of the layout"
    );
    let mut block = vec![0u8; layout.cta_stride()];
    header.write(&mut block);
    let slots = layout.slots as u64;
    let put = |block: &mut [u8], off: usize, v: u32| {
        block[off..off + 4].copy_from_slice(&v.to_le_bytes())
    };
    for (i, &(unit_id, written, records)) in (0u32..).zip(units) {
        assert!(
            records.len() as u64 <= written as u64,
            "encode_block: unit {i} has more records than it wrote"
        );
        let entry = layout.unit_entry_offset(i);
        put(&mut block, entry + unit_entry::UNIT_ID, unit_id);
        put(&mut block, entry + unit_entry::RECORDS_WRITTEN, written);
        if slots == 0 {
            continue;
        }
        let first = written as u64 - records.len() as u64;
        for (n, r) in (first..).zip(records) {
            let slot = match header.flags.strategy {
                Strategy::Circular => n % slots,
                Strategy::Flush if n < slots => n,
                Strategy::Flush => break,
            };
            let off = layout.segment_offset(i) + slot as usize * RECORD_SIZE;
            let [tag, lo] = r.encode(counter);
            put(&mut block, off, tag);
            put(&mut block, off + 4, lo);
        }
    }
    block
}

/// The bytes a reader decodes from: a read-only memory map, or a vector for
/// in-memory profiles (tests, fuzzing, freshly read device buffers).
enum Backing {
    Mmap(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mmap(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// What the bytes are.
enum Format {
    Kprof {
        params: DecodeParams,
        buffer_offset: u64,
        block_count: u64,
        cta_stride: u64,
    },
    Proton(ProtonDump),
}

/// A profile opened for decoding, one CTA block at a time.
///
/// Opening validates the container header only; each block is checked when
/// it is decoded, so one corrupt block costs one `Err` from
/// [`ctas`](Self::ctas), not the whole profile.
pub struct ProfileReader {
    path: PathBuf,
    data: Backing,
    info: RunInfo,
    format: Format,
}

impl std::fmt::Debug for ProfileReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProfileReader")
            .field("path", &self.path)
            .field("len", &self.data.bytes().len())
            .field("block_count", &self.block_count())
            .field("info", &self.info)
            .finish()
    }
}

fn map_file(path: &Path) -> Result<Backing, RuntimeError> {
    let io = |source| RuntimeError::Io {
        path: path.to_path_buf(),
        source,
    };
    // A FIFO would block the open; a directory or device cannot be mapped
    // as a profile: say what it is.
    crate::input::check_regular(path).map_err(io)?;
    let file = std::fs::File::open(path).map_err(io)?;
    // SAFETY: the map is read-only and private to this reader. Like every
    // memory-mapped reader we rely on the file not being truncated or
    // rewritten while it is open; .kprof files are written once, by rename.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    #[cfg(unix)]
    {
        // Blocks are decoded front to back; a failed hint changes nothing.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(Backing::Mmap(map))
}

impl ProfileReader {
    /// Memory-map a `.kprof` file and validate its header.
    pub fn open(path: impl AsRef<Path>) -> Result<ProfileReader, RuntimeError> {
        let path = path.as_ref();
        Self::kprof(path.to_path_buf(), map_file(path)?)
    }

    /// Memory-map a Proton host dump (see [`crate::proton`]).
    pub fn open_proton(path: impl AsRef<Path>) -> Result<ProfileReader, RuntimeError> {
        let path = path.as_ref();
        let kernel = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "proton".into());
        Self::proton(path.to_path_buf(), map_file(path)?, &kernel)
    }

    /// Open either format, telling them apart by the `.kprof` magic.
    pub fn open_auto(path: impl AsRef<Path>) -> Result<ProfileReader, RuntimeError> {
        let path = path.as_ref();
        let data = map_file(path)?;
        if data.bytes().starts_with(&crate::kprof::KPROF_MAGIC[..5]) {
            Self::kprof(path.to_path_buf(), data)
        } else {
            let kernel = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "proton".into());
            Self::proton(path.to_path_buf(), data, &kernel)
        }
    }

    /// Memory-map a raw device buffer (what a launch wrote, without the
    /// `.kprof` container) described by `info`, with blocks of `cta_stride`
    /// bytes. Errors name `path` and offsets into it.
    pub fn open_raw(
        path: impl AsRef<Path>,
        info: RunInfo,
        cta_stride: u64,
    ) -> Result<ProfileReader, RuntimeError> {
        let path = path.as_ref();
        let data = map_file(path)?;
        let len = data.bytes().len() as u64;
        if cta_stride == 0 || len == 0 || !len.is_multiple_of(cta_stride) {
            return Err(RuntimeError::BadArgument {
                path: path.to_path_buf(),
                detail: format!(
                    "{len} bytes is not a whole number of CTA blocks of {cta_stride} bytes"
                ),
            });
        }
        let format = Format::Kprof {
            params: DecodeParams::for_run(&info),
            buffer_offset: 0,
            block_count: len / cta_stride,
            cta_stride,
        };
        Ok(ProfileReader {
            path: path.to_path_buf(),
            data,
            info,
            format,
        })
    }

    /// A `.kprof` file already in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<ProfileReader, RuntimeError> {
        Self::kprof(PathBuf::from(MEMORY), Backing::Owned(bytes))
    }

    /// A Proton host dump already in memory; the kernel is named `proton`.
    pub fn proton_from_bytes(bytes: Vec<u8>) -> Result<ProfileReader, RuntimeError> {
        Self::proton(PathBuf::from(MEMORY), Backing::Owned(bytes), "proton")
    }

    fn kprof(path: PathBuf, data: Backing) -> Result<ProfileReader, RuntimeError> {
        let h = kprof::parse_header(data.bytes(), &path)?;
        let params = DecodeParams::for_run(&h.info);
        let format = Format::Kprof {
            params,
            buffer_offset: h.buffer_offset,
            block_count: h.block_count,
            cta_stride: h.cta_stride,
        };
        Ok(ProfileReader {
            path,
            data,
            info: h.info,
            format,
        })
    }

    fn proton(path: PathBuf, data: Backing, kernel: &str) -> Result<ProfileReader, RuntimeError> {
        let dump = ProtonDump::parse(data.bytes(), &path)?;
        let info = dump.run_info(data.bytes(), kernel);
        Ok(ProfileReader {
            path,
            data,
            info,
            format: Format::Proton(dump),
        })
    }

    /// How the profile was recorded and what its regions are.
    pub fn info(&self) -> &RunInfo {
        &self.info
    }

    /// The file this reader maps (`<memory>` for in-memory profiles).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Blocks in the buffer, written or not (unwritten ones are skipped by [`Self::ctas`]).
    pub fn block_count(&self) -> u64 {
        match &self.format {
            Format::Kprof { block_count, .. } => *block_count,
            Format::Proton(d) => d.num_ctas.into(),
        }
    }

    /// Bytes per CTA block.
    pub fn cta_stride(&self) -> u64 {
        match &self.format {
            Format::Kprof { cta_stride, .. } => *cta_stride,
            Format::Proton(d) => d.cta_stride.into(),
        }
    }

    /// Every written CTA, decoded lazily in block order. Unwritten blocks
    /// (CTAs that were not sampled) and unfinished ones (see
    /// [`BlockRead::Unfinished`]; [`Self::read_cta_into`] tells them apart)
    /// are skipped; a corrupt block yields an
    /// `Err` and iteration goes on with the next one.
    pub fn ctas(&self) -> Ctas<'_> {
        Ctas {
            reader: self,
            next: 0,
        }
    }

    /// Block `block_index`'s bytes, or what stands in for them.
    fn block_bytes(&self, block_index: u64) -> Result<BlockBytes<'_>, RuntimeError> {
        if block_index >= self.block_count() {
            return Err(RuntimeError::BadArgument {
                path: self.path.clone(),
                detail: format!(
                    "block {block_index} requested, the profile has {}",
                    self.block_count()
                ),
            });
        }
        let bytes = self.data.bytes();
        match &self.format {
            Format::Kprof {
                params,
                buffer_offset,
                cta_stride,
                ..
            } => {
                // In range: parse_header checked block_count × cta_stride against the file size.
                let offset = buffer_offset + block_index * cta_stride;
                let block = kprof::slice(
                    bytes,
                    offset as usize,
                    *cta_stride as usize,
                    &self.path,
                    "CTA block",
                )?;
                if CtaHeader::is_unwritten(block) {
                    return Ok(BlockBytes::Unwritten);
                }
                let ctx = BlockCtx {
                    path: &self.path,
                    offset,
                    index: block_index,
                };
                Ok(BlockBytes::Kprof { block, params, ctx })
            }
            Format::Proton(dump) => Ok(BlockBytes::Proton(dump, bytes)),
        }
    }

    /// Decode block `block_index` into `out`, reusing `out`'s vectors (the
    /// allocation-free path for hot loops). Unless it returns
    /// [`BlockRead::Decoded`], `out` is left unspecified.
    pub fn read_cta_into(
        &self,
        block_index: u64,
        out: &mut CtaTrace,
    ) -> Result<BlockRead, RuntimeError> {
        match self.block_bytes(block_index)? {
            BlockBytes::Unwritten => Ok(BlockRead::Unwritten),
            BlockBytes::Kprof { block, params, ctx } => {
                finished(decode_block_into(block, params, &ctx, out))
            }
            BlockBytes::Proton(dump, bytes) => {
                let written = dump.decode_block(bytes, block_index, &self.path, out)?;
                Ok(if written {
                    BlockRead::Decoded
                } else {
                    BlockRead::Unwritten
                })
            }
        }
    }

    /// Whether [`Self::read_head`] reads less than decoding does: kperf's
    /// blocks have headers and unit tables; a Proton block is decoded.
    pub fn reads_heads_alone(&self) -> bool {
        matches!(self.format, Format::Kprof { .. })
    }

    /// What [`Self::read_cta_into`] would find in block `block_index`, with
    /// the same errors, from the block's header and unit table alone (and
    /// each unit's oldest record; a
    /// Proton block is decoded: its header does not say where its records
    /// end). [`BlockRead::Decoded`] here means the block would decode, and
    /// `out` describes it; otherwise `out` is left unspecified.
    pub fn read_head(
        &self,
        block_index: u64,
        out: &mut BlockHead,
    ) -> Result<BlockRead, RuntimeError> {
        match self.block_bytes(block_index)? {
            BlockBytes::Unwritten => Ok(BlockRead::Unwritten),
            BlockBytes::Kprof { block, params, ctx } => {
                finished(read_block_head(block, params, &ctx).map(|head| *out = head))
            }
            BlockBytes::Proton(..) => {
                let mut cta = CtaTrace::default();
                let read = self.read_cta_into(block_index, &mut cta)?;
                *out = BlockHead {
                    start_time_ns: cta.start_time_ns,
                    records: cta.units.iter().map(|u| u.records.len() as u64).sum(),
                    cta_id: cta.cta_id,
                    start_clock: cta.start_clock,
                    finalize_clock: cta.finalize_clock,
                    finalize_start_ns: cta.finalize_start_ns,
                    earliest_first_clock: cta.earliest_first_clock(),
                };
                Ok(read)
            }
        }
    }

    /// Decode one block; `Ok(None)` if it holds no CTA to decode (never
    /// written, or unfinished: see [`BlockRead`]).
    pub fn cta(&self, block_index: u64) -> Result<Option<CtaTrace>, RuntimeError> {
        let mut out = CtaTrace::default();
        Ok((self.read_cta_into(block_index, &mut out)? == BlockRead::Decoded).then_some(out))
    }
}

/// What [`ProfileReader::read_cta_into`] found in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRead {
    /// A CTA was decoded.
    Decoded,
    /// The block's first word is 0: the CTA was not sampled or never ran.
    Unwritten,
    /// A kperf header whose shape (written last) is still 0: the CTA's
    /// thread 0 never reached the end of finalize (the kernel aborted, or
    /// the CTA left by a path without finalize). Its rings may be
    /// half-copied, so it is not decoded.
    Unfinished,
}

/// A block as [`ProfileReader::block_bytes`] finds it.
enum BlockBytes<'a> {
    Unwritten,
    Kprof {
        block: &'a [u8],
        params: &'a DecodeParams,
        ctx: BlockCtx<'a>,
    },
    /// Proton blocks are found by the dump, in the file's bytes.
    Proton(&'a ProtonDump, &'a [u8]),
}

/// A kperf block's decoding, with the one header error that is not a
/// failure (the CTA never finished its finalize) told apart.
fn finished(decoded: Result<(), RuntimeError>) -> Result<BlockRead, RuntimeError> {
    match decoded {
        Ok(()) => Ok(BlockRead::Decoded),
        Err(RuntimeError::BadCtaHeader {
            source: HeaderError::Unfinished,
            ..
        }) => Ok(BlockRead::Unfinished),
        Err(e) => Err(e),
    }
}

/// The iterator of [`ProfileReader::ctas`].
pub struct Ctas<'a> {
    reader: &'a ProfileReader,
    next: u64,
}

impl Iterator for Ctas<'_> {
    type Item = Result<CtaTrace, RuntimeError>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.next < self.reader.block_count() {
            let index = self.next;
            self.next += 1;
            let mut out = CtaTrace::default();
            match self.reader.read_cta_into(index, &mut out) {
                Ok(BlockRead::Decoded) => return Some(Ok(out)),
                Ok(BlockRead::Unwritten | BlockRead::Unfinished) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.reader.block_count().saturating_sub(self.next);
        (0, usize::try_from(left).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kperf_dialects::abi::{Edge, HeaderFlags, RegionId};

    fn header(
        counter: Counter,
        strategy: Strategy,
        units: u32,
        slots: u32,
        start_clock: u64,
    ) -> CtaHeader {
        CtaHeader {
            cta_id: 3,
            hw_id: 9,
            start_time: 100,
            finalize_start_time: 200,
            finalize_end_time: 210,
            start_clock,
            finalize_clock: start_clock + 1000,
            layout: Layout { units, slots },
            flags: HeaderFlags { counter, strategy },
        }
    }

    fn recs(clocks: &[u64]) -> Vec<RecordWord> {
        clocks
            .iter()
            .enumerate()
            .map(|(i, &c)| RecordWord {
                region: RegionId(i as u16 % 3),
                edge: if i % 2 == 0 { Edge::Start } else { Edge::End },
                clock: c,
            })
            .collect()
    }

    #[test]
    fn unwrapper_places_values_at_or_after_the_previous_one() {
        let mut u = Unwrapper::new(u32::MAX as u64 - 5, 32);
        assert_eq!(u.next(u32::MAX as u64 - 5), u32::MAX as u64 - 5);
        assert_eq!(u.next(3), (1 << 32) + 3);
        assert_eq!(u.next(3), (1 << 32) + 3);
        assert_eq!(
            u.next(2),
            (2 << 32) + 2,
            "a backwards step is read as almost a full wrap"
        );
        // 47-bit records keep the seed's bits above 47.
        let mut u = Unwrapper::new((5 << 47) - 10, 47);
        assert_eq!(u.next(3), (5 << 47) + 3);
        // Seeds near the top of u64 wrap instead of overflowing.
        let mut u = Unwrapper::new(u64::MAX - 1, 47);
        assert_eq!(u.next(1), 1);
    }

    #[test]
    fn ring_rotation_starts_at_the_oldest_survivor() {
        // 4 slots, 6 records written: slots hold [4, 5, 2, 3].
        let h = header(Counter::Clock64, Strategy::Circular, 1, 4, 0);
        let all = recs(&[10, 20, 30, 40, 50, 60]);
        let block = encode_block(&h, &[(7, 6, &all)], Counter::Clock64);
        let t = decode_block(
            &block,
            &DecodeParams {
                counter: Counter::Clock64,
                strategy: Strategy::Circular,
                layout: None,
                units_indexed: false,
            },
        )
        .unwrap();
        let u = &t.units[0];
        assert_eq!((u.unit_id, u.records_written, u.records_lost), (7, 6, 2));
        assert_eq!(
            u.records.iter().map(|r| r.clock).collect::<Vec<_>>(),
            [30, 40, 50, 60]
        );
    }

    #[test]
    fn a_first_record_just_before_the_start_stamp_reads_before_it() {
        // The SIMT target (and, by a few cycles, a GPU) can run a warp's
        // first record before thread 0 stamps the CTA's start.
        let start = (7u64 << 32) + 100;
        let h = header(Counter::Clock32, Strategy::Circular, 1, 4, start);
        let all = recs(&[start - 40, start + 60]);
        let block = encode_block(&h, &[(0, 2, &all)], Counter::Clock32);
        let params = DecodeParams {
            counter: Counter::Clock32,
            strategy: Strategy::Circular,
            layout: None,
            units_indexed: false,
        };
        let t = decode_block(&block, &params).unwrap();
        let clocks: Vec<u64> = t.units[0].records.iter().map(|r| r.clock).collect();
        assert_eq!(clocks, [start - 40, start + 60], "not a 2^32 wrap later");
    }

    #[test]
    fn flush_keeps_the_first_records() {
        let h = header(Counter::Globaltimer, Strategy::Flush, 1, 4, 0);
        let all = recs(&[10, 20, 30, 40, 50, 60]);
        let block = encode_block(&h, &[(0, 6, &all)], Counter::Globaltimer);
        let t = decode_block(
            &block,
            &DecodeParams {
                counter: Counter::Globaltimer,
                strategy: Strategy::Flush,
                layout: None,
                units_indexed: false,
            },
        )
        .unwrap();
        assert_eq!(
            t.units[0]
                .records
                .iter()
                .map(|r| r.clock)
                .collect::<Vec<_>>(),
            [10, 20, 30, 40]
        );
        assert_eq!(t.units[0].records_lost, 2);
    }

    #[test]
    fn slots_past_the_written_count_are_not_read() {
        let h = header(Counter::Clock64, Strategy::Circular, 1, 8, 0);
        let mut block = encode_block(&h, &[(0, 2, &recs(&[1, 2]))], Counter::Clock64);
        let seg = Layout { units: 1, slots: 8 }.segment_offset(0);
        block[seg + 16..].fill(0xBE);
        let t = decode_block(
            &block,
            &DecodeParams {
                counter: Counter::Clock64,
                strategy: Strategy::Circular,
                layout: None,
                units_indexed: false,
            },
        )
        .unwrap();
        assert_eq!(t.units[0].records.len(), 2);
    }

    #[test]
    fn block_problems_point_at_the_field() {
        let params = DecodeParams {
            counter: Counter::Clock64,
            strategy: Strategy::Circular,
            layout: None,
            units_indexed: false,
        };
        let h = header(Counter::Clock64, Strategy::Circular, 2, 4, 0);
        let block = encode_block(&h, &[(0, 0, &[]), (1, 0, &[])], Counter::Clock64);

        let mut bad = block.clone();
        bad[cta_header::UNITS..cta_header::UNITS + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = decode_block(&bad, &params).unwrap_err();
        assert!(matches!(e, RuntimeError::Implausible { .. }), "{e}");
        assert_eq!(e.offset(), Some(cta_header::UNITS as u64));

        let e = decode_block(
            &block,
            &DecodeParams {
                counter: Counter::Clock32,
                ..params
            },
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                RuntimeError::MetaMismatch {
                    what: "counter",
                    ..
                }
            ),
            "{e}"
        );
        let e = decode_block(
            &block,
            &DecodeParams {
                strategy: Strategy::Flush,
                ..params
            },
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                RuntimeError::MetaMismatch {
                    what: "strategy",
                    ..
                }
            ),
            "{e}"
        );
        let e = decode_block(
            &block,
            &DecodeParams {
                layout: Some(Layout { units: 2, slots: 8 }),
                ..params
            },
        )
        .unwrap_err();
        assert!(
            matches!(
                e,
                RuntimeError::MetaMismatch {
                    what: "layout (units, slots)",
                    ..
                }
            ),
            "{e}"
        );

        // Entry 1 naming unit 0xFFFFFFFF where the metadata samples no
        // units: refused at the entry's id. An entry never written (all
        // zero) is a unit that never ran, and passes.
        let indexed = DecodeParams {
            units_indexed: true,
            ..params
        };
        let h1 = header(Counter::Clock64, Strategy::Circular, 2, 4, 0);
        let mut bad = encode_block(&h1, &[(0, 1, &recs(&[5])), (1, 0, &[])], Counter::Clock64);
        let id_at = Layout { units: 2, slots: 4 }.unit_entry_offset(1) + unit_entry::UNIT_ID;
        bad[id_at..id_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = decode_block(&bad, &indexed).unwrap_err();
        assert!(matches!(e, RuntimeError::MetaMismatch { .. }), "{e}");
        assert_eq!(e.offset(), Some(id_at as u64));
        bad[id_at..id_at + 4].fill(0);
        assert_eq!(decode_block(&bad, &indexed).unwrap().units[1].unit_id, 0);
        assert!(decode_block(&block, &indexed).is_ok());

        let mut bad = block.clone();
        bad[cta_header::FLAGS] = 0xFF;
        let e = decode_block(&bad, &params).unwrap_err();
        assert!(
            matches!(
                e,
                RuntimeError::BadCtaHeader {
                    source: HeaderError::BadFlags(_),
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.offset(), Some(cta_header::FLAGS as u64));
        assert!(matches!(
            decode_block(&block[..40], &params),
            Err(RuntimeError::BadCtaHeader { .. })
        ));
    }
}
