//! The CLI path: a `.kprof` file written by kperf-runtime, replayed from disk.

mod common;

use common::*;
use kperf_dialects::abi::{
    cta_header, Counter, CtaHeader, Edge, HeaderFlags, Layout, RecordWord, RegionId, Strategy,
};
use kperf_replay::{replay_file, Profile, ReplayError, ReplayOptions};

fn words(recs: &[(u16, Edge, u64)]) -> Vec<RecordWord> {
    recs.iter()
        .map(|&(r, edge, clock)| RecordWord {
            region: RegionId(r),
            edge,
            clock,
        })
        .collect()
}

fn write_profile(dir: &std::path::Path) -> std::path::PathBuf {
    write_profile_unfinished(dir, 3, &[])
}

/// `ctas` CTAs; `unfinished` names those whose finalize never finished
/// (their shape and end stamp left 0).
fn write_profile_unfinished(
    dir: &std::path::Path,
    ctas: u32,
    unfinished: &[u32],
) -> std::path::PathBuf {
    let mut info = cycle_info(&[reg(0, "load"), reg(1, "mma")]);
    info.record_cost_ticks = Some(2.0);
    let layout = Layout { units: 2, slots: 8 };
    info.meta.kernels[0].layout = layout;
    let mut buffer = Vec::new();
    for cta in 0..ctas {
        let header = CtaHeader {
            cta_id: cta,
            hw_id: 10 + cta % 2,
            start_time: 50_000 + 100 * u64::from(cta),
            finalize_start_time: 50_000 + 100 * u64::from(cta) + 1_000,
            finalize_end_time: 50_000 + 100 * u64::from(cta) + 1_100,
            start_clock: 1_000,
            finalize_clock: 3_000, // 2 ticks per ns
            layout,
            flags: HeaderFlags {
                counter: Counter::Clock64,
                strategy: Strategy::Circular,
            },
        };
        let u0 = words(&[
            (0, Edge::Start, 1_100),
            (0, Edge::End, 1_300),
            (0, Edge::Start, 1_400),
            (0, Edge::End, 1_500),
        ]);
        // Unit 1 wrote 10 records into 8 slots: the first START/END pair is lost.
        let all: Vec<(u16, Edge, u64)> = (0..5u64)
            .flat_map(|k| {
                [
                    (1, Edge::Start, 1_200 + 100 * k),
                    (1, Edge::End, 1_260 + 100 * k),
                ]
            })
            .collect();
        let u1 = words(&all[2..]);
        let mut block =
            kperf_runtime::encode_block(&header, &[(0, 4, &u0), (1, 10, &u1)], Counter::Clock64);
        if unfinished.contains(&cta) {
            block[cta_header::UNITS..cta_header::UNITS + 16].fill(0);
        }
        buffer.extend(block);
    }
    let path = dir.join("run.kprof");
    kperf_runtime::write_kprof(&path, &info, layout.cta_stride(), &buffer).unwrap();
    path
}

#[test]
fn replay_file_reads_a_kprof_and_streams_the_trace() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_profile(dir.path());
    let trace = dir.path().join("trace.json");
    let r = replay_file(&path, &ReplayOptions::default(), Some(&trace)).unwrap();
    assert_eq!(
        (
            r.totals.ctas,
            r.totals.units,
            r.totals.records,
            r.totals.records_lost
        ),
        (3, 6, 36, 6)
    );
    let load = r.regions.iter().find(|x| x.name == "load").unwrap();
    // (200 - 2) and (100 - 2) ticks at 2 ticks/ns.
    assert_eq!(
        (load.count, load.mean_corrected_ticks, load.mean_ns),
        (6, 148.0, 74.0)
    );
    let mma = r.regions.iter().find(|x| x.name == "mma").unwrap();
    assert_eq!(
        (
            mma.count,
            mma.mean_corrected_ticks,
            mma.unmatched_starts + mma.unmatched_ends
        ),
        (12, 58.0, 0)
    );
    assert_eq!(r.clock.ctas_measured, 3);
    // CTAs 100 ns apart on the axis.
    let starts: Vec<f64> = r.ctas.iter().map(|c| c.start_ns).collect();
    assert_eq!(starts, [0.0, 100.0, 200.0]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    assert_eq!(
        v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .count(),
        18
    );
    // The in-memory API reads the same file to the same report.
    let p = Profile::load(&path).unwrap();
    assert_eq!(p.report(), &r);
    assert_eq!(
        p.instances(RegionId(1))
            .filter(|i| i.cta == 2)
            .map(|i| i.instance)
            .collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
}

fn unfinished_caveat(r: &kperf_replay::ReplayReport) -> &str {
    r.caveats
        .iter()
        .find(|c| c.contains("finalize never finished"))
        .unwrap_or_else(|| panic!("no unfinished caveat in {:?}", r.caveats))
}

/// A CTA whose finalize never finished is left out of the report with a
/// caveat naming it; the other CTAs replay as usual.
#[test]
fn an_unfinished_block_is_left_out_with_a_caveat() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_profile_unfinished(dir.path(), 3, &[1]);
    let r = replay_file(&path, &ReplayOptions::default(), None).unwrap();
    assert_eq!(r.totals.ctas, 2);
    assert_eq!(r.ctas.iter().map(|c| c.cta_id).collect::<Vec<_>>(), [0, 2]);
    let caveat = unfinished_caveat(&r);
    assert!(
        caveat.starts_with("1 CTA block(s) left out, the first at block index 1"),
        "{caveat}"
    );
    let p = Profile::load(&path).unwrap();
    assert_eq!(p.report(), &r);
}

