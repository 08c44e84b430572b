//! The native tools' PHP side, written once: the class shape every native tool shares, the
//! [`Host`] that answers the core's questions from PHP, and the mapping of core failures to
//! PHP exceptions.
//!
//! A native tool is a `final` class registered with the raw class builder. It implements the
//! contracts (ToolInterface, AuthorizableToolInterface, ToolRoutingInterface, and whatever else
//! the tool needs) and keeps its configuration in private typed properties; the only PHP value
//! it holds is its authorizer (`private ?ToolAuthorizerInterface $authorizer = null`). Each
//! `execute()` reads the configuration, converts the input once, runs
//! [`crate::core::tools::run`] and turns the answer into a string or an exception:
//! - `ToolError::Tool` → `ToolException($message)`;
//! - `ToolError::Encode` → `ToolException('Unable to encode tool response.')` whose previous is
//!   the `JsonException` PHP's json_encode would have thrown (same message and code);
//! - `ToolError::ShellDenied` → `ShellDeniedException($message)`;
//! - `ToolError::Host` → the PHP exception already pending (an authorizer that threw).
//!
//! Shared methods: `withAuthorizer()`, `requiredCapability()` ('phpclaw_use_tools'),
//! `isEligibleForRouting()` (console, else the authorizer's allows(); true when unbound),
//! static `examples()` (`[]` unless the tool has its own), `routingMetadata()` (a native
//! ToolRoutingMetadata built from the core's four lists).

/// The four identity methods every native tool answers from its core module (imported as
/// `core`, with `NAME`, `DESCRIPTION`, `input_schema()` and `ROUTING`), written once:
/// `name()`, `description()`, `inputSchema()` and `routingMetadata()`; and `with_identity()`,
/// which registers them with the module's `execute` handler on a class.
macro_rules! identity_handlers {
    () => {
        extern "C" fn name(
            ex: &mut ::ext_php_rs::zend::ExecuteData,
            rv: &mut ::ext_php_rs::types::Zval,
        ) {
            if $crate::php::zend::Frame::new(ex).check_count(0, 0) {
                *rv = $crate::php::zend::str_zval(core::NAME);
            }
        }

        extern "C" fn description(
            ex: &mut ::ext_php_rs::zend::ExecuteData,
            rv: &mut ::ext_php_rs::types::Zval,
        ) {
            if $crate::php::zend::Frame::new(ex).check_count(0, 0) {
                *rv = $crate::php::zend::str_zval(core::DESCRIPTION);
            }
        }

        extern "C" fn input_schema(
            ex: &mut ::ext_php_rs::zend::ExecuteData,
            rv: &mut ::ext_php_rs::types::Zval,
        ) {
            if $crate::php::zend::Frame::new(ex).check_count(0, 0) {
                *rv = $crate::php::values::to_zval(&core::input_schema());
            }
        }

        extern "C" fn routing(
            ex: &mut ::ext_php_rs::zend::ExecuteData,
            rv: &mut ::ext_php_rs::types::Zval,
        ) {
            if $crate::php::zend::Frame::new(ex).check_count(0, 0) {
                $crate::php::tools::routing_metadata(core::ROUTING, rv);
            }
        }

        /// The class with the module's `execute` and the four methods above registered.
        fn with_identity(
            b: ::ext_php_rs::builders::ClassBuilder,
        ) -> ::ext_php_rs::builders::ClassBuilder {
            $crate::php::tools::identity_methods(
                b,
                execute,
                [name, description, input_schema, routing],
            )
        }
    };
}
pub(crate) use identity_handlers;

pub mod blocked_paths;
pub mod catalogue;
pub mod code_search;
pub mod db_query;
mod ffi;
pub mod file_edit;
pub mod file_read;
pub mod file_write;
pub mod http;
pub mod load_skill;
pub mod mutability;
pub mod project;
mod read_log;
pub mod shell;
pub mod zip_package;

