#!/usr/bin/env bash
# Run 20, 2026-12-05: the epilogue after the row-major tile order merged (82f46de), and
# two launch experiments for the f16/bf16 SiLU gap that register counts suggest (ptxas
# for sm_90 gives silu_f16 and gelu_erf_f16/bf16 34 registers at 128 threads: 12 CTAs of
# 128 threads an SM instead of 16). Usage on the device, from the repository root:
#   bash tools/gpu/exp/run20-epilogue.sh E   epilogue bench without peers: the plans, then
#                                            --min-ctas 16 (.minnctapersm: 32 registers),
#                                            then --warps 8 (8 elements a thread, the tiles
#                                            and grid unchanged)
#   bash tools/gpu/exp/run20-epilogue.sh P   the epilogue bench at the plans with the peers,
#                                            and the PTX of Triton's epilogue kernel
#                                            (tools/gpu/exp/triton_epilogue_ptx.py)
#   bash tools/gpu/exp/run20-epilogue.sh C   issue 12's shapes not re-measured since VEC
#                                            (run 19's part C, which got no machine)
#   bash tools/gpu/exp/run20-epilogue.sh D   the 16-bit and i32 reductions with torch
#                                            (run 19's part D)
#   bash tools/gpu/exp/run20-epilogue.sh S   vector add and softmax, every dtype, with the
#                                            peers (targets within 2% of their bar)
# The device tool returns only a few files: each part packs its folders into one .tgz.
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt"]
B=$OUT
summary() { grep -E "^\| (gelu|silu)" "$1" | cut -d'|' -f2-8; }
case "${1:?part E, P, C, D or S}" in
E)
    for v in plan min16 warps8; do
        case $v in plan) ov="" ;; min16) ov="--min-ctas 16" ;; warps8) ov="--warps 8" ;; esac
        mkdir -p $B/$v && OUT=$B/$v KERNELS=epilogue BENCH_TIMEOUT=170 PEERS=0 OVERRIDES="$ov" \
            bash .gpu/run.sh ports-bench > /dev/null 2>&1
        echo "== $v"; summary $B/$v/combined.md
    done
    (cd $B && tar czf part-E.tgz plan min16 warps8 && rm -rf plan min16 warps8)
    ;;
P)
    mkdir -p $B/main && OUT=$B/main KERNELS=epilogue BENCH_TIMEOUT=200 PEERS_ONLY="gelu_tanh gelu_erf silu" PEERS_TIMEOUT=150 \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    summary $B/main/combined.md
    OUT=$B python3 tools/gpu/exp/triton_epilogue_ptx.py 2>&1 | tail -9
    (cd $B && tar czf part-P.tgz main triton-ptx && rm -rf main triton-ptx)
    ;;
C)
    mkdir -p $B/rowmax && OUT=$B/rowmax BENCH_TIMEOUT=300 PEERS_TIMEOUT=200 \
        SHAPES="32768x32768;65537x32768;1048576x32;64x4194304;8192x16384:T;8192x8192:stride=2;1x1;3x7;1000x1" \
        bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
    grep -E "^[0-9]|entry|peer\)" $B/rowmax/combined.md | cut -c1-150
    (cd $B && tar czf part-C.tgz rowmax && rm -rf rowmax)
    ;;
D)
    mkdir -p $B/reduce16 && OUT=$B/reduce16 KERNELS=reduce DTYPES="f16 bf16 i32" BENCH_TIMEOUT=300 \
        PEERS_ONLY="sum amax argmax" PEERS_TIMEOUT=200 bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| (sum|amax|argmax)" $B/reduce16/combined.md | cut -d'|' -f2-9
    (cd $B && tar czf part-D.tgz reduce16 && rm -rf reduce16)
    ;;
S)
    mkdir -p $B/addsm && OUT=$B/addsm KERNELS="vector_add softmax" BENCH_TIMEOUT=250 \
        PEERS_ONLY="add softmax" PEERS_TIMEOUT=200 bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| (add|vector_add|softmax)" $B/addsm/combined.md | cut -d'|' -f2-9
    (cd $B && tar czf part-S.tgz addsm && rm -rf addsm)
    ;;
esac
