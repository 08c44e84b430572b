//! Turning text into the keyword tokens the router matches, and spotting tool names a message names.
//!
//! Rules (phpClaw's `ToolRouter`, whose behaviour PHP callers see):
//! - Text is lowercased over ASCII only; a word is a run of ASCII letters, `'`, `-` and `_`
//!   (digits and every non-ASCII byte split words). As in PHP's word counter, only the very
//!   first byte of the whole text is skipped when it is `'` or `-`, and only the very last byte
//!   is dropped when it is `-`; inner words keep their apostrophes and hyphens.
//! - A word holding `_` also yields each `_`-separated part, so `file_read` matches `file`.
//! - Tokens shorter than [`MIN_KEYWORD_LEN`] bytes and [`STOPWORDS`] are dropped, then each token
//!   is cut to its singular by [`singular`] (longer than three bytes and ending in `s`: `ies`
//!   becomes `y`, otherwise the `s` goes). The same rule runs on messages and on tool metadata.
//! - A message names a tool by `use|using|with|via <Name>Tool` (case-insensitive, turned into
//!   snake case: `FileReadTool` is `file_read`) or by any lowercased snake_case word.
//!
//! Everything here works on bytes and only ever slices at ASCII positions, so no input can
//! split a UTF-8 sequence or panic.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use once_cell::sync::Lazy;
use regex::bytes::Regex;

/// Tokens shorter than this many bytes carry no routing signal (reference `MIN_KEYWORD_LEN`).
pub const MIN_KEYWORD_LEN: usize = 3;

/// Words that say nothing about which tool fits. phpClaw's `ToolRouter::STOPWORDS`, same order.
pub const STOPWORDS: &[&str] = &[
    "the", "and", "for", "are", "was", "were", "you", "your", "our", "its", "their", "this",
    "that", "these", "those", "from", "with", "into", "about", "than", "then", "there", "here",
    "have", "has", "had", "been", "being", "will", "would", "shall", "should", "can", "could",
    "may", "might", "must", "not", "but", "any", "all", "some", "each", "every", "per", "via",
    "too", "very", "just", "also", "only", "more", "most", "less", "least", "such", "same", "own",
    "how", "what", "when", "where", "which", "who", "whom", "why", "does", "did", "done", "let",
    "please", "them", "they", "one", "two", "out", "off", "over", "under", "again",
];

/// Whether a byte continues a word: ASCII letters plus `'`, `-` and the extra `_` the router asks for.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'\'' || b == b'-' || b == b'_'
}

/// Calls `f` with every lowercased raw word of `text`, in order, with PHP word-counter edges.
///
/// Words are runs of ASCII bytes, so each one is a slice of the ASCII-lowercased text.
/// `f` also learns whether the word holds an `_`.
fn for_each_word(text: &str, mut f: impl FnMut(&str, bool)) {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let Some((&first, _)) = bytes.split_first() else {
        return;
    };
    let mut i = usize::from(first == b'\'' || first == b'-');
    let end = bytes.len() - usize::from(bytes.last() == Some(&b'-'));
    while i < end {
        while i < end && !bytes.get(i).copied().is_some_and(is_word_byte) {
            i += 1;
        }
        let start = i;
        let mut underscore = false;
        while i < end {
            match bytes.get(i).copied() {
                Some(b) if is_word_byte(b) => underscore |= b == b'_',
                _ => break,
            }
            i += 1;
        }
        if i > start {
            if let Some(word) = lower.get(start..i) {
                f(word, underscore);
            }
        }
    }
}

/// [`STOPWORDS`] as a set.
static STOPWORD_SET: Lazy<HashSet<&'static str, BuildHasherDefault<FnvHasher>>> =
    Lazy::new(|| STOPWORDS.iter().copied().collect());

/// The longest stopword's length: longer tokens skip the set.
const MAX_STOPWORD_LEN: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < STOPWORDS.len() {
        if STOPWORDS[i].len() > max {
            max = STOPWORDS[i].len();
        }
        i += 1;
    }
    max
};

/// Whether a token survives the length and stopword filter.
fn keep(token: &str) -> bool {
    let n = token.len();
    n >= MIN_KEYWORD_LEN && (n > MAX_STOPWORD_LEN || !STOPWORD_SET.contains(token))
}