use std::sync::atomic::{AtomicU32, Ordering};

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::contracts::{
    AUTHORIZABLE, AUTHORIZER, AUTHORIZER_NAME, RESETTABLE, ROUTING, ROUTING_METADATA_NAME, TOOL,
};
use super::exceptions::{throw_tool_exception, SHELL_DENIED};
use super::routing_metadata::ROUTING_METADATA;
use super::zend::{self, Frame, Pending, Thrown};
use crate::core::lifecycle::{messages, CORE_CAPABILITY};
use crate::core::tools::{Host, ToolError};
use crate::core::value::{Array, Value};

/// PHP's working directory (per thread in a thread-safe PHP), where a tool without a
/// configured root works.
pub fn cwd() -> String {
    zend::php_cwd()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// [`cwd`] for a constructor whose root defaults to a folder of the working directory: empty
/// when a root is given, since it is then not used (and asking is a system call).
pub fn cwd_unless(root_given: bool) -> String {
    if root_given {
        String::new()
    } else {
        cwd()
    }
}

/// `__construct(?string $root = null, bool $allowHardLinks = false)` of the tools configured by
/// their root alone (phpClaw's constructor takes the root; `allowHardLinks` is ours, last): the
/// root `resolve(given, cwd)` makes is kept in the private `prop` (`cwd` is empty when a root is
/// given: `resolve` may use it only for a missing root), the flag in
/// [`ALLOW_HARD_LINKS_PROP`].
pub fn construct_root(
    ex: &mut ExecuteData,
    scope: *mut ext_php_rs::ffi::zend_class_entry,
    prop: &str,
    resolve: fn(Option<&str>, &str) -> String,
) {
    let f = Frame::new(ex);
    if !f.check_count(0, 2) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Ok(given) = file_write::nullable_string_arg(&f, 0) else {
        return;
    };
    let Some(allow) = file_write::bool_arg(&f, 1, false) else {
        return;
    };
    let root = resolve(given.as_deref(), &cwd_unless(given.is_some()));
    zend::write_property(scope, this, prop, &mut zend::str_zval(&root));
    write_allow_hard_links(scope, this, allow);
}

/// The private property holding a tool's `allowHardLinks` constructor option (ours: regular
/// files with more than one hard link are refused or skipped unless it is true).
pub const ALLOW_HARD_LINKS_PROP: &str = "allowHardLinks";

/// Keep the `allowHardLinks` option on `this`.
pub fn write_allow_hard_links(
    scope: *mut ext_php_rs::ffi::zend_class_entry,
    this: &ZendObject,
    allow: bool,
) {
    let mut zv = Zval::new();
    zv.set_bool(allow);
    zend::write_property(scope, this, ALLOW_HARD_LINKS_PROP, &mut zv);
}

/// The `allowHardLinks` option of `this`; Err when reading it threw.
pub fn allow_hard_links_of(
    scope: *mut ext_php_rs::ffi::zend_class_entry,
    this: &ZendObject,
) -> Result<bool, Pending> {
    Ok(file_write::read_prop(scope, this, ALLOW_HARD_LINKS_PROP)?
        .bool()
        .unwrap_or(false))
}

/// The constructor's trailing `bool $allowHardLinks = false`.
pub fn allow_hard_links_arg() -> Arg<'static> {
    Arg::new(ALLOW_HARD_LINKS_PROP, DataType::Bool).default("false")
}

/// Declare the `allowHardLinks` property (from a registration callback).
pub fn declare_allow_hard_links(ce: &mut ClassEntry) {
    declare_private(ce, ALLOW_HARD_LINKS_PROP, zend::MAY_BE_BOOL);
}

