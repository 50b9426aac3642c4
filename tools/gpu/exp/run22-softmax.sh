#!/usr/bin/env bash
# Run 22, 2026-12-05 (same lease as run 21, binaries of .gpu/commit.txt):
#   bash tools/gpu/exp/run22-softmax.sh S   vector add and softmax, every dtype, with the
#                                           peers: the f16 softmax's exponentials are
#                                           `exp2_ftz` since run 20 (3 SASS an element
#                                           fewer each), the f32/bf16 ones unchanged
#   bash tools/gpu/exp/run22-softmax.sh E   whether a point's place in the list moves it: run 21
#                                           had the same Triton SiLU launch (flat grid, 2^25
#                                           elements) at 3.95 TB/s as 4096x16384 and 3.64 as
#                                           32768x1024, the last point; here 32768x1024 goes
#                                           first (rtriton alone, then the peers), then
#                                           rtriton's whole SiLU f16 list
#   bash tools/gpu/exp/run22-softmax.sh C   issue 12's 1048576x32 (0.97x in run 20, 1.03x in
#                                           run 14) with 200 timed launches a config, and
#                                           two other narrow shapes
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt"] (with bench/peers/ from the checkout)
B=$OUT
case "${1:?part S, E or C}" in
S)
    mkdir -p $B/addsm && OUT=$B/addsm KERNELS="vector_add softmax" BENCH_TIMEOUT=250 \
        PEERS_ONLY="add softmax" PEERS_TIMEOUT=200 bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| (add|vector_add|softmax)" $B/addsm/combined.md | cut -d'|' -f2-9
    (cd $B && tar czf part-S.tgz addsm && rm -rf addsm)
    ;;
E)
    mkdir -p $B/order-first && OUT=$B/order-first KERNELS=epilogue DTYPES=f16 POINTS="silu f16 32768x1024" \
        BENCH_TIMEOUT=60 PEERS_ONLY="silu" PEER_SHAPES="32768x1024 4096x16384" PEERS_TIMEOUT=60 \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| silu" $B/order-first/combined.md | cut -d'|' -f2-8; grep -E "^silu" $B/order-first/tutorial-peers.log
    mkdir -p $B/order-list && OUT=$B/order-list KERNELS=epilogue DTYPES=f16 POINTS="silu f16" BENCH_TIMEOUT=60 PEERS=0 \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| silu" $B/order-list/combined.md | cut -d'|' -f2-8
    (cd $B && tar czf part-E.tgz order-first order-list && rm -rf order-first order-list)
    ;;
C)
    mkdir -p $B/rowmax && OUT=$B/rowmax ITERS=200 BENCH_TIMEOUT=300 PEERS_TIMEOUT=200 \
        SHAPES="1048576x32;524288x64;131072x100" bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
    grep -E "^[0-9]|entry|peer\)" $B/rowmax/combined.md | cut -c1-150
    (cd $B && tar czf part-C.tgz rowmax && rm -rf rowmax)
    ;;
esac
