//! `PhpClaw\Tools\ToolProfileResolver`: stage 1 (provider and model to a profile, the
//! profile's numbers) and the deny list, as static methods with phpClaw's signatures.

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, ConstantFlags, DataType, MethodFlags};
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::ExecuteData;

use super::contracts::TOOL;
use super::routing_support::{self as rs, list, long_zval, scalar_string, string_list};
use super::zend::{self, ClassSlot, Frame, Key};
use crate::core::routing::profiles::{self, Profile};

pub static PROFILE_RESOLVER: ClassSlot = ClassSlot::new();

/// Fully qualified class name.
pub const PROFILE_RESOLVER_NAME: &str = "PhpClaw\\Tools\\ToolProfileResolver";

fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// The `(group name, members)` pairs of a groups array; a null group is no group, any other
/// non-array group has no members.
fn groups_of(ht: Option<&ZendHashTable>) -> Vec<(String, Vec<String>)> {
    let mut groups = Vec::new();
    let Some(ht) = ht else { return groups };
    zend::for_each_entry(ht, |key, value| {
        if value.is_null() {
            return true;
        }
        let name = match key {
            Key::Int(i) => i.to_string(),
            Key::Str(s) => String::from_utf8_lossy(s).into_owned(),
        };
        let mut members = Vec::new();
        if let Some(m) = value.array() {
            zend::for_each_entry(m, |_, v| {
                members.push(scalar_string(v));
                true
            });
        }
        groups.push((name, members));
        true
    });
    groups
}

fn strings_of(ht: &ZendHashTable) -> Vec<String> {
    let mut out = Vec::with_capacity(ht.len());
    zend::for_each_entry(ht, |_, v| {
        out.push(scalar_string(v));
        true
    });
    out
}

fn opt_array<'a>(f: &Frame<'a>, n: usize) -> Option<Option<&'a ZendHashTable>> {
    match f.arg(n) {
        None => Some(None),
        Some(_) => f.array(n).map(|zv| zv.array()),
    }
}

extern "C" fn resolve(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(provider) = f.string(0).map(lossy) else {
        return;
    };
    let Some(model) = f.string(1).map(lossy) else {
        return;
    };
    *rv = zend::str_zval(profiles::resolve(&provider, &model).as_str());
}

/// `maxTools` / `requestBudget` / `skillContextChars`: one profile-name argument, an int back.
fn profile_number(ex: &mut ExecuteData, rv: &mut Zval, number: fn(&str) -> usize) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(name) = f.string(0).map(lossy) else {
        return;
    };
    *rv = long_zval(i64::try_from(number(&name)).unwrap_or(i64::MAX));
}

extern "C" fn max_tools(ex: &mut ExecuteData, rv: &mut Zval) {
    profile_number(ex, rv, profiles::max_tools);
}

extern "C" fn request_budget(ex: &mut ExecuteData, rv: &mut Zval) {
    profile_number(ex, rv, profiles::request_budget);
}

extern "C" fn skill_context_chars(ex: &mut ExecuteData, rv: &mut Zval) {
    profile_number(ex, rv, profiles::skill_context_chars);
}

extern "C" fn resolve_names(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(entries) = f.array(0).and_then(Zval::array) else {
        return;
    };
    let Some(groups) = f.array(1).and_then(Zval::array) else {
        return;
    };
    let names = profiles::resolve_names(&strings_of(entries), &groups_of(Some(groups)));
    *rv = string_list(&names);
}

extern "C" fn filter(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 3) {
        return;
    }
    let Some(tools) = f.array(0).and_then(Zval::array) else {
        return;
    };
    let Some(deny) = opt_array(&f, 1) else { return };
    let Some(groups) = opt_array(&f, 2) else {
        return;
    };
    let mut zvals: Vec<&Zval> = Vec::with_capacity(tools.len());
    zend::for_each_entry(tools, |_, v| {
        zvals.push(v);
        true
    });
    let deny = deny.map(strings_of).unwrap_or_default();
    if deny.is_empty() {
        *rv = list(zvals.iter().map(|v| zend::share(v)).collect());
        return;
    }
    let Some(tool_ce) = TOOL.get() else { return };
    let mut names: Vec<String> = Vec::with_capacity(zvals.len());
    for v in &zvals {
        let Some(obj) = v.object().filter(|o| o.instance_of(tool_ce)) else {
            rs::throw_type_error(&format!(
                "{PROFILE_RESOLVER_NAME}::filter(): Argument #1 ($tools) must contain only PhpClaw\\Tools\\Contracts\\ToolInterface objects, {} given",
                rs::type_name(v)
            ));
            return;
        };
        let Ok(name) = zend::call_method(obj, "name", &mut []) else {
            return;
        };
        names.push(scalar_string(&name));
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let kept = profiles::filter_denied(&refs, &deny, &groups_of(groups));
    *rv = list(
        kept.iter()
            .filter_map(|&i| zvals.get(i).map(|v| zend::share(v)))
            .collect(),
    );
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let static_public = MethodFlags::Public | MethodFlags::Static;
    let string_in = |name: &str| Arg::new(name, DataType::String);
    let array_in = |name: &str| Arg::new(name, DataType::Array);
    let number = |name: &str, handler| {
        FunctionBuilder::new(name, handler)
            .arg(string_in("profile"))
            .returns(DataType::Long, false, false)
    };
    ClassBuilder::new(PROFILE_RESOLVER_NAME)
        .flags(ClassFlags::Final)
        .constant(
            "PROFILE_MINIMAL",
            Profile::Minimal.as_str(),
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "PROFILE_STANDARD",
            Profile::Standard.as_str(),
            &[],
            ConstantFlags::Public,
        )?
        .constant(
            "PROFILE_FULL",
            Profile::Full.as_str(),
            &[],
            ConstantFlags::Public,
        )?
        .method(
            FunctionBuilder::new("resolve", resolve)
                .arg(string_in("provider"))
                .arg(string_in("model"))
                .returns(DataType::String, false, false),
            static_public,
        )
        .method(
            FunctionBuilder::new("filter", filter)
                .arg(array_in("tools"))
                .arg(array_in("deny").default("[]"))
                .arg(array_in("groups").default("[]"))
                .required_args(1)
                .returns(DataType::Array, false, false),
            static_public,
        )
        .method(number("maxTools", max_tools), static_public)
        .method(number("requestBudget", request_budget), static_public)
        .method(
            number("skillContextChars", skill_context_chars),
            static_public,
        )
        .method(
            FunctionBuilder::new("resolveNames", resolve_names)
                .arg(array_in("entries"))
                .arg(array_in("groups"))
                .returns(DataType::Array, false, false),
            static_public,
        )
        .registration(|ce, _| PROFILE_RESOLVER.set(ce))
        .register()
}
