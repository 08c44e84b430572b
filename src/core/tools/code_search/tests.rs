//! The fast scan against the straightforward one on real trees: a walk with a `stat` per entry
//! and every file split into lines and tested line by line. Same rows (file, line, text,
//! context), in the same order, with the same offset and row-limit cut, threaded or not.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::*;
use crate::core::security::file_rules::{code_search_skips_dir, code_search_skips_file};
use crate::core::tools::project::Project;

/// The straightforward scan: what code_search did before the fast paths.
fn naive(root: &str, dir: &Path, p: &Planned, seen: &mut usize, rows: &mut Vec<Row>) -> bool {
    let Ok(rd) = fs::read_dir(dir) else {
        return true;
    };
    let mut entries: Vec<(Vec<u8>, PathBuf)> = rd
        .filter_map(Result::ok)
        .map(|e| (e.file_name().as_bytes().to_vec(), e.path()))
        .collect();
    entries.sort();
    let re = p.is_regex.then(|| compile_php_regex(&p.pattern).unwrap());
    for (name, path) in entries {
        let name_s = String::from_utf8_lossy(&name);
        if code_search_skips_dir(&name_s) {
            continue;
        }
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() && fs::symlink_metadata(&path).unwrap().is_symlink() {
            continue;
        }
        if meta.is_dir() {
            if !naive(root, &path, p, seen, rows) {
                return false;
            }
            continue;
        }
        if !meta.is_file()
            || meta.len() > MAX_FILE_BYTES
            || code_search_skips_file(&name_s)
            || !extension_matches(&name, &p.extension)
        {
            continue;
        }
        let content = fs::read(&path).unwrap();
        let mut lines: Vec<&[u8]> = content.split(|&c| c == b'\n').collect();
        if content.last() == Some(&b'\n') || content.is_empty() {
            lines.pop();
        }
        for (i, line) in lines.iter().enumerate() {
            let hit = match &re {
                Some(re) => re.is_match(line) == Some(true),
                None => memchr::memmem::find(line, &p.pattern).is_some(),
            };
            if !hit {
                continue;
            }
            *seen += 1;
            if *seen <= p.offset {
                continue;
            }
            let c = p.context_lines;
            rows.push(Row {
                file: path.to_string_lossy().as_bytes()[root.len() + 1..].to_vec(),
                line: i + 1,
                text: line.to_vec(),
                before: lines[i.saturating_sub(c)..i]
                    .iter()
                    .map(|l| l.to_vec())
                    .collect(),
                after: lines[i + 1..(i + 1 + c).min(lines.len())]
                    .iter()
                    .map(|l| l.to_vec())
                    .collect(),
            });
            if rows.len() > MAX_SCAN_ROWS {
                return false;
            }
        }
    }
    true
}

/// A small deterministic generator (no test may depend on the clock).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// A tree with nested folders, noise folders, secret files, a file past the size limit, a
/// FIFO, symbolic links to a file and a folder, CRLF lines and files with and without a final
/// newline.
fn tree(seed: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut g = Lcg(seed);
    let words = [
        "alpha",
        "beta",
        "needle",
        "Needle",
        "x",
        "",
        "needle needle",
        "a\r",
        "é",
    ];
    let folders = [
        "",
        "src",
        "src/deep",
        "vendor",
        ".git",
        "lib",
        ".ssh",
        "node_modules/x",
    ];
    for f in folders {
        fs::create_dir_all(root.join(f)).unwrap();
    }
    for i in 0..40 {
        let folder = folders[g.next(folders.len())];
        let ext = ["php", "txt", "PHP", "js", ""][g.next(5)];
        let name = match g.next(12) {
            0 => ".env".to_string(),
            1 => "id_rsa".to_string(),
            _ => format!("f{i}.{ext}"),
        };
        let mut body = Vec::new();
        for _ in 0..g.next(30) {
            body.extend_from_slice(words[g.next(words.len())].as_bytes());
            body.push(b'\n');
        }
        if g.next(2) == 0 {
            body.pop();
        }
        fs::write(root.join(folder).join(name), body).unwrap();
    }
    let mut big = b"needle\n".to_vec();
    big.resize(MAX_FILE_BYTES as usize + 1, b'x');
    fs::write(root.join("src/big.txt"), big).unwrap();
    let mut at = b"needle\n".to_vec();
    at.resize(MAX_FILE_BYTES as usize, b'x');
    fs::write(root.join("src/at.txt"), at).unwrap();
    fs::write(root.join("lib/many.txt"), "needle\n".repeat(700)).unwrap();
    std::os::unix::fs::symlink(root.join("lib/many.txt"), root.join("src/link.txt")).unwrap();
    std::os::unix::fs::symlink(root.join("src/deep"), root.join("linked")).unwrap();
    std::os::unix::fs::symlink(root.join("missing"), root.join("dangling")).unwrap();
    let fifo = std::ffi::CString::new(root.join("src/fifo").as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) };
    dir
}

