//! Fuzzing the readers: arbitrary bytes, and valid `.kprof` files and Proton
//! dumps with random mutations and truncations. Opening and decoding must
//! return `Ok` or `Err`, never panic, and whatever decodes must satisfy the
//! model's invariants.
//!
//! The number of cases per property comes from proptest's `PROPTEST_CASES`
//! environment variable (default 256), e.g. a long run:
//! `PROPTEST_CASES=200000 cargo test -p kperf-runtime --release --test fuzz_decode`.

mod common;

use common::{cta_header, proton_dump, proton_fixture, records_with_gaps, run_info};
use kperf_dialects::abi::{Counter, Layout, RecordWord, Strategy};
use kperf_runtime::kprof::{encode_kprof, parse_header, KPROF_MAGIC};
use kperf_runtime::profile::CtaTrace;
use kperf_runtime::{encode_block, BlockHead, BlockRead, ProfileReader, RuntimeError};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::Strategy as _;

/// Decode every block both ways (iterator and reused trace) and check what
/// decoded, and that reading a block's head alone finds what decoding it
/// does: the same outcome or error, start time and record count.
fn exercise(opened: Result<ProfileReader, RuntimeError>) {
    let Ok(reader) = opened else { return };
    let mut reused = CtaTrace::default();
    let mut head = BlockHead::default();
    let mut written = 0;
    for i in 0..reader.block_count() {
        let decoded = reader.read_cta_into(i, &mut reused);
        let headed = reader.read_head(i, &mut head);
        match (&decoded, &headed) {
            (Ok(d), Ok(h)) => assert_eq!(d, h, "block {i}"),
            (Err(d), Err(h)) => assert_eq!(d.to_string(), h.to_string(), "block {i}"),
            _ => panic!("block {i}: decoding gave {decoded:?}, its head {headed:?}"),
        }
        if let Ok(BlockRead::Decoded) = decoded {
            check(&reused);
            let records: usize = reused.units.iter().map(|u| u.records.len()).sum();
            assert_eq!(
                (head.start_time_ns, head.records),
                (reused.start_time_ns, records as u64),
                "block {i}"
            );
            written += 1;
        }
    }
    let mut yielded = 0;
    for cta in reader.ctas() {
        if let Ok(cta) = cta {
            check(&cta);
        }
        yielded += 1;
    }
    assert!(yielded >= written && yielded as u64 <= reader.block_count());
}

fn check(cta: &CtaTrace) {
    for u in &cta.units {
        assert_eq!(u.records_lost + u.records.len() as u64, u.records_written);
        // Unwrapping only moves forward (unless a garbage start clock made it wrap u64).
        if cta.start_clock < u64::MAX / 2 {
            assert!(
                u.records.windows(2).all(|w| w[0].clock <= w[1].clock),
                "{u:?}"
            );
        }
    }
}

/// How to damage a file.
#[derive(Clone, Debug)]
enum Mutation {
    /// XOR one byte.
    Flip(Index, u8),
    /// Overwrite a 4-byte-aligned word with a value that stresses counts and sizes.
    Word(Index, u32),
}

fn mutation() -> impl proptest::strategy::Strategy<Value = Mutation> {
    let word = prop_oneof![
        Just(0u32),
        Just(1),
        Just(7),
        Just(0x8000_0000),
        Just(u32::MAX),
        Just(u32::MAX - 1),
        any::<u32>()
    ];
    prop_oneof![
        (any::<Index>(), 1u8..).prop_map(|(i, x)| Mutation::Flip(i, x)),
        (any::<Index>(), word).prop_map(|(i, w)| Mutation::Word(i, w)),
    ]
}

