//! db_query's budgets on a SQLite connection: the site's own `sqlite3*` (from its PDO
//! object), changed for one query and put back exactly as it was.
//!
//! For the life of a [`SqliteBudget`]:
//! - a progress handler ends any statement on the connection once the deadline has passed
//!   (SQLite then answers `SQLITE_INTERRUPT`; an interrupted read-only statement does not
//!   roll back the site's open transaction);
//! - `SQLITE_LIMIT_LENGTH` is lowered to the value budget (`zeroblob`, `randomblob`, `hex`,
//!   `||`, `group_concat`... and any stored value longer than that fail with `SQLITE_TOOBIG`
//!   before the bytes are allocated), `SQLITE_LIMIT_COLUMN` to the column budget, so one
//!   result row holds at most columns x value bytes, and `SQLITE_LIMIT_LIKE_PATTERN_LENGTH`
//!   to the pattern budget, so one LIKE or GLOB call (which no progress handler can
//!   interrupt) costs at most value x pattern length (SQLite's "Defense Against The Dark
//!   Arts" page advises all three for untrusted SQL). None is ever raised: a site that set
//!   lower limits keeps them;
//! - `PRAGMA query_only` is on, so no statement can write to any attached database file.
//!
//! Dropping the budget removes the handler and restores both limits (`sqlite3_limit`
//! returns the old value when it sets the new one) and the old `query_only`. A progress
//! handler cannot be read back; PDO never installs one (up to PHP 8.4), so "no handler" is
//! what is restored.
//!
//! Why not `sqlite3_hard_heap_limit64`: it is process-wide, not per connection. Under ZTS,
//! two threads saving and restoring it around their own queries can interleave and leave a
//! stale limit in place for good, and while it is set every other connection of the process
//! shares the budget. The length and column limits are per connection and bound the same
//! allocations (values and rows).
//!
//! The sqlite3 functions are looked up with `dlsym(RTLD_DEFAULT)`: PHP loads pdo_sqlite with
//! `RTLD_GLOBAL`, so the libsqlite3 pdo_sqlite was linked against is in the global scope and
//! that lookup finds the very instance that owns the handle (the module never links or loads
//! a SQLite of its own). The PHP tests prove it on the real connection: a write fails while
//! the budget is on and works again after it.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::time::{Duration, Instant};

const SQLITE_OK: c_int = 0;
const SQLITE_ROW: c_int = 100;
const SQLITE_LIMIT_LENGTH: c_int = 0;
const SQLITE_LIMIT_COLUMN: c_int = 2;
const SQLITE_LIMIT_LIKE_PATTERN_LENGTH: c_int = 8;

/// Virtual machine steps between two deadline checks (a check costs one clock read).
const PROGRESS_STEPS: c_int = 1000;

/// SQLite's primary result code for an interrupted statement.
pub const SQLITE_INTERRUPT: i64 = 9;
/// SQLite's primary result code for a string or blob over `SQLITE_LIMIT_LENGTH`.
pub const SQLITE_TOOBIG: i64 = 18;

type Progress = unsafe extern "C" fn(*mut c_void) -> c_int;
type ProgressHandlerFn = unsafe extern "C" fn(*mut c_void, c_int, Option<Progress>, *mut c_void);
type LimitFn = unsafe extern "C" fn(*mut c_void, c_int, c_int) -> c_int;
type ExecFn = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    *mut c_void,
    *mut c_void,
    *mut *mut c_char,
) -> c_int;
type PrepareFn = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    c_int,
    *mut *mut c_void,
    *mut *const c_char,
) -> c_int;
type StmtFn = unsafe extern "C" fn(*mut c_void) -> c_int;
type ColumnIntFn = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;

