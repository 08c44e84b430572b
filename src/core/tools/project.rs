//! project_info, native: the detected platform (eight, from marker files, first match wins in
//! the reference's order), the Composer packages of `composer.lock`, and the file tree with
//! depth clamped to 1..4 (default 2). Unlike the reference, each folder's entries are sorted by
//! name so the same project always gives the same tree.
//!
//! Links and hard links (ours: the reference lists and reads whatever a name leads to): the
//! tree's folders are opened beneath the open project root with no link crossed; a link (to a
//! folder, a file or anything else) is listed only when what it leads to is inside the project
//! and not a secret or a folder the tree leaves out, judged on the opened descriptor, and a
//! linked folder is listed through that descriptor. The tree is names only, so a regular file
//! with more than one hard link is listed like any other (its name is chosen by whoever made
//! the link and tells nothing of the content; the type comes from the listing, no `stat`);
//! what is read is judged by content rules: `composer.lock` is read under the same link rules
//! and refused when it has more than one hard link, unless `allowHardLinks`.

use std::cell::Cell;
use std::io::Read as _;
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::Arc;

pub mod lock;

use super::code_search::listing::Kind;
use super::code_search::tree_cache::{Listing, Tree, Trust};
use super::{success, Host, NativeTool, ToolError};
use crate::core::budget::{Budget, WALK_TIME};
use crate::core::security::file_rules::{is_blocked_path, project_skips_entry, project_skips_path};
use crate::core::security::workspace::beneath::{HardLinks, Want};
use crate::core::security::workspace::open_root::OpenRoot;
use crate::core::value::{Array, Value};

/// The tool's name.
pub const NAME: &str = "project_info";
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "inspect this project";
/// `description()`.
pub const DESCRIPTION: &str = "Understand the project before changing it: detected framework, Composer packages, and file tree. Call this first on any new task. Read-only.";
/// Depth bounds and default.
pub const DEPTH_MIN: i64 = 1;
/// Deepest tree.
pub const DEPTH_MAX: i64 = 4;
/// Default depth.
pub const DEPTH_DEFAULT: i64 = 2;
/// Entries the file tree lists at most (ours: the reference lists every one); past it the tree
/// is cut and the answer warns (`core::budget`, with its wall-clock bound).
pub const TREE_ENTRIES: usize = 10_000;
/// The largest `composer.lock` read (real ones are 0.3–0.5 MB; a bigger one is not listed, so
/// the read stays bounded in memory and time whatever the file holds).
pub const LOCK_MAX_BYTES: u64 = 16 << 20;
/// Platforms and their marker files, in detection order.
pub const MARKERS: [(&str, &[&str]); 8] = [
    ("wordpress", &["wp-config.php", "wp-load.php"]),
    ("joomla", &["configuration.php", "libraries/src"]),
    ("opencart", &["system/startup.php"]),
    ("prestashop", &["config/defines.inc.php"]),
    ("laravel", &["artisan"]),
    ("symfony", &["bin/console"]),
    ("magento", &["bin/magento"]),
    ("drupal", &["core/lib/Drupal.php"]),
];
/// routingMetadata(): domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["project"],
    &[
        "project",
        "framework",
        "packages",
        "composer",
        "structure",
        "tree",
    ],
    &["inspect project", "detect framework"],
    &["what framework is this project"],
];

/// `inputSchema()`.
pub fn input_schema() -> Value {
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([(
                "depth",
                Value::from_pairs([
                    ("type", "integer"),
                    ("description", "File tree depth 1-4. Default 2."),
                ]),
            )]),
        ),
    ])
}

/// The tool: its project root, as given (cwd when none).
pub struct Project {
    /// The project root.
    pub root: String,
    /// Whether a `composer.lock` with more than one hard link is read (`allowHardLinks`; ours).
    pub allow_hard_links: bool,
}

impl Project {
    /// A tool on `root`, a hard-linked `composer.lock` not read.
    pub fn new(root: impl Into<String>) -> Project {
        Project {
            root: root.into(),
            allow_hard_links: false,
        }
    }

    fn hard_links(&self) -> HardLinks {
        HardLinks::allowed(self.allow_hard_links)
    }
}

/// PHP's `dirname()` of an absolute or relative path, enough to tell the filesystem root.
fn is_filesystem_root(p: &str) -> bool {
    p.is_empty() || p.bytes().all(|c| c == b'/') || p == "."
}

/// The platform slug, or `unknown`.
pub fn detect(root: &str) -> &'static str {
    for (name, markers) in MARKERS {
        if markers
            .iter()
            .any(|m| Path::new(&format!("{root}/{m}")).exists())
        {
            return name;
        }
    }
    "unknown"
}

