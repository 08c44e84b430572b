//! The pure-Rust core: everything the extension decides, with no PHP type in sight.
//!
//! The PHP bindings (`crate::php`, behind the default `php` feature) only convert values and
//! call into this module, so all of it is built and tested with `cargo test --no-default-features`.

pub mod budget;
pub mod entities;
pub mod json;
pub mod lifecycle;
pub mod remote_profile;
pub mod routing;
pub mod sandbox;
pub mod security;
pub mod tools;
pub mod value;
pub mod workdir;
