//! The corpus of real kernels (corpus/: Triton 3.9 and clang-22 CUDA, in
//! LLVM IR) through the LLVM-IR path: every kernel in every automatic mode
//! (and its markers) instruments, assembles with ptxas for sm_90a without
//! spills, and its SASS holds a clock read for every record the PTX stores
//! plus init's and finalize's. Then `kperf cost` holds the cost budgets.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn tool(name: &str) -> PathBuf {
    root().join(".tools/bin").join(name)
}

fn kperf(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run kperf");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// (kernel, mode, regions at least): what each mode must find.
const CASES: &[(&str, &str, usize)] = &[
    ("corpus/triton/matmul_pipelined.llir", "kernel", 1),
    ("corpus/triton/matmul_pipelined.llir", "loops", 1),
    ("corpus/triton/matmul_pipelined.llir", "iterations", 1),
    ("corpus/triton/matmul_pipelined.llir", "asm=wgmma", 4),
    ("corpus/triton/matmul_pipelined.llir", "async", 1),
    ("corpus/triton/matmul_persistent.llir", "kernel", 1),
    ("corpus/triton/matmul_persistent.llir", "loops", 4),
    ("corpus/triton/matmul_persistent.llir", "iterations", 4),
    (
        "corpus/triton/matmul_persistent.llir",
        "asm=wgmma|cp\\.async\\.bulk",
        4,
    ),
    ("corpus/triton/matmul_persistent.llir", "async", 1),
    ("corpus/triton/attention_fwd_causal.llir", "kernel", 1),
    ("corpus/triton/attention_fwd_causal.llir", "loops", 2),
    ("corpus/triton/attention_fwd_causal.llir", "iterations", 2),
    ("corpus/triton/attention_fwd_causal.llir", "asm=wgmma", 4),
    ("corpus/triton/attention_fwd_causal.llir", "async", 1),
    ("corpus/triton/softmax.llir", "kernel,loops,iterations", 1),
    ("corpus/triton/softmax.llir", "calls=llvm.nvvm.*", 1),
    ("corpus/triton/layernorm.llir", "kernel,loops,iterations", 5),
    ("corpus/cuda/sgemm_tiled.ll", "", 3),
    ("corpus/cuda/sgemm_tiled.ll", "kernel,loops,iterations", 6),
    ("corpus/cuda/reduce_sum.ll", "", 3),
    ("corpus/cuda/reduce_sum.ll", "kernel,loops", 6),
];

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn every_corpus_kernel_instruments_in_every_mode_and_assembles() {
    let dir = std::env::temp_dir().join(format!("kperf-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let mut failures = Vec::new();
    for (i, (kernel, mode, at_least)) in CASES.iter().enumerate() {
        let ptx = dir.join(format!("{i}.ptx"));
        let cubin = dir.join(format!("{i}.cubin"));
        let p = ptx.display().to_string();
        let mut args = vec!["instrument", kernel, "-o", &p];
        if !mode.is_empty() {
            args.extend(["--regions", mode]);
        }
        let (ok, _, err) = kperf(&args);
        if !ok {
            failures.push(format!(
                "{kernel} --regions {mode}: instrument failed:\n{err}"
            ));
            continue;
        }
        let meta: serde_json::Value = serde_json::from_slice(
            &std::fs::read(format!("{p}.kperf.json")).expect("metadata written"),
        )
        .expect("json");
        let regions = meta["kernels"][0]["regions"]
            .as_array()
            .map_or(0, |r| r.len());
        if regions < *at_least {
            failures.push(format!(
                "{kernel} --regions {mode}: {regions} regions, expected at least {at_least}"
            ));
        }
        let out = Command::new(tool("ptxas"))
            .args(["-arch=sm_90a", "-v", &p, "-o"])
            .arg(&cubin)
            .output()
            .expect("run ptxas (scripts/setup.sh installs it)");
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            failures.push(format!("{kernel} --regions {mode}: ptxas failed:\n{log}"));
            continue;
        }
        if !log.contains(" 0 bytes spill stores, 0 bytes spill loads") {
            failures.push(format!("{kernel} --regions {mode}: spills:\n{log}"));
        }
        let ptx_text = std::fs::read_to_string(&ptx).expect("ptx");
        // Record stores (predicated v2.b32 into the ring) and clock reads.
        let records = ptx_text
            .lines()
            .filter(|l| l.contains("st.shared.v2.b32") && l.contains('@'))
            .count();
        let sass = Command::new(tool("cuobjdump"))
            .arg("-sass")
            .arg(&cubin)
            .output()
            .expect("run cuobjdump");
        let sass = String::from_utf8_lossy(&sass.stdout);
        let clocks = count(&sass, "SR_CLOCKLO");
        let stores = sass
            .lines()
            .filter(|l| l.contains("STS.64") && l.contains(" @"))
            .count();
        // Each record: one clock read and one predicated STS.64; init reads
        // the clock once more, finalize once per exit. ptxas may merge the
        // identical record code of two paths that join (tail merging), so a
        // few PTX records can share one SASS store.
        let merged_allowance = records / 8;
        if records < 2 * regions.min(1)
            || stores + merged_allowance < records
            || clocks < stores + 2
        {
            failures.push(format!(
                "{kernel} --regions {mode}: {records} record stores in PTX, {clocks} clock reads and {stores} predicated STS.64 in SASS"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The cost budgets on every corpus kernel at warp granularity
/// (docs/cost.md shows the figures): no added spills; a straight-line
/// record costs at most 3 SASS instructions with the 32-bit clock and 4
/// with the 64-bit one (probe 16 vs 32 regions, as in docs/cost.md); init +
/// finalize stay under Proton's ~68.
///
/// `fixed` is in-line code, measured with the kernel region alone (markers
/// stripped: their records in loops pay index arithmetic that is theirs);
/// out-of-line blocks (reduce_sum: a record after the join of `if (warp ==
/// 0)`, the kernel's END record here, makes ptxas add a 34-instruction
/// fallback for its shuffles in a diverged warp) are reported apart by
/// `kperf cost`.
const FIXED_BUDGET: f64 = 68.0;

#[test]
fn corpus_kernels_stay_within_the_cost_budgets() {
    let kernels = [
        "corpus/triton/matmul_pipelined.llir",
        "corpus/triton/matmul_persistent.llir",
        "corpus/triton/attention_fwd_causal.llir",
        "corpus/triton/softmax.llir",
        "corpus/triton/layernorm.llir",
        "corpus/cuda/sgemm_tiled.ll",
        "corpus/cuda/reduce_sum.ll",
    ];
    let mut args = vec![
        "cost",
        "--regions",
        "kernel,loops",
        "--counters",
        "clock32,clock64",
        "--probe",
        "16",
        "--json",
    ];
    args.extend(kernels);
    let (ok, out, err) = kperf(&args);
    assert!(ok, "kperf cost failed:\n{err}");
    let reports: Vec<serde_json::Value> = serde_json::from_str(&out).expect("json");
    assert_eq!(reports.len(), 2 * kernels.len());
    let mut over = Vec::new();
    for r in &reports {
        let (k, c) = (
            r["kernel"].as_str().unwrap_or("?"),
            r["counter"].as_str().unwrap_or("?"),
        );
        let per = r["per_record"].as_f64().unwrap_or(f64::MAX);
        let budget = if c == "clock32" { 3.0 } else { 4.0 };
        if per > budget + 1e-9 {
            over.push(format!("{k} {c}: {per:.2} SASS per record > {budget:.2}"));
        }
        if r["added_spill_bytes"].as_i64() != Some(0) {
            over.push(format!("{k} {c}: added spills {}", r["added_spill_bytes"]));
        }
        let fixed = r["fixed"].as_f64().unwrap_or(f64::MAX);
        if fixed >= FIXED_BUDGET {
            over.push(format!(
                "{k} {c}: fixed cost {fixed:.0}, budget under {FIXED_BUDGET:.0}"
            ));
        }
    }
    assert!(over.is_empty(), "{}", over.join("\n"));
}
