//! The operators: unary `-` and `!`, `/` and `%` with C's rounding, shifts,
//! bitwise ops, the six comparisons, Rust values on either side of every operator
//! (Triton's scalar rule) and bitcasts, on i32, i64, f32 and i1.
//!
//! Each row runs one operator over edge values (MIN, MAX, -1, 0, shift amounts 0, 31, 32,
//! 33 and negative ones, NaN, signed zeros, infinities, subnormals) with a masked tail:
//! - on the interpreter, whose result must equal a plain-Rust expectation written here
//!   (independently of `rtriton::interp`);
//! - on the SIMT simulator (1 and 4 warps, specialization on and off), which must give the
//!   interpreter's bits;
//! - through ptxas for sm_86 and sm_90 (no spills), where ptxas is installed;
//! - on the GPU against the same expectation (`#[ignore = "needs a GPU"]`).
//!
//! Bad input (a shift of a float, `%` of i1, `!` of a float, a bitcast between widths) is a
//! located diagnostic.

mod ptx_common;

use rstest::rstest;
use rtriton::backend::ptx::Arch;
use rtriton::diag::{Code, HasDiagnostics};
use rtriton::kernel;
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::SpecPolicy;
use rtriton::trace::{KernelDef, TraceOptions};
use rtriton_testing::compare::differences;
use rtriton_testing::run::gpu::{GpuOptions, run_gpu};
use rtriton_testing::run::{Outputs, run_interpreter, run_simulator};
use rtriton_testing::{Case, Data, Rule, View};

/// Elements per launch: not a multiple of BLOCK, so the last program has a masked tail.
const BLOCK_SIZE: i64 = 16;

/// One launch: inputs, then outputs, then `n`; `result` is the output the op writes (the
/// others must stay untouched).
struct Launch {
    def: KernelDef,
    op: i64,
    inputs: Vec<Data>,
    outs: Vec<Data>,
    result: usize,
}

const INPUTS: [&str; 3] = ["a", "b", "c"];
const OUTPUTS: [&str; 2] = ["out", "out2"];

/// What an output element holds before the kernel runs: untouched elements (the masked
/// tail never reaches past `n`, but a wrong mask would) must agree too.
fn untouched(like: &Data) -> Data {
    like.from_le_bytes_like(&vec![0xAB; like.to_le_bytes().len()])
}

impl Launch {
    fn n(&self) -> usize {
        self.outs[0].len()
    }

    fn case(&self, num_warps: u32) -> Case {
        let n = self.n();
        let mut c = Case::new(self.def.name).grid([n.div_ceil(BLOCK_SIZE as usize) as u32, 1, 1]).num_warps(num_warps);
        c.constexprs = vec![("BLOCK", BLOCK_SIZE), ("OP", self.op)];
        for (data, name) in self.inputs.iter().zip(INPUTS) {
            c = c.input(name, data.clone(), View::contiguous(&[data.len()]));
        }
        for (data, name) in self.outs.iter().zip(OUTPUTS) {
            c = c.output(name, untouched(data), View::contiguous(&[n]));
        }
        c.int(n as i64)
    }

    /// Runs the interpreter (the expectation) and the simulator with 1 and 4 warps under
    /// both specialization policies; panics on any difference; returns the interpreter's
    /// output.
    fn differential(&self) -> Data {
        let mut failures = Vec::new();
        let mut result = None;
        for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
            let want = run_interpreter(&self.def, &self.case(4), policy).unwrap_or_else(|e| panic!("{e}"));
            for nw in [1, 4] {
                match run_simulator(&self.def, &self.case(nw), policy) {
                    Ok(got) => {
                        if let Err(e) = same_bits(&got, &want) {
                            failures.push(format!("{policy:?}, num_warps = {nw}: {e}"));
                        }
                    }
                    Err(e) => failures.push(format!("{policy:?}, num_warps = {nw}: {e}")),
                }
            }
            result = Some(want.buffers[self.result].1.clone());
        }
        assert!(failures.is_empty(), "{} OP={}:\n{}", self.def.name, self.op, failures.join("\n"));
        result.expect("two policies ran")
    }

    /// The PTX for sm_86 and sm_90 through ptxas: assembles, no spills.
    fn assemble(&self) {
        let ptxas = ptx_common::ptxas(self.def.name);
        for (arch, name) in [(Arch::Sm86, "sm_86"), (Arch::Sm90, "sm_90")] {
            let ptx = ptx_common::compile_plain(
                &self.def,
                &[("BLOCK", BLOCK_SIZE), ("OP", self.op)],
                &ptx_common::options(arch, 4),
            )
            .unwrap_or_else(|e| panic!("{} OP={}: {e}", self.def.name, self.op));
            let info = ptx_common::assemble(&ptxas, &ptx.text, name, self.def.name)
                .unwrap_or_else(|e| panic!("{} OP={} {name}: {e}\n{}", self.def.name, self.op, ptx.text));
            assert!(info.contains(&format!("entry function '{}'", self.def.name)), "{info}");
            assert_eq!(ptx_common::spill_stores(&info), Some(0), "{info}");
        }
    }

    /// The GPU's output (both policies, 4 warps), which must equal the interpreter's.
    fn on_gpu(&self) -> Data {
        let mut out = None;
        for policy in [SpecPolicy::Triton, SpecPolicy::Off] {
            let got =
                run_gpu(&self.def, &self.case(4), policy, GpuOptions::default()).unwrap_or_else(|e| panic!("{e}"));
            out = Some(got.buffers[self.result].1.clone());
        }
        out.expect("two policies ran")
    }
}

fn same_bits(got: &Outputs, want: &Outputs) -> Result<(), String> {
    for ((name, g), (_, w)) in got.buffers.iter().zip(&want.buffers) {
        let (diffs, _) = differences(g, w, &Rule::BITS, 1);
        if let Some(d) = diffs.first() {
            return Err(format!("`{name}` differs at element {}: got {}, expected {}", d.element, d.got, d.want));
        }
    }
    Ok(())
}

/// Bit patterns, so NaN payloads and signed zeros compare exactly.
fn bits(d: &Data) -> Vec<u64> {
    (0..d.len()).map(|i| d.bits(i)).collect()
}

// ---- integers ------------------------------------------------------------------------

