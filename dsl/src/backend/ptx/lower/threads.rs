//! The thread's position in the CTA and what derives from it: `tid`, lane and warp, the
//! position along each parent dim of the blocked layout, the coordinates of the elements
//! a thread holds, and the owner predicates of replicated elements. Everything here is
//! computed once, in the prologue, and cached: nothing defined in a loop body is read
//! after a loop that ran zero times.

use super::Lowerer;
use crate::backend::ptx::layout::{Blocked, Geometry};
use crate::backend::ptx::lir::{BinOp, Cmp, Group, Inst, Operand, Reg, Special, Ty};

impl Lowerer<'_> {
    pub(super) fn tid(&mut self) -> Reg {
        if let Some(r) = self.tid {
            return r;
        }
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Group(Group::synthetic("thread position: tid, lane = tid % 32, warp = tid / 32")));
        self.emit_pro(Inst::ReadSpecial { dst: r, sreg: Special::TidX });
        self.tid = Some(r);
        r
    }

    pub fn lane(&mut self) -> Reg {
        if let Some(r) = self.lane {
            return r;
        }
        let tid = self.tid();
        let r = self.pro_i32(BinOp::And, tid, 31);
        self.lane = Some(r);
        r
    }

    pub fn warp(&mut self) -> Reg {
        if let Some(r) = self.warp {
            return r;
        }
        let tid = self.tid();
        let r = self.pro_i32(BinOp::ShrU, tid, 5);
        self.warp = Some(r);
        r
    }

    /// Threads in the CTA.
    pub(super) fn num_threads(&self) -> usize {
        self.enc.warps_per_cta.iter().product::<usize>() * 32
    }

    /// A new `I32` register holding `a op b`, computed in the prologue.
    pub(super) fn pro_i32(&mut self, op: BinOp, a: Reg, b: i64) -> Reg {
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::Bin { op, ty: Ty::I32, dst: r, a: a.into(), b: Operand::Int(b) });
        r
    }

    /// `(src >> shift) & (n - 1)` in the prologue (n a power of two); `0` when `n == 1`.
    pub(super) fn field(&mut self, src: Reg, shift: u32, n: usize) -> Operand {
        if n == 1 {
            return Operand::Int(0);
        }
        if let Some(f) = self.fields.get(&(src, shift, n)) {
            return *f;
        }
        // The field reaches the top of the source (lane: 5 bits; warp: log2 num_warps).
        let top = if Some(src) == self.lane { 32 } else { self.num_threads() / 32 };
        let mut cur = src;
        if shift > 0 {
            cur = self.pro_i32(BinOp::ShrU, cur, shift.into());
        }
        if (n << shift) < top {
            cur = self.pro_i32(BinOp::And, cur, n as i64 - 1);
        }
        self.fields.insert((src, shift, n), Operand::Reg(cur));
        Operand::Reg(cur)
    }

    /// The lane's position along parent dim `d` of `enc` (`0..tpw_d`).
    pub fn lane_pos(&mut self, enc: &Blocked, d: usize) -> Operand {
        let lane = self.lane();
        let (s, n) = (enc.lane_shift(d), enc.threads_per_warp[d]);
        self.field(lane, s, n)
    }

    /// The warp's position along parent dim `d` of `enc` (`0..wpc_d`).
    pub fn warp_pos(&mut self, enc: &Blocked, d: usize) -> Operand {
        let warp = self.warp();
        let (s, n) = (enc.warp_shift(d), enc.warps_per_cta[d]);
        self.field(warp, s, n)
    }

    /// `t_d = warp_d * tpw_d + lane_d` along parent dim `d` of `enc`.
    pub(super) fn thread_pos(&mut self, enc: &Blocked, d: usize) -> Operand {
        if let Some(r) = self.tpos.get(&(enc.clone(), d)) {
            return Operand::Reg(*r);
        }
        let l = self.lane_pos(enc, d);
        let w = self.warp_pos(enc, d);
        let tpw = enc.threads_per_warp[d] as i64;
        let t = match (w, l) {
            (Operand::Int(0), l) => l,
            (w, Operand::Int(0)) if tpw == 1 => w,
            (Operand::Reg(w), l) => {
                let r = self.new_reg(Ty::I32);
                let shift = tpw.trailing_zeros() as i64;
                self.emit_pro(Inst::Bin { op: BinOp::Shl, ty: Ty::I32, dst: r, a: w.into(), b: Operand::Int(shift) });
                if l == Operand::Int(0) {
                    Operand::Reg(r)
                } else {
                    let s = self.new_reg(Ty::I32);
                    self.emit_pro(Inst::Bin { op: BinOp::Or, ty: Ty::I32, dst: s, a: r.into(), b: l });
                    Operand::Reg(s)
                }
            }
            (w, _) => w,
        };
        if let Operand::Reg(r) = t {
            self.tpos.insert((enc.clone(), d), r);
        }
        t
    }

    /// The thread's first coordinate along parent dim `d` for a block of `geo`:
    /// `(t_d mod distinct) * s_d` (see [`crate::backend::ptx::layout`]).
    pub(super) fn coord_base(&mut self, geo: &Geometry, d: usize) -> Operand {
        let key = ((*geo.enc).clone(), d, geo.parent[d]);
        if let Some(b) = self.bases.get(&key) {
            return *b;
        }
        let t = self.thread_pos(&geo.enc, d);
        let distinct = geo.distinct_threads(d);
        let b = match t {
            Operand::Reg(t) if distinct > 1 => {
                let mut cur = t;
                if distinct < geo.enc.threads_along(d) {
                    let r = self.new_reg(Ty::I32);
                    self.emit_pro(Inst::Bin {
                        op: BinOp::And,
                        ty: Ty::I32,
                        dst: r,
                        a: cur.into(),
                        b: Operand::Int(distinct as i64 - 1),
                    });
                    cur = r;
                }
                if geo.chunk[d] > 1 {
                    let r = self.new_reg(Ty::I32);
                    self.emit_pro(Inst::Bin {
                        op: BinOp::Shl,
                        ty: Ty::I32,
                        dst: r,
                        a: cur.into(),
                        b: Operand::Int(geo.chunk[d].trailing_zeros().into()),
                    });
                    cur = r;
                }
                Operand::Reg(cur)
            }
            // a dim with no thread or warp split starts at 0 (not an op kind)
            _ => Operand::Int(0),
        };
        self.bases.insert(key, b);
        b
    }

    /// The coordinate along parent dim `d` of register index `k_d` (an `I32` operand).
    pub fn coord(&mut self, geo: &Geometry, d: usize, k_d: usize) -> Operand {
        let base = self.coord_base(geo, d);
        let off = (geo.static_offset(d, k_d) % geo.parent[d]) as i64;
        match base {
            Operand::Int(b) => Operand::Int(b + off),
            b if off == 0 => b,
            b => self.bin(BinOp::Add, Ty::I32, b, Operand::Int(off)),
        }
    }

    /// True in the threads that hold the first copy of their elements of a block of `geo`
    /// (all dims but `skip`); `None` when every thread does.
    pub fn owner(&mut self, geo: &Geometry, skip: Option<usize>) -> Option<Reg> {
        let key = (Some((*geo.enc).clone()), geo.parent.clone(), skip);
        if let Some(o) = self.owners.get(&key) {
            return *o;
        }
        let mut pred = None;
        for d in 0..geo.parent.len() {
            if Some(d) == skip {
                continue;
            }
            let distinct = geo.distinct_threads(d);
            if distinct < geo.enc.threads_along(d) {
                let t = self.thread_pos(&geo.enc, d);
                let Operand::Reg(t) = t else { continue };
                let p = self.new_reg(Ty::Pred);
                self.emit_pro(Inst::Setp {
                    cmp: Cmp::Lt,
                    ty: Ty::I32,
                    dst: p,
                    a: t.into(),
                    b: Operand::Int(distinct as i64),
                });
                pred = match pred {
                    None => Some(p),
                    Some(q) => {
                        let r = self.new_reg(Ty::Pred);
                        self.emit_pro(Inst::Bin { op: BinOp::And, ty: Ty::Pred, dst: r, a: q.into(), b: p.into() });
                        Some(r)
                    }
                };
            }
        }
        self.owners.insert(key, pred);
        pred
    }

    /// `tid == 0`: the one thread that writes a scalar.
    pub fn scalar_owner(&mut self) -> Reg {
        let key = (None, Vec::new(), None);
        if let Some(Some(o)) = self.owners.get(&key) {
            return *o;
        }
        let tid = self.tid();
        let p = self.new_reg(Ty::Pred);
        self.emit_pro(Inst::Setp { cmp: Cmp::Eq, ty: Ty::I32, dst: p, a: tid.into(), b: Operand::Int(0) });
        self.owners.insert(key, Some(p));
        p
    }

    /// The shared buffer's address (prologue).
    pub fn smem_base(&mut self) -> Reg {
        if let Some(r) = self.smem_base {
            return r;
        }
        let r = self.new_reg(Ty::I32);
        self.emit_pro(Inst::SharedBase { dst: r });
        self.smem_base = Some(r);
        r
    }
}
