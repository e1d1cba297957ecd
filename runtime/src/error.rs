//! The one error type of kperf-runtime.
//!
//! Profiles come from devices, disks and other tools, so every format
//! problem says which file and which absolute byte offset it is about: a
//! user looking at a corrupt 10 GB profile needs to know where to look, and
//! a fuzzer finding a rejected input needs to know which check fired.

use kperf_dialects::abi::HeaderError;
use std::path::PathBuf;

/// Everything that can go wrong writing, opening or decoding a profile.
///
/// `path` is the file concerned (`<memory>` for in-memory input) and
/// `offset` the absolute byte offset in that file (or buffer) where the
/// offending field starts.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The operating system refused a read, write, map or rename.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The file does not start with the expected magic bytes.
    #[error("{}: byte {offset}: bad magic {found:02x?}, expected {expected:02x?} ({what})", path.display())]
    BadMagic {
        path: PathBuf,
        offset: u64,
        what: &'static str,
        found: Vec<u8>,
        expected: Vec<u8>,
    },

    /// The container or dump has a version this build does not read.
    #[error("{}: byte {offset}: unsupported {what} version {found} (this build reads {supported})", path.display())]
    BadVersion {
        path: PathBuf,
        offset: u64,
        what: &'static str,
        found: u64,
        supported: u64,
    },

    /// The file ends before a field it must contain.
    #[error("{}: byte {offset}: truncated {what}: needs {needed} bytes, only {available} remain", path.display())]
    Truncated {
        path: PathBuf,
        offset: u64,
        what: &'static str,
        needed: u64,
        available: u64,
    },

    /// The embedded `RunInfo` JSON does not parse.
    #[error("{}: byte {offset}: bad RunInfo JSON ({len} bytes): {source}", path.display())]
    BadJson {
        path: PathBuf,
        offset: u64,
        len: u64,
        #[source]
        source: serde_json::Error,
    },

    /// block_count × cta_stride does not account for exactly the bytes after the header.
    #[error(
        "{}: byte {offset}: {block_count} blocks × {cta_stride} bytes = {expected} bytes of buffer, but the file holds {actual}{}",
        path.display(),
        if (*actual as u128) < *expected { " (truncated?)" } else { "" }
    )]
    SizeMismatch {
        path: PathBuf,
        offset: u64,
        block_count: u64,
        cta_stride: u64,
        expected: u128,
        actual: u64,
    },

    /// A count or size field is larger than the file (or the address space) could hold.
    #[error("{}: byte {offset}: {what} = {value} is impossible (limit {limit})", path.display())]
    Implausible {
        path: PathBuf,
        offset: u64,
        what: &'static str,
        value: u64,
        limit: u64,
    },

    /// A field holds a value the format does not allow (odd word count, zero stride, ...).
    #[error("{}: byte {offset}: invalid {what}: {detail}", path.display())]
    Invalid {
        path: PathBuf,
        offset: u64,
        what: &'static str,
        detail: String,
    },

    /// A CTA block's header was rejected by [`kperf_dialects::abi::CtaHeader::parse`].
    #[error("{}: byte {offset}: CTA block {block_index}: {source}", path.display())]
    BadCtaHeader {
        path: PathBuf,
        offset: u64,
        block_index: u64,
        #[source]
        source: HeaderError,
    },

    /// A CTA block's header disagrees with the run's metadata (counter,
    /// strategy, layout): decoding it with the wrong assumptions would give
    /// silently wrong clocks, so it is refused.
    #[error("{}: byte {offset}: CTA block {block_index}: {what} is {found} but the run says {expected}", path.display())]
    MetaMismatch {
        path: PathBuf,
        offset: u64,
        block_index: u64,
        what: &'static str,
        found: String,
        expected: String,
    },

    /// The caller asked for something the format cannot represent (writer side).
    #[error("{}: {detail}", path.display())]
    BadArgument { path: PathBuf, detail: String },
}

impl RuntimeError {
    /// The absolute byte offset a format error points at, if it has one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            RuntimeError::Io { .. } | RuntimeError::BadArgument { .. } => None,
            RuntimeError::BadMagic { offset, .. }
            | RuntimeError::BadVersion { offset, .. }
            | RuntimeError::Truncated { offset, .. }
            | RuntimeError::BadJson { offset, .. }
            | RuntimeError::SizeMismatch { offset, .. }
            | RuntimeError::Implausible { offset, .. }
            | RuntimeError::Invalid { offset, .. }
            | RuntimeError::BadCtaHeader { offset, .. }
            | RuntimeError::MetaMismatch { offset, .. } => Some(*offset),
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            RuntimeError::Io { path, .. }
            | RuntimeError::BadMagic { path, .. }
            | RuntimeError::BadVersion { path, .. }
            | RuntimeError::Truncated { path, .. }
            | RuntimeError::BadJson { path, .. }
            | RuntimeError::SizeMismatch { path, .. }
            | RuntimeError::Implausible { path, .. }
            | RuntimeError::Invalid { path, .. }
            | RuntimeError::BadCtaHeader { path, .. }
            | RuntimeError::MetaMismatch { path, .. }
            | RuntimeError::BadArgument { path, .. } => path,
        }
    }
}

impl From<crate::output::OutputError> for RuntimeError {
    fn from(e: crate::output::OutputError) -> RuntimeError {
        use crate::output::OutputError;
        match e {
            OutputError::Io { path, source } => RuntimeError::Io { path, source },
            OutputError::IsInput { ref output, .. } => RuntimeError::BadArgument {
                path: output.clone(),
                detail: e.to_string(),
            },
            OutputError::Unwritable { path, why } => {
                RuntimeError::BadArgument { path, detail: why }
            }
        }
    }
}
