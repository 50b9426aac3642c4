//! The one parser of `NAME=V` flags (`--arg`, `--const`, `--extent`) that `ptx`, `explain`
//! and `lint` share, with one rule for defaults: a pointer argument not given is a
//! 256-byte-aligned address ([`DEFAULT_PTR`], what cudaMalloc returns), every int and float
//! argument must be given (they drive specialization), constexprs not given take the
//! kernel's defaults.
//!
//! Numbers are strict: decimal or `0x` hex, one optional leading `-` for signed values,
//! nothing else (`--16`, `+3`, `1e3`, `-0x` are refused); each type's whole range is
//! accepted (`i64::MIN`, a pointer of `0xffff_ffff_ffff_ffff`); addresses and extents are
//! never negative. A name given twice, an unknown name, an empty name or value, and text
//! without `=` are errors that name the flag and say what to do.

use anyhow::{anyhow, bail};
use rtriton::ir::{ParamKind, ScalarType};
use rtriton::spec::ArgValue;
use rtriton::trace::KernelDef;

/// The address a pointer argument takes when `--arg` does not give one (256-aligned).
pub const DEFAULT_PTR: u64 = 0x7f00_0000_0000;

/// The `NAME=V` pairs of one repeatable flag, in order; refuses malformed pairs and a
/// name given twice.
pub fn assignments<'a>(flag: &str, given: &'a [String]) -> anyhow::Result<Vec<(&'a str, &'a str)>> {
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(given.len());
    for g in given {
        let Some((name, value)) = g.split_once('=') else {
            bail!("{flag} `{g}` is not NAME=V; write it as {flag} NAME=VALUE");
        };
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() || value.is_empty() {
            bail!("{flag} `{g}` has an empty name or value; write it as {flag} NAME=VALUE");
        }
        if out.iter().any(|(n, _)| *n == name) {
            bail!("{flag} {name} is given twice; give each name once");
        }
        out.push((name, value));
    }
    Ok(out)
}

/// The magnitude of `digits` (decimal, or hex after `0x`/`0X`; `_` may group digits, as
/// in Rust literals: `0xffff_ffff`), `None` when malformed.
fn magnitude(digits: &str) -> Option<u128> {
    let (radix, body) = match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => (16, hex),
        None => (10, digits),
    };
    let grouped_well = !body.starts_with('_') && !body.ends_with('_') && !body.contains("__");
    if body.is_empty() || !grouped_well || !body.chars().all(|c| c == '_' || c.is_digit(radix)) {
        return None;
    }
    u128::from_str_radix(&body.replace('_', ""), radix).ok()
}

/// A signed integer in `i64`'s whole range.
pub fn parse_i64(flag: &str, name: &str, text: &str) -> anyhow::Result<i64> {
    let (neg, digits) = text.strip_prefix('-').map_or((false, text), |d| (true, d));
    let not_int = || {
        anyhow!(
            "{flag} {name}={text}: `{text}` is not an integer; write it in decimal or 0x hex, with at most one leading `-`"
        )
    };
    let m = magnitude(digits).ok_or_else(not_int)?;
    let v = if neg { -(m as i128) } else { m as i128 };
    i64::try_from(v).map_err(|_| anyhow!("{flag} {name}={text}: out of the i64 range {}..={}", i64::MIN, i64::MAX))
}

/// An unsigned integer in `u64`'s whole range (addresses, element counts).
pub fn parse_u64(flag: &str, name: &str, text: &str, what: &str) -> anyhow::Result<u64> {
    if text.starts_with('-') {
        bail!("{flag} {name}={text}: {what} cannot be negative; give a value from 0 to 0x{:x}", u64::MAX);
    }
    let m = magnitude(text)
        .ok_or_else(|| anyhow!("{flag} {name}={text}: `{text}` is not {what}; write it in decimal or 0x hex"))?;
    u64::try_from(m).map_err(|_| anyhow!("{flag} {name}={text}: past the largest {what}, 0x{:x}", u64::MAX))
}

