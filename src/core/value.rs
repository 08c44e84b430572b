//! An owned model of PHP values, so core code can build tool envelopes exactly as phpClaw's
//! PHP arrays would look, then hand them to [`crate::core::json`].
//!
//! Rules kept from PHP 8.2 (Zend/zend_hash.c, checked against the `php` CLI):
//! - strings are bytes (`Vec<u8>`), never assumed UTF-8;
//! - an array is an ordered map: insertion order is kept, and writing an existing key
//!   replaces the value in place (the key keeps its position);
//! - a string key that reads as a canonical decimal `i64` becomes an integer key
//!   (`"6"` → 6, `"-3"` → -3; `"07"`, `"6 "`, `"-0"`, `"+1"`, `""`, 20+ digit or
//!   overflowing numbers stay strings): see [`Key::from_bytes`];
//! - `push` uses the next free index: one past the largest integer key ever inserted,
//!   never below 0, and fails when that index would pass `i64::MAX` (PHP's "next element
//!   is already occupied"). Removing keys does not lower it.

use std::collections::HashMap;
use std::sync::OnceLock;

/// Longest digit run PHP still tries as an integer key (`MAX_LENGTH_OF_LONG - 1` on 64-bit).
const MAX_NUMERIC_KEY_DIGITS: usize = 19;

/// Arrays at least this long get a hash index at their first lookup, so lookups stay O(1) on
/// big arrays while small ones, and arrays that are only built and read in order (most
/// envelopes, project_info's tree: one push per entry), never pay for one.
const INDEX_THRESHOLD: usize = 16;

/// A PHP array key: PHP only has integer and string keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// An integer key (also what numeric strings such as `"6"` turn into).
    Int(i64),
    /// A string key that is not a canonical integer (bytes, not necessarily UTF-8).
    Str(Vec<u8>),
}

/// A borrowed key, handed out while walking arrays without copying key bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRef<'a> {
    /// An integer key.
    Int(i64),
    /// A string key.
    Str(&'a [u8]),
}

impl Key {
    /// Builds a key from string bytes the way PHP does for `$a["..."]`, so `"6"` and `6`
    /// address the same slot.
    pub fn from_bytes(b: &[u8]) -> Key {
        match numeric_key(b) {
            Some(i) => Key::Int(i),
            None => Key::Str(b.to_vec()),
        }
    }

    /// Borrowed form, for the JSON view traits.
    pub fn as_key_ref(&self) -> KeyRef<'_> {
        match self {
            Key::Int(i) => KeyRef::Int(*i),
            Key::Str(s) => KeyRef::Str(s),
        }
    }

    /// Applies PHP's numeric-string rule to a key that may have been built as a raw
    /// `Key::Str`, so every stored key is canonical.
    fn normalised(self) -> Key {
        match self {
            Key::Str(s) => match numeric_key(&s) {
                Some(i) => Key::Int(i),
                None => Key::Str(s),
            },
            k => k,
        }
    }
}

/// PHP's `ZEND_HANDLE_NUMERIC_STR`: `Some(n)` when the bytes are an optional `-` followed
/// by 1..=19 decimal digits with no leading zero (a lone `"0"` is fine, `"-0"` is not) and
/// the value fits an `i64`.
pub fn numeric_key(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    let first = *digits.first()?;
    if !first.is_ascii_digit() {
        return None;
    }
    // Leading zero: PHP tests the whole key length, so "0" passes and "-0" / "07" do not.
    if first == b'0' && b.len() > 1 {
        return None;
    }
    if digits.len() > MAX_NUMERIC_KEY_DIGITS {
        return None;
    }
    let mut acc: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        // 19 digits always fit in u64, so this cannot overflow.
        acc = acc * 10 + u64::from(d - b'0');
    }
    if neg {
        if acc.wrapping_sub(1) > i64::MAX as u64 {
            return None;
        }
        Some((acc as i64).wrapping_neg())
    } else if acc > i64::MAX as u64 {
        None
    } else {
        Some(acc as i64)
    }
}

