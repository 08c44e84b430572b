//! The two lifecycle traits, native: `PhpClaw\Tools\Concerns\HasToolExecutionContract` (what
//! adapter tools use) and `HasCoreToolBinding` (core's binding). A PHP class that `use`s either
//! gets native methods; every step and helper is called back through the object, so a PHP
//! override (in the class or in an intermediate PHP trait) wins, and an exception thrown by any
//! of them reaches the caller unchanged. The orchestration itself is `core::lifecycle`.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::contracts::{AUTHORIZER, AUTHORIZER_NAME};
use super::encode::{self, Binding};
use super::exceptions::{throw_tool_exception, TOOL_EXCEPTION, TOOL_EXCEPTION_NAME};
use super::zend::{self, ClassSlot, Frame, Key, Pending, Thrown};
use crate::core::lifecycle::{
    self as core, messages, retries, Failure, Lifecycle, PagingValue, Plan,
};

pub static CONTRACT_TRAIT: ClassSlot = ClassSlot::new();
pub static CORE_TRAIT: ClassSlot = ClassSlot::new();

/// Name of the contract trait.
pub const CONTRACT_NAME: &str = "PhpClaw\\Tools\\Concerns\\HasToolExecutionContract";
/// Name of core's binding trait.
pub const CORE_NAME: &str = "PhpClaw\\Tools\\Concerns\\HasCoreToolBinding";
/// The private property core's binding keeps its authorizer in.
const AUTHORIZER_PROP: &str = "authorizer";

// ---------------------------------------------------------------------------------------
// The engine's host: a PHP object whose own methods are the steps.

struct PhpRun<'a> {
    this: &'a ZendObject,
    input: Zval,
}

impl PhpRun<'_> {
    fn class(&self) -> String {
        self.this.get_class_name().unwrap_or_default()
    }

    /// Refuse a step's return value that breaks the contract, as a non-retryable failure.
    fn malformed(&self, step: &str, expected: &str) -> Failure<Thrown> {
        let msg = format!("{}::{step}() must return {expected}.", self.class());
        throw_tool_exception(&msg, None);
        classify(Pending)
    }

    /// Read the `result` entry of a step's returned array: absent or null means "carry on".
    fn result_of(&self, step: &str, ret: &Zval) -> Result<Option<Zval>, Failure<Thrown>> {
        let expected = "an array whose \"result\" is a string or null";
        let Some(ht) = ret.array() else {
            return Err(self.malformed(step, expected));
        };
        match zend::get(ht, "result") {
            None => Ok(None),
            Some(r) if r.is_null() => Ok(None),
            Some(r) if r.is_string() => Ok(Some(zend::share(r))),
            Some(_) => Err(self.malformed(step, expected)),
        }
    }

    fn call(&self, name: &str, args: &mut [Zval]) -> Result<Zval, Failure<Thrown>> {
        zend::call_method(self.this, name, args).map_err(classify)
    }
}

/// Sort a pending exception into a tool failure (recoverable) or anything else.
fn classify(_: Pending) -> Failure<Thrown> {
    let thrown = Thrown::take_pending();
    if thrown.is(TOOL_EXCEPTION.get()) {
        Failure::Tool(thrown)
    } else {
        Failure::Other(thrown)
    }
}

use zend::object_zval;

