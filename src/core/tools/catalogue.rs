//! The built-in tool catalogue (spec "The nine built-in tools"): catalogue key, class, whether
//! `instantiateDefaults()` creates it, and the constructor arguments it takes from the
//! adapter's config; and how it merges with phpClaw's discovery cache when phpClaw is there.
//!
//! phpClaw's catalogue reads only its discovery cache (the `#[Tool]` attributes its scanner
//! finds by reflection). Native classes carry no attribute, so with the extension loaded the
//! scanner finds none of the nine: the table stands in for them, and the cache still brings
//! the site's own `#[Tool]` classes and decides `default`/`needsConfig` for any class it lists.

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

/// A tool as phpClaw's discovery cache lists it (`DiscoveryCache::load()['tools']`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// The class name (the cache's key).
    pub class: Vec<u8>,
    /// The attribute's `default` (absent counts as false, as in phpClaw).
    pub default: bool,
    /// The attribute's `needsConfig` argument names; None when the cache gives none.
    pub needs_config: Option<Vec<Vec<u8>>>,
}

/// A tool `instantiateDefaults()` creates: its class and the config keys it takes by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The class to instantiate.
    pub class: Vec<u8>,
    /// Config keys passed as named constructor arguments when the config has them.
    pub needs_config: Vec<Vec<u8>>,
}

fn owned(names: &[&str]) -> Vec<Vec<u8>> {
    names.iter().map(|n| n.as_bytes().to_vec()).collect()
}

/// The classes `all()` starts from: the table's, then discovered classes outside it, each once
/// (custom registrations follow, in the binding).
pub fn discovered_classes(discovered: &[Discovered]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = BUILT_IN
        .iter()
        .map(|e| e.class.as_bytes().to_vec())
        .collect();
    for d in discovered {
        if !out.contains(&d.class) {
            out.push(d.class.clone());
        }
    }
    out
}

/// What `instantiateDefaults()` creates, in order: the table's entries (catalogue order), then
/// discovered classes outside the table (discovery order). For a class the cache lists, its
/// `default` and `needsConfig` win, as phpClaw reads only the cache; the table fills in the
/// argument names the cache omits.
pub fn plan_defaults(discovered: &[Discovered]) -> Vec<Planned> {
    let find = |class: &str| discovered.iter().find(|d| d.class == class.as_bytes());
    let mut out = Vec::new();
    for e in &BUILT_IN {
        let seen = find(e.class);
        if !seen.map_or(e.default, |d| d.default) {
            continue;
        }
        let needs_config = seen
            .and_then(|d| d.needs_config.clone())
            .unwrap_or_else(|| owned(e.needs_config));
        out.push(Planned {
            class: e.class.as_bytes().to_vec(),
            needs_config,
        });
    }
    for d in discovered {
        let built_in = BUILT_IN.iter().any(|e| e.class.as_bytes() == d.class);
        if d.default && !built_in {
            out.push(Planned {
                class: d.class.clone(),
                needs_config: d.needs_config.clone().unwrap_or_default(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(class: &str, default: bool, needs: Option<&[&str]>) -> Discovered {
        Discovered {
            class: class.as_bytes().to_vec(),
            default,
            needs_config: needs.map(owned),
        }
    }

    fn classes(plan: &[Planned]) -> Vec<String> {
        plan.iter()
            .map(|p| String::from_utf8_lossy(&p.class).into_owned())
            .collect()
    }

    #[test]
    fn without_discovery_the_plan_is_the_three_defaults() {
        let plan = plan_defaults(&[]);
        assert_eq!(
            classes(&plan),
            [
                "PhpClaw\\Tools\\FileReadTool",
                "PhpClaw\\Tools\\CodeSearchTool",
                "PhpClaw\\Tools\\ProjectTool"
            ]
        );
        assert_eq!(plan[2].needs_config, owned(&["projectRoot"]));
    }

    #[test]
    fn the_cache_decides_default_for_a_built_in_class_and_the_table_fills_its_arguments() {
        let plan = plan_defaults(&[
            found("PhpClaw\\Tools\\FileWriteTool", true, None),
            found("PhpClaw\\Tools\\ProjectTool", false, None),
        ]);
        assert_eq!(
            classes(&plan),
            [
                "PhpClaw\\Tools\\FileReadTool",
                "PhpClaw\\Tools\\FileWriteTool",
                "PhpClaw\\Tools\\CodeSearchTool"
            ]
        );
        assert_eq!(
            plan[1].needs_config,
            owned(&["workspaceRoot", "allowPhpWrite"])
        );
    }

    #[test]
    fn the_cache_argument_names_win_when_it_gives_them() {
        let plan = plan_defaults(&[found("PhpClaw\\Tools\\FileReadTool", true, Some(&["root"]))]);
        assert_eq!(plan[0].needs_config, owned(&["root"]));
    }

    #[test]
    fn a_site_tool_marked_default_follows_the_table_and_others_are_not_created() {
        let plan = plan_defaults(&[
            found("App\\Tools\\Weather", true, Some(&["apiKey"])),
            found("App\\Tools\\Quiet", false, None),
            found("App\\Tools\\Bare", true, None),
        ]);
        let names = classes(&plan);
        assert_eq!(&names[3..], ["App\\Tools\\Weather", "App\\Tools\\Bare"]);
        assert_eq!(plan[3].needs_config, owned(&["apiKey"]));
        assert!(plan[4].needs_config.is_empty());
    }

    #[test]
    fn discovered_classes_are_the_table_then_new_classes_once() {
        let all = discovered_classes(&[
            found("PhpClaw\\Tools\\HttpTool", true, None),
            found("App\\Tools\\Weather", false, None),
        ]);
        assert_eq!(all.len(), 10);
        assert_eq!(all[9], b"App\\Tools\\Weather".to_vec());
    }

    #[test]
    fn three_defaults_and_keys() {
        let d: Vec<_> = defaults().map(|e| e.key).collect();
        assert_eq!(d, ["file_read", "code_search", "project_info"]);
        assert_eq!(by_key("shell").unwrap().class, "PhpClaw\\Tools\\ShellTool");
        assert!(by_key("shell_exec").is_none());
    }
}
