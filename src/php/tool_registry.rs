//! `PhpClaw\Tools\ToolRegistry`: the registered tools, keyed by name, and their schemas shaped
//! per provider (core `routing::schemas`). A final class with phpClaw's private properties
//! (`tools`, `schemasCache`, readonly `authorizer`); the tools are PHP objects, called through
//! the engine. While PHP code runs (a tool's method, a destructor), the registry works on a
//! shared snapshot of its arrays, so a re-entrant call cannot pull an array from under it.

use std::sync::atomic::{AtomicU32, Ordering};

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ExecuteData;

use super::contracts::{self, AUTHORIZER_NAME};
use super::registry_zend::{self as rz, Default};
use super::zend::{self, ClassSlot, Frame, Key, Pending};
use crate::core::routing::schemas::{self, Entry, Group, Properties, ToolFormat};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\ToolRegistry";
/// `ToolInterface`, for type declarations and messages.
pub const TOOL_INTERFACE_NAME: &str = "PhpClaw\\Tools\\Contracts\\ToolInterface";

pub static REGISTRY: ClassSlot = ClassSlot::new();
static TOOLS: AtomicU32 = AtomicU32::new(0);
static SCHEMAS_CACHE: AtomicU32 = AtomicU32::new(0);
static AUTHORIZER: AtomicU32 = AtomicU32::new(0);

fn offset(slot: &AtomicU32) -> u32 {
    slot.load(Ordering::Acquire)
}

/// The registered tools array (an empty one when uninitialised).
fn tools_of(this: &ZendObject) -> Option<&ZendHashTable> {
    rz::property(this, offset(&TOOLS)).and_then(Zval::array)
}

/// A shared copy of the tools array's values: safe to hold while PHP code runs.
fn snapshot(this: &ZendObject) -> Vec<Zval> {
    let mut out = Vec::new();
    if let Some(ht) = tools_of(this) {
        zend::for_each_entry(ht, |_, v| {
            out.push(zend::share(v));
            true
        });
    }
    out
}

fn class_of(obj: &ZendObject) -> String {
    obj.get_class_name().unwrap_or_default()
}

/// Call a method without arguments that must return a string; the string zval.
pub fn call_string(obj: &ZendObject, method: &str) -> Result<Zval, Pending> {
    let v = match method {
        "name" => rz::call0_interned(obj, &M_NAME, "name")?,
        "description" => rz::call0_interned(obj, &M_DESCRIPTION, "description")?,
        _ => rz::call0(obj, &method.to_ascii_lowercase())?,
    };
    if v.is_string() {
        return Ok(v);
    }
    rz::throw_type_error(&format!(
        "{}::{method}(): Return value must be of type string, {} returned",
        class_of(obj),
        rz::type_name(&v)
    ));
    Err(Pending)
}

/// The bytes of a string zval (empty for anything else).
pub fn bytes_of(zv: &Zval) -> &[u8] {
    zv.zend_str().map_or(&[], |s| s.as_bytes())
}

/// Array keys of the schema shapes, interned at startup.
static K_TYPE: rz::Interned = rz::Interned::new();
static K_FUNCTION: rz::Interned = rz::Interned::new();
static K_NAME: rz::Interned = rz::Interned::new();
static K_DESCRIPTION: rz::Interned = rz::Interned::new();
static K_PARAMETERS: rz::Interned = rz::Interned::new();
static K_INPUT_SCHEMA: rz::Interned = rz::Interned::new();
static V_FUNCTION: rz::Interned = rz::Interned::new();
/// Lower-case method names, interned at startup.
static M_NAME: rz::Interned = rz::Interned::new();
static M_DESCRIPTION: rz::Interned = rz::Interned::new();
static M_INPUT_SCHEMA: rz::Interned = rz::Interned::new();
static M_ELIGIBLE: rz::Interned = rz::Interned::new();

