//! `kperf._kperf`: the compiled half of the `kperf` Python package.
//!
//! It binds the crates that need no LLVM: the profile decoder and `.kprof`
//! writer (kperf-runtime without its launchers), replay (kperf-replay) and
//! the benchmark core (kperf-bench). Everything user-facing (classes with
//! docstrings, numpy arrays, the Triton hook) lives in the pure-Python
//! package beside it (`python/kperf/`); this module hands it JSON documents
//! in the schemas the CLI writes and columns of little-endian numbers, so
//! the two halves agree on one definition of every figure: the Rust one.

mod bench;
mod columns;
mod error;
mod profile;

use pyo3::prelude::*;

#[pymodule]
fn _kperf(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("KperfError", m.py().get_type::<error::KperfError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<profile::PyProfile>()?;
    m.add_function(wrap_pyfunction!(profile::load, m)?)?;
    m.add_function(wrap_pyfunction!(profile::write_kprof, m)?)?;
    m.add_function(wrap_pyfunction!(bench::measure, m)?)?;
    m.add_function(wrap_pyfunction!(bench::host_device, m)?)?;
    m.add_function(wrap_pyfunction!(bench::default_settings, m)?)?;
    m.add_function(wrap_pyfunction!(bench::make_results, m)?)?;
    m.add_function(wrap_pyfunction!(bench::save_results, m)?)?;
    m.add_function(wrap_pyfunction!(bench::compare_results, m)?)?;
    m.add_function(wrap_pyfunction!(bench::results_table, m)?)?;
    Ok(())
}
