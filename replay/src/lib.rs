//! Trace replay: turns a decoded intra-kernel profile into findings.
//!
//! kperf-replay takes what kperf-runtime decodes — per CTA, per unit (thread,
//! warp, warp group or CTA), the surviving START/END records of every
//! instrumented region — and replays it:
//!
//! 1. **Pairing** ([`pair`]): START and END records are paired per unit *by
//!    region id*, not with one stack, so regions that overlap without nesting
//!    (Proton's `seq` pattern) pair correctly; repeated regions become numbered
//!    instances; unmatched STARTs and ENDs (a ring that lost the oldest
//!    records, a start whose end was dropped) are counted per region and CTA.
//! 2. **Time** ([`time`]): ticks become nanoseconds with the launch's rate,
//!    measured from every CTA's global-timer and clock stamps together
//!    (falling back to the nominal rate, and saying so when neither is
//!    known); CTAs are aligned on one time axis by their global-timer start;
//!    records the header clocks cannot hold are caveats.
//! 3. **Overhead correction** ([`correct`]): the calibrated (or estimated) cost
//!    of one record is subtracted cumulatively along each unit's timeline, and
//!    asynchronous waits are measured as `CLK2 − CLK1` as in the KPerfIR paper.
//! 4. **Analyses** ([`analyze`]): per-region statistics and share of kernel
//!    time, idle gaps, cross-unit overlap, critical paths, CTA/SM imbalance.
//! 5. **Outputs**: a streamed Chrome trace ([`chrome`]) or Perfetto protobuf
//!    trace ([`perfetto`]), a terminal
//!    summary ([`summary`]), a machine-readable report and a versioned
//!    feedback file for compiler passes ([`feedback`]).
//!
//! The replay is streaming: [`Replayer`] consumes one [`CtaTrace`] at a time,
//! writes its trace events and folds it into running statistics, so a profile
//! of tens of millions of records never has to be held in memory. [`Profile`]
//! is the in-memory variant for programmatic queries.
//!
//! Entry points: [`replay_file`] / [`replay_proton_file`] (what the CLI calls;
//! then [`ReplayReport::render_summary`], [`ReplayReport::to_json`],
//! [`ReplayReport::feedback_json`]), [`replay_ctas`] / [`replay_with_scan`]
//! (any source of CTAs), [`Profile::load`] / [`Profile::from_parts`]
//! (feedback API).
//!
//! [`CtaTrace`]: kperf_runtime::profile::CtaTrace

pub mod analyze;
pub mod chrome;
pub mod correct;
mod engine;
mod error;
pub mod feedback;
mod layout;
mod load;
pub mod pair;
pub mod perfetto;
mod quantiles;
pub mod regions;
pub mod summary;
pub mod time;
mod trace;

pub use analyze::{
    AsyncWaitStats, CriticalPath, CriticalPathSummary, CriticalStep, CtaSummary, Imbalance,
    OverlapStats, RegionStats, ReplayReport, UnitIdle,
};
pub use chrome::ChromeTraceWriter;
pub use engine::{replay_ctas, replay_with_scan, CtaView, ProfileScan, Replayer, ScanDepth};
pub use error::ReplayError;
pub use feedback::{Feedback, Profile, FEEDBACK_VERSION};
pub use load::{replay_file, replay_proton_file, replay_reader};
pub use pair::{AsyncWaitInstance, CtaReplay, RegionInstance, UnitReplay};
pub use perfetto::PerfettoTraceWriter;
pub use trace::TraceFormat;

use serde::{Deserialize, Serialize};

/// How the Chrome trace groups its tracks into processes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceGrouping {
    /// One process per SM / CU (the hardware id), one thread per CTA × unit.
    #[default]
    Sm,
    /// One process per CTA, one thread per unit.
    Cta,
}

/// The most ticks one record may be said to cost: a record is a clock read
/// and a store (a few dozen cycles on a GPU, hundreds on a host); a million
/// is far beyond any, and a cost of 1e300 printed 300 digits. One bound for
/// `--record-cost` and the profile's own header.
pub use kperf_runtime::profile::MAX_RECORD_COST_TICKS;

/// Knobs of a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayOptions {
    /// Subtract the per-record instrumentation cost (`false`: `--no-correction`).
    pub correction: bool,
    /// Cost of one record in counter ticks, overriding the calibrated one
    /// (`RunInfo::record_cost_ticks`) and the min-gap estimate.
    pub record_cost_ticks: Option<f64>,
    /// Counter ticks per nanosecond, overriding per-CTA measurement and the
    /// nominal rate. Ignored for nanosecond counters.
    pub ticks_per_ns: Option<f64>,
    /// Process grouping of the trace.
    pub trace_grouping: TraceGrouping,
    /// Format of the trace file.
    #[serde(default)]
    pub trace_format: TraceFormat,
    /// Where the run was also timed uninstrumented (`RunInfo::check`) and
    /// the calibrated cost puts the kernel region off it, fit the cost to
    /// that run (`false`: `--no-fit`).
    pub fit_to_check: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            correction: true,
            record_cost_ticks: None,
            ticks_per_ns: None,
            trace_grouping: TraceGrouping::Sm,
            trace_format: TraceFormat::Chrome,
            fit_to_check: true,
        }
    }
}

impl ReplayOptions {
    /// Options with overhead correction switched off (`--no-correction`).
    pub fn no_correction() -> Self {
        ReplayOptions {
            correction: false,
            ..ReplayOptions::default()
        }
    }

    /// Reject values no replay can use.
    pub fn validate(&self) -> Result<(), ReplayError> {
        if let Some(c) = self.record_cost_ticks {
            if !(0.0..=MAX_RECORD_COST_TICKS).contains(&c) {
                return Err(ReplayError::InvalidOption(format!(
                    "record cost must be a number of ticks from 0 to {MAX_RECORD_COST_TICKS:e} \
                     (a record is a clock read and a store), got {}",
                    kperf_runtime::short_number(c)
                )));
            }
        }
        if let Some(r) = self.ticks_per_ns {
            if !time::plausible_rate(r) {
                return Err(ReplayError::InvalidOption(format!(
                    "clock rate must be one a counter can have, {:e} to {:e} ticks per ns \
                     (1 MHz to 100 GHz), got {}",
                    time::PLAUSIBLE_TICKS_PER_NS.start(),
                    time::PLAUSIBLE_TICKS_PER_NS.end(),
                    kperf_runtime::short_number(r)
                )));
            }
        }
        Ok(())
    }
}
