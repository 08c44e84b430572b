//! The native tools, written once: how a tool built into the extension is authorised, run
//! through the lifecycle engine and answered.
//!
//! Rules (spec "Who may run a tool" and phpClaw's core binding, `HasCoreToolBinding`):
//! - the guard asks the console first, then the capability `phpclaw_use_tools`; a refused caller
//!   gets the FORBIDDEN error envelope with core's message, and nothing else runs;
//! - without an authorizer the console answer is "no" and the capability answer "yes", so a tool
//!   nobody bound stays usable from plain PHP (the reference's behaviour);
//! - plan → perform → verify → complete runs through [`crate::core::lifecycle::execute`] with
//!   `maxRecoveryAttempts() == 0`: a tool failure surfaces unchanged, never retried;
//! - envelopes are core [`Value`]s encoded verbatim by [`crate::core::json`] (no entity decoding),
//!   byte for byte what `json_encode(…, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES)` gives;
//!   an envelope that cannot be encoded fails with "Unable to encode tool response.".
//!
//! The PHP side is a [`Host`]: it answers the authorizer's questions and anything else a tool
//! needs from PHP, and its error type carries a pending PHP exception through untouched.

pub mod atomic_write;
pub mod catalogue;
pub mod code_search;
pub mod db_query;
pub mod file_edit;
pub mod file_read;
pub mod file_write;
pub mod http;
pub mod load_skill;
pub mod process;
pub mod project;
pub mod shell;
pub mod zip_package;

use crate::core::json::{self, EncodeError, EncodeOptions};
use crate::core::lifecycle::{self, messages, retries, Failure, Lifecycle, Plan, Step};
use crate::core::value::{Array, Value};

#[cfg(test)]
mod code_search_tests;
#[cfg(test)]
mod file_write_edit_tests;
#[cfg(test)]
mod shell_sandbox_tests;
#[cfg(test)]
mod shell_tests;
#[cfg(test)]
mod tests;

/// What a native tool asks of the PHP side.
pub trait Host {
    /// A PHP exception (or other host failure), passed to the caller unchanged.
    type Error;

    /// The authorizer's `runningInConsole()`, or `false` with none bound.
    fn running_in_console(&mut self) -> Result<bool, Self::Error>;

    /// The authorizer's `allows()`, or `true` with none bound.
    fn allows(&mut self) -> Result<bool, Self::Error>;

    /// Record that `path` was read inside `root` (the read log file_edit consults).
    fn mark_read(&mut self, root: &str, path: &str) -> Result<(), Self::Error> {
        let _ = (root, path);
        Ok(())
    }

    /// Whether `path` was recorded as read inside `root` in this run (no log: never).
    fn was_read(&mut self, root: &str, path: &str) -> Result<bool, Self::Error> {
        let _ = (root, path);
        Ok(false)
    }

    /// Log a warning for the site's operators (PHP's `error_log`); no host log: dropped.
    fn warn(&mut self, message: &str) {
        let _ = message;
    }

    /// Fire a hook event with its context (phpClaw's `HookRegistry::fire()`), when the host
    /// has hooks. An error is the host's own (a listener's exception), passed through.
    fn dispatch(&mut self, event: &str, context: &Array) -> Result<(), Self::Error> {
        let _ = (event, context);
        Ok(())
    }

    /// Whether [`Host::dispatch`] would hand `event` to anything (phpClaw's HookRegistry is
    /// there), so a hot path (a refusal) builds no context nobody receives. Default: yes.
    fn listens(&mut self, event: &str) -> Result<bool, Self::Error> {
        let _ = event;
        Ok(true)
    }
}

/// How a native tool run fails.
#[derive(Debug, PartialEq)]
pub enum ToolError<E> {
    /// A `ToolException` with this message.
    Tool(String),
    /// A `ToolException` about an envelope json_encode would refuse, with PHP's own
    /// `JsonException` error as its previous.
    Encode(EncodeError),
    /// A `ShellDeniedException` with this message.
    ShellDenied(String),
    /// The host failed (a PHP exception is pending): passed through.
    Host(E),
}

impl<E> ToolError<E> {
    /// A ToolException with `message`.
    pub fn tool(message: impl Into<String>) -> Self {
        ToolError::Tool(message.into())
    }
}

/// One native tool's steps. `Input` is the planned input, `Execution` perform()'s raw result.
pub trait NativeTool {
    /// The input after plan().
    type Input;
    /// What perform() produced.
    type Execution;

    /// The words the FORBIDDEN message ends with ("read a file from the workspace").
    fn forbidden_subject(&self) -> &'static str;

    /// Normalise and validate the caller's input.
    fn plan<H: Host>(
        &mut self,
        input: &Value,
        host: &mut H,
    ) -> Result<Self::Input, ToolError<H::Error>>;

    /// Do the work.
    fn perform<H: Host>(
        &mut self,
        input: &Self::Input,
        host: &mut H,
    ) -> Result<Self::Execution, ToolError<H::Error>>;

    /// Check the raw result; `Some` envelope finishes the run (default: accept).
    fn verify(&mut self, execution: &Self::Execution, input: &Self::Input) -> Option<Value> {
        let _ = (execution, input);
        None
    }

    /// The success envelope.
    fn complete(&mut self, execution: &Self::Execution, input: &Self::Input) -> Value;
}

