//! Host measurement helpers: a fine-grained timer, the last-level cache
//! size, a cache flusher and the CPU frequency.
//!
//! Host kernels (the JIT path) are often microseconds long, below what
//! `Instant` resolves well on every OS, so samples are taken with the
//! time-stamp counter where it is trustworthy. Cold-cache numbers need the
//! kernel's data out of the LLC, which a flush by touching a larger buffer
//! achieves without privileged instructions. The CPU frequency is recorded
//! beside results because a turbo or a throttled core changes host timings
//! as much as a code change does.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};

/// Which clock a [`CycleTimer`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TimerKind {
    /// x86-64 time-stamp counter (`rdtsc`), fenced.
    Tsc,
    /// `std::time::Instant` in ns (other architectures, or an unreliable
    /// TSC).
    Instant,
}

/// A calibrated timer. On x86-64 with a constant-rate TSC it reads the TSC
/// with `lfence; rdtsc; lfence` at the start (earlier instructions retire
/// first, later ones do not start early) and `rdtscp; lfence` at the end
/// (`rdtscp` waits for the measured code). TSC ticks count a constant
/// reference clock, not core cycles: they convert to time exactly but do
/// not follow turbo, so they are not "cycles" for
/// [`crate::compare`]'s clock-change check.
#[derive(Debug, Clone)]
pub struct CycleTimer {
    kind: TimerKind,
    ticks_per_ns: f64,
    has_rdtscp: bool,
    epoch: Instant,
    note: Option<String>,
}

/// One timed run: nanoseconds and the raw ticks behind them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimedSample {
    pub ns: f64,
    pub ticks: u64,
}

/// What the results file records about the timer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimerInfo {
    pub kind: TimerKind,
    /// Ticks per nanosecond (1 for `Instant`; the TSC rate in GHz otherwise).
    pub ticks_per_ns: f64,
    #[serde(default)]
    pub note: Option<String>,
}

impl CycleTimer {
    /// Calibrates against `Instant` over five 20 ms windows and keeps the
    /// median rate.
    pub fn calibrate() -> Result<CycleTimer> {
        CycleTimer::calibrate_for(Duration::from_millis(20), 5)
    }

    /// Calibrates with `rounds` windows of `window`. Falls back to
    /// `Instant` (and says why in [`TimerInfo::note`]) when the TSC is not
    /// constant-rate or the rounds disagree by more than 1%.
    pub fn calibrate_for(window: Duration, rounds: usize) -> Result<CycleTimer> {
        if rounds == 0 || window.is_zero() {
            return Err(BenchError::setting(
                "timer calibration",
                format!("{rounds} x {window:?}"),
                "needs at least one non-empty window",
            ));
        }
        let instant = |note: Option<String>| CycleTimer {
            kind: TimerKind::Instant,
            ticks_per_ns: 1.0,
            has_rdtscp: false,
            epoch: Instant::now(),
            note,
        };
        let Some(has_rdtscp) = tsc::usable() else {
            return Ok(instant(Some(
                "no constant-rate TSC on this CPU/architecture: timing with Instant".into(),
            )));
        };
        let mut rates = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let (t0, c0) = (Instant::now(), tsc::start());
            std::thread::sleep(window);
            let (c1, t1) = (tsc::start(), Instant::now());
            let ns = t1.duration_since(t0).as_nanos() as f64;
            if ns <= 0.0 || c1 <= c0 {
                return Ok(instant(Some(
                    "the TSC did not advance: timing with Instant".into(),
                )));
            }
            rates.push((c1 - c0) as f64 / ns);
        }
        rates.sort_by(f64::total_cmp);
        let rate = crate::stats::percentile(&rates, 0.5);
        let spread = (rates[rates.len() - 1] - rates[0]) / rate;
        if spread > 0.01 {
            return Ok(instant(Some(format!(
                "TSC rate varied by {:.1}% across calibration windows: timing with Instant",
                100.0 * spread
            ))));
        }
        Ok(CycleTimer {
            kind: TimerKind::Tsc,
            ticks_per_ns: rate,
            has_rdtscp,
            epoch: Instant::now(),
            note: None,
        })
    }

    pub fn kind(&self) -> TimerKind {
        self.kind
    }

    pub fn ticks_per_ns(&self) -> f64 {
        self.ticks_per_ns
    }

    pub fn info(&self) -> TimerInfo {
        TimerInfo {
            kind: self.kind,
            ticks_per_ns: self.ticks_per_ns,
            note: self.note.clone(),
        }
    }

    /// Reads the clock before the measured code.
    #[inline(always)]
    pub fn start(&self) -> u64 {
        match self.kind {
            TimerKind::Tsc => tsc::start(),
            TimerKind::Instant => self.epoch.elapsed().as_nanos() as u64,
        }
    }

    /// Reads the clock after the measured code.
    #[inline(always)]
    pub fn stop(&self) -> u64 {
        match self.kind {
            TimerKind::Tsc if self.has_rdtscp => tsc::stop(),
            TimerKind::Tsc => tsc::start(),
            TimerKind::Instant => self.epoch.elapsed().as_nanos() as u64,
        }
    }

    pub fn ticks_to_ns(&self, ticks: u64) -> f64 {
        ticks as f64 / self.ticks_per_ns
    }

    /// Times one call of `f`.
    #[inline(always)]
    pub fn time<R>(&self, f: impl FnOnce() -> R) -> (R, TimedSample) {
        let t0 = self.start();
        let r = std::hint::black_box(f());
        let t1 = self.stop();
        let ticks = t1.saturating_sub(t0);
        (
            r,
            TimedSample {
                ns: self.ticks_to_ns(ticks),
                ticks,
            },
        )
    }
}

