//! The shapes `rtriton bench` measures: `ROWSxCOLS[:VIEW]`, the syntax `--shape` takes and
//! the name every table, JSON row and peer measurement carries (so `bench/peers/` results
//! merge by name). VIEW is one of
//! - nothing or `contiguous`: row-major, `stride_row = COLS`, `stride_col = 1`;
//! - `T`: the transpose of a row-major `COLS x ROWS` buffer (`(COLSxROWS).T` in torch),
//!   `stride_row = 1`, `stride_col = ROWS`;
//! - `stride=K`: every K-th column of a row-major `ROWS x (COLS*K)` buffer (`x[:, ::K]`);
//! - `offset=K`: row-major, starting K elements into the buffer (`x.view(-1)[K:]`), so
//!   the base is not 16-byte aligned unless K is a multiple of 4.

use std::fmt;

use rtriton_kernels::cases::{ViewLayout, random};

/// How the `ROWS x COLS` view sits in its buffer (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BenchView {
    Contiguous,
    Transposed,
    Stride(usize),
    Offset(usize),
}

/// One shape and view.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BenchShape {
    pub n_rows: usize,
    pub n_cols: usize,
    pub view: BenchView,
}

/// The default shapes: the row-max target table (large contiguous inputs, one past 2^31
/// elements, narrow rows, few wide rows, a transposed view, every other column, a
/// non-power-of-two width and three tiny launches).
pub const DEFAULT_SHAPES: [&str; 11] = [
    "32768x32768",
    "65537x32768",
    "8192x8192",
    "1048576x32",
    "64x4194304",
    "8192x16384:T",
    "8192x8192:stride=2",
    "4096x1000",
    "1x1",
    "3x7",
    "1000x1",
];

/// The default shapes, parsed.
pub fn default_shapes() -> Vec<BenchShape> {
    DEFAULT_SHAPES.iter().map(|s| BenchShape::parse(s).expect("the default shapes parse")).collect()
}

/// The bytes of one element of every bench input (f32).
pub const ELEMENT_BYTES: usize = 4;

/// The most bytes one buffer may take: Rust's (and the driver's) allocation limit.
pub const MAX_BUFFER_BYTES: usize = isize::MAX as usize;

/// A whole number of at least `min` (0 or 1), in decimal digits.
fn number(text: &str, what: &str, min: usize) -> Result<usize, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} `{text}` is not a whole number"));
    }
    match text.parse::<usize>() {
        Ok(n) if n < min => Err(format!("{what} `{text}` must be at least {min}")),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("{what} `{text}` is too large (at most {})", usize::MAX)),
    }
}

impl BenchShape {
    /// Parses `ROWSxCOLS[:VIEW]`; the error says what is wrong (the caller names the flag).
    pub fn parse(text: &str) -> Result<BenchShape, String> {
        const FORM: &str =
            "write ROWSxCOLS[:VIEW] with VIEW one of contiguous, T, stride=K, offset=K (e.g. 8192x16384:T)";
        let (dims, view) = match text.split_once(':') {
            Some((d, v)) => (d, Some(v)),
            None => (text, None),
        };
        let (rows, cols) = dims.split_once('x').ok_or_else(|| format!("no `x` between ROWS and COLS; {FORM}"))?;
        let n_rows = number(rows, "ROWS", 1).map_err(|e| format!("{e}; {FORM}"))?;
        let n_cols = number(cols, "COLS", 1).map_err(|e| format!("{e}; {FORM}"))?;
        let view = match view {
            None | Some("contiguous") => BenchView::Contiguous,
            Some("T") => BenchView::Transposed,
            Some(v) => match v.split_once('=') {
                Some(("stride", k)) => {
                    BenchView::Stride(number(k, "the stride K", 1).map_err(|e| format!("{e}; {FORM}"))?)
                }
                // An offset of 0 is the contiguous view; allowed for scripts that sweep K.
                Some(("offset", k)) => {
                    BenchView::Offset(number(k, "the offset K", 0).map_err(|e| format!("{e}; {FORM}"))?)
                }
                _ => return Err(format!("unknown view `{v}`; {FORM}")),
            },
        };
        let shape = BenchShape { n_rows, n_cols, view };
        shape.check_size()?;
        Ok(shape)
    }

