//! `shell_exec`: one allowlisted command, run without a shell (spec "shell_exec", "Human
//! approval for mutating tools"; phpClaw's ShellTool, public repository
//! phpclaw-php/phpclaw-monorepo).
//!
//! Rules:
//! - the command is the input's `command` as PHP's `(string)` gives it (missing: empty);
//!   [`ShellPolicy::check`] decides: blank is a ToolException "No command provided." with no
//!   event; a refusal fires `shell.denied` (command, cmd_name, reason, and file when there is
//!   one) and then fails with a ShellDeniedException carrying the policy's message; a listener
//!   that throws ends the run with its own exception;
//! - an approved command runs through [`super::process`] (argv as judged, no shell, own process
//!   group, stdin at end of file, filtered environment, 5 s deadline, 10 MB read ceiling);
//!   a timeout or the ceiling is a ToolException with the runner's message, and no event;
//! - after the run `shell.exec` fires (command, cmd_name), then the answer is shaped as the
//!   reference does (`shape_output`): over the inline cap the complete text goes to a temp file
//!   `phpclaw-shell-<stream>-XXXXXX` in the host's temp folder and the preview ends with the
//!   note naming that path (or with the discard note when the file cannot be written);
//! - added: a preview cut inside a UTF-8 character drops the partial character, so a long
//!   UTF-8 answer never becomes an envelope json_encode refuses; a cap below 0 counts as 0;
//! - added: a command that is not valid UTF-8 is judged as text with replacement characters
//!   and, when approved, not run: its envelope could not be encoded anyway (the reference runs
//!   it and then fails with "Unable to encode tool response."), so the run fails the same way
//!   before anything executes;
//! - the envelope: `data: {command, output}`, `meta: {mode: shell, command_name}`, `warnings: []`.

use std::path::{Path, PathBuf};

use super::file_read::{php_string, trim_incomplete_utf8_tail};
use std::sync::atomic::{AtomicBool, Ordering};

use super::process::{self, Limits, RunFailure, Spawn};
use super::{success, Host, NativeTool, ToolError};
use crate::core::json::{self, EncodeOptions};
use crate::core::sandbox::{kernel_abi, ChildLimits, Mode, Prepared, Right};
use crate::core::security::shell_policy::confine::{
    find_program, is_script, ConfineError, Planner,
};
use crate::core::security::shell_policy::{
    self, ceiling_message, discard_note, shape_output, spill_note, spill_prefix,
    start_failed_message, timeout_message, Approved, Denial, DenialReason, PathDenial, Shaped,
    ShellError, ShellPolicy, HARD_READ_CEILING_BYTES, PROCESS_TIMEOUT_SECONDS,
};
use crate::core::value::{Array, Value};
use crate::core::workdir;

/// `name()`.
pub const NAME: &str = "shell_exec";
/// `description()`.
pub const DESCRIPTION: &str = "EXECUTE a shell command and return real stdout. Use for system state, versions, processes, dates. Invoke: do not describe.";
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "run a shell command";
/// Event fired when a command is refused.
pub const EVENT_DENIED: &str = "shell.denied";
/// Event fired after a command ran.
pub const EVENT_EXEC: &str = "shell.exec";
/// The program [`Shell::judge_path`] judges a lone path for (a reference file reader).
const PATH_JUDGE_PROGRAM: &str = "cat";

/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["system"],
    &[
        "shell", "command", "run", "execute", "terminal", "bash", "disk", "usage", "space",
    ],
    &["run command", "execute shell"],
    &["run whoami", "check disk usage"],
];

/// `inputSchema()`.
pub fn input_schema() -> Value {
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([(
                "command",
                Value::from_pairs([
                    ("type", "string"),
                    (
                        "description",
                        "The shell command to execute (e.g. \"ls -la /var/log\").",
                    ),
                ]),
            )]),
        ),
        ("required", Value::list(["command"])),
    ])
}

/// The runner's limits from the spec: 5 seconds, 10 MB.
pub fn default_limits() -> Limits {
    Limits {
        timeout: std::time::Duration::from_secs(PROCESS_TIMEOUT_SECONDS),
        ceiling: HARD_READ_CEILING_BYTES,
    }
}

