//! Helpers shared by the PTX suites (`ptx_golden`, `ptx_decisions`, `ptxas`): compiling
//! a row-max variant for a launch's arguments, finding ptxas, and a small thread-by-thread
//! evaluator of `lir` address and predicate math (stores, loads) for ownership checks.
#![allow(dead_code, reason = "each test crate uses part of the helpers")]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use rtriton::backend::ptx::lir::{BinOp, Cmp, Inst, Operand, Program, Special, Ty};
use rtriton::backend::ptx::{self, Arch, Ptx, PtxError, PtxOptions};
use rtriton::ir::Kernel;
use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::TraceOptions;
use rtriton::verify::KernelInfo;
use rtriton_kernels::RowMaxVariant;

/// A contiguous 1000 x 1024 launch: 16-byte aligned pointers, n_cols and stride_row
/// divisible by 16, stride_col == 1 (folded under Triton specialization).
pub fn contiguous_args() -> Vec<ArgValue> {
    vec![
        ArgValue::Ptr(0x7f00_0000_0000),
        ArgValue::Ptr(0x7f00_0010_0000),
        ArgValue::Int(1000),
        ArgValue::Int(1024),
        ArgValue::Int(1024),
        ArgValue::Int(1),
    ]
}

/// Traces and verifies `v` with its default constexprs for `args` under `policy`.
pub fn front(
    v: RowMaxVariant,
    args: &[ArgValue],
    policy: SpecPolicy,
    constexprs: Option<Vec<(&'static str, i64)>>,
) -> (Kernel, KernelInfo) {
    let c = constexprs.unwrap_or_else(|| v.default_constexprs());
    rtriton::pipeline::specialize_and_trace(&v.def(), &c, args, policy, &TraceOptions::default())
        .unwrap_or_else(|e| panic!("front end failed for {}: {e}", v.name()))
}

pub fn compile(v: RowMaxVariant, args: &[ArgValue], policy: SpecPolicy, options: &PtxOptions) -> Result<Ptx, PtxError> {
    let (k, info) = front(v, args, policy, None);
    ptx::compile(&k, &info, options)
}

pub fn lower(
    v: RowMaxVariant,
    args: &[ArgValue],
    policy: SpecPolicy,
    constexprs: Option<Vec<(&'static str, i64)>>,
    options: &PtxOptions,
) -> Result<Program, PtxError> {
    let (k, info) = front(v, args, policy, constexprs);
    ptx::lower(&k, &info, options)
}

pub fn options(arch: Arch, num_warps: u32) -> PtxOptions {
    PtxOptions { arch, num_warps, ..PtxOptions::default() }
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

/// ptxas, or `None` after printing why the test skips; panics when `CI` is set.
pub fn ptxas_or_skip(test: &str) -> Option<PathBuf> {
    match find_ptxas() {
        Ok(p) => Some(p),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "{test}: CI is set but {why}");
            eprintln!("{test}: skipped: {why}");
            None
        }
    }
}

/// Assembles `text` for `arch` with `ptxas -v`; `Ok(info output)` or `Err(errors)`.
pub fn assemble(ptxas: &PathBuf, text: &str, arch: &str, name: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("rtriton-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.ptx"));
    std::fs::write(&file, text).unwrap();
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg(&file)
        .arg("-o")
        .arg(dir.join(format!("{name}.{arch}.cubin")))
        .output()
        .expect("run ptxas");
    let msg = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() { Ok(msg) } else { Err(msg) }
}

