#!/usr/bin/env bash
# GPU run (lead). Usage: bash .gpu/run.sh MODE [nextest filter...]
#   ignored: environment, the workspace's ignored tests (GPU, NVRTC), optionally filtered
#   validate: validate (row-max) and validate --kernel ports
#   ports-bench: bench --kernel ports, tutorial_peers.py, the combined table
#   rowmax-bench: bench (row-max family and entry point), rowmax_peers.py, the combined table and SVG
set -u
G="$(cd "$(dirname "$0")" && pwd)"
export RTRITON_CACHE_DIR=/tmp/rtriton-cache
export INSTA_WORKSPACE_ROOT="$PWD"
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
if [ ! -x "$G/cargo-nextest" ]; then
  xz -dc "$G/cargo-nextest.xz" > "$G/cargo-nextest" 2>/dev/null || python3 -c "import lzma,sys;open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$G/cargo-nextest.xz" "$G/cargo-nextest"
  chmod +x "$G/cargo-nextest"
fi
chmod +x "$G/rtriton" 2>/dev/null
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "binaries built from commit: $(head -1 "$G/commit.txt") (files differing from it at build time: $(sed -n 2p "$G/commit.txt"))"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
  nvidia-smi | sed -n 3p
  nvcc --version | tail -2
  echo "rtriton --version: $("$G/rtriton" --version 2>&1)"
} > $OUT/env.txt 2>&1
cat $OUT/env.txt
mode="${1:-ignored}"; shift || true
case "$mode" in
ignored)
  SECONDS=0
  timeout ${NT_TIMEOUT:-500} "$G/cargo-nextest" nextest run --archive-file "$G/tests.tar.zst" --workspace-remap . --no-fail-fast \
    --run-ignored only --test-threads ${THREADS:-8} --failure-output final "$@" > $OUT/tests.log 2>&1
  echo "nextest rc=$? in ${SECONDS}s"; grep -E "^\s+(FAIL|SIGSEGV|SIGABRT|TIMEOUT)" $OUT/tests.log | head -30; grep -E "Summary" $OUT/tests.log
  ;;
validate)
  SECONDS=0
  timeout 150 "$G/rtriton" validate --backend gpu --no-progress --json $OUT/validate.json > $OUT/validate.log 2>&1
  echo "validate rc=$? in ${SECONDS}s"; tail -2 $OUT/validate.log
  SECONDS=0
  timeout 200 "$G/rtriton" validate --backend gpu --kernel ports --no-progress > $OUT/ports.log 2>&1
  echo "validate ports rc=$? in ${SECONDS}s"; tail -3 $OUT/ports.log
  ;;
ports-bench)
  SECONDS=0
  timeout ${BENCH_TIMEOUT:-330} "$G/rtriton" bench --kernel ports --iters ${ITERS:-20} --warmup 3 --json $OUT/ports-bench.json > $OUT/ports-bench.log 2>&1
  echo "bench ports rc=$? in ${SECONDS}s"; tail -3 $OUT/ports-bench.log
  SECONDS=0
  timeout ${PEERS_TIMEOUT:-200} python3 -B bench/peers/tutorial_peers.py --rep ${REP:-50} --out $OUT/tutorial-peers.json > $OUT/tutorial-peers.log 2>&1
  echo "peers rc=$? in ${SECONDS}s"; tail -3 $OUT/tutorial-peers.log; grep -c MISMATCH $OUT/tutorial-peers.log
  "$G/rtriton" bench --kernel ports --load $OUT/ports-bench.json --peers $OUT/tutorial-peers.json > $OUT/combined.md 2>&1
  echo "combined rc=$?"; tail -2 $OUT/combined.md
  ;;
rowmax-bench)
  SECONDS=0
  timeout ${PEERS_TIMEOUT:-200} python3 -B bench/peers/rowmax_peers.py --rep ${REP:-50} --out $OUT/rowmax-peers.json > $OUT/rowmax-peers.log 2>&1
  echo "peers rc=$? in ${SECONDS}s"; tail -3 $OUT/rowmax-peers.log
  SECONDS=0
  timeout ${BENCH_TIMEOUT:-330} "$G/rtriton" bench --iters ${ITERS:-20} --warmup 3 --no-progress --json $OUT/rowmax-bench.json --peers $OUT/rowmax-peers.json --plot $OUT/rowmax.svg "$@" > $OUT/rowmax-bench.md 2> $OUT/rowmax-bench.err
  echo "bench rc=$? in ${SECONDS}s"; tail -5 $OUT/rowmax-bench.err
  ;;
rowmax-shapes)
  # the row-max bench and its peers on SHAPES (space-separated ROWSxCOLS[:VIEW])
  args=(); for sh in $SHAPES; do args+=(--shape "$sh"); done
  SECONDS=0
  timeout ${PEERS_TIMEOUT:-200} python3 -B bench/peers/rowmax_peers.py --rep ${REP:-50} "${args[@]}" --out $OUT/rowmax-peers.json > $OUT/rowmax-peers.log 2>&1
  echo "peers rc=$? in ${SECONDS}s"; tail -2 $OUT/rowmax-peers.log
  SECONDS=0
  timeout ${BENCH_TIMEOUT:-330} "$G/rtriton" bench --iters ${ITERS:-20} --warmup 3 --no-progress --variant row_max_entry "${args[@]}" --json $OUT/rowmax-bench.json --peers $OUT/rowmax-peers.json --plot $OUT/rowmax.svg > $OUT/rowmax-bench.md 2> $OUT/rowmax-bench.err
  echo "bench rc=$? in ${SECONDS}s"; tail -3 $OUT/rowmax-bench.md
  ;;
epilogue-bench)
  SECONDS=0
  timeout 200 "$G/rtriton" bench --kernel epilogue --iters ${ITERS:-20} --warmup 3 --json $OUT/epilogue-bench.json > $OUT/epilogue-bench.log 2>&1
  echo "bench epilogue rc=$? in ${SECONDS}s"; tail -2 $OUT/epilogue-bench.log
  timeout 120 python3 -B bench/peers/tutorial_peers.py --rep ${REP:-50} --only gelu_tanh --only gelu_erf --only silu --out $OUT/epilogue-peers.json > $OUT/epilogue-peers.log 2>&1
  echo "peers rc=$?"
  "$G/rtriton" bench --kernel epilogue --load $OUT/epilogue-bench.json --peers $OUT/epilogue-peers.json > $OUT/epilogue-combined.md 2>&1
  echo "combined rc=$?"
  ;;
ncu)
  # ncu readings of the misses: softmax f32 4096x16384, column sum f32 32768x1024
  for spec in "softmax:softmax f32 4096x16384:softmax" "reduce:sum (dim0) f32 32768x1024:col_sum"; do
    IFS=: read -r kernel point regex <<< "$spec"
    timeout 120 ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      -k regex:$regex --launch-skip 2 --launch-count 1 "$G/rtriton" bench --kernel $kernel --point "$point" --iters 2 --warmup 1 --check-limit 1 > "$OUT/ncu-$regex.txt" 2>&1
    echo "ncu $regex rc=$?"
  done
  ;;
esac
