use rstest::rstest;

use super::*;
use crate::cache::key::{CachedExtent, CachedTensorMap};

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
        // A tensor map goes through the entry's JSON and back like the rest.
        tensor_maps: vec![CachedTensorMap {
            elem: "f16".into(),
            base: 0,
            dims: vec![CachedExtent::Param(3), CachedExtent::Const(64)],
            strides: vec![CachedExtent::Param(6), CachedExtent::Const(1)],
            box_dims: vec![128, 64],
            swizzle: 128,
        }],
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
    assert_eq!(cache.clear().unwrap(), Cleared { removed: 1, left: Vec::new() });
    assert_eq!((cache.entries().len(), cache.get(&key("a"))), (0, None));
    assert!(!root.path().join("ptx").exists(), "an emptied folder goes too");
    assert_eq!(cache.clear().unwrap(), Cleared { removed: 0, left: Vec::new() });
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

/// `clear` deletes only what rtriton wrote: files of other names, a file named as an entry
/// without the header, a folder and a link stay, and the result says what stayed.
#[test]
fn clear_removes_only_rtritons_own_files_and_lists_the_rest() {
    let root = temp_root();
    let cache = DiskCache::new(root.path());
    cache.put(&key("a"), &ptx()).unwrap();
    cache.put(&key("b"), &ptx()).unwrap();
    let dir = root.path().join("ptx");
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    std::fs::write(dir.join("data.json"), "{}").unwrap();
    std::fs::write(dir.join("row_max-0123456789abcdef.json"), "not a cache entry").unwrap();
    std::fs::write(dir.join(".abc123.tmp"), "someone else's temporary file").unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub").join("row_max-0123456789abcdef.json"), "kept").unwrap();
    // A leftover of an interrupted write (an hour old) is rtriton's; a fresh one may be a
    // write in progress and stays.
    let entry = std::fs::read(cache.path(&key("a"))).unwrap();
    std::fs::write(dir.join(".Xy12Ab.tmp"), &entry).unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for old in [".Xy12Ab.tmp", ".abc123.tmp"] {
        std::fs::File::options().write(true).open(dir.join(old)).unwrap().set_modified(an_hour_ago).unwrap();
    }
    std::fs::write(dir.join(".InProg.tmp"), &entry).unwrap();
    let cleared = cache.clear().unwrap();
    assert_eq!(cleared.removed, 3);
    let left: Vec<(&str, &str)> = cleared.left.iter().map(|o| (o.file.as_str(), o.why.as_str())).collect();
    assert_eq!(
        left,
        [
            (".abc123.tmp", "named as rtriton's but without its header"),
            ("data.json", "not named as an rtriton entry"),
            ("notes.txt", "not named as an rtriton entry"),
            ("row_max-0123456789abcdef.json", "named as rtriton's but without its header"),
            ("sub", "not a regular file"),
        ]
    );
    assert!(!dir.join(".Xy12Ab.tmp").exists());
    for kept in [
        "notes.txt",
        "data.json",
        "row_max-0123456789abcdef.json",
        ".abc123.tmp",
        ".InProg.tmp",
        "sub/row_max-0123456789abcdef.json",
    ] {
        assert!(dir.join(kept).exists(), "{kept} was deleted");
    }
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "mine");
    assert_eq!((cache.get(&key("a")), cache.get(&key("b"))), (None, None));
}

/// A FIFO in the folder is listed as not a regular file and never opened (opening one
/// blocks until a writer comes); `clear` leaves it.
#[test]
fn a_fifo_in_the_folder_is_skipped_not_opened() {
    let root = temp_root();
    let cache = DiskCache::new(root.path());
    cache.put(&key("a"), &ptx()).unwrap();
    let fifo = root.path().join("ptx").join("a-0123456789abcdef.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        if cfg!(target_os = "linux") {
            panic!("mkfifo is part of every Linux system");
        }
        return;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let c = cache.clone();
    std::thread::spawn(move || tx.send((c.listing(), c.clear())).unwrap());
    let (listing, cleared) =
        rx.recv_timeout(std::time::Duration::from_secs(20)).expect("listing and clearing return with a FIFO present");
    let listing = listing.unwrap();
    assert_eq!(listing.entries.len(), 1);
    assert_eq!(listing.others, [Other { file: "a-0123456789abcdef.json".into(), why: "not a regular file".into() }]);
    let cleared = cleared.unwrap();
    assert_eq!((cleared.removed, cleared.left.len()), (1, 1));
    assert!(fifo.exists());
}

/// A root that is a file, and a folder that cannot be read, are errors naming the path,
/// not an empty cache.
#[cfg(unix)]
#[test]
fn an_unreadable_folder_or_a_file_as_root_is_an_error() {
    let root = temp_root();
    let file = root.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let e = DiskCache::new(&file).listing().unwrap_err().to_string();
    assert!(e.contains(&format!("{}: this is a file, not a folder", file.display())), "{e}");
    assert!(DiskCache::new(&file).clear().is_err());
    // No folder yet: an empty cache.
    assert_eq!(DiskCache::new(root.path().join("none")).listing().unwrap(), Listing::default());
    let cache = DiskCache::new(root.path().join("locked"));
    cache.put(&key("a"), &ptx()).unwrap();
    let dir = cache.root().join("ptx");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o000)).unwrap();
    let result = cache.listing();
    // Root reads any folder; everyone else gets the error.
    let denied = std::fs::read_dir(&dir).is_err();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    if denied {
        let e = result.unwrap_err().to_string();
        assert!(e.contains(&dir.display().to_string()) && e.contains("ermission denied"), "{e}");
    }
}
