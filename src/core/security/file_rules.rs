//! Which names, folders and extensions each tool refuses, as data tables per tool, judged on a
//! workspace-relative path (`/` or `\` separated) with the reference tool's exact message.
//!
//! The tools apply DIFFERENT lists on purpose (phpClaw's FileReadTool, FileWriteTool,
//! FileEditTool, CodeSearchTool, ProjectTool and ZipPackagerTool, public repository
//! phpclaw-php/phpclaw-monorepo, `packages/core/src/Tools/`):
//! - file_read: `.env` family, sensitive extensions, sensitive names, security + noise folders;
//! - file_edit: the same plus the build files and `.github`, `.git`, `.circleci`;
//! - file_write: every `.env*` name, sensitive and build file names, PHP files unless
//!   `allow_php_write`, executable and sensitive extensions, noise + security folders plus
//!   `core`, `system`, `sysext`;
//! - code_search: skips the files file_read refuses and the noise/security folders, and refuses
//!   a search path inside a security folder; project_info skips its own folder list.
//!
//! Every name is judged as a web server or a careless copy would see it: lower-cased, trailing
//! dots and spaces removed, backup and editor suffixes removed (`id_rsa.bak`, `.env.save`,
//! `wp-config.php~` are judged as the original), and for file_write EVERY extension of a
//! multi-extension name is considered (`shell.phtml.jpg` runs as PHP under Apache's mod_mime).
//! All refusals map to PHP's `ToolException`; the reference has no codes, so the codes are ours.

use std::borrow::Cow;
use thiserror::Error;

use super::blocked_paths::{
    is_env_name, strip_backup_suffix, BACKUP_SUFFIXES, EDIT_FILENAMES, EXTENSIONS, FILENAMES,
    NOISE_DIRS, SECURITY_DIRS,
};
use super::workspace::{Resolved, Tool, Workspace};

/// A refusal with a stable code and the exact user-facing message PHP callers compare.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct Refusal {
    /// Stable identifier (ours: the reference throws a bare `ToolException`).
    pub code: &'static str,
    /// The message, word for word the reference's where it has one.
    pub message: String,
}

/// PHP file extensions file_write refuses unless `allow_php_write` (the reference's list).
pub const PHP_EXTENSIONS: &[&str] = &["php", "phtml", "phar"];

/// More extensions that a PHP deployment executes or includes as PHP code, refused like
/// [`PHP_EXTENSIONS`] (ours). Sources: Debian/Ubuntu `php*.conf` (`.+\.ph(ar|p|tml)$`, `.phps`
/// source handler), cPanel/EasyApache and old `AddHandler`/`AddType` lines (`.php3`–`.php8`,
/// `.pht`, `.phtm`), the upload-filter bypass lists (`.pgif`, `.phpt`), and CMS code files
/// loaded by `include` (Drupal `.module .inc .install .theme .engine .profile`, CakePHP `.ctp`,
/// OpenCart 2 `.tpl`).
pub const PHP_EXTENSIONS_EXTRA: &[&str] = &[
    "php2", "php3", "php4", "php5", "php6", "php7", "php8", "phps", "pht", "phtm", "phpt", "pgif",
    "inc", "module", "install", "theme", "engine", "profile", "ctp", "tpl",
];

/// Executable extensions file_write always refuses (the reference's list).
pub const EXECUTABLE_EXTENSIONS: &[&str] = &["sh", "bash", "exe", "bat", "cmd", "ps1"];

/// More extensions a web server or a shell runs (ours): CGI (`cgi`, `pl`), server-side includes
/// (`shtml` can `#exec`), other shells, Windows script hosts, and other servers' page handlers.
pub const EXECUTABLE_EXTENSIONS_EXTRA: &[&str] = &[
    "cgi", "pl", "shtml", "zsh", "ksh", "csh", "com", "vbs", "psm1", "msi", "asp", "aspx", "jsp",
];

/// Names file_write refuses on top of the shared lists (ours): per-directory PHP and IIS
/// configuration that can turn any file into code (`auto_prepend_file`, handler mappings).
pub const WRITE_FILENAMES_EXTRA: &[&str] = &[".user.ini", "web.config"];

/// Folders only file_write refuses (reference): CMS cores (Drupal `core`, OpenCart `system`,
/// TYPO3 `sysext`).
pub const WRITE_ONLY_DIRS: &[&str] = &["core", "system", "sysext"];

/// Folders only file_edit refuses (reference): CI definitions and the repository itself.
pub const EDIT_ONLY_DIRS: &[&str] = &[".github", ".git", ".circleci"];

/// Folders code_search never descends into (reference; matched exactly, case-sensitive).
pub const CODE_SEARCH_SKIP_DIRS: &[&str] = &["vendor", "node_modules", ".git", ".idea"];

/// Entries project_info leaves out of its tree (reference; matched exactly, case-sensitive).
pub const PROJECT_SKIP_DIRS: &[&str] = &[
    "vendor",
    "node_modules",
    ".git",
    ".idea",
    "storage",
    "cache",
];

