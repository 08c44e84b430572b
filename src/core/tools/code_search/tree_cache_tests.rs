//! The tree cache on real trees: a warm walk reads nothing from the disk and gives what a walk
//! of the disk gives, after every kind of change the kernel reports (content, new, removed and
//! renamed names, a file or a folder swapped for a link, a folder renamed and made again, a
//! start folder's parent renamed), a queue overflow, the budget and its eviction order, and
//! files the cache must never keep (links, hard-linked files).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::super::walk::tests::DISK_READS;
use super::super::walk::Walker;
use super::super::MAX_FILE_BYTES;
use super::*;
use crate::core::budget::Budget;
use crate::core::security::workspace::beneath::HardLinks;
use crate::core::security::workspace::open_root::OpenRoot;

/// A cache of its own for one test (other tests' searches neither drain its events nor
/// share its budget).
fn cache(budget: usize) -> &'static Mutex<Cache> {
    Box::leak(Box::new(Mutex::new(Cache::new(budget))))
}

/// What a cache holds now: (roots, folders, bytes, watches).
fn stats_of(cache: &Mutex<Cache>) -> (usize, usize, usize, usize) {
    let c = lock(cache);
    let folders = c.roots.iter().map(|r| r.folders.len()).sum();
    (c.roots.len(), folders, c.bytes(), c.by_wd.len())
}

/// A small workspace: `a.php`, `lib/b.php`, `lib/deep/c.php`, `docs/d.md`.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir_all(root.join("lib/deep")).unwrap();
    fs::create_dir_all(root.join("docs")).unwrap();
    fs::write(root.join("a.php"), "alpha\n").unwrap();
    fs::write(root.join("lib/b.php"), "beta\n").unwrap();
    fs::write(root.join("lib/deep/c.php"), "gamma\n").unwrap();
    fs::write(root.join("docs/d.md"), "delta\n").unwrap();
    (dir, root)
}

/// Every file a walk of `sub` hands over with what reading it gives (`None`: refused), and how
/// many files were read from the disk.
fn walk(
    c: Option<&'static Mutex<Cache>>,
    root: &Path,
    sub: &str,
) -> (Vec<(String, Option<String>)>, usize) {
    let open = OpenRoot::get(root.to_str().unwrap()).unwrap();
    let budget = Arc::new(Budget::walk());
    let tree = c.and_then(|c| Tree::begin_in(c, open.identity().unwrap()));
    let w = Walker::with_tree(
        open.clone(),
        sub.as_bytes().to_vec(),
        String::new(),
        budget,
        tree,
    );
    let before = DISK_READS.with(std::cell::Cell::get);
    let mut buf = Vec::new();
    let got = w
        .map(|v| {
            let rel = String::from_utf8(v.rel()).unwrap();
            let text = v
                .read(&open, HardLinks::Refuse, &mut buf)
                .then(|| String::from_utf8_lossy(&buf).into_owned());
            (rel, text)
        })
        .collect();
    (got, DISK_READS.with(std::cell::Cell::get) - before)
}

/// A cached walk of `sub` gives what the disk gives; how many files it read from the disk.
fn same_as_disk(c: &'static Mutex<Cache>, root: &Path, sub: &str) -> usize {
    let (cached, reads) = walk(Some(c), root, sub);
    let (disk, _) = walk(None, root, sub);
    if cached != disk {
        let short = |v: &[(String, Option<String>)]| -> Vec<(String, Option<usize>)> {
            v.iter()
                .map(|(r, t)| (r.clone(), t.as_ref().map(String::len)))
                .collect()
        };
        panic!(
            "sub {sub:?}: cached {:?} disk {:?}",
            short(&cached),
            short(&disk)
        );
    }
    reads
}

#[test]
fn a_warm_walk_reads_no_file_and_gives_what_the_disk_gives() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    assert_eq!(same_as_disk(c, &root, ""), 4);
    assert_eq!(same_as_disk(c, &root, ""), 0);
    // A walk of a folder inside uses what the root's walk kept.
    assert_eq!(same_as_disk(c, &root, "lib"), 0);
}

