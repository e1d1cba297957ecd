//! Which instructions the line table gives the kernel but that only kperf's
//! code reads: kperf's work under the kernel's locations.
//!
//! LLVM's code generator rewrites kperf's ring counter, an induction
//! variable of every loop that holds records, as its loop strength
//! reduction sees fit: one increment per iteration and `counter − k` at
//! each record, placed and located at the kernel's instructions next to
//! them (Triton's int8 matmul with async regions: 10 of its 55 IADD3). The
//! SASS is what it would be with kperf's locations; only the attribution is
//! wrong. Making the counter opaque to the optimizer fixed the attribution
//! but not the kernel: it cost LLVM the fold of an iteration's END slot
//! into its START slot + 8, and ptxas then stopped unrolling Triton's
//! layernorm (2026-11-27). So the SASS is read as it is: an instruction
//! whose every reader is kperf's serves kperf alone; the plain kernel,
//! where nothing reads it, has no such instruction.
//!
//! The analysis errs towards the kernel: an instruction it cannot follow
//! is the kernel's.
//! - A register operand of unknown width is read as a wide one, an
//!   instruction of unknown effect reads every register, and a register is
//!   only taken as rewritten by an unpredicated instruction that names it
//!   as its destination.
//! - kperf's line is trusted on stores only. An instruction with kperf's
//!   line that writes a register serves kperf only if that register's
//!   readers do: ptxas gives kperf's line to the kernel's instructions at
//!   times, or to one instruction serving both.
//! - Predicates and uniform registers are not followed: a compare or a
//!   uniform copy serves no one, so kperf's counter as read by finalize's
//!   copy-loop compare stays the kernel's (Triton's row loop: its 2
//!   counter inits).
//! - A claimed instruction's results must reach one of kperf's stores.
//!
//! A review on 2026-11-27 found the first version trusting kperf's line on
//! every instruction: the kernel's own address arithmetic, loop bounds and
//! row increments were claimed through kperf-tagged adds and compares
//! (int8 GEMM, row loop, layer norms).

use crate::cost::SassInst;

/// Families an instruction may belong to and still be counted kperf's by
/// its readers: integer arithmetic, logic and moves, one register written,
/// nothing else done.
const PURE: &[&str] = &[
    "IADD3", "UIADD3", "IADD", "VIADD", "IMAD", "UIMAD", "LEA", "ULEA", "LOP3", "ULOP3", "SHF",
    "USHF", "SEL", "USEL", "MOV", "UMOV", "IMNMX", "VIMNMX", "PRMT", "UPRMT", "IABS", "SGXT",
];

/// Families whose first operand is a destination register. Anything not
/// listed here reads every register operand it names (stores, branches,
/// barriers, tensor-core ops, whose accumulator is read and written).
const WRITES_FIRST: &[&str] = &[
    "IADD3", "UIADD3", "IADD", "VIADD", "IMAD", "UIMAD", "LEA", "ULEA", "LOP3", "ULOP3", "SHF",
    "USHF", "SEL", "USEL", "MOV", "UMOV", "IMNMX", "VIMNMX", "PRMT", "UPRMT", "IABS", "SGXT",
    "S2R", "S2UR", "CS2R", "LDC", "ULDC", "LDG", "LDS", "LD", "LDL", "LDSM", "ISETP", "UISETP",
    "FSETP", "PLOP3", "UPLOP3", "FADD", "FMUL", "FFMA", "FMNMX", "HADD2", "HMUL2", "HFMA2", "F2F",
    "F2I", "I2F", "I2FP", "F2FP", "MUFU", "FRND", "POPC", "FLO", "BREV", "P2R", "SHFL", "VOTE",
    "VOTEU", "R2UR", "FSEL", "FCHK", "IDP", "DADD", "DMUL", "DFMA",
];

/// A register operand (`R12`, `R12.reuse`, `-R12`, `|R12|`, `R12.64`,
/// `R12.H1`, inside `[R12+0x8]` or `desc[UR4][R12.64]`): its number and
/// how many registers it may cover.
fn register_operands(operands: &str, default_width: u32) -> Vec<(u32, u32)> {
    let b = operands.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        // `R` starting a name (not `UR`, `SR_`, `PR`, `BR`...).
        let starts =
            b[k] == b'R' && (k == 0 || !b[k - 1].is_ascii_alphanumeric() && b[k - 1] != b'_');
        if !starts {
            k += 1;
            continue;
        }
        let digits: String = operands[k + 1..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        k += 1 + digits.len();
        let Ok(r) = digits.parse::<u32>() else {
            continue; // RZ, or not a register
        };
        let width = if operands[k..].starts_with(".64") {
            default_width.max(2)
        } else {
            default_width
        };
        out.push((r, width));
    }
    out
}