/// Longest fragment of user input quoted in a message (reference `sanitizeForMessage`).
pub const MAX_MESSAGE_FRAGMENT: usize = 64;

/// The reference's message sanitiser: every byte outside `[A-Za-z0-9._/-]` becomes `?` (so a
/// multi-byte character becomes several), capped at 64 bytes, so no injection-shaped text
/// comes back into the model's context.
pub fn sanitize_for_message(value: &str) -> String {
    value
        .bytes()
        .take(MAX_MESSAGE_FRAGMENT)
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-') {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

/// A name as a server or a backup habit sees it: lower-cased, trailing dots and spaces removed,
/// backup and editor suffixes removed, repeated until nothing changes (`ID_RSA.bak. ` → `id_rsa`).
/// Borrowed when the name is already in that form (the common case: no allocation per check).
pub fn server_name(name: &str) -> Cow<'_, str> {
    if already_server_name(name) {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(normalise_name(name))
    }
}

/// `f` of [`server_name`]`(name)`, lower-cased on the stack when that is all the name needs (a
/// walk judges every name it lists: no allocation for the usual mixed-case file name).
fn with_server_name<T>(name: &str, f: impl FnOnce(&str) -> T) -> T {
    let mut buf = [0u8; 255];
    if let Some(lower) = buf.get_mut(..name.len()) {
        lower.copy_from_slice(name.as_bytes());
        lower.make_ascii_lowercase();
        // ASCII lower-casing keeps UTF-8 valid; the name needs nothing more when the lower-cased
        // one is already a server name (the normalisation lower-cases first).
        if let Ok(lower) = std::str::from_utf8(lower) {
            if already_server_name(lower) {
                return f(lower);
            }
        }
    }
    f(&server_name(name))
}

/// The full normalisation behind [`server_name`], always allocating.
fn normalise_name(name: &str) -> String {
    let mut s = name.to_ascii_lowercase();
    loop {
        let before = s.len();
        let trimmed_len = s.trim_end_matches(['.', ' ']).len();
        if trimmed_len > 0 {
            s.truncate(trimmed_len);
        }
        s = strip_backup_suffix(&s);
        if s.len() == before {
            return s;
        }
    }
}

/// True when [`server_name`] would give `name` back unchanged: lower case, no trailing dot,
/// space or `~`, no backup suffix.
fn already_server_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.iter().any(u8::is_ascii_uppercase)
        && !matches!(b.last(), Some(b'.' | b' ' | b'~'))
        && !BACKUP_SUFFIXES.iter().any(|suffix| {
            b.len() > suffix.len() + 1
                && name.ends_with(suffix)
                && b.get(b.len() - suffix.len() - 1) == Some(&b'.')
        })
}

/// The last extension, as PHP's `pathinfo()` gives it (`.env` → `env`, `a.tar.gz` → `gz`).
fn last_extension(name: &str) -> &str {
    name.rsplit_once('.').map(|(_, e)| e).unwrap_or("")
}

/// Every extension of a name, as Apache's mod_mime reads them (`x.php.jpg` → `php`, `jpg`).
fn all_extensions(name: &str) -> impl Iterator<Item = &str> {
    name.split('.').skip(1).filter(|e| !e.is_empty())
}

/// Non-empty segments of a path split on both separators.
fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split(['/', '\\']).filter(|s| !s.is_empty())
}

/// The last segment (`""` for the root).
fn basename(path: &str) -> &str {
    segments(path).last().unwrap_or("")
}

fn contains(list: &[&str], name: &str) -> bool {
    list.contains(&name)
}

/// The first segment whose server name is in one of `lists`, in its original case. (The lists
/// are lower case, so a case-insensitive compare is the segment lower-cased.)
fn blocked_segment<'a>(path: &'a str, lists: &[&[&str]]) -> Option<&'a str> {
    segments(path).find(|seg| {
        let n = server_name(seg);
        lists.iter().any(|l| contains(l, &n))
            || lists
                .iter()
                .any(|l| l.iter().any(|x| x.eq_ignore_ascii_case(seg)))
    })
}

fn refusal(code: &'static str, message: String) -> Refusal {
    Refusal { code, message }
}

/// The tool whose list applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rules {
    /// file_read with the default noise folders.
    FileRead,
    /// file_write; PHP files only with `allow_php_write`.
    FileWrite {
        /// The tool's constructor flag.
        allow_php_write: bool,
    },
    /// file_edit with the default noise folders.
    FileEdit,
    /// code_search's search path.
    CodeSearch,
    /// zip_package's source folder.
    ZipPackage,
}

/// Judge `path` (raw or resolved, relative) for `rules`.
pub fn check(rules: Rules, path: &str) -> Result<(), Refusal> {
    match rules {
        Rules::FileRead => check_file_read(path),
        Rules::FileWrite { allow_php_write } => check_file_write(path, allow_php_write),
        Rules::FileEdit => check_file_edit(path),
        Rules::CodeSearch => check_code_search_path(path),
        Rules::ZipPackage => check_zip_source(path),
    }
}

