//! Loading profiles from files: the one place that talks to the decoder.

use std::path::Path;

use kperf_runtime::decode::{BlockRead, ProfileReader};
use kperf_runtime::profile::CtaTrace;
use kperf_runtime::RuntimeError;

use crate::analyze::ReplayReport;
use crate::engine::{replay_blocks, ProfileScan};
use crate::feedback::Profile;
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

/// The scan pass: headers and record gaps of every CTA, on all cores, each
/// chunk of blocks decoded into one reused buffer. A block that fails the
/// decoder's checks is counted and left out (the others are independent of
/// it), unless no block decodes at all: then the first failure is the error.
fn scan_reader(reader: &ProfileReader, path: &Path) -> Result<ProfileScan, ReplayError> {
    use rayon::prelude::*;
    let base = ProfileScan::for_run(reader.info());
    let blocks = reader.block_count();
    let parts: Vec<(ProfileScan, Option<RuntimeError>)> = (0..blocks.div_ceil(SCAN_CHUNK))
        .into_par_iter()
        .map(|chunk| {
            let mut scan = base.clone();
            if chunk >= crate::engine::FIT_SAMPLE_CHUNKS {
                scan.kernel_spans.sample_room = 0;
            }
            let mut cta = CtaTrace::default();
            let mut first_error = None;
            let end = ((chunk + 1) * SCAN_CHUNK).min(blocks);
            for block in chunk * SCAN_CHUNK..end {
                match reader.read_cta_into(block, &mut cta) {
                    Ok(BlockRead::Decoded) => scan.observe(&cta),
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
    let scan = scan_reader(reader, reader.path())?;
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
    let scan = scan_reader(reader, reader.path())?;
    Profile::from_source(reader.info().clone(), opts, &scan, scanned_ctas(reader))
}
