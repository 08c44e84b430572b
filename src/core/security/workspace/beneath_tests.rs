//! Opening beneath a root on real trees: links in every shape (chains, to folders, with `..`,
//! absolute and relative, out of the root, to blocked names, dangling, magic), hard links
//! inside and to files outside, FIFOs and devices behind links, a link swapped in after a
//! check, and the step-by-step fallback used without `openat2`.

use super::*;
use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// `<tmp>/…/ws` (canonical) and `<tmp>/…/outside`, removed on drop.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        fs::create_dir_all(base.join("ws/sub/deep")).unwrap();
        fs::create_dir_all(base.join("ws/.ssh")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("ws/notes.txt"), "notes").unwrap();
        fs::write(base.join("ws/sub/a.txt"), "a").unwrap();
        fs::write(base.join("ws/.env"), "SECRET=1").unwrap();
        fs::write(base.join("ws/.ssh/id_rsa"), "KEY").unwrap();
        fs::write(base.join("outside/secret.txt"), "outside").unwrap();
        Tree { dir }
    }

    fn base(&self) -> PathBuf {
        fs::canonicalize(self.dir.path()).unwrap()
    }

    fn ws(&self) -> PathBuf {
        self.base().join("ws")
    }

    fn root_fd(&self) -> OwnedFd {
        let c = CString::new(self.ws().as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; the descriptor is owned below.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        assert!(fd >= 0);
        // SAFETY: a fresh descriptor.
        unsafe { OwnedFd::from_raw_fd(fd) }
    }

    fn link(&self, target: impl AsRef<Path>, at: &str) {
        symlink(target, self.ws().join(at)).unwrap();
    }

    /// open_judged beneath the root, blocking names that end in `.env` or sit in `.ssh`.
    fn judged(
        &self,
        rel: &str,
        follow: bool,
        want: Want,
        hard: HardLinks,
    ) -> Result<Opened, Refused> {
        let root = self.ws();
        let fd = self.root_fd();
        open_judged(
            fd.as_fd(),
            root.as_os_str().as_encoded_bytes(),
            rel.as_bytes(),
            follow,
            want,
            hard,
            &blocked,
        )
    }

    fn read(&self, rel: &str, follow: bool) -> Result<String, Refused> {
        let mut o = self.judged(rel, follow, Want::File, HardLinks::Refuse)?;
        let mut s = String::new();
        o.file.read_to_string(&mut s).unwrap();
        Ok(s)
    }
}

fn blocked(rel: &[u8]) -> bool {
    rel.ends_with(b".env") || rel.split(|&b| b == b'/').any(|s| s == b".ssh")
}

