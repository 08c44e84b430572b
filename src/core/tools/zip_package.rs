//! `zip_package`: a workspace folder packed into `{output_name}.zip` in the temp directory.
//!
//! Rules (phpClaw's ZipPackagerTool, spec "zip_package"):
//! - `output_name` keeps only ASCII letters, digits, `_` and `-`; empty `source_dir` or an
//!   empty filtered name is refused, so the archive name can never leave the temp directory;
//! - `source_dir` (leading `/` and `\` dropped) must resolve to a folder inside the workspace
//!   root (real paths compared on a separator boundary);
//! - every regular file below it becomes `{output_name}/{relative path}`, entries sorted by
//!   path; symlinked folders are not descended, a symlinked file is packed only when its
//!   target is a regular file inside the workspace (sandbox rule, stricter than the reference);
//! - an existing archive of the same name is replaced.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{success, Host, NativeTool, ToolError};
use crate::core::value::Value;

/// The tool name.
pub const NAME: &str = "zip_package";
/// The description advertised to the model.
pub const DESCRIPTION: &str = "Create an installable ZIP from a workspace folder. Output goes to the system temp dir. Use after all plugin/module files are created and verified.";
/// Default workspace below the current directory.
pub const DEFAULT_WORKSPACE_SUBPATH: &str = "storage/phpclaw";
/// The FORBIDDEN message's subject.
pub const FORBIDDEN_SUBJECT: &str = "package a workspace folder";
/// The input keys read.
pub const INPUT_KEYS: [&str; 2] = ["source_dir", "output_name"];
/// Routing signals: domains, tags, intents, examples.
pub const ROUTING: [&[&str]; 4] = [
    &["filesystem", "packaging"],
    &["zip", "archive", "package", "bundle", "compress"],
    &["package directory", "create zip"],
    &["zip up the build folder"],
];
/// Refusal of missing inputs.
pub const REQUIRED_MESSAGE: &str = "zip_package: source_dir and a valid output_name are required.";
/// Refusal of a folder outside the workspace.
pub const ESCAPE_MESSAGE: &str = "zip_package: source_dir escapes workspace root - blocked.";

/// The input schema.
pub fn input_schema() -> Value {
    let prop = |d: &str| Value::from_pairs([("type", "string"), ("description", d)]);
    Value::from_pairs([
        ("type", Value::str("object")),
        (
            "properties",
            Value::from_pairs([
                ("source_dir", prop("Workspace-relative folder to package.")),
                (
                    "output_name",
                    prop("ZIP name without extension (alphanumeric, dash, underscore)."),
                ),
            ]),
        ),
        ("required", Value::list(["source_dir", "output_name"])),
    ])
}

/// The tool's configuration.
#[derive(Debug, Clone)]
pub struct ZipPackage {
    /// `workspaceRoot()` as constructed.
    pub root: String,
    /// Where archives go (`sys_get_temp_dir()`).
    pub temp_dir: PathBuf,
}

/// The planned archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// The real source folder.
    pub source: PathBuf,
    /// The filtered name.
    pub output_name: String,
    /// The real workspace root (sandbox for symlinked files).
    pub base: PathBuf,
}

/// The written archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// Archive path.
    pub zip_path: String,
    /// Files packed.
    pub files: usize,
    /// Archive size.
    pub size_bytes: u64,
}

/// The name with everything but `[A-Za-z0-9_-]` removed.
pub fn filter_name(raw: &[u8]) -> String {
    raw.iter()
        .filter(|b| b.is_ascii_alphanumeric() || **b == b'_' || **b == b'-')
        .map(|b| char::from(*b))
        .collect()
}

fn inside(path: &Path, base: &Path) -> bool {
    path.starts_with(base)
}

/// Every file to pack under `dir`, as (relative path with `/`, absolute path), sorted.
pub fn collect(dir: &Path, base: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    walk(dir, "", base, &mut out)?;
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn walk(
    dir: &Path,
    prefix: &str,
    base: &Path,
    out: &mut Vec<(String, PathBuf)>,
) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let path = entry.path();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            walk(&path, &rel, base, out)?;
        } else if ft.is_file() {
            out.push((rel, path));
        } else if ft.is_symlink() {
            if let Ok(target) = fs::canonicalize(&path) {
                if target.is_file() && inside(&target, base) {
                    out.push((rel, target));
                }
            }
        }
    }
    Ok(())
}

