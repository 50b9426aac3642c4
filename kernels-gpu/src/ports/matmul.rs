//! Matrix multiplication. After Triton's tutorial
//! `python/tutorials/03-matrix-multiplication.py`, `matmul_kernel`: `C = A @ B` for an
//! `M x K` matrix `A` and a `K x N` matrix `B`, each with any strides, one
//! `BLOCK_SIZE_M x BLOCK_SIZE_N` tile of `C` per program on a 1-D grid in the tutorial's
//! grouped order, `K` in steps of `BLOCK_SIZE_K` accumulated by `dot` in `f32`, an optional
//! fused `leaky_relu`, and the result converted to `C`'s dtype.
//!
//! One body, [`matmul`], serves every dtype; each `kernel!` names its element types:
//! `matmul_kernel_f16` and `matmul_kernel_bf16` (16-bit inputs and output, as the tutorial
//! stores `f16`), `matmul_kernel_tf32` (`f32` inputs multiplied as tf32, Triton's default
//! `input_precision` for `f32` on tensor cores, `f32` output). `matmul_kernel_persistent_*`
//! are tutorial 09's persistent form ([`matmul_persistent`]): a grid of `NUM_SMS` programs,
//! each looping over its tiles; `matmul_kernel_descriptor_persistent_*` its descriptor form
//! ([`matmul_descriptor_persistent`]), tensor copies (TMA) on sm_90a.
//!
//! Differences from the tutorial (`docs/ports.md`, "Matrix multiplication"): every
//! product of an index and a stride is computed in `i64` (the tutorial's `i32` products
//! wrap past 2^31 elements, e.g. a transposed `A` of more than 2^31 / `BLOCK_SIZE_K`
//! rows); `ACTIVATION` is a constexpr integer ([`NO_ACTIVATION`], [`LEAKY_RELU`]) since
//! constexprs are integers here.

use half::{bf16, f16};
use rtriton::kernel;
use rtriton::prelude::*;

/// `ACTIVATION`: the accumulator is stored as computed.
pub const NO_ACTIVATION: i64 = 0;
/// `ACTIVATION`: `leaky_relu(x) = where(x >= 0, x, 0.01 * x)` on the `f32` accumulator.
pub const LEAKY_RELU: i64 = 1;

/// The launch arguments of every `matmul_kernel*`, in the tutorial's order.
#[derive(Clone, Copy, Debug)]
pub struct Args<A, C> {
    pub a_ptr: Tensor<Ptr<A>>,
    pub b_ptr: Tensor<Ptr<A>>,
    pub c_ptr: Tensor<Ptr<C>>,
    pub m: Tensor<i32>,
    pub n: Tensor<i32>,
    pub k: Tensor<i32>,
    pub stride_am: Tensor<i32>,
    pub stride_ak: Tensor<i32>,
    pub stride_bk: Tensor<i32>,
    pub stride_bn: Tensor<i32>,
    pub stride_cm: Tensor<i32>,
    pub stride_cn: Tensor<i32>,
}

/// The compile-time parameters: the tile, the group of row tiles walked together, the
/// activation and whether `f32` operands are multiplied as tf32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub block_m: usize,
    pub block_n: usize,
    pub block_k: usize,
    pub group_m: i32,
    pub activation: i64,
    pub tf32: bool,
    /// `num_stages` of the K loop (`for_range_staged`): 2 or more loads the next tiles of
    /// `A` and `B` while this step's `dot` runs.
    pub num_stages: usize,
}

/// `leaky_relu` of the tutorial, on the `f32` accumulator.
pub fn leaky_relu(x: Tensor<f32>) -> Tensor<f32> {
    where_(x.ge(0.0), x, x * 0.01)
}

/// `(pid_m, pid_n)` of program `pid`: the tutorial's grouped order, in Rust, for the
/// host's tests and the grid (`num_pid_m * num_pid_n` programs). Programs walk
/// `group_m` row tiles down a column of tiles before moving right, so the tiles of `A` and
/// `B` that programs running together read stay in L2.
pub fn tile_of(pid: usize, num_pid_m: usize, num_pid_n: usize, group_m: usize) -> (usize, usize) {
    let num_pid_in_group = group_m * num_pid_n;
    let group_id = pid / num_pid_in_group;
    let first_pid_m = group_id * group_m;
    let group_size_m = (num_pid_m - first_pid_m).min(group_m);
    let pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
    let pid_n = (pid % num_pid_in_group) / group_size_m;
    (pid_m, pid_n)
}