/// The operators by number; each integer kernel below computes `out = OPS[OP](a, b)`.
/// Comparisons pack their six results into bits 0..6 (lt, le, gt, ge, eq, ne), which also
/// runs `<<` by constants and `|`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum IntOp {
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Not,
    Neg,
    /// `7 - a`: a Rust value on the left.
    SevenMinus,
    /// `-100 / b`.
    LiteralDiv,
    /// `-100 % b`.
    LiteralRem,
    /// `1 << b`.
    OneShl,
    /// `-256 >> b`.
    LiteralShr,
    /// `a >> 3`, `a << 3` xor-ed: shifts by a constant amount.
    ShiftByThree,
    /// `(b & 0xF0) | 5 ^ a`: Rust values on the right of bitwise ops.
    LiteralBitwise,
    /// The six comparisons `a ? b`, packed.
    Compare,
    /// The six comparisons `0 ? a` with the free functions (`lt(0, a)`, ...), packed.
    CompareLiteralLeft,
    /// The six comparisons `a ? -1` with the methods (`a.lt(-1)`, ...), packed.
    CompareLiteralRight,
}

const INT_OPS: [IntOp; 19] = [
    IntOp::Div,
    IntOp::Rem,
    IntOp::Shl,
    IntOp::Shr,
    IntOp::And,
    IntOp::Or,
    IntOp::Xor,
    IntOp::Not,
    IntOp::Neg,
    IntOp::SevenMinus,
    IntOp::LiteralDiv,
    IntOp::LiteralRem,
    IntOp::OneShl,
    IntOp::LiteralShr,
    IntOp::ShiftByThree,
    IntOp::LiteralBitwise,
    IntOp::Compare,
    IntOp::CompareLiteralLeft,
    IntOp::CompareLiteralRight,
];

fn int_op_code(op: IntOp) -> i64 {
    INT_OPS.iter().position(|o| *o == op).unwrap() as i64
}

/// One integer kernel per dtype, the body shared: `out = OPS[OP](a, b)` over a masked
/// tail.
/// The operands are loaded as `$w` (a dtype the harness has buffers of) and converted
/// to `$t` (wrapping), and the result converted back (`$t == $w` converts nothing).
macro_rules! int_kernel {
    ($name:ident, $t:ty, $w:ty) => {
        kernel! {
            fn $name(a_ptr: Ptr<$w>, b_ptr: Ptr<$w>, out_ptr: Ptr<$w>, n: i32; const BLOCK: usize, const OP: usize) {
                let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                let mask = offs.lt(n);
                let a = load(a_ptr + offs, Some(mask), Some(1)).to::<$t>();
                let b = load(b_ptr + offs, Some(mask), Some(1)).to::<$t>();
                let pack = |c: [Tensor<bool>; 6]| {
                    let mut p = c[0].to::<$t>();
                    for (i, x) in c.iter().enumerate().skip(1) {
                        p = p | (x.to::<$t>() << i as i32);
                    }
                    p
                };
                let out = match INT_OPS[OP] {
                    IntOp::Div => a / b,
                    IntOp::Rem => a % b,
                    IntOp::Shl => a << b,
                    IntOp::Shr => a >> b,
                    IntOp::And => a & b,
                    IntOp::Or => a | b,
                    IntOp::Xor => a ^ b,
                    IntOp::Not => !a,
                    IntOp::Neg => -a,
                    IntOp::SevenMinus => 7 - a,
                    IntOp::LiteralDiv => -100 / b,
                    IntOp::LiteralRem => -100 % b,
                    IntOp::OneShl => 1 << b,
                    IntOp::LiteralShr => -256 >> b,
                    IntOp::ShiftByThree => (a >> 3) ^ (a << 3),
                    IntOp::LiteralBitwise => ((b & 0xF0) | 5) ^ a,
                    IntOp::Compare => pack([a.lt(b), a.le(b), a.gt(b), a.ge(b), a.eq(b), a.ne(b)]),
                    IntOp::CompareLiteralLeft => pack([lt(0, a), le(0, a), gt(0, a), ge(0, a), eq(0, a), ne(0, a)]),
                    IntOp::CompareLiteralRight => {
                        pack([a.lt(-1), a.le(-1), a.gt(-1), a.ge(-1), a.eq(-1), a.ne(-1)])
                    }
                };
                store(out_ptr + offs, out.to::<$w>(), Some(mask));
            }
        }
    };
}
int_kernel!(int_ops_i32, i32, i32);
int_kernel!(int_ops_i64, i64, i64);
int_kernel!(int_ops_u32, u32, i32);
int_kernel!(int_ops_u64, u64, i64);
int_kernel!(int_ops_i8, i8, i32);
int_kernel!(int_ops_u8, u8, i32);
int_kernel!(int_ops_i16, i16, i32);

/// Plain-Rust expectations, one generic body per dtype: C division and remainder
/// (truncation, `MIN / -1 == MIN`), shifts whose unsigned amount saturates at the width
/// (PTX `shl`/`shr`; `>>` arithmetic on signed types, logical on unsigned ones), wrapping
/// negation; a Rust value next to the tensor takes its dtype, wrapping (`-100` is 156 as
/// a `u8`).
macro_rules! int_reference {
    ($name:ident, $t:ty, $u:ty) => {
        fn $name(op: IntOp, a: $t, b: $t) -> $t {
            const W: u32 = <$t>::BITS;
            let lit = |v: i64| v as $t;
            let amount = |b: $t| (b as $u).min(W as $u) as u32;
            let shl = |a: $t, b: $t| if amount(b) >= W { 0 } else { a << amount(b) };
            let negative = |a: $t| <$t>::MIN != 0 && a.leading_zeros() == 0;
            let shr = |a: $t, b: $t| match amount(b) {
                s if s < W => a >> s,
                _ if negative(a) => !lit(0),
                _ => 0,
            };
            let pack = |c: [bool; 6]| c.iter().enumerate().fold(0, |p, (i, &x)| p | (<$t>::from(x) << i));
            match op {
                IntOp::Div => a.wrapping_div(b),
                IntOp::Rem => a.wrapping_rem(b),
                IntOp::Shl => shl(a, b),
                IntOp::Shr => shr(a, b),
                IntOp::And => a & b,
                IntOp::Or => a | b,
                IntOp::Xor => a ^ b,
                IntOp::Not => !a,
                IntOp::Neg => a.wrapping_neg(),
                IntOp::SevenMinus => lit(7).wrapping_sub(a),
                IntOp::LiteralDiv => lit(-100).wrapping_div(b),
                IntOp::LiteralRem => lit(-100).wrapping_rem(b),
                IntOp::OneShl => shl(1, b),
                IntOp::LiteralShr => shr(lit(-256), b),
                IntOp::ShiftByThree => (a >> 3) ^ (a << 3),
                IntOp::LiteralBitwise => ((b & lit(0xF0)) | 5) ^ a,
                IntOp::Compare => pack([a < b, a <= b, a > b, a >= b, a == b, a != b]),
                IntOp::CompareLiteralLeft => {
                    let z = lit(0);
                    pack([z < a, z <= a, z > a, z >= a, z == a, z != a])
                }
                IntOp::CompareLiteralRight => {
                    let m = lit(-1);
                    pack([a < m, a <= m, a > m, a >= m, a == m, a != m])
                }
            }
        }
    };
}
int_reference!(expect_i32, i32, u32);
int_reference!(expect_i64, i64, u64);
int_reference!(expect_u32, u32, u32);
int_reference!(expect_u64, u64, u64);
int_reference!(expect_i8, i8, u8);
int_reference!(expect_u8, u8, u8);
int_reference!(expect_i16, i16, u16);

