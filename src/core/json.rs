//! Byte-exact `json_encode($v, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE |
//! JSON_UNESCAPED_SLASHES)` of PHP 8.2, generic over a borrowed view of the value so the PHP
//! bindings can encode a zval in place and core code can encode a [`Value`].
//!
//! Rules (php-src `ext/json/json_encoder.c`, every one checked with the `php` CLI):
//! - an array whose keys are exactly `0..n` in order is a JSON list (`[]` when empty);
//!   any other array is an object, integer keys written as strings;
//! - strings must be valid UTF-8 (keys too), else [`EncodeError::Utf8`]; escaped are `"`,
//!   `\`, `\b \f \n \r \t`, other bytes below 0x20 as `\u00xx` (lower-case hex), and
//!   U+2028 / U+2029; `/`, DEL and all other non-ASCII text are written as is;
//! - floats use serialize_precision = -1 (shortest round-trip digits) with PHP's layout:
//!   plain notation for decimal exponents -4..=16, else `d.ddde+N` (`1.0e+25`, `5.0e-324`),
//!   no `.0` on integral floats, `-0` for negative zero; NaN and ±Inf fail with
//!   [`EncodeError::InfOrNan`];
//! - depth: every array counts one level; an array deeper than 512 fails with
//!   [`EncodeError::Depth`], raised when that array is closed, so an error met earlier
//!   inside it (bad UTF-8, NaN) wins, as in PHP;
//! - on error the output buffer is restored to its length before the call.
//!
//! With [`EncodeOptions::decode_entities`], string values (not keys) are first passed
//! through [`crate::core::entities::decode`], one string at a time, as phpClaw's contract
//! binding does with `html_entity_decode` before encoding.

use crate::core::entities;
use crate::core::value::{Array, Value};

pub use crate::core::value::KeyRef;

/// PHP's default `json_encode` depth.
pub const DEFAULT_MAX_DEPTH: usize = 512;

/// How far past the depth limit the encoder keeps walking (its output is then discarded) to
/// find which error PHP would report first. Deeper than this, the depth error is reported
/// at once: this keeps the recursion, and so the stack, bounded on any input.
pub const SCAN_PAST_LIMIT: usize = 512;

/// One PHP value as the encoder sees it; `A` is the array type of the view.
#[derive(Debug)]
pub enum View<'a, A: ?Sized> {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An `int`.
    Int(i64),
    /// A `float`.
    Float(f64),
    /// A string's bytes.
    Str(&'a [u8]),
    /// An array.
    Array(&'a A),
    /// Anything else (objects, resources, ...): the caller falls back to PHP's encoder.
    Object,
}

/// The per-element callback [`ArrayView::try_for_each`] receives.
pub type ElementFn<'f, T> = dyn FnMut(KeyRef<'_>, &T) -> Result<(), EncodeError> + 'f;

/// An array as the encoder sees it.
pub trait ArrayView {
    /// The element type.
    type Item: ValueView + ?Sized;
    /// Number of elements (used to reserve output space).
    fn len(&self) -> usize;
    /// `true` for no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Keys are exactly `0..len` in order (PHP's `zend_array_is_list`): encoded as `[...]`.
    fn is_list(&self) -> bool;
    /// Calls `f` on each element in order, stopping at the first error.
    fn try_for_each(&self, f: &mut ElementFn<'_, Self::Item>) -> Result<(), EncodeError>;
}

/// A value the encoder can read without copying it.
pub trait ValueView {
    /// The array type this value's arrays are.
    type Array: ArrayView<Item = Self> + ?Sized;
    /// The value as the encoder sees it.
    fn view(&self) -> View<'_, Self::Array>;
}

/// Why encoding failed, with PHP's `json_last_error()` code and message so the bindings can
/// throw the same `\JsonException`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// `JSON_ERROR_DEPTH`.
    #[error("Maximum stack depth exceeded")]
    Depth,
    /// `JSON_ERROR_UTF8`.
    #[error("Malformed UTF-8 characters, possibly incorrectly encoded")]
    Utf8,
    /// `JSON_ERROR_INF_OR_NAN`.
    #[error("Inf and NaN cannot be JSON encoded")]
    InfOrNan,
    /// The view met a value this encoder does not model (an object): let PHP encode it.
    #[error("Type is not supported")]
    Unsupported,
}

