//! Eight f16 or bf16 elements per access: a contiguous, 16-byte aligned block whose
//! threads hold eight consecutive 16-bit floats loads them as four 32-bit words
//! (`ld.global.v4.b32`, each word unpacked into two registers, the lower address in the
//! low half) and stores them packed the same way. Each kernel converts between a packed
//! access and an f32 one, so an element landing in the wrong half cannot cancel out
//! between the load and the store; masked tails check the packed `other`.

use half::{bf16, f16};
use rstest::rstest;
use rtriton::backend::ptx::{self, AccessKind, Arch};
use rtriton::prelude::*;
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};

use crate::ptx_common::{assemble, options, ptxas, spill_stores};
use crate::run::{Launch, both};

/// A block of 1024 on 4 warps: eight elements per thread.
const WIDE_BLOCK: i64 = 1024;
const NUM_WARPS: u32 = 4;

macro_rules! packed_kernels {
    ($($widen:ident, $narrow:ident: $t:ty;)*) => {$(
        rtriton::kernel! {
            /// `y = x` widened to f32 (a packed load; masked lanes read -2, whose f32 bits
            /// show in the output).
            pub fn $widen(x_ptr: Ptr<$t>, y_ptr: Ptr<f32>, n: i32; const BLOCK: usize) {
                let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                let x = load(x_ptr + offs, Some(offs.lt(n)), Some(<$t>::from_f32(-2.0)));
                store(y_ptr + offs, x.to::<f32>(), None);
            }
        }
        rtriton::kernel! {
            /// `y = x + z` narrowed from f32, with `z` all `-0.0` (the identity of `+`): a
            /// packed store of the rounded `x`. Loading `z` gives the layout eight elements
            /// per thread (the widest load decides it, and an f32 load alone gives four).
            pub fn $narrow(x_ptr: Ptr<f32>, z_ptr: Ptr<$t>, y_ptr: Ptr<$t>, n: i32; const BLOCK: usize) {
                let offs = program_id(0) * BLOCK as i32 + arange(0, BLOCK);
                let x = load(x_ptr + offs, Some(offs.lt(n)), Some(0.0));
                let z = load(z_ptr + offs, Some(offs.lt(n)), None);
                store(y_ptr + offs, (x + z.to::<f32>()).to::<$t>(), Some(offs.lt(n)));
            }
        }
    )*};
}

packed_kernels! {
    widen_f16, narrow_f16: f16;
    widen_bf16, narrow_bf16: bf16;
}

/// Distinct 16-bit patterns: every element differs from its neighbours (a swapped pair
/// shows), with NaN payloads, infinities, signed zeros and subnormals among them.
fn halves(n: usize) -> Vec<u16> {
    let specials = [0x7E01u16, 0xFE02, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x83FF];
    (0..n).map(|i| if i % 5 == 4 { specials[(i / 5) % specials.len()] } else { 0x3C00 + i as u16 }).collect()
}

/// The f32 value of `h` read as `dtype` (every f16 and bf16 is exact in f32).
fn to_f32(h: u16, f16_not_bf16: bool) -> f32 {
    if f16_not_bf16 { f16::from_bits(h).to_f32() } else { bf16::from_bits(h).to_f32() }
}

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// n = 3072 (whole blocks, no lane masked) and 2064 (a tail of 16 in the third block:
/// the mask is constant per vector since n is divisible by 16, so the access stays packed).
#[rstest]
fn packed_loads_put_each_element_in_its_own_register(
    #[values(true, false)] is_f16: bool,
    #[values(3072, 2064)] n: usize,
) {
    let def = if is_f16 { widen_f16() } else { widen_bf16() };
    let x = halves(n);
    let programs = n.div_ceil(WIDE_BLOCK as usize);
    let out_len = programs * WIDE_BLOCK as usize;
    let launch = Launch::blocks(vec![le16(&x)], out_len * 4, n, WIDE_BLOCK, NUM_WARPS);
    let out = both(&def, &launch);
    for i in 0..out_len {
        let got = f32::from_le_bytes(out[0][i * 4..i * 4 + 4].try_into().unwrap());
        let want = if i < n { to_f32(x[i], is_f16) } else { -2.0 };
        // NaN payloads: f16 -> f32 keeps them (quieted), bf16 -> f32 keeps the bits.
        assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "element {i}: {got:?} vs {want:?}");
    }
}

