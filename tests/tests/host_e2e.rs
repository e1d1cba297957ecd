//! Instrument → host JIT run → .kprof → decode, on the bundled tiled matmul.
//!
//! The matmul (64×64, 16×16 tiles, grid 4×4) has four nested loops per CTA:
//! kt (1 instance), i (4), j (4·16 = 64), k (64·16 = 1024). With
//! `--regions kernel,loops` each instance writes a START and an END, so every
//! CTA's single host unit writes 2·(1 + 1 + 4 + 64 + 1024) = 2188 records.

use kperf_dialects::abi::Edge;
use kperf_instrument::mlir::pipeline::prepare_host;
use kperf_instrument::{InstrumentOptions, KperfContext, RegionMode, Target};
use kperf_runtime::host::{run_host, HostRun, Param};
use kperf_runtime::profile::RunInfo;
use kperf_runtime::spec::LaunchSpec;
use kperf_runtime::ProfileReader;
use std::collections::HashMap;
use std::path::Path;

const RECORDS_PER_CTA: u64 = 2188;

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
}

/// The matmul's regions (kernel, loops) with `slots` records per ring.
fn matmul_options(slots: u32) -> InstrumentOptions {
    InstrumentOptions {
        target: Target::Host,
        regions: vec![RegionMode::Kernel, RegionMode::Loops],
        slots: Some(slots),
        ..InstrumentOptions::default()
    }
}

/// Instrument (or not) and run the example matmul over its grid.
fn run_with(
    opts: &InstrumentOptions,
    instrument: bool,
) -> (HostRun, Option<kperf_dialects::meta::InstrumentMeta>) {
    let src = std::fs::read_to_string(example("matmul_host.mlir")).expect("example kernel");
    let spec = LaunchSpec::load(&example("matmul_host.toml")).expect("example spec");
    let kctx = KperfContext::new().expect("context");
    let hm = prepare_host(
        &kctx,
        &src,
        "matmul_host.mlir",
        opts,
        Some("matmul"),
        instrument,
        None,
    )
    .expect("instrument");
    let params: Vec<Param> = hm
        .param_types
        .iter()
        .map(|t| Param::parse(t).expect("supported param"))
        .collect();
    let km = hm.meta.as_ref().and_then(|m| m.kernel("matmul")).cloned();
    let r = run_host(&hm.module, "matmul", &params, km.as_ref(), &spec, 2).expect("run");
    (r, hm.meta)
}

fn run(instrument: bool, slots: u32) -> (HostRun, Option<kperf_dialects::meta::InstrumentMeta>) {
    run_with(&matmul_options(slots), instrument)
}

fn reference_matmul(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = 64;
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            c[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
        }
    }
    c
}

fn decode(
    r: &HostRun,
    meta: kperf_dialects::meta::InstrumentMeta,
) -> Vec<kperf_runtime::profile::CtaTrace> {
    let km = meta.kernels[0].clone();
    let info = RunInfo::for_kernel(&meta, km.clone(), [4, 4, 1], [1, 1, 1]);
    // Tests run in parallel: each gets its own directory.
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("run.kprof");
    kperf_runtime::write_kprof(&path, &info, km.layout.cta_stride(), &r.profile)
        .expect("write kprof");
    let reader = ProfileReader::open(&path).expect("open");
    let ctas: Vec<_> = reader.ctas().collect::<Result<_, _>>().expect("decode");
    ctas
}

#[test]
fn instrumentation_does_not_change_results_and_matches_reference() {
    let (plain, _) = run(false, 4096);
    let (inst, _) = run(true, 4096);
    assert_eq!(plain.buffers.len(), 3);
    for (p, i) in plain.buffers.iter().zip(&inst.buffers) {
        assert_eq!(
            p.bytes(),
            i.bytes(),
            "buffer {} differs with instrumentation",
            p.name
        );
    }
    let get = |k: usize| {
        (0..plain.buffers[k].len())
            .map(|i| plain.buffers[k].get(i))
            .collect::<Vec<f64>>()
    };
    let want = reference_matmul(&get(0), &get(1));
    for (i, (g, w)) in get(2).iter().zip(&want).enumerate() {
        assert!((g - w).abs() < 1e-4, "C[{i}] = {g}, reference {w}");
    }
}

