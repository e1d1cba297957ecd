//! `kperf replay-bench`: replay throughput, output size and memory on
//! synthetic GPU-shaped profiles of 1M, 10M and 100M records, beside a
//! memcpy of the same bytes.
//!
//! Each profile is a `.kprof` written block by block (CTAs of 8 warps × 1280
//! records, clock64 at 1.755 ticks/ns, 132 SMs: a kernel region around 319
//! iterations of load and mma and an epilogue), so making it needs little
//! memory. Each stage then runs as a child `kperf` process on that file:
//! `report` (decode, replay, analyses), `replay -o trace.json` and `replay -o
//! trace.pftrace`. Wall time, CPU time and peak RSS come from the child's
//! rusage; peak anonymous memory (RssAnon: what replay allocates, without the
//! mapped profile's pages) is sampled every 2 ms from /proc.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;
use kperf_runtime::synthetic::{cta_block, run_info, RECORDS_PER_UNIT, SMS, UNITS};

#[derive(Args)]
pub struct ReplayBenchArgs {
    /// Profile sizes in records (k and M suffixes)
    #[arg(long, default_value = "1M,10M,100M")]
    pub records: String,
    /// Stages to time: report, json, pftrace
    #[arg(long, default_value = "report,json,pftrace")]
    pub stages: String,
    /// Where the profiles and traces go (default: a temporary directory
    /// under $TMPDIR, removed afterwards)
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Keep the profiles (bench-<records>.kprof in --dir) for other tools
    #[arg(long, requires = "dir")]
    pub keep: bool,
}

fn parse_count(s: &str) -> Result<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1_000),
        Some((i, 'M' | 'm')) => (&s[..i], 1_000_000),
        Some((i, 'G' | 'g')) => (&s[..i], 1_000_000_000),
        _ => (s, 1),
    };
    let n: f64 = num
        .parse()
        .with_context(|| format!("`{s}` is not a record count (e.g. 10M)"))?;
    anyhow::ensure!(
        n.is_finite() && n >= 1.0 && n * (mult as f64) <= 1e10,
        "record count `{s}` must be between 1 and 10G"
    );
    Ok((n * mult as f64) as u64)
}

/// Write a profile of `ctas` CTAs to `path`, one block at a time.
fn write_profile(path: &Path, ctas: u32) -> Result<()> {
    let info = run_info(ctas);
    let layout = info.meta.kernels[0].layout;
    let stride = layout.cta_stride();
    let header = kperf_runtime::kprof::encode_header(&info, u64::from(ctas), stride as u64)?;
    // A new file only: never through a link, never over the user's.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    w.write_all(&header)?;
    for cta in 0..ctas {
        w.write_all(&cta_block(cta))?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all().ok();
    Ok(())
}

/// Best of three copies of the file's bytes out of a memory map into a
/// reused 8 MiB buffer: the speed of light for reading the profile.
fn memcpy_time(path: &Path) -> Result<Duration> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the file was written by this process and is not modified while mapped.
    let map = unsafe { memmap2::Mmap::map(&file)? };
    let mut buf = vec![0u8; 8 << 20];
    let mut best = Duration::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        for chunk in map.chunks(buf.len()) {
            buf[..chunk.len()].copy_from_slice(chunk);
            std::hint::black_box(&buf);
        }
        best = best.min(t.elapsed());
    }
    Ok(best)
}

/// What one child run cost.
struct ChildCost {
    wall: Duration,
    cpu: Duration,
    max_rss_kib: u64,
    max_anon_kib: u64,
}

