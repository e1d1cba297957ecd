//! What instrumentation costs a kernel, read from the SASS ptxas makes of
//! it: `kperf cost`.
//!
//! Five compiles of the same kernel with the same options:
//! - plain: no instrumentation (the baseline);
//! - instrumented: the user's regions;
//! - kernel-only: one region around the body (2 records + init + finalize);
//! - probed: kernel-only plus `probe=N` (2N more records in straight-line
//!   code at the entry), and probed-2N, the same with `probe=2N`.
//!
//! Per record = (probed-2N − probed) / 2N, by instruction class: the
//! marginal cost of one more straight-line record, free of what adding a
//! probe block at all perturbs once (a predicate kept in a register, a
//! rescheduled prologue). Fixed (init + finalize) = kernel-only − plain −
//! 2 × per record − out-of-line code added (reported on its own: blocks
//! after the last EXIT that only a diverged warp jumps to). Registers,
//! spills, stack and shared memory come from `ptxas -v`; SASS from
//! `cuobjdump -sass`. NOPs and never-executed `@!PT` padding are not counted.

use crate::error::{InstrumentError, Result};
use crate::sass_loops::{natural_loops, SassLoop};
use crate::tools::{run_tool, scratch_dir};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// `ptxas -v` figures of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PtxasInfo {
    pub registers: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
    pub stack_frame_bytes: u32,
    pub shared_bytes: u32,
    pub local_bytes: u32,
}

impl PtxasInfo {
    /// Spill stores and loads together, in bytes.
    pub fn spill_bytes(&self) -> u64 {
        u64::from(self.spill_store_bytes) + u64::from(self.spill_load_bytes)
    }
}

/// What an instruction is, for the cost breakdown.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InstClass {
    /// CS2R/S2R/S2UR of SR_CLOCKLO/HI or the global timer.
    ClockRead,
    /// Stores to shared or global memory (not spills).
    Store,
    /// Loads (the finalize copy reads the ring back).
    Load,
    /// Integer address/index arithmetic (IADD3, IMAD, LEA, LOP3, SHF, SEL, …)
    /// and special-register reads other than clocks.
    IndexArith,
    /// Register moves and constants: MOV, IMAD.MOV, `IMAD.U32 Rd, RZ, RZ, x`,
    /// zeroing (`CS2R Rd, SRZ`), constants on the FMA pipe
    /// (`HFMA2.MMA Rd, -RZ, RZ, a, b`), R2UR. A
    /// record's tag is one of these, not index arithmetic.
    Move,
    /// Predicate computation (ISETP, PLOP3, P2R, R2P, VOTE, …).
    Predicate,
    /// Barriers and branches.
    Control,
    /// Everything else.
    Other,
}

impl InstClass {
    pub const ALL: [InstClass; 8] = [
        InstClass::ClockRead,
        InstClass::Store,
        InstClass::Load,
        InstClass::IndexArith,
        InstClass::Move,
        InstClass::Predicate,
        InstClass::Control,
        InstClass::Other,
    ];
    pub fn name(self) -> &'static str {
        match self {
            InstClass::ClockRead => "clock reads",
            InstClass::Store => "stores",
            InstClass::Load => "loads",
            InstClass::IndexArith => "index arith",
            InstClass::Move => "moves",
            InstClass::Predicate => "predicates",
            InstClass::Control => "control",
            InstClass::Other => "other",
        }
    }
}

/// The instruction classes a kernel's meaning lives in: instrumentation may
/// add its own (the ring's shared stores, the copy-out's loads and global
/// stores, finalize's barrier) but must leave the kernel's count of every
/// one of these as it was.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Guarded {
    /// Warpgroup and warp matrix instructions (HGMMA, HMMA, …).
    TensorCore,
    /// Bulk tensor copies and their controls (UTMALDG, UBLKCP, …).
    Tma,
    /// Asynchronous copies and their waits (LDGSTS, LDGDEPBAR, DEPBAR).
    AsyncCopy,
    /// Global and generic loads, stores and atomics.
    GlobalMemory,
    /// Shared-memory loads, stores and atomics.
    SharedMemory,
    /// CTA and memory barriers, mbarrier operations.
    Barrier,
    /// Local-memory loads and stores: register spills and local arrays.
    /// Guarded one way: more of them is a change (a register cap that
    /// makes ptxas spill adds them); fewer (more registers free remove the
    /// plain kernel's spills) counts as unexplained.
    LocalMemory,
}

impl Guarded {
    pub fn name(self) -> &'static str {
        match self {
            Guarded::TensorCore => "tensor core",
            Guarded::Tma => "TMA",
            Guarded::AsyncCopy => "async copy",
            Guarded::GlobalMemory => "global memory",
            Guarded::SharedMemory => "shared memory",
            Guarded::Barrier => "barrier",
            Guarded::LocalMemory => "local memory",
        }
    }
    /// The guarded class of an opcode family (the mnemonic before its first
    /// `.`), if it has one.
    pub fn of_family(family: &str) -> Option<Guarded> {
        Some(match family {
            "HGMMA" | "HMMA" | "IMMA" | "QGMMA" | "IGMMA" | "BGMMA" | "BMMA" | "DMMA"
            | "UTCHMMA" | "UTCQMMA" | "UTCIMMA" | "UTCBMMA" | "UTCOMMA" | "WARPGROUP" => {
                Guarded::TensorCore
            }
            "UTMALDG" | "UTMASTG" | "UTMAPF" | "UTMACCTL" | "UTMACMDFLUSH" | "UTMAREDG"
            | "UBLKCP" | "UBLKRED" | "UBLKPF" => Guarded::Tma,
            "LDGSTS" | "LDGDEPBAR" | "DEPBAR" | "ARRIVES" => Guarded::AsyncCopy,
            "LDG" | "STG" | "LD" | "ST" | "ATOM" | "ATOMG" | "RED" | "REDG" | "CCTL" | "LDGMC" => {
                Guarded::GlobalMemory
            }
            "LDS" | "STS" | "LDSM" | "STSM" | "ATOMS" | "LDSU" => Guarded::SharedMemory,
            "BAR" | "SYNCS" | "MEMBAR" | "ERRBAR" | "FENCE" | "CGAERRBAR" => Guarded::Barrier,
            "LDL" | "STL" => Guarded::LocalMemory,
            _ => return None,
        })
    }
}

/// One SASS instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SassInst {
    pub addr: u64,
    pub predicated: bool,
    pub opcode: String,
    pub text: String,
    /// Where the line table says it comes from (`file`, line), when the
    /// cubin has one (`ptxas -lineinfo`) and the instruction is in it.
    pub source: Option<(String, u32)>,
}

impl SassInst {
    /// The mnemonic without modifiers: `HGMMA.64x128x16.F32` → `HGMMA`.
    pub fn family(&self) -> &str {
        self.opcode.split('.').next().unwrap_or(&self.opcode)
    }
    /// The work the instruction does, for comparing two builds of one
    /// kernel: its family, with the choices ptxas makes freely between
    /// equivalent forms merged: the uniform datapath's twin of a vector
    /// instruction (`UIADD3` is `IADD3`, `S2UR` is `S2R`), adds and shifts
    /// done on the multiplier (`IMAD.IADD`, `IMAD.SHL`, `VIADD`), a scaled
    /// add done on it (`IMAD R, a, 2^k, b` is `LEA R, a, b, k`), and every
    /// register move or constant load ([`SassInst::is_move`]) as `MOV`.
    pub fn work(&self) -> &str {
        if self.is_move() {
            return "MOV";
        }
        match self.power_of_two_scale() {
            Some(true) => return "LEA",
            Some(false) => return "SHF",
            None => {}
        }
        let f = self.family();
        match (f, self.opcode.split('.').nth(1)) {
            ("IMAD", Some("IADD")) | ("VIADD", _) | ("IADD", _) => return "IADD3",
            ("IMAD", Some("SHL")) => return "SHF",
            ("S2UR", _) => return "S2R",
            _ => {}
        }
        const TWINS: [&str; 14] = [
            "IADD3", "IMAD", "LEA", "LOP3", "SHF", "SEL", "ISETP", "PLOP3", "PRMT", "FLO", "POPC",
            "BREV", "LDC", "IMNMX",
        ];
        match f.strip_prefix('U') {
            Some(v) if TWINS.contains(&v) => v,
            _ => f,
        }
    }
    pub fn class(&self) -> InstClass {
        let op = self.opcode.as_str();
        let base = op.split('.').next().unwrap_or(op);
        if self.text.contains("SR_CLOCK") || self.text.contains("SR_GLOBALTIMER") {
            return InstClass::ClockRead;
        }
        if self.is_move() {
            return InstClass::Move;
        }
        match base {
            "STS" | "STG" | "ST" | "STSM" | "ATOMS" | "RED" => InstClass::Store,
            "LDS" | "LDG" | "LD" | "LDSM" | "LDC" | "ULDC" => InstClass::Load,
            "IADD3" | "IADD" | "IMAD" | "LEA" | "LOP3" | "SHF" | "SHL" | "SHR" | "UIADD3"
            | "UIMAD" | "ULEA" | "ULOP3" | "USHF" | "IMNMX" | "SEL" | "USEL" | "S2R" | "S2UR"
            | "CS2R" | "PRMT" | "IABS" | "FLO" | "POPC" | "BREV" => InstClass::IndexArith,
            "ISETP" | "UISETP" | "PLOP3" | "UPLOP3" | "P2R" | "R2P" | "VOTE" | "VOTEU" => {
                InstClass::Predicate
            }
            "BAR" | "BRA" | "EXIT" | "BSSY" | "BSYNC" | "WARPSYNC" | "CALL" | "RET" | "JMP"
            | "BRX" | "MEMBAR" | "DEPBAR" | "ELECT" => InstClass::Control,
            _ => InstClass::Other,
        }
    }
    /// Operands after the opcode, without the guard and the `;`.
    fn operands(&self) -> &str {
        self.text
            .split_once(self.opcode.as_str())
            .map_or("", |(_, rest)| rest.trim().trim_end_matches(';'))
    }

    /// `IMAD Rd, Ra, 2^k, Rc` (k ≥ 1): Ra·2^k + Rc, which ptxas computes
    /// with a LEA or on the multiplier as the ports allow (Triton's add
    /// kernel: `LEA R0, R5, R0, 0xa` plain, `IMAD R0, R24, 0x400, R3`
    /// beside kperf's init): `Some(true)`. With `RZ` for Rc it is a shift,
    /// `SHF.L.U32 Rd, Ra, k, RZ` (a bf16 upcast, `IMAD.U32 R, a, 0x10000,
    /// RZ`, moved between the two in rms_norm and rope kernels beside
    /// kperf's code): `Some(false)`. Not `.WIDE`, `.HI` or `.X`, which
    /// differ.
    fn power_of_two_scale(&self) -> Option<bool> {
        if !matches!(self.opcode.as_str(), "IMAD" | "IMAD.U32") {
            return None;
        }
        let operands = self.operands();
        let args: Vec<&str> = operands.split(',').map(str::trim).collect();
        let scaled = args.len() == 4
            && args[1] != "RZ"
            && args[2]
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .is_some_and(|m| m > 1 && m.is_power_of_two());
        scaled.then_some(args[3] != "RZ")
    }

