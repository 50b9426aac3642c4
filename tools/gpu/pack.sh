#!/usr/bin/env bash
# Builds what one GPU run carries, into .gpu/ (gitignored), on the build machine:
# the release CLI, a release nextest archive of the workspace (recompressed to fit the
# a 64 MiB upload limit), cargo-nextest itself, this script's runner and the
# commit the binaries come from (with the count of tracked files that differed from it).
# Usage: tools/gpu/pack.sh [--no-tests]
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu
cargo build --release -p rtriton-host --bin rtriton
cp target/release/rtriton .gpu/
cp tools/gpu/run.sh .gpu/run.sh
if [[ "${1:-}" != "--no-tests" ]]; then
    cargo nextest archive --release --workspace --archive-file /tmp/rtriton-tests.tar.zst
    zstd -dc /tmp/rtriton-tests.tar.zst | zstd -19 -T2 --long=27 -q -o .gpu/tests.tar.zst -f
    [[ -f .gpu/cargo-nextest.xz ]] || xz -9 -c "$(command -v cargo-nextest)" > .gpu/cargo-nextest.xz
fi
{ git rev-parse HEAD; git status --short | grep -vc '^??' || true; } > .gpu/commit.txt
du -ch .gpu/* | tail -1
echo 'carry: [".gpu/rtriton", ".gpu/run.sh", ".gpu/commit.txt", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz"]'
