//! code_search's tree cache: folder listings and file contents kept between searches in this
//! process, and kept true by the kernel rather than by re-reading.
//!
//! Reading every file on every search is what bounds a search of a large workspace (opening,
//! reading and closing 2,000 files costs about 20 ms on a VM whose system calls are slow). So
//! every folder a search lists is first watched with inotify (through the descriptor it was
//! opened by, so the watch is on the folder that is listed), then listed; a search starts by
//! reading the events queued since the last one and dropping whatever they name (a file
//! written, created, removed, renamed or changed in mode; a folder moved, removed or
//! unmounted). What is left is still what the disk holds, and is searched in memory.
//!
//! What is kept, and when it is trusted:
//! - a folder's listing, taken after its watch was added. A search trusts a cached folder it
//!   descends into only when the folder was watched after its parent (`seq`): then any rename
//!   or replacement of it in the parent was seen. The folder a search starts at is trusted
//!   when it is still the same folder (device and inode).
//! - a regular file's content as the search's judged read gave it (`walk::read_at`), only for
//!   a file reached by its own name (not a link), with one hard link (a write through another
//!   link elsewhere would not be seen), in a folder on a local file system ([`LOCAL_FS`]:
//!   a remote writer's changes raise no event).
//!
//! What it cannot see (README, "php.ini setting `phpclaw.search_cache_size`"): writes through a
//! shared memory mapping, and writes through a hard link made after the file was cached.
//! project_info's tree uses the listings the same way (`Tree::start`, `Tree::child`).
//!
//! Bounds: at most the budget's bytes per process (php.ini `phpclaw.search_cache_size`; 0 turns
//! the cache off): listings, an entry per kept file, and the contents in 2 MiB blocks
//! (`content_blocks`); the least recently searched root dropped first, and a root whose blocks
//! are mostly waste refilled; at most [`WATCHES_MAX`] watched folders; one inotify instance per
//! process, made at the first search. A queue overflow drops everything. A forked child starts
//! with an empty cache of its own (the instance is shared with the parent after a fork).

use std::collections::HashMap;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use super::content_blocks::{Block, Bytes, BLOCK};
use super::listing::{self, Kind};
use crate::core::security::file_rules::code_search_skips_entry;

/// Bytes of names and contents kept per process when php.ini does not say.
pub const BUDGET_DEFAULT: usize = 16 << 20;
/// Folders watched at most per process.
pub const WATCHES_MAX: usize = 4096;
/// File systems whose changes raise inotify events in this process whoever makes them:
/// ext2/3/4, XFS, Btrfs, tmpfs, F2FS. Elsewhere (NFS, SMB, FUSE, 9p, overlays) a folder is
/// searched from the disk every time.
pub const LOCAL_FS: [i64; 5] = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0xF2F5_2010];

/// What a watch reports: anything that changes a child's name, type, content or mode, and the
/// folder itself going away.
const WATCH_MASK: u32 = libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR;
/// Events that change a folder's listing.
const NAMES_CHANGE: u32 =
    libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVED_FROM | libc::IN_MOVED_TO;
/// Events that end a watched folder's cache.
const FOLDER_GONE: u32 =
    libc::IN_IGNORED | libc::IN_DELETE_SELF | libc::IN_MOVE_SELF | libc::IN_UNMOUNT;

/// The process's cache.
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::new(BUDGET_DEFAULT)));

/// Set the process's budget in bytes (0: no cache); a smaller one drops roots to fit.
pub fn set_budget(bytes: usize) {
    lock(&CACHE).set_budget(bytes);
}

