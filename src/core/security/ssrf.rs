//! SSRF validation for outbound requests (http_request, remote tool profiles), with the
//! validated addresses pinned so the client connects only where the check looked.
//!
//! Rules, in the order they run (the first failure wins, and its message is the reference's):
//! 1. With [`UrlPolicy::https_only`] the raw URL must start with `https://` (remote profiles).
//! 2. The URL is trimmed like PHP `trim()`; empty is "No URL provided.".
//! 3. The scheme (as PHP `parse_url` finds it) must be `http` or `https`.
//! 4. Whitespace, control characters, and a backslash before the query are refused: they are
//!    where URL parsers disagree on the host.
//! 5. The host text (between `//` and the path, after the last `@`) must not be empty, must not
//!    be a numeric spelling (decimal, hex, octal parts), must not start with a blocked prefix
//!    (`localhost`, `127.`, `10.`, ...), must not be a cloud metadata name, and must not be
//!    percent-encoded or zone-qualified.
//! 6. The URL is parsed with the WHATWG parser of the `url` crate, the same parser and version
//!    `ureq` uses, so the host judged is the host the client connects to; IDNA turns Unicode
//!    hosts (`ⓛⓞⓒⓐⓛⓗⓞⓢⓣ`, `①②⑦.⓪.⓪.①`) into their ASCII or IPv4 form first.
//! 7. An IP host is judged against [`ip_ranges`]; a name is judged against the name tables
//!    again (longer than DNS allows is unresolvable), resolved once, and every answer must be
//!    allowed; all answers are pinned, the first is preferred.
//!
//! Redirects are never followed (the reference sets no-follow for both callers); use
//! [`Validated::ureq_agent_builder`], which pins the addresses and turns redirects off.
//! Every port is allowed, as in the reference.

pub mod ip_ranges;

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

use url::{Host, Url};

pub use ip_ranges::{classify, Refusal, Verdict};

/// Longest host name DNS can carry (RFC 1035), plus a trailing dot; longer names are
/// refused without a lookup.
pub const MAX_HOST_NAME_LEN: usize = 254;

/// Characters PHP's `trim()` removes by default; the http tool trims the URL with it.
const PHP_TRIM: &[char] = &[' ', '\t', '\n', '\r', '\0', '\x0B'];

/// Schemes a request may use (reference `HttpTool::ALLOWED_SCHEMES`).
const ALLOWED_SCHEMES: &[&str] = &["http", "https"];

/// Host prefixes refused before any lookup, compared with the lower-cased host
/// (reference `SsrfValidator::BLOCKED_HOSTS`, matched as prefixes there too).
pub const BLOCKED_HOST_PREFIXES: &[&str] = &[
    "localhost",
    "127.",
    "0.",
    "10.",
    "169.254.",
    "192.168.",
    "::1",
    "fc00:",
    "fe80:",
];

/// Host names that reach cloud metadata services or name the machine itself, refused whatever
/// they resolve to (published metadata names of GCP and AWS, Debian's `/etc/hosts` names for
/// `::1`); compared after one trailing dot is removed. Not in the reference.
pub const BLOCKED_HOST_NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "ip6-localhost",
    "ip6-loopback",
];

/// Name suffixes that always mean the local machine (RFC 6761 `.localhost`). Not in the
/// reference.
pub const BLOCKED_HOST_SUFFIXES: &[&str] = &[".localhost"];

/// What a caller allows. Both fields default to off (plain http_request behaviour).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Refuse anything that does not start with `https://` (remote tool profiles).
    pub https_only: bool,
    /// Test-only (php.ini): let 127.0.0.0/8 and `::1` through, and nothing else (not an IPv6
    /// form that carries a loopback IPv4 address, such as `::ffff:127.0.0.1`).
    pub allow_loopback_for_tests: bool,
}

impl UrlPolicy {
    /// The http_request tool: http and https.
    pub const HTTP_TOOL: UrlPolicy = UrlPolicy {
        https_only: false,
        allow_loopback_for_tests: false,
    };
    /// Remote tool profiles: https only.
    pub const REMOTE_PROFILE: UrlPolicy = UrlPolicy {
        https_only: true,
        allow_loopback_for_tests: false,
    };
}

/// The two schemes a validated URL can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP, default port 80.
    Http,
    /// HTTPS, default port 443.
    Https,
}

impl Scheme {
    /// The lower-case scheme name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// A URL that passed every check, with the addresses the caller must connect to.
///
/// Only [`validate`] builds one, so holding it proves the check ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validated {
    url: String,
    scheme: Scheme,
    host_written: String,
    host_ascii: String,
    is_ip_literal: bool,
    port: u16,
    addrs: Vec<SocketAddr>,
}

impl Validated {
    /// The URL to request: WHATWG-normalised, fragment removed.
    pub fn url(&self) -> &str {
        &self.url
    }
    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }
    /// The host exactly as written in the URL (brackets kept for IPv6).
    pub fn host_written(&self) -> &str {
        &self.host_written
    }
    /// The host the client uses: IDNA/ASCII form, canonical IP text, IPv6 in brackets.
    pub fn host_ascii(&self) -> &str {
        &self.host_ascii
    }
    /// The port (explicit, or 80/443 by scheme).
    pub fn port(&self) -> u16 {
        self.port
    }
    /// Whether the host was an IP address rather than a name.
    pub fn is_ip_literal(&self) -> bool {
        self.is_ip_literal
    }
    /// Every validated address, in resolver order; never empty.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }
    /// The address to connect to first.
    pub fn pinned(&self) -> Option<SocketAddr> {
        self.addrs.first().copied()
    }
    /// The `host:port` string ureq 2 hands its resolver for this URL.
    pub fn netloc(&self) -> String {
        format!("{}:{}", self.host_ascii, self.port)
    }
    /// A curl `CURLOPT_RESOLVE` entry `host:port:ip1,ip2`, or `None` for an IP host
    /// (reference `SsrfValidator::pinEntry`).
    pub fn pin_entry(&self) -> Option<String> {
        if self.is_ip_literal || self.addrs.is_empty() {
            return None;
        }
        let ips: Vec<String> = self.addrs.iter().map(|a| a.ip().to_string()).collect();
        Some(format!(
            "{}:{}:{}",
            self.host_ascii,
            self.port,
            ips.join(",")
        ))
    }
    /// A ureq resolver that answers only for this host and port, with the validated addresses.
    pub fn ureq_resolver(&self) -> PinnedResolver {
        PinnedResolver {
            netloc: self.netloc(),
            addrs: self.addrs.clone(),
        }
    }
    /// A ureq agent builder with the pin installed, redirects off and no proxy from the
    /// environment: add timeouts and build.
    pub fn ureq_agent_builder(&self) -> ureq::AgentBuilder {
        ureq::AgentBuilder::new()
            .resolver(self.ureq_resolver())
            .redirects(0)
            .try_proxy_from_env(false)
    }
}

/// ureq 2 resolver holding the validated addresses; any other host fails, so a second DNS
/// answer can never be used.
#[derive(Clone, Debug)]
pub struct PinnedResolver {
    netloc: String,
    addrs: Vec<SocketAddr>,
}

impl ureq::Resolver for PinnedResolver {
    fn resolve(&self, netloc: &str) -> io::Result<Vec<SocketAddr>> {
        if netloc == self.netloc && !self.addrs.is_empty() {
            Ok(self.addrs.clone())
        } else {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("'{netloc}' is not the validated host"),
            ))
        }
    }
}

/// Turns a host name into addresses; injectable so tests never touch the network.
pub trait Resolver {
    /// All addresses for `host` (ASCII form, never an IP literal).
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<IpAddr>>;
}

/// The system resolver (getaddrinfo through `std`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<IpAddr>> {
        Ok((host, port).to_socket_addrs()?.map(|a| a.ip()).collect())
    }
}

/// A fixed name-to-addresses table, for tests; unknown names fail like NXDOMAIN.
#[derive(Clone, Debug, Default)]
pub struct MapResolver {
    map: HashMap<String, Vec<IpAddr>>,
}

impl MapResolver {
    /// An empty table: every name is unresolvable.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds (or replaces) a name; the name is compared lower-cased.
    pub fn with(mut self, host: &str, addrs: &[IpAddr]) -> Self {
        self.map.insert(host.to_ascii_lowercase(), addrs.to_vec());
        self
    }
}

