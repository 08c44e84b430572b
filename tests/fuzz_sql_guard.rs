//! Property tests for the SQL read-only guard and its tokenizer.
//!
//! - Any string: the tokenizer and the guard return without panicking, and token spans are
//!   in order, non-empty and on char boundaries.
//! - SQL-shaped strings built from tricky fragments (quotes, escapes, dollar tags, comment
//!   markers, blocked words, credential names): whatever the guard accepts is, under every
//!   dialect reading, one statement with no comment, no illegal byte, no open literal, a
//!   SELECT/WITH lead, no blocked or restricted word, and placeholders at the same offsets.
//! - Function calls: under each database family, no accepted query calls (name followed by
//!   `(`, in any reading) anything outside that family's allow-list, a qualified (stored)
//!   function, a settable SQLite pragma table, or names a restricted schema or assigns `:=`.
//! - Large adversarial inputs finish in linear time.
//!
//! Default case counts keep the file well under five seconds; set `PROPTEST_CASES` for a
//! long run.

use std::time::{Duration, Instant};

use phpclaw::core::security::sql_guard::{
    check_read_only, is_allowed_function, is_blocked_word, is_paren_keyword, unquote_identifier,
    validate, validate_for, Family, RESTRICTED_IDENTIFIERS, RESTRICTED_SCHEMAS,
    SQLITE_READ_ONLY_PRAGMAS,
};
use phpclaw::core::security::sql_tokenizer::{tokenize, Token, TokenKind, ALL_DIALECTS};
use proptest::prelude::*;

/// `default_cases`, or `PROPTEST_CASES / divisor` (at least the default) for long runs, so
/// the large-input property keeps its share of a long run's time bounded.
fn config(default_cases: u32, divisor: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(default_cases, |n| (n / divisor.max(1)).max(default_cases));
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Pieces that exercise every lexer branch and every guard rule.
const TRICKY: &[&str] = &[
    "\u{b}",
    "'",
    "\"",
    "`",
    "\\",
    "\\'",
    "$",
    "$$",
    "$a$",
    "$1",
    "E'",
    "1e",
    ";",
    "; ",
    "--",
    "-",
    "/*",
    "*/",
    "/*!",
    "#",
    "[",
    "]",
    "::",
    "U&",
    "DELETE",
    "INTO",
    "FOR",
    "SHARE",
    "UPDATE",
    "SLEEP",
    "pg_sleep",
    "password",
    "PassWord",
    "api_key",
    "pässword",
    "é",
    "\0",
    "\u{200b}",
    "information_schema",
    "DROP",
    "SET",
    "sleep(",
    "`sleep`(",
    "\"lastval\"(",
    "[is_free_lock](",
    "master_gtid_wait(",
    "nextval",
    "NEXT VALUE FOR s",
    "PREVIOUS VALUE FOR",
    "my_udf(",
    "db.abs(",
    "`db`.",
    "mysql.",
    "`mysql`.",
    "\"sys\".",
    "[performance_schema].",
    "`information_schema`",
    "pragma_query_only",
    "pragma_foreign_keys(",
    "@a :=",
    ":=",
    "1abc(",
    "`in`(",
    "AS c(",
    "WITH c(x) AS (SELECT 1) SELECT ",
    "load_extension(",
    "authentication_string",
];

/// Harmless pieces, so that a fair share of generated queries is accepted.
const BENIGN: &[&str] = &[
    "SELECT",
    "select",
    "WITH",
    "x AS",
    "(",
    ")",
    " ",
    "\t",
    "\n",
    "\r",
    "''",
    "``",
    "e",
    "1",
    "0x1F",
    "?",
    ":n",
    "&",
    ",",
    ".",
    "=",
    "*",
    "a",
    "t",
    "FROM",
    "WHERE",
    "UNION",
    "KEY",
    "'a'",
    "'it''s'",
    "\"q\"",
    "`b`",
    "'x;y'",
    "'--'",
    "'/*'",
    "[c]",
    "$$z$$",
    "pragma_table_info",
    "abs(",
    "count(*)",
    "`abs`(",
    "IN (",
    "EXISTS (",
    "zeroblob(",
    "date_format(",
    "CAST(a AS DECIMAL(10,2))",
    "OVER (",
    "WITH c(x) AS (SELECT 1), d(y) AS (SELECT 2) SELECT ",
    "AS",
    "c",
];

fn sqlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        6 => prop::sample::select(BENIGN),
        1 => prop::sample::select(TRICKY),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

fn read_prefix() -> impl Strategy<Value = String> {
    (sqlish(), prop::bool::ANY).prop_map(|(s, with)| {
        let lead = if with {
            "WITH x AS (SELECT 1) SELECT "
        } else {
            "SELECT "
        };
        format!("{lead}{s}")
    })
}

fn spans_ok(sql: &str) {
    for &d in ALL_DIALECTS {
        let mut last = 0;
        for t in tokenize(sql, d) {
            assert!(t.start >= last, "overlap under {d:?} in {sql:?}");
            assert!(t.end > t.start && t.end <= sql.len());
            assert!(sql.is_char_boundary(t.start) && sql.is_char_boundary(t.end));
            last = t.end;
        }
    }
}

/// Whole ASCII words of the text, lower-cased (the `\b` view of the reference).
fn ascii_words(sql: &str) -> Vec<String> {
    sql.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

/// True when `start` lies before any `;` token (the trailing one ends the statement).
fn semis_cut(toks: &[phpclaw::core::security::sql_tokenizer::Token], start: usize) -> bool {
    toks.iter()
        .find(|t| t.kind == TokenKind::Semicolon)
        .map_or(true, |s| start < s.start)
}

/// What an accepted query must look like under every reading.
fn accepted_is_clean(sql: &str) {
    let checked = match validate(sql) {
        Ok(s) => s,
        Err(_) => return,
    };
    let mut marks: Option<Vec<usize>> = None;
    for &d in ALL_DIALECTS {
        let toks = tokenize(checked, d);
        let here: Vec<usize> = toks
            .iter()
            .filter(|t| t.kind == TokenKind::Placeholder && !t.text(checked).starts_with('$'))
            .filter(|t| semis_cut(&toks, t.start))
            .map(|t| t.start)
            .collect();
        match &marks {
            Some(m) => assert_eq!(m, &here, "placeholders differ under {d:?}: {checked:?}"),
            None => marks = Some(here),
        }
        let semis: Vec<usize> = toks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind == TokenKind::Semicolon)
            .map(|(i, _)| i)
            .collect();
        assert!(semis.len() <= 1, "two statements under {d:?}: {checked:?}");
        if let Some(&i) = semis.first() {
            assert_eq!(i + 1, toks.len(), "text after ';' under {d:?}: {checked:?}");
        }
        for t in &toks {
            assert!(
                !matches!(t.kind, TokenKind::Comment(_) | TokenKind::Illegal),
                "comment or illegal under {d:?}: {checked:?}"
            );
            assert!(t.terminated, "open literal under {d:?}: {checked:?}");
            if matches!(t.kind, TokenKind::Word | TokenKind::Number) {
                let up = t.text(checked).to_ascii_uppercase();
                assert!(!is_blocked_word(&up), "{up} under {d:?}: {checked:?}");
            }
        }
        let first = toks.iter().find(|t| t.kind != TokenKind::LParen);
        let lead = first.map(|t| t.text(checked).to_ascii_uppercase());
        assert!(
            matches!(lead.as_deref(), Some("SELECT" | "WITH")),
            "lead {lead:?} under {d:?}: {checked:?}"
        );
    }
    for w in ascii_words(checked) {
        assert!(
            !RESTRICTED_IDENTIFIERS.contains(&w.as_str()),
            "restricted {w} in {checked:?}"
        );
    }
}

/// For each `(` token, the index of its matching `)`.
fn closers(toks: &[Token]) -> Vec<Option<usize>> {
    let mut out = vec![None; toks.len()];
    let mut open = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenKind::LParen => open.push(i),
            TokenKind::RParen => {
                if let Some(o) = open.pop() {
                    out[o] = Some(i);
                }
            }
            _ => {}
        }
    }
    out
}