    fn is_move(&self) -> bool {
        let op = self.opcode.as_str();
        let base = op.split('.').next().unwrap_or(op);
        let operands = self.operands();
        let args: Vec<&str> = operands.split(',').map(str::trim).collect();
        match base {
            "MOV" | "UMOV" | "R2UR" => true,
            // `IMAD[.U32|.MOV[.U32]] Rd, RZ, RZ, x` is Rd = x. Not IMAD.X
            // (x plus a carry: the high half of an address add), .HI or
            // .WIDE, which compute.
            "IMAD" => {
                matches!(op, "IMAD" | "IMAD.U32" | "IMAD.MOV" | "IMAD.MOV.U32")
                    && args.len() == 4
                    && args[1] == "RZ"
                    && args[2] == "RZ"
            }
            "CS2R" => operands.ends_with("SRZ"),
            // `HFMA2[.MMA] Rd, -RZ, RZ, a, b` is Rd = (a, b): ptxas's way of
            // loading a constant (0 or not) on the FMA pipe.
            "HFMA2" => args.len() == 5 && args[1] == "-RZ" && args[2] == "RZ",
            _ => false,
        }
    }
    /// `BRA` to its own address: the trap ptxas puts after a function's
    /// last EXIT, never executed.
    pub fn is_self_branch(&self) -> bool {
        !self.predicated && self.branch_target() == Some(self.addr)
    }
    /// The target of a direct branch.
    pub fn branch_target(&self) -> Option<u64> {
        if !self.opcode.starts_with("BRA") {
            return None;
        }
        self.last_operand_address()
    }
    /// The address a `CALL.REL`/`CALL.ABS` goes to (`CALL.REL.NOINC 0x1c0`).
    pub fn call_target(&self) -> Option<u64> {
        if !self.opcode.starts_with("CALL") {
            return None;
        }
        self.last_operand_address()
    }
    fn last_operand_address(&self) -> Option<u64> {
        let t = self.text.split_whitespace().last()?.trim_end_matches(';');
        u64::from_str_radix(t.trim_start_matches("0x"), 16).ok()
    }
}

/// Parse `cuobjdump -sass` for one function (the first when `function` is
/// None). NOPs and never-executed `@!PT` padding are dropped.
pub fn parse_sass(dump: &str, function: Option<&str>) -> Vec<SassInst> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in dump.lines() {
        let l = line.trim();
        if let Some(f) = l.strip_prefix("Function : ") {
            if inside {
                break;
            }
            inside = function.is_none_or(|want| f.trim() == want);
            continue;
        }
        if !inside {
            continue;
        }
        // `/*0820*/   @!P3 CS2R R18, SR_CLOCKLO ;   /* 0x... */`
        let Some(rest) = l.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, body)) = rest.split_once("*/") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let body = body.split("/*").next().unwrap_or("").trim();
        let body = body.trim_end_matches(';').trim();
        if body.is_empty() {
            continue;
        }
        let mut words = body.split_whitespace();
        let mut first = words.next().unwrap_or("");
        let predicated = first.starts_with('@');
        if predicated {
            first = words.next().unwrap_or("");
        }
        // `@!PT` never executes: ptxas's padding (`@!PT LDS RZ, [RZ]`
        // around async copies), as NOPs are.
        if first == "NOP" || body.starts_with("@!PT ") {
            continue;
        }
        out.push(SassInst {
            addr,
            predicated,
            opcode: first.to_string(),
            text: body.to_string(),
            source: None,
        });
    }
    out
}

/// The line table of every function in `nvdisasm -g -c` output: function →
/// address → (file, line).
pub fn parse_line_info(dump: &str) -> HashMap<String, BTreeMap<u64, (String, u32)>> {
    let mut out: HashMap<String, BTreeMap<u64, (String, u32)>> = HashMap::new();
    let mut function: Option<String> = None;
    let mut current: Option<(String, u32)> = None;
    for line in dump.lines() {
        let l = line.trim();
        // `//--------------------- .text.name   -----`
        if let Some(rest) = l.strip_prefix("//---") {
            function = rest
                .trim_matches(|c: char| c == '-' || c.is_whitespace())
                .strip_prefix(".text.")
                .map(|n| n.trim().to_string());
            current = None;
            continue;
        }
        // `//## File "k.py", line 205` (maybe followed by `inlined at ...`)
        if let Some(rest) = l.strip_prefix("//## File \"") {
            current = rest.split_once("\", line ").and_then(|(file, tail)| {
                let n: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
                Some((file.to_string(), n.parse().ok()?))
            });
            continue;
        }
        let (Some(f), Some(rest)) = (&function, l.strip_prefix("/*")) else {
            continue;
        };
        let Some((addr, _)) = rest.split_once("*/") else {
            continue;
        };
        if let (Ok(addr), Some(src)) = (u64::from_str_radix(addr.trim(), 16), &current) {
            out.entry(f.clone()).or_default().insert(addr, src.clone());
        }
    }
    out
}

/// Parse `ptxas -v` output for `function` (every function's figures
/// follow its `Compiling entry function 'name'` line), or the last function
/// it reports when `function` is None.
pub fn parse_ptxas(log: &str, function: Option<&str>) -> PtxasInfo {
    let mut info = PtxasInfo::default();
    let num_before = |s: &str, key: &str| -> Option<u32> {
        let at = s.find(key)?;
        s[..at].split_whitespace().last()?.parse().ok()
    };
    let mut inside = function.is_none();
    for l in log.lines() {
        if let Some(rest) = l.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or("");
            inside = function.is_none_or(|f| f == name);
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(v) = num_before(l, "bytes stack frame") {
            info.stack_frame_bytes = v;
        }
        if let Some(v) = num_before(l, "bytes spill stores") {
            info.spill_store_bytes = v;
        }
        if let Some(v) = num_before(l, "bytes spill loads") {
            info.spill_load_bytes = v;
        }
        if let Some(v) = num_before(l, "registers") {
            info.registers = v;
        }
        if let Some(v) = num_before(l, "bytes smem") {
            info.shared_bytes = v;
        }
        if let Some(v) = num_before(l, "bytes lmem") {
            info.local_bytes = v;
        }
    }
    info
}

