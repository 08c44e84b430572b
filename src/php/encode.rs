//! Envelope encoding for the lifecycle traits: `json_encode(..., JSON_UNESCAPED_UNICODE |
//! JSON_UNESCAPED_SLASHES)` byte for byte, with html_entity_decode over every string value for
//! the contract binding. A failure becomes `ToolException('Unable to encode tool response.')`
//! whose previous is a `\JsonException`.

use ext_php_rs::types::Zval;

use super::exceptions::throw_tool_exception;
use super::zend::{self, Thrown};
use crate::core::lifecycle::messages;

/// Which binding's encoding rule applies.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// Adapter tools: entities decoded in every string value.
    Contract,
    /// Core tools: verbatim.
    Core,
}

const JSON_FLAGS: i64 = 64 /* UNESCAPED_SLASHES */ | 256 /* UNESCAPED_UNICODE */ | 4_194_304 /* THROW_ON_ERROR */;

/// Encode an envelope; None when an exception is pending.
pub fn envelope(result: &Zval, binding: Binding) -> Option<Zval> {
    let value = match binding {
        Binding::Contract => decode_entities_deep(result),
        Binding::Core => zend::share(result),
    };
    let mut flags = Zval::new();
    flags.set_long(JSON_FLAGS);
    match zend::call_function("json_encode", &mut [value, flags]) {
        Ok(v) => Some(v),
        Err(_) => {
            let previous = Thrown::take();
            throw_tool_exception(messages::ENCODE_FAILED, previous);
            None
        }
    }
}

/// html_entity_decode(ENT_QUOTES | ENT_HTML5, 'UTF-8') over every string value, keys kept.
pub fn decode_entities_deep(value: &Zval) -> Zval {
    if value.is_string() {
        let mut flags = Zval::new();
        flags.set_long(3 | 48);
        return zend::call_function(
            "html_entity_decode",
            &mut [zend::share(value), flags, zend::str_zval("UTF-8")],
        )
        .unwrap_or_else(|_| zend::share(value));
    }
    if let Some(ht) = value.array() {
        return zend::build_array(ht.len() as u32, |out| {
            zend::for_each_entry(ht, |key, v| {
                zend::set(out, key, decode_entities_deep(v));
                true
            });
        });
    }
    zend::share(value)
}
