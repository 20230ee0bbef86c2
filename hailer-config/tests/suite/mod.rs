mod bad_configs;
pub(crate) mod common;
mod discovery;
mod init;
mod mount_rules;
mod precedence;
mod proptest_loader;
mod trust;
mod valid_configs;
