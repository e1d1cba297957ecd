//! The external CUDA binary tools (ptxas, cuobjdump, nvdisasm), found the
//! way scripts/setup.sh installs them: `$KPERF_TOOLS/bin`, the checkout's
//! `.tools/bin`, then `PATH`.

use crate::error::{InstrumentError, Result};
use std::path::PathBuf;
use std::process::Command;

/// Locate a tool by name, or explain how to install it.
pub fn find_tool(name: &str) -> Result<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("KPERF_TOOLS") {
        dirs.push(PathBuf::from(d).join("bin"));
    }
    // The checkout this binary was built from, and the current directory.
    dirs.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.tools/bin"));
    dirs.push(PathBuf::from(".tools/bin"));
    // LLVM 22's tools (llvm-dis) as Debian installs them.
    dirs.push(PathBuf::from("/usr/lib/llvm-22/bin"));
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file()).ok_or_else(|| InstrumentError::Tool {
        tool: name.to_string(),
        message: format!("`{name}` not found in $KPERF_TOOLS/bin, .tools/bin or PATH; run scripts/setup.sh, which installs it from PyPI into .tools/"),
    })
}

/// Run a tool, returning stdout; a failure carries its stderr.
pub fn run_tool(name: &str, args: &[&str]) -> Result<String> {
    let exe = find_tool(name)?;
    let out = Command::new(&exe)
        .args(args)
        .output()
        .map_err(|e| InstrumentError::Tool {
            tool: name.into(),
            message: format!("cannot run {}: {e}", exe.display()),
        })?;
    if !out.status.success() {
        let mut message = String::from_utf8_lossy(&out.stderr).into_owned();
        if message.contains("Unresolved extern function '__nv_") {
            // CUDA's math library, which a build links from libdevice.
            message.push_str(
                " (a libdevice function: kperf links libdevice.10.bc into MLIR builds that use \
                 it where it finds one; set KPERF_LIBDEVICE to a CUDA toolkit's \
                 nvvm/libdevice/libdevice.10.bc or Triton's triton/backends/nvidia/lib copy)",
            );
        }
        return Err(InstrumentError::Tool {
            tool: name.into(),
            message,
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// Assemble PTX for `chip` with ptxas into a cubin.
pub fn ptxas_cubin(ptx: &str, chip: &str) -> Result<Vec<u8>> {
    let dir = scratch_dir()?;
    let src = dir.join("k.ptx");
    let bin = dir.join("k.cubin");
    std::fs::write(&src, ptx).map_err(|e| InstrumentError::Io {
        path: src.display().to_string(),
        source: e,
    })?;
    run_tool(
        "ptxas",
        &[
            &format!("-arch={chip}"),
            "-O3",
            src.to_str().unwrap_or_default(),
            "-o",
            bin.to_str().unwrap_or_default(),
        ],
    )?;
    let bytes = std::fs::read(&bin).map_err(|e| InstrumentError::Io {
        path: bin.display().to_string(),
        source: e,
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(bytes)
}

/// A private temporary directory (removed by the caller).
pub fn scratch_dir() -> Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!(
        "kperf-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).map_err(|e| InstrumentError::Io {
        path: d.display().to_string(),
        source: e,
    })?;
    Ok(d)
}
