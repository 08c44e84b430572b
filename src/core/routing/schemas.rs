//! How `ToolRegistry` shapes tool schemas for a provider, and the registry's name rules.
//!
//! Rules (spec "Provider schema shapes", "Denying tools"; names and strings from phpClaw's
//! `ToolRegistry`):
//! - [`tool_format`]: a provider named exactly (case-sensitive) in
//!   [`OPENAI_COMPATIBLE_PROVIDERS`] gets the `openai` shape
//!   `{type: 'function', function: {name, description, parameters}}`; every other name,
//!   unknown and empty included, gets the `anthropic` shape `{name, description, input_schema}`.
//! - The schema cache is keyed per provider name, with `:lean` appended for lean descriptions
//!   ([`cache_key`]); registering tools empties it.
//! - [`lean_description_bytes`]: the first line of a description, on bytes (PHP strings need
//!   not be UTF-8): leading `\n` skipped, the line ends at the next `\n`, then trimmed of
//!   space, tab, `\n`, `\r`, NUL and vertical tab.
//! - [`needs_empty_object`]: a schema whose `properties` is present and an empty array gets an
//!   empty object there, so `json_encode` writes `{}` and not `[]`.
//! - Deny lists: [`RegisterPlan`] applies a deny list (names or group references) to a batch
//!   and collects the warning logged for a group member that matches no tool of the batch.
//!   Group expansion is [`super::profiles`]'s; names are bytes, mapped losslessly to the
//!   `String`s it takes ([`name_key`]).

use super::profiles;

/// `ToolRegistry::TOOL_FORMAT_OPENAI`.
pub const TOOL_FORMAT_OPENAI: &str = "openai";
/// `ToolRegistry::TOOL_FORMAT_ANTHROPIC`.
pub const TOOL_FORMAT_ANTHROPIC: &str = "anthropic";

/// Providers that take the OpenAI function-calling shape (spec table, reference constant).
pub const OPENAI_COMPATIBLE_PROVIDERS: &[&str] = &[
    "openai", "groq", "gemini", "mistral", "ollama", "deepseek", "custom",
];

/// Suffix of the cache key for lean descriptions.
pub const LEAN_SUFFIX: &[u8] = b":lean";

/// The two schema shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolFormat {
    /// `{type: 'function', function: {name, description, parameters}}`.
    OpenAi,
    /// `{name, description, input_schema}`.
    Anthropic,
}

impl ToolFormat {
    /// The name PHP sees (`TOOL_FORMAT_*`).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolFormat::OpenAi => TOOL_FORMAT_OPENAI,
            ToolFormat::Anthropic => TOOL_FORMAT_ANTHROPIC,
        }
    }
}

/// The shape a provider name maps to; anything not in the table is Anthropic-shaped.
pub fn tool_format(provider: &[u8]) -> ToolFormat {
    if OPENAI_COMPATIBLE_PROVIDERS
        .iter()
        .any(|p| p.as_bytes() == provider)
    {
        ToolFormat::OpenAi
    } else {
        ToolFormat::Anthropic
    }
}

/// The schema cache key for a provider and description mode.
pub fn cache_key(provider: &[u8], lean: bool) -> Vec<u8> {
    let mut key = Vec::with_capacity(provider.len() + LEAN_SUFFIX.len());
    key.extend_from_slice(provider);
    if lean {
        key.extend_from_slice(LEAN_SUFFIX);
    }
    key
}

/// Bytes PHP's `trim()` strips by default.
const TRIM_BYTES: &[u8] = b" \t\n\r\0\x0B";

/// The first line of a description, on bytes (see the module rules).
pub fn lean_description_bytes(description: &[u8]) -> &[u8] {
    let start = description
        .iter()
        .position(|&b| b != b'\n')
        .unwrap_or(description.len());
    let rest = &description[start..];
    let line = match rest.iter().position(|&b| b == b'\n') {
        Some(end) => &rest[..end],
        None => rest,
    };
    let first = line
        .iter()
        .position(|b| !TRIM_BYTES.contains(b))
        .unwrap_or(line.len());
    let last = line
        .iter()
        .rposition(|b| !TRIM_BYTES.contains(b))
        .map_or(first, |i| i + 1);
    &line[first..last]
}

/// What the bindings know about a schema's `properties` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Properties {
    /// No `properties` key.
    Absent,
    /// `properties` is an array with this many entries.
    Array(usize),
    /// `properties` is something else (object, string, null...).
    Other,
}

/// Whether `properties` must be swapped for an empty object (present and exactly `[]`).
pub fn needs_empty_object(properties: Properties) -> bool {
    properties == Properties::Array(0)
}

/// A name as the deny-list helpers take it: the text itself when it is UTF-8 that does not
/// start with the escape mark, else the mark followed by the bytes in hex. Injective, so two
/// different byte strings never compare equal.
pub fn name_key(bytes: &[u8]) -> String {
    const MARK: char = '\u{FFFF}';
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.starts_with(MARK) => s.to_owned(),
        _ => {
            let mut out = String::with_capacity(3 + bytes.len() * 2);
            out.push(MARK);
            for b in bytes {
                out.push_str(&format!("{b:02x}"));
            }
            out
        }
    }
}

