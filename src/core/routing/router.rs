//! Stage 2: pick the tools one turn is offered, from the user's message.
//!
//! Rules (spec "Stage 2" and "Tools offered on every turn"; phpClaw's `ToolRouter`):
//! - Always-included tools (names matched ASCII case-insensitively, unknown names skipped) are
//!   set aside first: they are offered every turn and never count against the budget.
//! - With the cap off, or when the remaining tools fit the budget, the router does not engage
//!   and every tool is offered in registration order.
//! - Pinning: `load_skill`, and every tool the message names (see [`text::explicit_tool_names`]);
//!   a mention pins a tool when equal, or when either contains the other as a substring.
//! - Ranking: six weighted signals ([`SIGNAL_WEIGHTS`]), each the sum of the weights of the
//!   distinct message keywords found among that signal's keywords (word overlap, never whole
//!   phrases). A word weighs 1, except with three or more ranked tools, where it weighs
//!   `idf / (1 + ln(repeats))` with `idf = ln(N / df)` (N ranked tools, df of them carrying the
//!   word in any of their six signals; a word no tool carries keeps 1): a word most tools carry
//!   weighs little, one word pasted many times weighs less.
//! - Order: score descending (scores within [`SCORE_TIE_EPSILON`] of each other tie), then
//!   lowercased name, then registration order.
//! - Minimal profile: a ranked tool below 20% of the best score is left out, when the best
//!   score is above zero.
//! - Slicing: pinned tools first, then the best ranked, up to the budget (pinned tools beyond
//!   the budget are all kept); the offer adds the always-included tools and is sorted by
//!   lowercased name, so the same set is byte-identical whatever the message.
//!
//! Metadata is tokenised once per descriptor into a [`PreparedTool`], cached process-wide in a
//! bounded map keyed by the descriptor's content, so a turn only tokenises the message.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use once_cell::sync::Lazy;

use super::batch::{batch_for, PreparedBatch};
use super::budget::{resolve_budget, UNLIMITED};
use super::profiles::Profile;
use super::text::{self, fnv1a, FNV_OFFSET, MIN_KEYWORD_LEN};

/// Signal weights, strongest first (spec table, reference `ToolRouter::WEIGHTS`).
pub const SIGNAL_WEIGHTS: &[(&str, f64)] = &[
    ("intent", 16.0),
    ("domain", 8.0),
    ("tag", 4.0),
    ("example", 2.0),
    ("name", 1.0),
    ("description", 1.0),
];

/// The best score a single word can give one tool; `confidence()` divides by it (reference).
pub const MAX_SIGNAL_SCORE: f64 = 32.0;

/// Share of the best score a ranked tool needs on the minimal profile (spec: 20%).
pub const MINIMAL_PROFILE_SCORE_SHARE: f64 = 0.2;

/// Fewer ranked tools than this and every word weighs the same (spec: "three or more tools").
pub const IDF_MIN_TOOLS: usize = 3;

/// The tool that loads a skill's instructions; pinned on every engaged turn (spec).
pub const LOAD_SKILL: &str = "load_skill";

/// Most prepared descriptors the process-wide cache holds before it starts over.
pub const PREPARED_CACHE_CAPACITY: usize = 4096;

const INTENT: u8 = 1;
const DOMAIN: u8 = 2;
const TAG: u8 = 4;
const EXAMPLE: u8 = 8;
const NAME: u8 = 16;
const DESCRIPTION: u8 = 32;
pub(super) const ANYWHERE: u8 = 64;

/// Signal bits in [`SIGNAL_WEIGHTS`] order.
pub(super) const SIGNAL_BITS: [u8; 6] = [INTENT, DOMAIN, TAG, EXAMPLE, NAME, DESCRIPTION];

/// What the router knows about one tool: everything PHP gives it, as plain strings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct ToolDescriptor {
    /// The name the model calls (`name()`).
    pub name: String,
    /// The description sent with the schema (the lean one on the minimal profile, as phpClaw scores).
    pub description: String,
    /// Broad subject areas (`ToolRoutingMetadata::$domains`).
    pub domains: Vec<String>,
    /// Narrow keywords (`$tags`).
    pub tags: Vec<String>,
    /// Verb phrases (`$intents`).
    pub intents: Vec<String>,
    /// Example requests (`$examples`).
    pub examples: Vec<String>,
}

impl ToolDescriptor {
    /// A descriptor with only a name and description, as for a tool without routing metadata.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            ..Self::default()
        }
    }

    /// Content hash used as the prepared-tool cache key; equal descriptors hash equal.
    fn content_hash(&self) -> u64 {
        let mut h = FNV_OFFSET;
        let mut field = |s: &str| {
            h = fnv1a(&(s.len() as u64).to_le_bytes(), h);
            h = fnv1a(s.as_bytes(), h);
        };
        field(&self.name);
        field(&self.description);
        for list in [&self.domains, &self.tags, &self.intents, &self.examples] {
            field(&list.len().to_string());
            list.iter().for_each(|s| field(s));
        }
        h
    }
}

/// One keyword of a prepared tool and the signals it appears in.
#[derive(Debug, Clone)]
struct Entry {
    hash: u64,
    token: Box<str>,
    mask: u8,
}

/// A descriptor with its metadata tokenised once, ready to be ranked against any message.
#[derive(Debug, Clone)]
pub struct PreparedTool {
    descriptor: ToolDescriptor,
    name_lower: String,
    entries: Vec<Entry>,
}

impl PreparedTool {
    /// Tokenises a descriptor (no cache); [`prepare`] is the cached way in.
    pub fn new(descriptor: ToolDescriptor) -> Self {
        let name_lower = descriptor.name.to_ascii_lowercase();
        let mut by_token: HashMap<String, u8> = HashMap::new();
        let mut mark = |text: &str, bit: u8| {
            for word in text::keywords(text) {
                *by_token.entry(word).or_insert(0) |= bit;
            }
        };
        mark(&descriptor.intents.join(" "), INTENT);
        mark(&descriptor.domains.join(" "), DOMAIN);
        mark(&descriptor.tags.join(" "), TAG);
        mark(&descriptor.examples.join(" "), EXAMPLE);
        mark(&name_lower, NAME);
        mark(&descriptor.description, DESCRIPTION);
        // A tool carries a word (for its rarity) exactly when one of its signals scores it.
        // Tokenising all the texts joined instead disagrees at their edges: a description
        // starting with `'Invoice` scores `invoice` alone but gives `'invoice` joined.
        let mut entries: Vec<Entry> = by_token
            .into_iter()
            .map(|(token, mask)| Entry {
                hash: fnv1a(token.as_bytes(), FNV_OFFSET),
                token: token.into_boxed_str(),
                mask: mask | ANYWHERE,
            })
            .collect();
        entries.sort_by(|a, b| a.hash.cmp(&b.hash).then_with(|| a.token.cmp(&b.token)));
        Self {
            descriptor,
            name_lower,
            entries,
        }
    }

