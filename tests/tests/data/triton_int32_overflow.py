# Produces triton_int32_overflow_h200.txt: a row max over a 65537 x 32768 f32 tensor
# (2^31 + 32768 elements, 8.6 GB) in Triton, once with the row index promoted to i64 and
# once with all index math in i32 (rtriton's row_max_i32), on a GPU with torch and triton:
#   python3 triton_int32_overflow.py
# The i64 kernel runs first: the i32 one faults and leaves the CUDA context unusable.
import torch,triton,triton.language as tl
@triton.jit
def row_max_i32(x_ptr,y_ptr,n_cols,stride_row,BLOCK:tl.constexpr):
    row=tl.program_id(0)
    cols=tl.arange(0,BLOCK)
    acc=tl.full([BLOCK],float('-inf'),tl.float32)
    for start in range(0,n_cols,BLOCK):
        c=start+cols
        acc=tl.maximum(acc,tl.load(x_ptr+row*stride_row+c,mask=c<n_cols,other=float('-inf')))
    tl.store(y_ptr+row,tl.max(acc,0))
@triton.jit
def row_max_i64(x_ptr,y_ptr,n_cols,stride_row,BLOCK:tl.constexpr):
    row=tl.program_id(0).to(tl.int64)
    cols=tl.arange(0,BLOCK)
    acc=tl.full([BLOCK],float('-inf'),tl.float32)
    for start in range(0,n_cols,BLOCK):
        c=start+cols
        acc=tl.maximum(acc,tl.load(x_ptr+row*stride_row+c.to(tl.int64),mask=c<n_cols,other=float('-inf')))
    tl.store(y_ptr+row,tl.max(acc,0))
R,C=65537,32768
print('triton',triton.__version__,torch.cuda.get_device_name())
x=torch.randn(R,C,device='cuda')
print('x',tuple(x.shape),'numel',x.numel(),'bytes',x.numel()*4,'numel > 2^31-1:',x.numel()>2**31-1)
want=x.amax(1)
for k in (row_max_i64,row_max_i32):
    y=torch.full((R,),float('nan'),device='cuda')
    try:
        k[(R,)](x,y,C,x.stride(0),BLOCK=1024);torch.cuda.synchronize()
        bad=(y!=want).nonzero().flatten().tolist()
        print(k.fn.__name__,'wrong rows:',len(bad),'of',R,bad[:8])
        for r in bad[:3]:print('  row',r,'got',y[r].item(),'want',want[r].item())
    except Exception as e:
        print(k.fn.__name__,'raised',type(e).__name__+':',str(e).strip().splitlines()[0]);break
