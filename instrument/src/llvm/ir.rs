//! Small, safe-to-call views of LLVM IR objects the instrumentation reads:
//! instructions, calls, inline asm, debug locations. inkwell covers
//! modules, builders and targets; these reach the few C API corners it does
//! not expose (inline-asm strings, debug locations, successors).

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMOpcode;
use std::ffi::CStr;

/// An instruction (never null).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst(pub LLVMValueRef);

/// A basic block (never null).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(pub LLVMBasicBlockRef);

fn owned(p: *const std::os::raw::c_char, len: usize) -> String {
    if p.is_null() {
        return String::new();
    }
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The name of a value (function, block, global), empty when unnamed.
pub fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    owned(p, len)
}

impl Block {
    pub fn instructions(self) -> Vec<Inst> {
        let mut out = Vec::new();
        let mut i = unsafe { LLVMGetFirstInstruction(self.0) };
        while !i.is_null() {
            out.push(Inst(i));
            i = unsafe { LLVMGetNextInstruction(i) };
        }
        out
    }
    pub fn terminator(self) -> Option<Inst> {
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Inst(t))
    }
    pub fn successors(self) -> Vec<Block> {
        match self.terminator() {
            Some(t) => (0..unsafe { LLVMGetNumSuccessors(t.0) })
                .map(|i| Block(unsafe { LLVMGetSuccessor(t.0, i) }))
                .collect(),
            None => Vec::new(),
        }
    }
    /// The first instruction that is not a phi: where code at the top of
    /// the block goes.
    pub fn first_insertion_point(self) -> Option<Inst> {
        self.instructions()
            .into_iter()
            .find(|i| i.opcode() != LLVMOpcode::LLVMPHI)
    }
    pub fn name(self) -> String {
        value_name(unsafe { LLVMBasicBlockAsValue(self.0) })
    }
}

impl Inst {
    pub fn opcode(self) -> LLVMOpcode {
        unsafe { LLVMGetInstructionOpcode(self.0) }
    }
    pub fn block(self) -> Block {
        Block(unsafe { LLVMGetInstructionParent(self.0) })
    }
    pub fn next(self) -> Option<Inst> {
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Inst(n))
    }
    pub fn is_call(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMCall
    }
    pub fn is_return(self) -> bool {
        self.opcode() == LLVMOpcode::LLVMRet
    }
    /// The called value of a call, when it is one.
    pub fn called(self) -> Option<LLVMValueRef> {
        if !self.is_call() {
            return None;
        }
        let c = unsafe { LLVMGetCalledValue(self.0) };
        (!c.is_null()).then_some(c)
    }
    /// The callee's name for a direct call.
    pub fn callee_name(self) -> Option<String> {
        let c = self.called()?;
        if unsafe { LLVMIsAFunction(c) }.is_null() {
            return None;
        }
        Some(value_name(c))
    }
    /// The inline asm a call calls.
    fn called_asm(self) -> Option<LLVMValueRef> {
        let c = self.called()?;
        (!unsafe { LLVMIsAInlineAsm(c) }.is_null()).then_some(c)
    }
    /// The asm string of a call to inline asm.
    pub fn inline_asm(self) -> Option<String> {
        let c = self.called_asm()?;
        let mut len = 0usize;
        let p = unsafe { LLVMGetInlineAsmAsmString(c, &mut len) };
        Some(owned(p, len))
    }
    /// The constraint string of a call to inline asm (`=r,r,~{memory}`).
    pub fn inline_asm_constraints(self) -> Option<String> {
        let c = self.called_asm()?;
        let mut len = 0usize;
        let p = unsafe { LLVMGetInlineAsmConstraintString(c, &mut len) };
        Some(owned(p, len))
    }
    pub fn operand(self, i: u32) -> Option<LLVMValueRef> {
        if (i as i32) >= unsafe { LLVMGetNumOperands(self.0) } {
            return None;
        }
        let v = unsafe { LLVMGetOperand(self.0, i) };
        (!v.is_null()).then_some(v)
    }
    pub fn has_uses(self) -> bool {
        has_uses(self.0)
    }
    /// A marker intrinsic that compiles to nothing (lifetimes, debug
    /// values, scope declarations).
    pub fn emits_no_code(self) -> bool {
        self.callee_name().is_some_and(|n| {
            [
                "llvm.lifetime.",
                "llvm.dbg.",
                "llvm.experimental.noalias.scope.decl",
            ]
            .iter()
            .any(|p| n.starts_with(p))
        })
    }
    /// The instructions that use this one's value.
    pub fn users(self) -> Vec<Inst> {
        let mut out = Vec::new();
        // SAFETY: walking the use list of a live instruction.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                if !LLVMIsAInstruction(user).is_null() {
                    out.push(Inst(user));
                }
                u = LLVMGetNextUse(u);
            }
        }
        out
    }
    pub fn is_terminator(self) -> bool {
        !unsafe { LLVMIsATerminatorInst(self.0) }.is_null()
    }
    pub fn erase(self) {
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }
    /// `line:col` of the instruction's debug location, when it has one.
    pub fn line_col(self) -> Option<(u32, u32)> {
        if unsafe { LLVMInstructionGetDebugLoc(self.0) }.is_null() {
            return None;
        }
        let line = unsafe { LLVMGetDebugLocLine(self.0) };
        let col = unsafe { LLVMGetDebugLocColumn(self.0) };
        (line != 0).then_some((line, col))
    }
    /// The source file of the debug location (`dir/file`), when it has one.
    pub fn debug_file(self) -> Option<String> {
        if unsafe { LLVMInstructionGetDebugLoc(self.0) }.is_null() {
            return None;
        }
        let (mut dl, mut fl) = (0u32, 0u32);
        let d = unsafe { LLVMGetDebugLocDirectory(self.0, &mut dl) };
        let f = unsafe { LLVMGetDebugLocFilename(self.0, &mut fl) };
        let file = owned(f, fl as usize);
        if file.is_empty() {
            return None;
        }
        let dir = owned(d, dl as usize);
        Some(if dir.is_empty() || file.starts_with('/') {
            file
        } else {
            format!("{dir}/{file}")
        })
    }
}

