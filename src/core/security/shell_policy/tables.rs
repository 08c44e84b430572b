//! The shell policy's data: every list the checks consult, with where it comes from.
//!
//! Tables marked "reference" are phpClaw's `ShellTool` constants (public repository
//! phpclaw-php/phpclaw-monorepo, `packages/core/src/Tools/ShellTool.php`) and keep its order
//! and spelling, because PHP callers see them. Tables marked "added" close holes the reference
//! leaves open; each says which.

/// Inline stdout cap before the output spills to a temp file (reference).
pub const DEFAULT_MAX_STDOUT_BYTES: usize = 8192;

/// Inline stderr cap, used when a failed command printed nothing on stdout (reference).
pub const DEFAULT_MAX_STDERR_BYTES: usize = 10000;

/// Wall-clock limit for one command, in seconds (reference).
pub const PROCESS_TIMEOUT_SECONDS: u64 = 5;

/// Combined stdout + stderr bytes after which the child is killed (reference).
pub const HARD_READ_CEILING_BYTES: usize = 10_485_760;

/// Signal number the reference sends to end a child that ran too long or printed too much.
pub const SIGKILL: i32 = 9;

/// Programs allowed when the adapter passes no allowlist (reference, 8 names).
pub const DEFAULT_ALLOWLIST: &[&str] = &[
    "ls", "pwd", "df", "wc", "date", "uptime", "hostname", "whoami",
];

/// Programs the approval gate never asks about: the default allowlist plus four readers
/// (reference, 12 names; fixed whatever the allowlist is).
pub const READONLY_COMMANDS: &[&str] = &[
    "ls", "pwd", "df", "cat", "head", "tail", "grep", "wc", "date", "uptime", "hostname", "whoami",
];

/// Programs refused even when allowlisted, matched on the lower-cased basename of the program
/// token (reference, in its order).
pub const HARD_BLOCKED: &[&str] = &[
    "rm", "mv", "dd", "mkfs", "fdisk", "shred", "mkfifo", "mknod", "chmod", "chown", "chattr",
    "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "ftp", "rsync", "kill",
    "killall", "pkill", "reboot", "shutdown", "halt", "poweroff", "init", "sudo", "su", "doas",
    "pkexec", "newgrp", "chroot", "bash", "sh", "zsh", "fish", "csh", "ksh", "tcsh", "dash",
    "python", "python2", "python3", "ruby", "perl", "node", "npx", "npm", "pip", "pip3", "at",
    "batch", "nohup", "crontab", "gdb", "strace", "ltrace", "ptrace", "ps", "pstree", "top",
    "htop", "du", "find", "env", "printenv", "set", "export", "artisan",
];

/// Added: programs refused like [`HARD_BLOCKED`] because they run another program (or a script)
/// named in their arguments, so allowlisting one would hand out every program: command
/// runners (`xargs`, `timeout`, `nice`, …), more shells and interpreters (`php`, `lua`, …).
pub const EXTRA_HARD_BLOCKED: &[&str] = &[
    // command runners: their first operand is executed as a program
    "xargs",
    "timeout",
    "nice",
    "renice",
    "stdbuf",
    "time",
    "watch",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "flock",
    "busybox",
    "toybox",
    "unshare",
    "nsenter",
    "runuser",
    "script",
    "parallel",
    "exec",
    "command",
    "builtin",
    "eval",
    "source",
    "systemd-run",
    "sg",
    "fakeroot",
    "unbuffer",
    "expect",
    "valgrind",
    "catchsegv",
    "firejail",
    "proot",
    "setpriv",
    "capsh",
    "run-parts",
    "start-stop-daemon",
    "daemonize",
    "cpulimit",
    "chpst",
    "su-exec",
    "gosu",
    "ssh-agent",
    // more shells
    "rbash",
    "ash",
    "mksh",
    "yash",
    "elvish",
    "xonsh",
    "nu",
    "pwsh",
    "powershell",
    "rc",
    "es",
    // more interpreters and script runners
    "php",
    "php-cgi",
    "phpdbg",
    "lua",
    "luajit",
    "tclsh",
    "wish",
    "rscript",
    "deno",
    "bun",
    "ts-node",
    "irb",
    "jshell",
    "jrunscript",
    "guile",
    "racket",
    "ghci",
    "runghc",
    "osascript",
    "pypy",
    "pypy3",
    "julia",
    "erl",
    "escript",
    "elixir",
    "iex",
    "scala",
    "groovy",
    "kotlin",
    "make",
    // editors and pagers with a command escape that do not belong to the reader list
    "vi",
    "vim",
    "nvim",
    "view",
    "ex",
    "emacs",
    "nano",
    "ed",
    "man",
];

