//! The shell policy: decides, without running anything, whether a command string from the
//! model may be executed, and whether it needs human approval.
//!
//! Rules (phpClaw `ShellTool`, order kept, first refusal wins):
//! 1. The command is trimmed (PHP `trim`); empty is [`ShellError::NoCommand`].
//! 2. Any [`METACHARACTERS`] entry (list order decides the reported one), then any ASCII
//!    control character other than tab (added: newline, CR, NUL, ESC, DEL…), is `metacharacter`.
//! 3. The argv is the command split on ASCII whitespace ([`split_argv`]); no shell ever runs.
//! 4. The lower-cased basename of the program token in [`HARD_BLOCKED`] is `hard_blocked`
//!    (so `RM`, `/bin/rm`, `./rm` are refused even when allowlisted).
//! 5. The program token must equal an allowlist entry byte for byte (`/bin/ls` is not `ls`),
//!    else `not_in_allowlist`. Added, for allowlisted programs only (so the reference's own
//!    refusals keep their reason): `hard_blocked` also for [`EXTRA_HARD_BLOCKED`] names,
//!    version-suffixed blocked names (`python3.11`, `php8.2`), and a program path whose
//!    symlink target is a blocked name.
//! 6. Arguments: every operand, every `--flag=value` value, and (added) the attached value of a
//!    short flag (`-f.env`) and every operand after `--` are judged by the sensitive-path rules
//!    (see `paths`), as written, lexically normalised against the cwd and symlink-resolved.
//!    The reference judges only [`FILE_READING_COMMANDS`]; here every program is judged, since
//!    an adapter may allowlist `cp`, `diff`, `stat`… and the rules only refuse paths that name
//!    secrets or system files (`ls /etc` still runs; `ls /proc` and `ls .ssh` do not).
//!    For the reference's readers the whole absolute path is judged, cwd included (its
//!    `realpath` re-check); for other programs a path that stays under the cwd is judged from
//!    the cwd down, so `ls -la` and `date +%s` keep working in a cwd such as `wp-admin/`.
//! 7. Recursion (added): a recursive reader ([`RECURSIVE_READERS`]) is refused when a directory
//!    it would walk (its operands, or the cwd when it has none) holds anything rule 6 refuses,
//!    or holds more than [`WALK_ENTRY_CAP`] entries (one budget for the whole command).
//! 8. Exec options (added, [`EXEC_OPTIONS`], checked before rule 6): options and subcommands
//!    that make an allowlisted reader run other programs (`awk -f`, `git -c`,
//!    `tar --to-command`…) are `hard_blocked`; `sed` runs with `--sandbox` (added to the argv).
//!
//! [`ShellPolicy::is_mutating`] is the approval rule: empty → true; refused by rules 2, 4 or 5
//! → false (refused anyway); program in [`READONLY_COMMANDS`] → false; otherwise true.

pub mod confine;
pub mod grammar;
mod output;
mod paths;
mod tables;

use std::path::{Path, PathBuf};

pub use output::{
    cap_output, ceiling_message, child_env_allowed, discard_note, exit_note, parse_failed_message,
    php_trim, php_trim_str, sanitize_output, shape_output, spill_note, spill_prefix,
    start_failed_message, timeout_message, Shaped, PHP_TRIM_BYTES,
};
pub use tables::{
    ExecOptions, Recursion, BLOCKED_PATH_PATTERNS, CHILD_ENV_NAMES, CHILD_ENV_PREFIXES,
    DEFAULT_ALLOWLIST, DEFAULT_CHILD_PATH, DEFAULT_MAX_STDERR_BYTES, DEFAULT_MAX_STDOUT_BYTES,
    EXEC_OPTIONS, EXTRA_HARD_BLOCKED, FILE_READING_COMMANDS, HARD_BLOCKED, HARD_READ_CEILING_BYTES,
    METACHARACTERS, PROCESS_TIMEOUT_SECONDS, PROGRAM_ENV, READONLY_COMMANDS, RECURSIVE_READERS,
    RESOLVE_MAX_BYTES, SIGKILL, WALK_ENTRY_CAP,
};

use confine::{PathArg, Use};
pub(crate) use paths::PathDenial;
use paths::{judge_text, php_basename, Scope, Walker};

/// The `reason` a refusal reports to the `shell.denied` hook (exact reference strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DenialReason {
    /// A shell metacharacter or control character.
    Metacharacter,
    /// The program is refused whatever the allowlist says.
    HardBlocked,
    /// The program is not on the allowlist.
    NotInAllowlist,
    /// A file name that holds credentials or configuration.
    SensitiveFile,
    /// An extension of key, certificate or database files.
    SensitiveExtension,
    /// A security directory in the path, or a recursive read that cannot be proven clean.
    SensitiveDirectory,
    /// A system path (`/etc/passwd`, `/proc/…`, `/dev/…`).
    SensitivePath,
}

impl DenialReason {
    /// The string PHP hook listeners compare against.
    pub fn as_str(self) -> &'static str {
        match self {
            DenialReason::Metacharacter => "metacharacter",
            DenialReason::HardBlocked => "hard_blocked",
            DenialReason::NotInAllowlist => "not_in_allowlist",
            DenialReason::SensitiveFile => "sensitive_file",
            DenialReason::SensitiveExtension => "sensitive_extension",
            DenialReason::SensitiveDirectory => "sensitive_directory",
            DenialReason::SensitivePath => "sensitive_path",
        }
    }
}

/// A refused command: everything the tool needs to fire `shell.denied` and throw
/// `ShellDeniedException` with the reference's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Denial {
    /// Why, as the hook reports it.
    pub reason: DenialReason,
    /// The trimmed command (hook key `command`).
    pub command: String,
    /// The program token (hook key `cmd_name`); empty for a metacharacter, as in the reference.
    pub program: String,
    /// The offending character, argument or file (hook key `file`, sent only when non-empty).
    pub detail: String,
    /// The `ShellDeniedException` message.
    pub message: String,
}

