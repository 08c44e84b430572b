//! The addresses an outbound request may reach, as tables with names.
//!
//! Rules:
//! - an address is judged by the first row that contains it, so specific rows sit before the
//!   blocks that hold them (a test checks that no row is hidden by an earlier one);
//! - the IPv6 table covers every address: its last two rows allow global unicast `2000::/3`
//!   and refuse everything else (reserved by the IETF, RFC 4291 §2.4); an IPv4 address in no
//!   row is allowed;
//! - every row of the IANA special-purpose registries that is not globally reachable is
//!   refused, or, for a form that carries an IPv4 address, judged by that address; a few
//!   globally reachable rows are refused too, each with its reason beside it;
//! - IPv6 forms that carry an IPv4 address are judged by the IPv4 address they carry, exactly
//!   as if it had been written: IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`,
//!   IPv4-compatible `::/96` and NAT64 `64:ff9b::/96` (low 32 bits), 6to4 `2002::/16`
//!   (bits 16..48), Teredo `2001::/32` (server in bits 32..64 and the client, the low 32 bits
//!   inverted: both must be allowed); NAT64 local-use `64:ff9b:1::/48` may put the IPv4
//!   address at any RFC 6052 position, so the whole block is refused;
//! - an ISATAP interface identifier (`0000:5efe` or `0200:5efe`, u/g bits either way, then the
//!   IPv4 address; RFC 5214) is judged behind any prefix, after the row's own verdict;
//! - the loopback allowance (the test-only `phpclaw.test_allow_loopback`) frees exactly
//!   127.0.0.0/8 and `::1`. An IPv6 form that carries a loopback IPv4 address
//!   (`::ffff:127.0.0.1`, `64:ff9b::7f00:1`, `2002:7f00:1::`, ...) stays refused with it:
//!   the local test servers listen on 127.0.0.1 and `::1`, and every spelling freed besides
//!   those is one more way in if the setting ever reaches production.
//!
//! Sources: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 as updated by
//! RFC 8190; every row as published in 2025, up to RFC 9780's dummy prefix), the IANA IPv6
//! Address Space registry (global unicast, multicast, deprecated site-local), IPv4 multicast
//! (RFC 5771), the IPv4-translated form of RFC 2765, ISATAP (RFC 5214) and the published cloud
//! metadata addresses; phpClaw's `SsrfValidator` covers a subset (loopback, private,
//! link-local, CGNAT, reserved, unspecified, IPv6 loopback, ULA, link-local, IPv4-mapped).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which reference message family a refusal belongs to; PHP callers match these texts. A
/// refusal the reference has no message for takes the closest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// IPv4 shared address space 100.64.0.0/10: the reference names it "CGNAT address".
    Cgnat,
    /// Any other forbidden IPv4 address: the reference calls it "private IP".
    PrivateV4,
    /// `::1`: the reference says "IPv6 loopback" without the address.
    Ipv6Loopback,
    /// Unique-local and every other forbidden IPv6 range without a message of its own.
    PrivateV6,
    /// fe80::/10: the reference has a link-local message.
    LinkLocalV6,
}

/// The registry's "Globally Reachable" column for a row (RFC 8190), or that the row is not a
/// registry row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reachable {
    /// Globally Reachable: True.
    Yes,
    /// Globally Reachable: False.
    No,
    /// Globally Reachable: N/A (6to4, Teredo: it depends on the IPv4 address carried), or a
    /// row the registry keeps as deprecated.
    NotApplicable,
    /// Not a row of the special-purpose registries (multicast, site-local, the IPv4-translated
    /// and IPv4-compatible forms, cloud metadata, global unicast, the reserved rest).
    Unlisted,
}

/// What an IPv4 row means for a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V4Rule {
    /// A request may go there.
    Allow,
    /// Never reachable; the refusal picks the message.
    Refuse(Refusal),
}

