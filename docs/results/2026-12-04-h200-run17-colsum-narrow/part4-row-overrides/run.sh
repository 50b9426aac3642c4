#!/usr/bin/env bash
# Run 17 part 4: row-wise (dim1) reductions at 2048x32768 under launch overrides (commit 53e9482).
B=$OUT
one() { # name peers overrides
  local name=$1 peers=$2; shift 2
  mkdir -p $B/$name
  OUT=$B/$name KERNELS=reduce POINTS="(dim1) f16 2048x32768;(dim1) bf16 2048x32768;(dim1) f32 2048x32768" OVERRIDES="$*" PEERS=$peers PEERS_ONLY="sum amax argmax" bash .gpu/run.sh ports-bench > /dev/null 2>&1
  echo "== $name: $*"; grep -E "^\| (sum|amax|argmax)" $B/$name/combined.md | cut -c1-72
}
one base 1
one m1n2k 0 --set BLOCK_M=1 --set BLOCK_N=2048 --programs 2048
one m1n4k 0 --set BLOCK_M=1 --set BLOCK_N=4096 --programs 2048
one m2n2k 0 --set BLOCK_N=2048
one m1n1k 0 --set BLOCK_M=1 --programs 2048
one m1n2kw8 0 --set BLOCK_M=1 --set BLOCK_N=2048 --programs 2048 --warps 8
one base2 0
cd $B && tar czf all.tgz */ && rm -rf */
