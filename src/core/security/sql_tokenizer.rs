//! A single-pass SQL lexer used by the read-only guard (`sql_guard`).
//!
//! Rules:
//! - The lexer never fails: every byte of the input lands in exactly one token (whitespace
//!   aside), and problems are tokens too (`Illegal`, or a literal/comment whose
//!   `terminated` is false), so the guard can report the first problem in text order.
//! - One query can be read differently by different engines (`"x"` is a string in MySQL and
//!   an identifier elsewhere; `\'` ends a string only where backslash is not an escape;
//!   `$$` opens a string only in PostgreSQL; `[x]` is an identifier only in SQLite). The
//!   caller picks a [`Dialect`]; the guard lexes under every entry of [`ALL_DIALECTS`] and
//!   accepts only what every reading accepts.
//! - Whitespace is space, tab, LF and CR; any other control byte below 0x20 or any
//!   non-ASCII character outside a literal is an `Illegal` token (one per character).
//! - Time is linear in the input: each byte is visited a bounded number of times, there is
//!   no recursion and no backtracking; spans always fall on UTF-8 character boundaries.

/// How quotes, escapes and comments are read. Each variant is one engine's reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// phpClaw's generic reading: `'`, `"` and backtick literals end at an undoubled quote,
    /// backslash is an ordinary character.
    Generic,
    /// MySQL / MariaDB default mode: backslash escapes inside `'...'` and `"..."`.
    MySql,
    /// PostgreSQL with `standard_conforming_strings = on` (the default since 9.1):
    /// `E'...'` strings take backslash escapes, `$tag$...$tag$` dollar quotes, nested
    /// block comments, `$` allowed inside identifiers, `$1` placeholders.
    Postgres,
    /// PostgreSQL with `standard_conforming_strings = off`: as `Postgres`, but backslash
    /// also escapes inside plain `'...'` strings.
    PostgresLegacy,
    /// SQLite: `[name]` is a quoted identifier (no escape inside), otherwise generic.
    Sqlite,
}

/// Every reading the guard must be safe under; `Generic` first so its messages match
/// phpClaw's for the queries phpClaw refuses.
pub const ALL_DIALECTS: &[Dialect] = &[
    Dialect::Generic,
    Dialect::MySql,
    Dialect::Postgres,
    Dialect::PostgresLegacy,
    Dialect::Sqlite,
];

/// The three comment forms, named because each has its own refusal message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    /// `-- ...` up to the end of the line (any `--`, even without a following space).
    DashDash,
    /// `# ...` up to the end of the line (MySQL; refused everywhere).
    Hash,
    /// `/* ... */`, including MySQL's executable `/*! ... */` and `/*+ hints */`.
    Block,
}

/// The quote style of a quoted identifier (or a `"..."` that MySQL reads as a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteStyle {
    /// `` `name` `` with a doubled backtick as escape.
    Backtick,
    /// `"name"` with a doubled quote as escape (backslash too under MySQL).
    Double,
    /// `[name]`, SQLite / SQL Server (only lexed under [`Dialect::Sqlite`]).
    Bracket,
}

/// What a token is. Keywords and bare identifiers are both `Word`: SQL decides which is
/// which by grammar, and the guard treats every word as a possible keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*` (plus `$` after the first byte under MySQL/PostgreSQL).
    /// Under PostgreSQL a lone `E`/`e` touching a quote is the prefix of a `String`.
    Word,
    /// A run starting with a digit: `42`, `1.5e3`, `0x1F`, or MySQL's digit-led names.
    Number,
    /// `'...'`, including one prefixed `E`/`e` under PostgreSQL (backslash escapes).
    String,
    /// `$$...$$` or `$tag$...$tag$` (PostgreSQL only).
    DollarString,
    /// A quoted identifier; see [`QuoteStyle`].
    QuotedIdent(QuoteStyle),
    /// A comment of any form.
    Comment(CommentKind),
    /// `?`, `:name`, or `$1` (PostgreSQL).
    Placeholder,
    /// `;`
    Semicolon,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// Any other printable ASCII byte (`,`, `.`, `=`, `[`, ...); one byte per token.
    Operator,
    /// A control byte other than whitespace, or a non-ASCII character, outside a literal.
    Illegal,
}