impl Lifecycle for PhpRun<'_> {
    type Input = Zval;
    type Execution = Zval;
    type Output = Zval;
    type Error = Thrown;

    fn plan(&mut self) -> Result<Plan<Zval, Zval>, Failure<Thrown>> {
        let ret = self.call("plan", &mut [zend::share(&self.input)])?;
        let expected = "an array with an array \"input\" and a string or null \"result\"";
        let input = match ret.array().and_then(|ht| zend::get(ht, "input")) {
            Some(i) if i.is_array() => zend::share(i),
            _ => return Err(self.malformed("plan", expected)),
        };
        let result = self.result_of("plan", &ret)?;
        Ok(Plan { input, result })
    }

    fn perform(&mut self, input: &Zval) -> Result<Zval, Failure<Thrown>> {
        let ret = self.call("perform", &mut [zend::share(input)])?;
        if !ret.is_array() {
            return Err(self.malformed("perform", "an array"));
        }
        Ok(ret)
    }

    fn verify(&mut self, execution: &Zval, input: &Zval) -> Result<Option<Zval>, Failure<Thrown>> {
        let ret = self.call("verify", &mut [zend::share(execution), zend::share(input)])?;
        self.result_of("verify", &ret)
    }

    fn complete(&mut self, execution: &Zval, input: &Zval) -> Result<Zval, Failure<Thrown>> {
        let ret = self.call(
            "complete",
            &mut [zend::share(execution), zend::share(input)],
        )?;
        if !ret.is_string() {
            return Err(self.malformed("complete", "a string"));
        }
        Ok(ret)
    }

    fn max_recovery_attempts(&mut self) -> Result<i64, Failure<Thrown>> {
        let ret = self.call("maxRecoveryAttempts", &mut [])?;
        ret.long()
            .ok_or_else(|| self.malformed("maxRecoveryAttempts", "an int"))
    }

    fn recover(&mut self, failure: Thrown, attempt: i64) -> Result<Option<Zval>, Failure<Thrown>> {
        let mut attempt_zv = Zval::new();
        attempt_zv.set_long(attempt);
        let exception = failure.object().map_or_else(Zval::null, object_zval);
        let ret = self.call("recover", &mut [exception, attempt_zv])?;
        self.result_of("recover", &ret)
    }
}

// ---------------------------------------------------------------------------------------
// Native method handlers.

fn finish(rv: &mut Zval, result: Result<Zval, Pending>) {
    if let Ok(v) = result {
        *rv = v;
    }
}

fn truthy(zv: &Zval) -> bool {
    zv.coerce_to_bool()
}

extern "C" fn execute(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let (Some(this), Some(input)) = (f.this(), f.array(0)) else {
        return;
    };
    let mut run = PhpRun {
        this,
        input: zend::share(input),
    };
    match core::execute(&mut run) {
        Ok(out) => *rv = out,
        Err(thrown) => thrown.rethrow(),
    }
}

fn max_attempts(ex: &mut ExecuteData, rv: &mut Zval, n: i64) {
    if Frame::new(ex).check_count(0, 0) {
        rv.set_long(n);
    }
}

extern "C" fn max_attempts_contract(ex: &mut ExecuteData, rv: &mut Zval) {
    max_attempts(ex, rv, retries::CONTRACT);
}

extern "C" fn max_attempts_core(ex: &mut ExecuteData, rv: &mut Zval) {
    max_attempts(ex, rv, retries::CORE);
}

extern "C" fn tool_label(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    let class = this.get_class_name().unwrap_or_default();
    *rv = zend::str_zval(core::tool_label(&class));
}

/// `$this->error($code, $message[, $context])` through the object.
fn call_error(
    this: &ZendObject,
    code: &str,
    message: &[u8],
    context: Option<Zval>,
) -> Result<Zval, Pending> {
    let mut args = vec![zend::str_zval(code), zend::bytes_zval(message)];
    args.extend(context);
    zend::call_method(this, "error", &mut args)
}

fn guard(ex: &mut ExecuteData, rv: &mut Zval, core_message: bool) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let (Some(this), Some(subject)) = (f.this(), f.string(0)) else {
        return;
    };
    let outcome = (|| -> Result<Zval, Pending> {
        if truthy(&zend::call_method(this, "runningInConsole", &mut [])?) {
            return Ok(Zval::null());
        }
        let capability = zend::call_method(this, "requiredCapability", &mut [])?;
        if truthy(&zend::call_method(
            this,
            "callerHasCapability",
            &mut [capability],
        )?) {
            return Ok(Zval::null());
        }
        let message = if core_message {
            messages::forbidden_core(&subject)
        } else {
            let capability = zend::call_method(this, "requiredCapability", &mut [])?;
            let cap = capability
                .zend_str()
                .map(|s| s.as_bytes().to_vec())
                .unwrap_or_default();
            messages::forbidden_contract(&cap, &subject)
        };
        call_error(this, messages::FORBIDDEN, &message, None)
    })();
    finish(rv, outcome);
}

