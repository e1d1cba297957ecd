//! Hand-made scenarios with hand-computed expected results.

mod common;

use common::*;
use kperf_dialects::abi::{RegionId, Strategy};
use kperf_dialects::meta::RegionKind;
use kperf_replay::analyze::{percentile, CriticalStep};
use kperf_replay::correct::CostSource;
use kperf_replay::time::RateSource;
use kperf_replay::{Profile, RegionInstance, ReplayOptions, FEEDBACK_VERSION};

/// (region, instance, start_clock, end_clock, start_ns, end_ns, row, depth) of every instance.
type Row = (u16, u32, u64, u64, f64, f64, u32, u32);

fn rows<'a>(it: impl Iterator<Item = &'a RegionInstance>) -> Vec<Row> {
    it.map(|i| {
        (
            i.region.0,
            i.instance,
            i.start_clock,
            i.end_clock,
            i.start_ns,
            i.end_ns,
            i.row,
            i.depth,
        )
    })
    .collect()
}

fn raw() -> ReplayOptions {
    ReplayOptions::no_correction()
}

#[test]
fn overlapping_non_nested_scopes_pair_by_id() {
    // Proton's seq pattern: start 0, start 1, start 2, end 1, end 0, end 2.
    let info = ns_info(&[reg(0, "a"), reg(1, "b"), reg(2, "c")]);
    let u = unit(
        0,
        vec![s(0, 0), s(1, 10), s(2, 20), e(1, 30), e(0, 40), e(2, 50)],
    );
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 1000, vec![u])], &raw()).unwrap();
    let c = &p.ctas()[0];
    assert_eq!(
        rows(c.instances()),
        vec![
            (0, 0, 0, 40, 0.0, 40.0, 0, 0),
            (1, 0, 10, 30, 10.0, 30.0, 0, 1),
            (2, 0, 20, 50, 20.0, 50.0, 1, 0),
        ]
    );
    assert_eq!(c.units[0].rows, 2);
    assert!(p.report().unmatched.is_empty());
    assert_eq!(p.report().totals.instances, 3);
}

#[test]
fn nested_regions_share_one_row() {
    let info = ns_info(&[reg(0, "outer"), reg(1, "x"), reg(2, "y")]);
    let u = unit(
        0,
        vec![s(0, 0), s(1, 10), e(1, 20), s(2, 30), e(2, 40), e(0, 50)],
    );
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![u])], &raw()).unwrap();
    assert_eq!(
        rows(p.ctas()[0].instances()),
        vec![
            (0, 0, 0, 50, 0.0, 50.0, 0, 0),
            (1, 0, 10, 20, 10.0, 20.0, 0, 1),
            (2, 0, 30, 40, 30.0, 40.0, 0, 1),
        ]
    );
    assert_eq!(p.ctas()[0].units[0].rows, 1);
}

#[test]
fn repeated_regions_are_numbered_instances() {
    let info = ns_info(&[
        (0, "loop", RegionKind::Loop, None, None),
        (1, "body", RegionKind::Iteration, Some(0), None),
    ]);
    let mut recs = vec![s(0, 0)];
    for k in 0..4u64 {
        recs.push(s(1, 10 + 20 * k));
        recs.push(e(1, 20 + 20 * k + k)); // durations 10, 11, 12, 13
    }
    recs.push(e(0, 100));
    let p =
        Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![unit(0, recs)])], &raw()).unwrap();
    let body: Vec<(u32, f64)> = p
        .instances(RegionId(1))
        .map(|i| (i.instance, i.duration_ns()))
        .collect();
    assert_eq!(body, vec![(0, 10.0), (1, 11.0), (2, 12.0), (3, 13.0)]);
    let st = p.region_by_name("body").unwrap();
    assert_eq!((st.count, st.total_ns, st.mean_ns), (4, 46.0, 11.5));
    assert_eq!((st.p50_ns, st.p95_ns, st.max_ns), (11.0, 13.0, 13.0));
    assert_eq!(st.parent, Some(RegionId(0)));
    // Unit time = CTA duration (0..100) × 1 unit.
    assert_eq!(p.report().kernel_time.unit_time_ns, 100.0);
    assert_eq!(st.share, 0.46);
    assert_eq!(p.region_by_name("loop").unwrap().share, 1.0);
    // Sorted by share.
    let names: Vec<&str> = p.report().regions.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["loop", "body"]);
}

#[test]
fn wrapped_ring_missing_start_is_counted_not_dropped() {
    // The ring kept the newest 7 of 11 records: the first survivor is the END
    // of a pair whose START was overwritten, and the last START never ended.
    let info = ns_info(&[reg(0, "step"), reg(1, "tail")]);
    let mut u = unit(
        2,
        vec![
            e(0, 105),
            s(0, 110),
            e(0, 120),
            s(0, 130),
            e(0, 140),
            s(1, 150),
            s(0, 160),
        ],
    );
    u.records_written = 11;
    u.records_lost = 4;
    let c = ns_cta(5, 3, 0, vec![u]);
    let p = Profile::from_parts_with(
        info,
        vec![c],
        &ReplayOptions {
            record_cost_ticks: Some(1.0),
            ..Default::default()
        },
    )
    .unwrap();
    let r = p.report();
    let step = p.region_by_name("step").unwrap();
    assert_eq!(
        (step.count, step.unmatched_starts, step.unmatched_ends),
        (2, 1, 1)
    );
    let tail = p.region_by_name("tail").unwrap();
    assert_eq!(
        (tail.count, tail.unmatched_starts, tail.unmatched_ends),
        (0, 1, 0)
    );
    let um: Vec<(u32, u16, u64, u64, u64)> = r
        .unmatched
        .iter()
        .map(|m| (m.cta, m.region.0, m.units, m.starts, m.ends))
        .collect();
    assert_eq!(um, vec![(5, 0, 1, 1, 1), (5, 1, 1, 1, 0)]);
    // Positions count the 4 overwritten records: START at 110 is record 5.
    let first = p.instances(RegionId(0)).next().unwrap();
    assert_eq!(
        (first.instance, first.start_index, first.end_index),
        (0, 5, 6)
    );
    // Shifted by 5 and 6 ticks of cost: 110-5 .. 120-6.
    assert_eq!(
        (first.start_ns, first.end_ns, first.corrected_ticks),
        (105.0, 114.0, 9.0)
    );
    assert_eq!(
        (
            r.lost.records_lost,
            r.lost.units_with_loss,
            r.lost.ctas_with_loss
        ),
        (4, 1, 1)
    );
    assert!(
        r.caveats.iter().any(|c| c.contains("4 of 11 records lost")),
        "{:?}",
        r.caveats
    );
    assert!(r
        .caveats
        .iter()
        .any(|c| c.contains("2 START and 1 END records found no partner")));
    let summary = r.render_summary();
    assert!(
        summary.contains("step: 1 unmatched STARTs, 1 unmatched ENDs, in CTAs 5"),
        "{summary}"
    );
}

fn correction_unit() -> Vec<kperf_runtime::profile::Record> {
    // pos: 0 S0, 1 S1, 2 E1, 3 S2, 4 E2, 5 S3, 6 E3, 7 E0
    vec![
        s(0, 0),
        s(1, 10),
        e(1, 30),
        s(2, 40),
        e(2, 45),
        s(3, 47),
        e(3, 48),
        e(0, 100),
    ]
}

fn correction_info(cost: Option<f64>) -> kperf_runtime::profile::RunInfo {
    let mut info = cycle_info(&[reg(0, "all"), reg(1, "r1"), reg(2, "r2"), reg(3, "r3")]);
    info.record_cost_ticks = cost;
    info
}

/// A region whose records are most of it is below resolution, though it
/// is longer than two records: 34 records inside a 15.6 µs loop body made
/// it read 0 ns with no caveat.
#[test]
fn a_region_made_mostly_of_its_records_is_below_resolution() {
    // outer holds 10 empty inner regions; each record costs 10 ticks.
    let mut records = vec![s(0, 0)];
    for k in 0..10u64 {
        records.push(s(1, 10 + 20 * k));
        records.push(e(1, 20 + 20 * k));
    }
    records.push(e(0, 215));
    let c = cta(0, 0, 0, 1000, 1.0, vec![unit(0, records)]);
    let mut info = cycle_info(&[reg(0, "outer"), reg(1, "inner")]);
    info.record_cost_ticks = Some(10.0);
    let p = Profile::from_parts(info, vec![c]).unwrap();
    let r = p.report();
    let outer = r.regions.iter().find(|x| x.name == "outer").unwrap();
    // 215 raw, 21 records charged 10 each: 5 left.
    assert_eq!(outer.mean_corrected_ticks, 5.0);
    assert!(
        outer.mean_raw_ticks >= 2.0 * 10.0 && outer.below_resolution,
        "{outer:?}"
    );
}

