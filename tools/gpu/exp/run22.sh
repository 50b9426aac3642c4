#!/usr/bin/env bash
# Run 22, 2026-12-05 (the lease after run 21, binaries of .gpu/commit.txt). One device call:
#   bash tools/gpu/exp/run22.sh S   softmax f16 (its exponentials are `exp2_ftz` since
#                                   `e09d58c`, 3 SASS an element fewer each; 0.97x of the
#                                   best peer at 4096x16384 in run 20) and bf16 at
#                                   4096x16384, each point's rtriton and peers back to back
#                                   (`run.sh ports-paired`), one round; and the f32 softmax
#                                   and vector add points 0.6% under their targets in run 20;
#                                   and the 16-bit 4096x16384 rows, planned one program a row
#                                   since run 22 (62 registers by ptxas for sm_90, two programs
#                                   an SM), beside `softmax (registers)`, the plan before
#   bash tools/gpu/exp/run22.sh M   softmax f16 4096x16384 and SiLU f16 32768x1024 only,
#                                   paired, two rounds (a lease with a minute left)
#   bash tools/gpu/exp/run22.sh P   the epilogue points under 1.0x in run 21, paired, two
#                                   rounds: run 21 had the same Triton SiLU launch (flat
#                                   grid, 2^25 elements) at 3.95 TB/s as 4096x16384 and
#                                   3.64 as 32768x1024, the last point of its list
#   bash tools/gpu/exp/run22.sh T   the epilogue's tile: the plan's 2048 elements (16 a
#                                   thread in 16 bits) against 1024 (8 a thread, Triton's
#                                   per-program work) through `--set BLOCK_M=2 --programs`,
#                                   side by side, on the points of P (T_ROUNDS="1 2" for two
#                                   rounds; one is about 150 s)
#   bash tools/gpu/exp/run22.sh C   issue 12's 1048576x32 (0.97x in run 20, 1.03x in run 14)
#                                   with 200 timed launches a config, and two other narrow
#                                   shapes
#   bash tools/gpu/exp/run22.sh N   ncu --clock-control none of the f32 points a fraction of a
#                                   percent under issue 11's targets (vector add 2^28, softmax
#                                   4096x4096 and 2048x32768), rtriton's launch and Triton's
#                                   tutorial kernel: DRAM throughput, duration, occupancy
#   bash tools/gpu/exp/run22.sh W   softmax f32 4096x4096 (0.98x of Triton in run 20): the
#                                   plan's 8 warps beside 4 and 16 warps and `--min-ctas 2`,
#                                   each variant then the plan again, two rounds, no peers
#   bash tools/gpu/exp/run22.sh F   the 16-bit softmax at 4096x16384: the plan (one program a
#                                   row since run 22, 1.05x and 1.04x of the register prefetch
#                                   on an H100) and `softmax (registers)`, one list, peers after
#   bash tools/gpu/exp/run22.sh E   ncu --clock-control none of the epilogue's SiLU at 32768x1024
#                                   (f16 and bf16, 0.92x to 0.98x of Triton paired in run 23),
#                                   rtriton's launch beside Triton's tutorial-style kernel
#   bash tools/gpu/exp/run22.sh U   the epilogue's 16-bit tile at the other vector-row shapes
#                                   (4096x4096, 4096x16384, 2048x32768): the plan's 2048
#                                   elements against 1024 (run 23 part T: 1024 faster at
#                                   32768x1024, slower at 4096x1024), SiLU and GELU-tanh
#   bash tools/gpu/exp/run22.sh V   the 16-bit softmax at 4096x16384 after the plan went back to
#                                   the register prefetch (891d800), paired, beside one program
#                                   a row
#   bash tools/gpu/exp/run22.sh X   the epilogue plan of 8e983c4 (16-bit vector rows of 2^24
#                                   elements or more in 1024-element tiles), paired, one round
#   bash tools/gpu/exp/run22.sh Y   ncu --clock-control none of the 16-bit softmax at 4096x16384:
#                                   the plan (register prefetch, one program an SM), the same
#                                   kernel launched one program a row, and Triton's kernel
#                                   (the same launch as the second, 0.92x of it in run 23);
#                                   RTRITON_BIN=.gpu/rtriton-loop profiles another build
#   bash tools/gpu/exp/run22.sh K   branch `known-bits` (PTX `or` for disjoint index sums) beside
#                                   main, alternating list by list, no peers: issue 12's narrow
#                                   rows and the ports points most often at their targets.
#                                   Needs `.gpu/rtriton-kb`, the branch's release CLI
#                                   (`CARGO_TARGET_DIR=/tmp/kb cargo build --release -p
#                                   rtriton-host --bin rtriton` in a worktree of the branch,
#                                   then copy it there), carried with the rest
# Carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt"] (bench/peers/ from the checkout)
B=$OUT
case "${1:?part S, M, P, T or C}" in
S)
    mkdir -p $B/softmax && OUT=$B/softmax KERNELS="softmax vector_add" ROUNDS=1 BENCH_TIMEOUT=90 PEERS_TIMEOUT=60 \
        POINTS="softmax f16 4096x1024;softmax f16 4096x4096;softmax f16 4096x16384;softmax (registers) f16 4096x16384;softmax f16 2048x32768;softmax f16 32768x1024;softmax bf16 4096x16384;softmax (registers) bf16 4096x16384;softmax f32 4096x4096;softmax f32 2048x32768;add f32 16777216" \
        bash .gpu/run.sh ports-paired > /dev/null 2>&1
    grep -E "^\| (softmax|add)" $B/softmax/combined.md | cut -d'|' -f2-8
    (cd $B && tar czf part-S.tgz softmax && rm -rf softmax)
    ;;