impl Denial {
    /// The `shell.denied` hook context, keys in the reference's order.
    pub fn hook_context(&self) -> Vec<(&'static str, String)> {
        let mut ctx = vec![
            ("command", self.command.clone()),
            ("cmd_name", self.program.clone()),
            ("reason", self.reason.as_str().to_string()),
        ];
        if !self.detail.is_empty() {
            ctx.push(("file", self.detail.clone()));
        }
        ctx
    }
}

/// Why `check` did not approve a command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    /// Blank command: the reference throws a plain `ToolException` and fires no hook.
    #[error("No command provided.")]
    NoCommand,
    /// Refused by the policy: fire `shell.denied`, throw `ShellDeniedException`.
    #[error(transparent)]
    Denied(#[from] Denial),
}

impl ShellError {
    /// The PHP exception class the tool throws for this error.
    pub fn exception_class(&self) -> &'static str {
        match self {
            ShellError::NoCommand => "ToolException",
            ShellError::Denied(_) => "ShellDeniedException",
        }
    }
}

/// A command cleared to run: spawn `argv` directly (no shell) in the policy's cwd. `argv` is
/// the split command, plus a sandbox option the policy adds for some programs (`sed --sandbox`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approved {
    /// The trimmed command (hook key `command` of `shell.exec`).
    pub command: String,
    /// Program then arguments, exactly as judged.
    pub argv: Vec<String>,
    /// The program token (hook key `cmd_name`, result key `command_name`).
    pub program: String,
    /// Every path the program will open as far as the policy can tell (implicit ones
    /// included): what a confined child is granted, each judged again as opened.
    pub paths: Vec<PathArg>,
}

/// The bytes PCRE's `\s` matches without the `u` flag, which the reference splits on.
const ARGV_SEPARATORS: &[char] = &[' ', '\t', '\n', '\u{0B}', '\u{0C}', '\r'];

/// Splits a command into argv the way the reference does (`preg_split('/\s+/')`, empties
/// dropped): quotes are not interpreted (they are refused as metacharacters anyway).
pub fn split_argv(command: &str) -> Vec<String> {
    command
        .split(ARGV_SEPARATORS)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The allowlist and the directory commands run in; judge and run with the same cwd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellPolicy {
    allowlist: Vec<String>,
    cwd: PathBuf,
    confined: bool,
    trust_arguments: bool,
}

/// A refusal of `command`.
fn denial(
    command: &str,
    reason: DenialReason,
    program: &str,
    detail: String,
    message: String,
) -> ShellError {
    ShellError::Denied(Denial {
        reason,
        command: command.to_string(),
        program: program.to_string(),
        detail,
        message,
    })
}

impl ShellPolicy {
    /// A policy for `allowlist` (matched exactly) whose relative paths resolve against `cwd`.
    pub fn new<I, S>(allowlist: I, cwd: impl Into<PathBuf>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ShellPolicy {
            allowlist: allowlist.into_iter().map(Into::into).collect(),
            cwd: cwd.into(),
            confined: false,
            trust_arguments: false,
        }
    }

    /// Judge (and run) in another directory from now on; the allowlist is kept, not copied.
    pub fn set_cwd(&mut self, cwd: impl Into<PathBuf>) {
        self.cwd = cwd.into();
    }

    /// TEST ONLY (php.ini `phpclaw.test_shell_trust_arguments`): approve any arguments of an
    /// allowlisted program and grant its child no path at all, so tests can prove that the
    /// kernel sandbox alone stops what the argument checks would have refused.
    pub fn trusting_arguments(mut self, yes: bool) -> Self {
        self.trust_arguments = yes;
        self
    }

    /// The same policy for a child the kernel will confine (see [`confine`]): a folder read
    /// recursively is then granted minus its blocked entries instead of refused for holding
    /// one, since the child cannot open what was not granted.
    pub fn confined(mut self, yes: bool) -> Self {
        self.confined = yes;
        self
    }

    /// Whether checks assume a confined child.
    pub fn is_confined(&self) -> bool {
        self.confined
    }

    /// The reference's default: [`DEFAULT_ALLOWLIST`].
    pub fn with_default_allowlist(cwd: impl Into<PathBuf>) -> Self {
        Self::new(DEFAULT_ALLOWLIST.iter().copied(), cwd)
    }

    /// The configured allowlist, as given.
    pub fn allowlist(&self) -> &[String] {
        &self.allowlist
    }

    /// The directory relative arguments are judged against.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// How paths are judged for this policy's programs: against its cwd, strictly for the
    /// reference's file readers.
    pub(crate) fn scope_for(&self, program: &str) -> Scope<'_> {
        Scope {
            cwd: &self.cwd,
            strict: FILE_READING_COMMANDS
                .contains(&php_basename(program).to_ascii_lowercase().as_str()),
        }
    }

    /// The refusals decided by the program token alone (metacharacter, hard-blocked,
    /// allowlist, and the added program checks), the same in any working directory: `Ok` when
    /// none applies and [`ShellPolicy::check`] must judge the rest.
    pub fn program_check(&self, command: &str) -> Result<(), ShellError> {
        self.program_stage(command).map(|_| ())
    }

    /// Whether `program` equals an allowlist entry byte for byte.
    fn allows(&self, program: &str) -> bool {
        self.allowlist.iter().any(|a| a == program)
    }

    /// The program stage both checks share: the trimmed command and its argv once no
    /// program refusal applies.
    fn program_stage<'c>(&self, command: &'c str) -> Result<(&'c str, Vec<String>), ShellError> {
        let command = screen(command, &self.cwd, |p| self.allows(p))?;
        Ok((command, split_argv(command)))
    }

    /// Approves `command` or says exactly why not (see the module rules).
    pub fn check(&self, command: &str) -> Result<Approved, ShellError> {
        let (command, argv) = self.program_stage(command)?;
        let deny = |reason, program: &str, detail: String, message: String| {
            denial(command, reason, program, detail, message)
        };
        let program = argv.first().cloned().unwrap_or_default();
        if self.trust_arguments {
            return Ok(Approved {
                command: command.to_string(),
                argv,
                program,
                paths: Vec::new(),
            });
        }
        let to_err = |d: PathDenial| deny(d.reason, &program, d.detail, d.message);
        let args = argv.get(1..).unwrap_or(&[]);
        let exec = exec_options(&program);
        if let Some(token) = exec.and_then(|row| exec_refusal(row, args)) {
            return Err(deny(
                DenialReason::HardBlocked,
                &program,
                token.to_string(),
                format!("Option '{token}' would let '{program}' run other programs."),
            ));
        }
        let scope = self.scope_for(&program);
        let operands = check_arguments(&scope, args).map_err(to_err)?;
        let name = php_basename(&program).to_ascii_lowercase();
        let (argv, paths) = match grammar::parse(&name, args) {
            // Rule 9: the program's own grammar says which arguments are paths, and how used.
            Some(Ok(parsed)) => {
                for path in &parsed.paths {
                    judge(&scope, &path.joined(), false).map_err(to_err)?;
                }
                let mut run = parsed.argv;
                if let Some(first) = run.first_mut() {
                    if *first == name {
                        first.clone_from(&program);
                    }
                }
                (run, parsed.paths)
            }
            Some(Err(e)) => {
                let detail = e.subject().to_string();
                return Err(deny(
                    DenialReason::HardBlocked,
                    &program,
                    detail,
                    e.to_string(),
                ));
            }
            None => {
                let mut run = argv.clone();
                if let Some(flag) = exec.and_then(|row| row.sandbox) {
                    run.insert(1.min(run.len()), flag.to_string());
                }
                (run, generic_paths(&program, args, &operands))
            }
        };
        if !self.confined {
            check_trees(&scope, &paths).map_err(to_err)?;
        }
        Ok(Approved {
            command: command.to_string(),
            argv,
            program,
            paths,
        })
    }

    /// Whether the call needs human approval (spec "Human approval for mutating tools").
    pub fn is_mutating(&self, command: &str) -> bool {
        is_mutating(command, &self.cwd, |p| self.allows(p))
    }
}