/// The body of every `matmul_kernel*`: the tutorial's kernel line by line.
pub fn matmul<A: ScalarMarker, C: ScalarMarker>(a: Args<A, C>, zero: A::Native, meta: Meta) {
    // Map program ids to the tile of C each computes, in groups of `group_m` row tiles
    // (`tile_of` is the same arithmetic on the host).
    let pid = program_id(0);
    let (pid_m, pid_n) = grouped_tile(a, meta, pid);
    tile_product(a, zero, meta, pid_m, pid_n);
}

/// The body of every `matmul_kernel_persistent*`, after Triton's tutorial
/// `09-persistent-matmul.py` (`matmul_kernel_persistent`): `num_sms` programs, program `p`
/// computing tiles `p`, `p + num_sms`, ... in the grouped order, each as [`matmul`]'s
/// program does: one wave of programs, each starting once and walking its tiles.
pub fn matmul_persistent<A: ScalarMarker, C: ScalarMarker>(a: Args<A, C>, zero: A::Native, meta: Meta, num_sms: i32) {
    let start_pid = program_id(0);
    let num_tiles = cdiv(a.m, meta.block_m as i32) * cdiv(a.n, meta.block_n as i32);
    for_range(start_pid, num_tiles, num_sms, (), |tile_id, ()| {
        let (pid_m, pid_n) = grouped_tile(a, meta, tile_id);
        tile_product(a, zero, meta, pid_m, pid_n);
    });
}

/// The body of every `matmul_kernel_descriptor_persistent*`, after tutorial 09's
/// `matmul_kernel_descriptor_persistent`: [`matmul_persistent`]'s walk over the tiles,
/// with `A`, `B` and `C` read and written through tensor descriptors made once, so the
/// bounds are the descriptors' (no masks or wrapped rows in the kernel) and, on sm_90a,
/// the K loop's tiles arrive by tensor copies (TMA) into `wgmma`'s slots. The last dim of
/// each matrix must be contiguous when the kernel is compiled (a stride of 1, specialized),
/// as Triton's descriptors require.
pub fn matmul_descriptor_persistent<A: ScalarMarker, C: ScalarMarker>(a: Args<A, C>, meta: Meta, num_sms: i32) {
    let Meta { block_m, block_n, block_k, activation, tf32, num_stages, .. } = meta;
    let a_desc = make_tensor_descriptor(a.a_ptr, [a.m, a.k], [a.stride_am, a.stride_ak], &[block_m, block_k]);
    let b_desc = make_tensor_descriptor(a.b_ptr, [a.k, a.n], [a.stride_bk, a.stride_bn], &[block_k, block_n]);
    let c_desc = make_tensor_descriptor(a.c_ptr, [a.m, a.n], [a.stride_cm, a.stride_cn], &[block_m, block_n]);
    let options =
        DotOptions { input_precision: if tf32 { InputPrecision::Tf32 } else { InputPrecision::Ieee }, out_dtype: None };
    let start_pid = program_id(0);
    let num_tiles = cdiv(a.m, block_m as i32) * cdiv(a.n, block_n as i32);
    for_range(start_pid, num_tiles, num_sms, (), |tile_id, ()| {
        let (pid_m, pid_n) = grouped_tile(a, meta, tile_id);
        let (offs_am, offs_bn) = (pid_m * block_m as i32, pid_n * block_n as i32);
        let accumulator = zeros::<f32>(&[block_m, block_n]);
        let accumulator = for_range_staged(0, cdiv(a.k, block_k as i32), 1, num_stages, accumulator, |k, acc| {
            let offs_k = k * block_k as i32;
            dot_with(a_desc.load([offs_am, offs_k]), b_desc.load([offs_k, offs_bn]), acc, options)
        });
        let accumulator = if activation == LEAKY_RELU { leaky_relu(accumulator) } else { accumulator };
        c_desc.store([offs_am, offs_bn], accumulator.to::<C>());
    });
}

