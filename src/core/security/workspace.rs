//! The workspace sandbox: turns a path the model supplied into a real path that is provably
//! inside the workspace root, or refuses it with the message the reference tool would give.
//!
//! Rules (phpClaw's `ResolvesWorkspacePaths` and the path handling of the file tools, code_search
//! and zip_package, public repository phpclaw-php/phpclaw-monorepo, `packages/core/src/Tools/`):
//! - the root is canonicalised once; the filesystem root, a missing root and a file are refused;
//! - `/` and `\` both separate segments (the reference splits on both); empty and `.` segments
//!   are dropped, `..` pops lexically BEFORE anything touches the disk, and popping above the
//!   root is traversal;
//! - absolute input is handled per tool ([`ResolvePolicy`]): file_read refuses it unless it
//!   repeats the workspace root, file_edit refuses it, file_write and zip_package re-root it
//!   (`/etc/passwd` becomes `<root>/etc/passwd`), code_search accepts it only inside the root;
//! - every existing component is inspected with `lstat`: a symlink is refused unless
//!   `follow_symlinks`, and a followed symlink must land inside the real root;
//! - the final real path is checked component-wise against the real root (`/ws2` is not in `/ws`).
//!
//! Added beyond the reference (holes closed): a NUL byte anywhere is refused, and so is a segment
//! ending in a dot or a space (`secret.php.`, `x.php `), which Windows and some Apache
//! configurations treat as the name without it; a dangling symlink is refused when followed.
//!
//! [`open_root`] keeps a validated root open between calls and, on Linux, opens a clean relative
//! path beneath it in one `openat2` call with the kernel refusing symlinks and escapes; whatever
//! that fast path does not open goes through the walk here, which words the refusal.
//! [`beneath`] opens what a resolution or a walk found relative to that open root and judges
//! the opened descriptor (links followed only where asked and only inside, hard links refused),
//! so what is read is what was checked.
//!
//! Use [`super::file_rules::resolve_checked`] for the whole gate (rules on the path as given,
//! this resolution, rules again on the real path). Resolution is a check, not a lock: a caller
//! should still create missing folders one at a time and open with `O_NOFOLLOW`.

use std::io;
use std::path::{Component, Path, PathBuf};

use thiserror::Error;

use super::file_rules::{sanitize_for_message, Refusal};

pub mod beneath;
pub mod open_root;

/// The tool on whose behalf a path is resolved: it picks the policy and the exact messages,
/// because each reference tool words its refusals differently and PHP callers compare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    /// `file_read`: existing file, absolute refused.
    FileRead,
    /// `file_write`: file that may not exist yet, absolute re-rooted, `..` anywhere refused.
    FileWrite,
    /// `file_edit`: existing file, absolute refused, messages prefixed `file_edit: `.
    FileEdit,
    /// `code_search`: optional existing directory, absolute accepted inside the root.
    CodeSearch,
    /// `zip_package`: existing directory, absolute re-rooted.
    ZipPackage,
    /// `project_info`: only its root is checked (see [`RootError::refusal`]).
    ProjectInfo,
}

/// What happens to an absolute input (`/x`, `\x`, `C:\x`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absolute {
    /// Refused, unless it repeats the workspace root (file_read).
    RefuseUnlessRootPrefix,
    /// Always refused (file_edit).
    Refuse,
    /// Leading separators are dropped and the rest is workspace-relative (file_write, zip).
    Reroot,
    /// Taken as a filesystem path; accepted only when its real path is inside the root.
    InsideRoot,
}

/// How a repeated workspace root at the start of a relative path is removed
/// (the model often sends `storage/phpclaw/notes.txt` for `notes.txt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootPrefix {
    /// Never stripped.
    Keep,
    /// A tail of at least `min` root segments is stripped only when the stripped path exists
    /// and the unstripped one does not (file_read).
    StripIfOnlyStrippedExists { min: usize },
    /// A tail of at least `min` root segments is always stripped (file_write).
    Strip { min: usize },
}

/// What must be at the end of the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An existing regular file (file_read, file_edit).
    ExistingFile,
    /// A file that may not exist yet; every missing parent must be creatable (file_write).
    CreatableFile,
    /// An existing directory (code_search, zip_package).
    ExistingDir,
}

/// How one tool turns input into a path: the reference tools differ and the differences are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolvePolicy {
    /// Whose messages the errors carry.
    pub tool: Tool,
    /// PHP `trim()` the input first (file_read and file_write do, the others do not).
    pub trim: bool,
    /// What an absolute input means.
    pub absolute: Absolute,
    /// Whether a repeated root prefix is stripped.
    pub root_prefix: RootPrefix,
    /// file_write refuses any `..` substring, even one that stays inside (`a/../b`, `x..txt`).
    pub refuse_any_dotdot: bool,
    /// What the path must name.
    pub target: Target,
    /// An empty path means the root itself (code_search) instead of an error.
    pub empty_is_root: bool,
}

/// Per-tool policies, taken from each tool's `plan()` / `validatePath()` / `resolveRoot()`.
pub const POLICIES: &[ResolvePolicy] = &[
    ResolvePolicy {
        tool: Tool::FileRead,
        trim: true,
        absolute: Absolute::RefuseUnlessRootPrefix,
        root_prefix: RootPrefix::StripIfOnlyStrippedExists { min: 2 },
        refuse_any_dotdot: false,
        target: Target::ExistingFile,
        empty_is_root: false,
    },
    ResolvePolicy {
        tool: Tool::FileWrite,
        trim: true,
        absolute: Absolute::Reroot,
        root_prefix: RootPrefix::Strip { min: 1 },
        refuse_any_dotdot: true,
        target: Target::CreatableFile,
        empty_is_root: false,
    },
    ResolvePolicy {
        tool: Tool::FileEdit,
        trim: false,
        absolute: Absolute::Refuse,
        root_prefix: RootPrefix::Keep,
        refuse_any_dotdot: false,
        target: Target::ExistingFile,
        empty_is_root: false,
    },
    ResolvePolicy {
        tool: Tool::CodeSearch,
        trim: false,
        absolute: Absolute::InsideRoot,
        root_prefix: RootPrefix::Keep,
        refuse_any_dotdot: false,
        target: Target::ExistingDir,
        empty_is_root: true,
    },
    ResolvePolicy {
        tool: Tool::ZipPackage,
        trim: false,
        absolute: Absolute::Reroot,
        root_prefix: RootPrefix::Keep,
        refuse_any_dotdot: false,
        target: Target::ExistingDir,
        empty_is_root: false,
    },
    ResolvePolicy {
        tool: Tool::ProjectInfo,
        trim: false,
        absolute: Absolute::Refuse,
        root_prefix: RootPrefix::Keep,
        refuse_any_dotdot: false,
        target: Target::ExistingDir,
        empty_is_root: true,
    },
];

