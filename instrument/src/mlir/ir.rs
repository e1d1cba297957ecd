//! Thin, copyable handles over the MLIR C API for walking and rewriting.
//!
//! melior's typed references carry lifetimes that make in-place rewriting
//! (walk, then insert next to what was found, then erase) awkward; the raw
//! handles are plain `Copy` values. All of them stay valid only while the
//! owning module lives and the op is not erased, which every pass here
//! guarantees by collecting ops first and mutating after.

use mlir_sys::*;
use std::ffi::c_void;

pub(crate) fn sref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const _,
        length: s.len(),
    }
}

pub(crate) fn string_of(r: MlirStringRef) -> String {
    if r.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR hands out (pointer, length) views of live strings.
    let bytes = unsafe { std::slice::from_raw_parts(r.data as *const u8, r.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

unsafe extern "C" fn append_to_string(s: MlirStringRef, user: *mut c_void) {
    let out = &mut *(user as *mut String);
    out.push_str(&string_of(s));
}

/// Print anything that has an `mlir*Print(x, callback, user)` function.
pub fn print_with(f: impl FnOnce(MlirStringCallback, *mut c_void)) -> String {
    let mut out = String::new();
    f(
        Some(append_to_string),
        &mut out as *mut String as *mut c_void,
    );
    out
}

#[derive(Copy, Clone, Debug)]
pub struct Op(pub MlirOperation);
#[derive(Copy, Clone, Debug)]
pub struct Block(pub MlirBlock);
#[derive(Copy, Clone, Debug)]
pub struct Region(pub MlirRegion);
#[derive(Copy, Clone, Debug)]
pub struct Value(pub MlirValue);

impl PartialEq for Op {
    fn eq(&self, o: &Self) -> bool {
        self.0.ptr == o.0.ptr
    }
}
impl Eq for Op {}

impl PartialEq for Value {
    fn eq(&self, o: &Self) -> bool {
        unsafe { mlirValueEqual(self.0, o.0) }
    }
}
impl Eq for Value {}

impl PartialEq for Block {
    fn eq(&self, o: &Self) -> bool {
        self.0.ptr == o.0.ptr
    }
}
impl Eq for Block {}

impl Op {
    fn opt(raw: MlirOperation) -> Option<Op> {
        (!raw.ptr.is_null()).then_some(Op(raw))
    }
    pub fn name(self) -> String {
        unsafe { string_of(mlirIdentifierStr(mlirOperationGetName(self.0))) }
    }
    pub fn parent(self) -> Option<Op> {
        unsafe { Op::opt(mlirOperationGetParentOperation(self.0)) }
    }
    pub fn block(self) -> Option<Block> {
        let b = unsafe { mlirOperationGetBlock(self.0) };
        (!b.ptr.is_null()).then_some(Block(b))
    }
    pub fn next(self) -> Option<Op> {
        unsafe { Op::opt(mlirOperationGetNextInBlock(self.0)) }
    }
    pub fn regions(self) -> Vec<Region> {
        let n = unsafe { mlirOperationGetNumRegions(self.0) };
        (0..n)
            .map(|i| Region(unsafe { mlirOperationGetRegion(self.0, i) }))
            .collect()
    }
    pub fn result(self, i: isize) -> Value {
        Value(unsafe { mlirOperationGetResult(self.0, i) })
    }
    pub fn num_results(self) -> isize {
        unsafe { mlirOperationGetNumResults(self.0) }
    }
    pub fn num_operands(self) -> isize {
        unsafe { mlirOperationGetNumOperands(self.0) }
    }
    pub fn operand(self, i: isize) -> Value {
        Value(unsafe { mlirOperationGetOperand(self.0, i) })
    }
    pub fn successors(self) -> Vec<Block> {
        let n = unsafe { mlirOperationGetNumSuccessors(self.0) };
        (0..n)
            .map(|i| Block(unsafe { mlirOperationGetSuccessor(self.0, i) }))
            .collect()
    }
    pub fn attr(self, name: &str) -> Option<MlirAttribute> {
        let a = unsafe { mlirOperationGetAttributeByName(self.0, sref(name)) };
        (!a.ptr.is_null()).then_some(a)
    }
    pub fn has_attr(self, name: &str) -> bool {
        self.attr(name).is_some()
    }
    pub fn str_attr(self, name: &str) -> Option<String> {
        let a = self.attr(name)?;
        unsafe { mlirAttributeIsAString(a) }
            .then(|| unsafe { string_of(mlirStringAttrGetValue(a)) })
    }
    pub fn int_attr(self, name: &str) -> Option<i64> {
        let a = self.attr(name)?;
        unsafe { mlirAttributeIsAInteger(a) }.then(|| unsafe { mlirIntegerAttrGetValueInt(a) })
    }
    pub fn set_attr(self, name: &str, a: MlirAttribute) {
        unsafe { mlirOperationSetAttributeByName(self.0, sref(name), a) }
    }
    pub fn remove_attr(self, name: &str) {
        unsafe {
            mlirOperationRemoveAttributeByName(self.0, sref(name));
        }
    }
    pub fn location(self) -> MlirLocation {
        unsafe { mlirOperationGetLocation(self.0) }
    }
    /// `file:line:col` of the op, looking through name, call-site and fused
    /// locations; `unknown` when the op has none.
    pub fn loc_string(self) -> String {
        describe_location(self.location())
    }
    pub fn is_before(self, other: Op) -> bool {
        unsafe { mlirOperationIsBeforeInBlock(self.0, other.0) }
    }
    pub fn move_before(self, anchor: Op) {
        unsafe { mlirOperationMoveBefore(self.0, anchor.0) }
    }
    pub fn move_after(self, anchor: Op) {
        unsafe { mlirOperationMoveAfter(self.0, anchor.0) }
    }
    pub fn erase(self) {
        unsafe { mlirOperationDestroy(self.0) }
    }
    pub fn print(self) -> String {
        print_with(|cb, u| unsafe { mlirOperationPrint(self.0, cb, u) })
    }
    /// All ops nested in this one (not itself), pre-order, collected first so
    /// the caller may mutate afterwards.
    pub fn nested_ops(self) -> Vec<Op> {
        let mut out = Vec::new();
        for r in self.regions() {
            for b in r.blocks() {
                for op in b.ops() {
                    out.push(op);
                    out.extend(op.nested_ops());
                }
            }
        }
        out
    }
}

impl Block {
    pub fn ops(self) -> Vec<Op> {
        let mut out = Vec::new();
        let mut cur = unsafe { mlirBlockGetFirstOperation(self.0) };
        while !cur.ptr.is_null() {
            out.push(Op(cur));
            cur = unsafe { mlirOperationGetNextInBlock(cur) };
        }
        out
    }
    pub fn first_op(self) -> Option<Op> {
        Op::opt(unsafe { mlirBlockGetFirstOperation(self.0) })
    }
    pub fn terminator(self) -> Option<Op> {
        Op::opt(unsafe { mlirBlockGetTerminator(self.0) })
    }
    pub fn parent_op(self) -> Option<Op> {
        Op::opt(unsafe { mlirBlockGetParentOperation(self.0) })
    }
    pub fn parent_region(self) -> Region {
        Region(unsafe { mlirBlockGetParentRegion(self.0) })
    }
    pub fn num_args(self) -> isize {
        unsafe { mlirBlockGetNumArguments(self.0) }
    }
    pub fn arg(self, i: isize) -> Value {
        Value(unsafe { mlirBlockGetArgument(self.0, i) })
    }
    pub fn insert_arg(self, pos: isize, ty: MlirType, loc: MlirLocation) -> Value {
        Value(unsafe { mlirBlockInsertArgument(self.0, pos, ty, loc) })
    }
    pub fn append_op(self, op: MlirOperation) {
        unsafe { mlirBlockAppendOwnedOperation(self.0, op) }
    }
    pub fn insert_before(self, anchor: Op, op: MlirOperation) {
        unsafe { mlirBlockInsertOwnedOperationBefore(self.0, anchor.0, op) }
    }
    pub fn is_entry(self) -> bool {
        self.parent_region().first_block() == Some(self)
    }
    pub fn successors(self) -> Vec<Block> {
        self.terminator()
            .map(|t| t.successors())
            .unwrap_or_default()
    }
}

impl Region {
    pub fn first_block(self) -> Option<Block> {
        let b = unsafe { mlirRegionGetFirstBlock(self.0) };
        (!b.ptr.is_null()).then_some(Block(b))
    }
    pub fn blocks(self) -> Vec<Block> {
        let mut out = Vec::new();
        let mut cur = unsafe { mlirRegionGetFirstBlock(self.0) };
        while !cur.ptr.is_null() {
            out.push(Block(cur));
            cur = unsafe { mlirBlockGetNextInRegion(cur) };
        }
        out
    }
}

impl Value {
    /// The op whose result this is (`None` for a block argument).
    pub fn defining_op(self) -> Option<Op> {
        unsafe { mlirValueIsAOpResult(self.0) }.then(|| Op(unsafe { mlirOpResultGetOwner(self.0) }))
    }
    pub fn ty(self) -> MlirType {
        unsafe { mlirValueGetType(self.0) }
    }
    pub fn replace_all_uses_with(self, with: Value) {
        unsafe { mlirValueReplaceAllUsesOfWith(self.0, with.0) }
    }
}

pub fn type_string(t: MlirType) -> String {
    print_with(|cb, u| unsafe { mlirTypePrint(t, cb, u) })
}

/// An attribute in its printed form (`@m::@k`, `array<i32: 128, 1, 1>`).
pub fn attr_string(a: MlirAttribute) -> String {
    print_with(|cb, u| unsafe { mlirAttributePrint(a, cb, u) })
}

pub fn describe_location(loc: MlirLocation) -> String {
    if let Some((file, line, col)) = file_line_col(loc) {
        return format!("{file}:{line}:{col}");
    }
    "unknown".to_string()
}

/// File, line and column of a location (through names, call sites and
/// fused locations, as [`describe_location`] prints them).
pub fn file_line_col(loc: MlirLocation) -> Option<(String, u32, u32)> {
    unsafe {
        if mlirLocationIsAFileLineColRange(loc) {
            let file = string_of(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
                loc,
            )));
            let line = mlirLocationFileLineColRangeGetStartLine(loc);
            let col = mlirLocationFileLineColRangeGetStartColumn(loc);
            return Some((file, line.max(0) as u32, col.max(0) as u32));
        }
        if mlirLocationIsAName(loc) {
            return file_line_col(mlirLocationNameGetChildLoc(loc));
        }
        if mlirLocationIsACallSite(loc) {
            return file_line_col(mlirLocationCallSiteGetCallee(loc));
        }
        if mlirLocationIsAFused(loc) {
            let n = mlirLocationFusedGetNumLocations(loc);
            if n > 0 {
                let mut locs =
                    vec![mlirLocationUnknownGet(mlirLocationGetContext(loc)); n as usize];
                mlirLocationFusedGetLocations(loc, locs.as_mut_ptr());
                return file_line_col(locs[0]);
            }
        }
    }
    None
}

/// Does op `a` dominate op `b`? Both must be in the same function. Handles
/// nested (structured) regions and multi-block CFG regions.
pub fn dominates(a: Op, b: Op) -> bool {
    let Some(a_block) = a.block() else {
        return false;
    };
    let a_region = a_block.parent_region().0.ptr;
    // Find b's ancestor (or b itself) that sits in a's region.
    let mut x = b;
    loop {
        let Some(xb) = x.block() else { return false };
        if xb.parent_region().0.ptr == a_region {
            if xb == a_block {
                return a != x && a.is_before(x);
            }
            return block_dominates(a_block, xb);
        }
        match x.parent() {
            Some(p) => x = p,
            None => return false,
        }
    }
}

/// Block dominance in one CFG region: the iterative data-flow algorithm.
/// Regions here are small (a kernel's blocks), so the simple form suffices.
fn block_dominates(a: Block, b: Block) -> bool {
    let blocks = b.parent_region().blocks();
    let idx = |x: Block| blocks.iter().position(|y| *y == x);
    let (Some(ia), Some(ib)) = (idx(a), idx(b)) else {
        return false;
    };
    let n = blocks.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, blk) in blocks.iter().enumerate() {
        for s in blk.successors() {
            if let Some(j) = idx(s) {
                preds[j].push(i);
            }
        }
    }
    // dom[i] as a bitset over blocks.
    let full = vec![true; n];
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|i| {
            if i == 0 {
                (0..n).map(|k| k == 0).collect()
            } else {
                full.clone()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 1..n {
            let mut new = if preds[i].is_empty() {
                vec![false; n]
            } else {
                full.clone()
            };
            for &p in &preds[i] {
                for k in 0..n {
                    new[k] &= dom[p][k];
                }
            }
            new[i] = true;
            if new != dom[i] {
                dom[i] = new;
                changed = true;
            }
        }
    }
    dom[ib][ia]
}
