//! Remote tool profiles (spec "Remote tool profiles"): fetch a small JSON document over HTTPS
//! that selects among tools already installed, and nothing else.
//!
//! Rules (numbers, strings and the cache layout are phpClaw's `RemoteToolActivator`'s):
//! - The URL must start with `https://`, then pass SSRF validation
//!   ([`crate::core::security::ssrf::validate`], https-only); the request goes only to the
//!   validated addresses (pinned resolver), follows no redirect, and is refused unless the
//!   status is 2xx (a 3xx is a failure, not a body to parse).
//! - 5 s overall and connect timeout; the body is read up to [`MAX_BYTES`] + 1 bytes and
//!   refused when longer than [`MAX_BYTES`] (65,536 ok, 65,537 refused).
//! - Cache: `<base>/phpclaw-tool-profiles/<md5(url)>.json`, base from `PHPCLAW_CACHE_DIR`
//!   (trailing `/` removed) or `/tmp`; the directory is created 0700, files are 0600; a file
//!   younger than one hour (whole seconds, `now - mtime < 3600`) is served without any
//!   request (after validation, as in the reference). A cache file that cannot be read fails
//!   silently. New content is written to a fresh temporary file and renamed into place, so a
//!   reader never sees half a file and a planted symlink is replaced, never followed.
//! - Every other failure gives the warning the reference logs, prefixed
//!   `[phpClaw] RemoteToolActivator: `.
//! - The body is decoded as JSON; it must be an object whose `tools` is an array (list or
//!   object). `profile` is PHP's `(string)` of the value (`remote` when missing or null);
//!   `tools` keeps the string values, in order; `max_tools_per_turn` is PHP's `(int)` of the
//!   value, at least 0.
//! - [`filter`] keeps the tools whose name is in the allowed list (all of them when the list is
//!   empty); [`apply`] runs several profiles in order the way phpClaw's builder does.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use md5::{Digest, Md5};

use crate::core::security::ssrf::{self, Resolver, UrlPolicy, Validated};

/// Folder under the cache base.
pub const CACHE_SUBDIR: &str = "phpclaw-tool-profiles";
/// Cache lifetime in seconds.
pub const CACHE_TTL_SECS: i64 = 3600;
/// Largest body accepted, in bytes.
pub const MAX_BYTES: usize = 65_536;
/// Overall and connect timeout.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// Mode of the cache folder.
pub const CACHE_DIR_MODE: u32 = 0o700;
/// Mode of a cache file.
pub const CACHE_FILE_MODE: u32 = 0o600;
/// `User-Agent` of the request.
pub const USER_AGENT: &str = "phpClaw-RemoteToolActivator/1.0";
/// Environment variable naming the cache base.
pub const CACHE_DIR_ENV: &str = "PHPCLAW_CACHE_DIR";
/// Cache base when the variable is unset or empty.
pub const DEFAULT_CACHE_BASE: &str = "/tmp";
/// Profile name when the document has none.
pub const DEFAULT_PROFILE_NAME: &str = "remote";
/// Prefix of every warning.
pub const LOG_PREFIX: &str = "[phpClaw] RemoteToolActivator: ";

/// A fetched profile, as `RemoteToolActivator::fetch()` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteProfile {
    /// `profile`.
    pub profile: Vec<u8>,
    /// `tools`: the names a turn may use.
    pub tools: Vec<Vec<u8>>,
    /// `max_tools_per_turn`, 0 when none.
    pub max_tools_per_turn: i64,
}

/// What the caller decides outside the core.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Test-only (php.ini): let 127.0.0.0/8 and `::1` through SSRF validation.
    pub allow_loopback_for_tests: bool,
    /// A PEM bundle trusted in addition to the built-in roots (test-only php.ini setting).
    pub extra_ca_file: Option<PathBuf>,
    /// The cache base (`PHPCLAW_CACHE_DIR` as phpClaw reads it), empty for the default.
    pub cache_base: String,
}

/// Why a fetch gave nothing: the warning to log, or `None` for the silent case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub Option<Vec<u8>>);

fn warn(parts: &[&[u8]]) -> Failure {
    let mut msg = LOG_PREFIX.as_bytes().to_vec();
    for p in parts {
        msg.extend_from_slice(p);
    }
    Failure(Some(msg))
}

/// The cache folder for a base (`rtrim($base, '/')`, then the sub-folder).
pub fn cache_dir(base: &str) -> PathBuf {
    let base = if base.is_empty() {
        DEFAULT_CACHE_BASE
    } else {
        base
    };
    PathBuf::from(format!("{}/{CACHE_SUBDIR}", base.trim_end_matches('/')))
}