#[cfg(target_arch = "x86_64")]
mod tsc {
    use core::arch::x86_64::{__cpuid, __rdtscp, _mm_lfence, _rdtsc};

    /// `Some(has_rdtscp)` when the TSC runs at a constant rate: CPUID's
    /// invariant-TSC bit, or Linux's `constant_tsc` flag (hypervisors often
    /// hide the CPUID bit but keep a stable TSC and say so there).
    pub fn usable() -> Option<bool> {
        // SAFETY: cpuid exists on every x86-64 CPU; leaves above the max
        // extended leaf return zeros, which read as "not supported".
        #[allow(unused_unsafe)]
        let (max_ext, invariant, rdtscp) = unsafe {
            let max_ext = __cpuid(0x8000_0000).eax;
            let invariant = max_ext >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0;
            let rdtscp = max_ext >= 0x8000_0001 && __cpuid(0x8000_0001).edx & (1 << 27) != 0;
            (max_ext, invariant, rdtscp)
        };
        let _ = max_ext;
        let constant = invariant
            || std::fs::read_to_string("/proc/cpuinfo")
                .map(|s| {
                    s.lines()
                        .find(|l| l.starts_with("flags"))
                        .is_some_and(|l| l.split_whitespace().any(|f| f == "constant_tsc"))
                })
                .unwrap_or(false);
        constant.then_some(rdtscp)
    }

