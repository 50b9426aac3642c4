//! `proptest` strategies for views and fills. Each view is built from small integers and
//! booleans (rows, columns, padding, transposition, flips, broadcast, offset), so a
//! failing case shrinks towards the smallest shape with the fewest tricks.

use proptest::prelude::*;

use crate::fill::SPECIAL_F32;
use crate::view::View;

/// A 1-D view of `1..=max_len` elements: stride `1..=3` or its negation, or 0 when
/// `allow_broadcast` (only for inputs: a broadcast output would be stored twice), and an
/// offset of `0..8` elements.
pub fn view_1d(max_len: usize, allow_broadcast: bool) -> impl Strategy<Value = View> {
    (1..=max_len.max(1), 1isize..=3, any::<bool>(), any::<bool>(), 0usize..8).prop_map(
        move |(n, stride, flip, broadcast, offset)| {
            let view = if allow_broadcast && broadcast {
                View::contiguous(&[1]).broadcast(0, n)
            } else {
                View::strided(&[n], &[stride])
            };
            let view = view.with_offset(offset);
            if flip { view.flipped(0) } else { view }
        },
    )
}

/// A 2-D view of `1..=max_rows` x `1..=max_cols`: row-major with `0..4` elements of
/// padding per row, possibly transposed, either dimension possibly flipped, and an offset.
pub fn view_2d(max_rows: usize, max_cols: usize) -> impl Strategy<Value = View> {
    (1..=max_rows.max(1), 1..=max_cols.max(1), 0usize..4, any::<bool>(), any::<bool>(), any::<bool>(), 0usize..8)
        .prop_map(|(rows, cols, pad, transpose, flip_rows, flip_cols, offset)| {
            let (r, c) = if transpose { (cols, rows) } else { (rows, cols) };
            let mut view = View::strided(&[r, c], &[(c + pad) as isize, 1]).with_offset(offset);
            if transpose {
                view = view.transposed(0, 1);
            }
            if flip_rows {
                view = view.flipped(0);
            }
            if flip_cols {
                view = view.flipped(1);
            }
            view
        })
}

/// An `f32` that is special (NaN with payloads, infinities, signed zeros, subnormals,
/// extremes) a quarter of the time and an ordinary small value otherwise.
pub fn f32_value() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => (-1000i32..1000).prop_map(|v| v as f32 * 0.125),
        1 => (0..SPECIAL_F32.len()).prop_map(|i| SPECIAL_F32[i]),
    ]
}

/// A buffer of `len` values from [`f32_value`].
pub fn f32_buffer(len: usize) -> impl Strategy<Value = Vec<f32>> {
    proptest::collection::vec(f32_value(), len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::test_runner::TestRunner;

    proptest! {
        #[test]
        fn generated_views_fit_their_smallest_buffer(v in view_2d(9, 9), w in view_1d(40, true)) {
            prop_assert!(v.check(v.min_buffer_len()).is_ok());
            prop_assert!(w.check(w.min_buffer_len()).is_ok());
        }
    }

    #[test]
    fn a_failing_property_shrinks_to_the_smallest_view() {
        // Fails on any view with more than 5 rows: shrinking must find exactly 6 rows.
        let mut runner = TestRunner::deterministic();
        let result = runner.run(&view_2d(40, 40), |v| {
            prop_assert!(v.shape[0] <= 5);
            Ok(())
        });
        let Err(proptest::test_runner::TestError::Fail(_, minimal)) = result else {
            panic!("the property must fail: {result:?}")
        };
        assert_eq!(minimal.shape[0], 6, "{minimal}");
    }
}
