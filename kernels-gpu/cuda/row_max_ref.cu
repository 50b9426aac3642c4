// The CUDA C reference for the row-max family: y[r] = max_c x[offset + r*stride_row + c*stride_col].
//
// One block per row. Each thread walks the row's columns with a stride of blockDim.x and
// keeps a running fmaxf (NaN ignored, identity -inf); the warp reduces with
// __shfl_down_sync(0xffffffff, v, off) for off = 16, 8, 4, 2, 1; lane 0 of each warp
// writes its partial to shared memory; after __syncthreads warp 0 combines the partials
// with the same shuffle ladder and lane 0 stores the row's result.
//
// All index math is 64-bit, so views with more than 2^31 elements are read correctly.
// Both strides (in elements, possibly any value) and the element offset of the view are
// arguments, so every view of the shape matrix runs unchanged.
//
// Two entry points share the body and differ only in the NaN rule of the combine:
// - row_max_ref: fmaxf (NaN ignored: tl.max, PTX max.f32);
// - row_max_ref_propagate_nan: any NaN gives the canonical NaN 0x7FFFFFFF that PTX
//   max.NaN.f32 returns (tl.max(..., propagate_nan=ALL)).
//
// Launch: grid = (n_rows, 1, 1), block = (a multiple of 32, at most 1024, 1, 1).
// Compiled at run time with NVRTC (-arch=compute_86) and loaded as PTX.

#define NEG_INF __int_as_float(0xff800000)
#define CANONICAL_NAN __int_as_float(0x7fffffff)

template <bool PROPAGATE_NAN>
__device__ __forceinline__ float combine(float a, float b) {
    if (PROPAGATE_NAN && (isnan(a) || isnan(b))) {
        return CANONICAL_NAN;
    }
    return fmaxf(a, b);
}

template <bool PROPAGATE_NAN>
__device__ __forceinline__ void row_max_body(const float* __restrict__ x, float* __restrict__ y, long long offset,
                                             long long n_rows, long long n_cols, long long stride_row,
                                             long long stride_col) {
    __shared__ float partial[32];
    const long long row = (long long)blockIdx.x;
    if (row >= n_rows) {
        return;  // uniform for the whole block: no thread reaches the barrier
    }
    const float* xr = x + offset + row * stride_row;

    float v = NEG_INF;
    for (long long c = threadIdx.x; c < n_cols; c += blockDim.x) {
        v = combine<PROPAGATE_NAN>(v, xr[c * stride_col]);
    }
    for (int off = 16; off > 0; off >>= 1) {
        v = combine<PROPAGATE_NAN>(v, __shfl_down_sync(0xffffffff, v, off));
    }

    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    if (lane == 0) {
        partial[warp] = v;
    }
    __syncthreads();

    if (warp == 0) {
        const unsigned n_warps = (blockDim.x + 31u) >> 5;
        v = lane < n_warps ? partial[lane] : NEG_INF;
        for (int off = 16; off > 0; off >>= 1) {
            v = combine<PROPAGATE_NAN>(v, __shfl_down_sync(0xffffffff, v, off));
        }
        if (lane == 0) {
            y[row] = v;
        }
    }
}

extern "C" __global__ void row_max_ref(const float* __restrict__ x, float* __restrict__ y, long long offset,
                                       long long n_rows, long long n_cols, long long stride_row,
                                       long long stride_col) {
    row_max_body<false>(x, y, offset, n_rows, n_cols, stride_row, stride_col);
}

extern "C" __global__ void row_max_ref_propagate_nan(const float* __restrict__ x, float* __restrict__ y,
                                                     long long offset, long long n_rows, long long n_cols,
                                                     long long stride_row, long long stride_col) {
    row_max_body<true>(x, y, offset, n_rows, n_cols, stride_row, stride_col);
}