fn family(i: &SassInst) -> &str {
    i.opcode.split('.').next().unwrap_or(&i.opcode)
}

fn operands(i: &SassInst) -> &str {
    i.text
        .split_once(i.opcode.as_str())
        .map_or("", |(_, rest)| rest.trim().trim_end_matches(';'))
}

/// Registers per data operand of `i`: its vector width where a memory
/// opcode says it (`.64`, `.128`), 2 for doubles, and 128 for families
/// that read register blocks of a width SASS does not spell (tensor-core
/// accumulators and fragments).
fn data_width(i: &SassInst) -> u32 {
    let f = family(i);
    if f.contains("MMA") || f.starts_with("WARPGROUP") {
        return 128;
    }
    let memory = ["LD", "ST", "ATOM", "RED"].iter().any(|p| f.starts_with(p));
    // `STSM.16.M88.4` / `LDSM.16.M88.2`: matrices, one register each.
    let matrices = if matches!(f, "STSM" | "LDSM") {
        i.opcode
            .rsplit('.')
            .next()
            .and_then(|n| n.parse::<u32>().ok())
    } else {
        None
    };
    if let Some(n) = matrices {
        n
    } else if memory && i.opcode.contains(".128") {
        4
    } else if memory && i.opcode.contains(".64")
        || f.starts_with('D')
        || ["F2F", "I2F", "F2I", "FRND", "I2FP", "F2FP"].contains(&f) && i.opcode.contains("64")
    {
        // Doubles, and conversions from or to 64-bit types (read as wide
        // whichever side is 64-bit).
        2
    } else {
        1
    }
}

/// How many registers the destination `i` writes: a load's vector width, a
/// wide multiply's pair, a 64-bit `CS2R`.
fn destination_width(i: &SassInst) -> u32 {
    let f = family(i);
    let second = i.opcode.split('.').nth(1).unwrap_or("");
    if f.starts_with("LD") {
        data_width(i)
    } else if i.opcode.contains(".WIDE")
        || i.opcode.contains(".64")
        || f == "CS2R" && !i.opcode.contains(".32")
        || matches!(f, "DADD" | "DMUL" | "DFMA")
        || matches!(f, "F2F" | "I2F" | "I2FP" | "F2I") && second.ends_with("64")
    {
        2
    } else {
        1
    }
}

/// The registers `i` reads, each with how many it may cover: operands
/// split at top-level commas; an address (`[R4.64+0x8]`) covers what its
/// own suffix says, a data operand the instruction's [`data_width`];
/// `IMAD.WIDE`'s addend is a pair.
fn source_registers(i: &SassInst) -> Vec<(u32, u32)> {
    let ops = operands(i);
    let sources = if WRITES_FIRST.contains(&family(i)) {
        ops.split_once(',').map_or("", |(_, rest)| rest)
    } else {
        ops
    };
    // `IMAD.WIDE` and `IMAD.HI` add a register pair.
    let wide_addend = i.opcode.starts_with("IMAD.WIDE") || i.opcode.starts_with("IMAD.HI");
    let data = data_width(i);
    sources
        .split(',')
        .enumerate()
        .flat_map(|(j, operand)| {
            let width = if operand.contains('[') {
                1
            } else if wide_addend {
                if j == 2 {
                    2
                } else {
                    1
                }
            } else {
                data
            };
            register_operands(operand, width)
        })
        .collect()
}

/// Does `i` (maybe) read register `r`?
fn reads(i: &SassInst, r: u32) -> bool {
    if matches!(family(i), "CALL" | "RET" | "BRX" | "JMX") {
        return true;
    }
    source_registers(i)
        .iter()
        .any(|&(base, width)| (base..base + width).contains(&r))
}

/// Does `i` certainly write register `r` (the whole of it, on every path)?
fn rewrites(i: &SassInst, r: u32) -> bool {
    if i.predicated || !WRITES_FIRST.contains(&family(i)) {
        return false;
    }
    let first = operands(i).split(',').next().unwrap_or("").trim();
    first
        .strip_prefix('R')
        .and_then(|d| d.parse::<u32>().ok())
        .is_some_and(|d| (d..d + destination_width(i)).contains(&r))
}

