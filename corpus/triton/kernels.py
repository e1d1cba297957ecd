"""Triton kernels for kperf's corpus of real GPU kernels in LLVM IR.

Written for this corpus (not copied from Triton's tutorials). Each kernel is
compiled without a GPU for sm_90 by scripts/corpus_compile.py, which also
holds the signature, constexprs and launch options of each one (KERNELS at the
end of this file).

What each kernel is meant to exercise once Triton lowers it for Hopper:
  matmul_pipelined      pointer loads pipelined into cp.async, wgmma, one K loop
  matmul_persistent     TMA descriptors (cp.async.bulk.tensor + mbarrier),
                        wgmma, a persistent tile loop split by warp
                        specialization into producer/consumer partitions
  attention_fwd_causal  two tl.dot per KV block (wgmma), online softmax, two
                        KV loops (below the diagonal unmasked, on it masked)
  softmax               a reduction-only kernel: a row loop, no tensor cores
  layernorm             two loops over column chunks (statistics, normalize)
"""

import triton
import triton.language as tl


@triton.jit
def _tile_coords(tile, num_m, num_n, GROUP_M: tl.constexpr):
    # Groups of GROUP_M row tiles walk the N tiles together so the B tiles
    # they share stay in L2.
    per_group = GROUP_M * num_n
    group = tile // per_group
    first_m = group * GROUP_M
    rows = tl.minimum(num_m - first_m, GROUP_M)
    in_group = tile % per_group
    return first_m + in_group % rows, in_group // rows


