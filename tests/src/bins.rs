//! Where the workspace's binaries are.
//!
//! The tests run the real `hailerd` and `hailer` executables, built by `cargo build --bins` into
//! the same target folder as the test executable itself.

use std::path::PathBuf;

/// The path of a binary of this workspace; panics with the command to build it when missing.
pub fn path(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test-exe>: the binaries sit in target/<profile>.
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    let candidate = profile_dir.join(name);
    assert!(
        candidate.is_file(),
        "{} is missing: build the binaries first with `cargo build --workspace --bins` \
         (scripts/test.sh does this)",
        candidate.display()
    );
    candidate
}
