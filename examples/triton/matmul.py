"""A tiled Triton matmul to profile with kperf (needs a GPU; PyTorch optional).

    python -m kperf.triton --regions kernel,loops --out prof/ examples/triton/matmul.py [M N K]
    python examples/triton/matmul.py [M N K] --time   # plain, timed with triton.testing.do_bench

runs it with every Triton kernel instrumented, writes prof/matmul_kernel.<n>.kprof
and prints the regions' figures. With PyTorch the inputs are torch tensors
and the check is against torch.matmul; without it (the GPU machines kperf is
checked on have none) they are numpy arrays copied to the GPU through
kperf.cuda, and the check is against numpy. Written for kperf (not copied
from Triton's tutorials): one program per BLOCK_M x BLOCK_N output tile, a
loop over K in BLOCK_K steps.
"""

import sys

import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + ks
        a = tl.load(a_ptr + rows[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(tl.float16),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a, b, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64):
    """c = a @ b in fp16 (fp32 accumulation); a and b are torch tensors or
    kperf.cuda.DeviceArrays, and c is the same kind."""
    M, K = a.shape
    _, N = b.shape
    if hasattr(a, "device"):
        import torch
        c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    else:
        from kperf.cuda import DeviceArray
        c = DeviceArray((M, N), "float16")
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8)
    return c


def max_error_torch(M, N, K):
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("matmul.py needs a CUDA GPU")
    torch.manual_seed(0)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    c = matmul(a, b)
    return (c.float() - torch.matmul(a, b).float()).abs().max().item()


def max_error_numpy(M, N, K):
    import numpy as np
    from kperf.cuda import DeviceArray
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K), dtype=np.float32).astype(np.float16)
    b = rng.standard_normal((K, N), dtype=np.float32).astype(np.float16)
    c = matmul(DeviceArray.from_numpy(a), DeviceArray.from_numpy(b)).numpy()
    ref = a.astype(np.float32) @ b.astype(np.float32)
    return float(np.abs(c.astype(np.float32) - ref).max())


def time_torch_us(M, N, K):
    """Median time of one launch (triton.testing.do_bench, PyTorch inputs)."""
    import torch
    from triton.testing import do_bench
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    return 1e3 * do_bench(lambda: matmul(a, b), return_mode="median")


def main(argv):
    timed = "--time" in argv
    argv = [a for a in argv if a != "--time"]
    M, N, K = (int(x) for x in argv) if len(argv) == 3 else (4096, 4096, 4096)
    try:
        import torch  # noqa: F401
        err, against = max_error_torch(M, N, K), "torch"
    except ImportError:
        err, against = max_error_numpy(M, N, K), "numpy"
    print(f"matmul {M}x{N}x{K}: max |c - {against}| = {err:.3g}")
    if timed and against == "torch":
        us = time_torch_us(M, N, K)
        print(f"matmul {M}x{N}x{K}: {us:.1f} us a launch (median, do_bench), {2 * M * N * K / us * 1e-6:.0f} TFLOP/s")
    return 0 if err < 1e-1 * max(1.0, K ** 0.5) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