/// A pointer as a base and a byte offset: casts looked through, and
/// `getelementptr i8` with a constant offset (LLVM's canonical form of a
/// constant address computation) or all-zero indices folded in. Another
/// address computation is its own base.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Address {
    pub base: LLVMValueRef,
    pub offset: i64,
}

impl Address {
    pub fn of(mut v: LLVMValueRef) -> Address {
        let mut offset = 0i64;
        for _ in 0..16 {
            let opcode = if !unsafe { LLVMIsAInstruction(v) }.is_null() {
                unsafe { LLVMGetInstructionOpcode(v) }
            } else if !unsafe { LLVMIsAConstantExpr(v) }.is_null() {
                unsafe { LLVMGetConstOpcode(v) }
            } else {
                break;
            };
            match opcode {
                LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMBitCast => {
                    v = unsafe { LLVMGetOperand(v, 0) };
                }
                LLVMOpcode::LLVMGetElementPtr => match gep_bytes(v) {
                    Some(b) => {
                        offset = offset.wrapping_add(b);
                        v = unsafe { LLVMGetOperand(v, 0) };
                    }
                    None => break,
                },
                _ => break,
            }
        }
        Address { base: v, offset }
    }

    /// Whether the two certainly name different bytes: distinct globals,
    /// or one base at different offsets. Anything else may alias.
    pub fn certainly_differs(self, other: Address) -> bool {
        let global = |v: LLVMValueRef| !unsafe { LLVMIsAGlobalVariable(v) }.is_null();
        if self.base == other.base {
            return self.offset != other.offset;
        }
        global(self.base) && global(other.base)
    }
}

