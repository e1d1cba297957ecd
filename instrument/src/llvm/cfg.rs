//! The control-flow graph of one function: dominators (Cooper, Harvey and
//! Kennedy's iterative algorithm over reverse post-order) and natural loops
//! (one per header, from the back edges the dominators reveal).

use super::ir::Block;
use std::collections::{BTreeSet, HashMap};

pub struct Cfg {
    /// Reachable blocks in reverse post-order; index 0 is the entry.
    pub blocks: Vec<Block>,
    pub index: HashMap<Block, usize>,
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// Immediate dominator (the entry's is itself).
    idom: Vec<usize>,
}

/// A natural loop: its header, its blocks, and its nesting depth (1 for an
/// outermost loop).
#[derive(Clone, Debug)]
pub struct Loop {
    pub header: usize,
    pub body: BTreeSet<usize>,
    /// Sources of the back edges into the header.
    pub latches: Vec<usize>,
    pub depth: u32,
}

impl Cfg {
    pub fn new(entry: Block) -> Cfg {
        // Post-order by an explicit DFS stack.
        let mut seen: HashMap<Block, ()> = HashMap::new();
        let mut post: Vec<Block> = Vec::new();
        let mut stack: Vec<(Block, Vec<Block>)> = vec![(entry, entry.successors())];
        seen.insert(entry, ());
        while let Some((b, rest)) = stack.last_mut() {
            if let Some(s) = rest.pop() {
                if seen.insert(s, ()).is_none() {
                    let ss = s.successors();
                    stack.push((s, ss));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        let blocks = post;
        let index: HashMap<Block, usize> =
            blocks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|b| {
                b.successors()
                    .iter()
                    .filter_map(|s| index.get(s).copied())
                    .collect()
            })
            .collect();
        let mut preds = vec![Vec::new(); blocks.len()];
        for (i, ss) in succs.iter().enumerate() {
            for s in ss {
                if !preds[*s].contains(&i) {
                    preds[*s].push(i);
                }
            }
        }
        let idom = dominators(&preds);
        Cfg {
            blocks,
            index,
            succs,
            preds,
            idom,
        }
    }

    /// Does block `a` dominate block `b`?
    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = self.idom[b];
        }
    }

    /// Is block `b` on a cycle (a path from `b` back to itself)? Unlike
    /// [`Cfg::loops`], this sees irreducible cycles too.
    pub fn on_cycle(&self, b: usize) -> bool {
        on_cycle(&self.succs, b)
    }

    /// The immediate dominator of `b` (the entry's is itself).
    pub fn idom(&self, b: usize) -> usize {
        self.idom[b]
    }

    /// Edges into `l`'s header from outside the loop (`u → header`).
    pub fn entering_edges(&self, l: &Loop) -> Vec<(usize, usize)> {
        self.preds[l.header]
            .iter()
            .filter(|p| !l.body.contains(p))
            .map(|&p| (p, l.header))
            .collect()
    }

    /// Edges that leave `l` (`u` in the loop, `v` outside).
    pub fn exit_edges(&self, l: &Loop) -> Vec<(usize, usize)> {
        l.body
            .iter()
            .flat_map(|&u| self.succs[u].iter().map(move |&v| (u, v)))
            .filter(|(_, v)| !l.body.contains(v))
            .collect()
    }

    /// Natural loops, outer before inner (by depth, then header order).
    pub fn loops(&self) -> Vec<Loop> {
        let mut by_header: HashMap<usize, Loop> = HashMap::new();
        for (t, ss) in self.succs.iter().enumerate() {
            for &h in ss {
                if !self.dominates(h, t) {
                    continue;
                }
                let l = by_header.entry(h).or_insert_with(|| Loop {
                    header: h,
                    body: BTreeSet::from([h]),
                    latches: Vec::new(),
                    depth: 0,
                });
                l.latches.push(t);
                // Everything that reaches t without passing through h.
                let mut work = vec![t];
                while let Some(x) = work.pop() {
                    if l.body.insert(x) {
                        work.extend(self.preds[x].iter().copied());
                    }
                }
            }
        }
        let mut loops: Vec<Loop> = by_header.into_values().collect();
        let snapshot: Vec<(usize, BTreeSet<usize>)> =
            loops.iter().map(|l| (l.header, l.body.clone())).collect();
        for l in &mut loops {
            l.depth = snapshot
                .iter()
                .filter(|(_, body)| body.contains(&l.header) && body.is_superset(&l.body))
                .count() as u32;
        }
        loops.sort_by_key(|l| (l.depth, l.header));
        loops
    }
}

/// Immediate dominators over blocks numbered in reverse post-order.
fn dominators(preds: &[Vec<usize>]) -> Vec<usize> {
    let n = preds.len();
    let undef = usize::MAX;
    let mut idom = vec![undef; n];
    if n == 0 {
        return idom;
    }
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut new = undef;
            for &p in &preds[b] {
                if idom[p] == undef {
                    continue;
                }
                new = if new == undef {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if new != undef && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

fn on_cycle(succs: &[Vec<usize>], b: usize) -> bool {
    let mut seen = vec![false; succs.len()];
    let mut work = succs[b].clone();
    while let Some(x) = work.pop() {
        if x == b {
            return true;
        }
        if !std::mem::replace(&mut seen[x], true) {
            work.extend(succs[x].iter().copied());
        }
    }
    false
}

fn intersect(idom: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a];
        }
        while b > a {
            b = idom[b];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_and_loop_dominators() {
        // 0 → 1 → {2, 3} → 4 → 1 (back edge), 4 → 5
        let preds = vec![vec![], vec![0, 4], vec![1], vec![1], vec![2, 3], vec![4]];
        let idom = dominators(&preds);
        assert_eq!(idom, vec![0, 0, 1, 1, 1, 4]);
    }

    #[test]
    fn cycles_natural_irreducible_and_none() {
        // 0 → {1, 2}, 1 ⇄ 2 (irreducible: no block dominates the other),
        // 2 → 3 → 3 (self loop), 3 → 4.
        let succs = vec![vec![1, 2], vec![2], vec![1, 3], vec![3, 4], vec![]];
        let on: Vec<bool> = (0..succs.len()).map(|b| on_cycle(&succs, b)).collect();
        assert_eq!(on, vec![false, true, true, true, false]);
    }
}
