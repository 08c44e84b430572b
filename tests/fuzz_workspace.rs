//! Fuzzing the workspace sandbox and the per-tool file rules.
//!
//! Properties, on a real temp workspace holding symlinks that point inside, outside, to a
//! sibling whose name shares the root's prefix, and nowhere:
//! - `resolve` never panics or hangs, for every tool policy, symlinks followed or not;
//! - an Ok result is ALWAYS inside the real root, both as returned and once the deepest existing
//!   ancestor of the result is canonicalised by the OS;
//! - with symlinks refused, an Ok result crosses no symlink;
//! - the rule functions never panic on any string.
//!
//! Case count: 256 by default (well under 5 s); set `PROPTEST_CASES` for long runs.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use phpclaw::core::security::file_rules::{
    check, check_resolved, code_search_skips_dir, code_search_skips_file, project_skips_entry,
    sanitize_for_message, server_name, zip_skips_entry, Rules,
};
use phpclaw::core::security::workspace::{Tool, Workspace};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const TOOLS: &[Tool] = &[
    Tool::FileRead,
    Tool::FileWrite,
    Tool::FileEdit,
    Tool::CodeSearch,
    Tool::ZipPackage,
    Tool::ProjectInfo,
];

/// No single call may take this long: resolution is a handful of syscalls per segment.
const SLOW: Duration = Duration::from_secs(5);

/// `<tmp>/phpclaw-fuzz-ws-<pid>-<tag>/{ws, ws2, outside}`, removed on drop.
struct Tree {
    base: PathBuf,
}

impl Tree {
    fn new(tag: &str) -> Tree {
        let base =
            std::env::temp_dir().join(format!("phpclaw-fuzz-ws-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("ws/sub/deep")).unwrap();
        fs::create_dir_all(base.join("ws/real")).unwrap();
        fs::create_dir_all(base.join("ws/.ssh")).unwrap();
        fs::create_dir_all(base.join("ws2")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("ws/notes.txt"), "n").unwrap();
        fs::write(base.join("ws/sub/a.txt"), "a").unwrap();
        fs::write(base.join("ws/real/r.txt"), "r").unwrap();
        fs::write(base.join("ws/.ssh/id_rsa"), "k").unwrap();
        fs::write(base.join("outside/secret.txt"), "s").unwrap();
        fs::write(base.join("ws2/x.txt"), "x").unwrap();
        symlink(base.join("outside"), base.join("ws/out")).unwrap();
        symlink(base.join("outside/secret.txt"), base.join("ws/sub/outfile")).unwrap();
        symlink(base.join("ws/real"), base.join("ws/in")).unwrap();
        symlink(base.join("ws/real/r.txt"), base.join("ws/sub/infile")).unwrap();
        symlink(base.join("ws2"), base.join("ws/sib")).unwrap();
        symlink("../..", base.join("ws/sub/up")).unwrap();
        symlink(base.join("missing"), base.join("ws/dangling")).unwrap();
        symlink("loop", base.join("ws/loop")).unwrap();
        Tree { base }
    }

    fn root(&self) -> PathBuf {
        fs::canonicalize(self.base.join("ws")).unwrap()
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.base);
    }
}

/// Path pieces that reach every branch: names in the tree, symlinks, traversal spellings,
/// separators, NUL, trailing dots and spaces, unicode look-alikes, absolute prefixes.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("/".to_string()),
        Just("\\".to_string()),
        Just("sub".to_string()),
        Just("deep".to_string()),
        Just("real".to_string()),
        Just("notes.txt".to_string()),
        Just("a.txt".to_string()),
        Just("out".to_string()),
        Just("outfile".to_string()),
        Just("in".to_string()),
        Just("infile".to_string()),
        Just("sib".to_string()),
        Just("up".to_string()),
        Just("dangling".to_string()),
        Just("loop".to_string()),
        Just(".ssh".to_string()),
        Just("id_rsa".to_string()),
        Just("ws".to_string()),
        Just("ws2".to_string()),
        Just("outside".to_string()),
        Just("\0".to_string()),
        Just(" ".to_string()),
        Just("...".to_string()),
        Just("%2e%2e".to_string()),
        Just("．．".to_string()),
        Just("C:".to_string()),
        Just("/tmp".to_string()),
        "[a-z.~ ]{0,6}",
        any::<String>(),
    ]
}

