//! Ticks to nanoseconds, and the common time axis of all CTAs.
//!
//! **Rate.** Per CTA, in this order of preference:
//! 1. nanosecond counters (`%globaltimer`): a tick *is* a nanosecond;
//! 2. a rate given in [`crate::ReplayOptions::ticks_per_ns`];
//! 3. the launch's measured rate: every CTA's clock span over its
//!    global-timer span, pooled, timer spans of 0 included, long CTAs that
//!    disagree left out ([`crate::ProfileScan::launch_rate`]),
//!    or, without a scan, the CTA's own ([`CtaTrace::measured_ticks_per_ns`]);
//!    unless a nominal rate is known and the measurement is off from it by
//!    more than a factor of two: then the nominal rate is used and the CTA
//!    is counted as implausible. One CTA's own quotient is not used when the
//!    launch's is known: a global timer that ticks every microsecond makes
//!    a 1.5 µs CTA on a 2 GHz clock measure 1.5 or 3.0 ticks/ns, a 2×
//!    spread between identical CTAs;
//! 4. the nominal `RunInfo::ticks_per_ns`;
//! 5. none known: 1 tick = 1 ns, *stated as a caveat* in the report.
//!
//! **Axis.** Time zero is the earliest CTA start (global timer, header field
//! `start_time`), or the earliest record before it: a warp that recorded
//! before thread 0's init stamps, or a CTA placed by its finalize stamp
//! ([`crate::ProfileScan::axis_origin_ns`]). A CTA's own zero is its header clock `start_clock`, placed
//! at `start_time_ns − t0`; a record of clock `c` at absolute position `i` in
//! its unit sits at `start_time_ns − t0 + (c − i·cost − start_clock) / rate`.
//! When the header clock is unusable (Proton dumps carry none; a start clock
//! later than the first record), the CTA's earliest record — earliest after
//! correction, `min over units (c_first − i_first·cost)` — is its zero instead.

use kperf_dialects::abi::ClockDomain;
use kperf_runtime::profile::{CtaTrace, RunInfo};
use serde::{Deserialize, Serialize};

use crate::correct::Correction;

/// Tick rates a real counter can have, in ticks per ns: 1 MHz to 100 GHz.
/// Rates outside (from a corrupt or hostile profile, or a CTA whose global
/// timer did not move) are not used.
pub const PLAUSIBLE_TICKS_PER_NS: std::ops::RangeInclusive<f64> = 1e-3..=1e2;

/// Whether `rate` (ticks per ns) is one a real counter can have.
pub fn plausible_rate(rate: f64) -> bool {
    PLAUSIBLE_TICKS_PER_NS.contains(&rate)
}

/// Where a CTA's tick rate came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RateSource {
    /// The counter counts nanoseconds.
    Nanoseconds,
    /// Given by the user.
    Override,
    /// Measured from this CTA's header stamps.
    Measured,
    /// The nominal rate of the run.
    Nominal,
    /// Nothing known: 1 tick taken as 1 ns.
    Assumed,
}

/// How to place one CTA's ticks on the common axis.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CtaClock {
    pub ticks_per_ns: f64,
    pub source: RateSource,
    /// The (corrected) tick value at the CTA's zero: `origin_clock − origin_shift`.
    pub origin_clock: u64,
    pub origin_shift: f64,
    /// Where the CTA's zero sits on the common axis, in ns.
    pub offset_ns: f64,
    /// False when the header clock was unusable and the first record is zero.
    pub header_clock_used: bool,
    /// A measured rate that was rejected as implausible, if any.
    pub rejected_rate: Option<f64>,
    /// The CTA's own measured rate (clock span over timer span), whether
    /// used or not: the report shows their spread.
    pub own_rate: Option<f64>,
    /// The header's clock and global-timer spans disagree beyond the
    /// timer's resolution and any clock's drift ([`stamps_disagree`]): one
    /// stamp is corrupt, and the CTA is placed without it.
    pub stamps_disagree: Option<StampDisagreement>,
}

