//! The `.kprof` raw-profile container.
//!
//! A `.kprof` file is the device profile buffer exactly as the kernel left
//! it, behind a small self-describing header, so decoding can happen later,
//! elsewhere, and by memory map:
//!
//! ```text
//! +0      8 bytes  magic  b"KPROF\0\0\x01"  (7 identifying bytes, then the container version)
//! +8      u32 LE   json_len
//! +12     json_len bytes of RunInfo JSON
//!         zero padding to the next multiple of 8
//! +P      u64 LE   block_count
//! +P+8    u64 LE   cta_stride (bytes per CTA block, ≥ CTA_HEADER_SIZE, multiple of 8)
//! +P+16   block_count × cta_stride bytes: the raw device buffer
//! ```
//!
//! The buffer starts 8-aligned in the file so a page-aligned memory map
//! keeps every CTA block as aligned as it was on the device. The file ends
//! exactly after the buffer: a size mismatch means truncation or garbage
//! and is refused rather than guessed around. See docs/profile-format.md.

use crate::error::RuntimeError;
use crate::output::AtomicFile;
use crate::profile::RunInfo;
use kperf_dialects::abi::{CTA_HEADER_SIZE, RECORD_SIZE};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first 8 bytes of every `.kprof` file; the last byte is [`KPROF_VERSION`].
pub const KPROF_MAGIC: [u8; 8] = *b"KPROF\0\0\x01";
/// The bytes of [`KPROF_MAGIC`] that identify the format (the rest is the version).
const MAGIC_ID_LEN: usize = 7;
/// Container version this build reads and writes (byte 7 of the file).
pub const KPROF_VERSION: u8 = 1;
/// Byte offset of the u32 JSON length.
const JSON_LEN_OFFSET: usize = 8;
/// Byte offset of the RunInfo JSON.
const JSON_OFFSET: usize = 12;
/// Largest RunInfo JSON accepted. Real metadata is kilobytes; the cap keeps
/// a corrupt length from making the reader parse (and allocate for) gigabytes.
pub const MAX_JSON_LEN: u32 = 64 << 20;

/// The parsed `.kprof` header: what is needed to find and decode the blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct KprofHeader {
    pub info: RunInfo,
    pub block_count: u64,
    pub cta_stride: u64,
    /// Absolute byte offset of block 0.
    pub buffer_offset: u64,
}

/// Where the block table (block_count, cta_stride) starts for a JSON of `json_len` bytes.
fn table_offset(json_len: usize) -> Option<usize> {
    JSON_OFFSET
        .checked_add(json_len)?
        .checked_next_multiple_of(8)
}

pub(crate) fn slice<'a>(
    bytes: &'a [u8],
    offset: usize,
    len: usize,
    path: &Path,
    what: &'static str,
) -> Result<&'a [u8], RuntimeError> {
    offset
        .checked_add(len)
        .and_then(|end| bytes.get(offset..end))
        .ok_or_else(|| RuntimeError::Truncated {
            path: path.to_path_buf(),
            offset: offset as u64,
            what,
            needed: len as u64,
            available: bytes.len().saturating_sub(offset) as u64,
        })
}

