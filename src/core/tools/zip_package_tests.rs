use super::*;
use crate::core::tools::{run, Host};
use std::fs;
use std::io::Read;
use std::os::unix::fs::{symlink, MetadataExt};

struct Open;
impl Host for Open {
    type Error = ();
    fn running_in_console(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
    fn allows(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
}

fn input(src: &str, name: &str) -> Value {
    Value::from_pairs([("source_dir", src), ("output_name", name)])
}

/// A workspace, a temp dir for archives and a folder outside both.
struct Env {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        for d in ["ws", "tmp", "outside"] {
            fs::create_dir(base.join(d)).unwrap();
        }
        Env { _dir: dir, base }
    }

    fn ws(&self) -> PathBuf {
        self.base.join("ws")
    }

    fn tool(&self) -> ZipPackage {
        let mut t = ZipPackage::new(self.ws().to_string_lossy().into_owned());
        t.temp_dir = self.base.join("tmp");
        t
    }

    fn write(&self, rel: &str, body: &str) {
        let p = self.ws().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }

    fn link(&self, target: impl AsRef<Path>, at: &str) {
        symlink(target, self.ws().join(at)).unwrap();
    }

    /// Run, returning the envelope and the archive's entries with their contents.
    fn pack(
        &self,
        t: &mut ZipPackage,
        src: &str,
        name: &str,
    ) -> (serde_json::Value, Vec<(String, String)>) {
        let out = run(t, &mut Open, &input(src, name)).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let mut z = zip::ZipArchive::new(
            fs::File::open(
                self.base
                    .join(format!("tmp/{}.zip", filter_name(name.as_bytes()))),
            )
            .unwrap(),
        )
        .unwrap();
        let entries = (0..z.len())
            .map(|i| {
                let mut f = z.by_index(i).unwrap();
                let mut s = String::new();
                f.read_to_string(&mut s).unwrap();
                (f.name().to_string(), s)
            })
            .collect();
        (v, entries)
    }
}

fn err(t: &mut ZipPackage, v: Value) -> String {
    match run(t, &mut Open, &v) {
        Err(ToolError::Tool(m)) => m,
        other => panic!("{other:?}"),
    }
}

#[test]
fn packs_sorted_under_the_output_folder() {
    let e = Env::new();
    e.write("plug/z.txt", "zz");
    e.write("plug/a.txt", "aa");
    e.write("plug/b/c/d.php", "<?php");
    let mut t = e.tool();
    let (v, entries) = e.pack(&mut t, "/plug", "my plug!");
    assert_eq!(v["data"]["files"], 3);
    assert_eq!(v["meta"]["output_name"], "myplug");
    assert_eq!(v["warnings"], serde_json::json!([]));
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["myplug/a.txt", "myplug/b/c/d.php", "myplug/z.txt"]);
    assert_eq!(entries[1].1, "<?php");
    // Owner-only, and the only file left in the temp dir (no partial file behind).
    let zip = e.base.join("tmp/myplug.zip");
    assert_eq!(fs::metadata(&zip).unwrap().mode() & 0o777, ARCHIVE_MODE);
    assert_eq!(v["data"]["size_bytes"], fs::metadata(&zip).unwrap().len());
    assert_eq!(fs::read_dir(e.base.join("tmp")).unwrap().count(), 1);
    // Replaced, not appended to.
    fs::remove_file(e.ws().join("plug/z.txt")).unwrap();
    let (v, entries) = e.pack(&mut t, "plug", "myplug");
    assert_eq!((v["data"]["files"].as_u64(), entries.len()), (Some(2), 2));
}

