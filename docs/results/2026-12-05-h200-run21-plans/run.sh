#!/usr/bin/env bash
# Run 21, 2026-12-05: the plans run 20 chose, at main (one device call):
#   1. every ignored test (86 s in run 19): the PTX writer prints plain `add.f32` where no
#      operand can be a product (`writer/rounding.rs`, every kernel's PTX), and the
#      epilogue's GPU suites check `div.full` dividing the numerator itself, which can be
#      subnormal (the suites' sweeps reach it);
#   2. the epilogue bench with torch and Triton (f32 at 8 warps, 16-bit GELU-tanh/SiLU at
#      .minnctapersm 16; since run 20, fewer SASS instructions an element for every
#      activation: docs/ports.md, "Epilogue");
#   3. i32 argmax with torch (column splits in two launches), then again with
#      `--min-ctas 8` and no peers: whether the one-launch form (the `dim0, other split
#      form` rows now) is slow for want of CTAs (68 registers: 7 CTAs of 128 threads an SM;
#      the bound gives 64 registers, 8 CTAs, as its partials kernel has).
# Usage on the device, from the repository root: bash tools/gpu/exp/run21-plans.sh
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz"]
B=$OUT
summary() { grep -E "^\| (gelu|silu|argmax)" "$1" | cut -d'|' -f2-8; }
mkdir -p $B/ignored && OUT=$B/ignored THREADS=8 NT_TIMEOUT=300 bash .gpu/run.sh ignored | tail -3
mkdir -p $B/epilogue && OUT=$B/epilogue KERNELS=epilogue BENCH_TIMEOUT=120 PEERS_ONLY="gelu_tanh gelu_erf silu" PEERS_TIMEOUT=100 \
    bash .gpu/run.sh ports-bench > /dev/null 2>&1
summary $B/epilogue/combined.md
mkdir -p $B/argmax && OUT=$B/argmax KERNELS=reduce DTYPES=i32 POINTS="argmax" BENCH_TIMEOUT=60 PEERS_ONLY="argmax" PEERS_TIMEOUT=60 \
    bash .gpu/run.sh ports-bench > /dev/null 2>&1
summary $B/argmax/combined.md
mkdir -p $B/argmax-min8 && OUT=$B/argmax-min8 KERNELS=reduce DTYPES=i32 POINTS="argmax (dim0" BENCH_TIMEOUT=60 PEERS=0 \
    OVERRIDES="--min-ctas 8" bash .gpu/run.sh ports-bench > /dev/null 2>&1
summary $B/argmax-min8/combined.md
(cd $B && tar czf run21.tgz ignored epilogue argmax argmax-min8 && rm -rf ignored epilogue argmax argmax-min8)
