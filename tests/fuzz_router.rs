//! Property tests for the routing module: arbitrary messages, model ids, metadata and budgets
//! never panic, never hang, and always give a well-formed selection.
//!
//! The case count defaults to 256 (a few seconds); set `PROPTEST_CASES` for a long run.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use phpclaw::core::routing::{
    budget, cap_result, cap_result_bytes, fit_request, profiles, text, FitRequest, FitTool,
    Profile, Router, ToolDescriptor,
};
use proptest::prelude::*;

/// Words a router likes to see, mixed with noise so matches, pins and ties actually happen.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("list".to_string()),
        Just("posts".to_string()),
        Just("file_read".to_string()),
        Just("load_skill".to_string()),
        Just("use ShellTool".to_string()),
        Just("categories".to_string()),
        Just("status".to_string()),
        Just("-".to_string()),
        Just("'".to_string()),
        Just("_".to_string()),
        Just("é".to_string()),
        "[a-zA-Z_'\\- ]{0,12}",
        "\\PC{0,8}",
    ]
}

fn phrase() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 0..5).prop_map(|w| w.join(" "))
}

fn descriptor() -> impl Strategy<Value = ToolDescriptor> {
    (
        prop_oneof![word(), "[a-z]{1,6}_[a-z]{1,6}"],
        phrase(),
        prop::collection::vec(phrase(), 0..2),
        prop::collection::vec(phrase(), 0..2),
        prop::collection::vec(phrase(), 0..2),
        prop::collection::vec(phrase(), 0..2),
    )
        .prop_map(
            |(name, description, domains, tags, intents, examples)| ToolDescriptor {
                name,
                description,
                domains,
                tags,
                intents,
                examples,
            },
        )
}

fn profile() -> impl Strategy<Value = Option<Profile>> {
    prop_oneof![
        Just(None),
        Just(Some(Profile::Minimal)),
        Just(Some(Profile::Standard)),
        Just(Some(Profile::Full)),
    ]
}

