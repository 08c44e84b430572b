//! Micro timing for the router: one message ranked over 100 realistic prepared tools.
//!
//! Run with `cargo run --release --no-default-features --example router_timing`.
//! Prints the mean time per `filter_prepared` call (the hot path, metadata already
//! tokenised), per `filter` call on descriptors (cache lookups included), and per
//! `PreparedTool::new` (the one-off cost per tool).

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use phpclaw::core::routing::{PreparedTool, Profile, Router, ToolDescriptor};

/// A hundred tools shaped like an adapter's roster: snake names, a two-sentence description,
/// and a few domains, tags, intents and examples each.
fn roster() -> Vec<ToolDescriptor> {
    let subjects = [
        "post", "page", "product", "order", "customer", "coupon", "invoice", "category", "menu",
        "media", "comment", "user", "role", "plugin", "theme", "setting", "cache", "log", "backup",
        "report",
    ];
    let verbs = ["list", "get", "create", "update", "delete"];
    let mut out = Vec::new();
    for subject in subjects {
        for verb in verbs {
            out.push(ToolDescriptor {
                name: format!("wp_{verb}_{subject}s"),
                description: format!(
                    "{verb} {subject}s in the site database.\nReturns JSON with id, title, status and dates; pages with offset and limit."
                ),
                domains: vec![format!("{subject} management"), "content".into()],
                tags: vec![subject.into(), format!("{subject}s"), verb.into()],
                intents: vec![format!("{verb} {subject}"), format!("{verb} the {subject}s")],
                examples: vec![
                    format!("{verb} all {subject}s from last week"),
                    format!("please {verb} the {subject} with id 42"),
                ],
            });
        }
    }
    out
}

/// This process's user + system CPU time in seconds (Linux `/proc/self/stat`, 100 ticks/s),
/// so a machine shared with other work still gives a fair per-call figure.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = stat.rsplit(')').next()?;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn main() {
    let tools = roster();
    assert_eq!(tools.len(), 100);
    let message = "Can you list the latest products in the shoes category and update the coupon for order 1042? Use ShellTool if needed.";
    let router = Router::new(0);

    let started = Instant::now();
    let prepared: Vec<Arc<PreparedTool>> = tools
        .iter()
        .map(|d| Arc::new(PreparedTool::new(d.clone())))
        .collect();
    let prepare_each = started.elapsed() / 100;

    let runs: u32 = 50_000;
    for _ in 0..1_000 {
        black_box(router.filter_prepared(
            &prepared,
            message,
            "claude-sonnet-4",
            Some(Profile::Full),
            &[],
        ));
    }
    let cpu_before = cpu_seconds();
    let started = Instant::now();
    for _ in 0..runs {
        black_box(router.filter_prepared(
            black_box(&prepared),
            black_box(message),
            "claude-sonnet-4",
            Some(Profile::Full),
            &[],
        ));
    }
    let hot = started.elapsed() / runs;
    let hot_cpu = match (cpu_before, cpu_seconds()) {
        (Some(a), Some(b)) => format!("{:.1}µs", (b - a) * 1e6 / f64::from(runs)),
        _ => "n/a".to_string(),
    };

    let started = Instant::now();
    for _ in 0..runs / 10 {
        black_box(router.filter(
            black_box(&tools),
            black_box(message),
            "claude-sonnet-4",
            Some(Profile::Full),
            &[],
        ));
    }
    let cached = started.elapsed() / (runs / 10);

    let sel = router.filter_prepared(
        &prepared,
        message,
        "claude-sonnet-4",
        Some(Profile::Full),
        &[],
    );
    let names: Vec<&str> = sel
        .selected
        .iter()
        .filter_map(|&i| tools.get(i).map(|t| t.name.as_str()))
        .collect();
    println!("selected ({}): {}", names.len(), names.join(", "));
    println!("filter_prepared, 100 tools: {hot:?} wall, {hot_cpu} CPU per call");
    println!("filter (descriptors, cached): {cached:?} per call");
    println!("PreparedTool::new: {prepare_each:?} per tool");
}
