//! Tests of file_write, file_edit and the atomic write, on real temporary folders.

use super::atomic_write::hooks;
use super::file_edit::{self, FileEdit};
use super::file_read::{self, FileRead};
use super::file_write::{self, FileWrite};
use super::*;
use crate::core::value::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A host with an in-memory read log.
#[derive(Default)]
struct LogHost {
    read: HashSet<(String, String)>,
}

impl Host for LogHost {
    type Error = &'static str;
    fn running_in_console(&mut self) -> Result<bool, &'static str> {
        Ok(false)
    }
    fn allows(&mut self) -> Result<bool, &'static str> {
        Ok(true)
    }
    fn mark_read(&mut self, root: &str, path: &str) -> Result<(), &'static str> {
        self.read.insert((root.to_string(), path.to_string()));
        Ok(())
    }
    fn was_read(&mut self, root: &str, path: &str) -> Result<bool, &'static str> {
        Ok(self.read.contains(&(root.to_string(), path.to_string())))
    }
}

/// A temporary folder (real path), removed on drop.
pub(super) struct Ws(pub(super) PathBuf);
impl Drop for Ws {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn ws(tag: &str) -> Ws {
    let dir = tempfile::Builder::new()
        .prefix(&format!("phpclaw-fwe-{tag}-"))
        .tempdir()
        .expect("temp dir")
        .keep();
    Ws(std::fs::canonicalize(dir).expect("real"))
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn input(pairs: &[(&str, &str)]) -> Value {
    Value::from_pairs(pairs.iter().map(|(k, v)| (*k, Value::str(v))))
}

fn write(tool: &mut FileWrite, pairs: &[(&str, &str)]) -> Result<String, ToolError<&'static str>> {
    run(tool, &mut LogHost::default(), &input(pairs)).map(|v| String::from_utf8(v).unwrap())
}

fn tool_msg<T>(r: Result<T, ToolError<&'static str>>) -> String {
    match r {
        Err(ToolError::Tool(m)) => m,
        Err(e) => panic!("not a tool error: {e:?}"),
        Ok(_) => panic!("expected a failure"),
    }
}

#[test]
fn write_creates_parents_and_answers_the_reference_envelope() {
    let w = ws("w");
    let mut t = FileWrite::new(s(&w.0));
    let out = write(&mut t, &[("path", "sub/dir/a.txt"), ("content", "hello")]).unwrap();
    assert_eq!(
        out,
        r#"{"success":true,"data":{"path":"sub/dir/a.txt","bytes_written":5},"meta":{"mode":"write","message":"Written 5 bytes to sub/dir/a.txt."},"warnings":[]}"#
    );
    assert_eq!(std::fs::read(w.0.join("sub/dir/a.txt")).unwrap(), b"hello");
}

#[test]
fn write_cap_at_and_past_the_limit() {
    let w = ws("cap");
    let mut t = FileWrite::new(s(&w.0));
    t.max_bytes = 4;
    assert!(write(&mut t, &[("path", "a.txt"), ("content", "abcd")]).is_ok());
    assert_eq!(
        tool_msg(write(&mut t, &[("path", "a.txt"), ("content", "abcde")])),
        "Content size (5 bytes) exceeds max allowed (4 bytes)."
    );
    assert_eq!(std::fs::read(w.0.join("a.txt")).unwrap(), b"abcd");
}

#[test]
fn write_refusals_in_reference_order() {
    let w = ws("ref");
    let mut t = FileWrite::new(s(&w.0));
    let m = |t: &mut FileWrite, p: &str| tool_msg(write(t, &[("path", p), ("content", "x")]));
    assert_eq!(m(&mut t, "  "), "No file path provided.");
    assert_eq!(m(&mut t, "../.env"), file_write::TRAVERSAL_MESSAGE);
    assert_eq!(m(&mut t, "a/../b.txt"), file_write::TRAVERSAL_MESSAGE);
    assert_eq!(
        m(&mut t, "x.php"),
        "Writing .php files is blocked by default. Enable allowPhpWrite to permit it."
    );
    assert_eq!(
        m(&mut t, "run.sh"),
        "Writing files with extension '.sh' is blocked."
    );
    assert_eq!(
        m(&mut t, "system/a.txt"),
        "Writing to the 'system' directory is blocked."
    );
    assert_eq!(
        m(&mut t, "composer.json"),
        "Writing to 'composer.json' is blocked."
    );
    t.allow_php_write = true;
    assert!(write(&mut t, &[("path", "ok.php"), ("content", "<?php")]).is_ok());
    assert_eq!(
        m(&mut t, "deploy.sh"),
        "Writing files with extension '.sh' is blocked."
    );
}

#[test]
fn write_strips_a_repeated_root_and_leading_slashes() {
    let w = ws("strip");
    let root = s(&w.0);
    let tail = w.0.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        file_write::normalize_workspace_path(&format!("{tail}/a.txt"), &root),
        "a.txt"
    );
    assert_eq!(
        file_write::normalize_workspace_path(&format!("{root}/b/c.txt"), &root),
        "b/c.txt"
    );
    assert_eq!(
        file_write::normalize_workspace_path("//x.txt", &root),
        "x.txt"
    );
    let mut t = FileWrite::new(root);
    write(&mut t, &[("path", "/lead.txt"), ("content", "1")]).unwrap();
    assert!(w.0.join("lead.txt").is_file());
}

