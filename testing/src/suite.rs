//! A suite: one kernel, its cases, a CPU reference and a comparison rule. Every back end
//! runs each case under both specializations and is compared with the reference; the
//! simulator and the GPU are also compared with the interpreter, so a report says which
//! back end disagreed with which.

use std::sync::Arc;

use rtriton::spec::{ArgValue, SpecPolicy};
use rtriton::trace::KernelDef;

use crate::case::Case;
use crate::compare::{Rule, differences};
use crate::data::Data;
use crate::report::{Failure, FailureKind, Failures, Located, SHOWN};
use crate::run::gpu::{GpuOptions, run_gpu};
use crate::run::{Backend, Outputs, RunError, place, run_interpreter, run_simulator, spec_text};

type Reference = Arc<dyn Fn(&mut Case) + Send + Sync>;

/// One description of a kernel's tests (see the crate doc for an example).
///
/// Every output is compared under the suite's [`Rule`] unless [`Suite::rule_for`] gives it
/// one of its own.
#[derive(Clone)]
pub struct Suite {
    pub def: KernelDef,
    pub cases: Vec<Case>,
    reference: Reference,
    /// The rule for every output without one of its own.
    pub rule: Rule,
    /// Rules for single outputs, by tensor name ([`Suite::rule_for`]).
    pub output_rules: Vec<(&'static str, Rule)>,
    pub policies: Vec<SpecPolicy>,
    pub gpu: GpuOptions,
}

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite").field("kernel", &self.def.name).field("cases", &self.cases.len()).finish()
    }
}

impl Suite {
    /// A suite of `def` with no cases, a reference that writes nothing, bit-exact
    /// comparison and both specializations.
    pub fn new(def: KernelDef) -> Suite {
        Suite {
            def,
            cases: Vec::new(),
            reference: Arc::new(|_| {}),
            rule: Rule::BITS,
            output_rules: Vec::new(),
            policies: vec![SpecPolicy::Triton, SpecPolicy::Off],
            gpu: GpuOptions::default(),
        }
    }

    /// Adds a case. A case that could pass without checking anything is an error (panics
    /// with the reason): one with no output tensor, one named like a case already in the
    /// suite (only the first would ever run), a constexpr set twice, two tensors of one name.
    pub fn case(mut self, case: Case) -> Suite {
        if let Err(why) = self.admit(&case) {
            panic!("{why}");
        }
        self.cases.push(case);
        self
    }

    pub fn cases(self, cases: impl IntoIterator<Item = Case>) -> Suite {
        cases.into_iter().fold(self, Suite::case)
    }

    /// Why `case` cannot join this suite, if it cannot (see [`Suite::case`]).
    fn admit(&self, case: &Case) -> Result<(), String> {
        let kernel = self.def.name;
        if self.cases.iter().any(|c| c.name == case.name) {
            return Err(format!(
                "suite of `{kernel}`: case name `{}` is used twice; only the first would ever run: give each case its \
                 own name",
                case.name
            ));
        }
        self.checkable(case)
    }

    /// A case must have an output to compare, and its description must be consistent.
    fn checkable(&self, case: &Case) -> Result<(), String> {
        let kernel = self.def.name;
        if !case.tensors().any(|t| t.output) {
            return Err(format!(
                "suite of `{kernel}`: case `{}` has no output tensor, so nothing would be checked; declare what the \
                 kernel writes with .output(name, data, view)",
                case.name
            ));
        }
        case.check_names().map_err(|e| format!("suite of `{kernel}`: {e}"))
    }

    /// The CPU reference: given a copy of the case, it writes the expected values into
    /// the output tensors (through their views, as the kernel would).
    pub fn reference(mut self, f: impl Fn(&mut Case) + Send + Sync + 'static) -> Suite {
        self.reference = Arc::new(f);
        self
    }

    pub fn rule(mut self, rule: Rule) -> Suite {
        self.rule = rule;
        self
    }

    /// The rule for output `output` alone (every other output keeps the suite's rule):
    /// for a kernel whose outputs are computed differently (an exact max next to a rounded
    /// sum). Setting one output's rule twice is an error (panics): which would apply? An
    /// output no case of the suite has fails each run of the suite, naming it.
    pub fn rule_for(mut self, output: &'static str, rule: Rule) -> Suite {
        if let Some((_, old)) = self.output_rules.iter().find(|(n, _)| *n == output) {
            panic!(
                "suite of `{}`: the rule for output `{output}` is set twice ({old}, then {rule}); set it once",
                self.def.name
            );
        }
        self.output_rules.push((output, rule));
        self
    }

    /// The rule output `output` is compared under, and whether it is the output's own.
    pub fn rule_of(&self, output: &str) -> (Rule, bool) {
        match self.output_rules.iter().find(|(n, _)| *n == output) {
            Some((_, r)) => (*r, true),
            None => (self.rule, false),
        }
    }

