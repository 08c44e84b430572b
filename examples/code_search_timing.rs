//! Phase timing for code_search and project_info on the bench tree (`bench/code_search.php`
//! generates it under the temp dir; pass another root as the first argument).
//!
//! Run with `cargo run --release --no-default-features --example code_search_timing`.
//! Prints the best of 10 runs for: opening and reading every file on two threads, opening,
//! reading and `memmem` over every file on one, code_search's name rules for every file, the
//! walk alone (listing and sorting every folder), opening and reading every file the walk finds
//! into one reused buffer on one thread (the floor of any one-thread search), a literal, a
//! regex and an `i` regex through the tool, project_info at depth 3 and its parts.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use phpclaw::core::security::workspace::beneath::HardLinks;
use phpclaw::core::tools::code_search::{scan, CodeSearch};
use phpclaw::core::tools::project::Project;
use phpclaw::core::tools::{run, Host};
use phpclaw::core::value::Value;

/// A console host: every call is allowed.
struct Console;

impl Host for Console {
    type Error = ();
    fn running_in_console(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
    fn allows(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
}

/// Every regular file below `dir`, in name order.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        match e.file_type() {
            Ok(t) if t.is_dir() => files(&e.path(), out),
            Ok(t) if t.is_file() => out.push(e.path()),
            _ => {}
        }
    }
}

/// Open `f` by path and read it whole (the floor: no sandbox checks).
fn read_path(f: &Path, buf: &mut Vec<u8>) -> bool {
    let Ok(file) = std::fs::File::open(f) else {
        return false;
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    scan::read_open(file, size, u64::MAX, buf)
}

fn best(mut f: impl FnMut()) -> Duration {
    (0..10)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| {
        format!(
            "{}/phpclaw-bench-code-search",
            std::env::temp_dir().display()
        )
    });
    let mut list = Vec::new();
    let walk = best(|| {
        list.clear();
        files(Path::new(&root), &mut list);
    });
    let mut buf = Vec::new();
    let mut bytes = 0;
    let read = best(|| {
        bytes = 0;
        for f in &list {
            if read_path(f, &mut buf) {
                bytes += buf.len();
            }
        }
    });
    let next = std::sync::atomic::AtomicUsize::new(0);
    let read2 = best(|| {
        next.store(0, std::sync::atomic::Ordering::Relaxed);
        std::thread::scope(|sc| {
            let work = || {
                let mut buf = Vec::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(f) = list.get(i) else { break };
                    read_path(f, &mut buf);
                }
            };
            sc.spawn(work);
            work();
        });
    });
    println!("open+read on 2 threads {read2:?}");
    let finder = memchr::memmem::Finder::new(b"buildPayload");
    let mut hits = 0;
    let read_find = best(|| {
        hits = 0;
        for f in &list {
            if read_path(f, &mut buf) && finder.find(&buf).is_some() {
                hits += 1;
            }
        }
    });
    println!("open+read+memmem {read_find:?} ({hits} files hit)");
    let names = best(|| {
        for f in &list {
            let n = f.file_name().unwrap_or_default().to_string_lossy();
            std::hint::black_box(phpclaw::core::security::file_rules::code_search_skips_dir(
                &n,
            ));
            std::hint::black_box(phpclaw::core::security::file_rules::code_search_skips_file(
                &n,
            ));
        }
    });
    println!("name checks {names:?}");
    println!(
        "walk {walk:?} ({} files), open+read {read:?} ({bytes} bytes)",
        list.len()
    );
    for (pattern, regex) in [
        ("buildPayload", false),
        ("/build\\w+\\(\\$ord/", true),
        ("/\\(\\$ord/i", true),
    ] {
        let input = Value::from_pairs([
            ("pattern", Value::str(pattern)),
            ("is_regex", Value::Bool(regex)),
        ]);
        let mut len = 0;
        let t = best(|| {
            let mut tool = CodeSearch::new(root.clone());
            len = run(&mut tool, &mut Console, &input)
                .map(|j| j.len())
                .unwrap_or(0);
        });
        println!("code_search {pattern}: {t:?} ({len} bytes of JSON)");
    }
    let input = Value::from_pairs([("depth", Value::Int(3))]);
    let t = best(|| {
        let mut tool = Project::new(root.clone());
        let _ = run(&mut tool, &mut Console, &input);
    });
    println!("project_info depth 3: {t:?}");
    use phpclaw::core::tools::project;
    let d = best(|| {
        std::hint::black_box(project::detect(&root));
    });
    let pk = best(|| {
        std::hint::black_box(project::packages(&root, HardLinks::Refuse));
    });
    let tr = best(|| {
        std::hint::black_box(project::tree(Path::new(&root), 3, 0));
    });
    println!("  detect {d:?}, packages {pk:?}, tree {tr:?}");
}
