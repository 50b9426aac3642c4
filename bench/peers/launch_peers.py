"""Host time per launch of torch and Triton, measured as `rtriton bench --launch-overhead`
measures rtriton: LAUNCHES launches of a one-program kernel back to back, then one
synchronize, divided by the launches; the median of REPEATS runs.

Rows: `torch.amax` of a 1x1 tensor (the row-max entry point's peer), a tiny Triton kernel
(`y = x + 1` on 32 elements, one program, cached after its first launch), the same kernel
autotuned over two configurations (a cached decision), and a torch CUDA graph of
GRAPH_KERNELS Triton launches replayed, per kernel.

    python3 bench/peers/launch_peers.py --out launch-peers.json
    rtriton bench --launch-overhead --peers launch-peers.json

`--dry-run` writes the rows with figures of 0 and needs no GPU.
"""

import argparse
import json
import statistics
import time

LAUNCHES = 20_000
REPEATS = 5
GRAPH_KERNELS = 100
ROWS = [
    "torch.amax, 1x1",
    "Triton kernel (cached)",
    "Triton kernel, autotuned (cached decision)",
    f"torch CUDA graph of {GRAPH_KERNELS} Triton launches, per kernel",
]


def per_launch(launch, sync, launches=LAUNCHES):
    for _ in range(100):
        launch()
    sync()
    runs = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        for _ in range(launches):
            launch()
        sync()
        runs.append((time.perf_counter() - t) * 1e6 / launches)
    return statistics.median(runs)


def measure():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def add_one(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0.0) + 1.0, mask=mask)

    @triton.autotune(configs=[triton.Config({}, num_warps=1), triton.Config({}, num_warps=2)], key=["n"])
    @triton.jit
    def add_one_tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask, other=0.0) + 1.0, mask=mask)

    sync = torch.cuda.synchronize
    x = torch.ones(32, device="cuda")
    y = torch.zeros(32, device="cuda")
    m = torch.ones(1, 1, device="cuda")
    rows = []
    rows.append(per_launch(lambda: torch.amax(m, dim=1), sync))
    rows.append(per_launch(lambda: add_one[(1,)](x, y, 32, BLOCK=32, num_warps=1), sync))
    rows.append(per_launch(lambda: add_one_tuned[(1,)](x, y, 32, BLOCK=32), sync))
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        add_one[(1,)](x, y, 32, BLOCK=32, num_warps=1)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=stream):
            for _ in range(GRAPH_KERNELS):
                add_one[(1,)](x, y, 32, BLOCK=32, num_warps=1)
    rows.append(per_launch(g.replay, sync, LAUNCHES // GRAPH_KERNELS) / GRAPH_KERNELS)
    assert torch.equal(y, x + 1), "add_one did not write x + 1"
    return torch.cuda.get_device_name(), rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    if a.dry_run:
        device, figures = "dry run", [0.0] * len(ROWS)
    else:
        device, figures = measure()
    rows = [{"what": w, "us_per_launch": f} for w, f in zip(ROWS, figures)]
    with open(a.out, "w") as f:
        json.dump({"device": device, "rows": rows}, f, indent=1)
    for r in rows:
        print(f"{r['what']}: {r['us_per_launch']:.2f} us")


if __name__ == "__main__":
    main()
