//! Tool profiles (stage 1) and the deny list, as phpClaw's `ToolProfileResolver` decides them.
//!
//! Rules:
//! - [`resolve`]: a provider in [`LOCAL_PROVIDERS`] (compared exactly, case-sensitive, as the
//!   reference does) is `standard` when the model id, lowercased, contains one of
//!   [`MEDIUM_PATTERNS`] as a substring, else `minimal`; every other provider is `full`.
//! - Per profile: tool budget 5 / 8 / 0 (0 = no profile cap), request token budget
//!   3000 / 6000 / 0 (0 = none), skill context 4000 / 8000 / 0 chars; an unknown profile name
//!   gets 0 everywhere.
//! - Lean descriptions (minimal profile): the first line, where leading newlines are skipped
//!   first and a line ends at `\n`, trimmed of space, tab, `\n`, `\r`, NUL and vertical tab.
//! - Deny lists: an entry that names a group expands to its members, anything else is a tool
//!   name; names compare exactly. [`filter_denied`] is silent about a group member matching no
//!   tool; [`dangling_group_members`] reports them for the registry path, which warns.

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

/// Providers whose models run locally or small (reference `LOCAL_PROVIDERS`).
pub const LOCAL_PROVIDERS: &[&str] = &["ollama", "groq"];

/// Parameter-count markers of a medium model (spec, reference `MEDIUM_PATTERNS`).
pub const MEDIUM_PATTERNS: &[&str] = &["30b", "32b", "34b", "35b", "65b", "70b", "72b"];

/// Characters PHP's `trim()` strips by default, which the lean description drops at both ends.
const TRIM_CHARS: &[char] = &[' ', '\t', '\n', '\r', '\0', '\x0B'];

/// How much tooling a provider and model can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Small local model: 5 tools, 3000-token requests, first-line descriptions.
    Minimal,
    /// Medium local model: 8 tools, 6000-token requests.
    Standard,
    /// Cloud model: no profile cap, no request budget.
    Full,
}

/// A profile name PHP passed that is none of `minimal`, `standard`, `full`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool profile '{0}'")]
pub struct UnknownProfile(pub String);

impl Profile {
    /// The name PHP uses (`ToolProfileResolver::PROFILE_*`).
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Minimal => "minimal",
            Profile::Standard => "standard",
            Profile::Full => "full",
        }
    }

    /// Tool budget the profile hands the router; 0 means no profile cap (router derives it).
    pub fn max_tools(self) -> usize {
        match self {
            Profile::Minimal => 5,
            Profile::Standard => 8,
            Profile::Full => 0,
        }
    }

    /// Estimated-token ceiling for one request (stage 3); 0 means none.
    pub fn request_budget(self) -> usize {
        match self {
            Profile::Minimal => 3000,
            Profile::Standard => 6000,
            Profile::Full => 0,
        }
    }

    /// Character ceiling for the injected skill block; 0 means none.
    pub fn skill_context_chars(self) -> usize {
        match self {
            Profile::Minimal => 4000,
            Profile::Standard => 8000,
            Profile::Full => 0,
        }
    }

    /// Whether tool descriptions go out as their first line only.
    pub fn lean_descriptions(self) -> bool {
        self == Profile::Minimal
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "minimal" => Ok(Profile::Minimal),
            "standard" => Ok(Profile::Standard),
            "full" => Ok(Profile::Full),
            other => Err(UnknownProfile(other.to_string())),
        }
    }
}

/// Tool budget for a profile given by name; unknown names get 0 like the reference.
pub fn max_tools(profile: &str) -> usize {
    profile.parse::<Profile>().map_or(0, Profile::max_tools)
}

/// Request token budget for a profile given by name; unknown names get 0 (none).
pub fn request_budget(profile: &str) -> usize {
    profile
        .parse::<Profile>()
        .map_or(0, Profile::request_budget)
}

/// Skill context ceiling for a profile given by name; unknown names get 0 (none).
pub fn skill_context_chars(profile: &str) -> usize {
    profile
        .parse::<Profile>()
        .map_or(0, Profile::skill_context_chars)
}

/// Picks the profile for a provider and model, so small local models get a small tool set.
pub fn resolve(provider: &str, model: &str) -> Profile {
    if !LOCAL_PROVIDERS.contains(&provider) {
        return Profile::Full;
    }
    let lower = model.to_ascii_lowercase();
    if MEDIUM_PATTERNS.iter().any(|p| lower.contains(p)) {
        Profile::Standard
    } else {
        Profile::Minimal
    }
}

/// The first line of a description, for profiles that cannot afford the whole text.
pub fn lean_description(description: &str) -> &str {
    let rest = description.trim_start_matches('\n');
    let line = rest.split('\n').next().unwrap_or("");
    line.trim_matches(TRIM_CHARS)
}