/// The text of PTX function `name`: its `.entry`/`.func` line to the `}`
/// that closes its body, braces counted (inline asm opens blocks of its own,
/// some with `}` at the start of a line), when the PTX has it.
pub fn ptx_function<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let mut offset = 0;
    let mut start = None;
    for line in ptx.split_inclusive('\n') {
        let t = line.trim_start();
        let decl = t
            .split_whitespace()
            .skip_while(|w| *w != ".entry" && *w != ".func")
            .nth(1)
            .map(|w| w.split('(').next().unwrap_or(w));
        if (t.starts_with(".visible") || t.starts_with(".entry") || t.starts_with(".weak"))
            && decl == Some(name)
        {
            start = Some(offset);
            break;
        }
        offset += line.len();
    }
    let start = start?;
    // The body opens at the first `{` after the parameter list's `)`.
    let rest = &ptx[start..];
    let params_end = rest.find(')')?;
    let mut depth = 0usize;
    let mut in_comment = false;
    for (i, c) in rest.char_indices().skip_while(|(i, _)| *i <= params_end) {
        match c {
            '\n' => in_comment = false,
            '/' if rest[i..].starts_with("//") => in_comment = true,
            '{' if !in_comment => depth += 1,
            '}' if !in_comment => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&rest[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// One ptxas run over a module's PTX: its `-v` log, the SASS dump and the
/// line table.
pub struct Assembled {
    log: String,
    dump: String,
    lines: HashMap<String, BTreeMap<u64, (String, u32)>>,
}

impl Assembled {
    /// The compiled figures of one kernel of the module.
    pub fn kernel(&self, function: &str) -> Result<Compiled> {
        let mut sass = parse_sass(&self.dump, Some(function));
        if let Some(table) = self.lines.get(function) {
            for i in &mut sass {
                i.source = table.get(&i.addr).cloned();
            }
        }
        if sass.is_empty() {
            return Err(InstrumentError::Tool {
                tool: "cuobjdump".into(),
                message: format!("no SASS for function `{function}`"),
            });
        }
        Ok(Compiled {
            ptxas: parse_ptxas(&self.log, Some(function)),
            sass,
        })
    }
}

/// Assemble `ptx` for `arch` with ptxas and dump its SASS.
pub fn assemble(ptx: &[u8], arch: &str) -> Result<Assembled> {
    let dir = scratch_dir()?;
    let src = dir.join("k.ptx");
    let bin = dir.join("k.cubin");
    let io = |p: &std::path::Path, e| InstrumentError::Io {
        path: p.display().to_string(),
        source: e,
    };
    std::fs::write(&src, ptx).map_err(|e| io(&src, e))?;
    let (s, b) = (
        src.to_str().unwrap_or_default().to_string(),
        bin.to_str().unwrap_or_default().to_string(),
    );
    // -lineinfo changes no code: it only keeps the PTX's `.loc` lines.
    let result = run_tool(
        "ptxas",
        &[
            &format!("-arch={arch}"),
            "-O3",
            "-v",
            "-lineinfo",
            &s,
            "-o",
            &b,
        ],
    )
    .and_then(|log| {
        let dump = run_tool("cuobjdump", &["-sass", &b])?;
        let lines = run_tool("nvdisasm", &["-g", "-c", &b])?;
        Ok((log, dump, lines))
    });
    let _ = std::fs::remove_dir_all(&dir);
    let (log, dump, lines) = result?;
    Ok(Assembled {
        log,
        dump,
        lines: parse_line_info(&lines),
    })
}

/// A compiled variant: its ptxas figures and SASS.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub ptxas: PtxasInfo,
    pub sass: Vec<SassInst>,
}

impl Compiled {
    pub fn count(&self) -> usize {
        self.sass.len()
    }
    pub fn by_class(&self) -> BTreeMap<InstClass, i64> {
        let mut m: BTreeMap<InstClass, i64> = InstClass::ALL.iter().map(|c| (*c, 0)).collect();
        for i in &self.sass {
            *m.entry(i.class()).or_default() += 1;
        }
        m
    }
    /// Instructions per opcode family.
    pub fn by_family(&self) -> BTreeMap<String, i64> {
        let mut m = BTreeMap::new();
        for i in &self.sass {
            *m.entry(i.family().to_string()).or_default() += 1;
        }
        m
    }
    /// Instructions per kind of work ([`SassInst::work`]).
    pub fn by_work(&self) -> BTreeMap<String, i64> {
        let mut m = BTreeMap::new();
        for i in &self.sass {
            *m.entry(i.work().to_string()).or_default() += 1;
        }
        m
    }
    /// Instructions after the last unpredicated `EXIT`: blocks ptxas lays
    /// out of line, reached only by branches (e.g. the divergent-warp
    /// fallback of a shuffle after a join), never on the converged path.
    /// The end-of-function `BRA` to itself is not counted.
    pub fn out_of_line(&self) -> usize {
        self.sass.len()
            - self.in_line().len()
            - self.called().len()
            - self.sass.iter().filter(|i| i.is_self_branch()).count()
    }
    /// The bodies of device functions ptxas kept as functions (`noinline`),
    /// laid out after the kernel's last `EXIT`: from each `CALL` target to
    /// its `RET`. They run whenever the kernel calls them, so they are the
    /// kernel's code as much as its in-line part: a helper compiled with 65
    /// FFMA instead of 9 beside an instrumented caller hid there as "out of
    /// line" (10.7% unexplained for several hundred).
    pub fn called(&self) -> Vec<&SassInst> {
        let end = self.in_line().len();
        let tail = &self.sass[end..];
        let mut starts: Vec<usize> = self
            .sass
            .iter()
            .filter_map(SassInst::call_target)
            .filter_map(|t| tail.iter().position(|i| i.addr == t))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut taken = vec![false; tail.len()];
        for s in starts {
            for (k, i) in tail.iter().enumerate().skip(s) {
                if taken[k] {
                    break;
                }
                taken[k] = true;
                if !i.predicated && i.opcode.starts_with("RET") {
                    break;
                }
            }
        }
        tail.iter()
            .zip(taken)
            .filter(|(i, t)| *t && !i.is_self_branch())
            .map(|(i, _)| i)
            .collect()
    }
    /// The instructions up to the last unpredicated `EXIT`: what a
    /// converged warp can run. A kernel with no unpredicated `EXIT` (its
    /// warps leave by predicated exits inside a loop) ends its main flow
    /// where the cold blocks ptxas lays out after it begin
    /// ([`Compiled::main_flow_end`]).
    pub fn in_line(&self) -> &[SassInst] {
        match self
            .sass
            .iter()
            .rposition(|i| !i.predicated && i.opcode == "EXIT")
        {
            Some(last) => &self.sass[..=last],
            None => &self.sass[..self.main_flow_end()],
        }
    }
    /// Where the main flow ends when the function's last instructions are
    /// cold blocks (a `try_wait` retry loop with its `NANOSLEEP`): each
    /// entered only by a branch (the instruction before it never falls
    /// through) and ending in an unconditional branch back before its own
    /// start. Upstream's tma_load_128x128_stride test: the plain kernel
    /// leaves through `@P EXIT`s, so without this its retry loop counted
    /// as in-line, and the instrumented kernel's (after its unpredicated
    /// EXIT) did not: 2 SYNCS "lost", 15% unexplained.
    fn main_flow_end(&self) -> usize {
        let s = &self.sass;
        let falls_through =
            |i: &SassInst| i.predicated || !(i.opcode == "EXIT" || i.opcode.starts_with("BRA"));
        let mut end = s.len();
        while end > 0 && s[end - 1].is_self_branch() {
            end -= 1;
        }
        while end > 0 {
            let last = &s[end - 1];
            let Some(target) = last.branch_target().filter(|_| !last.predicated) else {
                break;
            };
            let Some(before) = s[..end - 1].iter().rposition(|i| !falls_through(i)) else {
                break;
            };
            if target >= s[before + 1].addr {
                break;
            }
            // A block the converged path jumps into (an unconditional
            // branch from before it) is main flow laid out late, not cold:
            // a while loop's body after its back branch (a Triton grouped
            // GEMM without an unpredicated EXIT counted 1577 of its 1722
            // instructions out of line, 1092% "unexplained").
            let (lo, hi) = (s[before + 1].addr, s[end - 1].addr);
            let jumped_into = s[..=before].iter().any(|i| {
                !i.predicated
                    && i.opcode.starts_with("BRA")
                    && i.branch_target().is_some_and(|t| (lo..=hi).contains(&t))
            });
            if jumped_into {
                break;
            }
            end = before + 1;
        }
        end
    }
    /// In-line instructions and called device functions per kind of work
    /// ([`SassInst::work`]): the kernel's code a converged warp runs.
    fn in_line_by_work(&self) -> BTreeMap<String, i64> {
        let mut m = BTreeMap::new();
        for i in self.in_line().iter().chain(self.called()) {
            *m.entry(i.work().to_string()).or_default() += 1;
        }
        m
    }
    /// The shape of the hollow reference that compiles init and finalize
    /// as this kernel does ([`crate::llvm::hollow_kernel`]): does the
    /// function call others (`CALL.ABS` to `vprintf`, `CALL.REL` to a
    /// `.func`), and does it use the global memory descriptor before the
    /// first call?
    pub fn hollow_body(&self) -> crate::llvm::HollowBody {
        use crate::llvm::HollowBody;
        match self.sass.iter().position(|i| i.family() == "CALL") {
            None => HollowBody::Empty,
            Some(first)
                if self.sass[..first]
                    .iter()
                    .any(|i| i.text.contains("desc[UR")) =>
            {
                HollowBody::GlobalThenCall
            }
            Some(_) => HollowBody::Call,
        }
    }
    /// The natural loops of the function's control-flow graph.
    pub fn loops(&self) -> Vec<SassLoop> {
        natural_loops(&self.sass)
    }
    /// Does finalize copy the ring out in a loop (a SASS loop whose
    /// instructions the line table gives to finalize; line-tagged LLVM-IR
    /// builds)? Where the records a thread can write are few and bounded it
    /// copies them without one.
    pub fn finalize_copies_in_a_loop(&self) -> bool {
        use crate::llvm::line_tags::TAG_LINE_FINALIZE;
        self.loops().iter().any(|l| {
            l.body.iter().any(|&k| {
                self.sass[k]
                    .source
                    .as_ref()
                    .is_some_and(|(_, line)| *line == TAG_LINE_FINALIZE)
            })
        })
    }
    /// Clock and timer reads in the body of `l`.
    pub fn clock_reads_in(&self, l: &SassLoop) -> usize {
        l.body
            .iter()
            .filter(|&&k| self.sass[k].class() == InstClass::ClockRead)
            .count()
    }
}

/// What ptxas says of each entry function of `ptx` for `arch`: registers,
/// spills and static shared memory, without disassembling.
pub fn entry_usage(ptx: &[u8], arch: &str) -> Result<BTreeMap<String, PtxasInfo>> {
    let dir = scratch_dir()?;
    let (src, bin) = (dir.join("k.ptx"), dir.join("k.cubin"));
    let log = std::fs::write(&src, ptx)
        .map_err(|e| InstrumentError::Io {
            path: src.display().to_string(),
            source: e,
        })
        .and_then(|()| {
            run_tool(
                "ptxas",
                &[
                    &format!("-arch={arch}"),
                    "-v",
                    src.to_str().unwrap_or_default(),
                    "-o",
                    bin.to_str().unwrap_or_default(),
                ],
            )
        });
    let _ = std::fs::remove_dir_all(&dir);
    let log = log?;
    let names = log.lines().filter_map(|l| {
        let rest = l.split("Compiling entry function '").nth(1)?;
        Some(rest.split('\'').next()?.to_string())
    });
    Ok(names
        .map(|n| {
            let info = parse_ptxas(&log, Some(&n));
            (n, info)
        })
        .collect())
}

/// How far the kernel's own code in a line-tagged instrumented build strays
/// from the plain build: the sum over kinds of work of |the kernel's
/// instructions (not kperf's, by the line table) − the plain kernel's|,
/// in-line code only; 0 when the records changed nothing around them. For
/// choosing between builds of one kernel (`registers::hold_occupancy`):
/// `kperf cost`'s `unexplained` is the reported figure.
pub fn kernel_drift(plain: &Compiled, instrumented: &Compiled) -> u64 {
    let mut by_work: BTreeMap<&str, i64> = BTreeMap::new();
    for i in plain.in_line().iter().chain(plain.called()) {
        *by_work.entry(i.work()).or_default() -= 1;
    }
    for i in instrumented
        .in_line()
        .iter()
        .chain(instrumented.called())
        .filter(|i| !is_kperf(i))
    {
        *by_work.entry(i.work()).or_default() += 1;
    }
    by_work.values().map(|d| d.unsigned_abs()).sum()
}

pub fn compile_ptx(ptx: &[u8], arch: &str, function: &str) -> Result<Compiled> {
    assemble(ptx, arch)?.kernel(function)
}

/// The cost report of one kernel under one set of options.
#[derive(Clone, Debug, Serialize)]
pub struct CostReport {
    pub kernel: String,
    pub arch: String,
    pub counter: String,
    pub granularity: String,
    pub regions: String,
    pub plain: PtxasInfo,
    pub instrumented: PtxasInfo,
    pub sass_plain: usize,
    pub sass_instrumented: usize,
    /// SASS instructions the user's instrumentation added.
    pub added_total: i64,
    pub added_by_class: BTreeMap<InstClass, i64>,
    /// Record stores in the instrumented kernel's PTX.
    pub record_sites: i64,
    /// Marginal SASS per straight-line record, by class and in total.
    pub per_record: f64,
    pub per_record_by_class: BTreeMap<InstClass, f64>,
    /// Init + finalize, in line (what a converged warp runs through).
    pub fixed: f64,
    /// Out-of-line SASS the kernel-only build adds over plain (see
    /// [`Compiled::out_of_line`]), not counted in `fixed`.
    pub out_of_line_added: i64,
    pub added_spill_bytes: i64,
    pub added_registers: i64,
    pub added_stack_bytes: i64,
    pub added_shared_bytes: i64,
    /// SASS loops of the instrumented kernel holding record clock reads,
    /// and how many loops the plain kernel has.
    pub loops_plain: usize,
    pub loops_instrumented: usize,
    pub loops_with_records: usize,
    /// Records inside loops although no requested region is loop-related.
    pub unexpected_loop_records: bool,
    /// Init + finalize in a hollow kernel (the same lowering, the body a
    /// bare return): the kernel-independent reference `fidelity` is
    /// measured against.
    pub fixed_reference: f64,
    /// The plain kernel calls functions (`CALL` in its SASS, e.g. `vprintf`),
    /// so ptxas compiles it under the call ABI and the hollow reference
    /// makes a call too ([`crate::llvm::hollow_kernel`]).
    pub calls_functions: bool,
    /// Source loops the plain build unrolls completely, unrolled completely
    /// in the instrumented build too (`file:line:col`;
    /// [`crate::mlir::unroll`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unrolled_as_plain: Vec<String>,
    /// Is the instrumented kernel the plain kernel plus records, init and
    /// finalize, and nothing else?
    pub fidelity: Fidelity,
    /// Per region, how much of its work ptxas kept between its records
    /// (line-tagged builds; empty otherwise).
    pub region_fidelity: Vec<RegionFidelity>,
    /// CTAs per SM as registers allow them, plain and instrumented.
    pub occupancy: Occupancy,
}

/// CTAs per SM as registers, warps and CTA slots allow them (shared memory
/// aside; see [`crate::registers::SmLimits`]).
#[derive(Clone, Debug, Serialize)]
pub struct Occupancy {
    pub threads: u32,
    pub plain_ctas_per_sm: u32,
    pub instrumented_ctas_per_sm: u32,
    /// The `.maxnreg` the instrumented build got to keep the plain count
    /// (`--registers occupancy`), if it needed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_registers: Option<u32>,
}

/// One kind of work in the fidelity accounting.
#[derive(Clone, Debug, Serialize)]
pub struct FamilyDelta {
    /// The opcode family with equivalent forms merged ([`SassInst::work`]).
    pub family: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guarded: Option<Guarded>,
    pub plain: i64,
    pub instrumented: i64,
    /// What of `instrumented` is kperf's own code: attributed to it by the
    /// line table, or (without line tags) modelled as the hollow kernel's
    /// init and finalize plus records × the marginal record.
    pub instrumentation: f64,
    /// instrumented − plain − instrumentation.
    pub residual: f64,
    /// Of a negative residual, what one instruction serving the kernel and
    /// kperf explains (see [`Fidelity::shared_with_kernel`]).
    pub shared: f64,
}

impl FamilyDelta {
    /// What the instrumentation does not explain: the residual less sharing.
    pub fn unexplained(&self) -> f64 {
        if self.residual.abs() < RESIDUAL_EPSILON {
            0.0
        } else {
            self.residual + self.shared
        }
    }
}

/// How the instrumentation's share of the SASS was told apart.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FidelityMethod {
    /// The SASS line table: kperf's code carries lines of its own file
    /// (LLVM-IR input, built with `line_tags`). Exact up to ptxas's
    /// attribution of code it merged.
    LineTags,
    /// Counts against a model (the hollow kernel's fixed cost and the
    /// marginal record), for input without line tags (MLIR).
    Counts,
}

/// The instrumented kernel against plain + what the instrumentation
/// explains, opcode family by opcode family. A residual in a guarded
/// family means the kernel's own work changed (ptxas duplicated or dropped
/// a loop body, a barrier moved into two paths); a residual elsewhere is
/// rescheduling, register allocation or unrolling that the records caused.
#[derive(Clone, Debug, Serialize)]
pub struct Fidelity {
    pub method: FidelityMethod,
    /// kperf's own SASS in this kernel (init, records, finalize).
    pub instrumentation: f64,
    /// Families whose count changed or that the instrumentation uses.
    pub families: Vec<FamilyDelta>,
    /// Σ |residual| over all families, in SASS instructions.
    pub unexplained: f64,
    /// `unexplained` as a share of the plain kernel's instruction count.
    pub unexplained_share: f64,
    /// Instructions the kernel and kperf share (line tags): the kernel has
    /// fewer of a kind of work that kperf has, e.g. one thread-id read
    /// serving both. Not counted as unexplained.
    pub shared_with_kernel: f64,
    /// Guarded families with a residual: `HGMMA 16 → 32 (expected 16)`.
    pub guarded_changes: Vec<String>,
    /// Instructions ptxas added because of kperf's code, not the kernel's,
    /// counted as kperf's own (see [`induced_proxy_fences`]).
    pub induced: Vec<String>,
    /// kperf's own instructions that the line table gives the kernel, told
    /// by their readers (only kperf's code reads them), per kind of work:
    /// counted as kperf's above (see [`crate::sass_dataflow`]).
    pub by_readers: BTreeMap<String, f64>,
    /// SASS laid out after the last EXIT that the instrumented kernel has
    /// and the plain one has not (a diverged warp's fallback; not counted
    /// above).
    pub out_of_line_added: i64,
    /// Loops whose own instructions per iteration differ between the
    /// builds (line tags only): what every iteration of a hot loop pays,
    /// which a share of the static count dilutes.
    pub loop_drift: Vec<LoopDrift>,
}

/// The loops at one place in the source (their own instructions' lines,
/// first to last) and each one's own instructions per iteration (kperf's
/// left out), plain and instrumented, largest first.
#[derive(Clone, Debug, Serialize)]
pub struct LoopDrift {
    pub at: String,
    pub plain: Vec<usize>,
    pub instrumented: Vec<usize>,
}

/// Per place in the source, the own-instruction counts of the loops there.
fn loops_by_place(c: &Compiled) -> BTreeMap<String, Vec<usize>> {
    let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for l in c.loops() {
        let own: Vec<&SassInst> = l
            .body
            .iter()
            .map(|&k| &c.sass[k])
            .filter(|i| !is_kperf(i))
            .collect();
        // The loop's place: its back edge's line (the loop condition, the
        // same in both builds where the lines its body spans shift when
        // ptxas moves an instruction in or out).
        // Lines LLVM lost (`KERNEL_UNKNOWN_LINE`) name no place: a back
        // edge that lost its line in one build read as a loop gone there
        // and a new one elsewhere.
        let known = |i: &&&SassInst| {
            i.source.as_ref().is_some_and(|(_, line)| {
                *line < crate::llvm::line_tags::KERNEL_UNKNOWN_LINE
                    || *line > crate::llvm::line_tags::TAG_LINE_BASE
            })
        };
        let latch = own
            .iter()
            .filter(known)
            .filter(|i| {
                // The first instruction at or after the target is the
                // header (ptxas aligns headers with NOPs, which are dropped).
                i.branch_target().is_some_and(|t| {
                    let k = c.sass.partition_point(|j| j.addr < t);
                    c.sass.get(k).is_some_and(|j| j.addr == l.header)
                })
            })
            .filter_map(|i| i.source.as_ref())
            .max_by_key(|(_, line)| *line);
        let Some((file, line)) = latch.or_else(|| {
            own.iter()
                .filter(known)
                .filter_map(|i| i.source.as_ref())
                .min_by_key(|(_, l)| *l)
        }) else {
            continue;
        };
        let file = file.rsplit('/').next().unwrap_or(file);
        by.entry(format!("{file}:{line}"))
            .or_default()
            .push(own.len());
    }
    for sizes in by.values_mut() {
        sizes.sort_unstable_by(|a, b| b.cmp(a));
    }
    by
}

/// [`LoopDrift`] of every place whose loops differ (line-tagged builds).
/// Places with loops in one build only are paired in source order where
/// both builds have as many: kperf's latch rewrite moves a back edge to
/// the next line (134 → 135), and one loop read as "88 → no loop" and
/// "no loop → 58" instead of 88 → 58.
fn loop_drift(v: &Variants) -> Vec<LoopDrift> {
    let (plain, inst) = (loops_by_place(&v.plain), loops_by_place(&v.instrumented));
    let places: BTreeSet<&String> = plain.keys().chain(inst.keys()).collect();
    let plain_only: Vec<&String> = plain.keys().filter(|k| !inst.contains_key(*k)).collect();
    let inst_only: Vec<&String> = inst.keys().filter(|k| !plain.contains_key(*k)).collect();
    let paired = plain_only.len() == inst_only.len();
    let mut out: Vec<LoopDrift> = places
        .into_iter()
        .filter(|at| !paired || (plain.contains_key(*at) && inst.contains_key(*at)))
        .filter_map(|at| {
            let (p, i) = (
                plain.get(at).cloned().unwrap_or_default(),
                inst.get(at).cloned().unwrap_or_default(),
            );
            (p != i).then(|| LoopDrift {
                at: at.clone(),
                plain: p,
                instrumented: i,
            })
        })
        .collect();
    if paired {
        // BTreeMap keys sort as text: by line number instead.
        let line = |k: &&String| {
            k.rsplit(':')
                .next()
                .and_then(|l| l.parse::<u64>().ok())
                .unwrap_or(u64::MAX)
        };
        let (mut p_only, mut i_only) = (plain_only, inst_only);
        p_only.sort_by_key(line);
        i_only.sort_by_key(line);
        for (p, i) in p_only.into_iter().zip(i_only) {
            if plain[p] != inst[i] {
                out.push(LoopDrift {
                    at: format!("{p} (instrumented: {})", i.rsplit(':').next().unwrap_or(i)),
                    plain: plain[p].clone(),
                    instrumented: inst[i].clone(),
                });
            }
        }
    }
    out
}

/// A residual smaller than this is rounding of fractional per-record costs.
const RESIDUAL_EPSILON: f64 = 0.5;

/// In-line SASS the line table attributes to init and finalize, when the
/// build is line-tagged: the fixed cost as ptxas laid it out in this
/// kernel, free of whatever the records changed around them (which the
/// difference of counts would include).
fn init_and_finalize(c: &Compiled) -> Option<usize> {
    use crate::llvm::line_tags::{TAG_LINE_FINALIZE, TAG_LINE_INIT};
    let in_line = c.in_line();
    in_line.iter().any(|i| i.source.is_some()).then(|| {
        in_line
            .iter()
            .filter(|i| {
                i.source.as_ref().is_some_and(|(f, l)| {
                    *l == TAG_LINE_INIT
                        || *l == TAG_LINE_FINALIZE
                        || MLIR_FIXED_TEMPLATES.iter().any(|t| f.ends_with(t))
                })
            })
            .count()
    })
}

/// Per family, the moves of a non-zero immediate the line table puts at
/// [`crate::llvm::line_tags::KERNEL_UNKNOWN_LINE`].
fn location_less_constants(sass: &[SassInst]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for (k, i) in sass.iter().enumerate() {
        if uniform_read_by_kperf_alone(sass, k) {
            continue;
        }
        let unknown = i
            .source
            .as_ref()
            .is_some_and(|(_, l)| *l == crate::llvm::line_tags::KERNEL_UNKNOWN_LINE);
        if !unknown || i.work() != "MOV" {
            continue;
        }
        // Sources after the destination: immediates and zero registers only.
        let sources: Vec<&str> = i.operands().split(',').skip(1).map(str::trim).collect();
        let zero = |o: &str| matches!(o, "RZ" | "URZ" | "0x0" | "0");
        let immediate = |o: &str| o.starts_with("0x") || o.parse::<f64>().is_ok();
        // Not zeroes: the kernel's accumulators are zeroed (and ptxas
        // splits a plain CS2R pair into moves beside kperf's clock reads).
        let constant =
            sources.iter().all(|o| zero(o) || immediate(o)) && sources.iter().any(|o| !zero(o));
        if constant {
            *out.entry(i.work().to_string()).or_default() += 1;
        }
    }
    out
}

/// Location-less moves of a constant into a uniform register that only
/// kperf's instructions read (up to the register's next write, in
/// address order): kperf's ring counter starting at 0 in a loop, `UMOV
/// UR4, URZ`, which [`crate::sass_dataflow`] does not follow through
/// uniform registers.
fn location_less_uniform_for_kperf(sass: &[SassInst]) -> usize {
    (0..sass.len())
        .filter(|&k| uniform_read_by_kperf_alone(sass, k))
        .count()
}

/// Whether `sass[k]` is a location-less `UMOV URn, <constant>` whose
/// readers, up to URn's next write, are kperf's, one at least.
fn uniform_read_by_kperf_alone(sass: &[SassInst], k: usize) -> bool {
    let i = &sass[k];
    let unknown = i
        .source
        .as_ref()
        .is_some_and(|(_, l)| *l == crate::llvm::line_tags::KERNEL_UNKNOWN_LINE);
    if !unknown || i.family() != "UMOV" {
        return false;
    }
    let mut parts = i.operands().split(',').map(str::trim);
    let Some(dest) = parts.next().filter(|d| d.starts_with("UR") && *d != "URZ") else {
        return false;
    };
    if !parts.all(|o| matches!(o, "URZ" | "RZ") || o.starts_with("0x") || o.parse::<f64>().is_ok())
    {
        return false;
    }
    // `UR4` as a whole operand token, not `UR45`.
    let names = |text: &str| {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|t| t == dest)
    };
    let mut readers = 0;
    for j in &sass[k + 1..] {
        let ops = j.operands();
        let (first, rest) = ops.split_once(',').unwrap_or((ops, ""));
        let writes = first.trim() == dest && j.family().starts_with('U');
        if names(rest) || (!writes && names(first)) {
            if !is_kperf(j) {
                return false;
            }
            readers += 1;
        }
        if writes {
            break;
        }
    }
    readers > 0
}

