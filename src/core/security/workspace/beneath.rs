//! Files and folders opened beneath an open workspace folder, and the judgement of what was
//! actually opened (never of a path string resolved again later).
//!
//! Rules:
//! - a path inside the workspace is opened relative to the root's descriptor (or a folder's
//!   opened beneath it), crossing no symbolic link and never leaving the root: `openat2` with
//!   `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`, or one
//!   `openat(…, O_NOFOLLOW)` per component for a single name (which cannot leave the folder)
//!   and where `openat2` is unavailable. A component swapped for a link after a check makes
//!   the open fail instead of leading elsewhere;
//! - a link is followed only where the caller asks for it, and only in the last component
//!   ([`open_judged`] with `follow_last`): the whole chain is opened (magic links such as
//!   `/proc/self/fd/N` refused where `openat2` can refuse them), then the OPENED descriptor's
//!   real path (`/proc/self/fd/N`) must lie inside the root, and the caller's rules judge that
//!   real path. A descriptor whose path cannot be told (no `/proc`, a deleted file, a pipe) is
//!   refused;
//! - a regular file with more than one hard link is refused unless [`HardLinks::Allow`]: another
//!   name of the same file may be a secret (`.env`) or lie outside the workspace, and nothing
//!   tells which name is the real one;
//! - every open is close-on-exec, never takes a controlling terminal and never blocks on a FIFO
//!   (which is then refused as not a regular file).
//!
//! Judging the descriptor makes a swap between check and read harmless: whatever the name leads
//! to when it is opened is what is judged, and then read through the same descriptor.

use std::ffi::{CStr, CString};
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once `openat2` proved unusable here (old kernel, or refused by a seccomp filter).
static OPENAT2_UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// Flags every open here adds to `flags`: close-on-exec always; no controlling terminal and no
/// blocking on a FIFO unless the open is `O_PATH` (which opens nothing, and with which
/// `openat2` accepts no other flag).
fn with_base(flags: libc::c_int) -> libc::c_int {
    if flags & libc::O_PATH != 0 {
        flags | libc::O_CLOEXEC
    } else {
        flags | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK
    }
}

/// Whether regular files with more than one hard link may be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HardLinks {
    /// Refused (the default of every tool).
    Refuse,
    /// Allowed (the tools' `allowHardLinks` constructor option).
    Allow,
}

impl HardLinks {
    /// `Allow` when `allow`, else `Refuse`.
    pub fn allowed(allow: bool) -> HardLinks {
        if allow {
            HardLinks::Allow
        } else {
            HardLinks::Refuse
        }
    }
}

/// What is to be opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// A regular file, for reading.
    File,
    /// A folder, for listing.
    Dir,
    /// Anything, only to be named (an `O_PATH` descriptor: nothing is read through it).
    Any,
}

/// Why something was not opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Nothing there (or a parent is not a folder).
    Missing,
    /// A symbolic link where none may be (or `..`, or an escape attempt).
    Symlink,
    /// Not a regular file where one is wanted (a folder, FIFO, socket, device).
    NotAFile,
    /// Not a folder where one is wanted.
    NotADirectory,
    /// A followed link led out of the workspace (or to something whose path cannot be told).
    Outside,
    /// A followed link led to a path the caller's rules block.
    Blocked,
    /// A regular file with more than one hard link.
    HardLink,
    /// The system refused (permissions, a name too long, a NUL byte).
    Unreadable,
}

impl Refused {
    /// The sandbox's refusal kind for this, so each tool words it as its other refusals (a
    /// followed link to a blocked path counts as a refused link).
    pub fn kind(self) -> super::PathErrorKind {
        use super::PathErrorKind as K;
        match self {
            Refused::Missing | Refused::NotADirectory => K::NotFound,
            Refused::Symlink | Refused::Blocked => K::Symlink,
            Refused::NotAFile => K::NotAFile,
            Refused::Outside => K::Traversal,
            Refused::HardLink => K::HardLink,
            Refused::Unreadable => K::Unreadable,
        }
    }

