//! code_search, native: a read-only search of the workspace for a literal string or a PHP-style
//! PCRE pattern (delimiters and modifiers parsed here, the body compiled by PCRE2 itself, so a
//! pattern matches the same lines it matches under `preg_match`).
//!
//! Limits (phpClaw's CodeSearchTool): at most 1000 rows scanned (one more signals truncation),
//! 8192-byte pages measured as `json_encode` (default flags) of each row plus one, files over
//! 1 MiB skipped, `vendor`, `node_modules`, `.git`, `.idea` and the security folders skipped,
//! secret files skipped, links to folders not followed (links to files are searched), context
//! 0..5 lines. Unlike the reference, files are visited in path
//! order (byte order of the names in each folder), so the same tree always pages the same way.
//!
//! Links and hard links (ours: the reference reads whatever a name leads to): every folder and
//! file is opened beneath the open workspace root with no link crossed, so a name swapped for a
//! link after the walk saw it leads nowhere; a link to a file is searched only when the opened
//! file's real path is inside the workspace and not a file the search skips (secrets, noise and
//! security folders), read through the descriptor that was judged; a regular file with more
//! than one hard link is skipped unless `allowHardLinks`; a root at the filesystem root is
//! refused.
//!
//! Speed (same lines as a line-by-line scan): entry types come from the directory listing, each
//! file is opened by its one name in its folder's open descriptor (`walk`: the kernel resolves
//! one name, not every folder above it) and its path only put together for a row, each file is
//! read once into a reused buffer and searched whole (`scan`), and a regex whose every match
//! must contain some literal only has the lines holding that literal asked (`prefilter`).
//! Between searches, listings and file contents stay in the process's `tree_cache`, kept true
//! by inotify (php.ini `phpclaw.search_cache_size`), so a later search reads from the disk only
//! what changed.

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

pub mod content_blocks;
pub mod listing;
pub mod pool;
pub mod prefilter;
pub mod regex_cache;
pub mod scan;
#[cfg(test)]
mod tests;
pub mod tree_cache;
pub mod walk;

use scan::{Line, Matcher};
use walk::{Got, Named, Visit, Walker};

use super::{success, Host, NativeTool, ToolError};
use crate::core::budget::Budget;
use crate::core::json::{self, EncodeOptions};
use crate::core::security::file_rules::check_code_search_path;
use crate::core::security::workspace::beneath::{relative_inside, HardLinks};
use crate::core::security::workspace::open_root::OpenRoot;
use crate::core::security::workspace::{is_absolute, RootErrorKind, Tool};
use crate::core::value::{Array, Value};

/// The tool's name.
pub const NAME: &str = "code_search";
/// Default workspace below the working directory.
pub const DEFAULT_WORKSPACE_SUBPATH: &str = "storage/phpclaw";
/// Rows collected at most (one more marks truncation).
pub const MAX_SCAN_ROWS: usize = 1000;
/// Page size in bytes.
pub const MAX_PAGE_BYTES: usize = 8192;
/// Files larger than this are skipped.
pub const MAX_FILE_BYTES: u64 = 1_048_576;
/// Files to scan from which a helper thread joins the search: below it, one thread finishes
/// sooner or about as soon, for less CPU time. Measured with `examples/code_search_threads.rs`
/// (files of 8 KB, 2 cores under load): the helper lost wall time up to 1,600 files and saved
/// 4-9% from 3,200, always for 5-10% more CPU time; so a search uses a second core only past
/// this many files.
pub const PARALLEL_MIN_FILES: usize = 2500;
/// Context lines at most.
pub const MAX_CONTEXT_LINES: i64 = 5;
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "search this workspace";
/// Input keys the tool reads.
pub const INPUT_KEYS: [&str; 6] = [
    "pattern",
    "path",
    "extension",
    "is_regex",
    "context_lines",
    "offset",
];
/// routingMetadata(): domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["code", "search"],
    &["grep", "find", "search", "pattern", "regex", "occurrences"],
    &["search code", "find pattern", "locate usage"],
    &["find every call to buildPayload"],
];

/// `description()` for a workspace root.
pub fn description(root: &str) -> String {
    format!(
        "Find where a class, method, function, string, or error message appears in the codebase under {root}. \
Returns file and line only by default; pass context_lines to include the matched line and surrounding code. \
Results are paged: when truncated, call again with the returned next_offset. Read-only."
    )
}