/// Apply `mutations` to `bytes[from..]` (so a test can aim past a header
/// that would otherwise absorb most of them), then maybe truncate.
fn damage(
    mut bytes: Vec<u8>,
    from: usize,
    mutations: &[Mutation],
    truncate: Option<Index>,
) -> Vec<u8> {
    let from = from.min(bytes.len());
    let len = bytes.len() - from;
    if len == 0 {
        return bytes;
    }
    for m in mutations {
        match m {
            Mutation::Flip(i, x) => {
                let i = from + i.index(len);
                bytes[i] ^= x;
            }
            Mutation::Word(i, w) => {
                let i = from + i.index(len / 4 + 1) * 4;
                if let Some(dst) = bytes.get_mut(i..i + 4) {
                    dst.copy_from_slice(&w.to_le_bytes());
                }
            }
        }
    }
    if let Some(t) = truncate {
        let keep = t.index(bytes.len() + 1);
        bytes.truncate(keep);
    }
    bytes
}

/// Where the block table of a valid `.kprof` file starts.
fn block_table_offset(bytes: &[u8]) -> usize {
    let h = parse_header(bytes, std::path::Path::new("valid")).expect("valid by construction");
    h.buffer_offset as usize - 16
}

/// A valid `.kprof` file: random counter, strategy and layout; some blocks unwritten.
fn valid_kprof() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    (
        prop_oneof![
            Just(Counter::Clock32),
            Just(Counter::Clock64),
            Just(Counter::Globaltimer)
        ],
        any::<bool>(),
        1u32..4,
        0u32..6,
        proptest::collection::vec(
            proptest::option::of(proptest::collection::vec(0u32..30, 1..4)),
            0..4,
        ),
        any::<bool>(),
    )
        .prop_map(|(counter, flush, units, slots, blocks, with_meta)| {
            let strategy = if flush {
                Strategy::Flush
            } else {
                Strategy::Circular
            };
            let layout = Layout { units, slots };
            let mut buffer = Vec::new();
            for (b, written) in blocks.iter().enumerate() {
                let Some(written) = written else {
                    buffer.resize(buffer.len() + layout.cta_stride(), 0);
                    continue;
                };
                let recs: Vec<Vec<RecordWord>> = (0..units as usize)
                    .map(|u| {
                        records_with_gaps(
                            1 << 31,
                            &vec![1 << 20; written[u % written.len()] as usize],
                        )
                    })
                    .collect();
                let entries: Vec<(u32, u32, &[RecordWord])> = recs
                    .iter()
                    .enumerate()
                    .map(|(u, r)| (u as u32, r.len() as u32, r.as_slice()))
                    .collect();
                let h = cta_header(b as u32, counter, strategy, layout, 1 << 31);
                buffer.extend(encode_block(&h, &entries, counter));
            }
            let info = run_info(counter, strategy, with_meta.then_some(layout));
            encode_kprof(&info, layout.cta_stride(), &buffer).expect("valid by construction")
        })
}

/// A valid Proton dump: one of the GPU-recorded fixtures or a synthetic one.
fn valid_proton() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    let fixture = prop_oneof![Just("seq.bin"), Just("loop.bin")]
        .prop_map(|f| std::fs::read(proton_fixture(f)).expect("the Proton fixtures are readable"));
    let synthetic = (
        1usize..6,
        1usize..4,
        proptest::collection::vec(proptest::option::of(0usize..20), 0..4),
    )
        .prop_map(|(slots, units, ctas)| {
            let ctas: Vec<_> = ctas
                .iter()
                .map(|n| {
                    n.map(|n| {
                        (0..units)
                            .map(|_| {
                                (0..n as u64)
                                    .map(|i| ((i / 2) as u8, i % 2 == 1, (1 << 43) - 50 + 7 * i))
                                    .collect()
                            })
                            .collect()
                    })
                })
                .collect();
            proton_dump(slots, units, &ctas)
        });
    prop_oneof![fixture, synthetic]
}

