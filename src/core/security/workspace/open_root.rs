//! The workspace root kept open between calls, and files opened beneath it in one kernel call.
//!
//! Resolving the root (`realpath`) and inspecting every path component with `lstat` costs a
//! few system calls per segment on every read. This module removes them from the common case
//! without moving the sandbox's line:
//! - a root is validated once by [`Workspace::new`] and then held as an `O_PATH` descriptor in
//!   a small process-wide table ([`MAX_OPEN_ROOTS`] entries) keyed by the root as given; each
//!   later use costs one `stat` of that path, and an entry whose (device, inode) no longer
//!   matches (the folder was removed, renamed or replaced) is dropped and built again, so a
//!   changed root is seen exactly as the full resolution would see it;
//! - on Linux, [`OpenRoot::open_file`] opens a relative path with `openat2` relative to that
//!   descriptor and `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`: the kernel
//!   resolves and opens in one call and itself refuses any symlink (final or not), any `..`
//!   and any escape;
//! - whatever is not the plain case (no `openat2` on this kernel or under this seccomp profile,
//!   any error, anything but a regular file) answers None: the caller then runs the full walk,
//!   which gives the exact refusal message. So this path can only accept what the walk accepts.
//!
//! The table holds no PHP value and at most [`MAX_OPEN_ROOTS`] descriptors (close-on-exec).

use std::fs::{File, Metadata};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::sync::{Arc, Mutex, PoisonError};

use super::beneath::{self, HardLinks, Opened, Refused, Want};
use super::{RootError, Workspace};

pub use super::beneath::openat2_in_use;

/// Most roots kept open at once (a process rarely uses more than one or two).
pub const MAX_OPEN_ROOTS: usize = 16;

/// Open roots, oldest first.
static OPEN_ROOTS: Mutex<Vec<Arc<OpenRoot>>> = Mutex::new(Vec::new());

/// A validated workspace root, with a descriptor on its directory when one could be opened.
#[derive(Debug)]
pub struct OpenRoot {
    /// The root as given (the table's key).
    given: String,
    /// The validated sandbox (its root is canonical).
    ws: Workspace,
    /// The canonical root as text.
    root: String,
    /// `O_PATH` descriptor on the root, and the (device, inode) it had when opened.
    dir: Option<(OwnedFd, u64, u64)>,
}

impl OpenRoot {
    /// The root for `given`: the open one when a `stat` of `given` still finds the same folder,
    /// else validated by [`Workspace::new`] (same refusals) and opened again.
    pub fn get(given: &str) -> Result<Arc<OpenRoot>, RootError> {
        // A relative root is under the host's working directory (per thread in a thread-safe
        // PHP): the table keys and stats it absolute; refusals still show it as given.
        let shown = given;
        let absolute = crate::core::workdir::absolute(std::path::Path::new(given))
            .to_string_lossy()
            .into_owned();
        let given = absolute.as_str();
        if let Some(hit) = cached(given) {
            return Ok(hit);
        }
        let ws = Workspace::new(shown)?;
        let root = ws.root().to_string_lossy().into_owned();
        let dir = open_dir(&root).filter(|(_, dev, ino)| same_dir(given, *dev, *ino));
        let open = Arc::new(OpenRoot {
            given: given.to_string(),
            ws,
            root,
            dir,
        });
        if open.dir.is_some() {
            let mut table = OPEN_ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
            table.retain(|r| r.given != given);
            if table.len() >= MAX_OPEN_ROOTS {
                table.remove(0);
            }
            table.push(Arc::clone(&open));
        }
        Ok(open)
    }

    /// The validated sandbox.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The canonical root as text.
    pub fn root_str(&self) -> &str {
        &self.root
    }

    /// Whether a root descriptor is held (false when the folder could not be opened).
    pub fn is_open(&self) -> bool {
        self.dir.is_some()
    }

    /// Open `relative` (a clean relative path: see [`super::is_clean_relative`]) beneath the
    /// root, read-only, crossing no symlink and never leaving the root.
    pub fn open_file(&self, relative: &str) -> Beneath {
        let Some((fd, _, _)) = self.dir.as_ref() else {
            return Beneath::Walk;
        };
        if relative.is_empty() || memchr::memchr(0, relative.as_bytes()).is_some() {
            return Beneath::Walk;
        }
        let Some(file) = openat2_beneath(fd, relative) else {
            return Beneath::Walk;
        };
        match file.metadata() {
            Ok(meta) if meta.is_file() => Beneath::File(file, meta),
            Ok(_) => Beneath::NotAFile,
            Err(_) => Beneath::Walk,
        }
    }

