//! git 2.39 (Debian 12): read-only subcommands only.
//!
//! Sources: git-2.39 `git.c` `handle_options` (global options, exact spellings, before the
//! subcommand), the man pages of each allowed subcommand (git-log(1), git-show(1),
//! git-diff(1), git-grep(1), …) and git-config(1) for the settings that make git run a
//! program. The option tables are a curated subset, spelled in full: git's own parsers
//! (parse-options, and the revision walker for log/show/diff) accept unique abbreviations,
//! but a full spelling means the same option in every one of them, so abbreviations are
//! simply refused here. Clusters of short options are read only for subcommands that use
//! parse-options (the revision walker takes one option per argument).
//!
//! What the argv gets:
//! - right after `git`: `--no-pager`, `--no-optional-locks` (status does not rewrite the
//!   index), and `-c key=value` for every setting in [`CONFIG_OVERRIDES`];
//! - right after the subcommand: `--no-ext-diff --no-textconv` (log, show, diff),
//!   `--no-textconv` (grep, blame);
//! - at the end, for the subcommands that print file contents (show, diff, grep, and log
//!   when it prints diffs or searches them): [`exclusion_pathspecs`], one exclusion per
//!   blocked name, extension and folder of `blocked_paths`, relative to the top of the
//!   repository (`top` magic), so committed secrets never reach the output. They go last,
//!   without adding a `--` (git takes `:(…)` words as pathspecs even before one).
//!
//! Operands: a pathspec (after `--`, or a word that may be a path) is reported as a
//! `ReadTree` path and refused when it uses pathspec magic (`:(…)`, a leading `:`); a
//! revision naming a path (`rev:path`, `:path`, `:N:path`) reports that path (`Read`) for
//! the policy to judge. A bare hexadecimal object name is rewritten to `NAME^{commit}`, so
//! `git show <blob-id>` or `git diff <blob> <blob>` cannot print a blob by its hash. Every
//! subcommand reads the repository: `.` (under `-C`) is reported as `ReadTree`.
//! Not covered: a ref that the repository's owner pointed at a blob (`git show some-ref`),
//! and clean/smudge filters named by `.gitattributes` and defined in the repository's own
//! config (run by status/diff on changed files): the sandbox lets git run no other program.

use super::{refused, refused_operand, why, GrammarError, Out, Parsed, Role, Use};
use crate::core::security::blocked_paths::{EXTENSIONS, FILENAMES, SECURITY_DIRS};

/// `-c key=value` settings inserted after `git`: each names or enables a program git would
/// run (git-config(1)), or a write a read-only command could trigger.
pub const CONFIG_OVERRIDES: &[&str] = &[
    // hooks and the file-system monitor hook
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    // pager and editors (with --no-pager as well)
    "core.pager=cat",
    "core.editor=false",
    "sequence.editor=false",
    // external diff program (with --no-ext-diff as well)
    "diff.external=",
    // transports, remote helpers and their credential programs
    "protocol.allow=never",
    "core.sshCommand=false",
    "core.gitProxy=false",
    "core.askPass=false",
    "credential.helper=",
    "core.alternateRefsCommand=false",
    "uploadpack.packObjectsHook=",
    // signature verification (log --show-signature, log.showSignature, %G? formats)
    "gpg.program=false",
    "gpg.openpgp.program=false",
    "gpg.x509.program=false",
    "gpg.ssh.program=false",
    "gpg.ssh.defaultKeyCommand=false",
    "log.showSignature=false",
    // automatic maintenance (runs `git gc --auto`, writes)
    "gc.auto=0",
    "maintenance.auto=false",
    // `git grep` outside a repository would search the folder as plain files
    "grep.fallbackToNoIndex=false",
];

/// Pathspecs that drop every blocked name from git's output, relative to the top of the
/// repository and case-insensitive (the file tools compare names lower-cased). A name's
/// backups (`name~`, `name.bak`, any `name.*`) go with it; over-excluding a `name.*` that is
/// no backup only hides it from git.
pub fn exclusion_pathspecs() -> Vec<String> {
    let ex = |glob: String| format!(":(top,exclude,glob,icase){glob}");
    let mut out = Vec::new();
    for name in FILENAMES.iter().chain(&[".env"]) {
        out.push(ex(format!("**/{name}")));
        out.push(ex(format!("**/{name}.*")));
        out.push(ex(format!("**/{name}~")));
    }
    for ext in EXTENSIONS {
        out.push(ex(format!("**/*.{ext}")));
        out.push(ex(format!("**/*.{ext}.*")));
        out.push(ex(format!("**/*.{ext}~")));
    }
    for dir in SECURITY_DIRS {
        out.push(ex(format!("**/{dir}")));
        out.push(ex(format!("**/{dir}/**")));
    }
    out
}

/// How an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum F {
    /// No value.
    Flag,
    /// A value: `--x=v` or `--x v`; `-xv` or `-x v`.
    Val,
    /// A value only as `--x=v` (revision.c `skip_prefix(arg, "--x=")`).
    Equals,
    /// An optional value, attached only: `--x`, `--x=v`; `-x`, `-xv`.
    OptEq,
    /// parse-options `LASTARG_DEFAULT`: `--x=v`, or `--x v` unless it is the last argument.
    Next,
}

/// What an option means here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum D {
    Ok,
    /// It prints or searches file contents (log: exclusions are appended).
    Content,
    Refuse(&'static str),
    /// Its value is a file read.
    PathRead,
    /// grep: its value is the pattern.
    Pattern,
    /// grep -f: the pattern file.
    PatternFile,
    /// branch/tag: list mode, operands are patterns.
    List,
}

struct G {
    name: &'static str,
    form: F,
    does: D,
}

const fn g(name: &'static str, form: F, does: D) -> G {
    G { name, form, does }
}

use F::{Equals, Flag, Next, OptEq, Val};

const PAGER: D = D::Refuse(why::PAGER);
const EXT_DIFF: D = D::Refuse("it runs an external diff program");
const TEXTCONV: D = D::Refuse("it runs textconv filter programs");
const NO_INDEX: D = D::Refuse("it compares files outside the repository; use diff");
const OUTPUT: D = D::Refuse("it writes the output to a file");

