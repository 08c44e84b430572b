//! Fuzzing the SSRF validator: arbitrary text and URL-shaped strings never panic or hang, and
//! an accepted URL's pinned addresses are never in a forbidden range.
//!
//! The forbidden-range oracle below is written independently of the module's tables (bit
//! tests on octets and segments), so a table mistake shows up as a property failure.
//! Names resolve through a deterministic hash resolver that often answers with forbidden
//! addresses; nothing touches the network. `PROPTEST_CASES` sets the case count for long runs.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::{Duration, Instant};

use phpclaw::core::security::ssrf::{validate, Resolver, UrlPolicy, Validated};
use proptest::prelude::*;

/// Per-case time limit: the validator is linear, so even debug builds stay far below this.
const CASE_LIMIT: Duration = Duration::from_secs(2);

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn v4_forbidden(a: Ipv4Addr) -> bool {
    let [o0, o1, o2, _] = a.octets();
    o0 == 0
        || o0 == 10
        || o0 == 127
        || (o0 == 100 && (o1 & 0xc0) == 64)
        || (o0 == 169 && o1 == 254)
        || (o0 == 172 && (o1 & 0xf0) == 16)
        || (o0 == 192 && o1 == 0 && (o2 == 0 || o2 == 2))
        || (o0 == 192 && o1 == 88 && o2 == 99)
        || (o0 == 192 && o1 == 168)
        || (o0 == 198 && (o1 & 0xfe) == 18)
        || (o0 == 198 && o1 == 51 && o2 == 100)
        || (o0 == 203 && o1 == 0 && o2 == 113)
        || o0 >= 224
}

fn v4_of(hi: u16, lo: u16) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
}

fn v6_forbidden(a: Ipv6Addr) -> bool {
    let s = a.segments();
    let zero = |r: std::ops::Range<usize>| s.get(r).is_some_and(|x| x.iter().all(|v| *v == 0));
    if zero(0..6) {
        // ::, ::1, and the IPv4-compatible form
        return zero(0..8) || a == Ipv6Addr::LOCALHOST || v4_forbidden(v4_of(s[6], s[7]));
    }
    if zero(0..5) && s[5] == 0xffff {
        return v4_forbidden(v4_of(s[6], s[7]));
    }
    if s[0] == 0x64 && s[1] == 0xff9b {
        if zero(2..6) {
            return v4_forbidden(v4_of(s[6], s[7]));
        }
        if s[2] == 1 {
            return true;
        }
    }
    if s[0] == 0x100 && zero(1..4) {
        return true;
    }
    if s[0] == 0x2001 && s[1] == 0 {
        return v4_forbidden(v4_of(!s[6], !s[7])) || v4_forbidden(v4_of(s[2], s[3]));
    }
    if (s[0] == 0x2001 && s[1] == 2 && s[2] == 0) || (s[0] == 0x2001 && s[1] == 0xdb8) {
        return true;
    }
    if s[0] == 0x2002 {
        return v4_forbidden(v4_of(s[1], s[2]));
    }
    if s[0] == 0x3fff && s[1] < 0x1000 {
        return true;
    }
    if (s[0] & 0xfe00) == 0xfc00 || (s[0] & 0xffc0) == 0xfe80 || (s[0] & 0xffc0) == 0xfec0 {
        return true;
    }
    if (s[0] & 0xff00) == 0xff00 {
        return true;
    }
    if (s[4] & 0xfcff) == 0 && s[5] == 0x5efe {
        return v4_forbidden(v4_of(s[6], s[7]));
    }
    false
}

fn forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => v4_forbidden(a),
        IpAddr::V6(a) => v6_forbidden(a),
    }
}

/// Answers every name with one to three addresses chosen by a hash of the name, from a pool
/// rich in forbidden addresses plus hash-derived ones.
struct HashResolver;

const POOL: &[&str] = &[
    "8.8.8.8",
    "127.0.0.1",
    "10.1.2.3",
    "169.254.169.254",
    "100.100.100.200",
    "192.168.0.1",
    "0.0.0.0",
    "2606:4700::1111",
    "::1",
    "::ffff:127.0.0.1",
    "fd00:ec2::254",
    "fe80::1",
    "2002:a9fe:a9fe::1",
    "2001:0:808:808::80ff:fffe",
    "64:ff9b::a00:1",
    "1.1.1.1",
];

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Resolver for HashResolver {
    fn resolve(&self, host: &str, _port: u16) -> io::Result<Vec<IpAddr>> {
        let h = fnv(host);
        if h % 11 == 0 {
            return Err(io::Error::new(io::ErrorKind::NotFound, "nxdomain"));
        }
        let n = 1 + (h % 3) as usize;
        let mut out = Vec::new();
        for i in 0..n {
            let k = h.rotate_left(7 * i as u32 + 3);
            let ip = if k % 4 == 0 {
                IpAddr::V4(Ipv4Addr::from((k >> 8) as u32))
            } else if k % 4 == 1 {
                IpAddr::V6(Ipv6Addr::from(
                    u128::from(k) << 64 | u128::from(k.rotate_left(13)),
                ))
            } else {
                POOL.get((k >> 4) as usize % POOL.len())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(IpAddr::V4(Ipv4Addr::new(8, 8, 8, 8)))
            };
            out.push(ip);
        }
        Ok(out)
    }
}

const POLICIES: &[UrlPolicy] = &[
    UrlPolicy::HTTP_TOOL,
    UrlPolicy::REMOTE_PROFILE,
    UrlPolicy {
        https_only: false,
        allow_loopback_for_tests: true,
    },
];

