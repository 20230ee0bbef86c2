//! Where the workspace's binaries are.
//!
//! The tests run the real `hailerd` and `hailer` executables, built by `cargo build --bins` into
//! the same target folder as the test executable itself.

use std::path::PathBuf;

/// The path of a binary of this workspace; panics with the command to build it when missing.
pub fn path(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // Tests run from target/<profile>/deps/, tools from target/<profile>/: the binaries sit in
    // target/<profile>.
    let mut profile_dir = exe.parent().map(PathBuf::from).unwrap_or_default();
    if profile_dir.ends_with("deps") {
        profile_dir.pop();
    }
    let candidate = profile_dir.join(name);
    assert!(
        candidate.is_file(),
        "{} is missing: build the binaries first with `cargo build --workspace --bins` \
         (scripts/test.sh does this)",
        candidate.display()
    );
    candidate
}
