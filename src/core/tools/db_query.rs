//! `db_query`: one read-only SQL statement run through the caller's database connection.
//!
//! Rules (phpClaw's DatabaseQueryTool, spec "db_query"):
//! - the guard's subject is "query the database";
//! - the connection must be SQLite, MariaDB or MySQL (the engines whose queries can be
//!   bounded, see below); anything else is refused before a query is sent;
//! - the SQL is trimmed and checked by [`crate::core::security::sql_guard`], with the
//!   function allow-list of the connection's engine, before anything reaches the database;
//!   the checked text is what runs, inside the engine's time-budget wrapper at most;
//! - every query runs under a [`Budget`] on the site's own connection, put back afterwards:
//!   [`TIME_BUDGET_MS`] of wall time (SQLite: a progress handler; MariaDB: `SET STATEMENT
//!   max_statement_time=... FOR`; MySQL: the `MAX_EXECUTION_TIME` hint), values of at most
//!   [`MAX_VALUE_BYTES`], at most [`MAX_COLUMNS`] columns and LIKE/GLOB patterns of at most
//!   [`MAX_PATTERN_BYTES`] (SQLite's limits; MySQL/MariaDB bound values by their own
//!   `max_allowed_packet`), and no writes
//!   (SQLite: `PRAGMA query_only`; MySQL/MariaDB: the guard). A query past the time or size
//!   budget fails with [`time_exceeded`] / [`size_exceeded`];
//! - fetching stops after [`MAX_ROWS`] + 1 rows or once the fetched rows hold more than
//!   [`MAX_FETCH_BYTES`] bytes of data, whichever comes first; what was fetched is then cut
//!   as below;
//! - at most [`MAX_ROWS`] rows are kept; rows stay inline while their JSON lines (default
//!   `json_encode` flags, one newline each) fit in [`MAX_OUTPUT_BYTES`], the first row always;
//! - when rows were cut, every kept row goes to a JSON Lines spill file (`phpclaw-db-` prefix)
//!   in the spill folder, or a discard note says how many were dropped when it cannot be written.

use std::path::Path;
use std::time::Duration;

use super::{encode, process, success, ToolError};
use crate::core::json::{self, EncodeOptions};
use crate::core::security::sql_guard::{self, Family};
use crate::core::value::{Array, Value};

pub mod sqlite;

/// Wall-clock time one query may run: shell_exec's 5-second limit.
pub const TIME_BUDGET_MS: u64 = 5_000;

/// Longest string or blob one value may be (SQLite's `SQLITE_LIMIT_LENGTH` for the query).
pub const MAX_VALUE_BYTES: usize = 1 << 20;

/// Most columns of a result (SQLite's `SQLITE_LIMIT_COLUMN` for the query): with
/// [`MAX_VALUE_BYTES`], one row holds at most 64 MiB.
pub const MAX_COLUMNS: usize = 64;

/// Longest LIKE / GLOB pattern (SQLite's `SQLITE_LIMIT_LIKE_PATTERN_LENGTH` for the query;
/// SQLite's own advice for untrusted SQL is 50): one LIKE call costs value x pattern length,
/// and SQLite cannot interrupt it.
pub const MAX_PATTERN_BYTES: usize = 100;

/// Bytes of row data (strings by length, other values 8 bytes, plus column names) after
/// which fetching stops.
pub const MAX_FETCH_BYTES: usize = 16 << 20;

/// The oldest MariaDB with `SET STATEMENT ... FOR`.
pub const MIN_MARIADB: (u32, u32, u32) = (10, 1, 2);

/// The oldest MySQL with the `MAX_EXECUTION_TIME` hint.
pub const MIN_MYSQL: (u32, u32, u32) = (5, 7, 8);

/// MariaDB's error for a statement ended by `max_statement_time` (ER_STATEMENT_TIMEOUT).
pub const MARIADB_STATEMENT_TIMEOUT: i64 = 1969;

/// MySQL's error for a statement ended by `MAX_EXECUTION_TIME` (ER_QUERY_TIMEOUT).
pub const MYSQL_QUERY_TIMEOUT: i64 = 3024;

