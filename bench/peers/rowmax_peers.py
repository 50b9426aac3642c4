#!/usr/bin/env python3
"""Peers for the row max: torch.amax(x, dim=1), an autotuned Triton row-max (a
2-D [BLOCK_M, BLOCK_N] tile kernel with BLOCK_M/BLOCK_N/num_warps configurations) and the
CUDA warp-shuffle reference (kernels-gpu/cuda/row_max_ref.cu through cupy's RawKernel),
timed on the shapes and views `rtriton bench` uses, each result checked exact, written
as JSON that `rtriton bench --peers FILE` merges into its table.

Shapes use `rtriton bench`'s names, ROWSxCOLS[:VIEW] with VIEW one of
  contiguous  row-major                         strides (COLS, 1)
  T           (COLSxROWS).T                     strides (1, ROWS)
  stride=K    x[:, ::K] of ROWS x (COLS*K)      strides (COLS*K, K)
  offset=K    x.view(-1)[K:].view(ROWS, COLS)   strides (COLS, 1), K elements in
and the default list is the issue's target table.

Methodology: triton.testing.do_bench (it zeroes a 256 MB buffer before every call, which
flushes the L2, and times each call with CUDA events), 25 ms of warm-up, `--rep` ms of
repetitions, the median and the 10/90 percentiles and extremes of the repetitions.
Bandwidth = rows x cols x 4 bytes / median (bytes of the view read), as in `rtriton bench`.
Exactness: every result equals torch.amax's bit for bit (max is exact in any order), and
torch.amax's equals a row-chunked torch.max(dim=1).

Run on the GPU machine (torch 2.11, triton 3.6, cupy):
    python3 bench/peers/rowmax_peers.py --out rowmax_peers.json
    python3 bench/peers/rowmax_peers.py --shape 4096x1000 --shape 8192x16384:T
Without a GPU, `--dry-run` writes the planned rows (ms null, check "SKIPPED: dry run")
in the same format, which `rtriton bench --load ... --peers ...` reads.
"""

import argparse
import json
import os
import re
import sys
import time

DEFAULT_SHAPES = [
    "32768x32768",
    "65537x32768",
    "8192x8192",
    "1048576x32",
    "64x4194304",
    "8192x16384:T",
    "8192x8192:stride=2",
    "4096x1000",
    "1x1",
    "3x7",
    "1000x1",
]
IMPLS = ["torch.amax", "triton_autotuned", "cuda_reference"]
FORM = "write ROWSxCOLS[:VIEW] with VIEW one of contiguous, T, stride=K, offset=K (e.g. 8192x16384:T)"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CUDA_SOURCE = os.path.join(REPO, "kernels-gpu", "cuda", "row_max_ref.cu")
REF_THREADS = 256  # kernels-gpu/src/reference.rs: ROW_MAX_REF_THREADS


class ShapeError(ValueError):
    pass


def parse_shape(text):
    """`ROWSxCOLS[:VIEW]` -> dict(name, n_rows, n_cols, view, k), as rtriton's BenchShape::parse."""
    dims, _, view = text.partition(":")
    if "x" not in dims:
        raise ShapeError(f"no `x` between ROWS and COLS; {FORM}")
    rows, _, cols = dims.partition("x")

    def number(t, what, zero_ok=False):
        if not re.fullmatch(r"[0-9]+", t):
            raise ShapeError(f"{what} `{t}` is not a whole number; {FORM}")
        n = int(t)
        if n == 0 and not zero_ok:
            raise ShapeError(f"{what} `{t}` must be at least 1; {FORM}")
        return n

    r, c = number(rows, "ROWS"), number(cols, "COLS")
    if view in ("", "contiguous"):
        kind, k = "contiguous", 0
    elif view == "T":
        kind, k = "T", 0
    elif view.startswith("stride="):
        kind, k = "stride", number(view[len("stride="):], "the stride K")
    elif view.startswith("offset="):
        kind, k = "offset", number(view[len("offset="):], "the offset K", zero_ok=True)
    else:
        raise ShapeError(f"unknown view `{view}`; {FORM}")
    suffix = {"contiguous": "", "T": ":T", "stride": f":stride={k}", "offset": f":offset={k}"}[kind]
    return {"name": f"{r}x{c}{suffix}", "n_rows": r, "n_cols": c, "view": kind, "k": k}


def layout(s):
    """(stride_row, stride_col, offset, buffer_len) in elements, as rtriton's BenchShape::layout."""
    r, c, k = s["n_rows"], s["n_cols"], s["k"]
    return {
        "contiguous": (c, 1, 0, r * c),
        "T": (1, r, 0, r * c),
        "stride": (c * k, k, 0, r * c * k),
        "offset": (c, 1, k, r * c + k),
    }[s["view"]]