impl EncodeError {
    /// PHP's `JSON_ERROR_*` code (`Unsupported` maps to `JSON_ERROR_UNSUPPORTED_TYPE`, 8).
    pub fn code(self) -> i64 {
        match self {
            EncodeError::Depth => 1,
            EncodeError::Utf8 => 5,
            EncodeError::InfOrNan => 7,
            EncodeError::Unsupported => 8,
        }
    }

    /// PHP's `json_last_error_msg()` text.
    pub fn message(self) -> &'static str {
        match self {
            EncodeError::Depth => "Maximum stack depth exceeded",
            EncodeError::Utf8 => "Malformed UTF-8 characters, possibly incorrectly encoded",
            EncodeError::InfOrNan => "Inf and NaN cannot be JSON encoded",
            EncodeError::Unsupported => "Type is not supported",
        }
    }
}

/// Encoder options; the flags phpClaw always passes are implied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeOptions {
    /// Decode HTML entities in string values (not keys) first, as the contract binding does.
    pub decode_entities: bool,
    /// `json_encode`'s `$depth` argument.
    pub max_depth: usize,
}

impl Default for EncodeOptions {
    fn default() -> EncodeOptions {
        EncodeOptions {
            decode_entities: false,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

impl EncodeOptions {
    /// The contract binding's options: entities decoded, default depth.
    pub fn contract() -> EncodeOptions {
        EncodeOptions {
            decode_entities: true,
            ..EncodeOptions::default()
        }
    }
}

/// Appends the JSON for `v` to `out`; on error `out` is left as it was.
pub fn encode<V: ValueView + ?Sized>(
    v: &V,
    opts: EncodeOptions,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let start = out.len();
    let mut enc = Encoder {
        opts,
        out,
        depth: 0,
    };
    let r = enc.value(v);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// Convenience: encodes into a new buffer.
pub fn to_vec<V: ValueView + ?Sized>(v: &V, opts: EncodeOptions) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode(v, opts, &mut out)?;
    Ok(out)
}

struct Encoder<'o> {
    opts: EncodeOptions,
    out: &'o mut Vec<u8>,
    depth: usize,
}

impl Encoder<'_> {
    fn value<V: ValueView + ?Sized>(&mut self, v: &V) -> Result<(), EncodeError> {
        match v.view() {
            View::Null => self.out.extend_from_slice(b"null"),
            View::Bool(true) => self.out.extend_from_slice(b"true"),
            View::Bool(false) => self.out.extend_from_slice(b"false"),
            View::Int(i) => write_int(self.out, i),
            View::Float(f) => write_float(self.out, f)?,
            View::Str(s) => {
                if self.opts.decode_entities {
                    let d = entities::decode(s);
                    write_str(self.out, &d)?;
                } else {
                    write_str(self.out, s)?;
                }
            }
            View::Array(a) => self.array(a)?,
            View::Object => return Err(EncodeError::Unsupported),
        }
        Ok(())
    }

    fn array<A: ArrayView + ?Sized>(&mut self, a: &A) -> Result<(), EncodeError> {
        if self.depth >= self.opts.max_depth.saturating_add(SCAN_PAST_LIMIT) {
            return Err(EncodeError::Depth);
        }
        let list = a.is_list();
        let n = a.len();
        self.out.reserve(n.saturating_mul(4).saturating_add(2));
        self.out.push(if list { b'[' } else { b'{' });
        self.depth += 1;
        let mut first = true;
        a.try_for_each(&mut |k, item| {
            if !first {
                self.out.push(b',');
            }
            first = false;
            if !list {
                match k {
                    KeyRef::Int(i) => {
                        self.out.push(b'"');
                        write_int(self.out, i);
                        self.out.push(b'"');
                    }
                    KeyRef::Str(s) => write_str(self.out, s)?,
                }
                self.out.push(b':');
            }
            self.value(item)
        })?;
        if self.depth > self.opts.max_depth {
            return Err(EncodeError::Depth);
        }
        self.depth -= 1;
        self.out.push(if list { b']' } else { b'}' });
        Ok(())
    }
}

/// ASCII bytes that must be escaped (1) or copied (0). Non-ASCII bytes are handled by
/// [`write_str`] itself (validation, U+2028/U+2029).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = 1;
        i += 1;
    }
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t
};