/// The message when the budget could not be put on the connection.
pub const NO_BUDGET: &str =
    "db_query could not put its time and size budget on this connection; the query was not run.";

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

/// The engines db_query can bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// pdo_sqlite.
    Sqlite,
    /// pdo_mysql talking to MariaDB.
    MariaDb,
    /// pdo_mysql talking to MySQL (or a server that does not call itself MariaDB).
    MySql,
}

impl Engine {
    /// The guard's function allow-list for this engine.
    pub fn family(self) -> Family {
        match self {
            Engine::Sqlite => Family::Sqlite,
            Engine::MariaDb | Engine::MySql => Family::MySql,
        }
    }
}

/// The limits one query runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Wall time from the start of the query.
    pub time: Duration,
    /// Longest value (SQLite).
    pub max_value_bytes: usize,
    /// Most result columns (SQLite).
    pub max_columns: usize,
    /// Longest LIKE / GLOB pattern (SQLite).
    pub max_pattern_bytes: usize,
    /// Fetched bytes after which fetching stops.
    pub max_fetch_bytes: usize,
}

impl Budget {
    /// The budget of every query: the constants above.
    pub fn standard() -> Budget {
        Budget {
            time: Duration::from_millis(TIME_BUDGET_MS),
            max_value_bytes: MAX_VALUE_BYTES,
            max_columns: MAX_COLUMNS,
            max_pattern_bytes: MAX_PATTERN_BYTES,
            max_fetch_bytes: MAX_FETCH_BYTES,
        }
    }

    /// What a [`sqlite::SqliteBudget`] puts on the connection.
    pub fn sqlite_limits(&self) -> sqlite::Limits {
        sqlite::Limits {
            time: self.time,
            max_value_bytes: self.max_value_bytes,
            max_columns: self.max_columns,
            max_pattern_bytes: self.max_pattern_bytes,
        }
    }

    /// The standard budget with the time shortened to `ms` (the test-only php.ini setting);
    /// a longer or zero value leaves the standard time.
    pub fn with_time_ms(ms: Option<u64>) -> Budget {
        let mut b = Budget::standard();
        if let Some(ms) = ms.filter(|&ms| ms > 0 && ms < TIME_BUDGET_MS) {
            b.time = Duration::from_millis(ms);
        }
        b
    }

    fn time_ms(&self) -> u128 {
        self.time.as_millis()
    }
}

/// The message of a query ended by the time budget.
pub fn time_exceeded(budget: &Budget) -> String {
    format!(
        "db_query: the query ran past its time budget of {} ms and was stopped. Narrow it (WHERE, LIMIT, fewer joins) and try again.",
        budget.time_ms()
    )
}

/// The message of a query refused by the size budget.
pub fn size_exceeded(budget: &Budget) -> String {
    format!(
        "db_query: the query exceeded its size budget ({} bytes per value, {} columns, {}-byte LIKE/GLOB patterns) and was stopped. Select fewer or shorter columns (e.g. SUBSTR) or a shorter pattern.",
        budget.max_value_bytes, budget.max_columns, budget.max_pattern_bytes
    )
}

/// The message for a connection whose driver db_query cannot bound.
pub fn unsupported_driver(driver: &str) -> String {
    let driver: String = driver.chars().take(32).collect();
    format!("db_query supports SQLite, MariaDB and MySQL connections only (this one uses the \"{driver}\" PDO driver).")
}