impl ResolvePolicy {
    /// The reference policy of `tool`.
    pub fn for_tool(tool: Tool) -> ResolvePolicy {
        POLICIES
            .iter()
            .copied()
            .find(|p| p.tool == tool)
            .unwrap_or(POLICIES[0])
    }
}

/// Why a workspace root was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootErrorKind {
    /// `/` (or a path whose parent is itself): a sandbox there is no sandbox.
    FilesystemRoot,
    /// Nothing at that path (or it cannot be resolved).
    NotFound,
    /// A file, not a folder.
    NotADirectory,
}

/// A refused workspace root, with the path as configured.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.refusal(Tool::FileRead).message)]
pub struct RootError {
    /// What is wrong with it.
    pub kind: RootErrorKind,
    /// The root as configured, for the message.
    pub root: String,
}

impl RootError {
    /// The refusal as `tool` words it: project_info has exact reference messages; the file
    /// tools never refused a bad root (they failed later with "File not found"), so theirs are ours.
    pub fn refusal(&self, tool: Tool) -> Refusal {
        let (code, message) = match (tool, &self.kind) {
            (Tool::ProjectInfo, RootErrorKind::FilesystemRoot) => (
                "ROOT_IS_FILESYSTEM_ROOT",
                "project_info: no project root is configured, and the process started at the filesystem root.".to_string(),
            ),
            (Tool::ProjectInfo, _) => (
                "ROOT_NOT_FOUND",
                format!("project_info: root not found: {}", self.root),
            ),
            (_, RootErrorKind::FilesystemRoot) => (
                "ROOT_IS_FILESYSTEM_ROOT",
                "Workspace root may not be the filesystem root.".to_string(),
            ),
            (_, RootErrorKind::NotFound) => (
                "ROOT_NOT_FOUND",
                format!("Workspace root not found: {}", sanitize_for_message(&self.root)),
            ),
            (_, RootErrorKind::NotADirectory) => (
                "ROOT_NOT_A_DIRECTORY",
                format!(
                    "Workspace root is not a directory: {}",
                    sanitize_for_message(&self.root)
                ),
            ),
        };
        Refusal { code, message }
    }
}

/// Why a user path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathErrorKind {
    /// Nothing (or only whitespace) was given.
    Empty,
    /// An absolute path the policy refuses.
    Absolute,
    /// `..` above the root, or a real path outside the root.
    Traversal,
    /// A symlink in the path while symlinks are not followed (or a dangling one).
    Symlink,
    /// The file or folder (or a parent of it) does not exist.
    NotFound,
    /// A folder where a file is required.
    NotAFile,
    /// An existing file where a parent folder must be created.
    ParentNotADirectory,
    /// A NUL byte: no filesystem name can hold one, and C APIs would cut the name there.
    NulByte,
    /// A segment ending in a dot or space, which some servers read as the name without it.
    TrailingDotOrSpace,
    /// The operating system refused to inspect a component (permissions, name too long).
    Unreadable,
    /// A regular file with more than one hard link: another name of it may be a secret or lie
    /// outside the workspace (ours; allowed by the tools' `allowHardLinks` option).
    HardLink,
}

/// A refused user path: the kind, the tool whose words to use, and the path fragment to quote.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{}", self.refusal().message)]
pub struct PathError {
    /// What went wrong.
    pub kind: PathErrorKind,
    /// Whose message.
    pub tool: Tool,
    /// The fragment quoted in the message (already what the reference quotes).
    pub path: String,
}

impl PathError {
    fn new(kind: PathErrorKind, tool: Tool, path: &str) -> PathError {
        PathError {
            kind,
            tool,
            path: path.to_string(),
        }
    }