/// Judge both the requested path and the real one, so a symlink cannot launder a blocked
/// name past the first check (the reference checks twice for the same reason).
pub fn check_resolved(rules: Rules, resolved: &Resolved) -> Result<(), Refusal> {
    check(rules, &resolved.display)?;
    check(rules, &resolved.real_relative)
}

/// The tool whose resolution policy goes with `rules`.
fn tool_of(rules: Rules) -> Tool {
    match rules {
        Rules::FileRead => Tool::FileRead,
        Rules::FileWrite { .. } => Tool::FileWrite,
        Rules::FileEdit => Tool::FileEdit,
        Rules::CodeSearch => Tool::CodeSearch,
        Rules::ZipPackage => Tool::ZipPackage,
    }
}

/// The whole gate in the reference order: the rules on the path as given (a fast refusal that
/// never touches the disk; code_search and zip_package judge only the real path, as the
/// reference does), then the sandbox, then the rules again on the real path.
pub fn resolve_checked(ws: &Workspace, rules: Rules, raw: &str) -> Result<Resolved, Refusal> {
    let judged_raw = !matches!(rules, Rules::CodeSearch | Rules::ZipPackage);
    if judged_raw && !raw.trim().is_empty() && !raw.contains('\0') {
        check(rules, raw)?;
    }
    let resolved = ws
        .resolve_for(tool_of(rules), raw)
        .map_err(|e| e.refusal())?;
    check_resolved(rules, &resolved)?;
    Ok(resolved)
}

/// file_read's rules with the default noise folders (`vendor`, `node_modules`).
pub fn check_file_read(path: &str) -> Result<(), Refusal> {
    check_file_read_with(path, NOISE_DIRS)
}

/// file_read's rules with the noise folders the tool was built with; security folders always.
pub fn check_file_read_with(path: &str, noise_dirs: &[&str]) -> Result<(), Refusal> {
    read_like(
        path,
        "",
        &[FILENAMES],
        &[SECURITY_DIRS, noise_dirs],
        "Reading from",
    )
}

/// file_edit's rules with the default noise folders.
pub fn check_file_edit(path: &str) -> Result<(), Refusal> {
    check_file_edit_with(path, NOISE_DIRS)
}

/// file_edit's rules: file_read's plus build files and `.github`, `.git`, `.circleci`.
pub fn check_file_edit_with(path: &str, noise_dirs: &[&str]) -> Result<(), Refusal> {
    read_like(
        path,
        "file_edit: ",
        &[FILENAMES, EDIT_FILENAMES],
        &[SECURITY_DIRS, EDIT_ONLY_DIRS, noise_dirs],
        "Editing",
    )
}

/// Shared shape of file_read and file_edit: `.env` family, extension, name, then folders.
fn read_like(
    path: &str,
    prefix: &str,
    names: &[&[&str]],
    dirs: &[&[&str]],
    dir_verb: &str,
) -> Result<(), Refusal> {
    let base = basename(path);
    // Only a refusal quotes the name.
    let shown = || sanitize_for_message(&base.to_ascii_lowercase());
    let name = server_name(base);
    if is_env_name(&name) {
        return Err(refusal(
            "BLOCKED_ENV_FILE",
            format!("{prefix}Access to '{}' files is blocked.", shown()),
        ));
    }
    let ext = last_extension(&name);
    if !ext.is_empty() && contains(EXTENSIONS, ext) {
        return Err(refusal(
            "BLOCKED_EXTENSION",
            format!(
                "{prefix}Files with extension '.{}' are blocked.",
                sanitize_for_message(ext)
            ),
        ));
    }
    if names.iter().any(|l| contains(l, &name)) {
        return Err(refusal(
            "BLOCKED_FILENAME",
            format!("{prefix}Access to '{}' is blocked.", shown()),
        ));
    }
    if let Some(seg) = blocked_segment(path, dirs) {
        return Err(refusal(
            "BLOCKED_DIRECTORY",
            format!(
                "{prefix}{dir_verb} the '{}' directory is blocked.",
                sanitize_for_message(seg)
            ),
        ));
    }
    Ok(())
}

