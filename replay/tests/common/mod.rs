//! Hand-made profiles for the replay tests.
#![allow(dead_code)]

use kperf_dialects::abi::{Counter, Edge, Layout, RegionId, Strategy};
use kperf_dialects::meta::{
    BufferKind, Granularity, InstrumentMeta, KernelMeta, RegionKind, RegionMeta,
};
use kperf_runtime::profile::{CtaTrace, Record, RunInfo, UnitTrace};

/// A region of the test kernel: id, name, kind, parent, pairs_with.
pub type Reg = (u16, &'static str, RegionKind, Option<u16>, Option<u16>);

pub fn reg(id: u16, name: &'static str) -> Reg {
    (id, name, RegionKind::Explicit, None, None)
}

/// Run info for kernel `k` with the given regions.
pub fn info(counter: Counter, strategy: Strategy, regions: &[Reg]) -> RunInfo {
    let mut meta = InstrumentMeta::new_header(
        "nvptx:sm_90a",
        counter,
        Granularity::Warp,
        BufferKind::Shared,
        strategy,
    );
    meta.kernels.push(KernelMeta {
        name: "k".into(),
        original_arg_count: 0,
        block: [128, 1, 1],
        layout: Layout {
            units: 4,
            slots: 64,
        },
        sampled_units: vec![],
        cta_sampling: Default::default(),
        profile_param: None,
        profile_bytes_per_cta: 0,
        max_registers: None,
        regions: regions
            .iter()
            .map(|&(id, name, kind, parent, pairs_with)| RegionMeta {
                id: RegionId(id),
                name: name.into(),
                kind,
                parent: parent.map(RegionId),
                location: format!("k.mlir:{}:1", id + 1),
                pairs_with: pairs_with.map(RegionId),
            })
            .collect(),
    });
    RunInfo {
        target: "nvptx:sm_90a".into(),
        kernel: "k".into(),
        grid: [2, 1, 1],
        block: [128, 1, 1],
        counter,
        clock_domain: counter.clock_domain(),
        granularity: Granularity::Warp,
        strategy,
        ticks_per_ns: None,
        record_cost_ticks: None,
        record_cost_back_to_back_ticks: None,
        record_cost_origin: None,
        check: None,
        meta,
    }
}

/// Nanosecond-counter run (1 tick = 1 ns), circular.
pub fn ns_info(regions: &[Reg]) -> RunInfo {
    info(Counter::Globaltimer, Strategy::Circular, regions)
}

/// A nanosecond-counter run of a kernel region (id 0) around an
/// iteration region (id 1): the fit's scenarios.
pub fn kernel_loop_info() -> RunInfo {
    ns_info(&[
        (0, "kernel", RegionKind::Kernel, None, None),
        (1, "iter", RegionKind::Iteration, Some(0), None),
    ])
}

/// Cycle-counter run, circular.
pub fn cycle_info(regions: &[Reg]) -> RunInfo {
    info(Counter::Clock64, Strategy::Circular, regions)
}

pub fn s(region: u16, clock: u64) -> Record {
    Record {
        region: RegionId(region),
        edge: Edge::Start,
        clock,
    }
}

pub fn e(region: u16, clock: u64) -> Record {
    Record {
        region: RegionId(region),
        edge: Edge::End,
        clock,
    }
}

pub fn unit(unit_id: u32, records: Vec<Record>) -> UnitTrace {
    UnitTrace {
        unit_id,
        records_written: records.len() as u64,
        records_lost: 0,
        records,
    }
}

/// A CTA whose header clock starts at 0 and runs at `ticks_per_ns` for
/// `span_ns` ns from global time `start_ns`.
pub fn cta(
    cta_id: u32,
    hw_id: u32,
    start_ns: u64,
    span_ns: u64,
    ticks_per_ns: f64,
    units: Vec<UnitTrace>,
) -> CtaTrace {
    CtaTrace {
        block_index: cta_id as u64,
        cta_id,
        hw_id,
        start_time_ns: start_ns,
        finalize_start_ns: start_ns + span_ns,
        finalize_end_ns: start_ns + span_ns + 10,
        start_clock: 0,
        finalize_clock: (span_ns as f64 * ticks_per_ns) as u64,
        units,
    }
}

/// A CTA of a nanosecond-counter run: the header clock equals the global timer.
pub fn ns_cta(cta_id: u32, hw_id: u32, start_ns: u64, units: Vec<UnitTrace>) -> CtaTrace {
    cta(cta_id, hw_id, start_ns, 1_000, 1.0, units)
}

/// Compare `text` with the golden file `tests/golden/<name>`, or write it
/// with `KPERF_BLESS=1`; a difference names its first line.
pub fn check_golden(name: &str, text: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("KPERF_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with KPERF_BLESS=1", path.display()));
    if want != text {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(text.lines().count()));
        panic!(
            "{} differs at line {}:\n  want: {}\n  got:  {}\nrerun with KPERF_BLESS=1 if deliberate",
            path.display(),
            line + 1,
            want.lines().nth(line).unwrap_or("<eof>"),
            text.lines().nth(line).unwrap_or("<eof>")
        );
    }
}

