//! The sampling loop shared by every launcher: warm up, then take samples
//! until the stopping rule says so, preparing each sample (e.g. the cache
//! flush) outside the timed region.
//!
//! The launcher supplies two closures: `prepare` (untimed, before every
//! sample) and `sample` (one timed run, returning what it measured). Keeping
//! the loop here means the host JIT and the CUDA launcher stop, warm up and
//! count throttled samples the same way.

use std::time::{Duration, Instant};

use crate::error::BenchError;
use crate::results::Warmup;
use crate::stats::{drop_throttled, Sampler, StopReason, StoppingRule};

/// One timed run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub ns: f64,
    /// Device cycles of the run (CUDA: SM clock ticks), if measured.
    pub cycles: Option<f64>,
    /// The SM clock during the run (MHz), if measured.
    pub sm_clock_mhz: Option<f64>,
}

impl Sample {
    pub fn time(ns: f64) -> Sample {
        Sample {
            ns,
            cycles: None,
            sm_clock_mhz: None,
        }
    }
}

/// Throttle filtering: samples whose SM clock fell under
/// `threshold × reference_mhz` are dropped and counted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThrottleFilter {
    pub reference_mhz: f64,
    pub threshold: f64,
}

/// What one point's sampling produced.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Measurement {
    pub samples_ns: Vec<f64>,
    /// One per kept sample when every sample measured cycles.
    pub cycles: Option<Vec<f64>>,
    /// One per kept sample when every sample measured its clock.
    pub sm_clock_mhz: Option<Vec<f64>>,
    pub dropped_throttled: usize,
    pub stop: StopReason,
    pub warmup_runs: u32,
}

/// Warm up as `warmup` says, then sample until `rule` stops; `throttle`
/// filters the samples afterwards. Errors from the closures end the
/// measurement and are returned as they are.
pub fn measure<E: From<BenchError>>(
    warmup: &Warmup,
    rule: &StoppingRule,
    throttle: Option<ThrottleFilter>,
    mut prepare: impl FnMut() -> Result<(), E>,
    mut sample: impl FnMut() -> Result<Sample, E>,
) -> Result<Measurement, E> {
    let mut sampler = Sampler::new(*rule)?;
    let warm_start = Instant::now();
    let mut warmup_runs = 0u32;
    // `iterations` runs and at least `min_time_s`, both capped by the timeout
    // after the first run, so a slow kernel is not warmed for longer than it
    // may be measured (1000 warm-up runs of a 10 ms kernel under a 1 s
    // timeout took 10 s).
    loop {
        let warmed_s = warm_start.elapsed().as_secs_f64();
        let wants_more = warmup_runs < warmup.iterations || warmed_s < warmup.min_time_s;
        if !wants_more || (warmup_runs > 0 && warmed_s >= rule.timeout_s) {
            break;
        }
        prepare()?;
        sample()?;
        warmup_runs += 1;
    }
    let start = Instant::now();
    let mut cycles = Vec::new();
    let mut clocks = Vec::new();
    let stop = loop {
        prepare()?;
        let s = sample()?;
        sampler.push(s.ns)?;
        cycles.extend(s.cycles);
        clocks.extend(s.sm_clock_mhz);
        if let Some(reason) = sampler.check(start.elapsed()) {
            break reason;
        }
    };
    let samples = sampler.into_samples();
    let n = samples.len();
    let cycles = (cycles.len() == n).then_some(cycles);
    let clocks = (clocks.len() == n).then_some(clocks);
    match (throttle, clocks) {
        (Some(t), Some(clocks)) => {
            let kept = drop_throttled(
                &samples,
                cycles.as_deref(),
                &clocks,
                t.reference_mhz,
                t.threshold,
            )?;
            if kept.ns.is_empty() {
                return Err(BenchError::NoSamples {
                    context: format!(
                        "the run: all {n} samples were taken under {:.0}% of the {:.0} MHz reference clock (throttled)",
                        100.0 * t.threshold,
                        t.reference_mhz
                    ),
                }
                .into());
            }
            Ok(Measurement {
                samples_ns: kept.ns,
                cycles: kept.cycles,
                sm_clock_mhz: Some(kept.sm_clock_mhz),
                dropped_throttled: kept.dropped,
                stop,
                warmup_runs,
            })
        }
        (_, clocks) => Ok(Measurement {
            samples_ns: samples,
            cycles,
            sm_clock_mhz: clocks,
            dropped_throttled: 0,
            stop,
            warmup_runs,
        }),
    }
}

