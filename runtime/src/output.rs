//! Writing outputs without losing data: every file kperf writes goes
//! through here.
//!
//! - The bytes go to a temporary with a unique name (`.<name>.<pid>.<n>.tmp`
//!   in the output's directory, created exclusively), and the temporary is
//!   renamed over the output: readers see the old file or the new one,
//!   never a torn one, and two runs writing one output cannot mix.
//! - An output that is not a regular file (a FIFO, `/dev/null`, a
//!   terminal) is copied into once complete: renaming would replace it. A
//!   symbolic link is followed: the file it names is replaced, not the link.
//! - Temporaries are removed on error, on drop and on SIGINT/SIGTERM
//!   ([`install_interrupt_cleanup`]).
//! - [`check_output`] refuses an output that is one of the inputs, or a
//!   directory, or in a directory that does not exist, before any work.

use std::ffi::{CString, OsString};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// Temporaries alive at once that an interrupt can clean up.
const SLOTS: usize = 64;

/// Why an output cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("refusing to write {}: it is {what} {}", output.display(), input.display())]
    IsInput {
        output: PathBuf,
        what: String,
        input: PathBuf,
    },
    #[error("cannot write {}: {why}", path.display())]
    Unwritable { path: PathBuf, why: String },
}

/// Refuse `output` when it is the same file as one of `inputs` (each with
/// the role named in the error: "the kernel", "the profile"), a
/// directory, or in a directory that does not exist. Call it before any
/// work, so a bad `-o` fails before a long run rather than after.
pub fn check_output(output: &Path, inputs: &[(&str, &Path)]) -> Result<(), OutputError> {
    // Many tools read `-o -` as standard output; here it would quietly
    // create a file named `-`.
    if output.as_os_str() == "-" {
        return Err(OutputError::Unwritable {
            path: output.to_path_buf(),
            why: "kperf does not read `-` as standard output (it would create a file named `-`): \
                  name a file, or /dev/stdout for a command that writes one file"
                .into(),
        });
    }
    if let Ok(out_meta) = std::fs::metadata(output) {
        if out_meta.is_dir() {
            return Err(OutputError::Unwritable {
                path: output.to_path_buf(),
                why: "it is a directory".into(),
            });
        }
        for (role, input) in inputs {
            if let Ok(in_meta) = std::fs::metadata(input) {
                if same_inode(&in_meta, &out_meta) {
                    return Err(OutputError::IsInput {
                        output: output.to_path_buf(),
                        what: role.to_string(),
                        input: input.to_path_buf(),
                    });
                }
            }
        }
        return Ok(());
    }
    let dir = parent_dir(output);
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(OutputError::Unwritable {
            path: output.to_path_buf(),
            why: format!("{} is not a directory", dir.display()),
        }),
        Err(e) => Err(OutputError::Unwritable {
            path: output.to_path_buf(),
            why: format!("{}: {e}", dir.display()),
        }),
    }
}

fn same_inode(x: &std::fs::Metadata, y: &std::fs::Metadata) -> bool {
    x.dev() == y.dev() && x.ino() == y.ino()
}

/// Whether two paths name one file: the same device and inode when both
/// exist, else the same path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => same_inode(&x, &y),
        // Not both there yet: the same name in the same directory
        // (`y.kprof` and `./y.kprof`, or through a linked directory).
        _ => a == b || resolved(a).is_some_and(|ra| resolved(b) == Some(ra)),
    }
}

/// A path's directory resolved (symlinks, `..`) and its file name, a
/// final symbolic link followed even where its target does not exist yet
/// (`b.json -> a.json` with neither written: the two outputs are one).
fn resolved(p: &Path) -> Option<PathBuf> {
    let p = follow_links(p);
    let dir = std::fs::canonicalize(parent_dir(&p)).ok()?;
    Some(dir.join(p.file_name()?))
}

