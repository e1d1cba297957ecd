//! Interrupts (issue 17): SIGINT in the middle of `kperf bench` keeps the
//! points measured so far in a valid results file, and leaves no temporary
//! (output or JIT dump directory) behind.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SPEC: &str = r#"
timed = "one launch"
[sweep]
n = [128, 256, 384, 512, 640, 768, 896, 1024, 1152, 1280, 1408, 1536, 1664, 1792,
     1920, 2048, 2176, 2304, 2432, 2560, 2688, 2816, 2944, 3072, 3200, 3328]
[[impl]]
name = "mlir"
source = "axpy.mlir"
[launch]
grid = [1, 1, 1]
[[launch.args]]
name = "x"
dtype = "f32"
shape = ["n"]
[[launch.args]]
name = "y"
dtype = "f32"
shape = ["n"]
[[launch.args]]
name = "a"
dtype = "f32"
value = 1.0
[[launch.args]]
name = "n"
dtype = "index"
value = "n"
[work]
flops = "2*n"
bytes = "12*n"
"#;

/// Points in the results file at `path`, if it is there and complete.
fn points(path: &Path) -> Option<usize> {
    let text = std::fs::read(path).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&text).ok()?;
    Some(v["points"].as_array()?.len())
}

#[test]
fn an_interrupted_bench_keeps_its_points_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::copy(
        root.join("examples/bench/axpy.mlir"),
        dir.path().join("axpy.mlir"),
    )
    .expect("copy the kernel");
    std::fs::write(dir.path().join("bench.toml"), SPEC).expect("write the spec");
    let results = dir.path().join("r.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(["bench", "bench.toml", "--quiet", "-o", "r.json"])
        .current_dir(dir.path())
        // Temporaries of every kind land where this test can see them.
        .env("TMPDIR", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start kperf bench");
    let start = Instant::now();
    while points(&results).unwrap_or(0) == 0 {
        if let Some(status) = child.try_wait().expect("poll") {
            panic!("kperf bench ended ({status}) before it was interrupted");
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no point measured in 300 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGINT),
        "kperf bench should end by the interrupt: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let kept = points(&results).expect("the results file is complete JSON");
    assert!(
        (1..26).contains(&kept),
        "{kept} of 26 points kept after the interrupt"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp") || n.starts_with("kperf-jitdump-") || n == ".debug")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
