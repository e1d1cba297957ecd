//! The GPU calibration kernel cannot run without a GPU, but it must lower
//! and assemble: one warp, 2·pairs straight-line records (one clock read
//! each), the in-loop measurement's records, plus the spin's clock64 reads.

use kperf_instrument::{instrument, Emit, InstrumentOptions, KperfContext, Target};
use kperf_runtime::calibrate::{calibration_kernel_gpu, KERNEL};
use std::path::Path;
use std::process::Command;

#[test]
fn gpu_calibration_kernel_instruments_and_assembles_for_sm_90a() {
    let pairs = 64;
    let opts = InstrumentOptions {
        target: Target::Nvptx {
            chip: "sm_90a".into(),
            simt: false,
        },
        slots: Some(128),
        ..InstrumentOptions::default()
    };
    let kctx = KperfContext::new().expect("context");
    let out = instrument(
        &kctx,
        &calibration_kernel_gpu(pairs, 1000),
        "calibration",
        &opts,
        Emit::Ptx,
    )
    .expect("instrument");
    let km = out.meta.kernel(KERNEL).expect("kernel metadata");
    assert_eq!(km.layout.units, 1, "one warp, one unit");
    let ptx = String::from_utf8(out.bytes).expect("utf-8");
    // One clock read per record: 2·pairs straight-line records, the two
    // loops' four outer records, and the iteration region's two records
    // once per copy of the loop body LLVM's unroller leaves (it unrolls
    // the recorded loop by 2 for sm_90a today; the count must stay whole).
    let reads = ptx.matches("%clock;").count();
    let in_loop = reads
        .checked_sub(2 * pairs + 4)
        .unwrap_or_else(|| panic!("{reads} clock reads, fewer than the records"));
    assert!(
        in_loop >= 2 && in_loop.is_multiple_of(2),
        "{in_loop} clock reads in the recorded loop: each copy of the body has a START and an END"
    );
    let dir = std::env::temp_dir().join(format!("kperf-gpucal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    std::fs::write(dir.join("k.ptx"), &ptx).expect("write");
    let ptxas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/bin/ptxas");
    let r = Command::new(ptxas)
        .args(["-arch=sm_90a", "-o"])
        .arg(dir.join("k.cubin"))
        .arg(dir.join("k.ptx"))
        .output()
        .expect("ptxas (run scripts/setup.sh)");
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