/// Bytes of spill stores `ptxas -v` reports (`N bytes spill stores`).
pub fn spill_stores(info: &str) -> Option<u64> {
    let idx = info.find(" bytes spill stores")?;
    let head = &info[..idx];
    head.rsplit(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// `lir::Inst::Loop`'s exact trip count; panics on a non-positive step (the PTX traps).
fn trip_count(lo: u64, hi: u64, step: u64, ty: Ty) -> u64 {
    let (lo, hi, st) = (Thread::sext(lo, ty), Thread::sext(hi, ty), Thread::sext(step, ty));
    assert!(st > 0, "loop step {st} is not positive (the kernel traps)");
    if hi <= lo { 0 } else { (hi.wrapping_sub(lo) as u64 - 1) / st as u64 + 1 }
}

/// `max.f32` / `min.f32` (and `.NaN`) bit for bit: canonical NaN `0x7FFFFFFF`,
/// `+0.0 > -0.0` (docs/semantics.md).
fn max_min_f32(a: f32, b: f32, max: bool, propagate: bool) -> f32 {
    let canonical = f32::from_bits(0x7FFF_FFFF);
    match (a.is_nan(), b.is_nan()) {
        (true, true) => canonical,
        (true, false) | (false, true) if propagate => canonical,
        (true, false) => b,
        (false, true) => a,
        _ if a == 0.0 && b == 0.0 => {
            let pos = a.is_sign_positive() || b.is_sign_positive();
            let neg = a.is_sign_negative() || b.is_sign_negative();
            if (max && pos) || (!max && !neg) { 0.0 } else { -0.0 }
        }
        _ => {
            if max {
                a.max(b)
            } else {
                a.min(b)
            }
        }
    }
}

/// What one thread's stores and loads touched (address, guard held).
#[derive(Debug, Default)]
pub struct ThreadTrace {
    pub stores: Vec<u64>,
    pub loads: Vec<u64>,
}

/// Runs every thread of CTA `ctaid` alone over the program's integer and predicate math
/// (float data, shuffles and shared loads give 0): enough to know which addresses each
/// thread loads and stores. `args` are the launch's arguments as raw bits.
pub fn trace_threads(p: &Program, args: &[u64], ctaid: u32, nctaid: u32) -> Vec<ThreadTrace> {
    (0..p.threads_per_cta)
        .map(|tid| {
            let mut t = Thread { p, regs: HashMap::new(), tid, ctaid, nctaid, args, trace: ThreadTrace::default() };
            t.run(&p.body);
            t.trace
        })
        .collect()
}

struct Thread<'a> {
    p: &'a Program,
    regs: HashMap<u32, u64>,
    tid: u32,
    ctaid: u32,
    nctaid: u32,
    args: &'a [u64],
    trace: ThreadTrace,
}

impl Thread<'_> {
    fn get(&self, o: Operand, ty: Ty) -> u64 {
        let v = match o {
            Operand::Reg(r) => *self.regs.get(&r.0).unwrap_or(&0),
            Operand::Int(i) => i as u64,
            Operand::F32(x) => u64::from(x.to_bits()),
        };
        if ty == Ty::I32 { v & 0xffff_ffff } else { v }
    }

    fn sext(v: u64, ty: Ty) -> i64 {
        if ty == Ty::I32 { i64::from(v as u32 as i32) } else { v as i64 }
    }

    fn put(&mut self, r: rtriton::backend::ptx::lir::Reg, v: u64) {
        let v = if self.p.ty(r) == Ty::I32 { v & 0xffff_ffff } else { v };
        self.regs.insert(r.0, v);
    }

    fn guard(&self, g: Option<rtriton::backend::ptx::lir::Guard>) -> bool {
        g.is_none_or(|g| (self.get(Operand::Reg(g.pred), Ty::Pred) != 0) != g.negate)
    }

    fn run(&mut self, insts: &[Inst]) {
        for i in insts {
            match i {
                Inst::Comment(_) | Inst::BarSync { .. } => {}
                Inst::LdParam { dst, param } => self.put(*dst, self.args[*param]),
                Inst::CvtaGlobal { dst, src } => self.put(*dst, self.get((*src).into(), Ty::I64)),
                Inst::ReadSpecial { dst, sreg } => {
                    let v = match sreg {
                        Special::TidX => self.tid,
                        Special::CtaId(_) => self.ctaid,
                        Special::NCtaId(_) => self.nctaid,
                    };
                    self.put(*dst, u64::from(v));
                }
                Inst::Mov { ty, dst, src } => self.put(*dst, self.get(*src, *ty)),
                Inst::Bin { op, ty, dst, a, b } => {
                    if *ty == Ty::F32 {
                        self.put(*dst, 0);
                        continue;
                    }
                    let (x, y) = (self.get(*a, *ty), self.get(*b, *ty));
                    let (sx, sy) = (Self::sext(x, *ty), Self::sext(y, *ty));
                    let v = match op {
                        BinOp::Add => x.wrapping_add(y),
                        BinOp::Sub => x.wrapping_sub(y),
                        BinOp::Mul => x.wrapping_mul(y),
                        BinOp::Div => sx.wrapping_div(sy) as u64,
                        BinOp::Rem => sx.wrapping_rem(sy) as u64,
                        BinOp::Max(_) => sx.max(sy) as u64,
                        BinOp::Min(_) => sx.min(sy) as u64,
                        BinOp::And => x & y,
                        BinOp::Or => x | y,
                        BinOp::Xor => x ^ y,
                        BinOp::Shl => x.checked_shl(y as u32).unwrap_or(0),
                        BinOp::ShrU => x.checked_shr(y as u32).unwrap_or(0),
                    };
                    self.put(*dst, v);
                }
                Inst::Not { dst, src } => self.put(*dst, u64::from(self.get((*src).into(), Ty::Pred) == 0)),
                Inst::MulWide { dst, a, b } => {
                    let v = Self::sext(self.get(*a, Ty::I32), Ty::I32) * Self::sext(self.get(*b, Ty::I32), Ty::I32);
                    self.put(*dst, v as u64);
                }
                Inst::Cvt { dst, to, src, from } => {
                    let x = self.get((*src).into(), *from);
                    let v = match (from, to) {
                        (Ty::I32, Ty::I64) => Self::sext(x, Ty::I32) as u64,
                        _ => x,
                    };
                    self.put(*dst, v);
                }
                Inst::Setp { cmp, ty, dst, a, b } => {
                    let (x, y) = (Self::sext(self.get(*a, *ty), *ty), Self::sext(self.get(*b, *ty), *ty));
                    let v = match cmp {
                        Cmp::Lt => x < y,
                        Cmp::Le => x <= y,
                        Cmp::Gt => x > y,
                        Cmp::Ge => x >= y,
                        Cmp::Eq => x == y,
                        Cmp::Ne => x != y,
                    };
                    self.put(*dst, u64::from(v));
                }
                Inst::Selp { ty, dst, a, b, cond } => {
                    let c = self.get((*cond).into(), Ty::Pred) != 0;
                    self.put(*dst, if c { self.get(*a, *ty) } else { self.get(*b, *ty) });
                }
                Inst::LdGlobal { guard, dsts, addr, offset, ty, .. } => {
                    if self.guard(*guard) {
                        let base = self.get((*addr).into(), Ty::I64).wrapping_add(*offset as u64);
                        let size = u64::from(ty.size_bytes());
                        assert_eq!(base % (size * dsts.len() as u64), 0, "misaligned vector load at 0x{base:x}");
                        for (j, d) in dsts.iter().enumerate() {
                            self.trace.loads.push(base + j as u64 * size);
                            self.put(*d, 0);
                        }
                    }
                }
                Inst::StGlobal { guard, srcs, addr, offset, ty } => {
                    if self.guard(*guard) {
                        let base = self.get((*addr).into(), Ty::I64).wrapping_add(*offset as u64);
                        let size = u64::from(ty.size_bytes());
                        for j in 0..srcs.len() {
                            self.trace.stores.push(base + j as u64 * size);
                        }
                    }
                }
                Inst::SharedBase { dst } => self.put(*dst, 0),
                Inst::LdShared { dst, .. } | Inst::Shfl { dst, .. } => self.put(*dst, 0),
                Inst::StShared { .. } => {}
                Inst::Loop { ty, iv, lower, upper, step, body } => {
                    let (lo, hi, st) = (self.get(*lower, *ty), self.get(*upper, *ty), self.get(*step, *ty));
                    let mut i = lo;
                    for _ in 0..trip_count(lo, hi, st, *ty) {
                        self.put(*iv, i);
                        self.run(body);
                        i = i.wrapping_add(st);
                    }
                }
            }
        }
    }
}

