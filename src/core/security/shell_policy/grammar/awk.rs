//! awk: Debian 12's default `awk` is mawk 1.3.4 (gawk 5.2 when installed takes the name
//! over through alternatives), so `awk` gets the grammar both read the same way; `mawk` and
//! `gawk` named directly get their own.
//!
//! Sources: mawk 1.3.4 20200120 `main.c` (`process_cmdline`: options `-F`, `-v`, `-f`, `-W`
//! and `--`, each value attached or next, no clusters, no long options, options end at the
//! first operand) and its man page; gawk 5.2.1 `gawk --help` and its long-option table (all
//! of them listed, for abbreviations; gawk stops at the first operand too). The program text
//! is the first operand unless `-e`/`--source` (gawk) gave it; an operand `name=value` is an
//! assignment, not a file. Program files, includes, extensions and `-W` are refused; gawk
//! runs with `--sandbox` (no `system()`, no redirections, no extensions).

use super::Arg::{No, Opt, Req};
use super::{o, scan, why, Does, GrammarError, Order, Out, Parsed, Role, Row, Spec, Use, N, X};

const PROGRAM: u32 = 1;
const PROGRAM_FILE: &str = "it reads the awk program from a file";

pub(super) fn parse(program: &str, args: &[String]) -> Result<Parsed, GrammarError> {
    let (spec, sandbox) = match program {
        "gawk" => (
            Spec {
                name: "gawk",
                rows: GAWK,
                order: Order::Posix,
                abbrev: true,
            },
            true,
        ),
        "mawk" => (
            Spec {
                name: "mawk",
                rows: MAWK,
                order: Order::Posix,
                abbrev: false,
            },
            false,
        ),
        _ => (
            Spec {
                name: "awk",
                rows: AWK,
                order: Order::Posix,
                abbrev: false,
            },
            false,
        ),
    };
    let mut out = Out::new(spec.name, args);
    if sandbox {
        out.insert_after_program(&["--sandbox"]);
    }
    let s = scan(&spec, args, 0, &mut out)?;
    let mut operands = s.operands().into_iter();
    if !s.has(PROGRAM) {
        if let Some((token, _)) = operands.next() {
            out.role(token, Role::Text);
        }
    }
    let mut any = false;
    for (token, text) in operands {
        if is_assignment(text) {
            out.role(token, Role::Text);
        } else {
            any = true;
            out.operand_path(token, text, None, Use::Read);
        }
    }
    if !any {
        out.reads_stdin = true;
    }
    Ok(out.finish())
}

/// `name=value` with an awk identifier before the `=` (POSIX awk "assignment operand").
pub(super) fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// What mawk and gawk both read the same way.
const AWK: &[Row] = &[
    o('F', "", Req, N),
    o('v', "", Req, N),
    o('f', "", Req, Does::Refuse(PROGRAM_FILE)),
];

/// mawk 1.3.4 20200120.
const MAWK: &[Row] = &[
    o('F', "", Req, N),
    o('v', "", Req, N),
    o('f', "", Req, Does::Refuse(PROGRAM_FILE)),
    o('W', "", Req, Does::Refuse(why::UNSUPPORTED)),
];

/// gawk 5.2.1.
const GAWK: &[Row] = &[
    o('v', "assign", Req, N),
    o('M', "bignum", No, N),
    o('b', "characters-as-bytes", No, N),
    o('C', "copyright", No, N),
    o(
        'D',
        "debug",
        Opt,
        Does::Refuse("it starts the interactive debugger"),
    ),
    o('d', "dump-variables", Opt, Does::Refuse(why::WRITES)),
    o('E', "exec", Req, Does::Refuse(PROGRAM_FILE)),
    o('F', "field-separator", Req, N),
    o('f', "file", Req, Does::Refuse(PROGRAM_FILE)),
    o('g', "gen-pot", No, N),
    o('h', "help", No, N),
    o('i', "include", Req, Does::Refuse(PROGRAM_FILE)),
    o('L', "lint", Opt, N),
    o('t', "lint-old", No, N),
    o(
        'l',
        "load",
        Req,
        Does::Refuse("it loads a compiled extension"),
    ),
    o('n', "non-decimal-data", No, N),
    o('s', "no-optimize", No, N),
    o(X, "nostalgia", No, Does::Refuse(why::UNDOCUMENTED)),
    o('O', "optimize", No, N),
    o(X, "persist", Opt, Does::Refuse(why::WRITES)),
    o('P', "posix", No, N),
    o('o', "pretty-print", Opt, Does::Refuse(why::WRITES)),
    o('p', "profile", Opt, Does::Refuse(why::WRITES)),
    o('r', "re-interval", No, N),
    o('S', "sandbox", No, N),
    o('e', "source", Req, Does::Bit(PROGRAM)),
    o('I', "trace", No, N),
    o('c', "traditional", No, N),
    o('N', "use-lc-numeric", No, N),
    o('V', "version", No, N),
    o(
        'W',
        "",
        Req,
        Does::Refuse("write the long option instead of -W"),
    ),
    o('Y', "", No, Does::Refuse(why::UNDOCUMENTED)),
    o('Z', "", Req, Does::Refuse(why::UNDOCUMENTED)),
];
