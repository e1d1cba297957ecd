//! Loading profiles from files: the one place that talks to the decoder.

use std::path::Path;

use kperf_runtime::decode::{BlockHead, BlockRead, ProfileReader};
use kperf_runtime::profile::{CtaTrace, RunInfo};
use kperf_runtime::RuntimeError;

use crate::analyze::ReplayReport;
use crate::correct::Correction;
use crate::engine::{replay_blocks, EarlyCta, ProfileScan, ScanDepth};
use crate::feedback::Profile;
use crate::regions::RegionTable;
use crate::{ReplayError, ReplayOptions};

fn profile_err(path: &Path, source: kperf_runtime::RuntimeError) -> ReplayError {
    ReplayError::Profile {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

fn open(path: &Path, proton: bool) -> Result<ProfileReader, ReplayError> {
    let r = if proton {
        ProfileReader::open_proton(path)
    } else {
        ProfileReader::open(path)
    };
    r.map_err(|source| profile_err(path, source))
}

/// Blocks per scan chunk. Chunks are scanned in parallel and merged in
/// block order, so the scan, its floating-point sums included, is the same
/// whatever the number of threads.
const SCAN_CHUNK: u64 = 64;

/// How much of each block the scan before a replay must read: the headers
/// alone where the correction needs nothing of the records ahead, the
/// metadata names the regions and the blocks have headers to read (a
/// Proton block is decoded either way), so that the replay decodes each
/// block once.
fn scan_depth(reader: &ProfileReader, opts: &ReplayOptions) -> ScanDepth {
    match reader.reads_heads_alone() {
        true => scan_depth_for(reader.info(), opts),
        false => ScanDepth::Records,
    }
}

/// [`scan_depth`] for blocks that have headers to read.
fn scan_depth_for(info: &RunInfo, opts: &ReplayOptions) -> ScanDepth {
    let regions_named = RegionTable::kernel_meta(info).is_some_and(|k| !k.regions.is_empty());
    if regions_named && !Correction::needs_record_scan(info, opts) {
        ScanDepth::Headers
    } else {
        ScanDepth::Records
    }
}

/// The scan pass over every block, on all cores: its header and unit table
/// ([`ScanDepth::Headers`]) or its records too, each chunk of blocks decoded
/// into one reused buffer. A block that fails the decoder's checks is
/// counted and left out (the others are independent of it), unless no
/// block decodes at all: then the first failure is the error.
fn scan_reader(
    reader: &ProfileReader,
    path: &Path,
    depth: ScanDepth,
) -> Result<ProfileScan, ReplayError> {
    use rayon::prelude::*;
    let blocks = reader.block_count();
    let base = match depth {
        ScanDepth::Records => {
            let mut scan = ProfileScan::for_run(reader.info());
            scan.kernel_spans
                .plan_samples(fit_sample_plan(reader, &scan, blocks));
            scan
        }
        ScanDepth::Headers => ProfileScan::headers_only(),
    };
    let parts: Vec<(ProfileScan, Option<RuntimeError>)> = (0..blocks.div_ceil(SCAN_CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut scan = base.clone();
            let mut cta = CtaTrace::default();
            let mut head = BlockHead::default();
            let mut first_error = None;
            let end = ((chunk + 1) * SCAN_CHUNK).min(blocks);
            for block in chunk * SCAN_CHUNK..end {
                let read = match depth {
                    ScanDepth::Records => reader.read_cta_into(block, &mut cta),
                    ScanDepth::Headers => reader.read_head(block, &mut head),
                };
                match read {
                    Ok(BlockRead::Decoded) => match depth {
                        ScanDepth::Records => scan.observe_block(block, &cta),
                        ScanDepth::Headers => {
                            scan.observe_head(&head);
                            if crate::time::init_stamp_believed(
                                head.start_time_ns,
                                head.finalize_start_ns,
                            ) {
                                scan.note_early(EarlyCta::of_head(&head));
                            } else if let Ok(BlockRead::Decoded) =
                                reader.read_cta_into(block, &mut cta)
                            {
                                // Placed by its finalize stamp, its records'
                                // span before it: decoded whole (rare).
                                scan.note_early(EarlyCta::of(&cta));
                            }
                        }
                    },
                    Ok(BlockRead::Unfinished) => scan.observe_unfinished(block),
                    Ok(BlockRead::Unwritten) => scan.observe_unwritten(),
                    Err(e) => {
                        scan.observe_bad(&e);
                        first_error.get_or_insert(e);
                    }
                }
            }
            (scan, first_error)
        })
        .collect();
    let mut scan = base;
    let mut first_error = None;
    for (part, error) in parts {
        scan.merge(part);
        if first_error.is_none() {
            first_error = error;
        }
    }
    match first_error {
        Some(e) if scan.ctas == 0 => Err(profile_err(path, e)),
        _ => Ok(scan),
    }
}

/// Blocks whose kernel regions size the fit's sample ([`fit_sample_plan`]).
const SAMPLE_PROBES: u64 = 64;

/// Which blocks the fit samples, one plan for every chunk of the parallel
/// scan: sized by the heaviest of [`SAMPLE_PROBES`] blocks picked by hash
/// (the first alone let a grid whose later CTAs loop twice as long give
/// the sample none of them).
fn fit_sample_plan(
    reader: &ProfileReader,
    scan: &ProfileScan,
    blocks: u64,
) -> crate::engine::SamplePlan {
    let spans = &scan.kernel_spans;
    let mut cta = CtaTrace::default();
    // Hashed, off any period of the grid: evenly spaced probes were all
    // the light CTAs of a triangular (causal attention) grid.
    let mut heaviest = 0;
    for k in 0..SAMPLE_PROBES.min(blocks) {
        let block = crate::engine::mix64(k) % blocks;
        if let Ok(BlockRead::Decoded) = reader.read_cta_into(block, &mut cta) {
            heaviest = heaviest.max(spans.sample_clocks(&cta));
        }
    }
    crate::engine::SamplePlan::new(blocks, spans.units_per_block, heaviest)
}

/// The CTAs the scan kept, decoded again one at a time: written, finished
/// blocks that pass the decoder's checks (the scan counted the others).
fn scanned_ctas<'a>(
    reader: &'a ProfileReader,
) -> impl Iterator<Item = Result<CtaTrace, ReplayError>> + 'a {
    (0..reader.block_count()).filter_map(move |block| match reader.cta(block) {
        Ok(Some(cta)) => Some(Ok(cta)),
        Ok(None) | Err(_) => None,
    })
}