/// Where spill files go: a folder, or a lookup run only when a spill happens (the binding asks
/// PHP's `sys_get_temp_dir()`; None falls back to the OS temp folder).
#[derive(Debug, Clone)]
pub enum TempDir {
    /// This folder.
    Fixed(PathBuf),
    /// Ask when needed.
    Lookup(fn() -> Option<PathBuf>),
}

impl TempDir {
    /// The folder.
    pub fn path(&self) -> PathBuf {
        match self {
            TempDir::Fixed(p) => p.clone(),
            TempDir::Lookup(f) => f().unwrap_or_else(std::env::temp_dir),
        }
    }
}

/// A shell_exec tool: the policy, the inline caps, where spill files go, the runner's limits,
/// and the kernel sandbox setting.
#[derive(Debug, Clone)]
pub struct Shell {
    /// `phpclaw.shell_sandbox`.
    pub sandbox: Mode,
    /// The kernel's Landlock ABI (0: none); a test may pretend a kernel without it.
    pub abi: i32,
    /// Allowlist and working directory.
    pub policy: ShellPolicy,
    /// Inline stdout cap (`maxStdoutBytes`).
    pub max_stdout: i64,
    /// Inline stderr cap (`maxStderrBytes`).
    pub max_stderr: i64,
    /// Folder of the spill files (PHP's `sys_get_temp_dir()`).
    pub temp_dir: TempDir,
    /// Where a policy with an empty cwd judges and runs commands: the host's working
    /// directory (PHP's own, which a thread-safe PHP keeps per thread apart from the
    /// process's): [`workdir::current`] by default.
    pub workdir: fn() -> Option<PathBuf>,
    /// Deadline and read ceiling.
    pub limits: Limits,
}

/// The planned input: the approved command, and how its child starts.
#[derive(Debug)]
pub struct Planned {
    /// What the policy approved.
    pub approved: Approved,
    /// The folder the command runs in (the one the policy judged against).
    pub cwd: PathBuf,
    /// The program file found and judged at check time (None: unconfined PATH lookup).
    pub program: Option<PathBuf>,
    /// The confinement (or the limits alone) the child applies before `exec`.
    pub prepared: Prepared,
}

/// What [`Shell::confine`] decided when it could not run the command as approved.
enum NotConfined {
    /// Refused by a rule: fire `shell.denied`.
    Denied(Denial),
    /// Cannot run: a ToolException with this message.
    Failed(String),
    /// No such program: the run ends as a failed `exec` would (exit code 127, no output).
    Missing,
}

/// What perform() produced: the answer text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executed {
    /// Cleaned, capped output (or preview and note).
    pub output: Vec<u8>,
}

/// The `command` input as PHP's `(string)` cast gives it; missing or null is empty, an array
/// is "Array" (the binding converts arrays and objects with PHP's own cast first).
pub fn command_bytes(input: &Value) -> Vec<u8> {
    match input.as_array().and_then(|a| a.get("command")) {
        None => Vec::new(),
        Some(v) => php_string(v).unwrap_or_else(|| b"Array".to_vec()),
    }
}

/// A hook context array from (key, value) pairs, in order.
pub fn hook_context<S: AsRef<str>>(pairs: &[(&str, S)]) -> Array {
    Array::from_pairs(pairs.iter().map(|(k, v)| (*k, Value::str(v.as_ref()))))
}

/// Fires `shell.denied` for a refusal, then fails with its message.
/// The context is built only when something listens.
fn deny<H: Host, T>(denial: Denial, host: &mut H) -> Result<T, ToolError<H::Error>> {
    if host.listens(EVENT_DENIED).map_err(ToolError::Host)? {
        let mut context = Array::with_capacity(4);
        for (key, value) in [
            ("command", denial.command.as_str()),
            ("cmd_name", denial.program.as_str()),
            ("reason", denial.reason.as_str()),
            ("file", denial.detail.as_str()),
        ] {
            if key != "file" || !value.is_empty() {
                context.insert(key, Value::str(value));
            }
        }
        host.dispatch(EVENT_DENIED, &context)
            .map_err(ToolError::Host)?;
    }
    Err(ToolError::ShellDenied(denial.message))
}

