//! The kernel's floor under a code_search of a tree: the same walk with plain system calls and
//! nothing else (no sandbox rules, no rows): each folder listed with `readdir` (code_search's
//! noise folders left out), each regular file opened by name in its open folder, `fstat`, one
//! `read` of its size into a reused buffer, `close`, and `memmem` for the literal. `bench/code_search.php`
//! runs it beside the tool to print how far the tool is above it.
//!
//! Build with `cargo build --profile ci --no-default-features --example code_search_floor` (the
//! core tests' profile: a release build of the crate without PHP, which leaves
//! `target/release/libphpclaw.so` alone); run `target/ci/examples/code_search_floor <root>
//! <literal> [walks]`. Prints
//! `floor|<median wall ms>|<mean cpu ms>|<files>|<bytes>|<files with the literal>` per walk,
//! CPU from `getrusage(RUSAGE_SELF)` over all the walks (it counts in clock ticks: one walk is
//! too short to time alone).

use std::ffi::{CStr, CString};
use std::time::Instant;

use phpclaw::core::security::file_rules::CODE_SEARCH_SKIP_DIRS;

/// What one walk saw.
#[derive(Default)]
struct Seen {
    files: usize,
    bytes: usize,
    hits: usize,
}

/// Walk the open folder `dir` (closed here).
fn walk(dir: libc::c_int, finder: &memchr::memmem::Finder, buf: &mut [u8], seen: &mut Seen) {
    // SAFETY: an open folder descriptor, handed to the stream (closedir closes it).
    let stream = unsafe { libc::fdopendir(dir) };
    if stream.is_null() {
        // SAFETY: fdopendir failed, so the descriptor is still ours.
        unsafe { libc::close(dir) };
        return;
    }
    loop {
        // SAFETY: a live stream.
        let e = unsafe { libc::readdir(stream) };
        if e.is_null() {
            break;
        }
        // SAFETY: readdir's entry is valid until the next call; its name is NUL-terminated.
        let (name, kind) = unsafe { (CStr::from_ptr((*e).d_name.as_ptr()), (*e).d_type) };
        let bytes = name.to_bytes();
        if bytes == b"."
            || bytes == b".."
            || CODE_SEARCH_SKIP_DIRS.iter().any(|d| d.as_bytes() == bytes)
        {
            continue;
        }
        // SAFETY: the stream's descriptor, a NUL-terminated name.
        let open = |flags| unsafe { libc::openat(libc::dirfd(stream), name.as_ptr(), flags) };
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        if kind == libc::DT_DIR {
            let sub = open(flags | libc::O_DIRECTORY);
            if sub >= 0 {
                walk(sub, finder, buf, seen);
            }
        } else if kind == libc::DT_REG {
            let f = open(flags);
            if f < 0 {
                continue;
            }
            // SAFETY: an all-zero stat is valid; an open descriptor and a writable buffer of at
            // least the length asked (the size and one byte more, as the tool reads).
            let n = unsafe {
                let mut st: libc::stat = std::mem::zeroed();
                libc::fstat(f, &mut st);
                let want = usize::try_from(st.st_size).map_or(buf.len(), |s| s + 1);
                let n = libc::read(f, buf.as_mut_ptr().cast(), want.min(buf.len()));
                libc::close(f);
                n
            };
            let n = usize::try_from(n).unwrap_or(0);
            seen.files += 1;
            seen.bytes += n;
            seen.hits += usize::from(finder.find(&buf[..n]).is_some());
        }
    }
    // SAFETY: a live stream, closed once.
    unsafe { libc::closedir(stream) };
}

/// CPU time of the process so far (user + system), in milliseconds.
fn cpu_ms() -> f64 {
    // SAFETY: an all-zero rusage is valid for the kernel to fill.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a writable struct.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(u.ru_utime) + ms(u.ru_stime)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(root), Some(literal)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: code_search_floor <root> <literal> [walks]");
        std::process::exit(2);
    };
    let walks: usize = args
        .get(3)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20)
        .max(1);
    let finder = memchr::memmem::Finder::new(literal.as_bytes());
    // The tool's largest file plus one byte: one read sees every file whole. Read at the middle
    // of a page: a copy whose target starts just past the page-aligned source's offset (as at
    // the start of a large allocation) stalls on false store-to-load dependencies (4K aliasing)
    // and would put the floor above the tool.
    let mut whole = vec![0u8; 1_048_577 + 4096];
    let at = (2048 + 4096 - whole.as_ptr() as usize % 4096) % 4096;
    let buf = &mut whole[at..];
    let root = CString::new(root.as_bytes()).expect("a root without NUL");
    let (mut wall, mut seen) = (Vec::new(), Seen::default());
    let cpu = cpu_ms();
    for _ in 0..walks {
        seen = Seen::default();
        let t = Instant::now();
        // SAFETY: a NUL-terminated path.
        let dir = unsafe { libc::open(root.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
        if dir >= 0 {
            walk(dir, &finder, buf, &mut seen);
        }
        wall.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let cpu = (cpu_ms() - cpu) / walks as f64;
    println!(
        "floor|{:.3}|{:.3}|{}|{}|{}",
        median(wall),
        cpu,
        seen.files,
        seen.bytes,
        seen.hits
    );
}
