//! `kperf peak --target host`: what this CPU actually achieves, measured,
//! for the roofline's roofs.
//!
//! - Memory: two streaming passes over buffers many times the last-level
//!   cache, split over threads: a copy (memcpy, counting bytes read plus
//!   written, STREAM's convention) and a JIT-compiled vector `y += x`
//!   (12 bytes per float). The roof is the faster of the two: memcpy's
//!   non-temporal stores win on some machines, plain read-modify-write
//!   streams on others, and a kernel can only beat a roof that is too low.
//! - Compute: an FMA-bound kernel JIT-compiled for this CPU (its own vector
//!   width and features): independent chains of vector multiply-adds, enough
//!   of them to cover the FMA latency on every port, no memory traffic.

use crate::launch_error::LaunchError;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::targets::{InitializationConfig, Target, TargetMachine};
use inkwell::OptimizationLevel;
use std::fmt::Write;
use std::time::Instant;

fn err(msg: impl Into<String>) -> LaunchError {
    LaunchError::Launch(msg.into())
}

/// The fastest of `reps` timed runs of `run`, after one untimed run that
/// pays first-touch and warm-up costs.
fn best_seconds(reps: u32, mut run: impl FnMut()) -> f64 {
    run();
    (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Copy bandwidth in bytes/s (read + written), best of `reps` after one
/// untimed pass, with `bytes` per buffer split over `threads`.
pub fn host_copy_bandwidth(bytes: usize, threads: usize, reps: u32) -> f64 {
    let threads = threads.max(1);
    let words = (bytes / 8).max(threads);
    // vec! of a non-zero value touches every page now, outside the timing.
    let src = vec![1u64; words];
    let mut dst = vec![2u64; words];
    let chunk = words.div_ceil(threads);
    let best = best_seconds(reps, || {
        std::thread::scope(|s| {
            for (d, sc) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                s.spawn(move || d.copy_from_slice(sc));
            }
        });
        std::hint::black_box(&mut dst);
    });
    2.0 * (words * 8) as f64 / best
}

/// `y += x` over `bytes`-sized f32 buffers on `threads` threads, JIT-compiled
/// with this CPU's vector width; bytes/s counting x and y read and y
/// written, best of `reps` after one untimed pass.
pub fn host_add_bandwidth(bytes: usize, threads: usize, reps: u32) -> Result<f64, LaunchError> {
    let shape = FmaShape::for_host();
    let w = shape.lanes as usize;
    let threads = threads.max(1);
    let per_thread_vecs = (bytes / 4 / w / threads).max(1);
    let n = per_thread_vecs * w * threads;
    let v = format!("<{w} x float>");
    let ir = format!(
        "define void @kperf_stream_add(ptr noalias %x, ptr noalias %y, i64 %nvec) #0 {{\n\
         entry:\n  br label %loop\n\
         loop:\n  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]\n\
           %px = getelementptr {v}, ptr %x, i64 %i\n\
           %py = getelementptr {v}, ptr %y, i64 %i\n\
           %a = load {v}, ptr %px, align 4\n\
           %b = load {v}, ptr %py, align 4\n\
           %s = fadd {v} %a, %b\n\
           store {v} %s, ptr %py, align 4\n\
           %i1 = add i64 %i, 1\n\
           %done = icmp uge i64 %i1, %nvec\n\
           br i1 %done, label %exit, label %loop\n\
         exit:\n  ret void\n}}\n\
         attributes #0 = {{ \"target-cpu\"=\"{}\" \"target-features\"=\"{}\" }}\n",
        shape.cpu, shape.features
    );
    type Add = unsafe extern "C" fn(*const f32, *mut f32, u64);
    let x = vec![1.0f32; n];
    let mut y = vec![2.0f32; n];
    let chunk = per_thread_vecs * w;
    let best = with_jit(&ir, "kperf_stream_add", |addr| {
        // SAFETY: the function was built with exactly this signature above.
        let f: Add = unsafe { std::mem::transmute::<usize, Add>(addr) };
        best_seconds(reps, || {
            std::thread::scope(|s| {
                for (yc, xc) in y.chunks_mut(chunk).zip(x.chunks(chunk)) {
                    // SAFETY: each chunk holds per_thread_vecs whole vectors.
                    s.spawn(move || unsafe {
                        f(xc.as_ptr(), yc.as_mut_ptr(), per_thread_vecs as u64)
                    });
                }
            });
        })
    })?;
    std::hint::black_box(&y);
    Ok(12.0 * n as f64 / best)
}

/// JIT `ir` for this CPU and hand `body` the address of `symbol`.
fn with_jit<R>(ir: &str, symbol: &str, body: impl FnOnce(usize) -> R) -> Result<R, LaunchError> {
    Target::initialize_native(&InitializationConfig::default())
        .map_err(|e| err(format!("LLVM native target: {e}")))?;
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), symbol);
    let module = ctx
        .create_module_from_ir(buf)
        .map_err(|e| err(format!("{symbol}: {e}")))?;
    let engine = module
        .create_jit_execution_engine(OptimizationLevel::Aggressive)
        .map_err(|e| err(format!("JIT: {e}")))?;
    let addr = engine
        .get_function_address(symbol)
        .map_err(|e| err(format!("JIT: {e}")))?;
    let out = body(addr);
    drop(engine);
    Ok(out)
}

/// The FMA kernel's shape for this CPU.
#[derive(Clone, Debug, PartialEq)]
pub struct FmaShape {
    /// f32 lanes per vector.
    pub lanes: u32,
    /// Independent accumulator chains.
    pub chains: u32,
    pub cpu: String,
    pub features: String,
}