    /// The specializations every case runs under: at least one (an empty list would run
    /// nothing and pass; panics), none twice.
    pub fn policies(mut self, policies: &[SpecPolicy]) -> Suite {
        assert!(
            !policies.is_empty(),
            "suite of `{}`: .policies(&[]) would run no case at all and pass; give at least one \
             (SpecPolicy::Triton, SpecPolicy::Off)",
            self.def.name
        );
        self.policies = Vec::new();
        for &p in policies {
            if !self.policies.contains(&p) {
                self.policies.push(p);
            }
        }
        self
    }

    pub fn gpu_options(mut self, options: GpuOptions) -> Suite {
        self.gpu = options;
        self
    }

    /// The case named `name`.
    pub fn find(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.name == name)
    }

    /// The expected output buffers of `case`.
    pub fn expected(&self, case: &Case) -> Outputs {
        let mut want = case.clone();
        (self.reference)(&mut want);
        let buffers = want.tensors().filter(|t| t.output).map(|t| (t.name, t.data.clone())).collect();
        Outputs { buffers, writers: None }
    }

    /// Runs case `name` on `backend` under every policy of the suite; `Err` lists each
    /// failure. A GPU run without a GPU is a failure (tests that need one are `#[ignore]`d
    /// instead, so they never pass without running).
    ///
    /// Nothing passes unchecked: an unknown case name, a case with no output, a suite with
    /// no policy, and a simulator or GPU result that could not be compared with the
    /// interpreter (because the interpreter could not run the case) are failures. A case
    /// that declares a back end unsupported ([`Case::unsupported`]) is skipped there, and
    /// the reason is printed.
    pub fn run(&self, name: &str, backend: Backend) -> Result<(), Failures> {
        let setup = |message: String| Err(Failures(vec![Failure::setup(self.def.name, name, backend, message)]));
        let Some(case) = self.find(name) else {
            let names: Vec<&str> = self.cases.iter().map(|c| c.name.as_str()).collect();
            return setup(format!(
                "the suite has no case `{name}`; its cases are: {}",
                if names.is_empty() { "(none)".to_string() } else { names.join(", ") }
            ));
        };
        if let Err(why) = self.checkable(case) {
            return setup(why);
        }
        if self.policies.is_empty() {
            return setup("the suite has no specialization policy, so nothing would run; set .policies(..)".into());
        }
        if let Some((output, _)) = self
            .output_rules
            .iter()
            .find(|(n, _)| !self.cases.iter().any(|c| c.tensors().any(|t| t.output && t.name == *n)))
        {
            return setup(format!(
                "the suite sets a rule for output `{output}`, which no case has, so it would never apply: name an \
                 output tensor of the cases"
            ));
        }
        let case = match case.resolve(&self.def) {
            Ok(case) => case,
            Err(e) => {
                let spec = String::new();
                let what = FailureKind::Error(RunError::Args(Box::new(e)));
                return Err(Failures(vec![Failure::new(self.def.name, case, backend, self.policies[0], spec, what)]));
            }
        };
        let case = &*case;
        if let Some(reason) = case.unsupported_on(backend) {
            eprintln!("kernel `{}`, case `{name}`: not run on the {backend}: {reason}", self.def.name);
            return Ok(());
        }
        let want = self.expected(case);
        let mut failures = Failures::default();
        for &policy in &self.policies {
            let spec = self.spec(case, policy);
            let fail = |what| Failure::new(self.def.name, case, backend, policy, spec.clone(), what);
            let got = match backend {
                Backend::Interpreter => run_interpreter(&self.def, case, policy),
                Backend::Simulator => run_simulator(&self.def, case, policy),
                Backend::Gpu => run_gpu(&self.def, case, policy, self.gpu),
            };
            let got = match got {
                Ok(got) => got,
                Err(e) => {
                    let note = faulting_address(&e).and_then(|a| locate(case, a));
                    failures.0.push(Failure { address_note: note, ..fail(FailureKind::Error(e)) });
                    continue;
                }
            };
            if !self.mismatch(case, &got, &want, "the CPU reference").is_empty() {
                let got = self.with_writers(case, got, policy);
                failures.0.extend(self.mismatch(case, &got, &want, "the CPU reference").into_iter().map(fail));
                continue;
            }
            if backend == Backend::Interpreter {
                continue;
            }
            if let Some(reason) = case.unsupported_on(Backend::Interpreter) {
                eprintln!(
                    "kernel `{}`, case `{name}`: the {backend} is checked against the CPU reference only; the \
                     interpreter does not run this case: {reason}",
                    self.def.name
                );
                continue;
            }
            match run_interpreter(&self.def, case, policy) {
                Ok(interp) => {
                    if !self.mismatch(case, &got, &interp, "the interpreter").is_empty() {
                        let got = self.with_writers(case, got, policy);
                        failures.0.extend(self.mismatch(case, &got, &interp, "the interpreter").into_iter().map(fail));
                    }
                }
                Err(e) => {
                    failures.0.push(fail(FailureKind::Unchecked { against: "the interpreter", why: e.to_string() }))
                }
            }
        }
        if failures.0.is_empty() { Ok(()) } else { Err(failures) }
    }

    /// [`Suite::run`], panicking with the report (for `#[test]` functions).
    pub fn check(&self, name: &str, backend: Backend) {
        if let Err(f) = self.run(name, backend) {
            panic!("{f}");
        }
    }

    /// Every case on `backend`; panics with every failure.
    pub fn check_all(&self, backend: Backend) {
        let failures: Vec<Failure> =
            self.cases.iter().filter_map(|c| self.run(&c.name, backend).err()).flat_map(|f| f.0).collect();
        assert!(failures.is_empty(), "{}", Failures(failures));
    }

    /// `got` with the writer of each element: its own (the simulator's), or else the
    /// simulator's for the same case, since which program stores an element is the
    /// kernel's addressing, the same on every back end. Only called for a failing case.
    fn with_writers(&self, case: &Case, mut got: Outputs, policy: SpecPolicy) -> Outputs {
        if got.writers.is_none()
            && let Ok(sim) = run_simulator(&self.def, case, policy)
        {
            got.writers = sim.writers;
        }
        got
    }

    fn spec(&self, case: &Case, policy: SpecPolicy) -> String {
        let mut mem = rtriton::interp::Memory::new();
        match place(&mut mem, case) {
            Ok(placed) => spec_text(&self.def, &placed.args, policy),
            Err(e) => format!("(case not placed: {e})"),
        }
    }

    /// Each output buffer where `got` and `want` differ under its rule, located.
    fn mismatch(&self, case: &Case, got: &Outputs, want: &Outputs, against: &'static str) -> Vec<FailureKind> {
        let mut found = Vec::new();
        for (k, ((name, g), (_, w))) in got.buffers.iter().zip(&want.buffers).enumerate() {
            let (rule, own_rule) = self.rule_of(name);
            let (diffs, total) = differences(g, w, &rule, SHOWN);
            if total == 0 {
                continue;
            }
            let view = &case.tensor(name).view;
            let elements = diffs
                .into_iter()
                .map(|d| Located {
                    index: view.index_of(d.element),
                    writer: got.writers.as_ref().and_then(|w| w[k].get(d.element).copied().flatten()),
                    diff: d,
                })
                .collect();
            found.push(FailureKind::Mismatch { against, rule, own_rule, tensor: name, elements, total });
        }
        found
    }
}

