//! The PHP bindings: declare phpClaw's symbols, convert values once, call the core.

use ext_php_rs::prelude::*;
use ext_php_rs::zend::ModuleEntry;
use ext_php_rs::{info_table_end, info_table_row, info_table_start};
use std::sync::atomic::{AtomicBool, Ordering};

mod contracts;
mod encode;
mod exceptions;
pub(crate) mod ini;
mod json_view;
mod lifecycle;
mod profiles;
mod registry_zend;
mod remote_activator;
mod router;
mod router_identity;
mod routing_metadata;
mod routing_support;
mod tool_input;
mod tool_registry;
mod tools;
mod values;
mod zend;

/// Whether the lifecycle traits were registered (not when opcache.preload is set).
static TRAITS_REGISTERED: AtomicBool = AtomicBool::new(false);

/// Why the traits may be left to phpClaw's PHP files: PHP's preload step crashes on a class
/// that uses an internal trait, so with `opcache.preload` set the native traits stay out of
/// the way and phpClaw's own traits load as before.
fn preload_configured() -> bool {
    zend::startup_ini("opcache.preload").is_some_and(|v| !v.trim().is_empty())
}

fn register_all() -> ext_php_rs::error::Result<()> {
    contracts::register()?;
    exceptions::register()?;
    routing_metadata::register()?;
    let traits = !preload_configured();
    if traits {
        lifecycle::register()?;
    }
    TRAITS_REGISTERED.store(traits, Ordering::Release);
    tools::register()?;
    router::register()?;
    profiles::register()?;
    tool_input::register()?;
    tool_registry::register_class()?;
    remote_activator::register()?;
    Ok(())
}

extern "C" fn startup(_ty: i32, module_number: i32) -> i32 {
    ini::register(module_number);
    crate::core::tools::code_search::tree_cache::set_budget(ini::search_cache_size());
    // Relative paths in the core resolve against PHP's working directory (per thread in ZTS).
    crate::core::workdir::set_lookup(zend::php_cwd);
    crate::core::workdir::set_realpath(zend::php_realpath);
    match register_all() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("phpclaw: startup failed: {e}");
            -1
        }
    }
}

extern "C" fn shutdown(ty: i32, module_number: i32) -> i32 {
    ini::unregister(ty, module_number);
    0
}

/// Request start. Per-request state lives with objects (released by their `free_obj`) or in
/// thread-locals cleared here, so a thread-safe PHP's long-lived threads start clean.
extern "C" fn request_startup(_ty: i32, _module_number: i32) -> i32 {
    router_identity::request_start();
    0
}

extern "C" fn info(module: *mut ModuleEntry) {
    info_table_start!();
    info_table_row!("phpclaw support", "enabled");
    info_table_row!("Version", env!("CARGO_PKG_VERSION"));
    info_table_row!("Built for", env!("PHPCLAW_BUILT_FOR_PHP"));
    // The headers the module was compiled against decide it (ext-php-rs's `php_zts`); PHP
    // refuses to load a module whose thread safety differs from its own.
    info_table_row!(
        "Thread safety",
        if ext_php_rs::PHP_ZTS {
            "enabled"
        } else {
            "disabled"
        }
    );
    info_table_row!(
        "Native lifecycle traits",
        if TRAITS_REGISTERED.load(Ordering::Acquire) {
            "registered (HasToolExecutionContract, HasCoreToolBinding)"
        } else {
            "not registered: opcache.preload is set, phpClaw's PHP traits are used"
        }
    );
    info_table_row!("Native contracts", "ToolInterface, AuthorizableToolInterface, ToolRoutingInterface, MutatingToolInterface, PerInvocationMutabilityInterface, ConfigurableToolInterface, ResettableInterface, ToolAuthorizerInterface, AutoDiscovery\\CatalogueInterface");
    info_table_row!(
        "Native tools",
        "ShellTool, HttpTool, FileReadTool, FileWriteTool, FileEditTool, CodeSearchTool, ProjectTool, ZipPackagerTool, DatabaseQueryTool, LoadSkillTool"
    );
    info_table_row!(
        "Native routing",
        "ToolRouter, ToolProfileResolver, ToolRegistry, RemoteToolActivator, ToolInput, ToolCatalogue, ToolMutability"
    );
    info_table_row!(
        "Native classes",
        "ToolRoutingMetadata, Security\\BlockedPaths, PhpClawException, ToolException, ShellDeniedException"
    );
    let abi = ini::sandbox_abi();
    info_table_row!(
        "Shell sandbox",
        format!(
            "{} (kernel Landlock ABI {}: {})",
            ini::shell_sandbox().as_str(),
            abi,
            match (ini::shell_sandbox(), abi > 0) {
                (crate::core::sandbox::Mode::Off, _) => "commands run unconfined",
                (_, true) => "commands run confined",
                (crate::core::sandbox::Mode::Required, false) => "commands are refused",
                (crate::core::sandbox::Mode::Auto, false) => "commands run with the policy alone",
            }
        )
    );
    info_table_end!();
    ini::display(module);
}

#[php_module]
pub fn get_module(module: ModuleBuilder) -> ModuleBuilder {
    module
        .startup_function(startup)
        .shutdown_function(shutdown)
        .request_startup_function(request_startup)
        .info_function(info)
}