/// The tool objects of an array argument, or a pending TypeError naming the first element
/// that is not a ToolInterface.
pub fn tool_objects(ht: &ZendHashTable, function: &str, param: &str) -> Result<Vec<Zval>, Pending> {
    let tool_ce = contracts::TOOL.get().ok_or(Pending)?;
    let mut out = Vec::with_capacity(ht.len());
    let mut bad: Option<String> = None;
    zend::for_each_entry(ht, |_, v| {
        match v.object() {
            Some(o) if o.instance_of(tool_ce) => out.push(zend::share(v)),
            _ => {
                bad = Some(rz::type_name(v));
                return false;
            }
        }
        true
    });
    if let Some(given) = bad {
        rz::throw_type_error(&format!(
            "{function}(): Argument #{param} must contain only {TOOL_INTERFACE_NAME} objects, {given} given"
        ));
        return Err(Pending);
    }
    Ok(out)
}

/// The text PHP interpolates for a scalar (arrays read `Array`).
fn php_text(v: &Zval) -> Vec<u8> {
    if let Some(s) = v.zend_str() {
        return s.as_bytes().to_vec();
    }
    if v.is_array() {
        return b"Array".to_vec();
    }
    if v.is_null() {
        return Vec::new();
    }
    v.coerce_to_string()
        .map(String::into_bytes)
        .unwrap_or_default()
}

fn entry(v: &Zval) -> Entry {
    match v.zend_str() {
        Some(s) => Entry::Str(s.as_bytes().to_vec()),
        None => Entry::Other(php_text(v)),
    }
}

fn key_text(k: Key<'_>) -> Vec<u8> {
    match k {
        Key::Int(i) => i.to_string().into_bytes(),
        Key::Str(b) => b.to_vec(),
    }
}

extern "C" fn construct(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 1) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let Some(auth_ce) = contracts::AUTHORIZER.get() else {
        return;
    };
    let authorizer = if f.num_args() == 0 {
        None
    } else {
        match f.object_of(0, auth_ce, true) {
            Some(a) => a,
            None => return,
        }
    };
    let mut value = authorizer.map_or_else(Zval::null, rz::object_ref_zval);
    zend::write_property(REGISTRY.ptr(), this, "authorizer", &mut value);
}

extern "C" fn register(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 3) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let Some(tools) = f.array(0).and_then(Zval::array) else {
        return;
    };
    let mut optional = [None, None];
    for (i, slot) in optional.iter_mut().enumerate() {
        if f.num_args() > i + 1 {
            match f.array(i + 1).and_then(Zval::array) {
                Some(a) => *slot = Some(a),
                None => return,
            }
        }
    }
    let [deny, groups] = optional;
    let Ok(objects) = tool_objects(tools, &format!("{NAME}::register"), "1 ($tools)") else {
        return;
    };
    let mut deny_entries = Vec::new();
    if let Some(d) = deny {
        zend::for_each_entry(d, |_, v| {
            deny_entries.push(entry(v));
            true
        });
    }
    let mut group_defs = Vec::new();
    if let Some(g) = groups {
        zend::for_each_entry(g, |k, v| {
            let members = v.array().map(|m| {
                let mut list = Vec::with_capacity(m.len());
                zend::for_each_entry(m, |_, x| {
                    list.push(entry(x));
                    true
                });
                list
            });
            group_defs.push(Group {
                name: key_text(k),
                members,
            });
            true
        });
    }
    let mut names = Vec::with_capacity(objects.len());
    for obj in &objects {
        let Some(o) = obj.object() else { return };
        match call_string(o, "name") {
            Ok(n) => names.push(n),
            Err(Pending) => return,
        }
    }
    let name_refs: Vec<&[u8]> = names.iter().map(bytes_of).collect();
    let plan = schemas::plan_register(&name_refs, &deny_entries, &group_defs);
    for w in &plan.warnings {
        zend::error_log(w);
    }
    let authorizer = rz::property(this, offset(&AUTHORIZER))
        .filter(|a| a.is_object())
        .map(zend::share);
    let authorizable = contracts::AUTHORIZABLE.get();
    let mut graveyard: Vec<Zval> = Vec::new();
    for i in plan.keep {
        let tool = &objects[i];
        let Some(o) = tool.object() else { continue };
        if let (Some(auth), Some(ce)) = (&authorizer, authorizable) {
            if o.instance_of(ce) {
                let mut args = [zend::share(auth)];
                if zend::call_method(o, "withAuthorizer", &mut args).is_err() {
                    return;
                }
            }
        }
        let ht = rz::array_property_mut(rz::raw(this), offset(&TOOLS), &mut graveyard);
        if let Some(old) = rz::replace_zstr(ht, &names[i], zend::share(tool)) {
            graveyard.push(old);
        }
    }
    graveyard.push(rz::swap_property(
        rz::raw(this),
        offset(&SCHEMAS_CACHE),
        Zval::new_array(),
    ));
    drop(graveyard);
}