/// The scan runs over chunks of blocks in parallel: counts add up and the
/// first unfinished block is still the earliest, across chunk boundaries.
#[test]
fn the_parallel_scan_merges_chunks_in_block_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_profile_unfinished(dir.path(), 200, &[70, 150, 199]);
    let r = replay_file(&path, &ReplayOptions::default(), None).unwrap();
    assert_eq!((r.totals.ctas, r.totals.records), (197, 197 * 12));
    let caveat = unfinished_caveat(&r);
    assert!(
        caveat.starts_with("3 CTA block(s) left out, the first at block index 70"),
        "{caveat}"
    );
    assert_eq!(r.ctas.first().map(|c| c.start_ns), Some(0.0));
}

#[test]
fn file_errors_carry_their_context() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.kprof");
    let err = replay_file(&missing, &ReplayOptions::default(), None).unwrap_err();
    assert!(matches!(err, ReplayError::Profile { .. }));
    assert!(err.to_string().contains("nope.kprof"), "{err}");
    let path = write_profile(dir.path());
    let bad_trace = dir.path().join("no/such/dir/trace.json");
    let err = replay_file(&path, &ReplayOptions::default(), Some(&bad_trace)).unwrap_err();
    assert!(matches!(err, ReplayError::TraceFile { .. }), "{err}");
    assert!(err.to_string().contains("trace.json"), "{err}");
    // A file that is not a profile.
    let junk = dir.path().join("junk.kprof");
    std::fs::write(&junk, b"definitely not a profile").unwrap();
    assert!(matches!(
        Profile::load(&junk),
        Err(ReplayError::Profile { .. })
    ));
}

#[test]
fn a_files_fit_samples_blocks_over_the_whole_grid() {
    // As scenarios::the_stall_guard_samples_the_whole_grid_not_its_first_ctas,
    // through the file's parallel scan, whose chunks of 64 blocks sampled
    // the first two chunks alone: the 128 light CTAs at the grid's start.
    for heavy_by_iterations in [false, true] {
        let (info, ctas) = imbalanced_grid_with_a_stall(heavy_by_iterations);
        let fit = replay_as_a_file(info, ctas);
        assert_eq!(fit.calibrated_median_error, Some(0.0), "{fit:?}");
        assert!(fit.outlier_driven() && !fit.applied, "{fit:?}");
    }
}

