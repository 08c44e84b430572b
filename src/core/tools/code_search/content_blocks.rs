//! Memory for the tree cache's file contents: blocks of [`BLOCK`] bytes mapped whole, asked for
//! as one huge page and populated in one call, filled front to back.
//!
//! Why not one allocation per file: the first search of a workspace copies every file it keeps,
//! and fresh heap memory costs one page fault per 4 KiB touched. On a VM a fault costs several
//! microseconds (measured: 4,000 extra faults made the first search of 2,000 files of 8 KB
//! 21–24 ms slower, 1.6x the search without the cache); a populated huge page is one call per
//! 2 MiB.
//!
//! A range handed out ([`Bytes`]) is never written again, and writes only go past the block's
//! fill, under the cache's lock; a block is unmapped when the last range of it is dropped.

use std::ops::Deref;
use std::sync::Arc;

/// Bytes per block: one huge page on x86-64 and arm64 (4 KiB pages).
pub const BLOCK: usize = 2 << 20;

/// One mapped block.
pub struct Block {
    ptr: *mut u8,
}

// SAFETY: the block is plain memory owned by this value; ranges are written once before they
// are shared (under the cache's lock) and only read after.
unsafe impl Send for Block {}
// SAFETY: as above.
unsafe impl Sync for Block {}

impl Block {
    /// A new block, aligned to its size so the kernel can back it with one huge page; `None`
    /// when the system has no memory to map.
    pub fn new() -> Option<Block> {
        // SAFETY: an anonymous private mapping, twice the size so an aligned block fits in it.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                2 * BLOCK,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return None;
        }
        let start = raw as usize;
        let aligned = (start + BLOCK - 1) & !(BLOCK - 1);
        let head = aligned - start;
        let tail = 2 * BLOCK - head - BLOCK;
        // SAFETY: both ranges lie inside the mapping just made and outside the kept block.
        unsafe {
            if head > 0 {
                libc::munmap(raw, head);
            }
            if tail > 0 {
                libc::munmap((aligned + BLOCK) as *mut libc::c_void, tail);
            }
            let block = aligned as *mut libc::c_void;
            // Advice only: without huge pages (or on kernels before 5.14 for the second), the
            // block is still usable and faults in page by page.
            libc::madvise(block, BLOCK, libc::MADV_HUGEPAGE);
            libc::madvise(block, BLOCK, libc::MADV_POPULATE_WRITE);
        }
        Some(Block {
            ptr: aligned as *mut u8,
        })
    }

    /// Copy `bytes` to `at` (a range past every range handed out, inside the block).
    ///
    /// # Safety
    /// `at + bytes.len() <= BLOCK`, and no [`Bytes`] of this block covers the range.
    pub unsafe fn write(&self, at: usize, bytes: &[u8]) {
        debug_assert!(at + bytes.len() <= BLOCK);
        // SAFETY: in bounds by the caller's promise; nobody reads the range yet.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr.add(at), bytes.len()) };
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: the block mapped in `new`; no range of it is alive (each holds the block).
        unsafe { libc::munmap(self.ptr.cast(), BLOCK) };
    }
}

/// A range of a block: a cached file's content.
#[derive(Clone)]
pub struct Bytes {
    block: Arc<Block>,
    start: usize,
    len: usize,
}

impl Bytes {
    /// The range `start..start + len` of `block`, written before.
    ///
    /// # Safety
    /// The range is inside the block and was written by [`Block::write`].
    pub unsafe fn new(block: Arc<Block>, start: usize, len: usize) -> Bytes {
        Bytes { block, start, len }
    }
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: a written range of a live block (held by `self`), never written again.
        unsafe { std::slice::from_raw_parts(self.block.ptr.add(self.start), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_back_what_was_written_and_outlive_the_writer() {
        let block = Arc::new(Block::new().unwrap());
        assert_eq!(block.ptr as usize % BLOCK, 0, "aligned");
        let one = b"first file\n";
        let two = vec![7u8; BLOCK - one.len()];
        // SAFETY: consecutive ranges inside the block, each written once before it is read.
        let (a, b) = unsafe {
            block.write(0, one);
            block.write(one.len(), &two);
            (
                Bytes::new(block.clone(), 0, one.len()),
                Bytes::new(block.clone(), one.len(), two.len()),
            )
        };
        drop(block);
        assert_eq!(&*a, one);
        assert_eq!(&*b, &two[..], "up to the block's last byte");
        drop(a);
        assert_eq!(b.len(), BLOCK - one.len());
    }
}
