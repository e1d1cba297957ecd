//! The GPU's results where LLVM IR leaves them open and the host's differ.
//!
//! The NVPTX back end lowers `fptosi`/`fptoui` to `cvt.rzi`, which
//! saturates and turns NaN into 0; a shift to `shl`/`shr`, which clamp the
//! amount to the register width; a division to a sequence that never
//! traps. LLVM IR calls all of these poison (or undefined behaviour), and
//! x86-64 gives `0x80000000` for an out-of-range conversion, takes a shift
//! amount modulo the width and traps (SIGFPE) on a division by zero. The
//! kernel's code is rewritten to ask for the PTX result explicitly, so a
//! CUDA kernel that converts 3e9 to `int` reads 2147483647 here as on the
//! GPU, and `1 << 33` reads 0.
//!
//! Division by zero is unspecified in PTX; here a quotient is all ones (-1)
//! and a remainder the dividend, and `INT_MIN / -1` wraps to `INT_MIN` with
//! remainder 0, instead of ending the run.

use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

/// Rewrite every function defined in `module` (the kernel's own code,
/// before the runner's definitions are linked in). Returns how many
/// instructions changed.
pub fn use_gpu_results(module: LLVMModuleRef) -> usize {
    let mut targets = Vec::new();
    // SAFETY: walking a live module's functions, blocks and instructions.
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    if needs_rewrite(i) {
                        targets.push(i);
                    }
                    i = LLVMGetNextInstruction(i);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = LLVMGetNextFunction(f);
        }
        for &i in &targets {
            rewrite(module, i);
        }
    }
    targets.len()
}

/// The integer type of `v`'s scalars (itself, or a fixed vector's
/// elements), if it has integers.
unsafe fn int_scalar_type(v: LLVMValueRef) -> Option<LLVMTypeRef> {
    let ty = LLVMTypeOf(v);
    let elem = match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVectorTypeKind => LLVMGetElementType(ty),
        _ => ty,
    };
    (LLVMGetTypeKind(elem) == LLVMTypeKind::LLVMIntegerTypeKind).then_some(elem)
}

/// `value` in every lane of `ty` (an integer or a vector of them).
unsafe fn splat(ty: LLVMTypeRef, value: u64) -> LLVMValueRef {
    if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind {
        let n = LLVMGetVectorSize(ty);
        let mut lanes = vec![LLVMConstInt(LLVMGetElementType(ty), value, 0); n as usize];
        LLVMConstVector(lanes.as_mut_ptr(), n)
    } else {
        LLVMConstInt(ty, value, 0)
    }
}

/// The most negative value in every lane of `ty` (any width: i128 too).
unsafe fn signed_min(ty: LLVMTypeRef) -> LLVMValueRef {
    let elem = match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVectorTypeKind => LLVMGetElementType(ty),
        _ => ty,
    };
    let width = LLVMGetIntTypeWidth(elem);
    let mut words = vec![0u64; width.div_ceil(64) as usize];
    words[((width - 1) / 64) as usize] = 1u64 << ((width - 1) % 64);
    let min = LLVMConstIntOfArbitraryPrecision(elem, words.len() as u32, words.as_ptr());
    if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind {
        let n = LLVMGetVectorSize(ty);
        let mut lanes = vec![min; n as usize];
        LLVMConstVector(lanes.as_mut_ptr(), n)
    } else {
        min
    }
}

/// `ty` itself, or a fixed vector's element type.
unsafe fn scalar_of(ty: LLVMTypeRef) -> LLVMTypeRef {
    match LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMVectorTypeKind => LLVMGetElementType(ty),
        _ => ty,
    }
}

/// Whether `ty` is `bfloat` or a vector of it.
unsafe fn is_bfloat(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(scalar_of(ty)) == LLVMTypeKind::LLVMBFloatTypeKind
}

/// `elem` in `like`'s shape (itself, or a vector of as many lanes).
unsafe fn shaped(like: LLVMTypeRef, elem: LLVMTypeRef) -> LLVMTypeRef {
    match LLVMGetTypeKind(like) {
        LLVMTypeKind::LLVMVectorTypeKind => LLVMVectorType(elem, LLVMGetVectorSize(like)),
        _ => elem,
    }
}

