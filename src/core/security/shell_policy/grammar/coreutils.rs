//! GNU coreutils 9.1 (Debian 12): ls/dir/vdir, cat, head, tail, wc, sort, tac, nl, uniq, cut,
//! paste, tr, od, stat, basename, dirname, echo, printf, true, false, pwd, df, date, whoami,
//! id, cp, mkdir, touch.
//!
//! Source of every table: the program's `getopt_long` optstring and `struct option` array as
//! the Debian 12 binary passes them (read with an LD_PRELOAD shim that prints them; the
//! `real_programs` test compares each table with the installed binary), the meanings from
//! each program's `--help`. Aliases in one row (`quiet|silent`) are one getopt option.

use super::Arg::{No, Opt, Req};
use super::{
    files, o, refused_operand, scan, texts, why, Does, Ev, GrammarError, Order, Out, Parsed, Role,
    Row, Spec, Use, N, X,
};

const RECURSIVE: u32 = 1;
const FOLLOW: u32 = 2;

pub(super) fn parse(program: &str, args: &[String]) -> Option<Result<Parsed, GrammarError>> {
    let spec = |name, rows, order| Spec {
        name,
        rows,
        order,
        abbrev: true,
    };
    let permute = Order::Permute;
    Some(match program {
        "ls" => ls(&spec("ls", LS, permute), args),
        "dir" => ls(&spec("dir", LS, permute), args),
        "vdir" => ls(&spec("vdir", LS, permute), args),
        "cat" => readers(&spec("cat", CAT, permute), args),
        "head" => head(args),
        "tail" => tail(args),
        "wc" => readers(&spec("wc", WC, permute), args),
        // sort's optstring starts with '-' (operands in order): the same reading here, as
        // its obsolete `+POS1 -POS2` keys need a `-DIGIT` option sort does not have (refused).
        "sort" => readers(&spec("sort", SORT, permute), args),
        "tac" => readers(&spec("tac", TAC, permute), args),
        "nl" => readers(&spec("nl", NL, permute), args),
        "uniq" => uniq(args),
        "cut" => readers(&spec("cut", CUT, permute), args),
        "paste" => readers(&spec("paste", PASTE, permute), args),
        "tr" => no_paths(&spec("tr", TR, Order::Posix), args),
        // od's traditional `[+]OFFSET[.][b]` operands are reported as paths too (judging a
        // number that names nothing only costs a look-up).
        "od" => readers(&spec("od", OD, permute), args),
        "stat" => readers(&spec("stat", STAT, permute), args),
        "basename" => no_paths(&spec("basename", BASENAME, Order::Posix), args),
        "dirname" => no_paths(&spec("dirname", DIRNAME, permute), args),
        "pwd" => no_paths(&spec("pwd", PWD, permute), args),
        "whoami" => no_paths(&spec("whoami", WHOAMI, permute), args),
        "id" => no_paths(&spec("id", ID, permute), args),
        "df" => df(args),
        "date" => date(args),
        "cp" => cp(args),
        "mkdir" => writers(&spec("mkdir", MKDIR, permute), args),
        "touch" => writers(&spec("touch", TOUCH, permute), args),
        // No option parsing at all (coreutils echo, printf, true, false read `--help` and
        // `--version` only as the sole argument): every argument is text.
        "echo" | "printf" | "true" | "false" => {
            let mut out = Out::new(program, args);
            for i in 0..args.len() {
                out.role(i, Role::Text);
            }
            Ok(out.finish())
        }
        _ => return None,
    })
}

/// Operands are files read; none: standard input.
fn readers(spec: &Spec, args: &[String]) -> Result<Parsed, GrammarError> {
    let mut out = Out::new(spec.name, args);
    let s = scan(spec, args, 0, &mut out)?;
    files(&mut out, &s.operands(), Use::Read);
    Ok(out.finish())
}

