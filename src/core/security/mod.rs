//! The checks that make it safe to let a model touch a server: each module states its rules,
//! keeps them as data tables, and never panics on any input.

pub mod blocked_paths;
pub mod ssrf;