#[test]
fn refusals() {
    let e = Env::new();
    e.write("d/x", "x");
    e.write("f", "x");
    e.write(".ssh/id", "k");
    e.link(e.base.join("outside"), "out");
    e.link("d", "in");
    let mut t = e.tool();
    assert_eq!(err(&mut t, input("", "x")), REQUIRED_MESSAGE);
    assert_eq!(err(&mut t, input("d", "../..")), REQUIRED_MESSAGE);
    assert_eq!(
        err(&mut t, input("nope", "x")),
        "zip_package: source_dir not found: nope"
    );
    assert_eq!(
        err(&mut t, input("f", "x")),
        "zip_package: source_dir not found: f"
    );
    assert_eq!(err(&mut t, input("d/../..", "x")), ESCAPE_MESSAGE);
    assert_eq!(err(&mut t, input("out", "x")), ESCAPE_MESSAGE);
    assert_eq!(
        err(&mut t, input(".ssh", "x")),
        "zip_package: the '.ssh' folder is blocked."
    );
    // A link to a folder inside is followed for the source (as the reference's realpath).
    assert!(run(&mut t, &mut Open, &input("in", "x")).is_ok());
    let mut root = ZipPackage::new("/".into());
    assert_eq!(
        err(&mut root, input("etc", "x")),
        "Workspace root may not be the filesystem root."
    );
    let mut missing = ZipPackage::new(e.base.join("none").to_string_lossy().into_owned());
    assert_eq!(
        err(&mut missing, input("d", "x")),
        "zip_package: source_dir not found: d"
    );
}

/// The red-team workspace: `source_dir: "."` next to secrets, links of every shape and hard
/// links. Nothing secret, nothing outside, no hard link is packed, and the warnings say so.
#[test]
fn secrets_links_out_and_hard_links_are_never_packed() {
    let e = Env::new();
    let ws = e.ws();
    e.write("index.php", "<?php // app");
    e.write("src/lib.php", "<?php // lib");
    for secret in [
        ".env",
        ".env.local",
        "id_rsa",
        "credentials.json",
        "wp-config.php",
        "conf/server.key",
        "conf/wp-config.php.bak",
        ".git/config",
        ".ssh/known_hosts",
    ] {
        e.write(secret, "SECRET");
    }
    fs::write(e.base.join("outside/secret.txt"), "SECRET outside").unwrap();
    e.link(".env", "alias.txt");
    e.link("../.git/config", "src/gitconfig.txt");
    e.link("../.ssh/known_hosts", "src/hosts.txt");
    e.link(e.base.join("outside/secret.txt"), "abs-out.txt");
    e.link("../outside/secret.txt", "rel-out.txt");
    e.link("abs-out.txt", "chain.txt");
    e.link("src/../../outside/secret.txt", "dotdot-out.txt");
    e.link("/etc/passwd", "passwd.txt");
    e.link("nothing", "dangling.txt");
    e.link(e.base.join("outside"), "out-dir");
    e.link("src", "src-link");
    e.link("src/lib.php", "lib-link.php");
    e.link("lib-link.php", "lib-chain.php");
    fs::hard_link(ws.join(".env"), ws.join("innocent.txt")).unwrap();
    fs::hard_link(
        e.base.join("outside/secret.txt"),
        ws.join("src/hard-out.txt"),
    )
    .unwrap();
    let mut t = e.tool();
    let (v, entries) = e.pack(&mut t, ".", "pkg");
    for (name, body) in &entries {
        assert!(!body.contains("SECRET"), "{name} packed a secret");
    }
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "pkg/index.php",
            "pkg/lib-chain.php",
            "pkg/lib-link.php",
            "pkg/src/lib.php"
        ]
    );
    assert_eq!(v["data"]["files"], 4);
    assert_eq!(
        v["warnings"],
        serde_json::json!([
            "zip_package: 9 secret file(s) or security folder(s) left out (secrets are never packed): .env, .env.local, .git/, .ssh/, conf/server.key, conf/wp-config.php.bak, credentials.json, id_rsa, wp-config.php.",
            "zip_package: 9 link(s) left out: they lead out of the workspace, to a blocked file or nowhere: abs-out.txt, alias.txt, chain.txt, dangling.txt, dotdot-out.txt, passwd.txt, rel-out.txt, src/gitconfig.txt, src/hosts.txt.",
            "zip_package: 2 file(s) with more than one hard link left out (allowHardLinks permits them): innocent.txt, src/hard-out.txt.",
            "zip_package: 2 link(s) to folders not followed: out-dir, src-link.",
        ])
    );
    // Hard links are packed once allowed; the links stay judged.
    t.allow_hard_links = true;
    let (v, entries) = e.pack(&mut t, ".", "pkg");
    let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"pkg/innocent.txt") && names.contains(&"pkg/src/hard-out.txt"));
    assert_eq!(v["data"]["files"], 6);
    assert_eq!(v["warnings"].as_array().unwrap().len(), 3);
}