extern "C" fn guard_contract(ex: &mut ExecuteData, rv: &mut Zval) {
    guard(ex, rv, false);
}

extern "C" fn guard_core(ex: &mut ExecuteData, rv: &mut Zval) {
    guard(ex, rv, true);
}

extern "C" fn reject_unknown_arguments(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let (Some(this), Some(input), Some(allowed)) = (f.this(), f.array(0), f.array(1)) else {
        return;
    };
    let (Some(input_ht), Some(allowed_ht)) = (input.array(), allowed.array()) else {
        return;
    };
    let mut unknown: Option<Vec<u8>> = None;
    zend::for_each_entry(input_ht, |key, _| {
        let mut found = false;
        zend::for_each_entry(allowed_ht, |_, candidate| {
            found = match key {
                Key::Int(i) => candidate.long() == Some(i),
                Key::Str(s) => candidate.zend_str().is_some_and(|c| c.as_bytes() == s),
            };
            !found
        });
        if !found {
            unknown = Some(match key {
                Key::Int(i) => i.to_string().into_bytes(),
                Key::Str(s) => s.to_vec(),
            });
        }
        found
    });
    let Some(key) = unknown else {
        rv.set_null();
        return;
    };
    let context = zend::assoc(vec![("accepted_arguments", zend::share(allowed))]);
    finish(
        rv,
        call_error(
            this,
            messages::UNKNOWN_ARGUMENT,
            &messages::unknown_argument(&key),
            Some(context),
        ),
    );
}

fn paging_value(input: &ext_php_rs::types::ZendHashTable, key: &str) -> PagingValue {
    match zend::get(input, key) {
        None => PagingValue::Absent,
        Some(v) => v.long().map_or(PagingValue::NotInt, PagingValue::Int),
    }
}

extern "C" fn validate_paging(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(3, 3) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(input) = f.array(0) else { return };
    let Some(max_limit) = f.long(1) else { return };
    let Some(max_offset) = f.long(2) else { return };
    let Some(ht) = input.array() else { return };
    let refusal = core::paging_error(
        paging_value(ht, "limit"),
        paging_value(ht, "offset"),
        max_limit,
        max_offset,
    );
    match refusal {
        None => rv.set_null(),
        Some((code, message)) => finish(rv, call_error(this, code, message.as_bytes(), None)),
    }
}

extern "C" fn recover(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(ce) = TOOL_EXCEPTION.get() else {
        return;
    };
    let Some(Some(exception)) = f.object_of(0, ce, false) else {
        return;
    };
    if f.long(1).is_none() {
        return;
    }
    let retryable = match zend::call_method(
        this,
        "isRetryableInfrastructureFailure",
        &mut [object_zval(exception)],
    ) {
        Ok(v) => truthy(&v),
        Err(Pending) => return,
    };
    if !retryable {
        Thrown::from_object(exception).rethrow();
        return;
    }
    *rv = zend::assoc(vec![("result", Zval::null())]);
}

extern "C" fn is_retryable(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(ce) = TOOL_EXCEPTION.get() else {
        return;
    };
    let Some(Some(exception)) = f.object_of(0, ce, false) else {
        return;
    };
    if let Ok(previous) = zend::call_method(exception, "getPrevious", &mut []) {
        rv.set_bool(!previous.is_null());
    }
}

extern "C" fn success(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 3) {
        return;
    }
    let Some(this) = f.this() else { return };
    let (Some(data), Some(meta)) = (f.array(0), f.array(1)) else {
        return;
    };
    let warnings = match f.arg(2) {
        None => Zval::new_array(),
        Some(_) => match f.array(2) {
            Some(w) => zend::share(w),
            None => return,
        },
    };
    let mut yes = Zval::new();
    yes.set_bool(true);
    let envelope = zend::assoc(vec![
        ("success", yes),
        ("data", zend::share(data)),
        ("meta", zend::share(meta)),
        ("warnings", warnings),
    ]);
    finish(rv, zend::call_method(this, "encodeResult", &mut [envelope]));
}

