//! `kperf bench` and `kperf roofline` on the host target, end to end: a
//! rerun of the same code against its own baseline stays quiet, the same
//! kernel doing 10% more work is flagged with exit status 3, and the
//! roofline is drawn; bad specs are refused first. One test in its own
//! binary, so nothing else competes for the CPU while it measures.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kperf(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .output()
        .expect("run kperf")
}

fn show(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn bench_refuses_bad_specs_then_flags_a_ten_percent_slowdown_and_stays_quiet_on_a_rerun() {
    bad_specs_are_refused_with_the_cause();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let spec = root.join("examples/bench/fma_chain.toml");
    let dir = tempfile::tempdir().expect("temp dir");
    let out = |n: &str| -> PathBuf { dir.path().join(n) };
    let quick = ["--quiet", "--min-time", "0.3", "--timeout", "3"];
    let bench = |spec: &Path, o: &Path, extra: &[&str]| {
        let mut args = vec!["bench", s(spec), "-o", s(o)];
        args.extend(quick);
        args.extend(extra);
        kperf(&args)
    };

    let base = bench(&spec, &out("base.json"), &[]);
    assert!(base.status.success(), "{}", show(&base));
    let table = String::from_utf8_lossy(&base.stdout);
    assert!(
        table.contains("n=4096") && table.contains("mlir"),
        "{table}"
    );

    let rerun = bench(
        &spec,
        &out("rerun.json"),
        &["--baseline", s(&out("base.json"))],
    );
    assert!(rerun.status.success(), "rerun flagged:\n{}", show(&rerun));
    assert!(
        String::from_utf8_lossy(&rerun.stdout).contains("no change"),
        "{}",
        show(&rerun)
    );

    // The same kernel with 110 multiply-adds per element instead of 100.
    let slow = dir.path().join("slow");
    std::fs::create_dir(&slow).unwrap();
    std::fs::copy(&spec, slow.join("fma_chain.toml")).unwrap();
    let src = std::fs::read_to_string(root.join("examples/bench/fma_chain.mlir")).unwrap();
    let changed = src.replace("arith.constant 100 : index", "arith.constant 110 : index");
    assert_ne!(
        src, changed,
        "fma_chain.mlir no longer holds its trip count"
    );
    std::fs::write(slow.join("fma_chain.mlir"), changed).unwrap();
    let slowed = bench(
        &slow.join("fma_chain.toml"),
        &out("slow.json"),
        &["--baseline", s(&out("base.json"))],
    );
    assert_eq!(
        slowed.status.code(),
        Some(3),
        "slowdown not flagged:\n{}",
        show(&slowed)
    );
    assert!(String::from_utf8_lossy(&slowed.stdout).contains("REGRESSION"));
    // The results were written before the non-zero exit.
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out("slow.json")).unwrap()).unwrap();
    assert!(results["points"][0]["samples_ns"].as_array().unwrap().len() >= 2);
    assert!(results["settings"]["timed"]
        .as_str()
        .unwrap()
        .contains("one launch"));

    let peaks = kperf(&[
        "peak",
        "--copy-bytes",
        "16777216",
        "--reps",
        "2",
        "-o",
        s(&out("peaks.json")),
    ]);
    assert!(peaks.status.success(), "{}", show(&peaks));
    let svg = out("roofline.svg");
    let roof = kperf(&[
        "roofline",
        s(&out("base.json")),
        "--peaks",
        s(&out("peaks.json")),
        "-o",
        s(&svg),
    ]);
    assert!(roof.status.success(), "{}", show(&roof));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.contains("<svg") && text.contains("mlir n=4096"),
        "roofline lacks the point"
    );
}

fn bad_specs_are_refused_with_the_cause() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = [
        // (spec text, expected words in the error)
        ("timed = \"x\"\n[launch]\ngrid = [1,1,1]\n", "impl"),
        (
            "timed = \"x\"\n[[impl]]\nname = \"a\"\nsource = \"k.ptx\"\n[launch]\ngrid = [1,1,1]\n",
            "only on a GPU",
        ),
        (
            "timed = \"x\"\n[sweep]\nn = [8]\n[[impl]]\nname = \"a\"\nsource = \"k.mlir\"\n[launch]\ngrid = [\"n/0\",1,1]\n",
            "grid x",
        ),
    ];
    std::fs::write(dir.path().join("k.ptx"), ".visible .entry k() { ret; }").unwrap();
    std::fs::write(dir.path().join("k.mlir"), "module {}").unwrap();
    for (i, (text, want)) in cases.iter().enumerate() {
        let spec = dir.path().join(format!("spec{i}.toml"));
        std::fs::write(&spec, text).unwrap();
        let o = kperf(&[
            "bench",
            s(&spec),
            "--quiet",
            "-o",
            s(&dir.path().join("r.json")),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "case {i}: {}", show(&o));
        assert!(err.contains(want), "case {i}: error lacks `{want}`:\n{err}");
        assert!(!err.contains("panicked"), "case {i}: {err}");
    }
}
