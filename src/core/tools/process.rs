//! The process runner behind `shell_exec`: one approved argv, executed directly (no shell), with
//! the limits the spec sets, and the spill files that hold output too long to answer inline.
//!
//! Rules:
//! - the program is started with `posix_spawn` (by the path the caller found, or with `execvp`
//!   semantics), never through `/bin/sh`; its stdin is the null device (reads see end of file at
//!   once); stdout and stderr are pipes; it runs in a new process group of its own;
//! - with a [`Prepared`] confinement it is started from a short-lived thread that applied the
//!   confinement to itself first, and its resource limits are set right after it starts; a
//!   failure to apply the confinement is [`RunFailure::Start`], never a run without it;
//! - the child's environment is built from an allow-list ([`child_environment`]), never the
//!   worker's environment filtered by name;
//! - both pipes are read as data arrives until both are closed and the child has exited, or the
//!   wall-clock deadline passes: then the whole process group gets SIGKILL (grandchildren
//!   included), the child is reaped, and the run fails with [`RunFailure::Timeout`];
//! - when stdout and stderr together pass the read ceiling, the group is killed the same way
//!   and the run fails with [`RunFailure::Ceiling`]; at the ceiling exactly the output is kept;
//! - a program that cannot be executed (not found, not executable) finishes like the
//!   reference's forked child whose `exec` failed: exit code 127, no output; a failure to
//!   create the pipes or the process is [`RunFailure::Start`];
//! - the exit code is the child's own, or the raw wait status when a signal ended it (what
//!   PHP's `proc_close()` answers).
//!
//! Spill files are created like PHP's `tempnam()`: `<dir>/<prefix>XXXXXX`, created exclusively
//! with mode 0600, then written in full.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::core::sandbox::Prepared;
use crate::core::security::shell_policy::{child_env_allowed, DEFAULT_CHILD_PATH, PROGRAM_ENV};

/// Exit code of a program that could not be executed (PHP's forked child after a failed exec).
pub const EXEC_FAILED_EXIT_CODE: i32 = 127;

/// Bytes read from a pipe at a time.
const CHUNK: usize = 64 * 1024;

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time from start to the kill.
    pub timeout: Duration,
    /// Combined stdout + stderr bytes allowed; one more kills the run.
    pub ceiling: usize,
}

/// A process that ran to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Everything it wrote on stdout.
    pub stdout: Vec<u8>,
    /// Everything it wrote on stderr.
    pub stderr: Vec<u8>,
    /// Its exit code, or the raw wait status when a signal ended it.
    pub exit_code: i32,
}

/// Why a run did not finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunFailure {
    /// The pipes or the process could not be created.
    Start,
    /// The deadline passed; the process group was killed.
    Timeout,
    /// The output passed the ceiling; the process group was killed.
    Ceiling,
}

/// A child's whole environment: the worker's allow-listed variables ([`child_env_allowed`]),
/// PATH (the worker's, else [`DEFAULT_CHILD_PATH`]), HOME set to `home` (the folder the command
/// runs in, so no program reads the account's own dot-files), and `program`'s own settings
/// ([`PROGRAM_ENV`]).
pub fn child_environment(home: &Path, program: &str) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(name, _)| name.to_str().is_some_and(child_env_allowed))
        .collect();
    if !env.iter().any(|(name, _)| name == "PATH") {
        env.push(("PATH".into(), DEFAULT_CHILD_PATH.into()));
    }
    env.push(("HOME".into(), home.as_os_str().to_owned()));
    let name = program
        .rsplit('/')
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    for (_, vars) in PROGRAM_ENV.iter().filter(|(p, _)| *p == name) {
        env.extend(
            vars.iter()
                .map(|(k, v)| (OsString::from(k), OsString::from(v))),
        );
    }
    env
}