/// Diff output options shared by log, show and diff (git-diff(1) "OPTIONS", diff.c).
const DIFF_OPTS: &[G] = &[
    g("-p", Flag, D::Content),
    g("-u", Flag, D::Content),
    g("--patch", Flag, D::Content),
    g("-s", Flag, D::Ok),
    g("--no-patch", Flag, D::Ok),
    g("-U", OptEq, D::Content),
    g("--unified", OptEq, D::Content),
    g("--output", Val, OUTPUT),
    g("--raw", Flag, D::Ok),
    g("--patch-with-raw", Flag, D::Content),
    g("--patch-with-stat", Flag, D::Content),
    g("--minimal", Flag, D::Ok),
    g("--patience", Flag, D::Ok),
    g("--histogram", Flag, D::Ok),
    g("--anchored", Val, D::Ok),
    g("--diff-algorithm", Val, D::Ok),
    g("--indent-heuristic", Flag, D::Ok),
    g("--no-indent-heuristic", Flag, D::Ok),
    g("--stat", OptEq, D::Content),
    g("--stat-width", Val, D::Ok),
    g("--stat-name-width", Val, D::Ok),
    g("--stat-graph-width", Val, D::Ok),
    g("--stat-count", Val, D::Ok),
    g("--compact-summary", Flag, D::Content),
    g("--numstat", Flag, D::Content),
    g("--shortstat", Flag, D::Content),
    g("--dirstat", OptEq, D::Content),
    g("-X", OptEq, D::Content),
    g("--cumulative", Flag, D::Content),
    g("--summary", Flag, D::Content),
    g("-z", Flag, D::Ok),
    g("--name-only", Flag, D::Content),
    g("--name-status", Flag, D::Content),
    // --submodule=diff prints submodule files, which the exclusions may not reach
    g("--submodule", OptEq, D::Refuse(why::UNSUPPORTED)),
    g("--color", OptEq, D::Ok),
    g("--no-color", Flag, D::Ok),
    g("--color-moved", OptEq, D::Ok),
    g("--no-color-moved", Flag, D::Ok),
    g("--color-moved-ws", Val, D::Ok),
    g("--no-color-moved-ws", Flag, D::Ok),
    g("--word-diff", OptEq, D::Content),
    g("--word-diff-regex", Val, D::Content),
    g("--color-words", OptEq, D::Content),
    g("--no-renames", Flag, D::Ok),
    g("--rename-empty", Flag, D::Ok),
    g("--no-rename-empty", Flag, D::Ok),
    g("--check", Flag, D::Content),
    g("--ws-error-highlight", Val, D::Ok),
    g("--full-index", Flag, D::Ok),
    g("--binary", Flag, D::Content),
    g("--abbrev", OptEq, D::Ok),
    g("--no-abbrev", Flag, D::Ok),
    g("-B", OptEq, D::Ok),
    g("--break-rewrites", OptEq, D::Ok),
    g("-M", OptEq, D::Ok),
    g("--find-renames", OptEq, D::Ok),
    g("-C", OptEq, D::Ok),
    g("--find-copies", OptEq, D::Ok),
    g("--find-copies-harder", Flag, D::Ok),
    g("-D", Flag, D::Ok),
    g("--irreversible-delete", Flag, D::Ok),
    g("-l", Val, D::Ok),
    g("--diff-filter", Val, D::Ok),
    g("-S", Val, D::Content),
    g("-G", Val, D::Content),
    g("--find-object", Val, D::Content),
    g("--pickaxe-all", Flag, D::Content),
    g("--pickaxe-regex", Flag, D::Content),
    g("-O", Val, D::Refuse("it reads an order file")),
    g("--skip-to", Val, D::Ok),
    g("--rotate-to", Val, D::Ok),
    g("-R", Flag, D::Ok),
    g("--relative", OptEq, D::Refuse(why::UNSUPPORTED)),
    g("--no-relative", Flag, D::Ok),
    g("-a", Flag, D::Ok),
    g("--text", Flag, D::Ok),
    g("--ignore-cr-at-eol", Flag, D::Ok),
    g("--ignore-space-at-eol", Flag, D::Ok),
    g("-b", Flag, D::Ok),
    g("--ignore-space-change", Flag, D::Ok),
    g("-w", Flag, D::Ok),
    g("--ignore-all-space", Flag, D::Ok),
    g("--ignore-blank-lines", Flag, D::Ok),
    g("-I", Val, D::Ok),
    g("--ignore-matching-lines", Val, D::Ok),
    g("--inter-hunk-context", Val, D::Ok),
    g("-W", Flag, D::Content),
    g("--function-context", Flag, D::Content),
    g("--exit-code", Flag, D::Ok),
    g("--quiet", Flag, D::Ok),
    g("--ext-diff", Flag, EXT_DIFF),
    g("--no-ext-diff", Flag, D::Ok),
    g("--textconv", Flag, TEXTCONV),
    g("--no-textconv", Flag, D::Ok),
    g("--ignore-submodules", OptEq, D::Ok),
    g("--src-prefix", Val, D::Ok),
    g("--dst-prefix", Val, D::Ok),
    g("--no-prefix", Flag, D::Ok),
    g("--line-prefix", Val, D::Ok),
    g("--ita-invisible-in-index", Flag, D::Ok),
    g("--ita-visible-in-index", Flag, D::Ok),
    g("--output-indicator-new", Val, D::Ok),
    g("--output-indicator-old", Val, D::Ok),
    g("--output-indicator-context", Val, D::Ok),
    g("--no-index", Flag, NO_INDEX),
    g("--help", Flag, D::Refuse("it opens the manual in a pager")),
];

