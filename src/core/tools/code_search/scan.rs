//! The scan's inner loops: reading a file into a reused buffer and finding its matching lines.
//!
//! A file is searched as one buffer. A literal (the pattern itself, or a regex's required
//! literal from `prefilter`) is looked for with `memmem` over the whole buffer, and only the
//! lines around its hits are cut out and counted; a regex without a required literal is asked
//! about every line. Lines are the buffer split on `\n` (a `\r` stays in the line), a final
//! `\n` ending the last line rather than starting an empty one, as PHP's
//! `file(..., FILE_IGNORE_NEW_LINES)`.

use std::fs::File;
use std::os::fd::AsRawFd;

use memchr::memmem::Finder;
use memchr::{memchr, memchr_iter, memrchr};

use super::PhpRegex;

/// How lines are matched.
pub enum Matcher {
    /// A literal pattern: a line matches when it contains it.
    Literal(Finder<'static>),
    /// A PHP regex, with a literal every matching line contains when one is known.
    Regex {
        /// The compiled pattern, which decides every line.
        re: PhpRegex,
        /// Lines without this literal are never asked about.
        required: Option<Finder<'static>>,
        /// The literal is ASCII lower case and looked for ignoring ASCII case.
        caseless: bool,
    },
}

impl Matcher {
    /// A literal matcher.
    pub fn literal(pattern: &[u8]) -> Self {
        Matcher::Literal(Finder::new(pattern).into_owned())
    }

    /// A regex matcher, prefiltered by the pattern's required literal when it has one.
    pub fn regex(re: PhpRegex) -> Self {
        let required = re.required_literal();
        let caseless = required.is_some_and(|r| r.caseless);
        let required = required.map(|r| Finder::new(&r.bytes).into_owned());
        Matcher::Regex {
            re,
            required,
            caseless,
        }
    }

    /// A regex matcher that asks the pattern about every line.
    pub fn regex_unfiltered(re: PhpRegex) -> Self {
        Matcher::Regex {
            re,
            required: None,
            caseless: false,
        }
    }
}

/// A matching line: its bounds in the buffer (without the `\n`) and its 1-based number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// First byte of the line.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// Its 1-based number.
    pub number: usize,
}

/// Call `visit` with each matching line of `buf` in order until it returns `false`; `false`
/// when it did. `skipped` counts lines PCRE2 was asked about and failed on (match limits,
/// invalid UTF-8 under `/u`); they do not match.
pub fn for_each_match(
    buf: &[u8],
    m: &Matcher,
    skipped: &mut usize,
    mut visit: impl FnMut(Line) -> bool,
) -> bool {
    let (finder, re, caseless) = match m {
        Matcher::Literal(f) => (Some(f), None, false),
        Matcher::Regex {
            re,
            required,
            caseless,
        } => (required.as_ref(), Some(re), *caseless),
    };
    let mut check = |line: &[u8]| match re {
        None => true,
        Some(re) => re.is_match(line).unwrap_or_else(|| {
            *skipped += 1;
            false
        }),
    };
    let Some(finder) = finder else {
        return every_line(buf, |line| {
            !check(&buf[line.start..line.end]) || visit(line)
        });
    };
    // No line holds a `\n`, so a needle with one is in none of them.
    if finder.needle().contains(&b'\n') {
        return true;
    }
    // Ignoring ASCII case: search a lower-cased copy; bytes, and so lines, stay in place.
    let lowered;
    let hay = if caseless {
        lowered = buf.to_ascii_lowercase();
        &lowered[..]
    } else {
        buf
    };
    // `from` is always the start of a line; `counted` the start of line number `number`.
    let (mut from, mut counted, mut number) = (0, 0, 1);
    while let Some(at) = hay.get(from..).and_then(|rest| finder.find(rest)) {
        let hit = from + at;
        let start = memrchr(b'\n', &hay[from..hit]).map_or(from, |i| from + i + 1);
        let end = memchr(b'\n', &hay[hit..]).map_or(hay.len(), |i| hit + i);
        number += memchr_iter(b'\n', &hay[counted..start]).count();
        counted = start;
        if check(&buf[start..end]) && !visit(Line { start, end, number }) {
            return false;
        }
        from = end + 1;
    }
    true
}

/// Every line of `buf` in order, until `visit` returns `false`.
fn every_line(buf: &[u8], mut visit: impl FnMut(Line) -> bool) -> bool {
    let (mut start, mut number) = (0, 1);
    while start < buf.len() {
        let end = memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
        if !visit(Line { start, end, number }) {
            return false;
        }
        start = end + 1;
        number += 1;
    }
    true
}

/// Up to `n` lines before the line starting at `start`, in file order.
pub fn lines_before(buf: &[u8], start: usize, n: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut end = start;
    while out.len() < n && end > 0 {
        // `end - 1` is the `\n` that ends the previous line.
        let prev_end = end - 1;
        let prev_start = memrchr(b'\n', &buf[..prev_end]).map_or(0, |i| i + 1);
        out.push(buf[prev_start..prev_end].to_vec());
        end = prev_start;
    }
    out.reverse();
    out
}