#[test]
fn every_cta_records_exactly_what_the_loops_execute() {
    let (r, meta) = run(true, 4096);
    let meta = meta.expect("instrumented");
    let regions: HashMap<u16, String> = meta.kernels[0]
        .regions
        .iter()
        .map(|r| (r.id.0, r.name.clone()))
        .collect();
    let ctas = decode(&r, meta);
    assert_eq!(ctas.len(), 16, "one block per CTA of the 4x4 grid");
    let mut ids: Vec<u32> = ctas.iter().map(|c| c.cta_id).collect();
    ids.sort();
    assert_eq!(ids, (0..16).collect::<Vec<_>>());
    for c in &ctas {
        assert_eq!(c.units.len(), 1, "the host runs one unit per CTA");
        let u = &c.units[0];
        assert_eq!(u.records_written, RECORDS_PER_CTA);
        assert_eq!(u.records_lost, 0);
        assert_eq!(u.records.len() as u64, RECORDS_PER_CTA);
        assert!(
            u.records.windows(2).all(|w| w[0].clock <= w[1].clock),
            "records are chronological"
        );
        assert!(
            c.start_clock <= u.records[0].clock
                && u.records.last().map(|l| l.clock).unwrap_or(0) <= c.finalize_clock
        );
        // Starts per region = instances the code executes.
        let mut starts: HashMap<&str, u64> = HashMap::new();
        for rec in &u.records {
            if rec.edge == Edge::Start {
                *starts.entry(regions[&rec.region.0].as_str()).or_default() += 1;
            }
        }
        let mut counts: Vec<u64> = starts.values().copied().collect();
        counts.sort();
        assert_eq!(
            counts,
            vec![1, 1, 4, 64, 1024],
            "kernel, kt, i, j, k loop instances in CTA {}",
            c.cta_id
        );
        assert_eq!(
            u.records
                .first()
                .map(|r| (regions[&r.region.0].as_str(), r.edge)),
            Some(("kernel", Edge::Start))
        );
        assert_eq!(
            u.records
                .last()
                .map(|r| (regions[&r.region.0].as_str(), r.edge)),
            Some(("kernel", Edge::End))
        );
    }
}

#[test]
fn a_small_ring_keeps_the_newest_records_and_counts_the_rest() {
    let (r, meta) = run(true, 1024);
    let ctas = decode(&r, meta.expect("instrumented"));
    for c in &ctas {
        let u = &c.units[0];
        assert_eq!(u.records_written, RECORDS_PER_CTA);
        assert_eq!(u.records.len(), 1024);
        assert_eq!(u.records_lost, RECORDS_PER_CTA - 1024);
        assert_eq!(
            u.records.last().map(|r| r.edge),
            Some(Edge::End),
            "the newest record (kernel END) survives"
        );
        assert!(u.records.windows(2).all(|w| w[0].clock <= w[1].clock));
    }
}

/// Every lowering option really runs: the same kernel with each counter,
/// buffer kind, strategy and CTA sampling, decoded and checked against what
/// the code must produce.
mod options {
    use super::*;
    use kperf_dialects::abi::Strategy;
    use kperf_dialects::meta::{BufferKind, CtaSampling};

    struct Case {
        counter: Counter,
        buffer: BufferKind,
        strategy: Strategy,
        slots: u32,
        flush_slots: Option<u32>,
        sampling: CtaSampling,
    }

    fn run_case(c: &Case) -> Vec<kperf_runtime::profile::CtaTrace> {
        let opts = InstrumentOptions {
            counter: c.counter,
            buffer: c.buffer,
            strategy: c.strategy,
            flush_slots: c.flush_slots,
            sample_ctas: c.sampling.clone(),
            ..matmul_options(c.slots)
        };
        let (r, meta) = run_with(&opts, true);
        decode(&r, meta.expect("meta"))
    }

    use kperf_dialects::abi::Counter;

