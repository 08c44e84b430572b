//! The all-or-nothing write file_write and file_edit share, relative to one folder descriptor.
//!
//! Rules (phpClaw's `AtomicFileWrite` concern, public repository phpclaw-php/phpclaw-monorepo):
//! - the new content goes to a fresh temp file in the target's own folder, named
//!   `.phpclaw-<prefix>-XXXXXX`, created exclusively (never an existing file or a symlink),
//!   mode 0600, which a new file keeps (as the reference's `tempnam()` gives it);
//! - an existing target's permission bits, owner and group are copied to it (best effort);
//! - it is then renamed over the target, so a reader sees the old file or the new one, never a
//!   partial one, and a worker killed at any point leaves the target whole;
//! - on any failure the temp file is removed and the target is left exactly as it was;
//! - messages are the reference's, prefixed with the tool's label (`file_write`, `file_edit`).
//!
//! Added (ours):
//! - no gap between check and use: the target's folder is opened ONCE beneath the workspace
//!   root's descriptor with no link crossed ([`Target::open`]; [`Target::create`] makes missing
//!   folders the same way, one at a time), and every later step names entries relative to that
//!   descriptor (lock, identity check, temp file, rename, removal, stray sweep). A folder on
//!   the path swapped for a link after the check is never followed: the write lands in the
//!   folder that was opened, or fails. (The `tempfile` crate creates by path only, so the temp
//!   file is made here with `openat`: `temp`.)
//! - durable writes, on request ([`How::durable`], php.ini `phpclaw.durable_writes`): the temp
//!   file is flushed to disk (`fsync`) before the rename and the folder after it, so the new
//!   content also survives a power loss. Off by default, like phpClaw, which never syncs: the
//!   rename alone already keeps every reader and every killed worker safe.
//! - concurrent writers: file_edit reads, changes and renames; two workers doing that at once
//!   would each rename a copy made from the same old content, and the first edit would be lost
//!   although it was acknowledged. So both tools hold [`TargetLock`] (an exclusive `flock` on
//!   the file now at the target) from the final read to the rename, and file_edit reads the
//!   file again under it when it changed since it was planned.
//! - strays: a worker killed between creating its temp file and the rename (SIGKILL, the OOM
//!   killer, a php-fpm `request_terminate_timeout`) leaves that file behind, whole or partial,
//!   but never at the target's name; it is recognisable by its name, and the next successful
//!   write into the same folder removes every such file older than [`STRAY_AGE`] that no
//!   writer holds (`strays`).

mod lock;
mod strays;
mod temp;

use std::ffi::CString;
use std::fs::Metadata;
use std::io::{self, Write as _};
use std::os::fd::{AsFd, AsRawFd as _, BorrowedFd, OwnedFd};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};

pub use lock::{TargetLock, LOCK_WAIT};
pub use strays::STRAY_AGE;

use crate::core::security::file_rules::sanitize_for_message;
use crate::core::security::workspace::beneath::{c_name, open_beneath, stat_at};

/// Mode of the folders file_write creates.
pub const DIRECTORY_MODE: libc::mode_t = 0o755;

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

/// Permission bits, owner and group of the file a write replaces (copied to the new one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// Permission bits (`& 0o777`).
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

impl Owner {
    /// The owner of the file `meta` describes.
    pub fn of(meta: &Metadata) -> Owner {
        Owner {
            mode: meta.mode() & 0o777,
            uid: meta.uid(),
            gid: meta.gid(),
        }
    }
}

/// How one tool writes.
#[derive(Debug, Clone, Copy)]
pub struct How<'a> {
    /// The tool's name, the messages' prefix.
    pub label: &'a str,
    /// The temp file's middle part (`write`, `edit`).
    pub prefix: &'a str,
    /// The user's path (quoted sanitised in messages).
    pub shown: &'a str,
    /// Sync the temp file before the rename and the folder after it.
    pub durable: bool,
}

