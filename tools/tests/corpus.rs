//! The corpus of real kernels (corpus/: Triton 3.9 and clang-22 CUDA, in
//! LLVM IR) through the LLVM-IR path: every kernel in every automatic mode
//! (and its markers) instruments, assembles with ptxas for sm_90a without
//! spills, and keeps every record's clock read in its SASS. Then `kperf
//! cost` holds the cost budgets and the fidelity limits: the instrumented
//! kernel is the plain kernel plus kperf's own code (docs/fidelity.md).

mod common;

use common::fidelity::{verdict, Exception};
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

/// ptxas's log and the SASS of `ptx`, or the log as the error. The cubin
/// goes to the temporary directory, never beside an input in the repository.
fn assemble(ptx: &Path) -> Result<(String, String), String> {
    let name = ptx.file_stem().and_then(|s| s.to_str()).unwrap_or("k");
    let cubin =
        std::env::temp_dir().join(format!("kperf-corpus-{}-{name}.cubin", std::process::id()));
    let out = Command::new(tool("ptxas"))
        .args(["-arch=sm_90a", "-v"])
        .arg(ptx)
        .arg("-o")
        .arg(&cubin)
        .output()
        .expect("run ptxas (scripts/setup.sh installs it)");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(log);
    }
    let sass = Command::new(tool("cuobjdump"))
        .arg("-sass")
        .arg(&cubin)
        .output()
        .expect("run cuobjdump");
    Ok((log, String::from_utf8_lossy(&sass.stdout).into_owned()))
}