    fn check_complete(ctas: &[kperf_runtime::profile::CtaTrace], expect_ctas: &[u32]) {
        let mut ids: Vec<u32> = ctas.iter().map(|c| c.cta_id).collect();
        ids.sort();
        assert_eq!(ids, expect_ctas);
        for c in ctas {
            let u = &c.units[0];
            assert_eq!(u.records_written, RECORDS_PER_CTA);
            assert!(
                u.records.windows(2).all(|w| w[0].clock <= w[1].clock),
                "chronological"
            );
            let starts = u.records.iter().filter(|r| r.edge == Edge::Start).count();
            let ends = u.records.len() - starts;
            assert_eq!(starts, ends, "complete START/END pairs");
        }
    }

    #[test]
    fn each_counter_records_every_event() {
        for counter in [Counter::Clock32, Counter::Clock64, Counter::Globaltimer] {
            let c = Case {
                counter,
                buffer: BufferKind::Shared,
                strategy: Strategy::Circular,
                slots: 4096,
                flush_slots: None,
                sampling: CtaSampling::All,
            };
            let ctas = run_case(&c);
            check_complete(&ctas, &(0..16).collect::<Vec<_>>());
            for cta in &ctas {
                assert_eq!(
                    cta.units[0].records.len() as u64,
                    RECORDS_PER_CTA,
                    "{counter:?}"
                );
                // The records sit inside the CTA's own header stamps.
                let first = cta.units[0].records[0].clock;
                assert!(
                    cta.start_clock <= first
                        && cta.units[0].records.last().map(|r| r.clock).unwrap_or(0)
                            <= cta.finalize_clock,
                    "{counter:?}"
                );
            }
        }
    }

    #[test]
    fn global_buffer_writes_records_straight_through() {
        let c = Case {
            counter: Counter::Clock64,
            buffer: BufferKind::Global,
            strategy: Strategy::Circular,
            slots: 4096,
            flush_slots: None,
            sampling: CtaSampling::All,
        };
        let ctas = run_case(&c);
        check_complete(&ctas, &(0..16).collect::<Vec<_>>());
    }

    #[test]
    fn flush_keeps_the_oldest_records_and_counts_the_dropped_ones() {
        // An 8-slot ring flushed into 1024 global slots: the first 1024 of
        // 2188 records survive, in order, starting with the kernel START.
        let c = Case {
            counter: Counter::Clock32,
            buffer: BufferKind::Shared,
            strategy: Strategy::Flush,
            slots: 8,
            flush_slots: Some(1024),
            sampling: CtaSampling::All,
        };
        let ctas = run_case(&c);
        for cta in &ctas {
            let u = &cta.units[0];
            assert_eq!(u.records_written, RECORDS_PER_CTA);
            assert_eq!(u.records.len(), 1024);
            assert_eq!(u.records_lost, RECORDS_PER_CTA - 1024);
            assert_eq!(
                u.records[0].edge,
                Edge::Start,
                "the oldest record (kernel START) survives"
            );
            assert!(u.records.windows(2).all(|w| w[0].clock <= w[1].clock));
        }
    }

    #[test]
    fn flush_with_room_for_everything_equals_a_large_ring() {
        let c = Case {
            counter: Counter::Clock32,
            buffer: BufferKind::Shared,
            strategy: Strategy::Flush,
            slots: 16,
            flush_slots: Some(4096),
            sampling: CtaSampling::All,
        };
        let ctas = run_case(&c);
        check_complete(&ctas, &(0..16).collect::<Vec<_>>());
        assert!(ctas
            .iter()
            .all(|c| c.units[0].records.len() as u64 == RECORDS_PER_CTA));
    }

    #[test]
    fn cta_sampling_records_only_the_chosen_ctas() {
        let every = Case {
            counter: Counter::Clock32,
            buffer: BufferKind::Shared,
            strategy: Strategy::Circular,
            slots: 4096,
            flush_slots: None,
            sampling: CtaSampling::Every(4),
        };
        check_complete(&run_case(&every), &[0, 4, 8, 12]);
        let list = Case {
            sampling: CtaSampling::List(vec![3, 9]),
            ..every
        };
        check_complete(&run_case(&list), &[3, 9]);
    }
}
