//! Spellings per program: every red-team command, and the forms each parser accepts.

use super::*;

fn argv(cmd: &str) -> (String, Vec<String>) {
    let mut words = cmd.split_whitespace().map(str::to_string);
    let program = words.next().unwrap_or_default();
    (program, words.collect())
}

fn run(cmd: &str) -> Result<Parsed, GrammarError> {
    let (program, args) = argv(cmd);
    let parsed = parse(&program, &args).unwrap_or_else(|| panic!("no grammar for {cmd:?}"));
    if let Ok(p) = &parsed {
        assert_eq!(p.roles.len(), args.len(), "{cmd}");
    }
    parsed
}

fn ok(cmd: &str) -> Parsed {
    run(cmd).unwrap_or_else(|e| panic!("{cmd:?} refused: {e}"))
}

fn err(cmd: &str) -> GrammarError {
    match run(cmd) {
        Err(e) => e,
        Ok(p) => panic!("{cmd:?} accepted: {p:?}"),
    }
}

/// (text, base, usage) triples.
fn paths(cmd: &str) -> Vec<(String, Option<String>, Use)> {
    ok(cmd)
        .paths
        .into_iter()
        .map(|p| (p.text, p.base, p.usage))
        .collect()
}

fn p(text: &str, usage: Use) -> (String, Option<String>, Use) {
    (text.to_string(), None, usage)
}

fn pb(text: &str, base: &str, usage: Use) -> (String, Option<String>, Use) {
    (text.to_string(), Some(base.to_string()), usage)
}

use Use::{Read, ReadTree, Write};

fn refused_option(cmd: &str, option: &str) {
    match err(cmd) {
        GrammarError::RefusedOption { option: o, .. } => assert_eq!(o, option, "{cmd}"),
        other => panic!("{cmd:?}: {other:?}"),
    }
}

fn unknown(cmd: &str) {
    assert!(
        matches!(
            err(cmd),
            GrammarError::UnknownOption { .. } | GrammarError::AmbiguousOption { .. }
        ),
        "{cmd}"
    );
}

// ---------------------------------------------------------------------------------------
// The red team's commands (issue 9)

#[test]
fn red_team_recursive_greps_read_the_cwd() {
    for cmd in [
        "grep -r -e SECRET -e x",
        "grep -r -m 5 SECRET",
        "grep -rh -A 0 SECRET",
        "grep -r -m5 SECRET",
        "grep -rm 5 SECRET",
        "grep -rA 0 SECRET",
        "grep --recursive --max-count 5 SECRET",
        "grep --recursive --max-count=5 SECRET",
        "grep -r --max 5 SECRET",
        "grep -R -e SECRET",
        "grep -d recurse SECRET",
        "grep --directories=recurse SECRET",
        "grep --directories recurse SECRET",
        "grep -drec SECRET",
        "grep -r -f pats",
        "rgrep SECRET",
        "egrep -r SECRET",
        "grep SECRET -r",
        "grep -e SECRET -r -e x",
        "rg --hidden --no-ignore -e SECRET -e x",
        "rg SECRET",
        "rg -e SECRET",
        "rg -m 5 SECRET",
        "rg -m5 SECRET",
        "rg --max-count 5 SECRET",
        "rg -uuu SECRET",
        "rg -A 0 SECRET",
    ] {
        let got = paths(cmd);
        assert!(got.contains(&p(".", ReadTree)), "{cmd}: {got:?}");
        assert!(
            got.iter().all(|(t, _, _)| t == "." || t == "pats"),
            "{cmd}: {got:?}"
        );
    }
}

#[test]
fn red_team_exec_and_secret_commands_are_refused() {
    for cmd in [
        "git grep -O SECRET",
        "git grep -Ovim SECRET",
        "git grep --open-files-in-pager SECRET",
        "git grep --open-files-in-pager=vim SECRET",
        "git grep --no-index SECRET",
        "git grep -n SECRET --no-index",
        "git diff --no-index empty app",
        "git diff --no-index -- empty app",
        "git cat-file -p 0123abcd",
        "git cat-file blob 0123abcd",
        "tar cIf sh out.tar payload.txt",
        "tar -cIsh -f out.tar payload.txt",
        "tar -c -I sh -f out.tar payload.txt",
        "tar --use-compress-program=sh -cf out.tar payload.txt",
        "tar --use-comp sh -cf out.tar payload.txt",
        "tar -cf out.tar -T list.txt",
        "tar cTf list.txt out.tar",
        "tar -c --files-from=list.txt -f out.tar",
        "tar --files-from list.txt -cf out.tar",
        "sort --files0-from=list",
        "sort --files0-from list",
        "sort --files0 list",
        "wc --files0-from=list",
        "git -c core.pager=sh log",
        "git --exec-path=/tmp status",
        "git -p log",
        "git --paginate log",
        "git log -p --ext-diff",
        "git log --textconv",
        "git log --output=x",
        "git show --output=x HEAD",
        "git config core.pager sh",
        "git difftool",
        "git -C . cat-file -p HEAD:.env",
    ] {
        let e = err(cmd);
        assert!(
            matches!(
                e,
                GrammarError::RefusedOption { .. }
                    | GrammarError::RefusedSubcommand { .. }
                    | GrammarError::RefusedOperand { .. }
            ),
            "{cmd}: {e:?}"
        );
    }
}

#[test]
fn red_team_paths_hidden_in_option_values() {
    assert_eq!(
        paths("tar -C/etc -cf - passwd"),
        vec![pb("passwd", "/etc", ReadTree)]
    );
    assert_eq!(
        paths("tar --directory=/etc -cf - passwd"),
        vec![pb("passwd", "/etc", ReadTree)]
    );
    assert_eq!(
        paths("tar --dir /etc -cf - passwd"),
        vec![pb("passwd", "/etc", ReadTree)]
    );
    assert_eq!(
        paths("tar -cf - -C /etc passwd shadow"),
        vec![
            pb("passwd", "/etc", ReadTree),
            pb("shadow", "/etc", ReadTree)
        ]
    );
    assert_eq!(
        paths("tar cCf /etc - passwd"),
        vec![pb("passwd", "/etc", ReadTree)]
    );
    assert_eq!(
        paths("diff -rN --from-file=. empty"),
        vec![p(".", ReadTree), p("empty", ReadTree)]
    );
    assert_eq!(
        paths("diff -rN --from-file . empty"),
        vec![p(".", ReadTree), p("empty", ReadTree)]
    );
    assert_eq!(
        paths("diff -rN --to . empty"),
        vec![p(".", ReadTree), p("empty", ReadTree)]
    );
}

