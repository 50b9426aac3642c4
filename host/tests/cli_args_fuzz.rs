//! A fuzz target for the CLI's `NAME=V` parsing (`host/src/cli/named.rs`), runnable on
//! stable Rust (cargo-fuzz needs nightly): proptest over arbitrary strings and structured
//! near-valid inputs. It asserts that the parser never panics, that every accepted value
//! round-trips (printed back in decimal and in hex it parses to the same value), and that
//! every in-range value is accepted in every spelling. Fixed case counts keep it to a
//! few seconds.

use proptest::prelude::*;
use rtriton::spec::ArgValue;
use rtriton_host::cli::named::{assignments, constexprs, launch_args, parse_i64, parse_u64};

fn row_max() -> rtriton::trace::KernelDef {
    rtriton_kernels::RowMaxVariant::RowMax.def()
}

/// The spellings of an integer the parser must accept: decimal and hex (both cases).
fn spellings(v: i128) -> Vec<String> {
    let (sign, m) = if v < 0 { ("-", v.unsigned_abs()) } else { ("", v as u128) };
    vec![format!("{sign}{m}"), format!("{sign}0x{m:x}"), format!("{sign}0X{m:X}")]
}

/// Near-valid text: a valid spelling with one mutation.
fn mutate(s: &str, how: u8, at: usize, c: char) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let at = at % (chars.len() + 1);
    match how % 5 {
        0 => chars.insert(at, c),
        1 if at < chars.len() => {
            chars.remove(at);
        }
        2 if at < chars.len() => chars[at] = c,
        3 => chars.insert(0, '-'),
        _ => chars.push(c),
    }
    chars.into_iter().collect()
}

fn check_i64(text: &str) -> Result<(), TestCaseError> {
    if let Ok(v) = parse_i64("--arg", "n", text) {
        for s in spellings(v as i128) {
            prop_assert_eq!(parse_i64("--arg", "n", &s).unwrap(), v, "{:?} -> {} -> {}", text, v, s);
        }
    }
    Ok(())
}

fn check_u64(text: &str) -> Result<(), TestCaseError> {
    if let Ok(v) = parse_u64("--arg", "p", text, "an address") {
        for s in spellings(v as i128) {
            prop_assert_eq!(parse_u64("--arg", "p", &s, "an address").unwrap(), v, "{:?} -> {} -> {}", text, v, s);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any text: no panic; an accepted value round-trips.
    #[test]
    fn arbitrary_text_never_panics(text in ".{0,40}") {
        check_i64(&text)?;
        check_u64(&text)?;
        let _ = assignments("--arg", std::slice::from_ref(&text));
    }

    /// Every i64 and every u64, in every spelling, is accepted as itself; one past either
    /// end is refused.
    #[test]
    fn every_value_in_range_is_accepted(i in any::<i64>(), u in any::<u64>(), edge in 0u8..3) {
        let (i, u) = match edge {
            0 => (i64::MIN, 0),
            1 => (i64::MAX, u64::MAX),
            _ => (i, u),
        };
        for s in spellings(i as i128) {
            prop_assert_eq!(parse_i64("--arg", "n", &s).unwrap(), i, "{}", s);
        }
        for s in spellings(u as i128) {
            prop_assert_eq!(parse_u64("--arg", "p", &s, "an address").unwrap(), u, "{}", s);
        }
        prop_assert!(parse_i64("--arg", "n", &(i64::MIN as i128 - 1).to_string()).is_err());
        prop_assert!(parse_i64("--arg", "n", &(i64::MAX as i128 + 1).to_string()).is_err());
        prop_assert!(parse_u64("--arg", "p", &(u64::MAX as u128 + 1).to_string(), "an address").is_err());
    }

    /// One mutation of a valid spelling: no panic; accepted values round-trip.
    #[test]
    fn near_valid_text_never_panics(
        v in any::<i64>(),
        s in 0usize..3,
        how in any::<u8>(),
        at in any::<usize>(),
        c in prop::sample::select(vec!['-', '_', 'x', '0', 'f', ' ', '=', '+', '.', 'e']),
    ) {
        let text = mutate(&spellings(v as i128)[s], how, at, c);
        check_i64(&text)?;
        check_u64(&text)?;
    }

    /// Whole flag lists for a real kernel: names from its parameters (and some that are
    /// not), values near valid; no panic, and an accepted list holds what was written.
    #[test]
    fn flag_lists_never_panic(
        items in prop::collection::vec((0usize..8, any::<i64>(), 0usize..3, any::<u8>(), any::<bool>()), 0..8),
    ) {
        let def = row_max();
        let names = ["x_ptr", "y_ptr", "n_rows", "n_cols", "stride_row", "stride_col", "BLOCK", "nope"];
        let given: Vec<String> = items
            .iter()
            .map(|&(n, v, s, how, clean)| {
                let text = spellings(v as i128)[s].clone();
                let text = if clean { text } else { mutate(&text, how, how as usize, '-') };
                format!("{}={text}", names[n])
            })
            .collect();
        if let Ok(values) = launch_args(&def, &given, &[]) {
            for (p, value) in def.params.iter().zip(values) {
                let Some(text) = given.iter().find_map(|g| g.strip_prefix(&format!("{}=", p.name))) else { continue };
                match value {
                    ArgValue::Ptr(a) => prop_assert_eq!(parse_u64("--arg", p.name, text, "an address").unwrap(), a),
                    ArgValue::Int(i) => prop_assert_eq!(parse_i64("--arg", p.name, text).unwrap(), i),
                    ArgValue::F32(_) => prop_assert!(false, "row_max has no float parameter"),
                }
            }
        }
        if let Ok(c) = constexprs(&def, &given, vec![("BLOCK", 1024)])
            && let Some(text) = given.iter().find_map(|g| g.strip_prefix("BLOCK="))
        {
            prop_assert_eq!(c, vec![("BLOCK", parse_i64("--const", "BLOCK", text).unwrap())]);
        }
    }
}