/// A rounding to `bfloat` (PTX's `cvt.rn.bf16.f32`/`.f64`) in integer
/// operations. x86-64 without AVX-512 BF16 compiles `fptrunc ... to
/// bfloat` as a call of `__truncsfbf2`, which neither this process nor
/// Debian 12's libgcc defines: the JIT'd call jumped to address 0 (an f16
/// and bf16 kernel faulted on an AMD EPYC host, 2026-11-28). Round to
/// nearest even on the float's bits; a NaN stays a quiet NaN. A double is
/// first narrowed to float rounding to odd, so the second rounding is
/// exact.
unsafe fn bfloat_by_integers(
    b: LLVMBuilderRef,
    module: LLVMModuleRef,
    i: LLVMValueRef,
) -> LLVMValueRef {
    let ctx = LLVMGetModuleContext(module);
    let ty = LLVMTypeOf(i);
    let x = LLVMGetOperand(i, 0);
    let f32t = shaped(ty, LLVMFloatTypeInContext(ctx));
    let i32t = shaped(ty, LLVMInt32TypeInContext(ctx));
    let i16t = shaped(ty, LLVMInt16TypeInContext(ctx));
    let src = LLVMTypeOf(x);
    let mut bits = match LLVMGetTypeKind(scalar_of(src)) {
        LLVMTypeKind::LLVMFloatTypeKind => LLVMBuildBitCast(b, x, i32t, c"".as_ptr()),
        _ => {
            // Round to odd: the nearest float, moved one step toward zero
            // where it rounded away from zero, with its last bit set where
            // it is inexact.
            let f = LLVMBuildFPTrunc(b, x, f32t, c"".as_ptr());
            let back = LLVMBuildFPExt(b, f, src, c"".as_ptr());
            let fbits = LLVMBuildBitCast(b, f, i32t, c"".as_ptr());
            let abs = |v: LLVMValueRef| {
                let id = LLVMLookupIntrinsicID(c"llvm.fabs".as_ptr(), 9);
                let mut tys = [src];
                let decl = LLVMGetIntrinsicDeclaration(module, id, tys.as_mut_ptr(), 1);
                let fty = LLVMIntrinsicGetType(ctx, id, tys.as_mut_ptr(), 1);
                let mut args = [v];
                LLVMBuildCall2(b, fty, decl, args.as_mut_ptr(), 1, c"".as_ptr())
            };
            let (abs_back, abs_x) = (abs(back), abs(x));
            use inkwell::llvm_sys::LLVMRealPredicate::*;
            let away = LLVMBuildFCmp(b, LLVMRealOGT, abs_back, abs_x, c"".as_ptr());
            let inexact = LLVMBuildFCmp(b, LLVMRealONE, back, x, c"".as_ptr());
            let down = LLVMBuildSub(b, fbits, splat(i32t, 1), c"".as_ptr());
            let toward_zero = LLVMBuildSelect(b, away, down, fbits, c"".as_ptr());
            let odd = LLVMBuildOr(b, toward_zero, splat(i32t, 1), c"".as_ptr());
            LLVMBuildSelect(b, inexact, odd, fbits, c"".as_ptr())
        }
    };
    // bits + 0x7fff + ((bits >> 16) & 1), the top half; NaN: quiet, top half.
    let top = LLVMBuildLShr(b, bits, splat(i32t, 16), c"".as_ptr());
    let lsb = LLVMBuildAnd(b, top, splat(i32t, 1), c"".as_ptr());
    let bias = LLVMBuildAdd(b, lsb, splat(i32t, 0x7fff), c"".as_ptr());
    let rounded = LLVMBuildLShr(
        b,
        LLVMBuildAdd(b, bits, bias, c"".as_ptr()),
        splat(i32t, 16),
        c"".as_ptr(),
    );
    let quiet = LLVMBuildOr(b, top, splat(i32t, 0x40), c"".as_ptr());
    let magnitude = LLVMBuildAnd(b, bits, splat(i32t, 0x7fff_ffff), c"".as_ptr());
    let nan = LLVMBuildICmp(
        b,
        LLVMIntPredicate::LLVMIntUGT,
        magnitude,
        splat(i32t, 0x7f80_0000),
        c"".as_ptr(),
    );
    bits = LLVMBuildSelect(b, nan, quiet, rounded, c"".as_ptr());
    let half = LLVMBuildTrunc(b, bits, i16t, c"".as_ptr());
    LLVMBuildBitCast(b, half, ty, c"".as_ptr())
}