/// `p` with a final symbolic link followed, hop by hop (at most 40, as the
/// kernel allows), whether or not its target exists: the file an output
/// through the link lands in.
fn follow_links(p: &Path) -> PathBuf {
    let mut p = p.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&p) {
                Ok(target) if target.is_absolute() => p = target,
                Ok(target) => p = parent_dir(&p).join(target),
                Err(_) => break,
            },
            _ => break,
        }
    }
    p
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A unique temporary beside an output, created exclusively and removed
/// on drop or interrupt unless [`TempPath::persist`]ed over the output.
/// For writers that take a path (the streamed trace).
pub struct TempPath {
    dest: PathBuf,
    tmp: Option<PathBuf>,
    slot: Option<usize>,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempPath {
    pub fn beside(dest: &Path) -> Result<TempPath, OutputError> {
        // A symbolic link is followed (the file it names is the output),
        // also one whose target does not exist yet: it was replaced by a
        // regular file.
        let dest = follow_links(dest);
        if std::fs::symlink_metadata(&dest).is_ok_and(|m| m.file_type().is_symlink()) {
            // 40 hops and still a link: a loop (`a -> b -> a`), which was
            // replaced by a regular file.
            return Err(OutputError::Unwritable {
                path: dest,
                why: "its symbolic links loop (or chain past 40)".into(),
            });
        }
        if std::fs::metadata(&dest).is_ok_and(|m| m.is_dir()) {
            return Err(OutputError::Unwritable {
                path: dest,
                why: "it is a directory".into(),
            });
        }
        let name = dest.file_name().ok_or_else(|| OutputError::Unwritable {
            path: dest.clone(),
            why: "the path names no file".into(),
        })?;
        // Beside a device or FIFO there may be no writable directory
        // (`/dev`): its temporary goes to the system's.
        let dir = if is_special(&dest) {
            std::env::temp_dir()
        } else {
            parent_dir(&dest).to_path_buf()
        };
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let mut tmp_name = OsString::from(".");
            tmp_name.push(name);
            tmp_name.push(format!(".{}.{nanos}.{n}.tmp", std::process::id()));
            let tmp = dir.join(tmp_name);
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(_) => {
                    let slot = register(&tmp);
                    return Ok(TempPath {
                        dest,
                        tmp: Some(tmp),
                        slot,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(OutputError::Unwritable {
                        path: dest.clone(),
                        why: e.to_string(),
                    })
                }
            }
        }
    }

    /// The temporary to write.
    pub fn path(&self) -> &Path {
        self.tmp.as_deref().expect("present until persisted")
    }

    /// The output (as given, or the file a link names).
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Publish the temporary as the output: renamed over a regular file,
    /// copied into a FIFO or device (which a rename would replace).
    pub fn persist(mut self) -> Result<(), OutputError> {
        let tmp = self.tmp.take().expect("present until persisted");
        let err = |source| OutputError::Io {
            path: self.dest.clone(),
            source,
        };
        let done = if is_special(&self.dest) {
            File::open(&tmp)
                .and_then(|mut from| {
                    let mut to = OpenOptions::new().write(true).open(&self.dest)?;
                    std::io::copy(&mut from, &mut to)
                })
                .map(|_| ())
                .and_then(|_| std::fs::remove_file(&tmp))
        } else {
            std::fs::rename(&tmp, &self.dest)
        };
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        done.map_err(err)
    }
}

impl Drop for TempPath {
    fn drop(&mut self) {
        if let Some(tmp) = &self.tmp {
            // Best effort: the error that made us drop is the one to report.
            let _ = std::fs::remove_file(tmp);
        }
        if let Some(s) = self.slot {
            unregister(s);
        }
    }
}

fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| {
        let ft = m.file_type();
        ft.is_fifo() || ft.is_char_device() || ft.is_block_device() || ft.is_socket()
    })
}