impl Resolver for MapResolver {
    fn resolve(&self, host: &str, _port: u16) -> io::Result<Vec<IpAddr>> {
        self.map
            .get(&host.to_ascii_lowercase())
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such host"))
    }
}

/// Why a URL was refused. `Display` is the reference's exact message (PHP callers compare
/// it); [`SsrfError::code`] is a stable identifier for envelopes and logs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SsrfError {
    /// The URL was empty after trimming.
    #[error("No URL provided.")]
    NoUrl,
    /// https-only policy and the URL does not start with `https://`; remote profiles log it
    /// after their `[phpClaw] RemoteToolActivator: ` prefix.
    #[error("HTTPS required, skipped: {url}")]
    HttpsRequired {
        /// The URL as given.
        url: String,
    },
    /// The scheme is not http or https.
    #[error("URL scheme '{scheme}' is not allowed. Only http:// and https:// are permitted.")]
    SchemeNotAllowed {
        /// The lower-cased scheme, empty when there is none.
        scheme: String,
    },
    /// Whitespace, a control character or a backslash where parsers disagree. Not in the
    /// reference.
    #[error("URL contains characters that are not allowed (whitespace, control characters or backslashes).")]
    ForbiddenCharacters,
    /// No host could be found, or the URL does not parse.
    #[error("Could not extract host from URL.")]
    NoHost,
    /// Decimal, hex or octal spelling of an address.
    #[error("Requests to '{host}' are blocked (non-standard IP encoding).")]
    NonStandardEncoding {
        /// The lower-cased host.
        host: String,
    },
    /// A blocked prefix or name.
    #[error("Requests to '{host}' are blocked (private/internal address).")]
    BlockedHost {
        /// The lower-cased host.
        host: String,
        /// The table entry that matched.
        rule: &'static str,
    },
    /// A percent-encoded or zone-qualified host. Not in the reference.
    #[error("Requests to '{host}' are blocked (percent-encoded host).")]
    EncodedHost {
        /// The lower-cased host.
        host: String,
    },
    /// The name did not resolve (fail closed).
    #[error("Could not resolve host '{host}': unresolvable hosts are blocked.")]
    Unresolvable {
        /// The lower-cased host.
        host: String,
    },
    /// The host is, or resolves to, a forbidden address.
    #[error("{}", blocked_message(host, verdict))]
    BlockedAddress {
        /// The lower-cased host.
        host: String,
        /// The address as resolved (the IPv6 form for embedded IPv4).
        address: IpAddr,
        /// Which range and why.
        verdict: Verdict,
    },
}

impl SsrfError {
    /// A stable identifier; the reference throws `ToolException` without one, so these are
    /// ours, for envelopes and logs.
    pub fn code(&self) -> &'static str {
        match self {
            SsrfError::NoUrl => "NO_URL",
            SsrfError::HttpsRequired { .. } => "HTTPS_REQUIRED",
            SsrfError::SchemeNotAllowed { .. } => "SCHEME_NOT_ALLOWED",
            SsrfError::ForbiddenCharacters => "URL_FORBIDDEN_CHARACTERS",
            SsrfError::NoHost => "NO_HOST",
            SsrfError::NonStandardEncoding { .. } => "SSRF_NON_STANDARD_ENCODING",
            SsrfError::BlockedHost { .. } => "SSRF_BLOCKED_HOST",
            SsrfError::EncodedHost { .. } => "SSRF_ENCODED_HOST",
            SsrfError::Unresolvable { .. } => "SSRF_UNRESOLVABLE",
            SsrfError::BlockedAddress { .. } => "SSRF_BLOCKED_ADDRESS",
        }
    }

    /// The name of the range or rule that refused, for logs.
    pub fn range(&self) -> Option<&'static str> {
        match self {
            SsrfError::BlockedAddress { verdict, .. } => Some(verdict.range),
            SsrfError::BlockedHost { rule, .. } => Some(rule),
            _ => None,
        }
    }
}