/// Commit-walking options of log and show (git-log(1) "Commit Limiting", "History
/// Simplification", "Commit Ordering", "Commit Formatting", "Diff Formatting").
const REV_OPTS: &[G] = &[
    g("-n", Val, D::Ok),
    g("--max-count", Val, D::Ok),
    g("--skip", Val, D::Ok),
    g("--since", Val, D::Ok),
    g("--after", Val, D::Ok),
    g("--until", Val, D::Ok),
    g("--before", Val, D::Ok),
    g("--author", Val, D::Ok),
    g("--committer", Val, D::Ok),
    g("--grep", Val, D::Ok),
    g("--grep-reflog", Val, D::Ok),
    g("--all-match", Flag, D::Ok),
    g("--invert-grep", Flag, D::Ok),
    g("-i", Flag, D::Ok),
    g("--regexp-ignore-case", Flag, D::Ok),
    g("--basic-regexp", Flag, D::Ok),
    g("-E", Flag, D::Ok),
    g("--extended-regexp", Flag, D::Ok),
    g("-F", Flag, D::Ok),
    g("--fixed-strings", Flag, D::Ok),
    g("-P", Flag, D::Ok),
    g("--perl-regexp", Flag, D::Ok),
    g("--remove-empty", Flag, D::Ok),
    g("--merges", Flag, D::Ok),
    g("--no-merges", Flag, D::Ok),
    g("--min-parents", Equals, D::Ok),
    g("--max-parents", Equals, D::Ok),
    g("--no-min-parents", Flag, D::Ok),
    g("--no-max-parents", Flag, D::Ok),
    g("--first-parent", Flag, D::Ok),
    g("--all", Flag, D::Ok),
    g("--branches", OptEq, D::Ok),
    g("--tags", OptEq, D::Ok),
    g("--remotes", OptEq, D::Ok),
    g("--glob", Equals, D::Ok),
    g("--exclude", Equals, D::Ok),
    g("--reflog", Flag, D::Ok),
    g("--alternate-refs", Flag, D::Refuse(why::UNSUPPORTED)),
    g("--single-worktree", Flag, D::Ok),
    g("--ignore-missing", Flag, D::Ok),
    g("--bisect", Flag, D::Ok),
    g(
        "--stdin",
        Flag,
        D::Refuse("it reads revisions from standard input"),
    ),
    g("--cherry-mark", Flag, D::Ok),
    g("--cherry-pick", Flag, D::Ok),
    g("--left-only", Flag, D::Ok),
    g("--right-only", Flag, D::Ok),
    g("--cherry", Flag, D::Ok),
    g("-g", Flag, D::Ok),
    g("--walk-reflogs", Flag, D::Ok),
    g("--merge", Flag, D::Ok),
    g("--boundary", Flag, D::Ok),
    g("--simplify-by-decoration", Flag, D::Ok),
    g("--full-history", Flag, D::Ok),
    g("--dense", Flag, D::Ok),
    g("--sparse", Flag, D::Ok),
    g("--simplify-merges", Flag, D::Ok),
    g("--ancestry-path", OptEq, D::Ok),
    g("--show-pulls", Flag, D::Ok),
    g("--date-order", Flag, D::Ok),
    g("--author-date-order", Flag, D::Ok),
    g("--topo-order", Flag, D::Ok),
    g("--reverse", Flag, D::Ok),
    g("--no-walk", OptEq, D::Ok),
    g("--do-walk", Flag, D::Ok),
    g("--pretty", OptEq, D::Ok),
    g("--format", Equals, D::Ok),
    g("--abbrev-commit", Flag, D::Ok),
    g("--no-abbrev-commit", Flag, D::Ok),
    g("--oneline", Flag, D::Ok),
    g("--encoding", Equals, D::Ok),
    g("--expand-tabs", OptEq, D::Ok),
    g("--no-expand-tabs", Flag, D::Ok),
    g("--notes", OptEq, D::Ok),
    g("--no-notes", Flag, D::Ok),
    g("--show-notes", OptEq, D::Ok),
    g("--show-signature", Flag, D::Refuse("it runs gpg")),
    g("--no-show-signature", Flag, D::Ok),
    g("--relative-date", Flag, D::Ok),
    g("--date", Val, D::Ok),
    g("--parents", Flag, D::Ok),
    g("--children", Flag, D::Ok),
    g("--left-right", Flag, D::Ok),
    g("--graph", Flag, D::Ok),
    g("--show-linear-break", OptEq, D::Ok),
    g("--decorate", OptEq, D::Ok),
    g("--no-decorate", Flag, D::Ok),
    g("--decorate-refs", Equals, D::Ok),
    g("--decorate-refs-exclude", Equals, D::Ok),
    g("--clear-decorations", Flag, D::Ok),
    g("--source", Flag, D::Ok),
    g("--mailmap", Flag, D::Ok),
    g("--no-mailmap", Flag, D::Ok),
    g("--use-mailmap", Flag, D::Ok),
    g("--no-use-mailmap", Flag, D::Ok),
    g("--log-size", Flag, D::Ok),
    g("-m", Flag, D::Content),
    g("-c", Flag, D::Content),
    g("--cc", Flag, D::Content),
    g("--remerge-diff", Flag, D::Content),
    g("--diff-merges", Equals, D::Content),
    g("--no-diff-merges", Flag, D::Ok),
    g("--combined-all-paths", Flag, D::Ok),
    g("-t", Flag, D::Ok),
    g(
        "--full-diff",
        Flag,
        D::Refuse("it shows every file of the commits a pathspec selects"),
    ),
    g("--follow", Flag, D::Refuse(why::UNSUPPORTED)),
    g(
        "-L",
        Val,
        D::Refuse("it prints line ranges of a file; use git blame -L"),
    ),
];

/// git diff's own options (git-diff(1)).
const DIFF_ONLY: &[G] = &[
    g("--cached", Flag, D::Ok),
    g("--staged", Flag, D::Ok),
    g("--merge-base", Flag, D::Ok),
    g("--base", Flag, D::Ok),
    g("-1", Flag, D::Ok),
    g("--ours", Flag, D::Ok),
    g("-2", Flag, D::Ok),
    g("--theirs", Flag, D::Ok),
    g("-3", Flag, D::Ok),
    g("-0", Flag, D::Ok),
];

