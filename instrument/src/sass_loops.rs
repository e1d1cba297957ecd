//! Loops in SASS, found on the control-flow graph: natural loops of the
//! back edges (an edge whose target dominates its source).
//!
//! Address ranges of backward branches are not enough: ptxas lays retry
//! blocks (an mbarrier wait that failed, a shuffle in a diverged warp) out
//! of line after the last EXIT and branches back into the kernel, so the
//! range from such a branch's target to the branch covers everything in
//! between (finalize included) without any of it being in a loop.

use crate::cost::SassInst;
use std::collections::{BTreeSet, HashMap};

/// One natural loop: its header's address and the instructions of its body
/// (indices into the function's SASS), every back edge to the header merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassLoop {
    pub header: u64,
    pub body: BTreeSet<usize>,
}

struct Cfg {
    /// Instruction index ranges, one per basic block.
    blocks: Vec<std::ops::Range<usize>>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

/// Opcodes (before the first `.`) that end a basic block.
const BLOCK_ENDERS: &[&str] = &["BRA", "EXIT", "RET", "BRX", "JMP", "JMX", "KILL"];

/// An instruction that ends a basic block (it may also fall through).
fn is_branch_like(i: &SassInst) -> bool {
    let base = i.opcode.split('.').next().unwrap_or(&i.opcode);
    BLOCK_ENDERS.contains(&base)
}

/// An instruction after which control does not fall through.
fn ends_flow(i: &SassInst) -> bool {
    !i.predicated && is_branch_like(i)
}

/// The instruction a branch to `target` reaches: the first one at or after
/// the address. ptxas aligns loop headers with NOPs and branches to them,
/// and `parse_sass` drops NOPs; an exact lookup lost those edges
/// (matmul_persistent's persistent loop had no back edge).
fn target_index(sass: &[SassInst], target: u64) -> Option<usize> {
    let k = sass.partition_point(|i| i.addr < target);
    (k < sass.len()).then_some(k)
}

fn build_cfg(sass: &[SassInst]) -> Cfg {
    let mut leaders = BTreeSet::new();
    if !sass.is_empty() {
        leaders.insert(0);
    }
    for (k, i) in sass.iter().enumerate() {
        if let Some(t) = i.branch_target().and_then(|t| target_index(sass, t)) {
            leaders.insert(t);
        }
        if is_branch_like(i) && k + 1 < sass.len() {
            leaders.insert(k + 1);
        }
    }
    let starts: Vec<usize> = leaders.into_iter().collect();
    let blocks: Vec<std::ops::Range<usize>> = starts
        .iter()
        .enumerate()
        .map(|(b, &s)| s..starts.get(b + 1).copied().unwrap_or(sass.len()))
        .collect();
    let block_of: HashMap<usize, usize> = starts.iter().enumerate().map(|(b, &s)| (s, b)).collect();
    let succs = blocks
        .iter()
        .enumerate()
        .map(|(b, r)| {
            let last = &sass[r.end - 1];
            let mut out = Vec::new();
            if let Some(t) = last
                .branch_target()
                .and_then(|t| target_index(sass, t))
                .and_then(|k| block_of.get(&k))
            {
                out.push(*t);
            }
            if !ends_flow(last) && b + 1 < blocks.len() {
                out.push(b + 1);
            }
            out
        })
        .collect::<Vec<Vec<usize>>>();
    let succs = indirect_targets(sass, &blocks, succs);
    let mut preds = vec![Vec::new(); blocks.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    Cfg {
        blocks,
        succs,
        preds,
    }
}

/// An indirect branch (`BRX`, `JMX`: a `switch`'s jump table) names no
/// target; the blocks it reaches are those nothing else enters. Each block
/// other than the entry without a predecessor is taken as a target of every
/// indirect branch of the function. Without this a switch's cases were
/// unreachable: a loop through them was no loop, and the region around them
/// held 21 of 40 instructions (found by an adversarial pass, 2026-11-27).
fn indirect_targets(
    sass: &[SassInst],
    blocks: &[std::ops::Range<usize>],
    mut succs: Vec<Vec<usize>>,
) -> Vec<Vec<usize>> {
    let indirect: Vec<usize> = blocks
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            let base = sass[r.end - 1].opcode.split('.').next().unwrap_or("");
            base == "BRX" || base == "JMX"
        })
        .map(|(b, _)| b)
        .collect();
    if indirect.is_empty() {
        return succs;
    }
    let mut entered = vec![false; blocks.len()];
    for (b, ss) in succs.iter().enumerate() {
        for &t in ss {
            if t != b {
                entered[t] = true;
            }
        }
    }
    // The function's closing `BRA` to itself is no case.
    let orphans: Vec<usize> = (1..blocks.len())
        .filter(|&b| !entered[b] && !sass[blocks[b].start].is_self_branch())
        .collect();
    // ptxas lays a switch's cases out after its `BRX`: an orphan belongs to
    // the nearest indirect branch before it. Given to every indirect branch,
    // a loop with two switches whose cases a third switch after the loop
    // also "reached" had a way in past its header: no loop (a CUDA switch
    // in a loop unrolled by 2, adversarial test 2026-11-27). An orphan
    // before every indirect branch is given to all of them.
    for o in orphans {
        match indirect.iter().rev().find(|&&b| b < o) {
            Some(&b) => succs[b].push(o),
            None => {
                for &b in &indirect {
                    succs[b].push(o);
                }
            }
        }
    }
    succs
}

