//! Replay throughput and memory on a synthetic profile of >= 10 million records.
//!
//! `cargo bench -p kperf-replay` (or `cargo bench -p kperf-replay -- 256` for
//! a smaller grid). CTAs are generated one at a time while the replay pulls
//! them, as a decoder over a memory map would hand them over, so the input
//! never sits in memory as a whole; the report is built and the Chrome trace
//! streamed to a temporary file. Prints records/s and peak RSS (VmHWM).

use std::time::Instant;

use kperf_replay::{
    replay_ctas, ChromeTraceWriter, ProfileScan, ReplayError, ReplayOptions, Replayer,
    TraceGrouping,
};
use kperf_runtime::synthetic::{cta_trace as gen_cta, run_info, RECORDS_PER_UNIT, UNITS};

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
    let records = u64::from(ctas) * u64::from(UNITS) * u64::from(RECORDS_PER_UNIT);
    let info = run_info(ctas);
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
