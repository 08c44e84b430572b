//! The address ranges an outbound request may never reach, as tables with names.
//!
//! Rules:
//! - an address is judged by the first table entry that contains it, so specific entries
//!   (cloud metadata, the unspecified address) sit before the ranges that hold them;
//! - IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo,
//!   ISATAP) are judged by the IPv4 address they carry;
//! - the loopback allowance (a test-only setting) frees exactly 127.0.0.0/8 and `::1`,
//!   never an embedded loopback such as `::ffff:127.0.0.1`.
//!
//! Sources: phpClaw's `SsrfValidator` (loopback, private, link-local, CGNAT, reserved,
//! unspecified, IPv6 loopback, ULA, link-local, IPv4-mapped), widened with the IANA IPv4 and
//! IPv6 special-purpose address registries (RFC 6890 and its updates) and the published cloud
//! metadata addresses.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which reference message family a refusal belongs to; PHP callers match these texts.
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

/// A forbidden IPv4 range.
#[derive(Clone, Copy, Debug)]
pub struct V4Range {
    /// Name shown in logs and carried by the error.
    pub name: &'static str,
    /// Network address.
    pub net: Ipv4Addr,
    /// Prefix length in bits.
    pub prefix: u8,
}

const fn v4(name: &'static str, a: u8, b: u8, c: u8, d: u8, prefix: u8) -> V4Range {
    V4Range {
        name,
        net: Ipv4Addr::new(a, b, c, d),
        prefix,
    }
}

/// Forbidden IPv4 ranges, most specific first (IANA IPv4 special-purpose registry plus
/// cloud metadata endpoints; the reference covers 0/8, 10/8, 100.64/10, 127/8, 169.254/16,
/// 172.16/12, 192.168/16 and 240/4).
pub const IPV4_FORBIDDEN: &[V4Range] = &[
    v4("unspecified", 0, 0, 0, 0, 32),
    v4("this network", 0, 0, 0, 0, 8),
    v4("private 10.0.0.0/8", 10, 0, 0, 0, 8),
    v4("cloud metadata (Alibaba Cloud)", 100, 100, 100, 200, 32),
    v4("shared address space (CGNAT)", 100, 64, 0, 0, 10),
    v4("loopback", 127, 0, 0, 0, 8),
    v4(
        "cloud metadata (AWS, GCP, Azure, OCI)",
        169,
        254,
        169,
        254,
        32,
    ),
    v4("cloud metadata (AWS ECS task)", 169, 254, 170, 2, 32),
    v4("link-local", 169, 254, 0, 0, 16),
    v4("private 172.16.0.0/12", 172, 16, 0, 0, 12),
    v4("IETF protocol assignments", 192, 0, 0, 0, 24),
    v4("documentation (TEST-NET-1)", 192, 0, 2, 0, 24),
    v4("6to4 relay anycast", 192, 88, 99, 0, 24),
    v4("private 192.168.0.0/16", 192, 168, 0, 0, 16),
    v4("benchmarking", 198, 18, 0, 0, 15),
    v4("documentation (TEST-NET-2)", 198, 51, 100, 0, 24),
    v4("documentation (TEST-NET-3)", 203, 0, 113, 0, 24),
    v4("multicast", 224, 0, 0, 0, 4),
    v4("limited broadcast", 255, 255, 255, 255, 32),
    v4("reserved 240.0.0.0/4", 240, 0, 0, 0, 4),
];

/// The shared address space, which the reference reports with its own message.
const CGNAT: V4Range = v4("shared address space (CGNAT)", 100, 64, 0, 0, 10);

/// What an IPv6 range means for a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V6Rule {
    /// Never reachable; the refusal picks the message.
    Forbidden(Refusal),
    /// The low 32 bits are an IPv4 address, judged as such.
    EmbeddedLow32,
    /// 6to4: bits 16..48 are the IPv4 address.
    SixToFour,
    /// Teredo: bits 32..64 are the server IPv4 address, the low 32 bits the client
    /// address with every bit inverted; both must be allowed.
    Teredo,
}

/// An IPv6 range with its rule.
#[derive(Clone, Copy, Debug)]
pub struct V6Range {
    /// Name shown in logs and carried by the error.
    pub name: &'static str,
    /// Network address.
    pub net: Ipv6Addr,
    /// Prefix length in bits.
    pub prefix: u8,
    /// What to do with an address inside it.
    pub rule: V6Rule,
}

const fn v6(name: &'static str, s: [u16; 8], prefix: u8, rule: V6Rule) -> V6Range {
    V6Range {
        name,
        net: Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]),
        prefix,
        rule,
    }
}

