//! The tables and the engine checked against the real programs installed here: each test
//! skips (with a note on stderr) when what it needs is absent.
//!
//! - `tables_match_the_binaries`: an LD_PRELOAD shim built with `cc` prints the optstring and
//!   the `struct option` array each getopt_long program passes; every table must list exactly
//!   those options, arities and aliases.
//! - `tar_table_matches_tar`: tar's bundled argp cannot be hooked, so each option is probed
//!   through tar's own error messages.
//! - `engine_matches_glibc_getopt`: a harness linked with glibc's getopt_long reads many
//!   generated argvs with each table; [`getopt`] must split every one the same way.
//! - `arity_claims_hold`: a few claims run for real (a value taken, a file not read).
//! - `git_hides_committed_secrets`: a repository with committed secrets; the argv the grammar
//!   builds for `git show`, `git log -p`, `git diff`, `git grep` prints none of them.

use super::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn skip(why: &str) {
    eprintln!("skipped: {why}");
}

fn which(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!(
            "phpclaw-grammar-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds `src` (C) into a shared object or program in `dir`; `None` without a compiler.
fn cc(dir: &Path, name: &str, src: &str, shared: bool) -> Option<PathBuf> {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).ok()?;
    let out = dir.join(name);
    let mut cmd = Command::new(which("cc")?);
    if shared {
        cmd.args(["-shared", "-fPIC"]);
    }
    let status = cmd
        .arg("-o")
        .arg(&out)
        .arg(&c)
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then_some(out)
}

const DUMP_C: &str = r#"
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>
static void dump(const char *os, const struct option *lo) {
  printf("OPTSTRING %s\n", os);
  for (; lo && lo->name; lo++)
    printf("LONG %s %d %d %d\n", lo->name, lo->has_arg, lo->flag != 0, lo->val);
  fflush(stdout);
  _exit(0);
}
int getopt_long(int c, char *const v[], const char *os, const struct option *lo, int *li) {
  dump(os, lo); return -1;
}
"#;

fn arity(a: Arg) -> i32 {
    match a {
        Arg::No => 0,
        Arg::Req => 1,
        Arg::Opt => 2,
    }
}

fn shorts(optstring: &str) -> BTreeSet<(char, i32)> {
    let s: Vec<char> = optstring.trim_start_matches(['+', '-']).chars().collect();
    let mut out = BTreeSet::new();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        let (a, step) = match (s.get(i + 1), s.get(i + 2)) {
            (Some(':'), Some(':')) => (2, 3),
            (Some(':' | ';'), _) => (1, 2),
            _ => (0, 1),
        };
        out.insert((c, a));
        i += step;
    }
    out
}

fn all_tables() -> Vec<(&'static str, &'static [Row])> {
    let mut t: Vec<(&'static str, &'static [Row])> = Vec::new();
    t.extend(coreutils::TABLES.iter().copied());
    t.extend(misc::TABLES.iter().copied());
    t.push(("grep", grep::GREP));
    t.push(("sed", sed::SED));
    t.push(("diff", diff::DIFF));
    t
}

