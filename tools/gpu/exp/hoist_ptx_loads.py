#!/usr/bin/env python3
"""Reorders loop bodies of rtriton PTX for a SASS comparison (tools/gpu/exp/README.md).

Usage: hoist_ptx_loads.py IN.ptx MODE OUT.ptx, MODE one of
  hoist   in every `LOOPn_HEAD:` body, the instructions that are not conversions, float
          adds, float register moves or min/max (the load chains: index and address
          arithmetic, the guards, the `mov 0` defaults, the loads, the 16-bit unpacks) go
          first, in their order, then the rest, in theirs; the index updates after the
          last load stay at the end of the body.
  nopred  drops the guard of every `ld.global` (a control: not a correct kernel).
  both    both.
Text only, recognized by mnemonics: for rtriton's column-sum PTX, not a general pass
(run 16 part 2, docs/results/2026-12-04-h200-run16-colsum-causes/).
"""
import re
import sys

COMPUTE = re.compile(r"\s*(?!mov\.f32 %f\d+, 0f)(cvt\.f32\.f16|cvt\.f32\.bf16|add\.rn\.f32|mov\.f32|max|min)")


def hoist(body):
    chain = [b for b in body if not COMPUTE.match(b)]
    rest = [b for b in body if COMPUTE.match(b)]
    last_ld = max(k for k, b in enumerate(chain) if "ld.global" in b)
    tail = chain[last_ld + 1 :]
    unpacks = [c for c in tail if c.strip().startswith("mov.b32 {")]
    updates = [c for c in tail if not c.strip().startswith("mov.b32 {")]
    return chain[: last_ld + 1] + unpacks + rest + updates


def main():
    src, mode, dst = sys.argv[1].strip(), sys.argv[2], sys.argv[3]
    lines = open(src).read().split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        head = re.match(r"\s*(LOOP\d+_HEAD):", line)
        if head and mode in ("hoist", "both"):
            j, body = i + 1, []
            while not re.search(r"bra(\.uni)? +" + head.group(1), lines[j]) and not re.match(r"\s*\S+:", lines[j]):
                body.append(lines[j])
                j += 1
            out += hoist(body) if any("ld.global" in b for b in body) else body
            i = j
            continue
        i += 1
    text = "\n".join(out)
    if mode in ("nopred", "both"):
        text = re.sub(r"@%p\d+ (ld\.global)", r"\1", text)
    open(dst, "w").write(text)


if __name__ == "__main__":
    main()
