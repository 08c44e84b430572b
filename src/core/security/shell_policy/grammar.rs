//! Argument grammars: which argv elements each allowlisted program reads as options, option
//! values, patterns or scripts, and which as paths, and how it uses each path.
//!
//! Design:
//! - **Allow-list.** Every program has a table of every option its real parser knows
//!   (`grammar/*.rs`, one file per program family, each saying where its list comes from).
//!   An option is accepted only when its row says what it does; the program's other real
//!   options are rows that refuse, with the reason; a name not in the table is refused as
//!   unknown. A program without a grammar is not handled here ([`parse`] returns `None`).
//! - **Arity exactly as the program reads it.** A path hidden in an option value, or an
//!   option value taken for the folder operand, is what lets a recursive read escape its
//!   judge (`grep -r -m 5 SECRET` reads the cwd, not a folder named `SECRET`). So the engine
//!   is getopt_long itself: clustered short options, values attached or in the next element,
//!   optional values only when attached, `--long=value` and `--long value`, unique
//!   abbreviations among all of the program's real long options (an ambiguous one is refused
//!   as the program refuses it), `--`, argument permutation or POSIX ordering per program,
//!   and each program's own forms on top (tar's key cluster, `head -5`, awk's assignments,
//!   git's revisions and pathspecs). Where a program's parser is not getopt (git's
//!   parse-options and revision walker, clap for ripgrep, mawk's and xxd's hand-written
//!   loops), the grammar accepts a subset whose meaning is the same in every parser.
//! - **Implicit paths.** A program reads what it is not told to read: `grep -r x` walks the
//!   cwd, `ls` lists it, `git log` reads the repository. The confinement that follows the
//!   grammar grants only the paths reported here, so every path the program will open is
//!   reported, the implicit ones included, each with how it is used ([`Use`]); anything left
//!   out fails closed under the confinement instead of being read unjudged.
//! - When unsure whether an operand is a path (od's offsets, git's revision-or-path words),
//!   it is reported as a path: judging too much only refuses, judging too little leaks.
//! - Never panics: every index is checked, every input is valid.

mod awk;
mod coreutils;
mod diff;
mod git;
mod grep;
mod misc;
mod ripgrep;
mod sed;
mod tar;

/// git's inserted `-c` settings and the exclusion pathspecs built from `blocked_paths`.
pub use git::{exclusion_pathspecs, CONFIG_OVERRIDES as GIT_CONFIG_OVERRIDES};

use std::path::Path;

#[cfg(test)]
mod real;
#[cfg(test)]
mod tests;

/// How a program uses a path it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Use {
    /// A file it reads, or a folder it lists without descending (`cat f`, `ls dir`, `wc f`).
    Read,
    /// A folder it reads recursively (`grep -r dir`, `rg dir`, `tar -c dir`, `diff -r a b`).
    ReadTree,
    /// A file or folder it creates or changes (`sort -o f`, `tar -cf out.tar`, `sed -i f`).
    Write,
}

/// One path the program will open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathArg {
    /// The path as written in argv (or `.` for an implicit cwd).
    pub text: String,
    /// The folder it is relative to when a `-C`/`--directory` (or `git -C`) is in effect,
    /// as written (several relative ones joined with `/`); `None`: the cwd.
    pub base: Option<String>,
    /// How the program uses it.
    pub usage: Use,
}

impl PathArg {
    /// The path relative to the cwd: `base/text`, or `text` alone.
    pub fn joined(&self) -> String {
        match &self.base {
            Some(base) if !Path::new(&self.text).is_absolute() => {
                format!("{}/{}", base.trim_end_matches('/'), self.text)
            }
            _ => self.text.clone(),
        }
    }
}