/// [`ShellPolicy::is_mutating`] with the allowlist given as a test (see [`screen`]).
pub fn is_mutating(command: &str, cwd: &Path, allows: impl Fn(&str) -> bool) -> bool {
    let command = php_trim_str(command);
    if command.is_empty() {
        return true;
    }
    let program = program_token(command);
    if metacharacter(command).is_some() || program_refusal(program, cwd, allows).is_some() {
        return false;
    }
    !READONLY_COMMANDS.contains(&program)
}

/// The refusals decided by the program token alone, as [`ShellPolicy::program_check`] makes
/// them, with the allowlist given as a test (`allows(program)`: equal to an entry byte for
/// byte), so a caller holding the allowlist in another form (the PHP binding reads the tool's
/// property in place) judges a refused command without building a policy. The trimmed command
/// when none applies. A relative program path is resolved (rule 5's symlink check) only when
/// `cwd` is not empty. Nothing is allocated unless a refusal is returned.
pub fn screen<'c>(
    command: &'c str,
    cwd: &Path,
    allows: impl Fn(&str) -> bool,
) -> Result<&'c str, ShellError> {
    let command = php_trim_str(command);
    if command.is_empty() {
        return Err(ShellError::NoCommand);
    }
    if let Some(detail) = metacharacter(command) {
        return Err(denial(
            command,
            DenialReason::Metacharacter,
            "",
            detail.to_string(),
            METACHARACTER_MESSAGE.to_string(),
        ));
    }
    let program = program_token(command);
    match program_refusal(program, cwd, allows) {
        Some((reason, message)) => Err(denial(command, reason, program, String::new(), message)),
        None => Ok(command),
    }
}

/// The first word of a command, as the first entry of [`split_argv`] (empty when none).
fn program_token(command: &str) -> &str {
    command
        .split(ARGV_SEPARATORS)
        .find(|s| !s.is_empty())
        .unwrap_or("")
}

/// Rules 4 and 5 and the added program checks: (reason, message) of the first refusal.
fn program_refusal(
    program: &str,
    cwd: &Path,
    allows: impl Fn(&str) -> bool,
) -> Option<(DenialReason, String)> {
    let blocked = || {
        Some((
            DenialReason::HardBlocked,
            format!("Command '{program}' is permanently blocked and cannot be executed."),
        ))
    };
    let base = php_basename(program);
    if HARD_BLOCKED.iter().any(|b| b.eq_ignore_ascii_case(base)) {
        return blocked();
    }
    if !allows(program) {
        return Some((
            DenialReason::NotInAllowlist,
            format!("Command '{program}' is not in the shell allowlist."),
        ));
    }
    // Added checks run after the allowlist so every refusal the reference makes keeps
    // its reason and message; they only ever refuse programs an adapter allowlisted.
    if is_blocked_name(base) {
        return blocked();
    }
    // A relative path is resolved only in a known directory: with an empty cwd (the first
    // pass of `Shell::check`) it would resolve against the process's, which under a
    // thread-safe PHP is not the one the command runs in.
    let resolvable = program.starts_with('/') || !cwd.as_os_str().is_empty();
    if resolvable && program.contains('/') && program.len() <= RESOLVE_MAX_BYTES {
        if let Ok(real) = cwd.join(program).canonicalize() {
            let name = real.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| is_blocked_name(&n)) {
                return blocked();
            }
        }
    }
    None
}

/// Rule 6; returns the operands (arguments read as paths) for the recursion check.
fn check_arguments<'a>(scope: &Scope, args: &'a [String]) -> Result<Vec<&'a str>, PathDenial> {
    let mut operands = Vec::new();
    let mut options_ended = false;
    for token in args {
        let token = token.as_str();
        if !options_ended && token == "--" {
            options_ended = true;
            continue;
        }
        if options_ended || !token.starts_with('-') {
            judge(scope, token, false)?;
            operands.push(token);
            continue;
        }
        if let Some((_, value)) = token.split_once('=') {
            if !value.is_empty() {
                judge(scope, value, false)?;
            }
        }
        if !token.starts_with("--") {
            judge_short_cluster(scope, token)?;
        }
    }
    Ok(operands)
}

fn judge(scope: &Scope, token: &str, attached: bool) -> Result<(), PathDenial> {
    scope.judge_argument(token, attached).map_or(Ok(()), Err)
}

