//! The managed virtual environment: created once per kernel contract, reused instantly after.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::process::Command;

use super::command_lines::{describe_status, run_with_lines};
use super::locate::Python;
use crate::error::{Error, Result};

/// The file inside the venv that records what was installed.
const MARKER_FILE: &str = "hailer-venv.json";
/// The requirements as they were handed to pip.
const REQUIREMENTS_FILE: &str = "hailer-requirements.txt";

/// What the caller wants in the environment.
#[derive(Debug, Clone, Copy)]
pub struct VenvRequest<'a> {
    /// The venv folder (one per kernel contract; the caller picks it).
    pub dir: &'a Path,
    /// A pip requirements text, e.g. `marimo==0.24.2\npolars\nduckdb\n`.
    pub requirements: &'a str,
    /// Local package folders or wheel files installed as well.
    pub local_packages: &'a [PathBuf],
    /// Install offline from this folder of wheels (`--no-index --find-links`).
    pub wheelhouse: Option<&'a Path>,
}

/// A ready environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedVenv {
    pub dir: PathBuf,
    /// The venv's own interpreter.
    pub python: PathBuf,
    /// True when the marker matched and nothing was installed.
    pub reused: bool,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Marker {
    fingerprint: String,
    base_python: String,
    base_version: String,
}

/// Creates (or reuses) the venv described by `request`, reporting progress lines.
///
/// A second call with the same request and base interpreter only reads the marker file.
pub async fn ensure_venv(
    base: &Python,
    request: &VenvRequest<'_>,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<ManagedVenv> {
    let dir = request.dir;
    let venv_python = dir.join("bin").join("python");
    let marker = Marker {
        fingerprint: fingerprint(base, request),
        base_python: base.path.display().to_string(),
        base_version: base.version.to_string(),
    };
    if read_marker(dir).as_ref() == Some(&marker) && venv_python.is_file() {
        return Ok(ManagedVenv {
            dir: dir.to_owned(),
            python: venv_python,
            reused: true,
        });
    }
    refuse_foreign_folder(dir)?;
    // An interrupted earlier install must never look complete.
    remove_if_present(&dir.join(MARKER_FILE))?;

    progress(&format!(
        "Creating a Python {} environment in {}",
        base.version,
        dir.display()
    ));
    let mut create = Command::new(&base.path);
    create.arg("-m").arg("venv").arg("--clear").arg(dir);
    let finished = run_with_lines(create, "python -m venv", progress).await?;
    if !finished.status.success() {
        return Err(Error::InstallFailed {
            step: "creating the virtual environment",
            status: describe_status(&finished.status),
            tail: finished.tail,
        });
    }

    let requirements_path = dir.join(REQUIREMENTS_FILE);
    std::fs::write(&requirements_path, request.requirements).map_err(|e| {
        Error::io(
            format!("could not write {}", requirements_path.display()),
            e,
        )
    })?;

    progress("Installing packages");
    let mut install = Command::new(&venv_python);
    install
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
    if let Some(wheelhouse) = request.wheelhouse {
        install
            .arg("--no-index")
            .arg("--find-links")
            .arg(wheelhouse);
    }
    install.arg("-r").arg(&requirements_path);
    install.args(request.local_packages);
    let finished = run_with_lines(install, "pip install", progress).await?;
    if !finished.status.success() {
        return Err(Error::InstallFailed {
            step: "pip install",
            status: describe_status(&finished.status),
            tail: finished.tail,
        });
    }

    write_marker(dir, &marker)?;
    progress("The Python environment is ready");
    Ok(ManagedVenv {
        dir: dir.to_owned(),
        python: venv_python,
        reused: false,
    })
}

/// A digest over everything that decides the venv's contents.
fn fingerprint(base: &Python, request: &VenvRequest<'_>) -> String {
    let mut hasher = Sha256::new();
    let mut field = |label: &str, value: &[u8]| {
        hasher.update(label.as_bytes());
        hasher.update((value.len() as u64).to_le_bytes());
        hasher.update(value);
    };
    field("base", base.path.as_os_str().as_encoded_bytes());
    field("version", base.version.to_string().as_bytes());
    field("requirements", request.requirements.as_bytes());
    for package in request.local_packages {
        field("local", package.as_os_str().as_encoded_bytes());
    }
    if let Some(wheelhouse) = request.wheelhouse {
        field("wheelhouse", wheelhouse.as_os_str().as_encoded_bytes());
    }
    hex::encode(hasher.finalize())
}

fn read_marker(dir: &Path) -> Option<Marker> {
    let text = std::fs::read_to_string(dir.join(MARKER_FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

fn write_marker(dir: &Path, marker: &Marker) -> Result<()> {
    let path = dir.join(MARKER_FILE);
    let temporary = dir.join(format!("{MARKER_FILE}.tmp"));
    let text = serde_json::to_string_pretty(marker).map_err(|e| Error::BadReply {
        what: "the venv marker".to_owned(),
        detail: e.to_string(),
    })?;
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, &path))
        .map_err(|e| Error::io(format!("could not write {}", path.display()), e))
}

/// Refuses a non-empty folder that is not a virtual environment (never clear someone's files).
fn refuse_foreign_folder(dir: &Path) -> Result<()> {
    let mut entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(format!("could not read {}", dir.display()), e)),
    };
    let is_empty = entries.next().is_none();
    if is_empty || dir.join("pyvenv.cfg").is_file() {
        Ok(())
    } else {
        Err(Error::VenvFolderTaken {
            path: dir.to_owned(),
        })
    }
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("could not remove {}", path.display()), e)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::python_env::PythonVersion;

    fn base() -> Python {
        Python {
            path: PathBuf::from("/usr/bin/python3"),
            version: PythonVersion {
                major: 3,
                minor: 12,
                patch: 1,
            },
        }
    }

    #[test]
    fn fingerprint_changes_with_every_input() {
        let dir = Path::new("v");
        let packages = [PathBuf::from("pkg")];
        let wheels = Path::new("wheels");
        let plain = VenvRequest {
            dir,
            requirements: "marimo==0.24.2\n",
            local_packages: &[],
            wheelhouse: None,
        };
        let a = fingerprint(&base(), &plain);
        assert_eq!(a, fingerprint(&base(), &plain));
        let other_reqs = VenvRequest {
            requirements: "marimo==0.24.3\n",
            ..plain
        };
        let with_pkg = VenvRequest {
            local_packages: &packages,
            ..plain
        };
        let offline = VenvRequest {
            wheelhouse: Some(wheels),
            ..plain
        };
        for other in [other_reqs, with_pkg, offline] {
            assert_ne!(a, fingerprint(&base(), &other));
        }
    }

    #[test]
    fn a_folder_with_other_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = refuse_foreign_folder(dir.path()).unwrap_err();
        assert!(err.to_string().contains("is not empty"), "{err}");
        assert!(dir.path().join("notes.txt").exists());
    }

    #[test]
    fn missing_empty_and_venv_folders_are_accepted() {
        let dir = tempfile::tempdir().unwrap();
        refuse_foreign_folder(&dir.path().join("absent")).unwrap();
        refuse_foreign_folder(dir.path()).unwrap();
        std::fs::write(dir.path().join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
        refuse_foreign_folder(dir.path()).unwrap();
    }
}