/// git grep (git-grep(1)).
const GREP_OPTS: &[G] = &[
    g("--cached", Flag, D::Ok),
    g("--untracked", Flag, D::Ok),
    g("--no-index", Flag, NO_INDEX),
    g("--no-exclude-standard", Flag, D::Ok),
    g("--exclude-standard", Flag, D::Ok),
    g("--recurse-submodules", Flag, D::Refuse(why::UNSUPPORTED)),
    g("-a", Flag, D::Ok),
    g("--text", Flag, D::Ok),
    g("--textconv", Flag, TEXTCONV),
    g("--no-textconv", Flag, D::Ok),
    g("-i", Flag, D::Ok),
    g("--ignore-case", Flag, D::Ok),
    g("-I", Flag, D::Ok),
    g("--max-depth", Val, D::Ok),
    g("-r", Flag, D::Ok),
    g("--recursive", Flag, D::Ok),
    g("--no-recursive", Flag, D::Ok),
    g("-w", Flag, D::Ok),
    g("--word-regexp", Flag, D::Ok),
    g("-v", Flag, D::Ok),
    g("--invert-match", Flag, D::Ok),
    g("-h", Flag, D::Ok),
    g("-H", Flag, D::Ok),
    g("--full-name", Flag, D::Ok),
    g("-E", Flag, D::Ok),
    g("--extended-regexp", Flag, D::Ok),
    g("-G", Flag, D::Ok),
    g("--basic-regexp", Flag, D::Ok),
    g("-P", Flag, D::Ok),
    g("--perl-regexp", Flag, D::Ok),
    g("-F", Flag, D::Ok),
    g("--fixed-strings", Flag, D::Ok),
    g("-n", Flag, D::Ok),
    g("--line-number", Flag, D::Ok),
    g("--column", Flag, D::Ok),
    g("-l", Flag, D::Ok),
    g("--files-with-matches", Flag, D::Ok),
    g("--name-only", Flag, D::Ok),
    g("-L", Flag, D::Ok),
    g("--files-without-match", Flag, D::Ok),
    g("-O", OptEq, PAGER),
    g("--open-files-in-pager", OptEq, PAGER),
    g("-z", Flag, D::Ok),
    g("--null", Flag, D::Ok),
    g("-o", Flag, D::Ok),
    g("--only-matching", Flag, D::Ok),
    g("-c", Flag, D::Ok),
    g("--count", Flag, D::Ok),
    g("--color", OptEq, D::Ok),
    g("--no-color", Flag, D::Ok),
    g("--break", Flag, D::Ok),
    g("--heading", Flag, D::Ok),
    g("-p", Flag, D::Ok),
    g("--show-function", Flag, D::Ok),
    g("-A", Val, D::Ok),
    g("--after-context", Val, D::Ok),
    g("-B", Val, D::Ok),
    g("--before-context", Val, D::Ok),
    g("-C", Val, D::Ok),
    g("--context", Val, D::Ok),
    g("-W", Flag, D::Ok),
    g("--function-context", Flag, D::Ok),
    g("-m", Val, D::Ok),
    g("--max-count", Val, D::Ok),
    g("--threads", Val, D::Ok),
    g("-f", Val, D::PatternFile),
    g("-e", Val, D::Pattern),
    g("--and", Flag, D::Ok),
    g("--or", Flag, D::Ok),
    g("--not", Flag, D::Ok),
    g("--all-match", Flag, D::Ok),
    g("-q", Flag, D::Ok),
    g("--quiet", Flag, D::Ok),
];

/// git blame (git-blame(1)).
const BLAME_OPTS: &[G] = &[
    g("-b", Flag, D::Ok),
    g("--root", Flag, D::Ok),
    g("--show-stats", Flag, D::Ok),
    g("-L", Val, D::Ok),
    g("-l", Flag, D::Ok),
    g("-t", Flag, D::Ok),
    g("-S", Val, D::PathRead),
    g("--reverse", Flag, D::Ok),
    g("--first-parent", Flag, D::Ok),
    g("-p", Flag, D::Ok),
    g("--porcelain", Flag, D::Ok),
    g("--line-porcelain", Flag, D::Ok),
    g("--incremental", Flag, D::Ok),
    g("--encoding", Val, D::Ok),
    g("--contents", Val, D::PathRead),
    g("--date", Val, D::Ok),
    g("--progress", Flag, D::Ok),
    g("--no-progress", Flag, D::Ok),
    g("-M", OptEq, D::Ok),
    g("-C", OptEq, D::Ok),
    g("--ignore-rev", Val, D::Ok),
    g("--ignore-revs-file", Val, D::PathRead),
    g("--color-lines", Flag, D::Ok),
    g("--color-by-age", Flag, D::Ok),
    g("--minimal", Flag, D::Ok),
    g("-c", Flag, D::Ok),
    g("--score-debug", Flag, D::Ok),
    g("-f", Flag, D::Ok),
    g("--show-name", Flag, D::Ok),
    g("-n", Flag, D::Ok),
    g("--show-number", Flag, D::Ok),
    g("-s", Flag, D::Ok),
    g("-e", Flag, D::Ok),
    g("--show-email", Flag, D::Ok),
    g("-w", Flag, D::Ok),
    g("--abbrev", OptEq, D::Ok),
    g("--textconv", Flag, TEXTCONV),
    g("--no-textconv", Flag, D::Ok),
];

/// git status (git-status(1)); `-v` prints staged diffs, refused.
const STATUS_OPTS: &[G] = &[
    g("-s", Flag, D::Ok),
    g("--short", Flag, D::Ok),
    g("-b", Flag, D::Ok),
    g("--branch", Flag, D::Ok),
    g("--show-stash", Flag, D::Ok),
    g("--porcelain", OptEq, D::Ok),
    g("--long", Flag, D::Ok),
    g(
        "-v",
        Flag,
        D::Refuse("it prints the staged changes; use git diff --cached"),
    ),
    g(
        "--verbose",
        Flag,
        D::Refuse("it prints the staged changes; use git diff --cached"),
    ),
    g("-u", OptEq, D::Ok),
    g("--untracked-files", OptEq, D::Ok),
    g("--ignore-submodules", OptEq, D::Ok),
    g("--ignored", OptEq, D::Ok),
    g("-z", Flag, D::Ok),
    g("--column", OptEq, D::Ok),
    g("--no-column", Flag, D::Ok),
    g("--ahead-behind", Flag, D::Ok),
    g("--no-ahead-behind", Flag, D::Ok),
    g("--renames", Flag, D::Ok),
    g("--no-renames", Flag, D::Ok),
    g("--find-renames", OptEq, D::Ok),
];

/// git ls-files (git-ls-files(1)).
const LS_FILES_OPTS: &[G] = &[
    g("-c", Flag, D::Ok),
    g("--cached", Flag, D::Ok),
    g("-d", Flag, D::Ok),
    g("--deleted", Flag, D::Ok),
    g("-m", Flag, D::Ok),
    g("--modified", Flag, D::Ok),
    g("-o", Flag, D::Ok),
    g("--others", Flag, D::Ok),
    g("-i", Flag, D::Ok),
    g("--ignored", Flag, D::Ok),
    g("-s", Flag, D::Ok),
    g("--stage", Flag, D::Ok),
    g("-u", Flag, D::Ok),
    g("--unmerged", Flag, D::Ok),
    g("-k", Flag, D::Ok),
    g("--killed", Flag, D::Ok),
    g("--resolve-undo", Flag, D::Ok),
    g("--directory", Flag, D::Ok),
    g("--no-empty-directory", Flag, D::Ok),
    g("--eol", Flag, D::Ok),
    g("--deduplicate", Flag, D::Ok),
    g("-x", Val, D::Ok),
    g("--exclude", Val, D::Ok),
    g("-X", Val, D::PathRead),
    g("--exclude-from", Val, D::PathRead),
    g("--exclude-per-directory", Val, D::Ok),
    g("--exclude-standard", Flag, D::Ok),
    g("--error-unmatch", Flag, D::Ok),
    g("--with-tree", Val, D::Ok),
    g("-t", Flag, D::Ok),
    g("-v", Flag, D::Ok),
    g("-f", Flag, D::Ok),
    g("--full-name", Flag, D::Ok),
    g("--recurse-submodules", Flag, D::Ok),
    g("--abbrev", OptEq, D::Ok),
    g("--debug", Flag, D::Ok),
    g("--sparse", Flag, D::Ok),
    g("--format", Val, D::Ok),
    g("-z", Flag, D::Ok),
];