/// Is this instruction kperf's, by the line table? Tag lines are unique
/// to kperf's code whatever file ptxas names with them.
fn is_kperf(i: &SassInst) -> bool {
    i.source.as_ref().is_some_and(|(f, line)| {
        f == crate::llvm::line_tags::TAG_FILE
            || *line >= crate::llvm::line_tags::TAG_LINE_BASE
            || f.contains(MLIR_TEMPLATE_FILE)
    })
}

/// The file kperf's ops on the MLIR path are located in: the template each
/// was parsed from (`<kperf template init>`, `<kperf template finalize>`,
/// `<kperf template store>`; matched anywhere in the name, in case a tool
/// prefixes it with a directory).
const MLIR_TEMPLATE_FILE: &str = "<kperf template";

/// The MLIR path's templates of init and finalize (the fixed cost).
const MLIR_FIXED_TEMPLATES: [&str; 3] = [
    "<kperf template locals>",
    "<kperf template init>",
    "<kperf template finalize>",
];

/// What is kperf's in the instrumented kernel, per family: by line tags
/// when the build has them, else the model.
struct Ownership {
    by_family: BTreeMap<String, f64>,
    /// Of those, per family, what the line table gives the kernel and
    /// only kperf's code reads ([`crate::sass_dataflow`]).
    by_readers: BTreeMap<String, f64>,
    /// The hollow reference's fixed cost (init + finalize).
    fixed_reference: f64,
    method: FidelityMethod,
}

