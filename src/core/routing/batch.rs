//! The tools of one registry, ranked together: an inverted keyword index and the name order,
//! built once per distinct list of prepared tools, so ranking a message costs in proportion to
//! the message and to the tools it matches, not to all the metadata.
//!
//! Rules:
//! - A batch is the ordered list of prepared tools a caller ranks; it never changes once built.
//! - [`batch_for`] finds the batch of a list again: first by the list's own storage (a slice
//!   of a batch the cache holds), then by the identity of every prepared tool, in order.
//!   The cache holds at most [`BATCH_CACHE_CAPACITY`] batches, oldest out first.
//! - Scores are summed in exactly the order the router's rules give (signal by signal, words
//!   in message order), so a batch ranks bit for bit like the tool-by-tool scan.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Deref;
use std::sync::{Arc, Mutex};

use once_cell::sync::Lazy;

use super::router::{PreparedTool, ANYWHERE, IDF_MIN_TOOLS, SIGNAL_BITS, SIGNAL_WEIGHTS};
use super::text::{fnv1a, FNV_OFFSET};

/// Most batches the process-wide cache keeps.
pub const BATCH_CACHE_CAPACITY: usize = 16;

/// A hasher for keys that already are well-mixed 64-bit hashes.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv1a(bytes, self.0 ^ FNV_OFFSET);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// One tool carrying one keyword.
#[derive(Debug, Clone, Copy)]
struct Posting {
    tool: u32,
    entry: u32,
    mask: u8,
}

/// Prepared tools with the indexes that make ranking cheap.
#[derive(Debug)]
pub struct PreparedBatch {
    tools: Vec<Arc<PreparedTool>>,
    by_name: Vec<u32>,
    name_rank: Vec<u32>,
    postings: KeyMap<Vec<Posting>>,
}

impl Deref for PreparedBatch {
    type Target = [Arc<PreparedTool>];

    fn deref(&self) -> &Self::Target {
        &self.tools
    }
}

impl PreparedBatch {
    /// Indexes a list of prepared tools (no cache; [`batch_for`] is the cached way in).
    pub fn new(tools: Vec<Arc<PreparedTool>>) -> Self {
        let mut by_name: Vec<u32> = (0..tools.len() as u32).collect();
        let name = |i: u32| tools.get(i as usize).map_or("", |t| t.name_lower());
        by_name.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut name_rank = vec![0u32; tools.len()];
        for (rank, &i) in by_name.iter().enumerate() {
            if let Some(slot) = name_rank.get_mut(i as usize) {
                *slot = rank as u32;
            }
        }
        let mut postings: KeyMap<Vec<Posting>> = KeyMap::default();
        for (t, tool) in tools.iter().enumerate() {
            for (e, (hash, _, mask)) in tool.keyword_entries().enumerate() {
                postings.entry(hash).or_default().push(Posting {
                    tool: t as u32,
                    entry: e as u32,
                    mask,
                });
            }
        }
        Self {
            tools,
            by_name,
            name_rank,
            postings,
        }
    }

    /// The prepared tools, in the caller's order.
    pub fn tools(&self) -> &[Arc<PreparedTool>] {
        &self.tools
    }

    /// Tool indices sorted by lowercased name, then position.
    pub fn by_name(&self) -> &[u32] {
        &self.by_name
    }

    /// A tool's place in [`PreparedBatch::by_name`].
    pub fn name_rank(&self, tool: usize) -> u32 {
        self.name_rank.get(tool).copied().unwrap_or(u32::MAX)
    }

    /// Calls `f(tool, mask)` for every tool carrying `word` (hash `hash`), in tool order.
    fn for_each_carrier(&self, hash: u64, word: &str, mut f: impl FnMut(usize, u8)) {
        let Some(list) = self.postings.get(&hash) else {
            return;
        };
        for p in list {
            let tool = p.tool as usize;
            let same = self
                .tools
                .get(tool)
                .and_then(|t| t.keyword_entry(p.entry as usize))
                .is_some_and(|(_, token, _)| token == word);
            if same {
                f(tool, p.mask);
            }
        }
    }

