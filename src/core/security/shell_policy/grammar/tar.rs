//! GNU tar 1.34 (Debian 12).
//!
//! Source of the table: every long option tar's argp lists (`tar --=x` prints them all as
//! ambiguous), with arities and short letters from `tar --help` (checked against the
//! installed binary by the `real_programs` test). Forms read here as tar reads them:
//! - the old-style first argument (`tar cvf out.tar dir`, no leading `-`): each letter is an
//!   option, and each letter that takes a value takes the next argv elements in order
//!   (`tar cIf sh out.tar x` is `-c -I sh -f out.tar x`);
//! - argp in order: options may follow operands, and `-C DIR` changes the folder for the
//!   operands after it (relative folders add up); the archive (`-f`) and `-X` files are
//!   opened from the starting folder;
//! - an archive named `host:path` (no `/` before the `:`) is a remote tape, reached by
//!   running rsh, unless `--force-local`;
//! - no `-f`: the archive is standard input/output (Debian's default, `tar --show-defaults`).
//!
//! Modes: `-c` reads its operands recursively and writes the archive; `-r`/`-u` also append;
//! `-x` writes its members (or the whole folder) under the `-C` folder; `-d` compares them
//! with the files there; `-t` reads only the archive. Options that run programs
//! (`-I`, `--to-command`, `--checkpoint-action`, `-F`, `--rsh-command`…), read file lists
//! (`-T`), delete (`--remove-files`) or extract outside the folder (`-P` with `-x`/`-d`)
//! are refused. `-z`/`-j`/`-J`… run the fixed compressor programs.

use super::Arg::{No, Opt, Req};
use super::{
    getopt, o, refused, refused_operand, why, Does, GrammarError, Item, Order, Out, Parsed, Role,
    Row, Spec, Use, N, X,
};

// Specials
const MODE: u8 = 1;
const CHDIR: u8 = 2;
const ARCHIVE: u8 = 3;
const ADD_FILE: u8 = 4;
const DATE_OR_FILE: u8 = 5;
const ONE_TOP: u8 = 6;
// Bits
const FORCE_LOCAL: u32 = 1;
const ABSOLUTE: u32 = 2;
const TO_STDOUT: u32 = 4;

