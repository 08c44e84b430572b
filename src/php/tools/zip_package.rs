//! `PhpClaw\Tools\ZipPackagerTool`, native: constructor `(?string $workspaceRoot = null)` with
//! our trailing `bool $allowHardLinks = false`, a MutatingToolInterface, with every decision in
//! `core::tools::zip_package` (the `zip` crate: no ext-zip needed).

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::tools;
use crate::core::tools::file_write::constructed_root;
use crate::core::tools::zip_package::{self as core, ZipPackage};
use crate::core::value::{Array, Value};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\ZipPackagerTool";

pub static ZIP_PACKAGE: ClassSlot = ClassSlot::new();

const P_ROOT: &str = "workspaceRoot";

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    ZIP_PACKAGE.ptr()
}

fn root_of(this: &ZendObject) -> Result<String, Pending> {
    super::file_write::read_prop(scope(), this, P_ROOT).map(|v| super::file_write::text(&v))
}

fn input_value(ht: &ZendHashTable) -> Result<Value, Pending> {
    let mut out = Array::with_capacity(2);
    for key in core::INPUT_KEYS {
        if let Some(v) = zend::get(ht, key) {
            out.insert(key, super::http::scalar(v)?);
        }
    }
    Ok(Value::Array(out))
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    super::construct_root(ex, scope(), P_ROOT, constructed_root);
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
    let Ok(root) = root_of(this) else { return };
    let Ok(allow_hard_links) = super::allow_hard_links_of(scope(), this) else {
        return;
    };
    let mut tool = ZipPackage::new(root);
    tool.allow_hard_links = allow_hard_links;
    if let Ok(t) = zend::call_function("sys_get_temp_dir", &mut []) {
        if let Some(s) = t.zend_str() {
            tool.temp_dir = String::from_utf8_lossy(s.as_bytes()).into_owned().into();
        }
    } else {
        return;
    }
    let Ok(auth) = authorizer_of(scope(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, core::FORBIDDEN_SUBJECT, rv) {
        return;
    }
    let Ok(value) = input_value(ht) else { return };
    super::respond(tools::run_steps(&mut tool, &mut host, &value), rv);
}

crate::php::tools::identity_handlers!();

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(
            Arg::new("workspaceRoot", DataType::String)
                .allow_null()
                .default("null"),
        )
        .arg(super::allow_hard_links_arg())
        .required_args(0);
    let b = with_identity(tool_class(NAME, Extras::default(), true))
        .implements((
            super::file_write::mutating_ce,
            "PhpClaw\\Tools\\Contracts\\MutatingToolInterface",
        ))
        .constant(
            "DEFAULT_WORKSPACE_SUBPATH",
            core::DEFAULT_WORKSPACE_SUBPATH,
            &[],
            ConstantFlags::Public,
        )?
        .method(ctor, MethodFlags::Public);
    b.registration(|ce, _| {
        super::declare_private(ce, P_ROOT, zend::MAY_BE_STRING);
        super::declare_allow_hard_links(ce);
        super::declare_authorizer(ce);
        ZIP_PACKAGE.set(ce);
    })
    .register()
}
