//! `PhpClaw\Tools\DatabaseQueryTool`, native: constructor `(\PDO $pdo, string $spillDir = '')`,
//! the query run through the caller's PDO object (prepare, execute, fetch row by row), every
//! decision in `core::tools::db_query`.
//!
//! On a SQLite connection the query runs inside a `SqliteBudget` on the site's own sqlite3
//! handle (found by the C shim `db_query_shim.c`), removed before the answer, also when PHP
//! bails out (fatal error) in the middle: the budget is put back and the bailout goes on.
//! On MySQL/MariaDB the query runs unbuffered (`PDO::MYSQL_ATTR_USE_BUFFERED_QUERY` off for
//! its duration, then put back), so only the rows fetched ever reach PHP's memory; the rest
//! is drained by mysqlnd without being kept, within the server's time budget. After a
//! bailout that setting is not put back (no PHP call is safe then); the request is ending.

use std::ffi::c_void;
use std::panic::AssertUnwindSafe;

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{DataType, MethodFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{bailout, try_catch, CatchError, ClassEntry, ExecuteData};

use super::super::values;
use super::super::zend::MAY_BE_STRING;
use super::super::zend::{self, ClassSlot, Frame, Pending, Thrown};
use super::file_write::{read_prop, text};
use super::string_inputs;
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::tools::db_query::sqlite::SqliteBudget;
use crate::core::tools::db_query::{self as core, Budget, Database, DbQuery, DriverError, Engine};
use crate::core::tools::ToolError;
use crate::core::value::Value;

extern "C" {
    /// The sqlite3* behind a PDO object, or null (db_query_shim.c).
    fn phpclaw_pdo_sqlite_db(obj: *mut ext_php_rs::ffi::zend_object) -> *mut c_void;
}

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\DatabaseQueryTool";

pub static DB_QUERY: ClassSlot = ClassSlot::new();

const P_PDO: &str = "pdo";
const P_SPILL: &str = "spillDir";

/// `PDO::FETCH_ASSOC`.
const FETCH_ASSOC: i64 = 2;
/// `PDO::ATTR_SERVER_VERSION`.
const ATTR_SERVER_VERSION: i64 = 4;
/// `PDO::ATTR_DRIVER_NAME`.
const ATTR_DRIVER_NAME: i64 = 16;
/// `PDO::MYSQL_ATTR_USE_BUFFERED_QUERY`.
const MYSQL_ATTR_USE_BUFFERED_QUERY: i64 = 1000;

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    DB_QUERY.ptr()
}

/// The PDO side of a run: the connection and the caller's parameters.
struct Pdo<'a> {
    pdo: &'a ZendObject,
    params: Zval,
}

/// How a query failed inside the PDO calls.
enum Failed {
    /// A PHP exception is pending (a PDOException, or anything a PDO subclass threw).
    Pending,
    /// PDO in silent or warning mode answered false: its errorInfo, and whether it was
    /// prepare() (phpClaw's "Failed to prepare SQL statement.") or a later call (phpClaw
    /// then returned the rows it had). Only a time or size budget failure is reported as
    /// such; anything else keeps phpClaw's answer.
    Silent(Option<DriverError>, bool),
}

/// `errorInfo[1]` of an errorInfo array.
fn info_code(info: &Zval) -> Option<i64> {
    info.array()?.get_index(1)?.long()
}

/// `$obj->errorInfo()` as a DriverError (silent mode), None if it cannot be read.
fn silent_error(obj: &ZendObject) -> Option<DriverError> {
    let info = zend::call_method(obj, "errorInfo", &mut []).ok()?;
    let message = info
        .array()
        .and_then(|a| a.get_index(2))
        .map(text)
        .unwrap_or_default();
    Some(DriverError {
        code: info_code(&info),
        message,
    })
}

/// A pending exception: a PDOException becomes the core's message for it (the time or size
/// budget, or "Database query failed."), anything else stays pending for the caller.
fn pdo_failure(engine: Engine, timed_out: bool, budget: &Budget) -> ToolError<Pending> {
    let thrown = Thrown::take_pending();
    if thrown.is(ClassEntry::try_find("PDOException")) {
        let mut error = DriverError::default();
        // phpClaw logs the driver's message (Log::error, i.e. error_log()) and hides it from
        // the model.
        if let Some(obj) = thrown.object() {
            if let Ok(m) = zend::call_method(obj, "getMessage", &mut []) {
                let bytes = m
                    .zend_str()
                    .map(|s| s.as_bytes().to_vec())
                    .unwrap_or_default();
                zend::error_log(&[core::LOG_PREFIX.as_bytes(), &bytes].concat());
                error.message = String::from_utf8_lossy(&bytes).into_owned();
            }
            error.code = zend::read_property(obj.ce, obj, "errorInfo")
                .as_ref()
                .and_then(info_code);
        }
        drop(thrown);
        return ToolError::tool(core::failure_message(engine, &error, timed_out, budget));
    }
    thrown.rethrow();
    ToolError::Host(Pending)
}

