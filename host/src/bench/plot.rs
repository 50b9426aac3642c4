//! `rtriton bench --plot FILE.svg`: GB/s per shape per implementation as grouped bars (one
//! group per shape, one colour per kernel or peer, a legend), so a run can be looked at
//! rather than read. Only timed kernel rows are drawn: the copy yardstick counts read and
//! written bytes and is left to the table, and a wrong or failed kernel has no time.

use std::path::Path;

use plotters::prelude::*;

use super::{BenchRow, RowKind};

/// One bar: shape index, implementation index, GB/s.
type Bar = (usize, usize, f64);

/// Shapes and implementations in order of first appearance, and the GB/s of each pair.
fn series(rows: &[BenchRow]) -> (Vec<String>, Vec<String>, Vec<Bar>) {
    let (mut shapes, mut kernels, mut bars) = (Vec::<String>::new(), Vec::<String>::new(), Vec::new());
    let index = |v: &mut Vec<String>, s: &str| match v.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            v.push(s.to_string());
            v.len() - 1
        }
    };
    for r in rows.iter().filter(|r| r.kind != RowKind::Copy) {
        let Some(gb) = r.gb_per_s else { continue };
        let name = if r.kind == RowKind::Peer { format!("{} (peer)", r.kernel) } else { r.kernel.clone() };
        let (s, k) = (index(&mut shapes, &r.shape), index(&mut kernels, &name));
        bars.push((s, k, gb));
    }
    (shapes, kernels, bars)
}

/// Writes the chart to `path` (SVG); the error is a sentence naming the file.
pub fn write_svg(rows: &[BenchRow], title: &str, path: &Path) -> Result<(), String> {
    let (shapes, kernels, bars) = series(rows);
    if bars.is_empty() {
        return Err(format!("--plot {}: no timed kernel to draw", path.display()));
    }
    let fail = |e: &dyn std::fmt::Display| format!("--plot {}: {e}", path.display());
    let width = (150 * shapes.len() as u32).max(900) + 260;
    let root = SVGBackend::new(path, (width, 640)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let top = bars.iter().map(|b| b.2).fold(0.0f64, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .right_y_label_area_size(0)
        .build_cartesian_2d(0f64..shapes.len() as f64 + 1.6, 0f64..top)
        .map_err(|e| fail(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("GB/s (rows x cols x 4 bytes / median time)")
        .draw()
        .map_err(|e| fail(&e))?;
    let width_of_bar = 0.8 / kernels.len() as f64;
    for (k, name) in kernels.iter().enumerate() {
        let colour = Palette99::pick(k).to_rgba();
        let mine = bars.iter().filter(|b| b.1 == k).map(|&(s, _, gb)| {
            let x0 = s as f64 + 0.1 + k as f64 * width_of_bar;
            Rectangle::new([(x0, 0.0), (x0 + width_of_bar, gb)], colour.filled())
        });
        chart
            .draw_series(mine)
            .map_err(|e| fail(&e))?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], colour.filled()));
    }
    let label = ("sans-serif", 12).into_font();
    chart
        .draw_series(
            shapes.iter().enumerate().map(|(s, name)| {
                EmptyElement::at((s as f64 + 0.1, 0.0)) + Text::new(name.clone(), (0, 8), label.clone())
            }),
        )
        .map_err(|e| fail(&e))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| fail(&e))?;
    root.present().map_err(|e| fail(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::gpu::row;
    use crate::bench::{BenchShape, BenchStatus, Summary, derive_ratios};

    fn timed(ms: f64) -> BenchStatus {
        BenchStatus::Timed {
            summary: Summary { samples: 3, median_ms: ms, p10_ms: ms, p90_ms: ms, min_ms: ms, max_ms: ms },
        }
    }

    #[test]
    fn the_chart_has_a_bar_per_timed_kernel_and_shape_a_label_per_shape_and_a_legend() {
        let (a, b) = (BenchShape::parse("8192x8192").unwrap(), BenchShape::parse("8192x16384:T").unwrap());
        let mut rows = vec![
            row(&a, "cuda_reference", RowKind::Reference, timed(0.08)),
            row(&a, "row_max", RowKind::Variant, timed(0.07)),
            row(&a, "d2d_copy", RowKind::Copy, timed(0.1)),
            row(&b, "cuda_reference", RowKind::Reference, timed(0.3)),
            row(&b, "row_max", RowKind::Variant, BenchStatus::CannotRun { reason: "block".into() }),
            row(&b, "torch.amax", RowKind::Peer, timed(0.05)),
        ];
        derive_ratios(&mut rows);
        let (shapes, kernels, bars) = series(&rows);
        assert_eq!(shapes, ["8192x8192", "8192x16384:T"]);
        assert_eq!(kernels, ["cuda_reference", "row_max", "torch.amax (peer)"]);
        assert_eq!(bars.len(), 4, "no bar for the copy or the kernel that cannot run");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.svg");
        write_svg(&rows, "row max, H200", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        for text in ["8192x8192", "8192x16384:T", "cuda_reference", "torch.amax (peer)", "row max, H200", "GB/s"] {
            assert!(svg.contains(text), "{text} is not in the SVG");
        }
        // Four bars and three legend swatches, each a filled <rect>, plus the background.
        assert!(svg.matches("<rect").count() >= 4 + 3, "{svg}");
    }

    #[test]
    fn nothing_timed_is_an_error_naming_the_flag() {
        let a = BenchShape::parse("3x7").unwrap();
        let rows = vec![row(&a, "row_max", RowKind::Variant, BenchStatus::Error { message: "x".into() })];
        let e = write_svg(&rows, "t", Path::new("/nonexistent/x.svg")).unwrap_err();
        assert_eq!(e, "--plot /nonexistent/x.svg: no timed kernel to draw");
    }
}
