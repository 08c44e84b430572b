//! Tests of shell_exec and its process runner, on real processes and real temp files.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::process::{self, Finished, Limits, RunFailure, EXEC_FAILED_EXIT_CODE};
use super::shell::*;
use super::*;
use crate::core::sandbox::Mode;
use crate::core::security::shell_policy::{child_env_allowed, ShellPolicy};
use crate::core::value::{Array, Value};

#[derive(Default)]
struct Hooks {
    events: Vec<(String, Vec<(String, String)>)>,
    fail_on: Option<&'static str>,
}

impl Host for Hooks {
    type Error = &'static str;
    fn running_in_console(&mut self) -> Result<bool, &'static str> {
        Ok(false)
    }
    fn allows(&mut self) -> Result<bool, &'static str> {
        Ok(true)
    }
    fn dispatch(&mut self, event: &str, context: &Array) -> Result<(), &'static str> {
        let pairs = context
            .iter()
            .map(|(k, v)| {
                let key = match k {
                    crate::core::value::Key::Str(s) => String::from_utf8_lossy(s).into_owned(),
                    crate::core::value::Key::Int(i) => i.to_string(),
                };
                let value = String::from_utf8_lossy(v.as_bytes().unwrap_or_default()).into_owned();
                (key, value)
            })
            .collect();
        self.events.push((event.to_string(), pairs));
        match self.fail_on {
            Some(e) if e == event => Err("listener threw"),
            _ => Ok(()),
        }
    }
}

