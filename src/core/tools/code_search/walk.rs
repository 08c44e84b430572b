//! code_search's walk: folders listed in name order, each opened by its one name in its parent
//! (which was itself opened beneath the root with no link crossed), and every file opened by its
//! one name in the open folder that listed it. One name with no link followed cannot leave its
//! folder, and the kernel resolves one component per open instead of every folder above it. (A
//! folder renamed out of the workspace while the walk holds it is still read through its
//! descriptor: no more than whoever renamed it could have put inside the workspace itself.)
//!
//! A folder keeps its descriptor while files of it wait to be scanned, at most
//! [`HELD_FOLDERS_MAX`] per search (descriptors are few and shared by the whole process): past
//! that a folder is opened again when its first file is read, or, when even that would pass the
//! bound, its files are opened from the root by their whole path, as every file was before.
//!
//! The path of a file relative to the root (what rows show) is only put together when it is
//! needed: a row, a file kept for a later pass ([`Named`]), a folder without a descriptor.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::content_blocks::Bytes;
use super::listing::{self, Kind};
use super::tree_cache::{Listing, Tree, Trust};
use super::{extension_matches, scan, MAX_FILE_BYTES};
use crate::core::budget::Budget;
use crate::core::security::file_rules::code_search_skips_path;
use crate::core::security::workspace::beneath::{self, HardLinks, Want};
use crate::core::security::workspace::open_root::OpenRoot;

/// Folder descriptors one search holds open at most (see the module docs).
pub const HELD_FOLDERS_MAX: usize = 64;

/// A folder of the walk: its path relative to the root, its listing, its trust in the
/// [`tree_cache`] (`Some` when cached), and, once opened for its files, its descriptor
/// (`None` inside when the bound was reached).
pub struct Folder {
    rel: Vec<u8>,
    list: Arc<Listing>,
    tree: Option<Tree>,
    trust: Trust,
    fd: OnceLock<Option<OwnedFd>>,
    held: Arc<AtomicUsize>,
}

