//! A required literal for a regex, so the scan can skip lines PCRE2 could never match.
//!
//! The literal is a run of bytes that every match of the pattern must contain, read from the
//! pattern's top level only. The reading is deliberately conservative: anything it does not
//! fully understand gives no literal (the scan then asks PCRE2 about every line), so the
//! prefilter can only ever skip lines on which PCRE2 would not match. PCRE2 still decides every
//! line the literal lets through, so a pattern matches exactly the lines `preg_match` matches.
//!
//! Under the `i` modifier (without `u`) the literal is ASCII and compared ignoring ASCII case:
//! without UTF mode PCRE2's built-in character tables pair only ASCII letters.
//!
//! Given up on (no literal): the `x` modifier, `i` together with `u` (Unicode case folding pairs
//! `k` with the Kelvin sign),  inline option settings (`(?i)`,
//! `(?x:`...), comments and callouts (`a(?#c)?` makes the `a` optional), `(*VERB)`s anywhere (`(*ACCEPT)` ends a match early, `(*UTF)` and friends change
//! the subject), `\Q...\E`, top-level alternation, escapes that take arguments (`\x41`, `\p{L}`,
//! `\g1`, `\c?`, back references) and unbalanced groups. Not literal (the run ends): groups,
//! classes, `.`, anchors, letter escapes, non-ASCII bytes (a quantifier after a UTF-8 character
//! repeats all of its bytes under `/u`), a line feed, and any atom followed by `?`, `*` or a
//! `{...}` quantifier.

/// Single-letter escapes that stand for one (non-literal) item and take no argument.
const PLAIN_LETTER_ESCAPES: &[u8] = b"wWdDsSbBhHvVRAzZGKXCntrfea";

/// What after `(?` makes the prefilter give up: an inline option setting (`imnsxJUar^-`), a
/// comment (`#`) or a callout (`C`); the last two vanish, so a quantifier after them repeats
/// the item before (`a(?#c)?` makes the `a` optional).
const AFTER_PAREN_QUESTION: &[u8] = b"imnsxJUar^-#C";

/// A literal every matching line contains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Required {
    /// The bytes (ASCII lower case when `caseless`).
    pub bytes: Vec<u8>,
    /// Whether a line holds it ignoring ASCII case (the `i` modifier).
    pub caseless: bool,
}

/// One item of the pattern's top level.
enum Atom {
    /// A byte that matches only itself.
    Literal(u8),
    /// Anything else (class, group, escape class, anchor...).
    Other,
}

/// How an atom is repeated.
enum Repeat {
    Once,
    /// At least once (`+`): the byte is required, but the run stops after it.
    OneOrMore,
    /// Possibly never (`?`, `*`, `{...}`).
    Optional,
}

/// The longest literal every match of `body` (the pattern between its delimiters) contains,
/// given the pattern's trailing `modifiers`; `None` when no safe literal is known.
pub fn required_literal(body: &[u8], modifiers: &[u8]) -> Option<Required> {
    let caseless = modifiers.contains(&b'i');
    if modifiers.contains(&b'x') || (caseless && modifiers.contains(&b'u')) {
        return None;
    }
    if has_global_hazard(body) {
        return None;
    }
    let mut runs: Vec<Vec<u8>> = Vec::new();
    let mut run = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let (atom, next) = atom_at(body, i)?;
        let (repeat, next) = repeat_at(body, next)?;
        i = next;
        match (atom, repeat) {
            (Atom::Literal(b), Repeat::Once) => run.push(b),
            (Atom::Literal(b), Repeat::OneOrMore) => {
                run.push(b);
                runs.push(std::mem::take(&mut run));
            }
            _ => runs.push(std::mem::take(&mut run)),
        }
    }
    runs.push(run);
    let mut bytes = runs
        .into_iter()
        .filter(|r| !r.is_empty())
        .reduce(|best, r| if r.len() > best.len() { r } else { best })?;
    if caseless {
        bytes.make_ascii_lowercase();
    }
    Some(Required { bytes, caseless })
}

/// Constructs anywhere in the pattern that change how the rest is read or matched.
fn has_global_hazard(body: &[u8]) -> bool {
    body.windows(2)
        .any(|w| matches!(w, [b'(', b'*'] | [b'\\', b'Q' | b'E']))
        || body
            .windows(3)
            .any(|w| w[0] == b'(' && w[1] == b'?' && AFTER_PAREN_QUESTION.contains(&w[2]))
}

/// The atom starting at `i` and the index after it; `None` to give up.
fn atom_at(body: &[u8], i: usize) -> Option<(Atom, usize)> {
    let &c = body.get(i)?;
    Some(match c {
        b'\\' => {
            let &e = body.get(i + 1)?;
            if e.is_ascii_alphanumeric() {
                if !PLAIN_LETTER_ESCAPES.contains(&e) {
                    return None;
                }
                (Atom::Other, i + 2)
            } else if e.is_ascii() && e != b'\n' {
                (Atom::Literal(e), i + 2)
            } else {
                (Atom::Other, i + 1)
            }
        }
        b'[' => (Atom::Other, class_end(body, i + 1)?),
        b'(' => (Atom::Other, group_end(body, i + 1)?),
        b'{' => (Atom::Other, brace_end(body, i + 1)?),
        b')' | b'|' => return None,
        b'.' | b'^' | b'$' | b'?' | b'*' | b'+' | b']' | b'}' | b'\n' => (Atom::Other, i + 1),
        c if !c.is_ascii() => (Atom::Other, i + 1),
        c => (Atom::Literal(c), i + 1),
    })
}

