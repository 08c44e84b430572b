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

use phpclaw::core::security::ssrf::ip_ranges::{classify_v4, classify_v6, IPV4_TABLE};
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
    // An ISATAP interface identifier carrying a forbidden IPv4 address, behind any prefix.
    let isatap = (s[4] & 0xfcff) == 0 && s[5] == 0x5efe && v4_forbidden(v4_of(s[6], s[7]));
    isatap || v6_prefix_forbidden(s)
}

fn v6_prefix_forbidden(s: [u16; 8]) -> bool {
    let zero = |r: std::ops::Range<usize>| s.get(r).is_some_and(|x| x.iter().all(|v| *v == 0));
    let low = v4_of(s[6], s[7]);
    if zero(0..6) {
        // ::, ::1 (0.0.0.0 and 0.0.0.1 are forbidden anyway) and the IPv4-compatible form
        return v4_forbidden(low);
    }
    if zero(0..5) && s[5] == 0xffff {
        return v4_forbidden(low); // IPv4-mapped
    }
    if zero(0..4) && s[4] == 0xffff && s[5] == 0 {
        return v4_forbidden(low); // IPv4-translated
    }
    if s[0] == 0x64 && s[1] == 0xff9b && zero(2..6) {
        return v4_forbidden(low); // NAT64
    }
    if (s[0] & 0xe000) != 0x2000 {
        return true; // outside global unicast 2000::/3
    }
    if s[0] == 0x2001 && s[1] < 0x200 {
        return match s[1] {
            0 => v4_forbidden(v4_of(!s[6], !s[7])) || v4_forbidden(v4_of(s[2], s[3])), // Teredo
            3 => false,                                                                // AMT
            4 => s[2] != 0x112,                                                        // AS112-v6
            _ => true, // the rest of the IETF protocol assignments
        };
    }
    if s[0] == 0x2001 && s[1] == 0xdb8 {
        return true;
    }
    if s[0] == 0x2002 {
        return v4_forbidden(v4_of(s[1], s[2]));
    }
    s[0] == 0x3fff && s[1] < 0x1000
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
    "::ffff:0:7f00:1",
    "::7f00:1",
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
        any::<[u8; 4]>().prop_map(|o| format!("[::ffff:0:{}.{}.{}.{}]", o[0], o[1], o[2], o[3])),
        any::<[u8; 4]>().prop_map(|o| format!("[::{}.{}.{}.{}]", o[0], o[1], o[2], o[3])),
        any::<(u16, u16)>().prop_map(|(a, b)| format!("[2002:808:808::5efe:{a:x}:{b:x}]")),
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
        ("::ffff:0:7f00:1", true),
        ("::ffff:0:808:808", false),
        ("2001:2:1::1", true),
        ("2001:4:112::1", false),
        ("5f00::1", true),
        ("2002:808:808::5efe:a00:1", true),
    ] {
        assert_eq!(forbidden(a.parse().unwrap()), bad, "{a}");
    }
}

// ---- IPv4 carried in IPv6: an embedding is never more permissive than the address itself ----