/// One lexed token; `start..end` is a byte span of the input on char boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// What was lexed.
    pub kind: TokenKind,
    /// First byte of the token, prefix included (the `E` of `E'..'`).
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// False for a literal, quoted identifier or block comment that reached the end of the
    /// input without its closing delimiter.
    pub terminated: bool,
}

impl Token {
    /// The token's text in `sql` (empty if the span does not fit, which cannot happen for
    /// a token produced from that same `sql`).
    pub fn text<'a>(&self, sql: &'a str) -> &'a str {
        sql.get(self.start..self.end).unwrap_or("")
    }
}

impl Dialect {
    fn backslash_in_single(self) -> bool {
        matches!(self, Dialect::MySql | Dialect::PostgresLegacy)
    }
    fn backslash_in_double(self) -> bool {
        matches!(self, Dialect::MySql)
    }
    fn postgres(self) -> bool {
        matches!(self, Dialect::Postgres | Dialect::PostgresLegacy)
    }
    fn dollar_in_words(self) -> bool {
        matches!(
            self,
            Dialect::MySql | Dialect::Postgres | Dialect::PostgresLegacy
        )
    }
}

/// Whitespace between tokens (the set phpClaw's lexer skips).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Lexes `sql` under one engine's reading. Never fails and never panics; see the module doc.
pub fn tokenize(sql: &str, dialect: Dialect) -> Vec<Token> {
    let bytes = sql.as_bytes();
    let len = bytes.len();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < len {
        let b = bytes[i];
        let start = i;
        let at = |k: usize| bytes.get(k).copied();
        let (kind, end, terminated) = if is_space(b) {
            i += 1;
            continue;
        } else if is_word_byte(b) {
            let digit_led = b.is_ascii_digit();
            // PostgreSQL never lets `$` continue a number: `1$q$` is 1 then a dollar quote.
            let dollar = dialect.dollar_in_words() && !(digit_led && dialect.postgres());
            let mut j = i + 1;
            while let Some(c) = at(j) {
                if is_word_byte(c) || (c == b'$' && dollar) {
                    j += 1;
                } else {
                    break;
                }
            }
            let last = j.checked_sub(1).and_then(at);
            let e_quote =
                dialect.postgres() && matches!(last, Some(b'E' | b'e')) && at(j) == Some(b'\'');
            if e_quote && j == i + 1 {
                // PostgreSQL escape string E'...' (the prefix touches the quote).
                let (end, ok) = scan_quoted(bytes, j, b'\'', true);
                (TokenKind::String, end, ok)
            } else if e_quote && digit_led {
                // PostgreSQL before 15 reads `1e'..'` as 1 then an E-string: stop before `e`.
                (TokenKind::Number, j - 1, true)
            } else if digit_led {
                (TokenKind::Number, j, true)
            } else {
                (TokenKind::Word, j, true)
            }
        } else {
            match b {
                b'\'' => {
                    let (end, ok) = scan_quoted(bytes, i, b'\'', dialect.backslash_in_single());
                    (TokenKind::String, end, ok)
                }
                b'"' => {
                    let (end, ok) = scan_quoted(bytes, i, b'"', dialect.backslash_in_double());
                    (TokenKind::QuotedIdent(QuoteStyle::Double), end, ok)
                }
                b'`' => {
                    let (end, ok) = scan_quoted(bytes, i, b'`', false);
                    (TokenKind::QuotedIdent(QuoteStyle::Backtick), end, ok)
                }
                b'[' if dialect == Dialect::Sqlite => match find_byte(bytes, i + 1, b']') {
                    Some(k) => (TokenKind::QuotedIdent(QuoteStyle::Bracket), k + 1, true),
                    None => (TokenKind::QuotedIdent(QuoteStyle::Bracket), len, false),
                },
                b'-' if at(i + 1) == Some(b'-') => (
                    TokenKind::Comment(CommentKind::DashDash),
                    line_end(bytes, i),
                    true,
                ),
                b'#' => (
                    TokenKind::Comment(CommentKind::Hash),
                    line_end(bytes, i),
                    true,
                ),
                b'/' if at(i + 1) == Some(b'*') => {
                    let (end, ok) = scan_block_comment(bytes, i, dialect.postgres());
                    (TokenKind::Comment(CommentKind::Block), end, ok)
                }
                b'$' if dialect.postgres() => lex_dollar(bytes, i),
                b'?' => (TokenKind::Placeholder, i + 1, true),
                b':' if at(i + 1).is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                    && (i == 0 || at(i - 1) != Some(b':')) =>
                {
                    let mut j = i + 1;
                    while at(j).is_some_and(is_word_byte) {
                        j += 1;
                    }
                    (TokenKind::Placeholder, j, true)
                }
                b';' => (TokenKind::Semicolon, i + 1, true),
                b'(' => (TokenKind::LParen, i + 1, true),
                b')' => (TokenKind::RParen, i + 1, true),
                // DEL passes as punctuation, as in phpClaw: no engine reads it as a quote,
                // a comment or whitespace, so it cannot move a token boundary.
                0x21..=0x7f => (TokenKind::Operator, i + 1, true),
                _ => (TokenKind::Illegal, char_end(sql, i), true),
            }
        };
        // Every branch consumes at least one byte; guard anyway so a bug cannot loop.
        let end = end.clamp(start + 1, len);
        out.push(Token {
            kind,
            start,
            end,
            terminated,
        });
        i = end;
    }
    out
}

