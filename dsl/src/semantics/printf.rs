//! `device_print`'s lines, as CUDA's `vprintf` writes them for Triton's format.
//!
//! A GPU thread that prints passes `vprintf` a format string and a buffer with its
//! arguments packed by the CUDA printf ABI ([`pack`]: each argument aligned to its size,
//! 32-bit integers as 4 bytes, 64-bit integers, pointers and every float, promoted to
//! `f64`, as 8); the driver formats them on the host with C's rules ([`format`]). The
//! format is Triton's ([`device_print_format`]): `pid (%u, %u, %u) idx (%2u, %1u) x: %f`.
//! The PTX back end emits exactly this call, the simulator formats the buffer its
//! registers pack with [`format`], and the interpreter prints its elements through the
//! same two functions, so the three print the same lines byte for byte.

use crate::ir::{DType, ScalarType};

/// How one printed element travels to `vprintf` and which conversion prints it (Triton's
/// `getFormatSubstr`: signed integers `%i`, unsigned ones and `i1` `%u`, 64-bit ones with
/// `ll`, every float `%f` of the `f64` it is promoted to, pointers `%p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrintClass {
    I32,
    U32,
    I64,
    U64,
    F64,
    Ptr,
}

impl PrintClass {
    /// The class of an element of `t` (a pointer's is [`PrintClass::Ptr`]).
    pub fn of(t: ScalarType) -> PrintClass {
        match t {
            ScalarType::I8 | ScalarType::I16 | ScalarType::I32 => PrintClass::I32,
            ScalarType::Bool | ScalarType::U8 | ScalarType::U32 => PrintClass::U32,
            ScalarType::I64 => PrintClass::I64,
            ScalarType::U64 => PrintClass::U64,
            ScalarType::F16
            | ScalarType::BF16
            | ScalarType::F32
            | ScalarType::F64
            | ScalarType::F8E4M3
            | ScalarType::F8E5M2 => PrintClass::F64,
        }
    }

    /// The class of an element of `d`.
    pub fn of_dtype(d: DType) -> PrintClass {
        match d {
            DType::Ptr(_) => PrintClass::Ptr,
            DType::Scalar(s) => PrintClass::of(s),
        }
    }

    /// The C conversion that prints it.
    pub fn conversion(self) -> &'static str {
        match self {
            PrintClass::I32 => "%i",
            PrintClass::U32 => "%u",
            PrintClass::I64 => "%lli",
            PrintClass::U64 => "%llu",
            PrintClass::F64 => "%f",
            PrintClass::Ptr => "%p",
        }
    }

    /// Bytes in the argument buffer (also its alignment there).
    pub fn size(self) -> u32 {
        match self {
            PrintClass::I32 | PrintClass::U32 => 4,
            PrintClass::I64 | PrintClass::U64 | PrintClass::F64 | PrintClass::Ptr => 8,
        }
    }
}

/// Triton's prefix rule (`semantic.device_print`): a prefix printed before values ends in
/// `": "` and, when longer than two characters, starts with a space.
pub fn triton_prefix(prefix: &str) -> String {
    let mut p = prefix.to_string();
    if !p.ends_with(' ') {
        p.push(' ');
    }
    if !p.ends_with(": ") {
        p.pop();
        p.push_str(": ");
    }
    if p.len() > 2 && !p.starts_with(' ') {
        p.insert(0, ' ');
    }
    p
}

/// The format of one printed operand, without its newline: `pid (%u, %u, %u) idx (%Nu,
/// ...)`, the prefix (Triton's rule; a `%` in it doubled, so it prints as written), `(operand
/// k) ` when the print has several operands, and the element's conversion. Each index is
/// padded to the digits of its dim (`ceil(log10(dim))`, as Triton does).
pub fn device_print_format(prefix: &str, operand: Option<usize>, dims: &[usize], class: PrintClass) -> String {
    let widths: Vec<String> = dims.iter().map(|&d| format!("%{}u", index_width(d))).collect();
    let mut f = format!("pid (%u, %u, %u) idx ({}){}", widths.join(", "), triton_prefix(prefix).replace('%', "%%"));
    if let Some(k) = operand {
        f.push_str(&format!("(operand {k}) "));
    }
    f.push_str(class.conversion());
    f
}

