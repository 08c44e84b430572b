//! `PhpClaw\Tools\FileReadTool`, native: the class phpClaw declares (constructor
//! `(?string $workspaceRoot = null, int $maxBytes = 16384, bool $followSymlinks = false,
//! array $noiseBlockedDirs = BlockedPaths::NOISE_DIRS)`, plus our trailing
//! `bool $allowHardLinks = false`; constants, accessors, reset()), with every decision in
//! `core::tools::file_read`.
//!
//! The read log: every successful read is recorded with phpClaw's own
//! `PhpClaw\Tools\Concerns\FileReadLog::markRead($root, $realPath)` when that class exists, and
//! `reset()` calls its `reset()`. That class is a per-request static in PHP, shared by every
//! tool instance, exactly what file_edit's "read in the same run" gate needs: a PHP
//! FileEditTool keeps working with the native FileReadTool, a native FileEditTool will ask the
//! same log, and nothing outlives the request. Without phpClaw's class no log is kept (there is
//! no file_edit to consult it either).

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::super::values;
use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::{call_read_log, tool_class, Extras, PhpHost, Slots};
use crate::core::security::blocked_paths::NOISE_DIRS;
use crate::core::tools;
use crate::core::tools::file_read::{self as core, FileRead};
use crate::core::value::{Array, Value};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\FileReadTool";

pub static FILE_READ: ClassSlot = ClassSlot::new();

const P_MAX: &str = "maxBytes";
const P_FOLLOW: &str = "followSymlinks";
const P_NOISE: &str = "noiseBlockedDirs";
const P_CONFIGURED: &str = "workspaceRootConfigured";
const P_RESOLVED: &str = "workspaceRootResolved";

use super::super::zend::{MAY_BE_BOOL, MAY_BE_LONG, MAY_BE_STRING};

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    FILE_READ.ptr()
}

/// The declared properties whose slots are read directly (offsets recorded at startup).
static SLOTS: Slots<7> = Slots::new([
    P_MAX,
    P_FOLLOW,
    P_NOISE,
    P_CONFIGURED,
    P_RESOLVED,
    super::AUTHORIZER_PROP,
    super::ALLOW_HARD_LINKS_PROP,
]);

/// A property of the tool (see [`Slots::read`]).
fn read(this: &ZendObject, name: &str) -> Result<Zval, Pending> {
    SLOTS.read(scope(), this, name)
}

fn text(zv: &Zval) -> String {
    zv.zend_str()
        .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned())
        .unwrap_or_default()
}

/// The tool's configuration, from its properties.
fn config(this: &ZendObject) -> Result<FileRead, Pending> {
    let mut t = FileRead::new(text(&read(this, P_CONFIGURED)?));
    t.root_resolved = read(this, P_RESOLVED)?
        .zend_str()
        .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned());
    t.max_bytes = read(this, P_MAX)?.long().unwrap_or(core::DEFAULT_MAX_BYTES);
    t.follow_symlinks = read(this, P_FOLLOW)?.bool().unwrap_or(false);
    t.allow_hard_links = read(this, super::ALLOW_HARD_LINKS_PROP)?
        .bool()
        .unwrap_or(false);
    let noise = read(this, P_NOISE)?;
    t.noise_dirs = Vec::new();
    if let Some(ht) = noise.array() {
        zend::for_each_entry(ht, |_, v| {
            // The reference compares strictly: only strings can match a folder name.
            if let Some(s) = v
                .zend_str()
                .and_then(|s| std::str::from_utf8(s.as_bytes()).ok())
            {
                t.noise_dirs.push(s.to_string());
            }
            true
        });
    }
    Ok(t)
}

/// Remember a newly resolved root, as the reference caches it.
fn store_resolved(this: &ZendObject, before: &Option<String>, tool: &FileRead) {
    if tool.root_resolved != *before {
        if let Some(r) = &tool.root_resolved {
            zend::write_property(scope(), this, P_RESOLVED, &mut zend::str_zval(r));
        }
    }
}