    /// The stable code and exact user-facing message. The reference throws a bare
    /// `ToolException` (no code), so the codes are ours; the messages are the reference's.
    pub fn refusal(&self) -> Refusal {
        use PathErrorKind as K;
        use Tool as T;
        let s = sanitize_for_message(&self.path);
        let raw = self.path.as_str();
        let code = match self.kind {
            K::Empty => "EMPTY_PATH",
            K::Absolute => "ABSOLUTE_PATH",
            K::Traversal => "PATH_TRAVERSAL",
            K::Symlink => "SYMLINK",
            K::NotFound | K::Unreadable => "NOT_FOUND",
            K::NotAFile => "NOT_A_FILE",
            K::ParentNotADirectory => "CANNOT_CREATE_DIRECTORY",
            K::NulByte | K::TrailingDotOrSpace => "INVALID_PATH",
            K::HardLink => "HARD_LINK",
        };
        let message = match (self.tool, self.kind) {
            (T::FileRead | T::FileWrite, K::Empty) => "No file path provided.".to_string(),
            (T::FileEdit, K::Empty) => "file_edit: path and old_str are required.".to_string(),
            (T::ZipPackage, K::Empty) => {
                "zip_package: source_dir and a valid output_name are required.".to_string()
            }
            (T::FileRead, K::Absolute) => format!("Absolute paths are not allowed: {s}"),
            (T::FileRead, K::Traversal) => "Path traversal detected: access denied.".to_string(),
            (T::FileWrite, K::Traversal | K::Absolute) => {
                "Path traversal detected: write access denied.".to_string()
            }
            (T::FileEdit, K::Traversal | K::Absolute) => {
                "file_edit: Path traversal detected: access denied.".to_string()
            }
            (T::CodeSearch, K::Traversal | K::Absolute) => {
                "code_search: path escapes workspace root - blocked.".to_string()
            }
            (T::ZipPackage, K::Traversal | K::Absolute) => {
                "zip_package: source_dir escapes workspace root - blocked.".to_string()
            }
            (T::FileRead, K::Symlink) => "Access denied: path contains a symlink.".to_string(),
            (T::FileWrite, K::Symlink) => {
                "Path traversal detected: path contains a symlink.".to_string()
            }
            (T::FileEdit, K::Symlink) => {
                "file_edit: Access denied: path contains a symlink.".to_string()
            }
            (T::CodeSearch, K::Symlink) => {
                "code_search: path contains a symlink - blocked.".to_string()
            }
            (T::ZipPackage, K::Symlink) => {
                "zip_package: source_dir contains a symlink - blocked.".to_string()
            }
            (T::FileRead, K::NotFound | K::Unreadable | K::ParentNotADirectory) => {
                format!("File not found: {s}")
            }
            (T::FileRead, K::NotAFile) => format!("Path is not a file: {s}"),
            (T::FileEdit, K::NotFound | K::NotAFile | K::Unreadable | K::ParentNotADirectory) => {
                format!("file_edit: file not found: {s}")
            }
            (T::FileWrite, K::NotFound | K::Unreadable | K::ParentNotADirectory) => {
                format!("Could not create directory: {s}")
            }
            (T::FileWrite, K::NotAFile) => format!("Path is not a file: {s}"),
            (T::CodeSearch, K::NotFound | K::NotAFile | K::Unreadable | K::ParentNotADirectory) => {
                format!("code_search: directory not found: {raw}")
            }
            (T::ZipPackage, K::NotFound | K::NotAFile | K::Unreadable | K::ParentNotADirectory) => {
                format!("zip_package: source_dir not found: {raw}")
            }
            (tool, K::NulByte) => {
                format!("{}Path contains a NUL byte: access denied.", prefix(tool))
            }
            (tool, K::TrailingDotOrSpace) => format!(
                "{}Path segment '{s}' ends in a dot or a space: access denied.",
                prefix(tool)
            ),
            (tool, K::HardLink) => format!(
                "{}Access denied: the file has more than one hard link.",
                prefix(tool)
            ),
            (T::ProjectInfo, _) => format!("project_info: path refused: {s}"),
            (T::CodeSearch, K::Empty) => "code_search: pattern is required.".to_string(),
        };
        Refusal { code, message }
    }
}

/// The message prefix each tool puts on its own errors.
fn prefix(tool: Tool) -> &'static str {
    match tool {
        Tool::FileRead | Tool::FileWrite => "",
        Tool::FileEdit => "file_edit: ",
        Tool::CodeSearch => "code_search: ",
        Tool::ZipPackage => "zip_package: ",
        Tool::ProjectInfo => "project_info: ",
    }
}

/// A path proven to be inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The real path for I/O: canonical up to the deepest existing component, literal after it.
    pub real: PathBuf,
    /// The requested path, collapsed, workspace-relative, `/`-separated: what envelopes show.
    pub display: String,
    /// The real path relative to the real root, `/`-separated: what a followed symlink really
    /// names, so the blocklists can judge it a second time (`""` for the root itself).
    pub real_relative: String,
    /// Whether something exists at `real`.
    pub exists: bool,
    /// Whether `real` is an existing directory.
    pub is_dir: bool,
}

/// A sandbox rooted at a real directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    root: PathBuf,
    follow_symlinks: bool,
}

/// PHP `trim()`'s default character set.
const PHP_TRIM: &[char] = &[' ', '\t', '\n', '\r', '\0', '\x0B'];

impl Workspace {
    /// Canonicalise `root`, refusing the filesystem root, a missing root and a file, so no tool
    /// can be handed a "sandbox" that is the whole disk or nothing at all.
    pub fn new(root: impl AsRef<Path>) -> Result<Workspace, RootError> {
        let given = root.as_ref();
        let shown = given.to_string_lossy().into_owned();
        let err = |kind| RootError {
            kind,
            root: shown.clone(),
        };
        if given.as_os_str().is_empty() {
            return Err(err(RootErrorKind::NotFound));
        }
        if given.parent().is_none() && given.has_root() {
            return Err(err(RootErrorKind::FilesystemRoot));
        }
        let real = std::fs::canonicalize(crate::core::workdir::absolute(given))
            .map_err(|_| err(RootErrorKind::NotFound))?;
        if real.parent().is_none() {
            return Err(err(RootErrorKind::FilesystemRoot));
        }
        if !real.is_dir() {
            return Err(err(RootErrorKind::NotADirectory));
        }
        Ok(Workspace {
            root: real,
            follow_symlinks: false,
        })
    }

    /// Allow (true) or refuse (false, the reference default) symlinks in user paths.
    /// Followed symlinks must still land inside the real root.
    pub fn with_follow_symlinks(mut self, follow: bool) -> Workspace {
        self.follow_symlinks = follow;
        self
    }

    /// The canonical root every result is proven to be inside.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether symlinks in user paths are followed.
    pub fn follows_symlinks(&self) -> bool {
        self.follow_symlinks
    }

    /// Resolve an existing file the way file_read does.
    pub fn resolve(&self, user_path: &str) -> Result<Resolved, PathError> {
        self.resolve_with(user_path, ResolvePolicy::for_tool(Tool::FileRead))
    }

