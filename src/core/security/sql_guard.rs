//! The read-only check `db_query` runs before a query reaches the database.
//!
//! A query passes only if, lexed by `sql_tokenizer` under EVERY engine reading in
//! [`ALL_DIALECTS`] (generic, MySQL, PostgreSQL both string modes, SQLite), it:
//! 1. is not empty once trimmed of PHP `trim()` characters;
//! 2. has no comment of any form, no control or non-ASCII character outside a literal,
//!    no unterminated literal, and at most one `;`, which only whitespace may follow;
//! 3. starts (after any `(`) with the word SELECT or WITH;
//! 4. has no word, anywhere outside literals, in [`REFERENCE_BLOCKED_WORDS`],
//!    [`EXTRA_BLOCKED_WORDS`] or [`BLOCKED_FUNCTIONS`] (a digit-led run such as `1INTO` is
//!    also checked from each digit-to-letter switch, as PostgreSQL splits it);
//! 5. has no clause in [`BLOCKED_SEQUENCES`] (consecutive words);
//! 6. has no PostgreSQL `U&"..."` identifier (its escapes could spell any name), and no
//!    `?` or `:` inside a backtick or bracket identifier (PDO's placeholder scanner does
//!    not know those quotes and would splice a bound value, quotes and all, into them),
//!    and every reading finds its `?` / `:name` placeholders at the same offsets (else
//!    PDO could splice a value where the server reads code);
//! 7. names no server schema of [`RESTRICTED_SCHEMAS`] (`mysql`, `information_schema`,
//!    `performance_schema`, `sys`) and no credential name as an identifier, compared after
//!    unquoting every quoting style (`` `a`.`b` ``, `"a"."b"`, `[a].[b]`) and folding, and
//!    no SQLite `pragma_*` table outside [`SQLITE_READ_ONLY_PRAGMAS`], called or not;
//! 8. assigns no variable (`@v := 1`);
//! 9. calls only functions of the allow-list of its database [`Family`]: a call is a name
//!    (word, digit-led name or quoted identifier) followed by `(`; grammar words of
//!    [`PAREN_KEYWORDS`] (unquoted only), type names after `AS` and the column lists of
//!    CTE names (`WITH c(x) AS (...)`) are not calls, and a schema-qualified call
//!    (`db.f(...)`, a stored function) is always refused;
//! 10. and then, on the raw text, names none of [`RESTRICTED_IDENTIFIERS`] or
//!     [`EXTRA_RESTRICTED_IDENTIFIERS`] as a whole word, in literals too (as phpClaw does),
//!     with accented/full-width Latin letters folded.
//!
//! Order: phpClaw's own rules first (generic reading, its tables, its first-word rule),
//! then its restricted-name check, then every rule above under every reading; so a query
//! phpClaw refuses gets phpClaw's exact message, and ours only add refusals.
//!
//! Sequences (`NEXT VALUE FOR`), locks, waits, sleeps, file functions and user-defined
//! functions are refused by rule 9 whatever their spelling; the blocked-word tables of rule
//! 4 still run first so that phpClaw's own refusals keep phpClaw's messages.
//!
//! Everything is checked on tokens, so `SELECT 'DELETE'` passes and `SELECT ';'` is one
//! statement. Every check is linear in the input.

use std::collections::HashSet;

use once_cell::sync::Lazy;

use super::sql_tokenizer::{
    tokenize, CommentKind, Dialect, QuoteStyle, Token, TokenKind, ALL_DIALECTS,
};

mod functions;

pub use functions::{
    MYSQL_FUNCTIONS, ONE_ARGUMENT_FUNCTIONS, PAREN_KEYWORDS, PORTABLE_FUNCTIONS,
    RESTRICTED_SCHEMAS, SQLITE_FUNCTIONS, SQLITE_READ_ONLY_PRAGMAS,
};

/// The PHP exception class phpClaw throws for every refusal (it carries no other code);
/// the binding throws this class with [`SqlRefusal::message`].
pub const EXCEPTION_CLASS: &str = "PhpClaw\\Exceptions\\ToolException";

/// Words a query may start with (phpClaw `SqlReadOnlyGuard::ALLOWED_FIRST`).
pub const ALLOWED_FIRST: &[&str] = &["SELECT", "WITH"];

/// phpClaw `SqlReadOnlyGuard::BLOCKED_WORDS`, same order.
pub const REFERENCE_BLOCKED_WORDS: &[&str] = &[
    "INSERT",
    "UPDATE",
    "DELETE",
    "REPLACE",
    "MERGE",
    "UPSERT",
    "DROP",
    "CREATE",
    "ALTER",
    "TRUNCATE",
    "RENAME",
    "GRANT",
    "REVOKE",
    "LOCK",
    "UNLOCK",
    "CALL",
    "EXEC",
    "EXECUTE",
    "HANDLER",
    "DO",
    "SET",
    "LOAD",
    "LOAD_FILE",
    "IMPORT",
    "INTO",
    "OUTFILE",
    "DUMPFILE",
    "ATTACH",
    "DETACH",
    "PREPARE",
    "DEALLOCATE",
    "RESET",
    "FLUSH",
    "KILL",
    "SHUTDOWN",
    "INSTALL",
    "UNINSTALL",
    "DELIMITER",
    "START",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "SAVEPOINT",
    "RELEASE",
    "INFORMATION_SCHEMA",
    "PG_READ_FILE",
    "PG_LS_DIR",
    "SLEEP",
    "BENCHMARK",
    "PG_SLEEP",
];

/// Statements that change state and that phpClaw's list misses: SQLite (PRAGMA, VACUUM,
/// REINDEX, ANALYZE), PostgreSQL (COPY, CHECKPOINT, CLUSTER, COMMENT ON, REFRESH
/// MATERIALIZED VIEW, NOTIFY/LISTEN/UNLISTEN, DISCARD, REASSIGN, ABORT), MySQL/MariaDB
/// (PURGE, OPTIMIZE, REPAIR, BINLOG), from each engine's statement reference.
pub const EXTRA_BLOCKED_WORDS: &[&str] = &[
    "PRAGMA",
    "VACUUM",
    "REINDEX",
    "ANALYZE",
    "ANALYSE",
    "COPY",
    "PURGE",
    "CHECKPOINT",
    "CLUSTER",
    "COMMENT",
    "REFRESH",
    "NOTIFY",
    "LISTEN",
    "UNLISTEN",
    "DISCARD",
    "REASSIGN",
    "ABORT",
    "OPTIMIZE",
    "REPAIR",
    "BINLOG",
];

/// Functions that write, sleep, lock, read server files or reach the network, callable
/// inside a SELECT: MySQL (GET_LOCK, *_POS_WAIT...), PostgreSQL (pg_* admin functions,
/// large objects, sequences, set_config, query_to_xml which runs its argument, dblink),
/// SQLite (load_extension, and the CLI's readfile/writefile/edit, fts3_tokenizer),
/// and the well-known UDF names sys_exec/sys_eval.
pub const BLOCKED_FUNCTIONS: &[&str] = &[
    "PG_READ_BINARY_FILE",
    "PG_STAT_FILE",
    "PG_LS_LOGDIR",
    "PG_LS_WALDIR",
    "PG_LS_TMPDIR",
    "PG_LS_ARCHIVE_STATUSDIR",
    "PG_SLEEP_FOR",
    "PG_SLEEP_UNTIL",
    "LO_IMPORT",
    "LO_EXPORT",
    "LO_UNLINK",
    "LO_PUT",
    "LO_FROM_BYTEA",
    "LO_CREATE",
    "LO_CREAT",
    "LOWRITE",
    "DBLINK",
    "DBLINK_EXEC",
    "DBLINK_CONNECT",
    "DBLINK_SEND_QUERY",
    "LOAD_EXTENSION",
    "READFILE",
    "WRITEFILE",
    "EDIT",
    "FTS3_TOKENIZER",
    "SYS_EXEC",
    "SYS_EVAL",
    "GET_LOCK",
    "RELEASE_LOCK",
    "RELEASE_ALL_LOCKS",
    "NEXTVAL",
    "SETVAL",
    "SET_CONFIG",
    "PG_TERMINATE_BACKEND",
    "PG_CANCEL_BACKEND",
    "PG_RELOAD_CONF",
    "PG_ROTATE_LOGFILE",
    "PG_ADVISORY_LOCK",
    "PG_ADVISORY_LOCK_SHARED",
    "PG_ADVISORY_XACT_LOCK",
    "PG_ADVISORY_XACT_LOCK_SHARED",
    "PG_TRY_ADVISORY_LOCK",
    "PG_TRY_ADVISORY_XACT_LOCK",
    "PG_SWITCH_WAL",
    "PG_CREATE_RESTORE_POINT",
    "PG_PROMOTE",
    "PG_LOGICAL_EMIT_MESSAGE",
    "PG_NOTIFY",
    "PG_STAT_RESET",
    "PG_STAT_RESET_SHARED",
    "PG_FILE_WRITE",
    "PG_FILE_RENAME",
    "PG_FILE_UNLINK",
    "PG_FILE_SYNC",
    "QUERY_TO_XML",
    "QUERY_TO_XML_AND_XMLSCHEMA",
    "QUERY_TO_XMLSCHEMA",
    "CURSOR_TO_XML",
    "MASTER_POS_WAIT",
    "SOURCE_POS_WAIT",
    "WAIT_FOR_EXECUTED_GTID_SET",
    "WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS",
];

