//! `PhpClaw\Tools\DatabaseQueryTool`, native: constructor `(\PDO $pdo, string $spillDir = '')`,
//! the query run through the caller's PDO object (prepare, execute, fetch row by row), every
//! decision in `core::tools::db_query`.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{DataType, MethodFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::super::values;
use super::super::zend::MAY_BE_STRING;
use super::super::zend::{self, ClassSlot, Frame, Pending, Thrown};
use super::file_write::{read_prop, text};
use super::string_inputs;
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::tools::db_query::{self as core, Database, DbQuery};
use crate::core::tools::ToolError;
use crate::core::value::Value;

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\DatabaseQueryTool";

pub static DB_QUERY: ClassSlot = ClassSlot::new();

const P_PDO: &str = "pdo";
const P_SPILL: &str = "spillDir";

/// `PDO::FETCH_ASSOC`.
const FETCH_ASSOC: i64 = 2;

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    DB_QUERY.ptr()
}

/// The PDO side of a run: the connection and the caller's parameters.
struct Pdo<'a> {
    pdo: &'a ZendObject,
    params: Zval,
}

/// A pending exception: a PDOException becomes "Database query failed.", anything else
/// stays pending for the caller.
fn pdo_failure() -> ToolError<Pending> {
    let thrown = Thrown::take_pending();
    if thrown.is(ClassEntry::try_find("PDOException")) {
        // phpClaw logs the driver's message (Log::error, i.e. error_log()) and hides it from
        // the model.
        if let Some(obj) = thrown.object() {
            if let Ok(m) = zend::call_method(obj, "getMessage", &mut []) {
                let text = m
                    .zend_str()
                    .map(|s| s.as_bytes().to_vec())
                    .unwrap_or_default();
                zend::error_log(&[core::LOG_PREFIX.as_bytes(), &text].concat());
            }
        }
        drop(thrown);
        return ToolError::tool(core::QUERY_FAILED);
    }
    thrown.rethrow();
    ToolError::Host(Pending)
}

impl Database<Pending> for Pdo<'_> {
    fn fetch(&mut self, sql: &str, limit: usize) -> Result<Vec<Value>, ToolError<Pending>> {
        let stmt = zend::call_method(self.pdo, "prepare", &mut [zend::str_zval(sql)])
            .map_err(|_| pdo_failure())?;
        let Some(stmt) = stmt.object() else {
            return Err(ToolError::tool(core::PREPARE_FAILED));
        };
        zend::call_method(stmt, "execute", &mut [zend::share(&self.params)])
            .map_err(|_| pdo_failure())?;
        let mut rows = Vec::new();
        while rows.len() < limit {
            let mut mode = Zval::new();
            mode.set_long(FETCH_ASSOC);
            let row = zend::call_method(stmt, "fetch", &mut [mode]).map_err(|_| pdo_failure())?;
            if !row.is_array() {
                break;
            }
            rows.push(values::to_value(&row).unwrap_or(Value::Null));
        }
        Ok(rows)
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