/// An IPv4 row.
#[derive(Clone, Copy, Debug)]
pub struct V4Range {
    /// The block as the registry writes it, `a.b.c.d/n`.
    pub block: &'static str,
    /// Name shown in logs and carried by the error.
    pub name: &'static str,
    /// The RFC that defines the block; empty for the cloud metadata rows.
    pub rfc: &'static str,
    /// The registry's "Globally Reachable" value.
    pub reachable: Reachable,
    /// What to do with an address inside it.
    pub rule: V4Rule,
    /// Network address (parsed from `block` at compile time).
    pub net: Ipv4Addr,
    /// Prefix length in bits.
    pub prefix: u8,
}

/// What an IPv6 row means for a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V6Rule {
    /// A request may go there (unless an ISATAP interface identifier carries a refused IPv4
    /// address).
    Allow,
    /// Never reachable; the refusal picks the message.
    Refuse(Refusal),
    /// The low 32 bits are an IPv4 address, judged as such.
    EmbeddedLow32,
    /// 6to4: bits 16..48 are the IPv4 address.
    SixToFour,
    /// Teredo: bits 32..64 are the server IPv4 address, the low 32 bits the client address
    /// with every bit inverted; both must be allowed.
    Teredo,
}

/// An IPv6 row.
#[derive(Clone, Copy, Debug)]
pub struct V6Range {
    /// The block as the registry writes it, `x:y::/n`.
    pub block: &'static str,
    /// Name shown in logs and carried by the error.
    pub name: &'static str,
    /// The RFC that defines the block; empty for the cloud metadata row.
    pub rfc: &'static str,
    /// The registry's "Globally Reachable" value.
    pub reachable: Reachable,
    /// What to do with an address inside it.
    pub rule: V6Rule,
    /// Network address (parsed from `block` at compile time).
    pub net: Ipv6Addr,
    /// Prefix length in bits.
    pub prefix: u8,
}

// ---- compile-time parsing of the blocks: a typo in a table is a build error ----

const fn find(b: &[u8], c: u8, from: usize, end: usize) -> usize {
    let mut i = from;
    while i < end && b[i] != c {
        i += 1;
    }
    i
}

