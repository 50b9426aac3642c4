//! The fp8 conversion kernels and the compute kernel on the GPU (`#[ignore = "needs a
//! GPU"]`), compiled for sm_86 (integer sequences) and for sm_90 (PTX's fp8 conversions):
//! the output bytes must equal the interpreter's, NaNs included. fp8 buffers are `u8`
//! device buffers passed with the fp8 element type (`RawBuffer::elem`).

use rtriton::backend::ptx::Arch;
use rtriton::ir::ScalarType;
use rtriton::trace::KernelDef;
use rtriton_host::driver::{DeviceBuffer, Gpu, RawBuffer};
use rtriton_host::launch::{Arg, JitKernel, Runtime, TensorArg, ptx_options};

use crate::kernels;
use crate::run::{BLOCK, Launch, NUM_WARPS, interpreter};

/// The bytes of `def`'s one output after a GPU launch over `inputs`, compiled for `arch`.
fn on_gpu(rt: &mut Runtime, def: &KernelDef, inputs: &[Vec<u8>], out_bytes: usize, n: usize, arch: Arch) -> Vec<u8> {
    let pointees: Vec<ScalarType> = def.params.iter().filter_map(|p| p.kind.dtype().pointee()).collect();
    let mut bufs: Vec<DeviceBuffer<u8>> =
        inputs.iter().map(|b| DeviceBuffer::from_host(&rt.gpu, b).expect("upload")).collect();
    bufs.push(DeviceBuffer::from_host(&rt.gpu, &vec![0xA5; out_bytes]).expect("upload"));
    let mut args: Vec<Arg<'_>> = bufs
        .iter()
        .zip(&pointees)
        .map(|(b, &elem)| {
            let raw = RawBuffer { elem, len: b.len() / elem.size_bytes() as usize, ..b.raw() };
            Arg::Tensor(TensorArg::from_raw(raw, &[raw.len], &[1]))
        })
        .collect();
    args.push(Arg::Int(n as i64));
    let programs = (n as u64).div_ceil(BLOCK as u64);
    let k = JitKernel::new(def.clone())
        .constexprs(&[("BLOCK", BLOCK)])
        .num_warps(NUM_WARPS)
        .arch(arch)
        .grid(move |_| [programs, 1, 1]);
    assert_eq!(ptx_options(&k).fp8_conversions(), arch >= Arch::Sm89, "{arch}");
    rt.launch(&k, &args).expect("launch");
    rt.gpu.synchronize().expect("synchronize");
    bufs.last().unwrap().to_host(&rt.gpu).expect("download")
}

#[test]
#[ignore = "needs a GPU"]
fn fp8_kernels_give_the_interpreters_bits_on_the_gpu() {
    every_kernel_on_the_gpu(Arch::Sm86);
}

/// The same kernels compiled for sm_90, whose fp8 conversions are PTX's `cvt`s: the
/// hardware's bits must be the interpreter's, for every code and every input pattern.
#[test]
#[ignore = "needs a GPU"]
fn fp8_kernels_compiled_for_sm90_give_the_interpreters_bits_on_the_gpu() {
    every_kernel_on_the_gpu(Arch::Sm90);
}

fn every_kernel_on_the_gpu(arch: Arch) {
    let _ = Gpu::open(0).unwrap_or_else(|e| panic!("this test needs a GPU (run it on the GPU machine): {e}"));
    let mut rt = Runtime::new().unwrap_or_else(|e| panic!("runtime: {e}"));
    // Every code, and f32 / f16 / bf16 inputs that cover every byte pattern of their low
    // and high halves plus the specials.
    let codes: Vec<u8> = (0..=255).collect();
    let mut f32s: Vec<f32> = (0..=255u32).map(|c| f32::from_bits(c << 24 | c << 9 | c)).collect();
    f32s.extend([448.0, 464.0, 480.0, 57344.0, 61440.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0625, 1.1875]);
    let f32_bytes: Vec<u8> = f32s.iter().flat_map(|x| x.to_le_bytes()).collect();
    let halves: Vec<u8> = (0..=255u16).flat_map(|c| (c << 8 | c).to_le_bytes()).collect();
    let mut failures = Vec::new();
    for def in kernels::every_cvt() {
        let params: Vec<ScalarType> = def.params.iter().filter_map(|p| p.kind.dtype().pointee()).collect();
        let input = match params[0].size_bytes() {
            1 => codes.clone(),
            2 => halves.clone(),
            _ => f32_bytes.clone(),
        };
        let n = input.len() / params[0].size_bytes() as usize;
        let out = n * params[1].size_bytes() as usize;
        let want = interpreter(&def, &Launch::elementwise(vec![input.clone()], out, n)).expect("interpreter").remove(0);
        let got = on_gpu(&mut rt, &def, &[input], out, n, arch);
        if got != want {
            failures.push(format!("{} ({arch}): GPU {got:02x?}\ninterpreter {want:02x?}", def.name));
        }
    }
    let ys: Vec<u8> = codes.iter().map(|&c| c.wrapping_mul(37).wrapping_add(11)).collect();
    let def = kernels::fma_f8();
    let want = interpreter(&def, &Launch::elementwise(vec![codes.clone(), ys.clone()], 256, 256)).expect("interpreter");
    let got = on_gpu(&mut rt, &def, &[codes, ys], 256, 256, arch);
    if got != want[0] {
        failures.push(format!("fma_f8 ({arch}): GPU {got:02x?}\ninterpreter {:02x?}", want[0]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