/// Reduces a plural to its singular so `editors` meets `editor`; not a dictionary (`status` → `statu`).
///
/// Only tokens longer than three bytes that end in `s` change. Tokens are ASCII, so the cut
/// never lands inside a character.
pub fn singular(word: &str) -> String {
    let mut out = String::new();
    singular_into(word, &mut out);
    out
}

/// [`singular`] written into a reused buffer.
fn singular_into(word: &str, out: &mut String) {
    out.clear();
    if word.len() <= MIN_KEYWORD_LEN || !word.ends_with('s') {
        out.push_str(word);
    } else if let Some(stem) = word.strip_suffix("ies") {
        out.push_str(stem);
        out.push('y');
    } else {
        out.push_str(word.strip_suffix('s').unwrap_or(word));
    }
}

/// Calls `f` with every keyword token of `text` in order of appearance, repeats kept.
fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    for_each_word(text, |word, underscore| {
        if keep(word) {
            singular_into(word, &mut buf);
            f(&buf);
        }
        if underscore {
            for part in word.split('_') {
                if keep(part) {
                    singular_into(part, &mut buf);
                    f(&buf);
                }
            }
        }
    });
}

/// Every keyword token of `text` in order of appearance, repeats kept (the message side counts them).
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
}

/// The distinct keyword tokens of `text`, first occurrence first (the order scores are summed in).
pub fn keywords(text: &str) -> Vec<String> {
    counted_keywords(text).into_iter().map(|(t, _)| t).collect()
}

/// FNV-1a as a `Hasher`, for short token keys.
#[derive(Default)]
pub struct FnvHasher(u64);

impl Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let seed = if self.0 == 0 { FNV_OFFSET } else { self.0 };
        self.0 = fnv1a(bytes, seed);
    }
}

/// Distinct tokens with their repeat counts, first occurrence first; one pass, hashed for long pastes.
pub fn counted_keywords(text: &str) -> Vec<(String, usize)> {
    let mut index: HashMap<String, usize, BuildHasherDefault<FnvHasher>> = HashMap::default();
    let mut out: Vec<(String, usize)> = Vec::new();
    for_each_token(text, |t| match index.get(t) {
        Some(&at) => {
            if let Some(slot) = out.get_mut(at) {
                slot.1 += 1;
            }
        }
        None => {
            index.insert(t.to_string(), out.len());
            out.push((t.to_string(), 1));
        }
    });
    out
}

/// `use ShellTool` style mentions: the verbs and the `Tool` suffix are the reference's.
static CAMEL_MENTION: Lazy<Option<Regex>> =
    Lazy::new(|| Regex::new(r"(?i-u)\b(?:use|using|with|via)\s+[A-Za-z][A-Za-z0-9]*Tool\b").ok());

/// `shell_exec` style mentions in the lowercased message.
static SNAKE_MENTION: Lazy<Option<Regex>> =
    Lazy::new(|| Regex::new(r"(?-u)\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b").ok());

/// Turns a class name without its `Tool` suffix into the tool name it stands for (`FileRead` → `file_read`).
fn camel_to_snake(stem: &[u8]) -> String {
    let mut out = String::with_capacity(stem.len() + 4);
    for (i, &b) in stem.iter().enumerate() {
        if i > 0 && b.is_ascii_uppercase() {
            out.push('_');
        }
        out.push(b.to_ascii_lowercase() as char);
    }
    out
}

/// The lowercased tool names a message mentions, each once, first mention first.
pub fn explicit_tool_names(message: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut add = |name: String| {
        if seen.insert(name.clone()) {
            found.push(name);
        }
    };
    // Plain matches run on the fast DFA; the class name is the match's last whitespace-free run
    // (class names are ASCII letters and digits) and the snake name is the whole match, so no capture groups are needed.
    // Both patterns need a literal: `tool` (any case) for the first, `_` for the second.
    let lower = message.to_ascii_lowercase();
    if !lower.contains("tool") {
        // No camel mention possible.
    } else if let Some(re) = CAMEL_MENTION.as_ref() {
        for m in re.find_iter(message.as_bytes()) {
            let class = m
                .as_bytes()
                .rsplit(|b| !b.is_ascii_alphanumeric())
                .next()
                .unwrap_or(&[]);
            let stem = class.get(..class.len().saturating_sub(4)).unwrap_or(&[]);
            add(camel_to_snake(stem));
        }
    }
    if !lower.contains('_') {
        // No snake mention possible.
    } else if let Some(re) = SNAKE_MENTION.as_ref() {
        for m in re.find_iter(lower.as_bytes()) {
            add(String::from_utf8_lossy(m.as_bytes()).into_owned());
        }
    }
    found
}

