//! composer.lock as project_info reads it: each package's `name` and `version`, nothing else.
//!
//! The file is checked whole as JSON (a malformed one gives no packages, as before), but no
//! document is built: serde visitors keep the two fields of each package (borrowed from the
//! text when they hold no escape) and skip everything else (`IgnoredAny`: authors, autoload,
//! requirements, dist, support, funding…), so a real lock file of a few hundred KB costs a
//! fraction of PHP's `json_decode` of it.
//!
//! Read as the reference reads `json_decode($text, true)['packages']`: a list or an object of
//! packages (an object's duplicate keys count once, the last value in the first key's place),
//! the last `packages` key when there are several, each field as PHP's `(string)` of it (null
//! empty, `true` "1", numbers as serde_json prints them, arrays "Array"), a package that is not
//! an object as two empty fields; anything else in `packages` gives no packages.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One package: its name and version, as PHP's `(string)` of each.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Package {
    /// `name`.
    pub name: String,
    /// `version`.
    pub version: String,
}

/// The packages of a composer.lock text; none when it is not valid JSON (invalid UTF-8 and
/// lone UTF-16 surrogates included), has no `packages` list or object, or is not an object.
pub fn packages(text: &[u8]) -> Vec<Package> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Vec::new();
    };
    // Skipped strings are not decoded, so a lone surrogate escape in one would pass unseen:
    // a text that may hold one (rare: Composer writes Unicode unescaped) is read the long way.
    if may_hold_surrogate_escape(text.as_bytes()) {
        return packages_from_document(text);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    match de
        .deserialize_map(LockVisitor)
        .and_then(|p| de.end().map(|()| p))
    {
        Ok(p) => p.unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// Whether `text` holds `\u` followed by `D8`..`DF` (either case): a UTF-16 surrogate escape,
/// or text that merely looks like one.
fn may_hold_surrogate_escape(text: &[u8]) -> bool {
    memchr::memmem::find_iter(text, b"\\u").any(|at| {
        matches!(text.get(at + 2), Some(b'd' | b'D'))
            && matches!(
                text.get(at + 3),
                Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
            )
    })
}

/// The same answer from a full document (what project_info did before the visitors).
fn packages_from_document(text: &str) -> Vec<Package> {
    let parsed: serde_json::Value = serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
    let list: Vec<&serde_json::Value> = match parsed.get("packages") {
        Some(serde_json::Value::Array(a)) => a.iter().collect(),
        Some(serde_json::Value::Object(o)) => o.values().collect(),
        _ => Vec::new(),
    };
    let field = |p: &serde_json::Value, k: &str| -> String {
        match p.get(k) {
            None | Some(serde_json::Value::Null) => String::new(),
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Bool(b)) => if *b { "1" } else { "" }.to_string(),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(_) => "Array".to_string(),
        }
    };
    list.into_iter()
        .map(|p| Package {
            name: field(p, "name"),
            version: field(p, "version"),
        })
        .collect()
}

/// A map key, compared without being copied (escaped keys arrive unescaped).
struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The top level: an object whose last `packages` entry is kept.
struct LockVisitor;

impl<'de> Visitor<'de> for LockVisitor {
    type Value = Option<Vec<Package>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a composer.lock object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut packages = None;
        while let Some(key) = map.next_key::<Key>()? {
            if key.0 == "packages" {
                packages = map.next_value_seed(PackagesSeed)?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(packages)
    }
}

/// `packages`: a list or object of packages (`Some`), anything else `None`.
struct PackagesSeed;

impl<'de> DeserializeSeed<'de> for PackagesSeed {
    type Value = Option<Vec<Package>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PackagesSeed {
    type Value = Option<Vec<Package>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("packages")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(64).min(4096));
        while let Some(p) = seq.next_element_seed(PackageSeed)? {
            out.push(p);
        }
        Ok(Some(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out: Vec<Package> = Vec::new();
        let mut at: HashMap<Cow<'de, str>, usize> = HashMap::new();
        while let Some(key) = map.next_key::<Key>()? {
            let p = map.next_value_seed(PackageSeed)?;
            match at.get(&key.0) {
                Some(&i) => out[i] = p,
                None => {
                    at.insert(key.0, out.len());
                    out.push(p);
                }
            }
        }
        Ok(Some(out))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// One package: its `name` and `version` kept (the last of each), the rest skipped.
struct PackageSeed;

impl<'de> DeserializeSeed<'de> for PackageSeed {
    type Value = Package;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Package, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PackageSeed {
    type Value = Package;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a package")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Package, A::Error> {
        let mut p = Package::default();
        while let Some(key) = map.next_key::<Key>()? {
            match &*key.0 {
                "name" => p.name = map.next_value_seed(FieldSeed)?,
                "version" => p.version = map.next_value_seed(FieldSeed)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(p)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Package, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Package::default())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Package, E> {
        Ok(Package::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Package, E> {
        Ok(Package::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Package, E> {
        Ok(Package::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Package, E> {
        Ok(Package::default())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Package, E> {
        Ok(Package::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Package, E> {
        Ok(Package::default())
    }
}

/// A field as PHP's `(string)` of it.
struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_unit<E: de::Error>(self) -> Result<String, E> {
        Ok(String::new())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
        Ok(if v { "1" } else { "" }.to_string())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
        Ok(v.to_string())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
        Ok(serde_json::Number::from_f64(v).map_or_else(String::new, |n| n.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<String, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok("Array".to_string())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<String, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok("Array".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, version: &str) -> Package {
        Package {
            name: name.into(),
            version: version.into(),
        }
    }

    /// Every shape, well-formed or not: the visitors give what the full document gives.
    #[test]
    fn as_the_full_document() {
        let cases: &[&str] = &[
            r#"{"packages":[{"name":"a/b","version":"1.0","authors":[{"name":"x"}]}]}"#,
            r#"{"packages":{"x":{"name":"a","version":"1"},"y":{"name":"b"},"x":{"name":"c"}}}"#,
            r#"{"packages":[{"name":"a"}],"packages":[{"name":"b"}]}"#,
            r#"{"packages":[{"name":"a"}],"packages":"x"}"#,
            r#"{"packages":[1,"s",null,true,[1,2],{"name":null,"version":true}]}"#,
            r#"{"packages":[{"name":1.5,"version":-3},{"name":1e3,"version":18446744073709551615}]}"#,
            r#"{"packages":[{"name":[1],"version":{"a":1}},{"name":false}]}"#,
            r#"{"packages":[{"na\u006de":"\u00e9\n","version":"v\"1"}]}"#,
            r#"{"packages":[{"name":"a","name":"b","version":"1","version":"2"}]}"#,
            r#"{"packages":"str"}"#,
            r#"{"packages":7}"#,
            r#"{"packages":null}"#,
            r#"{"packages":[]}"#,
            r#"{"other":1}"#,
            r#"[{"packages":[{"name":"a"}]}]"#,
            r#""packages""#,
            "",
            "   ",
            r#"{"packages":[{"name":"a"}]"#,
            r#"{"packages":[{"name":"a"}]} x"#,
            r#"{"packages":[{"name":"a"}],}"#,
            r#"{"packages":[{"name":"a","d":"\ud800"}]}"#,
            r#"{"packages":[{"name":"a","d":"\ud83d\ude00"}]}"#,
            r#"{"packages":[{"name":"a","d":"\\ud800"}]}"#,
            r#"{"packages":[{"name":"a","d":"tab	in string"}]}"#,
            r#"{"packages":[{"name":"a","d":"\x"}]}"#,
            r#"{"packages":[{"name":"a","d":01}]}"#,
            r#"{"packages":[{"name":"a","d":[1,]}]}"#,
            "{\"packages\":[{\"name\":\"a\"}]}\n",
        ];
        for case in cases {
            assert_eq!(
                packages(case.as_bytes()),
                packages_from_document(case),
                "{case}"
            );
        }
        assert_eq!(
            packages(cases[1].as_bytes()),
            [p("c", ""), p("b", "")],
            "duplicate keys: the last value in the first key's place"
        );
        assert_eq!(packages(cases[4].as_bytes()).len(), 6);
        assert_eq!(packages(cases[4].as_bytes())[5], p("", "1"));
        assert_eq!(
            packages(cases[5].as_bytes())[1],
            p("1000.0", "18446744073709551615")
        );
        assert_eq!(packages(cases[7].as_bytes()), [p("é\n", "v\"1")]);
    }

    #[test]
    fn invalid_utf8_anywhere_gives_no_packages() {
        let mut text = br#"{"packages":[{"name":"a","description":"x"}]}"#.to_vec();
        assert_eq!(packages(&text), [p("a", "")]);
        let at = text.iter().position(|&c| c == b'x').unwrap();
        text[at] = 0xff;
        assert_eq!(packages(&text), []);
    }
}
