//! Chrome trace-event JSON, written as a stream.
//!
//! Layout (loads in `chrome://tracing`, Perfetto and speedscope):
//!
//! ```text
//! {"displayTimeUnit":"ns","traceEvents":[
//! {"name":"process_name","ph":"M","pid":13,"tid":0,"args":{"name":"SM 12"}},
//! ...
//! {"name":"load","cat":"region","ph":"X","pid":13,"tid":5,"ts":1.234,"dur":0.5,"args":{...}}
//! ],"otherData":{...}}
//! ```
//!
//! - One process per SM / CU / CPU (hw id; default) or per CTA, named
//!   `SM 12` or `CTA 3 (SM 12)`, with `process_sort_index` the hw id or CTA id.
//!   Process ids are the hw id or CTA id plus 1 (some viewers treat pid 0 as
//!   special).
//! - One thread per CTA × unit, named like `CTA 3 warp 2`; an instance that
//!   overlaps another without nesting goes to an extra row of that unit, a
//!   thread named `CTA 3 warp 2 (row 1)`. Thread ids are unique in the file,
//!   allocated in order, and double as `thread_sort_index`.
//! - Complete (`X`) events named by region, `ts` and `dur` in microseconds
//!   with three decimals (nanosecond precision: start and end are rounded to
//!   whole ns *before* `dur` is taken, so nesting survives rounding), args
//!   `region_id`, `iteration`, `raw_cycles` (ticks), `corrected_cycles`,
//!   `cta`, `unit`.
//!
//! Events are formatted into a small per-CTA buffer and written through a
//! `BufWriter`; nothing proportional to the trace is held in memory.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use kperf_dialects::abi::RegionId;
use kperf_dialects::meta::Granularity;
use kperf_runtime::profile::RunInfo;

use crate::analyze::ReplayReport;
use crate::pair::CtaReplay;
use crate::regions::RegionTable;
use crate::{ReplayError, TraceGrouping};

/// Streams a Chrome trace: [`ChromeTraceWriter::new`] writes the opening,
/// [`ChromeTraceWriter::write_cta`] one CTA's events, [`ChromeTraceWriter::finish`] the end.
pub struct ChromeTraceWriter<W: Write> {
    out: W,
    path: Option<PathBuf>,
    grouping: TraceGrouping,
    unit_word: &'static str,
    hw_word: &'static str,
    seen_processes: HashSet<u32>,
    next_tid: u64,
    names: Vec<Option<String>>,
    buf: Vec<u8>,
    first: bool,
    events: u64,
}

impl ChromeTraceWriter<BufWriter<File>> {
    /// Create `path` and write the opening of the trace.
    pub fn create(
        path: &Path,
        info: &RunInfo,
        grouping: TraceGrouping,
    ) -> Result<Self, ReplayError> {
        let file = File::create(path).map_err(|source| ReplayError::TraceFile {
            path: path.to_path_buf(),
            source,
        })?;
        let mut w = Self::new(BufWriter::with_capacity(1 << 18, file), info, grouping)?;
        w.path = Some(path.to_path_buf());
        Ok(w)
    }
}

impl<W: Write> ChromeTraceWriter<W> {
    /// Wrap `out` and write the opening of the trace.
    pub fn new(mut out: W, info: &RunInfo, grouping: TraceGrouping) -> Result<Self, ReplayError> {
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
            .map_err(ReplayError::TraceWrite)?;
        Ok(ChromeTraceWriter {
            out,
            path: None,
            grouping,
            unit_word: match info.granularity {
                Granularity::Thread => "thread",
                Granularity::Warp => "warp",
                Granularity::Warpgroup => "warp group",
                Granularity::Cta => "",
            },
            hw_word: hw_word(&info.target),
            seen_processes: HashSet::new(),
            next_tid: 1,
            names: Vec::new(),
            buf: Vec::with_capacity((1 << 18) + 4096),
            first: true,
            events: 0,
        })
    }

    fn io_err(&self, source: std::io::Error) -> ReplayError {
        match &self.path {
            Some(p) => ReplayError::TraceFile {
                path: p.clone(),
                source,
            },
            None => ReplayError::TraceWrite(source),
        }
    }

    /// Events written so far (metadata included).
    pub fn events_written(&self) -> u64 {
        self.events
    }

    fn begin_event(&mut self) {
        if !self.first {
            self.buf.extend_from_slice(b",\n");
        }
        self.first = false;
        self.events += 1;
    }

