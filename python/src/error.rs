//! One error type for the bindings, raised in Python as `kperf.KperfError`
//! with the message the CLI would print (file, offset, cause).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    kperf,
    KperfError,
    PyException,
    "A profile, metadata, results file or setting kperf cannot use; the message names the file and the cause."
);

#[derive(Debug, thiserror::Error)]
pub enum BindingError {
    #[error(transparent)]
    Replay(#[from] kperf_replay::ReplayError),
    #[error(transparent)]
    Runtime(#[from] kperf_runtime::RuntimeError),
    #[error(transparent)]
    Output(#[from] kperf_runtime::output::OutputError),
    #[error(transparent)]
    Bench(#[from] kperf_bench::error::BenchError),
    #[error("{what}: {source}")]
    Json {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("{0}")]
    Invalid(String),
    /// An exception raised by Python code kperf called (a benchmarked
    /// function): re-raised as it was.
    #[error("{0}")]
    Python(#[from] PyErr),
}

impl BindingError {
    pub fn json(what: impl Into<String>) -> impl FnOnce(serde_json::Error) -> BindingError {
        let what = what.into();
        move |source| BindingError::Json { what, source }
    }
}

impl From<BindingError> for PyErr {
    fn from(e: BindingError) -> PyErr {
        if let BindingError::Python(err) = e {
            return err;
        }
        // The whole chain: thiserror's Display shows only the outer layer
        // for errors that wrap a source.
        let mut msg = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            let text = s.to_string();
            if !msg.contains(&text) {
                msg.push_str(": ");
                msg.push_str(&text);
            }
            src = s.source();
        }
        KperfError::new_err(msg)
    }
}

pub type Result<T> = std::result::Result<T, BindingError>;
