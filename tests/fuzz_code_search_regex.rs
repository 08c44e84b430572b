//! Differential property tests for code_search's fast paths against the straightforward scan.
//!
//! - Patterns built from a token grammar (literals, escapes, classes, groups, lookarounds,
//!   quantifiers with lazy and possessive suffixes, alternation, inline options, verbs,
//!   `\Q...\E`, back references, non-ASCII, modifiers `imsxuUAD`): whenever PCRE2 matches a
//!   line, the line holds the pattern's required literal, if one was found.
//! - Whole buffers (lines joined with `\n`, `\r\n` inside some, with or without a final `\n`):
//!   the lines the buffer scan reports, for the regex with its prefilter and for a literal,
//!   are exactly the lines a split-and-test-each-line scan reports, with the same numbers.
//!
//! Default case counts keep the file to a few seconds; set `PROPTEST_CASES` for a long run.

use memchr::memmem;
use phpclaw::core::tools::code_search::compile_php_regex;
use phpclaw::core::tools::code_search::scan::{for_each_match, Matcher};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000)
}

/// Pattern pieces that keep a literal run going or end it plainly.
const PLAIN: &[&str] = &[
    "a", "b", "ab", "c", "A", "Bc", "k", " ", "#", "-", "\\(", "\\)", "\\$", "\\.", "\\\\", "\\ ",
    "\\#",
];
/// Pieces the prefilter reads as non-literal items.
const ITEMS: &[&str] = &[
    "]",
    "}",
    "é",
    "\\é",
    ".",
    "^",
    "$",
    "\\w",
    "\\d",
    "\\s",
    "\\b",
    "\\B",
    "\\K",
    "\\A",
    "\\z",
    "\\n",
    "\\t",
    "[ab]",
    "[^a]",
    "[]a]",
    "[^]b]",
    "[a-c]",
    "[[:alpha:]]",
    "[\\]a]",
    "[(|)]",
    "(?#c)",
    "(?#a)b)",
    "{",
    "{2}",
    "a{",
    "(?|a|b)",
];
/// Pieces that make the prefilter give up (or that PCRE2 may refuse).
const HAZARDS: &[&str] = &[
    "\\x61",
    "\\x{62}",
    "\\141",
    "\\p{L}",
    "\\pL",
    "\\cA",
    "\\1",
    "\\g1",
    "\\k<n>",
    "(?<n>a)",
    "\\Qa.b\\E",
    "\\Qab",
    "\\E",
    "(*ACCEPT)",
    "(*FAIL)",
    "(*UTF)",
    "(*UCP)",
    "(?i)",
    "(?-i)",
    "(?x)",
    "(?s)",
    "(?U)",
    "|",
];
const QUANTIFIERS: &[&str] = &[
    "", "", "", "", "", "", "", "", "", "", "?", "*", "+", "{2}", "{1,2}", "{,2}", "{0}", "{1,}",
];
/// After a quantifier: lazy, possessive, or a second quantifier (which PCRE2 refuses).
const SUFFIXES: &[&str] = &["", "", "?", "+", "{0}"];
const OPENERS: &[&str] = &[
    "(", "(", "(", "(?:", "(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>", "(?i:", "(?x:", "(?|",
];

fn quantified(atom: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (
        atom,
        prop::sample::select(QUANTIFIERS),
        prop::sample::select(SUFFIXES),
    )
        .prop_map(|(a, q, s)| format!("{a}{q}{}", if q.is_empty() { "" } else { s }))
}

fn group(inner: impl Strategy<Value = String> + Clone) -> impl Strategy<Value = String> {
    let body = (
        prop::sample::select(OPENERS),
        prop::collection::vec(inner.clone(), 0..4),
        prop::option::weighted(0.3, prop::collection::vec(inner, 0..3)),
    )
        .prop_map(|(open, seq, alt)| {
            let alt = alt.map_or(String::new(), |a| format!("|{}", a.concat()));
            format!("{open}{}{alt})", seq.concat())
        });
    quantified(body)
}

/// One top-level piece: mostly a quantified atom, sometimes a group up to two levels deep.
fn piece() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        12 => prop::sample::select(PLAIN).prop_map(String::from),
        4 => prop::sample::select(ITEMS).prop_map(String::from),
        1 => prop::sample::select(HAZARDS).prop_map(String::from),
    ];
    let leaf = quantified(atom).boxed();
    let level1 = prop_oneof![5 => leaf.clone(), 1 => group(leaf.clone())].boxed();
    prop_oneof![6 => leaf, 1 => group(level1)]
}

