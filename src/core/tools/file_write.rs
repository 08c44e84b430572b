//! `file_write`: write one file inside the sandboxed workspace (spec "file_write"; phpClaw's
//! FileWriteTool, public repository phpclaw-php/phpclaw-monorepo).
//!
//! Rules:
//! - the root is the configured path (default `<cwd>/storage/phpclaw`, trailing `/` removed),
//!   replaced by its real path when it exists, once, at construction (`workspaceRoot()`);
//! - the path is trimmed (PHP `trim()`); empty is refused, then the content size (`maxBytes`,
//!   10 MB by default) is checked BEFORE any path check;
//! - the path shown in answers is the trimmed path without leading separators and without a
//!   repeated tail of the root (`storage/phpclaw/a.txt` → `a.txt`);
//! - any `..` is traversal; then file_write's rules (`core::security::file_rules`) judge the
//!   shown path, the workspace resolves it (file_write policy: symlinks refused unless
//!   `followSymlinks`, every existing component checked), and the rules judge the real path;
//! - a root that does not exist yet is created (the reference creates it with the parents) once
//!   the path has passed the rules; the filesystem root is never a workspace;
//! - missing parent folders are created (0755), then the content is written atomically
//!   (`super::atomic_write`); the answer is `{path, bytes_written}` with meta
//!   `{mode: write, message: "Written N bytes to PATH."}`.
//!
//! Added (ours): the folders are made and the file written relative to the root the gate
//! opened, each folder opened beneath the one above with no link crossed
//! (`atomic_write::Target::create`), so a folder swapped for a link after the check is never
//! followed; the new file and its folder are synced only when `durable_writes` asks for it.

use std::path::PathBuf;
use std::sync::Arc;

use super::atomic_write::{How, Owner, Target};
use super::file_read::php_string;
use super::{success, Host, NativeTool, ToolError};
use crate::core::security::file_rules::{check, check_resolved, sanitize_for_message, Rules};
use crate::core::security::workspace::open_root::OpenRoot;
use crate::core::security::workspace::Tool;
use crate::core::value::{Array, Value};

/// `name()`.
pub const NAME: &str = "file_write";
/// `description()`.
pub const DESCRIPTION: &str = "WRITE content to a file in the workspace (storage/phpclaw/), creating parent dirs as needed. Use whenever the user asks to save or persist text. Invoke: never claim a write without calling.";
/// `FileWriteTool::DEFAULT_WORKSPACE_SUBPATH`.
pub const DEFAULT_WORKSPACE_SUBPATH: &str = "storage/phpclaw";
/// `FileWriteTool::DEFAULT_MAX_BYTES`: 10 MB.
pub const DEFAULT_MAX_BYTES: i64 = 10 * 1024 * 1024;
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "write a file to the workspace";
/// The input keys the tool reads.
pub const INPUT_KEYS: [&str; 2] = ["path", "content"];
/// Traversal refusal.
pub const TRAVERSAL_MESSAGE: &str = "Path traversal detected: write access denied.";

/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["filesystem"],
    &["write", "create", "save", "file"],
    &["write file", "create file", "save contents"],
    &["save this report to notes.md"],
];

/// `inputSchema()`.
pub fn input_schema() -> Value {
    let prop =
        |description: &str| Value::from_pairs([("type", "string"), ("description", description)]);
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                (
                    "path",
                    prop("Relative path to the file within the workspace (e.g. \"output/report.txt\")."),
                ),
                ("content", prop("The content to write to the file.")),
            ]),
        ),
        ("required", Value::list(["path", "content"])),
    ])
}

/// `workspaceRoot()` as the constructor fixes it: the configured root (or
/// `<cwd>/storage/phpclaw`) without trailing `/`, replaced by its real path when it resolves.
pub fn constructed_root(root: Option<&str>, cwd: &str) -> String {
    let raw = super::file_read::configured_root(root, cwd);
    if raw.is_empty() {
        return raw;
    }
    super::file_read::resolve_root(&raw).unwrap_or(raw)
}

/// A file_write tool's configuration.
#[derive(Debug, Clone)]
pub struct FileWrite {
    /// `workspaceRoot()`.
    pub root: String,
    /// PHP files (php, phtml, phar and their kin) allowed.
    pub allow_php_write: bool,
    /// Content cap in bytes.
    pub max_bytes: i64,
    /// Symlinks in paths followed (their targets judged again).
    pub follow_symlinks: bool,
    /// Sync the new file and its folder before answering (php.ini `phpclaw.durable_writes`).
    pub durable_writes: bool,
}

/// What the gate judged: the shown path, the real target, and where it lies beneath the open
/// root.
#[derive(Debug, Clone)]
pub struct Gated {
    /// The path as the answer shows it.
    pub shown: String,
    /// The real target (messages).
    pub real: PathBuf,
    /// The open root.
    pub open: Arc<OpenRoot>,
    /// The target relative to it.
    pub relative: Vec<u8>,
}

/// The planned write.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The content.
    pub content: Vec<u8>,
    /// Where it goes.
    pub gated: Gated,
}

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The shown path.
    pub path: String,
    /// Bytes written.
    pub bytes: usize,
}

/// PHP `trim()`'s default set.
const PHP_TRIM: &[char] = &[' ', '\t', '\n', '\r', '\0', '\x0B'];