/// The exact `register()` warning for a group member that matches no tool in the batch.
pub fn dangling_warning(group: &[u8], member: &[u8]) -> Vec<u8> {
    match (std::str::from_utf8(group), std::str::from_utf8(member)) {
        (Ok(g), Ok(m)) => profiles::DanglingMember {
            group: g.to_owned(),
            member: m.to_owned(),
        }
        .warning()
        .into_bytes(),
        _ => {
            let mut out = b"phpClaw ToolRegistry: group '".to_vec();
            out.extend_from_slice(group);
            out.extend_from_slice(b"' references unregistered tool '");
            out.extend_from_slice(member);
            out.extend_from_slice(b"', check for a name() mismatch.");
            out
        }
    }
}

/// A deny-list entry or group member as PHP gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A string (a tool name or a group reference).
    Str(Vec<u8>),
    /// Any other value, with the text PHP would interpolate into a message; it can name a
    /// group (array keys are strings or ints) but never equals a tool name (compared strictly).
    Other(Vec<u8>),
}

impl Entry {
    fn text(&self) -> &[u8] {
        match self {
            Entry::Str(b) | Entry::Other(b) => b,
        }
    }
}

/// One group definition: its key as text (PHP interpolates int keys in decimal) and its
/// members; `None` members when the value is not an array (no members, not a group).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The group's key.
    pub name: Vec<u8>,
    /// The members, or `None` when the definition is not an array (or is null).
    pub members: Option<Vec<Entry>>,
}

/// What `register()` does with one batch: which tools to keep and what to log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterPlan {
    /// Indices (into the batch) of the tools to register, in order.
    pub keep: Vec<usize>,
    /// The warnings to log, in order: one per group member matching no tool of the batch.
    pub warnings: Vec<Vec<u8>>,
}

