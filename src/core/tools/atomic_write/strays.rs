//! The sweep of temp files left by killed writers, in the folder a write just renamed into.

use std::ffi::CStr;
use std::fs::File;
use std::os::fd::{AsRawFd as _, BorrowedFd};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::lock::flock;
use crate::core::security::workspace::beneath::{c_name, create_at, stat_at};
use crate::core::tools::code_search::listing::{list_fd, Kind};

/// How old a stray temp file must be before a later write removes it (a live writer holds a
/// lock on its own temp file besides, so a slow one is never swept).
pub const STRAY_AGE: Duration = Duration::from_secs(60);

/// Prefixes of the temp files the tools write through (`.phpclaw-<prefix>-XXXXXX`).
const STRAY_PREFIXES: [&[u8]; 2] = [b".phpclaw-write-", b".phpclaw-edit-"];

/// Whether `name` is one of the tools' temp file names.
fn is_stray_name(name: &[u8]) -> bool {
    STRAY_PREFIXES
        .iter()
        .any(|p| name.starts_with(p) && name.len() == p.len() + 6)
}

/// Remove the tools' temp files in the open folder `dir` (listed from its start: a fresh
/// descriptor) older than [`STRAY_AGE`] that no writer holds (each writer keeps a lock on its
/// own temp file until it is renamed or removed). Best effort.
pub(super) fn sweep(dir: BorrowedFd<'_>) {
    let Some(entries) = list_fd(dir) else {
        return;
    };
    let now = SystemTime::now();
    for (name, kind) in entries {
        if kind != Kind::File || !is_stray_name(&name) {
            continue;
        }
        if let Ok(name) = c_name(&name) {
            remove_if_stray(dir, &name, now);
        }
    }
}

/// Remove `name` when it is a regular file older than [`STRAY_AGE`] that no writer locks.
fn remove_if_stray(dir: BorrowedFd<'_>, name: &CStr, now: SystemTime) {
    let Ok(st) = stat_at(dir, name) else {
        return;
    };
    let (Ok(secs), Ok(nanos)) = (u64::try_from(st.st_mtime), u32::try_from(st.st_mtime_nsec))
    else {
        return;
    };
    let modified = UNIX_EPOCH + Duration::new(secs, nanos);
    let old = now
        .duration_since(modified)
        .is_ok_and(|age| age >= STRAY_AGE);
    if st.st_mode & libc::S_IFMT != libc::S_IFREG || !old {
        return;
    }
    let flags =
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    let Ok(file) = create_at(dir, name, flags, 0).map(File::from) else {
        return;
    };
    // Held until the name is gone.
    if flock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok() {
        // SAFETY: a live folder descriptor and a NUL-terminated name.
        unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) };
    }
}
