//! code_search core: PHP pattern parsing, page byte counting, project depth and tree.

use super::code_search::{compile_php_regex, php_json_len};
use super::project;
use crate::core::value::Value;

fn matches(p: &str, line: &str) -> Option<bool> {
    compile_php_regex(p.as_bytes()).and_then(|r| r.is_match(line.as_bytes()))
}

#[test]
fn delimiters_and_modifiers_as_preg() {
    assert_eq!(matches("/a+/", "caat"), Some(true));
    assert_eq!(matches("#A#i", "xa"), Some(true));
    assert_eq!(matches("{a{2}}", "aa"), Some(true));
    assert_eq!(matches("(a(b))", "ab"), Some(true));
    assert_eq!(matches("/b/A", "ab"), Some(false));
    assert_eq!(matches("/a/A", "ab"), Some(true));
    assert_eq!(matches(" /x/ ", "x"), Some(true));
    assert_eq!(matches("/(*UCP)\\w/u", "é"), Some(true));
    assert_eq!(matches("/a\\/b/", "a/b"), Some(true));
}

#[test]
fn refusals_as_preg() {
    for p in [
        "beta|gamma",
        "abca",
        "\\a\\",
        "/abc",
        "/a/k",
        "/a/e",
        "/(/",
        "{a",
        "",
    ] {
        assert!(compile_php_regex(p.as_bytes()).is_none(), "{p}");
    }
}

#[test]
fn json_length_counts_php_escapes() {
    assert_eq!(php_json_len(&Value::str("a/b")), 6);
    assert_eq!(php_json_len(&Value::str("é")), 8);
    assert_eq!(php_json_len(&Value::str("😀")), 14);
    assert_eq!(php_json_len(&Value::Str(vec![0xff])), 0);
}

#[test]
fn project_tree_sorted_and_skipping() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("b/c/d")).unwrap();
    std::fs::create_dir_all(root.join("vendor")).unwrap();
    std::fs::write(root.join("z.txt"), "").unwrap();
    std::fs::write(root.join("a.txt"), "").unwrap();
    std::fs::write(root.join("b/c/d/e.txt"), "").unwrap();
    let t = project::tree(root, 2, 0);
    let keys: Vec<String> = t.keys().map(|k| format!("{k:?}")).collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert_eq!(project::detect(&root.to_string_lossy()), "unknown");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/magento"), "").unwrap();
    assert_eq!(project::detect(&root.to_string_lossy()), "magento");
}

/// The step ceiling: `(a+)+$` on n `a`s and a `!` needs about 2^n steps; PHP at
/// `pcre.backtrack_limit=200000` gives up from n = 17 on (checked with php), so must we, with
/// the JIT and without; a pattern's own larger limit does not lift it, a lower one applies.
#[test]
fn backtrack_ceiling_as_php_sets_it() {
    for jit in [true, false] {
        let re = super::code_search::compile_php_regex_with(b"/(a+)+$/", jit).unwrap();
        let lifted =
            super::code_search::compile_php_regex_with(b"/(*LIMIT_MATCH=99999999)(a+)+$/", jit)
                .unwrap();
        let lowered =
            super::code_search::compile_php_regex_with(b"/(*LIMIT_MATCH=1000)(a+)+$/", jit)
                .unwrap();
        for (n, want) in [(12, Some(false)), (16, Some(false)), (17, None), (24, None)] {
            let line = format!("{}!", "a".repeat(n));
            assert_eq!(re.is_match(line.as_bytes()), want, "n={n} jit={jit}");
            assert_eq!(lifted.is_match(line.as_bytes()), want, "n={n} jit={jit}");
        }
        assert_eq!(lowered.is_match(b"aaaaaaaaaaaa!"), None, "jit={jit}");
    }
}