    /// What an open's error means.
    pub fn from_io(e: &io::Error) -> Refused {
        match e.raw_os_error() {
            Some(libc::ENOENT | libc::ENOTDIR) => Refused::Missing,
            Some(libc::ELOOP | libc::EXDEV) => Refused::Symlink,
            Some(libc::ENXIO | libc::ENODEV | libc::EISDIR) => Refused::NotAFile,
            _ => Refused::Unreadable,
        }
    }
}

/// An opened and judged entry.
#[derive(Debug)]
pub struct Opened {
    /// The open file or folder (read-only; an `O_PATH` descriptor for [`Want::Any`]).
    pub file: File,
    /// Its metadata, from `fstat` of that descriptor.
    pub meta: Metadata,
    /// Its real path relative to the root, `/`-separated (`""` for the root itself). Without
    /// a followed link this is the relative path given.
    pub real_relative: Vec<u8>,
}

/// Whether this process uses `openat2` (false once it proved unavailable).
pub fn openat2_in_use() -> bool {
    cfg!(target_os = "linux") && !OPENAT2_UNAVAILABLE.load(Ordering::Relaxed)
}

/// Whether `relative` is a path this module opens: empty (the folder itself), or segments that
/// are neither empty, `.` nor `..`, no leading `/`, no NUL.
fn is_plain_relative(relative: &[u8]) -> bool {
    relative.is_empty()
        || (memchr::memchr(0, relative).is_none()
            && relative
                .split(|&b| b == b'/')
                .all(|s| !s.is_empty() && s != b"." && s != b".."))
}