/// Where and how a child starts, beyond its argv and environment.
#[derive(Debug, Default, Clone, Copy)]
pub struct Spawn<'a> {
    /// The program file to execute (`argv[0]` stays the command's own token); None: look
    /// `argv[0]` up on the child's PATH.
    pub program: Option<&'a Path>,
    /// The working directory; None: the process's own.
    pub cwd: Option<&'a Path>,
    /// What the child applies to itself before `exec` (sandbox, limits); None: nothing.
    pub prepared: Option<&'a Prepared>,
}

/// Run `argv` (program first) with exactly the environment `env`, within `limits`.
pub fn run(
    argv: &[String],
    env: &[(OsString, OsString)],
    limits: Limits,
) -> Result<Finished, RunFailure> {
    run_with(argv, env, limits, Spawn::default())
}

/// [`run`], started as `spawn` says.
pub fn run_with(
    argv: &[String],
    env: &[(OsString, OsString)],
    limits: Limits,
    spawn: Spawn,
) -> Result<Finished, RunFailure> {
    let Some((program, args)) = argv.split_first() else {
        return Err(RunFailure::Start);
    };
    let mut command = Command::new(spawn.program.map_or(program.as_ref(), Path::as_os_str));
    command.arg0(program);
    if let Some(cwd) = spawn.cwd {
        command.current_dir(cwd);
    }
    command
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let spawned = match spawn.prepared {
        None => command.spawn(),
        // The confinement is applied to a short-lived thread of our own, which then starts the
        // child: the child inherits it at birth (no code runs between fork and exec), and the
        // worker's other threads are never restricted. posix_spawn stays usable, where a
        // pre-exec hook would force a full fork of the worker's memory (milliseconds for a
        // PHP worker). The resource limits follow at once, set on the child from outside.
        Some(prepared) => {
            let started = std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        prepared
                            .restrict_this_thread()
                            .map_err(|_| RunFailure::Start)?;
                        let child = command.spawn();
                        if let Ok(child) = &child {
                            prepared.limit(child.id());
                        }
                        Ok(child)
                    })
                    .join()
                    .unwrap_or(Err(RunFailure::Start))
            });
            started?
        }
    };
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if is_exec_failure(&e) => {
            return Ok(Finished {
                stdout: Vec::new(),
                stderr: Vec::new(),
                exit_code: EXEC_FAILED_EXIT_CODE,
            })
        }
        Err(_) => return Err(RunFailure::Start),
    };
    let deadline = started + limits.timeout;
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        kill_group(&mut child);
        return Err(RunFailure::Start);
    };
    let mut streams = [Stream::new(out), Stream::new(err)];
    if let Err(failure) = read_all(&mut streams, deadline, limits.ceiling) {
        kill_group(&mut child);
        return Err(failure);
    }
    let status = match wait_until(&mut child, deadline) {
        Some(status) => status,
        None => {
            kill_group(&mut child);
            return Err(RunFailure::Timeout);
        }
    };
    let [out, err] = streams;
    Ok(Finished {
        stdout: out.data,
        stderr: err.data,
        exit_code: exit_code(status),
    })
}

/// Whether spawning failed in `exec` itself (the program), rather than creating the process.
fn is_exec_failure(e: &std::io::Error) -> bool {
    !matches!(
        e.raw_os_error(),
        Some(libc::EAGAIN | libc::ENOMEM | libc::EMFILE | libc::ENFILE) | None
    )
}

/// `proc_close()`'s answer: the exit code, or the raw wait status after a signal.
fn exit_code(status: ExitStatus) -> i32 {
    status.code().unwrap_or_else(|| status.into_raw())
}

/// One output pipe and what was read from it.
struct Stream {
    pipe: Option<File>,
    data: Vec<u8>,
}

impl Stream {
    fn new(pipe: impl Into<std::os::fd::OwnedFd>) -> Stream {
        Stream {
            pipe: Some(File::from(pipe.into())),
            data: Vec::new(),
        }
    }
}

