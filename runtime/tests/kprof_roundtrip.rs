//! encode_block → .kprof → ProfileReader gives back the records the units
//! wrote: wrapped rings rotated, flushed segments truncated, clocks
//! unwrapped across 2^32 (clock32) and 2^47 (clock64, globaltimer).

mod common;

use common::{cta_header, records_with_gaps, run_info, survivors};
use kperf_dialects::abi::{cta_header as field, Counter, Layout, RecordWord, Strategy};
use kperf_runtime::profile::{CtaTrace, RunInfo};
use kperf_runtime::{
    decode_block, encode_block, write_kprof, BlockRead, DecodeParams, ProfileReader, RuntimeError,
};
use proptest::prelude::*;
use proptest::strategy::Strategy as _;

/// A unit as the test describes it: its id and every record it wrote.
type Unit = (u32, Vec<RecordWord>);

fn block(
    cta_id: u32,
    counter: Counter,
    strategy: Strategy,
    slots: u32,
    start_clock: u64,
    units: &[Unit],
) -> Vec<u8> {
    let layout = Layout {
        units: units.len() as u32,
        slots,
    };
    let h = cta_header(cta_id, counter, strategy, layout, start_clock);
    let entries: Vec<(u32, u32, &[RecordWord])> = units
        .iter()
        .map(|(id, r)| (*id, r.len() as u32, r.as_slice()))
        .collect();
    encode_block(&h, &entries, counter)
}

/// The decoded trace must hold exactly the survivors, with full clocks.
fn assert_decoded(t: &CtaTrace, slots: u32, strategy: Strategy, units: &[Unit]) {
    assert_eq!(t.units.len(), units.len());
    for (u, (id, all)) in t.units.iter().zip(units) {
        let want = survivors(all, slots as usize, strategy);
        assert_eq!(u.unit_id, *id);
        assert_eq!(u.records_written, all.len() as u64);
        assert_eq!(u.records_lost, (all.len() - want.len()) as u64);
        let got: Vec<_> = u
            .records
            .iter()
            .map(|r| (r.region, r.edge, r.clock))
            .collect();
        let want: Vec<_> = want.iter().map(|r| (r.region, r.edge, r.clock)).collect();
        assert_eq!(got, want, "unit {id}");
    }
}

fn write_and_open(
    info: &RunInfo,
    stride: usize,
    buffer: &[u8],
) -> (tempfile::TempDir, ProfileReader) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.kprof");
    write_kprof(&path, info, stride, buffer).unwrap();
    let reader = ProfileReader::open(&path).unwrap();
    (dir, reader)
}

#[test]
fn every_counter_and_strategy_round_trips_through_a_file() {
    let slots = 5;
    for counter in Counter::ALL {
        for strategy in [Strategy::Circular, Strategy::Flush] {
            let start = match counter {
                Counter::Clock32 => 4_000_000_000,
                _ => 3 << 45,
            };
            // Units that wrote nothing, less than, exactly and more than the slots.
            let units: Vec<Unit> = [0usize, 3, 5, 12, 13]
                .iter()
                .enumerate()
                .map(|(i, &n)| (i as u32, records_with_gaps(start, &vec![97; n])))
                .collect();
            let layout = Layout {
                units: units.len() as u32,
                slots,
            };
            let stride = layout.cta_stride();
            // Blocks 0 and 2 written, block 1 not (CTA sampling).
            let mut buffer = block(0, counter, strategy, slots, start, &units);
            buffer.resize(2 * stride, 0);
            buffer.extend(block(8, counter, strategy, slots, start, &units));

            let info = run_info(counter, strategy, Some(layout));
            let (_dir, reader) = write_and_open(&info, stride, &buffer);
            assert_eq!(reader.info(), &info);
            assert_eq!(
                (reader.block_count(), reader.cta_stride()),
                (3, stride as u64)
            );
            let ctas: Vec<CtaTrace> = reader.ctas().collect::<Result<_, _>>().unwrap();
            assert_eq!(
                ctas.iter()
                    .map(|c| (c.block_index, c.cta_id))
                    .collect::<Vec<_>>(),
                [(0, 0), (2, 8)]
            );
            for cta in &ctas {
                assert_eq!(cta.start_clock, start);
                assert_eq!(cta.finalize_start_ns, 50_000);
                assert_decoded(cta, slots, strategy, &units);
            }
            assert_eq!(reader.cta(1).unwrap(), None);
        }
    }
}