/// git ls-tree (git-ls-tree(1)).
const LS_TREE_OPTS: &[G] = &[
    g("-d", Flag, D::Ok),
    g("-r", Flag, D::Ok),
    g("-t", Flag, D::Ok),
    g("-l", Flag, D::Ok),
    g("--long", Flag, D::Ok),
    g("-z", Flag, D::Ok),
    g("--name-only", Flag, D::Ok),
    g("--name-status", Flag, D::Ok),
    g("--object-only", Flag, D::Ok),
    g("--full-name", Flag, D::Ok),
    g("--full-tree", Flag, D::Ok),
    g("--abbrev", OptEq, D::Ok),
    g("--format", Val, D::Ok),
];

/// git rev-parse (git-rev-parse(1)); it reads its options with exact comparisons.
const REV_PARSE_OPTS: &[G] = &[
    g("--verify", Flag, D::Ok),
    g("-q", Flag, D::Ok),
    g("--quiet", Flag, D::Ok),
    g("--short", OptEq, D::Ok),
    g("--abbrev-ref", OptEq, D::Ok),
    g("--symbolic", Flag, D::Ok),
    g("--symbolic-full-name", Flag, D::Ok),
    g("--show-toplevel", Flag, D::Ok),
    g("--show-prefix", Flag, D::Ok),
    g("--show-cdup", Flag, D::Ok),
    g("--git-dir", Flag, D::Ok),
    g("--absolute-git-dir", Flag, D::Ok),
    g("--git-common-dir", Flag, D::Ok),
    g("--is-inside-git-dir", Flag, D::Ok),
    g("--is-inside-work-tree", Flag, D::Ok),
    g("--is-bare-repository", Flag, D::Ok),
    g("--is-shallow-repository", Flag, D::Ok),
    g("--show-superproject-working-tree", Flag, D::Ok),
    g("--show-object-format", OptEq, D::Ok),
    g("--all", Flag, D::Ok),
    g("--branches", OptEq, D::Ok),
    g("--tags", OptEq, D::Ok),
    g("--remotes", OptEq, D::Ok),
    g("--revs-only", Flag, D::Ok),
    g("--no-revs", Flag, D::Ok),
    g("--flags", Flag, D::Ok),
    g("--no-flags", Flag, D::Ok),
    g("--sq", Flag, D::Ok),
    g("--not", Flag, D::Ok),
    g("--default", Val, D::Ok),
];

/// git branch, list forms only (git-branch(1)); an operand without `--list` would create a
/// branch.
const BRANCH_OPTS: &[G] = &[
    g("-l", Flag, D::List),
    g("--list", Flag, D::List),
    g("-a", Flag, D::Ok),
    g("--all", Flag, D::Ok),
    g("-r", Flag, D::Ok),
    g("--remotes", Flag, D::Ok),
    g("-v", Flag, D::Ok),
    g("--verbose", Flag, D::Ok),
    g("-i", Flag, D::Ok),
    g("--ignore-case", Flag, D::Ok),
    g("--show-current", Flag, D::Ok),
    g("--column", OptEq, D::Ok),
    g("--no-column", Flag, D::Ok),
    g("--color", OptEq, D::Ok),
    g("--no-color", Flag, D::Ok),
    g("--abbrev", OptEq, D::Ok),
    g("--no-abbrev", Flag, D::Ok),
    g("--sort", Val, D::Ok),
    g("--format", Val, D::Ok),
    g("--points-at", Val, D::Ok),
    g("--contains", Next, D::Ok),
    g("--no-contains", Next, D::Ok),
    g("--merged", Next, D::Ok),
    g("--no-merged", Next, D::Ok),
];

/// git tag, list forms only (git-tag(1)).
const TAG_OPTS: &[G] = &[
    g("-l", Flag, D::List),
    g("--list", Flag, D::List),
    g("-n", OptEq, D::Ok),
    g("-i", Flag, D::Ok),
    g("--ignore-case", Flag, D::Ok),
    g("--column", OptEq, D::Ok),
    g("--no-column", Flag, D::Ok),
    g("--color", OptEq, D::Ok),
    g("--sort", Val, D::Ok),
    g("--format", Val, D::Ok),
    g("--points-at", Val, D::Ok),
    g("--contains", Next, D::Ok),
    g("--no-contains", Next, D::Ok),
    g("--merged", Next, D::Ok),
    g("--no-merged", Next, D::Ok),
];

/// git shortlog (git-shortlog(1)): authors and subjects, no contents.
const SHORTLOG_OPTS: &[G] = &[
    g("-n", Flag, D::Ok),
    g("--numbered", Flag, D::Ok),
    g("-s", Flag, D::Ok),
    g("--summary", Flag, D::Ok),
    g("-e", Flag, D::Ok),
    g("--email", Flag, D::Ok),
    g("-c", Flag, D::Ok),
    g("--committer", Flag, D::Ok),
    g("--group", Val, D::Ok),
    g("--format", Equals, D::Ok),
    g("-w", OptEq, D::Ok),
    g("--all", Flag, D::Ok),
    g("--since", Val, D::Ok),
    g("--after", Val, D::Ok),
    g("--until", Val, D::Ok),
    g("--before", Val, D::Ok),
    g("--author", Val, D::Ok),
    g("--no-merges", Flag, D::Ok),
    g("--merges", Flag, D::Ok),
    g("--first-parent", Flag, D::Ok),
    g("--max-count", Val, D::Ok),
];

/// git describe (git-describe(1)).
const DESCRIBE_OPTS: &[G] = &[
    g("--all", Flag, D::Ok),
    g("--tags", Flag, D::Ok),
    g("--contains", Flag, D::Ok),
    g("--long", Flag, D::Ok),
    g("--always", Flag, D::Ok),
    g("--exact-match", Flag, D::Ok),
    g("--first-parent", Flag, D::Ok),
    g("--debug", Flag, D::Ok),
    g("--abbrev", OptEq, D::Ok),
    g("--dirty", OptEq, D::Ok),
    g("--broken", OptEq, D::Ok),
    g("--candidates", Val, D::Ok),
    g("--match", Val, D::Ok),
    g("--exclude", Val, D::Ok),
];

