//! Keeping the instrumented kernel's occupancy: the plain kernel's CTAs per
//! SM, as far as registers decide it.
//!
//! ptxas picks a register target per kernel, and records can flip it:
//! Triton's layer-norm backward (256 threads) takes 128 registers plain and
//! 156 instrumented, which halves its CTAs per SM (2 → 1); told `.maxnreg
//! 128`, ptxas fits the instrumented kernel in 128 with no spill. A cap is
//! not free, though: `.maxnreg` changes how ptxas allocates even where the
//! free build needs no more (the corpus softmax at 40 registers spilled 16
//! bytes under a cap of 40). So the cap is set only where the free build
//! would lose occupancy, and at the most registers that keep it.

use std::collections::BTreeMap;

use crate::error::{InstrumentError, Result};
use crate::options::{Emit, InstrumentOptions, Target};
use crate::{cost, llvm, mlir, KperfContext};

/// Per-SM limits that, with the register count, bound CTAs per SM.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SmLimits {
    pub registers: u32,
    pub max_warps: u32,
    pub max_ctas: u32,
}

impl SmLimits {
    /// Limits of an `sm_XY[a]` chip (the CUDA occupancy calculator's table;
    /// 64 K registers on every chip kperf targets).
    pub fn of(chip: &str) -> SmLimits {
        let cc: u32 = chip
            .trim_start_matches("sm_")
            .trim_end_matches(|c: char| c.is_ascii_alphabetic())
            .parse()
            .unwrap_or(90);
        let (max_warps, max_ctas) = match cc {
            86 | 87 => (48, 16),
            89 => (48, 24),
            120 | 121 => (48, 32),
            _ => (64, 32),
        };
        SmLimits {
            registers: 64 * 1024,
            max_warps,
            max_ctas,
        }
    }

    /// CTAs of `threads` threads one SM holds at `regs` registers per thread
    /// (registers, warps and CTA slots; shared memory is not considered).
    pub fn ctas_per_sm(self, regs: u32, threads: u32) -> u32 {
        let warps_per_cta = threads.div_ceil(32).max(1);
        // Registers are allocated per warp in units of 256, and warps in
        // groups of 4 (one per scheduler).
        let per_warp = (regs.max(1) * 32).div_ceil(256) * 256;
        let warps_by_regs = (self.registers / per_warp) / 4 * 4;
        (warps_by_regs / warps_per_cta)
            .min(self.max_warps / warps_per_cta)
            .min(self.max_ctas)
    }

    /// The most registers per thread (≤ 255) at which `ctas` CTAs of
    /// `threads` threads still fit, if any.
    pub fn max_registers_for(self, ctas: u32, threads: u32) -> Option<u32> {
        (1..=255u32)
            .rev()
            .find(|&r| self.ctas_per_sm(r, threads) >= ctas)
    }
}

/// One kernel's registers, plain against instrumented, and the cap set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterHold {
    pub kernel: String,
    pub threads: u32,
    pub plain: u32,
    pub instrumented: u32,
    pub plain_ctas_per_sm: u32,
    pub instrumented_ctas_per_sm: u32,
    /// The cap, where the instrumented build would lose occupancy.
    pub cap: Option<u32>,
}

impl RegisterHold {
    /// A line for the user, when a cap was set.
    pub fn describe(&self) -> Option<String> {
        let cap = self.cap?;
        Some(format!(
            "`{}`: {} registers instrumented against {} plain would run {} CTA(s) of {} threads \
             per SM instead of {}: capped at {cap} (.maxnreg)",
            self.kernel,
            self.instrumented,
            self.plain,
            self.instrumented_ctas_per_sm,
            self.threads,
            self.plain_ctas_per_sm
        ))
    }
}

/// Build `input` plain and instrumented under `opts` (NVPTX), assemble
/// both, and say per kernel which register cap keeps the plain build's CTAs
/// per SM; put the caps in `opts.register_limits`. Needs ptxas.
/// `triton`: a Triton metadata file was found beside LLVM IR input.
pub fn hold_occupancy(
    kctx: &KperfContext,
    input: &[u8],
    file: &str,
    opts: &mut InstrumentOptions,
    triton: bool,
) -> Result<Vec<RegisterHold>> {
    let Target::Nvptx { chip, simt: false } = &opts.target else {
        return Ok(Vec::new());
    };
    let chip = chip.clone();
    opts.register_limits.clear();
    let (plain_ptx, inst_ptx, meta) = if llvm::is_llvm_input(file, input) {
        let plain = llvm::instrument_llvm(kctx, input, file, opts, Emit::Ptx, true, triton)?;
        let inst = llvm::instrument_llvm(kctx, input, file, opts, Emit::Ptx, false, triton)?;
        (plain.bytes, inst.bytes, inst.meta)
    } else {
        let source = std::str::from_utf8(input).map_err(|_| InstrumentError::At {
            location: file.to_string(),
            message: "not UTF-8 text (MLIR is text)".into(),
        })?;
        let plain = mlir::pipeline::compile_plain(kctx, source, file, opts, Emit::Ptx)?;
        let inst = mlir::pipeline::instrument(kctx, source, file, opts, Emit::Ptx)?;
        (plain, inst.bytes, Some(inst.meta))
    };
    let Some(meta) = meta else {
        return Ok(Vec::new());
    };
    let plain_regs = cost::register_counts(&plain_ptx, &chip)?;
    let inst_regs = cost::register_counts(&inst_ptx, &chip)?;
    let sm = SmLimits::of(&chip);
    let mut holds = Vec::new();
    let mut limits = BTreeMap::new();
    for km in &meta.kernels {
        let (Some(&plain), Some(&instrumented)) =
            (plain_regs.get(&km.name), inst_regs.get(&km.name))
        else {
            continue;
        };
        let threads = km.block.iter().product::<u32>();
        let (pc, ic) = (
            sm.ctas_per_sm(plain, threads),
            sm.ctas_per_sm(instrumented, threads),
        );
        let cap = (ic < pc)
            .then(|| sm.max_registers_for(pc, threads))
            .flatten();
        if let Some(c) = cap {
            limits.insert(km.name.clone(), c);
        }
        holds.push(RegisterHold {
            kernel: km.name.clone(),
            threads,
            plain,
            instrumented,
            plain_ctas_per_sm: pc,
            instrumented_ctas_per_sm: ic,
            cap,
        });
    }
    opts.register_limits = limits;
    Ok(holds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctas_per_sm_follows_the_occupancy_calculator() {
        let h100 = SmLimits::of("sm_90a");
        // 256 threads: 128 registers → 2 CTAs, 156 → 1 (the layer-norm case).
        assert_eq!(h100.ctas_per_sm(128, 256), 2);
        assert_eq!(h100.ctas_per_sm(156, 256), 1);
        assert_eq!(h100.max_registers_for(2, 256), Some(128));
        // 128 threads at 32 registers: the 32-CTA and 64-warp limits bind.
        assert_eq!(h100.ctas_per_sm(32, 128), 16);
        // 168 × 32 = 5376 registers a warp (21 units of 256): 12 warps, 3 CTAs.
        assert_eq!(h100.ctas_per_sm(168, 128), 3);
        assert_eq!(h100.ctas_per_sm(255, 1024), 0);
        let ada = SmLimits::of("sm_89");
        assert_eq!(ada.ctas_per_sm(32, 128), 12);
    }
}
