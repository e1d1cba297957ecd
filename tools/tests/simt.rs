//! The SIMT host target against known answers: every `tests/simt/<case>/`
//! holds a kernel, a launch spec and `case.toml`, which says what the
//! buffers must hold after the run (plain and instrumented alike) and, for
//! each instrumented run, how many CTA blocks the profile has, how many
//! units each block has and how many records every unit wrote (and kept).
//! When a unit kept every record it wrote, its records must nest: a
//! finalize that copied a ring before it was written shows as records that
//! do not. The upstream MLIR cases check their CHECK lines.

use kperf_runtime::ProfileReader;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    kernel: PathBuf,
    spec: PathBuf,
    /// Buffer name → every element after the run (an integer must come
    /// back as exactly that integer).
    #[serde(default)]
    outputs: BTreeMap<String, Vec<Expected>>,
    /// Buffer name → how many units in the last place of its element type
    /// a float may be from the expected value (a math library's documented
    /// accuracy, against a correctly rounded answer); exact without.
    #[serde(default)]
    ulps: BTreeMap<String, f64>,
    #[serde(default)]
    profile: Vec<ProfileCase>,
    /// The plain run must fail: a kernel that hangs on a GPU too.
    fails: Option<Failure>,
    /// What every run prints on stdout (the kernel's `printf`), exactly.
    stdout: Option<String>,
    /// `KPERF_SIMT_TIMEOUT_S` for the runs (default 60): how long threads
    /// wait on a running thread before the runner notes it.
    patience_s: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Failure {
    /// kperf's exit status.
    exit: i32,
    /// Text the error must contain.
    message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileCase {
    args: Vec<String>,
    /// CTA blocks in the profile (default: the whole grid).
    ctas: Option<u64>,
    units: usize,
    /// Records every unit wrote: one count for all, or one per unit.
    records: PerUnit,
    /// Records every unit kept (default: all it wrote).
    kept: Option<PerUnit>,
    /// With `--check`: kernel-region instances the check timed in its
    /// build of the kernel region alone (0: the profile's only region is
    /// the kernel, so the check times the plain launch alone).
    check_instances: Option<u64>,
}

/// An expected element: integers compare exactly (an i64 above 2^53 as
/// f64 lost its low bits), floats as numbers, and `nan` matches a NaN.
#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum Expected {
    Int(i64),
    Float(f64),
}