/// A file's name in its folder, the folder open beneath the workspace root.
#[derive(Debug)]
pub struct Target {
    /// The folder: open for reading, or `O_PATH` when it cannot be read (it can still be
    /// written: no listing or sync then).
    dir: OwnedFd,
    /// Whether `dir` can be listed and synced.
    readable: bool,
    /// The file's name in it.
    name: CString,
}

/// `relative` (clean, `/`-separated) as (folder, name).
fn split(relative: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memrchr(b'/', relative) {
        Some(i) => (&relative[..i], &relative[i + 1..]),
        None => (&b""[..], relative),
    }
}

/// Open `folder` (relative, maybe empty) beneath `at` with no link crossed: for reading when
/// it can be read, else `O_PATH` (a write-only folder still takes the temp file).
fn open_folder(at: BorrowedFd<'_>, folder: &[u8]) -> io::Result<(OwnedFd, bool)> {
    match open_beneath(at, folder, libc::O_RDONLY | libc::O_DIRECTORY) {
        Ok(fd) => Ok((fd, true)),
        Err(e) if e.raw_os_error() == Some(libc::EACCES) => {
            open_beneath(at, folder, libc::O_PATH | libc::O_DIRECTORY).map(|fd| (fd, false))
        }
        Err(e) => Err(e),
    }
}

/// `mkdirat(at, name, 0755)`; a folder made meanwhile by someone else counts as made (the open
/// that follows refuses anything that is not a real folder).
fn make_folder(at: BorrowedFd<'_>, name: &[u8]) -> io::Result<()> {
    let name = c_name(name)?;
    // SAFETY: a live descriptor and a NUL-terminated name.
    if unsafe { libc::mkdirat(at.as_raw_fd(), name.as_ptr(), DIRECTORY_MODE) } == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if e.kind() == io::ErrorKind::AlreadyExists {
        Ok(())
    } else {
        Err(e)
    }
}

/// Give `file` the mode, owner and group of `o` (best effort), skipping what it has already:
/// each change dirties the inode, a look at it does not.
fn copy_owner(file: &std::fs::File, o: Owner) {
    let now = file.metadata().ok().map(|m| Owner::of(&m));
    if now.map(|n| n.mode) != Some(o.mode) {
        let _ = file.set_permissions(std::fs::Permissions::from_mode(o.mode));
    }
    if now.map(|n| (n.uid, n.gid)) != Some((o.uid, o.gid)) {
        let _ = std::os::unix::fs::fchown(file, Some(o.uid), Some(o.gid));
    }
}

