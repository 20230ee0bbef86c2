//! The managed kernel environment the tests share.
//!
//! It is made the way a user on a machine without a package index makes it: `hailer kernel
//! install-local --python … --wheelhouse …`, into the folder `HAILER_KERNEL_ENVS` names. Every
//! test's hailerd is started with that documented setting, so its unsafe-local kernels take the
//! managed, contract-checked environment a user's daemon takes, instead of one prepared aside.
//! The install runs once per test cache, kernel contract and pinned packages; a stamp file
//! lets later test processes go straight on.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use crate::{bins, prereqs};

/// The setting that moves hailerd's managed kernel environments.
pub const VARIABLE: &str = "HAILER_KERNEL_ENVS";

/// The shared folder of managed environments, with this contract's environment ready in it.
pub fn shared() -> PathBuf {
    static READY: OnceLock<PathBuf> = OnceLock::new();
    READY.get_or_init(install).clone()
}

/// The interpreter of this contract's shared environment (for floors that run its marimo).
pub fn python() -> PathBuf {
    shared()
        .join(hailer_kernel_bundle::contract())
        .join("venv")
        .join("bin")
        .join("python")
}

/// `(HAILER_KERNEL_ENVS, the shared folder)`, for a test workspace's environment.
pub fn setting() -> (String, String) {
    (VARIABLE.to_owned(), shared().display().to_string())
}

/// A file saying the install ran for exactly these pins and this contract, so later test
/// processes start no daemon to hear "Reused" again. hailerd still checks the environment
/// against its marker at every session start.
fn stamp(folder: &std::path::Path) -> PathBuf {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hailer_kernel_bundle::REQUIREMENTS.hash(&mut hasher);
    hailer_kernel_bundle::LOCAL_REQUIREMENTS.hash(&mut hasher);
    folder.join(format!(
        ".installed-{}-{:016x}",
        hailer_kernel_bundle::contract(),
        hasher.finish()
    ))
}

fn install() -> PathBuf {
    let cache = prereqs::cache();
    let folder = cache.join("kernel-envs");
    let stamp = stamp(&folder);
    let marker = folder
        .join(hailer_kernel_bundle::contract())
        .join("venv")
        .join("hailer-venv.json");
    if stamp.is_file() && marker.is_file() {
        return folder;
    }
    std::fs::create_dir_all(&folder)
        .unwrap_or_else(|error| panic!("cannot create {}: {error}", folder.display()));
    // One install at a time across the test processes; hailerd locks the environment too,
    // and this lock keeps the waiting tests from each starting a daemon meanwhile.
    let lock_path = cache.join("kernel-envs.lock");
    let lock = std::fs::File::create(&lock_path)
        .unwrap_or_else(|error| panic!("cannot open {}: {error}", lock_path.display()));
    lock.lock()
        .unwrap_or_else(|error| panic!("cannot lock {}: {error}", lock_path.display()));
    let home =
        tempfile::tempdir().unwrap_or_else(|error| panic!("cannot make a temp dir: {error}"));
    let python = prereqs::kernel_venv().join("bin/python");
    let hailer = |args: &[&str]| {
        Command::new(bins::path("hailer"))
            .args(args)
            .env("HAILER_HOME", home.path())
            .env("HAILER_DAEMON_BIN", bins::path("hailerd"))
            .env(VARIABLE, &folder)
            .output()
            .unwrap_or_else(|error| panic!("cannot run hailer: {error}"))
    };
    let installed = hailer(&[
        "kernel",
        "install-local",
        "--python",
        &python.display().to_string(),
        "--wheelhouse",
        &prereqs::wheelhouse().display().to_string(),
    ]);
    let _ = hailer(&["daemon", "stop"]);
    assert!(
        installed.status.success(),
        "hailer kernel install-local into {} failed:\n{}",
        folder.display(),
        crate::output_text(&installed)
    );
    std::fs::write(&stamp, "")
        .unwrap_or_else(|error| panic!("cannot write {}: {error}", stamp.display()));
    folder
}