/// `[{name, version}]` from composer.lock's `packages` (read by [`lock::packages`]); none when
/// the file is missing, or is a link out of the project or to a secret, or has more than one
/// hard link (unless allowed); none and a warning when it is larger than [`LOCK_MAX_BYTES`].
pub fn packages(root: &str, hard_links: HardLinks) -> (Value, Option<String>) {
    let none = || Value::list(Vec::<Value>::new());
    let Ok(open) = OpenRoot::get(root) else {
        return (none(), None);
    };
    let blocked = |real: &[u8]| is_blocked_path(&String::from_utf8_lossy(real));
    let Ok(lock) = open.open_entry(b"composer.lock", Want::File, hard_links, &blocked) else {
        return (none(), None);
    };
    let size = usize::try_from(lock.meta.len().min(LOCK_MAX_BYTES)).unwrap_or(0);
    let mut text = Vec::with_capacity(size + 1);
    // One byte past the cap tells a file that is (or grew) too large.
    if (&lock.file)
        .take(LOCK_MAX_BYTES + 1)
        .read_to_end(&mut text)
        .is_err()
    {
        text.clear();
    }
    if text.len() as u64 > LOCK_MAX_BYTES {
        let warning = format!(
            "{NAME}: composer.lock is larger than {} MiB; its packages are not listed.",
            LOCK_MAX_BYTES >> 20
        );
        return (none(), Some(warning));
    }
    let list = Value::list(lock::packages(&text).into_iter().map(|p| {
        Value::from_pairs([
            ("name", Value::Str(p.name.into_bytes())),
            ("version", Value::Str(p.version.into_bytes())),
        ])
    }));
    (list, None)
}

/// The tree below `dir`: folders as `name/` keys holding their own tree, files (and anything
/// else that is not a folder) as list entries. Entry types come from `listing` (no `stat` per
/// entry); a folder at the depth limit is not listed. Links are judged as the module says.
pub fn tree(dir: &Path, depth: i64, level: i64) -> Array {
    tree_within(dir, depth, level, &Budget::new(WALK_TIME, TREE_ENTRIES))
}

/// [`tree`] within `budget`: the entries listed once it is spent are left out.
pub fn tree_within(dir: &Path, depth: i64, level: i64, budget: &Budget) -> Array {
    tree_through(dir, depth, level, budget, true)
}

/// [`tree_within`], through the tree cache or listing every folder from the disk.
fn tree_through(dir: &Path, depth: i64, level: i64, budget: &Budget, cached: bool) -> Array {
    if level >= depth {
        return Array::new();
    }
    let Some(open) = dir.to_str().and_then(|d| OpenRoot::get(d).ok()) else {
        return Array::new();
    };
    let Ok(top) = open.open_judged(b"", false, Want::Dir, NAMES_ONLY, &|_| false) else {
        return Array::new();
    };
    let walk = TreeWalk {
        open: &open,
        depth,
        budget,
        tree: open.identity().filter(|_| cached).and_then(Tree::begin),
    };
    let listed = walk.start(b"", &top.file);
    walk.list(listed, &mut Vec::new(), level)
}

/// The tree opens folders to list them and links only to judge where they lead (`O_PATH`):
/// no file's content is read, so a file's hard links do not matter to it.
const NAMES_ONLY: HardLinks = HardLinks::Allow;

/// Whether the tree leaves out an entry by its name alone. The names it leaves out are ASCII,
/// so a name that is not UTF-8 is none of them (no lossy copy of every name).
fn skipped_name(name: &[u8]) -> bool {
    std::str::from_utf8(name).is_ok_and(project_skips_entry)
}

/// One tree being listed beneath the open project root, through code_search's tree cache
/// when it is on: a folder whose listing the cache holds (and trusts: see `tree_cache`) is not
/// opened at all.
struct TreeWalk<'a> {
    open: &'a OpenRoot,
    depth: i64,
    budget: &'a Budget,
    tree: Option<Tree>,
}

/// A folder's listing, and its trust in the tree cache.
type Listed = Option<(Arc<Listing>, Trust)>;

