//! `PhpClaw\Tools\FileEditTool`, native: the class phpClaw declares (constructor
//! `(?string $workspaceRoot = null, bool $followSymlinks = false, array $noiseBlockedDirs =
//! BlockedPaths::NOISE_DIRS, int $maxBytes = 2097152)`, plus our trailing
//! `bool $allowHardLinks = false`; constants, `maxBytes()`, `reset()`),
//! a MutatingToolInterface and ResettableInterface, with every decision in
//! `core::tools::file_edit`.
//!
//! The read log: the prior-read gate asks phpClaw's `FileReadLog::wasRead($root, $realPath)`
//! when that class exists, else the extension's per-request log (`super::read_log`, kept in
//! this class's private static `$readLog`); `reset()` clears whichever is in use.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{DataType, MethodFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::super::zend::{MAY_BE_BOOL, MAY_BE_LONG, MAY_BE_STRING};
use super::file_read::with_sandbox_constants;
use super::file_write::{
    bool_arg, execute_tool, getter, long_arg, mutating_ce, nullable_string_arg, read_prop, text,
};
use super::{read_log, tool_class, Extras};
use crate::core::security::blocked_paths::NOISE_DIRS;
use crate::core::tools::file_edit::{self as core, FileEdit};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\FileEditTool";

pub static FILE_EDIT: ClassSlot = ClassSlot::new();

const P_FOLLOW: &str = "followSymlinks";
const P_NOISE: &str = "noiseBlockedDirs";
const P_MAX: &str = "maxBytes";
const P_CONFIGURED: &str = "workspaceRootConfigured";
const P_RESOLVED: &str = "workspaceRootResolved";

/// `ZEND_ACC_STATIC`.
const ACC_STATIC: u32 = 1 << 4;

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    FILE_EDIT.ptr()
}

fn config(this: &ZendObject) -> Result<FileEdit, Pending> {
    let mut t = FileEdit::new(text(&read_prop(scope(), this, P_CONFIGURED)?));
    t.root_resolved = read_prop(scope(), this, P_RESOLVED)?
        .zend_str()
        .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned());
    t.max_bytes = read_prop(scope(), this, P_MAX)?
        .long()
        .unwrap_or(core::DEFAULT_MAX_BYTES);
    t.follow_symlinks = read_prop(scope(), this, P_FOLLOW)?.bool().unwrap_or(false);
    t.allow_hard_links = super::allow_hard_links_of(scope(), this)?;
    t.durable_writes = crate::php::ini::durable_writes();
    let noise = read_prop(scope(), this, P_NOISE)?;
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

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 5) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Ok(root) = nullable_string_arg(&f, 0) else {
        return;
    };
    let Some(follow) = bool_arg(&f, 1, false) else {
        return;
    };
    let noise = match f.arg(2) {
        None => super::string_list(NOISE_DIRS),
        Some(_) => match f.array(2) {
            Some(a) => zend::share(a),
            None => return,
        },
    };
    let Some(max) = long_arg(&f, 3, core::DEFAULT_MAX_BYTES) else {
        return;
    };
    let Some(allow_hard_links) = bool_arg(&f, 4, false) else {
        return;
    };
    super::write_allow_hard_links(scope(), this, allow_hard_links);
    let mut follow_zv = Zval::new();
    follow_zv.set_bool(follow);
    let mut max_zv = Zval::new();
    max_zv.set_long(max);
    zend::write_property(scope(), this, P_FOLLOW, &mut follow_zv);
    zend::write_property(scope(), this, P_NOISE, &mut { noise });
    zend::write_property(scope(), this, P_MAX, &mut max_zv);
    if max < 1 {
        if let Some(ce) = ClassEntry::try_find("InvalidArgumentException") {
            zend::throw_new(ce, core::MAX_BYTES_MESSAGE, 0, None);
        }
        return;
    }
    let cwd = super::cwd_unless(root.is_some());
    let configured = crate::core::tools::file_read::configured_root(root.as_deref(), &cwd);
    zend::write_property(
        scope(),
        this,
        P_CONFIGURED,
        &mut zend::str_zval(&configured),
    );
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
    let before = tool.root_resolved.clone();
    execute_tool(scope(), this, &mut tool, ht, &core::INPUT_KEYS, rv);
    if tool.root_resolved != before && !zend::pending() {
        if let Some(r) = &tool.root_resolved {
            zend::write_property(scope(), this, P_RESOLVED, &mut zend::str_zval(r));
        }
    }
}

crate::php::tools::identity_handlers!();

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

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(
            Arg::new("workspaceRoot", DataType::String)
                .allow_null()
                .default("null"),
        )
        .arg(Arg::new("followSymlinks", DataType::Bool).default("false"))
        .arg(Arg::new("noiseBlockedDirs", DataType::Array).default("self::NOISE_BLOCKED_DIRS"))
        .arg(Arg::new("maxBytes", DataType::Long).default("self::DEFAULT_MAX_BYTES"))
        .arg(super::allow_hard_links_arg())
        .required_args(0);
    let mut b = with_sandbox_constants(
        with_identity(tool_class(NAME, Extras { resettable: true }, true)).implements((
            mutating_ce,
            "PhpClaw\\Tools\\Contracts\\MutatingToolInterface",
        )),
        core::DEFAULT_WORKSPACE_SUBPATH,
        core::DEFAULT_MAX_BYTES,
    )?
    .method(ctor, MethodFlags::Public);
    let (func, flags) = getter("maxBytes", max_bytes, DataType::Long);
    b = b.method(func, flags);
    b.registration(|ce, _| {
        super::declare_private(ce, P_FOLLOW, MAY_BE_BOOL);
        super::declare_private(ce, P_NOISE, zend::MAY_BE_ARRAY);
        super::declare_private(ce, P_MAX, MAY_BE_LONG);
        super::declare_private(ce, P_CONFIGURED, MAY_BE_STRING);
        super::file_read::declare_resolved_root(ce);
        super::declare_allow_hard_links(ce);
        zend::declare_typed_property(
            ce,
            read_log::PROP,
            MethodFlags::Private.bits() | ACC_STATIC,
            zend::mask_type(zend::MAY_BE_ARRAY | zend::MAY_BE_NULL),
            Some(Zval::null()),
        );
        super::declare_authorizer(ce);
        FILE_EDIT.set(ce);
    })
    .register()
}
