//! Loads and stores of whole blocks: every lane whose mask is true (every lane when there
//! is no mask) reads or writes its element, checked against the buffers of [`Memory`];
//! masked-off lanes never touch memory. Lanes run in row-major order; when two lanes of
//! one store hit one address the later lane's value stays (the GPU leaves it
//! unspecified). After a fault, memory is unspecified (the GPU aborts the launch).

use half::{bf16, f16};

use crate::ir::ScalarType;
use crate::semantics::fp8_types::{F8E4M3, F8E5M2};

use super::error::Access;
use super::memory::{Memory, MemoryError, check_align};
use super::value::{Data, Trap, unsupported};

/// Bytes of one element of type `t` in memory (`i1` is one byte, 0 or 1).
fn elem_bytes(t: ScalarType) -> u64 {
    t.size_bytes()
}

/// A read cursor that remembers the last buffer it used, so that a block of lanes in one
/// buffer costs one buffer lookup.
struct Reader<'m> {
    mem: &'m Memory,
    base: u64,
    data: &'m [u8],
}

impl<'m> Reader<'m> {
    fn bytes(&mut self, addr: u64, n: u64) -> Result<&'m [u8], MemoryError> {
        check_align(addr, n)?;
        let inside = addr >= self.base && addr.checked_add(n).is_some_and(|e| e <= self.base + self.data.len() as u64);
        if !inside {
            let (base, data) = self.mem.locate(addr, n)?;
            self.base = base;
            self.data = data;
        }
        let start = (addr - self.base) as usize;
        Ok(&self.data[start..start + n as usize])
    }
}

pub(super) fn lanes_on(mask: Option<&Data>, n: usize) -> Result<Vec<bool>, Trap> {
    match mask {
        None => Ok(vec![true; n]),
        Some(Data::Bool(m)) if m.len() == n => Ok(m.clone()),
        Some(m) => unsupported(format!("a mask of {} {} elements for {n} pointers", m.len(), m.kind())),
    }
}

/// Reads `ptr`'s pointees of type `elem`; masked-off lanes give `other`, or 0 when there
/// is none (the GPU leaves them unspecified).
pub(crate) fn load(
    mem: &Memory,
    ptr: &Data,
    mask: Option<&Data>,
    other: Option<&Data>,
    elem: ScalarType,
) -> Result<Data, Trap> {
    let Data::Ptr(addrs) = ptr else { return unsupported(format!("load from {}", ptr.kind())) };
    let on = lanes_on(mask, addrs.len())?;
    let size = elem_bytes(elem);
    let mut reader = Reader { mem, base: 0, data: &[] };
    let mut read = |lane: usize| -> Result<&[u8], Trap> {
        reader.bytes(addrs[lane], size).map_err(|error| Trap::Memory { access: Access::Load, lane, error })
    };
    macro_rules! read_all {
        ($variant:ident, $t:ty, $decode:expr, $zero:expr) => {{
            let fallback: Vec<$t> = match other {
                Some(Data::$variant(o)) if o.len() == addrs.len() => o.clone(),
                Some(o) => return unsupported(format!("a load of {} with {} `other` values", elem, o.kind())),
                None => vec![$zero; addrs.len()],
            };
            let mut out = fallback;
            for lane in 0..addrs.len() {
                if on[lane] {
                    out[lane] = $decode(read(lane)?);
                }
            }
            Data::$variant(out)
        }};
    }
    Ok(match elem {
        ScalarType::Bool => read_all!(Bool, bool, |b: &[u8]| b[0] != 0, false),
        ScalarType::I32 => read_all!(I32, i32, |b: &[u8]| i32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0),
        ScalarType::F32 => read_all!(F32, f32, |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0.0),
        ScalarType::I64 => {
            read_all!(I64, i64, |b: &[u8]| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]), 0)
        }
        ScalarType::I8 => read_all!(I8, i8, |b: &[u8]| i8::from_le_bytes([b[0]]), 0),
        ScalarType::U8 => read_all!(U8, u8, |b: &[u8]| b[0], 0),
        ScalarType::F8E4M3 => read_all!(F8E4M3, F8E4M3, |b: &[u8]| F8E4M3::from_bits(b[0]), F8E4M3::default()),
        ScalarType::F8E5M2 => read_all!(F8E5M2, F8E5M2, |b: &[u8]| F8E5M2::from_bits(b[0]), F8E5M2::default()),
        ScalarType::I16 => read_all!(I16, i16, |b: &[u8]| i16::from_le_bytes([b[0], b[1]]), 0),
        ScalarType::F16 => read_all!(F16, f16, |b: &[u8]| f16::from_le_bytes([b[0], b[1]]), f16::ZERO),
        ScalarType::BF16 => read_all!(BF16, bf16, |b: &[u8]| bf16::from_le_bytes([b[0], b[1]]), bf16::ZERO),
        ScalarType::U32 => read_all!(U32, u32, |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0),
        ScalarType::U64 => {
            read_all!(U64, u64, |b: &[u8]| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]), 0)
        }
        ScalarType::F64 => {
            read_all!(F64, f64, |b: &[u8]| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]), 0.0)
        }
    })
}