/// Clauses as consecutive words: phpClaw's row locks `FOR UPDATE` and `FOR SHARE`, then
/// PostgreSQL's `FOR KEY SHARE` / `FOR NO KEY UPDATE` and MySQL's `LOCK IN SHARE MODE`
/// (the last two also hit a blocked word first; kept so the table is complete), and
/// MariaDB's sequence operators `NEXT VALUE FOR s` (advances the sequence) and
/// `PREVIOUS VALUE FOR s` (MariaDB "CREATE SEQUENCE" / "Sequence Overview").
pub const BLOCKED_SEQUENCES: &[&[&str]] = &[
    &["FOR", "UPDATE"],
    &["FOR", "SHARE"],
    &["FOR", "KEY", "SHARE"],
    &["FOR", "NO", "KEY", "UPDATE"],
    &["LOCK", "IN", "SHARE", "MODE"],
    &["NEXT", "VALUE", "FOR"],
    &["PREVIOUS", "VALUE", "FOR"],
];

/// Credential names a query may not mention (phpClaw `DatabaseQueryTool::RESTRICTED_IDENTIFIERS`).
pub const RESTRICTED_IDENTIFIERS: &[&str] = &[
    "password",
    "passwd",
    "secret",
    "private_key",
    "api_key",
    "api_token",
    "access_token",
    "secret_key",
    "auth_token",
];

/// Credential names beyond phpClaw's list, refused the same way: MySQL/MariaDB's
/// `mysql.user.authentication_string` (also a key of `mysql.global_priv`), WordPress's
/// `wp_users.user_pass` / `user_activation_key` and the `session_tokens` user meta key, and
/// the OAuth names `refresh_token` / `client_secret`.
pub const EXTRA_RESTRICTED_IDENTIFIERS: &[&str] = &[
    "authentication_string",
    "user_pass",
    "user_activation_key",
    "session_tokens",
    "refresh_token",
    "client_secret",
];

/// Which engine's function list applies: the tool knows its connection's driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// MySQL and MariaDB: [`PORTABLE_FUNCTIONS`] and [`MYSQL_FUNCTIONS`].
    MySql,
    /// SQLite: [`PORTABLE_FUNCTIONS`], [`SQLITE_FUNCTIONS`], [`SQLITE_READ_ONLY_PRAGMAS`].
    Sqlite,
    /// Unknown engine: only [`PORTABLE_FUNCTIONS`] (what [`validate`] checks).
    Portable,
}

/// Characters PHP's `trim()` removes; phpClaw trims the query with it before checking and
/// after a final `;`.
const PHP_TRIM: &[char] = &[' ', '\t', '\n', '\r', '\0', '\u{b}'];

/// Latin letters with diacritics folded to their ASCII base for the restricted-name check,
/// because MySQL compares column names accent-insensitively (`pässword` = `password`).
/// Latin-1 Supplement and Latin Extended-A, grouped by base letter.
const LATIN_FOLD: &[(&str, char)] = &[
    ("ÀÁÂÃÄÅàáâãäåĀāĂăĄą", 'a'),
    ("ÇçĆćĈĉĊċČč", 'c'),
    ("ÐðĎďĐđ", 'd'),
    ("ÈÉÊËèéêëĒēĔĕĖėĘęĚě", 'e'),
    ("ĜĝĞğĠġĢģ", 'g'),
    ("ĤĥĦħ", 'h'),
    ("ÌÍÎÏìíîïĨĩĪīĬĭĮįİı", 'i'),
    ("Ĵĵ", 'j'),
    ("Ķķĸ", 'k'),
    ("ĹĺĻļĽľĿŀŁł", 'l'),
    ("ÑñŃńŅņŇňŉŊŋ", 'n'),
    ("ÒÓÔÕÖØòóôõöøŌōŎŏŐő", 'o'),
    ("ŔŕŖŗŘř", 'r'),
    ("ŚśŜŝŞşŠšſß", 's'),
    ("ŢţŤťŦŧ", 't'),
    ("ÙÚÛÜùúûüŨũŪūŬŭŮůŰűŲų", 'u'),
    ("Ŵŵ", 'w'),
    ("ÝýÿŶŷŸ", 'y'),
    ("ŹźŻżŽž", 'z'),
];

/// phpClaw's message for a query naming a restricted identifier.
const RESTRICTED_MESSAGE: &str =
    "db_query: query references a restricted table or column and was blocked.";

/// How many leading entries of [`BLOCKED_SEQUENCES`] are phpClaw's own.
const REFERENCE_SEQUENCES: usize = 2;

/// Which rule set one pass applies: phpClaw's alone (run first, so every query phpClaw
/// refuses gets phpClaw's message), or all of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Reference,
    Full,
}

/// Why a query was refused; each variant has one fixed message shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// Nothing left after trimming.
    Empty,
    /// A `--`, `#` or `/* */` comment.
    Comment,
    /// A `;` followed by more than whitespace.
    MultipleStatements,
    /// A control or non-ASCII character outside a literal.
    IllegalCharacter,
    /// A literal, quoted identifier or dollar quote never closed.
    Unterminated,
    /// Does not start with SELECT or WITH.
    NotRead,
    /// A blocked word or function name.
    BlockedKeyword,
    /// A blocked multi-word clause.
    BlockedClause,
    /// A PostgreSQL `U&"..."` identifier.
    UnicodeIdentifier,
    /// A `?` or `:` inside a backtick or bracket identifier.
    PlaceholderInIdentifier,
    /// A `?` / `:name` that one reading sees as a placeholder and another inside a literal.
    AmbiguousPlaceholder,
    /// A credential name or a restricted schema appears in the query.
    RestrictedIdentifier,
    /// A call of a function outside the family's allow-list, a qualified (stored) function,
    /// or a SQLite pragma table that could set its pragma.
    FunctionNotAllowed,
    /// A variable assignment (`:=`).
    Assignment,
}

/// A refused query: the reason and the exact message phpClaw's tool raises for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SqlRefusal {
    /// Which rule refused the query.
    pub kind: RefusalKind,
    /// The user-facing message, byte-for-byte phpClaw's where phpClaw has the rule.
    pub message: String,
}

impl SqlRefusal {
    fn new(kind: RefusalKind, message: impl Into<String>) -> Self {
        SqlRefusal {
            kind,
            message: message.into(),
        }
    }

    /// The PHP exception class to raise (see [`EXCEPTION_CLASS`]).
    pub fn exception_class(&self) -> &'static str {
        EXCEPTION_CLASS
    }
}

static BLOCKED: Lazy<HashSet<&'static str>> = Lazy::new(|| {
    REFERENCE_BLOCKED_WORDS
        .iter()
        .chain(EXTRA_BLOCKED_WORDS)
        .chain(BLOCKED_FUNCTIONS)
        .copied()
        .collect()
});

/// Longest entry of the blocked tables: a suffix longer than this cannot match.
static MAX_BLOCKED_LEN: Lazy<usize> =
    Lazy::new(|| BLOCKED.iter().map(|w| w.len()).max().unwrap_or(0));

/// Whether an upper-cased word is in one of the blocked tables; public so tests and
/// callers can check a word against exactly the guard's tables.
pub fn is_blocked_word(upper: &str) -> bool {
    BLOCKED.contains(upper)
}

static RESTRICTED_NAMES: Lazy<HashSet<String>> = Lazy::new(|| {
    RESTRICTED_IDENTIFIERS
        .iter()
        .chain(EXTRA_RESTRICTED_IDENTIFIERS)
        .chain(RESTRICTED_SCHEMAS)
        .map(|n| n.to_ascii_lowercase())
        .collect()
});

static PORTABLE: Lazy<HashSet<&'static str>> =
    Lazy::new(|| PORTABLE_FUNCTIONS.iter().copied().collect());
static MYSQL: Lazy<HashSet<&'static str>> = Lazy::new(|| MYSQL_FUNCTIONS.iter().copied().collect());
static SQLITE: Lazy<HashSet<&'static str>> = Lazy::new(|| {
    SQLITE_FUNCTIONS
        .iter()
        .chain(SQLITE_READ_ONLY_PRAGMAS)
        .copied()
        .collect()
});

/// Whether an upper-cased function name may be called under `family`'s allow-list.
pub fn is_allowed_function(upper: &str, family: Family) -> bool {
    PORTABLE.contains(upper)
        || match family {
            Family::MySql => MYSQL.contains(upper),
            Family::Sqlite => SQLITE.contains(upper),
            Family::Portable => false,
        }
}

/// Whether an upper-cased unquoted word may stand before `(` without being a call.
pub fn is_paren_keyword(upper: &str) -> bool {
    PAREN_KEYWORDS.contains(&upper)
}

/// Checks that `sql` is one safe read-only statement (see the module doc).
pub fn check_read_only(sql: &str) -> Result<(), SqlRefusal> {
    validate(sql).map(|_| ())
}

/// [`validate_for`] with [`Family::Portable`]: only functions every engine has.
pub fn validate(sql: &str) -> Result<&str, SqlRefusal> {
    validate_for(sql, Family::Portable)
}