    /// The descriptor this was prepared from.
    pub fn descriptor(&self) -> &ToolDescriptor {
        &self.descriptor
    }

    /// The lowercased name the router compares, sorts and pins by.
    pub fn name_lower(&self) -> &str {
        &self.name_lower
    }

    /// Every keyword with its hash and signal mask, in hash order.
    pub(super) fn keyword_entries(&self) -> impl Iterator<Item = (u64, &str, u8)> + '_ {
        self.entries.iter().map(|e| (e.hash, &*e.token, e.mask))
    }

    /// Keyword `i` of [`PreparedTool::keyword_entries`].
    pub(super) fn keyword_entry(&self, i: usize) -> Option<(u64, &str, u8)> {
        self.entries.get(i).map(|e| (e.hash, &*e.token, e.mask))
    }

    /// Which signals carry a keyword (0 when none does).
    #[cfg(test)]
    pub(super) fn mask_of(&self, hash: u64, token: &str) -> u8 {
        let start = self.entries.partition_point(|e| e.hash < hash);
        self.entries
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .take_while(|e| e.hash == hash)
            .find(|e| &*e.token == token)
            .map_or(0, |e| e.mask)
    }
}

type PreparedCache = Mutex<HashMap<u64, Vec<Arc<PreparedTool>>>>;

static PREPARED: Lazy<PreparedCache> = Lazy::new(|| Mutex::new(HashMap::new()));

/// Number of prepared tools the process-wide cache holds right now (for tests and logs).
pub fn prepared_cache_len() -> usize {
    let cache = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
    cache.values().map(Vec::len).sum()
}

/// Prepares many descriptors through the process-wide cache.
///
/// The cache is keyed by a content hash and checked for equality, so a changed description
/// is a new entry; when it reaches [`PREPARED_CACHE_CAPACITY`] it is emptied and refilled.
/// Misses are tokenised outside the lock, so one large registry never blocks other threads.
pub fn prepare_all(descriptors: &[ToolDescriptor]) -> Vec<Arc<PreparedTool>> {
    let keys: Vec<u64> = descriptors
        .iter()
        .map(ToolDescriptor::content_hash)
        .collect();
    let mut found: Vec<Option<Arc<PreparedTool>>> = {
        let cache = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
        descriptors
            .iter()
            .zip(&keys)
            .map(|(d, key)| {
                cache
                    .get(key)
                    .and_then(|bucket| bucket.iter().find(|p| p.descriptor == *d))
                    .cloned()
            })
            .collect()
    };
    let mut fresh: Vec<(u64, Arc<PreparedTool>)> = Vec::new();
    for ((slot, d), &key) in found.iter_mut().zip(descriptors).zip(&keys) {
        if slot.is_none() {
            let prepared = Arc::new(PreparedTool::new(d.clone()));
            fresh.push((key, Arc::clone(&prepared)));
            *slot = Some(prepared);
        }
    }
    if !fresh.is_empty() {
        let mut cache = PREPARED.lock().unwrap_or_else(|e| e.into_inner());
        let mut held: usize = cache.values().map(Vec::len).sum();
        for (key, prepared) in fresh {
            if held >= PREPARED_CACHE_CAPACITY {
                cache.clear();
                held = 0;
            }
            let bucket = cache.entry(key).or_default();
            if !bucket.iter().any(|p| p.descriptor == prepared.descriptor) {
                bucket.push(prepared);
                held += 1;
            }
        }
    }
    found
        .into_iter()
        .zip(descriptors)
        .map(|(p, d)| p.unwrap_or_else(|| Arc::new(PreparedTool::new(d.clone()))))
        .collect()
}

/// Prepares one descriptor through the process-wide cache.
pub fn prepare(descriptor: &ToolDescriptor) -> Arc<PreparedTool> {
    prepare_all(std::slice::from_ref(descriptor))
        .pop()
        .unwrap_or_else(|| Arc::new(PreparedTool::new(descriptor.clone())))
}

/// One ranked tool and its score, for logs and for stage 3.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedTool {
    /// Index into the tool list given to `filter`.
    pub index: usize,
    /// Weighted score against this turn's message.
    pub score: f64,
    /// Whether the tool made the offer (false: below the minimal-profile floor or past the budget).
    pub offered: bool,
}

/// What the router decided for one turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Selection {
    /// Indices of the offered tools: sorted by lowercased name when the router engaged, else
    /// every tool in registration order (the reference hands the list back untouched).
    pub selected: Vec<usize>,
    /// Whether the router ranked and sliced this turn.
    pub engaged: bool,
    /// The budget in force: `None` when the cap is off.
    pub budget: Option<usize>,
    /// Tools pinned by `load_skill` or a mention, in registration order (empty when not engaged).
    pub pinned: Vec<usize>,
    /// Always-included tools found among the tools, in registration order.
    pub always_included: Vec<usize>,
    /// Every ranked (not pinned, not always-included) tool, best first (empty when not engaged).
    pub ranked: Vec<RankedTool>,
    /// The chosen routed tools in rank order, pinned first: the order stage 3 drops from the end of.
    pub chosen_order: Vec<usize>,
}

impl Selection {
    /// The rank order for [`super::fit::fit_request`]: `Some` only when the router ranked.
    pub fn fit_ranking(&self) -> Option<&[usize]> {
        self.engaged.then_some(self.chosen_order.as_slice())
    }
}

/// The per-turn router, holding the explicit budget (`maxToolsPerTurn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Router {
    /// Explicit per-turn budget: positive caps, [`Router::UNLIMITED`] turns the cap off, 0 and
    /// other negatives derive it from the model id.
    pub max_tools_per_turn: i64,
}

/// Whether a mention pins a tool: equal, or one contains the other and the contained side is at
/// least [`MIN_KEYWORD_LEN`] bytes (so `use ATool` does not pin every tool with an `a`).
fn is_pinned(name: &str, mentions: &[String]) -> bool {
    if name.is_empty() {
        return false;
    }
    mentions.iter().any(|m| {
        m == name
            || (name.len() >= MIN_KEYWORD_LEN && m.contains(name))
            || (m.len() >= MIN_KEYWORD_LEN && name.contains(m.as_str()))
    })
}

