//! One turn's tool selection for the agent: stage 2 (the router, with an optional score floor)
//! followed by stage 3 (fit to the request's token budget), in one call.
//!
//! Rules on top of [`super::router`] and [`super::fit`]:
//! - Score floor: a share `s` in (0, 1] leaves out every ranked tool scoring below `s` times the
//!   best score, when the best score is above zero (pinned and always-included tools are never
//!   floored). The minimal profile implies `s = 0.2` (spec); an explicit share wins. This is
//!   phpClaw's `ToolRouter(minScoreShare:)`.
//! - Stage 3 runs only with a request budget above zero; then the offered tools come back
//!   sorted by lowercased name even when the router did not engage (phpClaw's agent sorts the
//!   fitted list), otherwise in the router's order.
//! - Schema sizes are asked for only when stage 3 runs, and only for the tools the router kept.

use std::sync::Arc;

use super::fit::{fit_request, FitRequest, FitTool};
use super::profiles::Profile;
use super::router::{PreparedTool, RankedTool, Router, Selection, MINIMAL_PROFILE_SCORE_SHARE};

/// The inputs of one turn besides the tools and the message.
#[derive(Debug, Clone, Copy)]
pub struct RouteOptions<'a> {
    /// The explicit per-turn budget (`maxToolsPerTurn`).
    pub router: Router,
    /// Score floor share; 0 (or below, or NaN) means none unless the profile is minimal.
    pub min_score_share: f64,
    /// The turn's profile, if known.
    pub profile: Option<Profile>,
    /// Tools offered on every turn (matched case-insensitively).
    pub always_include: &'a [String],
    /// Bytes of the system prompt.
    pub system_prompt_chars: usize,
    /// Bytes of each history message, the current one included.
    pub history_chars: &'a [usize],
    /// Stage 3's budget in estimated tokens; 0 turns stage 3 off.
    pub request_budget: usize,
}

/// What one turn offers, with how it got there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Route {
    /// The router's decision (after the score floor).
    pub selection: Selection,
    /// Indices of the tools offered after stage 3, in the order they are sent.
    pub offered: Vec<usize>,
    /// Indices stage 3 dropped, first dropped first.
    pub dropped: Vec<usize>,
    /// Estimated request tokens with the offered tools (0 when stage 3 is off).
    pub estimate_tokens: usize,
}

/// The share a turn's floor uses: an explicit positive share, else 0.2 on the minimal profile.
pub fn effective_share(min_score_share: f64, profile: Option<Profile>) -> f64 {
    if min_score_share > 0.0 {
        min_score_share
    } else if profile == Some(Profile::Minimal) {
        MINIMAL_PROFILE_SCORE_SHARE
    } else {
        0.0
    }
}

/// Re-slices an engaged selection made without a floor, leaving out ranked tools below
/// `share` of the best score. A selection that did not engage, or a share of 0, is unchanged.
pub fn apply_score_floor(tools: &[Arc<PreparedTool>], selection: &mut Selection, share: f64) {
    if !selection.engaged || share.is_nan() || share <= 0.0 {
        return;
    }
    let Some(limit) = selection.budget else {
        return;
    };
    let best = selection.ranked.first().map_or(0.0, |r| r.score);
    let floor = (best > 0.0).then_some(best * share);
    let slots = limit.saturating_sub(selection.pinned.len());
    let mut taken = 0usize;
    let mut chosen = selection.pinned.clone();
    for row in &mut selection.ranked {
        let above = match floor {
            Some(f) => row.score >= f,
            None => true,
        };
        row.offered = above && taken < slots;
        if row.offered {
            taken += 1;
            chosen.push(row.index);
        }
    }
    let name_of = |i: usize| tools.get(i).map_or("", |t| t.name_lower());
    let mut selected: Vec<usize> = chosen
        .iter()
        .chain(&selection.always_included)
        .copied()
        .collect();
    selected.sort_by(|&a, &b| name_of(a).cmp(name_of(b)).then(a.cmp(&b)));
    selection.selected = selected;
    selection.chosen_order = chosen;
}

/// Stage 2 for one message: the router's selection with the turn's score floor applied.
pub fn select(
    tools: &[Arc<PreparedTool>],
    message: &str,
    model: &str,
    router: Router,
    share: f64,
    always_include: &[String],
) -> Selection {
    let mut selection = router.filter_prepared(tools, message, model, None, always_include);
    apply_score_floor(tools, &mut selection, share);
    selection
}