/// A budget as php.ini gives it: a count of bytes with an optional `K`, `M` or `G` (any case),
/// as PHP reads `memory_limit`; `None` for anything else.
pub fn parse_budget(v: &[u8]) -> Option<usize> {
    let t = std::str::from_utf8(v).ok()?.trim();
    let (digits, shift) = match t.as_bytes().last()? {
        b'k' | b'K' => (&t[..t.len() - 1], 10),
        b'm' | b'M' => (&t[..t.len() - 1], 20),
        b'g' | b'G' => (&t[..t.len() - 1], 30),
        _ => (t, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<usize>().ok()?.checked_mul(1 << shift)
}

fn lock(cache: &Mutex<Cache>) -> std::sync::MutexGuard<'_, Cache> {
    cache.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A root's identity: the device and inode of the open workspace root.
type RootId = (u64, u64);

/// A folder's entries as code_search walks them (sorted by name), with whether the search's
/// name rules leave each out (noise and security folders, secret files): worked out once when
/// it is listed, not on every search.
pub struct Listing {
    /// Name and type of each entry.
    pub entries: Vec<(Vec<u8>, Kind)>,
    /// Per entry: left out by the name rules.
    pub skipped: Vec<bool>,
}

impl Listing {
    /// [`Listing::read`] not kept by the cache (trust `None`: nothing below it is kept either).
    pub fn uncached(dir: BorrowedFd<'_>) -> Option<(Arc<Listing>, Trust)> {
        Listing::read(dir).map(|l| (Arc::new(l), None))
    }

    /// The listing of the open folder `dir` (`listing::list_fd`).
    pub fn read(dir: BorrowedFd<'_>) -> Option<Listing> {
        let entries = listing::list_fd(dir)?;
        let skipped = entries
            .iter()
            .map(|(name, kind)| {
                let file = matches!(kind, Kind::File | Kind::FileLink);
                code_search_skips_entry(&String::from_utf8_lossy(name), file)
            })
            .collect();
        Some(Listing { entries, skipped })
    }
}

/// A cache of listings and contents with its inotify instance (the process has one; tests
/// make their own).
pub struct Cache {
    /// Bytes kept at most: listings, an entry per kept file, and content blocks.
    budget: usize,
    notify: Option<(OwnedFd, u32)>,
    /// Least recently searched first.
    roots: Vec<Root>,
    by_wd: HashMap<i32, (RootId, Box<[u8]>)>,
    /// Numbers watches in the order they were added.
    seq: u64,
}

struct Root {
    id: RootId,
    folders: HashMap<Box<[u8]>, Folder>,
    /// Bytes held in the budget: its folders' `bytes` and its blocks.
    bytes: usize,
    /// Bytes of the contents still kept (the rest of the blocks is waste).
    live: usize,
    /// Where kept contents are, filled in order; `fill` bytes of the last one are used.
    blocks: Vec<Arc<Block>>,
    fill: usize,
}

struct Folder {
    wd: i32,
    /// Device and inode, to trust it as a search's start.
    dev: u64,
    ino: u64,
    /// When it was watched (see the module docs).
    seq: u64,
    /// Bumped by every event about it, so a content read that raced one is not kept.
    gen: u64,
    listing: Option<Arc<Listing>>,
    files: HashMap<Box<[u8]>, Bytes>,
    /// Its listing's and its files' entries' bytes in the budget.
    bytes: usize,
    /// Bytes of its kept contents.
    content: usize,
}

/// Bytes a kept file's entry costs besides its content.
fn entry_bytes(name: &[u8]) -> usize {
    name.len() + 64
}

impl Root {
    fn new(id: RootId) -> Root {
        Root {
            id,
            folders: HashMap::new(),
            bytes: 0,
            live: 0,
            blocks: Vec::new(),
            fill: 0,
        }
    }

    /// Forget the kept content of `name` in the folder `rel`.
    fn forget_file(&mut self, rel: &[u8], name: &[u8]) {
        let Some(f) = self.folders.get_mut(rel) else {
            return;
        };
        if let Some(old) = f.files.remove(name) {
            f.bytes -= entry_bytes(name);
            f.content -= old.len();
            self.bytes -= entry_bytes(name);
            self.live -= old.len();
        }
    }

    /// Forget the listing of the folder `rel`.
    fn forget_listing(&mut self, rel: &[u8]) {
        let Some(f) = self.folders.get_mut(rel) else {
            return;
        };
        if let Some(l) = f.listing.take() {
            f.bytes -= listing_bytes(&l);
            self.bytes -= listing_bytes(&l);
        }
    }

    /// Remove the folder `rel`; its watch descriptor.
    fn remove_folder(&mut self, rel: &[u8]) -> Option<i32> {
        let f = self.folders.remove(rel)?;
        self.bytes -= f.bytes;
        self.live -= f.content;
        Some(f.wd)
    }

    /// When less than half of the blocks is still kept content, forget every content so the
    /// next searches fill new blocks without the holes (listings stay).
    fn compact_if_wasteful(&mut self) {
        let held = self.blocks.len() * BLOCK;
        if self.blocks.is_empty()
            || (self.live > 0 && (self.blocks.len() < 2 || self.live * 2 >= held))
        {
            return;
        }
        for f in self.folders.values_mut() {
            let entries: usize = f.files.keys().map(|n| entry_bytes(n)).sum();
            f.files.clear();
            f.bytes -= entries;
            self.bytes -= entries;
            f.content = 0;
        }
        self.live = 0;
        self.bytes -= held;
        self.blocks.clear();
        self.fill = 0;
    }
}

/// Bytes a listing costs in the budget.
fn listing_bytes(l: &Listing) -> usize {
    l.entries.iter().map(|(n, _)| n.len() + 32).sum::<usize>() + 64
}

/// Whether `key` is `rel` or inside it.
fn within(key: &[u8], rel: &[u8]) -> bool {
    rel.is_empty() || (key.starts_with(rel) && (key.len() == rel.len() || key[rel.len()] == b'/'))
}

impl Cache {
    /// An empty cache of `budget` bytes.
    pub fn new(budget: usize) -> Self {
        Cache {
            budget,
            notify: None,
            roots: Vec::new(),
            by_wd: HashMap::new(),
            seq: 0,
        }
    }

    /// Bytes held in the budget.
    fn bytes(&self) -> usize {
        self.roots.iter().map(|r| r.bytes).sum()
    }

    fn set_budget(&mut self, bytes: usize) {
        self.budget = bytes;
        self.shrink_to(bytes, None);
        if bytes == 0 {
            self.reset();
        }
    }

    /// Forget everything; closing the instance removes its watches.
    fn reset(&mut self) {
        self.notify = None;
        self.roots.clear();
        self.by_wd.clear();
    }

    /// The instance of this process, made on first use; after a fork the inherited one is
    /// the parent's (closing our copy leaves it to the parent), so the child starts anew.
    fn instance(&mut self) -> Option<BorrowedFd<'_>> {
        let pid = std::process::id();
        if self.notify.as_ref().is_some_and(|(_, p)| *p != pid) {
            self.reset();
        }
        if self.notify.is_none() {
            // SAFETY: plain system call; a non-negative result is a new descriptor we own.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            // SAFETY: just made, owned by nobody else.
            self.notify = Some((unsafe { OwnedFd::from_raw_fd(fd) }, pid));
        }
        self.fd()
    }

    /// The instance as it is, without the fork check (done once per search, in
    /// [`Tree::begin`]).
    fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.notify.as_ref().map(|(fd, _)| fd.as_fd())
    }

    /// Read every queued event and drop what each names.
    fn drain(&mut self) {
        let mut buf = [0u64; 1024];
        loop {
            let Some(fd) = self.fd() else { return };
            // SAFETY: reads into a buffer of the given size, aligned for inotify_event.
            let n = unsafe {
                libc::read(
                    fd.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    std::mem::size_of_val(&buf),
                )
            };
            let Ok(n) = usize::try_from(n) else {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return;
            };
            if n == 0 {
                return;
            }
            // SAFETY: the kernel wrote `n` bytes; viewed as bytes for parsing.
            let bytes = unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), n) };
            if !self.apply(bytes) {
                return;
            }
        }
    }

    /// Apply the events in `bytes` (as `read` gives them); `false` after a queue overflow,
    /// which dropped everything.
    fn apply(&mut self, bytes: &[u8]) -> bool {
        let head = std::mem::size_of::<libc::inotify_event>();
        let mut at = 0;
        while at + head <= bytes.len() {
            // SAFETY: a whole event header lies at `at` (read unaligned: names pad events).
            let ev: libc::inotify_event =
                unsafe { std::ptr::read_unaligned(bytes[at..].as_ptr().cast()) };
            let name_end = (at + head).saturating_add(ev.len as usize).min(bytes.len());
            let raw = &bytes[at + head..name_end];
            let name = &raw[..memchr::memchr(0, raw).unwrap_or(raw.len())];
            if ev.mask & libc::IN_Q_OVERFLOW != 0 {
                self.reset();
                return false;
            }
            self.event(ev.wd, ev.mask, name);
            at = name_end;
        }
        true
    }

    /// Apply one event.
    fn event(&mut self, wd: i32, mask: u32, name: &[u8]) {
        let Some((id, rel)) = self.by_wd.get(&wd).cloned() else {
            return;
        };
        if mask & FOLDER_GONE != 0 {
            self.drop_subtree(id, &rel);
            return;
        }
        if name.is_empty() {
            // The folder's own mode or owner: a fresh walk may no longer be allowed to list it.
            if mask & libc::IN_ATTRIB != 0 {
                self.drop_subtree(id, &rel);
            }
            return;
        }
        let child = listing::join(&rel, name);
        let Some(root) = self.root(id) else { return };
        if let Some(f) = root.folders.get_mut(&rel[..]) {
            f.gen += 1;
        }
        root.forget_file(&rel, name);
        if mask & NAMES_CHANGE != 0 {
            root.forget_listing(&rel);
        }
        root.compact_if_wasteful();
        if mask & libc::IN_ISDIR != 0 || root.folders.contains_key(&child[..]) {
            self.drop_subtree(id, &child);
        }
    }

    /// Drop the folder `rel` of root `id` and every cached folder inside it, with their
    /// watches.
    fn drop_subtree(&mut self, id: RootId, rel: &[u8]) {
        let Some(root) = self.root(id) else { return };
        let keys: Vec<Box<[u8]>> = root
            .folders
            .keys()
            .filter(|k| within(k, rel))
            .cloned()
            .collect();
        let wds: Vec<i32> = keys.iter().filter_map(|k| root.remove_folder(k)).collect();
        root.compact_if_wasteful();
        for wd in wds {
            self.unwatch(wd);
        }
    }

    fn unwatch(&mut self, wd: i32) {
        if self.by_wd.remove(&wd).is_some() {
            if let Some((fd, _)) = &self.notify {
                // SAFETY: plain system call on our instance (an already removed watch: EINVAL).
                unsafe { libc::inotify_rm_watch(fd.as_raw_fd(), wd) };
            }
        }
    }

    /// Drop least recently searched roots other than `keep` until `bytes` fit.
    fn shrink_to(&mut self, bytes: usize, keep: Option<RootId>) {
        let mut i = 0;
        while self.bytes() > bytes && i < self.roots.len() {
            if Some(self.roots[i].id) == keep {
                i += 1;
                continue;
            }
            let root = self.roots.remove(i);
            for f in root.folders.values() {
                self.unwatch(f.wd);
            }
        }
    }

    /// Room for `more` bytes within the budget, dropping other roots when needed.
    fn room(&mut self, more: usize, keep: RootId) -> bool {
        let budget = self.budget;
        if more > budget {
            return false;
        }
        if self.bytes() + more > budget {
            self.shrink_to(budget - more, Some(keep));
        }
        self.bytes() + more <= budget
    }

    fn root(&mut self, id: RootId) -> Option<&mut Root> {
        self.roots.iter_mut().find(|r| r.id == id)
    }

    fn folder(&mut self, id: RootId, rel: &[u8]) -> Option<&mut Folder> {
        self.root(id)?.folders.get_mut(rel)
    }
}

