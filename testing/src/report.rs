//! Failure reports a person can act on: the case, the specialization, which back end
//! disagreed with which, and the first differing elements with their view index, values,
//! bits, ULP distance and the program that stored them; or the back end's own error,
//! which names the op's file:line, the program and (from the simulator) the PTX
//! instruction.

use std::fmt;

use rtriton::spec::SpecPolicy;

use crate::case::Case;
use crate::compare::{Difference, Rule};
use crate::run::{Backend, RunError};

/// How many differing elements a report lists per tensor.
pub const SHOWN: usize = 8;

/// One back end's run of one case under one specialization that did not pass.
#[derive(Debug)]
pub struct Failure {
    pub kernel: &'static str,
    pub case: String,
    pub backend: Backend,
    pub policy: SpecPolicy,
    /// The specialization key (`x_ptr:*f32:D16, n:i32:-, ...`).
    pub spec: String,
    pub what: FailureKind,
    /// For a faulting access: which tensor and element the address falls in.
    pub address_note: Option<String>,
}

#[derive(Debug)]
pub enum FailureKind {
    /// The back end stopped with an error.
    Error(RunError),
    /// The back end finished, but a buffer differs.
    Mismatch {
        /// `the CPU reference` or `the interpreter`.
        against: &'static str,
        /// The rule `tensor` was compared under.
        rule: Rule,
        /// Whether `rule` is the output's own ([`crate::Suite::rule_for`]) rather than the
        /// suite's.
        own_rule: bool,
        tensor: &'static str,
        elements: Vec<Located>,
        total: usize,
    },
    /// The result could not be compared with `against`, which could not run the case (a
    /// back end that cannot run a case must be declared: `Case::unsupported`).
    Unchecked { against: &'static str, why: String },
    /// The suite or case cannot be run as described (an unknown case name, no output to
    /// check, no policy): nothing ran.
    Setup(String),
}

/// A difference with where it is in the view and who wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    pub diff: Difference,
    /// The view index of the element, or `None` when it is outside the view (a stray store).
    pub index: Option<Vec<usize>>,
    /// The program and thread that stored it (simulator runs).
    pub writer: Option<([u32; 3], u32)>,
}

impl Failure {
    pub fn new(
        kernel: &'static str,
        case: &Case,
        backend: Backend,
        policy: SpecPolicy,
        spec: String,
        what: FailureKind,
    ) -> Failure {
        Failure { kernel, case: case.to_string(), backend, policy, spec, what, address_note: None }
    }

    /// A failure of the description itself, before any back end ran.
    pub fn setup(kernel: &'static str, case: &str, backend: Backend, message: String) -> Failure {
        Failure {
            kernel,
            case: format!("case `{case}`"),
            backend,
            policy: SpecPolicy::Triton,
            spec: String::new(),
            what: FailureKind::Setup(message),
            address_note: None,
        }
    }
}

fn policy_text(p: SpecPolicy) -> &'static str {
    match p {
        SpecPolicy::Triton => "specialization on",
        SpecPolicy::Off => "specialization off",
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let FailureKind::Setup(message) = &self.what {
            return write!(f, "kernel `{}`, {} on the {}: {message}", self.kernel, self.case, self.backend);
        }
        write!(f, "kernel `{}` on the {} ({})", self.kernel, self.backend, policy_text(self.policy))?;
        match &self.what {
            FailureKind::Setup(_) => {}
            FailureKind::Unchecked { against, why } => {
                writeln!(
                    f,
                    " ran, but could not be compared with {against}, which could not run the case: {why}\n  (declare \
                     it with Case::unsupported(Backend::Interpreter, reason) if that is expected)"
                )?;
            }
            FailureKind::Error(e) => {
                writeln!(f, " failed:\n{e}")?;
                if let Some(note) = &self.address_note {
                    writeln!(f, "  the faulting address: {note}")?;
                }
            }
            FailureKind::Mismatch { against, rule, own_rule, tensor, elements, total } => {
                let count =
                    if *total == 1 { "1 element differs".to_string() } else { format!("{total} elements differ") };
                let whose = if *own_rule { format!("the rule for `{tensor}`: ") } else { String::new() };
                writeln!(f, " disagrees with {against} on `{tensor}` ({whose}{rule}): {count}, the first:")?;
                for l in elements {
                    match &l.index {
                        Some(i) => write!(f, "  {tensor}{i:?} (buffer element {})", l.diff.element)?,
                        None => write!(f, "  buffer element {} (outside the view: a stray store)", l.diff.element)?,
                    }
                    write!(f, ": got {}, expected {}", l.diff.got, l.diff.want)?;
                    if let Some(u) = l.diff.ulps {
                        write!(f, ", {u} ulp apart")?;
                    }
                    match l.writer {
                        Some((p, t)) => writeln!(f, ", stored by program ({}, {}, {}) thread {t}", p[0], p[1], p[2])?,
                        None => writeln!(f)?,
                    }
                }
            }
        }
        writeln!(f, "{}", self.case)?;
        write!(f, "  specialization key: {}", self.spec)
    }
}

/// Every failure of one test, printed one after the other.
#[derive(Debug, Default)]
pub struct Failures(pub Vec<Failure>);

impl fmt::Display for Failures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, failure) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f, "\n")?;
            }
            write!(f, "{failure}")?;
        }
        Ok(())
    }
}