/// `inputSchema()` for a workspace root.
pub fn input_schema(root: &str) -> Value {
    let prop = |t: &str, d: String| {
        Value::from_pairs([("type", Value::str(t)), ("description", Value::str(d))])
    };
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                ("pattern", prop("string", "Literal string to search for, or a PCRE regex when is_regex is true.".into())),
                ("path", prop("string", format!("Sub-path under {root}. Omit to search the whole root."))),
                ("extension", prop("string", "Optional extension filter, e.g. \"php\".".into())),
                ("is_regex", prop("boolean", "Treat pattern as a PCRE regex. Default false.".into())),
                ("context_lines", prop("integer", "Include the matched line, plus this many lines before and after it. Omit for file:line only.".into())),
                ("offset", prop("integer", "Skip this many matches. Use the next_offset from a truncated result to get the next page.".into())),
            ]),
        ),
        ("required", Value::list([Value::str("pattern")])),
    ])
}

/// The workspace root as the constructor fixes it: trailing `/` trimmed, resolved when it exists
/// (by the host's realpath, PHP's own and its cache under the module, as phpClaw's `realpath()`).
pub fn workspace_root(root: Option<&str>, cwd: &str) -> String {
    let raw = match root {
        Some(r) => r.to_string(),
        None => format!("{cwd}/{DEFAULT_WORKSPACE_SUBPATH}"),
    };
    let raw = raw.trim_end_matches('/').to_string();
    let path = Path::new(if raw.is_empty() { "/" } else { &raw });
    match crate::core::workdir::realpath(&crate::core::workdir::absolute(path)) {
        Some(p) if !raw.is_empty() => p.to_string_lossy().into_owned(),
        _ => raw,
    }
}

/// A PHP-style regex: delimiters and modifiers as `preg_match` accepts them, compiled by PCRE2.
/// Cloning shares the compiled code and its match data (what [`regex_cache`] hands out).
#[derive(Clone)]
pub struct PhpRegex(Arc<CompiledRegex>);

struct CompiledRegex {
    re: pcre2::bytes::Regex,
    anchored: bool,
    required: Option<prefilter::Required>,
}

/// The reference's ceiling on one line's match (it sets `pcre.backtrack_limit` to this for the
/// search): a line that needs more is skipped, so no pattern can hang the search.
pub const MAX_BACKTRACK_STEPS: u32 = 200_000;

/// PHP's JIT stack bounds (`PCRE_JIT_STACK_MAX_SIZE`): a match needing more fails as in PHP.
const JIT_STACK_MAX: usize = 192 * 1024;

/// Parse and compile a complete PHP pattern (`/body/flags`); `None` where PHP refuses it.
pub fn compile_php_regex(pattern: &[u8]) -> Option<PhpRegex> {
    compile_php_regex_with(pattern, true)
}

/// [`compile_php_regex`] with the JIT on or off; a pattern compiled before in this process comes
/// from [`regex_cache`], as PHP's own PCRE cache gives `preg_match` (a JIT compile costs far
/// more than searching a small folder).
pub fn compile_php_regex_with(pattern: &[u8], jit: bool) -> Option<PhpRegex> {
    regex_cache::get_or_compile(pattern, jit, compile_uncached)
}

