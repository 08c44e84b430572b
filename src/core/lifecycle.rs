//! The tool lifecycle, written once: plan → perform → verify → complete, with recover().
//!
//! Rules (phpClaw's execution contract, spec section "The lifecycle"):
//! - `plan()` runs first; a non-null result is returned at once and nothing else runs.
//!   A failure thrown by `plan()` is never recovered.
//! - `perform()`, `verify()` and `complete()` run in that order; a non-null verify result is
//!   returned at once.
//! - Only a *tool* failure (a `ToolException`, subclasses included) thrown by perform, verify
//!   or complete reaches `recover()`, and only while `attempt < maxRecoveryAttempts()` (asked
//!   anew after each failure, as the reference does); then the failure is rethrown unchanged.
//!   `recover()` either finishes the run with a result or asks for a retry.
//! - Every other failure passes through untouched.
//!
//! The engine is generic over a [`Lifecycle`] host: the PHP bindings implement it by calling
//! the tool object's own methods, so a PHP override of any step wins; a test double in Rust
//! implements it directly.

/// What a lifecycle step can fail with.
#[derive(Debug, PartialEq)]
pub enum Failure<E> {
    /// A tool failure (`ToolException`): eligible for `recover()` when thrown after `plan()`.
    Tool(E),
    /// Anything else: passed to the caller unchanged.
    Other(E),
}

/// The result of `plan()`: the input the rest of the run uses, or a finished result.
pub struct Plan<I, R> {
    /// The normalised input perform/verify/complete receive.
    pub input: I,
    /// A finished result that short-circuits the run.
    pub result: Option<R>,
}

/// What one step returns: its value, or a failure.
pub type Step<T, E> = Result<T, Failure<E>>;

/// A tool the engine can drive. `I` is the input, `X` the raw execution, `R` the finished
/// result (the envelope string), `E` a failure.
pub trait Lifecycle {
    /// Normalised input.
    type Input;
    /// Unformatted result of perform().
    type Execution;
    /// A finished result (the envelope).
    type Output;
    /// A failure (for PHP: a thrown object).
    type Error;

    /// Authorise, normalise, validate.
    fn plan(&mut self) -> Step<Plan<Self::Input, Self::Output>, Self::Error>;
    /// Do the work.
    fn perform(&mut self, input: &Self::Input) -> Result<Self::Execution, Failure<Self::Error>>;
    /// Check the raw result; `Some` finishes the run.
    fn verify(
        &mut self,
        execution: &Self::Execution,
        input: &Self::Input,
    ) -> Result<Option<Self::Output>, Failure<Self::Error>>;
    /// Build the envelope.
    fn complete(
        &mut self,
        execution: &Self::Execution,
        input: &Self::Input,
    ) -> Result<Self::Output, Failure<Self::Error>>;
    /// How many times a tool failure may be retried (asked after each failure).
    fn max_recovery_attempts(&mut self) -> Result<i64, Failure<Self::Error>>;
    /// Handle a tool failure: `Ok(Some)` finishes, `Ok(None)` retries, `Err` propagates.
    fn recover(
        &mut self,
        failure: Self::Error,
        attempt: i64,
    ) -> Result<Option<Self::Output>, Failure<Self::Error>>;
}

/// Run the lifecycle to its end. The error is the failure to hand back to the caller.
pub fn execute<L: Lifecycle>(tool: &mut L) -> Result<L::Output, L::Error> {
    let plan = tool.plan().map_err(into_inner)?;
    if let Some(result) = plan.result {
        return Ok(result);
    }
    let mut attempt: i64 = 0;
    loop {
        let failure = match run_once(tool, &plan.input) {
            Ok(output) => return Ok(output),
            Err(Failure::Other(e)) => return Err(e),
            Err(Failure::Tool(e)) => e,
        };
        if attempt >= tool.max_recovery_attempts().map_err(into_inner)? {
            return Err(failure);
        }
        attempt += 1;
        if let Some(result) = tool.recover(failure, attempt).map_err(into_inner)? {
            return Ok(result);
        }
    }
}

fn run_once<L: Lifecycle>(tool: &mut L, input: &L::Input) -> Result<L::Output, Failure<L::Error>> {
    let execution = tool.perform(input)?;
    if let Some(result) = tool.verify(&execution, input)? {
        return Ok(result);
    }
    tool.complete(&execution, input)
}

fn into_inner<E>(failure: Failure<E>) -> E {
    match failure {
        Failure::Tool(e) | Failure::Other(e) => e,
    }
}

/// How many retries each binding allows (spec: "Retries differ between core and adapter tools").
pub mod retries {
    /// The contract trait's default: adapter tools retry an infrastructure failure once.
    pub const CONTRACT: i64 = 1;
    /// Core's binding: an infrastructure failure surfaces unchanged.
    pub const CORE: i64 = 0;
}

/// The capability every core tool requires (`ToolAuthorizerInterface::CAPABILITY`).
pub const CORE_CAPABILITY: &str = "phpclaw_use_tools";