#[test]
fn a_link_planted_at_the_archive_name_is_replaced_not_followed() {
    let e = Env::new();
    e.write("p/a.txt", "a");
    let victim = e.base.join("outside/victim");
    fs::write(&victim, "keep").unwrap();
    let zip = e.base.join("tmp/out.zip");
    symlink(&victim, &zip).unwrap();
    let mut t = e.tool();
    let (v, entries) = e.pack(&mut t, "p", "out");
    assert_eq!(v["data"]["files"], 1);
    assert_eq!(entries.len(), 1);
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
    let meta = fs::symlink_metadata(&zip).unwrap();
    assert!(meta.is_file());
    assert_eq!(meta.mode() & 0o777, ARCHIVE_MODE);
    // A dangling planted link too (an O_CREAT open of the name would create its target).
    fs::remove_file(&zip).unwrap();
    let target = e.base.join("outside/created");
    symlink(&target, &zip).unwrap();
    e.pack(&mut t, "p", "out");
    assert!(!target.exists());
    assert!(fs::symlink_metadata(&zip).unwrap().is_file());
}

#[test]
fn a_source_swapped_for_a_link_after_planning_is_not_followed() {
    let e = Env::new();
    e.write("p/a.txt", "a");
    fs::write(e.base.join("outside/secret.txt"), "SECRET").unwrap();
    let mut t = e.tool();
    let planned = t.plan(&input("p", "swap"), &mut Open).unwrap();
    fs::rename(e.ws().join("p"), e.base.join("moved")).unwrap();
    e.link(e.base.join("outside"), "p");
    assert_eq!(
        t.perform(&planned, &mut Open).unwrap_err(),
        ToolError::Tool("zip_package: source_dir contains a symlink - blocked.".into())
    );
    assert!(!e.base.join("tmp/swap.zip").exists());
}

#[test]
fn warnings_quote_at_most_ten_names() {
    let skipped: Vec<(Skip, Vec<u8>)> = (0..12)
        .map(|i| (Skip::Link, format!("l{i:02} x").into_bytes()))
        .collect();
    assert_eq!(
        warnings(&skipped),
        ["zip_package: 12 link(s) left out: they lead out of the workspace, to a blocked file or nowhere: l00?x, l01?x, l02?x, l03?x, l04?x, l05?x, l06?x, l07?x, l08?x, l09?x, and 2 more."]
    );
    assert!(warnings(&[]).is_empty());
}

#[test]
fn content_cap_at_and_one_past_the_limit() {
    let e = Env::new();
    e.write("plug/a.txt", "aaaa");
    e.write("plug/b.txt", "bbbb");
    e.write("plug/c.txt", "cc");
    let mut t = e.tool();
    t.max_pack_bytes = 10;
    let (v, entries) = e.pack(&mut t, "plug", "at");
    assert_eq!(v["warnings"], serde_json::json!([]));
    assert_eq!(entries.len(), 3);
    t.max_pack_bytes = 9;
    let (v, entries) = e.pack(&mut t, "plug", "past");
    assert_eq!(v["data"]["files"], 2);
    assert_eq!(entries.len(), 2);
    assert_eq!(
        v["warnings"],
        serde_json::json!([
            "zip_package: stopped before passing 9 bytes of content; the archive holds only the first 2 file(s)."
        ])
    );
    assert_eq!(MAX_PACK_BYTES, 256 << 20);
}