/// `bytes` as a C string (a NUL byte inside is `EINVAL`).
pub fn c_name(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// `f` of `bytes` NUL-terminated: on the stack for names up to `NAME_MAX` (a walk opens one
/// name per file: no allocation for it), else through [`c_name`].
fn with_c_name<T>(bytes: &[u8], f: impl FnOnce(&CStr) -> io::Result<T>) -> io::Result<T> {
    let mut buf = [0u8; 256];
    if bytes.len() >= buf.len() {
        return f(&c_name(bytes)?);
    }
    buf[..bytes.len()].copy_from_slice(bytes);
    let name = CStr::from_bytes_with_nul(&buf[..=bytes.len()])
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    f(name)
}

/// `openat(dir, name, flags)`.
fn openat(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    create_at(dir, name, flags, 0)
}

/// `openat(dir, name, flags, mode)`, retried when a signal interrupts it (`mode` counts only
/// with `O_CREAT`). No flag is added: the caller says which.
pub fn create_at(
    dir: BorrowedFd<'_>,
    name: &CStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    loop {
        // SAFETY: a live descriptor and a NUL-terminated name; the mode is read only with
        // O_CREAT.
        let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode) };
        if fd >= 0 {
            // SAFETY: a fresh descriptor nobody else owns.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `openat2(dir, name, flags, resolve)`; `None` when `openat2` cannot be used here (the caller
/// then opens another way).
#[cfg(target_os = "linux")]
pub(super) fn openat2(
    dir: BorrowedFd<'_>,
    name: &CStr,
    flags: libc::c_int,
    resolve: u64,
) -> Option<io::Result<OwnedFd>> {
    if OPENAT2_UNAVAILABLE.load(Ordering::Relaxed) {
        return None;
    }
    // SAFETY: open_how is plain data; zero is "no flags, no mode".
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.resolve = resolve;
    let mut again = 0;
    loop {
        // SAFETY: a live directory descriptor, a NUL-terminated name, a correctly sized struct.
        let r = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                name.as_ptr(),
                &raw const how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if r >= 0 {
            let fd = i32::try_from(r).ok()?;
            // SAFETY: a fresh descriptor nobody else owns.
            return Some(Ok(unsafe { OwnedFd::from_raw_fd(fd) }));
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error().unwrap_or(0) {
            // No such call (old kernel), refused by a filter, or flags this kernel does not know.
            libc::ENOSYS | libc::EPERM | libc::E2BIG | libc::EINVAL => {
                OPENAT2_UNAVAILABLE.store(true, Ordering::Relaxed);
                return None;
            }
            libc::EINTR => {}
            // A rename raced the resolution; the kernel asks to try again.
            libc::EAGAIN if again < 3 => again += 1,
            _ => return Some(Err(e)),
        }
    }
}

/// Without `openat2` every caller opens another way.
#[cfg(not(target_os = "linux"))]
pub(super) fn openat2(
    _dir: BorrowedFd<'_>,
    _name: &CStr,
    _flags: libc::c_int,
    _resolve: u64,
) -> Option<io::Result<OwnedFd>> {
    let _ = &OPENAT2_UNAVAILABLE;
    None
}

#[cfg(target_os = "linux")]
const RESOLVE_NO_LINKS: u64 =
    libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
#[cfg(target_os = "linux")]
const RESOLVE_NO_MAGIC: u64 = libc::RESOLVE_NO_MAGICLINKS;
#[cfg(not(target_os = "linux"))]
const RESOLVE_NO_LINKS: u64 = 0;
#[cfg(not(target_os = "linux"))]
const RESOLVE_NO_MAGIC: u64 = 0;

/// The file type bits of an open descriptor.
fn fd_type(fd: BorrowedFd<'_>) -> io::Result<libc::mode_t> {
    // SAFETY: an all-zero `stat` is a valid value for the kernel to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a live descriptor (O_PATH ones included) and a writable struct.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.st_mode & libc::S_IFMT)
}

/// `openat(dir, name, flags | O_NOFOLLOW)`, a link where a folder is asked for told as a link
/// (`ELOOP`, as `openat2` tells it) rather than as not a folder.
fn openat_no_link(dir: BorrowedFd<'_>, name: &CStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    openat(dir, name, flags | libc::O_NOFOLLOW).map_err(|e| {
        if e.raw_os_error() == Some(libc::ENOTDIR) && is_link_at(dir, name) {
            io::Error::from_raw_os_error(libc::ELOOP)
        } else {
            e
        }
    })
}

/// `fstatat(dir, name)` of the entry itself (a link is not followed).
pub fn stat_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value for the kernel to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a live descriptor, a NUL-terminated name, a writable struct.
    let r = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if r == 0 {
        Ok(st)
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether `name` in the open folder `dir` is a symbolic link (not followed).
fn is_link_at(dir: BorrowedFd<'_>, name: &CStr) -> bool {
    stat_at(dir, name).is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFLNK)
}

/// Open `relative` beneath `dir` with `flags`, crossing no symbolic link (the last component
/// included), no `..`, never leaving `dir`. An empty `relative` opens `dir` itself.
pub fn open_beneath(
    dir: BorrowedFd<'_>,
    relative: &[u8],
    flags: libc::c_int,
) -> io::Result<OwnedFd> {
    if !is_plain_relative(relative) {
        return Err(io::Error::from_raw_os_error(libc::EXDEV));
    }
    if relative.is_empty() {
        return openat(dir, c".", with_base(flags));
    }
    // One plain name (no `/`, `.` or `..`) opened without following a link cannot leave `dir`,
    // and plain `openat` skips `RESOLVE_BENEATH`'s final check, which takes the kernel's
    // global mount lock on every open (walks open each file by name in its own folder).
    if memchr::memchr(b'/', relative).is_none() {
        return open_beneath_stepwise(dir, relative, flags);
    }
    let name = c_name(relative)?;
    if let Some(r) = openat2(dir, &name, with_base(flags), RESOLVE_NO_LINKS) {
        return r;
    }
    open_beneath_stepwise(dir, relative, flags)
}

/// [`open_beneath`] without `openat2`: one component at a time, none of them followed if it is
/// a link (`relative` is plain and not empty).
fn open_beneath_stepwise(
    dir: BorrowedFd<'_>,
    relative: &[u8],
    flags: libc::c_int,
) -> io::Result<OwnedFd> {
    let mut cur: Option<OwnedFd> = None;
    let mut segments = relative.split(|&b| b == b'/').peekable();
    while let Some(seg) = segments.next() {
        let at = cur.as_ref().map_or(dir, AsFd::as_fd);
        if segments.peek().is_none() {
            let fd = with_c_name(seg, |seg| openat_no_link(at, seg, with_base(flags)))?;
            // With O_PATH, O_NOFOLLOW opens a link itself: refuse it.
            if flags & libc::O_PATH != 0 && fd_type(fd.as_fd())? == libc::S_IFLNK {
                return Err(io::Error::from_raw_os_error(libc::ELOOP));
            }
            return Ok(fd);
        }
        let next = with_c_name(seg, |seg| {
            openat_no_link(at, seg, libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC)
        })?;
        cur = Some(next);
    }
    Err(io::Error::from_raw_os_error(libc::ENOENT))
}

/// Open `relative` beneath `dir`, following a symbolic link in its LAST component (a chain of
/// them, to anywhere: the caller judges where the descriptor really is), never a magic link
/// where `openat2` can tell; every folder before it must be a plain folder beneath `dir`.
pub fn open_following(
    dir: BorrowedFd<'_>,
    relative: &[u8],
    flags: libc::c_int,
) -> io::Result<OwnedFd> {
    if relative.is_empty() || !is_plain_relative(relative) {
        return Err(io::Error::from_raw_os_error(libc::EXDEV));
    }
    let (parent, name) = match memchr::memrchr(b'/', relative) {
        Some(i) => (&relative[..i], &relative[i + 1..]),
        None => (&b""[..], relative),
    };
    let parent_fd = if parent.is_empty() {
        None
    } else {
        Some(open_beneath(dir, parent, libc::O_PATH | libc::O_DIRECTORY)?)
    };
    let at = parent_fd.as_ref().map_or(dir, AsFd::as_fd);
    with_c_name(name, |name| {
        match openat2(at, name, with_base(flags), RESOLVE_NO_MAGIC) {
            Some(r) => r,
            None => openat(at, name, with_base(flags)),
        }
    })
}

/// The absolute path the kernel gives for an open descriptor (`/proc/self/fd/N`); None when it
/// cannot be told: no `/proc`, a deleted file, a pipe or socket, a path outside this process's
/// root.
#[cfg(target_os = "linux")]
pub fn real_path(fd: BorrowedFd<'_>) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
    let path = std::fs::read_link(link).ok()?.into_os_string().into_vec();
    (path.first() == Some(&b'/') && !path.ends_with(b" (deleted)")).then_some(path)
}

/// Elsewhere no descriptor's path is told, so no link is ever followed.
#[cfg(not(target_os = "linux"))]
pub fn real_path(_fd: BorrowedFd<'_>) -> Option<Vec<u8>> {
    None
}

/// `real` relative to `root` when it is `root` itself or below it (compared component-wise:
/// `/ws2` is not inside `/ws`), `/`-separated; None otherwise.
pub fn relative_inside<'a>(root: &[u8], real: &'a [u8]) -> Option<&'a [u8]> {
    let root = match root {
        [rest @ .., b'/'] if !rest.is_empty() => rest,
        r => r,
    };
    if root.is_empty() || root == b"/" {
        return None;
    }
    let rest = real.strip_prefix(root)?;
    if rest.is_empty() {
        return Some(rest);
    }
    rest.strip_prefix(b"/")
}