/// The declared properties of a final native tool read straight from their slots: the names,
/// and their offsets in the class's objects, recorded once the class is declared ([`Slots::record`]).
pub struct Slots<const N: usize> {
    names: [&'static str; N],
    offsets: [AtomicU32; N],
}

impl<const N: usize> Slots<N> {
    /// The slots of these properties (offsets unknown until recorded).
    pub const fn new(names: [&'static str; N]) -> Self {
        Slots {
            names,
            offsets: [const { AtomicU32::new(0) }; N],
        }
    }

    /// Record the offsets (from the class's registration callback, after the declarations).
    pub fn record(&self, ce: &ClassEntry) {
        for (name, offset) in self.names.iter().zip(&self.offsets) {
            offset.store(
                zend::property_offset(ce, name).unwrap_or(0),
                Ordering::Relaxed,
            );
        }
    }

    /// A property of `this` (a new reference): straight from its slot when `this` is of the
    /// class `scope` and the slot is initialised, else through the engine (which raises PHP's
    /// Error for an uninitialised typed property); Err when that threw.
    pub fn read(
        &self,
        scope: *mut ext_php_rs::ffi::zend_class_entry,
        this: &ZendObject,
        name: &str,
    ) -> Result<Zval, Pending> {
        if std::ptr::eq(this.ce, scope) {
            if let Some(i) = self.names.iter().position(|p| *p == name) {
                if let Some(v) = zend::declared_slot(this, self.offsets[i].load(Ordering::Relaxed))
                {
                    return Ok(v.shallow_clone());
                }
            }
        }
        let v = zend::read_property(scope, this, name);
        if zend::pending() {
            return Err(Pending);
        }
        Ok(v.unwrap_or_default())
    }

    /// Initialise a property of `this` with a value of its declared type: straight into its
    /// slot while uninitialised (a constructor's first write), else through the engine (which
    /// raises PHP's Error, e.g. for a readonly property written twice); Err when that threw.
    pub fn init(
        &self,
        scope: *mut ext_php_rs::ffi::zend_class_entry,
        this: &ZendObject,
        name: &str,
        value: Zval,
    ) -> Result<(), Pending> {
        let mut value = match self.names.iter().position(|p| *p == name) {
            Some(i) if std::ptr::eq(this.ce, scope) => {
                match zend::init_slot(this, self.offsets[i].load(Ordering::Relaxed), value) {
                    Ok(()) => return Ok(()),
                    Err(v) => v,
                }
            }
            _ => value,
        };
        zend::write_property(scope, this, name, &mut value);
        if zend::pending() {
            return Err(Pending);
        }
        Ok(())
    }
}

/// PHP's `(string)` of an array or object (warning, __toString or Error exactly as PHP).
pub fn php_strval(v: &Zval) -> Result<Value, Pending> {
    let s = zend::call_function("strval", &mut [zend::share(v)])?;
    Ok(Value::Str(
        s.zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
    ))
}

/// The input keys a tool reads, converted once; each is cast to string by the reference, so
/// arrays and objects go through PHP's own `(string)`.
pub fn string_inputs(ht: &ZendHashTable, keys: &[&str]) -> Result<Value, Pending> {
    let mut out = Array::with_capacity(keys.len());
    for key in keys {
        let Some(v) = zend::get(ht, key) else {
            continue;
        };
        let value = if v.object().is_some() || v.is_array() {
            php_strval(v)?
        } else {
            super::values::to_value(v).unwrap_or(Value::Null)
        };
        out.insert(*key, value);
    }
    Ok(Value::Array(out))
}

/// The capability guard every native tool runs before anything else: `true` to go on; `false`
/// when the call is answered already (the FORBIDDEN envelope is in `rv`) or an exception from the
/// authorizer is pending.
pub fn passes_guard<H: Host<Error = Pending>>(host: &mut H, subject: &str, rv: &mut Zval) -> bool {
    match crate::core::tools::guard(host, subject) {
        Ok(None) => true,
        Ok(Some(json)) => {
            *rv = zend::bytes_zval(&json);
            false
        }
        Err(e) => {
            raise(e);
            false
        }
    }
}

/// Put a tool run's outcome in `rv`: its envelope, or the exception it ends with (a pending PHP
/// exception is left as it is).
pub fn respond(result: Result<Vec<u8>, ToolError<Pending>>, rv: &mut Zval) {
    match result {
        Ok(json) => *rv = zend::bytes_zval(&json),
        Err(ToolError::Host(Pending)) => {}
        Err(e) => raise(e),
    }
}

/// The private property holding the authorizer.
pub const AUTHORIZER_PROP: &str = "authorizer";

/// phpClaw's shared read log (file_read writes it, file_edit consults it).
pub const READ_LOG_CLASS: &str = "PhpClaw\\Tools\\Concerns\\FileReadLog";

/// The PHP side of a native tool run.
pub struct PhpHost<'a> {
    /// The bound authorizer, if any.
    pub authorizer: Option<&'a ZendObject>,
}

impl PhpHost<'_> {
    fn ask(&self, method: &str, unbound: bool) -> Result<bool, Pending> {
        match self.authorizer {
            None => Ok(unbound),
            Some(a) => zend::call_method(a, method, &mut []).map(|v| v.coerce_to_bool()),
        }
    }
}