/// Expands group references into tool names, first occurrence kept, for deny lists.
///
/// `groups` is an ordered list of `(group name, members)`; when a name appears twice the
/// later definition wins, as the later key of a PHP array literal does.
pub fn resolve_names(entries: &[String], groups: &[(String, Vec<String>)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut push = |n: &String| {
        if seen.insert(n.clone()) {
            names.push(n.clone());
        }
    };
    // Later definitions of a group name win, as later keys of a PHP array literal do.
    let by_name: std::collections::HashMap<&str, &Vec<String>> =
        groups.iter().map(|(g, m)| (g.as_str(), m)).collect();
    for entry in entries {
        match by_name.get(entry.as_str()) {
            Some(members) => members.iter().for_each(&mut push),
            None => push(entry),
        }
    }
    names
}

/// Indices of the tools that survive the deny list, in their original order.
///
/// Silent about a group member that matches no tool, like `ToolProfileResolver::filter()`.
pub fn filter_denied(
    tool_names: &[&str],
    deny: &[String],
    groups: &[(String, Vec<String>)],
) -> Vec<usize> {
    if deny.is_empty() {
        return (0..tool_names.len()).collect();
    }
    let denied = resolve_names(deny, groups);
    let denied: HashSet<&str> = denied.iter().map(String::as_str).collect();
    tool_names
        .iter()
        .enumerate()
        .filter(|(_, n)| !denied.contains(**n))
        .map(|(i, _)| i)
        .collect()
}

/// A group member that names no tool in the batch being registered: usually a typo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DanglingMember {
    /// The group as written in the deny configuration.
    pub group: String,
    /// The member name no tool carries.
    pub member: String,
}

impl DanglingMember {
    /// The warning `ToolRegistry::register()` logs, word for word.
    pub fn warning(&self) -> String {
        format!(
            "phpClaw ToolRegistry: group '{}' references unregistered tool '{}', check for a name() mismatch.",
            self.group, self.member
        )
    }
}