/// `success()`: `{success: true, data, meta, warnings}`.
pub fn success(data: Value, meta: Value, warnings: Value) -> Value {
    Value::from_pairs([
        ("success", Value::Bool(true)),
        ("data", data),
        ("meta", meta),
        ("warnings", warnings),
    ])
}

/// `error()`: `{success: false, error: {code, message, …context}, data: null, meta: {mode:
/// error}, warnings: []}`; context string keys overwrite in place, integer keys are appended
/// (PHP's `array_merge`).
pub fn error(code: &str, message: &[u8], context: Option<&Array>) -> Value {
    let mut err = Array::from_pairs([("code", Value::str(code)), ("message", Value::str(message))]);
    if let Some(ctx) = context {
        for (k, v) in ctx.iter() {
            match k {
                crate::core::value::Key::Str(_) => {
                    err.insert(k.clone(), v.clone());
                }
                crate::core::value::Key::Int(_) => {
                    // Appending after at most two string keys and a bounded context cannot
                    // exhaust the index space.
                    let _ = err.push(v.clone());
                }
            }
        }
    }
    Value::from_pairs([
        ("success", Value::Bool(false)),
        ("error", Value::Array(err)),
        ("data", Value::Null),
        ("meta", Value::from_pairs([("mode", "error")])),
        ("warnings", Value::Array(Array::new())),
    ])
}

/// Encode an envelope verbatim (core binding: no entity decoding).
pub fn encode<E>(envelope: &Value) -> Result<Vec<u8>, ToolError<E>> {
    json::to_vec(envelope, EncodeOptions::default()).map_err(ToolError::Encode)
}

/// `guardCapability()` with core's message: `Some(envelope)` when the caller is refused.
pub fn guard<H: Host>(host: &mut H, subject: &str) -> Result<Option<Vec<u8>>, ToolError<H::Error>> {
    if host.running_in_console().map_err(ToolError::Host)? {
        return Ok(None);
    }
    if host.allows().map_err(ToolError::Host)? {
        return Ok(None);
    }
    let message = messages::forbidden_core(subject.as_bytes());
    encode(&error(messages::FORBIDDEN, &message, None)).map(Some)
}

/// The retries a native tool allows (core binding: none).
pub const MAX_RECOVERY_ATTEMPTS: i64 = retries::CORE;

/// Run a native tool on `input`: guard, then the lifecycle engine. The envelope JSON, or the
/// failure to raise in PHP.
pub fn run<T: NativeTool, H: Host>(
    tool: &mut T,
    host: &mut H,
    input: &Value,
) -> Result<Vec<u8>, ToolError<H::Error>> {
    // The guard is the first thing plan() does; a refused caller is answered before the input
    // is looked at.
    if let Some(forbidden) = guard(host, tool.forbidden_subject())? {
        return Ok(forbidden);
    }
    run_steps(tool, host, input)
}

/// The lifecycle after the guard, for a binding that guards first and converts its input
/// only for an allowed caller (the reference reads the input after the guard).
pub fn run_steps<T: NativeTool, H: Host>(
    tool: &mut T,
    host: &mut H,
    input: &Value,
) -> Result<Vec<u8>, ToolError<H::Error>> {
    let mut run = Run { tool, host, input };
    lifecycle::execute(&mut run)
}

/// The lifecycle host for a native tool: every step is Rust.
struct Run<'a, T: NativeTool, H: Host> {
    tool: &'a mut T,
    host: &'a mut H,
    input: &'a Value,
}

/// Which failures are tool failures (eligible for recover()): all but the host's own.
fn sort<E>(e: ToolError<E>) -> Failure<ToolError<E>> {
    match e {
        ToolError::Host(_) => Failure::Other(e),
        _ => Failure::Tool(e),
    }
}

impl<T: NativeTool, H: Host> Lifecycle for Run<'_, T, H> {
    type Input = T::Input;
    type Execution = T::Execution;
    type Output = Vec<u8>;
    type Error = ToolError<H::Error>;

    fn plan(&mut self) -> Step<Plan<T::Input, Vec<u8>>, Self::Error> {
        // plan() failures are never recovered, so their kind does not matter.
        let input = self
            .tool
            .plan(self.input, self.host)
            .map_err(Failure::Other)?;
        Ok(Plan {
            input,
            result: None,
        })
    }

    fn perform(&mut self, input: &T::Input) -> Step<T::Execution, Self::Error> {
        self.tool.perform(input, self.host).map_err(sort)
    }

    fn verify(
        &mut self,
        execution: &T::Execution,
        input: &T::Input,
    ) -> Step<Option<Vec<u8>>, Self::Error> {
        match self.tool.verify(execution, input) {
            None => Ok(None),
            Some(envelope) => encode(&envelope).map(Some).map_err(sort),
        }
    }

    fn complete(
        &mut self,
        execution: &T::Execution,
        input: &T::Input,
    ) -> Step<Vec<u8>, Self::Error> {
        let envelope = self.tool.complete(execution, input);
        encode(&envelope).map_err(sort)
    }

    fn max_recovery_attempts(&mut self) -> Step<i64, Self::Error> {
        Ok(MAX_RECOVERY_ATTEMPTS)
    }

    fn recover(
        &mut self,
        failure: Self::Error,
        _attempt: i64,
    ) -> Step<Option<Vec<u8>>, Self::Error> {
        // Never reached with zero attempts; a failure offered anyway surfaces unchanged.
        Err(Failure::Other(failure))
    }
}