/// The global address a CPU back end's fault names, if any.
fn faulting_address(e: &RunError) -> Option<u64> {
    use rtriton::interp::{Fault, InterpError};
    match e {
        RunError::Interpreter(InterpError::Fault {
            fault: Fault::OutOfBounds { addr, .. } | Fault::Misaligned { addr, .. },
            ..
        }) => Some(*addr),
        RunError::Simulator(s) => match s.0.address {
            Some(rtriton::sim::Address::Global(a)) => Some(a),
            Some(rtriton::sim::Address::Shared(_)) | None => None,
        },
        _ => None,
    }
}

/// `element 1000 of `x` (one past the last of its 1000)`: the tensor whose buffer starts
/// nearest below `addr` in the CPU back ends' memory (placement is deterministic, so a
/// fresh placement has the addresses the run had), and the element and view index there.
fn locate(case: &Case, addr: u64) -> Option<String> {
    let mut mem = rtriton::interp::Memory::new();
    let placed = place(&mut mem, case).ok()?;
    let (t, base) = case.tensors().zip(&placed.buffers).filter(|(_, b)| **b <= addr).max_by_key(|(_, b)| **b)?;
    let size = t.data.dtype().size_bytes();
    let element = (addr - base) / size;
    let len = t.data.len() as u64;
    let mut text = format!("element {element} of `{}` (a buffer of {len} {})", t.name, t.data.dtype());
    if element >= len {
        text += &format!(", {} past its last element", element - len + 1);
    } else if let Some(index) = t.view.index_of(element as usize) {
        text += &format!(", view index {index:?}");
    } else {
        text += ", outside the view";
    }
    if !(addr - base).is_multiple_of(size) {
        text += &format!(", byte {} of it", (addr - base) % size);
    }
    Some(text)
}

/// The argument values `case` passes (tensors at their interpreter addresses): for
/// specialization questions in tests.
pub fn arg_values(case: &Case) -> Result<Vec<ArgValue>, RunError> {
    let mut mem = rtriton::interp::Memory::new();
    Ok(place(&mut mem, case)?.args)
}

/// The whole buffer of output `name` in `outputs`.
pub fn output<'a>(outputs: &'a Outputs, name: &str) -> Option<&'a Data> {
    outputs.buffers.iter().find(|(n, _)| *n == name).map(|(_, d)| d)
}