impl Host for PhpHost<'_> {
    type Error = Pending;

    fn running_in_console(&mut self) -> Result<bool, Pending> {
        self.ask("runningInConsole", false)
    }

    fn allows(&mut self) -> Result<bool, Pending> {
        self.ask("allows", true)
    }

    fn mark_read(&mut self, root: &str, path: &str) -> Result<(), Pending> {
        call_read_log(
            "markRead",
            &mut [zend::str_zval(root), zend::str_zval(path)],
        )
        .map(|_| ())
    }

    fn was_read(&mut self, root: &str, path: &str) -> Result<bool, Pending> {
        call_read_log("wasRead", &mut [zend::str_zval(root), zend::str_zval(path)])
            .map(|v| v.is_some_and(|v| v.coerce_to_bool()))
    }

    fn warn(&mut self, message: &str) {
        zend::error_log(message.as_bytes());
    }
}

/// Call a static method of phpClaw's `FileReadLog` when the class exists (autoloaded); nothing
/// when it does not. The log is phpClaw's own per-request static, so a PHP FileEditTool and a
/// native one later see the same reads, and a new request starts with an empty log.
///
/// Without phpClaw's class, the extension's own per-request log (`read_log`) answers
/// `markRead`, `wasRead` and `reset`, so the native FileReadTool and FileEditTool still share
/// one log that starts empty with every request.
pub fn call_read_log(method: &str, args: &mut [Zval]) -> Result<Option<Zval>, Pending> {
    let Some(ce) = ClassEntry::try_find(READ_LOG_CLASS) else {
        if zend::pending() {
            return Err(Pending);
        }
        return Ok(Some(native_read_log(method, args)));
    };
    let ptr = std::ptr::from_ref(ce).cast_mut().cast();
    let Some(func) = zend::find_method(ptr, method) else {
        return Ok(None);
    };
    zend::call_static(ptr, func, args).map(Some)
}

/// The extension's own read log, for `call_read_log` without phpClaw's class.
fn native_read_log(method: &str, args: &[Zval]) -> Zval {
    let text = |i: usize| {
        args.get(i)
            .and_then(Zval::zend_str)
            .map(|s| String::from_utf8_lossy(s.as_bytes()).into_owned())
            .unwrap_or_default()
    };
    let mut out = Zval::null();
    match method {
        "markRead" => read_log::mark(&text(0), &text(1)),
        "wasRead" => out.set_bool(read_log::was(&text(0), &text(1))),
        "reset" => read_log::reset(),
        _ => {}
    }
    out
}