#[test]
fn write_creates_a_missing_root() {
    let w = ws("mk");
    let root = w.0.join("deep/root");
    let mut t = FileWrite::new(file_write::constructed_root(Some(&s(&root)), "/"));
    write(&mut t, &[("path", "n.txt"), ("content", "1")]).unwrap();
    assert_eq!(std::fs::read(root.join("n.txt")).unwrap(), b"1");
}

#[cfg(unix)]
#[test]
fn write_refuses_symlinks_unless_followed_and_then_only_inside() {
    let w = ws("sym");
    let out = ws("symout");
    std::os::unix::fs::symlink(&out.0, w.0.join("l")).unwrap();
    let mut t = FileWrite::new(s(&w.0));
    assert_eq!(
        tool_msg(write(&mut t, &[("path", "l/x.txt"), ("content", "x")])),
        "Path traversal detected: path contains a symlink."
    );
    t.follow_symlinks = true;
    assert!(write(&mut t, &[("path", "l/x.txt"), ("content", "x")]).is_err());
    assert!(!out.0.join("x.txt").exists());
    std::fs::create_dir(w.0.join("real")).unwrap();
    std::os::unix::fs::symlink(w.0.join("real"), w.0.join("in")).unwrap();
    write(&mut t, &[("path", "in/y.txt"), ("content", "y")]).unwrap();
    assert_eq!(std::fs::read(w.0.join("real/y.txt")).unwrap(), b"y");
}

fn edit_tool(w: &Ws) -> FileEdit {
    FileEdit::new(s(&w.0))
}

fn read_then(host: &mut LogHost, w: &Ws, path: &str) {
    let mut r = FileRead::new(s(&w.0));
    run(&mut r, host, &input(&[("path", path)])).unwrap();
}

fn edit(
    t: &mut FileEdit,
    host: &mut LogHost,
    pairs: &[(&str, &str)],
) -> Result<String, ToolError<&'static str>> {
    run(t, host, &input(pairs)).map(|v| String::from_utf8(v).unwrap())
}