const fn decimal(b: &[u8], from: usize, end: usize, max: u32) -> u32 {
    assert!(
        from < end && end - from <= 3,
        "table block: bad decimal number"
    );
    let mut v = 0;
    let mut i = from;
    while i < end {
        assert!(b[i].is_ascii_digit(), "table block: bad decimal digit");
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    assert!(v <= max, "table block: number out of range");
    v
}

const fn hex_digit(c: u8) -> u32 {
    match c {
        b'0'..=b'9' => (c - b'0') as u32,
        b'a'..=b'f' => (c - b'a' + 10) as u32,
        _ => panic!("table block: bad hex digit (lower case only)"),
    }
}

const fn host_bits_clear(bits: u128, width: u32, prefix: u32) -> bool {
    let host = match u128::MAX.checked_shr(128 - width + prefix) {
        Some(m) => m,
        None => 0,
    };
    bits & host == 0
}

/// `a.b.c.d/n` to address and prefix; panics (at compile time in a const) on anything else,
/// and on host bits set.
const fn parse_v4_block(s: &str) -> (Ipv4Addr, u8) {
    let b = s.as_bytes();
    let slash = find(b, b'/', 0, b.len());
    assert!(slash < b.len(), "table block: no /prefix");
    let prefix = decimal(b, slash + 1, b.len(), 32);
    let mut bits: u32 = 0;
    let mut start = 0;
    let mut parts = 0;
    while parts < 4 {
        let end = find(b, b'.', start, slash);
        bits = (bits << 8) | decimal(b, start, end, 255);
        parts += 1;
        start = end + 1;
        assert!(
            parts == 4 || end < slash,
            "table block: fewer than four parts"
        );
    }
    assert!(start == slash + 1, "table block: more than four parts");
    assert!(
        host_bits_clear(bits as u128, 32, prefix),
        "table block: host bits set"
    );
    (Ipv4Addr::from_bits(bits), prefix as u8)
}

/// `x:y::z/n` (hex groups, at most one `::`, no dotted quad) to address and prefix; panics
/// (at compile time in a const) on anything else, and on host bits set.
const fn parse_v6_block(s: &str) -> (Ipv6Addr, u8) {
    let b = s.as_bytes();
    let slash = find(b, b'/', 0, b.len());
    assert!(slash < b.len(), "table block: no /prefix");
    let prefix = decimal(b, slash + 1, b.len(), 128);
    let (mut head, mut head_n, mut tail, mut tail_n) = (0u128, 0u32, 0u128, 0u32);
    let mut gap = false;
    let mut i = 0;
    if slash >= 2 && b[0] == b':' && b[1] == b':' {
        gap = true;
        i = 2;
    }
    while i < slash {
        let end = find(b, b':', i, slash);
        assert!(end > i && end - i <= 4, "table block: bad group");
        let mut v = 0;
        while i < end {
            v = v * 16 + hex_digit(b[i]);
            i += 1;
        }
        if gap {
            tail = (tail << 16) | v as u128;
            tail_n += 1;
        } else {
            head = (head << 16) | v as u128;
            head_n += 1;
        }
        if i < slash {
            i += 1;
            assert!(i < slash, "table block: trailing ':'");
            if b[i] == b':' {
                assert!(!gap, "table block: two '::'");
                gap = true;
                i += 1;
            }
        }
    }
    assert!(
        (gap && head_n + tail_n <= 7) || (!gap && head_n == 8),
        "table block: wrong number of groups"
    );
    let head = match head.checked_shl(16 * (8 - head_n)) {
        Some(h) if head_n > 0 => h,
        _ => 0,
    };
    let bits = head | tail;
    assert!(
        host_bits_clear(bits, 128, prefix),
        "table block: host bits set"
    );
    (Ipv6Addr::from_bits(bits), prefix as u8)
}

const fn v4(
    block: &'static str,
    name: &'static str,
    rfc: &'static str,
    reachable: Reachable,
    rule: V4Rule,
) -> V4Range {
    let (net, prefix) = parse_v4_block(block);
    V4Range {
        block,
        name,
        rfc,
        reachable,
        rule,
        net,
        prefix,
    }
}

const fn v6(
    block: &'static str,
    name: &'static str,
    rfc: &'static str,
    reachable: Reachable,
    rule: V6Rule,
) -> V6Range {
    let (net, prefix) = parse_v6_block(block);
    V6Range {
        block,
        name,
        rfc,
        reachable,
        rule,
        net,
        prefix,
    }
}

use Reachable::{No, NotApplicable, Unlisted, Yes};

const ALLOW4: V4Rule = V4Rule::Allow;
const PRIVATE4: V4Rule = V4Rule::Refuse(Refusal::PrivateV4);
const CGNAT4: V4Rule = V4Rule::Refuse(Refusal::Cgnat);

const ALLOW6: V6Rule = V6Rule::Allow;
const PRIVATE6: V6Rule = V6Rule::Refuse(Refusal::PrivateV6);
const LOOPBACK6: V6Rule = V6Rule::Refuse(Refusal::Ipv6Loopback);
const LINK_LOCAL6: V6Rule = V6Rule::Refuse(Refusal::LinkLocalV6);
const LOW32: V6Rule = V6Rule::EmbeddedLow32;

/// IPv4 rows, most specific first. Source: every row of the IANA IPv4 Special-Purpose Address
/// Registry (as published in 2025), multicast 224.0.0.0/4 (RFC 5771) and the published cloud
/// metadata addresses. An address in no row is allowed.
#[rustfmt::skip]
pub const IPV4_TABLE: &[V4Range] = &[
    v4("0.0.0.0/32",         "unspecified",                           "RFC 1122", No,            PRIVATE4),
    v4("0.0.0.0/8",          "this network",                          "RFC 791",  No,            PRIVATE4),
    v4("10.0.0.0/8",         "private 10.0.0.0/8",                    "RFC 1918", No,            PRIVATE4),
    // Inside the shared address space, whose message it keeps.
    v4("100.100.100.200/32", "cloud metadata (Alibaba Cloud)",        "",         Unlisted,      CGNAT4),
    v4("100.64.0.0/10",      "shared address space (CGNAT)",          "RFC 6598", No,            CGNAT4),
    v4("127.0.0.0/8",        "loopback",                              "RFC 1122", No,            PRIVATE4),
    v4("169.254.169.254/32", "cloud metadata (AWS, GCP, Azure, OCI)", "",         Unlisted,      PRIVATE4),
    v4("169.254.170.2/32",   "cloud metadata (AWS ECS task)",         "",         Unlisted,      PRIVATE4),
    v4("169.254.0.0/16",     "link-local",                            "RFC 3927", No,            PRIVATE4),
    v4("172.16.0.0/12",      "private 172.16.0.0/12",                 "RFC 1918", No,            PRIVATE4),
    v4("192.0.0.0/29",       "IPv4 service continuity prefix",        "RFC 7335", No,            PRIVATE4),
    v4("192.0.0.8/32",       "IPv4 dummy address",                    "RFC 7600", No,            PRIVATE4),
    // Globally reachable, refused: anycast reaches the nearest PCP or TURN server, which is
    // the local network's own NAT gateway or relay.
    v4("192.0.0.9/32",       "Port Control Protocol anycast",         "RFC 7723", Yes,           PRIVATE4),
    v4("192.0.0.10/32",      "TURN anycast",                          "RFC 8155", Yes,           PRIVATE4),
    v4("192.0.0.170/32",     "NAT64/DNS64 discovery",                 "RFC 8880", No,            PRIVATE4),
    v4("192.0.0.171/32",     "NAT64/DNS64 discovery",                 "RFC 8880", No,            PRIVATE4),
    v4("192.0.0.0/24",       "IETF protocol assignments",             "RFC 6890", No,            PRIVATE4),
    v4("192.0.2.0/24",       "documentation (TEST-NET-1)",            "RFC 5737", No,            PRIVATE4),
    v4("192.31.196.0/24",    "AS112-v4",                              "RFC 7535", Yes,           ALLOW4),
    v4("192.52.193.0/24",    "AMT",                                   "RFC 7450", Yes,           ALLOW4),
    // Globally reachable, refused: the nearest relay is a tunnel into another network.
    v4("192.88.99.2/32",     "6a44 relay anycast",                    "RFC 6751", Yes,           PRIVATE4),
    v4("192.88.99.0/24",     "6to4 relay anycast",                    "RFC 7526", NotApplicable, PRIVATE4),
    v4("192.168.0.0/16",     "private 192.168.0.0/16",                "RFC 1918", No,            PRIVATE4),
    v4("192.175.48.0/24",    "AS112 direct delegation",               "RFC 7534", Yes,           ALLOW4),
    v4("198.18.0.0/15",      "benchmarking",                          "RFC 2544", No,            PRIVATE4),
    v4("198.51.100.0/24",    "documentation (TEST-NET-2)",            "RFC 5737", No,            PRIVATE4),
    v4("203.0.113.0/24",     "documentation (TEST-NET-3)",            "RFC 5737", No,            PRIVATE4),
    v4("224.0.0.0/4",        "multicast",                             "RFC 5771", Unlisted,      PRIVATE4),
    v4("255.255.255.255/32", "limited broadcast",                     "RFC 919",  No,            PRIVATE4),
    v4("240.0.0.0/4",        "reserved 240.0.0.0/4",                  "RFC 1112", No,            PRIVATE4),
];

/// IPv6 rows, most specific first, covering every address. Source: every row of the IANA IPv6
/// Special-Purpose Address Registry (as published in 2025), the IPv4-translated (RFC 2765) and
/// IPv4-compatible forms, the IANA IPv6 Address Space registry for the rest (global unicast
/// 2000::/3, site-local, multicast, reserved) and the AWS IPv6 metadata address.
#[rustfmt::skip]
pub const IPV6_TABLE: &[V6Range] = &[
    v6("::/128",            "unspecified",                 "RFC 4291", No,            PRIVATE6),
    v6("::1/128",           "loopback",                    "RFC 4291", No,            LOOPBACK6),
    v6("::ffff:0:0/96",     "IPv4-mapped",                 "RFC 4291", No,            LOW32),
    v6("::ffff:0:0:0/96",   "IPv4-translated",             "RFC 2765", Unlisted,      LOW32),
    // Deprecated; holds :: and ::1 above.
    v6("::/96",             "IPv4-compatible",             "RFC 4291", Unlisted,      LOW32),
    v6("64:ff9b::/96",      "NAT64",                       "RFC 6052", Yes,           LOW32),
    v6("64:ff9b:1::/48",    "NAT64 local-use",             "RFC 8215", No,            PRIVATE6),
    v6("100::/64",          "discard-only",                "RFC 6666", No,            PRIVATE6),
    v6("100:0:0:1::/64",    "dummy prefix",                "RFC 9780", No,            PRIVATE6),
    // Globally reachable, refused: anycast reaches the nearest PCP, TURN or SRP server, which
    // is the local network's own gateway, relay or registrar.
    v6("2001:1::1/128",     "Port Control Protocol anycast", "RFC 7723", Yes,         PRIVATE6),
    v6("2001:1::2/128",     "TURN anycast",                "RFC 8155", Yes,           PRIVATE6),
    v6("2001:1::3/128",     "DNS-SD SRP anycast",          "RFC 9665", Yes,           PRIVATE6),
    v6("2001:2::/48",       "benchmarking",                "RFC 5180", No,            PRIVATE6),
    v6("2001:3::/32",       "AMT",                         "RFC 7450", Yes,           ALLOW6),
    v6("2001:4:112::/48",   "AS112-v6",                    "RFC 7535", Yes,           ALLOW6),
    // Returned to IANA in 2014.
    v6("2001:10::/28",      "ORCHID",                      "RFC 4843", NotApplicable, PRIVATE6),
    // Globally reachable, refused: host identity hashes, not locators (RFC 7343 §1); routers
    // may drop them. DETs are the same kind of identifier.
    v6("2001:20::/28",      "ORCHIDv2",                    "RFC 7343", Yes,           PRIVATE6),
    v6("2001:30::/28",      "drone remote ID entity tags", "RFC 9374", Yes,           PRIVATE6),
    v6("2001::/32",         "Teredo",                      "RFC 4380", NotApplicable, V6Rule::Teredo),
    v6("2001::/23",         "IETF protocol assignments",   "RFC 2928", No,            PRIVATE6),
    v6("2001:db8::/32",     "documentation",               "RFC 3849", No,            PRIVATE6),
    v6("2002::/16",         "6to4",                        "RFC 3056", NotApplicable, V6Rule::SixToFour),
    v6("2620:4f:8000::/48", "AS112 direct delegation",     "RFC 7534", Yes,           ALLOW6),
    v6("3fff::/20",         "documentation",               "RFC 9637", No,            PRIVATE6),
    v6("5f00::/16",         "SRv6 SIDs",                   "RFC 9602", No,            PRIVATE6),
    v6("fd00:ec2::254/128", "cloud metadata (AWS IPv6)",   "",         Unlisted,      PRIVATE6),
    v6("fc00::/7",          "unique local",                "RFC 4193", No,            PRIVATE6),
    v6("fe80::/10",         "link-local",                  "RFC 4291", No,            LINK_LOCAL6),
    v6("fec0::/10",         "site-local",                  "RFC 3879", Unlisted,      PRIVATE6),
    v6("ff00::/8",          "multicast",                   "RFC 4291", Unlisted,      PRIVATE6),
    v6("2000::/3",          "global unicast",              "RFC 4291", Unlisted,      ALLOW6),
    v6("::/0",              "reserved by IETF",            "RFC 4291", Unlisted,      PRIVATE6),
];

/// Name given to the ISATAP interface identifier in [`Verdict::via`].
pub const ISATAP: &str = "ISATAP";

/// Why an address is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Name of the forbidden range (for an embedded address, the IPv4 range).
    pub range: &'static str,
    /// The IPv6 form that carried the IPv4 address, when there was one.
    pub via: Option<&'static str>,
    /// The address the refusal names: the embedded IPv4 address for carried forms.
    pub named: IpAddr,
    /// The reference message family.
    pub refusal: Refusal,
}