pub(super) fn parse(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "tar",
        rows: TAR,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("tar", args);
    // Explode the old-style key: virtual argv, each element mapped to its input index.
    let mut virt: Vec<String> = Vec::new();
    let mut map: Vec<usize> = Vec::new();
    let mut next = 0;
    if let Some(key) = args.first().filter(|a| !a.starts_with('-')) {
        out.role(0, Role::Command);
        next = 1;
        for c in key.chars() {
            virt.push(format!("-{c}"));
            map.push(0);
            let row = TAR.iter().find(|r| r.short == c && c != X);
            if row.is_some_and(|r| r.arg != No) {
                match args.get(next) {
                    Some(v) => {
                        virt.push(v.clone());
                        map.push(next);
                        next += 1;
                    }
                    None => {
                        return Err(GrammarError::MissingValue {
                            program: "tar".into(),
                            option: format!("{c} (in '{key}')"),
                        })
                    }
                }
            }
        }
    }
    for (k, a) in args.iter().enumerate().skip(next) {
        virt.push(a.clone());
        map.push(k);
    }
    let at = |i: usize| map.get(i).copied().unwrap_or(usize::MAX);
    let items = getopt(&spec, &virt, 0)?;

    let mut bits = 0u32;
    let mut mode: Option<&str> = None;
    let mut base: Option<String> = None;
    let mut archives: Vec<(usize, Option<usize>, String)> = Vec::new();
    // (argv index, attached to its option, text, base)
    let mut members: Vec<(usize, bool, String, Option<String>)> = Vec::new();
    let mut one_top: Option<String> = None;
    for item in &items {
        match item {
            Item::End { token } => out.role(at(*token), Role::EndOfOptions),
            Item::Operand { text, token } => {
                members.push((at(*token), false, (*text).to_string(), base.clone()))
            }
            Item::Opt {
                row,
                name,
                value,
                token,
                value_token,
            } => {
                let token = at(*token);
                let value_token = value_token.map(at);
                if token != 0 || next == 0 {
                    out.option(token, value_token);
                } else if let Some(v) = value_token {
                    out.role(v, Role::Value);
                }
                match row.does {
                    Does::Nothing => {}
                    Does::Bit(b) => bits |= b,
                    Does::Path(usage) => {
                        if let Some(v) = value {
                            out.value_path(token, value_token, v, None, usage);
                        }
                    }
                    Does::PathBit(..) => {}
                    Does::Refuse(why) => return Err(refused("tar", name, why)),
                    Does::Special(code) => {
                        let v = value.unwrap_or("");
                        match code {
                            MODE => {
                                let m = row.long.split('|').next().unwrap_or("");
                                if mode.is_some_and(|old| old != m) {
                                    return Err(refused(
                                        "tar",
                                        name,
                                        "tar takes only one of -A -c -d -r -t -u -x --delete --test-label",
                                    ));
                                }
                                mode = Some(m);
                            }
                            CHDIR => base = Some(join(base.as_deref(), v)),
                            ARCHIVE => archives.push((token, value_token, v.to_string())),
                            ADD_FILE => members.push((
                                value_token.unwrap_or(token),
                                value_token.is_none(),
                                v.to_string(),
                                base.clone(),
                            )),
                            // tar.c get_date_or_file: a value starting with '/' or '.'
                            // names a file whose time is used
                            DATE_OR_FILE if v.starts_with('/') || v.starts_with('.') => {
                                out.value_path(token, value_token, v, None, Use::Read);
                            }
                            ONE_TOP => one_top = value.map(str::to_string),
                            _ => {}
                        }
                    }
                }
            }
        }
    }

    let mode = mode.unwrap_or("");
    let extracting = matches!(mode, "extract" | "diff");
    if bits & ABSOLUTE != 0 && extracting {
        return Err(refused(
            "tar",
            "-P",
            "with -x or -d it reaches files outside the target folder",
        ));
    }
    // the archive(s)
    let archive_use = match mode {
        "create" | "append" | "update" | "catenate" | "delete" => Use::Write,
        _ => Use::Read,
    };
    if archives.is_empty() && archive_use == Use::Read && !mode.is_empty() {
        out.reads_stdin = true;
    }
    for (token, value_token, name) in &archives {
        if bits & FORCE_LOCAL == 0 && is_remote(name) {
            return Err(refused_operand("tar", name, why::NETWORK));
        }
        out.value_path(*token, *value_token, name, None, archive_use);
        if archive_use == Use::Write && mode != "create" && mode != "catenate" {
            // appending and deleting read the archive first
            if name != "-" {
                out.path(name, None, Use::Read);
            }
        }
    }
    // the members
    let final_base = base;
    match mode {
        "create" | "append" | "update" => {
            for (token, attached, text, b) in &members {
                member_path(
                    &mut out,
                    *token,
                    *attached,
                    text,
                    b.as_deref(),
                    Use::ReadTree,
                );
            }
        }
        "catenate" => {
            for (token, attached, text, b) in &members {
                member_path(&mut out, *token, *attached, text, b.as_deref(), Use::Read);
            }
        }
        "extract" | "diff" => {
            let usage = if mode == "extract" {
                Use::Write
            } else {
                Use::ReadTree
            };
            if mode == "extract" && bits & TO_STDOUT != 0 {
                for (token, attached, _, _) in &members {
                    if !attached {
                        out.role(*token, Role::Text);
                    }
                }
            } else if members.is_empty() {
                out.path(".", final_base.as_deref(), usage);
            } else {
                for (token, attached, text, b) in &members {
                    member_path(&mut out, *token, *attached, text, b.as_deref(), usage);
                }
            }
            if let (Some(dir), "extract") = (&one_top, mode) {
                out.path(dir, final_base.as_deref(), Use::Write);
            }
        }
        _ => {
            // list, delete, test-label, or no mode: operands are member names or labels
            for (token, attached, _, _) in &members {
                if !attached {
                    out.role(*token, Role::Text);
                }
            }
        }
    }
    Ok(out.finish())
}

fn member_path(
    out: &mut Out,
    token: usize,
    attached: bool,
    text: &str,
    base: Option<&str>,
    usage: Use,
) {
    if attached {
        out.role(token, Role::OptionPath);
        out.path(text, base, usage);
    } else {
        out.operand_path(token, text, base, usage);
    }
}

/// `-C` folders add up: a relative one is inside the one before it.
fn join(base: Option<&str>, dir: &str) -> String {
    match base {
        Some(b) if !dir.starts_with('/') => format!("{}/{dir}", b.trim_end_matches('/')),
        _ => dir.to_string(),
    }
}