/// What a subcommand's operands are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// Revisions, then paths (log, show, diff, shortlog, rev-parse).
    RevsPaths,
    /// Pattern (unless -e/-f), then trees, then paths.
    Grep,
    /// `[rev] [--] file`: every operand may be the file.
    Blame,
    /// Pathspecs only.
    Paths,
    /// A tree, then paths.
    TreePaths,
    /// Patterns, in list mode only.
    ListPatterns,
    /// Commit-ish names, no paths.
    Names,
    /// None at all.
    Nothing,
}

struct Sub {
    name: &'static str,
    tables: &'static [&'static [G]],
    clusters: bool,
    operands: Operands,
    /// Options inserted right after the subcommand.
    insert: &'static [&'static str],
    /// Exclusions appended: always, or (log) only when a Content option is given.
    exclude: Exclude,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exclude {
    Never,
    Always,
    WithContent,
}

const SUBS: &[Sub] = &[
    Sub {
        name: "status",
        tables: &[STATUS_OPTS],
        clusters: true,
        operands: Operands::Paths,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "log",
        tables: &[REV_OPTS, DIFF_OPTS],
        clusters: false,
        operands: Operands::RevsPaths,
        insert: &["--no-ext-diff", "--no-textconv"],
        exclude: Exclude::WithContent,
    },
    Sub {
        name: "show",
        tables: &[REV_OPTS, DIFF_OPTS],
        clusters: false,
        operands: Operands::RevsPaths,
        insert: &["--no-ext-diff", "--no-textconv"],
        exclude: Exclude::Always,
    },
    Sub {
        name: "diff",
        tables: &[DIFF_ONLY, DIFF_OPTS],
        clusters: false,
        operands: Operands::RevsPaths,
        insert: &["--no-ext-diff", "--no-textconv"],
        exclude: Exclude::Always,
    },
    Sub {
        name: "grep",
        tables: &[GREP_OPTS],
        clusters: true,
        operands: Operands::Grep,
        insert: &["--no-textconv"],
        exclude: Exclude::Always,
    },
    Sub {
        name: "blame",
        tables: &[BLAME_OPTS],
        clusters: true,
        operands: Operands::Blame,
        insert: &["--no-textconv"],
        exclude: Exclude::Never,
    },
    Sub {
        name: "branch",
        tables: &[BRANCH_OPTS],
        clusters: true,
        operands: Operands::ListPatterns,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "tag",
        tables: &[TAG_OPTS],
        clusters: true,
        operands: Operands::ListPatterns,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "rev-parse",
        tables: &[REV_PARSE_OPTS],
        clusters: false,
        operands: Operands::RevsPaths,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "ls-files",
        tables: &[LS_FILES_OPTS],
        clusters: true,
        operands: Operands::Paths,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "ls-tree",
        tables: &[LS_TREE_OPTS],
        clusters: true,
        operands: Operands::TreePaths,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "shortlog",
        tables: &[SHORTLOG_OPTS],
        clusters: true,
        operands: Operands::RevsPaths,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "describe",
        tables: &[DESCRIBE_OPTS],
        clusters: true,
        operands: Operands::Names,
        insert: &[],
        exclude: Exclude::Never,
    },
    Sub {
        name: "version",
        tables: &[],
        clusters: false,
        operands: Operands::Nothing,
        insert: &[],
        exclude: Exclude::Never,
    },
];

fn find(sub: &Sub, name: &str) -> Option<&'static G> {
    sub.tables
        .iter()
        .flat_map(|t| t.iter())
        .find(|o| o.name == name)
}

/// Global options refused, with why (git.c handle_options; exact spellings, `=` forms too).
const GLOBAL_REFUSED: &[(&str, &str)] = &[
    (
        "-c",
        "it sets configuration, which can name programs to run",
    ),
    (
        "--config-env",
        "it sets configuration, which can name programs to run",
    ),
    (
        "--exec-path",
        "it changes where git finds the programs it runs",
    ),
    ("--git-dir", "it points git at another repository"),
    ("--work-tree", "it points git at another working tree"),
    ("--namespace", why::UNSUPPORTED),
    ("--super-prefix", why::UNDOCUMENTED),
    ("--bare", why::UNSUPPORTED),
    ("-p", why::PAGER),
    ("--paginate", why::PAGER),
    (
        "--literal-pathspecs",
        "it turns off the pathspec magic that hides blocked files",
    ),
    ("--glob-pathspecs", "it changes how every pathspec matches"),
    (
        "--noglob-pathspecs",
        "it changes how every pathspec matches",
    ),
    ("--icase-pathspecs", "it changes how every pathspec matches"),
    ("--list-cmds", why::UNSUPPORTED),
    ("--html-path", why::UNSUPPORTED),
    ("--man-path", why::UNSUPPORTED),
    ("--info-path", why::UNSUPPORTED),
    ("-h", "it opens the manual"),
    ("--help", "it opens the manual in a pager"),
];

