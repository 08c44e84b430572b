//! `zip_package`: a workspace folder packed into `{output_name}.zip` in the temp directory.
//!
//! Rules (phpClaw's ZipPackagerTool, spec "zip_package"):
//! - `output_name` keeps only ASCII letters, digits, `_` and `-`; empty `source_dir` or an
//!   empty filtered name is refused, so the archive name can never leave the temp directory;
//! - `source_dir` (leading `/` and `\` dropped) must resolve to a folder inside the workspace
//!   root (the sandbox's resolution, links followed only inside, `..` above the root refused),
//!   not inside a security folder;
//! - every regular file below it becomes `{output_name}/{relative path}`, entries sorted by
//!   path; symlinked folders are not descended;
//! - an existing archive of the same name is replaced.
//!
//! Added (holes closed; the reference packs whatever it finds):
//! - secrets are never packed: a file whose workspace path is blocked (the file tools' lists:
//!   `.env` family, key and certificate extensions, credential names, backups of them) and
//!   anything in a security folder (`.git`, `.ssh`, …) are left out;
//! - everything is opened beneath the open workspace root with no link crossed, so a name
//!   swapped for a link after the walk saw it leads nowhere; a link to a file is packed only
//!   when the opened file's real path is inside the workspace and not blocked, and it is read
//!   through the descriptor that was judged; the source folder is opened again the same way, so
//!   one swapped for a link after planning is not followed;
//! - a regular file with more than one hard link is left out unless `allowHardLinks` (another
//!   name of it may be a secret or lie outside the workspace);
//! - the result's `warnings` say what was left out and why (names as in the archive, never a
//!   file's content);
//! - the archive is written to a new file created exclusively (`O_CREAT | O_EXCL`, random
//!   name, mode 0600) in the temp directory and then renamed over `{output_name}.zip`: a link
//!   planted at that name is replaced, never followed, and other users of a shared temp
//!   directory cannot read the archive.

use std::io::{Read as _, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::code_search::listing::{self, Kind};
use super::{success, Host, NativeTool, ToolError};
use crate::core::budget::Budget;
use crate::core::security::file_rules::{
    is_blocked_path, is_security_dir, resolve_checked, sanitize_for_message, Rules,
};
use crate::core::security::workspace::beneath::{HardLinks, Refused, Want};
use crate::core::security::workspace::open_root::OpenRoot;
use crate::core::security::workspace::{PathError, RootErrorKind, Tool};
use crate::core::value::Value;

/// The tool name.
pub const NAME: &str = "zip_package";
/// The description advertised to the model.
pub const DESCRIPTION: &str = "Create an installable ZIP from a workspace folder. Output goes to the system temp dir. Use after all plugin/module files are created and verified.";
/// Default workspace below the current directory.
pub const DEFAULT_WORKSPACE_SUBPATH: &str = "storage/phpclaw";
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "package a workspace folder";
/// The input keys read.
pub const INPUT_KEYS: [&str; 2] = ["source_dir", "output_name"];
/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["filesystem", "packaging"],
    &["zip", "archive", "package", "bundle", "compress"],
    &["package directory", "create zip"],
    &["zip up the build folder"],
];
/// Refusal of missing inputs.
pub const REQUIRED_MESSAGE: &str = "zip_package: source_dir and a valid output_name are required.";
/// Refusal of a folder outside the workspace.
pub const ESCAPE_MESSAGE: &str = "zip_package: source_dir escapes workspace root - blocked.";

/// The input schema.
pub fn input_schema() -> Value {
    let prop = |d: &str| Value::from_pairs([("type", "string"), ("description", d)]);
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                ("source_dir", prop("Workspace-relative folder to package.")),
                (
                    "output_name",
                    prop("ZIP name without extension (alphanumeric, dash, underscore)."),
                ),
            ]),
        ),
        ("required", Value::list(["source_dir", "output_name"])),
    ])
}

/// Mode of the archive: readable by its owner only.
pub const ARCHIVE_MODE: u32 = 0o600;

/// Names quoted per warning at most (the count is always given).
pub const MAX_NAMES_PER_WARNING: usize = 10;

/// Bytes of file content one archive packs at most (ours: the reference packs everything):
/// the file that would pass it and every one after it are left out, with a warning. The walk
/// and the packing share one `core::budget` (wall clock and entries listed) too.
pub const MAX_PACK_BYTES: u64 = 256 << 20;

