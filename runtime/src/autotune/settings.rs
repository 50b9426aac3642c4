//! The environment variables that steer autotuning, read once when an autotuned kernel is
//! made (parsing is pure, over a lookup function, so it is tested without touching the
//! process environment):
//!
//! | variable | values | effect |
//! |---|---|---|
//! | `RTRITON_AUTOTUNE` | `1`/`on` (default), `0`/`off`, `memory` | tune and keep winners in memory and on disk; never tune (the first configuration); tune, memory only |
//! | `RTRITON_AUTOTUNE_DIR` | a folder | where winners are stored (default: `autotune/` in the PTX cache folder, `$RTRITON_CACHE_DIR` or `~/.cache/rtriton`) |
//! | `RTRITON_PRINT_AUTOTUNING` | `1`/`0` (default) | print each choice to stderr, as Triton's `TRITON_PRINT_AUTOTUNING` |
//!
//! A value that is not UTF-8 is never taken for "unset": for the two switches it is an
//! error naming the variable; the two folders are paths, used as given (a folder name
//! need not be UTF-8).

use std::ffi::OsString;
use std::path::PathBuf;

use rtriton::diag::{Code, Diagnostic};

use crate::cache::CACHE_DIR_ENV;

pub const AUTOTUNE_ENV: &str = "RTRITON_AUTOTUNE";
pub const AUTOTUNE_DIR_ENV: &str = "RTRITON_AUTOTUNE_DIR";
pub const PRINT_AUTOTUNING_ENV: &str = "RTRITON_PRINT_AUTOTUNING";

/// Whether and where an autotuned kernel tunes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Time every configuration on the first launch of a key; keep the winner in memory
    /// and on disk.
    Tune,
    /// As `Tune`, without the disk.
    MemoryOnly,
    /// Never time anything: launch the first configuration.
    Off,
}

/// How an autotuned kernel tunes: the mode, the store folder, printing, and how many
/// launches it times per configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub mode: Mode,
    /// Where winners are stored (`None`: no folder known; memory only).
    pub store_dir: Option<PathBuf>,
    /// Print each choice to stderr.
    pub print: bool,
    /// Untimed launches per configuration before timing.
    pub warmup: usize,
    /// Timed launches per configuration (each after an L2 flush); the median decides.
    pub reps: usize,
}

impl Settings {
    /// Tune, no store, no printing, 1 warm-up and 10 timed launches (for tests and tools).
    pub fn in_memory() -> Settings {
        Settings { mode: Mode::MemoryOnly, store_dir: None, print: false, warmup: 1, reps: 10 }
    }

    /// The settings of the process environment; a value a variable does not take is an
    /// error naming `kernel` (whose autotuner reads them).
    pub fn from_env(kernel: &str) -> Result<Settings, Diagnostic> {
        Settings::from_vars(kernel, |name| std::env::var_os(name))
    }