    #[inline(always)]
    pub fn start() -> u64 {
        // SAFETY: lfence and rdtsc have no preconditions on x86-64.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }

    #[inline(always)]
    pub fn stop() -> u64 {
        let mut aux = 0u32;
        // SAFETY: only called when CPUID reported rdtscp.
        #[allow(unused_unsafe)]
        unsafe {
            let t = __rdtscp(&mut aux);
            _mm_lfence();
            t
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod tsc {
    pub fn usable() -> Option<bool> {
        None
    }
    pub fn start() -> u64 {
        0
    }
    pub fn stop() -> u64 {
        0
    }
}

/// One level of the cache hierarchy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheInfo {
    pub level: u32,
    pub size_bytes: u64,
    /// Where the number came from (a sysfs directory or /proc/cpuinfo).
    pub source: String,
}

/// The last-level cache of CPU 0, from sysfs, else /proc/cpuinfo's
/// "cache size". `None` when neither says.
pub fn last_level_cache() -> Option<CacheInfo> {
    llc_from_sysfs(Path::new("/sys/devices/system/cpu/cpu0/cache")).or_else(|| {
        let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
        let size = cpuinfo_field(&text, "cache size").and_then(|v| parse_cache_size(&v))?;
        Some(CacheInfo {
            level: 0,
            size_bytes: size,
            source: "/proc/cpuinfo cache size".into(),
        })
    })
}

/// Reads `index*/{level,type,size}` under `dir` and returns the largest
/// data or unified level (instruction caches do not hold kernel data).
pub fn llc_from_sysfs(dir: &Path) -> Option<CacheInfo> {
    let mut best: Option<CacheInfo> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let is_index = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("index"));
        if !is_index {
            continue;
        }
        let read = |f: &str| std::fs::read_to_string(path.join(f)).ok();
        if read("type").is_some_and(|t| t.trim() == "Instruction") {
            continue;
        }
        let (Some(level), Some(size)) = (
            read("level").and_then(|l| l.trim().parse::<u32>().ok()),
            read("size").and_then(|s| parse_cache_size(&s)),
        ) else {
            continue;
        };
        let better = best
            .as_ref()
            .is_none_or(|b| (level, size) > (b.level, b.size_bytes));
        if better {
            best = Some(CacheInfo {
                level,
                size_bytes: size,
                source: path.display().to_string(),
            });
        }
    }
    best
}

/// "32K", "1024K", "32M", "33792 KB", "512" (bytes) → bytes.
pub fn parse_cache_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().ok()?;
    let mult = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// The first `key : value` line of /proc/cpuinfo-style text.
fn cpuinfo_field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

/// Smallest flush buffer: covers LLCs that sysfs under-reports (per-CCX
/// L3 on multi-die parts) and machines where it reports nothing.
pub const MIN_FLUSH_BYTES: usize = 32 << 20;
/// Largest flush buffer, so a bogus LLC reading cannot exhaust memory.
pub const MAX_FLUSH_BYTES: usize = 1 << 30;

/// How a flush touches each cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlushMode {
    /// Read and write every line (the default, as the issue asks): evicts
    /// the kernel's data from every level, including lines an inclusive
    /// LLC would keep for reads only. Leaves the LLC full of *dirty* lines,
    /// whose write-back the next measured kernel pays for when it evicts
    /// them.
    ReadWrite,
    /// Read every line: evicts as well on non-inclusive caches and leaves
    /// clean lines, so the measured kernel pays no write-backs.
    Read,
}

/// Owns a buffer larger than the LLC and touches all of it, so the next
/// measured run starts with a cold cache.
#[derive(Debug)]
pub struct CacheFlusher {
    buf: Vec<u8>,
    line: usize,
    mode: FlushMode,
}

impl CacheFlusher {
    /// A flusher of max(2 × `llc_bytes`, 32 MiB), capped at 1 GiB; twice the
    /// LLC because replacement is not exactly LRU, so one LLC's worth can
    /// leave some old lines behind.
    pub fn new(llc_bytes: Option<u64>, mode: FlushMode) -> CacheFlusher {
        let size = flush_size(llc_bytes);
        // vec! writes every page now, so the first flush does not pay page
        // faults inside a measurement's neighbourhood.
        CacheFlusher {
            buf: vec![1u8; size],
            line: cache_line_size(),
            mode,
        }
    }

    /// A read-write flusher sized from this machine's LLC (see
    /// [`flush_size`]).
    pub fn for_this_machine() -> CacheFlusher {
        CacheFlusher::new(
            last_level_cache().map(|c| c.size_bytes),
            FlushMode::ReadWrite,
        )
    }

    pub fn size_bytes(&self) -> usize {
        self.buf.len()
    }

    pub fn line_bytes(&self) -> usize {
        self.line
    }

    /// Touches every cache line. `black_box` hides the buffer and the
    /// accumulated value from the optimiser, so neither the loads nor the
    /// stores can be removed.
    pub fn flush(&mut self) {
        let line = self.line;
        let buf = std::hint::black_box(&mut self.buf[..]);
        let mut acc = 0u8;
        match self.mode {
            FlushMode::ReadWrite => {
                for i in (0..buf.len()).step_by(line) {
                    let v = buf[i];
                    acc = acc.wrapping_add(v);
                    buf[i] = v.wrapping_add(1);
                }
            }
            FlushMode::Read => {
                for i in (0..buf.len()).step_by(line) {
                    acc = acc.wrapping_add(buf[i]);
                }
            }
        }
        std::hint::black_box(acc);
    }
}

/// The flush buffer size for an LLC of `llc_bytes`: max(2 × LLC, 32 MiB),
/// capped at 1 GiB.
pub fn flush_size(llc_bytes: Option<u64>) -> usize {
    let want = llc_bytes.map_or(0, |b| {
        usize::try_from(b.saturating_mul(2)).unwrap_or(usize::MAX)
    });
    want.clamp(MIN_FLUSH_BYTES, MAX_FLUSH_BYTES)
}

