//! `http_request`: one outbound GET or POST to a public URL.
//!
//! Rules (phpClaw's HttpTool, spec "http_request"):
//! - the URL is trimmed; empty is "No URL provided.", a scheme other than http/https is
//!   refused, then the method (trimmed, upper-cased, default GET) must be GET or POST;
//! - the URL then passes [`ssrf::validate`] and the connection goes only to the validated
//!   addresses ([`ssrf::Validated::ureq_agent_builder`]), redirects never followed, no proxy;
//! - User-Agent `phpClaw/1.0`; caller headers are sent with CR and LF removed;
//! - a transport failure is "HTTP request failed: …"; any HTTP status is an answer;
//! - the body is cut at `maxResponseBytes` with "\n[Response truncated at N bytes]".

use std::io::Read;
use std::time::Duration;

use super::{success, Host, NativeTool, ToolError};
use crate::core::security::ssrf::{
    self, Resolver, SsrfError, SystemResolver, UrlPolicy, Validated,
};
use crate::core::value::{Array, Key, Value};

/// The tool name.
pub const NAME: &str = "http_request";
/// The description advertised to the model.
pub const DESCRIPTION: &str = "FETCH a real HTTP response from a public URL (GET/POST). Use whenever the user asks to retrieve or check a URL. Invoke: never describe what the URL might return.";
/// Default response cap.
pub const DEFAULT_MAX_RESPONSE_BYTES: i64 = 8192;
/// Default timeout.
pub const DEFAULT_TIMEOUT_SECONDS: i64 = 10;
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "make an outbound HTTP request";
/// The input keys read.
pub const INPUT_KEYS: [&str; 4] = ["url", "method", "body", "headers"];
/// The User-Agent sent.
pub const USER_AGENT: &str = "phpClaw/1.0";
/// Allowed methods.
pub const METHODS: [&str; 2] = ["GET", "POST"];
/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["network"],
    &["http", "request", "fetch", "url", "api", "endpoint", "curl"],
    &["fetch url", "call api", "http request"],
    &["fetch https://example.com/status"],
];

const PHP_TRIM: &[char] = &[' ', '\t', '\n', '\r', '\0', '\x0B'];

/// The input schema.
pub fn input_schema() -> Value {
    let s = |d: &str| Value::from_pairs([("type", "string"), ("description", d)]);
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                (
                    "url",
                    s("The URL to request (must be http:// or https://)."),
                ),
                (
                    "method",
                    Value::from_pairs([
                        ("type", Value::str("string")),
                        ("enum", Value::list(METHODS)),
                        ("description", Value::str("HTTP method. Defaults to GET.")),
                    ]),
                ),
                ("body", s("Request body for POST requests.")),
                (
                    "headers",
                    Value::from_pairs([
                        ("type", Value::str("object")),
                        (
                            "additionalProperties",
                            Value::from_pairs([("type", "string")]),
                        ),
                        (
                            "description",
                            Value::str("Optional HTTP headers as key-value pairs."),
                        ),
                    ]),
                ),
            ]),
        ),
        ("required", Value::list(["url"])),
    ])
}

/// The tool's configuration.
#[derive(Debug, Clone)]
pub struct Http {
    /// Response cap in bytes.
    pub max_response_bytes: i64,
    /// Timeout in seconds (0: none, as curl).
    pub timeout_seconds: i64,
    /// The SSRF policy (loopback only with the test php.ini setting).
    pub policy: UrlPolicy,
}

/// The planned request.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The trimmed URL as given.
    pub url: String,
    /// GET or POST.
    pub method: String,
    /// Request body.
    pub body: Vec<u8>,
    /// Headers (name, value), CR/LF removed.
    pub headers: Vec<(String, String)>,
    /// Where to connect.
    pub validated: Validated,
}

/// The answer.
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Response headers (last value per name; names lower-cased, as ureq 2 reports them).
    pub headers: Array,
    /// The (truncated) body.
    pub body: Vec<u8>,
}

/// PHP's `(string)` of a scalar input value.
pub fn php_string(v: Option<&Value>) -> Vec<u8> {
    v.and_then(crate::core::value::php_string)
        .unwrap_or_default()
}

fn strip_crlf(b: &[u8]) -> String {
    let kept: Vec<u8> = b
        .iter()
        .copied()
        .filter(|c| *c != b'\r' && *c != b'\n')
        .collect();
    String::from_utf8_lossy(&kept).into_owned()
}

/// The body cut at `max` bytes with the marker.
pub fn truncate(body: Vec<u8>, max: i64) -> Vec<u8> {
    let cap = usize::try_from(max.max(0)).unwrap_or(usize::MAX);
    if body.len() <= cap {
        return body;
    }
    let mut out = body[..cap].to_vec();
    out.extend_from_slice(format!("\n[Response truncated at {max} bytes]").as_bytes());
    out
}