#[test]
fn tables_match_the_binaries() {
    let scratch = Scratch::new("dump");
    let Some(shim) = cc(&scratch.0, "dump.so", DUMP_C, true) else {
        return skip("no C compiler");
    };
    for (name, rows) in all_tables() {
        // the shell builtin shadows nothing here: pwd is coreutils' /usr/bin/pwd
        let Some(bin) = which(if name == "pwd" { "/usr/bin/pwd" } else { name }) else {
            skip(name);
            continue;
        };
        let out = Command::new(&bin)
            .arg("x")
            .env("LD_PRELOAD", &shim)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .expect("run");
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(optstring) = text
            .lines()
            .find_map(|l| l.strip_prefix("OPTSTRING").map(str::trim))
        else {
            panic!("{name}: the shim saw no getopt_long call");
        };
        // long options: name -> (has_arg, identity)
        let mut real: BTreeMap<String, (i32, String)> = BTreeMap::new();
        for l in text.lines().filter_map(|l| l.strip_prefix("LONG ")) {
            let f: Vec<&str> = l.split(' ').collect();
            let (Some(n), Some(a), Some(flag), Some(val)) =
                (f.first(), f.get(1), f.get(2), f.get(3))
            else {
                continue;
            };
            real.insert(
                n.to_string(),
                (a.parse().unwrap_or(-1), format!("{a}/{flag}/{val}")),
            );
        }
        let mut mine: BTreeMap<String, i32> = BTreeMap::new();
        for row in rows {
            let ids: BTreeSet<&String> = row
                .long
                .split('|')
                .filter(|n| !n.is_empty())
                .filter_map(|n| real.get(n).map(|r| &r.1))
                .collect();
            assert!(ids.len() <= 1, "{name}: {} are not one option", row.long);
            for n in row.long.split('|').filter(|n| !n.is_empty()) {
                mine.insert(n.to_string(), arity(row.arg));
            }
        }
        let real_arity: BTreeMap<String, i32> =
            real.iter().map(|(k, v)| (k.clone(), v.0)).collect();
        assert_eq!(mine, real_arity, "{name}: long options");
        // distinct rows are distinct options (ambiguity is judged per option)
        let mut ids = BTreeSet::new();
        for row in rows {
            if let Some(first) = row.long.split('|').find(|n| !n.is_empty()) {
                let id = real.get(first).map(|r| r.1.clone()).unwrap_or_default();
                assert!(ids.insert(id), "{name}: {} shares an identity", row.long);
            }
        }
        let my_shorts: BTreeSet<(char, i32)> = rows
            .iter()
            .filter(|r| r.short != X)
            .map(|r| (r.short, arity(r.arg)))
            .collect();
        assert_eq!(my_shorts, shorts(optstring), "{name}: short options");
    }
}

#[test]
fn tar_table_matches_tar() {
    let (Some(tar), Some(timeout)) = (which("tar"), which("timeout")) else {
        return skip("tar or timeout");
    };
    // probes such as --index-file=x write files: run them in a scratch folder
    let scratch = Scratch::new("tar");
    let run = |args: &[&str]| {
        let out = Command::new(&timeout)
            .current_dir(&scratch.0)
            .arg("5")
            .arg(&tar)
            .args(args)
            .stdin(Stdio::null())
            .env_remove("TAR_OPTIONS")
            .env_remove("TAPE")
            .output()
            .expect("tar");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // every long option tar has, and no other
    let listed = run(&["--=x"]);
    let real: BTreeSet<String> = listed
        .split('\'')
        .filter_map(|w| w.strip_prefix("--"))
        .filter(|w| !w.is_empty() && *w != "=x")
        .map(str::to_string)
        .collect();
    let mine: BTreeSet<String> = tar::TAR
        .iter()
        .flat_map(|r| r.long.split('|'))
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(mine, real, "tar long options");
    for row in tar::TAR {
        for n in row.long.split('|').filter(|n| !n.is_empty()) {
            let no_value = run(&[&format!("--{n}=x")]).contains("allow an argument");
            assert_eq!(no_value, row.arg == Arg::No, "tar --{n}");
            if n != "HANG" {
                let needs = run(&["-t", &format!("--{n}")]).contains("requires an argument");
                assert_eq!(needs, row.arg == Arg::Req, "tar --{n}");
            }
        }
        if row.short != X && row.short != '?' {
            let needs = run(&["-t", &format!("-{}", row.short)]).contains("requires an argument");
            assert_eq!(needs, row.arg == Arg::Req, "tar -{}", row.short);
        }
    }
}

const HARNESS_C: &str = r#"
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* GOPT_SHORT: optstring; GOPT_LONG: name,has_arg,val;...  stdin: one argv per line,
   arguments separated by \037. Prints per case: O<val>\036<value or \035>\036 for an option,
   A<arg>\036 for an operand, or E on an error; then a newline. */
int main(void) {
  static struct option lo[512];
  int n = 0;
  char *spec = strdup(getenv("GOPT_LONG") ? getenv("GOPT_LONG") : "");
  for (char *e = strtok(spec, ";"); e && n < 511; e = strtok(NULL, ";")) {
    char *c1 = strchr(e, ','); if (!c1) continue; *c1 = 0;
    char *c2 = strchr(c1 + 1, ','); if (!c2) continue; *c2 = 0;
    lo[n].name = e; lo[n].has_arg = atoi(c1 + 1); lo[n].flag = 0; lo[n].val = atoi(c2 + 1); n++;
  }
  const char *os = getenv("GOPT_SHORT");
  static char line[1 << 16];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    char *argv[256]; int argc = 0; argv[argc++] = "prog";
    if (line[0]) {
      char *p = line;
      for (;;) { char *s = strchr(p, '\037'); argv[argc++] = p; if (!s || argc > 250) break; *s = 0; p = s + 1; }
    }
    argv[argc] = 0;
    optind = 0; opterr = 0;
    static char buf[1 << 17]; buf[0] = 0; int err = 0, c;
    while ((c = getopt_long(argc, argv, os, lo, NULL)) != -1) {
      if (c == '?' || c == ':') { err = 1; break; }
      char item[4096];
      if (c == 1) snprintf(item, sizeof item, "A%s\036", optarg);
      else snprintf(item, sizeof item, "O%d\036%s\036", c, optarg ? optarg : "\035");
      strncat(buf, item, sizeof buf - strlen(buf) - 1);
    }
    if (err) { puts("E"); continue; }
    for (int i = optind; i < argc; i++) {
      char item[4096]; snprintf(item, sizeof item, "A%s\036", argv[i]);
      strncat(buf, item, sizeof buf - strlen(buf) - 1);
    }
    puts(buf);
  }
  return 0;
}
"#;

