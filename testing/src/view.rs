//! Views as data: a tensor argument is a buffer seen through a shape, strides in elements
//! (any sign, 0 for a broadcast dimension) and an element offset, like a torch view.

use std::fmt;

/// Element `[i0, i1, ...]` of the view is buffer element
/// `offset + i0 * strides[0] + i1 * strides[1] + ...`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub shape: Vec<usize>,
    pub strides: Vec<isize>,
    pub offset: usize,
}

impl View {
    /// A row-major view starting at the buffer's first element.
    pub fn contiguous(shape: &[usize]) -> View {
        let mut strides = vec![1isize; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * shape[i + 1].max(1) as isize;
        }
        View { shape: shape.to_vec(), strides, offset: 0 }
    }

    /// A view with explicit strides, starting at the buffer's first element.
    pub fn strided(shape: &[usize], strides: &[isize]) -> View {
        View { shape: shape.to_vec(), strides: strides.to_vec(), offset: 0 }
    }

    /// The same view moved `offset` elements into its buffer.
    pub fn with_offset(mut self, offset: usize) -> View {
        self.offset = offset;
        self
    }

    /// Dimensions `a` and `b` swapped (`x.T` for a 2-D view): same elements, new order.
    pub fn transposed(mut self, a: usize, b: usize) -> View {
        self.shape.swap(a, b);
        self.strides.swap(a, b);
        self
    }

    /// Dimension `dim` walked backwards (`x.flip(dim)`): the offset moves to the last
    /// element of that dimension and its stride changes sign, so the view stays valid.
    pub fn flipped(mut self, dim: usize) -> View {
        let n = self.shape[dim];
        let s = self.strides[dim];
        if n > 0 {
            let shift = (n as isize - 1) * s;
            self.offset = (self.offset as isize + shift) as usize;
        }
        self.strides[dim] = -s;
        self
    }

    /// Dimension `dim` broadcast to `n` elements (stride 0: every index reads one element).
    pub fn broadcast(mut self, dim: usize, n: usize) -> View {
        self.shape[dim] = n;
        self.strides[dim] = 0;
        self
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The lowest and highest buffer element the view touches (`None` when empty).
    pub fn reach(&self) -> Option<(i128, i128)> {
        if self.shape.contains(&0) {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as i128, self.offset as i128);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let span = (n as i128 - 1) * s as i128;
            if span < 0 { lo += span } else { hi += span }
        }
        Some((lo, hi))
    }

    /// The smallest buffer that holds every element of the view.
    pub fn min_buffer_len(&self) -> usize {
        self.reach().map_or(self.offset, |(_, hi)| hi as usize + 1)
    }

    /// `Ok` when shape and strides agree in rank and every element lies in a buffer of
    /// `buffer_len` elements; else what is wrong.
    pub fn check(&self, buffer_len: usize) -> Result<(), String> {
        if self.shape.len() != self.strides.len() {
            return Err(format!("{self}: {} dimensions but {} strides", self.shape.len(), self.strides.len()));
        }
        match self.reach() {
            Some((lo, _)) if lo < 0 => {
                Err(format!("{self}: reaches element {lo}, before the buffer's start; raise the offset by {}", -lo))
            }
            Some((_, hi)) if hi >= buffer_len as i128 => {
                Err(format!("{self}: reaches element {hi} of a buffer of {buffer_len}; allocate at least {}", hi + 1))
            }
            _ => Ok(()),
        }
    }

    /// The buffer element of view index `index`.
    pub fn element(&self, index: &[usize]) -> usize {
        let at = index.iter().zip(&self.strides).fold(self.offset as isize, |acc, (&i, &s)| acc + i as isize * s);
        at as usize
    }

    /// Every view index in row-major order.
    pub fn indices(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        let numel = self.numel();
        (0..numel).map(move |mut flat| {
            let mut index = vec![0; self.shape.len()];
            for d in (0..self.shape.len()).rev() {
                index[d] = flat % self.shape[d];
                flat /= self.shape[d];
            }
            index
        })
    }

    /// The first view index that lands on buffer element `element`, if any does.
    pub fn index_of(&self, element: usize) -> Option<Vec<usize>> {
        self.indices().find(|i| self.element(i) == element)
    }
}

impl fmt::Display for View {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shape {:?} strides {:?} offset {}", self.shape, self.strides, self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flipped_view_stays_inside_its_buffer_and_reads_backwards() {
        let v = View::contiguous(&[3, 4]).flipped(1);
        assert_eq!(v.strides, vec![4, -1]);
        assert_eq!(v.element(&[0, 0]), 3);
        assert_eq!(v.element(&[2, 3]), 8);
        v.check(12).unwrap();
    }

    #[test]
    fn check_names_the_element_outside_the_buffer() {
        let err = View::strided(&[2, 3], &[-3, 1]).check(6).unwrap_err();
        assert!(err.contains("reaches element -3") && err.contains("raise the offset by 3"), "{err}");
        let err = View::contiguous(&[2, 3]).with_offset(1).check(6).unwrap_err();
        assert!(err.contains("allocate at least 7"), "{err}");
    }

    #[test]
    fn broadcast_and_transposed_views_map_indices_to_elements() {
        let b = View::contiguous(&[1, 5]).broadcast(0, 4);
        assert_eq!(b.element(&[3, 2]), 2);
        assert_eq!(b.min_buffer_len(), 5);
        let t = View::contiguous(&[2, 3]).transposed(0, 1);
        assert_eq!((t.shape.clone(), t.element(&[2, 1])), (vec![3, 2], 5));
        assert_eq!(t.index_of(5), Some(vec![2, 1]));
    }
}