extern "C" fn has(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let Some(name) = f.string(0) else { return };
    let found = tools_of(this).is_some_and(|ht| rz::find(ht, &name).is_some_and(|v| !v.is_null()));
    rv.set_bool(found);
}

extern "C" fn get(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let Some(name) = f.string(0) else { return };
    if let Some(tool) = tools_of(this).and_then(|ht| rz::find(ht, &name)) {
        if tool.is_object() {
            *rv = zend::share(tool);
            return;
        }
    }
    let shown = match zend::canonical_int(&name) {
        Some(i) => i.to_string(),
        None => format!("\"{}\"", String::from_utf8_lossy(&name)),
    };
    rz::warning(&format!("Undefined array key {shown}"));
    if zend::pending() {
        return;
    }
    rz::throw_type_error(&format!(
        "{NAME}::get(): Return value must be of type {TOOL_INTERFACE_NAME}, null returned"
    ));
}

extern "C" fn all(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let values = snapshot(this);
    *rv = zend::build_array(values.len() as u32, |ht| {
        for v in values {
            zend::push(ht, v);
        }
    });
}

extern "C" fn names(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let mut keys = Vec::new();
    if let Some(ht) = tools_of(this) {
        zend::for_each_entry(ht, |k, _| {
            keys.push(match k {
                Key::Int(i) => {
                    let mut z = Zval::new();
                    z.set_long(i);
                    z
                }
                Key::Str(b) => zend::bytes_zval(b),
            });
            true
        });
    }
    *rv = zend::build_array(keys.len() as u32, |ht| {
        for k in keys {
            zend::push(ht, k);
        }
    });
}

extern "C" fn count(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    rv.set_long(tools_of(this).map_or(0, |ht| ht.len() as i64));
}

extern "C" fn reset_run_state(ex: &mut ExecuteData, _rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let Some(resettable) = contracts::RESETTABLE.get() else {
        return;
    };
    for tool in snapshot(this) {
        if let Some(o) = tool.object() {
            if o.instance_of(resettable) && rz::call0(o, "reset").is_err() {
                return;
            }
        }
    }
}

/// The schema with an empty `properties` array swapped for an empty object.
fn normalize_schema(schema: Zval) -> Zval {
    let Some(ht) = schema.array() else {
        return schema;
    };
    let props = match zend::get(ht, "properties") {
        None => Properties::Absent,
        Some(v) => match v.array() {
            Some(a) => Properties::Array(a.len()),
            None => Properties::Other,
        },
    };
    if !schemas::needs_empty_object(props) {
        return schema;
    }
    zend::build_array(ht.len() as u32, |out| {
        zend::for_each_entry(ht, |k, v| {
            let value = if k == Key::Str(b"properties") {
                zend::owned_object_zval(ZendObject::new_stdclass())
            } else {
                zend::share(v)
            };
            zend::set(out, k, value);
            true
        });
    })
}

/// One tool's schema in the provider's shape.
fn shape(tool: &ZendObject, format: ToolFormat, lean: bool) -> Result<Zval, Pending> {
    let schema = rz::call0_interned(tool, &M_INPUT_SCHEMA, "inputschema")?;
    if !schema.is_array() {
        rz::throw_type_error(&format!(
            "{}::inputSchema(): Return value must be of type array, {} returned",
            class_of(tool),
            rz::type_name(&schema)
        ));
        return Err(Pending);
    }
    let schema = normalize_schema(schema);
    let description = call_string(tool, "description")?;
    let description = if lean {
        let full = bytes_of(&description);
        let line = schemas::lean_description_bytes(full);
        if line.len() == full.len() {
            description
        } else {
            zend::bytes_zval(line)
        }
    } else {
        description
    };
    let name = call_string(tool, "name")?;
    Ok(match format {
        ToolFormat::OpenAi => rz::assoc_interned(vec![
            (&K_TYPE, rz::interned_zval(&V_FUNCTION, "function")),
            (
                &K_FUNCTION,
                rz::assoc_interned(vec![
                    (&K_NAME, name),
                    (&K_DESCRIPTION, description),
                    (&K_PARAMETERS, schema),
                ]),
            ),
        ]),
        ToolFormat::Anthropic => rz::assoc_interned(vec![
            (&K_NAME, name),
            (&K_DESCRIPTION, description),
            (&K_INPUT_SCHEMA, schema),
        ]),
    })
}