/// Checks `sql` for a connection of `family` and returns the trimmed text that was checked:
/// the caller must execute exactly this string, never the raw input (phpClaw's `SafeSql`
/// contract); a time-budget wrapper may only be added around it.
pub fn validate_for(sql: &str, family: Family) -> Result<&str, SqlRefusal> {
    let trimmed = sql.trim_matches(PHP_TRIM);
    if trimmed.is_empty() {
        return Err(SqlRefusal::new(
            RefusalKind::Empty,
            "No SQL query provided.",
        ));
    }
    check_reading(trimmed, Dialect::Generic, Scope::Reference, family)?;
    if names_restricted_identifier(trimmed) {
        return Err(SqlRefusal::new(
            RefusalKind::RestrictedIdentifier,
            RESTRICTED_MESSAGE,
        ));
    }
    let mut placeholders: Option<Vec<usize>> = None;
    for &dialect in ALL_DIALECTS {
        let here = check_reading(trimmed, dialect, Scope::Full, family)?;
        match &placeholders {
            Some(first) if *first != here => {
                return Err(SqlRefusal::new(
                    RefusalKind::AmbiguousPlaceholder,
                    "Placeholder position is ambiguous between SQL dialects.",
                ));
            }
            Some(_) => {}
            None => placeholders = Some(here),
        }
    }
    Ok(trimmed)
}

/// Rules 2 to 9 under one engine's reading; returns where its `?` / `:name` placeholders
/// start, which must be the same under every reading (rule 6).
fn check_reading(
    sql: &str,
    dialect: Dialect,
    scope: Scope,
    family: Family,
) -> Result<Vec<usize>, SqlRefusal> {
    let all = tokenize(sql, dialect);
    let mut count = all.len();
    for (idx, tok) in all.iter().enumerate() {
        match tok.kind {
            TokenKind::Comment(kind) => {
                let form = match kind {
                    CommentKind::DashDash => "--",
                    CommentKind::Hash => "#",
                    CommentKind::Block => "/* */",
                };
                return Err(SqlRefusal::new(
                    RefusalKind::Comment,
                    format!("SQL comments are not permitted ({form})."),
                ));
            }
            TokenKind::Semicolon => {
                let rest = sql.get(tok.end..).unwrap_or("");
                if rest.trim_matches(PHP_TRIM).is_empty() {
                    count = idx;
                    break;
                }
                return Err(SqlRefusal::new(
                    RefusalKind::MultipleStatements,
                    "Only a single statement is permitted (\";\" found).",
                ));
            }
            TokenKind::Illegal => {
                return Err(SqlRefusal::new(
                    RefusalKind::IllegalCharacter,
                    "Illegal character outside a string literal.",
                ));
            }
            _ if !tok.terminated => {
                return Err(SqlRefusal::new(
                    RefusalKind::Unterminated,
                    "Unterminated string literal.",
                ));
            }
            _ => {}
        }
    }
    let tokens = all.get(..count).unwrap_or(&[]);

    let reference = scope == Scope::Reference;
    let first = if reference {
        // phpClaw looks at the first word, whatever precedes it.
        tokens
            .iter()
            .find(|t| matches!(t.kind, TokenKind::Word | TokenKind::Number))
    } else {
        tokens.iter().find(|t| t.kind != TokenKind::LParen)
    };
    let leads_with_read = first.is_some_and(|t| {
        t.kind == TokenKind::Word
            && ALLOWED_FIRST
                .iter()
                .any(|w| w.eq_ignore_ascii_case(t.text(sql)))
    });
    if !leads_with_read {
        return Err(SqlRefusal::new(
            RefusalKind::NotRead,
            "Only single SELECT/WITH read queries are permitted.",
        ));
    }

    let words: Vec<String> = tokens
        .iter()
        .filter(|t| matches!(t.kind, TokenKind::Word | TokenKind::Number))
        .map(|t| t.text(sql).to_ascii_uppercase())
        .collect();
    for word in &words {
        let hit = if reference {
            REFERENCE_BLOCKED_WORDS
                .contains(&word.as_str())
                .then_some(word.as_str())
        } else {
            blocked_in_word(word)
        };
        if let Some(hit) = hit {
            return Err(SqlRefusal::new(
                RefusalKind::BlockedKeyword,
                format!("Blocked keyword: {hit}."),
            ));
        }
    }
    let sequences = if reference {
        BLOCKED_SEQUENCES.get(..REFERENCE_SEQUENCES).unwrap_or(&[])
    } else {
        BLOCKED_SEQUENCES
    };
    for seq in sequences {
        if !seq.is_empty() && words.windows(seq.len()).any(|w| w == *seq) {
            return Err(SqlRefusal::new(
                RefusalKind::BlockedClause,
                format!("Blocked clause: {}.", seq.join(" ")),
            ));
        }
    }
    if reference {
        return Ok(Vec::new());
    }
    let spliceable = tokens.iter().any(|t| {
        matches!(
            t.kind,
            TokenKind::QuotedIdent(QuoteStyle::Backtick | QuoteStyle::Bracket)
        ) && t.text(sql).contains(['?', ':'])
    });
    if spliceable {
        return Err(SqlRefusal::new(
            RefusalKind::PlaceholderInIdentifier,
            "Placeholders are not permitted inside quoted identifiers.",
        ));
    }
    if has_unicode_identifier(sql, tokens) {
        return Err(SqlRefusal::new(
            RefusalKind::UnicodeIdentifier,
            "Unicode-escaped identifiers are not permitted.",
        ));
    }
    check_identifiers(sql, tokens)?;
    if has_assignment(sql, tokens) {
        return Err(SqlRefusal::new(
            RefusalKind::Assignment,
            "Variable assignment (:=) is not permitted.",
        ));
    }
    if let Some(name) = disallowed_call(sql, tokens, family) {
        return Err(SqlRefusal::new(
            RefusalKind::FunctionNotAllowed,
            format!("Function not permitted: {name}."),
        ));
    }
    Ok(tokens
        .iter()
        .filter(|t| t.kind == TokenKind::Placeholder && !t.text(sql).starts_with('$'))
        .map(|t| t.start)
        .collect())
}

/// The name a word or quoted identifier stands for: quotes removed, doubled quotes undone.
pub fn unquote_identifier(text: &str) -> String {
    let (open, close) = match text.as_bytes().first() {
        Some(b'`') => ('`', '`'),
        Some(b'"') => ('"', '"'),
        Some(b'[') => ('[', ']'),
        _ => return text.to_owned(),
    };
    let inner = text
        .strip_prefix(open)
        .map(|t| t.strip_suffix(close).unwrap_or(t))
        .unwrap_or(text);
    if open == '[' {
        return inner.to_owned();
    }
    let doubled: String = [close, close].iter().collect();
    inner.replace(&doubled, &close.to_string())
}

/// An identifier folded for comparison: ASCII lower case, accents and full-width letters as
/// in [`fold_char`], other characters kept.
fn fold_identifier(name: &str) -> String {
    name.chars()
        .filter_map(|c| match fold_char(c) {
            Some(folded) => folded,
            None => Some(c),
        })
        .collect()
}

/// Tokens that can name a table, column, schema or function.
fn is_name_token(sql: &str, t: &Token) -> bool {
    match t.kind {
        TokenKind::Word | TokenKind::QuotedIdent(_) => true,
        // MySQL names may start with a digit (`1abc`); plain numbers name nothing.
        TokenKind::Number => t
            .text(sql)
            .bytes()
            .any(|b| b.is_ascii_alphabetic() || b == b'_'),
        _ => false,
    }
}

/// Rule 7: restricted schemas and credential names as identifiers (unquoted and folded),
/// and SQLite pragma tables that could set their pragma.
fn check_identifiers(sql: &str, tokens: &[Token]) -> Result<(), SqlRefusal> {
    for t in tokens.iter().filter(|t| is_name_token(sql, t)) {
        let name = fold_identifier(&unquote_identifier(t.text(sql)));
        if RESTRICTED_NAMES.contains(&name) {
            return Err(SqlRefusal::new(
                RefusalKind::RestrictedIdentifier,
                RESTRICTED_MESSAGE,
            ));
        }
        let upper = name.to_ascii_uppercase();
        if upper.starts_with("PRAGMA_") && !SQLITE_READ_ONLY_PRAGMAS.contains(&upper.as_str()) {
            return Err(SqlRefusal::new(
                RefusalKind::FunctionNotAllowed,
                format!("Function not permitted: {}.", shown(&upper)),
            ));
        }
    }
    Ok(())
}

/// Rule 8: `:` then `=` (MySQL's `@v := value`).
fn has_assignment(sql: &str, tokens: &[Token]) -> bool {
    tokens.windows(2).any(|w| match w {
        [a, b] => {
            a.kind == TokenKind::Operator
                && a.text(sql) == ":"
                && b.kind == TokenKind::Operator
                && b.text(sql) == "="
        }
        _ => false,
    })
}

