//! Overhead correction measured against the truth on the host.
//!
//! `work` holds a spin of exactly N = 200 000 cycles and 2K+1 records (K = 300 nested empty
//! regions and its own END). After calibrating the record cost on the same
//! machine, the corrected duration must be within 2% of N while the raw one
//! is visibly longer.

use kperf_dialects::abi::Counter;
use kperf_dialects::meta::Granularity;
use kperf_instrument::mlir::pipeline::prepare_host;
use kperf_instrument::{InstrumentOptions, KperfContext, Target};
use kperf_replay::{Profile, ReplayOptions};
use kperf_runtime::calibrate::{self, calibration_kernel, known_work_kernel, DeviceProfile};
use kperf_runtime::host::run_host;
use kperf_runtime::profile::RunInfo;
use kperf_runtime::spec::LaunchSpec;
use kperf_runtime::ProfileReader;

const SPIN: u64 = 200_000;
const INNER_PAIRS: usize = 300;

fn run(source: &str, kernel: &str, ctas: u32) -> (RunInfo, Vec<kperf_runtime::profile::CtaTrace>) {
    let opts = InstrumentOptions {
        target: Target::Host,
        counter: Counter::Clock32,
        granularity: Granularity::Cta,
        slots: Some(1024),
        ..InstrumentOptions::default()
    };
    let kctx = KperfContext::new().expect("context");
    let hm =
        prepare_host(&kctx, source, kernel, &opts, Some(kernel), true, None).expect("instrument");
    let meta = hm.meta.clone().expect("instrumented");
    let km = meta.kernel(kernel).cloned().expect("kernel meta");
    let spec = LaunchSpec {
        kernel: Some(kernel.into()),
        grid: [ctas, 1, 1],
        block: [1, 1, 1],
        shared_bytes: 0,
        args: vec![],
        origin: None,
        placement: Default::default(),
    };
    // One thread: the CTAs run one after another, undisturbed by each other.
    let r = run_host(&hm.module, kernel, &[], Some(&km), &spec, 1).expect("run");
    let info = RunInfo::for_kernel(&meta, km.clone(), spec.grid, [1, 1, 1]);
    let bytes = kperf_runtime::kprof::encode_kprof(&info, km.layout.cta_stride(), &r.profile)
        .expect("encode");
    let reader = ProfileReader::from_bytes(bytes).expect("open");
    let ctas = reader
        .ctas()
        .collect::<Result<Vec<_>, _>>()
        .expect("decode");
    (info, ctas)
}

fn median_work_ticks(
    info: &RunInfo,
    ctas: Vec<kperf_runtime::profile::CtaTrace>,
    opts: &ReplayOptions,
) -> (f64, f64) {
    let p = Profile::from_parts_with(info.clone(), ctas, opts).expect("replay");
    let id = p
        .region_by_name(calibrate::WORK_REGION)
        .expect("work region")
        .id;
    let mut raw: Vec<f64> = p.instances(id).map(|i| i.raw_ticks as f64).collect();
    let mut cor: Vec<f64> = p.instances(id).map(|i| i.corrected_ticks).collect();
    assert!(!raw.is_empty(), "no `work` instances");
    raw.sort_by(f64::total_cmp);
    cor.sort_by(f64::total_cmp);
    (raw[raw.len() / 2], cor[cor.len() / 2])
}

#[test]
fn corrected_durations_match_known_work_within_two_percent() {
    let (cinfo, cctas) = run(&calibration_kernel(256, 1_000_000), calibrate::KERNEL, 8);
    let device: DeviceProfile = calibrate::compute(&cinfo, &cctas).expect("calibration");
    let (mut info, ctas) = run(
        &known_work_kernel(INNER_PAIRS, SPIN),
        calibrate::WORK_KERNEL,
        8,
    );
    device.apply(&mut info);
    let (raw, corrected) = median_work_ticks(&info, ctas.clone(), &ReplayOptions::default());
    let (raw_nc, uncorrected) = median_work_ticks(&info, ctas, &ReplayOptions::no_correction());
    let err = (corrected - SPIN as f64) / SPIN as f64;
    let raw_err = (uncorrected - SPIN as f64) / SPIN as f64;
    println!(
        "record cost {:.1} ticks; work truth {SPIN}; raw {raw:.0} ({:+.2}%); corrected {corrected:.0} ({:+.2}%)",
        device.record_cost_ticks,
        raw_err * 100.0,
        err * 100.0
    );
    assert_eq!(
        raw, raw_nc,
        "raw ticks do not depend on the correction switch"
    );
    assert!(
        err.abs() < 0.02,
        "corrected work is {:+.2}% off the truth",
        err * 100.0
    );
    assert!(
        raw_err > 0.05,
        "the raw measurement should carry the records' cost visibly ({:+.2}%)",
        raw_err * 100.0
    );
}
