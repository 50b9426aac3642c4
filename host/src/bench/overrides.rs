//! Launch overrides of `bench --kernel` (`--set NAME=V`, `--warps W`, `--programs N|X,Y[,Z]`,
//! `--launch I`): measure a port's point under another configuration than its plan's,
//! without a rebuild, so one GPU run can compare several (the plans' constants are
//! chosen from such comparisons). Every overridden launch is still checked against the
//! suite's CPU reference before it is timed: a configuration that computes something
//! else (a grid that misses programs, a block the kernel cannot take) is a `MISMATCH` or
//! `ERROR` row, never a time. The report's heading and every row's `config` say what was
//! overridden.

use rtriton_testing::{Case, Suite};

/// What to change in the launches of every selected point.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Constexpr values (`--set NAME=V`): each must be declared by at least one of the
    /// launches it applies to.
    pub constexprs: Vec<(String, i64)>,
    /// Warps of each launch (`--warps`).
    pub num_warps: Option<u32>,
    /// Programs along the grid's first one to three axes (`--programs N` or `X,Y[,Z]`);
    /// the axes not given keep the plan's.
    pub programs: Option<Vec<u32>>,
    /// CTAs an SM should hold (`--min-ctas`, PTX `.minnctapersm`: a register bound).
    pub min_ctas_per_sm: Option<u32>,
    /// Only this launch of each point (0-based, `--launch`; the layer norm backward's
    /// point is two launches); `None`: every launch.
    pub launch: Option<usize>,
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        self.constexprs.is_empty()
            && self.num_warps.is_none()
            && self.programs.is_none()
            && self.min_ctas_per_sm.is_none()
    }

    /// `NAME=V` (an integer, as `rtriton ptx --const` takes it).
    pub fn parse_set(text: &str) -> Result<(String, i64), String> {
        let (name, value) =
            text.split_once('=').ok_or_else(|| format!("--set {text}: expected NAME=V, e.g. BLOCK_SIZE=4096"))?;
        let value =
            value.trim().parse::<i64>().map_err(|e| format!("--set {text}: the value is not an integer ({e})"))?;
        constexpr_name(name.trim()).map(|n| (n, value)).map_err(|e| format!("--set {text}: {e}"))
    }

    /// `N`, `X,Y` or `X,Y,Z`: programs along the grid's first one to three axes, each at
    /// least 1.
    pub fn parse_programs(text: &str) -> Result<Vec<u32>, String> {
        let axes: Vec<&str> = text.split(',').map(str::trim).collect();
        if axes.len() > 3 {
            return Err(format!("`{text}`: a grid has 3 axes; give N, X,Y or X,Y,Z"));
        }
        axes.iter()
            .map(|a| {
                let digits = !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit());
                match a.parse::<u32>() {
                    Ok(n) if n >= 1 => Ok(n),
                    Ok(_) => Err(format!("`{text}`: a grid axis needs at least 1 program, not `{a}`")),
                    Err(_) if digits => Err(format!(
                        "`{text}`: `{a}` is too large; a grid axis takes at most {} programs (the device's own limit, \
                         checked at launch, is 2147483647 along x and 65535 along y and z)",
                        u32::MAX
                    )),
                    Err(_) => Err(format!("`{text}`: `{a}` is not a count of programs (a whole number from 1)")),
                }
            })
            .collect()
    }

    /// The flags as given, for the report's heading and the rows' `config`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.constexprs.iter().map(|(n, v)| format!("--set {n}={v}")).collect();
        if let Some(w) = self.num_warps {
            parts.push(format!("--warps {w}"));
        }
        if let Some(p) = &self.programs {
            let axes: Vec<String> = p.iter().map(u32::to_string).collect();
            parts.push(format!("--programs {}", axes.join(",")));
        }
        if let Some(m) = self.min_ctas_per_sm {
            parts.push(format!("--min-ctas {m}"));
        }
        if let Some(l) = self.launch {
            parts.push(format!("--launch {l}"));
        }
        parts.join(" ")
    }

    /// Applies the overrides to one point's launches, or says why they do not fit it (a
    /// launch index past its launches, a constexpr none of the targeted kernels declares).
    pub fn apply(&self, launches: &mut [(Suite, Case)]) -> Result<(), String> {
        if self.is_empty() {
            return Ok(());
        }
        let n = launches.len();
        let targets: Vec<usize> = match self.launch {
            Some(i) if i >= n => return Err(format!("--launch {i}: this point has {n} launch(es), numbered from 0")),
            Some(i) => vec![i],
            None => (0..n).collect(),
        };
        for (name, value) in &self.constexprs {
            let mut matched = false;
            for &i in &targets {
                let case = &mut launches[i].1;
                for (declared, v) in case.constexprs.iter_mut() {
                    if *declared == name.as_str() {
                        *v = *value;
                        matched = true;
                    }
                }
            }
            if !matched {
                let declared: Vec<String> = targets
                    .iter()
                    .map(|&i| {
                        let names: Vec<&str> = launches[i].1.constexprs.iter().map(|(d, _)| *d).collect();
                        format!(
                            "{}: {}",
                            launches[i].0.def.name,
                            if names.is_empty() { "none".into() } else { names.join(", ") }
                        )
                    })
                    .collect();
                return Err(format!(
                    "--set {name}: no launch it applies to declares it (constexprs of {})",
                    declared.join("; ")
                ));
            }
        }
        for &i in &targets {
            let case = &mut launches[i].1;
            if let Some(w) = self.num_warps {
                case.num_warps = w;
            }
            if let Some(p) = &self.programs {
                // `parse_programs` gives at most 3 axes; zip keeps a longer list from panicking.
                case.grid.iter_mut().zip(p).for_each(|(axis, &n)| *axis = n);
            }
            if let Some(m) = self.min_ctas_per_sm {
                case.min_ctas_per_sm = m;
            }
        }
        Ok(())
    }
}

