//! Stage 3: drop routed tools until the estimated request fits the profile's token budget.
//!
//! Rules (spec "Stage 3"; phpClaw's `Agent::fitToolsToBudget`, with its estimate parts):
//! - Estimate, at four characters (bytes, as PHP's `strlen`) per token:
//!   `ceil(system prompt / 4) + floor(sum of history / 4) + ceil(tools JSON / 4)`, where the
//!   history includes the current message and the tools JSON is the list of schemas as one
//!   JSON array: `2 + sum of schema lengths + (count - 1)` commas (0 with no tool at all).
//! - A budget of 0 means none: nothing is dropped.
//! - While the estimate is over budget and more than one routed tool remains, drop one tool:
//!   the lowest-ranked when the router ranked (tools missing from the ranking go before every
//!   ranked one, last registered first), otherwise the last in registration order (a tool the
//!   message named included).
//! - An always-included tool is never dropped and never counts as the routed tool kept.

/// Bytes of text the estimate counts as one token (reference `CHARS_PER_TOKEN_ESTIMATE`).
pub const CHARS_PER_TOKEN: usize = 4;

/// One tool offered this turn, as stage 3 sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitTool {
    /// Caller's id for the tool (e.g. its index in the router's input).
    pub id: usize,
    /// Length in bytes of the tool's schema as JSON-encoded for the provider.
    pub schema_chars: usize,
    /// Offered on every turn: never dropped.
    pub always_included: bool,
}

/// Everything the fit needs about one request.
#[derive(Debug, Clone, Copy)]
pub struct FitRequest<'a> {
    /// Length in bytes of the system prompt.
    pub system_prompt_chars: usize,
    /// Length in bytes of each history message, the current user message included.
    pub history_chars: &'a [usize],
    /// The offered tools, in registration order.
    pub tools: &'a [FitTool],
    /// Tool ids best first when the router ranked this turn (`Selection::fit_ranking`), else `None`.
    pub ranked: Option<&'a [usize]>,
    /// The profile's request budget in tokens; 0 means none.
    pub budget_tokens: usize,
}

/// What the fit kept and dropped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FitOutcome {
    /// Ids of the tools kept, in the order they were given.
    pub kept: Vec<usize>,
    /// Ids of the tools dropped, first dropped first.
    pub dropped: Vec<usize>,
    /// Estimated tokens of the request that will be sent.
    pub estimate_tokens: usize,
    /// Whether that estimate is within the budget (always true with no budget).
    pub fits: bool,
}

/// `ceil(n / CHARS_PER_TOKEN)` without overflow.
fn ceil_tokens(n: usize) -> usize {
    n / CHARS_PER_TOKEN + usize::from(n % CHARS_PER_TOKEN != 0)
}

/// Bytes of the JSON array holding `count` schemas totalling `sum` bytes.
fn tools_json_chars(count: usize, sum: usize) -> usize {
    if count == 0 {
        0
    } else {
        sum.saturating_add(2).saturating_add(count - 1)
    }
}

/// The request's estimated tokens: system prompt, history and tool schemas.
pub fn estimate_tokens(
    system_prompt_chars: usize,
    history_chars: &[usize],
    schema_chars: &[usize],
) -> usize {
    let history = history_chars
        .iter()
        .fold(0usize, |a, &b| a.saturating_add(b));
    let schemas = schema_chars
        .iter()
        .fold(0usize, |a, &b| a.saturating_add(b));
    ceil_tokens(system_prompt_chars)
        .saturating_add(history / CHARS_PER_TOKEN)
        .saturating_add(ceil_tokens(tools_json_chars(schema_chars.len(), schemas)))
}