#[test]
fn a_changed_file_is_read_again_and_only_it() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    same_as_disk(c, &root, "");
    fs::write(root.join("lib/b.php"), "BETA\n").unwrap();
    assert_eq!(same_as_disk(c, &root, ""), 1);
    // Appended to through an open file, truncated, mode changed: each is seen.
    use std::io::Write;
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(root.join("a.php"))
        .unwrap();
    f.write_all(b"more\n").unwrap();
    drop(f);
    assert_eq!(same_as_disk(c, &root, ""), 1);
    fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(root.join("a.php"))
        .unwrap();
    assert_eq!(same_as_disk(c, &root, ""), 1);
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(root.join("docs/d.md"), fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(same_as_disk(c, &root, ""), 1);
    assert_eq!(same_as_disk(c, &root, ""), 0);
}

#[test]
fn names_made_removed_and_renamed_are_seen() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    same_as_disk(c, &root, "");
    fs::write(root.join("lib/new.php"), "new\n").unwrap();
    assert_eq!(same_as_disk(c, &root, ""), 1);
    fs::remove_file(root.join("a.php")).unwrap();
    same_as_disk(c, &root, "");
    fs::rename(root.join("lib/b.php"), root.join("docs/b.php")).unwrap();
    same_as_disk(c, &root, "");
    // Replaced by a rename over it, as file_write does.
    fs::write(root.join("docs/tmp"), "replaced\n").unwrap();
    fs::rename(root.join("docs/tmp"), root.join("docs/d.md")).unwrap();
    same_as_disk(c, &root, "");
    assert_eq!(same_as_disk(c, &root, ""), 0);
}

#[test]
fn a_file_or_folder_swapped_for_a_link_is_judged_again() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.php"), "secret\n").unwrap();
    same_as_disk(c, &root, "");
    fs::remove_file(root.join("a.php")).unwrap();
    symlink(outside.path().join("secret.php"), root.join("a.php")).unwrap();
    let (got, _) = walk(Some(c), &root, "");
    assert!(got.contains(&("a.php".into(), None)), "{got:?}");
    same_as_disk(c, &root, "");
    fs::rename(root.join("lib"), root.join("old")).unwrap();
    symlink(outside.path(), root.join("lib")).unwrap();
    let (got, _) = walk(Some(c), &root, "");
    assert!(
        got.iter().all(|(rel, _)| !rel.starts_with("lib/")),
        "{got:?}"
    );
    same_as_disk(c, &root, "");
}

#[test]
fn a_folder_renamed_and_made_again_is_listed_again() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    same_as_disk(c, &root, "");
    fs::rename(root.join("lib"), root.join("lib2")).unwrap();
    fs::create_dir_all(root.join("lib/deep")).unwrap();
    fs::write(root.join("lib/deep/c.php"), "other\n").unwrap();
    same_as_disk(c, &root, "");
    // Removed outright.
    fs::remove_dir_all(root.join("lib2")).unwrap();
    same_as_disk(c, &root, "");
    assert_eq!(same_as_disk(c, &root, ""), 0);
}

/// A workspace whose `lib/deep` was cached by a walk that starts there (so `lib` is not
/// watched), then `lib` renamed away and `lib/deep/c.php` made again: the rename raises no event
/// the cache hears.
fn start_cached_then_parent_replaced(c: &'static Mutex<Cache>) -> (tempfile::TempDir, PathBuf) {
    let (d, root) = workspace();
    same_as_disk(c, &root, "lib/deep");
    fs::rename(root.join("lib"), root.join("was")).unwrap();
    fs::create_dir_all(root.join("lib/deep")).unwrap();
    fs::write(root.join("lib/deep/c.php"), "new\n").unwrap();
    (d, root)
}

#[test]
fn a_start_folder_whose_parent_was_renamed_is_not_trusted() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = start_cached_then_parent_replaced(c);
    assert_eq!(same_as_disk(c, &root, "lib/deep"), 1);
    // Reached from the root, the folder cached as a start is listed again under its parent.
    fs::write(root.join("lib/deep/c.php"), "newer\n").unwrap();
    same_as_disk(c, &root, "");
    assert_eq!(same_as_disk(c, &root, ""), 0);
}