fn blocked_message(host: &str, v: &Verdict) -> String {
    let ip = v.named;
    match v.refusal {
        Refusal::Cgnat => {
            format!("Requests to '{host}' are blocked (resolves to CGNAT address {ip}).")
        }
        Refusal::PrivateV4 => {
            format!("Requests to '{host}' are blocked (resolves to private IP {ip}).")
        }
        Refusal::Ipv6Loopback => {
            format!("Requests to '{host}' are blocked (resolves to IPv6 loopback).")
        }
        Refusal::PrivateV6 => {
            format!("Requests to '{host}' are blocked (resolves to private IPv6 address {ip}).")
        }
        Refusal::LinkLocalV6 => {
            format!("Requests to '{host}' are blocked (resolves to link-local IPv6 address {ip}).")
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The scheme as PHP `parse_url` reports it: the text before the first `:` when it is made of
/// scheme characters and is not a `host:port` (digits up to the end or a `/`).
fn php_scheme(url: &str) -> &str {
    let Some((head, rest)) = url.split_once(':') else {
        return "";
    };
    let scheme_chars = !head.is_empty()
        && head
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
    if !scheme_chars {
        return "";
    }
    let port_part = rest.split('/').next().unwrap_or("");
    if !port_part.is_empty() && port_part.bytes().all(|b| b.is_ascii_digit()) {
        return "";
    }
    head
}

/// Whitespace and control characters anywhere, or a backslash before the query or fragment.
fn has_forbidden_chars(url: &str) -> bool {
    if url.chars().any(|c| c.is_ascii_control() || c == ' ') {
        return true;
    }
    let before_query = url.split(['?', '#']).next().unwrap_or("");
    before_query.contains('\\')
}

/// The host text as written: after `scheme://`, up to the path, query or fragment, after the
/// last `@`, without the port. `None` when there is no `//` authority.
fn raw_host(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once(':')?;
    let rest = rest.strip_prefix("//")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest.get(..end)?;
    let hostport = match authority.rfind('@') {
        Some(at) => authority.get(at + 1..)?,
        None => authority,
    };
    if hostport.starts_with('[') {
        let close = hostport.find(']')?;
        hostport.get(..=close)
    } else {
        let end = hostport.find(':').unwrap_or(hostport.len());
        hostport.get(..end)
    }
}

fn is_hex_number(s: &str) -> bool {
    s.strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn is_octal_number(s: &str) -> bool {
    s.strip_prefix('0')
        .is_some_and(|o| !o.is_empty() && o.bytes().all(|b| (b'0'..=b'7').contains(&b)))
}

/// The reference's numeric-spelling rule on the lower-cased host: all digits, `0x` hex, or a
/// dotted form with any hex or leading-zero octal part.
fn is_numeric_encoding(host: &str) -> bool {
    if !host.is_empty() && host.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    if is_hex_number(host) {
        return true;
    }
    host.contains('.')
        && host
            .split('.')
            .any(|part| is_hex_number(part) || is_octal_number(part))
}

/// The first name rule the lower-cased host breaks, if any.
fn blocked_name_rule(host: &str) -> Option<&'static str> {
    if let Some(p) = BLOCKED_HOST_PREFIXES.iter().find(|p| host.starts_with(**p)) {
        return Some(p);
    }
    let bare = host.strip_suffix('.').unwrap_or(host);
    if let Some(n) = BLOCKED_HOST_NAMES.iter().find(|n| bare == **n) {
        return Some(n);
    }
    BLOCKED_HOST_SUFFIXES
        .iter()
        .find(|s| bare.ends_with(**s))
        .copied()
}

/// Whether the text is a plainly written loopback address the test allowance frees.
fn is_plain_loopback(host: &str) -> bool {
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => a.is_loopback(),
        Ok(IpAddr::V6(a)) => a.is_loopback(),
        Err(_) => false,
    }
}

/// Checks `url` against `policy` and, for a name, resolves it once with `resolver`.
///
/// On success the caller must connect only to [`Validated::addrs`] (see
/// [`Validated::ureq_agent_builder`]) and must not follow redirects.
pub fn validate(
    url: &str,
    policy: &UrlPolicy,
    resolver: &dyn Resolver,
) -> Result<Validated, SsrfError> {
    if policy.https_only && !url.starts_with("https://") {
        return Err(SsrfError::HttpsRequired {
            url: url.to_owned(),
        });
    }
    let url = url.trim_matches(PHP_TRIM);
    if url.is_empty() {
        return Err(SsrfError::NoUrl);
    }
    let scheme = php_scheme(url).to_ascii_lowercase();
    if !ALLOWED_SCHEMES.contains(&scheme.as_str()) {
        return Err(SsrfError::SchemeNotAllowed { scheme });
    }
    if has_forbidden_chars(url) {
        return Err(SsrfError::ForbiddenCharacters);
    }
    let written = raw_host(url).ok_or(SsrfError::NoHost)?;
    let host = written.trim_matches(['[', ']']).to_ascii_lowercase();
    if host.is_empty() {
        return Err(SsrfError::NoHost);
    }
    if is_numeric_encoding(&host) {
        return Err(SsrfError::NonStandardEncoding { host });
    }
    let loopback_allowed = policy.allow_loopback_for_tests && is_plain_loopback(&host);
    if !loopback_allowed {
        if let Some(rule) = blocked_name_rule(&host) {
            return Err(SsrfError::BlockedHost { host, rule });
        }
    }
    if host.contains('%') {
        return Err(SsrfError::EncodedHost { host });
    }

    let mut parsed = Url::parse(url).map_err(|_| SsrfError::NoHost)?;
    let scheme = match parsed.scheme() {
        "http" => Scheme::Http,
        "https" => Scheme::Https,
        _ => return Err(SsrfError::NoHost),
    };
    let judged: Host<String> = parsed.host().ok_or(SsrfError::NoHost)?.to_owned();
    // The host text alone must give the same host: guards the split above against parser
    // corners, so the host judged is the one in the URL the client sends.
    let alone = Url::parse(&format!("http://{written}/")).map_err(|_| SsrfError::NoHost)?;
    if alone.host().map(|h| h.to_owned()) != Some(judged.clone()) {
        return Err(SsrfError::NoHost);
    }
    parsed.set_fragment(None);
    let normalised = parsed.as_str().to_owned();
    // Re-parsing what the client will parse must give the same host and port.
    let again = Url::parse(&normalised).map_err(|_| SsrfError::NoHost)?;
    if again.host().map(|h| h.to_owned()) != Some(judged.clone())
        || again.port_or_known_default() != parsed.port_or_known_default()
    {
        return Err(SsrfError::NoHost);
    }
    let port = parsed.port_or_known_default().ok_or(SsrfError::NoHost)?;
    let host_ascii = parsed.host_str().ok_or(SsrfError::NoHost)?.to_owned();
    let allow = policy.allow_loopback_for_tests;

    let (ips, is_ip_literal) = match judged {
        Host::Ipv4(a) => (vec![IpAddr::V4(a)], true),
        Host::Ipv6(a) => (vec![IpAddr::V6(a)], true),
        Host::Domain(name) => {
            if let Some(rule) = blocked_name_rule(&name) {
                return Err(SsrfError::BlockedHost { host, rule });
            }
            if name.len() > MAX_HOST_NAME_LEN {
                return Err(SsrfError::Unresolvable { host });
            }
            let ips = resolver
                .resolve(&name, port)
                .map_err(|_| SsrfError::Unresolvable { host: host.clone() })?;
            if ips.is_empty() {
                return Err(SsrfError::Unresolvable { host });
            }
            (ips, false)
        }
    };
    for ip in &ips {
        if let Some(verdict) = classify(*ip, allow) {
            return Err(SsrfError::BlockedAddress {
                host,
                address: *ip,
                verdict,
            });
        }
    }
    Ok(Validated {
        url: normalised,
        scheme,
        host_written: written.to_owned(),
        host_ascii,
        is_ip_literal,
        port,
        addrs: ips
            .into_iter()
            .map(|ip| SocketAddr::new(ip, port))
            .collect(),
    })
}

/// `true` when [`validate`] accepts the URL (reference `isPublicHost`, for callers that skip
/// rather than fail).
pub fn is_public(url: &str, policy: &UrlPolicy, resolver: &dyn Resolver) -> bool {
    validate(url, policy, resolver).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::net::Ipv6Addr;

    const HTTP: UrlPolicy = UrlPolicy::HTTP_TOOL;
    const TESTS: UrlPolicy = UrlPolicy {
        https_only: false,
        allow_loopback_for_tests: true,
    };

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// Public names used across the tests; everything else is unresolvable.
    fn dns() -> MapResolver {
        MapResolver::new()
            .with(
                "example.com",
                &[ip("93.184.216.34"), ip("2606:2800:220:1::1")],
            )
            .with("one.one.one.one", &[ip("1.1.1.1")])
            .with("localtest.me", &[ip("127.0.0.1")])
            .with("127.0.0.1.nip.io", &[ip("127.0.0.1")])
            .with("app.127.0.0.1.nip.io", &[ip("127.0.0.1")])
            .with("spoofed.burpcollaborator.net", &[ip("127.0.0.1")])
            .with("metadata.nicob.net", &[ip("169.254.169.254")])
            .with("169-254-169-254.sslip.io", &[ip("169.254.169.254")])
            .with("mixed.example", &[ip("8.8.8.8"), ip("10.0.0.1")])
            .with("v6private.example", &[ip("fd12::1")])
            .with("loop.test", &[ip("127.0.0.1")])
            .with("xn--bcher-kva.example", &[ip("8.8.4.4")])
            .with("empty.example", &[])
    }

    fn check(url: &str) -> Result<Validated, SsrfError> {
        validate(url, &HTTP, &dns())
    }

    fn msg(url: &str) -> String {
        match check(url) {
            Ok(v) => panic!("{url} was allowed: {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    // ---- reference SsrfValidatorTest, in our words ----

    #[test]
    fn public_name_passes_and_is_public() {
        assert!(check("https://example.com/path").is_ok());
        assert!(is_public("https://example.com/path", &HTTP, &dns()));
    }

    #[test]
    fn url_without_host_is_refused() {
        // The http tool checks the scheme first, so a bare word fails there.
        assert_eq!(
            msg("not-a-url"),
            "URL scheme '' is not allowed. Only http:// and https:// are permitted."
        );
        assert!(!is_public("not-a-url", &HTTP, &dns()));
        for url in [
            "http://",
            "http:///example.com",
            "http:example.com",
            "http://@/",
            "http://[]/",
        ] {
            assert_eq!(msg(url), "Could not extract host from URL.", "{url}");
        }
    }

    #[test]
    fn reference_private_table_is_refused() {
        for url in [
            "http://localhost/",
            "http://127.0.0.1/",
            "http://10.0.0.1/",
            "http://192.168.1.1/",
            "http://169.254.1.1/",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://[fe80::1]/",
            "http://172.20.10.5/",
            "http://100.64.0.1/",
            "http://169.254.169.254/",
            "http://[::ffff:169.254.169.254]/",
        ] {
            assert!(check(url).is_err(), "{url}");
            assert!(!is_public(url, &HTTP, &dns()), "{url}");
        }
    }

    #[test]
    fn reference_messages_are_exact() {
        let cases = [
            (
                "http://127.0.0.1/",
                "Requests to '127.0.0.1' are blocked (private/internal address).",
            ),
            (
                "http://LOCALHOST/x",
                "Requests to 'localhost' are blocked (private/internal address).",
            ),
            (
                "http://[::1]/",
                "Requests to '::1' are blocked (private/internal address).",
            ),
            (
                "http://2852039166/",
                "Requests to '2852039166' are blocked (non-standard IP encoding).",
            ),
            (
                "http://0xA9FEA9FE/",
                "Requests to '0xa9fea9fe' are blocked (non-standard IP encoding).",
            ),
            (
                "http://100.64.0.1/",
                "Requests to '100.64.0.1' are blocked (resolves to CGNAT address 100.64.0.1).",
            ),
            (
                "http://172.16.0.1/",
                "Requests to '172.16.0.1' are blocked (resolves to private IP 172.16.0.1).",
            ),
            (
                "http://[fd00::1]/",
                "Requests to 'fd00::1' are blocked (resolves to private IPv6 address fd00::1).",
            ),
            (
                "http://[fe81::1]/",
                "Requests to 'fe81::1' are blocked (resolves to link-local IPv6 address fe81::1).",
            ),
            (
                "http://[::ffff:192.168.1.1]/",
                "Requests to '::ffff:192.168.1.1' are blocked (resolves to private IP 192.168.1.1).",
            ),
            (
                "http://localtest.me/",
                "Requests to 'localtest.me' are blocked (resolves to private IP 127.0.0.1).",
            ),
            (
                "http://nonexistent-phpclawssrf99.invalid/",
                "Could not resolve host 'nonexistent-phpclawssrf99.invalid': unresolvable hosts are blocked.",
            ),
            ("   ", "No URL provided."),
            ("", "No URL provided."),
            (
                "file:///etc/passwd",
                "URL scheme 'file' is not allowed. Only http:// and https:// are permitted.",
            ),
        ];
        for (url, want) in cases {
            assert_eq!(msg(url), want, "{url}");
        }
    }

    #[test]
    fn ipv6_loopback_resolved_has_its_own_message() {
        let r = MapResolver::new().with("six.example", &[ip("::1")]);
        let e = validate("http://six.example/", &HTTP, &r).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Requests to 'six.example' are blocked (resolves to IPv6 loopback)."
        );
    }

    #[test]
    fn numeric_spellings_are_refused_as_encoding() {
        for url in [
            "http://2852039166/",
            "http://0xA9FEA9FE/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://0251.0376.0251.0376/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0177.0.0.1/",
            "http://0x7f.1/",
            "http://127.000.000.001/",
            "http://0/",
            "http://134744072/", // 8.8.8.8: the spelling alone is refused, as in the reference
        ] {
            let e = check(url).unwrap_err();
            assert!(
                matches!(e, SsrfError::NonStandardEncoding { .. }),
                "{url}: {e}"
            );
        }
    }

    #[test]
    fn all_hex_letter_names_are_names_not_numbers() {
        for url in ["http://cafe/", "http://beef/"] {
            let e = check(url).unwrap_err();
            assert!(matches!(e, SsrfError::Unresolvable { .. }), "{url}: {e}");
            assert!(!e.to_string().contains("non-standard IP encoding"));
        }
    }

    #[test]
    fn dns_answers_are_judged() {
        assert!(check("http://169-254-169-254.sslip.io/").is_err());
        assert!(check("http://127.0.0.1.nip.io/").is_err());
        assert!(check("http://localtest.me/").is_err());
        assert!(check("http://v6private.example/").is_err());
    }

    #[test]
    fn public_literal_gives_literal_pin_and_default_ports() {
        let v = check("http://8.8.8.8/").unwrap();
        assert_eq!(v.host_ascii(), "8.8.8.8");
        assert_eq!(v.port(), 80);
        assert_eq!(v.addrs(), &["8.8.8.8:80".parse::<SocketAddr>().unwrap()]);
        assert!(v.is_ip_literal());
        assert_eq!(check("https://8.8.8.8/").unwrap().port(), 443);
        assert_eq!(check("https://8.8.8.8:8443/path").unwrap().port(), 8443);
    }

    #[test]
    fn resolvable_name_returns_every_answer_pinned() {
        let v = check("https://example.com/").unwrap();
        assert_eq!(v.host_ascii(), "example.com");
        assert_eq!(v.port(), 443);
        assert_eq!(
            v.addrs(),
            &[
                "93.184.216.34:443".parse::<SocketAddr>().unwrap(),
                "[2606:2800:220:1::1]:443".parse().unwrap()
            ]
        );
        assert_eq!(v.pinned(), Some("93.184.216.34:443".parse().unwrap()));
        assert!(!v.is_ip_literal());
    }

    #[test]
    fn unresolvable_and_empty_answers_fail_closed() {
        assert!(matches!(
            check("http://nonexistent-phpclawssrf99.invalid/"),
            Err(SsrfError::Unresolvable { .. })
        ));
        assert!(matches!(
            check("http://empty.example/"),
            Err(SsrfError::Unresolvable { .. })
        ));
    }

    #[test]
    fn pin_entry_matches_reference_shape() {
        let v = check("https://example.com/").unwrap();
        assert_eq!(
            v.pin_entry().as_deref(),
            Some("example.com:443:93.184.216.34,2606:2800:220:1::1")
        );
        let one = check("https://one.one.one.one/").unwrap();
        assert_eq!(
            one.pin_entry().as_deref(),
            Some("one.one.one.one:443:1.1.1.1")
        );
        assert_eq!(check("http://8.8.8.8/").unwrap().pin_entry(), None);
        assert_eq!(
            check("https://[2001:4860:4860::8888]/")
                .unwrap()
                .pin_entry(),
            None
        );
    }

    // ---- reference HttpToolTest / RemoteToolActivatorTest, the validation parts ----

    #[test]
    fn only_http_and_https_schemes() {
        for (url, scheme) in [
            ("ftp://example.com/file.txt", "ftp"),
            ("file:///etc/passwd", "file"),
            ("ssh://user@host", "ssh"),
            ("javascript:alert(1)", "javascript"),
            ("data:text/plain,hello", "data"),
            ("gopher://example.com/", "gopher"),
            ("dict://example.com:11211/", "dict"),
            ("example.com", ""),
            ("localhost:80", ""),
        ] {
            assert_eq!(
                check(url).unwrap_err(),
                SsrfError::SchemeNotAllowed {
                    scheme: scheme.into()
                },
                "{url}"
            );
            assert!(msg(url).to_lowercase().contains("scheme"));
        }
        assert!(check("HTTP://Example.COM/").is_ok());
        assert!(check("HtTpS://example.com/").is_ok());
    }

    #[test]
    fn http_tool_blocked_hosts() {
        for url in [
            "http://localhost/secret",
            "http://127.0.0.1/admin",
            "http://127.1.2.3/test",
            "http://0.0.0.0/",
            "http://10.0.0.1/internal",
            "http://10.255.255.255/internal",
            "http://192.168.1.1/router",
            "http://192.168.0.0/config",
            "http://169.254.169.254/metadata",
            "https://169.254.0.1/",
            "http://[::1]/",
            "http://[fc00::1]/internal",
            "http://[fd00::1]/private",
            "http://[fe80::1]/link-local",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:192.168.1.1]/",
        ] {
            let m = msg(url).to_lowercase();
            assert!(m.contains("blocked"), "{url}: {m}");
        }
        assert!(regex::Regex::new("(?i)blocked.*private")
            .unwrap()
            .is_match(&msg("http://127.0.0.1/")));
    }

    #[test]
    fn url_is_trimmed_like_php() {
        assert!(check("  https://example.com/ \n").is_ok());
        assert_eq!(check(" \t\r\n\0\x0B").unwrap_err(), SsrfError::NoUrl);
    }

    #[test]
    fn https_only_policy() {
        let p = UrlPolicy::REMOTE_PROFILE;
        let e = validate("http://example.com/profile.json", &p, &dns()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "HTTPS required, skipped: http://example.com/profile.json"
        );
        // The prefix is matched as written, like str_starts_with in the reference.
        for url in [
            "HTTPS://example.com/",
            " https://example.com/",
            "https:example.com",
        ] {
            assert!(matches!(
                validate(url, &p, &dns()),
                Err(SsrfError::HttpsRequired { .. })
            ));
        }
        assert!(validate("https://example.com/profile.json", &p, &dns()).is_ok());
        assert!(validate("https://localhost/profile.json", &p, &dns()).is_err());
        assert!(validate("https://169.254.169.254/metadata", &p, &dns()).is_err());
    }

    // ---- ranges: each at its edges and one past ----

    #[test]
    fn ipv4_range_edges() {
        let cases: &[(&str, bool)] = &[
            ("0.255.255.255", false),
            ("1.0.0.0", true),
            ("9.255.255.255", true),
            ("10.0.0.0", false),
            ("10.255.255.255", false),
            ("11.0.0.0", true),
            ("100.63.255.255", true),
            ("100.64.0.0", false),
            ("100.127.255.255", false),
            ("100.128.0.0", true),
            ("126.255.255.255", true),
            ("127.255.255.255", false),
            ("128.0.0.0", true),
            ("169.253.255.255", true),
            ("169.254.0.0", false),
            ("169.254.255.255", false),
            ("169.255.0.0", true),
            ("172.15.255.255", true),
            ("172.16.0.0", false),
            ("172.31.255.255", false),
            ("172.32.0.0", true),
            ("191.255.255.255", true),
            ("192.0.0.0", false),
            ("192.0.0.255", false),
            ("192.0.1.0", true),
            ("192.0.2.0", false),
            ("192.0.2.255", false),
            ("192.0.3.0", true),
            ("192.88.98.255", true),
            ("192.0.0.9", false),
            ("192.0.0.171", false),
            ("192.31.196.1", true),
            ("192.52.193.1", true),
            ("192.88.99.0", false),
            ("192.88.99.2", false),
            ("192.88.100.0", true),
            ("192.167.255.255", true),
            ("192.168.0.0", false),
            ("192.169.0.0", true),
            ("192.175.48.1", true),
            ("198.17.255.255", true),
            ("198.18.0.0", false),
            ("198.19.255.255", false),
            ("198.20.0.0", true),
            ("198.51.99.255", true),
            ("198.51.100.0", false),
            ("198.51.101.0", true),
            ("203.0.112.255", true),
            ("203.0.113.0", false),
            ("203.0.114.0", true),
            ("223.255.255.255", true),
            ("224.0.0.0", false),
            ("239.255.255.255", false),
            ("240.0.0.0", false),
            ("255.255.255.254", false),
            ("255.255.255.255", false),
        ];
        for (a, allowed) in cases {
            assert_eq!(classify(ip(a), false).is_none(), *allowed, "{a}");
        }
    }

    #[test]
    fn ipv6_ranges_and_edges() {
        let cases: &[(&str, bool)] = &[
            ("::", false),
            ("::1", false),
            ("::2", false),         // compat form of 0.0.0.2
            ("::8.8.8.8", true),    // compat form judged by 8.8.8.8
            ("::127.0.0.1", false), // compat form of loopback
            ("::ffff:8.8.8.8", true),
            ("::ffff:10.1.2.3", false),
            ("::ffff:7f00:1", false),
            ("64:ff9b::8.8.8.8", true),
            ("64:ff9b::a9fe:a9fe", false),
            ("64:ff9b:1::8.8.8.8", false),
            ("100::", false),
            ("100::ffff:ffff:ffff:ffff", false),
            ("100:0:0:1::", false),               // dummy prefix
            ("100:0:0:2::", false),               // reserved by IETF
            ("2001::", false),                    // Teredo client bits ffff.ffff inverted → 0.0.0.0
            ("2001:0:808:808::f7f7:f7f7", true),  // server 8.8.8.8, client 8.8.8.8
            ("2001:0:808:808::80ff:fffe", false), // client 127.0.0.1
            ("2001:0:a00:1::f7f7:f7f7", false),   // server 10.0.0.1
            ("2001:1::1", false),                 // PCP anycast
            ("2001:1::4", false),
            ("2001:3::1", true),      // AMT
            ("2001:4:112::1", true),  // AS112-v6
            ("2001:4:113::1", false), // rest of 2001::/23
            ("2001:1ff:ffff::1", false),
            ("2001:200::1", true),
            ("2001:2::1", false),
            ("2001:2:1::1", false), // past benchmarking, still in 2001::/23
            ("2001:db7:ffff::1", true),
            ("2001:db8::", false),
            ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("2001:db9::", true),
            ("2002:808:808::1", true),
            ("2002:7f00:1::1", false),
            ("2002:c0a8:101::1", false),
            ("3fff::1", false),
            ("3fff:fff::1", false),
            ("3fff:1000::1", true),
            ("2620:4f:8000::6", true),
            ("4000::1", false),
            ("5f00::1", false),
            ("5f01::1", false),
            ("fbff:ffff::1", false),
            ("fc00::", false),
            ("fd00:ec2::254", false),
            ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false),
            ("fe00::1", false),
            ("fe7f:ffff::1", false),
            ("fe80::", false),
            ("febf:ffff::1", false),
            ("fec0::1", false),
            ("feff:ffff::1", false),
            ("ff00::", false),
            ("ff02::1", false),
            ("2606:4700::1111", true),
            ("2606:4700::5efe:a00:1", false), // ISATAP carrying 10.0.0.1
            ("2606:4700::200:5efe:a00:1", false),
            ("2606:4700::5efe:808:808", true), // ISATAP carrying 8.8.8.8
            ("2002:808:808::5efe:a00:1", false), // ISATAP behind an allowed 6to4 prefix
            ("::ffff:0:7f00:1", false),        // IPv4-translated loopback
            ("::ffff:0:808:808", true),        // IPv4-translated 8.8.8.8
            ("::ffff:1:0:0", false),           // reserved by IETF
        ];
        for (a, allowed) in cases {
            assert_eq!(classify(ip(a), false).is_none(), *allowed, "{a}");
        }
    }

    #[test]
    fn verdict_names_range_and_embedding() {
        let v = classify(ip("2002:a9fe:a9fe::1"), false).unwrap();
        assert_eq!(v.via, Some("6to4"));
        assert_eq!(v.range, "cloud metadata (AWS, GCP, Azure, OCI)");
        assert_eq!(v.named, ip("169.254.169.254"));
        let e = check("http://[::ffff:100.100.100.200]/").unwrap_err();
        assert_eq!(e.range(), Some("cloud metadata (Alibaba Cloud)"));
        assert_eq!(
            e.to_string(),
            "Requests to '::ffff:100.100.100.200' are blocked (resolves to CGNAT address 100.100.100.200)."
        );
        assert_eq!(e.code(), "SSRF_BLOCKED_ADDRESS");
    }

    #[test]
    fn cloud_metadata_addresses_and_names() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://169.254.170.2/v2/credentials",
            "http://[fd00:ec2::254]/latest/meta-data/",
            "http://100.100.100.200/latest/meta-data/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://metadata.google.internal./computeMetadata/v1/",
            "http://METADATA.GOOG/",
            "http://metadata/computeMetadata/v1/",
            "http://instance-data/latest/",
            "http://instance-data.ec2.internal/latest/",
            "http://foo.localhost/",
        ] {
            assert!(check(url).is_err(), "{url}");
        }
    }

    // ---- limits ----

    #[test]
    fn ports_at_and_past_the_limit() {
        assert_eq!(check("http://8.8.8.8:65535/").unwrap().port(), 65535);
        assert_eq!(
            check("http://8.8.8.8:65536/").unwrap_err(),
            SsrfError::NoHost
        );
        assert_eq!(check("http://8.8.8.8:1/").unwrap().port(), 1);
        assert_eq!(check("http://8.8.8.8:0/").unwrap().port(), 0);
        assert_eq!(check("http://8.8.8.8:/").unwrap().port(), 80);
        assert_eq!(
            check("http://8.8.8.8:99999999999999999999/").unwrap_err(),
            SsrfError::NoHost
        );
        assert_eq!(check("http://8.8.8.8:8a/").unwrap_err(), SsrfError::NoHost);
    }

    #[test]
    fn host_name_length_at_and_past_the_limit() {
        struct Any(Cell<u32>);
        impl Resolver for Any {
            fn resolve(&self, _h: &str, _p: u16) -> io::Result<Vec<IpAddr>> {
                self.0.set(self.0.get() + 1);
                Ok(vec![ip("8.8.8.8")])
            }
        }
        let label = "a".repeat(62);
        // four labels of 62 with their dots make 252 bytes; one more label reaches the limit
        let at_limit = format!("{label}.{label}.{label}.{label}.a.");
        assert_eq!(at_limit.len(), MAX_HOST_NAME_LEN);
        let past = format!("{label}.{label}.{label}.{label}.ab.");
        let r = Any(Cell::new(0));
        assert!(validate(&format!("http://{at_limit}/"), &HTTP, &r).is_ok());
        assert_eq!(r.0.get(), 1);
        assert!(matches!(
            validate(&format!("http://{past}/"), &HTTP, &r),
            Err(SsrfError::Unresolvable { .. })
        ));
        assert_eq!(r.0.get(), 1, "an over-long name is never looked up");
    }

    // ---- parsing tricks ----

    #[test]
    fn userinfo_and_fragment_tricks() {
        for url in [
            "http://a@127.0.0.1/",
            "http://good.com@127.0.0.1/",
            "http://good.com@127.0.0.1",
            "http://a@b@127.0.0.1/",
            "http://user:pass@10.0.0.1:8080/",
            "http://127.0.0.1#@good.com/",
            "http://127.0.0.1?@good.com/",
            "http://127.0.0.1/@good.com/",
        ] {
            assert!(check(url).is_err(), "{url}");
        }
        let v = check("http://user:pw@example.com/x#frag").unwrap();
        assert_eq!(v.host_ascii(), "example.com");
        assert_eq!(v.url(), "http://user:pw@example.com/x");
    }

    #[test]
    fn backslashes_whitespace_and_controls_are_refused() {
        for url in [
            "http://127.0.0.1:80\\@good.com/",
            "http://good.com\\@127.0.0.1/",
            "http:\\\\127.0.0.1/",
            "http://example.com\\path",
            "http://exa mple.com/",
            "http://loc\talhost/",
            "http://example.com/\nx",
            "http://example.com/\u{7f}",
            "http://ex\rample.com/",
        ] {
            assert_eq!(
                check(url).unwrap_err(),
                SsrfError::ForbiddenCharacters,
                "{url:?}"
            );
        }
        assert!(check("http://example.com/?q=a\\b").is_ok());
    }

    #[test]
    fn percent_and_zone_ids_are_refused() {
        assert!(matches!(
            check("http://%31%32%37.0.0.1/").unwrap_err(),
            SsrfError::EncodedHost { .. }
        ));
        assert!(matches!(
            check("http://exam%70le.com/").unwrap_err(),
            SsrfError::EncodedHost { .. }
        ));
        assert!(matches!(
            check("http://[fe80::1%25eth0]/").unwrap_err(),
            SsrfError::BlockedHost { .. }
        ));
        assert!(matches!(
            check("http://[2606:4700::1%25eth0]/").unwrap_err(),
            SsrfError::EncodedHost { .. }
        ));
    }

    #[test]
    fn idn_hosts_are_judged_in_ascii_form() {
        let v = check("http://Bücher.example/").unwrap();
        assert_eq!(v.host_ascii(), "xn--bcher-kva.example");
        assert_eq!(v.host_written(), "Bücher.example");
        for url in [
            "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/",
            "http://①②⑦.⓪.⓪.①/",
            "http://１２７.０.０.１/",
            "http://127。0。0。1/",
            "http://ＬＯＣＡＬＨＯＳＴ/",
        ] {
            assert!(check(url).is_err(), "{url}");
        }
    }

    #[test]
    fn short_and_trailing_dot_forms_are_judged_by_address() {
        // No text rule catches these; the parsed address is what refuses them.
        for (url, range) in [
            ("http://172.16.1/", "private 172.16.0.0/12"),
            ("http://192.0.2.1./", "documentation (TEST-NET-1)"),
            ("http://224.1/", "multicast"),
        ] {
            assert_eq!(check(url).unwrap_err().range(), Some(range), "{url}");
        }
        assert!(check("http://127.1/").is_err());
        assert!(check("http://127.0.1/").is_err());
        assert!(check("http://127.0.0.1./").is_err());
        assert_eq!(check("http://8.8.2056/").unwrap().host_ascii(), "8.8.8.8");
    }

    // ---- public bypass payloads (PayloadsAllTheThings style), all refused ----

    #[test]
    fn bypass_payloads_are_all_refused() {
        for url in [
            "http://127.0.0.1:80/",
            "http://127.0.0.1:443/",
            "http://127.0.0.1:22/",
            "http://127.1/",
            "http://0/",
            "http://0.0.0.0:80/",
            "http://localhost:80/",
            "http://[::]:80/",
            "http://[::]/",
            "http://[0000::1]:80/",
            "http://[0:0:0:0:0:ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::127.0.0.1]/",
            "http://[2002:7f00:1::]/",
            "http://2130706433/",
            "http://017700000001/",
            "http://0x7f000001/",
            "http://0x7f.0x0.0x0.0x1/",
            "http://0177.0000.0000.0001/",
            "http://0x7f.0.0.1/",
            "http://0177.1/",
            "http://127.0x0.0.1/",
            "http://3232235521/",
            "http://0xc0a80001/",
            "http://425.510.425.510/",
            "http://①②⑦.⓪.⓪.①/",
            "http://⑯⑨。②⑤④。⑯⑨｡②⑤④/",
            "http://localtest.me/",
            "http://127.0.0.1.nip.io/",
            "http://app.127.0.0.1.nip.io/",
            "http://metadata.nicob.net/",
            "http://169-254-169-254.sslip.io/",
            "http://spoofed.burpcollaborator.net/",
            "http://127.0.0.1%00.example.com/",
            "http://[0:0:0:0:0:0:0:0]/",
            "http://[::ffff:0.0.0.0]/",
            "http://[fe80::1%25lo]/",
            "http://0.0.0.0/",
            "http://127.127.127.127/",
            "http://127.0.0.0/",
            "https://[::1]:443/",
        ] {
            let r = check(url);
            let e = r.expect_err(url);
            assert!(!matches!(e, SsrfError::Unresolvable { .. }), "{url}: {e}");
        }
    }

    #[test]
    fn dns_rebinding_uses_the_first_answer_only() {
        struct Rebinder {
            calls: Cell<u32>,
        }
        impl Resolver for Rebinder {
            fn resolve(&self, _host: &str, _port: u16) -> io::Result<Vec<IpAddr>> {
                let n = self.calls.get();
                self.calls.set(n + 1);
                Ok(vec![if n == 0 {
                    ip("93.184.216.34")
                } else {
                    ip("169.254.169.254")
                }])
            }
        }
        let r = Rebinder {
            calls: Cell::new(0),
        };
        let v = validate("http://rebind.example/", &HTTP, &r).unwrap();
        let resolver = v.ureq_resolver();
        for _ in 0..3 {
            let got = ureq::Resolver::resolve(&resolver, "rebind.example:80").unwrap();
            assert_eq!(got, vec!["93.184.216.34:80".parse::<SocketAddr>().unwrap()]);
        }
        assert_eq!(r.calls.get(), 1, "the name is resolved once, at validation");
    }

    #[test]
    fn one_private_answer_refuses_the_name() {
        let e = check("http://mixed.example/").unwrap_err();
        assert_eq!(
            e.to_string(),
            "Requests to 'mixed.example' are blocked (resolves to private IP 10.0.0.1)."
        );
    }

    #[test]
    fn ureq_resolver_answers_only_for_the_validated_host() {
        let v = check("https://example.com:8443/x").unwrap();
        let r = v.ureq_resolver();
        assert_eq!(v.netloc(), "example.com:8443");
        assert_eq!(
            ureq::Resolver::resolve(&r, "example.com:8443")
                .unwrap()
                .len(),
            2
        );
        for other in ["example.com:443", "evil.com:8443", "127.0.0.1:8443", ""] {
            assert!(ureq::Resolver::resolve(&r, other).is_err(), "{other}");
        }
        let lit = check("http://[2606:4700::1111]/").unwrap();
        assert_eq!(lit.netloc(), "[2606:4700::1111]:80");
        assert_eq!(
            ureq::Resolver::resolve(&lit.ureq_resolver(), "[2606:4700::1111]:80").unwrap(),
            vec![SocketAddr::new(ip("2606:4700::1111"), 80)]
        );
    }

    #[test]
    fn ureq_uses_the_same_host_and_port_as_validation() {
        // ureq 2 parses the URL with the same url crate and asks its resolver for
        // host_str:port; the netloc must be exactly that for every accepted URL.
        for url in [
            "http://Bücher.example:81/a?b#c",
            "HTTPS://EXAMPLE.COM/",
            "http://8.8.2056/",
            "http://[2606:4700:0::1111]/",
        ] {
            let v = check(url).unwrap();
            let u = Url::parse(v.url()).unwrap();
            let port = u
                .port()
                .unwrap_or(if u.scheme() == "https" { 443 } else { 80 });
            assert_eq!(
                format!("{}:{}", u.host_str().unwrap(), port),
                v.netloc(),
                "{url}"
            );
        }
    }

    #[test]
    fn agent_builder_pins_and_never_follows() {
        // Building the agent must not touch the network; the pinned resolver stops any
        // connection to another host. No request is sent here.
        let v = check("https://example.com/").unwrap();
        let _agent = v.ureq_agent_builder().build();
    }

    /// One-shot HTTP server on 127.0.0.1 (never leaves the machine): answers every request
    /// with a redirect to another host and reports the request head it saw.
    fn redirect_server() -> (u16, std::thread::JoinHandle<String>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handle = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let mut buf = [0u8; 2048];
            let n = conn.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(buf.get(..n).unwrap_or(&[])).into_owned();
            let _ = conn.write_all(
                b"HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
            head
        });
        (port, handle)
    }

    #[test]
    fn agent_connects_through_the_pin_and_does_not_follow_redirects() {
        let (port, server) = redirect_server();
        // A name no real DNS knows: only the pin can take the request to the listener.
        let r = MapResolver::new().with("pinned.test", &[ip("127.0.0.1")]);
        let v = validate(&format!("http://pinned.test:{port}/x"), &TESTS, &r).unwrap();
        let agent = v
            .ureq_agent_builder()
            .timeout(std::time::Duration::from_secs(5))
            .build();
        let resp = agent.get(v.url()).call().unwrap();
        assert_eq!(resp.status(), 302, "the redirect is returned, not followed");
        assert_eq!(
            resp.header("location"),
            Some("http://169.254.169.254/latest/")
        );
        let head = server.join().unwrap();
        assert!(head.starts_with("GET /x HTTP/1.1"), "{head}");
        assert!(head
            .to_lowercase()
            .contains(&format!("host: pinned.test:{port}")));
        // The same agent refuses any other host: the pin answers for one netloc only.
        let err = agent.get("http://other.test/").call().unwrap_err();
        assert!(err.to_string().contains("other.test"), "{err}");
    }

    #[test]
    fn loopback_allowance_frees_only_loopback() {
        let r = dns();
        for url in [
            "http://127.0.0.1:8080/index.php",
            "http://127.5.6.7/",
            "http://[::1]:9000/",
            "http://loop.test/",
        ] {
            assert!(validate(url, &TESTS, &r).is_ok(), "{url}");
            assert!(validate(url, &HTTP, &r).is_err(), "{url}");
        }
        for url in [
            "http://localhost/",
            "http://10.0.0.1/",
            "http://0.0.0.0/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::]/",
            "http://169.254.169.254/",
            "http://2130706433/",
            "http://127.1/",
            "http://[fe80::1]/",
            "http://[::ffff:0:127.0.0.1]/",
            "http://[::127.0.0.1]/",
            "http://[64:ff9b::7f00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[2001:0:808:808::80ff:fffe]/",
            "http://[2606:4700::5efe:127.0.0.1]/",
        ] {
            assert!(validate(url, &TESTS, &r).is_err(), "{url}");
        }
        for url in ["http://[0:0:0:0:0:0:0:1]/", "http://[::0:1]/"] {
            assert!(validate(url, &TESTS, &r).is_ok(), "{url}");
        }
    }

    #[test]
    fn validated_fields() {
        let v = check("HTTP://User@Bücher.Example:8080/p?q=1#f").unwrap();
        assert_eq!(v.scheme(), Scheme::Http);
        assert_eq!(v.scheme().to_string(), "http");
        assert_eq!(v.host_written(), "Bücher.Example");
        assert_eq!(v.host_ascii(), "xn--bcher-kva.example");
        assert_eq!(v.port(), 8080);
        assert_eq!(v.url(), "http://User@xn--bcher-kva.example:8080/p?q=1");
        assert_eq!(v.pinned(), Some(SocketAddr::new(ip("8.8.4.4"), 8080)));
        let six = check("https://[2606:4700::1111]/").unwrap();
        assert_eq!(six.host_written(), "[2606:4700::1111]");
        assert_eq!(six.scheme(), Scheme::Https);
    }

    #[test]
    fn error_codes_are_stable() {
        let cases: &[(&str, &str)] = &[
            ("", "NO_URL"),
            ("ftp://x/", "SCHEME_NOT_ALLOWED"),
            ("http://a b/", "URL_FORBIDDEN_CHARACTERS"),
            ("http:///", "NO_HOST"),
            ("http://0x7f000001/", "SSRF_NON_STANDARD_ENCODING"),
            ("http://localhost/", "SSRF_BLOCKED_HOST"),
            ("http://%41.com/", "SSRF_ENCODED_HOST"),
            ("http://nowhere.invalid/", "SSRF_UNRESOLVABLE"),
            ("http://172.16.0.1/", "SSRF_BLOCKED_ADDRESS"),
        ];
        for (url, code) in cases {
            assert_eq!(check(url).unwrap_err().code(), *code, "{url}");
        }
        let e = validate("http://x/", &UrlPolicy::REMOTE_PROFILE, &dns()).unwrap_err();
        assert_eq!(e.code(), "HTTPS_REQUIRED");
    }

    /// One class of address: the range its verdict names, the IPv6 form that carried it, and
    /// spellings of it (compressed, expanded, zero-padded, mixed dotted-quad, upper case).
    type Class = (&'static str, Option<&'static str>, &'static [&'static str]);

    const MD: &str = "cloud metadata (AWS, GCP, Azure, OCI)";

    /// Every refused IPv6 class the tables know.
    #[rustfmt::skip]
    const REFUSED_V6: &[Class] = &[
        ("loopback", Some("IPv4-translated"), &[
            "::ffff:0:127.0.0.1", "::ffff:0:7f00:1", "0:0:0:0:ffff:0:7f00:1",
            "0000:0000:0000:0000:FFFF:0000:7F00:0001", "::FFFF:0:127.0.0.1", "::ffff:0:127.255.255.254",
        ]),
        (MD, Some("IPv4-translated"), &["::ffff:0:169.254.169.254", "::ffff:0:a9fe:a9fe", "::FFFF:0:A9FE:A9FE"]),
        ("private 10.0.0.0/8", Some("IPv4-translated"), &["::ffff:0:10.0.0.1", "::ffff:0:a00:1"]),
        ("loopback", Some("IPv4-mapped"), &[
            "::ffff:127.0.0.1", "::ffff:7f00:1", "::FFFF:7F00:1", "0:0:0:0:0:ffff:7f00:1",
            "0000:0000:0000:0000:0000:ffff:127.0.0.1",
        ]),
        ("shared address space (CGNAT)", Some("IPv4-mapped"), &["::ffff:100.64.0.1", "::ffff:6440:1"]),
        ("loopback", Some("IPv4-compatible"), &[
            "::127.0.0.1", "::7f00:1", "0:0:0:0:0:0:7f00:1", "0:0:0:0:0:0:127.0.0.1", "::7F00:1",
        ]),
        ("this network", Some("IPv4-compatible"), &["::2", "::0.0.0.2", "::ffff", "0:0:0:0:0:0:0:2"]),
        ("loopback", Some("NAT64"), &[
            "64:ff9b::127.0.0.1", "64:ff9b::7f00:1", "64:FF9B:0:0:0:0:7F00:1",
            "0064:ff9b:0000:0000:0000:0000:7f00:0001",
        ]),
        (MD, Some("NAT64"), &["64:ff9b::169.254.169.254", "64:ff9b::a9fe:a9fe"]),
        ("NAT64 local-use", None, &[
            "64:ff9b:1::8.8.8.8", "64:ff9b:1:808:800:808::", "64:FF9B:1:FFFF:FFFF:FFFF:FFFF:FFFF",
        ]),
        ("loopback", Some("6to4"), &[
            "2002:7f00:1::", "2002:7f00:0001:0000:0000:0000:0000:0001", "2002:7F00:1::1",
        ]),
        (MD, Some("6to4"), &["2002:a9fe:a9fe::", "2002:A9FE:A9FE:1:2:3:4:5"]),
        ("private 192.168.0.0/16", Some("6to4"), &["2002:c0a8:101::c0a8:101"]),
        ("private 10.0.0.0/8", Some("Teredo"), &[
            "2001:0:a00:1::f7f7:f7f7", "2001:0000:0a00:0001:0000:0000:f7f7:f7f7",
            "2001:0:A00:1:8000:63BF:F7F7:F7F7",
        ]),
        ("loopback", Some("Teredo"), &[
            "2001:0:808:808::80ff:fffe", "2001:0:808:808:0:0:80FF:FFFE",
            "2001:0:808:808:8000:ffff:80ff:fffe", "2001:0:808:808::128.255.255.254",
        ]),
        (MD, Some("Teredo"), &["2001:0:808:808::5601:5601"]),
        ("loopback", Some("ISATAP"), &[
            "2606:4700::5efe:7f00:1", "2606:4700::5efe:127.0.0.1", "2606:4700:0:0:0:5efe:7f00:1",
            "2606:4700::200:5EFE:127.0.0.1", "2606:4700::100:5efe:7f00:1",
            "2002:808:808::5efe:7f00:1", "2001:0:808:808:0:5efe:7f00:1",
        ]),
        (MD, Some("ISATAP"), &["2001:3::200:5efe:a9fe:a9fe", "2620:4f:8000::5efe:169.254.169.254"]),
        ("unspecified", None, &["::", "0:0:0:0:0:0:0:0", "0000:0000:0000:0000:0000:0000:0000:0000", "::0"]),
        ("loopback", None, &["::1", "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001", "::0:1"]),
        ("discard-only", None, &["100::", "100::1", "0100:0000:0000:0000:ffff:ffff:ffff:ffff"]),
        ("dummy prefix", None, &["100:0:0:1::", "100:0:0:1:FFFF::1"]),
        ("Port Control Protocol anycast", None, &["2001:1::1", "2001:0001:0000:0000:0000:0000:0000:0001"]),
        ("TURN anycast", None, &["2001:1::2"]),
        ("DNS-SD SRP anycast", None, &["2001:1::3"]),
        ("benchmarking", None, &["2001:2::1", "2001:2:0:ffff::1", "2001:0002::"]),
        ("ORCHID", None, &["2001:10::1", "2001:1f:ffff::1"]),
        ("ORCHIDv2", None, &["2001:20::1", "2001:2F:FFFF::1"]),
        ("drone remote ID entity tags", None, &["2001:30::1", "2001:3f::1"]),
        ("IETF protocol assignments", None, &[
            "2001:1::4", "2001:5::1", "2001:100::1", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:4:113::1",
        ]),
        ("documentation", None, &[
            "2001:db8::1", "2001:DB8::", "2001:0db8:ffff:ffff:ffff:ffff:ffff:ffff", "3fff::1",
            "3FFF:FFF::1",
        ]),
        ("SRv6 SIDs", None, &["5f00::1", "5F00:1234::1"]),
        ("cloud metadata (AWS IPv6)", None, &["fd00:ec2::254", "FD00:0EC2:0:0:0:0:0:254"]),
        ("unique local", None, &["fc00::1", "FD12:3456::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]),
        ("link-local", None, &["fe80::1", "FE80::1", "febf:ffff::1", "fe80:0:0:0:0:0:0:1", "fe80::5efe:8.8.8.8"]),
        ("site-local", None, &["fec0::1", "FEFF::1"]),
        ("multicast", None, &["ff02::1", "FF0E::1", "ff05:0:0:0:0:0:0:2"]),
        ("reserved by IETF", None, &[
            "4000::1", "1000::1", "e000::1", "200::1", "::2:0:0:1", "fe00::1", "fbff::1", "::1:0:0:0:1",
            "64:ff9b::1:0:0:1", "::ffff:1:0:0",
        ]),
    ];

    /// Addresses that carry or are public addresses: allowed.
    #[rustfmt::skip]
    const ALLOWED_V6: &[&str] = &[
        "2606:4700::1111", "2001:4860:4860::8888", "2001:3::1", "2001:4:112::1", "2620:4f:8000::6",
        "3fff:1000::1", "64:ff9b::8.8.8.8", "::ffff:8.8.8.8", "::ffff:0:8.8.8.8", "::8.8.8.8",
        "::ffff:192.31.196.1", "2002:808:808::1", "2001:0:808:808::f7f7:f7f7",
        "2606:4700::5efe:808:808", "2606:4700::200:5efe:8.8.8.8",
    ];

    #[test]
    fn ipv6_classes_in_every_spelling_are_refused() {
        for (range, via, spellings) in REFUSED_V6 {
            for s in *spellings {
                let a: Ipv6Addr = s.parse().unwrap_or_else(|_| panic!("{s}"));
                let v = classify(IpAddr::V6(a), false).unwrap_or_else(|| panic!("{s} allowed"));
                assert_eq!((v.range, v.via), (*range, *via), "{s}");
                let url = format!("http://[{s}]/");
                match check(&url) {
                    Err(SsrfError::BlockedAddress { verdict, .. }) => {
                        assert_eq!(verdict, v, "{url}")
                    }
                    Err(SsrfError::BlockedHost { .. }) => {}
                    other => panic!("{url}: {other:?}"),
                }
                // The test-only allowance frees ::1 spelled directly, never a carried loopback.
                if a != Ipv6Addr::LOCALHOST {
                    assert!(validate(&url, &TESTS, &dns()).is_err(), "{url}");
                }
                for zone in ["%25eth0", "%251", "%eth0", "%25"] {
                    let zoned = format!("http://[{s}{zone}]/");
                    assert!(check(&zoned).is_err(), "{zoned}");
                    assert!(validate(&zoned, &TESTS, &dns()).is_err(), "{zoned}");
                }
            }
        }
        for s in ALLOWED_V6 {
            let a: Ipv6Addr = s.parse().unwrap();
            assert_eq!(classify(IpAddr::V6(a), false), None, "{s}");
            let v = check(&format!("http://[{s}]/")).unwrap();
            assert_eq!(v.addrs(), &[SocketAddr::new(IpAddr::V6(a), 80)]);
        }
    }

    #[test]
    fn translated_and_other_new_classes_keep_the_reference_messages() {
        for (url, want) in [
            (
                "http://[::ffff:0:127.0.0.1]/",
                "Requests to '::ffff:0:127.0.0.1' are blocked (resolves to private IP 127.0.0.1).",
            ),
            (
                "http://[::FFFF:0:7F00:1]/",
                "Requests to '::ffff:0:7f00:1' are blocked (resolves to private IP 127.0.0.1).",
            ),
            (
                "http://[::ffff:0:100.64.0.1]/",
                "Requests to '::ffff:0:100.64.0.1' are blocked (resolves to CGNAT address 100.64.0.1).",
            ),
            (
                "http://[2001:0:808:808::5601:5601]/",
                "Requests to '2001:0:808:808::5601:5601' are blocked (resolves to private IP 169.254.169.254).",
            ),
            (
                "http://[5f00::1]/",
                "Requests to '5f00::1' are blocked (resolves to private IPv6 address 5f00::1).",
            ),
            (
                "http://[4000::1]/",
                "Requests to '4000::1' are blocked (resolves to private IPv6 address 4000::1).",
            ),
            (
                "http://[2001:20::1]/",
                "Requests to '2001:20::1' are blocked (resolves to private IPv6 address 2001:20::1).",
            ),
        ] {
            assert_eq!(msg(url), want, "{url}");
        }
        let r = MapResolver::new().with("t.example", &[ip("::ffff:0:7f00:1")]);
        assert_eq!(
            validate("http://t.example/", &HTTP, &r)
                .unwrap_err()
                .to_string(),
            "Requests to 't.example' are blocked (resolves to private IP 127.0.0.1)."
        );
        assert!(validate("http://t.example/", &TESTS, &r).is_err());
    }

    #[test]
    fn every_ipv4_table_row_is_refused_in_every_embedding() {
        for r in ip_ranges::IPV4_TABLE {
            let a = r.net;
            let [h, l] = [(u32::from(a) >> 16) as u16, u32::from(a) as u16];
            let forms = [
                Ipv6Addr::new(0, 0, 0, 0, 0, 0xffff, h, l),
                Ipv6Addr::new(0, 0, 0, 0, 0xffff, 0, h, l),
                Ipv6Addr::new(0, 0, 0, 0, 0, 0, h, l),
                Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, h, l),
                Ipv6Addr::new(0x2002, h, l, 0, 0, 0, 0, 1),
                Ipv6Addr::new(0x2001, 0, h, l, 0, 0, 0xf7f7, 0xf7f7),
                Ipv6Addr::new(0x2001, 0, 0x808, 0x808, 0, 0, !h, !l),
                Ipv6Addr::new(0x2606, 0x4700, 0, 0, 0, 0x5efe, h, l),
                Ipv6Addr::new(0x2606, 0x4700, 0, 0, 0x200, 0x5efe, h, l),
            ];
            let own = classify(IpAddr::V4(a), false);
            for f in forms {
                let got = classify(IpAddr::V6(f), false);
                assert_eq!(got.is_some(), own.is_some(), "{} as {f}", r.block);
                // :: and ::1 are compatible forms of 0.0.0.0 and 0.0.0.1 with rows of their own.
                if let (Some(g), Some(o), false) = (got, own, f.segments()[..7] == [0; 7]) {
                    assert_eq!((g.range, g.named, g.refusal), (o.range, o.named, o.refusal));
                }
            }
        }
    }

    #[test]
    fn tables_are_well_formed() {
        // The address tables are checked in ip_ranges' own tests.
        assert!(BLOCKED_HOST_PREFIXES
            .iter()
            .all(|p| *p == p.to_ascii_lowercase()));
        assert!(BLOCKED_HOST_NAMES
            .iter()
            .all(|p| *p == p.to_ascii_lowercase()));
    }
}
