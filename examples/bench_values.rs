//! Rough throughput of the JSON encoder and the entity decoder on ~1 MB inputs, to compare
//! with PHP's `json_encode` / `html_entity_decode` (see the report for the php one-liners).
//! Run: `cargo run --release --no-default-features --example bench_values`.

use std::time::Instant;

use phpclaw::core::entities;
use phpclaw::core::json::{self, EncodeOptions};
use phpclaw::core::value::Value;

/// The same payload the php side builds: 2000 rows of mixed text, numbers and a nested list.
fn payload() -> Value {
    let rows: Vec<Value> = (0..2000)
        .map(|i| {
            Value::from_pairs([
                ("id", Value::Int(i)),
                ("name", Value::str(format!("file_{i}.php"))),
                ("path", Value::str(format!("/var/www/html/src/Module{i}/Controller/Index.php"))),
                ("score", Value::Float(i as f64 / 7.0)),
                ("ok", Value::Bool(i % 2 == 0)),
                ("text", Value::str("Grüße, \"quoted\" text with a tab\tand a newline\n — and some more plain ASCII words to pad the line out. ".repeat(3))),
                ("tags", Value::list(["a", "b", "c&amp;d"])),
            ])
        })
        .collect();
    Value::from_pairs([("success", Value::Bool(true)), ("rows", Value::list(rows))])
}

fn main() {
    let only = std::env::args().nth(1).unwrap_or_default();
    if only == "micro" {
        micro();
        return;
    }
    if only == "ent" {
        entities_bench();
        return;
    }
    let v = payload();
    let mut out = Vec::new();
    json::encode(&v, EncodeOptions::default(), &mut out).expect("encodes");
    let size = out.len();
    let iters = 200;
    for (label, opts) in [
        ("plain", EncodeOptions::default()),
        ("contract", EncodeOptions::contract()),
    ] {
        let t = Instant::now();
        for _ in 0..iters {
            out.clear();
            json::encode(&v, opts, &mut out).expect("encodes");
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "json_encode {label}: {size} bytes, {:.1} MB/s",
            (size * iters) as f64 / s / 1e6
        );
    }
    if only == "json" {
        return;
    }
    entities_bench();
}

fn entities_bench() {
    let iters = 200;

    let text = "Some plain text &amp; an entity, &lt;b&gt;bold&lt;/b&gt; and &#39;quotes&#39; — plus more words. "
        .repeat(10_000);
    let text = text.as_bytes();
    let t = Instant::now();
    let mut n = 0;
    for _ in 0..iters {
        n += entities::decode(text).len();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "html_entity_decode: {} bytes, {:.1} MB/s (out {n})",
        text.len(),
        (text.len() * iters) as f64 / s / 1e6
    );
    let prose = "A typical tool output line, mostly plain prose: file names, paths like /var/www/html and numbers 12345, with the odd entity such as &amp; or &quot;quoted&quot; text now and then.\n"
        .repeat(6_000);
    let t = Instant::now();
    for _ in 0..iters {
        n += entities::decode(prose.as_bytes()).len();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "html_entity_decode (typical prose): {} bytes, {:.1} MB/s",
        prose.len(),
        (prose.len() * iters) as f64 / s / 1e6
    );
    let plain =
        "No entities in this line at all, just ordinary prose and punctuation. ".repeat(15_000);
    let t = Instant::now();
    for _ in 0..iters {
        n += entities::decode(plain.as_bytes()).len();
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "html_entity_decode (no '&'): {} bytes, {:.1} MB/s",
        plain.len(),
        (plain.len() * iters) as f64 / s / 1e6
    );
    // Keeps the results alive so the optimiser cannot drop the work.
    println!("(checksum {n})");
}

#[allow(dead_code)]
fn micro() {
    let t = Instant::now();
    let mut c = 0;
    for _ in 0..1_000_000 {
        c += entities::lookup(std::hint::black_box(b"amp")).map_or(0, str::len);
    }
    println!("lookup: {:?} per call ({c})", t.elapsed() / 1_000_000);
}
