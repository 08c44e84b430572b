//! Fuzzing the shell argument grammars: argvs built from each program's option spellings,
//! values and paths (and arbitrary strings) must never panic or hang, and every accepted argv
//! is fully accounted for:
//! - one role per input argument;
//! - an argument read as a path is in `paths` (as written, or as the path part of a git
//!   object name), an option with an attached path has that path in `paths`;
//! - a value follows the option (or key cluster) that takes it;
//! - every reported path comes from the argv (or is the implicit `.`);
//! - the argv to run keeps the input arguments in order (git may peel `abc123` to
//!   `abc123^{commit}`) after the program and any inserted safety options.
//!
//! Case count: proptest's default (256), or `PROPTEST_CASES` for long runs.

use std::time::{Duration, Instant};

use phpclaw::core::security::shell_policy::grammar::{parse, Parsed, Role};
use proptest::prelude::*;

const SLOW: Duration = Duration::from_secs(2);

/// Option spellings per program (valid, abbreviated, refused and made-up ones).
const VOCAB: &[(&str, &[&str])] = &[
    (
        "grep",
        &[
            "-r",
            "-R",
            "-e",
            "-f",
            "-m",
            "-A",
            "-C",
            "-rh",
            "-rm",
            "-m5",
            "-d",
            "-drecurse",
            "--directories=recurse",
            "--recur",
            "--max-count",
            "--file",
            "--file=p",
            "-i",
            "-l",
            "-c",
            "--color",
            "--colour=always",
            "--exclude-from",
            "--include=*.php",
            "-5",
            "-E",
            "-F",
            "--fi",
            "-X",
            "--",
            "-",
        ],
    ),
    (
        "rg",
        &[
            "-e",
            "-f",
            "-f=p",
            "--file==p",
            "--files",
            "-m",
            "-m5",
            "--hidden",
            "--no-ignore",
            "-uuu",
            "-g",
            "--glob",
            "-t",
            "--pre",
            "-z",
            "--ignore-file",
            "--type-list",
            "-i",
            "--",
            "-",
        ],
    ),
    (
        "git",
        &[
            "status",
            "log",
            "show",
            "diff",
            "grep",
            "blame",
            "branch",
            "tag",
            "ls-files",
            "ls-tree",
            "rev-parse",
            "shortlog",
            "describe",
            "remote",
            "cat-file",
            "-C",
            "-c",
            "--no-pager",
            "-p",
            "--stat",
            "-U3",
            "-n",
            "-5",
            "--format=%H",
            "--cached",
            "--no-index",
            "-O",
            "-e",
            "-f",
            "--list",
            "-l",
            "-v",
            "--",
            "HEAD",
            "HEAD~1",
            "HEAD:.env",
            ":wp-config.php",
            ":0:x",
            "abc1234",
            "abc1..def2",
            ":(glob)x",
            "--merged",
            "--contains",
            "-S",
            "--follow",
        ],
    ),
    (
        "tar",
        &[
            "cf",
            "cIf",
            "xf",
            "tvf",
            "cCf",
            "-c",
            "-x",
            "-t",
            "-d",
            "-r",
            "-f",
            "-cf",
            "-xf",
            "-C",
            "-C/etc",
            "--directory=/etc",
            "--dir",
            "-T",
            "-I",
            "--use-comp",
            "-O",
            "-P",
            "-z",
            "--add-file",
            "-N",
            "--newer=./r",
            "--force-local",
            "--to-command=x",
            "--exclude=*.env",
            "-X",
            "--",
            "-",
        ],
    ),
    (
        "diff",
        &[
            "-r",
            "-N",
            "-u",
            "-U",
            "-U3",
            "-C",
            "--context",
            "--from-file",
            "--from-file=.",
            "--to",
            "-x",
            "-X",
            "-l",
            "--paginate",
            "-5",
            "--",
            "-",
        ],
    ),
    (
        "sort",
        &[
            "-o",
            "-oout",
            "--output=o",
            "-T",
            "-k",
            "-t",
            "--files0-from=l",
            "--compress-program=x",
            "--random-source",
            "+1",
            "-2",
            "-n",
            "-r",
            "--",
            "-",
        ],
    ),
    (
        "sed",
        &[
            "-n",
            "-e",
            "-f",
            "-i",
            "-i.bak",
            "--in-place",
            "--in-place=.b",
            "-E",
            "-s",
            "--sandbox",
            "--s",
            "-z",
            "-l",
            "--",
            "-",
        ],
    ),
    (
        "awk",
        &[
            "-F", "-F:", "-v", "-vx=1", "-f", "-W", "--load", "--", "-", "x=1", "NF",
        ],
    ),
    (
        "gawk",
        &[
            "-F",
            "-v",
            "-e",
            "--source=NF",
            "-f",
            "--file",
            "-i",
            "-l",
            "-E",
            "-o",
            "-p",
            "--s",
            "--sandbox",
            "-W",
            "--",
            "x=1",
            "NF",
        ],
    ),
    (
        "ls",
        &[
            "-la",
            "-R",
            "--recursive",
            "-I",
            "-w",
            "-w80",
            "--color",
            "--sort=time",
            "-d",
            "--",
            "-",
        ],
    ),
    ("cat", &["-n", "-A", "-v", "--", "-"]),
    (
        "head",
        &["-5", "-5c", "-n", "-c", "-n5", "--lines=3", "-q", "--", "-"],
    ),
    (
        "tail",
        &[
            "-5", "+5", "-f", "-F", "-n", "-c", "--follow", "--retry", "-s", "--", "-",
        ],
    ),
    ("wc", &["-l", "-c", "--files0-from=x", "--", "-"]),
    ("uniq", &["-c", "-2", "+3", "-f", "-s", "--", "-"]),
    (
        "cp",
        &[
            "-r",
            "-a",
            "-t",
            "--target-directory=d",
            "-S",
            "-T",
            "--",
            "-",
        ],
    ),
    (
        "xxd",
        &[
            "-l", "-l16", "-len", "-c", "-cols", "-s", "-r", "-ps", "--ps", "--", "-",
        ],
    ),
    (
        "tree",
        &[
            "-L",
            "-aL",
            "-P",
            "-o",
            "-R",
            "--gitfile",
            "--filelimit",
            "--fromfile",
            "--",
            "-a",
        ],
    ),
    (
        "date",
        &["+%s", "-d", "-f", "-r", "-s", "--set", "-u", "--", "0101"],
    ),
    ("hostname", &["-f", "-F", "-b", "-I", "--fqdn", "name"]),
    ("strings", &["-n", "-8", "@x", "-a", "--"]),
    ("od", &["-A", "-t", "-w", "-w8", "+10", "--"]),
    ("egrep", &["-r", "-e", "--"]),
    ("rgrep", &["-d", "read", "--"]),
];

