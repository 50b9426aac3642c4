//! The element types the ports' suites are written over, and the buffers of their cases:
//! one case table and one f64 reference serve every dtype, with the values built as bit
//! patterns (so NaN payloads survive) and buffer elements outside the views poisoned.

use rtriton_testing::fill::{SPECIAL_BF16, SPECIAL_F16, SPECIAL_F32, SPECIAL_I32};
use rtriton_testing::half::{bf16, f16};
use rtriton_testing::{Data, Element, Float, View};

/// An element type of a port's tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    F32,
    F16,
    BF16,
    I32,
}

impl Dtype {
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::BF16 => "bf16",
            Dtype::I32 => "i32",
        }
    }

    /// The float format, `None` for `i32`.
    pub fn float(self) -> Option<Float> {
        match self {
            Dtype::F32 => Some(Float::F32),
            Dtype::F16 => Some(Float::F16),
            Dtype::BF16 => Some(Float::BF16),
            Dtype::I32 => None,
        }
    }

    /// A buffer of this type holding `bits` (each element's bit pattern).
    pub fn data(self, bits: impl IntoIterator<Item = u64>) -> Data {
        fn wrap<T: Element>(bits: impl IntoIterator<Item = u64>) -> Data {
            T::wrap(bits.into_iter().map(T::from_bits64).collect())
        }
        match self {
            Dtype::F32 => wrap::<f32>(bits),
            Dtype::F16 => wrap::<f16>(bits),
            Dtype::BF16 => wrap::<bf16>(bits),
            Dtype::I32 => wrap::<i32>(bits),
        }
    }

    /// `v` as this type's bits: floats round to nearest even; `i32` wraps a whole number.
    pub fn bits_of(self, v: f64) -> u64 {
        match self.float() {
            Some(format) => format.round_from_f64(v),
            None => u64::from(v as i64 as i32 as u32),
        }
    }

    /// The special values of this type (`rtriton_testing::fill`), as bits: NaNs with
    /// payloads, infinities, signed zeros, subnormals, the extremes, a tie; for `i32` the
    /// extremes, -1, 0, 1 and a tie.
    pub fn specials(self) -> Vec<u64> {
        match self {
            Dtype::F32 => SPECIAL_F32.iter().map(|v| v.bits()).collect(),
            Dtype::F16 => SPECIAL_F16.iter().map(|v| v.bits()).collect(),
            Dtype::BF16 => SPECIAL_BF16.iter().map(|v| v.bits()).collect(),
            Dtype::I32 => SPECIAL_I32.iter().map(|v| v.bits()).collect(),
        }
    }

    /// What buffer elements outside a view hold: a finite value no case's result is near,
    /// so a stray read changes a result and a stray write shows in the output buffer.
    pub fn poison(self) -> u64 {
        match self {
            Dtype::F32 | Dtype::BF16 => self.bits_of(1.0e30),
            Dtype::F16 => self.bits_of(30_000.0),
            Dtype::I32 => self.bits_of(999_999_937.0),
        }
    }

    /// The buffer a view of this type needs, poisoned, with the element at each view index
    /// `i` set to `value(i)`.
    pub fn through_view(self, view: &View, value: impl Fn(&[usize]) -> u64) -> Data {
        let mut bits = vec![self.poison(); view.min_buffer_len()];
        if view.numel() == 0 {
            return self.data(bits);
        }
        // The view's indices in row-major order as an odometer, the element's place kept
        // up to date: no allocation or multiplication per element (a bench point's
        // 4 x 32 x 4096 x 128 operands took seconds each through `View::indices`).
        let rank = view.shape.len();
        let mut index = vec![0usize; rank];
        let mut at = view.offset as isize;
        loop {
            bits[at as usize] = value(&index);
            let mut d = rank;
            loop {
                if d == 0 {
                    return self.data(bits);
                }
                d -= 1;
                index[d] += 1;
                at += view.strides[d];
                if index[d] < view.shape[d] {
                    break;
                }
                at -= view.strides[d] * view.shape[d] as isize;
                index[d] = 0;
            }
        }
    }

    /// An all-poison buffer for the view (an output's initial content).
    pub fn poisoned(self, view: &View) -> Data {
        self.data(vec![self.poison(); view.min_buffer_len()])
    }
}

/// SplitMix64's finalizer of a position: reproducible, well-mixed case data.
pub fn mix(a: usize, b: usize) -> u64 {
    let mut z = (a as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (b as u64).wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A value in `[lo, hi)` from a hash, with a full f64 mantissa.
pub fn uniform(h: u64, lo: f64, hi: f64) -> f64 {
    lo + (h >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specials_and_poison_are_what_each_dtype_holds() {
        for dtype in [Dtype::F32, Dtype::F16, Dtype::BF16, Dtype::I32] {
            let d = dtype.data(dtype.specials());
            assert_eq!(d.len(), dtype.specials().len());
            for (i, &b) in dtype.specials().iter().enumerate() {
                assert_eq!(d.bits(i), b, "{dtype:?} keeps the bits, NaN payloads included");
            }
            let poison = dtype.data([dtype.poison()]).f64_at(0).unwrap();
            assert!(poison.is_finite() && poison > 1000.0, "{dtype:?}: {poison}");
        }
        assert_eq!(Dtype::I32.bits_of(-1.0), 0xFFFF_FFFF);
        assert_eq!(Dtype::F16.bits_of(1.5), 0x3E00);
    }

    #[test]
    fn through_view_visits_every_index_once_in_any_view() {
        let views = [
            View::contiguous(&[2, 3, 4, 5]),
            View::strided(&[2, 3, 4], &[1, 8, 2]).with_offset(3),
            View::strided(&[4, 2], &[-2, 1]).with_offset(6),
            View::contiguous(&[]),
            View::contiguous(&[3, 0, 2]),
        ];
        for view in views {
            let d = Dtype::F32.through_view(&view, |i| Dtype::F32.bits_of(i.iter().fold(0, |a, &x| a * 10 + x) as f64));
            let mut want = vec![Dtype::F32.poison(); view.min_buffer_len()];
            for index in view.indices() {
                want[view.element(&index)] = Dtype::F32.bits_of(index.iter().fold(0, |a, &x| a * 10 + x) as f64);
            }
            assert_eq!(d, Dtype::F32.data(want), "{view:?}");
        }
    }

    #[test]
    fn through_view_sets_the_view_and_poisons_the_rest() {
        let view = View::strided(&[2, 2], &[3, 1]).with_offset(1);
        let d = Dtype::F32.through_view(&view, |i| Dtype::F32.bits_of((i[0] * 2 + i[1]) as f64));
        let values: Vec<f64> = (0..d.len()).map(|i| d.f64_at(i).unwrap()).collect();
        assert_eq!(values, vec![1.0e30f32 as f64, 0.0, 1.0, 1.0e30f32 as f64, 2.0, 3.0]);
    }
}
