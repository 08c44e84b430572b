//! `file_read`: one text file from the sandboxed workspace (spec "file_read"; phpClaw's
//! FileReadTool, public repository phpclaw-php/phpclaw-monorepo).
//!
//! Rules:
//! - the workspace root is the configured path (default `<cwd>/storage/phpclaw`, trailing
//!   separators removed), resolved to its real path on first use and cached once it resolves;
//! - the path goes through the whole sandbox gate: file_read's blocklists on the path as given
//!   (with the tool's own noise folders; the security folders always), the workspace resolution
//!   (`core::security::workspace`, file_read policy), and the blocklists again on the real path;
//! - the plain case (symlinks refused, a clean relative path such as `logs/app.log`) is opened
//!   in one `openat2` call beneath the root kept open by `workspace::open_root`, after one rules
//!   check (the path as given, collapsed and real are then the same string); the open file is
//!   handed to the read, so the path is resolved and opened once; anything else takes the full
//!   walk, with the same answers, and then opens the real path the walk judged beneath the open
//!   root with no link crossed (`workspace::beneath`): a name swapped for a link after the walk
//!   leads nowhere, and what is read is the descriptor that was opened at planning;
//! - a regular file with more than one hard link is refused unless `allowHardLinks` (ours:
//!   another name of it may be `.env` or lie outside the workspace);
//! - the first 8192 bytes are sniffed: a NUL byte means binary, refused;
//! - without offset / limit / line_numbers: at most `maxBytes` bytes (16384 by default); a longer
//!   file is cut, an incomplete UTF-8 sequence at the cut dropped, and
//!   `"\n[File truncated at N bytes]"` appended;
//! - with any of them: lines from `offset` (from 1), at most `limit` lines, each without its
//!   line ending, optionally prefixed `N\t`, joined by `\n`, stopping before the byte cap;
//!   `next_offset` is the first line not returned, or null at the end of the file (a first line
//!   longer than the cap is returned cut, and reading goes on after it); offset and limit must be
//!   an int or a digit string of value 1 or more;
//! - every successful read is reported to the host's read log (file_edit's prior-read gate).

use std::fs::File;
use std::io::{BufRead, BufReader, Read as _, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;

use super::{success, Host, NativeTool, ToolError};
use crate::core::security::blocked_paths::NOISE_DIRS;
use crate::core::security::file_rules::{check_file_read_with, sanitize_for_message, Refusal};
use crate::core::security::workspace::beneath::{relative_inside, HardLinks, Refused, Want};
use crate::core::security::workspace::open_root::{openat2_in_use, Beneath, OpenRoot};
use crate::core::security::workspace::{is_clean_relative, PathError, PathErrorKind, Tool};
use crate::core::value::{Array, Value};

/// `name()`.
pub const NAME: &str = "file_read";
/// `description()`.
pub const DESCRIPTION: &str = "READ real file contents from the workspace (storage/phpclaw/). Use whenever the user asks what is in a file or to summarise one. Invoke: never guess contents.";
/// `FileReadTool::DEFAULT_WORKSPACE_SUBPATH`.
pub const DEFAULT_WORKSPACE_SUBPATH: &str = "storage/phpclaw";
/// `FileReadTool::DEFAULT_MAX_BYTES`.
pub const DEFAULT_MAX_BYTES: i64 = 16384;
/// Bytes sniffed for a NUL to refuse binaries.
pub const BINARY_SNIFF_BYTES: usize = 8192;
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "read a file from the workspace";
/// `InvalidArgumentException` message of a `maxBytes` below 1.
pub const MAX_BYTES_MESSAGE: &str = "maxBytes must be greater than 0.";
/// Refused offset or limit.
pub const RANGE_MESSAGE: &str = "file_read: offset and limit must be whole numbers of 1 or more.";
/// The input keys the tool reads.
pub const INPUT_KEYS: [&str; 4] = ["path", "offset", "limit", "line_numbers"];

/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["filesystem"],
    &["read", "open", "file", "contents", "view", "show"],
    &["read file", "show contents"],
    &["show me the contents of app.log"],
];

