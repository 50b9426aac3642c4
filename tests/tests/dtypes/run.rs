//! Running a kernel whose parameters are `(in buffers..., out buffer, n)` on the
//! interpreter and on the simulator, over raw little-endian bytes.

use rtriton::backend::ptx::{Arch, PtxOptions};
use rtriton::interp::{self, Memory};
use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::{KernelDef, TraceOptions};

pub const BLOCK: i64 = 64;
pub const NUM_WARPS: u32 = 4;

/// One launch: input buffers (bytes), output buffers (sizes in bytes, filled with 0xA5
/// so unwritten bytes show), `n`, the number of programs, `BLOCK` and `num_warps`.
#[derive(Clone, Debug)]
pub struct Launch {
    pub inputs: Vec<Vec<u8>>,
    pub outs: Vec<usize>,
    pub n: i64,
    pub programs: u32,
    pub block: i64,
    pub num_warps: u32,
}

impl Launch {
    /// `ceil(n / BLOCK)` programs over `n` elements, one output buffer.
    pub fn elementwise(inputs: Vec<Vec<u8>>, out_bytes: usize, n: usize) -> Launch {
        Launch::blocks(inputs, out_bytes, n, BLOCK, NUM_WARPS)
    }

    /// [`Launch::elementwise`] with blocks of `block` elements on `num_warps` warps.
    pub fn blocks(inputs: Vec<Vec<u8>>, out_bytes: usize, n: usize, block: i64, num_warps: u32) -> Launch {
        let programs = (n as u64).div_ceil(block as u64) as u32;
        Launch { inputs, outs: vec![out_bytes], n: n as i64, programs, block, num_warps }
    }

    fn place(&self, mem: &mut Memory) -> (Vec<ArgValue>, Vec<u64>) {
        let mut args: Vec<ArgValue> = self.inputs.iter().map(|b| ArgValue::Ptr(mem.alloc_bytes(b))).collect();
        let outs: Vec<u64> = self.outs.iter().map(|&n| mem.alloc_bytes(&vec![0xA5; n])).collect();
        args.extend(outs.iter().map(|&o| ArgValue::Ptr(o)));
        args.push(ArgValue::Int(self.n));
        (args, outs)
    }

    fn read(&self, mem: &Memory, outs: &[u64]) -> Result<Vec<Vec<u8>>, String> {
        outs.iter()
            .zip(&self.outs)
            .map(|(&a, &n)| mem.read_bytes(a, n).map(<[u8]>::to_vec).map_err(|e| e.to_string()))
            .collect()
    }
}

/// The output buffers after running `def` on the interpreter.
pub fn interpreter(def: &KernelDef, l: &Launch) -> Result<Vec<Vec<u8>>, String> {
    let mut mem = Memory::new();
    let (args, outs) = l.place(&mut mem);
    let verified = CompileSession::new()
        .front_end_for_args(def, &[("BLOCK", l.block)], &args, SpecPolicy::Triton, &TraceOptions::default())
        .map_err(|e| e.to_string())?;
    interp::run(&verified, [l.programs, 1, 1], &args, &mut mem).map_err(|e| e.to_string())?;
    l.read(&mem, &outs)
}

/// The output buffers after running `def`'s program, lowered for `arch`, on the simulator.
pub fn simulator_for(def: &KernelDef, l: &Launch, arch: Arch) -> Result<Vec<Vec<u8>>, String> {
    let mut mem = Memory::new();
    let (args, outs) = l.place(&mut mem);
    let program = rtriton_testing::run::lower_with(
        &mut CompileSession::new(),
        def,
        &[("BLOCK", l.block)],
        &args,
        SpecPolicy::Triton,
        &PtxOptions { num_warps: l.num_warps, ..PtxOptions::for_arch(arch) },
    )
    .map_err(|e| e.to_string())?;
    rtriton::sim::run(&program, [l.programs, 1, 1], &args, &mut mem).map_err(|e| e.to_string())?;
    l.read(&mem, &outs)
}

/// Runs on both CPU back ends; they must agree bit for bit; returns the output buffers.
pub fn both(def: &KernelDef, l: &Launch) -> Vec<Vec<u8>> {
    on_archs(def, l, &[Arch::default()])
}

/// [`both`], the simulator running the program lowered for each of `archs` (the targets
/// whose lowerings differ: fp8 conversions are instructions from sm_89 on).
pub fn on_archs(def: &KernelDef, l: &Launch, archs: &[Arch]) -> Vec<Vec<u8>> {
    let i = interpreter(def, l).unwrap_or_else(|e| panic!("{}: interpreter: {e}", def.name));
    for &arch in archs {
        let s = simulator_for(def, l, arch).unwrap_or_else(|e| panic!("{} for {arch}: simulator: {e}", def.name));
        assert_eq!(i, s, "{}: the simulator disagrees with the interpreter for {arch}", def.name);
    }
    i
}
