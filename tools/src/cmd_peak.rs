//! `kperf peak --target host|cuda`: measure the achievable memory bandwidth
//! and compute rate and save them as the device profile that `kperf bench
//! --peaks` and `kperf roofline` draw their roofs from.

use anyhow::{bail, Result};
use kperf_bench::roofline::{si, DevicePeaks, PeakSource};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct PeakArgs {
    /// host | cuda
    #[arg(long, default_value = "host")]
    pub target: String,
    /// Device profile to write
    #[arg(short, long, default_value = "peaks.json")]
    pub output: PathBuf,
    /// Threads (host; default: all cores)
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// Bytes per copy buffer, at least 1 MiB (default: 256 MiB host, 1 GiB
    /// CUDA); a buffer that fits a cache measures the cache, not memory
    #[arg(long, value_parser = clap::value_parser!(u64).range(1 << 20..=1 << 40))]
    pub copy_bytes: Option<u64>,
    /// Timed repetitions; the best counts
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// CUDA device ordinal
    #[arg(long, default_value_t = 0)]
    pub device: usize,
}

pub fn run(a: PeakArgs) -> Result<()> {
    let peaks = match a.target.as_str() {
        "host" => host(&a)?,
        "cuda" => cuda(&a)?,
        t => bail!("--target {t}: expected host or cuda"),
    };
    peaks.validate()?;
    println!("device     {}", peaks.device);
    println!("bandwidth  {}", si(peaks.bandwidth_bytes_per_s, "B/s"));
    for (k, v) in &peaks.compute_flops_per_s {
        println!("{k:<10} {}", si(*v, "FLOP/s"));
    }
    for n in &peaks.notes {
        println!("note: {n}");
    }
    peaks.save(&a.output)?;
    eprintln!("kperf: wrote {}", a.output.display());
    Ok(())
}

fn host(a: &PeakArgs) -> Result<DevicePeaks> {
    use kperf_runtime::peak::{host_add_bandwidth, host_copy_bandwidth, host_fma_rate, FmaShape};
    let threads = a
        .threads
        .map_or_else(crate::host_job::default_threads, |t| t as usize);
    let bytes = a.copy_bytes.map_or(256 << 20, |b| b as usize);
    let llc = kperf_bench::host::last_level_cache().map(|c| c.size_bytes);
    let copy = host_copy_bandwidth(bytes, threads, a.reps);
    let add = host_add_bandwidth(bytes, threads, a.reps)?;
    let bw = copy.max(add);
    let shape = FmaShape::for_host();
    // Tens of milliseconds per call: long against thread start-up.
    let fma = host_fma_rate(&shape, 20_000_000, threads, a.reps)?;
    let name = kperf_bench::host::HostInfo::collect(None)
        .cpu_model
        .unwrap_or_else(|| "host CPU".into());
    let mut peaks = DevicePeaks::new(&name, PeakSource::Measured, bw).with_compute("fp32", fma);
    peaks.notes.push(format!(
        "bandwidth: the faster of a {} MiB copy ({}) and a vector y += x ({}) over {threads} threads, bytes read + written, best of {}{}",
        bytes >> 20,
        si(copy, "B/s"),
        si(add, "B/s"),
        a.reps,
        match llc {
            Some(l) if (bytes as u64) < 4 * l => format!(" (warning: under 4x the {} MiB LLC)", l >> 20),
            _ => String::new(),
        }
    ));
    peaks.notes.push(format!(
        "fp32: {} chains of {}-lane multiply-adds JIT-compiled for {} on {threads} threads, best of {}",
        shape.chains, shape.lanes, shape.cpu, a.reps
    ));
    Ok(peaks)
}

fn cuda(a: &PeakArgs) -> Result<DevicePeaks> {
    use kperf_runtime::cuda_bench::{copy_bandwidth, sgemm_rate};
    let bytes = a.copy_bytes.map_or(1 << 30, |b| b as usize);
    let (name, bw) = copy_bandwidth(a.device, bytes, a.reps)?;
    let n = 8192;
    let fp32 = sgemm_rate(a.device, n, a.reps)?;
    let mut peaks = DevicePeaks::new(&name, PeakSource::Measured, bw).with_compute("fp32", fp32);
    peaks.notes.push(format!(
        "bandwidth: device-to-device copy of {} MiB, bytes read + written, best of {}",
        bytes >> 20,
        a.reps
    ));
    peaks.notes.push(format!(
        "fp32: cuBLAS SGEMM {n}x{n}x{n}, best of {}",
        a.reps
    ));
    Ok(peaks)
}
