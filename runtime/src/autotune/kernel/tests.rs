//! The decision rules of an autotuned kernel, without a GPU: `choose` gets a fake tuning
//! (counted), so which launches tune, which reuse a choice (memory, disk) and which skip
//! tuning (an explicit configuration, tuning off, one configuration) are checked here.

use std::cell::Cell;

use rstest::rstest;
use rtriton::diag::HasDiagnostics;
use rtriton::ir::ScalarType;
use rtriton_kernels::RowMaxVariant;

use super::*;
use crate::autotune::{Trial, tuning_report};
use crate::driver::RawBuffer;
use crate::launch::TensorArg;
use crate::timing::Summary;

const KEY: [&str; 2] = ["n_rows", "n_cols"];

fn configs() -> Vec<Config> {
    vec![
        Config::new(&[("BLOCK_M", 16), ("BLOCK_N", 64)]),
        Config::new(&[("BLOCK_M", 4), ("BLOCK_N", 256)]).num_warps(8),
        Config::new(&[("BLOCK_M", 1), ("BLOCK_N", 1024)]),
    ]
}

fn tuned(settings: Settings) -> Autotuned {
    Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs(), &KEY)
        .restore_value(&["y_ptr"])
        .settings(settings)
}

fn args(rows: usize, cols: usize) -> Vec<Arg<'static>> {
    let x = RawBuffer::unowned(0x1000, rows * cols, ScalarType::F32);
    let y = RawBuffer::unowned(0x100_0000, rows, ScalarType::F32);
    vec![
        Arg::Tensor(TensorArg::from_raw(x, &[rows, cols], &[cols as isize, 1])),
        Arg::Tensor(TensorArg::from_raw(y, &[rows], &[1])),
        Arg::Int(rows as i64),
        Arg::Int(cols as i64),
        Arg::Int(cols as i64),
        Arg::Int(1),
    ]
}

/// A tuning that picks configuration `winner` and counts how often it ran.
fn fake(
    winner: usize,
    count: &Cell<u32>,
) -> impl FnOnce(Site<'_>, &[Config], &Settings) -> Result<TuneOutcome, HostError> + '_ {
    move |_, configs, _| {
        count.set(count.get() + 1);
        let s = |m: f64| Summary { samples: 10, median_ms: m, p10_ms: m, p90_ms: m, min_ms: m, max_ms: m };
        let trials = configs
            .iter()
            .enumerate()
            .map(|(i, c)| (c.clone(), Trial::Timed(s(if i == winner { 0.1 } else { 1.0 }))))
            .collect();
        Ok(TuneOutcome { best: winner, trials, seconds: 0.5 })
    }
}

fn never(_: Site<'_>, _: &[Config], _: &Settings) -> Result<TuneOutcome, HostError> {
    panic!("this launch must not tune")
}

#[test]
fn the_first_launch_of_a_key_tunes_and_later_launches_of_it_do_not() {
    let mut k = tuned(Settings::in_memory());
    let count = Cell::new(0);
    let c = k.choose("gpu", &args(4096, 1000), None, fake(1, &count)).unwrap();
    assert_eq!((c.index, c.decision, count.get()), (Some(1), Decision::Tuned, 1));
    assert_eq!(c.config, configs()[1]);
    let again = k.choose("gpu", &args(4096, 1000), None, never).unwrap();
    assert_eq!((again.config, again.decision), (configs()[1].clone(), Decision::Memory));
    // Another key value tunes again; so does another specialization of an unnamed argument.
    let other = k.choose("gpu", &args(4096, 1001), None, fake(2, &count)).unwrap();
    assert_eq!((other.index, other.decision, count.get()), (Some(2), Decision::Tuned, 2));
    assert_eq!(k.stats, TuneStats { tunings: 2, memory_hits: 1, ..TuneStats::default() });
}

#[test]
fn a_launch_that_names_a_configuration_skips_tuning_and_leaves_no_choice_behind() {
    let mut k = tuned(Settings::in_memory());
    let explicit = Config::new(&[("BLOCK_M", 2), ("BLOCK_N", 32)]);
    let c = k.choose("gpu", &args(4096, 1000), Some(&explicit), never).unwrap();
    assert_eq!((c.index, c.config, c.decision), (None, explicit, Decision::Explicit));
    let declared = k.choose("gpu", &args(4096, 1000), Some(&configs()[2]), never).unwrap();
    assert_eq!(declared.index, Some(2));
    // The explicit launches decided nothing for the key: a plain launch still tunes.
    let count = Cell::new(0);
    assert_eq!(k.choose("gpu", &args(4096, 1000), None, fake(0, &count)).unwrap().decision, Decision::Tuned);
    assert_eq!(k.stats.explicit, 2);
}

#[test]
fn tuning_off_or_a_single_configuration_launches_the_first_without_timing() {
    let off = Settings { mode: Mode::Off, ..Settings::in_memory() };
    let mut k = tuned(off);
    let c = k.choose("gpu", &args(64, 64), None, never).unwrap();
    assert_eq!((c.index, c.decision), (Some(0), Decision::First));
    let mut one = Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs()[..1].to_vec(), &KEY)
        .settings(Settings::in_memory());
    // One configuration has nothing to compare, so outputs need not be named.
    assert_eq!(one.choose("gpu", &args(64, 64), None, never).unwrap().decision, Decision::First);
}

