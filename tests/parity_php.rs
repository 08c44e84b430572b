//! Byte-for-byte comparison with the real PHP, when `php` is on PATH (skipped otherwise).
//!
//! Generates a few hundred pseudo-random nested arrays (tricky keys, strings, floats) and
//! entity strings (every name in the table, numeric edge cases, random mixes), writes them
//! into a PHP script in a temp dir, and compares PHP's `json_encode` (plain and after the
//! contract binding's recursive `html_entity_decode`) and `html_entity_decode` output with
//! ours. The generator is seeded, so a failure reproduces.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use phpclaw::core::entities;
use phpclaw::core::json::{self, EncodeError, EncodeOptions};
use phpclaw::core::value::{Array, Key, Value};

/// A small deterministic generator (xorshift64*), so no extra crate is needed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const STRING_PIECES: &[&[u8]] = &[
    b"a",
    b"Hello",
    b" ",
    b"/",
    b"\\",
    b"\"",
    b"'",
    b"\n",
    b"\r\n",
    b"\t",
    b"\x00",
    b"\x01",
    b"\x1f",
    b"\x7f",
    b"\x08",
    b"\x0c",
    "é".as_bytes(),
    "€".as_bytes(),
    "😀".as_bytes(),
    "\u{2028}".as_bytes(),
    "\u{2029}".as_bytes(),
    "\u{2027}".as_bytes(),
    b"&amp;",
    b"&lt;",
    b"&gt;",
    b"&quot;",
    b"&apos;",
    b"&#39;",
    b"&#x27;",
    b"&#X27;",
    b"&nbsp;",
    b"&NotSubset;",
    b"&fjlig;",
    b"&#0;",
    b"&#13;",
    b"&#xD800;",
    b"&#x110000;",
    b"&#x0x41;",
    b"&unknown;",
    b"&lt",
    b"&",
    b"&#",
    b"&#x",
    b";",
    b"&amp;amp;",
    b"&#128512;",
    b"&#xFFFE;",
    b"0",
    b"6",
    b"-3",
    b"07",
];
const RARE_BAD: &[&[u8]] = &[b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe2\x80"];
const KEY_STRINGS: &[&str] = &[
    "6",
    "-3",
    "07",
    "6 ",
    "-0",
    "+1",
    "",
    "-",
    "0",
    "a",
    "a/b",
    "é",
    "\u{2028}",
    "k\"q",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "&amp;",
    "1.5",
];
const FLOATS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.1,
    1e-7,
    5e-324,
    1e100,
    1e15,
    1e16,
    1e17,
    0.0001,
    0.00001,
    1.2345678901234568e17,
    9.223372036854776e18,
    1.7976931348623157e308,
    2.2250738585072014e-308,
    0.30000000000000004,
    123456.789,
    100.0,
    1e21,
    33.333333333333336,
];

fn gen_string(r: &mut Rng, allow_bad: bool) -> Vec<u8> {
    let mut s = Vec::new();
    for _ in 0..r.below(6) {
        if allow_bad && r.below(40) == 0 {
            let piece: &[u8] = RARE_BAD[r.below(RARE_BAD.len())];
            s.extend_from_slice(piece);
        } else {
            let piece: &[u8] = STRING_PIECES[r.below(STRING_PIECES.len())];
            s.extend_from_slice(piece);
        }
    }
    s
}

fn gen_float(r: &mut Rng) -> f64 {
    match r.below(4) {
        0 => *r.pick(FLOATS),
        1 => {
            let f = f64::from_bits(r.next());
            if f.is_finite() {
                f
            } else {
                1.5
            }
        }
        2 => (r.next() % 1_000_000) as f64 / 1000.0,
        _ => {
            if r.below(30) == 0 {
                f64::NAN
            } else {
                (r.next() as i64) as f64
            }
        }
    }
}

