//! Fuzzing the one-call open beneath a kept workspace root against the full resolution.
//!
//! On a real temp workspace holding symlinks that point inside, outside, to a sibling whose
//! name shares the root's prefix, up and nowhere, plus a FIFO, for any clean relative path:
//! - a file opened beneath the root is one the walk (symlinks refused) also accepts, at the
//!   same real path, shown and judged under the same name;
//! - "not a file" only where the walk says so too (or a FIFO, which the walk would block on);
//! - whatever is not opened, the walk refuses as well;
//! - the kept root never answers for a folder that was replaced.
//!
//! Case count: 256 by default; set `PROPTEST_CASES` for long runs.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use phpclaw::core::security::workspace::open_root::{Beneath, OpenRoot};
use phpclaw::core::security::workspace::{is_clean_relative, PathErrorKind, Tool};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// `<tmp>/phpclaw-fuzz-or-<pid>-<tag>/{ws, ws2, outside}`, removed on drop.
struct Tree {
    base: PathBuf,
}

impl Tree {
    fn new(tag: &str) -> Tree {
        let base =
            std::env::temp_dir().join(format!("phpclaw-fuzz-or-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("ws/sub/deep")).unwrap();
        fs::create_dir_all(base.join("ws/real")).unwrap();
        fs::create_dir_all(base.join("ws2")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("ws/notes.txt"), "n").unwrap();
        fs::write(base.join("ws/sub/a.txt"), "a").unwrap();
        fs::write(base.join("ws/sub/deep/d.txt"), "d").unwrap();
        fs::write(base.join("ws/real/r.txt"), "r").unwrap();
        fs::write(base.join("outside/secret.txt"), "s").unwrap();
        fs::write(base.join("ws2/x.txt"), "x").unwrap();
        symlink(base.join("outside"), base.join("ws/out")).unwrap();
        symlink(base.join("outside/secret.txt"), base.join("ws/sub/outfile")).unwrap();
        symlink(base.join("ws/real"), base.join("ws/in")).unwrap();
        symlink("../real/r.txt", base.join("ws/sub/infile")).unwrap();
        symlink(base.join("ws2"), base.join("ws/sib")).unwrap();
        symlink("../..", base.join("ws/sub/up")).unwrap();
        symlink(base.join("missing"), base.join("ws/dangling")).unwrap();
        symlink("loop", base.join("ws/loop")).unwrap();
        let fifo = std::ffi::CString::new(base.join("ws/pipe").to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        Tree { base }
    }

    fn given(&self) -> String {
        self.base.join("ws").to_string_lossy().into_owned()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("sub".to_string()),
        Just("deep".to_string()),
        Just("real".to_string()),
        Just("notes.txt".to_string()),
        Just("a.txt".to_string()),
        Just("d.txt".to_string()),
        Just("r.txt".to_string()),
        Just("secret.txt".to_string()),
        Just("x.txt".to_string()),
        Just("out".to_string()),
        Just("outfile".to_string()),
        Just("in".to_string()),
        Just("infile".to_string()),
        Just("sib".to_string()),
        Just("up".to_string()),
        Just("dangling".to_string()),
        Just("loop".to_string()),
        Just("pipe".to_string()),
        Just("ws".to_string()),
        Just("..".to_string()),
        Just(".".to_string()),
        Just(String::new()),
        "[a-z.~ ]{0,6}",
    ]
}

#[test]
fn opened_beneath_iff_the_walk_accepts() {
    let t = Tree::new("iff");
    let root = OpenRoot::get(&t.given()).unwrap();
    let ws = root.workspace();
    let mut runner = TestRunner::new(Config::default());
    runner
        .run(
            &prop::collection::vec(segment(), 1..6).prop_map(|v| v.join("/")),
            |p| {
                if !is_clean_relative(&p) || ws.repeats_root_tail(&p, 2) {
                    return Ok(());
                }
                let walked = ws.resolve_for(Tool::FileRead, &p);
                match root.open_file(&p) {
                    Beneath::File(..) => {
                        let r = walked.expect("opened, so the walk accepts it");
                        prop_assert_eq!(&r.real, &ws.root().join(&p));
                        prop_assert_eq!(&r.display, &p);
                        prop_assert_eq!(&r.real_relative, &p);
                    }
                    Beneath::NotAFile => {
                        let fifo = p == "pipe";
                        let kind = walked.map(|_| ()).map_err(|e| e.kind);
                        prop_assert!(
                            fifo || kind == Err(PathErrorKind::NotAFile),
                            "{:?}: {:?}",
                            p,
                            kind
                        );
                    }
                    Beneath::Walk => prop_assert!(walked.is_err(), "{:?} walked", p),
                }
                Ok(())
            },
        )
        .unwrap();
}

#[test]
fn a_replaced_root_is_never_answered_from_the_old_descriptor() {
    let t = Tree::new("replaced");
    let given = t.given();
    for round in 0..5 {
        let root = OpenRoot::get(&given).unwrap();
        let name = format!("round-{round}.txt");
        fs::write(t.base.join("ws").join(&name), "x").unwrap();
        assert!(root.open_file(&name).file().is_some());
        fs::rename(t.base.join("ws"), t.base.join(format!("old-{round}"))).unwrap();
        fs::create_dir(t.base.join("ws")).unwrap();
        let again = OpenRoot::get(&given).unwrap();
        assert!(matches!(again.open_file(&name), Beneath::Walk), "{round}");
    }
}