/// file_write's rules, in the reference order: `.env*`, names, PHP, extensions, folders.
pub fn check_file_write(path: &str, allow_php_write: bool) -> Result<(), Refusal> {
    let base = basename(path);
    let shown = sanitize_for_message(&base.to_ascii_lowercase());
    let name = server_name(base);
    // file_write refuses every name starting with `.env` (`.envrc`, `.environment` too).
    if name.starts_with(".env") || base.to_ascii_lowercase().starts_with(".env") {
        return Err(refusal(
            "BLOCKED_ENV_FILE",
            format!("Writing to '{shown}' files is blocked."),
        ));
    }
    if [FILENAMES, EDIT_FILENAMES, WRITE_FILENAMES_EXTRA]
        .iter()
        .any(|l| contains(l, &name))
    {
        return Err(refusal(
            "BLOCKED_FILENAME",
            format!("Writing to '{shown}' is blocked."),
        ));
    }
    let is_php = |e: &str| contains(PHP_EXTENSIONS, e) || contains(PHP_EXTENSIONS_EXTRA, e);
    if !allow_php_write {
        if let Some(ext) = all_extensions(&name).find(|e| is_php(e)) {
            return Err(refusal(
                "PHP_WRITE_DISABLED",
                format!(
                    "Writing .{} files is blocked by default. Enable allowPhpWrite to permit it.",
                    sanitize_for_message(ext)
                ),
            ));
        }
    }
    let executable = all_extensions(&name)
        .find(|e| contains(EXECUTABLE_EXTENSIONS, e) || contains(EXECUTABLE_EXTENSIONS_EXTRA, e));
    let last = last_extension(&name);
    let sensitive =
        (!last.is_empty() && contains(EXTENSIONS, last) && !is_php(last)).then_some(last);
    if let Some(ext) = executable.or(sensitive) {
        return Err(refusal(
            "BLOCKED_EXTENSION",
            format!(
                "Writing files with extension '.{}' is blocked.",
                sanitize_for_message(ext)
            ),
        ));
    }
    if let Some(seg) = blocked_segment(path, &[NOISE_DIRS, SECURITY_DIRS, WRITE_ONLY_DIRS]) {
        return Err(refusal(
            "BLOCKED_DIRECTORY",
            format!(
                "Writing to the '{}' directory is blocked.",
                sanitize_for_message(seg)
            ),
        ));
    }
    Ok(())
}

/// code_search's refusal of a search path inside a security folder (`.ssh`, `.git`, …),
/// judged on the real path relative to the root. The reference quotes the segment unsanitised;
/// it can only be a real folder name here, so it is quoted as is.
pub fn check_code_search_path(real_relative: &str) -> Result<(), Refusal> {
    match blocked_segment(real_relative, &[SECURITY_DIRS]) {
        Some(seg) => Err(refusal(
            "BLOCKED_DIRECTORY",
            format!("code_search: the '{seg}' folder is blocked."),
        )),
        None => Ok(()),
    }
}

/// Whether code_search skips a folder while walking: its noise list (exact, as the reference)
/// or a security folder (any case, any backup spelling).
pub fn code_search_skips_dir(name: &str) -> bool {
    contains(CODE_SEARCH_SKIP_DIRS, name) || is_security_dir(name)
}

/// Whether code_search skips a file: the secret files file_read refuses (`.env` family,
/// sensitive names and extensions), backups and trailing-dot spellings included.
pub fn code_search_skips_file(name: &str) -> bool {
    is_secret_file(name)
}

/// Whether code_search's walk leaves an entry out: [`code_search_skips_dir`] for any entry (a
/// file named `vendor` too), and [`code_search_skips_file`] as well for a file; the name
/// normalised once, without allocating for the usual name.
pub fn code_search_skips_entry(name: &str, file: bool) -> bool {
    contains(CODE_SEARCH_SKIP_DIRS, name)
        || with_server_name(name, |n| {
            security_dir_named(name, n) || (file && secret_file_named(n))
        })
}

/// Whether project_info leaves an entry (file or folder) out of its tree (reference: exact match).
pub fn project_skips_entry(name: &str) -> bool {
    contains(PROJECT_SKIP_DIRS, name)
}

/// zip_package's source folder may not be (inside) a security folder (ours: the reference
/// packages any folder under the root).
pub fn check_zip_source(real_relative: &str) -> Result<(), Refusal> {
    match blocked_segment(real_relative, &[SECURITY_DIRS]) {
        Some(seg) => Err(refusal(
            "BLOCKED_DIRECTORY",
            format!(
                "zip_package: the '{}' folder is blocked.",
                sanitize_for_message(seg)
            ),
        )),
        None => Ok(()),
    }
}

/// Whether zip_package leaves an entry out of the archive (ours: the reference zips everything,
/// secrets included): see [`is_blocked_path`].
pub fn zip_skips_entry(relative: &str) -> bool {
    is_blocked_path(relative)
}

/// Whether a workspace-relative path is a secret: a secret file (file_read's names, extensions
/// and `.env` family) or anything under a security folder. The walks (zip_package,
/// project_info's tree) judge both an entry's own path and the real path a link leads to.
pub fn is_blocked_path(relative: &str) -> bool {
    segments(relative).any(is_security_dir) || is_secret_file(basename(relative))
}

/// Whether code_search leaves out the file a link leads to, judged on its real path relative to
/// the workspace: a secret ([`is_blocked_path`]) or a file inside a folder the walk never
/// enters (`vendor`, `.git`, …).
pub fn code_search_skips_path(relative: &str) -> bool {
    is_blocked_path(relative) || segments(relative).any(code_search_skips_dir)
}