    /// The (device, inode) of the held root, when one is held.
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.dir.as_ref().map(|(_, dev, ino)| (*dev, *ino))
    }

    /// The root's descriptor, when one is held.
    pub fn dir_fd(&self) -> Option<BorrowedFd<'_>> {
        self.dir.as_ref().map(|(fd, _, _)| fd.as_fd())
    }

    /// Open `relative` beneath the root and judge what was opened: see
    /// [`beneath::open_judged`]. Without a root descriptor nothing is opened.
    pub fn open_judged(
        &self,
        relative: &[u8],
        follow_last: bool,
        want: Want,
        hard_links: HardLinks,
        blocked: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Opened, Refused> {
        let dir = self.dir_fd().ok_or(Refused::Unreadable)?;
        beneath::open_judged(
            dir,
            self.root.as_bytes(),
            relative,
            follow_last,
            want,
            hard_links,
            blocked,
        )
    }

    /// [`OpenRoot::open_judged`] of a name that may or may not be a link: opened as it is when
    /// it is none, followed (and judged) when its last component is one.
    pub fn open_entry(
        &self,
        relative: &[u8],
        want: Want,
        hard_links: HardLinks,
        blocked: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Opened, Refused> {
        match self.open_judged(relative, false, want, hard_links, blocked) {
            Err(Refused::Symlink) => self.open_judged(relative, true, want, hard_links, blocked),
            other => other,
        }
    }
}

/// What [`OpenRoot::open_file`] found.
#[derive(Debug)]
pub enum Beneath {
    /// A regular file, open for reading, with its metadata.
    File(File, Metadata),
    /// Something that is not a regular file (a folder, a FIFO, a socket, a device): the walk
    /// would refuse it as not a file too (it is opened without blocking, so a FIFO is seen
    /// and refused instead of waiting for a writer).
    NotAFile,
    /// Not opened (missing, a symlink, an escape, no `openat2`, any error): run the full
    /// resolution, which words the refusal.
    Walk,
}

impl Beneath {
    /// The open file, if that is what was found.
    pub fn file(self) -> Option<(File, Metadata)> {
        match self {
            Beneath::File(f, m) => Some((f, m)),
            _ => None,
        }
    }
}

/// The table's entry for `given` when it still names the same folder; a stale one is dropped.
fn cached(given: &str) -> Option<Arc<OpenRoot>> {
    let hit = {
        let table = OPEN_ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
        table.iter().find(|r| r.given == given).map(Arc::clone)
    }?;
    let (_, dev, ino) = hit.dir.as_ref()?;
    if same_dir(given, *dev, *ino) {
        return Some(hit);
    }
    let mut table = OPEN_ROOTS.lock().unwrap_or_else(PoisonError::into_inner);
    table.retain(|r| !Arc::ptr_eq(r, &hit));
    None
}

/// Whether `path` is (through any symlinks) a folder with this device and inode.
fn same_dir(path: &str, dev: u64, ino: u64) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir() && m.dev() == dev && m.ino() == ino)
}

/// An `O_PATH` descriptor on the folder `root` (its last component not followed), with the
/// folder's device and inode.
fn open_dir(root: &str) -> Option<(OwnedFd, u64, u64)> {
    let c = std::ffi::CString::new(root).ok()?;
    // SAFETY: a valid C string; the descriptor returned is owned by the OwnedFd below.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: fstat fills the zeroed struct; an O_PATH descriptor supports fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return None;
    }
    Some((fd, st.st_dev, st.st_ino))
}

/// `openat2(dir, relative, O_RDONLY, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS)`. `O_NONBLOCK` keeps a FIFO from blocking the open (it is then
/// refused as not a regular file); it changes nothing for reads of regular files. None without
/// `openat2` (the caller then takes the full walk).
#[cfg(target_os = "linux")]
fn openat2_beneath(dir: &OwnedFd, relative: &str) -> Option<File> {
    if !openat2_in_use() {
        return None;
    }
    // The name, NUL-terminated, on the stack for the usual lengths.
    let mut buf = [0u8; 512];
    let heap;
    let name: &std::ffi::CStr = if relative.len() < buf.len() {
        buf[..relative.len()].copy_from_slice(relative.as_bytes());
        std::ffi::CStr::from_bytes_until_nul(&buf).ok()?
    } else {
        heap = std::ffi::CString::new(relative).ok()?;
        &heap
    };
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK;
    let resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    let fd = beneath::openat2(dir.as_fd(), name, flags, resolve)?.ok()?;
    Some(File::from(fd))
}