fn in_v4(ip: Ipv4Addr, r: &V4Range) -> bool {
    let mask = u32::MAX
        .checked_shl(32 - u32::from(r.prefix.min(32)))
        .unwrap_or(0);
    u32::from(ip) & mask == u32::from(r.net) & mask
}

fn in_v6(ip: Ipv6Addr, r: &V6Range) -> bool {
    let mask = u128::MAX
        .checked_shl(128 - u32::from(r.prefix.min(128)))
        .unwrap_or(0);
    u128::from(ip) & mask == u128::from(r.net) & mask
}

/// The IPv4 row that judges `ip`, if any.
pub fn v4_row(ip: Ipv4Addr) -> Option<&'static V4Range> {
    IPV4_TABLE.iter().find(|r| in_v4(ip, r))
}

/// The IPv6 row that judges `ip`; the table ends with `::/0`, so there is always one.
pub fn v6_row(ip: Ipv6Addr) -> Option<&'static V6Range> {
    IPV6_TABLE.iter().find(|r| in_v6(ip, r))
}

/// Judges an IPv4 address; `None` means a request may go there.
pub fn classify_v4(ip: Ipv4Addr, allow_loopback: bool) -> Option<Verdict> {
    if allow_loopback && ip.is_loopback() {
        return None;
    }
    let row = v4_row(ip)?;
    match row.rule {
        V4Rule::Allow => None,
        V4Rule::Refuse(refusal) => Some(Verdict {
            range: row.name,
            via: None,
            named: IpAddr::V4(ip),
            refusal,
        }),
    }
}