/// The coherency line size from sysfs, 64 bytes when unknown.
pub fn cache_line_size() -> usize {
    std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n.is_power_of_two() && (16..=1024).contains(&n))
        .unwrap_or(64)
}

/// Where a CPU frequency reading came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreqSource {
    /// `/sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq` (averaged).
    Cpufreq,
    /// `cpu MHz` lines of /proc/cpuinfo (averaged).
    ProcCpuinfo,
    /// The calibrated TSC rate: the nominal frequency, blind to turbo and
    /// throttling.
    TscEstimate,
}

/// The CPU frequency recorded beside host results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuFrequency {
    pub mhz: f64,
    pub source: FreqSource,
    /// Caveats for the reader (e.g. "estimated from the TSC").
    #[serde(default)]
    pub note: Option<String>,
}

/// Reads the CPU frequency: cpufreq, else /proc/cpuinfo, else the TSC rate
/// of `timer` (VMs often expose neither file). Errors only when all three
/// are missing.
pub fn cpu_frequency(timer: Option<&CycleTimer>) -> Result<CpuFrequency> {
    if let Some(mhz) = cpufreq_mhz(Path::new("/sys/devices/system/cpu")) {
        return Ok(CpuFrequency {
            mhz,
            source: FreqSource::Cpufreq,
            note: None,
        });
    }
    if let Some(mhz) = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| cpuinfo_mhz(&t))
    {
        return Ok(CpuFrequency {
            mhz,
            source: FreqSource::ProcCpuinfo,
            note: Some("from /proc/cpuinfo; in a VM this may be the host's nominal clock".into()),
        });
    }
    match timer {
        Some(t) if t.kind() == TimerKind::Tsc => Ok(CpuFrequency {
            mhz: t.ticks_per_ns() * 1e3,
            source: FreqSource::TscEstimate,
            note: Some(
                "estimated from the TSC rate (no cpufreq, no cpu MHz): the nominal clock, turbo and throttling are not visible".into(),
            ),
        }),
        _ => Err(BenchError::Host(
            "no CPU frequency: no cpufreq in /sys, no `cpu MHz` in /proc/cpuinfo and no TSC timer"
                .into(),
        )),
    }
}