/// `(pid_m, pid_n)` of tile `pid` in the tutorial's grouped order ([`tile_of`] on the host).
fn grouped_tile<A, C>(a: Args<A, C>, meta: Meta, pid: Tensor<i32>) -> (Tensor<i32>, Tensor<i32>) {
    let group_m = meta.group_m;
    let num_pid_m = cdiv(a.m, meta.block_m as i32);
    let num_pid_n = cdiv(a.n, meta.block_n as i32);
    let num_pid_in_group = num_pid_n * group_m;
    let group_id = pid / num_pid_in_group;
    let first_pid_m = group_id * group_m;
    let group_size_m = minimum(num_pid_m - first_pid_m, group_m);
    let pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m;
    let pid_n = (pid % num_pid_in_group) / group_size_m;
    // The tutorial's integer bounds (`tl.assume`): with `pid_n >= 0` the columns
    // `(pid_n * BLOCK_SIZE_N + arange) % N` stay contiguous, so `B`'s rows load as 16-byte
    // vectors. (Its `stride > 0` promises are left out: this port takes reversed views.)
    assume(pid_m.ge(0));
    assume(pid_n.ge(0));
    (pid_m, pid_n)
}

/// Tile `(pid_m, pid_n)` of `C`: the K loop of `dot`s, the activation, the masked store.
fn tile_product<A: ScalarMarker, C: ScalarMarker>(
    a: Args<A, C>,
    zero: A::Native,
    meta: Meta,
    pid_m: Tensor<i32>,
    pid_n: Tensor<i32>,
) {
    let Meta { block_m, block_n, block_k, activation, tf32, num_stages, .. } = meta;

    // Rows and columns past the matrix wrap (`% M`, `% N`) so every load is in bounds;
    // their results are masked off at the store. Products with strides are i64.
    let offs_am = ((pid_m * block_m as i32 + arange(0, block_m)) % a.m).to::<i64>();
    let offs_bn = ((pid_n * block_n as i32 + arange(0, block_n)) % a.n).to::<i64>();
    let offs_k = arange(0, block_k);
    let offs_k64 = offs_k.to::<i64>();
    let a_ptrs = a.a_ptr + ((offs_am * a.stride_am).expand_dims(1) + (offs_k64 * a.stride_ak).expand_dims(0));
    let b_ptrs = a.b_ptr + ((offs_k64 * a.stride_bk).expand_dims(1) + (offs_bn * a.stride_bn).expand_dims(0));
    // `BLOCK_SIZE_K * stride` in i64: the stride widens by promotion.
    let block_k64 = full::<i64>(&[], block_k as i64);
    let step_a = block_k64 * a.stride_ak;
    let step_b = block_k64 * a.stride_bk;

    let options =
        DotOptions { input_precision: if tf32 { InputPrecision::Tf32 } else { InputPrecision::Ieee }, out_dtype: None };
    let accumulator = zeros::<f32>(&[block_m, block_n]);
    // The tutorial advances `a_ptrs` and `b_ptrs` by `BLOCK_SIZE_K * stride` each step;
    // step `k` reads them at `k * BLOCK_SIZE_K * stride` from the start, the same
    // addresses. Carried through the loop, each element of the pointer blocks would keep a
    // 64-bit register of its own from one step to the next; offset from the start, each
    // 16-byte vector takes one address.
    // With `num_stages` from 2 on, the tiles go through shared-memory rings, copied
    // `num_stages - 1` steps ahead (`passes/pipeline/ring.rs`).
    let accumulator = for_range_staged(0, cdiv(a.k, block_k as i32), 1, num_stages, accumulator, |k, accumulator| {
        let k64 = k.to::<i64>();
        // The K tail loads 0 in both operands, which adds nothing.
        let k_left = a.k - k * block_k as i32;
        let a_tile = load(a_ptrs + k64 * step_a, Some(offs_k.expand_dims(0).lt(k_left)), Some(zero));
        let b_tile = load(b_ptrs + k64 * step_b, Some(offs_k.expand_dims(1).lt(k_left)), Some(zero));
        dot_with(a_tile, b_tile, accumulator, options)
    });
    let accumulator = if activation == LEAKY_RELU { leaky_relu(accumulator) } else { accumulator };
    let c = accumulator.to::<C>();

    let offs_cm = pid_m * block_m as i32 + arange(0, block_m);
    let offs_cn = pid_n * block_n as i32 + arange(0, block_n);
    let c_ptrs = a.c_ptr
        + ((offs_cm.to::<i64>() * a.stride_cm).expand_dims(1) + (offs_cn.to::<i64>() * a.stride_cn).expand_dims(0));
    let c_mask = offs_cm.expand_dims(1).lt(a.m) & offs_cn.expand_dims(0).lt(a.n);
    store(c_ptrs, c, Some(c_mask));
}