/// Every form in which an IPv6 address carries an IPv4 address `a`; `fill` supplies the bits
/// the form leaves free. `exact` forms have no free bits: they must be judged exactly like `a`.
fn embeddings(a: Ipv4Addr, fill: u128) -> Vec<(&'static str, bool, Ipv6Addr)> {
    let v = u128::from(u32::from(a));
    let not_v = u128::from(!u32::from(a));
    let low64 = fill & ((1u128 << 64) - 1);
    let high64 = fill & !((1u128 << 64) - 1);
    let teredo = 0x2001_0000u128 << 96;
    let forms: [(&'static str, bool, u128); 15] = [
        ("IPv4-mapped", true, 0xffff << 32 | v),
        ("IPv4-translated", true, 0xffff << 48 | v),
        ("IPv4-compatible", true, v),
        ("NAT64", true, 0x64_ff9b << 96 | v),
        // Local-use NAT64 may put the address at any RFC 6052 position: /96 and /64 here.
        (
            "NAT64 local-use /96",
            false,
            0x64_ff9b_0001 << 80 | (fill & 0xffff_ffff << 32 & ((1 << 80) - 1)) | v,
        ),
        (
            "NAT64 local-use /64",
            false,
            0x64_ff9b_0001 << 80 | (fill & 0xffff << 64) | v << 24 | (fill & 0xff_ffff),
        ),
        (
            "6to4",
            false,
            0x2002 << 112 | v << 80 | (fill & ((1 << 80) - 1)),
        ),
        ("Teredo server", false, teredo | v << 64 | low64),
        (
            "Teredo client",
            false,
            teredo | (fill & ((1 << 96) - 1) & !0xffff_ffff) | not_v,
        ),
        ("ISATAP", false, high64 | 0x5efe << 32 | v),
        ("ISATAP u", false, high64 | 0x0200_5efe << 32 | v),
        ("ISATAP g", false, high64 | 0x0100_5efe << 32 | v),
        ("ISATAP ug", false, high64 | 0x0300_5efe << 32 | v),
        (
            "ISATAP behind 6to4",
            false,
            0x2002_0808_0808 << 80 | (fill & 0xffff << 64) | 0x5efe << 32 | v,
        ),
        (
            "ISATAP behind Teredo",
            false,
            teredo | 0x0808_0808 << 64 | 0x5efe << 32 | v,
        ),
    ];
    forms
        .into_iter()
        .map(|(name, exact, bits)| (name, exact, Ipv6Addr::from(bits)))
        .collect()
}

/// `classify(E(a))` refuses whenever `classify(a)` does, for every embedding `E`, with and
/// without the loopback allowance (which never frees a carried loopback; `::1`, the compatible
/// form of 0.0.0.1, is the IPv6 loopback itself and the one address it frees); exact forms are
/// judged exactly like `a`.
fn embedding_property(a: Ipv4Addr, fill: u128) {
    let own = classify_v4(a, false);
    for (name, exact, e) in embeddings(a, fill) {
        for allow in [false, true] {
            if allow && e == Ipv6Addr::LOCALHOST {
                continue;
            }
            let got = classify_v6(e, allow);
            if own.is_some() {
                assert!(
                    got.is_some(),
                    "{a} refused but {name} {e} allowed (allowance {allow})"
                );
            }
        }
        if exact && own.is_none() {
            assert_eq!(
                classify_v6(e, false),
                None,
                "{a} allowed but {name} {e} refused"
            );
        }
    }
}

fn row_address() -> impl Strategy<Value = Ipv4Addr> {
    (0..IPV4_TABLE.len(), any::<u32>()).prop_map(|(i, r)| {
        let row = &IPV4_TABLE[i];
        let host = u32::MAX.checked_shr(u32::from(row.prefix)).unwrap_or(0);
        Ipv4Addr::from(u32::from(row.net) | (r & host))
    })
}

proptest! {
    #[test]
    fn embeddings_never_free_a_refused_ipv4_address(
        a in prop_oneof![any::<u32>().prop_map(Ipv4Addr::from), row_address()],
        fill in any::<u128>(),
    ) {
        embedding_property(a, fill);
    }
}

/// The same property at every row's edges and one past them, with three fillers: every place
/// where the IPv4 verdict changes. Both ends of every /12 add a coarse sweep of the whole space
/// (all 2^32 addresses times 15 forms is too slow for a debug test run; the proptest above
/// samples the rest, more with `PROPTEST_CASES`).
#[test]
fn embeddings_at_every_ipv4_boundary() {
    let mut addrs: Vec<u32> = Vec::new();
    for row in IPV4_TABLE {
        let first = u32::from(row.net);
        let last = first | u32::MAX.checked_shr(u32::from(row.prefix)).unwrap_or(0);
        addrs.extend([first, last, first.wrapping_sub(1), last.wrapping_add(1)]);
    }
    for fill in [0, u128::MAX, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210] {
        for a in &addrs {
            embedding_property(Ipv4Addr::from(*a), fill);
        }
    }
    for block in 0..(1u32 << 12) {
        let first = block << 20;
        embedding_property(Ipv4Addr::from(first), 0x2606_4700 << 96);
        embedding_property(Ipv4Addr::from(first | 0xf_ffff), 0x2606_4700 << 96);
    }
}

#[test]
fn embeddings_of_known_addresses() {
    // The red-team finding and its siblings, by hand.
    for e in [
        "::ffff:0:127.0.0.1",
        "::ffff:0:169.254.169.254",
        "::ffff:127.0.0.1",
        "::127.0.0.1",
        "64:ff9b::127.0.0.1",
        "64:ff9b:1::7f00:1",
        "2002:7f00:1::",
        "2001:0:7f00:1::f7f7:f7f7",
        "2001:0:808:808::80ff:fffe",
        "2606:4700::5efe:127.0.0.1",
        "2606:4700::200:5efe:127.0.0.1",
    ] {
        let ip: Ipv6Addr = e.parse().unwrap();
        assert!(classify_v6(ip, false).is_some(), "{e}");
        assert!(classify_v6(ip, true).is_some(), "{e}");
        assert!(v6_forbidden(ip), "oracle: {e}");
    }
}