/// End of the UTF-8 character starting at byte `i` (at least `i + 1`).
fn char_end(sql: &str, i: usize) -> usize {
    let mut j = i + 1;
    while j < sql.len() && !sql.is_char_boundary(j) {
        j += 1;
    }
    j
}

fn find_byte(bytes: &[u8], from: usize, needle: u8) -> Option<usize> {
    bytes
        .get(from..)
        .and_then(|rest| rest.iter().position(|&c| c == needle))
        .map(|p| from + p)
}

/// End of a line comment: the newline stays outside the token.
fn line_end(bytes: &[u8], from: usize) -> usize {
    find_byte(bytes, from, b'\n').unwrap_or(bytes.len())
}

/// Scans a literal opened by `quote` at `open`: a doubled quote is an escaped quote, and a
/// backslash (when `backslash`) escapes the next byte. Returns (end, terminated).
fn scan_quoted(bytes: &[u8], open: usize, quote: u8, backslash: bool) -> (usize, bool) {
    let mut j = open + 1;
    while let Some(&c) = bytes.get(j) {
        if backslash && c == b'\\' {
            j += 2;
        } else if c == quote {
            if bytes.get(j + 1) == Some(&quote) {
                j += 2;
            } else {
                return (j + 1, true);
            }
        } else {
            j += 1;
        }
    }
    (bytes.len(), false)
}

/// Scans `/* ... */` from `open`; PostgreSQL nests them, others end at the first `*/`.
fn scan_block_comment(bytes: &[u8], open: usize, nested: bool) -> (usize, bool) {
    let mut depth = 1usize;
    let mut j = open + 2;
    while j < bytes.len() {
        let c = bytes.get(j).copied();
        let d = bytes.get(j + 1).copied();
        if c == Some(b'*') && d == Some(b'/') {
            depth -= 1;
            j += 2;
            if depth == 0 {
                return (j, true);
            }
        } else if nested && c == Some(b'/') && d == Some(b'*') {
            depth += 1;
            j += 2;
        } else {
            j += 1;
        }
    }
    (bytes.len(), false)
}