/// Added: `-f.env`, `-rf../.env`, `-Xwp-config.php`: a short flag can take its value
/// attached, starting after any letter of the cluster. The value is judged from the second
/// character and from the first non-alphanumeric one; for the starts in between only the
/// file name and the first segment can differ, so those are matched by suffix.
fn judge_short_cluster(scope: &Scope, token: &str) -> Result<(), PathDenial> {
    let mut chars = token.char_indices().skip(2);
    let Some((start, _)) = chars.next() else {
        return Ok(());
    };
    let value = token.get(start..).unwrap_or("");
    judge(scope, value, true)?;
    let run_end = value
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(value.len());
    if run_end > 0 && run_end < value.len() {
        judge(scope, value.get(run_end..).unwrap_or(""), true)?;
    }
    let lower = value.to_ascii_lowercase();
    let first_segment = lower.split('/').next().unwrap_or("");
    let stripped = crate::core::security::blocked_paths::strip_backup_suffix(first_segment);
    let names = crate::core::security::blocked_paths::FILENAMES
        .iter()
        .chain(crate::core::security::blocked_paths::SECURITY_DIRS);
    for name in names {
        if first_segment.ends_with(name) || stripped.ends_with(name) {
            let shown = if lower.contains('/') {
                format!("{name}/")
            } else {
                name.to_string()
            };
            if let Some(mut d) = judge_text(&shown, &shown) {
                d.detail = value.to_string();
                return Err(d);
            }
        }
    }
    Ok(())
}

/// The paths a program without a grammar will open, as far as its tokens tell: every operand
/// (a folder read recursively when rule 7's switches are on), and the cwd when it names none
/// (walked when recursive, else only listed).
fn generic_paths(program: &str, args: &[String], operands: &[&str]) -> Vec<PathArg> {
    let name = php_basename(program).to_ascii_lowercase();
    let recursive = RECURSIVE_READERS.iter().any(|rec| {
        rec.program == name
            && (rec.always
                || args
                    .iter()
                    .take_while(|t| *t != "--")
                    .any(|t| switches_recursion(rec, t)))
    });
    let usage = if recursive { Use::ReadTree } else { Use::Read };
    let path = |text: &str| PathArg {
        text: text.to_string(),
        base: None,
        usage,
    };
    let mut paths: Vec<PathArg> = operands.iter().map(|o| path(o)).collect();
    let pattern_first = PATTERN_FIRST.contains(&name.as_str());
    if operands.is_empty() || (recursive && pattern_first && operands.len() == 1) {
        paths.push(path("."));
    }
    paths
}

/// Rule 7: a folder read recursively must hold nothing rule 6 refuses (unconfined children).
fn check_trees(scope: &Scope, paths: &[PathArg]) -> Result<(), PathDenial> {
    let mut walker = Walker::new();
    for p in paths.iter().filter(|p| p.usage == Use::ReadTree) {
        if let Some(d) = walker.check_tree(scope, &p.joined()) {
            return Err(d);
        }
    }
    Ok(())
}

fn exec_options(program: &str) -> Option<&'static ExecOptions> {
    let name = php_basename(program).to_ascii_lowercase();
    EXEC_OPTIONS.iter().find(|row| row.program == name)
}

/// The first argument that would make `row.program` run another program, if any.
fn exec_refusal<'a>(row: &ExecOptions, args: &'a [String]) -> Option<&'a str> {
    for token in args.iter().take_while(|t| *t != "--") {
        let refused = if let Some(long) = token.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or("");
            name.len() >= 3 && row.long.iter().any(|l| l.starts_with(name))
        } else if let Some(cluster) = token.strip_prefix('-') {
            cluster.chars().any(|c| row.short.contains(c))
        } else {
            row.words.contains(&token.as_str())
        };
        if refused {
            return Some(token);
        }
    }
    None
}

/// Recursive readers whose first operand is a pattern, so one operand still means "the cwd".
const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "zgrep", "rgrep", "rg", "ag", "ack",
];

fn switches_recursion(rec: &Recursion, token: &str) -> bool {
    if let Some(long) = token.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or("");
        return !name.is_empty() && rec.long.iter().any(|l| l.starts_with(name));
    }
    match token.strip_prefix('-') {
        Some(cluster) => cluster.chars().any(|c| rec.short.contains(c)),
        None => false,
    }
}

/// Rule 4 on a basename: either table, also with a version suffix (`python3.11`, `php8`).
/// One hashed lookup per form, in a set built once per process; no allocation.
pub(crate) fn is_blocked_name(basename: &str) -> bool {
    static NAMES: std::sync::OnceLock<std::collections::HashSet<&'static [u8]>> =
        std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        HARD_BLOCKED
            .iter()
            .chain(EXTRA_HARD_BLOCKED)
            .map(|n| n.as_bytes())
            .collect()
    });
    let unversioned = basename.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let listed = |name: &str| {
        let mut buf = [0u8; BLOCKED_NAME_MAX];
        // A name longer than every table entry is in no table.
        let Some(lower) = buf.get_mut(..name.len()) else {
            return false;
        };
        lower.copy_from_slice(name.as_bytes());
        lower.make_ascii_lowercase();
        !lower.is_empty() && names.contains(&*lower)
    };
    listed(basename) || listed(unversioned)
}

/// The longest name [`is_blocked_name`] can match; the tables' names are all shorter.
const BLOCKED_NAME_MAX: usize = 32;

const _: () = {
    let (mut i, mut j) = (0, 0);
    while i < HARD_BLOCKED.len() {
        assert!(HARD_BLOCKED[i].len() <= BLOCKED_NAME_MAX);
        i += 1;
    }
    while j < EXTRA_HARD_BLOCKED.len() {
        assert!(EXTRA_HARD_BLOCKED[j].len() <= BLOCKED_NAME_MAX);
        j += 1;
    }
};

const _: () = assert!(
    METACHARACTERS.len() <= 32,
    "one bit per entry in `metacharacter`"
);

/// The reference's metacharacter message.
const METACHARACTER_MESSAGE: &str = "Command contains a disallowed shell metacharacter.";

