//! A fast way back to a tool's [`PreparedTool`] from text the caller still holds in place.
//!
//! The router's own cache ([`super::router::prepare_all`]) wants owned [`ToolDescriptor`]s and
//! hashes them byte by byte. A binding that reads the same 100 tools on every turn would copy
//! every name, description and metadata string just to find them again. This index is keyed by
//! a word-at-a-time hash of the same text streamed from wherever it lives (a PHP array, for the
//! bindings) and checked piece by piece against the cached descriptor, so a hit copies nothing.
//!
//! Rules:
//! - A tool is streamed as pieces: its name, its description, then for each of domains, tags,
//!   intents and examples the number of items followed by the items ([`Piece`]).
//! - A hit requires every piece to equal the cached descriptor's, byte for byte.
//! - The index holds at most [`INDEX_CAPACITY`] tools; when full it is emptied and refilled.
//!   It holds no caller value, only `Arc`s of prepared tools.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use once_cell::sync::Lazy;

use super::router::{prepare, PreparedTool, ToolDescriptor};

/// Most tools the index holds before it starts over.
pub const INDEX_CAPACITY: usize = 4096;

/// One piece of a streamed tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// The name, the description, or one list item.
    Text(&'a [u8]),
    /// The number of items in the next list.
    Count(usize),
}

/// Something that can stream a tool's pieces, in order, as often as asked.
pub trait ToolPieces {
    /// Calls `f` with every piece in order; stops early when `f` returns false.
    fn for_each_piece(&self, f: &mut dyn FnMut(Piece<'_>) -> bool);
}

const K: u64 = 0x517c_c1b7_2722_0a95;

/// Word-at-a-time hash state (FxHash-style mixing with a length fold per piece).
struct Hasher(u64);

impl Hasher {
    fn word(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
    }

    fn piece(&mut self, p: Piece<'_>) {
        match p {
            Piece::Count(n) => {
                self.word(0xC0);
                self.word(n as u64);
            }
            Piece::Text(bytes) => {
                self.word(bytes.len() as u64);
                let mut chunks = bytes.chunks_exact(8);
                for c in &mut chunks {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(c);
                    self.word(u64::from_le_bytes(b));
                }
                let rest = chunks.remainder();
                if !rest.is_empty() {
                    let mut b = [0u8; 8];
                    if let Some(dst) = b.get_mut(..rest.len()) {
                        dst.copy_from_slice(rest);
                    }
                    self.word(u64::from_le_bytes(b));
                }
            }
        }
    }
}

/// The hash of a streamed tool.
pub fn hash_pieces(tool: &dyn ToolPieces) -> u64 {
    let mut h = Hasher(0);
    tool.for_each_piece(&mut |p| {
        h.piece(p);
        true
    });
    h.0
}

/// The pieces of a descriptor, in streaming order.
fn descriptor_pieces(d: &ToolDescriptor) -> Vec<Piece<'_>> {
    let mut out = vec![
        Piece::Text(d.name.as_bytes()),
        Piece::Text(d.description.as_bytes()),
    ];
    for list in [&d.domains, &d.tags, &d.intents, &d.examples] {
        out.push(Piece::Count(list.len()));
        out.extend(list.iter().map(|s| Piece::Text(s.as_bytes())));
    }
    out
}

impl ToolPieces for ToolDescriptor {
    fn for_each_piece(&self, f: &mut dyn FnMut(Piece<'_>) -> bool) {
        for p in descriptor_pieces(self) {
            if !f(p) {
                return;
            }
        }
    }
}

/// Piece `n` of a descriptor in streaming order (what [`descriptor_pieces`] lists), without
/// building the list.
fn nth_piece(d: &ToolDescriptor, n: usize) -> Option<Piece<'_>> {
    match n {
        0 => return Some(Piece::Text(d.name.as_bytes())),
        1 => return Some(Piece::Text(d.description.as_bytes())),
        _ => {}
    }
    let mut n = n - 2;
    for list in [&d.domains, &d.tags, &d.intents, &d.examples] {
        if n == 0 {
            return Some(Piece::Count(list.len()));
        }
        n -= 1;
        if let Some(item) = list.get(n) {
            return Some(Piece::Text(item.as_bytes()));
        }
        n -= list.len();
    }
    None
}

/// Whether a streamed tool is exactly this descriptor.
fn same_tool(tool: &dyn ToolPieces, d: &ToolDescriptor) -> bool {
    let mut at = 0usize;
    let mut equal = true;
    tool.for_each_piece(&mut |p| {
        equal = nth_piece(d, at) == Some(p);
        at += 1;
        equal
    });
    equal && nth_piece(d, at).is_none()
}

type Index = Mutex<(usize, HashMap<u64, Vec<Arc<PreparedTool>>>)>;

static INDEX: Lazy<Index> = Lazy::new(|| Mutex::new((0, HashMap::new())));

/// The prepared tool for a streamed tool, when the index holds it.
pub fn lookup(tool: &dyn ToolPieces, hash: u64) -> Option<Arc<PreparedTool>> {
    let index = INDEX.lock().unwrap_or_else(|e| e.into_inner());
    index
        .1
        .get(&hash)?
        .iter()
        .find(|p| same_tool(tool, p.descriptor()))
        .cloned()
}

/// Prepares a descriptor (through the router's cache) and files it under `hash`.
pub fn insert(descriptor: &ToolDescriptor, hash: u64) -> Arc<PreparedTool> {
    let prepared = prepare(descriptor);
    let mut index = INDEX.lock().unwrap_or_else(|e| e.into_inner());
    if index.0 >= INDEX_CAPACITY {
        index.1.clear();
        index.0 = 0;
    }
    let bucket = index.1.entry(hash).or_default();
    if !bucket.iter().any(|p| p.descriptor() == descriptor) {
        bucket.push(Arc::clone(&prepared));
        index.0 += 1;
    }
    prepared
}

/// Number of tools the index holds (for tests).
pub fn len() -> usize {
    INDEX.lock().unwrap_or_else(|e| e.into_inner()).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, desc: &str, intents: &[&str]) -> ToolDescriptor {
        ToolDescriptor {
            intents: intents.iter().map(|s| s.to_string()).collect(),
            ..ToolDescriptor::new(name, desc)
        }
    }