@triton.jit
def matmul_pipelined(a_ptr, b_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    """C[M,N] (fp16) = A[M,K] (fp16) @ B[K,N] (fp16), accumulated in fp32.

    One program per BM x BN output tile. The K loop only issues loads and one
    tl.dot, so Triton's pipeliner (num_stages) turns the loads into cp.async
    into a ring of shared-memory stages and the dot into async wgmma.
    """
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    tm, tn = _tile_coords(tl.program_id(0), num_m, num_n, GROUP_M)

    rows = tm * BM + tl.arange(0, BM)
    cols = tn * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    row_ok = rows < M
    col_ok = cols < N
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        # Masks stay constant along each tile's contiguous dimension (M, N
        # and K are specialized as multiples of 16), so loads remain 16-byte
        # vectors and can become cp.async.
        k_ok = ks < K - k0
        a = tl.load(a_tile, mask=row_ok[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(b_tile, mask=k_ok[:, None] & col_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK * stride_ak
        b_tile += BK * stride_bk

    c = acc.to(tl.float16)
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def matmul_persistent(a_desc, b_desc, c_desc, M, N, K,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                      NUM_PROGRAMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    """Persistent, warp-specialized C = A @ B (fp16 in, fp32 accumulate) through TMA.

    a_desc: [M, K] fp16 in BM x BK tiles; b_desc: [K, N] fp16 in BK x BN tiles;
    c_desc: [M, N] fp16 in BM x BN tiles. A grid of NUM_PROGRAMS programs (one
    per SM) strides over all output tiles with tl.range.

    Warp specialization on sm_90 with Triton 3.9 (checked by compiling):
    tl.range(..., warp_specialize=True) is taken by the Hopper pass
    (add_hopper_warpspec in backends/nvidia/compiler.py:make_ttgir). With
    BM=64, BN=128, BK=64, num_warps=4 it splits the tile loop into a TMA
    producer and two wgmma consumer partitions: 12 warps, nvvm.reqntid 384,
    ttg.warp_specialize in the TTGIR. What did not work: flatten=True (the
    loop nest is fused first and no partitions are made: still 4 warps), and
    BM=128 with 4 warps (the pass fails: "descriptor block and tensor must
    have the same number of elements").
    """
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    num_tiles = num_m * num_n
    k_steps = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_PROGRAMS, warp_specialize=WARP_SPECIALIZE):
        tm, tn = _tile_coords(tile, num_m, num_n, GROUP_M)
        off_m = tm * BM
        off_n = tn * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(k_steps):
            a = a_desc.load([off_m, kk * BK])
            b = b_desc.load([kk * BK, off_n])
            acc = tl.dot(a, b, acc)
        c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def _attn_block(acc, m_i, l_i, q, k_ptrs, v_ptrs, kv_start, kv_len, offs_m, offs_n, stride_kn, stride_vn,
                qk_scale, CAUSAL_MASK: tl.constexpr, BN: tl.constexpr):
    # One KV block: S = Q K^T, online-softmax update of (m, l, acc), acc += P V.
    kv_idx = kv_start + offs_n
    in_seq = kv_idx < kv_len
    k = tl.load(k_ptrs + kv_start * stride_kn, mask=in_seq[None, :], other=0.0)
    s = tl.dot(q, k) * qk_scale
    keep = in_seq[None, :]
    if CAUSAL_MASK:
        keep = keep & (offs_m[:, None] >= kv_idx[None, :])
    s = tl.where(keep, s, float("-inf"))
    m_new = tl.maximum(m_i, tl.max(s, 1))
    alpha = tl.math.exp2(m_i - m_new)
    p = tl.math.exp2(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, 1)
    v = tl.load(v_ptrs + kv_start * stride_vn, mask=in_seq[:, None], other=0.0)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(tl.float16), v, acc)
    return acc, m_new, l_i


@triton.jit
def attention_fwd_causal(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale,
                         stride_qh, stride_qm, stride_kh, stride_kn, stride_vh, stride_vn, stride_oh, stride_om,
                         HEAD_DIM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """Causal attention forward for one (batch*head, BM query rows) per program.

    Q, K, V, O: [B*H, seq_len, HEAD_DIM] fp16 with unit stride in the last
    dimension. grid = (cdiv(seq_len, BM), B*H). BM is a multiple of BN, so the
    KV blocks split into those entirely at or below the diagonal (no causal
    mask needed) and the BM // BN blocks that the diagonal crosses.
    """
    start_m = tl.program_id(0) * BM
    head = tl.program_id(1).to(tl.int64)
    offs_m = start_m + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD_DIM)

    q_ptrs = q_ptr + head * stride_qh + offs_m[:, None] * stride_qm + offs_d[None, :]
    q = tl.load(q_ptrs, mask=offs_m[:, None] < seq_len, other=0.0)
    # K is read transposed: a HEAD_DIM x BN tile.
    k_ptrs = k_ptr + head * stride_kh + offs_n[None, :] * stride_kn + offs_d[:, None]
    v_ptrs = v_ptr + head * stride_vh + offs_n[:, None] * stride_vn + offs_d[None, :]

    # exp(x) = exp2(x * log2(e)): fold log2(e) into the scale once.
    qk_scale = sm_scale * 1.4426950408889634
    m_i = tl.full((BM, ), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BM, ), dtype=tl.float32)
    acc = tl.zeros((BM, HEAD_DIM), dtype=tl.float32)

    # Blocks strictly left of this program's rows: every key is visible.
    for kv_start in range(0, start_m, BN):
        acc, m_i, l_i = _attn_block(acc, m_i, l_i, q, k_ptrs, v_ptrs, kv_start, seq_len, offs_m, offs_n,
                                    stride_kn, stride_vn, qk_scale, False, BN)
    # Blocks the diagonal crosses: mask keys after the query.
    for kv_start in range(start_m, start_m + BM, BN):
        acc, m_i, l_i = _attn_block(acc, m_i, l_i, q, k_ptrs, v_ptrs, kv_start, seq_len, offs_m, offs_n,
                                    stride_kn, stride_vn, qk_scale, True, BN)

    out = acc / l_i[:, None]
    o_ptrs = o_ptr + head * stride_oh + offs_m[:, None] * stride_om + offs_d[None, :]
    tl.store(o_ptrs, out.to(tl.float16), mask=offs_m[:, None] < seq_len)


@triton.jit
def softmax(out_ptr, in_ptr, n_rows, n_cols, in_stride, out_stride, BLOCK: tl.constexpr):
    """Row softmax of an fp32 [n_rows, n_cols] matrix, n_cols <= BLOCK.

    A fixed grid of programs strides over the rows (tl.range pipelines the
    next row's load behind this row's reductions).
    """
    cols = tl.arange(0, BLOCK)
    in_row = cols < n_cols
    for r in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=2):
        x = tl.load(in_ptr + r * in_stride + cols, mask=in_row, other=float("-inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + r * out_stride + cols, y, mask=in_row)


@triton.jit
def layernorm(y_ptr, x_ptr, w_ptr, b_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    """LayerNorm of one fp16 row per program, fp32 statistics, any n_cols.

    Pass 1 accumulates sum and sum of squares over BLOCK-wide chunks; pass 2
    normalizes and applies the affine weight and bias.
    """
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    s1 = tl.zeros((BLOCK, ), dtype=tl.float32)
    s2 = tl.zeros((BLOCK, ), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        s1 += x
        s2 += x * x
    mean = tl.sum(s1, axis=0) / n_cols
    var = tl.sum(s2, axis=0) / n_cols - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for c0 in range(0, n_cols, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        ok = cols < n_cols
        x = tl.load(x_row + cols, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        tl.store(y_row + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=ok)


# ---- compile specifications ---------------------------------------------------
# signature: every parameter, "constexpr" for compile-time ones (values in
# constexprs). aligned: parameters the JIT would specialize as divisible by 16
# (pointers from torch allocations, strides and sizes that are multiples of
# 16), which lets Triton vectorize loads into 16-byte cp.async.

_MM = dict(BM=128, BN=128, BK=64, GROUP_M=8)

KERNELS = {
    "matmul_pipelined": dict(
        fn=matmul_pipelined,
        signature={
            "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
            "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
            "stride_cm": "i32", "stride_cn": "constexpr", **{k: "constexpr" for k in _MM}
        },
        constexprs={"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, **_MM},
        aligned=["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
        options=dict(num_warps=8, num_stages=4),
    ),
    "matmul_persistent": dict(
        fn=matmul_persistent,
        signature={
            "a_desc": "tensordesc<fp16[64, 64]>", "b_desc": "tensordesc<fp16[64, 128]>",
            "c_desc": "tensordesc<fp16[64, 128]>", "M": "i32", "N": "i32", "K": "i32",
            **{k: "constexpr" for k in _MM}, "NUM_PROGRAMS": "constexpr", "WARP_SPECIALIZE": "constexpr"
        },
        # 132 = SMs of an H100 SXM.
        constexprs={"BM": 64, "BN": 128, "BK": 64, "GROUP_M": 8, "NUM_PROGRAMS": 132, "WARP_SPECIALIZE": True},
        aligned=["M", "N", "K"],
        options=dict(num_warps=4, num_stages=3),
    ),
    "attention_fwd_causal": dict(
        fn=attention_fwd_causal,
        signature={
            "q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16", "seq_len": "i32",
            "sm_scale": "fp32", **{
                s: "i32"
                for s in ("stride_qh", "stride_qm", "stride_kh", "stride_kn", "stride_vh", "stride_vn", "stride_oh",
                          "stride_om")
            }, "HEAD_DIM": "constexpr", "BM": "constexpr", "BN": "constexpr"
        },
        constexprs={"HEAD_DIM": 64, "BM": 128, "BN": 64},
        aligned=[
            "q_ptr", "k_ptr", "v_ptr", "o_ptr", "seq_len", "stride_qh", "stride_qm", "stride_kh", "stride_kn",
            "stride_vh", "stride_vn", "stride_oh", "stride_om"
        ],
        options=dict(num_warps=8, num_stages=3),
    ),
    "softmax": dict(
        fn=softmax,
        signature={
            "out_ptr": "*fp32", "in_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32", "in_stride": "i32",
            "out_stride": "i32", "BLOCK": "constexpr"
        },
        constexprs={"BLOCK": 1024},
        aligned=["out_ptr", "in_ptr", "in_stride", "out_stride"],
        options=dict(num_warps=4, num_stages=2),
    ),
    "layernorm": dict(
        fn=layernorm,
        signature={
            "y_ptr": "*fp16", "x_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16", "n_cols": "i32", "stride": "i32",
            "eps": "fp32", "BLOCK": "constexpr"
        },
        constexprs={"BLOCK": 1024},
        aligned=["y_ptr", "x_ptr", "w_ptr", "b_ptr", "n_cols", "stride"],
        options=dict(num_warps=4, num_stages=1),
    ),
}