#[test]
fn clock32_is_unwrapped_across_several_2_pow_32_wraps() {
    // 40 records ~0.7·2^32 apart from just below 2^32: about 28 wraps.
    let gaps: Vec<u64> = (0..40).map(|i| 3_000_000_000 + i * 7).collect();
    let start = (1u64 << 32) - 10;
    let all = records_with_gaps(start, &gaps);
    let params = DecodeParams {
        counter: Counter::Clock32,
        strategy: Strategy::Circular,
        layout: None,
        units_indexed: false,
    };
    let t = decode_block(
        &block(
            0,
            Counter::Clock32,
            Strategy::Circular,
            64,
            start,
            &[(0, all.clone())],
        ),
        &params,
    )
    .unwrap();
    assert_decoded(&t, 64, Strategy::Circular, &[(0, all.clone())]);
    assert!(t.units[0].records.last().unwrap().clock > 28 << 32);

    // A wrapped ring: exact as long as the lost records span < 2^32 ticks
    // (the first survivor is placed < 2^32 after start_clock).
    let gaps: Vec<u64> = (0..40)
        .map(|i| if i < 24 { 1_000 } else { 3_000_000_000 + i })
        .collect();
    let all = records_with_gaps(start, &gaps);
    let t = decode_block(
        &block(
            0,
            Counter::Clock32,
            Strategy::Circular,
            16,
            start,
            &[(0, all.clone())],
        ),
        &params,
    )
    .unwrap();
    assert_decoded(&t, 16, Strategy::Circular, &[(0, all)]);
}

#[test]
fn clock64_and_globaltimer_are_unwrapped_across_2_pow_47() {
    for counter in [Counter::Clock64, Counter::Globaltimer] {
        let start = (7u64 << 47) - 1_000_000;
        // The 20-slot ring loses 10 records; they span < 2^47 ticks, as
        // unwrapping from start_clock needs. The survivors span 5 × 2^47.
        let gaps: Vec<u64> = (0..30)
            .map(|i| if i < 10 { 1_000 + i } else { (1 << 45) + i })
            .collect();
        let all = records_with_gaps(start, &gaps);
        let params = DecodeParams {
            counter,
            strategy: Strategy::Circular,
            layout: None,
            units_indexed: false,
        };
        for slots in [32, 20] {
            let t = decode_block(
                &block(
                    0,
                    counter,
                    Strategy::Circular,
                    slots,
                    start,
                    &[(1, all.clone())],
                ),
                &params,
            )
            .unwrap();
            assert_decoded(&t, slots, Strategy::Circular, &[(1, all.clone())]);
            assert!(t.units[0].records.last().unwrap().clock > 11 << 47);
        }
    }
}