/// The launch of `op` on dtype `$t` held in `$w` buffers: the edge tables of the wide type
/// converted (wrapping; a divisor that wraps to 0 becomes 1), and the expectation.
macro_rules! narrow_launch {
    ($name:ident, $kernel:ident, $expect:ident, $t:ty, $w:ty, $data:ident, $lhs:expr, $rhs:expr) => {
        fn $name(op: IntOp) -> (Launch, Vec<$w>) {
            let a: Vec<$t> = $lhs.into_iter().map(|v| v as $t).collect();
            let b: Vec<$t> = $rhs(divides(op))
                .into_iter()
                .map(|v| v as $t)
                .map(|v| if divides(op) && v == 0 { 1 } else { v })
                .collect();
            let want = a.iter().zip(&b).map(|(&x, &y)| $expect(op, x, y) as $w).collect();
            let wide = |v: &[$t]| v.iter().map(|&x| x as $w).collect::<Vec<$w>>();
            let outs = vec![Data::$data(vec![0; a.len()])];
            let inputs = vec![wide(&a).into(), wide(&b).into()];
            (Launch { def: $kernel(), op: int_op_code(op), inputs, outs, result: 0 }, want)
        }
    };
}
narrow_launch!(u32_launch, int_ops_u32, expect_u32, u32, i32, I32, i32_lhs(), i32_rhs);
narrow_launch!(u64_launch, int_ops_u64, expect_u64, u64, i64, I64, i64_lhs(), i64_rhs);
narrow_launch!(i8_launch, int_ops_i8, expect_i8, i8, i32, I32, i32_lhs(), i32_rhs);
narrow_launch!(u8_launch, int_ops_u8, expect_u8, u8, i32, I32, i32_lhs(), i32_rhs);
narrow_launch!(i16_launch, int_ops_i16, expect_i16, i16, i32, I32, i32_lhs(), i32_rhs);

/// The unsigned types (`>>` logical, unsigned compares and division) and the storage
/// types (`i8`, `u8`, `i16`, computed in `i32` and converted back, which must give the
/// clamped-amount shifts and wrapping arithmetic of their own width).
#[rstest]
fn unsigned_and_narrow_operators_match_their_width_on_the_interpreter_and_the_simulator(
    #[values("u32", "u64", "i8", "u8", "i16")] dtype: &str,
) {
    for op in INT_OPS {
        fn wide32((l, w): (Launch, Vec<i32>)) -> (Launch, Data) {
            (l, Data::I32(w))
        }
        let (launch, want) = match dtype {
            "u32" => wide32(u32_launch(op)),
            "u64" => {
                let (l, w) = u64_launch(op);
                (l, Data::I64(w))
            }
            "i8" => wide32(i8_launch(op)),
            "u8" => wide32(u8_launch(op)),
            _ => wide32(i16_launch(op)),
        };
        assert_eq!(launch.differential(), want, "{dtype} {op:?}");
    }
}

/// Dividends and shifted values: the edges of i32 (MIN, MAX, -1, 0, 1) and ordinary ones.
fn i32_lhs() -> Vec<i32> {
    vec![
        0,
        1,
        -1,
        7,
        -7,
        i32::MIN,
        i32::MAX,
        i32::MIN,
        -8,
        100,
        -100,
        12345,
        -12345,
        0x0F0F_0F0F,
        i32::MIN + 1,
        2,
        3,
        -3,
        64,
        -65,
        i32::MAX - 1,
    ]
}

/// Divisors and shift amounts (never 0 where a row divides by them): -1 with MIN, signs
/// mixed, amounts 0, 1, 31, 32, 33, 63, 64, 65 and negative ones.
fn i32_rhs(divides: bool) -> Vec<i32> {
    let amounts = [0, 1, 31, 32, 33, -1, 63, 64, i32::MIN, 5, 2, 30, 65, -32, 3, 4, 31, 1, 7, 6, 29];
    let divisors = [1, -1, 2, -2, 3, -3, -1, 7, 7, -7, 9, 10, -10, 16, -1, i32::MIN, i32::MAX, 5, -5, 64, 3];
    if divides { divisors.to_vec() } else { amounts.to_vec() }
}

fn divides(op: IntOp) -> bool {
    matches!(op, IntOp::Div | IntOp::Rem | IntOp::LiteralDiv | IntOp::LiteralRem)
}

fn i32_launch(op: IntOp) -> (Launch, Vec<i32>) {
    i32_launch_of(op, i32_lhs(), i32_rhs(divides(op)))
}

fn i32_launch_of(op: IntOp, a: Vec<i32>, b: Vec<i32>) -> (Launch, Vec<i32>) {
    let want = a.iter().zip(&b).map(|(&x, &y)| expect_i32(op, x, y)).collect();
    let outs = vec![Data::I32(vec![0; a.len()])];
    (Launch { def: int_ops_i32(), op: int_op_code(op), inputs: vec![a.into(), b.into()], outs, result: 0 }, want)
}

fn i64_lhs() -> Vec<i64> {
    let mut a: Vec<i64> = i32_lhs().into_iter().map(i64::from).collect();
    a.extend([i64::MIN, i64::MAX, i64::MIN, 1 << 40, -(1 << 40)]);
    a
}

fn i64_rhs(divides: bool) -> Vec<i64> {
    let mut b: Vec<i64> = i32_rhs(divides).into_iter().map(i64::from).collect();
    // 2^32 is past the width, though its low 32 bits are 0; i64::MIN is a huge amount.
    b.extend(if divides { [-1, -1, 1 << 33, 3, -(1 << 20)] } else { [1 << 32, 63, i64::MIN, 64, 40] });
    b
}

fn i64_launch(op: IntOp) -> (Launch, Vec<i64>) {
    i64_launch_of(op, i64_lhs(), i64_rhs(divides(op)))
}

fn i64_launch_of(op: IntOp, a: Vec<i64>, b: Vec<i64>) -> (Launch, Vec<i64>) {
    let want = a.iter().zip(&b).map(|(&x, &y)| expect_i64(op, x, y)).collect();
    let outs = vec![Data::I64(vec![0; a.len()])];
    (Launch { def: int_ops_i64(), op: int_op_code(op), inputs: vec![a.into(), b.into()], outs, result: 0 }, want)
}