/// Shell metacharacters refused anywhere in the command (reference, in its order: the first
/// of these found is the reported detail).
pub const METACHARACTERS: &[&str] = &[
    ";", "&", "|", ">", "<", "`", "$", "(", ")", "{", "}", "[", "]", "\\", "\"", "'", "!",
];

/// Programs whose arguments name files to read (reference). The policy applies the argument
/// checks to every program, not only these (see the module doc of `shell_policy`).
pub const FILE_READING_COMMANDS: &[&str] = &[
    "cat", "head", "tail", "less", "more", "tac", "nl", "grep", "egrep", "fgrep", "awk", "sed",
    "wc", "sort", "uniq", "cut", "paste", "tr", "strings", "xxd", "hexdump", "od",
];

/// System paths refused as substrings of the lower-cased argument and of its resolved path
/// (reference `BLOCKED_PATH_PATTERNS`, as Rust regex syntax).
pub const BLOCKED_PATH_PATTERNS: &[&str] = &[
    r"/etc/(passwd|shadow|group|gshadow|sudoers|hosts|fstab|crontab)",
    r"/etc/ssh/",
    r"/etc/ssl/",
    r"/proc/",
    r"/sys/",
    r"^/dev/",
    r"\.env(\.|$)",
];

/// How a program reads directories recursively (added; the reference has no recursion rule).
pub struct Recursion {
    /// Program name as allowlisted.
    pub program: &'static str,
    /// Short flag letters that turn recursion on (also inside a cluster such as `-rl`).
    pub short: &'static str,
    /// Long option names (without `--`) that turn it on; any non-empty prefix counts, as
    /// GNU getopt accepts unambiguous abbreviations.
    pub long: &'static [&'static str],
    /// The program always recurses into directory operands.
    pub always: bool,
}

/// Recursive readers and their switches (added). `grep -d recurse` is covered by treating
/// `d` and `--directories` as recursive whatever their value (a false positive only costs a
/// walk of the directory operands).
pub const RECURSIVE_READERS: &[Recursion] = &[
    Recursion {
        program: "grep",
        short: "rRd",
        long: GREP_LONG,
        always: false,
    },
    Recursion {
        program: "egrep",
        short: "rRd",
        long: GREP_LONG,
        always: false,
    },
    Recursion {
        program: "fgrep",
        short: "rRd",
        long: GREP_LONG,
        always: false,
    },
    Recursion {
        program: "zgrep",
        short: "rRd",
        long: GREP_LONG,
        always: false,
    },
    Recursion {
        program: "rgrep",
        short: "",
        long: &[],
        always: true,
    },
    Recursion {
        program: "ls",
        short: "R",
        long: &["recursive"],
        always: false,
    },
    Recursion {
        program: "dir",
        short: "R",
        long: &["recursive"],
        always: false,
    },
    Recursion {
        program: "vdir",
        short: "R",
        long: &["recursive"],
        always: false,
    },
    Recursion {
        program: "cp",
        short: "rRa",
        long: &["recursive", "archive"],
        always: false,
    },
    Recursion {
        program: "diff",
        short: "r",
        long: &["recursive"],
        always: false,
    },
    Recursion {
        program: "zip",
        short: "rR",
        long: &["recurse-paths", "recurse-patterns"],
        always: false,
    },
    Recursion {
        program: "tree",
        short: "",
        long: &[],
        always: true,
    },
    Recursion {
        program: "tar",
        short: "",
        long: &[],
        always: true,
    },
    Recursion {
        program: "rg",
        short: "",
        long: &[],
        always: true,
    },
    Recursion {
        program: "ag",
        short: "",
        long: &[],
        always: true,
    },
    Recursion {
        program: "ack",
        short: "",
        long: &[],
        always: true,
    },
    Recursion {
        program: "chgrp",
        short: "R",
        long: &["recursive"],
        always: false,
    },
    Recursion {
        program: "md5deep",
        short: "r",
        long: &[],
        always: false,
    },
];

const GREP_LONG: &[&str] = &["recursive", "dereference-recursive", "directories"];

/// Most directory entries a recursive check visits before refusing (added): the walk must
/// end quickly, and a tree too big to check is refused rather than trusted.
pub const WALK_ENTRY_CAP: usize = 10_000;

