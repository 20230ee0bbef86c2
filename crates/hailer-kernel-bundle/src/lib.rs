//! The kernel's Python side and image recipe, embedded, and the kernel contract derived from them.
//!
//! The contract names everything the kernel is made of: our helper package, the pinned
//! requirements and the image recipe. Any change to them is a new contract, so a managed
//! environment or an image built for another contract is never used by mistake.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

use std::path::Path;

use sha2::{Digest, Sha256};

/// The marimo version hailerd drives; the notebook API it uses is marimo's private one.
pub const MARIMO_VERSION: &str = "0.24.2";

/// The pinned packages of the kernel.
pub const REQUIREMENTS: &str = include_str!("../../../kernel-image/requirements.txt");

/// What the unsafe-local kernel's environment has besides [`REQUIREMENTS`]: the type checker
/// the cell checks run (ruff is a kernel package already). Not part of the image.
pub const LOCAL_REQUIREMENTS: &str = include_str!("../../../kernel-image/requirements-local.txt");

include!(concat!(env!("OUT_DIR"), "/package_files.rs"));

/// The notebook `hailer init` writes: the kernel's imports, `DATA_DIR` and a first look at it.
pub const STARTER_NOTEBOOK: &str = include_str!("../../../kernel-image/templates/starter.py");
/// The notebook a new notebook starts as: marimo's header and a cell importing marimo.
pub const EMPTY_NOTEBOOK: &str = include_str!("../../../kernel-image/templates/empty.py");

/// The image recipe.
pub const DOCKERFILE: &str = include_str!("../../../kernel-image/Dockerfile");

/// The image label that carries the contract.
pub const CONTRACT_LABEL: &str = "org.hailer.kernel-contract";

/// The image label that names the base image the kernel image was built from.
pub const BASE_IMAGE_LABEL: &str = "org.hailer.base-image";

/// The image label that carries the base image's digest (its repository digest when it came
/// from a registry, else its local image id).
pub const BASE_DIGEST_LABEL: &str = "org.hailer.base-image-digest";

/// The base image a build starts from unless the user names another: the official Python
/// image, slim variant. The Dockerfile's `BASE_IMAGE` argument says the same (a test checks).
pub const DEFAULT_BASE_IMAGE: &str = "python:3.13-slim";

/// Where the release publishes the kernel image, for linux/amd64 and linux/arm64, under the
/// kernel contract as its tag. The release workflow reads it from `hailer kernel contract`.
pub const PUBLISHED_REPOSITORY: &str = "ghcr.io/hailer-dev/hailer-kernel";

/// Where the docker kernel sees the workspace's data folder (mounted read-only).
pub const DATA_IN_KERNEL: &str = "/work/data";

/// The user and group the kernel image runs as (the Dockerfile's `USER 1000:1000`).
pub const IMAGE_USER: (u32, u32) = (1000, 1000);

/// The user and group a docker kernel runs as, given this host's user where its ids pass into
/// the container unchanged (a Linux host): that user's own, so it reads the data files the user
/// may read, but the image's user in place of root. The container gets no supplementary
/// groups.
pub fn docker_kernel_user(host_user: Option<(u32, u32)>) -> (u32, u32) {
    match host_user {
        Some((uid, gid)) if uid != 0 => (uid, gid),
        _ => IMAGE_USER,
    }
}

/// `<published repository>:<contract>`: the image name used unless the user names another.
/// `hailer kernel pull` downloads it; `hailer kernel build` builds it under the same name.
pub fn default_image_name(contract: &str) -> String {
    format!("{PUBLISHED_REPOSITORY}:{contract}")
}

/// `marimo<version>-<12 hex>`: the marimo version and a digest over every embedded file.
pub fn contract() -> String {
    contract_of(&PACKAGE_FILES)
}

/// The contract of an image recipe and requirements as embedded, with these package files.
fn contract_of(package_files: &[(&str, &str)]) -> String {
    let mut hasher = Sha256::new();
    let mut feed = |name: &str, text: &str| {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(text.len().to_le_bytes());
        hasher.update(text.as_bytes());
    };
    feed("requirements.txt", REQUIREMENTS);
    feed("Dockerfile", DOCKERFILE);
    for (name, text) in package_files {
        feed(name, text);
    }
    let digest = hex::encode(hasher.finalize());
    format!("marimo{MARIMO_VERSION}-{}", &digest[..12])
}

