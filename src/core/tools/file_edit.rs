//! `file_edit`: replace one unique string in a workspace file (spec "file_edit"; phpClaw's
//! FileEditTool, public repository phpclaw-php/phpclaw-monorepo).
//!
//! Rules:
//! - the root is resolved lazily like file_read's (configured path, real path cached once it
//!   resolves); a missing root fails at execute(), not at construction;
//! - the path is `path`, else the legacy `file` (PHP `??`: a null value falls through), not
//!   trimmed; it and `old_str` must be non-empty;
//! - an absolute path is traversal; file_edit's rules (file_read's plus the build files and
//!   `.github`, `.git`, `.circleci`, with the tool's own noise folders) judge the path as given,
//!   the workspace resolves it (file_edit policy), and the rules judge the real path again;
//! - the real path the resolution judged is opened beneath the open root with no link crossed
//!   (`workspace::beneath`) and read through that descriptor, so a name swapped for a link
//!   after the check leads nowhere; a regular file with more than one hard link is refused
//!   unless `allowHardLinks` (ours: another name of it may be a secret or lie outside);
//! - the file must have been read by file_read in this run (the host's read log, keyed by the
//!   real root and the real path);
//! - files over `maxBytes` (2 MB by default) are refused by their size before any read; the
//!   first 8192 bytes are sniffed and a NUL byte refuses a binary;
//! - `old_str` must occur exactly once (non-overlapping count, as `substr_count`): zero or two
//!   and more fail, and the messages never quote old_str or new_str;
//! - the single occurrence is replaced and the file written atomically
//!   (`super::atomic_write`); the answer is `{status: edited, file, line_changed}` where the
//!   line is the 1-based line the match starts on.
//!
//! Added (ours):
//! - the file is read once, through the descriptor the gate opened (one read into a buffer
//!   sized by its fstat, plus the read that sees the end);
//! - the write happens relative to the file's folder opened beneath the same open root with no
//!   link crossed (`atomic_write::Target`), and holds an exclusive lock on the file from a last
//!   look at it to the rename; when the file changed since it was read for the plan (another
//!   worker's edit), it is judged again (a regular file, hard links as configured), read again
//!   under the lock, and `old_str` must still occur exactly once in that content, so no
//!   acknowledged edit is ever overwritten by a stale copy;
//! - the temp file and the folder are synced only when `durable_writes` asks for it.

use std::fs::{File, Metadata};
use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::PathBuf;
use std::sync::Arc;

use super::atomic_write::{stamp, How, Owner, Stamp, Target};
use super::file_read::{php_string, resolve_root, BINARY_SNIFF_BYTES};
use super::{success, Host, NativeTool, ToolError};
use crate::core::security::blocked_paths::NOISE_DIRS;
use crate::core::security::file_rules::{check_file_edit_with, sanitize_for_message};
use crate::core::security::workspace::beneath::{HardLinks, Refused, Want};
use crate::core::security::workspace::open_root::OpenRoot;
use crate::core::security::workspace::{is_absolute, PathError, Tool};
use crate::core::value::{Array, Value};

/// `name()`.
pub const NAME: &str = "file_edit";
/// `description()`: the reference's, with the spec's instruction about file_read's prefix.
pub const DESCRIPTION: &str = "Edit a file by replacing old_str with new_str. old_str must appear exactly once. Copy old_str from the file text only, never the line-number prefix file_read adds. Use for targeted fixes; use file_write only for whole new files.";
/// `FileEditTool::DEFAULT_WORKSPACE_SUBPATH`.
pub const DEFAULT_WORKSPACE_SUBPATH: &str = "storage/phpclaw";
/// `FileEditTool::DEFAULT_MAX_BYTES`: 2 MB.
pub const DEFAULT_MAX_BYTES: i64 = 2_097_152;
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "edit a file in the workspace";
/// `InvalidArgumentException` message of a `maxBytes` below 1.
pub const MAX_BYTES_MESSAGE: &str = "maxBytes must be greater than 0.";
/// Missing path or old_str.
pub const REQUIRED_MESSAGE: &str = "file_edit: path and old_str are required.";
/// Traversal refusal.
pub const TRAVERSAL_MESSAGE: &str = "file_edit: Path traversal detected: access denied.";
/// The input keys the tool reads.
pub const INPUT_KEYS: [&str; 4] = ["path", "file", "old_str", "new_str"];

