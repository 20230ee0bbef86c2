//! The kernel's Python side and image recipe, embedded, and the kernel contract derived from them.
//!
//! The contract names everything the kernel is made of: our helper package, the pinned
//! requirements and the image recipe. Any change to them is a new contract, so a managed
//! environment or an image built for another contract is never used by mistake.

use std::path::Path;

use sha2::{Digest, Sha256};

/// The marimo version hailerd drives; the notebook API it uses is marimo's private one.
pub const MARIMO_VERSION: &str = "0.24.2";

/// The pinned packages of the kernel.
pub const REQUIREMENTS: &str = include_str!("../../kernel-image/requirements.txt");

/// The files of the `hailer-kernel` Python package, relative to its folder.
pub const PACKAGE_FILES: [(&str, &str); 8] = [
    (
        "pyproject.toml",
        include_str!("../../kernel-image/pyproject.toml"),
    ),
    ("README.md", include_str!("../../kernel-image/README.md")),
    (
        "hailer_kernel/__init__.py",
        include_str!("../../kernel-image/hailer_kernel/__init__.py"),
    ),
    (
        "hailer_kernel/data.py",
        include_str!("../../kernel-image/hailer_kernel/data.py"),
    ),
    (
        "hailer_kernel/errors.py",
        include_str!("../../kernel-image/hailer_kernel/errors.py"),
    ),
    (
        "hailer_kernel/forward.py",
        include_str!("../../kernel-image/hailer_kernel/forward.py"),
    ),
    (
        "hailer_kernel/periods.py",
        include_str!("../../kernel-image/hailer_kernel/periods.py"),
    ),
    (
        "hailer_kernel/workspace.py",
        include_str!("../../kernel-image/hailer_kernel/workspace.py"),
    ),
];

/// The notebook templates.
pub const STARTER_NOTEBOOK: &str = include_str!("../../kernel-image/templates/starter.py");
pub const EMPTY_NOTEBOOK: &str = include_str!("../../kernel-image/templates/empty.py");

/// The image recipe.
pub const DOCKERFILE: &str = include_str!("../../kernel-image/Dockerfile");

/// The image label that carries the contract.
pub const CONTRACT_LABEL: &str = "org.hailer.kernel-contract";

/// Where the docker kernel sees the workspace's data folder (mounted read-only).
pub const DATA_IN_KERNEL: &str = "/work/data";

/// `hailer-kernel:<contract>`: the image name used unless the user names another.
pub fn default_image_name(contract: &str) -> String {
    format!("hailer-kernel:{contract}")
}

/// `marimo<version>-<12 hex>`: the marimo version and a digest over every embedded file.
pub fn contract() -> String {
    let mut hasher = Sha256::new();
    let mut feed = |name: &str, text: &str| {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(text.len().to_le_bytes());
        hasher.update(text.as_bytes());
    };
    feed("requirements.txt", REQUIREMENTS);
    feed("Dockerfile", DOCKERFILE);
    for (name, text) in PACKAGE_FILES {
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
    fn requirements_pin_the_driven_marimo() {
        assert!(REQUIREMENTS.contains(&format!("marimo=={MARIMO_VERSION}")));
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
