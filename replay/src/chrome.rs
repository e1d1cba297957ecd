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
//! - Complete (`X`) events named by region, args `region_id`, `iteration`,
//!   `raw_cycles` (ticks), `corrected_cycles`, `cta`, `unit`.
//!
//! **Times.** `ts` and `dur` are microseconds quantised to [`TIME_QUANTUM_US`]
//! = 2^-12 µs (about 0.24 ns, finer than one tick of any supported counter)
//! and printed exactly (at most 12 decimals). Viewers compute an event's end
//! as `ts + dur` in binary floating point (speedscope also subtracts the
//! smallest `ts` first); with dyadic times all of that is exact, so what the
//! viewer sees nests exactly when the written integers do. Start and end are
//! quantised first and `dur` is their difference, so quantising keeps nesting
//! and order (it is monotone). With decimal times it would not: 2.023 + 0.135
//! is 2.1580000000000004 in f64, past a sibling starting at 2.158.
//!
//! **Zero lengths.** An instance whose start and end quantise to the same
//! step (a region shorter than 0.24 ns, or one the overhead correction
//! brought to 0) is kept, with `dur` 0, on a row of its own per unit
//! (`... (zero length)`), and counted: `otherData.zero_length_events`, of
//! which `zero_length_events_corrected_to_zero` have a corrected length of
//! exactly 0, with a caveat in the report and in `otherData.caveats`.
//! Perfetto draws such an event as an instant; on its own row it cannot
//! break the nesting of the others (a zero-length event starting where
//! another one does is ended before it is begun by viewers that take ends
//! first at equal times). Dropping them made a region's instances vanish
//! from the trace while the statistics counted them.
//!
//! **Rows** are laid out again here, on the quantised times, with the rule of
//! [`crate::pair::assign_rows`]: on every thread of the file, events nest or
//! are disjoint exactly as the viewer computes them. One more rule: an event
//! never lies inside an open event *of the same name* on its row; it goes to
//! another row instead. speedscope matches an end to the open event by name
//! among the ends at one time, and ends three or more same-name events that
//! end together out of order. Instances of one region overlap like that when
//! the overhead correction folds a unit's timeline back (a record cost larger
//! than the gaps between records, as on the host).
//!
//! Events are formatted into a small per-CTA buffer and written through a
//! `BufWriter`; nothing proportional to the trace is held in memory.

use kperf_runtime::output::DirectFile;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use kperf_dialects::abi::RegionId;
use kperf_dialects::meta::Granularity;
use kperf_runtime::profile::RunInfo;

use crate::analyze::ReplayReport;
use crate::layout::UnitLayout;
use crate::pair::CtaReplay;
use crate::regions::RegionTable;
use crate::trace::TraceOut;
use crate::{ReplayError, TraceGrouping};

/// Time steps per microsecond in the trace: 2^12.
const QUANTA_PER_US: i64 = 1 << 12;

/// The time step of `ts` and `dur`, in µs: 2^-12 µs ≈ 0.244 ns.
pub const TIME_QUANTUM_US: f64 = 1.0 / QUANTA_PER_US as f64;

/// Region instances of zero length at the trace's time step, drawn with
/// `dur` 0 on a row of their own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZeroLength {
    /// All of them.
    pub events: u64,
    /// Those whose corrected length is exactly 0: the record cost subtracted
    /// covers their whole raw span.
    pub corrected_to_zero: u64,
}

impl ZeroLength {
    /// The caveat for the report and the Chrome trace; `None` when there
    /// were none.
    pub fn caveat(&self) -> Option<String> {
        self.caveat_on(
            "the Chrome trace's time step (2^-12 us, about 0.24 ns)",
            "the events' args",
        )
    }

    /// The caveat for a trace whose time step is `step`, whose instances'
    /// raw and corrected cycles are in `cycles_in`.
    pub fn caveat_on(&self, step: &str, cycles_in: &str) -> Option<String> {
        let n = self.events;
        (n > 0).then(|| {
            format!(
                "{n} region instance{} of zero length at {step} drawn with zero duration on a \
                 row of their own per unit; {} of them corrected to exactly 0 (the record cost \
                 covers their raw span); their raw and corrected cycles are in {cycles_in}",
                if n == 1 { "" } else { "s" },
                self.corrected_to_zero
            )
        })
    }
}

/// Streams a Chrome trace: [`ChromeTraceWriter::new`] writes the opening,
/// [`ChromeTraceWriter::write_cta`] one CTA's events, [`ChromeTraceWriter::finish`] the end.
pub struct ChromeTraceWriter<W: Write> {
    out: TraceOut<W>,
    grouping: TraceGrouping,
    unit_word: &'static str,
    hw_word: &'static str,
    seen_processes: HashSet<u32>,
    next_tid: u64,
    /// Per region id: the JSON-escaped name and its id in `name_ids`.
    names: Vec<Option<(String, u32)>>,
    name_ids: HashMap<String, u32>,
    first: bool,
    events: u64,
    /// Instances left out for zero quantised length.
    zero_length: ZeroLength,
    layout: UnitLayout,
}

