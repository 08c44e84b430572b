//! `PhpClaw\Tools\ToolCatalogue`, native: the built-in table of `core::tools::catalogue`, merged
//! with phpClaw's discovery cache (`DiscoveryCache::load()['tools']`) when that class exists
//! (autoloaded), so a site's own `#[Tool]` classes are listed and created as in phpClaw; custom
//! registrations in a per-request private static (`private static ?array $custom = null`, freed
//! by the engine when the request ends), and tools created by class name through PHP
//! (`ReflectionClass::newInstanceArgs()` with named arguments), so native classes are used where
//! they exist and phpClaw's PHP classes otherwise.

use std::ptr;

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::ffi::{self, zend_class_entry, zend_string, zval};
use ext_php_rs::flags::{ClassFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::super::contracts::{
    catalogue_interface_ce, AUTHORIZABLE, AUTHORIZER, CATALOGUE_INTERFACE_NAME,
};
use super::super::zend::{self, ClassSlot, Frame, Pending};
use crate::core::tools::catalogue;

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\ToolCatalogue";

const TOOL_INTERFACE: &str = "PhpClaw\\Tools\\Contracts\\ToolInterface";
const COMPOSER_EXTRAS: &str = "PhpClaw\\AutoDiscovery\\ComposerExtras";
const DISCOVERY_CACHE: &str = "PhpClaw\\AutoDiscovery\\DiscoveryCache";
const P_CUSTOM: &str = "custom";
use super::super::zend::{MAY_BE_ARRAY, MAY_BE_NULL};

pub static CATALOGUE: ClassSlot = ClassSlot::new();

extern "C" {
    fn zend_read_static_property_ex(
        scope: *mut zend_class_entry,
        name: *mut zend_string,
        silent: bool,
    ) -> *mut zval;
    fn zend_update_static_property_ex(
        scope: *mut zend_class_entry,
        name: *mut zend_string,
        value: *mut zval,
    ) -> ffi::zend_result;
}

/// The custom registrations of this request.
fn custom() -> Vec<Vec<u8>> {
    let ce = CATALOGUE.ptr();
    let mut out = Vec::new();
    if ce.is_null() {
        return out;
    }
    let name = ZendStr::new(P_CUSTOM, false);
    // SAFETY: a registered class declaring the static; read with the class as scope.
    let zv =
        unsafe { zend_read_static_property_ex(ce, ptr::from_ref(&*name).cast_mut().cast(), true) };
    if zv.is_null() {
        return out;
    }
    // SAFETY: a live slot of this request.
    let zv: &Zval = unsafe { &*zv.cast::<Zval>() };
    if let Some(ht) = zv.array() {
        zend::for_each_entry(ht, |_, v| {
            if let Some(s) = v.zend_str() {
                out.push(s.as_bytes().to_vec());
            }
            true
        });
    }
    out
}

fn set_custom(list: Option<&[Vec<u8>]>) {
    let ce = CATALOGUE.ptr();
    if ce.is_null() {
        return;
    }
    let mut value = match list {
        None => Zval::null(),
        Some(l) => zend::build_array(l.len() as u32, |ht| {
            for c in l {
                zend::push(ht, zend::bytes_zval(c));
            }
        }),
    };
    let name = ZendStr::new(P_CUSTOM, false);
    // SAFETY: the engine adds its own reference to the value; ours is dropped after.
    unsafe {
        zend_update_static_property_ex(
            ce,
            ptr::from_ref(&*name).cast_mut().cast(),
            ptr::from_mut(&mut value).cast(),
        );
    }
}

fn truthy(name: &str, args: &mut [Zval]) -> Result<bool, Pending> {
    zend::call_function(name, args).map(|v| v.coerce_to_bool())
}

/// `class_exists($class)` (autoloading) and `is_a($class, ToolInterface, true)`.
fn is_tool_class(class: &[u8]) -> Result<bool, Pending> {
    if !truthy("class_exists", &mut [zend::bytes_zval(class)])? {
        return Ok(false);
    }
    let mut yes = Zval::new();
    yes.set_bool(true);
    truthy(
        "is_a",
        &mut [zend::bytes_zval(class), zend::str_zval(TOOL_INTERFACE), yes],
    )
}

/// phpClaw's discovery cache, `DiscoveryCache::load()['tools']` (class => `#[Tool]` data);
/// empty without the class. Entries whose key or data is not of that shape are skipped.
fn discovery() -> Result<Vec<catalogue::Discovered>, Pending> {
    if !truthy("class_exists", &mut [zend::str_zval(DISCOVERY_CACHE)])? {
        return Ok(Vec::new());
    }
    let loaded = zend::call_function(&format!("{DISCOVERY_CACHE}::load"), &mut [])?;
    let mut out = Vec::new();
    let Some(tools) = loaded
        .array()
        .and_then(|a| zend::get(a, "tools"))
        .and_then(Zval::array)
    else {
        return Ok(out);
    };
    zend::for_each_entry(tools, |key, attr| {
        let zend::Key::Str(class) = key else {
            return true;
        };
        let attr = attr.array();
        let default = attr
            .and_then(|a| zend::get(a, "default"))
            .is_some_and(Zval::coerce_to_bool);
        // phpClaw passes `needsConfig`'s keys (argument name => type hint) as named arguments.
        let needs_config = attr
            .and_then(|a| zend::get(a, "needsConfig"))
            .and_then(Zval::array)
            .map(|n| {
                let mut names = Vec::new();
                zend::for_each_entry(n, |k, _| {
                    if let zend::Key::Str(name) = k {
                        names.push(name.to_vec());
                    }
                    true
                });
                names
            });
        out.push(catalogue::Discovered {
            class: class.to_vec(),
            default,
            needs_config,
        });
        true
    });
    Ok(out)
}

fn discovered() -> Result<Vec<Vec<u8>>, Pending> {
    let mut out = Vec::new();
    for class in catalogue::discovered_classes(&discovery()?) {
        if is_tool_class(&class)? {
            out.push(class);
        }
    }
    Ok(out)
}

fn all() -> Result<Vec<Vec<u8>>, Pending> {
    let mut merged: Vec<Vec<u8>> = Vec::new();
    for c in discovered()?.into_iter().chain(custom()) {
        if !merged.contains(&c) {
            merged.push(c);
        }
    }
    Ok(merged)
}

fn list_zval(items: &[Vec<u8>]) -> Zval {
    zend::build_array(items.len() as u32, |ht| {
        for c in items {
            zend::push(ht, zend::bytes_zval(c));
        }
    })
}

fn register_class(class: Vec<u8>) {
    let mut list = custom();
    if !list.contains(&class) {
        list.push(class);
        set_custom(Some(&list));
    }
}

extern "C" fn all_h(ex: &mut ExecuteData, rv: &mut Zval) {
    if !Frame::new(ex).check_count(0, 0) {
        return;
    }
    if let Ok(list) = all() {
        *rv = list_zval(&list);
    }
}

extern "C" fn has_h(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(class) = f.string(0) else { return };
    if let Ok(list) = all() {
        rv.set_bool(list.contains(&class));
    }
}

extern "C" fn register_h(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(class) = f.string(0) else { return };
    register_class(class);
}

extern "C" fn reset_h(ex: &mut ExecuteData, _rv: &mut Zval) {
    if Frame::new(ex).check_count(0, 0) {
        set_custom(None);
    }
}

extern "C" fn boot_h(ex: &mut ExecuteData, _rv: &mut Zval) {
    if !Frame::new(ex).check_count(0, 0) {
        return;
    }
    let Ok(exists) = truthy("class_exists", &mut [zend::str_zval(COMPOSER_EXTRAS)]) else {
        return;
    };
    if !exists {
        return;
    }
    let Ok(tools) = zend::call_function(&format!("{COMPOSER_EXTRAS}::tools"), &mut []) else {
        return;
    };
    let Some(ht) = tools.array() else { return };
    let mut classes = Vec::new();
    zend::for_each_entry(ht, |_, info| {
        if let Some(c) = info
            .array()
            .and_then(|i| zend::get(i, "class"))
            .and_then(Zval::zend_str)
        {
            classes.push(c.as_bytes().to_vec());
        }
        true
    });
    for class in classes {
        match is_tool_class(&class) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(Pending) => return,
        }
        let Ok(list) = all() else { return };
        if !list.contains(&class) {
            register_class(class);
        }
    }
}