#[test]
fn red_team_git_content_is_excluded_or_judged() {
    let excl = git::exclusion_pathspecs();
    for cmd in [
        "git log -p",
        "git log --patch",
        "git log -p -5",
        "git log -U5",
        "git log --stat",
        "git log -S secret",
        "git log -Ssecret --oneline",
        "git show HEAD",
        "git show",
        "git diff HEAD~1",
        "git diff",
        "git diff --cached",
        "git grep SECRET",
        "git grep -e SECRET HEAD",
        "git grep SECRET -- app",
    ] {
        let parsed = ok(cmd);
        assert!(
            parsed.argv.ends_with(&excl),
            "{cmd}: no exclusions in {:?}",
            parsed.argv
        );
        assert!(parsed.paths.contains(&PathArg {
            text: ".".into(),
            base: None,
            usage: ReadTree
        }));
    }
    // no content printed: no exclusion (history stays whole)
    assert!(!ok("git log --oneline").argv.ends_with(&excl));
    // the top tree (an empty path part) is names only: text, no path (the fuzz run's
    // `git log :` once had a path role with nothing to judge)
    for cmd in ["git log :", "git show HEAD:", "git blame HEAD: x"] {
        let parsed = ok(cmd);
        assert_eq!(parsed.roles[1], Role::Text, "{cmd}");
        assert!(parsed.paths.iter().all(|p| !p.text.is_empty()), "{cmd}");
    }
    // object names with a path: the path is reported for judging
    for (cmd, path) in [
        ("git show HEAD:wp-config.php", "wp-config.php"),
        ("git show :wp-config.php", "wp-config.php"),
        ("git show :0:.env", ".env"),
        ("git show HEAD~3:app/.env.local", "app/.env.local"),
        ("git diff HEAD:a.txt HEAD:.ssh/id_rsa", ".ssh/id_rsa"),
        ("git grep SECRET HEAD:config", "config"),
        ("git log -p HEAD -- wp-config.php", "wp-config.php"),
        ("git blame wp-config.php", "wp-config.php"),
        ("git blame HEAD -- wp-config.php", "wp-config.php"),
        ("git blame --contents .env x", ".env"),
        ("git rev-parse HEAD:.env", ".env"),
    ] {
        let got = paths(cmd);
        assert!(
            got.iter().any(|(t, _, _)| t == path),
            "{cmd}: {got:?} lacks {path}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// getopt semantics

#[test]
fn getopt_clusters_attached_values_and_abbreviations() {
    // -m takes the rest of the cluster, then the next element
    let parsed = ok("grep -inm5 x f");
    assert_eq!(parsed.roles, [Role::Option, Role::Text, Role::Path]);
    let parsed = ok("grep -inm 5 x f");
    assert_eq!(
        parsed.roles,
        [Role::Option, Role::Value, Role::Text, Role::Path]
    );
    // the value may look like an option or a path
    assert_eq!(paths("grep -e -r x"), vec![p("x", Read)]);
    assert_eq!(paths("grep -e .env x"), vec![p("x", Read)]);
    assert_eq!(paths("grep --regexp -r x"), vec![p("x", Read)]);
    // unique abbreviations, ambiguous ones refused
    assert_eq!(paths("grep --recur x"), vec![p(".", ReadTree)]);
    assert_eq!(paths("grep --max-c=1 x f"), vec![p("f", Read)]);
    assert_eq!(paths("grep --col x f"), vec![p("f", Read)]); // color|colour: one option
    assert_eq!(paths("grep --fixed x f"), vec![p("f", Read)]); // one option, two names
    assert!(matches!(
        err("grep --fi x f"),
        GrammarError::AmbiguousOption { .. }
    ));
    assert!(matches!(
        err("grep --=x y"),
        GrammarError::AmbiguousOption { .. }
    ));
    assert!(matches!(
        err("grep --no x"),
        GrammarError::AmbiguousOption { .. }
    ));
    // optional values only attached
    assert_eq!(paths("grep --color always f"), vec![p("f", Read)]);
    assert_eq!(paths("grep --color=always x f"), vec![p("f", Read)]);
    // no value allowed
    assert!(matches!(
        err("grep --count=3 x"),
        GrammarError::UnexpectedValue { .. }
    ));
    // missing value
    assert!(matches!(
        err("grep x -m"),
        GrammarError::MissingValue { .. }
    ));
    assert!(matches!(
        err("grep --file"),
        GrammarError::MissingValue { .. }
    ));
    // `--` ends options; `-` is standard input
    assert_eq!(paths("grep -- -r -x"), vec![p("-x", Read)]);
    let parsed = ok("grep x -");
    assert!(parsed.reads_stdin && parsed.paths.is_empty());
    // permutation
    assert_eq!(paths("grep x f -r"), vec![p("f", ReadTree)]);
    // unknown
    unknown("grep -Q x");
    unknown("grep --frobnicate x");
    unknown("grep -é x");
}

#[test]
fn posix_ordering_stops_at_the_first_operand() {
    // tr: options end at the first operand
    let parsed = ok("tr a -d");
    assert_eq!(parsed.roles, [Role::Text, Role::Text]);
    assert!(parsed.paths.is_empty());
    // awk: the program, then files even when they look like options
    assert_eq!(paths("awk 1 -F"), vec![p("-F", Read)]);
    assert_eq!(paths("gawk 1 --file=x"), vec![p("--file=x", Read)]);
}

// ---------------------------------------------------------------------------------------
// Programs

#[test]
fn grep_family() {
    assert_eq!(paths("grep x a b"), vec![p("a", Read), p("b", Read)]);
    let parsed = ok("grep x");
    assert!(parsed.reads_stdin && parsed.paths.is_empty());
    assert_eq!(paths("grep -r x a"), vec![p("a", ReadTree)]);
    assert_eq!(paths("grep -f pats a"), vec![p("pats", Read), p("a", Read)]);
    assert_eq!(paths("grep -fpats a"), vec![p("pats", Read), p("a", Read)]);
    assert_eq!(paths("grep --file=pats"), vec![p("pats", Read)]);
    assert_eq!(
        paths("grep --exclude-from=ex x a"),
        vec![p("ex", Read), p("a", Read)]
    );
    assert_eq!(paths("grep --exclude=*.env -r x"), vec![p(".", ReadTree)]);
    // -d: the last of -r / -d wins, argmatch abbreviations
    assert!(ok("grep -r -d read x").reads_stdin);
    assert!(ok("grep -r -d skip x").reads_stdin);
    assert_eq!(paths("grep -d skip -r x"), vec![p(".", ReadTree)]);
    assert_eq!(paths("grep -d recu x"), vec![p(".", ReadTree)]);
    assert!(matches!(
        err("grep -d re x"),
        GrammarError::InvalidValue { .. }
    ));
    assert!(matches!(
        err("grep -d REcurse x"),
        GrammarError::InvalidValue { .. }
    ));
    // digits are context options
    assert_eq!(paths("grep -5 x f"), vec![p("f", Read)]);
    // aliases run grep itself
    assert_eq!(ok("egrep x f").argv, ["grep", "-E", "x", "f"]);
    assert_eq!(ok("fgrep x f").argv, ["grep", "-F", "x", "f"]);
    assert_eq!(ok("rgrep x").argv, ["grep", "-r", "x"]);
    assert_eq!(paths("rgrep x d"), vec![p("d", ReadTree)]);
    assert!(ok("rgrep -d read x").reads_stdin);
    refused_option("grep -X awk x", "-X");
}

#[test]
fn ripgrep() {
    assert_eq!(ok("rg x").argv, ["rg", "--no-config", "x"]);
    assert_eq!(paths("rg x a b"), vec![p("a", ReadTree), p("b", ReadTree)]);
    assert_eq!(paths("rg -e x a"), vec![p("a", ReadTree)]);
    assert_eq!(paths("rg --files"), vec![p(".", ReadTree)]);
    assert_eq!(paths("rg --files src"), vec![p("src", ReadTree)]);
    // clap drops leading '=' of attached values
    assert_eq!(paths("rg -f=pats"), vec![p("pats", Read), p(".", ReadTree)]);
    assert_eq!(
        paths("rg --file==pats"),
        vec![p("pats", Read), p(".", ReadTree)]
    );
    assert_eq!(
        paths("rg --file pats d"),
        vec![p("pats", Read), p("d", ReadTree)]
    );
    assert_eq!(
        paths("rg --ignore-file=ig x"),
        vec![p("ig", Read), p(".", ReadTree)]
    );
    // no abbreviations in clap
    unknown("rg --hidd x");
    refused_option("rg --pre sh x", "--pre");
    refused_option("rg --pre=sh x", "--pre");
    refused_option("rg -z x", "-z");
    refused_option("rg -iz x", "-z");
    assert_eq!(paths("rg -g *.php x"), vec![p(".", ReadTree)]);
    assert_eq!(paths("rg -t php -T js x"), vec![p(".", ReadTree)]);
}

#[test]
fn sed_is_sandboxed() {
    let parsed = ok("sed -n 1p f");
    assert_eq!(parsed.argv, ["sed", "--sandbox", "-n", "1p", "f"]);
    assert_eq!(
        parsed.paths,
        vec![PathArg {
            text: "f".into(),
            base: None,
            usage: Read
        }]
    );
    assert_eq!(paths("sed -e 1p a b"), vec![p("a", Read), p("b", Read)]);
    assert_eq!(
        paths("sed -f script a"),
        vec![p("script", Read), p("a", Read)]
    );
    assert_eq!(paths("sed -i s/a/b/ f"), vec![p("f", Write)]);
    assert_eq!(paths("sed -i.bak s/a/b/ f"), vec![p("f", Write)]);
    assert_eq!(paths("sed --in-place=.bak s/a/b/ f"), vec![p("f", Write)]);
    assert_eq!(paths("sed --in s/a/b/ f"), vec![p("f", Write)]);
    // -i's value is optional: a separate word is the script
    assert_eq!(paths("sed -i -e s/a/b/ f"), vec![p("f", Write)]);
    refused_option("sed -ibak/* s/a/b/ f", "-i");
    assert!(ok("sed 1p").reads_stdin);
    unknown("sed --s 1p f"); // sandbox, separate, silent
}

#[test]
fn awk_programs_and_assignments() {
    assert_eq!(paths("awk 1 f"), vec![p("f", Read)]);
    assert_eq!(paths("awk -F: NF f"), vec![p("f", Read)]);
    assert_eq!(
        paths("awk -F : NF f x=1 g"),
        vec![p("f", Read), p("g", Read)]
    );
    assert_eq!(paths("awk -v x=1 NF f"), vec![p("f", Read)]);
    assert_eq!(paths("awk -vx=1 NF f"), vec![p("f", Read)]);
    assert!(ok("awk NF x=1").reads_stdin);
    assert!(ok("awk NF x=1").paths.is_empty());
    refused_option("awk -f prog.awk x", "-f");
    refused_option("awk -fprog.awk x", "-f");
    unknown("awk --load=ext x");
    unknown("awk -E prog x");
    unknown("awk -i inc x");
    unknown("awk -l lib x");
    refused_option("mawk -W exec x", "-W");
    // gawk: long options, abbreviations, --sandbox inserted
    let parsed = ok("gawk -e NF f");
    assert_eq!(parsed.argv, ["gawk", "--sandbox", "-e", "NF", "f"]);
    assert_eq!(
        parsed.paths,
        vec![PathArg {
            text: "f".into(),
            base: None,
            usage: Read
        }]
    );
    assert_eq!(paths("gawk --source=NF f"), vec![p("f", Read)]);
    for cmd in [
        "gawk -f prog x",
        "gawk --file=prog x",
        "gawk --exec prog x",
        "gawk --incl lib x",
        "gawk --load=ext x",
        "gawk -lext x",
        "gawk -E prog x",
        "gawk -i lib x",
        "gawk --dump-variables x",
        "gawk -o NF",
        "gawk --profile NF",
        "gawk -W exec=x NF",
    ] {
        assert!(
            matches!(err(cmd), GrammarError::RefusedOption { .. }),
            "{cmd}"
        );
    }
    assert!(matches!(
        err("gawk --s NF"),
        GrammarError::AmbiguousOption { .. }
    ));
    assert!(awk::is_assignment("x=1") && awk::is_assignment("_a9=") && !awk::is_assignment("1x=2"));
    assert!(!awk::is_assignment("./x=1") && !awk::is_assignment("f"));
}

#[test]
fn tar_modes_and_old_style_keys() {
    assert_eq!(
        paths("tar -cf out.tar dir"),
        vec![p("out.tar", Write), p("dir", ReadTree)]
    );
    assert_eq!(
        paths("tar cvf out.tar dir"),
        vec![p("out.tar", Write), p("dir", ReadTree)]
    );
    assert_eq!(
        paths("tar czf out.tgz dir"),
        vec![p("out.tgz", Write), p("dir", ReadTree)]
    );
    assert_eq!(paths("tar -tf a.tar member"), vec![p("a.tar", Read)]);
    assert_eq!(paths("tar tvf a.tar"), vec![p("a.tar", Read)]);
    assert_eq!(
        paths("tar -xf a.tar"),
        vec![p("a.tar", Read), p(".", Write)]
    );
    assert_eq!(
        paths("tar -xf a.tar -C out"),
        vec![p("a.tar", Read), pb(".", "out", Write)]
    );
    assert_eq!(
        paths("tar -C out -xf a.tar m1"),
        vec![p("a.tar", Read), pb("m1", "out", Write)]
    );
    assert_eq!(paths("tar -xOf a.tar m1"), vec![p("a.tar", Read)]);
    assert_eq!(
        paths("tar -df a.tar -C d"),
        vec![p("a.tar", Read), pb(".", "d", ReadTree)]
    );
    assert_eq!(
        paths("tar -rf a.tar x"),
        vec![p("a.tar", Write), p("a.tar", Read), p("x", ReadTree)]
    );
    // -C adds up; the archive stays relative to the cwd
    assert_eq!(
        paths("tar -C /etc -C ssh -cf out.tar x"),
        vec![p("out.tar", Write), pb("x", "/etc/ssh", ReadTree)]
    );
    assert_eq!(
        paths("tar -cf out.tar a -C /etc b -C /var c"),
        vec![
            p("out.tar", Write),
            p("a", ReadTree),
            pb("b", "/etc", ReadTree),
            pb("c", "/var", ReadTree)
        ]
    );
    // no -f: standard input/output
    assert!(ok("tar -x").reads_stdin);
    assert_eq!(paths("tar -c dir"), vec![p("dir", ReadTree)]);
    // values inside the key cluster are taken in order
    let parsed = ok("tar cbf 20 out.tar dir");
    assert_eq!(
        parsed.roles,
        [Role::Command, Role::Value, Role::Path, Role::Path]
    );
    assert!(matches!(err("tar cf"), GrammarError::MissingValue { .. }));
    unknown("tar cqf out.tar x");
    // dates or files
    assert_eq!(
        paths("tar -cf o.tar -N ./ref d"),
        vec![p("./ref", Read), p("o.tar", Write), p("d", ReadTree)]
    );
    assert_eq!(
        paths("tar -cf o.tar -N 2024-01-01 d"),
        vec![p("o.tar", Write), p("d", ReadTree)]
    );
    // --add-file takes names that look like options
    assert_eq!(
        paths("tar -cf o.tar --add-file=-x"),
        vec![p("o.tar", Write), p("-x", ReadTree)]
    );
    // remote archives run rsh
    assert!(matches!(
        err("tar -cf host:x.tar d"),
        GrammarError::RefusedOperand { .. }
    ));
    assert_eq!(
        paths("tar --force-local -cf host:x.tar d"),
        vec![p("host:x.tar", Write), p("d", ReadTree)]
    );
    assert_eq!(
        paths("tar -cf ./a:b d"),
        vec![p("./a:b", Write), p("d", ReadTree)]
    );
    for cmd in [
        "tar -xPf a.tar",
        "tar --to-command=sh -xf a.tar",
        "tar --checkpoint-action=exec=sh -cf a.tar d",
        "tar -F sh -cf a.tar d",
        "tar --rsh-command=sh -cf a.tar d",
        "tar --remove-files -cf a.tar d",
        "tar -c -x -f a.tar",
        "tar -g snap -cf a.tar d",
        "tar --HANG",
        "tar --to-com=sh -xf a.tar",
    ] {
        assert!(
            matches!(err(cmd), GrammarError::RefusedOption { .. }),
            "{cmd}"
        );
    }
    assert!(matches!(
        err("tar --ex x"),
        GrammarError::AmbiguousOption { .. }
    ));
    assert_eq!(
        paths("tar --extr -f a.tar"),
        vec![p("a.tar", Read), p(".", Write)]
    );
}

#[test]
fn diff_operands_are_trees() {
    assert_eq!(paths("diff a b"), vec![p("a", ReadTree), p("b", ReadTree)]);
    assert_eq!(
        paths("diff -u a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff -U 3 a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff -U3 a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff --unified a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff -C 3 a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff --context a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff -X ex -r a b"),
        vec![p("ex", Read), p("a", ReadTree), p("b", ReadTree)]
    );
    assert_eq!(
        paths("diff -x *.env -r a b"),
        vec![p("a", ReadTree), p("b", ReadTree)]
    );
    assert!(ok("diff - b").reads_stdin);
    refused_option("diff -l a b", "-l");
    refused_option("diff --paginate a b", "--paginate");
}

#[test]
fn ls_and_friends() {
    assert_eq!(paths("ls"), vec![p(".", Read)]);
    assert_eq!(paths("ls -la"), vec![p(".", Read)]);
    assert_eq!(paths("ls -R"), vec![p(".", ReadTree)]);
    assert_eq!(paths("ls -laR d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("ls --recursive d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("ls --rec d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("ls -I *.env d"), vec![p("d", Read)]);
    assert_eq!(paths("ls -w 80 d"), vec![p("d", Read)]);
    assert_eq!(paths("ls -w80 d e"), vec![p("d", Read), p("e", Read)]);
    assert_eq!(paths("ls --color d"), vec![p("d", Read)]);
    assert_eq!(paths("ls --time-style=+%s d"), vec![p("d", Read)]);
    assert_eq!(paths("dir -R"), vec![p(".", ReadTree)]);
    assert_eq!(paths("vdir d"), vec![p("d", Read)]);
    assert!(matches!(
        err("ls --s d"),
        GrammarError::AmbiguousOption { .. }
    ));
}

#[test]
fn head_tail_cat_wc() {
    assert_eq!(paths("cat a b"), vec![p("a", Read), p("b", Read)]);
    assert!(ok("cat").reads_stdin);
    assert!(ok("cat -").reads_stdin);
    assert_eq!(paths("cat -n -- -f"), vec![p("-f", Read)]);
    assert_eq!(paths("head -n 5 f"), vec![p("f", Read)]);
    assert_eq!(paths("head -n5 f"), vec![p("f", Read)]);
    assert_eq!(paths("head -n -5 f"), vec![p("f", Read)]);
    assert_eq!(paths("head -c 1k f"), vec![p("f", Read)]);
    assert_eq!(paths("head --lines=5 f"), vec![p("f", Read)]);
    assert_eq!(paths("head -5 f"), vec![p("f", Read)]);
    assert_eq!(paths("head -5c f"), vec![p("f", Read)]);
    assert_eq!(paths("head -20 f -q g"), vec![p("f", Read), p("g", Read)]);
    unknown("head -5x f");
    refused_option("head -n 5 -5 f", "-5");
    assert_eq!(paths("tail -n 5 f"), vec![p("f", Read)]);
    assert_eq!(paths("tail -5 f"), vec![p("f", Read)]);
    assert_eq!(paths("tail +5 f"), vec![p("f", Read)]);
    assert_eq!(paths("tail -c5 f"), vec![p("f", Read)]);
    assert_eq!(paths("tail -5 -- f"), vec![p("f", Read)]);
    assert_eq!(paths("tail -n +2 f"), vec![p("f", Read)]);
    // +5 with two files is a file
    assert_eq!(
        paths("tail +5 a b"),
        vec![p("+5", Read), p("a", Read), p("b", Read)]
    );
    assert!(ok("tail -5").reads_stdin);
    for cmd in [
        "tail -f f",
        "tail -F f",
        "tail --follow f",
        "tail --follow=name f",
        "tail -5f f",
        "tail -f",
        "tail +5f",
        "tail --fo f",
    ] {
        assert!(
            matches!(err(cmd), GrammarError::RefusedOption { .. }),
            "{cmd}"
        );
    }
    refused_option("tail -5 -n 3 f", "-5");
    assert_eq!(paths("wc -l a b"), vec![p("a", Read), p("b", Read)]);
    assert!(ok("wc -l").reads_stdin);
    refused_option("wc --files0-from=-", "--files0-from");
}

#[test]
fn sort_uniq_and_small_readers() {
    assert_eq!(
        paths("sort -o out in"),
        vec![p("out", Write), p("in", Read)]
    );
    assert_eq!(paths("sort -oout in"), vec![p("out", Write), p("in", Read)]);
    assert_eq!(
        paths("sort --output=out in"),
        vec![p("out", Write), p("in", Read)]
    );
    assert_eq!(
        paths("sort -T tmp in"),
        vec![p("tmp", Write), p("in", Read)]
    );
    assert_eq!(paths("sort -k 2 -t , in"), vec![p("in", Read)]);
    assert_eq!(
        paths("sort --random-source=r -R in"),
        vec![p("r", Read), p("in", Read)]
    );
    assert_eq!(paths("sort +1 in"), vec![p("+1", Read), p("in", Read)]);
    unknown("sort +1 -2 in");
    refused_option("sort --compress-program=gzip in", "--compress-program");
    assert_eq!(paths("uniq in out"), vec![p("in", Read), p("out", Write)]);
    assert_eq!(paths("uniq -c +3 in"), vec![p("in", Read)]);
    assert_eq!(paths("uniq -2 in"), vec![p("in", Read)]);
    assert_eq!(paths("uniq -- +3"), vec![p("+3", Read)]);
    assert!(matches!(
        err("uniq a b c"),
        GrammarError::RefusedOperand { .. }
    ));
    assert!(ok("uniq").reads_stdin);
    assert_eq!(paths("tac -s x f"), vec![p("f", Read)]);
    assert_eq!(paths("nl -b a f"), vec![p("f", Read)]);
    assert_eq!(paths("cut -d : -f 1 f"), vec![p("f", Read)]);
    assert_eq!(paths("cut -d: -f1 f"), vec![p("f", Read)]);
    assert_eq!(paths("paste -d , a b"), vec![p("a", Read), p("b", Read)]);
    assert!(ok("tr a-z A-Z").paths.is_empty());
    assert!(ok("tr -d x").paths.is_empty());
    assert_eq!(paths("od -A x -t x1z f"), vec![p("f", Read)]);
    assert_eq!(paths("od -w16 f"), vec![p("f", Read)]);
    assert_eq!(paths("stat -c %s f"), vec![p("f", Read)]);
    assert_eq!(paths("stat --format=%s f"), vec![p("f", Read)]);
}

#[test]
fn no_path_programs() {
    for cmd in [
        "echo .env /etc/passwd",
        "echo -n x",
        "printf %s .env",
        "true .env",
        "false",
        "basename /etc/passwd .d",
        "basename -s .php a/b.php",
        "dirname /etc/passwd",
        "pwd",
        "pwd -P",
        "whoami",
        "id",
        "id -un root",
        "uptime",
        "uptime -p",
        "hostname",
        "hostname -f",
        "hostname --fqdn",
        "hostname -I",
        "date",
        "date +%s",
        "date -u +%Y",
        "date -d yesterday",
        "date --date=@0 +%s",
        "date -I",
        "date --iso-8601=seconds",
        "df",
        "df -h",
        "df -B 1M",
    ] {
        let parsed = ok(cmd);
        assert!(parsed.paths.is_empty(), "{cmd}: {:?}", parsed.paths);
    }
    assert_eq!(paths("df -h /var"), vec![p("/var", Read)]);
    assert_eq!(paths("date -r f"), vec![p("f", Read)]);
    assert_eq!(paths("date -f dates"), vec![p("dates", Read)]);
    assert!(matches!(
        err("date 010100002030"),
        GrammarError::RefusedOperand { .. }
    ));
    refused_option("date -s tomorrow", "-s");
    refused_option("date --set=tomorrow", "--set");
    assert!(matches!(
        err("hostname evil"),
        GrammarError::RefusedOperand { .. }
    ));
    refused_option("hostname -F f", "-F");
    refused_option("hostname -b", "-b");
    refused_option("hostname --file f", "--file");
}

#[test]
fn writers() {
    assert_eq!(paths("cp a b"), vec![p("a", Read), p("b", Write)]);
    assert_eq!(
        paths("cp a b dir"),
        vec![p("a", Read), p("b", Read), p("dir", Write)]
    );
    assert_eq!(paths("cp -r a b"), vec![p("a", ReadTree), p("b", Write)]);
    assert_eq!(paths("cp -a a b"), vec![p("a", ReadTree), p("b", Write)]);
    assert_eq!(paths("cp -R a b"), vec![p("a", ReadTree), p("b", Write)]);
    assert_eq!(
        paths("cp --recursive a b"),
        vec![p("a", ReadTree), p("b", Write)]
    );
    assert_eq!(
        paths("cp -t dir a b"),
        vec![p("dir", Write), p("a", Read), p("b", Read)]
    );
    assert_eq!(
        paths("cp --target-directory=dir a"),
        vec![p("dir", Write), p("a", Read)]
    );
    assert_eq!(paths("cp -S .x a b"), vec![p("a", Read), p("b", Write)]);
    assert_eq!(
        paths("mkdir -p a/b c"),
        vec![p("a/b", Write), p("c", Write)]
    );
    assert_eq!(paths("mkdir -m 700 a"), vec![p("a", Write)]);
    assert_eq!(paths("touch a"), vec![p("a", Write)]);
    assert_eq!(paths("touch -r ref a"), vec![p("ref", Read), p("a", Write)]);
    assert_eq!(paths("touch -d yesterday a"), vec![p("a", Write)]);
}

#[test]
fn misc_readers() {
    assert_eq!(paths("strings f"), vec![p("f", Read)]);
    assert_eq!(paths("strings -n 8 f"), vec![p("f", Read)]);
    assert_eq!(paths("strings -8 f"), vec![p("f", Read)]);
    assert!(matches!(
        err("strings @list"),
        GrammarError::RefusedOperand { .. }
    ));
    assert!(matches!(
        err("strings -n @x f"),
        GrammarError::RefusedOperand { .. }
    ));
    assert_eq!(paths("hexdump -C f"), vec![p("f", Read)]);
    assert_eq!(paths("hexdump -n 16 -s 4 f"), vec![p("f", Read)]);
    refused_option("hexdump -f fmt f", "-f");
    assert_eq!(paths("file f g"), vec![p("f", Read), p("g", Read)]);
    assert_eq!(paths("file -b --mime-type f"), vec![p("f", Read)]);
    refused_option("file -f list", "-f");
    refused_option("file -m magic f", "-m");
    refused_option("file -z f", "-z");
    assert_eq!(paths("xxd f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -l 16 f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -l16 f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -len 16 f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -cols 8 -g 1 f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -ps f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -s +5 f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -seek 5 f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd --ps f"), vec![p("f", Read)]);
    assert_eq!(paths("xxd -r in out"), vec![p("in", Read), p("out", Write)]);
    assert_eq!(paths("xxd -- -f"), vec![p("-f", Read)]);
    assert!(ok("xxd").reads_stdin);
    assert!(ok("xxd -").reads_stdin);
    unknown("xxd -q f");
    assert!(matches!(
        err("xxd a b c"),
        GrammarError::RefusedOperand { .. }
    ));
    assert_eq!(paths("tree"), vec![p(".", ReadTree)]);
    assert_eq!(paths("tree -L 2 d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("tree -aL 2 d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("tree -LP 2 *.php d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("tree --filelimit 5 d"), vec![p("d", ReadTree)]);
    assert_eq!(paths("tree --charset=utf-8"), vec![p(".", ReadTree)]);
    assert_eq!(
        paths("tree --gitfile ig d"),
        vec![p("ig", Read), p("d", ReadTree)]
    );
    refused_option("tree -o out", "-o");
    refused_option("tree -aR", "-R");
    refused_option("tree --fromfile", "--fromfile");
    unknown("tree --dirsf");
    for pager in ["less", "more"] {
        assert!(matches!(
            err(&format!("{pager} f")),
            GrammarError::RefusedProgram { .. }
        ));
    }
    assert!(parse("python3", &[]).is_none());
}

#[test]
fn git_global_options_and_subcommands() {
    let parsed = ok("git status");
    assert_eq!(
        parsed.argv[..3],
        ["git", "--no-pager", "--no-optional-locks"]
    );
    for c in git::CONFIG_OVERRIDES {
        assert!(
            parsed.argv.windows(2).any(|w| w[0] == "-c" && w[1] == *c),
            "{c}"
        );
    }
    assert_eq!(parsed.argv.last().map(String::as_str), Some("status"));
    assert_eq!(
        parsed.paths,
        vec![PathArg {
            text: ".".into(),
            base: None,
            usage: ReadTree
        }]
    );
    assert_eq!(paths("git -C app status"), vec![pb(".", "app", ReadTree)]);
    assert_eq!(
        paths("git -C /srv -C app log -- x"),
        vec![pb(".", "/srv/app", ReadTree), pb("x", "/srv/app", ReadTree)]
    );
    let parsed = ok("git --no-pager -P log --oneline");
    let sub = parsed.argv.iter().position(|a| a == "log").unwrap();
    assert_eq!(
        parsed.argv[sub + 1..sub + 3],
        ["--no-ext-diff", "--no-textconv"]
    );
    for cmd in [
        "git -c x=y status",
        "git --git-dir=/tmp status",
        "git --git-dir /tmp status",
        "git --work-tree=/ status",
        "git --literal-pathspecs log -p",
        "git --help",
        "git --exec-path",
    ] {
        assert!(
            matches!(err(cmd), GrammarError::RefusedOption { .. }),
            "{cmd}"
        );
    }
    for sub in [
        "commit",
        "push",
        "fetch",
        "pull",
        "checkout",
        "config",
        "rebase",
        "am",
        "archive",
        "submodule",
        "filter-branch",
        "cat-file",
        "reflog",
        "stash",
        "worktree",
        "l",
        "lg",
        "gc",
        "fsck",
        "bisect",
        "hook",
        "daemon",
        "send-email",
        "credential",
        "help",
    ] {
        assert!(
            matches!(
                err(&format!("git {sub}")),
                GrammarError::RefusedSubcommand { .. }
            ),
            "{sub}"
        );
    }
    // abbreviations are refused (git's own parsers would accept some)
    unknown("git log --onel");
    unknown("git log --pat");
    unknown("git status --shor");
    assert!(ok("git --version").paths.is_empty());
}

#[test]
fn git_subcommand_forms() {
    assert_eq!(
        paths("git status -s app"),
        vec![p(".", ReadTree), p("app", ReadTree)]
    );
    assert_eq!(paths("git status -sb"), vec![p(".", ReadTree)]);
    refused_option("git status -v", "-v");
    assert!(matches!(
        err("git status :(glob)x"),
        GrammarError::RefusedOperand { .. }
    ));
    assert!(matches!(
        err("git log -- :!x"),
        GrammarError::RefusedOperand { .. }
    ));
    // log: counts, values, formats
    for cmd in [
        "git log -5",
        "git log -n 5",
        "git log -n5",
        "git log --max-count=5",
        "git log --max-count 5",
        "git log --author=me --since=2.weeks",
        "git log --format=%H%x09%s",
        "git log --pretty=oneline",
        "git log --pretty",
        "git log --graph --decorate --all",
        "git log --stat=80",
        "git log --name-status HEAD~3..HEAD",
        "git log -G foo",
        "git show --stat HEAD",
        "git show -s --format=%B HEAD",
        "git diff --stat",
        "git diff -U1 HEAD~1 HEAD",
        "git diff --word-diff=color",
        "git diff --cached --name-only",
    ] {
        ok(cmd);
    }
    assert!(matches!(
        err("git log --format %H"),
        GrammarError::MissingValue { .. }
    ));
    unknown("git log -pq");
    refused_option("git log -L 1,5:f", "-L");
    refused_option("git log --full-diff -p -- x", "--full-diff");
    refused_option("git log --follow -p x", "--follow");
    refused_option("git log --show-signature", "--show-signature");
    refused_option("git diff --submodule=diff", "--submodule");
    // hexadecimal names are peeled to commits; paths in object names judged
    let parsed = ok("git show abc1234");
    assert!(parsed.argv.contains(&"abc1234^{commit}".to_string()));
    assert_eq!(parsed.roles[1], Role::Text);
    let parsed = ok("git diff abc1234 def5678");
    assert!(parsed.argv.contains(&"def5678^{commit}".to_string()));
    let parsed = ok("git log -p abc1234..HEAD");
    assert!(parsed.argv.contains(&"abc1234^{commit}..HEAD".to_string()));
    // after --, a hex word is a path
    assert!(ok("git log -- cafe").argv.contains(&"cafe".to_string()));
    assert!(matches!(
        err("git show HEAD@{1}"),
        GrammarError::RefusedOperand { .. }
    ));
    // grep: pattern first, -e/-f, options before the pattern only
    assert_eq!(
        paths("git grep -n SECRET app"),
        vec![p(".", ReadTree), p("app", ReadTree)]
    );
    assert_eq!(
        paths("git grep -f pats"),
        vec![p(".", ReadTree), p("pats", Read)]
    );
    assert_eq!(paths("git grep -in SECRET"), vec![p(".", ReadTree)]);
    assert_eq!(paths("git grep -C 2 SECRET"), vec![p(".", ReadTree)]);
    assert_eq!(paths("git grep -3 SECRET"), vec![p(".", ReadTree)]);
    assert!(matches!(
        err("git grep SECRET -n"),
        GrammarError::RefusedOperand { .. }
    ));
    refused_option("git grep --textconv x", "--textconv");
    refused_option("git grep --recurse-submodules x", "--recurse-submodules");
    // blame: one file, maybe a revision before it
    assert_eq!(
        paths("git blame -L 1,5 f"),
        vec![p(".", ReadTree), p("f", Read)]
    );
    assert_eq!(
        paths("git blame -L1,5 HEAD~1 f"),
        vec![p(".", ReadTree), p("HEAD~1", Read), p("f", Read)]
    );
    assert!(ok("git blame f")
        .argv
        .contains(&"--no-textconv".to_string()));
    // branch and tag: list forms only
    for cmd in [
        "git branch",
        "git branch -a",
        "git branch -vv",
        "git branch -r --list origin/*",
        "git branch --list m*",
        "git branch --merged",
        "git branch --merged main",
        "git branch --contains HEAD",
        "git branch --show-current",
        "git tag",
        "git tag -l",
        "git tag -l v1.*",
        "git tag --list --sort=-v:refname",
        "git tag -n",
        "git tag -n5 -l",
    ] {
        ok(cmd);
    }
    for cmd in [
        "git branch new",
        "git branch -d old",
        "git branch -D old",
        "git branch -m a b",
        "git branch --set-upstream-to=x",
        "git tag v9",
        "git tag -d v1",
        "git tag -a v2 -m x",
        "git tag -v v1",
    ] {
        assert!(
            matches!(
                err(cmd),
                GrammarError::RefusedOperand { .. } | GrammarError::UnknownOption { .. }
            ),
            "{cmd}"
        );
    }
    // `remote -v` prints remote URLs, which may carry credentials (`https://user:token@…`)
    for cmd in [
        "git remote",
        "git remote -v",
        "git remote add x y",
        "git remote show origin",
    ] {
        assert!(
            matches!(err(cmd), GrammarError::RefusedSubcommand { .. }),
            "{cmd}"
        );
    }
    // the rest of the read-only list
    assert_eq!(
        paths("git ls-files -o --exclude-standard app"),
        vec![p(".", ReadTree), p("app", ReadTree)]
    );
    assert_eq!(
        paths("git ls-files -X ex"),
        vec![p(".", ReadTree), p("ex", Read)]
    );
    assert_eq!(
        paths("git ls-tree -r HEAD app"),
        vec![p(".", ReadTree), p("HEAD", ReadTree), p("app", ReadTree)]
    );
    ok("git rev-parse --show-toplevel");
    ok("git rev-parse --abbrev-ref HEAD");
    ok("git rev-parse --short HEAD");
    ok("git describe --tags --always");
    ok("git shortlog -sn --all");
    assert!(ok("git shortlog -sn").paths.len() == 1);
    assert!(ok("git shortlog -sn").reads_stdin);
    assert!(!ok("git shortlog -sn HEAD").reads_stdin);
}

#[test]
fn exclusions_cover_the_blocked_tables() {
    let ex = git::exclusion_pathspecs();
    for must in [
        ":(top,exclude,glob,icase)**/.env",
        ":(top,exclude,glob,icase)**/.env.*",
        ":(top,exclude,glob,icase)**/wp-config.php",
        ":(top,exclude,glob,icase)**/wp-config.php~",
        ":(top,exclude,glob,icase)**/id_rsa.*",
        ":(top,exclude,glob,icase)**/*.pem",
        ":(top,exclude,glob,icase)**/*.key.*",
        ":(top,exclude,glob,icase)**/.ssh/**",
        ":(top,exclude,glob,icase)**/wp-admin",
    ] {
        assert!(ex.iter().any(|e| e == must), "{must}");
    }
    assert!(ex.iter().all(|e| !e.contains(' ')));
}

#[test]
fn a_dash_is_standard_input_only_where_the_program_says_so() {
    for cmd in [
        "cat -", "grep x -", "sort -", "wc -", "stat -", "diff - f", "awk 1 -", "sed 1p -",
        "xxd -", "file -",
    ] {
        let parsed = ok(cmd);
        assert!(parsed.reads_stdin, "{cmd}");
        assert!(parsed.paths.iter().all(|p| p.text != "-"), "{cmd}");
    }
    assert!(ok("touch -").paths.is_empty());
    assert_eq!(paths("ls -"), vec![p("-", Read)]);
    assert_eq!(paths("cp - x"), vec![p("-", Read), p("x", Write)]);
    assert_eq!(paths("mkdir -"), vec![p("-", Write)]);
    assert_eq!(paths("df -"), vec![p("-", Read)]);
    assert_eq!(paths("hexdump -"), vec![p("-", Read)]);
    assert_eq!(paths("tree -"), vec![p("-", ReadTree)]);
}

#[test]
fn never_panics_on_odd_input() {
    let odd = [
        "", "-", "--", "---", "-=", "--=", "=", "é", "-é", "--é", "-\u{0}", ":", "::", ":0:", "@",
        "+", "+é", "-5é", "-cé",
    ];
    let programs = [
        "grep", "egrep", "rgrep", "rg", "git", "tar", "diff", "sed", "awk", "mawk", "gawk", "ls",
        "cat", "head", "tail", "wc", "sort", "uniq", "cp", "xxd", "tree", "date", "hostname",
        "strings", "od", "echo",
    ];
    for prog in programs {
        for a in odd {
            for b in odd {
                let args = vec![a.to_string(), b.to_string()];
                let _ = parse(prog, &args);
                let _ = parse(prog, &args[..1]);
            }
            let args = vec!["status".to_string(), a.to_string()];
            let _ = parse(prog, &args);
        }
        let _ = parse(prog, &[]);
    }
}

#[test]
fn messages_say_what_to_do() {
    assert_eq!(
        err("git grep --no-index x").to_string(),
        "Option '--no-index' is not allowed for 'git grep': it compares files outside the repository; use diff."
    );
    assert_eq!(
        err("grep --fi x").to_string(),
        "Option '--fi' is ambiguous for 'grep' (it abbreviates several options): write the option name in full."
    );
    assert!(err("git cat-file -p x")
        .to_string()
        .starts_with("'git cat-file' is not allowed"));
    assert_eq!(
        err("tail -f log").to_string(),
        "Option '-f' is not allowed for 'tail': it never ends (it waits for the file to grow)."
    );
}