fn word_is(sql: &str, t: Option<&Token>, w: &str) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Word && t.text(sql).eq_ignore_ascii_case(w))
}

fn names_something(sql: &str, t: &Token) -> bool {
    match t.kind {
        TokenKind::Word | TokenKind::QuotedIdent(_) => true,
        TokenKind::Number => t
            .text(sql)
            .bytes()
            .any(|b| b.is_ascii_alphabetic() || b == b'_'),
        _ => false,
    }
}

/// What a query accepted for `family` must not contain, checked independently of the
/// guard's own walk: every call is an allowed function, an unquoted grammar word, a type or
/// alias list after AS, or a CTE name (after WITH/RECURSIVE, or after `,` with `) AS` next).
fn accepted_calls_are_allowed(sql: &str, family: Family) {
    let Ok(checked) = validate_for(sql, family) else {
        return;
    };
    for &d in ALL_DIALECTS {
        let toks = tokenize(checked, d);
        let close = closers(&toks);
        for (i, t) in toks.iter().enumerate() {
            if !names_something(checked, t) {
                continue;
            }
            let name = unquote_identifier(t.text(checked));
            let folded = name.to_ascii_lowercase();
            assert!(
                !RESTRICTED_SCHEMAS
                    .iter()
                    .any(|s| s.eq_ignore_ascii_case(&folded)),
                "schema {name} under {d:?}: {checked:?}"
            );
            let upper = name.to_ascii_uppercase();
            assert!(
                !upper.starts_with("PRAGMA_") || SQLITE_READ_ONLY_PRAGMAS.contains(&upper.as_str()),
                "pragma {upper} under {d:?}: {checked:?}"
            );
            if !toks.get(i + 1).is_some_and(|n| n.kind == TokenKind::LParen) {
                continue;
            }
            let prev = i.checked_sub(1).and_then(|p| toks.get(p));
            assert!(
                !prev.is_some_and(|p| p.text(checked) == "."),
                "qualified call {upper} under {d:?}: {checked:?}"
            );
            let after_close = close[i + 1].and_then(|c| toks.get(c + 1));
            let cte = word_is(checked, prev, "WITH")
                || word_is(checked, prev, "RECURSIVE")
                || (prev.is_some_and(|p| p.text(checked) == ",")
                    && word_is(checked, after_close, "AS"));
            let keyword = t.kind == TokenKind::Word && is_paren_keyword(&upper);
            assert!(
                cte || keyword
                    || word_is(checked, prev, "AS")
                    || is_allowed_function(&upper, family),
                "call {upper} under {d:?} for {family:?}: {checked:?}"
            );
        }
        assert!(
            !toks
                .windows(2)
                .any(|w| w[0].text(checked) == ":" && w[1].text(checked) == "="),
            "assignment under {d:?}: {checked:?}"
        );
    }
}