/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["filesystem", "code"],
    &["edit", "replace", "modify", "patch", "change"],
    &["edit file", "replace string"],
    &["change the timeout in config.php"],
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
                ("path", prop("Workspace-relative path of the file to edit.")),
                (
                    "old_str",
                    prop("Exact unique string to replace, with enough surrounding context to be unique."),
                ),
                ("new_str", prop("Replacement string.")),
            ]),
        ),
        ("required", Value::list(["path", "old_str", "new_str"])),
    ])
}

/// A file_edit tool: configuration and the root cache.
#[derive(Debug, Clone)]
pub struct FileEdit {
    /// The root as configured.
    pub root_configured: String,
    /// The real root, once resolved.
    pub root_resolved: Option<String>,
    /// Size cap in bytes (at least 1).
    pub max_bytes: i64,
    /// Symlinks in paths followed (their targets judged again).
    pub follow_symlinks: bool,
    /// Noise folder names refused besides the security and edit ones.
    pub noise_dirs: Vec<String>,
    /// Whether regular files with more than one hard link may be edited (`allowHardLinks`).
    pub allow_hard_links: bool,
    /// Sync the new file and its folder before answering (php.ini `phpclaw.durable_writes`).
    pub durable_writes: bool,
}

/// What the gate opened: the real path, the real root, and the file itself.
#[derive(Debug)]
pub struct Gated {
    /// The real file.
    pub real: PathBuf,
    /// The real root.
    pub root: String,
    /// The open root the file was opened beneath (the write opens its folder beneath it too).
    pub open: Arc<OpenRoot>,
    /// The file relative to that root, as opened.
    pub relative: Vec<u8>,
    /// The file, opened beneath the root with no link crossed.
    pub file: File,
    /// Its metadata (fstat).
    pub meta: Metadata,
}

/// The planned edit.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The path as given (answers and messages).
    pub file: String,
    /// The open root the file was read beneath.
    pub open: Arc<OpenRoot>,
    /// The file relative to it.
    pub relative: Vec<u8>,
    /// Its whole content.
    pub contents: Vec<u8>,
    /// Where the single match starts.
    pub at: usize,
    /// The text replaced.
    pub old: Vec<u8>,
    /// The replacement.
    pub new: Vec<u8>,
    /// The version of the file `contents` was read from.
    pub stamp: Stamp,
}

/// What was done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The path as given.
    pub file: String,
    /// 1-based line the match started on.
    pub line: i64,
}

/// Non-overlapping occurrences of `needle` (PHP `substr_count`), counting at most `limit`.
pub fn count_matches(haystack: &[u8], needle: &[u8], limit: usize) -> (usize, Option<usize>) {
    let mut first = None;
    let mut n = 0;
    for at in memchr::memmem::find_iter(haystack, needle) {
        first.get_or_insert(at);
        n += 1;
        if n >= limit {
            break;
        }
    }
    (n, first)
}

impl FileEdit {
    /// A tool with the reference defaults for everything but the root.
    pub fn new(root_configured: String) -> FileEdit {
        FileEdit {
            root_configured,
            root_resolved: None,
            max_bytes: DEFAULT_MAX_BYTES,
            follow_symlinks: false,
            noise_dirs: NOISE_DIRS.iter().map(|s| (*s).to_string()).collect(),
            allow_hard_links: false,
            durable_writes: false,
        }
    }

    /// The real root once it resolves (cached), else the configured path.
    pub fn workspace_root(&mut self) -> String {
        if let Some(r) = &self.root_resolved {
            return r.clone();
        }
        match resolve_root(&self.root_configured) {
            Some(real) => {
                self.root_resolved = Some(real.clone());
                real
            }
            None => self.root_configured.clone(),
        }
    }

    fn check(&self, path: &str) -> Result<(), String> {
        let noise: Vec<&str> = self.noise_dirs.iter().map(String::as_str).collect();
        check_file_edit_with(path, &noise).map_err(|r| r.message)
    }