/// What one element of the input argv (`args[i]`) was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// One option or a cluster of them, with any attached value that names no file.
    Option,
    /// Option(s) whose attached value is a path (listed in `paths`).
    OptionPath,
    /// The value of the option before it, naming no file.
    Value,
    /// An operand that names no file: a pattern, script, format, set, assignment, name,
    /// revision, archive member.
    Text,
    /// A path listed in `paths` (an operand, or the value of the option before it).
    Path,
    /// `-`: standard input (or output).
    Stdio,
    /// `--`, ending the options.
    EndOfOptions,
    /// A subcommand (`git log`) or tar's first-argument key cluster.
    Command,
}

/// A command the grammar understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The argv to execute, program first: the input, possibly with safety options inserted
    /// (git, sed, gawk) or an alias rewritten (`egrep` -> `grep -E`, `fgrep` -> `grep -F`,
    /// `rgrep` -> `grep -r`: shell scripts on Debian, which cannot run in the sandbox).
    /// `argv[0]` is the program name given to [`parse`] (the alias target when rewritten);
    /// the caller puts its own program path there.
    pub argv: Vec<String>,
    /// Every path the program will open, implicit ones included.
    pub paths: Vec<PathArg>,
    /// The program reads standard input (`cat` with no operand, `grep x` without `-r`).
    pub reads_stdin: bool,
    /// What each input argument (`args[i]`, not the inserted ones) was read as.
    pub roles: Vec<Role>,
}

/// Why a command was refused by its program's grammar. Each message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// Not in the program's table (allow-list).
    #[error("Option '{option}' is not supported for '{program}': only known options are allowed.")]
    UnknownOption { program: String, option: String },
    /// A GNU abbreviation matching several of the program's real long options.
    #[error(
        "Option '{option}' is ambiguous for '{program}' (it abbreviates several options): write the option name in full."
    )]
    AmbiguousOption { program: String, option: String },
    /// An option that needs a value came last.
    #[error("Option '{option}' of '{program}' needs a value.")]
    MissingValue { program: String, option: String },
    /// `--flag=value` for an option that takes no value.
    #[error("Option '{option}' of '{program}' takes no value.")]
    UnexpectedValue { program: String, option: String },
    /// A value the program itself would reject, where the grammar depends on it.
    #[error("Value '{value}' is not valid for option '{option}' of '{program}'.")]
    InvalidValue {
        program: String,
        option: String,
        value: String,
    },
    /// A known option refused: runs programs, reads a file list, network, pager, writes…
    #[error("Option '{option}' is not allowed for '{program}': {why}.")]
    RefusedOption {
        program: String,
        option: String,
        why: &'static str,
    },
    /// A git subcommand not on the read-only list (aliases included).
    #[error(
        "'git {name}' is not allowed: only read-only subcommands run (status, log, show, diff, grep, blame, branch, tag, rev-parse, ls-files, ls-tree, shortlog, describe, version)."
    )]
    RefusedSubcommand { name: String },
    /// An operand refused: a revision naming a blocked path, a form that is not allowed.
    #[error("Argument '{operand}' is not allowed for '{program}': {why}.")]
    RefusedOperand {
        program: String,
        operand: String,
        why: &'static str,
    },
    /// A program refused whatever its arguments (pagers).
    #[error("'{program}' is not allowed: {why}.")]
    RefusedProgram { program: String, why: &'static str },
}

impl GrammarError {
    /// The option, operand, subcommand or program the refusal is about (the hook's `file`).
    pub fn subject(&self) -> &str {
        match self {
            GrammarError::UnknownOption { option, .. }
            | GrammarError::AmbiguousOption { option, .. }
            | GrammarError::MissingValue { option, .. }
            | GrammarError::UnexpectedValue { option, .. }
            | GrammarError::InvalidValue { option, .. }
            | GrammarError::RefusedOption { option, .. } => option,
            GrammarError::RefusedSubcommand { name } => name,
            GrammarError::RefusedOperand { operand, .. } => operand,
            GrammarError::RefusedProgram { program, .. } => program,
        }
    }
}

