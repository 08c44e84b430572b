//! `PhpClaw\Tools\ShellTool`, native: the class phpClaw declares (constructor
//! `(array $allowlist = DEFAULT_ALLOWLIST, int $maxStdoutBytes = 8192, int $maxStderrBytes =
//! 10000)`, constants, accessors, `isMutating()`), with every decision in `core::tools::shell`
//! and `core::security::shell_policy`, and the process runner in `core::tools::process`.
//!
//! Hook events: `shell.denied` and `shell.exec` go to phpClaw's own
//! `PhpClaw\Hooks\HookRegistry::fire($event, $context)` when that class exists (autoloaded),
//! exactly as phpClaw's event dispatcher sends them: the context keys in order, then `run_id`
//! and `parent_run_id` from `PhpClaw\Hooks\HookRunContext` when that class exists and they are
//! set. Without HookRegistry no event is sent and nothing else changes. An exception a
//! listener lets out of `fire()` ends the call unchanged.
//!
//! Module layout: declared from `src/php/mod.rs` (this file sits with the other tools); the
//! persistent array constants reuse `tools/ffi.rs` by path for that reason.

use std::borrow::Cow;
use std::path::PathBuf;

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use crate::php::ini;
// `tools::ffi` is private to `tools`; this module is declared beside it (see above), so it
// compiles its own copy of that file until it is declared from `tools/mod.rs`.
#[allow(clippy::duplicate_mod)]
#[path = "ffi.rs"]
mod ffi;

use crate::core::security::shell_policy::{
    ShellPolicy, DEFAULT_ALLOWLIST, DEFAULT_MAX_STDERR_BYTES, DEFAULT_MAX_STDOUT_BYTES,
    FILE_READING_COMMANDS, HARD_BLOCKED, HARD_READ_CEILING_BYTES, METACHARACTERS,
    PROCESS_TIMEOUT_SECONDS, READONLY_COMMANDS, SIGKILL,
};
use crate::core::tools::shell::{self as core, hook_context, Shell, TempDir};
use crate::core::tools::{self as tools, Host, ToolError};
use crate::core::value::{Array, Value};
use crate::php::contracts::{MUTATING, PER_INVOCATION};
use crate::php::tools::{raise, string_list, tool_class, Extras, PhpHost, Slots, AUTHORIZER_PROP};
use crate::php::values;
use crate::php::zend::{self, ClassName, ClassSlot, Frame, Pending};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\ShellTool";

/// phpClaw's hook registry (PHP userland; optional).
pub const HOOK_REGISTRY: &str = "PhpClaw\\Hooks\\HookRegistry";
/// phpClaw's run-id context (PHP userland; optional).
pub const HOOK_RUN_CONTEXT: &str = "PhpClaw\\Hooks\\HookRunContext";

pub static SHELL_TOOL: ClassSlot = ClassSlot::new();

const P_ALLOWLIST: &str = "allowlist";
const P_STDOUT: &str = "maxStdoutBytes";
const P_STDERR: &str = "maxStderrBytes";

use super::super::zend::MAY_BE_LONG;

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    SHELL_TOOL.ptr()
}

/// The declared properties read straight from their slots (offsets recorded at startup).
static SLOTS: Slots<4> = Slots::new([P_ALLOWLIST, P_STDOUT, P_STDERR, AUTHORIZER_PROP]);

fn read(this: &ZendObject, name: &str) -> Result<Zval, Pending> {
    SLOTS.read(scope(), this, name)
}

/// Whether `program` matches an allowlist entry: strings only (the reference compares
/// strictly), as text (an entry that is not UTF-8 compares with its replacement characters, as
/// the command does). Read in place: nothing is copied.
fn allowlisted(allowlist: &Zval, program: &str) -> bool {
    let Some(ht) = allowlist.array() else {
        return false;
    };
    let mut found = false;
    zend::for_each_entry(ht, |_, v| {
        if let Some(s) = v.zend_str() {
            let b = s.as_bytes();
            found = b == program.as_bytes()
                || (std::str::from_utf8(b).is_err() && String::from_utf8_lossy(b) == program);
        }
        !found
    });
    found
}

/// The allowlist entries that can match a program token (see [`allowlisted`]), as text.
fn allowlist_of(zv: &Zval) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(ht) = zv.array() {
        zend::for_each_entry(ht, |_, v| {
            if let Some(s) = v.zend_str() {
                out.push(String::from_utf8_lossy(s.as_bytes()).into_owned());
            }
            true
        });
    }
    out
}

/// The `command` input as PHP's `(string)` gives it: a string in place (a new reference to it),
/// anything else converted once (`string_inputs`, which may call `__toString`). The converted
/// input is kept for the run, so the cast never happens twice.
enum Command {
    Given(Zval),
    Converted(Value),
}

