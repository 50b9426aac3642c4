//! The interpreter's atomics on whole blocks: lanes in row-major order, each lane's
//! atomic applied completely before the next (the order the interpreter documents; the GPU
//! picks any order, see `docs/semantics.md`, "Atomics"). The element operation of each
//! lane is [`crate::semantics::atomic`]'s, which the simulator runs too.

use crate::ir::{AtomicOp, ScalarType, cas_accepts};
use crate::semantics::atomic::{AtomKind, cas_bits, rmw_bits};

use super::access::lanes_on;
use super::error::Access;
use super::memory::{Memory, check_align};
use super::value::{Data, Trap, unsupported};

/// The element type and raw bits (zero-extended) of a block of values.
fn to_bits(d: &Data) -> Result<(ScalarType, Vec<u64>), Trap> {
    Ok(match d {
        Data::I32(v) => (ScalarType::I32, v.iter().map(|x| u64::from(*x as u32)).collect()),
        Data::I64(v) => (ScalarType::I64, v.iter().map(|x| *x as u64).collect()),
        Data::F32(v) => (ScalarType::F32, v.iter().map(|x| u64::from(x.to_bits())).collect()),
        Data::U32(v) => (ScalarType::U32, v.iter().map(|x| u64::from(*x)).collect()),
        Data::U64(v) => (ScalarType::U64, v.clone()),
        // `AtomicOp::accepts` refuses the others (PTX has no 8/16-bit atomics but f16 add,
        // which rtriton does not offer yet).
        _ => return unsupported(format!("an atomic on {} elements", d.kind())),
    })
}

/// A block of `elem` values from raw bits.
fn from_bits(elem: ScalarType, bits: Vec<u64>) -> Result<Data, Trap> {
    Ok(match elem {
        ScalarType::I32 => Data::I32(bits.into_iter().map(|b| b as u32 as i32).collect()),
        ScalarType::I64 => Data::I64(bits.into_iter().map(|b| b as i64).collect()),
        ScalarType::F32 => Data::F32(bits.into_iter().map(|b| f32::from_bits(b as u32)).collect()),
        ScalarType::U32 => Data::U32(bits.into_iter().map(|b| b as u32).collect()),
        ScalarType::U64 => Data::U64(bits),
        ScalarType::Bool
        | ScalarType::I8
        | ScalarType::I16
        | ScalarType::U8
        | ScalarType::F16
        | ScalarType::BF16
        | ScalarType::F64
        | ScalarType::F8E4M3
        | ScalarType::F8E5M2 => return unsupported(format!("an atomic on {elem} elements")),
    })
}

/// Applies `update(lane, old bits) -> new bits` to the element of every lane that is on,
/// in row-major lane order; returns the old bits (0 for lanes that are off).
fn each_lane(
    mem: &mut Memory,
    addrs: &[u64],
    on: &[bool],
    width: u32,
    mut update: impl FnMut(usize, u64) -> u64,
) -> Result<Vec<u64>, Trap> {
    let bytes = u64::from(width / 8);
    let mut old = vec![0u64; addrs.len()];
    for lane in (0..addrs.len()).filter(|&l| on[l]) {
        let fault = |error| Trap::Memory { access: Access::Atomic, lane, error };
        check_align(addrs[lane], bytes).map_err(fault)?;
        let slot = mem.read_bytes(addrs[lane], bytes as usize).map_err(fault)?;
        let mut buf = [0u8; 8];
        buf[..slot.len()].copy_from_slice(slot);
        let o = u64::from_le_bytes(buf);
        let new = update(lane, o).to_le_bytes();
        mem.write_bytes(addrs[lane], &new[..bytes as usize]).map_err(fault)?;
        old[lane] = o;
    }
    Ok(old)
}

/// The interpreter's [`AtomicOp`] on a block: for every lane whose mask is true, the
/// hardware atomic [`AtomKind::of`] gives for the operand's sign, applied to memory; the
/// result is the old values (0 where the mask is false, a defined value where the GPU's
/// is unspecified).
pub(crate) fn rmw(mem: &mut Memory, op: AtomicOp, ptr: &Data, value: &Data, mask: Option<&Data>) -> Result<Data, Trap> {
    let Data::Ptr(addrs) = ptr else { return unsupported(format!("{} on {}", op.name(), ptr.kind())) };
    let (elem, vals) = to_bits(value)?;
    if vals.len() != addrs.len() {
        return unsupported(format!("{} of {} values through {} pointers", op.name(), vals.len(), addrs.len()));
    }
    let Some((clear, set)) = AtomKind::of(op, elem) else {
        return unsupported(format!("{} on {elem}", op.name()));
    };
    let width = elem.size_bytes() as u32 * 8;
    let on = lanes_on(mask, addrs.len())?;
    let old = each_lane(mem, addrs, &on, width, |lane, o| {
        let kind = if vals[lane] >> (width - 1) & 1 == 1 { set } else { clear };
        rmw_bits(kind, width, o, vals[lane])
    })?;
    from_bits(elem, old)
}

/// The interpreter's `atomic_cas` on a block: every lane, in row-major order.
pub(crate) fn cas(mem: &mut Memory, ptr: &Data, cmp: &Data, value: &Data) -> Result<Data, Trap> {
    let Data::Ptr(addrs) = ptr else { return unsupported(format!("atomic_cas on {}", ptr.kind())) };
    let (elem, cmps) = to_bits(cmp)?;
    let (_, vals) = to_bits(value)?;
    if !cas_accepts(elem) || cmps.len() != addrs.len() || vals.len() != addrs.len() {
        return unsupported(format!("atomic_cas of {} {elem} values through {} pointers", vals.len(), addrs.len()));
    }
    let width = elem.size_bytes() as u32 * 8;
    let old =
        each_lane(mem, addrs, &vec![true; addrs.len()], width, |lane, o| cas_bits(width, o, cmps[lane], vals[lane]))?;
    from_bits(elem, old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_off_lanes_are_untouched_and_return_zero() {
        let mut mem = Memory::new();
        let a = mem.alloc_i32(&[10, 20, 30]);
        let ptr = Data::Ptr(vec![a, a + 4, 0xdead_0000]);
        let mask = Data::Bool(vec![true, false, false]);
        let old = rmw(&mut mem, AtomicOp::Add, &ptr, &Data::I32(vec![1, 1, 1]), Some(&mask)).unwrap();
        assert_eq!(old, Data::I32(vec![10, 0, 0]));
        assert_eq!(mem.read_i32(a, 3).unwrap(), vec![11, 20, 30]);
        // Lanes hitting one address apply in row-major order: the old values count up.
        let same = Data::Ptr(vec![a; 3]);
        let old = rmw(&mut mem, AtomicOp::Add, &same, &Data::I32(vec![1, 1, 1]), None).unwrap();
        assert_eq!(old, Data::I32(vec![11, 12, 13]));
        let err = rmw(&mut mem, AtomicOp::Add, &Data::Ptr(vec![a + 2]), &Data::I32(vec![1]), None).unwrap_err();
        assert!(matches!(err, Trap::Memory { access: Access::Atomic, lane: 0, .. }), "{err:?}");
    }
}