/// `major.minor.patch` at the start of `v` (missing parts are 0).
fn version_triple(v: &str) -> Option<(u32, u32, u32)> {
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// The engine from PDO's driver name and, for "mysql", the server version string
/// (`PDO::ATTR_SERVER_VERSION`: MariaDB says so, e.g. `10.11.6-MariaDB-0+deb12u1`, or in the
/// old replication form `5.5.5-10.11.6-MariaDB`). Refused: other drivers, and servers too
/// old for the time budget.
pub fn engine_of(driver: &str, server_version: &str) -> Result<Engine, String> {
    match driver {
        "sqlite" => return Ok(Engine::Sqlite),
        "mysql" => {}
        other => return Err(unsupported_driver(other)),
    }
    let maria = server_version.to_ascii_lowercase().contains("mariadb");
    let number = if maria {
        server_version
            .strip_prefix("5.5.5-")
            .unwrap_or(server_version)
    } else {
        server_version
    };
    let (engine, min, name) = if maria {
        (Engine::MariaDb, MIN_MARIADB, "MariaDB")
    } else {
        (Engine::MySql, MIN_MYSQL, "MySQL")
    };
    match version_triple(number) {
        Some(v) if v >= min => Ok(engine),
        _ => {
            let shown: String = server_version.chars().take(64).collect();
            Err(format!(
                "db_query needs {name} {}.{}.{} or later to bound query time (this server reports \"{shown}\").",
                min.0, min.1, min.2
            ))
        }
    }
}

/// The statement sent for the checked SQL: SQLite's as is; MariaDB's inside `SET STATEMENT
/// max_statement_time=<seconds> FOR ...`; MySQL's with `/*+ MAX_EXECUTION_TIME(<ms>) */`
/// after the SELECT of its main query block. A final `;` (only whitespace may follow it,
/// the guard saw to that) is dropped for the two wrappers. Neither wrapper holds a `?` or
/// `:name`, so PDO finds the query's placeholders where the guard did.
pub fn statement_for(engine: Engine, checked: &str, budget: &Budget) -> Result<String, String> {
    let body = checked.trim_end();
    let body = body.strip_suffix(';').unwrap_or(body).trim_end();
    let ms = budget.time_ms().max(1);
    match engine {
        Engine::Sqlite => Ok(checked.to_owned()),
        Engine::MariaDb => Ok(format!(
            "SET STATEMENT max_statement_time={}.{:03} FOR {body}",
            ms / 1000,
            ms % 1000
        )),
        Engine::MySql => {
            let at = sql_guard::main_select_end(body).ok_or_else(|| NO_BUDGET.to_owned())?;
            let (head, tail) = body.split_at(at);
            Ok(format!("{head} /*+ MAX_EXECUTION_TIME({ms}) */{tail}"))
        }
    }
}

/// A failed query as the driver reported it: `errorInfo[1]` and the message.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DriverError {
    /// The driver's own error code (`PDOException::$errorInfo[1]`), when there is one.
    pub code: Option<i64>,
    /// The exception's message.
    pub message: String,
}

/// The ToolException message for a failed query: the time or size budget when that is what
/// ended it, else phpClaw's "Database query failed.".
pub fn failure_message(
    engine: Engine,
    error: &DriverError,
    timed_out: bool,
    budget: &Budget,
) -> String {
    let time = match engine {
        Engine::Sqlite => timed_out || error.code == Some(sqlite::SQLITE_INTERRUPT),
        Engine::MariaDb => error.code == Some(MARIADB_STATEMENT_TIMEOUT),
        Engine::MySql => error.code == Some(MYSQL_QUERY_TIMEOUT),
    };
    if time {
        return time_exceeded(budget);
    }
    let size = engine == Engine::Sqlite
        && (error.code == Some(sqlite::SQLITE_TOOBIG)
            || error.message.contains("too many columns in result set")
            || error.message.contains("LIKE or GLOB pattern too complex"));
    if size {
        return size_exceeded(budget);
    }
    QUERY_FAILED.to_owned()
}

/// What a fetched row counts against [`MAX_FETCH_BYTES`].
pub fn row_bytes(row: &Value) -> usize {
    match row {
        Value::Str(b) => b.len(),
        Value::Array(a) => a
            .iter()
            .map(|(k, v)| key_bytes(k).saturating_add(row_bytes(v)))
            .fold(0usize, usize::saturating_add),
        _ => 8,
    }
}

fn key_bytes(k: &crate::core::value::Key) -> usize {
    match k.as_key_ref() {
        crate::core::value::KeyRef::Str(s) => s.len(),
        _ => 8,
    }
}

