//! `db_query`: one read-only SQL statement run through the caller's database connection.
//!
//! Rules (phpClaw's DatabaseQueryTool, spec "db_query"):
//! - the guard's subject is "query the database";
//! - the SQL is trimmed and checked by [`crate::core::security::sql_guard`] before anything
//!   reaches the database; the checked text is what runs;
//! - at most [`MAX_ROWS`] rows are kept; rows stay inline while their JSON lines (default
//!   `json_encode` flags, one newline each) fit in [`MAX_OUTPUT_BYTES`], the first row always;
//! - when rows were cut, every kept row goes to a JSON Lines spill file (`phpclaw-db-` prefix)
//!   in the spill folder, or a discard note says how many were dropped when it cannot be written.

use std::path::Path;

use super::{encode, process, success, ToolError};
use crate::core::json::{self, EncodeOptions};
use crate::core::security::sql_guard;
use crate::core::value::{Array, Value};

/// The tool name.
pub const NAME: &str = "db_query";

/// The description advertised to the model.
pub const DESCRIPTION: &str = "EXECUTE a read-only SQL SELECT against the live DB and return real rows as JSON. Use for tables, row counts, schema, data. Invoke: never describe SQL, run it. SELECT only. Results over 8KB return a preview plus spill_path, a JSON Lines file readable with shell_exec head or grep; narrow with fewer columns, LIMIT, or OFFSET.";

/// Most rows kept.
pub const MAX_ROWS: usize = 100;

/// Most bytes of JSON lines kept inline.
pub const MAX_OUTPUT_BYTES: usize = 8192;

/// The spill file name prefix.
pub const SPILL_PREFIX: &str = "phpclaw-db-";

/// The FORBIDDEN message's subject.
pub const SUBJECT: &str = "query the database";

/// A PDO failure's message.
pub const QUERY_FAILED: &str = "Database query failed.";

/// What precedes a PDO failure's message in the error log.
pub const LOG_PREFIX: &str = "[phpClaw] DatabaseQueryTool: ";

/// A prepare() that answered false.
pub const PREPARE_FAILED: &str = "Failed to prepare SQL statement.";

const SPILL_HINT: &str = "Preview only. Full result is JSON Lines at spill_path: use shell_exec head or grep on it, or narrow the query with fewer columns, a smaller LIMIT, or OFFSET.";

const DISCARD_TAIL: &str =
    " more rows discarded. Narrow the query with fewer columns, a smaller LIMIT, or OFFSET.";

/// Domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["database", "data"],
    &["sql", "select", "query", "rows", "table", "schema", "count"],
    &["query database", "count rows", "inspect schema"],
    &["how many users are there"],
];

/// `inputSchema()`.
pub fn input_schema() -> Value {
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                (
                    "sql",
                    Value::from_pairs([
                        ("type", "string"),
                        (
                            "description",
                            "A SELECT SQL query to execute. Only SELECT is allowed.",
                        ),
                    ]),
                ),
                (
                    "params",
                    Value::from_pairs([
                        ("type", Value::str("array")),
                        (
                            "description",
                            Value::str(
                                "Optional positional or named parameters bound to the query.",
                            ),
                        ),
                        (
                            "items",
                            Value::from_pairs([(
                                "type",
                                Value::list(["string", "integer", "number", "null"]),
                            )]),
                        ),
                    ]),
                ),
            ]),
        ),
        ("required", Value::list(["sql"])),
    ])
}

/// What the database side of a run must do: run the checked SQL with the caller's
/// parameters and hand back at most `limit` rows (column => value arrays).
pub trait Database<E> {
    /// Prepare, execute, fetch up to `limit` rows.
    fn fetch(&mut self, sql: &str, limit: usize) -> Result<Vec<Value>, ToolError<E>>;
}

/// A db_query run: the database side and the spill folder.
pub struct DbQuery<D> {
    /// The connection's side.
    pub db: D,
    /// Folder of spill files (the constructor's, or PHP's temp folder when that was empty).
    pub spill_dir: String,
}

/// The executed query: the data payload and whether rows were cut.
pub struct Fetched {
    data: Value,
    truncated: bool,
}

/// `json_encode($v)` with default flags (`/` and non-ASCII escaped); empty when it fails,
/// as `(string) json_encode()` is.
pub fn default_json(v: &Value) -> Vec<u8> {
    let Ok(plain) = json::to_vec(v, EncodeOptions::default()) else {
        return Vec::new();
    };
    escape_default(&plain)
}

/// Turn unescaped-slash, unescaped-unicode JSON into json_encode's default spelling.
fn escape_default(plain: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(plain);
    let mut out = Vec::with_capacity(plain.len() + 8);
    for c in text.chars() {
        if c == '/' {
            out.extend_from_slice(b"\\/");
        } else if c.is_ascii() {
            out.push(c as u8);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.extend_from_slice(format!("\\u{:04x}", u).as_bytes());
            }
        }
    }
    out
}

