use super::*;
use crate::core::security::ssrf::MapResolver;
use std::net::IpAddr;

fn temp_base(tag: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let p = std::env::temp_dir().join(format!("phpclaw-rp-{tag}-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&p).unwrap();
    p
}

fn warning(f: Failure) -> String {
    String::from_utf8(f.0.expect("a warning")).unwrap()
}

fn public_resolver() -> MapResolver {
    MapResolver::new().with(
        "profiles.example",
        &["93.184.216.34".parse::<IpAddr>().unwrap()],
    )
}

#[test]
fn constants_are_the_reference_numbers() {
    assert_eq!(MAX_BYTES, 65_536);
    assert_eq!(CACHE_TTL_SECS, 3600);
    assert_eq!(TIMEOUT, Duration::from_secs(5));
    assert_eq!(CACHE_DIR_MODE, 0o700);
    assert_eq!(CACHE_FILE_MODE, 0o600);
    assert_eq!(USER_AGENT, "phpClaw-RemoteToolActivator/1.0");
}

#[test]
fn cache_paths() {
    assert_eq!(cache_dir(""), PathBuf::from("/tmp/phpclaw-tool-profiles"));
    assert_eq!(
        cache_dir("/tmp"),
        PathBuf::from("/tmp/phpclaw-tool-profiles")
    );
    assert_eq!(
        cache_dir("/var/data/phpclaw-cache/"),
        PathBuf::from("/var/data/phpclaw-cache/phpclaw-tool-profiles")
    );
    assert_eq!(cache_dir("/"), PathBuf::from("/phpclaw-tool-profiles"));
    assert_eq!(
        cache_file(Path::new("/c"), b"https://127.0.0.1:8443/p.json"),
        PathBuf::from("/c/f66575cbb6189e260521344782fe7972.json")
    );
}

/// Known answers for the cache-file hash: RFC 1321's test suite, then lengths around the
/// 55/56/64-byte padding edges (checked against PHP's `md5()`).
#[test]
fn md5_hex_gives_the_rfc_1321_and_php_answers() {
    let rfc = [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        (
            "abcdefghijklmnopqrstuvwxyz",
            "c3fcd3d76192e4007dfb496cca67e13b",
        ),
        (
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "d174ab98d277d9f5a5611c2c9f419d9f",
        ),
        (
            "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
            "57edf4a22be3c955ac49da2e2107b67a",
        ),
    ];
    for (input, want) in rfc {
        assert_eq!(md5_hex(input.as_bytes()), want, "{input:?}");
    }
    let edges = [
        (55, "04364420e25c512fd958a70738aa8f72"),
        (56, "668a72d5ba17f08e62dabcafad6db14b"),
        (63, "7dc2ca208106a2f703567bdff99d8981"),
        (64, "c1bb4f81d892b2d57947682aeb252456"),
        (65, "1bc932052302d074bdec39795fe00cf6"),
    ];
    for (n, want) in edges {
        assert_eq!(md5_hex(&vec![b'x'; n]), want, "{n}");
    }
}

#[test]
fn profiles_decode_like_the_reference() {
    let p = parse_profile(br#"{ "profile": "support", "tools": ["file_read", "code_search"], "max_tools_per_turn": 6 }"#).unwrap();
    assert_eq!(p.profile, b"support");
    assert_eq!(
        p.tools,
        vec![b"file_read".to_vec(), b"code_search".to_vec()]
    );
    assert_eq!(p.max_tools_per_turn, 6);

    let p = parse_profile(br#"{"tools": ["a", 1, null, "b", ["c"]]}"#).unwrap();
    assert_eq!(p.profile, b"remote");
    assert_eq!(p.tools, vec![b"a".to_vec(), b"b".to_vec()]);
    assert_eq!(p.max_tools_per_turn, 0);

    // An object of tools keeps its string values, in order.
    let p = parse_profile(br#"{"tools": {"x": "a", "y": 2, "z": "b"}, "profile": null}"#).unwrap();
    assert_eq!(p.tools, vec![b"a".to_vec(), b"b".to_vec()]);
    assert_eq!(p.profile, b"remote");

    for bad in [
        &b""[..],
        b"null",
        b"[]",
        b"[\"tools\"]",
        b"{}",
        b"{\"tools\": \"a\"}",
        b"{\"tools\": null}",
        b"{\"tools\": [}",
        b"\xff",
    ] {
        assert_eq!(
            parse_profile(bad),
            None,
            "{:?}",
            String::from_utf8_lossy(bad)
        );
    }
}

#[test]
fn profile_names_cast_like_php() {
    let name = |json: &str| {
        parse_profile(format!(r#"{{"tools": [], "profile": {json}}}"#).as_bytes())
            .unwrap()
            .profile
    };
    assert_eq!(name("12"), b"12");
    assert_eq!(name("1.5"), b"1.5");
    assert_eq!(name("1e25"), b"1.0E+25");
    assert_eq!(name("100.0"), b"100");
    assert_eq!(name("true"), b"1");
    assert_eq!(name("false"), b"");
    assert_eq!(name("[1]"), b"Array");
    assert_eq!(name("\"é\""), "é".as_bytes());
}

#[test]
fn max_tools_cast_like_php() {
    let max = |json: &str| {
        parse_profile(format!(r#"{{"tools": [], "max_tools_per_turn": {json}}}"#).as_bytes())
            .unwrap()
            .max_tools_per_turn
    };
    assert_eq!(max("6"), 6);
    assert_eq!(max("-3"), 0);
    assert_eq!(max("6.9"), 6);
    assert_eq!(max("\"6abc\""), 6);
    assert_eq!(max("\"1e3\""), 1000);
    assert_eq!(max("true"), 1);
    assert_eq!(max("[]"), 0);
    assert_eq!(max("[0]"), 1);
    assert_eq!(max("{}"), 0);
    assert_eq!(max("1e20"), 7_766_279_631_452_241_920);
    assert_eq!(max("99999999999999999999"), 7_766_279_631_452_241_920);
    assert_eq!(max("null"), 0);
}

#[test]
fn strings_to_int_match_php_8_2() {
    // Every row checked with `php -r 'echo (int)$s;'` on PHP 8.2.
    let cases: &[(&str, i64)] = &[
        ("1e3", 1000),
        ("9999999999999999999", i64::MAX),
        ("-9999999999999999999", i64::MIN),
        (" 12abc", 12),
        ("abc", 0),
        ("1e400", 0),
        ("-1e400", 0),
        (".5", 0),
        ("0x1A", 0),
        ("\n\t 7 ", 7),
        ("+5", 5),
        ("1.9e1x", 19),
        ("- 5", 0),
        ("1e", 1),
        ("1e+2", 100),
        ("", 0),
        ("-", 0),
        (".", 0),
        ("1.", 1),
    ];
    for (s, want) in cases {
        assert_eq!(string_to_int(s.as_bytes()), *want, "{s:?}");
    }
}

#[test]
fn floats_to_int_match_php_8_2() {
    assert_eq!(dval_to_lval(1e20), 7_766_279_631_452_241_920);
    assert_eq!(dval_to_lval(-1e19), 8_446_744_073_709_551_616);
    assert_eq!(dval_to_lval(f64::INFINITY), 0);
    assert_eq!(dval_to_lval(f64::NAN), 0);
    assert_eq!(dval_to_lval(-6.9), -6);
    assert_eq!(php_float_string(1e-5), b"1.0E-5");
    assert_eq!(php_float_string(-0.0), b"-0");
}

#[test]
fn body_cap_at_and_past_the_limit() {
    assert_eq!(
        read_capped(&vec![b'a'; MAX_BYTES][..]).map(|b| b.len()),
        Some(MAX_BYTES)
    );
    assert_eq!(read_capped(&vec![b'a'; MAX_BYTES + 1][..]), None);
    assert_eq!(read_capped(&b""[..]), Some(Vec::new()));
}

#[test]
fn filter_keeps_allowed_in_order() {
    let names: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d", b"e"];
    assert_eq!(filter(&names, &[b"e", b"a"], false), vec![0, 4]);
    assert_eq!(filter(&names, &[], true), vec![0, 1, 2, 3, 4]);
    // A non-empty list of nothing usable (e.g. only ints) keeps nothing.
    assert_eq!(filter(&names, &[], false), Vec::<usize>::new());
    assert_eq!(filter(&names, &[b"ghost", b"b"], false), vec![1]);
}

#[test]
fn several_profiles_in_order_and_the_budget_rule() {
    let names: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d"];
    let p = |tools: &[&str], max: i64| {
        Some(RemoteProfile {
            profile: b"p".to_vec(),
            tools: tools.iter().map(|t| t.as_bytes().to_vec()).collect(),
            max_tools_per_turn: max,
        })
    };
    let (keep, budget) = apply(
        &names,
        &[p(&["a", "b", "c"], 6), None, p(&["c", "b", "z"], 0)],
        0,
    );
    assert_eq!(keep, vec![1, 2]);
    assert_eq!(budget, 6);
    // An explicit budget in code wins over every profile.
    let (_, budget) = apply(&names, &[p(&[], 6)], 3);
    assert_eq!(budget, 3);
    // The last positive profile budget wins; an empty tool list restricts nothing.
    let (keep, budget) = apply(&names, &[p(&[], 6), p(&[], 9)], 0);
    assert_eq!(keep, vec![0, 1, 2, 3]);
    assert_eq!(budget, 9);
    let (keep, budget) = apply(&names, &[None], 0);
    assert_eq!((keep, budget), (vec![0, 1, 2, 3], 0));
}

#[test]
fn pin_entries() {
    let ips = vec![b"93.184.216.34".to_vec()];
    assert_eq!(
        pin_entry(b"example.com", 443, &ips),
        Some(b"example.com:443:93.184.216.34".to_vec())
    );
    assert_eq!(pin_entry(b"8.8.8.8", 443, &ips), None);
    assert_eq!(pin_entry(b"::1", 443, &ips), None);
    assert_eq!(pin_entry(b"example.com", 443, &[]), None);
    let two = vec![b"1.1.1.1".to_vec(), b"2606:4700::1111".to_vec()];
    assert_eq!(
        pin_entry(b"h", 8443, &two),
        Some(b"h:8443:1.1.1.1,2606:4700::1111".to_vec())
    );
}

#[test]
fn refusals_warn_with_the_reference_messages() {
    let opts = Options::default();
    let r = MapResolver::new();
    assert_eq!(
        warning(fetch(b"http://example.com/p.json", &opts, &r).unwrap_err()),
        "[phpClaw] RemoteToolActivator: HTTPS required, skipped: http://example.com/p.json"
    );
    assert_eq!(
        warning(fetch(b"https://localhost/profile.json", &opts, &r).unwrap_err()),
        "[phpClaw] RemoteToolActivator: Requests to 'localhost' are blocked (private/internal address)."
    );
    assert_eq!(
        warning(fetch(b"https://127.0.0.1:9/p.json", &opts, &r).unwrap_err()),
        "[phpClaw] RemoteToolActivator: Requests to '127.0.0.1' are blocked (private/internal address)."
    );
    assert!(
        warning(fetch(b"https://169.254.169.254/metadata", &opts, &r).unwrap_err()).starts_with(
            "[phpClaw] RemoteToolActivator: Requests to '169.254.169.254' are blocked"
        )
    );
    assert_eq!(
        warning(fetch(b"https://nowhere.example/p.json", &opts, &r).unwrap_err()),
        "[phpClaw] RemoteToolActivator: Could not resolve host 'nowhere.example': unresolvable hosts are blocked."
    );
}

#[test]
fn a_fresh_cache_file_is_served_without_a_request() {
    let base = temp_base("hit");
    let opts = Options {
        cache_base: base.to_string_lossy().into_owned(),
        ..Options::default()
    };
    let url = b"https://profiles.example/p.json";
    let dir = cache_dir(&opts.cache_base);
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        cache_file(&dir, url),
        br#"{"tools": ["a"], "max_tools_per_turn": 2}"#,
    )
    .unwrap();
    let p = fetch(url, &opts, &public_resolver()).unwrap();
    assert_eq!(p.tools, vec![b"a".to_vec()]);
    assert_eq!(p.max_tools_per_turn, 2);
    // A cached body that is not a profile is an invalid profile.
    fs::write(cache_file(&dir, url), b"nope").unwrap();
    assert_eq!(
        warning(fetch(url, &opts, &public_resolver()).unwrap_err()),
        "[phpClaw] RemoteToolActivator: invalid profile at https://profiles.example/p.json"
    );
    // A cache file that cannot be read fails silently.
    fs::remove_file(cache_file(&dir, url)).unwrap();
    fs::create_dir(cache_file(&dir, url)).unwrap();
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn the_cache_folder_is_created_private() {
    let base = temp_base("mkdir");
    let opts = Options {
        cache_base: format!("{}/deeper/", base.display()),
        ..Options::default()
    };
    // Unreachable port on a documentation address: the request fails fast or times out, but
    // the folder exists afterwards. Use a loopback pin with the test allowance and port 9.
    let opts = Options {
        allow_loopback_for_tests: true,
        ..opts
    };
    let err = fetch(b"https://127.0.0.1:9/p.json", &opts, &MapResolver::new()).unwrap_err();
    assert_eq!(
        warning(err),
        "[phpClaw] RemoteToolActivator: fetch failed or >64KB: https://127.0.0.1:9/p.json"
    );
    let dir = cache_dir(&opts.cache_base);
    let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & !0o700, 0, "{mode:o}");
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn stored_files_are_0600_and_replace_symlinks() {
    let base = temp_base("store");
    let dir = base.join("d");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("x.json");
    let target = base.join("victim");
    fs::write(&target, b"keep").unwrap();
    std::os::unix::fs::symlink(&target, &file).unwrap();
    store(&dir, &file, b"body");
    assert_eq!(fs::read(&target).unwrap(), b"keep");
    assert_eq!(fs::read(&file).unwrap(), b"body");
    let meta = fs::symlink_metadata(&file).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        1,
        "no temporary file left"
    );
    let _ = fs::remove_dir_all(&base);
}

#[test]
fn tls_config_with_and_without_an_extra_ca() {
    assert!(tls_config(None).is_ok());
    let base = temp_base("ca");
    let bad = base.join("bad.pem");
    fs::write(&bad, b"not a certificate").unwrap();
    assert!(tls_config(Some(&bad)).is_err());
    assert!(tls_config(Some(&base.join("missing.pem"))).is_err());
    let _ = fs::remove_dir_all(&base);
}
