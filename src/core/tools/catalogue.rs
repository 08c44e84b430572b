//! The built-in tool catalogue (spec "The nine built-in tools"): catalogue key, class, whether
//! `instantiateDefaults()` creates it, and the constructor arguments it takes from the
//! adapter's config.

/// One catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The name in the tool's `#[Tool]` attribute.
    pub key: &'static str,
    /// The tool class.
    pub class: &'static str,
    /// Created by `instantiateDefaults()`.
    pub default: bool,
    /// Constructor arguments filled from the config array when present.
    pub needs_config: &'static [&'static str],
}

const fn entry(
    key: &'static str,
    class: &'static str,
    default: bool,
    needs_config: &'static [&'static str],
) -> Entry {
    Entry {
        key,
        class,
        default,
        needs_config,
    }
}

/// The nine built-in tools, in the spec's order.
pub const BUILT_IN: [Entry; 9] = [
    entry("shell", "PhpClaw\\Tools\\ShellTool", false, &["allowlist"]),
    entry("http", "PhpClaw\\Tools\\HttpTool", false, &[]),
    entry(
        "file_read",
        "PhpClaw\\Tools\\FileReadTool",
        true,
        &["workspaceRoot"],
    ),
    entry(
        "file_write",
        "PhpClaw\\Tools\\FileWriteTool",
        false,
        &["workspaceRoot", "allowPhpWrite"],
    ),
    entry(
        "file_edit",
        "PhpClaw\\Tools\\FileEditTool",
        false,
        &["workspaceRoot"],
    ),
    entry(
        "code_search",
        "PhpClaw\\Tools\\CodeSearchTool",
        true,
        &["workspaceRoot"],
    ),
    entry(
        "project_info",
        "PhpClaw\\Tools\\ProjectTool",
        true,
        &["projectRoot"],
    ),
    entry("db_query", "PhpClaw\\Tools\\DatabaseQueryTool", false, &[]),
    entry(
        "zip_package",
        "PhpClaw\\Tools\\ZipPackagerTool",
        false,
        &["workspaceRoot"],
    ),
];

/// The entry with catalogue key `key`.
pub fn by_key(key: &str) -> Option<&'static Entry> {
    BUILT_IN.iter().find(|e| e.key == key)
}

/// The defaults, in catalogue order.
pub fn defaults() -> impl Iterator<Item = &'static Entry> {
    BUILT_IN.iter().filter(|e| e.default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_defaults_and_keys() {
        let d: Vec<_> = defaults().map(|e| e.key).collect();
        assert_eq!(d, ["file_read", "code_search", "project_info"]);
        assert_eq!(by_key("shell").unwrap().class, "PhpClaw\\Tools\\ShellTool");
        assert!(by_key("shell_exec").is_none());
    }
}