/// The constant byte offset of a GEP: `getelementptr i8, p, C`, or any
/// GEP whose indices are all constant zero.
fn gep_bytes(gep: LLVMValueRef) -> Option<i64> {
    let n = unsafe { LLVMGetNumOperands(gep) };
    let constant = |i: i32| {
        let x = unsafe { LLVMGetOperand(gep, i as u32) };
        (!unsafe { LLVMIsAConstantInt(x) }.is_null())
            .then(|| unsafe { LLVMConstIntGetSExtValue(x) })
    };
    let indices: Option<Vec<i64>> = (1..n).map(constant).collect();
    let indices = indices?;
    if indices.iter().all(|&i| i == 0) {
        return Some(0);
    }
    let ty = unsafe { LLVMGetGEPSourceElementType(gep) };
    let is_i8 = unsafe { LLVMGetTypeKind(ty) }
        == inkwell::llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
        && unsafe { LLVMGetIntTypeWidth(ty) } == 8;
    match indices.as_slice() {
        [b] if is_i8 => Some(*b),
        _ => None,
    }
}

/// A constant C string behind a pointer operand (`@.str`, possibly behind
/// GEP or address-space casts), without its trailing NUL.
pub fn constant_string(mut v: LLVMValueRef) -> Option<String> {
    for _ in 0..8 {
        if !unsafe { LLVMIsAConstantExpr(v) }.is_null() {
            v = unsafe { LLVMGetOperand(v, 0) };
            continue;
        }
        break;
    }
    if unsafe { LLVMIsAGlobalVariable(v) }.is_null() {
        return None;
    }
    let init = unsafe { LLVMGetInitializer(v) };
    if init.is_null() || unsafe { LLVMIsAConstantDataSequential(init) }.is_null() {
        return None;
    }
    let mut len = 0usize;
    let p = unsafe { LLVMGetAsString(init, &mut len) };
    let s = owned(p, len);
    Some(s.trim_end_matches('\0').to_string())
}