    /// Every tool's score against counted message keywords, ranking only the tools marked in
    /// `scorable` (the others score 0 and take no part in word weights).
    pub fn scores(&self, scorable: &[bool], words: &[(String, usize)]) -> Vec<f64> {
        let n = scorable.iter().filter(|&&s| s).count();
        // (tool, word, mask), words in message order.
        let mut hits: Vec<(u32, u32, u8)> = Vec::new();
        let mut carriers = vec![0usize; words.len()];
        for (w, (word, _)) in words.iter().enumerate() {
            let hash = fnv1a(word.as_bytes(), FNV_OFFSET);
            self.for_each_carrier(hash, word, |tool, mask| {
                if scorable.get(tool).copied().unwrap_or(false) {
                    hits.push((tool as u32, w as u32, mask));
                    if mask & ANYWHERE != 0 {
                        if let Some(c) = carriers.get_mut(w) {
                            *c += 1;
                        }
                    }
                }
            });
        }
        let weights: Vec<f64> = if n < IDF_MIN_TOOLS {
            vec![1.0; words.len()]
        } else {
            words
                .iter()
                .zip(&carriers)
                .map(|((_, repeats), &c)| {
                    let rarity = if c == 0 {
                        1.0
                    } else {
                        (n as f64 / c as f64).ln()
                    };
                    rarity / (1.0 + (*repeats as f64).ln())
                })
                .collect()
        };
        // Group by tool, keeping message order within a tool (a counting sort: hits are
        // already in message order).
        let mut start = vec![0usize; self.tools.len() + 1];
        for &(tool, _, _) in &hits {
            if let Some(c) = start.get_mut(tool as usize + 1) {
                *c += 1;
            }
        }
        for i in 1..start.len() {
            let before = start.get(i - 1).copied().unwrap_or(0);
            if let Some(c) = start.get_mut(i) {
                *c += before;
            }
        }
        let mut grouped = vec![(0u32, 0u32, 0u8); hits.len()];
        for &hit in &hits {
            if let Some(at) = start.get_mut(hit.0 as usize) {
                if let Some(slot) = grouped.get_mut(*at) {
                    *slot = hit;
                }
                *at += 1;
            }
        }
        let mut out = vec![0.0; self.tools.len()];
        for row in grouped.chunk_by(|a, b| a.0 == b.0) {
            let Some(&(tool, _, _)) = row.first() else {
                continue;
            };
            let mut total = 0.0;
            for (&(_, weight), bit) in SIGNAL_WEIGHTS.iter().zip(SIGNAL_BITS) {
                let mut sum = 0.0;
                for &(_, w, mask) in row {
                    if mask & bit != 0 {
                        sum += weights.get(w as usize).copied().unwrap_or(0.0);
                    }
                }
                total += weight * sum;
            }
            if let Some(slot) = out.get_mut(tool as usize) {
                *slot = total;
            }
        }
        out
    }
}

/// Recently ranked batches, newest last.
static BATCHES: Lazy<Mutex<Vec<Arc<PreparedBatch>>>> = Lazy::new(|| Mutex::new(Vec::new()));

/// The batch of a list of prepared tools, from the cache or newly indexed (and cached).
pub fn batch_for(tools: &[Arc<PreparedTool>]) -> Arc<PreparedBatch> {
    {
        let cache = BATCHES.lock().unwrap_or_else(|e| e.into_inner());
        // A slice of a held batch's own storage is that batch.
        if let Some(b) = cache.iter().rev().find(|b| {
            std::ptr::eq(b.tools.as_ptr(), tools.as_ptr()) && b.tools.len() == tools.len()
        }) {
            return Arc::clone(b);
        }
        if let Some(b) = cache.iter().rev().find(|b| same_tools(&b.tools, tools)) {
            return Arc::clone(b);
        }
    }
    remember(Arc::new(PreparedBatch::new(tools.to_vec())))
}

/// [`batch_for`] taking the list by value (no copy when it is new).
pub fn batch_of(tools: Vec<Arc<PreparedTool>>) -> Arc<PreparedBatch> {
    {
        let cache = BATCHES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = cache.iter().rev().find(|b| same_tools(&b.tools, &tools)) {
            return Arc::clone(b);
        }
    }
    remember(Arc::new(PreparedBatch::new(tools)))
}

fn same_tools(a: &[Arc<PreparedTool>], b: &[Arc<PreparedTool>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| Arc::ptr_eq(x, y))
}

fn remember(batch: Arc<PreparedBatch>) -> Arc<PreparedBatch> {
    let mut cache = BATCHES.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= BATCH_CACHE_CAPACITY {
        cache.remove(0);
    }
    cache.push(Arc::clone(&batch));
    batch
}