fn rss_anon_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("RssAnon:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Run `kperf args...` and measure it.
fn run_child(args: &[&std::ffi::OsStr]) -> Result<ChildCost> {
    let exe = std::env::current_exe().context("cannot find the kperf executable")?;
    let t = Instant::now();
    let child = Command::new(exe)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot start kperf")?;
    let pid = child.id();
    let mut max_anon = 0;
    let mut status = 0i32;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waiting on our own child's pid with a valid status and rusage.
        let r = unsafe { libc::wait4(pid as i32, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid as i32 {
            break;
        }
        anyhow::ensure!(r == 0, "wait4 failed: {}", std::io::Error::last_os_error());
        if let Some(a) = rss_anon_kib(pid) {
            max_anon = max_anon.max(a);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let wall = t.elapsed();
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    anyhow::ensure!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "kperf {:?} failed: {stderr}",
        args
    );
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ok(ChildCost {
        wall,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        max_rss_kib: usage.ru_maxrss as u64,
        max_anon_kib: max_anon,
    })
}

pub fn run(a: ReplayBenchArgs) -> Result<()> {
    let sizes = a
        .records
        .split(',')
        .map(parse_count)
        .collect::<Result<Vec<_>>>()?;
    let stages: Vec<&str> = a.stages.split(',').map(str::trim).collect();
    for s in &stages {
        anyhow::ensure!(
            matches!(*s, "report" | "json" | "pftrace"),
            "unknown stage `{s}` (report, json, pftrace)"
        );
    }
    let tmp;
    let dir = match &a.dir {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
            d.clone()
        }
        None => {
            tmp = tempfile::tempdir().context("cannot make a temporary directory")?;
            // Interrupted, the directory went nowhere (801 MB left behind).
            kperf_runtime::output::remove_empty_dir_on_interrupt(Some(tmp.path()));
            tmp.path().to_path_buf()
        }
    };
    // The largest size's profile and its largest trace must fit on the
    // disk: `--records 10G` began an 80 GB profile with 50 GB free.
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let trace_bytes_per_record: u64 = if stages.contains(&"json") {
        110
    } else if stages.contains(&"pftrace") {
        24
    } else {
        0
    };
    let needed = largest.saturating_mul(9 + trace_bytes_per_record);
    if let Some(free) = free_bytes(&dir) {
        anyhow::ensure!(
            needed <= free,
            "{} records need about {:.1} GB in {} (the profile and its largest trace), and {:.1} GB \
             are free: give fewer records or --dir elsewhere",
            largest,
            needed as f64 / 1e9,
            dir.display(),
            free as f64 / 1e9
        );
    }
    // What this run writes in --dir and removes again: the user's files of
    // those names were overwritten (through a link too) and then deleted.
    if a.dir.is_some() {
        let per_cta = u64::from(UNITS * RECORDS_PER_UNIT);
        let mut names: Vec<String> = sizes
            .iter()
            .map(|n| format!("bench-{}.kprof", n.div_ceil(per_cta) * per_cta))
            .collect();
        names.extend(["trace.json".to_string(), "trace.pftrace".to_string()]);
        for name in names {
            let p = dir.join(&name);
            anyhow::ensure!(
                std::fs::symlink_metadata(&p).is_err(),
                "{} exists: replay-bench writes and removes {name} in --dir; give a directory \
                 without it (one an earlier run kept with --keep is yours to remove)",
                p.display()
            );
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("kperf replay-bench: {cores} cores; profiles of {UNITS} warps x {RECORDS_PER_UNIT} records per CTA on {SMS} SMs");
    println!(
        "{:>9} {:>8} {:<8} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9}",
        "records",
        "MB",
        "stage",
        "wall s",
        "M rec/s",
        "cpu/wall",
        "B/record",
        "RSS MiB",
        "anon MiB"
    );
    for n in sizes {
        let per_cta = u64::from(UNITS * RECORDS_PER_UNIT);
        let ctas = u32::try_from(n.div_ceil(per_cta)).context("too many CTAs")?;
        let records = u64::from(ctas) * per_cta;
        let profile = dir.join(format!("bench-{records}.kprof"));
        let _cleanup = (!a.keep)
            .then(|| kperf_runtime::output::remove_on_interrupt(&profile))
            .flatten();
        write_profile(&profile, ctas)?;
        let bytes = std::fs::metadata(&profile)?.len();
        let mb = bytes as f64 / 1e6;
        let copy = memcpy_time(&profile)?;
        println!(
            "{records:>9} {mb:>8.1} {:<8} {:>8.3} {:>9.1} {:>8} {:>9.2} {:>9} {:>9}   ({:.2} GB/s)",
            "memcpy",
            copy.as_secs_f64(),
            records as f64 / copy.as_secs_f64() / 1e6,
            "",
            bytes as f64 / records as f64,
            "",
            "",
            bytes as f64 / copy.as_secs_f64() / 1e9
        );
        for stage in &stages {
            let out = dir.join(match *stage {
                "json" => "trace.json",
                _ => "trace.pftrace",
            });
            let p = profile.as_os_str();
            let o = out.as_os_str();
            let args: Vec<&std::ffi::OsStr> = match *stage {
                "report" => vec!["report".as_ref(), p],
                _ => vec!["replay".as_ref(), p, "-o".as_ref(), o],
            };
            let cost = run_child(&args)?;
            let out_bytes = if *stage == "report" {
                None
            } else {
                let b = std::fs::metadata(&out)?.len();
                std::fs::remove_file(&out)?;
                Some(b)
            };
            let wall = cost.wall.as_secs_f64();
            println!(
                "{records:>9} {mb:>8.1} {stage:<8} {wall:>8.3} {:>9.1} {:>8.2} {:>9} {:>9.1} {:>9.1}",
                records as f64 / wall / 1e6,
                cost.cpu.as_secs_f64() / wall,
                out_bytes.map_or("-".into(), |b| format!("{:.2}", b as f64 / records as f64)),
                cost.max_rss_kib as f64 / 1024.0,
                cost.max_anon_kib as f64 / 1024.0,
            );
        }
        if !a.keep {
            std::fs::remove_file(&profile)?;
        }
    }
    Ok(())
}

/// Bytes free to an unprivileged writer in the file system holding `dir`.
fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a zeroed struct statvfs fills.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0)
        .then(|| (st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_suffixes() {
        assert_eq!(parse_count("1M").unwrap(), 1_000_000);
        assert_eq!(parse_count("2.5k").unwrap(), 2_500);
        assert_eq!(parse_count("100").unwrap(), 100);
        assert!(parse_count("0").is_err());
        assert!(parse_count("x").is_err());
        assert!(parse_count("20G").is_err());
    }
}