    /// Whether the buffer fits one allocation: its elements, and its bytes, counted with
    /// checked arithmetic (rows x cols, x the stride or + the offset, x 4 bytes), so a
    /// shape too large is refused here, before anything is allocated.
    pub fn check_size(&self) -> Result<(), String> {
        if self.buffer_bytes().is_some() {
            return Ok(());
        }
        // The counts for the message, in u128: rows x cols fits, x a stride may not.
        let (r, c) = (self.n_rows as u128, self.n_cols as u128);
        let elements = match self.view {
            BenchView::Contiguous | BenchView::Transposed => Some(r * c),
            BenchView::Stride(k) => (r * c).checked_mul(k as u128),
            BenchView::Offset(o) => (r * c).checked_add(o as u128),
        };
        let counts = match elements.and_then(|e| Some((e, e.checked_mul(ELEMENT_BYTES as u128)?))) {
            Some((e, b)) => format!("{e} f32 elements ({b} bytes)"),
            None => "more than 2^126 f32 elements".to_string(),
        };
        Err(format!(
            "the buffer of {self} holds {counts}, more than one allocation can take ({MAX_BUFFER_BYTES} bytes); give \
             fewer rows or columns"
        ))
    }

    /// Elements of the whole buffer the view lives in, or `None` past `usize`.
    pub fn buffer_len(&self) -> Option<usize> {
        let (r, c) = (self.n_rows, self.n_cols);
        match self.view {
            BenchView::Contiguous | BenchView::Transposed => r.checked_mul(c),
            BenchView::Stride(k) => r.checked_mul(c)?.checked_mul(k),
            BenchView::Offset(o) => r.checked_mul(c)?.checked_add(o),
        }
    }

    /// Bytes of the whole buffer, or `None` past [`MAX_BUFFER_BYTES`].
    pub fn buffer_bytes(&self) -> Option<usize> {
        self.buffer_len()?.checked_mul(ELEMENT_BYTES).filter(|&b| b <= MAX_BUFFER_BYTES)
    }

    pub fn numel(&self) -> usize {
        self.n_rows * self.n_cols
    }

    /// Strides, offset and buffer length (checked at parse time).
    pub fn layout(&self) -> ViewLayout {
        let (r, c) = (self.n_rows, self.n_cols);
        let buffer_len = self.buffer_len().expect("checked when parsed");
        match self.view {
            BenchView::Contiguous => ViewLayout { offset: 0, stride_row: c, stride_col: 1, buffer_len },
            BenchView::Transposed => ViewLayout { offset: 0, stride_row: 1, stride_col: r, buffer_len },
            BenchView::Stride(k) => ViewLayout { offset: 0, stride_row: c * k, stride_col: k, buffer_len },
            BenchView::Offset(o) => ViewLayout { offset: o, stride_row: c, stride_col: 1, buffer_len },
        }
    }

    /// The whole input buffer: pseudo-random values in [-1000, 1000) from a seed made of
    /// the name, so every run and every peer sees the same numbers for a shape.
    pub fn input(&self) -> Vec<f32> {
        let seed = self
            .to_string()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
        random(seed, self.layout().buffer_len, -1000.0, 1000.0)
    }
}

impl fmt::Display for BenchShape {
    /// The canonical name: `8192x16384:T`, `4096x1000`, `8192x8192:stride=2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.n_rows, self.n_cols)?;
        match self.view {
            BenchView::Contiguous => Ok(()),
            BenchView::Transposed => write!(f, ":T"),
            BenchView::Stride(k) => write!(f, ":stride={k}"),
            BenchView::Offset(o) => write!(f, ":offset={o}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case::contiguous("4096x1000", 4096, 1000, 0, 1000, 1, 4_096_000)]
    #[case::contiguous_named("3x7:contiguous", 3, 7, 0, 7, 1, 21)]
    #[case::transposed("8192x16384:T", 8192, 16384, 0, 1, 8192, 8192 * 16384)]
    #[case::every_other_column("8192x8192:stride=2", 8192, 8192, 0, 16384, 2, 8192 * 16384)]
    #[case::offset("40x130:offset=3", 40, 130, 3, 130, 1, 40 * 130 + 3)]
    #[case::huge("65537x32768", 65537, 32768, 0, 32768, 1, 65537 * 32768)]
    fn shapes_parse_to_their_layout(
        #[case] text: &str,
        #[case] rows: usize,
        #[case] cols: usize,
        #[case] offset: usize,
        #[case] stride_row: usize,
        #[case] stride_col: usize,
        #[case] buffer_len: usize,
    ) {
        let s = BenchShape::parse(text).unwrap();
        assert_eq!((s.n_rows, s.n_cols), (rows, cols));
        assert_eq!(s.layout(), ViewLayout { offset, stride_row, stride_col, buffer_len });
        // The name is canonical and parses back to the same shape.
        assert_eq!(BenchShape::parse(&s.to_string()).unwrap(), s);
        assert_eq!(s.to_string(), text.trim_end_matches(":contiguous"));
    }

    const FORM: &str = "write ROWSxCOLS[:VIEW] with VIEW one of contiguous, T, stride=K, offset=K (e.g. 8192x16384:T)";

    #[rstest]
    #[case::no_x("4096", "no `x` between ROWS and COLS")]
    #[case::no_cols("4096x", "COLS `` is not a whole number")]
    #[case::zero_rows("0x5", "ROWS `0` must be at least 1")]
    #[case::negative("-1x5", "ROWS `-1` is not a whole number")]
    #[case::plus("+1x5", "ROWS `+1` is not a whole number")]
    #[case::hex("0x10", "ROWS `0` must be at least 1")]
    #[case::spaces("4 x 5", "ROWS `4 ` is not a whole number")]
    #[case::too_large(
        "99999999999999999999x1",
        "ROWS `99999999999999999999` is too large (at most 18446744073709551615)"
    )]
    #[case::unknown_view("8x8:R", "unknown view `R`")]
    #[case::zero_stride("8x8:stride=0", "the stride K `0` must be at least 1")]
    #[case::zero_stride_two_digits("8x8:stride=00", "the stride K `00` must be at least 1")]
    #[case::bad_offset("8x8:offset=-2", "the offset K `-2` is not a whole number")]
    fn bad_shapes_say_what_is_wrong_and_the_form(#[case] text: &str, #[case] why: &str) {
        assert_eq!(BenchShape::parse(text).unwrap_err(), format!("{why}; {FORM}"));
    }

