//! The all-or-nothing write file_write and file_edit share, and the creation of missing parent
//! folders for file_write.
//!
//! Rules (phpClaw's `AtomicFileWrite` concern, public repository phpclaw-php/phpclaw-monorepo):
//! - the new content goes to a fresh temp file in the target's own folder, named
//!   `.phpclaw-<prefix>-XXXXXX`, created exclusively (never an existing file or a symlink);
//! - an existing target's permission bits, owner and group are copied to it (best effort);
//! - the temp file is flushed to disk (`fsync`) and only then renamed over the target, so a
//!   reader sees the old file or the new one, never a partial one; the folder is synced after;
//! - on any failure the temp file is removed and the target is left exactly as it was;
//! - a new file keeps the temp file's mode, 0600, as the reference's `tempnam()` gives it;
//! - messages are the reference's, prefixed with the tool's label (`file_write`, `file_edit`).
//!
//! Added (ours): concurrent writers. file_edit reads, changes and renames; two workers doing
//! that at once would each rename a copy made from the same old content, and the first edit
//! would be lost although it was acknowledged. So both tools hold [`TargetLock`] (an exclusive
//! `flock` on the file now at the target) from the final read to the rename, and file_edit
//! reads the file again under it when it changed since it was planned.
//!
//! A worker killed between creating its temp file and the rename (SIGKILL, the OOM killer, a
//! php-fpm `request_terminate_timeout`) leaves that file behind, whole or partial, but never at
//! the target's name: it is recognisable by its name (`.phpclaw-write-XXXXXX`,
//! `.phpclaw-edit-XXXXXX`), and the next successful write into the same folder removes every
//! such file older than [`STRAY_AGE`] that no writer holds ([`sweep_strays`]).