unsafe fn needs_rewrite(i: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(i) {
        LLVMFPToSI | LLVMFPToUI => true,
        LLVMFPTrunc => is_bfloat(LLVMTypeOf(i)),
        // Constant amounts and divisors too: clang's -O0 code is `optnone`,
        // and the host back end divided INT_MIN by a constant -1 (SIGFPE).
        // Where the constant is harmless the selects fold away.
        LLVMShl | LLVMLShr | LLVMAShr | LLVMSDiv | LLVMUDiv | LLVMSRem | LLVMURem => {
            int_scalar_type(i).is_some()
        }
        _ => false,
    }
}

unsafe fn rewrite(module: LLVMModuleRef, i: LLVMValueRef) {
    use LLVMOpcode::*;
    let ctx = LLVMGetModuleContext(module);
    let b = LLVMCreateBuilderInContext(ctx);
    let op = LLVMGetInstructionOpcode(i);
    let (x, y) = (LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
    let ty = LLVMTypeOf(i);
    let replacement = match op {
        LLVMFPTrunc => {
            LLVMPositionBuilderBefore(b, i);
            bfloat_by_integers(b, module, i)
        }
        LLVMFPToSI | LLVMFPToUI => {
            LLVMPositionBuilderBefore(b, i);
            let name = match op {
                LLVMFPToSI => "llvm.fptosi.sat",
                _ => "llvm.fptoui.sat",
            };
            // PTX has no 8-bit registers: a conversion to a narrower
            // integer is `cvt.rzi.s16`/`u16`, saturating to 16 bits, and
            // the low bits are kept (300.0 as `signed char` is 44, not 127).
            let narrow = {
                let elem = match LLVMGetTypeKind(ty) {
                    LLVMTypeKind::LLVMVectorTypeKind => LLVMGetElementType(ty),
                    _ => ty,
                };
                let w = LLVMGetIntTypeWidth(elem);
                w > 1 && w < 16
            };
            let sat_ty = if narrow {
                let i16 = LLVMInt16TypeInContext(ctx);
                match LLVMGetTypeKind(ty) {
                    LLVMTypeKind::LLVMVectorTypeKind => LLVMVectorType(i16, LLVMGetVectorSize(ty)),
                    _ => i16,
                }
            } else {
                ty
            };
            let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
            let mut tys = [sat_ty, LLVMTypeOf(x)];
            let decl = LLVMGetIntrinsicDeclaration(module, id, tys.as_mut_ptr(), 2);
            let fty = LLVMIntrinsicGetType(ctx, id, tys.as_mut_ptr(), 2);
            let mut args = [x];
            let sat = LLVMBuildCall2(b, fty, decl, args.as_mut_ptr(), 1, c"".as_ptr());
            if narrow {
                widen_matching_extensions(b, i, sat, op);
                LLVMPositionBuilderBefore(b, i);
                LLVMBuildTrunc(b, sat, ty, c"".as_ptr())
            } else {
                sat
            }
        }
        LLVMShl | LLVMLShr | LLVMAShr => {
            // After the shift: `select (amount >= width), clamped, shift`.
            LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(i));
            let bits = LLVMGetIntTypeWidth(int_scalar_type(i).expect("checked")) as u64;
            let width = splat(ty, bits);
            let over = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntUGE, y, width, c"".as_ptr());
            let clamped = match op {
                LLVMAShr => LLVMBuildAShr(b, x, splat(ty, bits - 1), c"".as_ptr()),
                _ => LLVMConstNull(ty),
            };
            LLVMBuildSelect(b, over, clamped, i, c"".as_ptr())
        }
        _ => {
            // Divide by a divisor that cannot trap, then pick the result
            // for the cases that would have.
            LLVMPositionBuilderBefore(b, i);
            let zero = LLVMConstNull(ty);
            let by_zero = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, y, zero, c"".as_ptr());
            let signed = matches!(op, LLVMSDiv | LLVMSRem);
            let overflow = signed.then(|| {
                let min = signed_min(ty);
                let all_ones = LLVMConstAllOnes(ty);
                let is_min = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, x, min, c"".as_ptr());
                let by_minus_one =
                    LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, y, all_ones, c"".as_ptr());
                LLVMBuildAnd(b, is_min, by_minus_one, c"".as_ptr())
            });
            let unsafe_divisor = match overflow {
                Some(o) => LLVMBuildOr(b, by_zero, o, c"".as_ptr()),
                None => by_zero,
            };
            let one = splat(ty, 1);
            let divisor = LLVMBuildSelect(b, unsafe_divisor, one, y, c"".as_ptr());
            LLVMSetOperand(i, 1, divisor);
            LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(i));
            let on_zero = match op {
                LLVMSDiv | LLVMUDiv => LLVMConstAllOnes(ty),
                _ => x,
            };
            // x / 1 is x (INT_MIN, as the GPU wraps); x % 1 is 0.
            let on_overflow = i;
            let r = LLVMBuildSelect(b, by_zero, on_zero, on_overflow, c"".as_ptr());
            LLVMDisposeBuilder(b);
            replace_uses_except(i, r);
            return;
        }
    };
    LLVMDisposeBuilder(b);
    replace_uses_except(i, replacement);
    if matches!(op, LLVMFPToSI | LLVMFPToUI | LLVMFPTrunc) {
        LLVMInstructionEraseFromParent(i);
    }
}