extern "C" fn error(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 3) {
        return;
    }
    let Some(this) = f.this() else { return };
    let (Some(code), Some(message)) = (f.string(0), f.string(1)) else {
        return;
    };
    let context = match f.arg(2) {
        None => None,
        Some(_) => match f.array(2) {
            Some(c) => c.array(),
            None => return,
        },
    };
    // array_merge(['code' => …, 'message' => …], $context): string keys overwrite in place,
    // integer keys are appended and renumbered.
    let error = zend::build_array(2, |ht| {
        zend::set(ht, Key::Str(b"code"), zend::bytes_zval(&code));
        zend::set(ht, Key::Str(b"message"), zend::bytes_zval(&message));
        if let Some(ctx) = context {
            zend::for_each_entry(ctx, |key, value| {
                match key {
                    Key::Str(_) => zend::set(ht, key, zend::share(value)),
                    Key::Int(_) => zend::push(ht, zend::share(value)),
                }
                true
            });
        }
    });
    let mut no = Zval::new();
    no.set_bool(false);
    let meta = zend::assoc(vec![("mode", zend::str_zval("error"))]);
    let envelope = zend::assoc(vec![
        ("success", no),
        ("error", error),
        ("data", Zval::null()),
        ("meta", meta),
        ("warnings", Zval::new_array()),
    ]);
    finish(rv, zend::call_method(this, "encodeResult", &mut [envelope]));
}

fn encode_result(ex: &mut ExecuteData, rv: &mut Zval, binding: Binding) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(result) = f.array(0) else { return };
    // The contract decodes through `self::decodeEntitiesRecursively()`: a class that declares
    // its own version gets it called, and its answer is then encoded as it stands.
    if binding == Binding::Contract {
        let scope = f.scope();
        if let Some(func) = zend::find_method(scope, "decodeEntitiesRecursively")
            .filter(|&m| zend::is_user_function(m))
        {
            let Ok(decoded) = zend::call_static(scope, func, &mut [zend::share(result)]) else {
                return;
            };
            if let Some(json) = encode::envelope(&decoded, Binding::Core) {
                *rv = json;
            }
            return;
        }
    }
    if let Some(json) = encode::envelope(result, binding) {
        *rv = json;
    }
}

extern "C" fn encode_result_contract(ex: &mut ExecuteData, rv: &mut Zval) {
    encode_result(ex, rv, Binding::Contract);
}

extern "C" fn encode_result_core(ex: &mut ExecuteData, rv: &mut Zval) {
    encode_result(ex, rv, Binding::Core);
}

extern "C" fn decode_entities_recursively(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    if let Some(value) = f.arg(0) {
        *rv = encode::decode_entities_deep(value);
    }
}

extern "C" fn examples(ex: &mut ExecuteData, rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        *rv = Zval::new_array();
    }
}

extern "C" fn log_execution_error(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(throwable) = super::zend::throwable_ce() else {
        return;
    };
    let Some(Some(exception)) = f.object_of(0, throwable, false) else {
        return;
    };
    let Ok(message) = zend::call_method(exception, "getMessage", &mut []) else {
        return;
    };
    let Ok(label) = zend::call_method(this, "toolLabel", &mut []) else {
        return;
    };
    let bytes = |z: &Zval| {
        z.zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default()
    };
    zend::error_log(&messages::execution_failed(
        &bytes(&label),
        &bytes(&message),
    ));
}

// Core binding only.

extern "C" fn with_authorizer(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(ce) = AUTHORIZER.get() else { return };
    let Some(authorizer) = f.object_of(0, ce, true) else {
        return;
    };
    let mut value = authorizer.map_or_else(Zval::null, object_zval);
    zend::write_property(f.scope(), this, AUTHORIZER_PROP, &mut value);
}

extern "C" fn required_capability_core(ex: &mut ExecuteData, rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        *rv = zend::str_zval(core::CORE_CAPABILITY);
    }
}