#[rstest]
fn packed_stores_put_each_element_at_its_own_address(
    #[values(true, false)] is_f16: bool,
    #[values(3072, 2064)] n: usize,
) {
    let def = if is_f16 { narrow_f16() } else { narrow_bf16() };
    let want_bits = halves(n);
    let x: Vec<f32> = want_bits.iter().map(|&h| to_f32(h, is_f16)).collect();
    let z = vec![0x8000u16; n];
    let launch = Launch::blocks(vec![le32(&x), le16(&z)], n * 2 + 64, n, WIDE_BLOCK, NUM_WARPS);
    let out = both(&def, &launch);
    for (i, want) in want_bits.iter().enumerate() {
        let got = u16::from_le_bytes([out[0][2 * i], out[0][2 * i + 1]]);
        let nan = |h: u16| to_f32(h, is_f16).is_nan();
        assert!(got == *want || (nan(got) && nan(*want)), "element {i}: {got:#06x} vs {want:#06x}");
    }
    assert!(out[0][n * 2..].iter().all(|&b| b == 0xA5), "bytes past n were written");
}

fn compile(def: &KernelDef, arch: Arch) -> ptx::Ptx {
    let mut args = vec![ArgValue::Ptr(0x7f00_0000_0000), ArgValue::Ptr(0x7f00_1000_0000), ArgValue::Int(4096)];
    if def.params.len() == 4 {
        args.insert(2, ArgValue::Ptr(0x7f00_2000_0000));
    }
    let verified = CompileSession::new()
        .front_end_for_args(def, &[("BLOCK", WIDE_BLOCK)], &args, SpecPolicy::Triton, &TraceOptions::default())
        .unwrap();
    ptx::compile(&verified, &options(arch, NUM_WARPS)).unwrap()
}

#[rstest]
fn sixteen_bit_float_accesses_take_eight_elements(
    #[values(widen_f16, narrow_f16, widen_bf16, narrow_bf16)] kernel: fn() -> KernelDef,
) {
    let def = kernel();
    let p = compile(&def, Arch::Sm86);
    let widths: Vec<(AccessKind, u32)> = p.decisions.accesses.iter().map(|a| (a.kind, a.vector_width)).collect();
    // The f32 side is four elements (16 bytes) per access, the 16-bit side eight.
    let want = if def.name.starts_with("widen") {
        vec![(AccessKind::Load, 8), (AccessKind::Store, 4)]
    } else {
        vec![(AccessKind::Load, 4), (AccessKind::Load, 8), (AccessKind::Store, 8)]
    };
    assert_eq!(widths, want, "{}", def.name);
    let access = if def.name.starts_with("widen") { "ld.global.v4.b32" } else { "st.global.v4.b32" };
    assert!(p.text.contains(access), "{}", p.text);
}

#[rstest]
#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]
fn packed_accesses_assemble(#[values(widen_f16, narrow_f16, widen_bf16, narrow_bf16)] kernel: fn() -> KernelDef) {
    let def = kernel();
    let ptxas = ptxas("packed_accesses_assemble");
    for (arch, name) in [(Arch::Sm86, "sm_86"), (Arch::Sm86, "sm_90"), (Arch::Sm90, "sm_90")] {
        let info = assemble(&ptxas, &compile(&def, arch).text, name, def.name)
            .unwrap_or_else(|e| panic!("{} for {name}: {e}", def.name));
        assert_eq!(spill_stores(&info), Some(0), "{}: {info}", def.name);
    }
}