fn instrumentation_by_family(
    v: &Variants,
    per_record: &BTreeMap<String, f64>,
    records: i64,
) -> Ownership {
    let (hp, hk) = (v.hollow_plain.by_work(), v.hollow_kernel.by_work());
    let get = |m: &BTreeMap<String, i64>, f: &str| m.get(f).copied().unwrap_or(0) as f64;
    let per = |f: &str| per_record.get(f).copied().unwrap_or(0.0);
    let mut fixed_ref = 0.0;
    let mut model: BTreeMap<String, f64> = BTreeMap::new();
    for f in hp.keys().chain(hk.keys()).chain(per_record.keys()) {
        if model.contains_key(f) {
            continue;
        }
        // The hollow kernel holds the kernel region's two records.
        let fixed = get(&hk, f) - get(&hp, f) - 2.0 * per(f);
        fixed_ref += fixed;
        model.insert(f.clone(), fixed + records as f64 * per(f));
    }
    // A line-tagged build has a line table, whether or not kperf put any
    // code in this kernel (a mode that matched nothing leaves it as it was).
    let in_line = v.instrumented.in_line();
    if !in_line.iter().any(|i| i.source.is_some()) {
        return Ownership {
            by_family: model,
            by_readers: BTreeMap::new(),
            fixed_reference: fixed_ref,
            method: FidelityMethod::Counts,
        };
    }
    // Work kperf's code can be made of: what init, finalize and records
    // compile to in the hollow kernel, the ring-index arithmetic of a
    // record in a loop, and the bound of finalize's copy loop,
    // min(written, slots), which the hollow kernel (two records, a
    // constant count) folds away. A tag on anything else (an HGMMA next
    // to a record) is ptxas attributing the kernel's instruction to a
    // neighbour's line.
    let emits = |f: &str| {
        get(&hk, f) > get(&hp, f)
            || per(f) > 0.0
            || matches!(
                f,
                "IADD3" | "LOP3" | "LEA" | "SHF" | "IMAD" | "MOV" | "SEL" | "VIMNMX" | "IMNMX"
            )
    };
    // kperf's by its line, or by its readers: integer work the line table
    // gives the kernel but that only kperf's code reads (its ring counter
    // as LLVM's loop strength reduction rewrote it, crate::sass_dataflow).
    let owned = crate::sass_dataflow::serves_kperf_alone(&v.instrumented.sass, |i| {
        is_kperf(i) && emits(i.work())
    });
    let mut tagged: BTreeMap<String, f64> = BTreeMap::new();
    let mut by_readers: BTreeMap<String, f64> = BTreeMap::new();
    for (i, _) in in_line
        .iter()
        .zip(&owned)
        .filter(|(i, owned)| **owned && emits(i.work()))
    {
        *tagged.entry(i.work().to_string()).or_default() += 1.0;
        if !is_kperf(i) {
            *by_readers.entry(i.work().to_string()).or_default() += 1.0;
        }
    }
    // Non-zero constants LLVM's code generator made without a location
    // (line_tags::name_line_zero gives them the kernel): the kernel's are
    // in the plain build too, so those the instrumented build has beyond
    // it are kperf's (its ring counter's start, `UMOV UR4, 0x2`, which no
    // dataflow through uniform registers claims). Zeroes are left out:
    // the kernel's accumulators are zeroed, by a CS2R pair in the plain
    // build and by moves beside kperf's clock reads.
    let (unknown_i, unknown_p) = (
        location_less_constants(in_line),
        location_less_constants(v.plain.in_line()),
    );
    for (f, n) in &unknown_i {
        let extra = n.saturating_sub(unknown_p.get(f).copied().unwrap_or(0));
        if extra > 0 && emits(f) {
            *tagged.entry(f.clone()).or_default() += extra as f64;
        }
    }
    let uniform = location_less_uniform_for_kperf(in_line);
    if uniform > 0 && emits("MOV") {
        *tagged.entry("MOV".into()).or_default() += uniform as f64;
    }
    Ownership {
        by_family: tagged,
        by_readers,
        fixed_reference: fixed_ref,
        method: FidelityMethod::LineTags,
    }
}

/// Proxy fences ptxas may have put in for kperf's shared stores alone:
/// before an mbarrier init or an async-proxy operation, ptxas orders the
/// generic shared stores before it with a `FENCE.VIEW.ASYNC.S`; a fence
/// where every shared store since the previous fence (or the function's
/// start) is kperf's (the init stamp, a START record) is a candidate. Only
/// a line-tagged build tells whose a store is.
fn induced_proxy_fences(sass: &[SassInst]) -> usize {
    let (mut induced, mut kperf_sts, mut kernel_sts) = (0, false, false);
    for i in sass {
        match i.family() {
            "STS" if is_kperf(i) => kperf_sts = true,
            "STS" => kernel_sts = true,
            "FENCE" if i.opcode.starts_with("FENCE.VIEW.ASYNC") => {
                if kperf_sts && !kernel_sts {
                    induced += 1;
                }
                (kperf_sts, kernel_sts) = (false, false);
            }
            _ => {}
        }
    }
    induced
}

/// Reconvergence ptxas puts in for kperf's code alone: a `BSSY`/`BSYNC`
/// pair (a warp that diverged waits for its other threads at the `BSYNC`)
/// is kperf's where everything it encloses is kperf's (finalize's
/// per-unit copy, which only each unit's leader runs), or where everything
/// after its `BSYNC` up to the exit is (the kernel's END record and
/// finalize after the join of the kernel's own `if`, where the plain
/// kernel's threads just exit). Branches, exits and the barrier
/// instructions themselves are nobody's: ptxas tags them as it likes.
/// Only a line-tagged build tells whose an instruction is.
fn induced_reconvergence(sass: &[SassInst]) -> usize {
    let neutral = |i: &SassInst| i.family() == "EXIT" || nobodys_control(i);
    let all_kperf = |part: &[SassInst]| {
        let mut owned = part.iter().filter(|i| !neutral(i)).peekable();
        owned.peek().is_some() && owned.all(is_kperf)
    };
    let barrier = |i: &SassInst| {
        i.text
            .split_whitespace()
            .skip_while(|w| !w.starts_with("BSSY") && !w.starts_with("BSYNC"))
            .nth(1)
            .map(|b| b.trim_end_matches([',', ';']).to_string())
    };
    let mut induced = 0;
    for (at, open) in sass
        .iter()
        .enumerate()
        .filter(|(_, i)| i.family() == "BSSY")
    {
        let name = barrier(open);
        let Some(close) = sass[at + 1..]
            .iter()
            .position(|i| i.family() == "BSYNC" && barrier(i) == name)
            .map(|k| at + 1 + k)
        else {
            continue;
        };
        let tail_end = sass[close + 1..]
            .iter()
            .position(|i| i.family() == "EXIT" && !i.predicated)
            .map_or(sass.len(), |k| close + 1 + k);
        if all_kperf(&sass[at + 1..close]) || all_kperf(&sass[close + 1..tail_end]) {
            induced += 1;
        }
    }
    induced
}

/// Control flow ptxas tags as it likes (branches, reconvergence, NOPs), or
/// an instruction without a line: nobody's in particular.
fn nobodys_control(i: &SassInst) -> bool {
    matches!(
        i.family(),
        "BRA" | "NOP" | "BSSY" | "BSYNC" | "WARPSYNC" | "BMOV"
    ) || i.source.is_none()
}

/// The kernel's branches (line tags) that land on kperf's code: the first
/// instruction at the target that is not control flow is kperf's (its END
/// record, finalize). What the kernel's exits became.
fn branches_into_kperf(sass: &[SassInst]) -> i64 {
    sass.iter()
        .filter(|b| b.family() == "BRA" && !is_kperf(b))
        .filter_map(|b| {
            let target = b.branch_target()?;
            let at = sass.iter().position(|i| i.addr == target)?;
            sass[at..].iter().find(|i| !nobodys_control(i))
        })
        .filter(|first| is_kperf(first))
        .count() as i64
}

/// WARPSYNCs directly before a block barrier (`BAR`), NOPs aside.
fn warpsyncs_before_barriers(sass: &[SassInst]) -> i64 {
    let code: Vec<&SassInst> = sass.iter().filter(|i| i.family() != "NOP").collect();
    code.windows(2)
        .filter(|w| w[0].family() == "WARPSYNC" && w[1].family() == "BAR")
        .count() as i64
}

/// `CS2R Rd, SRZ`: one instruction that zeroes a register pair. ptxas
/// zeroes a pair this way only where it may schedule a CS2R freely; it
/// keeps CS2R in program order with the clock reads, which are CS2R as
/// well, and after one of kperf's it zeroes the same registers with a move
/// each (Triton's int8 matmul, async regions: its 64-register accumulator,
/// 32 CS2R plain; instrumented, a zero put in one register and copied to
/// 63 others). Counted whoever's line they carry, so that one of the
/// kernel's that ptxas tags as kperf's is not also counted as lost.
fn zeroed_pairs(sass: &[SassInst]) -> i64 {
    sass.iter()
        .filter(|i| i.family() == "CS2R" && i.is_move())
        .count() as i64
}

/// The kernel's single-register moves that certainly write zero: from
/// `RZ`, `URZ` or an immediate 0, or from a register such a move zeroed
/// earlier in the same straight-line stretch (a branch target forgets
/// everything; any other write to a register forgets it). Only a
/// line-tagged build tells whose a move is.
fn zeroing_moves(sass: &[SassInst]) -> i64 {
    let succs = crate::sass_loops::instruction_successors(sass);
    let mut joins = vec![false; sass.len()];
    for (k, ss) in succs.iter().enumerate() {
        for &t in ss {
            if t != k + 1 {
                joins[t] = true;
            }
        }
    }
    let mut zero: HashSet<String> = HashSet::new();
    let mut count = 0;
    for (k, i) in sass.iter().enumerate() {
        if joins[k] {
            zero.clear();
        }
        let ops: Vec<&str> = i.operands().split(',').map(str::trim).collect();
        let dest = ops.first().copied().unwrap_or("");
        let source = ops.last().copied().unwrap_or("");
        let is_zero = |x: &str| {
            let x = x.trim_end_matches(".reuse");
            matches!(x, "RZ" | "URZ" | "0x0" | "0") || zero.contains(x)
        };
        let writes_zero = !i.predicated
            && i.is_move()
            && i.family() != "CS2R"
            && match i.family() {
                // `HFMA2[.MMA] Rd, -RZ, RZ, a, b`: the constant (a, b).
                "HFMA2" => ops.len() == 5 && ops[3] == "0" && ops[4] == "0",
                _ => is_zero(source),
            };
        if writes_zero && !is_kperf(i) && dest.starts_with('R') {
            count += 1;
        }
        if dest.starts_with('R') || dest.starts_with("UR") {
            if writes_zero {
                zero.insert(dest.to_string());
            } else {
                zero.remove(dest);
            }
        }
    }
    count
}