/// For each `(` token, the index of its matching `)` (None when unbalanced).
fn matching_parens(tokens: &[Token]) -> Vec<Option<usize>> {
    let mut out = vec![None; tokens.len()];
    let mut open = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            TokenKind::LParen => open.push(i),
            TokenKind::RParen => {
                if let Some(o) = open.pop() {
                    if let Some(slot) = out.get_mut(o) {
                        *slot = Some(i);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn is_word(sql: &str, t: Option<&Token>, word: &str) -> bool {
    t.is_some_and(|t| t.kind == TokenKind::Word && t.text(sql).eq_ignore_ascii_case(word))
}

/// Index after a CTE list starting at the WITH token `with`, and the indices of the CTE
/// names declared with a column list (`c(x) AS (...)`), which are not calls. Parsing stops at
/// the first token that does not fit; whatever follows is then checked as usual.
fn cte_list(
    sql: &str,
    tokens: &[Token],
    parens: &[Option<usize>],
    with: usize,
    names: &mut [bool],
) -> usize {
    let at = |i: usize| tokens.get(i);
    let close = |i: usize| parens.get(i).copied().flatten();
    let mut i = with + 1;
    if is_word(sql, at(i), "RECURSIVE") {
        i += 1;
    }
    loop {
        if !at(i).is_some_and(|t| is_name_token(sql, t)) {
            return i;
        }
        let name = i;
        i += 1;
        if at(i).is_some_and(|t| t.kind == TokenKind::LParen) {
            let Some(end) = close(i) else { return i };
            if !is_word(sql, at(end + 1), "AS") {
                return i;
            }
            if let Some(slot) = names.get_mut(name) {
                *slot = true;
            }
            i = end + 1;
        }
        if !is_word(sql, at(i), "AS") {
            return i;
        }
        i += 1;
        if is_word(sql, at(i), "NOT") {
            i += 1;
        }
        if is_word(sql, at(i), "MATERIALIZED") {
            i += 1;
        }
        if !at(i).is_some_and(|t| t.kind == TokenKind::LParen) {
            return i;
        }
        let Some(end) = close(i) else { return i };
        i = end + 1;
        if at(i).is_some_and(|t| t.kind == TokenKind::Operator && t.text(sql) == ",") {
            i += 1;
        } else {
            return i;
        }
    }
}

/// Byte offset just after the SELECT keyword of the main query block, as MySQL reads the
/// text: past leading `(` and the WITH list, the first SELECT (the one MySQL's
/// `MAX_EXECUTION_TIME` hint must follow). None when there is no such word.
pub fn main_select_end(sql: &str) -> Option<usize> {
    let tokens = tokenize(sql, Dialect::MySql);
    let parens = matching_parens(&tokens);
    let mut i = 0;
    while tokens.get(i).is_some_and(|t| t.kind == TokenKind::LParen) {
        i += 1;
    }
    if is_word(sql, tokens.get(i), "WITH") {
        let mut names = vec![false; tokens.len()];
        i = cte_list(sql, &tokens, &parens, i, &mut names);
    }
    tokens
        .get(i..)?
        .iter()
        .find(|t| t.kind == TokenKind::Word && t.text(sql).eq_ignore_ascii_case("SELECT"))
        .map(|t| t.end)
}

/// A name as shown in a message: at most 64 characters.
fn shown(name: &str) -> String {
    name.chars().take(64).collect()
}

/// Rule 9: the first call (name followed by `(`) that the family's allow-list does not
/// permit, upper-cased.
fn disallowed_call(sql: &str, tokens: &[Token], family: Family) -> Option<String> {
    let parens = matching_parens(tokens);
    let mut ctes = vec![false; tokens.len()];
    for (i, t) in tokens.iter().enumerate() {
        if t.kind == TokenKind::Word && t.text(sql).eq_ignore_ascii_case("WITH") {
            cte_list(sql, tokens, &parens, i, &mut ctes);
        }
    }
    for (i, t) in tokens.iter().enumerate() {
        let called = tokens
            .get(i + 1)
            .is_some_and(|n| n.kind == TokenKind::LParen);
        if !called || !is_name_token(sql, t) || ctes.get(i).copied().unwrap_or(false) {
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| tokens.get(p));
        let upper = unquote_identifier(t.text(sql)).to_ascii_uppercase();
        if prev.is_some_and(|p| p.kind == TokenKind::Operator && p.text(sql) == ".") {
            // `db.f(...)`: a stored or user-defined function, whatever its name.
            return Some(shown(&upper));
        }
        if is_word(sql, prev, "AS") {
            // A type with a length (`CAST(x AS DECIMAL(10,2))`) or an alias column list.
            continue;
        }
        if t.kind == TokenKind::Word && is_paren_keyword(&upper) {
            continue;
        }
        if !is_allowed_function(&upper, family) {
            return Some(shown(&upper));
        }
        if ONE_ARGUMENT_FUNCTIONS.contains(&upper.as_str())
            && has_top_level_comma(sql, tokens, &parens, i + 1)
        {
            return Some(format!("{} with more than one argument", shown(&upper)));
        }
    }
    None
}

/// Whether the parenthesised list opening at token `open` has a `,` outside nested parens.
fn has_top_level_comma(sql: &str, tokens: &[Token], parens: &[Option<usize>], open: usize) -> bool {
    let Some(close) = parens.get(open).copied().flatten() else {
        // Unbalanced: refuse rather than guess.
        return true;
    };
    let mut depth = 0usize;
    for t in tokens.get(open + 1..close).unwrap_or(&[]) {
        match t.kind {
            TokenKind::LParen => depth += 1,
            TokenKind::RParen => depth = depth.saturating_sub(1),
            TokenKind::Operator if depth == 0 && t.text(sql) == "," => return true,
            _ => {}
        }
    }
    false
}

/// The blocked entry an upper-cased word or number run hits: the run itself, or, for a
/// run led by a digit (`1INTO`, `0e1UNION`), any tail starting at a digit-to-letter switch.
fn blocked_in_word(word: &str) -> Option<&str> {
    if is_blocked_word(word) {
        return Some(word);
    }
    let bytes = word.as_bytes();
    if !bytes.first().is_some_and(|b| b.is_ascii_digit()) {
        return None;
    }
    let min_start = word.len().saturating_sub(*MAX_BLOCKED_LEN).max(1);
    (min_start..word.len()).find_map(|p| {
        let prev = bytes.get(p - 1)?;
        let cur = bytes.get(p)?;
        let switch = prev.is_ascii_digit() && (cur.is_ascii_alphabetic() || *cur == b'_');
        let tail = word.get(p..)?;
        (switch && is_blocked_word(tail)).then_some(tail)
    })
}

/// `U&"..."`: the word `U`, `&`, and a double-quoted identifier, touching.
fn has_unicode_identifier(sql: &str, tokens: &[Token]) -> bool {
    tokens.windows(3).any(|w| match w {
        [u, amp, q] => {
            u.kind == TokenKind::Word
                && u.text(sql).eq_ignore_ascii_case("u")
                && amp.kind == TokenKind::Operator
                && amp.text(sql) == "&"
                && u.end == amp.start
                && amp.end == q.start
                && matches!(q.kind, TokenKind::QuotedIdent(_))
        }
        _ => false,
    })
}

/// Folds one character for the restricted-name scan: ASCII word characters lower-cased,
/// accented Latin and full-width letters to ASCII, combining marks to nothing (`Some(None)`);
/// anything else ends a word (`None`).
fn fold_char(c: char) -> Option<Option<char>> {
    if c.is_ascii() {
        let word = c.is_ascii_alphanumeric() || c == '_';
        return word.then_some(Some(c.to_ascii_lowercase()));
    }
    if ('\u{300}'..='\u{36f}').contains(&c) {
        return Some(None);
    }
    let code = c as u32;
    if (0xFF21..=0xFF3A).contains(&code) || (0xFF41..=0xFF5A).contains(&code) {
        return char::from_u32(code - 0xFEE0).map(|a| Some(a.to_ascii_lowercase()));
    }
    if c == '\u{ff3f}' {
        return Some(Some('_'));
    }
    LATIN_FOLD
        .iter()
        .find(|(set, _)| set.contains(c))
        .map(|&(_, base)| Some(base))
}

/// Whether the text names a restricted identifier: phpClaw's exact `/\bname\b/i` on ASCII
/// words, or the same on words with accented/full-width letters folded.
fn names_restricted_identifier(sql: &str) -> bool {
    let reference = sql
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| {
            RESTRICTED_IDENTIFIERS
                .iter()
                .chain(EXTRA_RESTRICTED_IDENTIFIERS)
                .any(|n| n.eq_ignore_ascii_case(w))
        });
    reference || names_restricted_folded(sql)
}

/// Whole words after [`fold_char`]: `pässword`, `ｐａｓｓｗｏｒｄ`, `pas\u{301}sword`.
fn names_restricted_folded(sql: &str) -> bool {
    let longest = RESTRICTED_IDENTIFIERS
        .iter()
        .chain(EXTRA_RESTRICTED_IDENTIFIERS)
        .map(|n| n.len())
        .max()
        .unwrap_or(0);
    let mut word = String::new();
    let mut too_long = false;
    let matches = |w: &str, long: bool| {
        !long && (RESTRICTED_IDENTIFIERS.contains(&w) || EXTRA_RESTRICTED_IDENTIFIERS.contains(&w))
    };
    for c in sql.chars() {
        match fold_char(c) {
            Some(Some(a)) => {
                if word.len() < longest {
                    word.push(a);
                } else {
                    too_long = true;
                }
            }
            Some(None) => {}
            None => {
                if matches(&word, too_long) {
                    return true;
                }
                word.clear();
                too_long = false;
            }
        }
    }
    matches(&word, too_long)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(sql: &str) -> SqlRefusal {
        match validate(sql) {
            Ok(_) => panic!("accepted: {sql:?}"),
            Err(e) => e,
        }
    }

    fn assert_ok(sql: &str) {
        if let Err(e) = validate(sql) {
            panic!("refused {sql:?}: {}", e.message);
        }
    }

    fn assert_msg(sql: &str, msg: &str) {
        assert_eq!(refused(sql).message, msg, "for {sql:?}");
    }

    fn assert_ok_for(sql: &str, family: Family) {
        if let Err(e) = validate_for(sql, family) {
            panic!("refused {sql:?} for {family:?}: {}", e.message);
        }
    }

    fn assert_msg_for(sql: &str, family: Family, msg: &str) {
        match validate_for(sql, family) {
            Ok(_) => panic!("accepted for {family:?}: {sql:?}"),
            Err(e) => assert_eq!(e.message, msg, "for {sql:?} ({family:?})"),
        }
    }

    const FAMILIES: [Family; 3] = [Family::MySql, Family::Sqlite, Family::Portable];

    fn not_permitted(name: &str) -> String {
        format!("Function not permitted: {name}.")
    }

    const ONLY_READ: &str = "Only single SELECT/WITH read queries are permitted.";
    const ONE_STMT: &str = "Only a single statement is permitted (\";\" found).";
    const RESTRICTED: &str =
        "db_query: query references a restricted table or column and was blocked.";

    // The db_query table of the spec, row by row.
    #[test]
    fn spec_table() {
        assert_ok("SELECT id FROM a UNION SELECT id FROM b");
        assert_ok("WITH x AS (SELECT 1 AS n) SELECT n FROM x");
        assert_msg(
            "WITH x AS (SELECT 1) DELETE FROM t",
            "Blocked keyword: DELETE.",
        );
        assert_msg("SELECT 1; SELECT 2", ONE_STMT);
        assert_ok("SELECT 1;");
        assert_msg("SELECT 1 -- c", "SQL comments are not permitted (--).");
        assert_msg("SELECT 1 # c", "SQL comments are not permitted (#).");
        assert_msg(
            "SELECT 1 /* c */",
            "SQL comments are not permitted (/* */).",
        );
        assert_msg(
            "SELECT a FROM t INTO OUTFILE '/tmp/x'",
            "Blocked keyword: INTO.",
        );
        assert_msg(
            "SELECT LOAD_FILE('/etc/passwd')",
            "Blocked keyword: LOAD_FILE.",
        );
        assert_msg(
            "SELECT * FROM information_schema.tables",
            "Blocked keyword: INFORMATION_SCHEMA.",
        );
        assert_msg("SELECT * FROM t FOR UPDATE", "Blocked keyword: UPDATE.");
        for name in RESTRICTED_IDENTIFIERS {
            assert_msg(&format!("SELECT {name} FROM users"), RESTRICTED);
        }
    }

    // phpClaw's guard tests (attack payloads, writes in read shape, legit reads).
    #[test]
    fn reference_attack_payloads_are_refused() {
        let attacks = [
            "SELECT 1; DROP TABLE users",
            "SELECT 1;DELETE FROM users",
            "SELECT * FROM users INTO OUTFILE '/tmp/p'",
            "SELECT * FROM users INTO DUMPFILE '/tmp/p'",
            "SELECT 1 INTO/**/OUTFILE '/tmp/p'",
            "SELECT 1 /*!INTO OUTFILE '/tmp/p'*/",
            "SELECT * FROM users /*!12345 DROP TABLE users */",
            "SELECT 1 --\nDROP TABLE users",
            "SELECT 1 #\nDROP TABLE users",
            "SELECT 1 /*/**/DROP TABLE users*/",
            "SELECT 1;/*! DROP TABLE users */",
            "\n\t  SELECT 1; DROP TABLE users",
            "ＳＥＬＥＣＴ 1; DROP TABLE users",
            "\u{200B}SELECT 1; DROP TABLE users",
            "WITH x AS (SELECT 1) DELETE FROM users",
            "SELECT 1 UNION SELECT * FROM users INTO OUTFILE '/tmp/p'",
            "((SELECT 1)); DROP TABLE users",
            "SeLeCt 1; DrOp TABLE users",
            "SELECT 1;  \n\t  DROP TABLE x",
            "SELECT 1;;",
            "SELECT 1; -- comment",
            "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
            "SELECT 1 EXCEPT SELECT 1 INTO DUMPFILE '/tmp/p'",
            "WITH a AS (WITH b AS (WITH c AS (DELETE FROM t RETURNING *) SELECT * FROM c) \
             SELECT * FROM b) SELECT * FROM a",
        ];
        for sql in attacks {
            refused(sql);
        }
    }

    #[test]
    fn reference_tool_cases_are_refused() {
        let cases = [
            "INSERT INTO users (name) VALUES (\"Evil\")",
            "UPDATE users SET name = \"Hacked\"",
            "DELETE FROM users",
            "DROP TABLE users",
            "CREATE TABLE evil (x TEXT)",
            "ALTER TABLE users ADD COLUMN phone TEXT",
            "TRUNCATE TABLE users",
            "REPLACE INTO users (name) VALUES (\"x\")",
            "EXEC xp_cmdshell(\"dir\")",
            "EXECUTE something",
            "GRANT ALL ON users TO evil",
            "REVOKE SELECT ON users FROM alice",
            "/* safe */ DELETE FROM users",
            "-- fetch all users\nSELECT * FROM users",
            "SELECT * FROM users UNION INSERT INTO users (name) VALUES ('x')",
            "",
            "   \n\t",
        ];
        for sql in cases {
            refused(sql);
        }
        assert_msg("  ", "No SQL query provided.");
        assert_msg("DELETE FROM users", ONLY_READ);
    }

    #[test]
    fn reference_legit_reads_pass_and_are_trimmed() {
        let reads = [
            "SELECT * FROM users",
            "SELECT id, name FROM users WHERE id = 5",
            "SELECT COUNT(*) AS c FROM orders",
            "WITH t AS (SELECT 1 AS n) SELECT n FROM t",
            "SELECT id FROM products WHERE name = 'a; b -- c'",
            "SELECT * FROM users LIMIT 10",
            "SELECT id FROM a UNION SELECT id FROM b",
            "(SELECT id FROM a)",
            "SELECT a.id FROM a JOIN b ON a.id = b.id WHERE b.active = 1",
            "SELECT 1;   \n",
            "SELECT id FROM a EXCEPT SELECT id FROM b",
            "SELECT id FROM a INTERSECT SELECT id FROM b",
            "SELECT name FROM users WHERE name = ?",
            "WITH u AS (SELECT name FROM users) SELECT name FROM u ORDER BY name",
        ];
        for sql in reads {
            assert_eq!(validate(sql), Ok(sql.trim()), "{sql:?}");
        }
        assert_eq!(
            validate("  SELECT * FROM users  "),
            Ok("SELECT * FROM users")
        );
        assert_eq!(validate("\0\u{b}SELECT 1\u{b}\0"), Ok("SELECT 1"));
    }

    #[test]
    fn reference_messages_exact() {
        let cases = [
            ("SELECT 1 -- x", "SQL comments are not permitted (--)."),
            ("SELECT 1 # x", "SQL comments are not permitted (#)."),
            (
                "SELECT /* x */ 1",
                "SQL comments are not permitted (/* */).",
            ),
            ("SELECT 1; SELECT 2", ONE_STMT),
            (
                "SELECT 1 \u{c} FROM t",
                "Illegal character outside a string literal.",
            ),
            ("SELECT 'abc", "Unterminated string literal."),
            ("SELECT \"abc", "Unterminated string literal."),
            ("SELECT `abc", "Unterminated string literal."),
            ("SHOW TABLES", ONLY_READ),
            ("EXPLAIN SELECT 1", ONLY_READ),
            ("SELECT SLEEP(5)", "Blocked keyword: SLEEP."),
            ("SELECT * FROM t FOR SHARE", "Blocked clause: FOR SHARE."),
            (
                "SELECT * FROM t FOR KEY SHARE",
                "Blocked clause: FOR KEY SHARE.",
            ),
            (
                "SELECT * FROM t LOCK IN SHARE MODE",
                "Blocked keyword: LOCK.",
            ),
            (
                "SELECT * FROM t FOR NO KEY UPDATE",
                "Blocked keyword: UPDATE.",
            ),
        ];
        for (sql, msg) in cases {
            assert_msg(sql, msg);
        }
    }

    #[test]
    fn every_blocked_table_entry_is_refused_in_any_case() {
        for w in REFERENCE_BLOCKED_WORDS
            .iter()
            .chain(EXTRA_BLOCKED_WORDS)
            .chain(BLOCKED_FUNCTIONS)
        {
            assert_msg(
                &format!("SELECT {}(1) FROM t", w.to_ascii_lowercase()),
                &format!("Blocked keyword: {w}."),
            );
            assert_msg(
                &format!("SELECT x FROM t WHERE {w} = 1"),
                &format!("Blocked keyword: {w}."),
            );
        }
    }

    #[test]
    fn literals_do_not_fool_the_check_either_way() {
        // Keywords, separators and comment markers inside literals are data.
        for sql in [
            "SELECT 'DELETE'",
            "SELECT 'a; DROP TABLE t'",
            "SELECT '-- not a comment', '/* nor this */', '# nor this'",
            "SELECT 'it''s'",
            "SELECT `delete` FROM t",
            "SELECT \"drop\" FROM t",
            "SELECT 'INTO OUTFILE'",
        ] {
            assert_ok(sql);
        }
        // And a real comment or statement after a literal is still seen.
        assert_msg("SELECT 'a' -- x", "SQL comments are not permitted (--).");
        assert_msg("SELECT 'a'; DELETE FROM t", ONE_STMT);
        assert_msg("SELECT 'a' INTO @x", "Blocked keyword: INTO.");
    }

    #[test]
    fn backslash_is_safe_under_both_readings() {
        // Generic reads one string; MySQL ends the string at \' and sees a second statement.
        assert_msg("SELECT 'a\\''; DELETE FROM t; SELECT '", ONE_STMT);
        // MySQL reads one string; generic sees a second statement.
        assert_msg("SELECT 'a\\'; DELETE FROM t; SELECT '", ONE_STMT);
        // Harmless backslashes pass.
        assert_ok("SELECT 'C:\\\\dir'");
        assert_ok("SELECT 'a\\nb'");
        // The reference's MySQL test: backslash-quote inside a string.
        refused("SELECT '\\'; still string'");
    }

    #[test]
    fn double_quotes_are_safe_as_string_or_identifier() {
        assert_ok("SELECT \"a;b\" FROM t");
        assert_msg("SELECT \"a\\\"; DROP TABLE t; SELECT \"", ONE_STMT);
        assert_msg("SELECT \"password\" FROM users", RESTRICTED);
    }

    #[test]
    fn dollar_quotes() {
        // A dollar-quoted string hides nothing from the other readings.
        assert_msg("SELECT $$; DROP TABLE t; $$", ONE_STMT);
        assert_msg("SELECT $x$DELETE$x$", "Blocked keyword: DELETE.");
        assert_ok("SELECT $1");
        assert_msg("SELECT $$abc", "Unterminated string literal.");
        // A quote inside a dollar quote would open a string for MySQL: refused there.
        refused("SELECT $$it's$$");
        assert_ok("SELECT $$abc$$");
    }

    #[test]
    fn brackets_are_safe_as_identifier_or_subscript() {
        assert_ok("SELECT [name] FROM [t]");
        assert_ok("SELECT arr[1] FROM t");
        assert_msg(
            "SELECT arr[pg_sleep(5)] FROM t",
            "Blocked keyword: PG_SLEEP.",
        );
        // SQLite reads [a'b] as one name, the others see a quote: both must pass.
        assert_msg("SELECT [a'b] FROM t; DELETE FROM t; SELECT '", ONE_STMT);
        assert_msg("SELECT [password] FROM users", RESTRICTED);
        assert_msg("SELECT [open FROM t", "Unterminated string literal.");
    }

    #[test]
    fn quoted_identifier_tricks() {
        for sql in [
            "SELECT `password` FROM users",
            "SELECT t.`password` FROM users t",
            "SELECT t.password FROM users t",
            "SELECT \"PassWord\" FROM users",
            "SELECT [api_key] FROM keys",
            "SELECT x FROM users WHERE note = 'password'",
            "SELECT `pässword` FROM users",
            "SELECT `pas\u{301}sword` FROM users",
            "SELECT `ｐａｓｓｗｏｒｄ` FROM users",
        ] {
            assert_msg(sql, RESTRICTED);
        }
        assert_msg(
            "SELECT U&\"p\\0061ssword\" FROM users",
            "Unicode-escaped identifiers are not permitted.",
        );
        // Whole words only, like \b: these are other columns.
        for sql in [
            "SELECT password_hash FROM users",
            "SELECT user_password FROM users",
            "SELECT secrets FROM t",
            "SELECT 'José', 'Россия' FROM t",
        ] {
            assert_ok(sql);
        }
    }

    #[test]
    fn placeholders_inside_backtick_or_bracket_names_are_refused() {
        let msg = "Placeholders are not permitted inside quoted identifiers.";
        assert_msg("SELECT 1 AS `?`", msg);
        assert_msg("SELECT 1 AS `:x`", msg);
        assert_msg("SELECT [a?] FROM t", msg);
        // Placeholders in plain positions and in strings are fine.
        assert_ok("SELECT a FROM t WHERE b = ? AND c = :name");
        assert_ok("SELECT 'a?b', \"c:d\" FROM t");
    }

    #[test]
    fn placeholders_must_sit_at_the_same_place_in_every_reading() {
        // Outside a literal with backslash escapes (PDO, MySQL), inside one without
        // (MySQL NO_BACKSLASH_ESCAPES, PostgreSQL, SQLite): PDO would splice the value
        // into what the server reads as a string, turning the value into code.
        let msg = "Placeholder position is ambiguous between SQL dialects.";
        assert_msg("SELECT '\\'' , ? , '\\''", msg);
        assert_msg("SELECT $$?$$", msg);
        assert_ok("SELECT a FROM t WHERE b = ? AND c IN (:one, :two)");
        assert_ok("SELECT $1, a::text FROM t");
    }

    #[test]
    fn reference_word_scan_is_kept_next_to_folding() {
        // phpClaw's \b sees `secret` before the non-ASCII byte; folding alone would not.
        assert_msg("SELECT 'secretö'", RESTRICTED);
        assert_msg("SELECT 'ßecret'", RESTRICTED);
    }

    #[test]
    fn reference_rules_run_first_so_its_messages_win() {
        // Our PostgreSQL reading would call `$$x` unterminated; phpClaw names the column.
        assert_msg("SELECT password, $$x", RESTRICTED);
        // phpClaw's first-word rule and tables come before ours.
        assert_msg(
            "SELECT comment FROM t INTO OUTFILE 'f'",
            "Blocked keyword: INTO.",
        );
        // DEL is punctuation for phpClaw; it cannot move a boundary in any engine.
        assert_ok("SELECT 1 \u{7f}");
    }

    #[test]
    fn postgres_number_prefix_tricks() {
        // PostgreSQL before 15 reads 1e'..' as 1 then an E-string: the backslash then
        // escapes the quote and the rest is code.
        assert_msg("SELECT 1e'\\''; DROP TABLE t; SELECT '", ONE_STMT);
        assert_msg("SELECT 1$q$'$q$; DROP TABLE t; SELECT '", ONE_STMT);
    }

    #[test]
    fn case_and_whitespace_variants() {
        assert_ok("SeLeCt\t1\nFROM\rt");
        assert_ok("select 1");
        assert_ok("(((select 1)))");
        assert_msg(
            "sElEcT 1 fRoM t WhErE x = 1 dElEtE",
            "Blocked keyword: DELETE.",
        );
        assert_msg(
            "SELECT\u{b}1",
            "Illegal character outside a string literal.",
        );
        assert_msg(
            "SELECT\u{a0}1",
            "Illegal character outside a string literal.",
        );
        assert_ok("SELECT 1;\t\n\r ");
    }

    #[test]
    fn digit_led_runs_are_split_like_postgres() {
        assert_msg("SELECT 1INTO t", "Blocked keyword: INTO.");
        assert_msg(
            "SELECT 1e1UNION SELECT LOAD_FILE('x')",
            "Blocked keyword: LOAD_FILE.",
        );
        assert_ok("SELECT 0x1F, 1e5, 3.14");
    }

    #[test]
    fn leading_shape() {
        for sql in ["'x' SELECT 1", "1 SELECT 2", "VALUES (1)", "TABLE t", "()"] {
            assert_msg(sql, ONLY_READ);
        }
        assert_msg("; SELECT 1", ONE_STMT);
    }

    #[test]
    fn pragma_statement_refused_but_table_valued_functions_read() {
        assert_msg(
            "SELECT 1 FROM t WHERE pragma = 1",
            "Blocked keyword: PRAGMA.",
        );
        assert_ok_for("SELECT name FROM pragma_table_info('t')", Family::Sqlite);
    }

    #[test]
    fn public_injection_payloads() {
        let payloads = [
            "SELECT * FROM users WHERE id = 1; DROP TABLE users",
            "SELECT * FROM users WHERE id = 1;%00",
            "SELECT * FROM users WHERE id = 1;\0DROP TABLE users",
            "SELECT * FROM users WHERE id = -1 UNION SELECT LOAD_FILE('/etc/passwd')",
            "SELECT 1 /*!50000 DROP TABLE users*/",
            "SELECT * FROM users WHERE name = '' OR 1=1 --",
            "SELECT * FROM users WHERE name = '' OR '1'='1' #",
            "SELECT IF(1=1, SLEEP(5), 0)",
            "SELECT BENCHMARK(10000000, MD5('a'))",
            "SELECT pg_sleep(10)",
            "SELECT pg_read_file('/etc/passwd')",
            "SELECT lo_import('/etc/passwd')",
            "SELECT dblink('host=evil', 'select 1')",
            "SELECT load_extension('/tmp/evil.so')",
            "SELECT writefile('/tmp/x', 'y')",
            "SELECT sys_exec('id')",
            "SELECT GET_LOCK('a', 10)",
            "SELECT nextval('seq')",
            "SELECT set_config('role', 'admin', false)",
            "SELECT pg_terminate_backend(1)",
            "SELECT query_to_xml('DELETE FROM t RETURNING 1', true, true, '')",
            "SELECT * INTO new_table FROM t",
            "SELECT @@version INTO @v",
            "SELECT 1 UNION ALL SELECT table_name FROM information_schema.tables",
            "WITH x AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM x",
            "WITH x AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM x",
            "WITH x AS (SELECT 1) MERGE INTO t USING x ON true WHEN MATCHED THEN DELETE",
            "SELECT 1; COMMIT",
            "SELECT 1 /*",
            "SELECT '1' ; ATTACH DATABASE '/tmp/x' AS y",
            "SELECT * FROM t PROCEDURE ANALYSE()",
        ];
        for sql in payloads {
            refused(sql);
        }
    }

    #[test]
    fn blocked_in_word_bounds() {
        assert_eq!(blocked_in_word("1INTO"), Some("INTO"));
        assert_eq!(blocked_in_word("INTO1"), None);
        assert_eq!(blocked_in_word("X1INTO"), None);
        assert_eq!(blocked_in_word(""), None);
        assert_eq!(blocked_in_word("1"), None);
    }

    #[test]
    fn restricted_name_limits() {
        // The longest restricted names match exactly; one byte more is another word.
        assert!(names_restricted_identifier("access_token"));
        assert!(!names_restricted_identifier("access_tokens"));
        assert!(!names_restricted_identifier("xaccess_token"));
        assert!(names_restricted_identifier("a.secret_key"));
        assert!(!names_restricted_identifier("secret_keyx"));
        assert!(!names_restricted_identifier(""));
    }

    #[test]
    fn refusal_carries_exception_class() {
        let e = refused("DELETE FROM t");
        assert_eq!(e.exception_class(), "PhpClaw\\Exceptions\\ToolException");
        assert_eq!(e.kind, RefusalKind::NotRead);
        assert_eq!(e.to_string(), ONLY_READ);
    }

    #[test]
    fn sequences_are_refused_in_every_spelling() {
        for f in FAMILIES {
            assert_msg_for(
                "SELECT NEXT VALUE FOR s",
                f,
                "Blocked clause: NEXT VALUE FOR.",
            );
            assert_msg_for(
                "select next \t value\nfor s",
                f,
                "Blocked clause: NEXT VALUE FOR.",
            );
            assert_msg_for(
                "SELECT id, PREVIOUS VALUE FOR s FROM t",
                f,
                "Blocked clause: PREVIOUS VALUE FOR.",
            );
            assert_msg_for("SELECT nextval(s)", f, "Blocked keyword: NEXTVAL.");
            assert_msg_for("SELECT s.NEXTVAL", f, "Blocked keyword: NEXTVAL.");
            assert_msg_for("SELECT setval(s, 9)", f, "Blocked keyword: SETVAL.");
            assert_msg_for("SELECT lastval(s)", f, &not_permitted("LASTVAL"));
            assert_msg_for("SELECT `nextval`(s)", f, &not_permitted("NEXTVAL"));
            assert_msg_for("SELECT \"LastVal\" (s)", f, &not_permitted("LASTVAL"));
        }
    }

    #[test]
    fn locks_waits_sleeps_and_files_are_refused_as_calls() {
        let cases = [
            ("SELECT IS_FREE_LOCK('a')", "IS_FREE_LOCK"),
            ("SELECT is_used_lock('a')", "IS_USED_LOCK"),
            ("SELECT `get_lock`('a', 10)", "GET_LOCK"),
            (
                "SELECT MASTER_GTID_WAIT('0-1-100', 3600)",
                "MASTER_GTID_WAIT",
            ),
            ("SELECT master_gtid_wait ('0-1-100')", "MASTER_GTID_WAIT"),
            ("SELECT `master_pos_wait`('f', 4)", "MASTER_POS_WAIT"),
            ("SELECT \"source_pos_wait\"('f', 4)", "SOURCE_POS_WAIT"),
            (
                "SELECT WSREP_SYNC_WAIT_UPTO_GTID('0-1-1')",
                "WSREP_SYNC_WAIT_UPTO_GTID",
            ),
            ("SELECT `sleep`(5)", "SLEEP"),
            ("SELECT 1 FROM t WHERE \"SLEEP\"(5) = 0", "SLEEP"),
            ("SELECT `benchmark`(1000000, 1)", "BENCHMARK"),
            ("SELECT `load_file`('/etc/hosts')", "LOAD_FILE"),
            ("SELECT \"readfile\"('/etc/hosts')", "READFILE"),
            ("SELECT \"load_extension\"('/tmp/x.so')", "LOAD_EXTENSION"),
            ("SELECT `fts3_tokenizer`('x')", "FTS3_TOKENIZER"),
            ("SELECT LAST_INSERT_ID(5)", "LAST_INSERT_ID"),
            ("SELECT UUID_SHORT()", "UUID_SHORT"),
            ("SELECT my_udf(1)", "MY_UDF"),
            ("SELECT 1abc(2)", "1ABC"),
            ("SELECT `in`(1)", "IN"),
        ];
        for (sql, name) in cases {
            for f in FAMILIES {
                assert_msg_for(sql, f, &not_permitted(name));
            }
        }
        // The blocked-word tables still answer first with phpClaw's messages.
        assert_msg("SELECT SLEEP(5)", "Blocked keyword: SLEEP.");
        assert_msg("SELECT GET_LOCK('a', 1)", "Blocked keyword: GET_LOCK.");
        assert_msg(
            "SELECT MASTER_POS_WAIT('f', 4)",
            "Blocked keyword: MASTER_POS_WAIT.",
        );
    }

    #[test]
    fn sqlite_brackets_call_too() {
        assert_msg_for(
            "SELECT [is_free_lock](5)",
            Family::Sqlite,
            &not_permitted("IS_FREE_LOCK"),
        );
        assert_ok_for("SELECT [abs](-1)", Family::Sqlite);
    }

    #[test]
    fn qualified_calls_are_stored_functions() {
        for sql in [
            "SELECT db.f(1)",
            "SELECT `db`.`abs`(1)",
            "SELECT \"db\".\"abs\"(1)",
            "SELECT main . abs(1)",
        ] {
            for f in FAMILIES {
                let e = validate_for(sql, f).unwrap_err();
                assert_eq!(e.kind, RefusalKind::FunctionNotAllowed, "{sql}");
            }
        }
    }

    #[test]
    fn allowed_calls_and_parenthesised_grammar_pass() {
        for f in FAMILIES {
            for sql in [
                "SELECT COUNT(*) FROM t",
                "SELECT count (*) FROM t",
                "SELECT `abs`(-1), \"ABS\"(-2)",
                "SELECT a FROM t WHERE a IN (1, 2) AND EXISTS (SELECT 1) OR NOT (a = 1)",
                "SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) FROM t",
                "SELECT s.x FROM (SELECT 1 AS x) s JOIN (SELECT 2 AS y) u ON (s.x = u.y)",
                "SELECT a FROM t JOIN u USING (id)",
                "SELECT a FROM t USE INDEX (i) WHERE MATCH (a) AGAINST ('x')",
                "SELECT a FROM t PARTITION (p0) WHERE 1 MEMBER OF ('[1]')",
                "SELECT a FROM t WHERE a GLOB ('x*') AND a LIKE ('y%')",
                "SELECT CAST(a AS DECIMAL(10, 2)) FROM t",
                "SELECT a FROM t UNION (SELECT b FROM u)",
                "SELECT CASE WHEN (a > 1) THEN (1) ELSE (2) END FROM t",
                "SELECT MAX(a), MIN(a), SUM(a), AVG(a) FROM t GROUP BY (b) HAVING (COUNT(*) > 1)",
            ] {
                assert_ok_for(sql, f);
            }
        }
        for sql in [
            "SELECT DATE_FORMAT(NOW(), '%Y') FROM t",
            "SELECT IF(a, 1, 2), IFNULL(a, 0), CONVERT(a, CHAR(10)) FROM t",
            "SELECT j.id FROM JSON_TABLE('[1]', '$[*]' COLUMNS (id INT PATH '$')) AS j",
        ] {
            assert_ok_for(sql, Family::MySql);
            assert_eq!(
                validate_for(sql, Family::Sqlite).map_err(|e| e.kind),
                Err(RefusalKind::FunctionNotAllowed),
                "{sql}"
            );
        }
        for sql in [
            "SELECT zeroblob(4), randomblob(2), typeof(1), json_patch_not_called FROM t",
            "SELECT value FROM json_each('[1,2]')",
        ] {
            assert_ok_for(sql, Family::Sqlite);
            assert_eq!(
                validate_for(sql, Family::MySql).map_err(|e| e.kind),
                Err(RefusalKind::FunctionNotAllowed),
                "{sql}"
            );
        }
    }

    #[test]
    fn quadratic_single_calls_are_refused() {
        for (sql, name) in [
            ("SELECT instr(a, b) FROM t", "INSTR"),
            ("SELECT LOCATE(a, b) FROM t", "LOCATE"),
            ("SELECT POSITION(a IN b) FROM t", "POSITION"),
            ("SELECT SUBSTRING_INDEX(a, b, 1) FROM t", "SUBSTRING_INDEX"),
            ("SELECT printf('%.*c', 2000000000, 'x')", "PRINTF"),
            ("SELECT json_patch(a, b) FROM t", "JSON_PATCH"),
        ] {
            for f in FAMILIES {
                assert_msg_for(sql, f, &not_permitted(name));
            }
        }
        assert_msg_for(
            "SELECT format('%.*c', 9, 'x')",
            Family::Sqlite,
            &not_permitted("FORMAT"),
        );
        assert_ok_for("SELECT FORMAT(1234.5, 2)", Family::MySql);
        for sql in [
            "SELECT trim(a, b) FROM t",
            "SELECT TRIM(a, 'xy') FROM t",
            "SELECT trim(upper(a), (b)) FROM t",
        ] {
            for f in FAMILIES {
                assert_msg_for(sql, f, &not_permitted("TRIM with more than one argument"));
            }
        }
        assert_msg_for(
            "SELECT ltrim(a, b), rtrim(a) FROM t",
            Family::Sqlite,
            &not_permitted("LTRIM with more than one argument"),
        );
        for f in FAMILIES {
            assert_ok_for("SELECT trim(a), ltrim(coalesce(a, b)), rtrim(a) FROM t", f);
        }
        assert_ok_for("SELECT TRIM(BOTH 'x' FROM a) FROM t", Family::MySql);
    }

    #[test]
    fn cte_column_lists_are_not_calls() {
        for f in FAMILIES {
            for sql in [
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) \
                 SELECT x FROM c",
                "WITH a(x) AS (SELECT 1), b(y, z) AS (SELECT 2, 3) SELECT * FROM a, b",
                "WITH `q`(x) AS (SELECT 1) SELECT x FROM q",
                "WITH a AS (SELECT 1 AS x), b(y) AS (SELECT x FROM a) SELECT y FROM b",
                "SELECT * FROM (WITH w(v) AS (SELECT 1) SELECT v FROM w) s",
                "WITH master_gtid_wait(x) AS (SELECT 1) SELECT x FROM master_gtid_wait",
            ] {
                assert_ok_for(sql, f);
            }
            // The same names used as calls are calls.
            assert_msg_for(
                "WITH c(x) AS (SELECT 1) SELECT c(1) FROM c",
                f,
                &not_permitted("C"),
            );
            assert_msg_for("SELECT c(x) AS y FROM t", f, &not_permitted("C"));
            assert_msg_for(
                "WITH c AS (SELECT 1) SELECT lastval(1) AS (x) FROM c",
                f,
                &not_permitted("LASTVAL"),
            );
        }
        assert_ok_for(
            "WITH a(x) AS NOT MATERIALIZED (SELECT 1) SELECT x FROM a",
            Family::Sqlite,
        );
    }

    #[test]
    fn variable_assignment_is_refused() {
        let msg = "Variable assignment (:=) is not permitted.";
        for sql in [
            "SELECT @a := 1",
            "SELECT @a:=1",
            "SELECT id FROM t WHERE (@x := id) > 0",
        ] {
            for f in FAMILIES {
                assert_msg_for(sql, f, msg);
            }
        }
        assert_ok("SELECT a::text FROM t");
        assert_ok("SELECT @a, @@version FROM t WHERE b = :name");
    }

    #[test]
    fn restricted_schemas_in_every_quoting_style() {
        for sql in [
            "SELECT * FROM `information_schema`.`tables`",
            "SELECT * FROM \"information_schema\".\"tables\"",
            "SELECT * FROM `INFORMATION_SCHEMA`.tables",
            "SELECT * FROM mysql.user",
            "SELECT * FROM `mysql`.`user`",
            "SELECT * FROM \"MySQL\".user",
            "SELECT * FROM [mysql].[global_priv]",
            "SELECT * FROM mysql . user",
            "SELECT * FROM performance_schema.threads",
            "SELECT * FROM `performance_schema`.`accounts`",
            "SELECT * FROM sys.session",
            "SELECT * FROM `sys`.`x$processlist`",
            "SELECT * FROM `ｍｙｓｑｌ`.user",
            "SELECT * FROM `mÿsql`.user",
            "SELECT * FROM `my``sql`.user, mysql.db",
        ] {
            for f in FAMILIES {
                assert_msg_for(sql, f, RESTRICTED);
            }
        }
        // phpClaw's word rule answers first for the bare word (brackets quote only in SQLite).
        assert_msg(
            "SELECT * FROM [information_schema].[tables]",
            "Blocked keyword: INFORMATION_SCHEMA.",
        );
        assert_msg(
            "SELECT * FROM information_schema . tables",
            "Blocked keyword: INFORMATION_SCHEMA.",
        );
        // Other names that merely contain one, and string data, are fine.
        for sql in [
            "SELECT mysql_version, sys_id FROM t",
            "SELECT `mysql.user` FROM t",
            "SELECT a FROM t WHERE engine = 'mysql' OR kind = 'sys'",
        ] {
            assert_ok(sql);
        }
    }

    #[test]
    fn credential_columns_in_every_quoting_style() {
        for sql in [
            "SELECT authentication_string FROM t",
            "SELECT `authentication_string` FROM t",
            "SELECT \"Authentication_String\" FROM t",
            "SELECT [authentication_string] FROM t",
            "SELECT u.`user_pass` FROM wp_users u",
            "SELECT user_activation_key FROM wp_users",
            "SELECT meta_value FROM wp_usermeta WHERE meta_key = 'session_tokens'",
            "SELECT refresh_token, client_secret FROM oauth",
            "SELECT `pass``word` FROM t, t2 WHERE t2.password = 1",
        ] {
            assert_msg(sql, RESTRICTED);
        }
        assert_ok("SELECT user_login, user_email FROM wp_users");
    }

    #[test]
    fn sqlite_pragma_tables_that_can_set_are_refused() {
        for (sql, name) in [
            (
                "SELECT * FROM pragma_query_only WHERE arg = 0",
                "PRAGMA_QUERY_ONLY",
            ),
            (
                "SELECT * FROM pragma_foreign_keys(0)",
                "PRAGMA_FOREIGN_KEYS",
            ),
            (
                "SELECT * FROM \"pragma_user_version\"",
                "PRAGMA_USER_VERSION",
            ),
            (
                "SELECT * FROM [pragma_journal_mode]('wal')",
                "PRAGMA_JOURNAL_MODE",
            ),
            (
                "SELECT * FROM `Pragma_Writable_Schema`",
                "PRAGMA_WRITABLE_SCHEMA",
            ),
        ] {
            for f in FAMILIES {
                assert_msg_for(sql, f, &not_permitted(name));
            }
        }
        for sql in [
            "SELECT name FROM pragma_table_info('t')",
            "SELECT * FROM pragma_index_list WHERE arg = 't'",
            "SELECT name FROM pragma_table_xinfo(?)",
        ] {
            assert_ok_for(sql, Family::Sqlite);
        }
    }

    #[test]
    fn unquoting_covers_each_style() {
        assert_eq!(unquote_identifier("`a``b`"), "a`b");
        assert_eq!(unquote_identifier("\"a\"\"b\""), "a\"b");
        assert_eq!(unquote_identifier("[a]]"), "a]");
        assert_eq!(unquote_identifier("plain"), "plain");
        assert_eq!(unquote_identifier("`"), "");
        assert_eq!(unquote_identifier(""), "");
    }

    #[test]
    fn allow_list_tables_are_clean() {
        let tables: [&[&str]; 5] = [
            PORTABLE_FUNCTIONS,
            MYSQL_FUNCTIONS,
            SQLITE_FUNCTIONS,
            SQLITE_READ_ONLY_PRAGMAS,
            PAREN_KEYWORDS,
        ];
        for table in tables {
            let mut sorted = table.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted, table.to_vec(), "sorted and unique");
            for name in table {
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                    "{name}"
                );
                // Reachable: a blocked word would be refused before the allow-list.
                assert!(!is_blocked_word(name), "{name} is blocked anyway");
            }
        }
        for name in MYSQL_FUNCTIONS.iter().chain(SQLITE_FUNCTIONS) {
            assert!(!PORTABLE_FUNCTIONS.contains(name), "{name} twice");
        }
        for name in PORTABLE_FUNCTIONS.iter().chain(MYSQL_FUNCTIONS) {
            assert_ok_for(&format!("SELECT {name}(1) FROM t"), Family::MySql);
        }
        for name in PORTABLE_FUNCTIONS
            .iter()
            .chain(SQLITE_FUNCTIONS)
            .chain(SQLITE_READ_ONLY_PRAGMAS)
        {
            assert_ok_for(&format!("SELECT {name}(1) FROM t"), Family::Sqlite);
        }
        for name in PORTABLE_FUNCTIONS {
            assert_ok(&format!("SELECT `{name}`(1) FROM t"));
        }
        for name in BLOCKED_FUNCTIONS {
            for f in FAMILIES {
                assert!(!is_allowed_function(name, f), "{name}");
            }
        }
    }

    #[test]
    fn main_select_is_found_past_ctes_and_parentheses() {
        fn at(sql: &str) -> Option<&str> {
            main_select_end(sql).map(|e| &sql[..e])
        }
        assert_eq!(at("SELECT 1"), Some("SELECT"));
        assert_eq!(at("select 1 UNION SELECT 2"), Some("select"));
        assert_eq!(
            at("WITH c AS (SELECT 1), d(x) AS (SELECT 2) SELECT * FROM c"),
            Some("WITH c AS (SELECT 1), d(x) AS (SELECT 2) SELECT")
        );
        assert_eq!(
            at("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x FROM c) (SELECT x FROM c)"),
            Some("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x FROM c) (SELECT")
        );
        assert_eq!(at("((SELECT 1)) UNION (SELECT 2)"), Some("((SELECT"));
        assert_eq!(at("SELECT 'WITH' FROM t"), Some("SELECT"));
        assert_eq!(at("WITH c AS (SELECT 1)"), None);
        assert_eq!(at(""), None);
    }

    #[test]
    fn deep_nesting_stays_linear() {
        let n = 5_000;
        let ctes = format!(
            "WITH {} SELECT 1",
            (0..n)
                .map(|i| format!("c{i}(x) AS (SELECT 1)"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let t0 = std::time::Instant::now();
        assert_ok(&ctes);
        let nested = format!("SELECT {}1{}", "abs(".repeat(n), ")".repeat(n));
        assert_ok(&nested);
        let withs = format!(
            "{}SELECT 1{}",
            "(WITH a(x) AS (SELECT 1) ".repeat(2000),
            ")".repeat(2000)
        );
        let _ = validate(&withs);
        assert!(t0.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn large_input_is_linear() {
        let big = format!("SELECT {} 1", "a, ".repeat(50_000));
        assert_ok(&big);
        let quotes = "'".repeat(100_001);
        refused(&quotes);
        let dollars = format!("SELECT {}", "$a".repeat(50_000));
        let _ = validate(&dollars);
        let digits = format!("SELECT {}", "1a".repeat(50_000));
        let _ = validate(&digits);
    }
}
