//! Replay throughput and memory on a synthetic profile of >= 10 million records.
//!
//! `cargo bench -p kperf-replay` (or `cargo bench -p kperf-replay -- 256` for
//! a smaller grid). CTAs are generated one at a time while the replay pulls
//! them, as a decoder over a memory map would hand them over, so the input
//! never sits in memory as a whole; the report is built and the Chrome trace
//! streamed to a temporary file. Prints records/s and peak RSS (VmHWM).

use std::time::Instant;

use kperf_dialects::abi::{Counter, Edge, Layout, RegionId, Strategy};
use kperf_dialects::meta::{
    BufferKind, Granularity, InstrumentMeta, KernelMeta, RegionKind, RegionMeta,
};
use kperf_replay::{
    replay_ctas, ChromeTraceWriter, ProfileScan, ReplayError, ReplayOptions, Replayer,
    TraceGrouping,
};
use kperf_runtime::profile::{CtaTrace, Record, RunInfo, UnitTrace};

const UNITS: u32 = 8;
const RECORDS_PER_UNIT: usize = 1280;
const TICKS_PER_NS: f64 = 1.7;

fn info() -> RunInfo {
    let names = ["kernel", "load", "mma", "epilogue"];
    let kinds = [
        RegionKind::Kernel,
        RegionKind::Op,
        RegionKind::Op,
        RegionKind::Explicit,
    ];
    let mut meta = InstrumentMeta::new_header(
        "nvptx:sm_90a",
        Counter::Clock64,
        Granularity::Warp,
        BufferKind::Shared,
        Strategy::Circular,
    );
    meta.kernels.push(KernelMeta {
        name: "bench".into(),
        original_arg_count: 0,
        block: [UNITS * 32, 1, 1],
        layout: Layout {
            units: UNITS,
            slots: RECORDS_PER_UNIT as u32,
        },
        sampled_units: vec![],
        cta_sampling: Default::default(),
        profile_param: None,
        profile_bytes_per_cta: 0,
        max_registers: None,
        regions: (0..4)
            .map(|i| RegionMeta {
                id: RegionId(i as u16),
                name: names[i].into(),
                kind: kinds[i],
                parent: (i > 0).then_some(RegionId(0)),
                location: String::new(),
                pairs_with: None,
            })
            .collect(),
    });
    RunInfo {
        target: "nvptx:sm_90a".into(),
        kernel: "bench".into(),
        grid: [1, 1, 1],
        block: [UNITS * 32, 1, 1],
        counter: Counter::Clock64,
        clock_domain: Counter::Clock64.clock_domain(),
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

/// CTA `i`: per unit a kernel region around 319 iterations of load + mma
/// (producers load longer, consumers compute longer) and an epilogue:
/// 1 + 319 × 4 + 3 = 1280 records.
fn gen_cta(i: u32) -> CtaTrace {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64 ^ (u64::from(i) * 0x1000_0000_01B3);
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let wave = u64::from(i) / 132;
    let start_ns = 1_000_000 + wave * 400_000 + rnd(5_000);
    let mut end = 0;
    let units = (0..UNITS)
        .map(|u| {
            let mut t = 100 + rnd(50);
            let mut recs = Vec::with_capacity(RECORDS_PER_UNIT);
            let mut push = |region: u16, edge: Edge, t: u64| {
                recs.push(Record {
                    region: RegionId(region),
                    edge,
                    clock: t,
                })
            };
            push(0, Edge::Start, t);
            let producer = u < UNITS / 2;
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
            end = end.max(t);
            UnitTrace {
                unit_id: u,
                records_written: RECORDS_PER_UNIT as u64,
                records_lost: 0,
                records: recs,
            }
        })
        .collect();
    let span_ns = ((end + 200) as f64 / TICKS_PER_NS) as u64;
    CtaTrace {
        block_index: u64::from(i),
        cta_id: i,
        hw_id: i % 132,
        start_time_ns: start_ns,
        finalize_start_ns: start_ns + span_ns,
        finalize_end_ns: start_ns + span_ns + 500,
        start_clock: 0,
        finalize_clock: end + 200,
        units,
    }
}

fn vm_hwm_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let ctas: u32 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1024);
    let records = u64::from(ctas) * u64::from(UNITS) * RECORDS_PER_UNIT as u64;
    let info = info();
    let source = || -> Result<_, ReplayError> { Ok((0..ctas).map(|i| Ok(gen_cta(i)))) };
    println!("kperf-replay bench: {ctas} CTAs x {UNITS} units x {RECORDS_PER_UNIT} records = {records} records");
    println!("VmHWM before: {} KiB", vm_hwm_kib().unwrap_or(0));

    // Generating the input alone (the replay generates it twice: scan + replay).
    let t = Instant::now();
    let mut n = 0u64;
    for i in 0..ctas {
        n += gen_cta(i)
            .units
            .iter()
            .map(|u| u.records.len() as u64)
            .sum::<u64>();
    }
    let gen_s = t.elapsed().as_secs_f64();
    assert_eq!(n, records);
    println!("input generation, one pass: {gen_s:.3} s");

    let dir = tempfile::tempdir().expect("temp dir");
    let trace = dir.path().join("bench_trace.json");
    let t = Instant::now();
    let report =
        replay_ctas(&info, &ReplayOptions::default(), source, Some(&trace)).expect("replay");
    let total_s = t.elapsed().as_secs_f64();
    let hwm = vm_hwm_kib().unwrap_or(0);
    let size = std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
    assert_eq!(report.totals.records, records);
    let replay_s = (total_s - 2.0 * gen_s).max(1e-9);
    println!(
        "replay + Chrome trace: {total_s:.3} s end to end ({:.2} M records/s), {replay_s:.3} s without input \
         generation ({:.2} M records/s)",
        records as f64 / total_s / 1e6,
        records as f64 / replay_s / 1e6
    );
    println!(
        "trace: {:.1} MiB, {} region instances ({:.2} M events/s)",
        size as f64 / (1 << 20) as f64,
        report.totals.instances,
        report.totals.instances as f64 / replay_s / 1e6
    );
    println!(
        "peak RSS (VmHWM) after replay + trace: {hwm} KiB ({:.1} MiB)",
        hwm as f64 / 1024.0
    );
    drop(dir);

    let t = Instant::now();
    let r2 = replay_ctas(&info, &ReplayOptions::default(), source, None).expect("replay");
    let s = t.elapsed().as_secs_f64();
    let no_trace_s = (s - 2.0 * gen_s).max(1e-9);
    println!(
        "replay without trace: {s:.3} s end to end, {no_trace_s:.3} s without generation ({:.2} M records/s)",
        records as f64 / no_trace_s / 1e6
    );
    assert_eq!(r2.totals.instances, report.totals.instances);

    // The same, formatting the trace into io::sink(): the trace cost without disk I/O.
    let t = Instant::now();
    let mut scan = ProfileScan::default();
    for i in 0..ctas {
        scan.observe(&gen_cta(i));
    }
    let mut replayer = Replayer::new(&info, &ReplayOptions::default(), &scan).expect("replayer");
    let mut w = ChromeTraceWriter::new(std::io::sink(), &info, TraceGrouping::Sm).expect("writer");
    for i in 0..ctas {
        let view = replayer.push_cta(&gen_cta(i));
        w.write_cta(view.cta, view.regions).expect("write");
    }
    let events = w.events_written();
    let r3 = replayer.finish();
    w.finish(Some(&r3)).expect("finish");
    let s = t.elapsed().as_secs_f64();
    let sink_s = (s - 2.0 * gen_s).max(1e-9);
    println!(
        "replay + trace formatted into io::sink(): {sink_s:.3} s without generation ({:.2} M records/s, {events} events)",
        records as f64 / sink_s / 1e6
    );
    let top = &report.regions[0];
    println!(
        "check: top region `{}` share {:.1}%, mean {:.1} ns; critical unit histogram {:?}",
        top.name,
        top.share * 100.0,
        top.mean_ns,
        report
            .critical_units
            .iter()
            .map(|c| (c.unit, c.ctas))
            .collect::<Vec<_>>()
    );
}
