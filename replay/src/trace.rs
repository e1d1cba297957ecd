//! The trace file a replay writes: Chrome JSON or Perfetto protobuf.

use kperf_runtime::output::DirectFile;
use std::io::Write;
use std::path::{Path, PathBuf};

use kperf_runtime::profile::RunInfo;
use serde::{Deserialize, Serialize};

use crate::analyze::ReplayReport;
use crate::chrome::ChromeTraceWriter;
use crate::pair::CtaReplay;
use crate::perfetto::PerfettoTraceWriter;
use crate::regions::RegionTable;
use crate::{ReplayError, TraceGrouping};

/// The format of the trace file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// Chrome trace-event JSON ([`crate::chrome`]).
    #[default]
    Chrome,
    /// Perfetto's protobuf trace ([`crate::perfetto`]).
    Perfetto,
}

impl TraceFormat {
    /// The format a file name asks for: `.pftrace`, `.perfetto-trace` and
    /// `.pb` are Perfetto; anything else is Chrome JSON.
    pub fn for_path(path: &Path) -> TraceFormat {
        // Whatever the case: `T.PFTRACE` was written as Chrome JSON.
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        if [".pftrace", ".perfetto-trace", ".pb"]
            .iter()
            .any(|ext| name.ends_with(ext))
        {
            TraceFormat::Perfetto
        } else {
            TraceFormat::Chrome
        }
    }
}

/// Bytes a trace writer gathers before handing them to its output (one
/// write call per chunk; a file stages them for aligned writes).
const CHUNK: usize = 1 << 18;

/// Where a trace writer's bytes go: an output (a file, named in errors,
/// or any writer) behind one chunk buffer the writer appends to.
pub(crate) struct TraceOut<W: Write> {
    out: W,
    path: Option<PathBuf>,
    /// What the writer has encoded and not yet written.
    pub buf: Vec<u8>,
}

impl TraceOut<DirectFile> {
    /// Create `path`.
    pub fn create(path: &Path) -> Result<Self, ReplayError> {
        // Around the page cache: a trace is written once, and copying a
        // gigabyte into the cache cost more system time than the replay's
        // own work on this project's VM (docs/replay.md).
        let file = DirectFile::create(path).map_err(|source| ReplayError::TraceFile {
            path: path.to_path_buf(),
            source,
        })?;
        let mut t = TraceOut::new(file);
        t.path = Some(path.to_path_buf());
        Ok(t)
    }
}

impl<W: Write> TraceOut<W> {
    pub fn new(out: W) -> Self {
        TraceOut {
            out,
            path: None,
            buf: Vec::with_capacity(CHUNK + 4096),
        }
    }

    fn err(&self, source: std::io::Error) -> ReplayError {
        match &self.path {
            Some(p) => ReplayError::TraceFile {
                path: p.clone(),
                source,
            },
            None => ReplayError::TraceWrite(source),
        }
    }

    /// Write `bytes` directly (ahead of the buffer, which must be empty).
    pub fn write_now(&mut self, bytes: &[u8]) -> Result<(), ReplayError> {
        debug_assert!(self.buf.is_empty());
        let r = self.out.write_all(bytes);
        r.map_err(|e| self.err(e))
    }

    /// Write the buffer out once it holds a chunk.
    pub fn flush_if_full(&mut self) -> Result<(), ReplayError> {
        if self.buf.len() >= CHUNK {
            self.flush_buf()
        } else {
            Ok(())
        }
    }

    fn flush_buf(&mut self) -> Result<(), ReplayError> {
        let r = self.out.write_all(&self.buf);
        self.buf.clear();
        r.map_err(|e| self.err(e))
    }

    /// Write what is buffered, flush the output and hand it back.
    pub fn finish(mut self) -> Result<W, ReplayError> {
        self.flush_buf()?;
        let r = self.out.flush();
        r.map_err(|e| self.err(e))?;
        Ok(self.out)
    }
}

/// An open trace file of either format.
pub(crate) enum TraceSink {
    Chrome(ChromeTraceWriter<DirectFile>),
    Perfetto(PerfettoTraceWriter<DirectFile>),
}

impl TraceSink {
    pub fn create(
        path: &Path,
        format: TraceFormat,
        info: &RunInfo,
        grouping: TraceGrouping,
    ) -> Result<TraceSink, ReplayError> {
        Ok(match format {
            TraceFormat::Chrome => {
                TraceSink::Chrome(ChromeTraceWriter::create(path, info, grouping)?)
            }
            TraceFormat::Perfetto => {
                TraceSink::Perfetto(PerfettoTraceWriter::create(path, info, grouping)?)
            }
        })
    }

    pub fn write_cta(&mut self, cta: &CtaReplay, regions: &RegionTable) -> Result<(), ReplayError> {
        self.write_ctas(&[cta], regions)
    }

    /// Write `ctas` in order (the Perfetto writer encodes them in parallel).
    pub fn write_ctas(
        &mut self,
        ctas: &[&CtaReplay],
        regions: &RegionTable,
    ) -> Result<(), ReplayError> {
        match self {
            TraceSink::Chrome(w) => ctas.iter().try_for_each(|c| w.write_cta(c, regions)),
            TraceSink::Perfetto(w) => w.write_ctas(ctas, regions),
        }
    }

    pub fn finish(self, report: Option<&ReplayReport>) -> Result<(), ReplayError> {
        match self {
            TraceSink::Chrome(w) => w.finish(report).map(drop),
            TraceSink::Perfetto(w) => w.finish(report).map(drop),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_follows_the_extension() {
        for (name, f) in [
            ("t.pftrace", TraceFormat::Perfetto),
            ("dir.json/t.perfetto-trace", TraceFormat::Perfetto),
            ("t.pb", TraceFormat::Perfetto),
            ("T.PFTRACE", TraceFormat::Perfetto),
            ("trace.json", TraceFormat::Chrome),
            ("t.pftrace.json", TraceFormat::Chrome),
            ("noext", TraceFormat::Chrome),
        ] {
            assert_eq!(TraceFormat::for_path(Path::new(name)), f, "{name}");
        }
    }
}