    /// Resolve a file to be created or overwritten the way file_write does.
    pub fn resolve_new(&self, user_path: &str) -> Result<Resolved, PathError> {
        self.resolve_with(user_path, ResolvePolicy::for_tool(Tool::FileWrite))
    }

    /// Resolve with the reference policy of `tool`.
    pub fn resolve_for(&self, tool: Tool, user_path: &str) -> Result<Resolved, PathError> {
        self.resolve_with(user_path, ResolvePolicy::for_tool(tool))
    }

    /// Resolve under an explicit policy.
    pub fn resolve_with(
        &self,
        user_path: &str,
        policy: ResolvePolicy,
    ) -> Result<Resolved, PathError> {
        let tool = policy.tool;
        let input = if policy.trim {
            user_path.trim_matches(PHP_TRIM)
        } else {
            user_path
        };
        if input.is_empty() {
            if policy.empty_is_root {
                return self.finish_root(input, policy);
            }
            return Err(PathError::new(PathErrorKind::Empty, tool, input));
        }
        if input.contains('\0') {
            return Err(PathError::new(PathErrorKind::NulByte, tool, input));
        }

        let absolute = is_absolute(input);
        let mut relative: &str = input;
        match policy.absolute {
            Absolute::Refuse if absolute => {
                return Err(PathError::new(PathErrorKind::Absolute, tool, input));
            }
            Absolute::InsideRoot if absolute => return self.resolve_absolute(input, policy),
            Absolute::RefuseUnlessRootPrefix | Absolute::Reroot => {
                relative = input.trim_start_matches(['/', '\\']);
            }
            _ => {}
        }

        let mut stripped_prefix = false;
        let owned;
        match policy.root_prefix {
            RootPrefix::Keep => {}
            RootPrefix::Strip { min } => {
                if let Some(rest) = self.strip_root_tail(relative, min) {
                    owned = rest.to_string();
                    relative = &owned;
                    stripped_prefix = true;
                }
            }
            RootPrefix::StripIfOnlyStrippedExists { min } => {
                if let Some(rest) = self.strip_root_tail(relative, min) {
                    stripped_prefix = true;
                    if self.probe(rest) && !self.probe(relative) {
                        owned = rest.to_string();
                        relative = &owned;
                    }
                }
            }
        }
        if absolute && policy.absolute == Absolute::RefuseUnlessRootPrefix && !stripped_prefix {
            return Err(PathError::new(PathErrorKind::Absolute, tool, relative));
        }
        if relative.is_empty() {
            if policy.empty_is_root {
                return self.finish_root(relative, policy);
            }
            return Err(PathError::new(PathErrorKind::Empty, tool, relative));
        }
        if policy.refuse_any_dotdot && relative.contains("..") {
            return Err(PathError::new(PathErrorKind::Traversal, tool, relative));
        }

        let segments = collapse(relative, tool)?;
        self.walk(&segments, relative, policy)
    }

    /// The root itself as a result (empty code_search path, or `a/..`).
    fn finish_root(&self, shown: &str, policy: ResolvePolicy) -> Result<Resolved, PathError> {
        self.walk(&[], shown, policy)
    }

    /// code_search's absolute sub-path: resolved as given, then proven to be inside the root.
    fn resolve_absolute(&self, input: &str, policy: ResolvePolicy) -> Result<Resolved, PathError> {
        let tool = policy.tool;
        for seg in input.split(['/', '\\']) {
            if ends_in_dot_or_space(seg) {
                return Err(PathError::new(PathErrorKind::TrailingDotOrSpace, tool, seg));
            }
        }
        // Backslashes separate here too, and a drive letter names nothing on this system:
        // without this, `\\etc` or `C:/x` would be resolved against the process's directory.
        let slashed = input.replace('\\', "/");
        if !slashed.starts_with('/') {
            return Err(PathError::new(PathErrorKind::NotFound, tool, input));
        }
        let real = std::fs::canonicalize(&slashed)
            .map_err(|_| PathError::new(PathErrorKind::NotFound, tool, input))?;
        let rest = real
            .strip_prefix(&self.root)
            .map_err(|_| PathError::new(PathErrorKind::Traversal, tool, input))?;
        let segments: Vec<String> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if !self.follow_symlinks && lexical_differs(&slashed, &real) {
            return Err(PathError::new(PathErrorKind::Symlink, tool, input));
        }
        self.walk(&segments, input, policy)
    }

