//! `--registers occupancy`: keep the plain kernel's CTAs per SM (see
//! `kperf_instrument::registers`).

use anyhow::Result;
use kperf_instrument::options::Registers;
use kperf_instrument::{InstrumentError, InstrumentOptions, KperfContext};

/// With `policy` = occupancy on an NVPTX target, cap the kernels whose
/// instrumented build would run fewer CTAs per SM (`opts.register_limits`)
/// and say so. Without ptxas, or where ptxas cannot assemble the module
/// alone, warn and leave the registers free.
pub fn hold_occupancy(
    kctx: &KperfContext,
    input: &[u8],
    file: &str,
    opts: &mut InstrumentOptions,
    policy: Registers,
    triton: bool,
) -> Result<()> {
    // Only code ptxas assembles has registers to hold (not the SIMT target).
    if policy == Registers::Free || !opts.target.inline_ptx() {
        return Ok(());
    }
    // `--emit kperfgpu` output fed back has no plain build to compare with.
    if input.windows(9).any(|w| w == b"kperfgpu.") {
        eprintln!(
            "kperf: note: occupancy not checked: {file} holds kperf's lowered records \
             (kperfgpu), so there is no plain kernel to compare registers with"
        );
        return Ok(());
    }
    let allow_spills = policy == Registers::OccupancySpill;
    let sm = match &opts.target {
        kperf_instrument::options::Target::Nvptx { chip, .. } => {
            kperf_instrument::registers::SmLimits::of(chip)
        }
        _ => return Ok(()),
    };
    let mut result =
        kperf_instrument::registers::hold_occupancy(kctx, input, file, opts, triton, allow_spills);
    // Rings sized by default (--buffer auto, no --slots) that cost CTAs per
    // SM are cut to what keeps them, and the hold measured again: a Triton
    // kernel at 73728 bytes of shared memory ran 2 CTAs per SM instead of 3
    // with its 10400-byte rings.
    if let Ok(holds) = &result {
        let keep = holds
            .iter()
            .filter_map(|h| h.slots_keeping_occupancy(sm, opts).map(|s| (s, h)))
            .min_by_key(|(s, _)| *s);
        if let (Some((slots, h)), true, None) = (keep, opts.buffer_auto, opts.slots) {
            eprintln!(
                "kperf: rings of {slots} slots per unit (not {}) keep `{}` at its {} CTA(s) per \
                 SM (--slots sets them; --buffer global leaves its shared memory alone)",
                h.slots,
                crate::shown(&h.kernel),
                h.plain_ctas_per_sm
            );
            opts.slots = Some(slots);
            result = kperf_instrument::registers::hold_occupancy(
                kctx,
                input,
                file,
                opts,
                triton,
                allow_spills,
            );
        }
    }
    match result {
        Ok(holds) => {
            for h in &holds {
                for line in [h.describe(), h.describe_shared(sm), h.describe_spills()]
                    .into_iter()
                    .flatten()
                {
                    eprintln!("kperf: {line}");
                }
            }
            Ok(())
        }
        Err(InstrumentError::Tool { tool, message }) if message.contains("not found") => {
            eprintln!(
                "kperf: warning: occupancy not checked ({tool} not found: run scripts/setup.sh); \
                 ptxas may give the instrumented kernel more registers and fewer CTAs per SM"
            );
            Ok(())
        }
        // A module ptxas cannot assemble alone (extern device functions
        // linked later, say) can still be instrumented; only the check is lost.
        Err(InstrumentError::Tool { tool, message }) => {
            let first = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            eprintln!(
                "kperf: warning: occupancy not checked: {tool} cannot assemble {file} alone \
                 ({first}); the registers are left to ptxas"
            );
            Ok(())
        }
        // The input itself is at fault: say so as the build would, not as
        // a failed register comparison (the hold compiles both builds first).
        Err(
            e @ (InstrumentError::Parse { .. }
            | InstrumentError::ParseLlvm { .. }
            | InstrumentError::Unbalanced { .. }
            | InstrumentError::At { .. }
            | InstrumentError::NoKernel(_)
            | InstrumentError::Option(_)
            | InstrumentError::SharedMemory { .. }
            // A pass failing on the input fails the build alike: not a
            // register comparison's fault, and --registers free does not
            // help (`gpu.subgroup_reduce` upstream cannot legalize).
            | InstrumentError::Pipeline { .. }),
        ) => Err(e.into()),
        Err(e) => Err(anyhow::Error::new(e).context(format!(
            "{file}: comparing the plain and instrumented kernels' registers \
             (--registers free skips this)"
        ))),
    }
}
