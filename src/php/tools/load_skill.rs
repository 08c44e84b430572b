//! `PhpClaw\Tools\LoadSkillTool`, native: reads phpClaw's `PhpClaw\Skills\SkillRegistry`
//! (static `all()`, `count()`, `names()`; an absent class is an empty registry) and answers
//! with `core::tools::load_skill`'s envelopes and Skills System section.

use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::flags::{DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::super::values;
use super::super::zend::{self, ClassSlot, Frame, Pending};
use super::string_inputs;
use super::{authorizer_of, tool_class, Extras, PhpHost};
use crate::core::lifecycle::messages;
use crate::core::tools::load_skill as core;
use crate::core::tools::{self as tools, ToolError};
use crate::core::value::{Array, Value};

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\LoadSkillTool";

/// phpClaw's skill registry.
pub const REGISTRY: &str = "PhpClaw\\Skills\\SkillRegistry";

pub static LOAD_SKILL: ClassSlot = ClassSlot::new();

fn scope() -> *mut ext_php_rs::ffi::zend_class_entry {
    LOAD_SKILL.ptr()
}

/// `SkillRegistry::<method>()`, None when the class (or method) does not exist.
fn registry(method: &str) -> Result<Option<Zval>, Pending> {
    let Some(ce) = ClassEntry::try_find(REGISTRY) else {
        if zend::pending() {
            return Err(Pending);
        }
        return Ok(None);
    };
    let ptr = std::ptr::from_ref(ce).cast_mut().cast();
    let Some(func) = zend::find_method(ptr, method) else {
        return Ok(None);
    };
    zend::call_static(ptr, func, &mut []).map(Some)
}

/// The registered skills (objects), in registry order.
fn skills() -> Result<Vec<Zval>, Pending> {
    let mut out = Vec::new();
    if let Some(all) = registry("all")? {
        if let Some(ht) = all.array() {
            zend::for_each_entry(ht, |_, v| {
                out.push(zend::share(v));
                true
            });
        }
    }
    Ok(out)
}

fn call_bytes(skill: &Zval, method: &str) -> Result<Option<Vec<u8>>, Pending> {
    let Some(obj) = skill.object() else {
        return Ok(None);
    };
    let v = zend::call_method(obj, method, &mut [])?;
    Ok(v.zend_str().map(|s| s.as_bytes().to_vec()))
}

/// The first input key other than `name`, as bytes.
fn unknown_key(ht: &ZendHashTable) -> Option<Vec<u8>> {
    let mut unknown = None;
    zend::for_each_entry(ht, |key, _| {
        let bytes = match key {
            zend::Key::Int(i) => i.to_string().into_bytes(),
            zend::Key::Str(s) => s.to_vec(),
        };
        let known = matches!(key, zend::Key::Str(s) if s == b"name");
        if !known {
            unknown = Some(bytes);
        }
        known
    });
    unknown
}

fn answer(ht: &ZendHashTable) -> Result<Vec<u8>, ToolError<Pending>> {
    if let Some(key) = unknown_key(ht) {
        let context = Array::from_pairs([("accepted_arguments", Value::list(core::ACCEPTED))]);
        return tools::encode(&tools::error(
            messages::UNKNOWN_ARGUMENT,
            &messages::unknown_argument(&key),
            Some(&context),
        ));
    }
    let input = string_inputs(ht, &["name"]).map_err(ToolError::Host)?;
    let wanted = input
        .as_array()
        .and_then(|a| a.get("name"))
        .and_then(Value::as_bytes)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    for skill in skills().map_err(ToolError::Host)? {
        if call_bytes(&skill, "name")
            .map_err(ToolError::Host)?
            .as_deref()
            == Some(&wanted[..])
        {
            let Some(obj) = skill.object() else { continue };
            let name = zend::call_method(obj, "name", &mut []).map_err(ToolError::Host)?;
            let content = zend::call_method(obj, "content", &mut []).map_err(ToolError::Host)?;
            return tools::encode(&core::found(
                values::to_value(&name).unwrap_or(Value::Null),
                values::to_value(&content).unwrap_or(Value::Null),
            ));
        }
    }
    let available = match registry("names").map_err(ToolError::Host)? {
        Some(v) => values::to_value(&v).unwrap_or(Value::Null),
        None => Value::list(Vec::<Value>::new()),
    };
    tools::encode(&core::unknown_skill(&wanted, available))
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
    let Ok(auth) = authorizer_of(scope(), this) else {
        return;
    };
    let mut host = PhpHost {
        authorizer: auth.as_ref().and_then(Zval::object),
    };
    if !super::passes_guard(&mut host, core::SUBJECT, rv) {
        return;
    }
    super::respond(answer(ht), rv);
}

extern "C" fn system_prompt_section(ex: &mut ExecuteData, rv: &mut Zval) {
    if !Frame::new(ex).check_count(0, 0) {
        return;
    }
    let Ok(count) = registry("count") else { return };
    if count.as_ref().and_then(Zval::long).unwrap_or(0) == 0 {
        *rv = zend::str_zval("");
        return;
    }
    let Ok(all) = skills() else { return };
    let mut pairs = Vec::with_capacity(all.len());
    for skill in &all {
        let Ok(name) = call_bytes(skill, "name") else {
            return;
        };
        let Ok(desc) = call_bytes(skill, "description") else {
            return;
        };
        pairs.push((name.unwrap_or_default(), desc.unwrap_or_default()));
    }
    *rv = zend::bytes_zval(&core::system_prompt_section(&pairs));
}

crate::php::tools::identity_handlers!();

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let b = with_identity(tool_class(NAME, Extras::default(), true))
        .constant(
            "NAME",
            core::NAME,
            &[],
            ext_php_rs::flags::ConstantFlags::Public,
        )?
        .method(
            FunctionBuilder::new("systemPromptSection", system_prompt_section).returns(
                DataType::String,
                false,
                false,
            ),
            MethodFlags::Public | MethodFlags::Static,
        );
    b.registration(|ce, _| {
        super::declare_authorizer(ce);
        LOAD_SKILL.set(ce);
    })
    .register()
}