#[test]
fn cumulative_correction_arithmetic() {
    // Calibrated cost 3 ticks, 1 tick/ns (measured: 1000 ticks over 1000 ns).
    let c = cta(0, 0, 0, 1000, 1.0, vec![unit(0, correction_unit())]);
    let p = Profile::from_parts(correction_info(Some(3.0)), vec![c.clone()]).unwrap();
    let got: Vec<(u16, u64, f64, f64, f64)> = p.ctas()[0]
        .instances()
        .map(|i| {
            (
                i.region.0,
                i.raw_ticks,
                i.corrected_ticks,
                i.start_ns,
                i.end_ns,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            // all: 100 - (6 inside + 1) * 3 = 79
            (0, 100, 79.0, 0.0, 79.0),
            // r1: start 10 - 1*3 = 7, 20 - 3 = 17
            (1, 20, 17.0, 7.0, 24.0),
            // r2: start 40 - 3*3 = 31, 5 - 3 = 2
            (2, 5, 2.0, 31.0, 33.0),
            // r3: start 47 - 5*3 = 32 would precede E2's corrected time
            // 45 - 4*3 = 33, so it is held at 33 (program order); its END
            // 48 - 6*3 = 30 is held there too: duration 0
            (3, 1, 0.0, 33.0, 33.0),
        ]
    );
    let r = p.report();
    assert_eq!(r.correction.source, CostSource::Calibrated);
    assert!(r.corrections_applied[0].contains("record cost 3 ticks subtracted cumulatively"));
    // CTA ends at the last record, 100 - 7*3 = 79.
    assert_eq!(r.ctas[0].duration_ns, 79.0);

    // --no-correction keeps raw durations.
    let p = Profile::from_parts_with(correction_info(Some(3.0)), vec![c.clone()], &raw()).unwrap();
    assert!(p.ctas()[0]
        .instances()
        .all(|i| i.corrected_ticks == i.raw_ticks as f64));
    assert_eq!(p.report().correction.source, CostSource::Disabled);
    assert!(p.report().corrections_applied[0].contains("disabled"));

    // No calibration: the minimum gap (47 -> 48: 1 tick) bounds the cost,
    // but an estimate is never subtracted: durations stay raw, and the
    // report says so with the bound.
    let p = Profile::from_parts(correction_info(None), vec![c]).unwrap();
    let r = p.report();
    assert_eq!(
        (
            r.correction.source,
            r.correction.cost_ticks,
            r.correction.enabled
        ),
        (CostSource::EstimatedMinGap, 0.0, false)
    );
    assert_eq!(r.correction.min_gap_ticks, Some(1));
    for id in [0, 1] {
        let i = p.instances(RegionId(id)).next().unwrap();
        assert_eq!(i.corrected_ticks, i.raw_ticks as f64);
    }
    assert!(r.caveats.iter().any(|c| c.contains("durations are raw")));
    assert!(r.corrections_applied[0].contains("not applied"));
}

#[test]
fn async_wait_is_clk2_minus_clk1() {
    let regions = [
        (1, "copy", RegionKind::AsyncIssue, None, None),
        (2, "copy_wait", RegionKind::AsyncWait, None, Some(1)),
    ];
    let mut info = cycle_info(&regions);
    info.record_cost_ticks = Some(5.0);
    let recs = vec![
        s(1, 100), // pos 0: CLK1
        e(1, 130), // pos 1: END right before the wait
        s(2, 400), // pos 2: CLK2
        s(1, 500), // pos 3
        e(1, 510), // pos 4
        s(2, 600), // pos 5
        s(2, 700), // pos 6: a wait with no issue START before it
        e(2, 710), // pos 7: wait ENDs are ignored, and counted
    ];
    // 2 ticks per ns, measured.
    let c = cta(0, 0, 0, 1000, 2.0, vec![unit(0, recs)]);
    let p = Profile::from_parts(info, vec![c]).unwrap();
    let w = &p.ctas()[0].async_waits;
    let got: Vec<_> = w
        .iter()
        .map(|w| {
            (
                w.instance,
                w.clk1,
                w.issue_end,
                w.clk2,
                w.raw_ticks,
                w.corrected_ticks,
                w.corrected_ns,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            // 300 - (2 - 0) * 5 = 290 ticks = 145 ns
            (0, 100, Some(130), 400, 300, 290.0, 145.0),
            // 100 - (5 - 3) * 5 = 90 ticks = 45 ns
            (1, 500, Some(510), 600, 100, 90.0, 45.0),
        ]
    );
    let exposed: Vec<_> = w
        .iter()
        .map(|w| (w.exposed_raw_ticks, w.exposed_corrected_ticks, w.exposed_ns))
        .collect();
    assert_eq!(
        exposed,
        vec![
            (Some(270), Some(265.0), Some(132.5)),
            (Some(90), Some(85.0), Some(42.5))
        ]
    );
    let st = &p.report().async_waits[0];
    assert_eq!(
        (st.wait_name.as_str(), st.issue_name.as_str(), st.count),
        ("copy_wait", "copy", 2)
    );
    assert_eq!(
        (st.mean_corrected_ticks, st.mean_ns, st.mean_raw_ticks),
        (190.0, 95.0, 200.0)
    );
    assert_eq!((st.exposed_count, st.mean_exposed_ns), (2, 87.5));
    assert_eq!(st.exposed_fraction, 175.0 / 190.0);
    assert_eq!((st.unmatched_waits, st.unwaited_issues), (1, 0));
    // The wait region's instances are the CLK1..CLK2 spans.
    let wait = p.region_by_name("copy_wait").unwrap();
    assert_eq!(
        (wait.count, wait.mean_corrected_ticks, wait.unmatched_starts),
        (2, 190.0, 1)
    );
    // The issue region is an ordinary region: 30 - 5 and 10 - 5 ticks.
    let issue: Vec<f64> = p
        .instances(RegionId(1))
        .map(|i| i.corrected_ticks)
        .collect();
    assert_eq!(issue, vec![25.0, 5.0]);
    let r = p.report();
    assert!(r
        .caveats
        .iter()
        .any(|c| c.contains("1 END records of async wait regions were ignored")));
    assert!(r
        .corrections_applied
        .iter()
        .any(|c| c.contains("CLK2 - CLK1")));
    assert!(r
        .render_summary()
        .contains("copy_wait <- copy: 2 waits, mean 95.0 ns"));
}

#[test]
fn overlap_between_units() {
    let info = ns_info(&[reg(1, "load"), reg(2, "mma")]);
    let u0 = unit(0, vec![s(1, 0), e(1, 100), s(2, 220), e(2, 240)]);
    let u1 = unit(1, vec![s(2, 50), e(2, 150), s(1, 200), e(1, 250)]);
    let u2 = unit(2, vec![s(2, 60), e(2, 80)]);
    let p =
        Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![u0, u1, u2])], &raw()).unwrap();
    let (load, mma) = (RegionId(1), RegionId(2));
    let o = p.overlap(load, mma).unwrap();
    // load@u0 [0,100] ∩ mma elsewhere ([50,150] ∪ [60,80]) = 50; load@u1 [200,250] ∩ mma@u0 [220,240] = 20.
    assert_eq!((o.overlap_ns, o.first_ns), (70.0, 150.0));
    assert_eq!(o.fraction_of_first, 70.0 / 150.0);
    let o = p.overlap(mma, load).unwrap();
    // mma@u1 50 + mma@u2 20 + mma@u0 20; mma active 100 + 20 + 20.
    assert_eq!(
        (o.overlap_ns, o.first_ns, o.fraction_of_first),
        (90.0, 140.0, 90.0 / 140.0)
    );
    // mma@u1 [50,150] with mma@u2 [60,80] and back: 20 + 20.
    assert_eq!(p.overlap(mma, mma).unwrap().overlap_ns, 40.0);
    assert_eq!(p.overlap(load, load).unwrap().overlap_ns, 0.0);
    assert!(p.overlap(load, RegionId(9)).is_none());
    let pairs: Vec<(u16, u16, f64)> = p
        .report()
        .overlaps
        .iter()
        .map(|o| (o.first.0, o.second.0, o.overlap_ns))
        .collect();
    assert_eq!(pairs, vec![(2, 1, 90.0), (1, 2, 70.0), (2, 2, 40.0)]);
}

#[test]
fn critical_path_walks_back_from_the_latest_end() {
    let info = ns_info(&[
        reg(1, "A"),
        reg(2, "B"),
        reg(3, "C"),
        reg(4, "D"),
        reg(5, "E"),
        reg(6, "F"),
    ]);
    let u0 = unit(0, vec![s(1, 0), e(1, 50), s(2, 50), e(2, 80)]);
    // C [0,30], D [30,100] holding E [40,60], F [95,120] overlapping D without nesting.
    let u1 = unit(
        1,
        vec![
            s(3, 0),
            e(3, 30),
            s(4, 30),
            s(5, 40),
            e(5, 60),
            s(6, 95),
            e(4, 100),
            e(6, 120),
        ],
    );
    let p = Profile::from_parts_with(info, vec![ns_cta(7, 2, 0, vec![u0, u1])], &raw()).unwrap();
    let cp = p.critical_path(7).unwrap();
    assert_eq!((cp.unit, cp.end_ns, cp.slack_ns), (1, 120.0, Some(40.0)));
    let step = |r: u16, s: f64, e: f64, level: u32| CriticalStep {
        region: RegionId(r),
        instance: 0,
        start_ns: s,
        end_ns: e,
        level,
    };
    assert_eq!(
        cp.steps,
        vec![
            step(3, 0.0, 30.0, 0),
            step(4, 30.0, 100.0, 0),
            step(5, 40.0, 60.0, 1),
            step(6, 95.0, 120.0, 0)
        ]
    );
    let r = p.report();
    assert_eq!(r.critical_units.len(), 1);
    assert_eq!((r.critical_units[0].unit, r.critical_units[0].ctas), (1, 1));
    assert_eq!(r.ctas[0].critical_unit, Some(1));
    let on: Vec<(&str, bool)> = ["A", "B", "C", "D", "E", "F"]
        .iter()
        .map(|n| (*n, p.region_by_name(n).unwrap().on_critical_path))
        .collect();
    assert_eq!(
        on,
        vec![
            ("A", false),
            ("B", false),
            ("C", true),
            ("D", true),
            ("E", true),
            ("F", true)
        ]
    );
    assert_eq!(p.region_by_name("D").unwrap().critical_path_ns, 70.0);
    assert!(p.critical_path(8).is_none());
}

#[test]
fn clock_rate_conversion_at_1_5_ticks_per_ns() {
    let info = cycle_info(&[reg(0, "r")]);
    // Header: clock 1000 -> 2500 over global time 10_000 -> 11_000: 1.5 ticks/ns.
    let mut c = cta(
        0,
        0,
        10_000,
        1000,
        1.5,
        vec![unit(0, vec![s(0, 1150), e(0, 1450)])],
    );
    c.start_clock = 1000;
    c.finalize_clock = 2500;
    let p = Profile::from_parts_with(info.clone(), vec![c.clone()], &raw()).unwrap();
    let i = p.instances(RegionId(0)).next().unwrap();
    assert_eq!((i.raw_ticks, i.start_ns, i.end_ns), (300, 100.0, 300.0));
    let r = p.report();
    assert_eq!(
        (r.ctas[0].ticks_per_ns, r.ctas[0].rate_source),
        (1.5, RateSource::Measured)
    );
    assert_eq!(
        (r.clock.ctas_measured, r.clock.measured_mean),
        (1, Some(1.5))
    );
    assert!(
        r.clock.description.contains("mean 1.5000 ticks/ns"),
        "{}",
        r.clock.description
    );
    assert!(r.caveats.is_empty(), "{:?}", r.caveats);

    // No header clock (as in Proton dumps), nominal 1.5: aligned on the first record.
    let mut info_nominal = info.clone();
    info_nominal.ticks_per_ns = Some(1.5);
    let mut c2 = c.clone();
    c2.start_clock = 0;
    c2.finalize_clock = 0;
    let p = Profile::from_parts_with(info_nominal, vec![c2.clone()], &raw()).unwrap();
    let i = p.instances(RegionId(0)).next().unwrap();
    assert_eq!((i.start_ns, i.end_ns), (0.0, 200.0));
    assert_eq!(p.report().ctas[0].rate_source, RateSource::Nominal);
    let r = p.report();
    assert!(r
        .caveats
        .iter()
        .any(|c| c.contains("no usable header clock")));
    // The time before the first record is unknown there, not a number (it
    // was printed beside the caveat saying so).
    assert_eq!(r.idle[0].lead_ctas, 0, "{:?}", r.idle);
    assert!(r.render_summary().contains("before first record unknown"));

    // Nothing known: 1 tick = 1 ns, and the report says so.
    let p = Profile::from_parts_with(info, vec![c2], &raw()).unwrap();
    let i = p.instances(RegionId(0)).next().unwrap();
    assert_eq!(i.end_ns, 300.0);
    let r = p.report();
    assert_eq!(r.ctas[0].rate_source, RateSource::Assumed);
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("1 tick was taken as 1 ns")),
        "{:?}",
        r.caveats
    );
    assert!(r.render_summary().contains("ASSUMED 1 tick = 1 ns"));

    // An option overrides measurement.
    let opts = ReplayOptions {
        ticks_per_ns: Some(3.0),
        ..raw()
    };
    let p = Profile::from_parts_with(cycle_info(&[reg(0, "r")]), vec![c], &opts).unwrap();
    assert_eq!(p.instances(RegionId(0)).next().unwrap().end_ns, 150.0);
}

