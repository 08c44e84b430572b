//! The other readers and informational programs Debian 12 ships: binutils 2.40 `strings`,
//! util-linux 2.38.1 `hexdump`, file 5.44, xxd 2022-01-14 (vim), procps 4.0.2 `uptime`,
//! hostname 3.23, tree 2.1.0; and the pagers, refused.
//!
//! Sources: for the getopt_long programs (strings, hexdump, file, uptime, hostname) the
//! optstring and `struct option` array as the Debian 12 binary passes them (compared with the
//! installed binary by the `real_programs` test), meanings from `--help`; for xxd and tree,
//! their own argument loops (`xxd.c` main, `tree.c` main of those versions) and `-h`/`--help`.

use super::Arg::{No, Opt, Req};
use super::{
    files, o, refused, refused_operand, scan, texts, why, Does, GrammarError, Order, Out, Parsed,
    Role, Row, Spec, Use, N, X,
};

pub(super) fn parse(program: &str, args: &[String]) -> Option<Result<Parsed, GrammarError>> {
    let spec = |name, rows| Spec {
        name,
        rows,
        order: Order::Permute,
        abbrev: true,
    };
    Some(match program {
        "strings" => strings(args),
        "hexdump" => {
            // hexdump gives `-` no special meaning: it is a file
            let mut out = Out::new("hexdump", args);
            scan(&spec("hexdump", HEXDUMP), args, 0, &mut out).map(|s| {
                let ops = s.operands();
                if ops.is_empty() {
                    out.reads_stdin = true;
                }
                for (token, text) in ops {
                    out.operand_file(token, text, None, Use::Read);
                }
                out.finish()
            })
        }
        "file" => readers(&spec("file", FILE), args),
        "uptime" => {
            let mut out = Out::new("uptime", args);
            scan(&spec("uptime", UPTIME), args, 0, &mut out).map(|s| {
                texts(&mut out, &s.operands());
                out.finish()
            })
        }
        "hostname" => hostname(args),
        "xxd" => xxd(args),
        "tree" => tree(args),
        "less" | "more" | "most" | "pg" => Err(GrammarError::RefusedProgram {
            program: program.to_string(),
            why: "pagers can run commands; read files with cat, head or tail",
        }),
        _ => return None,
    })
}

fn readers(spec: &Spec, args: &[String]) -> Result<Parsed, GrammarError> {
    let mut out = Out::new(spec.name, args);
    let s = scan(spec, args, 0, &mut out)?;
    files(&mut out, &s.operands(), Use::Read);
    Ok(out.finish())
}

/// binutils expands `@FILE` in any argument into more arguments read from FILE.
fn strings(args: &[String]) -> Result<Parsed, GrammarError> {
    if let Some(a) = args.iter().find(|a| a.starts_with('@')) {
        return Err(refused_operand("strings", a, why::FILE_LIST));
    }
    readers(
        &Spec {
            name: "strings",
            rows: STRINGS,
            order: Order::Permute,
            abbrev: true,
        },
        args,
    )
}

/// Reading only: an operand, `-F`/`--file` and `-b`/`--boot` set the host name.
fn hostname(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "hostname",
        rows: HOSTNAME,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("hostname", args);
    let s = scan(&spec, args, 0, &mut out)?;
    if let Some((_, text)) = s.operands().first() {
        return Err(refused_operand("hostname", text, "it sets the host name"));
    }
    Ok(out.finish())
}

/// xxd.c: an option is recognised by its first two characters (`--x` is `-x`); `-c -g -l
/// -n -o -s` take the rest of the argument, or the next one when the rest is empty or
/// spells the option's long name (`-cols 8`); options end at the first operand, `--`, or
/// `-`; then `[infile [outfile]]`, the outfile written.
fn xxd(args: &[String]) -> Result<Parsed, GrammarError> {
    const FLAGS: &str = "abeupiCdrEv";
    const VALUES: [(char, &str); 6] = [
        ('c', "ols"),
        ('g', "roup"),
        ('o', "ffset"),
        ('l', "en"),
        ('n', "ame"),
        ('s', "kip"),
    ];
    let mut out = Out::new("xxd", args);
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let pp = match arg.strip_prefix('-') {
            Some(rest) if rest.starts_with('-') && rest.len() > 1 => rest,
            _ => arg.as_str(),
        };
        if pp == "--" {
            out.role(i, Role::EndOfOptions);
            i += 1;
            break;
        }
        let mut chars = pp.chars();
        let (Some('-'), Some(c)) = (chars.next(), chars.next()) else {
            break;
        };
        let rest = chars.as_str();
        if FLAGS.contains(c) {
            out.role(i, Role::Option);
        } else if let Some((_, word)) = VALUES.iter().find(|(v, _)| *v == c) {
            out.role(i, Role::Option);
            let capitalize = c == 'c' && rest.starts_with("apitalize");
            let spelled = rest.starts_with(word) || (c == 's' && rest.starts_with("eek"));
            if !capitalize && (rest.is_empty() || spelled) {
                if args.get(i + 1).is_none() {
                    return Err(GrammarError::MissingValue {
                        program: "xxd".into(),
                        option: arg.clone(),
                    });
                }
                i += 1;
                out.role(i, Role::Value);
            }
        } else {
            return Err(GrammarError::UnknownOption {
                program: "xxd".into(),
                option: arg.clone(),
            });
        }
        i += 1;
    }
    let operands: Vec<usize> = (i..args.len()).collect();
    if operands.len() > 2 {
        let extra = args.get(i + 2).cloned().unwrap_or_default();
        return Err(refused_operand(
            "xxd",
            &extra,
            "xxd takes at most an input and an output file",
        ));
    }
    match operands.first() {
        Some(&k) => out.operand_path(k, args.get(k).map_or("", String::as_str), None, Use::Read),
        None => out.reads_stdin = true,
    }
    if let Some(&k) = operands.get(1) {
        out.operand_path(k, args.get(k).map_or("", String::as_str), None, Use::Write);
    }
    Ok(out.finish())
}