/// A constexpr name as kernels declare them: an identifier.
fn constexpr_name(name: &str) -> Result<String, String> {
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if ok { Ok(name.to_string()) } else { Err(format!("`{name}` is not a constexpr name")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtriton_kernels::ports::vector_add::add_kernel;
    use rtriton_testing::View;

    fn launches() -> Vec<(Suite, Case)> {
        let case = |block: i64| {
            Case::new("c")
                .input("x", vec![1.0f32; 8], View::contiguous(&[8]))
                .constexpr("BLOCK_SIZE", block)
                .num_warps(4)
                .grid([8, 1, 1])
        };
        vec![(Suite::new(add_kernel()), case(1)), (Suite::new(add_kernel()), case(2))]
    }

    #[test]
    fn sets_parse_and_describe_themselves() {
        assert_eq!(Overrides::parse_set("BLOCK_SIZE=4096"), Ok(("BLOCK_SIZE".into(), 4096)));
        assert_eq!(Overrides::parse_set(" UNROLL = 2"), Ok(("UNROLL".into(), 2)));
        for bad in ["BLOCK_SIZE", "BLOCK_SIZE=big", "=4", "1X=2", "A-B=3"] {
            let e = Overrides::parse_set(bad).unwrap_err();
            assert!(e.starts_with(&format!("--set {bad}:")), "{e}");
        }
        let o = Overrides {
            constexprs: vec![("BLOCK_SIZE".into(), 4096)],
            num_warps: Some(8),
            programs: Some(vec![132]),
            min_ctas_per_sm: Some(2),
            launch: Some(1),
        };
        assert_eq!(o.describe(), "--set BLOCK_SIZE=4096 --warps 8 --programs 132 --min-ctas 2 --launch 1");
        let o = Overrides { programs: Some(vec![2, 2048]), ..Overrides::default() };
        assert_eq!(o.describe(), "--programs 2,2048");
        assert!(Overrides::default().is_empty());
    }

    #[test]
    fn overrides_change_the_targeted_launches_only() {
        let mut l = launches();
        let o = Overrides {
            constexprs: vec![("BLOCK_SIZE".into(), 64)],
            num_warps: Some(8),
            programs: Some(vec![3]),
            min_ctas_per_sm: Some(2),
            launch: Some(1),
        };
        o.apply(&mut l).unwrap();
        assert_eq!((l[0].1.min_ctas_per_sm, l[1].1.min_ctas_per_sm), (0, 2));
        assert_eq!((l[0].1.constexprs.clone(), l[0].1.num_warps, l[0].1.grid), (vec![("BLOCK_SIZE", 1)], 4, [8, 1, 1]));
        assert_eq!(
            (l[1].1.constexprs.clone(), l[1].1.num_warps, l[1].1.grid),
            (vec![("BLOCK_SIZE", 64)], 8, [3, 1, 1])
        );
        let mut all = launches();
        Overrides { num_warps: Some(2), ..Overrides::default() }.apply(&mut all).unwrap();
        assert!(all.iter().all(|(_, c)| c.num_warps == 2));
        let mut two = launches();
        Overrides { programs: Some(vec![2, 5]), ..Overrides::default() }.apply(&mut two).unwrap();
        assert!(two.iter().all(|(_, c)| c.grid == [2, 5, 1]));
    }

    #[test]
    fn programs_parse_one_to_three_axes() {
        assert_eq!(Overrides::parse_programs("132"), Ok(vec![132]));
        assert_eq!(Overrides::parse_programs("2, 2048"), Ok(vec![2, 2048]));
        assert_eq!(Overrides::parse_programs("1,2,3"), Ok(vec![1, 2, 3]));
        assert_eq!(Overrides::parse_programs("4294967295"), Ok(vec![u32::MAX]));
        for (bad, says) in [
            ("0", "`0`: a grid axis needs at least 1 program, not `0`"),
            ("1,2,3,4", "3 axes"),
            ("x", "`x` is not a count of programs (a whole number from 1)"),
            ("4,", "`` is not"),
            ("-1", "`-1` is not a count"),
            (
                "4294967296",
                "`4294967296`: `4294967296` is too large; a grid axis takes at most 4294967295 programs (the device's \
                 own limit, checked at launch, is 2147483647 along x and 65535 along y and z)",
            ),
            ("1,99999999999999999999999", "`99999999999999999999999` is too large"),
        ] {
            let e = Overrides::parse_programs(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn overrides_that_fit_no_launch_say_why() {
        let o = Overrides { constexprs: vec![("BLOCK_M".into(), 4)], ..Overrides::default() };
        let e = o.apply(&mut launches()).unwrap_err();
        assert_eq!(
            e,
            "--set BLOCK_M: no launch it applies to declares it (constexprs of add_kernel: BLOCK_SIZE; add_kernel: BLOCK_SIZE)"
        );
        let o = Overrides { num_warps: Some(8), launch: Some(2), ..Overrides::default() };
        assert_eq!(o.apply(&mut launches()).unwrap_err(), "--launch 2: this point has 2 launch(es), numbered from 0");
    }
}
