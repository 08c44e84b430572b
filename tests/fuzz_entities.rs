//! Fuzzing the entity decoder on arbitrary bytes: never panics or hangs, never grows text
//! by more than PHP's own bound, keeps valid UTF-8 valid, and is stable where PHP is
//! (text with no `&` left decodes to itself).
//!
//! Case count: proptest's default (256), or `PROPTEST_CASES` for long runs.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use phpclaw::core::entities;
use proptest::prelude::*;

/// PHP's `TRAVERSE_FOR_ENTITIES_EXPAND_SIZE`: the most decoding can grow a string.
fn max_len(n: usize) -> usize {
    n + n / 5 + 2
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..64),
        "([a-zA-Z0-9 ;#&xX]|&(#x?[0-9a-fA-F]{0,9}|[A-Za-z]{0,8});?|&(nGt|caps|fjlig|NotSubset|amp|lt|apos);)\
{0,16}"
            .prop_map(String::into_bytes),
        proptest::collection::vec(prop_oneof![Just(b'&'), Just(b'#'), Just(b';'), Just(b'x'), Just(b'0'), Just(b'a')], 0..64),
    ]
}

proptest! {
    #[test]
    fn decode_is_total_and_bounded(s in input()) {
        let d = entities::decode(&s);
        prop_assert!(d.len() <= max_len(s.len()), "{} -> {}", s.len(), d.len());
        let mut into = b"p".to_vec();
        entities::decode_into(&s, &mut into);
        prop_assert_eq!(into.get(1..).unwrap_or_default(), d.as_ref());
        if !s.contains(&b'&') {
            prop_assert!(matches!(d, Cow::Borrowed(_)));
        }
        if std::str::from_utf8(&s).is_ok() {
            prop_assert!(std::str::from_utf8(&d).is_ok());
        }
        // Where PHP is idempotent (no '&' left), so are we.
        if !d.contains(&b'&') {
            let again = entities::decode(&d);
            prop_assert_eq!(again.as_ref(), d.as_ref());
        }
        // Text before the first '&' is never touched.
        let head = s.iter().position(|&c| c == b'&').unwrap_or(s.len());
        prop_assert_eq!(d.get(..head), s.get(..head));
    }

    #[test]
    fn every_name_decodes_inside_text(i in 0usize..2125, pre in "[a-z ]{0,4}", post in "[a-z ]{0,4}") {
        let Some((name, text)) = entities::table::ENTITIES.get(i) else { return Ok(()); };
        let mut s = pre.clone().into_bytes();
        s.push(b'&');
        s.extend_from_slice(name);
        s.push(b';');
        s.extend_from_slice(post.as_bytes());
        let want = format!("{pre}{text}{post}");
        let got = entities::decode(&s);
        prop_assert_eq!(got.as_ref(), want.as_bytes());
    }
}

#[test]
fn pathological_megabyte_inputs_are_linear() {
    let patterns: &[&[u8]] = &[
        b"&",
        b"&#",
        b"&#x",
        b"&#99999999999999999999",
        b"&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        b"&amp;",
        b"&#x0x0x0x",
    ];
    for p in patterns {
        let big: Vec<u8> = p.iter().copied().cycle().take(1 << 20).collect();
        let t = Instant::now();
        let d = entities::decode(&big);
        assert!(d.len() <= max_len(big.len()));
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "{:?} took {:?}",
            String::from_utf8_lossy(p),
            t.elapsed()
        );
    }
}