impl Pdo<'_> {
    /// `$pdo->getAttribute($attr)` as text.
    fn attribute(&self, attr: i64) -> Result<String, ToolError<Pending>> {
        let mut a = Zval::new();
        a.set_long(attr);
        match zend::call_method(self.pdo, "getAttribute", &mut [a]) {
            Ok(v) => Ok(text(&v)),
            Err(Pending) => Err(pdo_failure(Engine::Sqlite, false, &Budget::standard())),
        }
    }

    /// pdo_mysql's buffered-query setting; None when it cannot be read.
    fn buffered(&self) -> Option<bool> {
        let mut a = Zval::new();
        a.set_long(MYSQL_ATTR_USE_BUFFERED_QUERY);
        match zend::call_method(self.pdo, "getAttribute", &mut [a]) {
            Ok(v) => v.long().map(|l| l != 0).or_else(|| v.bool()),
            Err(Pending) => {
                drop(Thrown::take());
                None
            }
        }
    }

    /// Set pdo_mysql's buffered-query setting; whether it was set.
    fn set_buffered(&self, on: bool) -> bool {
        let mut a = Zval::new();
        a.set_long(MYSQL_ATTR_USE_BUFFERED_QUERY);
        let mut v = Zval::new();
        v.set_bool(on);
        match zend::call_method(self.pdo, "setAttribute", &mut [a, v]) {
            Ok(r) => r.bool() == Some(true),
            Err(Pending) => {
                drop(Thrown::take());
                false
            }
        }
    }

    /// Prepare, execute, and hand rows to `keep` until it answers false.
    fn query(&self, sql: &str, keep: &mut dyn FnMut(Value) -> bool) -> Result<(), Failed> {
        let stmt = zend::call_method(self.pdo, "prepare", &mut [zend::str_zval(sql)])
            .map_err(|_| Failed::Pending)?;
        let Some(stmt) = stmt.object() else {
            return Err(Failed::Silent(silent_error(self.pdo), true));
        };
        let ran = zend::call_method(stmt, "execute", &mut [zend::share(&self.params)])
            .map_err(|_| Failed::Pending)?;
        if ran.bool() == Some(false) {
            return Err(Failed::Silent(silent_error(stmt), false));
        }
        loop {
            let mut mode = Zval::new();
            mode.set_long(FETCH_ASSOC);
            let row = zend::call_method(stmt, "fetch", &mut [mode]).map_err(|_| Failed::Pending)?;
            if !row.is_array() {
                // The end of the rows, or a failure PDO did not throw (silent mode).
                let code = zend::call_method(stmt, "errorCode", &mut [])
                    .map(|c| text(&c))
                    .unwrap_or_default();
                if !code.is_empty() && code != "00000" {
                    return Err(Failed::Silent(silent_error(stmt), false));
                }
                return Ok(());
            }
            if !keep(values::to_value(&row).unwrap_or(Value::Null)) {
                return Ok(());
            }
        }
    }
}

impl Database<Pending> for Pdo<'_> {
    fn describe(&mut self) -> Result<(String, String), ToolError<Pending>> {
        let driver = self.attribute(ATTR_DRIVER_NAME)?;
        let version = if driver == "mysql" {
            self.attribute(ATTR_SERVER_VERSION)?
        } else {
            String::new()
        };
        Ok((driver, version))
    }

    fn run(
        &mut self,
        engine: Engine,
        sql: &str,
        budget: &Budget,
        keep: &mut dyn FnMut(Value) -> bool,
    ) -> Result<(), ToolError<Pending>> {
        let sqlite = if engine == Engine::Sqlite {
            // SAFETY: `pdo` is an instance of PDO (the constructor's typed property), whose
            // objects all have PDO's layout; the shim reads its handle fields only.
            let db = unsafe { phpclaw_pdo_sqlite_db(zend::obj_ptr(self.pdo)) };
            // SAFETY: `db` is null or this PDO object's live sqlite3 handle, of the SQLite
            // pdo_sqlite loaded; a PHP request runs on one thread.
            let begun = unsafe { SqliteBudget::begin(db, budget.sqlite_limits()) };
            match begun {
                Ok(b) => Some(b),
                Err(_) => return Err(ToolError::tool(core::NO_BUDGET)),
            }
        } else {
            None
        };
        let rebuffer = match engine {
            Engine::Sqlite => false,
            Engine::MariaDb | Engine::MySql => match self.buffered() {
                Some(true) if self.set_buffered(false) => true,
                Some(false) => false,
                _ => return Err(ToolError::tool(core::NO_BUDGET)),
            },
        };
        let this = &*self;
        let outcome = try_catch(AssertUnwindSafe(|| this.query(sql, keep)));
        let timed_out = sqlite.as_ref().is_some_and(SqliteBudget::timed_out);
        // The connection is the site's again before anything else happens.
        drop(sqlite);
        if let Err(CatchError::Bailout) = outcome {
            // SAFETY: PHP was bailing out (fatal error) when the query was cut short; the
            // SQLite budget is off again, so the bailout continues where the engine expects it.
            unsafe { bailout() }
        }
        let result = self.answer(outcome, engine, timed_out, budget);
        if rebuffer {
            // A PHP call does not run while an exception is pending: hold it meanwhile.
            let pending = Thrown::take();
            self.set_buffered(true);
            if let Some(t) = pending {
                t.rethrow();
            }
        }
        result
    }
}

