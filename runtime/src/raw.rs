//! A raw profile buffer (what a launch wrote, without the `.kprof`
//! container) described by the `.kperf.json` metadata of its kernel.
//!
//! Two callers need the same checks: `kperf replay --raw buf --meta m.json`
//! and the Python package, which turns the buffer of a Triton launch into a
//! `.kprof` file. Both name the metadata file in every error, because that is
//! the file the user would have to fix.

use std::path::Path;

use kperf_dialects::meta::{InstrumentMeta, KernelMeta};

use crate::decode::ProfileReader;
use crate::error::RuntimeError;
use crate::profile::RunInfo;

/// What a raw buffer of `buffer_len` bytes is, according to its metadata.
#[derive(Clone, Debug)]
pub struct RawRun {
    pub info: RunInfo,
    /// Bytes per CTA block.
    pub cta_stride: u64,
    /// CTA blocks in the buffer.
    pub blocks: u64,
}

fn bad(meta_path: &Path, detail: String) -> RuntimeError {
    RuntimeError::BadArgument {
        path: meta_path.to_path_buf(),
        detail,
    }
}

/// Read and check `.kperf.json` metadata (ABI version included).
pub fn read_meta(meta_path: &Path) -> Result<InstrumentMeta, RuntimeError> {
    let bytes = crate::input::read(meta_path).map_err(|source| RuntimeError::Io {
        path: meta_path.to_path_buf(),
        source,
    })?;
    let meta: InstrumentMeta = serde_json::from_slice(&bytes).map_err(|e| {
        bad(
            meta_path,
            format!("not kperf instrumentation metadata: {e}"),
        )
    })?;
    if let Some(why) = meta.abi_mismatch() {
        return Err(bad(meta_path, why));
    }
    Ok(meta)
}

/// The kernel `name` of `meta`, or its only kernel when `name` is None.
pub fn pick_kernel(
    meta: &InstrumentMeta,
    meta_path: &Path,
    name: Option<&str>,
) -> Result<KernelMeta, RuntimeError> {
    match (name, meta.kernels.as_slice()) {
        (Some(k), _) => meta
            .kernel(k)
            .cloned()
            .ok_or_else(|| bad(meta_path, format!("does not describe kernel `{k}`"))),
        (None, [one]) => Ok(one.clone()),
        (None, []) => Err(bad(meta_path, "describes no kernel".into())),
        (None, _) => Err(bad(
            meta_path,
            format!(
                "describes several kernels ({}); name one",
                meta.kernels
                    .iter()
                    .map(|k| k.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

impl RawRun {
    /// Describe a raw buffer of `buffer_len` bytes (found at `buffer_path`,
    /// for messages) written by `kernel` of `meta`. `grid` defaults to one
    /// row of as many CTAs as the buffer has blocks (a sampled run must
    /// give it: refused otherwise); `block` defaults to the metadata's.
    pub fn describe(
        meta: &InstrumentMeta,
        meta_path: &Path,
        kernel: KernelMeta,
        grid: Option<[u32; 3]>,
        block: Option<[u32; 3]>,
        buffer_path: &Path,
        buffer_len: u64,
    ) -> Result<RawRun, RuntimeError> {
        let stride = kernel
            .layout
            .checked_cta_stride()
            .filter(|s| *s > 0)
            .ok_or_else(|| {
                bad(
                    meta_path,
                    format!(
                        "implausible layout ({} units of {} slots)",
                        kernel.layout.units, kernel.layout.slots
                    ),
                )
            })? as u64;
        let blocks = buffer_len / stride;
        if blocks == 0 || !buffer_len.is_multiple_of(stride) {
            return Err(RuntimeError::BadArgument {
                path: buffer_path.to_path_buf(),
                detail: format!(
                    "{buffer_len} bytes is not a whole number of CTA blocks of {stride} bytes \
                     (the layout in {})",
                    meta_path.display()
                ),
            });
        }
        let grid = match grid {
            Some(d) => {
                if d.contains(&0) {
                    return Err(bad(
                        buffer_path,
                        format!("grid {d:?} has an empty dimension"),
                    ));
                }
                let Some(ctas) = crate::profile::checked_ctas(&d) else {
                    return Err(bad(
                        buffer_path,
                        format!("grid {d:?} has more CTAs than a 64-bit count holds"),
                    ));
                };
                let sampled = kernel.cta_sampling.blocks(ctas);
                if sampled != blocks {
                    return Err(RuntimeError::BadArgument {
                        path: buffer_path.to_path_buf(),
                        detail: format!(
                            "holds {blocks} CTA blocks, but grid {}x{}x{} records {sampled}",
                            d[0], d[1], d[2]
                        ),
                    });
                }
                d
            }
            // A sampled run's blocks are not its grid: the grid of 1000
            // blocks of every 4th CTA read as 1000 CTAs, and 750 blocks as
            // corrupt. Which grid it was cannot be told from the buffer.
            None if kernel.cta_sampling != kperf_dialects::meta::CtaSampling::All => {
                return Err(RuntimeError::BadArgument {
                    path: buffer_path.to_path_buf(),
                    detail: format!(
                        "holds {blocks} CTA blocks of a run that recorded some CTAs only ({}): \
                         give the launch's grid with --grid",
                        match &kernel.cta_sampling {
                            kperf_dialects::meta::CtaSampling::Every(k) => format!(
                                "every {k}th: a grid of {} to {} CTAs",
                                (blocks - 1) * *k as u64 + 1,
                                blocks * *k as u64
                            ),
                            kperf_dialects::meta::CtaSampling::List(ids) =>
                                format!("{} listed CTAs", ids.len()),
                            kperf_dialects::meta::CtaSampling::All => String::new(),
                        }
                    ),
                });
            }
            None => [
                u32::try_from(blocks)
                    .map_err(|_| bad(buffer_path, format!("{blocks} CTA blocks: over 2^32")))?,
                1,
                1,
            ],
        };
        let block = block.unwrap_or(kernel.block);
        let info = RunInfo::for_kernel(meta, kernel, grid, block);
        Ok(RawRun {
            info,
            cta_stride: stride,
            blocks,
        })
    }
}

/// Memory-map the raw buffer at `buffer` described by the metadata at
/// `meta_path` (see [`RawRun::describe`] for `kernel` and `grid`).
pub fn open(
    buffer: &Path,
    meta_path: &Path,
    kernel: Option<&str>,
    grid: Option<[u32; 3]>,
) -> Result<ProfileReader, RuntimeError> {
    let meta = read_meta(meta_path)?;
    let km = pick_kernel(&meta, meta_path, kernel)?;
    // A FIFO, directory or device named first, not as "0 bytes is not a
    // whole number of CTA blocks".
    let io = |source| RuntimeError::Io {
        path: buffer.to_path_buf(),
        source,
    };
    crate::input::check_regular(buffer).map_err(io)?;
    let len = std::fs::metadata(buffer).map_err(io)?.len();
    let run = RawRun::describe(&meta, meta_path, km, grid, None, buffer, len)?;
    ProfileReader::open_raw(buffer, run.info, run.cta_stride)
}