/// FNV-1a over bytes: a stable, fast 64-bit hash for token and descriptor keys (collisions are
/// always double-checked against the text itself).
pub fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    let mut h = seed;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The FNV-1a 64-bit offset basis, the seed for a fresh hash.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_digits_and_non_ascii_and_keep_apostrophes_hyphens_underscores() {
        // (text, expected tokens with repeats)
        let cases: &[(&str, &[&str])] = &[
            ("List the Editors", &["list", "editor"]),
            ("gpt4turbo", &["gpt", "turbo"]),
            ("café naïve", &["caf"]),
            ("it's bar-baz", &["it'", "bar-baz"]), // "it's" is cut to its singular too
            ("file_read", &["file_read", "file", "read"]),
            ("JPATH_ROOT", &["jpath_root", "jpath", "root"]),
            ("a_b", &["a_b"]), // three bytes: kept whole, its parts are too short
            ("ab_c", &["ab_c"]),
            ("", &[]),
            ("-", &[]),
            ("---", &[]),
            ("-abc- -def-", &["abc-", "-def"]),
            ("'abc'", &["abc'"]),
            ("x -abc", &["-abc"]),
        ];
        for (text, want) in cases {
            assert_eq!(
                tokens(text),
                want.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn short_words_and_stopwords_are_dropped() {
        assert!(tokens("to be or it is at an").is_empty());
        assert!(tokens("the and please with from").is_empty());
        assert_eq!(tokens("gas"), vec!["gas"]);
        for w in STOPWORDS {
            assert!(tokens(w).is_empty(), "{w}");
        }
    }

    #[test]
    fn singular_rule_at_its_limits() {
        let cases = [
            ("editors", "editor"),
            ("categories", "category"),
            ("status", "statu"),
            ("gas", "gas"),  // three bytes: untouched
            ("bass", "bas"), // four bytes: cut
            ("ies", "ies"),
            ("xies", "xy"),
            ("logins", "login"),
            ("editor", "editor"),
        ];
        for (w, want) in cases {
            assert_eq!(singular(w), want, "{w}");
        }
    }

    #[test]
    fn stopword_check_runs_before_the_singular_cut() {
        // "others" is no stopword; "their" is one and stays dropped.
        assert_eq!(tokens("others their"), vec!["other"]);
    }

    #[test]
    fn keywords_dedupe_in_first_seen_order_and_counts_track_repeats() {
        assert_eq!(keywords("posts post POSTS list"), vec!["post", "list"]);
        assert_eq!(
            counted_keywords("notes note list notes"),
            vec![("note".to_string(), 3), ("list".to_string(), 1)]
        );
    }

    #[test]
    fn mentions_in_both_styles() {
        let cases: &[(&str, &[&str])] = &[
            ("please use ShellTool to list", &["shell"]),
            ("Using FileReadTool", &["file_read"]),
            ("via HTTPTool", &["h_t_t_p"]),
            ("use shelltool", &["shell"]),
            ("with MyToolTool", &["my_tool"]),
            ("use ShellToolbox", &[]),
            ("use Tool", &[]),
            ("run product_tool for the store", &["product_tool"]),
            ("Shell_Exec now", &["shell_exec"]),
            ("file_read_ trailing", &[]),
            ("x__y", &[]),
            ("usefileTool", &[]),
            (
                "use ShellTool and shell_exec and shell_exec",
                &["shell", "shell_exec"],
            ),
            ("éfile_read", &["file_read"]),
            ("use\x0BShellTool", &["shell"]), // vertical tab is whitespace, as in PCRE
            ("use \t\n FileReadTool", &["file_read"]),
        ];
        for (msg, want) in cases {
            assert_eq!(
                explicit_tool_names(msg),
                want.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                "{msg:?}"
            );
        }
    }
}