/// Parse and compile without the cache.
fn compile_uncached(pattern: &[u8], jit: bool) -> Option<PhpRegex> {
    let mut i = 0;
    while i < pattern.len() && pattern[i].is_ascii_whitespace() {
        i += 1;
    }
    let &delim = pattern.get(i)?;
    if delim.is_ascii_alphanumeric() || delim == b'\\' || delim == 0 {
        return None;
    }
    i += 1;
    let start = i;
    let end_delim = match delim {
        b'(' => b')',
        b'[' => b']',
        b'{' => b'}',
        b'<' => b'>',
        d => d,
    };
    let end;
    if end_delim == delim {
        loop {
            let &c = pattern.get(i)?;
            if c == b'\\' && i + 1 < pattern.len() {
                i += 2;
                continue;
            }
            if c == delim {
                end = i;
                break;
            }
            i += 1;
        }
    } else {
        let mut depth = 1;
        loop {
            let &c = pattern.get(i)?;
            if c == b'\\' && i + 1 < pattern.len() {
                i += 2;
                continue;
            }
            if c == end_delim {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            } else if c == delim {
                depth += 1;
            }
            i += 1;
        }
    }
    let body = &pattern[start..end];
    let mut b = pcre2::bytes::RegexBuilder::new();
    b.jit_if_available(jit);
    if jit {
        b.max_jit_stack_size(Some(JIT_STACK_MAX));
    }
    let mut prefix = String::new();
    let mut anchored = false;
    for &m in &pattern[end + 1..] {
        match m {
            b'i' => {
                b.caseless(true);
            }
            b'm' => {
                b.multi_line(true);
            }
            b's' => {
                b.dotall(true);
            }
            b'x' => {
                b.extended(true);
            }
            b'u' => {
                b.utf(true);
                b.ucp(true);
            }
            b'U' => prefix.push_str("(?U)"),
            b'J' => prefix.push_str("(?J)"),
            b'n' => prefix.push_str("(?n)"),
            b'A' => anchored = true,
            // D only changes `$` before a final newline; lines never contain one. S and X are
            // accepted no-ops under PCRE2; PHP ignores spaces and line breaks among modifiers.
            b'D' | b'S' | b'X' | b' ' | b'\n' | b'\r' => {}
            _ => return None,
        }
    }
    // Leading (*VERB) settings must stay first: the inline options go after them.
    let mut verbs_end = 0;
    while body[verbs_end..].starts_with(b"(*") {
        match body[verbs_end..].iter().position(|&c| c == b')') {
            Some(p)
                if body[verbs_end + 2..verbs_end + p].iter().all(|c| {
                    c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_' || *c == b'='
                }) =>
            {
                verbs_end += p + 1
            }
            _ => break,
        }
    }
    // The step ceiling goes last among the leading settings (PCRE2 takes the last), unless the
    // pattern already sets a lower one: PHP applies the lower of its limit and the pattern's.
    let mut full = body[..verbs_end].to_vec();
    if !sets_lower_match_limit(&body[..verbs_end]) {
        full.extend_from_slice(format!("(*LIMIT_MATCH={MAX_BACKTRACK_STEPS})").as_bytes());
    }
    full.extend_from_slice(prefix.as_bytes());
    full.extend_from_slice(&body[verbs_end..]);
    let src = String::from_utf8(full).ok()?;
    let re = b.build(&src).ok()?;
    let compiled = PhpRegex(Arc::new(CompiledRegex {
        re,
        anchored,
        required: prefilter::required_literal(body, &pattern[end + 1..]),
    }));
    // PHP refuses a pattern whose trial match on '' errors.
    compiled.is_match(b"")?;
    Some(compiled)
}

/// Whether the leading settings hold a `(*LIMIT_MATCH=n)` with n at most the ceiling.
fn sets_lower_match_limit(verbs: &[u8]) -> bool {
    const SETTING: &[u8] = b"(*LIMIT_MATCH=";
    verbs
        .windows(SETTING.len())
        .enumerate()
        .filter(|(_, w)| *w == SETTING)
        .any(|(at, _)| {
            let digits = verbs
                .get(at + SETTING.len()..)
                .unwrap_or_default()
                .iter()
                .take_while(|c| c.is_ascii_digit());
            let value = digits.fold(0u64, |v, &d| {
                v.saturating_mul(10).saturating_add(u64::from(d - b'0'))
            });
            value <= u64::from(MAX_BACKTRACK_STEPS)
        })
}

impl PhpRegex {
    /// A literal every matching line contains, when the pattern shows one safely.
    pub fn required_literal(&self) -> Option<&prefilter::Required> {
        self.0.required.as_ref()
    }

    /// `Some(matched)`, or `None` when the match itself failed (limit, bad UTF-8 under /u).
    pub fn is_match(&self, line: &[u8]) -> Option<bool> {
        if self.0.anchored {
            return match self.0.re.find(line) {
                Ok(Some(m)) => Some(m.start() == 0),
                Ok(None) => Some(false),
                Err(_) => None,
            };
        }
        self.0.re.is_match(line).ok()
    }