/// Longest argument the policy resolves against the file system: longer paths cannot be
/// opened on Linux (PATH_MAX), so they are judged by their text only.
pub const RESOLVE_MAX_BYTES: usize = 4096;

/// Environment variables a child receives from the worker, allow-listed (added: the reference
/// passes the whole environment, and a list of secret-looking names always misses one, such as
/// `MYSQL_PWD` or `APP_PW`). Anything else never reaches a child.
pub const CHILD_ENV_NAMES: &[&str] = &["PATH", "LANG", "LANGUAGE", "TZ"];

/// Prefixes of allow-listed environment names (the locale categories).
pub const CHILD_ENV_PREFIXES: &[&str] = &["LC_"];

/// The child's PATH when the worker has none.
pub const DEFAULT_CHILD_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Variables set for particular programs (added): git reads no system or user configuration
/// file, never prompts, pages or takes optional locks, whatever the worker's account says.
pub const PROGRAM_ENV: &[(&str, &[(&str, &str)])] = &[(
    "git",
    &[
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_OPTIONAL_LOCKS", "0"),
        ("GIT_PAGER", "cat"),
        ("PAGER", "cat"),
    ],
)];

/// A program that can run other programs through some of its options (added).
pub struct ExecOptions {
    /// Program basename (lower-cased) the row applies to.
    pub program: &'static str,
    /// Short option letters refused (alone or anywhere in a cluster).
    pub short: &'static str,
    /// Long option names refused, also abbreviated (any prefix of at least 3 letters).
    pub long: &'static [&'static str],
    /// Operands (subcommands) refused.
    pub words: &'static [&'static str],
    /// Option put right after the program so the program itself refuses to run commands.
    pub sandbox: Option<&'static str>,
}

/// Options that turn a reader into a command runner (added). `sed` gets GNU `--sandbox`
/// (refuses its `e`, `s///e`, `r` and `w` commands; a sed without that option fails to start,
/// which fails closed); `awk` loses program files and extensions (inline awk cannot run
/// anything without `(` or `|`, both metacharacters); `git` loses `-c`, `config` and the
/// subcommands that run hooks or tools; `tar`, `zip` and `sort` lose their helper programs.
pub const EXEC_OPTIONS: &[ExecOptions] = &[
    ExecOptions {
        program: "sed",
        short: "",
        long: &[],
        words: &[],
        sandbox: Some("--sandbox"),
    },
    ExecOptions {
        program: "awk",
        short: "fEil",
        long: AWK_LONG,
        words: &[],
        sandbox: None,
    },
    ExecOptions {
        program: "gawk",
        short: "fEil",
        long: AWK_LONG,
        words: &[],
        sandbox: None,
    },
    ExecOptions {
        program: "mawk",
        short: "fEil",
        long: AWK_LONG,
        words: &[],
        sandbox: None,
    },
    ExecOptions {
        program: "nawk",
        short: "fEil",
        long: AWK_LONG,
        words: &[],
        sandbox: None,
    },
    ExecOptions {
        program: "git",
        short: "cx",
        long: &[
            "config-env",
            "exec-path",
            "upload-pack",
            "receive-pack",
            "exec",
            "extcmd",
            "ext-diff",
            "textconv",
            "tool",
            "run",
        ],
        words: &[
            "config",
            "submodule",
            "filter-branch",
            "bisect",
            "difftool",
            "mergetool",
            "daemon",
            "instaweb",
            "credential",
            "hook",
            "rebase",
            "am",
            "commit",
            "merge",
            "pull",
            "push",
            "fetch",
            "clone",
            "archive",
            "fsck",
            "gc",
            "maintenance",
            "worktree",
        ],
        sandbox: None,
    },
    ExecOptions {
        program: "tar",
        short: "IF",
        long: &[
            "to-command",
            "checkpoint-action",
            "use-compress-program",
            "info-script",
            "new-volume-script",
            "rsh-command",
            "rmt-command",
        ],
        words: &[],
        sandbox: None,
    },
    ExecOptions {
        program: "zip",
        short: "T",
        long: &["unzip-command"],
        words: &[],
        sandbox: None,
    },
    ExecOptions {
        program: "sort",
        short: "",
        long: &["compress-program"],
        words: &[],
        sandbox: None,
    },
];

const AWK_LONG: &[&str] = &["file", "exec", "include", "load"];