/// Message keywords with their weights against a set of prepared tools, plus each tool's masks.
/// (The tool-by-tool scan; batches rank the same way through an index.)
#[cfg(test)]
pub(super) struct Weighed {
    pub(super) weights: Vec<f64>,
    /// `masks[tool * words + word]`: the signals of `tool` that carry `word`.
    masks: Vec<u8>,
}

#[cfg(test)]
pub(super) fn weigh(tools: &[&PreparedTool], message: &str) -> Weighed {
    let words = text::counted_keywords(message);
    let hashes: Vec<u64> = words
        .iter()
        .map(|(w, _)| fnv1a(w.as_bytes(), FNV_OFFSET))
        .collect();
    let mut masks = Vec::with_capacity(tools.len() * words.len());
    for tool in tools {
        for ((word, _), &hash) in words.iter().zip(&hashes) {
            masks.push(tool.mask_of(hash, word));
        }
    }
    let n = tools.len();
    let weights = if n < IDF_MIN_TOOLS {
        vec![1.0; words.len()]
    } else {
        words
            .iter()
            .enumerate()
            .map(|(w, (_, repeats))| {
                let carriers = (0..n)
                    .filter(|t| {
                        masks
                            .get(t * words.len() + w)
                            .is_some_and(|m| m & ANYWHERE != 0)
                    })
                    .count();
                let rarity = if carriers == 0 {
                    1.0
                } else {
                    (n as f64 / carriers as f64).ln()
                };
                rarity / (1.0 + (*repeats as f64).ln())
            })
            .collect()
    };
    Weighed { weights, masks }
}

/// One tool's score: each signal's weight times the summed weights of the words it carries.
#[cfg(test)]
pub(super) fn score(weighed: &Weighed, tool: usize) -> f64 {
    let n_words = weighed.weights.len();
    let row = weighed
        .masks
        .get(tool * n_words..(tool + 1) * n_words)
        .unwrap_or(&[]);
    let mut total = 0.0;
    for (&(_, weight), bit) in SIGNAL_WEIGHTS.iter().zip(SIGNAL_BITS) {
        let mut sum = 0.0;
        for (mask, w) in row.iter().zip(&weighed.weights) {
            if mask & bit != 0 {
                sum += w;
            }
        }
        total += weight * sum;
    }
    total
}

/// Relative gap below which two scores are the same score.
///
/// A score is a sum of word weights (logarithms); two tools whose words weigh the same in
/// total but are summed in another order can differ in the last bits, and the spec breaks
/// ties on the name, never on that noise. Real score gaps are far larger than this.
pub const SCORE_TIE_EPSILON: f64 = 1e-9;

/// Whether two scores count as a tie (relative to the larger, absolute below 1).
pub(super) fn same_score(a: f64, b: f64) -> bool {
    (a - b).abs() <= SCORE_TIE_EPSILON * a.abs().max(b.abs()).max(1.0)
}

/// Whether a ranked tool keeps its place on the minimal profile: at least 20% of the best score.
fn meets_floor(score: f64, best: f64) -> bool {
    score >= best * MINIMAL_PROFILE_SCORE_SHARE
}