#[test]
fn a_second_process_reads_the_choice_from_disk_and_a_damaged_store_tunes_again() {
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings { mode: Mode::Tune, store_dir: Some(dir.path().to_path_buf()), ..Settings::in_memory() };
    let count = Cell::new(0);
    let mut first = tuned(settings.clone());
    assert_eq!(first.choose("H200", &args(4096, 1000), None, fake(2, &count)).unwrap().decision, Decision::Tuned);
    // A new autotuner (as in a new process): the store decides.
    let mut second = tuned(settings.clone());
    let c = second.choose("H200", &args(4096, 1000), None, never).unwrap();
    assert_eq!((c.index, c.decision), (Some(2), Decision::Store));
    let report = second.last_report.clone().unwrap();
    assert!(report.starts_with("rtriton autotuning for kernel row_max_2d,\nwith key as (n_rows=4096, n_cols=1000, x_ptr:f32, y_ptr:f32, spec("), "{report}");
    assert!(
        report.contains("\nread from ")
            && report.ends_with("\nbest config selected: BLOCK_M: 1, BLOCK_N: 1024, num_warps: 4;\n"),
        "{report}"
    );
    // ...then memory.
    assert_eq!(second.choose("H200", &args(4096, 1000), None, never).unwrap().decision, Decision::Memory);
    // Another device, or other configurations, is another identity: tuned again.
    assert_eq!(
        tuned(settings.clone()).choose("A100", &args(4096, 1000), None, fake(0, &count)).unwrap().decision,
        Decision::Tuned
    );
    let mut fewer = Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs()[..2].to_vec(), &KEY)
        .restore_value(&["y_ptr"])
        .settings(settings.clone());
    assert_eq!(fewer.choose("H200", &args(4096, 1000), None, fake(0, &count)).unwrap().decision, Decision::Tuned);
    // Damage every stored file: a miss, tuned again, and stored again.
    for f in std::fs::read_dir(dir.path()).unwrap() {
        let path = f.unwrap().path();
        let mut b = std::fs::read(&path).unwrap();
        let n = b.len();
        b[n - 3] ^= 0x20;
        std::fs::write(&path, b).unwrap();
    }
    let before = count.get();
    assert_eq!(
        tuned(settings.clone()).choose("H200", &args(4096, 1000), None, fake(1, &count)).unwrap().decision,
        Decision::Tuned
    );
    assert_eq!(count.get(), before + 1);
    let c = tuned(settings).choose("H200", &args(4096, 1000), None, never).unwrap();
    assert_eq!((c.index, c.decision), (Some(1), Decision::Store));
}

#[test]
fn memory_only_writes_nothing_to_disk() {
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings { mode: Mode::MemoryOnly, store_dir: None, ..Settings::in_memory() };
    let count = Cell::new(0);
    tuned(settings.clone()).choose("H200", &args(64, 64), None, fake(0, &count)).unwrap();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    assert_eq!(tuned(settings).choose("H200", &args(64, 64), None, fake(0, &count)).unwrap().decision, Decision::Tuned);
}