/// The reference's path normalisation: leading separators dropped, then the real root, or the
/// longest tail of its segments, removed from the front when followed by a separator.
pub fn normalize_workspace_path(path: &str, root: &str) -> String {
    let path = path.trim_start_matches(['/', '\\']);
    if path.is_empty() {
        return String::new();
    }
    let real = super::file_read::resolve_root(root).unwrap_or_else(|| root.to_string());
    let real = real.trim_end_matches(['/', '\\']);
    if let Some(rest) = path.strip_prefix(real).and_then(|r| r.strip_prefix('/')) {
        return rest.to_string();
    }
    let segs: Vec<&str> = real.trim_matches(['/', '\\']).split('/').collect();
    for take in (1..=segs.len()).rev() {
        let tail = segs[segs.len() - take..].join("/");
        if tail.is_empty() {
            continue;
        }
        if let Some(rest) = path
            .strip_prefix(tail.as_str())
            .and_then(|r| r.strip_prefix('/'))
        {
            return rest.to_string();
        }
    }
    path.to_string()
}

impl FileWrite {
    /// A tool with the reference defaults for everything but the root.
    pub fn new(root: String) -> FileWrite {
        FileWrite {
            root,
            allow_php_write: false,
            max_bytes: DEFAULT_MAX_BYTES,
            follow_symlinks: false,
            durable_writes: false,
        }
    }

    fn rules(&self) -> Rules {
        Rules::FileWrite {
            allow_php_write: self.allow_php_write,
        }
    }

    /// The whole gate for a trimmed, non-empty path.
    pub fn gate(&self, trimmed: &str) -> Result<Gated, String> {
        let shown = normalize_workspace_path(trimmed, &self.root);
        if shown.contains("..") {
            return Err(TRAVERSAL_MESSAGE.to_string());
        }
        if !shown.contains('\0') {
            check(self.rules(), &shown).map_err(|r| r.message)?;
        }
        let open = match OpenRoot::get(&self.root) {
            Ok(open) => open,
            Err(e) => {
                self.create_root()?;
                OpenRoot::get(&self.root).map_err(|_| e.refusal(Tool::FileWrite).message)?
            }
        };
        let ws = open
            .workspace()
            .clone()
            .with_follow_symlinks(self.follow_symlinks);
        let resolved = ws
            .resolve_for(Tool::FileWrite, trimmed)
            .map_err(|e| e.refusal().message)?;
        check_resolved(self.rules(), &resolved).map_err(|r| r.message)?;
        Ok(Gated {
            shown,
            real: resolved.real,
            open,
            relative: resolved.real_relative.into_bytes(),
        })
    }

    /// Create a missing root with its parents, as the reference's first write does; the
    /// filesystem root and an empty root are never created or used.
    fn create_root(&self) -> Result<(), String> {
        let root = std::path::Path::new(&self.root);
        if self.root.is_empty() || root.parent().is_none() || root.exists() {
            return Ok(());
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .create(root)
            .map_err(|_| {
                format!(
                    "Could not create directory: {}",
                    sanitize_for_message(&self.root)
                )
            })
    }
}

impl NativeTool for FileWrite {
    type Input = Planned;
    type Execution = Written;

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        _host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        let empty = Array::new();
        let input = input.as_array().unwrap_or(&empty);
        let raw = input.get("path").and_then(php_string).unwrap_or_default();
        let content = input
            .get("content")
            .and_then(php_string)
            .unwrap_or_default();
        let raw_text = String::from_utf8_lossy(&raw);
        let trimmed = raw_text.trim_matches(PHP_TRIM);
        if trimmed.is_empty() {
            return Err(ToolError::tool("No file path provided."));
        }
        if content.len() as u64 > self.max_bytes.max(0) as u64 {
            return Err(ToolError::Tool(format!(
                "Content size ({} bytes) exceeds max allowed ({} bytes).",
                content.len(),
                self.max_bytes
            )));
        }
        if std::str::from_utf8(&raw).is_err() {
            // A name that is not UTF-8 text cannot be judged by the rules; refused (ours).
            return Err(ToolError::tool(TRAVERSAL_MESSAGE));
        }
        let gated = self.gate(trimmed).map_err(ToolError::Tool)?;
        Ok(Planned { content, gated })
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        _host: &mut H,
    ) -> Result<Written, ToolError<H::Error>> {
        let g = &input.gated;
        let cannot = || {
            let dir = g.real.parent().unwrap_or(&g.real);
            ToolError::Tool(format!(
                "Could not create directory: {}",
                sanitize_for_message(&dir.to_string_lossy())
            ))
        };
        let root = g.open.dir_fd().ok_or_else(cannot)?;
        let target = Target::create(root, &g.relative).map_err(|_| cannot())?;
        // Never renamed in between a concurrent file_edit's read and rename (best effort: a file
        // this worker cannot open for reading is replaced without the lock, as before).
        let lock = target.lock().ok().flatten();
        let owner = match &lock {
            Some(l) => Some(Owner::of(&l.meta)),
            None => target.owner(),
        };
        let how = How {
            label: NAME,
            prefix: "write",
            shown: &g.shown,
            durable: self.durable_writes,
        };
        target
            .write(&input.content, owner, &how)
            .map_err(ToolError::Tool)?;
        drop(lock);
        Ok(Written {
            path: g.shown.clone(),
            bytes: input.content.len(),
        })
    }

    fn complete(&mut self, written: &Written, _input: &Planned) -> Value {
        let data = Value::from_pairs([
            ("path", Value::str(&written.path)),
            ("bytes_written", Value::Int(written.bytes as i64)),
        ]);
        let meta = Value::from_pairs([
            ("mode", Value::str("write")),
            (
                "message",
                Value::str(format!(
                    "Written {} bytes to {}.",
                    written.bytes, written.path
                )),
            ),
        ]);
        success(data, meta, Value::Array(Array::new()))
    }
}
