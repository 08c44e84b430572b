//! Proofs of the confinement itself: real children, argv given straight to the runner (no
//! policy in the way), so what stops them is the kernel.

use std::ffi::OsString;
use std::fs;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use crate::core::tools::process::{run_with, Finished, Limits, Spawn};

struct Dir(PathBuf);
impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!(
            "phpclaw-sandbox-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn available() -> bool {
    if kernel_abi() <= 0 {
        eprintln!("no Landlock on this kernel: confinement proofs skipped");
        return false;
    }
    true
}

fn which(program: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(program))
        .find(|p| p.exists())
}

fn env() -> Vec<(OsString, OsString)> {
    vec![("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into())]
}

/// Runs `argv` confined: the program file is granted for execution, plus `grants`.
fn confined(argv: &[&str], cwd: &Path, mut grants: Grants, mutating: bool) -> Finished {
    let program = which(argv[0]).expect("program installed");
    grants.path(&program, Right::Execute).unwrap();
    let prepared = Prepared::confined(
        grants,
        argv[0],
        ChildLimits::for_command(mutating),
        kernel_abi(),
    )
    .unwrap();
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    run_with(
        &argv,
        &env(),
        Limits {
            timeout: Duration::from_secs(5),
            ceiling: 1 << 20,
        },
        Spawn {
            program: Some(&program),
            cwd: Some(cwd),
            prepared: Some(&prepared),
        },
    )
    .unwrap()
}

fn text(f: &Finished) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&f.stdout),
        String::from_utf8_lossy(&f.stderr)
    )
}

#[test]
fn mode_setting() {
    assert_eq!(Mode::parse("AUTO"), Some(Mode::Auto));
    assert_eq!(Mode::parse(""), Some(Mode::Off));
    assert_eq!(Mode::parse("1"), Some(Mode::Auto));
    assert_eq!(Mode::parse("0"), Some(Mode::Off));
    assert_eq!(Mode::parse(" required "), Some(Mode::Required));
    assert_eq!(Mode::parse("off"), Some(Mode::Off));
    assert_eq!(Mode::parse("on"), Some(Mode::Auto));
    assert_eq!(Mode::parse("bogus"), None);
    assert_eq!(Mode::Required.as_str(), "required");
}

#[test]
fn without_landlock_confinement_is_refused() {
    let e = Prepared::confined(Grants::new(), "ls", ChildLimits::for_command(false), 0);
    assert_eq!(e.unwrap_err(), SandboxError::Unavailable);
}

#[test]
fn reads_only_what_was_granted() {
    if !available() {
        return;
    }
    let d = Dir::new("read");
    fs::write(d.0.join("granted.txt"), "visible").unwrap();
    fs::write(d.0.join("secret.txt"), "TOPSECRET").unwrap();
    let mut g = Grants::new();
    g.path(&d.0.join("granted.txt"), Right::Read).unwrap();
    let f = confined(&["cat", "granted.txt", "secret.txt"], &d.0, g, false);
    let out = text(&f);
    assert!(out.contains("visible"), "{out}");
    assert!(!out.contains("TOPSECRET"), "{out}");
    assert!(out.contains("Permission denied"), "{out}");
    assert_ne!(f.exit_code, 0);
    // nothing of /etc beyond the system's grants
    let f = confined(&["cat", "/etc/hostname"], &d.0, Grants::new(), false);
    assert!(text(&f).contains("Permission denied"), "{}", text(&f));
}

#[test]
fn a_granted_link_target_is_the_inode_not_the_name() {
    if !available() {
        return;
    }
    let d = Dir::new("inode");
    fs::write(d.0.join("notes.txt"), "notes").unwrap();
    fs::write(d.0.join(".env"), "TOPSECRET").unwrap();
    std::os::unix::fs::symlink("notes.txt", d.0.join("link")).unwrap();
    let mut g = Grants::new();
    g.path(&d.0.join("link"), Right::Read).unwrap();
    // the link is flipped after the grant: it now leads to an object never granted
    fs::remove_file(d.0.join("link")).unwrap();
    std::os::unix::fs::symlink(".env", d.0.join("link")).unwrap();
    let f = confined(&["cat", "link"], &d.0, g, false);
    assert!(!text(&f).contains("TOPSECRET"), "{}", text(&f));
    assert!(text(&f).contains("Permission denied"));
}

