//! Keeping MLIR's JIT from leaving perf jitdump files behind.
//!
//! MLIR's `ExecutionEngine` always attaches LLVM's perf listener (the C API
//! has no switch), which creates `$JITDUMPDIR/.debug/jit/llvm-IR-jit-*/`
//! (`$JITDUMPDIR` defaulting to the temporary directory) on the first JIT
//! of a process and leaves it there. Unless the user asks for the dump
//! (`KPERF_JITDUMP=1`, for `perf inject --jit`) or chose its place
//! (`JITDUMPDIR`), kperf points it at a private directory and deletes that
//! directory as soon as the listener has opened its file: the listener
//! writes on into an unlinked file, and nothing is left, even after a crash.

use std::path::PathBuf;
use std::sync::Mutex;

static PRIVATE_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Point the perf listener at a private directory unless the user wants
/// the dump. Call at the start of `main`, before any thread exists
/// (it sets an environment variable).
pub fn redirect() {
    if std::env::var_os("KPERF_JITDUMP").is_some() || std::env::var_os("JITDUMPDIR").is_some() {
        return;
    }
    let Some(dir) = private_dir() else {
        return; // No temporary directory: LLVM's default place it is.
    };
    std::env::set_var("JITDUMPDIR", &dir);
    crate::output::remove_empty_dir_on_interrupt(Some(&dir));
    if let Ok(mut slot) = PRIVATE_DIR.lock() {
        *slot = Some(dir);
    }
}

/// A new directory only this user can enter, created exclusively.
fn private_dir() -> Option<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    (0..16).find_map(|attempt| {
        let dir = std::env::temp_dir().join(format!(
            "kperf-jitdump-{}-{nanos}-{attempt}",
            std::process::id()
        ));
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .ok()
            .map(|()| dir)
    })
}

/// Delete the private directory (once the JIT has started, or at exit);
/// a no-op when there is none.
pub fn discard() {
    let dir = PRIVATE_DIR.lock().ok().and_then(|mut slot| slot.take());
    if let Some(dir) = dir {
        crate::output::remove_empty_dir_on_interrupt(None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