    fn meta_event(&mut self, name: &str, pid: u64, tid: u64, key: &str, value: MetaValue<'_>) {
        self.begin_event();
        let b = &mut self.buf;
        b.extend_from_slice(b"{\"name\":\"");
        b.extend_from_slice(name.as_bytes());
        b.extend_from_slice(b"\",\"ph\":\"M\",\"pid\":");
        push_u64(b, pid);
        b.extend_from_slice(b",\"tid\":");
        push_u64(b, tid);
        b.extend_from_slice(b",\"args\":{\"");
        b.extend_from_slice(key.as_bytes());
        b.extend_from_slice(b"\":");
        match value {
            MetaValue::Str(s) => push_json_str(b, s),
            MetaValue::Int(v) => push_u64(b, v),
        }
        b.extend_from_slice(b"}}");
    }

    /// Cache slot (the region id) of the JSON-escaped name of `id`.
    fn region_name(&mut self, regions: &RegionTable, id: RegionId) -> usize {
        let slot = usize::from(id.0);
        if slot >= self.names.len() {
            self.names.resize(slot + 1, None);
        }
        if self.names[slot].is_none() {
            let mut s = Vec::new();
            match regions.by_id(id) {
                Some(r) => push_json_str(&mut s, &r.name),
                None => push_json_str(&mut s, &format!("region_{}", id.0)),
            }
            self.names[slot] = Some(String::from_utf8_lossy(&s).into_owned());
        }
        slot
    }

    /// Write the metadata and events of one replayed CTA.
    pub fn write_cta(&mut self, cta: &CtaReplay, regions: &RegionTable) -> Result<(), ReplayError> {
        let (key, pname, sort) = match self.grouping {
            TraceGrouping::Sm => (
                cta.hw_id,
                format!("{} {}", self.hw_word, cta.hw_id),
                cta.hw_id,
            ),
            TraceGrouping::Cta => (
                cta.cta_id,
                format!("CTA {} ({} {})", cta.cta_id, self.hw_word, cta.hw_id),
                cta.cta_id,
            ),
        };
        let pid = u64::from(key) + 1;
        if self.seen_processes.insert(key) {
            self.meta_event("process_name", pid, 0, "name", MetaValue::Str(&pname));
            self.meta_event(
                "process_sort_index",
                pid,
                0,
                "sort_index",
                MetaValue::Int(u64::from(sort)),
            );
        }
        for unit in &cta.units {
            let tid0 = self.next_tid;
            let rows = u64::from(unit.rows.max(1));
            self.next_tid += rows;
            let base = if self.unit_word.is_empty() {
                format!("CTA {}", cta.cta_id)
            } else {
                format!("CTA {} {} {}", cta.cta_id, self.unit_word, unit.unit_id)
            };
            for row in 0..rows {
                let name = if row == 0 {
                    base.clone()
                } else {
                    format!("{base} (row {row})")
                };
                self.meta_event(
                    "thread_name",
                    pid,
                    tid0 + row,
                    "name",
                    MetaValue::Str(&name),
                );
                self.meta_event(
                    "thread_sort_index",
                    pid,
                    tid0 + row,
                    "sort_index",
                    MetaValue::Int(tid0 + row),
                );
            }
            for inst in &unit.instances {
                let idx = self.region_name(regions, inst.region);
                self.begin_event();
                let start = round_ns(inst.start_ns);
                let end = round_ns(inst.end_ns).max(start);
                let b = &mut self.buf;
                b.extend_from_slice(b"{\"name\":");
                if let Some(n) = &self.names[idx] {
                    b.extend_from_slice(n.as_bytes());
                }
                b.extend_from_slice(b",\"cat\":\"region\",\"ph\":\"X\",\"pid\":");
                push_u64(b, pid);
                b.extend_from_slice(b",\"tid\":");
                push_u64(b, tid0 + u64::from(inst.row));
                b.extend_from_slice(b",\"ts\":");
                push_micros(b, start);
                b.extend_from_slice(b",\"dur\":");
                push_micros(b, end - start);
                b.extend_from_slice(b",\"args\":{\"region_id\":");
                push_u64(b, u64::from(inst.region.0));
                b.extend_from_slice(b",\"iteration\":");
                push_u64(b, u64::from(inst.instance));
                b.extend_from_slice(b",\"raw_cycles\":");
                push_u64(b, inst.raw_ticks);
                b.extend_from_slice(b",\"corrected_cycles\":");
                push_f64(b, inst.corrected_ticks);
                b.extend_from_slice(b",\"cta\":");
                push_u64(b, u64::from(inst.cta));
                b.extend_from_slice(b",\"unit\":");
                push_u64(b, u64::from(inst.unit));
                b.extend_from_slice(b"}}");
                // Chunks of at least the BufWriter's capacity go straight through it.
                if self.buf.len() >= 1 << 18 {
                    self.flush_buf()?;
                }
            }
        }
        Ok(())
    }

