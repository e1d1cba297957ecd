//! A GPU-shaped synthetic profile for benchmarks (`kperf replay-bench`,
//! `cargo bench -p kperf-replay`): CTAs of a warp-specialized matmul on an
//! H100-sized grid. Each CTA has 8 warps; each warp records a kernel region
//! around 319 iterations of `load` + `mma` (producers load longer, consumers
//! compute longer) and an `epilogue`: 1 + 319 x 4 + 3 = 1280 records.
//! Deterministic: the same CTA index always gives the same records.

use kperf_dialects::abi::{
    Counter, CtaHeader, Edge, HeaderFlags, Layout, RecordWord, RegionId, Strategy,
};
use kperf_dialects::meta::{
    BufferKind, Granularity, InstrumentMeta, KernelMeta, RegionKind, RegionMeta,
};

use crate::profile::{CtaTrace, Record, RunInfo, UnitTrace};

/// Warps per CTA.
pub const UNITS: u32 = 8;
/// Records per warp (the ring holds all of them: nothing is lost).
pub const RECORDS_PER_UNIT: u32 = 1280;
/// SMs the CTAs are spread over, in waves.
pub const SMS: u32 = 132;
/// Nominal clock rate (an H100's SM clock, 1.755 GHz).
pub const TICKS_PER_NS: f64 = 1.755;

/// The run header of a synthetic profile of `ctas` CTAs.
pub fn run_info(ctas: u32) -> RunInfo {
    let layout = Layout {
        units: UNITS,
        slots: RECORDS_PER_UNIT,
    };
    let counter = Counter::Clock64;
    let mut meta = InstrumentMeta::new_header(
        "nvptx:sm_90a",
        counter,
        Granularity::Warp,
        BufferKind::Shared,
        Strategy::Circular,
    );
    meta.shared_slots = layout.slots;
    let names = ["kernel", "load", "mma", "epilogue"];
    let kinds = [
        RegionKind::Kernel,
        RegionKind::Loop,
        RegionKind::Op,
        RegionKind::Explicit,
    ];
    let regions = (0..4)
        .map(|i| RegionMeta {
            id: RegionId(i as u16),
            name: names[i].into(),
            kind: kinds[i],
            parent: (i > 0).then_some(RegionId(0)),
            location: format!("bench.mlir:{}:5", 10 + i),
            pairs_with: None,
        })
        .collect();
    meta.kernels.push(KernelMeta::new(
        "bench",
        [UNITS * 32, 1, 1],
        layout,
        regions,
    ));
    RunInfo {
        target: "nvptx:sm_90a".into(),
        kernel: "bench".into(),
        grid: [ctas, 1, 1],
        block: [UNITS * 32, 1, 1],
        counter,
        clock_domain: counter.clock_domain(),
        granularity: Granularity::Warp,
        strategy: Strategy::Circular,
        ticks_per_ns: Some(TICKS_PER_NS),
        record_cost_ticks: Some(33.0),
        record_cost_back_to_back_ticks: None,
        record_cost_origin: None,
        check: None,
        meta,
    }
}

/// The records of one unit of CTA `cta` and its last clock.
pub fn unit_records(cta: u32, unit: u32, out: &mut Vec<RecordWord>) -> u64 {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (u64::from(cta) << 8 | u64::from(unit));
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    out.clear();
    let mut t = 1_000 + rnd(50);
    let mut push = |region: u16, edge: Edge, t: u64| {
        out.push(RecordWord {
            region: RegionId(region),
            edge,
            clock: t,
        })
    };
    push(0, Edge::Start, t);
    let producer = unit < UNITS / 2;
    for _ in 0..319 {
        t += 40;
        push(1, Edge::Start, t);
        t += if producer {
            300 + rnd(200)
        } else {
            80 + rnd(40)
        };
        push(1, Edge::End, t);
        t += 40;
        push(2, Edge::Start, t);
        t += if producer {
            60 + rnd(20)
        } else {
            250 + rnd(150)
        };
        push(2, Edge::End, t);
    }
    t += 40;
    push(3, Edge::Start, t);
    t += 500 + rnd(500);
    push(3, Edge::End, t);
    t += 40;
    push(0, Edge::End, t);
    t
}

/// The header of CTA `cta` whose units' last clock is `end`.
pub fn cta_header(cta: u32, end: u64) -> CtaHeader {
    let wave = u64::from(cta / SMS);
    let start_ns = 1_000_000 + wave * 800_000 + u64::from(cta % 7) * 300;
    let span_ns = ((end + 200) as f64 / TICKS_PER_NS) as u64;
    CtaHeader {
        cta_id: cta,
        hw_id: cta % SMS,
        start_time: start_ns,
        finalize_start_time: start_ns + span_ns,
        finalize_end_time: start_ns + span_ns + 500,
        start_clock: 0,
        finalize_clock: end + 200,
        layout: Layout {
            units: UNITS,
            slots: RECORDS_PER_UNIT,
        },
        flags: HeaderFlags {
            counter: Counter::Clock64,
            strategy: Strategy::Circular,
        },
    }
}

/// CTA `cta` as the decoder would hand it over.
pub fn cta_trace(cta: u32) -> CtaTrace {
    let mut words = Vec::with_capacity(RECORDS_PER_UNIT as usize);
    let mut end = 0;
    let units = (0..UNITS)
        .map(|u| {
            end = end.max(unit_records(cta, u, &mut words));
            UnitTrace {
                unit_id: u,
                records_written: u64::from(RECORDS_PER_UNIT),
                records_lost: 0,
                records: words
                    .iter()
                    .map(|w| Record {
                        region: w.region,
                        edge: w.edge,
                        clock: w.clock,
                    })
                    .collect(),
            }
        })
        .collect();
    let h = cta_header(cta, end);
    CtaTrace {
        block_index: u64::from(cta),
        cta_id: cta,
        hw_id: h.hw_id,
        start_time_ns: h.start_time,
        finalize_start_ns: h.finalize_start_time,
        finalize_end_ns: h.finalize_end_time,
        start_clock: h.start_clock,
        finalize_clock: h.finalize_clock,
        units,
    }
}

/// CTA `cta`'s block as the device lowering lays it out
/// ([`crate::encode_block`]), for writing synthetic `.kprof` files.
pub fn cta_block(cta: u32) -> Vec<u8> {
    let mut units: Vec<Vec<RecordWord>> = vec![Vec::new(); UNITS as usize];
    let end = units
        .iter_mut()
        .zip(0..UNITS)
        .map(|(words, u)| unit_records(cta, u, words))
        .max()
        .unwrap_or(0);
    let entries: Vec<(u32, u32, &[RecordWord])> = (0..UNITS)
        .zip(&units)
        .map(|(u, words)| (u, RECORDS_PER_UNIT, words.as_slice()))
        .collect();
    crate::encode_block(&cta_header(cta, end), &entries, Counter::Clock64)
}
