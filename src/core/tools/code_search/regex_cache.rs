//! The process's compiled patterns, as PHP keeps its PCRE cache: an agent asks the same regex
//! again and again (every page of a result, the same search in the next request of a php-fpm
//! worker), and a JIT compile costs more than searching a small folder.
//!
//! Bounded: at most [`ENTRIES`] patterns, none longer than [`MAX_PATTERN_BYTES`] (longer ones
//! are compiled for the call and dropped); the oldest entry leaves first. Patterns PHP refuses
//! are not kept. Shared by every thread (a compiled pattern is immutable; PCRE2's match data
//! comes from the pattern's own thread-safe pool).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use once_cell::sync::Lazy;

use super::PhpRegex;

/// Patterns kept at most.
pub const ENTRIES: usize = 64;
/// Longest pattern kept, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;

type Key = (Vec<u8>, bool);

#[derive(Default)]
struct Cache {
    map: HashMap<Key, PhpRegex>,
    order: VecDeque<Key>,
}

static CACHE: Lazy<Mutex<Cache>> = Lazy::new(Mutex::default);

/// The compiled `pattern` (JIT on or off), from the cache or from `compile`, which is called
/// without the lock held.
pub fn get_or_compile(
    pattern: &[u8],
    jit: bool,
    compile: fn(&[u8], bool) -> Option<PhpRegex>,
) -> Option<PhpRegex> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return compile(pattern, jit);
    }
    let key = (pattern.to_vec(), jit);
    if let Some(hit) = lock().map.get(&key) {
        return Some(hit.clone());
    }
    let compiled = compile(pattern, jit)?;
    let mut cache = lock();
    if let Some(raced) = cache.map.get(&key) {
        return Some(raced.clone());
    }
    if cache.order.len() >= ENTRIES {
        if let Some(oldest) = cache.order.pop_front() {
            cache.map.remove(&oldest);
        }
    }
    cache.order.push_back(key.clone());
    cache.map.insert(key, compiled.clone());
    Some(compiled)
}

/// Patterns kept now.
pub fn len() -> usize {
    lock().map.len()
}

/// A poisoned lock only means a thread panicked while holding it; the map is still whole.
fn lock() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::super::{compile_php_regex, compile_php_regex_with};
    use super::*;

    #[test]
    fn the_same_pattern_is_compiled_once() {
        let a = compile_php_regex(b"/cache-once-[0-9]+/").unwrap();
        let b = compile_php_regex(b"/cache-once-[0-9]+/").unwrap();
        assert!(a.same_compiled(&b));
        assert_eq!(b.is_match(b"x cache-once-42"), Some(true));
        let no_jit = compile_php_regex_with(b"/cache-once-[0-9]+/", false).unwrap();
        assert!(
            !a.same_compiled(&no_jit),
            "JIT and interpreted are kept apart"
        );
    }

    #[test]
    fn the_cache_keeps_at_most_its_bound_and_drops_the_oldest() {
        let first = compile_php_regex(b"/bound-0-x/").unwrap();
        for i in 1..=ENTRIES {
            compile_php_regex(format!("/bound-{i}-x/").as_bytes()).unwrap();
        }
        assert!(len() <= ENTRIES);
        let again = compile_php_regex(b"/bound-0-x/").unwrap();
        assert!(!first.same_compiled(&again), "the oldest entry left first");
        let last = compile_php_regex(format!("/bound-{ENTRIES}-x/").as_bytes()).unwrap();
        assert_eq!(
            last.is_match(format!("bound-{ENTRIES}-x").as_bytes()),
            Some(true)
        );
    }

    #[test]
    fn a_pattern_at_the_length_limit_is_kept_and_one_past_is_not() {
        let at = format!("/{}/", "a".repeat(MAX_PATTERN_BYTES - 2));
        let past = format!("/{}/", "b".repeat(MAX_PATTERN_BYTES - 1));
        assert_eq!(at.len(), MAX_PATTERN_BYTES);
        let a1 = compile_php_regex(at.as_bytes()).unwrap();
        let a2 = compile_php_regex(at.as_bytes()).unwrap();
        assert!(a1.same_compiled(&a2));
        let p1 = compile_php_regex(past.as_bytes()).unwrap();
        let p2 = compile_php_regex(past.as_bytes()).unwrap();
        assert!(!p1.same_compiled(&p2));
    }

    #[test]
    fn a_refused_pattern_is_not_kept() {
        assert!(compile_php_regex(b"/unclosed(/").is_none());
        assert!(compile_php_regex(b"/unclosed(/").is_none());
    }
}
