//! Where records go in an LLVM IR kernel: region markers (calls to
//! `kperf_region_start/end`, inline-asm comments `// kperf:start name`) and
//! the automatic modes (kernel, natural loops and their iterations,
//! `calls=<glob>`, `asm=<regex>`, async issue/wait pairs).
//!
//! Every site is "a record right before instruction X". Edges of the CFG
//! are reached without changing the CFG where possible: the module is first
//! put in loop-simplify form (preheaders, dedicated exits: what the back
//! end's own loop passes do anyway), then an edge u→v takes its record
//! before u's terminator (u has one successor), at v's top (v has one
//! predecessor, or all of v's predecessors carry the same record), or, for
//! a loop's latch, before the latch's branch. Only the critical edges left
//! are split, one by one: `break-crit-edges` on the whole function splits
//! loop back edges, and ptxas then compiles another kernel.

use super::cfg::{Cfg, Loop};
use super::ir::{constant_string, Address, Block, Inst};
use crate::error::{InstrumentError, Result};
use crate::options::RegionMode;
use globset::Glob;
use kperf_dialects::meta::RegionKind;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::OnceLock;

/// The marker functions a front end declares (CUDA: `extern "C" __device__`).
pub const MARKER_START: &str = "kperf_region_start";
pub const MARKER_END: &str = "kperf_region_end";

/// One record to insert.
#[derive(Clone, Debug)]
pub struct Site {
    /// The record goes right before this instruction.
    pub before: Inst,
    pub name: String,
    pub is_start: bool,
    pub kind: RegionKind,
    pub location: String,
    /// Nesting depth: at one anchor, ENDs go innermost first and STARTs
    /// outermost first, so regions nest.
    pub depth: u32,
    /// For an async wait region: its issue region.
    pub pairs_with: Option<String>,
}

/// A marker call to delete once its record is in place.
pub struct Marker {
    pub call: Inst,
}

/// What a kernel gets: its sites (in no particular order) and its markers.
pub struct Found {
    pub sites: Vec<Site>,
    pub markers: Vec<Marker>,
    /// Critical edges a record needs (`u → v`, CFG indices): the caller
    /// splits them and collects again; the sites are then incomplete.
    pub unplaced: Vec<(usize, usize)>,
}

pub(crate) fn marker_asm() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"//\s*kperf:(start|end)\s+([^\s;]+)").expect("valid regex"))
}

/// Async issue and wait patterns, over inline-asm text and callee names.
fn async_issue() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(concat!(
            r"cp\.async\.bulk\.tensor\.\dd\.shared|cp\.async\.bulk\.shared|",
            r"cp\.async\.c[ag]\.shared|wgmma\.mma_async|",
            r"llvm\.nvvm\.cp\.async\.bulk\.tensor\.g2s|llvm\.nvvm\.cp\.async\.bulk\.global\.to\.shared|",
            r"llvm\.nvvm\.cp\.async\.c[ag]\.shared|llvm\.nvvm\.wgmma\.mma\.async"
        ))
        .expect("valid regex")
    })
}

fn async_wait() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(concat!(
            r"mbarrier\.try_wait|mbarrier\.test_wait|cp\.async\.wait_group|cp\.async\.wait_all|",
            r"cp\.async\.bulk\.wait_group|wgmma\.wait_group|",
            r"llvm\.nvvm\.mbarrier\.try\.wait|llvm\.nvvm\.mbarrier\.test\.wait|",
            r"llvm\.nvvm\.cp\.async\.wait\.(group|all)|llvm\.nvvm\.cp\.async\.bulk\.wait\.group|",
            r"llvm\.nvvm\.wgmma\.wait\.group"
        ))
        .expect("valid regex")
    })
}

/// Which issues a wait can retire: `cp.async` groups, bulk/TMA copies
/// (mbarrier waits, bulk wait_group), warpgroup MMAs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AsyncFamily {
    CpAsync,
    Bulk,
    Wgmma,
}

/// The family of a text [`async_issue`] matched.
fn issue_family(text: &str) -> AsyncFamily {
    if text.contains("wgmma") {
        AsyncFamily::Wgmma
    } else if text.contains("cp.async.bulk") {
        AsyncFamily::Bulk
    } else {
        AsyncFamily::CpAsync
    }
}

/// The family of a text [`async_wait`] matched.
fn wait_family(text: &str) -> AsyncFamily {
    if text.contains("wgmma") {
        AsyncFamily::Wgmma
    } else if text.contains("mbarrier") || text.contains("cp.async.bulk") {
        AsyncFamily::Bulk
    } else {
        AsyncFamily::CpAsync
    }
}