/// The cache file of a URL.
pub fn cache_file(dir: &Path, url: &[u8]) -> PathBuf {
    dir.join(format!("{}.json", md5_hex(url)))
}

/// Lower-case hex MD5, as PHP's `md5()` returns it: a file name, never a security measure.
fn md5_hex(data: &[u8]) -> String {
    use std::fmt::Write as _;
    Md5::digest(data)
        .iter()
        .fold(String::with_capacity(32), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// Fetch, validate and decode a profile; see the module rules.
pub fn fetch(
    url: &[u8],
    opts: &Options,
    resolver: &dyn Resolver,
) -> Result<RemoteProfile, Failure> {
    if !url.starts_with(b"https://") {
        return Err(warn(&[b"HTTPS required, skipped: ", url]));
    }
    let Ok(text) = std::str::from_utf8(url) else {
        return Err(warn(&[ssrf::SsrfError::NoHost.to_string().as_bytes()]));
    };
    let policy = UrlPolicy {
        https_only: true,
        allow_loopback_for_tests: opts.allow_loopback_for_tests,
    };
    let validated =
        ssrf::validate(text, &policy, resolver).map_err(|e| warn(&[e.to_string().as_bytes()]))?;
    let body = fetch_cached(url, &validated, opts)?;
    parse_profile(&body).ok_or_else(|| warn(&[b"invalid profile at ", url]))
}

fn fetch_cached(url: &[u8], validated: &Validated, opts: &Options) -> Result<Vec<u8>, Failure> {
    let dir = cache_dir(&opts.cache_base);
    let file = cache_file(&dir, url);
    if !dir.is_dir() {
        let _ = fs::DirBuilder::new()
            .recursive(true)
            .mode(CACHE_DIR_MODE)
            .create(&dir);
    }
    if let Ok(meta) = fs::metadata(&file) {
        if meta.is_file() && is_fresh(&meta) {
            return fs::read(&file).map_err(|_| Failure(None));
        }
    }
    let Some(raw) = http_get(validated, opts) else {
        return Err(warn(&[b"fetch failed or >64KB: ", url]));
    };
    store(&dir, &file, &raw);
    Ok(raw)
}

fn unix_secs(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    }
}

fn is_fresh(meta: &fs::Metadata) -> bool {
    let Ok(mtime) = meta.modified() else {
        return false;
    };
    unix_secs(SystemTime::now()) - unix_secs(mtime) < CACHE_TTL_SECS
}

fn store(dir: &Path, file: &Path, raw: &[u8]) {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".{}.{}.{nanos}.tmp",
        file.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("profile"),
        std::process::id()
    ));
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(CACHE_FILE_MODE)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(raw)?;
            f.set_permissions(fs::Permissions::from_mode(CACHE_FILE_MODE))
        });
    if written.is_err() || fs::rename(&tmp, file).is_err() {
        let _ = fs::remove_file(&tmp);
    }
}

/// The TLS configuration: the built-in web roots plus, when given, every certificate of a PEM
/// bundle. Built once per CA path and shared.
pub fn tls_config(extra_ca: Option<&Path>) -> Result<Arc<rustls::ClientConfig>, String> {
    type Cached = Option<(Option<PathBuf>, Arc<rustls::ClientConfig>)>;
    static CACHE: Mutex<Cached> = Mutex::new(None);
    let mut guard = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((path, cfg)) = guard.as_ref() {
        if path.as_deref() == extra_ca {
            return Ok(cfg.clone());
        }
    }
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if let Some(path) = extra_ca {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::CertificateDer;
        let pem = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(&pem) {
            let cert = cert.map_err(|e| format!("{}: {e}", path.display()))?;
            roots
                .add(cert)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            added += 1;
        }
        if added == 0 {
            return Err(format!("{}: no certificate", path.display()));
        }
    }
    let cfg = rustls::ClientConfig::builder_with_provider(
        rustls::crypto::ring::default_provider().into(),
    )
    .with_protocol_versions(&[&rustls::version::TLS12, &rustls::version::TLS13])
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let cfg = Arc::new(cfg);
    *guard = Some((extra_ca.map(Path::to_path_buf), cfg.clone()));
    Ok(cfg)
}