/// `inputSchema()`.
pub fn input_schema() -> Value {
    let prop = |ty: &str, description: &str| {
        Value::from_pairs([("type", ty), ("description", description)])
    };
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                ("path", prop("string", "Relative path to the file within the workspace (e.g. \"logs/app.log\").")),
                ("offset", prop("integer", "Optional first line to return, counting from 1. Use the next_offset of a previous read to continue.")),
                ("limit", prop("integer", "Optional number of lines to return from offset.")),
                ("line_numbers", prop("boolean", "Optional. True prefixes each line with its number and a tab, to cite lines; never copy that prefix into file_edit.")),
            ]),
        ),
        ("required", Value::list(["path"])),
    ])
}

/// The configured root: the given one, or `<cwd>/storage/phpclaw`, without trailing `/`.
pub fn configured_root(root: Option<&str>, cwd: &str) -> String {
    let raw = match root {
        Some(r) => r.to_string(),
        None => format!("{cwd}/{DEFAULT_WORKSPACE_SUBPATH}"),
    };
    raw.trim_end_matches('/').to_string()
}

/// The real path of the configured root, once it exists (PHP `realpath()`).
pub fn resolve_root(configured: &str) -> Option<String> {
    let real = crate::core::workdir::realpath(&crate::core::workdir::absolute(
        std::path::Path::new(if configured.is_empty() {
            "."
        } else {
            configured
        }),
    ))?;
    real.to_str().map(str::to_string)
}

/// A file_read tool: its configuration and the root cache.
#[derive(Debug, Clone)]
pub struct FileRead {
    /// The root as configured.
    pub root_configured: String,
    /// The real root, once resolved.
    pub root_resolved: Option<String>,
    /// Byte cap (at least 1).
    pub max_bytes: i64,
    /// Whether symlinks in paths are followed (their targets are judged again).
    pub follow_symlinks: bool,
    /// Noise folder names refused besides the security ones.
    pub noise_dirs: Vec<String>,
    /// Whether regular files with more than one hard link may be read (`allowHardLinks`; ours).
    pub allow_hard_links: bool,
    /// The file the gate already opened for the planned path (taken by the read).
    prefetched: Prefetched,
}

/// A file opened by the gate, kept for perform() (the path is resolved and opened once).
#[derive(Default)]
struct Prefetched(std::cell::Cell<Option<Opened>>);

impl std::fmt::Debug for Prefetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prefetched")
    }
}

/// An open regular file, its real path and the size fstat() gave.
#[derive(Debug)]
struct Opened {
    real: String,
    file: File,
    size: u64,
}

impl Clone for Prefetched {
    /// A copy of the tool starts without an open file.
    fn clone(&self) -> Self {
        Prefetched::default()
    }
}

impl Prefetched {
    /// The file opened for `real`, if that is what the gate opened.
    fn take_for(&self, real: &str) -> Option<(File, u64)> {
        self.0
            .take()
            .filter(|o| o.real == real)
            .map(|o| (o.file, o.size))
    }
}

impl FileRead {
    /// A tool with the reference defaults for everything but the root.
    pub fn new(root_configured: String) -> FileRead {
        FileRead {
            root_configured,
            root_resolved: None,
            max_bytes: DEFAULT_MAX_BYTES,
            follow_symlinks: false,
            noise_dirs: NOISE_DIRS.iter().map(|s| (*s).to_string()).collect(),
            allow_hard_links: false,
            prefetched: Prefetched::default(),
        }
    }

    fn hard_links(&self) -> HardLinks {
        HardLinks::allowed(self.allow_hard_links)
    }

    /// `workspaceRoot()`: the real root once it resolves (cached), else the configured path.
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

    fn cap(&self) -> usize {
        usize::try_from(self.max_bytes.max(1)).unwrap_or(usize::MAX)
    }

    fn check(&self, path: &str) -> Result<(), Refusal> {
        let noise: Vec<&str> = self.noise_dirs.iter().map(String::as_str).collect();
        check_file_read_with(path, &noise)
    }
}