/// `fsync(fd)`.
fn sync(fd: BorrowedFd<'_>) -> io::Result<()> {
    #[cfg(test)]
    hooks::SYNCS.with(|n| n.set(n.get() + 1));
    // SAFETY: plain syscall on a live descriptor.
    if unsafe { libc::fsync(fd.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

impl Target {
    /// The file `relative` (a clean path relative to the open root `root`, not empty): its
    /// folder opened beneath the root with no link crossed. The file need not exist.
    pub fn open(root: BorrowedFd<'_>, relative: &[u8]) -> io::Result<Target> {
        let (folder, name) = split(relative);
        if name.is_empty() {
            return Err(io::Error::from_raw_os_error(libc::EISDIR));
        }
        let name = c_name(name)?;
        let (dir, readable) = open_folder(root, folder)?;
        Ok(Target {
            dir,
            readable,
            name,
        })
    }

    /// [`Target::open`], making the missing folders on the way first (mode 0755), each one
    /// relative to the folder above it, none through a link or anything but a real folder.
    pub fn create(root: BorrowedFd<'_>, relative: &[u8]) -> io::Result<Target> {
        let e = match Target::open(root, relative) {
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => e,
            other => return other,
        };
        let (folder, name) = split(relative);
        if folder.is_empty() {
            return Err(e);
        }
        let mut cur: Option<OwnedFd> = None;
        for seg in folder.split(|&b| b == b'/') {
            let at = cur.as_ref().map_or(root, AsFd::as_fd);
            let flags = libc::O_PATH | libc::O_DIRECTORY;
            let next = match open_beneath(at, seg, flags) {
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                    make_folder(at, seg)?;
                    open_beneath(at, seg, flags)?
                }
                other => other?,
            };
            cur = Some(next);
        }
        let at = cur.as_ref().map_or(root, AsFd::as_fd);
        let (dir, readable) = open_folder(at, b"")?;
        Ok(Target {
            dir,
            readable,
            name: c_name(name)?,
        })
    }

    /// Lock the file now at the name: see [`lock::lock_at`].
    pub fn lock(&self) -> io::Result<Option<TargetLock>> {
        lock::lock_at(self.dir.as_fd(), &self.name)
    }

    /// The [`Owner`] of the regular file now at the name, if one is there.
    pub fn owner(&self) -> Option<Owner> {
        let st = stat_at(self.dir.as_fd(), &self.name).ok()?;
        (st.st_mode & libc::S_IFMT == libc::S_IFREG).then_some(Owner {
            mode: st.st_mode & 0o777,
            uid: st.st_uid,
            gid: st.st_gid,
        })
    }

    /// Write `content` at the name atomically, with `owner`'s mode, owner and group when given.
    pub fn write(&self, content: &[u8], owner: Option<Owner>, how: &How<'_>) -> Result<(), String> {
        let label = how.label;
        let failed = || {
            format!(
                "{label}: failed to write: {}",
                sanitize_for_message(how.shown)
            )
        };
        let tmp = temp::Temp::create(self.dir.as_fd(), how.prefix).map_err(|e| {
            match e.raw_os_error() {
                Some(libc::EACCES | libc::EPERM | libc::EROFS) => {
                    format!("{label}: cannot write atomically: target directory is not writable.")
                }
                _ => format!("{label}: failed to create temp file for write."),
            }
        })?;
        // From here on, dropping `tmp` removes the temp file: every early return cleans up. The
        // lock on it tells the stray sweep of other writers that it is not a stray.
        let _ = lock::flock(&tmp.file, libc::LOCK_EX | libc::LOCK_NB);
        (&tmp.file).write_all(content).map_err(|_| failed())?;
        if let Some(o) = owner {
            copy_owner(&tmp.file, o);
        }
        if how.durable {
            sync(tmp.file.as_fd()).map_err(|_| failed())?;
        }
        #[cfg(test)]
        hooks::before_rename();
        tmp.rename_to(&self.name).map_err(|_| {
            format!(
                "{label}: failed to finalize write: {}",
                sanitize_for_message(how.shown)
            )
        })?;
        if self.readable {
            if how.durable {
                // Makes the rename itself durable; a folder that cannot be synced changes
                // nothing above.
                let _ = sync(self.dir.as_fd());
            }
            strays::sweep(self.dir.as_fd());
        }
        Ok(())
    }
}

/// Test-only hooks: a step run just before the rename, and a count of `fsync` calls (both per
/// thread, so parallel tests do not see each other's).
#[cfg(test)]
pub(crate) mod hooks {
    use std::cell::{Cell, RefCell};

    thread_local! {
        /// Run once, just before the next rename on this thread.
        static BEFORE_RENAME: RefCell<Option<Box<dyn FnOnce()>>> = RefCell::new(None);
        /// `fsync` calls made on this thread.
        pub static SYNCS: Cell<usize> = const { Cell::new(0) };
    }

    /// Run `step` just before the next rename on this thread.
    pub fn before_next_rename(step: impl FnOnce() + 'static) {
        BEFORE_RENAME.with(|h| *h.borrow_mut() = Some(Box::new(step)));
    }

    pub(super) fn before_rename() {
        if let Some(step) = BEFORE_RENAME.with(|h| h.borrow_mut().take()) {
            step();
        }
    }
}

#[cfg(test)]
mod tests;