fn activate(enabled: Option<&ZendHashTable>) -> Result<Vec<Vec<u8>>, Pending> {
    let candidates: Vec<Vec<u8>> = match enabled {
        None => all()?,
        Some(ht) => {
            let mut v = Vec::new();
            zend::for_each_entry(ht, |_, c| {
                // Non-strings are skipped (and are never class names).
                v.push(c.zend_str().map(|s| s.as_bytes().to_vec()));
                true
            });
            v.into_iter().flatten().collect()
        }
    };
    let mut out = Vec::new();
    for c in candidates {
        if is_tool_class(&c)? {
            out.push(c);
        }
    }
    Ok(out)
}

extern "C" fn activate_enabled_h(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 1) {
        return;
    }
    let enabled = match f.arg(0) {
        None => None,
        Some(v) if v.is_null() => None,
        Some(_) => match f.array(0).and_then(Zval::array) {
            Some(ht) => Some(ht),
            None => return,
        },
    };
    if let Ok(list) = activate(enabled) {
        *rv = list_zval(&list);
    }
}

extern "C" fn activate_from_settings_h(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(settings) = f.array(0).and_then(Zval::array) else {
        return;
    };
    let value = zend::get(settings, "tools_enabled").filter(|v| !v.is_null());
    let enabled = match value {
        None => None,
        Some(v) => match v.array() {
            Some(ht) => Some(ht),
            None => {
                *rv = Zval::new_array();
                return;
            }
        },
    };
    if let Ok(list) = activate(enabled) {
        *rv = list_zval(&list);
    }
}