fn model() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("gpt-4o-mini".to_string()),
        Just("gemini-2.5-pro".to_string()),
        Just("claude-3-5-haiku".to_string()),
        "[a-zA-Z0-9.:/_-]{0,20}",
        "\\PC{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn selection_is_well_formed(
        tools in prop::collection::vec(descriptor(), 0..16),
        message in prop_oneof![phrase(), any::<String>()],
        model in model(),
        max in prop_oneof![Just(0i64), Just(-1i64), -5i64..30, any::<i64>()],
        profile in profile(),
        always in prop::collection::vec(prop_oneof![word(), Just("FILE_READ".to_string())], 0..3),
    ) {
        let started = Instant::now();
        let router = Router::new(max);
        let sel = router.filter(&tools, &message, &model, profile, &always);

        // Indices are valid and unique.
        let unique: HashSet<usize> = sel.selected.iter().copied().collect();
        prop_assert_eq!(unique.len(), sel.selected.len());
        prop_assert!(sel.selected.iter().all(|&i| i < tools.len()));

        // Budget as the rules give it.
        prop_assert_eq!(sel.budget, budget::resolve_budget(max, &model));
        if sel.engaged {
            let limit = sel.budget.unwrap_or(usize::MAX);
            prop_assert!(sel.selected.len() <= limit.max(sel.pinned.len()) + sel.always_included.len());
            // Every pinned and always-included tool is offered.
            prop_assert!(sel.pinned.iter().all(|i| unique.contains(i)));
            prop_assert!(sel.always_included.iter().all(|i| unique.contains(i)));
            // Sorted by lowercased name.
            let names: Vec<String> = sel.selected.iter().map(|&i| tools[i].name.to_ascii_lowercase()).collect();
            let mut sorted = names.clone();
            sorted.sort();
            prop_assert_eq!(names, sorted);
            // Ranked tools are ordered by score, best first.
            prop_assert!(sel.ranked.windows(2).all(|w| w[0].score >= w[1].score));
            prop_assert!(sel.ranked.iter().all(|r| r.score.is_finite() && r.score >= 0.0));
        } else {
            prop_assert_eq!(sel.selected.clone(), (0..tools.len()).collect::<Vec<_>>());
        }

        // Identical input, identical selection.
        prop_assert_eq!(&sel, &router.filter(&tools, &message, &model, profile, &always));

        let c = Router::confidence(&tools, &message);
        prop_assert!((0.0..=1.0).contains(&c));
        // A hang detector, loose enough for a loaded debug build.
        prop_assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn fit_keeps_one_routed_tool_and_every_always_included(
        lens in prop::collection::vec((0usize..5000, any::<bool>()), 0..30),
        history in prop::collection::vec(0usize..20_000, 0..10),
        system in 0usize..50_000,
        budget in prop_oneof![Just(0usize), 0usize..10_000],
        ranked in prop::option::of(prop::collection::vec(0usize..40, 0..40)),
    ) {
        let tools: Vec<FitTool> = lens
            .iter()
            .enumerate()
            .map(|(id, &(schema_chars, always_included))| FitTool { id, schema_chars, always_included })
            .collect();
        let out = fit_request(&FitRequest {
            system_prompt_chars: system,
            history_chars: &history,
            tools: &tools,
            ranked: ranked.as_deref(),
            budget_tokens: budget,
        });
        prop_assert_eq!(out.kept.len() + out.dropped.len(), tools.len());
        let routed = tools.iter().filter(|t| !t.always_included).count();
        let kept_routed = out.kept.iter().filter(|&&i| !tools[i].always_included).count();
        prop_assert!(kept_routed >= routed.min(1));
        prop_assert!(out.dropped.iter().all(|&i| !tools[i].always_included));
        if budget == 0 {
            prop_assert!(out.dropped.is_empty());
        }
        if !out.dropped.is_empty() && kept_routed > 1 {
            prop_assert!(out.fits);
        }
    }

    #[test]
    fn text_helpers_never_panic(s in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..64), n in any::<i64>()) {
        let toks = text::tokens(&s);
        prop_assert!(toks.iter().all(|t| t.len() >= text::MIN_KEYWORD_LEN - 1 && t.is_ascii()));
        let _ = text::explicit_tool_names(&s);
        let _ = budget::model_budget(&s);
        let _ = profiles::resolve(&s, &s);
        let lean = profiles::lean_description(&s);
        prop_assert!(!lean.contains('\n'));
        let capped = cap_result(&s, n % 64);
        if n % 64 > 0 && s.len() > (n % 64) as usize * 4 {
            prop_assert!(capped.ends_with("if the tool supports it.]"));
        } else {
            prop_assert_eq!(capped.as_ref(), s.as_str());
        }
        let _ = cap_result_bytes(&bytes, n % 8);
    }
}

#[test]
fn huge_inputs_finish_quickly() {
    // 200 KB of distinct words against 100 tools with long metadata: linear, not quadratic.
    let message: String = (0..20_000).map(|i| format!("w{i:x}q posts_{i} ")).collect();
    let desc: String = (0..2_000).map(|i| format!("d{i:x}z ")).collect();
    let tools: Vec<ToolDescriptor> = (0..100)
        .map(|i| ToolDescriptor {
            intents: vec![format!("list posts {i}")],
            ..ToolDescriptor::new(format!("tool_{i}"), desc.clone())
        })
        .collect();
    let started = Instant::now();
    let sel = Router::new(5).filter(&tools, &message, "", Some(Profile::Minimal), &[]);
    assert!(sel.engaged);
    let _ = Router::confidence(&tools, &message);
    let deny: Vec<String> = (0..50_000).map(|i| format!("t{i}")).collect();
    let groups: Vec<(String, Vec<String>)> = vec![("g".into(), deny.clone())];
    let names: Vec<&str> = deny.iter().map(String::as_str).collect();
    let _ = profiles::filter_denied(&names, &deny, &groups);
    let _ = profiles::dangling_group_members(&names, &groups);
    let fit_tools: Vec<FitTool> = (0..50_000)
        .map(|id| FitTool {
            id,
            schema_chars: 100,
            always_included: false,
        })
        .collect();
    let order: Vec<usize> = (0..50_000).rev().collect();
    let _ = fit_request(&FitRequest {
        system_prompt_chars: 0,
        history_chars: &[],
        tools: &fit_tools,
        ranked: Some(&order),
        budget_tokens: 1,
    });
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