/// Drops tools, lowest-ranked or last-registered first, until the request fits its budget.
pub fn fit_request(req: &FitRequest<'_>) -> FitOutcome {
    let base = ceil_tokens(req.system_prompt_chars).saturating_add(
        req.history_chars
            .iter()
            .fold(0usize, |a, &b| a.saturating_add(b))
            / CHARS_PER_TOKEN,
    );
    let mut count = req.tools.len();
    let mut sum = req
        .tools
        .iter()
        .fold(0usize, |a, t| a.saturating_add(t.schema_chars));
    let estimate =
        |count: usize, sum: usize| base.saturating_add(ceil_tokens(tools_json_chars(count, sum)));

    // Droppable tools, first to keep first: the fit pops from the end.
    let mut droppable: Vec<(usize, &FitTool)> = req
        .tools
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.always_included)
        .collect();
    if let Some(order) = req.ranked {
        let mut rank: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        for (at, &id) in order.iter().enumerate() {
            rank.entry(id).or_insert(at);
        }
        let rank_of = |id: usize| rank.get(&id).copied().unwrap_or(usize::MAX);
        droppable.sort_by_key(|&(pos, t)| (rank_of(t.id), pos));
    }

    let mut is_dropped = vec![false; req.tools.len()];
    let mut dropped = Vec::new();
    if req.budget_tokens > 0 {
        while droppable.len() > 1 && estimate(count, sum) > req.budget_tokens {
            let Some((pos, tool)) = droppable.pop() else {
                break;
            };
            count -= 1;
            sum = sum.saturating_sub(tool.schema_chars);
            if let Some(flag) = is_dropped.get_mut(pos) {
                *flag = true;
            }
            dropped.push(tool.id);
        }
    }
    let estimate_tokens = estimate(count, sum);
    FitOutcome {
        kept: req
            .tools
            .iter()
            .enumerate()
            .filter(|(pos, _)| !is_dropped.get(*pos).copied().unwrap_or(false))
            .map(|(_, t)| t.id)
            .collect(),
        dropped,
        estimate_tokens,
        fits: req.budget_tokens == 0 || estimate_tokens <= req.budget_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(lens: &[usize]) -> Vec<FitTool> {
        lens.iter()
            .enumerate()
            .map(|(id, &schema_chars)| FitTool {
                id,
                schema_chars,
                always_included: false,
            })
            .collect()
    }

    #[test]
    fn estimate_parts_and_rounding() {
        // system: ceil(5/4) = 2; history: floor((3+3)/4) = 1; tools: "[" 7 "," 8 "]" = 17 -> ceil 5.
        assert_eq!(estimate_tokens(5, &[3, 3], &[7, 8]), 2 + 1 + 5);
        // History is summed before flooring: 3 + 3 = 6 -> 1, not 0 + 0.
        assert_eq!(estimate_tokens(0, &[3, 3], &[]), 1);
        assert_eq!(estimate_tokens(4, &[], &[]), 1);
        assert_eq!(estimate_tokens(0, &[], &[2]), 1); // "[" + 2 + "]" = 4 -> 1
        assert_eq!(estimate_tokens(0, &[], &[3]), 2); // 5 -> 2
        assert!(estimate_tokens(usize::MAX, &[usize::MAX, 9], &[usize::MAX, 1]) > usize::MAX / 8);
    }

    #[test]
    fn no_budget_keeps_everything() {
        let t = tools(&[4000, 4000, 4000]);
        let out = fit_request(&FitRequest {
            system_prompt_chars: 100_000,
            history_chars: &[],
            tools: &t,
            ranked: None,
            budget_tokens: 0,
        });
        assert_eq!(out.kept, vec![0, 1, 2]);
        assert!(out.dropped.is_empty() && out.fits);
    }

    #[test]
    fn ranked_drops_lowest_first_and_stops_when_it_fits() {
        // Four tools of 398 bytes: JSON = 2 + 4*398 + 3 = 1597 -> 400 tokens; each drop saves
        // 399 bytes. Base: system 400 bytes (100) + history 400 (100) = 200. Budget 500:
        // 600 > 500 -> drop; 3 tools: 2 + 1194 + 2 = 1198 -> 300 -> 500 <= 500 fits.
        let t = tools(&[398, 398, 398, 398]);
        let out = fit_request(&FitRequest {
            system_prompt_chars: 400,
            history_chars: &[200, 200],
            tools: &t,
            ranked: Some(&[2, 0, 3, 1]),
            budget_tokens: 500,
        });
        assert_eq!(out.dropped, vec![1]);
        assert_eq!(out.kept, vec![0, 2, 3]);
        assert_eq!(out.estimate_tokens, 500);
        assert!(out.fits);
        // One token less and the next lowest goes too.
        let out = fit_request(&FitRequest {
            budget_tokens: 499,
            ..fit_args(&t, Some(&[2, 0, 3, 1]))
        });
        assert_eq!(out.dropped, vec![1, 3]);
    }

    fn fit_args<'a>(t: &'a [FitTool], ranked: Option<&'a [usize]>) -> FitRequest<'a> {
        FitRequest {
            system_prompt_chars: 400,
            history_chars: &[200, 200],
            tools: t,
            ranked,
            budget_tokens: 500,
        }
    }

    #[test]
    fn unranked_drops_from_the_end_of_registration_order() {
        let t = tools(&[398, 398, 398, 398]);
        let out = fit_request(&FitRequest {
            budget_tokens: 1,
            ..fit_args(&t, None)
        });
        assert_eq!(out.dropped, vec![3, 2, 1]);
        assert_eq!(out.kept, vec![0]);
        assert!(!out.fits); // at least one routed tool stays even over budget
    }

    #[test]
    fn tools_missing_from_the_ranking_go_first() {
        let t = tools(&[398, 398, 398, 398]);
        let out = fit_request(&FitRequest {
            budget_tokens: 1,
            ..fit_args(&t, Some(&[3, 1]))
        });
        assert_eq!(out.dropped, vec![2, 0, 1]);
        assert_eq!(out.kept, vec![3]);
    }

    #[test]
    fn always_included_tools_stay_and_one_routed_tool_is_kept() {
        let mut t = tools(&[398, 398, 398, 398]);
        if let Some(first) = t.first_mut() {
            first.always_included = true;
        }
        let out = fit_request(&FitRequest {
            budget_tokens: 1,
            ..fit_args(&t, Some(&[1, 2, 3]))
        });
        assert_eq!(out.dropped, vec![3, 2]);
        assert_eq!(out.kept, vec![0, 1]);
        // Only always-included tools: nothing to drop.
        let all: Vec<FitTool> = t
            .iter()
            .map(|x| FitTool {
                always_included: true,
                ..*x
            })
            .collect();
        let out = fit_request(&FitRequest {
            budget_tokens: 1,
            ..fit_args(&all, None)
        });
        assert!(out.dropped.is_empty());
        assert_eq!(out.kept.len(), 4);
    }

    #[test]
    fn budget_at_the_limit_and_one_below() {
        // One tool of 2 bytes: JSON 4 -> 1 token; base 0. Budget 1 fits, nothing else to drop.
        let t = tools(&[2, 2]);
        // Two tools: 2 + 2 + 2 + 1 = 7 -> 2 tokens.
        let args = FitRequest {
            system_prompt_chars: 0,
            history_chars: &[],
            tools: &t,
            ranked: None,
            budget_tokens: 2,
        };
        assert!(fit_request(&args).dropped.is_empty());
        let out = fit_request(&FitRequest {
            budget_tokens: 1,
            ..args
        });
        assert_eq!(out.dropped, vec![1]);
        assert_eq!(out.estimate_tokens, 1);
        assert!(out.fits);
        let none = fit_request(&FitRequest { tools: &[], ..args });
        assert!(none.kept.is_empty() && none.fits && none.estimate_tokens == 0);
    }

    #[test]
    fn spec_example_with_the_router() {
        use crate::core::routing::router::{Router, ToolDescriptor};
        // Within budget: the router does not rank, so the fit drops from the end of the
        // registration order, even the tool the message names.
        let t: Vec<ToolDescriptor> = ["alpha_tool", "beta_tool", "named_tool"]
            .iter()
            .map(|n| ToolDescriptor::new(*n, "x"))
            .collect();
        let sel = Router::new(5).filter(&t, "please run named_tool", "", None, &[]);
        assert!(!sel.engaged);
        let fit_tools: Vec<FitTool> = sel
            .selected
            .iter()
            .map(|&id| FitTool {
                id,
                schema_chars: 398,
                always_included: false,
            })
            .collect();
        let out = fit_request(&FitRequest {
            system_prompt_chars: 0,
            history_chars: &[],
            tools: &fit_tools,
            ranked: sel.fit_ranking(),
            budget_tokens: 150,
        });
        assert_eq!(out.dropped, vec![2, 1]); // the named tool goes first
                                             // Ranked: the named (pinned) tool ranks first and survives.
        let sel = Router::new(2).filter(&t, "please run named_tool", "", None, &[]);
        assert!(sel.engaged);
        let fit_tools: Vec<FitTool> = sel
            .selected
            .iter()
            .map(|&id| FitTool {
                id,
                schema_chars: 398,
                always_included: false,
            })
            .collect();
        let out = fit_request(&FitRequest {
            system_prompt_chars: 0,
            history_chars: &[],
            tools: &fit_tools,
            ranked: sel.fit_ranking(),
            budget_tokens: 101,
        });
        assert_eq!(out.kept, vec![2]);
    }
}