#[test]
fn links_and_hard_linked_files_are_never_kept() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    symlink(root.join("a.php"), root.join("link.php")).unwrap();
    fs::hard_link(root.join("docs/d.md"), root.join("docs/twin.md")).unwrap();
    let open = OpenRoot::get(root.to_str().unwrap()).unwrap();
    let read_all = |hard_links| {
        let tree = Tree::begin_in(c, open.identity().unwrap());
        let budget = Arc::new(Budget::walk());
        let w = Walker::with_tree(open.clone(), Vec::new(), String::new(), budget, tree);
        let before = DISK_READS.with(std::cell::Cell::get);
        let mut buf = Vec::new();
        let n = w.filter(|v| v.read(&open, hard_links, &mut buf)).count();
        (n, DISK_READS.with(std::cell::Cell::get) - before)
    };
    assert_eq!(read_all(HardLinks::Allow), (6, 6));
    // The link and both names of the hard-linked file are read every time.
    assert_eq!(read_all(HardLinks::Allow), (6, 3));
    assert_eq!(read_all(HardLinks::Refuse), (4, 3));
}

#[test]
fn a_queue_overflow_drops_everything_and_the_next_walk_is_right() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    same_as_disk(c, &root, "");
    let a = root.join("a.php");
    let b = root.join("lib/b.php");
    // More events than the kernel queues (16384 by default), alternated so none merge.
    let queued = fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(16384);
    assert!(
        queued <= 1 << 20,
        "a queue this long takes too long to fill: {queued}"
    );
    for i in 0..queued / 2 + 10 {
        fs::write(&a, format!("a{i}\n")).unwrap();
        fs::write(&b, format!("b{i}\n")).unwrap();
    }
    assert_eq!(same_as_disk(c, &root, ""), 4, "everything read again");
    assert_eq!(same_as_disk(c, &root, ""), 0);
}

#[test]
fn an_overflow_event_drops_everything_and_events_parse_across_names() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    same_as_disk(c, &root, "");
    let event = |wd: i32, mask: u32, name: &[u8]| {
        let head = std::mem::size_of::<libc::inotify_event>();
        let len = if name.is_empty() {
            0
        } else {
            (name.len() + 1).next_multiple_of(16)
        };
        let mut out = vec![0u8; head + len];
        out[0..4].copy_from_slice(&wd.to_ne_bytes());
        out[4..8].copy_from_slice(&mask.to_ne_bytes());
        out[12..16].copy_from_slice(&(len as u32).to_ne_bytes());
        out[head..head + name.len()].copy_from_slice(name);
        out
    };
    let root_wd = {
        let g = lock(c);
        *g.by_wd
            .iter()
            .find(|(_, (_, rel))| rel.is_empty())
            .unwrap()
            .0
    };
    // A modified file named by an event is read again, and only it.
    let mut bytes = event(root_wd, libc::IN_MODIFY, b"a.php");
    bytes.extend(event(-1, libc::IN_MODIFY, b"not-ours"));
    assert!(lock(c).apply(&bytes));
    assert_eq!(same_as_disk(c, &root, ""), 1);
    assert!(!lock(c).apply(&event(-1, libc::IN_Q_OVERFLOW, b"")));
    assert_eq!(stats_of(c), (0, 0, 0, 0));
    assert_eq!(same_as_disk(c, &root, ""), 4);
}

#[test]
fn the_budget_bounds_what_is_kept_and_drops_the_least_recent_root_first() {
    use super::super::content_blocks::BLOCK;
    let c = cache(4 * BLOCK);
    let (_d1, one) = workspace();
    let (_d2, two) = workspace();
    same_as_disk(c, &one, "");
    let (_, _, alone, _) = stats_of(c);
    assert!(alone > BLOCK, "one block and the listings: {alone}");
    same_as_disk(c, &two, "");
    assert_eq!(same_as_disk(c, &one, ""), 0);
    assert_eq!(stats_of(c).0, 2);
    // Room for root one alone: root two, the least recently searched, goes; one stays whole.
    lock(c).set_budget(alone);
    assert_eq!(stats_of(c).0, 1);
    assert_eq!(stats_of(c).2, alone);
    assert_eq!(same_as_disk(c, &one, ""), 0, "root one kept whole");
    // Searching root two again drops root one to make room.
    same_as_disk(c, &two, "");
    assert_eq!(same_as_disk(c, &two, ""), 0);
    assert_eq!(stats_of(c).0, 1);
    assert!(stats_of(c).2 <= alone);
    lock(c).set_budget(0);
    assert_eq!(stats_of(c), (0, 0, 0, 0));
    assert_eq!(same_as_disk(c, &one, ""), 4, "off: every file read");
    assert_eq!(same_as_disk(c, &one, ""), 4);
}