/// Reads `args` (argv without the program) as `program` (a basename, lower-cased) would.
/// `None`: no grammar for this program (the caller keeps its generic checks).
pub fn parse(program: &str, args: &[String]) -> Option<Result<Parsed, GrammarError>> {
    let result = match program {
        "grep" | "egrep" | "fgrep" | "rgrep" => grep::parse(program, args),
        "rg" => ripgrep::parse(args),
        "git" => git::parse(args),
        "tar" => tar::parse(args),
        "diff" => diff::parse(args),
        "sed" => sed::parse(args),
        "awk" | "mawk" | "gawk" => awk::parse(program, args),
        _ => return coreutils::parse(program, args).or_else(|| misc::parse(program, args)),
    };
    Some(result)
}

// ---------------------------------------------------------------------------------------
// Option tables

/// How an option takes a value (getopt's `has_arg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    /// No value (`no_argument`).
    No,
    /// A value, attached or the next argv element (`required_argument`).
    Req,
    /// A value only when attached: `-xVALUE`, `--long=VALUE` (`optional_argument`).
    Opt,
}

/// What an option does, as far as paths are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Does {
    /// A switch, or a value that names no file.
    Nothing,
    /// Sets a program-specific bit (its value, if any, names no file).
    Bit(u32),
    /// Its value is a path used so (`-` is standard input or output).
    Path(Use),
    /// Both.
    PathBit(Use, u32),
    /// A real option the grammar refuses, and why.
    Refuse(&'static str),
    /// Handled by the program's own code, in argv order.
    Special(u8),
}

/// One option of a program: its short letter (or [`X`]), its long names (`|`-separated
/// aliases that getopt treats as one option; empty for none), its arity, what it does.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub short: char,
    pub long: &'static str,
    pub arg: Arg,
    pub does: Does,
}

/// No short letter.
pub(crate) const X: char = '\0';
/// Shorthand for [`Does::Nothing`] in tables.
pub(crate) const N: Does = Does::Nothing;

pub(crate) const fn o(short: char, long: &'static str, arg: Arg, does: Does) -> Row {
    Row {
        short,
        long,
        arg,
        does,
    }
}

/// Where options may appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// GNU permutation: options anywhere before `--`.
    Permute,
    /// POSIX (`+` in the optstring, or the program's own loop): options end at the first
    /// operand.
    Posix,
}

/// A program's option grammar.
pub(crate) struct Spec {
    /// Display name in messages.
    pub name: &'static str,
    pub rows: &'static [Row],
    pub order: Order,
    /// GNU unique-prefix abbreviations of long options are accepted.
    pub abbrev: bool,
}

/// One parsed element: an option with its value, an operand, or `--`.
#[derive(Debug)]
pub(crate) enum Item<'a> {
    Opt {
        row: &'static Row,
        /// The option as written (`-m`, `--max-count`), for messages.
        name: String,
        value: Option<&'a str>,
        token: usize,
        /// The index of the value when it is its own argv element.
        value_token: Option<usize>,
    },
    Operand {
        text: &'a str,
        token: usize,
    },
    End {
        token: usize,
    },
}

fn names(row: &Row) -> impl Iterator<Item = &'static str> {
    row.long.split('|').filter(|n| !n.is_empty())
}

/// getopt_long's long-option lookup: an exact name, else the one option that every name
/// starting with `name` belongs to.
fn find_long(spec: &Spec, name: &str, shown: &str) -> Result<&'static Row, GrammarError> {
    let rows: &'static [Row] = spec.rows;
    if let Some(row) = rows.iter().find(|r| names(r).any(|n| n == name)) {
        return Ok(row);
    }
    let unknown = || GrammarError::UnknownOption {
        program: spec.name.to_string(),
        option: shown.to_string(),
    };
    if !spec.abbrev {
        return Err(unknown());
    }
    let mut found: Option<&'static Row> = None;
    let rows: &'static [Row] = spec.rows;
    for row in rows {
        if names(row).any(|n| n.starts_with(name)) {
            match found {
                None => found = Some(row),
                Some(f) if std::ptr::eq(f, row) => {}
                Some(_) => {
                    return Err(GrammarError::AmbiguousOption {
                        program: spec.name.to_string(),
                        option: shown.to_string(),
                    })
                }
            }
        }
    }
    found.ok_or_else(unknown)
}