    /// Each product a shape makes (elements, bytes, strides, offsets) is checked: a buffer
    /// past one allocation is refused by the parser, whose message gives the counts (these
    /// passed it and then panicked with "capacity overflow" or a multiply overflow).
    #[rstest]
    #[case::square("3037000500x3037000500", "9223372037000250000 f32 elements (36893488148001000000 bytes)")]
    #[case::bytes_overflow("2305843009213693952x4", "9223372036854775808 f32 elements (36893488147419103232 bytes)")]
    #[case::cols_max("1x18446744073709551615", "18446744073709551615 f32 elements (73786976294838206460 bytes)")]
    #[case::elements_overflow(
        "4294967296x4294967296",
        "18446744073709551616 f32 elements (73786976294838206464 bytes)"
    )]
    #[case::stride("2x2:stride=4611686018427387904", "18446744073709551616 f32 elements")]
    #[case::offset("2x2:offset=18446744073709551615", "18446744073709551619 f32 elements")]
    #[case::past_u128(
        "18446744073709551615x18446744073709551615:stride=18446744073709551615",
        "more than 2^126 f32 elements"
    )]
    #[case::just_past("1x2305843009213693952", "2305843009213693952 f32 elements (9223372036854775808 bytes)")]
    fn a_buffer_past_one_allocation_is_refused(#[case] text: &str, #[case] counts: &str) {
        let e = BenchShape::parse(text).unwrap_err();
        assert!(e.starts_with(&format!("the buffer of {text} holds ")), "{e}");
        assert!(e.contains(counts), "{e}");
        assert!(
            e.contains("more than one allocation can take (9223372036854775807 bytes); give fewer rows or columns"),
            "{e}"
        );
    }

    #[test]
    fn the_largest_allocation_is_accepted_and_offsets_of_zero_in_any_spelling() {
        let s = BenchShape::parse("1x2305843009213693951").unwrap();
        assert_eq!(s.buffer_bytes(), Some(isize::MAX as usize - 3));
        assert_eq!(BenchShape::parse("8x8:offset=0").unwrap().layout().offset, 0);
        assert_eq!(BenchShape::parse("4x4:offset=00").unwrap(), BenchShape::parse("4x4:offset=0").unwrap());
    }

    #[test]
    fn the_defaults_are_the_issues_target_table_and_inputs_are_reproducible() {
        let d = default_shapes();
        assert_eq!(d.len(), 11);
        assert!(d[1].numel() > 1 << 31, "one shape is past 2^31 elements");
        assert_eq!(d[5].layout(), ViewLayout { offset: 0, stride_row: 1, stride_col: 8192, buffer_len: 16384 * 8192 });
        let s = BenchShape::parse("3x7:offset=2").unwrap();
        assert_eq!(s.input(), s.input());
        assert_ne!(s.input(), BenchShape::parse("3x7:offset=1").unwrap().input()[..]);
    }
}
