//! Proton host dumps, recorded on a real GPU (tests/fixtures/proton, copied from the shared fixtures) and
//! synthetic, decode into the same model as kperf's own profiles.

mod common;

use common::{proton_dump, proton_dump_selected, proton_fixture, ProtonRecord};
use kperf_dialects::abi::{ClockDomain, Counter, Edge, RegionId, Strategy};
use kperf_dialects::meta::Granularity;
use kperf_runtime::profile::{CtaTrace, UnitTrace};
use kperf_runtime::{ProfileReader, RuntimeError};
use std::collections::HashMap;

/// What a fixture must decode to (facts from the fixture README).
struct Expect {
    file: &'static str,
    target: &'static str,
    cta_ids: &'static [u32],
    unit_ids: &'static [u32],
    /// Proton's own count: words written per unit.
    words: u64,
    /// The surviving records of every unit, as (edge, scope), oldest first.
    pattern: &'static [(Edge, u16)],
    lost_per_unit: u64,
    /// Every scope id that occurs.
    scopes: &'static [u16],
}

const S: Edge = Edge::Start;
const E: Edge = Edge::End;

const FIXTURES: &[Expect] = &[
    Expect {
        file: "seq.bin",
        target: "proton:hip",
        cta_ids: &[0, 1],
        unit_ids: &[0, 1, 2, 3],
        words: 12,
        pattern: &[(S, 0), (S, 1), (S, 2), (E, 1), (E, 0), (E, 2)],
        lost_per_unit: 0,
        scopes: &[0, 1, 2],
    },
    Expect {
        file: "loop.bin",
        target: "proton:hip",
        cta_ids: &[0],
        unit_ids: &[0, 1, 2, 3],
        words: 80,
        pattern: &[
            (S, 0),
            (E, 0),
            (S, 0),
            (E, 0),
            (S, 0),
            (E, 0),
            (S, 0),
            (E, 0),
        ],
        // 20 iterations × 2 records written, 8 survive: 16 pairs lost.
        lost_per_unit: 32,
        scopes: &[0],
    },
];

fn decode_all(reader: &ProfileReader) -> Vec<CtaTrace> {
    reader
        .ctas()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", reader.path().display()))
}

/// Clocks strictly increase and every start precedes the end of the same
/// scope (pairing by scope id: Proton scopes may overlap without nesting).
fn assert_chronological(unit: &UnitTrace, what: &str) {
    for w in unit.records.windows(2) {
        assert!(
            w[0].clock < w[1].clock,
            "{what}: clocks not increasing: {:?}",
            unit.records
        );
    }
    let mut open: HashMap<RegionId, u64> = HashMap::new();
    for r in &unit.records {
        match r.edge {
            Edge::Start => assert!(
                open.insert(r.region, r.clock).is_none(),
                "{what}: {:?} started twice",
                r.region
            ),
            Edge::End => {
                let start = open
                    .remove(&r.region)
                    .unwrap_or_else(|| panic!("{what}: end of {:?} before its start", r.region));
                assert!(start < r.clock);
            }
        }
    }
    assert!(open.is_empty(), "{what}: unclosed {open:?}");
}

#[test]
fn fixtures_decode_to_what_proton_recorded() {
    for x in FIXTURES {
        let reader = ProfileReader::open_proton(proton_fixture(x.file)).unwrap();
        let info = reader.info();
        assert_eq!(info.target, x.target, "{}", x.file);
        assert_eq!(info.counter, Counter::Clock64);
        assert_eq!(info.clock_domain, ClockDomain::Cycles);
        assert_eq!(info.granularity, Granularity::Warp);
        assert_eq!(info.strategy, Strategy::Circular);
        let kernel = info
            .meta
            .kernel(&info.kernel)
            .expect("imported metadata names the kernel");
        let names: Vec<_> = kernel
            .regions
            .iter()
            .map(|r| (r.id.0, r.name.as_str()))
            .collect();
        let want: Vec<_> = x
            .scopes
            .iter()
            .map(|&id| (id, format!("scope_{id}")))
            .collect();
        assert_eq!(
            names,
            want.iter()
                .map(|(id, n)| (*id, n.as_str()))
                .collect::<Vec<_>>(),
            "{}",
            x.file
        );
        assert_eq!(kernel.sampled_units, x.unit_ids);

        let ctas = decode_all(&reader);
        assert_eq!(
            ctas.iter().map(|c| c.cta_id).collect::<Vec<_>>(),
            x.cta_ids,
            "{}",
            x.file
        );
        for cta in &ctas {
            assert_eq!(
                cta.units.iter().map(|u| u.unit_id).collect::<Vec<_>>(),
                x.unit_ids
            );
            assert!(
                cta.start_time_ns < cta.finalize_start_ns
                    && cta.finalize_start_ns <= cta.finalize_end_ns
            );
            assert_eq!(
                cta.measured_ticks_per_ns(),
                None,
                "Proton records no counter at init or finalize"
            );
            for unit in &cta.units {
                let what = format!("{} cta {} unit {}", x.file, cta.cta_id, unit.unit_id);
                assert_eq!(unit.records_written * 2, x.words, "{what}");
                assert_eq!(unit.records_lost, x.lost_per_unit, "{what}");
                let got: Vec<_> = unit.records.iter().map(|r| (r.edge, r.region.0)).collect();
                assert_eq!(got, x.pattern, "{what}");
                assert_chronological(unit, &what);
                assert!(unit.records[0].clock >= cta.start_clock);
            }
        }
    }
}