#[test]
fn edit_requires_a_prior_read_and_replaces_one_match() {
    let w = ws("e1");
    std::fs::write(w.0.join("a.txt"), "one\nTARGET\nthree\n").unwrap();
    let mut host = LogHost::default();
    let mut t = edit_tool(&w);
    let args = [("path", "a.txt"), ("old_str", "TARGET"), ("new_str", "X")];
    assert_eq!(
        tool_msg(edit(&mut t, &mut host, &args)),
        "file_edit: file_read must be called on a.txt before editing it."
    );
    read_then(&mut host, &w, "a.txt");
    let out = edit(&mut t, &mut host, &args).unwrap();
    assert_eq!(
        out,
        r#"{"success":true,"data":{"status":"edited","file":"a.txt","line_changed":2},"meta":{"mode":"edit","line_changed":2},"warnings":[]}"#
    );
    assert_eq!(
        std::fs::read(w.0.join("a.txt")).unwrap(),
        b"one\nX\nthree\n"
    );
}

#[test]
fn edit_zero_and_two_matches_fail_without_quoting_the_strings() {
    let w = ws("e2");
    std::fs::write(w.0.join("a.txt"), "dup dup").unwrap();
    let mut host = LogHost::default();
    read_then(&mut host, &w, "a.txt");
    let mut t = edit_tool(&w);
    assert_eq!(
        tool_msg(edit(&mut t, &mut host, &[("path", "a.txt"), ("old_str", "dup"), ("new_str", "SECRETNEW")])),
        "file_edit: old_str matches 2 locations in a.txt - add more surrounding context to make it unique."
    );
    assert_eq!(
        tool_msg(edit(
            &mut t,
            &mut host,
            &[("path", "a.txt"), ("old_str", "zzz"), ("new_str", "y")]
        )),
        "file_edit: old_str not found in a.txt. Match must be exact including whitespace."
    );
    // Overlapping candidates count as PHP's substr_count does: "aaa" holds "aa" once.
    std::fs::write(w.0.join("b.txt"), "aaa").unwrap();
    read_then(&mut host, &w, "b.txt");
    edit(
        &mut t,
        &mut host,
        &[("path", "b.txt"), ("old_str", "aa"), ("new_str", "b")],
    )
    .unwrap();
    assert_eq!(std::fs::read(w.0.join("b.txt")).unwrap(), b"ba");
}

#[test]
fn edit_cap_at_and_past_the_limit_and_binary() {
    let w = ws("e3");
    std::fs::write(w.0.join("a.txt"), "abcd").unwrap();
    std::fs::write(w.0.join("b.txt"), "abcde").unwrap();
    std::fs::write(w.0.join("c.txt"), b"ab\0cd").unwrap();
    let mut host = LogHost::default();
    for p in ["a.txt", "b.txt"] {
        read_then(&mut host, &w, p);
    }
    let root = s(&w.0);
    host.mark_read(&root, &s(&w.0.join("c.txt"))).unwrap();
    let mut t = edit_tool(&w);
    t.max_bytes = 4;
    edit(
        &mut t,
        &mut host,
        &[("path", "a.txt"), ("old_str", "b"), ("new_str", "B")],
    )
    .unwrap();
    assert_eq!(
        tool_msg(edit(
            &mut t,
            &mut host,
            &[("path", "b.txt"), ("old_str", "b"), ("new_str", "B")]
        )),
        "file_edit: file too large to edit (5 bytes, limit 4): b.txt"
    );
    t.max_bytes = file_edit::DEFAULT_MAX_BYTES;
    assert_eq!(
        tool_msg(edit(
            &mut t,
            &mut host,
            &[("path", "c.txt"), ("old_str", "ab"), ("new_str", "x")]
        )),
        "file_edit: Binary file; file_edit operates on text files only: c.txt"
    );
    assert_eq!(std::fs::read(w.0.join("c.txt")).unwrap(), b"ab\0cd");
}