extern "C" fn schemas_method(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 2) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let Some(provider) = f.string(0) else { return };
    let lean = if f.num_args() >= 2 {
        match rz::bool_arg(&f, 1) {
            Some(b) => b,
            None => return,
        }
    } else {
        false
    };
    if tools_of(this).map_or(true, |ht| ht.is_empty()) {
        *rv = Zval::new_array();
        return;
    }
    let key = schemas::cache_key(&provider, lean);
    let cached = rz::property(this, offset(&SCHEMAS_CACHE))
        .and_then(Zval::array)
        .and_then(|ht| rz::find(ht, &key))
        .filter(|v| !v.is_null())
        .map(zend::share);
    if let Some(hit) = cached {
        *rv = hit;
        return;
    }
    let tools = snapshot(this);
    let routing = contracts::ROUTING.get();
    let mut eligible = Vec::with_capacity(tools.len());
    for tool in &tools {
        let Some(o) = tool.object() else { continue };
        let keep = match routing {
            Some(ce) if o.instance_of(ce) => {
                match rz::call0_interned(o, &M_ELIGIBLE, "iseligibleforrouting") {
                    Ok(v) => v.coerce_to_bool(),
                    Err(Pending) => return,
                }
            }
            _ => true,
        };
        if keep {
            eligible.push(o);
        }
    }
    let format = schemas::tool_format(&provider);
    let mut shaped = Vec::with_capacity(eligible.len());
    for o in eligible {
        match shape(o, format, lean) {
            Ok(s) => shaped.push(s),
            Err(Pending) => return,
        }
    }
    let result = zend::build_array(shaped.len() as u32, |ht| {
        for s in shaped {
            zend::push(ht, s);
        }
    });
    let mut graveyard = Vec::new();
    let cache = rz::array_property_mut(rz::raw(this), offset(&SCHEMAS_CACHE), &mut graveyard);
    if let Some(old) = rz::replace(cache, &key, zend::share(&result)) {
        graveyard.push(old);
    }
    drop(graveyard);
    *rv = result;
}

extern "C" fn routing_metadata(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(0, 0) {
        return;
    }
    let Some(this) = this_of(&f) else { return };
    let routing = contracts::ROUTING.get();
    let tools = snapshot(this);
    let mut out: Vec<(Vec<u8>, Zval)> = Vec::new();
    for tool in &tools {
        let Some(o) = tool.object() else { continue };
        let Ok(name) = call_string(o, "name") else {
            return;
        };
        let is_routing = routing.is_some_and(|ce| o.instance_of(ce));
        if !is_routing {
            continue;
        }
        match rz::call0(o, "routingmetadata") {
            Ok(md) => out.push((bytes_of(&name).to_ascii_lowercase(), md)),
            Err(Pending) => return,
        }
    }
    *rv = zend::build_array(out.len() as u32, |ht| {
        for (k, v) in out {
            zend::set(ht, Key::Str(&k), v);
        }
    });
}

extern "C" fn tool_format(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(provider) = f.string(0) else { return };
    *rv = zend::str_zval(schemas::tool_format(&provider).as_str());
}

