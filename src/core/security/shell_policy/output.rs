//! Pure helpers for the process runner: output cleaning, inline caps and spill notes, the
//! runner's error messages, and which environment variables may reach the child.
//!
//! Output rules (reference `sanitizeOutput`, `runProcess`, `applyOutputCap`): remove ANSI CSI
//! sequences `ESC [ digits/semicolons letter`, then every control byte except tab, newline and
//! carriage return; trim both streams (PHP `trim` set); when the exit code is non-zero and
//! stdout is blank, answer stderr (or "Command exited with code N.") under the stderr cap,
//! else stdout under the stdout cap. Past a cap the full text is spilled to a temp file named
//! `phpclaw-shell-<stream>-XXXXXX` and a byte preview is returned with a note.
//! Environment rule (added; the reference passes the whole environment): only allow-listed
//! names reach a child.

use super::tables::{CHILD_ENV_NAMES, CHILD_ENV_PREFIXES, PROCESS_TIMEOUT_SECONDS};

/// Bytes PHP's `trim()` removes by default: space, tab, newline, carriage return, NUL, vertical tab.
pub const PHP_TRIM_BYTES: &[u8] = b" \t\n\r\0\x0B";

/// PHP `trim()` on bytes.
pub fn php_trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !PHP_TRIM_BYTES.contains(b))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !PHP_TRIM_BYTES.contains(b))
        .map_or(start, |i| i + 1);
    bytes.get(start..end).unwrap_or(&[])
}

/// PHP `trim()` on a string (the trimmed bytes are ASCII, so the result stays valid UTF-8).
pub fn php_trim_str(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_ascii() && PHP_TRIM_BYTES.contains(&(c as u8)))
}

/// Removes terminal escape sequences and control bytes so the model sees plain text; the
/// same two passes as the reference, in the same order (an ESC not starting a full CSI
/// sequence is dropped alone by the second pass, leaving its tail).
pub fn sanitize_output(raw: &[u8]) -> Vec<u8> {
    let mut without_csi = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw.get(i) == Some(&0x1B) && raw.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while matches!(raw.get(j), Some(b) if b.is_ascii_digit() || *b == b';') {
                j += 1;
            }
            if matches!(raw.get(j), Some(b) if b.is_ascii_alphabetic()) {
                i = j + 1;
                continue;
            }
        }
        if let Some(b) = raw.get(i) {
            without_csi.push(*b);
        }
        i += 1;
    }
    without_csi.retain(|b| !matches!(*b, 0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F));
    without_csi
}

/// What the tool answers for one finished process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shaped {
    /// Small enough to return as is.
    Inline(Vec<u8>),
    /// Over the cap: write `full` to a temp file named with [`spill_prefix`]`(stream)`, then
    /// answer [`spill_note`] (or [`discard_note`] when the file cannot be written).
    Spill {
        /// `"stdout"` or `"stderr"`.
        stream: &'static str,
        /// The first `cap` bytes (byte cut, as PHP `substr`; may split a UTF-8 character).
        preview: Vec<u8>,
        /// Everything, for the spill file.
        full: Vec<u8>,
        /// The inline cap that was exceeded.
        cap: usize,
    },
}

/// Picks the stream to answer and applies its cap, as `runProcess` does: sanitised and
/// trimmed stdout, unless the command failed with blank stdout (then stderr, or the exit note).
pub fn shape_output(
    stdout: &[u8],
    stderr: &[u8],
    exit_code: i32,
    max_stdout: usize,
    max_stderr: usize,
) -> Shaped {
    let out = sanitize_output(stdout);
    let err = sanitize_output(stderr);
    let out = php_trim(&out);
    if exit_code != 0 && out.is_empty() {
        let err = php_trim(&err);
        let text = if err.is_empty() {
            exit_note(exit_code).into_bytes()
        } else {
            err.to_vec()
        };
        return cap_output(text, max_stderr, "stderr");
    }
    cap_output(out.to_vec(), max_stdout, "stdout")
}

/// Returns `text` inline under `cap`, else the spill plan (reference `applyOutputCap`).
pub fn cap_output(text: Vec<u8>, cap: usize, stream: &'static str) -> Shaped {
    if text.len() <= cap {
        return Shaped::Inline(text);
    }
    let preview = text.get(..cap).unwrap_or(&text).to_vec();
    Shaped::Spill {
        stream,
        preview,
        full: text,
        cap,
    }
}

/// The answer for a failed command that printed nothing at all.
pub fn exit_note(exit_code: i32) -> String {
    format!("Command exited with code {exit_code}.")
}

/// `tempnam()` prefix of the spill file (the OS appends a unique suffix).
pub fn spill_prefix(stream: &str) -> String {
    format!("phpclaw-shell-{stream}-")
}

/// Preview followed by the pointer to the spill file.
pub fn spill_note(preview: &[u8], stream: &str, total_bytes: usize, path: &str) -> Vec<u8> {
    let mut out = preview.to_vec();
    out.extend_from_slice(
        format!("\n... [truncated; full {stream} ({total_bytes} bytes) written to {path}]")
            .as_bytes(),
    );
    out
}

/// Preview followed by the count of bytes lost when the spill file could not be written.
pub fn discard_note(preview: &[u8], total_bytes: usize, cap: usize) -> Vec<u8> {
    let mut out = preview.to_vec();
    out.extend_from_slice(
        format!(
            "\n... [truncated; {} more bytes discarded]",
            total_bytes.saturating_sub(cap)
        )
        .as_bytes(),
    );
    out
}

/// ToolException message when the command splits into no argv (cannot happen after `check`).
pub fn parse_failed_message(program: &str) -> String {
    format!("Failed to parse command '{program}'.")
}

