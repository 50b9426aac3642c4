//! Ready-made view tables: the view kinds kernels get wrong, as data, for any size. Build
//! cases by crossing them with sizes that are not powers of two (so the last block has a
//! masked tail) and with the fills of [`crate::fill`].

use crate::view::View;

/// Named 1-D views of `n` elements: contiguous, strided (every 3rd), reversed (stride
/// -1), offset by 5, and a broadcast of one element (stride 0: inputs only).
pub fn views_1d(n: usize) -> Vec<(&'static str, View)> {
    vec![
        ("contiguous", View::contiguous(&[n])),
        ("strided", View::strided(&[n], &[3])),
        ("reversed", View::contiguous(&[n]).flipped(0)),
        ("offset", View::contiguous(&[n]).with_offset(5)),
        ("broadcast", View::contiguous(&[1]).broadcast(0, n)),
    ]
}

/// Named 2-D views of `rows` x `cols`: contiguous, padded rows (stride `cols + 3`), the
/// transpose of a `cols` x `rows` buffer, rows reversed, columns reversed, offset by 7,
/// and one row broadcast to every row (inputs only).
pub fn views_2d(rows: usize, cols: usize) -> Vec<(&'static str, View)> {
    vec![
        ("contiguous", View::contiguous(&[rows, cols])),
        ("padded", View::strided(&[rows, cols], &[(cols + 3) as isize, 1])),
        ("transposed", View::contiguous(&[cols, rows]).transposed(0, 1)),
        ("rows_reversed", View::contiguous(&[rows, cols]).flipped(0)),
        ("cols_reversed", View::contiguous(&[rows, cols]).flipped(1)),
        ("offset", View::contiguous(&[rows, cols]).with_offset(7)),
        ("row_broadcast", View::contiguous(&[1, cols]).broadcast(0, rows)),
    ]
}

/// Sizes around the block size `block`: one element, a partial block, one short of a
/// block, one over, and several blocks with a ragged tail.
pub fn sizes_around(block: usize) -> Vec<usize> {
    let mut sizes = vec![1, block / 2 + 1, block - 1, block + 1, 3 * block + block / 3 + 1];
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_view_fits_its_smallest_buffer_and_covers_every_index() {
        for (name, v) in views_1d(37).into_iter().chain(views_2d(5, 9)) {
            v.check(v.min_buffer_len()).unwrap_or_else(|e| panic!("{name}: {e}"));
            let elements: std::collections::BTreeSet<usize> = v.indices().map(|i| v.element(&i)).collect();
            // Every index has its own element, except along a broadcast dimension.
            let distinct = match name {
                "broadcast" => 1,
                "row_broadcast" => v.shape[1],
                _ => v.numel(),
            };
            assert_eq!(elements.len(), distinct, "{name}");
        }
    }

    #[test]
    fn sizes_around_a_block_are_not_multiples_of_it() {
        let s = sizes_around(128);
        assert_eq!(s, vec![1, 65, 127, 129, 427]);
        assert!(s.iter().all(|n| n % 128 != 0));
    }
}