fn find_short(spec: &Spec, c: char) -> Option<&'static Row> {
    if c == X {
        return None;
    }
    let rows: &'static [Row] = spec.rows;
    rows.iter().find(|r| r.short == c)
}

/// getopt_long over `args[from..]`, in argv order.
pub(crate) fn getopt<'a>(
    spec: &Spec,
    args: &'a [String],
    from: usize,
) -> Result<Vec<Item<'a>>, GrammarError> {
    let program = || spec.name.to_string();
    let mut items = Vec::new();
    let mut i = from;
    let mut operands_only = false;
    while let Some(token) = args.get(i) {
        let t = token.as_str();
        if operands_only {
            items.push(Item::Operand { text: t, token: i });
            i += 1;
            continue;
        }
        if t == "--" {
            items.push(Item::End { token: i });
            operands_only = true;
            i += 1;
            continue;
        }
        let token_index = i;
        if let Some(body) = t.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            let shown = format!("--{name}");
            let row = find_long(spec, name, &shown)?;
            let (value, value_token) = match (row.arg, value) {
                (Arg::No, Some(_)) => {
                    return Err(GrammarError::UnexpectedValue {
                        program: program(),
                        option: shown,
                    })
                }
                (Arg::No, None) | (Arg::Opt, None) => (None, None),
                (_, Some(v)) => (Some(v), None),
                (Arg::Req, None) => match args.get(i + 1) {
                    Some(v) => {
                        i += 1;
                        (Some(v.as_str()), Some(i))
                    }
                    None => {
                        return Err(GrammarError::MissingValue {
                            program: program(),
                            option: shown,
                        })
                    }
                },
            };
            items.push(Item::Opt {
                row,
                name: shown,
                value,
                token: token_index,
                value_token,
            });
            i += 1;
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            for (pos, c) in t.char_indices().skip(1) {
                let shown = format!("-{c}");
                let row = find_short(spec, c).ok_or_else(|| GrammarError::UnknownOption {
                    program: program(),
                    option: shown.clone(),
                })?;
                let rest = t.get(pos + c.len_utf8()..).unwrap_or("");
                let (value, value_token, stop) = match row.arg {
                    Arg::No => (None, None, false),
                    Arg::Opt if rest.is_empty() => (None, None, true),
                    Arg::Opt | Arg::Req if !rest.is_empty() => (Some(rest), None, true),
                    _ => match args.get(i + 1) {
                        Some(v) => {
                            i += 1;
                            (Some(v.as_str()), Some(i), true)
                        }
                        None => {
                            return Err(GrammarError::MissingValue {
                                program: program(),
                                option: shown,
                            })
                        }
                    },
                };
                items.push(Item::Opt {
                    row,
                    name: shown,
                    value,
                    token: token_index,
                    value_token,
                });
                if stop {
                    break;
                }
            }
            i += 1;
            continue;
        }
        items.push(Item::Operand { text: t, token: i });
        if spec.order == Order::Posix {
            operands_only = true;
        }
        i += 1;
    }
    Ok(items)
}

// ---------------------------------------------------------------------------------------
// Building the answer

/// The answer under construction: argv, paths, roles.
pub(crate) struct Out {
    pub argv: Vec<String>,
    pub paths: Vec<PathArg>,
    pub reads_stdin: bool,
    roles: Vec<Option<Role>>,
}

