//! Judging one path-like argument, and every entry under a directory read recursively.
//!
//! Rules, in the reference's order (first match wins, its message is the user-facing one):
//! blocked file name (also after stripping backup suffixes), blocked extension, `.env*` name,
//! security directory as a path segment, system path pattern. Each argument is judged three
//! times: as written, lexically normalised against the cwd (`.`/`..` folded), and resolved
//! through symlinks (`realpath` of the path, else of its parent, as the reference does); a
//! resolved directory is also judged with a trailing `/` so `/etc/ssh` matches `/etc/ssh/`.
//! The reference re-checks only segments and patterns after resolving; here every rule is
//! re-checked, so a symlink `notes.txt -> .env` is refused too.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use once_cell::sync::Lazy;
use regex::Regex;
use walkdir::WalkDir;

use super::tables::{BLOCKED_PATH_PATTERNS, RESOLVE_MAX_BYTES, WALK_ENTRY_CAP};
use super::DenialReason;
use crate::core::security::blocked_paths::{
    strip_backup_suffix, EXTENSIONS, FILENAMES, SECURITY_DIRS,
};

/// Why one argument (or one entry under it) is refused, before the command is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathDenial {
    pub reason: DenialReason,
    pub detail: String,
    pub message: String,
}

static PATTERNS: Lazy<Vec<Regex>> = Lazy::new(|| {
    BLOCKED_PATH_PATTERNS
        .iter()
        .filter_map(|p| Regex::new(p).ok())
        .collect()
});

/// PHP `basename()` on a Unix path: trailing slashes dropped, then the part after the last `/`.
pub(crate) fn php_basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => trimmed.get(i + 1..).unwrap_or(""),
        None => trimmed,
    }
}

/// PHP `pathinfo(…, PATHINFO_EXTENSION)`: the text after the basename's last dot.
fn php_extension(path: &str) -> &str {
    let base = php_basename(path);
    match base.rfind('.') {
        Some(i) => base.get(i + 1..).unwrap_or(""),
        None => "",
    }
}

/// The reference's rules on the text of `path`; `shown` is the argument quoted in the
/// system-file message (the reference quotes the token even when the resolved path matched).
pub(crate) fn judge_text(path: &str, shown: &str) -> Option<PathDenial> {
    let deny = |reason, message: String| {
        Some(PathDenial {
            reason,
            detail: shown.to_string(),
            message,
        })
    };
    let lower = path.to_ascii_lowercase();
    let basename = php_basename(&lower).to_string();
    let effective = strip_backup_suffix(&basename);
    let extension = php_extension(&lower).to_string();
    let effective_ext = php_extension(&effective);

    if FILENAMES.contains(&basename.as_str()) || FILENAMES.contains(&effective.as_str()) {
        return deny(
            DenialReason::SensitiveFile,
            format!("Access to '{basename}' is blocked: contains sensitive configuration."),
        );
    }
    let ext_blocked = |e: &str| !e.is_empty() && EXTENSIONS.contains(&e);
    if ext_blocked(&extension) || ext_blocked(effective_ext) {
        return deny(
            DenialReason::SensitiveExtension,
            format!("Access to '.{extension}' files is blocked: may contain secrets."),
        );
    }
    if basename.starts_with(".env") {
        return deny(
            DenialReason::SensitiveFile,
            format!("Access to '{basename}' is blocked: environment files contain secrets."),
        );
    }
    if let Some(segment) = lower
        .split(['/', '\\'])
        .find(|s| !s.is_empty() && SECURITY_DIRS.contains(s))
    {
        return deny(
            DenialReason::SensitiveDirectory,
            format!("Access to files in '{segment}/' is blocked."),
        );
    }
    if PATTERNS.iter().any(|re| re.is_match(&lower)) {
        return deny(
            DenialReason::SensitivePath,
            format!("Access to '{shown}' is blocked: system file."),
        );
    }
    None
}