M)  # what fits a lease's last minute: one softmax f16 point and one SiLU point, paired, two rounds
    mkdir -p $B/mini && OUT=$B/mini KERNELS="softmax epilogue" ROUNDS=2 BENCH_TIMEOUT=30 PEERS_TIMEOUT=30 \
        POINTS="softmax f16 4096x16384;silu f16 32768x1024" bash .gpu/run.sh ports-paired > /dev/null 2>&1
    cat $B/mini/rounds.md
    (cd $B && tar czf part-M.tgz mini && rm -rf mini)
    ;;
P)
    mkdir -p $B/paired && OUT=$B/paired KERNELS=epilogue ROUNDS=2 \
        POINTS="silu f16 4096x1024;silu f16 32768x1024;silu bf16 32768x1024;gelu_tanh f16 4096x1024" \
        bash .gpu/run.sh ports-paired > /dev/null 2>&1
    cat $B/paired/rounds.md
    (cd $B && tar czf part-P.tgz paired && rm -rf paired)
    ;;
T)
    # Each list takes 15 s to 60 s (the CPU check of 2^25 elements), so on the H100 two
    # rounds ran past a 330 s call and the device tool returned only some of the files:
    # the lists are written outside $OUT and the archive is rewritten after each one.
    t() { # name, points, overrides
        mkdir -p /tmp/tile/$1 && OUT=/tmp/tile/$1 KERNELS=epilogue POINTS="$2" OVERRIDES="$3" BENCH_TIMEOUT=60 PEERS=0 \
            bash .gpu/run.sh ports-bench > /dev/null 2>&1
        grep -E "^\| (silu|gelu)" /tmp/tile/$1/combined.md | cut -d'|' -f2-5 | sed "s/^/$1 /"
        tar czf $B/part-T.tgz -C /tmp tile
    }
    for round in ${T_ROUNDS:-1}; do
        t plan-4096-$round "silu f16 4096x1024;gelu_tanh f16 4096x1024" ""
        t half-4096-$round "silu f16 4096x1024;gelu_tanh f16 4096x1024" "--set BLOCK_M=2 --programs 2,2048"
        t plan-32768-$round "silu f16 32768x1024;silu bf16 32768x1024" ""
        t half-32768-$round "silu f16 32768x1024;silu bf16 32768x1024" "--set BLOCK_M=2 --programs 2,16384"
    done
    ;;
C)
    mkdir -p $B/rowmax && OUT=$B/rowmax ITERS=200 BENCH_TIMEOUT=300 PEERS_TIMEOUT=200 \
        SHAPES="1048576x32;524288x64;131072x100" bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
    grep -E "^[0-9]|entry|peer\)" $B/rowmax/combined.md | cut -c1-150
    (cd $B && tar czf part-C.tgz rowmax && rm -rf rowmax)
    ;;
F)
    mkdir -p $B/onerow && OUT=$B/onerow KERNELS=softmax BENCH_TIMEOUT=60 PEERS_TIMEOUT=60 PEERS_ONLY=softmax PEER_SHAPES=4096x16384 \
        POINTS="softmax f16 4096x16384;softmax (registers) f16 4096x16384;softmax bf16 4096x16384;softmax (registers) bf16 4096x16384" \
        bash .gpu/run.sh ports-bench > /dev/null 2>&1
    grep -E "^\| softmax" $B/onerow/combined.md | cut -d'|' -f2-8
    (cd $B && tar czf part-F.tgz onerow && rm -rf onerow)
    ;;