/// Thread 0 takes the init stamps; warp 1 may record first. On an H200,
/// 668 of a Triton matmul's 1024 CTAs had a warp recording before them (by
/// at most 696 ticks) and each lost its header clock ("no usable header
/// clock"). Up to 2 µs early the stamps are believed and the early record
/// sits before the CTA's start; 3.3 µs early, they are not.
#[test]
fn a_warp_recording_before_thread_0s_init_stamps_keeps_the_header_clock() {
    let info = cycle_info(&[reg(0, "r")]);
    // Header: clock 10_000 -> 11_500 over 10_000 -> 11_000 ns: 1.5 ticks/ns.
    let with_warp1_start = |start: u64| {
        let mut c = cta(
            0,
            0,
            10_000,
            1000,
            1.5,
            vec![
                unit(0, vec![s(0, 10_150), e(0, 10_450)]),
                unit(1, vec![s(0, start), e(0, 10_240)]),
            ],
        );
        c.start_clock = 10_000;
        c.finalize_clock = 11_500;
        Profile::from_parts_with(info.clone(), vec![c], &raw()).unwrap()
    };
    let p = with_warp1_start(9_940);
    let r = p.report();
    assert!(r.caveats.is_empty(), "{:?}", r.caveats);
    let mut starts: Vec<(f64, f64)> = p
        .instances(RegionId(0))
        .map(|i| (i.start_ns, i.end_ns))
        .collect();
    starts.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The axis starts at warp 1's first record, 60 ticks (40 ns) before
    // the init stamps: it used to start at them, and the instance at
    // -40 ns was clamped to 0 in Perfetto traces.
    assert_eq!(starts, vec![(0.0, 200.0), (140.0, 340.0)]);
    // The CTA starts at that record too, so its time and the wall span
    // hold warp 1's first 40 ns (they started at the stamps).
    let c = &p.ctas()[0];
    assert_eq!((c.start_ns, c.duration_ns()), (0.0, 340.0));
    assert_eq!(r.kernel_time.wall_span_ns, 340.0);
    assert_eq!(r.idle[0].lead_ctas, 1, "{:?}", r.idle);

    let p = with_warp1_start(5_000);
    assert!(p
        .report()
        .caveats
        .iter()
        .any(|c| c.contains("no usable header clock")));
    // A lead of 5000 ticks is not believed: the CTA aligns on its first
    // record, at its init stamp, and moves no axis zero.
    assert_eq!(p.ctas()[0].start_ns, 0.0);
}

/// p50/p95 come in ticks as well as ns: twenty instances of 30, 60, ...,
/// 600 ticks at a measured 1.5 ticks/ns are 20, 40, ..., 400 ns, and the
/// nearest ranks (10th, 19th) are 300 and 570 ticks, 200 and 380 ns.
#[test]
fn percentiles_in_ticks_and_ns() {
    let mut recs = Vec::new();
    let mut t = 0;
    for k in 1..=20u64 {
        recs.push(s(0, t));
        recs.push(e(0, t + 30 * k));
        t += 30 * k + 10;
    }
    let c = cta(0, 0, 10_000, 10_000, 1.5, vec![unit(0, recs)]);
    let p = Profile::from_parts_with(cycle_info(&[reg(0, "r")]), vec![c], &raw()).unwrap();
    let r = &p.report().regions[0];
    assert_eq!(
        (r.p50_corrected_ticks, r.p95_corrected_ticks),
        (300.0, 570.0)
    );
    assert_eq!((r.p50_ns, r.p95_ns), (200.0, 380.0));
    let f = p.feedback();
    let fr = &f.regions[0];
    assert_eq!((fr.p50_cycles, fr.p95_cycles), (Some(300.0), Some(570.0)));
}

#[test]
fn ctas_share_one_time_axis() {
    let info = ns_info(&[reg(0, "work")]);
    let a = ns_cta(0, 7, 5_000, vec![unit(0, vec![s(0, 0), e(0, 400)])]);
    let b = ns_cta(1, 7, 5_300, vec![unit(0, vec![s(0, 10), e(0, 200)])]);
    let c = ns_cta(2, 9, 5_100, vec![unit(0, vec![s(0, 0), e(0, 100)])]);
    // Pushed out of start order: the scan finds the earliest start anyway.
    let p = Profile::from_parts_with(info, vec![b, a, c], &raw()).unwrap();
    let starts: Vec<(u32, f64, f64)> = p
        .ctas()
        .iter()
        .map(|c| (c.cta_id, c.start_ns, c.end_ns))
        .collect();
    assert_eq!(
        starts,
        vec![(1, 300.0, 500.0), (0, 0.0, 400.0), (2, 100.0, 200.0)]
    );
    let i: Vec<(u32, f64, f64)> = p
        .instances(RegionId(0))
        .map(|i| (i.cta, i.start_ns, i.end_ns))
        .collect();
    assert_eq!(
        i,
        vec![(1, 310.0, 500.0), (0, 0.0, 400.0), (2, 100.0, 200.0)]
    );
    let r = p.report();
    assert_eq!(r.kernel_time.wall_span_ns, 500.0);
    assert_eq!(r.kernel_time.cta_time_ns, 700.0);
    let im = &r.imbalance;
    assert_eq!((im.cta_min_ns, im.cta_max_ns), (100.0, 400.0));
    assert_eq!(im.cta_mean_ns, 700.0 / 3.0);
    assert_eq!(im.cta_max_over_mean, 400.0 / (700.0 / 3.0));
    assert_eq!((im.fastest_cta, im.slowest_cta), (Some(2), Some(0)));
    // SM 7 runs CTAs 0 [0,400] and 1 [300,500] at once: busy 500, CTA time 600.
    let sms: Vec<(u32, u64, f64, f64)> = im
        .sms
        .iter()
        .map(|s| (s.hw_id, s.ctas, s.busy_ns, s.cta_time_ns))
        .collect();
    assert_eq!(sms, vec![(7, 2, 500.0, 600.0), (9, 1, 100.0, 100.0)]);
    assert_eq!(im.sm_max_over_mean, 500.0 / 300.0);
}

#[test]
fn idle_gaps_and_per_unit_breakdown() {
    let info = ns_info(&[reg(0, "x")]);
    let u0 = unit(
        0,
        vec![s(0, 0), e(0, 10), s(0, 30), e(0, 40), s(0, 45), e(0, 100)],
    );
    let u1 = unit(1, vec![s(0, 20), e(0, 50)]);
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![u0, u1])], &raw()).unwrap();
    let r = p.report();
    let idle: Vec<(u32, f64, f64, u64, f64, f64, f64)> = r
        .idle
        .iter()
        .map(|i| {
            (
                i.unit,
                i.span_ns,
                i.idle_ns,
                i.gaps,
                i.max_gap_ns,
                i.lead_ns,
                i.tail_ns,
            )
        })
        .collect();
    assert_eq!(
        idle,
        vec![
            (0, 100.0, 25.0, 2, 20.0, 0.0, 0.0),
            (1, 30.0, 0.0, 0, 0.0, 20.0, 50.0)
        ]
    );
    let x = p.region_by_name("x").unwrap();
    // Unit time: CTA 0..100 × 2 units.
    assert_eq!((x.total_ns, x.share), (105.0, 105.0 / 200.0));
    let per: Vec<(u32, u64, f64, f64)> = x
        .per_unit
        .iter()
        .map(|u| (u.unit, u.count, u.total_ns, u.share_of_unit))
        .collect();
    assert_eq!(per, vec![(0, 3, 75.0, 0.75), (1, 1, 30.0, 0.3)]);
    let summary = r.render_summary();
    assert!(
        summary.contains("warp 0: idle 25.0 ns of 100.0 ns (25.0%), 2 gaps, longest 20.0 ns"),
        "{summary}"
    );
}

#[test]
fn unknown_region_ids_are_named_and_reported() {
    let info = ns_info(&[reg(0, "known")]);
    let u = unit(0, vec![s(0, 0), s(42, 5), e(42, 8), e(0, 10)]);
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![u])], &raw()).unwrap();
    assert_eq!(p.region(RegionId(42)).unwrap().name, "region_42");
    assert!(p
        .report()
        .caveats
        .iter()
        .any(|c| c.contains("not in the metadata")));
}