/// The metacharacter a command is refused for: the first entry of [`METACHARACTERS`] (list
/// order, as the reference reports it) the command holds, else its first ASCII control
/// character other than a tab. One pass over the command, no allocation.
fn metacharacter(command: &str) -> Option<&str> {
    /// Bit `i` set for byte `b` when `METACHARACTERS[i]` is the one-byte string `b`.
    static TABLE: std::sync::OnceLock<[u32; 128]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 128];
        for (i, m) in METACHARACTERS.iter().enumerate() {
            if let [b] = m.as_bytes() {
                t[usize::from(*b & 0x7f)] |= 1 << i;
            }
        }
        t
    });
    let mut seen = 0u32;
    let mut control = None;
    for (at, b) in command.bytes().enumerate() {
        if b < 0x80 {
            seen |= table[usize::from(b)];
            if control.is_none() && b.is_ascii_control() && b != b'\t' {
                control = Some(&command[at..=at]);
            }
        }
    }
    if seen != 0 {
        return Some(METACHARACTERS[seen.trailing_zeros() as usize]);
    }
    // Longer entries (none today) are looked for the plain way, in list order.
    METACHARACTERS
        .iter()
        .find(|m| m.len() > 1 && command.contains(**m))
        .copied()
        .or(control)
}

#[cfg(test)]
mod tests {

    /// Blocked names: either table, any case, with a version suffix of any length; nothing else.
    #[test]
    fn blocked_names() {
        let long_suffix = format!("python3.{}", "1".repeat(40));
        for name in [
            "rm",
            "RM",
            "Python3.11",
            "php8.2",
            "xargs",
            "bash5",
            long_suffix.as_str(),
        ] {
            assert!(is_blocked_name(name), "{name}");
        }
        let long = "r".repeat(BLOCKED_NAME_MAX + 1);
        for name in [
            "",
            "1.2",
            "ls",
            "rmx",
            "xrm",
            "rm-",
            long.as_str(),
            "é",
            "rm\u{e9}",
        ] {
            assert!(!is_blocked_name(name), "{name}");
        }
        for name in HARD_BLOCKED.iter().chain(EXTRA_HARD_BLOCKED) {
            assert!(
                is_blocked_name(name) && is_blocked_name(&name.to_uppercase()),
                "{name}"
            );
        }
    }

    /// `program_check` refuses exactly what `check` refuses for the program's sake, the same way.
    #[test]
    fn program_check_as_check_for_program_refusals() {
        let p = ShellPolicy::new(["ls", "cat", "git", "./x", "sh"], "/tmp");
        for c in [
            "",
            "  ",
            "ls",
            "ls; x",
            "rm -rf /",
            "/bin/rm x",
            "git status",
            "curl x",
            "nope",
            "cat .env",
            "cat /etc/shadow",
            "ls\u{7}",
            "sh -c x",
            "./x",
            "LS",
            "cat a b",
        ] {
            let full = p.check(c);
            let program = p.program_check(c);
            // What program_check refuses, check refuses the same way.
            if let Err(e) = &program {
                assert_eq!(full.as_ref().err(), Some(e), "{c:?}");
            }
            // Every refusal for the program's sake (the options of an allowlisted program are
            // judged with the rest of the arguments) is program_check's too.
            if let Err(ShellError::Denied(d)) = &full {
                if is_program_reason(d.reason) && d.detail.is_empty()
                    || d.reason == DenialReason::Metacharacter
                {
                    assert!(program.is_err(), "{c:?}");
                }
            }
        }
    }

    fn is_program_reason(r: DenialReason) -> bool {
        matches!(
            r,
            DenialReason::Metacharacter | DenialReason::HardBlocked | DenialReason::NotInAllowlist
        )
    }

    /// The one-pass metacharacter search against the reference's loop over the list.
    #[test]
    fn metacharacter_as_the_list_loop() {
        let plain = |c: &str| {
            super::METACHARACTERS
                .iter()
                .find(|m| c.contains(*m))
                .map(|m| m.to_string())
                .or_else(|| {
                    c.chars()
                        .find(|ch| ch.is_ascii_control() && *ch != '\t')
                        .map(|ch| ch.to_string())
                })
        };
        for c in [
            "ls",
            "ls; cat",
            "echo $(x) | y",
            "a!b;c",
            "tab\tok",
            "nul\0x",
            "é;",
            "\x7f",
            "ls '\\' \"",
            "{}[]",
            "x\ny",
            "grep -r é .",
            "a`b",
            "<>&",
        ] {
            assert_eq!(
                super::metacharacter(c).map(str::to_string),
                plain(c),
                "{c:?}"
            );
        }
    }

    use super::*;
    use std::fs;

    const SENSITIVE: &[DenialReason] = &[
        DenialReason::SensitiveFile,
        DenialReason::SensitiveExtension,
        DenialReason::SensitiveDirectory,
        DenialReason::SensitivePath,
    ];

