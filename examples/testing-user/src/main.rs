//! This crate's command line: `list`, `ptx`, `explain` and `lint` over its own kernels with
//! `rtriton`'s flags, and `validate`, which runs its test suites on the interpreter, the
//! simulator and the GPU (when there is one). The whole program is the one call below, in
//! the convention of `criterion_main!`:
//!
//! ```text
//! cargo run -p testing-user -- list
//! cargo run -p testing-user -- ptx scaled_add --const BLOCK=128 --arg n=1000 --arg stride_x=1 --arg stride_y=1 --arg alpha=2.0
//! cargo run -p testing-user -- validate --kernel scaled_add
//! ```

use std::process::ExitCode;

use testing_user::{scaled_add, scaled_add_off_by_one, suite};

fn main() -> ExitCode {
    rtriton_host::cli::App::new(&[scaled_add, scaled_add_off_by_one])
        .suites(&[suite::scaled_add, suite::scaled_add_off_by_one])
        .main()
}