#[test]
fn edit_gate_messages() {
    let w = ws("e4");
    std::fs::create_dir_all(w.0.join("vendor")).unwrap();
    std::fs::write(w.0.join("vendor/x.txt"), "a").unwrap();
    let mut host = LogHost::default();
    let mut t = edit_tool(&w);
    let m = |t: &mut FileEdit, host: &mut LogHost, p: &str| {
        tool_msg(edit(
            t,
            host,
            &[("path", p), ("old_str", "a"), ("new_str", "b")],
        ))
    };
    assert_eq!(m(&mut t, &mut host, ""), file_edit::REQUIRED_MESSAGE);
    assert_eq!(
        m(&mut t, &mut host, "/etc/passwd"),
        file_edit::TRAVERSAL_MESSAGE
    );
    assert_eq!(m(&mut t, &mut host, "../x"), file_edit::TRAVERSAL_MESSAGE);
    assert_eq!(
        m(&mut t, &mut host, "composer.json"),
        "file_edit: Access to 'composer.json' is blocked."
    );
    assert_eq!(
        m(&mut t, &mut host, ".github/ci.yml"),
        "file_edit: Editing the '.github' directory is blocked."
    );
    assert_eq!(
        m(&mut t, &mut host, "vendor/x.txt"),
        "file_edit: Editing the 'vendor' directory is blocked."
    );
    assert_eq!(
        m(&mut t, &mut host, "nope/x.txt"),
        "file_edit: file not found: nope/x.txt"
    );
    t.noise_dirs.clear();
    assert_eq!(
        m(&mut t, &mut host, "vendor/x.txt"),
        "file_edit: file_read must be called on vendor/x.txt before editing it."
    );
    let mut missing = FileEdit::new(s(&w.0.join("missing")));
    assert!(m(&mut missing, &mut host, "a.txt").starts_with("Workspace root not found"));
    let _ = file_read::DEFAULT_MAX_BYTES;
}

#[test]
fn count_matches_is_non_overlapping() {
    assert_eq!(
        file_edit::count_matches(b"aaaa", b"aa", usize::MAX),
        (2, Some(0))
    );
    assert_eq!(
        file_edit::count_matches(b"xyz", b"q", usize::MAX),
        (0, None)
    );
}

#[test]
fn edit_refuses_hard_links_unless_allowed_and_links_out() {
    let w = ws("e5");
    let outside = ws("e5-out");
    std::fs::write(outside.0.join("secret.txt"), "KEY=a\n").unwrap();
    std::fs::write(w.0.join(".env"), "KEY=a\n").unwrap();
    std::fs::hard_link(outside.0.join("secret.txt"), w.0.join("out.txt")).unwrap();
    std::fs::hard_link(w.0.join(".env"), w.0.join("env.txt")).unwrap();
    std::os::unix::fs::symlink(outside.0.join("secret.txt"), w.0.join("link.txt")).unwrap();
    let mut host = LogHost::default();
    let mut t = edit_tool(&w);
    let m = |t: &mut FileEdit, host: &mut LogHost, p: &str| {
        tool_msg(edit(
            t,
            host,
            &[("path", p), ("old_str", "a"), ("new_str", "b")],
        ))
    };
    for p in ["out.txt", "env.txt", "./out.txt"] {
        assert_eq!(
            m(&mut t, &mut host, p),
            "file_edit: Access denied: the file has more than one hard link.",
            "{p}"
        );
    }
    assert_eq!(
        m(&mut t, &mut host, "link.txt"),
        "file_edit: Access denied: path contains a symlink."
    );
    t.follow_symlinks = true;
    assert_eq!(
        m(&mut t, &mut host, "link.txt"),
        file_edit::TRAVERSAL_MESSAGE
    );
    // Allowed: the prior-read gate applies as usual, then the edit replaces this name only.
    t.allow_hard_links = true;
    assert_eq!(
        m(&mut t, &mut host, "out.txt"),
        "file_edit: file_read must be called on out.txt before editing it."
    );
    let mut r = FileRead::new(s(&w.0));
    r.allow_hard_links = true;
    run(&mut r, &mut host, &input(&[("path", "out.txt")])).unwrap();
    edit(
        &mut t,
        &mut host,
        &[("path", "out.txt"), ("old_str", "a"), ("new_str", "b")],
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(w.0.join("out.txt")).unwrap(),
        "KEY=b\n"
    );
    assert_eq!(
        std::fs::read_to_string(outside.0.join("secret.txt")).unwrap(),
        "KEY=a\n"
    );
}

