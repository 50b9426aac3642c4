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
# The device tool returns only a few files: each part packs its folders into one .tgz.
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt"]
B=$OUT
summary() { grep -E "^\| (gelu|silu)" "$1" | cut -d'|' -f2-8; }
case "${1:?part E or P}" in
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
esac
