//! Kernel confinement for shell children: Linux Landlock, no new privileges, resource limits.
//!
//! The policy decides what a command may touch; this module makes the kernel hold the child to
//! it, so an option the policy misread, or a program that can be talked into starting another
//! one, fails with "Permission denied" instead of running. Rules:
//! - the parent builds everything: it opens each granted file or folder (the grant is tied to
//!   the inode behind that descriptor, so a path or link changed afterwards leads nowhere),
//!   creates the ruleset and adds the rules; then a short-lived thread of the parent restricts
//!   itself ([`Prepared::restrict_this_thread`]) and starts the child with `posix_spawn`, so the
//!   child is confined from its first instruction and runs no code of ours at all between
//!   `fork` and `exec` (and the worker's memory is never copied, as a pre-exec hook would force);
//! - handled, so denied unless granted: every filesystem right the kernel knows, TCP bind and
//!   connect (ABI 4+, no port is ever granted) and, with ABI 6+, signals and abstract UNIX
//!   sockets reaching outside the child's own domain;
//! - granted: executing the program file itself and the system's ELF interpreter (nothing else
//!   can be executed, so `tar -I`, pagers, `system()` and hooks fail), reading the system's
//!   library, locale and time-zone folders ([`system`]), and whatever the caller adds;
//! - always, Landlock or not: `PR_SET_NO_NEW_PRIVS` and the [`ChildLimits`] resource limits
//!   (set on the child with `prlimit` right after it starts: they are backstops for runaway
//!   children, the kernel rules above are what confine it).
//!
//! [`Mode`] says what happens where the kernel has no Landlock: `auto` runs with the policy
//! alone, `required` refuses to run, `off` never confines.

pub mod system;

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset,
    RulesetAttr, RulesetCreatedAttr, Scope, ABI,
};
use once_cell::sync::OnceCell;

/// What to do about confinement (php.ini `phpclaw.shell_sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Confine when the kernel can; otherwise run with the policy alone (said once in the log).
    Auto,
    /// Refuse to run any command unconfined.
    Required,
    /// Never confine (resource limits and no-new-privileges still apply).
    Off,
}

impl Mode {
    /// The setting's text, case-insensitive; None for anything else. PHP's ini parser turns
    /// an unquoted `off`, `no`, `false` or `none` into an empty value and `on`, `yes`, `true`
    /// into `1`, so those read as `off` and `auto`.
    pub fn parse(text: &str) -> Option<Mode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" | "1" | "on" | "yes" | "true" => Some(Mode::Auto),
            "required" => Some(Mode::Required),
            "off" | "" | "0" | "no" | "false" | "none" => Some(Mode::Off),
            _ => None,
        }
    }

    /// The setting's canonical text.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Required => "required",
            Mode::Off => "off",
        }
    }
}

/// The Landlock ABI version the running kernel reports (0: none), asked once per process.
pub fn kernel_abi() -> i32 {
    static ABI_VERSION: OnceCell<i32> = OnceCell::new();
    *ABI_VERSION.get_or_init(|| {
        // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only
        // returns the version (or -1); it reads no memory.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            )
        };
        i32::try_from(v).unwrap_or(0).max(0)
    })
}

/// Resource limits of one child. The wall-clock deadline and the output ceiling are the
/// runner's; these are backstops the kernel enforces even on a child that ignores signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// CPU seconds (`RLIMIT_CPU`): SIGXCPU, then SIGKILL one second later.
    pub cpu_seconds: u64,
    /// Address space in bytes (`RLIMIT_AS`): allocations past it fail.
    pub address_space: u64,
    /// Largest file the child may write (`RLIMIT_FSIZE`); 0 for a read-only command.
    pub file_size: u64,
    /// Processes and threads of the user (`RLIMIT_NPROC`; not enforced for root).
    pub processes: u64,
}

/// CPU seconds a child may use: twice the 5 s wall-clock deadline, so the deadline decides
/// for any ordinary program and this only stops a child that outlives its killer.
pub const CHILD_CPU_SECONDS: u64 = 10;
/// Address space of a child: 4 GiB, room for ripgrep's and git's memory maps.
pub const CHILD_ADDRESS_SPACE: u64 = 4 << 30;
/// Largest file a mutating command may write: 64 MiB.
pub const CHILD_FILE_SIZE: u64 = 64 << 20;
/// Processes and threads of the worker's user while the child runs: a stop for runaway
/// forking. It counts every process of that user (php-fpm's workers too), so it is generous.
pub const CHILD_PROCESSES: u64 = 1024;