impl From<i64> for Key {
    fn from(i: i64) -> Key {
        Key::Int(i)
    }
}
impl From<i32> for Key {
    fn from(i: i32) -> Key {
        Key::Int(i64::from(i))
    }
}
impl From<usize> for Key {
    fn from(i: usize) -> Key {
        Key::Int(i64::try_from(i).unwrap_or(i64::MAX))
    }
}
impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::from_bytes(s.as_bytes())
    }
}
impl From<String> for Key {
    fn from(s: String) -> Key {
        Key::Str(s.into_bytes()).normalised()
    }
}
impl From<&[u8]> for Key {
    fn from(s: &[u8]) -> Key {
        Key::from_bytes(s)
    }
}
impl From<Vec<u8>> for Key {
    fn from(s: Vec<u8>) -> Key {
        Key::Str(s).normalised()
    }
}

/// A PHP value as phpClaw's envelopes use them (objects and resources are left to PHP).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A PHP `int` (64-bit).
    Int(i64),
    /// A PHP `float`.
    Float(f64),
    /// A PHP string: bytes, not necessarily UTF-8.
    Str(Vec<u8>),
    /// A PHP array.
    Array(Array),
}

impl Value {
    /// A string value from anything byte-like: `Value::str("ok")`.
    pub fn str(s: impl AsRef<[u8]>) -> Value {
        Value::Str(s.as_ref().to_vec())
    }

    /// A list (`[a, b, c]`) from values.
    pub fn list<I, V>(items: I) -> Value
    where
        I: IntoIterator<Item = V>,
        V: Into<Value>,
    {
        Value::Array(Array::list(items))
    }

    /// An associative array from `(key, value)` pairs, in order.
    pub fn from_pairs<I, K, V>(pairs: I) -> Value
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<Key>,
        V: Into<Value>,
    {
        Value::Array(Array::from_pairs(pairs))
    }