/// `new $class(...$args)` with named arguments, through ReflectionClass.
fn instantiate(class: &[u8], args: Zval) -> Result<Zval, Pending> {
    let Some(rc) = ClassEntry::try_find("ReflectionClass") else {
        zend::throw_error("Class \"ReflectionClass\" not found");
        return Err(Pending);
    };
    let reflection = zend::instantiate(rc, &mut [zend::bytes_zval(class)])?;
    zend::call_method(&reflection, "newInstanceArgs", &mut [args])
}

extern "C" fn instantiate_defaults_h(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 1) {
        return;
    }
    let config = match f.arg(0) {
        None => None,
        Some(_) => match f.array(0).and_then(Zval::array) {
            Some(ht) => Some(ht),
            None => return,
        },
    };
    let authorizer = config
        .and_then(|c| zend::get(c, "authorizer"))
        .and_then(Zval::object)
        .filter(|o| AUTHORIZER.get().is_some_and(|ce| o.instance_of(ce)));
    let Ok(found) = discovery() else { return };
    let mut out = Vec::new();
    for e in catalogue::plan_defaults(&found) {
        match truthy("class_exists", &mut [zend::bytes_zval(&e.class)]) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(Pending) => return,
        }
        let args = zend::build_array(e.needs_config.len() as u32, |ht| {
            if let Some(c) = config {
                for name in &e.needs_config {
                    if let Some(v) = zend::get_bytes(c, name) {
                        zend::set(ht, zend::Key::Str(name), zend::share(v));
                    }
                }
            }
        });
        let Ok(instance) = instantiate(&e.class, args) else {
            return;
        };
        if let (Some(obj), Some(auth), Some(ce)) =
            (instance.object(), authorizer, AUTHORIZABLE.get())
        {
            if obj.instance_of(ce)
                && zend::call_method(obj, "withAuthorizer", &mut [zend::object_zval(auth)]).is_err()
            {
                return;
            }
        }
        out.push(instance);
    }
    *rv = zend::build_array(out.len() as u32, |ht| {
        for v in out {
            zend::push(ht, v);
        }
    });
}

fn static_method(
    name: &str,
    handler: extern "C" fn(&mut ExecuteData, &mut Zval),
) -> FunctionBuilder<'static> {
    FunctionBuilder::new(name, handler)
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let st = MethodFlags::Public | MethodFlags::Static;
    ClassBuilder::new(NAME)
        .flags(ClassFlags::Final)
        .implements((catalogue_interface_ce, CATALOGUE_INTERFACE_NAME))
        .method(
            static_method("all", all_h).returns(DataType::Array, false, false),
            st,
        )
        .method(
            static_method("has", has_h)
                .arg(Arg::new("class", DataType::String))
                .returns(DataType::Bool, false, false),
            st,
        )
        .method(
            static_method("register", register_h)
                .arg(Arg::new("class", DataType::String))
                .returns(DataType::Void, false, false),
            st,
        )
        .method(
            static_method("boot", boot_h).returns(DataType::Void, false, false),
            st,
        )
        .method(
            static_method("activateEnabled", activate_enabled_h)
                .arg(
                    Arg::new("enabledClasses", DataType::Array)
                        .allow_null()
                        .default("null"),
                )
                .required_args(0)
                .returns(DataType::Array, false, false),
            st,
        )
        .method(
            static_method("activateFromSettings", activate_from_settings_h)
                .arg(Arg::new("settings", DataType::Array))
                .returns(DataType::Array, false, false),
            st,
        )
        .method(
            static_method("reset", reset_h).returns(DataType::Void, false, false),
            st,
        )
        .method(
            static_method("instantiateDefaults", instantiate_defaults_h)
                .arg(Arg::new("config", DataType::Array).default("[]"))
                .required_args(0)
                .returns(DataType::Array, false, false),
            st,
        )
        .registration(|ce, _| {
            zend::declare_typed_property(
                ce,
                P_CUSTOM,
                (MethodFlags::Private | MethodFlags::Static).bits(),
                zend::mask_type(MAY_BE_ARRAY | MAY_BE_NULL),
                Some(Zval::null()),
            );
            CATALOGUE.set(ce);
        })
        .register()
}
