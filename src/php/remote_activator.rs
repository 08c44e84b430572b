//! `PhpClaw\Tools\RemoteToolActivator`: static `fetch()` of a remote tool profile (core
//! `remote_profile`: HTTPS only, SSRF-validated and pinned, no redirects, 5 s, 64 KB, one-hour
//! file cache), `filter()` of a tool list by a profile's names, and `buildCurlOptions()`, the
//! option array phpClaw's own implementation hands curl (kept for callers and tests that read
//! it; the native fetch does not use curl).

use ext_php_rs::args::Arg;
use ext_php_rs::builders::{ClassBuilder, FunctionBuilder};
use ext_php_rs::flags::{ClassFlags, DataType, MethodFlags};
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ExecuteData;

use super::ini;
use super::registry_zend as rz;
use super::tool_registry::{bytes_of, call_string, tool_objects};
use super::zend::{self, ClassSlot, Frame, Key};
use crate::core::remote_profile::{self, curlopt, Options, RemoteProfile};
use crate::core::security::ssrf::SystemResolver;

/// The class name.
pub const NAME: &str = "PhpClaw\\Tools\\RemoteToolActivator";

pub static ACTIVATOR: ClassSlot = ClassSlot::new();

/// `PHPCLAW_CACHE_DIR` as phpClaw reads it: `$_ENV`, then `$_SERVER`, then the process
/// environment; empty values are skipped.
fn cache_base() -> String {
    let name = remote_profile::CACHE_DIR_ENV;
    for global in ["_ENV", "_SERVER"] {
        if let Some(v) = rz::superglobal_string(global, name) {
            if !v.is_empty() {
                return String::from_utf8_lossy(&v).into_owned();
            }
        }
    }
    std::env::var(name).unwrap_or_default()
}

fn long_zval(v: i64) -> Zval {
    let mut z = Zval::new();
    z.set_long(v);
    z
}

fn bool_zval(v: bool) -> Zval {
    let mut z = Zval::new();
    z.set_bool(v);
    z
}

fn profile_zval(p: RemoteProfile) -> Zval {
    let tools = zend::build_array(p.tools.len() as u32, |ht| {
        for t in &p.tools {
            zend::push(ht, zend::bytes_zval(t));
        }
    });
    zend::assoc(vec![
        ("profile", zend::bytes_zval(&p.profile)),
        ("tools", tools),
        ("max_tools_per_turn", long_zval(p.max_tools_per_turn)),
    ])
}

extern "C" fn fetch(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(1, 1) {
        return;
    }
    let Some(url) = f.string(0) else { return };
    let opts = Options {
        allow_loopback_for_tests: ini::allow_loopback(),
        extra_ca_file: ini::ca_file(),
        cache_base: cache_base(),
    };
    match remote_profile::fetch(&url, &opts, &SystemResolver) {
        Ok(p) => *rv = profile_zval(p),
        Err(failure) => {
            if let Some(msg) = failure.0 {
                zend::error_log(&msg);
            }
            rv.set_null();
        }
    }
}

extern "C" fn filter(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(all) = f.array(0) else { return };
    let Some(allowed) = f.array(1).and_then(Zval::array) else {
        return;
    };
    if allowed.is_empty() {
        *rv = zend::share(all);
        return;
    }
    let Some(all_ht) = all.array() else { return };
    let Ok(tools) = tool_objects(all_ht, &format!("{NAME}::filter"), "1 ($allTools)") else {
        return;
    };
    let mut allowed_names: Vec<Vec<u8>> = Vec::new();
    zend::for_each_entry(allowed, |_, v| {
        if let Some(s) = v.zend_str() {
            allowed_names.push(s.as_bytes().to_vec());
        }
        true
    });
    let mut names = Vec::with_capacity(tools.len());
    for t in &tools {
        let Some(o) = t.object() else { return };
        match call_string(o, "name") {
            Ok(n) => names.push(n),
            Err(_) => return,
        }
    }
    let name_refs: Vec<&[u8]> = names.iter().map(bytes_of).collect();
    let allowed_refs: Vec<&[u8]> = allowed_names.iter().map(Vec::as_slice).collect();
    let keep = remote_profile::filter(&name_refs, &allowed_refs, false);
    *rv = zend::build_array(keep.len() as u32, |ht| {
        for i in keep {
            zend::push(ht, zend::share(&tools[i]));
        }
    });
}