    /// The string bytes, when this is a string.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The array, when this is an array.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// PHP's `(string)` of a scalar value; `None` for an array (a binding converts arrays and
/// objects with PHP's own rules, warning and all).
pub fn php_string(v: &Value) -> Option<Vec<u8>> {
    Some(match v {
        Value::Null | Value::Bool(false) => Vec::new(),
        Value::Bool(true) => b"1".to_vec(),
        Value::Int(i) => i.to_string().into_bytes(),
        Value::Str(s) => s.clone(),
        Value::Float(f) => php_float_string(*f),
        Value::Array(_) => return None,
    })
}

/// PHP's `(string)` of a float at the default `precision` of 14 (`zend_gcvt`): 14 significant
/// digits at most, trailing zeros dropped, `1.0E+15` style past 10^15 and below 10^-4,
/// `-0`, `INF`, `-INF`, `NAN`.
pub fn php_float_string(f: f64) -> Vec<u8> {
    const PRECISION: i32 = 14;
    if f.is_nan() {
        return b"NAN".to_vec();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            b"INF".to_vec()
        } else {
            b"-INF".to_vec()
        };
    }
    // Rust rounds the exact value half to even, as zend_dtoa does: d.ddddddddddddde<exp>.
    let sci = format!("{:.*e}", (PRECISION - 1) as usize, f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    // zend_dtoa's decpt: the value is 0.DIGITS x 10^decpt (0 is "0" with decpt 1).
    let decpt = if digits == b"0" {
        1
    } else {
        exp.parse::<i32>().unwrap_or(0) + 1
    };
    let mut out = Vec::with_capacity(24);
    if f.is_sign_negative() {
        out.push(b'-');
    }
    if !(-3..=PRECISION).contains(&decpt) {
        let e = decpt - 1;
        out.push(digits.first().copied().unwrap_or(b'0'));
        out.push(b'.');
        match digits.get(1..) {
            Some(rest) if !rest.is_empty() => out.extend_from_slice(rest),
            _ => out.push(b'0'),
        }
        out.push(b'E');
        out.push(if e < 0 { b'-' } else { b'+' });
        out.extend_from_slice(e.unsigned_abs().to_string().as_bytes());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat(b'0').take(decpt.unsigned_abs() as usize));
        out.extend_from_slice(&digits);
    } else {
        let int_len = decpt as usize;
        for i in 0..int_len {
            out.push(digits.get(i).copied().unwrap_or(b'0'));
        }
        if let Some(frac) = digits.get(int_len..).filter(|f| !f.is_empty()) {
            out.push(b'.');
            out.extend_from_slice(frac);
        }
    }
    out
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<i32> for Value {
    fn from(i: i32) -> Value {
        Value::Int(i64::from(i))
    }
}
impl From<u32> for Value {
    fn from(i: u32) -> Value {
        Value::Int(i64::from(i))
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Value {
        Value::Float(f)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.as_bytes().to_vec())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s.into_bytes())
    }
}
impl From<&[u8]> for Value {
    fn from(s: &[u8]) -> Value {
        Value::Str(s.to_vec())
    }
}
impl From<Vec<u8>> for Value {
    fn from(s: Vec<u8>) -> Value {
        Value::Str(s)
    }
}
impl From<Array> for Value {
    fn from(a: Array) -> Value {
        Value::Array(a)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(o: Option<T>) -> Value {
        o.map_or(Value::Null, Into::into)
    }
}

/// `push` found the next index taken: PHP throws "Cannot add element to the array as the
/// next element is already occupied" in that case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Cannot add element to the array as the next element is already occupied")]
pub struct NextElementOccupied;

/// A PHP array: an insertion-ordered map from [`Key`] to [`Value`].
#[derive(Debug, Clone, Default)]
pub struct Array {
    entries: Vec<(Key, Value)>,
    /// Position of each key in `entries`: built by the first lookup in a big array, then kept
    /// up to date; dropped by a removal.
    index: OnceLock<HashMap<Key, usize>>,
    /// PHP's `nNextFreeElement`: `None` until an integer key is inserted.
    next_free: Option<i64>,
    /// Keys are exactly `0..len` in order (PHP's `zend_array_is_list`).
    list: bool,
}

impl PartialEq for Array {
    /// Same entries in the same order, as PHP's `===` on arrays.
    fn eq(&self, other: &Array) -> bool {
        self.entries == other.entries
    }
}

impl Array {
    /// An empty array (`[]`).
    pub fn new() -> Array {
        Array {
            entries: Vec::new(),
            index: OnceLock::new(),
            next_free: None,
            list: true,
        }
    }

    /// An empty array with room for `n` entries.
    pub fn with_capacity(n: usize) -> Array {
        let mut a = Array::new();
        a.entries.reserve(n);
        a
    }

    /// A list `[a, b, c]`.
    pub fn list<I, V>(items: I) -> Array
    where
        I: IntoIterator<Item = V>,
        V: Into<Value>,
    {
        let mut a = Array::new();
        for v in items {
            // A fresh list cannot run out of indexes before memory runs out.
            let _ = a.push(v);
        }
        a
    }