/// The mbarrier a TMA copy completes on, or an mbarrier wait waits on:
/// the last `[$N]` operand of a bulk copy's asm and the first of a
/// try_wait/test_wait's, or the intrinsic's barrier argument. `None` when
/// the instruction names no mbarrier kperf can read.
fn mbarrier_of(i: Inst, text: &str) -> Option<Address> {
    static OPERAND: OnceLock<Regex> = OnceLock::new();
    let is_wait = text.contains("mbarrier.try_wait")
        || text.contains("mbarrier.test_wait")
        || text.starts_with("llvm.nvvm.mbarrier.try.wait")
        || text.starts_with("llvm.nvvm.mbarrier.test.wait");
    let is_issue = text.contains("mbarrier::complete_tx")
        || text.starts_with("llvm.nvvm.cp.async.bulk.tensor.g2s")
        || text.starts_with("llvm.nvvm.cp.async.bulk.global.to.shared");
    if !is_wait && !is_issue {
        return None;
    }
    let arg = match i.inline_asm_constraints() {
        Some(constraints) => {
            let re = OPERAND.get_or_init(|| Regex::new(r"\[\s*\$(\d+)").expect("valid regex"));
            let mut numbers = re
                .captures_iter(text)
                .filter_map(|c| c[1].parse::<usize>().ok());
            let n = if is_wait {
                numbers.next()
            } else {
                numbers.last()
            }?;
            // `$N` counts the asm's outputs first, the call's arguments after.
            let outputs = constraints
                .split(',')
                .filter(|c| c.trim_start().starts_with('='))
                .count();
            n.checked_sub(outputs)?
        }
        None if is_wait => 0,
        None => 1,
    };
    Some(Address::of(i.operand(u32::try_from(arg).ok()?)?))
}

/// What an instruction does, as the async mode sees it: the text to match
/// (asm string or callee name).
fn call_text(i: Inst) -> Option<String> {
    i.inline_asm().or_else(|| i.callee_name())
}

/// The token of `text` around the match of `re`: `wgmma` in
/// `wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {...}` names the
/// whole mnemonic.
fn matched_token(text: &str, m: regex::Match) -> String {
    let is_tok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':');
    let start = text[..m.start()]
        .rfind(|c: char| !is_tok(c))
        .map_or(0, |p| p + 1);
    let end = text[m.end()..]
        .find(|c: char| !is_tok(c))
        .map_or(text.len(), |p| m.end() + p);
    text[start..end].trim_matches(['.', ':']).to_string()
}

pub struct Collector<'a> {
    pub cfg: &'a Cfg,
    pub function: String,
    pub file: String,
    counts: HashMap<String, usize>,
    sites: Vec<Site>,
    markers: Vec<Marker>,
    unplaced: Vec<(usize, usize)>,
}

impl<'a> Collector<'a> {
    pub fn new(cfg: &'a Cfg, function: &str, file: &str) -> Self {
        Collector {
            cfg,
            function: function.to_string(),
            file: file.to_string(),
            counts: HashMap::new(),
            sites: Vec::new(),
            markers: Vec::new(),
            unplaced: Vec::new(),
        }
    }

    pub fn finish(self) -> Found {
        Found {
            sites: self.sites,
            markers: self.markers,
            unplaced: self.unplaced,
        }
    }

    /// `file:line:col` of an instruction: its debug location, or the
    /// function and block in the input file.
    pub fn location(&self, i: Inst) -> String {
        match (i.debug_file(), i.line_col()) {
            (Some(f), Some((l, c))) => format!("{f}:{l}:{c}"),
            (None, Some((l, c))) => format!("{}:{l}:{c}", self.file),
            _ => self.block_location(i.block()),
        }
    }

    fn block_location(&self, b: Block) -> String {
        let name = b.name();
        let label = if name.is_empty() {
            format!("block {}", self.cfg.index.get(&b).copied().unwrap_or(0))
        } else {
            format!("%{name}")
        };
        format!("{}: @{} {label}", self.file, self.function)
    }

    /// Short `line:col` for automatic region names (the file is the same
    /// for the whole kernel).
    fn short_location(&self, b: Block) -> String {
        for i in b.instructions() {
            if let Some((l, c)) = i.line_col() {
                return format!("{l}:{c}");
            }
        }
        let name = b.name();
        if name.is_empty() {
            format!("bb{}", self.cfg.index.get(&b).copied().unwrap_or(0))
        } else {
            name
        }
    }

    fn site_name(&mut self, base: &str) -> String {
        let n = self.counts.entry(base.to_string()).or_default();
        *n += 1;
        if *n == 1 {
            base.to_string()
        } else {
            format!("{base}#{}", *n - 1)
        }
    }