/// A small deterministic generator (xorshift64*).
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
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items.get(self.below(items.len())).copied().unwrap_or("")
    }
}

fn random_token(rng: &mut Rng, rows: &[Row]) -> String {
    // '?' is getopt's error return: the harness cannot tell the option from an error
    let rows: Vec<&Row> = rows.iter().filter(|r| r.short != '?').collect();
    let row = rows[rng.below(rows.len())];
    let names: Vec<&str> = row.long.split('|').filter(|n| !n.is_empty()).collect();
    let words = [
        "x", "5", "-", "--", ".env", "a=b", "", "--=x", "-é", "-Q", "--no", "-5",
    ];
    match rng.below(9) {
        0 | 1 if !names.is_empty() => {
            let n = names[rng.below(names.len())];
            let cut = 1 + rng.below(n.len());
            let n = if rng.below(3) == 0 { &n[..cut] } else { n };
            match rng.below(3) {
                0 => format!("--{n}=v"),
                _ => format!("--{n}"),
            }
        }
        2..=4 => {
            let mut s = String::from("-");
            for _ in 0..1 + rng.below(3) {
                let r = rows[rng.below(rows.len())];
                if r.short != X {
                    s.push(r.short);
                }
            }
            if rng.below(3) == 0 {
                s.push('v');
            }
            if s == "-" {
                s.push('a');
            }
            s
        }
        _ => rng.pick(&words).to_string(),
    }
}

