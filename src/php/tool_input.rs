//! `PhpClaw\Tools\ToolInput`: the agent's argument tidying and tool-result cap as two static
//! methods, so phpClaw's agent (or any caller) runs them natively. Values that do not change
//! come back as the same zvals; an untouched argument list or result is returned as is.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::ExecuteData;

use super::routing_support::{self as rs, double_zval, long_zval};
use super::zend::{self, ClassSlot, Frame, Key};
use crate::core::routing::result_cap::{cap_result_bytes, DEFAULT_MAX_TOOL_RESULT_TOKENS};
use crate::core::routing::tidy::{
    parse_numeric, tidy_argument, ArgValue, Number, NumericKind, PropertySpec, Tidied,
};

pub static TOOL_INPUT: ClassSlot = ClassSlot::new();

/// Fully qualified class name.
pub const TOOL_INPUT_NAME: &str = "PhpClaw\\Tools\\ToolInput";

fn arg_value(zv: &Zval) -> ArgValue<'_> {
    if zv.is_null() {
        ArgValue::Null
    } else if let Some(s) = zv.zend_str() {
        ArgValue::Str(s.as_bytes())
    } else if let Some(i) = zv.long() {
        ArgValue::Int(i)
    } else if let Some(d) = zv.double() {
        ArgValue::Float(d)
    } else if let Some(b) = zv.bool() {
        ArgValue::Bool(b)
    } else {
        ArgValue::Other
    }
}

/// A bound PHP compares as a number: an int, a float or a numeric string.
fn bound(zv: Option<&Zval>) -> Option<Number> {
    let zv = zv?;
    if let Some(i) = zv.long() {
        return Some(Number::Int(i));
    }
    if let Some(d) = zv.double() {
        return Some(Number::Float(d));
    }
    zv.zend_str().and_then(|s| parse_numeric(s.as_bytes()))
}

/// Whether `key` is listed in `required` (strict comparison: int keys match ints, string
/// keys match strings).
fn is_required(key: Key<'_>, required: Option<&Zval>) -> bool {
    let Some(required) = required.filter(|r| !r.is_null()) else {
        return false;
    };
    let matches = |v: &Zval| match key {
        Key::Int(i) => v.long() == Some(i),
        Key::Str(s) => v.zend_str().is_some_and(|z| z.as_bytes() == s),
    };
    match required.array() {
        Some(list) => {
            let mut found = false;
            zend::for_each_entry(list, |_, v| {
                found = matches(v);
                !found
            });
            found
        }
        // `(array) $scalar` is a one-element list.
        None => matches(required),
    }
}

/// What `enum` holds of the two wildcards.
fn enum_wildcards(spec: &ZendHashTable) -> (bool, bool) {
    let Some(e) = zend::get(spec, "enum").filter(|e| !e.is_null()) else {
        return (false, false);
    };
    let is = |v: &Zval, w: &[u8]| v.zend_str().is_some_and(|s| s.as_bytes() == w);
    match e.array() {
        Some(list) => {
            let (mut star, mut pct) = (false, false);
            zend::for_each_entry(list, |_, v| {
                star |= is(v, b"*");
                pct |= is(v, b"%");
                true
            });
            (star, pct)
        }
        None => (is(e, b"*"), is(e, b"%")),
    }
}

fn property_spec(key: Key<'_>, spec: &ZendHashTable, required: Option<&Zval>) -> PropertySpec {
    let (enum_has_star, enum_has_percent) = enum_wildcards(spec);
    let ty = zend::get(spec, "type").and_then(|t| t.zend_str().map(|s| s.as_bytes()));
    PropertySpec {
        required: is_required(key, required),
        kind: NumericKind::from_type(ty),
        enum_has_star,
        enum_has_percent,
        minimum: bound(zend::get(spec, "minimum")),
        maximum: bound(zend::get(spec, "maximum")),
    }
}

extern "C" fn tidy(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(arguments) = f.array(0) else { return };
    let Some(schema) = f.array(1).and_then(Zval::array) else {
        return;
    };
    let Some(args) = arguments.array() else {
        return;
    };
    let properties = zend::get(schema, "properties").and_then(Zval::array);
    let required = zend::get(schema, "required");
    let Some(properties) = properties else {
        *rv = zend::share(arguments);
        return;
    };
    let mut plan: Vec<(Key<'_>, &Zval, Tidied, Option<&ZendHashTable>)> =
        Vec::with_capacity(args.len());
    let mut changed = false;
    zend::for_each_entry(args, |key, value| {
        let spec = rs::get_key(properties, key).and_then(Zval::array);
        let outcome = match spec {
            Some(spec) => tidy_argument(&arg_value(value), &property_spec(key, spec, required)),
            None => Tidied::Keep,
        };
        changed |= outcome != Tidied::Keep;
        plan.push((key, value, outcome, spec));
        true
    });
    if !changed {
        *rv = zend::share(arguments);
        return;
    }
    *rv = zend::build_array(plan.len() as u32, |out| {
        for (key, value, outcome, spec) in plan {
            let bound_of = |name: &str| {
                spec.and_then(|s| zend::get(s, name))
                    .map_or_else(Zval::null, zend::share)
            };
            let v = match outcome {
                Tidied::Keep => zend::share(value),
                Tidied::Drop => continue,
                Tidied::Int(i) => long_zval(i),
                Tidied::Float(d) => double_zval(d),
                Tidied::Minimum => bound_of("minimum"),
                Tidied::Maximum => bound_of("maximum"),
            };
            zend::set(out, key, v);
        }
    });
}

extern "C" fn cap_result(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 2) {
        return;
    }
    let max_tokens = match f.arg(1) {
        None => DEFAULT_MAX_TOOL_RESULT_TOKENS,
        Some(_) => match f.long(1) {
            Some(v) => v,
            None => return,
        },
    };
    let Some(arg) = f.arg(0) else { return };
    if let Some(s) = arg.zend_str() {
        *rv = match cap_result_bytes(s.as_bytes(), max_tokens) {
            std::borrow::Cow::Borrowed(_) => zend::share(arg),
            std::borrow::Cow::Owned(bytes) => zend::bytes_zval(&bytes),
        };
        return;
    }
    let Some(bytes) = f.string(0) else { return };
    *rv = zend::bytes_zval(&cap_result_bytes(&bytes, max_tokens));
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let static_public = MethodFlags::Public | MethodFlags::Static;
    ClassBuilder::new(TOOL_INPUT_NAME)
        .flags(ClassFlags::Final)
        .constant(
            "DEFAULT_MAX_RESULT_TOKENS",
            DEFAULT_MAX_TOOL_RESULT_TOKENS,
            &[],
            ConstantFlags::Public,
        )?
        .method(
            FunctionBuilder::new("tidy", tidy)
                .arg(Arg::new("arguments", DataType::Array))
                .arg(Arg::new("inputSchema", DataType::Array))
                .returns(DataType::Array, false, false),
            static_public,
        )
        .method(
            FunctionBuilder::new("capResult", cap_result)
                .arg(Arg::new("result", DataType::String))
                .arg(Arg::new("maxTokens", DataType::Long).default("2500"))
                .required_args(1)
                .returns(DataType::String, false, false),
            static_public,
        )
        .registration(|ce, _| TOOL_INPUT.set(ce))
        .register()
}