const PRIV6: V6Rule = V6Rule::Forbidden(Refusal::PrivateV6);

/// IPv6 ranges, most specific first (IANA IPv6 special-purpose registry plus the AWS IPv6
/// metadata address; the reference covers `::1`, fc00::/7, fe80::/10 and IPv4-mapped).
pub const IPV6_TABLE: &[V6Range] = &[
    v6("unspecified", [0, 0, 0, 0, 0, 0, 0, 0], 128, PRIV6),
    v6(
        "loopback",
        [0, 0, 0, 0, 0, 0, 0, 1],
        128,
        V6Rule::Forbidden(Refusal::Ipv6Loopback),
    ),
    v6(
        "IPv4-mapped",
        [0, 0, 0, 0, 0, 0xffff, 0, 0],
        96,
        V6Rule::EmbeddedLow32,
    ),
    v6(
        "IPv4-compatible",
        [0, 0, 0, 0, 0, 0, 0, 0],
        96,
        V6Rule::EmbeddedLow32,
    ),
    v6(
        "NAT64",
        [0x64, 0xff9b, 0, 0, 0, 0, 0, 0],
        96,
        V6Rule::EmbeddedLow32,
    ),
    v6(
        "NAT64 local-use",
        [0x64, 0xff9b, 1, 0, 0, 0, 0, 0],
        48,
        PRIV6,
    ),
    v6("discard-only", [0x100, 0, 0, 0, 0, 0, 0, 0], 64, PRIV6),
    v6("Teredo", [0x2001, 0, 0, 0, 0, 0, 0, 0], 32, V6Rule::Teredo),
    v6("benchmarking", [0x2001, 2, 0, 0, 0, 0, 0, 0], 48, PRIV6),
    v6(
        "documentation",
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0],
        32,
        PRIV6,
    ),
    v6("6to4", [0x2002, 0, 0, 0, 0, 0, 0, 0], 16, V6Rule::SixToFour),
    v6("documentation", [0x3fff, 0, 0, 0, 0, 0, 0, 0], 20, PRIV6),
    v6(
        "cloud metadata (AWS IPv6)",
        [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254],
        128,
        PRIV6,
    ),
    v6("unique local", [0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, PRIV6),
    v6(
        "link-local",
        [0xfe80, 0, 0, 0, 0, 0, 0, 0],
        10,
        V6Rule::Forbidden(Refusal::LinkLocalV6),
    ),
    v6("site-local", [0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, PRIV6),
    v6("multicast", [0xff00, 0, 0, 0, 0, 0, 0, 0], 8, PRIV6),
];

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

/// Judges an IPv4 address; `None` means a request may go there.
pub fn classify_v4(ip: Ipv4Addr, allow_loopback: bool) -> Option<Verdict> {
    if allow_loopback && ip.octets()[0] == 127 {
        return None;
    }
    let range = IPV4_FORBIDDEN.iter().find(|r| in_v4(ip, r))?;
    let refusal = if in_v4(ip, &CGNAT) {
        Refusal::Cgnat
    } else {
        Refusal::PrivateV4
    };
    Some(Verdict {
        range: range.name,
        via: None,
        named: IpAddr::V4(ip),
        refusal,
    })
}

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
    if let Some(range) = IPV6_TABLE.iter().find(|r| in_v6(ip, r)) {
        return match range.rule {
            V6Rule::Forbidden(refusal) => Some(Verdict {
                range: range.name,
                via: None,
                named: IpAddr::V6(ip),
                refusal,
            }),
            V6Rule::EmbeddedLow32 => embedded(range.name, v4_from(s[6], s[7])),
            V6Rule::SixToFour => embedded(range.name, v4_from(s[1], s[2])),
            V6Rule::Teredo => embedded(range.name, v4_from(!s[6], !s[7]))
                .or_else(|| embedded(range.name, v4_from(s[2], s[3]))),
        };
    }
    // ISATAP interface identifier (RFC 5214): 0000:5efe or 0200:5efe (u/g bits may be set),
    // then the IPv4 address, behind any /64 prefix.
    if s[4] & 0xfcff == 0 && s[5] == 0x5efe {
        return embedded("ISATAP", v4_from(s[6], s[7]));
    }
    None
}

/// Judges any address; `None` means a request may go there.
pub fn classify(ip: IpAddr, allow_loopback: bool) -> Option<Verdict> {
    match ip {
        IpAddr::V4(a) => classify_v4(a, allow_loopback),
        IpAddr::V6(a) => classify_v6(a, allow_loopback),
    }
}
