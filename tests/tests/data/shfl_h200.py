"""Measures shfl.sync on the GPU and writes shfl_h200.txt: for each (mode, b, c), the lane
every one of the 32 lanes reads and the in-range predicate. tests/tests/sim_differential.rs
checks the simulator's `rtriton::sim::shfl::source_lane` against that table.

Recorded on an H200 (driver 580.159.04) with CuPy: `python3 shfl_h200.py` in an empty
folder (it writes shfl_table.ptx, the kernel, and shfl_h200.txt).
"""
import cupy as cp
M=["up","down","bfly","idx"];B=[0,1,2,3,5,8,16,31,33]
C=[0,0x1F,0xF,0x7,0x3,0x1,0x101F,0x181F,0x1C1F,0x1800,0x1C00,0x100F,0x1807,0x1F00,0x1F1F]
K=[(m,b,c) for m in M for b in B for c in C]
L=[".version 7.8",".target sm_86",".address_size 64",".visible .entry t(.param .u64 o)",".maxntid 32, 1, 1","{",".reg .b32 %l,%v,%q,%w;",".reg .b64 %a,%f;",".reg .pred %p;","ld.param.u64 %a,[o];","cvta.to.global.u64 %a,%a;","mov.u32 %l,%tid.x;","mul.wide.u32 %f,%l,4;","add.s64 %a,%a,%f;"]
for k,(m,b,c) in enumerate(K):
  L+=[f"shfl.sync.{m}.b32 %v|%p,%l,{b},{c},0xffffffff;","selp.u32 %q,256,0,%p;","or.b32 %w,%v,%q;",f"st.global.u32 [%a+{k*128}],%w;"]
L+=["ret;","}"]
open("shfl_table.ptx","w").write("\n".join(L)+"\n")
f=cp.RawModule(path="shfl_table.ptx").get_function("t")
o=cp.zeros(len(K)*32,dtype=cp.uint32);f((1,),(32,),(o,));cp.cuda.Device().synchronize();w=o.get().tolist()
n=cp.cuda.runtime.getDeviceProperties(0)["name"];n=n.decode() if isinstance(n,bytes) else n
with open("shfl_h200.txt","w") as h:
  h.write(f"# shfl.sync.MODE.b32 d|p, laneid, b, c, 0xffffffff on {n}; per lane: the source lane, '+' where p (in range)\n")
  for k,(m,b,c) in enumerate(K):
    h.write(f"{m} {b} 0x{c:x} "+" ".join(f"{x&255}{'+' if x&256 else ''}" for x in w[k*32:k*32+32])+"\n")
print(len(K))