/// Rounds half away from zero to four decimals, as PHP's `round($x, 4)`.
fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl Router {
    /// The budget value that switches the cap off (reference `ToolRouter::UNLIMITED`).
    pub const UNLIMITED: i64 = UNLIMITED;

    /// A router with an explicit budget (0 derives it from the model id).
    pub fn new(max_tools_per_turn: i64) -> Self {
        Self { max_tools_per_turn }
    }

    /// Picks this turn's tools from descriptors, preparing them through the process-wide cache.
    ///
    /// On the minimal profile pass lean descriptions (see `profiles::lean_description`), as the
    /// agent ranks the schemas it sends.
    pub fn filter(
        &self,
        tools: &[ToolDescriptor],
        message: &str,
        model: &str,
        profile: Option<Profile>,
        always_include: &[String],
    ) -> Selection {
        let prepared = prepare_all(tools);
        self.filter_prepared(&prepared, message, model, profile, always_include)
    }

    /// Picks this turn's tools from already prepared tools: the hot path.
    pub fn filter_prepared(
        &self,
        tools: &[Arc<PreparedTool>],
        message: &str,
        model: &str,
        profile: Option<Profile>,
        always_include: &[String],
    ) -> Selection {
        self.filter_batch(&batch_for(tools), message, model, profile, always_include)
    }

    /// [`Router::filter_prepared`] on an indexed batch.
    pub fn filter_batch(
        &self,
        batch: &PreparedBatch,
        message: &str,
        model: &str,
        profile: Option<Profile>,
        always_include: &[String],
    ) -> Selection {
        let tools = batch.tools();
        let budget = resolve_budget(self.max_tools_per_turn, model);
        let is_always: Vec<bool> = if always_include.is_empty() {
            vec![false; tools.len()]
        } else {
            let wanted: HashSet<String> = always_include
                .iter()
                .map(|a| a.to_ascii_lowercase())
                .collect();
            tools
                .iter()
                .map(|t| wanted.contains(&t.name_lower))
                .collect()
        };
        let always_included: Vec<usize> = (0..tools.len())
            .filter(|&i| is_always.get(i).copied().unwrap_or(false))
            .collect();
        let routed_count = tools.len() - always_included.len();

        let limit = match budget {
            Some(limit) if routed_count > limit => limit,
            _ => {
                return Selection {
                    selected: (0..tools.len()).collect(),
                    engaged: false,
                    budget,
                    always_included,
                    ..Selection::default()
                }
            }
        };

        let mentions = text::explicit_tool_names(message);
        let mut pinned = Vec::new();
        let mut scorable = vec![false; tools.len()];
        for (i, t) in tools.iter().enumerate() {
            if is_always.get(i).copied().unwrap_or(false) {
                continue;
            }
            if t.name_lower == LOAD_SKILL || is_pinned(&t.name_lower, &mentions) {
                pinned.push(i);
            } else if let Some(slot) = scorable.get_mut(i) {
                *slot = true;
            }
        }

        let words = text::counted_keywords(message);
        let scores = batch.scores(&scorable, &words);
        let score_of = |i: usize| scores.get(i).copied().unwrap_or(0.0);
        let rank = |i: usize| batch.name_rank(i);
        // Score descending, then lowercased name, then position: the matched tools are sorted,
        // the rest (score 0) already are, by name.
        let mut rows: Vec<(usize, f64)> = (0..tools.len())
            .filter(|&i| scorable.get(i).copied().unwrap_or(false) && score_of(i) != 0.0)
            .map(|i| (i, score_of(i)))
            .collect();
        // Scores within rounding noise of each other are one score (see [`same_score`]): group
        // neighbours in score order, then order by group and name.
        rows.sort_unstable_by(|a, b| b.1.total_cmp(&a.1));
        let mut group = 0u32;
        let mut keyed: Vec<(u32, u32, usize, f64)> = Vec::with_capacity(rows.len());
        for (k, &(i, score)) in rows.iter().enumerate() {
            if k > 0
                && rows
                    .get(k - 1)
                    .is_some_and(|&(_, prev)| !same_score(prev, score))
            {
                group += 1;
            }
            keyed.push((group, rank(i), i, score));
        }
        keyed.sort_unstable_by_key(|&(g, r, _, _)| (g, r));
        let mut rows: Vec<(usize, f64)> = keyed.into_iter().map(|(_, _, i, s)| (i, s)).collect();
        rows.extend(
            batch
                .by_name()
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| scorable.get(i).copied().unwrap_or(false) && score_of(i) == 0.0)
                .map(|i| (i, 0.0)),
        );

        let floor_of = match (profile, rows.first()) {
            (Some(Profile::Minimal), Some(&(_, best))) if best > 0.0 => Some(best),
            _ => None,
        };
        let slots = limit.saturating_sub(pinned.len());
        let mut taken = 0usize;
        let mut chosen_order = pinned.clone();
        let ranked: Vec<RankedTool> = rows
            .iter()
            .map(|&(index, score)| {
                let above = match floor_of {
                    Some(best) => meets_floor(score, best),
                    None => true,
                };
                let offered = above && taken < slots;
                if offered {
                    taken += 1;
                    chosen_order.push(index);
                }
                RankedTool {
                    index,
                    score,
                    offered,
                }
            })
            .collect();

        let mut selected: Vec<usize> = chosen_order
            .iter()
            .chain(&always_included)
            .copied()
            .collect();
        selected.sort_unstable_by_key(|&i| rank(i));

        Selection {
            selected,
            engaged: true,
            budget,
            pinned,
            always_included,
            ranked,
            chosen_order,
        }
    }

    /// How well the best tool matches the message, 0..1, rounded to four decimals (reference).
    ///
    /// Every tool is scored (no pinning, no budget); the best score is divided by
    /// [`MAX_SIGNAL_SCORE`] and capped at 1.
    pub fn confidence(tools: &[ToolDescriptor], message: &str) -> f64 {
        let prepared = prepare_all(tools);
        Self::confidence_prepared(&prepared, message)
    }

    /// [`Router::confidence`] over already prepared tools.
    pub fn confidence_prepared(tools: &[Arc<PreparedTool>], message: &str) -> f64 {
        Self::confidence_batch(&batch_for(tools), message)
    }

    /// [`Router::confidence`] on an indexed batch.
    pub fn confidence_batch(batch: &PreparedBatch, message: &str) -> f64 {
        let words = text::counted_keywords(message);
        let best = batch
            .scores(&vec![true; batch.len()], &words)
            .into_iter()
            .fold(0.0_f64, f64::max);
        if best <= 0.0 {
            0.0
        } else {
            round4((best / MAX_SIGNAL_SCORE).min(1.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, desc: &str) -> ToolDescriptor {
        ToolDescriptor::new(name, desc)
    }

    fn with_intents(name: &str, desc: &str, intents: &[&str]) -> ToolDescriptor {
        ToolDescriptor {
            intents: intents.iter().map(|s| s.to_string()).collect(),
            ..tool(name, desc)
        }
    }

    fn names(tools: &[ToolDescriptor], sel: &Selection) -> Vec<String> {
        sel.selected
            .iter()
            .filter_map(|&i| tools.get(i).map(|t| t.name.clone()))
            .collect()
    }

    fn run(
        budget: i64,
        tools: &[ToolDescriptor],
        message: &str,
        model: &str,
        profile: Option<Profile>,
    ) -> Vec<String> {
        names(
            tools,
            &Router::new(budget).filter(tools, message, model, profile, &[]),
        )
    }

    /// The reference test suite's fifteen-tool store registry.
    fn store() -> Vec<ToolDescriptor> {
        let described = [
            (
                "product_tool",
                "list and search products in the store catalog",
            ),
            ("order_tool", "create and update customer orders"),
            ("coupon_tool", "manage discount coupons"),
        ];
        [
            "file_read",
            "file_write",
            "shell_exec",
            "http_request",
            "code_search",
            "project_info",
            "zip_package",
            "product_tool",
            "order_tool",
            "coupon_tool",
            "fixture_tool_1",
            "fixture_tool_2",
            "fixture_tool_3",
            "fixture_tool_4",
            "fixture_tool_5",
        ]
        .iter()
        .map(|n| {
            let desc = described
                .iter()
                .find(|(d, _)| d == n)
                .map_or(format!("handles {n} operations"), |(_, d)| d.to_string());
            tool(n, &desc)
        })
        .collect()
    }

    #[test]
    fn budget_from_model_and_explicit_budget() {
        let t = store();
        assert_eq!(
            run(0, &t, "do something generic", "claude-haiku-4-5", None).len(),
            6
        );
        assert_eq!(
            run(0, &t, "unrelated request", "claude-haiku-4-5", None).len(),
            6
        );
        assert_eq!(run(0, &t, "", "claude-haiku-4-5", None).len(), 6);
        assert_eq!(run(3, &t, "generic", "claude-opus-4", None).len(), 3);
        assert_eq!(run(0, &t, "generic", "claude-opus-4", None).len(), 15);
        assert_eq!(
            run(Router::UNLIMITED, &t, "x", "claude-haiku", None).len(),
            15
        );
        assert_eq!(run(-7, &t, "x", "claude-haiku", None).len(), 6);
    }

    #[test]
    fn every_model_fragment_sets_the_offer_size() {
        let t: Vec<ToolDescriptor> = (0..40)
            .map(|n| tool(&format!("probe_tool_{n}"), "probe"))
            .collect();
        for (model, want) in [
            ("claude-opus-5", 20),
            ("claude-sonnet-5", 12),
            ("gpt-4o-mini", 8),
            ("gpt-3.5-turbo", 5),
            ("gemini-2.5-pro", 15),
            ("gemini-3.5-flash-lite", 6),
            ("qwen2.5:7b", 10),
            ("", 10),
        ] {
            assert_eq!(
                run(0, &t, "unrelated question about nothing", model, None).len(),
                want,
                "{model}"
            );
        }
    }

    #[test]
    fn within_budget_returns_everything_in_registration_order() {
        let t: Vec<ToolDescriptor> = store().into_iter().take(4).collect();
        let sel = Router::new(0).filter(&t, "anything", "claude-haiku-4-5", None, &[]);
        assert!(!sel.engaged);
        assert_eq!(sel.selected, vec![0, 1, 2, 3]);
        assert!(sel.fit_ranking().is_none());
        // Exactly at the budget: still not engaged.
        let sel = Router::new(4).filter(&t, "anything", "", None, &[]);
        assert!(!sel.engaged);
        // One past: engaged.
        let sel = Router::new(3).filter(&t, "anything", "", None, &[]);
        assert!(sel.engaged);
        assert_eq!(sel.selected.len(), 3);
    }

    #[test]
    fn pinning_by_class_name_and_snake_case() {
        let t = store();
        assert!(run(
            0,
            &t,
            "please use ShellTool to list processes",
            "claude-haiku-4-5",
            None
        )
        .contains(&"shell_exec".to_string()));
        assert!(run(0, &t, "use ShellTool now", "gpt-4o-mini", None)
            .contains(&"shell_exec".to_string()));
        let out = run(
            0,
            &t,
            "run product_tool for the store",
            "claude-haiku-4-5",
            None,
        );
        assert!(out.contains(&"product_tool".to_string()));
        assert!(!out.contains(&"order_tool".to_string()));
        // A partial mention pins in both directions.
        let t = vec![
            tool("wc_get_customer", ""),
            tool("b_tool", ""),
            tool("c_tool", ""),
        ];
        assert_eq!(run(1, &t, "call wc_get", "", None), vec!["wc_get_customer"]);
        assert_eq!(
            run(1, &t, "call wc_get_customer_v2", "", None),
            vec!["wc_get_customer"]
        );
    }

    #[test]
    fn explicit_mention_beats_every_signal_and_may_overflow_the_budget() {
        let t = vec![
            tool("winner_tool", "nothing relevant at all"),
            ToolDescriptor {
                intents: vec!["publish article".into()],
                domains: vec!["content".into()],
                ..tool("loser_tool", "publish an article to the site")
            },
        ];
        assert_eq!(
            run(
                1,
                &t,
                "publish article using winner_tool",
                "gpt-3.5-turbo",
                None
            ),
            vec!["winner_tool"]
        );
        let sel = Router::new(1).filter(&t, "winner_tool and loser_tool", "", None, &[]);
        assert_eq!(sel.selected, vec![1, 0]); // sorted by name: loser_tool, winner_tool
        assert_eq!(sel.pinned, vec![0, 1]);
    }

    #[test]
    fn short_mentions_do_not_pin_by_substring() {
        // "use ATool" names "a": only an exact tool "a" would be pinned by it.
        let t = vec![tool("alpha", ""), tool("beta", ""), tool("gamma", "")];
        assert_eq!(run(1, &t, "use ATool", "", None), vec!["alpha"]); // by name order, not pinning
        let sel = Router::new(1).filter(&t, "use ATool", "", None, &[]);
        assert!(sel.pinned.is_empty());
        let t = vec![tool("a", ""), tool("beta", ""), tool("gamma", "")];
        let sel = Router::new(1).filter(&t, "use ATool", "", None, &[]);
        assert_eq!(sel.pinned, vec![0]);
    }

    #[test]
    fn load_skill_is_always_pinned() {
        let t = vec![
            tool("zeta_tool", "x"),
            tool("load_skill", "y"),
            tool("alpha_tool", "x"),
        ];
        let sel = Router::new(1).filter(&t, "nothing at all", "", None, &[]);
        assert_eq!(sel.pinned, vec![1]);
        assert_eq!(sel.selected, vec![1]);
        let t = vec![
            tool("zeta_tool", "x"),
            tool("Load_Skill", "y"),
            tool("alpha_tool", "x"),
        ];
        assert_eq!(Router::new(1).filter(&t, "", "", None, &[]).pinned, vec![1]);
    }

    #[test]
    fn signals_rank_in_weight_order() {
        // Two tools, so every word weighs 1.
        let t = vec![
            tool("alpha_tool", "publish an article to the site"),
            with_intents("beta_tool", "unrelated helper", &["publish article"]),
        ];
        assert_eq!(
            run(1, &t, "publish article now", "gpt-3.5-turbo", None),
            vec!["beta_tool"]
        );
        let t = vec![
            ToolDescriptor {
                tags: vec!["catalog".into()],
                ..tool("aaa_tool", "")
            },
            ToolDescriptor {
                domains: vec!["catalog".into()],
                ..tool("bbb_tool", "")
            },
        ];
        assert_eq!(run(1, &t, "catalog question", "", None), vec!["bbb_tool"]);
        let t = vec![
            ToolDescriptor {
                examples: vec!["catalog".into()],
                ..tool("aaa_tool", "")
            },
            ToolDescriptor {
                tags: vec!["catalog".into()],
                ..tool("bbb_tool", "")
            },
        ];
        assert_eq!(run(1, &t, "catalog", "", None), vec!["bbb_tool"]);
        let t = vec![
            tool("aaa_tool", "catalog"),
            ToolDescriptor {
                examples: vec!["catalog".into()],
                ..tool("bbb_tool", "")
            },
        ];
        assert_eq!(run(1, &t, "catalog", "", None), vec!["bbb_tool"]);
        let t = vec![
            tool("alpha_tool", "reads invoices from the database"),
            tool("beta_tool", "unrelated helper"),
        ];
        assert_eq!(run(1, &t, "read an invoice", "", None), vec!["alpha_tool"]);
    }

    #[test]
    fn intents_match_by_word_overlap_not_whole_phrase() {
        // "look up an invoice" has keywords look, invoice; the message shares only "invoice".
        let t = vec![
            with_intents("inv_tool", "", &["look up an invoice"]),
            tool("other_tool", ""),
        ];
        let sel = Router::new(1).filter(&t, "invoice", "", None, &[]);
        assert_eq!(
            sel.ranked.first().map(|r| (r.index, r.score)),
            Some((0, 16.0))
        );
    }

    #[test]
    fn plurals_on_both_sides() {
        let tied = |target: &str, tags: &[&str]| -> Vec<ToolDescriptor> {
            let mut v: Vec<ToolDescriptor> = ["alpha_tool", "beta_tool", "delta_tool"]
                .iter()
                .map(|n| tool(n, "list records"))
                .collect();
            v.push(ToolDescriptor {
                tags: tags.iter().map(|s| s.to_string()).collect(),
                ..tool(target, "list records")
            });
            v
        };
        assert_eq!(
            run(
                1,
                &tied("user_tool", &["editor", "login"]),
                "List the editors with their logins.",
                "",
                None
            ),
            vec!["user_tool"]
        );
        assert_eq!(
            run(
                1,
                &tied("category_tool", &["category"]),
                "List the categories.",
                "",
                None
            ),
            vec!["category_tool"]
        );
        assert_eq!(
            run(
                1,
                &tied("gas_tool", &["gas"]),
                "List the gas readings.",
                "",
                None
            ),
            vec!["gas_tool"]
        );
        assert_eq!(
            run(
                1,
                &tied("status_tool", &["statuses"]),
                "status please",
                "",
                None
            ),
            vec!["status_tool"]
        );
        assert_eq!(
            run(1, &tied("news_tool", &["editor"]), "editors", "", None),
            vec!["news_tool"]
        );
    }

    #[test]
    fn snake_case_name_parts_match_message_words() {
        let t = vec![
            tool("code_search", "Locate occurrences in the tree."),
            tool("file_read", "Return the file contents."),
            tool("filler_one", "x"),
            tool("filler_two", "x"),
            tool("filler_three", "x"),
            tool("filler_four", "x"),
            tool("filler_five", "x"),
        ];
        assert_eq!(
            run(1, &t, "search for JPATH_ROOT", "", None),
            vec!["code_search"]
        );
    }

    #[test]
    fn relevant_tool_declared_last_is_found() {
        let mut t: Vec<ToolDescriptor> = (0..29)
            .map(|i| tool(&format!("filler_{i:02}"), "unrelated filler tool"))
            .collect();
        t.push(tool(
            "invoice_lookup",
            "Look up a customer invoice by number.",
        ));
        let out = run(
            5,
            &t,
            "look up an invoice for a customer",
            "gpt-3.5-turbo",
            None,
        );
        assert_eq!(out.len(), 5);
        assert!(out.contains(&"invoice_lookup".to_string()));
    }

    #[test]
    fn ties_break_on_name_never_on_declaration_order() {
        let t = vec![
            tool("zzz_tool", "same words here"),
            tool("aaa_tool", "same words here"),
            tool("mmm_tool", "same words here"),
        ];
        assert_eq!(
            run(2, &t, "completely unrelated", "", None),
            vec!["aaa_tool", "mmm_tool"]
        );
        // Names compare lowercased.
        let t = vec![tool("Zed", ""), tool("alpha", ""), tool("Beta", "")];
        assert_eq!(run(2, &t, "", "", None), vec!["alpha", "Beta"]);
    }

    #[test]
    fn identical_sets_come_back_identical_and_sorted() {
        let t: Vec<ToolDescriptor> = [
            "shell_exec",
            "file_read",
            "http_request",
            "code_search",
            "db_query",
            "zip_package",
            "project_info",
        ]
        .iter()
        .map(|n| tool(n, &format!("The {n} tool.")))
        .collect();
        let r = Router::new(5);
        let a = r.filter(&t, "shell file http code db", "", None, &[]);
        let b = r.filter(&t, "db code http file shell", "", None, &[]);
        assert_eq!(names(&t, &a), names(&t, &b));
        let mut sorted = names(&t, &a);
        sorted.sort();
        assert_eq!(sorted, names(&t, &a));
        assert_eq!(a, r.filter(&t, "shell file http code db", "", None, &[]));
    }

    fn list_heavy() -> Vec<ToolDescriptor> {
        let mut t: Vec<ToolDescriptor> = [
            "a_list", "b_list", "c_list", "d_list", "e_list", "f_list", "g_list", "h_list",
        ]
        .iter()
        .map(|n| with_intents(n, "generic helper", &["list items"]))
        .collect();
        t.push(with_intents("x_posts", "generic helper", &["show posts"]));
        t.push(with_intents("y_posts", "generic helper", &["show posts"]));
        t
    }

    #[test]
    fn hand_computed_idf_ranking() {
        // Ten tools. "list" is carried by the eight *_list tools (intent "list items" and the
        // name part), "post" by x_posts and y_posts (intent "show posts", name part "posts").
        //   idf(list) = ln(10/8) = 0.22314, idf(post) = ln(10/2) = 1.60944; no repeats.
        //   a_list:  intent 16*0.22314 + name 1*0.22314              = 3.79338
        //   x_posts: intent 16*1.60944 + name 1*1.60944 ("post" from "x_posts") = 27.36053
        let t = list_heavy();
        let sel = Router::new(2).filter(&t, "list posts", "qwen2.5:7b", None, &[]);
        assert_eq!(names(&t, &sel), vec!["x_posts", "y_posts"]);
        let best = sel.ranked.first().map_or(0.0, |r| r.score);
        assert!((best - 17.0 * (10.0_f64 / 2.0).ln()).abs() < 1e-9, "{best}");
        let third = sel.ranked.get(2).map_or(0.0, |r| r.score);
        assert!(
            (third - 17.0 * (10.0_f64 / 8.0).ln()).abs() < 1e-9,
            "{third}"
        );
        assert_eq!(sel.chosen_order.first(), Some(&8)); // x_posts ranks first, y_posts second
        assert_eq!(sel.fit_ranking(), Some(&[8usize, 9][..]));
    }

    #[test]
    fn hand_computed_repetition_damping() {
        // Four tools, each with one intent; "customer" is carried by two of them.
        //   wp_query: intent "list posts"            -> list, post
        //   wc_get_customer: "customer statistics"   -> customer, statistic (+ name part customer)
        //   wc_reviews: "customer feedback"          -> customer, feedback
        //   wp_menus: "navigation notes"             -> navigation, note
        // Message "list customer customer customer customer":
        //   list: idf ln(4/1) = 1.38629, repeats 1 -> 1.38629
        //   customer: idf ln(4/2) = 0.69315, repeats 4 -> 0.69315 / (1 + ln 4) = 0.29057
        //   wp_query = 16*1.38629 = 22.18071
        //   wc_get_customer = 16*0.29057 + name 1*0.29057 = 4.93968
        //   wc_reviews = 16*0.29057 = 4.64911
        let t = vec![
            with_intents("wp_query", "", &["list posts"]),
            with_intents("wc_get_customer", "", &["customer statistics"]),
            with_intents("wc_reviews", "", &["customer feedback"]),
            with_intents("wp_menus", "", &["navigation notes"]),
        ];
        let sel = Router::new(1).filter(
            &t,
            "list customer customer customer customer",
            "",
            None,
            &[],
        );
        let scores: Vec<(usize, f64)> = sel.ranked.iter().map(|r| (r.index, r.score)).collect();
        let damped = 2.0_f64.ln() / (1.0 + 4.0_f64.ln());
        let want = [
            (0, 16.0 * 4.0_f64.ln()),
            (1, 17.0 * damped),
            (2, 16.0 * damped),
            (3, 0.0),
        ];
        for ((gi, gs), (wi, ws)) in scores.iter().zip(want) {
            assert_eq!(*gi, wi);
            assert!((gs - ws).abs() < 1e-9, "{gi}: {gs} vs {ws}");
        }
    }

    #[test]
    fn a_long_paste_does_not_outrank_the_request() {
        let t = vec![
            with_intents("wp_query", "generic helper", &["list posts"]),
            with_intents(
                "wc_get_customer",
                "generic helper",
                &["customer statistics"],
            ),
            with_intents("wc_reviews", "generic helper", &["customer feedback"]),
            with_intents("wp_menus", "generic helper", &["navigation notes"]),
        ];
        let paste: String =
            "Meeting notes: customer feedback and navigation plans for the quarter. "
                .repeat(400)
                .chars()
                .take(6000)
                .collect();
        let after = format!("List the latest posts. My notes: {paste}");
        let before = format!("{paste} Ignore the notes above. List the latest posts.");
        assert_eq!(run(1, &t, &after, "", None), vec!["wp_query"]);
        assert_eq!(run(1, &t, &before, "", None), vec!["wp_query"]);
        let neutral = "lorem ipsum dolor sit amet. ".repeat(30);
        assert_eq!(
            run(
                1,
                &t,
                &format!("{neutral}List the latest posts. {neutral}"),
                "",
                None
            ),
            vec!["wp_query"]
        );
    }

    #[test]
    fn under_three_tools_every_word_weighs_one() {
        // Two tools both carrying "list": with IDF it would weigh ln(2/2) = 0.
        let t = vec![
            with_intents("alpha", "generic helper", &["list items"]),
            with_intents("beta", "generic helper", &["list items"]),
        ];
        assert!(Router::confidence(&t, "list") > 0.0);
        assert_eq!(Router::confidence(&t, "list"), 0.5); // 16 / 32
                                                         // Repeats are not damped either: 16 / 32 still.
        assert_eq!(Router::confidence(&t, "list list list"), 0.5);
    }

    #[test]
    fn a_word_a_signal_scores_is_carried_whatever_the_text_edges() {
        // alpha's description starts with an apostrophe: alone it gives "invoice" (the first
        // byte of a text is skipped), and alpha scores on it, so alpha carries "invoice" too.
        // N = 3: invoice carried by 2 -> ln(3/2) = 0.405465; report by 1 -> ln 3 = 1.098612.
        // Scores (description weight 1): gamma 1.0986, alpha 0.4055, beta 0.4055. Counting
        // only beta as a carrier gave invoice ln 3 too: a three-way tie that alpha won by name.
        let t = vec![
            tool("alpha_tool", "'Invoice lookup"),
            tool("beta_tool", "invoice export"),
            tool("gamma_tool", "report builder"),
        ];
        assert_eq!(run(1, &t, "invoice report", "", None), vec!["gamma_tool"]);
        let sel = Router::new(2).filter(&t, "invoice report", "", None, &[]);
        let scores: Vec<(usize, f64)> = sel
            .ranked
            .iter()
            .map(|r| (r.index, (r.score * 10_000.0).round() / 10_000.0))
            .collect();
        assert_eq!(scores, vec![(2, 1.0986), (0, 0.4055), (1, 0.4055)]);
        // The last intent ends in "-": the intents alone end the text there and give "audit",
        // which alpha scores on; followed by its tags the word would read "audit-".
        let mut alpha = with_intents("alpha_tool", "", &["run audit-"]);
        alpha.tags = vec!["logs".to_string()];
        let t = vec![
            alpha,
            with_intents("beta_tool", "", &["audit trail"]),
            with_intents("gamma_tool", "", &["report builder"]),
        ];
        assert_eq!(run(1, &t, "audit report", "", None), vec!["gamma_tool"]);
    }

    #[test]
    fn equal_scores_summed_in_another_order_tie_on_the_name() {
        // N = 20 ranked tools; apple, berry and delta are carried by 3 tools (p = ln(20/3)),
        // cedar by 9 (q = ln(20/9)). alpha_tool carries apple, berry, cedar and beta_tool apple,
        // cedar, delta: both score 16 * (2p + q), but summed in message order as (p + p) + q
        // and (p + q) + p, which differ in the last bit. The tie breaks on the name: alpha.
        let mut t = vec![
            with_intents("alpha_tool", "", &["apple berry cedar"]),
            with_intents("beta_tool", "", &["apple cedar delta"]),
        ];
        let fillers = [
            "apple", "berry", "berry", "delta", "delta", "cedar", "cedar", "cedar", "cedar",
            "cedar", "cedar", "cedar", "nothing", "nothing", "nothing", "nothing", "nothing",
            "nothing",
        ];
        for (k, intent) in fillers.iter().enumerate() {
            t.push(with_intents(&format!("f{k:02}_tool"), "", &[intent]));
        }
        let (p, q) = ((20.0_f64 / 3.0).ln(), (20.0_f64 / 9.0).ln());
        assert_ne!((p + p) + q, (p + q) + p); // the noise this test is about
        let sel = Router::new(2).filter(&t, "apple berry cedar delta", "", None, &[]);
        assert_eq!(sel.chosen_order, vec![0, 1]);
        assert!(same_score(sel.ranked[0].score, sel.ranked[1].score));
        assert_eq!(
            run(1, &t, "apple berry cedar delta", "", None),
            vec!["alpha_tool"]
        );
        // A real gap still ranks: berry said twice weighs less, so beta (no berry) wins.
        let sel = Router::new(1).filter(&t, "apple berry cedar delta berry", "", None, &[]);
        assert_eq!(sel.chosen_order, vec![1]);
        assert!(!same_score(1.0, 1.0 + 1e-6) && same_score(1e6, 1e6 + 1e-4));
    }

    #[test]
    fn confidence_rules() {
        let t = list_heavy();
        let common = Router::confidence(&t, "list");
        let rare = Router::confidence(&t, "posts");
        assert!(common > 0.0 && common < rare);
        // 17 * ln(10/8) / 32 = 0.118546 -> 0.1185
        assert_eq!(common, 0.1185);
        assert_eq!(
            Router::confidence(
                &[tool("alpha_tool", "unrelated helper")],
                "something entirely different"
            ),
            0.0
        );
        let strong_tools = vec![ToolDescriptor {
            intents: vec!["invoice lookup".into()],
            domains: vec!["invoice".into()],
            ..tool("invoice_lookup", "look up an invoice")
        }];
        let strong = Router::confidence(&strong_tools, "invoice lookup please");
        let weak = Router::confidence(&strong_tools, "weather forecast");
        assert!(strong > weak && strong <= 1.0);
        assert_eq!(strong, 1.0); // intent 16*2 + domain 8 + name 2 + description 1 = 43 > 32: capped
        assert_eq!(Router::confidence(&[], "anything"), 0.0);
    }

    fn floor_tools() -> Vec<ToolDescriptor> {
        let mut t = vec![with_intents(
            "invoice_lookup",
            "generic helper",
            &["look up an invoice"],
        )];
        t.extend(
            [
                "beta_tool",
                "gamma_tool",
                "delta_tool",
                "epsilon_tool",
                "zeta_tool",
            ]
            .iter()
            .map(|n| tool(n, "generic helper")),
        );
        t
    }

    #[test]
    fn minimal_profile_floor() {
        let t = floor_tools();
        assert_eq!(
            run(
                5,
                &t,
                "look up an invoice",
                "qwen2.5:7b",
                Some(Profile::Minimal)
            ),
            vec!["invoice_lookup"]
        );
        assert_eq!(
            run(5, &t, "look up an invoice", "qwen2.5:7b", None).len(),
            5
        );
        assert_eq!(
            run(
                5,
                &t,
                "look up an invoice",
                "qwen2.5:7b",
                Some(Profile::Standard)
            )
            .len(),
            5
        );
        // Nothing matches: the floor is off and the cap is filled.
        let t3 = vec![
            tool("alpha_tool", "generic helper"),
            tool("beta_tool", "generic helper"),
            tool("gamma_tool", "generic helper"),
        ];
        assert_eq!(
            run(
                2,
                &t3,
                "completely unrelated words",
                "",
                Some(Profile::Minimal)
            )
            .len(),
            2
        );
        // A named tool survives the floor.
        let t = vec![
            with_intents("invoice_lookup", "generic helper", &["look up an invoice"]),
            tool("order_export", "generic helper"),
            tool("gamma_tool", "generic helper"),
        ];
        let out = run(
            2,
            &t,
            "look up an invoice with order_export",
            "",
            Some(Profile::Minimal),
        );
        assert_eq!(out, vec!["invoice_lookup", "order_export"]);
    }

    #[test]
    fn minimal_floor_at_its_limit() {
        // Exactly 20% of the best is kept, anything below is not (scores with weight 1 are exact).
        assert!(meets_floor(16.0, 80.0));
        assert!(!meets_floor(15.0, 80.0));
        assert!(meets_floor(80.0, 80.0));
        // Four ranked tools: IDF applies. alpha is carried by 3 of 4 -> ln(4/3) = 0.28768;
        // beta..epsilon by 1 -> ln 4 = 1.38629.
        //   best  = 16 * (0.28768 + 4*1.38629) = 93.32364 -> floor 18.66473
        //   edge  = 16 * 0.28768 = 4.60293      (below the floor: left out)
        //   below = 1 * 0.28768                 (left out)
        //   other_skill = 0                     (left out)
        let t = vec![
            with_intents("best", "", &["alpha beta gamma delta epsilon"]),
            with_intents("edge", "", &["alpha"]),
            tool("below", "alpha"),
            tool("load_skill", ""),
            tool("other_skill", ""),
        ];
        let msg = "alpha beta gamma delta epsilon";
        let sel = Router::new(4).filter(&t, msg, "", Some(Profile::Minimal), &[]);
        assert_eq!(names(&t, &sel), vec!["best", "load_skill"]);
        let best = sel.ranked.first().map_or(0.0, |r| r.score);
        let a = (4.0_f64 / 3.0).ln();
        let b = 4.0_f64.ln();
        assert!((best - 16.0 * (a + 4.0 * b)).abs() < 1e-9);
        // Without the minimal profile the same turn fills all four slots.
        let sel = Router::new(4).filter(&t, msg, "", None, &[]);
        assert_eq!(sel.selected.len(), 4);
    }

    #[test]
    fn always_included_tools_sit_outside_the_budget() {
        let t: Vec<ToolDescriptor> = (0..20)
            .map(|i| tool(&format!("tool_{i:02}"), "x"))
            .collect();
        let always = vec![
            "TOOL_03".to_string(),
            "tool_07".to_string(),
            "missing_tool".to_string(),
        ];
        let sel = Router::new(6).filter(&t, "", "", None, &always);
        assert!(sel.engaged);
        assert_eq!(sel.selected.len(), 8);
        assert_eq!(sel.always_included, vec![3, 7]);
        assert!(sel.selected.contains(&3) && sel.selected.contains(&7));
        assert!(!sel.chosen_order.contains(&3));
        // Not counted for the early return: 8 tools, 2 always-included, budget 6 -> not engaged.
        let t8: Vec<ToolDescriptor> = t.iter().take(8).cloned().collect();
        let sel = Router::new(6).filter(&t8, "", "", None, &always);
        assert!(!sel.engaged);
        assert_eq!(sel.selected.len(), 8);
        // A denied (absent) tool stays absent.
        let sel = Router::new(6).filter(&t8, "", "", None, &["tool_99".to_string()]);
        assert!(sel.engaged);
        assert_eq!(sel.selected.len(), 6);
    }

    #[test]
    fn prepared_cache_is_reused_and_bounded() {
        let d = tool("cache_probe_tool", "a description only this test uses");
        let a = prepare(&d);
        let b = prepare(&d);
        assert!(Arc::ptr_eq(&a, &b));
        let changed = tool("cache_probe_tool", "another description");
        assert!(!Arc::ptr_eq(&a, &prepare(&changed)));
        let many: Vec<ToolDescriptor> = (0..PREPARED_CACHE_CAPACITY + 10)
            .map(|i| tool(&format!("bulk_{i}"), ""))
            .collect();
        let _ = prepare_all(&many);
        assert!(prepared_cache_len() <= PREPARED_CACHE_CAPACITY);
    }

    #[test]
    fn filter_and_filter_prepared_agree() {
        let t = store();
        let r = Router::new(0);
        let prepared: Vec<Arc<PreparedTool>> = t
            .iter()
            .map(|d| Arc::new(PreparedTool::new(d.clone())))
            .collect();
        for msg in [
            "list products",
            "use ShellTool",
            "",
            "coupons discount orders",
        ] {
            assert_eq!(
                r.filter(&t, msg, "claude-haiku", Some(Profile::Minimal), &[]),
                r.filter_prepared(&prepared, msg, "claude-haiku", Some(Profile::Minimal), &[])
            );
        }
    }
}
