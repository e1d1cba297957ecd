//! The Chrome trace: a golden file for one small scenario, and structural
//! checks that hold for any trace.
//!
//! `KPERF_BLESS=1 cargo test -p kperf-replay --test chrome_trace` rewrites
//! the golden file; review the diff before committing it.

mod common;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use common::*;
use kperf_replay::chrome::{ZeroLength, TIME_QUANTUM_US};
use kperf_replay::{replay_ctas, ReplayOptions, ReplayReport, TraceGrouping};
use kperf_runtime::profile::{CtaTrace, RunInfo};
use serde_json::Value;

/// Two SMs, three CTAs: overlapping scopes (extra row), nesting, a loop; 1.5
/// ticks/ns and a 0.5-tick record cost, so times need quantising.
fn scenario() -> (RunInfo, Vec<CtaTrace>) {
    let mut info = cycle_info(&[
        reg(0, "a"),
        reg(1, "b \"quoted\""),
        reg(2, "c"),
        reg(3, "loop"),
    ]);
    info.record_cost_ticks = Some(0.5);
    info.grid = [3, 1, 1];
    let seq = || {
        unit(
            0,
            vec![s(0, 0), s(1, 10), s(2, 20), e(1, 30), e(0, 40), e(2, 50)],
        )
    };
    let nested = || {
        unit(
            1,
            vec![s(3, 5), s(1, 15), e(1, 25), s(1, 35), e(1, 46), e(3, 60)],
        )
    };
    let ctas = vec![
        cta(0, 3, 1_000, 100, 1.5, vec![seq(), nested()]),
        cta(1, 5, 1_020, 100, 1.5, vec![seq(), nested()]),
        cta(2, 3, 1_100, 100, 1.5, vec![nested()]),
    ];
    (info, ctas)
}

fn write_trace(grouping: TraceGrouping) -> String {
    let (info, ctas) = scenario();
    write_trace_of(&info, &ctas, grouping).1
}

/// Replay `ctas` writing a trace; the report and the trace's text.
fn write_trace_of(
    info: &RunInfo,
    ctas: &[CtaTrace],
    grouping: TraceGrouping,
) -> (ReplayReport, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trace.json");
    let opts = ReplayOptions {
        trace_grouping: grouping,
        ..Default::default()
    };
    let report = replay_ctas(info, &opts, || Ok(ctas.iter().cloned().map(Ok)), Some(&out)).unwrap();
    (report, std::fs::read_to_string(&out).unwrap())
}

/// One X event as a browser sees it (f64 µs).
#[derive(Clone, Debug)]
struct Event {
    name: String,
    /// What speedscope tells events apart by: the name and the args' JSON.
    key: String,
    ts: f64,
    dur: f64,
    /// `ts + dur` in f64, as viewers compute it.
    end: f64,
}

