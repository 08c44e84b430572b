//! PHP 8.2's `html_entity_decode($s, ENT_QUOTES | ENT_HTML5, 'UTF-8')`, byte for byte.
//!
//! phpClaw's contract binding runs every string value of a tool envelope through that call
//! before encoding it, so the native encoder must decode exactly the same references and
//! leave exactly the same ones alone (rules from php-src `ext/standard/html.c`, checked with
//! the `php` CLI):
//! - a reference is `&`, then a name or `#digits` / `#x hexdigits` / `#X hexdigits`, then `;`;
//!   an `&` with fewer than 3 bytes after it is never a reference;
//! - names are ASCII letters and digits, looked up case-sensitively in the HTML5 table
//!   ([`table::ENTITIES`]); a name may stand for two code points;
//!   named references are never filtered by code point;
//! - numbers are parsed like C `strtol` (so a hex reference may carry its own `0x` prefix:
//!   `&#x0x41;` is `A`), must be at most U+10FFFF, and must be in [`NUMERIC_ALLOWED`];
//! - a rejected reference is copied as is, and scanning resumes where PHP's parser stopped,
//!   which is always before the next `&`;
//! - with `ENT_QUOTES` both quotes decode (`&quot;`, `&apos;`, `&#39;`).
//!
//! [`decode`] borrows its input when it contains nothing to decode (the common case).

use std::borrow::Cow;

/// The HTML5 name table, generated once from PHP (see its header).
#[path = "entities_table.rs"]
pub mod table;

use table::ENTITIES;

/// Longest name in the HTML5 table, without `&` and `;` (php-src `LONGEST_ENTITY_LENGTH`).
pub const LONGEST_ENTITY_NAME: usize = 31;

/// Code point ranges a numeric reference may produce under `ENT_HTML5` (php-src
/// `unicode_cp_is_allowed` for HTML5, minus U+000D which `traverse_for_entities` refuses in
/// numeric references). Planes' last two code points (U+xFFFE, U+xFFFF) and U+FDD0..U+FDEF
/// are refused separately by [`numeric_allowed`].
pub const NUMERIC_ALLOWED: &[(u32, u32)] = &[
    (0x09, 0x0A),
    (0x0C, 0x0C),
    (0x20, 0x7E),
    (0xA0, 0xD7FF),
    (0xE000, 0x10_FFFF),
];

/// Noncharacters U+FDD0..=U+FDEF, refused by PHP in numeric references.
const NONCHAR_BLOCK: (u32, u32) = (0xFDD0, 0xFDEF);

/// `true` when PHP decodes `&#<cp>;` under `ENT_HTML5`.
pub fn numeric_allowed(cp: u32) -> bool {
    NUMERIC_ALLOWED
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&cp))
        && (cp & 0xFFFF) < 0xFFFE
        && !(NONCHAR_BLOCK.0..=NONCHAR_BLOCK.1).contains(&cp)
}

/// The references that dominate real text, answered without touching the big table
/// (same texts as their rows in [`ENTITIES`]).
#[inline]
fn common(name: &[u8]) -> Option<&'static str> {
    Some(match name {
        b"amp" => "&",
        b"lt" => "<",
        b"gt" => ">",
        b"quot" => "\"",
        b"apos" => "'",
        b"nbsp" => "\u{a0}",
        _ => return None,
    })
}

/// For each leading ASCII byte, the range of [`ENTITIES`] whose names start with it, so a
/// lookup only binary-searches one letter's names (the table is sorted by bytes).
static FIRST_BYTE_RANGES: once_cell::sync::Lazy<[(u16, u16); 128]> =
    once_cell::sync::Lazy::new(|| {
        let mut r = [(0u16, 0u16); 128];
        for (i, (name, _)) in ENTITIES.iter().enumerate() {
            let i = u16::try_from(i).unwrap_or(u16::MAX);
            if let Some(slot) = name.first().and_then(|&b| r.get_mut(usize::from(b))) {
                if slot.1 == 0 {
                    *slot = (i, i + 1);
                } else {
                    slot.1 = i + 1;
                }
            }
        }
        r
    });