/// tree.c 2.1.0: options anywhere before `--`; in a cluster, each letter that takes a value
/// takes the next argument (`-LP 2 pat`); long options exact, valued ones as `--x=v` or
/// `--x v`; operands are folders walked (none: `.`).
fn tree(args: &[String]) -> Result<Parsed, GrammarError> {
    const FLAGS: &str = "adlfxqNQpugshDFvtcUriASnCXJ";
    const VALUED: &str = "LPIHT";
    const LONG_FLAGS: &[&str] = &[
        "gitignore",
        "matchdirs",
        "metafirst",
        "ignore-case",
        "nolinks",
        "inodes",
        "device",
        "dirsfirst",
        "filesfirst",
        "si",
        "du",
        "prune",
        "fflinks",
        "info",
        "noreport",
        "version",
        "help",
    ];
    const LONG_VALUES: &[&str] = &["sort", "charset", "timefmt", "filelimit"];
    const LONG_FILES: &[&str] = &["gitfile", "infofile", "hintro", "houtro"];
    let mut out = Out::new("tree", args);
    let mut dirs = Vec::new();
    let mut options = true;
    let mut n = 0;
    while let Some(arg) = args.get(n) {
        let i = n;
        n += 1;
        if !options || !arg.starts_with('-') || arg.len() < 2 {
            dirs.push(i);
            continue;
        }
        if arg == "--" {
            options = false;
            out.role(i, Role::EndOfOptions);
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((a, b)) => (a, Some(b)),
                None => (long, None),
            };
            let shown = format!("--{name}");
            match name {
                "fromfile" => return Err(refused("tree", &shown, why::FILE_LIST)),
                _ if LONG_FLAGS.contains(&name) && value.is_none() => out.role(i, Role::Option),
                _ if LONG_VALUES.contains(&name) || LONG_FILES.contains(&name) => {
                    let file = LONG_FILES.contains(&name);
                    match value {
                        Some(v) if file => out.value_path(i, None, v, None, Use::Read),
                        Some(_) => out.role(i, Role::Option),
                        None => {
                            let Some(v) = args.get(n) else {
                                return Err(GrammarError::MissingValue {
                                    program: "tree".into(),
                                    option: shown,
                                });
                            };
                            if file {
                                out.value_path(i, Some(n), v, None, Use::Read);
                            } else {
                                out.option(i, Some(n));
                            }
                            n += 1;
                        }
                    }
                }
                _ => {
                    return Err(GrammarError::UnknownOption {
                        program: "tree".into(),
                        option: shown,
                    })
                }
            }
            continue;
        }
        out.role(i, Role::Option);
        for c in arg.chars().skip(1) {
            if FLAGS.contains(c) {
                continue;
            }
            if c == 'o' {
                return Err(refused("tree", "-o", why::WRITES));
            }
            if c == 'R' {
                return Err(refused("tree", "-R", "with -H it writes 00Tree.html files"));
            }
            if VALUED.contains(c) {
                if args.get(n).is_none() {
                    return Err(GrammarError::MissingValue {
                        program: "tree".into(),
                        option: format!("-{c}"),
                    });
                }
                out.role(n, Role::Value);
                n += 1;
                continue;
            }
            return Err(GrammarError::UnknownOption {
                program: "tree".into(),
                option: format!("-{c}"),
            });
        }
    }
    if dirs.is_empty() {
        out.path(".", None, Use::ReadTree);
    }
    for i in dirs {
        if let Some(d) = args.get(i) {
            out.operand_file(i, d, None, Use::ReadTree);
        }
    }
    Ok(out.finish())
}