impl ChromeTraceWriter<DirectFile> {
    /// Create `path` and write the opening of the trace.
    pub fn create(
        path: &Path,
        info: &RunInfo,
        grouping: TraceGrouping,
    ) -> Result<Self, ReplayError> {
        Self::with_output(TraceOut::create(path)?, info, grouping)
    }
}

impl<W: Write> ChromeTraceWriter<W> {
    /// Wrap `out` and write the opening of the trace.
    pub fn new(out: W, info: &RunInfo, grouping: TraceGrouping) -> Result<Self, ReplayError> {
        Self::with_output(TraceOut::new(out), info, grouping)
    }

    fn with_output(
        mut out: TraceOut<W>,
        info: &RunInfo,
        grouping: TraceGrouping,
    ) -> Result<Self, ReplayError> {
        out.write_now(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        Ok(ChromeTraceWriter {
            out,
            grouping,
            unit_word: unit_word(info.granularity),
            hw_word: hw_word(&info.target),
            seen_processes: HashSet::new(),
            next_tid: 1,
            names: Vec::new(),
            name_ids: HashMap::new(),
            first: true,
            events: 0,
            zero_length: ZeroLength::default(),
            layout: UnitLayout::default(),
        })
    }

    /// Events written so far (metadata included).
    pub fn events_written(&self) -> u64 {
        self.events
    }

    /// Region instances left out so far because their start and end quantise
    /// to the same time step (see the module documentation).
    pub fn zero_length(&self) -> ZeroLength {
        self.zero_length
    }

    fn begin_event(&mut self) {
        if !self.first {
            self.out.buf.extend_from_slice(b",\n");
        }
        self.first = false;
        self.events += 1;
    }

    fn meta_event(&mut self, name: &str, pid: u64, tid: u64, key: &str, value: MetaValue<'_>) {
        self.begin_event();
        let b = &mut self.out.buf;
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

    /// Cache slot (the region id) of the JSON-escaped name of `id` and its id.
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
            let name = String::from_utf8_lossy(&s).into_owned();
            let next = self.name_ids.len() as u32;
            let name_id = *self.name_ids.entry(name.clone()).or_insert(next);
            self.names[slot] = Some((name, name_id));
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
        let mut layout = std::mem::take(&mut self.layout);
        for unit in &cta.units {
            layout.lay_out(unit, quantise, |inst| {
                let slot = self.region_name(regions, inst.region);
                self.names[slot].as_ref().map_or(0, |n| n.1)
            });
            self.zero_length.events += layout.zero_length as u64;
            self.zero_length.corrected_to_zero += layout.corrected_to_zero as u64;
            let tid0 = self.next_tid;
            let span_rows = u64::from(layout.span_rows);
            let rows = u64::from(layout.rows());
            self.next_tid += rows;
            let base = if self.unit_word.is_empty() {
                format!("CTA {}", cta.cta_id)
            } else {
                format!("CTA {} {} {}", cta.cta_id, self.unit_word, unit.unit_id)
            };
            for row in 0..rows {
                let name = if row == span_rows {
                    format!("{base} (zero length)")
                } else if row == 0 {
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
            for span in &layout.spans {
                let inst = &unit.instances[span.index];
                self.begin_event();
                let b = &mut self.out.buf;
                b.extend_from_slice(b"{\"name\":");
                if let Some((n, _)) = &self.names[usize::from(inst.region.0)] {
                    b.extend_from_slice(n.as_bytes());
                }
                b.extend_from_slice(b",\"cat\":\"region\",\"ph\":\"X\",\"pid\":");
                push_u64(b, pid);
                b.extend_from_slice(b",\"tid\":");
                push_u64(b, tid0 + u64::from(span.row));
                b.extend_from_slice(b",\"ts\":");
                push_micros(b, span.start);
                b.extend_from_slice(b",\"dur\":");
                push_micros(b, span.end - span.start);
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
                if let Err(e) = self.out.flush_if_full() {
                    self.layout = layout;
                    return Err(e);
                }
            }
        }
        self.layout = layout;
        Ok(())
    }

    /// Close the event list, add `otherData` (the time step, the zero-length
    /// instances left out, and kernel, clock, corrections and caveats from
    /// `report` if given, with the zero-length caveat added when the report
    /// lacks it), flush, and hand back the writer.
    pub fn finish(mut self, report: Option<&ReplayReport>) -> Result<W, ReplayError> {
        self.out.buf.extend_from_slice(b"\n]");
        let mut other = serde_json::json!({
            "tool": "kperf replay",
            "time_quantum_us": TIME_QUANTUM_US,
            "zero_length_events": self.zero_length.events,
            "zero_length_events_corrected_to_zero": self.zero_length.corrected_to_zero,
        });
        if let Some(r) = report {
            let mut caveats = r.caveats.clone();
            if let Some(c) = self.zero_length.caveat() {
                if !caveats.contains(&c) {
                    caveats.push(c);
                }
            }
            let o = other.as_object_mut().expect("an object");
            o.insert("kernel".into(), r.kernel.clone().into());
            o.insert("target".into(), r.target.clone().into());
            o.insert("clock".into(), r.clock.description.clone().into());
            o.insert("corrections".into(), r.corrections_applied.clone().into());
            o.insert("caveats".into(), caveats.into());
        }
        self.out.buf.extend_from_slice(b",\"otherData\":");
        let s = serde_json::to_string(&other).map_err(|source| ReplayError::Json {
            what: "trace metadata",
            source,
        })?;
        self.out.buf.extend_from_slice(s.as_bytes());
        self.out.buf.extend_from_slice(b"}\n");
        self.out.finish()
    }
}

enum MetaValue<'a> {
    Str(&'a str),
    Int(u64),
}

/// The word naming a unit in track names (`CTA 3 warp 2`); empty for CTAs.
pub(crate) fn unit_word(g: Granularity) -> &'static str {
    match g {
        Granularity::Thread => "thread",
        Granularity::Warp => "warp",
        Granularity::Warpgroup => "warp group",
        Granularity::Cta => "",
    }
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

/// A time on the axis (ns) in time steps of [`TIME_QUANTUM_US`], rounded to
/// the nearest (monotone, so order and nesting survive). Exact in f64 up to
/// 2^53 steps, about 25 days.
fn quantise(ns: f64) -> i64 {
    if ns.is_finite() {
        crate::time::round_to_i64(ns * QUANTA_PER_US as f64 / 1000.0)
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

/// Time steps as microseconds, exactly: `q / 2^12` has at most 12 decimals
/// (`f / 2^12 = f · 5^12 / 10^12`), written without trailing zeros (and
/// without a point for whole µs). Parsing it back gives exactly that dyadic
/// value.
fn push_micros(b: &mut Vec<u8>, q: i64) {
    const DECIMALS: usize = 12;
    const FIVE_POW: u64 = 244_140_625; // 5^12
    if q < 0 {
        b.push(b'-');
    }
    let a = q.unsigned_abs();
    push_u64(b, a / QUANTA_PER_US as u64);
    let mut f = (a % QUANTA_PER_US as u64) * FIVE_POW;
    if f != 0 {
        let mut digits = [0u8; DECIMALS];
        for d in digits.iter_mut().rev() {
            *d = b'0' + (f % 10) as u8;
            f /= 10;
        }
        let len = DECIMALS - digits.iter().rev().take_while(|&&d| d == b'0').count();
        b.push(b'.');
        b.extend_from_slice(&digits[..len]);
    }
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
        push_micros(&mut b, 1234 * 4096 + 2048);
        b.push(b' ');
        push_micros(&mut b, 1);
        b.push(b' ');
        push_micros(&mut b, 4095);
        b.push(b' ');
        push_micros(&mut b, -6144);
        b.push(b' ');
        push_micros(&mut b, 0);
        b.push(b' ');
        push_micros(&mut b, 12 * 4096);
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
            "1234.5 0.000244140625 0.999755859375 -1.5 0 12 93.5 100 0 \"a\\\"b\\\\\\u0001é\""
        );
    }

    #[test]
    fn times_print_exactly() {
        // Every step of a few µs, and some large ones: the text parses back
        // to exactly q / 2^12 (Rust's parse rounds correctly, as JS's does).
        let qs = (-5 * 4096..5 * 4096).chain([123_456_789_012, (1 << 53) - 1, -(1 << 40) - 7]);
        for q in qs {
            let mut b = Vec::new();
            push_micros(&mut b, q);
            let text = std::str::from_utf8(&b).unwrap();
            let v: f64 = text.parse().unwrap();
            assert_eq!(v, q as f64 * TIME_QUANTUM_US, "{q} -> {text}");
            assert!(!text.ends_with('0') || !text.contains('.'), "{text}");
        }
    }

    #[test]
    fn quantising_is_monotone_and_rounds_to_the_nearest_step() {
        assert_eq!(quantise(0.0), 0);
        assert_eq!(quantise(1000.0), 4096);
        assert_eq!(quantise(26.333), 108); // 107.86 steps
        assert_eq!(quantise(-26.333), -108);
        assert_eq!(quantise(0.12), 0); // half a step is 0.122 ns
        assert_eq!(quantise(0.13), 1);
        assert_eq!(quantise(f64::NAN), 0);
        let mut last = i64::MIN;
        for i in 0..10_000 {
            let q = quantise(i as f64 * 0.0371);
            assert!(q >= last);
            last = q;
        }
    }

    #[test]
    fn zero_length_caveat_counts() {
        let z = |events, corrected_to_zero| ZeroLength {
            events,
            corrected_to_zero,
        };
        assert_eq!(z(0, 0).caveat(), None);
        let one = z(1, 1).caveat().unwrap();
        assert!(one.starts_with("1 region instance of zero length"), "{one}");
        let seven = z(7, 3).caveat().unwrap();
        assert!(
            seven.starts_with("7 region instances of zero length"),
            "{seven}"
        );
        assert!(
            seven.contains("; 3 of them corrected to exactly 0"),
            "{seven}"
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