/// The instructions that read what `sass[at]` writes to `r`, following
/// control flow (`succs`) until `r` is written again.
fn readers(sass: &[SassInst], succs: &[Vec<usize>], at: usize, r: u32) -> Vec<usize> {
    let mut seen = vec![false; sass.len()];
    let mut work: Vec<usize> = succs[at].clone();
    let mut out = Vec::new();
    while let Some(k) = work.pop() {
        if std::mem::replace(&mut seen[k], true) {
            continue;
        }
        if reads(&sass[k], r) {
            out.push(k);
        }
        if !rewrites(&sass[k], r) {
            work.extend(succs[k].iter().copied());
        }
    }
    out
}

/// The one register `i` certainly writes, for tracking what reads it: a
/// family whose first operand is its destination, naming one register
/// (`R5`; not a predicate, a uniform register or a pair), and no carry or
/// predicate written beside it.
fn tracked_destination(i: &SassInst) -> Option<u32> {
    if !WRITES_FIRST.contains(&family(i)) || destination_width(i) != 1 {
        return None;
    }
    let ops = operands(i);
    let mut parts = ops.split(',').map(str::trim);
    let first = parts.next()?;
    if parts
        .next()
        .is_some_and(|p| p.starts_with('P') || p.starts_with("!P"))
    {
        return None;
    }
    first.strip_prefix('R')?.parse().ok()
}