    fn flush_buf(&mut self) -> Result<(), ReplayError> {
        let r = self.out.write_all(&self.buf);
        self.buf.clear();
        r.map_err(|e| self.io_err(e))
    }

    /// Close the event list, add `otherData` (kernel, clock, corrections)
    /// from `report` if given, flush, and hand back the writer.
    pub fn finish(mut self, report: Option<&ReplayReport>) -> Result<W, ReplayError> {
        self.buf.extend_from_slice(b"\n]");
        if let Some(r) = report {
            let other = serde_json::json!({
                "tool": "kperf replay",
                "kernel": r.kernel,
                "target": r.target,
                "clock": r.clock.description,
                "corrections": r.corrections_applied,
                "caveats": r.caveats,
            });
            self.buf.extend_from_slice(b",\"otherData\":");
            let s = serde_json::to_string(&other).map_err(|source| ReplayError::Json {
                what: "trace metadata",
                source,
            })?;
            self.buf.extend_from_slice(s.as_bytes());
        }
        self.buf.extend_from_slice(b"}\n");
        self.flush_buf()?;
        let r = self.out.flush();
        r.map_err(|e| self.io_err(e))?;
        Ok(self.out)
    }
}

enum MetaValue<'a> {
    Str(&'a str),
    Int(u64),
}

/// `SM` for NVIDIA, `CU` for AMD, `CPU` for the host.
pub(crate) fn hw_word(target: &str) -> &'static str {
    if target.starts_with("amdgpu") || target.ends_with(":hip") {
        "CU"
    } else if target == "host" || target.starts_with("host") {
        "CPU"
    } else {
        "SM"
    }
}

fn round_ns(ns: f64) -> i64 {
    if ns.is_finite() {
        ns.round() as i64
    } else {
        0
    }
}

fn push_u64(b: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    b.extend_from_slice(&tmp[i..]);
}

/// Whole nanoseconds as microseconds with three decimals.
fn push_micros(b: &mut Vec<u8>, ns: i64) {
    if ns < 0 {
        b.push(b'-');
    }
    let a = ns.unsigned_abs();
    push_u64(b, a / 1000);
    let f = a % 1000;
    b.extend_from_slice(&[
        b'.',
        b'0' + (f / 100) as u8,
        b'0' + (f / 10 % 10) as u8,
        b'0' + (f % 10) as u8,
    ]);
}

fn push_f64(b: &mut Vec<u8>, v: f64) {
    if !v.is_finite() {
        b.push(b'0');
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        if v < 0.0 {
            b.push(b'-');
        }
        push_u64(b, v.abs() as u64);
    } else {
        let _ = write!(b, "{v}");
    }
}

fn push_json_str(b: &mut Vec<u8>, s: &str) {
    b.push(b'"');
    for c in s.chars() {
        match c {
            '"' => b.extend_from_slice(b"\\\""),
            '\\' => b.extend_from_slice(b"\\\\"),
            '\n' => b.extend_from_slice(b"\\n"),
            '\r' => b.extend_from_slice(b"\\r"),
            '\t' => b.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(b, "\\u{:04x}", c as u32);
            }
            c => {
                let mut tmp = [0u8; 4];
                b.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
        }
    }
    b.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formatting() {
        let mut b = Vec::new();
        push_micros(&mut b, 1_234_567);
        b.push(b' ');
        push_micros(&mut b, 5);
        b.push(b' ');
        push_micros(&mut b, -1500);
        b.push(b' ');
        push_f64(&mut b, 93.5);
        b.push(b' ');
        push_f64(&mut b, 100.0);
        b.push(b' ');
        push_u64(&mut b, 0);
        b.push(b' ');
        push_json_str(&mut b, "a\"b\\\u{1}é");
        assert_eq!(
            String::from_utf8(b).unwrap(),
            "1234.567 0.005 -1.500 93.5 100 0 \"a\\\"b\\\\\\u0001é\""
        );
    }

    #[test]
    fn hardware_words() {
        assert_eq!(hw_word("nvptx:sm_90a"), "SM");
        assert_eq!(hw_word("amdgpu:gfx942"), "CU");
        assert_eq!(hw_word("proton:hip"), "CU");
        assert_eq!(hw_word("proton:cuda"), "SM");
        assert_eq!(hw_word("host"), "CPU");
    }
}
