#!/usr/bin/env bash
# Run 27, 2026-12-06 (the 22:46 UTC session of 2026-12-05, which got a device only late, if
# at all). One device call:
#   bash tools/gpu/exp/run27.sh Q   every build carried (main, and the branches
#                                   `loop-distance`, `mul-wide`, `known-bits` where their
#                                   binaries are there) on one list of the points where
#                                   issue 11 is closest to its targets, no peers: round 1 in
#                                   that order, round 2 reversed (Q_ROUNDS="1" for one;
#                                   Q_BUILDS="main all" for some builds only)
# The branches, each a PTX change that ptxas sees as fewer instructions before the first
# load: `loop-distance` (loops test `step < upper - iv`, no 64-bit trip count divided
# before the first trip), `combo` (`.gpu/rtriton-all`: the three merged, mul.wide for
# scalar products only, no ports spill), `mul-wide` (`mul.wide.s32` for products of sign-extended i32
# factors), `known-bits` (`or` for disjoint index sums). Build each in a worktree with its
# own target dir (`CARGO_TARGET_DIR=/tmp/X cargo build --release -p rtriton-host --bin
# rtriton`) and copy it to `.gpu/rtriton-loop`, `.gpu/rtriton-mw`, `.gpu/rtriton-kb`, after
# main's `tools/gpu/pack.sh --no-tests`. Carry [".gpu/rtriton", ".gpu/run.sh",
# ".gpu/commit.txt", ".gpu/rtriton-loop", ".gpu/rtriton-mw", ".gpu/rtriton-kb",
# ".gpu/rtriton-all"] (those that exist).
B=$OUT
grep -q RTRITON_BIN .gpu/run.sh || { echo ".gpu/run.sh predates RTRITON_BIN: repack (tools/gpu/pack.sh)"; exit 2; }
source "$(dirname "$0")/builds.sh"
bins=(); for b in ${Q_BUILDS:-main loop mw kb all}; do
    f=$(build_bin "$b"); [[ -x $f ]] && { bins+=("$b"); echo "$b: $($f --version)"; }
done
nearest() {
    OUT=$2 RTRITON_BIN=$1 KERNELS="softmax layer_norm vector_add epilogue" PEERS=0 BENCH_TIMEOUT=120 \
        POINTS="${Q_POINTS:-softmax f32 4096x4096;softmax f32 4096x1024;softmax f32 32768x1024;softmax (one row) f16 4096x16384;softmax f16 4096x16384;layer_norm_fwd f32 4096x4096;silu f16 4096x1024;add f32 16777216}" \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| (softmax|layer|add|silu)" "$2/combined.md" | cut -d'|' -f2-5
}
alternate "${Q_ROUNDS:-1 2}" nearest q Q "${bins[@]}"
