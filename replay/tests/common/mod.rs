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
