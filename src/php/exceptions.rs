//! phpClaw's exception classes: PhpClawException (extends RuntimeException), ToolException and
//! the final ShellDeniedException. Registered with the raw class builder so they are real
//! exceptions (file, line, trace, code, previous) that PHP classes can extend.

use ext_php_rs::builders::ClassBuilder;
use ext_php_rs::flags::ClassFlags;
use ext_php_rs::zend::ClassEntry;

use super::zend::{runtime_exception_ce, ClassSlot};

pub static PHPCLAW_EXCEPTION: ClassSlot = ClassSlot::new();
pub static TOOL_EXCEPTION: ClassSlot = ClassSlot::new();
pub static SHELL_DENIED: ClassSlot = ClassSlot::new();

/// Fully qualified name of ToolException, for type declarations.
pub const TOOL_EXCEPTION_NAME: &str = "PhpClaw\\Exceptions\\ToolException";

fn runtime_exception() -> &'static ClassEntry {
    runtime_exception_ce().expect("SPL registers RuntimeException before shared extensions start")
}

fn phpclaw_exception() -> &'static ClassEntry {
    PHPCLAW_EXCEPTION
        .get()
        .expect("registered before its children")
}

fn tool_exception() -> &'static ClassEntry {
    TOOL_EXCEPTION
        .get()
        .expect("registered before its children")
}

/// Register the three classes, parents first.
pub fn register() -> ext_php_rs::error::Result<()> {
    ClassBuilder::new("PhpClaw\\Exceptions\\PhpClawException")
        .extends((runtime_exception, "RuntimeException"))
        .registration(|ce, _| PHPCLAW_EXCEPTION.set(ce))
        .register()?;
    ClassBuilder::new(TOOL_EXCEPTION_NAME)
        .extends((phpclaw_exception, "PhpClaw\\Exceptions\\PhpClawException"))
        .registration(|ce, _| TOOL_EXCEPTION.set(ce))
        .register()?;
    ClassBuilder::new("PhpClaw\\Exceptions\\ShellDeniedException")
        .extends((tool_exception, TOOL_EXCEPTION_NAME))
        .flags(ClassFlags::Final)
        .registration(|ce, _| SHELL_DENIED.set(ce))
        .register()?;
    Ok(())
}

/// Throw a ToolException with an optional previous throwable.
pub fn throw_tool_exception(message: &str, previous: Option<super::zend::Thrown>) {
    if let Some(ce) = TOOL_EXCEPTION.get() {
        super::zend::throw_new(ce, message, 0, previous);
    }
}
