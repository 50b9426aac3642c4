#!/usr/bin/env bash
# Run 26, 2026-12-05 (the 19:58 UTC session). One device call per part:
#   bash tools/gpu/exp/run26.sh L   branch `loop-distance` (`c154f23`: the PTX writer tests a
#                                   loop's distance to its bound, `step < upper - iv`, instead
#                                   of counting down a trip count computed with a `div.u64`
#                                   subroutine before the first trip; every program of a
#                                   grid-stride loop launched a program per row ran it. ptxas,
#                                   sm_90: f32 softmax 4096 on 8 warps 40 -> 36 registers, 58 ->
#                                   46 SASS before the first load) beside main, each with its
#                                   peers right after (`run.sh ports-paired`), builds
#                                   alternating, L_ROUNDS rounds (default "1 2"); the 16-bit
#                                   one-row launch (Triton's) ran 0.92x of Triton in run 23
#   bash tools/gpu/exp/run26.sh R   the same two builds on layer norm, reduction and wide softmax
#                                   points, no peers, alternating (their loops change form too,
#                                   and ptxas allocates their registers differently)
#   bash tools/gpu/exp/run26.sh M   the same two builds on row-max shapes (`rowmax-bench`, the
#                                   tuned entry point and every variant, 200 launches, no
#                                   peers), alternating: the row-max loops step by constants,
#                                   whose PTX changes form too (goldens on the branch)
# Needs `.gpu/rtriton-loop`, the branch's release CLI, carried beside `.gpu/rtriton`: in a
# worktree of the branch, `CARGO_TARGET_DIR=/tmp/ld cargo build --release -p rtriton-host
# --bin rtriton`, copied there; main's `tools/gpu/pack.sh --no-tests` first (it rewrites
# `.gpu/run.sh`). Carry [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt", ".gpu/rtriton-loop"].
B=$OUT
grep -q RTRITON_BIN .gpu/run.sh || { echo ".gpu/run.sh predates RTRITON_BIN: repack (tools/gpu/pack.sh)"; exit 2; }
[[ "$(.gpu/rtriton --version)" != "$(.gpu/rtriton-loop --version)" ]] || { echo "the two binaries are one build"; exit 2; }
# Round 1 main's build then the branch's, round 2 the other way (`builds.sh`).
source "$(dirname "$0")/builds.sh"
softmax_paired() {
    OUT=$2 RTRITON_BIN=$1 KERNELS="softmax layer_norm" ROUNDS=1 BENCH_TIMEOUT=60 PEERS_TIMEOUT=60 \
        POINTS="${L_POINTS:-softmax f32 4096x4096;softmax f32 4096x1024;softmax f32 32768x1024;softmax f32 2048x32768;softmax f16 4096x16384;softmax (one row) f16 4096x16384;softmax bf16 4096x16384}" \
        bash .gpu/run.sh ports-paired > /dev/null 2>&1
    grep -E "^\| (softmax|layer)" "$2/combined.md" | cut -d'|' -f2-8
}
ports_alone() {
    OUT=$2 RTRITON_BIN=$1 KERNELS="layer_norm reduce softmax" PEERS=0 BENCH_TIMEOUT=120 \
        POINTS="${R_POINTS:-layer_norm_fwd f32 4096x4096;layer_norm_fwd f16 4096x16384;softmax f32 4096x16384;layer_norm_bwd f32 4096x4096;sum (dim1) f32 4096x4096;amax (dim0) f32 4096x4096}" \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| (layer|sum|amax|softmax)" "$2/combined.md" | cut -d'|' -f2-5
}
rowmax_alone() {
    OUT=$2 RTRITON_BIN=$1 ITERS=200 BENCH_TIMEOUT=240 PEERS=0 \
        SHAPES="${M_SHAPES:-8192x8192;1048576x32;4096x1000;8192x16384:T;8192x8192:stride=2}" \
        bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
    grep -E "^[0-9]|entry" "$2/combined.md" | cut -c1-140
}
case "${1:?part L, R or M}" in
L) alternate "${L_ROUNDS:-1 2}" softmax_paired loop L main loop ;;
R) alternate "${R_ROUNDS:-1 2}" ports_alone loopr R main loop ;;
M) alternate "${M_ROUNDS:-1 2}" rowmax_alone loopm M main loop ;;
*) echo "unknown part $1"; exit 2 ;;
esac