/// The requested line range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    /// First line, from 1.
    pub offset: i64,
    /// Most lines, if limited.
    pub limit: Option<i64>,
    /// Prefix each line with `N\t`.
    pub line_numbers: bool,
}

/// The planned input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The path as the envelope shows it.
    pub path: String,
    /// The real file.
    pub real: String,
    /// The range, when one was asked for.
    pub range: Option<Range>,
    /// The real root, for the read log.
    pub root: String,
}

/// What was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// The text.
    pub content: Vec<u8>,
    /// Whether the cap cut it.
    pub truncated: bool,
    /// `Some(next)` in range mode (`None` inside: end of file).
    pub next_offset: Option<Option<i64>>,
}

pub use crate::core::value::php_string;

/// `filter_var($v, FILTER_VALIDATE_BOOLEAN)` without flags: true only for true-ish text.
pub fn filter_bool(v: &Value) -> bool {
    let Some(s) = php_string(v) else { return false };
    let t: &[u8] = {
        let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\x0B' | b'\n');
        let start = s.iter().position(|b| !ws(b)).unwrap_or(s.len());
        let end = s.iter().rposition(|b| !ws(b)).map_or(start, |e| e + 1);
        &s[start..end.max(start)]
    };
    let lower = t.to_ascii_lowercase();
    matches!(lower.as_slice(), b"1" | b"true" | b"on" | b"yes")
}

/// An offset or limit: an int, or a string of digits only, of 1 or more.
pub fn positive_whole_number(v: &Value) -> Option<i64> {
    let n = match v {
        Value::Int(i) => *i,
        Value::Str(s) if !s.is_empty() && s.iter().all(u8::is_ascii_digit) => {
            // (int) of a digit string saturates at PHP_INT_MAX.
            s.iter()
                .try_fold(0i64, |acc, d| {
                    acc.checked_mul(10)?.checked_add(i64::from(d - b'0'))
                })
                .unwrap_or(i64::MAX)
        }
        _ => 0,
    };
    (n >= 1).then_some(n)
}

fn range_of(input: &Array) -> Result<Option<Range>, String> {
    let (o, l, n) = (
        input.get("offset"),
        input.get("limit"),
        input.get("line_numbers"),
    );
    if o.is_none() && l.is_none() && n.is_none() {
        return Ok(None);
    }
    let whole = |v: Option<&Value>, default: Option<i64>| match v {
        None => Ok(default),
        Some(v) => positive_whole_number(v)
            .map(Some)
            .ok_or_else(|| RANGE_MESSAGE.to_string()),
    };
    Ok(Some(Range {
        offset: whole(o, Some(1))?.unwrap_or(1),
        limit: whole(l, None)?,
        line_numbers: n.is_some_and(filter_bool),
    }))
}

/// Drop an incomplete UTF-8 sequence at the end of a cut.
pub fn trim_incomplete_utf8_tail(content: &mut Vec<u8>) {
    let len = content.len();
    for back in 1..=4.min(len) {
        let byte = content[len - back];
        if byte & 0xC0 == 0x80 {
            continue;
        }
        if byte < 0x80 {
            return;
        }
        let expected = match byte {
            b if b & 0xE0 == 0xC0 => 2,
            b if b & 0xF0 == 0xE0 => 3,
            b if b & 0xF8 == 0xF0 => 4,
            _ => 0,
        };
        if expected == 0 || expected > back {
            content.truncate(len - back);
        }
        return;
    }
}

