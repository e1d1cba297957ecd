//! The CUDA target: load PTX or cubin with the driver (loaded at run time,
//! so building needs no CUDA), allocate the profile buffer, launch, copy back.
//!
//! Only the driver check is here so far: on a machine without a driver,
//! [`check_driver`] names what is missing instead of letting cudarc panic.

use crate::launch_error::LaunchError;

/// Is a CUDA driver loadable? cudarc panics on the first driver call when
/// libcuda is absent, so ask first and turn the answer into an error.
pub fn check_driver() -> Result<(), LaunchError> {
    // SAFETY: only probes whether the library can be opened.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(LaunchError::NoDriver(
            "libcuda.so (the NVIDIA driver library) could not be loaded; install the NVIDIA driver or run with --target host".into(),
        ))
    }
}