    /// Whether two handles share one compiled pattern.
    pub fn same_compiled(&self, other: &PhpRegex) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The tool's configuration.
pub struct CodeSearch {
    /// The root fixed by the constructor.
    pub root: String,
    /// Whether PCRE2 may JIT-compile patterns (PHP's `pcre.jit`; off under valgrind, whose
    /// checks the JIT's wide reads trip).
    pub jit: bool,
    /// Whether files with more than one hard link are searched (`allowHardLinks`; ours).
    pub allow_hard_links: bool,
    /// Files to scan from which a helper thread joins the search ([`PARALLEL_MIN_FILES`];
    /// benchmarks and tests set it to compare or force either way).
    pub parallel_min_files: usize,
}

impl CodeSearch {
    /// A search rooted at `root`, JIT on, hard-linked files skipped.
    pub fn new(root: impl Into<String>) -> Self {
        CodeSearch {
            root: root.into(),
            jit: true,
            allow_hard_links: false,
            parallel_min_files: PARALLEL_MIN_FILES,
        }
    }

    fn hard_links(&self) -> HardLinks {
        HardLinks::allowed(self.allow_hard_links)
    }

    /// What finds the planned pattern's lines; `None` for a regex PCRE2 refuses.
    fn matcher(&self, p: &Planned) -> Option<Matcher> {
        if p.is_regex {
            compile_php_regex_with(&p.pattern, self.jit).map(Matcher::regex)
        } else {
            Some(Matcher::literal(&p.pattern))
        }
    }
}

/// The planned input.
pub struct Planned {
    pattern: Vec<u8>,
    /// The folder searched, relative to the real workspace root (`/`-separated, empty for the
    /// root), as its real path was judged: opened again beneath the root with no link crossed.
    sub: Vec<u8>,
    extension: String,
    is_regex: bool,
    context_lines: usize,
    with_content: bool,
    offset: usize,
}

/// One collected match.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    file: Vec<u8>,
    line: usize,
    text: Vec<u8>,
    before: Vec<Vec<u8>>,
    after: Vec<Vec<u8>>,
}

/// What the scan found.
#[derive(Default)]
pub struct Found {
    rows: Vec<Row>,
    /// Lines PCRE2 was asked about and failed on (skipped, as the reference's ceiling skips);
    /// lines the prefilter rules out are never asked.
    pub skipped: usize,
    /// Files the scan went through in a regex search, in order: counted again for the warning
    /// when lines were skipped (the rare case), so the common one pays nothing for it.
    visited: Vec<Named>,
    /// The warning when the walk's budget cut it (`core::budget`).
    cut: Option<String>,
}

impl Found {
    /// The reference's warning for skipped lines, `None` when none were: skipped over the lines
    /// of the files searched (counted as PHP's `file()` splits them).
    fn skipped_warning(&self, open: &OpenRoot, hard_links: HardLinks) -> Option<String> {
        if self.skipped == 0 {
            return None;
        }
        let mut buf = Vec::new();
        let mut lines = 0;
        for v in &self.visited {
            if v.read(open, hard_links, &mut buf) {
                lines += php_line_count(&buf);
            }
        }
        Some(format!(
            "[phpClaw] CodeSearchTool: skipped {}/{} line(s): regex exceeded the {}-step backtrack ceiling.",
            self.skipped,
            lines.max(self.skipped),
            MAX_BACKTRACK_STEPS
        ))
    }
}

/// Lines of `buf` as `file(…, FILE_IGNORE_NEW_LINES)` gives them (a final line without `\n`
/// counts, an empty file has none).
fn php_line_count(buf: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', buf).count()
        + usize::from(!buf.is_empty() && buf.last() != Some(&b'\n'))
}

fn php_string(v: &Value) -> Vec<u8> {
    super::file_read::php_string(v).unwrap_or_default()
}

fn php_bool(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Int(i)) => *i != 0,
        Some(Value::Float(f)) => *f != 0.0,
        Some(Value::Str(s)) => !(s.is_empty() || s == b"0"),
        Some(Value::Array(a)) => !a.is_empty(),
    }
}

