//! Tests of the native tool base and of file_read's pure parts, on real temporary files.

use super::file_read::*;
use super::*;
use crate::core::value::Value;
use std::path::PathBuf;

struct FakeHost {
    console: bool,
    allows: bool,
    marked: Vec<(String, String)>,
}

impl Host for FakeHost {
    type Error = &'static str;
    fn running_in_console(&mut self) -> Result<bool, &'static str> {
        Ok(self.console)
    }
    fn allows(&mut self) -> Result<bool, &'static str> {
        Ok(self.allows)
    }
    fn mark_read(&mut self, root: &str, path: &str) -> Result<(), &'static str> {
        self.marked.push((root.to_string(), path.to_string()));
        Ok(())
    }
}

fn host() -> FakeHost {
    FakeHost {
        console: false,
        allows: true,
        marked: Vec::new(),
    }
}

struct Ws(PathBuf);
impl Drop for Ws {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn workspace(tag: &str) -> Ws {
    let dir = std::env::temp_dir().join(format!("phpclaw-core-fr-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Ws(dir)
}

fn input(pairs: &[(&str, Value)]) -> Value {
    Value::from_pairs(pairs.iter().map(|(k, v)| (*k, v.clone())))
}

fn run_ok(tool: &mut FileRead, i: &Value) -> String {
    String::from_utf8(run(tool, &mut host(), i).unwrap()).unwrap()
}

fn run_err(tool: &mut FileRead, i: &Value) -> String {
    match run(tool, &mut host(), i) {
        Err(ToolError::Tool(m)) => m,
        other => panic!("expected a tool error, got {other:?}"),
    }
}

#[test]
fn envelope_bytes_are_php_json() {
    let ws = workspace("env");
    std::fs::write(ws.0.join("a.txt"), "h\u{e9}llo/\"x\"").unwrap();
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let out = run_ok(&mut t, &input(&[("path", Value::str("a.txt"))]));
    assert_eq!(
        out,
        "{\"success\":true,\"data\":{\"path\":\"a.txt\",\"content\":\"h\u{e9}llo/\\\"x\\\"\"},\"meta\":{\"mode\":\"read\",\"bytes\":10,\"truncated\":false},\"warnings\":[]}"
    );
}

#[test]
fn forbidden_caller_gets_core_message_and_nothing_runs() {
    let ws = workspace("forbid");
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let mut h = FakeHost {
        console: false,
        allows: false,
        marked: Vec::new(),
    };
    let out = run(&mut t, &mut h, &input(&[])).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "{\"success\":false,\"error\":{\"code\":\"FORBIDDEN\",\"message\":\"No authenticated caller was identified, so this request may not read a file from the workspace.\"},\"data\":null,\"meta\":{\"mode\":\"error\"},\"warnings\":[]}"
    );
    // The console wins over a refusing capability.
    let mut h = FakeHost {
        console: true,
        allows: false,
        marked: Vec::new(),
    };
    assert!(
        matches!(run(&mut t, &mut h, &input(&[])), Err(ToolError::Tool(m)) if m == "No file path provided.")
    );
}

#[test]
fn cap_at_and_past_the_limit_and_utf8_tail() {
    let ws = workspace("cap");
    std::fs::write(ws.0.join("ten.txt"), "aaaaaaaaaa").unwrap();
    std::fs::write(ws.0.join("eleven.txt"), "aaaaaaaaaab").unwrap();
    std::fs::write(ws.0.join("euro.txt"), "aaaaaaaaaa\u{20ac}").unwrap();
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    t.max_bytes = 10;
    let r = t
        .read_truncated(&ws.0.join("ten.txt").to_string_lossy(), "ten.txt")
        .unwrap();
    assert_eq!(
        (r.content.as_slice(), r.truncated),
        (b"aaaaaaaaaa".as_slice(), false)
    );
    let r = t
        .read_truncated(&ws.0.join("eleven.txt").to_string_lossy(), "e")
        .unwrap();
    assert_eq!(r.content, b"aaaaaaaaaa\n[File truncated at 10 bytes]");
    assert!(r.truncated);
    t.max_bytes = 11;
    let r = t
        .read_truncated(&ws.0.join("euro.txt").to_string_lossy(), "e")
        .unwrap();
    assert_eq!(r.content, b"aaaaaaaaaa\n[File truncated at 11 bytes]");
}

#[test]
fn binary_sniff_at_and_past_8192() {
    let ws = workspace("bin");
    let mut at = vec![b'a'; 8191];
    at.push(0);
    std::fs::write(ws.0.join("at.txt"), &at).unwrap();
    let mut past = vec![b'a'; 8192];
    past.push(0);
    std::fs::write(ws.0.join("past.txt"), &past).unwrap();
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    assert_eq!(
        run_err(&mut t, &input(&[("path", Value::str("at.txt"))])),
        "Binary file; not readable as text: at.txt"
    );
    t.max_bytes = 100_000;
    let out = run(
        &mut t,
        &mut host(),
        &input(&[("path", Value::str("past.txt"))]),
    );
    // Past the sniff the NUL is read as text; json_encode accepts it as \u0000.
    assert!(String::from_utf8(out.unwrap()).unwrap().contains("\\u0000"));
}

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[test]
fn line_ranges_as_the_spec_table() {
    let ws = workspace("lines");
    std::fs::write(ws.0.join("l.txt"), lines(10)).unwrap();
    let real = ws.0.join("l.txt").to_string_lossy().into_owned();
    let t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let r = |o, l, n| {
        t.read_lines(
            &real,
            "l.txt",
            Range {
                offset: o,
                limit: l,
                line_numbers: n,
            },
        )
        .unwrap()
    };
    let a = r(3, Some(2), false);
    assert_eq!(
        (a.content.as_slice(), a.next_offset),
        (b"line 3\nline 4".as_slice(), Some(Some(5)))
    );
    let a = r(9, None, true);
    assert_eq!(
        (a.content.as_slice(), a.next_offset),
        (b"9\tline 9\n10\tline 10".as_slice(), Some(None))
    );
    let a = r(50, None, false);
    assert_eq!(
        (a.content.as_slice(), a.next_offset),
        (b"".as_slice(), Some(None))
    );
    let a = r(i64::MAX, Some(i64::MAX), false);
    assert_eq!(a.next_offset, Some(None));
    let a = r(1, Some(10), false);
    assert_eq!(a.next_offset, Some(None));
    let mut t2 = t.clone();
    t2.max_bytes = 20;
    let a = t2
        .read_lines(
            &real,
            "l.txt",
            Range {
                offset: 1,
                limit: None,
                line_numbers: false,
            },
        )
        .unwrap();
    assert_eq!(
        (a.content.as_slice(), a.truncated, a.next_offset),
        (b"line 1\nline 2\nline 3".as_slice(), true, Some(Some(4)))
    );
    // Exactly at the cap: 20 bytes fit, one more does not.
    t2.max_bytes = 19;
    let a = t2
        .read_lines(
            &real,
            "l.txt",
            Range {
                offset: 1,
                limit: None,
                line_numbers: false,
            },
        )
        .unwrap();
    assert_eq!(
        (a.content.as_slice(), a.next_offset),
        (b"line 1\nline 2".as_slice(), Some(Some(3)))
    );
    // A first line longer than the cap is cut and the next read starts after it.
    t2.max_bytes = 3;
    let a = t2
        .read_lines(
            &real,
            "l.txt",
            Range {
                offset: 2,
                limit: None,
                line_numbers: false,
            },
        )
        .unwrap();
    assert_eq!(
        (a.content.as_slice(), a.truncated, a.next_offset),
        (b"lin".as_slice(), true, Some(Some(3)))
    );
}

#[test]
fn line_endings_are_trimmed_like_rtrim() {
    let ws = workspace("crlf");
    std::fs::write(ws.0.join("c.txt"), "a\r\n\r\nb\r\r\nlast").unwrap();
    let real = ws.0.join("c.txt").to_string_lossy().into_owned();
    let t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let a = t
        .read_lines(
            &real,
            "c",
            Range {
                offset: 1,
                limit: None,
                line_numbers: false,
            },
        )
        .unwrap();
    assert_eq!(a.content, b"a\n\nb\nlast");
}

#[test]
fn range_inputs() {
    for (v, ok) in [
        (Value::Int(1), Some(1)),
        (Value::Int(0), None),
        (Value::Int(-2), None),
        (Value::str("007"), Some(7)),
        (Value::str("ten"), None),
        (Value::str(""), None),
        (Value::str(" 1"), None),
        (Value::Float(1.0), None),
        (Value::Float(1.5), None),
        (Value::Null, None),
        (Value::Bool(true), None),
        (Value::str("99999999999999999999999"), Some(i64::MAX)),
    ] {
        assert_eq!(positive_whole_number(&v), ok, "{v:?}");
    }
    for (v, b) in [
        (Value::Bool(true), true),
        (Value::Int(1), true),
        (Value::Int(2), false),
        (Value::str(" Yes\n"), true),
        (Value::str("on"), true),
        (Value::str("off"), false),
        (Value::Float(1.0), true),
        (Value::Null, false),
        (Value::Array(crate::core::value::Array::new()), false),
    ] {
        assert_eq!(filter_bool(&v), b, "{v:?}");
    }
    assert_eq!(crate::core::value::php_float_string(1e25), b"1.0E+25");
    assert_eq!(crate::core::value::php_float_string(1.5), b"1.5");
    assert_eq!(crate::core::value::php_float_string(f64::NAN), b"NAN");
}

#[test]
fn sandbox_refusals_carry_reference_messages() {
    let ws = workspace("sandbox");
    std::fs::create_dir_all(ws.0.join("vendor")).unwrap();
    std::fs::write(ws.0.join("vendor/a.txt"), "v").unwrap();
    std::fs::write(ws.0.join("wp-config.php"), "x").unwrap();
    std::fs::write(ws.0.join("real.txt"), "r").unwrap();
    std::os::unix::fs::symlink(ws.0.join("real.txt"), ws.0.join("link.txt")).unwrap();
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let p = |s: &str| input(&[("path", Value::str(s))]);
    assert_eq!(
        run_err(&mut t, &p("wp-config.php")),
        "Access to 'wp-config.php' is blocked."
    );
    assert_eq!(
        run_err(&mut t, &p("vendor/a.txt")),
        "Reading from the 'vendor' directory is blocked."
    );
    assert_eq!(
        run_err(&mut t, &p("link.txt")),
        "Access denied: path contains a symlink."
    );
    assert_eq!(
        run_err(&mut t, &p("/etc/passwd")),
        "Absolute paths are not allowed: etc/passwd"
    );
    assert_eq!(
        run_err(&mut t, &p("../x")),
        "Path traversal detected: access denied."
    );
    assert_eq!(run_err(&mut t, &p("  ")), "No file path provided.");
    assert_eq!(run_err(&mut t, &p("nope.txt")), "File not found: nope.txt");
    t.noise_dirs = Vec::new();
    assert!(run_ok(&mut t, &p("vendor/a.txt")).contains("\"content\":\"v\""));
    t.follow_symlinks = true;
    assert!(run_ok(&mut t, &p("link.txt")).contains("\"content\":\"r\""));
    let mut h = host();
    run(&mut t, &mut h, &p("./real.txt")).unwrap();
    assert_eq!(h.marked.len(), 1);
    assert!(h.marked[0].1.ends_with("/real.txt"));
    assert_eq!(
        run_err(
            &mut t,
            &input(&[("path", Value::str("real.txt")), ("limit", Value::Int(0))])
        ),
        RANGE_MESSAGE
    );
}

#[test]
fn shown_path_keeps_the_callers_spelling() {
    let ws = workspace("shown");
    std::fs::create_dir_all(ws.0.join("sub")).unwrap();
    std::fs::write(ws.0.join("sub/f.txt"), "ok").unwrap();
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let out = run_ok(&mut t, &input(&[("path", Value::str("./sub//f.txt"))]));
    assert!(out.contains("\"path\":\"./sub//f.txt\""), "{out}");
}

#[test]
fn configured_root_default_and_trailing_separator() {
    assert_eq!(
        configured_root(None, "/srv/app"),
        "/srv/app/storage/phpclaw"
    );
    assert_eq!(configured_root(Some("/x/ws//"), "/"), "/x/ws");
    let mut t = FileRead::new("/nonexistent-phpclaw-root".to_string());
    assert_eq!(t.workspace_root(), "/nonexistent-phpclaw-root");
    assert_eq!(
        run_err(&mut t, &input(&[("path", Value::str("a.txt"))])),
        "Workspace root not found: /nonexistent-phpclaw-root"
    );
}

/// A workspace with a secret, a file outside it, and hard links and links to both.
fn linked(tag: &str) -> (Ws, PathBuf) {
    let ws = workspace(tag);
    let outside = ws.0.with_extension("outside");
    let _ = std::fs::remove_dir_all(&outside);
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET outside").unwrap();
    std::fs::write(ws.0.join(".env"), "SECRET=1").unwrap();
    std::fs::write(ws.0.join("notes.txt"), "notes").unwrap();
    std::fs::create_dir_all(ws.0.join("sub")).unwrap();
    std::fs::hard_link(ws.0.join(".env"), ws.0.join("innocent.txt")).unwrap();
    std::fs::hard_link(outside.join("secret.txt"), ws.0.join("sub/out.txt")).unwrap();
    let link = |t: &str, at: &str| std::os::unix::fs::symlink(t, ws.0.join(at)).unwrap();
    link("innocent.txt", "to-hard.txt");
    link("notes.txt", "one.txt");
    link("one.txt", "two.txt");
    link("../notes.txt", "sub/up.txt");
    link(".env", "env.txt");
    link("env.txt", "env-chain.txt");
    link(outside.join("secret.txt").to_str().unwrap(), "abs-out.txt");
    link("../../phpclaw-outside/x", "sub/rel-out.txt");
    link("sub", "sub-link");
    (ws, outside)
}

const HARD_LINK: &str = "Access denied: the file has more than one hard link.";

#[test]
fn hard_links_are_refused_unless_allowed() {
    let (ws, outside) = linked("hard");
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    // The kernel-opened plain case and the full walk (a path that is not plain) alike.
    for p in [
        "innocent.txt",
        "./innocent.txt",
        "sub/out.txt",
        "sub//out.txt",
    ] {
        assert_eq!(
            run_err(&mut t, &input(&[("path", Value::str(p))])),
            HARD_LINK,
            "{p}"
        );
    }
    t.follow_symlinks = true;
    assert_eq!(
        run_err(&mut t, &input(&[("path", Value::str("to-hard.txt"))])),
        HARD_LINK
    );
    t.allow_hard_links = true;
    let out = run_ok(&mut t, &input(&[("path", Value::str("sub/out.txt"))]));
    assert!(out.contains("SECRET outside"), "{out}");
    let out = run_ok(&mut t, &input(&[("path", Value::str("./innocent.txt"))]));
    assert!(out.contains("SECRET=1"), "{out}");
    let _ = std::fs::remove_dir_all(outside);
}

#[test]
fn followed_links_are_read_only_inside_and_unblocked() {
    let (ws, outside) = linked("follow");
    let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let msg = |t: &mut FileRead, p: &str| run_err(t, &input(&[("path", Value::str(p))]));
    // Not followed by default, whatever the shape.
    for p in [
        "one.txt",
        "two.txt",
        "sub/up.txt",
        "env.txt",
        "abs-out.txt",
        "sub-link/out.txt",
    ] {
        assert_eq!(
            msg(&mut t, p),
            "Access denied: path contains a symlink.",
            "{p}"
        );
    }
    t.follow_symlinks = true;
    for p in ["one.txt", "two.txt", "sub/up.txt"] {
        let out = run_ok(&mut t, &input(&[("path", Value::str(p))]));
        assert!(out.contains("\"content\":\"notes\""), "{p}: {out}");
    }
    assert_eq!(msg(&mut t, "env.txt"), "Access to '.env' files is blocked.");
    assert_eq!(
        msg(&mut t, "env-chain.txt"),
        "Access to '.env' files is blocked."
    );
    assert_eq!(
        msg(&mut t, "abs-out.txt"),
        "Path traversal detected: access denied."
    );
    assert_eq!(
        msg(&mut t, "sub/rel-out.txt"),
        "Access denied: path contains a symlink."
    );
    let _ = std::fs::remove_dir_all(outside);
}

#[test]
fn what_is_read_is_what_was_opened_at_planning() {
    let (ws, outside) = linked("swap");
    for (follow, p) in [
        (false, "notes.txt"),
        (false, "./notes.txt"),
        (true, "one.txt"),
    ] {
        std::fs::write(ws.0.join("notes.txt"), "notes").unwrap();
        let mut t = FileRead::new(ws.0.to_string_lossy().into_owned());
        t.follow_symlinks = follow;
        let planned = t
            .plan(&input(&[("path", Value::str(p))]), &mut host())
            .unwrap();
        // The name now leads out of the workspace.
        std::fs::remove_file(ws.0.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.txt"), ws.0.join("notes.txt")).unwrap();
        let read = t.perform(&planned, &mut host()).unwrap();
        assert_eq!(read.content, b"notes", "{p}");
        std::fs::remove_file(ws.0.join("notes.txt")).unwrap();
    }
    // A read the gate did not open (a path given straight to read_truncated) opens beneath
    // the root too: the planted link is refused, not followed.
    std::os::unix::fs::symlink(outside.join("secret.txt"), ws.0.join("notes.txt")).unwrap();
    let t = FileRead::new(ws.0.to_string_lossy().into_owned());
    let real = ws.0.join("notes.txt").to_string_lossy().into_owned();
    assert_eq!(
        t.read_truncated(&real, "notes.txt").unwrap_err(),
        "Access denied: path contains a symlink."
    );
    let _ = std::fs::remove_dir_all(outside);
}