impl TreeWalk<'_> {
    /// The listing of a folder opened on its own (the root, or where a link leads), whose real
    /// path relative to the root is `rel`.
    fn start(&self, rel: &[u8], dir: &std::fs::File) -> Listed {
        match self.tree {
            Some(t) => t.start(rel, dir.as_fd()),
            None => Listing::uncached(dir.as_fd()),
        }
    }

    /// The entries of a folder listed as `listed`, whose real path relative to the root is
    /// `rel`.
    fn list(&self, listed: Listed, rel: &mut Vec<u8>, level: i64) -> Array {
        let Some((listing, trust)) = listed else {
            return Array::new();
        };
        let mut items = Array::with_capacity(listing.entries.len());
        for (name, kind) in &listing.entries {
            if !self.budget.spend() {
                break;
            }
            if skipped_name(name) {
                continue;
            }
            match kind {
                Kind::File | Kind::Other => {}
                Kind::Dir | Kind::DirLink => {
                    let Some(sub) = self.folder(rel, name, kind.is_link(), level, trust) else {
                        continue;
                    };
                    let mut key = Vec::with_capacity(name.len() + 1);
                    key.extend_from_slice(name);
                    key.push(b'/');
                    items.insert(key, Value::Array(sub));
                    continue;
                }
                Kind::FileLink | Kind::OtherLink => {
                    if !self.link_judged(rel, name) {
                        continue;
                    }
                }
            }
            let _ = items.push(Value::Str(name.clone()));
        }
        items
    }

    /// The tree of the folder `name` in `rel` (a folder of trust `parent`; empty at the depth
    /// limit); None for a link to a folder that may not be listed. A plain folder that cannot
    /// be opened lists as empty.
    fn folder(
        &self,
        rel: &mut Vec<u8>,
        name: &[u8],
        link: bool,
        level: i64,
        parent: Trust,
    ) -> Option<Array> {
        let deeper = level + 1 < self.depth;
        if !link && !deeper {
            return Some(Array::new());
        }
        let base = push_name(rel, name);
        let cached = match self.tree {
            Some(t) if !link => t.child(rel, parent),
            _ => None,
        };
        let sub = if cached.is_some() {
            Some(self.list(cached, rel, level + 1))
        } else {
            let opened = self
                .open
                .open_judged(rel, link, Want::Dir, NAMES_ONLY, &skipped_path);
            match opened {
                Ok(mut d) if deeper && link => {
                    let listed = self.start(&d.real_relative, &d.file);
                    Some(self.list(listed, &mut d.real_relative, level + 1))
                }
                Ok(d) if deeper => {
                    let listed = match self.tree {
                        Some(t) => t.list_child(rel, d.file.as_fd(), parent),
                        None => Listing::uncached(d.file.as_fd()),
                    };
                    Some(self.list(listed, rel, level + 1))
                }
                Ok(_) => Some(Array::new()),
                Err(_) if link => None,
                Err(_) => Some(Array::new()),
            }
        };
        rel.truncate(base);
        sub
    }

    /// Whether the link `name` in `rel` (to a file, to anything else, or dangling) is listed:
    /// what it leads to is inside the project and not left out.
    fn link_judged(&self, rel: &mut Vec<u8>, name: &[u8]) -> bool {
        let base = push_name(rel, name);
        let judged = self
            .open
            .open_judged(rel, true, Want::Any, NAMES_ONLY, &skipped_path);
        rel.truncate(base);
        judged.is_ok()
    }
}

/// Whether the tree leaves out what a link leads to (its real path relative to the root).
fn skipped_path(real: &[u8]) -> bool {
    project_skips_path(&String::from_utf8_lossy(real))
}

/// Appends `/name` (or `name` to an empty path) to `rel`; returns the length to truncate back to.
fn push_name(rel: &mut Vec<u8>, name: &[u8]) -> usize {
    let base = rel.len();
    if base != 0 {
        rel.push(b'/');
    }
    rel.extend_from_slice(name);
    base
}

/// The planned depth.
pub struct Planned {
    depth: i64,
}