impl Command {
    fn of(ht: &ZendHashTable) -> Result<Command, Pending> {
        match zend::get(ht, "command") {
            Some(v) if v.zend_str().is_some() => Ok(Command::Given(v.shallow_clone())),
            _ => super::string_inputs(ht, &["command"]).map(Command::Converted),
        }
    }

    fn bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Command::Given(zv) => Cow::Borrowed(zv.zend_str().map_or(&[][..], |s| s.as_bytes())),
            Command::Converted(v) => Cow::Owned(core::command_bytes(v)),
        }
    }

    /// The converted input of the run.
    fn into_input(self, ht: &ZendHashTable) -> Result<Value, Pending> {
        match self {
            Command::Given(_) => super::string_inputs(ht, &["command"]),
            Command::Converted(v) => Ok(v),
        }
    }
}

/// PHP's `sys_get_temp_dir()` (sys_temp_dir, TMPDIR or /tmp), where tempnam() puts files;
/// asked only when output is spilled.
fn php_temp_dir() -> Option<PathBuf> {
    let v = zend::call_function("sys_get_temp_dir", &mut []).ok()?;
    v.zend_str()
        .and_then(|s| std::str::from_utf8(s.as_bytes()).ok())
        .map(PathBuf::from)
}

/// The tool's configuration, from its properties; the working directory is looked up only
/// when a command gets past the program checks (see `Shell::check`).
fn config(this: &ZendObject, allowlist: &Zval, caps: bool) -> Result<Shell, Pending> {
    let policy = ShellPolicy::new(allowlist_of(allowlist), PathBuf::new())
        .trusting_arguments(ini::trust_arguments());
    let (mut max_stdout, mut max_stderr) = (
        DEFAULT_MAX_STDOUT_BYTES as i64,
        DEFAULT_MAX_STDERR_BYTES as i64,
    );
    if caps {
        max_stdout = read(this, P_STDOUT)?.long().unwrap_or(max_stdout);
        max_stderr = read(this, P_STDERR)?.long().unwrap_or(max_stderr);
    }
    let mut shell = Shell::new(
        policy,
        max_stdout,
        max_stderr,
        TempDir::Lookup(php_temp_dir),
    );
    shell.sandbox = ini::shell_sandbox();
    shell.abi = ini::sandbox_abi();
    Ok(shell)
}

/// A native run's PHP side: the authorizer, and phpClaw's hook registry (looked up once per
/// call, when an event is about to be fired).
struct ShellHost<'a> {
    inner: PhpHost<'a>,
    registry: Option<Option<Registry>>,
}

impl Host for ShellHost<'_> {
    type Error = Pending;

    fn running_in_console(&mut self) -> Result<bool, Pending> {
        self.inner.running_in_console()
    }

    fn allows(&mut self) -> Result<bool, Pending> {
        self.inner.allows()
    }

    fn warn(&mut self, message: &str) {
        self.inner.warn(message);
    }

    fn dispatch(&mut self, event: &str, context: &Array) -> Result<(), Pending> {
        match self.registry {
            Some(Some(registry)) => fire_with(registry, event, context),
            Some(None) => Ok(()),
            None => fire_hook(event, context),
        }
    }

    fn listens(&mut self, _event: &str) -> Result<bool, Pending> {
        let registry = registry()?;
        self.registry = Some(registry);
        Ok(registry.is_some())
    }
}

/// phpClaw's HookRegistry class and its `fire` method.
#[derive(Clone, Copy)]
struct Registry {
    class: *mut ext_php_rs::ffi::zend_class_entry,
    fire: *mut ext_php_rs::ffi::zend_function,
}

/// The two optional userland classes, looked up on every event (see [`ClassName`]).
static REGISTRY_CLASS: ClassName = ClassName::new(HOOK_REGISTRY);
static RUN_CONTEXT_CLASS: ClassName = ClassName::new(HOOK_RUN_CONTEXT);

/// The HookRegistry (autoloaded), if it exists with a `fire` method; Err when autoloading threw.
fn registry() -> Result<Option<Registry>, Pending> {
    let Some(class) = REGISTRY_CLASS.find()? else {
        return Ok(None);
    };
    Ok(zend::find_method(class, "fire").map(|fire| Registry { class, fire }))
}

/// `HookRunContext::$method()` as a non-empty string, if that class and method exist.
fn run_context(
    ce: *mut ext_php_rs::ffi::zend_class_entry,
    method: &str,
) -> Result<Option<Vec<u8>>, Pending> {
    let Some(func) = zend::find_method(ce, method) else {
        return Ok(None);
    };
    let v = zend::call_static(ce, func, &mut [])?;
    Ok(v.zend_str()
        .map(|s| s.as_bytes().to_vec())
        .filter(|s| !s.is_empty()))
}