    /// The whole gate: the rules, the resolution, the rules on the real path, then the real
    /// path opened beneath the root (no link crossed, hard links refused unless allowed).
    pub fn gate(&mut self, file: &str) -> Result<Gated, String> {
        if is_absolute(file) {
            return Err(TRAVERSAL_MESSAGE.to_string());
        }
        if !file.contains('\0') {
            self.check(file)?;
        }
        let root = self.workspace_root();
        let open = OpenRoot::get(&root).map_err(|e| e.refusal(Tool::FileEdit).message)?;
        let ws = open
            .workspace()
            .clone()
            .with_follow_symlinks(self.follow_symlinks);
        let resolved = ws
            .resolve_for(Tool::FileEdit, file)
            .map_err(|e| e.refusal().message)?;
        self.check(&resolved.display)?;
        self.check(&resolved.real_relative)?;
        let opened = open
            .open_judged(
                resolved.real_relative.as_bytes(),
                false,
                Want::File,
                HardLinks::allowed(self.allow_hard_links),
                &|_| false,
            )
            .map_err(|r| refusal(r, file))?;
        Ok(Gated {
            real: resolved.real,
            root: ws.root().to_string_lossy().into_owned(),
            open,
            relative: opened.real_relative,
            file: opened.file,
            meta: opened.meta,
        })
    }

    /// Read the whole file through an open handle: size first (its fstat), then the content in
    /// one pass (never more than the cap, plus one byte to notice growth since the fstat), then
    /// the binary sniff of its start.
    pub fn read(&self, handle: &File, meta: &Metadata, file: &str) -> Result<Vec<u8>, String> {
        let s = sanitize_for_message(file);
        let cap = self.max_bytes.max(0) as u64;
        if meta.len() > cap {
            return Err(format!(
                "file_edit: file too large to edit ({} bytes, limit {}): {s}",
                meta.len(),
                self.max_bytes
            ));
        }
        let mut contents = Vec::with_capacity(meta.len() as usize + 1);
        handle
            .take(cap + 1)
            .read_to_end(&mut contents)
            .map_err(|_| format!("file_edit: cannot read: {s}"))?;
        let sample = &contents[..contents.len().min(BINARY_SNIFF_BYTES)];
        if memchr::memchr(0, sample).is_some() {
            return Err(format!(
                "file_edit: Binary file; file_edit operates on text files only: {s}"
            ));
        }
        if contents.len() as u64 > cap {
            return Err(format!(
                "file_edit: file too large to edit ({} bytes, limit {}): {s}",
                contents.len(),
                self.max_bytes
            ));
        }
        Ok(contents)
    }
}

/// The gate's wording of why `file` was not opened.
fn refusal(r: Refused, file: &str) -> String {
    match r {
        Refused::Unreadable => format!("file_edit: cannot read: {}", sanitize_for_message(file)),
        r => {
            PathError {
                kind: r.kind(),
                tool: Tool::FileEdit,
                path: file.to_string(),
            }
            .refusal()
            .message
        }
    }
}

/// Where the single occurrence of `old` in `contents` starts; the reference's messages for none
/// and for several.
fn unique_match(contents: &[u8], old: &[u8], file: &str) -> Result<usize, String> {
    let s = sanitize_for_message(file);
    match count_matches(contents, old, usize::MAX) {
        (1, Some(at)) => Ok(at),
        (0, _) | (_, None) => Err(format!(
            "file_edit: old_str not found in {s}. Match must be exact including whitespace."
        )),
        (n, _) => Err(format!(
            "file_edit: old_str matches {n} locations in {s} - add more surrounding context to make it unique."
        )),
    }
}