/// One `kernel!` per row: `name => input type, output type, zero, tf32`, and for the
/// persistent form the constexpr that counts its programs (`persistent over NUM_SMS`).
macro_rules! matmul_kernels {
    ($($(#[$doc:meta])* $name:ident => $a:ty, $c:ty, $zero:expr, $tf32:expr $(, persistent over $sms:ident $($desc:ident)?)?;)*) => {
        $(
            kernel! {
                $(#[$doc])*
                pub fn $name(a_ptr: Ptr<$a>, b_ptr: Ptr<$a>, c_ptr: Ptr<$c>, M: i32, N: i32, K: i32,
                             stride_am: i32, stride_ak: i32, stride_bk: i32, stride_bn: i32,
                             stride_cm: i32, stride_cn: i32;
                             const BLOCK_SIZE_M: usize, const BLOCK_SIZE_N: usize, const BLOCK_SIZE_K: usize,
                             const GROUP_SIZE_M: usize, const ACTIVATION: usize, const NUM_STAGES: usize
                             $(, const $sms: usize)?) {
                    let args = Args { a_ptr, b_ptr, c_ptr, m: M, n: N, k: K, stride_am, stride_ak, stride_bk,
                                      stride_bn, stride_cm, stride_cn };
                    let meta = Meta { block_m: BLOCK_SIZE_M, block_n: BLOCK_SIZE_N, block_k: BLOCK_SIZE_K,
                                      group_m: GROUP_SIZE_M as i32, activation: ACTIVATION as i64, tf32: $tf32,
                                      num_stages: NUM_STAGES };
                    let programs: Option<i32> = None $(.or(Some($sms as i32)))?;
                    let descriptors = false $($(|| stringify!($desc) == "descriptors")?)?;
                    match programs {
                        Some(num_sms) if descriptors => matmul_descriptor_persistent::<$a, $c>(args, meta, num_sms),
                        Some(num_sms) => matmul_persistent::<$a, $c>(args, $zero, meta, num_sms),
                        None => matmul::<$a, $c>(args, $zero, meta),
                    }
                }
            }
        )*
    };
}

matmul_kernels! {
    /// [`matmul`] of `f16` matrices into `f16` (the tutorial's dtypes), `f32` accumulation.
    matmul_kernel_f16 => f16, f16, f16::ZERO, false;
    /// [`matmul`] of `bf16` matrices into `bf16`, `f32` accumulation.
    matmul_kernel_bf16 => bf16, bf16, bf16::ZERO, false;
    /// [`matmul`] of `f32` matrices multiplied as tf32 (`input_precision="tf32"`) into `f32`.
    matmul_kernel_tf32 => f32, f32, 0.0, true;
    /// [`matmul_persistent`] of `f16` matrices into `f16`.
    matmul_kernel_persistent_f16 => f16, f16, f16::ZERO, false, persistent over NUM_SMS;
    /// [`matmul_persistent`] of `bf16` matrices into `bf16`.
    matmul_kernel_persistent_bf16 => bf16, bf16, bf16::ZERO, false, persistent over NUM_SMS;
    /// [`matmul_persistent`] of `f32` matrices multiplied as tf32 into `f32`.
    matmul_kernel_persistent_tf32 => f32, f32, 0.0, true, persistent over NUM_SMS;
    /// [`matmul_descriptor_persistent`] of `f16` matrices into `f16`.
    matmul_kernel_descriptor_persistent_f16 => f16, f16, f16::ZERO, false, persistent over NUM_SMS descriptors;
    /// [`matmul_descriptor_persistent`] of `bf16` matrices into `bf16`.
    matmul_kernel_descriptor_persistent_bf16 => bf16, bf16, bf16::ZERO, false, persistent over NUM_SMS descriptors;
    /// [`matmul_descriptor_persistent`] of `f32` matrices multiplied as tf32 into `f32`.
    matmul_kernel_descriptor_persistent_tf32 => f32, f32, 0.0, true, persistent over NUM_SMS descriptors;
}

/// One autotuning configuration: the tutorial's `triton.Config` fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub block_m: usize,
    pub block_n: usize,
    pub block_k: usize,
    pub group_m: usize,
    pub num_warps: u32,
    /// The tutorial's `num_stages`, the K loop's (`for_range_staged`): from 2 on, the
    /// tiles go through shared-memory rings of `num_stages` slots, copied `num_stages - 1`
    /// steps ahead.
    pub num_stages: u32,
}

impl Config {
    pub const fn new(block_m: usize, block_n: usize, block_k: usize, num_stages: u32, num_warps: u32) -> Config {
        Config { block_m, block_n, block_k, group_m: 8, num_warps, num_stages }
    }

    /// This configuration with the K loop run as written (`num_stages = 1`).
    pub const fn unstaged(self) -> Config {
        Config { num_stages: 1, ..self }
    }

    /// The shared memory of the K loop's rings for `elem_bytes`-byte operands: per stage an
    /// `A` tile and a `B` tile, laid out as the compiler lays out ring slots
    /// (`lower/ring.rs`): 16-bit rows of 32 to 1024 bytes swizzled, any other row padded
    /// by 16 bytes.
    pub const fn ring_bytes(self, elem_bytes: usize) -> usize {
        const fn row(elems: usize, elem_bytes: usize) -> usize {
            let bytes = elems * elem_bytes;
            let swizzled = elem_bytes == 2 && bytes.is_power_of_two() && bytes >= 32 && bytes <= 1024;
            if swizzled { bytes } else { bytes + 16 }
        }
        let stage = self.block_m * row(self.block_k, elem_bytes) + self.block_k * row(self.block_n, elem_bytes);
        if self.num_stages < 2 { 0 } else { stage * self.num_stages as usize }
    }

    /// This configuration with as many of its stages as fit `max_bytes` of shared memory
    /// with `elem_bytes`-byte operands (none past 1 when even 2 do not).
    pub const fn fitting(self, elem_bytes: usize, max_bytes: usize) -> Config {
        let mut c = self;
        while c.num_stages > 1 && c.ring_bytes(elem_bytes) > max_bytes {
            c.num_stages -= 1;
        }
        c
    }

    /// This configuration with `num_stages` stages.
    pub const fn with_stages(self, num_stages: u32) -> Config {
        Config { num_stages, ..self }
    }

    /// The constexprs of a launch of this configuration.
    pub fn constexprs(self, activation: i64) -> Vec<(&'static str, i64)> {
        vec![
            ("BLOCK_SIZE_M", self.block_m as i64),
            ("BLOCK_SIZE_N", self.block_n as i64),
            ("BLOCK_SIZE_K", self.block_k as i64),
            ("GROUP_SIZE_M", self.group_m as i64),
            ("ACTIVATION", activation),
            ("NUM_STAGES", i64::from(self.num_stages)),
        ]
    }

    /// The 1-D grid for an `m x n` result: one program per tile (`tile_of` orders them).
    pub fn grid(self, m: usize, n: usize) -> [u32; 3] {
        let programs = m.div_ceil(self.block_m) * n.div_ceil(self.block_n);
        [u32::try_from(programs).unwrap_or(u32::MAX), 1, 1]
    }
}

/// Triton tutorial 03's CUDA configurations (`get_cuda_autotune_config`), in its order:
/// `(BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages, num_warps)`, `GROUP_SIZE_M` 8.
/// The last eight are the tutorial's "good for fp8" ones.
pub const TUTORIAL_CONFIGS: [Config; 16] = [
    Config::new(128, 256, 64, 3, 8),
    Config::new(64, 256, 32, 4, 4),
    Config::new(128, 128, 32, 4, 4),
    Config::new(128, 64, 32, 4, 4),
    Config::new(64, 128, 32, 4, 4),
    Config::new(128, 32, 32, 4, 4),
    Config::new(64, 32, 32, 5, 2),
    Config::new(32, 64, 32, 5, 2),
    Config::new(128, 256, 128, 3, 8),
    Config::new(256, 128, 128, 3, 8),
    Config::new(256, 64, 128, 4, 4),
    Config::new(64, 256, 128, 4, 4),
    Config::new(128, 128, 128, 4, 4),
    Config::new(128, 64, 64, 4, 4),
    Config::new(64, 128, 64, 4, 4),
    Config::new(128, 32, 64, 4, 4),
];

/// rtriton's addition to the tutorial's tiles: 128 x 128 x 64 on 4 warps with 2 stages.
/// The tutorial's 128 x 128 x 128 ring does not fit sm_86's 99 KiB even with 2 stages;
/// this one does, and halves the K loop's barriers against the 32-wide K tiles (the
/// fastest 16-bit tile measured, `docs/benchmarks.md`).
pub const WIDE_TILE: Config = Config::new(128, 128, 64, 2, 4);

/// The shared memory a CTA may have on sm_86, the PTX target (99 KiB).
pub const SM86_SHARED_BYTES: usize = 99 * 1024;

/// The shared memory a CTA may have on sm_90 (H100, H200: 227 KiB).
pub const SM90_SHARED_BYTES: usize = 227 * 1024;

/// The configurations autotuning tries for `f16` and `bf16`: [`WIDE_TILE`] with 2 and 3
/// stages, then [`TUTORIAL_CONFIGS`] without those the compiler refuses, those ptxas spills
/// and those whose rings need more than the 99 KiB of shared memory a CTA has on sm_86
/// ([`Config::ring_bytes`]; `tests/tests/port_matmul.rs` checks all three for every dtype,
/// sm_86 and sm_90, with and without the activation). Refused: a block past the register
/// budget of 128 a value (256 x 64 x 128, 64 x 256 x 128: their 128-wide operand's i64
/// offsets). Past sm_86's shared memory with the tutorial's stages: 128 x 256 x 64 (kept
/// with the 2 stages that fit), 128 x 256 x 128, 256 x 128 x 128 and 128 x 128 x 128 (left
/// out: not even 2 fit). Last, for GPUs with more shared memory than sm_86 (sm_90),
/// deeper rings than sm_86 holds: [`WIDE_TILE`] with 4 stages, the tutorial's
/// 128 x 256 x 64 with its own 3 and with 4, and [`TALL_TILE`] with 3 and 4. Where a launch's shared memory is more than the device
/// has, the runtime refuses it and the autotuner skips the configuration with its reason,
/// as Triton prunes a configuration that runs out of resources.
/// 256 x 128 x 64 on 8 warps (warp tiles of 64 x 64, as [`WIDE_TILE`]'s): the tutorial's
/// 128 x 256 x 64 turned the other way, for sm_90's shared memory (48 KiB a stage).
/// A larger tile reads fewer operand bytes from L2 per flop: a stage of 256 x 128 x 64
/// is 48 KiB for 4.2 MFLOP (85 flops a byte), one of 128 x 128 x 64 is 32 KiB for 2.1
/// MFLOP (64).
pub const TALL_TILE: Config = Config::new(256, 128, 64, 3, 8);

pub const AUTOTUNE_CONFIGS_16BIT: [Config; 18] = [
    WIDE_TILE,
    WIDE_TILE.with_stages(3),
    TUTORIAL_CONFIGS[0].fitting(2, SM86_SHARED_BYTES),
    TUTORIAL_CONFIGS[2],
    TUTORIAL_CONFIGS[3],
    TUTORIAL_CONFIGS[4],
    TUTORIAL_CONFIGS[1],
    TUTORIAL_CONFIGS[5],
    TUTORIAL_CONFIGS[6],
    TUTORIAL_CONFIGS[7],
    TUTORIAL_CONFIGS[13].fitting(2, SM86_SHARED_BYTES),
    TUTORIAL_CONFIGS[14].fitting(2, SM86_SHARED_BYTES),
    TUTORIAL_CONFIGS[15],
    WIDE_TILE.with_stages(4),
    TUTORIAL_CONFIGS[0],
    TUTORIAL_CONFIGS[0].with_stages(4),
    TALL_TILE,
    TALL_TILE.with_stages(4),
];

/// The configurations autotuning tries for `f32` as tf32: the 16-bit ones, with the stages
/// whose rings of 4-byte elements fit sm_86's 99 KiB (128 x 64 x 32 and 64 x 128 x 32 take
/// 3 instead of the tutorial's 4, 128 x 32 x 64 takes 2), less 64 x 256 x 32 (its ring
/// does not fit with 2); then, for GPUs with more shared memory (sm_90), 128 x 64 x 32 and
/// 64 x 128 x 32 with the tutorial's 4 stages (skipped where they do not fit, as in the
/// 16-bit list).
pub const AUTOTUNE_CONFIGS_TF32: [Config; 8] = [
    TUTORIAL_CONFIGS[3].fitting(4, SM86_SHARED_BYTES),
    TUTORIAL_CONFIGS[4].fitting(4, SM86_SHARED_BYTES),
    TUTORIAL_CONFIGS[5],
    TUTORIAL_CONFIGS[6],
    TUTORIAL_CONFIGS[7],
    TUTORIAL_CONFIGS[15].fitting(4, SM86_SHARED_BYTES),
    TUTORIAL_CONFIGS[3],
    TUTORIAL_CONFIGS[4],
];

/// The configurations autotuning tries for a kernel multiplying as tf32 or not.
pub fn autotune_configs(tf32: bool) -> &'static [Config] {
    if tf32 { &AUTOTUNE_CONFIGS_TF32 } else { &AUTOTUNE_CONFIGS_16BIT }
}

/// How the kernel reads an operand, from what Triton's specialization tells the back end
/// (integers divisible by 16, pointers 16-byte aligned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// In 16-byte vectors ([`access`]).
    Vectors,
    /// Element by element along a unit stride (sizes or strides not divisible by 16).
    Contiguous,
    /// Element by element with no unit stride.
    Strided,
}