/// Replay an opened profile (e.g. [`ProfileReader::open_raw`]), as
/// [`replay_file`] does.
pub fn replay_reader(
    reader: &ProfileReader,
    opts: &ReplayOptions,
    trace_out: Option<&Path>,
) -> Result<ReplayReport, ReplayError> {
    opts.validate()?;
    match scan_depth(reader, opts) {
        // A region the metadata does not name: the table must list the
        // records' ids in the order they first appear, which takes the
        // records' scan (the trace is written again from its start).
        ScanDepth::Headers => {
            match replay_after_scan(reader, opts, trace_out, ScanDepth::Headers) {
                Err(ReplayError::Changed { .. }) => {
                    replay_after_scan(reader, opts, trace_out, ScanDepth::Records)
                }
                done => done,
            }
        }
        ScanDepth::Records => replay_after_scan(reader, opts, trace_out, ScanDepth::Records),
    }
}

/// The scan at `depth`, then the replay pass.
fn replay_after_scan(
    reader: &ProfileReader,
    opts: &ReplayOptions,
    trace_out: Option<&Path>,
    depth: ScanDepth,
) -> Result<ReplayReport, ReplayError> {
    let scan = scan_reader(reader, reader.path(), depth)?;
    // The blocks the scan kept: written, finished, passing the decoder's checks.
    let decode = |block| reader.cta(block).ok().flatten();
    replay_blocks(
        reader.info(),
        opts,
        &scan,
        reader.block_count(),
        decode,
        trace_out,
    )
}

/// Replay a `.kprof` file, streaming: a cheap scan of the memory-mapped
/// profile (CTA start times and record gaps, decoded into one reused
/// buffer), then the replay pass, which decodes, replays and analyses
/// batches of CTAs on all cores and writes the trace (if `trace_out` is
/// given) in block order as it goes.
pub fn replay_file(
    path: &Path,
    opts: &ReplayOptions,
    trace_out: Option<&Path>,
) -> Result<ReplayReport, ReplayError> {
    let reader = open(path, false)?;
    replay_reader(&reader, opts, trace_out)
}

/// [`replay_file`] for a Triton Proton host dump.
pub fn replay_proton_file(
    path: &Path,
    opts: &ReplayOptions,
    trace_out: Option<&Path>,
) -> Result<ReplayReport, ReplayError> {
    let reader = open(path, true)?;
    replay_reader(&reader, opts, trace_out)
}

pub(crate) fn load_profile(
    path: &Path,
    opts: &ReplayOptions,
    proton: bool,
) -> Result<Profile, ReplayError> {
    let reader = open(path, proton)?;
    load_reader(&reader, opts)
}

