//! The tuning key (Triton's `key=[...]` plus dtypes): what must be equal for two launches
//! to share a tuned configuration.
//!
//! It holds the values of the arguments the autotuner names (an integer or float by
//! value; a tensor by its view's shape and strides, since in Rust the view travels with
//! the pointer), the element type of every tensor argument (Triton appends each tensor's
//! dtype) and the launch's specialization key (value 1 folded, divisibility by 16 and the
//! alignment of each address): two launches whose PTX would differ never share a winner.
//!
//! An integer argument the autotuner keys *by class* (`Autotuned::key_classes`) counts by
//! its power-of-two class instead of its value (1000 and 1024 columns share a key, 1025
//! does not), so a family of similar shapes is tuned once.

use std::fmt;

use rtriton::ir::ScalarType;
use rtriton::spec::SpecKey;

use crate::error::HostError;
use crate::launch::{Arg, JitKernel, LaunchError, arg_values};

/// The value of one named key argument.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KeyValue {
    Int(i64),
    /// An integer argument keyed by class: the smallest power of two at or above its
    /// magnitude, with its sign (0 for 0).
    Pow2Class(i64),
    /// A float argument, by its bits (so `-0.0` and `0.0` are different keys, NaN equals itself).
    F32Bits(u32),
    /// A tensor argument: its view's shape and strides in elements.
    View {
        shape: Vec<usize>,
        strides: Vec<isize>,
    },
}

impl fmt::Display for KeyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyValue::Int(v) => write!(f, "{v}"),
            // `(512..1024]`: the values that share the class.
            KeyValue::Pow2Class(c @ -1..=1) => write!(f, "{c}"),
            KeyValue::Pow2Class(c) if *c > 0 => write!(f, "({}..{c}]", c / 2),
            KeyValue::Pow2Class(c) => write!(f, "[{c}..{})", c / 2),
            KeyValue::F32Bits(b) => write!(f, "{:?}", f32::from_bits(*b)),
            KeyValue::View { shape, strides } => write!(f, "{shape:?}/{strides:?}"),
        }
    }
}