/// `token` made absolute against `cwd` with `.` and `..` folded away, without touching disk.
pub(crate) fn lexical_absolute(cwd: &Path, token: &str) -> String {
    let mut parts: Vec<String> = Vec::new();
    let joined = cwd.join(token);
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    format!("/{}", parts.join("/"))
}

/// The symlink-free path `token` names, as the reference's `realpath($t) ?: realpath(dirname($t))`
/// (the parent's real path, with the file name put back on, when the file does not exist).
pub(crate) fn resolve(cwd: &Path, token: &str) -> Option<PathBuf> {
    if token.len() > RESOLVE_MAX_BYTES || token.is_empty() {
        return None;
    }
    let joined = cwd.join(token);
    if let Ok(real) = joined.canonicalize() {
        return Some(real);
    }
    let parent = joined.parent()?;
    let real_parent = parent.canonicalize().ok()?;
    match joined.file_name() {
        Some(name) => Some(real_parent.join(name)),
        None => Some(real_parent),
    }
}

/// Where relative arguments resolve, and how much of an absolute path is judged.
///
/// Strict (the reference, used for [`FILE_READING_COMMANDS`](super::FILE_READING_COMMANDS)):
/// the whole absolute path is judged, so nothing can be read from a cwd that sits inside a
/// sensitive directory. Lenient (every other program, which the reference does not check at
/// all): a path that stays under the cwd is judged from the cwd down, so `date +%s` or
/// `ls -la` still work when the process runs in, say, `wp-admin/`.
pub(crate) struct Scope<'a> {
    pub cwd: &'a Path,
    pub strict: bool,
}

impl Scope<'_> {
    /// The text of `abs` to judge: all of it, or its part below the cwd (as `./rest`).
    fn view(&self, abs: &str, canonical: bool) -> String {
        if self.strict {
            return abs.to_string();
        }
        let base = if canonical {
            match self.cwd.canonicalize() {
                Ok(c) => c.to_string_lossy().into_owned(),
                Err(_) => return abs.to_string(),
            }
        } else {
            lexical_absolute(self.cwd, ".")
        };
        self.view_under(abs, &base)
    }

    /// [`Scope::view`] of a real path, with the cwd's real path `base` already known.
    pub(crate) fn view_under(&self, abs: &str, base: &str) -> String {
        if self.strict {
            return abs.to_string();
        }
        let base = base.trim_end_matches('/');
        if base.is_empty() {
            return abs.to_string();
        }
        match abs.strip_prefix(base) {
            Some("") => ".".to_string(),
            Some(rest) if rest.starts_with('/') => format!(".{rest}"),
            _ => abs.to_string(),
        }
    }

    /// Every check for one argument: as written, lexically normalised, then resolved.
    /// An `attached` value (the tail of a short-flag cluster such as `-la`) may well be no
    /// path at all, so it is only resolved when it names something that exists.
    pub(crate) fn judge_argument(&self, token: &str, attached: bool) -> Option<PathDenial> {
        if let Some(d) = judge_text(token, token) {
            return Some(d);
        }
        if token.len() > RESOLVE_MAX_BYTES || token.is_empty() {
            return None;
        }
        if !attached {
            let lexical = lexical_absolute(self.cwd, token);
            if let Some(d) = judge_text(&self.view(&lexical, false), token) {
                return Some(d);
            }
        }
        let real = if attached {
            self.cwd.join(token).canonicalize().ok()?
        } else {
            resolve(self.cwd, token)?
        };
        let text = self.view(&real.to_string_lossy(), true);
        if let Some(d) = judge_text(&text, token) {
            return Some(d);
        }
        if real.is_dir() && !text.ends_with('/') {
            return judge_text(&format!("{text}/"), token);
        }
        None
    }
}

/// Walks directories a recursive read will cover, sharing one entry budget across all of them
/// so many operands cannot multiply the work.
pub(crate) struct Walker {
    budget: usize,
    seen: HashSet<PathBuf>,
}