/// PHP's `(int)` of a scalar (leading-numeric strings, floats truncated, saturating).
fn php_int(v: Option<&Value>) -> i64 {
    match v {
        None | Some(Value::Null) => 0,
        Some(Value::Bool(b)) => i64::from(*b),
        Some(Value::Int(i)) => *i,
        Some(Value::Float(f)) => {
            if f.is_finite() {
                *f as i64
            } else {
                0
            }
        }
        Some(Value::Str(s)) => {
            let t = String::from_utf8_lossy(s);
            let t = t.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
            let end = t
                .char_indices()
                .take_while(|(i, c)| {
                    c.is_ascii_digit()
                        || (*i == 0 && (*c == '-' || *c == '+'))
                        || matches!(c, '.' | 'e' | 'E')
                })
                .count();
            let num = &t[..end];
            num.parse::<i64>()
                .ok()
                .or_else(|| {
                    num.parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .map(|f| f as i64)
                })
                .or_else(|| {
                    let digits: String = num
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
                        .collect();
                    digits.parse::<i64>().ok()
                })
                .unwrap_or(0)
        }
        Some(Value::Array(a)) => i64::from(!a.is_empty()),
    }
}

impl CodeSearch {
    /// The open workspace root; refused as the reference refuses a missing folder (or, ours, a
    /// root at the filesystem root: no sandbox at all).
    fn open_root(&self, sub: &str) -> Result<std::sync::Arc<OpenRoot>, String> {
        OpenRoot::get(&self.root).map_err(|e| match e.kind {
            RootErrorKind::FilesystemRoot => e.refusal(Tool::CodeSearch).message,
            _ => format!("code_search: directory not found: {sub}"),
        })
    }

    /// The searched folder relative to the real root: its real path (links followed, as the
    /// reference's `realpath`) must be a folder inside the root and outside the security folders.
    fn resolve_sub(&self, open: &OpenRoot, sub: &str) -> Result<Vec<u8>, String> {
        let not_found = || format!("code_search: directory not found: {sub}");
        if sub.is_empty() {
            return Ok(Vec::new());
        }
        let joined = if is_absolute(sub) {
            sub.to_string()
        } else {
            format!("{}/{}", self.root, sub.trim_start_matches(['/', '\\']))
        };
        let real = fs::canonicalize(&joined).map_err(|_| not_found())?;
        let real = real.to_string_lossy();
        let relative = relative_inside(open.root_str().as_bytes(), real.as_bytes())
            .ok_or_else(|| "code_search: path escapes workspace root - blocked.".to_string())?;
        let relative = String::from_utf8_lossy(relative).into_owned();
        check_code_search_path(&relative).map_err(|r| r.message)?;
        if !Path::new(real.as_ref()).is_dir() {
            return Err(not_found());
        }
        Ok(relative.into_bytes())
    }