/// Mean of `cpu*/cpufreq/scaling_cur_freq` (kHz) under `root`, in MHz.
pub fn cpufreq_mhz(root: &Path) -> Option<f64> {
    let mut values = Vec::new();
    for entry in std::fs::read_dir(root).ok()?.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_cpu = name
            .strip_prefix("cpu")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if !is_cpu {
            continue;
        }
        let file: PathBuf = entry.path().join("cpufreq/scaling_cur_freq");
        if let Some(khz) = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
        {
            values.push(khz / 1e3);
        }
    }
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Mean of the `cpu MHz` lines of /proc/cpuinfo text.
pub fn cpuinfo_mhz(text: &str) -> Option<f64> {
    let values: Vec<f64> = text
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "cpu MHz").then(|| v.trim().parse::<f64>().ok())?
        })
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Host facts recorded in the results file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    pub cpu_model: Option<String>,
    pub logical_cpus: Option<usize>,
    pub frequency: Option<CpuFrequency>,
    pub llc: Option<CacheInfo>,
    pub timer: Option<TimerInfo>,
    /// What could not be read, and why.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl HostInfo {
    /// Gathers what it can; missing pieces become `None` plus a note, since
    /// a benchmark should still run on a machine that hides its frequency.
    pub fn collect(timer: Option<&CycleTimer>) -> HostInfo {
        let mut notes = Vec::new();
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| cpuinfo_field(&t, "model name"));
        let frequency = cpu_frequency(timer)
            .map_err(|e| notes.push(e.to_string()))
            .ok();
        let llc = last_level_cache();
        if llc.is_none() {
            notes.push("last-level cache size unknown: flushing 32 MiB".into());
        }
        HostInfo {
            cpu_model,
            logical_cpus: std::thread::available_parallelism().ok().map(|n| n.get()),
            frequency,
            llc,
            timer: timer.map(CycleTimer::info),
            notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the system temp dir.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kperf-bench-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn cache_sizes_parse() {
        let cases = [
            ("32K\n", Some(32 << 10)),
            ("1024K", Some(1 << 20)),
            ("32768K", Some(32 << 20)),
            ("32M", Some(32 << 20)),
            ("33792 KB", Some(33792 << 10)),
            ("512", Some(512)),
            ("1G", Some(1 << 30)),
            ("", None),
            ("K", None),
            ("12 parsecs", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_cache_size(text), want, "{text:?}");
        }
    }

    #[test]
    fn llc_is_the_largest_data_level() {
        let dir = scratch("sysfs-cache");
        // (index, level, type, size)
        let levels = [
            (0, 1, "Data", "32K"),
            (1, 1, "Instruction", "64K"),
            (2, 2, "Unified", "1024K"),
            (3, 3, "Unified", "32768K"),
        ];
        for (i, level, kind, size) in levels {
            let d = dir.join(format!("index{i}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        }
        std::fs::create_dir_all(dir.join("power")).unwrap();
        let llc = llc_from_sysfs(&dir).unwrap();
        assert_eq!((llc.level, llc.size_bytes), (3, 32 << 20));
        assert!(llc.source.ends_with("index3"));
        assert_eq!(llc_from_sysfs(&dir.join("absent")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn frequency_sources_parse() {
        let cpuinfo = "processor\t: 0\ncpu MHz\t\t: 2000.000\nmodel name\t: Test CPU\n\
                       processor\t: 1\ncpu MHz\t\t: 3000.500\n";
        assert_eq!(cpuinfo_mhz(cpuinfo), Some(2500.25));
        assert_eq!(cpuinfo_mhz("processor : 0\n"), None);
        assert_eq!(
            cpuinfo_field(cpuinfo, "model name").as_deref(),
            Some("Test CPU")
        );

        let dir = scratch("cpufreq");
        for (cpu, khz) in [("cpu0", "2400000"), ("cpu1", "3600000\n")] {
            let d = dir.join(cpu).join("cpufreq");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("scaling_cur_freq"), khz).unwrap();
        }
        std::fs::create_dir_all(dir.join("cpufreq")).unwrap(); // not a cpu
        std::fs::create_dir_all(dir.join("cpuidle")).unwrap();
        assert_eq!(cpufreq_mhz(&dir), Some(3000.0));
        assert_eq!(cpufreq_mhz(&dir.join("absent")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn timer_measures_a_sleep() {
        let t = CycleTimer::calibrate_for(Duration::from_millis(10), 3).unwrap();
        assert!(t.ticks_per_ns() > 0.0);
        let ((), s) = t.time(|| std::thread::sleep(Duration::from_millis(20)));
        // Generous bounds: this runs on loaded CI VMs.
        assert!(s.ns >= 19e6 && s.ns < 2e9, "{s:?} with {:?}", t.info());
        assert_eq!(s.ticks as f64 / t.ticks_per_ns(), s.ns);
        assert!(CycleTimer::calibrate_for(Duration::ZERO, 3).is_err());
        // Every machine yields some frequency given a timer, or a clean error.
        match cpu_frequency(Some(&t)) {
            Ok(f) => assert!(f.mhz > 0.0, "{f:?}"),
            Err(e) => assert!(e.to_string().contains("no CPU frequency")),
        }
        let info = HostInfo::collect(Some(&t));
        assert_eq!(info.timer.map(|i| i.kind), Some(t.kind()));
    }

    #[test]
    fn flusher_sizes_and_touches() {
        let cases = [
            (None, MIN_FLUSH_BYTES),
            (Some(1 << 20), MIN_FLUSH_BYTES),
            (Some(32 << 20), 64 << 20),
            (Some(u64::MAX), MAX_FLUSH_BYTES),
        ];
        for (llc, want) in cases {
            assert_eq!(flush_size(llc), want, "{llc:?}");
        }
        let mut f = CacheFlusher::new(Some(1), FlushMode::ReadWrite);
        assert_eq!(f.size_bytes(), MIN_FLUSH_BYTES);
        assert!(f.line_bytes().is_power_of_two());
        f.flush();
        f.flush();
        // Every line's first byte was incremented twice.
        assert!(f.buf.iter().step_by(f.line).all(|&b| b == 3));
        assert_eq!(f.buf[1], 1);
        let mut r = CacheFlusher::new(None, FlushMode::Read);
        r.flush();
        assert!(r.buf.iter().all(|&b| b == 1));
    }
}