/// Structural checks every trace must pass; returns X events per thread name.
fn validate(text: &str) -> BTreeMap<String, Vec<Event>> {
    let v: Value = serde_json::from_str(text).expect("the trace is valid JSON");
    assert_eq!(v["displayTimeUnit"], "ns");
    assert_eq!(
        v["otherData"]["time_quantum_us"].as_f64(),
        Some(TIME_QUANTUM_US)
    );
    let zero = &v["otherData"]["zero_length_events"];
    let corrected_to_zero = &v["otherData"]["zero_length_events_corrected_to_zero"];
    assert!(corrected_to_zero.as_u64().unwrap() <= zero.as_u64().unwrap());
    let events = v["traceEvents"].as_array().unwrap();
    let mut process_names = BTreeMap::new();
    let mut thread_names = BTreeMap::new();
    let mut sorted = BTreeSet::new();
    for e in events.iter().filter(|e| e["ph"] == "M") {
        let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        match e["name"].as_str().unwrap() {
            "process_name" => assert!(process_names
                .insert(key.0, e["args"]["name"].clone())
                .is_none()),
            "thread_name" => assert!(thread_names
                .insert(key, e["args"]["name"].as_str().unwrap().to_string())
                .is_none()),
            "process_sort_index" | "thread_sort_index" => {
                assert!(e["args"]["sort_index"].is_u64());
                sorted.insert((e["name"].as_str().unwrap().to_string(), key));
            }
            other => panic!("unexpected metadata {other}"),
        }
    }
    let mut by_thread: BTreeMap<String, Vec<Event>> = BTreeMap::new();
    for e in events.iter().filter(|e| e["ph"] == "X") {
        let (pid, tid) = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
        assert!(
            process_names.contains_key(&pid),
            "pid {pid} has no process_name"
        );
        assert!(sorted.contains(&("process_sort_index".to_string(), (pid, 0))));
        let thread = thread_names
            .get(&(pid, tid))
            .unwrap_or_else(|| panic!("tid {tid} has no thread_name"));
        assert!(sorted.contains(&("thread_sort_index".to_string(), (pid, tid))));
        let a = &e["args"];
        for k in ["region_id", "iteration", "raw_cycles", "cta", "unit"] {
            assert!(a[k].is_u64(), "{k} in {e}");
        }
        assert!(a["corrected_cycles"].is_number());
        assert!(a["corrected_cycles"].as_f64().unwrap() <= a["raw_cycles"].as_f64().unwrap());
        let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
        // Zero lengths only on the rows made for them.
        let zero_row = thread.ends_with("(zero length)");
        assert!(
            ts >= 0.0 && (dur > 0.0 || (dur == 0.0 && zero_row)),
            "zero or negative length outside a zero-length row: {e}"
        );
        assert!(!zero_row || dur == 0.0, "a zero-length row holds {e}");
        // Whole time steps (dyadic), so the sums below are exact.
        for t in [ts, dur] {
            assert_eq!((t / TIME_QUANTUM_US).fract(), 0.0, "{t} in {e}");
        }
        let name = e["name"].as_str().unwrap().to_string();
        by_thread.entry(thread.clone()).or_default().push(Event {
            key: format!("{name} {}", e["args"]),
            name,
            ts,
            dur,
            end: ts + dur,
        });
    }
    // Zero-length rows are for Perfetto, which draws such events as
    // instants; nesting and speedscope's import do not apply to them.
    for (thread, evs) in by_thread
        .iter()
        .filter(|(t, _)| !t.ends_with("(zero length)"))
    {
        assert_nest_or_disjoint(thread, evs);
        // speedscope first moves each thread to start at 0: (ts - min) + dur.
        let min = evs.iter().map(|e| e.ts).fold(f64::INFINITY, f64::min);
        let moved: Vec<Event> = evs
            .iter()
            .map(|e| Event {
                ts: e.ts - min,
                end: (e.ts - min) + e.dur,
                ..e.clone()
            })
            .collect();
        assert_nest_or_disjoint(thread, &moved);
        let warnings = speedscope_import_warnings(&moved);
        assert!(
            warnings.is_empty(),
            "{thread}: speedscope would warn {} times, first: {}",
            warnings.len(),
            warnings[0]
        );
    }
    by_thread
}

/// speedscope 1.25's import of one thread's X events (`importTraceEvents`:
/// X events sorted by ts, then longest first, split into begin and end
/// queues sorted stably by time; at equal times ends go first unless the
/// same event; an end is matched to the top of the stack among the ends at
/// its time by key, else by name), returning the warnings it would log.
/// `evs` have been moved to start at 0, as speedscope does.
fn speedscope_import_warnings(evs: &[Event]) -> Vec<String> {
    let mut x: Vec<&Event> = evs.iter().collect();
    x.sort_by(|a, b| a.ts.total_cmp(&b.ts).then(b.dur.total_cmp(&a.dur)));
    let mut begins: VecDeque<(f64, &Event)> = x.iter().map(|e| (e.ts, *e)).collect();
    let mut ends: Vec<(f64, &Event)> = x.iter().map(|e| (e.ts + e.dur, *e)).collect();
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut ends: VecDeque<(f64, &Event)> = ends.into();
    let mut stack: Vec<&Event> = Vec::new();
    let mut warnings = Vec::new();
    while !begins.is_empty() || !ends.is_empty() {
        let begin = match (begins.front(), ends.front()) {
            (_, None) => true,
            (None, _) => false,
            (Some(b), Some(e)) => b.0 < e.0 || (b.0 == e.0 && b.1.key == e.1.key),
        };
        if begin {
            stack.push(begins.pop_front().unwrap().1);
            continue;
        }
        if let Some(top) = stack.last() {
            let t0 = ends[0].0;
            let same_time = |u: usize| ends[u].0 <= t0;
            let by_key = (1..ends.len())
                .take_while(|&u| same_time(u))
                .find(|&u| ends[u].1.key == top.key);
            let by_name = || {
                (1..ends.len())
                    .take_while(|&u| same_time(u))
                    .find(|&u| ends[u].1.name == top.name)
            };
            if let Some(u) = by_key.or_else(by_name) {
                ends.swap(0, u);
            }
        }
        let (t, end) = ends.pop_front().unwrap();
        match stack.last() {
            None => warnings.push(format!("ts={t}: ended {} on an empty stack", end.key)),
            Some(top) if top.name != end.name => {
                warnings.push(format!("ts={t}: ended {} with {} on top", end.key, top.key))
            }
            Some(top) => {
                if top.key != end.key {
                    warnings.push(format!("ts={t}: ended {} with {} on top", end.key, top.key));
                }
                stack.pop();
            }
        }
    }
    warnings.extend(
        stack
            .iter()
            .map(|e| format!("{} still open at the end", e.key)),
    );
    warnings
}