    /// Walk `p.sub` and scan its files in walk order.
    ///
    /// The walk starts here. A tree of fewer than [`CodeSearch::parallel_min_files`] files to
    /// scan (or any tree without `threaded`, or when every helper of the [`pool`] is busy) is
    /// scanned here alone: on such trees a second thread costs more CPU than it saves time.
    /// Past that many files, a helper thread of the pool takes over the walk (listing, sorting,
    /// name rules) and hands files over in batches through a bounded queue, so the walk overlaps
    /// the reading and searching. Once the walk is done, the helper probes files from the last
    /// one backwards while this thread scans forwards: a file it finds no matching line in is
    /// skipped here, one with a match is scanned here as any other, and the two stop where they
    /// meet. Rows are only ever made here, in walk order, so offset and row limit cut exactly
    /// where a scan on one thread would. The scan stopping (enough rows) drops the queue and
    /// raises a flag, which stops the helper; this thread waits for the helper's job to end
    /// before it returns.
    ///
    /// Every folder and file is opened beneath the open root with no link crossed, a file by its
    /// name in its folder's descriptor while the walk holds it; a link to a file is followed
    /// only when opened, and judged there (see [`walk`]).
    fn walk_and_scan(&self, p: &Planned, s: &mut Scan, threaded: bool) {
        let Ok(open) = OpenRoot::get(&self.root) else {
            return;
        };
        let hard_links = self.hard_links();
        let mut walker = Walker::new(
            open.clone(),
            p.sub.clone(),
            p.extension.clone(),
            s.budget.clone(),
        );
        let Scan {
            buf,
            matcher,
            seen,
            found,
            budget,
        } = s;
        let regex = matches!(**matcher, Matcher::Regex { .. });
        let mut scan_here = |v: &Visit, found: &mut Found| {
            if !budget.in_time() {
                return false;
            }
            if regex {
                found.visited.push(v.named());
            }
            self.scan_file(&open, v, p, matcher, buf, seen, found)
        };
        if !threaded {
            for v in walker.by_ref() {
                if !scan_here(&v, found) {
                    return;
                }
            }
            return;
        }
        // Files the walk found before it was known whether the tree is large.
        let mut first = Vec::new();
        while first.len() < self.parallel_min_files {
            match walker.next() {
                Some(v) => first.push(v),
                None => break,
            }
        }
        let helper = if walker.is_done() {
            None
        } else {
            pool::reserve()
        };
        let Some(helper) = helper else {
            for v in first {
                if !scan_here(&v, found) {
                    return;
                }
            }
            for v in walker.by_ref() {
                if !scan_here(&v, found) {
                    return;
                }
            }
            return;
        };
        let ahead = Arc::new(Ahead {
            states: OnceLock::new(),
            next_here: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
        });
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Visit>>(WALK_QUEUE);
        let running = {
            let ahead = ahead.clone();
            let matcher = matcher.clone();
            let open = open.clone();
            let mut all: Vec<Named> = if first.len() <= PROBE_MAX_FILES {
                first.iter().map(Visit::named).collect()
            } else {
                Vec::new()
            };
            helper.run(move || {
                let mut batch = Vec::with_capacity(WALK_BATCH);
                let mut done = true;
                for v in walker.by_ref() {
                    if all.len() <= PROBE_MAX_FILES {
                        all.push(v.named());
                    }
                    batch.push(v);
                    if batch.len() == WALK_BATCH
                        && tx
                            .send(std::mem::replace(
                                &mut batch,
                                Vec::with_capacity(WALK_BATCH),
                            ))
                            .is_err()
                    {
                        done = false;
                        break;
                    }
                }
                if !done || (!batch.is_empty() && tx.send(batch).is_err()) {
                    return;
                }
                drop(tx);
                if all.len() <= PROBE_MAX_FILES {
                    ahead.probe_backwards(&all, &matcher, &open, hard_links);
                }
            })
        };
        let mut index = 0;
        let mut take = |v: Visit, found: &mut Found| {
            let skip = ahead.claim(index).map(|skipped| found.skipped += skipped);
            index += 1;
            if skip.is_some() {
                if regex {
                    found.visited.push(v.named());
                }
                true
            } else {
                scan_here(&v, found)
            }
        };
        'scan: {
            for v in first {
                if !take(v, found) {
                    break 'scan;
                }
            }
            for batch in rx.iter() {
                for v in batch {
                    if !take(v, found) {
                        break 'scan;
                    }
                }
            }
        }
        ahead.stop.store(true, Ordering::Release);
        drop(rx);
        // The helper stops at its next send or probe; a panic in it only ended the scan early.
        running.wait();
    }

    /// Scan one file; `false` once enough rows are collected.
    #[allow(clippy::too_many_arguments)]
    fn scan_file(
        &self,
        open: &OpenRoot,
        v: &Visit,
        p: &Planned,
        matcher: &Matcher,
        buf: &mut Vec<u8>,
        seen: &mut usize,
        found: &mut Found,
    ) -> bool {
        let shared;
        let buf: &[u8] = match v.fetch(open, self.hard_links(), buf) {
            None => return true,
            Some(Got::Buf) => buf,
            Some(Got::Shared(bytes)) => {
                shared = bytes;
                &shared
            }
        };
        scan::for_each_match(buf, matcher, &mut found.skipped, |line: Line| {
            *seen += 1;
            if *seen <= p.offset {
                return true;
            }
            let c = p.context_lines;
            found.rows.push(Row {
                file: v.rel(),
                line: line.number,
                text: buf[line.start..line.end].to_vec(),
                before: scan::lines_before(buf, line.start, c),
                after: scan::lines_after(buf, line.end, c),
            });
            found.rows.len() <= MAX_SCAN_ROWS
        })
    }
}