/// Up to `n` lines after the line ending at `end`.
pub fn lines_after(buf: &[u8], end: usize, n: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = end + 1;
    while out.len() < n && start < buf.len() {
        let next_end = memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
        out.push(buf[start..next_end].to_vec());
        start = next_end + 1;
    }
    out
}

/// Read the open regular `file` (of `size` bytes when opened, from its `fstat`) into `buf`
/// (cleared first) unless it is larger than `max` bytes; `false` when it could not be read or
/// is too large. The caller opened and judged the file (`workspace::beneath`), so the walk
/// needs no `stat` per file and nothing is opened by path here.
pub fn read_open(file: File, size: u64, max: u64, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    if size > max {
        return false;
    }
    let size = size as usize;
    // One read usually fills the buffer to the size the file had when opened (one byte more
    // is room to see the end); a file that grew meanwhile is read on to its end, as `fs::read`
    // would. Read into the spare capacity: nothing is zeroed first.
    buf.reserve(size + 1);
    loop {
        let spare = buf.spare_capacity_mut();
        // SAFETY: an open descriptor and a writable region of `spare.len()` bytes.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
        match usize::try_from(n) {
            Ok(0) => break,
            Ok(n) => {
                // SAFETY: the kernel initialised the `n` (at most `spare.len()`) bytes it read.
                unsafe { buf.set_len(buf.len() + n) };
                if buf.len() == size {
                    break;
                }
                if buf.len() == buf.capacity() {
                    buf.reserve(buf.len());
                }
            }
            Err(_) if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {
            }
            Err(_) => {
                buf.clear();
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The straightforward reading: split on `\n`, drop the piece after a final `\n`.
    fn naive(buf: &[u8], needle: &[u8]) -> Vec<usize> {
        let mut lines: Vec<&[u8]> = buf.split(|&c| c == b'\n').collect();
        if buf.last() == Some(&b'\n') || buf.is_empty() {
            lines.pop();
        }
        let f = Finder::new(needle);
        (0..lines.len())
            .filter(|&i| f.find(lines[i]).is_some())
            .map(|i| i + 1)
            .collect()
    }

    fn found(buf: &[u8], m: &Matcher) -> Vec<usize> {
        let mut out = Vec::new();
        let mut skipped = 0;
        for_each_match(buf, m, &mut skipped, |l| {
            assert!(!buf[l.start..l.end].contains(&b'\n'));
            out.push(l.number);
            true
        });
        out
    }

    #[test]
    fn literal_lines_as_split_lines() {
        for buf in [
            &b""[..],
            b"\n",
            b"ab",
            b"ab\n",
            b"ab\nab",
            b"x\n\nab\r\nabab\n\n",
            b"\n\n\nab",
        ] {
            for needle in [&b"ab"[..], b"b\r", b"a", b"\nab", b"abab"] {
                assert_eq!(
                    found(buf, &Matcher::literal(needle)),
                    naive(buf, needle),
                    "{buf:?} {needle:?}"
                );
            }
        }
    }

    #[test]
    fn every_line_counts_empty_lines_but_not_the_final_newline() {
        let re = super::super::compile_php_regex(b"/^$/").unwrap();
        let m = Matcher::regex_unfiltered(re);
        assert_eq!(found(b"", &m), Vec::<usize>::new());
        assert_eq!(found(b"\n", &m), vec![1]);
        assert_eq!(found(b"a\n\n", &m), vec![2]);
        assert_eq!(found(b"a\n\nb", &m), vec![2]);
    }

    #[test]
    fn context_around_a_line() {
        let buf = b"1\n2\n3\n4\n";
        assert_eq!(lines_before(buf, 4, 5), vec![b"1".to_vec(), b"2".to_vec()]);
        assert_eq!(lines_before(buf, 4, 1), vec![b"2".to_vec()]);
        assert_eq!(lines_before(buf, 0, 1), Vec::<Vec<u8>>::new());
        assert_eq!(lines_after(buf, 5, 5), vec![b"4".to_vec()]);
        assert_eq!(lines_after(buf, 7, 5), Vec::<Vec<u8>>::new());
        assert_eq!(lines_after(b"1\n\n", 1, 5), vec![b"".to_vec()]);
        assert_eq!(lines_after(b"1", 1, 5), Vec::<Vec<u8>>::new());
    }

    #[test]
    fn reads_whole_files_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut buf = Vec::new();
        let open = |path: &std::path::Path| {
            let f = File::open(path).unwrap();
            let size = f.metadata().unwrap().len();
            (f, size)
        };
        for size in [0usize, 1, 4095, 4096, 70_000] {
            std::fs::write(&path, vec![b'x'; size]).unwrap();
            let (f, n) = open(&path);
            assert!(read_open(f, n, 70_000, &mut buf));
            assert_eq!(buf.len(), size);
        }
        std::fs::write(&path, vec![b'x'; 70_001]).unwrap();
        let (f, n) = open(&path);
        assert!(!read_open(f, n, 70_000, &mut buf));
        assert!(buf.is_empty());
        // Grown since its size was taken: read to its end.
        std::fs::write(&path, vec![b'x'; 10]).unwrap();
        let (f, _) = open(&path);
        assert!(read_open(f, 4, 70_000, &mut buf));
        assert_eq!(buf.len(), 10);
    }
}
