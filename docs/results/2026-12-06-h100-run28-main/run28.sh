#!/usr/bin/env bash
# Run 28, 2026-12-06: `main` after the merge of branch `loop-mul` (loop-distance and
# mul.wide for scalar products; not known-bits), binaries packed by tools/gpu/pack.sh
# (tests included).
# One device call:
#   bash tools/gpu/exp/run28.sh A   every ignored test (GPU, NVRTC, ptxas) of the archive
#                                   (part T), then issue 11's nearest points paired with
#                                   their peers (part P, `run.sh ports-paired`, P_ROUNDS
#                                   rounds, default 1), each part archived as it ends
#   bash tools/gpu/exp/run28.sh P   part P alone
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz"]
B=$OUT
tests() {
    mkdir -p "$B/T" && OUT=$B/T THREADS=8 NT_TIMEOUT=${T_TIMEOUT:-200} bash .gpu/run.sh ignored
    tar czf "$B/part-T.tgz" -C "$B" T
}
paired() {
    mkdir -p "$B/P" && OUT=$B/P KERNELS="softmax vector_add epilogue" ROUNDS=${P_ROUNDS:-1} BENCH_TIMEOUT=90 PEERS_TIMEOUT=60 \
        POINTS="${P_POINTS:-softmax f32 4096x1024;softmax f32 4096x4096;softmax f32 32768x1024;softmax f32 2048x32768;softmax (one row) f16 4096x16384;softmax f16 4096x16384;softmax (one row) bf16 4096x16384;softmax bf16 4096x16384;silu f16 4096x1024;silu f16 32768x1024;add f32 16777216}" \
        bash .gpu/run.sh ports-paired > /dev/null 2>&1
    grep -E "^\| (softmax|add|silu)" "$B/P/combined.md" | cut -d'|' -f2-8
    tar czf "$B/part-P.tgz" -C "$B" P
}
case "${1:?part A or P}" in
A) tests; paired ;;
P) paired ;;
esac