/// How a CTA's header stamps disagree, in ns: its clock span (init to
/// finalize) at the rate used, and its global-timer span.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StampDisagreement {
    pub clock_span_ns: f64,
    pub timer_span_ns: f64,
}

/// Slack allowed between a CTA's clock span and its global-timer span:
/// the timer's resolution (a microsecond on NVIDIA by default, on each of
/// the two stamps) and half the span for clock drift and a launch rate
/// pooled over other CTAs. A corrupt stamp moved a short CTA by
/// milliseconds to seconds (a wall span of 384 ms from 27 µs of data).
const STAMP_SLACK_NS: f64 = 2_000.0;
const STAMP_SLACK_SHARE: f64 = 0.5;

/// Whether `clock_ns` and `timer_ns`, the same CTA's spans, cannot both be
/// right.
/// The longest a CTA's global-timer stamps may lie apart and both be
/// believed: an hour (no kernel's CTA runs that long).
const LONGEST_CTA_NS: u64 = 3_600_000_000_000;

/// Where a CTA began on the global timer, for the launch's time origin: its
/// init stamp, unless that lies after its finalize stamp or more than an
/// hour before it (a stamp of 0 against a timer counting from the epoch,
/// about 1.7e18 ns: it made the origin 0, every other CTA sat 1.7e18 ns
/// from it, where a double resolves 256 ns, and every figure in ns was
/// quantized); the finalize stamp bounds it then. A CTA without a
/// finalize stamp keeps its init stamp.
pub fn believable_start_ns(start_ns: u64, finalize_ns: u64) -> u64 {
    if finalize_ns > 0 && (finalize_ns < start_ns || finalize_ns - start_ns > LONGEST_CTA_NS) {
        finalize_ns
    } else {
        start_ns
    }
}

/// Whether a CTA's init stamp places it (else its finalize stamp does:
/// [`believable_start_ns`]).
pub(crate) fn init_stamp_believed(start_ns: u64, finalize_ns: u64) -> bool {
    believable_start_ns(start_ns, finalize_ns) == start_ns
}

/// How long before thread 0's init stamps another unit's first record may
/// come with the stamps still believed (the warps of a CTA start in no
/// fixed order; seen up to 0.44 µs on an H200).
pub(crate) const INIT_LEAD_NS: f64 = 2_000.0;

/// Whether `cta`'s header clock stamps can be the origin of its records:
/// finalize after init, and no record further before the init clock than
/// INIT_LEAD_NS at `ticks_per_ns`. Thread 0 takes the init stamps and
/// another warp's first record can come before them (on an H200, 668 of a
/// Triton matmul's 1024 CTAs had one, by a median of 69 ticks and at most
/// 696): that is the warps' order, not a bad stamp.
pub(crate) fn header_clock_usable(cta: &CtaTrace, ticks_per_ns: f64) -> bool {
    let lead_bound = (INIT_LEAD_NS * ticks_per_ns) as u64;
    cta.finalize_clock > cta.start_clock
        && cta
            .earliest_first_clock()
            .is_none_or(|f| f >= cta.start_clock.saturating_sub(lead_bound))
}

/// The tick rate a CTA is replayed at, where it came from, and a measured
/// rate rejected for the nominal one: ns counters tick at 1; then a rate
/// given; then the launch's measured rate (or, without one, the CTA's
/// own, `own_rate`) unless it is off from the nominal one by more than a
/// factor of two; then the nominal rate; else 1, assumed.
pub(crate) fn choose_rate(
    info: &RunInfo,
    rate_override: Option<f64>,
    launch_rate: Option<f64>,
    own_rate: Option<f64>,
) -> (f64, RateSource, Option<f64>) {
    if info.clock_domain == ClockDomain::Nanoseconds {
        return (1.0, RateSource::Nanoseconds, None);
    }
    if let Some(r) = rate_override {
        return (r, RateSource::Override, None);
    }
    let nominal = info.ticks_per_ns.filter(|r| plausible_rate(*r));
    let measured = launch_rate.filter(|r| plausible_rate(*r)).or(own_rate);
    match (measured, nominal) {
        (Some(m), Some(n)) if !(0.5..=2.0).contains(&(m / n)) => (n, RateSource::Nominal, Some(m)),
        (Some(m), _) => (m, RateSource::Measured, None),
        (None, Some(n)) => (n, RateSource::Nominal, None),
        (None, None) => (1.0, RateSource::Assumed, None),
    }
}

