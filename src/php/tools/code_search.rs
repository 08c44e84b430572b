//! `PhpClaw\Tools\CodeSearchTool`, native: phpClaw's constructor `(?string $workspaceRoot =
//! null)` with our trailing `bool $allowHardLinks = false`, name(), description(),
//! inputSchema(), routingMetadata(), execute(); every decision in `core::tools::code_search`.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::super::values;
use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::{authorizer_of, routing_metadata, tool_class, Extras, PhpHost};
use crate::core::tools;
use crate::core::tools::code_search::{self as core, CodeSearch};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\CodeSearchTool";

pub static CODE_SEARCH: ClassSlot = ClassSlot::new();

const P_ROOT: &str = "workspaceRoot";

fn root_of(this: &ZendObject) -> Result<String, Pending> {
    super::file_write::read_prop(CODE_SEARCH.ptr(), this, P_ROOT)
        .map(|v| super::file_write::text(&v))
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    super::construct_root(ex, CODE_SEARCH.ptr(), P_ROOT, core::workspace_root);
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
    let Ok(auth) = authorizer_of(CODE_SEARCH.ptr(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, core::FORBIDDEN_SUBJECT, rv) {
        return;
    }
    let Ok(value) = super::string_inputs(ht, &core::INPUT_KEYS) else {
        return;
    };
    let Ok(allow_hard_links) = super::allow_hard_links_of(CODE_SEARCH.ptr(), this) else {
        return;
    };
    let mut tool = CodeSearch::new(root);
    tool.jit = super::super::ini::pcre_jit();
    tool.allow_hard_links = allow_hard_links;
    super::respond(tools::run_steps(&mut tool, &mut host, &value), rv);
}

extern "C" fn name(ex: &mut ExecuteData, rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        *rv = zend::str_zval(core::NAME);
    }
}

extern "C" fn description(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(root) = root_of(this) {
        *rv = zend::str_zval(&core::description(&root));
    }
}

extern "C" fn input_schema(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    if let Ok(root) = root_of(this) {
        *rv = values::to_zval(&core::input_schema(&root));
    }
}

extern "C" fn routing(ex: &mut ExecuteData, rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        routing_metadata(core::ROUTING, rv);
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
        .arg(super::allow_hard_links_arg())
        .required_args(0);
    let b = super::identity_methods(
        tool_class(NAME, Extras::default(), true),
        execute,
        [name, description, input_schema, routing],
    )
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
        CODE_SEARCH.set(ce);
    })
    .register()
}