#[test]
fn plain_paths_open_and_links_anywhere_are_refused() {
    let t = Tree::new();
    t.link(t.base().join("outside"), "out-dir");
    t.link("sub", "in-dir");
    t.link("notes.txt", "in-file");
    let fd = t.root_fd();
    for stepwise in [false, true] {
        let open = |rel: &str, flags| {
            if stepwise && !rel.is_empty() {
                open_beneath_stepwise(fd.as_fd(), rel.as_bytes(), flags)
            } else {
                open_beneath(fd.as_fd(), rel.as_bytes(), flags)
            }
        };
        let mut s = String::new();
        File::from(open("sub/a.txt", libc::O_RDONLY).unwrap())
            .read_to_string(&mut s)
            .unwrap();
        assert_eq!(s, "a");
        assert!(open("", libc::O_RDONLY | libc::O_DIRECTORY).is_ok());
        assert!(open("sub/deep", libc::O_RDONLY | libc::O_DIRECTORY).is_ok());
        for (rel, flags) in [
            ("in-file", libc::O_RDONLY),
            ("in-file", libc::O_PATH),
            ("in-dir/a.txt", libc::O_RDONLY),
            ("in-dir", libc::O_PATH | libc::O_DIRECTORY),
            ("out-dir/secret.txt", libc::O_RDONLY),
        ] {
            let e = open(rel, flags).unwrap_err();
            assert_eq!(
                Refused::from_io(&e),
                Refused::Symlink,
                "{rel} stepwise {stepwise}"
            );
        }
        assert_eq!(
            Refused::from_io(&open("missing", libc::O_RDONLY).unwrap_err()),
            Refused::Missing
        );
        assert_eq!(
            Refused::from_io(&open("notes.txt/x", libc::O_RDONLY).unwrap_err()),
            Refused::Missing
        );
    }
    for bad in [
        "../outside/secret.txt",
        "sub/../notes.txt",
        "/etc/passwd",
        "./notes.txt",
        "sub//a.txt",
        "sub/",
    ] {
        assert!(
            open_beneath(fd.as_fd(), bad.as_bytes(), libc::O_RDONLY).is_err(),
            "{bad}"
        );
        assert!(
            open_following(fd.as_fd(), bad.as_bytes(), libc::O_RDONLY).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn followed_links_must_land_inside_and_unblocked() {
    let t = Tree::new();
    let ws = t.ws();
    // Chains, relative and absolute, with `..` that stays inside.
    t.link("sub/a.txt", "one");
    t.link("one", "two");
    t.link(ws.join("two"), "three");
    t.link("../notes.txt", "sub/up");
    t.link("deep/../a.txt", "sub/dotdot");
    for (rel, want) in [
        ("one", "a"),
        ("three", "a"),
        ("sub/up", "notes"),
        ("sub/dotdot", "a"),
    ] {
        assert_eq!(t.read(rel, true).as_deref(), Ok(want), "{rel}");
        // Never without following.
        assert_eq!(t.read(rel, false), Err(Refused::Symlink), "{rel}");
    }
    assert_eq!(
        t.judged("three", true, Want::File, HardLinks::Refuse)
            .unwrap()
            .real_relative,
        b"sub/a.txt"
    );
    // Out of the workspace: absolute, relative with `..`, through a chain, to a folder.
    t.link(t.base().join("outside/secret.txt"), "abs-out");
    t.link("../outside/secret.txt", "rel-out");
    t.link("abs-out", "chain-out");
    t.link("sub/../../outside/secret.txt", "dotdot-out");
    t.link(t.base().join("outside"), "dir-out");
    t.link("/etc/passwd", "passwd");
    t.link(ws.join("sub/../../outside/secret.txt"), "abs-dotdot-out");
    for rel in [
        "abs-out",
        "rel-out",
        "chain-out",
        "dotdot-out",
        "passwd",
        "abs-dotdot-out",
    ] {
        assert_eq!(t.read(rel, true), Err(Refused::Outside), "{rel}");
    }
    assert_eq!(
        t.judged("dir-out", true, Want::Dir, HardLinks::Refuse)
            .err(),
        Some(Refused::Outside)
    );
    // To blocked names inside, directly or through a chain or a linked folder's file.
    t.link(".env", "env-alias");
    t.link("env-alias", "env-chain");
    t.link(".ssh/id_rsa", "key");
    t.link(".ssh", "keys-dir");
    for rel in ["env-alias", "env-chain", "key"] {
        assert_eq!(t.read(rel, true), Err(Refused::Blocked), "{rel}");
    }
    assert_eq!(
        t.judged("keys-dir", true, Want::Dir, HardLinks::Refuse)
            .err(),
        Some(Refused::Blocked)
    );
    // A link in a folder before the last component is never crossed.
    t.link("sub", "in-dir");
    assert_eq!(t.read("in-dir/a.txt", true), Err(Refused::Symlink));
    // A folder link inside, opened as a folder; as a file it is not one.
    let d = t
        .judged("in-dir", true, Want::Dir, HardLinks::Refuse)
        .unwrap();
    assert_eq!(d.real_relative, b"sub");
    assert!(d.meta.is_dir());
    assert_eq!(t.read("in-dir", true), Err(Refused::NotAFile));
    // Dangling, and a loop.
    t.link("nothing", "dangling");
    t.link("loop-b", "loop-a");
    t.link("loop-a", "loop-b");
    assert_eq!(t.read("dangling", true), Err(Refused::Missing));
    assert_eq!(t.read("loop-a", true), Err(Refused::Symlink));
    // A link to the root itself is inside.
    t.link(".", "self");
    assert_eq!(
        t.judged("self", true, Want::Dir, HardLinks::Refuse)
            .unwrap()
            .real_relative,
        b""
    );
}

#[test]
fn magic_links_devices_and_fifos_behind_links() {
    let t = Tree::new();
    // A magic link is refused (openat2) or judged by where it leads (outside here).
    t.link("/proc/self/root/etc/passwd", "magic");
    let r = t.read("magic", true);
    assert!(
        matches!(r, Err(Refused::Symlink | Refused::Outside)),
        "{r:?}"
    );
    // A device outside is never opened for reading: the O_PATH descriptor is judged first.
    t.link("/dev/zero", "zero");
    assert_eq!(t.read("zero", true), Err(Refused::Outside));
    // A FIFO inside, behind a link: refused as not a file, without blocking.
    let fifo = CString::new(t.ws().join("pipe").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    t.link("pipe", "to-pipe");
    assert_eq!(t.read("to-pipe", true), Err(Refused::NotAFile));
    assert_eq!(t.read("pipe", false), Err(Refused::NotAFile));
    // Named only (Want::Any): fine, nothing is opened for reading.
    assert!(t
        .judged("to-pipe", true, Want::Any, HardLinks::Refuse)
        .is_ok());
}

#[test]
fn hard_links_are_refused_unless_allowed() {
    let t = Tree::new();
    let ws = t.ws();
    fs::hard_link(ws.join(".env"), ws.join("innocent.txt")).unwrap();
    fs::hard_link(t.base().join("outside/secret.txt"), ws.join("out.txt")).unwrap();
    t.link("out.txt", "to-out");
    for rel in ["innocent.txt", "out.txt"] {
        assert_eq!(t.read(rel, false), Err(Refused::HardLink), "{rel}");
        let o = t.judged(rel, false, Want::File, HardLinks::Allow).unwrap();
        assert_eq!(o.meta.nlink(), 2);
    }
    assert_eq!(t.read("to-out", true), Err(Refused::HardLink));
    assert!(t
        .judged("to-out", true, Want::File, HardLinks::Allow)
        .is_ok());
    // Once the other name is gone, the file is an ordinary one again.
    fs::remove_file(t.base().join("outside/secret.txt")).unwrap();
    assert_eq!(t.read("out.txt", false).as_deref(), Ok("outside"));
    // Folders always have several links: never refused for that.
    assert!(t.judged("sub", false, Want::Dir, HardLinks::Refuse).is_ok());
}

#[test]
fn a_swap_after_the_check_leads_nowhere() {
    let t = Tree::new();
    let ws = t.ws();
    // The walk saw a plain file; a link to a secret replaces it before the open.
    fs::remove_file(ws.join("notes.txt")).unwrap();
    t.link(t.base().join("outside/secret.txt"), "notes.txt");
    assert_eq!(t.read("notes.txt", false), Err(Refused::Symlink));
    // A folder on the way is swapped for a link to outside.
    fs::rename(ws.join("sub"), t.base().join("moved")).unwrap();
    t.link(t.base().join("outside"), "sub");
    assert_eq!(t.read("sub/secret.txt", false), Err(Refused::Symlink));
    assert_eq!(t.read("sub/secret.txt", true), Err(Refused::Symlink));
    // An opened file stays what was judged, whatever happens to its name afterwards.
    fs::write(ws.join("plain.txt"), "plain").unwrap();
    let mut o = t
        .judged("plain.txt", false, Want::File, HardLinks::Refuse)
        .unwrap();
    fs::remove_file(ws.join("plain.txt")).unwrap();
    t.link(t.base().join("outside/secret.txt"), "plain.txt");
    let mut s = String::new();
    o.file.read_to_string(&mut s).unwrap();
    assert_eq!(s, "plain");
}

#[test]
fn inside_is_component_wise() {
    for (root, real, want) in [
        ("/ws", "/ws", Some("")),
        ("/ws", "/ws/a/b", Some("a/b")),
        ("/ws/", "/ws/a", Some("a")),
        ("/ws", "/ws2/a", None),
        ("/ws", "/w", None),
        ("/ws", "/", None),
        ("/", "/etc", None),
        ("", "/etc", None),
    ] {
        assert_eq!(
            relative_inside(root.as_bytes(), real.as_bytes()),
            want.map(str::as_bytes),
            "{root} {real}"
        );
    }
}
