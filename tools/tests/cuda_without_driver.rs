//! The CUDA path on a machine without the NVIDIA driver (CI, laptops): a
//! clear error naming libcuda, a non-zero exit, no panic, and nothing
//! written. On a machine with a driver this test has nothing to check and
//! says so; the GPU runs are documented in the notes instead.

use std::path::Path;
use std::process::Command;

fn driver_present() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "/usr/lib64/libcuda.so.1",
        "/usr/local/nvidia/lib64/libcuda.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

#[test]
fn run_calibrate_bench_and_peak_on_cuda_fail_cleanly_without_a_driver() {
    if driver_present() {
        eprintln!("libcuda is present: the no-driver path cannot be exercised here");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::env::temp_dir().join(format!("kperf-nocuda-{}.kprof", std::process::id()));
    let cases: [Vec<&str>; 4] = [
        vec![
            "run",
            "examples/reduce.mlir",
            "--target",
            "nvptx:sm_90a",
            "--spec",
            "examples/reduce.toml",
            "--regions",
            "kernel",
            "-o",
            out.to_str().expect("utf-8"),
        ],
        vec![
            "calibrate",
            "--target",
            "nvptx:sm_90a",
            "-o",
            out.to_str().expect("utf-8"),
        ],
        vec![
            "bench",
            "examples/bench/axpy.toml",
            "--target",
            "cuda",
            "-o",
            out.to_str().expect("utf-8"),
        ],
        vec![
            "peak",
            "--target",
            "cuda",
            "-o",
            out.to_str().expect("utf-8"),
        ],
    ];
    for args in cases {
        let r = Command::new(env!("CARGO_BIN_EXE_kperf"))
            .args(&args)
            .current_dir(&root)
            .output()
            .expect("run kperf");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(!r.status.success(), "{args:?} succeeded without a driver");
        assert!(
            err.contains("no CUDA driver") && err.contains("libcuda"),
            "{args:?}: unclear error:\n{err}"
        );
        assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
        assert!(
            !out.exists(),
            "{args:?} wrote {} although it failed",
            out.display()
        );
    }
}