    fn push(&mut self, before: Inst, name: &str, is_start: bool, kind: RegionKind, depth: u32) {
        let location = self.location(before);
        self.sites.push(Site {
            before,
            name: name.to_string(),
            is_start,
            kind,
            location,
            depth,
            pairs_with: None,
        });
    }

    /// Where code on edge u→v goes (see the module comment): before u's
    /// terminator when u has one successor, at v's top when v has one
    /// predecessor. A critical edge has no such place: it is noted in
    /// `unplaced` for the caller to split, and collection runs again.
    fn edge_anchor(&mut self, u: usize, v: usize) -> Option<Inst> {
        let cfg = self.cfg;
        let at = if cfg.succs[u].len() == 1 {
            cfg.blocks[u].terminator()
        } else if cfg.preds[v].len() == 1 {
            cfg.blocks[v].first_insertion_point()
        } else {
            None
        };
        if at.is_none() && !self.unplaced.contains(&(u, v)) {
            self.unplaced.push((u, v));
        }
        at
    }

    /// Places for one record on each of `edges`: a target block entered
    /// only through these edges takes the record once at its top (a loop's
    /// dedicated exit after loop-simplify); other edges go one by one.
    fn edges_anchors(&mut self, edges: &[(usize, usize)]) -> Vec<Inst> {
        let mut by_target: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &(u, v) in edges {
            let us = by_target.entry(v).or_default();
            if !us.contains(&u) {
                us.push(u);
            }
        }
        let mut out = Vec::new();
        for (v, us) in by_target {
            let only_these = self.cfg.preds[v].iter().all(|p| us.contains(p));
            let top = self.cfg.blocks[v].first_insertion_point();
            match top.filter(|_| only_these && us.len() > 1) {
                Some(t) => out.push(t),
                None => out.extend(us.iter().filter_map(|&u| self.edge_anchor(u, v))),
            }
        }
        out
    }

    /// Markers: calls to the marker functions and inline-asm comments.
    /// Repeats of the same marker in one block (Triton emits one inline asm
    /// per tensor element) count once.
    pub fn markers(&mut self) -> Result<()> {
        for b in self.cfg.blocks.clone() {
            let mut last: HashMap<String, bool> = HashMap::new();
            for i in b.instructions() {
                let Some((name, is_start)) = self.marker_of(i)? else {
                    continue;
                };
                self.markers.push(Marker { call: i });
                if last.get(&name) == Some(&is_start) {
                    continue;
                }
                last.insert(name.clone(), is_start);
                self.push(i, &name, is_start, RegionKind::Explicit, 1000);
            }
        }
        Ok(())
    }