fn parse_f32(flag: &str, name: &str, text: &str) -> anyhow::Result<f32> {
    let v: f32 = text.parse().map_err(|_| anyhow!("{flag} {name}={text}: `{text}` is not a float"))?;
    // `1e39` parses to inf: refuse it rather than pass a value the user did not write.
    let spelled_special = ["inf", "nan"].iter().any(|w| text.to_ascii_lowercase().contains(w));
    if !v.is_finite() && !spelled_special {
        bail!("{flag} {name}={text}: out of the f32 range (largest {:e}); write inf for infinity", f32::MAX);
    }
    Ok(v)
}

/// The launch arguments `--arg` gives, over `preset` values (a `--case`'s arguments,
/// which `--arg` overrides); pointers default to [`DEFAULT_PTR`], every other argument must
/// be given.
pub fn launch_args(def: &KernelDef, given: &[String], preset: &[Option<ArgValue>]) -> anyhow::Result<Vec<ArgValue>> {
    let mut values: Vec<Option<ArgValue>> = (0..def.params.len()).map(|i| preset.get(i).copied().flatten()).collect();
    for (name, v) in assignments("--arg", given)? {
        let (i, p) = def.param(name).ok_or_else(|| {
            anyhow!(
                "--arg {name}: kernel `{}` has no parameter `{name}`; its parameters are: {}",
                def.name,
                def.params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            )
        })?;
        values[i] = Some(match p.kind {
            ParamKind::Ptr(_) => ArgValue::Ptr(parse_u64("--arg", name, v, "an address")?),
            ParamKind::Scalar(ScalarType::F32) => ArgValue::F32(parse_f32("--arg", name, v)?),
            ParamKind::Scalar(ScalarType::I32) => {
                let x = parse_i64("--arg", name, v)?;
                if i32::try_from(x).is_err() {
                    bail!("--arg {name}={v}: out of the i32 range {}..={} of `{name}`", i32::MIN, i32::MAX);
                }
                ArgValue::Int(x)
            }
            ParamKind::Scalar(_) => ArgValue::Int(parse_i64("--arg", name, v)?),
        });
    }
    def.params
        .iter()
        .zip(values)
        .map(|(p, v)| match (v, p.kind) {
            (Some(v), _) => Ok(v),
            (None, ParamKind::Ptr(_)) => Ok(ArgValue::Ptr(DEFAULT_PTR)),
            (None, kind) => bail!(
                "missing --arg {}=<{kind}>: integer and float arguments drive specialization, give every one (pointers default to 0x{DEFAULT_PTR:x})",
                p.name
            ),
        })
        .collect()
}

