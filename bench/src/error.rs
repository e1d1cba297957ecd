//! One error type for the crate, so the CLI can print any failure with the
//! context needed to act on it (which setting, which file, which column).

use std::path::PathBuf;

/// Everything that can go wrong in `kperf-bench`.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A statistic was asked of an empty sample set.
    #[error("no samples in {context}")]
    NoSamples { context: String },

    /// A sample that cannot be a duration (negative, NaN or infinite), or
    /// a zero where a ratio divides by it.
    #[error("sample {index} of {context} is {value}: {rule}")]
    InvalidSample {
        context: String,
        index: usize,
        value: f64,
        rule: &'static str,
    },

    /// A configuration value outside its meaningful range.
    #[error("invalid setting {name} = {value}: {why}")]
    InvalidSetting {
        name: String,
        value: String,
        why: String,
    },

    /// A user FLOP/byte expression that does not parse or evaluate.
    /// `column` is 1-based and counts characters.
    #[error("{message} at column {column}\n  {expr}\n  {caret}")]
    Expr {
        expr: String,
        column: usize,
        message: String,
        /// Spaces and a `^` under the column, ready to print below `expr`.
        caret: String,
    },

    /// A metric that needs a missing input (an unknown compute roof, a
    /// zero time).
    #[error("cannot compute {what}: {why}")]
    Metric { what: String, why: String },

    /// Reading or writing a file.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A JSON file that does not match the schema.
    #[error("{action} {path}: {source}")]
    Json {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    /// A results or device-profile file written by an incompatible version.
    #[error("{path}: schema version {found} is not supported (this build reads {supported})")]
    SchemaVersion {
        path: PathBuf,
        found: u32,
        supported: u32,
    },

    /// NVML could not be loaded or queried (libnvidia-ml absent, no driver,
    /// no permission, unsupported query).
    #[error("NVML: {0}")]
    Nvml(String),

    /// Two results share a point and implementation: a comparison would
    /// pair one of them with whichever it met first.
    #[error("{origin}: point `{point}` of `{implementation}` appears {count} times; a results file holds each (parameters, implementation) once (name the benchmarks apart, or give each its parameters)")]
    DuplicatePoint {
        origin: String,
        point: String,
        implementation: String,
        count: usize,
    },

    /// Drawing the roofline failed.
    #[error("roofline plot: {0}")]
    Plot(String),

    /// A host measurement helper failed (timer calibration, sysfs parsing).
    #[error("host: {0}")]
    Host(String),
}

/// `Result` with [`BenchError`].
pub type Result<T, E = BenchError> = std::result::Result<T, E>;

impl BenchError {
    pub(crate) fn setting(name: &str, value: impl std::fmt::Display, why: &str) -> Self {
        BenchError::InvalidSetting {
            name: name.to_string(),
            value: value.to_string(),
            why: why.to_string(),
        }
    }
}

/// Rejects empty sample sets and samples that are not durations.
pub(crate) fn check_samples(samples: &[f64], context: &str) -> Result<()> {
    if samples.is_empty() {
        return Err(BenchError::NoSamples {
            context: context.to_string(),
        });
    }
    if let Some((index, &value)) = samples
        .iter()
        .enumerate()
        .find(|(_, v)| !v.is_finite() || **v < 0.0)
    {
        return Err(BenchError::InvalidSample {
            context: context.to_string(),
            index,
            value,
            rule: "samples must be finite and non-negative",
        });
    }
    Ok(())
}

/// Read a results or device-profile file the user named: a regular file
/// only (a FIFO would block the open, a device could be read without end;
/// `kperf_runtime::input` says the same for kperf's other inputs).
pub(crate) fn read_input(path: &std::path::Path) -> std::io::Result<String> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is not a regular file (a directory, FIFO or device): give a file",
        ));
    }
    // As kperf's other inputs are bounded: a 1.2 GB results file was read
    // whole before its first character was found wrong.
    const MOST: u64 = 1 << 30;
    let size = std::fs::metadata(path)?.len();
    if size > MOST {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("is {size} bytes, more than the {MOST} (1 GiB) kperf reads of a results, peaks or spec file"),
        ));
    }
    std::fs::read_to_string(path)
}
