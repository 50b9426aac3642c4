"""Writes the PTX Triton generates for bench/peers/tutorial_peers.py's epilogue kernel
(one file per activation and dtype, under $OUT/triton-ptx/), so that its registers and
SASS instructions an element can be counted with ptxas beside rtriton's. Run on the GPU
machine (Triton compiles at the first launch): python3 tools/gpu/exp/triton_epilogue_ptx.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "peers"))
import torch  # noqa: E402
import triton  # noqa: E402
from tutorial_peers import kernels  # noqa: E402

out = os.path.join(os.environ.get("OUT", "."), "triton-ptx")
os.makedirs(out, exist_ok=True)
k = kernels()["epilogue"]
for dt in (torch.float32, torch.float16, torch.bfloat16):
    x = torch.randn(4096, 1024, device="cuda", dtype=dt)
    y = torch.empty_like(x)
    for code, name in enumerate(("gelu_tanh", "gelu_erf", "silu")):
        c = k[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), 1.25, -0.5, KIND=code, BLOCK=1024)
        path = os.path.join(out, f"{name}_{str(dt).split('.')[-1]}.ptx")
        with open(path, "w") as f:
            f.write(c.asm["ptx"])
        print(path, c.n_regs if hasattr(c, "n_regs") else "", c.metadata.num_warps)
