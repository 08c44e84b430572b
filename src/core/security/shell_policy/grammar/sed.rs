//! GNU sed 4.9 (Debian 12).
//!
//! Source of the table: sed's `getopt_long` optstring and `struct option` array as the
//! Debian 12 binary passes them (compared with the installed binary by the `real_programs`
//! test), meanings from `sed --help`. The script is the first operand unless `-e`/`-f` gave
//! one; `-i`/`--in-place` makes every file operand written. The argv gets `--sandbox` right
//! after `sed`, so sed itself refuses the `e`, `r` and `w` commands (run a program, read or
//! write a file named in the script).

use super::Arg::{No, Opt, Req};
use super::{
    o, refused, scan, why, Does, Ev, GrammarError, Order, Out, Parsed, Role, Row, Spec, Use, N, X,
};

const SCRIPT: u32 = 1;
const IN_PLACE: u8 = 1;

pub(super) fn parse(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "sed",
        rows: SED,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("sed", args);
    out.insert_after_program(&["--sandbox"]);
    let s = scan(&spec, args, 0, &mut out)?;
    let mut in_place = false;
    for e in &s.events {
        if let Ev::Special {
            code: IN_PLACE,
            name,
            value,
            ..
        } = e
        {
            in_place = true;
            // a suffix with '/' puts the backup in another folder ("bak/*")
            if value.is_some_and(|v| v.contains('/')) {
                return Err(refused(
                    "sed",
                    name,
                    "a backup suffix with '/' writes into another folder",
                ));
            }
        }
    }
    let mut operands = s.operands().into_iter();
    if !s.has(SCRIPT) {
        if let Some((token, _)) = operands.next() {
            out.role(token, Role::Text);
        }
    }
    let usage = if in_place { Use::Write } else { Use::Read };
    let mut any = false;
    for (token, text) in operands {
        any = true;
        out.operand_path(token, text, None, usage);
    }
    if !any {
        out.reads_stdin = true;
    }
    Ok(out.finish())
}

/// sed 4.9.
pub(super) const SED: &[Row] = &[
    o('b', "binary", No, N),
    o('r', "regexp-extended", No, N),
    o(X, "debug", No, N),
    o('e', "expression", Req, Does::Bit(SCRIPT)),
    o('f', "file", Req, Does::PathBit(Use::Read, SCRIPT)),
    o('i', "in-place", Opt, Does::Special(IN_PLACE)),
    o('l', "line-length", Req, N),
    o('z', "null-data|zero-terminated", No, N),
    o('n', "quiet|silent", No, N),
    o(X, "posix", No, N),
    o(X, "sandbox", No, N),
    o('s', "separate", No, N),
    o('u', "unbuffered", No, N),
    o(X, "version", No, N),
    o(X, "help", No, N),
    o(X, "follow-symlinks", No, N),
    o('E', "", No, N),
    // in the optstring, handled by no case: sed prints its usage
    o('V', "", Req, Does::Refuse(why::UNDOCUMENTED)),
];