/// An output being written: [`AtomicFile::commit`] publishes it; dropping
/// it uncommitted removes the temporary.
pub struct AtomicFile {
    tmp: TempPath,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    pub fn create(dest: &Path) -> Result<AtomicFile, OutputError> {
        let tmp = TempPath::beside(dest)?;
        let f = OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(tmp.path())
            .map_err(|e| OutputError::Unwritable {
                path: tmp.dest().to_path_buf(),
                why: e.to_string(),
            })?;
        Ok(AtomicFile {
            tmp,
            writer: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// The output's path (as given, or the file a link names).
    pub fn path(&self) -> &Path {
        self.tmp.dest()
    }

    /// Where to write the bytes.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.writer.as_mut().expect("writer present until commit")
    }

    /// An I/O error while writing, named after the user's output rather
    /// than the hidden temporary.
    pub fn error(&self, source: std::io::Error) -> OutputError {
        OutputError::Io {
            path: self.path().to_path_buf(),
            source,
        }
    }

    /// Flush, sync and publish under the final name.
    pub fn commit(mut self) -> Result<(), OutputError> {
        let w = self.writer.take().expect("writer present until commit");
        let file = w.into_inner().map_err(|e| self.error(e.into_error()))?;
        file.sync_all().map_err(|e| self.error(e))?;
        drop(file);
        self.tmp.persist()
    }
}

/// Write `bytes` to `dest` atomically (see the module doc).
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let mut f = AtomicFile::create(dest)?;
    f.writer().write_all(bytes).map_err(|e| f.error(e))?;
    f.commit()
}

// ---------------------------------------------------------------------------
// Interrupt cleanup: the handler unlinks live temporaries, then lets the
// signal end the process as it would have.

#[allow(clippy::declare_interior_mutable_const)]
const NONE: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());
static TEMPS: [AtomicPtr<libc::c_char>; SLOTS] = [NONE; SLOTS];

fn register(tmp: &Path) -> Option<usize> {
    let c = CString::new(tmp.as_os_str().as_bytes()).ok()?;
    let raw = c.into_raw();
    for (i, s) in TEMPS.iter().enumerate() {
        if s.compare_exchange(
            std::ptr::null_mut(),
            raw,
            Ordering::AcqRel,
            Ordering::Relaxed,
        )
        .is_ok()
        {
            return Some(i);
        }
    }
    // SAFETY: `raw` came from `into_raw` above and was not published.
    drop(unsafe { CString::from_raw(raw) });
    None
}

fn unregister(i: usize) {
    let raw = TEMPS[i].swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !raw.is_null() {
        // SAFETY: published by `register`, taken back exactly once here.
        drop(unsafe { CString::from_raw(raw) });
    }
}

/// A file of this process removed if it is interrupted while the guard
/// lives (a large scratch file: `kperf replay-bench` left an 11.6 GB
/// profile behind when stopped); `None` where every slot is taken.
pub fn remove_on_interrupt(path: &Path) -> Option<InterruptCleanup> {
    register(path).map(InterruptCleanup)
}

/// See [`remove_on_interrupt`]: unregisters on drop.
pub struct InterruptCleanup(usize);

impl Drop for InterruptCleanup {
    fn drop(&mut self) {
        unregister(self.0);
    }
}

/// An empty directory to remove on interrupt (see [`crate::jitdump`]).
static EMPTY_DIR: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Remove `dir` if the process is interrupted while it is still empty;
/// `None` forgets the one given before.
pub fn remove_empty_dir_on_interrupt(dir: Option<&Path>) {
    let raw = dir
        .and_then(|d| CString::new(d.as_os_str().as_bytes()).ok())
        .map_or(std::ptr::null_mut(), CString::into_raw);
    let old = EMPTY_DIR.swap(raw, Ordering::AcqRel);
    if !old.is_null() {
        // SAFETY: published by this function, taken back exactly once here.
        drop(unsafe { CString::from_raw(old) });
    }
}

extern "C" fn on_interrupt(sig: libc::c_int) {
    remove_temporaries();
    // SAFETY: restore the default action and re-raise, so the exit status
    // says the process was interrupted.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Async-signal-safe: unlink live temporaries, remove the empty directory.
fn remove_temporaries() {
    for s in TEMPS.iter() {
        let p = s.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: unlink is async-signal-safe; `p` is a leaked C string.
            unsafe { libc::unlink(p) };
        }
    }
    let dir = EMPTY_DIR.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !dir.is_null() {
        // SAFETY: rmdir is async-signal-safe (and fails on a non-empty
        // directory); `dir` is a leaked C string.
        unsafe { libc::rmdir(dir) };
    }
}

