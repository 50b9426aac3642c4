#!/usr/bin/env bash
# Run 17 part 2: 16-bit column arg reductions with torch's layout (8-byte vectors), a tile or four a trip.
B=$OUT
one() { # name exp idxu peers
  local name=$1 exp=$2 idxu=$3 peers=$4
  mkdir -p $B/$name
  cp .gpu/rtriton-e16 .gpu/rtriton; cp .gpu/commit-e16.txt .gpu/commit.txt
  if [[ -n "$exp" ]]; then export RT_EXP_COL16=$exp; else unset RT_EXP_COL16; fi
  if [[ -n "$idxu" ]]; then export RT_EXP_IDXU=1; else unset RT_EXP_IDXU; fi
  OUT=$B/$name KERNELS=reduce DTYPES="f16 bf16" POINTS="argmax (dim0);argmin (dim0);sum (dim0) f16 4096x16384;sum (dim0) f16 2048x32768" PEERS=$peers PEERS_ONLY="argmax sum" bash .gpu/run.sh ports-bench > /dev/null 2>&1
  echo "binary: rtriton-e16; RT_EXP_COL16=${exp:-unset} RT_EXP_IDXU=${idxu:-unset}" > $B/$name/exp.txt
  echo "== $name"; grep -E "^\| (sum|amax|argmax|argmin)" $B/$name/combined.md | cut -c1-75 | head -24
}
one base "" "" 1
one a1 "4,128,4,16" "" 0
one a4 "4,128,4,16" 1 0
one s12 "4,128,4,12" "" 0
cd $B && tar czf all.tgz */ && rm -rf */