use std::fs::{self, File, Metadata};
use std::io::{ErrorKind, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::{
    DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _, PermissionsExt as _,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::core::security::file_rules::sanitize_for_message;

/// Mode of the folders file_write creates.
pub const DIRECTORY_MODE: u32 = 0o755;

/// How old a stray temp file must be before a later write removes it (a live writer holds a
/// lock on its own temp file besides, so a slow one is never swept).
pub const STRAY_AGE: Duration = Duration::from_secs(60);

/// How long [`lock_target`] waits for a lock another process holds (the tools hold theirs only
/// while they write; a site's own process may hold one for longer).
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Prefixes of the temp files the tools write through (`.phpclaw-<prefix>-XXXXXX`).
const STRAY_PREFIXES: [&[u8]; 2] = [b".phpclaw-write-", b".phpclaw-edit-"];

/// What identifies one version of a file: device, inode, size and modification time.
pub type Stamp = (u64, u64, u64, i64, i64);

/// The [`Stamp`] of `meta`.
pub fn stamp(meta: &Metadata) -> Stamp {
    (
        meta.dev(),
        meta.ino(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
    )
}

/// An exclusive `flock` on the file now at a target, held until dropped.
#[derive(Debug)]
pub struct TargetLock {
    /// The locked file, open for reading.
    pub file: File,
    /// Its metadata, taken once the lock was held.
    pub meta: Metadata,
}

/// Lock the file now at `target` (a rename may replace it while the lock is awaited: the lock
/// is then taken again on the new one). None when no file is there; Err when it cannot be
/// opened for reading, or not locked within [`LOCK_WAIT`] (`ErrorKind::WouldBlock`).
pub fn lock_target(target: &Path) -> std::io::Result<Option<TargetLock>> {
    let deadline = std::time::Instant::now() + LOCK_WAIT;
    loop {
        let file = match fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(target)
        {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        lock_until(&file, deadline)?;
        let meta = file.metadata()?;
        match fs::symlink_metadata(target) {
            Ok(now) if now.dev() == meta.dev() && now.ino() == meta.ino() => {
                return Ok(Some(TargetLock { file, meta }))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
            // Replaced while we waited: lock the new one.
            Ok(_) => {}
        }
    }
}

/// An exclusive lock on `file`, polled until `deadline`.
fn lock_until(file: &File, deadline: std::time::Instant) -> std::io::Result<()> {
    let mut pause = Duration::from_millis(1);
    loop {
        match flock(file, libc::LOCK_EX | libc::LOCK_NB) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let now = std::time::Instant::now();
                if now >= deadline {
                    return Err(e);
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// `flock(file, op)`, retried when a signal interrupts it.
fn flock(file: &File, op: libc::c_int) -> std::io::Result<()> {
    loop {
        // SAFETY: plain syscall on a descriptor `file` owns for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Remove the tools' temp files in `dir` older than [`STRAY_AGE`] that no writer holds (each
/// writer keeps a lock on its own temp file until it is renamed or removed). Best effort.
pub fn sweep_strays(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = std::os::unix::ffi::OsStrExt::as_bytes(name.as_os_str());
        if !STRAY_PREFIXES
            .iter()
            .any(|p| name.starts_with(p) && name.len() == p.len() + 6)
        {
            continue;
        }
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= STRAY_AGE);
        if !meta.is_file() || !old {
            continue;
        }
        let Ok(file) = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(&path)
        else {
            continue;
        };
        if flock(&file, libc::LOCK_EX | libc::LOCK_NB).is_ok() {
            let _ = fs::remove_file(&path);
        }
    }
}

/// Write `content` to `target` atomically. `shown` is the user's path (quoted sanitised in
/// messages), `label` the tool name, `prefix` the temp file's middle part (`write`, `edit`).
pub fn write_atomically(
    target: &Path,
    content: &[u8],
    shown: &str,
    label: &str,
    prefix: &str,
) -> Result<(), String> {
    let s = sanitize_for_message(shown);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Err(format!("{label}: failed to create temp file for write.")),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".phpclaw-{prefix}-"))
        .rand_bytes(6)
        .tempfile_in(dir)
        .map_err(|e| match e.kind() {
            ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
                format!("{label}: cannot write atomically: target directory is not writable.")
            }
            _ => format!("{label}: failed to create temp file for write."),
        })?;
    // From here on, dropping `tmp` removes the temp file: every early return cleans up. The
    // lock on it tells [`sweep_strays`] of other writers that it is not a stray.
    let _ = flock(tmp.as_file(), libc::LOCK_EX | libc::LOCK_NB);
    tmp.write_all(content)
        .and_then(|()| tmp.flush())
        .map_err(|_| format!("{label}: failed to write: {s}"))?;
    if let Ok(meta) = fs::metadata(target) {
        let file = tmp.as_file();
        let _ = file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o777));
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    }
    tmp.as_file()
        .sync_all()
        .map_err(|_| format!("{label}: failed to write: {s}"))?;
    tmp.persist(target)
        .map_err(|_| format!("{label}: failed to finalize write: {s}"))?;
    // Make the rename itself durable; a folder that cannot be synced changes nothing above.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    sweep_strays(dir);
    Ok(())
}

/// Create the missing folders above `target` one at a time (mode 0755), refusing to pass
/// through anything that is not a real folder (a symlink planted since the check included).
pub fn ensure_parent_directory(target: &Path) -> Result<(), String> {
    let Some(dir) = target.parent() else {
        return Ok(());
    };
    let cannot = || {
        format!(
            "Could not create directory: {}",
            sanitize_for_message(&dir.to_string_lossy())
        )
    };
    if let Ok(meta) = fs::symlink_metadata(dir) {
        return if meta.is_dir() { Ok(()) } else { Err(cannot()) };
    }
    let mut missing: Vec<PathBuf> = Vec::new();
    let mut cur = dir;
    loop {
        match fs::symlink_metadata(cur) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => return Err(cannot()),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                missing.push(cur.to_path_buf());
                match cur.parent() {
                    Some(p) if !p.as_os_str().is_empty() => cur = p,
                    _ => return Err(cannot()),
                }
            }
            Err(_) => return Err(cannot()),
        }
    }
    let mut builder = fs::DirBuilder::new();
    builder.mode(DIRECTORY_MODE);
    for p in missing.iter().rev() {
        match builder.create(p) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                // Someone else made it meanwhile: fine if it is a real folder.
                match fs::symlink_metadata(p) {
                    Ok(meta) if meta.is_dir() => {}
                    _ => return Err(cannot()),
                }
            }
            Err(_) => return Err(cannot()),
        }
    }
    Ok(())
}
