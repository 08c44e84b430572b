//! The temp file a write goes through, created and renamed relative to the target's open
//! folder (`tempfile` creates by path only, which would look the folder up again by name).

use std::ffi::{CStr, CString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd as _, BorrowedFd};

use crate::core::security::workspace::beneath::{c_name, create_at};

/// Random characters at the end of a temp file's name (`[A-Za-z0-9]`, as `tempfile` gives).
const RANDOM_CHARS: usize = 6;

/// Names tried before giving up when each one is taken already.
const TRIES: usize = 64;

/// A temp file in an open folder, removed when dropped unless renamed.
#[derive(Debug)]
pub(super) struct Temp<'a> {
    /// Its folder.
    dir: BorrowedFd<'a>,
    /// Its name there.
    name: CString,
    /// The file, open for writing.
    pub file: File,
    /// Renamed: nothing to remove.
    renamed: bool,
}

impl<'a> Temp<'a> {
    /// A new file `.phpclaw-<prefix>-XXXXXX` in `dir`, mode 0600, created exclusively: an
    /// existing entry of that name (a link included) is never opened; another name is tried.
    pub fn create(dir: BorrowedFd<'a>, prefix: &str) -> io::Result<Temp<'a>> {
        let flags =
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        for _ in 0..TRIES {
            let mut name = format!(".phpclaw-{prefix}-");
            name.extend(std::iter::repeat_with(fastrand::alphanumeric).take(RANDOM_CHARS));
            let name = c_name(name.as_bytes())?;
            match create_at(dir, &name, flags, 0o600) {
                Ok(fd) => {
                    return Ok(Temp {
                        dir,
                        name,
                        file: File::from(fd),
                        renamed: false,
                    })
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::from(io::ErrorKind::AlreadyExists))
    }

    /// Rename it over `target` in the same folder.
    pub fn rename_to(mut self, target: &CStr) -> io::Result<()> {
        let fd = self.dir.as_raw_fd();
        // SAFETY: a live folder descriptor and two NUL-terminated names.
        if unsafe { libc::renameat(fd, self.name.as_ptr(), fd, target.as_ptr()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        self.renamed = true;
        Ok(())
    }
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if !self.renamed {
            // SAFETY: a live folder descriptor and a NUL-terminated name.
            unsafe { libc::unlinkat(self.dir.as_raw_fd(), self.name.as_ptr(), 0) };
        }
    }
}