pub(super) fn parse(args: &[String]) -> Result<Parsed, GrammarError> {
    let mut out = Out::new("git", args);
    let mut base: Option<String> = None;
    let mut i = 0;
    // global options
    while let Some(t) = args.get(i) {
        let t = t.as_str();
        if !t.starts_with('-') {
            break;
        }
        let name = t.split('=').next().unwrap_or(t);
        match t {
            "-C" => {
                let Some(dir) = args.get(i + 1) else {
                    return Err(GrammarError::MissingValue {
                        program: "git".into(),
                        option: "-C".into(),
                    });
                };
                base = Some(join(base.as_deref(), dir));
                out.option(i, Some(i + 1));
                i += 2;
                continue;
            }
            "--no-pager" | "-P" | "--no-replace-objects" | "--no-optional-locks" => {
                out.role(i, Role::Option)
            }
            "-v" | "--version" => out.role(i, Role::Option),
            _ => {
                if let Some((_, w)) = GLOBAL_REFUSED.iter().find(|(n, _)| *n == name) {
                    return Err(refused("git", name, w));
                }
                return Err(GrammarError::UnknownOption {
                    program: "git".into(),
                    option: name.to_string(),
                });
            }
        }
        i += 1;
    }
    let mut argv: Vec<String> = vec![
        "git".into(),
        "--no-pager".into(),
        "--no-optional-locks".into(),
    ];
    for c in CONFIG_OVERRIDES {
        argv.push("-c".into());
        argv.push((*c).into());
    }
    argv.extend(args.iter().take(i).cloned());
    let Some(subname) = args.get(i) else {
        // `git`, `git --version`: no repository read
        out.argv = argv;
        return Ok(out.finish());
    };
    let Some(sub) = SUBS.iter().find(|s| s.name == subname) else {
        return Err(GrammarError::RefusedSubcommand {
            name: subname.clone(),
        });
    };
    let program = format!("git {}", sub.name);
    out.role(i, Role::Command);
    argv.push(subname.clone());
    argv.extend(sub.insert.iter().map(|s| (*s).to_string()));
    if sub.name != "version" {
        out.path(".", base.as_deref(), Use::ReadTree);
    }

    // subcommand options and operands
    let unknown = |o: &str| GrammarError::UnknownOption {
        program: program.clone(),
        option: o.to_string(),
    };
    let mut content = false;
    let mut pattern_given = false;
    let mut list = false;
    let mut dashdash: Option<usize> = None;
    let mut operands: Vec<usize> = Vec::new();
    let mut k = i + 1;
    while let Some(t) = args.get(k) {
        let idx = k;
        k += 1;
        if dashdash.is_some() || !t.starts_with('-') || t == "-" {
            operands.push(idx);
            continue;
        }
        if t == "--" {
            dashdash = Some(idx);
            out.role(idx, Role::EndOfOptions);
            continue;
        }
        if sub.name == "grep" && !operands.is_empty() {
            // parse-options stops at the first operand; git dies on a later option
            return Err(refused_operand(
                &program,
                t,
                "options must come before the pattern",
            ));
        }
        // (option row, option name as written, value, separate value index)
        let mut found: Vec<(&G, String, Option<&str>, Option<usize>)> = Vec::new();
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (t.to_string(), None),
            };
            let row = find(sub, &name).ok_or_else(|| unknown(&name))?;
            let (value, sep) = match (row.form, value) {
                (Flag, Some(_)) => {
                    return Err(GrammarError::UnexpectedValue {
                        program: program.clone(),
                        option: name,
                    })
                }
                (_, Some(v)) => (Some(v), None),
                (Val, None) => match args.get(k) {
                    Some(v) => {
                        k += 1;
                        (Some(v.as_str()), Some(k - 1))
                    }
                    None => {
                        return Err(GrammarError::MissingValue {
                            program: program.clone(),
                            option: name,
                        })
                    }
                },
                (Next, None) => match args.get(k) {
                    Some(v) => {
                        k += 1;
                        (Some(v.as_str()), Some(k - 1))
                    }
                    None => (None, None),
                },
                (Equals, None) => {
                    return Err(GrammarError::MissingValue {
                        program: program.clone(),
                        option: format!("{name}=…"),
                    })
                }
                (Flag | OptEq, None) => (None, None),
            };
            found.push((row, name, value, sep));
        } else if t.len() > 1 && t[1..].bytes().all(|b| b.is_ascii_digit()) {
            // -<n>: log's count, grep's context
            if !matches!(sub.name, "log" | "show" | "grep") {
                return Err(unknown(t));
            }
            out.role(idx, Role::Option);
            continue;
        } else {
            for (pos, c) in t.char_indices().skip(1) {
                let name = format!("-{c}");
                let row = find(sub, &name).ok_or_else(|| unknown(&name))?;
                let rest = t.get(pos + c.len_utf8()..).unwrap_or("");
                match row.form {
                    Flag => {
                        found.push((row, name, None, None));
                        if !rest.is_empty() && !sub.clusters {
                            return Err(unknown(t));
                        }
                    }
                    OptEq | Equals => {
                        found.push((row, name, Some(rest).filter(|r| !r.is_empty()), None));
                        break;
                    }
                    Val | Next => {
                        if !rest.is_empty() {
                            found.push((row, name, Some(rest), None));
                        } else if let Some(v) = args.get(k) {
                            k += 1;
                            found.push((row, name, Some(v.as_str()), Some(k - 1)));
                        } else if row.form == Val {
                            return Err(GrammarError::MissingValue {
                                program: program.clone(),
                                option: name,
                            });
                        } else {
                            found.push((row, name, None, None));
                        }
                        break;
                    }
                }
            }
        }
        out.role(idx, Role::Option);
        for (row, name, value, sep) in found {
            if let Some(s) = sep {
                out.role(s, Role::Value);
            }
            match row.does {
                D::Ok => {}
                D::Content => content = true,
                D::Refuse(w) => return Err(refused(&program, &name, w)),
                D::List => list = true,
                D::Pattern => pattern_given = true,
                D::PatternFile | D::PathRead => {
                    pattern_given |= row.does == D::PatternFile;
                    if let Some(v) = value {
                        out.value_path(idx, sep, v, base.as_deref(), Use::Read);
                    }
                }
            }
        }
    }

    // operands
    let mut rewritten: Vec<(usize, String)> = Vec::new();
    let mut ops = operands.into_iter().peekable();
    match sub.operands {
        Operands::Nothing => {
            if let Some(&o) = ops.peek() {
                let text = args.get(o).cloned().unwrap_or_default();
                return Err(refused_operand(
                    &program,
                    &text,
                    "only the listing form is allowed",
                ));
            }
        }
        Operands::ListPatterns => {
            if let Some(&o) = ops.peek() {
                if !list {
                    let text = args.get(o).cloned().unwrap_or_default();
                    return Err(refused_operand(
                        &program,
                        &text,
                        "only listing is allowed; add --list to match names",
                    ));
                }
            }
            for o in ops {
                out.role(o, Role::Text);
            }
        }
        Operands::Names => {
            for o in ops {
                out.role(o, Role::Text);
            }
        }
        Operands::Grep | Operands::RevsPaths | Operands::TreePaths | Operands::Paths => {
            let mut first = true;
            for o in ops {
                let text = args.get(o).map(String::as_str).unwrap_or("");
                let after_dashdash = dashdash.is_some_and(|d| o > d);
                if sub.operands == Operands::Grep && first && !pattern_given && !after_dashdash {
                    out.role(o, Role::Text);
                    first = false;
                    continue;
                }
                first = false;
                if after_dashdash || sub.operands == Operands::Paths {
                    pathspec(&mut out, &program, o, text, base.as_deref())?;
                } else if let Some(new) = revision(&mut out, &program, o, text, base.as_deref())? {
                    rewritten.push((o, new));
                }
            }
        }
        Operands::Blame => {
            for o in ops {
                let text = args.get(o).map(String::as_str).unwrap_or("");
                if dashdash.is_some_and(|d| o > d) {
                    pathspec(&mut out, &program, o, text, base.as_deref())?;
                } else {
                    // `[rev] file` or the old `file rev`: either may be the file
                    match object_path(text) {
                        Some(p) => object_operand(&mut out, o, p, base.as_deref()),
                        None => out.operand_path(o, text, base.as_deref(), Use::Read),
                    }
                }
            }
        }
    }

    // shortlog with no revision summarises a log read from standard input (not a terminal)
    if sub.name == "shortlog" && !args.iter().skip(i + 1).any(|a| !a.starts_with('-')) {
        out.reads_stdin = true;
    }
    for (k, a) in args.iter().enumerate().skip(i + 1) {
        match rewritten.iter().find(|(o, _)| *o == k) {
            Some((_, new)) => argv.push(new.clone()),
            None => argv.push(a.clone()),
        }
    }
    let exclude = match sub.exclude {
        Exclude::Always => true,
        Exclude::WithContent => content,
        Exclude::Never => false,
    };
    if exclude {
        argv.extend(exclusion_pathspecs());
    }
    out.argv = argv;
    Ok(out.finish())
}