fn php_string(v: Option<&Value>) -> Vec<u8> {
    v.and_then(crate::core::value::php_string)
        .unwrap_or_default()
}

impl ZipPackage {
    /// A tool on `root` writing to the process temp directory.
    pub fn new(root: String) -> ZipPackage {
        ZipPackage {
            root,
            temp_dir: std::env::temp_dir(),
        }
    }

    fn pack(&self, input: &Planned, zip_path: &Path) -> Result<Packed, String> {
        let cannot = || format!("zip_package: cannot create {}", zip_path.display());
        let _ = fs::remove_file(zip_path);
        let files = collect(&input.source, &input.base).map_err(|_| cannot())?;
        let file = fs::File::create(zip_path).map_err(|_| cannot())?;
        let mut zip = zip::ZipWriter::new(file);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (rel, abs) in &files {
            let data = fs::read(abs).map_err(|_| cannot())?;
            zip.start_file(format!("{}/{}", input.output_name, rel), opts)
                .map_err(|_| cannot())?;
            zip.write_all(&data).map_err(|_| cannot())?;
        }
        zip.finish().map_err(|_| cannot())?;
        let size_bytes = fs::metadata(zip_path).map(|m| m.len()).unwrap_or(0);
        Ok(Packed {
            zip_path: zip_path.to_string_lossy().into_owned(),
            files: files.len(),
            size_bytes,
        })
    }
}

impl NativeTool for ZipPackage {
    type Input = Planned;
    type Execution = Packed;

    fn forbidden_subject(&self) -> &'static str {
        FORBIDDEN_SUBJECT
    }

    fn plan<H: Host>(
        &mut self,
        input: &Value,
        _host: &mut H,
    ) -> Result<Planned, ToolError<H::Error>> {
        let arr = input.as_array();
        let source = php_string(arr.and_then(|a| a.get("source_dir")));
        let output_name = filter_name(&php_string(arr.and_then(|a| a.get("output_name"))));
        if source.is_empty() || output_name.is_empty() {
            return Err(ToolError::tool(REQUIRED_MESSAGE));
        }
        let shown = String::from_utf8_lossy(&source).into_owned();
        let rel = shown.trim_start_matches(['/', '\\']);
        let joined = format!("{}/{}", self.root, rel);
        let not_found = || ToolError::tool(format!("zip_package: source_dir not found: {shown}"));
        let resolved = fs::canonicalize(&joined).map_err(|_| not_found())?;
        if !resolved.is_dir() {
            return Err(not_found());
        }
        let base = fs::canonicalize(&self.root).unwrap_or_else(|_| PathBuf::from(&self.root));
        if !inside(&resolved, &base) {
            return Err(ToolError::tool(ESCAPE_MESSAGE));
        }
        Ok(Planned {
            source: resolved,
            output_name,
            base,
        })
    }

    fn perform<H: Host>(
        &mut self,
        input: &Planned,
        _host: &mut H,
    ) -> Result<Packed, ToolError<H::Error>> {
        let zip_path = self.temp_dir.join(format!("{}.zip", input.output_name));
        // The filtered name has no separator or dot-only form: the archive stays in temp_dir.
        if zip_path.parent() != Some(self.temp_dir.as_path()) {
            return Err(ToolError::tool(REQUIRED_MESSAGE));
        }
        self.pack(input, &zip_path).map_err(ToolError::Tool)
    }

    fn complete(&mut self, e: &Packed, input: &Planned) -> Value {
        success(
            Value::from_pairs([
                ("status", Value::str("created")),
                ("zip_path", Value::str(&e.zip_path)),
                ("files", Value::Int(e.files as i64)),
                ("size_bytes", Value::Int(e.size_bytes as i64)),
            ]),
            Value::from_pairs([
                ("mode", Value::str("package")),
                ("output_name", Value::str(&input.output_name)),
            ]),
            Value::Array(crate::core::value::Array::new()),
        )
    }
}

#[cfg(test)]
#[path = "zip_package_tests.rs"]
mod tests;
