"""Joins `tools/gpu/run.sh ports-paired`'s per-point files in OUT (r-N.json from `rtriton
bench`, p-N.json from `bench/peers/tutorial_peers.py`, N counting points round by round,
POINTS_PER_ROUND a round) into ports-bench.json and tutorial-peers.json, which `rtriton bench
--load ... --peers ...` joins as it does a whole list's, and rounds.md, every round's figure.

Usage: join_paired.py OUT POINTS_PER_ROUND
"""
import json, os, re, sys

out, per_round = sys.argv[1], int(sys.argv[2])
def load(name):
    return json.load(open(name)) if os.path.exists(name) else None
r_rows, p_rows, r_head, p_env, lines = [], [], None, None, ["| round | point | implementation | TB/s |", "|---|---|---|---|"]
# A point whose launches failed left no file: the numbers of the others still say their round.
numbers = sorted({int(m.group(1)) for f in os.listdir(out) if (m := re.fullmatch(r"[rp]-(\d+)\.json", f))})
for n in numbers:
    r, p = load(f"{out}/r-{n}.json"), load(f"{out}/p-{n}.json")
    rnd = (n - 1) // per_round + 1
    for row in (r or {}).get("rows", []):
        shape = "x".join(str(d) for d in row["shape"])
        lines.append(f"| {rnd} | {row['kernel']} {row['dtype']} {shape} | rtriton {row.get('variant') or ''} | {row['tbps']:.3f} |")
        if rnd == 1:
            r_rows.append(row)
    for row in (p or {}).get("results", []):
        shape = "x".join(str(d) for d in row["shape"])
        tbps = f"{row['tbps']:.3f}" if row.get("tbps") else "-"
        lines.append(f"| {rnd} | {row['kernel']} {row['dtype']} {shape} | {row['impl']} | {tbps} |")
        if rnd == 1:
            p_rows.append(row)
    r_head = r_head or (r and {k: v for k, v in r.items() if k != "rows"})
    p_env = p_env or (p and p["env"])
json.dump(dict(r_head or {}, rows=r_rows), open(f"{out}/ports-bench.json", "w"), indent=1)
json.dump({"env": p_env or {}, "results": p_rows}, open(f"{out}/tutorial-peers.json", "w"), indent=1)
open(f"{out}/rounds.md", "w").write("\n".join(lines) + "\n")
