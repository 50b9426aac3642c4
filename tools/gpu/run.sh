#!/usr/bin/env bash
# The GPU machine's side of a run (see tools/gpu/README.md). Runs from the repository
# root on the device machine, with .gpu/ carried (tools/gpu/pack.sh builds it), and
# writes its logs under $OUT. One mode per call; the modes take their knobs from the
# environment.
#   ignored       every ignored test (GPU, NVRTC, ptxas) from the nextest archive
#   validate      rtriton validate --backend gpu (row-max family) and --kernel ports
#                 (timeouts VALIDATE_TIMEOUT + PORTS_TIMEOUT stay under the 600 s a call gets)
#   ports-bench   rtriton bench --kernel ${KERNELS:-ports} + bench/peers/tutorial_peers.py
#                 on the same machine, joined by --peers into combined.md
#   ports-paired  the same, point by point: for each of POINTS ("silu f16 4096x1024;..."),
#                 rtriton then the peers, ROUNDS times (default 2), so every implementation
#                 of a point is timed within seconds of the others; joined as ports-bench
#   rowmax-bench  rtriton bench (row max, shapes ${SHAPES:-default}) + rowmax_peers.py (PEERS=0: none)
#   baseline      rtriton and its peers on the regression points, written as the baselines
#                 host/tests/gpu_regression.rs holds later runs to (ports-baseline.json,
#                 row-max-baseline.json; copy them to bench/results/<gpu>/)
#   ncu           ncu --clock-control none on `rtriton $NCU_ARGS`
set -uo pipefail
MODE=${1:?mode}
OUT=${OUT:?set OUT to the folder the logs go to}
# RTRITON_BIN: another build of the CLI (a branch's, carried beside `.gpu/rtriton`); its
# bench output names the commit it was built from.
R=${RTRITON_BIN:-./.gpu/rtriton}
chmod +x "$R"
# The PTX cache somewhere writable, snapshots found from the carried tree, the CUDA tools
# (ncu, nvcc) and NVRTC on the paths.
export RTRITON_CACHE_DIR=/tmp/rtriton-cache
export INSTA_WORKSPACE_ROOT="$PWD"
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
env_txt() {
    {
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "binaries built from commit: $(sed -n 1p .gpu/commit.txt) (tracked files differing from it at build time: $(sed -n 2p .gpu/commit.txt))"
        nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
        nvidia-smi | grep -m1 "Driver Version"
        "$R" --version
        python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>/dev/null
        echo "mode: $MODE; knobs: KERNELS=${KERNELS:-} DTYPES=${DTYPES:-} POINTS=${POINTS:-} SHAPES=${SHAPES:-} OVERRIDES=${OVERRIDES:-} ITERS=${ITERS:-default}"
    } > "$OUT/env.txt" 2>&1
}
env_txt
case "$MODE" in
ignored)
    xz -dc .gpu/cargo-nextest.xz > /tmp/cargo-nextest && chmod +x /tmp/cargo-nextest
    timeout "${NT_TIMEOUT:-540}" /tmp/cargo-nextest nextest run --run-ignored only --no-fail-fast --test-threads "${THREADS:-8}" --failure-output final \
        --archive-file .gpu/tests.tar.zst --workspace-remap . ${NT_FILTER:-} > "$OUT/tests.log" 2>&1
    echo "rc=$?" >> "$OUT/tests.log"; grep -E "^\s+(FAIL|SIGSEGV|SIGABRT|TIMEOUT)" "$OUT/tests.log" | head -30; tail -5 "$OUT/tests.log"
    ;;
validate)
    ks=(); for k in ${KERNELS:-ports}; do ks+=(--kernel "$k"); done
    timeout "${VALIDATE_TIMEOUT:-240}" "$R" validate --backend gpu --no-progress --json "$OUT/validate.json" > "$OUT/validate.log" 2>&1; echo "rc=$?" >> "$OUT/validate.log"
    timeout "${PORTS_TIMEOUT:-340}" "$R" validate --backend gpu --no-progress "${ks[@]}" > "$OUT/ports.log" 2>&1; echo "rc=$?" >> "$OUT/ports.log"
    tail -3 "$OUT/validate.log" "$OUT/ports.log"
    ;;