/// One search's use of a cache, for the open root it walks.
#[derive(Clone, Copy)]
pub struct Tree {
    id: RootId,
    cache: &'static Mutex<Cache>,
}

/// A folder the walk may descend from: its `seq` when it is cached.
pub type Trust = Option<u64>;

impl Tree {
    /// The process's cache for a search of the root whose identity is `id`: queued events
    /// applied first; `None` when the cache is off or inotify cannot be had.
    pub fn begin(id: (u64, u64)) -> Option<Tree> {
        Self::begin_in(&CACHE, id)
    }

    /// [`Tree::begin`] in the given cache.
    pub fn begin_in(cache: &'static Mutex<Cache>, id: (u64, u64)) -> Option<Tree> {
        let mut c = lock(cache);
        if c.budget == 0 {
            return None;
        }
        c.instance()?;
        c.drain();
        c.instance()?;
        match c.roots.iter().position(|r| r.id == id) {
            Some(i) => {
                let r = c.roots.remove(i);
                c.roots.push(r);
            }
            None => c.roots.push(Root::new(id)),
        }
        Some(Tree { id, cache })
    }

    /// The listing of the search's start folder `rel`, opened as `dir`: the cached one when it
    /// is still the same folder, else listed now (watched first when the cache may keep it).
    /// With it, the folder's trust for its children.
    pub fn start(&self, rel: &[u8], dir: BorrowedFd<'_>) -> Option<(Arc<Listing>, Trust)> {
        let (dev, ino) = identity(dir)?;
        {
            let mut c = lock(self.cache);
            match c.folder(self.id, rel) {
                Some(f) if f.dev == dev && f.ino == ino => {
                    if let Some(l) = &f.listing {
                        return Some((l.clone(), Some(f.seq)));
                    }
                }
                Some(_) => c.drop_subtree(self.id, rel),
                None => {}
            }
        }
        self.list(rel, dir, Some((dev, ino)))
    }