/// Send `event` to phpClaw's HookRegistry as its event dispatcher does; nothing without it.
pub fn fire_hook(event: &str, context: &Array) -> Result<(), Pending> {
    match registry()? {
        Some(registry) => fire_with(registry, event, context),
        None => Ok(()),
    }
}

/// Send `event` to the HookRegistry found.
fn fire_with(registry: Registry, event: &str, context: &Array) -> Result<(), Pending> {
    let Registry {
        class: registry,
        fire,
    } = registry;
    let mut context = context.clone();
    if let Some(run) = RUN_CONTEXT_CLASS.find()? {
        for (method, key) in [
            ("currentRunId", "run_id"),
            ("currentParentRunId", "parent_run_id"),
        ] {
            if let Some(id) = run_context(run, method)? {
                context.insert(key, Value::Str(id));
            }
        }
    }
    let mut args = [
        zend::str_zval(event),
        values::to_zval(&Value::Array(context)),
    ];
    zend::call_static(registry, fire, &mut args).map(|_| ())
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 3) {
        return;
    }
    let Some(this) = f.this() else { return };
    let mut allowlist = match f.arg(0) {
        None => string_list(DEFAULT_ALLOWLIST),
        Some(_) => match f.array(0) {
            Some(a) => zend::share(a),
            None => return,
        },
    };
    let mut caps = [
        DEFAULT_MAX_STDOUT_BYTES as i64,
        DEFAULT_MAX_STDERR_BYTES as i64,
    ];
    for (i, cap) in caps.iter_mut().enumerate() {
        if f.arg(i + 1).is_some() {
            match f.long(i + 1) {
                Some(n) => *cap = n,
                None => return,
            }
        }
    }
    zend::write_property(scope(), this, P_ALLOWLIST, &mut allowlist);
    if zend::pending() {
        return;
    }
    for (name, cap) in [(P_STDOUT, caps[0]), (P_STDERR, caps[1])] {
        let mut zv = Zval::new();
        zv.set_long(cap);
        zend::write_property(scope(), this, name, &mut zv);
        if zend::pending() {
            return;
        }
    }
}

extern "C" fn execute(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let (Some(this), Some(input)) = (f.this(), f.array(0)) else {
        return;
    };
    let Some(ht) = input.array() else { return };
    let Ok(auth) = read(this, AUTHORIZER_PROP) else {
        return;
    };
    let mut host = ShellHost {
        inner: PhpHost {
            authorizer: auth.object(),
        },
        registry: None,
    };
    if !super::passes_guard(&mut host, core::FORBIDDEN_SUBJECT, rv) {
        return;
    }
    let Ok(command) = Command::of(ht) else {
        return;
    };
    // The refusals the allowlist alone decides come before the configuration is built.
    let Ok(allowlist) = read(this, P_ALLOWLIST) else {
        return;
    };
    let screened = core::screen(&command.bytes(), |p| allowlisted(&allowlist, p), &mut host);
    if let Err(e) = screened {
        return super::respond(Err(e), rv);
    }
    let (Ok(value), Ok(mut tool)) = (command.into_input(ht), config(this, &allowlist, true)) else {
        return;
    };
    super::respond(tools::run_steps(&mut tool, &mut host, &value), rv);
}

extern "C" fn is_mutating(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let (Some(this), Some(input)) = (f.this(), f.array(0)) else {
        return;
    };
    let Some(ht) = input.array() else { return };
    let Ok(command) = Command::of(ht) else {
        return;
    };
    let Ok(allowlist) = read(this, P_ALLOWLIST) else {
        return;
    };
    rv.set_bool(core::is_mutating(&command.bytes(), |p| {
        allowlisted(&allowlist, p)
    }));
}

/// The reference's private `assertPathNotSensitive($command, $cmdName, $token)`: the
/// sensitive-path rules on one token; a refusal fires `shell.denied` with the token as `file`
/// and throws ShellDeniedException.
extern "C" fn assert_path_not_sensitive(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(3, 3) {
        return;
    }
    let Some(this) = f.this() else { return };
    let mut args = Vec::with_capacity(3);
    for n in 0..3 {
        match f.string(n) {
            Some(b) => args.push(String::from_utf8_lossy(&b).into_owned()),
            None => return,
        }
    }
    let Ok(tool) = read(this, P_ALLOWLIST).and_then(|a| config(this, &a, false)) else {
        return;
    };
    let Some(denial) = tool.judge_path(&args[2]) else {
        return;
    };
    let context = hook_context(&[
        ("command", args[0].as_str()),
        ("cmd_name", args[1].as_str()),
        ("reason", denial.reason.as_str()),
        ("file", args[2].as_str()),
    ]);
    if fire_hook(core::EVENT_DENIED, &context).is_ok() {
        raise(ToolError::ShellDenied(denial.message));
    }
}

crate::php::tools::identity_handlers!();

