//! `kperf run` on a module `kperf instrument --emit mlir` already lowered:
//! it runs as it is (no second instrumentation), described by the
//! `.kperf.json` beside it; without that file the error says so.

use std::path::Path;
use std::process::{Command, Output};

fn kperf(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run kperf")
}

#[test]
fn an_instrumented_module_runs_with_its_metadata() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::temp_dir().join(format!("kperf-preinst-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let inst = dir.join("mm.inst.mlir");
    let prof = dir.join("mm.kprof");
    let (i, p) = (inst.to_str().expect("utf-8"), prof.to_str().expect("utf-8"));
    let ok = |o: Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        o
    };
    ok(kperf(
        &[
            "instrument",
            "examples/matmul_host.mlir",
            "--target",
            "host",
            "--regions",
            "kernel,loops",
            "--slots",
            "4096",
            "--emit",
            "mlir",
            "-o",
            i,
        ],
        &root,
    ));
    ok(kperf(
        &[
            "run",
            i,
            "--target",
            "host",
            "--spec",
            "examples/matmul_host.toml",
            "-o",
            p,
        ],
        &root,
    ));
    let report = ok(kperf(&["report", p, "--json"], &root));
    let fb: serde_json::Value = serde_json::from_slice(&report.stdout).expect("feedback JSON");
    let count = |name: &str| {
        fb["regions"]
            .as_array()
            .and_then(|r| r.iter().find(|x| x["name"] == name))
            .and_then(|x| x["count"].as_u64())
    };
    // Recorded once, not twice: the same counts as an on-the-fly run.
    assert_eq!(count("kernel"), Some(16));
    assert_eq!(count("loop@21:18"), Some(16384));
    assert_eq!(fb["regions"].as_array().map(|r| r.len()), Some(5));

    std::fs::remove_file(format!("{i}.kperf.json")).expect("metadata exists");
    let r = kperf(
        &[
            "run",
            i,
            "--target",
            "host",
            "--spec",
            "examples/matmul_host.toml",
            "-o",
            p,
        ],
        &root,
    );
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        !r.status.success() && err.contains("already instrumented") && err.contains(".kperf.json"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