    /// The cached listing of `rel`, a folder the walk found in a folder of trust `parent`: only
    /// when the parent is cached and this folder was watched after it (else what was cached
    /// under this path is dropped).
    pub fn child(&self, rel: &[u8], parent: Trust) -> Option<(Arc<Listing>, Trust)> {
        let parent = parent?;
        let mut c = lock(self.cache);
        let f = c.folder(self.id, rel)?;
        if f.seq > parent {
            return f.listing.clone().map(|l| (l, Some(f.seq)));
        }
        c.drop_subtree(self.id, rel);
        None
    }

    /// List `rel`, opened as `dir`, found in a folder of trust `parent` (`None` for the start
    /// folder): watched first and kept when the parent is cached, the file system local, and
    /// the bounds allow; else just listed (trust `None`: nothing below it is kept).
    pub fn list_child(
        &self,
        rel: &[u8],
        dir: BorrowedFd<'_>,
        parent: Trust,
    ) -> Option<(Arc<Listing>, Trust)> {
        if parent.is_none() {
            return Listing::uncached(dir);
        }
        self.list(rel, dir, None)
    }

    fn list(
        &self,
        rel: &[u8],
        dir: BorrowedFd<'_>,
        known: Option<(u64, u64)>,
    ) -> Option<(Arc<Listing>, Trust)> {
        let plain = || Listing::uncached(dir);
        let Some((dev, ino)) = known.or_else(|| identity(dir)) else {
            return plain();
        };
        if !local(dir) {
            return plain();
        }
        let mut c = lock(self.cache);
        if c.root(self.id).is_none() {
            drop(c);
            return plain();
        }
        // A folder already cached under this path keeps its watch (its listing was dropped).
        let existing = c
            .folder(self.id, rel)
            .map(|f| (f.dev == dev && f.ino == ino, f.seq));
        let seq = match existing {
            Some((true, seq)) => seq,
            other => {
                if other.is_some() {
                    c.drop_subtree(self.id, rel);
                }
                if c.by_wd.len() >= WATCHES_MAX {
                    drop(c);
                    return plain();
                }
                let Some(fd) = c.fd() else {
                    drop(c);
                    return plain();
                };
                let Some(wd) = watch(fd, dir) else {
                    drop(c);
                    return plain();
                };
                if c.by_wd.contains_key(&wd) {
                    // The same folder cached under another path or root: one cache per watch.
                    drop(c);
                    return plain();
                }
                c.seq += 1;
                let seq = c.seq;
                c.by_wd.insert(wd, (self.id, rel.into()));
                let Some(root) = c.root(self.id) else {
                    drop(c);
                    return plain();
                };
                root.folders.insert(
                    rel.into(),
                    Folder {
                        wd,
                        dev,
                        ino,
                        seq,
                        gen: 0,
                        listing: None,
                        files: HashMap::new(),
                        bytes: 0,
                        content: 0,
                    },
                );
                seq
            }
        };
        // Watched before it is listed: whatever changes from here raises an event.
        let l = Arc::new(Listing::read(dir)?);
        let cost = listing_bytes(&l);
        if c.room(cost, self.id) {
            if let Some(r) = c.root(self.id) {
                if let Some(f) = r.folders.get_mut(rel) {
                    f.listing = Some(l.clone());
                    f.bytes += cost;
                    r.bytes += cost;
                    return Some((l, Some(seq)));
                }
            }
        }
        Some((l, None))
    }

