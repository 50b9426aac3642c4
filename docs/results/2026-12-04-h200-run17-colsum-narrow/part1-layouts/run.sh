#!/usr/bin/env bash
# Run 17 part 1: 16-bit column reductions with torch's layout (8-byte vectors) and/or the hoist pass.
B=$OUT
one() { # name bin exp peers
  local name=$1 bin=$2 exp=$3 peers=$4
  mkdir -p $B/$name
  cp .gpu/rtriton-$bin .gpu/rtriton; cp .gpu/commit-$bin.txt .gpu/commit.txt
  if [[ -n "$exp" ]]; then export RT_EXP_COL16=$exp; else unset RT_EXP_COL16; fi
  OUT=$B/$name KERNELS=reduce DTYPES="f16 bf16" POINTS="sum (dim0);amax (dim0)" PEERS=$peers PEERS_ONLY="sum amax" bash .gpu/run.sh ports-bench > /dev/null 2>&1
  echo "binary: rtriton-$bin; RT_EXP_COL16=${exp:-unset}" > $B/$name/exp.txt
  echo "== $name ($bin, ${exp:-unset})"; grep -E "^\| (sum|amax)" $B/$name/combined.md | cut -c1-90 | head -24
}
one base e16 "" 1
one t4 e16 "4,128,4,16" 0
one t4h h16 "4,128,4,16" 0
one baseh h16 "" 0
one h16u2 h16 "16,256,2,8" 0
one t4w8 e16 "4,128,4,8" 0
one t4u8h h16 "4,128,8,8" 0
one base2 e16 "" 0
cd $B && tar czf all.tgz */ && rm -rf */