#[test]
fn feedback_json_round_trips() {
    // Dyadic numbers only, so every float survives JSON exactly.
    let info = ns_info(&[reg(1, "load"), reg(2, "mma"), reg(3, "tail")]);
    let u0 = unit(0, vec![s(1, 0), e(1, 64)]);
    let u1 = unit(1, vec![s(2, 32), e(2, 96), s(3, 96), e(3, 128)]);
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 4, 0, vec![u0, u1])], &raw()).unwrap();
    let text = p.feedback_json().unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["feedback_version"], FEEDBACK_VERSION);
    let region = |name: &str| {
        v["regions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(region("load")["share"], 0.25);
    assert_eq!(region("load")["mean_ns"], 64.0);
    assert_eq!(region("load")["on_critical_path"], false);
    assert_eq!(region("mma")["on_critical_path"], true);
    assert_eq!(region("tail")["critical_path_fraction"], 1.0);
    assert_eq!(v["overlaps"][0]["first_name"], "load");
    assert_eq!(v["overlaps"][0]["fraction_of_first"], 0.5);
    assert_eq!(v["critical_paths"][0]["unit"], 1);
    assert_eq!(v["critical_paths"][0]["slack_ns"], 64.0);
    let back: kperf_replay::Feedback = serde_json::from_str(&text).unwrap();
    assert_eq!(back, p.feedback());
    // The full report round-trips too.
    let full: kperf_replay::ReplayReport =
        serde_json::from_str(&p.report().to_json().unwrap()).unwrap();
    assert_eq!(&full, p.report());
}

#[test]
fn streaming_replay_matches_the_in_memory_profile() {
    let info = cycle_info(&[reg(0, "a"), reg(1, "b")]);
    let ctas: Vec<_> = (0..5u32)
        .map(|i| {
            let base = 7 * u64::from(i);
            let recs = vec![
                s(0, base),
                s(1, base + 20),
                e(1, base + 60 + u64::from(i)),
                e(0, base + 100),
            ];
            cta(
                i,
                i % 2,
                1_000 + 50 * u64::from(4 - i),
                500,
                1.25,
                vec![unit(0, recs.clone()), unit(1, recs)],
            )
        })
        .collect();
    let opts = ReplayOptions::default();
    let p = Profile::from_parts_with(info.clone(), ctas.clone(), &opts).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.json");
    let streamed = kperf_replay::replay_ctas(
        &info,
        &opts,
        || Ok(ctas.clone().into_iter().map(Ok)),
        Some(&trace),
    )
    .unwrap();
    assert_eq!(&streamed, p.report());
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let x = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .count();
    assert_eq!(x, 20);
}

#[test]
fn bad_options_are_rejected() {
    let info = ns_info(&[]);
    let bad = ReplayOptions {
        ticks_per_ns: Some(0.0),
        ..Default::default()
    };
    let err = Profile::from_parts_with(info.clone(), vec![], &bad).unwrap_err();
    assert!(err.to_string().contains("clock rate"), "{err}");
    let bad = ReplayOptions {
        record_cost_ticks: Some(f64::NAN),
        ..Default::default()
    };
    assert!(Profile::from_parts_with(info, vec![], &bad).is_err());
}

#[test]
fn empty_profile_reports_nothing_but_does_not_fail() {
    let p = Profile::from_parts(ns_info(&[reg(0, "a")]), vec![]).unwrap();
    let r = p.report();
    assert_eq!(r.totals.ctas, 0);
    assert_eq!(r.regions.len(), 1);
    assert_eq!(r.regions[0].count, 0);
    let s = r.render_summary();
    assert!(s.contains("0 CTAs"));
}

#[test]
fn nearest_rank_percentiles() {
    let mut v: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(percentile(&mut v, 50.0), 10.0);
    assert_eq!(percentile(&mut v, 95.0), 19.0);
    assert_eq!(percentile(&mut v, 100.0), 20.0);
    assert_eq!(percentile(&mut [], 50.0), 0.0);
}

#[test]
fn flush_strategy_counts_positions_from_zero() {
    let mut info = ns_info(&[reg(0, "a")]);
    info.strategy = Strategy::Flush;
    let mut u = unit(0, vec![s(0, 0), e(0, 10)]);
    u.records_written = 6;
    u.records_lost = 4;
    let opts = ReplayOptions {
        record_cost_ticks: Some(2.0),
        ..Default::default()
    };
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![u])], &opts).unwrap();
    let i = p.instances(RegionId(0)).next().unwrap();
    assert_eq!((i.start_index, i.start_ns, i.end_ns), (0, 0.0, 8.0));
    assert!(p.report().lost.note.contains("newest records were dropped"));
}

#[test]
fn pipelined_async_waits_pair_in_issue_order() {
    let regions = [
        (1, "copy", RegionKind::AsyncIssue, None, None),
        (2, "copy_wait", RegionKind::AsyncWait, None, Some(1)),
    ];
    // Two copies in flight: issue 0, issue 1, wait 0, wait 1.
    let recs = vec![s(1, 0), e(1, 10), s(1, 20), e(1, 30), s(2, 100), s(2, 120)];
    let p = Profile::from_parts_with(
        ns_info(&regions),
        vec![ns_cta(0, 0, 0, vec![unit(0, recs)])],
        &raw(),
    )
    .unwrap();
    let got: Vec<_> = p.ctas()[0]
        .async_waits
        .iter()
        .map(|w| (w.instance, w.issue_instance, w.clk1, w.clk2, w.raw_ticks))
        .collect();
    assert_eq!(got, vec![(0, 0, 0, 100, 100), (1, 1, 20, 120, 100)]);
    // Blocked from the latest END of the issue region (30) in the first
    // wait, and from the first wait's release (100) in the second: 90
    // before 2026-11-27, the first wait's 70 counted again.
    let exposed: Vec<_> = p.ctas()[0]
        .async_waits
        .iter()
        .map(|w| w.exposed_raw_ticks)
        .collect();
    assert_eq!(exposed, vec![Some(70), Some(20)]);
}

/// kperf's records for a two-stage software pipeline (the async mode on a
/// Triton loop): START(issue) per prologue stage, then per iteration
/// END(issue) before the wait, START(wait) after it and START(issue) for
/// the next stage. Each wait retires the oldest stage in flight, so both
/// the wait and the issue instance pair first in, first out, and the two
/// stages still in flight at the end are unwaited issues, not unclosed
/// starts.
#[test]
fn two_start_pipeline_retires_the_oldest_stage() {
    let regions = [
        (1, "copy", RegionKind::AsyncIssue, None, None),
        (2, "copy_wait", RegionKind::AsyncWait, None, Some(1)),
    ];
    let recs = vec![
        s(1, 0),
        s(1, 10),
        e(1, 100),
        s(2, 110),
        s(1, 120),
        e(1, 200),
        s(2, 210),
        s(1, 220),
    ];
    let p = Profile::from_parts_with(
        ns_info(&regions),
        vec![ns_cta(0, 0, 0, vec![unit(0, recs)])],
        &raw(),
    )
    .unwrap();
    let cta = &p.ctas()[0];
    let issues: Vec<_> = cta.units[0]
        .instances
        .iter()
        .filter(|i| i.region == RegionId(1))
        .map(|i| (i.start_clock, i.end_clock))
        .collect();
    assert_eq!(issues, vec![(0, 100), (10, 200)]);
    let waits: Vec<_> = cta
        .async_waits
        .iter()
        .map(|w| (w.clk1, w.clk2, w.exposed_raw_ticks))
        .collect();
    assert_eq!(waits, vec![(0, 110, Some(10)), (10, 210, Some(10))]);
    let left: Vec<_> = cta
        .unmatched
        .iter()
        .map(|u| (u.region, u.starts, u.ends, u.unwaited_issues))
        .collect();
    assert_eq!(left, vec![(RegionId(1), 0, 0, 2)]);
}

#[test]
fn data_problems_become_caveats() {
    // Duplicate metadata id, a clock that goes backwards, a CTA with no units.
    let info = ns_info(&[reg(0, "a"), reg(0, "a_again")]);
    let u = unit(0, vec![s(0, 50), e(0, 40)]);
    let p = Profile::from_parts_with(
        info,
        vec![ns_cta(0, 0, 0, vec![u]), ns_cta(1, 0, 0, vec![])],
        &raw(),
    )
    .unwrap();
    let r = p.report();
    assert_eq!(p.instances(RegionId(0)).next().unwrap().raw_ticks, 0);
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("lists region id 0 twice")),
        "{:?}",
        r.caveats
    );
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("1 records have a clock earlier")),
        "{:?}",
        r.caveats
    );
    assert_eq!(r.totals.ctas, 2);
}

#[test]
fn replayer_without_a_scan_says_when_ctas_start_early() {
    use kperf_replay::{ProfileScan, Replayer};
    let info = ns_info(&[reg(0, "a")]);
    let mut r = Replayer::new(&info, &raw(), &ProfileScan::default()).unwrap();
    let late = ns_cta(0, 0, 500, vec![unit(0, vec![s(0, 0), e(0, 10)])]);
    let early = ns_cta(1, 0, 200, vec![unit(0, vec![s(0, 0), e(0, 10)])]);
    assert_eq!(r.push_cta(&late).cta.start_ns, 0.0);
    assert_eq!(r.push_cta(&early).cta.start_ns, -300.0);
    let report = r.finish();
    assert!(report.caveats.iter().any(|c| c.contains("negative times")));
}

/// The uninstrumented run a scenario compares with: `ctas` CTAs of
/// `truth` ticks each (mean and median), `wall_ns` in all.
fn timed_by_hand(ctas: u64, truth: f64, wall_ns: u64) -> kperf_runtime::profile::UninstrumentedRun {
    kperf_runtime::profile::UninstrumentedRun {
        ctas,
        cta_mean_ticks: Some(truth),
        cta_median_ticks: Some(truth),
        wall_ns,
        method: "by hand".into(),
        profiled_wall_ns: None,
    }
}

/// A kernel region around four 20-tick iterations, 130 ticks raw with nine
/// records after its START; the same launch took 94 ticks per CTA
/// uninstrumented, so each record cost (130 − 94) / 9 = 4 ticks.
fn kernel_with_check(
    calibrated_cost: f64,
) -> (
    kperf_runtime::profile::RunInfo,
    Vec<kperf_runtime::profile::CtaTrace>,
) {
    let mut info = kernel_loop_info();
    info.record_cost_ticks = Some(calibrated_cost);
    info.check = Some(timed_by_hand(1, 94.0, 94));
    let mut recs = vec![s(0, 0)];
    for k in 0..4 {
        recs.push(s(1, 10 + 30 * k));
        recs.push(e(1, 30 + 30 * k));
    }
    recs.push(e(0, 130));
    (info, vec![ns_cta(0, 0, 0, vec![unit(0, recs)])])
}

#[test]
fn a_calibrated_cost_the_uninstrumented_run_refutes_is_fitted_to_it() {
    // Calibrated 10 ticks: the kernel region would be 130 − 9·10 = 40, −57%.
    let (info, ctas) = kernel_with_check(10.0);
    let p = Profile::from_parts(info.clone(), ctas.clone()).unwrap();
    let r = p.report();
    assert_eq!(r.correction.source, CostSource::FittedToCheck);
    assert_eq!(r.correction.cost_ticks, 4.0);
    let fit = r.correction.fit.as_ref().unwrap();
    assert!(
        (fit.calibrated_error - (40.0 / 94.0 - 1.0)).abs() < 1e-9,
        "{fit:?}"
    );
    let check = r.check.as_ref().unwrap();
    assert!(check.fitted && check.error.abs() < 1e-9, "{check:?}");
    let iter = r.regions.iter().find(|x| x.name == "iter").unwrap();
    assert_eq!(iter.mean_corrected_ticks, 16.0);
    assert!(r.caveats.iter().any(|c| c.contains("fitted to that run")));
    assert!(r
        .render_summary()
        .contains("the calibrated cost gave -57.4%"));

    // --no-fit keeps the calibration and says how far off it is.
    let opts = ReplayOptions {
        fit_to_check: false,
        ..Default::default()
    };
    let p = Profile::from_parts_with(info, ctas, &opts).unwrap();
    let r = p.report();
    assert_eq!(r.correction.source, CostSource::Calibrated);
    let check = r.check.as_ref().unwrap();
    assert!(!check.fitted && (check.error - (40.0 / 94.0 - 1.0)).abs() < 1e-9);
    assert!(r.caveats.iter().any(|c| c.contains("-57.4% off")));
}