fn path_input() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        prop::collection::vec(token(), 0..12).prop_map(|v| v.concat()),
        prop::collection::vec(token(), 0..12).prop_map(|v| v.join("/")),
    ]
}

/// The deepest existing ancestor of `p`, canonicalised by the OS.
fn real_ancestor(p: &Path) -> Option<PathBuf> {
    let mut cur = Some(p);
    while let Some(c) = cur {
        if let Ok(real) = fs::canonicalize(c) {
            return Some(real);
        }
        cur = c.parent();
    }
    None
}

/// Whether any existing component of `p` below `root` is a symlink.
fn crosses_symlink(root: &Path, p: &Path) -> bool {
    let Ok(rest) = p.strip_prefix(root) else {
        return true;
    };
    let mut cur = root.to_path_buf();
    for c in rest.components() {
        cur.push(c);
        match fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    false
}

#[test]
fn resolve_never_escapes_the_root() {
    let tree = Tree::new("resolve");
    let root = tree.root();
    let strict = Workspace::new(tree.base.join("ws")).unwrap();
    let follow = strict.clone().with_follow_symlinks(true);
    let root_str = root.to_string_lossy().into_owned();
    let mut runner = TestRunner::new(Config::default());
    let strategy = (path_input(), any::<bool>());
    runner
        .run(&strategy, |(input, prefix_root)| {
            let input = if prefix_root {
                format!("{root_str}/{input}")
            } else {
                input
            };
            for ws in [&strict, &follow] {
                for &tool in TOOLS {
                    let started = Instant::now();
                    let result = ws.resolve_for(tool, &input);
                    prop_assert!(started.elapsed() < SLOW, "slow on {input:?}");
                    match result {
                        Ok(r) => {
                            prop_assert!(
                                r.real.starts_with(&root),
                                "{input:?} {tool:?} -> {:?}",
                                r.real
                            );
                            let anc = real_ancestor(&r.real);
                            prop_assert!(
                                anc.as_ref().is_some_and(|a| a.starts_with(&root)),
                                "{input:?} {tool:?} -> {:?} really {:?}",
                                r.real,
                                anc
                            );
                            if !ws.follows_symlinks() {
                                prop_assert!(
                                    !crosses_symlink(&root, &r.real),
                                    "{input:?} {tool:?}"
                                );
                            }
                            prop_assert!(!r.display.split('/').any(|s| s == ".."));
                            let _ = check_resolved(Rules::FileRead, &r);
                            let _ = check_resolved(
                                Rules::FileWrite {
                                    allow_php_write: false,
                                },
                                &r,
                            );
                        }
                        Err(e) => {
                            let refusal = e.refusal();
                            prop_assert!(!refusal.message.is_empty());
                            prop_assert!(!refusal.code.is_empty());
                        }
                    }
                }
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn rules_never_panic() {
    let mut runner = TestRunner::new(Config::default());
    runner
        .run(&path_input(), |input| {
            let started = Instant::now();
            for rules in [
                Rules::FileRead,
                Rules::FileWrite {
                    allow_php_write: false,
                },
                Rules::FileWrite {
                    allow_php_write: true,
                },
                Rules::FileEdit,
                Rules::CodeSearch,
                Rules::ZipPackage,
            ] {
                if let Err(r) = check(rules, &input) {
                    prop_assert!(!r.message.is_empty());
                }
            }
            let _ = code_search_skips_dir(&input);
            let _ = code_search_skips_file(&input);
            let _ = project_skips_entry(&input);
            let _ = zip_skips_entry(&input);
            let s = sanitize_for_message(&input);
            prop_assert!(s.len() <= 64 && s.is_ascii());
            let n = server_name(&input);
            prop_assert!(n.len() <= input.len());
            prop_assert!(started.elapsed() < SLOW, "slow on {input:?}");
            Ok(())
        })
        .unwrap();
}
