//! The autotuned row in `rtriton bench`: `row_max_2d` (a `[BLOCK_M, BLOCK_N]` tile per
//! program, looping over the columns) tuned over tile shapes and warps by the runtime's
//! autotuner, keyed by the shape and strides, so each shape and view gets its own winner.
//! (The single row-max entry point, choosing among variants too, is separate
//! work in `rtriton-kernels`; this row shows what tuning one kernel buys.)

use rtriton_kernels::RowMaxVariant;
use rtriton_runtime::autotune::{Autotuned, Config};

use crate::launch::JitKernel;

/// The name of the row in tables and JSON.
pub const AUTOTUNED_NAME: &str = "row_max_2d (autotuned)";

/// The tile shapes tried: one wide row per program for few wide rows, square-ish tiles for
/// large inputs, tall tiles for narrow rows and transposed views.
pub fn row_max_2d_configs() -> Vec<Config> {
    [(1, 2048, 8), (1, 1024, 4), (2, 1024, 8), (4, 512, 4), (8, 128, 4), (16, 64, 4), (64, 16, 4), (128, 8, 4)]
        .into_iter()
        .map(|(m, n, w)| Config::new(&[("BLOCK_M", m), ("BLOCK_N", n)]).num_warps(w))
        .collect()
}

/// `row_max_2d` autotuned for `n_rows` rows (the grid is `cdiv(n_rows, BLOCK_M)`), keyed by
/// `n_rows, n_cols, stride_row, stride_col`; `y_ptr` is restored between configurations.
/// Settings come from the environment (`RTRITON_AUTOTUNE`, `RTRITON_PRINT_AUTOTUNING`).
pub fn row_max_2d_autotuned(n_rows: usize) -> Autotuned {
    let base = JitKernel::new(RowMaxVariant::RowMax2d.def())
        .try_grid(move |m| Ok([(n_rows as u64).div_ceil(m.get("BLOCK_M").ok_or("BLOCK_M")?.max(1) as u64), 1, 1]));
    Autotuned::new(base, row_max_2d_configs(), &["n_rows", "n_cols", "stride_row", "stride_col"])
        .restore_value(&["y_ptr"])
}

#[cfg(test)]
mod tests {
    use rtriton::backend::ptx::PtxOptions;
    use rtriton::session::CompileSession;
    use rtriton::spec::{ArgValue, SpecKey, SpecPolicy};

    use super::*;

    /// Every configuration compiles for a contiguous and a transposed view (a refusal
    /// would only be skipped while tuning, but a declared configuration should run), and
    /// the declaration passes the autotuner's checks.
    #[test]
    fn every_configuration_compiles_and_the_declaration_checks() {
        let k = row_max_2d_autotuned(4096).settings(rtriton_runtime::autotune::Settings::in_memory());
        k.check().unwrap();
        let def = RowMaxVariant::RowMax2d.def();
        let mut session = CompileSession::new();
        for strides in [[1000i64, 1], [1, 4096]] {
            let args = [
                ArgValue::Ptr(0x7f00_0000_0000),
                ArgValue::Ptr(0x7f10_0000_0000),
                ArgValue::Int(4096),
                ArgValue::Int(1000),
                ArgValue::Int(strides[0]),
                ArgValue::Int(strides[1]),
            ];
            let spec = SpecKey::from_args(def.name, &def.params, &args, SpecPolicy::Triton).unwrap();
            for c in k.configs() {
                let options = PtxOptions { num_warps: c.num_warps, ..PtxOptions::default() };
                let ptx = session.ptx(&def, &c.constexprs, &spec, &Default::default(), &options);
                assert!(ptx.is_ok(), "{c} with strides {strides:?}: {:?}", ptx.err());
            }
        }
        assert_eq!(
            k.base().grid_for_launch().unwrap_err().to_string(),
            "kernel `row_max_2d`: the grid closure needs constexpr `BLOCK_M`, which the launch does not set; add it"
        );
        let one = k.configs()[6].apply(k.base());
        assert_eq!(one.grid_for_launch().unwrap(), [4096 / 64, 1, 1]);
    }
}