/// Read both pipes until both are closed; fails at the deadline or past the ceiling.
fn read_all(
    streams: &mut [Stream; 2],
    deadline: Instant,
    ceiling: usize,
) -> Result<(), RunFailure> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        if streams.iter().all(|s| s.pipe.is_none()) {
            return Ok(());
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(RunFailure::Timeout);
        }
        let mut fds = streams.each_ref().map(|s| libc::pollfd {
            fd: s.pipe.as_ref().map_or(-1, AsRawFd::as_raw_fd),
            events: libc::POLLIN,
            revents: 0,
        });
        let wait = deadline - now;
        // Round up so the loop does not spin in the last millisecond before the deadline.
        let ms = wait.as_millis().saturating_add(1).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `fds` is a live array of two pollfd structures for the duration of the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == ErrorKind::Interrupted {
                continue;
            }
            return Err(RunFailure::Start);
        }
        for (stream, fd) in streams.iter_mut().zip(fds.iter()) {
            if fd.fd < 0 || fd.revents == 0 {
                continue;
            }
            let Some(pipe) = stream.pipe.as_mut() else {
                continue;
            };
            match pipe.read(&mut buf) {
                Ok(0) => stream.pipe = None,
                Ok(n) => stream.data.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => stream.pipe = None,
            }
        }
        let total = streams[0].data.len().saturating_add(streams[1].data.len());
        if total > ceiling {
            return Err(RunFailure::Ceiling);
        }
    }
}

/// Wait for the child to exit, until the deadline. None when it is still running then. The
/// wait sleeps on a pidfd (woken the moment the child exits); where the kernel has none, it
/// polls with a growing pause.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    let pidfd = pid_fd(child);
    let mut pause = Duration::from_micros(50);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            // Already reaped elsewhere (a SIGCHLD handler): nothing more to learn.
            Err(_) => return Some(ExitStatus::from_raw(0)),
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        let left = deadline - now;
        match &pidfd {
            Some(fd) => {
                let mut p = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                let ms = left.as_millis().saturating_add(1).min(i32::MAX as u128) as libc::c_int;
                // SAFETY: one live pollfd for the duration of the call.
                unsafe { libc::poll(&mut p, 1, ms) };
            }
            None => {
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(10));
            }
        }
    }
}

/// A pidfd for the child (readable once it exits), where the kernel has `pidfd_open` (5.3+).
fn pid_fd(child: &Child) -> Option<std::os::fd::OwnedFd> {
    let pid = libc::pid_t::try_from(child.id()).ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1; the child is
    // not reaped yet, so the pid is still its own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = libc::c_int::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: a fresh descriptor nobody else owns.
    Some(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
}

/// SIGKILL to the child's whole process group, then reap the child.
fn kill_group(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: plain syscall; the group id is the child's pid (it leads its own group), and
        // the child is not reaped yet, so that id cannot have been reused.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Create `<dir>/<prefix>XXXXXX` exclusively (mode 0600) as PHP's `tempnam()` does, write
/// `content` to it, and return its path; None when either step fails (nothing is left behind).
pub fn spill(dir: &Path, prefix: &str, content: &[u8]) -> Option<PathBuf> {
    let mut template = dir.as_os_str().as_bytes().to_vec();
    if template.last() != Some(&b'/') {
        template.push(b'/');
    }
    template.extend_from_slice(prefix.as_bytes());
    template.extend_from_slice(b"XXXXXX");
    let template = CString::new(template).ok()?;
    let mut raw = template.into_bytes_with_nul();
    // SAFETY: `raw` is a writable NUL-terminated template ending in six X characters, as
    // mkstemp requires; it replaces them in place and returns an open descriptor or -1.
    let fd = unsafe { libc::mkstemp(raw.as_mut_ptr().cast()) };
    if fd < 0 {
        return None;
    }
    raw.pop();
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(&raw));
    // SAFETY: mkstemp returned a fresh descriptor nobody else owns.
    let mut file = unsafe { File::from_raw_fd(fd) };
    if file.write_all(content).and_then(|()| file.flush()).is_err() {
        drop(file);
        let _ = std::fs::remove_file(&path);
        return None;
    }
    Some(path)
}