#[rstest]
fn i32_operators_match_c_and_ptx_on_the_interpreter_and_the_simulator(
    #[values(
        IntOp::Div,
        IntOp::Rem,
        IntOp::Shl,
        IntOp::Shr,
        IntOp::And,
        IntOp::Or,
        IntOp::Xor,
        IntOp::Not,
        IntOp::Neg,
        IntOp::SevenMinus,
        IntOp::LiteralDiv,
        IntOp::LiteralRem,
        IntOp::OneShl,
        IntOp::LiteralShr,
        IntOp::ShiftByThree,
        IntOp::LiteralBitwise,
        IntOp::Compare,
        IntOp::CompareLiteralLeft,
        IntOp::CompareLiteralRight
    )]
    op: IntOp,
) {
    let (launch, want) = i32_launch(op);
    assert_eq!(launch.differential(), Data::I32(want), "{op:?}");
}

#[rstest]
fn i64_operators_match_c_and_ptx_on_the_interpreter_and_the_simulator(
    #[values(
        IntOp::Div,
        IntOp::Rem,
        IntOp::Shl,
        IntOp::Shr,
        IntOp::And,
        IntOp::Or,
        IntOp::Xor,
        IntOp::Not,
        IntOp::Neg,
        IntOp::SevenMinus,
        IntOp::LiteralDiv,
        IntOp::LiteralRem,
        IntOp::OneShl,
        IntOp::LiteralShr,
        IntOp::ShiftByThree,
        IntOp::LiteralBitwise,
        IntOp::Compare,
        IntOp::CompareLiteralLeft,
        IntOp::CompareLiteralRight
    )]
    op: IntOp,
) {
    let (launch, want) = i64_launch(op);
    assert_eq!(launch.differential(), Data::I64(want), "{op:?}");
}

/// Random operands (a fixed xorshift sequence, so a failure reproduces) beyond the edge
/// tables: amounts anywhere in the type's range, divisors of every magnitude (zero mapped
/// to 1, which the tables' error test covers).
#[rstest]
fn integer_operators_on_random_operands(
    #[values(IntOp::Div, IntOp::Rem, IntOp::Shl, IntOp::Shr, IntOp::Xor, IntOp::Not, IntOp::Compare)] op: IntOp,
) {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ int_op_code(op) as u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Half the amounts small (a real shift), half anywhere (mostly clamped).
    let mut pairs: Vec<(u64, u64)> =
        (0..100).map(|i| (next(), if i % 2 == 0 { next() % 70 } else { next() })).collect();
    if divides(op) {
        // Divisors of every magnitude: shifted down by a random amount.
        for p in &mut pairs {
            p.1 >>= p.1 % 60;
        }
    }
    let nonzero32 = |v: i32| if divides(op) && v == 0 { 1 } else { v };
    let nonzero64 = |v: i64| if divides(op) && v == 0 { 1 } else { v };
    let (a, b): (Vec<i32>, Vec<i32>) = pairs.iter().map(|&(x, y)| (x as i32, nonzero32(y as i32))).unzip();
    let (launch, want) = i32_launch_of(op, a, b);
    assert_eq!(launch.differential(), Data::I32(want), "i32 {op:?}");
    let (a, b): (Vec<i64>, Vec<i64>) = pairs.iter().map(|&(x, y)| (x as i64, nonzero64(y as i64))).unzip();
    let (launch, want) = i64_launch_of(op, a, b);
    assert_eq!(launch.differential(), Data::I64(want), "i64 {op:?}");
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn integer_operators_assemble_for_sm_86_and_sm_90() {
    for op in INT_OPS {
        i32_launch(op).0.assemble();
        i64_launch(op).0.assemble();
        u32_launch(op).0.assemble();
        u64_launch(op).0.assemble();
        i8_launch(op).0.assemble();
    }
}

/// Shifts lower to PTX's own instructions: `shl.b32`, `shr.s32` (arithmetic for signed
/// ints), and for an `i64` amount the clamp to 64 before `shl.b64` takes its low 32 bits.
#[test]
fn shifts_lower_to_ptx_shifts_with_a_clamped_i64_amount() {
    let ptx = |def: KernelDef, op: IntOp| {
        let c = [("BLOCK", BLOCK_SIZE), ("OP", int_op_code(op))];
        ptx_common::compile_plain(&def, &c, &ptx_common::options(Arch::Sm86, 4)).unwrap().text
    };
    let t = ptx(int_ops_i32(), IntOp::Shl);
    assert!(t.contains("shl.b32"), "{t}");
    let t = ptx(int_ops_i32(), IntOp::Shr);
    assert!(t.contains("shr.s32"), "{t}");
    let t = ptx(int_ops_i64(), IntOp::Shl);
    assert!(t.contains("shl.b64") && t.contains("shr.u64") && t.contains("selp.b32"), "{t}");
    // Constant amounts are clamped while lowering: `a >> 3` needs no clamp.
    let t = ptx(int_ops_i64(), IntOp::ShiftByThree);
    assert!(t.contains("shr.s64") && !t.contains("selp.b32"), "{t}");
}

// ---- floats, bitcasts and mixed scalars -----------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum FloatOp {
    /// The six comparisons `x ? y`, packed into an i32 (bit 0 lt ... bit 5 ne).
    Compare,
    /// The six comparisons `0.0 ? x` (free functions), packed.
    CompareLiteralLeft,
    /// The six comparisons `x ? 1` (an int literal next to floats is an f32), packed.
    CompareIntLiteralRight,
    /// `1.0 / x`.
    Reciprocal,
    /// `2 * x` (an int literal takes the float's dtype).
    TwiceIntLiteral,
    /// `x - 1.5f32` then `0.5 - that`: float values on both sides.
    LiteralSubs,
    /// `x.to_bitcast::<i32>()`.
    BitcastToInt,
    /// `cast::<f32, _>(bits, true)` of the i32 input `c`.
    BitcastToFloat,
    /// `c * 0.5`: an f32 literal next to i32 converts the ints (Triton's scalar rule).
    IntTimesFloatLiteral,
    /// `-x`.
    Neg,
}

const FLOAT_OPS: [FloatOp; 10] = [
    FloatOp::Compare,
    FloatOp::CompareLiteralLeft,
    FloatOp::CompareIntLiteralRight,
    FloatOp::Reciprocal,
    FloatOp::TwiceIntLiteral,
    FloatOp::LiteralSubs,
    FloatOp::BitcastToInt,
    FloatOp::BitcastToFloat,
    FloatOp::IntTimesFloatLiteral,
    FloatOp::Neg,
];

/// Whether the op's result is an i32 (else f32).
fn float_op_gives_int(op: FloatOp) -> bool {
    matches!(
        op,
        FloatOp::Compare | FloatOp::CompareLiteralLeft | FloatOp::CompareIntLiteralRight | FloatOp::BitcastToInt
    )
}