/// Every member of every group that matches no tool name, for the registry variant that warns.
pub fn dangling_group_members(
    tool_names: &[&str],
    groups: &[(String, Vec<String>)],
) -> Vec<DanglingMember> {
    let known: HashSet<&str> = tool_names.iter().copied().collect();
    groups
        .iter()
        .flat_map(|(group, members)| {
            let known = &known;
            members
                .iter()
                .filter(move |m| !known.contains(m.as_str()))
                .map(move |m| DanglingMember {
                    group: group.clone(),
                    member: m.clone(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn providers_and_models_map_to_profiles() {
        let cases = [
            ("anthropic", "claude-sonnet-4-20250514", Profile::Full),
            ("openai", "gpt-4o", Profile::Full),
            ("gemini", "gemini-1.5-pro", Profile::Full),
            ("mistral", "mistral-large", Profile::Full),
            ("deepseek", "deepseek-chat", Profile::Full),
            ("cohere", "command-r-plus", Profile::Full),
            ("together", "mixtral-70b", Profile::Full), // pattern only matters locally
            ("ollama", "qwen2.5:7b", Profile::Minimal),
            ("ollama", "phi3:3b", Profile::Minimal),
            ("ollama", "llama3.2:8b", Profile::Minimal),
            ("ollama", "qwen2.5:14b", Profile::Minimal),
            ("ollama", "llama3.1:70b", Profile::Standard),
            ("ollama", "deepseek-v2:72b", Profile::Standard),
            ("ollama", "qwen:65b", Profile::Standard),
            ("ollama", "qwen2.5:32B", Profile::Standard), // model compared lowercased
            ("ollama", "x-30b", Profile::Standard),
            ("ollama", "x-34b", Profile::Standard),
            ("ollama", "x-35b", Profile::Standard),
            ("ollama", "x-130b", Profile::Standard), // substring, not token
            ("ollama", "x-33b", Profile::Minimal),
            ("groq", "llama-3.1-8b-instant", Profile::Minimal),
            ("groq", "llama-3.1-70b-versatile", Profile::Standard),
            ("Ollama", "qwen2.5:7b", Profile::Full), // provider compared exactly
            ("", "", Profile::Full),
        ];
        for (provider, model, want) in cases {
            assert_eq!(resolve(provider, model), want, "{provider} {model}");
        }
    }

    #[test]
    fn numbers_per_profile_and_unknown_names() {
        assert_eq!(max_tools("minimal"), 5);
        assert_eq!(max_tools("standard"), 8);
        assert_eq!(max_tools("full"), 0);
        assert_eq!(max_tools("nonexistent"), 0);
        assert_eq!(request_budget("minimal"), 3000);
        assert_eq!(request_budget("standard"), 6000);
        assert_eq!(request_budget("full"), 0);
        assert_eq!(request_budget("Minimal"), 0);
        assert_eq!(skill_context_chars("minimal"), 4000);
        assert_eq!(skill_context_chars("standard"), 8000);
        assert_eq!(skill_context_chars("full"), 0);
        assert_eq!("full".parse::<Profile>(), Ok(Profile::Full));
        assert_eq!(
            "x".parse::<Profile>().map_err(|e| e.to_string()),
            Err("unknown tool profile 'x'".to_string())
        );
        assert!(Profile::Minimal.lean_descriptions());
        assert!(!Profile::Standard.lean_descriptions());
        assert_eq!(Profile::Standard.to_string(), "standard");
    }

    #[test]
    fn lean_description_takes_the_first_line() {
        let cases = [
            ("", ""),
            ("\n\n", ""),
            ("\n\nabc\ndef", "abc"),
            ("  x \r\ny", "x"),
            ("   \nabc", ""), // a blank first line is not skipped, only newlines are
            ("\0abc\0\n", "abc"),
            ("abc", "abc"),
            ("Read a file.\nLong details here.", "Read a file."),
            ("\u{a0}x\u{a0}", "\u{a0}x\u{a0}"), // only ASCII whitespace is trimmed
        ];
        for (desc, want) in cases {
            assert_eq!(lean_description(desc), want, "{desc:?}");
        }
    }

    #[test]
    fn deny_lists_and_groups() {
        let names = ["tool_a", "tool_b", "tool_c", "tool_d"];
        assert_eq!(filter_denied(&names, &s(&["tool_b"]), &[]), vec![0, 2, 3]);
        assert_eq!(
            filter_denied(&names, &s(&["tool_b", "tool_d"]), &[]),
            vec![0, 2]
        );
        assert_eq!(filter_denied(&names, &[], &[]), vec![0, 1, 2, 3]);
        assert_eq!(
            filter_denied(&names, &s(&["tool_z"]), &[]),
            vec![0, 1, 2, 3]
        );
        assert_eq!(
            filter_denied(&names, &s(&["TOOL_A"]), &[]),
            vec![0, 1, 2, 3]
        );

        let names = ["posts", "users", "database", "logs", "media"];
        let groups = vec![("group:system".to_string(), s(&["database", "logs"]))];
        assert_eq!(
            filter_denied(&names, &s(&["group:system"]), &groups),
            vec![0, 1, 4]
        );
        assert_eq!(
            filter_denied(&names, &s(&["group:system", "media"]), &groups),
            vec![0, 1]
        );

        // An unknown group reference is just a tool name.
        let names = ["posts", "users", "group:unknown"];
        assert_eq!(
            filter_denied(&names, &s(&["group:unknown"]), &groups),
            vec![0, 1]
        );

        // A typo inside a group denies nothing, silently.
        let names = ["file_write", "file_edit"];
        let groups = vec![("group:writes".to_string(), s(&["file_wirte", "file_edit"]))];
        assert_eq!(
            filter_denied(&names, &s(&["group:writes"]), &groups),
            vec![0]
        );
    }

    #[test]
    fn resolve_names_expands_and_dedupes() {
        let groups = vec![
            ("group:w".to_string(), s(&["file_write", "file_edit"])),
            ("group:w".to_string(), s(&["zip_package"])),
        ];
        assert_eq!(
            resolve_names(
                &s(&["shell_exec", "group:w", "shell_exec", "zip_package"]),
                &groups
            ),
            s(&["shell_exec", "zip_package"])
        );
        assert!(resolve_names(&[], &groups).is_empty());
    }

    #[test]
    fn dangling_members_are_reported_with_the_registry_warning() {
        let names = ["file_write", "file_edit"];
        let groups = vec![
            ("group:writes".to_string(), s(&["file_wirte", "file_edit"])),
            ("group:other".to_string(), s(&["nope"])),
        ];
        let d = dangling_group_members(&names, &groups);
        assert_eq!(d.len(), 2);
        assert_eq!(
            d.first().map(DanglingMember::warning).unwrap_or_default(),
            "phpClaw ToolRegistry: group 'group:writes' references unregistered tool 'file_wirte', check for a name() mismatch."
        );
        assert_eq!(d.get(1).map(|m| m.member.as_str()), Some("nope"));
        assert!(dangling_group_members(&names, &[]).is_empty());
    }

    #[test]
    fn spec_deny_example() {
        let names = [
            "shell_exec",
            "file_read",
            "file_write",
            "file_edit",
            "code_search",
        ];
        let groups = vec![("group:writes".to_string(), s(&["file_write", "file_edit"]))];
        let kept = filter_denied(&names, &s(&["shell_exec", "group:writes"]), &groups);
        assert_eq!(kept, vec![1, 4]);
    }
}
