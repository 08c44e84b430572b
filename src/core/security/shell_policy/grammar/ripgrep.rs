//! ripgrep 13 (Debian 12), whose parser is clap 2: clustered short flags, values attached
//! (`-m5`) or next, `--long=value` or `--long value`, no abbreviations, and leading `=` of an
//! attached value dropped (`-f=pats` and `--file==pats` read `pats`).
//!
//! Source of the table: `rg --help` of ripgrep 13.0.0 (every flag it lists, plus the hidden
//! negations below that models use); a flag not listed is refused. The pattern is the first
//! operand unless `-e`/`-f` gave one (or `--files`/`--type-list` need none); rg searches `.`
//! recursively when given no path (its standard input is not a file or pipe here). The argv
//! gets `--no-config`, so `RIPGREP_CONFIG_PATH` cannot add flags (`--pre` runs programs).
//! clap 2 silently drops a value given to a flag (`--count=x`); the grammar refuses that form
//! instead (checked by hand against rg 13: every flag exists, every valued one needs its
//! value).

use super::Arg::{No, Req};
use super::{o, scan, why, Does, Ev, GrammarError, Order, Out, Parsed, Role, Row, Spec, Use, N, X};

const PATTERN: u32 = 1;
const NO_PATTERN: u32 = 2;
const PATH_READ: u8 = 1;
const PATTERN_FILE: u8 = 2;

pub(super) fn parse(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "rg",
        rows: RG,
        order: Order::Permute,
        abbrev: false,
    };
    let mut out = Out::new("rg", args);
    out.insert_after_program(&["--no-config"]);
    let s = scan(&spec, args, 0, &mut out)?;
    let mut pattern = s.has(PATTERN);
    for e in &s.events {
        if let Ev::Special {
            code,
            value: Some(v),
            token,
            value_token,
            ..
        } = e
        {
            // clap drops every leading '=' of an attached value
            let v = if value_token.is_some() {
                *v
            } else {
                v.trim_start_matches('=')
            };
            out.value_path(*token, *value_token, v, None, Use::Read);
            pattern |= *code == PATTERN_FILE;
        }
    }
    let mut operands = s.operands().into_iter();
    if !pattern && !s.has(NO_PATTERN) {
        if let Some((token, _)) = operands.next() {
            out.role(token, Role::Text);
        }
    }
    let mut any = false;
    for (token, text) in operands {
        any = true;
        out.operand_path(token, text, None, Use::ReadTree);
    }
    if !any {
        out.path(".", None, Use::ReadTree);
    }
    Ok(out.finish())
}

/// ripgrep 13.0.0 `rg --help`.
pub(super) const RG: &[Row] = &[
    o('A', "after-context", Req, N),
    o(X, "auto-hybrid-regex", No, N),
    o('B', "before-context", Req, N),
    o(X, "binary", No, N),
    o(X, "block-buffered", No, N),
    o('b', "byte-offset", No, N),
    o('s', "case-sensitive", No, N),
    o(X, "color", Req, N),
    o(X, "colors", Req, N),
    o(X, "column", No, N),
    o('C', "context", Req, N),
    o(X, "context-separator", Req, N),
    o(X, "no-context-separator", No, N),
    o('c', "count", No, N),
    o(X, "count-matches", No, N),
    o(X, "crlf", No, N),
    o(X, "debug", No, N),
    o(X, "trace", No, N),
    o(X, "dfa-size-limit", Req, N),
    o('E', "encoding", Req, N),
    o(X, "engine", Req, N),
    o(X, "field-context-separator", Req, N),
    o(X, "field-match-separator", Req, N),
    o('f', "file", Req, Does::Special(PATTERN_FILE)),
    o(X, "files", No, Does::Bit(NO_PATTERN)),
    o('l', "files-with-matches", No, N),
    o(X, "files-without-match", No, N),
    o('F', "fixed-strings", No, N),
    o('L', "follow", No, N),
    o('g', "glob", Req, N),
    o(X, "glob-case-insensitive", No, N),
    o('h', "help", No, Does::Bit(NO_PATTERN)),
    o(X, "heading", No, N),
    o('.', "hidden", No, N),
    o(X, "no-hidden", No, N),
    o(X, "iglob", Req, N),
    o('i', "ignore-case", No, N),
    o(X, "ignore-file", Req, Does::Special(PATH_READ)),
    o(X, "ignore-file-case-insensitive", No, N),
    o(X, "include-zero", No, N),
    o('v', "invert-match", No, N),
    o(X, "json", No, N),
    o(X, "line-buffered", No, N),
    o('n', "line-number", No, N),
    o('x', "line-regexp", No, N),
    o('M', "max-columns", Req, N),
    o(X, "max-columns-preview", No, N),
    o('m', "max-count", Req, N),
    o(X, "max-depth", Req, N),
    o(X, "max-filesize", Req, N),
    o(X, "mmap", No, N),
    o('U', "multiline", No, N),
    o(X, "multiline-dotall", No, N),
    o(X, "no-config", No, N),
    o('I', "no-filename", No, N),
    o(X, "no-heading", No, N),
    o(X, "no-ignore", No, N),
    o(X, "no-ignore-dot", No, N),
    o(X, "no-ignore-exclude", No, N),
    o(X, "no-ignore-files", No, N),
    o(X, "no-ignore-global", No, N),
    o(X, "no-ignore-messages", No, N),
    o(X, "no-ignore-parent", No, N),
    o(X, "no-ignore-vcs", No, N),
    o('N', "no-line-number", No, N),
    o(X, "no-messages", No, N),
    o(X, "no-mmap", No, N),
    o(X, "no-pcre2-unicode", No, N),
    o(X, "no-require-git", No, N),
    o(X, "no-unicode", No, N),
    o('0', "null", No, N),
    o(X, "null-data", No, N),
    o(X, "one-file-system", No, N),
    o('o', "only-matching", No, N),
    o(X, "passthru", No, N),
    o(X, "path-separator", Req, N),
    o('P', "pcre2", No, N),
    o(X, "pcre2-version", No, Does::Bit(NO_PATTERN)),
    o(X, "pre", Req, Does::Refuse(why::RUNS)),
    o(X, "pre-glob", Req, N),
    o('p', "pretty", No, N),
    o('q', "quiet", No, N),
    o(X, "regex-size-limit", Req, N),
    o('e', "regexp", Req, Does::Bit(PATTERN)),
    o('r', "replace", Req, N),
    o(
        'z',
        "search-zip",
        No,
        Does::Refuse("it runs decompression programs"),
    ),
    o('S', "smart-case", No, N),
    o(X, "sort", Req, N),
    o(X, "sortr", Req, N),
    o(X, "sort-files", No, N),
    o(X, "stats", No, N),
    o('a', "text", No, N),
    o('j', "threads", Req, N),
    o(X, "trim", No, N),
    o('t', "type", Req, N),
    o(X, "type-add", Req, N),
    o(X, "type-clear", Req, N),
    o(X, "type-list", No, Does::Bit(NO_PATTERN)),
    o('T', "type-not", Req, N),
    o('u', "unrestricted", No, N),
    o('V', "version", No, Does::Bit(NO_PATTERN)),
    o(X, "vimgrep", No, N),
    o('H', "with-filename", No, N),
    o('w', "word-regexp", No, N),
];
