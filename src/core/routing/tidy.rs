//! Argument tidying: what the agent does to the arguments a model sent before the tool runs.
//!
//! Rules (spec "Arguments the agent tidies"; phpClaw's agent, checked against PHP 8.2):
//! - Only arguments whose key names an array entry of the schema's `properties` are looked at;
//!   every other argument passes through untouched.
//! - An optional argument (its key is not in `required`) is dropped when it is `null`, or a
//!   string that trims (PHP `trim()`: space, tab, `\n`, `\r`, NUL, vertical tab) to nothing, or
//!   to `*` or `%` unless that exact string is one of the property's enum values.
//! - A required argument is never dropped, even when `null` or blank.
//! - For a property whose `type` is exactly `"integer"` or `"number"`, a value PHP's
//!   `is_numeric()` accepts (int, float, numeric string with optional surrounding whitespace)
//!   is cast with PHP's `(int)` / `(float)` and then set to the schema's `minimum` when below
//!   it, else to its `maximum` when above it (the bound is returned as the schema wrote it).
//!   So a numeric string becomes a number, a float sent for an integer is truncated, and an
//!   int sent for a number becomes a float, as in the reference.
//! - Bounds are compared as PHP compares numbers: int with float through `(float)`.
//!   A bound that is not a number or numeric string is ignored.

/// An argument's value as the tidier sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArgValue<'a> {
    /// `null`.
    Null,
    /// `true` / `false` (never numeric, never blank).
    Bool(bool),
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string's bytes.
    Str(&'a [u8]),
    /// An array, object or anything else: left alone.
    Other,
}

/// A number as PHP holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    /// PHP's `$a < $b` for two numbers.
    fn less_than(self, other: Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a < b,
            (a, b) => a.as_f64() < b.as_f64(),
        }
    }
}

/// Which numeric rule a property's `type` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumericKind {
    /// `"integer"`: cast with `(int)`.
    Integer,
    /// `"number"`: cast with `(float)`.
    Number,
    /// Any other type (or none): no numeric handling.
    None,
}

impl NumericKind {
    /// The kind for a schema `type` value given as bytes (`None` for a non-string type).
    pub fn from_type(ty: Option<&[u8]>) -> NumericKind {
        match ty {
            Some(b"integer") => NumericKind::Integer,
            Some(b"number") => NumericKind::Number,
            _ => NumericKind::None,
        }
    }
}

/// What the tidier needs to know about one property of the schema.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PropertySpec {
    /// The argument's key is listed in `required`.
    pub required: bool,
    /// The numeric rule from `type`.
    pub kind: NumericKind,
    /// `enum` holds the string `*`.
    pub enum_has_star: bool,
    /// `enum` holds the string `%`.
    pub enum_has_percent: bool,
    /// `minimum`, when it is a number or numeric string.
    pub minimum: Option<Number>,
    /// `maximum`, when it is a number or numeric string.
    pub maximum: Option<Number>,
}

impl Default for PropertySpec {
    fn default() -> Self {
        Self {
            required: false,
            kind: NumericKind::None,
            enum_has_star: false,
            enum_has_percent: false,
            minimum: None,
            maximum: None,
        }
    }
}

/// What happens to one argument.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tidied {
    /// Passed through as sent.
    Keep,
    /// Removed: the tool sees it as absent.
    Drop,
    /// Replaced by this int.
    Int(i64),
    /// Replaced by this float.
    Float(f64),
    /// Replaced by the schema's `minimum`, as the schema wrote it.
    Minimum,
    /// Replaced by the schema's `maximum`, as the schema wrote it.
    Maximum,
}

/// Bytes PHP's `trim()` strips by default.
const TRIM: &[u8] = b" \t\n\r\0\x0B";

/// Whitespace `is_numeric()` allows around a number (PHP 8: leading and trailing).
const NUMERIC_WS: &[u8] = b" \t\n\r\x0B\x0C";

fn trim_set<'a>(mut s: &'a [u8], set: &[u8]) -> &'a [u8] {
    while let Some((first, rest)) = s.split_first() {
        if !set.contains(first) {
            break;
        }
        s = rest;
    }
    while let Some((last, rest)) = s.split_last() {
        if !set.contains(last) {
            break;
        }
        s = rest;
    }
    s
}

/// PHP's `trim()` with its default characters.
pub fn php_trim(s: &[u8]) -> &[u8] {
    trim_set(s, TRIM)
}