fn check_ok(v: &Validated, policy: &UrlPolicy, input: &str) {
    assert!(!v.addrs().is_empty(), "{input:?}");
    for a in v.addrs() {
        let ip = a.ip();
        let freed = policy.allow_loopback_for_tests
            && match ip {
                IpAddr::V4(x) => x.octets()[0] == 127,
                IpAddr::V6(x) => x == Ipv6Addr::LOCALHOST,
            };
        assert!(!forbidden(ip) || freed, "{input:?} pinned forbidden {ip}");
        assert_eq!(a.port(), v.port());
    }
    if policy.https_only {
        assert!(input.starts_with("https://"), "{input:?}");
    }
    // The URL the client parses gives the host and port that were judged.
    let u = url::Url::parse(v.url()).expect("validated URL re-parses");
    let port = u.port_or_known_default().expect("http(s) has a port");
    assert_eq!(
        format!("{}:{}", u.host_str().unwrap_or(""), port),
        v.netloc()
    );
    let pinned = ureq::Resolver::resolve(&v.ureq_resolver(), &v.netloc()).expect("pin answers");
    assert_eq!(pinned, v.addrs());
}

fn run(input: &str) {
    for policy in POLICIES {
        let start = Instant::now();
        let r = validate(input, policy, &HashResolver);
        assert!(start.elapsed() < CASE_LIMIT, "slow on {input:?}");
        match r {
            Ok(v) => check_ok(&v, policy, input),
            Err(e) => {
                assert!(!e.to_string().is_empty());
                assert!(!e.code().is_empty());
            }
        }
    }
}

fn host_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<[u8; 4]>().prop_map(|o| format!("{}.{}.{}.{}", o[0], o[1], o[2], o[3])),
        any::<u32>().prop_map(|n| n.to_string()),
        any::<u32>().prop_map(|n| format!("0x{n:x}")),
        any::<[u8; 4]>().prop_map(|o| format!("0{:o}.{}.0x{:x}.{}", o[0], o[1], o[2], o[3])),
        (any::<u8>(), any::<u16>()).prop_map(|(a, b)| format!("{a}.{b}")),
        any::<u128>().prop_map(|n| format!("[{}]", Ipv6Addr::from(n))),
        any::<[u8; 4]>().prop_map(|o| format!("[::ffff:{}.{}.{}.{}]", o[0], o[1], o[2], o[3])),
        any::<[u8; 4]>().prop_map(|o| format!(
            "[2002:{:02x}{:02x}:{:02x}{:02x}::1]",
            o[0], o[1], o[2], o[3]
        )),
        any::<(u16, u16)>().prop_map(|(a, b)| format!("[2001:0:4136:e378:8000:63bf:{a:x}:{b:x}]")),
        any::<(u16, u16)>().prop_map(|(a, b)| format!("[64:ff9b::{a:x}:{b:x}]")),
        any::<(u16, u16)>().prop_map(|(a, b)| format!("[2606:4700::5efe:{a:x}:{b:x}]")),
        "[a-z0-9-]{1,12}(\\.[a-z0-9-]{1,12}){0,3}\\.?",
        "[a-zA-Z0-9.:%@\\[\\]_~-]{0,30}",
        "\\PC{0,16}",
        Just("localhost".to_owned()),
        Just("metadata.google.internal".to_owned()),
    ]
}

fn url_strategy() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            Just("http://"),
            Just("https://"),
            Just("HTTP://"),
            Just("http:"),
            Just("http:/"),
            Just("ftp://"),
            Just("")
        ],
        proptest::option::of("[a-z:@]{0,8}@"),
        host_strategy(),
        proptest::option::of(any::<u32>()),
        "[/?#][ -~]{0,20}|",
    )
        .prop_map(|(scheme, user, host, port, rest)| {
            let user = user.unwrap_or_default();
            let port = port.map(|p| format!(":{}", p % 70_000)).unwrap_or_default();
            format!("{scheme}{user}{host}{port}{rest}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        run(&s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..300)) {
        run(&String::from_utf8_lossy(&b));
    }

    #[test]
    fn url_shaped_inputs_pin_only_allowed_addresses(u in url_strategy()) {
        run(&u);
    }
}

proptest! {
    // Each case is up to 16 KB per input: fewer cases keep the default run short.
    #![proptest_config(ProptestConfig { cases: (cases(256) / 16).max(8), ..ProptestConfig::default() })]

    #[test]
    fn long_inputs_stay_fast(rep in 1usize..2000, unit in "[a-z0-9.@:%\\[\\]/-]{1,8}") {
        run(&format!("http://{}/", unit.repeat(rep)));
        run(&format!("http://{}", "a.".repeat(rep)));
    }
}

/// The URL-shaped property would prove nothing if every input were refused: check that a
/// fixed-seed sample has both outcomes, including accepted names that went through the resolver.
#[test]
fn url_sample_has_accepted_and_refused_cases() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = url_strategy();
    let (mut ok, mut ok_names, mut err) = (0, 0, 0);
    for _ in 0..400 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let u = tree.current();
        match validate(&u, &UrlPolicy::HTTP_TOOL, &HashResolver) {
            Ok(v) => {
                ok += 1;
                if !v.is_ip_literal() {
                    ok_names += 1;
                }
            }
            Err(_) => err += 1,
        }
    }
    assert!(
        ok > 10 && ok_names > 1 && err > 10,
        "ok {ok}, names {ok_names}, err {err}"
    );
}

#[test]
fn oracle_agrees_on_known_addresses() {
    for (a, bad) in [
        ("8.8.8.8", false),
        ("100.64.0.0", true),
        ("100.128.0.0", false),
        ("::ffff:7f00:1", true),
        ("2001:0:808:808::f7f7:f7f7", false),
        ("2606:4700::1111", false),
        ("fd00:ec2::254", true),
    ] {
        assert_eq!(forbidden(a.parse().unwrap()), bad, "{a}");
    }
}