#[test]
fn a_check_over_other_instances_is_named_and_fits_nothing() {
    // The profile holds one CTA's kernel region; the uninstrumented run
    // timed 4 CTAs (the others not recorded, or their START lost): the
    // calibrated cost stays, and the report says the two are different
    // sets instead of calling the profile -57% off.
    let (mut info, ctas) = kernel_with_check(10.0);
    info.check = Some(timed_by_hand(4, 94.0, 94));
    let p = Profile::from_parts(info, ctas).unwrap();
    let r = p.report();
    assert_eq!(r.correction.source, CostSource::Calibrated);
    let check = r.check.as_ref().unwrap();
    assert_eq!((check.instances, check.truth_instances), (1, 4));
    assert!(!check.fitted, "{check:?}");
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("compares different warps")
                && c.contains("no record cost was fitted")),
        "{:?}",
        r.caveats
    );
    assert!(!r.caveats.iter().any(|c| c.contains("off by about as much")));
}

#[test]
fn a_kernel_region_shorter_than_the_truth_fits_no_cost() {
    // 130 ticks raw against 200 uninstrumented: no record cost explains a
    // faster instrumented run; fitting took the cost to 0 (every region
    // inside uncorrected). The calibration stays and the report says why.
    let (mut info, ctas) = kernel_with_check(10.0);
    info.check = Some(timed_by_hand(1, 200.0, 200));
    let p = Profile::from_parts(info, ctas).unwrap();
    let r = p.report();
    assert_eq!(r.correction.source, CostSource::Calibrated);
    assert_eq!(r.correction.cost_ticks, 10.0);
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("records make nothing faster")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn the_fit_holds_for_the_units_past_its_sample() {
    // 300 CTAs of one unit: a kernel region of 999 gaps (499 iterations).
    // The fit samples the first 2^18 record clocks, 262 units of 1000; the
    // first 262 CTAs ran 12 ticks a gap, the last 38 ran 10 (the host got
    // quieter). Mean raw = (262·11988 + 38·9990) / 300 = 11734.92; with a
    // truth 5994 below it, the cost that matches all units is 6 a record.
    // Fitted on the samples alone it was (11988 − truth) / 999 = 6.25,
    // leaving all units 4.4% under the truth. (Units past the sample that
    // ran longer are caught anyway: the average cost over all units is the
    // fit's lower bound.)
    let mut info = kernel_loop_info();
    info.record_cost_ticks = Some(20.0);
    let raw_mean = (262.0 * 11988.0 + 38.0 * 9990.0) / 300.0;
    let truth = raw_mean - 6.0 * 999.0;
    info.check = Some(timed_by_hand(300, truth, 1));
    let ctas: Vec<_> = (0..300u32)
        .map(|c| {
            let gap = if c < 262 { 12 } else { 10 };
            let mut recs = vec![s(0, 0)];
            for k in 0..499 {
                recs.push(s(1, gap * (2 * k + 1)));
                recs.push(e(1, gap * (2 * k + 2)));
            }
            recs.push(e(0, gap * 999));
            cta(c, 0, 0, 20_000, 1.0, vec![unit(0, recs)])
        })
        .collect();
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    assert_eq!(r.correction.source, CostSource::FittedToCheck);
    assert!(
        (r.correction.cost_ticks - 6.0).abs() < 1e-6,
        "{:?}",
        r.correction
    );
    let check = r.check.as_ref().unwrap();
    assert!(check.fitted && check.error.abs() < 1e-9, "{check:?}");
}

#[test]
fn a_kernel_mostly_records_is_below_resolution_even_where_a_fit_matches() {
    // 17 records 10 ticks apart (raw 170) around 17 ticks of work: a cost
    // of 9 matches the truth exactly (no gap is shorter than it, nothing is
    // clamped), but the work is 10% of the region, and a 1% error in the
    // cost would move the corrected times by 9%. The README's demo kernel
    // fitted like this on one host and not on another: neither is a
    // measurement.
    let mut info = kernel_loop_info();
    info.record_cost_ticks = Some(20.0);
    info.check = Some(timed_by_hand(1, 17.0, 17));
    let mut recs = vec![s(0, 0)];
    for k in 0..8 {
        recs.push(s(1, 10 + 20 * k));
        recs.push(e(1, 20 + 20 * k));
    }
    recs.push(e(0, 170));
    let ctas = vec![ns_cta(0, 0, 0, vec![unit(0, recs)])];
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let fit = r.correction.fit.as_ref().unwrap();
    assert!(fit.applied && !fit.resolved, "{fit:?}");
    assert_eq!(fit.fitted_cost_ticks, 9.0, "{fit:?}");
    let check = r.check.as_ref().unwrap();
    assert!(!check.fitted, "no agreement by construction: {check:?}");
    assert!(
        r.regions.iter().all(|x| x.below_resolution),
        "{:?}",
        r.regions
    );
    let caveat = r
        .caveats
        .iter()
        .find(|c| c.starts_with("below resolution: the kernel's own work"))
        .unwrap_or_else(|| panic!("{:?}", r.caveats));
    assert!(
        caveat.contains("10.0% of the instrumented kernel region")
            && caveat.contains("a 1% error in the cost moves them by 9%"),
        "{caveat}"
    );
    let summary = r.render_summary();
    assert!(
        summary.contains("below the records' resolution"),
        "the check line says so: {summary}"
    );
}

#[test]
fn a_difference_the_records_cannot_account_for_keeps_the_calibration() {
    // 16 CTAs with only a kernel region (one record after its START): the
    // first ran cold, 70000 ticks, the others 3200; uninstrumented, 2698
    // per CTA. Fitting would charge (7375 − 2698) / 1 ticks to the one
    // record against 85 calibrated, and correct 15 CTAs to 0 (seen on the
    // host with examples/matmul_host.mlir --regions kernel --threads 1).
    let regions = [(0, "kernel", RegionKind::Kernel, None, None)];
    let mut info = ns_info(&regions);
    info.record_cost_ticks = Some(85.0);
    info.check = Some(timed_by_hand(16, 2698.0, 50_000));
    let ctas: Vec<_> = (0..16u32)
        .map(|c| {
            let raw = if c == 0 { 70_000 } else { 3_200 };
            let start = 100_000 * u64::from(c);
            ns_cta(
                c,
                0,
                start,
                vec![unit(0, vec![s(0, start), e(0, start + raw)])],
            )
        })
        .collect();
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let fit = r.correction.fit.as_ref().unwrap();
    assert!(!fit.plausible && !fit.applied, "{fit:?}");
    assert_eq!(r.correction.source, CostSource::Calibrated);
    let kernel = &r.regions[0];
    assert_eq!(
        kernel.p50_ns,
        3_200.0 - 85.0,
        "the warm CTAs keep their time"
    );
    let check = r.check.as_ref().unwrap();
    assert!(!check.fitted && check.error > 1.0, "{check:?}");
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("the difference is not the records' cost")
                && c.contains("4677 ticks per record on average")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn one_stalled_cta_does_not_fit_the_record_cost() {
    // 16 CTAs of 10 iterations of 20 ticks, 4 ticks a record: 284 raw,
    // 200 corrected, 200 uninstrumented. CTA 0 stalled 3000 ticks in one
    // iteration (preempted on a busy host): the mean kernel region reads
    // +94% and (471.5 - 200) / 21 = 12.9 ticks a record is within 4x the
    // calibration, so the fit took it and corrected every iteration to
    // 11 ticks (seen with a 64-CTA loop: its kernel to 3 ns at the median).
    let mut info = kernel_loop_info();
    info.record_cost_ticks = Some(4.0);
    info.grid = [16, 1, 1];
    info.check = Some(timed_by_hand(16, 200.0, 50_000));
    let ctas: Vec<_> = (0..16u32)
        .map(|c| {
            let start = 100_000 * u64::from(c);
            let mut recs = vec![s(0, start)];
            let mut t = start + 4;
            for k in 0..10 {
                let stall = if c == 0 && k == 3 { 3000 } else { 0 };
                recs.push(s(1, t));
                recs.push(e(1, t + 24 + stall));
                t += 28 + stall;
            }
            recs.push(e(0, t));
            ns_cta(c, 0, start, vec![unit(0, recs)])
        })
        .collect();
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let fit = r.correction.fit.as_ref().unwrap();
    assert!(fit.outlier_driven() && !fit.applied, "{fit:?}");
    assert_eq!(fit.calibrated_median_error, Some(0.0));
    assert_eq!(r.correction.source, CostSource::Calibrated);
    let iter = r.regions.iter().find(|r| r.name == "iter").unwrap();
    assert_eq!(iter.p50_ns, 20.0, "the iterations keep their time");
    let check = r.check.as_ref().unwrap();
    assert!(!check.fitted && !check.cost_fitted, "{check:?}");
    assert!(
        r.caveats.iter().any(
            |c| c.contains("a few instances ran far longer than the rest")
                && c.contains("median instance +0.0% off")
        ),
        "{:?}",
        r.caveats
    );
    assert!(
        !r.caveats.iter().any(|c| c.contains("off by about as much")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn a_region_whose_median_instance_is_under_a_record_is_below_resolution() {
    // 100 iterations of 2 ticks between records of 4, one stalled 10000
    // ticks: the mean raw duration (106) is over two records' cost, the
    // median instance's corrected 2 ticks under one.
    let regions = [(1, "iter", RegionKind::Iteration, None, None)];
    let mut info = ns_info(&regions);
    info.record_cost_ticks = Some(4.0);
    let mut recs = Vec::new();
    let mut t = 0;
    for k in 0..100 {
        let stall = if k == 7 { 10_000 } else { 0 };
        recs.push(s(1, t));
        recs.push(e(1, t + 6 + stall));
        t += 10 + stall;
    }
    let ctas = vec![ns_cta(0, 0, 0, vec![unit(0, recs)])];
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let iter = &r.regions[0];
    assert!(iter.mean_raw_ticks > 8.0, "{iter:?}");
    assert!(iter.below_resolution, "{iter:?}");
}

#[test]
fn a_calibrated_cost_the_uninstrumented_run_confirms_is_kept() {
    let (info, ctas) = kernel_with_check(4.0);
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    assert_eq!(r.correction.source, CostSource::Calibrated);
    assert!(!r.correction.fit.as_ref().unwrap().applied);
    let check = r.check.as_ref().unwrap();
    assert!(!check.fitted && check.error.abs() < 1e-9, "{check:?}");
}

#[test]
fn a_corrupt_written_count_does_not_move_records_by_seconds() {
    // The CTA ran 1000 ticks, but its unit claims 2^40 records written (a
    // Proton dump whose count word was garbage): positions from that count
    // would move the unit's records 2^40 · cost earlier.
    let mut u = unit(0, vec![s(0, 100), e(0, 300)]);
    u.records_written = 1 << 40;
    u.records_lost = (1 << 40) - 2;
    let opts = ReplayOptions {
        record_cost_ticks: Some(7.0),
        ..Default::default()
    };
    let p = Profile::from_parts_with(
        ns_info(&[reg(0, "a")]),
        vec![ns_cta(0, 0, 0, vec![u])],
        &opts,
    )
    .unwrap();
    let i = p.instances(RegionId(0)).next().unwrap();
    // Positions counted from the first surviving record: START at 0, END at 1.
    assert_eq!((i.start_index, i.end_index), (0, 1));
    assert_eq!((i.raw_ticks, i.corrected_ticks), (200, 193.0));
    assert_eq!(i.start_ns, 100.0);
    assert!(
        p.report()
            .caveats
            .iter()
            .any(|c| c.contains("1 unit(s) claim more records written than their CTA ran ticks")),
        "{:?}",
        p.report().caveats
    );
}

#[test]
fn a_coarse_global_timer_is_pooled_over_the_launch() {
    // Four identical CTAs: 3000 ticks at 2 ticks/ns (1500 ns), a region of
    // 2800 ticks (1400 ns) each. A global timer that ticks every
    // microsecond reads their spans as 1000 or 2000 ns: alone, each CTA
    // measures 3.0 or 1.5 ticks/ns and the region 933 or 1867 ns.
    let info = cycle_info(&[reg(0, "r")]);
    let ctas: Vec<_> = (0..4u32)
        .map(|k| {
            let timer_span = if k % 2 == 0 { 1_000 } else { 2_000 };
            let mut c = cta(
                k,
                k,
                10_000,
                timer_span,
                1.0,
                vec![unit(0, vec![s(0, 100), e(0, 2_900)])],
            );
            c.finalize_clock = 3_000;
            c
        })
        .collect();
    let p = Profile::from_parts_with(info, ctas, &raw()).unwrap();
    let durations: Vec<f64> = p
        .instances(RegionId(0))
        .map(|i| i.end_ns - i.start_ns)
        .collect();
    assert_eq!(durations, [1400.0; 4]);
    let r = p.report();
    assert!(r
        .ctas
        .iter()
        .all(|c| (c.ticks_per_ns, c.rate_source) == (2.0, RateSource::Measured)));
    assert_eq!(
        (r.clock.cta_measured_min, r.clock.cta_measured_max),
        (Some(1.5), Some(3.0))
    );
    assert!(
        r.clock
            .description
            .contains("each CTA alone measured 1.5000 to 3.0000"),
        "{}",
        r.clock.description
    );
}

#[test]
fn records_the_header_clocks_cannot_hold_are_caveats() {
    // CTA 0: thread 0's unit has a record after the finalize clock it read
    // after its records (a count past what was written, or clock bits
    // lost); unit 3, a warp still working when thread 0 finalized, records
    // later legitimately (finalize has no barrier) and is not flagged.
    // CTA 1 on a 32-bit counter: a header span of 2^32 ticks, so a whole
    // wrap can hide between two records.
    let mut info = cycle_info(&[reg(0, "r")]);
    info.counter = kperf_dialects::abi::Counter::Clock32;
    let mut beyond = cta(
        0,
        0,
        0,
        1_000,
        2.0,
        vec![
            unit(0, vec![s(0, 10), e(0, 5_000)]),
            unit(3, vec![s(0, 10), e(0, 4_000)]),
        ],
    );
    beyond.finalize_clock = 2_000;
    let mut long = cta(
        1,
        1,
        0,
        1_000,
        2.0,
        vec![unit(0, vec![s(0, 10), e(0, 400)])],
    );
    long.finalize_clock = 1 << 32;
    long.finalize_start_ns = (1u64 << 32) / 2;
    let p = Profile::from_parts_with(info, vec![beyond, long], &raw()).unwrap();
    let r = p.report();
    let has = |text: &str| r.caveats.iter().any(|c| c.contains(text));
    assert!(
        has("1 units have records later than their CTA's finalize clock, or spanning more ticks than its global-timer span allows (first: CTA 0 unit 0)"),
        "{:?}",
        r.caveats
    );
    assert!(
        has("1 CTAs ran 2^32 ticks or longer (first: CTA 1)"),
        "{:?}",
        r.caveats
    );
}

#[test]
fn ctas_shorter_than_the_timer_tick_pool_to_the_true_rate() {
    // 1000 CTAs of 1000 ticks at 2 ticks/ns (500 ns) under a timer that
    // reads in whole microseconds: most read a span of 0, some of 1000 ns.
    // Pooling only the spans above 0 read 1.0 ticks/ns (every region 2x
    // too long); pooling them all gives the true rate within the sampling.
    let info = cycle_info(&[reg(0, "r")]);
    let ctas: Vec<_> = (0..1000u32)
        .map(|k| {
            let start = 10_000 + u64::from(k) * 137;
            let q = |t: u64| t / 1_000 * 1_000;
            let mut c = cta(
                k,
                k,
                q(start),
                0,
                1.0,
                vec![unit(0, vec![s(0, 100), e(0, 900)])],
            );
            c.finalize_start_ns = q(start + 500);
            c.finalize_end_ns = c.finalize_start_ns;
            c.finalize_clock = 1_000;
            c
        })
        .collect();
    let p = Profile::from_parts_with(info, ctas, &raw()).unwrap();
    let rate = p.report().ctas[0].ticks_per_ns;
    assert!((rate - 2.0).abs() < 0.1, "pooled rate {rate}");
}

#[test]
fn a_ctas_stale_timer_stamp_is_left_out_of_the_rate() {
    // Ten CTAs of 20000 ticks over 10 us; one's finalize stamp is 20 ms
    // late (0.001 ticks/ns alone, a rate a counter can have). Pooled with
    // the others it made every region 32x too long, without a word.
    let info = cycle_info(&[reg(0, "r")]);
    let ctas: Vec<_> = (0..10u32)
        .map(|k| {
            let mut c = cta(
                k,
                k,
                0,
                10_000,
                2.0,
                vec![unit(0, vec![s(0, 100), e(0, 19_100)])],
            );
            if k == 9 {
                c.finalize_start_ns += 20_000_000;
                c.finalize_end_ns += 20_000_000;
            }
            c
        })
        .collect();
    let p = Profile::from_parts_with(info, ctas, &raw()).unwrap();
    let r = p.report();
    assert!(
        r.ctas.iter().all(|c| c.ticks_per_ns == 2.0),
        "{:?}",
        r.ctas[0]
    );
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("1 CTA(s) measured a clock rate") && c.contains("first: CTA 9")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn lost_records_never_move_survivors_before_the_cta_began() {
    // A ring of 4 kept the last records of 1002 written 8 ticks apart
    // (from clock 1000), under a calibrated cost of 10 ticks: shifting
    // the survivors by 998 lost records x 10 put them 2 us before the CTA
    // began (negative times, every CTA 0 ns). The lost records and their
    // cost all fit between the CTA's start and the first survivor.
    let mut info = cycle_info(&[reg(0, "r")]);
    info.record_cost_ticks = Some(10.0);
    let survivors = vec![s(0, 8_984), e(0, 8_992), s(0, 9_000), e(0, 9_008)];
    let mut u = unit(0, survivors);
    u.records_written = 1_002;
    u.records_lost = 998;
    let mut c = cta(0, 0, 0, 8_100, 1.0, vec![u]);
    c.start_clock = 1_000;
    c.finalize_clock = 9_100;
    let p = Profile::from_parts(info, vec![c]).unwrap();
    let starts: Vec<f64> = p.instances(RegionId(0)).map(|i| i.start_ns).collect();
    assert_eq!(starts.len(), 2);
    assert!(starts.iter().all(|t| *t >= 0.0), "{starts:?}");
    assert!(p.ctas()[0].start_ns >= 0.0);
}

#[test]
fn overlapping_members_of_a_critical_chain_are_credited_once() {
    // kernel 0..1000; A 100..500 and B 200..800 overlap (paired by id, as
    // Proton scopes may). The chain at level 1 is A then B, and covers
    // 100..800: A is credited 400 ns, B only the 300 ns after A ended
    // (before: 600, so level 1 held 1000 ns of a 700 ns span). Pipelined
    // async waits read a critical-path share of 1.34 the same way.
    let info = ns_info(&[reg(0, "kernel"), reg(1, "A"), reg(2, "B")]);
    let u = unit(
        0,
        vec![
            s(0, 0),
            s(1, 100),
            s(2, 200),
            e(1, 500),
            e(2, 800),
            e(0, 1_000),
        ],
    );
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 0, vec![u])], &raw()).unwrap();
    let on_path = |n: &str| p.region_by_name(n).unwrap().critical_path_ns;
    assert_eq!(
        (on_path("kernel"), on_path("A"), on_path("B")),
        (1_000.0, 400.0, 300.0)
    );
}

#[test]
fn a_unit_recording_after_thread_0_finalized_is_not_a_corrupt_count() {
    // Warp-specialised: warp 0 (thread 0's unit) finalizes at tick 1100;
    // warp 1 writes 5000 records 20 ticks apart up to tick 100 000 into 16
    // slots. The written count was bounded by thread 0's finalize clock, so
    // it read as corrupt and the lost records' shift was dropped (a 99.9 us
    // CTA instead of 75 us). The bound is the later of the finalize clock
    // and the last record.
    let mut info = cycle_info(&[reg(0, "kernel"), reg(1, "consume")]);
    info.record_cost_ticks = Some(5.0);
    let warp0 = unit(0, vec![s(0, 100), e(0, 1_000)]);
    let all: Vec<_> = (0..5_000u64)
        .map(|i| {
            if i % 2 == 0 {
                s(1, 20 * i)
            } else {
                e(1, 20 * i)
            }
        })
        .collect();
    let mut warp1 = unit(1, all[all.len() - 16..].to_vec());
    warp1.records_written = 5_000;
    warp1.records_lost = 4_984;
    // Thread 0's header stamps: 1100 ticks over 1100 ns.
    let c = cta(0, 0, 0, 1_100, 1.0, vec![warp0, warp1]);
    let p = Profile::from_parts(info, vec![c]).unwrap();
    let r = p.report();
    assert!(
        !r.caveats.iter().any(|c| c.contains("corrupt")),
        "{:?}",
        r.caveats
    );
    let d = p.ctas()[0].duration_ns();
    assert!((74_000.0..76_000.0).contains(&d), "CTA duration {d} ns");
}

#[test]
fn overlapping_instances_in_a_unit_are_named_whatever_their_share() {
    // Two copies issued before either is waited for: the waits (CLK1 to
    // CLK2) overlap, 100..400 and 200..500, in a 10 us kernel. Their share
    // is small, and the caveat only fired past 100% (adversarial pass).
    let regions = [
        (0, "kernel", RegionKind::Kernel, None, None),
        (1, "copy", RegionKind::AsyncIssue, Some(0), None),
        (2, "copy_wait", RegionKind::AsyncWait, Some(0), Some(1)),
    ];
    let info = cycle_info(&regions);
    let recs = vec![
        s(0, 0),
        s(1, 100),
        e(1, 130),
        s(1, 200),
        e(1, 230),
        s(2, 400),
        s(2, 500),
        e(0, 10_000),
    ];
    let c = cta(0, 0, 0, 10_000, 1.0, vec![unit(0, recs)]);
    let p = Profile::from_parts_with(info, vec![c], &raw()).unwrap();
    let caveats = p.report().caveats.clone();
    let overlap: Vec<&String> = caveats
        .iter()
        .filter(|c| c.contains("instances overlap in time within a unit"))
        .collect();
    assert_eq!(overlap.len(), 1, "{caveats:?}");
    assert!(overlap[0].ends_with(": copy_wait"), "{}", overlap[0]);
}

#[test]
fn globaltimer_clocks_near_two_to_the_sixtieth_keep_every_nanosecond() {
    // %globaltimer reads Unix-epoch nanoseconds (about 1.73e18, above
    // 2^60): as f64 an absolute stamp keeps 53 bits, and durations of 50 ns
    // replayed as 0 or 256 ns, with a false overlap caveat (found by an
    // adversarial pass, 2026-11-27). Corrected and raw, every instance is
    // its 50 and 20 ns.
    let epoch = 1_732_700_000_000_000_000u64;
    let info = ns_info(&[reg(0, "A"), reg(1, "B")]);
    let mut recs = Vec::new();
    for i in 0..40u64 {
        let t = epoch + 1 + i * 100;
        recs.extend([s(0, t), e(0, t + 50), s(1, t + 60), e(1, t + 80)]);
    }
    let mut c = ns_cta(0, 0, epoch, vec![unit(0, recs)]);
    c.start_clock = epoch;
    c.finalize_clock = epoch + 5_000;
    c.finalize_start_ns = epoch + 5_000;
    c.finalize_end_ns = epoch + 5_010;
    let p = Profile::from_parts_with(info, vec![c], &raw()).unwrap();
    let durations = |id: u16| -> Vec<f64> {
        p.ctas()[0]
            .instances()
            .filter(|i| i.region.0 == id)
            .map(|i| i.end_ns - i.start_ns)
            .collect()
    };
    assert_eq!(durations(0), vec![50.0; 40]);
    assert_eq!(durations(1), vec![20.0; 40]);
    let starts: Vec<f64> = p.ctas()[0]
        .instances()
        .filter(|i| i.region.0 == 0)
        .map(|i| i.start_ns)
        .collect();
    assert_eq!(starts[1] - starts[0], 100.0);
    assert!(
        p.report().caveats.iter().all(|c| !c.contains("overlap")),
        "{:?}",
        p.report().caveats
    );
}

#[test]
fn a_region_with_no_complete_instance_has_no_durations() {
    // The kernel region's START was lost (a wrapped ring keeps only the
    // END): count 0, and its durations are null in the feedback and "—" in
    // the summary, not 0 ns a later pass reads as free (found by an
    // adversarial pass, 2026-11-27). The feedback reads back as NaN.
    let info = ns_info(&[reg(0, "kernel"), reg(1, "A")]);
    let u = unit(0, vec![s(1, 10), e(1, 30), e(0, 50)]);
    let p = Profile::from_parts_with(info, vec![ns_cta(0, 0, 1000, vec![u])], &raw()).unwrap();
    let json = p.feedback_json().unwrap();
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let kernel = doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "kernel")
        .unwrap();
    assert_eq!(kernel["count"], 0);
    for field in ["mean_ns", "p95_ns", "mean_cycles", "mean_raw_cycles"] {
        assert!(kernel[field].is_null(), "{field}: {kernel}");
    }
    let back: kperf_replay::Feedback = serde_json::from_str(&json).unwrap();
    let k = back.regions.iter().find(|r| r.name == "kernel").unwrap();
    assert!(k.mean_ns.is_nan());
    let a = back.regions.iter().find(|r| r.name == "A").unwrap();
    assert_eq!((a.count, a.mean_ns), (1, 20.0));
    let summary = p.report().render_summary();
    let row = summary.lines().find(|l| l.starts_with("kernel ")).unwrap();
    assert_eq!(row.matches('—').count(), 4, "mean, p50, p95 and max: {row}");
}

#[test]
fn cta_ids_outside_the_grid_or_repeated_get_a_caveat() {
    // A 2-CTA grid whose buffer has CTA 0 twice and CTA 4000000000: the
    // report named "slowest CTA 4000000000" and said nothing (found by an
    // adversarial pass, 2026-11-27).
    let info = ns_info(&[reg(0, "A")]);
    let mk = |id: u32| ns_cta(id, 0, 1000, vec![unit(0, vec![s(0, 10), e(0, 30)])]);
    let p = Profile::from_parts_with(info.clone(), vec![mk(0), mk(0), mk(4_000_000_000)], &raw())
        .unwrap();
    let caveats = &p.report().caveats;
    assert!(
        caveats.iter().any(|c| c.contains(
            "1 CTA block(s) name CTA ids outside the grid [2, 1, 1] (first: 4000000000)"
        )),
        "{caveats:?}"
    );
    assert!(
        caveats
            .iter()
            .any(|c| c.contains("1 CTA id(s) appear in more than one block (first: CTA 0)")),
        "{caveats:?}"
    );
    let fine = Profile::from_parts_with(info.clone(), vec![mk(0), mk(1)], &raw()).unwrap();
    assert!(
        !fine.report().caveats.iter().any(|c| c.contains("CTA id")),
        "{:?}",
        fine.report().caveats
    );
    // A grid of no CTA that recorded two: said nothing before.
    let mut empty = info;
    empty.grid = [0, 0, 0];
    let p = Profile::from_parts_with(empty, vec![mk(0), mk(1)], &raw()).unwrap();
    let caveats = &p.report().caveats;
    assert!(
        caveats.iter().any(|c| c.contains(
            "the profile's grid [0, 0, 0] holds no CTA, yet 2 CTA block(s) were recorded"
        )),
        "{caveats:?}"
    );
}

#[test]
fn sampled_ctas_are_said_to_be_a_sample() {
    // `--sample-ctas every:7` over 100000 CTAs: the totals of the 14286
    // that recorded read as the grid's, with no word (adversarial test,
    // 2026-11-27).
    let mut info = ns_info(&[reg(0, "a")]);
    info.grid = [14, 1, 1];
    info.meta.kernels[0].cta_sampling = kperf_dialects::meta::CtaSampling::Every(7);
    let ctas = vec![
        ns_cta(0, 0, 0, vec![unit(0, vec![s(0, 0), e(0, 10)])]),
        ns_cta(1, 0, 0, vec![unit(0, vec![s(0, 0), e(0, 10)])]),
    ];
    let p = Profile::from_parts_with(info.clone(), ctas.clone(), &raw()).unwrap();
    assert!(
        p.report()
            .caveats
            .iter()
            .any(|c| c.contains("every 7th of the grid's 14")),
        "{:?}",
        p.report().caveats
    );
    info.meta.kernels[0].cta_sampling = Default::default();
    let p = Profile::from_parts_with(info, ctas, &raw()).unwrap();
    assert!(!p.report().caveats.iter().any(|c| c.contains("sampled")));
}

#[test]
fn an_uncorrected_kernel_region_off_its_check_is_not_called_corrected() {
    // --no-correction: the kernel region's figure is the raw one, and the
    // caveat comparing it with the uninstrumented run said "corrected".
    let (info, ctas) = kernel_with_check(4.0);
    let p = Profile::from_parts_with(info, ctas, &raw()).unwrap();
    let off: Vec<&String> = p
        .report()
        .caveats
        .iter()
        .filter(|c| c.contains("off the same launch run uninstrumented"))
        .collect();
    assert!(!off.is_empty(), "{:?}", p.report().caveats);
    assert!(
        off.iter()
            .all(|c| c.contains("the uncorrected `kernel` region")),
        "{off:?}"
    );
    let text = p.report().render_summary();
    assert!(
        text.contains("check: `kernel` uncorrected 130 ticks"),
        "{text}"
    );
}

#[test]
fn a_wait_after_a_wait_is_exposed_from_the_first_wait_on() {
    // A two-stage pipeline drained by two waits (adversarial test,
    // 2026-11-27): issues at 10..20 and 30..40, waits return at 540 and
    // 940. The unit is blocked 500 ticks in the first wait and 400 in the
    // second; the second was measured from the last issue END (40), 900,
    // counting the first wait's 500 again.
    let regions = [
        (1, "copy", RegionKind::AsyncIssue, None, None),
        (2, "copy_wait", RegionKind::AsyncWait, None, Some(1)),
    ];
    let info = cycle_info(&regions);
    let recs = vec![s(1, 10), e(1, 20), s(1, 30), e(1, 40), s(2, 540), s(2, 940)];
    let c = cta(0, 0, 0, 1000, 1.0, vec![unit(0, recs)]);
    let p = Profile::from_parts_with(info, vec![c], &raw()).unwrap();
    let exposed: Vec<_> = p.ctas()[0]
        .async_waits
        .iter()
        .map(|w| w.exposed_raw_ticks)
        .collect();
    assert_eq!(exposed, vec![Some(500), Some(400)]);
    let st = &p.report().async_waits[0];
    // Blocked 900 of the waits' 530 + 910 ticks in flight.
    assert!(
        (st.exposed_fraction - 900.0 / 1440.0).abs() < 1e-9,
        "{st:?}"
    );
}

#[test]
fn a_report_lists_the_largest_overlapping_pairs() {
    // Two units each nesting 101 distinct regions: every pair across
    // units overlaps (20402 pairs). 2000 levels made a 728 MB report
    // (adversarial test, 2026-11-27); the largest are listed, with a word.
    let names: Vec<&'static str> = (0..202)
        .map(|i| &*Box::leak(format!("r{i}").into_boxed_str()))
        .collect();
    let regs: Vec<Reg> = (0..202u16).map(|i| reg(i, names[i as usize])).collect();
    let info = ns_info(&regs);
    let nest = |first: u16| {
        let mut r: Vec<_> = (0..101u16).map(|k| s(first + k, u64::from(k))).collect();
        r.extend((0..101u16).rev().map(|k| e(first + k, 500 - u64::from(k))));
        r
    };
    let c = ns_cta(0, 0, 0, vec![unit(0, nest(0)), unit(1, nest(101))]);
    let p = Profile::from_parts_with(info, vec![c], &raw()).unwrap();
    let r = p.report();
    assert_eq!(r.overlaps.len(), kperf_replay::analyze::OVERLAPS_LISTED);
    assert!(
        r.overlaps
            .windows(2)
            .all(|w| w[0].overlap_ns >= w[1].overlap_ns),
        "largest first"
    );
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("20402 pairs of regions overlap across units")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn a_unit_that_outlives_thread_0_is_not_called_corrupt() {
    // Warp 0 returns at once (its finalize closes the CTA's timer span at
    // 1 µs); warp 1 works for 500 µs. Finalize has no barrier, so that is
    // a legitimate profile (tests/simt: a kernel whose warp 0 returns
    // early drew "their record count or clocks are not what the kernel
    // wrote", s10h1 2026-11-28). Where the launch is known to have taken
    // 2 µs, the same span is impossible and is called corrupt.
    let info = ns_info(&[(0, "kernel", RegionKind::Kernel, None, None)]);
    let units = vec![
        unit(0, vec![s(0, 0), e(0, 500)]),
        unit(1, vec![s(0, 0), e(0, 500_000)]),
    ];
    let p = Profile::from_parts(info.clone(), vec![ns_cta(0, 0, 0, units.clone())]).unwrap();
    let r = p.report();
    assert!(
        r.caveats.iter().any(
            |c| c.contains("1 units recorded for longer than thread 0 lived")
                && c.contains("CTA 0 unit 1")
        ),
        "{:?}",
        r.caveats
    );
    assert!(!r
        .caveats
        .iter()
        .any(|c| c.contains("not what the kernel wrote")));

    let mut timed = info;
    timed.check = Some(kperf_runtime::profile::UninstrumentedRun {
        profiled_wall_ns: Some(2_000),
        ..timed_by_hand(1, 1_000.0, 1_000)
    });
    let p = Profile::from_parts(timed, vec![ns_cta(0, 0, 0, units)]).unwrap();
    let r = p.report();
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("not what the kernel wrote") && c.contains("CTA 0 unit 1")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn instances_corrected_to_zero_are_named_without_a_trace() {
    // An iteration of 5 raw ticks under a 10-tick record cost corrects to
    // exactly 0. The report says so whether or not a trace is written:
    // the caveat came from the trace writer, so Python's profiles (no
    // trace) and `kperf replay --json` disagreed (s10h2, 2026-11-28).
    let mut info = kernel_loop_info();
    info.record_cost_ticks = Some(10.0);
    let recs = vec![s(0, 0), s(1, 100), e(1, 105), e(0, 300)];
    let p = Profile::from_parts(info, vec![ns_cta(0, 0, 0, vec![unit(0, recs)])]).unwrap();
    let r = p.report();
    assert!(
        r.caveats
            .iter()
            .any(|c| c.starts_with("1 region instance corrected to exactly 0")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn a_corrupt_header_stamp_moves_no_cta_and_is_named() {
    // Two CTAs of 1 µs, 10 µs apart: a wall span of 11 µs. One stamp of
    // CTA 1 corrupt: its init timer 1 ms early, or its finalize clock
    // 1 ms late. Either made the wall span about a millisecond, with no
    // caveat for short CTAs (s10h4, 2026-11-28); the CTA is now placed
    // without the stamp and named.
    let info = ns_info(&[(0, "kernel", RegionKind::Kernel, None, None)]);
    let make = || {
        vec![
            ns_cta(0, 0, 2_000_000, vec![unit(0, vec![s(0, 100), e(0, 900)])]),
            ns_cta(1, 1, 2_010_000, vec![unit(0, vec![s(0, 100), e(0, 900)])]),
        ]
    };
    let span = |ctas: Vec<kperf_runtime::profile::CtaTrace>| {
        let p = Profile::from_parts(info.clone(), ctas).unwrap();
        let r = p.report();
        (r.kernel_time.wall_span_ns, r.caveats.clone())
    };
    let (base, caveats) = span(make());
    assert!((10_000.0..12_000.0).contains(&base), "{base}");
    assert!(
        !caveats.iter().any(|c| c.contains("disagree")),
        "{caveats:?}"
    );

    let mut early_timer = make();
    early_timer[1].start_time_ns -= 1_000_000;
    let mut late_clock = make();
    late_clock[1].finalize_clock += 1_000_000;
    for (what, ctas) in [("init timer", early_timer), ("finalize clock", late_clock)] {
        let (wall, caveats) = span(ctas);
        assert!((wall - base).abs() < 1_000.0, "{what}: {wall} vs {base}");
        assert!(
            caveats
                .iter()
                .any(|c| c.starts_with("1 CTAs have header stamps that disagree (first: CTA 1")),
            "{what}: {caveats:?}"
        );
    }
}

#[test]
fn a_zero_start_stamp_among_epoch_stamps_moves_nothing() {
    // A global timer counting from the epoch (1.732e18 ns) and one CTA
    // whose init stamp is 0: the time origin became 0, every other CTA sat
    // 1.7e18 ns from it, where a double resolves 256 ns, so 175 ns regions
    // read 256 ns and the wall span 55 years (adversarial pass,
    // 2026-11-28). The bad stamp is not the origin; the CTA is placed by
    // its finalize stamp and said to be.
    const EPOCH: u64 = 1_732_000_000_000_000_000;
    let regions = [(0, "r", RegionKind::Explicit, None, None)];
    let mut info = cycle_info(&regions);
    info.ticks_per_ns = Some(2.0);
    info.grid = [4, 1, 1];
    let ctas: Vec<_> = (0..4u32)
        .map(|c| {
            let start = EPOCH + 10_000 * u64::from(c);
            let mut t = cta(
                c,
                c,
                start,
                2_000,
                2.0,
                vec![unit(0, vec![s(0, 100), e(0, 450)])],
            );
            if c == 0 {
                t.start_time_ns = 0;
            }
            t
        })
        .collect();
    let p = Profile::from_parts(info, ctas).unwrap();
    let r = p.report().clone();
    let region = &r.regions[0];
    assert_eq!((region.p50_ns, region.max_ns), (175.0, 175.0), "{region:?}");
    assert!(r.kernel_time.wall_span_ns < 50_000.0, "{:?}", r.kernel_time);
    // Placed by its finalize stamp, CTA 0's region is the earliest on the
    // axis, and the axis starts there (it sat at -1950 ns, which Perfetto
    // traces clamped to 0).
    let starts: Vec<f64> = p.instances(RegionId(0)).map(|i| i.start_ns).collect();
    assert_eq!(
        starts.iter().copied().fold(f64::MAX, f64::min),
        0.0,
        "{starts:?}"
    );
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("header stamps that disagree (first: CTA 0")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn the_stall_guard_samples_the_whole_grid_not_its_first_ctas() {
    // The fit's samples were the first units of the grid: here the light
    // ones, whose median read -50% against the check's median CTA, so the
    // stall guard saw no stall and the fit spread CTA 600's stall over
    // every record. Sampled over the whole grid, the median matches.
    // The heavy CTAs' bodies are longer, or (the second time) they hold
    // twice the records: sized by the first CTA, no heavy unit fitted in a
    // sampled block's room, and the median was the light CTAs' again.
    for heavy_by_iterations in [false, true] {
        let (info, ctas) = imbalanced_grid_with_a_stall(heavy_by_iterations);
        let r = Profile::from_parts(info, ctas).unwrap().report().clone();
        let fit = r.correction.fit.as_ref().unwrap();
        assert_eq!(fit.calibrated_median_error, Some(0.0), "{fit:?}");
        assert!(fit.outlier_driven() && !fit.applied, "{fit:?}");
        assert_eq!(r.correction.source, CostSource::Calibrated);
    }
    let (info, ctas) = imbalanced_grid_with_a_stall(false);
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let iter = r.regions.iter().find(|r| r.name == "iter").unwrap();
    // p50 from the quantile sketch: within its relative error.
    assert!(
        (iter.p50_ns / 40.0 - 1.0).abs() < 1e-3,
        "the iterations keep their time: {}",
        iter.p50_ns
    );
}

#[test]
fn a_cost_error_in_one_unit_of_many_records_is_fitted_not_called_a_stall() {
    // 512 CTAs: CTA 300 loops 20000 times over 10 ticks, the rest twice
    // over 500; records cost 6, calibrated 4. The mean reads +12% (CTA
    // 300's 40000 records), the median +1% (6 records): the stall guard
    // called it a preempted CTA and kept 4, iterations at 12 ns against
    // 10. The fitted cost keeps the median too, so it is fitted.
    let (info, ctas) = loop_grid(
        512,
        |c| if c == 300 { 20_000 } else { 2 },
        |c| if c == 300 { 10 } else { 500 },
        6,
        None,
    );
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let fit = r.correction.fit.as_ref().unwrap();
    assert!(fit.applied && !fit.outlier_driven(), "{fit:?}");
    assert!((fit.fitted_cost_ticks - 6.0).abs() < 0.01, "{fit:?}");
    let iter = r.regions.iter().find(|r| r.name == "iter").unwrap();
    assert!((iter.p50_ns / 10.0 - 1.0).abs() < 1e-2, "{}", iter.p50_ns);
}

#[test]
fn one_stall_on_a_grid_of_two_halves_is_still_a_stall() {
    // 1024 CTAs of 99 iterations, the even ones of 40 ticks, the odd of 20;
    // an odd CTA stalled 1 ms. The nearest-rank median of the check is the
    // last light CTA; with the stall one light CTA fewer sits below it, so
    // the profile's nearest rank was a heavy one (+100%), the guard saw no
    // stall and fitted it into every record. A band of ranks finds it.
    let (info, ctas) = loop_grid(
        1024,
        |_| 99,
        |c| if c % 2 == 0 { 40 } else { 20 },
        4,
        Some((501, 1_000_000)),
    );
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let fit = r.correction.fit.as_ref().unwrap();
    assert_eq!(fit.calibrated_median_error, Some(0.0), "{fit:?}");
    assert!(fit.outlier_driven() && !fit.applied, "{fit:?}");
    assert!(
        r.caveats
            .iter()
            .any(|c| c.contains("a few instances ran far longer than the rest")),
        "{:?}",
        r.caveats
    );
}

#[test]
fn a_stall_beside_a_unit_of_many_records_is_still_a_stall() {
    // 1024 CTAs: CTA 500 loops 20000 times over 10 ticks, the rest twice
    // over 1000; records cost the calibrated 4; CTA 7 stalled 200 us. The
    // mean reads +8.9%, the median +0.0%. Spread over every record, the
    // stall fits 8.5 ticks a record, which moves the 6-record median unit
    // only -1.1%: within the tolerance, a first rule fitted it, and CTA
    // 500's iterations read 0.9 ns against 10. The fit must bring the
    // median closer to the check; this one moves it away.
    let (info, ctas) = loop_grid(
        1024,
        |c| if c == 500 { 20_000 } else { 2 },
        |c| if c == 500 { 10 } else { 1000 },
        4,
        Some((7, 200_000)),
    );
    let r = Profile::from_parts(info, ctas).unwrap().report().clone();
    let fit = r.correction.fit.as_ref().unwrap();
    assert_eq!(fit.calibrated_median_error, Some(0.0), "{fit:?}");
    assert!(fit.outlier_driven() && !fit.applied, "{fit:?}");
    assert_eq!(r.correction.source, CostSource::Calibrated);
}