/// strings (binutils 2.40).
pub(super) const STRINGS: &[Row] = &[
    o('a', "all", No, N),
    o('n', "bytes", Req, N),
    o('d', "data", No, N),
    o('e', "encoding", Req, N),
    o('h', "help", No, N),
    o('w', "include-all-whitespace", No, N),
    o('s', "output-separator", Req, N),
    o('f', "print-file-name", No, N),
    o('t', "radix", Req, N),
    o('T', "target", Req, N),
    o('U', "unicode", Req, N),
    o('v', "version", No, N),
    o('H', "", No, Does::Refuse(why::UNDOCUMENTED)),
    o('o', "", No, N),
    o('V', "", No, N),
    o('0', "", No, N),
    o('1', "", No, N),
    o('2', "", No, N),
    o('3', "", No, N),
    o('4', "", No, N),
    o('5', "", No, N),
    o('6', "", No, N),
    o('7', "", No, N),
    o('8', "", No, N),
    o('9', "", No, N),
];

/// hexdump (util-linux 2.38.1).
pub(super) const HEXDUMP: &[Row] = &[
    o('b', "one-byte-octal", No, N),
    o('c', "one-byte-char", No, N),
    o('C', "canonical", No, N),
    o('d', "two-bytes-decimal", No, N),
    o('o', "two-bytes-octal", No, N),
    o('x', "two-bytes-hex", No, N),
    o('e', "format", Req, N),
    o(
        'f',
        "format-file",
        Req,
        Does::Refuse("it reads formats from a file and prints them in its errors"),
    ),
    o('L', "color", Opt, N),
    o('n', "length", Req, N),
    o('s', "skip", Req, N),
    o('v', "no-squeezing", No, N),
    o('h', "help", No, N),
    o('V', "version", No, N),
];

/// file 5.44.
pub(super) const FILE: &[Row] = &[
    o(X, "help", No, N),
    o('v', "version", No, N),
    o(
        'm',
        "magic-file",
        Req,
        Does::Refuse("it reads magic definitions from a file"),
    ),
    o(
        'z',
        "uncompress",
        No,
        Does::Refuse("it runs decompression programs"),
    ),
    o(
        'Z',
        "uncompress-noreport",
        No,
        Does::Refuse("it runs decompression programs"),
    ),
    o('b', "brief", No, N),
    o('c', "checking-printout", No, N),
    o('e', "exclude", Req, N),
    o(X, "exclude-quiet", Req, N),
    o('f', "files-from", Req, Does::Refuse(why::FILE_LIST)),
    o('F', "separator", Req, N),
    o('i', "mime", No, N),
    o(X, "apple", No, N),
    o(X, "extension", No, N),
    o(X, "mime-type", No, N),
    o(X, "mime-encoding", No, N),
    o('k', "keep-going", No, N),
    o('l', "list", No, N),
    o('L', "dereference", No, N),
    o('h', "no-dereference", No, N),
    o('n', "no-buffer", No, N),
    o('N', "no-pad", No, N),
    o('0', "print0", No, N),
    o('p', "preserve-date", No, N),
    o('P', "parameter", Req, N),
    o('r', "raw", No, N),
    o('s', "special-files", No, N),
    o(
        'S',
        "no-sandbox",
        No,
        Does::Refuse("it turns off file's own sandbox"),
    ),
    o('C', "compile", No, Does::Refuse(why::WRITES)),
    o('d', "debug", No, N),
    o('E', "", No, N),
];

/// uptime (procps 4.0.2).
pub(super) const UPTIME: &[Row] = &[
    o('p', "pretty", No, N),
    o('h', "help", No, N),
    o('s', "since", No, N),
    o('V', "version", No, N),
];

/// hostname 3.23.
pub(super) const HOSTNAME: &[Row] = &[
    o('d', "domain", No, N),
    o('b', "boot", No, Does::Refuse("it sets the host name")),
    o('F', "file", Req, Does::Refuse("it sets the host name")),
    o('f', "fqdn|long", No, N),
    o('A', "all-fqdns", No, N),
    o('h', "help", No, N),
    o('s', "short", No, N),
    o('V', "version", No, N),
    o('a', "alias", No, N),
    o('i', "ip-address", No, N),
    o('I', "all-ip-addresses", No, N),
    o('y', "nis|yp", No, N),
    o('?', "", No, N),
];

#[cfg(test)]
pub(super) const TABLES: &[(&str, &[Row])] = &[
    ("strings", STRINGS),
    ("hexdump", HEXDUMP),
    ("file", FILE),
    ("uptime", UPTIME),
    ("hostname", HOSTNAME),
];