/// Stages 2 and 3 for one turn. `schema_chars(i)` gives the JSON size in bytes of tool `i`'s
/// schema; it is called only when stage 3 runs, once per tool the router kept.
pub fn route(
    tools: &[Arc<PreparedTool>],
    message: &str,
    model: &str,
    opts: &RouteOptions<'_>,
    mut schema_chars: impl FnMut(usize) -> usize,
) -> Route {
    let share = effective_share(opts.min_score_share, opts.profile);
    let selection = select(
        tools,
        message,
        model,
        opts.router,
        share,
        opts.always_include,
    );
    if opts.request_budget == 0 {
        return Route {
            offered: selection.selected.clone(),
            selection,
            ..Route::default()
        };
    }
    let fit_tools: Vec<FitTool> = selection
        .selected
        .iter()
        .map(|&id| FitTool {
            id,
            schema_chars: schema_chars(id),
            always_included: selection.always_included.contains(&id),
        })
        .collect();
    let outcome = fit_request(&FitRequest {
        system_prompt_chars: opts.system_prompt_chars,
        history_chars: opts.history_chars,
        tools: &fit_tools,
        ranked: selection.fit_ranking(),
        budget_tokens: opts.request_budget,
    });
    let name_of = |i: usize| tools.get(i).map_or("", |t| t.name_lower());
    let mut offered = outcome.kept;
    offered.sort_by(|&a, &b| name_of(a).cmp(name_of(b)).then(a.cmp(&b)));
    Route {
        selection,
        offered,
        dropped: outcome.dropped,
        estimate_tokens: outcome.estimate_tokens,
    }
}

/// The ranked rows that made the offer, best first (for logs).
pub fn offered_ranked(selection: &Selection) -> impl Iterator<Item = &RankedTool> {
    selection.ranked.iter().filter(|r| r.offered)
}