fn stamps_disagree(clock_ns: f64, timer_ns: f64) -> bool {
    (clock_ns - timer_ns).abs() > STAMP_SLACK_NS + STAMP_SLACK_SHARE * clock_ns.max(timer_ns)
}

impl CtaClock {
    /// Resolve rate and origin for `cta`, with `t0` the axis zero (global timer ns).
    pub fn resolve(
        cta: &CtaTrace,
        info: &RunInfo,
        rate_override: Option<f64>,
        launch_rate: Option<f64>,
        t0: u64,
        corr: &Correction,
    ) -> CtaClock {
        let own_rate = cta.measured_ticks_per_ns().filter(|r| plausible_rate(*r));
        let (ticks_per_ns, source, rejected_rate) =
            choose_rate(info, rate_override, launch_rate, own_rate);
        let mut header_ok = header_clock_usable(cta, ticks_per_ns);
        // The header's two spans, init to finalize: a rate not measured
        // from this CTA's own stamps can tell them apart.
        let timer_ns = cta.finalize_start_ns as f64 - cta.start_time_ns as f64;
        let own_quotient = source == RateSource::Measured && launch_rate.is_none();
        // An init stamp after the finalize stamp disagrees whatever the
        // rate: the CTA is placed by its finalize stamp (it sat days away).
        let stamps = (header_ok && !own_quotient && cta.finalize_start_ns > 0 && timer_ns >= 0.0)
            .then(|| StampDisagreement {
                clock_span_ns: signed_difference(cta.finalize_clock, cta.start_clock)
                    / ticks_per_ns,
                timer_span_ns: timer_ns,
            })
            .filter(|d| stamps_disagree(d.clock_span_ns, d.timer_span_ns))
            .or_else(|| {
                (header_ok && cta.finalize_start_ns > 0 && timer_ns < 0.0).then(|| {
                    StampDisagreement {
                        clock_span_ns: signed_difference(cta.finalize_clock, cta.start_clock)
                            / ticks_per_ns,
                        timer_span_ns: timer_ns,
                    }
                })
            });
        // A clock span too long: the init clock is the likely culprit (the
        // records lie between it and finalize's); the CTA is aligned on
        // its first record instead. Too short: the init timer stamp, and
        // the CTA is placed by its finalize stamp.
        let mut offset_ns = (cta.start_time_ns as i128 - t0 as i128) as f64;
        // An init stamp no finalize stamp can follow (0 against an epoch
        // timer, or after finalize), whatever the header clock: the CTA is
        // placed its records' span before its finalize stamp.
        let mut stamps = stamps;
        if stamps.is_none()
            && believable_start_ns(cta.start_time_ns, cta.finalize_start_ns) != cta.start_time_ns
        {
            let clocks = cta.units.iter().flat_map(|u| {
                u.records
                    .first()
                    .into_iter()
                    .chain(u.records.last())
                    .map(|r| r.clock)
            });
            let (lo, hi) = clocks.fold((u64::MAX, 0u64), |(lo, hi), c| (lo.min(c), hi.max(c)));
            let span_ns = if hi >= lo {
                signed_difference(hi, lo) / ticks_per_ns
            } else {
                0.0
            };
            offset_ns = (cta.finalize_start_ns as i128 - t0 as i128) as f64 - span_ns;
            stamps = Some(StampDisagreement {
                clock_span_ns: span_ns,
                timer_span_ns: timer_ns,
            });
        }
        if let Some(d) = stamps.filter(|_| header_ok) {
            if d.timer_span_ns >= 0.0 && d.clock_span_ns > d.timer_span_ns {
                header_ok = false;
            } else {
                offset_ns = (cta.finalize_start_ns as i128 - t0 as i128) as f64 - d.clock_span_ns;
            }
        }
        let (origin_clock, origin_shift) = if header_ok {
            (cta.start_clock, 0.0)
        } else {
            // The earliest first record after correction.
            let bound = Correction::elapsed_ticks_bound(cta);
            cta.units
                .iter()
                .filter_map(|u| {
                    let r = u.records.first()?;
                    let base =
                        Correction::plausible_first_position(info.strategy, u, bound).unwrap_or(0);
                    Some((r.clock, corr.shift(base)))
                })
                .min_by(|a, b| {
                    // Relative to one of them: absolute clocks as f64 round
                    // (see `signed_difference`).
                    let o = a.0.min(b.0);
                    (signed_difference(a.0, o) - a.1).total_cmp(&(signed_difference(b.0, o) - b.1))
                })
                .unwrap_or((0, 0.0))
        };
        CtaClock {
            ticks_per_ns,
            source,
            origin_clock,
            origin_shift,
            offset_ns,
            header_clock_used: header_ok,
            rejected_rate,
            own_rate,
            stamps_disagree: stamps,
        }
    }

