//! Reading the files a user names as inputs: regular files only. A FIFO or
//! socket blocks kperf at `open` until someone writes to it (every
//! subcommand hung on one); a device such as `/dev/zero` would be read until
//! memory runs out; a directory fails later with an error that names the
//! wrong cause. (`fill = "file:..."` in launch specs reads devices up to the
//! buffer's size instead: `spec::read_at_most`.)

use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// `Ok` when `path` is a regular file (symbolic links followed), else an
/// error saying what it is.
pub fn check_regular(path: &Path) -> io::Result<()> {
    let kind = std::fs::metadata(path)?.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO, which kperf would wait on"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device, which kperf could read without end"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {what}: give a regular file"),
    ))
}

/// The most bytes kperf reads of a kernel, spec, metadata, calibration or
/// results file (profiles are read in place, apart from this). A 4 GB
/// file was read whole, and a parser's error that copies its input
/// aborted kperf; no such file holds a gigabyte.
pub const MAX_TEXT_INPUT_BYTES: u64 = 1 << 30;

/// [`std::fs::read`] of a regular file of at most
/// [`MAX_TEXT_INPUT_BYTES`].
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    check_regular(path)?;
    let size = std::fs::metadata(path)?.len();
    if size > MAX_TEXT_INPUT_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "is {size} bytes, more than the {MAX_TEXT_INPUT_BYTES} (1 GiB) kperf reads of a \
                 kernel, spec, metadata or results file"
            ),
        ));
    }
    use io::Read as _;
    let mut bytes = Vec::with_capacity(size as usize);
    // A file that grows while it is read stops at the bound too.
    std::fs::File::open(path)?
        .take(MAX_TEXT_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TEXT_INPUT_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "grew past the {MAX_TEXT_INPUT_BYTES} bytes (1 GiB) kperf reads while it was read"
            ),
        ));
    }
    Ok(bytes)
}

/// [`std::fs::read_to_string`] of a regular file, bounded as [`read`] is.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("is not UTF-8 text: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("f");
        std::fs::write(&file, b"x").expect("write");
        assert_eq!(read(&file).expect("file"), b"x");
        let fifo = dir.path().join("p");
        let c = std::ffi::CString::new(fifo.to_str().expect("utf-8")).expect("cstr");
        // SAFETY: a valid C string; mkfifo has no other preconditions.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Returns at once (opening the FIFO would block).
        let err = read(&fifo).expect_err("a FIFO");
        assert!(err.to_string().contains("FIFO"), "{err}");
        assert!(read(dir.path())
            .expect_err("a directory")
            .to_string()
            .contains("directory"));
        assert!(read(Path::new("/dev/zero"))
            .expect_err("a device")
            .to_string()
            .contains("device"));
        // A sparse file past the bound is refused before it is read.
        let big = dir.path().join("big");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(MAX_TEXT_INPUT_BYTES + 1))
            .expect("sparse file");
        let err = read_to_string(&big).expect_err("too big").to_string();
        assert!(err.contains("1 GiB"), "{err}");
    }
}
