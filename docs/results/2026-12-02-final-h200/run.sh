#!/usr/bin/env bash
# Final GPU run (lead): GPU suite + host crate, validate --huge, bench, memcheck, racecheck.
set -u
G="$(cd "$(dirname "$0")" && pwd)"
export RTRITON_CACHE_DIR=/tmp/rtriton-cache
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
  nvidia-smi | sed -n 3p
  nvcc --version | tail -2
} > $OUT/env.txt 2>&1
cat $OUT/env.txt
echo "== nextest (GPU suite + host crate)"
SECONDS=0
timeout 150 "$G/cargo-nextest" nextest run --archive-file "$G/tests.tar.zst" --workspace-remap . --no-fail-fast \
  -E 'binary(gpu) | package(rtriton-host)' > $OUT/gpu-tests.log 2>&1
echo "nextest rc=$? in ${SECONDS}s"; grep -E "^\s+(FAIL|SIGSEGV|SIGABRT|TIMEOUT)" $OUT/gpu-tests.log | head -20; grep -E "Summary" $OUT/gpu-tests.log
echo "== validate --huge"
SECONDS=0
timeout 120 "$G/rtriton" validate --huge --no-progress --json $OUT/validate.json > $OUT/validate.log 2>&1
echo "validate rc=$? in ${SECONDS}s"; grep -E "MISMATCH|ERROR|refused" $OUT/validate.log | cut -c1-250 | head -8; tail -1 $OUT/validate.log
echo "== bench"
SECONDS=0
timeout 130 "$G/rtriton" bench --no-progress --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$? in ${SECONDS}s"; grep -vE "^\s*$" $OUT/bench.log | tail -45 | cut -c1-220
echo "== memcheck"
SECONDS=0
timeout 90 compute-sanitizer --tool memcheck "$G/rtriton" validate --no-progress > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? in ${SECONDS}s"; tail -2 $OUT/memcheck.log
echo "== racecheck"
SECONDS=0
timeout 80 compute-sanitizer --tool racecheck "$G/rtriton" validate --no-progress > $OUT/racecheck.log 2>&1
echo "racecheck rc=$? in ${SECONDS}s"; tail -2 $OUT/racecheck.log