/// What the database side of a run must do.
pub trait Database<E> {
    /// PDO's driver name, and for "mysql" the server version (else empty).
    fn describe(&mut self) -> Result<(String, String), ToolError<E>>;
    /// Run `sql` (the checked query, wrapped by [`statement_for`]) with the caller's
    /// parameters on `engine` under `budget`, handing each row (column => value) to `keep`
    /// until it answers false. A failure of the query itself is reported through
    /// [`failure_message`].
    fn run(
        &mut self,
        engine: Engine,
        sql: &str,
        budget: &Budget,
        keep: &mut dyn FnMut(Value) -> bool,
    ) -> Result<(), ToolError<E>>;
}

/// A db_query run: the database side, the spill folder and the budget.
pub struct DbQuery<D> {
    /// The connection's side.
    pub db: D,
    /// Folder of spill files (the constructor's, or PHP's temp folder when that was empty).
    pub spill_dir: String,
    /// The budget of the query ([`Budget::standard`] outside tests).
    pub budget: Budget,
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
pub fn cap_rows(rows: Vec<Value>, spill_dir: &str) -> Fetched {
    cap_fetched(rows, spill_dir, false)
}

/// [`cap_rows`], where `fetch_cut` says fetching stopped at [`MAX_FETCH_BYTES`] (the result
/// is then cut even if every fetched row would fit).
pub fn cap_fetched(mut rows: Vec<Value>, spill_dir: &str, fetch_cut: bool) -> Fetched {
    let row_capped = rows.len() > MAX_ROWS || fetch_cut;
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

/// The checked SQL of `input` (its `sql`, trimmed) for a connection of `family`, or the
/// guard's refusal message.
pub fn checked_sql(input: &Value, family: Family) -> Result<String, String> {
    let sql = input
        .as_array()
        .and_then(|a| a.get("sql"))
        .and_then(Value::as_bytes)
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    sql_guard::validate_for(&sql, family)
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
        // The guard for both families first, before the connection is touched: a statement
        // both refuse alike is refused without asking the driver anything (as phpClaw's
        // guard does, even for a PDO that cannot answer).
        let sqlite = checked_sql(input, Family::Sqlite);
        let mysql = checked_sql(input, Family::MySql);
        if let (Err(a), Err(b)) = (&sqlite, &mysql) {
            if a == b {
                return Err(ToolError::Tool(a.clone()));
            }
        }
        let (driver, version) = self.db.describe()?;
        let engine = engine_of(&driver, &version).map_err(ToolError::Tool)?;
        let sql = match engine.family() {
            Family::MySql => mysql,
            _ => sqlite,
        }
        .map_err(ToolError::Tool)?;
        let statement = statement_for(engine, &sql, &self.budget).map_err(ToolError::Tool)?;
        let budget = self.budget;
        let mut rows = Vec::new();
        let mut bytes = 0usize;
        let mut cut = false;
        self.db.run(engine, &statement, &budget, &mut |row| {
            bytes = bytes.saturating_add(row_bytes(&row));
            rows.push(row);
            cut = bytes > budget.max_fetch_bytes;
            rows.len() <= MAX_ROWS && !cut
        })?;
        encode(&envelope(cap_fetched(rows, &self.spill_dir, cut)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(i: i64, text: &str) -> Value {
        Value::from_pairs([("id", Value::Int(i)), ("t", Value::str(text))])
    }

    /// A spill folder removed when the test ends (a per-process folder was left in /tmp).
    fn tmp() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("phpclaw-dbq-")
            .tempdir()
            .unwrap()
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
        let dir = tmp();
        let f = cap_rows(
            (0..100).map(|i| row(i, "x")).collect(),
            dir.path().to_str().unwrap(),
        );
        assert!(!f.truncated);
        let a = f.data.as_array().unwrap();
        assert_eq!(a.get("count"), Some(&Value::Int(100)));
        assert!(a.get("total_rows").is_none());
    }

    #[test]
    fn row_cap_spills_the_hundred() {
        let dir = tmp();
        let f = cap_rows(
            (0..101).map(|i| row(i, "x")).collect(),
            dir.path().to_str().unwrap(),
        );
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
    fn engines_from_driver_and_version() {
        assert_eq!(engine_of("sqlite", ""), Ok(Engine::Sqlite));
        assert_eq!(
            engine_of("mysql", "10.11.6-MariaDB-0+deb12u1"),
            Ok(Engine::MariaDb)
        );
        assert_eq!(
            engine_of("mysql", "5.5.5-10.6.18-MariaDB"),
            Ok(Engine::MariaDb)
        );
        assert_eq!(engine_of("mysql", "10.1.2-MariaDB"), Ok(Engine::MariaDb));
        assert_eq!(engine_of("mysql", "8.0.36"), Ok(Engine::MySql));
        assert_eq!(engine_of("mysql", "5.7.8-log"), Ok(Engine::MySql));
        assert_eq!(
            engine_of("mysql", "10.1.1-MariaDB"),
            Err("db_query needs MariaDB 10.1.2 or later to bound query time (this server reports \"10.1.1-MariaDB\").".to_owned())
        );
        assert_eq!(
            engine_of("mysql", "5.7.7"),
            Err("db_query needs MySQL 5.7.8 or later to bound query time (this server reports \"5.7.7\").".to_owned())
        );
        assert!(engine_of("mysql", "").is_err());
        assert!(engine_of("mysql", "garbage").is_err());
        assert_eq!(
            engine_of("pgsql", "16.1"),
            Err("db_query supports SQLite, MariaDB and MySQL connections only (this one uses the \"pgsql\" PDO driver).".to_owned())
        );
        assert_eq!(Engine::Sqlite.family(), Family::Sqlite);
        assert_eq!(Engine::MariaDb.family(), Family::MySql);
    }

    #[test]
    fn budgets() {
        let b = Budget::standard();
        assert_eq!(b.time, Duration::from_secs(5));
        assert_eq!(b.max_value_bytes, 1_048_576);
        assert_eq!(b.max_columns, 64);
        assert_eq!(b.max_pattern_bytes, 100);
        assert_eq!(b.max_fetch_bytes, 16_777_216);
        assert_eq!(
            Budget::with_time_ms(Some(300)).time,
            Duration::from_millis(300)
        );
        // The test setting can only shorten the budget.
        assert_eq!(Budget::with_time_ms(Some(60_000)), b);
        assert_eq!(Budget::with_time_ms(Some(0)), b);
        assert_eq!(Budget::with_time_ms(None), b);
    }

    #[test]
    fn wrappers_per_engine() {
        let b = Budget::standard();
        let short = Budget::with_time_ms(Some(250));
        assert_eq!(
            statement_for(Engine::Sqlite, "SELECT 1;", &b),
            Ok("SELECT 1;".to_owned())
        );
        assert_eq!(
            statement_for(Engine::MariaDb, "SELECT a FROM t WHERE b = ?", &b),
            Ok("SET STATEMENT max_statement_time=5.000 FOR SELECT a FROM t WHERE b = ?".to_owned())
        );
        assert_eq!(
            statement_for(Engine::MariaDb, "(SELECT 1) ;  ", &short),
            Ok("SET STATEMENT max_statement_time=0.250 FOR (SELECT 1)".to_owned())
        );
        assert_eq!(
            statement_for(Engine::MySql, "SELECT a FROM t WHERE b = :b;", &b),
            Ok("SELECT /*+ MAX_EXECUTION_TIME(5000) */ a FROM t WHERE b = :b".to_owned())
        );
        assert_eq!(
            statement_for(
                Engine::MySql,
                "WITH c AS (SELECT 1 AS x) SELECT x FROM c",
                &short
            ),
            Ok(
                "WITH c AS (SELECT 1 AS x) SELECT /*+ MAX_EXECUTION_TIME(250) */ x FROM c"
                    .to_owned()
            )
        );
        assert_eq!(
            statement_for(Engine::MySql, "WITH c AS (SELECT 1)", &b),
            Err(NO_BUDGET.to_owned())
        );
        // Placeholders stay where the guard saw them, in order.
        for e in [Engine::Sqlite, Engine::MariaDb, Engine::MySql] {
            let sql = "SELECT a FROM t WHERE b = ? AND c = ?";
            let out = statement_for(e, sql, &b).unwrap();
            assert_eq!(out.matches('?').count(), 2, "{out}");
            assert!(out.ends_with("b = ? AND c = ?"), "{out}");
        }
    }

    #[test]
    fn failures_name_the_budget() {
        let b = Budget::standard();
        let err = |code: Option<i64>, message: &str| DriverError {
            code,
            message: message.to_owned(),
        };
        let time = time_exceeded(&b);
        let size = size_exceeded(&b);
        assert_eq!(time, "db_query: the query ran past its time budget of 5000 ms and was stopped. Narrow it (WHERE, LIMIT, fewer joins) and try again.");
        assert_eq!(size, "db_query: the query exceeded its size budget (1048576 bytes per value, 64 columns, 100-byte LIKE/GLOB patterns) and was stopped. Select fewer or shorter columns (e.g. SUBSTR) or a shorter pattern.");
        let s = Engine::Sqlite;
        assert_eq!(
            failure_message(s, &err(Some(9), "interrupted"), false, &b),
            time
        );
        assert_eq!(failure_message(s, &err(Some(1), "x"), true, &b), time);
        assert_eq!(
            failure_message(s, &err(Some(18), "string or blob too big"), false, &b),
            size
        );
        assert_eq!(
            failure_message(
                s,
                &err(
                    Some(1),
                    "SQLSTATE[HY000]: General error: 1 too many columns in result set"
                ),
                false,
                &b
            ),
            size
        );
        assert_eq!(
            failure_message(
                s,
                &err(Some(1), "LIKE or GLOB pattern too complex"),
                false,
                &b
            ),
            size
        );
        assert_eq!(
            failure_message(s, &err(Some(1), "no such table"), false, &b),
            QUERY_FAILED
        );
        assert_eq!(
            failure_message(Engine::MariaDb, &err(Some(1969), "x"), false, &b),
            time
        );
        assert_eq!(
            failure_message(Engine::MariaDb, &err(Some(3024), "x"), false, &b),
            QUERY_FAILED
        );
        assert_eq!(
            failure_message(Engine::MySql, &err(Some(3024), "x"), false, &b),
            time
        );
        assert_eq!(
            failure_message(Engine::MySql, &err(None, "x"), false, &b),
            QUERY_FAILED
        );
    }

    #[test]
    fn row_bytes_counts_strings_and_names() {
        assert_eq!(row_bytes(&row(1, "abc")), 2 + 8 + 1 + 3);
        assert_eq!(row_bytes(&Value::Null), 8);
    }

    /// A fake connection: `rows` rows of `width` bytes each, or a refusal.
    struct Fake {
        driver: &'static str,
        rows: usize,
        width: usize,
        sent: Vec<String>,
    }

    impl Database<()> for Fake {
        fn describe(&mut self) -> Result<(String, String), ToolError<()>> {
            Ok((self.driver.to_owned(), "10.11.6-MariaDB".to_owned()))
        }
        fn run(
            &mut self,
            _engine: Engine,
            sql: &str,
            _budget: &Budget,
            keep: &mut dyn FnMut(Value) -> bool,
        ) -> Result<(), ToolError<()>> {
            self.sent.push(sql.to_owned());
            for i in 0..self.rows {
                let v = Value::from_pairs([("v", Value::str(vec![b'x'; self.width]))]);
                if !keep(v) {
                    self.sent.push(format!("stopped after {}", i + 1));
                    break;
                }
            }
            Ok(())
        }
    }

    fn run_fake(
        driver: &'static str,
        rows: usize,
        width: usize,
        sql: &str,
    ) -> (Result<serde_json::Value, String>, Vec<String>) {
        let mut q = DbQuery {
            db: Fake {
                driver,
                rows,
                width,
                sent: Vec::new(),
            },
            spill_dir: "/nonexistent-dir-xyz".to_owned(),
            budget: Budget::standard(),
        };
        let out = q.run_steps(&Value::from_pairs([("sql", sql)]));
        let out = match out {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap()),
            Err(ToolError::Tool(m)) => Err(m),
            Err(_) => Err("other".to_owned()),
        };
        (out, q.db.sent)
    }

    #[test]
    fn fetching_stops_at_the_byte_budget() {
        // Rows of 1 MiB - 1 bytes (+1 for the name): after 16 the budget is met exactly and
        // fetching goes on; the 17th crosses it and is the last one fetched.
        let (out, sent) = run_fake("sqlite", 20, MAX_VALUE_BYTES - 1, "SELECT v FROM t");
        assert_eq!(sent.get(1).map(String::as_str), Some("stopped after 17"));
        let out = out.unwrap();
        assert_eq!(out["data"]["total_rows"], 17);
        assert_eq!(out["data"]["truncated"], true);
        // One byte more per row: the 16th crosses it.
        let (out, sent) = run_fake("sqlite", 20, MAX_VALUE_BYTES, "SELECT v FROM t");
        assert_eq!(sent.get(1).map(String::as_str), Some("stopped after 16"));
        assert_eq!(out.unwrap()["data"]["total_rows"], 16);
        // Exactly the budget and no more rows: nothing stops early.
        let (out, sent) = run_fake("sqlite", 16, MAX_VALUE_BYTES - 1, "SELECT v FROM t");
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(out.unwrap()["data"]["total_rows"], 16);
        // Small rows stop at 101 as before.
        let (_, sent) = run_fake("sqlite", 500, 1, "SELECT v FROM t");
        assert_eq!(sent.get(1).map(String::as_str), Some("stopped after 101"));
    }

    #[test]
    fn binary_rows_past_the_byte_budget_are_still_marked_cut() {
        let mut rows: Vec<Value> = (0..3)
            .map(|_| Value::from_pairs([("b", Value::str(b"\xff"))]))
            .collect();
        rows.truncate(2);
        let f = cap_fetched(rows, "/nonexistent-dir-xyz", true);
        assert!(f.truncated);
    }

    #[test]
    fn engine_refusals_and_wrapping_before_the_database() {
        let (out, sent) = run_fake("pgsql", 1, 1, "SELECT 1");
        assert!(out.unwrap_err().contains("\"pgsql\" PDO driver"));
        assert!(sent.is_empty());
        let (out, sent) = run_fake("mysql", 1, 1, "SELECT NEXT VALUE FOR s");
        assert_eq!(out.unwrap_err(), "Blocked clause: NEXT VALUE FOR.");
        assert!(sent.is_empty());
        let (out, sent) = run_fake("mysql", 1, 1, "SELECT v FROM t;");
        assert!(out.is_ok());
        assert_eq!(
            sent[0],
            "SET STATEMENT max_statement_time=5.000 FOR SELECT v FROM t"
        );
    }

    #[test]
    fn sql_is_checked_and_trimmed() {
        let input = |s: &str| Value::from_pairs([("sql", s)]);
        let f = Family::Sqlite;
        assert_eq!(
            checked_sql(&input("  SELECT 1 "), f),
            Ok("SELECT 1".to_owned())
        );
        assert_eq!(
            checked_sql(&Value::from_pairs([("x", 1)]), f),
            Err("No SQL query provided.".to_owned())
        );
        assert!(checked_sql(&input("DELETE FROM t"), f).is_err());
        assert_eq!(
            checked_sql(&input("SELECT zeroblob(1)"), Family::MySql),
            Err("Function not permitted: ZEROBLOB.".to_owned())
        );
        assert_eq!(
            checked_sql(&input("SELECT password FROM users"), f),
            Err(
                "db_query: query references a restricted table or column and was blocked."
                    .to_owned()
            )
        );
    }
}