extern "C" fn is_eligible_for_routing(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    let outcome = (|| -> Result<bool, Pending> {
        if truthy(&zend::call_method(this, "runningInConsole", &mut [])?) {
            return Ok(true);
        }
        let capability = zend::call_method(this, "requiredCapability", &mut [])?;
        Ok(truthy(&zend::call_method(
            this,
            "callerHasCapability",
            &mut [capability],
        )?))
    })();
    if let Ok(b) = outcome {
        rv.set_bool(b);
    }
}

/// Ask the bound authorizer `method`, or answer `unbound` when there is none.
fn ask_authorizer(
    ex: &mut ExecuteData,
    rv: &mut Zval,
    max_args: usize,
    method: &str,
    unbound: bool,
) {
    let f = Frame::new(ex);
    if !f.check_count(max_args, max_args) {
        return;
    }
    if max_args == 1 && f.string(0).is_none() {
        return;
    }
    let Some(this) = f.this() else { return };
    let authorizer = zend::read_property(f.scope(), this, AUTHORIZER_PROP);
    if zend::pending() {
        return;
    }
    match authorizer.as_ref().and_then(Zval::object) {
        None => rv.set_bool(unbound),
        Some(auth) => {
            if let Ok(v) = zend::call_method(auth, method, &mut []) {
                rv.set_bool(truthy(&v));
            }
        }
    }
}

extern "C" fn running_in_console_core(ex: &mut ExecuteData, rv: &mut Zval) {
    ask_authorizer(ex, rv, 0, "runningInConsole", false);
}

extern "C" fn caller_has_capability_core(ex: &mut ExecuteData, rv: &mut Zval) {
    ask_authorizer(ex, rv, 1, "allows", true);
}

// ---------------------------------------------------------------------------------------
// Declarations.

fn abstract_method(name: &str) -> FunctionBuilder<'static> {
    FunctionBuilder::new_abstract(name)
}

fn arr(name: &str) -> Arg<'static> {
    Arg::new(name, DataType::Array)
}

const PROTECTED: MethodFlags = MethodFlags::Protected;