def row_for(s, impl):
    stride_row, stride_col, offset, _ = layout(s)
    return {
        "shape": s["name"], "n_rows": s["n_rows"], "n_cols": s["n_cols"],
        "stride_row": stride_row, "stride_col": stride_col, "offset": offset,
        "impl": impl, "config": "", "ms": None, "p10_ms": None, "p90_ms": None, "min_ms": None, "max_ms": None,
        "bytes": s["n_rows"] * s["n_cols"] * 4, "check": "SKIPPED: dry run",
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="rowmax_peers.json", help="JSON file to write")
    p.add_argument("--shape", action="append", help="ROWSxCOLS[:VIEW] (repeatable; default: the issue's table)")
    p.add_argument("--only", action="append", choices=IMPLS, help="only this implementation (repeatable)")
    p.add_argument("--rep", type=int, default=100, help="do_bench repetition time in ms")
    p.add_argument("--dry-run", action="store_true", help="write the planned rows without a GPU")
    a = p.parse_args(argv)
    try:
        shapes = [parse_shape(t) for t in (a.shape or DEFAULT_SHAPES)]
    except ShapeError as e:
        p.error(f"--shape: {e}")
    impls = a.only or IMPLS
    if a.dry_run:
        results = [row_for(s, i) for s in shapes for i in impls]
        write(a.out, {"dry_run": True, "methodology": METHODOLOGY}, results)
        print(f"{len(results)} measurements planned; written to {a.out}")
        return 0
    return run(shapes, impls, a)


METHODOLOGY = (
    "triton.testing.do_bench (256 MB zeroed before each call to flush L2, CUDA events), "
    "median and quantiles of the repetitions; GB/s = rows x cols x 4 / median; every result bit-equal to torch.amax"
)


def write(path, env, results):
    with open(path, "w") as f:
        json.dump({"env": env, "results": results}, f, indent=1)


# --- everything below needs torch, triton, cupy and a GPU -------------------------------

def run(shapes, impls, a):
    import torch

    env = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "methodology": METHODOLOGY,
    }
    tuned = triton_row_max() if "triton_autotuned" in impls else None
    ref = cuda_reference() if "cuda_reference" in impls else None
    results = []
    for s in shapes:
        torch.cuda.empty_cache()
        try:
            base, x = make_view(s)
            want = torch.amax(x, dim=1)
            check_torch = exact(want, chunked_max(x))
        except Exception as e:  # a shape that cannot be built is reported for every impl
            for impl in impls:
                r = row_for(s, impl)
                r["check"] = f"ERROR: {type(e).__name__}: {e}"
                results.append(r)
                show(r)
            continue
        for impl in impls:
            r = row_for(s, impl)
            try:
                if impl == "torch.amax":
                    fn = lambda: torch.amax(x, dim=1)  # noqa: E731
                    r["check"] = check_torch
                elif impl == "triton_autotuned":
                    y = torch.empty(s["n_rows"], device="cuda", dtype=torch.float32)
                    fn = lambda: tuned(x, y)  # noqa: E731
                    fn()
                    r["check"] = exact(y, want)
                    r["config"] = str(tuned.kernel.best_config)
                elif impl == "cuda_reference":
                    if isinstance(ref, str):
                        r["check"] = f"SKIPPED: {ref}"
                        results.append(r)
                        show(r)
                        continue
                    y = torch.empty(s["n_rows"], device="cuda", dtype=torch.float32)
                    fn = lambda: ref(base, x, y, s)  # noqa: E731
                    fn()
                    r["check"] = exact(y, want)
                    r["config"] = f"one block of {REF_THREADS} threads per row (cupy NVRTC, this GPU's arch)"
                if r["check"] == "ok":
                    q = triton.testing.do_bench(fn, warmup=25, rep=a.rep, quantiles=[0.5, 0.1, 0.9, 0.0, 1.0])
                    r["ms"], r["p10_ms"], r["p90_ms"], r["min_ms"], r["max_ms"] = q
            except Exception as e:  # a peer that fails is reported, not dropped
                r["check"] = f"ERROR: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            results.append(r)
            show(r)
        del base, x, want
    write(a.out, env, results)
    print(f"written to {a.out}")
    return 0


def show(r):
    gbps = f"{r['bytes'] / (r['ms'] * 1e-3) / 1e9:8.0f} GB/s" if r.get("ms") else "           -"
    print(f"{r['shape']:20} {r['impl']:17} {gbps}  {r['check']}  {r['config']}", flush=True)