/// Number of batches the cache holds (for tests).
pub fn cached_batches() -> usize {
    BATCHES.lock().unwrap_or_else(|e| e.into_inner()).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::routing::router::{
        prepare_all, same_score, score, weigh, Router, ToolDescriptor,
    };

    /// A small deterministic generator (no extra dependency).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from.get(self.next() as usize % from.len())
                .copied()
                .unwrap_or("")
        }

        fn phrase(&mut self, from: &[&str], max: u64) -> String {
            let n = 1 + self.next() % max;
            (0..n)
                .map(|_| self.pick(from))
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    const WORDS: &[&str] = &[
        "invoice",
        "invoices",
        "list",
        "posts",
        "post",
        "order_export",
        "customer",
        "customers",
        "the",
        "with",
        "category",
        "categories",
        "-draft",
        "ship'",
        "report",
        "reports",
        "file_read",
        "x",
        "ab",
        "ledger",
        "status",
        "statuses",
        "sitemap",
        "slug",
        "42",
        "café",
        "use",
        "Tool",
    ];

    fn registry(seed: u64, n: usize) -> Vec<ToolDescriptor> {
        let mut g = Lcg(seed);
        (0..n)
            .map(|i| ToolDescriptor {
                name: format!("{}_{}", g.pick(WORDS), i % 7),
                description: g.phrase(WORDS, 12),
                domains: (0..g.next() % 3).map(|_| g.phrase(WORDS, 2)).collect(),
                tags: (0..g.next() % 4).map(|_| g.phrase(WORDS, 1)).collect(),
                intents: (0..g.next() % 3).map(|_| g.phrase(WORDS, 4)).collect(),
                examples: (0..g.next() % 3).map(|_| g.phrase(WORDS, 8)).collect(),
            })
            .collect()
    }

    #[test]
    fn batch_scores_equal_the_tool_by_tool_scan_bit_for_bit() {
        for seed in 0..40u64 {
            let tools = prepare_all(&registry(seed, 1 + (seed as usize * 7) % 60));
            let batch = PreparedBatch::new(tools.clone());
            let mut g = Lcg(seed ^ 0xabcdef);
            for _ in 0..20 {
                let message = g.phrase(WORDS, 30);
                // Every third tool left out, as pinned or always-included tools are.
                let scorable: Vec<bool> = (0..tools.len())
                    .map(|i| seed % 2 == 0 || i % 3 != 0)
                    .collect();
                let refs: Vec<&PreparedTool> = tools
                    .iter()
                    .zip(&scorable)
                    .filter(|(_, s)| **s)
                    .map(|(t, _)| &**t)
                    .collect();
                let weighed = weigh(&refs, &message);
                let want: Vec<u64> = (0..refs.len())
                    .map(|t| score(&weighed, t).to_bits())
                    .collect();
                let words = crate::core::routing::text::counted_keywords(&message);
                let all = batch.scores(&scorable, &words);
                let got: Vec<u64> = all
                    .iter()
                    .zip(&scorable)
                    .filter(|(_, s)| **s)
                    .map(|(x, _)| x.to_bits())
                    .collect();
                assert_eq!(got, want, "seed {seed}, message {message:?}");
            }
        }
    }

    #[test]
    fn ranking_order_is_score_then_name_then_position() {
        for seed in 0..30u64 {
            let descriptors = registry(seed, 20 + seed as usize);
            let tools = prepare_all(&descriptors);
            let mut g = Lcg(seed + 99);
            for _ in 0..10 {
                let message = g.phrase(WORDS, 10);
                let sel = Router::new(3).filter_prepared(&tools, &message, "", None, &[]);
                let rows: Vec<(usize, f64)> =
                    sel.ranked.iter().map(|r| (r.index, r.score)).collect();
                let mut want = rows.clone();
                let name = |i: usize| tools.get(i).map_or("", |t| t.name_lower());
                // Score descending, scores within rounding noise of their neighbour tied.
                want.sort_by(|a, b| b.1.total_cmp(&a.1));
                let mut group = 0;
                let mut groups = Vec::new();
                for k in 0..want.len() {
                    if k > 0 && !same_score(want[k - 1].1, want[k].1) {
                        group += 1;
                    }
                    groups.push((group, want[k]));
                }
                groups.sort_by(|(ga, a), (gb, b)| {
                    ga.cmp(gb)
                        .then_with(|| name(a.0).cmp(name(b.0)))
                        .then(a.0.cmp(&b.0))
                });
                let want: Vec<(usize, f64)> = groups.into_iter().map(|(_, r)| r).collect();
                assert_eq!(rows, want, "seed {seed}, message {message:?}");
                let mut sorted = sel.selected.clone();
                sorted.sort_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
                assert_eq!(sel.selected, sorted);
            }
        }
    }

    #[test]
    fn batches_are_found_again_and_the_cache_stays_bounded() {
        let tools = prepare_all(&registry(7, 12));
        let a = batch_for(&tools);
        // By identity of the prepared tools, and by the batch's own storage.
        assert!(Arc::ptr_eq(&a, &batch_for(&tools)));
        assert!(Arc::ptr_eq(&a, &batch_for(a.tools())));
        assert!(Arc::ptr_eq(&a, &batch_of(tools.clone())));
        // A different list (one tool fewer, or another order) is another batch.
        let fewer = tools.get(1..).unwrap_or(&[]).to_vec();
        assert!(!Arc::ptr_eq(&a, &batch_for(&fewer)));
        let mut reversed = tools.clone();
        reversed.reverse();
        assert!(!Arc::ptr_eq(&a, &batch_for(&reversed)));
        for seed in 100..100 + BATCH_CACHE_CAPACITY as u64 + 3 {
            let _ = batch_of(prepare_all(&registry(seed, 3)));
        }
        assert!(cached_batches() <= BATCH_CACHE_CAPACITY);
    }

    #[test]
    fn name_order_breaks_ties_by_position() {
        let tools = prepare_all(&[
            ToolDescriptor::new("Beta", ""),
            ToolDescriptor::new("alpha", ""),
            ToolDescriptor::new("beta", ""),
        ]);
        let b = PreparedBatch::new(tools);
        assert_eq!(b.by_name(), &[1, 0, 2]);
        assert_eq!(
            (
                b.name_rank(0),
                b.name_rank(1),
                b.name_rank(2),
                b.name_rank(9)
            ),
            (1, 0, 2, u32::MAX)
        );
    }
}