/// The verdict on an IPv4 address carried by an IPv6 form; never freed by the loopback
/// allowance.
fn embedded(via: &'static str, ip: Ipv4Addr) -> Option<Verdict> {
    classify_v4(ip, false).map(|v| Verdict {
        via: Some(via),
        ..v
    })
}

fn v4_from(hi: u16, lo: u16) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
}

/// Judges an IPv6 address; `None` means a request may go there.
pub fn classify_v6(ip: Ipv6Addr, allow_loopback: bool) -> Option<Verdict> {
    if allow_loopback && ip == Ipv6Addr::LOCALHOST {
        return None;
    }
    let s = ip.segments();
    let refuse = |name, refusal| {
        Some(Verdict {
            range: name,
            via: None,
            named: IpAddr::V6(ip),
            refusal,
        })
    };
    let by_row = match v6_row(ip) {
        // Unreachable while the table ends with ::/0; refuse rather than allow if it ever is.
        None => refuse("reserved by IETF", Refusal::PrivateV6),
        Some(row) => match row.rule {
            V6Rule::Allow => None,
            V6Rule::Refuse(refusal) => refuse(row.name, refusal),
            V6Rule::EmbeddedLow32 => embedded(row.name, v4_from(s[6], s[7])),
            V6Rule::SixToFour => embedded(row.name, v4_from(s[1], s[2])),
            V6Rule::Teredo => embedded(row.name, v4_from(!s[6], !s[7]))
                .or_else(|| embedded(row.name, v4_from(s[2], s[3]))),
        },
    };
    by_row.or_else(|| {
        // ISATAP interface identifier (RFC 5214): 0000:5efe or 0200:5efe (u/g bits may be
        // set), then the IPv4 address, behind any prefix.
        if s[4] & 0xfcff == 0 && s[5] == 0x5efe {
            embedded(ISATAP, v4_from(s[6], s[7]))
        } else {
            None
        }
    })
}