#[test]
fn the_report_is_kept_and_is_the_printed_format() {
    let mut k = tuned(Settings::in_memory());
    let count = Cell::new(0);
    k.choose("gpu", &args(64, 64), None, fake(0, &count)).unwrap();
    let key = TuneKey::of(k.base(), &KEY, &args(64, 64)).unwrap();
    let outcome = fake(0, &Cell::new(0))(
        Site { kernel: "k", loc: SourceLoc::caller(), agreement: Agreement::Bits },
        &configs(),
        &Settings::in_memory(),
    )
    .unwrap();
    assert_eq!(k.last_report, Some(tuning_report("row_max_2d", &key.to_string(), &outcome)));
}

/// Each row is one mistake in a declaration; the error has the code, points at the
/// declaration's line (this file) and says what to do.
#[rstest]
#[case::no_configs(vec![], &KEY, &["y_ptr"], "no configurations to choose from")]
#[case::duplicate(vec![configs()[0].clone(), configs()[1].clone(), configs()[0].clone()], &KEY, &["y_ptr"], "configuration 2 (`BLOCK_M: 16, BLOCK_N: 64, num_warps: 4`) is declared twice")]
#[case::unknown_key(configs(), &["n_rows", "rows"], &["y_ptr"], "the key names `rows`, which is not a parameter of `row_max_2d`")]
#[case::unknown_output(configs(), &KEY, &["out_ptr"], "the output `out_ptr` is not a pointer parameter of `row_max_2d`")]
#[case::scalar_output(configs(), &KEY, &["n_rows"], "the output `n_rows` is not a pointer parameter of `row_max_2d`")]
#[case::no_outputs(configs(), &KEY, &[], "no outputs named: tuning could neither check the configurations' results nor keep your buffers")]
fn a_bad_declaration_is_a_located_error(
    #[case] configs: Vec<Config>,
    #[case] key: &[&'static str],
    #[case] outputs: &[&'static str],
    #[case] message: &str,
) {
    let line = line!() + 1;
    let mut k = Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs, key)
        .restore_value(outputs)
        .settings(Settings::in_memory());
    let e = k.choose("gpu", &args(64, 64), None, never).unwrap_err();
    assert!(e.has_code(Code::AutotuneDeclaration), "{e}");
    let d = &e.diagnostics()[0];
    assert_eq!((d.loc.unwrap().file, d.loc.unwrap().line), (file!(), line));
    assert_eq!(d.message, message);
    assert!(!d.help.is_empty());
}

/// A fill before calls must name an output the tuner keeps (else tuning would fill the
/// user's buffer with nothing to restore it from).
#[test]
fn a_fill_of_a_buffer_that_is_not_an_output_is_a_declaration_error() {
    let line = line!() + 1;
    let mut k = Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs(), &KEY)
        .restore_value(&["y_ptr"])
        .fill_before_call("x_ptr", 0xFF80_0000, |_| true)
        .settings(Settings::in_memory());
    let e = k.choose("gpu", &args(64, 64), None, never).unwrap_err();
    assert!(e.has_code(Code::AutotuneDeclaration), "{e}");
    let d = &e.diagnostics()[0];
    assert_eq!((d.loc.unwrap().file, d.loc.unwrap().line), (file!(), line));
    assert_eq!(d.message, "`x_ptr` is filled before calls, but it is not a named output");
    // Named as an output too, the same declaration is accepted.
    let ok = Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs(), &KEY)
        .restore_value(&["y_ptr"])
        .fill_before_call("y_ptr", 0xFF80_0000, |_| true)
        .settings(Settings::in_memory());
    assert!(ok.check().is_ok());
}