/// The quantifier at `i` (with its lazy `?` or possessive `+` suffix) and the index after it.
fn repeat_at(body: &[u8], i: usize) -> Option<(Repeat, usize)> {
    let (repeat, next) = match body.get(i) {
        Some(b'?' | b'*') => (Repeat::Optional, i + 1),
        Some(b'+') => (Repeat::OneOrMore, i + 1),
        // `{` may or may not be a quantifier; taking it as one that allows zero is safe.
        Some(b'{') => (Repeat::Optional, brace_end(body, i + 1)?),
        _ => return Some((Repeat::Once, i)),
    };
    match body.get(next) {
        Some(b'?' | b'+') => Some((repeat, next + 1)),
        _ => Some((repeat, next)),
    }
}

/// Index after the `}` closing a brace opened before `i`.
fn brace_end(body: &[u8], i: usize) -> Option<usize> {
    let at = body.get(i..)?.iter().position(|&c| c == b'}')?;
    Some(i + at + 1)
}

/// Index after the `]` closing a class whose `[` was just before `i`. A `]` first in the class
/// (after an optional `^`) is a member; `[:name:]` (and `[.x.]`, `[=x=]`) nest.
fn class_end(body: &[u8], mut i: usize) -> Option<usize> {
    if body.get(i) == Some(&b'^') {
        i += 1;
    }
    if body.get(i) == Some(&b']') {
        i += 1;
    }
    loop {
        match *body.get(i)? {
            b'\\' => i += 2,
            b']' => return Some(i + 1),
            b'[' if matches!(body.get(i + 1), Some(b':' | b'.' | b'=')) => {
                let close = [body[i + 1], b']'];
                let at = body.get(i + 2..)?.windows(2).position(|w| w == close)?;
                i += 2 + at + 2;
            }
            _ => i += 1,
        }
    }
}

/// Index after the `)` closing a group whose `(` was just before `i`. Ending late only hides
/// literals; it never ends before PCRE2's own end of the group.
fn group_end(body: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 1usize;
    loop {
        match *body.get(i)? {
            b'\\' => i += 2,
            b'[' => i = class_end(body, i + 1)?,
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::required_literal;

    fn lit(body: &str, mods: &str) -> Option<String> {
        required_literal(body.as_bytes(), mods.as_bytes()).map(|r| {
            assert_eq!(r.caseless, mods.contains('i'));
            String::from_utf8(r.bytes).unwrap()
        })
    }

    #[test]
    fn literal_runs_from_the_top_level() {
        assert_eq!(lit(r"build\w+\(\$ord", ""), Some("build".into()));
        assert_eq!(lit(r"ab\w\(\$order", "u"), Some("($order".into()));
        assert_eq!(lit("abc", "msuUDAJnSX"), Some("abc".into()));
        assert_eq!(lit("aBc", "i"), Some("abc".into()));
        assert_eq!(lit("a\\Bc(A)Bc\\$", "im"), Some("bc$".into()));
        assert_eq!(lit("xa+bcd", ""), Some("bcd".into()));
        assert_eq!(lit("xyza?bc", ""), Some("xyz".into()));
        assert_eq!(lit("ab*cd", ""), Some("cd".into()));
        assert_eq!(lit("ab{2}cd", ""), Some("cd".into()));
        assert_eq!(lit("a(?:xyz)?bc", ""), Some("bc".into()));
        assert_eq!(lit("[abc]de[fgh]", ""), Some("de".into()));
        assert_eq!(lit("[]abcdef]xy", ""), Some("xy".into()));
        assert_eq!(lit("[^]abcdef]xy", ""), Some("xy".into()));
        assert_eq!(lit("[[:alpha:]]xy", ""), Some("xy".into()));
        assert_eq!(lit("(a|bcdef)xy", ""), Some("xy".into()));
        assert_eq!(lit("ab??cd", ""), Some("cd".into()));
        assert_eq!(lit("ab*+cd", ""), Some("cd".into()));
    }

    #[test]
    fn nothing_when_unsure() {
        for (body, mods) in [
            ("abc", "iu"),
            ("abc", "ui"),
            ("abc", "x"),
            ("(?i)abc", ""),
            ("x(?x:a)bc", ""),
            ("ab(*ACCEPT)cd", ""),
            ("(*UTF)abc", ""),
            (r"\Qa.b\E", ""),
            ("abc|def", ""),
            (r"\x41bcd", ""),
            (r"\p{L}bcd", ""),
            (r"(a)\1bcd", ""),
            (r"\cAbcd", ""),
            ("a)bc", ""),
            ("(abc", ""),
            ("[abc", ""),
            ("ab{2", ""),
            ("[[:alpha]]bc", ""),
            ("a(?#c)?bc", ""),
            ("a(?C)?bc", ""),
            ("", ""),
            (".*", ""),
            ("é", "u"),
        ] {
            assert_eq!(lit(body, mods), None, "{body:?} /{mods}");
        }
        assert_eq!(lit("a\nbc", ""), Some("bc".into()));
        assert_eq!(lit("a\\\nbc", ""), Some("bc".into()));
    }

    /// The `i` reading rests on this: without UTF mode an ASCII byte caselessly matches only
    /// itself and its ASCII other case.
    #[test]
    fn caseless_without_utf_pairs_only_ascii_letters() {
        for c in 0x20u8..0x7f {
            let pattern = if c.is_ascii_alphanumeric() {
                vec![b'/', c, b'/', b'i']
            } else {
                vec![b'/', b'\\', c, b'/', b'i']
            };
            let re = super::super::compile_php_regex(&pattern).unwrap();
            for b in 0..=255u8 {
                let expected = b.eq_ignore_ascii_case(&c);
                assert_eq!(re.is_match(&[b]), Some(expected), "{c} {b}");
            }
        }
    }
}
