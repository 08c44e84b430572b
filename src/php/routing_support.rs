//! Small engine helpers the router, profile and tool-input bindings share: PHP's string
//! conversion of scalars, byte-exact array lookups, float arguments, typed private
//! properties, and throwing TypeError / ValueError with a message.

use std::ptr;

use ext_php_rs::ffi;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::ClassEntry;

use super::zend::{self, Frame, Key};

pub use super::zend::{MAY_BE_DOUBLE, MAY_BE_LONG};
/// `ZEND_ACC_PRIVATE`.
pub const ACC_PRIVATE: u32 = 1 << 2;

/// PHP's `(string)` of a scalar, as `implode()` and a string cast give it; arrays give
/// `Array` (PHP also warns), objects and null give nothing.
pub fn scalar_bytes(zv: &Zval) -> Vec<u8> {
    let zv = zv.dereference();
    if let Some(s) = zv.zend_str() {
        return s.as_bytes().to_vec();
    }
    if let Some(i) = zv.long() {
        return i.to_string().into_bytes();
    }
    if let Some(d) = zv.double() {
        return float_bytes(d);
    }
    if let Some(b) = zv.bool() {
        return if b { b"1".to_vec() } else { Vec::new() };
    }
    if zv.is_array() {
        return b"Array".to_vec();
    }
    Vec::new()
}

/// PHP 8's string form of a float (shortest round-trip digits).
fn float_bytes(d: f64) -> Vec<u8> {
    if d.is_nan() {
        return b"NAN".to_vec();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            b"INF".to_vec()
        } else {
            b"-INF".to_vec()
        };
    }
    let mut out = Vec::new();
    // Finite floats always encode; the JSON form differs from PHP's only in the exponent's case.
    let _ = crate::core::json::write_float(&mut out, d);
    out.iter().map(|b| b.to_ascii_uppercase()).collect()
}

/// A scalar as text for the core (tool names and metadata are text; invalid UTF-8 is replaced).
pub fn scalar_string(zv: &Zval) -> String {
    match String::from_utf8(scalar_bytes(zv)) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Look up a key given as bytes the way PHP's `$array[$key]` does (canonical integer strings
/// are integer keys).
pub use super::zend::get_bytes;

/// Look up an exact key (as `for_each_entry` reports it).
pub fn get_key<'a>(ht: &'a ZendHashTable, key: Key<'_>) -> Option<&'a Zval> {
    let raw: *const ffi::HashTable = ptr::from_ref(ht).cast();
    // SAFETY: a live array; the engine returns a pointer into its storage or null.
    let found = unsafe {
        match key {
            Key::Int(i) => ffi::zend_hash_index_find(raw, i as u64),
            Key::Str(s) => ffi::zend_hash_str_find(raw, s.as_ptr().cast(), s.len()),
        }
    };
    // SAFETY: a non-null result points at a live zval of the array.
    let zv = unsafe { found.cast::<Zval>().as_ref() }?;
    let zv = if zv.is_indirect() { zv.indirect()? } else { zv };
    let zv = zv.dereference();
    (zv.get_type() != ext_php_rs::flags::DataType::Undef).then_some(zv)
}

/// Argument `n` that must be a float (ints widen; weak mode also takes numeric strings and
/// bools), or a pending TypeError.
pub fn float_arg(f: &Frame<'_>, n: usize) -> Option<f64> {
    let zv = f.arg(n)?;
    if let Some(d) = zv.double() {
        return Some(d);
    }
    if let Some(i) = zv.long() {
        return Some(i as f64);
    }
    if !f.strict() {
        if let Some(b) = zv.bool() {
            return Some(if b { 1.0 } else { 0.0 });
        }
        if let Some(s) = zv.zend_str() {
            match crate::core::routing::tidy::parse_numeric(s.as_bytes()) {
                Some(crate::core::routing::tidy::Number::Int(i)) => return Some(i as f64),
                Some(crate::core::routing::tidy::Number::Float(d)) => return Some(d),
                None => {}
            }
        }
    }
    zend::type_error(n, "float", zv);
    None
}

/// Argument `n` that must be a string or null (weak mode coerces scalars).
pub fn nullable_string_arg(f: &Frame<'_>, n: usize) -> Option<Option<Vec<u8>>> {
    match f.arg(n) {
        None => Some(None),
        Some(zv) if zv.is_null() => Some(None),
        Some(zv) if zv.is_array() || zv.is_object() => {
            zend::type_error(n, "?string", zv);
            None
        }
        Some(_) => f.string(n).map(Some),
    }
}

/// Argument `n` that must be an int or null.
pub fn nullable_long_arg(f: &Frame<'_>, n: usize) -> Option<Option<i64>> {
    match f.arg(n) {
        None => Some(None),
        Some(zv) if zv.is_null() => Some(None),
        Some(_) => f.long(n).map(Some),
    }
}

fn throw_class(ce: *mut ffi::zend_class_entry, message: &str) {
    // SAFETY: engine class entries set at startup.
    if let Some(ce) = unsafe { ce.cast::<ClassEntry>().as_ref() } {
        zend::throw_new(ce, message, 0, None);
    }
}

/// Throw PHP's `TypeError` with a message.
pub fn throw_type_error(message: &str) {
    // SAFETY: reading an engine global set at startup.
    throw_class(unsafe { ffi::zend_ce_type_error }, message);
}

/// Throw PHP's `ValueError` with a message.
pub fn throw_value_error(message: &str) {
    // SAFETY: reading an engine global set at startup.
    throw_class(unsafe { ffi::zend_ce_value_error }, message);
}

/// PHP's name for a value's type in error messages (`string`, `int`, `array`, a class name...).
pub fn type_name(zv: &Zval) -> String {
    let zv = zv.dereference();
    if zv.is_null() {
        "null".into()
    } else if zv.is_bool() {
        "bool".into()
    } else if zv.is_long() {
        "int".into()
    } else if zv.is_double() {
        "float".into()
    } else if zv.is_string() {
        "string".into()
    } else if zv.is_array() {
        "array".into()
    } else if let Some(o) = zv.object() {
        o.get_class_name().unwrap_or_else(|_| "object".into())
    } else {
        "mixed".into()
    }
}

/// A list (packed array) holding the given values.
pub fn list(values: Vec<Zval>) -> Zval {
    zend::build_array(values.len() as u32, |ht| {
        for v in values {
            zend::push(ht, v);
        }
    })
}

/// A list of strings.
pub fn string_list<S: AsRef<str>>(items: &[S]) -> Zval {
    list(items.iter().map(|s| zend::str_zval(s.as_ref())).collect())
}

/// An int zval.
pub fn long_zval(i: i64) -> Zval {
    let mut zv = Zval::new();
    zv.set_long(i);
    zv
}

/// A bool zval.
pub fn bool_zval(b: bool) -> Zval {
    let mut zv = Zval::new();
    zv.set_bool(b);
    zv
}

/// A float zval.
pub fn double_zval(d: f64) -> Zval {
    let mut zv = Zval::new();
    zv.set_double(d);
    zv
}