impl PartialEq for Expected {
    fn eq(&self, other: &Expected) -> bool {
        match (self, other) {
            (Expected::Int(a), Expected::Int(b)) => a == b,
            (Expected::Float(a), Expected::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            _ => false,
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PerUnit {
    All(u64),
    Each(Vec<u64>),
}

impl PerUnit {
    fn of(&self, unit: usize, what: &str) -> u64 {
        match self {
            PerUnit::All(n) => *n,
            PerUnit::Each(v) => *v
                .get(unit)
                .unwrap_or_else(|| panic!("case.toml: `{what}` has no entry for unit {unit}")),
        }
    }
}

/// The unit's records as start/end pairs: each end closes the innermost
/// open region, and none is left open.
fn check_nesting(records: &[kperf_runtime::profile::Record], at: &str) {
    let mut open = Vec::new();
    for (k, r) in records.iter().enumerate() {
        match r.edge {
            kperf_dialects::abi::Edge::Start => open.push(r.region),
            kperf_dialects::abi::Edge::End => assert_eq!(
                open.pop(),
                Some(r.region),
                "{at}: record {k} ends region {:?}, not the open one; records {records:?}",
                r.region
            ),
        }
    }
    assert!(open.is_empty(), "{at}: regions left open: {open:?}");
}

fn kperf() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kperf"))
}

/// Run `cmd`; fail the test with its stderr unless it succeeds.
fn succeed(cmd: &mut Command, what: &str) {
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Run the case's kernel on the SIMT target with `args`; returns the
/// outputs JSON and the profile path (when instrumented).
fn run(dir: &Path, case: &Case, args: &[String], out: &Path, tag: &str) -> serde_json::Value {
    let outputs = out.join(format!("{tag}.outputs.json"));
    let mut o = kperf();
    o.arg("run")
        .arg(dir.join(&case.kernel))
        .args(["--target", "simt", "--spec"])
        .arg(dir.join(&case.spec))
        .arg("-o")
        .arg(out.join(format!("{tag}.kprof")))
        .arg("--outputs")
        .arg(&outputs)
        .args(args)
        .env(
            "KPERF_SIMT_TIMEOUT_S",
            case.patience_s.unwrap_or(60.0).to_string(),
        );
    if let Some(f) = &case.fails {
        let got = o.output().unwrap();
        let err = String::from_utf8_lossy(&got.stderr);
        assert_eq!(
            got.status.code(),
            Some(f.exit),
            "{}: kperf run {args:?} exits {} (stderr: {err})",
            dir.display(),
            f.exit
        );
        assert!(
            err.contains(&f.message),
            "{}: kperf run {args:?} says {:?}; stderr: {err}",
            dir.display(),
            f.message
        );
        if let Some(want) = &case.stdout {
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                *want,
                "{}: kperf run {args:?}: stdout",
                dir.display()
            );
        }
        return serde_json::Value::Null;
    }
    let got = o.output().unwrap();
    assert!(
        got.status.success(),
        "{}: kperf run {args:?} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&got.stderr)
    );
    if let Some(want) = &case.stdout {
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            *want,
            "{}: kperf run {args:?}: stdout",
            dir.display()
        );
    }
    serde_json::from_slice(&std::fs::read(&outputs).unwrap()).unwrap()
}

fn check_outputs(dir: &Path, case: &Case, got: &serde_json::Value, what: &str) {
    for (name, want) in &case.outputs {
        let buf = got
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{}: no buffer `{name}` in the outputs", dir.display()));
        let vals: Vec<Expected> = buf["values"]
            .as_array()
            .unwrap()
            .iter()
            .zip(want)
            .map(|(v, w)| match w {
                Expected::Int(_) => Expected::Int(v.as_i64().unwrap_or(i64::MIN)),
                // The outputs JSON writes infinities and NaN as strings.
                Expected::Float(_) => {
                    Expected::Float(v.as_f64().unwrap_or_else(|| match v.as_str() {
                        Some("inf") => f64::INFINITY,
                        Some("-inf") => f64::NEG_INFINITY,
                        _ => f64::NAN,
                    }))
                }
            })
            .collect();
        let got_len = buf["values"].as_array().unwrap().len();
        assert_eq!(
            got_len,
            want.len(),
            "{}: `{name}` {what}: length",
            dir.display()
        );
        if let Some(ulps) = case.ulps.get(name) {
            let single = buf["dtype"] == "f32";
            for (k, (v, w)) in vals.iter().zip(want).enumerate() {
                let (Expected::Float(v), Expected::Float(w)) = (v, w) else {
                    panic!("{}: `{name}`: ulps are for float buffers", dir.display());
                };
                let ulp = if single {
                    let w = *w as f32;
                    (f32::from_bits(w.abs().to_bits() + 1) - w.abs()) as f64
                } else {
                    f64::from_bits(w.abs().to_bits() + 1) - w.abs()
                };
                assert!(
                    (v - w).abs() <= ulps * ulp,
                    "{}: `{name}`[{k}] {what}: {v} is more than {ulps} ulp from {w}",
                    dir.display()
                );
            }
            continue;
        }
        assert_eq!(&vals, want, "{}: `{name}` {what}", dir.display());
    }
}

#[test]
fn simt_runs_give_the_known_answers_and_exact_record_counts() {
    let cases = root().join("tests/simt");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 4,
        "SIMT cases missing under {}",
        cases.display()
    );
    // KPERF_SIMT_CASE=<part of a directory name> runs only the matching cases.
    let only = std::env::var("KPERF_SIMT_CASE").ok();
    for dir in dirs {
        if let Some(o) = &only {
            if !dir
                .file_name()
                .unwrap()
                .to_string_lossy()
                .contains(o.as_str())
            {
                continue;
            }
        }
        let case: Case = toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap())
            .unwrap_or_else(|e| panic!("{}/case.toml: {e}", dir.display()));
        let tmp = tempfile::tempdir().unwrap();
        let plain = run(
            &dir,
            &case,
            &["--no-instrument".into()],
            tmp.path(),
            "plain",
        );
        if case.fails.is_some() {
            continue;
        }
        check_outputs(&dir, &case, &plain, "plain");
        let spec: kperf_runtime::spec::LaunchSpec =
            toml::from_str(&std::fs::read_to_string(dir.join(&case.spec)).unwrap()).unwrap();
        for (k, p) in case.profile.iter().enumerate() {
            let tag = format!("p{k}");
            let got = run(&dir, &case, &p.args, tmp.path(), &tag);
            check_outputs(
                &dir,
                &case,
                &got,
                &format!("instrumented with {:?}", p.args),
            );
            let path = tmp.path().join(format!("{tag}.kprof"));
            let reader = ProfileReader::open(&path).unwrap();
            let mut blocks = 0;
            for cta in reader.ctas() {
                let cta = cta.unwrap();
                blocks += 1;
                let at = format!("{} {:?}: CTA {}", dir.display(), p.args, cta.cta_id);
                assert_eq!(cta.units.len(), p.units, "{at}: units");
                for (k, u) in cta.units.iter().enumerate() {
                    let written = p.records.of(k, "records");
                    assert_eq!(
                        u.records_written, written,
                        "{at} unit {}: written",
                        u.unit_id
                    );
                    let kept = p.kept.as_ref().map_or(written, |n| n.of(k, "kept"));
                    assert_eq!(
                        u.records.len() as u64,
                        kept,
                        "{at} unit {}: kept",
                        u.unit_id
                    );
                    if kept == written {
                        check_nesting(&u.records, &format!("{at} unit {}", u.unit_id));
                    }
                }
            }
            assert_eq!(
                blocks,
                p.ctas.unwrap_or(spec.grid_ctas()),
                "{} {:?}: CTA blocks",
                dir.display(),
                p.args
            );
            let at = format!("{} {:?}", dir.display(), p.args);
            let check = reader.info().check.as_ref();
            assert_eq!(
                check.is_some(),
                p.check_instances.is_some(),
                "{at}: a check exactly where case.toml expects one"
            );
            // And it replays, one track per unit.
            let feedback = tmp.path().join(format!("{tag}.feedback.json"));
            let mut o = kperf();
            o.arg("replay")
                .arg(&path)
                .arg("-o")
                .arg(tmp.path().join(format!("{tag}.trace.json")))
                .arg("--json")
                .arg(&feedback);
            succeed(&mut o, &format!("{at}: replay"));
            if let (Some(check), Some(instances)) = (check, p.check_instances) {
                check_the_check(check, instances, &feedback, &at);
            }
        }
    }
}

