//! GPU state from NVML: clocks, power, temperature, throttle reasons.
//!
//! Recorded before and after a benchmark, these explain a surprising
//! number ("the SM clock was 1.1 GHz because of a power cap") and let a
//! comparison tell a clock change from a code change. NVML is loaded at run
//! time by nvml-wrapper, so the crate builds and runs on machines without
//! the NVIDIA driver and reports [`BenchError::Nvml`] there instead of
//! failing to link or panicking.

use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::Nvml;
use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};

/// A snapshot of one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuState {
    pub index: u32,
    pub name: String,
    pub sm_clock_mhz: u32,
    pub mem_clock_mhz: u32,
    /// Default application SM clock: the reference for "throttled".
    pub default_sm_clock_mhz: Option<u32>,
    pub max_sm_clock_mhz: Option<u32>,
    pub power_w: Option<f64>,
    pub power_limit_w: Option<f64>,
    pub temperature_c: Option<u32>,
    /// Raw NVML clocks-event (throttle) reason bits.
    pub throttle_bits: u64,
    /// The bits as names, e.g. `["sw_power_cap"]`.
    pub throttle_reasons: Vec<String>,
    /// True when a reason that lowers clocks under load is active (power
    /// cap, thermal, hardware slowdown); idle and application-clock
    /// settings do not count.
    pub throttled: bool,
}

/// An initialised NVML; keep one for repeated samples, since `nvmlInit`
/// costs milliseconds.
pub struct NvmlSession {
    nvml: Nvml,
}

impl std::fmt::Debug for NvmlSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NvmlSession")
    }
}

fn nvml_err(what: &str, e: NvmlError) -> BenchError {
    match e {
        NvmlError::LibloadingError(inner) => BenchError::Nvml(format!(
            "{what}: could not load libnvidia-ml.so (is the NVIDIA driver installed?): {inner}"
        )),
        NvmlError::FailedToLoadSymbol(s) => BenchError::Nvml(format!(
            "{what}: libnvidia-ml.so lacks a symbol (driver too old?): {s}"
        )),
        other => BenchError::Nvml(format!("{what}: {other}")),
    }
}

impl NvmlSession {
    /// Loads libnvidia-ml and initialises it.
    pub fn open() -> Result<NvmlSession> {
        Nvml::init()
            .map(|nvml| NvmlSession { nvml })
            .map_err(|e| nvml_err("initialising NVML", e))
    }

    pub fn device_count(&self) -> Result<u32> {
        self.nvml
            .device_count()
            .map_err(|e| nvml_err("counting devices", e))
    }

    /// Samples GPU `index`. Clocks are required; the rest is optional
    /// because consumer and virtualised GPUs refuse some queries.
    pub fn sample(&self, index: u32) -> Result<GpuState> {
        let dev = self
            .nvml
            .device_by_index(index)
            .map_err(|e| nvml_err(&format!("opening GPU {index}"), e))?;
        Self::sample_device(&dev, index)
    }

    /// Samples the GPU at PCI bus id `bus_id` (`domain:bus:device.function`
    /// in hex). CUDA ordinals and NVML indices need not agree (CUDA orders
    /// fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID); the bus id names
    /// the same GPU for both.
    pub fn sample_pci(&self, bus_id: &str) -> Result<GpuState> {
        let dev = self
            .nvml
            .device_by_pci_bus_id(bus_id)
            .map_err(|e| nvml_err(&format!("opening the GPU at PCI {bus_id}"), e))?;
        let index = dev
            .index()
            .map_err(|e| nvml_err(&format!("index of the GPU at PCI {bus_id}"), e))?;
        Self::sample_device(&dev, index)
    }