/// Plan one `register()` call: deny names (groups expanded) are removed; every group member
/// (of every group, denied or not) that matches no tool name of the batch is warned about.
/// No group definitions, no warnings; an empty deny list denies nothing.
pub fn plan_register(tool_names: &[&[u8]], deny: &[Entry], groups: &[Group]) -> RegisterPlan {
    let mut warnings = Vec::new();
    for g in groups {
        for m in g.members.iter().flatten() {
            let matches = match m {
                Entry::Str(b) => tool_names.contains(&b.as_slice()),
                Entry::Other(_) => false,
            };
            if !matches {
                warnings.push(dangling_warning(&g.name, m.text()));
            }
        }
    }
    if deny.is_empty() {
        return RegisterPlan {
            keep: (0..tool_names.len()).collect(),
            warnings,
        };
    }
    // Group expansion by profiles::resolve_names. Non-string values can only matter as group
    // references; as names they never match, so they are mapped to keys no name can have.
    let other_key = |b: &[u8]| format!("\u{FFFE}{}", name_key(b));
    let entries: Vec<String> = deny
        .iter()
        .map(|e| match e {
            Entry::Str(b) => name_key(b),
            Entry::Other(b) => {
                if groups.iter().any(|g| g.members.is_some() && g.name == *b) {
                    name_key(b)
                } else {
                    other_key(b)
                }
            }
        })
        .collect();
    let group_defs: Vec<(String, Vec<String>)> = groups
        .iter()
        .filter_map(|g| {
            let members = g.members.as_ref()?;
            Some((
                name_key(&g.name),
                members
                    .iter()
                    .map(|m| match m {
                        Entry::Str(b) => name_key(b),
                        Entry::Other(b) => other_key(b),
                    })
                    .collect(),
            ))
        })
        .collect();
    let keys: Vec<String> = tool_names.iter().map(|n| name_key(n)).collect();
    let key_refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let keep = profiles::filter_denied(&key_refs, &entries, &group_defs);
    RegisterPlan { keep, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Entry {
        Entry::Str(x.as_bytes().to_vec())
    }

    fn group(name: &str, members: &[&str]) -> Group {
        Group {
            name: name.as_bytes().to_vec(),
            members: Some(members.iter().map(|m| s(m)).collect()),
        }
    }

    #[test]
    fn every_provider_in_the_table_and_others() {
        for p in [
            "openai", "groq", "gemini", "mistral", "ollama", "deepseek", "custom",
        ] {
            assert_eq!(tool_format(p.as_bytes()), ToolFormat::OpenAi, "{p}");
        }
        for p in [
            "anthropic",
            "",
            "OpenAI",
            "openai ",
            "unknown",
            "ollama:lean",
        ] {
            assert_eq!(tool_format(p.as_bytes()), ToolFormat::Anthropic, "{p}");
        }
        assert_eq!(ToolFormat::OpenAi.as_str(), "openai");
        assert_eq!(ToolFormat::Anthropic.as_str(), "anthropic");
    }

    #[test]
    fn cache_keys() {
        assert_eq!(cache_key(b"openai", false), b"openai");
        assert_eq!(cache_key(b"openai", true), b"openai:lean");
        assert_eq!(cache_key(b"", true), b":lean");
    }

    #[test]
    fn lean_first_line_on_bytes() {
        let cases: &[(&[u8], &[u8])] = &[
            (b"Read the thing.\nMODES\n  long", b"Read the thing."),
            (b"\n\n  First \t\r\nsecond", b"First"),
            (b"", b""),
            (b"\n\n\n", b""),
            (b"one line", b"one line"),
            (b"\x0B\0 x \0\n", b"x"),
            (b"\xff\xfe bad\nnext", b"\xff\xfe bad"),
        ];
        for (input, want) in cases {
            assert_eq!(lean_description_bytes(input), *want, "{input:?}");
        }
        // Same answers as the str version in profiles for UTF-8 text.
        for d in ["a\nb", "\n x \n", "", "  é  \nz"] {
            assert_eq!(
                lean_description_bytes(d.as_bytes()),
                profiles::lean_description(d).as_bytes()
            );
        }
    }

    #[test]
    fn empty_properties_only() {
        assert!(needs_empty_object(Properties::Array(0)));
        assert!(!needs_empty_object(Properties::Array(1)));
        assert!(!needs_empty_object(Properties::Absent));
        assert!(!needs_empty_object(Properties::Other));
    }

    #[test]
    fn name_keys_are_injective() {
        assert_eq!(name_key(b"file_read"), "file_read");
        assert_ne!(name_key(b"\xff"), name_key(b"\xfe"));
        assert_ne!(name_key("\u{FFFF}ff".as_bytes()), name_key(b"\xff"));
        assert_eq!(name_key(b"\xff"), "\u{FFFF}ff");
    }

    #[test]
    fn deny_by_name_and_group() {
        let names: Vec<&[u8]> = vec![b"shell_exec", b"http_request", b"file_read"];
        let plan = plan_register(
            &names,
            &[s("group:system")],
            &[group("group:system", &["shell_exec", "http_request"])],
        );
        assert_eq!(plan.keep, vec![2]);
        assert!(plan.warnings.is_empty());
        let plan = plan_register(&names, &[s("shell_exec")], &[]);
        assert_eq!(plan.keep, vec![1, 2]);
    }

    #[test]
    fn empty_deny_keeps_everything_but_still_warns() {
        let names: Vec<&[u8]> = vec![b"shell_exec"];
        let plan = plan_register(
            &names,
            &[],
            &[group("group:system", &["shell_exec", "http_get"])],
        );
        assert_eq!(plan.keep, vec![0]);
        assert_eq!(
            plan.warnings,
            vec![b"phpClaw ToolRegistry: group 'group:system' references unregistered tool 'http_get', check for a name() mismatch.".to_vec()]
        );
    }

    #[test]
    fn warnings_for_every_group_in_order_and_non_strings() {
        let names: Vec<&[u8]> = vec![b"a", b"1"];
        let groups = vec![
            group("g1", &["x", "a"]),
            Group {
                name: b"7".to_vec(),
                members: Some(vec![Entry::Other(b"1".to_vec()), s("y")]),
            },
            Group {
                name: b"g3".to_vec(),
                members: None,
            },
        ];
        let plan = plan_register(&names, &[], &groups);
        let w: Vec<String> = plan
            .warnings
            .iter()
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        assert_eq!(w.len(), 3);
        assert!(w[0].contains("group 'g1' references unregistered tool 'x'"));
        assert!(w[1].contains("group '7' references unregistered tool '1'"));
        assert!(w[2].contains("group '7' references unregistered tool 'y'"));
    }

    #[test]
    fn non_string_deny_entries() {
        let names: Vec<&[u8]> = vec![b"a", b"5", b"b"];
        // An int entry never equals a tool name, but can reference an int-keyed group.
        let plan = plan_register(&names, &[Entry::Other(b"5".to_vec())], &[]);
        assert_eq!(plan.keep, vec![0, 1, 2]);
        let plan = plan_register(
            &names,
            &[Entry::Other(b"5".to_vec())],
            &[group("5", &["b"])],
        );
        assert_eq!(plan.keep, vec![0, 1]);
        // A group defined as a non-array is not a group: the entry is a plain name.
        let plan = plan_register(
            &names,
            &[s("a")],
            &[Group {
                name: b"a".to_vec(),
                members: None,
            }],
        );
        assert_eq!(plan.keep, vec![1, 2]);
    }

    #[test]
    fn non_utf8_names() {
        let names: Vec<&[u8]> = vec![b"\xff", b"\xfe"];
        let plan = plan_register(&names, &[Entry::Str(b"\xff".to_vec())], &[]);
        assert_eq!(plan.keep, vec![1]);
        let w = dangling_warning(b"g", b"\xff");
        assert!(w.windows(3).any(|x| x == b"'\xff'"));
    }
}
