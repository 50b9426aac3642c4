#!/usr/bin/env bash
# Run 18: branch multiple-of (multiple_of and the VEC promise): every ignored test, and the
# row-max entry point with its peers on the shapes VEC changes.
B=$OUT
cp .gpu/mo/rtriton .gpu/rtriton; cp .gpu/mo/tests.tar.zst .gpu/tests.tar.zst; cp .gpu/mo/commit.txt .gpu/commit.txt
mkdir -p $B/ignored && OUT=$B/ignored THREADS=8 NT_TIMEOUT=260 bash .gpu/run.sh ignored | tail -4
mkdir -p $B/rowmax && OUT=$B/rowmax SHAPES="131072x100;4096x1000;65536x200;100000x36;32768x1000;8192x8192" bash .gpu/run.sh rowmax-bench > /dev/null 2>&1
grep -E "^[0-9]|entry|peer\)" $B/rowmax/combined.md | grep -E "^[0-9]|entry|torch|triton" | cut -c1-150 | head -40
cd $B && tar czf all.tgz */ && rm -rf */
