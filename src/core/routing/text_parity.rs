//! The fast tokeniser and mention finder against a plain restatement of their rules, on
//! generated text (edges, non-ASCII bytes, underscores, plurals, stopwords, long pastes).

use std::collections::HashMap;

use regex::bytes::Regex;

use super::text::{counted_keywords, explicit_tool_names, tokens, MIN_KEYWORD_LEN, STOPWORDS};

fn plain_words(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let Some(&first) = bytes.first() else {
        return out;
    };
    let start = usize::from(first == b'\'' || first == b'-');
    let end = bytes.len() - usize::from(bytes.last() == Some(&b'-'));
    let mut buf = String::new();
    for &b in bytes.get(start..end.max(start)).unwrap_or(&[]) {
        if b.is_ascii_alphabetic() || b == b'\'' || b == b'-' || b == b'_' {
            buf.push(b.to_ascii_lowercase() as char);
        } else if !buf.is_empty() {
            out.push(std::mem::take(&mut buf));
        }
    }
    if !buf.is_empty() {
        out.push(buf);
    }
    out
}

fn plain_singular(w: &str) -> String {
    if w.len() <= MIN_KEYWORD_LEN || !w.ends_with('s') {
        w.to_string()
    } else if let Some(stem) = w.strip_suffix("ies") {
        format!("{stem}y")
    } else {
        w.strip_suffix('s').unwrap_or(w).to_string()
    }
}

fn plain_tokens(text: &str) -> Vec<String> {
    let keep = |t: &str| t.len() >= MIN_KEYWORD_LEN && !STOPWORDS.contains(&t);
    let mut out = Vec::new();
    for w in plain_words(text) {
        if keep(&w) {
            out.push(plain_singular(&w));
        }
        if w.contains('_') {
            out.extend(w.split('_').filter(|p| keep(p)).map(plain_singular));
        }
    }
    out
}

fn plain_counted(text: &str) -> Vec<(String, usize)> {
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<(String, usize)> = Vec::new();
    for t in plain_tokens(text) {
        match at.get(&t) {
            Some(&i) => {
                if let Some(slot) = out.get_mut(i) {
                    slot.1 += 1;
                }
            }
            None => {
                at.insert(t.clone(), out.len());
                out.push((t, 1));
            }
        }
    }
    out
}

fn plain_mentions(message: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let camel = Regex::new(r"(?i-u)\b(?:use|using|with|via)\s+([A-Za-z][A-Za-z0-9]*)Tool\b").ok();
    let snake = Regex::new(r"(?-u)\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b").ok();
    if let Some(re) = camel {
        for c in re.captures_iter(message.as_bytes()) {
            let stem = c.get(1).map_or(&[][..], |m| m.as_bytes());
            let mut name = String::new();
            for (i, &b) in stem.iter().enumerate() {
                if i > 0 && b.is_ascii_uppercase() {
                    name.push('_');
                }
                name.push(b.to_ascii_lowercase() as char);
            }
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    if let Some(re) = snake {
        let lower = message.to_ascii_lowercase();
        for m in re.find_iter(lower.as_bytes()) {
            let name = String::from_utf8_lossy(m.as_bytes()).into_owned();
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    found
}

const PIECES: &[&str] = &[
    "The",
    "invoices",
    "categories",
    "status",
    "'",
    "-",
    "_",
    "file_read",
    "JPATH_ROOT",
    "use",
    "ShellTool",
    "via",
    "OrderExportTool",
    "tool",
    "TOOL",
    "with",
    "café",
    "naïve",
    "42",
    " ",
    "  ",
    "\n",
    "it's",
    "bar-baz",
    "ies",
    "sss",
    "please",
    "abc",
    "a_b",
    "x",
    "customer_search",
    "EDITORS",
    "Ünïcödé",
    ".",
    ",",
    "wc_get_customer_v2",
    "usingFooTool",
    "a-",
    "-b",
];

fn generated(seed: u64, len: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    for _ in 0..len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push_str(
            PIECES
                .get((x % PIECES.len() as u64) as usize)
                .copied()
                .unwrap_or(""),
        );
        if x % 3 == 0 {
            out.push(' ');
        }
    }
    out
}

#[test]
fn tokens_and_counts_match_the_plain_rules() {
    for seed in 0..600u64 {
        let text = generated(seed, (seed % 40) as usize);
        assert_eq!(tokens(&text), plain_tokens(&text), "{text:?}");
        assert_eq!(counted_keywords(&text), plain_counted(&text), "{text:?}");
    }
    let paste = generated(7, 3000);
    assert_eq!(counted_keywords(&paste), plain_counted(&paste));
}

#[test]
fn mentions_match_the_plain_rules() {
    for seed in 0..600u64 {
        let text = generated(seed + 10_000, (seed % 30) as usize);
        assert_eq!(
            explicit_tool_names(&text),
            plain_mentions(&text),
            "{text:?}"
        );
    }
    for text in [
        "use FileReadTool",
        "USE shellTOOL now",
        "via ATool",
        "no mention",
        "a_b c_d a_b",
    ] {
        assert_eq!(explicit_tool_names(text), plain_mentions(text), "{text:?}");
    }
}