    /// The settings `var_os` gives (a lookup of an environment variable by name).
    pub fn from_vars(kernel: &str, var_os: impl Fn(&str) -> Option<OsString>) -> Result<Settings, Diagnostic> {
        // A switch's value as text; not UTF-8 is an error naming the variable.
        let var = |name: &str| -> Result<Option<String>, Diagnostic> {
            match var_os(name) {
                None => Ok(None),
                Some(v) => v.into_string().map(Some).map_err(|v| {
                    Diagnostic::error(
                        Code::AutotuneEnv,
                        kernel,
                        None,
                        format!("{name}={:?} is not valid UTF-8, so it is no value {name} takes", v.to_string_lossy()),
                        format!("set {name} to one of the values docs/autotuning.md lists, or unset it"),
                    )
                }),
            }
        };
        let bad = |name: &str, value: &str, takes: &str| {
            Diagnostic::error(
                Code::AutotuneEnv,
                kernel,
                None,
                format!("{name}={value:?} is not a value {name} takes"),
                format!("set {name} to {takes}, or unset it"),
            )
        };
        let (mode_text, print_text) = (var(AUTOTUNE_ENV)?, var(PRINT_AUTOTUNING_ENV)?);
        let mode = match mode_text.as_deref().map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "1" | "on" | "true" | "yes") => Mode::Tune,
            Some("0" | "off" | "false" | "no") => Mode::Off,
            Some("memory") => Mode::MemoryOnly,
            Some(_) => {
                let v = mode_text.unwrap_or_default();
                return Err(bad(AUTOTUNE_ENV, &v, "1 (tune, store on disk), 0 (never tune) or memory (tune, no disk)"));
            }
        };
        let print = match print_text.as_deref().map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "0" | "off" | "false" | "no") => false,
            Some("1" | "on" | "true" | "yes") => true,
            Some(_) => {
                let v = print_text.unwrap_or_default();
                return Err(bad(PRINT_AUTOTUNING_ENV, &v, "1 (print each choice) or 0"));
            }
        };
        let nonempty = |name: &str| var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        let store_dir = match mode {
            Mode::Tune => nonempty(AUTOTUNE_DIR_ENV)
                .or_else(|| nonempty(CACHE_DIR_ENV).map(|d| d.join("autotune")))
                .or_else(|| dirs::cache_dir().map(|d| d.join("rtriton").join("autotune"))),
            Mode::MemoryOnly | Mode::Off => None,
        };
        Ok(Settings { mode, store_dir, print, ..Settings::in_memory() })
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| OsString::from(v))
    }

    /// `name` set to bytes that are not UTF-8 (`b"\xff/x"`), the others unset.
    #[cfg(unix)]
    fn not_utf8(name: &'static str) -> impl Fn(&str) -> Option<OsString> {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        move |n| (n == name).then(|| OsStr::from_bytes(b"\xff/x").to_os_string())
    }

    /// A switch set to bytes that are not UTF-8 is an error naming it (it was taken for
    /// unset); a folder that is not UTF-8 is used as given (it was dropped, and the store
    /// moved to `~/.cache`).
    #[cfg(unix)]
    #[test]
    fn values_that_are_not_utf8_are_errors_or_paths_never_unset() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        for name in [AUTOTUNE_ENV, PRINT_AUTOTUNING_ENV] {
            let e = Settings::from_vars("k", not_utf8(name)).unwrap_err();
            assert_eq!(e.code, Code::AutotuneEnv);
            assert_eq!(e.message, format!("{name}=\"\u{fffd}/x\" is not valid UTF-8, so it is no value {name} takes"),);
        }
        let weird = PathBuf::from(OsStr::from_bytes(b"\xff/x"));
        let s = Settings::from_vars("k", not_utf8(AUTOTUNE_DIR_ENV)).unwrap();
        assert_eq!(s.store_dir, Some(weird.clone()));
        let s = Settings::from_vars("k", not_utf8(CACHE_DIR_ENV)).unwrap();
        assert_eq!(s.store_dir, Some(weird.join("autotune")));
    }

    #[rstest]
    #[case::unset(&[], Mode::Tune, false)]
    #[case::on(&[("RTRITON_AUTOTUNE", "1")], Mode::Tune, false)]
    #[case::on_word(&[("RTRITON_AUTOTUNE", " On ")], Mode::Tune, false)]
    #[case::off(&[("RTRITON_AUTOTUNE", "0")], Mode::Off, false)]
    #[case::off_word(&[("RTRITON_AUTOTUNE", "off")], Mode::Off, false)]
    #[case::memory(&[("RTRITON_AUTOTUNE", "memory")], Mode::MemoryOnly, false)]
    #[case::print(&[("RTRITON_PRINT_AUTOTUNING", "1")], Mode::Tune, true)]
    #[case::print_off(&[("RTRITON_PRINT_AUTOTUNING", "0")], Mode::Tune, false)]
    #[case::print_empty(&[("RTRITON_PRINT_AUTOTUNING", "")], Mode::Tune, false)]
    fn each_variable_value_gives_its_mode(
        #[case] env: &'static [(&'static str, &'static str)],
        #[case] mode: Mode,
        #[case] print: bool,
    ) {
        let s = Settings::from_vars("k", vars(env)).unwrap();
        assert_eq!((s.mode, s.print), (mode, print));
    }

    #[test]
    fn the_store_sits_next_to_the_ptx_cache_unless_pointed_elsewhere() {
        let s = Settings::from_vars("k", vars(&[("RTRITON_CACHE_DIR", "/c")])).unwrap();
        assert_eq!(s.store_dir, Some(PathBuf::from("/c/autotune")));
        let s = Settings::from_vars("k", vars(&[("RTRITON_CACHE_DIR", "/c"), ("RTRITON_AUTOTUNE_DIR", "/t")])).unwrap();
        assert_eq!(s.store_dir, Some(PathBuf::from("/t")));
        // Off and memory-only use no folder, wherever the variables point.
        for mode in ["0", "memory"] {
            let env: &'static [(&'static str, &'static str)] = if mode == "0" {
                &[("RTRITON_AUTOTUNE", "0"), ("RTRITON_AUTOTUNE_DIR", "/t")]
            } else {
                &[("RTRITON_AUTOTUNE", "memory"), ("RTRITON_AUTOTUNE_DIR", "/t")]
            };
            assert_eq!(Settings::from_vars("k", vars(env)).unwrap().store_dir, None, "{mode}");
        }
    }

    #[rstest]
    #[case::mode(&[("RTRITON_AUTOTUNE", "2")], "error[RT0754]: kernel `k`: RTRITON_AUTOTUNE=\"2\" is not a value RTRITON_AUTOTUNE takes\n  help: set RTRITON_AUTOTUNE to 1 (tune, store on disk), 0 (never tune) or memory (tune, no disk), or unset it")]
    #[case::print(&[("RTRITON_PRINT_AUTOTUNING", "verbose")], "error[RT0754]: kernel `k`: RTRITON_PRINT_AUTOTUNING=\"verbose\" is not a value RTRITON_PRINT_AUTOTUNING takes\n  help: set RTRITON_PRINT_AUTOTUNING to 1 (print each choice) or 0, or unset it")]
    fn a_value_a_variable_does_not_take_is_an_error_naming_it(
        #[case] env: &'static [(&'static str, &'static str)],
        #[case] message: &str,
    ) {
        let e = Settings::from_vars("k", vars(env)).unwrap_err();
        assert_eq!(e.code, Code::AutotuneEnv);
        assert_eq!(e.to_string(), message);
    }
}