#[test]
fn no_other_program_can_be_started() {
    if !available() {
        return;
    }
    let d = Dir::new("exec");
    let marker = d.0.join("ran");
    let touch = format!("touch {}", marker.display());
    fs::write(d.0.join("payload.txt"), format!("{touch}\n")).unwrap();
    let mut g = Grants::new();
    g.path(&d.0, Right::Write).unwrap();
    g.path(&d.0.join("payload.txt"), Right::Read).unwrap();
    if which("tar").is_some() {
        // old-style keys: `I` names the compress program, which receives the archive on stdin
        let f = confined(
            &["tar", "cIf", "sh", "out.tar", "payload.txt"],
            &d.0,
            g,
            true,
        );
        assert!(!marker.exists(), "tar -I ran sh: {}", text(&f));
        assert!(text(&f).contains("Permission denied"), "{}", text(&f));
    }
    for argv in [
        vec!["awk", &*format!("BEGIN{{system(\"{touch}\")}}")],
        vec!["sed", "-n", &*format!("1e {touch}"), "/dev/null"],
        vec!["find", ".", "-exec", "touch", "ran", ";"],
        vec!["env", "touch", "ran"],
    ] {
        if which(argv[0]).is_none() {
            continue;
        }
        let mut g = Grants::new();
        g.path(&d.0, Right::Write).unwrap();
        g.path(&d.0, Right::Read).unwrap();
        let f = confined(&argv, &d.0, g, true);
        assert!(!marker.exists(), "{argv:?} started a program: {}", text(&f));
        assert!(!d.0.join("ran").exists(), "{argv:?}");
    }
}

#[test]
fn no_network_connection() {
    if !available() || kernel_abi() < 4 || which("bash").is_none() {
        return;
    }
    let d = Dir::new("net");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("echo hi > /dev/tcp/127.0.0.1/{port} && echo CONNECTED");
    let f = confined(&["bash", "-c", &script], &d.0, Grants::new(), false);
    assert!(!text(&f).contains("CONNECTED"), "{}", text(&f));
    match listener.accept() {
        Err(e) => assert_eq!(e.kind(), ErrorKind::WouldBlock),
        Ok(_) => panic!("the confined child connected"),
    }
}

#[test]
fn writes_only_where_granted_and_only_when_mutating() {
    if !available() {
        return;
    }
    let d = Dir::new("write");
    let work = d.0.join("work");
    let outside = d.0.join("outside");
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(&outside).unwrap();
    let mut g = Grants::new();
    g.path(&work, Right::Write).unwrap();
    let f = confined(
        &["touch", "inside", outside.join("escaped").to_str().unwrap()],
        &work,
        g,
        true,
    );
    assert!(work.join("inside").exists(), "{}", text(&f));
    assert!(!outside.join("escaped").exists());
    // read-only command: no write grant, and no file may grow even where one exists
    let f = confined(&["touch", "again"], &work, Grants::new(), false);
    assert!(!work.join("again").exists(), "{}", text(&f));
}

#[test]
fn limits_are_applied_even_unconfined() {
    let d = Dir::new("limits");
    let prepared = Prepared::unconfined(ChildLimits::for_command(false));
    assert!(!prepared.is_confined());
    // the limits are set on the child right after it starts: let it count a little first
    let script =
        "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; ulimit -f; ulimit -c; ulimit -t";
    let argv: Vec<String> = ["sh", "-c", script].iter().map(|s| s.to_string()).collect();
    let f = run_with(
        &argv,
        &env(),
        Limits {
            timeout: Duration::from_secs(5),
            ceiling: 1 << 20,
        },
        Spawn {
            program: None,
            cwd: Some(&d.0),
            prepared: Some(&prepared),
        },
    )
    .unwrap();
    assert_eq!(String::from_utf8_lossy(&f.stdout), "0\n0\n10\n");
    // no new privileges: the flag is inherited and shown in /proc (set before the start)
    let argv: Vec<String> = ["grep", "NoNewPrivs", "/proc/self/status"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let f = run_with(
        &argv,
        &env(),
        Limits {
            timeout: Duration::from_secs(5),
            ceiling: 1 << 20,
        },
        Spawn {
            program: None,
            cwd: Some(&d.0),
            prepared: Some(&prepared),
        },
    )
    .unwrap();
    assert!(String::from_utf8_lossy(&f.stdout).contains("NoNewPrivs:\t1"));
}

#[test]
fn grants_are_counted_once_per_object_and_right() {
    let d = Dir::new("count");
    let mut g = Grants::new();
    assert!(g.path(&d.0, Right::Read).unwrap());
    assert!(g.path(&d.0.join("."), Right::Read).unwrap());
    assert_eq!(g.len(), 1);
    assert!(g.path(&d.0, Right::List).unwrap());
    assert_eq!(g.len(), 2);
    assert!(!g.path(&d.0.join("missing"), Right::Read).unwrap());
    assert_eq!(g.len(), 2);
}

#[test]
fn grants_past_the_cap_are_refused() {
    let d = Dir::new("cap");
    let mut g = Grants::new();
    for i in 0..=MAX_GRANTS {
        let p = d.0.join(format!("f{i}"));
        fs::write(&p, "").unwrap();
        let r = g.path(&p, Right::Read);
        if i < MAX_GRANTS {
            assert!(r.unwrap(), "{i}");
        } else {
            assert_eq!(r.unwrap_err(), SandboxError::TooManyGrants);
        }
    }
    assert_eq!(g.len(), MAX_GRANTS);
}