def make_view(s):
    """(base buffer as a flat tensor, the ROWS x COLS view of it), values in [-1000, 1000)."""
    import torch

    r, c, k = s["n_rows"], s["n_cols"], s["k"]
    _, _, offset, n = layout(s)
    g = torch.Generator(device="cuda").manual_seed(12)
    base = torch.rand(n, device="cuda", dtype=torch.float32, generator=g).mul_(2000.0).sub_(1000.0)
    if s["view"] == "contiguous":
        x = base.view(r, c)
    elif s["view"] == "T":
        x = base.view(c, r).t()
    elif s["view"] == "stride":
        x = base.view(r, c * k)[:, ::k]
    else:
        x = base[offset:].view(r, c)
    stride_row, stride_col, _, _ = layout(s)
    assert x.shape == (r, c) and x.stride() == (stride_row, stride_col), (x.shape, x.stride())
    assert x.storage_offset() == offset
    return base, x


def chunked_max(x, rows_per_chunk=4096):
    import torch

    return torch.cat([torch.max(x[i:i + rows_per_chunk], dim=1).values for i in range(0, x.shape[0], rows_per_chunk)])


def exact(got, want):
    """'ok' when bit-equal, else how many rows differ and the first."""
    import torch

    same = got.view(torch.int32) == want.view(torch.int32)
    if bool(same.all()):
        return "ok"
    bad = (~same).nonzero().flatten()
    i = int(bad[0])
    return f"MISMATCH: {bad.numel()} of {got.numel()} rows differ; row {i}: {float(got[i])!r} vs {float(want[i])!r}"


# The Triton kernel is defined at module level (Triton resolves the names a kernel uses, such
# as `tl`, in its module's globals), and only where triton imports, so --dry-run needs none.
try:
    import triton
    import triton.language as tl
except ImportError:  # no triton here: only --dry-run can run
    triton = None

if triton is not None:
    TRITON_CONFIGS = [
        triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=w)
        for m, n, w in [
            (1, 2048, 8), (1, 4096, 16), (2, 1024, 8), (4, 512, 4), (8, 256, 4), (16, 128, 4),
            (32, 64, 4), (64, 32, 4), (128, 16, 4), (64, 64, 8), (128, 32, 8), (256, 8, 4),
        ]
    ]

    @triton.autotune(configs=TRITON_CONFIGS, key=["n_rows", "n_cols", "stride_row", "stride_col"])
    @triton.jit
    def row_max_2d_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
        row_mask = rows < n_rows
        row_ptrs = x_ptr + rows[:, None] * stride_row
        cols = tl.arange(0, BLOCK_N)
        acc = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            c = start + cols
            mask = row_mask[:, None] & (c < n_cols)[None, :]
            v = tl.load(row_ptrs + (c.to(tl.int64) * stride_col)[None, :], mask=mask, other=float("-inf"))
            acc = tl.maximum(acc, v)
        tl.store(y_ptr + rows, tl.max(acc, axis=1), mask=row_mask)


def triton_row_max():
    """The autotuned Triton row max as `launch(x, y)`; `launch.kernel.best_config` after a call."""

    def launch(x, y):
        n_rows, n_cols = x.shape
        grid = lambda meta: (triton.cdiv(n_rows, meta["BLOCK_M"]),)  # noqa: E731
        row_max_2d_kernel[grid](x, y, n_rows, n_cols, x.stride(0), x.stride(1))

    launch.kernel = row_max_2d_kernel
    return launch


def cuda_reference():
    """The repository's CUDA reference through cupy (NVRTC for this GPU), or why not."""
    try:
        import cupy as cp
        import numpy as np
    except ImportError as e:
        return f"cupy is not importable ({e}); `rtriton bench` times the reference itself"
    with open(CUDA_SOURCE) as f:
        src = f.read()
    # No fast math: fmaxf must stay IEEE maxNum, as the NVRTC build in host/src/reference.rs.
    kernel = cp.RawKernel(src, "row_max_ref", options=("-ftz=false",))

    def launch(base, x, y, s):
        stride_row, stride_col, offset, _ = layout(s)
        args = (cp.asarray(base), cp.asarray(y), np.int64(offset), np.int64(s["n_rows"]), np.int64(s["n_cols"]),
                np.int64(stride_row), np.int64(stride_col))
        kernel((s["n_rows"],), (REF_THREADS,), args)

    return launch


if __name__ == "__main__":
    sys.exit(main())