/// Without `openat2` every open takes the full resolution.
#[cfg(not(target_os = "linux"))]
fn openat2_beneath(_dir: &OwnedFd, _relative: &str) -> Option<File> {
    None
}

#[cfg(test)]
mod tests {
    use super::super::{is_clean_relative, PathErrorKind, RootErrorKind, Tool};
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    /// `<tmp>/…/ws` with files, folders and symlinks, plus `outside`; removed on drop.
    struct Tree {
        base: PathBuf,
    }

    impl Tree {
        fn new() -> Tree {
            let n = COUNTER.fetch_add(1, Ordering::SeqCst);
            let base = std::env::temp_dir()
                .join(format!("phpclaw-openroot-test-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&base);
            fs::create_dir_all(base.join("ws/sub/deep")).unwrap();
            fs::create_dir_all(base.join("ws/real")).unwrap();
            fs::create_dir_all(base.join("outside")).unwrap();
            fs::write(base.join("ws/notes.txt"), "n").unwrap();
            fs::write(base.join("ws/sub/a.txt"), "a").unwrap();
            fs::write(base.join("ws/real/r.txt"), "r").unwrap();
            fs::write(base.join("outside/secret.txt"), "s").unwrap();
            symlink(base.join("outside"), base.join("ws/out-dir")).unwrap();
            symlink(base.join("outside/secret.txt"), base.join("ws/out-file")).unwrap();
            symlink("real", base.join("ws/in-dir")).unwrap();
            symlink("real/r.txt", base.join("ws/in-file")).unwrap();
            symlink("../../outside", base.join("ws/sub/up")).unwrap();
            symlink(base.join("missing"), base.join("ws/dangling")).unwrap();
            Tree { base }
        }

        fn given(&self) -> String {
            self.base.join("ws").to_string_lossy().into_owned()
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.base);
        }
    }

    #[test]
    fn opens_plain_files_only() {
        let t = Tree::new();
        let root = OpenRoot::get(&t.given()).unwrap();
        assert!(root.is_open());
        let mut text = String::new();
        let (mut f, meta) = root.open_file("sub/a.txt").file().unwrap();
        std::io::Read::read_to_string(&mut f, &mut text).unwrap();
        assert_eq!((text.as_str(), meta.len()), ("a", 1));
        assert!(root.open_file("notes.txt").file().is_some());
        for folder in ["sub", "sub/deep", "real"] {
            assert!(
                matches!(root.open_file(folder), Beneath::NotAFile),
                "{folder}"
            );
        }
        for refused in [
            "missing.txt",
            "notes.txt/x",
            "out-dir/secret.txt",
            "out-file",
            "in-dir/r.txt",
            "in-file",
            "sub/up/secret.txt",
            "dangling",
            "../outside/secret.txt",
            "sub/../../outside/secret.txt",
            "/etc/passwd",
            "",
            "notes\0.txt",
        ] {
            assert!(
                matches!(root.open_file(refused), Beneath::Walk),
                "{refused:?}"
            );
        }
        assert!(openat2_in_use(), "this kernel has openat2");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let t = Tree::new();
        let fifo = t.base.join("ws/pipe");
        let c = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let root = OpenRoot::get(&t.given()).unwrap();
        assert!(matches!(root.open_file("pipe"), Beneath::NotAFile));
    }

    #[test]
    fn what_opens_is_what_the_walk_accepts() {
        let t = Tree::new();
        let root = OpenRoot::get(&t.given()).unwrap();
        let ws = root.workspace();
        for p in [
            "notes.txt",
            "sub/a.txt",
            "real/r.txt",
            "sub",
            "in-file",
            "in-dir/r.txt",
            "out-file",
            "dangling",
            "missing",
            "notes.txt/x",
        ] {
            assert!(is_clean_relative(p), "{p}");
            let walked = ws.resolve_for(Tool::FileRead, p);
            match root.open_file(p) {
                Beneath::File(..) => {
                    let r = walked.unwrap();
                    assert_eq!(r.real, ws.root().join(p), "{p}");
                    assert_eq!((r.display.as_str(), r.real_relative.as_str()), (p, p));
                }
                Beneath::NotAFile => assert_eq!(
                    walked.map_err(|e| e.kind),
                    Err(PathErrorKind::NotAFile),
                    "{p}"
                ),
                Beneath::Walk => assert!(walked.is_err(), "{p}"),
            }
        }
    }