/// PostgreSQL `$`: `$1` placeholder, `$tag$...$tag$` dollar quote, or a lone operator.
fn lex_dollar(bytes: &[u8], i: usize) -> (TokenKind, usize, bool) {
    let next = bytes.get(i + 1).copied();
    if next.is_some_and(|c| c.is_ascii_digit()) {
        let mut j = i + 1;
        while bytes.get(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        return (TokenKind::Placeholder, j, true);
    }
    // The tag: empty, or [A-Za-z_][A-Za-z0-9_]*, then a closing `$`.
    let mut j = i + 1;
    if next.is_some_and(|c| c.is_ascii_alphabetic() || c == b'_') {
        while bytes.get(j).is_some_and(|&c| is_word_byte(c)) {
            j += 1;
        }
    }
    if bytes.get(j) != Some(&b'$') {
        return (TokenKind::Operator, i + 1, true);
    }
    let delim = match bytes.get(i..=j) {
        Some(d) => d,
        None => return (TokenKind::Operator, i + 1, true),
    };
    match find_subslice(bytes, j + 1, delim) {
        Some(k) => (TokenKind::DollarString, k + delim.len(), true),
        None => (TokenKind::DollarString, bytes.len(), false),
    }
}

/// First occurrence of `needle` in `bytes[from..]`. Linear: the needle is a dollar tag and
/// every candidate start is its `$` byte, found with a byte search.
fn find_subslice(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut k = from;
    while let Some(p) = find_byte(bytes, k, first) {
        if bytes.get(p..p + needle.len()) == Some(needle) {
            return Some(p);
        }
        k = p + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str, d: Dialect) -> Vec<(TokenKind, String, bool)> {
        tokenize(sql, d)
            .iter()
            .map(|t| (t.kind, t.text(sql).to_string(), t.terminated))
            .collect()
    }

    fn one(sql: &str, d: Dialect) -> (TokenKind, bool) {
        let t = tokenize(sql, d);
        assert_eq!(t.len(), 1, "{sql:?} under {d:?} gave {t:?}");
        (t[0].kind, t[0].terminated)
    }

    #[test]
    fn words_numbers_and_punctuation() {
        let got = kinds("SeLeCt a_1,2.5 FROM t;", Dialect::Generic);
        let want: Vec<(TokenKind, &str)> = vec![
            (TokenKind::Word, "SeLeCt"),
            (TokenKind::Word, "a_1"),
            (TokenKind::Operator, ","),
            (TokenKind::Number, "2"),
            (TokenKind::Operator, "."),
            (TokenKind::Number, "5"),
            (TokenKind::Word, "FROM"),
            (TokenKind::Word, "t"),
            (TokenKind::Semicolon, ";"),
        ];
        assert_eq!(got.len(), want.len());
        for ((k, s, ok), (wk, ws)) in got.iter().zip(want) {
            assert_eq!((*k, s.as_str(), *ok), (wk, ws, true));
        }
    }

    #[test]
    fn string_literals_and_escapes_per_dialect() {
        use Dialect::*;
        use TokenKind::*;
        let cases: &[(&str, Dialect, TokenKind, bool)] = &[
            ("'it''s'", Generic, String, true),
            ("'a\\'b'", MySql, String, true),
            ("'a\\'b'", PostgresLegacy, String, true),
            ("E'a\\'b'", Postgres, String, true),
            ("e'a\\'b'", Postgres, String, true),
            ("'unterminated", Generic, String, false),
            ("'ends with backslash\\'", MySql, String, false),
            (
                "\"dq\"\"x\"",
                Generic,
                QuotedIdent(QuoteStyle::Double),
                true,
            ),
            ("\"a\\\"b\"", MySql, QuotedIdent(QuoteStyle::Double), true),
            ("`a``b`", MySql, QuotedIdent(QuoteStyle::Backtick), true),
            ("`open", Generic, QuotedIdent(QuoteStyle::Backtick), false),
            ("[my col]", Sqlite, QuotedIdent(QuoteStyle::Bracket), true),
            ("[open", Sqlite, QuotedIdent(QuoteStyle::Bracket), false),
            ("$$a;b$$", Postgres, DollarString, true),
            ("$tag$ $$ ' $tag$", Postgres, DollarString, true),
            ("$tag$never closed", Postgres, DollarString, false),
            ("-- c", Generic, Comment(CommentKind::DashDash), true),
            ("# c", Generic, Comment(CommentKind::Hash), true),
            ("/*! DROP */", MySql, Comment(CommentKind::Block), true),
            ("/* open", Generic, Comment(CommentKind::Block), false),
            ("/* /* */ */", Postgres, Comment(CommentKind::Block), true),
            ("?", Generic, Placeholder, true),
            (":name", Generic, Placeholder, true),
            ("$12", Postgres, Placeholder, true),
        ];
        for &(sql, d, k, ok) in cases {
            assert_eq!(one(sql, d), (k, ok), "{sql:?} under {d:?}");
        }
    }

    #[test]
    fn backslash_splits_differently_per_dialect() {
        // Generic: 'a\' closes the string, so `b` is a word; MySQL: one string.
        let g = kinds("'a\\'b'", Dialect::Generic);
        assert_eq!(g[0].0, TokenKind::String);
        assert_eq!(g[1].0, TokenKind::Word);
        assert!(!g[2].2, "the last quote opens an unterminated string");
        assert_eq!(kinds("'a\\'b'", Dialect::MySql).len(), 1);
    }

    #[test]
    fn block_comments_nest_only_in_postgres() {
        let g = kinds("/* /* */ x */", Dialect::Generic);
        assert_eq!(g[0].1, "/* /* */");
        assert_eq!(g[1].1, "x");
        assert_eq!(kinds("/* /* */ x */", Dialect::Postgres).len(), 1);
    }

    #[test]
    fn dollar_forms() {
        // In identifiers under PostgreSQL/MySQL, an operator elsewhere.
        assert_eq!(one("a$b", Dialect::Postgres).0, TokenKind::Word);
        assert_eq!(kinds("a$b", Dialect::Generic).len(), 3);
        assert_eq!(kinds("$$", Dialect::Generic)[0].0, TokenKind::Operator);
        assert_eq!(kinds("$ x", Dialect::Postgres)[0].0, TokenKind::Operator);
        // A tag must not start with a digit: $1 is a placeholder.
        assert_eq!(kinds("$1$", Dialect::Postgres)[0].0, TokenKind::Placeholder);
    }

    #[test]
    fn postgres_number_boundaries() {
        let k = kinds("1$q$x$q$", Dialect::Postgres);
        assert_eq!(k[0].1, "1");
        assert_eq!(k[1].0, TokenKind::DollarString);
        let k = kinds("1e'\\''", Dialect::Postgres);
        assert_eq!((k[0].0, k[0].1.as_str()), (TokenKind::Number, "1"));
        assert_eq!(
            (k[1].0, k[1].1.as_str(), k[1].2),
            (TokenKind::String, "e'\\''", true)
        );
        // MySQL keeps `1$q$` as one digit-led name.
        assert_eq!(one("1$q$", Dialect::MySql).0, TokenKind::Number);
    }

    #[test]
    fn brackets_are_operators_outside_sqlite() {
        let k = kinds("[x]", Dialect::Generic);
        assert_eq!(k.len(), 3);
        assert_eq!(k[1].0, TokenKind::Word);
    }

    #[test]
    fn cast_is_not_a_placeholder() {
        let k = kinds("a::text", Dialect::Postgres);
        assert!(k.iter().all(|t| t.0 != TokenKind::Placeholder), "{k:?}");
    }

    #[test]
    fn illegal_bytes_and_spans_on_char_boundaries() {
        for sql in ["\u{b}", "\u{c}", "\0", "é", "ＳＥＬＥＣＴ", "\u{200b}"] {
            let t = tokenize(sql, Dialect::Generic);
            assert!(t.iter().all(|t| t.kind == TokenKind::Illegal), "{sql:?}");
            for tok in &t {
                assert!(sql.is_char_boundary(tok.start) && sql.is_char_boundary(tok.end));
            }
        }
        // Inside a literal anything goes.
        assert_eq!(one("'é\u{b}'", Dialect::Generic), (TokenKind::String, true));
    }

    #[test]
    fn whitespace_is_skipped() {
        assert!(tokenize(" \t\r\n", Dialect::Generic).is_empty());
    }

    #[test]
    fn tokens_cover_input_in_order() {
        let sql = "SELECT `a`, \"b\", 'c' FROM [t] WHERE x = $1 /* k */ -- z";
        for &d in ALL_DIALECTS {
            let mut last = 0;
            for t in tokenize(sql, d) {
                assert!(t.start >= last && t.end > t.start && t.end <= sql.len());
                last = t.end;
            }
        }
    }
}