/// The tool's configuration.
#[derive(Debug, Clone)]
pub struct ZipPackage {
    /// `workspaceRoot()` as constructed.
    pub root: String,
    /// Where archives go (`sys_get_temp_dir()`).
    pub temp_dir: PathBuf,
    /// Whether files with more than one hard link are packed (`allowHardLinks`; ours).
    pub allow_hard_links: bool,
    /// Bytes of content packed at most ([`MAX_PACK_BYTES`]; smaller in tests).
    pub max_pack_bytes: u64,
}

/// The planned archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The source folder as given (messages).
    pub shown: String,
    /// The source folder's real path relative to the real workspace root (`""`: the root).
    pub source: String,
    /// The filtered name.
    pub output_name: String,
}

/// Why an entry was left out of the archive: one warning per reason, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// A secret file or a security folder, by its path in the workspace.
    Blocked,
    /// A link out of the workspace, to a blocked path, dangling, or that could not be judged.
    Link,
    /// A regular file with more than one hard link.
    HardLink,
    /// A link to a folder (never followed).
    FolderLink,
}

/// Skip reasons in warning order, each with the words of its warning.
pub const SKIP_WARNINGS: [(Skip, &str); 4] = [
    (
        Skip::Blocked,
        "secret file(s) or security folder(s) left out (secrets are never packed)",
    ),
    (
        Skip::Link,
        "link(s) left out: they lead out of the workspace, to a blocked file or nowhere",
    ),
    (
        Skip::HardLink,
        "file(s) with more than one hard link left out (allowHardLinks permits them)",
    ),
    (Skip::FolderLink, "link(s) to folders not followed"),
];

/// The written archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// Archive path.
    pub zip_path: String,
    /// Files packed.
    pub files: usize,
    /// Archive size.
    pub size_bytes: u64,
    /// What was left out, as warnings.
    pub warnings: Vec<String>,
}

/// The archive's temp file, as the zip writer sees it. Once a write or seek failed (a full
/// disk), every later one writes nothing and succeeds, keeping the positions consistent: the
/// writer, dropped unfinished on that error, then finalises into nothing instead of printing
/// its failure to the worker's stderr (or panicking on a position it did not expect), and the
/// temp file is removed with it.
struct Quiet {
    inner: tempfile::NamedTempFile,
    failed: bool,
    /// The position, and the furthest one reached (the length), once `failed`.
    pos: u64,
    end: u64,
}

impl Quiet {
    fn new(inner: tempfile::NamedTempFile) -> Quiet {
        Quiet {
            inner,
            failed: false,
            pos: 0,
            end: 0,
        }
    }

    fn moved(&mut self, pos: u64) {
        self.pos = pos;
        self.end = self.end.max(pos);
    }
}

