//! Fuzzing replay over untrusted profiles (issue 17): region tables with
//! duplicate ids, self, dangling and cyclic parents, oversized names and
//! odd kinds; nominal clock rates no counter has; records of any region in
//! any order. Replay must finish without panicking, with finite figures,
//! names cut to `MAX_NAME_BYTES`, and a trace in proportion to the records.
//!
//! Cases: `PROPTEST_CASES` (default 256); a long run:
//! `PROPTEST_CASES=100000 cargo test -p kperf-replay --release --test fuzz_replay`.

mod common;

use common::{cta, cycle_info, unit};
use kperf_dialects::abi::{Edge, RegionId};
use kperf_dialects::meta::{RegionKind, RegionMeta};
use kperf_replay::regions::MAX_NAME_BYTES;
use kperf_replay::{ChromeTraceWriter, ProfileScan, ReplayOptions, Replayer, TraceGrouping};
use kperf_runtime::profile::Record;
use proptest::prelude::*;

const KINDS: [RegionKind; 8] = [
    RegionKind::Explicit,
    RegionKind::Attribute,
    RegionKind::Kernel,
    RegionKind::Loop,
    RegionKind::Iteration,
    RegionKind::Op,
    RegionKind::AsyncIssue,
    RegionKind::AsyncWait,
];

/// (id, name length, kind, parent, pairs_with)
type RegionSeed = (u16, usize, usize, Option<u16>, Option<u16>);

fn region_seed() -> impl Strategy<Value = RegionSeed> {
    (
        0u16..6,
        prop_oneof![0usize..40, Just(MAX_NAME_BYTES + 1), 0usize..5000],
        0usize..KINDS.len(),
        proptest::option::of(0u16..8),
        proptest::option::of(0u16..8),
    )
}

fn rate() -> impl Strategy<Value = Option<f64>> {
    proptest::option::of(prop_oneof![
        Just(0.0),
        Just(-3.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(1e308),
        Just(1e-300),
        0.01f64..10.0,
    ])
}

/// Per unit: (region, is start, clock gap) records.
fn units() -> impl Strategy<Value = Vec<Vec<(u16, bool, u64)>>> {
    proptest::collection::vec(
        proptest::collection::vec((0u16..8, any::<bool>(), 0u64..5000), 0..40),
        1..3,
    )
}

proptest! {
    #[test]
    fn replay_of_untrusted_metadata_and_records_stays_bounded(
        seeds in proptest::collection::vec(region_seed(), 0..7),
        nominal in rate(),
        ctas in proptest::collection::vec(units(), 1..4),
        correct in any::<bool>(),
    ) {
        let mut info = cycle_info(&[]);
        info.ticks_per_ns = nominal;
        info.meta.kernels[0].regions = seeds
            .iter()
            .enumerate()
            .map(|(i, &(id, len, kind, parent, pairs_with))| RegionMeta {
                id: RegionId(id),
                name: "é".repeat(len / 2) + &"r".repeat(len % 2 + i),
                kind: KINDS[kind],
                parent: parent.map(RegionId),
                location: "l".repeat(len),
                pairs_with: pairs_with.map(RegionId),
            })
            .collect();
        let mut records = 0usize;
        let traces: Vec<_> = ctas
            .iter()
            .enumerate()
            .map(|(c, units)| {
                let units = units
                    .iter()
                    .enumerate()
                    .map(|(u, recs)| {
                        let mut clock = 100;
                        let recs: Vec<Record> = recs
                            .iter()
                            .map(|&(region, start, gap)| {
                                clock += gap;
                                Record {
                                    region: RegionId(region),
                                    edge: if start { Edge::Start } else { Edge::End },
                                    clock,
                                }
                            })
                            .collect();
                        records += recs.len();
                        unit(u as u32, recs)
                    })
                    .collect();
                cta(c as u32, c as u32, 1000 * c as u64, 200_000, 2.0, units)
            })
            .collect();
        let opts = if correct { ReplayOptions::default() } else { ReplayOptions::no_correction() };
        let mut scan = ProfileScan::for_run(&info);
        for t in &traces {
            scan.observe(t);
        }
        let mut replayer = Replayer::new(&info, &opts, &scan).expect("valid options");
        let mut trace = ChromeTraceWriter::new(Vec::new(), &info, TraceGrouping::default())
            .expect("in memory");
        for t in &traces {
            let view = replayer.push_cta(t);
            trace.write_cta(view.cta, view.regions).expect("in memory");
        }
        let report = replayer.finish();
        let bytes = trace.finish(Some(&report)).expect("in memory");
        for r in &report.regions {
            prop_assert!(r.name.len() <= MAX_NAME_BYTES + '…'.len_utf8(), "name of {} bytes", r.name.len());
            prop_assert!(r.location.len() <= MAX_NAME_BYTES + '…'.len_utf8());
            prop_assert!(r.total_ns.is_finite() && r.mean_ns.is_finite() && r.max_ns.is_finite(),
                "{}: total {} mean {} max {}", r.name, r.total_ns, r.mean_ns, r.max_ns);
        }
        // Every event carries at most one capped name and location; the
        // caveats name each region at most a few times.
        let bound = 64 * 1024 + records * 2048 + seeds.len() * 8 * MAX_NAME_BYTES;
        prop_assert!(bytes.len() <= bound, "{} bytes of trace for {records} records", bytes.len());
        prop_assert!(serde_json::from_slice::<serde_json::Value>(&bytes).is_ok(), "the trace is JSON");
    }
}