    fn marker_of(&self, i: Inst) -> Result<Option<(String, bool)>> {
        if let Some(asm) = i.inline_asm() {
            return Ok(marker_asm()
                .captures(&asm)
                .map(|c| (c[2].to_string(), &c[1] == "start")));
        }
        let Some(callee) = i.callee_name() else {
            return Ok(None);
        };
        let is_start = match callee.as_str() {
            MARKER_START => true,
            MARKER_END => false,
            _ => return Ok(None),
        };
        let name = i
            .operand(0)
            .and_then(constant_string)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| InstrumentError::At {
                location: self.location(i),
                message: format!("{callee} needs a constant, non-empty string naming the region"),
            })?;
        Ok(Some((name, is_start)))
    }

    /// `kernel`: the whole body, START at the entry, END before every return.
    pub fn kernel(&mut self) {
        let entry = self.cfg.blocks[0];
        let Some(first) = entry.first_insertion_point() else {
            return;
        };
        self.push(first, "kernel", true, RegionKind::Kernel, 0);
        for b in self.cfg.blocks.clone() {
            if let Some(t) = b.terminator().filter(|t| t.is_return()) {
                self.push(t, "kernel", false, RegionKind::Kernel, 0);
            }
        }
    }

    /// `loops` and `iterations`: a loop region from each entering edge to
    /// each exit edge; an iteration region from the header's top to each
    /// back edge and each exit edge.
    ///
    /// The CFG is left as the front end made it wherever it can be: a latch
    /// whose every successor leaves the iteration (the header, or outside
    /// the loop) ends the iteration right before its terminator, so its
    /// conditional branch stays one block (`@p bra header`); a dedicated
    /// exit takes the loop's END once at its top. Only edges no
    /// instruction stands for are split (see [`Collector::edge_anchor`]).
    pub fn loops(&mut self, loops: &[Loop], whole: bool, iterations: bool) -> Result<()> {
        for l in loops {
            let header = self.cfg.blocks[l.header];
            let entering = self.cfg.entering_edges(l);
            let exits = self.cfg.exit_edges(l);
            // Where the loop is: the branch that enters it (the `for`
            // statement's, in clang's and Triton's line tables), else the
            // header's first located instruction. Names and locations of
            // both regions say the same place (the name said the header's
            // first line, `loop@30:14`, where the location said the `for`
            // at 29:5).
            let place = entering
                .iter()
                .filter_map(|(u, _)| self.cfg.blocks[*u].terminator())
                .find(|t| t.line_col().is_some())
                .or_else(|| {
                    header
                        .instructions()
                        .into_iter()
                        .find(|i| i.line_col().is_some())
                });
            let at = match place.and_then(|i| i.line_col()) {
                Some((line, col)) => format!("{line}:{col}"),
                None => self.short_location(header),
            };
            let place_location = place.map(|i| self.location(i));
            let first_site = self.sites.len();
            let loop_name = self.site_name(&format!("loop@{at}"));
            let iter_name = self.site_name(&format!("iter@{at}"));
            let (ld, id) = (2 * l.depth, 2 * l.depth + 1);
            if whole {
                for a in self.edges_anchors(&entering) {
                    self.push(a, &loop_name, true, RegionKind::Loop, ld);
                }
                for a in self.edges_anchors(&exits) {
                    self.push(a, &loop_name, false, RegionKind::Loop, ld);
                }
            }
            if iterations {
                // A loop not rotated by LLVM (a `for` whose header only tests
                // the condition, the latch jumping back unconditionally) runs
                // its header once more than its body: an iteration then
                // starts on the header's edges into the body, and the
                // header's own exit ends nothing. Otherwise an iteration is
                // one pass from the header's top, including a rotated loop
                // whose header also leaves early (a search that returns on a
                // hit, its load and compare in the header): taking it for
                // test-first lost every pass that left through the header,
                // and the header's work. A header that only tests (phis, a
                // compare, the branch) is test-first even when a latch
                // leaves too (`while (i < n) { ...; if (hit) break; }`).
                use inkwell::llvm_sys::LLVMOpcode::*;
                // Work: memory or calls, or a value that lives on (used
                // outside the header, or carried to the next iteration by a
                // phi): `s += x * k; if (s > 100) return;` in the header is
                // the body, though it touches no memory (23 passes that
                // left by the return were in no iteration).
                let header_works = header.instructions().iter().any(|i| {
                    matches!(
                        i.opcode(),
                        LLVMLoad | LLVMStore | LLVMCall | LLVMAtomicRMW | LLVMAtomicCmpXchg
                    ) || (i.opcode() != LLVMPHI
                        && !i.is_terminator()
                        && i.users()
                            .iter()
                            .any(|u| u.block() != header || u.opcode() == LLVMPHI))
                });
                let latch_exits = exits.iter().any(|(u, _)| l.latches.contains(u));
                let test_first = exits.iter().any(|(u, _)| *u == l.header)
                    && !l.latches.contains(&l.header)
                    && !(latch_exits && header_works);
                if test_first {
                    let into_body: Vec<(usize, usize)> = self.cfg.succs[l.header]
                        .iter()
                        .filter(|v| l.body.contains(v))
                        .map(|&v| (l.header, v))
                        .collect();
                    for a in self.edges_anchors(&into_body) {
                        self.push(a, &iter_name, true, RegionKind::Iteration, id);
                    }
                } else {
                    let top =
                        header
                            .first_insertion_point()
                            .ok_or_else(|| InstrumentError::At {
                                location: self.block_location(header),
                                message: "loop header without instructions".into(),
                            })?;
                    self.push(top, &iter_name, true, RegionKind::Iteration, id);
                }
                let mut ends: Vec<(usize, usize)> = Vec::new();
                let mut closed_latches: Vec<usize> = Vec::new();
                for &t in &l.latches {
                    let leaves = self.cfg.succs[t]
                        .iter()
                        .all(|s| *s == l.header || !l.body.contains(s));
                    match self.cfg.blocks[t].terminator().filter(|_| leaves) {
                        Some(term) => {
                            self.push(term, &iter_name, false, RegionKind::Iteration, id);
                            closed_latches.push(t);
                        }
                        None => ends.push((t, l.header)),
                    }
                }
                ends.extend(exits.iter().copied().filter(|(u, _)| {
                    !closed_latches.contains(u) && (!test_first || *u != l.header)
                }));
                for a in self.edges_anchors(&ends) {
                    self.push(a, &iter_name, false, RegionKind::Iteration, id);
                }
            }
            if let Some(loc) = place_location {
                for site in &mut self.sites[first_site..] {
                    site.location = loc.clone();
                }
            }
        }
        Ok(())
    }

    /// `probe=<n>`: n nested empty regions at the entry, all STARTs before
    /// the entry's first instruction, all ENDs before its second.
    pub fn probes(&mut self, n: u32) {
        let entry = self.cfg.blocks[0];
        let insts = entry.instructions();
        let Some(&first) = insts
            .iter()
            .find(|i| i.opcode() != inkwell::llvm_sys::LLVMOpcode::LLVMPHI)
        else {
            return;
        };
        // An entry block of a lone terminator (`br label %loop`) has no
        // second anchor: both records of each probe go before it, STARTs
        // first, still empty regions (a kernel whose work is all in loops
        // would otherwise get no probe, and a cost per record of 0).
        let (start_at, end_at) = (first, first.next().unwrap_or(first));
        for i in 0..n {
            self.push(
                start_at,
                &format!("probe#{i}"),
                true,
                RegionKind::Explicit,
                2000 + i,
            );
        }
        for i in 0..n {
            self.push(
                end_at,
                &format!("probe#{i}"),
                false,
                RegionKind::Explicit,
                2000 + i,
            );
        }
    }

    /// `calls=<glob>`: bracket each direct call whose callee matches.
    pub fn calls(&mut self, glob: &str) -> Result<()> {
        let m = Glob::new(glob)
            .map_err(|e| InstrumentError::Option(format!("bad calls glob `{glob}`: {e}")))?
            .compile_matcher();
        // LLVM's intrinsics are single instructions, not calls (a special
        // register read, a fabs): `calls=*` bracketed each `tid.x` read.
        // A glob that names them (`llvm.nvvm.*`) still can.
        // A glob that spells part of a name (`*sqrt*`, `llvm.nvvm.*`)
        // matches intrinsics too; `*` alone means the kernel's calls.
        let intrinsics_too = glob.chars().any(|c| !matches!(c, '*' | '?'));
        for b in self.cfg.blocks.clone() {
            for i in b.instructions() {
                let Some(callee) = i.callee_name() else {
                    continue;
                };
                if callee == MARKER_START
                    || callee == MARKER_END
                    || (callee.starts_with("llvm.") && !intrinsics_too)
                    || !m.is_match(&callee)
                {
                    continue;
                }
                let name = self.site_name(&format!("call:{callee}"));
                self.bracket(i, &name);
            }
        }
        Ok(())
    }

    /// `asm=<regex>`: bracket each inline asm whose text matches.
    pub fn asm(&mut self, pattern: &str) -> Result<()> {
        let re = Regex::new(pattern)
            .map_err(|e| InstrumentError::Option(format!("bad asm regex `{pattern}`: {e}")))?;
        for b in self.cfg.blocks.clone() {
            for i in b.instructions() {
                let Some(asm) = i.inline_asm() else {
                    continue;
                };
                if marker_asm().is_match(&asm) {
                    continue;
                }
                let Some(m) = re.find(&asm) else {
                    continue;
                };
                let token = matched_token(&asm, m);
                let name = self.site_name(&format!("asm:{token}"));
                self.bracket(i, &name);
            }
        }
        Ok(())
    }

    /// START before `i`, END right after it.
    fn bracket(&mut self, i: Inst, name: &str) {
        self.push(i, name, true, RegionKind::Op, 1001);
        if let Some(n) = i.next() {
            self.push(n, name, false, RegionKind::Op, 1001);
        }
    }

    /// `async`: START(issue) before an async issue, END(issue) before the
    /// first wait that follows it, START(wait) right after that wait (after
    /// the whole spin loop when the wait sits in one). Replay measures the
    /// wait as CLK(START wait) − CLK(END issue).
    pub fn async_pairs(&mut self, loops: &[Loop]) -> Result<()> {
        let mut paired: HashSet<Inst> = HashSet::new();
        for b in self.cfg.blocks.clone() {
            for i in b.instructions() {
                let Some(text) = call_text(i) else { continue };
                let Some(m) = async_issue().find(&text) else {
                    continue;
                };
                let Some(wait) = self.following_wait(i, loops) else {
                    continue;
                };
                paired.insert(i);
                let token = matched_token(&text, m);
                let base = self.site_name(&format!("async:{token}"));
                let start = self.issue_start(i, &wait, loops);
                self.push(start, &base, true, RegionKind::AsyncIssue, 1002);
                self.wait_records(wait, &base, loops);
            }
        }
        self.pipelined_pairs(loops, &paired);
        Ok(())
    }

    /// Where START(issue) goes: before the issue when its block dominates
    /// the wait, else before the branch of the nearest block that dominates
    /// both (an elected thread issues under `if (tid == 0)` and every thread
    /// waits after the join), outside any loop the issue is not in. Every
    /// path to END(issue) then passes START, so every warp writes all three
    /// records, as the MLIR path does for an issue under `scf.if`.
    fn issue_start(&self, issue: Inst, wait: &Wait, loops: &[Loop]) -> Inst {
        let cfg = self.cfg;
        let home = cfg.index[&issue.block()];
        let wait_block = match wait {
            Wait::At(w) => cfg.index[&w.block()],
            Wait::Loop(l) => loops[*l].header,
        };
        self.hoisted_start(issue, |d| {
            cfg.dominates(d, wait_block)
                && !loops
                    .iter()
                    .any(|l| l.body.contains(&d) && !l.body.contains(&home))
        })
    }

    /// Where a START(issue) goes so that it runs whether or not the branch
    /// around the issue is taken: before the issue when its own block
    /// satisfies `runs_always`, else before the branch of its nearest
    /// dominator that does.
    fn hoisted_start(&self, issue: Inst, runs_always: impl Fn(usize) -> bool) -> Inst {
        let cfg = self.cfg;
        let home = cfg.index[&issue.block()];
        let mut d = home;
        while !runs_always(d) && d != 0 {
            d = cfg.idom(d);
        }
        if d == home {
            issue
        } else {
            cfg.blocks[d].terminator().unwrap_or(issue)
        }
    }

    /// END(issue) before the wait (or on the edges into its spin loop) and
    /// START(wait) right after it (or on the spin loop's exits).
    fn wait_records(&mut self, wait: Wait, base: &str, loops: &[Loop]) {
        let wait_name = format!("wait:{}", base.trim_start_matches("async:"));
        let (ends, after) = match wait {
            Wait::At(w) => (vec![w], w.next().into_iter().collect::<Vec<_>>()),
            Wait::Loop(l) => {
                let (entering, exits) = (
                    self.cfg.entering_edges(&loops[l]),
                    self.cfg.exit_edges(&loops[l]),
                );
                (self.edges_anchors(&entering), self.edges_anchors(&exits))
            }
        };
        for e in ends {
            self.push(e, base, false, RegionKind::AsyncIssue, 1002);
        }
        for a in after {
            let location = self.location(a);
            self.sites.push(Site {
                before: a,
                name: wait_name.clone(),
                is_start: true,
                kind: RegionKind::AsyncWait,
                location,
                depth: 1002,
                pairs_with: Some(base.to_string()),
            });
        }
    }

    /// Software pipelines: a loop whose body first waits (`cp.async.wait_group
    /// N`, `mbarrier.try_wait`, `wgmma.wait_group`) and then issues the next
    /// stage, after a prologue that issued the first stages, as Triton
    /// pipelines `cp.async` and TMA loads. The wait of iteration i retires
    /// the issue of an earlier iteration (or the prologue), so no wait
    /// follows an issue in its own iteration and [`Self::async_pairs`]
    /// finds none.
    ///
    /// One region per stage, the paper's two-START pattern: START(issue)
    /// before each prologue stage and before the loop's first issue of the
    /// family, END(issue) before the loop's wait and START(wait) after it.
    /// Replay pairs the k-th START(wait) of a unit with its k-th
    /// START(issue), first in first out, which is the stage the wait
    /// retires when each wait retires one stage. A prologue stage is as
    /// many issues as one loop iteration makes; a prologue that is not a
    /// whole number of stages, or none at all (the first END would then
    /// not be dominated by a START), leaves the loop unpaired.
    fn pipelined_pairs(&mut self, loops: &[Loop], paired: &HashSet<Inst>) {
        let cfg = self.cfg;
        // Per block, the innermost loop holding it.
        let innermost: Vec<Option<usize>> = (0..cfg.blocks.len())
            .map(|b| {
                loops
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.body.contains(&b))
                    .max_by_key(|(_, l)| l.depth)
                    .map(|(k, _)| k)
            })
            .collect();
        // Loops in program order, and issues taken by one loop's pipeline
        // (its prologue) are no other loop's.
        let mut order: Vec<usize> = (0..loops.len()).collect();
        order.sort_by_key(|&k| loops[k].header);
        let mut claimed: HashSet<Inst> = paired.clone();
        for k in order {
            let l = &loops[k];
            // The loop's own instructions in reverse post-order (a
            // topological order of one iteration): a family's first wait
            // must come before its first issue, and the issue's block must
            // be dominated by the wait's, so every iteration that issues
            // has waited first.
            // A spin loop directly inside (one that issues nothing, around
            // `mbarrier.try_wait`) counts as the loop's own.
            let is_own = |b: usize| match innermost[b] {
                Some(j) if j == k => true,
                Some(j) => {
                    loops[j].depth == l.depth + 1
                        && loops[j].body.is_subset(&l.body)
                        && !issues_in(cfg, &loops[j])
                }
                None => false,
            };
            let own: Vec<Inst> = (0..cfg.blocks.len())
                .filter(|&b| is_own(b))
                .flat_map(|b| cfg.blocks[b].instructions())
                .collect();
            for family in [AsyncFamily::CpAsync, AsyncFamily::Bulk, AsyncFamily::Wgmma] {
                let is_issue = |i: &Inst| {
                    !claimed.contains(i)
                        && call_text(*i).is_some_and(|t| {
                            async_issue().is_match(&t) && issue_family(&t) == family
                        })
                };
                let Some(wait_at) = own.iter().position(|i| {
                    call_text(*i)
                        .is_some_and(|t| async_wait().is_match(&t) && wait_family(&t) == family)
                }) else {
                    continue;
                };
                let wait = own[wait_at];
                if own[..wait_at].iter().any(is_issue) {
                    continue;
                }
                let wait_block = cfg.index[&wait.block()];
                let Some(first_issue) = own[wait_at..]
                    .iter()
                    .copied()
                    .find(|i| is_issue(i) && cfg.dominates(wait_block, cfg.index[&i.block()]))
                else {
                    continue;
                };
                // Issues of this iteration: the family's unpaired issues in
                // blocks whose innermost loop is this one.
                let per_iteration = own.iter().filter(|i| is_issue(i)).count();
                // The prologue: the family's unpaired issues outside any
                // loop, in blocks on the way to the header (under a branch
                // too: an elected thread issues), in program order.
                let before_header = blocks_reaching(cfg, l);
                let prologue: Vec<Inst> = (0..cfg.blocks.len())
                    .filter(|&b| innermost[b].is_none() && before_header.contains(&b))
                    .flat_map(|b| cfg.blocks[b].instructions())
                    .filter(is_issue)
                    .collect();
                if prologue.is_empty()
                    || per_iteration == 0
                    || !prologue.len().is_multiple_of(per_iteration)
                {
                    continue;
                }
                let text = call_text(first_issue).unwrap_or_default();
                let Some(m) = async_issue().find(&text) else {
                    continue;
                };
                let base = self.site_name(&format!("async:{}", matched_token(&text, m)));
                let taken: Vec<Inst> = prologue
                    .iter()
                    .copied()
                    .chain(own.iter().copied().filter(|i| is_issue(i)))
                    .collect();
                claimed.extend(taken);
                // Every warp writes every START, as every warp waits: a
                // stage issued under a branch gets its START before the
                // branch (before the loop for the prologue, in a block that
                // runs every iteration for the loop's own issue).
                for stage in prologue.chunks(per_iteration) {
                    let at = self.hoisted_start(stage[0], |d| {
                        innermost[d].is_none() && cfg.dominates(d, l.header)
                    });
                    self.push(at, &base, true, RegionKind::AsyncIssue, 1002);
                }
                let at = self.hoisted_start(first_issue, |d| {
                    innermost[d] == Some(k) && l.latches.iter().all(|&t| cfg.dominates(d, t))
                });
                self.push(at, &base, true, RegionKind::AsyncIssue, 1002);
                let home = cfg.index[&first_issue.block()];
                let w = self.wait_unit(wait, cfg.index[&wait.block()], home, loops);
                self.wait_records(w, &base, loops);
            }
        }
    }

    /// The first wait of `issue`'s family after it, following the
    /// straight-line path (its block, then unconditional successors). A
    /// wait inside a loop that issues nothing (a spin loop around
    /// `mbarrier.try_wait`) is that loop.
    fn following_wait(&self, issue: Inst, loops: &[Loop]) -> Option<Wait> {
        let cfg = self.cfg;
        let issue_text = call_text(issue)?;
        let family = issue_family(&issue_text);
        let barrier = mbarrier_of(issue, &issue_text);
        let home = *cfg.index.get(&issue.block())?;
        let mut cur = issue.next();
        let mut visited: BTreeSet<usize> = BTreeSet::from([home]);
        for _ in 0..256 {
            let i = cur?;
            if let Some(t) = call_text(i) {
                // A wait of another family (a wgmma wait_group after a
                // cp.async), or on another mbarrier, does not retire this
                // issue: look further.
                let other_barrier = barrier
                    .zip(mbarrier_of(i, &t))
                    .is_some_and(|(a, b)| a.certainly_differs(b));
                if async_wait().is_match(&t) && wait_family(&t) == family && !other_barrier {
                    let b = *cfg.index.get(&i.block())?;
                    let unit = self.wait_unit(i, b, home, loops);
                    // A wait that runs more often than the issue (inside
                    // a loop the issue is not in, beyond its own spin
                    // loop) retires one stage of a pipeline per
                    // iteration: `pipelined_pairs` decides.
                    let repeats = loops.iter().enumerate().any(|(k, l)| {
                        l.body.contains(&b)
                            && !l.body.contains(&home)
                            && !matches!(unit, Wait::Loop(spin) if spin == k)
                    });
                    return (!repeats).then_some(unit);
                }
            }
            cur = match i.next() {
                Some(n) => Some(n),
                None => {
                    let b = *cfg.index.get(&i.block())?;
                    let [s] = cfg.succs[b].as_slice() else {
                        return None;
                    };
                    if !visited.insert(*s) {
                        return None;
                    }
                    cfg.blocks[*s].instructions().first().copied()
                }
            };
        }
        None
    }

    fn wait_unit(&self, wait: Inst, block: usize, home: usize, loops: &[Loop]) -> Wait {
        // The innermost loop around the wait that does not hold the issue.
        let spin = loops
            .iter()
            .enumerate()
            .filter(|(_, l)| l.body.contains(&block) && !l.body.contains(&home))
            .max_by_key(|(_, l)| l.depth);
        if let Some((k, l)) = spin {
            if !issues_in(self.cfg, l) {
                return Wait::Loop(k);
            }
        }
        Wait::At(wait)
    }
}

