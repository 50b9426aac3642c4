//! Casts from and to the fp8 dtypes (`fp8e4nv`, `fp8e5`). On sm_90, and on sm_89 from
//! `.version 8.1` (`PtxOptions::fp8_conversions`), they are PTX's conversions
//! (`cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` to encode, then the low byte;
//! `cvt.rn.f16x2.{e4m3x2,e5m2x2}` to decode, then `cvt.f32.f16`); on older targets
//! (sm_86, the reference target, has no fp8 `cvt`) integer and bit operations on the code
//! compute the same bits. The bits are `semantics/fp8.rs`'s: decoding is exact, encoding
//! rounds to nearest even once from `f32` and saturates. Every other type goes through
//! `f32` (`semantics/convert.rs`). The simulator runs these same instructions (the
//! hardware conversions with `semantics/fp8.rs`'s functions), so the simulator
//! differential checks both forms against the interpreter bit for bit.

use super::Lowerer;
use crate::backend::ptx::lir::{BinOp, Cmp, Inst, Operand, Reg, Ty};
use crate::ir::{Fp8Format, PropagateNan, ScalarType};

/// The f32 bits of an infinity; above it, NaNs.
const F32_INF_BITS: i64 = 0x7F80_0000;

impl Lowerer<'_> {
    /// `x` (in a register of `from_ty`) cast from `from` to `to`, one of them fp8.
    pub(super) fn fp8_cast(&mut self, x: Operand, from: ScalarType, to: ScalarType, from_ty: Ty, to_ty: Ty) -> Operand {
        let wide = match from.fp8_format() {
            Some(format) => self.fp8_decode(x, format),
            None => self.convert(x, from_ty, Ty::F32),
        };
        match to.fp8_format() {
            Some(format) => self.fp8_encode(wide, format),
            None => self.convert(wide, Ty::F32, to_ty),
        }
    }

    fn selp_u32(&mut self, cond: Reg, a: Operand, b: Operand) -> Operand {
        let dst = self.new_reg(Ty::U32);
        self.emit(Inst::Selp { ty: Ty::U32, dst, a, b, cond });
        dst.into()
    }

    /// The code in `x` as an exact `f32`. The magnitude bits shifted into an f32's
    /// exponent and mantissa fields are the value scaled by 2^(bias - 127) (normals and
    /// subnormals alike), so one exact multiply by 2^(127 - bias) gives it; the codes
    /// past the finite ones are selected apart.
    fn fp8_decode(&mut self, x: Operand, format: Fp8Format) -> Operand {
        if self.fp8_native {
            return self.fp8_decode_native(x, format);
        }
        let code = self.convert(x, Ty::U8, Ty::U32);
        let mag = self.bin(BinOp::And, Ty::U32, code, Operand::Int(0x7F));
        let shift = 23 - i64::from(format.mantissa_bits());
        let placed = self.bin(BinOp::Shl, Ty::U32, mag, Operand::Int(shift));
        let scaled = self.bitcast(placed, Ty::U32, Ty::F32);
        let scale = 2f32.powi(127 - format.bias());
        let value = self.bin(BinOp::Mul, Ty::F32, scaled, Operand::F32(scale));
        let bits = self.bitcast(value, Ty::F32, Ty::U32);
        let sign = self.bin(BinOp::And, Ty::U32, code, Operand::Int(0x80));
        let sign = self.bin(BinOp::Shl, Ty::U32, sign, Operand::Int(24));
        let out = match format {
            Fp8Format::E4M3 => {
                // S.1111.111 is NaN: the canonical f16 NaN widened (0x7FFF -> 0x7FFFE000).
                let signed = self.bin(BinOp::Or, Ty::U32, bits, sign);
                let nan = self.setp(Cmp::Eq, Ty::U32, mag, Operand::Int(0x7F));
                self.selp_u32(nan, Operand::Int(0x7FFF_E000), signed)
            }
            Fp8Format::E5M2 => {
                // Exponent all ones: infinity, or a NaN that keeps its payload and becomes
                // quiet (the f16 `code << 8` widened).
                let nan = self.setp(Cmp::Gt, Ty::U32, mag, Operand::Int(0x7C));
                let top = self.selp_u32(nan, Operand::Int(0x7FC0_0000), Operand::Int(F32_INF_BITS));
                let special = self.bin(BinOp::Or, Ty::U32, placed, top);
                let is_special = self.setp(Cmp::Ge, Ty::U32, mag, Operand::Int(0x7C));
                let unsigned = self.selp_u32(is_special, special, bits);
                self.bin(BinOp::Or, Ty::U32, unsigned, sign)
            }
        };
        self.bitcast(out, Ty::U32, Ty::F32)
    }

    /// The `f32` in `x` encoded: round to nearest even at the format's precision (the
    /// normal range by the rebiased bits, the subnormal range by the significand shifted
    /// to the smallest subnormal's unit), saturate at the largest finite code (which also
    /// takes infinities), restore the sign, and give NaN the code 0x7F.
    fn fp8_encode(&mut self, x: Operand, format: Fp8Format) -> Operand {
        if self.fp8_native {
            return self.fp8_encode_native(x, format);
        }
        let (m, bias) = (i64::from(format.mantissa_bits()), i64::from(format.bias()));
        let bits = self.bitcast(x, Ty::F32, Ty::U32);
        let a = self.bin(BinOp::And, Ty::U32, bits, Operand::Int(0x7FFF_FFFF));
        // Normal range: rebias the exponent, round off 23 - m mantissa bits.
        let rebiased = self.bin(BinOp::Sub, Ty::U32, a, Operand::Int((127 - bias) << 23));
        let normal = self.round_shift(rebiased, Operand::Int(23 - m));
        // Subnormal range: the significand (implicit bit set) in units of 2^(1 - bias - m)
        // is it shifted right by 151 - bias - m - exponent, clamped to 31 (every such
        // shift leaves 0: the significand is below 2^24).
        let exp = self.bin(BinOp::ShrU, Ty::U32, a, Operand::Int(23));
        let frac = self.bin(BinOp::And, Ty::U32, a, Operand::Int(0x007F_FFFF));
        let significand = self.bin(BinOp::Or, Ty::U32, frac, Operand::Int(0x0080_0000));
        let exp_reg = Operand::Reg(self.reg(exp, Ty::U32));
        let shift = self.bin(BinOp::Sub, Ty::U32, Operand::Int(151 - bias - m), exp_reg);
        let shift = self.bin(BinOp::Min(PropagateNan::None), Ty::U32, shift, Operand::Int(31));
        let subnormal = self.round_shift(significand, shift);
        let below_normal = self.setp(Cmp::Lt, Ty::U32, a, Operand::Int((128 - bias) << 23));
        let code = self.selp_u32(below_normal, subnormal, normal);
        let max = i64::from(format.max_finite_code());
        let code = self.bin(BinOp::Min(PropagateNan::None), Ty::U32, code, Operand::Int(max));
        let sign = self.bin(BinOp::ShrU, Ty::U32, bits, Operand::Int(24));
        let sign = self.bin(BinOp::And, Ty::U32, sign, Operand::Int(0x80));
        let signed = self.bin(BinOp::Or, Ty::U32, code, sign);
        let nan = self.setp(Cmp::Gt, Ty::U32, a, Operand::Int(F32_INF_BITS));
        let out = self.selp_u32(nan, Operand::Int(0x7F), signed);
        self.convert(out, Ty::U32, Ty::U8)
    }

    /// The code in `x` decoded by the hardware: its byte as the low byte of a 16-bit
    /// register (the high one 0), both decoded to f16, the low half widened to `f32`
    /// (exactly). The NaN codes are selected apart, as the integer sequence makes them:
    /// on the H100 the hardware's pair conversion and `cvt.f32.f16` give every one the
    /// canonical `0x7FFFFFFF`, where `semantics/fp8.rs` widens the f16 NaN.
    fn fp8_decode_native(&mut self, x: Operand, format: Fp8Format) -> Operand {
        let code = self.convert(x, Ty::U8, Ty::U32);
        let word = self.reg(code, Ty::U32);
        let (pair, _) = self.halves(word);
        let halves = self.new_reg(Ty::U32);
        self.emit(Inst::CvtFp8x2ToF16x2 { format, dst: halves, src: pair });
        let (h, _) = self.halves(halves);
        let value = self.new_reg(Ty::F32);
        self.emit(Inst::Cvt { dst: value, to: Ty::F32, src: h, from: Ty::F16 });
        let mag = self.bin(BinOp::And, Ty::U32, word.into(), Operand::Int(0x7F));
        let (nan, nan_bits) = match format {
            // The canonical f16 NaN widened, whatever the sign.
            Fp8Format::E4M3 => (self.setp(Cmp::Eq, Ty::U32, mag, Operand::Int(0x7F)), Operand::Int(0x7FFF_E000)),
            // The f16 `code << 8` widened: sign and payload kept, quiet. The code at the
            // top, shifted down 3 with its sign, puts the exponent and payload in place.
            Fp8Format::E5M2 => {
                let top = self.bin(BinOp::Shl, Ty::U32, word.into(), Operand::Int(24));
                let placed = self.bin(BinOp::ShrS, Ty::I32, top, Operand::Int(3));
                let bits = self.bin(BinOp::Or, Ty::U32, placed, Operand::Int(0x7FC0_0000));
                (self.setp(Cmp::Gt, Ty::U32, mag, Operand::Int(0x7C)), bits)
            }
        };
        let bits = self.bitcast(value.into(), Ty::F32, Ty::U32);
        let out = self.selp_u32(nan, nan_bits, bits);
        self.bitcast(out, Ty::U32, Ty::F32)
    }

    /// The `f32` in `x` encoded by the hardware: converted as both halves of a pair, its
    /// low byte kept.
    fn fp8_encode_native(&mut self, x: Operand, format: Fp8Format) -> Operand {
        let v = self.reg(x, Ty::F32);
        let pair = self.new_reg(Ty::F16);
        self.emit(Inst::CvtF32x2ToFp8x2 { format, dst: pair, hi: v, lo: v });
        let word = self.new_reg(Ty::U32);
        self.emit(Inst::Pack { dst: word, lo: pair, hi: pair });
        let code = self.bin(BinOp::And, Ty::U32, word.into(), Operand::Int(0xFF));
        self.convert(code, Ty::U32, Ty::U8)
    }

    /// The low and the high 16 bits of the 32-bit `word`, in two 16-bit registers.
    fn halves(&mut self, word: Reg) -> (Reg, Reg) {
        let (lo, hi) = (self.new_reg(Ty::F16), self.new_reg(Ty::F16));
        self.emit(Inst::Unpack { lo, hi, src: word });
        (lo, hi)
    }

    /// `v >> s` rounded to nearest even: `(v + 2^(s-1) - 1 + ((v >> s) & 1)) >> s`, for
    /// `1 <= s <= 31` and `v < 2^31`.
    fn round_shift(&mut self, v: Operand, s: Operand) -> Operand {
        let lsb = self.bin(BinOp::ShrU, Ty::U32, v, s);
        let lsb = self.bin(BinOp::And, Ty::U32, lsb, Operand::Int(1));
        let half = match s {
            Operand::Int(k) => Operand::Int((1 << (k - 1)) - 1),
            s => {
                let s1 = self.bin(BinOp::Sub, Ty::U32, s, Operand::Int(1));
                let one = Operand::Reg(self.reg(Operand::Int(1), Ty::U32));
                let p = self.bin(BinOp::Shl, Ty::U32, one, s1);
                self.bin(BinOp::Sub, Ty::U32, p, Operand::Int(1))
            }
        };
        let t = self.bin(BinOp::Add, Ty::U32, v, half);
        let t = self.bin(BinOp::Add, Ty::U32, t, lsb);
        self.bin(BinOp::ShrU, Ty::U32, t, s)
    }
}
