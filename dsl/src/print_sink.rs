//! Where the debugging ops' text goes: `static_print` at trace time and `device_print` on
//! the interpreter and the simulator. By default each line goes to standard output, as
//! Triton's do; inside [`capture_prints`] the lines of the calling thread are collected
//! instead, so a test (or a tool) can read what a kernel printed. The trace, the
//! interpreter and the simulator run on the calling thread, so a capture sees exactly the
//! lines of the work it wraps.

use std::cell::RefCell;

thread_local! {
    static CAPTURE: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// Runs `f` and returns its result with every line the debugging ops printed on this
/// thread meanwhile (without their newlines), in order; nothing of it reaches standard
/// output. Captures nest: the inner one takes the lines printed inside it.
pub fn capture_prints<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let outer = CAPTURE.with(|c| c.borrow_mut().replace(Vec::new()));
    // Restores the outer capture even when `f` panics, so one failing test leaves the
    // thread as it found it.
    struct Restore(Option<Option<Vec<String>>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(outer) = self.0.take() {
                CAPTURE.with(|c| *c.borrow_mut() = outer);
            }
        }
    }
    let mut restore = Restore(Some(outer));
    let r = f();
    let lines = CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or_default();
    if let Some(outer) = restore.0.take() {
        CAPTURE.with(|c| *c.borrow_mut() = outer);
    }
    (r, lines)
}

/// Prints one line: into the thread's capture when one is open, else to standard output.
pub(crate) fn print_line(line: String) {
    let rest = CAPTURE.with(|c| match c.borrow_mut().as_mut() {
        Some(lines) => {
            lines.push(line);
            None
        }
        None => Some(line),
    });
    if let Some(line) = rest {
        println!("{line}");
    }
}
