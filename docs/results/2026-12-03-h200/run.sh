#!/usr/bin/env bash
# GPU run (lead). Usage: bash .gpu/run.sh tests|sanitize
#   tests:    environment, every test of the workspace with the ignored (GPU, NVRTC) ones
#             included, validate --huge --json
#   sanitize: compute-sanitizer memcheck, racecheck, synccheck, initcheck over validate,
#             and memcheck + racecheck over the example crate's GPU tests
set -u
G="$(cd "$(dirname "$0")" && pwd)"
export RTRITON_CACHE_DIR=/tmp/rtriton-cache
# insta finds the golden snapshots under the repository copy here, not the build path.
export INSTA_WORKSPACE_ROOT="$PWD"
export PATH="$PATH:/usr/local/cuda/bin"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
case "${1:-tests}" in
tests)
  {
    date -u +"date: %Y-%m-%dT%H:%M:%SZ"
    echo "binaries built from commit: $(head -1 "$G/commit.txt") (files differing from it at build time: $(sed -n 2p "$G/commit.txt"))"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv
    nvidia-smi | sed -n 3p
    nvcc --version | tail -2
    echo "rtriton --version: $("$G/rtriton" --version 2>&1)"
  } > $OUT/env.txt 2>&1
  cat $OUT/env.txt
  echo "== nextest: whole workspace, --run-ignored all"
  SECONDS=0
  timeout 400 "$G/cargo-nextest" nextest run --archive-file "$G/tests.tar.zst" --workspace-remap . --no-fail-fast \
    --run-ignored all > $OUT/tests.log 2>&1
  echo "nextest rc=$? in ${SECONDS}s"; grep -E "^\s+(FAIL|SIGSEGV|SIGABRT|TIMEOUT)" $OUT/tests.log | head -20; grep -E "Summary" $OUT/tests.log
  echo "== validate --huge"
  SECONDS=0
  timeout 150 "$G/rtriton" validate --huge --no-progress --json $OUT/validate.json > $OUT/validate.log 2>&1
  echo "validate rc=$? in ${SECONDS}s"; head -1 $OUT/validate.log; grep -E "MISMATCH|ERROR|refused|unchecked|SKIP" $OUT/validate.log | cut -c1-200 | head -8; tail -1 $OUT/validate.log
  ;;
sanitize)
  for tool in memcheck racecheck synccheck initcheck; do
    echo "== $tool over validate"
    SECONDS=0
    timeout 110 compute-sanitizer --tool $tool --error-exitcode 99 "$G/rtriton" validate --no-progress > $OUT/$tool.log 2>&1
    echo "$tool rc=$? in ${SECONDS}s"; tail -2 $OUT/$tool.log
  done
  echo "== example crate GPU tests under compute-sanitizer"
  mkdir -p /tmp/x && "$G/cargo-nextest" nextest list --archive-file "$G/tests.tar.zst" --workspace-remap . --extract-to /tmp/x --extract-overwrite > /dev/null 2>&1
  bin=$(ls /tmp/x/target/release/deps/scaled_add-* 2>/dev/null | grep -v '\.d$' | head -1)
  echo "binary: $bin"
  for tool in memcheck racecheck; do
    SECONDS=0
    (cd examples/testing-user && timeout 60 compute-sanitizer --tool $tool --error-exitcode 99 "$bin" --include-ignored gpu) > $OUT/example-$tool.log 2>&1
    echo "example $tool rc=$? in ${SECONDS}s"; grep -E "test result|SUMMARY" $OUT/example-$tool.log | tail -3
  done
  ;;
esac