fn fidelity(v: &Variants, per_record: &BTreeMap<String, f64>, records: i64) -> (f64, Fidelity) {
    // In-line code only: what ptxas lays out after the last EXIT (a
    // diverged warp's fallback) is `out_of_line_added`.
    let plain = v.plain.in_line_by_work();
    let inst = v.instrumented.in_line_by_work();
    let Ownership {
        by_family: mut ours,
        by_readers,
        fixed_reference,
        method,
    } = instrumentation_by_family(v, per_record, records);
    let mut induced = Vec::new();
    if method == FidelityMethod::LineTags {
        // Candidates only explain fences the instrumented kernel has beyond
        // the plain one's (whose own fence may follow no store at all).
        let count = |m: &BTreeMap<String, i64>| m.get("FENCE").copied().unwrap_or(0);
        let extra = count(&inst) - count(&plain) - ours.get("FENCE").copied().unwrap_or(0.0) as i64;
        let fences = induced_proxy_fences(v.instrumented.in_line()).min(extra.max(0) as usize);
        if fences > 0 {
            *ours.entry("FENCE".into()).or_default() += fences as f64;
            induced.push(format!(
                "{fences} FENCE.VIEW.ASYNC.S: ptxas orders kperf's shared stores (init stamp, \
                 first records) before the kernel's first mbarrier init or async-proxy operation"
            ));
        }
        // Candidates only explain pairs beyond the plain kernel's.
        let extra = |ours: &BTreeMap<String, f64>, f: &str| {
            inst.get(f).copied().unwrap_or(0)
                - plain.get(f).copied().unwrap_or(0)
                - ours.get(f).copied().unwrap_or(0.0) as i64
        };
        // A BSSY and its BSYNC are one pair: where the line table gives
        // kperf one half and the kernel the other (the BSSY at kperf's END
        // after the kernel's `if (..) return;`, the BSYNC at the kernel's
        // join), the pair is kperf's, as far as the build has pairs beyond
        // the plain kernel's (a BSYNC was left over: 2.6% of a 38-SASS
        // kernel).
        let raw = |f: &str| inst.get(f).copied().unwrap_or(0) - plain.get(f).copied().unwrap_or(0);
        let owned = |ours: &BTreeMap<String, f64>, f: &str| ours.get(f).copied().unwrap_or(0.0);
        let halves = owned(&ours, "BSSY").max(owned(&ours, "BSYNC"));
        for f in ["BSSY", "BSYNC"] {
            let balanced = owned(&ours, f).max(halves.min(raw(f).max(0) as f64));
            ours.insert(f.into(), balanced);
        }
        let pairs = (induced_reconvergence(v.instrumented.in_line()) as i64)
            .min(extra(&ours, "BSSY"))
            .min(extra(&ours, "BSYNC"));
        if pairs > 0 {
            for f in ["BSSY", "BSYNC"] {
                *ours.entry(f.into()).or_default() += pairs as f64;
            }
            induced.push(format!(
                "{pairs} BSSY/BSYNC: ptxas reconverges the warp around or before kperf's code \
                 alone (finalize's per-unit copy; END and finalize after the kernel's own \
                 branch, where the plain kernel's threads just exit)"
            ));
        }
        // The kernel's exits, one finalize: where the plain kernel exits in
        // several places (`if (i >= n) return;`, or a return ptxas
        // duplicated into each path), the instrumented one branches from
        // each to kperf's END record and finalize, the only exit left.
        // Each EXIT the kernel lost for a BRA it gained is that branch.
        let lost_exits = -extra(&ours, "EXIT");
        let merged = lost_exits
            .min(extra(&ours, "BRA"))
            .min(branches_into_kperf(v.instrumented.in_line()));
        if merged > 0 {
            *ours.entry("BRA".into()).or_default() += merged as f64;
            *ours.entry("EXIT".into()).or_default() -= merged as f64;
            induced.push(format!(
                "{merged} BRA for EXIT: the kernel's exits branch to kperf's END record and \
                 finalize, the one exit left, where the plain kernel exits in place"
            ));
            // A thread that branches ahead to finalize, where it exited
            // before, leaves its warp diverged at the kernel's next
            // barrier, which ptxas then precedes with a WARPSYNC.
            let syncs = (warpsyncs_before_barriers(v.instrumented.in_line())
                - warpsyncs_before_barriers(v.plain.in_line()))
            .min(extra(&ours, "WARPSYNC"));
            if syncs > 0 {
                *ours.entry("WARPSYNC".into()).or_default() += syncs as f64;
                induced.push(format!(
                    "{syncs} WARPSYNC: threads that branch to finalize instead of exiting leave \
                     the warp diverged at the kernel's barrier"
                ));
            }
        }
        // Pairs the plain kernel zeroes with one CS2R and the instrumented
        // one does not, explained only as far as the instrumented kernel
        // has more single moves that certainly write zero (two per lost
        // pair: one beyond the pair's instruction), and more moves than
        // plain and kperf's.
        let lost_pairs = zeroed_pairs(v.plain.in_line()) - zeroed_pairs(v.instrumented.in_line());
        let kperfs_zeroing = by_readers.get("MOV").copied().unwrap_or(0.0) as i64;
        let more_zeroing = zeroing_moves(v.instrumented.in_line())
            - kperfs_zeroing
            - zeroing_moves(v.plain.in_line());
        let split = lost_pairs
            .min(more_zeroing - lost_pairs)
            .min(extra(&ours, "MOV"));
        if split > 0 {
            *ours.entry("MOV".into()).or_default() += split as f64;
            induced.push(format!(
                "{split} MOV: ptxas zeroes {lost_pairs} of the kernel's register pairs with a \
                 move per register where the plain kernel uses one `CS2R Rd, SRZ` a pair: it \
                 keeps every CS2R in order with kperf's clock reads (CS2R too)"
            ));
        }
    }
    let mut names: Vec<&String> = plain.keys().chain(inst.keys()).chain(ours.keys()).collect();
    names.sort();
    names.dedup();
    let mut families = Vec::new();
    let (mut unexplained, mut shared, mut guarded_changes) = (0.0, 0.0, Vec::new());
    for f in names {
        let (p, i) = (
            plain.get(f).copied().unwrap_or(0),
            inst.get(f).copied().unwrap_or(0),
        );
        let o = ours.get(f).copied().unwrap_or(0.0);
        let residual = i as f64 - p as f64 - o;
        let guarded = Guarded::of_family(f);
        let mut merged_here = 0.0;
        if residual.abs() >= RESIDUAL_EPSILON {
            // Fewer of the kernel's own, by at most what kperf has of the
            // same work: one instruction serving both (ptxas merged kperf's
            // thread-id read with the kernel's and attributed it to kperf).
            // Only what the line table gives kperf can be one instruction
            // serving both: what kperf has by its readers, nothing of the
            // kernel's reads.
            let tagged_o = o - by_readers.get(f).copied().unwrap_or(0.0);
            let merged = if method == FidelityMethod::LineTags && guarded.is_none() {
                (-residual).clamp(0.0, tagged_o.max(0.0))
            } else {
                0.0
            };
            shared += merged;
            unexplained += residual.abs() - merged;
            merged_here = merged;
            // Local memory guards against spills kperf causes: more of it
            // is a change to the kernel's memory traffic. Fewer (a plain
            // build that spilled one pair at 255 registers and an
            // instrumented one that does not) stays in the unexplained
            // share, which is held to its limit.
            let guards_this = match guarded {
                Some(Guarded::LocalMemory) => residual > 0.0,
                Some(_) => true,
                None => false,
            };
            if guards_this {
                guarded_changes.push(format!("{f} {p} → {i} (kperf's own: {o:.0})"));
            }
        }
        if p != i || o != 0.0 {
            families.push(FamilyDelta {
                family: f.clone(),
                guarded,
                plain: p,
                instrumented: i,
                instrumentation: o,
                residual,
                shared: merged_here,
            });
        }
    }
    let kernel_code = v.plain.in_line().len() + v.plain.called().len();
    let share = unexplained / (kernel_code.max(1) as f64);
    (
        fixed_reference,
        Fidelity {
            method,
            instrumentation: ours.values().sum(),
            families,
            unexplained,
            unexplained_share: share,
            shared_with_kernel: shared,
            guarded_changes,
            induced,
            by_readers,
            out_of_line_added: v.instrumented.out_of_line() as i64 - v.plain.out_of_line() as i64,
            loop_drift: if method == FidelityMethod::LineTags {
                loop_drift(v)
            } else {
                Vec::new()
            },
        },
    )
}

fn diff(a: &BTreeMap<InstClass, i64>, b: &BTreeMap<InstClass, i64>) -> BTreeMap<InstClass, i64> {
    InstClass::ALL
        .iter()
        .map(|c| {
            (
                *c,
                a.get(c).copied().unwrap_or(0) - b.get(c).copied().unwrap_or(0),
            )
        })
        .collect()
}

/// How well one region's own instructions stayed between its records
/// (line-tagged builds of LLVM IR).
#[derive(Clone, Debug, Serialize)]
pub struct RegionFidelity {
    pub region: String,
    /// The kernel's SASS instructions whose input instruction lies inside
    /// the region in the IR.
    pub own: usize,
    /// Of those, the ones ptxas scheduled between a START and an END clock
    /// read of the region (on a path from one to the other).
    pub inside: usize,
    /// inside / own (1 for a region that owns nothing).
    pub share: f64,
    /// Instructions of other code that ptxas scheduled between the
    /// region's records, by the region that owns them in the IR
    /// (`(outside any region)` for code no region holds).
    pub intruders: BTreeMap<String, usize>,
}

/// Region fidelity from the instrumented SASS: `lines` are the input lines
/// each region owns, `names` the regions' names by id.
pub fn region_fidelity(
    c: &Compiled,
    lines: &BTreeMap<u16, Vec<u32>>,
    names: &BTreeMap<u16, String>,
) -> Vec<RegionFidelity> {
    use crate::llvm::line_tags::record_of_tag_line;
    use kperf_dialects::abi::Edge;
    let sass = &c.sass;
    let succs = crate::sass_loops::instruction_successors(sass);
    let mut preds = vec![Vec::new(); sass.len()];
    for (k, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(k);
        }
    }
    // The record (region, edge) of each clock read kperf put there.
    let clock_of: Vec<Option<(u16, Edge)>> = sass
        .iter()
        .map(|i| {
            if i.class() != InstClass::ClockRead {
                return None;
            }
            let (_, line) = i.source.as_ref()?;
            record_of_tag_line(*line).map(|(r, e)| (r.0, e))
        })
        .collect();
    let line_of = |i: &SassInst| i.source.as_ref().map(|(_, l)| *l);
    let owners = |line: u32| -> Vec<u16> {
        lines
            .iter()
            .filter(|(_, ls)| ls.binary_search(&line).is_ok())
            .map(|(r, _)| *r)
            .collect()
    };
    let sorted: BTreeMap<u16, Vec<u32>> = lines
        .iter()
        .map(|(r, ls)| {
            let mut v = ls.clone();
            v.sort_unstable();
            v.dedup();
            (*r, v)
        })
        .collect();
    let lines = &sorted;
    // Reachable from `from` through `next` without passing `stop`.
    let reach = |from: &[usize], next: &[Vec<usize>], stop: &dyn Fn(usize) -> bool| {
        let mut seen = vec![false; sass.len()];
        let mut work: Vec<usize> = from.to_vec();
        for &k in from {
            seen[k] = true;
        }
        while let Some(k) = work.pop() {
            for &n in &next[k] {
                if !seen[n] && !stop(n) {
                    seen[n] = true;
                    work.push(n);
                }
            }
        }
        seen
    };
    let mut out = Vec::new();
    for (&r, own_lines) in lines {
        let edge_of = |k: usize, e: Edge| clock_of[k] == Some((r, e));
        let starts: Vec<usize> = (0..sass.len())
            .filter(|&k| edge_of(k, Edge::Start))
            .collect();
        let ends: Vec<usize> = (0..sass.len()).filter(|&k| edge_of(k, Edge::End)).collect();
        let after_start = reach(&starts, &succs, &|k| edge_of(k, Edge::End));
        let before_end = reach(&ends, &preds, &|k| edge_of(k, Edge::Start));
        let inside_at = |k: usize| after_start[k] && before_end[k];
        let (mut own, mut inside) = (0, 0);
        let mut intruders: BTreeMap<String, usize> = BTreeMap::new();
        for (k, i) in sass.iter().enumerate() {
            if is_kperf(i) {
                continue;
            }
            let Some(line) = line_of(i) else { continue };
            // The kernel's, of no known line (line_tags::name_line_zero):
            // no region's, and no intruder.
            if line == crate::llvm::line_tags::KERNEL_UNKNOWN_LINE {
                continue;
            }
            let mine = own_lines.binary_search(&line).is_ok();
            if mine {
                own += 1;
                inside += usize::from(inside_at(k));
            } else if inside_at(k) {
                // Owned by regions that do not enclose this one.
                let others: Vec<u16> = owners(line)
                    .into_iter()
                    .filter(|o| {
                        let theirs = &lines[o];
                        !own_lines.iter().all(|l| theirs.binary_search(l).is_ok())
                    })
                    .collect();
                let who = match others.last() {
                    Some(o) => names
                        .get(o)
                        .cloned()
                        .unwrap_or_else(|| format!("region {o}")),
                    None => "(outside any region)".to_string(),
                };
                *intruders.entry(who).or_default() += 1;
            }
        }
        out.push(RegionFidelity {
            region: names
                .get(&r)
                .cloned()
                .unwrap_or_else(|| format!("region {r}")),
            own,
            inside,
            share: if own == 0 {
                1.0
            } else {
                inside as f64 / own as f64
            },
            intruders,
        });
    }
    out
}