/// Raise a core failure as the PHP exception the reference throws.
pub fn raise(e: ToolError<Pending>) {
    match e {
        ToolError::Tool(message) => throw_tool_exception(&message, None),
        ToolError::ShellDenied(message) => {
            if let Some(ce) = SHELL_DENIED.get() {
                // Our class, with Exception's own constructor: no call back into PHP needed.
                zend::throw_plain(ce, &message);
            }
        }
        ToolError::Encode(err) => {
            let previous = zend::json_exception_ce().and_then(|ce| {
                let mut code = Zval::new();
                code.set_long(err.code());
                zend::instantiate(ce, &mut [zend::str_zval(err.message()), code])
                    .ok()
                    .map(|obj| Thrown::from_object(&obj))
            });
            throw_tool_exception(messages::ENCODE_FAILED, previous);
        }
        ToolError::Host(Pending) => {}
    }
}

/// The bound authorizer of `this` (a new reference), None when unbound; Err when reading threw.
pub fn authorizer_of(
    scope: *mut ext_php_rs::ffi::zend_class_entry,
    this: &ZendObject,
) -> Result<Option<Zval>, Pending> {
    let v = zend::read_property(scope, this, AUTHORIZER_PROP);
    if zend::pending() {
        return Err(Pending);
    }
    Ok(v.filter(|v| v.object().is_some()))
}

// ---------------------------------------------------------------------------------------
// Shared method handlers.

extern "C" fn with_authorizer(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let (Some(this), Some(ce)) = (f.this(), AUTHORIZER.get()) else {
        return;
    };
    let Some(authorizer) = f.object_of(0, ce, true) else {
        return;
    };
    let mut value = authorizer.map_or_else(Zval::null, zend::object_zval);
    zend::write_property(f.scope(), this, AUTHORIZER_PROP, &mut value);
}

extern "C" fn required_capability(ex: &mut ExecuteData, rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        *rv = zend::str_zval(CORE_CAPABILITY);
    }
}

extern "C" fn is_eligible_for_routing(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = f.this() else { return };
    let Ok(auth) = authorizer_of(f.scope(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    let answer = match host.running_in_console() {
        Ok(true) => Ok(true),
        Ok(false) => host.allows(),
        Err(p) => Err(p),
    };
    if let Ok(b) = answer {
        rv.set_bool(b);
    }
}

extern "C" fn no_examples(ex: &mut ExecuteData, rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        *rv = Zval::new_array();
    }
}

/// A list of strings as a PHP array.
pub fn string_list(items: &[&str]) -> Zval {
    zend::build_array(items.len() as u32, |ht| {
        for s in items {
            zend::push(ht, zend::str_zval(s));
        }
    })
}

/// A native ToolRoutingMetadata from domains, tags, intents, examples.
pub fn routing_metadata(lists: [&[&str]; 4], rv: &mut Zval) {
    let Some(ce) = ROUTING_METADATA.get() else {
        return;
    };
    let mut args = lists.map(string_list);
    if let Ok(obj) = zend::instantiate(ce, &mut args) {
        *rv = zend::owned_object_zval(obj);
    }
}

fn iface(slot: &'static super::zend::ClassSlot) -> &'static ClassEntry {
    // The contracts register before any tool; startup aborts if they failed.
    slot.get()
        .expect("contracts are registered before the tools")
}

fn tool_ce() -> &'static ClassEntry {
    iface(&TOOL)
}
fn authorizable_ce() -> &'static ClassEntry {
    iface(&AUTHORIZABLE)
}
fn routing_ce() -> &'static ClassEntry {
    iface(&ROUTING)
}
fn resettable_ce() -> &'static ClassEntry {
    iface(&RESETTABLE)
}

/// Optional contracts a tool implements besides the three every native tool has.
#[derive(Clone, Copy, Default)]
pub struct Extras {
    /// ResettableInterface.
    pub resettable: bool,
}

