#!/usr/bin/env bash
# Re-run of the CLI test binaries after fixing how they find the binary in an archive.
set -u
G="$(cd "$(dirname "$0")" && pwd)"
export RTRITON_CACHE_DIR=/tmp/rtriton-cache
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}/usr/local/cuda/lib64"
date -u +"date: %Y-%m-%dT%H:%M:%SZ" | tee $OUT/rerun-env.txt
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv | tee -a $OUT/rerun-env.txt
timeout 200 "$G/cargo-nextest" nextest run --archive-file "$G/tests.tar.zst" --workspace-remap . --no-fail-fast \
  -E 'package(rtriton-host)' > $OUT/host-tests-rerun.log 2>&1
echo "nextest rc=$?"; grep -E "^\s+(FAIL|SIGSEGV|SIGABRT|TIMEOUT)" $OUT/host-tests-rerun.log | head; grep Summary $OUT/host-tests-rerun.log
