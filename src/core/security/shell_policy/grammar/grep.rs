//! GNU grep 3.8 (Debian 12), and Debian's `egrep`, `fgrep`, `rgrep` (shell scripts that run
//! `grep -E`, `grep -F`, `grep -r`; rewritten here to grep itself, as the sandbox runs no
//! scripts).
//!
//! Source of the table: grep's `getopt_long` optstring and `struct option` array as the
//! Debian 12 binary passes them (compared with the installed binary by the `real_programs`
//! test), meanings from `grep --help`. The pattern is the first operand unless `-e`/`-f`
//! gave one; recursion is the last of `-r`/`-R` (recurse) and `-d ACTION`/`--directories`
//! (an argmatch abbreviation of read/recurse/skip); with no file operand a recursive grep
//! searches `.`, any other reads standard input.

use super::Arg::{No, Opt, Req};
use super::{
    argmatch, o, scan, why, Does, Ev, GrammarError, Order, Out, Parsed, Role, Row, Spec, Use, N, X,
};

const PATTERN: u32 = 1;
const RECURSE: u8 = 1;
const DIRECTORIES: u8 = 2;

pub(super) fn parse(program: &str, args: &[String]) -> Result<Parsed, GrammarError> {
    let (name, alias): (&'static str, Option<&str>) = match program {
        "egrep" => ("egrep", Some("-E")),
        "fgrep" => ("fgrep", Some("-F")),
        "rgrep" => ("rgrep", Some("-r")),
        _ => ("grep", None),
    };
    let spec = Spec {
        name,
        rows: GREP,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("grep", args);
    if let Some(flag) = alias {
        out.insert_after_program(&[flag]);
    }
    let s = scan(&spec, args, 0, &mut out)?;
    let mut recurse = alias == Some("-r");
    for e in &s.events {
        if let Ev::Special {
            code, name, value, ..
        } = e
        {
            match (*code, value) {
                (RECURSE, _) => recurse = true,
                (DIRECTORIES, Some(v)) => match argmatch(v, &["read", "recurse", "skip"]) {
                    Some(action) => recurse = action == "recurse",
                    None => {
                        return Err(GrammarError::InvalidValue {
                            program: spec.name.into(),
                            option: name.clone(),
                            value: (*v).to_string(),
                        })
                    }
                },
                _ => {}
            }
        }
    }
    let mut operands = s.operands().into_iter();
    if !s.has(PATTERN) {
        if let Some((token, _)) = operands.next() {
            out.role(token, Role::Text);
        }
    }
    let usage = if recurse { Use::ReadTree } else { Use::Read };
    let mut any = false;
    for (token, text) in operands {
        any = true;
        out.operand_path(token, text, None, usage);
    }
    if !any {
        if recurse {
            out.path(".", None, Use::ReadTree);
        } else {
            out.reads_stdin = true;
        }
    }
    Ok(out.finish())
}

/// grep 3.8.
pub(super) const GREP: &[Row] = &[
    o('G', "basic-regexp", No, N),
    o('E', "extended-regexp", No, N),
    o('F', "fixed-regexp|fixed-strings", No, N),
    o('P', "perl-regexp", No, N),
    o('A', "after-context", Req, N),
    o('B', "before-context", Req, N),
    o(X, "binary-files", Req, N),
    o('b', "byte-offset", No, N),
    o('C', "context", Req, N),
    o(X, "color|colour", Opt, N),
    o('c', "count", No, N),
    o('D', "devices", Req, N),
    o('d', "directories", Req, Does::Special(DIRECTORIES)),
    o(X, "exclude", Req, N),
    o(X, "exclude-from", Req, Does::Path(Use::Read)),
    o(X, "exclude-dir", Req, N),
    o('f', "file", Req, Does::PathBit(Use::Read, PATTERN)),
    o('l', "files-with-matches", No, N),
    o('L', "files-without-match", No, N),
    o(X, "group-separator", Req, N),
    o(X, "help", No, N),
    o(X, "include", Req, N),
    o('i', "ignore-case", No, N),
    o(X, "no-ignore-case", No, N),
    o('T', "initial-tab", No, N),
    o(X, "label", Req, N),
    o(X, "line-buffered", No, N),
    o('n', "line-number", No, N),
    o('x', "line-regexp", No, N),
    o('m', "max-count", Req, N),
    o('h', "no-filename", No, N),
    o(X, "no-group-separator", No, N),
    o('s', "no-messages", No, N),
    o('Z', "null", No, N),
    o('z', "null-data", No, N),
    o('o', "only-matching", No, N),
    o('q', "quiet|silent", No, N),
    o('r', "recursive", No, Does::Special(RECURSE)),
    o('R', "dereference-recursive", No, Does::Special(RECURSE)),
    o('e', "regexp", Req, Does::Bit(PATTERN)),
    o('v', "invert-match", No, N),
    o('a', "text", No, N),
    o('U', "binary", No, N),
    o('u', "unix-byte-offsets", No, N),
    o('V', "version", No, N),
    o('H', "with-filename", No, N),
    o('w', "word-regexp", No, N),
    // -NUM: context lines (digits accumulate within one argument)
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
    // --binary-files=without-match
    o('I', "", No, N),
    // undocumented matcher selection
    o('X', "", Req, Does::Refuse(why::UNDOCUMENTED)),
    // obsolete synonym of -i
    o('y', "", No, N),
];