/// Operands are files or folders created or changed (touch's `-` is standard output,
/// mkdir's a folder named `-`).
fn writers(spec: &Spec, args: &[String]) -> Result<Parsed, GrammarError> {
    let mut out = Out::new(spec.name, args);
    let s = scan(spec, args, 0, &mut out)?;
    for (token, text) in s.operands() {
        if spec.name == "touch" {
            out.operand_path(token, text, None, Use::Write);
        } else {
            out.operand_file(token, text, None, Use::Write);
        }
    }
    Ok(out.finish())
}

/// No operand names a file.
fn no_paths(spec: &Spec, args: &[String]) -> Result<Parsed, GrammarError> {
    let mut out = Out::new(spec.name, args);
    let s = scan(spec, args, 0, &mut out)?;
    texts(&mut out, &s.operands());
    Ok(out.finish())
}

fn ls(spec: &Spec, args: &[String]) -> Result<Parsed, GrammarError> {
    let mut out = Out::new(spec.name, args);
    let s = scan(spec, args, 0, &mut out)?;
    let usage = if s.has(RECURSIVE) {
        Use::ReadTree
    } else {
        Use::Read
    };
    // ls gives `-` no special meaning: it is a file
    let ops = s.operands();
    if ops.is_empty() {
        out.path(".", None, usage);
    }
    for (token, text) in ops {
        out.operand_file(token, text, None, usage);
    }
    Ok(out.finish())
}

/// `head -NUM[bkmcqlvz]` as the first argument (head.c: the obsolete form, checked before
/// getopt; any other trailing letter is an error).
fn head(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "head",
        rows: HEAD,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("head", args);
    let mut from = 0;
    if let Some(first) = args.first() {
        let b = first.as_bytes();
        if b.first() == Some(&b'-') && b.get(1).is_some_and(u8::is_ascii_digit) {
            let letters = first
                .trim_start_matches('-')
                .trim_start_matches(|c: char| c.is_ascii_digit());
            if let Some(bad) = letters.chars().find(|c| !"cbkmlqvz".contains(*c)) {
                return Err(GrammarError::UnknownOption {
                    program: "head".into(),
                    option: format!("-{bad}"),
                });
            }
            out.role(0, Role::Option);
            from = 1;
        }
    }
    let s = scan(&spec, args, from, &mut out)?;
    files(&mut out, &s.operands(), Use::Read);
    Ok(out.finish())
}

/// tail.c `parse_obsolete_option` with `_POSIX2_VERSION` unset (200809: `+NUM` and `-NUM`
/// both accepted), then getopt from the second argument.
fn tail_obsolete(args: &[String]) -> Result<bool, GrammarError> {
    let argc = args.len() + 1;
    let second = args.get(1).map(String::as_str);
    let shape_ok = argc == 2
        || (argc == 3 && !second.is_some_and(|s| s.len() > 1 && s.starts_with('-')))
        || ((3..=4).contains(&argc) && second == Some("--"));
    let Some(first) = args.first().filter(|_| shape_ok) else {
        return Ok(false);
    };
    let b = first.as_bytes();
    let mut p = 1;
    match b.first() {
        Some(b'+') => {}
        Some(b'-') => {
            let skip = usize::from(b.get(1) == Some(&b'c'));
            if b.get(1 + skip).is_none() {
                return Ok(false);
            }
        }
        _ => return Ok(false),
    }
    while b.get(p).is_some_and(u8::is_ascii_digit) {
        p += 1;
    }
    if matches!(b.get(p), Some(b'b' | b'c' | b'l')) {
        p += 1;
    }
    let forever = b.get(p) == Some(&b'f');
    if forever {
        p += 1;
    }
    if p != b.len() {
        return Ok(false);
    }
    if forever {
        return Err(super::refused("tail", first, why::NEVER_ENDS));
    }
    Ok(true)
}