/// The messages and codes the lifecycle helpers produce; PHP callers compare them.
pub mod messages {
    /// Error code of a refused caller.
    pub const FORBIDDEN: &str = "FORBIDDEN";
    /// Error code of an argument outside the allowed set.
    pub const UNKNOWN_ARGUMENT: &str = "UNKNOWN_ARGUMENT";
    /// Error code of an out-of-range limit.
    pub const INVALID_LIMIT: &str = "INVALID_LIMIT";
    /// Error code of an out-of-range offset.
    pub const INVALID_OFFSET: &str = "INVALID_OFFSET";
    /// The ToolException message when the envelope cannot be encoded.
    pub const ENCODE_FAILED: &str = "Unable to encode tool response.";

    /// The contract's FORBIDDEN message: names the platform capability.
    pub fn forbidden_contract(capability: &[u8], subject: &[u8]) -> Vec<u8> {
        [
            b"The current user lacks the \"".as_slice(),
            capability,
            b"\" capability required to ",
            subject,
            b".",
        ]
        .concat()
    }

    /// Core's FORBIDDEN message: core has no capability namespace, so it names the real reason.
    pub fn forbidden_core(subject: &[u8]) -> Vec<u8> {
        [
            b"No authenticated caller was identified, so this request may not ".as_slice(),
            subject,
            b".",
        ]
        .concat()
    }

    /// UNKNOWN_ARGUMENT message for one key (PHP strings are bytes, so is the key).
    pub fn unknown_argument(key: &[u8]) -> Vec<u8> {
        [b"Unknown argument \"".as_slice(), key, b"\"."].concat()
    }

    /// INVALID_LIMIT message.
    pub fn invalid_limit(max: i64) -> String {
        format!("\"limit\" must be an integer between 1 and {max}.")
    }

    /// INVALID_OFFSET message.
    pub fn invalid_offset(max: i64) -> String {
        format!("\"offset\" must be an integer between 0 and {max}.")
    }

    /// The line logExecutionError() writes to the error log.
    pub fn execution_failed(label: &[u8], message: &[u8]) -> Vec<u8> {
        [
            b"phpClaw ".as_slice(),
            label,
            b" execution failed: ",
            message,
        ]
        .concat()
    }
}

/// The short label of a class for log lines: the part after the last namespace separator.
pub fn tool_label(class_name: &str) -> &str {
    class_name.rsplit('\\').next().unwrap_or(class_name)
}

/// Why a paging input is refused, if it is (`validatePaging()`): `limit` must be an integer
/// in 1..=max_limit, `offset` an integer in 0..=max_offset. `None` means absent.
pub enum PagingValue {
    /// The key is not in the input.
    Absent,
    /// An integer value.
    Int(i64),
    /// Any other type (float, numeric string, null…): refused, as the reference is strict.
    NotInt,
}

