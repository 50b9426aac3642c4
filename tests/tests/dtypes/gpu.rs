//! The conversion matrix and the dtype kernels on the GPU (`#[ignore = "needs a GPU"]`),
//! host buffers of `half::f16`, `half::bf16`, `u8`, ... through `rtriton-runtime`,
//! against the same CPU reference as the CPU back ends. NaN: narrowing conversions give
//! the canonical NaN on the interpreter; what the GPU's `cvt.rn.f16.f32` returns for a
//! NaN has not been measured, so a NaN where a NaN is expected passes here.

use half::{bf16, f16};
use rtriton::ir::ScalarType;
use rtriton_host::driver::{DeviceBuffer, Element, Gpu};
use rtriton_host::launch::{Arg, JitKernel, Runtime, TensorArg};

use crate::conversions::check;
use crate::kernels::cvt::conversions;
use crate::reference::{is_nan, values};
use crate::run::{BLOCK, NUM_WARPS};

fn gpu() -> Runtime {
    let _ = Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"));
    Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"))
}

/// Uploads the little-endian `bytes` as a buffer of `T`.
fn upload<T: Element + Copy>(rt: &Runtime, bytes: &[u8]) -> DeviceBuffer<T> {
    let n = bytes.len() / std::mem::size_of::<T>();
    let host: Vec<T> = (0..n).map(|i| bytemuck_read::<T>(&bytes[i * std::mem::size_of::<T>()..])).collect();
    DeviceBuffer::from_host(&rt.gpu, &host).expect("upload")
}

fn bytemuck_read<T: Copy>(b: &[u8]) -> T {
    assert!(b.len() >= std::mem::size_of::<T>());
    // SAFETY: `b` holds at least size_of::<T>() bytes and every T here is plain data.
    unsafe { std::ptr::read_unaligned(b.as_ptr().cast::<T>()) }
}

fn download<T: Element + Copy>(rt: &Runtime, b: &DeviceBuffer<T>) -> Vec<u8> {
    let v = b.to_host(&rt.gpu).expect("download");
    // SAFETY: a slice of plain data viewed as its bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), v.len() * std::mem::size_of::<T>()) }.to_vec()
}

/// A device buffer of the dtype `t`.
enum Buf {
    I8(DeviceBuffer<i8>),
    I16(DeviceBuffer<i16>),
    I32(DeviceBuffer<i32>),
    I64(DeviceBuffer<i64>),
    U8(DeviceBuffer<u8>),
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
    F16(DeviceBuffer<f16>),
    BF16(DeviceBuffer<bf16>),
    F32(DeviceBuffer<f32>),
    F64(DeviceBuffer<f64>),
}

macro_rules! on_buf {
    ($b:expr, $x:ident => $e:expr) => {
        match $b {
            Buf::I8($x) => $e,
            Buf::I16($x) => $e,
            Buf::I32($x) => $e,
            Buf::I64($x) => $e,
            Buf::U8($x) => $e,
            Buf::U32($x) => $e,
            Buf::U64($x) => $e,
            Buf::F16($x) => $e,
            Buf::BF16($x) => $e,
            Buf::F32($x) => $e,
            Buf::F64($x) => $e,
        }
    };
}

fn buf(rt: &Runtime, t: ScalarType, bytes: &[u8]) -> Buf {
    match t {
        ScalarType::I8 => Buf::I8(upload(rt, bytes)),
        ScalarType::I16 => Buf::I16(upload(rt, bytes)),
        ScalarType::I32 => Buf::I32(upload(rt, bytes)),
        ScalarType::I64 => Buf::I64(upload(rt, bytes)),
        ScalarType::U8 => Buf::U8(upload(rt, bytes)),
        ScalarType::U32 => Buf::U32(upload(rt, bytes)),
        ScalarType::U64 => Buf::U64(upload(rt, bytes)),
        ScalarType::F16 => Buf::F16(upload(rt, bytes)),
        ScalarType::BF16 => Buf::BF16(upload(rt, bytes)),
        ScalarType::F32 => Buf::F32(upload(rt, bytes)),
        ScalarType::F64 | ScalarType::Bool => Buf::F64(upload(rt, bytes)),
        ScalarType::F8E4M3 | ScalarType::F8E5M2 => unreachable!("fp8 is not in this matrix: tests/tests/fp8 checks it"),
    }
}

#[test]
#[ignore = "needs a GPU"]
fn conversions_on_the_gpu_match_the_reference() {
    let mut rt = gpu();
    let mut failures = Vec::new();
    for (from, to, def) in conversions() {
        let inputs = values(from);
        let n = inputs.len();
        let x = buf(&rt, from, &inputs.concat());
        let y = buf(&rt, to, &vec![0xA5; n * to.size_bytes() as usize]);
        let args = vec![
            Arg::Tensor(on_buf!(&x, b => TensorArg::new(b, &[n], &[1]))),
            Arg::Tensor(on_buf!(&y, b => TensorArg::new(b, &[n], &[1]))),
            Arg::Int(n as i64),
        ];
        let programs = (n as u64).div_ceil(BLOCK as u64);
        let k =
            JitKernel::new(def).constexprs(&[("BLOCK", BLOCK)]).num_warps(NUM_WARPS).grid(move |_| [programs, 1, 1]);
        rt.launch(&k, &args).expect("launch");
        rt.gpu.synchronize().expect("synchronize");
        let got = on_buf!(&y, b => download(&rt, b));
        // NaN bits of narrowing conversions are not measured on the GPU: any NaN passes
        // where the reference has one.
        let w = to.size_bytes() as usize;
        let mut relaxed = got.clone();
        for i in 0..n {
            let want = crate::reference::convert(crate::reference::decode(from, &inputs[i]), to);
            if from != to && is_nan(to, &want) && is_nan(to, &got[i * w..(i + 1) * w]) {
                relaxed[i * w..(i + 1) * w].copy_from_slice(&want);
            }
        }
        if let Err(e) = check(from, to, &inputs, &relaxed) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