/// A workspace with `config/view.txt` and a folder outside it with its own `view.txt`.
fn swap_setup(tag: &str) -> (Ws, Ws) {
    let w = ws(tag);
    let out = ws(&format!("{tag}-out"));
    std::fs::create_dir(w.0.join("config")).unwrap();
    std::fs::write(w.0.join("config/view.txt"), "'timezone' => 'UTC'\n").unwrap();
    std::fs::write(out.0.join("view.txt"), "'timezone' => 'UTC'\n").unwrap();
    (w, out)
}

/// Move `config` aside and put a link to `out` in its place.
fn swap_config_for_link(ws: &Path, out: &Path) {
    std::fs::rename(ws.join("config"), ws.join("config-old")).unwrap();
    std::os::unix::fs::symlink(out, ws.join("config")).unwrap();
}

/// Have the next rename on this thread preceded by [`swap_config_for_link`].
fn swap_before_rename(w: &Ws, out: &Ws) {
    let (ws, elsewhere) = (w.0.clone(), out.0.clone());
    hooks::before_next_rename(move || swap_config_for_link(&ws, &elsewhere));
}

/// Nothing outside changed and no temp file was left there.
fn assert_untouched(out: &Ws) {
    assert_eq!(
        std::fs::read_to_string(out.0.join("view.txt")).unwrap(),
        "'timezone' => 'UTC'\n"
    );
    let names: Vec<_> = std::fs::read_dir(&out.0)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["view.txt"]);
}

fn edit_input() -> Value {
    input(&[
        ("path", "config/view.txt"),
        ("old_str", "UTC"),
        ("new_str", "Europe/Paris"),
    ])
}

#[test]
fn edit_never_follows_a_folder_swapped_for_a_link_after_the_plan() {
    let (w, out) = swap_setup("gap-e1");
    let mut host = LogHost::default();
    read_then(&mut host, &w, "config/view.txt");
    let mut t = edit_tool(&w);
    let planned = t.plan(&edit_input(), &mut host).unwrap();
    swap_config_for_link(&w.0, &out.0);
    assert_eq!(
        tool_msg(t.perform(&planned, &mut host)),
        "file_edit: Access denied: path contains a symlink."
    );
    assert_untouched(&out);
}

#[test]
fn edit_never_follows_a_folder_swapped_for_a_link_before_the_rename() {
    let (w, out) = swap_setup("gap-e2");
    let mut host = LogHost::default();
    read_then(&mut host, &w, "config/view.txt");
    let mut t = edit_tool(&w);
    let planned = t.plan(&edit_input(), &mut host).unwrap();
    swap_before_rename(&w, &out);
    t.perform(&planned, &mut host).unwrap();
    // The edit landed in the folder that was checked and opened.
    assert_eq!(
        std::fs::read_to_string(w.0.join("config-old/view.txt")).unwrap(),
        "'timezone' => 'Europe/Paris'\n"
    );
    assert_untouched(&out);
}

#[test]
fn write_never_follows_a_folder_swapped_for_a_link() {
    let (w, out) = swap_setup("gap-w");
    let mut host = LogHost::default();
    let mut t = FileWrite::new(s(&w.0));
    let args = input(&[("path", "config/view.txt"), ("content", "x")]);
    let planned = t.plan(&args, &mut host).unwrap();
    swap_config_for_link(&w.0, &out.0);
    assert_eq!(
        tool_msg(t.perform(&planned, &mut host)),
        format!("Could not create directory: {}/config", w.0.display())
    );
    assert_untouched(&out);

    std::fs::remove_file(w.0.join("config")).unwrap();
    std::fs::rename(w.0.join("config-old"), w.0.join("config")).unwrap();
    let planned = t.plan(&args, &mut host).unwrap();
    swap_before_rename(&w, &out);
    t.perform(&planned, &mut host).unwrap();
    assert_eq!(
        std::fs::read(w.0.join("config-old/view.txt")).unwrap(),
        b"x"
    );
    assert_untouched(&out);
}

