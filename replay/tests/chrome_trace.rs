//! The Chrome trace: a golden file for one small scenario, and structural
//! checks that hold for any trace.
//!
//! `KPERF_BLESS=1 cargo test -p kperf-replay --test chrome_trace` rewrites
//! the golden file; review the diff before committing it.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::*;
use kperf_replay::{replay_ctas, ReplayOptions, TraceGrouping};
use kperf_runtime::profile::{CtaTrace, RunInfo};
use serde_json::Value;

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Two SMs, three CTAs: overlapping scopes (extra row), nesting, a loop; 1.5
/// ticks/ns and a 0.5-tick record cost, so times need rounding to whole ns.
fn scenario() -> (RunInfo, Vec<CtaTrace>) {
    let mut info = cycle_info(&[
        reg(0, "a"),
        reg(1, "b \"quoted\""),
        reg(2, "c"),
        reg(3, "loop"),
    ]);
    info.record_cost_ticks = Some(0.5);
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
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trace.json");
    let opts = ReplayOptions {
        trace_grouping: grouping,
        ..Default::default()
    };
    replay_ctas(
        &info,
        &opts,
        || Ok(ctas.clone().into_iter().map(Ok)),
        Some(&out),
    )
    .unwrap();
    std::fs::read_to_string(&out).unwrap()
}

fn check_golden(name: &str, text: &str) {
    let path = golden_path(name);
    if std::env::var_os("KPERF_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run with KPERF_BLESS=1 to create it",
            path.display()
        )
    });
    if want != text {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{} differs from the trace written (first difference at line {}):\n  want: {}\n  got:  {}\n\
             rerun with KPERF_BLESS=1 if the change is deliberate",
            path.display(),
            line + 1,
            want.lines().nth(line).unwrap_or("<eof>"),
            text.lines().nth(line).unwrap_or("<eof>")
        );
    }
}

/// ts/dur in whole ns (they are written with three decimals in µs).
fn ns(v: &Value) -> i64 {
    (v.as_f64().unwrap() * 1000.0).round() as i64
}

/// Structural checks every trace must pass; returns X events per thread name.
fn validate(text: &str) -> BTreeMap<String, Vec<(String, i64, i64)>> {
    let v: Value = serde_json::from_str(text).expect("the trace is valid JSON");
    assert_eq!(v["displayTimeUnit"], "ns");
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
    let mut by_thread: BTreeMap<String, Vec<(String, i64, i64)>> = BTreeMap::new();
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
        let (ts, dur) = (ns(&e["ts"]), ns(&e["dur"]));
        assert!(ts >= 0 && dur >= 0);
        by_thread.entry(thread.clone()).or_default().push((
            e["name"].as_str().unwrap().to_string(),
            ts,
            ts + dur,
        ));
    }
    // On one thread, events either nest or are disjoint: nothing is drawn over.
    for (thread, evs) in &by_thread {
        for (i, a) in evs.iter().enumerate() {
            for b in &evs[i + 1..] {
                let disjoint = a.2 <= b.1 || b.2 <= a.1;
                let nested = (a.1 <= b.1 && b.2 <= a.2) || (b.1 <= a.1 && a.2 <= b.2);
                assert!(
                    disjoint || nested,
                    "{thread}: {a:?} and {b:?} overlap without nesting"
                );
            }
        }
    }
    by_thread
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
            .map(|e| e.0.as_str())
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
fn trace_times_are_microseconds_with_ns_precision() {
    let text = write_trace(TraceGrouping::Sm);
    let v: Value = serde_json::from_str(&text).unwrap();
    // CTA 1 starts 20 ns after CTA 0; its region b starts at tick 10, the
    // second record (moved 0.5 ticks): 20 + 9.5 / 1.5 = 26.333 ns. It spans
    // 20 ticks with one record inside: 20 - 2 * 0.5 = 19 ticks = 12.667 ns,
    // so it ends at 39 ns; rounded to whole ns: ts 26 ns, dur 13 ns.
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
        (Some(0.026), Some(0.013))
    );
    assert_eq!(
        (
            b["args"]["raw_cycles"].as_u64(),
            b["args"]["corrected_cycles"].as_f64()
        ),
        (Some(20), Some(19.0))
    );
    assert!(text.contains("\"ts\":0.026,\"dur\":0.013,"));
}

#[test]
fn proton_style_events_of_a_unit_are_all_present() {
    let text = write_trace(TraceGrouping::Sm);
    let threads = validate(&text);
    let total: usize = threads.values().map(Vec::len).sum();
    // 2 CTAs × (3 seq + 3 nested) + 1 CTA × 3 nested.
    assert_eq!(total, 15);
}
