//! The lock both tools hold on the file at a target from their last read to the rename.

use std::ffi::CStr;
use std::fs::{File, Metadata};
use std::io::{self, ErrorKind};
use std::os::fd::{AsRawFd as _, BorrowedFd};
use std::os::unix::fs::MetadataExt as _;
use std::time::{Duration, Instant};

use crate::core::security::workspace::beneath::{create_at, stat_at};

/// How long [`lock_at`] waits for a lock another process holds (the tools hold theirs only
/// while they write; a site's own process may hold one for longer).
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// An exclusive `flock` on the file now at a target, held until dropped.
#[derive(Debug)]
pub struct TargetLock {
    /// The locked file, open for reading.
    pub file: File,
    /// Its metadata, taken once the lock was held.
    pub meta: Metadata,
}

/// Lock the file now at `name` in the open folder `dir` (a rename may replace it while the
/// lock is awaited: the lock is then taken again on the new one). None when no file is there;
/// Err when it cannot be opened for reading (a link there included: it is not followed), or
/// not locked within [`LOCK_WAIT`] (`ErrorKind::WouldBlock`).
pub fn lock_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Option<TargetLock>> {
    let deadline = Instant::now() + LOCK_WAIT;
    let flags =
        libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    loop {
        let file = match create_at(dir, name, flags, 0) {
            Ok(fd) => File::from(fd),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        lock_until(&file, deadline)?;
        let meta = file.metadata()?;
        match stat_at(dir, name) {
            Ok(now) if now.st_dev == meta.dev() && now.st_ino == meta.ino() => {
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
fn lock_until(file: &File, deadline: Instant) -> io::Result<()> {
    let mut pause = Duration::from_millis(1);
    loop {
        match flock(file, libc::LOCK_EX | libc::LOCK_NB) {
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let now = Instant::now();
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
pub(super) fn flock(file: &File, op: libc::c_int) -> io::Result<()> {
    loop {
        // SAFETY: plain syscall on a descriptor `file` owns for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