/// ToolException message when the process cannot be started.
pub fn start_failed_message(program: &str) -> String {
    format!("Failed to start process for command '{program}'.")
}

/// ToolException message after the wall-clock deadline killed the child.
pub fn timeout_message(program: &str) -> String {
    format!("Command '{program}' was terminated after {PROCESS_TIMEOUT_SECONDS} seconds.")
}

/// ToolException message after the read ceiling killed the child.
pub fn ceiling_message(program: &str) -> String {
    format!("Command '{program}' exceeded the output size limit and was terminated.")
}

/// Whether an environment variable of the worker may reach a child: only the allow-listed
/// names ([`CHILD_ENV_NAMES`], [`CHILD_ENV_PREFIXES`]), and only as plain names.
pub fn child_env_allowed(name: &str) -> bool {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return false;
    }
    CHILD_ENV_NAMES.contains(&name) || CHILD_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_matches_the_reference_passes() {
        for (raw, want) in [
            (&b"\x1b[31mred\x1b[0m"[..], &b"red"[..]),
            (b"\x1b[1;32;40mX\x1b[K", b"X"),
            (b"\x1b[m plain", b" plain"),
            (b"\x1b]0;title\x07x", b"]0;titlex"),
            (b"\x1b[12", b"[12"),
            (b"a\tb\nc\rd", b"a\tb\nc\rd"),
            (b"\x00\x01\x08\x0b\x0c\x0e\x1f\x7fz", b"z"),
            (b"\xc3\xa9\x80", b"\xc3\xa9\x80"),
        ] {
            assert_eq!(sanitize_output(raw), want, "{raw:?}");
        }
        // matches PHP: preg_replace('/\033\[[0-9;]*[A-Za-z]/', …) then the control class
        assert_eq!(sanitize_output(b"\x1b[\x1b[1mz"), b"[z");
    }

    #[test]
    fn trim_is_php_trim() {
        assert_eq!(php_trim(b" \t\n\r\0\x0bx \x0c"), b"x \x0c");
        assert_eq!(php_trim(b" \n "), b"");
        assert_eq!(php_trim_str("\x0b ls -l\n"), "ls -l");
    }

    #[test]
    fn stream_choice() {
        assert_eq!(
            shape_output(b" out \n", b"err", 0, 10, 10),
            Shaped::Inline(b"out".to_vec())
        );
        assert_eq!(
            shape_output(b" out ", b"err", 2, 10, 10),
            Shaped::Inline(b"out".to_vec())
        );
        assert_eq!(
            shape_output(b" \n", b" err\n", 2, 10, 10),
            Shaped::Inline(b"err".to_vec())
        );
        assert_eq!(
            shape_output(b"", b"", 3, 10, 100),
            Shaped::Inline(b"Command exited with code 3.".to_vec())
        );
        assert_eq!(
            shape_output(b"", b"boom", 0, 10, 10),
            Shaped::Inline(Vec::new())
        );
    }

    #[test]
    fn caps_at_the_limit_and_one_past() {
        assert_eq!(
            cap_output(vec![b'a'; 8192], 8192, "stdout"),
            Shaped::Inline(vec![b'a'; 8192])
        );
        match cap_output(vec![b'a'; 8193], 8192, "stdout") {
            Shaped::Spill {
                stream,
                preview,
                full,
                cap,
            } => {
                assert_eq!(
                    (stream, preview.len(), full.len(), cap),
                    ("stdout", 8192, 8193, 8192)
                );
            }
            other => panic!("{other:?}"),
        }
        // the exit note itself goes through the stderr cap
        match shape_output(b"", b"", 1, 10, 5) {
            Shaped::Spill {
                stream, preview, ..
            } => assert_eq!((stream, &preview[..]), ("stderr", &b"Comma"[..])),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn notes_and_messages() {
        assert_eq!(spill_prefix("stderr"), "phpclaw-shell-stderr-");
        assert_eq!(
            spill_note(b"ab", "stdout", 9000, "/tmp/phpclaw-shell-stdout-x1"),
            b"ab\n... [truncated; full stdout (9000 bytes) written to /tmp/phpclaw-shell-stdout-x1]"
        );
        assert_eq!(
            discard_note(b"ab", 9000, 8192),
            b"ab\n... [truncated; 808 more bytes discarded]"
        );
        assert_eq!(
            timeout_message("ls"),
            "Command 'ls' was terminated after 5 seconds."
        );
        assert_eq!(
            ceiling_message("ls"),
            "Command 'ls' exceeded the output size limit and was terminated."
        );
        assert_eq!(
            start_failed_message("ls"),
            "Failed to start process for command 'ls'."
        );
        assert_eq!(parse_failed_message("ls"), "Failed to parse command 'ls'.");
    }

    #[test]
    fn env_filter() {
        for ok in ["PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ"] {
            assert!(child_env_allowed(ok), "{ok}");
        }
        for no in [
            "APP_KEY",
            "api_token",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
            "MYSQL_PWD_PASS",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "HTTP_AUTHORIZATION",
            "DATABASE_URL",
            "SENTRY_DSN",
            "SSH_PRIVATE",
            "LD_PRELOAD",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "ENV",
            "PERL5OPT",
            "PYTHONSTARTUP",
            "NODE_OPTIONS",
            "LESSOPEN",
            "GIT_SSH_COMMAND",
            "REDIS_URL",
            // names no pattern of secrets would catch: the allow-list does
            "MYSQL_PWD",
            "APP_PW",
            "PGPASSFILE",
            "HOME",
            "USER",
            "TMPDIR",
            "TERM",
            "PWD",
            "path",
            "LC-ALL",
            "",
            "A=B",
            "X\u{1}",
        ] {
            assert!(!child_env_allowed(no), "{no}");
        }
    }
}