/// Writes the helper package into `dir` so pip can install it; files already as they should be
/// are left untouched.
pub fn write_package(dir: &Path) -> std::io::Result<()> {
    let current = PACKAGE_FILES.iter().all(|(name, text)| {
        std::fs::read(dir.join(name)).is_ok_and(|bytes| bytes == text.as_bytes())
    });
    if current {
        return Ok(());
    }
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    for (name, text) in PACKAGE_FILES {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn contract_names_marimo_and_a_short_digest() {
        let contract = contract();
        assert!(contract.starts_with("marimo0.24.2-"), "{contract}");
        assert_eq!(contract.len(), "marimo0.24.2-".len() + 12);
        assert_eq!(contract, super::contract(), "stable");
    }

    #[test]
    fn the_dockerfile_defaults_to_the_same_base_image() {
        let declared: Vec<&str> = DOCKERFILE
            .lines()
            .filter_map(|line| line.trim().strip_prefix("ARG BASE_IMAGE="))
            .collect();
        assert_eq!(
            declared,
            [DEFAULT_BASE_IMAGE],
            "the Dockerfile's ARG BASE_IMAGE"
        );
        let tag = DEFAULT_BASE_IMAGE
            .rsplit_once(':')
            .map(|(_, tag)| tag)
            .unwrap();
        let (major, rest) = tag.split_once('.').unwrap();
        let minor: u32 = rest.split('-').next().unwrap().parse().unwrap();
        assert!(major == "3" && minor >= 12, "Python 3.12 or newer: {tag}");
        assert!(tag.ends_with("-slim"), "the slim variant: {tag}");
    }

    #[test]
    fn the_default_image_is_a_valid_reference_on_the_registry_the_release_logs_into() {
        let image = default_image_name(&contract());
        let (repository, tag) = image.rsplit_once(':').unwrap();
        // Docker's rules: a tag of at most 128 word characters, dots and dashes, not starting
        // with either; a repository path of lowercase components.
        assert!(tag.len() <= 128 && !tag.starts_with(['.', '-']), "{tag}");
        assert!(
            tag.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')),
            "{tag}"
        );
        let (registry, path) = repository.split_once('/').unwrap();
        assert!(
            registry.contains('.'),
            "a registry host first: {repository}"
        );
        for component in path.split('/') {
            assert!(
                !component.is_empty()
                    && component.chars().all(|c| c.is_ascii_lowercase()
                        || c.is_ascii_digit()
                        || matches!(c, '.' | '_' | '-')),
                "{repository}"
            );
        }
        // The workflow that publishes the image logs into that registry.
        let workflow = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.github/workflows/kernel-image.yml"),
        )
        .unwrap();
        assert!(
            workflow.contains(&format!("registry: {registry}\n")),
            "the kernel-image workflow does not log into {registry}"
        );
        assert!(workflow.contains("jq -r .publishedImage"), "{workflow}");
    }

    #[test]
    fn requirements_pin_the_driven_marimo() {
        assert!(REQUIREMENTS.contains(&format!("marimo=={MARIMO_VERSION}")));
    }

    #[test]
    fn the_package_is_every_file_of_its_folder_in_sorted_order() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernel-image/hailer_kernel");
        let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| {
                !name.starts_with('.') && name != "__pycache__" && !name.ends_with(".pyc")
            })
            .map(|name| format!("hailer_kernel/{name}"))
            .collect();
        on_disk.sort();
        let embedded: Vec<&str> = PACKAGE_FILES
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| name.starts_with("hailer_kernel/"))
            .collect();
        assert_eq!(embedded, on_disk);
        assert!(embedded.contains(&"hailer_kernel/__init__.py"));
        assert_eq!(PACKAGE_FILES[0].0, "pyproject.toml");
        assert_eq!(PACKAGE_FILES[1].0, "README.md");
        for (name, text) in PACKAGE_FILES {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../kernel-image")
                .join(name);
            assert_eq!(std::fs::read_to_string(path).unwrap(), text, "{name}");
        }
    }

    #[test]
    fn a_new_module_or_a_changed_one_is_a_new_contract() {
        let mut files = PACKAGE_FILES.to_vec();
        assert_eq!(contract_of(&files), contract());
        files.push(("hailer_kernel/zz_new.py", "VALUE = 1\n"));
        let with_new = contract_of(&files);
        assert_ne!(with_new, contract());
        files.pop();
        if let Some(last) = files.last_mut() {
            last.1 = "changed";
        }
        assert_ne!(contract_of(&files), contract());
        assert_ne!(contract_of(&files), with_new);
    }

    #[test]
    fn package_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("pkg");
        write_package(&target).unwrap();
        write_package(&target).unwrap();
        for (name, text) in PACKAGE_FILES {
            assert_eq!(std::fs::read_to_string(target.join(name)).unwrap(), text);
        }
    }
}