impl ChildLimits {
    /// The limits for a read-only command (`mutating` false: no file may grow at all) or for a
    /// mutating one.
    pub fn for_command(mutating: bool) -> ChildLimits {
        ChildLimits {
            cpu_seconds: CHILD_CPU_SECONDS,
            address_space: CHILD_ADDRESS_SPACE,
            file_size: if mutating { CHILD_FILE_SIZE } else { 0 },
            processes: CHILD_PROCESSES,
        }
    }

    fn table(self) -> [(libc::__rlimit_resource_t, u64); 5] {
        [
            (libc::RLIMIT_CPU, self.cpu_seconds),
            (libc::RLIMIT_AS, self.address_space),
            (libc::RLIMIT_FSIZE, self.file_size),
            (libc::RLIMIT_NPROC, self.processes),
            (libc::RLIMIT_CORE, 0),
        ]
    }
}

/// What a granted object may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Right {
    /// Execute this program file (and read it).
    Execute,
    /// Read this file, or every file below this folder, and list every folder below it.
    Read,
    /// List this folder and every folder below it, reading no file.
    List,
    /// Write this file, or create, change, remove and list anything below this folder (reading
    /// no file: what a command reads is granted separately).
    Write,
}

/// Why a confinement could not be prepared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The kernel has no Landlock and the mode is `required`.
    #[error("the kernel offers no Landlock sandbox and phpclaw.shell_sandbox is 'required'")]
    Unavailable,
    /// More grants than [`MAX_GRANTS`].
    #[error("more than {MAX_GRANTS} separate grants would be needed")]
    TooManyGrants,
    /// A system call failed while building the ruleset.
    #[error("the sandbox could not be built: {0}")]
    Build(String),
}

/// Most rules one child's ruleset may hold: building stays fast, and a tree that would need
/// more is refused rather than half-confined.
pub const MAX_GRANTS: usize = 4096;

/// The objects one child may use, each an open descriptor (`O_PATH`) with its right.
#[derive(Debug, Default)]
pub struct Grants {
    items: Vec<(OwnedFd, Right, bool)>,
    shared: Vec<(BorrowedFd<'static>, Right, bool)>,
    seen: HashSet<(u64, u64, Right)>,
}

impl Grants {
    /// No grants yet.
    pub fn new() -> Grants {
        Grants::default()
    }

    /// Opens `path` (following links: the grant is on where it leads) and grants `right` on
    /// it. A path that does not exist is skipped (false); the same object and right twice is
    /// kept once.
    pub fn path(&mut self, path: &Path, right: Right) -> Result<bool, SandboxError> {
        match open_path(path) {
            Some(fd) => self.fd(fd, right).map(|()| true),
            None => Ok(false),
        }
    }

    /// Grants `right` on an already opened object.
    pub fn fd(&mut self, fd: OwnedFd, right: Right) -> Result<(), SandboxError> {
        let meta = fd_metadata(&fd).map_err(|e| SandboxError::Build(e.to_string()))?;
        let key = (meta.dev(), meta.ino(), right);
        if self.seen.contains(&key) {
            return Ok(());
        }
        if self.len() >= MAX_GRANTS {
            return Err(SandboxError::TooManyGrants);
        }
        self.seen.insert(key);
        self.items.push((fd, right, meta.is_dir()));
        Ok(())
    }

    /// Grants `right` on an object opened once for the whole process ([`system`]).
    fn shared(
        &mut self,
        fd: BorrowedFd<'static>,
        right: Right,
        is_dir: bool,
    ) -> Result<(), SandboxError> {
        if self.len() >= MAX_GRANTS {
            return Err(SandboxError::TooManyGrants);
        }
        self.shared.push((fd, right, is_dir));
        Ok(())
    }

    fn into_items(self) -> Vec<(OwnedFd, Right, bool)> {
        self.items
    }

    /// How many grants are held.
    pub fn len(&self) -> usize {
        self.items.len() + self.shared.len()
    }