/// Everything that selects a configuration (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TuneKey {
    /// The named arguments in the order the autotuner lists them.
    pub values: Vec<(&'static str, KeyValue)>,
    /// Each tensor argument's element type, in parameter order.
    pub dtypes: Vec<(&'static str, ScalarType)>,
    /// The specialization key, printed.
    pub spec: String,
}

impl TuneKey {
    /// The key of launching `kernel` with `args`, selecting by the arguments named in
    /// `names` (which the autotuner checked against the kernel's parameters).
    pub fn of(kernel: &JitKernel, names: &[&'static str], args: &[Arg<'_>]) -> Result<TuneKey, HostError> {
        TuneKey::of_classes(kernel, names, &[], args)
    }

    /// [`TuneKey::of`] with the integer arguments named in `classes` keyed by their
    /// power-of-two class ([`KeyValue::Pow2Class`]).
    pub fn of_classes(
        kernel: &JitKernel,
        names: &[&'static str],
        classes: &[&'static str],
        args: &[Arg<'_>],
    ) -> Result<TuneKey, HostError> {
        let def = &kernel.def;
        let values = arg_values(def.name, &def.params, args)?;
        let spec = SpecKey::from_args(def.name, &def.params, &values, kernel.spec_policy).map_err(LaunchError::from)?;
        let position = |name: &str| def.params.iter().position(|p| p.name == name);
        let values = names
            .iter()
            .filter_map(|&name| {
                let arg = &args[position(name)?];
                Some((
                    name,
                    match arg {
                        Arg::Int(v) if classes.contains(&name) => KeyValue::Pow2Class(pow2_class(*v)),
                        Arg::Int(v) => KeyValue::Int(*v),
                        Arg::F32(v) => KeyValue::F32Bits(v.to_bits()),
                        Arg::Tensor(t) => KeyValue::View { shape: t.shape.clone(), strides: t.strides.clone() },
                    },
                ))
            })
            .collect();
        let dtypes = def
            .params
            .iter()
            .zip(args)
            .filter_map(|(p, a)| match a {
                Arg::Tensor(t) => Some((p.name, t.buffer.elem)),
                Arg::Int(_) | Arg::F32(_) => None,
            })
            .collect();
        Ok(TuneKey { values, dtypes, spec: spec.to_string() })
    }
}

/// The smallest power of two at or above `|v|`, with `v`'s sign; 0 for 0 (saturating at
/// 2^62 for magnitudes above it).
pub fn pow2_class(v: i64) -> i64 {
    let class = v.unsigned_abs().checked_next_power_of_two().map_or(1 << 62, |c| c.min(1 << 62)) as i64;
    match v {
        0 => 0,
        ..0 => -class,
        _ => class,
    }
}

impl fmt::Display for TuneKey {
    /// `n_rows=4096, n_cols=1000, x_ptr:f32, y_ptr:f32, spec(x_ptr:*f32:D16, ...)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self.values.iter().map(|(n, v)| format!("{n}={v}")).collect();
        parts.extend(self.dtypes.iter().map(|(n, t)| format!("{n}:{}", t.name())));
        parts.push(format!("spec({})", self.spec));
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use rtriton::spec::SpecPolicy;
    use rtriton_kernels::RowMaxVariant;

    use super::*;
    use crate::driver::RawBuffer;
    use crate::launch::TensorArg;

    const NAMES: [&str; 4] = ["n_rows", "n_cols", "stride_row", "stride_col"];

    fn args(x_addr: u64, rows: usize, cols: usize, strides: [isize; 2]) -> Vec<Arg<'static>> {
        let x = RawBuffer::unowned(x_addr, 1 << 20, ScalarType::F32);
        let y = RawBuffer::unowned(0x10_0000, 1 << 20, ScalarType::F32);
        vec![
            Arg::Tensor(TensorArg::from_raw(x, &[rows, cols], &strides)),
            Arg::Tensor(TensorArg::from_raw(y, &[rows], &[1])),
            Arg::Int(rows as i64),
            Arg::Int(cols as i64),
            Arg::Int(strides[0] as i64),
            Arg::Int(strides[1] as i64),
        ]
    }

    fn key(k: &JitKernel, names: &[&'static str], a: &[Arg<'_>]) -> TuneKey {
        TuneKey::of(k, names, a).unwrap()
    }

    #[test]
    fn the_key_prints_named_values_dtypes_and_the_specialization() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def());
        let key = key(&k, &NAMES, &args(0x1000, 64, 48, [48, 1]));
        assert_eq!(
            key.to_string(),
            "n_rows=64, n_cols=48, stride_row=48, stride_col=1, x_ptr:f32, y_ptr:f32, spec(x_ptr:*f32:D16, y_ptr:*f32:D16, \
             n_rows:i32:D16, n_cols:i32:D16, stride_row:i32:D16, stride_col:i32:=1)"
        );
    }

    /// What changes the key and what does not, as a table: each row changes one thing
    /// from the base launch.
    #[rstest::rstest]
    #[case::same_launch(0x1000, 64, 48, [48, 1], true)]
    #[case::another_buffer_same_alignment(0x8000, 64, 48, [48, 1], true)]
    #[case::a_named_value(0x1000, 65, 48, [48, 1], false)]
    #[case::a_stride(0x1000, 64, 48, [1, 64], false)]
    #[case::the_alignment_of_the_address(0x1004, 64, 48, [48, 1], false)]
    fn the_key_follows_named_values_and_the_specialization(
        #[case] addr: u64,
        #[case] rows: usize,
        #[case] cols: usize,
        #[case] strides: [isize; 2],
        #[case] same: bool,
    ) {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def());
        let base = key(&k, &NAMES, &args(0x1000, 64, 48, [48, 1]));
        assert_eq!(key(&k, &NAMES, &args(addr, rows, cols, strides)) == base, same);
    }

    #[test]
    fn an_unnamed_value_selects_only_through_the_specialization() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def());
        // n_rows is not named: 64 and 80 rows share a key (both divisible by 16)...
        let a = key(&k, &["n_cols"], &args(0x1000, 64, 48, [48, 1]));
        assert_eq!(key(&k, &["n_cols"], &args(0x1000, 80, 48, [48, 1])), a);
        // ...but 65 rows is not divisible by 16: another specialization, another key.
        assert_ne!(key(&k, &["n_cols"], &args(0x1000, 65, 48, [48, 1])), a);
        // Without specialization the divisibility does not show.
        let off = k.clone().spec_policy(SpecPolicy::Off);
        assert_eq!(
            key(&off, &["n_cols"], &args(0x1000, 65, 48, [48, 1])),
            key(&off, &["n_cols"], &args(0x1000, 64, 48, [48, 1]))
        );
    }

    #[test]
    fn a_named_tensor_selects_by_its_view_and_floats_by_their_bits() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def());
        let a = key(&k, &["x_ptr"], &args(0x1000, 64, 48, [48, 1]));
        assert_eq!(a.values, [("x_ptr", KeyValue::View { shape: vec![64, 48], strides: vec![48, 1] })]);
        assert_eq!(KeyValue::F32Bits((-0.0f32).to_bits()).to_string(), "-0.0");
        assert_ne!(KeyValue::F32Bits((-0.0f32).to_bits()), KeyValue::F32Bits(0.0f32.to_bits()));
    }

    /// Keyed by class, shapes of one power-of-two class share a key and the next class
    /// does not; the class prints as the range it stands for.
    #[rstest::rstest]
    #[case::same_value(1000, 48, true)]
    #[case::same_class(513, 33, true)]
    #[case::top_of_the_class(1024, 64, true)]
    #[case::next_row_class(1025, 48, false)]
    #[case::next_col_class(1000, 65, false)]
    fn keyed_by_class_a_power_of_two_class_shares_one_key(
        #[case] rows: usize,
        #[case] cols: usize,
        #[case] same: bool,
    ) {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def()).spec_policy(SpecPolicy::Off);
        let of = |r, c| TuneKey::of_classes(&k, &NAMES[..2], &NAMES[..2], &args(0x1000, r, c, [48, 1])).unwrap();
        assert_eq!(of(rows, cols) == of(1000, 48), same);
        assert!(of(1000, 48).to_string().starts_with("n_rows=(512..1024], n_cols=(32..64], "), "{}", of(1000, 48));
    }

    #[test]
    fn the_power_of_two_class_keeps_the_sign_and_saturates() {
        let classes: Vec<i64> = [0, 1, 2, 3, 1000, 1024, -1, -3, i64::MAX, i64::MIN].map(pow2_class).to_vec();
        assert_eq!(classes, [0, 1, 2, 4, 1024, 1024, -1, -4, 1 << 62, -(1 << 62)]);
        assert_eq!(KeyValue::Pow2Class(-4).to_string(), "[-4..-2)");
        assert_eq!(KeyValue::Pow2Class(1).to_string(), "1");
    }

    #[test]
    fn a_wrong_argument_count_is_the_launch_checks_error() {
        let k = JitKernel::new(RowMaxVariant::RowMax2d.def());
        let e = TuneKey::of(&k, &NAMES, &args(0x1000, 64, 48, [48, 1])[..3]).unwrap_err();
        assert!(rtriton::diag::HasDiagnostics::has_code(&e, rtriton::diag::Code::LaunchArgCount), "{e}");
    }
}
