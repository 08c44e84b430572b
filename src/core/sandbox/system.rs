//! What every confined child may use of the system, and what a few programs need beyond it.
//!
//! The lists are what the C library, the dynamic loader and the programs of the default and
//! usual allowlists open on Debian (checked with `strace -e trace=open,openat` on Debian 12 and
//! 13): shared libraries, the loader's cache, locale and time-zone data, and `/dev/null`.
//! Paths that do not exist on a machine are skipped. Nothing here holds a secret; none of it
//! is a folder a workspace plausibly lives in (a workspace below one of them would be readable
//! through it, so keep workspaces out of the system's library folders).

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use once_cell::sync::OnceCell;

use super::{Grants, Right, SandboxError};

/// Folders and files every child may read.
pub const SYSTEM_READ: &[&str] = &[
    // shared libraries: mapped, so read, never executed
    "/usr/lib",
    "/usr/lib64",
    "/usr/lib32",
    "/usr/libx32",
    "/usr/local/lib",
    "/lib",
    "/lib64",
    "/lib32",
    // the loader's cache and configuration
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    // locales, character conversions, time zones
    "/usr/share/locale",
    "/usr/share/i18n",
    "/etc/locale.alias",
    "/etc/localtime",
    "/etc/timezone",
    "/usr/share/zoneinfo",
    // file(1)'s magic database
    "/usr/share/misc/magic.mgc",
    "/usr/share/file",
    "/etc/magic",
];

/// Files every child may read and write: the null device (git and others open it).
pub const SYSTEM_WRITE: &[&str] = &["/dev/null"];

/// ELF interpreters (dynamic loaders) a program may need: executable, since the kernel opens
/// the interpreter for execution. Whichever of them exist are granted.
pub const LOADERS: &[&str] = &[
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/ld-linux-aarch64.so.1",
    "/lib/ld-linux-armhf.so.3",
    "/lib/ld-linux.so.2",
    "/lib/ld-musl-x86_64.so.1",
    "/lib/ld-musl-aarch64.so.1",
];

/// One program's needs beyond the system's (program basenames, paths, right).
pub struct ProgramNeeds {
    /// Program basenames (lower case) the row applies to.
    pub programs: &'static [&'static str],
    /// What they may use.
    pub paths: &'static [&'static str],
    /// How.
    pub right: Right,
}

/// Added grants per program, allow-listed: user and group names for the programs that print
/// them (no program here prints a file's contents), and kernel and login records for the
/// programs that report on them.
pub const PROGRAM_NEEDS: &[ProgramNeeds] = &[
    ProgramNeeds {
        programs: &[
            "ls", "dir", "vdir", "stat", "id", "whoami", "groups", "tree", "users", "who",
        ],
        paths: &["/etc/passwd", "/etc/group", "/etc/nsswitch.conf"],
        right: Right::Read,
    },
    ProgramNeeds {
        programs: &["uptime", "df", "free", "w", "who", "users", "nproc"],
        paths: &[
            "/proc",
            "/run/utmp",
            "/var/run/utmp",
            "/sys/devices/system/cpu",
        ],
        right: Right::Read,
    },
];

/// The grants every child gets, opened once per process (the folders are the system's, never
/// replaced while it runs; descriptors are shared read-only, so threads may use them at once).
fn shared() -> &'static [(OwnedFd, Right, bool)] {
    static SHARED: OnceCell<Vec<(OwnedFd, Right, bool)>> = OnceCell::new();
    SHARED.get_or_init(|| {
        let mut g = Grants::new();
        let rows = SYSTEM_READ
            .iter()
            .map(|p| (p, Right::Read))
            .chain(
                SYSTEM_WRITE
                    .iter()
                    .flat_map(|p| [(p, Right::Read), (p, Right::Write)]),
            )
            .chain(LOADERS.iter().map(|p| (p, Right::Execute)));
        for (path, right) in rows {
            // The table is far below MAX_GRANTS: nothing to refuse here.
            let _ = g.path(Path::new(path), right);
        }
        g.into_items()
    })
}

/// Adds the system's grants and `program`'s own needs (`program`: basename, any case).
pub fn add_grants(grants: &mut Grants, program: &str) -> Result<(), SandboxError> {
    for (fd, right, is_dir) in shared() {
        grants.shared(fd.as_fd(), *right, *is_dir)?;
    }
    let name = program.to_ascii_lowercase();
    for row in PROGRAM_NEEDS {
        if row.programs.contains(&name.as_str()) {
            for path in row.paths {
                grants.path(Path::new(path), row.right)?;
            }
        }
    }
    Ok(())
}