/// The sqlite3 entry points the budget needs, resolved in the running process (types from
/// sqlite3.h).
#[derive(Clone, Copy)]
struct Api {
    progress_handler: ProgressHandlerFn,
    limit: LimitFn,
    exec: ExecFn,
    prepare_v2: PrepareFn,
    step: StmtFn,
    column_int: ColumnIntFn,
    finalize: StmtFn,
}

/// `dlsym(RTLD_DEFAULT, name)`, or None.
fn symbol(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: a NUL-terminated name; dlsym only reads it.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

macro_rules! resolve {
    ($name:literal, $ty:ty) => {{
        let p = symbol($name)?;
        // SAFETY: the symbol is the sqlite3 C function of that name, whose C signature is
        // `$ty` (sqlite3.h); a function pointer has the size of a data pointer here.
        unsafe { std::mem::transmute::<*mut c_void, $ty>(p) }
    }};
}

impl Api {
    fn resolve() -> Option<Api> {
        Some(Api {
            progress_handler: resolve!(c"sqlite3_progress_handler", ProgressHandlerFn),
            limit: resolve!(c"sqlite3_limit", LimitFn),
            exec: resolve!(c"sqlite3_exec", ExecFn),
            prepare_v2: resolve!(c"sqlite3_prepare_v2", PrepareFn),
            step: resolve!(c"sqlite3_step", StmtFn),
            column_int: resolve!(c"sqlite3_column_int", ColumnIntFn),
            finalize: resolve!(c"sqlite3_finalize", StmtFn),
        })
    }
}

/// Whether the SQLite library is loaded in this process (its functions can be found).
pub fn available() -> bool {
    Api::resolve().is_some()
}

/// The deadline the progress handler reads; boxed so its address is stable while SQLite
/// holds it.
struct Deadline {
    at: Instant,
    fired: Cell<bool>,
}

unsafe extern "C" fn on_progress(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the boxed Deadline of the live SqliteBudget that registered this
    // handler; the budget unregisters it before the box is freed.
    let Some(deadline) = (unsafe { arg.cast::<Deadline>().as_ref() }) else {
        return 1;
    };
    if Instant::now() >= deadline.at {
        deadline.fired.set(true);
        1
    } else {
        0
    }
}

/// Why the budget could not be put on the connection (the query must then not run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetError {
    /// The sqlite3 functions are not loaded in this process.
    NoLibrary,
    /// The handle is null.
    NoConnection,
    /// `PRAGMA query_only` could not be read or set (e.g. refused by an authorizer).
    QueryOnly,
}

/// The budget on one connection; restores everything when dropped.
pub struct SqliteBudget {
    api: Api,
    db: *mut c_void,
    deadline: Box<Deadline>,
    old_query_only: Option<bool>,
    old_length: Option<c_int>,
    old_columns: Option<c_int>,
    old_pattern: Option<c_int>,
    handler: bool,
}

/// The limits a [`SqliteBudget`] puts on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Time from now until the deadline.
    pub time: Duration,
    /// `SQLITE_LIMIT_LENGTH`.
    pub max_value_bytes: usize,
    /// `SQLITE_LIMIT_COLUMN`.
    pub max_columns: usize,
    /// `SQLITE_LIMIT_LIKE_PATTERN_LENGTH`.
    pub max_pattern_bytes: usize,
}

