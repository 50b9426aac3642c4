//! Tensor maps encoded for a launch: each of a kernel's [`TensorMap`] recipes applied to
//! the launch's parameters and handed to `cuTensorMapEncodeTiled`, giving the 128 bytes the
//! kernel's tensor copies read (passed after the kernel's own parameters).

use cudarc::driver::sys::{
    self, CUresult, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use rtriton::backend::ptx::tensor_map::TensorMap;
use rtriton::ir::ScalarType;
use rtriton::spec::ArgValue;

use super::RawParam;
use crate::error::HostError;

/// `map` for a launch with `params` (the kernel's own, in PTX order).
pub fn encode(entry: &str, map: &TensorMap, params: &[RawParam]) -> Result<CUtensorMap, HostError> {
    let args: Vec<ArgValue> = params
        .iter()
        .map(|p| match *p {
            RawParam::Ptr(a) => ArgValue::Ptr(a),
            RawParam::I32(v) => ArgValue::Int(i64::from(v)),
            RawParam::I64(v) => ArgValue::Int(v),
            RawParam::F32(x) => ArgValue::F32(x),
        })
        .collect();
    let refuse = |why: String| HostError::Driver {
        op: "cuTensorMapEncodeTiled",
        message: format!(
            "kernel `{entry}`: a tensor descriptor its tensor copies read cannot be encoded for these arguments: {why}; pass a tensor whose base is 16-byte aligned and whose rows are multiples of 16 bytes apart, or compile for sm_86 (Arch::Sm86), which copies without tensor maps"
        ),
    };
    let r = map.resolve(&args).map_err(refuse)?;
    let data_type = match map.elem {
        ScalarType::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        ScalarType::BF16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        ScalarType::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        other => return Err(refuse(format!("its elements are {other}"))),
    };
    let swizzle = match map.swizzle {
        32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        other => return Err(refuse(format!("a swizzle of {other} bytes"))),
    };
    // The driver lists dims innermost first.
    let dims: Vec<u64> = r.dims.iter().rev().copied().collect();
    let strides: Vec<u64> = r.byte_strides.iter().rev().copied().collect();
    let boxes: Vec<u32> = map.box_dims.iter().rev().copied().collect();
    let element_strides = vec![1u32; dims.len()];
    let mut out = CUtensorMap { opaque: [0; 16] };
    // SAFETY: every array holds `rank` entries (`rank - 1` for the strides), as the
    // driver reads them; `out` is a writable, 64-byte aligned map.
    let result = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut out,
            data_type,
            dims.len() as u32,
            r.address as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    if result != CUresult::CUDA_SUCCESS {
        return Err(refuse(format!("the driver answered {result:?}")));
    }
    Ok(out)
}