/// Which paging rule a value breaks, checking limit first as the reference does.
pub fn paging_error(
    limit: PagingValue,
    offset: PagingValue,
    max_limit: i64,
    max_offset: i64,
) -> Option<(&'static str, String)> {
    let bad = |v: &PagingValue, lo: i64, hi: i64| match v {
        PagingValue::Absent => false,
        PagingValue::Int(n) => *n < lo || *n > hi,
        PagingValue::NotInt => true,
    };
    if bad(&limit, 1, max_limit) {
        return Some((messages::INVALID_LIMIT, messages::invalid_limit(max_limit)));
    }
    if bad(&offset, 0, max_offset) {
        return Some((
            messages::INVALID_OFFSET,
            messages::invalid_offset(max_offset),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted tool: each step's outcome comes from a queue; the log records the calls.
    #[derive(Default)]
    struct Scripted {
        plan: Option<Result<Option<&'static str>, Failure<&'static str>>>,
        perform: Vec<Result<(), Failure<&'static str>>>,
        verify: Option<&'static str>,
        max_attempts: i64,
        recover: Vec<Result<Option<&'static str>, Failure<&'static str>>>,
        log: Vec<String>,
    }

    impl Lifecycle for Scripted {
        type Input = ();
        type Execution = ();
        type Output = &'static str;
        type Error = &'static str;

        fn plan(&mut self) -> Result<Plan<(), &'static str>, Failure<&'static str>> {
            self.log.push("plan".into());
            let result = self.plan.take().unwrap_or(Ok(None))?;
            Ok(Plan { input: (), result })
        }
        fn perform(&mut self, _: &()) -> Result<(), Failure<&'static str>> {
            self.log.push("perform".into());
            if self.perform.is_empty() {
                Ok(())
            } else {
                self.perform.remove(0)
            }
        }
        fn verify(
            &mut self,
            _: &(),
            _: &(),
        ) -> Result<Option<&'static str>, Failure<&'static str>> {
            self.log.push("verify".into());
            Ok(self.verify)
        }
        fn complete(&mut self, _: &(), _: &()) -> Result<&'static str, Failure<&'static str>> {
            self.log.push("complete".into());
            Ok("done")
        }
        fn max_recovery_attempts(&mut self) -> Result<i64, Failure<&'static str>> {
            self.log.push("max".into());
            Ok(self.max_attempts)
        }
        fn recover(
            &mut self,
            failure: &'static str,
            attempt: i64,
        ) -> Result<Option<&'static str>, Failure<&'static str>> {
            self.log.push(format!("recover({failure},{attempt})"));
            if self.recover.is_empty() {
                Ok(None)
            } else {
                self.recover.remove(0)
            }
        }
    }

    #[test]
    fn happy_path_runs_every_step_once() {
        let mut t = Scripted::default();
        assert_eq!(execute(&mut t), Ok("done"));
        assert_eq!(t.log, ["plan", "perform", "verify", "complete"]);
    }

    #[test]
    fn plan_result_short_circuits() {
        let mut t = Scripted {
            plan: Some(Ok(Some("early"))),
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Ok("early"));
        assert_eq!(t.log, ["plan"]);
    }

    #[test]
    fn plan_tool_failure_is_never_recovered() {
        let mut t = Scripted {
            plan: Some(Err(Failure::Tool("bad"))),
            max_attempts: 5,
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Err("bad"));
        assert_eq!(t.log, ["plan"]);
    }

    #[test]
    fn verify_result_short_circuits() {
        let mut t = Scripted {
            verify: Some("checked"),
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Ok("checked"));
        assert_eq!(t.log, ["plan", "perform", "verify"]);
    }

    #[test]
    fn one_retry_then_success() {
        let mut t = Scripted {
            perform: vec![Err(Failure::Tool("io"))],
            max_attempts: 1,
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Ok("done"));
        assert_eq!(
            t.log,
            [
                "plan",
                "perform",
                "max",
                "recover(io,1)",
                "perform",
                "verify",
                "complete"
            ]
        );
    }

    #[test]
    fn retries_exhausted_rethrow_the_last_failure() {
        let mut t = Scripted {
            perform: vec![Err(Failure::Tool("a")), Err(Failure::Tool("b"))],
            max_attempts: 1,
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Err("b"));
        assert_eq!(
            t.log,
            ["plan", "perform", "max", "recover(a,1)", "perform", "max"]
        );
    }

    #[test]
    fn zero_attempts_surface_at_once() {
        let mut t = Scripted {
            perform: vec![Err(Failure::Tool("a"))],
            max_attempts: 0,
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Err("a"));
        assert_eq!(t.log, ["plan", "perform", "max"]);
    }

    #[test]
    fn other_failures_are_not_recovered() {
        let mut t = Scripted {
            perform: vec![Err(Failure::Other("type error"))],
            max_attempts: 3,
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Err("type error"));
        assert_eq!(t.log, ["plan", "perform"]);
    }

    #[test]
    fn recover_can_finish_or_rethrow() {
        let mut t = Scripted {
            perform: vec![Err(Failure::Tool("a"))],
            max_attempts: 1,
            recover: vec![Ok(Some("recovered"))],
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Ok("recovered"));

        let mut t = Scripted {
            perform: vec![Err(Failure::Tool("a"))],
            max_attempts: 1,
            recover: vec![Err(Failure::Tool("a"))],
            ..Default::default()
        };
        assert_eq!(execute(&mut t), Err("a"));
    }

    #[test]
    fn labels_and_messages() {
        assert_eq!(tool_label("PhpClaw\\Tools\\ShellTool"), "ShellTool");
        assert_eq!(tool_label("Plain"), "Plain");
        assert_eq!(
            messages::forbidden_contract(b"use phpclaw chat", b"read files"),
            b"The current user lacks the \"use phpclaw chat\" capability required to read files."
        );
        assert_eq!(
            messages::forbidden_core(b"run a shell command"),
            b"No authenticated caller was identified, so this request may not run a shell command."
        );
        assert_eq!(
            messages::unknown_argument(b"x\xff"),
            b"Unknown argument \"x\xff\"."
        );
        assert_eq!(
            messages::execution_failed(b"ShellTool", b"boom"),
            b"phpClaw ShellTool execution failed: boom"
        );
    }

    #[test]
    fn paging_limits_at_and_past_the_bounds() {
        use PagingValue::*;
        assert!(paging_error(Int(1), Int(0), 50, 1000).is_none());
        assert!(paging_error(Int(50), Int(1000), 50, 1000).is_none());
        assert!(paging_error(Absent, Absent, 50, 1000).is_none());
        assert_eq!(
            paging_error(Int(0), Absent, 50, 1000).unwrap().0,
            "INVALID_LIMIT"
        );
        assert_eq!(
            paging_error(Int(51), Absent, 50, 1000).unwrap().0,
            "INVALID_LIMIT"
        );
        assert_eq!(
            paging_error(NotInt, Absent, 50, 1000).unwrap().0,
            "INVALID_LIMIT"
        );
        assert_eq!(
            paging_error(Absent, Int(-1), 50, 1000).unwrap().0,
            "INVALID_OFFSET"
        );
        assert_eq!(
            paging_error(Absent, Int(1001), 50, 1000).unwrap().0,
            "INVALID_OFFSET"
        );
        let (_, msg) = paging_error(Int(51), Int(-1), 50, 1000).unwrap();
        assert_eq!(msg, "\"limit\" must be an integer between 1 and 50.");
    }
}