pub(crate) fn read_u32(
    bytes: &[u8],
    offset: usize,
    path: &Path,
    what: &'static str,
) -> Result<u32, RuntimeError> {
    let s = slice(bytes, offset, 4, path, what)?;
    Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

pub(crate) fn read_u64(
    bytes: &[u8],
    offset: usize,
    path: &Path,
    what: &'static str,
) -> Result<u64, RuntimeError> {
    let s = slice(bytes, offset, 8, path, what)?;
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    Ok(u64::from_le_bytes(w))
}

/// Check that `cta_stride` can hold a CTA block at all. A stride below the
/// header size could make a tiny file claim billions of (empty) blocks.
fn check_stride(cta_stride: u64, path: &Path, offset: u64) -> Result<(), RuntimeError> {
    if cta_stride < CTA_HEADER_SIZE as u64 || cta_stride.checked_rem(RECORD_SIZE as u64) != Some(0)
    {
        return Err(RuntimeError::Invalid {
            path: path.to_path_buf(),
            offset,
            what: "cta_stride",
            detail: format!("{cta_stride} is not a multiple of {RECORD_SIZE} of at least the {CTA_HEADER_SIZE}-byte CTA header"),
        });
    }
    Ok(())
}

/// Parse and validate a `.kprof` header. `bytes` is the whole file (usually
/// a memory map); only the header and the file length are looked at.
pub fn parse_header(bytes: &[u8], path: &Path) -> Result<KprofHeader, RuntimeError> {
    let magic = slice(bytes, 0, KPROF_MAGIC.len(), path, "kprof magic")?;
    if magic[..MAGIC_ID_LEN] != KPROF_MAGIC[..MAGIC_ID_LEN] {
        return Err(RuntimeError::BadMagic {
            path: path.to_path_buf(),
            offset: 0,
            what: "kprof container",
            found: magic[..MAGIC_ID_LEN].to_vec(),
            expected: KPROF_MAGIC[..MAGIC_ID_LEN].to_vec(),
        });
    }
    let version = magic[MAGIC_ID_LEN];
    if version != KPROF_VERSION {
        return Err(RuntimeError::BadVersion {
            path: path.to_path_buf(),
            offset: MAGIC_ID_LEN as u64,
            what: "kprof container",
            found: version.into(),
            supported: KPROF_VERSION.into(),
        });
    }

    let json_len = read_u32(bytes, JSON_LEN_OFFSET, path, "RunInfo JSON length")?;
    if json_len > MAX_JSON_LEN {
        return Err(RuntimeError::Implausible {
            path: path.to_path_buf(),
            offset: JSON_LEN_OFFSET as u64,
            what: "RunInfo JSON length",
            value: json_len.into(),
            limit: MAX_JSON_LEN.into(),
        });
    }
    let json_len = json_len as usize;
    let json = slice(bytes, JSON_OFFSET, json_len, path, "RunInfo JSON")?;
    let info: RunInfo = serde_json::from_slice(json).map_err(|source| RuntimeError::BadJson {
        path: path.to_path_buf(),
        offset: JSON_OFFSET as u64,
        len: json_len as u64,
        source,
    })?;

    if let Some(detail) = info.inconsistent_field() {
        return Err(RuntimeError::Invalid {
            path: path.to_path_buf(),
            offset: JSON_OFFSET as u64,
            what: "RunInfo JSON",
            detail,
        });
    }
    // One clear error for a profile of another buffer ABI, rather than a
    // bad-version error from every block.
    if let Some(detail) = info.meta.abi_mismatch() {
        return Err(RuntimeError::Invalid {
            path: path.to_path_buf(),
            offset: JSON_OFFSET as u64,
            what: "RunInfo JSON (meta.abi_version)",
            detail,
        });
    }

    // json_len ≤ MAX_JSON_LEN, so this cannot overflow; the fallback only keeps it panic-free.
    let table = table_offset(json_len).unwrap_or(usize::MAX);
    let pad_start = JSON_OFFSET + json_len;
    let padding = slice(
        bytes,
        pad_start,
        table.saturating_sub(pad_start),
        path,
        "header padding",
    )?;
    if let Some(i) = padding.iter().position(|b| *b != 0) {
        return Err(RuntimeError::Invalid {
            path: path.to_path_buf(),
            offset: (pad_start + i) as u64,
            what: "header padding",
            detail: format!("byte {:#04x} where the writer puts 0", padding[i]),
        });
    }

    let block_count = read_u64(bytes, table, path, "block table")?;
    let cta_stride = read_u64(bytes, table + 8, path, "block table")?;
    check_stride(cta_stride, path, (table + 8) as u64)?;
    let buffer_offset = table + 16;
    let available = bytes.len().saturating_sub(buffer_offset) as u64;
    // In u128 the product cannot overflow: a count the bytes cannot hold
    // (a truncated file, or a corrupt count) is the size mismatch it is.
    let expected = block_count as u128 * cta_stride as u128;
    if expected != available as u128 {
        return Err(RuntimeError::SizeMismatch {
            path: path.to_path_buf(),
            offset: buffer_offset as u64,
            block_count,
            cta_stride,
            expected,
            actual: available,
        });
    }
    Ok(KprofHeader {
        info,
        block_count,
        cta_stride,
        buffer_offset: buffer_offset as u64,
    })
}

/// Serialise the header for a buffer of `block_count` blocks of `cta_stride` bytes.
pub fn encode_header(
    info: &RunInfo,
    block_count: u64,
    cta_stride: u64,
) -> Result<Vec<u8>, RuntimeError> {
    let memory = PathBuf::from("<memory>");
    check_stride(cta_stride, &memory, 0).map_err(|e| RuntimeError::BadArgument {
        path: memory.clone(),
        detail: e.to_string(),
    })?;
    let json = serde_json::to_vec(info).map_err(|e| RuntimeError::BadArgument {
        path: memory.clone(),
        detail: format!("RunInfo does not serialise: {e}"),
    })?;
    if json.len() > MAX_JSON_LEN as usize {
        return Err(RuntimeError::BadArgument {
            path: memory,
            detail: format!(
                "RunInfo JSON is {} bytes, more than the {MAX_JSON_LEN} a reader accepts",
                json.len()
            ),
        });
    }
    let table = table_offset(json.len()).unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(table + 16);
    out.extend_from_slice(&KPROF_MAGIC);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.resize(table, 0);
    out.extend_from_slice(&block_count.to_le_bytes());
    out.extend_from_slice(&cta_stride.to_le_bytes());
    Ok(out)
}

/// Number of blocks in `buffer`, or why it is not a whole number of `cta_stride` blocks.
fn block_count_of(buffer: &[u8], cta_stride: usize, path: &Path) -> Result<u64, RuntimeError> {
    if buffer.len().checked_rem(cta_stride) != Some(0) {
        return Err(RuntimeError::BadArgument {
            path: path.to_path_buf(),
            detail: format!(
                "buffer of {} bytes is not a whole number of {cta_stride}-byte CTA blocks",
                buffer.len()
            ),
        });
    }
    Ok((buffer.len() / cta_stride) as u64)
}

/// The whole `.kprof` file in memory (tests, fuzzing, small profiles).
pub fn encode_kprof(
    info: &RunInfo,
    cta_stride: usize,
    buffer: &[u8],
) -> Result<Vec<u8>, RuntimeError> {
    let block_count = block_count_of(buffer, cta_stride, Path::new("<memory>"))?;
    let mut out = encode_header(info, block_count, cta_stride as u64)?;
    out.extend_from_slice(buffer);
    Ok(out)
}

/// Removes a temporary file unless the write it belongs to succeeded.
/// Write `buffer` (the raw device profile buffer, `cta_stride` bytes per
/// CTA block) as a `.kprof` file at `path`.
///
/// Written through [`crate::output::AtomicFile`]: a crash, error or
/// interrupt never leaves a half-written profile under the final name, and
/// readers of an existing profile see either the old or the new one.
pub fn write_kprof(
    path: impl AsRef<Path>,
    info: &RunInfo,
    cta_stride: usize,
    buffer: &[u8],
) -> Result<(), RuntimeError> {
    let path = path.as_ref();
    let block_count = block_count_of(buffer, cta_stride, path)?;
    let header = encode_header(info, block_count, cta_stride as u64).map_err(|e| {
        RuntimeError::BadArgument {
            path: path.to_path_buf(),
            detail: e.to_string(),
        }
    })?;

    let mut out = AtomicFile::create(path)?;
    let w = out.writer();
    let written = w.write_all(&header).and_then(|_| w.write_all(buffer));
    written.map_err(|e| out.error(e))?;
    out.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kperf_dialects::abi::{ClockDomain, Counter, Layout, Strategy};
    use kperf_dialects::meta::{BufferKind, Granularity, InstrumentMeta};

    fn info() -> RunInfo {
        RunInfo {
            target: "host".into(),
            kernel: "k".into(),
            grid: [2, 1, 1],
            block: [64, 1, 1],
            counter: Counter::Clock64,
            clock_domain: ClockDomain::Cycles,
            granularity: Granularity::Warp,
            strategy: Strategy::Circular,
            ticks_per_ns: None,
            record_cost_ticks: None,
            record_cost_back_to_back_ticks: None,
            record_cost_origin: None,
            check: None,
            meta: InstrumentMeta::new_header(
                "host",
                Counter::Clock64,
                Granularity::Warp,
                BufferKind::Shared,
                Strategy::Circular,
            ),
        }
    }

    #[test]
    fn header_round_trips_and_buffer_is_8_aligned() {
        let stride = Layout { units: 2, slots: 4 }.cta_stride();
        let buf = vec![0u8; 3 * stride];
        let file = encode_kprof(&info(), stride, &buf).unwrap();
        let h = parse_header(&file, Path::new("x")).unwrap();
        assert_eq!(h.info, info());
        assert_eq!((h.block_count, h.cta_stride), (3, stride as u64));
        assert_eq!(h.buffer_offset % 8, 0);
        assert_eq!(file.len() as u64, h.buffer_offset + 3 * stride as u64);
    }

    /// Figures no run writes, in the header's own JSON: used as given, a
    /// record cost of 1e7 made every duration 0 and a wall time of 2^64 - 1
    /// read as +27154719533812464% (found by an adversarial pass,
    /// 2026-11-27). The header still parses (its records are readable);
    /// `plausible_figures` drops each, naming it. A clock domain that
    /// contradicts the counter is refused at the JSON's offset.
    #[test]
    fn implausible_header_figures_are_dropped_by_name() {
        let stride = Layout { units: 1, slots: 2 }.cta_stride();
        let p = Path::new("f.kprof");
        let check = |mean: f64, profiled: Option<u64>| crate::profile::UninstrumentedRun {
            ctas: 1,
            cta_mean_ticks: Some(mean),
            cta_median_ticks: None,
            wall_ns: 1000,
            profiled_wall_ns: profiled,
            method: "test".into(),
        };
        type Edit = Box<dyn Fn(&mut RunInfo)>;
        let cases: Vec<(Edit, &str)> = vec![
            (
                Box::new(|i| i.record_cost_ticks = Some(1e7)),
                "record_cost_ticks = 1e7",
            ),
            (
                Box::new(|i| i.record_cost_back_to_back_ticks = Some(-1.0)),
                "record_cost_back_to_back_ticks",
            ),
            (
                Box::new(move |i| i.check = Some(check(1e-300, None))),
                "check.cta_mean_ticks",
            ),
            (
                Box::new(move |i| i.check = Some(check(100.0, Some(u64::MAX)))),
                "check.profiled_wall_ns",
            ),
        ];
        for (edit, field) in cases {
            let mut i = info();
            edit(&mut i);
            let file = encode_kprof(&i, stride, &vec![0u8; stride]).unwrap();
            let h = parse_header(&file, p).unwrap();
            let (clean, notes) = h.info.plausible_figures();
            assert!(
                notes.iter().any(|n| n.contains(field)),
                "{field}: {notes:?}"
            );
            assert!(clean.record_cost_ticks.is_none_or(|c| c < 1e6));
            assert!(clean
                .record_cost_back_to_back_ticks
                .is_none_or(|c| c >= 0.0));
            assert!(clean.check.is_none(), "{field}");
        }
        let mut ok = info();
        ok.record_cost_ticks = Some(36.0);
        assert!(ok.plausible_figures().1.is_empty());
        let mut bad = info();
        bad.clock_domain = ClockDomain::Nanoseconds;
        let file = encode_kprof(&bad, stride, &vec![0u8; stride]).unwrap();
        let e = parse_header(&file, p).unwrap_err();
        assert!(
            matches!(e, RuntimeError::Invalid { offset: 12, .. })
                && e.to_string()
                    .contains("clock_domain Nanoseconds disagrees with counter clock64"),
            "{e}"
        );
    }

    #[test]
    fn every_header_problem_names_its_offset() {
        let stride = Layout { units: 1, slots: 2 }.cta_stride();
        let file = encode_kprof(&info(), stride, &vec![0u8; stride]).unwrap();
        let p = Path::new("f.kprof");
        let table = parse_header(&file, p).unwrap().buffer_offset as usize - 16;

        let mut bad = file.clone();
        bad[0] = b'X';
        assert!(matches!(
            parse_header(&bad, p),
            Err(RuntimeError::BadMagic { offset: 0, .. })
        ));
        let mut bad = file.clone();
        bad[7] = 2;
        assert!(matches!(
            parse_header(&bad, p),
            Err(RuntimeError::BadVersion {
                offset: 7,
                found: 2,
                ..
            })
        ));
        assert!(matches!(
            parse_header(&file[..10], p),
            Err(RuntimeError::Truncated { offset: 8, .. })
        ));
        assert!(matches!(
            parse_header(&file[..20], p),
            Err(RuntimeError::Truncated { offset: 12, .. })
        ));
        let mut bad = file.clone();
        bad[12] = b'[';
        assert!(matches!(
            parse_header(&bad, p),
            Err(RuntimeError::BadJson { offset: 12, .. })
        ));
        let mut bad = file.clone();
        bad[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            parse_header(&bad, p),
            Err(RuntimeError::Implausible { offset: 8, .. })
        ));
        assert!(matches!(
            parse_header(&file[..table + 4], p),
            Err(RuntimeError::Truncated { .. })
        ));
        // One byte short: the one block no longer fits, and the error says
        // how many bytes the blocks need (it said "block_count = 1 is
        // impossible (limit 0)", of a count that was right).
        let e = parse_header(&file[..file.len() - 1], p).unwrap_err();
        assert!(
            matches!(e, RuntimeError::SizeMismatch { expected, actual, .. } if expected == actual as u128 + 1),
            "{e}"
        );
        assert!(e.to_string().contains("(truncated?)"), "{e}");
        // One byte of trailing garbage.
        let mut bad = file.clone();
        bad.push(0);
        let e = parse_header(&bad, p).unwrap_err();
        assert!(
            matches!(e, RuntimeError::SizeMismatch { expected, actual, .. } if expected + 1 == actual as u128),
            "{e}"
        );
        assert_eq!(e.offset(), Some(table as u64 + 16));
        let mut bad = file.clone();
        bad[table..table + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = parse_header(&bad, p).unwrap_err();
        assert!(
            matches!(
                e,
                RuntimeError::SizeMismatch {
                    block_count: u64::MAX,
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(e.offset(), Some(table as u64 + 16));
        let mut bad = file.clone();
        bad[table + 8..table + 16].copy_from_slice(&3u64.to_le_bytes());
        assert!(matches!(
            parse_header(&bad, p),
            Err(RuntimeError::Invalid {
                what: "cta_stride",
                ..
            })
        ));
    }

    #[test]
    fn write_is_atomic_and_refuses_ragged_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("p.kprof");
        let stride = Layout { units: 1, slots: 2 }.cta_stride();
        assert!(matches!(
            write_kprof(&out, &info(), stride, &vec![0u8; stride + 8]),
            Err(RuntimeError::BadArgument { .. })
        ));
        assert!(!out.exists());
        write_kprof(&out, &info(), stride, &vec![0u8; 2 * stride]).unwrap();
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(parse_header(&bytes, &out).unwrap().block_count, 2);
        // Only the final file remains: no temporaries.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // A directory that does not exist fails naming the user's path
        // (not a hidden temporary) and leaves nothing.
        let missing = dir.path().join("no/such/dir/p.kprof");
        match write_kprof(&missing, &info(), stride, &[]) {
            Err(e @ RuntimeError::BadArgument { .. }) => {
                assert_eq!(e.path(), missing.as_path());
                assert!(!e.to_string().contains(".p.kprof."), "{e}");
            }
            other => panic!("{other:?}"),
        }
    }
}
