//! Conversion between PHP values and the core's [`Value`], both ways, bounded in depth and
//! without a panic on any input.
//!
//! Choices:
//! - strings stay bytes; int and string keys are kept exactly as PHP stored them; floats are
//!   carried as floats; references are read through;
//! - objects and resources have no `Value`: [`to_value`] refuses them with
//!   [`Unconvertible::Object`], naming the class, and the caller decides (a native tool refuses
//!   the input with a ToolException, or reads the one key it needs with PHP's own string
//!   conversion, as the reference's `(string)` cast would);
//! - nesting deeper than [`MAX_DEPTH`] (json_encode's own limit, which also stops a recursive
//!   array) is refused with [`Unconvertible::TooDeep`]; [`to_zval`] writes `null` past it.

use ext_php_rs::types::Zval;

use super::zend::{self, Key};
use crate::core::value::{Array, Key as VKey, Value};

/// Deepest array nesting converted (PHP's default `json_encode` depth).
pub const MAX_DEPTH: usize = 512;

/// Why a zval has no core [`Value`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unconvertible {
    /// An object (its class name), or a resource (`"resource"`).
    Object(String),
    /// Arrays nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// A PHP value as a core [`Value`].
pub fn to_value(zv: &Zval) -> Result<Value, Unconvertible> {
    value_at(zv, 0)
}

fn value_at(zv: &Zval, depth: usize) -> Result<Value, Unconvertible> {
    let zv = zv.dereference();
    if let Some(s) = zv.zend_str() {
        return Ok(Value::Str(s.as_bytes().to_vec()));
    }
    if let Some(i) = zv.long() {
        return Ok(Value::Int(i));
    }
    if zv.is_double() {
        return Ok(Value::Float(zv.double().unwrap_or(0.0)));
    }
    if let Some(b) = zv.bool() {
        return Ok(Value::Bool(b));
    }
    if zv.is_null() {
        return Ok(Value::Null);
    }
    if let Some(ht) = zv.array() {
        if depth >= MAX_DEPTH {
            return Err(Unconvertible::TooDeep);
        }
        let mut out = Array::with_capacity(ht.len());
        let mut failure = None;
        zend::for_each_entry(ht, |key, v| match value_at(v, depth + 1) {
            Ok(v) => {
                match key {
                    Key::Int(i) => out.insert(VKey::Int(i), v),
                    Key::Str(s) => out.insert(VKey::from(s.to_vec()), v),
                };
                true
            }
            Err(e) => {
                failure = Some(e);
                false
            }
        });
        return match failure {
            Some(e) => Err(e),
            None => Ok(Value::Array(out)),
        };
    }
    Err(Unconvertible::Object(
        zv.object()
            .and_then(|o| o.get_class_name().ok())
            .unwrap_or_else(|| "resource".to_string()),
    ))
}

/// A core [`Value`] as a new PHP value.
pub fn to_zval(value: &Value) -> Zval {
    zval_at(value, 0)
}

fn zval_at(value: &Value, depth: usize) -> Zval {
    let mut zv = Zval::new();
    match value {
        Value::Null => zv.set_null(),
        Value::Bool(b) => zv.set_bool(*b),
        Value::Int(i) => zv.set_long(*i),
        Value::Float(f) => zv.set_double(*f),
        Value::Str(s) => return zend::bytes_zval(s),
        Value::Array(a) if depth < MAX_DEPTH => {
            return zend::build_array(u32::try_from(a.len()).unwrap_or(u32::MAX), |ht| {
                for (k, v) in a.iter() {
                    let key = match k {
                        VKey::Int(i) => Key::Int(*i),
                        VKey::Str(s) => Key::Str(s),
                    };
                    zend::set(ht, key, zval_at(v, depth + 1));
                }
            });
        }
        Value::Array(_) => zv.set_null(),
    }
    zv
}