/// One pinned GET; the body, or `None` on any failure (status not 2xx, timeout, TLS, size).
fn http_get(validated: &Validated, opts: &Options) -> Option<Vec<u8>> {
    let tls = tls_config(opts.extra_ca_file.as_deref()).ok()?;
    let agent = validated
        .ureq_agent_builder()
        .timeout(TIMEOUT)
        .timeout_connect(TIMEOUT)
        .user_agent(USER_AGENT)
        .tls_config(tls)
        .build();
    let resp = agent
        .get(validated.url())
        .set("Accept", "application/json")
        .call()
        .ok()?;
    if !(200..300).contains(&resp.status()) {
        return None;
    }
    read_capped(resp.into_reader())
}

/// Read at most [`MAX_BYTES`]; `None` when the source holds more, or fails.
pub fn read_capped(reader: impl Read) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    reader
        .take(MAX_BYTES as u64 + 1)
        .read_to_end(&mut buf)
        .ok()?;
    (buf.len() <= MAX_BYTES).then_some(buf)
}

/// Decode a profile document; `None` when it is not one (see the module rules).
pub fn parse_profile(body: &[u8]) -> Option<RemoteProfile> {
    use serde_json::Value;
    let data: Value = serde_json::from_slice(body).ok()?;
    let obj = data.as_object()?;
    let tools: Vec<Vec<u8>> = match obj.get("tools")? {
        Value::Array(items) => items
            .iter()
            .filter_map(|v| v.as_str().map(|s| s.as_bytes().to_vec()))
            .collect(),
        Value::Object(map) => map
            .values()
            .filter_map(|v| v.as_str().map(|s| s.as_bytes().to_vec()))
            .collect(),
        _ => return None,
    };
    let profile = match obj.get("profile") {
        None | Some(Value::Null) => DEFAULT_PROFILE_NAME.as_bytes().to_vec(),
        Some(v) => php_string(v),
    };
    let max = match obj.get("max_tools_per_turn") {
        None | Some(Value::Null) => 0,
        Some(v) => php_int(v),
    };
    Some(RemoteProfile {
        profile,
        tools,
        max_tools_per_turn: max.max(0),
    })
}

/// PHP's `(string)` of a decoded JSON value.
fn php_string(v: &serde_json::Value) -> Vec<u8> {
    use serde_json::Value;
    match v {
        Value::Null => Vec::new(),
        Value::Bool(true) => b"1".to_vec(),
        Value::Bool(false) => Vec::new(),
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string().into_bytes(),
            None => php_float_string(n.as_f64().unwrap_or(0.0)),
        },
        Value::Array(_) | Value::Object(_) => b"Array".to_vec(),
    }
}

pub use crate::core::value::php_float_string;

/// PHP's `(int)` of a decoded JSON value.
fn php_int(v: &serde_json::Value) -> i64 {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(false) => 0,
        Value::Bool(true) => 1,
        Value::Number(n) => match n.as_i64() {
            Some(i) => i,
            None => dval_to_lval(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => string_to_int(s.as_bytes()),
        Value::Array(a) => i64::from(!a.is_empty()),
        Value::Object(o) => i64::from(!o.is_empty()),
    }
}

/// `zend_dval_to_lval` (PHP 8.2, 64-bit): 0 for NaN and infinities, modular beyond range.
pub fn dval_to_lval(d: f64) -> i64 {
    if !d.is_finite() {
        return 0;
    }
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&d) {
        return d as i64;
    }
    let two64 = 18_446_744_073_709_551_616.0_f64;
    let mut m = d % two64;
    if m < 0.0 {
        m += two64;
    }
    if m >= 9.223_372_036_854_776e18 {
        m -= two64;
    }
    m as i64
}

/// `zend_dval_to_lval_cap`: 0 for NaN and infinities, saturating beyond range.
fn dval_to_lval_cap(d: f64) -> i64 {
    if !d.is_finite() {
        return 0;
    }
    d as i64
}

/// PHP's `(int)` of a string: the leading numeric part (whitespace, sign, digits, fraction,
/// exponent); integers that overflow and non-integer forms go through a float and saturate.
pub fn string_to_int(s: &[u8]) -> i64 {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C);
    let start = s.iter().position(|b| !ws(b)).unwrap_or(s.len());
    let t = &s[start..];
    let mut i = 0;
    if matches!(t.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let int_start = i;
    while t.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut is_float = false;
    let mut frac_digits = 0;
    if t.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while t.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        frac_digits = j - i - 1;
        if int_digits > 0 || frac_digits > 0 {
            is_float = true;
            i = j;
        }
    }
    if int_digits == 0 && frac_digits == 0 {
        return 0;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(t.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_start = j;
        while t.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > exp_start {
            is_float = true;
            i = j;
        }
    }
    let text = std::str::from_utf8(&t[..i]).unwrap_or("0");
    if !is_float {
        if let Ok(v) = text.parse::<i64>() {
            return v;
        }
    }
    dval_to_lval_cap(text.parse::<f64>().unwrap_or(0.0))
}

