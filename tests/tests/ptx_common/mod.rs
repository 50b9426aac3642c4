//! Helpers shared by the PTX suites (`ptx_golden`, `ptx_decisions`, `ptxas`,
//! `sim_differential`): compiling a row-max variant for a launch's arguments and finding
//! and running ptxas. Executing `lir` is the simulator's job ([`rtriton::sim`]).
#![allow(dead_code, reason = "each test crate uses part of the helpers")]

use std::path::PathBuf;
use std::process::Command;

use rtriton::backend::ptx::{self, Arch, Ptx, PtxError, PtxOptions};
use std::sync::Arc;

use rtriton::session::CompileSession;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton::verify::VerifiedKernel;
use rtriton_kernels::RowMaxVariant;

/// Traces and verifies `v` (its default constexprs unless given) for `args` under
/// `policy`, through a compile session.
pub fn front(
    v: RowMaxVariant,
    args: &[ArgValue],
    policy: SpecPolicy,
    constexprs: Option<Vec<(&'static str, i64)>>,
) -> Arc<VerifiedKernel> {
    let c = constexprs.unwrap_or_else(|| v.default_constexprs());
    CompileSession::new()
        .front_end_for_args(&v.def(), &c, args, policy, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("front end failed for {}: {e}", v.name()))
}

pub fn compile(v: RowMaxVariant, args: &[ArgValue], policy: SpecPolicy, options: &PtxOptions) -> Result<Ptx, PtxError> {
    ptx::compile(&front(v, args, policy, None), options)
}

/// [`compile`] for any kernel `def` with `constexprs` (the golden suites pass the fixture
/// copies of the row-max family); panics when tracing fails.
pub fn compile_def(
    def: &rtriton::trace::KernelDef,
    constexprs: &[(&str, i64)],
    args: &[ArgValue],
    policy: SpecPolicy,
    options: &PtxOptions,
) -> Result<Ptx, PtxError> {
    let verified = CompileSession::new()
        .front_end_for_args(def, constexprs, args, policy, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("front end failed for {}: {e}", def.name));
    ptx::compile(&verified, options)
}

/// Traces `def` with `constexprs` for a plain specialization key (no argument facts)
/// and compiles it with `options`; panics when tracing fails.
pub fn compile_plain(
    def: &rtriton::trace::KernelDef,
    constexprs: &[(&str, i64)],
    options: &PtxOptions,
) -> Result<Ptx, PtxError> {
    let spec = rtriton::spec::SpecKey::plain(&def.params);
    let verified = CompileSession::new()
        .front_end(def, constexprs, &spec, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("front end failed for {}: {e}", def.name));
    ptx::compile(&verified, options)
}

/// The options for `arch` (at the `.version` that gives it all its instructions,
/// [`PtxOptions::for_arch`]) with `num_warps`.
pub fn options(arch: Arch, num_warps: u32) -> PtxOptions {
    PtxOptions { num_warps, ..PtxOptions::for_arch(arch) }
}

/// ptxas from `PATH`, else from the `nvidia-cuda-nvcc-cu12` wheel of `python3`.
/// `Err` says why there is none.
pub fn find_ptxas() -> Result<PathBuf, String> {
    if let Ok(out) = Command::new("ptxas").arg("--version").output()
        && out.status.success()
    {
        return Ok(PathBuf::from("ptxas"));
    }
    let py = "import nvidia.cuda_nvcc as m, os; print(list(m.__path__)[0])";
    if let Ok(out) = Command::new("python3").args(["-c", py]).output()
        && out.status.success()
    {
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let p = PathBuf::from(dir).join("bin").join("ptxas");
        if p.exists() {
            return Ok(p);
        }
    }
    Err("ptxas is not on PATH and python3 has no nvidia-cuda-nvcc-cu12 wheel (pip install nvidia-cuda-nvcc-cu12==12.9.86)".into())
}

/// ptxas. Its callers are `#[cfg_attr(not(has_ptxas), ignore = "needs ptxas on PATH")]`
/// (`tests/build.rs` sets the cfg), so they run only where ptxas was found or when asked
/// for, and then a missing ptxas is a failure, never a skip.
pub fn ptxas(test: &str) -> PathBuf {
    find_ptxas().unwrap_or_else(|why| panic!("{test}: {why}"))
}

/// Assembles `text` for `arch` with `ptxas -v`; `Ok(info output)` or `Err(errors)`.
pub fn assemble(ptxas: &PathBuf, text: &str, arch: &str, name: &str) -> Result<String, String> {
    assemble_to_cubin(ptxas, text, arch, name).map(|(info, _)| info)
}

/// [`assemble`], also returning the path of the cubin ptxas wrote.
fn assemble_to_cubin(ptxas: &PathBuf, text: &str, arch: &str, name: &str) -> Result<(String, PathBuf), String> {
    let dir = std::env::temp_dir().join(format!("rtriton-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // One file per call: tests of one binary run in parallel threads and several assemble
    // kernels of the same name (a shared name raced: one test's ptxas read another's file).
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("{name}-{n}");
    let file = dir.join(format!("{name}.ptx"));
    let cubin = dir.join(format!("{name}.{arch}.cubin"));
    std::fs::write(&file, text).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&file)
        .arg("-o")
        .arg(&cubin)
        .output()
        .expect("run ptxas");
    let msg = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() { Ok((msg, cubin)) } else { Err(msg) }
}

/// Bytes of spill stores `ptxas -v` reports (`N bytes spill stores`).
pub fn spill_stores(info: &str) -> Option<u64> {
    let idx = info.find(" bytes spill stores")?;
    let head = &info[..idx];
    head.rsplit(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// Assembles `text` for `arch` and accepts it only without spill stores: `Err` holds
/// ptxas's refusal (with the PTX) or its report of the spills.
pub fn assembles_without_spills(ptxas: &PathBuf, text: &str, arch: Arch, name: &str) -> Result<(), String> {
    match assemble(ptxas, text, &arch.to_string(), name) {
        Ok(info) if spill_stores(&info) == Some(0) => Ok(()),
        Ok(info) => Err(format!("{name} spills:\n{info}")),
        Err(e) => Err(format!("{name}: ptxas refused:\n{e}\n{text}")),
    }
}

/// Registers per thread `ptxas -v` reports (`Used N registers`).
pub fn registers_used(info: &str) -> Option<u32> {
    let tail = &info[info.find("Used ")? + "Used ".len()..];
    let (count, rest) = tail.split_once(' ')?;
    rest.starts_with("registers").then(|| count.parse().ok())?
}

/// Assembles `text` for `arch` and counts the SASS instructions of kernel `kernel`
/// ([`sass_opcodes`]).
pub fn sass_instructions(ptxas: &PathBuf, text: &str, arch: &str, kernel: &str) -> Result<usize, String> {
    sass_opcodes(ptxas, text, arch, kernel).map(|ops| ops.len())
}

/// `FFMA`'s opcode in [`sass_opcodes`]' low 9 bits, whichever its operands' forms.
pub const SASS_FFMA: u16 = 0x023;

/// Assembles `text` for `arch` and lists the opcodes of kernel `kernel`'s SASS, in the
/// cubin's `.text.{kernel}` section (16 bytes an instruction from sm_70 on), `NOP`s left
/// out: ptxas pads the section to its alignment with them (up to 7 after the final branch
/// to itself, which is kept), so the size alone over-counts by a varying few. No
/// disassembler is needed (the wheel that provides ptxas has none): an instruction's
/// opcode is its low 12 bits on sm_80 to sm_90, the low 9 naming the operation (`NOP`
/// `0x918`; [`SASS_FFMA`]) and the top 3 its operands' forms (register, immediate,
/// constant bank, uniform register).
pub fn sass_opcodes(ptxas: &PathBuf, text: &str, arch: &str, kernel: &str) -> Result<Vec<u16>, String> {
    const NOP: u16 = 0x918;
    let (_, cubin) = assemble_to_cubin(ptxas, text, arch, kernel)?;
    let elf = std::fs::read(&cubin).map_err(|e| e.to_string())?;
    let (offset, size) =
        elf_section(&elf, &format!(".text.{kernel}")).ok_or_else(|| format!("no .text.{kernel} in the cubin"))?;
    let code = elf.get(offset as usize..(offset + size) as usize).ok_or("the section lies past the cubin's end")?;
    Ok(code.chunks_exact(16).map(|i| u16::from_le_bytes([i[0], i[1]]) & 0xfff).filter(|&op| op != NOP).collect())
}

/// The file offset and size of section `name` of a little-endian ELF64 image (a cubin), if it
/// has one.
fn elf_section(elf: &[u8], name: &str) -> Option<(u64, u64)> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(elf.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(elf.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(elf.get(at..at + 8)?.try_into().ok()?));
    if elf.get(..5)? != b"\x7fELF\x02" {
        return None;
    }
    // The ELF64 header: e_shoff at 0x28, e_shentsize, e_shnum, e_shstrndx at 0x3A..0x40.
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(0x28)? as usize, u16_at(0x3A)? as usize, u16_at(0x3C)? as usize, u16_at(0x3E)? as usize);
    // A section header: sh_name at 0, sh_offset at 0x18, sh_size at 0x20.
    let header = |i: usize| shoff + i * shentsize;
    let names = u64_at(header(shstrndx) + 0x18)? as usize;
    (0..shnum).find_map(|i| {
        let start = names + u32_at(header(i))? as usize;
        let len = elf.get(start..)?.iter().position(|&b| b == 0)?;
        let section = || Some((u64_at(header(i) + 0x18)?, u64_at(header(i) + 0x20)?));
        (elf.get(start..start + len)? == name.as_bytes()).then(section).flatten()
    })
}