/// Values and paths, sensitive ones included.
const WORDS: &[&str] = &[
    "5",
    "0",
    "x",
    "SECRET",
    "recurse",
    "read",
    ".env",
    "wp-config.php",
    "/etc",
    "/etc/passwd",
    "app",
    "app/.ssh/id_rsa",
    "./a:b",
    "host:x.tar",
    "a=b",
    "=x",
    "--=x",
    "-",
    "é",
    "",
];

fn argv_for(prog_index: usize) -> impl Strategy<Value = (String, Vec<String>)> {
    let (program, options) = VOCAB[prog_index % VOCAB.len()];
    let token = prop_oneof![
        3 => proptest::sample::select(options).prop_map(str::to_string),
        3 => proptest::sample::select(WORDS).prop_map(str::to_string),
        1 => "[-a-zA-Z0-9=:.+/@é]{0,6}",
    ];
    proptest::collection::vec(token, 0..8).prop_map(move |args| {
        (
            program.to_string(),
            args.into_iter().filter(|a| !a.is_empty()).collect(),
        )
    })
}

fn check(program: &str, args: &[String], parsed: &Parsed) -> Result<(), TestCaseError> {
    prop_assert_eq!(parsed.roles.len(), args.len());
    // every path comes from the argv
    for p in &parsed.paths {
        prop_assert!(
            p.text == "." || args.iter().any(|a| a.ends_with(&p.text)),
            "invented path {:?}",
            p
        );
    }
    for (i, (arg, role)) in args.iter().zip(&parsed.roles).enumerate() {
        match role {
            Role::Path => prop_assert!(
                parsed.paths.iter().any(|p| *arg == p.text
                    || arg.ends_with(&format!(":{}", p.text))
                    || arg.ends_with(&p.text)),
                "{:?} is a path but not in paths",
                arg
            ),
            Role::OptionPath => prop_assert!(
                parsed
                    .paths
                    .iter()
                    .any(|p| !p.text.is_empty() && arg.ends_with(&p.text)),
                "{:?} carries a path not in paths",
                arg
            ),
            Role::Value => prop_assert!(
                i > 0
                    && matches!(
                        parsed.roles[i - 1],
                        Role::Option
                            | Role::OptionPath
                            | Role::Command
                            | Role::Value
                            | Role::Path
                            | Role::Stdio
                    ),
                "{:?} is a value after {:?}",
                arg,
                parsed.roles.get(i.wrapping_sub(1))
            ),
            Role::Stdio => prop_assert!(arg == "-" || arg.ends_with('-')),
            Role::EndOfOptions => prop_assert_eq!(arg.as_str(), "--"),
            Role::Option | Role::Text | Role::Command => {}
        }
    }
    // the input arguments, in order, after the program and any inserted options
    let expected_program = match program {
        "egrep" | "fgrep" | "rgrep" => "grep",
        p => p,
    };
    prop_assert_eq!(
        parsed.argv.first().map(String::as_str),
        Some(expected_program)
    );
    let mut rest = parsed.argv.iter().skip(1);
    for arg in args {
        let peeled = format!("{arg}^{{commit}}");
        let found =
            rest.any(|a| a == arg || a == &peeled || (program == "git" && a.contains("^{commit}")));
        prop_assert!(found, "{:?} missing from {:?}", arg, parsed.argv);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn grammars_account_for_every_argument(
        (program, args) in (0usize..VOCAB.len()).prop_flat_map(argv_for)
    ) {
        let start = Instant::now();
        let result = parse(&program, &args);
        prop_assert!(start.elapsed() < SLOW);
        let Some(result) = result else {
            return Err(TestCaseError::fail(format!("no grammar for {program}")));
        };
        if let Ok(parsed) = &result {
            check(&program, &args, parsed)?;
        } else if let Err(e) = &result {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn arbitrary_strings_never_panic(
        program in "(grep|rg|git|tar|diff|sed|awk|gawk|mawk|ls|head|tail|sort|uniq|xxd|tree|cp|date|[a-z]{1,5})",
        args in proptest::collection::vec(".{0,12}", 0..6),
    ) {
        let start = Instant::now();
        if let Some(Ok(parsed)) = parse(&program, &args) {
            prop_assert_eq!(parsed.roles.len(), args.len());
        }
        prop_assert!(start.elapsed() < SLOW);
    }
}

/// The red team's recursive greps, however spelled, read the cwd.
#[test]
fn red_team_spellings() {
    for cmd in [
        "grep -r -e SECRET -e x",
        "grep -r -m 5 SECRET",
        "grep -rh -A 0 SECRET",
        "rg --hidden --no-ignore -e SECRET -e x",
    ] {
        let mut words = cmd.split_whitespace().map(str::to_string);
        let program = words.next().unwrap_or_default();
        let args: Vec<String> = words.collect();
        let parsed = parse(&program, &args).and_then(Result::ok);
        let paths = parsed.map(|p| p.paths).unwrap_or_default();
        assert!(paths.iter().any(|p| p.text == "."), "{cmd}: {paths:?}");
    }
}
