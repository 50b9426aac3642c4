//! A kernel that loads fp8, converts to f32, computes `x * y + 1` there and stores fp8,
//! against the reference model computing in Rust's f32; and `where` moving fp8 codes.

use crate::both;
use crate::kernels;
use crate::reference::{Decoded, E4M3, E5M2, Format, decode, encode};
use crate::run::Launch;

fn value(f: Format, code: u8) -> f32 {
    match decode(f, code) {
        Decoded::Finite(v) => v as f32,
        Decoded::Inf(neg) => {
            if neg {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            }
        }
        Decoded::Nan { .. } => f32::NAN,
    }
}

#[test]
fn fp8_in_f32_compute_fp8_out() {
    // Every e4m3 code against a spread of e5m2 codes (the infinities and NaNs included).
    let xs: Vec<u8> = (0..=255).collect();
    let ys: Vec<u8> = xs.iter().map(|&c| c.wrapping_mul(37).wrapping_add(11)).collect();
    let n = xs.len();
    let out = both(&kernels::fma_f8(), &Launch::elementwise(vec![xs.clone(), ys.clone()], n, n)).remove(0);
    for i in 0..n {
        let z = value(E4M3, xs[i]) * value(E5M2, ys[i]) + 1.0;
        let want = encode(E4M3, f64::from(z));
        assert_eq!(out[i], want, "x {:#04x} y {:#04x}: x * y + 1 = {z:e}", xs[i], ys[i]);
    }
}

#[test]
fn where_selects_fp8_codes() {
    let xs: Vec<u8> = (0..64).map(|i| 0x80 | i).collect();
    let ys: Vec<u8> = (0..64).collect();
    let out = both(&kernels::where_f8(), &Launch::elementwise(vec![xs.clone(), ys.clone()], 64, 64)).remove(0);
    for i in 0..64 {
        assert_eq!(out[i], if i < 32 { xs[i] } else { ys[i] }, "lane {i}");
    }
}
