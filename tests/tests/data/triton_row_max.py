# Produces triton_h200_row_max.txt: the row maxima Triton computes on a GPU for every case
# of kernels-gpu/src/cases.rs (SHAPE_MATRIX, same inputs: the xorshift generator is ported
# bit for bit), with NaN ignored (tl.maximum / tl.max) and propagated (propagate_nan=ALL).
# Run on a machine with a GPU, torch and triton:  python3 triton_row_max.py > out.txt
# (this prints the two bit lines per case in SHAPE_MATRIX order; the committed file adds
# the case names and rules in front of them).
import numpy as np, torch, triton, triton.language as tl

M = (1 << 64) - 1
F = np.float32


def rnd(seed, n, lo, hi):
    """cases::random: xorshift64* to f32 in [lo, hi), in f32 arithmetic like the Rust code."""
    s = (seed * 0x9E3779B97F4A7C15 & M) | 1
    o = np.empty(n, F)
    d = F(hi) - F(lo)
    for i in range(n):
        s ^= s >> 12
        s ^= (s << 25) & M
        s ^= s >> 27
        o[i] = F(lo) + d * (F(((s * 0x2545F4914F6CDD1D) & M) >> 40) / F(1 << 24))
    return o


# (n_rows, n_cols, view, fill, seed): view c=contiguous e=every other column t=transposed
# o=offset 3; fill r=random n=all negative i=all -inf N=some NaN z=signed zeros.
CASES = [(1, 1, 'c', 'r', 1), (1, 1000, 'c', 'r', 2), (1000, 1, 'c', 'r', 3), (37, 100, 'c', 'r', 4),
         (64, 7, 'c', 'r', 5), (3, 5000, 'c', 'r', 6), (50, 300, 'e', 'r', 7), (128, 96, 't', 'r', 8),
         (40, 130, 'o', 'r', 9), (256, 1024, 'c', 'r', 10), (17, 33, 'c', 'r', 11), (1000, 3, 'c', 'r', 12),
         (20, 77, 'c', 'n', 13), (5, 64, 'c', 'i', 0), (16, 50, 'c', 'N', 14), (8, 40, 'c', 'z', 0)]


@triton.jit
def mx(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def k(x, y, z, nc, sr, sc, B: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    c = tl.arange(0, B)
    a = tl.full([B], float('-inf'), tl.float32)
    p = a
    for s in range(0, nc, B):
        m = s + c < nc
        v = tl.load(x + r * sr + (s + c).to(tl.int64) * sc, mask=m, other=float('-inf'))
        a = tl.maximum(a, v)
        p = mx(p, v)
    tl.store(y + r, tl.max(a, 0))
    tl.store(z + r, tl.reduce(p, 0, mx))


for (R, Cn, v, f, sd) in CASES:
    off, sr, sc, L = {'c': (0, Cn, 1, R * Cn), 'e': (0, 2 * Cn, 2, R * 2 * Cn), 't': (0, 1, R, R * Cn),
                      'o': (3, Cn, 1, 3 + R * Cn)}[v]
    if f in 'rN':
        x = rnd(sd, L, -1000, 1000)
    elif f == 'n':
        x = rnd(sd, L, -1000, -.5)
    elif f == 'i':
        x = np.full(L, -np.inf, F)
    else:
        x = np.array([-0. if (i // 3 + i // 7) % 2 == 0 else 0. for i in range(L)], F)
    if f == 'N':
        for r in range(0, R, 3):
            x[off + r * sr + (r * 7) % Cn * sc] = np.nan
        for c in range(Cn):
            x[off + sr + c * sc] = np.nan
    X = torch.from_numpy(x).cuda()
    y = torch.empty(R, device='cuda')
    z = torch.empty_like(y)
    k[(R,)](X[off:], y, z, Cn, sr, sc, B=256)
    for t in (y, z):
        print(' '.join('%08x' % (b & 0xFFFFFFFF) for b in t.view(torch.int32).tolist()))
