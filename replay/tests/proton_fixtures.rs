//! End to end on the only GPU-recorded data at hand: Triton Proton host
//! dumps (tests/fixtures/proton, see its README), through the decoder.

use std::path::PathBuf;

use kperf_dialects::abi::RegionId;
use kperf_replay::{replay_proton_file, Profile, ReplayOptions};

/// A fixture of the repository: its absence fails the test.
fn fixture(name: &str) -> PathBuf {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/proton"
    ))
    .join(name);
    assert!(p.exists(), "{} is missing from the checkout", p.display());
    p
}

#[test]
fn seq_dump_pairs_overlapping_scopes_in_every_warp() {
    let path = fixture("seq.bin");
    let p = Profile::load_proton(&path, &ReplayOptions::default()).unwrap();
    let r = p.report();
    assert_eq!(
        (r.totals.ctas, r.totals.units, r.totals.records),
        (2, 8, 48)
    );
    assert_eq!(r.totals.instances, 24);
    assert_eq!(p.ctas()[1].cta_id, 1);
    for c in p.ctas() {
        for u in &c.units {
            // start 0, start 1, start 2, end 1, end 0, end 2: scope 2 overlaps 0 without nesting.
            let ids: Vec<(u16, u32)> = u.instances.iter().map(|i| (i.region.0, i.row)).collect();
            assert_eq!(ids.len(), 3, "CTA {} unit {}", c.cta_id, u.unit_id);
            assert_eq!(u.rows, 2, "CTA {} unit {}: {ids:?}", c.cta_id, u.unit_id);
        }
    }
    assert!(r.unmatched.is_empty());
    for id in 0..3 {
        assert_eq!(p.region(RegionId(id)).unwrap().count, 8);
        assert_eq!(p.region(RegionId(id)).unwrap().name, format!("scope_{id}"));
    }
    // Proton records no clock rate: the report must say 1 tick = 1 ns was assumed.
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("1 tick was taken as 1 ns")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn loop_dump_reports_the_dropped_pairs() {
    let path = fixture("loop.bin");
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("loop.json");
    let r = replay_proton_file(&path, &ReplayOptions::default(), Some(&trace)).unwrap();
    assert_eq!((r.totals.ctas, r.totals.units), (1, 4));
    // 80 words = 40 records per warp, 8 slots kept: 32 records (16 pairs) lost per warp.
    assert_eq!(
        (
            r.lost.records_written,
            r.lost.records_lost,
            r.lost.units_with_loss
        ),
        (160, 128, 4)
    );
    assert!(
        r.lost.note.contains("about 64 START/END pairs gone"),
        "{}",
        r.lost.note
    );
    let scope0 = &r.regions[0];
    assert_eq!(
        (scope0.count, scope0.unmatched_starts, scope0.unmatched_ends),
        (16, 0, 0)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let x_events = |unit: u32| {
        v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X" && e["args"]["unit"] == unit)
            .count()
    };
    // Proton's own time shift (36 cycles on HIP) leaves every instance a
    // length; all 16 are in the trace (with an estimate of 84 ticks, the
    // smallest gap, two warps used to collapse to nothing).
    assert_eq!([0, 1, 2, 3].map(x_events), [4, 4, 4, 4]);
    assert_eq!(v["otherData"]["zero_length_events"], 0);
    assert_eq!(r.correction.cost_ticks, 36.0);
    assert!(
        r.corrections_applied
            .iter()
            .any(|c| c.contains("Proton's own time shift per record on HIP (36 cycles)")),
        "{:?}",
        r.corrections_applied
    );
    println!("{}", r.render_summary());
}
