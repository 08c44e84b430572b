//! From an approved command to what its child may touch: the program file, and each path the
//! policy approved, opened once here and judged as opened.
//!
//! Rules:
//! - the program token is looked up on the child's PATH (or, with a `/`, against the cwd) and
//!   opened; the object opened is what gets executed (by its real path, granted by inode), so a
//!   program swapped afterwards is not executable; its real name is judged against the
//!   hard-blocked tables (an allowlisted name that is a link to `sh` is refused), and a script
//!   (`#!`) is refused when confined, since its interpreter could not run;
//! - each path is opened following links, then judged by the real path of what was opened
//!   (the sensitive-path rules) and by its link count: a regular file with a second name (a
//!   hard link, which could be another name for `.env`) is refused; what was judged is what
//!   is granted, so a link flipped after the check leads to an object the child may not open;
//! - a folder read recursively is granted minus every blocked entry below it: whole subtrees
//!   that hold nothing blocked, and the clean files of the others one by one (links, sockets,
//!   devices and files with several names get nothing); the walk shares one entry budget with
//!   the policy's ([`WALK_ENTRY_CAP`]), and a tree past it is refused;
//! - git also reads its repository folder (`.git`, found upwards from where it runs);
//! - a mutating command may write anywhere below the cwd; a read-only one nowhere.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

pub use super::grammar::{PathArg, Use};
use super::paths::{judge_text, php_basename, PathDenial, Scope};
use super::tables::WALK_ENTRY_CAP;
use super::{is_blocked_name, DenialReason};
use crate::core::sandbox::{fd_metadata, open_path, Grants, Right, SandboxError};

/// Why a command cannot be confined as approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConfineError {
    /// A path (or the program) judged on the object opened is refused.
    Denied(PathDenial),
    /// The sandbox could not be built.
    Sandbox(SandboxError),
}

impl From<SandboxError> for ConfineError {
    fn from(e: SandboxError) -> Self {
        ConfineError::Sandbox(e)
    }
}

/// The program a command runs, found and opened.
#[derive(Debug)]
pub struct Program {
    /// Its real path: what is executed.
    pub path: PathBuf,
    /// The opened object, for the execute grant.
    pub fd: OwnedFd,
}

/// The real path of an opened descriptor (what the kernel says it is).
pub fn fd_path(fd: &OwnedFd) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()
}

/// Finds `token` as `execvp` would with `search_path` (PATH of the child), opens it and judges
/// its real name. None when there is no such program (the run then fails as a missing program).
pub(crate) fn find_program(
    token: &str,
    cwd: &Path,
    search_path: &OsStr,
) -> Result<Option<Program>, ConfineError> {
    let candidates: Vec<PathBuf> = if token.contains('/') {
        vec![cwd.join(token)]
    } else {
        search_path
            .as_bytes()
            .split(|b| *b == b':')
            .map(|dir| {
                let dir = if dir.is_empty() {
                    cwd.to_path_buf()
                } else {
                    cwd.join(OsStr::from_bytes(dir))
                };
                dir.join(token)
            })
            .collect()
    };
    for candidate in candidates {
        let Some(fd) = open_path(&candidate) else {
            continue;
        };
        let Ok(meta) = fd_metadata(&fd) else {
            continue;
        };
        if !meta.is_file() || meta.mode() & 0o111 == 0 {
            continue;
        }
        let Some(path) = fd_path(&fd) else { continue };
        let real_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if is_blocked_name(&real_name) {
            return Err(ConfineError::Denied(PathDenial {
                reason: DenialReason::HardBlocked,
                detail: String::new(),
                message: format!(
                    "Command '{token}' is permanently blocked and cannot be executed."
                ),
            }));
        }
        return Ok(Some(Program { path, fd }));
    }
    Ok(None)
}

/// Whether the file at `path` starts with `#!`.
pub fn is_script(path: &Path) -> bool {
    let mut head = [0u8; 2];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == *b"#!")
}

/// Collects the grants of one command.
pub(crate) struct Planner<'a> {
    scope: &'a Scope<'a>,
    real_cwd: String,
    budget: usize,
    grant_trees: bool,
    /// What the child may use.
    pub(crate) grants: Grants,
}