/// A final tool class implementing the contracts, with the shared methods; `examples` false
/// when the tool declares its own static examples().
pub fn tool_class(name: &str, extras: Extras, shared_examples: bool) -> ClassBuilder {
    let mut b = ClassBuilder::new(name)
        .flags(ClassFlags::Final)
        .implements((
            authorizable_ce,
            "PhpClaw\\Tools\\Contracts\\AuthorizableToolInterface",
        ));
    if extras.resettable {
        b = b.implements((
            resettable_ce,
            "PhpClaw\\Tools\\Contracts\\ResettableInterface",
        ));
    }
    b = b
        .implements((tool_ce, "PhpClaw\\Tools\\Contracts\\ToolInterface"))
        .implements((
            routing_ce,
            "PhpClaw\\Tools\\Contracts\\ToolRoutingInterface",
        ))
        .method(
            FunctionBuilder::new("withAuthorizer", with_authorizer)
                .arg(Arg::new("authorizer", DataType::object(AUTHORIZER_NAME)).allow_null())
                .returns(DataType::Void, false, false),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("requiredCapability", required_capability).returns(
                DataType::String,
                false,
                false,
            ),
            MethodFlags::Public,
        )
        .method(
            FunctionBuilder::new("isEligibleForRouting", is_eligible_for_routing).returns(
                DataType::Bool,
                false,
                false,
            ),
            MethodFlags::Public,
        );
    if shared_examples {
        b = b.method(
            FunctionBuilder::new("examples", no_examples).returns(DataType::Array, false, false),
            MethodFlags::Public | MethodFlags::Static,
        );
    }
    b
}

/// The routingMetadata() declaration (the handler is the tool's own).
/// A method handler as the engine calls it.
pub type Handler = extern "C" fn(&mut ExecuteData, &mut Zval);

/// Register what every native tool has, with its handlers: `execute(array $input): string`,
/// `routingMetadata()`, `name()`, `description()` and `inputSchema()`.
pub fn identity_methods(
    b: ClassBuilder,
    execute: Handler,
    [name, description, input_schema, routing]: [Handler; 4],
) -> ClassBuilder {
    let mut b = b
        .method(
            FunctionBuilder::new("execute", execute)
                .arg(Arg::new("input", DataType::Array))
                .returns(DataType::String, false, false),
            MethodFlags::Public,
        )
        .method(routing_method(routing), MethodFlags::Public);
    for (method, handler, ty) in [
        ("name", name, DataType::String),
        ("description", description, DataType::String),
        ("inputSchema", input_schema, DataType::Array),
    ] {
        b = b.method(
            FunctionBuilder::new(method, handler).returns(ty, false, false),
            MethodFlags::Public,
        );
    }
    b
}

pub fn routing_method(
    handler: extern "C" fn(&mut ExecuteData, &mut Zval),
) -> FunctionBuilder<'static> {
    FunctionBuilder::new("routingMetadata", handler).returns(
        DataType::object(ROUTING_METADATA_NAME),
        false,
        false,
    )
}

/// Declare a private property of the given `MAY_BE_*` type mask, uninitialised, on a tool class
/// (from its registration callback).
pub fn declare_private(ce: &mut ClassEntry, name: &str, mask: u32) {
    zend::declare_typed_property(
        ce,
        name,
        MethodFlags::Private.bits(),
        zend::mask_type(mask),
        None,
    );
}

/// Declare the authorizer property on a tool class (from its registration callback).
pub fn declare_authorizer(ce: &mut ClassEntry) {
    zend::declare_typed_property(
        ce,
        AUTHORIZER_PROP,
        MethodFlags::Private.bits(),
        zend::class_type(AUTHORIZER_NAME, true),
        Some(Zval::null()),
    );
}

/// Register every native tool-layer class, after the contracts and exceptions.
pub fn register() -> ext_php_rs::error::Result<()> {
    blocked_paths::register()?;
    mutability::register()?;
    file_read::register()?;
    file_write::register()?;
    file_edit::register()?;
    http::register()?;
    zip_package::register()?;
    db_query::register()?;
    load_skill::register()?;
    catalogue::register()?;
    code_search::register()?;
    project::register()?;
    shell::register()?;
    Ok(())
}