kernel! {
    /// `out = OPS[OP](x, y, c)` with f32 `x`, `y`, i32 `c`, into `out_i` or `out_f`.
    fn float_ops(x_ptr: Ptr<f32>, y_ptr: Ptr<f32>, c_ptr: Ptr<i32>, out_i: Ptr<i32>, out_f: Ptr<f32>, n: i32;
                 const BLOCK: usize, const OP: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), Some(0.0));
        let y = load(y_ptr + offs, Some(mask), Some(0.0));
        let c = load(c_ptr + offs, Some(mask), Some(0));
        let pack = |cs: [Tensor<bool>; 6]| {
            let mut p = cs[0].to::<i32>();
            for (i, b) in cs.iter().enumerate().skip(1) {
                p = p | (b.to::<i32>() << i as i32);
            }
            p
        };
        let op = FLOAT_OPS[OP];
        if float_op_gives_int(op) {
            let out = match op {
                FloatOp::Compare => pack([x.lt(y), x.le(y), x.gt(y), x.ge(y), x.eq(y), x.ne(y)]),
                FloatOp::CompareLiteralLeft => {
                    pack([lt(0.0, x), le(0.0, x), gt(0.0, x), ge(0.0, x), eq(0.0, x), ne(0.0, x)])
                }
                FloatOp::CompareIntLiteralRight => pack([x.lt(1), x.le(1), x.gt(1), x.ge(1), x.eq(1), x.ne(1)]),
                _ => x.to_bitcast::<i32>(),
            };
            store(out_i + offs, out, Some(mask));
        } else {
            let out = match op {
                FloatOp::Reciprocal => 1.0 / x,
                FloatOp::TwiceIntLiteral => 2 * x,
                FloatOp::LiteralSubs => 0.5 - (x - 1.5f32),
                FloatOp::BitcastToFloat => cast::<f32, _>(c, true),
                FloatOp::IntTimesFloatLiteral => c * 0.5,
                _ => -x,
            };
            store(out_f + offs, out, Some(mask));
        }
    }
}

/// Special floats: NaN (two payloads, both signs), signed zeros, infinities, subnormals,
/// the extremes, and ties (equal operands).
fn float_inputs() -> (Vec<f32>, Vec<f32>) {
    let nan = f32::from_bits(0x7FC0_1234);
    let neg_nan = f32::from_bits(0xFFC0_0001);
    let x = vec![
        nan,
        1.0,
        neg_nan,
        -0.0,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MAX,
        f32::MIN,
        1.0,
        2.5,
        -3.0,
        1.0,
        0.1,
        f32::MIN_POSITIVE,
        3.0,
        -7.25,
        16_777_217.0,
    ];
    let y = vec![
        1.0,
        nan,
        neg_nan,
        0.0,
        -0.0,
        -0.0,
        f32::INFINITY,
        f32::INFINITY,
        0.0,
        f32::from_bits(1),
        f32::MAX,
        f32::MAX,
        1.0,
        -2.5,
        -3.0,
        2.0,
        0.1,
        0.0,
        f32::NAN,
        7.25,
        -1.0,
    ];
    (x, y)
}

fn float_ints(n: usize) -> Vec<i32> {
    let c =
        [0x7FC0_1234, 0x8000_0000u32 as i32, 0x7F80_0000, 1, -1, i32::MIN, i32::MAX, 0x3F80_0000, 3, -3, 16_777_217];
    (0..n).map(|i| c[i % c.len()]).collect()
}

fn expect_float(op: FloatOp, x: f32, y: f32, c: i32) -> u64 {
    let pack = |cs: [bool; 6]| cs.iter().enumerate().fold(0u32, |p, (i, &b)| p | (u32::from(b) << i));
    u64::from(match op {
        FloatOp::Compare => pack([x < y, x <= y, x > y, x >= y, x == y, x != y]),
        FloatOp::CompareLiteralLeft => pack([0.0 < x, 0.0 <= x, 0.0 > x, 0.0 >= x, 0.0 == x, 0.0 != x]),
        FloatOp::CompareIntLiteralRight => pack([x < 1.0, x <= 1.0, x > 1.0, x >= 1.0, x == 1.0, x != 1.0]),
        FloatOp::Reciprocal => (1.0 / x).to_bits(),
        FloatOp::TwiceIntLiteral => (2.0 * x).to_bits(),
        FloatOp::LiteralSubs => (0.5 - (x - 1.5)).to_bits(),
        FloatOp::BitcastToInt => x.to_bits(),
        FloatOp::BitcastToFloat => c as u32,
        FloatOp::IntTimesFloatLiteral => (c as f32 * 0.5).to_bits(),
        FloatOp::Neg => x.to_bits() ^ 0x8000_0000,
    })
}

/// The launch of `op` and the expected output bits.
fn float_launch(op: FloatOp) -> (Launch, Vec<u64>) {
    let (x, y) = float_inputs();
    let c = float_ints(x.len());
    let n = x.len();
    let want = (0..n).map(|i| expect_float(op, x[i], y[i], c[i])).collect();
    let outs = vec![Data::I32(vec![0; n]), Data::F32(vec![0.0; n])];
    let result = if float_op_gives_int(op) { 0 } else { 1 };
    let code = FLOAT_OPS.iter().position(|o| *o == op).unwrap() as i64;
    (Launch { def: float_ops(), op: code, inputs: vec![x.into(), y.into(), c.into()], outs, result }, want)
}

#[rstest]
fn float_operators_and_bitcasts_match_ieee_on_the_interpreter_and_the_simulator(
    #[values(
        FloatOp::Compare,
        FloatOp::CompareLiteralLeft,
        FloatOp::CompareIntLiteralRight,
        FloatOp::Reciprocal,
        FloatOp::TwiceIntLiteral,
        FloatOp::LiteralSubs,
        FloatOp::BitcastToInt,
        FloatOp::BitcastToFloat,
        FloatOp::IntTimesFloatLiteral,
        FloatOp::Neg
    )]
    op: FloatOp,
) {
    let (launch, want) = float_launch(op);
    let got = bits(&launch.differential());
    assert_eq!(nan_as_one(op, got), nan_as_one(op, want), "{op:?}");
}