/// Short escapes PHP uses instead of `\u00xx`.
const SHORT_ESCAPES: &[(u8, &[u8])] = &[
    (b'"', b"\\\""),
    (b'\\', b"\\\\"),
    (0x08, b"\\b"),
    (0x0C, b"\\f"),
    (b'\n', b"\\n"),
    (b'\r', b"\\r"),
    (b'\t', b"\\t"),
];

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Writes `s` as a JSON string, or fails on invalid UTF-8 (then `out` is left as it was).
/// One pass: runs of plain ASCII are found eight bytes at a time and copied whole; each
/// non-ASCII character is validated where it stands (same rules as PHP and `std::str`).
pub fn write_str(out: &mut Vec<u8>, s: &[u8]) -> Result<(), EncodeError> {
    let start = out.len();
    out.reserve(s.len() + 2);
    out.push(b'"');
    let mut run_start = 0;
    let mut i = 0;
    loop {
        i = skip_plain(s, i);
        let Some(&b) = s.get(i) else {
            break;
        };
        if b >= 0x80 {
            let Some(len) = utf8_char_len(s, i) else {
                out.truncate(start);
                return Err(EncodeError::Utf8);
            };
            // U+2028 / U+2029 are E2 80 A8 / E2 80 A9.
            if b == 0xE2 && s.get(i + 1) == Some(&0x80) {
                let b2 = s.get(i + 2).copied().unwrap_or(0);
                if b2 == 0xA8 || b2 == 0xA9 {
                    out.extend_from_slice(s.get(run_start..i).unwrap_or_default());
                    out.extend_from_slice(if b2 == 0xA8 { b"\\u2028" } else { b"\\u2029" });
                    run_start = i + 3;
                }
            }
            i += len;
            continue;
        }
        out.extend_from_slice(s.get(run_start..i).unwrap_or_default());
        match SHORT_ESCAPES.iter().find(|(c, _)| *c == b) {
            Some((_, esc)) => out.extend_from_slice(esc),
            None => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xF)],
            ]),
        }
        i += 1;
        run_start = i;
    }
    out.extend_from_slice(s.get(run_start..).unwrap_or_default());
    out.push(b'"');
    Ok(())
}

/// Length of the well-formed UTF-8 character at `s[i]` (a non-ASCII lead byte), or `None`
/// for an invalid, overlong, surrogate or out-of-range sequence (Unicode table 3-7, which
/// PHP's `php_next_utf8_char` also follows).
#[inline]
fn utf8_char_len(s: &[u8], i: usize) -> Option<usize> {
    let at = |k: usize| s.get(i + k).copied().unwrap_or(0);
    let cont = |b: u8| (0x80..=0xBF).contains(&b);
    let (len, second_ok) = match at(0) {
        0xC2..=0xDF => (2, cont(at(1))),
        0xE0 => (3, (0xA0..=0xBF).contains(&at(1))),
        0xE1..=0xEC | 0xEE..=0xEF => (3, cont(at(1))),
        0xED => (3, (0x80..=0x9F).contains(&at(1))),
        0xF0 => (4, (0x90..=0xBF).contains(&at(1))),
        0xF1..=0xF3 => (4, cont(at(1))),
        0xF4 => (4, (0x80..=0x8F).contains(&at(1))),
        _ => return None,
    };
    if !second_ok || (len > 2 && !cont(at(2))) || (len > 3 && !cont(at(3))) {
        return None;
    }
    Some(len)
}

/// Index of the first byte at or after `i` that is not plain printable ASCII other than
/// `"` and `\\`, or `s.len()`. Eight bytes at a time: for each test the lowest flagged byte
/// is exact, so the first flagged byte of the OR is the first special byte.
#[inline]
fn skip_plain(s: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    while let Some(chunk) = s.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let special = (w & HIGHS)
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGHS)
            | zero_byte(w ^ (ONES * u64::from(b'"')))
            | zero_byte(w ^ (ONES * u64::from(b'\\')));
        if special != 0 {
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = s.get(i) {
        if b >= 0x80 || CLASS.get(usize::from(b)).copied().unwrap_or(0) != 0 {
            return i;
        }
        i += 1;
    }
    i
}

