"""One torch column sum (x.sum(0)) of a contiguous rows x cols tensor, for ncu to profile
next to rtriton's: `python3 torch_colsum.py 4096 16384 f16`."""
import sys

import torch

rows, cols, dtype = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dtype]
x = torch.randn(rows, cols, device="cuda", dtype=dt)
torch.cuda.synchronize()
y = x.sum(0)
torch.cuda.synchronize()
print(y.shape, y.dtype)