/// Register the class.
pub fn register_class() -> ext_php_rs::error::Result<()> {
    let public = MethodFlags::Public;
    let string = DataType::String;
    ClassBuilder::new(NAME)
        .flags(ClassFlags::Final)
        .constant(
            "TOOL_FORMAT_OPENAI",
            schemas::TOOL_FORMAT_OPENAI,
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "TOOL_FORMAT_ANTHROPIC",
            schemas::TOOL_FORMAT_ANTHROPIC,
            &[],
            ConstantFlags::Public,
        )?
        .method(
            FunctionBuilder::constructor(construct)
                .arg(
                    Arg::new("authorizer", DataType::object(AUTHORIZER_NAME))
                        .allow_null()
                        .default("null"),
                )
                .required_args(0),
            public,
        )
        .method(
            FunctionBuilder::new("register", register)
                .arg(Arg::new("tools", DataType::Array))
                .arg(Arg::new("deny", DataType::Array).default("[]"))
                .arg(Arg::new("groups", DataType::Array).default("[]"))
                .required_args(1)
                .returns(DataType::Void, false, false),
            public,
        )
        .method(
            FunctionBuilder::new("has", has)
                .arg(Arg::new("name", string))
                .returns(DataType::Bool, false, false),
            public,
        )
        .method(
            FunctionBuilder::new("get", get)
                .arg(Arg::new("name", string))
                .returns(DataType::object(TOOL_INTERFACE_NAME), false, false),
            public,
        )
        .method(
            FunctionBuilder::new("all", all).returns(DataType::Array, false, false),
            public,
        )
        .method(
            FunctionBuilder::new("resetRunState", reset_run_state).returns(
                DataType::Void,
                false,
                false,
            ),
            public,
        )
        .method(
            FunctionBuilder::new("count", count).returns(DataType::Long, false, false),
            public,
        )
        .method(
            FunctionBuilder::new("names", names).returns(DataType::Array, false, false),
            public,
        )
        .method(
            FunctionBuilder::new("schemas", schemas_method)
                .arg(Arg::new("providerName", string))
                .arg(Arg::new("lean", DataType::Bool).default("false"))
                .required_args(1)
                .returns(DataType::Array, false, false),
            public,
        )
        .method(
            FunctionBuilder::new("routingMetadata", routing_metadata).returns(
                DataType::Array,
                false,
                false,
            ),
            public,
        )
        .method(
            FunctionBuilder::new("toolFormat", tool_format)
                .arg(Arg::new("providerName", string))
                .returns(DataType::String, false, false),
            public | MethodFlags::Static,
        )
        .registration(|ce, _| {
            let private = MethodFlags::Private.bits();
            rz::declare_property(
                ce,
                "tools",
                private,
                zend::MAY_BE_ARRAY,
                None,
                Default::EmptyArray,
            );
            rz::declare_property(
                ce,
                "schemasCache",
                private,
                zend::MAY_BE_ARRAY,
                None,
                Default::EmptyArray,
            );
            rz::declare_property(
                ce,
                "authorizer",
                private | zend::ACC_READONLY,
                rz::MAY_BE_NULL,
                Some(AUTHORIZER_NAME),
                Default::None,
            );
            for (slot, name) in [
                (&TOOLS, "tools"),
                (&SCHEMAS_CACHE, "schemasCache"),
                (&AUTHORIZER, "authorizer"),
            ] {
                if let Some(off) = rz::property_offset(ce, name) {
                    slot.store(off, Ordering::Release);
                }
            }
            for (slot, text) in [
                (&K_TYPE, "type"),
                (&K_FUNCTION, "function"),
                (&K_NAME, "name"),
                (&K_DESCRIPTION, "description"),
                (&K_PARAMETERS, "parameters"),
                (&K_INPUT_SCHEMA, "input_schema"),
                (&V_FUNCTION, "function"),
                (&M_NAME, "name"),
                (&M_DESCRIPTION, "description"),
                (&M_INPUT_SCHEMA, "inputschema"),
                (&M_ELIGIBLE, "iseligibleforrouting"),
            ] {
                slot.init(text);
            }
            REGISTRY.set(ce);
        })
        .register()
}

/// `$this` when it is a registry whose property slots are known (always, once registered).
fn this_of<'a>(f: &Frame<'a>) -> Option<&'a ZendObject> {
    let this = f.this()?;
    let ce = REGISTRY.get()?;
    let ready = offset(&TOOLS) != 0 && offset(&SCHEMAS_CACHE) != 0 && offset(&AUTHORIZER) != 0;
    if !ready || !std::ptr::eq(this.ce.cast_const(), std::ptr::from_ref(ce).cast()) {
        zend::throw_error(&format!("{NAME} is not available"));
        return None;
    }
    Some(this)
}
