use rstest::rstest;

use super::*;

fn key(kernel: &'static str) -> CacheKey {
    let mut k = super::super::key::test_key();
    k.stage.kernel = kernel;
    k
}

fn ptx() -> CompiledPtx {
    CompiledPtx {
        text: ".version 7.8\n".into(),
        entry: "k".into(),
        threads_per_cta: 128,
        shared_bytes: 16,
        shared_site: None,
    }
}

fn temp_root() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("rtriton-cache-test-").tempdir().expect("a temporary folder")
}

#[test]
fn put_then_get_round_trips_and_other_keys_miss() {
    let root = temp_root();
    let cache = DiskCache::new(root.path());
    assert_eq!(cache.get(&key("a")), None);
    cache.put(&key("a"), &ptx()).unwrap();
    assert_eq!(cache.get(&key("a")), Some(ptx()));
    assert_eq!(cache.get(&key("b")), None);
    // A second cache object on the same folder (another process) sees the entry.
    assert_eq!(DiskCache::new(cache.root()).get(&key("a")), Some(ptx()));
    let entries = cache.entries();
    assert_eq!(entries.len(), 1);
    assert_eq!((entries[0].kernel.as_str(), &entries[0].state), ("a", &EntryState::Valid));
    assert_eq!(cache.clear().unwrap(), 1);
    assert_eq!((cache.entries().len(), cache.get(&key("a"))), (0, None));
    assert_eq!(cache.clear().unwrap(), 0);
}

#[test]
fn an_entry_for_another_key_under_the_same_name_is_a_miss() {
    let root = temp_root();
    let cache = DiskCache::new(root.path());
    cache.put(&key("a"), &ptx()).unwrap();
    let other = CacheKey { compiler: "other".into(), ..key("a") };
    std::fs::copy(cache.path(&key("a")), cache.path(&other)).unwrap();
    assert_eq!(cache.get(&other), None);
}

#[test]
fn an_unwritable_root_is_a_clear_error() {
    let root = temp_root();
    let file = root.path().join("file");
    std::fs::write(&file, "not a folder").unwrap();
    let e = DiskCache::new(&file).put(&key("a"), &ptx()).unwrap_err();
    assert!(e.to_string().contains("set RTRITON_CACHE_DIR to a writable folder"), "{e}");
}

/// A damaged entry (each row damages a good one in one way) is a miss, and `entries`
/// lists it as corrupt with the reason.
#[rstest]
#[case::empty(|_: &[u8]| Vec::new(), "no header line")]
#[case::garbage(|_: &[u8]| b"garbage\n{}".to_vec(), "not an rtriton v1 entry")]
#[case::old_format(|_: &[u8]| br#"{"key":{},"ptx":{}}"#.to_vec(), "no header line")]
#[case::truncated(|b: &[u8]| b[..b.len() - 10].to_vec(), "truncated or padded: ")]
#[case::padded(|b: &[u8]| [b, b"  ".as_slice()].concat(), "truncated or padded: ")]
#[case::flipped_byte(|b: &[u8]| { let mut v = b.to_vec(); let n = v.len(); v[n - 5] ^= 1; v }, "checksum mismatch")]
#[case::no_checksum(|b: &[u8]| { let body = &b[b.iter().position(|&c| c == b'\n').unwrap() + 1..]; [format!("{MAGIC} {}\n", body.len()).as_bytes(), body].concat() }, "the header has no checksum")]
fn damaged_entries_are_misses_and_listed_as_corrupt(#[case] damage: fn(&[u8]) -> Vec<u8>, #[case] reason: &str) {
    let root = temp_root();
    let cache = DiskCache::new(root.path());
    cache.put(&key("a"), &ptx()).unwrap();
    let path = cache.path(&key("a"));
    let good = std::fs::read(&path).unwrap();
    std::fs::write(&path, damage(&good)).unwrap();
    assert_eq!(cache.get(&key("a")), None);
    let entries = cache.entries();
    assert_eq!(entries.len(), 1);
    match &entries[0].state {
        EntryState::Corrupt(why) => assert!(why.starts_with(reason), "{why}"),
        EntryState::Valid => panic!("a damaged entry is listed as valid"),
    }
    // The next store replaces it.
    cache.put(&key("a"), &ptx()).unwrap();
    assert_eq!((cache.get(&key("a")), &cache.entries()[0].state), (Some(ptx()), &EntryState::Valid));
}

/// Stores the same key `rounds` times into `root`, reading it back after each store;
/// returns the failures.
fn store_many(root: &Path, rounds: usize) -> Vec<String> {
    let cache = DiskCache::new(root);
    let mut failures = Vec::new();
    for _ in 0..rounds {
        if let Err(e) = cache.put(&key("shared"), &ptx()) {
            failures.push(e.to_string());
        }
        // Another writer may be between its write and its rename: the entry is still whole.
        if cache.get(&key("shared")) != Some(ptx()) {
            failures.push("a read saw no entry or a partial one".into());
        }
    }
    failures
}

/// No stray temporary files, exactly one valid entry.
fn assert_one_valid_entry(root: &Path) {
    let files: Vec<_> = std::fs::read_dir(root.join("ptx")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let entries = DiskCache::new(root).entries();
    assert_eq!(entries[0].state, EntryState::Valid);
}

#[test]
fn eight_threads_storing_the_same_key_all_succeed() {
    let root = temp_root();
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8).map(|_| s.spawn(|| store_many(root.path(), 20))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("no panic")).collect()
    });
    assert_eq!(failures, Vec::<String>::new());
    assert_one_valid_entry(root.path());
}

/// Set by [`eight_processes_storing_the_same_key_all_succeed`] in the processes it starts.
const CHILD_DIR_ENV: &str = "RTRITON_DISK_CACHE_TEST_CHILD_DIR";

/// One writer process: run by itself it stores into its own folder; started by the
/// eight-process test it stores into the shared one.
#[test]
fn one_writer_process() {
    let own = temp_root();
    let dir = std::env::var_os(CHILD_DIR_ENV).map_or_else(|| own.path().to_path_buf(), PathBuf::from);
    assert_eq!(store_many(&dir, 20), Vec::<String>::new());
}

#[test]
fn eight_processes_storing_the_same_key_all_succeed() {
    let root = temp_root();
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = (0..8)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "cache::disk::tests::one_writer_process", "--test-threads", "1"])
                .env(CHILD_DIR_ENV, root.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("the test binary starts")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        // The child ran the writer test, not an empty filter.
        assert!(stdout.contains("1 passed"), "{stdout}");
    }
    assert_one_valid_entry(root.path());
}