/// The input keys the tool reads, converted once. Arrays and objects only matter as PHP's own
/// conversions of them would: `path` is cast to string, an offset or limit that is neither an
/// int nor a string is refused (null stands for it), line_numbers reads a Stringable object's
/// text and treats any other object or array as false.
fn input_value(ht: &ZendHashTable) -> Result<Value, Pending> {
    let mut out = Array::with_capacity(4);
    for key in core::INPUT_KEYS {
        let Some(v) = zend::get(ht, key) else {
            continue;
        };
        let is_object = v.object().is_some();
        let value = match key {
            "path" if is_object || v.is_array() => super::php_strval(v)?,
            "line_numbers" if is_object => {
                let stringable = v
                    .object()
                    .is_some_and(|o| zend::find_method(o.ce, "__tostring").is_some());
                if stringable {
                    super::php_strval(v)?
                } else {
                    Value::Null
                }
            }
            _ if is_object || v.is_array() => Value::Null,
            _ => values::to_value(v).unwrap_or(Value::Null),
        };
        out.insert(key, value);
    }
    Ok(Value::Array(out))
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 5) {
        return;
    }
    let Some(this) = f.this() else { return };
    let root = match f.arg(0) {
        None => None,
        Some(v) if v.is_null() => None,
        Some(_) => match f.string(0) {
            Some(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            None => return,
        },
    };
    let max = match f.arg(1) {
        None => core::DEFAULT_MAX_BYTES,
        Some(_) => match f.long(1) {
            Some(n) => n,
            None => return,
        },
    };
    let follow = match f.arg(2) {
        None => false,
        Some(v) => match v.bool() {
            Some(b) => b,
            None if !f.strict() && (v.is_long() || v.is_double() || v.is_string()) => {
                v.coerce_to_bool()
            }
            None => {
                zend::type_error(2, "bool", v);
                return;
            }
        },
    };
    let noise = match f.arg(3) {
        None => super::string_list(NOISE_DIRS),
        Some(_) => match f.array(3) {
            Some(a) => zend::share(a),
            None => return,
        },
    };
    let Some(allow_hard_links) = super::file_write::bool_arg(&f, 4, false) else {
        return;
    };
    let mut hard_links = Zval::new();
    hard_links.set_bool(allow_hard_links);
    let mut max_zv = Zval::new();
    max_zv.set_long(max);
    let mut follow_zv = Zval::new();
    follow_zv.set_bool(follow);
    for (name, value) in [
        (super::ALLOW_HARD_LINKS_PROP, hard_links),
        (P_MAX, max_zv),
        (P_FOLLOW, follow_zv),
        (P_NOISE, noise),
    ] {
        if SLOTS.init(scope(), this, name, value).is_err() {
            return;
        }
    }
    if max < 1 {
        if let Some(ce) = ClassEntry::try_find("InvalidArgumentException") {
            zend::throw_new(ce, core::MAX_BYTES_MESSAGE, 0, None);
        }
        return;
    }
    let configured = core::configured_root(root.as_deref(), &super::cwd_unless(root.is_some()));
    let _ = SLOTS.init(scope(), this, P_CONFIGURED, zend::str_zval(&configured));
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
    let Ok(auth) = read(this, super::AUTHORIZER_PROP) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.object(),
    };
    if !super::passes_guard(&mut host, core::FORBIDDEN_SUBJECT, rv) {
        return;
    }
    let Ok(value) = input_value(ht) else { return };
    let before = tool.root_resolved.clone();
    let result = tools::run_steps(&mut tool, &mut host, &value);
    store_resolved(this, &before, &tool);
    super::respond(result, rv);
}

crate::php::tools::identity_handlers!();

/// `reset()` of file_read and file_edit: clears the shared read log.
extern "C" fn reset(ex: &mut ExecuteData, _rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        let _ = call_read_log("reset", &mut []);
    }
}

/// What file_read and file_edit declare alike: the constants `DEFAULT_WORKSPACE_SUBPATH`,
/// `DEFAULT_MAX_BYTES` (each tool's own `max_bytes`) and the private `NOISE_BLOCKED_DIRS`
/// default, and `reset()`.
pub(super) fn with_sandbox_constants(
    b: ClassBuilder,
    subpath: &'static str,
    max_bytes: i64,
) -> ext_php_rs::error::Result<ClassBuilder> {
    Ok(b.constant(
        "DEFAULT_WORKSPACE_SUBPATH",
        subpath,
        &[],
        ConstantFlags::Public,
    )?
    .constant("DEFAULT_MAX_BYTES", max_bytes, &[], ConstantFlags::Public)?
    .constant(
        "NOISE_BLOCKED_DIRS",
        super::ffi::persistent_string_list(NOISE_DIRS),
        &[],
        ConstantFlags::Private,
    )?
    .method(
        FunctionBuilder::new("reset", reset).returns(DataType::Void, false, false),
        MethodFlags::Public,
    ))
}

/// The resolved workspace root both tools cache: private `?string`, null until resolved.
pub(super) fn declare_resolved_root(ce: &mut ClassEntry) {
    zend::declare_typed_property(
        ce,
        P_RESOLVED,
        MethodFlags::Private.bits(),
        zend::mask_type(MAY_BE_STRING | zend::MAY_BE_NULL),
        Some(Zval::null()),
    );
}

extern "C" fn workspace_root(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Ok(mut tool) = config(this) else { return };
    let before = tool.root_resolved.clone();
    let root = tool.workspace_root();
    store_resolved(this, &before, &tool);
    *rv = zend::str_zval(&root);
}

extern "C" fn max_bytes(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(v) = read(this, P_MAX) {
        *rv = v;
    }
}

fn getter(
    name: &str,
    handler: extern "C" fn(&mut ExecuteData, &mut Zval),
    ty: DataType,
) -> (FunctionBuilder<'static>, MethodFlags) {
    (
        FunctionBuilder::new(name, handler).returns(ty, false, false),
        MethodFlags::Public,
    )
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(
            Arg::new("workspaceRoot", DataType::String)
                .allow_null()
                .default("null"),
        )
        .arg(Arg::new("maxBytes", DataType::Long).default("self::DEFAULT_MAX_BYTES"))
        .arg(Arg::new("followSymlinks", DataType::Bool).default("false"))
        .arg(Arg::new("noiseBlockedDirs", DataType::Array).default("self::NOISE_BLOCKED_DIRS"))
        .arg(super::allow_hard_links_arg())
        .required_args(0);
    let mut b = with_sandbox_constants(
        with_identity(tool_class(NAME, Extras { resettable: true }, true)),
        core::DEFAULT_WORKSPACE_SUBPATH,
        core::DEFAULT_MAX_BYTES,
    )?
    .method(ctor, MethodFlags::Public);
    for (func, flags) in [
        getter("workspaceRoot", workspace_root, DataType::String),
        getter("maxBytes", max_bytes, DataType::Long),
    ] {
        b = b.method(func, flags);
    }
    b.registration(|ce, _| {
        super::declare_private(ce, P_MAX, MAY_BE_LONG);
        super::declare_private(ce, P_FOLLOW, MAY_BE_BOOL);
        super::declare_private(ce, P_NOISE, zend::MAY_BE_ARRAY);
        super::declare_private(ce, P_CONFIGURED, MAY_BE_STRING);
        declare_resolved_root(ce);
        super::declare_authorizer(ce);
        super::declare_allow_hard_links(ce);
        SLOTS.record(ce);
        FILE_READ.set(ce);
    })
    .register()
}
