//! The checks that make it safe to let a model touch a server: each module states its rules,
//! keeps them as data tables, and never panics on any input.
//!
//! - [`blocked_paths`]: the sensitive names, extensions and folders (phpClaw's BlockedPaths);
//! - [`workspace`] and [`file_rules`]: the sandbox every file tool resolves paths in, and what
//!   each tool refuses inside it;
//! - [`shell_policy`]: which commands shell_exec may run, split into argv without a shell;
//! - [`ssrf`]: which URLs an outbound request may reach, and the address it must connect to;
//! - [`sql_guard`] on [`sql_tokenizer`]: the read-only check db_query runs before any query
//!   reaches the database.

pub mod blocked_paths;
pub mod file_rules;
pub mod shell_policy;
pub mod sql_guard;
pub mod sql_tokenizer;
pub mod ssrf;
pub mod workspace;