fn gen_value(r: &mut Rng, depth: usize) -> Value {
    let top = if depth == 0 { 8 } else { 6 };
    match r.below(top) {
        0 => Value::Null,
        1 => Value::Bool(r.below(2) == 0),
        2 => Value::Int(match r.below(3) {
            0 => r.next() as i64,
            1 => *r.pick(&[0, -1, i64::MAX, i64::MIN, 42]),
            _ => r.below(1000) as i64,
        }),
        3 => Value::Float(gen_float(r)),
        4 | 5 => Value::Str(gen_string(r, true)),
        _ => Value::Array(gen_array(r, depth + 1)),
    }
}

fn gen_array(r: &mut Rng, depth: usize) -> Array {
    let mut a = Array::new();
    let n = if depth > 4 { 0 } else { r.below(6) };
    let listy = r.below(2) == 0;
    for _ in 0..n {
        let v = if depth > 3 {
            Value::Int(1)
        } else {
            gen_value(r, depth)
        };
        if listy {
            let _ = a.push(v);
        } else {
            match r.below(3) {
                0 => {
                    a.insert(
                        Key::Int(*r.pick(&[0, 1, 2, 5, -1, -7, i64::MAX, i64::MIN])),
                        v,
                    );
                }
                1 => {
                    a.insert(*r.pick(KEY_STRINGS), v);
                }
                _ => {
                    let bad = r.below(10) == 0;
                    let k = gen_string(r, bad);
                    a.insert(k, v);
                }
            }
        }
    }
    a
}

/// PHP source for a byte string: every byte escaped, so nothing is interpreted.
fn php_str(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for &c in b {
        let _ = write!(s, "\\x{c:02x}");
    }
    s.push('"');
    s
}

fn php_value(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) if *i == i64::MIN => out.push_str("PHP_INT_MIN"),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => {
            let _ = write!(
                out,
                "unpack('E', {})[1]",
                php_str(&f.to_bits().to_be_bytes())
            );
        }
        Value::Str(s) => out.push_str(&php_str(s)),
        Value::Array(a) => {
            // Built with assignments so PHP applies the same key rules at run time.
            out.push_str("(function () { $a = [];");
            for (k, v) in a.iter() {
                match k {
                    Key::Int(i) if *i == i64::MIN => out.push_str("$a[PHP_INT_MIN] = "),
                    Key::Int(i) => {
                        let _ = write!(out, "$a[{i}] = ");
                    }
                    Key::Str(s) => {
                        let _ = write!(out, "$a[{}] = ", php_str(s));
                    }
                }
                php_value(v, out);
                out.push(';');
            }
            out.push_str(" return $a; })()");
        }
    }
}

