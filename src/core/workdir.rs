//! The host's working directory, against which relative paths resolve.
//!
//! A thread-safe PHP keeps a working directory per thread (its virtual cwd: `chdir()` in PHP
//! moves it and leaves the process's alone), so the process's own directory is the wrong base
//! there. The bindings install PHP's lookup once at module startup; without one (the core's
//! own tests, a non-PHP host) the process's directory is used.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static LOOKUP: OnceLock<fn() -> Option<PathBuf>> = OnceLock::new();
static REALPATH: OnceLock<fn(&Path) -> Option<PathBuf>> = OnceLock::new();

/// Installs the host's lookup (first call wins; set once at startup, read-only afterwards).
pub fn set_lookup(lookup: fn() -> Option<PathBuf>) {
    let _ = LOOKUP.set(lookup);
}

/// The working directory of the calling thread as the host sees it.
pub fn current() -> Option<PathBuf> {
    match LOOKUP.get() {
        Some(lookup) => lookup(),
        None => std::env::current_dir().ok(),
    }
}

/// Installs the host's `realpath` (first call wins; set once at startup). PHP's answers from
/// its realpath cache, as phpClaw's own `realpath()` calls do, so a tool constructed per
/// request does not pay a system call per path component for its root.
pub fn set_realpath(realpath: fn(&Path) -> Option<PathBuf>) {
    let _ = REALPATH.set(realpath);
}

/// The canonical form of an absolute `path` (symlinks resolved; None when it does not exist),
/// as the host resolves it ([`set_realpath`]), else [`std::fs::canonicalize`].
pub fn realpath(path: &Path) -> Option<PathBuf> {
    match REALPATH.get() {
        Some(realpath) => realpath(path),
        None => std::fs::canonicalize(path).ok(),
    }
}

/// `path` made absolute against [`current`] (unchanged when absolute or empty, or when the
/// working directory is unknown).
pub fn absolute(path: &Path) -> Cow<'_, Path> {
    if path.is_absolute() || path.as_os_str().is_empty() {
        return Cow::Borrowed(path);
    }
    match current() {
        Some(dir) => Cow::Owned(dir.join(path)),
        None => Cow::Borrowed(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_joins_relative_paths_only() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(absolute(Path::new("a/b")), here.join("a/b"));
        assert_eq!(absolute(Path::new("/x/y")), Path::new("/x/y"));
        assert_eq!(absolute(Path::new("")), Path::new(""));
    }
}