/// Extra bytes PHP's default `json_encode` (slashes and non-ASCII escaped) writes compared with
/// the unescaped encoding `json` holds: `/` becomes `\/`, a two- or three-byte character six
/// bytes, a four-byte one twelve (a surrogate pair). U+2028/U+2029 are escaped either way.
pub fn default_flags_extra_bytes(json: &[u8]) -> usize {
    json.iter()
        .map(|&b| match b {
            b'/' => 1,
            0xC0..=0xDF => 4,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 8,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::routing::router::{prepare_all, ToolDescriptor};

    fn tools(specs: &[(&str, &[&str])]) -> Vec<Arc<PreparedTool>> {
        let d: Vec<ToolDescriptor> = specs
            .iter()
            .map(|(n, intents)| ToolDescriptor {
                intents: intents.iter().map(|s| s.to_string()).collect(),
                ..ToolDescriptor::new(*n, "generic helper")
            })
            .collect();
        prepare_all(&d)
    }

    fn names(t: &[Arc<PreparedTool>], ids: &[usize]) -> Vec<String> {
        ids.iter()
            .filter_map(|&i| t.get(i).map(|p| p.descriptor().name.clone()))
            .collect()
    }

    fn floor_set() -> Vec<Arc<PreparedTool>> {
        tools(&[
            ("invoice_lookup", &["look up an invoice"]),
            ("beta_tool", &[]),
            ("gamma_tool", &[]),
            ("delta_tool", &[]),
            ("epsilon_tool", &[]),
            ("zeta_tool", &[]),
        ])
    }

    #[test]
    fn explicit_share_matches_the_minimal_profile_floor() {
        let t = floor_set();
        let r = Router::new(5);
        let floored = select(&t, "look up an invoice", "", r, 0.2, &[]);
        assert_eq!(names(&t, &floored.selected), vec!["invoice_lookup"]);
        let by_profile =
            r.filter_prepared(&t, "look up an invoice", "", Some(Profile::Minimal), &[]);
        assert_eq!(floored, by_profile);
        let open = select(&t, "look up an invoice", "", r, 0.0, &[]);
        assert_eq!(open.selected.len(), 5);
        assert_eq!(effective_share(0.0, Some(Profile::Minimal)), 0.2);
        assert_eq!(effective_share(0.5, Some(Profile::Minimal)), 0.5);
        assert_eq!(effective_share(-1.0, Some(Profile::Full)), 0.0);
        assert_eq!(effective_share(f64::NAN, None), 0.0);
    }

    #[test]
    fn floor_leaves_the_cap_filled_when_nothing_scores() {
        let t = tools(&[("alpha_tool", &[]), ("beta_tool", &[]), ("gamma_tool", &[])]);
        let s = select(
            &t,
            "completely unrelated words",
            "",
            Router::new(2),
            0.2,
            &[],
        );
        assert_eq!(s.selected.len(), 2);
        // A share above one keeps only tools tied with... nothing: the best itself is below.
        let t = floor_set();
        let s = select(&t, "look up an invoice", "", Router::new(5), 1.0, &[]);
        assert_eq!(names(&t, &s.selected), vec!["invoice_lookup"]);
    }

    #[test]
    fn stage_three_off_keeps_the_router_order() {
        let t = floor_set();
        let opts = RouteOptions {
            router: Router::new(UNLIMITED_FOR_TEST),
            min_score_share: 0.0,
            profile: None,
            always_include: &[],
            system_prompt_chars: 0,
            history_chars: &[],
            request_budget: 0,
        };
        let mut asked = 0;
        let r = route(&t, "x", "", &opts, |_| {
            asked += 1;
            0
        });
        assert_eq!(asked, 0);
        assert_eq!(r.offered, vec![0, 1, 2, 3, 4, 5]);
        assert!(!r.selection.engaged && r.dropped.is_empty());
    }

    const UNLIMITED_FOR_TEST: i64 = -1;

    #[test]
    fn stage_three_drops_lowest_ranked_and_sorts_by_name() {
        let t = tools(&[
            ("zeta_posts", &["show posts"]),
            ("alpha_list", &["list items"]),
            ("mid_list", &["list items"]),
            ("other", &[]),
        ]);
        let always = vec!["OTHER".to_string()];
        // Budget 2 routed tools: zeta_posts (posts) and one list tool; "other" always rides along.
        let opts = RouteOptions {
            router: Router::new(2),
            min_score_share: 0.0,
            profile: None,
            always_include: &always,
            system_prompt_chars: 0,
            history_chars: &[],
            request_budget: 1,
        };
        let mut asked = Vec::new();
        let r = route(&t, "show posts", "", &opts, |i| {
            asked.push(i);
            100
        });
        assert!(r.selection.engaged);
        asked.sort_unstable();
        let mut want = r.selection.selected.to_vec();
        want.sort_unstable();
        assert_eq!(asked, want);
        // The lowest-ranked routed tool goes; one routed tool and the always-included one stay.
        assert_eq!(names(&t, &r.offered), vec!["other", "zeta_posts"]);
        assert_eq!(r.dropped.len(), 1);
        // Without the budget the router's name order is kept.
        let r = route(
            &t,
            "show posts",
            "",
            &RouteOptions {
                request_budget: 0,
                ..opts
            },
            |_| 100,
        );
        assert_eq!(r.offered.len(), 3);
    }

    #[test]
    fn not_engaged_with_a_budget_drops_from_the_end_then_sorts() {
        let t = tools(&[("zulu", &[]), ("alpha", &[]), ("mike", &[])]);
        let opts = RouteOptions {
            router: Router::new(5),
            min_score_share: 0.0,
            profile: None,
            always_include: &[],
            system_prompt_chars: 0,
            history_chars: &[],
            request_budget: 1,
        };
        let r = route(&t, "", "", &opts, |_| 398);
        assert!(!r.selection.engaged);
        assert_eq!(r.dropped, vec![2, 1]);
        assert_eq!(names(&t, &r.offered), vec!["zulu"]);
        // A roomy budget keeps all three, sorted by name.
        let r = route(
            &t,
            "",
            "",
            &RouteOptions {
                request_budget: 10_000,
                ..opts
            },
            |_| 398,
        );
        assert_eq!(names(&t, &r.offered), vec!["alpha", "mike", "zulu"]);
        assert!(r.estimate_tokens > 0);
    }

    #[test]
    fn default_flag_extra_bytes() {
        assert_eq!(default_flags_extra_bytes(br#"{"a":"b/c"}"#), 1);
        assert_eq!(default_flags_extra_bytes("é".as_bytes()), 4);
        assert_eq!(default_flags_extra_bytes("€".as_bytes()), 3);
        assert_eq!(default_flags_extra_bytes("😀".as_bytes()), 8);
        assert_eq!(default_flags_extra_bytes(b"plain"), 0);
    }
}
