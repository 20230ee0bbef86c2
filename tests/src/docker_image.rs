//! The kernel image of this contract, built once from the test wheelhouse when missing.

use std::path::PathBuf;

use hailer_docker::{BuildOptions, Engine, Error};

/// The image's name; builds it first if needed (one build at a time across test processes).
pub async fn kernel_image() -> String {
    let engine = Engine::connect()
        .await
        .unwrap_or_else(|error| panic!("the Docker engine is needed: {error}"));
    let contract = hailer_kernel_bundle::contract();
    let name = hailer_docker::default_image_name(&contract);
    // target/tmp, where the hailer-docker tests keep the same lock.
    let target = crate::bins::path("hailerd")
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
    let base = std::env::var("HAILER_TEST_BASE_IMAGE")
        .unwrap_or_else(|_| "hailer-base:bookworm".to_owned());
    let options = BuildOptions {
        tag: name.clone(),
        base_image: Some(base),
        pip_config: None,
        pip_cert: None,
        wheelhouse: Some(crate::prereqs::wheelhouse()),
        no_cache: false,
    };
    let progress = |line: &str| eprintln!("build: {line}");
    hailer_docker::build(&engine, &options, &contract, &progress)
        .await
        .unwrap_or_else(|error| panic!("building the kernel image failed: {error}"));
    drop(lock);
    name
}
