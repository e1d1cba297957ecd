//! Decode throughput against the speed of light (a memcpy of the same bytes).
//!
//! Builds a synthetic `.kprof` of 1024 CTAs × 8 warps × 1280 surviving
//! records (10.5 M records, clock32, circular rings that wrapped, so both
//! rotation and clock unwrapping are on the measured path) in a temporary
//! directory, then times, best of several passes:
//! - decoding every CTA through `ProfileReader::ctas()` (fresh `CtaTrace` per CTA),
//! - decoding through `read_cta_into` (one reused `CtaTrace`, no allocation),
//! - a plain memcpy of the same buffer bytes out of a memory map of the file.
//!
//! Peak RSS (VmHWM) is reset after building the file (`/proc/self/clear_refs`)
//! and printed per phase; it includes the file pages the map has touched.
//!
//! Run: `cargo bench -p kperf-runtime --bench decode`.

use kperf_dialects::abi::{
    ClockDomain, Counter, CtaHeader, Edge, HeaderFlags, Layout, RecordWord, RegionId, Strategy,
};
use kperf_dialects::meta::{BufferKind, Granularity, InstrumentMeta, KernelMeta};
use kperf_runtime::profile::{CtaTrace, RunInfo};
use kperf_runtime::{encode_block, write_kprof, ProfileReader};
use std::hint::black_box;
use std::time::{Duration, Instant};

const CTAS: u32 = 1024;
const UNITS: u32 = 8;
const SLOTS: u32 = 1280;
/// Records each unit writes: more than the slots, so every ring wrapped.
const WRITTEN: u32 = 1600;
const PASSES: usize = 15;

fn proc_status(keys: &[&str]) -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .filter(|l| keys.iter().any(|k| l.starts_with(k)))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(", ")
}

fn reset_peak_rss() {
    // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn run_info(layout: Layout) -> RunInfo {
    let counter = Counter::Clock32;
    let mut meta = InstrumentMeta::new_header(
        "host",
        counter,
        Granularity::Warp,
        BufferKind::Shared,
        Strategy::Circular,
    );
    meta.shared_slots = layout.slots;
    meta.kernels.push(KernelMeta::new(
        "bench",
        [UNITS * 32, 1, 1],
        layout,
        Vec::new(),
    ));
    RunInfo {
        target: "host".into(),
        kernel: "bench".into(),
        grid: [CTAS, 1, 1],
        block: [UNITS * 32, 1, 1],
        counter,
        clock_domain: ClockDomain::Cycles,
        granularity: Granularity::Warp,
        strategy: Strategy::Circular,
        ticks_per_ns: None,
        record_cost_ticks: None,
        record_cost_back_to_back_ticks: None,
        record_cost_origin: None,
        check: None,
        meta,
    }
}

/// Best and median of `PASSES` runs of `f`, which returns a checksum.
fn time(mut f: impl FnMut() -> u64) -> (Duration, Duration, u64) {
    let mut times = Vec::with_capacity(PASSES);
    let mut sum = 0;
    for _ in 0..PASSES {
        let t = Instant::now();
        sum = black_box(f());
        times.push(t.elapsed());
    }
    times.sort();
    (times[0], times[PASSES / 2], sum)
}

fn report(what: &str, (best, median, _): (Duration, Duration, u64), records: u64, bytes: u64) {
    let s = best.as_secs_f64();
    println!(
        "{what:<28} best {:>8.2} ms  median {:>8.2} ms  {:>7.1} M records/s  {:>6.2} GB/s",
        s * 1e3,
        median.as_secs_f64() * 1e3,
        records as f64 / s / 1e6,
        bytes as f64 / s / 1e9
    );
}