/// Whether any block of `l` issues an async copy or MMA.
fn issues_in(cfg: &Cfg, l: &Loop) -> bool {
    l.body.iter().any(|&b| {
        cfg.blocks[b]
            .instructions()
            .into_iter()
            .any(|i| call_text(i).is_some_and(|t| async_issue().is_match(&t)))
    })
}

/// Blocks outside `l` from which its header is reached without passing
/// through the loop.
fn blocks_reaching(cfg: &Cfg, l: &Loop) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut work: Vec<usize> = cfg.entering_edges(l).into_iter().map(|(u, _)| u).collect();
    while let Some(b) = work.pop() {
        if !l.body.contains(&b) && seen.insert(b) {
            work.extend(cfg.preds[b].iter().copied());
        }
    }
    seen
}

enum Wait {
    At(Inst),
    /// Index into the loops slice.
    Loop(usize),
}

/// Run every requested mode over one kernel.
pub fn collect(cfg: &Cfg, function: &str, file: &str, modes: &[RegionMode]) -> Result<Found> {
    let mut c = Collector::new(cfg, function, file);
    c.markers()?;
    let loops = cfg.loops();
    let want = |m: &RegionMode| modes.contains(m);
    if want(&RegionMode::Kernel) {
        c.kernel();
    }
    let (whole, iters) = (want(&RegionMode::Loops), want(&RegionMode::Iterations));
    if whole || iters {
        c.loops(&loops, whole, iters)?;
    }
    for m in modes {
        match m {
            RegionMode::Ops(g) | RegionMode::Calls(g) => c.calls(g)?,
            RegionMode::Asm(r) => c.asm(r)?,
            RegionMode::Probe(n) => c.probes(*n),
            _ => {}
        }
    }
    if want(&RegionMode::Async) {
        c.async_pairs(&loops)?;
    }
    Ok(c.finish())
}