impl FmaShape {
    /// Vector width from the host's features: 16 lanes with AVX-512F, 8 with
    /// AVX, 4 otherwise; 12 chains cover a 4-cycle FMA latency on 2 ports
    /// with room to spare and still fit 16 vector registers.
    pub fn for_host() -> FmaShape {
        let cpu = TargetMachine::get_host_cpu_name().to_string();
        let features = TargetMachine::get_host_cpu_features().to_string();
        let has = |f: &str| features.split(',').any(|x| x == format!("+{f}"));
        let lanes = if has("avx512f") {
            16
        } else if has("avx") {
            8
        } else {
            4
        };
        FmaShape {
            lanes,
            chains: 12,
            cpu,
            features,
        }
    }

    /// FLOPs of one call with `iters` iterations (a multiply-add is two).
    pub fn flops(&self, iters: u64) -> f64 {
        2.0 * self.lanes as f64 * self.chains as f64 * iters as f64
    }

    /// `void @kperf_fma_peak(i64 iters, ptr io)`: io[0] is the multiplier,
    /// io[1] the addend (loaded, so nothing folds); the chains' sum is
    /// stored back to io[0] so nothing is dead.
    pub fn ir(&self) -> String {
        let (w, n) = (self.lanes, self.chains);
        let v = format!("<{w} x float>");
        let mut s = String::new();
        let _ = writeln!(s, "declare {v} @llvm.fmuladd.v{w}f32({v}, {v}, {v})");
        let _ = writeln!(s, "define void @kperf_fma_peak(i64 %iters, ptr %io) #0 {{");
        let _ = writeln!(s, "entry:");
        let _ = writeln!(s, "  %m0 = load float, ptr %io");
        let _ = writeln!(s, "  %cp = getelementptr float, ptr %io, i64 1");
        let _ = writeln!(s, "  %c0 = load float, ptr %cp");
        let _ = writeln!(s, "  %m1 = insertelement {v} poison, float %m0, i64 0");
        let _ = writeln!(
            s,
            "  %m = shufflevector {v} %m1, {v} poison, <{w} x i32> zeroinitializer"
        );
        let _ = writeln!(s, "  %c1 = insertelement {v} poison, float %c0, i64 0");
        let _ = writeln!(
            s,
            "  %c = shufflevector {v} %c1, {v} poison, <{w} x i32> zeroinitializer"
        );
        let _ = writeln!(s, "  br label %loop");
        let _ = writeln!(s, "loop:");
        let _ = writeln!(s, "  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]");
        for k in 0..n {
            let _ = writeln!(s, "  %a{k} = phi {v} [ %c, %entry ], [ %b{k}, %loop ]");
        }
        for k in 0..n {
            let _ = writeln!(
                s,
                "  %b{k} = call {v} @llvm.fmuladd.v{w}f32({v} %a{k}, {v} %m, {v} %c)"
            );
        }
        let _ = writeln!(s, "  %i1 = add i64 %i, 1");
        let _ = writeln!(s, "  %done = icmp uge i64 %i1, %iters");
        let _ = writeln!(s, "  br i1 %done, label %exit, label %loop");
        let _ = writeln!(s, "exit:");
        let mut acc = "%b0".to_string();
        for k in 1..n {
            let _ = writeln!(s, "  %s{k} = fadd {v} {acc}, %b{k}");
            acc = format!("%s{k}");
        }
        let _ = writeln!(s, "  %r = extractelement {v} {acc}, i64 0");
        let _ = writeln!(s, "  store float %r, ptr %io");
        let _ = writeln!(s, "  ret void");
        let _ = writeln!(s, "}}");
        let _ = writeln!(
            s,
            "attributes #0 = {{ \"target-cpu\"=\"{}\" \"target-features\"=\"{}\" }}",
            self.cpu, self.features
        );
        s
    }
}

/// The FMA rate in FLOP/s on `threads` threads, best of `reps` calls of
/// `iters` iterations each (after one untimed call).
pub fn host_fma_rate(
    shape: &FmaShape,
    iters: u64,
    threads: usize,
    reps: u32,
) -> Result<f64, LaunchError> {
    type Fma = unsafe extern "C" fn(u64, *mut f32);
    let threads = threads.max(1);
    let best = with_jit(&shape.ir(), "kperf_fma_peak", |addr| {
        // SAFETY: the function was built with exactly this signature above.
        let f: Fma = unsafe { std::mem::transmute::<usize, Fma>(addr) };
        best_seconds(reps, || {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(move || {
                        let mut io = [0.999_999f32, 1e-3];
                        // SAFETY: io holds the two floats the kernel reads.
                        unsafe { f(iters, io.as_mut_ptr()) };
                        std::hint::black_box(io);
                    });
                }
            });
        })
    })?;
    Ok(shape.flops(iters) * threads as f64 / best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fma_kernel_counts_its_flops_and_runs() {
        let shape = FmaShape::for_host();
        assert_eq!(shape.flops(10), 2.0 * shape.lanes as f64 * 12.0 * 10.0);
        // The best of 10: one launch, thread start included, can wait for
        // a busy CPU (94 MFLOP/s once while ptxas ran on both cores).
        let rate = host_fma_rate(&shape, 10_000, 1, 10).unwrap();
        // Any real CPU does more than 100 MFLOP/s on this; a broken loop
        // (folded away, or one iteration) shows up as absurd rates.
        assert!(rate > 1e8 && rate < 1e13, "{rate}");
    }

    #[test]
    fn bandwidths_are_positive_and_finite() {
        let bw = host_copy_bandwidth(1 << 20, 1, 2);
        assert!(bw.is_finite() && bw > 1e8, "{bw}");
        let bw = host_add_bandwidth(1 << 20, 2, 2).unwrap();
        assert!(bw.is_finite() && bw > 1e8, "{bw}");
    }
}