/// A check as a GPU's would be: the plain launch and the profiled one
/// timed alike (the run time in the feedback), and where the profile has
/// regions inside its kernel region, one truth per unit of a build of the
/// kernel region alone (the check line in the feedback).
fn check_the_check(
    check: &kperf_runtime::profile::UninstrumentedRun,
    instances: u64,
    feedback: &Path,
    at: &str,
) {
    assert!(
        check.wall_ns > 0 && check.profiled_wall_ns.is_some_and(|p| p > 0),
        "{at}: both launches timed: {check:?}"
    );
    assert_eq!(check.ctas, instances, "{at}: kernel-region instances timed");
    assert_eq!(
        check.cta_mean_ticks.is_some_and(|t| t > 0.0),
        instances > 0,
        "{at}: a per-unit truth exactly where the profile has regions inside its kernel: {check:?}"
    );
    let fb: serde_json::Value = serde_json::from_slice(&std::fs::read(feedback).unwrap()).unwrap();
    assert!(
        fb["run_time"]["overhead"].is_f64(),
        "{at}: run time in the feedback: {}",
        fb["run_time"]
    );
    assert_eq!(
        fb["check"]["truth_ticks"].as_f64(),
        check.cta_mean_ticks,
        "{at}: the feedback's check is the stored truth"
    );
    // A check without a per-unit truth has nothing to compare and lost
    // nothing: no caveat about it.
    let caveats = fb["caveats"].as_array().expect("caveats");
    assert!(
        !caveats.iter().any(|c| c
            .as_str()
            .is_some_and(|c| c.contains("uninstrumented run was timed"))),
        "{at}: {caveats:?}"
    );
}