/// For each instruction of `sass`: is it kperf's? Those `is_kperfs` says
/// are (by their line), and every other instruction of a [`PURE`] family
/// that serves kperf alone:
/// - its result is read, and every reader serves kperf alone;
/// - a reader kperf's line claims serves kperf alone only if it writes
///   nothing (a store) or one register whose readers all do in turn: a
///   line may be the kernel's instruction ptxas attributed to kperf, or
///   one instruction serving both, and predicates and uniform registers
///   are not followed, so a claimed compare or uniform copy serves no one;
/// - and its results reach one of kperf's stores (a counter that only
///   reads itself serves no one).
///
/// The first two are a greatest fixed point (a counter increment read by
/// the records and by itself in the next iteration counts), the last a
/// least one.
pub fn serves_kperf_alone(sass: &[SassInst], is_kperfs: impl Fn(&SassInst) -> bool) -> Vec<bool> {
    let succs = crate::sass_loops::instruction_successors(sass);
    let tagged: Vec<bool> = sass.iter().map(&is_kperfs).collect();
    let sink = |k: usize| tagged[k] && !WRITES_FIRST.contains(&family(&sass[k]));
    // Readers of each instruction whose one register is followed; None for
    // the rest.
    let readers_of: Vec<Option<Vec<usize>>> = sass
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let follow = tagged[k] || PURE.contains(&family(i));
            let r = tracked_destination(i).filter(|_| follow)?;
            Some(readers(sass, &succs, k, r))
        })
        .collect();
    let mut serves: Vec<bool> = (0..sass.len())
        .map(|k| sink(k) || readers_of[k].as_ref().is_some_and(|rs| !rs.is_empty()))
        .collect();
    loop {
        let mut changed = false;
        for (k, rs) in readers_of.iter().enumerate() {
            if let Some(rs) = rs {
                if serves[k] && rs.iter().any(|&u| !serves[u]) {
                    serves[k] = false;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut reaches: Vec<bool> = (0..sass.len()).map(|k| sink(k) && serves[k]).collect();
    loop {
        let mut changed = false;
        for (k, rs) in readers_of.iter().enumerate() {
            if let Some(rs) = rs {
                if serves[k] && !reaches[k] && rs.iter().any(|&u| reaches[u]) {
                    reaches[k] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..sass.len())
        .map(|k| tagged[k] || serves[k] && reaches[k] && PURE.contains(&family(&sass[k])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (`k` marks kperf's lines, `u` the kernel's) → which serve kperf
    /// alone.
    fn owned(text: &str) -> Vec<bool> {
        let sass = crate::cost::tests::marked_sass(text);
        serves_kperf_alone(&sass, |i| {
            i.source
                .as_ref()
                .is_some_and(|(f, _)| f == crate::llvm::line_tags::TAG_FILE)
        })
    }

    #[test]
    fn an_add_only_kperfs_slot_reads_is_kperfs() {
        // The record's slot from `counter - 7`, placed before the kernel's
        // wait and located there.
        let got = owned(
            "u IADD3 R6, R16, -0x7, RZ\nu DEPBAR.LE SB0, 0x1\nk CS2R.32 R10, SR_CLOCKLO\nk LOP3.LUT R7, R6, 0x7f, RZ, 0xc0, !PT\nk STS.64 [R7], R10\nu IADD3 R6, R20, 0x1, RZ\nu STG.E [R2.64], R6\nu EXIT",
        );
        assert_eq!(got, [true, false, true, true, true, false, false, false]);
    }

    #[test]
    fn a_counter_increment_read_by_records_and_itself_is_kperfs() {
        // Loop: slot, record, increment by 9, back branch. The kernel's own
        // induction variable feeds its compare.
        let got = owned(
            "u IADD3 R16, R16, 0x9, RZ\nk LOP3.LUT R5, R16, 0x7f, RZ, 0xc0, !PT\nk STS.64 [R5], R10\nu IADD3 R20, R20, 0x1, RZ\nu ISETP.GE.AND P0, PT, R20, R9, PT\nu @!P0 BRA 0x0\nu EXIT",
        );
        assert!(got[0], "the counter increment");
        assert!(!got[3], "the kernel's own induction variable");
    }

    #[test]
    fn a_value_the_kernel_also_reads_stays_the_kernels() {
        let got = owned(
            "u IADD3 R6, R16, 0x1, RZ\nk LOP3.LUT R7, R6, 0x7f, RZ, 0xc0, !PT\nu STG.E [R2.64], R6\nu EXIT",
        );
        assert!(!got[0]);
    }

    #[test]
    fn wide_and_unknown_readers_count_as_reading() {
        // R7 is read as the upper half of R6.64, and by a tensor-core op
        // whose accumulator block SASS does not spell.
        let got = owned("u IADD3 R7, R1, 0x1, RZ\nk LOP3.LUT R5, R4, 0x7f, RZ, 0xc0, !PT\nu STG.E.64 [R2.64], R6\nu EXIT");
        assert!(!got[0], "R7 in R6.64's pair");
        let got = owned(
            "u MOV R30, R1\nk STS [R0], R2\nu HGMMA.64x128x16.F32 R24, gdesc[UR8], R24\nu EXIT",
        );
        assert!(!got[0], "inside an accumulator block");
        // A predicated rewrite leaves the old value live.
        let got = owned("u IADD3 R6, R1, 0x1, RZ\nk LOP3.LUT R7, R6, 0x7f, RZ, 0xc0, !PT\nu @P0 IADD3 R6, R1, 0x2, RZ\nu STG.E [R2.64], R6\nu EXIT");
        assert!(!got[0]);
    }

    #[test]
    fn a_kperf_line_on_work_the_kernel_reads_claims_nothing() {
        // ptxas gave kperf's line to an address add the kernel's load
        // reads: the kernel's multiply feeding it stays the kernel's.
        let got = owned(
            "u IMAD R18, R18, R19, RZ\nk IADD3 R8, R18, R14, RZ\nu LDG.E R9, desc[UR4][R8.64]\nk STS [R8], R9\nu EXIT",
        );
        assert!(!got[0]);
        // A compare kperf's line claims writes a predicate, which is not
        // followed: the kernel's loop bound stays the kernel's.
        let got = owned(
            "u VIADD R14, R0, 0xfffffd00\nk ISETP.GE.AND P1, PT, R7, R14, PT\nu @!P1 BRA 0x0\nu EXIT",
        );
        assert!(!got[0]);
    }

    #[test]
    fn a_chain_that_reaches_no_kperf_store_is_the_kernels() {
        // An increment read only by itself and a compare.
        let got = owned(
            "u IADD3 R20, R20, 0x1, RZ\nu ISETP.GE.AND P0, PT, R21, R9, PT\nu @!P0 BRA 0x0\nk STS [R2], R3\nu EXIT",
        );
        assert!(!got[0]);
    }

    #[test]
    fn matrix_stores_read_every_register_they_name() {
        let got =
            owned("u PRMT R5, R1, 0x7610, R5\nu STSM.16.M88.4 [R9], R4\nk STS [R2], R5\nu EXIT");
        assert!(!got[0]);
    }

    #[test]
    fn register_operands_are_found_in_every_spelling() {
        assert_eq!(
            register_operands(
                " R4, -R5.reuse, |R6|, desc[UR8][R8.64+0x10], RZ, SR_TID.X, PR, UR5",
                1
            ),
            [(4, 1), (5, 1), (6, 1), (8, 2)]
        );
    }
}