/// Open an open descriptor's file again with `flags` (through `/proc/self/fd/N`: the same
/// file, whatever its names are now), checking it is the same device and inode.
#[cfg(target_os = "linux")]
fn reopen(file: &File, meta: &Metadata, flags: libc::c_int) -> io::Result<File> {
    let path = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
    // SAFETY: a NUL-terminated path; the mode is ignored without O_CREAT.
    let fd = unsafe { libc::open(path.as_ptr(), with_base(flags), 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let again = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let m = again.metadata()?;
    if m.dev() != meta.dev() || m.ino() != meta.ino() {
        return Err(io::Error::from_raw_os_error(libc::ESTALE));
    }
    Ok(again)
}

/// Without `/proc/self/fd` nothing is followed (see [`real_path`]), so nothing is reopened.
#[cfg(not(target_os = "linux"))]
fn reopen(_file: &File, _meta: &Metadata, _flags: libc::c_int) -> io::Result<File> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// Open `relative` beneath `dir` (the open root, whose canonical path is `root`) as `want`, and
/// judge what was opened:
/// - without `follow_last`, no link anywhere in the path (see [`open_beneath`]);
/// - with it, a link in the last component is followed, but only to an `O_PATH` descriptor
///   (opening the target cannot act on it: no device or FIFO is really opened yet); that
///   descriptor's real path must be inside `root`, `blocked` must not refuse it (relative to
///   the root), and only then is the same file opened for reading through that descriptor;
/// - the type must be what is wanted;
/// - a regular file with more than one hard link is refused unless `hard_links` allows it.
pub fn open_judged(
    dir: BorrowedFd<'_>,
    root: &[u8],
    relative: &[u8],
    follow_last: bool,
    want: Want,
    hard_links: HardLinks,
    blocked: &dyn Fn(&[u8]) -> bool,
) -> Result<Opened, Refused> {
    let (file, meta, real) =
        open_judged_file(dir, root, relative, follow_last, want, hard_links, blocked)?;
    Ok(Opened {
        file,
        meta,
        real_relative: real.unwrap_or_else(|| relative.to_vec()),
    })
}

/// [`open_judged`] giving the real path back only when a link was followed (a walk reading
/// each file it lists needs none: nothing is allocated for it).
pub fn open_judged_file(
    dir: BorrowedFd<'_>,
    root: &[u8],
    relative: &[u8],
    follow_last: bool,
    want: Want,
    hard_links: HardLinks,
    blocked: &dyn Fn(&[u8]) -> bool,
) -> Result<(File, Metadata, Option<Vec<u8>>), Refused> {
    let flags = match want {
        Want::File => libc::O_RDONLY,
        Want::Dir => libc::O_RDONLY | libc::O_DIRECTORY,
        Want::Any => libc::O_PATH,
    };
    let opened = if follow_last {
        open_following(dir, relative, libc::O_PATH)
    } else {
        open_beneath(dir, relative, flags)
    };
    let file = File::from(opened.map_err(|e| Refused::from_io(&e))?);
    let meta = file.metadata().map_err(|_| Refused::Unreadable)?;
    let mut real_relative = None;
    if follow_last {
        let real = real_path(file.as_fd()).ok_or(Refused::Outside)?;
        let inside = relative_inside(root, &real).ok_or(Refused::Outside)?;
        if blocked(inside) {
            return Err(Refused::Blocked);
        }
        real_relative = Some(inside.to_vec());
    }
    match want {
        Want::File if !meta.is_file() => return Err(Refused::NotAFile),
        Want::Dir if !meta.is_dir() => return Err(Refused::NotADirectory),
        _ => {}
    }
    if meta.is_file() && meta.nlink() > 1 && hard_links == HardLinks::Refuse {
        return Err(Refused::HardLink);
    }
    let file = if follow_last && want != Want::Any {
        reopen(&file, &meta, flags).map_err(|e| Refused::from_io(&e))?
    } else {
        file
    };
    Ok((file, meta, real_relative))
}

#[cfg(test)]
#[path = "beneath_tests.rs"]
mod tests;