impl Pdo<'_> {
    /// The run's answer from the query's outcome.
    fn answer(
        &self,
        outcome: Result<Result<(), Failed>, CatchError>,
        engine: Engine,
        timed_out: bool,
        budget: &Budget,
    ) -> Result<(), ToolError<Pending>> {
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(Failed::Pending)) => Err(pdo_failure(engine, timed_out, budget)),
            Ok(Err(Failed::Silent(e, prepare))) => {
                let e = e.unwrap_or_default();
                let message = core::failure_message(engine, &e, timed_out, budget);
                if message != core::QUERY_FAILED {
                    zend::error_log(&[core::LOG_PREFIX.as_bytes(), e.message.as_bytes()].concat());
                    Err(ToolError::tool(message))
                } else if prepare {
                    Err(ToolError::tool(core::PREPARE_FAILED))
                } else {
                    Ok(())
                }
            }
            Err(_) => Err(ToolError::tool(core::QUERY_FAILED)),
        }
    }
}

/// `(array) ($input['params'] ?? [])`.
fn params_of(v: Option<&Zval>) -> Zval {
    match v {
        None => Zval::new_array(),
        Some(v) if v.is_null() => Zval::new_array(),
        Some(v) if v.is_array() => zend::share(v),
        Some(v) if v.object().is_some() => {
            zend::call_function("get_object_vars", &mut [zend::share(v)])
                .unwrap_or_else(|_| Zval::new_array())
        }
        Some(v) => {
            let one = zend::share(v);
            zend::build_array(1, |ht| zend::push(ht, one))
        }
    }
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 2) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Some(pdo_ce) = ClassEntry::try_find("PDO") else {
        zend::throw_error("Class \"PDO\" not found");
        return;
    };
    let Some(Some(pdo)) = f.object_of(0, pdo_ce, false) else {
        return;
    };
    let spill = match f.arg(1) {
        None => Vec::new(),
        Some(_) => match f.string(1) {
            Some(b) => b,
            None => return,
        },
    };
    zend::write_property(scope(), this, P_PDO, &mut zend::object_zval(pdo));
    zend::write_property(scope(), this, P_SPILL, &mut zend::bytes_zval(&spill));
}

extern "C" fn execute(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let (Some(this), Some(input)) = (f.this(), f.array(0)) else {
        return;
    };
    let Some(ht) = input.array() else { return };
    let Ok(auth) = authorizer_of(scope(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, core::SUBJECT, rv) {
        return;
    }
    let Ok(value) = string_inputs(ht, &["sql"]) else {
        return;
    };
    let Ok(pdo_zv) = read_prop(scope(), this, P_PDO) else {
        return;
    };
    let Some(pdo) = pdo_zv.object() else { return };
    let Ok(spill) = read_prop(scope(), this, P_SPILL) else {
        return;
    };
    let mut spill_dir = text(&spill);
    if spill_dir.is_empty() {
        let Ok(dir) = zend::call_function("sys_get_temp_dir", &mut []) else {
            return;
        };
        spill_dir = text(&dir);
    }
    let mut tool = DbQuery {
        db: Pdo {
            pdo,
            params: params_of(zend::get(ht, "params")),
        },
        spill_dir,
        budget: Budget::with_time_ms(crate::php::ini::db_time_budget_ms()),
    };
    super::respond(tool.run_steps(&value), rv);
}

crate::php::tools::identity_handlers!();

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(Arg::new("pdo", DataType::object("PDO")))
        .arg(Arg::new("spillDir", DataType::String).default("''"))
        .required_args(1);
    let b =
        with_identity(tool_class(NAME, Extras::default(), true)).method(ctor, MethodFlags::Public);
    b.registration(|ce, _| {
        let private = MethodFlags::Private.bits();
        zend::declare_typed_property(ce, P_PDO, private, zend::class_type("PDO", false), None);
        super::declare_private(ce, P_SPILL, MAY_BE_STRING);
        super::declare_authorizer(ce);
        DB_QUERY.set(ce);
    })
    .register()
}