    /// The cached content of `name` in the cached folder `rel` watched as `seq` (the walk's
    /// trust in it), or the folder's generation to hand back to [`Tree::keep`] after reading
    /// it; nothing when the folder is no longer the one the walk listed.
    pub fn content(&self, rel: &[u8], seq: u64, name: &[u8]) -> Result<Bytes, Option<u64>> {
        let mut c = lock(self.cache);
        let Some(f) = c.folder(self.id, rel).filter(|f| f.seq == seq) else {
            return Err(None);
        };
        match f.files.get(name) {
            Some(bytes) => Ok(bytes.clone()),
            None => Err(Some(f.gen)),
        }
    }

    /// Keep what was read of `name` in `rel` (watched as `seq`) unless an event about the
    /// folder came since the read began (`gen`) or the budget has no room (a file larger than a
    /// block is not kept).
    pub fn keep(&self, rel: &[u8], seq: u64, name: &[u8], gen: u64, bytes: &[u8]) {
        if bytes.len() > BLOCK {
            return;
        }
        let mut c = lock(self.cache);
        let current = matches!(c.folder(self.id, rel),
            Some(f) if f.seq == seq && f.gen == gen && !f.files.contains_key(name));
        let Some(r) = c.root(self.id).filter(|_| current) else {
            return;
        };
        let new_block = r.blocks.is_empty() || r.fill + bytes.len() > BLOCK;
        let cost = entry_bytes(name) + if new_block { BLOCK } else { 0 };
        if !c.room(cost, self.id) {
            return;
        }
        let Some(r) = c.root(self.id) else { return };
        if new_block {
            let Some(block) = Block::new() else { return };
            r.blocks.push(Arc::new(block));
            r.fill = 0;
            r.bytes += BLOCK;
        }
        let Some(block) = r.blocks.last().cloned() else {
            return;
        };
        let at = r.fill;
        // SAFETY: `at..at + len` is past every range handed out of this block (`fill` only
        // grows, under the lock) and inside it (checked above); written before it is shared.
        let kept = unsafe {
            block.write(at, bytes);
            Bytes::new(block, at, bytes.len())
        };
        r.fill += bytes.len();
        r.live += bytes.len();
        r.bytes += entry_bytes(name);
        if let Some(f) = r.folders.get_mut(rel) {
            f.files.insert(name.into(), kept);
            f.bytes += entry_bytes(name);
            f.content += bytes.len();
        }
    }
}

