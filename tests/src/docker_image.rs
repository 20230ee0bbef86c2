//! The kernel image of this contract, built once from the test wheelhouse when missing, the way
//! a user builds it: `hailer kernel build --base-image ... --wheelhouse ...`.

use std::path::PathBuf;
use std::process::Command;

use hailer_docker::{Engine, Error};

use crate::bins;

/// The image's name; builds it first if needed (one build at a time across test processes).
pub async fn kernel_image() -> String {
    let engine = Engine::connect()
        .await
        .unwrap_or_else(|error| panic!("the Docker engine is needed: {error}"));
    let contract = hailer_kernel_bundle::contract();
    let name = hailer_docker::default_image_name(&contract);
    // target/tmp, where the hailer-docker tests keep the same lock.
    let target = bins::path("hailerd")
        .parent()
        .and_then(|profile| profile.parent())
        .map(PathBuf::from)
        .unwrap_or_default();
    let tmp = target.join("tmp");
    let _ = std::fs::create_dir_all(&tmp);
    let lock_path = tmp.join("hailer-kernel-image.lock");
    let lock = std::fs::File::create(&lock_path).unwrap_or_else(|error| panic!("{error}"));
    tokio::task::block_in_place(|| lock.lock()).unwrap_or_else(|error| panic!("{error}"));
    match hailer_docker::ensure_image(&engine, &name, &contract).await {
        Ok(()) => return name,
        Err(Error::ImageMissing { .. } | Error::ContractMismatch { .. }) => {}
        Err(other) => panic!("cannot check the kernel image: {other}"),
    }
    let base = crate::prereqs::base_image();
    let wheelhouse = crate::prereqs::image_wheelhouse();
    tokio::task::block_in_place(|| build_with_the_cli(&base, &wheelhouse));
    drop(lock);
    name
}

/// Runs `hailer kernel build` in a folder and a Hailer home of its own, then stops the daemon
/// it started.
fn build_with_the_cli(base: &str, wheelhouse: &std::path::Path) {
    let home = tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}"));
    let folder = tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}"));
    let hailer = |args: &[&str]| {
        Command::new(bins::path("hailer"))
            .args(args)
            .current_dir(folder.path())
            .env("HAILER_HOME", home.path())
            .env("HAILER_DAEMON_BIN", bins::path("hailerd"))
            .env_remove("HAILER_KERNEL_IMAGE")
            .env_remove("HAILER_WORKSPACE")
            .env_remove("HAILER_CONFIG")
            .output()
            .unwrap_or_else(|error| panic!("cannot run hailer: {error}"))
    };
    let wheelhouse = wheelhouse.display().to_string();
    let started = std::time::Instant::now();
    let built = hailer(&[
        "kernel",
        "build",
        "--base-image",
        base,
        "--wheelhouse",
        &wheelhouse,
    ]);
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    for line in output.lines() {
        eprintln!("build: {line}");
    }
    let _ = hailer(&["daemon", "stop"]);
    assert!(
        built.status.success(),
        "`hailer kernel build` failed ({}):\n{output}",
        built.status
    );
    eprintln!("built the kernel image in {:.0?}", started.elapsed());
}