    /// The rest of `path` after a tail of at least `min` segments of the real root
    /// (`var/www/ws/x` or `ws/x` for root `/var/www/ws`), longest tail first. Compares segment
    /// by segment in place: no allocation.
    fn strip_root_tail<'a>(&self, path: &'a str, min: usize) -> Option<&'a str> {
        let root = self.root.to_str()?;
        let count = root.split('/').filter(|s| !s.is_empty()).count();
        let min = min.max(1);
        let mut take = count;
        while take >= min {
            let mut rest = path;
            let mut matched = true;
            for (k, seg) in root
                .split('/')
                .filter(|s| !s.is_empty())
                .skip(count - take)
                .enumerate()
            {
                if k > 0 {
                    match rest.strip_prefix('/') {
                        Some(r) => rest = r,
                        None => {
                            matched = false;
                            break;
                        }
                    }
                }
                match rest.strip_prefix(seg) {
                    Some(r) => rest = r,
                    None => {
                        matched = false;
                        break;
                    }
                }
            }
            if matched {
                if let Some(rest) = rest.strip_prefix('/') {
                    return Some(rest);
                }
            }
            take -= 1;
        }
        None
    }

    /// Whether `path` starts with a tail of at least `min` segments of the real root, the case
    /// where a tool's policy may strip it (then the full resolution must run).
    pub fn repeats_root_tail(&self, path: &str, min: usize) -> bool {
        self.strip_root_tail(path, min).is_some()
    }

    /// Whether `relative` names something under the root, probing only lexically-inside paths.
    fn probe(&self, relative: &str) -> bool {
        let mut p = self.root.clone();
        for seg in relative.split(['/', '\\']) {
            match seg {
                "" | "." => {}
                ".." => return false,
                s => p.push(s),
            }
        }
        p.exists()
    }

    /// Walk the collapsed segments from the real root, checking every existing component.
    fn walk(
        &self,
        segments: &[String],
        shown: &str,
        policy: ResolvePolicy,
    ) -> Result<Resolved, PathError> {
        let tool = policy.tool;
        let fail = |kind| PathError::new(kind, tool, shown);
        let mut cur = self.root.clone();
        let mut exists = true;
        let mut is_dir = true;
        let last = segments.len();
        for (i, seg) in segments.iter().enumerate() {
            let is_last = i + 1 == last;
            if !exists {
                cur.push(seg);
                continue;
            }
            let next = cur.join(seg);
            let meta = match std::fs::symlink_metadata(&next) {
                Ok(m) => m,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if policy.target != Target::CreatableFile {
                        return Err(fail(PathErrorKind::NotFound));
                    }
                    exists = false;
                    is_dir = false;
                    cur = next;
                    continue;
                }
                Err(_) => return Err(fail(PathErrorKind::Unreadable)),
            };
            if meta.file_type().is_symlink() {
                if !self.follow_symlinks {
                    return Err(fail(PathErrorKind::Symlink));
                }
                let target =
                    std::fs::canonicalize(&next).map_err(|_| fail(PathErrorKind::Symlink))?;
                if !target.starts_with(&self.root) {
                    return Err(fail(PathErrorKind::Traversal));
                }
                is_dir = target.is_dir();
                cur = target;
            } else {
                is_dir = meta.is_dir();
                cur = next;
            }
            if !is_last && !is_dir {
                return Err(fail(match policy.target {
                    Target::CreatableFile => PathErrorKind::ParentNotADirectory,
                    _ => PathErrorKind::NotFound,
                }));
            }
        }
        if !cur.starts_with(&self.root) {
            return Err(fail(PathErrorKind::Traversal));
        }
        match policy.target {
            Target::ExistingFile | Target::CreatableFile if is_dir => {
                return Err(fail(PathErrorKind::NotAFile));
            }
            Target::ExistingDir if !is_dir => return Err(fail(PathErrorKind::NotFound)),
            _ => {}
        }
        let real_relative = relative_display(&self.root, &cur);
        Ok(Resolved {
            real: cur,
            display: segments.join("/"),
            real_relative,
            exists,
            is_dir,
        })
    }
}

/// Whether `path` is already what the resolution would make of it: relative, `/`-separated,
/// every segment a plain name (not empty, `.` or `..`, no backslash, no NUL, not ending in a dot
/// or a space). For such a path the name as given, the collapsed name and (when no symlink is
/// crossed) the real relative name are the same string.
pub fn is_clean_relative(path: &str) -> bool {
    !path.is_empty()
        && !is_absolute(path)
        && !path.contains(['\\', '\0'])
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != ".." && !ends_in_dot_or_space(seg))
}

/// Absolute in any of the forms the reference recognises: `/x`, `\x`, `C:\x`, `C:/x`.
pub fn is_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    match b {
        [b'/' | b'\\', ..] => true,
        [d, b':', b'/' | b'\\', ..] => d.is_ascii_alphabetic(),
        _ => false,
    }
}

/// True for a name a server may read without its last dot or space (`x.php.`, `x.php `).
fn ends_in_dot_or_space(seg: &str) -> bool {
    seg != "." && seg != ".." && (seg.ends_with('.') || seg.ends_with(' '))
}

/// Split on both separators, drop empty and `.` segments, pop on `..` (refusing a pop above the
/// root) and refuse segments ending in a dot or a space.
fn collapse(path: &str, tool: Tool) -> Result<Vec<String>, PathError> {
    let mut out: Vec<String> = Vec::new();
    for seg in path.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                if out.pop().is_none() {
                    return Err(PathError::new(PathErrorKind::Traversal, tool, path));
                }
            }
            s if ends_in_dot_or_space(s) => {
                return Err(PathError::new(PathErrorKind::TrailingDotOrSpace, tool, s));
            }
            s => out.push(s.to_string()),
        }
    }
    Ok(out)
}

/// `real` relative to `root`, `/`-separated; empty for the root itself.
fn relative_display(root: &Path, real: &Path) -> String {
    match real.strip_prefix(root) {
        Ok(rest) => rest
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => String::new(),
    }
}