impl SqliteBudget {
    /// Put the budget on `db`: the deadline and limits of `limits`, and no writes.
    ///
    /// # Safety
    /// `db` is null or a live `sqlite3*` of the SQLite library loaded in this process, and no
    /// other thread uses it while the budget lives.
    pub unsafe fn begin(db: *mut c_void, limits: Limits) -> Result<SqliteBudget, BudgetError> {
        if db.is_null() {
            return Err(BudgetError::NoConnection);
        }
        let api = Api::resolve().ok_or(BudgetError::NoLibrary)?;
        let now = Instant::now();
        let mut budget = SqliteBudget {
            api,
            db,
            deadline: Box::new(Deadline {
                at: now.checked_add(limits.time).unwrap_or(now),
                fired: Cell::new(false),
            }),
            old_query_only: None,
            old_length: None,
            old_columns: None,
            old_pattern: None,
            handler: false,
        };
        // From here on, an early return drops `budget`, which undoes what was done.
        let old = budget.query_only().ok_or(BudgetError::QueryOnly)?;
        if !budget.set_query_only(true) {
            return Err(BudgetError::QueryOnly);
        }
        budget.old_query_only = Some(old);
        budget.old_length = Some(budget.lower(SQLITE_LIMIT_LENGTH, limits.max_value_bytes));
        budget.old_columns = Some(budget.lower(SQLITE_LIMIT_COLUMN, limits.max_columns));
        budget.old_pattern =
            Some(budget.lower(SQLITE_LIMIT_LIKE_PATTERN_LENGTH, limits.max_pattern_bytes));
        let arg: *mut Deadline = &raw mut *budget.deadline;
        // SAFETY: a live handle; the handler and its argument stay valid until Drop
        // unregisters them.
        unsafe { (api.progress_handler)(db, PROGRESS_STEPS, Some(on_progress), arg.cast()) };
        budget.handler = true;
        Ok(budget)
    }

    /// Whether the deadline ended a statement.
    pub fn timed_out(&self) -> bool {
        self.deadline.fired.get()
    }

    /// Set a limit to at most `cap` and return the old value.
    fn lower(&self, id: c_int, cap: usize) -> c_int {
        let cap = c_int::try_from(cap).unwrap_or(c_int::MAX);
        // SAFETY: a live handle; a negative value only reads the limit.
        let old = unsafe { (self.api.limit)(self.db, id, -1) };
        if cap < old {
            // SAFETY: as above.
            unsafe { (self.api.limit)(self.db, id, cap) };
        }
        old
    }

    /// The connection's `PRAGMA query_only`.
    fn query_only(&self) -> Option<bool> {
        let mut stmt: *mut c_void = std::ptr::null_mut();
        let sql = c"PRAGMA query_only";
        // SAFETY: a live handle, a NUL-terminated statement, out-pointers to locals; the
        // statement is finalized before returning.
        unsafe {
            let rc = (self.api.prepare_v2)(
                self.db,
                sql.as_ptr(),
                -1,
                &raw mut stmt,
                std::ptr::null_mut(),
            );
            if rc != SQLITE_OK || stmt.is_null() {
                return None;
            }
            let value =
                ((self.api.step)(stmt) == SQLITE_ROW).then(|| (self.api.column_int)(stmt, 0));
            (self.api.finalize)(stmt);
            value.map(|v| v != 0)
        }
    }