fn php_available() -> bool {
    Command::new("php")
        .arg("-v")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn temp_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "phpclaw-parity-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs `script` with php and returns its stdout lines.
fn run_php(script: &str) -> Vec<String> {
    let dir = temp_dir();
    let path = dir.join("parity.php");
    std::fs::write(&path, script).expect("write script");
    let out = Command::new("php")
        .arg("-d")
        .arg("serialize_precision=-1")
        .arg("-d")
        .arg("memory_limit=512M")
        .arg(&path)
        .output()
        .expect("run php");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "php failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|c| format!("{c:02x}")).collect()
}

fn ours(v: &Value, opts: EncodeOptions) -> String {
    match json::to_vec(v, opts) {
        Ok(b) => hex(&b),
        Err(e) => format!("E{}", e.code()),
    }
}

const PHP_PRELUDE: &str = r#"<?php
function contract_decode($v) {
    if (is_array($v)) { return array_map('contract_decode', $v); }
    if (is_string($v)) { return html_entity_decode($v, ENT_QUOTES | ENT_HTML5, 'UTF-8'); }
    return $v;
}
function enc($v) {
    try {
        return bin2hex(json_encode($v, JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES));
    } catch (JsonException $e) {
        return 'E' . $e->getCode();
    }
}
"#;

#[test]
fn json_encode_matches_php() {
    if !php_available() {
        println!("note: php not on PATH, json parity test skipped");
        return;
    }
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut values: Vec<Value> = (0..400)
        .map(|_| Value::Array(gen_array(&mut r, 0)))
        .collect();
    values.extend((0..100).map(|_| gen_value(&mut r, 0)));
    let mut script = String::from(PHP_PRELUDE);
    for v in &values {
        script.push_str("$v = ");
        php_value(v, &mut script);
        script.push_str(";\necho enc($v), ' ', enc(contract_decode($v)), \"\\n\";\n");
    }
    let lines = run_php(&script);
    assert_eq!(lines.len(), values.len());
    let mut errors = 0;
    for (v, line) in values.iter().zip(&lines) {
        let want: Vec<&str> = line.split(' ').collect();
        let got = [
            ours(v, EncodeOptions::default()),
            ours(v, EncodeOptions::contract()),
        ];
        if want != got {
            errors += 1;
            eprintln!("MISMATCH for {v:?}\n php:  {want:?}\n ours: {got:?}");
        }
    }
    assert_eq!(errors, 0, "{errors} mismatches");
    // Error codes PHP reported are the ones we model.
    let errs = lines.iter().filter(|l| l.starts_with('E')).count();
    println!(
        "json parity: {} values, {errs} PHP errors, all equal",
        values.len()
    );
    assert!(
        errs > 0 && errs < values.len() / 2,
        "generator should mix good and bad values"
    );
    let _ = EncodeError::Utf8;
}

#[test]
fn html_entity_decode_matches_php() {
    if !php_available() {
        println!("note: php not on PATH, entity parity test skipped");
        return;
    }
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for (name, _) in entities::table::ENTITIES {
        let mut s = b"&".to_vec();
        s.extend_from_slice(name);
        s.push(b';');
        inputs.push(s.clone());
        // Without the semicolon, PHP leaves it alone.
        s.pop();
        s.extend_from_slice(b" x");
        inputs.push(s);
    }
    for cp in [
        0u32,
        8,
        9,
        10,
        11,
        12,
        13,
        31,
        32,
        38,
        39,
        126,
        127,
        159,
        160,
        0xD7FF,
        0xD800,
        0xDFFF,
        0xE000,
        0xFDCF,
        0xFDD0,
        0xFDEF,
        0xFDF0,
        0xFFFD,
        0xFFFE,
        0xFFFF,
        0x10000,
        0x1FFFE,
        0x10FFFD,
        0x10FFFE,
        0x10FFFF,
        0x110000,
        0xFFFF_FFFF,
    ] {
        inputs.push(format!("&#{cp};").into_bytes());
        inputs.push(format!("&#x{cp:x};").into_bytes());
        inputs.push(format!("&#X{cp:X};").into_bytes());
        inputs.push(format!("&#x0x{cp:x};").into_bytes());
        inputs.push(format!("&#000{cp};").into_bytes());
    }
    let mut r = Rng(0xDEAD_BEEF_CAFE_F00D);
    for _ in 0..500 {
        let mut s = gen_string(&mut r, true);
        s.extend(gen_string(&mut r, true));
        inputs.push(s);
    }
    let mut script = String::from("<?php\n$in = [\n");
    for s in &inputs {
        script.push_str(&php_str(s));
        script.push_str(",\n");
    }
    script.push_str(
        "];\nforeach ($in as $s) { echo bin2hex(html_entity_decode($s, ENT_QUOTES | ENT_HTML5, 'UTF-8')), \"\\n\"; }\n",
    );
    let lines = run_php(&script);
    assert_eq!(lines.len(), inputs.len());
    let mut errors = 0;
    for (s, want) in inputs.iter().zip(&lines) {
        let got = hex(&entities::decode(s));
        if &got != want {
            errors += 1;
            eprintln!(
                "MISMATCH for {:?}: php {want} ours {got}",
                String::from_utf8_lossy(s)
            );
        }
    }
    assert_eq!(errors, 0, "{errors} mismatches");
    let changed = inputs
        .iter()
        .filter(|s| entities::decode(s).as_ref() != s.as_slice())
        .count();
    println!(
        "entity parity: {} inputs, {changed} decoded, all equal",
        inputs.len()
    );
}