    #[test]
    fn a_filed_tool_is_found_again_and_only_when_equal() {
        let d = tool("index_probe_tool", "a description", &["look up things"]);
        let h = hash_pieces(&d);
        let first = insert(&d, h);
        let found = lookup(&d, h);
        assert!(found.is_some_and(|p| Arc::ptr_eq(&p, &first)));
        // Any change is a different tool (and almost surely a different hash).
        for other in [
            tool("index_probe_tool", "a descriptio", &["look up things"]),
            tool("index_probe_tool", "a description", &["look up thing"]),
            tool("index_probe_tool", "a description", &["look up", "things"]),
            tool("index_probe_tool", "a description", &[]),
        ] {
            assert!(lookup(&other, hash_pieces(&other)).is_none());
            // Even under the same hash, the pieces are compared.
            assert!(lookup(&other, h).is_none());
        }
    }

    #[test]
    fn list_boundaries_are_part_of_the_identity() {
        let a = ToolDescriptor {
            tags: vec!["x".into()],
            ..ToolDescriptor::new("n", "d")
        };
        let b = ToolDescriptor {
            domains: vec!["x".into()],
            ..ToolDescriptor::new("n", "d")
        };
        assert_ne!(hash_pieces(&a), hash_pieces(&b));
        assert!(!same_tool(&a, &b));
        assert!(same_tool(&a, &a.clone()));
        // Lengths are folded in: "ab" + "c" is not "a" + "bc".
        let c = ToolDescriptor::new("ab", "c");
        let d = ToolDescriptor::new("a", "bc");
        assert_ne!(hash_pieces(&c), hash_pieces(&d));
    }

    #[test]
    fn nth_piece_walks_the_descriptor_pieces() {
        let d = ToolDescriptor {
            domains: vec!["a".into(), "b".into()],
            tags: vec![],
            intents: vec!["c".into()],
            examples: vec!["d".into(), "e".into(), "f".into()],
            ..ToolDescriptor::new("n", "x")
        };
        let all = descriptor_pieces(&d);
        for (i, p) in all.iter().enumerate() {
            assert_eq!(nth_piece(&d, i), Some(*p));
        }
        assert_eq!(nth_piece(&d, all.len()), None);
        assert_eq!(nth_piece(&d, all.len() + 5), None);
        // A stream that stops early, or runs on, is not the tool.
        let short = ToolDescriptor {
            examples: vec!["d".into(), "e".into()],
            ..d.clone()
        };
        assert!(!same_tool(&short, &d));
        assert!(!same_tool(&d, &short));
        assert!(same_tool(&d, &d.clone()));
    }

    #[test]
    fn the_index_stays_bounded() {
        for i in 0..INDEX_CAPACITY + 10 {
            let d = ToolDescriptor::new(format!("bulk_index_{i}"), "");
            insert(&d, hash_pieces(&d));
        }
        assert!(len() <= INDEX_CAPACITY);
    }
}