/// The decoded text of a named reference (`name` without `&` and `;`).
pub fn lookup(name: &[u8]) -> Option<&'static str> {
    if name.is_empty() || name.len() > LONGEST_ENTITY_NAME {
        return None;
    }
    if let Some(v) = common(name) {
        return Some(v);
    }
    let &(lo, hi) = name
        .first()
        .and_then(|&b| FIRST_BYTE_RANGES.get(usize::from(b)))?;
    let bucket = ENTITIES.get(usize::from(lo)..usize::from(hi))?;
    bucket
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .and_then(|i| bucket.get(i))
        .map(|(_, v)| *v)
}

/// Decodes HTML5 character references as PHP does; borrows `input` when nothing changes.
pub fn decode(input: &[u8]) -> Cow<'_, [u8]> {
    let Some(first) = memchr::memchr(b'&', input) else {
        return Cow::Borrowed(input);
    };
    let mut out: Vec<u8> = Vec::new();
    if decode_from(input, first, &mut out) {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(input)
    }
}

/// Decodes `input` and appends the result to `out` (no intermediate copy for callers that
/// are building a bigger buffer anyway).
pub fn decode_into(input: &[u8], out: &mut Vec<u8>) {
    match memchr::memchr(b'&', input) {
        None => out.extend_from_slice(input),
        Some(first) => {
            let start = out.len();
            if !decode_from(input, first, out) {
                out.truncate(start);
                out.extend_from_slice(input);
            }
        }
    }
}

/// Decodes starting at `first` (the first `&`), appending to `out`. Returns `false`, with
/// `out` left partially written, as soon as it is clear that nothing could be decoded.
fn decode_from(input: &[u8], first: usize, out: &mut Vec<u8>) -> bool {
    let mut changed = false;
    let mut p = first;
    // Lazily copy the untouched prefix only once a reference is actually decoded.
    let mut copied_upto = 0usize;
    loop {
        // Here input[p] == b'&'.
        if p + 3 >= input.len() {
            break;
        }
        match parse_reference(input, p) {
            Ok((next, decoded)) => {
                if !changed {
                    out.reserve(input.len());
                    changed = true;
                }
                out.extend_from_slice(input.get(copied_upto..p).unwrap_or_default());
                decoded.write(out);
                p = next;
                copied_upto = next;
            }
            Err(next) => p = next,
        }
        match next_amp(input, p) {
            Some(i) => p = i,
            None => break,
        }
    }
    if changed {
        out.extend_from_slice(input.get(copied_upto..).unwrap_or_default());
    }
    changed
}