fn planned(
    root: &str,
    pattern: &str,
    is_regex: bool,
    ext: &str,
    context: usize,
    offset: usize,
) -> Planned {
    let _ = root;
    Planned {
        pattern: pattern.as_bytes().to_vec(),
        sub: Vec::new(),
        extension: ext.to_string(),
        is_regex,
        context_lines: context,
        with_content: true,
        offset,
    }
}

#[test]
fn fast_scan_finds_the_rows_the_line_by_line_scan_finds() {
    let (mut most, mut empty) = (0, 0);
    for seed in 1..6 {
        let dir = tree(seed);
        let root = dir.path().to_string_lossy().into_owned();
        let tool = CodeSearch::new(root.clone());
        for (pattern, is_regex) in [
            ("needle", false),
            ("needle needle", false),
            ("a\r", false),
            ("x\nneedle", false),
            ("/needle$/", true),
            ("/^$/", true),
            ("/N?eedle\\b/", true),
            ("/needle/i", true),
            ("/NEEDLE\\b/i", true),
            ("/\\w+ \\w+/u", true),
        ] {
            for (ext, context, offset) in [("", 0, 0), ("php", 2, 0), ("", 5, 3), ("", 1, 650)] {
                let p = planned(&root, pattern, is_regex, ext, context, offset);
                let mut expected = Vec::new();
                naive(&root, Path::new(&root), &p, &mut 0, &mut expected);
                most = most.max(expected.len());
                empty += usize::from(expected.is_empty());
                for mode in MODES {
                    assert_eq!(
                        scan_rows(&tool, &p, mode), expected,
                        "seed {seed} {pattern:?} ext {ext:?} context {context} offset {offset} mode {mode:?}"
                    );
                }
            }
        }
    }
    // The trees exercise the row limit, and most searches find something.
    assert_eq!(most, MAX_SCAN_ROWS + 1);
    assert!(empty < 60, "{empty} empty searches of 180");
}

/// Links to folders are not walked (as the reference's iterator), so two links back to the
/// root cannot multiply the walk; links to files are searched.
#[test]
fn folder_links_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("d")).unwrap();
    fs::write(root.join("d/f.txt"), "needle\n").unwrap();
    std::os::unix::fs::symlink(root, root.join("d/up1")).unwrap();
    std::os::unix::fs::symlink(root, root.join("d/up2")).unwrap();
    std::os::unix::fs::symlink(root.join("d/f.txt"), root.join("g.txt")).unwrap();
    let root_s = root.to_string_lossy().into_owned();
    let tool = CodeSearch::new(root_s.clone());
    let p = planned(&root_s, "needle", false, "", 0, 0);
    for mode in MODES {
        let rows = scan_rows(&tool, &p, mode);
        let files: Vec<&[u8]> = rows.iter().map(|r| r.file.as_slice()).collect();
        assert_eq!(files, [&b"d/f.txt"[..], b"g.txt"], "{mode:?}");
    }
}

#[test]
fn the_row_limit_stops_the_walk_at_the_same_row() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..30 {
        fs::write(dir.path().join(format!("f{i:02}.txt")), "hit\n".repeat(100)).unwrap();
    }
    let root = dir.path().to_string_lossy().into_owned();
    let tool = CodeSearch::new(root.clone());
    let p = planned(&root, "hit", false, "", 0, 5);
    for mode in MODES {
        let rows = scan_rows(&tool, &p, mode);
        assert_eq!(rows.len(), MAX_SCAN_ROWS + 1);
        let last = rows.last().unwrap();
        assert_eq!(
            (last.file.as_slice(), last.line),
            (&b"f10.txt"[..], 6),
            "{mode:?}"
        );
    }
}