/// The constexprs: `defaults` overridden by `--const` (every name must be one of the
/// kernel's constexprs).
pub fn constexprs(
    def: &KernelDef,
    given: &[String],
    defaults: Vec<(&'static str, i64)>,
) -> anyhow::Result<Vec<(&'static str, i64)>> {
    let mut out = defaults;
    for (name, v) in assignments("--const", given)? {
        let name: &'static str = def.constexprs.iter().find(|n| **n == name).copied().ok_or_else(|| {
            anyhow!(
                "--const {name}: kernel `{}` has no constexpr `{name}`; its constexprs are: {}",
                def.name,
                def.constexprs.join(", ")
            )
        })?;
        let v = parse_i64("--const", name, v)?;
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = v,
            None => out.push((name, v)),
        }
    }
    // A missing value would trace with a placeholder and report follow-on errors (an
    // empty arange) after the real one; refuse here, naming every missing constexpr.
    let missing: Vec<&str> = def.constexprs.iter().filter(|c| !out.iter().any(|(n, _)| n == *c)).copied().collect();
    if !missing.is_empty() {
        bail!(
            "kernel `{}` needs a value for constexpr{} {}: pass {}",
            def.name,
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            missing.iter().map(|c| format!("--const {c}=V")).collect::<Vec<_>>().join(" ")
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_max() -> KernelDef {
        rtriton_kernels::RowMaxVariant::RowMax.def()
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    const INTS: &[&str] = &["n_rows=4", "n_cols=16", "stride_row=16"];

    /// `--arg` values and what they parse to, or the whole error text.
    #[test]
    fn arg_values_are_strict_and_cover_every_valid_value() {
        let cases: &[(&str, Result<ArgValue, &str>)] = &[
            ("stride_col=1", Ok(ArgValue::Int(1))),
            ("stride_col=-1", Ok(ArgValue::Int(-1))),
            ("stride_col=0x10", Ok(ArgValue::Int(16))),
            (
                "stride_col=-9223372036854775808",
                Err(
                    "--arg stride_col=-9223372036854775808: out of the i32 range -2147483648..=2147483647 of `stride_col`",
                ),
            ),
            ("x_ptr=0xffffffffffffffff", Ok(ArgValue::Ptr(u64::MAX))),
            ("x_ptr=0xffff_ffff_ffff_ffff", Ok(ArgValue::Ptr(u64::MAX))),
            ("stride_col=2_147_483_647", Ok(ArgValue::Int(i32::MAX.into()))),
            ("stride_col=-2147483648", Ok(ArgValue::Int(i32::MIN.into()))),
            (
                "stride_col=2147483648",
                Err("--arg stride_col=2147483648: out of the i32 range -2147483648..=2147483647 of `stride_col`"),
            ),
            ("x_ptr=0x_ff", Err("--arg x_ptr=0x_ff: `0x_ff` is not an address; write it in decimal or 0x hex")),
            ("x_ptr=0", Ok(ArgValue::Ptr(0))),
            (
                "stride_col=--1",
                Err(
                    "--arg stride_col=--1: `--1` is not an integer; write it in decimal or 0x hex, with at most one leading `-`",
                ),
            ),
            (
                "stride_col=+1",
                Err(
                    "--arg stride_col=+1: `+1` is not an integer; write it in decimal or 0x hex, with at most one leading `-`",
                ),
            ),
            (
                "stride_col=9223372036854775808",
                Err(
                    "--arg stride_col=9223372036854775808: out of the i64 range -9223372036854775808..=9223372036854775807",
                ),
            ),
            (
                "x_ptr=-1",
                Err("--arg x_ptr=-1: an address cannot be negative; give a value from 0 to 0xffffffffffffffff"),
            ),
            (
                "x_ptr=0x1ffffffffffffffff",
                Err("--arg x_ptr=0x1ffffffffffffffff: past the largest an address, 0xffffffffffffffff"),
            ),
            ("x_ptr=0x", Err("--arg x_ptr=0x: `0x` is not an address; write it in decimal or 0x hex")),
            ("stride_col=", Err("--arg `stride_col=` has an empty name or value; write it as --arg NAME=VALUE")),
            ("stride_col", Err("--arg `stride_col` is not NAME=V; write it as --arg NAME=VALUE")),
            (
                "cols=3",
                Err(
                    "--arg cols: kernel `row_max` has no parameter `cols`; its parameters are: x_ptr, y_ptr, n_rows, n_cols, stride_row, stride_col",
                ),
            ),
        ];
        for (arg, want) in cases {
            let mut given = strings(INTS);
            if !arg.starts_with("stride_col") {
                given.push("stride_col=1".into());
            }
            given.push(arg.to_string());
            let got = launch_args(&row_max(), &given, &[]);
            match (got, want) {
                (Ok(v), Ok(w)) => {
                    let i = row_max().param(arg.split('=').next().unwrap()).unwrap().0;
                    assert_eq!(v[i], *w, "{arg}");
                }
                (Err(e), Err(w)) => assert_eq!(e.to_string(), *w, "{arg}"),
                (got, want) => panic!("{arg}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// i64 parameters take the whole i64 range (`row_max`'s are i32, so parse directly).
    #[test]
    fn i64_values_cover_the_whole_range() {
        assert_eq!(parse_i64("--arg", "n", "-9223372036854775808").unwrap(), i64::MIN);
        assert_eq!(parse_i64("--arg", "n", "0x7fff_ffff_ffff_ffff").unwrap(), i64::MAX);
        assert!(parse_i64("--arg", "n", "-9223372036854775809").is_err());
        assert_eq!(
            parse_f32("--arg", "s", "1e39").unwrap_err().to_string(),
            "--arg s=1e39: out of the f32 range (largest 3.4028235e38); write inf for infinity"
        );
        assert_eq!(parse_f32("--arg", "s", "-inf").unwrap(), f32::NEG_INFINITY);
    }

    #[test]
    fn a_name_given_twice_is_refused() {
        let given = strings(&["n_rows=4", "n_cols=16", "stride_row=16", "stride_col=1", "n_cols=8"]);
        let e = launch_args(&row_max(), &given, &[]).unwrap_err().to_string();
        assert_eq!(e, "--arg n_cols is given twice; give each name once");
    }

    #[test]
    fn pointers_default_and_ints_are_required_and_presets_are_overridden() {
        let a = launch_args(&row_max(), &strings(&["n_rows=4", "n_cols=16", "stride_row=16", "stride_col=1"]), &[])
            .unwrap();
        assert_eq!(&a[..2], [ArgValue::Ptr(DEFAULT_PTR), ArgValue::Ptr(DEFAULT_PTR)]);
        let e = launch_args(&row_max(), &strings(&["n_rows=4"]), &[]).unwrap_err().to_string();
        assert_eq!(
            e,
            "missing --arg n_cols=<i32>: integer and float arguments drive specialization, give every one (pointers default to 0x7f0000000000)"
        );
        let preset: Vec<Option<ArgValue>> = [1, 2, 3, 4, 5, 6].iter().map(|v| Some(ArgValue::Int(*v))).collect();
        let a = launch_args(&row_max(), &strings(&["n_cols=9"]), &preset).unwrap();
        assert_eq!(a[3], ArgValue::Int(9));
        assert_eq!(a[5], ArgValue::Int(6));
    }

    #[test]
    fn constexprs_override_defaults_by_name() {
        let c = constexprs(&row_max(), &strings(&["BLOCK=0x40"]), vec![("BLOCK", 1024)]).unwrap();
        assert_eq!(c, [("BLOCK", 64)]);
        let e = constexprs(&row_max(), &strings(&["BLOCK_M=4"]), vec![]).unwrap_err().to_string();
        assert_eq!(e, "--const BLOCK_M: kernel `row_max` has no constexpr `BLOCK_M`; its constexprs are: BLOCK");
        let e = constexprs(&row_max(), &strings(&["BLOCK=1", "BLOCK=2"]), vec![]).unwrap_err().to_string();
        assert_eq!(e, "--const BLOCK is given twice; give each name once");
    }

    #[test]
    fn extents_are_unsigned() {
        assert_eq!(parse_u64("--extent", "x_ptr", "2147483648", "an element count").unwrap(), 1 << 31);
        assert_eq!(
            parse_u64("--extent", "x_ptr", "-5", "an element count").unwrap_err().to_string(),
            "--extent x_ptr=-5: an element count cannot be negative; give a value from 0 to 0xffffffffffffffff"
        );
    }

    /// A fuzz-style check with a fixed seed: random strings built from the characters
    /// numbers are made of never panic the parsers, and every accepted integer prints
    /// back to a text that parses to the same value.
    #[test]
    fn random_inputs_never_panic_and_accepted_values_round_trip() {
        let alphabet: Vec<char> = "0123456789abcdefxX-+ _.e".chars().collect();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut accepted = 0;
        for _ in 0..20_000 {
            let len = (next() % 24) as usize;
            let s: String = (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            if let Ok(v) = parse_i64("--arg", "n", &s) {
                accepted += 1;
                assert_eq!(parse_i64("--arg", "n", &v.to_string()).unwrap(), v, "{s}");
                assert_eq!(
                    parse_i64("--arg", "n", &format!("{}0x{:x}", if v < 0 { "-" } else { "" }, v.unsigned_abs()))
                        .unwrap(),
                    v
                );
            }
            if let Ok(v) = parse_u64("--arg", "p", &s, "an address") {
                assert_eq!(parse_u64("--arg", "p", &format!("0x{v:x}"), "an address").unwrap(), v, "{s}");
            }
            let _ = assignments("--arg", std::slice::from_ref(&s));
        }
        assert!(accepted > 100, "the generator reaches valid numbers ({accepted})");
    }
}
