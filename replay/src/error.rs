use std::path::PathBuf;

/// Everything that can stop a replay. Problems *in* the data (lost records,
/// unmatched pairs, odd clocks) are not errors: they are counted and reported
/// in the [`crate::ReplayReport`].
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The profile file could not be opened or decoded (the source names
    /// the file and byte offset).
    #[error("cannot read profile: {source}")]
    Profile {
        path: PathBuf,
        #[source]
        source: Box<kperf_runtime::RuntimeError>,
    },
    /// A CTA source (other than a profile file) failed.
    #[error("cannot read CTA {index} of the profile: {message}")]
    Source { index: u64, message: String },
    /// A block decoded differently in the replay than in the scan before
    /// it: the file changed while it was read.
    #[error(
        "block {block} of the profile changed during the replay (it names a region the first \
         pass did not see): is something still writing the file?"
    )]
    Changed { block: u64 },
    /// The Chrome trace file could not be created or written.
    #[error("cannot write Chrome trace {path}: {source}")]
    TraceFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Writing the Chrome trace to a caller-provided writer failed.
    #[error("cannot write Chrome trace: {0}")]
    TraceWrite(#[source] std::io::Error),
    /// A [`crate::ReplayOptions`] value is unusable.
    #[error("invalid replay option: {0}")]
    InvalidOption(String),
    /// A report could not be serialised.
    #[error("cannot serialise the {what}: {source}")]
    Json {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
}