/// On one thread, events either nest or are disjoint (touching counts as
/// disjoint), compared as the f64 a viewer computes: nothing is drawn over.
fn assert_nest_or_disjoint(thread: &str, evs: &[Event]) {
    for (i, a) in evs.iter().enumerate() {
        for b in &evs[i + 1..] {
            let disjoint = a.end <= b.ts || b.end <= a.ts;
            let nested = (a.ts <= b.ts && b.end <= a.end) || (b.ts <= a.ts && a.end <= b.end);
            assert!(
                disjoint || nested,
                "{thread}: {a:?} and {b:?} overlap without nesting"
            );
        }
    }
}

#[test]
fn golden_chrome_trace_per_sm() {
    let text = write_trace(TraceGrouping::Sm);
    let threads = validate(&text);
    check_golden("small_per_sm.json", &text);
    // The seq pattern needs a second row; the nested unit does not.
    let names: Vec<&str> = threads.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "CTA 0 warp 0",
            "CTA 0 warp 0 (row 1)",
            "CTA 0 warp 1",
            "CTA 1 warp 0",
            "CTA 1 warp 0 (row 1)",
            "CTA 1 warp 1",
            "CTA 2 warp 1"
        ]
    );
    assert_eq!(
        threads["CTA 0 warp 0 (row 1)"]
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>(),
        ["c"]
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let procs: Vec<&str> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(procs, ["SM 3", "SM 5"]);
    assert_eq!(v["otherData"]["kernel"], "k");
}

#[test]
fn golden_chrome_trace_per_cta() {
    let text = write_trace(TraceGrouping::Cta);
    validate(&text);
    check_golden("small_per_cta.json", &text);
    let v: Value = serde_json::from_str(&text).unwrap();
    let procs: Vec<&str> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(procs, ["CTA 0 (SM 3)", "CTA 1 (SM 5)", "CTA 2 (SM 3)"]);
}

#[test]
fn trace_times_are_exact_binary_fractions_of_a_microsecond() {
    let text = write_trace(TraceGrouping::Sm);
    let v: Value = serde_json::from_str(&text).unwrap();
    // CTA 1 starts 20 ns after CTA 0; its region b starts at tick 10, the
    // second record (moved 0.5 ticks): 20 + 9.5 / 1.5 = 26.333 ns. It spans
    // 20 ticks with one record inside: 20 - 2 * 0.5 = 19 ticks = 12.667 ns,
    // so it ends at 39 ns. In steps of 2^-12 us (0.244 ns): start 107.86 ->
    // 108, end 159.74 -> 160, so ts 108 / 4096 us and dur 52 / 4096 us.
    let b = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["ph"] == "X"
                && e["args"]["cta"] == 1
                && e["args"]["region_id"] == 1
                && e["args"]["unit"] == 0
        })
        .unwrap()
        .clone();
    assert_eq!(b["name"], "b \"quoted\"");
    assert_eq!(
        (b["ts"].as_f64(), b["dur"].as_f64()),
        (Some(108.0 / 4096.0), Some(52.0 / 4096.0))
    );
    assert_eq!(
        (
            b["args"]["raw_cycles"].as_u64(),
            b["args"]["corrected_cycles"].as_f64()
        ),
        (Some(20), Some(19.0))
    );
    assert!(text.contains("\"ts\":0.0263671875,\"dur\":0.0126953125,"));
    assert_eq!(v["otherData"]["zero_length_events"], 0);
}