/// Text of an LLVM-owned message.
pub fn message(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Is anything using `v`?
pub fn has_uses(v: LLVMValueRef) -> bool {
    !unsafe { LLVMGetFirstUse(v) }.is_null()
}

/// Split the CFG edge `u → v` with a new block that only branches to `v`,
/// placed right after `u`, and return it. Every successor slot of `u`'s
/// terminator that names `v` is redirected (they become one edge), and the
/// phis of `v` take their value from the new block once.
///
/// Only edges no record can otherwise reach are split (see
/// `sites::Collector::edge_anchor`): splitting every critical edge
/// (`break-crit-edges`) changes the shape of loop latches, and ptxas then
/// compiles a different kernel (attention's loop body duplicated, 16 → 32
/// HGMMA).
pub fn split_edge(u: Block, v: Block) -> Block {
    unsafe {
        let term = u.terminator().expect("an edge's source has a terminator").0;
        let f = LLVMGetBasicBlockParent(u.0);
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        let name = c"kperf.edge";
        let new = LLVMAppendBasicBlockInContext(ctx, f, name.as_ptr());
        LLVMMoveBasicBlockAfter(new, u.0);
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(b, new);
        let br = LLVMBuildBr(b, v.0);
        LLVMDisposeBuilder(b);
        let loc = LLVMInstructionGetDebugLoc(term);
        if !loc.is_null() {
            inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(br, loc);
        }
        for i in 0..LLVMGetNumSuccessors(term) {
            if LLVMGetSuccessor(term, i) == v.0 {
                LLVMSetSuccessor(term, i, new);
            }
        }
        for phi in Block(v.0).instructions() {
            if phi.opcode() != LLVMOpcode::LLVMPHI {
                break;
            }
            retarget_phi(phi.0, u.0, new);
        }
        Block(new)
    }
}

/// Rebuild `phi` with its entries from `from` replaced by one entry from
/// `to` (the C API cannot set an incoming block in place).
unsafe fn retarget_phi(phi: LLVMValueRef, from: LLVMBasicBlockRef, to: LLVMBasicBlockRef) {
    let n = LLVMCountIncoming(phi);
    let mut vals = Vec::with_capacity(n as usize);
    let mut blocks = Vec::with_capacity(n as usize);
    let mut moved = false;
    for k in 0..n {
        let (val, blk) = (LLVMGetIncomingValue(phi, k), LLVMGetIncomingBlock(phi, k));
        if blk == from {
            if moved {
                continue;
            }
            moved = true;
            vals.push(val);
            blocks.push(to);
        } else {
            vals.push(val);
            blocks.push(blk);
        }
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(phi));
    let b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderBefore(b, phi);
    let new = LLVMBuildPhi(b, LLVMTypeOf(phi), c"".as_ptr());
    LLVMDisposeBuilder(b);
    let loc = LLVMInstructionGetDebugLoc(phi);
    if !loc.is_null() {
        inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(new, loc);
    }
    LLVMAddIncoming(
        new,
        vals.as_mut_ptr(),
        blocks.as_mut_ptr(),
        vals.len() as u32,
    );
    let name = value_name(phi);
    LLVMReplaceAllUsesWith(phi, new);
    LLVMInstructionEraseFromParent(phi);
    LLVMSetValueName2(new, name.as_ptr().cast(), name.len());
}

/// Give function `f` one exit: every `ret void` becomes a branch (with the
/// return's debug location) to a new last block that returns. Returns
/// whether anything changed: nothing does with fewer than two returns or
/// when a return carries a value (GPU kernels return void).
///
/// Finalize then runs once, in one place, as in the MLIR path
/// (`mlir::regions::unify_returns`): one finalize per `ret` repeated its
/// copy-out at each (clang at -O0/-O1 keeps an early `return;` as its own
/// `ret`), and `--regions kernel` put an END before each.
pub fn unify_returns(f: LLVMValueRef) -> bool {
    unsafe {
        let mut returns = Vec::new();
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            if let Some(t) = Block(bb).terminator().filter(|t| t.is_return()) {
                returns.push(t);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        if returns.len() < 2 || returns.iter().any(|r| LLVMGetNumOperands(r.0) > 0) {
            return false;
        }
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        let exit = LLVMAppendBasicBlockInContext(ctx, f, c"kperf.exit".as_ptr());
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(b, exit);
        let ret = LLVMBuildRetVoid(b);
        let first_loc = LLVMInstructionGetDebugLoc(returns[0].0);
        if !first_loc.is_null() {
            inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(ret, first_loc);
        }
        for r in returns {
            LLVMPositionBuilderBefore(b, r.0);
            let br = LLVMBuildBr(b, exit);
            let loc = LLVMInstructionGetDebugLoc(r.0);
            if !loc.is_null() {
                inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(br, loc);
            }
            r.erase();
        }
        LLVMDisposeBuilder(b);
        true
    }
}

/// Make each loop latch that leaves for a return through kperf's code
/// alone branch back on its condition's negation, so that the exit is the
/// branch's false successor; the number of latches changed.
///
/// Why: the NVPTX back end cannot reverse a branch, so a latch whose true
/// successor is the exit is written `@p bra exit; bra.uni header`. Where
/// that exit is a bare `ret` (the plain build), ptxas makes it a predicated
/// EXIT inside the loop and keeps the loop rolled; where it holds kperf's
/// END record and finalize, ptxas peels an iteration instead (a CUDA
/// SGEMM's epilogue: LDG 12 → 14, LDL 40 → 44). A latch whose exit is its
/// false successor is written `@!p bra header` and falls through to the
/// exit, and ptxas keeps it rolled. Only such latches change: any other
/// branch keeps the form the plain build has.
pub fn latches_fall_through_to_exits(f: LLVMValueRef, is_kperf: impl Fn(Inst) -> bool) -> usize {
    let entry = unsafe { LLVMGetEntryBasicBlock(f) };
    let cfg = super::cfg::Cfg::new(Block(entry));
    let mut changed = 0;
    for (p, block) in cfg.blocks.iter().enumerate() {
        let Some(term) = block.terminator() else {
            continue;
        };
        if term.opcode() != LLVMOpcode::LLVMBr || unsafe { LLVMIsConditional(term.0) } == 0 {
            continue;
        }
        let (exit, header) = unsafe {
            (
                Block(LLVMGetSuccessor(term.0, 0)),
                Block(LLVMGetSuccessor(term.0, 1)),
            )
        };
        let back_edge = cfg.index.get(&header).is_some_and(|&h| cfg.dominates(h, p));
        if exit == header || !back_edge || !returns_through(exit, &is_kperf) {
            continue;
        }
        unsafe { branch_on_negation(term) };
        changed += 1;
    }
    changed
}

/// Does `b` reach a return through instructions `is_kperf` accepts and
/// unconditional branches alone?
fn returns_through(mut b: Block, is_kperf: &impl Fn(Inst) -> bool) -> bool {
    let mut seen = std::collections::HashSet::new();
    while seen.insert(b) {
        let insts = b.instructions();
        let Some((term, body)) = insts.split_last() else {
            return false;
        };
        if !body.iter().all(|i| is_kperf(*i) || i.emits_no_code()) {
            return false;
        }
        if term.is_return() {
            return true;
        }
        let unconditional =
            term.opcode() == LLVMOpcode::LLVMBr && unsafe { LLVMIsConditional(term.0) } == 0;
        if !unconditional {
            return false;
        }
        b = Block(unsafe { LLVMGetSuccessor(term.0, 0) });
    }
    false
}

/// `br c, T, F` becomes `br !c, F, T`, its branch weights swapped with it.
unsafe fn branch_on_negation(term: Inst) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(term.0));
    let b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderBefore(b, term.0);
    let not = LLVMBuildNot(b, LLVMGetCondition(term.0), c"kperf.stay".as_ptr());
    LLVMDisposeBuilder(b);
    let loc = LLVMInstructionGetDebugLoc(term.0);
    if !loc.is_null() && !LLVMIsAInstruction(not).is_null() {
        inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(not, loc);
    }
    LLVMSetCondition(term.0, not);
    let (t, f) = (LLVMGetSuccessor(term.0, 0), LLVMGetSuccessor(term.0, 1));
    LLVMSetSuccessor(term.0, 0, f);
    LLVMSetSuccessor(term.0, 1, t);
    let kind = LLVMGetMDKindIDInContext(ctx, c"prof".as_ptr(), 4);
    let prof = LLVMGetMetadata(term.0, kind);
    if prof.is_null() {
        return;
    }
    // !{!"branch_weights", [!"expected",] i32 T, i32 F}: the last two.
    let n = LLVMGetMDNodeNumOperands(prof) as usize;
    let mut ops = vec![std::ptr::null_mut(); n];
    LLVMGetMDNodeOperands(prof, ops.as_mut_ptr());
    if n >= 3 {
        ops.swap(n - 2, n - 1);
        let mut mds: Vec<LLVMMetadataRef> = ops.iter().map(|v| LLVMValueAsMetadata(*v)).collect();
        let swapped = LLVMMDNodeInContext2(ctx, mds.as_mut_ptr(), n);
        LLVMSetMetadata(term.0, kind, LLVMMetadataAsValue(ctx, swapped));
    } else {
        LLVMSetMetadata(term.0, kind, std::ptr::null_mut());
    }
}

