//! The tool-result cap: one oversized result is cut before it is resent on every later turn.
//!
//! Rules (spec "Tool result size"; phpClaw's `Agent::capToolResult`):
//! - The ceiling is given in tokens at four bytes each (PHP measures with `strlen`); the
//!   default is 2500 tokens, 10,000 bytes. 0 (or any value below 1) disables the cut.
//! - A result of at most the ceiling is returned untouched (no copy).
//! - A longer result keeps its first bytes up to the ceiling, backed off to the start of a
//!   character so no UTF-8 sequence is split (PHP's `substr` would split it), followed by a
//!   newline and the reference's note naming the ceiling.

use std::borrow::Cow;

use super::fit::CHARS_PER_TOKEN;

/// Default ceiling in tokens for one tool result (spec: 2500 tokens, 10,000 characters).
pub const DEFAULT_MAX_TOOL_RESULT_TOKENS: i64 = 2500;

/// The text appended to a cut result, word for word as phpClaw appends it.
pub fn cap_note(max_tokens: i64) -> String {
    format!(
        "\n[phpClaw: tool output cut at {max_tokens} tokens. Narrow the request, or page with offset if the tool supports it.]"
    )
}

/// Byte ceiling for a token ceiling: `None` when the cut is off or the ceiling is unreachable.
fn limit_bytes(max_tokens: i64) -> Option<usize> {
    if max_tokens <= 0 {
        return None;
    }
    usize::try_from(max_tokens)
        .ok()?
        .checked_mul(CHARS_PER_TOKEN)
}

/// Cuts a tool result at `max_tokens` estimated tokens and appends the note; 0 disables.
pub fn cap_result(text: &str, max_tokens: i64) -> Cow<'_, str> {
    let Some(limit) = limit_bytes(max_tokens) else {
        return Cow::Borrowed(text);
    };
    if text.len() <= limit {
        return Cow::Borrowed(text);
    }
    let mut cut = limit;
    while cut > 0 && !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = text.get(..cut).unwrap_or("");
    Cow::Owned(format!("{head}{}", cap_note(max_tokens)))
}

/// [`cap_result`] for PHP strings that may not be UTF-8: never cuts inside a valid sequence.
///
/// The cut backs off over at most three UTF-8 continuation bytes, so a valid multi-byte
/// character is never split and arbitrary bytes still cost constant work.
pub fn cap_result_bytes(bytes: &[u8], max_tokens: i64) -> Cow<'_, [u8]> {
    let Some(limit) = limit_bytes(max_tokens) else {
        return Cow::Borrowed(bytes);
    };
    if bytes.len() <= limit {
        return Cow::Borrowed(bytes);
    }
    let is_continuation = |i: usize| bytes.get(i).is_some_and(|b| b & 0xC0 == 0x80);
    let mut cut = limit;
    let mut steps = 0;
    while cut > 0 && steps < 3 && is_continuation(cut) {
        cut -= 1;
        steps += 1;
    }
    if is_continuation(cut) {
        // Not a valid sequence at all: no character to protect, cut at the ceiling.
        cut = limit;
    }
    let mut out = bytes.get(..cut).unwrap_or(&[]).to_vec();
    out.extend_from_slice(cap_note(max_tokens).as_bytes());
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE_2500: &str = "\n[phpClaw: tool output cut at 2500 tokens. Narrow the request, or page with offset if the tool supports it.]";

    #[test]
    fn default_ceiling_at_the_limit_and_one_past() {
        let at = "a".repeat(10_000);
        assert!(matches!(
            cap_result(&at, DEFAULT_MAX_TOOL_RESULT_TOKENS),
            Cow::Borrowed(_)
        ));
        let past = "a".repeat(10_001);
        let out = cap_result(&past, DEFAULT_MAX_TOOL_RESULT_TOKENS);
        assert_eq!(out, format!("{}{NOTE_2500}", "a".repeat(10_000)));
    }

    #[test]
    fn zero_and_negative_disable() {
        let big = "x".repeat(50_000);
        assert_eq!(cap_result(&big, 0).len(), 50_000);
        assert_eq!(cap_result(&big, -5).len(), 50_000);
        assert_eq!(cap_result(&big, i64::MAX).len(), 50_000);
    }

    #[test]
    fn small_ceilings_and_the_note_names_the_ceiling() {
        assert_eq!(cap_result("abcdefghi", 2), "abcdefgh\n[phpClaw: tool output cut at 2 tokens. Narrow the request, or page with offset if the tool supports it.]");
        assert_eq!(cap_result("abcdefgh", 2), "abcdefgh");
        assert_eq!(cap_result("", 1), "");
    }

    #[test]
    fn never_splits_a_character() {
        // "é" is two bytes: 3 x "é" = 6 bytes; a 4-byte ceiling falls on a boundary.
        assert!(cap_result("ééé", 1).starts_with("éé\n"));
        // "€" is three bytes: the 4-byte ceiling falls inside the second one.
        let out = cap_result("€€€", 1);
        assert!(out.starts_with("€\n[phpClaw"));
        // A four-byte emoji under a 4-byte ceiling is kept whole or not at all.
        assert!(cap_result("😀😀", 1).starts_with("😀\n"));
        assert!(cap_result("a😀", 1).starts_with("a\n"));
    }

    #[test]
    fn byte_variant_matches_and_copes_with_invalid_utf8() {
        for s in ["€€€", "ééé", "abcdefghi", "a😀😀"] {
            assert_eq!(
                cap_result_bytes(s.as_bytes(), 1).as_ref(),
                cap_result(s, 1).as_bytes()
            );
        }
        let junk = [0x80u8; 10];
        let out = cap_result_bytes(&junk, 1);
        assert_eq!(out.get(..4), Some(&[0x80u8; 4][..]));
        assert!(matches!(cap_result_bytes(&junk, 0), Cow::Borrowed(_)));
    }
}
