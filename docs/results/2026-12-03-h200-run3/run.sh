#!/usr/bin/env bash
# GPU run (lead). Usage: bash .gpu/run.sh MODE [nextest filter...]
#   ignored: environment, the workspace's ignored tests (GPU, NVRTC), optionally filtered
#   validate: validate (row-max) and validate --kernel ports
#   sanitize: compute-sanitizer over validate
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
esac