/// A whole CTA run in lock step over a flat memory: every thread executes each
/// instruction before any executes the next (valid because `lir` has no divergent
/// control flow), with the semantics `lir` documents. A test-side reference for the
/// lowering's numerics, not the project's SIMT simulator.
pub struct Cta<'a> {
    p: &'a Program,
    regs: Vec<Vec<u64>>,
    shared: Vec<u8>,
    ctaid: u32,
    nctaid: u32,
}

/// Global memory: 4-byte words by address.
pub type Memory = HashMap<u64, u32>;

impl<'a> Cta<'a> {
    pub fn run(p: &'a Program, args: &[u64], ctaid: u32, nctaid: u32, mem: &mut Memory) {
        let t = p.threads_per_cta as usize;
        let mut cta =
            Cta { p, regs: vec![vec![0; p.regs.len()]; t], shared: vec![0; p.shared_bytes as usize], ctaid, nctaid };
        cta.block(&p.body, args, mem);
    }

    fn get(&self, t: usize, o: Operand, ty: Ty) -> u64 {
        let v = match o {
            Operand::Reg(r) => self.regs[t][r.index()],
            Operand::Int(i) => {
                if ty == Ty::F32 {
                    u64::from((i as f32).to_bits())
                } else {
                    i as u64
                }
            }
            Operand::F32(x) => u64::from(x.to_bits()),
        };
        if matches!(ty, Ty::I32 | Ty::F32) { v & 0xffff_ffff } else { v }
    }