/// A policy refusal: "No command provided." (no event), or [`deny`].
fn refused<H: Host, T>(e: ShellError, host: &mut H) -> Result<T, ToolError<H::Error>> {
    match e {
        ShellError::NoCommand => Err(ToolError::tool(ShellError::NoCommand.to_string())),
        ShellError::Denied(denial) => deny(denial, host),
    }
}

/// The refusals a command meets before the tool's configuration is needed, as `plan()` would
/// make them (event, then failure): [`screen`](crate::core::security::shell_policy::screen)
/// with the allowlist as a test, in no particular directory (as [`Shell::check`]'s first pass).
/// `Ok` when the command must go on to the whole check; a binding calls this first so a
/// refused command costs neither the configuration nor an allocation before its refusal.
pub fn screen<H: Host>(
    command: &[u8],
    allows: impl Fn(&str) -> bool,
    host: &mut H,
) -> Result<(), ToolError<H::Error>> {
    let text = String::from_utf8_lossy(command);
    match shell_policy::screen(&text, Path::new(""), allows) {
        Ok(_) => Ok(()),
        Err(e) => refused(e, host),
    }
}

/// `isMutating()` with the allowlist as a test, in no particular directory (see [`screen`]).
pub fn is_mutating(command: &[u8], allows: impl Fn(&str) -> bool) -> bool {
    shell_policy::is_mutating(&String::from_utf8_lossy(command), Path::new(""), allows)
}

/// The refusal of a script under confinement.
pub fn script_message(program: &str) -> String {
    format!(
        "Command '{program}' is a script: its interpreter would have to run, and the shell sandbox lets a command run only its own program."
    )
}

/// The refusal when `phpclaw.shell_sandbox=required` and the kernel has no Landlock.
pub fn sandbox_unavailable_message(program: &str) -> String {
    format!(
        "Command '{program}' was not run: phpclaw.shell_sandbox is 'required' and this kernel offers no Landlock sandbox."
    )
}

/// The one log line saying commands run without the kernel sandbox.
pub const UNCONFINED_WARNING: &str = "[phpClaw] shell_exec: this kernel offers no Landlock sandbox; commands run with the policy checks alone (phpclaw.shell_sandbox=auto).";

/// Says once per process that commands run unconfined.
fn warn_unconfined_once<H: Host>(host: &mut H) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        host.warn(UNCONFINED_WARNING);
    }
}

fn cap(n: i64) -> usize {
    usize::try_from(n).unwrap_or(0)
}

impl Shell {
    /// A tool with the spec's limits. A policy whose cwd is empty judges in the working
    /// directory ([`Shell::workdir`]), looked up only when a command gets past the program checks.
    pub fn new(policy: ShellPolicy, max_stdout: i64, max_stderr: i64, temp_dir: TempDir) -> Shell {
        let abi = kernel_abi();
        Shell {
            sandbox: Mode::Auto,
            abi,
            // as `check` would set it for the default mode, so it need not copy the policy
            policy: policy.confined(abi > 0),
            max_stdout,
            max_stderr,
            temp_dir,
            workdir: workdir::current,
            limits: default_limits(),
        }
    }

    /// The working directory a policy with an empty cwd stands for ([`Shell::workdir`]).
    fn here(&self) -> PathBuf {
        (self.workdir)().unwrap_or_else(|| PathBuf::from("."))
    }

    /// `isMutating()`: whether this input needs human approval.
    pub fn is_mutating(&self, input: &Value) -> bool {
        self.policy
            .is_mutating(&String::from_utf8_lossy(&command_bytes(input)))
    }

