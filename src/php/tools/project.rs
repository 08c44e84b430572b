//! `PhpClaw\Tools\ProjectTool`, native: phpClaw's constructor `(?string $projectRoot = null)`
//! (the working directory when null, kept as given) with our trailing `bool $allowHardLinks =
//! false`, name(), description(), inputSchema(), routingMetadata(), execute(); every decision in
//! `core::tools::project`.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{DataType, MethodFlags};
use ext_php_rs::types::{ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::tools;
use crate::core::tools::project::{self as core, Project};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\ProjectTool";

pub static PROJECT: ClassSlot = ClassSlot::new();

const P_ROOT: &str = "projectRoot";

fn root_of(this: &ZendObject) -> Result<String, Pending> {
    super::file_write::read_prop(PROJECT.ptr(), this, P_ROOT).map(|v| super::file_write::text(&v))
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    super::construct_root(ex, PROJECT.ptr(), P_ROOT, |given, cwd| {
        given.unwrap_or(cwd).to_string()
    });
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
    let Ok(auth) = authorizer_of(PROJECT.ptr(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, core::FORBIDDEN_SUBJECT, rv) {
        return;
    }
    let Ok(value) = super::string_inputs(ht, &["depth"]) else {
        return;
    };
    let Ok(allow_hard_links) = super::allow_hard_links_of(PROJECT.ptr(), this) else {
        return;
    };
    let mut tool = Project::new(root);
    tool.allow_hard_links = allow_hard_links;
    super::respond(tools::run_steps(&mut tool, &mut host, &value), rv);
}

super::identity_handlers!();

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let ctor = FunctionBuilder::constructor(construct)
        .arg(
            Arg::new("projectRoot", DataType::String)
                .allow_null()
                .default("null"),
        )
        .arg(super::allow_hard_links_arg())
        .required_args(0);
    let b =
        with_identity(tool_class(NAME, Extras::default(), true)).method(ctor, MethodFlags::Public);
    b.registration(|ce, _| {
        super::declare_private(ce, P_ROOT, zend::MAY_BE_STRING);
        super::declare_allow_hard_links(ce);
        super::declare_authorizer(ce);
        PROJECT.set(ce);
    })
    .register()
}