/// The compiles' results, put together, with the record stores each
/// has (counted in its PTX, so ptxas's scheduling does not blur them).
pub struct Variants {
    pub plain: Compiled,
    pub instrumented: Compiled,
    pub kernel_only: Compiled,
    pub probed: Compiled,
    pub probed_double: Compiled,
    pub records_instrumented: i64,
    pub records_kernel_only: i64,
    pub records_probed: i64,
    pub records_probed_double: i64,
    /// The same lowering in a kernel whose body is a bare return: plain,
    /// and with the kernel region (init, two records, finalize).
    pub hollow_plain: Compiled,
    pub hollow_kernel: Compiled,
    /// Per region id of the instrumented build: its name and the input
    /// lines it owns (line-tagged LLVM IR; empty otherwise).
    pub region_names: BTreeMap<u16, String>,
    pub region_lines: BTreeMap<u16, Vec<u32>>,
    /// Whether any requested region may sit in a loop (loops, iterations,
    /// async, calls, asm, ops, explicit markers).
    pub loop_regions_requested: bool,
    /// Threads per CTA, and the register cap of the instrumented build.
    pub threads: u32,
    pub max_registers: Option<u32>,
    /// Dynamic shared memory the kernel launches with (bytes; Triton's
    /// metadata `shared`), for CTAs per SM.
    pub dynamic_shared: u32,
    /// `InstrumentMeta::unrolled_as_plain` of the instrumented build.
    pub unrolled_as_plain: Vec<String>,
}

/// Record stores kperf's lowering put in kernel `function` of `ptx`: its
/// `st.shared/global.v2.b32` of {clock, tag} (predicated, or unpredicated
/// into a trash-ring scheme), less those of the same function in `plain`.
pub fn record_stores(ptx: &[u8], plain: &[u8], function: &str) -> i64 {
    // The clock64 form is one asm block `{ ...; st.shared.v2.b32 ...; }`.
    static STORE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = STORE.get_or_init(|| {
        regex::Regex::new(r"(?m)(?:^\s*|;\s*|@!?%p\d+\s+)st\.(?:shared|global)\.v2\.b32")
            .expect("regex")
    });
    let count = |b: &[u8]| {
        let text = String::from_utf8_lossy(b);
        ptx_function(&text, function).map_or(0, |f| re.find_iter(f).count() as i64)
    };
    count(ptx) - count(plain)
}

pub struct Labels<'a> {
    pub kernel: &'a str,
    pub arch: &'a str,
    pub counter: &'a str,
    pub granularity: &'a str,
    pub regions: &'a str,
}

/// kperf's own instructions of a probe build, by the line table, when it
/// has one: the kernel's code a probe build changes (ptxas reloading the
/// kernel's parameters under a register cap: ULDC 12 → 42) is no part of
/// what a record costs (a Triton split-K GEMM read 3.47 SASS per record,
/// 1.09 of them loads, where its records are 2.5). Without a line table,
/// the whole build.
fn probe_code(c: &Compiled, tagged: bool) -> Compiled {
    if !tagged {
        return c.clone();
    }
    Compiled {
        ptxas: c.ptxas.clone(),
        sass: c.sass.iter().filter(|i| is_kperf(i)).cloned().collect(),
    }
}