/// Arithmetic promises which results are NaN, not their payload (the GPU returns the
/// canonical NaN, a CPU the operand's): for those ops every NaN compares as one value.
/// Negation and bitcasts keep every bit, so they compare exactly.
fn nan_as_one(op: FloatOp, bits: Vec<u64>) -> Vec<u64> {
    let arithmetic = matches!(
        op,
        FloatOp::Reciprocal | FloatOp::TwiceIntLiteral | FloatOp::LiteralSubs | FloatOp::IntTimesFloatLiteral
    );
    bits.into_iter().map(|b| if arithmetic && f32::from_bits(b as u32).is_nan() { 0x7FFF_FFFF } else { b }).collect()
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn float_operators_and_bitcasts_assemble_for_sm_86_and_sm_90() {
    for op in FLOAT_OPS {
        float_launch(op).0.assemble();
    }
}

/// A bitcast is a move between register classes, never a conversion.
#[test]
fn a_bitcast_is_a_mov_b32() {
    let code = |op: FloatOp| FLOAT_OPS.iter().position(|o| *o == op).unwrap() as i64;
    for op in [FloatOp::BitcastToInt, FloatOp::BitcastToFloat] {
        let c = [("BLOCK", BLOCK_SIZE), ("OP", code(op))];
        let t = ptx_common::compile_plain(&float_ops(), &c, &ptx_common::options(Arch::Sm86, 4)).unwrap().text;
        assert!(t.contains("mov.b32") && !t.contains("cvt.rn.f32.s32") && !t.contains("cvt.rzi"), "{op:?}\n{t}");
    }
}

kernel! {
    /// Bitcasts of the other widths: `i64` bits through `f64` (negated there, which flips
    /// the sign bit) and back; `u32` bits read as `f32`; an `f16` read as `bf16` and back.
    fn other_bitcasts(w_ptr: Ptr<i64>, c_ptr: Ptr<i32>, x_ptr: Ptr<f32>, wide: Ptr<i64>, f: Ptr<f32>, h: Ptr<f32>, n: i32;
                      const BLOCK: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let w = load(w_ptr + offs, Some(mask), Some(0));
        store(wide + offs, (-w.to_bitcast::<f64>()).to_bitcast::<i64>(), Some(mask));
        let c = load(c_ptr + offs, Some(mask), Some(0)).to::<u32>();
        store(f + offs, c.to_bitcast::<f32>(), Some(mask));
        let x = load(x_ptr + offs, Some(mask), Some(0.0)).to::<half::f16>();
        store(h + offs, x.to_bitcast::<half::bf16>().to_bitcast::<half::f16>().to::<f32>(), Some(mask));
    }
}

/// The 64-bit, unsigned and 16-bit bitcasts keep every bit on every back end.
#[test]
fn bitcasts_of_every_width_keep_every_bit() {
    let w: Vec<i64> = vec![0, 1, -1, i64::MIN, i64::MAX, 0x7FF8_0000_0000_0001, 0x3FF0_0000_0000_0000, 42, -42];
    let c: Vec<i32> = vec![0x7FC0_1234, i32::MIN, 0x7F80_0000, 1, -1, 0x3F80_0000, 3, -3, 0x0080_0000];
    let x: Vec<f32> = vec![1.5, -0.0, 65504.0, f32::INFINITY, 0.1, -2.0, 6.0e-8, 3.0, f32::NEG_INFINITY];
    let n = w.len();
    let case = |nw: u32| {
        let mut k = Case::new("other_bitcasts").grid([n.div_ceil(BLOCK_SIZE as usize) as u32, 1, 1]).num_warps(nw);
        k.constexprs = vec![("BLOCK", BLOCK_SIZE)];
        k.input("w", w.clone(), View::contiguous(&[n]))
            .input("c", c.clone(), View::contiguous(&[n]))
            .input("x", x.clone(), View::contiguous(&[n]))
            .output("wide", vec![0i64; n], View::contiguous(&[n]))
            .output("f", vec![0.0f32; n], View::contiguous(&[n]))
            .output("h", vec![0.0f32; n], View::contiguous(&[n]))
            .int(n as i64)
    };
    let want = run_interpreter(&other_bitcasts(), &case(4), SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    for nw in [1, 4] {
        let got = run_simulator(&other_bitcasts(), &case(nw), SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
        same_bits(&got, &want).unwrap_or_else(|e| panic!("num_warps = {nw}: {e}"));
    }
    let flipped: Vec<i64> = w.iter().map(|v| v ^ i64::MIN).collect();
    assert_eq!(want.buffers[0].1, Data::I64(flipped));
    assert_eq!(bits(&want.buffers[1].1), c.iter().map(|v| u64::from(*v as u32)).collect::<Vec<_>>());
    let halves: Vec<u64> = x.iter().map(|v| u64::from(half::f16::from_f32(*v).to_f32().to_bits())).collect();
    assert_eq!(bits(&want.buffers[2].1), halves);
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn bitcasts_of_every_width_assemble_for_sm_86_and_sm_90() {
    let ptxas = ptx_common::ptxas("other_bitcasts");
    for (arch, name) in [(Arch::Sm86, "sm_86"), (Arch::Sm90, "sm_90")] {
        let c = [("BLOCK", BLOCK_SIZE)];
        let ptx = ptx_common::compile_plain(&other_bitcasts(), &c, &ptx_common::options(arch, 4)).unwrap();
        assert!(ptx.text.contains("mov.b64") && ptx.text.contains("mov.b16"), "{}", ptx.text);
        let info = ptx_common::assemble(&ptxas, &ptx.text, name, "other_bitcasts")
            .unwrap_or_else(|e| panic!("{e}\n{}", ptx.text));
        assert_eq!(ptx_common::spill_stores(&info), Some(0), "{info}");
    }
}

// ---- i1 ---------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum BoolOp {
    /// `!p`.
    Not,
    /// `p & q`, `p | q`, `p ^ q` packed into bits 0..3.
    Logic,
    /// `p ^ true`, `false | p`, `true & p` packed (Rust bools on both sides).
    LogicLiterals,
    /// `p & 1`: an int next to i1 makes an i32 (Triton's scalar rule).
    AndOne,
    /// The six comparisons `p ? q` (i1 compares as 0 < 1), packed.
    Compare,
}

const BOOL_OPS: [BoolOp; 5] = [BoolOp::Not, BoolOp::Logic, BoolOp::LogicLiterals, BoolOp::AndOne, BoolOp::Compare];

kernel! {
    /// `p = a > 0`, `q = b > 0`; `out = OPS[OP](p, q)` as i32.
    fn bool_ops(a_ptr: Ptr<i32>, b_ptr: Ptr<i32>, out_ptr: Ptr<i32>, n: i32; const BLOCK: usize, const OP: usize) {
        let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
        let mask = offs.lt(n);
        let p = load(a_ptr + offs, Some(mask), Some(0)).gt(0);
        let q = load(b_ptr + offs, Some(mask), Some(0)).gt(0);
        let i = |t: Tensor<bool>| t.to::<i32>();
        let out = match BOOL_OPS[OP] {
            BoolOp::Not => i(!p),
            BoolOp::Logic => i(p & q) | (i(p | q) << 1) | (i(p ^ q) << 2),
            BoolOp::LogicLiterals => i(p ^ true) | (i(false | p) << 1) | (i(true & p) << 2),
            BoolOp::AndOne => p & 1,
            BoolOp::Compare => {
                let c = [p.lt(q), p.le(q), p.gt(q), p.ge(q), p.eq(q), p.ne(q)];
                c.iter().enumerate().fold(i(c[0]), |acc, (k, x)| if k == 0 { acc } else { acc | (i(*x) << k as i32) })
            }
        };
        store(out_ptr + offs, out, Some(mask));
    }
}

#[allow(clippy::bool_comparison, reason = "the comparisons under test, spelled as the kernel spells them")]
fn expect_bool(op: BoolOp, p: bool, q: bool) -> i32 {
    let i = i32::from;
    match op {
        BoolOp::Not => i(!p),
        BoolOp::Logic => i(p & q) | (i(p | q) << 1) | (i(p ^ q) << 2),
        BoolOp::LogicLiterals => i(!p) | (i(p) << 1) | (i(p) << 2),
        BoolOp::AndOne => i(p),
        BoolOp::Compare => {
            [p < q, p <= q, p > q, p >= q, p == q, p != q].iter().enumerate().fold(0, |acc, (k, x)| acc | (i(*x) << k))
        }
    }
}

fn bool_launch(op: BoolOp) -> (Launch, Vec<i32>) {
    let a: Vec<i32> = (0..21).map(|k| [1, 0, -1, 5][k % 4]).collect();
    let b: Vec<i32> = (0..21).map(|k| [1, 1, 0, 0, -2][k % 5]).collect();
    let want = a.iter().zip(&b).map(|(&x, &y)| expect_bool(op, x > 0, y > 0)).collect();
    let code = BOOL_OPS.iter().position(|o| *o == op).unwrap() as i64;
    let outs = vec![Data::I32(vec![0; a.len()])];
    (Launch { def: bool_ops(), op: code, inputs: vec![a.into(), b.into()], outs, result: 0 }, want)
}

#[rstest]
fn i1_operators_are_logical_on_the_interpreter_and_the_simulator(
    #[values(BoolOp::Not, BoolOp::Logic, BoolOp::LogicLiterals, BoolOp::AndOne, BoolOp::Compare)] op: BoolOp,
) {
    let (launch, want) = bool_launch(op);
    assert_eq!(launch.differential(), Data::I32(want), "{op:?}");
}

#[test]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn i1_operators_assemble_for_sm_86_and_sm_90() {
    for op in BOOL_OPS {
        bool_launch(op).0.assemble();
    }
}

// ---- the GPU ----------------------------------------------------------------------------

/// Every operator row on the device, bit for bit against the plain-Rust expectation (NaN
/// payloads of arithmetic aside, as on the CPU back ends).
#[test]
#[ignore = "needs a GPU"]
fn operators_on_the_gpu_match_the_cpu_reference() {
    for op in INT_OPS {
        let (l, want) = i32_launch(op);
        assert_eq!(l.on_gpu(), Data::I32(want), "i32 {op:?}");
        let (l, want) = i64_launch(op);
        assert_eq!(l.on_gpu(), Data::I64(want), "i64 {op:?}");
        let (l, want) = u32_launch(op);
        assert_eq!(l.on_gpu(), Data::I32(want), "u32 {op:?}");
        let (l, want) = u64_launch(op);
        assert_eq!(l.on_gpu(), Data::I64(want), "u64 {op:?}");
        for (dtype, (l, want)) in [("i8", i8_launch(op)), ("u8", u8_launch(op)), ("i16", i16_launch(op))] {
            assert_eq!(l.on_gpu(), Data::I32(want), "{dtype} {op:?}");
        }
    }
    for op in FLOAT_OPS {
        let (l, want) = float_launch(op);
        assert_eq!(nan_as_one(op, bits(&l.on_gpu())), nan_as_one(op, want), "{op:?}");
    }
    for op in BOOL_OPS {
        let (l, want) = bool_launch(op);
        assert_eq!(l.on_gpu(), Data::I32(want), "{op:?}");
    }
}

// ---- scalars next to tensors: the dtypes ---------------------------------------------

kernel! {
    /// The dtype each scalar rule gives, observed through the IR.
    fn scalar_dtypes(x_ptr: Ptr<f32>, i_ptr: Ptr<i32>, l_ptr: Ptr<i64>, n: i32, s: i64; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let i = load(i_ptr + offs, Some(mask), None);
        let l = load(l_ptr + offs, Some(mask), None);
        store(x_ptr + offs, 2 * x + i * 0.5 + (1 - x), Some(mask));
        store(l_ptr + offs, l + 1 - (3 - l) + (i + 1i64) + (s - i), Some(mask));
        store(i_ptr + offs, (mask & 1) + (i + true) + (1 << i), Some(mask));
    }
}

/// The scalar rule in the IR: a literal becomes a constant of the tensor's dtype (no
/// cast op), a float literal converts the ints (one `cast` i32 to f32), an `i64` value
/// and an `i64` argument widen the i32 side (casts to i64), `mask & 1` casts the mask.
#[test]
fn scalars_take_the_tensors_dtype_unless_their_kind_is_higher() {
    let k = CompileSession::new()
        .front_end(
            &scalar_dtypes(),
            &[("BLOCK", BLOCK_SIZE)],
            &rtriton::spec::SpecKey::plain(&scalar_dtypes().params),
            &TraceOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let text = k.kernel().to_string();
    let casts: Vec<&str> = text.lines().filter(|l| l.contains("= cast")).collect();
    // i * 0.5 (i32 -> f32), i + 1i64 and s - i (i32 -> i64, twice), mask & 1 (i1 -> i32).
    assert_eq!(casts.len(), 4, "{text}");
    assert_eq!(casts.iter().filter(|l| l.contains(": tensor<16xf32>")).count(), 1, "{text}");
    assert_eq!(casts.iter().filter(|l| l.contains(": tensor<16xi64>")).count(), 2, "{text}");
    assert_eq!(casts.iter().filter(|l| l.contains(": tensor<16xi32>")).count(), 1, "{text}");
    assert!(text.contains("constant 2.0 (0x40000000)"), "2 * x is an f32 constant 2.0:\n{text}");
}

// ---- bad input: located diagnostics ---------------------------------------------------

kernel! {
    fn bad_operators(x_ptr: Ptr<f32>, i_ptr: Ptr<i32>, n: i32; const BLOCK: usize, const CASE: usize) {
        let offs = arange(0, BLOCK);
        let mask = offs.lt(n);
        let x = load(x_ptr + offs, Some(mask), None);
        let i = load(i_ptr + offs, Some(mask), None);
        match CASE {
            0 => store(x_ptr + offs, x << 1, Some(mask)), // bad: shift of a float
            1 => store(i_ptr + offs, (mask % mask).to::<i32>(), Some(mask)), // bad: % of i1
            2 => store(x_ptr + offs, !x, Some(mask)), // bad: ! of a float
            3 => store(i_ptr + offs, x.to_bitcast::<i64>().to::<i32>(), Some(mask)), // bad: bitcast f32 to i64
            4 => store(i_ptr + offs, (mask / true).to::<i32>(), Some(mask)), // bad: / of i1
            6 => store(x_ptr + offs, i.to::<i16>().to_bitcast::<half::f16>().to::<f32>(), Some(mask)), // bad: bitcast i16 to f16
            _ => store(x_ptr + offs, x ^ 1.0, Some(mask)), // bad: xor of floats
        }
    }
}

/// The line of this file that ends with `marker` (so the expectations follow edits).
fn line_of(marker: &str) -> u32 {
    let src = include_str!("operators.rs");
    let hits: Vec<usize> = src.lines().enumerate().filter(|(_, l)| l.ends_with(marker)).map(|(i, _)| i + 1).collect();
    assert_eq!(hits.len(), 1, "one line ends with {marker:?}");
    hits[0] as u32
}

#[rstest]
#[case::shift_of_a_float(0, Code::TraceOperatorDtype, "// bad: shift of a float", "`shl` is not defined on f32")]
#[case::rem_of_i1(1, Code::TraceOperatorDtype, "// bad: % of i1", "`rem` is not defined on i1")]
#[case::not_of_a_float(2, Code::TraceOperatorDtype, "// bad: ! of a float", "`!` (Triton's `~`) is not defined on f32")]
#[case::bitcast_across_widths(
    3,
    Code::TraceBitcastWidth,
    "// bad: bitcast f32 to i64",
    "cannot bitcast f32 (32 bits) to i64 (64 bits)"
)]
#[case::div_of_i1(4, Code::TraceOperatorDtype, "// bad: / of i1", "`div` is not defined on i1")]
#[case::xor_of_floats(5, Code::TraceOperatorDtype, "// bad: xor of floats", "`xor` is not defined on f32")]
#[case::bitcast_i16_to_f16(
    6,
    Code::TraceBitcastWidth,
    "// bad: bitcast i16 to f16",
    "bitcast between i16 and f16 is not supported yet"
)]
fn bad_operands_are_located_errors(#[case] case: i64, #[case] code: Code, #[case] marker: &str, #[case] message: &str) {
    let def = bad_operators();
    let err = CompileSession::new()
        .front_end(
            &def,
            &[("BLOCK", BLOCK_SIZE), ("CASE", case)],
            &rtriton::spec::SpecKey::plain(&def.params),
            &TraceOptions::default(),
        )
        .expect_err("the kernel must be refused");
    assert!(err.has_code(code), "{err}");
    let d = err.diagnostics().into_iter().find(|d| d.code == code).unwrap();
    let loc = d.loc.expect("located");
    assert_eq!((loc.file.ends_with("tests/tests/operators.rs"), loc.line), (true, line_of(marker)), "{d:#}");
    assert!(d.message.starts_with(message), "{d:#}");
    assert_eq!(d.kernel, "bad_operators");
    assert!(!d.help.is_empty(), "{d:#}");
}