fn tail(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "tail",
        rows: TAIL,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("tail", args);
    let from = usize::from(tail_obsolete(args)?);
    if from == 1 {
        out.role(0, Role::Option);
    }
    let s = scan(&spec, args, from, &mut out)?;
    if s.has(FOLLOW) {
        // unreachable: the rows refuse it; kept so a table edit cannot make tail wait forever
        return Err(super::refused("tail", "--follow", why::NEVER_ENDS));
    }
    files(&mut out, &s.operands(), Use::Read);
    Ok(out.finish())
}

/// `uniq [INPUT [OUTPUT]]`; `+N` (skip N characters) is an option, not a file, when
/// `_POSIX2_VERSION` is unset.
fn uniq(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "uniq",
        rows: UNIQ,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("uniq", args);
    let s = scan(&spec, args, 0, &mut out)?;
    let mut ended = false;
    let mut files_seen = 0;
    // an operand after `--` is always a file
    let end_token = args.iter().position(|a| a == "--");
    for (token, text) in s.operands() {
        ended |= end_token.is_some_and(|e| token > e);
        let skip_chars = !ended
            && text
                .strip_prefix('+')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
        if skip_chars {
            out.role(token, Role::Option);
            continue;
        }
        files_seen += 1;
        match files_seen {
            1 => out.operand_path(token, text, None, Use::Read),
            2 => out.operand_path(token, text, None, Use::Write),
            _ => {
                return Err(refused_operand(
                    "uniq",
                    text,
                    "extra operand (uniq takes an input and an output file)",
                ))
            }
        }
    }
    if files_seen == 0 {
        out.reads_stdin = true;
    }
    Ok(out.finish())
}

fn df(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "df",
        rows: DF,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("df", args);
    let s = scan(&spec, args, 0, &mut out)?;
    for (token, text) in s.operands() {
        out.operand_file(token, text, None, Use::Read);
    }
    Ok(out.finish())
}

/// `date [+FORMAT]`; an operand without `+` sets the clock (refused).
fn date(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "date",
        rows: DATE,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("date", args);
    let s = scan(&spec, args, 0, &mut out)?;
    for (token, text) in s.operands() {
        if text.starts_with('+') {
            out.role(token, Role::Text);
        } else {
            return Err(refused_operand("date", text, "it sets the system clock"));
        }
    }
    Ok(out.finish())
}

/// `cp SOURCE... DEST` or `cp -t DIR SOURCE...`; sources are read (recursively with
/// `-r`/`-R`/`-a`), the destination written.
fn cp(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "cp",
        rows: CP,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("cp", args);
    let s = scan(&spec, args, 0, &mut out)?;
    let mut target = false;
    for e in &s.events {
        if let Ev::Special {
            value: Some(v),
            token,
            value_token,
            ..
        } = e
        {
            target = true;
            out.value_path(*token, *value_token, v, None, Use::Write);
        }
    }
    let source = if s.has(RECURSIVE) {
        Use::ReadTree
    } else {
        Use::Read
    };
    let ops = s.operands();
    let dest = if target {
        None
    } else {
        ops.len().checked_sub(1).filter(|_| ops.len() > 1)
    };
    for (k, (token, text)) in ops.iter().enumerate() {
        let usage = if Some(k) == dest { Use::Write } else { source };
        out.operand_file(*token, text, None, usage);
    }
    Ok(out.finish())
}

const UNDOC: Does = Does::Refuse(why::UNDOCUMENTED);