    fn sample_device(dev: &nvml_wrapper::Device<'_>, index: u32) -> Result<GpuState> {
        let what = |q: &str| format!("{q} of GPU {index}");
        let name = dev.name().map_err(|e| nvml_err(&what("name"), e))?;
        let sm_clock_mhz = dev
            .clock_info(Clock::SM)
            .map_err(|e| nvml_err(&what("SM clock"), e))?;
        let mem_clock_mhz = dev
            .clock_info(Clock::Memory)
            .map_err(|e| nvml_err(&what("memory clock"), e))?;
        let throttle_bits = dev
            .current_throttle_reasons()
            .map(|r| r.bits())
            .unwrap_or(0);
        Ok(GpuState {
            index,
            name,
            sm_clock_mhz,
            mem_clock_mhz,
            default_sm_clock_mhz: dev.default_applications_clock(Clock::SM).ok(),
            max_sm_clock_mhz: dev.max_clock_info(Clock::SM).ok(),
            power_w: dev.power_usage().ok().map(|mw| f64::from(mw) / 1e3),
            power_limit_w: dev
                .enforced_power_limit()
                .ok()
                .map(|mw| f64::from(mw) / 1e3),
            temperature_c: dev.temperature(TemperatureSensor::Gpu).ok(),
            throttle_bits,
            throttle_reasons: throttle_reason_names(throttle_bits),
            throttled: is_throttling(throttle_bits),
        })
    }
}

impl GpuState {
    /// Samples GPU 0 with a fresh NVML session (convenient for one-off
    /// snapshots; use [`NvmlSession`] in loops).
    pub fn sample() -> Result<GpuState> {
        NvmlSession::open()?.sample(0)
    }

    /// Samples GPU `index` with a fresh NVML session.
    pub fn sample_index(index: u32) -> Result<GpuState> {
        NvmlSession::open()?.sample(index)
    }

    /// Samples the GPU at PCI bus id `bus_id` with a fresh NVML session.
    pub fn sample_pci(bus_id: &str) -> Result<GpuState> {
        NvmlSession::open()?.sample_pci(bus_id)
    }
}

/// NVML's clocks-event reason bits (nvml.h, `nvmlClocksEventReason*`).
pub const THROTTLE_REASONS: [(u64, &str); 9] = [
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
];

/// Reasons that lower clocks while a kernel runs.
const THROTTLING_BITS: u64 = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

/// Names of the set bits; unknown bits as `unknown(0x...)` so nothing is
/// silently dropped.
pub fn throttle_reason_names(bits: u64) -> Vec<String> {
    let mut names: Vec<String> = THROTTLE_REASONS
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| (*n).to_string())
        .collect();
    let known = THROTTLE_REASONS.iter().fold(0, |acc, (b, _)| acc | b);
    if bits & !known != 0 {
        names.push(format!("unknown({:#x})", bits & !known));
    }
    names
}

/// Whether `bits` include a reason that slows a running kernel.
pub fn is_throttling(bits: u64) -> bool {
    bits & THROTTLING_BITS != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_names() {
        let cases: [(u64, &[&str], bool); 5] = [
            (0, &[], false),
            (0x1, &["gpu_idle"], false),
            (0x44, &["sw_power_cap", "hw_thermal_slowdown"], true),
            (
                0x102,
                &["applications_clocks_setting", "display_clock_setting"],
                false,
            ),
            (0x1_0008, &["hw_slowdown", "unknown(0x10000)"], true),
        ];
        for (bits, names, throttled) in cases {
            assert_eq!(throttle_reason_names(bits), names, "{bits:#x}");
            assert_eq!(is_throttling(bits), throttled, "{bits:#x}");
        }
    }

    #[test]
    fn sample_without_a_driver_is_an_error_not_a_panic() {
        match GpuState::sample() {
            // A machine with a GPU: the snapshot must be sane.
            Ok(s) => assert!(s.sm_clock_mhz > 0 && !s.name.is_empty(), "{s:?}"),
            Err(BenchError::Nvml(msg)) => {
                assert!(
                    msg.contains("NVML") || msg.contains("libnvidia-ml"),
                    "{msg}"
                );
            }
            Err(other) => panic!("expected BenchError::Nvml, got {other:?}"),
        }
    }
}