/// A loop of back-to-back iterations over a few µs (each END one tick
/// before the next START, which after correction is 0.06 ns: mostly the same
/// time step) with sub-ns bodies: `tiny`, 1 tick minus the 0.9-tick record
/// cost (0.06 ns, mostly below one step), `short`, 2 ticks (0.65 ns, a few
/// steps), and `empty`, START and END at the same tick (nothing left after
/// correction). Records are at least a tick apart, so the corrected timeline
/// keeps their order and everything nests. At 1.7 ticks/ns the corrected
/// times are arbitrary fractions of a ns, as on real hardware.
fn sub_ns_scenario() -> (RunInfo, Vec<CtaTrace>) {
    let mut info = cycle_info(&[
        reg(0, "kernel"),
        reg(1, "loop"),
        reg(2, "tiny"),
        reg(3, "empty"),
        reg(4, "short"),
    ]);
    info.record_cost_ticks = Some(0.9);
    let body = |phase: u64| {
        let mut r = vec![s(0, phase)];
        for i in 0..150u64 {
            let t = 1 + phase + i * 47;
            r.extend([
                s(1, t),
                s(2, t + 1),
                e(2, t + 2),
                s(3, t + 3),
                e(3, t + 3),
                s(4, t + 9),
                e(4, t + 11),
                e(1, t + 46),
            ]);
        }
        r.push(e(0, phase + 150 * 47 + 1));
        r
    };
    let ctas = (0..3u32)
        .map(|c| {
            let units = (0..2u32)
                .map(|u| unit(u, body(u64::from(3 * c + u))))
                .collect();
            cta(c, c % 2, 1_000 + 2_023 * u64::from(c), 6_000, 1.7, units)
        })
        .collect();
    (info, ctas)
}