/// `ceil(log10(dim))`, the width Triton pads an index along `dim` to (0 for 1).
fn index_width(dim: usize) -> usize {
    let mut w = 0;
    let mut p = 1usize;
    while p < dim {
        p = p.saturating_mul(10);
        w += 1;
    }
    w
}

/// One `vprintf` argument: its bits and its size in the buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintfArg {
    /// 4 bytes (a 32-bit integer, signed or not).
    B32(u32),
    /// 8 bytes (a 64-bit integer, a pointer, an `f64`'s bits).
    B64(u64),
}

/// Where each argument of these sizes (4 or 8) lies in the buffer, and the buffer's size:
/// each argument at the next multiple of its size (the CUDA printf ABI).
pub fn arg_offsets(sizes: impl IntoIterator<Item = u32>) -> (Vec<u32>, u32) {
    let mut at = 0u32;
    let mut offsets = Vec::new();
    for s in sizes {
        at = at.next_multiple_of(s);
        offsets.push(at);
        at += s;
    }
    (offsets, at)
}

/// The argument buffer of `args` (little endian, padding zero).
pub fn pack(args: &[PrintfArg]) -> Vec<u8> {
    let size = |a: &PrintfArg| match a {
        PrintfArg::B32(_) => 4,
        PrintfArg::B64(_) => 8,
    };
    let (offsets, total) = arg_offsets(args.iter().map(size));
    let mut buf = vec![0u8; total as usize];
    for (a, at) in args.iter().zip(offsets) {
        let at = at as usize;
        match a {
            PrintfArg::B32(v) => buf[at..at + 4].copy_from_slice(&v.to_le_bytes()),
            PrintfArg::B64(v) => buf[at..at + 8].copy_from_slice(&v.to_le_bytes()),
        }
    }
    buf
}

/// `fmt` formatted with the arguments in `buf` as C's `printf` does, for the conversions
/// [`device_print_format`] writes: `%%`, `%[0][width]` with `i`, `d`, `u`, `lli`, `llu`,
/// `f` and `p`. Each conversion reads the next argument at its size's alignment; one past
/// the buffer reads zeros. An unknown conversion is copied as written.
pub fn format(fmt: &str, buf: &[u8]) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut at = 0usize;
    let mut read = |size: usize| -> u64 {
        at = at.next_multiple_of(size);
        let mut bytes = [0u8; 8];
        for (i, b) in bytes.iter_mut().take(size).enumerate() {
            *b = buf.get(at + i).copied().unwrap_or(0);
        }
        at += size;
        u64::from_le_bytes(bytes)
    };
    let mut rest = fmt;
    while let Some(p) = rest.find('%') {
        out.push_str(&rest[..p]);
        rest = &rest[p + 1..];
        let spec_len =
            rest.find(|c: char| c.is_ascii_alphabetic() && c != 'l' || c == '%').map_or(rest.len(), |i| i + 1);
        let spec = &rest[..spec_len];
        rest = &rest[spec_len..];
        let (body, conv) = spec.split_at(spec.len().saturating_sub(1));
        let zero = body.starts_with('0');
        let long = body.ends_with("ll");
        let width: usize = body.trim_start_matches('0').trim_end_matches('l').parse().unwrap_or(0);
        let text = match conv {
            "%" => "%".to_string(),
            "i" | "d" if long => (read(8) as i64).to_string(),
            "i" | "d" => (read(4) as u32 as i32).to_string(),
            "u" if long => read(8).to_string(),
            "u" => (read(4) as u32).to_string(),
            "f" => fixed6(f64::from_bits(read(8))),
            "p" => pointer(read(8)),
            // not a conversion this module writes: kept as written (not an op kind)
            _ => {
                out.push('%');
                out.push_str(spec);
                continue;
            }
        };
        let pad = width.saturating_sub(text.len());
        if zero && conv != "%" && conv != "p" {
            let (sign, digits) = text.split_at(usize::from(text.starts_with('-')));
            out.push_str(sign);
            out.push_str(&"0".repeat(pad));
            out.push_str(digits);
        } else {
            out.push_str(&" ".repeat(pad));
            out.push_str(&text);
        }
    }
    out.push_str(rest);
    out
}

