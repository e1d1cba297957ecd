//! Upstream MLIR's GPU integration tests as they are (corpus/mlir-upstream/,
//! copied from LLVM 22.1.8; its README says where from): every file, with
//! the options its own RUN line implies (kperf-options.txt), instruments in
//! every automatic mode and assembles with ptxas (NVIDIA) or emits ISA
//! (AMD). The regions each mode finds are held to
//! `expected-regions.txt`; `KPERF_BLESS=1 cargo test -p kperf --test
//! mlir_upstream` rewrites it after a change that should move them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const CORPUS: &str = "corpus/mlir-upstream";

/// The modes each file is instrumented in.
const MODES: &[&str] = &["kernel", "loops,iterations", "async", "ops=nvgpu.*"];

/// One line of kperf-options.txt: `<path>: <options> [| error without ROCm: <text>]`.
struct Entry {
    path: String,
    options: Vec<String>,
    /// The error expected where ROCm's device library is missing.
    error_without_rocm: Option<String>,
}

fn entries() -> Vec<Entry> {
    let text = std::fs::read_to_string(root().join(CORPUS).join("kperf-options.txt"))
        .expect("kperf-options.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (path, rest) = l.split_once(':').expect("`<path>: <options>`");
            let (opts, error) = match rest.split_once('|') {
                Some((o, e)) => (
                    o,
                    Some(
                        e.trim()
                            .strip_prefix("error without ROCm:")
                            .expect("`| error without ROCm: <text>`")
                            .trim()
                            .to_string(),
                    ),
                ),
                None => (rest, None),
            };
            Entry {
                path: path.trim().to_string(),
                options: opts.split_whitespace().map(str::to_string).collect(),
                error_without_rocm: error,
            }
        })
        .collect()
}

/// `<path> <mode> <regions>` for each mode, or what went wrong.
fn instrument(e: &Entry, out_dir: &Path) -> Result<Vec<String>, String> {
    let amd = e.options.iter().any(|o| o.starts_with("amdgpu"));
    let emit = if amd { "isa" } else { "cubin" };
    let rocm = Path::new("/opt/rocm/amdgcn/bitcode").is_dir();
    let mut lines = Vec::new();
    for mode in MODES {
        let out = out_dir.join(format!("{}.{emit}", e.path.replace('/', "_")));
        let o = Command::new(env!("CARGO_BIN_EXE_kperf"))
            .current_dir(root())
            .args(["instrument", &format!("{CORPUS}/{}", e.path)])
            .args(&e.options)
            .args(["--regions", mode, "--emit", emit, "-o"])
            .arg(&out)
            .output()
            .expect("run kperf");
        let stderr = String::from_utf8_lossy(&o.stderr);
        match (&e.error_without_rocm, rocm, o.status.success()) {
            (Some(text), false, false) if stderr.contains(text.as_str()) => {
                lines.push(format!("{} {mode} refused: {text}", e.path));
                continue;
            }
            (Some(text), false, _) => {
                return Err(format!(
                    "{} --regions {mode}: expected an error naming `{text}`, got:\n{stderr}",
                    e.path
                ))
            }
            (_, _, false) => {
                return Err(format!("{} --regions {mode} failed:\n{stderr}", e.path));
            }
            _ => {}
        }
        if stderr.contains("panicked") {
            return Err(format!(
                "{} --regions {mode}: kperf panicked:\n{stderr}",
                e.path
            ));
        }
        let meta_path = PathBuf::from(format!("{}.kperf.json", out.display()));
        let meta: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&meta_path).expect("metadata")).expect("json");
        let regions: usize = meta["kernels"]
            .as_array()
            .map(|ks| {
                ks.iter()
                    .map(|k| k["regions"].as_array().map_or(0, Vec::len))
                    .sum()
            })
            .unwrap_or(0);
        if *mode == "kernel" && regions == 0 {
            return Err(format!("{}: --regions kernel found no kernel", e.path));
        }
        lines.push(format!("{} {mode} {regions}", e.path));
    }
    Ok(lines)
}

#[test]
fn upstream_mlir_gpu_tests_instrument_in_every_mode() {
    let out_dir = std::env::temp_dir().join(format!("kperf-mlir-upstream-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).expect("tmp");
    let all = entries();
    assert!(all.len() >= 38, "the manifest lists {} files", all.len());
    // Two at a time: ptxas and LLVM run once per build.
    let (a, b) = all.split_at(all.len() / 2);
    let check = |part: &[Entry]| -> Vec<Result<Vec<String>, String>> {
        part.iter().map(|e| instrument(e, &out_dir)).collect()
    };
    let results: Vec<Result<Vec<String>, String>> = std::thread::scope(|s| {
        let h = s.spawn(|| check(a));
        let rest = check(b);
        let mut r = h.join().expect("checker thread");
        r.extend(rest);
        r
    });
    let _ = std::fs::remove_dir_all(&out_dir);
    let failures: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let found: String = results
        .into_iter()
        .flat_map(|r| r.unwrap_or_default())
        .map(|l| l + "\n")
        .collect();
    let golden = root().join(CORPUS).join("expected-regions.txt");
    if std::env::var_os("KPERF_BLESS").is_some() {
        std::fs::write(&golden, &found).expect("bless");
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    if found != expected {
        let (f, e): (Vec<&str>, Vec<&str>) = (found.lines().collect(), expected.lines().collect());
        let diff: Vec<String> = (0..f.len().max(e.len()))
            .filter(|&i| f.get(i) != e.get(i))
            .map(|i| {
                format!(
                    "  found    {}\n  expected {}",
                    f.get(i).unwrap_or(&"(nothing)"),
                    e.get(i).unwrap_or(&"(nothing)")
                )
            })
            .collect();
        panic!(
            "regions differ from {} (KPERF_BLESS=1 rewrites it):\n{}",
            golden.display(),
            diff.join("\n")
        );
    }
}