/// Indices of the tools to keep: those whose name is allowed, in order; all of them when the
/// allowed list is empty (`allowed_is_empty`: the PHP array was empty, whatever it held).
pub fn filter(tool_names: &[&[u8]], allowed: &[&[u8]], allowed_is_empty: bool) -> Vec<usize> {
    if allowed_is_empty {
        return (0..tool_names.len()).collect();
    }
    tool_names
        .iter()
        .enumerate()
        .filter(|(_, n)| allowed.contains(n))
        .map(|(i, _)| i)
        .collect()
}

/// Several profiles in order, as phpClaw's builder applies them: each fetched profile narrows
/// the tools further (a failed one, `None`, is skipped); a profile's `max_tools_per_turn`
/// replaces the budget only when it is positive and no explicit budget (0) was set in code.
/// Returns the kept indices and the budget.
pub fn apply(
    tool_names: &[&[u8]],
    profiles: &[Option<RemoteProfile>],
    explicit_budget: i64,
) -> (Vec<usize>, i64) {
    let mut keep: Vec<usize> = (0..tool_names.len()).collect();
    let mut budget = explicit_budget;
    for p in profiles.iter().flatten() {
        let names: Vec<&[u8]> = keep.iter().map(|&i| tool_names[i]).collect();
        let allowed: Vec<&[u8]> = p.tools.iter().map(Vec::as_slice).collect();
        keep = filter(&names, &allowed, allowed.is_empty())
            .into_iter()
            .map(|j| keep[j])
            .collect();
        if p.max_tools_per_turn > 0 && explicit_budget == 0 {
            budget = p.max_tools_per_turn;
        }
    }
    (keep, budget)
}

/// A curl `CURLOPT_RESOLVE` entry for a `{host, port, ips}` set, as phpClaw's
/// `SsrfValidator::pinEntry` builds it: `None` for an IPv4 or IPv6 host (`:` in it) or no ips.
pub fn pin_entry(host: &[u8], port: i64, ips: &[Vec<u8>]) -> Option<Vec<u8>> {
    let is_ipv4 = std::str::from_utf8(host)
        .ok()
        .is_some_and(|h| h.parse::<std::net::Ipv4Addr>().is_ok());
    if is_ipv4 || host.contains(&b':') || ips.is_empty() {
        return None;
    }
    let mut out = host.to_vec();
    out.push(b':');
    out.extend_from_slice(port.to_string().as_bytes());
    out.push(b':');
    for (i, ip) in ips.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(ip);
    }
    Some(out)
}

/// curl option numbers `buildCurlOptions()` uses as array keys (libcurl's and PHP's values).
pub mod curlopt {
    /// `CURLOPT_URL`.
    pub const URL: i64 = 10002;
    /// `CURLOPT_RETURNTRANSFER` (PHP's own option).
    pub const RETURNTRANSFER: i64 = 19913;
    /// `CURLOPT_TIMEOUT`.
    pub const TIMEOUT: i64 = 13;
    /// `CURLOPT_CONNECTTIMEOUT`.
    pub const CONNECTTIMEOUT: i64 = 78;
    /// `CURLOPT_FOLLOWLOCATION`.
    pub const FOLLOWLOCATION: i64 = 52;
    /// `CURLOPT_MAXREDIRS`.
    pub const MAXREDIRS: i64 = 68;
    /// `CURLOPT_FAILONERROR`.
    pub const FAILONERROR: i64 = 45;
    /// `CURLOPT_SSL_VERIFYPEER`.
    pub const SSL_VERIFYPEER: i64 = 64;
    /// `CURLOPT_SSL_VERIFYHOST`.
    pub const SSL_VERIFYHOST: i64 = 81;
    /// `CURLOPT_USERAGENT`.
    pub const USERAGENT: i64 = 10018;
    /// `CURLOPT_HTTPHEADER`.
    pub const HTTPHEADER: i64 = 10023;
    /// `CURLOPT_RESOLVE`.
    pub const RESOLVE: i64 = 10203;
}

#[cfg(test)]
mod tests;
