//! Running JIT'd kernels in a child process.
//!
//! The guards ([`crate::guard`]) catch a kernel that leaves its buffers by
//! up to 16 GiB, and the canary catches writes into the slack beside them.
//! What they cannot catch is a wild pointer that lands in another live
//! mapping of kperf's (its heap, a library's data) or a kernel that frees or
//! overruns memory it got from `malloc`: in kperf's own process that
//! corrupts kperf undetected. So a launch runs in a forked child. The
//! buffers and the profile are shared mappings ([`crate::guard`] maps them
//! `MAP_SHARED`), so what the kernel writes there is what the parent reads;
//! everything else the child touches is its own copy, gone when it exits.
//! The child sends the launch's result back through a pipe (JSON; exact for
//! `f64` with serde_json's `float_roundtrip`).
//!
//! A kernel that traps, divides by zero or aborts now ends the child, not
//! kperf: the parent names the signal and returns an error, and the run's
//! outputs are not written. A guard-page fault is reported by the guard
//! handler in the child, as before, and comes back as
//! [`LaunchError::OutOfBounds`].

use std::io::{Read, Write};
use std::os::fd::FromRawFd;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::guard::OUT_OF_BOUNDS_EXIT;
use crate::launch_error::LaunchError;

/// Whether launches run in a child process: unless `KPERF_IN_PROCESS` is
/// set (for a debugger, which follows the parent).
pub fn enabled() -> bool {
    std::env::var_os("KPERF_IN_PROCESS").is_none()
}

/// "kernel `name`", the name made printable, for errors.
pub fn kernel_label(name: &str) -> String {
    let shown = kperf_dialects::meta::displayable_name(name, 256);
    format!("kernel `{}`", shown.as_deref().unwrap_or(name))
}

/// The most bytes a launch's child may send back.
const MAX_RESULT_BYTES: u64 = 256 << 20;

/// The child's exit status when `body` panicked (Rust's default hook has
/// printed the message).
const PANICKED: i32 = 101;
/// The child's exit status when its result could not be sent.
const NOT_SENT: i32 = 102;

/// Run `body` in a forked child of this process and return its result
/// (in this process when [`enabled`] says no). `what` names the launch in
/// errors ("kernel `k`"). Only memory shared with the child (`MAP_SHARED`
/// mappings) carries anything else back.
pub fn in_child<R, F>(what: &str, body: F) -> Result<R, LaunchError>
where
    R: Serialize + DeserializeOwned,
    F: FnOnce() -> R,
{
    if !enabled() {
        return Ok(body());
    }
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(LaunchError::Launch(format!(
            "{what}: cannot create the pipe to the kernel's process: {}",
            std::io::Error::last_os_error()
        )));
    }
    let [read_end, write_end] = fds;
    // Whatever this process has buffered would otherwise be written twice,
    // once by each process (a kernel calling printf flushes the child's C
    // streams when it ends).
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: fflush(NULL) flushes every C stream; no preconditions.
    unsafe { libc::fflush(std::ptr::null_mut()) };
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: fork has no preconditions. The child runs `body` on its one
    // thread (it may start its own) and ends with _exit, so neither this
    // process's destructors nor its atexit handlers run twice.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let err = std::io::Error::last_os_error();
        // SAFETY: both descriptors are ours and open.
        unsafe {
            libc::close(read_end);
            libc::close(write_end);
        }
        return Err(LaunchError::Launch(format!(
            "{what}: cannot start the kernel's process: {err}"
        )));
    }
    if pid == 0 {
        // SAFETY: closing our own descriptor, signal dispositions and
        // prctl have no preconditions. The parent's interrupt handler
        // (crate::output) would remove the parent's temporaries when only
        // the child is signalled: the child ends by the default action
        // instead. A child whose parent was interrupted (SIGINT sent to
        // kperf alone) must not run on: it is killed when the parent ends,
        // or ends now if that already happened.
        unsafe {
            libc::close(read_end);
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP]
                .into_iter()
                .chain(crate::output::CRASH_SIGNALS)
            {
                libc::signal(sig, libc::SIG_DFL);
            }
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::_exit(NOT_SENT);
            }
        }
        let status = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
            Ok(result) => match serde_json::to_vec(&result) {
                Ok(bytes) => {
                    // SAFETY: the write end is ours; File closes it on drop.
                    let mut pipe = unsafe { std::fs::File::from_raw_fd(write_end) };
                    if pipe.write_all(&bytes).is_ok() {
                        0
                    } else {
                        NOT_SENT
                    }
                }
                Err(_) => NOT_SENT,
            },
            Err(_) => PANICKED,
        };
        // SAFETY: flushing C streams (the kernel's printf) and ending the
        // child without running this process's exit handlers.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(status)
        }
    }
    // SAFETY: the parent's copy of the write end is unused; closing it lets
    // the read below end when the child does.
    unsafe { libc::close(write_end) };
    // SAFETY: the read end is ours; File closes it on drop.
    let mut pipe = unsafe { std::fs::File::from_raw_fd(read_end) };
    let mut bytes = Vec::new();
    // At most 256 MiB (or the memory limit): a kernel writing to the pipe
    // made kperf read 2.6 GB into 5.2 GB of its own memory; a launch's
    // result is a few numbers (its per-CTA data lives in shared mappings).
    // Past it the child is stopped (it would block on a full pipe) and
    // the launch refused.
    let limit = crate::guard::memory_limit()
        .unwrap_or(u64::MAX)
        .min(MAX_RESULT_BYTES);
    let read = (&mut pipe)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes);
    let flooded = bytes.len() as u64 > limit;
    if flooded {
        // SAFETY: `pid` is our child, not yet waited for.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let status = wait(pid).map_err(|e| {
        LaunchError::Launch(format!("{what}: cannot wait for the kernel's process: {e}"))
    })?;
    if flooded {
        return Err(LaunchError::Launch(format!(
            "{what}: the kernel's process sent more than {limit} bytes back (a result is a few \
             numbers): a kernel writing to kperf's result pipe? It was stopped"
        )));
    }
    let ended = if libc::WIFSIGNALED(status) {
        format!(
            "ended by {} (kperf itself is unharmed; nothing was written)",
            describe_signal(libc::WTERMSIG(status))
        )
    } else {
        match libc::WEXITSTATUS(status) {
            0 => String::new(),
            OUT_OF_BOUNDS_EXIT => {
                return Err(LaunchError::OutOfBounds(format!(
                    "{what}: the kernel accessed memory outside its buffers (reported above)"
                )))
            }
            crate::simt::threads::DEADLOCK_EXIT => {
                return Err(LaunchError::Deadlock(format!(
                    "{what}: stopped by the SIMT runner (reported above)"
                )))
            }
            PANICKED => "panicked (message above)".into(),
            NOT_SENT => "could not send its result back".into(),
            c => format!("exited with status {c} (did the kernel call exit?)"),
        }
    };
    if !ended.is_empty() {
        return Err(LaunchError::Launch(format!(
            "{what}: the kernel's process {ended}"
        )));
    }
    read.map_err(|e| {
        LaunchError::Launch(format!("{what}: reading the kernel's result failed: {e}"))
    })?;
    serde_json::from_slice(&bytes).map_err(|e| {
        LaunchError::Launch(format!(
            "{what}: the kernel's process sent a result that does not parse ({e})"
        ))
    })
}