ports-bench)
    sel=(); for k in ${KERNELS:-ports}; do sel+=(--kernel "$k"); done
    for d in ${DTYPES:-}; do sel+=(--dtype "$d"); done
    IFS=';' read -ra pts <<< "${POINTS:-}"; for p in "${pts[@]}"; do [[ -n "$p" ]] && sel+=(--point "$p"); done
    # OVERRIDES="--set BLOCK_SIZE=4096 --warps 8": an experiment's launch overrides.
    read -ra ov <<< "${OVERRIDES:-}"; sel+=("${ov[@]}")
    # The peer script names its kernels its own way (add, layer_norm_fwd, sum, ...):
    # PEERS_ONLY="softmax layer_norm_bwd" narrows it, PEERS=0 leaves it out.
    only=(); for k in ${PEERS_ONLY:-}; do only+=(--only "$k"); done
    # PEER_SHAPES="32768x1024 4096x16384": only these shapes, in this order (an order check).
    for s in ${PEER_SHAPES:-}; do only+=(--shape "$s"); done
    # PEER_DTYPES="f16 bf16": only these dtypes.
    for d in ${PEER_DTYPES:-}; do only+=(--dtype "$d"); done
    timeout "${BENCH_TIMEOUT:-400}" "$R" bench "${sel[@]}" --iters "${ITERS:-20}" --warmup 3 --no-progress \
        --json "$OUT/ports-bench.json" > "$OUT/ports-bench.log" 2>&1; echo "rc=$?" >> "$OUT/ports-bench.log"
    peers=()
    if [[ "${PEERS:-1}" != 0 ]]; then
        timeout "${PEERS_TIMEOUT:-300}" python3 bench/peers/tutorial_peers.py --rep 50 "${only[@]}" \
            --out "$OUT/tutorial-peers.json" > "$OUT/tutorial-peers.log" 2>&1; echo "rc=$?" >> "$OUT/tutorial-peers.log"
        peers=(--peers "$OUT/tutorial-peers.json")
    fi
    "$R" bench --kernel ports --load "$OUT/ports-bench.json" "${peers[@]}" > "$OUT/combined.md" 2>&1
    cat "$OUT/combined.md"
    ;;
ports-paired)
    # The same Triton launch ran 5% to 8% slower as the last point of its list
    # than as the third: timing one implementation's whole list, then the next's, puts
    # that drift into the ratios. Here each point's implementations run back to back.
    IFS=';' read -ra pts <<< "${POINTS:?set POINTS to \"KERNEL DTYPE SHAPE;...\"}"
    ks=(); for k in ${KERNELS:-ports}; do ks+=(--kernel "$k"); done
    read -ra ov <<< "${OVERRIDES:-}"
    n=0
    for round in $(seq "${ROUNDS:-2}"); do
        for p in "${pts[@]}"; do
            # "argmax (dim0) i32 4096x1024": the peers' kernel first, dtype and shape last.
            read -ra w <<< "$p"; kernel=${w[0]}; dtype=${w[-2]}; shape=${w[-1]}
            n=$((n + 1))
            timeout "${BENCH_TIMEOUT:-60}" "$R" bench "${ks[@]}" --point "$p" "${ov[@]}" --iters "${ITERS:-20}" --warmup 3 \
                --no-progress --json "$OUT/r-$n.json" >> "$OUT/ports-bench.log" 2>&1 || echo "rc=$? at $p" >> "$OUT/ports-bench.log"
            timeout "${PEERS_TIMEOUT:-60}" python3 bench/peers/tutorial_peers.py --rep 50 --only "$kernel" --dtype "$dtype" \
                --shape "$shape" --out "$OUT/p-$n.json" >> "$OUT/tutorial-peers.log" 2>&1 || echo "rc=$? at $p" >> "$OUT/tutorial-peers.log"
            echo "round $round: $p" >> "$OUT/order.txt"
        done
    done
    # Each round's rows under their own name would not join; the rounds' medians would hide
    # the spread, so the join takes round 1 and rounds.md lists every round's figures.
    python3 tools/gpu/join_paired.py "$OUT" "${#pts[@]}"
    rm -f "$OUT"/r-*.json "$OUT"/p-*.json
    "$R" bench --kernel ports --load "$OUT/ports-bench.json" --peers "$OUT/tutorial-peers.json" > "$OUT/combined.md" 2>&1
    cat "$OUT/rounds.md"
    ;;