pub fn report(l: &Labels, v: &Variants) -> CostReport {
    let cls_plain = v.plain.by_class();
    let cls_inst = v.instrumented.by_class();
    let has_lines = |c: &Compiled| c.sass.iter().any(|i| i.source.is_some());
    let tagged = has_lines(&v.probed) && has_lines(&v.probed_double);
    let (probed, probed_double) = (
        probe_code(&v.probed, tagged),
        probe_code(&v.probed_double, tagged),
    );
    let cls_probe = probed.by_class();
    let cls_probe2 = probed_double.by_class();
    let n = (v.records_probed_double - v.records_probed).max(1) as f64;
    let per_record_by_class: BTreeMap<InstClass, f64> = diff(&cls_probe2, &cls_probe)
        .iter()
        .map(|(c, d)| (*c, *d as f64 / n))
        .collect();
    let per_record = (probed_double.count() as f64 - probed.count() as f64) / n;
    let out_of_line_added = v.kernel_only.out_of_line() as i64 - v.plain.out_of_line() as i64;
    let fixed = match init_and_finalize(&v.kernel_only) {
        Some(tagged) => tagged as f64,
        None => {
            v.kernel_only.count() as f64
                - v.plain.count() as f64
                - v.records_kernel_only as f64 * per_record
                - out_of_line_added as f64
        }
    };
    let loops = v.instrumented.loops();
    let with_records = loops
        .iter()
        .filter(|l| v.instrumented.clock_reads_in(l) > 0)
        .count();
    let spills = |p: &PtxasInfo| p.spill_bytes() as i64;
    let per_record_by_family: BTreeMap<String, f64> = {
        let (a, b) = (probed_double.by_work(), probed.by_work());
        a.keys()
            .chain(b.keys())
            .map(|f| {
                let d = a.get(f).copied().unwrap_or(0) - b.get(f).copied().unwrap_or(0);
                (f.clone(), d as f64 / n)
            })
            .filter(|(_, d)| *d != 0.0)
            .collect()
    };
    let (fixed_reference, fidelity) = fidelity(v, &per_record_by_family, v.records_instrumented);
    CostReport {
        kernel: l.kernel.to_string(),
        arch: l.arch.to_string(),
        counter: l.counter.to_string(),
        granularity: l.granularity.to_string(),
        regions: l.regions.to_string(),
        plain: v.plain.ptxas.clone(),
        instrumented: v.instrumented.ptxas.clone(),
        sass_plain: v.plain.count(),
        sass_instrumented: v.instrumented.count(),
        added_total: v.instrumented.count() as i64 - v.plain.count() as i64,
        added_by_class: diff(&cls_inst, &cls_plain),
        record_sites: v.records_instrumented,
        per_record,
        per_record_by_class,
        fixed,
        out_of_line_added,
        added_spill_bytes: spills(&v.instrumented.ptxas) - spills(&v.plain.ptxas),
        added_registers: v.instrumented.ptxas.registers as i64 - v.plain.ptxas.registers as i64,
        added_stack_bytes: v.instrumented.ptxas.stack_frame_bytes as i64
            - v.plain.ptxas.stack_frame_bytes as i64,
        added_shared_bytes: v.instrumented.ptxas.shared_bytes as i64
            - v.plain.ptxas.shared_bytes as i64,
        loops_plain: v.plain.loops().len(),
        loops_instrumented: loops.len(),
        loops_with_records: with_records,
        unexpected_loop_records: with_records > 0 && !v.loop_regions_requested,
        fixed_reference,
        calls_functions: v.plain.hollow_body() != crate::llvm::HollowBody::Empty,
        unrolled_as_plain: v.unrolled_as_plain.clone(),
        fidelity,
        region_fidelity: region_fidelity(&v.instrumented, &v.region_lines, &v.region_names),
        occupancy: {
            let sm = crate::registers::SmLimits::of(l.arch);
            let with_dynamic = |c: &Compiled| c.ptxas.shared_bytes.saturating_add(v.dynamic_shared);
            Occupancy {
                threads: v.threads,
                plain_ctas_per_sm: sm.ctas_per_sm_with_shared(
                    v.plain.ptxas.registers,
                    v.threads,
                    with_dynamic(&v.plain),
                ),
                instrumented_ctas_per_sm: sm.ctas_per_sm_with_shared(
                    v.instrumented.ptxas.registers,
                    v.threads,
                    with_dynamic(&v.instrumented),
                ),
                max_registers: v.max_registers,
            }
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// SASS written one instruction per line (`@!P0 BRA 0x40`), 16 bytes
    /// apart, line `n` from the source `source(n)` gives.
    pub(crate) fn sass_lines(
        text: &str,
        source: impl Fn(usize) -> Option<(String, u32)>,
    ) -> Vec<SassInst> {
        text.lines()
            .enumerate()
            .map(|(n, t)| {
                let predicated = t.starts_with('@');
                let words: Vec<&str> = t.split_whitespace().collect();
                SassInst {
                    addr: 16 * n as u64,
                    predicated,
                    opcode: words
                        .get(usize::from(predicated))
                        .unwrap_or(&"")
                        .to_string(),
                    text: t.to_string(),
                    source: source(n),
                }
            })
            .collect()
    }

    /// SASS written as above, each line marked by whose it is: `k`
    /// kperf's (its tag file), `u` the kernel's, `-` no line at all.
    pub(crate) fn marked_sass(text: &str) -> Vec<SassInst> {
        let (who, lines): (Vec<&str>, Vec<&str>) =
            text.lines().filter_map(|l| l.split_once(' ')).unzip();
        sass_lines(&lines.join("\n"), |n| match who[n] {
            "k" => Some((crate::llvm::line_tags::TAG_FILE.to_string(), 1)),
            "u" => Some(("<kernel>".to_string(), 7)),
            _ => None,
        })
    }

    const SASS: &str = r#"
	code for sm_90a
		Function : k
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
        /*0010*/                   CS2R.32 R2, SR_CLOCKLO ;               /* 0x0000000000027805 */
        /*0020*/                   MOV R3, 0x10000 ;                      /* 0x0001000000037802 */
        /*0030*/               @P0 STS.64 [UR4+0x8], R2 ;                 /* 0x000008020400098d */
        /*0040*/              @!P1 BRA 0x10 ;                             /* 0x0000000000049947 */
        /*0050*/                   NOP ;                                  /* 0x0000000000007918 */
        /*0060*/                   EXIT ;                                 /* 0x000000000000794d */
        /*0070*/                   BRA 0x70;                              /* 0x000000000000794d */
		Function : other
        /*0000*/                   EXIT ;                                 /* 0x000000000000794d */
"#;

    #[test]
    fn moves_are_told_apart_from_index_arithmetic() {
        let cases = [
            ("@P6 IMAD.MOV.U32 R5, RZ, RZ, 0x10000", InstClass::Move),
            ("IMAD.U32 R10, RZ, RZ, UR6", InstClass::Move),
            ("MOV R2, 0x400", InstClass::Move),
            ("UMOV UR4, 0x400", InstClass::Move),
            ("R2UR UR4, R0", InstClass::Move),
            ("CS2R R14, SRZ", InstClass::Move),
            ("HFMA2.MMA R11, -RZ, RZ, 0, 0", InstClass::Move),
            ("HFMA2.MMA R5, -RZ, RZ, 0, 1.5e-05", InstClass::Move),
            ("IMAD.X R5, RZ, RZ, R3, P0", InstClass::IndexArith),
            ("IMAD.HI.U32 R4, RZ, RZ, R3", InstClass::IndexArith),
            ("IMAD.WIDE.U32 R26, R3, 0x10, R24", InstClass::IndexArith),
            ("IMAD.SHL.U32 R9, R2, 0x4, RZ", InstClass::IndexArith),
            ("LEA R0, R3, UR7, 0x4", InstClass::IndexArith),
            ("S2R R3, SR_TID.X", InstClass::IndexArith),
            ("CS2R R20, SR_GLOBALTIMERLO", InstClass::ClockRead),
            ("HFMA2 R3, R1, R2, R3", InstClass::Other),
        ];
        for (text, want) in cases {
            assert_eq!(sass_lines(text, |_| None)[0].class(), want, "{text}");
        }
    }

    /// SASS → the work it is compared as: equivalent forms ptxas chooses
    /// between freely are one kind of work.
    #[test]
    fn equivalent_forms_are_one_kind_of_work() {
        let cases = [
            ("LEA R0, R5, R0, 0xa", "LEA"),
            ("IMAD R0, R24, 0x400, R3", "LEA"),
            ("IMAD.U32 R0, R24, 0x8, R3", "LEA"),
            ("IMAD R0, R24, 0x3, R3", "IMAD"),
            ("IMAD R0, R24, 0x1, R3", "IMAD"),
            ("IMAD R0, R24, 0x4, RZ", "SHF"),
            ("IMAD.U32 R56, R3, 0x10000, RZ", "SHF"),
            ("IMAD R0, RZ, 0x4, R3", "IMAD"),
            ("IMAD R0, R24, R2, R3", "IMAD"),
            ("IMAD.WIDE R2, R0, 0x4, R2", "IMAD"),
            ("IMAD.SHL.U32 R9, R2, 0x4, RZ", "SHF"),
            ("IMAD.IADD R3, R14, 0x1, R15", "IADD3"),
            ("VIADD R9, R5, 0x80", "IADD3"),
            ("UIADD3 UR4, UR8, 0x28a0, URZ", "IADD3"),
            ("IMAD.MOV.U32 R9, RZ, RZ, 0x10000", "MOV"),
        ];
        for (text, want) in cases {
            assert_eq!(sass_lines(text, |_| None)[0].work(), want, "{text}");
        }
    }

    /// SASS (one instruction per line) → the hollow reference's shape.
    #[test]
    fn the_hollow_reference_takes_the_kernels_call_shape() {
        use crate::llvm::HollowBody;
        let cases = [
            (
                "LDC R1, c[0x0][0x28]\nSTG.E desc[UR4][R2.64], R0\nEXIT",
                HollowBody::Empty,
            ),
            (
                "S2R R16, SR_TID.X\nCALL.ABS.NOINC R2\nSTG.E desc[UR4][R2.64], R0\nEXIT",
                HollowBody::Call,
            ),
            (
                "STG.E desc[UR36][R2.64], RZ\nCALL.ABS.NOINC R8\nEXIT",
                HollowBody::GlobalThenCall,
            ),
            (
                "LDG.E R0, desc[UR36][R2.64]\nCALL.REL.NOINC `($k$f)\nEXIT",
                HollowBody::GlobalThenCall,
            ),
        ];
        for (text, want) in cases {
            let c = Compiled {
                ptxas: PtxasInfo::default(),
                sass: sass_lines(text, |_| None),
            };
            assert_eq!(c.hollow_body(), want, "{text}");
        }
    }

    /// SASS (one instruction per line, 16 bytes each) → how many are
    /// in-line.
    #[test]
    fn cold_blocks_after_the_main_flow_are_not_in_line() {
        let cases = [
            // An unpredicated EXIT ends the main flow.
            ("S2R\n@P0 BRA 0x40\nEXIT\nSYNCS\nBRA 0x10\nBRA 0x50", 3),
            // Predicated exits in a loop; a retry loop laid out after the
            // loop's back branch, branching back to the main flow.
            ("SYNCS\n@!P0 BRA 0x50\n@P0 EXIT\nNOP\nBRA 0x20\nSYNCS\n@!P0 BRA 0x50\nBRA 0x20\nBRA 0x80", 5),
            // A block after the back branch that falls into nothing cold:
            // its branch goes forward, so it stays in-line.
            ("SYNCS\n@P0 EXIT\nBRA 0x0\nSYNCS\nBRA 0x50\nBRA 0x50", 5),
            // A loop's body laid out after an unconditional jump into it,
            // ending in the back branch: main flow, not a cold block.
            ("S2R\n@!P0 EXIT\nBRA 0x50\nNOP\nNOP\nHGMMA\n@!P0 EXIT\nBRA 0x10\nBRA 0x80", 8),
        ];
        for (text, want) in cases {
            let c = Compiled {
                ptxas: PtxasInfo::default(),
                sass: sass_lines(text, |_| None),
            };
            assert_eq!(c.in_line().len(), want, "{text}");
        }
    }

    /// (SASS, one instruction per line with `k` marking kperf's lines and
    /// `u` the kernel's, pairs induced by kperf's code).
    #[test]
    fn reconvergence_for_kperfs_code_alone_is_kperfs() {
        let cases = [
            // Finalize's leader copy: all enclosed code is kperf's.
            ("u STG\n- BSSY B0, 0x60\n- @P1 BRA 0x50\nk LDS.128\nk STG.E.128\n- BSYNC B0\nk CS2R\n- EXIT", 1),
            // The kernel's branch, then only kperf's code after the join.
            ("- BSSY B1, 0x40\nu LDG\nu STG\n- BSYNC B1\nk CS2R.32\nk STS.64\n- @P0 EXIT\nk STG.E.128\n- EXIT", 1),
            // The kernel's branch with the kernel's code after the join.
            ("- BSSY B0, 0x40\nu LDG\n- BSYNC B0\nu STG\nk STS.64\n- EXIT", 0),
            // Nothing tagged inside or after: no evidence.
            ("- BSSY B0, 0x30\n- BRA 0x30\n- BSYNC B0\n- EXIT", 0),
        ];
        for (text, want) in cases {
            assert_eq!(induced_reconvergence(&marked_sass(text)), want, "{text}");
        }
    }

    /// (SASS with `k`/`u` marks as above) → (pair zeroings, whoever's;
    /// the kernel's single moves that certainly write zero).
    #[test]
    fn zeroings_are_counted() {
        let cases = [
            ("u CS2R R24, SRZ\nu CS2R R26, SRZ\nu MOV R28, RZ", (2, 1)),
            ("k CS2R R8, SRZ\nu CS2R R10, SR_GLOBALTIMERLO", (1, 0)),
            // A zero put in a register through a uniform one and copied;
            // kperf's own zero and a copy of an unknown register are not
            // counted.
            (
                "u UMOV UR4, URZ\nu IMAD.U32 R24, RZ, RZ, UR4\nu MOV R25, R24\nu IMAD.MOV.U32 R26, RZ, RZ, R24.reuse\nk IMAD.MOV.U32 R17, RZ, RZ, RZ\nu MOV R27, R9\nu HFMA2.MMA R28, -RZ, RZ, 0, 0",
                (0, 4),
            ),
            // A branch target forgets what was zero; a write forgets it too.
            ("u MOV R24, RZ\nu @P0 BRA 0x30\nu IADD3 R1, R1, 0x1, RZ\nu MOV R25, R24\nu EXIT", (0, 1)),
            ("u MOV R24, RZ\nu IADD3 R24, R1, 0x1, RZ\nu MOV R25, R24", (0, 1)),
        ];
        for (text, want) in cases {
            let sass = marked_sass(text);
            assert_eq!((zeroed_pairs(&sass), zeroing_moves(&sass)), want, "{text}");
        }
    }

    #[test]
    fn sass_is_parsed_and_classified() {
        let s = parse_sass(SASS, Some("k"));
        let got: Vec<(u64, bool, &str, InstClass)> = s
            .iter()
            .map(|i| (i.addr, i.predicated, i.opcode.as_str(), i.class()))
            .collect();
        assert_eq!(
            got,
            vec![
                (0x00, false, "LDC", InstClass::Load),
                (0x10, false, "CS2R.32", InstClass::ClockRead),
                (0x20, false, "MOV", InstClass::Move),
                (0x30, true, "STS.64", InstClass::Store),
                (0x40, true, "BRA", InstClass::Control),
                (0x60, false, "EXIT", InstClass::Control),
                (0x70, false, "BRA", InstClass::Control),
            ]
        );
        let c = Compiled {
            ptxas: PtxasInfo::default(),
            sass: s,
        };
        let loops = c.loops();
        assert_eq!(loops.len(), 1);
        assert_eq!(loops[0].header, 0x10);
        assert_eq!(c.clock_reads_in(&loops[0]), 1);
        assert_eq!(c.out_of_line(), 0);
    }

    /// Kernel `k` of a `cuobjdump -sass` listing, without ptxas figures.
    fn kernel_k(dump: &str) -> Compiled {
        Compiled {
            ptxas: PtxasInfo::default(),
            sass: parse_sass(dump, Some("k")),
        }
    }

    #[test]
    fn code_after_the_last_exit_is_out_of_line() {
        let dump = r#"
		Function : k
        /*0000*/               @P0 EXIT ;
        /*0010*/                   BRA.DIV UR4, 0x60 ;
        /*0020*/                   SHFL.DOWN PT, R5, R4, 0x10, 0x1f ;
        /*0030*/                   EXIT ;
        /*0040*/                   WARPSYNC.COLLECTIVE R11, 0x50 ;
        /*0050*/                   SHFL.DOWN P3, R9, R4, R14, R15 ;
        /*0060*/                   BRA 0x20 ;
"#;
        let c = kernel_k(dump);
        assert_eq!(c.count(), 7);
        assert_eq!(c.out_of_line(), 3);
    }

    /// A `noinline` device function is laid out after the kernel's EXIT,
    /// from the CALL's target to its RET: kernel code, not out of line
    /// (its changes were hidden there; found by an adversarial pass,
    /// 2026-11-27). A fallback block after it stays out of line.
    #[test]
    fn called_device_functions_are_kernel_code() {
        let dump = r#"
		Function : k
        /*0000*/                   MOV R4, R2 ;
        /*0010*/                   CALL.REL.NOINC 0x40 ;
        /*0020*/                   EXIT ;
        /*0030*/                   BRA 0x30 ;
        /*0040*/                   FFMA R4, R4, R4, R4 ;
        /*0050*/               @P0 BRA 0x40 ;
        /*0060*/                   RET.REL.NODEC R20 0x0 ;
        /*0070*/                   WARPSYNC.COLLECTIVE R11, 0x50 ;
        /*0080*/                   BRA 0x20 ;
"#;
        let c = kernel_k(dump);
        let called: Vec<&str> = c.called().iter().map(|i| i.opcode.as_str()).collect();
        assert_eq!(called, ["FFMA", "BRA", "RET.REL.NODEC"]);
        assert_eq!(c.out_of_line(), 2);
        assert_eq!(c.in_line_by_work().get("FFMA"), Some(&1));
    }

    /// The kernel's own instructions (not kperf's, by the line table)
    /// against the plain build's, kind of work by kind of work: the free
    /// build of Triton's add kernel recomputes an offset from a second
    /// thread-id read (S2R, SHF, LOP3, IMAD) where the plain one keeps it.
    #[test]
    fn kernel_drift_counts_the_kernels_own_changes_only() {
        let sass = |dump: &str| parse_sass(dump, Some("k"));
        let plain = Compiled {
            ptxas: PtxasInfo::default(),
            sass: sass(
                r#"
		Function : k
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   SHF.L.U32 R0, R0, 0x2, RZ ;
        /*0020*/                   LOP3.LUT R0, R0, 0x1fc, RZ, 0xc0, !PT ;
        /*0030*/                   IMAD.WIDE R2, R0, 0x4, R2 ;
        /*0040*/                   EXIT ;
"#,
            ),
        };
        let mut inst = Compiled {
            ptxas: PtxasInfo::default(),
            sass: sass(
                r#"
		Function : k
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   CS2R.32 R20, SR_CLOCKLO ;
        /*0020*/                   IMAD.SHL.U32 R0, R0, 0x4, RZ ;
        /*0030*/                   LOP3.LUT R0, R0, 0x1fc, RZ, 0xc0, !PT ;
        /*0040*/                   S2R R3, SR_TID.X ;
        /*0050*/                   IMAD.SHL.U32 R21, R3, 0x4, RZ ;
        /*0060*/                   LOP3.LUT R21, R21, 0x1fc, RZ, 0xc0, !PT ;
        /*0070*/                   IMAD.WIDE R2, R21, 0x4, R2 ;
        /*0080*/                   STS.64 [R0], R20 ;
        /*0090*/                   EXIT ;
"#,
            ),
        };
        let tag = |line: u32| Some(("<kperf>".to_string(), line));
        let kernel_line = Some(("kernel.py".to_string(), 7));
        for i in &mut inst.sass {
            i.source = match i.addr {
                0x10 | 0x80 => tag(crate::llvm::line_tags::TAG_LINE_BASE + 3),
                _ => kernel_line.clone(),
            };
        }
        // S2R +1, SHF +1, LOP3 +1: the clock read and the store are kperf's.
        assert_eq!(kernel_drift(&plain, &inst), 3);
        assert_eq!(kernel_drift(&plain, &plain), 0);
    }

    #[test]
    fn ptxas_figures_are_read() {
        let log = "ptxas info    : Function properties for k\n    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\nptxas info    : Used 154 registers, used 1 barriers, 8224 bytes smem, 368 bytes cmem[0]\n";
        assert_eq!(
            parse_ptxas(log, None),
            PtxasInfo {
                registers: 154,
                spill_store_bytes: 4,
                spill_load_bytes: 4,
                stack_frame_bytes: 8,
                shared_bytes: 8224,
                local_bytes: 0,
            }
        );
    }
}