/// Files handed from the helper to the scanning thread at a time, and batches queued at most:
/// the walk runs ahead of the scan by a bounded amount.
const WALK_BATCH: usize = 16;
/// See `WALK_BATCH`.
const WALK_QUEUE: usize = 64;
/// Past this many files the helper does not probe (it would have to keep every path).
const PROBE_MAX_FILES: usize = 100_000;

/// What the probing thread tells the scanning one, per file of the walk (by index).
struct Ahead {
    /// One state per file, set up once the walk is done: `FREE`, `TAKEN` (being probed or
    /// scanned), `HAS_MATCH`, or `NO_MATCH + n` (no matching line; `n` lines PCRE2 failed on).
    states: OnceLock<Vec<AtomicUsize>>,
    /// The index of the next file the scanning thread takes.
    next_here: AtomicUsize,
    /// Set when the scan is over.
    stop: AtomicBool,
}

const FREE: usize = 0;
const TAKEN: usize = 1;
const HAS_MATCH: usize = 2;
const NO_MATCH: usize = 3;

impl Ahead {
    /// Probe files from the last backwards until the scanning thread is reached.
    fn probe_backwards(
        &self,
        files: &[Named],
        matcher: &Matcher,
        open: &OpenRoot,
        hard_links: HardLinks,
    ) {
        let states = self
            .states
            .get_or_init(|| files.iter().map(|_| AtomicUsize::new(FREE)).collect());
        let mut buf = Vec::new();
        for (i, v) in files.iter().enumerate().rev() {
            if self.stop.load(Ordering::Acquire)
                || i < self.next_here.load(Ordering::Acquire)
                || states[i]
                    .compare_exchange(FREE, TAKEN, Ordering::AcqRel, Ordering::Acquire)
                    .is_err()
            {
                return;
            }
            let mut hit = false;
            let mut skipped = 0;
            if v.read(open, hard_links, &mut buf) {
                scan::for_each_match(&buf, matcher, &mut skipped, |_| {
                    hit = true;
                    false
                });
            }
            let state = if hit {
                HAS_MATCH
            } else {
                NO_MATCH.saturating_add(skipped)
            };
            states[i].store(state, Ordering::Release);
        }
    }

    /// Called by the scanning thread before file `i`: `Some(skipped)` when the file was probed
    /// without a match (skip it), `None` when it must be scanned here.
    fn claim(&self, i: usize) -> Option<usize> {
        self.next_here.store(i + 1, Ordering::Release);
        let state = self.states.get()?.get(i)?;
        match state.compare_exchange(FREE, TAKEN, Ordering::AcqRel, Ordering::Acquire) {
            Err(s) if s >= NO_MATCH => Some(s - NO_MATCH),
            _ => None,
        }
    }
}

/// Whether a file name passes the extension filter (ASCII case-insensitive; empty: any).
fn extension_matches(name: &[u8], extension: &str) -> bool {
    if extension.is_empty() {
        return true;
    }
    let ext = name
        .iter()
        .rposition(|&c| c == b'.')
        .map_or(&b""[..], |i| &name[i + 1..]);
    ext.eq_ignore_ascii_case(extension.as_bytes())
}

/// The scan's state: the reused read buffer, the matcher, matches seen so far, the rows.
struct Scan {
    buf: Vec<u8>,
    matcher: Arc<Matcher>,
    seen: usize,
    found: Found,
    /// The walk's bound (`core::budget`): the scan stops with what it found once it is spent.
    budget: Arc<Budget>,
}

impl Scan {
    fn new(matcher: Matcher) -> Self {
        Scan {
            buf: Vec::new(),
            matcher: Arc::new(matcher),
            seen: 0,
            found: Found::default(),
            budget: Arc::new(Budget::walk()),
        }
    }
}

/// Byte length of PHP's default `json_encode` of a value (slashes and non-ASCII escaped);
/// 0 where json_encode fails (invalid UTF-8), as `strlen(false)`.
pub fn php_json_len(v: &Value) -> usize {
    let Ok(out) = json::to_vec(v, EncodeOptions::default()) else {
        return 0;
    };
    let Ok(s) = std::str::from_utf8(&out) else {
        return 0;
    };
    s.chars()
        .map(|c| match c {
            '/' => 2,
            c if c.is_ascii() => 1,
            c if (c as u32) < 0x10000 => 6,
            _ => 12,
        })
        .sum()
}

