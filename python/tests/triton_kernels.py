"""The Triton kernel the hook's tests compile, apart from pytest so that
scripts/triton_roundtrip.py runs where pytest is not installed (a GPU
machine's image)."""
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def scale_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for i in range(0, n, BLOCK):
        offs = i + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
        tl.store(y_ptr + offs, tl.exp2(x * 1.4426950408889634), mask=offs < n)


def compile_scale_rows(num_warps=4):
    src = ASTSource(scale_rows, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                    constexprs={"BLOCK": 256})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps})