    fn put(&mut self, t: usize, r: rtriton::backend::ptx::lir::Reg, v: u64) {
        let v = if matches!(self.p.ty(r), Ty::I32 | Ty::F32) { v & 0xffff_ffff } else { v };
        self.regs[t][r.index()] = v;
    }

    fn guard(&self, t: usize, g: Option<rtriton::backend::ptx::lir::Guard>) -> bool {
        g.is_none_or(|g| (self.regs[t][g.pred.index()] != 0) != g.negate)
    }

    fn f(v: u64) -> f32 {
        f32::from_bits(v as u32)
    }

    fn block(&mut self, insts: &[Inst], args: &[u64], mem: &mut Memory) {
        let n = self.regs.len();
        for i in insts {
            match i {
                Inst::Shfl { dst, src, lane_mask, .. } => {
                    let vals: Vec<u64> = (0..n).map(|t| self.regs[t][src.index()]).collect();
                    for t in 0..n {
                        let from = (t & !31) | ((t & 31) ^ *lane_mask as usize);
                        self.put(t, *dst, vals[from]);
                    }
                }
                Inst::Loop { ty, iv, lower, upper, step, body } => {
                    let (lo, hi, st) = (self.get(0, *lower, *ty), self.get(0, *upper, *ty), self.get(0, *step, *ty));
                    for t in 1..n {
                        assert_eq!(self.get(t, *upper, *ty), hi, "loop bounds must be uniform");
                    }
                    let mut x = lo;
                    for _ in 0..trip_count(lo, hi, st, *ty) {
                        for t in 0..n {
                            self.put(t, *iv, x);
                        }
                        self.block(body, args, mem);
                        x = x.wrapping_add(st);
                    }
                }
                _ => {
                    for t in 0..n {
                        self.step(t, i, args, mem);
                    }
                }
            }
        }
    }