#[test]
fn engine_matches_glibc_getopt() {
    let scratch = Scratch::new("harness");
    let Some(harness) = cc(&scratch.0, "harness", HARNESS_C, false) else {
        return skip("no C compiler");
    };
    let mut specs: Vec<(&str, &[Row], Order)> = all_tables()
        .into_iter()
        .map(|(n, r)| {
            let order = if matches!(n, "tr" | "basename") {
                Order::Posix
            } else {
                Order::Permute
            };
            (n, r, order)
        })
        .collect();
    specs.push(("tar", tar::TAR, Order::Permute));
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, rows, order) in specs {
        let code = |k: usize, row: &Row| -> i64 {
            if row.short != X {
                row.short as i64
            } else {
                256 + k as i64
            }
        };
        let mut short = String::from(if order == Order::Posix { "+" } else { "-" });
        let mut long = String::new();
        for (k, row) in rows.iter().enumerate() {
            if row.short != X && row.short != '?' {
                short.push(row.short);
                short.push_str(match row.arg {
                    Arg::No => "",
                    Arg::Req => ":",
                    Arg::Opt => "::",
                });
            }
            for n in row.long.split('|').filter(|n| !n.is_empty()) {
                long.push_str(&format!("{n},{},{};", arity(row.arg), code(k, row)));
            }
        }
        let cases: Vec<Vec<String>> = (0..400)
            .map(|_| {
                (0..rng.below(6))
                    .map(|_| random_token(&mut rng, rows))
                    .filter(|t| !t.is_empty())
                    .collect()
            })
            .collect();
        let mut child = Command::new(&harness)
            .env("GOPT_SHORT", &short)
            .env("GOPT_LONG", &long)
            .env_remove("POSIXLY_CORRECT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("harness");
        {
            let mut stdin = child.stdin.take().expect("stdin");
            for case in &cases {
                writeln!(stdin, "{}", case.join("\u{1f}")).expect("write");
            }
        }
        let out = child.wait_with_output().expect("harness output");
        let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), cases.len(), "{name}");
        let spec = Spec {
            name: "t",
            rows,
            order,
            abbrev: true,
        };
        for (case, want) in cases.iter().zip(&lines) {
            let got = match getopt(&spec, case, 0) {
                Err(_) => "E".to_string(),
                Ok(items) => {
                    let mut s = String::new();
                    for item in items {
                        match item {
                            Item::Opt { row, value, .. } => {
                                let k = rows
                                    .iter()
                                    .position(|r| std::ptr::eq(r, row))
                                    .unwrap_or(usize::MAX);
                                s.push_str(&format!(
                                    "O{}\u{1e}{}\u{1e}",
                                    code(k, row),
                                    value.unwrap_or("\u{1d}")
                                ));
                            }
                            Item::Operand { text, .. } => s.push_str(&format!("A{text}\u{1e}")),
                            Item::End { .. } => {}
                        }
                    }
                    s
                }
            };
            assert_eq!(&got, want, "{name} {case:?}");
        }
    }
}