/// `f` and every function it calls directly, transitively (calls through
/// pointers are not followed).
pub fn reachable_functions(f: LLVMValueRef) -> std::collections::HashSet<LLVMValueRef> {
    let mut seen = std::collections::HashSet::from([f]);
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        // SAFETY: walking the blocks and instructions of a live function.
        unsafe {
            let mut bb = LLVMGetFirstBasicBlock(g);
            while !bb.is_null() {
                for i in Block(bb).instructions() {
                    if let Some(callee) = i.called() {
                        if !LLVMIsAFunction(callee).is_null() && seen.insert(callee) {
                            stack.push(callee);
                        }
                    }
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
        }
    }
    seen
}

/// The functions whose instructions use `v`, directly or through constant
/// expressions (a GEP or cast of a global).
pub fn using_functions(v: LLVMValueRef) -> std::collections::HashSet<LLVMValueRef> {
    let mut out = std::collections::HashSet::new();
    let mut stack = vec![v];
    let mut seen = std::collections::HashSet::from([v]);
    while let Some(x) = stack.pop() {
        // SAFETY: walking use lists of live values; every pointer comes
        // from LLVM and is only read.
        unsafe {
            let mut u = LLVMGetFirstUse(x);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                if !LLVMIsAInstruction(user).is_null() {
                    out.insert(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
                } else if !LLVMIsAConstantExpr(user).is_null() && seen.insert(user) {
                    stack.push(user);
                }
                u = LLVMGetNextUse(u);
            }
        }
    }
    out
}
