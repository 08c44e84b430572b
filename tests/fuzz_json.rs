//! Fuzzing the JSON encoder: arbitrary nested values (any bytes in strings and keys, any
//! float bits, deep nesting) never panic or hang, and whatever encodes is valid JSON that
//! reads back to the same strings and numbers.
//!
//! Case count: proptest's default (256), or `PROPTEST_CASES` for long runs.

use phpclaw::core::json::{self, EncodeError, EncodeOptions};
use phpclaw::core::value::{Array, Key, Value};
use proptest::prelude::*;

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // Any bytes: mostly invalid UTF-8.
        proptest::collection::vec(any::<u8>(), 0..24),
        // Valid text with the characters that need escaping.
        "[a-z&;#/\\\\\"\\x00-\\x1f\\x7f\u{e9}\u{2028}\u{2029}\u{1F600}]{0,24}"
            .prop_map(String::into_bytes),
        // Entity-looking text.
        "(&(amp|lt|#x?[0-9a-fA-F]{1,8}|[A-Za-z]{1,6})?;?|[a-z ]){0,8}".prop_map(String::into_bytes),
    ]
}

fn key() -> impl Strategy<Value = Key> {
    prop_oneof![any::<i64>().prop_map(Key::Int), bytes().prop_map(Key::from)]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<u64>().prop_map(|b| Value::Float(f64::from_bits(b))),
        any::<f64>().prop_map(Value::Float),
        bytes().prop_map(Value::Str),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::list),
            proptest::collection::vec((key(), inner), 0..8)
                .prop_map(|kv| Value::Array(Array::from_pairs(kv))),
        ]
    })
}

/// Checks that `out` is JSON serde reads, and that it matches `v` where JSON can say so.
fn check_same(v: &Value, j: &serde_json::Value, decoded: bool) {
    match (v, j) {
        (Value::Null, serde_json::Value::Null) => {}
        (Value::Bool(a), serde_json::Value::Bool(b)) => assert_eq!(a, b),
        (Value::Int(a), serde_json::Value::Number(n)) => assert_eq!(Some(*a), n.as_i64()),
        (Value::Float(a), serde_json::Value::Number(n)) => {
            let b = n.as_f64().expect("number");
            // serde_json's own float parsing may be off by an ulp, and by more for
            // subnormals; the exact round trip is checked with Rust's parser in
            // `any_float_round_trips`.
            if a.abs() >= f64::MIN_POSITIVE {
                assert!(
                    (a - b).abs() <= a.abs() * 1e-15,
                    "float {a:e} came back as {b:e}"
                );
            }
        }
        (Value::Str(a), serde_json::Value::String(b)) => {
            if !decoded {
                assert_eq!(a.as_slice(), b.as_bytes());
            }
        }
        (Value::Array(a), serde_json::Value::Array(b)) => {
            assert!(a.is_list());
            assert_eq!(a.len(), b.len());
            for (x, y) in a.values().zip(b) {
                check_same(x, y, decoded);
            }
        }
        (Value::Array(a), serde_json::Value::Object(b)) => {
            assert!(!a.is_list());
            assert_eq!(a.len(), b.len());
            for ((k, x), (jk, y)) in a.iter().zip(b) {
                match k {
                    Key::Int(i) => assert_eq!(&i.to_string(), jk),
                    Key::Str(s) => assert_eq!(s.as_slice(), jk.as_bytes()),
                }
                check_same(x, y, decoded);
            }
        }
        (v, j) => panic!("shape differs: {v:?} vs {j}"),
    }
}

proptest! {
    #[test]
    fn encode_never_panics_and_is_valid_json(v in value(), decode in any::<bool>()) {
        let opts = EncodeOptions { decode_entities: decode, ..EncodeOptions::default() };
        let mut out = b"x".to_vec();
        match json::encode(&v, opts, &mut out) {
            Ok(()) => {
                let body = out.get(1..).unwrap_or_default();
                let j: serde_json::Value = serde_json::from_slice(body)
                    .unwrap_or_else(|e| panic!("invalid JSON {e}: {}", String::from_utf8_lossy(body)));
                check_same(&v, &j, decode);
            }
            Err(e) => {
                prop_assert!(matches!(e, EncodeError::Utf8 | EncodeError::InfOrNan));
                prop_assert_eq!(out, b"x".to_vec());
            }
        }
    }

    #[test]
    fn any_string_encodes_iff_utf8(s in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..256),
        // Mostly valid text with one arbitrary byte spliced in somewhere.
        (any::<String>(), any::<u8>(), any::<prop::sample::Index>()).prop_map(|(t, b, at)| {
            let mut v = t.into_bytes();
            let i = at.index(v.len() + 1);
            v.insert(i, b);
            v
        }),
        any::<String>().prop_map(String::into_bytes),
    ]) {
        let r = json::to_vec(&Value::Str(s.clone()), EncodeOptions::default());
        match std::str::from_utf8(&s) {
            Ok(text) => {
                let back: String = serde_json::from_slice(&r.expect("valid utf-8 encodes")).expect("json");
                prop_assert_eq!(back, text);
            }
            Err(_) => prop_assert_eq!(r, Err(EncodeError::Utf8)),
        }
    }

    #[test]
    fn any_float_round_trips(bits in any::<u64>()) {
        let f = f64::from_bits(bits);
        let r = json::to_vec(&Value::Float(f), EncodeOptions::default());
        if f.is_finite() {
            let text = String::from_utf8(r.expect("finite encodes")).expect("ascii");
            let back: f64 = text.parse().expect("parses");
            prop_assert!(back == f, "{} -> {}", f, text);
        } else {
            prop_assert_eq!(r, Err(EncodeError::InfOrNan));
        }
    }

    #[test]
    fn deep_nesting_is_bounded(depth in 0usize..3000, leaf in scalar()) {
        let mut v = leaf.clone();
        for _ in 0..depth {
            v = Value::list([v]);
        }
        let r = json::to_vec(&v, EncodeOptions::default());
        let leaf_err = json::to_vec(&leaf, EncodeOptions::default()).err();
        if depth > 512 {
            // The leaf's own error wins while the walk reaches it, else depth.
            let want = if depth <= 1024 { leaf_err.unwrap_or(EncodeError::Depth) } else { EncodeError::Depth };
            prop_assert_eq!(r, Err(want));
        } else if let Some(e) = leaf_err {
            prop_assert_eq!(r, Err(e));
        } else {
            let out = r.expect("encodes");
            // A scalar's JSON never starts with '[', so the brackets are exactly the nesting.
            prop_assert_eq!(out.iter().take_while(|&&c| c == b'[').count(), depth);
            prop_assert_eq!(out.iter().rev().take_while(|&&c| c == b']').count(), depth);
        }
        // Drop iteratively-ish: unwrap layers so a deep value never recurses in Drop.
        let mut cur = v;
        while let Value::Array(mut a) = cur {
            cur = a.remove(0).unwrap_or(Value::Null);
        }
    }
}