/// Judges any address; `None` means a request may go there.
pub fn classify(ip: IpAddr, allow_loopback: bool) -> Option<Verdict> {
    match ip {
        IpAddr::V4(a) => classify_v4(a, allow_loopback),
        IpAddr::V6(a) => classify_v6(a, allow_loopback),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn std_block<A: std::str::FromStr>(block: &str) -> (A, u8)
    where
        A::Err: std::fmt::Debug,
    {
        let (a, p) = block.split_once('/').unwrap();
        (a.parse().unwrap(), p.parse().unwrap())
    }

    #[test]
    fn blocks_parse_as_std_parses_them() {
        for r in IPV4_TABLE {
            assert_eq!(
                std_block::<Ipv4Addr>(r.block),
                (r.net, r.prefix),
                "{}",
                r.block
            );
        }
        for r in IPV6_TABLE {
            assert_eq!(
                std_block::<Ipv6Addr>(r.block),
                (r.net, r.prefix),
                "{}",
                r.block
            );
        }
    }

    #[test]
    fn block_parser_refuses_malformed_blocks() {
        for bad in [
            "10.0.0.0",
            "10.0.0/8",
            "10.0.0.0.0/8",
            "10.0.0.256/32",
            "10.0.0.1/8",
            "10.0.0.0/33",
            "10..0.0/8",
            "a.0.0.0/8",
        ] {
            assert!(
                std::panic::catch_unwind(|| parse_v4_block(bad)).is_err(),
                "{bad}"
            );
        }
        for bad in [
            "::1",
            "2001:db8::/16",
            "1:::2/128",
            ":1::/128",
            "1::2::3/128",
            "1:2:3:4:5:6:7/128",
            "1:2:3:4:5:6:7:8:9/128",
            "12345::/16",
            "2001:/16",
            "::/129",
            "::ffff:1.2.3.4/128",
            "FE80::/10",
        ] {
            assert!(
                std::panic::catch_unwind(|| parse_v6_block(bad)).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            parse_v6_block("1:2:3:4:5:6:7:8/128"),
            ("1:2:3:4:5:6:7:8".parse().unwrap(), 128)
        );
        assert_eq!(parse_v6_block("1::8/128"), ("1::8".parse().unwrap(), 128));
    }

    #[test]
    fn no_row_is_hidden_by_an_earlier_one() {
        for (j, later) in IPV4_TABLE.iter().enumerate() {
            for earlier in IPV4_TABLE.iter().take(j) {
                assert!(
                    !(earlier.prefix <= later.prefix && in_v4(later.net, earlier)),
                    "{} hides {}",
                    earlier.block,
                    later.block
                );
            }
        }
        for (j, later) in IPV6_TABLE.iter().enumerate() {
            for earlier in IPV6_TABLE.iter().take(j) {
                assert!(
                    !(earlier.prefix <= later.prefix && in_v6(later.net, earlier)),
                    "{} hides {}",
                    earlier.block,
                    later.block
                );
            }
        }
    }

    #[test]
    fn ipv6_table_covers_every_address() {
        assert_eq!(IPV6_TABLE.last().map(|r| r.block), Some("::/0"));
        for bits in [
            0u128,
            1,
            u128::MAX,
            0x2000 << 112,
            0x1fff << 112,
            0x4000 << 112,
        ] {
            assert!(v6_row(Ipv6Addr::from(bits)).is_some(), "{bits:x}");
        }
    }

    #[test]
    fn rows_not_globally_reachable_are_never_allowed() {
        for r in IPV4_TABLE {
            if r.reachable != Yes {
                assert!(matches!(r.rule, V4Rule::Refuse(_)), "{}", r.block);
            }
        }
        for r in IPV6_TABLE {
            if matches!(r.reachable, No | NotApplicable) {
                assert_ne!(r.rule, V6Rule::Allow, "{}", r.block);
            }
        }
        // Unlisted rows that allow: global unicast only.
        let unlisted_allowed: Vec<&str> = IPV6_TABLE
            .iter()
            .filter(|r| r.reachable == Unlisted && r.rule == V6Rule::Allow)
            .map(|r| r.block)
            .collect();
        assert_eq!(unlisted_allowed, ["2000::/3"]);
    }

    #[test]
    fn globally_reachable_rows_refused_on_purpose() {
        // Each one has its reason beside it in the table; a change here is a policy change.
        let v4: Vec<&str> = IPV4_TABLE
            .iter()
            .filter(|r| r.reachable == Yes && r.rule != V4Rule::Allow)
            .map(|r| r.block)
            .collect();
        assert_eq!(v4, ["192.0.0.9/32", "192.0.0.10/32", "192.88.99.2/32"]);
        let v6: Vec<&str> = IPV6_TABLE
            .iter()
            .filter(|r| r.reachable == Yes && matches!(r.rule, V6Rule::Refuse(_)))
            .map(|r| r.block)
            .collect();
        assert_eq!(
            v6,
            [
                "2001:1::1/128",
                "2001:1::2/128",
                "2001:1::3/128",
                "2001:20::/28",
                "2001:30::/28"
            ]
        );
    }

    /// Every block of the IANA IPv4 Special-Purpose Address Registry, plus multicast.
    #[rustfmt::skip]
    const REGISTRY_V4: &[&str] = &[
        "0.0.0.0/8", "0.0.0.0/32", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
        "172.16.0.0/12", "192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.9/32",
        "192.0.0.10/32", "192.0.0.170/32", "192.0.0.171/32", "192.0.2.0/24", "192.31.196.0/24",
        "192.52.193.0/24", "192.88.99.0/24", "192.88.99.2/32", "192.168.0.0/16", "192.175.48.0/24",
        "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "255.255.255.255/32",
        "224.0.0.0/4",
    ];

    /// Every block of the IANA IPv6 Special-Purpose Address Registry, plus the other blocks
    /// that are not global.
    #[rustfmt::skip]
    const REGISTRY_V6: &[&str] = &[
        "::1/128", "::/128", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64",
        "100:0:0:1::/64", "2001::/23", "2001::/32", "2001:1::1/128", "2001:1::2/128",
        "2001:1::3/128", "2001:2::/48", "2001:3::/32", "2001:4:112::/48", "2001:10::/28",
        "2001:20::/28", "2001:30::/28", "2001:db8::/32", "2002::/16", "2620:4f:8000::/48",
        "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10",
        "::ffff:0:0:0/96", "::/96", "fec0::/10", "ff00::/8",
    ];

    #[test]
    fn every_registry_block_has_a_row_and_an_rfc() {
        for block in REGISTRY_V4 {
            assert!(IPV4_TABLE.iter().any(|r| r.block == *block), "{block}");
        }
        for block in REGISTRY_V6 {
            assert!(IPV6_TABLE.iter().any(|r| r.block == *block), "{block}");
        }
        let metadata = |name: &str| name.starts_with("cloud metadata");
        for r in IPV4_TABLE {
            assert!(r.rfc.starts_with("RFC ") || metadata(r.name), "{}", r.block);
        }
        for r in IPV6_TABLE {
            assert!(r.rfc.starts_with("RFC ") || metadata(r.name), "{}", r.block);
        }
    }

    #[test]
    fn each_row_judges_its_own_edges() {
        // The first and last address of a row belong to it unless a more specific row (listed
        // earlier) holds them.
        for r in IPV4_TABLE {
            let first = u32::from(r.net);
            let last = first | u32::MAX.checked_shr(u32::from(r.prefix)).unwrap_or(0);
            for a in [first, last] {
                let got = v4_row(Ipv4Addr::from(a)).unwrap();
                assert!(got.block == r.block || got.prefix > r.prefix, "{}", r.block);
            }
        }
        for r in IPV6_TABLE {
            let first = u128::from(r.net);
            let last = first | u128::MAX.checked_shr(u32::from(r.prefix)).unwrap_or(0);
            for a in [first, last] {
                let got = v6_row(Ipv6Addr::from(a)).unwrap();
                assert!(got.block == r.block || got.prefix > r.prefix, "{}", r.block);
            }
        }
    }
}