    /// Whether nothing is granted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `fstat` of an open descriptor (an `O_PATH` one included), without giving it up.
pub fn fd_metadata(fd: &OwnedFd) -> io::Result<std::fs::Metadata> {
    File::from(fd.try_clone()?).metadata()
}

/// `open(path, O_PATH | O_CLOEXEC)`, following links.
pub fn open_path(path: &Path) -> Option<OwnedFd> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)
        .ok()
        .map(OwnedFd::from)
}

/// Everything the child applies to itself before `exec`, prepared in the parent.
#[derive(Debug)]
pub struct Prepared {
    ruleset: Option<OwnedFd>,
    limits: [(libc::__rlimit_resource_t, u64); 5],
}

impl Prepared {
    /// Limits and no-new-privileges only (mode `off`, or `auto` without Landlock).
    pub fn unconfined(limits: ChildLimits) -> Prepared {
        Prepared {
            ruleset: None,
            limits: limits.table(),
        }
    }

    /// Builds the Landlock ruleset for `grants` plus the system's own grants ([`system`]).
    pub fn confined(
        mut grants: Grants,
        program: &str,
        limits: ChildLimits,
        abi_version: i32,
    ) -> Result<Prepared, SandboxError> {
        if abi_version <= 0 {
            return Err(SandboxError::Unavailable);
        }
        system::add_grants(&mut grants, program)?;
        let abi = ABI::from(abi_version);
        let build = |e: landlock::RulesetError| SandboxError::Build(e.to_string());
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::from_all(abi))
            .map_err(build)?;
        if abi_version >= 4 {
            ruleset = ruleset
                .handle_access(AccessNet::from_all(abi))
                .map_err(build)?;
        }
        if abi_version >= 6 {
            ruleset = ruleset.scope(Scope::from_all(abi)).map_err(build)?;
        }
        let mut created = ruleset.create().map_err(build)?;
        for (fd, right, is_dir) in grants.shared {
            let access = access_for(right, is_dir, abi);
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(build)?;
        }
        for (fd, right, is_dir) in grants.items {
            let access = access_for(right, is_dir, abi);
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(build)?;
        }
        let fd: Option<OwnedFd> = created.into();
        let fd = fd.ok_or_else(|| SandboxError::Build("no ruleset descriptor".into()))?;
        Ok(Prepared {
            ruleset: Some(fd),
            limits: limits.table(),
        })
    }

    /// Whether a Landlock ruleset will be applied.
    pub fn is_confined(&self) -> bool {
        self.ruleset.is_some()
    }

    /// Restricts the calling thread (never the process): no new privileges, then the Landlock
    /// ruleset. A child started from this thread afterwards inherits both; the thread itself
    /// should start that child and end.
    pub fn restrict_this_thread(&self) -> io::Result<()> {
        // SAFETY: prctl(PR_SET_NO_NEW_PRIVS) and landlock_restrict_self act on the calling
        // thread only, with a descriptor `self` owns.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if let Some(fd) = &self.ruleset {
                let rc = libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32);
                if rc != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }

    /// Sets the resource limits on the process `pid` (a child just started), only ever lowering
    /// them. A child that is already gone is no error.
    pub fn limit(&self, pid: u32) {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return;
        };
        for (resource, value) in self.limits {
            let mut current = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            // SAFETY: prlimit reads and writes the two rlimit structures given, nothing else.
            unsafe {
                if libc::prlimit(pid, resource, std::ptr::null(), &mut current) != 0 {
                    continue;
                }
                let limit = libc::rlimit {
                    rlim_cur: value.min(current.rlim_cur),
                    rlim_max: value.min(current.rlim_max),
                };
                libc::prlimit(pid, resource, &limit, std::ptr::null_mut());
            }
        }
    }
}

/// The Landlock rights for one grant; a file only takes rights that apply to files.
fn access_for(right: Right, is_dir: bool, abi: ABI) -> BitFlags<AccessFs> {
    let access = match right {
        Right::Execute => AccessFs::Execute | AccessFs::ReadFile,
        Right::Read => AccessFs::ReadFile | AccessFs::ReadDir,
        Right::List => BitFlags::from(AccessFs::ReadDir),
        // Writing never implies reading: a mutating command reads only what it was granted.
        Right::Write => AccessFs::from_write(abi) | AccessFs::ReadDir,
    };
    if is_dir {
        access & AccessFs::from_all(abi)
    } else {
        access & AccessFs::from_file(abi)
    }
}

#[cfg(test)]
mod tests;