/// project_info's tree the straightforward way: `read_dir`, sort, `is_dir()` per entry.
fn naive_tree(dir: &Path, depth: i64, level: i64) -> Array {
    let mut items = Array::new();
    if level >= depth {
        return items;
    }
    let Ok(rd) = fs::read_dir(dir) else {
        return items;
    };
    let mut entries: Vec<(Vec<u8>, PathBuf)> = rd
        .filter_map(Result::ok)
        .map(|e| (e.file_name().as_bytes().to_vec(), e.path()))
        .collect();
    entries.sort();
    for (name, path) in entries {
        if crate::core::security::file_rules::project_skips_entry(&String::from_utf8_lossy(&name)) {
            continue;
        }
        // A dangling link leads nowhere: left out (the trees here link inside only).
        if fs::symlink_metadata(&path).unwrap().is_symlink() && !path.exists() {
            continue;
        }
        if path.is_dir() {
            let mut key = name.clone();
            key.push(b'/');
            items.insert(key, Value::Array(naive_tree(&path, depth, level + 1)));
        } else {
            let _ = items.push(Value::Str(name));
        }
    }
    items
}

#[test]
fn project_tree_as_the_straightforward_tree() {
    for seed in 1..4 {
        let dir = tree(seed);
        fs::create_dir_all(dir.path().join("storage/a/b/c/d/e")).unwrap();
        fs::create_dir_all(dir.path().join("src/deep/cache/x")).unwrap();
        fs::create_dir_all(dir.path().join("1/2")).unwrap();
        for depth in 0..6 {
            for level in 0..2 {
                assert_eq!(
                    super::super::project::tree(dir.path(), depth, level),
                    naive_tree(dir.path(), depth, level),
                    "seed {seed} depth {depth} level {level}"
                );
            }
        }
    }
}

/// Enough files that the walking thread finishes early and probes from the end while the scan
/// comes from the front: the rows are those of the line-by-line scan, every time.
#[test]
fn probing_from_the_end_keeps_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..400 {
        let sub = dir.path().join(format!("d{}", i % 7));
        fs::create_dir_all(&sub).unwrap();
        let body = if i % 9 == 0 {
            format!("a\nneedle {i}\nb\n")
        } else {
            "nothing here\n".repeat(50)
        };
        fs::write(sub.join(format!("f{i:03}.txt")), body).unwrap();
    }
    let root = dir.path().to_string_lossy().into_owned();
    let tool = CodeSearch::new(root.clone());
    for (pattern, is_regex, offset) in [("needle", false, 0), ("/ne+dle \\d/", true, 10)] {
        let p = planned(&root, pattern, is_regex, "", 1, offset);
        let mut expected = Vec::new();
        naive(&root, Path::new(&root), &p, &mut 0, &mut expected);
        assert_eq!(expected.len(), 45 - offset);
        for _ in 0..5 {
            for mode in MODES {
                assert_eq!(scan_rows(&tool, &p, mode), expected, "{pattern} {mode:?}");
            }
        }
    }
}

/// How `walk_and_scan` is run in the tests: on one thread; with the helper from the first file;
/// with the helper from the fourth (the first three walked and scanned here, the rest walked by
/// the helper); with the tool's own threshold.
const MODES: [(bool, usize); 4] = [(false, 0), (true, 0), (true, 3), (true, PARALLEL_MIN_FILES)];

/// The rows `walk_and_scan` finds for `p`, on one thread or two (`mode`, one of [`MODES`]).
fn scan_rows(tool: &CodeSearch, p: &Planned, (threaded, from): (bool, usize)) -> Vec<Row> {
    let mut tool_here = CodeSearch::new(tool.root.clone());
    tool_here.jit = tool.jit;
    tool_here.allow_hard_links = tool.allow_hard_links;
    tool_here.parallel_min_files = from;
    let mut s = Scan::new(tool_here.matcher(p).unwrap());
    tool_here.walk_and_scan(p, &mut s, threaded);
    s.found.rows
}