#[test]
fn a_bad_block_is_one_error_with_its_absolute_offset_and_the_rest_decode() {
    let counter = Counter::Clock64;
    let units: Vec<Unit> = vec![
        (0, records_with_gaps(10, &[1, 2, 3])),
        (1, records_with_gaps(10, &[4])),
    ];
    let layout = Layout { units: 2, slots: 4 };
    let stride = layout.cta_stride();
    let mut buffer: Vec<u8> = (0..3)
        .flat_map(|c| block(c, counter, Strategy::Circular, 4, 10, &units))
        .collect();
    // Block 1: bad ABI version.
    buffer[stride + field::VERSION] = 99;
    let info = run_info(counter, Strategy::Circular, Some(layout));
    let (_dir, reader) = write_and_open(&info, stride, &buffer);
    let results: Vec<_> = reader.ctas().collect();
    assert_eq!(results.len(), 3);
    assert!(results[0].is_ok() && results[2].is_ok());
    let e = results[1].as_ref().unwrap_err();
    assert!(
        matches!(e, RuntimeError::BadCtaHeader { block_index: 1, .. }),
        "{e}"
    );
    let buffer_offset = std::fs::metadata(reader.path()).unwrap().len() - buffer.len() as u64;
    assert_eq!(
        e.offset(),
        Some(buffer_offset + stride as u64 + field::VERSION as u64)
    );
    assert_eq!(e.path(), reader.path());

    // A run whose metadata promises another layout: every block says so.
    let info = run_info(
        counter,
        Strategy::Circular,
        Some(Layout { units: 2, slots: 5 }),
    );
    let (_dir, reader) = write_and_open(&info, stride, &buffer);
    let e = reader.ctas().next().unwrap().unwrap_err();
    assert!(
        matches!(
            e,
            RuntimeError::MetaMismatch {
                what: "layout (units, slots)",
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        reader.cta(3),
        Err(RuntimeError::BadArgument { .. })
    ));
}

#[test]
fn decoding_into_a_reused_trace_equals_fresh_decoding() {
    let counter = Counter::Clock32;
    let big: Vec<Unit> = (0..4).map(|u| (u, records_with_gaps(5, &[3; 9]))).collect();
    let small: Vec<Unit> = (0..4).map(|u| (u, records_with_gaps(5, &[1]))).collect();
    let mut buffer = block(0, counter, Strategy::Circular, 8, 5, &big);
    buffer.extend(block(1, counter, Strategy::Circular, 8, 5, &small));
    let info = run_info(counter, Strategy::Circular, None);
    let stride = Layout { units: 4, slots: 8 }.cta_stride();
    let reader = ProfileReader::from_bytes(
        kperf_runtime::kprof::encode_kprof(&info, stride, &buffer).unwrap(),
    )
    .unwrap();
    let mut reused = CtaTrace::default();
    for i in 0..2 {
        assert_eq!(
            reader.read_cta_into(i, &mut reused).unwrap(),
            BlockRead::Decoded
        );
        assert_eq!(Some(&reused), reader.cta(i).unwrap().as_ref());
    }
}

/// A block whose finalize never finished (shape still 0) is skipped and
/// counted, not decoded and not fatal: the blocks around it still decode.
#[test]
fn unfinished_blocks_are_skipped_and_counted() {
    let counter = Counter::Clock32;
    let units: Vec<Unit> = (0..4).map(|u| (u, records_with_gaps(5, &[2, 2]))).collect();
    let mut buffer = Vec::new();
    for cta in 0..3 {
        buffer.extend(block(cta, counter, Strategy::Circular, 8, 5, &units));
    }
    let stride = Layout { units: 4, slots: 8 }.cta_stride();
    // Block 1: identity and stamps written, shape and end stamp not.
    buffer[stride + field::UNITS..stride + field::UNITS + 16].fill(0);
    let info = run_info(counter, Strategy::Circular, None);
    let reader = ProfileReader::from_bytes(
        kperf_runtime::kprof::encode_kprof(&info, stride, &buffer).unwrap(),
    )
    .unwrap();
    let mut out = CtaTrace::default();
    let states: Vec<BlockRead> = (0..3)
        .map(|i| reader.read_cta_into(i, &mut out).unwrap())
        .collect();
    assert_eq!(
        states,
        [
            BlockRead::Decoded,
            BlockRead::Unfinished,
            BlockRead::Decoded
        ]
    );
    assert_eq!(reader.cta(1).unwrap(), None);
    assert_eq!(
        reader.ctas().map(|c| c.unwrap().cta_id).collect::<Vec<_>>(),
        [0, 2]
    );
}

/// A profile from kernels instrumented for another buffer ABI is refused
/// once, when the file is opened, not by a bad-version error per block.
#[test]
fn another_abi_version_is_refused_at_open() {
    let mut info = run_info(Counter::Clock32, Strategy::Circular, None);
    info.meta.abi_version = 1;
    let stride = Layout { units: 1, slots: 2 }.cta_stride();
    let opened = ProfileReader::from_bytes(
        kperf_runtime::kprof::encode_kprof(&info, stride, &vec![0u8; stride]).unwrap(),
    );
    let Err(e) = opened else {
        panic!("a profile of ABI 1 was opened")
    };
    assert!(
        matches!(
            e,
            RuntimeError::Invalid {
                what: "RunInfo JSON (meta.abi_version)",
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("profile-buffer ABI 1, this build reads ABI 2"),
        "{e}"
    );
}

#[test]
fn open_auto_recognises_kprof() {
    let info = run_info(Counter::Clock64, Strategy::Flush, None);
    let stride = Layout { units: 1, slots: 1 }.cta_stride();
    let buffer = block(
        4,
        Counter::Clock64,
        Strategy::Flush,
        1,
        0,
        &[(0, records_with_gaps(0, &[5, 5]))],
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.kprof");
    write_kprof(&path, &info, stride, &buffer).unwrap();
    let reader = ProfileReader::open_auto(&path).unwrap();
    assert_eq!(reader.info(), &info);
    assert_eq!(
        reader.ctas().map(|c| c.unwrap().cta_id).collect::<Vec<_>>(),
        [4]
    );
}

/// Clocks for a unit: start plus gaps small enough that every record,
/// including the first survivor of a wrapped ring, lies < 2^bits after the
/// previous decoded clock (the documented precondition of unwrapping).
fn unit_strategy(counter: Counter) -> impl proptest::strategy::Strategy<Value = Vec<u64>> {
    let max_gap: u64 = match counter {
        Counter::Clock32 => 1 << 26, // ≤ 40 gaps: the whole unit spans < 2^32
        _ => 1 << 40,
    };
    proptest::collection::vec(0..max_gap, 0..40)
}

fn counter_strategy() -> impl proptest::strategy::Strategy<Value = Counter> {
    prop_oneof![
        Just(Counter::Clock32),
        Just(Counter::Clock64),
        Just(Counter::Globaltimer)
    ]
}

proptest! {
    #[test]
    fn random_blocks_round_trip(
        (counter, units) in counter_strategy().prop_flat_map(|c| (Just(c), proptest::collection::vec(unit_strategy(c), 1..5))),
        flush in any::<bool>(),
        slots in 1u32..12,
        start in 0u64..(u64::MAX >> 2),
    ) {
        let strategy = if flush { Strategy::Flush } else { Strategy::Circular };
        let units: Vec<Unit> = units.iter().enumerate().map(|(i, g)| (i as u32, records_with_gaps(start, g))).collect();
        let params = DecodeParams { counter, strategy, layout: Some(Layout { units: units.len() as u32, slots }), units_indexed: false };
        let t = decode_block(&block(2, counter, strategy, slots, start, &units), &params).unwrap();
        assert_decoded(&t, slots, strategy, &units);
    }
}