#[test]
fn write_never_makes_folders_through_a_link_planted_after_the_plan() {
    let (w, out) = swap_setup("gap-mk");
    let mut host = LogHost::default();
    let mut t = FileWrite::new(s(&w.0));
    let args = input(&[("path", "new/deep/a.txt"), ("content", "x")]);
    let planned = t.plan(&args, &mut host).unwrap();
    std::os::unix::fs::symlink(&out.0, w.0.join("new")).unwrap();
    assert_eq!(
        tool_msg(t.perform(&planned, &mut host)),
        format!("Could not create directory: {}/new/deep", w.0.display())
    );
    assert_untouched(&out);
}

#[test]
fn edit_judges_again_a_file_replaced_after_the_plan() {
    let w = ws("gap-hl");
    std::fs::write(w.0.join("notes.txt"), "KEY=a\n").unwrap();
    std::fs::write(w.0.join(".env"), "KEY=secret\n").unwrap();
    let mut host = LogHost::default();
    read_then(&mut host, &w, "notes.txt");
    let mut t = edit_tool(&w);
    let args = input(&[
        ("path", "notes.txt"),
        ("old_str", "KEY="),
        ("new_str", "K="),
    ]);
    let planned = t.plan(&args, &mut host).unwrap();
    // Replaced by a second name of the secret: refused as the gate refuses it.
    std::fs::remove_file(w.0.join("notes.txt")).unwrap();
    std::fs::hard_link(w.0.join(".env"), w.0.join("notes.txt")).unwrap();
    assert_eq!(
        tool_msg(t.perform(&planned, &mut host)),
        "file_edit: Access denied: the file has more than one hard link."
    );
    assert_eq!(std::fs::read(w.0.join(".env")).unwrap(), b"KEY=secret\n");
    use std::os::unix::fs::MetadataExt as _;
    assert_eq!(std::fs::metadata(w.0.join("notes.txt")).unwrap().nlink(), 2);
    // Replaced by a plain file: edited as it is now.
    std::fs::remove_file(w.0.join("notes.txt")).unwrap();
    std::fs::write(w.0.join("notes.txt"), "x\nKEY=b\n").unwrap();
    let out = t.perform(&planned, &mut host).unwrap();
    assert_eq!(out.line, 2);
    assert_eq!(std::fs::read(w.0.join("notes.txt")).unwrap(), b"x\nK=b\n");
}

#[test]
fn durable_writes_sync_and_others_do_not() {
    let w = ws("durable");
    let syncs = || hooks::SYNCS.with(std::cell::Cell::get);
    let mut t = FileWrite::new(s(&w.0));
    let before = syncs();
    write(&mut t, &[("path", "a.txt"), ("content", "1")]).unwrap();
    assert_eq!(syncs(), before);
    t.durable_writes = true;
    write(&mut t, &[("path", "a.txt"), ("content", "2")]).unwrap();
    assert_eq!(syncs(), before + 2);
    assert_eq!(std::fs::read(w.0.join("a.txt")).unwrap(), b"2");
    let mut host = LogHost::default();
    read_then(&mut host, &w, "a.txt");
    let mut e = edit_tool(&w);
    edit(
        &mut e,
        &mut host,
        &[("path", "a.txt"), ("old_str", "2"), ("new_str", "3")],
    )
    .unwrap();
    assert_eq!(syncs(), before + 2);
    e.durable_writes = true;
    edit(
        &mut e,
        &mut host,
        &[("path", "a.txt"), ("old_str", "3"), ("new_str", "4")],
    )
    .unwrap();
    assert_eq!(syncs(), before + 4);
    assert_eq!(std::fs::read(w.0.join("a.txt")).unwrap(), b"4");
}