impl Out {
    /// `argv` = `program` + `args`.
    pub fn new(program: &str, args: &[String]) -> Out {
        let mut argv = Vec::with_capacity(args.len() + 1);
        argv.push(program.to_string());
        argv.extend(args.iter().cloned());
        Out {
            argv,
            paths: Vec::new(),
            reads_stdin: false,
            roles: vec![None; args.len()],
        }
    }

    /// Sets the role of input argument `token`; an attached path and a key cluster or
    /// subcommand are never downgraded.
    pub fn role(&mut self, token: usize, role: Role) {
        if let Some(slot) = self.roles.get_mut(token) {
            let sticky = matches!(*slot, Some(Role::OptionPath | Role::Command));
            if !sticky || role == Role::OptionPath {
                *slot = Some(role);
            }
        }
    }

    pub fn path(&mut self, text: &str, base: Option<&str>, usage: Use) {
        let arg = PathArg {
            text: text.to_string(),
            base: base.map(str::to_string),
            usage,
        };
        if !self.paths.contains(&arg) {
            self.paths.push(arg);
        }
    }

    /// An operand used as a path, `-` included (programs that give `-` no special meaning:
    /// ls, cp, mkdir, df, hexdump, tree).
    pub fn operand_file(&mut self, token: usize, text: &str, base: Option<&str>, usage: Use) {
        self.role(token, Role::Path);
        self.path(text, base, usage);
    }

    /// An operand used as a path (`-` is standard input/output).
    pub fn operand_path(&mut self, token: usize, text: &str, base: Option<&str>, usage: Use) {
        if text == "-" {
            self.role(token, Role::Stdio);
            if usage != Use::Write {
                self.reads_stdin = true;
            }
        } else {
            self.role(token, Role::Path);
            self.path(text, base, usage);
        }
    }

    /// The value of an option used as a path (`-` is standard input/output).
    pub fn value_path(
        &mut self,
        token: usize,
        value_token: Option<usize>,
        value: &str,
        base: Option<&str>,
        usage: Use,
    ) {
        match value_token {
            Some(v) => {
                self.role(token, Role::Option);
                self.operand_path(v, value, base, usage);
            }
            None if value == "-" => {
                self.role(token, Role::Option);
                if usage != Use::Write {
                    self.reads_stdin = true;
                }
            }
            None => {
                self.role(token, Role::OptionPath);
                self.path(value, base, usage);
            }
        }
    }

    /// An option (with a value naming no file, if any).
    pub fn option(&mut self, token: usize, value_token: Option<usize>) {
        self.role(token, Role::Option);
        if let Some(v) = value_token {
            self.role(v, Role::Value);
        }
    }

    /// Puts `extra` right after the program (before the user's arguments).
    pub fn insert_after_program(&mut self, extra: &[&str]) {
        for (k, e) in extra.iter().enumerate() {
            self.argv.insert(1 + k, (*e).to_string());
        }
    }

    pub fn finish(self) -> Parsed {
        Parsed {
            argv: self.argv,
            paths: self.paths,
            reads_stdin: self.reads_stdin,
            roles: self
                .roles
                .into_iter()
                .map(|r| r.unwrap_or(Role::Text))
                .collect(),
        }
    }
}

/// An ordered event the program's own code interprets.
#[derive(Debug)]
pub(crate) enum Ev<'a> {
    Special {
        code: u8,
        name: String,
        value: Option<&'a str>,
        token: usize,
        value_token: Option<usize>,
    },
    Operand {
        text: &'a str,
        token: usize,
    },
}

/// The options applied: bits set, and the specials and operands in argv order.
pub(crate) struct Scanned<'a> {
    pub bits: u32,
    pub events: Vec<Ev<'a>>,
}

impl Scanned<'_> {
    pub fn has(&self, bit: u32) -> bool {
        self.bits & bit != 0
    }

    /// The operands, in order, with their argv index.
    pub fn operands(&self) -> Vec<(usize, &str)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                Ev::Operand { text, token } => Some((*token, *text)),
                Ev::Special { .. } => None,
            })
            .collect()
    }
}