/// A kernel region around `iterations(c)` iterations of `body(c)` ticks in
/// each of `ctas` one-unit CTAs, records costing `cost` ticks (calibrated
/// at 4), `stalled` (if any: a CTA and ticks) preempted in its first
/// iteration; the
/// check is the grid's truth without the stall (mean and nearest-rank
/// median of iterations × body).
pub fn loop_grid(
    ctas: u32,
    iterations: impl Fn(u32) -> u64,
    body: impl Fn(u32) -> u64,
    cost: u64,
    stalled: Option<(u32, u64)>,
) -> (
    kperf_runtime::profile::RunInfo,
    Vec<kperf_runtime::profile::CtaTrace>,
) {
    let mut info = kernel_loop_info();
    info.record_cost_ticks = Some(4.0);
    info.grid = [ctas, 1, 1];
    // Rings that hold the largest CTA's records (for a `.kprof` of them).
    let most = (0..ctas).map(|c| 2 * iterations(c) + 2).max().unwrap_or(2);
    info.meta.kernels[0].layout = Layout {
        units: 1,
        slots: u32::try_from(most.next_power_of_two()).unwrap_or(u32::MAX),
    };
    let mut work: Vec<u64> = (0..ctas).map(|c| iterations(c) * body(c)).collect();
    let mean = work.iter().sum::<u64>() as f64 / f64::from(ctas);
    work.sort_unstable();
    info.check = Some(kperf_runtime::profile::UninstrumentedRun {
        ctas: u64::from(ctas),
        cta_mean_ticks: Some(mean),
        cta_median_ticks: Some(
            work[kperf_runtime::rank::nearest_rank_index(work.len(), 50.0)] as f64,
        ),
        wall_ns: 10_000_000,
        method: "by hand".into(),
        profiled_wall_ns: None,
    });
    let ctas = (0..ctas)
        .map(|c| {
            let start = 100_000_000 * u64::from(c);
            let mut recs = vec![s(0, start)];
            let mut t = start + cost;
            for k in 0..iterations(c) {
                let stall = match stalled {
                    Some((at, ticks)) if at == c && k == 0 => ticks,
                    _ => 0,
                };
                recs.push(s(1, t));
                recs.push(e(1, t + cost + body(c) + stall));
                t += 2 * cost + body(c) + stall;
            }
            recs.push(e(0, t));
            cta(c, c % 132, start, t + 10 - start, 1.0, vec![unit(0, recs)])
        })
        .collect();
    (info, ctas)
}

/// An imbalanced grid with one stalled CTA, for the fit's stall guard: 1024
/// CTAs of 499 iterations, 4 ticks a record. The first 409 CTAs are light
/// (20-tick bodies: 9980 ticks of work), the other 615 heavy (40: 19960),
/// so the median CTA is a heavy one. In the profiled launch CTA 600
/// stalled 3 000 000 ticks (preempted); the uninstrumented launch did not:
/// mean 15973.8 ticks a CTA, median 19960. The calibrated cost corrects
/// the median exactly, while the stall moves the mean +18%: a fit would
/// spread it over every record. With `heavy_by_iterations` the heavy CTAs
/// run 998 iterations of 20 ticks instead (the same work, twice the
/// records).
pub fn imbalanced_grid_with_a_stall(heavy_by_iterations: bool) -> (RunInfo, Vec<CtaTrace>) {
    let light = |c: u32| c < 1024 * 2 / 5;
    loop_grid(
        1024,
        |c| {
            if light(c) || !heavy_by_iterations {
                499
            } else {
                998
            }
        },
        |c| {
            if light(c) || heavy_by_iterations {
                20
            } else {
                40
            }
        },
        4,
        Some((600, 3_000_000)),
    )
}

/// A triangular grid, as causal attention's: CTA c runs 10·(1 + c mod 64)
/// iterations of 20 ticks, 1024 CTAs, 4 ticks a record, no stall: the
/// calibrated cost is exact.
pub fn triangular_grid() -> (RunInfo, Vec<CtaTrace>) {
    loop_grid(1024, |c| 10 * (1 + u64::from(c % 64)), |_| 20, 4, None)
}
