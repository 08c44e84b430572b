//! `PhpClaw\Tools\Security\BlockedPaths`: the sensitive-path lists as public class constants,
//! straight from `core::security::blocked_paths` (final, not instantiable).

use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, MethodFlags};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecuteData;

use super::ffi::persistent_string_list;
use crate::core::security::blocked_paths as core;

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\Security\\BlockedPaths";

extern "C" fn construct(_ex: &mut ExecuteData, _rv: &mut Zval) {}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let mut b = ClassBuilder::new(NAME).flags(ClassFlags::Final).method(
        FunctionBuilder::constructor(construct),
        MethodFlags::Private,
    );
    for (name, list) in [
        ("EXTENSIONS", core::EXTENSIONS),
        ("FILENAMES", core::FILENAMES),
        ("EDIT_FILENAMES", core::EDIT_FILENAMES),
        ("SECURITY_DIRS", core::SECURITY_DIRS),
        ("NOISE_DIRS", core::NOISE_DIRS),
    ] {
        b = b.constant(
            name,
            persistent_string_list(list),
            &[],
            ConstantFlags::Public,
        )?;
    }
    b.registration(|_, _| {}).register()
}