/// Resolves nothing: the first validation pass only checks URL shape and scheme.
struct NoLookup;
impl Resolver for NoLookup {
    fn resolve(&self, _host: &str, _port: u16) -> std::io::Result<Vec<std::net::IpAddr>> {
        Err(std::io::Error::other("no lookup"))
    }
}

impl Http {
    /// A tool with the reference's defaults.
    pub fn new(policy: UrlPolicy) -> Http {
        Http {
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
            policy,
        }
    }

    /// Plan against an injectable resolver.
    pub fn plan_with(&self, input: &Value, resolver: &dyn Resolver) -> Result<Planned, String> {
        let arr = input.as_array();
        let raw_url =
            String::from_utf8_lossy(&php_string(arr.and_then(|a| a.get("url")))).into_owned();
        let url = raw_url.trim_matches(PHP_TRIM).to_string();
        let method_raw = match arr.and_then(|a| a.get("method")) {
            None | Some(Value::Null) => b"GET".to_vec(),
            v => php_string(v),
        };
        let method = String::from_utf8_lossy(&method_raw)
            .trim_matches(PHP_TRIM)
            .to_ascii_uppercase();
        // URL emptiness and scheme first, then the method, then the full SSRF check.
        if let Err(e @ (SsrfError::NoUrl | SsrfError::SchemeNotAllowed { .. })) =
            ssrf::validate(&url, &self.policy, &NoLookup)
        {
            return Err(e.to_string());
        }
        if !METHODS.contains(&method.as_str()) {
            return Err(format!(
                "HTTP method '{method}' is not allowed. Use GET or POST."
            ));
        }
        let body = php_string(arr.and_then(|a| a.get("body")));
        let mut headers = Vec::new();
        if let Some(Value::Array(h)) = arr.and_then(|a| a.get("headers")) {
            for (k, v) in h.iter() {
                let name = match k {
                    Key::Int(n) => n.to_string().into_bytes(),
                    Key::Str(s) => s.to_vec(),
                };
                headers.push((strip_crlf(&name), strip_crlf(&php_string(Some(v)))));
            }
        }
        let validated = ssrf::validate(&url, &self.policy, resolver).map_err(|e| e.to_string())?;
        Ok(Planned {
            url,
            method,
            body,
            headers,
            validated,
        })
    }

    /// Send the planned request.
    pub fn send(&self, p: &Planned) -> Result<Answer, String> {
        let mut b = p.validated.ureq_agent_builder().user_agent(USER_AGENT);
        if self.timeout_seconds > 0 {
            let t = Duration::from_secs(self.timeout_seconds as u64);
            b = b.timeout(t).timeout_connect(t);
        }
        let agent = b.build();
        let mut req = agent.request(&p.method, p.validated.url());
        for (name, value) in &p.headers {
            req = req.set(name, value);
        }
        let result = if p.method == "POST" {
            req.send_bytes(&p.body)
        } else {
            req.call()
        };
        let resp = match result {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => return Err(format!("HTTP request failed: {e}")),
        };
        let status = resp.status();
        let mut headers = Array::new();
        for name in resp.headers_names() {
            // The last value of a repeated header wins, as the reference's map keeps it.
            if let Some(v) = resp.all(&name).last() {
                headers.insert(name.as_str(), Value::str(v.trim()));
            }
        }
        let cap = u64::try_from(self.max_response_bytes.max(0)).unwrap_or(u64::MAX);
        let mut body = Vec::new();
        resp.into_reader()
            .take(cap.saturating_add(1))
            .read_to_end(&mut body)
            .map_err(|e| format!("HTTP request failed: {e}"))?;
        Ok(Answer {
            status,
            headers,
            body: truncate(body, self.max_response_bytes),
        })
    }
}

impl NativeTool for Http {
    type Input = Planned;
    type Execution = Answer;

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        _host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        self.plan_with(input, &SystemResolver)
            .map_err(ToolError::Tool)
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        _host: &mut H,
    ) -> Result<Answer, ToolError<H::Error>> {
        self.send(input).map_err(ToolError::Tool)
    }

    fn complete(&mut self, a: &Answer, input: &Planned) -> Value {
        success(
            Value::from_pairs([
                ("status", Value::Int(i64::from(a.status))),
                ("headers", Value::Array(a.headers.clone())),
                ("body", Value::str(&a.body)),
            ]),
            Value::from_pairs([
                ("mode", Value::str("http")),
                ("method", Value::str(&input.method)),
                ("url", Value::str(&input.url)),
            ]),
            Value::Array(Array::new()),
        )
    }
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
