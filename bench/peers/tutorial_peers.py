#!/usr/bin/env python3
"""Peers for the tutorial ports: torch and Triton's tutorial kernels timed on
the same shapes, dtypes and methodology as `rtriton bench`, their outputs checked against
each other, results written as JSON.

Methodology: `triton.testing.do_bench` (it zeroes a 256 MB buffer before every timed call,
which flushes the L2, and times with CUDA events), median of the repetitions; bandwidth is
bytes read + written per second, the bytes counted per kernel below (the same count
`rtriton bench` uses).

Run on the GPU machine (torch 2.11, triton 3.6):
    python3 bench/peers/tutorial_peers.py --out peers.json
    python3 bench/peers/tutorial_peers.py --only softmax --dtype f32
Without a GPU, `--dry-run` lists what would be measured and writes that list as JSON.

The Triton kernels are written here after the tutorials (python/tutorials/ in
triton-lang/triton): 01-vector-add.py (`add_kernel`), 02-fused-softmax.py
(`softmax_kernel`, one row per program), 05-layer-norm.py (`_layer_norm_fwd_fused`,
`_layer_norm_bwd_dx_fused` with its lock, `_layer_norm_bwd_dwdb`), 03-matrix-multiplication.py
(`matmul_kernel` with its CUDA autotuning configurations, against `torch.matmul`, i.e.
cuBLAS; f32 multiplies as tf32 in both, as rtriton's `matmul_kernel_tf32` does). Matmul
rows also carry `tflops`, 2 M N K per second. Attention is measured against torch's
`scaled_dot_product_attention` on its flash backend, non-causal (`torch`) and causal
(`torch_causal`), and against 06-fused-attention.py's forward (`_attn_fwd` with block
pointers, autotuned; `triton`, `triton_causal`), `tflops` 4 Z H N^2 D per second, halved for causal;
its backward (`torch_bwd`, `torch_causal_bwd`) counts 2.5 times the forward's flops.
"""

import argparse
import json
import sys
import time

SHAPES_2D = [(4096, 1024), (4096, 4096), (4096, 16384), (2048, 32768), (32768, 1024)]
SHAPES_1D = [1 << 24, 1 << 28]
# M x N x K of the matmul points (`host/src/ports/matmul.rs`'s BENCH_SIZES).
SHAPES_MATMUL = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]
# Z x H x N x D of the attention points (`host/src/ports/attention.rs`'s BENCH_SHAPES).
SHAPES_ATTENTION = [(4, 32, 4096, 64), (4, 32, 4096, 128), (1, 16, 16384, 128)]
DTYPES = ["f32", "f16", "bf16", "i32"]
# The kernels measured in i32 too (the reductions port takes i32; the others are float only).
I32_KERNELS = ("sum", "amax", "argmax")
KERNELS = ["add", "softmax", "layer_norm_fwd", "layer_norm_bwd", "sum", "amax", "argmax", "gelu_tanh", "gelu_erf", "silu",
           "matmul", "attention"]
# Tolerances when two implementations are compared (atol, rtol), per dtype.
TOL = {"f32": (1e-5, 1e-5), "f16": (1e-2, 1e-2), "bf16": (2e-2, 2e-2), "i32": (0, 0)}


