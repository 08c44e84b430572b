//! Tests of the atomic write relative to one folder descriptor, on real temporary folders.

use super::*;
use crate::core::tools::file_write_edit_tests::ws as dir;
use std::fs::File;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::SystemTime;

/// The folder open as a root descriptor.
fn open(d: &Path) -> File {
    File::open(d).expect("open folder")
}

fn how(durable: bool) -> How<'static> {
    How {
        label: "file_write",
        prefix: "write",
        shown: "t.txt",
        durable,
    }
}

/// Names of the tools' temp files in `d`.
fn temps(d: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".phpclaw-"))
        .collect();
    names.sort();
    names
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_write_replaces_the_inode_and_leaves_no_temp_file() {
    let d = dir("inode");
    let root = open(&d.0);
    let target = Target::open(root.as_fd(), b"t.txt").unwrap();
    target.write(b"one", None, &how(false)).unwrap();
    let kept = File::open(d.0.join("t.txt")).unwrap();
    target.write(b"two", None, &how(false)).unwrap();
    assert_eq!(std::io::read_to_string(kept).unwrap(), "one");
    assert_eq!(std::fs::read(d.0.join("t.txt")).unwrap(), b"two");
    assert_eq!(temps(&d.0), Vec::<String>::new());
}

#[test]
fn a_new_file_is_private_and_a_replaced_one_keeps_its_mode() {
    let d = dir("mode");
    let root = open(&d.0);
    Target::open(root.as_fd(), b"new.txt")
        .unwrap()
        .write(b"n", None, &how(false))
        .unwrap();
    assert_eq!(mode(&d.0.join("new.txt")), 0o600);
    std::fs::write(d.0.join("m.txt"), "a").unwrap();
    std::fs::set_permissions(d.0.join("m.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let target = Target::open(root.as_fd(), b"m.txt").unwrap();
    let owner = target.owner();
    assert_eq!(owner.map(|o| o.mode), Some(0o640));
    target.write(b"b", owner, &how(false)).unwrap();
    assert_eq!(mode(&d.0.join("m.txt")), 0o640);
    assert_eq!(std::fs::read(d.0.join("m.txt")).unwrap(), b"b");
    // Another owner and group are copied where this process may give them (root).
    // SAFETY: a plain query.
    if unsafe { libc::geteuid() } == 0 {
        use std::os::unix::fs::MetadataExt as _;
        std::os::unix::fs::chown(d.0.join("m.txt"), Some(1234), Some(4321)).unwrap();
        let target = Target::open(root.as_fd(), b"m.txt").unwrap();
        target.write(b"c", target.owner(), &how(false)).unwrap();
        let meta = std::fs::metadata(d.0.join("m.txt")).unwrap();
        assert_eq!(
            (meta.uid(), meta.gid(), meta.mode() & 0o777),
            (1234, 4321, 0o640)
        );
    }
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temp_file() {
    let d = dir("fail");
    let root = open(&d.0);
    // A rename onto a non-empty folder fails after the temp file was written.
    std::fs::create_dir(d.0.join("d")).unwrap();
    std::fs::write(d.0.join("d/keep"), "k").unwrap();
    let e = Target::open(root.as_fd(), b"d")
        .unwrap()
        .write(b"NEW", None, &how(false))
        .unwrap_err();
    assert_eq!(e, "file_write: failed to finalize write: t.txt");
    assert_eq!(std::fs::read(d.0.join("d/keep")).unwrap(), b"k");
    assert_eq!(temps(&d.0), Vec::<String>::new());
    // A missing folder, a file as a folder, a link as a folder: nothing is opened.
    std::fs::write(d.0.join("f"), "x").unwrap();
    symlink(&d.0, d.0.join("l")).unwrap();
    for (relative, errno) in [
        (&b"no/t.txt"[..], libc::ENOENT),
        (b"f/t.txt", libc::ENOTDIR),
        (b"l/t.txt", libc::ELOOP),
        (b"", libc::EISDIR),
    ] {
        let e = Target::open(root.as_fd(), relative).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(errno), "{relative:?}");
    }
}

#[test]
fn durable_writes_sync_the_file_and_the_folder_and_others_sync_nothing() {
    let d = dir("sync");
    let root = open(&d.0);
    let target = Target::open(root.as_fd(), b"t.txt").unwrap();
    let syncs = || hooks::SYNCS.with(std::cell::Cell::get);
    let before = syncs();
    target.write(b"fast", None, &how(false)).unwrap();
    assert_eq!(syncs() - before, 0);
    assert_eq!(std::fs::read(d.0.join("t.txt")).unwrap(), b"fast");
    target.write(b"durable", None, &how(true)).unwrap();
    assert_eq!(syncs() - before, 2, "the temp file, then the folder");
    assert_eq!(std::fs::read(d.0.join("t.txt")).unwrap(), b"durable");
    assert_eq!(temps(&d.0), Vec::<String>::new());
}

#[test]
fn a_folder_swapped_for_a_link_before_the_rename_is_not_followed() {
    let d = dir("swap");
    let out = dir("swap-out");
    std::fs::create_dir(d.0.join("config")).unwrap();
    std::fs::write(d.0.join("config/view.txt"), "old").unwrap();
    std::fs::write(out.0.join("view.txt"), "outside").unwrap();
    let root = open(&d.0);
    let target = Target::open(root.as_fd(), b"config/view.txt").unwrap();
    let (ws, elsewhere) = (d.0.clone(), out.0.clone());
    hooks::before_next_rename(move || {
        std::fs::rename(ws.join("config"), ws.join("config-old")).unwrap();
        symlink(&elsewhere, ws.join("config")).unwrap();
    });
    target.write(b"new", None, &how(true)).unwrap();
    // The write went to the folder that was opened, wherever it is now.
    assert_eq!(
        std::fs::read(d.0.join("config-old/view.txt")).unwrap(),
        b"new"
    );
    assert_eq!(std::fs::read(out.0.join("view.txt")).unwrap(), b"outside");
    assert_eq!(temps(&out.0), Vec::<String>::new());
    assert_eq!(temps(&d.0.join("config-old")), Vec::<String>::new());
}

#[test]
fn folders_are_made_one_at_a_time_never_through_a_file_or_a_link() {
    let d = dir("mk");
    let out = dir("mk-out");
    let root = open(&d.0);
    std::fs::write(d.0.join("f"), "x").unwrap();
    symlink(&out.0, d.0.join("l")).unwrap();
    for relative in [&b"f/g/h.txt"[..], b"l/g/h.txt", b"l/h.txt"] {
        assert!(
            Target::create(root.as_fd(), relative).is_err(),
            "{relative:?}"
        );
    }
    assert!(!out.0.join("g").exists());
    let target = Target::create(root.as_fd(), b"a/b/c.txt").unwrap();
    assert!(d.0.join("a/b").is_dir());
    assert_eq!(mode(&d.0.join("a/b")) & !0o022, DIRECTORY_MODE & !0o022);
    target.write(b"c", None, &how(false)).unwrap();
    assert_eq!(std::fs::read(d.0.join("a/b/c.txt")).unwrap(), b"c");
    // Existing folders are used as they are.
    Target::create(root.as_fd(), b"a/b/d.txt").unwrap();
    Target::create(root.as_fd(), b"top.txt").unwrap();
}

#[test]
fn strays_older_than_a_minute_that_no_writer_holds_are_swept() {
    let d = dir("strays");
    let old = SystemTime::now() - STRAY_AGE - std::time::Duration::from_secs(5);
    let make = |name: &str, modified: SystemTime| {
        let f = File::create(d.0.join(name)).unwrap();
        f.set_modified(modified).unwrap();
    };
    make(".phpclaw-write-Old123", old);
    make(".phpclaw-edit-Old456", old);
    make(".phpclaw-write-Fresh1", SystemTime::now());
    make(".phpclaw-write-Held12", old);
    make(".phpclaw-write-notours", old);
    std::fs::create_dir(d.0.join(".phpclaw-edit-Folder")).unwrap();
    let held = File::open(d.0.join(".phpclaw-write-Held12")).unwrap();
    lock::flock(&held, libc::LOCK_EX).unwrap();
    let root = open(&d.0);
    Target::open(root.as_fd(), b"t.txt")
        .unwrap()
        .write(b"x", None, &how(false))
        .unwrap();
    assert_eq!(
        temps(&d.0),
        [
            ".phpclaw-edit-Folder",
            ".phpclaw-write-Fresh1",
            ".phpclaw-write-Held12",
            ".phpclaw-write-notours"
        ]
    );
    drop(held);
}

#[test]
fn the_lock_is_on_the_file_at_the_name_and_never_through_a_link() {
    let d = dir("lock");
    std::fs::write(d.0.join("a.txt"), "a").unwrap();
    symlink(d.0.join("a.txt"), d.0.join("l.txt")).unwrap();
    let root = open(&d.0);
    let lock = Target::open(root.as_fd(), b"a.txt")
        .unwrap()
        .lock()
        .unwrap()
        .unwrap();
    assert_eq!(lock.meta.len(), 1);
    assert!(Target::open(root.as_fd(), b"missing.txt")
        .unwrap()
        .lock()
        .unwrap()
        .is_none());
    let e = Target::open(root.as_fd(), b"l.txt")
        .unwrap()
        .lock()
        .unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
}
