//! Builders shared by the integration tests: run metadata, synthetic kperf
//! blocks and synthetic Proton host dumps.
#![allow(dead_code)] // each test binary uses a different subset

use kperf_dialects::abi::{
    Counter, CtaHeader, Edge, HeaderFlags, Layout, RecordWord, RegionId, Strategy,
};
use kperf_dialects::meta::{BufferKind, Granularity, InstrumentMeta, KernelMeta};
use kperf_runtime::profile::RunInfo;

pub const PROTON_FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/proton/");

pub fn proton_fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(PROTON_FIXTURES).join(name)
}

/// A run whose metadata names kernel `k` with `layout`, when given.
pub fn run_info(counter: Counter, strategy: Strategy, layout: Option<Layout>) -> RunInfo {
    let mut meta = InstrumentMeta::new_header(
        "host",
        counter,
        Granularity::Warp,
        BufferKind::Shared,
        strategy,
    );
    if let Some(layout) = layout {
        meta.shared_slots = layout.slots;
        let mut k = KernelMeta::new("k", [layout.units * 32, 1, 1], layout, Vec::new());
        k.original_arg_count = 1;
        meta.kernels.push(k);
    }
    RunInfo {
        target: "host".into(),
        kernel: "k".into(),
        grid: [1, 1, 1],
        block: [32, 1, 1],
        counter,
        clock_domain: counter.clock_domain(),
        granularity: Granularity::Warp,
        strategy,
        ticks_per_ns: Some(1.5),
        record_cost_ticks: None,
        record_cost_back_to_back_ticks: None,
        record_cost_origin: None,
        check: None,
        meta,
    }
}

pub fn cta_header(
    cta_id: u32,
    counter: Counter,
    strategy: Strategy,
    layout: Layout,
    start_clock: u64,
) -> CtaHeader {
    CtaHeader {
        cta_id,
        hw_id: cta_id * 7 % 132,
        start_time: 1_000 + cta_id as u64,
        finalize_start_time: 50_000,
        finalize_end_time: 50_500,
        start_clock,
        finalize_clock: start_clock.wrapping_add(75_000),
        layout,
        flags: HeaderFlags { counter, strategy },
    }
}

/// `n` records with full-width clocks `start + cumulative gaps`, alternating
/// start/end of region `i % 5`.
pub fn records_with_gaps(start: u64, gaps: &[u64]) -> Vec<RecordWord> {
    let mut clock = start;
    gaps.iter()
        .enumerate()
        .map(|(i, g)| {
            clock += g;
            RecordWord {
                region: RegionId((i / 2 % 5) as u16),
                edge: if i % 2 == 0 { Edge::Start } else { Edge::End },
                clock,
            }
        })
        .collect()
}

/// The records a unit keeps of `all`: the newest `slots` (circular) or the first `slots` (flush).
pub fn survivors(all: &[RecordWord], slots: usize, strategy: Strategy) -> &[RecordWord] {
    let keep = all.len().min(slots);
    match strategy {
        Strategy::Circular => &all[all.len() - keep..],
        Strategy::Flush => &all[..keep],
    }
}

/// One Proton record: `(scope, end, 43-bit clock)`.
pub type ProtonRecord = (u8, bool, u64);

pub fn proton_words((scope, end, clock): ProtonRecord) -> [u32; 2] {
    let tag = (end as u32) << 31 | (scope as u32) << 23 | ((clock >> 32) as u32 & 0x7FF);
    [tag, clock as u32]
}

/// A Proton host dump v1 (HIP) with `slots` record slots per unit. Each CTA
/// is `Some(units)` (each unit the full list of records it wrote, laid into
/// its ring at `i % slots`) or `None` for a CTA that never wrote.
pub fn proton_dump(slots: usize, units: usize, ctas: &[Option<Vec<Vec<ProtonRecord>>>]) -> Vec<u8> {
    let all: Vec<u32> = (0..units as u32).collect();
    proton_dump_selected(slots, units, &all, ctas)
}

/// As [`proton_dump`], for CTAs of `warps` warps of which Proton recorded
/// the `selected` ones: the count table has one word per warp, by warp id
/// (0 for warps not recorded), and segments exist for the selected warps
/// only, in table order (Triton's `FinalizeOp` lowering).
pub fn proton_dump_selected(
    slots: usize,
    warps: usize,
    selected: &[u32],
    ctas: &[Option<Vec<Vec<ProtonRecord>>>],
) -> Vec<u8> {
    let units = selected.len();
    let data_size = units * slots * 8;
    let stride = 40 + 4 * warps + data_size + 24; // trailing garbage, as Proton leaves
    let header_size = 40 + 4 * units;
    let mut out = Vec::new();
    let push = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
    for v in [
        1,
        4,
        header_size,
        header_size,
        ctas.len() * stride,
        2,
        ctas.len(),
        warps,
        stride,
        units,
    ] {
        push(&mut out, v as u32);
    }
    for &u in selected {
        push(&mut out, u);
    }
    for (i, cta) in ctas.iter().enumerate() {
        let base = out.len();
        out.resize(base + stride, 0xBE);
        let Some(cta) = cta else {
            out[base..base + 4].fill(0);
            continue;
        };
        assert_eq!(cta.len(), units);
        let mut head = Vec::new();
        for v in [0xDEAD_BEEF, i as u32, 40 + i as u32, data_size as u32] {
            push(&mut head, v);
        }
        for t in [1_000u64, 9_000, 9_100] {
            head.extend_from_slice(&t.to_le_bytes());
        }
        for w in 0..warps as u32 {
            let words = selected
                .iter()
                .position(|&s| s == w)
                .map_or(0, |k| 2 * cta[k].len() as u32);
            push(&mut head, words);
        }
        out[base..base + head.len()].copy_from_slice(&head);
        for (u, unit) in cta.iter().enumerate() {
            for (n, r) in unit.iter().enumerate() {
                let off = base + 40 + 4 * warps + u * slots * 8 + n % slots * 8;
                let [tag, lo] = proton_words(*r);
                out[off..off + 4].copy_from_slice(&tag.to_le_bytes());
                out[off + 4..off + 8].copy_from_slice(&lo.to_le_bytes());
            }
        }
    }
    out
}