def plan(only, dtypes, shapes=None):
    """Every (kernel, dtype, shape) measured, in order; `shapes` (tuples), when given,
    replaces each kernel's shape list, in the order given (a measurement-order check)."""
    out = []
    for k in KERNELS:
        if only and k not in only:
            continue
        for dt in dtypes:
            if dt == "i32" and k not in I32_KERNELS:
                continue
            if k == "attention" and dt not in ("f16", "bf16"):
                continue
            own = {"add": SHAPES_1D, "matmul": SHAPES_MATMUL, "attention": SHAPES_ATTENTION}.get(k, SHAPES_2D)
            dims = len(own[0]) if isinstance(own[0], tuple) else 1
            for s in [t for t in shapes if len(t) == dims] if shapes else own:
                out.append((k, dt, s if isinstance(s, tuple) else (s,)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="tutorial_peers.json", help="JSON file to write")
    p.add_argument("--only", action="append", choices=KERNELS, help="only this kernel (repeatable)")
    p.add_argument("--dtype", action="append", choices=DTYPES, help="only this dtype (repeatable)")
    p.add_argument("--rep", type=int, default=100, help="do_bench repetition time in ms")
    p.add_argument("--shape", action="append", type=shape_arg,
                   help="MxNxK, ROWSxCOLS or N: only this shape, in the order given (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="list the measurements without a GPU")
    a = p.parse_args()
    todo = plan(a.only, a.dtype or DTYPES, a.shape)
    if a.dry_run:
        rows = [{"kernel": k, "dtype": dt, "shape": list(s)} for k, dt, s in todo]
        json.dump({"dry_run": True, "planned": rows}, open(a.out, "w"), indent=1)
        print(f"{len(rows)} measurements planned; written to {a.out}")
        return 0
    return run(todo, a)


def shape_arg(text):
    try:
        return tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not MxNxK, ROWSxCOLS or N")


# --- everything below needs torch, triton and a GPU -------------------------------------

def run(todo, a):
    import torch
    import triton

    k = kernels()
    env = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "methodology": "triton.testing.do_bench (L2 flushed before each call, CUDA events), median",
    }
    results = []
    for name, dt, shape in todo:
        torch.manual_seed(0)
        try:
            rows = MEASURE[name](k, dtype_of(dt), shape, a.rep)
        except Exception as e:  # a peer that fails is reported, not dropped
            rows = [{"impl": "error", "ms": None, "bytes": None, "check": f"{type(e).__name__}: {e}"}]
        for r in rows:
            r.update(kernel=name, dtype=dt, shape=list(shape))
            r["tbps"] = r["bytes"] / (r["ms"] * 1e-3) / 1e12 if r.get("ms") else None
            if "flops" in r:
                r["tflops"] = r["flops"] / (r["ms"] * 1e-3) / 1e12 if r.get("ms") else None
            results.append(r)
            tb = f"{r['tbps']:.3f} TB/s" if r["tbps"] else "-"
            if r.get("tflops"):
                tb = f"{r['tflops']:.1f} TFLOPS"
            print(f"{name:15} {dt:5} {str(shape):16} {r['impl']:8} {tb:>12}  {r['check']}", flush=True)
    json.dump({"env": env, "results": results}, open(a.out, "w"), indent=1)
    print(f"written to {a.out}")
    return 0


def dtype_of(name):
    import torch
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "i32": torch.int32}[name]


def bench(fn, rep, grad_to_none=None):
    import triton
    return triton.testing.do_bench(fn, warmup=25, rep=rep, grad_to_none=grad_to_none, return_mode="median")


def check(got, want, dt, tol=None):
    """'ok' or the largest difference, comparing two implementations (`tol`: (atol, rtol)
    instead of the dtype's)."""
    import torch
    atol, rtol = tol or TOL[{torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}.get(got.dtype, "f32")]
    try:
        torch.testing.assert_close(got.float(), want.float(), atol=atol, rtol=rtol)
        return "ok"
    except AssertionError as e:
        return "MISMATCH: " + str(e).splitlines()[-1][:160]


