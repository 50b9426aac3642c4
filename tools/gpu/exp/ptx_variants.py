"""Times hand-edited PTX variants of one kernel against each other (an experiment before
a back-end knob exists): loads each PTX file with cupy, launches it on the same inputs,
checks the outputs agree with the first file's, and prints the median of event-timed
launches with the L2 flushed (256 MiB written) before each, as `rtriton bench` does.

Usage: python3 ptx_variants.py ROWS COLS DTYPE GRID:FILE [GRID:FILE ...]
(GRID `rows` means one program per row.) The kernels take the softmax ports' parameters:
out, in, in_row_stride, in_col_stride, out_row_stride, out_col_stride, n_rows, n_cols.
"""
import re
import sys

import cupy as cp
import numpy as np


def main():
    rows, cols, dtype = int(sys.argv[1]), int(sys.argv[2]), {"f32": cp.float32, "f16": cp.float16}[sys.argv[3]]
    x = cp.random.standard_normal((rows, cols), dtype=cp.float32).astype(dtype)
    flush = cp.empty(256 << 20, dtype=cp.uint8)
    ref = None
    for spec in sys.argv[4:]:
        grid_text, path = spec.split(":", 1)
        grid = rows if grid_text == "rows" else int(grid_text)
        text = open(path).read()
        name = re.search(r"\.entry (\w+)\(", text).group(1)
        threads = int(re.search(r"\.maxntid (\d+)", text).group(1))
        fn = cp.RawModule(path=path).get_function(name)
        y = cp.full((rows, cols), -1, dtype=dtype)
        args = (y, x, np.int32(cols), np.int32(1), np.int32(cols), np.int32(1), np.int32(rows), np.int32(cols))
        launch = lambda: fn((grid,), (threads,), args)
        launch()
        cp.cuda.Device().synchronize()
        if ref is None:
            ref = y.copy()
        same = bool(cp.array_equal(y, ref))
        times = []
        for _ in range(5 + 50):
            flush.fill(1)
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            launch()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        ms = float(np.median(times[5:]))
        tbs = 2 * x.nbytes / (ms * 1e-3) / 1e12
        print(f"{path}: grid {grid} x {threads} threads: {ms:.4f} ms, {tbs:.3f} TB/s, output equal to the first: {same}")


main()