W)
    i=0
    for round in 1 2; do
        for ov in "--warps 4" "--warps 16" "--min-ctas 2" "--min-ctas 3"; do
            for v in "$ov" ""; do
                i=$((i + 1)); d=$B/warps/$i-r$round-$(echo "${v:-plan}" | tr -d ' -'); mkdir -p $d
                OUT=$d KERNELS=softmax POINTS="softmax f32 4096x4096" OVERRIDES="$v" BENCH_TIMEOUT=40 PEERS=0 ITERS=50 \
                    bash .gpu/run.sh ports-bench > /dev/null 2>&1
                grep -E "^\| softmax" $d/combined.md | cut -d'|' -f2-5 | sed "s/^/r$round ${v:-plan} /"
            done
        done
    done
    (cd $B && tar czf part-W.tgz warps && rm -rf warps)
    ;;
N)  # one profiled launch each (ncu flushes the caches before it: --cache-control all)
    mkdir -p $B/ncu
    sec="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats"
    n() { # file, kernel regex, command...
        local f=$1 k=$2; shift 2
        timeout 120 ncu --clock-control none $sec -k regex:$k -c 1 "$@" > $B/ncu/$f.log 2>&1; echo "rc=$?" >> $B/ncu/$f.log
    }
    for p in "add f32 268435456:add_kernel:vector_add:add:268435456" "softmax f32 4096x4096:softmax:softmax:softmax:4096x4096" \
             "softmax f32 2048x32768:softmax:softmax:softmax:2048x32768"; do
        IFS=: read -r point k kernel peer shape <<< "$p"
        tag=$(echo "$point" | tr ' ' '-')
        n rt-$tag $k .gpu/rtriton bench --kernel $kernel --point "$point" --iters 1 --warmup 0 --no-progress --check-limit 0
        [[ $peer == add ]] && pk=add_kernel || pk=softmax_kernel
        n triton-$tag $pk python3 bench/peers/tutorial_peers.py --only $peer --dtype f32 --shape $shape --rep 1 --out /tmp/n.json
    done
    grep -E "Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Grid Size|Block Size|rc=" $B/ncu/*.log
    (cd $B && tar czf part-N.tgz ncu && rm -rf ncu)
    ;;
K)  # K_ROUNDS, K_SHAPES and K_POINTS narrow it for a short lease
    # Run 25 timed main's binary twice: the carried .gpu/run.sh predated RTRITON_BIN.
    grep -q RTRITON_BIN .gpu/run.sh || { echo ".gpu/run.sh predates RTRITON_BIN: repack (tools/gpu/pack.sh)"; exit 2; }
    [[ "$(.gpu/rtriton --version)" != "$(.gpu/rtriton-kb --version)" ]] || { echo "the two binaries are one build"; exit 2; }
    for round in ${K_ROUNDS:-1 2}; do
        for bin in main kb; do
            [[ $bin == kb ]] && rb=.gpu/rtriton-kb || rb=.gpu/rtriton
            d=$B/kb/rowmax-$bin-$round; mkdir -p $d
            OUT=$d RTRITON_BIN=$rb ITERS=200 BENCH_TIMEOUT=200 PEERS=0 SHAPES="${K_SHAPES:-1048576x32;524288x64;131072x100}" \
                bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
            grep -E "^[0-9]|entry" $d/combined.md | cut -c1-140 | sed "s/^/$bin r$round /"
            d=$B/kb/ports-$bin-$round; mkdir -p $d
            OUT=$d RTRITON_BIN=$rb KERNELS="softmax vector_add epilogue" PEERS=0 BENCH_TIMEOUT=120 \
                POINTS="${K_POINTS:-softmax f32 4096x4096;softmax f32 2048x32768;softmax f16 4096x16384;add f32 16777216;add f32 268435456;silu f16 32768x1024;silu bf16 32768x1024}" \
                bash .gpu/run.sh ports-bench > /dev/null 2>&1
            grep -E "^\| (softmax|add|silu)" $d/combined.md | cut -d'|' -f2-5 | sed "s/^/$bin r$round /"
            tar czf $B/part-K.tgz -C $B kb
        done
    done
    ;;
Y)
    mkdir -p $B/ncu-s
    sec="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats"
    for d in f16 bf16; do
        timeout 120 ncu --clock-control none $sec -k regex:softmax -c 1 ${RTRITON_BIN:-.gpu/rtriton} bench --kernel softmax \
            --point "softmax $d 4096x16384" --iters 1 --warmup 0 --no-progress --check-limit 0 > $B/ncu-s/rt-plan-$d.log 2>&1
        timeout 120 ncu --clock-control none $sec -k regex:softmax -c 1 ${RTRITON_BIN:-.gpu/rtriton} bench --kernel softmax \
            --point "softmax (one row) $d 4096x16384" --iters 1 --warmup 0 --no-progress --check-limit 0 > $B/ncu-s/rt-onerow-$d.log 2>&1
        timeout 120 ncu --clock-control none $sec -k regex:softmax_kernel -c 1 python3 bench/peers/tutorial_peers.py --only softmax \
            --dtype $d --shape 4096x16384 --rep 1 --out /tmp/n.json > $B/ncu-s/triton-$d.log 2>&1
    done
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Grid Size|Block Size|Executed Instructions  |Warp Cycles Per Issued" $B/ncu-s/*.log
    (cd $B && tar czf part-Y.tgz ncu-s && rm -rf ncu-s)
    ;;
X)
    mkdir -p $B/epi && OUT=$B/epi KERNELS=epilogue ROUNDS=1 BENCH_TIMEOUT=60 PEERS_TIMEOUT=60 \
        POINTS="silu f16 32768x1024;silu bf16 32768x1024;gelu_tanh f16 32768x1024;gelu_tanh bf16 32768x1024;silu f16 4096x16384;gelu_tanh bf16 4096x16384;gelu_tanh bf16 2048x32768;silu f16 4096x1024" \
        bash .gpu/run.sh ports-paired > /dev/null 2>&1
    grep -E "^\| (silu|gelu)" $B/epi/combined.md | cut -d'|' -f2-8
    (cd $B && tar czf part-X.tgz epi && rm -rf epi)
    ;;
V)
    mkdir -p $B/back && OUT=$B/back KERNELS=softmax ROUNDS=1 BENCH_TIMEOUT=60 PEERS_TIMEOUT=60 \
        POINTS="softmax f16 4096x16384;softmax (one row) f16 4096x16384;softmax bf16 4096x16384;softmax (one row) bf16 4096x16384" \
        bash .gpu/run.sh ports-paired > /dev/null 2>&1
    grep -E "^\| softmax" $B/back/combined.md | cut -d'|' -f2-8
    (cd $B && tar czf part-V.tgz back && rm -rf back)
    ;;
U)
    u() { # name, shape, programs of the 1024-element tile
        local pts="silu f16 $2;silu bf16 $2;gelu_tanh f16 $2;gelu_tanh bf16 $2"
        for v in plan half; do
            [[ $v == half ]] && ov="--set BLOCK_M=2 --programs $3" || ov=""
            mkdir -p /tmp/tileu/$v-$1 && OUT=/tmp/tileu/$v-$1 KERNELS=epilogue POINTS="$pts" OVERRIDES="$ov" BENCH_TIMEOUT=90 PEERS=0 \
                bash .gpu/run.sh ports-bench > /dev/null 2>&1
            grep -E "^\| (silu|gelu)" /tmp/tileu/$v-$1/combined.md | cut -d'|' -f2-5 | sed "s/^/$v /"
            tar czf $B/part-U.tgz -C /tmp tileu
        done
    }
    u 4096 4096x4096 8,2048
    u 16384 4096x16384 32,2048
    u 32768 2048x32768 64,1024
    ;;
E)  # as N, for the epilogue's SiLU points under 1.0x when paired (run 23 part P)
    mkdir -p $B/ncu-e
    sec="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
    for d in f16 bf16; do
        timeout 120 ncu --clock-control none $sec -k regex:silu_ -c 1 .gpu/rtriton bench --kernel epilogue \
            --point "silu $d 32768x1024" --iters 1 --warmup 0 --no-progress --check-limit 0 > $B/ncu-e/rt-silu-$d.log 2>&1
        timeout 120 ncu --clock-control none $sec -k regex:epilogue -c 1 python3 bench/peers/tutorial_peers.py --only silu \
            --dtype $d --shape 32768x1024 --rep 1 --out /tmp/n.json > $B/ncu-e/triton-silu-$d.log 2>&1
    done
    grep -E "Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Grid Size|Block Size|Eligible Warps|Issued Warp|Warp Cycles Per Issued|Executed Ipc" $B/ncu-e/*.log
    (cd $B && tar czf part-E.tgz ncu-e && rm -rf ncu-e)
    ;;
esac