    fn step(&mut self, t: usize, i: &Inst, args: &[u64], mem: &mut Memory) {
        match i {
            Inst::Comment(_) | Inst::BarSync { .. } | Inst::Shfl { .. } | Inst::Loop { .. } => {}
            Inst::LdParam { dst, param } => self.put(t, *dst, args[*param]),
            Inst::CvtaGlobal { dst, src } => self.put(t, *dst, self.regs[t][src.index()]),
            Inst::ReadSpecial { dst, sreg } => {
                let v = match sreg {
                    Special::TidX => t as u32,
                    Special::CtaId(_) => self.ctaid,
                    Special::NCtaId(_) => self.nctaid,
                };
                self.put(t, *dst, u64::from(v));
            }
            Inst::Mov { ty, dst, src } => self.put(t, *dst, self.get(t, *src, *ty)),
            Inst::Bin { op, ty, dst, a, b } => {
                let (x, y) = (self.get(t, *a, *ty), self.get(t, *b, *ty));
                let v = if *ty == Ty::F32 {
                    let (fx, fy) = (Self::f(x), Self::f(y));
                    let r = match op {
                        BinOp::Add => fx + fy,
                        BinOp::Sub => fx - fy,
                        BinOp::Mul => fx * fy,
                        BinOp::Div => fx / fy,
                        BinOp::Max(n) => max_min_f32(fx, fy, true, *n == rtriton::ir::PropagateNan::All),
                        BinOp::Min(n) => max_min_f32(fx, fy, false, *n == rtriton::ir::PropagateNan::All),
                        _ => panic!("{op:?} on f32"),
                    };
                    u64::from(r.to_bits())
                } else {
                    let (sx, sy) = (Thread::sext(x, *ty), Thread::sext(y, *ty));
                    match op {
                        BinOp::Add => x.wrapping_add(y),
                        BinOp::Sub => x.wrapping_sub(y),
                        BinOp::Mul => x.wrapping_mul(y),
                        BinOp::Div => sx.wrapping_div(sy) as u64,
                        BinOp::Rem => sx.wrapping_rem(sy) as u64,
                        BinOp::Max(_) => sx.max(sy) as u64,
                        BinOp::Min(_) => sx.min(sy) as u64,
                        BinOp::And => x & y,
                        BinOp::Or => x | y,
                        BinOp::Xor => x ^ y,
                        BinOp::Shl => x.checked_shl(y as u32).unwrap_or(0),
                        BinOp::ShrU => x.checked_shr(y as u32).unwrap_or(0),
                    }
                };
                self.put(t, *dst, v);
            }
            Inst::Not { dst, src } => self.put(t, *dst, u64::from(self.regs[t][src.index()] == 0)),
            Inst::MulWide { dst, a, b } => {
                let v =
                    Thread::sext(self.get(t, *a, Ty::I32), Ty::I32) * Thread::sext(self.get(t, *b, Ty::I32), Ty::I32);
                self.put(t, *dst, v as u64);
            }
            Inst::Cvt { dst, to, src, from } => {
                let x = self.get(t, (*src).into(), *from);
                let v = match (from, to) {
                    (Ty::I32, Ty::I64) => Thread::sext(x, Ty::I32) as u64,
                    (Ty::I64, Ty::I32) => x & 0xffff_ffff,
                    (Ty::I32 | Ty::I64, Ty::F32) => u64::from((Thread::sext(x, *from) as f32).to_bits()),
                    (Ty::F32, _) => Self::f(x) as i64 as u64,
                    _ => x,
                };
                self.put(t, *dst, v);
            }
            Inst::Setp { cmp, ty, dst, a, b } => {
                let (x, y) = (self.get(t, *a, *ty), self.get(t, *b, *ty));
                let v = if *ty == Ty::F32 {
                    let (fx, fy) = (Self::f(x), Self::f(y));
                    match cmp {
                        Cmp::Lt => fx < fy,
                        Cmp::Le => fx <= fy,
                        Cmp::Gt => fx > fy,
                        Cmp::Ge => fx >= fy,
                        Cmp::Eq => fx == fy,
                        Cmp::Ne => fx != fy,
                    }
                } else {
                    let (x, y) = (Thread::sext(x, *ty), Thread::sext(y, *ty));
                    match cmp {
                        Cmp::Lt => x < y,
                        Cmp::Le => x <= y,
                        Cmp::Gt => x > y,
                        Cmp::Ge => x >= y,
                        Cmp::Eq => x == y,
                        Cmp::Ne => x != y,
                    }
                };
                self.put(t, *dst, u64::from(v));
            }
            Inst::Selp { ty, dst, a, b, cond } => {
                let v = if self.regs[t][cond.index()] != 0 { self.get(t, *a, *ty) } else { self.get(t, *b, *ty) };
                self.put(t, *dst, v);
            }
            Inst::LdGlobal { guard, ty, dsts, addr, offset, .. } => {
                if self.guard(t, *guard) {
                    let base = self.regs[t][addr.index()].wrapping_add(*offset as u64);
                    let size = u64::from(ty.size_bytes());
                    assert_eq!(base % (size * dsts.len() as u64), 0, "misaligned load at 0x{base:x}");
                    for (j, d) in dsts.iter().enumerate() {
                        let a = base + j as u64 * size;
                        let w = *mem.get(&a).unwrap_or_else(|| panic!("load from unmapped 0x{a:x} (thread {t})"));
                        self.put(t, *d, u64::from(w));
                    }
                }
            }
            Inst::StGlobal { guard, ty, srcs, addr, offset } => {
                if self.guard(t, *guard) {
                    let base = self.regs[t][addr.index()].wrapping_add(*offset as u64);
                    let size = u64::from(ty.size_bytes());
                    assert_eq!(base % (size * srcs.len() as u64), 0, "misaligned store at 0x{base:x}");
                    for (j, s) in srcs.iter().enumerate() {
                        let a = base + j as u64 * size;
                        assert!(mem.contains_key(&a), "store to unmapped 0x{a:x} (thread {t})");
                        mem.insert(a, self.regs[t][s.index()] as u32);
                    }
                }
            }
            Inst::SharedBase { dst } => self.put(t, *dst, 0),
            Inst::LdShared { dst, addr, offset, .. } => {
                let a = (self.regs[t][addr.index()] + u64::from(*offset)) as usize;
                let w = u32::from_le_bytes(self.shared[a..a + 4].try_into().unwrap());
                self.put(t, *dst, u64::from(w));
            }
            Inst::StShared { guard, src, addr, offset, .. } => {
                if self.guard(t, *guard) {
                    let a = (self.regs[t][addr.index()] + u64::from(*offset)) as usize;
                    let w = self.regs[t][src.index()] as u32;
                    self.shared[a..a + 4].copy_from_slice(&w.to_le_bytes());
                }
            }
        }
    }
}