    struct TempDir(PathBuf);
    impl TempDir {
        fn new(tag: &str) -> Self {
            let dir = std::env::temp_dir().join(format!(
                "phpclaw-shell-policy-{tag}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn policy(allow: &[&str]) -> ShellPolicy {
        ShellPolicy::new(allow.iter().copied(), "/nonexistent-phpclaw-cwd")
    }

    fn denial(p: &ShellPolicy, cmd: &str) -> Denial {
        match p.check(cmd) {
            Err(ShellError::Denied(d)) => d,
            other => panic!("{cmd:?} was not denied: {other:?}"),
        }
    }

    fn reason(p: &ShellPolicy, cmd: &str) -> Option<DenialReason> {
        match p.check(cmd) {
            Err(ShellError::Denied(d)) => Some(d.reason),
            Err(ShellError::NoCommand) => panic!("{cmd:?}: no command"),
            Ok(_) => None,
        }
    }

    #[test]
    fn constants_match_the_reference() {
        assert_eq!(DEFAULT_ALLOWLIST.len(), 8);
        assert_eq!(READONLY_COMMANDS.len(), 12);
        for c in DEFAULT_ALLOWLIST
            .iter()
            .chain(&["cat", "head", "tail", "grep"])
        {
            assert!(READONLY_COMMANDS.contains(c));
        }
        assert_eq!(HARD_BLOCKED.len(), 73);
        assert_eq!(METACHARACTERS.len(), 17);
        assert_eq!(FILE_READING_COMMANDS.len(), 22);
        assert_eq!(
            (
                DEFAULT_MAX_STDOUT_BYTES,
                DEFAULT_MAX_STDERR_BYTES,
                PROCESS_TIMEOUT_SECONDS
            ),
            (8192, 10000, 5)
        );
        assert_eq!(HARD_READ_CEILING_BYTES, 10_485_760);
        for name in EXTRA_HARD_BLOCKED {
            assert!(!HARD_BLOCKED.contains(name), "{name} duplicated");
        }
    }

    #[test]
    fn split_argv_is_pcre_whitespace() {
        assert_eq!(split_argv("  ls   -la\t/tmp \n"), ["ls", "-la", "/tmp"]);
        assert_eq!(split_argv("a\u{0B}b\u{0C}c\rd"), ["a", "b", "c", "d"]);
        assert_eq!(split_argv("a\u{A0}b\u{85}c"), ["a\u{A0}b\u{85}c"]);
        assert_eq!(split_argv("echo \"a b\""), ["echo", "\"a", "b\""]);
        assert!(split_argv(" \t ").is_empty());
    }

    #[test]
    fn empty_command_is_its_own_error() {
        let p = ShellPolicy::with_default_allowlist("/");
        for blank in ["", "   ", "\n\t", "\0\u{0B}"] {
            let e = p.check(blank).unwrap_err();
            assert_eq!(e, ShellError::NoCommand);
            assert_eq!(e.to_string(), "No command provided.");
            assert_eq!(e.exception_class(), "ToolException");
        }
    }

    #[test]
    fn metacharacters_and_control_characters() {
        let p = policy(&["pwd", "ls"]);
        for m in METACHARACTERS {
            let d = denial(&p, &format!("pwd {m}x"));
            assert_eq!(
                (d.reason, d.detail.as_str(), d.program.as_str()),
                (DenialReason::Metacharacter, *m, "")
            );
            assert_eq!(
                d.message,
                "Command contains a disallowed shell metacharacter."
            );
        }
        // list order, not position, picks the reported character
        assert_eq!(denial(&p, "pwd | x ; y").detail, ";");
        for c in [
            "\n", "\r", "\0", "\u{1b}", "\u{7f}", "\u{0B}", "\u{0C}", "\u{1}",
        ] {
            let d = denial(&p, &format!("ls{c}rm"));
            assert_eq!(
                (d.reason, d.detail.as_str()),
                (DenialReason::Metacharacter, c)
            );
        }
        // tab separates arguments like a space; trailing newline is trimmed away
        assert!(p.check("ls\t-l").is_ok());
        assert!(p.check("pwd\n").is_ok());
        assert!(p.check("pwd`id`").is_err());
        assert!(p.check("pwd; echo injected").is_err());
    }

    #[test]
    fn hard_blocked_on_basename_case_insensitively() {
        let p = policy(&[
            "rm",
            "sudo",
            "chmod",
            "RM",
            "Rm",
            "/bin/rm",
            "./rm",
            "/usr/bin/RM",
            "bash",
            "python3.11",
            "xargs",
            "php8.2",
        ]);
        for cmd in [
            "rm -rf /tmp/test",
            "RM x",
            "Rm x",
            "/bin/rm x",
            "./rm x",
            "/usr/bin/RM x",
            "sudo apt-get update",
            "chmod 777 /etc/passwd",
            "bash -c id",
            "python3.11 x",
            "xargs cat",
            "php8.2 -v",
            "rm/ x",
            "ls/../rm x",
        ] {
            let d = denial(&p, cmd);
            assert_eq!(d.reason, DenialReason::HardBlocked, "{cmd}");
            assert_eq!(d.detail, "");
            let prog = split_argv(cmd)[0].clone();
            assert_eq!(
                d.message,
                format!("Command '{prog}' is permanently blocked and cannot be executed.")
            );
            assert_eq!(d.program, prog);
        }
        let all = ShellPolicy::new(HARD_BLOCKED.iter().copied(), "/");
        for name in HARD_BLOCKED {
            assert_eq!(
                reason(&all, name),
                Some(DenialReason::HardBlocked),
                "{name}"
            );
        }
        // the hook context of a refusal with no detail has no `file`
        let d = denial(&p, "rm -rf /");
        assert_eq!(
            d.hook_context(),
            vec![
                ("command", "rm -rf /".into()),
                ("cmd_name", "rm".into()),
                ("reason", "hard_blocked".into())
            ]
        );
    }

    #[test]
    fn allowlist_is_exact() {
        let p = policy(&["ls", "echo"]);
        for (cmd, prog) in [
            ("git status", "git"),
            ("LS", "LS"),
            ("/bin/ls", "/bin/ls"),
            ("./ls", "./ls"),
            ("ls/../../bin/echo BYPASS", "ls/../../bin/echo"),
        ] {
            let d = denial(&p, cmd);
            assert_eq!(d.reason, DenialReason::NotInAllowlist, "{cmd}");
            assert_eq!(
                d.message,
                format!("Command '{prog}' is not in the shell allowlist.")
            );
        }
        let default = ShellPolicy::with_default_allowlist("/");
        for cmd in [
            "cat x",
            "head x",
            "tail x",
            "grep x y",
            "php --version",
            "composer --version",
        ] {
            assert_eq!(
                reason(&default, cmd),
                Some(DenialReason::NotInAllowlist),
                "{cmd}"
            );
        }
        assert_eq!(
            reason(&default, "node --version"),
            Some(DenialReason::HardBlocked)
        );
        let ok = default.check("  ls  ").unwrap();
        assert_eq!(
            ok,
            Approved {
                command: "ls".into(),
                argv: vec!["ls".into()],
                program: "ls".into(),
                paths: vec![PathArg {
                    text: ".".into(),
                    base: None,
                    usage: Use::Read
                }]
            }
        );
        assert!(policy(&["echo"]).check("ls").is_err());
    }

    #[test]
    fn allowlisted_symlink_to_blocked_program_is_hard_blocked() {
        let t = TempDir::new("prog");
        std::os::unix::fs::symlink("/bin/rm", t.0.join("tidy")).unwrap();
        let p = ShellPolicy::new(["./tidy", "tidy"], &t.0);
        assert_eq!(reason(&p, "./tidy x"), Some(DenialReason::HardBlocked));
        // a bare name is looked up on PATH by the runner, not judged here
        assert_eq!(reason(&p, "tidy x"), None);
    }

    #[test]
    fn sensitive_arguments_reference_cases() {
        let p = policy(&["cat", "head", "tail", "grep"]);
        for cmd in [
            "cat wp-config.php",
            "head -20 wp-config.php",
            "tail wp-config.php",
            "grep PASSWORD wp-config.php",
            "cat .env",
            "cat .env.local",
            "cat .env.production",
            "grep API_KEY .env",
            "head .env",
            "cat configuration.php",
            "cat database.php",
            "grep password database.php",
            "cat settings.php",
            "cat server.key",
            "cat certificate.pem",
            "cat id_rsa",
            "cat credentials.json",
            "cat wp-config.php.bak",
            "cat wp-config.php~",
            "cat id_rsa.bak",
            "cat id_rsa~",
            "cat credentials.json.save",
            "cat server.key.bak",
            "cat configuration.php.orig",
            "cat /etc/passwd",
            "cat /etc/shadow",
            "grep root /etc/passwd",
            "head /etc/sudoers",
            "cat .git/config",
            "cat .ssh/id_rsa",
            "grep key .aws/credentials",
            "cat database.sqlite",
            "cat app.db",
            "cat docker-compose.yml",
            "cat settings.inc.php",
            "cat .envrc",
            "cat /dev/mem",
            "cat ../../proc/self/environ",
            "grep --file=.env.local",
        ] {
            let r = reason(&p, cmd);
            assert!(r.is_some_and(|r| SENSITIVE.contains(&r)), "{cmd}: {r:?}");
        }
        let d = denial(&p, "cat wp-config.php");
        assert_eq!(d.reason, DenialReason::SensitiveFile);
        assert_eq!(d.program, "cat");
        assert_eq!(d.detail, "wp-config.php");
        assert_eq!(
            d.hook_context().last().unwrap(),
            &("file", "wp-config.php".to_string())
        );
        let default = ShellPolicy::with_default_allowlist("/");
        assert!(default.check("wc --files0-from=/etc/passwd").is_err());
    }

    #[test]
    fn safe_arguments_pass() {
        let t = TempDir::new("safe");
        fs::write(t.0.join("notes.txt"), "x").unwrap();
        let p = ShellPolicy::new(["cat", "grep", "wc", "ls", "df", "date"], &t.0);
        for cmd in [
            "cat notes.txt",
            "grep -c x notes.txt",
            "grep --color=auto x notes.txt",
            "wc -l notes.txt",
            "ls",
            "ls /etc",
            "ls -la /tmp",
            "ls /",
            "df -h",
            "date +%s",
            "cat -",
            "cat README.md",
        ] {
            assert_eq!(p.check(cmd).err(), None, "{cmd}");
        }
    }

    #[test]
    fn flag_values_and_operands_after_double_dash() {
        let p = policy(&["grep", "cat", "sort", "wc"]);
        for cmd in [
            "grep --file=.env x",
            "grep -f.env x",
            "grep -rf.env x",
            "grep -f/etc/passwd x",
            "grep -fwp-config.php x",
            "grep -ifwp-config.php x",
            "grep -iid_rsa x",
            "sort -o.ssh/x y",
            "grep -rfwp-admin/x y",
            "grep -f../../.git/config x",
            "cat -- -secret.key",
            "cat -- --x.pem",
            "wc --files0-from=/etc/passwd",
        ] {
            let r = reason(&p, cmd);
            assert!(r.is_some_and(|r| SENSITIVE.contains(&r)), "{cmd}: {r:?}");
        }
        // a flag without a value, or a value naming nothing sensitive, is fine
        for cmd in [
            "grep -c x y",
            "grep -m5 x y",
            "grep --color=auto x y",
            "grep -- -v y",
            "sort -k2 y",
        ] {
            assert_eq!(reason(&p, cmd), None, "{cmd}");
        }
    }

    #[test]
    fn every_program_gets_argument_checks() {
        let p = policy(&["cp", "diff", "stat", "file", "ls"]);
        for cmd in [
            "cp .env /tmp/x",
            "diff a wp-config.php",
            "stat ~/.ssh/id_rsa",
            "file /etc/shadow",
            "ls .ssh",
            "ls /proc/1",
        ] {
            let r = reason(&p, cmd);
            assert!(r.is_some_and(|r| SENSITIVE.contains(&r)), "{cmd}: {r:?}");
        }
    }

    #[test]
    fn traversal_and_symlinks_are_resolved_against_the_cwd() {
        let t = TempDir::new("resolve");
        let work = t.0.join("a/b");
        fs::create_dir_all(&work).unwrap();
        fs::write(t.0.join(".env"), "S=1").unwrap();
        std::os::unix::fs::symlink(t.0.join(".env"), work.join("harmless.txt")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", work.join("pw")).unwrap();
        let p = ShellPolicy::new(["cat", "ls"], &work);
        assert!(reason(&p, "cat ../../.env").is_some());
        assert!(reason(&p, "cat harmless.txt").is_some());
        let d = denial(&p, "cat pw");
        assert_eq!(d.message, "Access to 'pw' is blocked: system file.");
        assert!(reason(&p, "cat ./../b/./pw").is_some());
        assert_eq!(reason(&p, "ls ../.."), None);
    }

    #[test]
    fn a_sensitive_cwd_blocks_readers_but_not_other_programs() {
        let t = TempDir::new("wpadmin");
        let cwd = t.0.join("wp-admin");
        fs::create_dir_all(cwd.join("sub")).unwrap();
        fs::write(cwd.join("notes.txt"), "x").unwrap();
        let p = ShellPolicy::new(["ls", "date", "cat", "df"], &cwd);
        for cmd in [
            "ls -la",
            "date +%s",
            "ls sub",
            "ls -R sub",
            "df -h",
            "ls /tmp",
        ] {
            assert_eq!(reason(&p, cmd), None, "{cmd}");
        }
        // the reference's readers judge the real path, which is inside wp-admin/
        assert_eq!(
            reason(&p, "cat notes.txt"),
            Some(DenialReason::SensitiveDirectory)
        );
        assert_eq!(
            reason(&p, "ls ../wp-admin"),
            Some(DenialReason::SensitiveDirectory)
        );
    }

    #[test]
    fn recursive_reads_walk_the_tree() {
        let t = TempDir::new("recurse");
        fs::create_dir_all(t.0.join("clean/sub")).unwrap();
        fs::write(t.0.join("clean/sub/readme.txt"), "x").unwrap();
        fs::create_dir_all(t.0.join("app/config")).unwrap();
        fs::write(t.0.join("app/config/.env"), "S=1").unwrap();
        fs::write(t.0.join("top.txt"), "x").unwrap();
        let p = ShellPolicy::new(["grep", "ls", "egrep", "cp", "tree", "cat"], &t.0);
        for cmd in [
            "grep -r x app",
            "grep -R x app",
            "grep -rl x app",
            "grep -Rin x app",
            "grep --recursive x app",
            "grep --recur x app",
            "grep --dereference-recursive x app",
            "grep -d recurse x app",
            "grep -drecurse x app",
            "grep --directories=recurse x app",
            "egrep -r x app",
            "ls -R app",
            "ls -laR app",
            "ls --recursive app",
            "cp -r app /tmp/x",
            "cp -a app /tmp/x",
            "tree app",
            // no directory operand: the cwd is walked, and it holds app/config/.env
            "grep -r x",
            "grep -r -e x",
            "ls -R",
            "tree",
        ] {
            let r = reason(&p, cmd);
            assert!(r.is_some_and(|r| SENSITIVE.contains(&r)), "{cmd}: {r:?}");
        }
        for cmd in [
            "grep -r x clean",
            "ls -R clean",
            "ls app",
            "grep x top.txt",
            "cat top.txt",
            "ls -r app",
            "grep -r x top.txt clean",
        ] {
            assert_eq!(reason(&p, cmd), None, "{cmd}");
        }
        let d = denial(&p, "grep -r x app");
        assert!(d.detail.ends_with("app/config/.env"), "{}", d.detail);
    }

    #[test]
    fn mutability_per_invocation() {
        let default = ShellPolicy::with_default_allowlist("/");
        assert!(default.is_mutating("  "));
        assert!(default.is_mutating(""));
        assert!(!default.is_mutating("find app -type f | wc -l"));
        assert!(!default.is_mutating("php artisan migrate"));
        assert!(!policy(&["rm"]).is_mutating("rm notes.txt"));
        assert!(policy(&["touch"]).is_mutating("touch notes.txt"));
        assert!(!policy(&["grep"]).is_mutating("grep x f"));
        for c in READONLY_COMMANDS {
            assert!(!ShellPolicy::new([*c], "/").is_mutating(c), "{c}");
        }
        // read-only but off the allowlist: refused, so no approval either
        assert!(!default.is_mutating("cat x"));
        // a sensitive argument is not a program-level refusal: approval is still asked
        assert!(policy(&["cp"]).is_mutating("cp .env x"));
        assert!(!default.is_mutating("ls\nrm"));
    }

    #[test]
    fn exec_options_are_refused_and_sed_is_sandboxed() {
        let p = policy(&["sed", "awk", "git", "tar", "sort", "zip"]);
        for (cmd, token) in [
            ("awk -f prog.awk x", "-f"),
            ("awk -fprog.awk x", "-fprog.awk"),
            ("awk --load=ext x", "--load=ext"),
            ("awk --incl lib x", "--incl"),
            ("git -c core.fsmonitor=id status", "-c"),
            ("git config core.pager id", "config"),
            ("git rebase -x id", "rebase"),
            ("git --exec-path=/tmp status", "--exec-path=/tmp"),
            ("tar --to-command=id -xf a.tar", "--to-command=id"),
            ("tar -I id -cf a.tar x", "-I"),
            ("sort --compress-prog=id x", "--compress-prog=id"),
            ("zip -TT id a.zip x", "-TT"),
        ] {
            let d = denial(&p, cmd);
            assert_eq!(
                (d.reason, d.detail.as_str()),
                (DenialReason::HardBlocked, token),
                "{cmd}"
            );
            assert_eq!(
                d.message,
                format!(
                    "Option '{token}' would let '{}' run other programs.",
                    d.program
                )
            );
        }
        for cmd in [
            "awk -v x=1 NR==1 f",
            "git status",
            "git log -C",
            "tar -tf a.tar",
            "sort -n f",
        ] {
            assert_eq!(reason(&p, cmd), None, "{cmd}");
        }
        let ok = p.check("sed -n 1p f").unwrap();
        assert_eq!(ok.argv, ["sed", "--sandbox", "-n", "1p", "f"]);
        assert_eq!(
            p.check("sed s/.*/id/e f")
                .unwrap()
                .argv
                .get(1)
                .map(String::as_str),
            Some("--sandbox")
        );
        // git's grammar: `--` before a subcommand is no subcommand at all
        assert_eq!(reason(&p, "git -- config"), Some(DenialReason::HardBlocked));
        let git = p.check("git status").unwrap().argv;
        assert_eq!(git.first().map(String::as_str), Some("git"));
        assert!(git.iter().any(|a| a == "core.fsmonitor=false"), "{git:?}");
        assert_eq!(git.last().map(String::as_str), Some("status"));
    }

    #[test]
    fn denial_is_a_typed_error_with_the_message() {
        let e = policy(&[]).check("git status").unwrap_err();
        assert_eq!(e.exception_class(), "ShellDeniedException");
        assert_eq!(
            e.to_string(),
            "Command 'git' is not in the shell allowlist."
        );
        let d = denial(&policy(&[]), "pwd;x");
        assert_eq!(d.hook_context().last().unwrap(), &("file", ";".to_string()));
    }
}