fn run_in(dir: &Path, argv: &[String]) -> (bool, String) {
    let Some((prog, rest)) = argv.split_first() else {
        return (false, String::new());
    };
    let Some(bin) = which(prog) else {
        return (false, String::new());
    };
    let out = Command::new(bin)
        .args(rest)
        .current_dir(dir)
        .stdin(Stdio::null())
        .env_remove("POSIXLY_CORRECT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .output()
        .expect("run");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn words(cmd: &str) -> (String, Vec<String>) {
    let mut w = cmd.split_whitespace().map(str::to_string);
    (w.next().unwrap_or_default(), w.collect())
}

#[test]
fn arity_claims_hold() {
    let scratch = Scratch::new("arity");
    let dir = &scratch.0;
    std::fs::create_dir_all(dir.join("sub")).expect("mkdir");
    std::fs::write(dir.join("sub/f"), "SECRET\nline2\nline3\n").expect("write");
    std::fs::write(dir.join("5"), "five\n").expect("write");
    let cases: &[(&str, bool, &str)] = &[
        // (command, should succeed, text the output must contain)
        ("grep -m", false, "requires an argument"),
        ("grep -r -m 5 SECRET", true, "sub/f:SECRET"),
        ("grep -rm5 SECRET", true, "sub/f:SECRET"),
        ("grep -r -e SECRET -e x", true, "sub/f:SECRET"),
        ("grep -rh -A 0 SECRET", true, "SECRET"),
        ("grep -d recu SECRET", true, "sub/f:SECRET"),
        ("head -2 sub/f", true, "line2"),
        ("head -n", false, "requires an argument"),
        ("tail +2 sub/f", true, "line3"),
        ("tail -1 sub/f", true, "line3"),
        ("sort -o", false, "requires an argument"),
        ("uniq -c +1 sub/f", true, "SECRET"),
        ("ls -w 5", true, "sub"),
        ("ls -I sub", true, "5"),
        ("tar -C sub -cf - f", true, "SECRET"),
        ("diff --from-file=sub/f sub/f", true, ""),
        ("sed -n 1p sub/f", true, "SECRET"),
        ("sed -i", false, ""),
        ("cut -d e -f 1 5", true, "fiv"),
        ("od -c 5", true, "f   i   v"),
        ("xxd -l 2 5", true, "fi"),
        ("xxd -cols 2 5", true, "fi"),
        ("date -u -d @0 +%Y", true, "1970"),
        ("tree -L 1", true, "sub"),
        ("rg -m 5 SECRET", true, "SECRET"),
        ("rg -f=5 -e SECRET", true, "SECRET"),
        ("gawk -F e -v x=1 NF==2 5", true, "five"),
        ("mawk -F e -v x=1 NF==2 5", true, "five"),
        ("gawk --sandbox BEGIN{system(\"true\")}", false, "sandbox"),
        ("sed --sandbox 1e", false, ""),
    ];
    for (cmd, succeeds, needle) in cases {
        let (program, args) = words(cmd);
        if which(&program).is_none() {
            skip(&program);
            continue;
        }
        let argv = match parse(&program, &args) {
            Some(Ok(parsed)) => parsed.argv,
            // a refusal: check the program itself with the plain argv
            _ => std::iter::once(program.clone())
                .chain(args.clone())
                .collect(),
        };
        let (ok, text) = run_in(dir, &argv);
        assert_eq!(ok, *succeeds, "{cmd}: {text}");
        assert!(text.contains(needle), "{cmd}: {text}");
    }
    // what the grammar says for those commands
    assert_eq!(
        parse("grep", &words("grep -r -m 5 SECRET").1)
            .and_then(Result::ok)
            .map(|p| p.paths.len()),
        Some(1)
    );
}

#[test]
fn git_hides_committed_secrets() {
    // Debian's git (the version the tables follow), and the first on PATH when another
    let mut gits: Vec<PathBuf> = Vec::new();
    for g in [which("/usr/bin/git"), which("git")].into_iter().flatten() {
        if !gits.contains(&g) {
            gits.push(g);
        }
    }
    if gits.is_empty() {
        return skip("git");
    }
    for git in gits {
        hides_secrets_with(&git);
    }
}

fn hides_secrets_with(git: &Path) {
    let scratch = Scratch::new("git");
    let dir = &scratch.0;
    let sh = |args: &[&str]| {
        let ok = Command::new(git)
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "git {args:?}");
    };
    let files: &[(&str, &str)] = &[
        (".env", "SECRET_ENV=1"),
        ("app/.env.local", "SECRET_ENV_LOCAL=1"),
        ("wp-config.php", "SECRET_WP"),
        ("sub/WP-CONFIG.PHP", "SECRET_WP_UPPER"),
        ("sub/id_rsa", "SECRET_KEY"),
        ("keys/server.key", "SECRET_DOTKEY"),
        ("keys/server.key.bak", "SECRET_KEY_BACKUP"),
        ("conf/config.php~", "SECRET_BACKUP"),
        (".ssh/config", "SECRET_SSH_DIR"),
        ("wp-admin/x.php", "SECRET_WPADMIN"),
        ("data/app.sqlite", "SECRET_DB"),
        ("readme.md", "VISIBLE_ONE SECRETLESS"),
    ];
    sh(&["init", "-q"]);
    sh(&["config", "user.email", "t@example.invalid"]);
    sh(&["config", "user.name", "t"]);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, format!("{text}\n")).expect("write");
    }
    sh(&["add", "-A"]);
    sh(&["commit", "-qm", "one"]);
    for (path, text) in files {
        std::fs::write(dir.join(path), format!("{text}\n{text}_TWO\n")).expect("write");
    }
    sh(&["commit", "-qam", "two"]);
    let blob = String::from_utf8_lossy(
        &Command::new(git)
            .args(["rev-parse", "HEAD:wp-config.php"])
            .current_dir(dir)
            .output()
            .expect("rev-parse")
            .stdout,
    )
    .trim()
    .to_string();
    let blob_cmd = format!("git show {blob}");
    let blob_diff = format!("git diff {blob} HEAD~1");
    for cmd in [
        "git show HEAD",
        "git show",
        "git show HEAD~1",
        "git show --stat HEAD",
        "git log -p",
        "git log -p --all",
        "git log --patch --stat",
        "git log -U0",
        "git log -p -S SECRET_WP",
        "git diff HEAD~1",
        "git diff HEAD~1 HEAD",
        "git diff --stat HEAD~1",
        "git grep SECRET",
        "git grep -i secret",
        "git grep -e SECRET HEAD~1",
        "git grep SECRET HEAD",
        "git -C sub grep SECRET",
        "git -C sub log -p",
        "git -C app show HEAD",
        blob_cmd.as_str(),
        blob_diff.as_str(),
    ] {
        let (program, args) = words(cmd);
        let parsed = match parse(&program, &args) {
            Some(Ok(p)) => p,
            other => panic!("{cmd}: {other:?}"),
        };
        let mut argv = parsed.argv;
        argv[0] = git.to_string_lossy().into_owned();
        let (_, text) = run_in(dir, &argv);
        assert!(
            !text.contains("SECRET_"),
            "{cmd} ({}) printed a secret:\n{text}",
            git.display()
        );
        let visible = [
            "git show HEAD",
            "git log -p",
            "git grep SECRET",
            "git diff HEAD~1",
        ];
        if visible.contains(&cmd) {
            assert!(
                text.contains("VISIBLE_ONE"),
                "{cmd} hid everything:\n{text}"
            );
        }
    }
}