/// Check explicit regions before anything is inserted: every name has both
/// a start and an end, and every end is dominated by a start.
pub fn check_balance(cfg: &Cfg, sites: &[Site]) -> Result<()> {
    let pos = |i: Inst| -> (usize, usize) {
        let b = cfg.index[&i.block()];
        let k = i
            .block()
            .instructions()
            .iter()
            .position(|x| *x == i)
            .unwrap_or(0);
        (b, k)
    };
    let mut names: Vec<&str> = sites.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let of = |start: bool| -> Vec<&Site> {
            sites
                .iter()
                .filter(|s| s.name == name && s.is_start == start)
                .collect()
        };
        let (starts, ends) = (of(true), of(false));
        if !starts.is_empty() && starts.iter().all(|s| s.kind == RegionKind::AsyncWait) {
            continue;
        }
        let unbalanced = |s: &Site, problem: &str| InstrumentError::Unbalanced {
            region: name.to_string(),
            location: s.location.clone(),
            problem: problem.to_string(),
        };
        if ends.is_empty() {
            return Err(unbalanced(
                starts[0],
                "start without an end (kperf_region_end / `// kperf:end` missing)",
            ));
        }
        if starts.is_empty() {
            return Err(unbalanced(
                ends[0],
                "end without a start (kperf_region_start / `// kperf:start` missing)",
            ));
        }
        for e in &ends {
            let (eb, ek) = pos(e.before);
            let covered = starts.iter().any(|s| {
                let (sb, sk) = pos(s.before);
                if sb == eb {
                    sk <= ek
                } else {
                    cfg.dominates(sb, eb)
                }
            });
            if !covered {
                return Err(unbalanced(
                    e,
                    "end not dominated by a start of the same region",
                ));
            }
        }
    }
    Ok(())
}
