//! Fuzzing the shell policy: arbitrary strings and bytes, and commands built from a vocabulary
//! of programs, flags and sensitive names, must never panic or hang, and an approval must
//! always respect the allowlist and the metacharacter rule.
//!
//! The default case count keeps this file fast; set `PROPTEST_CASES` for a long run.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use phpclaw::core::security::shell_policy::{
    child_env_allowed, php_trim, php_trim_str, sanitize_output, shape_output, split_argv,
    ShellError, ShellPolicy, HARD_BLOCKED, METACHARACTERS,
};
use proptest::prelude::*;

/// Longest a single decision may take before it counts as a hang.
const SLOW: Duration = Duration::from_secs(2);

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// A small tree with a secret in it, shared by all cases; the last test to finish removes it.
fn tree() -> &'static PathBuf {
    static TREE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TREE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("phpclaw-fuzz-shell-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = std::fs::create_dir_all(dir.join("app/config"));
        let _ = std::fs::create_dir_all(dir.join("clean/sub"));
        let _ = std::fs::write(dir.join("app/config/.env"), "S=1");
        let _ = std::fs::write(dir.join("clean/sub/a.txt"), "x");
        let _ = std::os::unix::fs::symlink("/etc/passwd", dir.join("clean/pw"));
        let _ = std::os::unix::fs::symlink(&dir, dir.join("clean/loop"));
        dir
    })
}

/// Number of `#[test]`s in this file that use [`tree`].
const TESTS_USING_TREE: usize = 4;

fn finished_with_tree() {
    static DONE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if DONE.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == TESTS_USING_TREE {
        let _ = std::fs::remove_dir_all(tree());
    }
}

fn policy() -> ShellPolicy {
    ShellPolicy::new(
        [
            "ls", "cat", "grep", "head", "wc", "cp", "tree", "rm", "/bin/ls", "./x", "sed", "sort",
            "diff", "xargs", "php",
        ],
        tree(),
    )
}

const WORDS: &[&str] = &[
    "ls",
    "cat",
    "grep",
    "rm",
    "RM",
    "/bin/rm",
    "cp",
    "tree",
    "xargs",
    "php",
    "sed",
    "-r",
    "-R",
    "-rl",
    "-d",
    "recurse",
    "--recursive",
    "--recur",
    "--",
    "-",
    "-f.env",
    "-fwp-config.php",
    "--file=.env",
    "--x=",
    ".env",
    ".env.local",
    "wp-config.php~",
    "id_rsa.bak",
    "a.pem",
    ".git/",
    ".ssh",
    "/etc/passwd",
    "/etc/ssh",
    "/proc/self/environ",
    "/dev/mem",
    "/sys",
    "..",
    "../..",
    ".",
    "/",
    "app",
    "clean",
    "clean/pw",
    "clean/loop",
    "clean/sub",
    "x",
    "é",
    "日本",
    ";",
    "|",
    "$",
    "\n",
    "\t",
    "\0",
    "~",
    ".bak",
    "python3.11",
    "./x",
];

fn vocab_command() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..10).prop_map(|w| w.join(" "))
}

fn timed<T>(f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    assert!(start.elapsed() < SLOW, "took {:?}", start.elapsed());
    out
}

fn judge(command: &str) {
    let p = policy();
    let verdict = timed(|| p.check(command));
    let mutating = timed(|| p.is_mutating(command));
    match verdict {
        Ok(ok) => {
            assert!(p.allowlist().contains(&ok.program));
            assert_eq!(ok.argv.first(), Some(&ok.program));
            assert!(!METACHARACTERS.iter().any(|m| ok.command.contains(m)));
            assert!(!ok
                .command
                .chars()
                .any(|c| c.is_ascii_control() && c != '\t'));
            assert!(!HARD_BLOCKED.contains(&ok.program.to_ascii_lowercase().as_str()));
        }
        Err(ShellError::NoCommand) => {
            assert!(php_trim_str(command).is_empty());
            assert!(mutating);
        }
        Err(ShellError::Denied(d)) => {
            assert!(!d.message.is_empty());
            assert!(!d.hook_context().is_empty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    fn prop_arbitrary_strings(command in any::<String>()) {
        judge(&command);
        let _ = split_argv(&command);
        let _ = child_env_allowed(&command);
    }

    fn prop_vocabulary_commands(command in vocab_command()) {
        judge(&command);
    }

    fn prop_arbitrary_bytes(out in prop::collection::vec(any::<u8>(), 0..600),
                       err in prop::collection::vec(any::<u8>(), 0..600),
                       code in any::<i32>(), cap in 0usize..700) {
        let clean = timed(|| sanitize_output(&out));
        prop_assert!(clean.len() <= out.len());
        prop_assert!(!clean.iter().any(|b| matches!(*b, 0..=8 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F)));
        let _ = php_trim(&out);
        let _ = timed(|| shape_output(&out, &err, code, cap, cap));
        judge(&String::from_utf8_lossy(&out));
    }
}

#[test]
fn huge_inputs_stay_linear() {
    let p = policy();
    for big in [
        format!("cat -{}", "a".repeat(200_000)),
        format!("cat {}", "../".repeat(50_000)),
        format!("grep -r x {}", "clean ".repeat(5_000)),
        format!("ls {}", "a/".repeat(100_000)),
        "x".repeat(300_000),
        format!("sed {}", "é".repeat(100_000)),
    ] {
        let start = Instant::now();
        let _ = p.check(&big);
        let _ = p.is_mutating(&big);
        let _ = sanitize_output(big.as_bytes());
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
    }
    finished_with_tree();
}

#[test]
fn arbitrary_strings() {
    prop_arbitrary_strings();
    finished_with_tree();
}

#[test]
fn vocabulary_commands() {
    prop_vocabulary_commands();
    finished_with_tree();
}

#[test]
fn arbitrary_bytes() {
    prop_arbitrary_bytes();
    finished_with_tree();
}