struct Dir(PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(tag: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!("phpclaw-core-sh-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Dir(dir)
}

fn argv(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

fn env() -> Vec<(OsString, OsString)> {
    vec![("PATH".into(), "/usr/bin:/bin".into())]
}

fn limits(ms: u64, ceiling: usize) -> Limits {
    Limits {
        timeout: Duration::from_millis(ms),
        ceiling,
    }
}

fn run_sh(script: &str, l: Limits) -> Result<Finished, RunFailure> {
    process::run(&argv(&["sh", "-c", script]), &env(), l)
}

fn tool(allow: &[&str], dir: &Path) -> Shell {
    Shell::new(
        ShellPolicy::new(allow.iter().copied(), dir),
        8192,
        10000,
        TempDir::Fixed(dir.to_path_buf()),
    )
}

fn command(c: &str) -> Value {
    Value::from_pairs([("command", c)])
}

fn decode(json: &[u8]) -> serde_json::Value {
    serde_json::from_slice(json).unwrap()
}

/// Whether a process is gone or a zombie (killed, maybe not reaped by an init that does not).
fn dead(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn runs_argv_directly_and_collects_both_streams() {
    let f = process::run(
        &argv(&["echo", "a;b", "$HOME"]),
        &env(),
        limits(5000, 1 << 20),
    )
    .unwrap();
    // No shell: the metacharacters reach echo as plain text.
    assert_eq!(f.stdout, b"a;b $HOME\n");
    assert_eq!(f.exit_code, 0);
    let f = run_sh("printf out; printf err >&2; exit 3", limits(5000, 1 << 20)).unwrap();
    assert_eq!(
        (f.stdout.as_slice(), f.stderr.as_slice(), f.exit_code),
        (&b"out"[..], &b"err"[..], 3)
    );
}

#[test]
fn stdin_is_at_end_of_file_and_signals_give_the_raw_status() {
    let started = Instant::now();
    let f = process::run(&argv(&["cat"]), &env(), limits(5000, 1 << 20)).unwrap();
    assert_eq!((f.stdout.len(), f.exit_code), (0, 0));
    assert!(started.elapsed() < Duration::from_secs(2));
    let f = run_sh("kill -9 $$", limits(5000, 1 << 20)).unwrap();
    assert_eq!(f.exit_code, 9);
}

#[test]
fn a_program_that_cannot_be_executed_exits_127() {
    let f = process::run(
        &argv(&["phpclaw-no-such-program-xyz"]),
        &env(),
        limits(5000, 1024),
    )
    .unwrap();
    assert_eq!(f.exit_code, EXEC_FAILED_EXIT_CODE);
    assert!(f.stdout.is_empty() && f.stderr.is_empty());
    let dir = temp_dir("noexec");
    let script = dir.0.join("plain.txt");
    std::fs::write(&script, "echo hi\n").unwrap();
    let f = process::run(
        &argv(&[script.to_str().unwrap()]),
        &env(),
        limits(5000, 1024),
    )
    .unwrap();
    assert_eq!(f.exit_code, EXEC_FAILED_EXIT_CODE);
    assert_eq!(
        process::run(&[], &env(), limits(10, 10)),
        Err(RunFailure::Start)
    );
}

#[test]
fn timeout_kills_the_whole_group_grandchildren_included() {
    let dir = temp_dir("timeout");
    let pidfile = dir.0.join("pid");
    let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
    let started = Instant::now();
    assert_eq!(
        run_sh(&script, limits(400, 1 << 20)),
        Err(RunFailure::Timeout)
    );
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(400), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    let pid = pid.trim();
    let until = Instant::now() + Duration::from_secs(2);
    while !dead(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(dead(pid), "grandchild {pid} survived");
}

#[test]
fn timeout_also_when_the_child_closed_its_pipes_but_runs_on() {
    let started = Instant::now();
    assert_eq!(
        run_sh("exec >&- 2>&-; sleep 30", limits(300, 1024)),
        Err(RunFailure::Timeout)
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_continuous_writer_is_stopped_by_the_deadline() {
    // The deadline is wall-clock: output that keeps coming does not extend it.
    let started = Instant::now();
    assert_eq!(
        run_sh("while :; do echo x; sleep 0.01; done", limits(300, 1 << 20)),
        Err(RunFailure::Timeout)
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn read_ceiling_at_the_limit_and_one_past() {
    let f = run_sh("head -c 100000 /dev/zero", limits(5000, 100_000)).unwrap();
    assert_eq!(f.stdout.len(), 100_000);
    assert_eq!(
        run_sh("head -c 100001 /dev/zero", limits(5000, 100_000)),
        Err(RunFailure::Ceiling)
    );
    // Both streams count together.
    assert_eq!(
        run_sh(
            "head -c 60000 /dev/zero; head -c 40001 /dev/zero >&2",
            limits(5000, 100_000)
        ),
        Err(RunFailure::Ceiling)
    );
    // An endless writer is stopped quickly, its memory bounded by the ceiling.
    let started = Instant::now();
    assert_eq!(
        run_sh("yes", limits(5000, 1 << 20)),
        Err(RunFailure::Ceiling)
    );
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn only_the_given_environment_reaches_the_child() {
    let vars = vec![
        (OsString::from("PATH"), OsString::from("/usr/bin:/bin")),
        (OsString::from("PHPCLAW_PLAIN"), OsString::from("ok")),
    ];
    let f = process::run(&argv(&["env"]), &vars, limits(5000, 1 << 20)).unwrap();
    let text = String::from_utf8(f.stdout).unwrap();
    let mut names: Vec<&str> = text.lines().filter_map(|l| l.split('=').next()).collect();
    names.sort_unstable();
    assert_eq!(names, ["PATH", "PHPCLAW_PLAIN"]);
    let home = std::path::Path::new("/srv/work");
    let env = process::child_environment(home, "ls");
    for (name, _) in &env {
        let name = name.to_str().unwrap();
        assert!(child_env_allowed(name) || name == "HOME", "{name:?}");
    }
    assert!(env.iter().any(|(k, _)| k == "PATH"));
    assert!(env.iter().any(|(k, v)| k == "HOME" && v == "/srv/work"));
    assert!(!env.iter().any(|(k, _)| k == "GIT_CONFIG_NOSYSTEM"));
    let git = process::child_environment(home, "/usr/bin/git");
    for want in [
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "GIT_OPTIONAL_LOCKS",
    ] {
        assert!(git.iter().any(|(k, _)| k == want), "{want}");
    }
}

#[test]
fn spill_files_are_private_complete_and_prefixed() {
    let dir = temp_dir("spill");
    let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let path = process::spill(&dir.0, "phpclaw-shell-stdout-", &content).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap().to_string();
    assert!(name.starts_with("phpclaw-shell-stdout-"), "{name}");
    assert_eq!(name.len(), "phpclaw-shell-stdout-".len() + 6);
    assert_eq!(path.parent().unwrap(), dir.0);
    assert_eq!(std::fs::read(&path).unwrap(), content);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let other = process::spill(&dir.0, "phpclaw-shell-stdout-", b"x").unwrap();
    assert_ne!(other, path);
    assert_eq!(process::spill(&dir.0.join("missing"), "p-", b"x"), None);
}

#[test]
fn envelope_and_exec_event() {
    let dir = temp_dir("envelope");
    let script = dir.0.join("colors.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf ' \\033[31mred\\033[0m \\001x\\n\\n'\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let program = script.to_str().unwrap().to_string();
    let mut t = tool(&["echo", &program], &dir.0);
    // A script needs its interpreter, which the kernel sandbox refuses to run: the envelope
    // is checked unconfined here (scripts under the sandbox: `scripts_are_refused_when_confined`).
    t.sandbox = Mode::Off;
    let mut hooks = Hooks::default();
    let json = run(&mut t, &mut hooks, &command(&format!("\t{program} \n"))).unwrap();
    assert_eq!(
        String::from_utf8(json).unwrap(),
        format!(
            r#"{{"success":true,"data":{{"command":"{program}","output":"red x"}},"meta":{{"mode":"shell","command_name":"{program}"}},"warnings":[]}}"#
        )
    );
    let mut hooks = Hooks::default();
    let json = run(&mut t, &mut hooks, &command("echo hello world")).unwrap();
    assert_eq!(decode(&json)["data"]["output"], "hello world");
    assert_eq!(
        hooks.events,
        [(
            "shell.exec".to_string(),
            vec![
                ("command".to_string(), "echo hello world".to_string()),
                ("cmd_name".to_string(), "echo".to_string())
            ]
        )]
    );
}

#[test]
fn refusals_fire_shell_denied_then_fail() {
    let dir = temp_dir("deny");
    let mut t = tool(&["ls", "cat", "rm"], &dir.0);
    for (cmd, reason, program, file, message) in [
        (
            "ls; id",
            "metacharacter",
            "",
            Some(";"),
            "Command contains a disallowed shell metacharacter.",
        ),
        (
            "rm -rf /",
            "hard_blocked",
            "rm",
            None,
            "Command 'rm' is permanently blocked and cannot be executed.",
        ),
        (
            "git status",
            "not_in_allowlist",
            "git",
            None,
            "Command 'git' is not in the shell allowlist.",
        ),
        (
            "cat wp-config.php",
            "sensitive_file",
            "cat",
            Some("wp-config.php"),
            "Access to 'wp-config.php' is blocked: contains sensitive configuration.",
        ),
        (
            "cat server.pem",
            "sensitive_extension",
            "cat",
            Some("server.pem"),
            "Access to '.pem' files is blocked: may contain secrets.",
        ),
        (
            "cat .ssh/id_ed25519.pub",
            "sensitive_directory",
            "cat",
            Some(".ssh/id_ed25519.pub"),
            "Access to files in '.ssh/' is blocked.",
        ),
        (
            "cat /etc/shadow",
            "sensitive_path",
            "cat",
            Some("/etc/shadow"),
            "Access to '/etc/shadow' is blocked: system file.",
        ),
    ] {
        let mut hooks = Hooks::default();
        match run(&mut t, &mut hooks, &command(cmd)) {
            Err(ToolError::ShellDenied(m)) => assert_eq!(m, message, "{cmd}"),
            other => panic!("{cmd}: {other:?}"),
        }
        let mut want = vec![
            ("command".to_string(), cmd.to_string()),
            ("cmd_name".to_string(), program.to_string()),
            ("reason".to_string(), reason.to_string()),
        ];
        if let Some(f) = file {
            want.push(("file".to_string(), f.to_string()));
        }
        assert_eq!(hooks.events, [("shell.denied".to_string(), want)], "{cmd}");
    }
}

#[test]
fn blank_command_fails_without_an_event() {
    let dir = temp_dir("blank");
    let mut t = tool(&["ls"], &dir.0);
    for input in [
        command(" \t\n"),
        Value::Array(Array::new()),
        Value::from_pairs([("command", Value::Null)]),
        Value::from_pairs([("command", Value::Bool(false))]),
    ] {
        let mut hooks = Hooks::default();
        assert_eq!(
            run(&mut t, &mut hooks, &input),
            Err(ToolError::Tool("No command provided.".to_string()))
        );
        assert!(hooks.events.is_empty());
    }
}

#[test]
fn a_throwing_listener_ends_the_run_with_its_exception() {
    let dir = temp_dir("throw");
    let mut t = tool(&["echo"], &dir.0);
    let mut hooks = Hooks {
        fail_on: Some("shell.denied"),
        ..Hooks::default()
    };
    assert_eq!(
        run(&mut t, &mut hooks, &command("rm x")),
        Err(ToolError::Host("listener threw"))
    );
    let mut hooks = Hooks {
        fail_on: Some("shell.exec"),
        ..Hooks::default()
    };
    assert_eq!(
        run(&mut t, &mut hooks, &command("echo x")),
        Err(ToolError::Host("listener threw"))
    );
}

#[test]
fn runner_failures_are_tool_exceptions_without_an_exec_event() {
    let dir = temp_dir("fail");
    let mut t = tool(&["sleep", "yes"], &dir.0);
    t.limits = limits(200, 50_000);
    let mut hooks = Hooks::default();
    assert_eq!(
        run(&mut t, &mut hooks, &command("sleep 10")),
        Err(ToolError::Tool(
            "Command 'sleep' was terminated after 5 seconds.".to_string()
        ))
    );
    assert_eq!(
        run(&mut t, &mut hooks, &command("yes")),
        Err(ToolError::Tool(
            "Command 'yes' exceeded the output size limit and was terminated.".to_string()
        ))
    );
    assert!(hooks.events.is_empty());
}

#[test]
fn shaping_spills_past_the_caps() {
    let dir = temp_dir("shape");
    let mut t = tool(&["printf"], &dir.0);
    t.max_stdout = 10;
    let at = t.shape(b"0123456789", b"", 0);
    assert_eq!(at, b"0123456789");
    let past = String::from_utf8(t.shape(b"0123456789A", b"", 0)).unwrap();
    let (preview, note) = past.split_once('\n').unwrap();
    assert_eq!(preview, "0123456789");
    let path = note
        .strip_prefix("... [truncated; full stdout (11 bytes) written to ")
        .and_then(|r| r.strip_suffix(']'))
        .unwrap();
    assert!(path.starts_with(&format!("{}/phpclaw-shell-stdout-", dir.0.display())));
    assert_eq!(std::fs::read(path).unwrap(), b"0123456789A");
    // a failed command with blank stdout answers stderr under its own cap
    t.max_stderr = 4;
    let err = String::from_utf8(t.shape(b" \n", b"boom!", 2)).unwrap();
    assert!(err.starts_with("boom\n... [truncated; full stderr (5 bytes) written to "));
    // a cut inside a UTF-8 character drops the partial character
    t.max_stdout = 4;
    let cut = String::from_utf8(t.shape("abcé".as_bytes(), b"", 0)).unwrap();
    assert!(
        cut.starts_with("abc\n... [truncated; full stdout (5 bytes)"),
        "{cut}"
    );
    // negative caps count as 0; an unwritable folder gives the discard note
    t.max_stdout = -5;
    t.temp_dir = TempDir::Fixed(dir.0.join("missing"));
    assert_eq!(
        t.shape(b"abc", b"", 0),
        b"\n... [truncated; 3 more bytes discarded]"
    );
}

#[test]
fn a_real_spill_through_the_tool() {
    let dir = temp_dir("realspill");
    let mut t = tool(&["head"], &dir.0);
    let mut hooks = Hooks::default();
    let file = dir.0.join("data.txt");
    std::fs::write(&file, "x".repeat(9000)).unwrap();
    let json = run(
        &mut t,
        &mut hooks,
        &command(&format!("head -c 8193 {}", file.display())),
    )
    .unwrap();
    let out = decode(&json)["data"]["output"]
        .as_str()
        .unwrap()
        .to_string();
    let (preview, note) = out.split_at(8192);
    assert_eq!(preview, "x".repeat(8192));
    let path = note
        .strip_prefix("\n... [truncated; full stdout (8193 bytes) written to ")
        .and_then(|r| r.strip_suffix(']'))
        .unwrap();
    assert_eq!(std::fs::read(path).unwrap().len(), 8193);
    let json = run(
        &mut t,
        &mut hooks,
        &command(&format!("head -c 8192 {}", file.display())),
    )
    .unwrap();
    assert_eq!(decode(&json)["data"]["output"], "x".repeat(8192));
}

#[test]
fn a_command_that_is_not_utf8_is_refused_unrun() {
    let dir = temp_dir("utf8");
    let marker = dir.0.join("ran");
    let mut t = tool(&["touch"], &dir.0);
    let mut raw = format!("touch {}", marker.display()).into_bytes();
    raw.push(0xFF);
    let input = Value::from_pairs([("command", Value::Str(raw))]);
    let mut hooks = Hooks::default();
    assert!(matches!(
        run(&mut t, &mut hooks, &input),
        Err(ToolError::Encode(_))
    ));
    assert!(!marker.exists() && !dir.0.join("ran\u{FFFD}").exists());
    assert!(hooks.events.is_empty());
}

#[test]
fn is_mutating_follows_the_policy() {
    let dir = temp_dir("mut");
    let t = tool(&["ls", "touch", "grep", "rm"], &dir.0);
    for (cmd, want) in [
        ("ls -la", false),
        ("grep x f", false),
        ("touch notes.txt", true),
        ("rm notes.txt", false),
        ("ls | wc -l", false),
        ("git status", false),
        ("  ", true),
    ] {
        assert_eq!(t.is_mutating(&command(cmd)), want, "{cmd}");
    }
    assert!(t.is_mutating(&Value::Array(Array::new())));
}

#[test]
fn judge_path_backs_the_reference_private_check() {
    let dir = temp_dir("judge");
    let t = tool(&[], &dir.0);
    for (token, message) in [
        (
            "wp-config.php",
            "Access to 'wp-config.php' is blocked: contains sensitive configuration.",
        ),
        (
            "secret.pem",
            "Access to '.pem' files is blocked: may contain secrets.",
        ),
        (
            ".env.local",
            "Access to '.env.local' is blocked: environment files contain secrets.",
        ),
        (".git/config", "Access to files in '.git/' is blocked."),
        (
            "/etc/passwd",
            "Access to '/etc/passwd' is blocked: system file.",
        ),
        (
            "/proc/self/environ",
            "Access to '/proc/self/environ' is blocked: system file.",
        ),
    ] {
        assert_eq!(
            t.judge_path(token).map(|d| d.message).as_deref(),
            Some(message)
        );
    }
    assert_eq!(t.judge_path("README.md"), None);
    assert_eq!(t.judge_path("/tmp/ordinary-file.txt"), None);
}

#[test]
fn program_refusals_do_not_depend_on_the_working_directory() {
    let dir = temp_dir("cwdfree");
    std::fs::create_dir_all(dir.0.join("sub/.git")).unwrap();
    std::fs::write(dir.0.join("sub/run.sh"), "#!/bin/sh\n").unwrap();
    let here = std::env::current_dir().unwrap();
    let allow = ["ls", "cat", "awk", "sub/run.sh", "/bin/rm", "grep"];
    let commands = [
        "ls; id",
        "rm x",
        "/bin/rm x",
        "git status",
        "LS",
        "awk -f prog.awk",
        "sub/run.sh",
        "cat .env",
        "cat ../../etc/passwd",
        "grep -r x .",
        "ls -la",
        "",
    ];
    // The lazy check runs in the process's own directory: the same answers as a policy given it.
    for c in commands {
        let mut lazy = Shell::new(
            ShellPolicy::new(allow, ""),
            8192,
            10000,
            TempDir::Fixed(dir.0.clone()),
        );
        let real = ShellPolicy::new(allow, &here).confined(lazy.confines());
        assert_eq!(
            format!("{:?}", real.check(c)),
            format!("{:?}", lazy.check(c)),
            "{c}"
        );
    }
}