#[test]
fn a_file_past_the_budget_is_read_from_the_disk() {
    use super::super::content_blocks::BLOCK;
    // One block and room for the listings and entries: the second 1 MiB file would need a
    // second block.
    let c = cache(BLOCK + (16 << 10));
    let (_d, root) = workspace();
    let most = MAX_FILE_BYTES as usize;
    fs::write(root.join("big1.txt"), vec![b'x'; most]).unwrap();
    fs::write(root.join("big2.txt"), vec![b'y'; most]).unwrap();
    same_as_disk(c, &root, "");
    assert_eq!(same_as_disk(c, &root, ""), 1, "only big2.txt");
    assert!(stats_of(c).2 <= BLOCK + (16 << 10));
    // Without room for a block, only listings are kept.
    let c = cache(BLOCK - 1);
    same_as_disk(c, &root, "");
    assert_eq!(same_as_disk(c, &root, ""), 6);
    assert!(stats_of(c).1 > 0);
}

#[test]
fn blocks_mostly_of_changed_files_are_given_back() {
    use super::super::content_blocks::BLOCK;
    let c = cache(BUDGET_DEFAULT);
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let most = MAX_FILE_BYTES as usize;
    for name in ["f1", "f2", "f3"] {
        fs::write(root.join(name), vec![b'x'; most]).unwrap();
    }
    same_as_disk(c, &root, "");
    assert_eq!(
        stats_of(c).2,
        2 * BLOCK + lock(c).roots[0].folders[&b""[..]].bytes
    );
    // One file changed: a third of the blocks is waste, kept.
    fs::write(root.join("f1"), b"short").unwrap();
    assert_eq!(same_as_disk(c, &root, ""), 1);
    assert_eq!(same_as_disk(c, &root, ""), 0);
    // Two changed: most of the first block is waste, so every content is given back and read
    // again into one new block.
    fs::write(root.join("f2"), b"short").unwrap();
    assert_eq!(same_as_disk(c, &root, ""), 3);
    assert_eq!(same_as_disk(c, &root, ""), 0);
    assert!(stats_of(c).2 < 2 * BLOCK);
}

#[test]
fn room_is_made_up_to_the_budget_exactly() {
    let mut c = Cache::new(100);
    assert!(c.room(100, (0, 0)));
    assert!(!c.room(101, (0, 0)));
    let mut held = Root::new((0, 1));
    held.bytes = 60;
    c.roots.push(held);
    assert!(c.room(40, (0, 1)));
    assert!(
        !c.room(41, (0, 1)),
        "the root searched now is never dropped for room"
    );
    assert!(c.room(41, (0, 0)), "another is");
    assert!(c.roots.is_empty());
}

#[test]
fn the_watch_bound_is_never_passed() {
    let c = cache(BUDGET_DEFAULT);
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    for i in 0..WATCHES_MAX + 5 {
        let d = root.join(format!("d{i:05}"));
        fs::create_dir(&d).unwrap();
        fs::write(d.join("f.txt"), format!("{i}")).unwrap();
    }
    assert_eq!(same_as_disk(c, &root, ""), WATCHES_MAX + 5);
    assert_eq!(stats_of(c).3, WATCHES_MAX);
    // The root and WATCHES_MAX - 1 folders are watched; the 6 past the bound are read every
    // time.
    assert_eq!(same_as_disk(c, &root, ""), 6);
}

#[test]
fn only_local_file_systems_are_kept() {
    let proc_fd = fs::File::open("/proc/self").unwrap();
    assert!(!local(std::os::fd::AsFd::as_fd(&proc_fd)));
    let dir = tempfile::tempdir().unwrap();
    let d = fs::File::open(dir.path()).unwrap();
    let on_tmp = local(std::os::fd::AsFd::as_fd(&d));
    let kind = nix_free_fs_type(dir.path());
    assert_eq!(on_tmp, LOCAL_FS.contains(&kind), "f_type {kind:#x}");
}

fn nix_free_fs_type(p: &Path) -> i64 {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let mut st = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: a NUL-terminated path; statfs fills the buffer on success.
    assert_eq!(unsafe { libc::statfs(c.as_ptr(), st.as_mut_ptr()) }, 0);
    // SAFETY: initialised by the successful call.
    unsafe { st.assume_init() }.f_type
}