#[test]
fn a_bad_environment_value_fails_the_launch_with_its_code() {
    let mut k = tuned(Settings::in_memory());
    k.settings = Settings::from_vars("row_max_2d", |n| (n == "RTRITON_AUTOTUNE").then(|| "sometimes".into()));
    let e = k.choose("gpu", &args(64, 64), None, never).unwrap_err();
    assert!(e.has_code(Code::AutotuneEnv), "{e}");
    // An explicit configuration does not read the settings.
    assert!(k.choose("gpu", &args(64, 64), Some(&configs()[0]), never).is_ok());
}

#[test]
fn the_identity_names_everything_a_stored_choice_depends_on() {
    let k = tuned(Settings::in_memory());
    let key = TuneKey::of(k.base(), &KEY, &args(64, 64)).unwrap();
    let id = k.identity("NVIDIA H200 sm_90 driver 13000", &key, &Settings::in_memory());
    for part in [
        "row_max_2d@kernels-gpu/src/row_max.rs:",
        "key(n_rows=64, n_cols=64, x_ptr:f32, y_ptr:f32, spec(",
        "configs[BLOCK_M: 16, BLOCK_N: 64, num_warps: 4; BLOCK_M: 4, BLOCK_N: 256, num_warps: 8; BLOCK_M: 1, BLOCK_N: 1024, num_warps: 4]",
        "device(NVIDIA H200 sm_90 driver 13000)",
        "compiler(",
        "policy(Triton)",
        "timing(warmup 1, reps 10)",
    ] {
        assert!(id.contains(part), "{part} not in {id}");
    }
}

/// Keyed by class, a shape of the same power-of-two classes reuses the choice; the next
/// class tunes again.
#[test]
fn keyed_by_class_similar_shapes_share_one_tuning() {
    let mut k = tuned(Settings::in_memory()).key_classes(&KEY);
    let count = Cell::new(0);
    assert_eq!(k.choose("gpu", &args(4096, 1000), None, fake(1, &count)).unwrap().decision, Decision::Tuned);
    // 4096 and 4000 rows, 1000 and 1001 columns: one class each, and one specialization
    // (the rows divisible by 16, the columns and row stride not).
    let same = k.choose("gpu", &args(4000, 1001), None, never).unwrap();
    assert_eq!((same.index, same.decision), (Some(1), Decision::Memory));
    let next = k.choose("gpu", &args(4096, 2000), None, fake(2, &count)).unwrap();
    assert_eq!((next.index, next.decision, count.get()), (Some(2), Decision::Tuned, 2));
}

#[rstest]
#[case::not_in_the_key(&["n_rows", "stride_row"], "`stride_row` is keyed by class, but it is not an integer parameter named in the key")]
#[case::a_pointer(&["x_ptr"], "`x_ptr` is keyed by class, but it is not an integer parameter named in the key")]
fn keying_by_class_what_is_not_an_integer_key_is_a_located_error(
    #[case] classes: &[&'static str],
    #[case] message: &str,
) {
    let line = line!() + 1;
    let k = Autotuned::new(JitKernel::new(RowMaxVariant::RowMax2d.def()), configs(), &["n_rows", "x_ptr"])
        .restore_value(&["y_ptr"])
        .key_classes(classes)
        .settings(Settings::in_memory());
    let e = k.check().unwrap_err();
    assert!(e.has_code(Code::AutotuneDeclaration), "{e}");
    let d = &e.diagnostics()[0];
    assert_eq!((d.loc.unwrap().line, d.message.as_str()), (line, message));
}

#[test]
fn decided_reports_the_choice_of_a_tuned_key_only_and_set_grid_replaces_the_grid() {
    let mut k = tuned(Settings::in_memory()).key_classes(&KEY);
    assert_eq!(k.decided(&args(4096, 1000)), None);
    k.choose("gpu", &args(4096, 1000), None, fake(2, &Cell::new(0))).unwrap();
    assert_eq!(k.decided(&args(4000, 1001)), Some(&configs()[2]), "the same key by class");
    assert_eq!(k.decided(&args(64, 1000)), None, "another key");
    k.set_grid(|m| Ok([m.get("BLOCK_M").ok_or("BLOCK_M")? as u64 * 3, 2, 1]));
    assert_eq!(configs()[0].apply(k.base()).grid_for_launch().unwrap(), [48, 2, 1]);
}