    /// [`ShellPolicy::check`] in the real working directory. With an empty configured cwd the
    /// program refusals come first ([`ShellPolicy::program_check`]: metacharacter, hard-blocked,
    /// allowlist), which are the same in any directory (a relative program path is resolved only
    /// once the directory is known); only a command that gets past them costs the directory
    /// lookup (PHP's working directory: the thread's own under ZTS) and is judged there.
    pub fn check(&mut self, command: &str) -> Result<Approved, ShellError> {
        let confined = self.confines();
        if self.policy.is_confined() != confined {
            self.policy = self.policy.clone().confined(confined);
        }
        if !self.policy.cwd().as_os_str().is_empty() {
            return self.policy.check(command);
        }
        self.policy.program_check(command)?;
        let cwd = self.here();
        self.policy.set_cwd(cwd);
        self.policy.check(command)
    }

    /// Whether children run confined: the setting allows it and the kernel has Landlock.
    pub fn confines(&self) -> bool {
        self.sandbox != Mode::Off && self.abi > 0
    }

    /// Opens, judges and grants what an approved command may touch, and prepares its child.
    fn confine<H: Host>(&self, approved: &Approved, host: &mut H) -> Result<Planned, NotConfined> {
        let cwd = self.policy.cwd().to_path_buf();
        let mutating = self.policy.is_mutating(&approved.command);
        let limits = ChildLimits::for_command(mutating);
        if !self.confines() && self.sandbox == Mode::Required {
            return Err(NotConfined::Failed(sandbox_unavailable_message(
                &approved.program,
            )));
        }
        let denied = |d: PathDenial| {
            NotConfined::Denied(Denial {
                reason: d.reason,
                command: approved.command.clone(),
                program: approved.program.clone(),
                detail: d.detail,
                message: d.message,
            })
        };
        let failed = |e: ConfineError| match e {
            ConfineError::Denied(d) => denied(d),
            ConfineError::Sandbox(e) => {
                NotConfined::Failed(format!("Command '{}' cannot run: {e}.", approved.program))
            }
        };
        let env = process::child_environment(&cwd, &approved.program);
        let search = env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let token = approved.argv.first().unwrap_or(&approved.program);
        let program = find_program(token, &cwd, &search)
            .map_err(failed)?
            .ok_or(NotConfined::Missing)?;
        // Every approved path is judged as opened in every mode (hard links refused); only a
        // confined child is also held to it by grants.
        let scope = self.policy.scope_for(&approved.program);
        let mut planner = if self.confines() {
            Planner::new(&scope)
        } else {
            Planner::judging_only(&scope)
        };
        for path in &approved.paths {
            planner.add(path).map_err(failed)?;
        }
        // The program is run by the path found here in every mode: what was judged runs, and
        // a full path lets the runner use posix_spawn.
        if !self.confines() {
            if self.sandbox == Mode::Auto {
                warn_unconfined_once(host);
            }
            return Ok(Planned {
                approved: approved.clone(),
                cwd,
                program: Some(program.path),
                prepared: Prepared::unconfined(limits),
            });
        }
        if is_script(&program.path) {
            return Err(NotConfined::Failed(script_message(&approved.program)));
        }
        planner
            .grants
            .fd(program.fd, Right::Execute)
            .map_err(|e| failed(e.into()))?;
        let name = program
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == "git" {
            planner.git_repository(&cwd).map_err(failed)?;
        }
        if mutating {
            planner
                .grants
                .path(&cwd, Right::Write)
                .map_err(|e| failed(e.into()))?;
        }
        let prepared = Prepared::confined(planner.grants, &name, limits, self.abi)
            .map_err(|e| failed(e.into()))?;
        Ok(Planned {
            approved: approved.clone(),
            cwd,
            program: Some(program.path),
            prepared,
        })
    }

    /// The sensitive-path rules alone on one token, as a file reader's operand: the refusal
    /// (reason `sensitive_*`) or None. Backs the reference's private `assertPathNotSensitive`.
    pub fn judge_path(&self, token: &str) -> Option<Denial> {
        let cwd = match self.policy.cwd() {
            c if c.as_os_str().is_empty() => self.here(),
            c => c.to_path_buf(),
        };
        let judge = ShellPolicy::new([PATH_JUDGE_PROGRAM], cwd);
        match judge.check(&format!("{PATH_JUDGE_PROGRAM} -- {token}")) {
            Err(ShellError::Denied(d))
                if matches!(
                    d.reason,
                    DenialReason::SensitiveFile
                        | DenialReason::SensitiveExtension
                        | DenialReason::SensitiveDirectory
                        | DenialReason::SensitivePath
                ) =>
            {
                Some(d)
            }
            _ => None,
        }
    }