#[test]
fn git_knows_every_accepted_option() {
    let Some(git) = which("/usr/bin/git").or_else(|| which("git")) else {
        return skip("git");
    };
    let scratch = Scratch::new("gitopts");
    let dir = &scratch.0;
    let sh = |args: &[&str]| {
        Command::new(&git)
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", dir)
            .stdin(Stdio::null())
            .output()
            .expect("git")
    };
    sh(&["init", "-q"]);
    std::fs::write(dir.join("readme.md"), "1\n").expect("write");
    sh(&["add", "-A"]);
    sh(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-qm",
        "1",
    ]);
    let mut bad = Vec::new();
    for (sub, name, form) in git::for_tests::accepted() {
        let mut args: Vec<&str> = vec![sub];
        args.extend(form.iter().map(String::as_str));
        if sub == "grep" && !matches!(name, "-e" | "-f") {
            args.extend(["-e", "1"]);
        }
        match sub {
            "blame" => args.extend(["--", "readme.md"]),
            "ls-tree" => args.push("HEAD"),
            _ => {}
        }
        let out = sh(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        // unknown, a value missing, or a value left over as an operand
        let unknown = [
            "unknown option",
            "unknown switch",
            "unrecognized",
            "usage: git",
            "bad revision '-",
            "ambiguous argument '-",
            "requires a value",
            "requires an argument",
            "ambiguous argument '1'",
            "bad revision '1'",
        ];
        if unknown.iter().any(|u| err.contains(u)) {
            bad.push(format!(
                "git {}: {}",
                args.join(" "),
                err.lines().next().unwrap_or("")
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "options git does not take this way:\n{}",
        bad.join("\n")
    );
}