proptest! {
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        exercise(ProfileReader::from_bytes(bytes.clone()));
        exercise(ProfileReader::proton_from_bytes(bytes));
    }

    #[test]
    fn kprof_magic_then_arbitrary_bytes(json_len in 0u32..64, tail in proptest::collection::vec(any::<u8>(), 0..1024)) {
        let mut bytes = KPROF_MAGIC.to_vec();
        bytes.extend_from_slice(&json_len.to_le_bytes());
        bytes.extend(tail);
        exercise(ProfileReader::from_bytes(bytes));
    }

    #[test]
    fn valid_kprof_decodes(bytes in valid_kprof()) {
        let reader = ProfileReader::from_bytes(bytes).expect("a valid file opens");
        for cta in reader.ctas() {
            check(&cta.expect("a valid block decodes"));
        }
    }

    #[test]
    fn mutated_kprof(
        bytes in valid_kprof(),
        past_json in proptest::bool::weighted(0.8),
        mutations in proptest::collection::vec(mutation(), 1..6),
        truncate in proptest::option::weighted(0.2, any::<Index>()),
    ) {
        // Mostly aim at the block table and the blocks: the JSON is most of a small file.
        let from = if past_json { block_table_offset(&bytes) } else { 0 };
        exercise(ProfileReader::from_bytes(damage(bytes, from, &mutations, truncate)));
    }

    #[test]
    fn mutated_raw_buffer_with_its_metadata(
        bytes in valid_kprof(),
        mutations in proptest::collection::vec(mutation(), 1..6),
        truncate in proptest::option::weighted(0.2, any::<Index>()),
    ) {
        // `replay --raw`: the device buffer alone, in a file, read in place
        // with the run's description.
        let h = parse_header(&bytes, std::path::Path::new("valid")).expect("valid by construction");
        let buffer = damage(bytes[h.buffer_offset as usize..].to_vec(), 0, &mutations, truncate);
        let file = tempfile::NamedTempFile::new().expect("temporary file");
        std::fs::write(file.path(), &buffer).expect("write the buffer");
        exercise(ProfileReader::open_raw(file.path(), h.info, h.cta_stride));
    }

    #[test]
    fn kprof_header_then_arbitrary_blocks(
        counter in prop_oneof![Just(Counter::Clock32), Just(Counter::Clock64), Just(Counter::Globaltimer)],
        flush in any::<bool>(),
        units in 0u32..4,
        slots in 0u32..8,
        blocks in 0usize..4,
        seed in proptest::collection::vec(any::<u8>(), 0..256),
        headers in proptest::collection::vec(any::<bool>(), 4),
    ) {
        // Random block bytes, most with a header that parses, so decoding
        // reaches the unit table with arbitrary units, slots and counts.
        let strategy = if flush { Strategy::Flush } else { Strategy::Circular };
        let layout = Layout { units, slots };
        let stride = layout.cta_stride();
        let mut buffer: Vec<u8> = (0..blocks * stride).map(|i| seed.get(i % seed.len().max(1)).copied().unwrap_or(0)).collect();
        for (b, chunk) in buffer.chunks_mut(stride).enumerate() {
            if headers[b] {
                let h = cta_header(b as u32, counter, strategy, layout, 7);
                let mut head = vec![0u8; kperf_dialects::abi::CTA_HEADER_SIZE];
                h.write(&mut head);
                chunk[..head.len()].copy_from_slice(&head);
            }
        }
        let info = run_info(counter, strategy, None);
        exercise(ProfileReader::from_bytes(encode_kprof(&info, stride, &buffer).expect("valid container")));
    }

    #[test]
    fn valid_proton_decodes(bytes in valid_proton()) {
        let reader = ProfileReader::proton_from_bytes(bytes).expect("a valid dump opens");
        for cta in reader.ctas() {
            check(&cta.expect("a valid block decodes"));
        }
    }

    #[test]
    fn mutated_proton(bytes in valid_proton(), mutations in proptest::collection::vec(mutation(), 1..6), truncate in proptest::option::weighted(0.2, any::<Index>())) {
        exercise(ProfileReader::proton_from_bytes(damage(bytes, 0, &mutations, truncate)));
    }
}