/// The NVPTX back end holds a narrow conversion's result in its 16-bit
/// register and marks it as already extended, so a sign extension of
/// `fptosi` (a zero extension of `fptoui`) reads the 16-bit saturated value:
/// `(int)(signed char)300.0f` is 300 on the GPU, while a store of the
/// `signed char` keeps the low byte (44). Such extensions of `i` are
/// rebuilt from `sat`, the 16-bit result.
unsafe fn widen_matching_extensions(
    b: LLVMBuilderRef,
    i: LLVMValueRef,
    sat: LLVMValueRef,
    op: LLVMOpcode,
) {
    use LLVMOpcode::*;
    let wanted = match op {
        LLVMFPToSI => LLVMSExt,
        _ => LLVMZExt,
    };
    let mut users = Vec::new();
    let mut u = LLVMGetFirstUse(i);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !LLVMIsAInstruction(user).is_null() && LLVMGetInstructionOpcode(user) == wanted {
            users.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    for user in users {
        let to = LLVMTypeOf(user);
        let elem = match LLVMGetTypeKind(to) {
            LLVMTypeKind::LLVMVectorTypeKind => LLVMGetElementType(to),
            _ => to,
        };
        if LLVMGetIntTypeWidth(elem) < 16 {
            continue;
        }
        LLVMPositionBuilderBefore(b, user);
        let wide = match wanted {
            LLVMSExt => LLVMBuildSExtOrBitCast(b, sat, to, c"".as_ptr()),
            _ => LLVMBuildZExtOrBitCast(b, sat, to, c"".as_ptr()),
        };
        LLVMReplaceAllUsesWith(user, wide);
        LLVMInstructionEraseFromParent(user);
    }
}

/// Every use of `old` becomes `new`, except inside `new` itself (the
/// select that reads the original result).
unsafe fn replace_uses_except(old: LLVMValueRef, new: LLVMValueRef) {
    let mut u = LLVMGetFirstUse(old);
    let mut uses = Vec::new();
    while !u.is_null() {
        uses.push(u);
        u = LLVMGetNextUse(u);
    }
    for u in uses {
        let user = LLVMGetUser(u);
        if user == new {
            continue;
        }
        let n = LLVMGetNumOperands(user);
        for k in 0..n {
            if LLVMGetOperand(user, k as u32) == old {
                LLVMSetOperand(user, k as u32, new);
            }
        }
    }
}