    /// An array from `(key, value)` pairs, later duplicates overwriting earlier ones in
    /// place like a PHP array literal.
    pub fn from_pairs<I, K, V>(pairs: I) -> Array
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<Key>,
        V: Into<Value>,
    {
        let mut a = Array::new();
        for (k, v) in pairs {
            a.insert(k, v);
        }
        a
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `true` for `[]`.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keys are exactly `0..len` in order: `json_encode` writes such an array as `[...]`.
    pub fn is_list(&self) -> bool {
        self.list
    }

    /// Sets `key` (normalised as PHP does) to `value`; an existing key keeps its position.
    /// Returns the replaced value.
    pub fn insert(&mut self, key: impl Into<Key>, value: impl Into<Value>) -> Option<Value> {
        let key = key.into().normalised();
        let value = value.into();
        if let Some(pos) = self.position(&key) {
            return self
                .entries
                .get_mut(pos)
                .map(|slot| std::mem::replace(&mut slot.1, value));
        }
        self.append_new(key, value);
        None
    }

    /// Appends with the next free integer key (`$a[] = v`), returning the key used. Every
    /// integer key is below the next free index unless it saturated at `i64::MAX`: only then
    /// can that key be taken, so only then is it looked up.
    pub fn push(&mut self, value: impl Into<Value>) -> Result<i64, NextElementOccupied> {
        let k = self.next_free.unwrap_or(0);
        let key = Key::Int(k);
        if k == i64::MAX && self.position(&key).is_some() {
            return Err(NextElementOccupied);
        }
        self.append_new(key, value.into());
        Ok(k)
    }

    /// The value at `key` (normalised, so `get("6")` finds integer key 6).
    pub fn get(&self, key: impl Into<Key>) -> Option<&Value> {
        let key = key.into().normalised();
        self.position(&key)
            .and_then(|p| self.entries.get(p))
            .map(|e| &e.1)
    }

    /// Mutable access to the value at `key`.
    pub fn get_mut(&mut self, key: impl Into<Key>) -> Option<&mut Value> {
        let key = key.into().normalised();
        let pos = self.position(&key)?;
        self.entries.get_mut(pos).map(|e| &mut e.1)
    }

    /// `true` when `key` is present (`array_key_exists`).
    pub fn contains_key(&self, key: impl Into<Key>) -> bool {
        let key = key.into().normalised();
        self.position(&key).is_some()
    }

    /// Removes `key` (`unset`), keeping the order of the rest. O(n).
    pub fn remove(&mut self, key: impl Into<Key>) -> Option<Value> {
        let key = key.into().normalised();
        let pos = self.position(&key)?;
        let (_, v) = self.entries.remove(pos);
        self.index = OnceLock::new();
        self.list = self
            .entries
            .iter()
            .enumerate()
            .all(|(i, (k, _))| matches!(k, Key::Int(n) if usize::try_from(*n) == Ok(i)));
        Some(v)
    }

    /// Entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Key, &Value)> + '_ {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Values in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &Value> + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    /// Keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &Key> + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    fn position(&self, key: &Key) -> Option<usize> {
        if self.entries.len() < INDEX_THRESHOLD {
            return self.entries.iter().position(|(k, _)| k == key);
        }
        let index = self.index.get_or_init(|| {
            let mut ix = HashMap::with_capacity(self.entries.len());
            for (i, (k, _)) in self.entries.iter().enumerate() {
                ix.insert(k.clone(), i);
            }
            ix
        });
        index.get(key).copied()
    }