/// Immediate dominators of the blocks reachable from block 0 (Cooper,
/// Harvey and Kennedy's iterative algorithm over reverse post-order);
/// `None` for unreachable blocks.
fn dominators(cfg: &Cfg) -> Vec<Option<usize>> {
    let n = cfg.blocks.len();
    let mut order = Vec::with_capacity(n); // post-order
    let mut seen = vec![false; n];
    if n == 0 {
        return Vec::new();
    }
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, next)) = stack.pop() {
        if let Some(&s) = cfg.succs[b].get(next) {
            stack.push((b, next + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(b);
        }
    }
    let mut rpo_index = vec![usize::MAX; n];
    for (k, &b) in order.iter().rev().enumerate() {
        rpo_index[b] = k;
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while rpo_index[a] > rpo_index[b] {
                a = idom[a].unwrap_or(0);
            }
            while rpo_index[b] > rpo_index[a] {
                b = idom[b].unwrap_or(0);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().rev().skip(1) {
            let mut new = None;
            for &p in &cfg.preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(cur) => intersect(&idom, p, cur),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// Each instruction's successors (indices into `sass`): the next one unless
/// control cannot fall through, and a direct branch's target.
pub fn instruction_successors(sass: &[SassInst]) -> Vec<Vec<usize>> {
    let cfg = build_cfg(sass);
    let mut out = vec![Vec::new(); sass.len()];
    for (b, r) in cfg.blocks.iter().enumerate() {
        for (k, succ) in out.iter_mut().enumerate().take(r.end - 1).skip(r.start) {
            succ.push(k + 1);
        }
        out[r.end - 1] = cfg.succs[b].iter().map(|&s| cfg.blocks[s].start).collect();
    }
    out
}

/// The natural loops of `sass` (one function), by header address.
pub fn natural_loops(sass: &[SassInst]) -> Vec<SassLoop> {
    let cfg = build_cfg(sass);
    let idom = dominators(&cfg);
    // header block → body blocks
    let mut bodies: std::collections::BTreeMap<usize, BTreeSet<usize>> = Default::default();
    for (u, ss) in cfg.succs.iter().enumerate() {
        if idom[u].is_none() {
            continue;
        }
        for &h in ss {
            if !dominates(&idom, h, u) {
                continue;
            }
            let body = bodies.entry(h).or_insert_with(|| BTreeSet::from([h]));
            let mut work = vec![u];
            while let Some(x) = work.pop() {
                if body.insert(x) {
                    // Unreachable blocks (dead code ptxas kept) are in no loop.
                    work.extend(cfg.preds[x].iter().copied().filter(|p| idom[*p].is_some()));
                }
            }
        }
    }
    bodies
        .into_iter()
        .map(|(h, blocks)| SassLoop {
            header: sass[cfg.blocks[h].start].addr,
            body: blocks
                .into_iter()
                .flat_map(|b| cfg.blocks[b].clone())
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `addr: text` lines as SASS instructions.
    fn sass(lines: &[(u64, &str)]) -> Vec<SassInst> {
        lines
            .iter()
            .map(|&(addr, text)| {
                let words: Vec<&str> = text.split_whitespace().collect();
                let predicated = words[0].starts_with('@');
                SassInst {
                    addr,
                    predicated,
                    opcode: words[usize::from(predicated)].to_string(),
                    text: text.to_string(),
                    source: None,
                }
            })
            .collect()
    }

    fn addrs(l: &SassLoop, s: &[SassInst]) -> Vec<u64> {
        l.body.iter().map(|&k| s[k].addr).collect()
    }

    #[test]
    fn a_branch_to_a_dropped_nop_reaches_the_next_instruction() {
        // ptxas aligns the loop header at 0x20 with a NOP, which parsing
        // drops: the back edge still closes the loop.
        let s = sass(&[
            (0x00, "S2R R0, SR_TID.X"),
            (0x30, "IADD3 R0, R0, 0x1, RZ"),
            (0x40, "ISETP.GE.AND P0, PT, R0, 0x10, PT"),
            (0x50, "@!P0 BRA 0x20"),
            (0x60, "EXIT"),
        ]);
        let loops = natural_loops(&s);
        assert_eq!(loops.len(), 1);
        assert_eq!(addrs(&loops[0], &s), [0x30, 0x40, 0x50]);
        assert_eq!(instruction_successors(&s)[3], [1, 4]);
    }

    #[test]
    fn a_retry_block_after_exit_is_a_loop_of_its_own_not_of_everything_between() {
        // 0x10..0x20: wait; on failure branch to the out-of-line retry at
        // 0x60, which spins on itself and then jumps back to 0x20.
        // Finalize (0x30, 0x40) sits between, in no loop.
        let s = sass(&[
            (0x00, "S2R R0, SR_TID.X"),
            (0x10, "@!P0 BRA 0x60"),
            (0x20, "IADD3 R1, R0, 0x1, RZ"),
            (0x30, "CS2R.32 R2, SR_CLOCKLO"),
            (0x40, "STS.64 [UR4], R2"),
            (0x50, "EXIT"),
            (0x60, "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R3], R4"),
            (0x70, "@!P0 BRA 0x60"),
            (0x80, "BRA 0x20"),
            (0x90, "BRA 0x90"),
        ]);
        let loops = natural_loops(&s);
        assert_eq!(loops.len(), 1, "{loops:?}");
        assert_eq!(loops[0].header, 0x60);
        assert_eq!(addrs(&loops[0], &s), [0x60, 0x70]);
    }

    #[test]
    fn nested_loops_and_a_rotated_loop_body() {
        let s = sass(&[
            (0x00, "MOV R0, RZ"),
            (0x10, "MOV R1, RZ"),            // outer header
            (0x20, "IADD3 R1, R1, 0x1, RZ"), // inner header
            (0x30, "ISETP.GE.AND P0, PT, R1, 0x8, PT"),
            (0x40, "@!P0 BRA 0x20"),
            (0x50, "CS2R.32 R2, SR_CLOCKLO"),
            (0x60, "@!P1 BRA 0x10"),
            (0x70, "EXIT"),
        ]);
        let loops = natural_loops(&s);
        assert_eq!(loops.len(), 2, "{loops:?}");
        assert_eq!(loops[0].header, 0x10);
        assert_eq!(addrs(&loops[0], &s), [0x10, 0x20, 0x30, 0x40, 0x50, 0x60]);
        assert_eq!(loops[1].header, 0x20);
        assert_eq!(addrs(&loops[1], &s), [0x20, 0x30, 0x40]);
    }

    /// Two switches in a loop and a third after it (a loop unrolled by 2
    /// with its remainder): each switch's cases are its own, so the
    /// third's cases give no way into the loop past its header.
    #[test]
    fn each_switch_reaches_its_own_cases() {
        let s = sass(&[
            (0x00, "ISETP.GE.AND P0, PT, R11, 0x1, PT"),
            (0x10, "@!P0 BRA 0x100"),
            (0x20, "LDC R14, c[0x2][R20]"),
            (0x30, "BRX R14 -0x40"),
            (0x40, "FADD R6, R6, R19"),
            (0x50, "BRA 0x80"),
            (0x60, "FMUL R6, R6, R19"),
            (0x70, "BRA 0x80"),
            (0x80, "BRX R12 -0x90"),
            (0x90, "FADD R6, R6, R11"),
            (0xa0, "BRA 0xd0"),
            (0xb0, "FMUL R6, R6, R11"),
            (0xc0, "BRA 0xd0"),
            (0xd0, "@P0 BRA 0x20"),
            (0xe0, "@!P1 BRA 0x140"),
            (0xf0, "BRA 0x110"),
            (0x100, "@P2 BRA 0x140"),
            (0x110, "BRX R10 -0x120"),
            (0x120, "FADD R6, R6, R9"),
            (0x130, "BRA 0x140"),
            (0x140, "EXIT"),
            (0x150, "BRA 0x150"),
        ]);
        let loops = natural_loops(&s);
        assert_eq!(loops.len(), 1, "{loops:?}");
        assert_eq!(loops[0].header, 0x20);
    }

    /// A switch in a loop: the cases are reached only through `BRX`'s jump
    /// table, and the back edge is in a case. The loop is found.
    #[test]
    fn a_loop_through_a_jump_table_is_a_loop() {
        let s = sass(&[
            (0x00, "MOV R1, c[0x0][0x28]"),
            (0x10, "ISETP.GT.AND P0, PT, R2, 0x3, PT"),
            (0x20, "BRX R8 -0x30"),
            (0x30, "IADD3 R3, R3, 0x1, RZ"),
            (0x40, "BRA 0x60"),
            (0x50, "IADD3 R3, R3, 0x2, RZ"),
            (0x60, "ISETP.NE.AND P1, PT, R3, R4, PT"),
            (0x70, "@P1 BRA 0x10"),
            (0x80, "EXIT"),
            (0x90, "BRA 0x90"),
        ]);
        let loops = natural_loops(&s);
        assert_eq!(loops.len(), 1, "{loops:?}");
        assert_eq!(loops[0].header, 0x10);
        assert_eq!(
            addrs(&loops[0], &s),
            vec![0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70]
        );
    }

    #[test]
    fn straight_line_code_and_the_closing_self_branch_have_no_loops() {
        let s = sass(&[
            (0x00, "CS2R.32 R2, SR_CLOCKLO"),
            (0x10, "@P0 EXIT"),
            (0x20, "STS.64 [UR4], R2"),
            (0x30, "EXIT"),
            (0x40, "BRA 0x40"),
        ]);
        assert_eq!(natural_loops(&s), []);
    }
}