/// How an operand is read: `strides` are its strides along its wrapped dimension (`M` for
/// `A`, `N` for `B`) and along `K`, in elements, `wrapped` that dimension's length,
/// `offset_bytes` where the view starts in its 16-byte aligned allocation. In vectors when
/// contiguous along `K` with the other stride divisible by 16, or contiguous along the
/// wrapped dimension with its length divisible by 16 too (`% M`, `% N` keep the offsets'
/// contiguity only in runs the divisor is known to hold), starting 16-byte aligned.
pub fn access([wrapped_stride, k_stride]: [i64; 2], wrapped: i64, offset_bytes: i64) -> Access {
    let by16 = |x: i64| x.rem_euclid(16) == 0;
    let vectors = by16(offset_bytes)
        && ((k_stride == 1 && by16(wrapped_stride)) || (wrapped_stride == 1 && by16(k_stride) && by16(wrapped)));
    if vectors {
        Access::Vectors
    } else if k_stride == 1 || wrapped_stride == 1 {
        Access::Contiguous
    } else {
        Access::Strided
    }
}

/// The configuration a launch takes, from how it reads `A` and `B` ([`access`]), ptxas for
/// sm_86 and sm_90 fitting each without spills (`tests/tests/ports_ptxas.rs` assembles
/// every case of the suites):
///
/// - both in vectors: 128 x 64 x 32 on 4 warps, the largest tile of [`autotune_configs`]
///   for every dtype;
/// - else, neither strided: 128 x 32 x 32 on 4 warps. An operand read element by element
///   keeps a 64-bit address per element, and 128 x 64 x 32 spilled 256 to 328 bytes with
///   them (sizes not multiples of 16);
/// - else (a strided operand) 32 x 64 x 32 on 2 warps: 128 x 32 x 32 and 64 x 32 x 32 on 2
///   warps spilled 16 bytes for sm_90 (16-bit operands, a strided `A` and a transposed
///   `C`); this one takes 254 to 255 registers there without spilling.
///
/// Each runs its K loop with the tutorial's stages (the tiles go through shared-memory
/// rings, so staging adds no registers); a launch with 4-byte operands takes the stages
/// that fit ([`Config::fitting`]).
pub fn plan(a: Access, b: Access) -> Config {
    match (a, b) {
        (Access::Vectors, Access::Vectors) => TUTORIAL_CONFIGS[3],
        (Access::Strided, _) | (_, Access::Strided) => TUTORIAL_CONFIGS[7],
        _ => TUTORIAL_CONFIGS[5],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grouped order visits every tile exactly once, for grids whose row tiles are and
    /// are not a multiple of the group.
    #[test]
    fn the_grouped_order_is_a_permutation_of_the_tiles() {
        for (num_pid_m, num_pid_n, group_m) in
            [(1, 1, 8), (8, 8, 8), (9, 5, 8), (17, 3, 8), (3, 17, 8), (5, 7, 1), (33, 2, 4)]
        {
            let mut seen = vec![0u32; num_pid_m * num_pid_n];
            for pid in 0..num_pid_m * num_pid_n {
                let (m, n) = tile_of(pid, num_pid_m, num_pid_n, group_m);
                assert!(m < num_pid_m && n < num_pid_n, "{pid} -> ({m}, {n})");
                seen[m * num_pid_n + n] += 1;
            }
            assert!(seen.iter().all(|&s| s == 1), "{num_pid_m} x {num_pid_n} group {group_m}: {seen:?}");
        }
        // Within a group, consecutive programs walk down a column of tiles.
        assert_eq!((0..4).map(|p| tile_of(p, 9, 5, 8)).collect::<Vec<_>>(), [(0, 0), (1, 0), (2, 0), (3, 0)]);
        assert_eq!(tile_of(8, 9, 5, 8), (0, 1));
        // The last group holds the one row tile left: it walks along the row.
        assert_eq!((40..45).map(|p| tile_of(p, 9, 5, 8)).collect::<Vec<_>>(), [(8, 0), (8, 1), (8, 2), (8, 3), (8, 4)]);
    }

    #[test]
    fn operands_are_vectors_when_contiguous_and_divisible_by_16() {
        use Access::*;
        // (strides along the wrapped dimension and K, its length, offset bytes) -> access
        let table = [
            (([4096, 1], 4096, 0), Vectors),
            (([4096, 1], 1000, 0), Vectors),
            (([1, 4096], 4096, 0), Vectors),
            (([1, 4096], 1000, 0), Contiguous),
            (([1000, 1], 1000, 0), Contiguous),
            (([4096, 1], 4096, 6), Contiguous),
            (([4096, 2], 4096, 0), Strided),
            (([-4096, 1], 4096, 8192 * 4095), Vectors),
        ];
        for ((strides, wrapped, offset), want) in table {
            assert_eq!(access(strides, wrapped, offset), want, "{strides:?} {wrapped} {offset}");
        }
        assert_eq!(plan(Vectors, Vectors), TUTORIAL_CONFIGS[3]);
        assert_eq!(plan(Vectors, Contiguous), TUTORIAL_CONFIGS[5]);
        assert_eq!(plan(Contiguous, Strided), TUTORIAL_CONFIGS[7]);
        for a in [Vectors, Contiguous, Strided] {
            for b in [Vectors, Contiguous, Strided] {
                // the tile (tf32 keeps it with fewer stages)
                let tile = plan(a, b).unstaged();
                assert!(AUTOTUNE_CONFIGS_TF32.iter().any(|c| c.unstaged() == tile), "{a:?} {b:?}: a kept tile");
            }
        }
    }
}