/// Write `ctas` as a `.kprof` (global-timer counter) and replay the file.
fn replay_as_a_file(
    info: kperf_runtime::profile::RunInfo,
    ctas: Vec<kperf_runtime::profile::CtaTrace>,
) -> kperf_replay::correct::CostFit {
    let layout = info.meta.kernels[0].layout;
    let mut buffer = Vec::new();
    for c in &ctas {
        let header = CtaHeader {
            cta_id: c.cta_id,
            hw_id: c.hw_id,
            start_time: c.start_time_ns,
            finalize_start_time: c.finalize_start_ns,
            finalize_end_time: c.finalize_end_ns,
            start_clock: c.start_clock,
            finalize_clock: c.finalize_clock,
            layout,
            flags: HeaderFlags {
                counter: Counter::Globaltimer,
                strategy: Strategy::Circular,
            },
        };
        let recs: Vec<RecordWord> = c.units[0]
            .records
            .iter()
            .map(|r| RecordWord {
                region: r.region,
                edge: r.edge,
                clock: r.clock,
            })
            .collect();
        buffer.extend(kperf_runtime::encode_block(
            &header,
            &[(0, recs.len() as u32, &recs)],
            Counter::Globaltimer,
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("imbalanced.kprof");
    kperf_runtime::write_kprof(&path, &info, layout.cta_stride(), &buffer).unwrap();
    let r = replay_file(&path, &ReplayOptions::default(), None).unwrap();
    r.correction.fit.clone().unwrap()
}

#[test]
fn a_warp_recording_before_the_init_stamps_starts_the_axis_in_a_files_trace() {
    // Two CTAs on an epoch-scale global timer (as an H200's), 1.5 ticks a
    // ns. CTA 1 starts 192 ns after CTA 0, but its warp 1 recorded 238
    // ticks (158.7 ns) before its init stamps: 33.3 ns after CTA 0's start.
    // CTA 0's warp 1 recorded 300 ticks (200 ns) early: the axis zero.
    // The scan reads headers only here; it used to take the earliest init
    // stamp as the zero (the records before it had negative times, which
    // Perfetto clamped to 0), and in f64 an epoch-scale time resolves
    // 256 ns, which moved the zero by 128 ns in the H200 profiles.
    const EPOCH: u64 = 1_795_855_036_747_045_504;
    let starts = trace_starts_us(&[
        TwoWarpCta::new(0, EPOCH, 300),
        TwoWarpCta::new(1, EPOCH + 192, 238),
    ]);
    // µs: CTA 0's warp 1 at 0, its warp 0 at 0.22; CTA 1's warp 1 at
    // 0.2 + 0.0333, its warp 0 at 0.412.
    let want = [0.0, 0.22, 0.2333, 0.412];
    assert_eq!(starts.len(), want.len(), "{starts:?}");
    for (got, want) in starts.iter().zip(want) {
        assert!((got - want).abs() < 0.002, "{starts:?}");
    }
}

#[test]
fn a_cta_placed_by_its_finalize_stamp_starts_the_axis_in_a_files_trace() {
    // CTA 0's init stamp is 0 against an epoch-scale timer: replay places
    // it by its finalize stamp, at EPOCH + 1000 − its 10 µs clock span, so
    // its first record is 9192 ns before CTA 1's init stamp (EPOCH + 192).
    // A header-only scan decodes such a block whole to place it; the axis
    // used to start at CTA 1's stamp, CTA 0 at −9.2 µs.
    const EPOCH: u64 = 1_795_855_036_747_045_504;
    let mut bad = TwoWarpCta::new(0, 0, 0);
    bad.finalize_ns = EPOCH + 1_000;
    let mut good = TwoWarpCta::new(1, EPOCH + 192, 0);
    good.finalize_ns = EPOCH + 192 + 10_000;
    let starts = trace_starts_us(&[bad, good]);
    // µs: CTA 0's warp 1 at 0 (its init clock) and warp 0 at 0.02 (30
    // ticks later); CTA 1's the same 9.192 later.
    let want = [0.0, 0.02, 9.192, 9.212];
    assert_eq!(starts.len(), want.len(), "{starts:?}");
    for (got, want) in starts.iter().zip(want) {
        assert!((got - want).abs() < 0.002, "{starts:?}");
    }
}

/// A CTA of two warps at 1.5 ticks a ns, its init clock 1 000 000 and its
/// finalize 15 000 ticks (10 µs) later: warp 0's region from 30 to 3030
/// ticks after init, warp 1's from `lead` ticks before init to 1500 after.
struct TwoWarpCta {
    cta: u32,
    start_ns: u64,
    finalize_ns: u64,
    lead: u64,
}

impl TwoWarpCta {
    fn new(cta: u32, start_ns: u64, lead: u64) -> TwoWarpCta {
        TwoWarpCta {
            cta,
            start_ns,
            finalize_ns: start_ns + 10_000,
            lead,
        }
    }
}

/// The start times (µs) of the region instances in the Chrome trace of a
/// `.kprof` of `ctas`, sorted (a header-only scan: the cost is given).
fn trace_starts_us(ctas: &[TwoWarpCta]) -> Vec<f64> {
    let mut info = cycle_info(&[reg(0, "r")]);
    info.record_cost_ticks = Some(0.0);
    let layout = Layout { units: 2, slots: 4 };
    info.meta.kernels[0].layout = layout;
    let mut buffer = Vec::new();
    for c in ctas {
        let start_clock = 1_000_000;
        let header = CtaHeader {
            cta_id: c.cta,
            hw_id: c.cta,
            start_time: c.start_ns,
            finalize_start_time: c.finalize_ns,
            finalize_end_time: c.finalize_ns + 100,
            start_clock,
            finalize_clock: start_clock + 15_000,
            layout,
            flags: HeaderFlags {
                counter: Counter::Clock64,
                strategy: Strategy::Circular,
            },
        };
        let u0 = words(&[
            (0, Edge::Start, start_clock + 30),
            (0, Edge::End, start_clock + 3_030),
        ]);
        let u1 = words(&[
            (0, Edge::Start, start_clock - c.lead),
            (0, Edge::End, start_clock + 1_500),
        ]);
        buffer.extend(kperf_runtime::encode_block(
            &header,
            &[(0, 2, &u0), (1, 2, &u1)],
            Counter::Clock64,
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("early.kprof");
    kperf_runtime::write_kprof(&path, &info, layout.cta_stride(), &buffer).unwrap();
    let trace = dir.path().join("trace.json");
    replay_file(&path, &ReplayOptions::default(), Some(&trace)).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let mut starts: Vec<f64> = json["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| e["ts"].as_f64().unwrap())
        .collect();
    starts.sort_by(f64::total_cmp);
    starts
}

#[test]
fn an_exact_calibration_reads_exact_on_a_triangular_grid() {
    // The calibrated error was read from the fit's sample: sized by the
    // first (lightest) CTA, the sample held no CTA past 25 iterations, and
    // an exact calibration read about +18% off and was fitted. The scan
    // now corrects every unit as the replay will.
    let (info, ctas) = triangular_grid();
    let fit = replay_as_a_file(info, ctas);
    assert!(fit.calibrated_error.abs() < 1e-9, "{fit:?}");
    assert!(!fit.applied, "{fit:?}");
}