    /// Ticks to nanoseconds.
    pub fn ns(&self, ticks: f64) -> f64 {
        ticks / self.ticks_per_ns
    }

    /// Axis position (ns) of a clock value from which `shift` ticks of
    /// instrumentation cost have been removed.
    pub fn axis_ns(&self, clock: u64, shift: f64) -> f64 {
        let ticks = signed_difference(clock, self.origin_clock) - (shift - self.origin_shift);
        self.offset_ns + ticks / self.ticks_per_ns
    }
}

/// `a - b` as an `f64`, rounded once as `(a as i128 - b as i128) as f64`
/// is, without that 128-bit conversion: a libcall that took 2% of replay
/// on the axis position of every record.
pub(crate) fn signed_difference(a: u64, b: u64) -> f64 {
    if a >= b {
        (a - b) as f64
    } else {
        -((b - a) as f64)
    }
}

/// `x.round() as i64` (half away from zero, saturating, NaN → 0) without
/// the libm call `round` is on x86-64's baseline (no SSE4.1 `roundsd`):
/// it was 2% of replay, called for every trace timestamp and histogram
/// value. `x - trunc(x)` is exact, and past 2^52 every f64 is an integer.
/// Branch-free: the fraction is as likely above a half as below (when
/// histogram values came through here, `perf annotate` put this compare
/// chain at about half of merging them).
pub(crate) fn round_to_i64(x: f64) -> i64 {
    let i = x as i64;
    let frac = x - i as f64;
    i.saturating_add(i64::from(frac >= 0.5))
        .saturating_sub(i64::from(frac <= -0.5))
}

#[cfg(test)]
mod tests {
    use super::{round_to_i64, signed_difference};
    use proptest::prelude::*;

    proptest! {
        /// The same f64 as the 128-bit subtraction it replaced, whatever
        /// the magnitudes (both near 2^64, far apart, equal).
        #[test]
        fn signed_difference_is_the_128_bit_one(
            a in prop_oneof![any::<u64>(), (u64::MAX - 1000)..=u64::MAX, 0u64..1000],
            b in prop_oneof![any::<u64>(), (u64::MAX - 1000)..=u64::MAX, 0u64..1000],
        ) {
            let want = (a as i128 - b as i128) as f64;
            prop_assert_eq!(signed_difference(a, b).to_bits(), want.to_bits());
        }
    }

    proptest! {
        /// The same integer as `round() as i64`: halves, negatives, values
        /// past 2^52 and 2^63, infinities and NaN.
        #[test]
        fn round_to_i64_is_round(
            x in prop_oneof![
                any::<f64>(),
                -1e6f64..1e6,
                (-1_000_000i64..1_000_000).prop_map(|n| n as f64 + 0.5),
                (-1_000_000i64..1_000_000).prop_map(|n| n as f64 - 0.5),
                Just(0.49999999999999994),
                Just(-0.49999999999999994),
                Just(4503599627370497.0),
                Just(9.3e18),
                Just(-9.3e18),
            ]
        ) {
            prop_assert_eq!(round_to_i64(x), x.round() as i64);
        }
    }
}