/// Whether the lexically collapsed absolute `input` differs from its real path, which means a
/// symlink was crossed on the way.
fn lexical_differs(input: &str, real: &Path) -> bool {
    let mut lexical = PathBuf::from("/");
    for seg in input.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                lexical.pop();
            }
            s => lexical.push(s),
        }
    }
    lexical != real
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    /// A temp tree: `<base>/ws` (the root) and `<base>/outside`, removed on drop.
    struct Tree {
        base: PathBuf,
    }

    impl Tree {
        fn new() -> Tree {
            let n = COUNTER.fetch_add(1, Ordering::SeqCst);
            let base =
                std::env::temp_dir().join(format!("phpclaw-ws-test-{}-{}", std::process::id(), n));
            let _ = fs::remove_dir_all(&base);
            fs::create_dir_all(base.join("ws/sub/deep")).unwrap();
            fs::create_dir_all(base.join("ws/real")).unwrap();
            fs::create_dir_all(base.join("outside")).unwrap();
            fs::create_dir_all(base.join("ws2")).unwrap();
            fs::write(base.join("ws/notes.txt"), "n").unwrap();
            fs::write(base.join("ws/sub/a.txt"), "a").unwrap();
            fs::write(base.join("ws/real/r.txt"), "r").unwrap();
            fs::write(base.join("outside/secret.txt"), "s").unwrap();
            fs::write(base.join("ws2/x.txt"), "x").unwrap();
            symlink(base.join("outside"), base.join("ws/out-dir")).unwrap();
            symlink(base.join("outside/secret.txt"), base.join("ws/out-file")).unwrap();
            symlink(base.join("ws/real"), base.join("ws/in-dir")).unwrap();
            symlink(base.join("ws/real/r.txt"), base.join("ws/in-file")).unwrap();
            symlink(base.join("nowhere"), base.join("ws/dangling")).unwrap();
            symlink(base.join("ws2"), base.join("ws/sibling")).unwrap();
            Tree { base }
        }
        fn ws(&self) -> Workspace {
            Workspace::new(self.base.join("ws")).unwrap()
        }
        fn root(&self) -> PathBuf {
            fs::canonicalize(self.base.join("ws")).unwrap()
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.base);
        }
    }

    fn kind(r: Result<Resolved, PathError>) -> Result<String, PathErrorKind> {
        r.map(|x| x.display).map_err(|e| e.kind)
    }

    #[test]
    fn root_is_refused_when_filesystem_root_missing_or_file() {
        let t = Tree::new();
        assert_eq!(
            Workspace::new("/").unwrap_err().kind,
            RootErrorKind::FilesystemRoot
        );
        assert_eq!(
            Workspace::new("/../").unwrap_err().kind,
            RootErrorKind::FilesystemRoot
        );
        assert_eq!(
            Workspace::new("").unwrap_err().kind,
            RootErrorKind::NotFound
        );
        assert_eq!(
            Workspace::new(t.base.join("missing")).unwrap_err().kind,
            RootErrorKind::NotFound
        );
        assert_eq!(
            Workspace::new(t.base.join("ws/notes.txt"))
                .unwrap_err()
                .kind,
            RootErrorKind::NotADirectory
        );
        let ws = Workspace::new(t.base.join("ws/./sub/..")).unwrap();
        assert_eq!(ws.root(), t.root());
        // A root given through a symlink is canonicalised to its target.
        let via_link = Workspace::new(t.base.join("ws/in-dir")).unwrap();
        assert_eq!(via_link.root(), t.root().join("real"));
    }

    #[test]
    fn root_error_messages() {
        let fs_root = RootError {
            kind: RootErrorKind::FilesystemRoot,
            root: "/".into(),
        };
        assert_eq!(
            fs_root.refusal(Tool::ProjectInfo).message,
            "project_info: no project root is configured, and the process started at the filesystem root."
        );
        let missing = RootError {
            kind: RootErrorKind::NotFound,
            root: "/nope".into(),
        };
        assert_eq!(
            missing.refusal(Tool::ProjectInfo).message,
            "project_info: root not found: /nope"
        );
        assert_eq!(missing.refusal(Tool::FileRead).code, "ROOT_NOT_FOUND");
    }

    #[test]
    fn relative_dot_dotdot_and_separators() {
        let t = Tree::new();
        let ws = t.ws();
        for (input, want) in [
            ("notes.txt", Ok("notes.txt".to_string())),
            ("./notes.txt", Ok("notes.txt".into())),
            ("sub//a.txt", Ok("sub/a.txt".into())),
            ("sub/./a.txt", Ok("sub/a.txt".into())),
            ("sub/deep/../a.txt", Ok("sub/a.txt".into())),
            ("sub\\a.txt", Ok("sub/a.txt".into())),
            ("sub/../notes.txt", Ok("notes.txt".into())),
            ("  notes.txt\n", Ok("notes.txt".into())),
            ("../notes.txt", Err(PathErrorKind::Traversal)),
            ("sub/../../notes.txt", Err(PathErrorKind::Traversal)),
            ("..\\ws\\notes.txt", Err(PathErrorKind::Traversal)),
            ("", Err(PathErrorKind::Empty)),
            ("   ", Err(PathErrorKind::Empty)),
            ("missing.txt", Err(PathErrorKind::NotFound)),
            ("nodir/x.txt", Err(PathErrorKind::NotFound)),
            ("notes.txt/x", Err(PathErrorKind::NotFound)),
            ("sub", Err(PathErrorKind::NotAFile)),
            (".", Err(PathErrorKind::NotAFile)),
        ] {
            assert_eq!(kind(ws.resolve(input)), want, "{input:?}");
        }
    }

    #[test]
    fn resolved_carries_real_and_display_paths() {
        let t = Tree::new();
        let r = t.ws().resolve("sub\\a.txt").unwrap();
        assert_eq!(r.real, t.root().join("sub/a.txt"));
        assert_eq!(r.display, "sub/a.txt");
        assert_eq!(r.real_relative, "sub/a.txt");
        assert!(r.exists && !r.is_dir);
    }

    #[test]
    fn nul_and_trailing_dot_or_space_are_refused() {
        let t = Tree::new();
        let ws = t.ws();
        for (input, want) in [
            ("notes\0.txt", PathErrorKind::NulByte),
            ("sub/\0/a.txt", PathErrorKind::NulByte),
            ("secret.php.", PathErrorKind::TrailingDotOrSpace),
            ("x.php ", PathErrorKind::NulByte), // trimmed by file_read, see below
            ("sub./a.txt", PathErrorKind::TrailingDotOrSpace),
            ("sub /a.txt", PathErrorKind::TrailingDotOrSpace),
            (".../x", PathErrorKind::TrailingDotOrSpace),
        ] {
            if input == "x.php " {
                // file_read trims the whole input like PHP's trim(), so only inner ones remain;
                // file_edit does not trim and refuses it.
                assert_eq!(
                    kind(ws.resolve_for(Tool::FileEdit, input)),
                    Err(PathErrorKind::TrailingDotOrSpace)
                );
                continue;
            }
            assert_eq!(kind(ws.resolve(input)), Err(want), "{input:?}");
            if !input.contains("..") {
                // file_write refuses any `..` first, as traversal.
                assert_eq!(kind(ws.resolve_new(input)), Err(want), "{input:?}");
            }
        }
    }

    #[test]
    fn absolute_paths_per_tool() {
        let t = Tree::new();
        let ws = t.ws();
        let root = t.root();
        let root_s = root.to_str().unwrap();
        // file_read refuses /etc/passwd, file_edit too, file_write and zip re-root it.
        assert_eq!(
            kind(ws.resolve("/etc/passwd")),
            Err(PathErrorKind::Absolute)
        );
        assert_eq!(
            ws.resolve("/etc/passwd").unwrap_err().refusal().message,
            "Absolute paths are not allowed: etc/passwd"
        );
        assert_eq!(kind(ws.resolve("C:\\x.txt")), Err(PathErrorKind::Absolute));
        assert_eq!(
            kind(ws.resolve_for(Tool::FileEdit, "/notes.txt")),
            Err(PathErrorKind::Absolute)
        );
        let w = ws.resolve_new("/etc/passwd").unwrap();
        assert_eq!(w.real, root.join("etc/passwd"));
        assert!(!w.exists);
        assert_eq!(kind(ws.resolve_new("\\\\x.txt")), Ok("x.txt".into()));
        // A path repeating the root is accepted by file_read.
        assert_eq!(
            kind(ws.resolve(&format!("{root_s}/notes.txt"))),
            Ok("notes.txt".into())
        );
        // code_search: absolute only inside the root.
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, &format!("{root_s}/sub"))),
            Ok("sub".into())
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, "/etc")),
            Err(PathErrorKind::Traversal)
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, &format!("{root_s}/../ws2"))),
            Err(PathErrorKind::Traversal)
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, &format!("{root_s}/in-dir"))),
            Err(PathErrorKind::Symlink)
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, &root_s.replace('/', "\\"))),
            Ok(String::new())
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, "C:/sub")),
            Err(PathErrorKind::NotFound)
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::ZipPackage, "/sub")),
            Ok("sub".into())
        );
    }

    #[test]
    fn root_prefix_stripping() {
        let t = Tree::new();
        let ws = t.ws();
        let root = t.root();
        let segs: Vec<&str> = root
            .to_str()
            .unwrap()
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        let last2 = segs[segs.len() - 2..].join("/");
        // file_read: a two-segment tail is stripped only when that names an existing file.
        assert_eq!(
            kind(ws.resolve(&format!("{last2}/notes.txt"))),
            Ok("notes.txt".into())
        );
        assert_eq!(
            kind(ws.resolve(&format!("{last2}/missing.txt"))),
            Err(PathErrorKind::NotFound)
        );
        // A one-segment tail is not enough for file_read, but is for file_write.
        assert_eq!(
            kind(ws.resolve("ws/notes.txt")),
            Err(PathErrorKind::NotFound)
        );
        assert_eq!(kind(ws.resolve_new("ws/new.txt")), Ok("new.txt".into()));
    }

    #[test]
    fn creatable_paths() {
        let t = Tree::new();
        let ws = t.ws();
        for (input, want) in [
            ("new.txt", Ok("new.txt".to_string())),
            ("a/b/c/new.txt", Ok("a/b/c/new.txt".into())),
            ("sub/deep/new.txt", Ok("sub/deep/new.txt".into())),
            ("notes.txt", Ok("notes.txt".into())),
            ("notes.txt/x.txt", Err(PathErrorKind::ParentNotADirectory)),
            ("sub", Err(PathErrorKind::NotAFile)),
            ("a/../b.txt", Err(PathErrorKind::Traversal)),
            ("x..txt", Err(PathErrorKind::Traversal)),
            ("../x.txt", Err(PathErrorKind::Traversal)),
        ] {
            assert_eq!(kind(ws.resolve_new(input)), want, "{input:?}");
        }
        let r = ws.resolve_new("a/b/new.txt").unwrap();
        assert_eq!(r.real, t.root().join("a/b/new.txt"));
        assert!(!r.exists);
    }

    #[test]
    fn symlinks_refused_by_default_anywhere_in_the_path() {
        let t = Tree::new();
        let ws = t.ws();
        for input in [
            "out-dir/secret.txt",
            "out-file",
            "in-dir/r.txt",
            "in-file",
            "dangling",
            "sub/../in-file",
            "sibling/x.txt",
        ] {
            assert_eq!(
                kind(ws.resolve(input)),
                Err(PathErrorKind::Symlink),
                "{input}"
            );
            if !input.contains("..") {
                assert_eq!(
                    kind(ws.resolve_new(input)),
                    Err(PathErrorKind::Symlink),
                    "{input}"
                );
            }
        }
        assert_eq!(
            kind(ws.resolve_new("out-dir/new.txt")),
            Err(PathErrorKind::Symlink)
        );
        assert_eq!(
            ws.resolve("in-file").unwrap_err().refusal().message,
            "Access denied: path contains a symlink."
        );
        assert_eq!(
            ws.resolve_new("in-file").unwrap_err().refusal().message,
            "Path traversal detected: path contains a symlink."
        );
    }

    #[test]
    fn followed_symlinks_must_stay_inside() {
        let t = Tree::new();
        let ws = t.ws().with_follow_symlinks(true);
        assert!(ws.follows_symlinks());
        for (input, want) in [
            ("in-dir/r.txt", Ok("in-dir/r.txt".to_string())),
            ("in-file", Ok("in-file".into())),
            ("out-dir/secret.txt", Err(PathErrorKind::Traversal)),
            ("out-file", Err(PathErrorKind::Traversal)),
            ("sibling/x.txt", Err(PathErrorKind::Traversal)),
            ("dangling", Err(PathErrorKind::Symlink)),
        ] {
            assert_eq!(kind(ws.resolve(input)), want, "{input}");
        }
        let r = ws.resolve("in-file").unwrap();
        assert_eq!(r.real, t.root().join("real/r.txt"));
        assert_eq!(r.real_relative, "real/r.txt");
        let n = ws.resolve_new("in-dir/new.txt").unwrap();
        assert_eq!(n.real, t.root().join("real/new.txt"));
        assert_eq!(
            kind(ws.resolve_new("out-dir/new.txt")),
            Err(PathErrorKind::Traversal)
        );
    }

    #[test]
    fn sibling_with_common_prefix_is_not_inside() {
        let t = Tree::new();
        let ws = t.ws().with_follow_symlinks(true);
        // /…/ws2 starts with the string /…/ws but is not inside it.
        assert_eq!(
            kind(ws.resolve("sibling/x.txt")),
            Err(PathErrorKind::Traversal)
        );
        assert!(!t.base.join("ws2").starts_with(t.base.join("ws")));
    }

    #[test]
    fn directory_targets() {
        let t = Tree::new();
        let ws = t.ws();
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, "")),
            Ok(String::new())
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, "sub")),
            Ok("sub".into())
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, "notes.txt")),
            Err(PathErrorKind::NotFound)
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::CodeSearch, "../outside")),
            Err(PathErrorKind::Traversal)
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::ZipPackage, "sub/")),
            Ok("sub".into())
        );
        assert_eq!(
            kind(ws.resolve_for(Tool::ZipPackage, "")),
            Err(PathErrorKind::Empty)
        );
        assert_eq!(
            ws.resolve_for(Tool::ZipPackage, "nope")
                .unwrap_err()
                .refusal()
                .message,
            "zip_package: source_dir not found: nope"
        );
        assert_eq!(
            ws.resolve_for(Tool::CodeSearch, "nope")
                .unwrap_err()
                .refusal()
                .message,
            "code_search: directory not found: nope"
        );
    }

    #[test]
    fn reference_messages_per_tool() {
        let t = Tree::new();
        let ws = t.ws();
        let msg = |tool, p: &str| ws.resolve_for(tool, p).unwrap_err().refusal().message;
        assert_eq!(msg(Tool::FileRead, ""), "No file path provided.");
        assert_eq!(msg(Tool::FileWrite, " "), "No file path provided.");
        assert_eq!(
            msg(Tool::FileEdit, ""),
            "file_edit: path and old_str are required."
        );
        assert_eq!(
            msg(Tool::FileRead, "../x"),
            "Path traversal detected: access denied."
        );
        assert_eq!(
            msg(Tool::FileWrite, "../x"),
            "Path traversal detected: write access denied."
        );
        assert_eq!(
            msg(Tool::FileEdit, "../x"),
            "file_edit: Path traversal detected: access denied."
        );
        assert_eq!(
            msg(Tool::FileEdit, "in-file"),
            "file_edit: Access denied: path contains a symlink."
        );
        assert_eq!(msg(Tool::FileRead, "a b/x"), "File not found: a?b/x");
        assert_eq!(
            msg(Tool::FileEdit, "nope.txt"),
            "file_edit: file not found: nope.txt"
        );
        assert_eq!(msg(Tool::FileRead, "sub"), "Path is not a file: sub");
        assert_eq!(
            msg(Tool::FileWrite, "notes.txt/x"),
            "Could not create directory: notes.txt/x"
        );
        assert_eq!(
            msg(Tool::CodeSearch, "../x"),
            "code_search: path escapes workspace root - blocked."
        );
        assert_eq!(
            msg(Tool::ZipPackage, "../outside"),
            "zip_package: source_dir escapes workspace root - blocked."
        );
        assert_eq!(
            ws.resolve_for(Tool::FileRead, "../x")
                .unwrap_err()
                .refusal()
                .code,
            "PATH_TRAVERSAL"
        );
    }

    #[test]
    fn traversal_payloads_are_refused_or_stay_inside() {
        let t = Tree::new();
        let root = t.root();
        let payloads = [
            "../../../../etc/passwd",
            "..%2f..%2fetc%2fpasswd",
            "%2e%2e/%2e%2e/etc/passwd",
            "....//....//etc/passwd",
            "..;/..;/etc/passwd",
            "/./../etc/passwd",
            "./.././../etc/passwd",
            "..\\..\\windows\\win.ini",
            "..%00/etc/passwd",
            "..%c0%af..%c0%afetc/passwd",
            "%252e%252e%252f",
            "．．/．．/etc/passwd",
            "\u{2025}/etc/passwd",
            "sub/../../outside/secret.txt",
            "sub/deep/../../../outside",
            "/etc/passwd",
            "file:///etc/passwd",
            "C:/Windows/win.ini",
            "\\\\server\\share\\x",
            "..",
            "../",
            "...",
            ". ./x",
            "out-dir/../../outside/secret.txt",
            "in-dir/../../outside/secret.txt",
        ];
        for follow in [false, true] {
            let ws = t.ws().with_follow_symlinks(follow);
            for p in payloads {
                for tool in [
                    Tool::FileRead,
                    Tool::FileWrite,
                    Tool::FileEdit,
                    Tool::CodeSearch,
                    Tool::ZipPackage,
                ] {
                    if let Ok(r) = ws.resolve_for(tool, p) {
                        assert!(r.real.starts_with(&root), "{p:?} {tool:?} -> {:?}", r.real);
                    }
                }
            }
        }
    }

    #[test]
    fn is_absolute_forms() {
        for (p, want) in [
            ("/x", true),
            ("\\x", true),
            ("C:\\x", true),
            ("c:/x", true),
            ("C:x", false),
            ("1:/x", false),
            ("x", false),
            ("", false),
            ("é:/x", false),
        ] {
            assert_eq!(is_absolute(p), want, "{p:?}");
        }
    }

    #[test]
    fn policies_table_has_every_tool() {
        for tool in [
            Tool::FileRead,
            Tool::FileWrite,
            Tool::FileEdit,
            Tool::CodeSearch,
            Tool::ZipPackage,
            Tool::ProjectInfo,
        ] {
            assert_eq!(ResolvePolicy::for_tool(tool).tool, tool);
        }
    }
}