kernel! {
    fn rem_by_zero(a_ptr: Ptr<i64>, b_ptr: Ptr<i64>, out_ptr: Ptr<i64>, n: i32; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let mask = offs.lt(n);
        let a = load(a_ptr + offs, Some(mask), Some(1));
        let b = load(b_ptr + offs, Some(mask), Some(1));
        store(out_ptr + offs, a % b, Some(mask));
    }
}

/// Integer division by zero: the interpreter refuses to pick a value (PTX leaves it
/// unspecified) and names the element; the simulator reports it too. Neither panics.
#[test]
fn remainder_by_zero_is_an_error_naming_the_element() {
    let case = Case::new("rem_by_zero")
        .grid([1, 1, 1])
        .constexpr("BLOCK", BLOCK_SIZE)
        .input("a", vec![5i64, 6, 7], View::contiguous(&[3]))
        .input("b", vec![1i64, 0, 2], View::contiguous(&[3]))
        .output("out", vec![0i64; 3], View::contiguous(&[3]))
        .int(3);
    let e = run_interpreter(&rem_by_zero(), &case, SpecPolicy::Triton).unwrap_err().to_string();
    assert!(e.contains("integer division by zero") && e.contains("element [1]"), "{e}");
    let e = run_simulator(&rem_by_zero(), &case, SpecPolicy::Triton).unwrap_err().to_string();
    assert!(e.contains("division by zero"), "{e}");
}