/// Keep what fits inline, and spill when anything was cut.
pub fn cap_rows(mut rows: Vec<Value>, spill_dir: &str) -> Fetched {
    let row_capped = rows.len() > MAX_ROWS;
    rows.truncate(MAX_ROWS);
    let lines: Vec<Vec<u8>> = rows.iter().map(default_json).collect();
    let mut inline = 0usize;
    let mut bytes = 0usize;
    for line in &lines {
        bytes += line.len() + 1;
        if bytes > MAX_OUTPUT_BYTES && inline > 0 {
            break;
        }
        inline += 1;
    }
    let total = rows.len();
    let mut data = Array::new();
    data.insert("rows", Value::list(rows.into_iter().take(inline)));
    data.insert("count", Value::Int(inline as i64));
    if !row_capped && inline == total {
        return Fetched {
            data: Value::Array(data),
            truncated: false,
        };
    }
    data.insert("total_rows", Value::Int(total as i64));
    data.insert("truncated", Value::Bool(true));
    data.insert("limit", Value::Int(MAX_ROWS as i64));
    let mut content = lines.join(&b'\n');
    content.push(b'\n');
    match spill_to(spill_dir, &content) {
        Some(path) => {
            data.insert("spill_path", Value::str(path));
            data.insert("spill_bytes", Value::Int(content.len() as i64));
            data.insert("hint", Value::str(SPILL_HINT));
        }
        None => {
            let note = format!("{}{}", total - inline, DISCARD_TAIL);
            data.insert("hint", Value::str(note));
        }
    }
    Fetched {
        data: Value::Array(data),
        truncated: true,
    }
}

fn writable_dir(dir: &str) -> bool {
    let Ok(c) = std::ffi::CString::new(dir) else {
        return false;
    };
    // SAFETY: a NUL-terminated path; access() only reads it.
    Path::new(dir).is_dir() && unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0
}

fn spill_to(dir: &str, content: &[u8]) -> Option<String> {
    if !writable_dir(dir) {
        return None;
    }
    process::spill(Path::new(dir), SPILL_PREFIX, content).map(|p| p.to_string_lossy().into_owned())
}

/// The checked SQL of `input` (its `sql`, trimmed), or the guard's refusal message.
pub fn checked_sql(input: &Value) -> Result<String, String> {
    let sql = input
        .as_array()
        .and_then(|a| a.get("sql"))
        .and_then(Value::as_bytes)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    sql_guard::validate(&sql)
        .map(str::to_owned)
        .map_err(|e| e.message)
}

/// The success envelope of a fetch.
pub fn envelope(fetched: Fetched) -> Value {
    let mut meta = Array::from_pairs([("mode", "query")]);
    if fetched.truncated {
        meta.insert("truncated", Value::Bool(true));
        meta.insert("limit", Value::Int(MAX_ROWS as i64));
    }
    success(
        fetched.data,
        Value::Array(meta),
        Value::list(Vec::<Value>::new()),
    )
}

impl<D> DbQuery<D> {
    /// plan → perform → complete after the guard (no retries, verify accepts: the lifecycle
    /// with zero recovery attempts, run in line so the database side keeps its own error type).
    pub fn run_steps<E>(&mut self, input: &Value) -> Result<Vec<u8>, ToolError<E>>
    where
        D: Database<E>,
    {
        let sql = checked_sql(input).map_err(ToolError::Tool)?;
        let rows = self.db.fetch(&sql, MAX_ROWS + 1)?;
        encode(&envelope(cap_rows(rows, &self.spill_dir)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: i64, text: &str) -> Value {
        Value::from_pairs([("id", Value::Int(i)), ("t", Value::str(text))])
    }

    fn tmp() -> String {
        let d = std::env::temp_dir().join(format!("phpclaw-dbq-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d.to_string_lossy().into_owned()
    }

    #[test]
    fn default_flags_escape_slashes_and_unicode() {
        assert_eq!(
            default_json(&row(1, "a/é😀")),
            br#"{"id":1,"t":"a\/\u00e9\ud83d\ude00"}"#.to_vec()
        );
        assert!(default_json(&Value::str(b"\xff")).is_empty());
    }

    #[test]
    fn small_results_stay_inline() {
        let f = cap_rows((0..100).map(|i| row(i, "x")).collect(), &tmp());
        assert!(!f.truncated);
        let a = f.data.as_array().unwrap();
        assert_eq!(a.get("count"), Some(&Value::Int(100)));
        assert!(a.get("total_rows").is_none());
    }

    #[test]
    fn row_cap_spills_the_hundred() {
        let dir = tmp();
        let f = cap_rows((0..101).map(|i| row(i, "x")).collect(), &dir);
        assert!(f.truncated);
        let a = f.data.as_array().unwrap();
        assert_eq!(a.get("count"), Some(&Value::Int(100)));
        assert_eq!(a.get("total_rows"), Some(&Value::Int(100)));
        let path =
            String::from_utf8(a.get("spill_path").unwrap().as_bytes().unwrap().to_vec()).unwrap();
        let body = std::fs::read(&path).unwrap();
        assert_eq!(a.get("spill_bytes"), Some(&Value::Int(body.len() as i64)));
        assert_eq!(body.iter().filter(|&&b| b == b'\n').count(), 100);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn byte_cap_keeps_first_row_and_discards_without_folder() {
        let big = "y".repeat(9000);
        let f = cap_rows(vec![row(1, &big), row(2, "z")], "/nonexistent-dir-xyz");
        let a = f.data.as_array().unwrap();
        assert_eq!(a.get("count"), Some(&Value::Int(1)));
        assert_eq!(a.get("hint"), Some(&Value::str(format!("1{DISCARD_TAIL}"))));
        assert!(a.get("spill_path").is_none());
    }

    #[test]
    fn sql_is_checked_and_trimmed() {
        let input = |s: &str| Value::from_pairs([("sql", s)]);
        assert_eq!(
            checked_sql(&input("  SELECT 1 ")),
            Ok("SELECT 1".to_owned())
        );
        assert_eq!(
            checked_sql(&Value::from_pairs([("x", 1)])),
            Err("No SQL query provided.".to_owned())
        );
        assert!(checked_sql(&input("DELETE FROM t")).is_err());
        assert_eq!(
            checked_sql(&input("SELECT password FROM users")),
            Err(
                "db_query: query references a restricted table or column and was blocked."
                    .to_owned()
            )
        );
    }
}