/// Position of the next `&` at or after `from`. References cluster in entity-heavy text, so
/// a short word-at-a-time scan comes first and memchr takes over for long runs.
#[inline]
fn next_amp(input: &[u8], from: usize) -> Option<usize> {
    const SHORT: usize = 64;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const AMPS: u64 = 0x2626_2626_2626_2626;
    let mut i = from;
    while i - from < SHORT {
        let Some(chunk) = input.get(i..i + 8) else {
            break;
        };
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // A zero byte in `x` is an '&' in the chunk; the lowest flagged byte is the first.
        let x = u64::from_le_bytes(word) ^ AMPS;
        let found = x.wrapping_sub(ONES) & !x & HIGHS;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr(b'&', input.get(i..)?).map(|k| i + k)
}

/// What a valid reference decodes to.
enum Decoded {
    Cp(u32),
    Text(&'static str),
}

impl Decoded {
    #[inline]
    fn write(self, out: &mut Vec<u8>) {
        match self {
            Decoded::Text(s) => match s.as_bytes() {
                [b] => out.push(*b),
                bytes => out.extend_from_slice(bytes),
            },
            Decoded::Cp(cp) if cp < 0x80 => out.push(cp as u8),
            Decoded::Cp(cp) => {
                // numeric_allowed() excludes surrogates and > U+10FFFF.
                if let Some(c) = char::from_u32(cp) {
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
}

/// Value of an ASCII digit in base 10 or 16, or `None`.
#[inline]
fn digit(c: u8, hex: bool) -> Option<u32> {
    match c {
        b'0'..=b'9' => Some(u32::from(c - b'0')),
        b'a'..=b'f' if hex => Some(u32::from(c - b'a' + 10)),
        b'A'..=b'F' if hex => Some(u32::from(c - b'A' + 10)),
        _ => None,
    }
}

/// Parses the reference starting at `input[amp] == b'&'`. `Ok((after_semicolon, text))`
/// on success, `Err(resume)` with the position where PHP's parser stopped otherwise.
#[inline]
fn parse_reference(input: &[u8], amp: usize) -> Result<(usize, Decoded), usize> {
    // Past the end reads as NUL, like the C string PHP scans.
    let at = |i: usize| input.get(i).copied().unwrap_or(0);
    if at(amp + 1) == b'#' {
        let mut i = amp + 2;
        let hex = matches!(at(i), b'x' | b'X');
        if hex {
            i += 1;
        }
        if digit(at(i), hex).is_none() {
            return Err(i);
        }
        // strtol in base 16 skips a "0x"/"0X" prefix when a hex digit follows it.
        if hex && at(i) == b'0' && matches!(at(i + 1), b'x' | b'X') && at(i + 2).is_ascii_hexdigit()
        {
            i += 2;
        }
        // Saturate like strtol: anything past U+10FFFF is refused anyway.
        let radix: u64 = if hex { 16 } else { 10 };
        let mut value: u64 = 0;
        while let Some(d) = digit(at(i), hex) {
            value = value.saturating_mul(radix).saturating_add(u64::from(d));
            i += 1;
        }
        if at(i) != b';' {
            return Err(i);
        }
        let cp = u32::try_from(value).unwrap_or(u32::MAX);
        if cp > 0x10_FFFF || !numeric_allowed(cp) {
            return Err(i);
        }
        Ok((i + 1, Decoded::Cp(cp)))
    } else {
        let start = amp + 1;
        let mut i = start;
        while at(i).is_ascii_alphanumeric() {
            i += 1;
        }
        if at(i) != b';' || i == start {
            return Err(i);
        }
        let name = input.get(start..i).unwrap_or_default();
        match lookup(name) {
            Some(text) => Ok((i + 1, Decoded::Text(text))),
            None => Err(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &[u8]) -> Vec<u8> {
        decode(s).into_owned()
    }

    #[test]
    fn php_parity_table() {
        // (input, expected) — expected bytes from php 8.2:
        // html_entity_decode($in, ENT_QUOTES | ENT_HTML5, 'UTF-8')
        let cases: &[(&[u8], &[u8])] = &[
            (b"plain text", b"plain text"),
            (b"&lt;", b"<"),
            (b"x&lt;", b"x<"),
            (b"&amp;amp;", b"&amp;"),
            (b"&#39;&#x27;&#X27;&apos;&quot;", b"''''\""),
            (b"&AMP;", b"&"),
            (b"&Amp;", b"&Amp;"),
            (b"&nbsp;", "\u{a0}".as_bytes()),
            (b"&NotSubset;", "\u{2282}\u{20d2}".as_bytes()),
            (b"&fjlig;", b"fj"),
            (b"&NewLine;", b"\n"),
            (b"&#x0x41;", b"A"),
            (b"&#X0X41;", b"A"),
            (b"&#x0X41;", b"A"),
            (b"&#x0x;", b"&#x0x;"),
            (b"&#0041;", b")"),
            (b"&#x000041;", b"A"),
            (b"&#99999999999999999999999;", b"&#99999999999999999999999;"),
            (b"&#65", b"&#65"),
            (b"&lt", b"&lt"),
            (b"&a;", b"&a;"),
            (b"&;", b"&;"),
            (b"&#;", b"&#;"),
            (b"&#x;", b"&#x;"),
            (b"&#x41;&", b"A&"),
            (b"&#x 41;", b"&#x 41;"),
            (b"&#+65;", b"&#+65;"),
            (b"&#-65;", b"&#-65;"),
            (b"&#65&lt;", b"&#65<"),
            (b"&lt&lt;", b"&lt<"),
            (b"&#0;", b"&#0;"),
            (b"&#13;", b"&#13;"),
            (b"&#9;", b"\t"),
            (b"&#xD800;", b"&#xD800;"),
            (b"&#x10FFFF;", b"&#x10FFFF;"),
            (b"&#x10FFFD;", "\u{10fffd}".as_bytes()),
            (b"&#x110000;", b"&#x110000;"),
            (b"&#xFDD0;", b"&#xFDD0;"),
            (b"&#xFDF0;", "\u{fdf0}".as_bytes()),
            (b"&#127;", b"&#127;"),
            (b"&#160;", "\u{a0}".as_bytes()),
            // Invalid UTF-8 around references is carried through untouched.
            (b"\xff&lt;\xfe", b"\xff<\xfe"),
            // `&` too close to the end.
            (b"a&lt", b"a&lt"),
            (b"&#9", b"&#9"),
            (b"&", b"&"),
            (b"&&&&", b"&&&&"),
        ];
        for (input, want) in cases {
            assert_eq!(
                dec(input),
                want.to_vec(),
                "input {:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn numeric_allowed_ranges() {
        // Boundaries measured with php over every code point 0..=0x110001.
        let allowed = [
            0x9, 0xA, 0xC, 0x20, 0x7E, 0xA0, 0xD7FF, 0xE000, 0xFDCF, 0xFDF0, 0xFFFD, 0x10000,
            0x1FFFD, 0x10FFFD,
        ];
        let refused = [
            0x0, 0x8, 0xB, 0xD, 0x1F, 0x7F, 0x9F, 0xD800, 0xDFFF, 0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF,
            0x1FFFE, 0x1FFFF, 0x10FFFE, 0x10FFFF, 0x110000,
        ];
        for cp in allowed {
            assert!(numeric_allowed(cp), "{cp:#x}");
            let s = format!("&#x{cp:X};");
            assert_ne!(dec(s.as_bytes()), s.as_bytes(), "{cp:#x}");
        }
        for cp in refused {
            assert!(!numeric_allowed(cp), "{cp:#x}");
            let s = format!("&#{cp};");
            assert_eq!(dec(s.as_bytes()), s.as_bytes(), "{cp:#x}");
        }
    }

    #[test]
    fn borrowed_when_nothing_decodes() {
        assert!(matches!(decode(b"no amp here"), Cow::Borrowed(_)));
        assert!(matches!(decode(b"a & b &c; &#x;"), Cow::Borrowed(_)));
        assert!(matches!(decode(b"&lt;"), Cow::Owned(_)));
        let mut out = b"pre:".to_vec();
        decode_into(b"a & b", &mut out);
        assert_eq!(out, b"pre:a & b");
        decode_into(b"&gt;", &mut out);
        assert_eq!(out, b"pre:a & b>");
    }

    #[test]
    fn name_length_limit() {
        // The longest name (31 bytes) decodes; 32 bytes is never a name.
        let longest = "CounterClockwiseContourIntegral";
        assert_eq!(longest.len(), LONGEST_ENTITY_NAME);
        assert_eq!(
            dec(format!("&{longest};").as_bytes()),
            "\u{2233}".as_bytes()
        );
        assert_eq!(lookup(&[b'a'; 32]), None);
        assert_eq!(lookup(b""), None);
        assert!(ENTITIES.iter().all(|(n, _)| n.len() <= LONGEST_ENTITY_NAME));
        assert_eq!(ENTITIES.len(), 2125);
        assert!(ENTITIES.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