/// Sleep between bursts so a long run does not drift into the power limit.
pub fn cool_down(seconds: f64) {
    if seconds > 0.0 && seconds.is_finite() {
        std::thread::sleep(Duration::from_secs_f64(seconds));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(min: usize, max: usize) -> StoppingRule {
        StoppingRule {
            min_samples: min,
            max_samples: max,
            min_time_s: 0.0,
            max_relative_noise: 0.0,
            timeout_s: 60.0,
        }
    }

    #[test]
    fn warms_up_then_stops_at_the_sample_cap_preparing_every_run() {
        let (mut prepared, mut runs) = (0, 0);
        let m = measure::<BenchError>(
            &Warmup {
                iterations: 3,
                min_time_s: 0.0,
            },
            &rule(2, 5),
            None,
            || {
                prepared += 1;
                Ok(())
            },
            || {
                runs += 1;
                Ok(Sample::time(100.0 + runs as f64))
            },
        )
        .unwrap();
        assert_eq!(m.warmup_runs, 3);
        assert_eq!(m.samples_ns, vec![104.0, 105.0, 106.0, 107.0, 108.0]);
        assert_eq!((prepared, runs), (8, 8));
        assert!(matches!(m.stop, StopReason::MaxSamples { .. }));
        assert_eq!(m.cycles, None);
    }

    #[test]
    fn warm_up_stops_at_the_timeout_after_its_first_run() {
        let mut runs = 0;
        let m = measure::<BenchError>(
            &Warmup {
                iterations: 1000,
                min_time_s: 0.0,
            },
            &StoppingRule {
                timeout_s: 0.001,
                ..rule(2, 2)
            },
            None,
            || Ok(()),
            || {
                runs += 1;
                std::thread::sleep(Duration::from_millis(2));
                Ok(Sample::time(2e6))
            },
        )
        .unwrap();
        assert_eq!((m.warmup_runs, runs), (1, 2));
    }

    #[test]
    fn drops_throttled_samples_and_keeps_cycles_aligned() {
        let clocks = [1980.0, 1000.0, 1970.0, 1990.0];
        let mut i = 0;
        let m = measure::<BenchError>(
            &Warmup {
                iterations: 0,
                min_time_s: 0.0,
            },
            &rule(2, 4),
            Some(ThrottleFilter {
                reference_mhz: 1980.0,
                threshold: 0.75,
            }),
            || Ok(()),
            || {
                let s = Sample {
                    ns: 10.0 * (i + 1) as f64,
                    cycles: Some(i as f64),
                    sm_clock_mhz: Some(clocks[i]),
                };
                i += 1;
                Ok(s)
            },
        )
        .unwrap();
        assert_eq!(m.samples_ns, vec![10.0, 30.0, 40.0]);
        assert_eq!(m.cycles, Some(vec![0.0, 2.0, 3.0]));
        assert_eq!(m.dropped_throttled, 1);
    }

    #[test]
    fn an_error_in_a_sample_ends_the_measurement() {
        let r = measure::<BenchError>(
            &Warmup::default(),
            &rule(2, 4),
            None,
            || Ok(()),
            || {
                Err(BenchError::NoSamples {
                    context: "launch failed".into(),
                })
            },
        );
        assert!(r.unwrap_err().to_string().contains("launch failed"));
    }
}
