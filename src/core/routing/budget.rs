//! The per-turn tool budget: explicit, off, or derived from the model id.
//!
//! Rules (spec "The per-turn budget", phpClaw's `ToolRouter::MODEL_LIMITS`):
//! - [`UNLIMITED`] (-1) turns the cap off; a positive value is the budget; 0 and every other
//!   negative value mean "derive it from the model id".
//! - Derivation tries [`MODEL_BUDGETS`] in order and the first fragment found wins; no match
//!   gives [`DEFAULT_BUDGET`].
//! - A fragment is found on a token boundary: it occurs literally in the ASCII-lowercased id
//!   and the byte before it and the byte after it are each absent or not an ASCII letter or
//!   digit. Multi-token fragments (`gpt-3.5`, `gpt-4o`) must appear with exactly their own
//!   separators. So `gemini-2.5-pro` is not `mini`, `o4-mini` is, `minimax` is not.

/// The budget value that switches the cap off (reference `ToolRouter::UNLIMITED`).
pub const UNLIMITED: i64 = -1;

/// Budget for a model id no fragment matches (reference `DEFAULT_LIMIT`).
pub const DEFAULT_BUDGET: usize = 10;

/// Fragment → budget, tried in this order; from the spec's table and `ToolRouter::MODEL_LIMITS`.
pub const MODEL_BUDGETS: &[(&str, usize)] = &[
    ("haiku", 6),
    ("flash", 6),
    ("gpt-3.5", 5),
    ("mini", 8),
    ("gemini", 15),
    ("sonnet", 12),
    ("gpt-4o", 15),
    ("opus", 20),
];

/// Whether `fragment` occurs in `model_lower` with no ASCII letter or digit touching either end.
pub fn matches_fragment(model_lower: &str, fragment: &str) -> bool {
    let hay = model_lower.as_bytes();
    let needle = fragment.as_bytes();
    if needle.is_empty() || needle.len() > hay.len() {
        return false;
    }
    let touches = |b: Option<&u8>| b.is_some_and(|c| c.is_ascii_alphanumeric());
    (0..=hay.len() - needle.len()).any(|at| {
        hay.get(at..at + needle.len()) == Some(needle)
            && !touches(at.checked_sub(1).and_then(|p| hay.get(p)))
            && !touches(hay.get(at + needle.len()))
    })
}

/// The budget a model id earns when none is set explicitly.
pub fn model_budget(model: &str) -> usize {
    let lower = model.to_ascii_lowercase();
    MODEL_BUDGETS
        .iter()
        .find(|(fragment, _)| matches_fragment(&lower, fragment))
        .map_or(DEFAULT_BUDGET, |&(_, budget)| budget)
}

/// The effective budget for one turn: `None` when the cap is off, else the number of tools.
pub fn resolve_budget(max_tools_per_turn: i64, model: &str) -> Option<usize> {
    if max_tools_per_turn == UNLIMITED {
        return None;
    }
    if max_tools_per_turn > 0 {
        return Some(usize::try_from(max_tools_per_turn).unwrap_or(usize::MAX));
    }
    Some(model_budget(model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fragment_alone_and_real_ids() {
        let cases = [
            ("haiku", 6),
            ("flash", 6),
            ("gpt-3.5", 5),
            ("mini", 8),
            ("gemini", 15),
            ("sonnet", 12),
            ("gpt-4o", 15),
            ("opus", 20),
            ("claude-opus-5", 20),
            ("claude-sonnet-5", 12),
            ("claude-haiku-4-5-20251001", 6),
            ("claude-3-5-haiku", 6),
            ("gpt-4o-mini", 8),
            ("gpt-4", 10),
            ("gpt-4-turbo", 10),
            ("gpt-3.5-turbo", 5),
            ("o1-mini", 8),
            ("o4-mini", 8),
            ("gemini-1.5-pro", 15),
            ("gemini-pro", 15),
            ("gemini-2.5-pro", 15),
            ("models/gemini-1.5-pro-latest", 15),
            ("gemini-2.0-flash", 6),
            ("gemini-2.0-flash-lite", 6),
            ("gemini-3.5-flash-lite", 6),
            ("qwen2.5:7b", 10),
            ("llama3", 10),
            ("mistral-large", 10),
            ("deepseek-chat", 10),
            ("", 10),
        ];
        for (model, want) in cases {
            assert_eq!(model_budget(model), want, "{model}");
        }
    }

    #[test]
    fn token_boundary_edge_cases() {
        let cases = [
            ("geminimini", 10), // neither fragment stands alone
            ("minimax", 10),
            ("MiniMax-Text", 10),
            ("GPT-4O-MINI", 8), // case does not matter
            ("Claude-OPUS", 20),
            ("gpt-3.5x", 10), // letter after the fragment
            ("xgpt-4o", 10),  // letter before the fragment
            ("gpt_3.5", 10),  // separators are part of the fragment
            ("gpt-3.50", 10), // digit after the fragment
            ("mini.", 8),     // punctuation is a boundary
            ("émini", 8),     // non-ASCII bytes are boundaries
            ("mini2", 10),
            ("2mini", 10),
            ("flash-mini", 6), // order: flash is tried before mini
            ("mini-gemini", 8),
        ];
        for (model, want) in cases {
            assert_eq!(model_budget(model), want, "{model}");
        }
    }

    #[test]
    fn explicit_unlimited_and_negative_budgets() {
        assert_eq!(resolve_budget(UNLIMITED, "claude-haiku"), None);
        assert_eq!(resolve_budget(3, "claude-opus-4"), Some(3));
        assert_eq!(resolve_budget(1, ""), Some(1));
        assert_eq!(resolve_budget(0, "claude-haiku"), Some(6));
        assert_eq!(resolve_budget(-2, "claude-haiku"), Some(6));
        assert_eq!(resolve_budget(i64::MIN, "x"), Some(10));
        assert_eq!(resolve_budget(i64::MAX, "x").map(|b| b > 0), Some(true));
    }
}
