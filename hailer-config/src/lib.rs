//! hailer.toml: schema, discovery, precedence and validation.

pub mod home;