/// A host that allows everything.
struct Open;
impl crate::core::tools::Host for Open {
    type Error = ();
    fn running_in_console(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
    fn allows(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
}

/// A cloned repository inside the workspace with links of every shape and hard links; the
/// secret word appears only in what must never be searched.
fn linked_workspace() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    let repo = ws.join("repos/cloned");
    fs::create_dir_all(&repo).unwrap();
    fs::create_dir_all(ws.join("vendor/pkg")).unwrap();
    fs::create_dir_all(ws.join(".ssh")).unwrap();
    fs::create_dir_all(base.join("outside")).unwrap();
    fs::write(ws.join(".env"), "needle SECRET env\n").unwrap();
    fs::write(ws.join(".ssh/config"), "needle SECRET ssh\n").unwrap();
    fs::write(ws.join("vendor/pkg/x.php"), "needle SECRET vendor\n").unwrap();
    fs::write(base.join("outside/secret.txt"), "needle SECRET outside\n").unwrap();
    fs::write(repo.join("README.md"), "needle readme\n").unwrap();
    fs::write(ws.join("notes.txt"), "needle notes\n").unwrap();
    let link = |target: &str, at: &str| symlink(target, ws.join(at)).unwrap();
    // The red-team shapes: relative and absolute links out, to .env, chains, folders, `..`.
    link("../../.env", "repos/cloned/CHANGELOG.txt");
    link(
        base.join("outside/secret.txt").to_str().unwrap(),
        "repos/cloned/LICENSE.txt",
    );
    link("../../../outside/secret.txt", "repos/cloned/dotdot.txt");
    link("LICENSE.txt", "repos/cloned/chain1.txt");
    link("chain1.txt", "repos/cloned/chain2.txt");
    link("../../.ssh/config", "repos/cloned/ssh.txt");
    link("../../vendor/pkg/x.php", "repos/cloned/vendored.txt");
    link(
        base.join("outside").to_str().unwrap(),
        "repos/cloned/outdir",
    );
    link("../../.ssh", "repos/cloned/sshdir");
    link("/proc/self/root/etc/hostname", "repos/cloned/magic.txt");
    // Links that stay inside and lead to an ordinary file are searched.
    link("../../notes.txt", "repos/cloned/notes-link.txt");
    link("README.md", "repos/cloned/readme-link.txt");
    // Hard links: to the workspace's .env and to a file outside.
    fs::hard_link(ws.join(".env"), ws.join("innocent.txt")).unwrap();
    fs::hard_link(
        base.join("outside/secret.txt"),
        ws.join("repos/cloned/hard-out.txt"),
    )
    .unwrap();
    (dir, ws.to_string_lossy().into_owned())
}

fn search(tool: &mut CodeSearch, path: &str) -> Vec<String> {
    let input = Value::from_pairs([("pattern", "needle"), ("path", path)]);
    let out = crate::core::tools::run(tool, &mut Open, &input).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    v["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn links_out_of_the_workspace_or_to_secrets_and_hard_links_are_skipped() {
    let (_dir, ws) = linked_workspace();
    let mut tool = CodeSearch::new(ws.clone());
    let want = [
        "notes.txt",
        "repos/cloned/README.md",
        "repos/cloned/notes-link.txt",
        "repos/cloned/readme-link.txt",
    ];
    for mode in MODES {
        let p = planned(&ws, "needle", false, "", 0, 0);
        let files: Vec<String> = scan_rows(&tool, &p, mode)
            .iter()
            .map(|r| String::from_utf8_lossy(&r.file).into_owned())
            .collect();
        assert_eq!(files, want, "{mode:?}");
    }
    assert_eq!(search(&mut tool, ""), want);
    assert_eq!(search(&mut tool, "repos/cloned"), &want[1..]);
    // Allowed hard links are searched (the option's whole point), links still judged.
    tool.allow_hard_links = true;
    let files = search(&mut tool, "");
    assert_eq!(
        files,
        [
            "innocent.txt",
            "notes.txt",
            "repos/cloned/README.md",
            "repos/cloned/hard-out.txt",
            "repos/cloned/notes-link.txt",
            "repos/cloned/readme-link.txt",
        ]
    );
}

#[test]
fn a_search_folder_swapped_for_a_link_after_planning_is_not_searched() {
    let (dir, ws) = linked_workspace();
    let mut tool = CodeSearch::new(ws.clone());
    let input = Value::from_pairs([("pattern", "needle"), ("path", "repos")]);
    let p = tool.plan(&input, &mut Open).unwrap();
    // Between plan and perform the folder becomes a link to a folder outside.
    let base = fs::canonicalize(dir.path()).unwrap();
    fs::rename(base.join("ws/repos"), base.join("moved")).unwrap();
    fs::create_dir_all(base.join("outside/cloned")).unwrap();
    fs::write(base.join("outside/cloned/f.txt"), "needle SECRET\n").unwrap();
    symlink(base.join("outside"), base.join("ws/repos")).unwrap();
    let found = tool.perform(&p, &mut Open).unwrap();
    assert!(found.rows.is_empty(), "{:?}", found.rows);
    // Planned now, the link is followed by the reference's realpath and lands outside.
    let e = crate::core::tools::run(&mut tool, &mut Open, &input).unwrap_err();
    assert_eq!(
        e,
        crate::core::tools::ToolError::Tool(
            "code_search: path escapes workspace root - blocked.".into()
        )
    );
}

#[test]
fn a_root_at_the_filesystem_root_is_refused() {
    let mut tool = CodeSearch::new("/");
    let input = Value::from_pairs([("pattern", "root")]);
    let e = crate::core::tools::run(&mut tool, &mut Open, &input).unwrap_err();
    assert_eq!(
        e,
        crate::core::tools::ToolError::Tool(
            "Workspace root may not be the filesystem root.".into()
        )
    );
}

/// project_info on a project with links of every shape and hard links: the tree names
/// hard-linked files (names only), a `composer.lock` with a second name is read only once
/// allowed.
#[test]
fn project_info_lists_and_reads_no_link_out_or_to_secrets_and_names_hard_links() {
    let dir = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(dir.path()).unwrap();
    let root = base.join("proj");
    fs::create_dir_all(root.join("src/inner")).unwrap();
    fs::create_dir_all(root.join(".ssh")).unwrap();
    fs::create_dir_all(root.join("vendor")).unwrap();
    fs::create_dir_all(base.join("outside/sub")).unwrap();
    fs::write(root.join("src/a.php"), "<?php").unwrap();
    fs::write(root.join(".env"), "K=v").unwrap();
    fs::write(root.join("src/inner/deep.txt"), "d").unwrap();
    let lock = r#"{"packages":[{"name":"acme/secret","version":"6.6.6"}]}"#;
    fs::write(base.join("outside/composer.lock"), lock).unwrap();
    let link = |target: &Path, at: &str| symlink(target, root.join(at)).unwrap();
    link(Path::new("src"), "link-in");
    link(&base.join("outside"), "link-out");
    link(Path::new("src/../../outside"), "link-dotdot");
    link(Path::new(".ssh"), "link-ssh");
    link(Path::new("vendor"), "link-vendor");
    link(Path::new(".env"), "env-link.txt");
    link(Path::new("/etc/passwd"), "passwd.txt");
    link(Path::new("src/a.php"), "good-link.php");
    link(Path::new("good-link.php"), "chain.php");
    link(Path::new("missing"), "dangling");
    link(&base.join("outside/composer.lock"), "composer.lock");
    fs::hard_link(root.join(".env"), root.join("innocent.txt")).unwrap();
    link(Path::new("innocent.txt"), "innocent-link.txt");
    fs::hard_link(
        base.join("outside/composer.lock"),
        root.join("src/out.lock"),
    )
    .unwrap();
    let run_json = |tool: &mut Project| {
        let out =
            crate::core::tools::run(tool, &mut Open, &Value::from_pairs([("depth", 3)])).unwrap();
        serde_json::from_slice::<serde_json::Value>(&out).unwrap()
    };
    let mut tool = Project::new(root.to_string_lossy().into_owned());
    let v = run_json(&mut tool);
    let tree = &v["data"]["file_tree"];
    // `.env` and `innocent.txt` are one file with two names, `src/out.lock` has a name outside:
    // each is named (the reference names `.env` too), as is a link to one inside. A real
    // `.ssh` folder is named, as the reference names it (a link to it is not followed).
    let src = serde_json::json!({"0": "a.php", "inner/": ["deep.txt"], "1": "out.lock"});
    let want = serde_json::json!({
        "0": ".env",
        ".ssh/": [],
        "1": "chain.php",
        "2": "good-link.php",
        "3": "innocent-link.txt",
        "4": "innocent.txt",
        "link-in/": src,
        "src/": src,
    });
    assert_eq!(tree, &want, "{tree}");
    assert_eq!(v["data"]["packages"], serde_json::json!([]));
    // The same tree with `allowHardLinks`: the option is about content only.
    tool.allow_hard_links = true;
    assert_eq!(&run_json(&mut tool)["data"]["file_tree"], tree);
    // A composer.lock inside with a second name outside is named in the tree but read only
    // once allowed.
    fs::remove_file(root.join("composer.lock")).unwrap();
    fs::hard_link(
        base.join("outside/composer.lock"),
        root.join("composer.lock"),
    )
    .unwrap();
    let top = |v: &serde_json::Value| -> Vec<String> {
        v["data"]["file_tree"]
            .as_object()
            .unwrap()
            .values()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let named = [
        ".env",
        "chain.php",
        "composer.lock",
        "good-link.php",
        "innocent-link.txt",
        "innocent.txt",
    ];
    tool.allow_hard_links = false;
    let v = run_json(&mut tool);
    assert_eq!(v["data"]["packages"], serde_json::json!([]));
    assert_eq!(top(&v), named);
    tool.allow_hard_links = true;
    let v = run_json(&mut tool);
    assert_eq!(
        v["data"]["packages"],
        serde_json::json!([{"name": "acme/secret", "version": "6.6.6"}])
    );
    assert_eq!(top(&v), named);
}
