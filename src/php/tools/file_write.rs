//! `PhpClaw\Tools\FileWriteTool`, native: the class phpClaw declares (constructor
//! `(?string $workspaceRoot = null, bool $allowPhpWrite = false, int $maxBytes =
//! self::DEFAULT_MAX_BYTES, bool $followSymlinks = false)`, constants, `workspaceRoot()`,
//! `maxBytes()`), a MutatingToolInterface, with every decision in `core::tools::file_write`.
//! Also the argument and input helpers FileEditTool shares.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::super::contracts::MUTATING;
use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::tools::file_write::{self as core, FileWrite};
use crate::core::tools::{self as tools, NativeTool};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\FileWriteTool";

pub static FILE_WRITE: ClassSlot = ClassSlot::new();

const P_ALLOW_PHP: &str = "allowPhpWrite";
const P_MAX: &str = "maxBytes";
const P_FOLLOW: &str = "followSymlinks";
const P_ROOT: &str = "workspaceRoot";

use super::super::zend::{MAY_BE_BOOL, MAY_BE_LONG, MAY_BE_STRING};

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    FILE_WRITE.ptr()
}

/// A property of `this` read with `scope` as the calling class.
pub(super) fn read_prop(
    scope: *mut ext_php_rs::ffi::zend_class_entry,
    this: &ZendObject,
    name: &str,
) -> Result<Zval, Pending> {
    let v = zend::read_property(scope, this, name);
    if zend::pending() {
        return Err(Pending);
    }
    Ok(v.unwrap_or_default())
}

pub(super) fn text(zv: &Zval) -> String {
    zv.zend_str()
        .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned())
        .unwrap_or_default()
}

/// A `bool` parameter as PHP coerces it (weak mode: scalars convert; strict: TypeError).
/// None when a TypeError was raised.
pub(super) fn bool_arg(f: &Frame<'_>, n: usize, default: bool) -> Option<bool> {
    match f.arg(n) {
        None => Some(default),
        Some(v) => match v.bool() {
            Some(b) => Some(b),
            None if !f.strict() && (v.is_long() || v.is_double() || v.is_string()) => {
                Some(v.coerce_to_bool())
            }
            None => {
                zend::type_error(n, "bool", v);
                None
            }
        },
    }
}

/// A `?string` parameter; Err(()) when a TypeError was raised.
pub(super) fn nullable_string_arg(f: &Frame<'_>, n: usize) -> Result<Option<String>, ()> {
    match f.arg(n) {
        None => Ok(None),
        Some(v) if v.is_null() => Ok(None),
        Some(_) => match f.string(n) {
            Some(b) => Ok(Some(String::from_utf8_lossy(&b).into_owned())),
            None => Err(()),
        },
    }
}

/// An `int` parameter; None when a TypeError was raised.
pub(super) fn long_arg(f: &Frame<'_>, n: usize, default: i64) -> Option<i64> {
    match f.arg(n) {
        None => Some(default),
        Some(_) => f.long(n),
    }
}

/// Guard, convert the input, run the lifecycle, answer: the `execute()` every file tool shares.
pub(super) fn execute_tool<T: NativeTool>(
    scope: *mut ext_php_rs::ffi::zend_class_entry,
    this: &ZendObject,
    tool: &mut T,
    ht: &ZendHashTable,
    keys: &[&str],
    rv: &mut Zval,
) {
    let Ok(auth) = authorizer_of(scope, this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, tool.forbidden_subject(), rv) {
        return;
    }
    let Ok(value) = super::string_inputs(ht, keys) else {
        return;
    };
    super::respond(tools::run_steps(tool, &mut host, &value), rv);
}