impl NativeTool for FileEdit {
    type Input = Planned;
    type Execution = Edited;

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        let empty = Array::new();
        let input = input.as_array().unwrap_or(&empty);
        let given = |k: &str| input.get(k).filter(|v| !matches!(v, Value::Null));
        let raw = given("path")
            .or_else(|| given("file"))
            .and_then(php_string)
            .unwrap_or_default();
        let old = input
            .get("old_str")
            .and_then(php_string)
            .unwrap_or_default();
        if raw.is_empty() || old.is_empty() {
            return Err(ToolError::tool(REQUIRED_MESSAGE));
        }
        let Ok(file) = String::from_utf8(raw.clone()) else {
            // No file in the sandbox can be named by bytes that are not UTF-8 text here.
            return Err(ToolError::Tool(format!(
                "file_edit: file not found: {}",
                sanitize_for_message(&String::from_utf8_lossy(&raw))
            )));
        };
        let Gated {
            real,
            root,
            open,
            relative,
            file: handle,
            meta,
        } = self.gate(&file).map_err(ToolError::Tool)?;
        let real_text = real.to_string_lossy();
        if !host.was_read(&root, &real_text).map_err(ToolError::Host)? {
            return Err(ToolError::Tool(format!(
                "file_edit: file_read must be called on {} before editing it.",
                sanitize_for_message(&file)
            )));
        }
        let contents = self.read(&handle, &meta, &file).map_err(ToolError::Tool)?;
        let at = unique_match(&contents, &old, &file).map_err(ToolError::Tool)?;
        let new = input
            .get("new_str")
            .and_then(php_string)
            .unwrap_or_default();
        Ok(Planned {
            file,
            open,
            relative,
            contents,
            at,
            old,
            new,
            stamp: stamp(&meta),
        })
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        _host: &mut H,
    ) -> Result<Edited, ToolError<H::Error>> {
        let s = sanitize_for_message(&input.file);
        let root = input
            .open
            .dir_fd()
            .ok_or_else(|| ToolError::Tool(refusal(Refused::Unreadable, &input.file)))?;
        let target = Target::open(root, &input.relative)
            .map_err(|e| ToolError::Tool(refusal(Refused::from_io(&e), &input.file)))?;
        let lock = target
            .lock()
            .map_err(|e| {
                ToolError::Tool(if e.kind() == std::io::ErrorKind::WouldBlock {
                    format!("file_edit: the file is locked by another process: {s}")
                } else {
                    format!("file_edit: failed to write: {s}")
                })
            })?
            .ok_or_else(|| ToolError::Tool(format!("file_edit: file not found: {s}")))?;
        let again;
        let (contents, at) = if stamp(&lock.meta) == input.stamp {
            (&input.contents, input.at)
        } else {
            // Changed since the plan read it: judge and edit what is there now.
            let meta = &lock.meta;
            if !meta.is_file() {
                return Err(ToolError::Tool(refusal(Refused::NotAFile, &input.file)));
            }
            if meta.nlink() > 1 && !self.allow_hard_links {
                return Err(ToolError::Tool(refusal(Refused::HardLink, &input.file)));
            }
            again = self
                .read(&lock.file, meta, &input.file)
                .map_err(ToolError::Tool)?;
            let at = unique_match(&again, &input.old, &input.file).map_err(ToolError::Tool)?;
            (&again, at)
        };
        let before = &contents[..at];
        let line = memchr::memchr_iter(b'\n', before).count() as i64 + 1;
        let after = &contents[at + input.old.len()..];
        let mut out = Vec::with_capacity(before.len() + input.new.len() + after.len());
        out.extend_from_slice(before);
        out.extend_from_slice(&input.new);
        out.extend_from_slice(after);
        let how = How {
            label: NAME,
            prefix: "edit",
            shown: &input.file,
            durable: self.durable_writes,
        };
        target
            .write(&out, Some(Owner::of(&lock.meta)), &how)
            .map_err(ToolError::Tool)?;
        drop(lock);
        Ok(Edited {
            file: input.file.clone(),
            line,
        })
    }

    fn complete(&mut self, edited: &Edited, _input: &Planned) -> Value {
        let data = Value::from_pairs([
            ("status", Value::str("edited")),
            ("file", Value::str(&edited.file)),
            ("line_changed", Value::Int(edited.line)),
        ]);
        let meta = Value::from_pairs([
            ("mode", Value::str("edit")),
            ("line_changed", Value::Int(edited.line)),
        ]);
        success(data, meta, Value::Array(Array::new()))
    }
}