/// Writes a PHP int in decimal.
pub fn write_int(out: &mut Vec<u8>, i: i64) {
    let mut buf = [0u8; 20];
    let mut pos = buf.len();
    let mut n = i.unsigned_abs();
    loop {
        pos -= 1;
        if let Some(slot) = buf.get_mut(pos) {
            *slot = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || pos == 0 {
            break;
        }
    }
    if i < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(buf.get(pos..).unwrap_or_default());
}

/// Decimal exponents (position of the decimal point, PHP's `decpt`) written in plain
/// notation: `decpt` in `-3..=17` (php-src `zend_gcvt` with precision 17, mode 0).
const PLAIN_DECPT: std::ops::RangeInclusive<i32> = -3..=17;

/// Writes a float as PHP 8.2 `json_encode` does with serialize_precision = -1.
pub fn write_float(out: &mut Vec<u8>, f: f64) -> Result<(), EncodeError> {
    if !f.is_finite() {
        return Err(EncodeError::InfOrNan);
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as zend_dtoa mode 0 does.
    let mut w = StackBuf {
        buf: [0; 40],
        len: 0,
    };
    if std::fmt::Write::write_fmt(&mut w, format_args!("{:e}", f.abs())).is_err() {
        return Err(EncodeError::InfOrNan);
    }
    let text = w.buf.get(..w.len).unwrap_or_default();
    let e_pos = text.iter().position(|&c| c == b'e').unwrap_or(text.len());
    let mantissa = text.get(..e_pos).unwrap_or_default();
    let exp: i32 = std::str::from_utf8(text.get(e_pos + 1..).unwrap_or_default())
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut digits = [0u8; 24];
    let mut nd = 0;
    for &c in mantissa {
        if c.is_ascii_digit() {
            if let Some(slot) = digits.get_mut(nd) {
                *slot = c;
                nd += 1;
            }
        }
    }
    let digits = digits.get(..nd.max(1)).unwrap_or(b"0");
    let decpt = exp + 1;
    if f.is_sign_negative() {
        out.push(b'-');
    }
    if !PLAIN_DECPT.contains(&decpt) {
        // d.ddd e±X, with ".0" when there is a single digit.
        out.push(digits.first().copied().unwrap_or(b'0'));
        out.push(b'.');
        match digits.get(1..) {
            Some(rest) if !rest.is_empty() => out.extend_from_slice(rest),
            _ => out.push(b'0'),
        }
        out.push(b'e');
        let x = decpt - 1;
        out.push(if x < 0 { b'-' } else { b'+' });
        write_int(out, i64::from(x.unsigned_abs()));
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        for _ in 0..decpt.unsigned_abs() {
            out.push(b'0');
        }
        out.extend_from_slice(digits);
    } else {
        let int_len = usize::try_from(decpt).unwrap_or(0);
        if digits.len() <= int_len {
            out.extend_from_slice(digits);
            for _ in digits.len()..int_len {
                out.push(b'0');
            }
        } else {
            out.extend_from_slice(digits.get(..int_len).unwrap_or_default());
            out.push(b'.');
            out.extend_from_slice(digits.get(int_len..).unwrap_or_default());
        }
    }
    Ok(())
}

/// A fixed buffer for formatting one float without allocating.
struct StackBuf {
    buf: [u8; 40],
    len: usize,
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.buf.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl ValueView for Value {
    type Array = Array;
    fn view(&self) -> View<'_, Array> {
        match self {
            Value::Null => View::Null,
            Value::Bool(b) => View::Bool(*b),
            Value::Int(i) => View::Int(*i),
            Value::Float(f) => View::Float(*f),
            Value::Str(s) => View::Str(s),
            Value::Array(a) => View::Array(a),
        }
    }
}

impl ArrayView for Array {
    type Item = Value;
    fn len(&self) -> usize {
        Array::len(self)
    }
    fn is_list(&self) -> bool {
        Array::is_list(self)
    }
    fn try_for_each(&self, f: &mut ElementFn<'_, Value>) -> Result<(), EncodeError> {
        for (k, v) in self.iter() {
            f(k.as_key_ref(), v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(v: &Value) -> Result<String, EncodeError> {
        to_vec(v, EncodeOptions::default()).map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    #[test]
    fn floats_match_php() {
        // (value, php -r 'echo json_encode($f);')
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-0.0, "-0"),
            (0.0, "0"),
            (1e100, "1.0e+100"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (0.1, "0.1"),
            (1e-7, "1.0e-7"),
            (5e-324, "5.0e-324"),
            (i64::MAX as f64, "9.223372036854776e+18"),
            (1e15, "1000000000000000"),
            (1e16, "10000000000000000"),
            (1e17, "1.0e+17"),
            (1e18, "1.0e+18"),
            (0.0001, "0.0001"),
            (0.00001, "1.0e-5"),
            (1.5e-5, "1.5e-5"),
            (-1.5, "-1.5"),
            (100.0, "100"),
            (1e21, "1.0e+21"),
            (2.5e25, "2.5e+25"),
            (f64::MAX, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"),
            (123456.789, "123456.789"),
            (-0.001, "-0.001"),
            (12345678901234567.0, "12345678901234568"),
        ];
        for (f, want) in cases {
            assert_eq!(enc(&Value::Float(*f)).as_deref(), Ok(*want), "{f:e}");
        }
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(enc(&Value::Float(bad)), Err(EncodeError::InfOrNan));
        }
    }

    #[test]
    fn strings_escape_like_php() {
        // php -r 'echo json_encode($s, JSON_UNESCAPED_UNICODE|JSON_UNESCAPED_SLASHES);'
        let cases: &[(&[u8], &str)] = &[
            (b"", r#""""#),
            (b"plain", r#""plain""#),
            (b"a/b", r#""a/b""#),
            (b"\"\\", r#""\"\\""#),
            (b"\x08\x0c\n\r\t", r#""\b\f\n\r\t""#),
            (b"\x00\x01\x1f", r#""\u0000\u0001\u001f""#),
            (b"\x7f", "\"\x7f\""),
            ("é€😀".as_bytes(), "\"é€😀\""),
            ("\u{2028}\u{2029}".as_bytes(), r#""\u2028\u2029""#),
            ("\u{2027}\u{202a}".as_bytes(), "\"\u{2027}\u{202a}\""),
            ("a\u{2028}b".as_bytes(), r#""a\u2028b""#),
        ];
        for (s, want) in cases {
            assert_eq!(enc(&Value::str(s)).as_deref(), Ok(*want), "{s:?}");
        }
        for bad in [
            &b"\xff"[..],
            b"\xc3",
            b"\xed\xa0\x80",
            b"\xc0\xaf",
            b"\xf4\x90\x80\x80",
        ] {
            assert_eq!(enc(&Value::str(bad)), Err(EncodeError::Utf8), "{bad:?}");
        }
    }

    #[test]
    fn scalars_and_arrays() {
        let cases: Vec<(Value, &str)> = vec![
            (Value::Null, "null"),
            (Value::Bool(true), "true"),
            (Value::Bool(false), "false"),
            (Value::Int(0), "0"),
            (Value::Int(-42), "-42"),
            (Value::Int(i64::MIN), "-9223372036854775808"),
            (Value::Int(i64::MAX), "9223372036854775807"),
            (Value::list(Vec::<Value>::new()), "[]"),
            (Value::list([1, 2]), "[1,2]"),
            (
                Value::from_pairs([(0, "a"), (2, "b")]),
                r#"{"0":"a","2":"b"}"#,
            ),
            (Value::from_pairs([(1, 1)]), r#"{"1":1}"#),
            (Value::from_pairs([("0", 1), ("1", 2)]), "[1,2]"),
            (Value::from_pairs([(-1, 1)]), r#"{"-1":1}"#),
            (
                Value::from_pairs([("a", Value::list([Value::Null])), ("b", Value::Float(0.5))]),
                r#"{"a":[null],"b":0.5}"#,
            ),
            (Value::from_pairs([("k\"/", 1)]), r#"{"k\"/":1}"#),
        ];
        for (v, want) in cases {
            assert_eq!(enc(&v).as_deref(), Ok(want), "{v:?}");
        }
        // Invalid UTF-8 in a key fails too.
        let v = Value::from_pairs([(&b"\xff"[..], 1)]);
        assert_eq!(enc(&v), Err(EncodeError::Utf8));
    }

    fn nest(n: usize, inner: Value) -> Value {
        let mut v = inner;
        for _ in 0..n {
            v = Value::list([v]);
        }
        v
    }

    #[test]
    fn depth_limit_matches_php() {
        // php: json_encode(nest(n, inner)): 512 arrays pass, 513 fail; [] counts.
        let empty = || Value::list(Vec::<Value>::new());
        assert!(enc(&nest(511, empty())).is_ok());
        assert!(enc(&nest(512, Value::Int(1))).is_ok());
        assert_eq!(enc(&nest(512, empty())), Err(EncodeError::Depth));
        assert_eq!(enc(&nest(513, Value::Int(1))), Err(EncodeError::Depth));
        // An error met inside the too-deep array comes first...
        let bad = nest(602, Value::list([Value::str(b"\xff")]));
        assert_eq!(enc(&bad), Err(EncodeError::Utf8));
        // ...but not one after it.
        let v = Value::list([nest(600, Value::list([1])), Value::str(b"\xff")]);
        assert_eq!(enc(&v), Err(EncodeError::Depth));
        // Custom limit.
        let opts = EncodeOptions {
            max_depth: 1,
            ..EncodeOptions::default()
        };
        assert!(to_vec(&Value::list([1]), opts).is_ok());
        assert_eq!(to_vec(&nest(2, Value::Null), opts), Err(EncodeError::Depth));
        // Far past the scan limit: still a depth error, and no stack overflow.
        assert_eq!(enc(&nest(5000, Value::Null)), Err(EncodeError::Depth));
    }

    #[test]
    fn error_codes_and_messages() {
        let cases = [
            (EncodeError::Depth, 1, "Maximum stack depth exceeded"),
            (
                EncodeError::Utf8,
                5,
                "Malformed UTF-8 characters, possibly incorrectly encoded",
            ),
            (
                EncodeError::InfOrNan,
                7,
                "Inf and NaN cannot be JSON encoded",
            ),
            (EncodeError::Unsupported, 8, "Type is not supported"),
        ];
        for (e, code, msg) in cases {
            assert_eq!(e.code(), code);
            assert_eq!(e.message(), msg);
            assert_eq!(e.to_string(), msg);
        }
    }

    #[test]
    fn error_leaves_buffer_untouched() {
        let mut out = b"prefix".to_vec();
        let v = Value::list([Value::str("ok"), Value::Float(f64::NAN)]);
        assert_eq!(
            encode(&v, EncodeOptions::default(), &mut out),
            Err(EncodeError::InfOrNan)
        );
        assert_eq!(out, b"prefix");
    }

    #[test]
    fn decode_entities_applies_to_values_only() {
        let v = Value::from_pairs([
            ("&lt;k&gt;", Value::str("&lt;b&gt; &amp;amp; &#39;")),
            (
                "n",
                Value::list([Value::str("&quot;x&quot;"), Value::Int(1)]),
            ),
        ]);
        let got =
            to_vec(&v, EncodeOptions::contract()).map(|b| String::from_utf8_lossy(&b).into_owned());
        assert_eq!(
            got.as_deref(),
            Ok(r#"{"&lt;k&gt;":"<b> &amp; '","n":["\"x\"",1]}"#)
        );
        let plain = enc(&v);
        assert_eq!(
            plain.as_deref(),
            Ok(r#"{"&lt;k&gt;":"&lt;b&gt; &amp;amp; &#39;","n":["&quot;x&quot;",1]}"#)
        );
    }

    struct Obj;
    struct NoArray;
    impl ArrayView for NoArray {
        type Item = Obj;
        fn len(&self) -> usize {
            0
        }
        fn is_list(&self) -> bool {
            true
        }
        fn try_for_each(&self, _f: &mut ElementFn<'_, Obj>) -> Result<(), EncodeError> {
            Ok(())
        }
    }
    impl ValueView for Obj {
        type Array = NoArray;
        fn view(&self) -> View<'_, NoArray> {
            View::Object
        }
    }

    #[test]
    fn objects_are_unsupported() {
        assert_eq!(
            to_vec(&Obj, EncodeOptions::default()),
            Err(EncodeError::Unsupported)
        );
    }
}