impl Walker {
    pub(crate) fn new() -> Self {
        Walker {
            budget: WALK_ENTRY_CAP,
            seen: HashSet::new(),
        }
    }

    /// Refuses when anything under `token` (resolved against the cwd) is sensitive, or when
    /// the tree is too big to check within the budget. A token that is not a directory is fine.
    pub(crate) fn check_tree(&mut self, scope: &Scope, token: &str) -> Option<PathDenial> {
        let root = resolve(scope.cwd, token)?;
        if !root.is_dir() || !self.seen.insert(root.clone()) {
            return None;
        }
        for entry in WalkDir::new(&root).follow_links(true).min_depth(1) {
            if self.budget == 0 {
                return Some(PathDenial {
                    reason: DenialReason::SensitiveDirectory,
                    detail: token.to_string(),
                    message: format!(
                        "Recursive read of '{token}' is refused: more than {WALK_ENTRY_CAP} entries to check."
                    ),
                });
            }
            self.budget -= 1;
            // Unreadable entries and symlink loops are skipped: the command cannot read them either.
            let Ok(entry) = entry else { continue };
            let path = entry.path().to_string_lossy().into_owned();
            if let Some(d) = judge_text(&scope.view(&path, true), &path) {
                return Some(d);
            }
            // Below a followed symlink the entry's path says nothing about where it really
            // is (`dir/link/shadow` may be `/etc/shadow`): judge the real path of every entry,
            // with a trailing slash for directories so `/proc` matches `/proc/`.
            if let Ok(real) = entry.path().canonicalize() {
                let shown = real.to_string_lossy().into_owned();
                let mut text = scope.view(&shown, true);
                if entry.file_type().is_dir() && !text.ends_with('/') {
                    text.push('/');
                }
                if let Some(d) = judge_text(&text, &shown) {
                    return Some(d);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn reason(token: &str) -> Option<DenialReason> {
        judge_text(token, token).map(|d| d.reason)
    }

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(PATTERNS.len(), BLOCKED_PATH_PATTERNS.len());
    }

    #[test]
    fn php_basename_and_extension_match_php() {
        for (path, base, ext) in [
            ("a/b/", "b", ""),
            ("/", "", ""),
            ("", "", ""),
            (".env", ".env", "env"),
            ("a.", "a.", ""),
            ("x.tar.gz", "x.tar.gz", "gz"),
            ("dir.d/file", "file", ""),
            ("/etc/", "etc", ""),
        ] {
            assert_eq!(php_basename(path), base, "{path}");
            assert_eq!(php_extension(path), ext, "{path}");
        }
    }

    #[test]
    fn reference_messages_per_rule() {
        for (token, msg) in [
            (
                "wp-config.php",
                "Access to 'wp-config.php' is blocked: contains sensitive configuration.",
            ),
            (
                "secret.pem",
                "Access to '.pem' files is blocked: may contain secrets.",
            ),
            (
                ".env.local",
                "Access to '.env.local' is blocked: environment files contain secrets.",
            ),
            (".git/config", "Access to files in '.git/' is blocked."),
            (
                "/etc/passwd",
                "Access to '/etc/passwd' is blocked: system file.",
            ),
            (
                "/proc/self/environ",
                "Access to '/proc/self/environ' is blocked: system file.",
            ),
            // the extension message names the raw extension even when the stripped one matched
            (
                "server.key.bak",
                "Access to '.bak' files is blocked: may contain secrets.",
            ),
        ] {
            let d = judge_text(token, token).unwrap_or_else(|| panic!("{token} passed"));
            assert_eq!(d.message, msg);
            assert_eq!(d.detail, token);
        }
    }

    #[test]
    fn rule_table() {
        use DenialReason::*;
        for (token, want) in [
            ("WP-CONFIG.PHP", Some(SensitiveFile)),
            ("id_rsa~", Some(SensitiveFile)),
            ("credentials.json.save", Some(SensitiveFile)),
            ("configuration.php.orig", Some(SensitiveFile)),
            ("settings.inc.php", Some(SensitiveFile)),
            (".envrc", Some(SensitiveFile)),
            ("docker-compose.yml", Some(SensitiveFile)),
            ("app.db", Some(SensitiveExtension)),
            ("database.sqlite", Some(SensitiveExtension)),
            ("cert.PEM", Some(SensitiveExtension)),
            (".env", Some(SensitiveExtension)), // pathinfo(".env") is "env", a blocked extension
            (".env.production", Some(SensitiveFile)),
            (".environment", Some(SensitiveFile)),
            ("project/.SSH/x", Some(SensitiveDirectory)),
            (".aws/credentials", Some(SensitiveDirectory)),
            ("wp-admin/index.php", Some(SensitiveDirectory)),
            ("/etc/shadow", Some(SensitivePath)),
            ("/etc/ssh/sshd_config", Some(SensitivePath)),
            ("/etc/ssl/private/x", Some(SensitivePath)),
            ("/sys", None),
            ("/sys/kernel/x", Some(SensitivePath)),
            ("/dev/mem", Some(SensitivePath)),
            ("x/dev/mem", None),
            ("config.env.txt", Some(SensitivePath)),
            ("README.md", None),
            ("/tmp/ordinary-file.txt", None),
            ("/etc", None),
            ("/etc/hostname", None),
        ] {
            assert_eq!(reason(token), want, "{token}");
        }
    }

    #[test]
    fn lexical_normalisation() {
        let cwd = Path::new("/srv/app");
        assert_eq!(
            lexical_absolute(cwd, "../../proc/self/environ"),
            "/proc/self/environ"
        );
        assert_eq!(
            lexical_absolute(cwd, "../../../../../etc/./passwd"),
            "/etc/passwd"
        );
        assert_eq!(lexical_absolute(cwd, "/x/../y"), "/y");
        assert_eq!(lexical_absolute(cwd, "a/./b"), "/srv/app/a/b");
    }

    fn strict(cwd: &Path) -> Scope<'_> {
        Scope { cwd, strict: true }
    }

    #[test]
    fn lenient_scope_judges_below_the_cwd_only() {
        let cwd = Path::new("/var/www/wp-admin");
        let lenient = Scope { cwd, strict: false };
        assert_eq!(lenient.view("/var/www/wp-admin/x", false), "./x");
        assert_eq!(lenient.view("/var/www/wp-admin", false), ".");
        assert_eq!(
            lenient.view("/var/www/wp-adminx", false),
            "/var/www/wp-adminx"
        );
        assert_eq!(lenient.judge_argument("+%s", false), None);
        assert!(lenient.judge_argument("../wp-config.php", false).is_some());
        assert!(lenient.judge_argument("../wp-admin/x", false).is_some());
        assert!(lenient
            .judge_argument("../../../etc/passwd", false)
            .is_some());
        let strict = Scope { cwd, strict: true };
        assert!(strict.judge_argument("+%s", false).is_some());
        // at the root nothing is "below the cwd": the whole path is judged
        let root = Scope {
            cwd: Path::new("/"),
            strict: false,
        };
        assert!(root.judge_argument("dev/mem", false).is_some());
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "phpclaw-shell-paths-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn symlink_to_sensitive_target_is_refused_by_every_rule() {
        let dir = temp_dir("links");
        fs::write(dir.join(".env"), "A=1").unwrap();
        std::os::unix::fs::symlink(dir.join(".env"), dir.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.join("pw")).unwrap();
        std::os::unix::fs::symlink("/etc/ssh", dir.join("sshdir")).unwrap();
        let d = strict(&dir).judge_argument("notes.txt", false).unwrap();
        assert_eq!(d.detail, "notes.txt");
        let d = strict(&dir).judge_argument("pw", false).unwrap();
        assert_eq!(d.reason, DenialReason::SensitivePath);
        assert_eq!(d.message, "Access to 'pw' is blocked: system file.");
        // the directory itself matches `/etc/ssh/` once a trailing slash is added
        assert!(
            strict(&dir).judge_argument("sshdir", false).is_some()
                || !Path::new("/etc/ssh").is_dir()
        );
        // a missing file under a symlinked directory is judged through its real parent
        assert!(
            strict(&dir)
                .judge_argument("sshdir/missing", false)
                .is_some()
                || !Path::new("/etc/ssh").is_dir()
        );
        assert!(strict(&dir).judge_argument("plain.txt", false).is_none());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn walk_finds_nested_secrets_and_respects_the_cap() {
        let dir = temp_dir("walk");
        fs::create_dir_all(dir.join("clean/sub")).unwrap();
        fs::write(dir.join("clean/sub/a.txt"), "x").unwrap();
        fs::create_dir_all(dir.join("dirty/deep/er")).unwrap();
        fs::write(dir.join("dirty/deep/er/id_rsa"), "x").unwrap();
        fs::create_dir_all(dir.join("hidden/.git")).unwrap();
        fs::create_dir_all(dir.join("linked")).unwrap();
        std::os::unix::fs::symlink(dir.join("dirty"), dir.join("linked/to-dirty")).unwrap();
        std::os::unix::fs::symlink(dir.join("linked"), dir.join("linked/loop")).unwrap();

        assert_eq!(Walker::new().check_tree(&strict(&dir), "clean"), None);
        assert_eq!(
            Walker::new().check_tree(&strict(&dir), "clean/sub/a.txt"),
            None
        );
        let d = Walker::new().check_tree(&strict(&dir), "dirty").unwrap();
        assert_eq!(d.reason, DenialReason::SensitiveFile);
        let d = Walker::new().check_tree(&strict(&dir), "hidden").unwrap();
        assert_eq!(d.reason, DenialReason::SensitiveDirectory);
        assert!(Walker::new().check_tree(&strict(&dir), "linked").is_some());
        // a link into a system directory is judged by where it leads, entry by entry
        fs::create_dir_all(dir.join("sys")).unwrap();
        std::os::unix::fs::symlink("/etc", dir.join("sys/etc-link")).unwrap();
        let d = Walker::new().check_tree(&strict(&dir), "sys").unwrap();
        assert!(
            matches!(
                d.reason,
                DenialReason::SensitivePath | DenialReason::SensitiveDirectory
            ),
            "{d:?}"
        );
        fs::create_dir_all(dir.join("proc")).unwrap();
        std::os::unix::fs::symlink("/proc", dir.join("proc/p")).unwrap();
        let d = Walker::new().check_tree(&strict(&dir), "proc").unwrap();
        assert_eq!(d.reason, DenialReason::SensitivePath);

        let big = dir.join("big");
        fs::create_dir_all(&big).unwrap();
        for i in 0..WALK_ENTRY_CAP {
            fs::write(big.join(format!("f{i}")), "").unwrap();
        }
        assert_eq!(
            Walker::new().check_tree(&strict(&dir), "big"),
            None,
            "exactly at the cap"
        );
        fs::write(big.join("one-more"), "").unwrap();
        let d = Walker::new().check_tree(&strict(&dir), "big").unwrap();
        assert!(
            d.message.contains("more than 10000 entries"),
            "{}",
            d.message
        );
        // the budget is shared: a second walk of another clean tree after a big one fails
        let mut w = Walker::new();
        fs::remove_file(big.join("one-more")).unwrap();
        assert_eq!(w.check_tree(&strict(&dir), "big"), None);
        assert!(w.check_tree(&strict(&dir), "clean").is_some());
        // the same tree twice costs nothing the second time
        let mut w = Walker::new();
        assert_eq!(w.check_tree(&strict(&dir), "big"), None);
        assert_eq!(w.check_tree(&strict(&dir), "./big/"), None);
        fs::remove_dir_all(&dir).unwrap();
    }
}
