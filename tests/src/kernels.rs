//! Kernels several suites run (interpreter, simulator, GPU, ptxas): the NaN-propagating
//! row maxima, launched like the row-max family, and a kernel that mixes the ops the
//! row-max family does not use.

use rtriton::kernel;
use rtriton::prelude::*;

kernel! {
    /// `row_max` with a NaN-propagating reduction (`tl.max(.., propagate_nan=ALL)`:
    /// `max.NaN.f32` in the shuffles).
    pub fn row_max_nan(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                       const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let x = load(x_ptr + row * stride_row + cols.to::<i64>() * stride_col, Some(cols.lt(n_cols)), Some(f32::NEG_INFINITY));
        store(y_ptr + row, max_with(x, 0, PropagateNan::All), None);
    }
}

kernel! {
    /// `row_max_loop` with a NaN-propagating running maximum and reduction.
    pub fn row_max_loop_nan(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, n_rows: i32, n_cols: i32, stride_row: i32, stride_col: i32;
                            const BLOCK: usize) {
        let row = program_id(0).to::<i64>();
        let cols = arange(0, BLOCK);
        let acc = full::<f32>(&[BLOCK], f32::NEG_INFINITY);
        let acc = for_range(0, n_cols, BLOCK as i32, acc, |start, acc| {
            let c = start + cols;
            let x = load(x_ptr + row * stride_row + c.to::<i64>() * stride_col, Some(c.lt(n_cols)), Some(f32::NEG_INFINITY));
            maximum_with(acc, x, PropagateNan::All)
        });
        store(y_ptr + row, max_with(acc, 0, PropagateNan::All), None);
    }
}

kernel! {
    /// What the row-max family does not exercise: where, bool casts, integer division and
    /// remainder, int/float conversions, sum and min reductions (f32), sum and max
    /// reductions (i32), argmax, a constant mask and num_programs. Every output element
    /// is stored by one program.
    pub fn op_mix(x_ptr: Ptr<f32>, yi_ptr: Ptr<i32>, yf_ptr: Ptr<f32>, r_ptr: Ptr<i32>, n: i32; const BLOCK: usize) {
        let pid = program_id(0);
        let offs = pid * BLOCK as i32 + arange(0, BLOCK);
        let always = full::<bool>(&[BLOCK], true);
        let mask = offs.lt(n) & offs.ge(0) & always;
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        let pos = x.gt(0.0);
        let flipped = where_(pos, x, x * -1.0);
        let q = offs / 3 + offs % 5;
        let f = q.to::<f32>() + flipped;
        let i = f.to::<i32>() + pos.to::<i32>();
        store(yi_ptr + offs, i, Some(mask));
        store(yf_ptr + pid, sum(flipped, 0) + min(x, 0) + num_programs(0).to::<f32>(), None);
        store(r_ptr + pid * 3, sum(q, 0), None);
        store(r_ptr + pid * 3 + 1, argmax(x, 0), None);
        store(r_ptr + pid * 3 + 2, max(i, 0), None);
    }
}

kernel! {
    /// Triton's random numbers and `umulhi`, for the suites that run every op (IR text,
    /// golden forms): `randint4x` on i64 offsets, `rand` and `randn` on i32 offsets, and
    /// `umulhi` of the words.
    pub fn random_mix(y_ptr: Ptr<u32>, f_ptr: Ptr<f32>, n: i32, seed: i64; const BLOCK: usize) {
        let i = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = i.lt(n);
        let [a, b, c, d] = randint4x(seed, i.to::<i64>() + (1i64 << 33));
        store(y_ptr + i, umulhi(a, b) ^ c ^ d, Some(mask));
        store(f_ptr + i, rand(seed, i) + randn(seed, i), Some(mask));
    }
}