impl Folder {
    /// The folder's descriptor for opening its files by name: the one it was listed through,
    /// or opened again beneath the root on first use; `None` past the bound.
    fn fd(&self, open: &OpenRoot) -> Option<BorrowedFd<'_>> {
        let fd = self.fd.get_or_init(|| {
            let root = open.dir_fd()?;
            if !take_slot(&self.held) {
                return None;
            }
            let fd = beneath::open_beneath(root, &self.rel, libc::O_PATH | libc::O_DIRECTORY);
            if fd.is_err() {
                self.held.fetch_sub(1, Ordering::Relaxed);
            }
            fd.ok()
        });
        fd.as_ref().map(AsFd::as_fd)
    }

    /// The path of its entry `name` relative to the root.
    fn join(&self, name: &[u8]) -> Vec<u8> {
        listing::join(&self.rel, name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        if matches!(self.fd.get(), Some(Some(_))) {
            self.held.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// One more held descriptor, unless the bound is reached.
fn take_slot(held: &AtomicUsize) -> bool {
    held.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
        (n < HELD_FOLDERS_MAX).then_some(n + 1)
    })
    .is_ok()
}

/// A file the walk hands to the scan: its folder and its entry there (a link is followed and
/// judged only when it is opened).
pub struct Visit {
    at: Arc<Folder>,
    index: usize,
}

/// A file's bytes as [`Visit::fetch`] gives them: read into the caller's buffer, or shared
/// with the tree cache.
pub enum Got {
    /// In the buffer passed in.
    Buf,
    /// The cached content (the buffer is left as it was).
    Shared(Bytes),
}

impl Visit {
    fn name(&self) -> &[u8] {
        &self.at.list.entries[self.index].0
    }

    fn link(&self) -> bool {
        self.at.list.entries[self.index].1 == Kind::FileLink
    }

    /// Its path relative to the root.
    pub fn rel(&self) -> Vec<u8> {
        self.at.join(self.name())
    }

    /// The same file named by its whole path, holding no descriptor.
    pub fn named(&self) -> Named {
        Named {
            rel: self.rel(),
            link: self.link(),
        }
    }

    /// Its bytes when the scan may read it: from the tree cache when its folder is cached and
    /// the file is, else [`read_at`] through its folder's descriptor (or from the root without
    /// one) into `buf`, and then kept in the cache when it may be (a regular file reached by
    /// its own name, with one link, within the size bound).
    pub fn fetch(&self, open: &OpenRoot, hard_links: HardLinks, buf: &mut Vec<u8>) -> Option<Got> {
        let f = &self.at;
        let (name, link) = (self.name(), self.link());
        let mut keep = None;
        if let (Some(tree), Some(seq), false) = (f.tree, f.trust, link) {
            match tree.content(&f.rel, seq, name) {
                Ok(bytes) => return Some(Got::Shared(bytes)),
                Err(gen) => keep = gen.map(|g| (tree, seq, g)),
            }
        }
        let links = match f.fd(open) {
            Some(dir) => read_at(open, dir, name, link, hard_links, buf),
            None => read_named(open, &self.rel(), link, hard_links, buf),
        }?;
        if let Some((tree, seq, gen)) = keep {
            if links == 1 && buf.len() as u64 <= MAX_FILE_BYTES {
                tree.keep(&f.rel, seq, name, gen, buf);
            }
        }
        Some(Got::Buf)
    }

    /// [`Visit::fetch`] always into `buf` (a cached content is copied); whether it may be read.
    pub fn read(&self, open: &OpenRoot, hard_links: HardLinks, buf: &mut Vec<u8>) -> bool {
        match self.fetch(open, hard_links, buf) {
            Some(Got::Buf) => true,
            Some(Got::Shared(bytes)) => {
                buf.clear();
                buf.extend_from_slice(&bytes);
                true
            }
            None => false,
        }
    }
}

/// A file named by its path relative to the root: kept for a later pass (the probing helper,
/// the skipped-lines warning) without keeping its folder open.
#[derive(Clone, Debug)]
pub struct Named {
    rel: Vec<u8>,
    link: bool,
}

impl Named {
    /// [`read_at`] from the root.
    pub fn read(&self, open: &OpenRoot, hard_links: HardLinks, buf: &mut Vec<u8>) -> bool {
        read_named(open, &self.rel, self.link, hard_links, buf).is_some()
    }
}

/// [`read_at`] of `rel` from the root.
fn read_named(
    open: &OpenRoot,
    rel: &[u8],
    link: bool,
    hard_links: HardLinks,
    buf: &mut Vec<u8>,
) -> Option<u64> {
    match open.dir_fd() {
        Some(root) => read_at(open, root, rel, link, hard_links, buf),
        None => {
            buf.clear();
            None
        }
    }
}

/// Open `rel` beneath `dir` (the root, or a folder opened beneath it) and read it into `buf`
/// when the scan may read it: no link crossed on the way; a link only to a regular file inside
/// the workspace whose real path the search would not skip (secret, noise or security folder);
/// one hard link unless allowed; at most [`MAX_FILE_BYTES`]. What is judged is the opened file,
/// read through the same descriptor. Gives the file's number of hard links when it was read.
fn read_at(
    open: &OpenRoot,
    dir: BorrowedFd<'_>,
    rel: &[u8],
    link: bool,
    hard_links: HardLinks,
    buf: &mut Vec<u8>,
) -> Option<u64> {
    #[cfg(test)]
    tests::DISK_READS.with(|n| n.set(n.get() + 1));
    let skips = |real: &[u8]| code_search_skips_path(&String::from_utf8_lossy(real));
    let root = open.root_str().as_bytes();
    match beneath::open_judged_file(dir, root, rel, link, Want::File, hard_links, &skips) {
        Ok((file, meta, _)) => {
            scan::read_open(file, meta.len(), MAX_FILE_BYTES, buf).then(|| meta.nlink())
        }
        Err(_) => {
            buf.clear();
            None
        }
    }
}

/// The walk of one folder (relative to the root, opened beneath it with no link crossed) in
/// name order, one file to scan at a time: noise folders, secret files and other extensions
/// left out, folders descended into as they come. Entry types come from `listing`: links to
/// files are handed over as links (followed and judged when opened), links to folders are not
/// followed. Listings come from the [`tree_cache`] where it holds them (a folder's descriptor
/// is then only opened when one of its files is not cached). It owns what it needs, so it can
/// move to a helper thread part-way.
pub struct Walker {
    open: Arc<OpenRoot>,
    /// The walk's bound (`core::budget`), spent once per entry: once it is spent the walk
    /// ends as if the tree did.
    budget: Arc<Budget>,
    extension: String,
    /// Folder descriptors held by this walk's folders.
    held: Arc<AtomicUsize>,
    tree: Option<Tree>,
    /// The folders being listed, innermost last, with the index of their next entry.
    stack: Vec<(usize, Arc<Folder>)>,
}

impl Walker {
    /// A walk of `sub` (relative to the root; empty for the root), through the tree cache.
    pub fn new(open: Arc<OpenRoot>, sub: Vec<u8>, extension: String, budget: Arc<Budget>) -> Self {
        let tree = open.identity().and_then(Tree::begin);
        Self::with_tree(open, sub, extension, budget, tree)
    }

    /// The same walk reading everything from the disk.
    pub fn uncached(
        open: Arc<OpenRoot>,
        sub: Vec<u8>,
        extension: String,
        budget: Arc<Budget>,
    ) -> Self {
        Self::with_tree(open, sub, extension, budget, None)
    }

    /// The same walk through the given cache (`None`: from the disk).
    pub(crate) fn with_tree(
        open: Arc<OpenRoot>,
        sub: Vec<u8>,
        extension: String,
        budget: Arc<Budget>,
        tree: Option<Tree>,
    ) -> Self {
        let mut w = Walker {
            open,
            budget,
            extension,
            held: Arc::new(AtomicUsize::new(0)),
            tree,
            stack: Vec::new(),
        };
        if let Some(root) = w.open.dir_fd() {
            let flags = libc::O_RDONLY | libc::O_DIRECTORY;
            if let Ok(dir) = beneath::open_beneath(root, &sub, flags) {
                let listed = match w.tree {
                    Some(t) => t.start(&sub, dir.as_fd()),
                    None => Listing::uncached(dir.as_fd()),
                };
                w.enter(Some(dir), sub, listed);
            }
        }
        w
    }

    /// Start walking the folder `rel` with its listing (nothing when it could not be listed),
    /// keeping its descriptor `dir` for its files while the bound allows.
    fn enter(&mut self, dir: Option<OwnedFd>, rel: Vec<u8>, listed: Option<(Arc<Listing>, Trust)>) {
        let Some((list, trust)) = listed else { return };
        let fd = OnceLock::new();
        if let Some(dir) = dir {
            if take_slot(&self.held) {
                let _ = fd.set(Some(dir));
            }
        }
        let folder = Folder {
            rel,
            list,
            tree: self.tree,
            trust,
            fd,
            held: self.held.clone(),
        };
        self.stack.push((0, Arc::new(folder)));
    }

    /// Whether every file was handed over.
    pub fn is_done(&self) -> bool {
        self.stack.is_empty()
    }
}

impl Iterator for Walker {
    type Item = Visit;

    /// The next file to scan, in walk order.
    fn next(&mut self) -> Option<Visit> {
        loop {
            let (next, folder) = self.stack.last_mut()?;
            let index = *next;
            let Some((name, kind)) = folder.list.entries.get(index) else {
                self.stack.pop();
                continue;
            };
            *next += 1;
            if !self.budget.spend() {
                self.stack.clear();
                return None;
            }
            let skipped = folder.list.skipped[index];
            match kind {
                Kind::Dir => {
                    if skipped {
                        continue;
                    }
                    let rel = folder.join(name);
                    let trust = folder.trust;
                    if let Some(cached) = self.tree.and_then(|t| t.child(&rel, trust)) {
                        self.enter(None, rel, Some(cached));
                        continue;
                    }
                    let flags = libc::O_RDONLY | libc::O_DIRECTORY;
                    // Through the parent's descriptor when it is held, else from the root.
                    let dir = match folder.fd.get() {
                        Some(Some(parent)) => beneath::open_beneath(parent.as_fd(), name, flags),
                        _ => match self.open.dir_fd() {
                            Some(root) => beneath::open_beneath(root, &rel, flags),
                            None => continue,
                        },
                    };
                    let Ok(dir) = dir else { continue };
                    let listed = match self.tree {
                        Some(t) => t.list_child(&rel, dir.as_fd(), trust),
                        None => Listing::uncached(dir.as_fd()),
                    };
                    self.enter(Some(dir), rel, listed);
                }
                Kind::File | Kind::FileLink => {
                    if !skipped && extension_matches(name, &self.extension) {
                        return Some(Visit {
                            at: folder.clone(),
                            index,
                        });
                    }
                }
                // As the reference's directory iterator: a link to a folder is not descended
                // into (which also keeps link cycles from multiplying the walk).
                Kind::DirLink | Kind::Other | Kind::OtherLink => {}
            }
        }
    }
}

#[cfg(test)]
#[path = "walk_tests.rs"]
pub(crate) mod tests;