/// The methods both traits share; `core` selects the core binding's variants.
fn methods(core: bool) -> Vec<(FunctionBuilder<'static>, MethodFlags)> {
    let abstract_protected = MethodFlags::Protected | MethodFlags::Abstract;
    let mut m = vec![
        (
            abstract_method("plan")
                .arg(arr("input"))
                .returns(DataType::Array, false, false),
            abstract_protected,
        ),
        (
            abstract_method("perform")
                .arg(arr("input"))
                .returns(DataType::Array, false, false),
            abstract_protected,
        ),
        (
            abstract_method("verify")
                .arg(arr("execution"))
                .arg(arr("input"))
                .returns(DataType::Array, false, false),
            abstract_protected,
        ),
        (
            abstract_method("complete")
                .arg(arr("execution"))
                .arg(arr("input"))
                .returns(DataType::String, false, false),
            abstract_protected,
        ),
        (
            FunctionBuilder::new("execute", execute)
                .arg(arr("input"))
                .returns(DataType::String, false, false),
            MethodFlags::Public,
        ),
        (
            FunctionBuilder::new(
                "maxRecoveryAttempts",
                if core {
                    max_attempts_core
                } else {
                    max_attempts_contract
                },
            )
            .returns(DataType::Long, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("toolLabel", tool_label).returns(DataType::String, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new(
                "guardCapability",
                if core { guard_core } else { guard_contract },
            )
            .arg(Arg::new("subject", DataType::String))
            .returns(DataType::String, false, true),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("rejectUnknownArguments", reject_unknown_arguments)
                .arg(arr("input"))
                .arg(arr("allowed"))
                .returns(DataType::String, false, true),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("validatePaging", validate_paging)
                .arg(arr("input"))
                .arg(Arg::new("maxLimit", DataType::Long))
                .arg(Arg::new("maxOffset", DataType::Long))
                .returns(DataType::String, false, true),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("recover", recover)
                .arg(Arg::new("exception", DataType::object(TOOL_EXCEPTION_NAME)))
                .arg(Arg::new("attempt", DataType::Long))
                .returns(DataType::Array, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("isRetryableInfrastructureFailure", is_retryable)
                .arg(Arg::new("exception", DataType::object(TOOL_EXCEPTION_NAME)))
                .returns(DataType::Bool, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("success", success)
                .arg(arr("data"))
                .arg(arr("meta"))
                .arg(arr("warnings").default("[]"))
                .required_args(2)
                .returns(DataType::String, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("error", error)
                .arg(Arg::new("code", DataType::String))
                .arg(Arg::new("message", DataType::String))
                .arg(arr("context").default("[]"))
                .required_args(2)
                .returns(DataType::String, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new(
                "encodeResult",
                if core {
                    encode_result_core
                } else {
                    encode_result_contract
                },
            )
            .arg(arr("result"))
            .returns(DataType::String, false, false),
            PROTECTED,
        ),
        (
            FunctionBuilder::new("decodeEntitiesRecursively", decode_entities_recursively)
                .arg(Arg::new("value", DataType::Mixed))
                .returns(DataType::Mixed, false, false),
            MethodFlags::Private | MethodFlags::Static,
        ),
        (
            FunctionBuilder::new("examples", examples).returns(DataType::Array, false, false),
            MethodFlags::Public | MethodFlags::Static,
        ),
        (
            FunctionBuilder::new("logExecutionError", log_execution_error)
                .arg(Arg::new("exception", DataType::object("Throwable")))
                .returns(DataType::Void, false, false),
            PROTECTED,
        ),
    ];
    if core {
        m.extend([
            (
                FunctionBuilder::new("withAuthorizer", with_authorizer)
                    .arg(Arg::new("authorizer", DataType::object(AUTHORIZER_NAME)).allow_null())
                    .returns(DataType::Void, false, false),
                MethodFlags::Public,
            ),
            (
                FunctionBuilder::new("requiredCapability", required_capability_core).returns(
                    DataType::String,
                    false,
                    false,
                ),
                MethodFlags::Public,
            ),
            (
                FunctionBuilder::new("isEligibleForRouting", is_eligible_for_routing).returns(
                    DataType::Bool,
                    false,
                    false,
                ),
                MethodFlags::Public,
            ),
            (
                FunctionBuilder::new("runningInConsole", running_in_console_core).returns(
                    DataType::Bool,
                    false,
                    false,
                ),
                PROTECTED,
            ),
            (
                FunctionBuilder::new("callerHasCapability", caller_has_capability_core)
                    .arg(Arg::new("capability", DataType::String))
                    .returns(DataType::Bool, false, false),
                PROTECTED,
            ),
        ]);
    } else {
        m.extend([
            (
                abstract_method("requiredCapability").returns(DataType::String, false, false),
                MethodFlags::Public | MethodFlags::Abstract,
            ),
            (
                abstract_method("runningInConsole").returns(DataType::Bool, false, false),
                abstract_protected,
            ),
            (
                abstract_method("callerHasCapability")
                    .arg(Arg::new("capability", DataType::String))
                    .returns(DataType::Bool, false, false),
                abstract_protected,
            ),
        ]);
    }
    m
}

fn trait_builder(name: &str, core: bool) -> ClassBuilder {
    let mut b = ClassBuilder::new(name).flags(ClassFlags::Trait);
    for (func, flags) in methods(core) {
        b = b.method(func, flags);
    }
    b
}

/// Register both traits.
pub fn register() -> ext_php_rs::error::Result<()> {
    trait_builder(CONTRACT_NAME, false)
        .registration(|ce, _| {
            zend::pad_trait_methods(ce);
            CONTRACT_TRAIT.set(ce);
        })
        .register()?;
    trait_builder(CORE_NAME, true)
        .registration(|ce, _| {
            // `private ?ToolAuthorizerInterface $authorizer = null`, typed like phpClaw's so a
            // class repeating the declaration composes with the trait.
            zend::declare_typed_property(
                ce,
                AUTHORIZER_PROP,
                MethodFlags::Private.bits(),
                zend::class_type(AUTHORIZER_NAME, true),
                Some(Zval::null()),
            );
            zend::pad_trait_methods(ce);
            CORE_TRAIT.set(ce);
        })
        .register()
}
