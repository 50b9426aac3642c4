#!/usr/bin/env bash
# Run 26, 2026-12-05 (the 19:58 UTC session). One device call per part:
#   bash tools/gpu/exp/run26.sh L   branch `loop-distance` (the PTX writer counts a loop by
#                                   its distance to the bound, no `div.u64` trip count before
#                                   a runtime-step loop: the persistent softmax starts its
#                                   first load 11 SASS instructions earlier, 40 -> 38
#                                   registers at 8 warps for 4096 f32 columns) beside main,
#                                   each with its peers right after (`run.sh ports-paired`),
#                                   builds alternating, L_ROUNDS rounds (default "1 2"); the
#                                   16-bit one-row launch (Triton's) ran 0.92x of Triton in run 23,
#                                   with a div.u64 subroutine before its first load
#   bash tools/gpu/exp/run26.sh R   the same two builds on row-max and layer norm points, no
#                                   peers, alternating (the loops with constant steps: a
#                                   32-bit distance instead of a 64-bit count)
# Needs `.gpu/rtriton-loop`, the branch's release CLI, carried beside `.gpu/rtriton`:
# carry [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt", ".gpu/rtriton-loop"].
B=$OUT
grep -q RTRITON_BIN .gpu/run.sh || { echo ".gpu/run.sh predates RTRITON_BIN: repack (tools/gpu/pack.sh)"; exit 2; }
[[ "$(.gpu/rtriton --version)" != "$(.gpu/rtriton-loop --version)" ]] || { echo "the two binaries are one build"; exit 2; }
case "${1:?part L or R}" in
L)
    for round in ${L_ROUNDS:-1 2}; do
        for bin in main loop; do
            [[ $bin == loop ]] && rb=.gpu/rtriton-loop || rb=.gpu/rtriton
            d=$B/loop/$bin-$round; mkdir -p $d
            OUT=$d RTRITON_BIN=$rb KERNELS="softmax layer_norm" ROUNDS=1 BENCH_TIMEOUT=60 PEERS_TIMEOUT=60 \
                POINTS="${L_POINTS:-softmax f32 4096x4096;softmax f32 4096x1024;softmax f32 32768x1024;softmax f32 2048x32768;softmax f16 4096x16384;softmax (one row) f16 4096x16384;softmax bf16 4096x16384}" \
                bash .gpu/run.sh ports-paired > /dev/null 2>&1
            grep -E "^\| (softmax|layer)" $d/combined.md | cut -d'|' -f2-8 | sed "s/^/$bin r$round /"
            tar czf $B/part-L.tgz -C $B loop
        done
    done
    ;;
R)
    for round in ${R_ROUNDS:-1 2}; do
        for bin in main loop; do
            [[ $bin == loop ]] && rb=.gpu/rtriton-loop || rb=.gpu/rtriton
            d=$B/loopr/ports-$bin-$round; mkdir -p $d
            OUT=$d RTRITON_BIN=$rb KERNELS="layer_norm reduce softmax" PEERS=0 BENCH_TIMEOUT=120 \
                POINTS="${R_POINTS:-layer_norm_fwd f32 4096x4096;layer_norm_fwd f16 4096x16384;softmax f32 4096x16384;layer_norm_bwd f32 4096x4096;sum (dim1) f32 4096x4096;amax (dim0) f32 4096x4096}" \
                bash .gpu/run.sh ports-bench > /dev/null 2>&1
            grep -E "^\| (layer|sum|amax)" $d/combined.md | cut -d'|' -f2-5 | sed "s/^/$bin r$round /"
            tar czf $B/part-R.tgz -C $B loopr
        done
    done
    ;;
esac