    /// The answer for a finished process: stream choice, cleaning, cap, spill file.
    pub fn shape(&self, stdout: &[u8], stderr: &[u8], exit_code: i32) -> Vec<u8> {
        match shape_output(
            stdout,
            stderr,
            exit_code,
            cap(self.max_stdout),
            cap(self.max_stderr),
        ) {
            Shaped::Inline(text) => text,
            Shaped::Spill {
                stream,
                mut preview,
                full,
                cap,
            } => {
                trim_incomplete_utf8_tail(&mut preview);
                match process::spill(&self.temp_dir.path(), &spill_prefix(stream), &full) {
                    Some(path) => spill_note(&preview, stream, full.len(), &path.to_string_lossy()),
                    None => discard_note(&preview, full.len(), cap),
                }
            }
        }
    }
}

impl NativeTool for Shell {
    type Input = Planned;
    type Execution = Executed;

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        let raw = command_bytes(input);
        let text = String::from_utf8_lossy(&raw);
        match self.check(&text) {
            Ok(approved) => {
                if text.as_bytes() != raw.as_slice() {
                    // The envelope echoes the command: fail as its encoding would, unrun.
                    let echo = Value::from_pairs([("command", Value::Str(raw))]);
                    return match json::to_vec(&echo, EncodeOptions::default()) {
                        Err(e) => Err(ToolError::Encode(e)),
                        Ok(_) => Err(ToolError::tool(start_failed_message(&approved.program))),
                    };
                }
                match self.confine(&approved, host) {
                    Ok(planned) => Ok(planned),
                    Err(NotConfined::Denied(denial)) => deny(denial, host),
                    Err(NotConfined::Failed(message)) => Err(ToolError::Tool(message)),
                    Err(NotConfined::Missing) => Ok(Planned {
                        cwd: self.policy.cwd().to_path_buf(),
                        approved,
                        program: Some(PathBuf::new()),
                        prepared: Prepared::unconfined(ChildLimits::for_command(false)),
                    }),
                }
            }
            Err(e) => refused(e, host),
        }
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        host: &mut H,
    ) -> Result<Executed, ToolError<H::Error>> {
        let approved = &input.approved;
        let env = process::child_environment(&input.cwd, &approved.program);
        let spawn = Spawn {
            program: input.program.as_deref(),
            cwd: Some(&input.cwd),
            prepared: Some(&input.prepared),
        };
        let finished =
            process::run_with(&approved.argv, &env, self.limits, spawn).map_err(|failure| {
                match failure {
                    RunFailure::Start => ToolError::Tool(start_failed_message(&approved.program)),
                    RunFailure::Timeout => ToolError::Tool(timeout_message(&approved.program)),
                    RunFailure::Ceiling => ToolError::Tool(ceiling_message(&approved.program)),
                }
            })?;
        let output = self.shape(&finished.stdout, &finished.stderr, finished.exit_code);
        let context = hook_context(&[
            ("command", approved.command.as_str()),
            ("cmd_name", approved.program.as_str()),
        ]);
        host.dispatch(EVENT_EXEC, &context)
            .map_err(ToolError::Host)?;
        Ok(Executed { output })
    }

    fn complete(&mut self, executed: &Executed, input: &Planned) -> Value {
        let data = Value::from_pairs([
            ("command", Value::str(&input.approved.command)),
            ("output", Value::Str(executed.output.clone())),
        ]);
        let meta = Value::from_pairs([
            ("mode", Value::str("shell")),
            ("command_name", Value::str(&input.approved.program)),
        ]);
        success(data, meta, Value::Array(Array::new()))
    }
}
