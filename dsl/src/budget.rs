//! The step budget of the interpreter and the simulator: how many loop iterations one
//! program may run before the run stops with a coded error (`RT0409` on the interpreter,
//! `RT0523` on the simulator) naming the loop's line, instead of running forever (a
//! `while` whose condition never turns false, a state that repeats every few iterations
//! with memory changing, an i32 counter that takes an hour to wrap).
//!
//! The budget is, first to last: the run's option (`interp::RunOptions::step_budget`,
//! `sim::SimOptions::step_budget`), the environment variable `RTRITON_STEP_BUDGET` (a
//! whole number of iterations, at least 1), [`DEFAULT_STEP_BUDGET`].

use std::ffi::OsString;

/// The default budget: 2^24 loop iterations per program (the longest loop of the
/// kernels in this repository runs a few thousand).
pub const DEFAULT_STEP_BUDGET: u64 = 1 << 24;

/// The environment variable that sets the budget.
pub const STEP_BUDGET_ENV: &str = "RTRITON_STEP_BUDGET";

/// The help of a refused `RTRITON_STEP_BUDGET`.
pub const ENV_HELP: &str = "set RTRITON_STEP_BUDGET to a whole number of loop iterations per program (at least 1), or unset it for the default 16777216";

/// A value of `RTRITON_STEP_BUDGET` that is not a budget.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{STEP_BUDGET_ENV}={value:?} is not a step budget: {why}")]
pub struct BadStepBudget {
    pub value: String,
    pub why: &'static str,
}

/// Reads a value of `RTRITON_STEP_BUDGET` (`None`: unset, the default).
pub fn parse_step_budget(value: Option<OsString>) -> Result<u64, BadStepBudget> {
    let Some(raw) = value else { return Ok(DEFAULT_STEP_BUDGET) };
    let Some(text) = raw.to_str() else {
        return Err(BadStepBudget { value: raw.to_string_lossy().into_owned(), why: "it is not UTF-8" });
    };
    match text.trim().parse::<u64>() {
        Ok(0) => Err(BadStepBudget { value: text.into(), why: "a budget of 0 iterations stops every loop" }),
        Ok(n) => Ok(n),
        Err(_) => Err(BadStepBudget { value: text.into(), why: "not a whole number from 1 to 18446744073709551615" }),
    }
}

/// The budget from the environment (`RTRITON_STEP_BUDGET`, else the default).
pub fn step_budget_from_env() -> Result<u64, BadStepBudget> {
    parse_step_budget(std::env::var_os(STEP_BUDGET_ENV))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_is_a_positive_whole_number_or_unset() {
        assert_eq!(parse_step_budget(None), Ok(DEFAULT_STEP_BUDGET));
        assert_eq!(parse_step_budget(Some("1000".into())), Ok(1000));
        assert_eq!(parse_step_budget(Some(" 7 ".into())), Ok(7));
        for bad in ["0", "-1", "1e6", "", "lots", "18446744073709551616"] {
            let e = parse_step_budget(Some(bad.into())).unwrap_err();
            assert!(e.to_string().starts_with(&format!("RTRITON_STEP_BUDGET={bad:?} is not a step budget: ")), "{e}");
        }
    }
}