/// Whether a digit run starts at `s` and how long it is.
fn digits(s: &[u8]) -> usize {
    s.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// PHP's numeric-string rule (`is_numeric()`), with the value PHP reads from it:
/// an int when the string is an integer that fits, else a float. `None` when not numeric.
pub fn parse_numeric(s: &[u8]) -> Option<Number> {
    let body = trim_set(s, NUMERIC_WS);
    // Leading whitespace only is trimmed by the set above; PHP also allows trailing.
    let unsigned = match body.first() {
        Some(b'+') | Some(b'-') => body.get(1..)?,
        _ => body,
    };
    let int_len = digits(unsigned);
    let mut at = int_len;
    let mut is_float = false;
    let mut frac_len = 0;
    if unsigned.get(at) == Some(&b'.') {
        is_float = true;
        frac_len = digits(unsigned.get(at + 1..).unwrap_or(&[]));
        at += 1 + frac_len;
    }
    if int_len == 0 && frac_len == 0 {
        return None;
    }
    if matches!(unsigned.get(at), Some(b'e') | Some(b'E')) {
        let mut exp = at + 1;
        if matches!(unsigned.get(exp), Some(b'+') | Some(b'-')) {
            exp += 1;
        }
        let exp_digits = digits(unsigned.get(exp..).unwrap_or(&[]));
        if exp_digits > 0 {
            is_float = true;
            at = exp + exp_digits;
        }
    }
    if at != unsigned.len() {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    if !is_float {
        if let Ok(i) = text.parse::<i64>() {
            return Some(Number::Int(i));
        }
    }
    text.parse::<f64>().ok().map(Number::Float)
}

/// PHP's `(int)` of a float (`zend_dval_to_lval`): NaN and infinities give 0, values out of
/// range wrap modulo 2^64.
pub fn float_to_int(d: f64) -> i64 {
    if !d.is_finite() {
        return 0;
    }
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if (-TWO_63..TWO_63).contains(&d) {
        return d as i64;
    }
    let two_64 = TWO_63 * 2.0;
    let mut m = d.trunc() % two_64;
    if m < 0.0 {
        m += two_64;
    }
    if m >= TWO_63 {
        m -= two_64;
    }
    m as i64
}

/// PHP's `(int)` of a numeric string's value: ints as they are, floats saturated
/// (`zend_dval_to_lval_cap`), as the string conversion does.
fn string_number_to_int(n: Number) -> i64 {
    match n {
        Number::Int(i) => i,
        Number::Float(f) if f.is_nan() => 0,
        // `as` saturates at the i64 range, which is what the cap does.
        Number::Float(f) => f as i64,
    }
}

/// Whether an optional argument carries no real value: null, blank, or an unlisted wildcard.
fn is_empty_argument(value: &ArgValue<'_>, spec: &PropertySpec) -> bool {
    match value {
        ArgValue::Null => true,
        ArgValue::Str(s) => match php_trim(s) {
            b"" => true,
            b"*" => !spec.enum_has_star,
            b"%" => !spec.enum_has_percent,
            _ => false,
        },
        _ => false,
    }
}

/// The number an argument holds when `is_numeric()` accepts it.
fn numeric_value(value: &ArgValue<'_>) -> Option<Number> {
    match value {
        ArgValue::Int(i) => Some(Number::Int(*i)),
        ArgValue::Float(f) => Some(Number::Float(*f)),
        ArgValue::Str(s) => parse_numeric(s),
        _ => None,
    }
}

/// Decides what happens to one argument whose key the schema's `properties` describes.
pub fn tidy_argument(value: &ArgValue<'_>, spec: &PropertySpec) -> Tidied {
    if !spec.required && is_empty_argument(value, spec) {
        return Tidied::Drop;
    }
    if spec.kind == NumericKind::None {
        return Tidied::Keep;
    }
    let Some(n) = numeric_value(value) else {
        return Tidied::Keep;
    };
    let cast = match (spec.kind, value) {
        (NumericKind::Integer, ArgValue::Float(f)) => Number::Int(float_to_int(*f)),
        (NumericKind::Integer, _) => Number::Int(string_number_to_int(n)),
        (_, _) => Number::Float(n.as_f64()),
    };
    if spec.minimum.is_some_and(|min| cast.less_than(min)) {
        return Tidied::Minimum;
    }
    if spec.maximum.is_some_and(|max| max.less_than(cast)) {
        return Tidied::Maximum;
    }
    match (cast, value) {
        (Number::Int(a), ArgValue::Int(b)) if a == *b => Tidied::Keep,
        (Number::Float(a), ArgValue::Float(b)) if a.to_bits() == b.to_bits() => Tidied::Keep,
        (Number::Int(i), _) => Tidied::Int(i),
        (Number::Float(f), _) => Tidied::Float(f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optional() -> PropertySpec {
        PropertySpec::default()
    }

    fn integer(min: Option<Number>, max: Option<Number>) -> PropertySpec {
        PropertySpec {
            kind: NumericKind::Integer,
            minimum: min,
            maximum: max,
            ..PropertySpec::default()
        }
    }

    #[test]
    fn optional_null_blank_and_wildcards_are_dropped() {
        let s = optional();
        for v in [
            ArgValue::Null,
            ArgValue::Str(b""),
            ArgValue::Str(b"  "),
            ArgValue::Str(b"\t\n\r\0\x0B"),
            ArgValue::Str(b"*"),
            ArgValue::Str(b"%"),
            ArgValue::Str(b" * "),
            ArgValue::Str(b"\n%\0"),
        ] {
            assert_eq!(tidy_argument(&v, &s), Tidied::Drop, "{v:?}");
        }
        // Form feed is no trim character; "**" is no wildcard; false and 0 are values.
        for v in [
            ArgValue::Str(b"\x0C"),
            ArgValue::Str(b"**"),
            ArgValue::Str(b"a"),
            ArgValue::Bool(false),
            ArgValue::Int(0),
            ArgValue::Float(0.0),
            ArgValue::Other,
        ] {
            assert_eq!(tidy_argument(&v, &s), Tidied::Keep, "{v:?}");
        }
    }

    #[test]
    fn wildcards_listed_in_the_enum_are_kept() {
        let star = PropertySpec {
            enum_has_star: true,
            ..optional()
        };
        assert_eq!(tidy_argument(&ArgValue::Str(b"*"), &star), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Str(b" * "), &star), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Str(b"%"), &star), Tidied::Drop);
        let pct = PropertySpec {
            enum_has_percent: true,
            ..optional()
        };
        assert_eq!(tidy_argument(&ArgValue::Str(b"%"), &pct), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Str(b""), &pct), Tidied::Drop);
    }

    #[test]
    fn required_arguments_pass_through_even_null_or_blank() {
        let req = PropertySpec {
            required: true,
            ..optional()
        };
        for v in [
            ArgValue::Null,
            ArgValue::Str(b""),
            ArgValue::Str(b"*"),
            ArgValue::Str(b" "),
        ] {
            assert_eq!(tidy_argument(&v, &req), Tidied::Keep, "{v:?}");
        }
        // Required numbers are still clamped.
        let req_int = PropertySpec {
            required: true,
            ..integer(Some(Number::Int(1)), None)
        };
        assert_eq!(tidy_argument(&ArgValue::Int(0), &req_int), Tidied::Minimum);
    }

    #[test]
    fn integers_clamp_at_and_past_their_bounds() {
        let s = integer(Some(Number::Int(1)), Some(Number::Int(50)));
        assert_eq!(tidy_argument(&ArgValue::Int(1), &s), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Int(0), &s), Tidied::Minimum);
        assert_eq!(tidy_argument(&ArgValue::Int(50), &s), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Int(51), &s), Tidied::Maximum);
        assert_eq!(tidy_argument(&ArgValue::Int(i64::MIN), &s), Tidied::Minimum);
        // Numeric strings become ints, floats are truncated.
        assert_eq!(tidy_argument(&ArgValue::Str(b"20"), &s), Tidied::Int(20));
        assert_eq!(tidy_argument(&ArgValue::Str(b" 20 "), &s), Tidied::Int(20));
        assert_eq!(tidy_argument(&ArgValue::Str(b"2.9"), &s), Tidied::Int(2));
        assert_eq!(tidy_argument(&ArgValue::Str(b"1e1"), &s), Tidied::Int(10));
        assert_eq!(tidy_argument(&ArgValue::Str(b"100"), &s), Tidied::Maximum);
        assert_eq!(tidy_argument(&ArgValue::Float(3.9), &s), Tidied::Int(3));
        assert_eq!(tidy_argument(&ArgValue::Float(0.5), &s), Tidied::Minimum);
        // Not numeric: untouched.
        assert_eq!(tidy_argument(&ArgValue::Str(b"many"), &s), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Str(b"0x1A"), &s), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Bool(true), &s), Tidied::Keep);
        // No bounds: only the cast.
        let free = integer(None, None);
        assert_eq!(tidy_argument(&ArgValue::Str(b"-7"), &free), Tidied::Int(-7));
        assert_eq!(tidy_argument(&ArgValue::Int(-7), &free), Tidied::Keep);
    }

    #[test]
    fn numbers_become_floats_and_clamp() {
        let s = PropertySpec {
            kind: NumericKind::Number,
            minimum: Some(Number::Float(0.5)),
            ..optional()
        };
        assert_eq!(tidy_argument(&ArgValue::Float(0.1), &s), Tidied::Minimum);
        assert_eq!(tidy_argument(&ArgValue::Float(0.5), &s), Tidied::Keep);
        assert_eq!(tidy_argument(&ArgValue::Int(5), &s), Tidied::Float(5.0));
        assert_eq!(
            tidy_argument(&ArgValue::Str(b".75"), &s),
            Tidied::Float(0.75)
        );
        // An int bound against a float value, and a float bound against an int value.
        let int_max = PropertySpec {
            kind: NumericKind::Number,
            maximum: Some(Number::Int(2)),
            ..optional()
        };
        assert_eq!(
            tidy_argument(&ArgValue::Float(2.0000001), &int_max),
            Tidied::Maximum
        );
        assert_eq!(tidy_argument(&ArgValue::Float(2.0), &int_max), Tidied::Keep);
        let float_min = integer(Some(Number::Float(1.5)), None);
        assert_eq!(
            tidy_argument(&ArgValue::Int(1), &float_min),
            Tidied::Minimum
        );
        assert_eq!(tidy_argument(&ArgValue::Int(2), &float_min), Tidied::Keep);
        // NaN compares false both ways: kept.
        let s = PropertySpec {
            kind: NumericKind::Number,
            minimum: Some(Number::Int(0)),
            maximum: Some(Number::Int(1)),
            ..optional()
        };
        assert_eq!(tidy_argument(&ArgValue::Float(f64::NAN), &s), Tidied::Keep);
    }

    #[test]
    fn numeric_strings_as_php_reads_them() {
        let cases: &[(&[u8], Option<Number>)] = &[
            (b"12", Some(Number::Int(12))),
            (b" 12", Some(Number::Int(12))),
            (b"12 ", Some(Number::Int(12))),
            (b"\x0C5\n", Some(Number::Int(5))),
            (b"+5", Some(Number::Int(5))),
            (b"-0", Some(Number::Int(0))),
            (b"1.", Some(Number::Float(1.0))),
            (b".5", Some(Number::Float(0.5))),
            (b"+.5", Some(Number::Float(0.5))),
            (b"1e3", Some(Number::Float(1000.0))),
            (b"1E-2", Some(Number::Float(0.01))),
            (b"9999999999999999999", Some(Number::Float(1e19))),
            (b"-9223372036854775808", Some(Number::Int(i64::MIN))),
            (b"", None),
            (b" ", None),
            (b".", None),
            (b"-", None),
            (b"1e", None),
            (b"1e+", None),
            (b"0x1A", None),
            (b"INF", None),
            (b"nan", None),
            (b"1 2", None),
            (b"12abc", None),
            (b"\x001", None),
        ];
        for (s, want) in cases {
            assert_eq!(parse_numeric(s), *want, "{:?}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn int_casts_match_php() {
        assert_eq!(float_to_int(3.9), 3);
        assert_eq!(float_to_int(-3.9), -3);
        assert_eq!(float_to_int(f64::NAN), 0);
        assert_eq!(float_to_int(f64::INFINITY), 0);
        assert_eq!(float_to_int(1e30), 5_076_964_154_930_102_272);
        assert_eq!(float_to_int(-1e30), -5_076_964_154_930_102_272);
        assert_eq!(float_to_int(9.223_372_036_854_776e18), i64::MIN);
        // Strings saturate instead.
        let s = integer(None, None);
        assert_eq!(
            tidy_argument(&ArgValue::Str(b"1e30"), &s),
            Tidied::Int(i64::MAX)
        );
        assert_eq!(
            tidy_argument(&ArgValue::Str(b"-1e30"), &s),
            Tidied::Int(i64::MIN)
        );
        assert_eq!(
            tidy_argument(&ArgValue::Str(b"9999999999999999999"), &s),
            Tidied::Int(i64::MAX)
        );
    }

    #[test]
    fn type_names_are_exact() {
        assert_eq!(
            NumericKind::from_type(Some(b"integer")),
            NumericKind::Integer
        );
        assert_eq!(NumericKind::from_type(Some(b"number")), NumericKind::Number);
        assert_eq!(NumericKind::from_type(Some(b"Integer")), NumericKind::None);
        assert_eq!(NumericKind::from_type(Some(b"int")), NumericKind::None);
        assert_eq!(NumericKind::from_type(None), NumericKind::None);
    }
}