proptest! {
    #![proptest_config(config(256, 1))]

    #[test]
    fn any_string_never_panics(s in any::<String>()) {
        let _ = check_read_only(&s);
        spans_ok(&s);
    }

    #[test]
    fn any_bytes_as_lossy_text_never_panic(b in prop::collection::vec(any::<u8>(), 0..256)) {
        let s = String::from_utf8_lossy(&b);
        let _ = check_read_only(&s);
        spans_ok(&s);
    }

    #[test]
    fn sqlish_accepted_means_clean(s in sqlish()) {
        spans_ok(&s);
        accepted_is_clean(&s);
    }

    #[test]
    fn read_shaped_accepted_means_clean(s in read_prefix()) {
        accepted_is_clean(&s);
    }

    #[test]
    fn accepted_queries_call_only_allowed_functions(s in read_prefix()) {
        for family in [Family::MySql, Family::Sqlite, Family::Portable] {
            accepted_calls_are_allowed(&s, family);
        }
    }

    #[test]
    fn inserting_a_statement_break_is_refused(s in read_prefix(), tail in sqlish()) {
        // A `;` followed by anything but whitespace, outside literals in all readings, is
        // refused; if the guard accepts, the `;` must have been inside a literal somewhere.
        let sql = format!("{s}; DELETE FROM t {tail}");
        if validate(&sql).is_ok() {
            accepted_is_clean(&sql);
        }
    }
}

proptest! {
    #![proptest_config(config(8, 200))]

    #[test]
    fn large_repeated_fragments_finish_fast(s in sqlish(), n in 1usize..2000) {
        let big = format!("SELECT {}", s.repeat(n));
        let t0 = Instant::now();
        let _ = check_read_only(&big);
        spans_ok(&big);
        // Generous: linear work on at most a few hundred KB even in a debug build.
        prop_assert!(t0.elapsed() < Duration::from_secs(20));
    }
}

#[test]
fn adversarial_large_inputs_are_linear() {
    let n = 100_000;
    let inputs = [
        "'".repeat(n),
        "\\'".repeat(n),
        "$a".repeat(n),
        format!("SELECT $a$ {} ", "$a ".repeat(n)),
        format!("SELECT ${}$ {}", "a".repeat(n), "$a".repeat(n)),
        "/*".repeat(n),
        "1a".repeat(n),
        format!("SELECT {}", "1".repeat(n)),
        format!("SELECT {}", "(".repeat(n)),
        format!("SELECT [{}", "x".repeat(n)),
        "é".repeat(n),
        format!("SELECT '{}'", "pässword ".repeat(n / 8)),
    ];
    for sql in &inputs {
        let t0 = Instant::now();
        let _ = check_read_only(sql);
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "slow on input starting {:?}",
            sql.chars().take(20).collect::<String>()
        );
    }
}

#[test]
fn generator_yields_accepted_queries() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = read_prefix();
    let accepted = (0..400)
        .filter_map(|_| strat.new_tree(&mut runner).ok())
        .filter(|t| validate(&t.current()).is_ok())
        .count();
    assert!(
        accepted >= 20,
        "only {accepted}/400 accepted: the property would be vacuous"
    );
}

#[test]
fn generator_yields_accepted_calls() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = read_prefix();
    let with_calls = (0..2000)
        .filter_map(|_| strat.new_tree(&mut runner).ok())
        .map(|t| t.current())
        .filter(|q| validate_for(q, Family::Sqlite).is_ok())
        .filter(|q| {
            let toks = tokenize(q, phpclaw::core::security::sql_tokenizer::Dialect::Sqlite);
            toks.windows(2)
                .any(|w| names_something(q, &w[0]) && w[1].kind == TokenKind::LParen)
        })
        .count();
    assert!(
        with_calls >= 10,
        "only {with_calls}/2000 accepted queries call a function: the call property would be vacuous"
    );
}