pub(crate) fn load_reader(
    reader: &ProfileReader,
    opts: &ReplayOptions,
) -> Result<Profile, ReplayError> {
    opts.validate()?;
    let scan = scan_reader(reader, reader.path(), scan_depth(reader, opts))?;
    Profile::from_source(reader.info().clone(), opts, &scan, scanned_ctas(reader))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kperf_runtime::profile::UninstrumentedRun;
    use kperf_runtime::synthetic::{cta_block, run_info};

    /// A profile of `blocks` blocks, every third written (more blocks than
    /// a scan chunk, so the scan's chunks are merged), with one block past
    /// the last CTA's start that is corrupt.
    fn profile(info: &RunInfo, blocks: u32) -> Vec<u8> {
        let stride = info.meta.kernels[0].layout.cta_stride();
        let mut buffer = vec![0u8; stride * blocks as usize];
        for cta in (0..blocks).step_by(3) {
            let at = stride * cta as usize;
            buffer[at..at + stride].copy_from_slice(&cta_block(cta));
        }
        // A unit of the block at 9 claims more records than its CTA's ticks hold.
        let entry = stride * 9 + info.meta.kernels[0].layout.unit_entry_offset(1);
        let written = entry + kperf_dialects::abi::unit_entry::RECORDS_WRITTEN;
        buffer[written..written + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        kperf_runtime::kprof::encode_kprof(info, stride, &buffer).expect("valid profile")
    }

    /// The report (as JSON) and both traces of a replay after a scan at `depth`.
    fn outputs(reader: &ProfileReader, opts: &ReplayOptions, depth: ScanDepth) -> Vec<Vec<u8>> {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut out = Vec::new();
        for (format, name) in [
            (crate::TraceFormat::Chrome, "t.json"),
            (crate::TraceFormat::Perfetto, "t.pftrace"),
        ] {
            let path = dir.path().join(name);
            let opts = ReplayOptions {
                trace_format: format,
                ..opts.clone()
            };
            let report = replay_after_scan(reader, &opts, Some(&path), depth).expect("replays");
            out.push(serde_json::to_vec(&report).expect("serializes"));
            out.push(std::fs::read(&path).expect("trace written"));
        }
        out
    }

    #[test]
    fn a_scan_of_the_headers_replays_as_a_scan_of_the_records() {
        let info = run_info(70);
        let reader = ProfileReader::from_bytes(profile(&info, 70)).expect("opens");
        let opts = ReplayOptions::default();
        assert_eq!(scan_depth(&reader, &opts), ScanDepth::Headers);
        let records = outputs(&reader, &opts, ScanDepth::Records);
        assert_eq!(outputs(&reader, &opts, ScanDepth::Headers), records);
        let report: serde_json::Value = serde_json::from_slice(&records[0]).expect("json");
        assert_ne!(
            report["correction"]["min_gap_ticks"],
            serde_json::Value::Null
        );
        assert!(
            report["caveats"]
                .to_string()
                .contains("failed their checks"),
            "the corrupt block is counted: {}",
            report["caveats"]
        );
    }

    #[test]
    fn a_region_the_metadata_does_not_name_takes_the_records_scan() {
        let mut info = run_info(70);
        info.meta.kernels[0].regions.retain(|r| r.name != "mma");
        let reader = ProfileReader::from_bytes(profile(&info, 70)).expect("opens");
        let opts = ReplayOptions::default();
        assert_eq!(scan_depth(&reader, &opts), ScanDepth::Headers);
        assert!(matches!(
            replay_after_scan(&reader, &opts, None, ScanDepth::Headers),
            Err(ReplayError::Changed { .. })
        ));
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.json");
        let report = replay_reader(&reader, &opts, Some(&path)).expect("replays");
        let records = outputs(&reader, &opts, ScanDepth::Records);
        assert_eq!(serde_json::to_vec(&report).expect("serializes"), records[0]);
        assert_eq!(std::fs::read(&path).expect("trace"), records[1]);
    }

    #[test]
    fn what_the_correction_needs_decides_the_scan() {
        let info = run_info(1);
        let opts = ReplayOptions::default();
        let uncalibrated = RunInfo {
            record_cost_ticks: None,
            ..info.clone()
        };
        let checked = RunInfo {
            check: Some(UninstrumentedRun {
                ctas: 1,
                cta_mean_ticks: Some(1e5),
                cta_median_ticks: None,
                wall_ns: 1,
                method: "test".into(),
                profiled_wall_ns: None,
            }),
            ..info.clone()
        };
        let mut unnamed = info.clone();
        unnamed.meta.kernels.clear();
        let cases = [
            (&info, &opts, ScanDepth::Headers),
            (&uncalibrated, &opts, ScanDepth::Records),
            (&checked, &opts, ScanDepth::Records),
            (&unnamed, &opts, ScanDepth::Records),
        ];
        for (info, opts, depth) in cases {
            assert_eq!(scan_depth_for(info, opts), depth, "{info:?}");
        }
        let given = ReplayOptions {
            record_cost_ticks: Some(5.0),
            ..opts.clone()
        };
        assert_eq!(scan_depth_for(&uncalibrated, &given), ScanDepth::Headers);
        let no_fit = ReplayOptions {
            fit_to_check: false,
            ..opts.clone()
        };
        assert_eq!(scan_depth_for(&checked, &no_fit), ScanDepth::Headers);
        // A Proton block has no header to read alone: decoding it twice is
        // no worse than reading its "head" (a decode) and then decoding it.
        let proton = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/proton/loop.bin");
        let reader = ProfileReader::open_proton(&proton).expect("fixture");
        assert_eq!(scan_depth(&reader, &opts), ScanDepth::Records);
    }
}
