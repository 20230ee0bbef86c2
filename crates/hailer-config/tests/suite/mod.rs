mod bad_configs;
pub(crate) mod common;
mod discovery;
// These two set Unix modes and make symlinks on real folders; every system's data-folder rules
// are table-tested in src/mount_rules_tests.rs.
#[cfg(unix)]
mod init;
#[cfg(unix)]
mod mount_rules;
mod precedence;
mod proptest_loader;
mod trust;
mod valid_configs;
