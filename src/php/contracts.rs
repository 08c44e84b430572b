//! The eight `PhpClaw\Tools\Contracts` interfaces and `PhpClaw\AutoDiscovery\CatalogueInterface`, with phpClaw's exact method signatures so
//! that existing PHP tools implementing them keep compiling against the native declarations.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, DataType, MethodFlags};

use super::zend::ClassSlot;
use crate::core::lifecycle::CORE_CAPABILITY;

/// Namespace of the contracts.
pub const NS: &str = "PhpClaw\\Tools\\Contracts\\";

pub static TOOL: ClassSlot = ClassSlot::new();
pub static AUTHORIZABLE: ClassSlot = ClassSlot::new();
pub static ROUTING: ClassSlot = ClassSlot::new();
pub static MUTATING: ClassSlot = ClassSlot::new();
pub static PER_INVOCATION: ClassSlot = ClassSlot::new();
pub static CONFIGURABLE: ClassSlot = ClassSlot::new();
pub static RESETTABLE: ClassSlot = ClassSlot::new();
pub static AUTHORIZER: ClassSlot = ClassSlot::new();
pub static CATALOGUE_INTERFACE: ClassSlot = ClassSlot::new();

/// `PhpClaw\AutoDiscovery\CatalogueInterface`: phpClaw's contract for its six catalogues. The
/// native `ToolCatalogue` implements it, and it exists from module start, so it is declared here
/// (phpClaw's other catalogues, still PHP, implement this declaration in its place).
pub const CATALOGUE_INTERFACE_NAME: &str = "PhpClaw\\AutoDiscovery\\CatalogueInterface";

/// Fully qualified class names, for type declarations.
pub const AUTHORIZER_NAME: &str = "PhpClaw\\Tools\\Contracts\\ToolAuthorizerInterface";
pub const ROUTING_METADATA_NAME: &str = "PhpClaw\\Tools\\ToolRoutingMetadata";

fn abstract_method(name: &str) -> FunctionBuilder<'static> {
    FunctionBuilder::new_abstract(name)
}

fn public_abstract() -> MethodFlags {
    MethodFlags::Public | MethodFlags::Abstract
}

fn interface(name: &str) -> ClassBuilder {
    ClassBuilder::new(format!("{NS}{name}")).flags(ClassFlags::Interface)
}

/// Register the interfaces, parents first.
pub fn register() -> ext_php_rs::error::Result<()> {
    interface("ToolInterface")
        .method(
            abstract_method("name").returns(DataType::String, false, false),
            public_abstract(),
        )
        .method(
            abstract_method("description").returns(DataType::String, false, false),
            public_abstract(),
        )
        .method(
            abstract_method("inputSchema").returns(DataType::Array, false, false),
            public_abstract(),
        )
        .method(
            abstract_method("execute")
                .arg(Arg::new("input", DataType::Array))
                .returns(DataType::String, false, false),
            public_abstract(),
        )
        .registration(|ce, _| TOOL.set(ce))
        .register()?;

    interface("ToolAuthorizerInterface")
        .constant("CAPABILITY", CORE_CAPABILITY, &[], ConstantFlags::Public)?
        .method(
            abstract_method("allows").returns(DataType::Bool, false, false),
            public_abstract(),
        )
        .method(
            abstract_method("runningInConsole").returns(DataType::Bool, false, false),
            public_abstract(),
        )
        .registration(|ce, _| AUTHORIZER.set(ce))
        .register()?;

    interface("AuthorizableToolInterface")
        .method(
            abstract_method("withAuthorizer")
                .arg(Arg::new("authorizer", DataType::object(AUTHORIZER_NAME)).allow_null())
                .returns(DataType::Void, false, false),
            public_abstract(),
        )
        .registration(|ce, _| AUTHORIZABLE.set(ce))
        .register()?;

    interface("ToolRoutingInterface")
        .method(
            abstract_method("isEligibleForRouting").returns(DataType::Bool, false, false),
            public_abstract(),
        )
        .method(
            abstract_method("routingMetadata").returns(
                DataType::object(ROUTING_METADATA_NAME),
                false,
                false,
            ),
            public_abstract(),
        )
        .registration(|ce, _| ROUTING.set(ce))
        .register()?;

    interface("MutatingToolInterface")
        .registration(|ce, _| MUTATING.set(ce))
        .register()?;

    interface("PerInvocationMutabilityInterface")
        .method(
            abstract_method("isMutating")
                .arg(Arg::new("input", DataType::Array))
                .returns(DataType::Bool, false, false),
            public_abstract(),
        )
        .registration(|ce, _| PER_INVOCATION.set(ce))
        .register()?;

    interface("ConfigurableToolInterface")
        .implements((tool_ce, "PhpClaw\\Tools\\Contracts\\ToolInterface"))
        .method(
            abstract_method("settingsFields").returns(DataType::Array, false, false),
            public_abstract() | MethodFlags::Static,
        )
        .method(
            abstract_method("configure")
                .arg(Arg::new("config", DataType::Array))
                .returns(DataType::Void, false, false),
            public_abstract(),
        )
        .method(
            abstract_method("isConfigured").returns(DataType::Bool, false, false),
            public_abstract(),
        )
        .registration(|ce, _| CONFIGURABLE.set(ce))
        .register()?;

    interface("ResettableInterface")
        .method(
            abstract_method("reset").returns(DataType::Void, false, false),
            public_abstract(),
        )
        .registration(|ce, _| RESETTABLE.set(ce))
        .register()?;

    ClassBuilder::new(CATALOGUE_INTERFACE_NAME)
        .flags(ClassFlags::Interface)
        .method(
            abstract_method("boot").returns(DataType::Void, false, false),
            public_abstract() | MethodFlags::Static,
        )
        .method(
            abstract_method("activateFromSettings")
                .arg(Arg::new("settings", DataType::Array))
                .returns(DataType::Array, false, false),
            public_abstract() | MethodFlags::Static,
        )
        .registration(|ce, _| CATALOGUE_INTERFACE.set(ce))
        .register()?;

    Ok(())
}

/// The class entry of `CatalogueInterface`, for `implements`.
pub fn catalogue_interface_ce() -> &'static ext_php_rs::zend::ClassEntry {
    // Registered with the contracts, before any class that implements it; startup aborts if
    // that failed.
    CATALOGUE_INTERFACE
        .get()
        .expect("CatalogueInterface is registered with the contracts")
}

fn tool_ce() -> &'static ext_php_rs::zend::ClassEntry {
    // Registered just before ConfigurableToolInterface; startup aborts if that failed.
    TOOL.get().expect("ToolInterface is registered first")
}
