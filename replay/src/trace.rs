//! The trace file a replay writes: Chrome JSON or Perfetto protobuf.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

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
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
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

/// An open trace file of either format.
pub(crate) enum TraceSink {
    Chrome(ChromeTraceWriter<BufWriter<File>>),
    Perfetto(PerfettoTraceWriter<BufWriter<File>>),
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
        match self {
            TraceSink::Chrome(w) => w.write_cta(cta, regions),
            TraceSink::Perfetto(w) => w.write_cta(cta, regions),
        }
    }

    /// The caveat on instances drawn with zero length, if any.
    pub fn zero_length_caveat(&self) -> Option<String> {
        match self {
            TraceSink::Chrome(w) => w.zero_length().caveat(),
            TraceSink::Perfetto(w) => w.zero_length_caveat(),
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
            ("trace.json", TraceFormat::Chrome),
            ("t.pftrace.json", TraceFormat::Chrome),
            ("noext", TraceFormat::Chrome),
        ] {
            assert_eq!(TraceFormat::for_path(Path::new(name)), f, "{name}");
        }
    }
}