#[test]
fn budgets_parse_as_php_reads_memory_limit() {
    assert_eq!(parse_budget(b"16M"), Some(16 << 20));
    assert_eq!(parse_budget(b"512k"), Some(512 << 10));
    assert_eq!(parse_budget(b"1G"), Some(1 << 30));
    assert_eq!(parse_budget(b" 4096 "), Some(4096));
    assert_eq!(parse_budget(b"0"), Some(0));
    for bad in [&b""[..], b"M", b"-1", b"1.5M", b"16MB", b"x"] {
        assert_eq!(parse_budget(bad), None, "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn any_bytes_as_events_never_panic() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    same_as_disk(c, &root, "");
    let wds: Vec<i32> = lock(c).by_wd.keys().copied().collect();
    let mut rng = fastrand::Rng::with_seed(12);
    for _ in 0..20_000 {
        let mut bytes: Vec<u8> = (0..rng.usize(0..96)).map(|_| rng.u8(..)).collect();
        // Often a watched folder's descriptor, so the events reach the folders.
        if bytes.len() >= 16 && rng.bool() {
            bytes[0..4].copy_from_slice(&wds[rng.usize(..wds.len())].to_ne_bytes());
            if rng.bool() {
                bytes[12..16].copy_from_slice(&rng.u32(0..64).to_ne_bytes());
            }
        }
        lock(c).apply(&bytes);
    }
    // Whatever the events dropped, what is left is still right.
    same_as_disk(c, &root, "");
}

#[test]
fn a_read_through_a_folder_watched_again_since_the_listing_is_not_kept() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    let open = OpenRoot::get(root.to_str().unwrap()).unwrap();
    let walker = |ext: &str| {
        let tree = Tree::begin_in(c, open.identity().unwrap());
        let budget = Arc::new(Budget::walk());
        Walker::with_tree(open.clone(), Vec::new(), ext.to_string(), budget, tree)
    };
    // A search lists lib (and holds its descriptor) but has not read lib/b.php yet.
    let first: Vec<_> = walker("").collect();
    let b = first.iter().find(|v| v.rel() == b"lib/b.php").unwrap();
    // Meanwhile lib is renamed and made again, and another search (of .md files only) lists
    // the new lib: its cache entry is a new folder under the same path.
    fs::rename(root.join("lib"), root.join("old")).unwrap();
    fs::create_dir_all(root.join("lib/deep")).unwrap();
    fs::write(root.join("lib/b.php"), "new beta\n").unwrap();
    assert_eq!(walker("md").count(), 1);
    // The first search reads the old file through the old folder; that is not kept for the
    // new one.
    let mut buf = Vec::new();
    assert!(b.read(&open, HardLinks::Refuse, &mut buf));
    assert_eq!(buf, b"beta\n");
    let (got, _) = walk(Some(c), &root, "");
    assert!(
        got.contains(&("lib/b.php".into(), Some("new beta\n".into()))),
        "{got:?}"
    );
    same_as_disk(c, &root, "");
}

#[test]
fn searches_on_several_threads_while_files_change_end_right() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = workspace();
    for i in 0..40 {
        fs::create_dir_all(root.join(format!("m{}", i % 8))).unwrap();
        fs::write(
            root.join(format!("m{}/f{i}.php", i % 8)),
            format!("file {i}\n"),
        )
        .unwrap();
    }
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    // Four files of the workspace and forty, less the five of a folder that
                    // may be renamed away for a moment.
                    let (got, _) = walk(Some(c), &root, "");
                    assert!(got.len() >= 39, "{}", got.len());
                }
            });
        }
        s.spawn(|| {
            for round in 0..200 {
                let i = round % 40;
                let dir = root.join(format!("m{}", i % 8));
                fs::write(
                    dir.join(format!("f{i}.php")),
                    format!("file {i} round {round}\n"),
                )
                .unwrap();
                if round % 25 == 0 {
                    // A folder renamed away and back: every cached path below it changes twice.
                    let away = root.join(format!("away{round}"));
                    fs::rename(&dir, &away).unwrap();
                    fs::rename(&away, &dir).unwrap();
                }
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
    });
    same_as_disk(c, &root, "");
    assert_eq!(same_as_disk(c, &root, ""), 0);
}

#[test]
fn a_folder_cached_as_a_start_is_not_trusted_under_a_parent_watched_later() {
    let c = cache(BUDGET_DEFAULT);
    let (_d, root) = start_cached_then_parent_replaced(c);
    let (got, _) = walk(Some(c), &root, "");
    assert!(
        got.contains(&("lib/deep/c.php".into(), Some("new\n".into()))),
        "{got:?}"
    );
    same_as_disk(c, &root, "");
}
