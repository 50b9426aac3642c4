//! The debugging ops in debug mode ([`crate::backend::ptx::PtxOptions::debug`]), lowered
//! to CUDA's system calls as Triton lowers them: `device_print` to one `vprintf` an
//! element ([`Inst::Printf`], Triton's format from `semantics::printf`), `device_assert`
//! to `__assertfail` ([`Inst::AssertFail`]). Outside debug mode both lower to nothing.

use super::{Lowerer, ty_of};
use crate::backend::ptx::PtxError;
use crate::backend::ptx::lir::{Guard, Inst, Operand, Reg, Special, Ty};
use crate::ir::{DType, Op, ScalarType, Value};
use crate::semantics::printf::{PrintClass, device_print_format};

impl Lowerer<'_> {
    /// `device_assert(cond, msg)`: each thread calls `__assertfail` where an element of
    /// the condition it holds is false (one call for all of them, as Triton's lowering
    /// does), passing the message, the assertion's file and line and the kernel's name.
    pub(super) fn device_assert(&mut self, op: &Op, cond: Value, msg: &str) -> Result<(), PtxError> {
        let mut all = None;
        for c in self.val(cond)? {
            let pred = self.reg(c, Ty::Pred);
            all = self.and_pred(all, Some(pred));
        }
        let Some(pred) = all else { return Ok(()) };
        let short = op.loc.short();
        let file = short.rsplit_once(':').map_or(short.as_str(), |(f, _)| f).to_string();
        self.emit(Inst::AssertFail {
            guard: Guard { pred, negate: true },
            message: msg.to_string(),
            file,
            line: op.loc.line,
            function: self.k.name.clone(),
        });
        Ok(())
    }

    /// `device_print(prefix, values)`: for each value, one `vprintf` of each element a
    /// thread holds, with the program id, the element's index and the element. Only the
    /// thread that owns an element prints it (the owner a store of it would use; thread 0
    /// for a scalar), so every element prints once, as on the interpreter; Triton prints
    /// each copy a thread holds.
    pub(super) fn device_print(&mut self, prefix: &str, values: &[Value]) -> Result<(), PtxError> {
        let pid: Vec<Reg> = (0..3)
            .map(|axis| {
                let dst = self.new_reg(Ty::I32);
                self.emit(Inst::ReadSpecial { dst, sreg: Special::CtaId(axis) });
                dst
            })
            .collect();
        for (k, v) in values.iter().enumerate() {
            let dtype = self.k.dtype(*v);
            let dims = self.k.shape(*v).dims().to_vec();
            let operand = (values.len() > 1).then_some(k);
            let format = device_print_format(prefix, operand, &dims, PrintClass::of_dtype(dtype));
            let elems = self.val(*v)?;
            let (owner, embed, geo) = match (self.geometry(*v), self.layout(*v)) {
                (Some(geo), Some(l)) => {
                    let embed = l.embed.clone();
                    (self.owner(&geo, None), embed, Some(geo))
                }
                // a scalar: every thread holds it, thread 0 prints it (not an op kind)
                _ => (Some(self.scalar_owner()), Vec::new(), None),
            };
            for (i, x) in elems.into_iter().enumerate() {
                let mut args = pid.clone();
                if let Some(geo) = &geo {
                    let kk = geo.multi(i);
                    for &d in &embed {
                        let c = self.coord(geo, d, kk[d]);
                        args.push(self.reg(c, Ty::I32));
                    }
                }
                args.push(self.print_arg(x, dtype));
                self.emit(Inst::Printf {
                    guard: owner.map(|pred| Guard { pred, negate: false }),
                    format: format.clone(),
                    args,
                });
            }
        }
        Ok(())
    }

    /// An element as `vprintf` takes it: a 32-bit or 64-bit integer register as it is
    /// (booleans as 0 or 1), every float converted to `f64` by the cast rules.
    fn print_arg(&mut self, x: Operand, dtype: DType) -> Reg {
        let ty = ty_of(dtype);
        let wide = match dtype.scalar() {
            Some(s) if s.fp8_format().is_some() => self.fp8_cast(x, s, ScalarType::F64, ty, Ty::F64),
            Some(ScalarType::F16 | ScalarType::BF16 | ScalarType::F32) => self.convert(x, ty, Ty::F64),
            Some(ScalarType::Bool) => self.convert(x, Ty::Pred, Ty::U32),
            // integers, f64 and pointers travel in their own registers (dtypes, not an op kind)
            _ => x,
        };
        let wide_ty = match dtype.scalar() {
            Some(s) if PrintClass::of(s) == PrintClass::F64 => Ty::F64,
            Some(ScalarType::Bool) => Ty::U32,
            // every other dtype keeps its register type (dtypes, not an op kind)
            _ => ty,
        };
        self.reg(wide, wide_ty)
    }
}