/// `(string)` of a scalar array value, as the pin entry reads it.
fn text(v: &Zval) -> Vec<u8> {
    if let Some(s) = v.zend_str() {
        return s.as_bytes().to_vec();
    }
    if v.is_null() || v.bool() == Some(false) {
        return Vec::new();
    }
    v.coerce_to_string()
        .map(String::into_bytes)
        .unwrap_or_default()
}

extern "C" fn build_curl_options(ex: &mut ExecuteData, rv: &mut Zval) {
    let f = Frame::new(ex);
    if !f.check_count(2, 2) {
        return;
    }
    let Some(url) = f.string(0) else { return };
    let Some(resolved) = f.array(1).and_then(Zval::array) else {
        return;
    };
    let host = zend::get(resolved, "host").map(text).unwrap_or_default();
    let port = zend::get(resolved, "port")
        .filter(|v| !v.is_null())
        .map_or(443, |v| {
            v.long()
                .or_else(|| v.double().map(remote_profile::dval_to_lval))
                .unwrap_or_else(|| remote_profile::string_to_int(&text(v)))
        });
    let mut ips: Vec<Vec<u8>> = Vec::new();
    match zend::get(resolved, "ips") {
        Some(v) if v.is_array() => {
            if let Some(a) = v.array() {
                zend::for_each_entry(a, |_, x| {
                    ips.push(text(x));
                    true
                });
            }
        }
        Some(v) if !v.is_null() => ips.push(text(v)),
        _ => {}
    }
    let pin = remote_profile::pin_entry(&host, port, &ips);
    let timeout = remote_profile::TIMEOUT.as_secs() as i64;
    *rv = zend::build_array(12, |ht| {
        let mut put = |k: i64, v: Zval| zend::set(ht, Key::Int(k), v);
        put(curlopt::URL, zend::bytes_zval(&url));
        put(curlopt::RETURNTRANSFER, bool_zval(true));
        put(curlopt::TIMEOUT, long_zval(timeout));
        put(curlopt::CONNECTTIMEOUT, long_zval(timeout));
        put(curlopt::FOLLOWLOCATION, bool_zval(false));
        put(curlopt::MAXREDIRS, long_zval(0));
        put(curlopt::FAILONERROR, bool_zval(true));
        put(curlopt::SSL_VERIFYPEER, bool_zval(true));
        put(curlopt::SSL_VERIFYHOST, long_zval(2));
        put(
            curlopt::USERAGENT,
            zend::str_zval(remote_profile::USER_AGENT),
        );
        put(
            curlopt::HTTPHEADER,
            zend::build_array(1, |h| {
                zend::push(h, zend::str_zval("Accept: application/json"))
            }),
        );
        if let Some(pin) = &pin {
            put(
                curlopt::RESOLVE,
                zend::build_array(1, |h| zend::push(h, zend::bytes_zval(pin))),
            );
        }
    });
}

/// Register the class.
pub fn register() -> ext_php_rs::error::Result<()> {
    let public_static = MethodFlags::Public | MethodFlags::Static;
    ClassBuilder::new(NAME)
        .flags(ClassFlags::Final)
        .method(
            FunctionBuilder::new("fetch", fetch)
                .arg(Arg::new("url", DataType::String))
                .returns(DataType::Array, false, true),
            public_static,
        )
        .method(
            FunctionBuilder::new("filter", filter)
                .arg(Arg::new("allTools", DataType::Array))
                .arg(Arg::new("allowed", DataType::Array))
                .returns(DataType::Array, false, false),
            public_static,
        )
        .method(
            FunctionBuilder::new("buildCurlOptions", build_curl_options)
                .arg(Arg::new("url", DataType::String))
                .arg(Arg::new("resolved", DataType::Array))
                .returns(DataType::Array, false, false),
            public_static,
        )
        .registration(|ce, _| ACTIVATOR.set(ce))
        .register()
}