kernel! {
    /// Shifts of constants fold at trace time with the same clamping as at run time.
    fn folded_shifts(out_ptr: Ptr<i32>, wide_ptr: Ptr<i64>; const BLOCK: usize) {
        let offs = arange(0, BLOCK);
        let c = |v: i32| full::<i32>(&[BLOCK], v);
        let w = |v: i64| full::<i64>(&[BLOCK], v);
        let packed = (c(-8) >> 40) ^ (c(1) << 32) ^ (c(5) << -1) ^ (c(3) << 4) ^ (c(-256) >> 4);
        store(out_ptr + offs, packed, None);
        store(wide_ptr + offs, (w(1) << (1i64 << 32)) ^ (w(-1) >> 64) ^ (w(1) << 40), None);
    }
}

#[test]
fn shifts_of_constants_fold_with_the_clamped_amount() {
    let def = folded_shifts();
    let case = Case::new("folded_shifts")
        .grid([1, 1, 1])
        .constexpr("BLOCK", BLOCK_SIZE)
        .output("out", vec![0i32; BLOCK_SIZE as usize], View::contiguous(&[BLOCK_SIZE as usize]))
        .output("wide", vec![0i64; BLOCK_SIZE as usize], View::contiguous(&[BLOCK_SIZE as usize]));
    let got = run_interpreter(&def, &case, SpecPolicy::Triton).unwrap_or_else(|e| panic!("{e}"));
    // -8 >> 40 = -1, 1 << 32 = 0, 5 << -1 = 0, 3 << 4 = 48, -256 >> 4 = -16.
    assert_eq!(got.buffers[0].1, Data::I32(vec![-1 ^ 48 ^ -16; BLOCK_SIZE as usize]));
    assert_eq!(got.buffers[1].1, Data::I64(vec![-1 ^ (1 << 40); BLOCK_SIZE as usize]));
    let spec = rtriton::spec::SpecKey::plain(&def.params);
    let k = CompileSession::new()
        .front_end(&def, &[("BLOCK", BLOCK_SIZE)], &spec, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let text = k.kernel().to_string();
    assert!(!text.contains("= shl") && !text.contains("= shr"), "every shift folds:\n{text}");
}