impl Write for Quiet {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.failed {
            match self.inner.write(buf) {
                Ok(n) => {
                    self.moved(self.pos + n as u64);
                    return Ok(n);
                }
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
        self.moved(self.pos + buf.len() as u64);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.failed {
            return Ok(());
        }
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

impl std::io::Seek for Quiet {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        if !self.failed {
            match self.inner.seek(to) {
                Ok(p) => {
                    self.moved(p);
                    return Ok(p);
                }
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            }
        }
        let p = match to {
            std::io::SeekFrom::Start(p) => p,
            std::io::SeekFrom::Current(d) => self.pos.saturating_add_signed(d),
            std::io::SeekFrom::End(d) => self.end.saturating_add_signed(d),
        };
        self.moved(p);
        Ok(p)
    }
}

/// The name with everything but `[A-Za-z0-9_-]` removed.
pub fn filter_name(raw: &[u8]) -> String {
    raw.iter()
        .filter(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
        .map(|b| char::from(*b))
        .collect()
}

/// One entry the walk found: its path relative to the source folder, and whether it is a link
/// (followed and judged when it is opened).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `/`-separated path below the source folder.
    pub rel: Vec<u8>,
    /// The entry is a link to a file.
    pub link: bool,
}

/// What the walk found: the entries to pack, sorted by path, and what it left out.
#[derive(Debug, Default)]
pub struct Collected {
    /// Files to pack, in archive order.
    pub entries: Vec<Entry>,
    /// Entries left out, with why (paths below the source folder; folders end in `/`).
    pub skipped: Vec<(Skip, Vec<u8>)>,
}

fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// Every entry below the source folder `source` (relative to the open root), listed through
/// descriptors opened beneath the root with no link crossed: folders are descended unless they
/// are security folders, files whose workspace path is blocked are left out, links to files are
/// kept to be judged when opened, links to folders are left out.
pub fn collect(open: &OpenRoot, source: &str, budget: &Budget) -> Result<Collected, Refused> {
    let mut out = Collected::default();
    let dir = open.open_judged(
        source.as_bytes(),
        false,
        Want::Dir,
        HardLinks::Allow,
        &|_| false,
    )?;
    walk(open, source.as_bytes(), &dir.file, &[], &mut out, budget);
    out.entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

fn walk(
    open: &OpenRoot,
    source: &[u8],
    dir: &std::fs::File,
    rel: &[u8],
    out: &mut Collected,
    budget: &Budget,
) {
    let Some(entries) = listing::list_fd(dir.as_fd()) else {
        return;
    };
    for (name, kind) in entries {
        if !budget.spend() {
            return;
        }
        let child = listing::join(rel, &name);
        let in_workspace = listing::join(source, &child);
        match kind {
            Kind::Dir if is_security_dir(&lossy(&name)) => {
                let mut shown = child;
                shown.push(b'/');
                out.skipped.push((Skip::Blocked, shown));
            }
            Kind::Dir => {
                if let Ok(sub) =
                    open.open_judged(&in_workspace, false, Want::Dir, HardLinks::Allow, &|_| {
                        false
                    })
                {
                    walk(open, source, &sub.file, &child, out, budget);
                }
            }
            Kind::File | Kind::FileLink if is_blocked_path(&lossy(&in_workspace)) => {
                out.skipped.push((Skip::Blocked, child));
            }
            Kind::File | Kind::FileLink => out.entries.push(Entry {
                rel: child,
                link: kind == Kind::FileLink,
            }),
            Kind::DirLink => out.skipped.push((Skip::FolderLink, child)),
            Kind::OtherLink => out.skipped.push((Skip::Link, child)),
            // FIFOs, sockets, devices: not files (as the reference's isFile()).
            Kind::Other => {}
        }
    }
}

/// The warnings for what was left out: per reason, the count and the first names (sanitised,
/// as every path a message quotes).
pub fn warnings(skipped: &[(Skip, Vec<u8>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (reason, words) in SKIP_WARNINGS {
        let mut names: Vec<&[u8]> = skipped
            .iter()
            .filter(|(r, _)| *r == reason)
            .map(|(_, n)| n.as_slice())
            .collect();
        if names.is_empty() {
            continue;
        }
        names.sort_unstable();
        let shown: Vec<String> = names
            .iter()
            .take(MAX_NAMES_PER_WARNING)
            .map(|n| sanitize_for_message(&lossy(n)))
            .collect();
        let more = names.len().saturating_sub(MAX_NAMES_PER_WARNING);
        let tail = if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        };
        out.push(format!(
            "zip_package: {} {words}: {}{tail}.",
            names.len(),
            shown.join(", ")
        ));
    }
    out
}

fn php_string(v: Option<&Value>) -> Vec<u8> {
    v.and_then(crate::core::value::php_string)
        .unwrap_or_default()
}

impl ZipPackage {
    /// A tool on `root` writing to the process temp directory, hard-linked files left out.
    pub fn new(root: String) -> ZipPackage {
        ZipPackage {
            root,
            temp_dir: std::env::temp_dir(),
            allow_hard_links: false,
            max_pack_bytes: MAX_PACK_BYTES,
        }
    }

    /// The open workspace root, refused as a missing source (the reference's answer when
    /// nothing resolves) or, ours, as the filesystem root.
    fn open_root(&self, shown: &str) -> Result<std::sync::Arc<OpenRoot>, String> {
        OpenRoot::get(&self.root).map_err(|e| match e.kind {
            RootErrorKind::FilesystemRoot => e.refusal(Tool::ZipPackage).message,
            _ => format!("zip_package: source_dir not found: {shown}"),
        })
    }

    fn pack(&self, input: &Planned, zip_path: &Path) -> Result<Packed, String> {
        let cannot = || format!("zip_package: cannot create {}", zip_path.display());
        let open = self.open_root(&input.shown)?;
        let refusal = |r: Refused| {
            PathError {
                kind: r.kind(),
                tool: Tool::ZipPackage,
                path: input.shown.clone(),
            }
            .refusal()
            .message
        };
        let budget = Budget::walk();
        let mut found = collect(&open, &input.source, &budget).map_err(refusal)?;
        let mut packed_bytes: u64 = 0;
        let mut over_bytes = false;
        let hard_links = HardLinks::allowed(self.allow_hard_links);
        // A new file nobody else can have opened or linked: random name, O_CREAT | O_EXCL,
        // mode 0600; renamed over the archive's name once complete.
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{}-", input.output_name))
            .suffix(".zip.part")
            .rand_bytes(8)
            .permissions(std::fs::Permissions::from_mode(ARCHIVE_MODE))
            .tempfile_in(&self.temp_dir)
            .map_err(|_| cannot())?;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(ARCHIVE_MODE))
            .map_err(|_| cannot())?;
        let mut zip = zip::ZipWriter::new(Quiet::new(tmp));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let blocked = |real: &[u8]| is_blocked_path(&lossy(real));
        let mut files = 0;
        for entry in &found.entries {
            if !budget.in_time() {
                break;
            }
            let in_workspace = listing::join(input.source.as_bytes(), &entry.rel);
            let mut file =
                match open.open_judged(&in_workspace, entry.link, Want::File, hard_links, &blocked)
                {
                    Ok(o) => o.file,
                    Err(Refused::HardLink) => {
                        found.skipped.push((Skip::HardLink, entry.rel.clone()));
                        continue;
                    }
                    Err(Refused::Unreadable) => return Err(cannot()),
                    // Gone or changed since it was listed: a link (out, blocked, dangling) is said,
                    // a file that vanished or became something else is not a file any more.
                    Err(Refused::Missing | Refused::NotAFile | Refused::NotADirectory)
                        if !entry.link =>
                    {
                        continue;
                    }
                    Err(_) => {
                        found.skipped.push((Skip::Link, entry.rel.clone()));
                        continue;
                    }
                };
            let len = file.metadata().map(|m| m.len()).map_err(|_| cannot())?;
            if packed_bytes.saturating_add(len) > self.max_pack_bytes {
                over_bytes = true;
                break;
            }
            packed_bytes += len;
            zip.start_file(format!("{}/{}", input.output_name, lossy(&entry.rel)), opts)
                .map_err(|_| cannot())?;
            // The length judged above, not more: a file growing meanwhile is cut there.
            std::io::copy(&mut (&mut file).take(len), &mut zip).map_err(|_| cannot())?;
            files += 1;
        }
        let mut tmp = zip.finish().map_err(|_| cannot())?.inner;
        tmp.flush().map_err(|_| cannot())?;
        let size_bytes = tmp.as_file().metadata().map(|m| m.len()).unwrap_or(0);
        // rename(2): a link or file planted at the name is replaced, never followed.
        tmp.persist(zip_path).map_err(|_| cannot())?;
        Ok(Packed {
            zip_path: zip_path.to_string_lossy().into_owned(),
            files,
            size_bytes,
            warnings: {
                let mut w = warnings(&found.skipped);
                w.extend(budget.warning(NAME));
                if over_bytes {
                    w.push(format!(
                        "zip_package: stopped before passing {} bytes of content; the archive holds only the first {files} file(s).",
                        self.max_pack_bytes
                    ));
                }
                w
            },
        })
    }
}

impl NativeTool for ZipPackage {
    type Input = Planned;
    type Execution = Packed;

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        _host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        let arr = input.as_array();
        let source = php_string(arr.and_then(|a| a.get("source_dir")));
        let output_name = filter_name(&php_string(arr.and_then(|a| a.get("output_name"))));
        if source.is_empty() || output_name.is_empty() {
            return Err(ToolError::tool(REQUIRED_MESSAGE));
        }
        let shown = String::from_utf8_lossy(&source).into_owned();
        let open = self.open_root(&shown).map_err(ToolError::Tool)?;
        let ws = open.workspace().clone().with_follow_symlinks(true);
        let resolved = resolve_checked(&ws, Rules::ZipPackage, &shown)
            .map_err(|r| ToolError::Tool(r.message))?;
        Ok(Planned {
            shown,
            source: resolved.real_relative,
            output_name,
        })
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        _host: &mut H,
    ) -> Result<Packed, ToolError<H::Error>> {
        let zip_path = self.temp_dir.join(format!("{}.zip", input.output_name));
        // The filtered name has no separator or dot-only form: the archive stays in temp_dir.
        if zip_path.parent() != Some(self.temp_dir.as_path()) {
            return Err(ToolError::tool(REQUIRED_MESSAGE));
        }
        self.pack(input, &zip_path).map_err(ToolError::Tool)
    }

    fn complete(&mut self, e: &Packed, input: &Planned) -> Value {
        success(
            Value::from_pairs([
                ("status", Value::str("created")),
                ("zip_path", Value::str(&e.zip_path)),
                ("files", Value::Int(e.files as i64)),
                ("size_bytes", Value::Int(e.size_bytes as i64)),
            ]),
            Value::from_pairs([
                ("mode", Value::str("package")),
                ("output_name", Value::str(&input.output_name)),
            ]),
            Value::list(e.warnings.iter().map(Value::str)),
        )
    }
}

#[cfg(test)]
#[path = "zip_package_tests.rs"]
mod tests;
