//! The all-or-nothing write file_write and file_edit share, and the creation of missing parent
//! folders for file_write.
//!
//! Rules (phpClaw's `AtomicFileWrite` concern, public repository phpclaw-php/phpclaw-monorepo):
//! - the new content goes to a fresh temp file in the target's own folder, named
//!   `.phpclaw-<prefix>-XXXXXX`, created exclusively (never an existing file or a symlink);
//! - an existing target's permission bits, owner and group are copied to it (best effort);
//! - the temp file is flushed to disk (`fsync`) and only then renamed over the target, so a
//!   reader sees the old file or the new one, never a partial one; the folder is synced after;
//! - on any failure the temp file is removed and the target is left exactly as it was;
//! - a new file keeps the temp file's mode, 0600, as the reference's `tempnam()` gives it;
//! - messages are the reference's, prefixed with the tool's label (`file_write`, `file_edit`).

use std::fs::{self, File};
use std::io::{ErrorKind, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use crate::core::security::file_rules::sanitize_for_message;

/// Mode of the folders file_write creates.
pub const DIRECTORY_MODE: u32 = 0o755;

/// Write `content` to `target` atomically. `shown` is the user's path (quoted sanitised in
/// messages), `label` the tool name, `prefix` the temp file's middle part (`write`, `edit`).
pub fn write_atomically(
    target: &Path,
    content: &[u8],
    shown: &str,
    label: &str,
    prefix: &str,
) -> Result<(), String> {
    let s = sanitize_for_message(shown);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => return Err(format!("{label}: failed to create temp file for write.")),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".phpclaw-{prefix}-"))
        .rand_bytes(6)
        .tempfile_in(dir)
        .map_err(|e| match e.kind() {
            ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem => {
                format!("{label}: cannot write atomically: target directory is not writable.")
            }
            _ => format!("{label}: failed to create temp file for write."),
        })?;
    // From here on, dropping `tmp` removes the temp file: every early return cleans up.
    tmp.write_all(content)
        .and_then(|()| tmp.flush())
        .map_err(|_| format!("{label}: failed to write: {s}"))?;
    if let Ok(meta) = fs::metadata(target) {
        let file = tmp.as_file();
        let _ = file.set_permissions(fs::Permissions::from_mode(meta.mode() & 0o777));
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
    }
    tmp.as_file()
        .sync_all()
        .map_err(|_| format!("{label}: failed to write: {s}"))?;
    tmp.persist(target)
        .map_err(|_| format!("{label}: failed to finalize write: {s}"))?;
    // Make the rename itself durable; a folder that cannot be synced changes nothing above.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Create the missing folders above `target` one at a time (mode 0755), refusing to pass
/// through anything that is not a real folder (a symlink planted since the check included).
pub fn ensure_parent_directory(target: &Path) -> Result<(), String> {
    let Some(dir) = target.parent() else {
        return Ok(());
    };
    let cannot = || {
        format!(
            "Could not create directory: {}",
            sanitize_for_message(&dir.to_string_lossy())
        )
    };
    if let Ok(meta) = fs::symlink_metadata(dir) {
        return if meta.is_dir() { Ok(()) } else { Err(cannot()) };
    }
    let mut missing: Vec<PathBuf> = Vec::new();
    let mut cur = dir;
    loop {
        match fs::symlink_metadata(cur) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => return Err(cannot()),
            Err(e) if e.kind() == ErrorKind::NotFound => {
                missing.push(cur.to_path_buf());
                match cur.parent() {
                    Some(p) if !p.as_os_str().is_empty() => cur = p,
                    _ => return Err(cannot()),
                }
            }
            Err(_) => return Err(cannot()),
        }
    }
    let mut builder = fs::DirBuilder::new();
    builder.mode(DIRECTORY_MODE);
    for p in missing.iter().rev() {
        match builder.create(p) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                // Someone else made it meanwhile: fine if it is a real folder.
                match fs::symlink_metadata(p) {
                    Ok(meta) if meta.is_dir() => {}
                    _ => return Err(cannot()),
                }
            }
            Err(_) => return Err(cannot()),
        }
    }
    Ok(())
}