#[test]
fn back_to_back_and_sub_ns_regions_nest_exactly_in_f64() {
    let (info, ctas) = sub_ns_scenario();
    let (report, text) = write_trace_of(&info, &ctas, TraceGrouping::Cta);
    // Zero durations only on their own rows; every thread nests or is
    // disjoint with ts + dur in f64.
    let threads = validate(&text);
    // Nesting needs no extra rows: one thread per unit, and one row per unit
    // for its zero-length instances.
    assert_eq!(
        threads.len(),
        12,
        "{:?}",
        threads.keys().collect::<Vec<_>>()
    );
    assert!(threads.keys().all(|t| !t.contains("(row")));
    let v: Value = serde_json::from_str(&text).unwrap();
    let written: u64 = threads.values().map(|e| e.len() as u64).sum();
    let zero = v["otherData"]["zero_length_events"].as_u64().unwrap();
    assert_eq!(written, report.totals.instances, "every instance is drawn");
    let on_zero_rows: u64 = threads
        .iter()
        .filter(|(t, _)| t.ends_with("(zero length)"))
        .map(|(_, e)| e.len() as u64)
        .sum();
    assert_eq!(on_zero_rows, zero);
    // Every "empty" instance is on a zero-length row, every "short" one
    // drawn with its length, and the loop iterations, back to back, are all
    // there.
    let count = |name: &str| {
        threads
            .values()
            .flatten()
            .filter(|e| e.name == name)
            .count()
    };
    assert_eq!(count("empty"), 6 * 150);
    assert_eq!(count("short"), 6 * 150);
    assert_eq!(count("loop"), 6 * 150);
    assert_eq!(count("kernel"), 6);
    assert!(zero >= 6 * 150, "{zero}");
    // Consecutive iterations touch exactly (END and the next START are the
    // same tick, moved by the same cost difference) or leave a gap.
    for evs in threads.values() {
        let loops: Vec<&Event> = evs.iter().filter(|e| e.name == "loop").collect();
        assert!(loops.windows(2).all(|w| w[0].end <= w[1].ts));
        assert!(loops.windows(2).any(|w| w[0].end == w[1].ts) || loops.len() < 2);
    }
    // The count is in the trace's metadata and caveats.
    // Every "empty" instance (START and END at one tick) is corrected to 0.
    let corrected_to_zero = v["otherData"]["zero_length_events_corrected_to_zero"]
        .as_u64()
        .unwrap();
    assert_eq!(corrected_to_zero, 6 * 150);
    let caveat = ZeroLength {
        events: zero,
        corrected_to_zero,
    }
    .caveat()
    .unwrap();
    // The report is the same with or without a trace: how the trace draws
    // zero-length instances is the trace's note only.
    assert!(!report.caveats.contains(&caveat), "{:?}", report.caveats);
    assert!(v["otherData"]["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c == caveat.as_str()));
}

#[test]
fn proton_style_events_of_a_unit_are_all_present() {
    let text = write_trace(TraceGrouping::Sm);
    let threads = validate(&text);
    let total: usize = threads.values().map(Vec::len).sum();
    // 2 CTAs × (3 seq + 3 nested) + 1 CTA × 3 nested.
    assert_eq!(total, 15);
}

fn ev(name: &str, ts: f64, dur: f64) -> Event {
    Event {
        name: name.into(),
        key: format!("{name} {ts} {dur}"),
        ts,
        dur,
        end: ts + dur,
    }
}

#[test]
fn the_speedscope_port_sees_the_known_failures() {
    // Nested, touching, equal starts and ends, distinct names: no warning.
    let good = [
        ev("k", 0.0, 10.0),
        ev("a", 0.0, 4.0),
        ev("b", 0.0, 4.0),
        ev("a", 4.0, 6.0),
        ev("c", 5.0, 5.0),
    ];
    assert_eq!(speedscope_import_warnings(&good), Vec::<String>::new());
    // A zero-length event starting with a sibling is ended before it begins
    // and stays open (the staircase).
    let zero = [ev("p", 0.0, 10.0), ev("s", 2.0, 3.0), ev("z", 2.0, 0.0)];
    assert!(!speedscope_import_warnings(&zero).is_empty());
    // 2.023 + 0.135 = 2.1580000000000004 in f64: past the next sibling's start.
    let decimal = [
        ev("p", 0.0, 10.0),
        ev("a", 2.023, 0.135),
        ev("b", 2.158, 1.0),
    ];
    assert!(decimal[1].end > decimal[2].ts);
    assert!(!speedscope_import_warnings(&decimal).is_empty());
    // Three nested events of one name ending together are ended out of order.
    let same = [ev("x", 0.0, 10.0), ev("x", 1.0, 9.0), ev("x", 2.0, 8.0)];
    assert!(!speedscope_import_warnings(&same).is_empty());
}

/// Overhead correction larger than the gaps between records, as on the host
/// demo: the corrected timeline folds back, and instances of one region
/// overlap, nest in one another or coincide (the inner loop's bodies are
/// 25-27 ticks with a 24.9-tick record cost, its gaps 1-3 ticks).
fn over_corrected_scenario() -> (RunInfo, Vec<CtaTrace>) {
    let mut info = cycle_info(&[reg(0, "kernel"), reg(1, "outer"), reg(2, "inner")]);
    info.record_cost_ticks = Some(24.9);
    let mut seed = 12345u64;
    let mut rand = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut records = || {
        let mut r = vec![s(0, 0)];
        let mut t = 500;
        for _ in 0..12 {
            r.push(s(1, t));
            t += 2 + rand(30);
            for _ in 0..16 {
                r.push(s(2, t));
                t += 25 + rand(3);
                r.push(e(2, t));
                t += 1 + rand(3);
            }
            // Enough work after the inner loop to move the corrected time forward.
            t += 380 + rand(40);
            r.push(e(1, t));
        }
        r.push(e(0, t + 1));
        r
    };
    let ctas = (0..2)
        .map(|c| {
            let units = (0..4).map(|u| unit(u, records())).collect();
            cta(c, c, 1_000, 4_000, 2.6, units)
        })
        .collect();
    (info, ctas)
}

#[test]
fn over_corrected_instances_stay_in_program_order() {
    let (info, ctas) = over_corrected_scenario();
    let (_, text) = write_trace_of(&info, &ctas, TraceGrouping::Sm);
    // Includes the speedscope import: it would warn without the rule.
    let threads = validate(&text);
    // On a thread, events of one name never overlap, not even nested ...
    for (t, evs) in &threads {
        for (i, a) in evs.iter().enumerate() {
            for b in &evs[i + 1..] {
                let overlap = a.ts < b.end && b.ts < a.end;
                assert!(!(overlap && a.name == b.name), "{t}: {a:?} {b:?}");
            }
        }
    }
    // Corrected record times never run backwards along a unit, so even this
    // heavily over-corrected unit keeps its instances in program order: each
    // `inner` instance (zero-length ones included) starts no earlier than the
    // previous one ended.
    let profile = kperf_replay::Profile::from_parts(info.clone(), ctas.clone()).expect("replay");
    let inner = profile.region_by_name("inner").expect("inner region").id;
    // (cta, unit) → [(instance, start ns, end ns)]
    type Spans = Vec<(u32, f64, f64)>;
    let mut by_unit: BTreeMap<(u32, u32), Spans> = BTreeMap::new();
    for i in profile.instances(inner) {
        by_unit
            .entry((i.cta, i.unit))
            .or_default()
            .push((i.instance, i.start_ns, i.end_ns));
    }
    assert_eq!(by_unit.len(), 8);
    for (unit, mut v) in by_unit {
        v.sort_by_key(|x| x.0);
        assert_eq!(v.len(), 12 * 16, "{unit:?}");
        for w in v.windows(2) {
            assert!(
                w[1].1 >= w[0].2 - 1e-9,
                "{unit:?}: instance {} starts before {} ended",
                w[1].0,
                w[0].0
            );
        }
    }
}