/// Copies one element's little-endian bytes into the front of `buf`.
fn put<'b>(buf: &'b mut [u8; 8], bytes: &[u8]) -> &'b [u8] {
    buf[..bytes.len()].copy_from_slice(bytes);
    &buf[..bytes.len()]
}

/// Writes `value` to `ptr` for the lanes whose mask is true.
pub(crate) fn store(mem: &mut Memory, ptr: &Data, value: &Data, mask: Option<&Data>) -> Result<(), Trap> {
    let Data::Ptr(addrs) = ptr else { return unsupported(format!("store to {}", ptr.kind())) };
    if value.len() != addrs.len() {
        return unsupported(format!("a store of {} values through {} pointers", value.len(), addrs.len()));
    }
    let on = lanes_on(mask, addrs.len())?;
    for lane in (0..addrs.len()).filter(|&l| on[l]) {
        let mut buf = [0u8; 8];
        let bytes: &[u8] = match value {
            Data::Bool(v) => {
                buf[0] = u8::from(v[lane]);
                &buf[..1]
            }
            Data::I32(v) => {
                buf[..4].copy_from_slice(&v[lane].to_le_bytes());
                &buf[..4]
            }
            Data::F32(v) => {
                buf[..4].copy_from_slice(&v[lane].to_le_bytes());
                &buf[..4]
            }
            Data::I64(v) => {
                buf.copy_from_slice(&v[lane].to_le_bytes());
                &buf[..]
            }
            Data::I8(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::U8(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::I16(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::F16(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::BF16(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::U32(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::U64(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::F64(v) => put(&mut buf, &v[lane].to_le_bytes()),
            Data::F8E4M3(v) => put(&mut buf, &[v[lane].to_bits()]),
            Data::F8E5M2(v) => put(&mut buf, &[v[lane].to_bits()]),
            Data::Ptr(_) => return unsupported("a store of pointers"),
        };
        let addr = addrs[lane];
        let fault = |error| Trap::Memory { access: Access::Store, lane, error };
        check_align(addr, bytes.len() as u64).map_err(fault)?;
        mem.write_bytes(addr, bytes).map_err(fault)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_off_lanes_never_touch_memory() {
        let mut mem = Memory::new();
        let a = mem.alloc_f32(&[1.0, 2.0]);
        // Lane 2 points far outside any buffer but is masked off.
        let ptr = Data::Ptr(vec![a, a + 4, 0xdead_0000]);
        let mask = Data::Bool(vec![true, true, false]);
        let other = Data::F32(vec![-1.0; 3]);
        let got = load(&mem, &ptr, Some(&mask), Some(&other), ScalarType::F32).unwrap();
        assert_eq!(got, Data::F32(vec![1.0, 2.0, -1.0]));
        store(&mut mem, &ptr, &Data::F32(vec![5.0, 6.0, 7.0]), Some(&mask)).unwrap();
        assert_eq!(mem.read_f32(a, 2).unwrap(), vec![5.0, 6.0]);
    }

    #[test]
    fn unmasked_out_of_bounds_lane_is_reported() {
        let mut mem = Memory::new();
        let a = mem.alloc_f32(&[1.0, 2.0]);
        let ptr = Data::Ptr(vec![a, a + 4, a + 8]);
        let err = load(&mem, &ptr, None, None, ScalarType::F32).unwrap_err();
        assert!(matches!(err, Trap::Memory { access: Access::Load, lane: 2, .. }), "{err:?}");
        let err = store(&mut mem, &ptr, &Data::F32(vec![0.0; 3]), None).unwrap_err();
        assert!(matches!(err, Trap::Memory { access: Access::Store, lane: 2, .. }), "{err:?}");
    }

    #[test]
    fn i64_and_bool_round_trip() {
        let mut mem = Memory::new();
        let a = mem.alloc(16);
        store(&mut mem, &Data::Ptr(vec![a, a + 8]), &Data::I64(vec![-3, 1 << 40]), None).unwrap();
        assert_eq!(mem.read_i64(a, 2).unwrap(), vec![-3, 1 << 40]);
        let got = load(&mem, &Data::Ptr(vec![a, a + 1]), None, None, ScalarType::Bool).unwrap();
        assert_eq!(got, Data::Bool(vec![true, true]));
    }
}