#[test]
fn the_43_bit_clock_keeps_its_high_bits() {
    // seq.bin CTA 0 unit 0, first record: tag 0x00000108, low word 0xba696cef.
    let reader = ProfileReader::open_proton(proton_fixture("seq.bin")).unwrap();
    let cta = reader.cta(0).unwrap().unwrap();
    assert_eq!(cta.units[0].records[0].clock, 0x108_ba69_6cef);
    assert_eq!(
        cta.start_clock,
        cta.units.iter().map(|u| u.records[0].clock).min().unwrap()
    );
}

#[test]
fn every_way_of_opening_agrees() {
    for x in FIXTURES {
        let path = proton_fixture(x.file);
        let opened = decode_all(&ProfileReader::open_proton(&path).unwrap());
        assert_eq!(
            decode_all(&ProfileReader::open_auto(&path).unwrap()),
            opened
        );
        let in_memory = ProfileReader::proton_from_bytes(std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(in_memory.info().kernel, "proton");
        assert_eq!(decode_all(&in_memory), opened);
    }
}

#[test]
fn a_ring_that_wrapped_mid_segment_is_rotated_and_the_clock_unwrapped_across_2_pow_43() {
    const WRAP: u64 = 1 << 43;
    // 11 records into 4 slots: the oldest survivor (record 7) sits in slot 3.
    let unit: Vec<ProtonRecord> = (0..11u64)
        .map(|i| ((i / 2) as u8, i % 2 == 1, WRAP - 8_000 + i * 900))
        .collect();
    let dump = proton_dump(4, 2, &[None, Some(vec![unit.clone(), unit[..3].to_vec()])]);
    let reader = ProfileReader::proton_from_bytes(dump).unwrap();
    assert_eq!(reader.block_count(), 2);
    let ctas = decode_all(&reader);
    assert_eq!(ctas.len(), 1, "the unwritten CTA is skipped");
    let (cta, u0, u1) = (&ctas[0], &ctas[0].units[0], &ctas[0].units[1]);
    assert_eq!((cta.block_index, cta.cta_id), (1, 1));
    assert_eq!((u0.records_written, u0.records_lost), (11, 7));
    // Clocks keep increasing past 2^43 (relative to the first survivor).
    let clocks: Vec<u64> = u0
        .records
        .iter()
        .map(|r| r.clock - u0.records[0].clock)
        .collect();
    assert_eq!(clocks, [0, 900, 1800, 2700]);
    assert_eq!(
        u0.records.iter().map(|r| r.region.0).collect::<Vec<_>>(),
        [3, 4, 4, 5]
    );
    assert_eq!(
        u1.records.iter().map(|r| r.clock).collect::<Vec<_>>(),
        [WRAP - 8_000, WRAP - 7_100, WRAP - 6_200]
    );
    assert_eq!(u0.records[0].clock, WRAP - 1_700);
    assert_eq!(u0.records[3].clock, WRAP + 1_000);
}

#[test]
fn warps_straddling_the_2_pow_43_wrap_share_one_time_axis() {
    const WRAP: u64 = 1 << 43;
    // (first clock of warp 0, first clock of warp 1): each warp one
    // 1000-tick scope. Unwrapped from its own first record, a warp that
    // began after the wrap sat 2^43 ticks (8796 s) from one that began
    // before it (adversarial pass, 2026-11-27).
    for (w0, w1) in [(WRAP - 100, 50), (50, WRAP - 100), (1_000, 3_000)] {
        let scope = |c: u64| vec![(0u8, false, c), (0u8, true, (c + 1_000) % WRAP)];
        let dump = proton_dump(4, 2, &[Some(vec![scope(w0), scope(w1)])]);
        let ctas = decode_all(&ProfileReader::proton_from_bytes(dump).unwrap());
        let firsts: Vec<u64> = ctas[0].units.iter().map(|u| u.records[0].clock).collect();
        let lasts: Vec<u64> = ctas[0].units.iter().map(|u| u.records[1].clock).collect();
        let span = lasts.iter().max().unwrap() - firsts.iter().min().unwrap();
        let expected = if w0 == 1_000 { 3_000 } else { 1_150 };
        assert_eq!(
            span, expected,
            "first clocks {w0} and {w1}: {firsts:?} .. {lasts:?}"
        );
    }
}

#[test]
fn selected_warps_take_their_counts_by_warp_id() {
    // 4 warps, Proton recorded warps 0 and 2: the count table still has 4
    // words (by warp id), the data starts after them, and the 2 segments
    // belong to warps 0 and 2. Read as one count per segment, warp 2 got
    // warp 1's count (0) and the data started 8 bytes early.
    let pairs = |n: u64, ticks: u64| -> Vec<ProtonRecord> {
        (0..n)
            .flat_map(|i| {
                [
                    (0, false, 1_000 + i * 1_000),
                    (0, true, 1_000 + i * 1_000 + ticks),
                ]
            })
            .collect()
    };
    let dump = proton_dump_selected(8, 4, &[0, 2], &[Some(vec![pairs(3, 100), pairs(2, 300)])]);
    let reader = ProfileReader::proton_from_bytes(dump).unwrap();
    let ctas = decode_all(&reader);
    let units = &ctas[0].units;
    assert_eq!(units.iter().map(|u| u.unit_id).collect::<Vec<_>>(), [0, 2]);
    assert_eq!(
        units.iter().map(|u| u.records_written).collect::<Vec<_>>(),
        [6, 4]
    );
    for (u, ticks) in units.iter().zip([100, 300]) {
        for pair in u.records.chunks(2) {
            assert_eq!(pair[1].clock - pair[0].clock, ticks, "{:?}", u.records);
        }
    }
    // A unit id that is not a warp of the CTA is refused by offset.
    let mut bad = proton_dump_selected(8, 4, &[0, 2], &[Some(vec![pairs(1, 1), pairs(1, 1)])]);
    bad[44..48].copy_from_slice(&7u32.to_le_bytes());
    match ProfileReader::proton_from_bytes(bad) {
        Err(RuntimeError::Invalid { offset, what, .. }) => {
            assert_eq!((offset, what), (44, "Proton unit id"))
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn corrupt_dumps_are_refused_with_offsets() {
    let good = std::fs::read(proton_fixture("seq.bin")).unwrap();
    let at = |off: usize, v: u32| {
        let mut b = good.clone();
        b[off..off + 4].copy_from_slice(&v.to_le_bytes());
        b
    };
    // (damaged dump, the error it must give, the byte offset it must name)
    type Case = (Vec<u8>, fn(&RuntimeError) -> bool, u64);
    let cases: Vec<Case> = vec![
        (
            at(0, 2),
            |e| matches!(e, RuntimeError::BadVersion { .. }),
            0,
        ),
        (at(20, 7), |e| matches!(e, RuntimeError::Invalid { .. }), 20),
        (
            at(24, 3),
            |e| matches!(e, RuntimeError::Implausible { .. }),
            24,
        ),
        (at(32, 8), |e| matches!(e, RuntimeError::Invalid { .. }), 32),
        (
            at(36, 1 << 30),
            |e| matches!(e, RuntimeError::Truncated { .. }),
            40,
        ),
        (
            good[..100].to_vec(),
            |e| matches!(e, RuntimeError::Truncated { .. }),
            56,
        ),
    ];
    for (i, (bytes, kind, offset)) in cases.into_iter().enumerate() {
        let e = ProfileReader::proton_from_bytes(bytes).unwrap_err();
        assert!(kind(&e), "case {i}: {e}");
        assert_eq!(e.offset(), Some(offset), "case {i}: {e}");
    }

    // Block-level problems are per CTA: the other CTA still decodes.
    let second = 56 + 384;
    let block_cases: Vec<(Vec<u8>, u64)> = vec![
        (at(second, 0x1234_5678), second as u64),       // preamble
        (at(second + 12, 100_000), second as u64 + 12), // data size beyond the block
        (at(second + 12, 255), second as u64 + 12),     // data size not whole records
        (at(second + 40 + 8, 13), second as u64 + 40 + 8), // odd word count, unit 2
    ];
    for (bytes, offset) in block_cases {
        let reader = ProfileReader::proton_from_bytes(bytes).unwrap();
        let results: Vec<_> = reader.ctas().collect();
        assert_eq!(results.len(), 2);
        assert!(results[0].is_ok());
        let e = results[1].as_ref().unwrap_err();
        assert_eq!(e.offset(), Some(offset), "{e}");
    }
}
