//! `PhpClaw\Tools\ToolMutability::isApprovalRequired(?ToolInterface $tool, array $input): bool`:
//! a tool with per-invocation mutability decides for this input; otherwise a tool needs approval
//! exactly when it implements MutatingToolInterface (null: no tool, no approval).

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, DataType, MethodFlags};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecuteData;

use super::super::contracts::{MUTATING, PER_INVOCATION, TOOL};
use super::super::zend::{self, Frame};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\ToolMutability";

extern "C" fn is_approval_required(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(tool_ce) = TOOL.get() else { return };
    let Some(tool) = f.object_of(0, tool_ce, true) else {
        return;
    };
    let Some(input) = f.array(1) else { return };
    let Some(tool) = tool else {
        rv.set_bool(false);
        return;
    };
    if PER_INVOCATION.get().is_some_and(|ce| tool.instance_of(ce)) {
        if let Ok(v) = zend::call_method(tool, "isMutating", &mut [zend::share(input)]) {
            rv.set_bool(v.coerce_to_bool());
        }
        return;
    }
    rv.set_bool(MUTATING.get().is_some_and(|ce| tool.instance_of(ce)));
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    ClassBuilder::new(NAME)
        .flags(ClassFlags::Final)
        .method(
            FunctionBuilder::new("isApprovalRequired", is_approval_required)
                .arg(
                    Arg::new(
                        "tool",
                        DataType::object("PhpClaw\\Tools\\Contracts\\ToolInterface"),
                    )
                    .allow_null(),
                )
                .arg(Arg::new("input", DataType::Array))
                .returns(DataType::Bool, false, false),
            MethodFlags::Public | MethodFlags::Static,
        )
        .registration(|_, _| {})
        .register()
}
