//! GNU diffutils 3.8 `diff` (Debian 12).
//!
//! Source of the table: diff's `getopt_long` optstring and `struct option` array as the
//! Debian 12 binary passes them (compared with the installed binary by the `real_programs`
//! test), meanings from `diff --help`. Operands, and the folders or files named by
//! `--from-file`/`--to-file`, are reported as `ReadTree`: given two folders, diff reads the
//! files in them even without `-r` (and walks them with it), and the grammar cannot know
//! which operand is a folder.

use super::Arg::{No, Opt, Req};
use super::{o, scan, why, Does, Ev, GrammarError, Order, Out, Parsed, Row, Spec, Use, N, X};

const FROM_TO: u8 = 1;

pub(super) fn parse(args: &[String]) -> Result<Parsed, GrammarError> {
    let spec = Spec {
        name: "diff",
        rows: DIFF,
        order: Order::Permute,
        abbrev: true,
    };
    let mut out = Out::new("diff", args);
    let s = scan(&spec, args, 0, &mut out)?;
    for e in &s.events {
        if let Ev::Special {
            code: FROM_TO,
            value: Some(v),
            token,
            value_token,
            ..
        } = e
        {
            out.value_path(*token, *value_token, v, None, Use::ReadTree);
        }
    }
    for (token, text) in s.operands() {
        out.operand_path(token, text, None, Use::ReadTree);
    }
    Ok(out.finish())
}

/// diff 3.8.
pub(super) const DIFF: &[Row] = &[
    o(X, "binary", No, N),
    o('q', "brief", No, N),
    o(X, "changed-group-format", Req, N),
    o(X, "color", Opt, N),
    o(X, "context", Opt, N),
    o('e', "ed", No, N),
    o('x', "exclude", Req, N),
    o('X', "exclude-from", Req, Does::Path(Use::Read)),
    o('t', "expand-tabs", No, N),
    o('f', "forward-ed", No, N),
    o(X, "from-file", Req, Does::Special(FROM_TO)),
    o(X, "help", No, N),
    o(X, "horizon-lines", Req, N),
    o('D', "ifdef", Req, N),
    o('w', "ignore-all-space", No, N),
    o('B', "ignore-blank-lines", No, N),
    o('i', "ignore-case", No, N),
    o(X, "ignore-file-name-case", No, N),
    o('I', "ignore-matching-lines", Req, N),
    o('b', "ignore-space-change", No, N),
    o('E', "ignore-tab-expansion", No, N),
    o('Z', "ignore-trailing-space", No, N),
    o(X, "inhibit-hunk-merge", No, N),
    o('T', "initial-tab", No, N),
    o('L', "label", Req, N),
    o(X, "left-column", No, N),
    o(X, "line-format", Req, N),
    o('d', "minimal", No, N),
    o('N', "new-file", No, N),
    o(X, "new-group-format", Req, N),
    o(X, "new-line-format", Req, N),
    o(X, "no-dereference", No, N),
    o(X, "no-ignore-file-name-case", No, N),
    o(X, "normal", No, N),
    o(X, "old-group-format", Req, N),
    o(X, "old-line-format", Req, N),
    o(
        'l',
        "paginate",
        No,
        Does::Refuse("it runs 'pr' on the output"),
    ),
    o(X, "palette", Req, N),
    o('n', "rcs", No, N),
    o('r', "recursive", No, N),
    o('s', "report-identical-files", No, N),
    o(X, "sdiff-merge-assist", No, Does::Refuse(why::UNDOCUMENTED)),
    o('p', "show-c-function", No, N),
    o('F', "show-function-line", Req, N),
    o('y', "side-by-side", No, N),
    o('H', "speed-large-files", No, N),
    o('S', "starting-file", Req, N),
    o(X, "strip-trailing-cr", No, N),
    o(X, "suppress-blank-empty", No, N),
    o(X, "suppress-common-lines", No, N),
    o(X, "tabsize", Req, N),
    o('a', "text", No, N),
    o(X, "to-file", Req, Does::Special(FROM_TO)),
    o(X, "unchanged-group-format", Req, N),
    o(X, "unchanged-line-format", Req, N),
    o('P', "unidirectional-new-file", No, N),
    o(X, "unified", Opt, N),
    o('v', "version", No, N),
    o('W', "width", Req, N),
    o(
        X,
        "-presume-output-tty",
        No,
        Does::Refuse(why::UNDOCUMENTED),
    ),
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
    o('c', "", No, N),
    o('C', "", Req, N),
    o('h', "", No, N),
    o('u', "", No, N),
    o('U', "", Req, N),
];