/// A pathspec: judged as a path, refused when it uses magic.
fn pathspec(
    out: &mut Out,
    program: &str,
    token: usize,
    text: &str,
    base: Option<&str>,
) -> Result<(), GrammarError> {
    if text.starts_with(':') {
        return Err(refused_operand(
            program,
            text,
            "pathspec magic is not allowed; write the path plainly",
        ));
    }
    out.operand_path(token, text, base, Use::ReadTree);
    Ok(())
}

/// A word before `--`: a revision, or a path when it names no revision. Returns the rewritten
/// word when it needs one.
fn revision(
    out: &mut Out,
    program: &str,
    token: usize,
    text: &str,
    base: Option<&str>,
) -> Result<Option<String>, GrammarError> {
    if text.contains('{') {
        return Err(refused_operand(
            program,
            text,
            "revision suffixes with braces are not supported",
        ));
    }
    if let Some(path) = object_path(text) {
        object_operand(out, token, path, base);
        return Ok(None);
    }
    let peeled = peel_hex(text);
    if peeled.is_some() {
        out.role(token, Role::Text);
        return Ok(peeled);
    }
    // a branch, tag, HEAD~2, A..B — or a path, when no revision has that name
    out.operand_path(token, text, base, Use::ReadTree);
    Ok(None)
}

/// An object name with a path part (`rev:path`, `:path`, `:N:path`): a file's contents, so the
/// path is judged; an empty path (`HEAD:`, `:`) names the top tree, a list of names with no
/// file's content, so the word is text and judges nothing (every path role has its path).
fn object_operand(out: &mut Out, token: usize, path: &str, base: Option<&str>) {
    if path.is_empty() {
        out.role(token, Role::Text);
    } else {
        out.role(token, Role::Path);
        out.path(path, base, Use::Read);
    }
}

/// The path part of an object name that has one.
fn object_path(text: &str) -> Option<&str> {
    if let Some(rest) = text.strip_prefix(':') {
        let b = rest.as_bytes();
        if b.len() >= 2 && matches!(b[0], b'0'..=b'3') && b[1] == b':' {
            return rest.get(2..);
        }
        return Some(rest);
    }
    text.split_once(':').map(|(_, p)| p)
}

fn is_hex_name(s: &str) -> bool {
    (4..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `abc123` -> `abc123^{commit}`, also in ranges (`a..b`, `a...b`, `^a`); `None` when no
/// endpoint is a bare hexadecimal name.
fn peel_hex(text: &str) -> Option<String> {
    let sep = if text.contains("...") {
        "..."
    } else if text.contains("..") {
        ".."
    } else {
        ""
    };
    let parts: Vec<&str> = if sep.is_empty() {
        vec![text]
    } else {
        text.split(sep).collect()
    };
    let mut changed = false;
    let peeled: Vec<String> = parts
        .iter()
        .map(|p| {
            let (caret, name) = match p.strip_prefix('^') {
                Some(n) => ("^", n),
                None => ("", *p),
            };
            if is_hex_name(name) {
                changed = true;
                format!("{caret}{name}^{{commit}}")
            } else {
                (*p).to_string()
            }
        })
        .collect();
    changed.then(|| peeled.join(sep))
}

/// `-C` folders add up: a relative one is inside the one before it.
fn join(base: Option<&str>, dir: &str) -> String {
    match base {
        Some(b) if !dir.starts_with('/') => format!("{}/{dir}", b.trim_end_matches('/')),
        _ => dir.to_string(),
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn object_paths() {
        assert_eq!(object_path("HEAD:wp-config.php"), Some("wp-config.php"));
        assert_eq!(object_path(":wp-config.php"), Some("wp-config.php"));
        assert_eq!(object_path(":0:.env"), Some(".env"));
        assert_eq!(object_path("HEAD"), None);
        assert_eq!(object_path("HEAD:"), Some(""));
    }

    #[test]
    fn peeling() {
        assert_eq!(peel_hex("abc123").as_deref(), Some("abc123^{commit}"));
        assert_eq!(
            peel_hex("abc1..def2").as_deref(),
            Some("abc1^{commit}..def2^{commit}")
        );
        assert_eq!(peel_hex("^abcd").as_deref(), Some("^abcd^{commit}"));
        assert_eq!(peel_hex("HEAD~2"), None);
        assert_eq!(peel_hex("main..HEAD"), None);
        assert_eq!(peel_hex("abc"), None);
    }
}

#[cfg(test)]
pub(super) mod for_tests {
    //! The git tables, for the real-program test that runs every accepted option.
    use super::*;

    /// (subcommand, option, argv forms to try) for every option the grammar accepts.
    pub fn accepted() -> Vec<(&'static str, &'static str, Vec<String>)> {
        let mut out = Vec::new();
        for sub in SUBS {
            for table in sub.tables {
                for o in table.iter() {
                    if matches!(o.does, D::Refuse(_)) {
                        continue;
                    }
                    let v = if o.does == D::PathRead || o.does == D::PatternFile {
                        "readme.md"
                    } else {
                        "1"
                    };
                    let form = match o.form {
                        F::Flag | F::OptEq | F::Next => vec![o.name.to_string()],
                        F::Val => vec![o.name.to_string(), v.to_string()],
                        F::Equals => vec![format!("{}={v}", o.name)],
                    };
                    out.push((sub.name, o.name, form));
                }
            }
        }
        out
    }
}
