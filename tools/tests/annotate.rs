//! `kperf run` then `kperf annotate` on the bundled host matmul: every
//! region's figures land on the op it came from, with the counts the code
//! must produce, and the annotated file is valid MLIR that kperf reads back.

use kperf_instrument::mlir::ir::print_with;
use kperf_instrument::mlir::{module_op, KperfContext};
use std::path::Path;
use std::process::Command;

fn kperf(args: &[&str], cwd: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run kperf");
    assert!(
        out.status.success(),
        "kperf {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn annotate_writes_counts_onto_the_loops_and_kernel() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = std::env::temp_dir().join(format!("kperf-annotate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let prof = dir.join("mm.kprof");
    let out = dir.join("mm.annotated.mlir");
    let (p, o) = (prof.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    kperf(
        &[
            "run",
            "examples/matmul_host.mlir",
            "--target",
            "host",
            "--spec",
            "examples/matmul_host.toml",
            "--regions",
            "kernel,loops",
            "--slots",
            "4096",
            "-o",
            p,
        ],
        &root,
    );
    let log = kperf(
        &[
            "annotate",
            "examples/matmul_host.mlir",
            "--profile",
            p,
            "-o",
            o,
        ],
        &root,
    );
    assert!(log.contains("5 region(s) annotated"), "{log}");
    let text = std::fs::read_to_string(&out).expect("annotated file");
    // Figures in decimal: MLIR printed those six digits did not give back
    // in hex (`mean_ns = 0x415BF51280000000`).
    assert!(!text.contains("= 0x"), "a hex float figure:\n{text}");
    let kctx = KperfContext::new().expect("context");
    let module = kctx
        .parse(&text, "annotated.mlir")
        .expect("annotated file is valid MLIR");
    // In pre-order: the kernel function, then the four nested loops
    // (source lines 15, 16, 17, 21), each with its instances over 16 CTAs.
    let expected = [
        ("func.func", "kernel", 16),
        ("scf.for", "\"loop@15:5\"", 16),
        ("scf.for", "\"loop@16:7\"", 64),
        ("scf.for", "\"loop@17:9\"", 1024),
        ("scf.for", "\"loop@21:18\"", 16384),
    ];
    let annotated: Vec<(String, String)> = module_op(&module)
        .nested_ops()
        .into_iter()
        .filter_map(|op| {
            let a = op.attr("kperf.measured")?;
            Some((
                op.name(),
                print_with(|cb, u| unsafe { mlir_sys::mlirAttributePrint(a, cb, u) }),
            ))
        })
        .collect();
    assert_eq!(annotated.len(), expected.len(), "{annotated:#?}");
    for ((op, attr), (want_op, key, count)) in annotated.iter().zip(expected) {
        assert_eq!(op, want_op, "{key} sits on the wrong op");
        assert!(
            attr.starts_with(&format!("{{{key} = {{"))
                && attr.contains(&format!("count = {count} : i64")),
            "{key}: expected count {count}: {attr}"
        );
        assert!(
            attr.contains("on_critical_path = true")
                && attr.contains("below_resolution = ")
                && attr.contains("mean_cycles = ")
                && attr.contains("share = "),
            "{attr}"
        );
    }
    // The annotated module is valid MLIR kperf reads back.
    kperf(
        &[
            "instrument",
            o,
            "--target",
            "host",
            "--emit",
            "kperf",
            "-o",
            dir.join("again.mlir").to_str().expect("utf-8"),
        ],
        &root,
    );
    let _ = std::fs::remove_dir_all(&dir);
}
