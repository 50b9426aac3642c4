use rtriton::spec::*;
use rtriton::trace::TraceOptions;
use rtriton_kernels::RowMaxVariant;
use rtriton_kernels::cases::SHAPE_MATRIX;
#[test]
fn dump() {
    let dir = "/work/wt-ptx/gpucheck";
    let mut manifest = String::new();
    let mut n = 0;
    for v in RowMaxVariant::ALL {
        for case in SHAPE_MATRIX {
            let l = case.layout();
            // Base address: 256-aligned allocation plus the view offset.
            let base = 0x7f00_0000_0000u64 + l.offset as u64 * 4;
            let args = [
                ArgValue::Ptr(base),
                ArgValue::Ptr(0x7f00_0100_0000),
                ArgValue::Int(case.n_rows as i64),
                ArgValue::Int(case.n_cols as i64),
                ArgValue::Int(l.stride_row as i64),
                ArgValue::Int(l.stride_col as i64),
            ];
            let c = v.constexprs_for(case.n_rows, case.n_cols);
            for (pol, tag) in [(SpecPolicy::Triton, "spec"), (SpecPolicy::Off, "off")] {
                for nw in [1u32, 4, 8] {
                    let (k, info) =
                        rtriton::pipeline::specialize_and_trace(&v.def(), &c, &args, pol, &TraceOptions::default())
                            .unwrap();
                    let opts = rtriton::backend::ptx::PtxOptions { num_warps: nw, ..Default::default() };
                    let p = match rtriton::backend::ptx::compile(&k, &info, &opts) {
                        Ok(p) => p,
                        Err(e) => {
                            println!("skip {} {}: {e}", v.name(), case.name);
                            continue;
                        }
                    };
                    let file = format!("k{n}.ptx");
                    std::fs::write(format!("{dir}/{file}"), &p.text).unwrap();
                    let grid = v.grid(case.n_rows, &c);
                    manifest.push_str(&format!(
                        "{file} {} {} {grid} {} {} {} {} {} {} {:?} {} {} {nw}\n",
                        p.entry,
                        p.threads_per_cta,
                        case.n_rows,
                        case.n_cols,
                        l.stride_row,
                        l.stride_col,
                        l.offset,
                        l.buffer_len,
                        case.fill,
                        tag,
                        case.name
                    ));
                    n += 1;
                }
            }
        }
    }
    std::fs::write(format!("{dir}/manifest.txt"), manifest).unwrap();
}
