//! The CUDA system calls of debug mode, as nvcc emits them for `printf` and `assert`:
//! `vprintf(format, buffer)` ([`Inst::Printf`]) and `__assertfail(message, file, line,
//! function, char_size)` ([`Inst::AssertFail`]). Their strings are module-scope
//! `.global .align 1 .b8` arrays (one per distinct text); a printf's arguments go to the
//! entry's `.local .align 8` buffer at the offsets of the CUDA printf ABI
//! (`semantics::printf::arg_offsets`), whose generic address is the second argument. A
//! guarded call is skipped by a branch: the calls themselves are unpredicated.

use std::fmt::Write;

use super::Writer;
use crate::backend::ptx::lir::{Guard, Inst, Program, Reg, Ty};
use crate::semantics::printf::arg_offsets;

/// The `vprintf` declaration (the driver's printf entry point).
const VPRINTF: &str = ".extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 valist);";
/// The `__assertfail` declaration (the driver's assert entry point).
const ASSERTFAIL: &str = ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, \
                          .param .b64 function, .param .b64 char_size);";
/// The printf argument buffer in the entry.
const BUFFER: &str = "printf_buffer";

/// The bytes of a `.b8` string: `text` and a NUL (a printf format also gets its newline).
fn c_string(text: &str, newline: bool) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    if newline {
        b.push(b'\n');
    }
    b.push(0);
    b
}

/// Every string the calls of `p` pass, each once, in order of first use.
pub(super) fn strings(p: &Program) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut add = |s: Vec<u8>| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for i in p.walk() {
        match i {
            Inst::Printf { format, .. } => add(c_string(format, true)),
            Inst::AssertFail { message, file, function, .. } => {
                add(c_string(message, false));
                add(c_string(file, false));
                add(c_string(function, false));
            }
            // only the calls pass strings (not an op kind)
            _ => {}
        }
    }
    out
}

/// The buffer bytes a printf of these argument registers needs.
fn buffer_bytes(p: &Program, args: &[Reg]) -> u32 {
    arg_offsets(args.iter().map(|r| p.ty(*r).printf_bytes())).1
}

impl Writer<'_> {
    /// Module scope: the declarations of the system calls `p` makes and its strings.
    pub(super) fn syscall_declarations(&mut self) {
        let p = self.p;
        let walk = p.walk();
        if walk.iter().any(|i| matches!(i, Inst::Printf { .. })) {
            let _ = writeln!(self.out, "{VPRINTF}");
        }
        if walk.iter().any(|i| matches!(i, Inst::AssertFail { .. })) {
            let _ = writeln!(self.out, "{ASSERTFAIL}");
        }
        for (n, s) in self.strings.iter().enumerate() {
            let bytes: Vec<String> = s.iter().map(|b| b.to_string()).collect();
            let _ = writeln!(self.out, ".global .align 1 .b8 $str{n}[{}] = {{{}}};", s.len(), bytes.join(", "));
        }
        if !self.strings.is_empty() {
            self.out.push('\n');
        }
    }

    /// Entry scope: the printf buffer (sized for the largest call) and the registers the
    /// call sequences use: `%sys0` a string's address, `%sys1` the buffer's.
    pub(super) fn syscall_registers(&mut self) {
        let p = self.p;
        let walk = p.walk();
        let buffer = walk
            .iter()
            .filter_map(|i| match i {
                Inst::Printf { args, .. } => Some(buffer_bytes(p, args)),
                // only printf uses the buffer (not an op kind)
                _ => None,
            })
            .max();
        if let Some(bytes) = buffer {
            let _ = writeln!(self.out, "\t.local .align 8 .b8 {BUFFER}[{}];", bytes.max(8));
        }
        if !self.strings.is_empty() {
            let _ = writeln!(self.out, "\t.reg .b64 %sys<2>;");
        }
    }

    /// The index of a string in the module's table.
    fn string(&self, text: &str, newline: bool) -> usize {
        let s = c_string(text, newline);
        self.strings.iter().position(|x| *x == s).expect("every call's strings are in the table")
    }

    /// `dst = ` the generic address of string `n`.
    fn string_address(&mut self, d: usize, n: usize) {
        self.line(d, &format!("mov.u64 %sys0, $str{n};"));
        self.line(d, "cvta.global.u64 %sys0, %sys0;");
    }

    /// A branch over a guarded call where its guard does not hold; the label to end it.
    fn skip_unless(&mut self, guard: Option<Guard>, d: usize) -> Option<String> {
        let g = guard?;
        let n = self.calls;
        self.calls += 1;
        let label = format!("CALL{n}_SKIP");
        let not = if g.negate { "" } else { "!" };
        self.line(d, &format!("@{not}{} bra {label};", self.reg(g.pred)));
        Some(label)
    }

    /// One `vprintf` call: the arguments stored into the buffer, then the call.
    pub(super) fn printf(&mut self, guard: Option<Guard>, format: &str, args: &[Reg], d: usize) {
        let skip = self.skip_unless(guard, d);
        let (offsets, _) = arg_offsets(args.iter().map(|r| self.p.ty(*r).printf_bytes()));
        for (r, at) in args.iter().zip(offsets) {
            let st = match self.p.ty(*r) {
                Ty::F64 => "f64",
                Ty::I64 | Ty::U64 => "b64",
                // every 32-bit integer register class (the lowering passes no other)
                _ => "b32",
            };
            self.line(d, &format!("st.local.{st} [{BUFFER}+{at}], {};", self.reg(*r)));
        }
        let n = self.string(format, true);
        self.string_address(d, n);
        self.line(d, &format!("mov.u64 %sys1, {BUFFER};"));
        self.line(d, "cvta.local.u64 %sys1, %sys1;");
        self.line(d, "{");
        self.line(d + 1, ".param .b64 format;");
        self.line(d + 1, "st.param.b64 [format], %sys0;");
        self.line(d + 1, ".param .b64 valist;");
        self.line(d + 1, "st.param.b64 [valist], %sys1;");
        self.line(d + 1, ".param .b32 status;");
        self.line(d + 1, "call.uni (status), vprintf, (format, valist);");
        self.line(d, "}");
        if let Some(label) = skip {
            let _ = writeln!(self.out, "{label}:");
        }
    }

    /// One `__assertfail` call with the assertion's strings and line.
    pub(super) fn assertfail(&mut self, guard: Guard, [message, file, function]: [&str; 3], line: u32, d: usize) {
        let skip = self.skip_unless(Some(guard), d);
        self.line(d, "{");
        for (name, text) in [("message", message), ("file", file), ("function", function)] {
            let n = self.string(text, false);
            self.string_address(d + 1, n);
            self.line(d + 1, &format!(".param .b64 {name};"));
            self.line(d + 1, &format!("st.param.b64 [{name}], %sys0;"));
        }
        self.line(d + 1, ".param .b32 line;");
        self.line(d + 1, &format!("st.param.b32 [line], {line};"));
        self.line(d + 1, ".param .b64 char_size;");
        self.line(d + 1, "st.param.b64 [char_size], 1;");
        self.line(d + 1, "call.uni __assertfail, (message, file, line, function, char_size);");
        self.line(d, "}");
        if let Some(label) = skip {
            let _ = writeln!(self.out, "{label}:");
        }
    }
}

/// The one-line form [`super::inst_line`] quotes: the call instruction.
pub(super) fn call_line(i: &Inst) -> String {
    match i {
        Inst::AssertFail { .. } => "call.uni __assertfail, (message, file, line, function, char_size);".into(),
        // the other call is vprintf (the caller passes only the two)
        _ => "call.uni (status), vprintf, (format, valist);".into(),
    }
}