/// `%f`: six decimals, rounded to nearest even on the exact value (as glibc, and Rust's
/// `{:.6}`); `inf`, `-inf`, `nan`, `-nan`.
fn fixed6(x: f64) -> String {
    match (x.is_nan(), x.is_infinite(), x.is_sign_negative()) {
        (true, _, false) => "nan".into(),
        (true, _, true) => "-nan".into(),
        (false, true, false) => "inf".into(),
        (false, true, true) => "-inf".into(),
        (false, false, _) => format!("{x:.6}"),
    }
}

/// `%p`: `0x` and lowercase hex digits; `(nil)` for 0 (glibc's).
fn pointer(p: u64) -> String {
    if p == 0 { "(nil)".into() } else { format!("{p:#x}") }
}

/// The line `fmt` prints with `args`: [`format`] of [`pack`].
pub fn line(fmt: &str, args: &[PrintfArg]) -> String {
    format(fmt, &pack(args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triton_prefixes() {
        assert_eq!(triton_prefix("x"), " x: ");
        assert_eq!(triton_prefix("x:"), " x: ");
        assert_eq!(triton_prefix("x: "), " x: ");
        assert_eq!(triton_prefix(" sum = "), " sum =: ");
        assert_eq!(triton_prefix(""), ": ");
    }

    #[test]
    fn formats_are_tritons() {
        assert_eq!(device_print_format("x", None, &[128], PrintClass::I32), "pid (%u, %u, %u) idx (%3u) x: %i");
        assert_eq!(
            device_print_format("pair", Some(1), &[4, 16], PrintClass::F64),
            "pid (%u, %u, %u) idx (%1u, %2u) pair: (operand 1) %f"
        );
        assert_eq!(device_print_format("100%", None, &[], PrintClass::Ptr), "pid (%u, %u, %u) idx () 100%%: %p");
        assert_eq!(index_width(1), 0);
        assert_eq!(index_width(10), 1);
        assert_eq!(index_width(11), 2);
    }

    #[test]
    fn arguments_are_aligned_to_their_size() {
        assert_eq!(arg_offsets([4, 8, 4, 4, 8]), (vec![0, 8, 16, 20, 24], 32));
        let buf = pack(&[PrintfArg::B32(7), PrintfArg::B64(1)]);
        assert_eq!(buf, [7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn conversions_print_as_c() {
        let f = |x: f64| PrintfArg::B64(x.to_bits());
        let fmt = "pid (%u, %u, %u) idx (%3u, %0u) v: %i %u %lli %llu %f %f %f %f %p %p 100%%";
        let args = [
            PrintfArg::B32(1),
            PrintfArg::B32(0),
            PrintfArg::B32(2),
            PrintfArg::B32(7),
            PrintfArg::B32(0),
            PrintfArg::B32(-5i32 as u32),
            PrintfArg::B32(u32::MAX),
            PrintfArg::B64(i64::MIN as u64),
            PrintfArg::B64(u64::MAX),
            f(0.0078125),
            f(-f64::NAN),
            f(f64::NEG_INFINITY),
            f(-0.0),
            PrintfArg::B64(0),
            PrintfArg::B64(0x1000),
        ];
        assert_eq!(
            line(fmt, &args),
            "pid (1, 0, 2) idx (  7, 0) v: -5 4294967295 -9223372036854775808 18446744073709551615 0.007812 -nan \
             -inf -0.000000 (nil) 0x1000 100%"
        );
    }
}