fn pattern() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(piece(), 1..9),
        prop::collection::vec(prop::sample::select(&b"imsxuUAD"[..]), 0..2),
    )
        .prop_map(|(body, mods)| format!("/{}/{}", body.concat(), String::from_utf8_lossy(&mods)))
}

/// Lines from bytes the patterns use, so that matches are common.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let bytes: Vec<Vec<u8>> = [
        "a", "b", "c", "ab", " ", "#", "$", "(", ")", ".", "\\", "]", "é", "\r", "\t", "-",
        "\u{1}", "\u{ff}",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .chain([vec![0xff]])
    .collect();
    prop::collection::vec(prop::sample::select(bytes), 0..12).prop_map(|v| v.concat())
}

fn buffer() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(line(), 0..12), any::<bool>()).prop_map(|(lines, final_newline)| {
        let mut buf = lines.join(&b'\n');
        if final_newline {
            buf.push(b'\n');
        }
        buf
    })
}

/// The straightforward reading: split on `\n`, the piece after a final `\n` dropped.
fn split_lines(buf: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = buf.split(|&c| c == b'\n').collect();
    if buf.last() == Some(&b'\n') || buf.is_empty() {
        lines.pop();
    }
    lines
}

fn scanned(buf: &[u8], m: &Matcher) -> Vec<usize> {
    let mut out = Vec::new();
    let mut skipped = 0;
    for_each_match(buf, m, &mut skipped, |l| {
        out.push(l.number);
        true
    });
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn required_literal_is_in_every_matching_line(p in pattern(), lines in prop::collection::vec(line(), 1..10)) {
        let Some(re) = compile_php_regex(p.as_bytes()) else { return Ok(()) };
        let Some(lit) = re.required_literal().cloned() else { return Ok(()) };
        prop_assert!(!lit.bytes.is_empty());
        for l in &lines {
            if re.is_match(l) == Some(true) {
                let hay = if lit.caseless { l.to_ascii_lowercase() } else { l.clone() };
                prop_assert!(memmem::find(&hay, &lit.bytes).is_some(), "{p} literal {:?} line {:?}", lit, l);
            }
        }
    }

    #[test]
    fn buffer_scan_reports_the_split_lines(p in pattern(), buf in buffer(), needle in line()) {
        let lines = split_lines(&buf);
        if let Some(re) = compile_php_regex(p.as_bytes()) {
            let expected: Vec<usize> = (0..lines.len())
                .filter(|&i| re.is_match(lines[i]) == Some(true))
                .map(|i| i + 1)
                .collect();
            prop_assert_eq!(scanned(&buf, &Matcher::regex(re)), expected, "{}", p);
        }
        if !needle.is_empty() {
            let expected: Vec<usize> = (0..lines.len())
                .filter(|&i| memmem::find(lines[i], &needle).is_some())
                .map(|i| i + 1)
                .collect();
            prop_assert_eq!(scanned(&buf, &Matcher::literal(&needle)), expected);
        }
    }
}

/// Patterns each construct the prefilter gives up on, with lines that show why: a literal
/// from them would skip a line PCRE2 matches.
#[test]
fn hazards_still_match_their_lines() {
    for (p, line) in [
        ("/abc/iu", "ABC"),
        ("/k/iu", "\u{212a}"),
        ("/a b/x", "ab"),
        ("/(?i)abc/", "ABC"),
        ("/ab(*ACCEPT)cd/", "ab"),
        ("/\\Qa.b\\E/", "a.b"),
        ("/abc|xyz/", "xyz"),
        ("/\\x41BC/", "ABC"),
        ("/((?x)#)\nfoo)?bar/", "bar"),
        ("/é?ab/u", "ab"),
        ("/\\é?ab/u", "ab"),
        ("/xa(?#c)?yz/", "xyz"),
    ] {
        let re = compile_php_regex(p.as_bytes()).unwrap_or_else(|| panic!("{p}"));
        assert_eq!(re.is_match(line.as_bytes()), Some(true), "{p}");
        let m = Matcher::regex(re);
        assert_eq!(scanned(line.as_bytes(), &m), vec![1], "{p}");
    }
}