#[test]
fn every_corpus_kernel_instruments_in_every_mode_and_assembles() {
    let dir = std::env::temp_dir().join(format!("kperf-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let mut failures = Vec::new();
    for (i, (kernel, mode, at_least)) in CASES.iter().enumerate() {
        let ptx = dir.join(format!("{i}.ptx"));
        let plain = dir.join(format!("{i}.plain.ptx"));
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
        let pp = plain.display().to_string();
        let (ok, _, err) = kperf(&["instrument", kernel, "--plain", "-o", &pp]);
        assert!(ok, "{kernel} --plain: {err}");
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
        let (log, sass) = match assemble(&ptx) {
            Ok(x) => x,
            Err(log) => {
                failures.push(format!("{kernel} --regions {mode}: ptxas failed:\n{log}"));
                continue;
            }
        };
        if !log.contains(" 0 bytes spill stores, 0 bytes spill loads") {
            failures.push(format!("{kernel} --regions {mode}: spills:\n{log}"));
        }
        let (_, plain_sass) = assemble(&plain).expect("the plain kernel assembles");
        // ptxas may merge stores but never drops a clock read: every
        // `%clock` read the PTX gained (one per record) is in the SASS.
        let ptx_clocks = |f: &Path| count(&std::fs::read_to_string(f).expect("ptx"), "%clock;");
        let records = ptx_clocks(&ptx).saturating_sub(ptx_clocks(&plain));
        let clocks = count(&sass, "SR_CLOCKLO").saturating_sub(count(&plain_sass, "SR_CLOCKLO"));
        if records == 0 || clocks < records {
            failures.push(format!(
                "{kernel} --regions {mode}: {records} record clock reads in PTX, {clocks} more clock reads in SASS than plain"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The cost budgets on every corpus kernel at warp granularity
/// (docs/cost.md shows the figures): no added spills; a straight-line
/// record costs at most 3 SASS instructions with the 32-bit clock and 4
/// with the 64-bit one (probe 16 vs 32 regions, as in docs/cost.md); init +
/// finalize under 90. Proton's ~68 (and kperf's 52–67 until 2026-11) end
/// with a CTA barrier and a copy-out shared by all threads, which is wrong
/// when threads return early (templates::finalize); each unit's leader now
/// copies its own ring in a loop of 4 chunks a trip: 71–86 on the corpus.
const FIXED_BUDGET: f64 = 90.0;

const KERNELS: [&str; 16] = [
    "corpus/triton/matmul_pipelined.llir",
    "corpus/triton/matmul_persistent.llir",
    "corpus/triton/attention_fwd_causal.llir",
    "corpus/triton/softmax.llir",
    "corpus/triton/layernorm.llir",
    "corpus/cuda/sgemm_tiled.ll",
    "corpus/cuda/reduce_sum.ll",
    // Triton's tutorials as Triton 3.9 compiles them (corpus/triton/tutorials.py).
    "corpus/triton/tut01_add.llir",
    "corpus/triton/tut02_softmax.llir",
    "corpus/triton/tut03_matmul.llir",
    "corpus/triton/tut05_ln_fwd.llir",
    "corpus/triton/tut05_ln_bwd_dx.llir",
    "corpus/triton/tut05_ln_bwd_dwdb.llir",
    "corpus/triton/tut06_attn_fwd.llir",
    "corpus/triton/tut09_matmul_persistent.llir",
    "corpus/triton/tut09_matmul_tma_persistent.llir",
];

fn cost(extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["cost", "--json"];
    args.extend(extra);
    args.extend(KERNELS);
    let (ok, out, err) = kperf(&args);
    assert!(ok, "kperf cost {extra:?} failed:\n{err}");
    let reports: Vec<serde_json::Value> = serde_json::from_str(&out).expect("json");
    assert!(
        reports.len() >= KERNELS.len(),
        "one report per kernel at least"
    );
    reports
}

/// Budgets per kernel: SASS per record, no added spills, the plain
/// kernel's CTAs per SM (registers capped where needed), fixed cost.
#[test]
fn corpus_kernels_stay_within_the_cost_budgets() {
    let reports = cost(&[
        "--regions",
        "kernel,loops",
        "--counters",
        "clock32,clock64",
        "--probe",
        "16",
    ]);
    let mut over = Vec::new();
    for r in &reports {
        let (k, c) = (
            r["kernel"].as_str().unwrap_or("?"),
            r["counter"].as_str().unwrap_or("?"),
        );
        let per = r["per_record"].as_f64().unwrap_or(f64::MAX);
        // Tutorial 2's softmax computes each clock64 slot's address with an
        // index instruction per record (0.97) where the others fold it into
        // the store's immediate offset.
        let budget = match (k, c) {
            ("softmax_kernel", "clock64") => 4.2,
            (_, "clock32") => 3.0,
            _ => 4.0,
        };
        if per > budget + 1e-9 {
            over.push(format!("{k} {c}: {per:.2} SASS per record > {budget:.2}"));
        }
        // Fewer spills is no cost (the plain layer-norm backward spills 8
        // bytes at 128 registers; instrumented and capped, it spills none).
        if r["added_spill_bytes"].as_i64().is_none_or(|b| b > 0) {
            over.push(format!("{k} {c}: added spills {}", r["added_spill_bytes"]));
        }
        let occ = &r["occupancy"];
        if occ["instrumented_ctas_per_sm"].as_u64() < occ["plain_ctas_per_sm"].as_u64() {
            over.push(format!("{k} {c}: fewer CTAs per SM than plain: {occ}"));
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

/// Measured exceptions, each a ceiling a little above today's figure so
/// that getting worse fails (docs/fidelity.md explains them):
/// - reduce_sum: the kernel's END record and finalize sit after the join of
///   `if (warp == 0)`; ptxas then reconverges the warps there (BSSY/BSYNC,
///   branches, a WARPSYNC) where the plain kernel just exits: 4 to 7 of
///   its 105 in-line instructions.
/// - records inside small loops need their ring index in registers the
///   loop already uses: sgemm's K loop with iterations (2.9%; IMAD, BRA,
///   the uniform datapath's share of its address arithmetic, see
///   docs/fidelity.md).
/// - the async mode on Triton's cp.async pipelines puts three records in
///   every iteration of the pipelined loop (END before the wait, START
///   after it, START before the next stage): moves and predicates, 2.1–2.7%
///   in attention_fwd_causal and matmul_pipelined.
/// - the op modes put two records around every matched instruction; in
///   attention's and the matmuls' dense wgmma/cp.async code that costs
///   moves and predicates (matmul_kernel_tma_persistent: capped at 255
///   registers, 40 fewer moves).
/// - _layer_norm_bwd_dx_fused: capped to keep 2 CTAs per SM (moves).
///
/// Until 2026-11-27 fifteen more entries stood here. add_kernel's one
/// IMAD in 41 was a scaled add ptxas did on the multiplier instead of a LEA
/// (`SassInst::work` now counts both as LEA). The loop modes of softmax,
/// softmax_kernel, the layer norms, sgemm's loops and matmul_pipelined's
/// iterations (up to 4.9%) counted kperf's ring offset, sunk by LLVM from
/// init to the first record and given a merged location, and finalize's
/// copy bound as the kernel's. The op modes of matmul_kernel, _attn_fwd
/// and matmul_persistent (up to 3.5%) counted kperf's ring counter, as
/// LLVM's loop strength reduction rewrote it at the kernel's locations,
/// as the kernel's (crate sass_dataflow: integer work only kperf reads).
const EXCEPTIONS: &[Exception] = &[
    ("reduce_sum", "*", 0.075),
    ("sgemm_tiled", "iterations", 0.035),
    ("matmul_pipelined", "async", 0.03),
    ("attention_fwd_causal", "async", 0.025),
    ("attention_fwd_causal", "asm=wgmma|cp\\.async", 0.03),
    ("matmul_pipelined", "asm=wgmma|cp\\.async", 0.04),
    ("_layer_norm_bwd_dx_fused", "*", 0.035),
    (
        "matmul_kernel_tma_persistent",
        "asm=wgmma|cp\\.async",
        0.045,
    ),
];

/// Every automatic mode on every corpus kernel (its markers stripped:
/// the author's regions are the author's): the same tensor-core, TMA,
/// async-copy, memory and barrier instructions as the plain kernel, and at
/// most 2% of its instructions unexplained.
#[test]
fn corpus_kernels_are_the_kernel_in_every_automatic_mode() {
    let modes = [
        "kernel",
        "loops",
        "iterations",
        "async",
        "asm=wgmma|cp\\.async",
    ];
    let mut bad = Vec::new();
    for mode in modes {
        for r in cost(&["--regions", mode, "--ignore-markers"]) {
            let k = r["kernel"].as_str().unwrap_or("?");
            bad.extend(verdict(&r, k, mode, EXCEPTIONS));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Floating-point contraction as Triton does it (`enable_fp_fusion`, on in
/// the corpus' metadata): `--plain` of Triton's own LLVM IR assembles to
/// Triton's own PTX's SASS within 1%, FFMA count included.
#[test]
fn plain_triton_builds_match_tritons_own_ptx() {
    let dir = std::env::temp_dir().join(format!("kperf-fp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    // Instruction lines (`/*0120*/  INSTR ;  /* encoding */`), not the
    // encoding's second line, NOPs or never-executed `@!PT` padding.
    let sass_count = |sass: &str, op: &str| {
        sass.lines()
            .map(str::trim_start)
            .filter(|l| {
                l.strip_prefix("/*")
                    .and_then(|r| r.split_once("*/"))
                    .is_some_and(|(addr, _)| addr.chars().all(|c| c.is_ascii_hexdigit()))
            })
            .filter(|l| !l.contains("NOP") && !l.contains("@!PT"))
            .filter(|l| op.is_empty() || l.contains(op))
            .count() as f64
    };
    let mut bad = Vec::new();
    for name in [
        "layernorm",
        "softmax",
        "attention_fwd_causal",
        "matmul_pipelined",
        "matmul_persistent",
        "tut01_add",
        "tut02_softmax",
        "tut03_matmul",
        "tut05_ln_fwd",
        "tut05_ln_bwd_dx",
        "tut05_ln_bwd_dwdb",
        "tut06_attn_fwd",
        "tut09_matmul_persistent",
        "tut09_matmul_tma_persistent",
    ] {
        let llir = format!("corpus/triton/{name}.llir");
        let ours = dir.join(format!("{name}.ptx"));
        let o = ours.display().to_string();
        let (ok, _, err) = kperf(&["instrument", &llir, "--plain", "-o", &o]);
        assert!(ok, "{err}");
        let theirs = root().join(format!("corpus/triton/{name}.ptx"));
        let (_, a) = assemble(&ours).expect("ours assembles");
        let (_, b) = assemble(&theirs).expect("Triton's assembles");
        for op in ["", "FFMA"] {
            let (x, y) = (sass_count(&a, op), sass_count(&b, op));
            if (x - y).abs() > 0.01 * y.max(1.0) {
                bad.push(format!("{name}: {x} vs Triton's {y} SASS `{op}`"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Issue 16 §9: a Triton kernel with exactly 48 KiB of its own dynamic
/// shared memory. Triton's launcher opts in to more only above 48 KiB, so
/// the rings cannot go in shared memory: `--buffer auto` (the default)
/// records straight to global memory and says so; `--buffer shared` refuses,
/// naming the way out; with --shared-opt-in (kperf.triton opts the kernel in
/// when it loads) the rings fit the device's capacity.
#[test]
fn triton_kernel_at_48_kib_of_shared_memory_instruments_when_the_launcher_opts_in() {
    let dir = tempfile::tempdir().expect("temp dir");
    let llir = dir.path().join("tut01_add.llir");
    std::fs::copy(root().join("corpus/triton/tut01_add.llir"), &llir).expect("copy");
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("corpus/triton/tut01_add.json")).expect("read"),
    )
    .expect("json");
    let mut meta = meta;
    meta["shared"] = serde_json::json!(48 * 1024);
    std::fs::write(dir.path().join("tut01_add.json"), meta.to_string()).expect("write");
    let input = llir.display().to_string();
    let out = dir.path().join("out.ll").display().to_string();
    let base = [
        "instrument",
        &input,
        "--regions",
        "kernel",
        "--emit",
        "llvm",
    ];
    let buffer = || -> serde_json::Value {
        let meta = std::fs::read_to_string(format!("{out}.kperf.json")).expect("meta");
        serde_json::from_str::<serde_json::Value>(&meta).expect("json")["buffer"].clone()
    };

    let (ok, _, err) = kperf(&[&base[..], &["-o", &out]].concat());
    assert!(ok, "{err}");
    assert_eq!(buffer(), "global");
    assert!(
        err.contains("profile buffer: global memory") && err.contains("--buffer auto"),
        "{err}"
    );

    let (ok, _, err) = kperf(&[&base[..], &["--buffer", "shared", "-o", &out]].concat());
    assert!(
        !ok,
        "48 KiB of Triton's own + kperf's rings cannot fit Triton's default 48 KiB"
    );
    assert!(
        err.contains("only 0 are allowed") && err.contains("--shared-opt-in"),
        "{err}"
    );

    let (ok, _, err) = kperf(&[&base[..], &["--shared-opt-in", "-o", &out]].concat());
    assert!(ok, "{err}");
    assert_eq!(buffer(), "shared");
    assert!(
        err.contains("profile buffer: rings in shared memory"),
        "{err}"
    );

    // Opted in or not, ptxas caps static shared memory (the rings) at 48 KiB.
    let (ok, _, err) = kperf(
        &[
            &base[..],
            &[
                "--buffer",
                "shared",
                "--shared-opt-in",
                "--slots",
                "2048",
                "-o",
                &out,
            ],
        ]
        .concat(),
    );
    assert!(
        !ok && err.contains("ptxas allows 49152 bytes of static shared memory"),
        "{err}"
    );
}
