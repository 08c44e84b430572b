//! Where a helper thread starts to pay for code_search: trees of growing size (files of ~8 KB
//! of PHP-like text, 10 per folder, as `bench/code_search.php` builds), each searched with the
//! tool alone on the calling thread and with a helper from the first file, alternated; per
//! search the median wall time and CPU time (`getrusage(RUSAGE_SELF)`: every thread of the
//! process) of 15 runs. The trees are kept under the temp dir for the next run.
//!
//! Run with `cargo run --release --no-default-features --example code_search_threads [sizes…]`.

use std::time::{Duration, Instant};

use phpclaw::core::tools::code_search::CodeSearch;
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

/// A tree of `n` files (built once).
fn tree(n: usize) -> String {
    let root = format!(
        "{}/phpclaw-bench-threads-{n}",
        std::env::temp_dir().display()
    );
    if std::path::Path::new(&format!("{root}/.done")).exists() {
        return root;
    }
    let mut seed = 7u64;
    for i in 0..n {
        let dir = format!("{root}/src/m{:02}/p{:02}", i / 100, (i / 10) % 10);
        std::fs::create_dir_all(&dir).unwrap();
        let mut body = format!("<?php\n\nnamespace App\\M{i};\n\n");
        while body.len() < 8000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = seed >> 33;
            body.push_str(&format!(
                "    public function handle{r}(array $input): string {{ return $this->render('view.{r}', $input); }}\n"
            ));
        }
        if i % 50 == 0 {
            body.push_str("    // needle: buildPayload($order)\n");
        }
        std::fs::write(format!("{dir}/Class{i}.php"), body).unwrap();
    }
    std::fs::write(format!("{root}/.done"), "").unwrap();
    root
}

/// CPU time of the whole process (all threads) so far.
fn cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value for the kernel to overwrite.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a writable struct.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| Duration::new(v.tv_sec as u64, v.tv_usec as u32 * 1000);
    t(u.ru_utime) + t(u.ru_stime)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![50, 100, 200, 400, 800, 1600, 3200]
    } else {
        sizes
    };
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    println!("files  pattern   alone wall / cpu      helper wall / cpu     helper/alone wall, cpu");
    for n in sizes {
        let root = tree(n);
        for (pattern, regex) in [("buildPayload", false), ("/build\\w+\\(\\$ord/", true)] {
            let input = Value::from_pairs([
                ("pattern", Value::str(pattern)),
                ("is_regex", Value::Bool(regex)),
            ]);
            let mut times = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
            let mut outputs = [Vec::new(), Vec::new()];
            for i in 0..31 {
                for (k, from) in [usize::MAX, 0].into_iter().enumerate() {
                    let mut tool = CodeSearch::new(root.clone());
                    tool.parallel_min_files = from;
                    let (c, t) = (cpu(), Instant::now());
                    let out = run(&mut tool, &mut Console, &input).unwrap();
                    let (wall, used) = (t.elapsed(), cpu() - c);
                    if i > 0 {
                        times[2 * k].push(wall);
                        times[2 * k + 1].push(used);
                    }
                    outputs[k] = out;
                }
            }
            assert_eq!(outputs[0], outputs[1], "same answer both ways");
            let [aw, ac, hw, hc] = times.map(median);
            println!(
                "{n:>5}  {:<8} {:>8.2?} / {:>8.2?}   {:>8.2?} / {:>8.2?}    {:.2}, {:.2}",
                if regex { "regex" } else { "literal" },
                aw,
                ac,
                hw,
                hc,
                hw.as_secs_f64() / aw.as_secs_f64(),
                hc.as_secs_f64() / ac.as_secs_f64(),
            );
        }
    }
}
