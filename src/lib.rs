//! phpclaw: phpClaw's tool layer as a native PHP extension.

pub mod core;

#[cfg(feature = "php")]
mod php;