    #[test]
    fn the_root_is_kept_and_revalidated() {
        let t = Tree::new();
        let given = t.given();
        let a = OpenRoot::get(&given).unwrap();
        let b = OpenRoot::get(&given).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "second use comes from the table");
        assert_eq!(
            a.root_str(),
            fs::canonicalize(&given).unwrap().to_str().unwrap()
        );

        // Replaced by another folder: a new entry, and the new folder's files.
        fs::rename(&given, t.base.join("old-ws")).unwrap();
        fs::create_dir_all(t.base.join("ws")).unwrap();
        fs::write(t.base.join("ws/fresh.txt"), "f").unwrap();
        let c = OpenRoot::get(&given).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(c.open_file("fresh.txt").file().is_some());
        assert!(c.open_file("notes.txt").file().is_none());

        // Gone: the same refusal as the full validation.
        fs::remove_dir_all(t.base.join("ws")).unwrap();
        assert_eq!(
            OpenRoot::get(&given).unwrap_err().kind,
            RootErrorKind::NotFound
        );

        // Replaced by a symlink to a folder outside: judged again, not the old descriptor.
        symlink(t.base.join("outside"), t.base.join("ws")).unwrap();
        let d = OpenRoot::get(&given).unwrap();
        assert_eq!(
            d.root_str(),
            fs::canonicalize(t.base.join("outside"))
                .unwrap()
                .to_str()
                .unwrap()
        );
        assert!(d.open_file("secret.txt").file().is_some());
    }

    #[test]
    fn bad_roots_are_refused_as_before() {
        assert_eq!(
            OpenRoot::get("/").unwrap_err().kind,
            RootErrorKind::FilesystemRoot
        );
        assert_eq!(OpenRoot::get("").unwrap_err().kind, RootErrorKind::NotFound);
        let t = Tree::new();
        let file = t.base.join("ws/notes.txt");
        assert_eq!(
            OpenRoot::get(file.to_str().unwrap()).unwrap_err().kind,
            RootErrorKind::NotADirectory
        );
    }

    #[test]
    fn the_table_is_bounded() {
        let trees: Vec<Tree> = (0..MAX_OPEN_ROOTS + 3).map(|_| Tree::new()).collect();
        for t in &trees {
            OpenRoot::get(&t.given()).unwrap();
        }
        let len = OPEN_ROOTS.lock().unwrap().len();
        assert!(len <= MAX_OPEN_ROOTS, "{len}");
    }

    #[test]
    fn clean_relative_paths() {
        for (p, want) in [
            ("notes.txt", true),
            ("logs/app.log", true),
            ("C:x", true),
            ("", false),
            ("/x", false),
            ("\\x", false),
            ("C:/x", false),
            ("a//b", false),
            ("a/", false),
            ("./a", false),
            ("a/../b", false),
            ("..", false),
            ("a\\b", false),
            ("a\0b", false),
            ("x.php.", false),
            ("x.php ", false),
            ("dir./x", false),
        ] {
            assert_eq!(is_clean_relative(p), want, "{p:?}");
        }
    }

    #[test]
    fn root_tail_detection() {
        let t = Tree::new();
        let root = OpenRoot::get(&t.given()).unwrap();
        let ws = root.workspace();
        let segs: Vec<&str> = root
            .root_str()
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        let last2 = segs[segs.len() - 2..].join("/");
        let all = segs.join("/");
        assert!(ws.repeats_root_tail(&format!("{last2}/notes.txt"), 2));
        assert!(ws.repeats_root_tail(&format!("{all}/notes.txt"), 2));
        assert!(!ws.repeats_root_tail(&last2, 2));
        assert!(!ws.repeats_root_tail("ws/notes.txt", 2));
        assert!(ws.repeats_root_tail("ws/notes.txt", 1));
        assert!(!ws.repeats_root_tail(&format!("{last2}x/notes.txt"), 2));
        assert!(!ws.repeats_root_tail("notes.txt", 1));
        // The walk's own behaviour on such a path is unchanged.
        assert_eq!(
            ws.resolve_for(Tool::FileRead, &format!("{last2}/notes.txt"))
                .map(|r| r.display),
            Ok("notes.txt".to_string())
        );
        assert_eq!(
            ws.resolve_for(Tool::FileRead, "../x").map_err(|e| e.kind),
            Err(PathErrorKind::Traversal)
        );
    }
}