fn main() {
    let layout = Layout {
        units: UNITS,
        slots: SLOTS,
    };
    let stride = layout.cta_stride();
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("bench.kprof");

    // Build the buffer: clock32 values that wrap 2^32 several times per unit.
    let build = Instant::now();
    {
        let mut buffer = Vec::with_capacity(CTAS as usize * stride);
        let mut units: Vec<Vec<RecordWord>> = Vec::new();
        for u in 0..UNITS {
            let mut clock = 0xF000_0000u64 + u as u64 * 17;
            units.push(
                (0..WRITTEN)
                    .map(|i| {
                        clock += 9_000_000 + (i as u64 * 7919) % 1000;
                        let edge = if i % 2 == 0 { Edge::Start } else { Edge::End };
                        RecordWord {
                            region: RegionId((i / 2 % 64) as u16),
                            edge,
                            clock: clock & 0xFFFF_FFFF,
                        }
                    })
                    .collect(),
            );
        }
        for cta in 0..CTAS {
            let header = CtaHeader {
                cta_id: cta,
                hw_id: cta % 132,
                start_time: 1_000,
                finalize_start_time: 2_000_000,
                finalize_end_time: 2_001_000,
                start_clock: 0xF000_0000,
                finalize_clock: 0xF000_0000 + 3_000_000_000,
                layout,
                flags: HeaderFlags {
                    counter: Counter::Clock32,
                    strategy: Strategy::Circular,
                },
            };
            let entries: Vec<(u32, u32, &[RecordWord])> = units
                .iter()
                .enumerate()
                .map(|(u, r)| (u as u32, WRITTEN, r.as_slice()))
                .collect();
            buffer.extend(encode_block(&header, &entries, Counter::Clock32));
        }
        write_kprof(&path, &run_info(layout), stride, &buffer)
            .expect("write the benchmark profile");
    }
    let buffer_bytes = CTAS as u64 * stride as u64;
    let records = CTAS as u64 * UNITS as u64 * SLOTS as u64;
    println!(
        "profile: {CTAS} CTAs × {UNITS} units × {SLOTS} surviving records ({WRITTEN} written) = {records} records, \
         {buffer_bytes} buffer bytes ({:.1} MB), built in {:.2} s",
        buffer_bytes as f64 / 1e6,
        build.elapsed().as_secs_f64()
    );
    reset_peak_rss();
    println!(
        "after build (HWM reset):     {}",
        proc_status(&["VmHWM", "VmRSS", "RssAnon", "RssFile"])
    );

    let reader = ProfileReader::open(&path).expect("open the benchmark profile");
    let decode_iter = time(|| {
        let mut n = 0u64;
        let mut sum = 0u64;
        for cta in reader.ctas() {
            let cta = cta.expect("valid block");
            for u in &cta.units {
                n += u.records.len() as u64;
                sum = sum.wrapping_add(u.records.last().map_or(0, |r| r.clock));
            }
        }
        assert_eq!(n, records);
        sum
    });
    report(
        "decode, ctas() iterator",
        decode_iter,
        records,
        buffer_bytes,
    );
    println!(
        "  peak RSS: {}",
        proc_status(&["VmHWM", "RssAnon", "RssFile"])
    );

    let mut trace = CtaTrace::default();
    let decode_reuse = time(|| {
        let mut n = 0u64;
        let mut sum = 0u64;
        for i in 0..reader.block_count() {
            assert_eq!(
                reader.read_cta_into(i, &mut trace).expect("valid block"),
                kperf_runtime::BlockRead::Decoded
            );
            for u in &trace.units {
                n += u.records.len() as u64;
                sum = sum.wrapping_add(u.records.last().map_or(0, |r| r.clock));
            }
        }
        assert_eq!(n, records);
        sum
    });
    report(
        "decode, read_cta_into reuse",
        decode_reuse,
        records,
        buffer_bytes,
    );
    assert_eq!(
        decode_iter.2, decode_reuse.2,
        "both paths decode the same clocks"
    );
    println!(
        "  peak RSS: {}",
        proc_status(&["VmHWM", "RssAnon", "RssFile"])
    );

    // The reader's map goes first, so the peak below is the memcpy's own.
    drop(reader);
    reset_peak_rss();
    let file = std::fs::File::open(&path).expect("open for memcpy");
    // SAFETY: read-only map of a file nobody else touches during the benchmark.
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("map for memcpy");
    let src = &map[map.len() - buffer_bytes as usize..];
    let mut dst = vec![1u8; src.len()];
    let memcpy = time(|| {
        dst.copy_from_slice(black_box(src));
        black_box(&dst);
        dst[dst.len() / 2] as u64
    });
    report("memcpy of the buffer bytes", memcpy, records, buffer_bytes);
    println!(
        "  peak RSS: {}",
        proc_status(&["VmHWM", "RssAnon", "RssFile"])
    );
    println!(
        "decode (reuse) / memcpy time: {:.1}×;  decode (iterator) / memcpy: {:.1}×",
        decode_reuse.0.as_secs_f64() / memcpy.0.as_secs_f64(),
        decode_iter.0.as_secs_f64() / memcpy.0.as_secs_f64()
    );
}