def kernels():
    """The Triton kernels, defined only when triton is importable."""
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

    @triton.jit
    def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        z = x - tl.max(x, axis=0)
        num = tl.exp(z)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=cols < n_cols)

    @triton.jit
    def ln_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        X += row * stride
        Y += row * stride
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            acc += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        mean = tl.sum(acc, axis=0) / N
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
            d = tl.where(cols < N, x - mean, 0.0)
            acc += d * d
        rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
        tl.store(Mean + row, mean)
        tl.store(Rstd + row, rstd)
        for off in range(0, N, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            m = cols < N
            x = tl.load(X + cols, mask=m, other=0.0).to(tl.float32)
            w = tl.load(W + cols, mask=m)
            b = tl.load(B + cols, mask=m)
            tl.store(Y + cols, ((x - mean) * rstd * w + b).to(Y.dtype.element_ty), mask=m)

    @triton.jit
    def ln_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP: tl.constexpr, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        m = cols < N
        X += row * stride
        DY += row * stride
        DX += row * stride
        lock_id = row % GROUP
        Lock += lock_id
        Count = Lock + GROUP
        DW = DW + lock_id * N + cols
        DB = DB + lock_id * N + cols
        x = tl.load(X + cols, mask=m, other=0).to(tl.float32)
        dy = tl.load(DY + cols, mask=m, other=0).to(tl.float32)
        w = tl.load(W + cols, mask=m).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(m, (x - mean) * rstd, 0.0)
        wdy = tl.where(m, w * dy, 0.0)
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        tl.store(DX + cols, ((wdy - (xhat * c1 + c2)) * rstd).to(DX.dtype.element_ty), mask=m)
        pdw = (dy * xhat).to(w.dtype)
        pdb = dy.to(w.dtype)
        while tl.atomic_cas(Lock, 0, 1) == 1:
            pass
        count = tl.load(Count)
        if count == 0:
            tl.atomic_xchg(Count, 1)
        else:
            pdw += tl.load(DW, mask=m)
            pdb += tl.load(DB, mask=m)
        tl.store(DW, pdw, mask=m)
        tl.store(DB, pdb, mask=m)
        tl.atomic_xchg(Lock, 0)

    @triton.jit
    def ln_bwd_dwdb(DW, DB, FDW, FDB, M, N, BM: tl.constexpr, BN: tl.constexpr):
        cols = tl.program_id(0) * BN + tl.arange(0, BN)
        dw = tl.zeros((BM, BN), dtype=tl.float32)
        db = tl.zeros((BM, BN), dtype=tl.float32)
        for i in range(0, M, BM):
            rows = i + tl.arange(0, BM)
            mk = (rows[:, None] < M) & (cols[None, :] < N)
            offs = rows[:, None] * N + cols[None, :]
            dw += tl.load(DW + offs, mask=mk, other=0.0)
            db += tl.load(DB + offs, mask=mk, other=0.0)
        tl.store(FDW + cols, tl.sum(dw, axis=0), mask=cols < N)
        tl.store(FDB + cols, tl.sum(db, axis=0), mask=cols < N)

    @triton.jit
    def epilogue(x_ptr, y_ptr, n, scale, bias, KIND: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m).to(tl.float32) * scale + bias
        if KIND == 0:  # gelu, tanh form
            inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
            y = 0.5 * x * (1 + (2 * tl.sigmoid(2 * inner) - 1))
        elif KIND == 1:  # gelu, erf form
            y = 0.5 * x * (1 + tl.math.erf(x * 0.7071067811865476))
        else:  # silu
            y = x * tl.sigmoid(x)
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=m)

    # Tutorial 03's `matmul_kernel` with its CUDA autotuning configurations
    # (`get_cuda_autotune_config`, the fp8 ones included), keyed on M, N, K as there.
    matmul_configs = [
        triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                      num_stages=stages, num_warps=warps)
        for bm, bn, bk, stages, warps in [
            (128, 256, 64, 3, 8), (64, 256, 32, 4, 4), (128, 128, 32, 4, 4), (128, 64, 32, 4, 4),
            (64, 128, 32, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 64, 32, 5, 2),
            (128, 256, 128, 3, 8), (256, 128, 128, 3, 8), (256, 64, 128, 4, 4), (64, 256, 128, 4, 4),
            (128, 128, 128, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (128, 32, 64, 4, 4),
        ]
    ]

    @triton.autotune(configs=matmul_configs, key=["M", "N", "K"])
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                      GROUP_SIZE_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
        num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
        num_pid_in_group = GROUP_SIZE_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
        offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c = accumulator.to(c_ptr.dtype.element_ty)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, c, mask=c_mask)

    # 06-fused-attention.py's forward: block pointers, online softmax in base 2, and for a
    # causal mask the tutorial's two passes (the keys wholly below the diagonal without a
    # mask, then the diagonal block with it). Autotuned as the tutorial does: its tiles and
    # warps, less its rule's (8 warps only for tiles of 128 x 128 or more), stages 3 and 4.
    attn_configs = [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
        for bm in (64, 128) for bn in (32, 64) for s in (3, 4) for w in (4, 8) if not (bm * bn < 128 * 128 and w == 8)
    ]

    @triton.jit
    def attn_fwd_keys(acc, l_i, m_i, q, K_ptr, V_ptr, start_m, qk_scale, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, PASS: tl.constexpr, offs_m, offs_n, N_CTX):
        # PASS 1: the keys before the query block's diagonal block; 2: that block, masked;
        # 3: every key (not causal).
        if PASS == 1:
            lo, hi = 0, start_m * BLOCK_M
        elif PASS == 2:
            lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
            lo = tl.multiple_of(lo, BLOCK_M)
        else:
            lo, hi = 0, N_CTX
        K_ptr = tl.advance(K_ptr, (0, lo))
        V_ptr = tl.advance(V_ptr, (lo, 0))
        for start_n in range(lo, hi, BLOCK_N):
            start_n = tl.multiple_of(start_n, BLOCK_N)
            qk = tl.dot(q, tl.load(K_ptr))
            if PASS == 2:
                keep = offs_m[:, None] >= (start_n + offs_n[None, :])
                qk = qk * qk_scale + tl.where(keep, 0, -1.0e6)
                m_ij = tl.maximum(m_i, tl.max(qk, 1))
                qk -= m_ij[:, None]
            else:
                m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
                qk = qk * qk_scale - m_ij[:, None]
            p = tl.math.exp2(qk)
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            acc = tl.dot(p.to(q.dtype), tl.load(V_ptr), acc)
            m_i = m_ij
            K_ptr = tl.advance(K_ptr, (0, BLOCK_N))
            V_ptr = tl.advance(V_ptr, (BLOCK_N, 0))
        return acc, l_i, m_i

    @triton.autotune(configs=attn_configs, key=["N_CTX", "HEAD_DIM", "CAUSAL"])
    @triton.jit
    def attn_fwd(Q, K, V, sm_scale, M, Out, stride_z, stride_h, stride_m, H, N_CTX,
                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
        start_m = tl.program_id(0)
        off_hz = tl.program_id(1)
        base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
        Q_ptr = tl.make_block_ptr(Q + base, (N_CTX, HEAD_DIM), (stride_m, 1), (start_m * BLOCK_M, 0),
                                  (BLOCK_M, HEAD_DIM), (1, 0))
        K_ptr = tl.make_block_ptr(K + base, (HEAD_DIM, N_CTX), (1, stride_m), (0, 0), (HEAD_DIM, BLOCK_N), (0, 1))
        V_ptr = tl.make_block_ptr(V + base, (N_CTX, HEAD_DIM), (stride_m, 1), (0, 0), (BLOCK_N, HEAD_DIM), (1, 0))
        O_ptr = tl.make_block_ptr(Out + base, (N_CTX, HEAD_DIM), (stride_m, 1), (start_m * BLOCK_M, 0),
                                  (BLOCK_M, HEAD_DIM), (1, 0))
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504
        q = tl.load(Q_ptr)
        if CAUSAL:
            acc, l_i, m_i = attn_fwd_keys(acc, l_i, m_i, q, K_ptr, V_ptr, start_m, qk_scale, BLOCK_M, BLOCK_N, 1,
                                          offs_m, offs_n, N_CTX)
            acc, l_i, m_i = attn_fwd_keys(acc, l_i, m_i, q, K_ptr, V_ptr, start_m, qk_scale, BLOCK_M, BLOCK_N, 2,
                                          offs_m, offs_n, N_CTX)
        else:
            acc, l_i, m_i = attn_fwd_keys(acc, l_i, m_i, q, K_ptr, V_ptr, start_m, qk_scale, BLOCK_M, BLOCK_N, 3,
                                          offs_m, offs_n, N_CTX)
        m_i += tl.math.log2(l_i)
        acc = acc / l_i[:, None]
        tl.store(M + off_hz * N_CTX + offs_m, m_i)
        tl.store(O_ptr, acc.to(Out.type.element_ty))

    return dict(add=add_kernel, softmax=softmax_kernel, ln_fwd=ln_fwd, ln_bwd_dx=ln_bwd_dx,
                ln_bwd_dwdb=ln_bwd_dwdb, epilogue=epilogue, matmul=matmul_kernel, attn_fwd=attn_fwd)


def warps_for(block):
    return 4 if block < 2048 else 8 if block < 4096 else 16


def m_add(k, dt, shape, rep):
    import torch
    import triton
    (n,) = shape
    x, y = torch.randn(n, device="cuda", dtype=dt), torch.randn(n, device="cuda", dtype=dt)
    out_t, out_r = torch.empty_like(x), torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    tri = lambda: k["add"][grid](x, y, out_r, n, BLOCK=1024)
    tor = lambda: torch.add(x, y, out=out_t)
    tri(); tor()
    b = 3 * n * x.element_size()
    return [dict(impl="torch", ms=bench(tor, rep), bytes=b, check="reference"),
            dict(impl="triton", ms=bench(tri, rep), bytes=b, check=check(out_r, out_t, dt))]


def m_softmax(k, dt, shape, rep):
    import torch
    import triton
    rows, cols = shape
    x = torch.randn(rows, cols, device="cuda", dtype=dt)
    y = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    tri = lambda: k["softmax"][(rows,)](y, x, x.stride(0), y.stride(0), cols, BLOCK=block, num_warps=warps_for(block))
    tor = lambda: torch.softmax(x, dim=1)
    tri()
    want = tor()
    b = 2 * x.numel() * x.element_size()
    return [dict(impl="torch", ms=bench(tor, rep), bytes=b, check="reference"),
            dict(impl="triton", ms=bench(tri, rep), bytes=b, check=check(y, want, dt))]


def ln_inputs(dt, shape):
    import torch
    rows, cols = shape
    x = -2.3 + 0.5 * torch.randn(rows, cols, device="cuda", dtype=dt)
    w = torch.rand(cols, device="cuda", dtype=dt)
    b = torch.rand(cols, device="cuda", dtype=dt)
    return x, w, b


def ln_triton_fwd(k, x, w, b, eps=1e-5):
    import torch
    import triton
    rows, cols = x.shape
    y = torch.empty_like(x)
    mean = torch.empty(rows, device="cuda", dtype=torch.float32)
    rstd = torch.empty(rows, device="cuda", dtype=torch.float32)
    block = min(65536 // x.element_size(), triton.next_power_of_2(cols))
    warps = min(max(block // 256, 1), 8)
    k["ln_fwd"][(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, eps, BLOCK=block, num_warps=warps)
    return y, mean, rstd, block, warps


def m_ln_fwd(k, dt, shape, rep):
    import torch
    x, w, b = ln_inputs(dt, shape)
    y = ln_triton_fwd(k, x, w, b)[0]
    want = torch.nn.functional.layer_norm(x, (shape[1],), w, b, 1e-5)
    tri = lambda: ln_triton_fwd(k, x, w, b)
    tor = lambda: torch.nn.functional.layer_norm(x, (shape[1],), w, b, 1e-5)
    byt = 2 * x.numel() * x.element_size()
    return [dict(impl="torch", ms=bench(tor, rep), bytes=byt, check="reference"),
            dict(impl="triton", ms=bench(tri, rep), bytes=byt, check=check(y, want, dt))]


def m_ln_bwd(k, dt, shape, rep):
    import torch
    import triton
    rows, cols = shape
    x, w, b = ln_inputs(dt, shape)
    dy = 0.1 * torch.randn_like(x)
    _, mean, rstd, block, warps = ln_triton_fwd(k, x, w, b)
    if cols > block:
        return [dict(impl="triton", ms=None, bytes=None, check="skipped: the tutorial's backward needs N <= 64 KB")]
    group = 64 if cols > 8192 else 96 if cols > 4096 else 128 if cols > 1024 else 256
    dx = torch.empty_like(x)
    dw, db = torch.empty(cols, device="cuda", dtype=dt), torch.empty(cols, device="cuda", dtype=dt)
    pdw = torch.empty(group, cols, device="cuda", dtype=dt)
    pdb = torch.empty(group, cols, device="cuda", dtype=dt)
    locks = torch.zeros(2 * group, device="cuda", dtype=torch.int32)

    def tri():
        locks.zero_()
        k["ln_bwd_dx"][(rows,)](dx, dy, pdw, pdb, x, w, mean, rstd, locks, x.stride(0), cols,
                                GROUP=group, BLOCK=block, num_warps=warps)
        k["ln_bwd_dwdb"][(triton.cdiv(cols, 128),)](pdw, pdb, dw, db, group, cols, BM=32, BN=128)

    xr, wr, br = (t.detach().clone().requires_grad_(True) for t in (x, w, b))
    yr = torch.nn.functional.layer_norm(xr, (cols,), wr, br, 1e-5)
    tor = lambda: yr.backward(dy, retain_graph=True)
    tri()
    tor()
    c = check(dx, xr.grad, dt)
    byt = 3 * x.numel() * x.element_size()
    return [dict(impl="torch", ms=bench(tor, rep, grad_to_none=[xr, wr, br]), bytes=byt, check="reference"),
            dict(impl="triton", ms=bench(tri, rep), bytes=byt, check=c)]


def m_reduce(op):
    def m(k, dt, shape, rep):
        import torch
        if dt == torch.int32:
            x = torch.randint(-1000, 1000, shape, device="cuda", dtype=dt)
        else:
            x = torch.randn(*shape, device="cuda", dtype=dt)
        out = []
        for dim in (1, 0):
            # dtype=x.dtype: an i32 sum stays i32, as rtriton's (torch would widen it to i64).
            f = {"sum": lambda: torch.sum(x, dim=dim, dtype=x.dtype), "amax": lambda: torch.amax(x, dim=dim),
                 "argmax": lambda: torch.argmax(x, dim=dim)}[op]
            r = f()
            byt = x.numel() * x.element_size() + r.numel() * r.element_size()
            out.append(dict(impl=f"torch_dim{dim}", ms=bench(f, rep), bytes=byt, check="reference"))
        return out
    return m


def m_epilogue(kind):
    def m(k, dt, shape, rep):
        import torch
        import torch.nn.functional as F
        import triton
        x = torch.randn(*shape, device="cuda", dtype=dt)
        y = torch.empty_like(x)
        n = x.numel()
        scale, bias = 1.25, -0.5
        code = {"gelu_tanh": 0, "gelu_erf": 1, "silu": 2}[kind]
        tor = {"gelu_tanh": lambda: F.gelu(x * scale + bias, approximate="tanh"),
               "gelu_erf": lambda: F.gelu(x * scale + bias),
               "silu": lambda: F.silu(x * scale + bias)}[kind]
        tri = lambda: k["epilogue"][(triton.cdiv(n, 1024),)](x, y, n, scale, bias, KIND=code, BLOCK=1024)
        tri()
        want = tor()
        byt = 2 * n * x.element_size()
        return [dict(impl="torch", ms=bench(tor, rep), bytes=byt, check="reference (unfused: 2-3 kernels)"),
                dict(impl="triton", ms=bench(tri, rep), bytes=byt, check=check(y, want, dt))]
    return m


def m_matmul(k, dt, shape, rep):
    import torch
    import triton
    m, n, kk = shape
    a = torch.randn(m, kk, device="cuda", dtype=dt)
    b = torch.randn(kk, n, device="cuda", dtype=dt)
    c = torch.empty(m, n, device="cuda", dtype=dt)
    # f32 multiplies as tf32 in cuBLAS too (rtriton's f32 kernel and Triton's tl.dot do).
    torch.backends.cuda.matmul.allow_tf32 = dt == torch.float32
    grid = lambda meta: (triton.cdiv(m, meta["BLOCK_SIZE_M"]) * triton.cdiv(n, meta["BLOCK_SIZE_N"]),)
    tri = lambda: k["matmul"][grid](a, b, c, m, n, kk, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                    c.stride(0), c.stride(1))
    tor = lambda: torch.matmul(a, b)
    tri()  # autotunes once for this (M, N, K)
    want = tor()
    byt = (m * kk + kk * n + m * n) * a.element_size()
    flops = 2 * m * n * kk
    # Sums of K products of N(0, 1) values are ~N(0, K): compare them scaled by sqrt(K);
    # f32 as tf32 (10 mantissa bits) is held to the 16-bit tolerance.
    scale = kk ** 0.5
    tol = TOL["bf16"] if dt == torch.bfloat16 else TOL["f16"]
    c_check = check(c.float() / scale, want.float() / scale, dt, tol)
    best = k["matmul"].best_config
    return [dict(impl="torch", ms=bench(tor, rep), bytes=byt, flops=flops, check="reference (cuBLAS)"),
            dict(impl="triton", ms=bench(tri, rep), bytes=byt, flops=flops, check=f"{c_check} (best config {best})")]


def m_attention(k, dt, shape, rep):
    """torch's scaled_dot_product_attention on its flash backend (mma.sync, as rtriton),
    non-causal (`torch`) and causal (`torch_causal`), sm_scale 1 / sqrt(D)."""
    import torch
    import torch.nn.functional as F
    import triton
    from torch.nn.attention import SDPBackend, sdpa_kernel
    z, h, n, d = shape
    q, kk, v = (torch.randn(z, h, n, d, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
    byt = 4 * z * h * n * d * q.element_size()
    rows = []
    for causal in (False, True):
        def tor():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(q, kk, v, is_causal=causal, scale=d ** -0.5)
        with torch.no_grad():
            tor()
        flops = 4 * z * h * n * n * d // (2 if causal else 1)
        name = "torch_causal" if causal else "torch"
        with torch.no_grad():
            ms = bench(tor, rep)
        rows.append(dict(impl=name, ms=ms, bytes=byt, flops=flops, check="reference (flash backend)"))
        # Triton's tutorial forward (contiguous [Z, H, N, D] tensors, as here).
        with torch.no_grad():
            o = torch.empty_like(q)
            lse = torch.empty(z, h, n, device="cuda", dtype=torch.float32)
            grid = lambda meta: (triton.cdiv(n, meta["BLOCK_M"]), z * h)
            tri = lambda: k["attn_fwd"][grid](q, kk, v, d ** -0.5, lse, o, q.stride(0), q.stride(1), q.stride(2), h, n,
                                              HEAD_DIM=d, CAUSAL=causal)
            tri()  # autotunes once for this (N, D, causal)
            want = tor()
            o_check = check(o, want, dt)
            best = k["attn_fwd"].best_config
            rows.append(dict(impl="triton" + name[len("torch"):], ms=bench(tri, rep), bytes=byt, flops=flops,
                             check=f"{o_check} (best config {best})"))
        # The backward alone: dq, dk, dv from a saved forward (the tutorial counts 2.5 times
        # the forward's flops; q, k, v, o, do read, dq, dk, dv written).
        out = tor()
        d_o = torch.randn_like(out)
        bwd = lambda: torch.autograd.grad(out, (q, kk, v), d_o, retain_graph=True)
        rows.append(dict(impl=name + "_bwd", ms=bench(bwd, rep), bytes=2 * byt, flops=flops * 5 // 2,
                         check="reference (flash backend)"))
    return rows


MEASURE = {"add": m_add, "softmax": m_softmax, "layer_norm_fwd": m_ln_fwd, "layer_norm_bwd": m_ln_bwd,
           "sum": m_reduce("sum"), "amax": m_reduce("amax"), "argmax": m_reduce("argmax"),
           "gelu_tanh": m_epilogue("gelu_tanh"), "gelu_erf": m_epilogue("gelu_erf"), "silu": m_epilogue("silu"),
           "matmul": m_matmul, "attention": m_attention}

if __name__ == "__main__":
    sys.exit(main())
