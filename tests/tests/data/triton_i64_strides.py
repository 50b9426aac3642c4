# Produces triton_i64_strides_h200.txt: the stride-promoting row-max port (scalar strides
# promoted with .to) and the index-promoting port (index tensors promoted), written in Triton,
# launched on every shape of kernels-gpu/src/cases.rs (SHAPE_MATRIX) on a GPU.
# Run on a machine with a GPU, torch and triton:  python3 triton_i64_strides.py
# (the committed file adds a header in front of the output). Same kernels as
# row_max_i64_strides and row_max_i64_index in kernels-gpu/src/row_max.rs.
import torch,triton,triton.language as tl
@triton.jit
def skill(x_ptr,y_ptr,n_rows,n_cols,stride_row,stride_col,BLOCK:tl.constexpr):
    row=tl.program_id(0)
    row_start=row.to(tl.int64)*stride_row.to(tl.int64)
    stride=stride_col.to(tl.int64)
    cols=tl.arange(0,BLOCK)
    acc=tl.full([BLOCK],float('-inf'),tl.float32)
    for start in range(0,n_cols,BLOCK):
        c=start+cols
        acc=tl.maximum(acc,tl.load(x_ptr+row_start+c*stride,mask=c<n_cols,other=float('-inf')))
    tl.store(y_ptr+row,tl.max(acc,0))
@triton.jit
def fixed(x_ptr,y_ptr,n_rows,n_cols,stride_row,stride_col,BLOCK:tl.constexpr):
    row=tl.program_id(0).to(tl.int64)
    row_start=row*stride_row
    cols=tl.arange(0,BLOCK)
    acc=tl.full([BLOCK],float('-inf'),tl.float32)
    for start in range(0,n_cols,BLOCK):
        c=start+cols
        acc=tl.maximum(acc,tl.load(x_ptr+row_start+c.to(tl.int64)*stride_col,mask=c<n_cols,other=float('-inf')))
    tl.store(y_ptr+row,tl.max(acc,0))
C="1 1 c,1 1000 c,1000 1 c,37 100 c,64 7 c,3 5000 c,50 300 e,128 96 t,40 130 o,256 1024 c,17 33 c,1000 3 c,20 77 c,5 64 c,16 50 c,8 40 c"
print('triton',triton.__version__)
f=1
for s in C.split(','):
 r,c,v=s.split();r=int(r);c=int(c);g=lambda *a:torch.randn(*a,device='cuda')
 x={'c':lambda:g(r,c),'e':lambda:g(r,2*c)[:,::2],'t':lambda:g(c,r).t(),'o':lambda:g(r*c+3)[3:].view(r,c)}[v]()
 for k in (skill,fixed):
  y=torch.empty(r,device='cuda')
  try:
   k[(r,)](x,y,r,c,x.stride(0),x.stride(1),BLOCK=1024);torch.cuda.synchronize();z='ok' if torch.equal(y,x.amax(1)) else 'WRONG'
  except Exception as e:
   if f:print('--- full error',type(e).__name__);print(e);print('---');f=0
   z='%s: %s'%(type(e).__name__,str(e).strip().splitlines()[-1])
  print(r,c,v,x.stride(0),x.stride(1),k.fn.__name__,z)