fn shape(row: &Row, with_content: bool, context: usize) -> Value {
    let mut a = Array::from_pairs([
        ("file", Value::Str(row.file.clone())),
        ("line", Value::Int(row.line as i64)),
    ]);
    if with_content {
        a.insert("match", Value::Str(row.text.clone()));
        if context > 0 {
            a.insert(
                "before",
                Value::list(row.before.iter().map(|l| Value::Str(l.clone()))),
            );
            a.insert(
                "after",
                Value::list(row.after.iter().map(|l| Value::Str(l.clone()))),
            );
        }
    }
    Value::Array(a)
}

impl NativeTool for CodeSearch {
    type Input = Planned;
    type Execution = Found;

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
        let pattern = input.get("pattern").map(php_string).unwrap_or_default();
        let sub = input.get("path").map(php_string).unwrap_or_default();
        let is_regex = php_bool(input.get("is_regex"));
        if pattern.is_empty() {
            return Err(ToolError::tool("code_search: pattern is required."));
        }
        if is_regex && compile_php_regex_with(&pattern, self.jit).is_none() {
            return Err(ToolError::tool("code_search: invalid regex pattern."));
        }
        let sub = String::from_utf8_lossy(&sub).into_owned();
        let open = self.open_root(&sub).map_err(ToolError::Tool)?;
        let sub = self.resolve_sub(&open, &sub).map_err(ToolError::Tool)?;
        let ext = input.get("extension").map(php_string).unwrap_or_default();
        let ext = String::from_utf8_lossy(&ext)
            .trim_start_matches('.')
            .to_string();
        let context = php_int(input.get("context_lines")).clamp(0, MAX_CONTEXT_LINES) as usize;
        Ok(Planned {
            pattern,
            sub,
            extension: ext,
            is_regex,
            context_lines: context,
            with_content: input.contains_key("context_lines"),
            offset: php_int(input.get("offset")).max(0) as usize,
        })
    }

    fn perform<H: Host>(
        &mut self,
        p: &Planned,
        host: &mut H,
    ) -> Result<Found, ToolError<H::Error>> {
        let matcher = self
            .matcher(p)
            .ok_or_else(|| ToolError::tool("code_search: invalid regex pattern."))?;
        let mut s = Scan::new(matcher);
        self.walk_and_scan(p, &mut s, true);
        s.found.cut = s.budget.warning(NAME);
        if s.found.skipped > 0 {
            if let Ok(open) = OpenRoot::get(&self.root) {
                if let Some(warning) = s.found.skipped_warning(&open, self.hard_links()) {
                    host.warn(&warning);
                }
            }
        }
        Ok(s.found)
    }

    fn complete(&mut self, found: &Found, p: &Planned) -> Value {
        let overflow = found.rows.len() > MAX_SCAN_ROWS;
        let kept = found.rows.len().min(MAX_SCAN_ROWS);
        let mut rows = Vec::new();
        let mut bytes = 0;
        for row in &found.rows[..kept] {
            let shaped = shape(row, p.with_content, p.context_lines);
            bytes += php_json_len(&shaped) + 1;
            if bytes > MAX_PAGE_BYTES && !rows.is_empty() {
                break;
            }
            rows.push(shaped);
        }
        let truncated = overflow || rows.len() < kept;
        let count = rows.len();
        let mut data = Array::from_pairs([
            ("pattern", Value::Str(p.pattern.clone())),
            ("offset", Value::Int(p.offset as i64)),
            ("total", Value::Int(count as i64)),
            ("truncated", Value::Bool(truncated)),
            ("results", Value::list(rows)),
        ]);
        if truncated {
            let next = p.offset + count;
            data.insert("next_offset", Value::Int(next as i64));
            data.insert(
                "hint",
                Value::str(format!(
                    "More matches exist. Call again with offset={next} for the next page."
                )),
            );
        }
        let meta = Value::from_pairs([
            ("mode", Value::str("search")),
            ("truncated", Value::Bool(truncated)),
        ]);
        let warnings = Value::list(found.cut.iter().map(Value::str));
        success(Value::Array(data), meta, warnings)
    }
}
