//! One kernel, two instrumentation paths, one decoder.
//!
//! `tests/cross/scale_rows.mlir` runs on the host twice: instrumented
//! through the MLIR path, and lowered plain to LLVM IR then instrumented
//! through the LLVM-IR path. Both profiles are read by the same decoder and
//! must describe the same execution: same layout, and per CTA the same
//! sequence of (region kind, edge) records. The kernels compute the same
//! outputs too.

use kperf_runtime::decode::ProfileReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kperf(args: &[&str]) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let o = Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("run kperf");
    assert!(
        o.status.success(),
        "kperf {args:?} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Per CTA: the (kind, edge) of every record, in order.
fn shape_of(profile: &Path) -> (String, Vec<Vec<String>>) {
    let r = ProfileReader::open(profile).expect("decodes");
    let info = r.info().clone();
    let kmeta = info.meta.kernels[0].clone();
    let layout = format!(
        "units {} slots {} counter {:?}",
        kmeta.layout.units, kmeta.layout.slots, info.counter
    );
    let mut ctas = Vec::new();
    for cta in r.ctas() {
        let cta = cta.expect("block decodes");
        let mut seq = Vec::new();
        for u in &cta.units {
            assert_eq!(u.records_lost, 0);
            for rec in &u.records {
                let region = kmeta.region(rec.region).expect("region in metadata");
                seq.push(format!("{:?} {:?}", region.kind, rec.edge));
            }
        }
        ctas.push(seq);
    }
    (layout, ctas)
}

fn outputs(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).expect("outputs written")).expect("json")
}

#[test]
fn mlir_and_llvm_paths_write_buffers_the_same_decoder_reads_alike() {
    let dir: PathBuf = std::env::temp_dir().join(format!("kperf-cross-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let p = |name: &str| dir.join(name).display().to_string();
    let (ll, a, b, ao, bo) = (
        p("scale_rows.ll"),
        p("mlir.kprof"),
        p("llvm.kprof"),
        p("mlir.out.json"),
        p("llvm.out.json"),
    );
    let common = [
        "--target",
        "host",
        "--spec",
        "tests/cross/scale_rows.toml",
        "--regions",
        "kernel,loops,iterations",
        "--threads",
        "1",
    ];
    kperf(&[
        "instrument",
        "tests/cross/scale_rows.mlir",
        "--plain",
        "--target",
        "host",
        "--emit",
        "llvm",
        "-o",
        &ll,
    ]);
    let mut args = vec![
        "run",
        "tests/cross/scale_rows.mlir",
        "-o",
        &a,
        "--outputs",
        &ao,
    ];
    args.extend(common);
    kperf(&args);
    let mut args = vec!["run", ll.as_str(), "-o", &b, "--outputs", &bo];
    args.extend(common);
    kperf(&args);

    let (la, sa) = shape_of(Path::new(&a));
    let (lb, sb) = shape_of(Path::new(&b));
    assert_eq!(la, lb, "same layout");
    assert_eq!(sa.len(), 8, "one block per CTA");
    // kernel START, loop START, 16 × (iteration START, END), loop END, kernel END
    assert_eq!(sa[0].len(), 2 + 2 + 2 * 16, "{:?}", sa[0]);
    assert_eq!(sa, sb, "same records per CTA");
    assert_eq!(outputs(Path::new(&ao)), outputs(Path::new(&bo)));
}
