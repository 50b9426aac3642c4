//! `device_print` on the interpreter: one line an element of each printed value, made by
//! `semantics::printf` from Triton's format and the arguments a GPU thread would pack,
//! so the interpreter prints the lines the GPU and the simulator print.

use crate::ir::{Kernel, ScalarType, Value};
use crate::semantics::printf::{self, PrintClass, PrintfArg};

use super::convert::cast_data;
use super::value::{Data, Trap, unflatten};

/// The lines of `device_print(prefix, values)` in program `pid`: every element of each
/// value in order, operand after operand.
pub(super) fn lines(
    kernel: &Kernel,
    pid: [u32; 3],
    prefix: &str,
    values: &[(Value, &Data)],
) -> Result<Vec<String>, Trap> {
    let mut out = Vec::new();
    for (k, (v, data)) in values.iter().enumerate() {
        let dims = kernel.shape(*v).dims().to_vec();
        let operand = (values.len() > 1).then_some(k);
        let fmt = printf::device_print_format(prefix, operand, &dims, PrintClass::of_dtype(kernel.dtype(*v)));
        for (lane, elem) in element_args(data)?.into_iter().enumerate() {
            let mut args: Vec<PrintfArg> = pid.iter().map(|p| PrintfArg::B32(*p)).collect();
            args.extend(unflatten(lane, &dims).into_iter().map(|i| PrintfArg::B32(i as u32)));
            args.push(elem);
            out.push(printf::line(&fmt, &args));
        }
    }
    Ok(out)
}

/// Each element as `vprintf` receives it: 32-bit integers (booleans as 0 or 1) as 4
/// bytes, 64-bit ones and addresses as 8, floats converted to `f64` by the cast rules
/// (the conversions the PTX back end emits).
fn element_args(d: &Data) -> Result<Vec<PrintfArg>, Trap> {
    Ok(match d {
        Data::Bool(v) => v.iter().map(|b| PrintfArg::B32(u32::from(*b))).collect(),
        Data::I8(v) => v.iter().map(|x| PrintfArg::B32(i32::from(*x) as u32)).collect(),
        Data::I16(v) => v.iter().map(|x| PrintfArg::B32(i32::from(*x) as u32)).collect(),
        Data::I32(v) => v.iter().map(|x| PrintfArg::B32(*x as u32)).collect(),
        Data::U8(v) => v.iter().map(|x| PrintfArg::B32(u32::from(*x))).collect(),
        Data::U32(v) => v.iter().map(|x| PrintfArg::B32(*x)).collect(),
        Data::I64(v) => v.iter().map(|x| PrintfArg::B64(*x as u64)).collect(),
        Data::U64(v) | Data::Ptr(v) => v.iter().map(|x| PrintfArg::B64(*x)).collect(),
        Data::F64(v) => v.iter().map(|x| PrintfArg::B64(x.to_bits())).collect(),
        Data::F32(_) | Data::F16(_) | Data::BF16(_) | Data::F8E4M3(_) | Data::F8E5M2(_) => {
            match cast_data(d, ScalarType::F64)? {
                Data::F64(v) => v.iter().map(|x| PrintfArg::B64(x.to_bits())).collect(),
                // `cast_data` to f64 gives f64 data (a variant, not an op kind)
                _ => return super::value::unsupported("a float print that did not convert to f64"),
            }
        }
    })
}