/// Whether project_info leaves out the folder or file a link leads to, judged on its real path
/// relative to the project: a secret ([`is_blocked_path`]) or anything under a folder the tree
/// leaves out (`vendor`, `storage`, …).
pub fn project_skips_path(relative: &str) -> bool {
    is_blocked_path(relative) || segments(relative).any(project_skips_entry)
}

/// A security folder in any case or backup spelling (`.SSH`, `.git.bak`).
pub fn is_security_dir(name: &str) -> bool {
    with_server_name(name, |n| security_dir_named(name, n))
}

/// [`is_security_dir`] of `name` whose server name is `n` (the list is lower case, so the plain
/// lower-cased spelling is a case-insensitive compare).
fn security_dir_named(name: &str, n: &str) -> bool {
    contains(SECURITY_DIRS, n) || SECURITY_DIRS.iter().any(|d| d.eq_ignore_ascii_case(name))
}

/// A file file_read refuses by its name alone: `.env` family, sensitive name or extension.
pub fn is_secret_file(name: &str) -> bool {
    with_server_name(name, secret_file_named)
}

/// [`is_secret_file`] of the server name `n`.
fn secret_file_named(n: &str) -> bool {
    let ext = last_extension(n);
    is_env_name(n) || contains(FILENAMES, n) || (!ext.is_empty() && contains(EXTENSIONS, ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(r: Result<(), Refusal>) -> Option<String> {
        r.err().map(|e| e.message)
    }

    #[test]
    fn sanitizer_matches_reference() {
        for (input, want) in [
            ("notes.txt", "notes.txt"),
            ("a b", "a?b"),
            ("é", "??"),
            ("x'; DROP", "x???DROP"),
            ("sub/dir-1_2.txt", "sub/dir-1_2.txt"),
        ] {
            assert_eq!(sanitize_for_message(input), want);
        }
        assert_eq!(sanitize_for_message(&"a".repeat(64)).len(), 64);
        assert_eq!(sanitize_for_message(&"a".repeat(65)).len(), 64);
        assert_eq!(sanitize_for_message(&"é".repeat(40)).len(), 64);
    }

    /// The borrowed fast path of `server_name` gives exactly what the full normalisation gives.
    #[test]
    fn server_name_fast_path_matches_the_full_normalisation() {
        let parts = [
            "", "a", "B", ".", " ", "~", ".bak", ".SWP", "un~", ".un~", "env", ".env", "x.tmp", "é",
        ];
        let (mut checked, mut borrowed) = (0, 0);
        for a in parts {
            for b in parts {
                for c in parts {
                    let name = format!("{a}{b}{c}");
                    let got = server_name(&name);
                    assert_eq!(got, normalise_name(&name), "{name:?}");
                    with_server_name(&name, |n| assert_eq!(n, got, "{name:?}"));
                    if let Cow::Borrowed(b) = got {
                        assert_eq!(b, name, "{name:?}");
                        borrowed += 1;
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, parts.len().pow(3));
        assert!(borrowed > 100, "the fast path is taken ({borrowed})");
    }

    #[test]
    fn server_name_normalises() {
        for (input, want) in [
            ("ID_RSA", "id_rsa"),
            ("wp-config.php.", "wp-config.php"),
            ("wp-config.php ", "wp-config.php"),
            ("wp-config.php. . ", "wp-config.php"),
            ("id_rsa.bak.", "id_rsa"),
            (".env.save~", ".env"),
            ("...", "..."),
            ("notes.txt", "notes.txt"),
        ] {
            assert_eq!(server_name(input), want, "{input:?}");
        }
    }

    #[test]
    fn file_read_rules() {
        let cases: &[(&str, Option<&str>)] = &[
            ("notes.txt", None),
            ("src/index.php", None),
            (".env", Some("Access to '.env' files is blocked.")),
            (
                ".ENV.local",
                Some("Access to '.env.local' files is blocked."),
            ),
            (
                "sub/.env.production",
                Some("Access to '.env.production' files is blocked."),
            ),
            (".env.save", Some("Access to '.env.save' files is blocked.")),
            (".envrc", Some("Access to '.envrc' is blocked.")),
            (".environment.md", None),
            (
                "server.pem",
                Some("Files with extension '.pem' are blocked."),
            ),
            (
                "DB.SQLite",
                Some("Files with extension '.sqlite' are blocked."),
            ),
            (
                "db.sqlite.bak",
                Some("Files with extension '.sqlite' are blocked."),
            ),
            ("x.env", Some("Files with extension '.env' are blocked.")),
            (
                "wp-config.php",
                Some("Access to 'wp-config.php' is blocked."),
            ),
            (
                "WP-CONFIG.PHP",
                Some("Access to 'wp-config.php' is blocked."),
            ),
            (
                "wp-config.php~",
                Some("Access to 'wp-config.php?' is blocked."),
            ),
            (
                "wp-config.php.orig",
                Some("Access to 'wp-config.php.orig' is blocked."),
            ),
            (
                "wp-config.php.",
                Some("Access to 'wp-config.php.' is blocked."),
            ),
            ("id_rsa.bak", Some("Access to 'id_rsa.bak' is blocked.")),
            (
                "keys/id_ed25519.old",
                Some("Access to 'id_ed25519.old' is blocked."),
            ),
            (
                ".htaccess.swp",
                Some("Access to '.htaccess.swp' is blocked."),
            ),
            ("composer.json", None),
            (
                ".git/config",
                Some("Reading from the '.git' directory is blocked."),
            ),
            (
                "a/.SSH/x.txt",
                Some("Reading from the '.SSH' directory is blocked."),
            ),
            (
                "vendor/x.txt",
                Some("Reading from the 'vendor' directory is blocked."),
            ),
            (
                "node_modules\\x.txt",
                Some("Reading from the 'node_modules' directory is blocked."),
            ),
            (
                "wp-admin/x.txt",
                Some("Reading from the 'wp-admin' directory is blocked."),
            ),
            (".github/x.yml", None),
            ("core/x.txt", None),
        ];
        for (path, want) in cases {
            assert_eq!(msg(check_file_read(path)).as_deref(), *want, "{path}");
        }
        assert_eq!(check_file_read_with("vendor/x.txt", &[]), Ok(()));
        assert!(check_file_read_with(".git/x.txt", &[]).is_err());
        assert_eq!(
            check_file_read("x.pem").unwrap_err().code,
            "BLOCKED_EXTENSION"
        );
    }

    #[test]
    fn file_edit_rules() {
        let cases: &[(&str, Option<&str>)] = &[
            ("notes.txt", None),
            (
                ".env",
                Some("file_edit: Access to '.env' files is blocked."),
            ),
            (
                "k.key",
                Some("file_edit: Files with extension '.key' are blocked."),
            ),
            ("id_rsa", Some("file_edit: Access to 'id_rsa' is blocked.")),
            (
                "composer.json",
                Some("file_edit: Access to 'composer.json' is blocked."),
            ),
            (
                "Dockerfile",
                Some("file_edit: Access to 'dockerfile' is blocked."),
            ),
            (
                "package.json.bak",
                Some("file_edit: Access to 'package.json.bak' is blocked."),
            ),
            (
                ".gitignore",
                Some("file_edit: Access to '.gitignore' is blocked."),
            ),
            (
                ".github/workflows/ci.yml",
                Some("file_edit: Editing the '.github' directory is blocked."),
            ),
            (
                ".circleci/config.yml",
                Some("file_edit: Editing the '.circleci' directory is blocked."),
            ),
            (
                ".git/hooks/pre-commit",
                Some("file_edit: Editing the '.git' directory is blocked."),
            ),
            (
                "vendor/x.txt",
                Some("file_edit: Editing the 'vendor' directory is blocked."),
            ),
            ("core/x.txt", None),
        ];
        for (path, want) in cases {
            assert_eq!(msg(check_file_edit(path)).as_deref(), *want, "{path}");
        }
        assert_eq!(check_file_edit_with("vendor/x.txt", &[]), Ok(()));
        assert!(check_file_edit_with(".circleci/x", &[]).is_err());
    }

    #[test]
    fn file_write_rules() {
        let php_off = |e: &str| {
            Some(format!(
                "Writing .{e} files is blocked by default. Enable allowPhpWrite to permit it."
            ))
        };
        let ext = |e: &str| Some(format!("Writing files with extension '.{e}' is blocked."));
        let cases: Vec<(&str, bool, Option<String>)> = vec![
            ("notes.txt", false, None),
            ("sub/dir/report.md", false, None),
            (
                ".env",
                false,
                Some("Writing to '.env' files is blocked.".into()),
            ),
            (
                ".envrc",
                false,
                Some("Writing to '.envrc' files is blocked.".into()),
            ),
            (
                ".environment",
                false,
                Some("Writing to '.environment' files is blocked.".into()),
            ),
            ("secret.env", false, ext("env")),
            (
                ".htaccess",
                false,
                Some("Writing to '.htaccess' is blocked.".into()),
            ),
            (
                ".HTACCESS",
                false,
                Some("Writing to '.htaccess' is blocked.".into()),
            ),
            (
                "site/public/.htpasswd",
                false,
                Some("Writing to '.htpasswd' is blocked.".into()),
            ),
            (
                "id_rsa",
                false,
                Some("Writing to 'id_rsa' is blocked.".into()),
            ),
            (
                "credentials.json",
                false,
                Some("Writing to 'credentials.json' is blocked.".into()),
            ),
            (
                "composer.json",
                false,
                Some("Writing to 'composer.json' is blocked.".into()),
            ),
            (
                ".gitignore",
                false,
                Some("Writing to '.gitignore' is blocked.".into()),
            ),
            (
                "wp-config.php",
                true,
                Some("Writing to 'wp-config.php' is blocked.".into()),
            ),
            (
                ".user.ini",
                true,
                Some("Writing to '.user.ini' is blocked.".into()),
            ),
            ("evil.php", false, php_off("php")),
            ("EVIL.PHP", false, php_off("php")),
            ("view.phtml", false, php_off("phtml")),
            ("bundle.phar", false, php_off("phar")),
            ("x.php.txt", false, php_off("php")),
            ("shell.phtml.jpg", false, php_off("phtml")),
            ("x.php.", false, php_off("php")),
            ("x.php5", false, php_off("php5")),
            ("x.pht", false, php_off("pht")),
            ("x.module", false, php_off("module")),
            ("evil.php", true, None),
            ("plugin/my-plugin.php", true, None),
            ("view.phtml", true, None),
            ("x.php.sh", true, ext("sh")),
            ("backdoor.sh", false, ext("sh")),
            ("backdoor.sh", true, ext("sh")),
            ("x.BASH", false, ext("bash")),
            ("x.exe", false, ext("exe")),
            ("x.bat", false, ext("bat")),
            ("x.cmd", false, ext("cmd")),
            ("x.ps1", false, ext("ps1")),
            ("x.sh.txt", false, ext("sh")),
            ("x.cgi", false, ext("cgi")),
            ("id_rsa.key", false, ext("key")),
            ("x.pem.bak", false, ext("pem")),
            (
                "vendor/autoload.txt",
                false,
                Some("Writing to the 'vendor' directory is blocked.".into()),
            ),
            (
                ".git/config",
                false,
                Some("Writing to the '.git' directory is blocked.".into()),
            ),
            (
                "node_modules/p.txt",
                false,
                Some("Writing to the 'node_modules' directory is blocked.".into()),
            ),
            (
                "core/x.txt",
                false,
                Some("Writing to the 'core' directory is blocked.".into()),
            ),
            (
                "a/System/x.txt",
                false,
                Some("Writing to the 'System' directory is blocked.".into()),
            ),
            (
                "sysext/x.txt",
                false,
                Some("Writing to the 'sysext' directory is blocked.".into()),
            ),
            (
                ".ssh/x.txt",
                false,
                Some("Writing to the '.ssh' directory is blocked.".into()),
            ),
            (
                ".ssh.bak/x.txt",
                false,
                Some("Writing to the '.ssh.bak' directory is blocked.".into()),
            ),
            (".github/x.yml", false, None),
        ];
        for (path, allow, want) in cases {
            assert_eq!(msg(check_file_write(path, allow)), want, "{path} {allow}");
        }
        assert_eq!(
            check_file_write("x.php", false).unwrap_err().code,
            "PHP_WRITE_DISABLED"
        );
    }

    #[test]
    fn php_and_executable_tables_are_disjoint_and_lower_case() {
        let all: Vec<&str> = PHP_EXTENSIONS
            .iter()
            .chain(PHP_EXTENSIONS_EXTRA)
            .chain(EXECUTABLE_EXTENSIONS)
            .chain(EXECUTABLE_EXTENSIONS_EXTRA)
            .copied()
            .collect();
        for (i, e) in all.iter().enumerate() {
            assert_eq!(*e, e.to_ascii_lowercase());
            assert!(!all[i + 1..].contains(e), "{e} twice");
        }
    }

    #[test]
    fn code_search_rules() {
        for (path, want) in [
            ("", None),
            ("src/app", None),
            (".ssh", Some("code_search: the '.ssh' folder is blocked.")),
            (
                "a/.Git/objects",
                Some("code_search: the '.Git' folder is blocked."),
            ),
            (
                "wp-includes",
                Some("code_search: the 'wp-includes' folder is blocked."),
            ),
            ("vendor", None),
        ] {
            assert_eq!(msg(check_code_search_path(path)).as_deref(), want, "{path}");
        }
        for (dir, skip) in [
            ("vendor", true),
            ("node_modules", true),
            (".git", true),
            (".idea", true),
            (".ssh", true),
            (".AWS", true),
            ("Vendor", false),
            ("src", false),
        ] {
            assert_eq!(code_search_skips_dir(dir), skip, "{dir}");
        }
        for (file, skip) in [
            (".env", true),
            (".env.local", true),
            ("x.pem", true),
            ("wp-config.php", true),
            ("wp-config.php.bak", true),
            ("id_rsa~", true),
            ("index.php", false),
            ("composer.json", false),
            ("README.md", false),
        ] {
            assert_eq!(code_search_skips_file(file), skip, "{file}");
        }
        // The walk's one-pass rule agrees with the two it stands for, for folders and files.
        for name in [
            "vendor",
            "Vendor",
            ".git",
            ".GIT.bak",
            ".ssh~",
            "src",
            ".env",
            ".ENV.local",
            "x.PEM",
            "id_RSA.bak. ",
            "Index.php",
            "README.md",
            "wp-admin",
            "WP-Config.php",
            "é.env",
        ] {
            assert_eq!(
                code_search_skips_entry(name, false),
                code_search_skips_dir(name),
                "{name}"
            );
            assert_eq!(
                code_search_skips_entry(name, true),
                code_search_skips_dir(name) || code_search_skips_file(name),
                "{name}"
            );
        }
    }

    #[test]
    fn project_info_skip_list() {
        for (name, skip) in [
            ("vendor", true),
            ("node_modules", true),
            (".git", true),
            (".idea", true),
            ("storage", true),
            ("cache", true),
            ("Cache", false),
            ("src", false),
        ] {
            assert_eq!(project_skips_entry(name), skip, "{name}");
        }
    }

    #[test]
    fn zip_rules() {
        assert_eq!(check_zip_source("plugins/mine"), Ok(()));
        assert_eq!(
            msg(check_zip_source(".ssh")).as_deref(),
            Some("zip_package: the '.ssh' folder is blocked.")
        );
        for (entry, skip) in [
            ("plugin.php", false),
            ("assets/app.js", false),
            (".env", true),
            ("conf/.git/config", true),
            ("certs/server.key", true),
            ("wp-config.php", true),
        ] {
            assert_eq!(zip_skips_entry(entry), skip, "{entry}");
        }
    }

    #[test]
    fn link_target_rules() {
        // (real path a link leads to, blocked, code_search skips, project_info skips)
        for (real, blocked, search, project) in [
            ("src/main.php", false, false, false),
            ("", false, false, false),
            (".env", true, true, true),
            ("config/.env.production.bak", true, true, true),
            ("keys/id_rsa", true, true, true),
            ("certs/site.pem", true, true, true),
            ("wp-config.php~", true, true, true),
            (".ssh/config", true, true, true),
            (".git/config", true, true, true),
            (".Git.bak/HEAD", true, true, true),
            (".ssh", true, true, true),
            ("vendor/autoload.php", false, true, true),
            (".idea/workspace.xml", false, true, true),
            ("storage/logs/app.log", false, false, true),
            ("cache", false, false, true),
            ("src/vendor.php", false, false, false),
        ] {
            assert_eq!(is_blocked_path(real), blocked, "{real}");
            assert_eq!(code_search_skips_path(real), search, "{real}");
            assert_eq!(project_skips_path(real), project, "{real}");
        }
    }

    #[test]
    fn resolve_checked_runs_the_whole_gate() {
        let base = std::env::temp_dir().join(format!("phpclaw-rules-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("ws/.ssh")).unwrap();
        std::fs::create_dir_all(base.join("ws/real")).unwrap();
        std::fs::write(base.join("ws/real/.env"), "K=v").unwrap();
        std::fs::write(base.join("ws/notes.txt"), "n").unwrap();
        std::os::unix::fs::symlink(base.join("ws/real/.env"), base.join("ws/harmless.txt"))
            .unwrap();
        let ws = Workspace::new(base.join("ws"))
            .unwrap()
            .with_follow_symlinks(true);
        let m = |rules, p: &str| resolve_checked(&ws, rules, p).err().map(|e| e.message);
        assert_eq!(m(Rules::FileRead, "notes.txt"), None);
        assert_eq!(
            m(Rules::FileRead, "sub/../x").as_deref(),
            Some("File not found: sub/../x")
        );
        assert_eq!(
            m(Rules::FileRead, ".ssh/../.env").as_deref(),
            Some("Access to '.env' files is blocked.")
        );
        // A symlink with an innocent name is judged by its target.
        assert_eq!(
            m(Rules::FileRead, "harmless.txt").as_deref(),
            Some("Access to '.env' files is blocked.")
        );
        assert_eq!(
            m(Rules::CodeSearch, ".ssh").as_deref(),
            Some("code_search: the '.ssh' folder is blocked.")
        );
        assert_eq!(
            m(
                Rules::FileWrite {
                    allow_php_write: false
                },
                "new/x.php"
            )
            .as_deref(),
            Some("Writing .php files is blocked by default. Enable allowPhpWrite to permit it.")
        );
        assert_eq!(
            m(
                Rules::FileWrite {
                    allow_php_write: false
                },
                "new/x.txt"
            ),
            None
        );
        assert_eq!(
            m(Rules::FileRead, "").as_deref(),
            Some("No file path provided.")
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn dispatch_and_resolved() {
        assert!(check(Rules::FileRead, ".env").is_err());
        assert!(check(Rules::FileEdit, "composer.json").is_err());
        assert!(check(
            Rules::FileWrite {
                allow_php_write: true
            },
            "x.php"
        )
        .is_ok());
        assert!(check(
            Rules::FileWrite {
                allow_php_write: false
            },
            "x.php"
        )
        .is_err());
        assert!(check(Rules::CodeSearch, ".ssh").is_err());
        assert!(check(Rules::ZipPackage, ".aws").is_err());
        let r = Resolved {
            real: "/ws/real/.env".into(),
            display: "link".into(),
            real_relative: "real/.env".into(),
            exists: true,
            is_dir: false,
        };
        assert_eq!(
            check_resolved(Rules::FileRead, &r).unwrap_err().message,
            "Access to '.env' files is blocked."
        );
    }
}