fn property_getter(ex: &mut ExecuteData, rv: &mut Zval, prop: &str) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(v) = read(this, prop) {
        *rv = v;
    }
}

extern "C" fn allowlist(ex: &mut ExecuteData, rv: &mut Zval) {
    property_getter(ex, rv, P_ALLOWLIST);
}

extern "C" fn max_stdout_bytes(ex: &mut ExecuteData, rv: &mut Zval) {
    property_getter(ex, rv, P_STDOUT);
}

extern "C" fn max_stderr_bytes(ex: &mut ExecuteData, rv: &mut Zval) {
    property_getter(ex, rv, P_STDERR);
}

fn getter(
    name: &str,
    handler: extern "C" fn(&mut ExecuteData, &mut Zval),
    ty: DataType,
) -> (FunctionBuilder<'static>, MethodFlags) {
    (
        FunctionBuilder::new(name, handler).returns(ty, false, false),
        MethodFlags::Public,
    )
}

fn mutating_ce() -> &'static ClassEntry {
    // The contracts register before any tool; startup aborts if they failed.
    MUTATING
        .get()
        .expect("contracts are registered before the tools")
}

fn per_invocation_ce() -> &'static ClassEntry {
    PER_INVOCATION
        .get()
        .expect("contracts are registered before the tools")
}

fn long_const(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(Arg::new("allowlist", DataType::Array).default("self::DEFAULT_ALLOWLIST"))
        .arg(Arg::new("maxStdoutBytes", DataType::Long).default("self::DEFAULT_MAX_STDOUT_BYTES"))
        .arg(Arg::new("maxStderrBytes", DataType::Long).default("self::DEFAULT_MAX_STDERR_BYTES"))
        .required_args(0);
    let private = ConstantFlags::Private;
    let mut b = with_identity(tool_class(NAME, Extras::default(), true))
        .implements((
            mutating_ce,
            "PhpClaw\\Tools\\Contracts\\MutatingToolInterface",
        ))
        .implements((
            per_invocation_ce,
            "PhpClaw\\Tools\\Contracts\\PerInvocationMutabilityInterface",
        ))
        .constant(
            "DEFAULT_MAX_STDOUT_BYTES",
            long_const(DEFAULT_MAX_STDOUT_BYTES),
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "DEFAULT_MAX_STDERR_BYTES",
            long_const(DEFAULT_MAX_STDERR_BYTES),
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "PROCESS_TIMEOUT_SECONDS",
            i64::try_from(PROCESS_TIMEOUT_SECONDS).unwrap_or(i64::MAX),
            &[],
            private,
        )?
        .constant(
            "HARD_READ_CEILING_BYTES",
            long_const(HARD_READ_CEILING_BYTES),
            &[],
            private,
        )?
        .constant("SIGKILL", i64::from(SIGKILL), &[], private)?;
    for (name, list) in [
        ("DEFAULT_ALLOWLIST", DEFAULT_ALLOWLIST),
        ("READONLY_COMMANDS", READONLY_COMMANDS),
        ("HARD_BLOCKED", HARD_BLOCKED),
        ("METACHARACTERS", METACHARACTERS),
        ("FILE_READING_COMMANDS", FILE_READING_COMMANDS),
    ] {
        b = b.constant(name, ffi::persistent_string_list(list), &[], private)?;
    }
    b = b
        .method(ctor, MethodFlags::Public)
        .method(
            FunctionBuilder::new("isMutating", is_mutating)
                .arg(Arg::new("input", DataType::Array))
                .returns(DataType::Bool, false, false),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("assertPathNotSensitive", assert_path_not_sensitive)
                .arg(Arg::new("command", DataType::String))
                .arg(Arg::new("cmdName", DataType::String))
                .arg(Arg::new("token", DataType::String))
                .returns(DataType::Void, false, false),
            MethodFlags::Private,
        );
    for (func, flags) in [
        getter("allowlist", allowlist, DataType::Array),
        getter("maxStdoutBytes", max_stdout_bytes, DataType::Long),
        getter("maxStderrBytes", max_stderr_bytes, DataType::Long),
    ] {
        b = b.method(func, flags);
    }
    b.registration(|ce, _| {
        let readonly = MethodFlags::Private.bits() | zend::ACC_READONLY;
        zend::declare_typed_property(
            ce,
            P_ALLOWLIST,
            readonly,
            zend::mask_type(zend::MAY_BE_ARRAY),
            None,
        );
        for prop in [P_STDOUT, P_STDERR] {
            zend::declare_typed_property(ce, prop, readonly, zend::mask_type(MAY_BE_LONG), None);
        }
        crate::php::tools::declare_authorizer(ce);
        SLOTS.record(ce);
        REGISTRY_CLASS.intern();
        RUN_CONTEXT_CLASS.intern();
        SHELL_TOOL.set(ce);
    })
    .register()
}