/// Device and inode of an open descriptor.
fn identity(fd: BorrowedFd<'_>) -> Option<(u64, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat fills the buffer on success.
    if unsafe { libc::fstat(fd.as_raw_fd(), st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: initialised by the successful call.
    let st = unsafe { st.assume_init() };
    Some((st.st_dev, st.st_ino))
}

/// Whether the open folder is on a file system in [`LOCAL_FS`].
fn local(fd: BorrowedFd<'_>) -> bool {
    let mut st = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: fstatfs fills the buffer on success.
    if unsafe { libc::fstatfs(fd.as_raw_fd(), st.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: initialised by the successful call.
    let kind = unsafe { st.assume_init() }.f_type;
    LOCAL_FS.contains(&kind)
}

/// Watch the folder open as `dir`: through `/proc/self/fd`, so the watch is on that folder
/// whatever its path leads to now (without /proc, nothing is watched).
fn watch(notify: BorrowedFd<'_>, dir: BorrowedFd<'_>) -> Option<i32> {
    let path = format!("/proc/self/fd/{}\0", dir.as_raw_fd());
    // SAFETY: a NUL-terminated path and our instance.
    let wd =
        unsafe { libc::inotify_add_watch(notify.as_raw_fd(), path.as_ptr().cast(), WATCH_MASK) };
    (wd >= 0).then_some(wd)
}

#[cfg(test)]
#[path = "tree_cache_tests.rs"]
mod tests;
