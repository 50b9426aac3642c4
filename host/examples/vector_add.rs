//! Vector add, ported from Triton's tutorial 01 (`add_kernel`): the kernel is in
//! `kernels-gpu/src/ports/vector_add.rs`, its cases and f64 reference in
//! `host/src/ports/vector_add.rs`. Runs the masked-tail case (98 432 elements in blocks
//! of 1024) on the GPU when there is one, else on the interpreter, and checks it.
//!
//! `cargo run --release --example vector_add [-- --dtype f32|f16|bf16]` (f32 by default)

use std::process::ExitCode;

use rtriton_host::ports::vector_add;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dtype = match args.as_slice() {
        [] => "f32",
        [flag, d] if flag == "--dtype" => d.as_str(),
        [flag] if flag.starts_with("--dtype=") => &flag["--dtype=".len()..],
        _ => {
            eprintln!("usage: vector_add [--dtype f32|f16|bf16]");
            return ExitCode::from(2);
        }
    };
    let suite = match dtype {
        "f32" => vector_add::suite(),
        "f16" => vector_add::suite_f16(),
        "bf16" => vector_add::suite_bf16(),
        other => {
            eprintln!("--dtype {other}: vector add is ported in f32, f16 and bf16; give one of those");
            return ExitCode::from(2);
        }
    };
    rtriton_host::ports::example::run(&suite, "tail_98432")
}