/// Runs getopt and applies every generic row: roles, option-value paths (relative to
/// `base`), refusals. Bits and specials are left to the caller.
pub(crate) fn scan<'a>(
    spec: &Spec,
    args: &'a [String],
    from: usize,
    out: &mut Out,
) -> Result<Scanned<'a>, GrammarError> {
    let items = getopt(spec, args, from)?;
    let mut scanned = Scanned {
        bits: 0,
        events: Vec::new(),
    };
    for item in items {
        match item {
            Item::End { token } => out.role(token, Role::EndOfOptions),
            Item::Operand { text, token } => scanned.events.push(Ev::Operand { text, token }),
            Item::Opt {
                row,
                name,
                value,
                token,
                value_token,
            } => match row.does {
                Does::Nothing => out.option(token, value_token),
                Does::Bit(b) => {
                    scanned.bits |= b;
                    out.option(token, value_token);
                }
                Does::Path(usage) | Does::PathBit(usage, _) => {
                    if let Does::PathBit(_, b) = row.does {
                        scanned.bits |= b;
                    }
                    match value {
                        Some(v) => out.value_path(token, value_token, v, None, usage),
                        None => out.option(token, None),
                    }
                }
                Does::Refuse(why) => {
                    return Err(GrammarError::RefusedOption {
                        program: spec.name.to_string(),
                        option: name,
                        why,
                    })
                }
                Does::Special(code) => {
                    out.option(token, value_token);
                    scanned.events.push(Ev::Special {
                        code,
                        name,
                        value,
                        token,
                        value_token,
                    });
                }
            },
        }
    }
    Ok(scanned)
}

/// GNU argmatch: `value` names the one word in `words` it is a prefix of (or equals).
pub(crate) fn argmatch<'w>(value: &str, words: &[&'w str]) -> Option<&'w str> {
    if let Some(w) = words.iter().find(|w| **w == value) {
        return Some(w);
    }
    let mut hits = words
        .iter()
        .filter(|w| !value.is_empty() && w.starts_with(value));
    match (hits.next(), hits.next()) {
        (Some(w), None) => Some(w),
        _ => None,
    }
}

/// Common refusal reasons, so messages stay consistent.
pub(crate) mod why {
    pub const RUNS: &str = "it runs another program";
    pub const FILE_LIST: &str = "it reads a list of file names from a file, which cannot be judged";
    pub const PAGER: &str = "it starts a pager, which can run commands";
    pub const NETWORK: &str = "it reaches the network";
    pub const NEVER_ENDS: &str = "it never ends (it waits for the file to grow)";
    pub const WRITES: &str = "it writes files";
    pub const UNSUPPORTED: &str = "it is not supported by the shell tool";
    pub const UNDOCUMENTED: &str = "it is an undocumented option";
}

/// `RefusedOption` for `program`.
pub(crate) fn refused(program: &str, option: &str, why: &'static str) -> GrammarError {
    GrammarError::RefusedOption {
        program: program.to_string(),
        option: option.to_string(),
        why,
    }
}

/// `RefusedOperand` for `program`.
pub(crate) fn refused_operand(program: &str, operand: &str, why: &'static str) -> GrammarError {
    GrammarError::RefusedOperand {
        program: program.to_string(),
        operand: operand.to_string(),
        why,
    }
}

/// The generic shape of most file readers: operands are files used as `usage` (`-` is
/// standard input); with none, standard input is read.
pub(crate) fn files(out: &mut Out, operands: &[(usize, &str)], usage: Use) {
    if operands.is_empty() {
        out.reads_stdin = true;
    }
    for (token, text) in operands {
        out.operand_path(*token, text, None, usage);
    }
}

/// Every operand is text (no paths).
pub(crate) fn texts(out: &mut Out, operands: &[(usize, &str)]) {
    for (token, _) in operands {
        out.role(*token, Role::Text);
    }
}
