//! `PhpClaw\Tools\HttpTool`, native: constructor `(int $maxResponseBytes = 8192, int
//! $timeoutSeconds = 10)`, constants, accessors, with every decision in `core::tools::http`.
//! The php.ini-only `phpclaw.test_allow_loopback=1` lets loopback through SSRF (tests).

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::super::ini;
use super::super::values;
use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::security::ssrf::UrlPolicy;
use crate::core::tools;
use crate::core::tools::http::{self as core, Http};
use crate::core::value::{Array, Value};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\HttpTool";

pub static HTTP: ClassSlot = ClassSlot::new();

const P_MAX: &str = "maxResponseBytes";
const P_TIMEOUT: &str = "timeoutSeconds";
use super::super::zend::MAY_BE_LONG;

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    HTTP.ptr()
}

fn read_long(this: &ZendObject, name: &str) -> Result<i64, Pending> {
    let v = zend::read_property(scope(), this, name);
    if zend::pending() {
        return Err(Pending);
    }
    Ok(v.and_then(|v| v.long()).unwrap_or(0))
}

/// One input value as the tool's `(string)` casts see it: scalars and null as they are,
/// arrays and objects through PHP's own string conversion (warning, __toString or Error).
pub(super) fn scalar(v: &Zval) -> Result<Value, Pending> {
    if v.object().is_some() || v.is_array() {
        let s = zend::call_function("strval", &mut [zend::share(v)])?;
        return Ok(Value::Str(
            s.zend_str()
                .map(|s| s.as_bytes().to_vec())
                .unwrap_or_default(),
        ));
    }
    Ok(values::to_value(v).unwrap_or(Value::Null))
}

fn input_value(ht: &ZendHashTable) -> Result<Value, Pending> {
    let mut out = Array::with_capacity(4);
    for key in core::INPUT_KEYS {
        let Some(v) = zend::get(ht, key) else {
            continue;
        };
        let value = if key == "headers" {
            match v.array() {
                Some(h) => {
                    let mut items: Vec<(crate::core::value::Key, Zval)> = Vec::new();
                    zend::for_each_entry(h, |k, v| {
                        let key = match k {
                            zend::Key::Int(n) => crate::core::value::Key::Int(n),
                            zend::Key::Str(s) => crate::core::value::Key::Str(s.to_vec()),
                        };
                        items.push((key, zend::share(v)));
                        true
                    });
                    let mut a = Array::with_capacity(items.len());
                    for (k, v) in items {
                        a.insert(k, scalar(&v)?);
                    }
                    Value::Array(a)
                }
                None => Value::Null,
            }
        } else {
            scalar(v)?
        };
        out.insert(key, value);
    }
    Ok(Value::Array(out))
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 2) {
        return;
    }
    let Some(this) = f.this() else { return };
    let mut vals = [
        core::DEFAULT_MAX_RESPONSE_BYTES,
        core::DEFAULT_TIMEOUT_SECONDS,
    ];
    for (i, slot) in vals.iter_mut().enumerate() {
        if f.arg(i).is_some() {
            match f.long(i) {
                Some(n) => *slot = n,
                None => return,
            }
        }
    }
    for (name, n) in [P_MAX, P_TIMEOUT].into_iter().zip(vals) {
        let mut zv = Zval::new();
        zv.set_long(n);
        zend::write_property(scope(), this, name, &mut zv);
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
    let policy = UrlPolicy {
        allow_loopback_for_tests: ini::allow_loopback(),
        ..UrlPolicy::HTTP_TOOL
    };
    let mut tool = Http::new(policy);
    let (Ok(max), Ok(timeout)) = (read_long(this, P_MAX), read_long(this, P_TIMEOUT)) else {
        return;
    };
    tool.max_response_bytes = max;
    tool.timeout_seconds = timeout;
    let Ok(auth) = authorizer_of(scope(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, core::FORBIDDEN_SUBJECT, rv) {
        return;
    }
    let Ok(value) = input_value(ht) else { return };
    super::respond(tools::run_steps(&mut tool, &mut host, &value), rv);
}

crate::php::tools::identity_handlers!();

fn getter_of(ex: &mut ExecuteData, rv: &mut Zval, prop: &str) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(n) = read_long(this, prop) {
        rv.set_long(n);
    }
}

extern "C" fn max_response_bytes(ex: &mut ExecuteData, rv: &mut Zval) {
    getter_of(ex, rv, P_MAX);
}

extern "C" fn timeout_seconds(ex: &mut ExecuteData, rv: &mut Zval) {
    getter_of(ex, rv, P_TIMEOUT);
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

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(
            Arg::new("maxResponseBytes", DataType::Long)
                .default("self::DEFAULT_MAX_RESPONSE_BYTES"),
        )
        .arg(Arg::new("timeoutSeconds", DataType::Long).default("self::DEFAULT_TIMEOUT_SECONDS"))
        .required_args(0);
    let mut b = with_identity(tool_class(NAME, Extras::default(), true))
        .constant(
            "DEFAULT_MAX_RESPONSE_BYTES",
            core::DEFAULT_MAX_RESPONSE_BYTES,
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "DEFAULT_TIMEOUT_SECONDS",
            core::DEFAULT_TIMEOUT_SECONDS,
            &[],
            ConstantFlags::Public,
        )?
        .method(ctor, MethodFlags::Public);
    for (func, flags) in [
        getter("maxResponseBytes", max_response_bytes, DataType::Long),
        getter("timeoutSeconds", timeout_seconds, DataType::Long),
    ] {
        b = b.method(func, flags);
    }
    b.registration(|ce, _| {
        super::declare_private(ce, P_MAX, MAY_BE_LONG);
        super::declare_private(ce, P_TIMEOUT, MAY_BE_LONG);
        super::declare_authorizer(ce);
        HTTP.set(ce);
    })
    .register()
}
