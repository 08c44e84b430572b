//! The walk on real trees: the bound on held folder descriptors (reached, never passed, all
//! given back), files of folders past it still read, and names swapped for links after the
//! listing saw them leading nowhere.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

thread_local! {
    /// Files this thread opened to read (`read_at`), for the tree cache's tests.
    pub static DISK_READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `count` folders side by side and a chain `depth` folders deep, each with a `f.txt` holding
/// its own path relative to the root.
fn tree(count: usize, depth: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let put = |rel: String| {
        fs::create_dir_all(root.join(&rel)).unwrap();
        fs::write(root.join(&rel).join("f.txt"), format!("{rel}/f.txt")).unwrap();
    };
    for i in 0..count {
        put(format!("d{i:03}"));
    }
    let mut chain = String::from("c");
    for _ in 0..depth {
        put(chain.clone());
        chain.push_str("/c");
    }
    dir
}

fn walker(root: &Path, sub: &str) -> Walker {
    let open = OpenRoot::get(root.to_str().unwrap()).unwrap();
    let budget = Arc::new(Budget::walk());
    Walker::uncached(open, sub.as_bytes().to_vec(), String::new(), budget)
}

/// Every file of the walk, in order, its text read through [`Visit::read`].
fn read_all(w: &mut Walker, keep: &mut Vec<Visit>) -> Vec<(String, String)> {
    let open = w.open.clone();
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for v in w.by_ref() {
        let rel = String::from_utf8(v.rel()).unwrap();
        assert!(v.read(&open, HardLinks::Refuse, &mut buf), "{rel}");
        out.push((rel, String::from_utf8(buf.clone()).unwrap()));
        keep.push(v);
    }
    out
}

#[test]
fn held_folders_reach_the_bound_never_pass_it_and_are_given_back() {
    let dir = tree(HELD_FOLDERS_MAX + 20, HELD_FOLDERS_MAX + 6);
    let root = fs::canonicalize(dir.path()).unwrap();
    for keep_visits in [true, false] {
        let mut w = walker(&root, "");
        let held = w.held.clone();
        let mut kept = Vec::new();
        let open = w.open.clone();
        let mut buf = Vec::new();
        let mut most = 0;
        let mut files = 0;
        for v in w.by_ref() {
            let rel = v.rel();
            assert!(v.read(&open, HardLinks::Refuse, &mut buf));
            assert_eq!(buf, rel, "{}", String::from_utf8_lossy(&rel));
            most = most.max(held.load(Ordering::Relaxed));
            files += 1;
            if keep_visits {
                kept.push(v);
            }
        }
        assert_eq!(files, 2 * HELD_FOLDERS_MAX + 26);
        // The chain alone is deeper than the bound: it is reached either way.
        assert_eq!(most, HELD_FOLDERS_MAX, "keep {keep_visits}");
        // Files read again once the bound is reached: through folders opened again or from
        // the root, the same text.
        for v in &kept {
            assert!(v.read(&open, HardLinks::Refuse, &mut buf));
            assert_eq!(buf, v.rel());
            assert!(held.load(Ordering::Relaxed) <= HELD_FOLDERS_MAX);
        }
        drop((kept, w));
        assert_eq!(held.load(Ordering::Relaxed), 0);
    }
}

#[test]
fn files_of_a_walk_below_the_bound_keep_the_walk_order() {
    let dir = tree(3, 4);
    let root = fs::canonicalize(dir.path()).unwrap();
    let got = read_all(&mut walker(&root, ""), &mut Vec::new());
    let names: Vec<&str> = got.iter().map(|(rel, _)| rel.as_str()).collect();
    assert_eq!(
        names,
        [
            "c/c/c/c/f.txt",
            "c/c/c/f.txt",
            "c/c/f.txt",
            "c/f.txt",
            "d000/f.txt",
            "d001/f.txt",
            "d002/f.txt",
        ]
    );
    assert!(got.iter().all(|(rel, text)| rel == text));
    let sub = read_all(&mut walker(&root, "c/c"), &mut Vec::new());
    let names: Vec<&str> = sub.iter().map(|(rel, _)| rel.as_str()).collect();
    assert_eq!(names, ["c/c/c/c/f.txt", "c/c/c/f.txt", "c/c/f.txt"]);
}

#[test]
fn names_swapped_for_links_after_the_listing_lead_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    fs::create_dir_all(ws.join("sub")).unwrap();
    fs::create_dir_all(base.join("outside")).unwrap();
    fs::write(ws.join("a.txt"), "a").unwrap();
    fs::write(ws.join("b.txt"), "b").unwrap();
    fs::write(ws.join("sub/f.txt"), "f").unwrap();
    fs::write(base.join("outside/f.txt"), "SECRET").unwrap();
    fs::write(base.join("outside/secret.txt"), "SECRET").unwrap();
    let mut w = walker(&ws, "");
    let open = w.open.clone();
    let a = w.next().unwrap();
    let b = w.next().unwrap();
    assert_eq!((a.rel(), b.rel()), (b"a.txt".to_vec(), b"b.txt".to_vec()));
    // After the listing: a file becomes a link out, a folder not yet entered a link out.
    fs::remove_file(ws.join("b.txt")).unwrap();
    symlink(base.join("outside/secret.txt"), ws.join("b.txt")).unwrap();
    fs::rename(ws.join("sub"), base.join("moved")).unwrap();
    symlink(base.join("outside"), ws.join("sub")).unwrap();
    let mut buf = Vec::new();
    assert!(a.read(&open, HardLinks::Refuse, &mut buf));
    assert_eq!(buf, b"a");
    assert!(!b.read(&open, HardLinks::Refuse, &mut buf));
    assert!(buf.is_empty());
    assert!(!b.named().read(&open, HardLinks::Refuse, &mut buf));
    assert!(w.next().is_none());
}

/// As a search before it knows whether the tree is large: every file walked first, then read
/// in order. Folders listed past the bound are opened again for their files once the folders
/// before them were given back.
#[test]
fn folders_past_the_bound_are_opened_again_when_their_files_come() {
    let dir = tree(3 * HELD_FOLDERS_MAX, 0);
    let root = fs::canonicalize(dir.path()).unwrap();
    let mut w = walker(&root, "");
    let held = w.held.clone();
    let open = w.open.clone();
    let mut all = Vec::new();
    for v in w.by_ref() {
        all.push(v);
    }
    // The root took one slot and is given back with the walk.
    drop(w);
    let first = HELD_FOLDERS_MAX - 1;
    assert_eq!(held.load(Ordering::Relaxed), first);
    let mut buf = Vec::new();
    let mut again = 0;
    for (i, v) in all.into_iter().enumerate() {
        let listed_without = v.at.fd.get().is_none();
        assert!(v.read(&open, HardLinks::Refuse, &mut buf));
        assert_eq!(buf, v.rel());
        assert_eq!(listed_without, i >= first, "{i}");
        if listed_without {
            assert!(matches!(v.at.fd.get(), Some(Some(_))), "{i}");
            again += 1;
        }
        assert!(held.load(Ordering::Relaxed) <= HELD_FOLDERS_MAX);
    }
    assert_eq!(again, 3 * HELD_FOLDERS_MAX - first);
    assert_eq!(held.load(Ordering::Relaxed), 0);
}