rowmax-bench)
    sh=(); IFS=';' read -ra ss <<< "${SHAPES:-}"; for s in "${ss[@]}"; do [[ -n "$s" ]] && sh+=(--shape "$s"); done
    timeout "${BENCH_TIMEOUT:-400}" "$R" bench "${sh[@]}" --iters "${ITERS:-50}" --no-progress \
        --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1; echo "rc=$?" >> "$OUT/bench.log"
    # PEERS=0 leaves the peers out (a comparison of two rtriton builds).
    peers=()
    if [[ "${PEERS:-1}" != 0 ]]; then
        timeout "${PEERS_TIMEOUT:-300}" python3 bench/peers/rowmax_peers.py "${sh[@]}" \
            --out "$OUT/rowmax-peers.json" > "$OUT/rowmax-peers.log" 2>&1; echo "rc=$?" >> "$OUT/rowmax-peers.log"
        peers=(--peers "$OUT/rowmax-peers.json")
    fi
    "$R" bench --load "$OUT/bench.json" "${peers[@]}" --plot "$OUT/bench.svg" > "$OUT/combined.md" 2>&1
    cat "$OUT/combined.md"
    ;;
baseline)
    # One 2-D and one 1-D shape for the ports (every kernel and dtype), three row-max
    # shapes of different classes (square, a transposed view, narrow rows), each long
    # enough (50 us or more) that a 5% change is not run-to-run noise: at 4096x1000 (6 us)
    # two runs of one binary differed by 7%.
    pa=(); pp=(); for sh in ${PORT_SHAPES:-4096x4096 16777216}; do pa+=(--shape "$sh"); pp+=(--point "$sh"); done
    timeout "${PEERS_TIMEOUT:-300}" python3 bench/peers/tutorial_peers.py --rep 50 "${pa[@]}" \
        --out "$OUT/ports-peers.json" > "$OUT/ports-peers.log" 2>&1; echo "rc=$?" >> "$OUT/ports-peers.log"
    timeout "${BENCH_TIMEOUT:-300}" "$R" bench --kernel ports "${pp[@]}" --iters 20 --warmup 3 --no-progress \
        --json "$OUT/ports-bench.json" --peers "$OUT/ports-peers.json" --write-baseline "$OUT/ports-baseline.json" \
        > "$OUT/ports-combined.md" 2>&1; echo "rc=$?" >> "$OUT/ports-combined.md"
    ra=(); for sh in ${ROWMAX_SHAPES:-8192x8192 8192x16384:T 1048576x32}; do ra+=(--shape "$sh"); done
    timeout "${PEERS_TIMEOUT:-300}" python3 bench/peers/rowmax_peers.py --rep 50 "${ra[@]}" \
        --out "$OUT/row-max-peers.json" > "$OUT/row-max-peers.log" 2>&1; echo "rc=$?" >> "$OUT/row-max-peers.log"
    timeout "${BENCH_TIMEOUT:-300}" "$R" bench "${ra[@]}" --iters 20 --no-progress --json "$OUT/row-max-bench.json" \
        --peers "$OUT/row-max-peers.json" --write-baseline "$OUT/row-max-baseline.json" --plot "$OUT/row-max.svg" \
        > "$OUT/row-max-combined.md" 2>&1; echo "rc=$?" >> "$OUT/row-max-combined.md"
    tail -n 3 "$OUT/ports-combined.md" "$OUT/row-max-combined.md"
    ;;
ncu)
    timeout "${NCU_TIMEOUT:-400}" ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --section Occupancy --section LaunchStats ${NCU_FLAGS:-} "$R" ${NCU_ARGS:?set NCU_ARGS} > "$OUT/ncu.log" 2>&1
    echo "rc=$?" >> "$OUT/ncu.log"; tail -40 "$OUT/ncu.log"
    ;;
*) echo "unknown mode $MODE"; exit 2 ;;
esac