/// Lexical collapse of a relative path, as the sandbox sees it (for choosing the shown path).
fn collapse(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

/// The first [`BINARY_SNIFF_BYTES`] bytes of `file` (fewer at its end). The buffer is sized from
/// fstat()'s `size` for a small file, and reading stops once that many bytes arrived (no extra
/// call to see the end); a file that grew meanwhile is read on up to the full sample.
fn sniff(file: &mut File, size: u64) -> std::io::Result<Vec<u8>> {
    let small = usize::try_from(size)
        .ok()
        .filter(|&n| n > 0 && n < BINARY_SNIFF_BYTES);
    let mut sample = vec![0u8; small.map_or(BINARY_SNIFF_BYTES, |n| n + 1)];
    let mut got = 0;
    loop {
        if got == sample.len() {
            if sample.len() >= BINARY_SNIFF_BYTES {
                break;
            }
            sample.resize(BINARY_SNIFF_BYTES, 0);
        }
        match file.read(&mut sample[got..]) {
            Ok(0) => break,
            Ok(n) => {
                got += n;
                if small == Some(got) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    sample.truncate(got);
    Ok(sample)
}

/// PHP `trim()`'s default set.
const PHP_TRIM: &[char] = &[' ', '\t', '\n', '\r', '\0', '\x0B'];

/// file_read's refusal of what could not be opened, about the path as shown.
fn open_refusal(r: Refused, shown: &str) -> Refusal {
    if r == Refused::Unreadable {
        return Refusal {
            code: "UNREADABLE",
            message: format!(
                "Cannot open file for reading: {}",
                sanitize_for_message(shown)
            ),
        };
    }
    PathError {
        kind: r.kind(),
        tool: Tool::FileRead,
        path: shown.to_string(),
    }
    .refusal()
}

impl FileRead {
    /// Resolve and judge `raw`, returning (shown path, real path, real root).
    pub fn gate(&mut self, raw: &str) -> Result<(String, String, String), Refusal> {
        let trimmed = raw.trim_matches(PHP_TRIM);
        if trimmed.is_empty() {
            return Err(Refusal {
                code: "EMPTY_PATH",
                message: "No file path provided.".to_string(),
            });
        }
        let root = self.workspace_root();
        let open = OpenRoot::get(&root).map_err(|e| e.refusal(Tool::FileRead))?;
        // The plain case: a clean relative path (its collapsed and, crossing no symlink, its
        // real relative form are itself, so one rules check judges all three), no root tail
        // to strip, symlinks refused. The kernel resolves and opens it beneath the root in one
        // call; anything it does not open goes through the full walk below, which words the
        // refusal.
        if !self.follow_symlinks
            && open.is_open()
            && openat2_in_use()
            && is_clean_relative(trimmed)
            && !open.workspace().repeats_root_tail(trimmed, 2)
        {
            self.check(trimmed)?;
            match open.open_file(trimmed) {
                Beneath::File(_, meta)
                    if meta.nlink() > 1 && self.hard_links() == HardLinks::Refuse =>
                {
                    return Err(open_refusal(Refused::HardLink, trimmed));
                }
                Beneath::File(file, meta) => {
                    let mut real = String::with_capacity(open.root_str().len() + 1 + trimmed.len());
                    real.push_str(open.root_str());
                    real.push('/');
                    real.push_str(trimmed);
                    self.prefetched.0.set(Some(Opened {
                        real: real.clone(),
                        file,
                        size: meta.len(),
                    }));
                    return Ok((trimmed.to_string(), real, open.root_str().to_string()));
                }
                Beneath::NotAFile => {
                    return Err(PathError {
                        kind: PathErrorKind::NotAFile,
                        tool: Tool::FileRead,
                        path: trimmed.to_string(),
                    }
                    .refusal());
                }
                Beneath::Walk => {}
            }
        }
        let ws = open
            .workspace()
            .clone()
            .with_follow_symlinks(self.follow_symlinks);
        if !trimmed.contains('\0') {
            self.check(trimmed)?;
        }
        let resolved = ws
            .resolve_for(Tool::FileRead, raw)
            .map_err(|e| e.refusal())?;
        self.check(&resolved.display)?;
        self.check(&resolved.real_relative)?;
        let unrooted = trimmed.trim_start_matches(['/', '\\']);
        let shown = if collapse(unrooted).as_deref() == Some(resolved.display.as_str()) {
            unrooted.to_string()
        } else {
            resolved.display.clone()
        };
        // Open what the walk judged (its real path, no link crossed), and read that descriptor.
        let opened = open
            .open_judged(
                resolved.real_relative.as_bytes(),
                false,
                Want::File,
                self.hard_links(),
                &|_| false,
            )
            .map_err(|r| open_refusal(r, &shown))?;
        let real = resolved.real.to_string_lossy().into_owned();
        self.prefetched.0.set(Some(Opened {
            real: real.clone(),
            file: opened.file,
            size: opened.meta.len(),
        }));
        Ok((shown, real, ws.root().to_string_lossy().into_owned()))
    }

    /// Open `real` (a path inside the root) beneath the open root with no link crossed: the read
    /// of a path the gate did not open in this call.
    fn open_real(&self, real: &str, shown: &str) -> Result<(File, u64), String> {
        let not_found = || format!("File not found: {}", sanitize_for_message(shown));
        let root = self
            .root_resolved
            .clone()
            .unwrap_or_else(|| self.root_configured.clone());
        let open = OpenRoot::get(&root).map_err(|_| not_found())?;
        let rel =
            relative_inside(open.root_str().as_bytes(), real.as_bytes()).ok_or_else(not_found)?;
        let opened = open
            .open_judged(rel, false, Want::File, self.hard_links(), &|_| false)
            .map_err(|r| open_refusal(r, shown).message)?;
        Ok((opened.file, opened.meta.len()))
    }

    /// Open the file, refuse a folder or a binary, and return it with its first bytes (the
    /// sniff) and its size. The handle is positioned after the sample.
    fn open(&self, real: &str, shown: &str) -> Result<(File, Vec<u8>, u64), String> {
        let s = sanitize_for_message(shown);
        let cannot = || format!("Cannot open file for reading: {s}");
        let (mut file, size) = match self.prefetched.take_for(real) {
            Some(opened) => opened,
            None => self.open_real(real, shown)?,
        };
        let sample = sniff(&mut file, size).map_err(|_| cannot())?;
        if memchr::memchr(0, &sample).is_some() {
            return Err(format!("Binary file; not readable as text: {s}"));
        }
        Ok((file, sample, size))
    }

    /// The whole file up to the cap.
    pub fn read_truncated(&self, real: &str, shown: &str) -> Result<Read, String> {
        let (mut file, sample, size) = self.open(real, shown)?;
        let cap = self.cap();
        let cannot = || {
            format!(
                "Cannot open file for reading: {}",
                sanitize_for_message(shown)
            )
        };
        let mut content = sample;
        if content.len() > cap {
            content.truncate(cap);
        } else if content.len() == BINARY_SNIFF_BYTES {
            // More may follow the sample: read on up to the cap.
            let more = (cap - content.len()) as u64;
            (&mut file)
                .take(more)
                .read_to_end(&mut content)
                .map_err(|_| cannot())?;
        }
        // The size fstat() gave when the file was opened.
        let truncated = size > cap as u64;
        if truncated {
            trim_incomplete_utf8_tail(&mut content);
            content.extend_from_slice(
                format!("\n[File truncated at {} bytes]", self.max_bytes).as_bytes(),
            );
        }
        Ok(Read {
            content,
            truncated,
            next_offset: None,
        })
    }

    /// A line range.
    pub fn read_lines(&self, real: &str, shown: &str, range: Range) -> Result<Read, String> {
        let (mut file, _, _) = self.open(real, shown)?;
        file.seek(SeekFrom::Start(0)).map_err(|_| {
            format!(
                "Cannot open file for reading: {}",
                sanitize_for_message(shown)
            )
        })?;
        let mut reader = BufReader::new(file);
        let cap = self.cap();
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut bytes: usize = 0;
        let mut truncated = false;
        let mut next: Option<i64> = None;
        let mut number: i64 = 0;
        let mut line = Line::default();
        loop {
            let keep = if number.saturating_add(1) < range.offset {
                0
            } else {
                cap
            };
            match line.read(&mut reader, keep) {
                Ok(false) => break,
                Ok(true) => {}
                Err(_) => break,
            }
            number = number.saturating_add(1);
            if number < range.offset {
                continue;
            }
            if range.limit.is_some_and(|l| lines.len() as u64 >= l as u64) {
                next = Some(number);
                break;
            }
            let prefix = if range.line_numbers {
                format!("{number}\t").into_bytes()
            } else {
                Vec::new()
            };
            let text_len = prefix.len().saturating_add(line.trimmed_len);
            let added = text_len.saturating_add(usize::from(!lines.is_empty()));
            if bytes.saturating_add(added) > cap {
                truncated = true;
                next = Some(if lines.is_empty() {
                    number.saturating_add(1)
                } else {
                    number
                });
                if lines.is_empty() {
                    let mut text = prefix;
                    text.extend_from_slice(line.text());
                    text.truncate(cap);
                    trim_incomplete_utf8_tail(&mut text);
                    lines.push(text);
                }
                break;
            }
            let mut text = prefix;
            text.extend_from_slice(line.text());
            lines.push(text);
            bytes += added;
        }
        Ok(Read {
            content: lines.join(&b'\n'),
            truncated,
            next_offset: Some(next),
        })
    }
}

/// One line as `fgets()` + `rtrim($line, "\r\n")` see it, keeping at most `keep` bytes of it
/// in memory however long it is.
#[derive(Default)]
struct Line {
    kept: Vec<u8>,
    /// Length of the line without its trailing run of `\r` / `\n`.
    trimmed_len: usize,
}

impl Line {
    /// Read the next line; false at end of file.
    fn read(&mut self, r: &mut impl BufRead, keep: usize) -> std::io::Result<bool> {
        self.kept.clear();
        self.trimmed_len = 0;
        let mut len: usize = 0;
        let mut any = false;
        loop {
            let buf = r.fill_buf()?;
            if buf.is_empty() {
                return Ok(any);
            }
            any = true;
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..=i], true),
                None => (buf, false),
            };
            if let Some(p) = chunk.iter().rposition(|&b| b != b'\r' && b != b'\n') {
                self.trimmed_len = len + p + 1;
            }
            let room = keep.saturating_sub(self.kept.len());
            self.kept.extend_from_slice(&chunk[..room.min(chunk.len())]);
            len += chunk.len();
            let n = chunk.len();
            r.consume(n);
            if done {
                return Ok(true);
            }
        }
    }

    fn text(&self) -> &[u8] {
        &self.kept[..self.trimmed_len.min(self.kept.len())]
    }
}

impl NativeTool for FileRead {
    type Input = Planned;
    type Execution = Read;

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
        let Ok(raw) = String::from_utf8(raw.clone()) else {
            // No file in the sandbox can be named by bytes that are not UTF-8 text here.
            let shown = String::from_utf8_lossy(&raw);
            if shown.trim_matches(PHP_TRIM).is_empty() {
                return Err(ToolError::tool("No file path provided."));
            }
            return Err(ToolError::Tool(format!(
                "File not found: {}",
                sanitize_for_message(&shown)
            )));
        };
        let (path, real, root) = self.gate(&raw).map_err(|r| ToolError::Tool(r.message))?;
        let range = range_of(input).map_err(ToolError::Tool)?;
        Ok(Planned {
            path,
            real,
            range,
            root,
        })
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        host: &mut H,
    ) -> Result<Read, ToolError<H::Error>> {
        let read = match input.range {
            Some(range) => self.read_lines(&input.real, &input.path, range),
            None => self.read_truncated(&input.real, &input.path),
        }
        .map_err(ToolError::Tool)?;
        host.mark_read(&input.root, &input.real)
            .map_err(ToolError::Host)?;
        Ok(read)
    }

    fn complete(&mut self, read: &Read, input: &Planned) -> Value {
        let mut data = Array::from_pairs([
            ("path", Value::str(&input.path)),
            ("content", Value::Str(read.content.clone())),
        ]);
        if let Some(next) = read.next_offset {
            data.insert("next_offset", Value::from(next));
        }
        let meta = Value::from_pairs([
            ("mode", Value::str("read")),
            ("bytes", Value::Int(read.content.len() as i64)),
            ("truncated", Value::Bool(read.truncated)),
        ]);
        success(Value::Array(data), meta, Value::Array(Array::new()))
    }
}
