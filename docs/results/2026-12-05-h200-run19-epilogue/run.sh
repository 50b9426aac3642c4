#!/usr/bin/env bash
# Run 19, prepared 2026-12-05 00:00 UTC by a session without a device (see
# docs/results/pending-measurements.md). Usage on the device, from the repository root:
#   bash .gpu/ep/run19.sh A   every ignored test at main (the fdiv epilogue), then the
#                             epilogue bench at main with the peers (torch, Triton)
#   bash .gpu/ep/run19.sh B   the epilogue bench, no peers, for b13c995 (before),
#                             epilogue-order and epilogue-order-wide, in the same lease
#   bash .gpu/ep/run19.sh C   issue 12's shapes not re-measured since VEC, with peers
#   bash .gpu/ep/run19.sh D   the 16-bit and i32 reductions with torch (16-bit argmax and
#                             i32 for the first time)
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt", ".gpu/tests.tar.zst",
#         ".gpu/cargo-nextest.xz", ".gpu/ep"]
B=$OUT
[[ -f .gpu/ep/rtriton-main ]] || { cp .gpu/rtriton .gpu/ep/rtriton-main; cp .gpu/commit.txt .gpu/ep/commit-main.txt; }
use() { cp ".gpu/ep/rtriton-$1" .gpu/rtriton; cp ".gpu/ep/commit-$1.txt" .gpu/commit.txt; }
summary() { grep -E "^\| (gelu|silu)" "$1" | cut -d'|' -f2-8; }
case "${1:?part A, B, C or D}" in
A)
    use main
    mkdir -p $B/ignored && OUT=$B/ignored THREADS=8 NT_TIMEOUT=300 bash .gpu/run.sh ignored | tail -4
    mkdir -p $B/main && OUT=$B/main KERNELS=epilogue BENCH_TIMEOUT=200 PEERS_ONLY="gelu_tanh gelu_erf silu" PEERS_TIMEOUT=150 \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    summary $B/main/combined.md
    ;;
B)
    for v in before order wide; do
        use $v
        mkdir -p $B/$v && OUT=$B/$v KERNELS=epilogue BENCH_TIMEOUT=170 PEERS=0 bash .gpu/run.sh ports-bench > /dev/null 2>&1
        echo "== $v"; summary $B/$v/combined.md
    done
    use main
    ;;
C)
    use main
    mkdir -p $B/rowmax && OUT=$B/rowmax BENCH_TIMEOUT=300 PEERS_TIMEOUT=200 \
        SHAPES="32768x32768;65537x32768;1048576x32;64x4194304;8192x16384:T;8192x8192:stride=2;1x1;3x7;1000x1" \
        bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
    grep -E "^[0-9]|entry|peer\)" $B/rowmax/combined.md | cut -c1-150
    ;;
D)
    use main
    mkdir -p $B/reduce16 && OUT=$B/reduce16 KERNELS=reduce DTYPES="f16 bf16 i32" BENCH_TIMEOUT=300 \
        PEERS_ONLY="sum amax argmax" PEERS_TIMEOUT=200 bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| (sum|amax|argmax)" $B/reduce16/combined.md | cut -d'|' -f2-9
    ;;
esac