/// ls 9.1.
const LS: &[Row] = &[
    o('a', "all", No, N),
    o('b', "escape", No, N),
    o('d', "directory", No, N),
    o('D', "dired", No, N),
    o(X, "full-time", No, N),
    o(X, "group-directories-first", No, N),
    o('h', "human-readable", No, N),
    o('i', "inode", No, N),
    o('k', "kibibytes", No, N),
    o('n', "numeric-uid-gid", No, N),
    o('G', "no-group", No, N),
    o('q', "hide-control-chars", No, N),
    o('r', "reverse", No, N),
    o('s', "size", No, N),
    o('w', "width", Req, N),
    o('A', "almost-all", No, N),
    o('B', "ignore-backups", No, N),
    o(X, "classify", Opt, N),
    o(X, "file-type", No, N),
    o(X, "si", No, N),
    o('H', "dereference-command-line", No, N),
    o(X, "dereference-command-line-symlink-to-dir", No, N),
    o(X, "hide", Req, N),
    o('I', "ignore", Req, N),
    o(X, "indicator-style", Req, N),
    o('L', "dereference", No, N),
    o('N', "literal", No, N),
    o('Q', "quote-name", No, N),
    o(X, "quoting-style", Req, N),
    o('R', "recursive", No, Does::Bit(RECURSIVE)),
    o(X, "format", Req, N),
    o(X, "show-control-chars", No, N),
    o(X, "sort", Req, N),
    o('T', "tabsize", Req, N),
    o(X, "time", Req, N),
    o(X, "time-style", Req, N),
    o(X, "zero", No, N),
    o(X, "color", Opt, N),
    o(X, "hyperlink", Opt, N),
    o(X, "block-size", Req, N),
    o('Z', "context", No, N),
    o(X, "author", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('c', "", No, N),
    o('f', "", No, N),
    o('g', "", No, N),
    o('l', "", No, N),
    o('m', "", No, N),
    o('o', "", No, N),
    o('p', "", No, N),
    o('t', "", No, N),
    o('u', "", No, N),
    o('v', "", No, N),
    o('x', "", No, N),
    o('C', "", No, N),
    o('F', "", No, N),
    o('S', "", No, N),
    o('U', "", No, N),
    o('X', "", No, N),
    o('1', "", No, N),
];

/// cat 9.1.
const CAT: &[Row] = &[
    o('b', "number-nonblank", No, N),
    o('n', "number", No, N),
    o('s', "squeeze-blank", No, N),
    o('v', "show-nonprinting", No, N),
    o('E', "show-ends", No, N),
    o('T', "show-tabs", No, N),
    o('A', "show-all", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('e', "", No, N),
    o('t', "", No, N),
    o('u', "", No, N),
];

const DIGITS: [Row; 10] = [
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

/// A digit given as an option outside the obsolete first-argument form: head and tail
/// report "invalid context" and stop.
const DIGIT_ERROR: Does =
    Does::Refuse("a number option is valid only as the first argument (like -5)");

/// head 9.1 (after its obsolete `-NUM` first argument).
const HEAD: &[Row] = &[
    o('c', "bytes", Req, N),
    o('n', "lines", Req, N),
    o(X, "-presume-input-pipe", No, UNDOC),
    o('q', "quiet|silent", No, N),
    o('v', "verbose", No, N),
    o('z', "zero-terminated", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('0', "", No, DIGIT_ERROR),
    o('1', "", No, DIGIT_ERROR),
    o('2', "", No, DIGIT_ERROR),
    o('3', "", No, DIGIT_ERROR),
    o('4', "", No, DIGIT_ERROR),
    o('5', "", No, DIGIT_ERROR),
    o('6', "", No, DIGIT_ERROR),
    o('7', "", No, DIGIT_ERROR),
    o('8', "", No, DIGIT_ERROR),
    o('9', "", No, DIGIT_ERROR),
];

/// tail 9.1 (after its obsolete first-argument form); following a file never ends.
const TAIL: &[Row] = &[
    o('c', "bytes", Req, N),
    o(X, "follow", Opt, Does::Refuse(why::NEVER_ENDS)),
    o('n', "lines", Req, N),
    o(X, "max-unchanged-stats", Req, N),
    o(X, "-disable-inotify", No, UNDOC),
    o(X, "pid", Req, N),
    o(X, "-presume-input-pipe", No, UNDOC),
    o('q', "quiet|silent", No, N),
    o(X, "retry", No, N),
    o('s', "sleep-interval", Req, N),
    o('v', "verbose", No, N),
    o('z', "zero-terminated", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('f', "", No, Does::Refuse(why::NEVER_ENDS)),
    o('F', "", No, Does::Refuse(why::NEVER_ENDS)),
    o('0', "", No, DIGIT_ERROR),
    o('1', "", No, DIGIT_ERROR),
    o('2', "", No, DIGIT_ERROR),
    o('3', "", No, DIGIT_ERROR),
    o('4', "", No, DIGIT_ERROR),
    o('5', "", No, DIGIT_ERROR),
    o('6', "", No, DIGIT_ERROR),
    o('7', "", No, DIGIT_ERROR),
    o('8', "", No, DIGIT_ERROR),
    o('9', "", No, DIGIT_ERROR),
];

/// wc 9.1.
const WC: &[Row] = &[
    o('c', "bytes", No, N),
    o('m', "chars", No, N),
    o('l', "lines", No, N),
    o('w', "words", No, N),
    o(X, "debug", No, N),
    o(X, "files0-from", Req, Does::Refuse(why::FILE_LIST)),
    o('L', "max-line-length", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// sort 9.1. Without `-T`, large inputs spill to temporary files in `$TMPDIR` or `/tmp`.
const SORT: &[Row] = &[
    o('b', "ignore-leading-blanks", No, N),
    o(X, "check", Opt, N),
    o(X, "compress-program", Req, Does::Refuse(why::RUNS)),
    o(X, "debug", No, N),
    o('d', "dictionary-order", No, N),
    o('f', "ignore-case", No, N),
    o(X, "files0-from", Req, Does::Refuse(why::FILE_LIST)),
    o('g', "general-numeric-sort", No, N),
    o('i', "ignore-nonprinting", No, N),
    o('k', "key", Req, N),
    o('m', "merge", No, N),
    o('M', "month-sort", No, N),
    o('n', "numeric-sort", No, N),
    o('h', "human-numeric-sort", No, N),
    o('V', "version-sort", No, N),
    o('R', "random-sort", No, N),
    o(X, "random-source", Req, Does::Path(Use::Read)),
    o(X, "sort", Req, N),
    o('o', "output", Req, Does::Path(Use::Write)),
    o('r', "reverse", No, N),
    o('s', "stable", No, N),
    o(X, "batch-size", Req, N),
    o('S', "buffer-size", Req, N),
    o('t', "field-separator", Req, N),
    o('T', "temporary-directory", Req, Does::Path(Use::Write)),
    o('u', "unique", No, N),
    o('z', "zero-terminated", No, N),
    o(X, "parallel", Req, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('c', "", No, N),
    o('C', "", No, N),
    o('y', "", Req, N),
];

/// tac 9.1.
const TAC: &[Row] = &[
    o('b', "before", No, N),
    o('r', "regex", No, N),
    o('s', "separator", Req, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// nl 9.1.
const NL: &[Row] = &[
    o('h', "header-numbering", Req, N),
    o('b', "body-numbering", Req, N),
    o('f', "footer-numbering", Req, N),
    o('v', "starting-line-number", Req, N),
    o('i', "line-increment", Req, N),
    o('p', "no-renumber", No, N),
    o('l', "join-blank-lines", Req, N),
    o('s', "number-separator", Req, N),
    o('w', "number-width", Req, N),
    o('n', "number-format", Req, N),
    o('d', "section-delimiter", Req, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// uniq 9.1 (its optstring starts with '-': operands come in order, `+N` handled above;
/// `-N` skips N fields).
const UNIQ: &[Row] = &[
    o('c', "count", No, N),
    o('d', "repeated", No, N),
    o(X, "all-repeated", Opt, N),
    o(X, "group", Opt, N),
    o('i', "ignore-case", No, N),
    o('u', "unique", No, N),
    o('f', "skip-fields", Req, N),
    o('s', "skip-chars", Req, N),
    o('w', "check-chars", Req, N),
    o('z', "zero-terminated", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    DIGITS[0],
    DIGITS[1],
    DIGITS[2],
    DIGITS[3],
    DIGITS[4],
    DIGITS[5],
    DIGITS[6],
    DIGITS[7],
    DIGITS[8],
    DIGITS[9],
    o('D', "", No, N),
];

/// cut 9.1.
const CUT: &[Row] = &[
    o('b', "bytes", Req, N),
    o('c', "characters", Req, N),
    o('f', "fields", Req, N),
    o('d', "delimiter", Req, N),
    o('s', "only-delimited", No, N),
    o(X, "output-delimiter", Req, N),
    o(X, "complement", No, N),
    o('z', "zero-terminated", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('n', "", No, N),
];

/// paste 9.1.
const PASTE: &[Row] = &[
    o('s', "serial", No, N),
    o('d', "delimiters", Req, N),
    o('z', "zero-terminated", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// tr 9.1 (optstring `+`: options end at the first operand; it reads no files).
const TR: &[Row] = &[
    o('c', "complement", No, N),
    o('d', "delete", No, N),
    o('s', "squeeze-repeats", No, N),
    o('t', "truncate-set1", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('A', "", No, N),
    o('C', "", No, N),
];

/// od 9.1.
const OD: &[Row] = &[
    o('j', "skip-bytes", Req, N),
    o('A', "address-radix", Req, N),
    o('N', "read-bytes", Req, N),
    o('t', "format", Req, N),
    o('v', "output-duplicates", No, N),
    o(X, "strings", Opt, N),
    o(X, "traditional", No, N),
    o('w', "width", Opt, N),
    o(X, "endian", Req, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('a', "", No, N),
    o('B', "", No, N),
    o('b', "", No, N),
    o('c', "", No, N),
    o('D', "", No, N),
    o('d', "", No, N),
    o('e', "", No, N),
    o('F', "", No, N),
    o('f', "", No, N),
    o('H', "", No, N),
    o('h', "", No, N),
    o('I', "", No, N),
    o('i', "", No, N),
    o('L', "", No, N),
    o('l', "", No, N),
    o('O', "", No, N),
    o('o', "", No, N),
    o('S', "", Req, N),
    o('s', "", No, N),
    o('X', "", No, N),
    o('x', "", No, N),
];

/// stat 9.1 (operands are read for their metadata; `-` is standard input).
const STAT: &[Row] = &[
    o('L', "dereference", No, N),
    o('f', "file-system", No, N),
    o('c', "format", Req, N),
    o(X, "printf", Req, N),
    o('t', "terse", No, N),
    o(X, "cached", Req, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// basename 9.1 (optstring `+`).
const BASENAME: &[Row] = &[
    o('a', "multiple", No, N),
    o('s', "suffix", Req, N),
    o('z', "zero", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// dirname 9.1.
const DIRNAME: &[Row] = &[
    o('z', "zero", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// pwd 9.1 (/usr/bin/pwd; it ignores operands).
const PWD: &[Row] = &[
    o('L', "logical", No, N),
    o('P', "physical", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// whoami 9.1.
const WHOAMI: &[Row] = &[o(X, "help", No, N), o(X, "version", No, N)];

/// id 9.1 (operands are user names).
const ID: &[Row] = &[
    o('Z', "context", No, N),
    o('g', "group", No, N),
    o('G', "groups", No, N),
    o('n', "name", No, N),
    o('r', "real", No, N),
    o('u', "user", No, N),
    o('z', "zero", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('a', "", No, N),
];

/// df 9.1 (operands: files whose file system is reported).
const DF: &[Row] = &[
    o('a', "all", No, N),
    o('B', "block-size", Req, N),
    o('i', "inodes", No, N),
    o('h', "human-readable", No, N),
    o('H', "si", No, N),
    o('l', "local", No, N),
    o(X, "output", Opt, N),
    o('P', "portability", No, N),
    o('T', "print-type", No, N),
    o(X, "sync", No, N),
    o(X, "no-sync", No, N),
    o(X, "total", No, N),
    o('t', "type", Req, N),
    o('x', "exclude-type", Req, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('F', "", Req, N),
    o('k', "", No, N),
    o('m', "", No, N),
    o('v', "", No, N),
];

/// date 9.1.
const DATE: &[Row] = &[
    o('d', "date", Req, N),
    o(X, "debug", No, N),
    o('f', "file", Req, Does::Path(Use::Read)),
    o('I', "iso-8601", Opt, N),
    o('r', "reference", Req, Does::Path(Use::Read)),
    o(X, "resolution", No, N),
    o('R', "rfc-email|rfc-822|rfc-2822", No, N),
    o(X, "rfc-3339", Req, N),
    o('s', "set", Req, Does::Refuse("it sets the system clock")),
    o('u', "uct|utc|universal", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
];

/// cp 9.1.
const CP: &[Row] = &[
    o('a', "archive", No, Does::Bit(RECURSIVE)),
    o(X, "attributes-only", No, N),
    o(X, "backup", Opt, N),
    o(X, "copy-contents", No, N),
    o('L', "dereference", No, N),
    o('f', "force", No, N),
    o('i', "interactive", No, N),
    o('l', "link", No, N),
    o('n', "no-clobber", No, N),
    o('P', "no-dereference", No, N),
    o(X, "no-preserve", Req, N),
    o('T', "no-target-directory", No, N),
    o('x', "one-file-system", No, N),
    o(X, "parents|path", No, N),
    o(X, "preserve", Opt, N),
    o('R', "recursive", No, Does::Bit(RECURSIVE)),
    o(X, "remove-destination", No, N),
    o(X, "sparse", Req, N),
    o(X, "reflink", Opt, N),
    o(X, "strip-trailing-slashes", No, N),
    o('S', "suffix", Req, N),
    o('s', "symbolic-link", No, N),
    o('t', "target-directory", Req, Does::Special(0)),
    o('u', "update", No, N),
    o('v', "verbose", No, N),
    o(X, "context", Opt, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('b', "", No, N),
    o('d', "", No, N),
    o('H', "", No, N),
    o('p', "", No, N),
    o('r', "", No, Does::Bit(RECURSIVE)),
    o('Z', "", No, N),
];

/// mkdir 9.1.
const MKDIR: &[Row] = &[
    o(X, "context", Opt, N),
    o('m', "mode", Req, N),
    o('p', "parents", No, N),
    o('v', "verbose", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('Z', "", No, N),
];

/// touch 9.1.
const TOUCH: &[Row] = &[
    o(X, "time", Req, N),
    o('c', "no-create", No, N),
    o('d', "date", Req, N),
    o('r', "reference", Req, Does::Path(Use::Read)),
    o('h', "no-dereference", No, N),
    o(X, "help", No, N),
    o(X, "version", No, N),
    o('a', "", No, N),
    o('f', "", No, N),
    o('m', "", No, N),
    o('t', "", Req, N),
];

/// Every coreutils table, for the test that compares them with the installed binaries.
#[cfg(test)]
pub(super) const TABLES: &[(&str, &[Row])] = &[
    ("ls", LS),
    ("cat", CAT),
    ("head", HEAD),
    ("tail", TAIL),
    ("wc", WC),
    ("sort", SORT),
    ("tac", TAC),
    ("nl", NL),
    ("uniq", UNIQ),
    ("cut", CUT),
    ("paste", PASTE),
    ("tr", TR),
    ("od", OD),
    ("stat", STAT),
    ("basename", BASENAME),
    ("dirname", DIRNAME),
    ("pwd", PWD),
    ("whoami", WHOAMI),
    ("id", ID),
    ("df", DF),
    ("date", DATE),
    ("cp", CP),
    ("mkdir", MKDIR),
    ("touch", TOUCH),
];