fn config(this: &ZendObject) -> Result<FileWrite, Pending> {
    let mut t = FileWrite::new(text(&read_prop(scope(), this, P_ROOT)?));
    t.allow_php_write = read_prop(scope(), this, P_ALLOW_PHP)?
        .bool()
        .unwrap_or(false);
    t.max_bytes = read_prop(scope(), this, P_MAX)?
        .long()
        .unwrap_or(core::DEFAULT_MAX_BYTES);
    t.follow_symlinks = read_prop(scope(), this, P_FOLLOW)?.bool().unwrap_or(false);
    t.durable_writes = crate::php::ini::durable_writes();
    Ok(t)
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 4) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Ok(root) = nullable_string_arg(&f, 0) else {
        return;
    };
    let Some(allow) = bool_arg(&f, 1, false) else {
        return;
    };
    let Some(max) = long_arg(&f, 2, core::DEFAULT_MAX_BYTES) else {
        return;
    };
    let Some(follow) = bool_arg(&f, 3, false) else {
        return;
    };
    let cwd = super::cwd_unless(root.is_some());
    let root = core::constructed_root(root.as_deref(), &cwd);
    let mut allow_zv = Zval::new();
    allow_zv.set_bool(allow);
    let mut max_zv = Zval::new();
    max_zv.set_long(max);
    let mut follow_zv = Zval::new();
    follow_zv.set_bool(follow);
    zend::write_property(scope(), this, P_ALLOW_PHP, &mut allow_zv);
    zend::write_property(scope(), this, P_MAX, &mut max_zv);
    zend::write_property(scope(), this, P_FOLLOW, &mut follow_zv);
    zend::write_property(scope(), this, P_ROOT, &mut zend::str_zval(&root));
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
    let Ok(mut tool) = config(this) else { return };
    execute_tool(scope(), this, &mut tool, ht, &core::INPUT_KEYS, rv);
}

crate::php::tools::identity_handlers!();

extern "C" fn workspace_root(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(v) = read_prop(scope(), this, P_ROOT) {
        *rv = v;
    }
}

extern "C" fn max_bytes(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(v) = read_prop(scope(), this, P_MAX) {
        *rv = v;
    }
}

pub(super) fn getter(
    name: &str,
    handler: extern "C" fn(&mut ExecuteData, &mut Zval),
    ty: DataType,
) -> (FunctionBuilder<'static>, MethodFlags) {
    (
        FunctionBuilder::new(name, handler).returns(ty, false, false),
        MethodFlags::Public,
    )
}

pub(super) fn mutating_ce() -> &'static ClassEntry {
    // The contracts register before any tool; startup aborts if they failed.
    MUTATING
        .get()
        .expect("contracts are registered before the tools")
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(
            Arg::new("workspaceRoot", DataType::String)
                .allow_null()
                .default("null"),
        )
        .arg(Arg::new("allowPhpWrite", DataType::Bool).default("false"))
        .arg(Arg::new("maxBytes", DataType::Long).default("self::DEFAULT_MAX_BYTES"))
        .arg(Arg::new("followSymlinks", DataType::Bool).default("false"))
        .required_args(0);
    let mut b = with_identity(tool_class(NAME, Extras::default(), true))
        .implements((
            mutating_ce,
            "PhpClaw\\Tools\\Contracts\\MutatingToolInterface",
        ))
        .constant(
            "DEFAULT_WORKSPACE_SUBPATH",
            core::DEFAULT_WORKSPACE_SUBPATH,
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "DEFAULT_MAX_BYTES",
            core::DEFAULT_MAX_BYTES,
            &[],
            ConstantFlags::Public,
        )?
        .method(ctor, MethodFlags::Public);
    for (func, flags) in [
        getter("workspaceRoot", workspace_root, DataType::String),
        getter("maxBytes", max_bytes, DataType::Long),
    ] {
        b = b.method(func, flags);
    }
    b.registration(|ce, _| {
        super::declare_private(ce, P_ALLOW_PHP, MAY_BE_BOOL);
        super::declare_private(ce, P_MAX, MAY_BE_LONG);
        super::declare_private(ce, P_FOLLOW, MAY_BE_BOOL);
        super::declare_private(ce, P_ROOT, MAY_BE_STRING);
        super::declare_authorizer(ce);
        FILE_WRITE.set(ce);
    })
    .register()
}