/// rmt.h `_remdev`: a `:` with no `/` before it names a remote tape.
fn is_remote(name: &str) -> bool {
    match name.find(':') {
        Some(i) => i > 0 && !name[..i].contains('/'),
        None => false,
    }
}

const MODE_ROW: Does = Does::Special(MODE);

/// tar 1.34.
pub(super) const TAR: &[Row] = &[
    o('t', "list", No, MODE_ROW),
    o('x', "extract|get", No, MODE_ROW),
    o('c', "create", No, MODE_ROW),
    o('d', "diff|compare", No, MODE_ROW),
    o('r', "append", No, MODE_ROW),
    o('u', "update", No, MODE_ROW),
    o('A', "catenate|concatenate", No, MODE_ROW),
    o(X, "delete", No, MODE_ROW),
    o(X, "test-label", No, MODE_ROW),
    o('S', "sparse", No, N),
    o(X, "hole-detection", Req, N),
    o(X, "sparse-version", Req, N),
    o('G', "incremental", No, Does::Refuse(why::UNSUPPORTED)),
    o(
        'g',
        "listed-incremental",
        Req,
        Does::Refuse(why::UNSUPPORTED),
    ),
    o(X, "level", Req, N),
    o(X, "ignore-failed-read", No, N),
    o(X, "occurrence", Opt, N),
    o('n', "seek", No, N),
    o(X, "no-seek", No, N),
    o(X, "no-check-device", No, N),
    o(X, "check-device", No, N),
    o('W', "verify", No, N),
    o(
        X,
        "remove-files",
        No,
        Does::Refuse("it deletes the files it archives"),
    ),
    o('k', "keep-old-files", No, N),
    o(X, "skip-old-files", No, N),
    o(X, "keep-newer-files", No, N),
    o(X, "overwrite", No, N),
    o('U', "unlink-first", No, N),
    o(X, "recursive-unlink", No, N),
    o(X, "no-overwrite-dir", No, N),
    o(X, "overwrite-dir", No, N),
    o(X, "keep-directory-symlink", No, N),
    o(X, "one-top-level", Opt, Does::Special(ONE_TOP)),
    o('O', "to-stdout", No, Does::Bit(TO_STDOUT)),
    o(X, "to-command", Req, Does::Refuse(why::RUNS)),
    o(X, "ignore-command-error", No, N),
    o(X, "no-ignore-command-error", No, N),
    o(X, "owner", Req, N),
    o(X, "group", Req, N),
    o(X, "owner-map", Req, Does::Path(Use::Read)),
    o(X, "group-map", Req, Does::Path(Use::Read)),
    o(X, "mtime", Req, Does::Special(DATE_OR_FILE)),
    o(X, "clamp-mtime", No, N),
    o(X, "mode", Req, N),
    o(X, "atime-preserve", Opt, N),
    o('m', "touch", No, N),
    o(X, "same-owner", No, N),
    o(X, "no-same-owner", No, N),
    o(X, "numeric-owner", No, N),
    o('p', "preserve-permissions|same-permissions", No, N),
    o(X, "no-same-permissions", No, N),
    o('s', "preserve-order|same-order", No, N),
    o(X, "delay-directory-restore", No, N),
    o(X, "no-delay-directory-restore", No, N),
    o(X, "sort", Req, N),
    o(X, "xattrs", No, N),
    o(X, "no-xattrs", No, N),
    o(X, "xattrs-include", Req, N),
    o(X, "xattrs-exclude", Req, N),
    o(X, "selinux", No, N),
    o(X, "no-selinux", No, N),
    o(X, "acls", No, N),
    o(X, "no-acls", No, N),
    o('f', "file", Req, Does::Special(ARCHIVE)),
    o(X, "force-local", No, Does::Bit(FORCE_LOCAL)),
    o(X, "rmt-command", Req, Does::Refuse(why::RUNS)),
    o(X, "rsh-command", Req, Does::Refuse(why::RUNS)),
    o('M', "multi-volume", No, Does::Refuse(why::UNSUPPORTED)),
    o('L', "tape-length", Req, Does::Refuse(why::UNSUPPORTED)),
    o(
        'F',
        "info-script|new-volume-script",
        Req,
        Does::Refuse(why::RUNS),
    ),
    o(X, "volno-file", Req, Does::Refuse(why::UNSUPPORTED)),
    o('b', "blocking-factor", Req, N),
    o(X, "record-size", Req, N),
    o('i', "ignore-zeros", No, N),
    o('B', "read-full-records", No, N),
    o('H', "format", Req, N),
    o(X, "old-archive|portability", No, N),
    o(X, "posix", No, N),
    o(X, "pax-option", Req, N),
    o('V', "label", Req, N),
    o('a', "auto-compress", No, N),
    o(X, "no-auto-compress", No, N),
    o('I', "use-compress-program", Req, Does::Refuse(why::RUNS)),
    o('j', "bzip2", No, N),
    o('z', "gzip|gunzip|ungzip", No, N),
    o('Z', "compress|uncompress", No, N),
    o(X, "lzip", No, N),
    o(X, "lzma", No, N),
    o(X, "lzop", No, N),
    o('J', "xz", No, N),
    o(X, "zstd", No, N),
    o(X, "one-file-system", No, N),
    o('P', "absolute-names", No, Does::Bit(ABSOLUTE)),
    o('h', "dereference", No, N),
    o(X, "hard-dereference", No, N),
    o('K', "starting-file", Req, N),
    o('N', "newer|after-date", Req, Does::Special(DATE_OR_FILE)),
    o(X, "newer-mtime", Req, Does::Special(DATE_OR_FILE)),
    o(X, "backup", Opt, N),
    o(X, "suffix", Req, N),
    o(X, "strip-components", Req, N),
    o(X, "transform|xform", Req, N),
    o(X, "checkpoint", Opt, N),
    o(X, "checkpoint-action", Req, Does::Refuse(why::RUNS)),
    o('l', "check-links", No, N),
    o(X, "totals", Opt, N),
    o(X, "utc", No, N),
    o(X, "full-time", No, N),
    o(X, "index-file", Req, Does::Path(Use::Write)),
    o('R', "block-number", No, N),
    o(X, "show-defaults", No, N),
    o(X, "show-snapshot-field-ranges", No, N),
    o(X, "show-omitted-dirs", No, N),
    o(X, "show-transformed-names|show-stored-names", No, N),
    o(X, "quoting-style", Req, N),
    o(X, "quote-chars", Req, N),
    o(X, "no-quote-chars", Req, N),
    o('w', "interactive|confirmation", No, N),
    o('v', "verbose", No, N),
    o(X, "warning", Req, N),
    o(X, "restrict", No, N),
    o(X, "add-file", Req, Does::Special(ADD_FILE)),
    o('C', "directory", Req, Does::Special(CHDIR)),
    o('T', "files-from", Req, Does::Refuse(why::FILE_LIST)),
    o(X, "null", No, N),
    o(X, "no-null", No, N),
    o(X, "unquote", No, N),
    o(X, "no-unquote", No, N),
    o(X, "verbatim-files-from", No, N),
    o(X, "no-verbatim-files-from", No, N),
    o(X, "exclude", Req, N),
    o('X', "exclude-from", Req, Does::Path(Use::Read)),
    o(X, "exclude-caches", No, N),
    o(X, "exclude-caches-under", No, N),
    o(X, "exclude-caches-all", No, N),
    o(X, "exclude-tag", Req, N),
    o(X, "exclude-ignore", Req, N),
    o(X, "exclude-ignore-recursive", Req, N),
    o(X, "exclude-tag-under", Req, N),
    o(X, "exclude-tag-all", Req, N),
    o(X, "exclude-vcs", No, N),
    o(X, "exclude-vcs-ignores", No, N),
    o(X, "exclude-backups", No, N),
    o(X, "recursion", No, N),
    o(X, "no-recursion", No, N),
    o(X, "anchored", No, N),
    o(X, "no-anchored", No, N),
    o(X, "ignore-case", No, N),
    o(X, "no-ignore-case", No, N),
    o(X, "wildcards", No, N),
    o(X, "no-wildcards", No, N),
    o(X, "wildcards-match-slash", No, N),
    o(X, "no-wildcards-match-slash", No, N),
    o('?', "help", No, N),
    o(X, "usage", No, N),
    o(X, "program-name", Req, N),
    o(X, "HANG", Opt, Does::Refuse(why::NEVER_ENDS)),
    o(X, "version", No, N),
    // "when creating, same as --old-archive; when extracting, same as --no-same-owner"
    o('o', "", No, N),
];