/// waitpid, retried when a signal interrupts it.
fn wait(pid: libc::pid_t) -> std::io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status it is given.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return Ok(status);
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// A signal's name and what a kernel does to raise it.
fn describe_signal(sig: i32) -> String {
    let (name, why) = match sig {
        libc::SIGILL => (
            "SIGILL",
            "an illegal instruction: a trap (llvm.trap, __builtin_trap) or unreachable code reached",
        ),
        libc::SIGTRAP => ("SIGTRAP", "a breakpoint or debug trap"),
        libc::SIGFPE => (
            "SIGFPE",
            "an arithmetic fault: integer division by zero or overflow",
        ),
        libc::SIGABRT => (
            "SIGABRT",
            "abort: the kernel, or a library it called, gave up (glibc does on heap corruption)",
        ),
        libc::SIGSEGV | libc::SIGBUS => ("SIGSEGV/SIGBUS", "a memory fault"),
        libc::SIGKILL => (
            "SIGKILL",
            "killed from outside: out of memory, or a limit on CPU time",
        ),
        libc::SIGXCPU => ("SIGXCPU", "the CPU-time limit"),
        libc::SIGINT | libc::SIGTERM | libc::SIGHUP => (
            "an interrupt (SIGINT/SIGTERM/SIGHUP)",
            "sent to the kernel's process from outside",
        ),
        _ => ("a signal", "not one a kernel raises by itself"),
    };
    format!("{name} ({sig}), {why}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_exactly() {
        let v = vec![0.1f64, 1.0 / 3.0, f64::MAX, 5e-324];
        let back: Vec<f64> = in_child("test", || v.clone()).expect("child runs");
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_child_killed_by_a_signal_is_an_error_naming_it() {
        let e = in_child("kernel `k`", || {
            // SAFETY: ends this (child) process.
            unsafe { libc::raise(libc::SIGFPE) };
            0u32
        })
        .expect_err("the child died");
        assert!(e.to_string().contains("SIGFPE"), "{e}");
    }

    #[test]
    fn the_childs_memory_is_its_own() {
        let mut heap = [1u8; 64];
        let seen: u8 = in_child("test", || {
            heap.iter_mut().for_each(|b| *b = 9);
            heap[0]
        })
        .expect("child runs");
        assert_eq!((seen, heap[0]), (9, 1));
    }
}
