//! The sensitive-path tables shared by the file tools, code search and the shell policy.
//!
//! These are phpClaw's `BlockedPaths` lists (public repository phpclaw-php/phpclaw-monorepo,
//! `packages/core/src/Tools/Security/BlockedPaths.php`), kept in the same order because
//! `PhpClaw\Tools\Security\BlockedPaths` exposes them to PHP as constants.
//!
//! Rules every caller applies on top of the raw tables:
//! - names are compared lower-cased (a case-insensitive filesystem, or a lower-case rule
//!   the reference applies everywhere, would otherwise let `ID_RSA` through);
//! - a backup or editor copy (`id_rsa.bak`, `wp-config.php~`, `.env.save`) is judged as the
//!   name it was copied from: see [`strip_backup_suffix`];
//! - every `.env` name (`.env`, `.env.local`, `.env.production.bak`) is sensitive: see
//!   [`is_env_name`].
//!
//! To add a name, append it to the table it belongs to; the PHP constant follows.

/// File extensions whose files hold keys, certificates, databases or password stores.
pub const EXTENSIONS: &[&str] = &[
    "env",
    "key",
    "pem",
    "crt",
    "p12",
    "pfx",
    "cer",
    "der",
    "jks",
    "keystore",
    "truststore",
    "sqlite",
    "sqlite3",
    "db",
    "mdb",
    "kdbx",
    "kwallet",
];

/// File names that hold credentials or server configuration.
pub const FILENAMES: &[&str] = &[
    "wp-config.php",
    "wp-config-sample.php",
    "config.php",
    "configuration.php",
    "database.php",
    "settings.php",
    "local_settings.php",
    "settings.local.php",
    "local.php",
    "app.php",
    "env.php",
    "config.local.php",
    "config.prod.php",
    "settings.inc.php",
    "parameters.php",
    "parameters.yml",
    "parameters.yaml",
    ".htpasswd",
    ".htaccess",
    ".htdigest",
    "nginx.conf",
    "httpd.conf",
    "php.ini",
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".envrc",
    ".my.cnf",
    ".pgpass",
    "credentials.json",
    "service-account.json",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "known_hosts",
    "authorized_keys",
    "docker-compose.yml",
    "docker-compose.yaml",
    ".dockerenv",
];

/// Build and project files that file_edit (and file_write) refuse to change.
pub const EDIT_FILENAMES: &[&str] = &[
    "composer.json",
    "composer.lock",
    "package.json",
    "package-lock.json",
    ".gitignore",
    "phpunit.xml",
    "phpunit.xml.dist",
    "dockerfile",
    ".gitlab-ci.yml",
    "artisan",
];

/// Directories whose contents are secrets or platform internals, matched as path segments.
pub const SECURITY_DIRS: &[&str] = &[
    ".git",
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".gcloud",
    ".kube",
    ".docker",
    ".config",
    "wp-admin",
    "wp-includes",
];

/// Dependency folders skipped by searches and listings (noise, not secrets).
pub const NOISE_DIRS: &[&str] = &["vendor", "node_modules"];

/// Suffixes that editors and backup habits append to a file name.
///
/// The reference strips `~` and `.bak .old .orig .save .swp .swo .tmp .copy .backup`; `.swn`,
/// `.dist-old` and `.un~` are added because vim and packaging tools write them too.
pub const BACKUP_SUFFIXES: &[&str] = &[
    "bak", "old", "orig", "save", "swp", "swo", "swn", "tmp", "copy", "backup", "un~",
];

/// Lower-case `name` and strip backup and editor suffixes (`~`, `.bak`, `.swp`, …), repeatedly,
/// so `.env.save`, `id_rsa.bak~` and `.wp-config.php.swp` are judged as the file they copy.
///
/// A leading dot that vim adds to swap files (`.wp-config.php.swp`) is also dropped when the
/// remaining name would otherwise be a plain file name.
pub fn strip_backup_suffix(name: &str) -> String {
    let mut s = name.to_ascii_lowercase();
    loop {
        let before = s.len();
        while s.ends_with('~') {
            s.pop();
        }
        for suffix in BACKUP_SUFFIXES {
            // `.{suffix}` at the end, with something before it; no allocation per suffix.
            let cut = s.len().saturating_sub(suffix.len() + 1);
            if s.len() > suffix.len() + 1
                && s.ends_with(suffix)
                && s.as_bytes().get(cut) == Some(&b'.')
            {
                s.truncate(cut);
                break;
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

/// True for every member of the `.env` family: `.env`, `.env.local`, `.env.production`,
/// `.env~`, and (through [`strip_backup_suffix`]) their backups. `.envrc` is in [`FILENAMES`].
pub fn is_env_name(name: &str) -> bool {
    let b = name.as_bytes();
    b.get(..4)
        .is_some_and(|head| head.eq_ignore_ascii_case(b".env"))
        && matches!(b.get(4), None | Some(b'.' | b'~'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backup_variants_reduce_to_the_original() {
        for (input, want) in [
            ("id_rsa.bak", "id_rsa"),
            ("wp-config.php~", "wp-config.php"),
            (".env.save", ".env"),
            ("ID_RSA.BAK~", "id_rsa"),
            ("config.php.orig.bak", "config.php"),
            ("settings.php.swp", "settings.php"),
            (".bak", ".bak"),
            ("notes.txt", "notes.txt"),
        ] {
            assert_eq!(strip_backup_suffix(input), want, "{input}");
        }
    }

    #[test]
    fn env_family() {
        for yes in [".env", ".ENV", ".env.local", ".env.production", ".env~"] {
            assert!(is_env_name(yes), "{yes}");
        }
        for no in [".envrc", "env", "x.env.txt", ".environment"] {
            assert!(!is_env_name(no), "{no}");
        }
    }
}