    fn set_query_only(&self, on: bool) -> bool {
        let sql = if on {
            c"PRAGMA query_only = 1"
        } else {
            c"PRAGMA query_only = 0"
        };
        // SAFETY: a live handle and a NUL-terminated statement, no callback, no error out.
        let rc = unsafe {
            (self.api.exec)(
                self.db,
                sql.as_ptr(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        rc == SQLITE_OK
    }
}

impl Drop for SqliteBudget {
    fn drop(&mut self) {
        if self.handler {
            // SAFETY: a live handle; removing the handler before the Deadline box is freed.
            unsafe { (self.api.progress_handler)(self.db, 0, None, std::ptr::null_mut()) };
        }
        for (id, old) in [
            (SQLITE_LIMIT_LENGTH, self.old_length),
            (SQLITE_LIMIT_COLUMN, self.old_columns),
            (SQLITE_LIMIT_LIKE_PATTERN_LENGTH, self.old_pattern),
        ] {
            if let Some(old) = old {
                // SAFETY: a live handle; puts back the value sqlite3_limit returned.
                unsafe { (self.api.limit)(self.db, id, old) };
            }
        }
        if let Some(old) = self.old_query_only {
            self.set_query_only(old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A private in-memory database on the system's libsqlite3, loaded globally the way PHP
    /// loads pdo_sqlite; None (test skipped) where the library is missing.
    struct TestDb {
        db: *mut c_void,
        close: unsafe extern "C" fn(*mut c_void) -> c_int,
    }

    impl Drop for TestDb {
        fn drop(&mut self) {
            // SAFETY: the handle opened in open(), closed once.
            unsafe { (self.close)(self.db) };
        }
    }

    fn open() -> Option<TestDb> {
        // SAFETY: loads a shared library by name; it stays loaded for the process.
        let lib = unsafe {
            libc::dlopen(
                c"libsqlite3.so.0".as_ptr(),
                libc::RTLD_NOW | libc::RTLD_GLOBAL,
            )
        };
        if lib.is_null() {
            eprintln!("libsqlite3.so.0 not found: SQLite budget tests skipped");
            return None;
        }
        type Open = unsafe extern "C" fn(*const c_char, *mut *mut c_void) -> c_int;
        let open: Open = resolve_test(c"sqlite3_open")?;
        let close = resolve_test(c"sqlite3_close_v2")?;
        let mut db = std::ptr::null_mut();
        // SAFETY: a NUL-terminated name and an out-pointer.
        let rc = unsafe { open(c":memory:".as_ptr(), &raw mut db) };
        assert_eq!(rc, SQLITE_OK);
        Some(TestDb { db, close })
    }

    fn resolve_test<T: Copy>(name: &CStr) -> Option<T> {
        let p = symbol(name)?;
        assert_eq!(std::mem::size_of::<T>(), std::mem::size_of::<*mut c_void>());
        // SAFETY: T is the function pointer type of that sqlite3 symbol.
        Some(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&p) })
    }

    /// Run `sql` to completion; the first failing result code, or SQLITE_OK.
    fn run(db: &TestDb, sql: &str) -> c_int {
        let api = Api::resolve().unwrap();
        let sql = std::ffi::CString::new(sql).unwrap();
        let mut stmt = std::ptr::null_mut();
        // SAFETY: a live handle, a NUL-terminated statement and out-pointers; finalized below.
        unsafe {
            let rc = (api.prepare_v2)(db.db, sql.as_ptr(), -1, &raw mut stmt, std::ptr::null_mut());
            if rc != SQLITE_OK {
                return rc;
            }
            let mut rc = (api.step)(stmt);
            while rc == SQLITE_ROW {
                rc = (api.step)(stmt);
            }
            (api.finalize)(stmt);
            if rc == 101 {
                SQLITE_OK
            } else {
                rc
            }
        }
    }

    fn limit(db: &TestDb, id: c_int) -> c_int {
        let api = Api::resolve().unwrap();
        // SAFETY: a live handle; -1 reads.
        unsafe { (api.limit)(db.db, id, -1) }
    }

    fn budget(db: &TestDb, ms: u64) -> SqliteBudget {
        // SAFETY: the test's own live handle, one thread.
        let limits = Limits {
            time: Duration::from_millis(ms),
            max_value_bytes: 1000,
            max_columns: 3,
            max_pattern_bytes: 10,
        };
        unsafe { SqliteBudget::begin(db.db, limits) }.unwrap()
    }

    const ENDLESS: &str =
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c";

    #[test]
    fn the_deadline_ends_an_endless_query() {
        let Some(db) = open() else { return };
        let b = budget(&db, 200);
        let t0 = Instant::now();
        assert_eq!(run(&db, ENDLESS), SQLITE_INTERRUPT as c_int);
        let took = t0.elapsed();
        assert!(b.timed_out());
        assert!(took >= Duration::from_millis(150), "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        drop(b);
        // Afterwards nothing interrupts the connection.
        assert_eq!(run(&db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT max(x) FROM c"), SQLITE_OK);
    }

    #[test]
    fn a_query_within_the_deadline_finishes() {
        let Some(db) = open() else { return };
        let b = budget(&db, 2000);
        assert_eq!(
            run(&db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) SELECT x FROM c"),
            SQLITE_OK
        );
        assert!(!b.timed_out());
    }

    #[test]
    fn value_and_column_limits_at_and_past() {
        let Some(db) = open() else { return };
        let old_length = limit(&db, SQLITE_LIMIT_LENGTH);
        let old_columns = limit(&db, SQLITE_LIMIT_COLUMN);
        let old_pattern = limit(&db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH);
        {
            let _b = budget(&db, 5000);
            assert_eq!(run(&db, "SELECT zeroblob(1000)"), SQLITE_OK);
            assert_eq!(run(&db, "SELECT zeroblob(1001)"), SQLITE_TOOBIG as c_int);
            assert_eq!(
                run(&db, "SELECT zeroblob(600) || zeroblob(600)"),
                SQLITE_TOOBIG as c_int
            );
            assert_eq!(
                run(&db, "SELECT zeroblob(1000000000)"),
                SQLITE_TOOBIG as c_int
            );
            assert_eq!(run(&db, "SELECT 1, 2, 3"), SQLITE_OK);
            assert_ne!(run(&db, "SELECT 1, 2, 3, 4"), SQLITE_OK);
            assert_eq!(run(&db, "SELECT 'a' LIKE '%%%%%%%%%a'"), SQLITE_OK);
            assert_ne!(run(&db, "SELECT 'a' LIKE '%%%%%%%%%%a'"), SQLITE_OK);
            assert_ne!(run(&db, "SELECT 'a' GLOB '**********a'"), SQLITE_OK);
        }
        assert_eq!(limit(&db, SQLITE_LIMIT_LENGTH), old_length);
        assert_eq!(limit(&db, SQLITE_LIMIT_COLUMN), old_columns);
        assert_eq!(limit(&db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH), old_pattern);
        assert_eq!(run(&db, "SELECT zeroblob(1001), 1, 2, 3, 4"), SQLITE_OK);
    }

    #[test]
    fn lower_site_limits_are_kept() {
        let Some(db) = open() else { return };
        let api = Api::resolve().unwrap();
        // SAFETY: the test's own handle.
        unsafe { (api.limit)(db.db, SQLITE_LIMIT_LENGTH, 500) };
        {
            let _b = budget(&db, 5000);
            assert_eq!(limit(&db, SQLITE_LIMIT_LENGTH), 500);
        }
        assert_eq!(limit(&db, SQLITE_LIMIT_LENGTH), 500);
    }

    #[test]
    fn no_writes_while_on_and_query_only_restored() {
        let Some(db) = open() else { return };
        assert_eq!(run(&db, "CREATE TABLE t (a)"), SQLITE_OK);
        {
            let b = budget(&db, 5000);
            assert_eq!(b.query_only(), Some(true));
            assert_ne!(run(&db, "INSERT INTO t VALUES (1)"), SQLITE_OK);
            assert_ne!(run(&db, "CREATE TEMP TABLE u (a)"), SQLITE_OK);
        }
        assert_eq!(run(&db, "INSERT INTO t VALUES (1)"), SQLITE_OK);
        // A site that runs read-only stays read-only.
        assert_eq!(run(&db, "PRAGMA query_only = 1"), SQLITE_OK);
        drop(budget(&db, 5000));
        assert_ne!(run(&db, "INSERT INTO t VALUES (2)"), SQLITE_OK);
    }

    #[test]
    fn null_handle_is_refused() {
        // SAFETY: a null handle is allowed and refused.
        let limits = Limits {
            time: Duration::ZERO,
            max_value_bytes: 1,
            max_columns: 1,
            max_pattern_bytes: 1,
        };
        let e = unsafe { SqliteBudget::begin(std::ptr::null_mut(), limits) };
        assert_eq!(e.err(), Some(BudgetError::NoConnection));
    }
}