impl NativeTool for Project {
    type Input = Planned;
    /// The data, taken (not copied) by `complete()`: the tree can hold thousands of entries;
    /// and the warning when the tree was cut.
    type Execution = (Cell<Option<Value>>, Vec<String>);

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        _host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        if is_filesystem_root(&self.root) {
            return Err(ToolError::tool(
                "project_info: no project root is configured, and the process started at the filesystem root.",
            ));
        }
        if !Path::new(&self.root).is_dir() {
            return Err(ToolError::Tool(format!(
                "project_info: root not found: {}",
                self.root
            )));
        }
        let depth = match input.as_array().and_then(|a| a.get("depth")) {
            None | Some(Value::Null) => DEPTH_DEFAULT,
            Some(Value::Int(i)) => *i,
            Some(Value::Bool(b)) => i64::from(*b),
            Some(Value::Float(f)) if f.is_finite() => *f as i64,
            Some(Value::Float(_)) => 0,
            Some(Value::Str(s)) => {
                let t = String::from_utf8_lossy(s);
                let t = t.trim_start();
                let n: String = t
                    .char_indices()
                    .take_while(|(i, c)| {
                        c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+'))
                    })
                    .map(|(_, c)| c)
                    .collect();
                n.parse::<i64>().unwrap_or(0)
            }
            Some(Value::Array(a)) => i64::from(!a.is_empty()),
        };
        Ok(Planned {
            depth: depth.clamp(DEPTH_MIN, DEPTH_MAX),
        })
    }

    fn perform<H: Host>(
        &mut self,
        p: &Planned,
        _host: &mut H,
    ) -> Result<Self::Execution, ToolError<H::Error>> {
        let budget = Budget::new(WALK_TIME, TREE_ENTRIES);
        let file_tree = tree_within(Path::new(&self.root), p.depth, 0, &budget);
        let (packages, lock_warning) = packages(&self.root, self.hard_links());
        let data = Value::from_pairs([
            ("framework", Value::str(detect(&self.root))),
            ("root", Value::str(&self.root)),
            ("packages", packages),
            ("file_tree", Value::Array(file_tree)),
        ]);
        let warnings = lock_warning
            .into_iter()
            .chain(budget.warning(NAME))
            .collect();
        Ok((Cell::new(Some(data)), warnings))
    }

    fn complete(&mut self, execution: &Self::Execution, p: &Planned) -> Value {
        let meta = Value::from_pairs([
            ("mode", Value::str("project_info")),
            ("depth", Value::Int(p.depth)),
        ]);
        let data = execution.0.take().unwrap_or(Value::Null);
        let warnings = Value::list(execution.1.iter().map(Value::str));
        success(data, meta, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock of exactly `len` bytes naming one package (padded with spaces, which JSON allows).
    fn lock_of(dir: &Path, len: u64) {
        let body = br#"{"packages":[{"name":"a/b","version":"1.0.0"}]}"#;
        let mut text = body.to_vec();
        text.resize(usize::try_from(len).unwrap(), b' ');
        std::fs::write(dir.join("composer.lock"), text).unwrap();
    }

    /// The tree through the cache, checked against the tree from the disk.
    fn same_tree(root: &Path) {
        let budget = || Budget::new(WALK_TIME, TREE_ENTRIES);
        let cached = tree_through(root, 4, 0, &budget(), true);
        let disk = tree_through(root, 4, 0, &budget(), false);
        assert_eq!(format!("{cached:?}"), format!("{disk:?}"));
    }

    #[test]
    fn a_tree_through_the_cache_is_the_tree_on_disk_after_changes() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.join("app/Models/deep")).unwrap();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::write(root.join("app/Models/User.php"), "x").unwrap();
        symlink(root.join("lib"), root.join("app/lib-link")).unwrap();
        same_tree(&root);
        same_tree(&root);
        std::fs::write(root.join("app/Models/deep/new.php"), "x").unwrap();
        same_tree(&root);
        std::fs::rename(root.join("app/Models"), root.join("Models")).unwrap();
        same_tree(&root);
        std::fs::create_dir_all(root.join("lib/inner")).unwrap();
        same_tree(&root);
        // A folder swapped for a link out of the project, and a link retargeted outside.
        std::fs::rename(root.join("lib"), root.join("lib-old")).unwrap();
        symlink(outside.path(), root.join("lib")).unwrap();
        same_tree(&root);
        std::fs::remove_file(root.join("app/lib-link")).unwrap();
        symlink(outside.path(), root.join("app/lib-link")).unwrap();
        same_tree(&root);
        let t = tree_through(&root, 4, 0, &Budget::new(WALK_TIME, TREE_ENTRIES), true);
        assert!(t.get("lib/").is_none() && t.get("lib-old/").is_some());
    }

    #[test]
    fn lock_at_the_cap_is_read_one_byte_past_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_string_lossy().into_owned();
        lock_of(dir.path(), LOCK_MAX_BYTES);
        let (list, warning) = packages(&root, HardLinks::Refuse);
        assert_eq!(list.as_array().map(Array::len), Some(1));
        assert_eq!(warning, None);
        lock_of(dir.path(), LOCK_MAX_BYTES + 1);
        let (list, warning) = packages(&root, HardLinks::Refuse);
        assert_eq!(list.as_array().map(Array::len), Some(0));
        assert_eq!(
            warning.as_deref(),
            Some("project_info: composer.lock is larger than 16 MiB; its packages are not listed.")
        );
    }
}