    fn append_new(&mut self, key: Key, value: Value) {
        let pos = self.entries.len();
        if let Key::Int(i) = key {
            self.list = self.list && usize::try_from(i) == Ok(pos);
            // PHP keeps the next free index at max(int key) + 1, saturating at i64::MAX,
            // and never lets a negative key pull it below 0.
            let next = i.saturating_add(1).max(0);
            if self.next_free.map_or(true, |n| next > n) {
                self.next_free = Some(next);
            }
        } else {
            self.list = false;
        }
        if let Some(ix) = self.index.get_mut() {
            ix.insert(key.clone(), pos);
        }
        self.entries.push((key, value));
    }
}

impl<K: Into<Key>, V: Into<Value>> FromIterator<(K, V)> for Array {
    fn from_iter<T: IntoIterator<Item = (K, V)>>(iter: T) -> Array {
        Array::from_pairs(iter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(string)` of floats, each checked with php 8.2 (`precision=14`).
    #[test]
    fn float_strings_as_php_casts_them() {
        for (f, want) in [
            (0.1 + 0.2, "0.3"),
            (1.0 / 3.0, "0.33333333333333"),
            (1e14, "1.0E+14"),
            (1e15, "1.0E+15"),
            (12_345_678_901_234.0, "12345678901234"),
            (123_456_789_012_345.0, "1.2345678901234E+14"),
            (0.0001, "0.0001"),
            (1e-5, "1.0E-5"),
            (0.000_123_456_789_012_345_67, "0.00012345678901235"),
            (-0.0, "-0"),
            (0.0, "0"),
            (1.5, "1.5"),
            (-2.5e-10, "-2.5E-10"),
            (1e100, "1.0E+100"),
            (5e-324, "4.9406564584125E-324"),
            (f64::MAX, "1.7976931348623E+308"),
            (99_999_999_999_999.5, "1.0E+14"),
            (100.0, "100"),
            (9_007_199_254_740_992.0, "9.007199254741E+15"),
            (123.456, "123.456"),
            (f64::NAN, "NAN"),
            (f64::NEG_INFINITY, "-INF"),
        ] {
            assert_eq!(
                String::from_utf8(php_float_string(f)).unwrap(),
                want,
                "{f:?}"
            );
        }
    }

    #[test]
    fn numeric_string_keys_follow_php() {
        // (key, expected) — expectations from `php -r 'var_dump([$k => 1]);'`.
        let cases: &[(&str, Option<i64>)] = &[
            ("6", Some(6)),
            ("-3", Some(-3)),
            ("0", Some(0)),
            ("07", None),
            ("00", None),
            ("-01", None),
            ("6 ", None),
            (" 1", None),
            ("-0", None),
            ("+1", None),
            ("", None),
            ("-", None),
            ("1e3", None),
            ("0x1", None),
            ("1.5", None),
            ("9223372036854775807", Some(i64::MAX)),
            ("9223372036854775808", None),
            ("-9223372036854775808", Some(i64::MIN)),
            ("-9223372036854775809", None),
            ("9999999999999999999", None),
            ("10000000000000000000", None),
            ("1234567890123456789", Some(1_234_567_890_123_456_789)),
        ];
        for (k, want) in cases {
            assert_eq!(numeric_key(k.as_bytes()), *want, "key {k:?}");
            let expect_key = match want {
                Some(i) => Key::Int(*i),
                None => Key::Str(k.as_bytes().to_vec()),
            };
            assert_eq!(Key::from(*k), expect_key, "key {k:?}");
        }
        // Non-UTF-8 bytes are fine as string keys.
        assert_eq!(Key::from(&b"\xff"[..]), Key::Str(vec![0xff]));
    }

    #[test]
    fn raw_str_keys_are_normalised_on_insert() {
        let mut a = Array::new();
        a.insert(Key::Str(b"6".to_vec()), 1);
        assert_eq!(a.keys().next(), Some(&Key::Int(6)));
        assert_eq!(a.get(6), Some(&Value::Int(1)));
        assert_eq!(a.get("6"), Some(&Value::Int(1)));
    }

    #[test]
    fn insert_keeps_order_and_replaces_in_place() {
        let mut a = Array::from_pairs([("b", 1), ("a", 2)]);
        assert_eq!(a.insert("b", 3), Some(Value::Int(1)));
        let keys: Vec<_> = a.keys().cloned().collect();
        assert_eq!(keys, vec![Key::from("b"), Key::from("a")]);
        assert_eq!(a.get("b"), Some(&Value::Int(3)));
    }

    #[test]
    fn push_uses_next_free_index() {
        // $a = []; $a[] = x  => 0
        let mut a = Array::new();
        assert_eq!(a.push(1), Ok(0));
        // $a[5] = x; $a[] = y => 6
        a.insert(5, 1);
        assert_eq!(a.push(1), Ok(6));
        // A lower key does not move it back.
        a.insert(2, 1);
        assert_eq!(a.push(1), Ok(7));
        // $a = []; $a[-5] = 1; $a[] = 2  => 0 in PHP 8.2 (never below 0)
        let mut b = Array::new();
        b.insert(-5, 1);
        assert_eq!(b.push(2), Ok(0));
        // unset does not lower it: $a[3]=1; unset($a[3]); $a[]=1 => 4
        let mut c = Array::new();
        c.insert(3, 1);
        c.remove(3);
        assert_eq!(c.push(1), Ok(4));
        // String keys do not count.
        let mut d = Array::from_pairs([("x", 1)]);
        assert_eq!(d.push(1), Ok(0));
    }

    #[test]
    fn push_at_int_max_fails_like_php() {
        let mut a = Array::new();
        a.insert(i64::MAX - 1, 1);
        assert_eq!(a.push(2), Ok(i64::MAX));
        assert_eq!(a.push(3), Err(NextElementOccupied));
        let mut b = Array::new();
        b.insert(i64::MAX, 1);
        assert_eq!(b.push(2), Err(NextElementOccupied));
        // Removed, the index is free again while the next free index stays at i64::MAX (php
        // 8.2: `unset($a[PHP_INT_MAX]); $a[] = 2;` adds key PHP_INT_MAX, the next push throws).
        b.remove(i64::MAX);
        assert_eq!(b.push(2), Ok(i64::MAX));
        assert_eq!(b.push(3), Err(NextElementOccupied));
        assert_eq!(
            NextElementOccupied.to_string(),
            "Cannot add element to the array as the next element is already occupied"
        );
    }

    #[test]
    fn list_detection() {
        let cases: Vec<(Array, bool)> = vec![
            (Array::new(), true),
            (Array::list([1, 2, 3]), true),
            (Array::from_pairs([(0, "a"), (2, "b")]), false),
            (Array::from_pairs([(1, "a")]), false),
            (Array::from_pairs([(1, "a"), (0, "b")]), false),
            (Array::from_pairs([("0", 1), ("1", 2)]), true),
            (Array::from_pairs([("a", 1)]), false),
        ];
        for (a, want) in cases {
            assert_eq!(a.is_list(), want, "{a:?}");
        }
        let mut a = Array::list([1, 2, 3]);
        a.remove(2);
        assert!(a.is_list());
        a.remove(0);
        assert!(!a.is_list());
    }

    #[test]
    fn big_arrays_use_the_index() {
        let mut a = Array::new();
        for i in 0..10_000i64 {
            a.insert(format!("k{i}"), i);
        }
        assert!(a.index.get().is_some());
        assert_eq!(a.get("k9999"), Some(&Value::Int(9999)));
        assert_eq!(a.remove("k0"), Some(Value::Int(0)));
        assert!(a.index.get().is_none(), "a removal drops the index");
        assert_eq!(a.get("k1"), Some(&Value::Int(1)));
        assert_eq!(a.get("k9999"), Some(&Value::Int(9999)));
        assert_eq!(a.len(), 9999);
        assert!(!a.contains_key("k0"));
        // Kept up to date once built: appended keys are found, through the index.
        a.insert("k0", -1);
        assert_eq!(a.push(7), Ok(0));
        assert!(a.index.get().is_some());
        assert_eq!(a.get("k0"), Some(&Value::Int(-1)));
        assert_eq!(a.get(0), Some(&Value::Int(7)));
        assert_eq!(a.keys().last(), Some(&Key::Int(0)));
        // Just below and at the threshold, the first lookup builds it, not a push.
        let small = Array::list(0..(INDEX_THRESHOLD as i64 - 1));
        assert_eq!(small.get(14), Some(&Value::Int(14)));
        assert!(small.index.get().is_none());
        let mut at = Array::list(0..(INDEX_THRESHOLD as i64));
        assert!(at.index.get().is_none(), "pushes alone build no index");
        assert_eq!(at.get(15), Some(&Value::Int(15)));
        assert!(at.index.get().is_some());
        assert_eq!(at.push(16), Ok(16));
        assert_eq!(at.get(16), Some(&Value::Int(16)));
        assert_eq!(at.insert(3, "x"), Some(Value::Int(3)));
        assert_eq!(at.len(), 17);
    }

    #[test]
    fn constructors() {
        assert_eq!(Value::str("x"), Value::Str(b"x".to_vec()));
        assert_eq!(Value::from(None::<i64>), Value::Null);
        let v = Value::from_pairs([("ok", Value::from(true)), ("n", Value::list([1, 2]))]);
        let a = v.as_array().expect("array");
        assert_eq!(a.len(), 2);
        assert_eq!(
            a.get("n").and_then(Value::as_array).map(Array::len),
            Some(2)
        );
        let collected: Array = vec![("a", 1)].into_iter().collect();
        assert_eq!(collected.get("a"), Some(&Value::Int(1)));
    }
}
