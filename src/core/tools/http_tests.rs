use super::*;

fn plan(v: Value) -> Result<Planned, String> {
    Http::new(UrlPolicy::HTTP_TOOL).plan_with(&v, &ssrf::MapResolver::new())
}

#[test]
fn order_of_refusals() {
    assert_eq!(
        plan(Value::from_pairs([("url", " ")])).unwrap_err(),
        "No URL provided."
    );
    assert_eq!(
        plan(Value::from_pairs([("url", "ftp://x"), ("method", "PUT")])).unwrap_err(),
        "URL scheme 'ftp' is not allowed. Only http:// and https:// are permitted."
    );
    assert_eq!(
        plan(Value::from_pairs([
            ("url", "http://127.0.0.1/"),
            ("method", " put ")
        ]))
        .unwrap_err(),
        "HTTP method 'PUT' is not allowed. Use GET or POST."
    );
    assert_eq!(
        plan(Value::from_pairs([("url", "http://127.0.0.1/")])).unwrap_err(),
        "Requests to '127.0.0.1' are blocked (private/internal address)."
    );
}

#[test]
fn truncation_at_and_past() {
    assert_eq!(truncate(b"abcd".to_vec(), 4), b"abcd");
    assert_eq!(
        truncate(b"abcde".to_vec(), 4),
        b"abcd\n[Response truncated at 4 bytes]"
    );
}

#[test]
fn loopback_with_test_policy_plans_and_strips_crlf() {
    let policy = UrlPolicy {
        allow_loopback_for_tests: true,
        ..UrlPolicy::HTTP_TOOL
    };
    let mut h = Array::new();
    h.insert("X-A\r\n", Value::str("v\r\nInjected: 1"));
    let v = Value::from_pairs([
        ("url", Value::str(" http://127.0.0.1:9/x ")),
        ("method", Value::str("post")),
        ("headers", Value::Array(h)),
    ]);
    let p = Http::new(policy)
        .plan_with(&v, &ssrf::MapResolver::new())
        .unwrap();
    assert_eq!(p.method, "POST");
    assert_eq!(p.url, "http://127.0.0.1:9/x");
    assert_eq!(p.headers, [("X-A".to_string(), "vInjected: 1".to_string())]);
}