/// Signals a crash inside kperf's own process raises: an assertion or
/// `unreachable` in MLIR or LLVM (a pass that traps on its input:
/// `convert-gpu-to-nvvm` on `gpu.subgroup_mma_elementwise`, say), an abort.
pub const CRASH_SIGNALS: [libc::c_int; 3] = [libc::SIGTRAP, libc::SIGABRT, libc::SIGILL];

extern "C" fn on_crash(sig: libc::c_int) {
    let msg: &[u8] = match sig {
        libc::SIGTRAP => b"kperf: error: kperf stopped with SIGTRAP",
        libc::SIGABRT => b"kperf: error: kperf stopped with SIGABRT",
        _ => b"kperf: error: kperf stopped with SIGILL",
    };
    let why: &[u8] = b" (an assertion or trap in kperf, or in an MLIR or LLVM pass it ran on \
        the input; if mlir-opt with the same passes stops on this input too, the fault is \
        upstream). Nothing was written.\n";
    remove_temporaries();
    // SAFETY: write, signal and raise are async-signal-safe; the default
    // action then ends the process with the signal's status.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::write(2, why.as_ptr().cast(), why.len());
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Say why kperf stopped when MLIR or LLVM traps or aborts inside its own
/// process (it ended silently, exit status 133), and remove temporaries.
/// Kernel launches run in a child that restores the default actions
/// ([`crate::isolate`]), whose parent names the signal instead.
pub fn install_crash_report() {
    for sig in CRASH_SIGNALS {
        // SAFETY: the handler only calls async-signal-safe functions.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_crash as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

/// Remove live temporaries when the process is interrupted (SIGINT,
/// SIGTERM, SIGHUP). The binary calls this once at start.
pub fn install_interrupt_cleanup() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only calls async-signal-safe functions.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

/// Bytes staged before a write around the page cache: a whole number of
/// the alignment direct I/O asks for.
const DIRECT_STAGE: usize = 2 << 20;
/// Alignment of a direct write's buffer, file offset and length (the
/// largest logical block size Linux file systems use).
const DIRECT_ALIGN: usize = 4096;

/// A big output written once and not read back soon (a trace of
/// gigabytes), written around the page cache where the file system allows
/// it (Linux `O_DIRECT`): whole aligned blocks go from a staging buffer to
/// the device, and only the last partial block, at [`Write::flush`], goes
/// through the page cache. Copying into the page cache is most of the cost
/// of writing a big file on a virtual machine: `dd` of 1.9 GB took 5.1 s of
/// system time buffered and 0.3 s direct on kperf's 2-core VM (2026-11-26).
/// Where the file system refuses direct I/O (tmpfs before Linux 6.6, some
/// network and FUSE file systems), or on other systems, the same bytes are
/// written the ordinary way.
///
/// Writes are staged: nothing reaches the file before a full stage or
/// [`Write::flush`]. Dropping it unflushed loses the staged bytes, as an
/// error path that removes the file anyway wants.
pub struct DirectFile {
    file: File,
    /// Staging memory, over-allocated so that an aligned window fits.
    memory: Vec<u8>,
    /// Where the aligned window starts in `memory`.
    window: usize,
    /// Bytes staged in the window.
    staged: usize,
    /// Writes still go around the page cache.
    direct: bool,
}

impl DirectFile {
    /// Create (or truncate) `path` for writing.
    pub fn create(path: &Path) -> std::io::Result<DirectFile> {
        let (file, direct) = open_direct(path)?;
        let memory = vec![0u8; DIRECT_STAGE + DIRECT_ALIGN];
        // `align_offset` may say it cannot align (usize::MAX): the window
        // then starts where it fits, unaligned, and the first direct write's
        // EINVAL turns the file to ordinary writes.
        let window = memory.as_ptr().align_offset(DIRECT_ALIGN).min(DIRECT_ALIGN);
        Ok(DirectFile {
            file,
            memory,
            window,
            staged: 0,
            direct,
        })
    }

    /// `path` written the ordinary way from the start (what a file system
    /// that refuses direct I/O gets), for tests.
    #[cfg(test)]
    fn create_buffered(path: &Path) -> std::io::Result<DirectFile> {
        let mut f = DirectFile::create(path)?;
        if f.direct {
            f.stop_direct()?;
        }
        Ok(f)
    }

    /// Write the first `len` staged bytes, then move what follows them to
    /// the window's start. Direct writes are whole aligned blocks; a file
    /// system that refuses one turns the file back to ordinary writes.
    fn write_staged(&mut self, len: usize) -> std::io::Result<()> {
        let window = self.window..self.window + DIRECT_STAGE;
        let mut done = 0;
        while done < len {
            let bytes = &self.memory[window.start + done..window.start + len];
            match self.file.write(bytes) {
                Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if self.direct && e.raw_os_error() == Some(libc::EINVAL) => {
                    self.stop_direct()?
                }
                Err(e) => {
                    // What went out is gone from the stage: a retry goes on
                    // from the file's end, not from the stage's start.
                    self.memory.copy_within(
                        window.start + done..window.start + self.staged,
                        window.start,
                    );
                    self.staged -= done;
                    return Err(e);
                }
            }
            // A short direct write leaves an unaligned offset: go on
            // through the page cache.
            if self.direct && done % DIRECT_ALIGN != 0 {
                self.stop_direct()?;
            }
        }
        self.memory
            .copy_within(window.start + len..window.start + self.staged, window.start);
        self.staged -= len;
        Ok(())
    }

    fn stop_direct(&mut self) -> std::io::Result<()> {
        stop_direct(&self.file)?;
        self.direct = false;
        Ok(())
    }
}

impl Write for DirectFile {
    /// Stages `bytes`, writing out each full stage first; an error with
    /// nothing of `bytes` staged is returned, otherwise the count staged.
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut consumed = 0;
        while consumed < bytes.len() {
            if self.staged == DIRECT_STAGE {
                if let Err(e) = self.write_staged(DIRECT_STAGE) {
                    return if consumed == 0 { Err(e) } else { Ok(consumed) };
                }
            }
            let n = (bytes.len() - consumed).min(DIRECT_STAGE - self.staged);
            let at = self.window + self.staged;
            self.memory[at..at + n].copy_from_slice(&bytes[consumed..consumed + n]);
            self.staged += n;
            consumed += n;
        }
        Ok(consumed)
    }

    /// Write everything staged: the whole blocks directly, the last
    /// partial block through the page cache (after which the file stays
    /// with ordinary writes: its end is no longer aligned).
    fn flush(&mut self) -> std::io::Result<()> {
        if self.direct {
            self.write_staged(self.staged / DIRECT_ALIGN * DIRECT_ALIGN)?;
            if self.staged > 0 {
                self.stop_direct()?;
            }
        }
        self.write_staged(self.staged)?;
        self.file.flush()
    }
}

/// Open `path` for direct writes, or for ordinary ones where the file
/// system refuses direct I/O; says which.
#[cfg(target_os = "linux")]
fn open_direct(path: &Path) -> std::io::Result<(File, bool)> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    match options.clone().custom_flags(libc::O_DIRECT).open(path) {
        Ok(file) => Ok((file, true)),
        // EINVAL is how Linux file systems without direct I/O refuse it.
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::EOPNOTSUPP)) => {
            Ok((options.open(path)?, false))
        }
        Err(e) => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn open_direct(path: &Path) -> std::io::Result<(File, bool)> {
    Ok((File::create(path)?, false))
}

/// Turn `file` back to writes through the page cache.
#[cfg(target_os = "linux")]
fn stop_direct(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns, with integer flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn stop_direct(_file: &File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_equal_to_an_input_is_refused_naming_both() {
        let dir = tempfile::tempdir().expect("tempdir");
        let input = dir.path().join("k.mlir");
        std::fs::write(&input, "x").expect("write");
        let err = check_output(&input, &[("the kernel", &input)]).expect_err("same file");
        assert!(err.to_string().contains("it is the kernel"), "{err}");
        // The same file by another name.
        let alias = dir.path().join("./k.mlir");
        assert!(check_output(&alias, &[("the kernel", &input)]).is_err());
        assert!(check_output(&dir.path().join("o.kprof"), &[("the kernel", &input)]).is_ok());
        assert!(check_output(dir.path(), &[]).is_err());
        let dash = check_output(Path::new("-"), &[]).expect_err("`-` is refused");
        assert!(dash.to_string().contains("/dev/stdout"), "{dash}");
        assert!(check_output(&dir.path().join("missing/o"), &[]).is_err());
    }

    /// A link whose target does not exist yet: two outputs through it
    /// are one file (the trace was silently lost to the feedback), and
    /// writing through it creates the target, keeping the link.
    #[test]
    fn a_dangling_link_is_followed_to_the_file_it_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::os::unix::fs::symlink("a.json", &b).expect("link");
        assert!(same_file(&a, &b));
        write_atomically(&b, b"through").expect("write");
        assert!(std::fs::symlink_metadata(&b)
            .expect("link")
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&a).expect("target"), b"through");
        // A loop is refused, the links left as they are.
        let (x, y) = (dir.path().join("x"), dir.path().join("y"));
        std::os::unix::fs::symlink("y", &x).expect("link");
        std::os::unix::fs::symlink("x", &y).expect("link");
        assert!(write_atomically(&x, b"no").is_err());
        assert!(std::fs::symlink_metadata(&x)
            .expect("link")
            .file_type()
            .is_symlink());
    }

    #[test]
    fn two_writers_never_tear_and_leave_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("o.json");
        let a = vec![b'a'; 1 << 20];
        let b = vec![b'b'; 1 << 20];
        std::thread::scope(|s| {
            for bytes in [&a, &b, &a, &b] {
                let out = &out;
                s.spawn(move || write_atomically(out, bytes).expect("write"));
            }
        });
        let got = std::fs::read(&out).expect("read");
        assert!(got == a || got == b);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(left, vec![OsString::from("o.json")]);
    }

    #[test]
    fn a_fifo_is_written_in_place_not_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("f");
        let c = CString::new(fifo.as_os_str().as_bytes()).expect("cstr");
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).expect("read fifo"))
        };
        write_atomically(&fifo, b"hello").expect("write");
        assert_eq!(reader.join().expect("join"), b"hello");
        assert!(std::fs::metadata(&fifo)
            .expect("meta")
            .file_type()
            .is_fifo());
    }

    /// Writes of awkward sizes, staged and flushed, read back as written,
    /// direct and buffered, in this test's temporary directory and on tmpfs
    /// (which takes direct I/O since Linux 6.6 and refused it before).
    #[test]
    fn a_direct_file_holds_exactly_what_was_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let shm = std::path::Path::new("/dev/shm");
        let dirs = [
            Some(dir.path().to_path_buf()),
            shm.is_dir().then(|| shm.to_path_buf()),
        ];
        let pieces = [
            1,
            4095,
            4096,
            7,
            DIRECT_STAGE - 3,
            DIRECT_STAGE + 5,
            3 * DIRECT_STAGE,
            17,
        ];
        for d in dirs.into_iter().flatten() {
            for (buffered, total_pieces) in [false, true]
                .into_iter()
                .flat_map(|b| [0, 1, 2, 3, pieces.len()].map(|n| (b, n)))
            {
                let path = d.join(format!(
                    "kperf-direct-{}-{buffered}-{total_pieces}",
                    std::process::id()
                ));
                let mut want = Vec::new();
                let mut f = if buffered {
                    DirectFile::create_buffered(&path).expect("create")
                } else {
                    DirectFile::create(&path).expect("create")
                };
                for (k, &n) in pieces[..total_pieces].iter().enumerate() {
                    let bytes: Vec<u8> = (0..n).map(|i| (i * 31 + k * 7) as u8).collect();
                    f.write_all(&bytes).expect("write");
                    want.extend(bytes);
                }
                f.flush().expect("flush");
                drop(f);
                let got = std::fs::read(&path).expect("read back");
                let _ = std::fs::remove_file(&path);
                assert!(
                    got == want,
                    "{}: {} bytes back, {} written",
                    path.display(),
                    got.len(),
                    want.len()
                );
            }
        }
    }
}
