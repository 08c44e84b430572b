//! Where a confined spawn's time goes: prepare (grants + ruleset) versus fork/exec/wait,
//! confined and not, for `wc -l` on a small file. Run: cargo run --release --example sandbox_timing
use std::path::Path;
use std::time::{Duration, Instant};

use phpclaw::core::sandbox::Mode;
use phpclaw::core::sandbox::{kernel_abi, ChildLimits, Grants, Prepared, Right};
use phpclaw::core::security::shell_policy::ShellPolicy;
use phpclaw::core::tools::process::{run_with, Limits, Spawn};
use phpclaw::core::tools::shell::{Shell, TempDir};
use phpclaw::core::tools::{run, Host};
use phpclaw::core::value::Value;

struct NoHost;
impl Host for NoHost {
    type Error = ();
    fn running_in_console(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
    fn allows(&mut self) -> Result<bool, ()> {
        Ok(true)
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("phpclaw-sandbox-timing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("f.txt"), "a\nb\n").unwrap();
    let argv: Vec<String> = ["wc", "-l", "f.txt"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let env = vec![("PATH".into(), "/usr/bin:/bin".into())];
    let limits = Limits {
        timeout: Duration::from_secs(5),
        ceiling: 1 << 20,
    };
    let n = 300;
    // A worker-sized heap (PHP's is tens of MB): fork copies its page tables, posix_spawn not.
    let ballast: Vec<u8> = vec![1u8; 64 << 20];
    let touched: u64 = ballast.iter().step_by(4096).map(|b| u64::from(*b)).sum();
    let prog = Path::new("/usr/bin/wc");
    for _ in 0..2 {
        let t = Instant::now();
        let mut prep_time = Duration::ZERO;
        for _ in 0..n {
            let p0 = Instant::now();
            let mut g = Grants::new();
            g.path(prog, Right::Execute).unwrap();
            g.path(&dir.join("f.txt"), Right::Read).unwrap();
            let prepared =
                Prepared::confined(g, "wc", ChildLimits::for_command(false), kernel_abi()).unwrap();
            prep_time += p0.elapsed();
            run_with(
                &argv,
                &env,
                limits,
                Spawn {
                    program: Some(prog),
                    cwd: Some(&dir),
                    prepared: Some(&prepared),
                },
            )
            .unwrap();
        }
        let confined = t.elapsed() / n;
        let t = Instant::now();
        for _ in 0..n {
            let prepared = Prepared::unconfined(ChildLimits::for_command(false));
            run_with(
                &argv,
                &env,
                limits,
                Spawn {
                    program: Some(prog),
                    cwd: Some(&dir),
                    prepared: Some(&prepared),
                },
            )
            .unwrap();
        }
        let free = t.elapsed() / n;
        let t = Instant::now();
        for _ in 0..n {
            run_with(
                &argv,
                &env,
                limits,
                Spawn {
                    program: Some(prog),
                    cwd: Some(&dir),
                    prepared: None,
                },
            )
            .unwrap();
        }
        let spawned = t.elapsed() / n;
        println!(
            "confined {confined:?} (prepare {:?}), limits only (fork) {free:?}, nothing applied (posix_spawn) {spawned:?}",
            prep_time / n
        );
    }
    // The whole tool (policy, program lookup, planner, spawn), confined and not.
    for mode in [Mode::Auto, Mode::Off, Mode::Auto, Mode::Off] {
        let mut shell = Shell::new(
            ShellPolicy::new(["wc"], &dir),
            8192,
            10000,
            TempDir::Fixed(dir.clone()),
        );
        shell.sandbox = mode;
        let input = Value::from_pairs([("command", "wc -l f.txt")]);
        let t = Instant::now();
        for _ in 0..n {
            run(&mut shell, &mut NoHost, &input).unwrap();
        }
        let total = t.elapsed() / n;
        let t = Instant::now();
        for _ in 0..n {
            let _ = shell.check("wc -l f.txt").unwrap();
        }
        println!(
            "tool {mode:?}: {total:?} per call, policy check {:?}",
            t.elapsed() / n
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(touched > 0);
}