impl<'a> Planner<'a> {
    /// A planner judging with `scope` (its cwd is where relative paths start).
    pub(crate) fn new(scope: &'a Scope<'a>) -> Planner<'a> {
        let real_cwd = scope
            .cwd
            .canonicalize()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        Planner {
            scope,
            real_cwd,
            budget: WALK_ENTRY_CAP,
            grant_trees: true,
            grants: Grants::new(),
        }
    }

    /// A planner that only judges each path as opened (an unconfined child: nothing is
    /// granted, and a folder read recursively was already walked by the policy).
    pub(crate) fn judging_only(scope: &'a Scope<'a>) -> Planner<'a> {
        Planner {
            grant_trees: false,
            ..Planner::new(scope)
        }
    }

    fn judge_real(&self, real: &Path, shown: &str, is_dir: bool) -> Result<(), PathDenial> {
        let mut text = self
            .scope
            .view_under(&real.to_string_lossy(), &self.real_cwd);
        if let Some(d) = judge_text(&text, shown) {
            return Err(d);
        }
        if is_dir && !text.ends_with('/') {
            text.push('/');
            if let Some(d) = judge_text(&text, shown) {
                return Err(d);
            }
        }
        Ok(())
    }

    /// Opens, judges and grants one path the command will use.
    pub(crate) fn add(&mut self, arg: &PathArg) -> Result<(), ConfineError> {
        let base = match &arg.base {
            Some(b) => self.scope.cwd.join(b),
            None => self.scope.cwd.to_path_buf(),
        };
        let joined = base.join(&arg.text);
        let Some(fd) = open_path(&joined) else {
            // Nothing there: nothing to grant; the program finds nothing to read either.
            return Ok(());
        };
        let meta = fd_metadata(&fd).map_err(sandbox_io)?;
        let real = fd_path(&fd).unwrap_or(joined);
        self.judge_real(&real, &arg.text, meta.is_dir())
            .map_err(ConfineError::Denied)?;
        if meta.is_file() && meta.nlink() > 1 {
            return Err(ConfineError::Denied(hard_link_denial(&arg.text)));
        }
        match (arg.usage, meta.is_dir()) {
            (Use::Write, _) => Ok(()),
            (Use::Read, false) | (Use::ReadTree, false) => Ok(self.grants.fd(fd, Right::Read)?),
            (Use::Read, true) => Ok(self.grants.fd(fd, Right::List)?),
            (Use::ReadTree, true) if self.grant_trees => self.tree(fd, &real, &arg.text),
            (Use::ReadTree, true) => Ok(()),
        }
    }

    /// A folder read recursively: granted whole when nothing below it is blocked, else listed,
    /// with its clean parts granted one by one.
    fn tree(&mut self, fd: OwnedFd, real: &Path, shown: &str) -> Result<(), ConfineError> {
        let mut clean_parts = Vec::new();
        if self.clean(real, shown, &mut clean_parts)? {
            return Ok(self.grants.fd(fd, Right::Read)?);
        }
        self.grants.fd(fd, Right::List)?;
        for part in clean_parts {
            self.grants.path(&part, Right::Read)?;
        }
        Ok(())
    }

    /// Whether everything below `dir` may be read; when not, the parts that may are pushed to
    /// `parts` (clean subtrees whole, clean files one by one).
    fn clean(
        &mut self,
        dir: &Path,
        shown: &str,
        parts: &mut Vec<PathBuf>,
    ) -> Result<bool, ConfineError> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(false);
        };
        let mut all_clean = true;
        let mut here = Vec::new();
        for entry in entries {
            if self.budget == 0 {
                return Err(ConfineError::Denied(PathDenial {
                    reason: DenialReason::SensitiveDirectory,
                    detail: shown.to_string(),
                    message: format!(
                        "Recursive read of '{shown}' is refused: more than {WALK_ENTRY_CAP} entries to check."
                    ),
                }));
            }
            self.budget -= 1;
            let Ok(entry) = entry else {
                all_clean = false;
                continue;
            };
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                all_clean = false;
                continue;
            };
            let kind = meta.file_type();
            let ok = if self.judge_real(&path, shown, kind.is_dir()).is_err() {
                false
            } else if kind.is_dir() {
                let mut below = Vec::new();
                if self.clean(&path, shown, &mut below)? {
                    here.push(path);
                    true
                } else {
                    parts.extend(below);
                    false
                }
            } else if kind.is_file() {
                if meta.nlink() > 1 {
                    false
                } else {
                    here.push(path);
                    true
                }
            } else {
                // A link is followed to wherever it leads, which the kernel judges by its own
                // grants; it needs none. Sockets, FIFOs and devices are never granted.
                kind.is_symlink()
                    && !(kind.is_fifo()
                        || kind.is_socket()
                        || kind.is_block_device()
                        || kind.is_char_device())
            };
            all_clean &= ok;
        }
        if !all_clean {
            parts.extend(here);
        }
        Ok(all_clean)
    }

    /// git reads its repository folder: the nearest `.git` from `start` upwards.
    pub(crate) fn git_repository(&mut self, start: &Path) -> Result<(), ConfineError> {
        let mut dir = Some(start);
        while let Some(d) = dir {
            let candidate = d.join(".git");
            if candidate.is_dir() {
                self.grants.path(&candidate, Right::Read)?;
                return Ok(());
            }
            dir = d.parent();
        }
        Ok(())
    }
}

fn sandbox_io(e: std::io::Error) -> ConfineError {
    ConfineError::Sandbox(SandboxError::Build(e.to_string()))
}

/// A regular file with a second name: refused, since that name may be another for a secret.
pub(crate) fn hard_link_denial(shown: &str) -> PathDenial {
    PathDenial {
        reason: DenialReason::SensitiveFile,
        detail: shown.to_string(),
        message: format!(
            "Access to '{}' is blocked: it has more than one name (a hard link).",
            php_basename(shown)
        ),
    }
}
