//! Envelope encoding for the lifecycle traits: `json_encode(..., JSON_UNESCAPED_UNICODE |
//! JSON_UNESCAPED_SLASHES)` byte for byte, with html_entity_decode over every string value for
//! the contract binding. A failure becomes `ToolException('Unable to encode tool response.')`
//! whose previous is PHP's own `\JsonException`.
//!
//! The core encoder reads the PHP array in place. When it cannot finish (an object in the
//! payload, or an error), PHP's `json_encode` runs instead, so objects (JsonSerializable,
//! stdClass) and every error code come out exactly as PHP gives them.

use ext_php_rs::types::Zval;

use super::exceptions::throw_tool_exception;
use super::json_view::ZvalView;
use super::zend::{self, Thrown};
use crate::core::json::{self, EncodeOptions};
use crate::core::{entities, lifecycle::messages};

/// Which binding's encoding rule applies.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// Adapter tools: entities decoded in every string value.
    Contract,
    /// Core tools: verbatim.
    Core,
}

/// `JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR`.
const JSON_FLAGS: i64 = 64 | 256 | 4_194_304;

/// Encode an envelope; None when an exception is pending.
pub fn envelope(result: &Zval, binding: Binding) -> Option<Zval> {
    let opts = match binding {
        Binding::Contract => EncodeOptions::contract(),
        Binding::Core => EncodeOptions::default(),
    };
    let mut out = Vec::with_capacity(256);
    if json::encode(ZvalView::new(result), opts, &mut out).is_ok() {
        return Some(zend::bytes_zval(&out));
    }
    let value = match binding {
        Binding::Contract => decode_entities_deep(result),
        Binding::Core => zend::share(result),
    };
    let mut flags = Zval::new();
    flags.set_long(JSON_FLAGS);
    match zend::call_function("json_encode", &mut [value, flags]) {
        Ok(v) => Some(v),
        Err(_) => {
            // Only json_encode's own failure is wrapped; anything else (an exception thrown by
            // a jsonSerialize()) passes through unchanged, as phpClaw catches \JsonException only.
            let thrown = Thrown::take_pending();
            if thrown.is(zend::json_exception_ce()) {
                throw_tool_exception(messages::ENCODE_FAILED, Some(thrown));
            } else {
                thrown.rethrow();
            }
            None
        }
    }
}

/// How deep decoding descends: past json_encode's own limit of 512 the encode fails anyway,
/// and a recursive array (one holding a reference to itself) must not exhaust the stack.
const MAX_DECODE_DEPTH: usize = 1024;

/// html_entity_decode(ENT_QUOTES | ENT_HTML5, 'UTF-8') over every string value, keys kept.
pub fn decode_entities_deep(value: &Zval) -> Zval {
    decode_at(value, 0)
}

fn decode_at(value: &Zval, depth: usize) -> Zval {
    if let Some(s) = value.zend_str() {
        return match entities::decode(s.as_bytes()) {
            std::borrow::Cow::Borrowed(_) => zend::share(value),
            std::borrow::Cow::Owned(bytes) => zend::bytes_zval(&bytes),
        };
    }
    if let Some(ht) = value.array().filter(|_| depth < MAX_DECODE_DEPTH) {
        return zend::build_array(ht.len() as u32, |out| {
            zend::for_each_entry(ht, |key, v| {
                zend::set(out, key, decode_at(v, depth + 1));
                true
            });
        });
    }
    zend::share(value)
}
