//! The managed virtual environment: created once per kernel contract, reused instantly after.
//!
//! An environment is valid for what decides its contents: the requirements, our local
//! packages, and the interpreter it was made from (its implementation, version and real
//! executable). How that interpreter is reached (a name on `PATH`, a pyenv shim, a link) does
//! not matter, and a start whose environment is ready runs no interpreter to find out.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::process::Command;

use super::command_lines::run_with_lines;
use super::installer::{Installer, InstallerChoice};
use super::locate::{Python, find_python};
use crate::error::{Error, Result};
use crate::progress::{PackageCount, Progress, Report, requirement_count};

/// The file inside the venv that records what was installed.
const MARKER_FILE: &str = "hailer-venv.json";
/// The requirements as they were handed to the installer.
const REQUIREMENTS_FILE: &str = "hailer-requirements.txt";

/// Which interpreter the environment is made from.
#[derive(Debug, Clone, Copy)]
pub enum BasePython<'a> {
    /// The one the user named (`[kernel] python`, `--python`): only it.
    Named(&'a Path),
    /// The best one on this `PATH`-style value (the process's `PATH` when `None`).
    Search(Option<&'a OsStr>),
}

/// What the caller wants in the environment.
#[derive(Debug, Clone, Copy)]
pub struct VenvRequest<'a> {
    /// The venv folder (one per kernel contract; the caller picks it).
    pub dir: &'a Path,
    /// A pip requirements text, e.g. `marimo==0.24.2\npolars\nduckdb\n`.
    pub requirements: &'a str,
    /// Local package folders or wheel files installed as well.
    pub local_packages: &'a [PathBuf],
    /// Install offline from this folder of wheels (`--no-index --find-links`). Where the
    /// packages come from does not change what is installed, so it is not part of the key.
    pub wheelhouse: Option<&'a Path>,
    /// The program that creates and fills the environment when one must be made.
    pub installer: &'a InstallerChoice,
}

/// A ready environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedVenv {
    /// The venv folder, [`VenvRequest::dir`] as given.
    pub dir: PathBuf,
    /// The venv's own interpreter.
    pub python: PathBuf,
    /// True when the marker matched and nothing was installed.
    pub reused: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Marker {
    /// Over the requirements and the local packages.
    fingerprint: String,
    implementation: String,
    base_version: String,
    /// The real interpreter the environment was made from.
    base_executable: PathBuf,
    /// Named spellings of that interpreter already seen to lead to it.
    #[serde(default)]
    spellings: Vec<PathBuf>,
    /// `uv` or `pip`.
    installer: String,
}

/// Creates (or reuses) the venv described by `request`, reporting progress lines.
///
/// A ready environment is reused without running any interpreter, unless `base` names one
/// that is not yet known to be the environment's own; then it runs once, and is remembered.
/// One install at a time: a second daemon or session that finds the environment being made
/// waits for it (saying so) and then uses it.
pub async fn ensure_venv(
    base: BasePython<'_>,
    request: &VenvRequest<'_>,
    progress: Progress<'_>,
) -> Result<ManagedVenv> {
    if let Readiness::Ready(venv) = readiness(base, request).await? {
        return Ok(venv);
    }
    let _lock = install_lock(request.dir, progress).await?;
    // Whoever held the lock may have made it meanwhile.
    match readiness(base, request).await? {
        Readiness::Ready(venv) => Ok(venv),
        Readiness::Make(python) => create(&python, request, fingerprint(request), progress).await,
    }
}

/// What a request finds: an environment to use, or the interpreter to make one from.
enum Readiness {
    Ready(ManagedVenv),
    Make(Python),
}

async fn readiness(base: BasePython<'_>, request: &VenvRequest<'_>) -> Result<Readiness> {
    let dir = request.dir;
    let venv_python = hailer_platform::venv_python(hailer_platform::Os::CURRENT, dir);
    let fingerprint = fingerprint(request);
    let ready = read_marker(dir).filter(|marker| {
        marker.fingerprint == fingerprint
            && venv_python.is_file()
            && marker.base_executable.is_file()
    });
    let reused = || {
        Readiness::Ready(ManagedVenv {
            dir: dir.to_owned(),
            python: venv_python.clone(),
            reused: true,
        })
    };
    let python = match (base, ready) {
        (BasePython::Search(_), Some(_)) => return Ok(reused()),
        (BasePython::Named(path), Some(mut marker)) => {
            let known = marker.spellings.iter().any(|seen| seen == path)
                || std::fs::canonicalize(path).is_ok_and(|real| real == marker.base_executable);
            if known {
                return Ok(reused());
            }
            let python = find_python(Some(path), None).await?;
            if leads_to(&python, &marker) {
                marker.spellings.push(path.to_owned());
                write_marker(dir, &marker)?;
                return Ok(reused());
            }
            python
        }
        (BasePython::Named(path), None) => find_python(Some(path), None).await?,
        (BasePython::Search(search_path), None) => find_python(None, search_path).await?,
    };
    Ok(Readiness::Make(python))
}

/// Holds `<dir>.lock` exclusively while the environment in `dir` is made; released on drop.
async fn install_lock(dir: &Path, progress: Progress<'_>) -> Result<std::fs::File> {
    let path = dir.with_extension("lock");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::io(format!("could not create {}", parent.display()), e))?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(format!("could not open {}", path.display()), e))?;
    match file.try_lock() {
        Ok(()) => return Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {}
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(Error::io(format!("could not lock {}", path.display()), e));
        }
    }
    progress(Report::Note(&format!(
        "Another install of this environment is under way; waiting for it ({})",
        path.display()
    )));
    tokio::task::spawn_blocking(move || file.lock().map(|()| file))
        .await
        .map_err(|e| {
            Error::io(
                "the wait for the install lock ended",
                std::io::Error::other(e),
            )
        })?
        .map_err(|e| Error::io(format!("could not lock {}", path.display()), e))
}

/// Whether `python` is the interpreter `marker`'s environment was made from.
fn leads_to(python: &Python, marker: &Marker) -> bool {
    python.executable == marker.base_executable
        && python.implementation == marker.implementation
        && python.version.to_string() == marker.base_version
}

/// Makes the environment from `base` and installs the request into it.
async fn create(
    base: &Python,
    request: &VenvRequest<'_>,
    fingerprint: String,
    progress: Progress<'_>,
) -> Result<ManagedVenv> {
    let dir = request.dir;
    let venv_python = hailer_platform::venv_python(hailer_platform::Os::CURRENT, dir);
    refuse_foreign_folder(dir)?;
    // An interrupted earlier install must never look complete.
    remove_if_present(&dir.join(MARKER_FILE))?;

    progress(Report::Step {
        name: &format!(
            "Creating a Python {} environment in {} {}",
            base.version,
            dir.display(),
            request.installer.reason
        ),
        total: None,
    });
    let (mut create, create_step) = match &request.installer.installer {
        Installer::Uv(uv) => {
            let mut command = Command::new(uv);
            command.args(["venv", "--quiet", "--clear"]);
            let options = &request.installer.uv_options;
            if request.wheelhouse.is_none() && !options.no_index {
                // pip in the environment, as `python -m venv` gives it, fetched trusting what
                // the system trusts (a company's TLS proxy included). Offline there is nothing
                // to fetch it from, and nothing of Hailer needs it.
                command.args(["--seed", "--system-certs"]);
                command.args(&options.args);
                command.envs(options.env.iter().map(|(name, value)| (name, value)));
            }
            command.arg("--python").arg(&base.executable).arg(dir);
            (command, "uv venv")
        }
        Installer::Pip => {
            let mut command = Command::new(&base.executable);
            command.arg("-m").arg("venv").arg("--clear").arg(dir);
            (command, "python -m venv")
        }
    };
    create.env("UV_NO_PROGRESS", "1");
    let finished = run_with_lines(create, create_step, progress, None).await?;
    if !finished.status.success() {
        return Err(Error::InstallFailed {
            step: "creating the virtual environment",
            status: hailer_platform::describe_exit(&finished.status),
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

    let mut count = PackageCount::expecting(Some(
        requirement_count(request.requirements)
            + u64::try_from(request.local_packages.len()).unwrap_or(0),
    ));
    progress(Report::Step {
        name: "Installing packages",
        total: count.total,
    });
    let (mut install, install_step) = match &request.installer.installer {
        Installer::Uv(uv) => {
            let mut command = Command::new(uv);
            command
                .args(["pip", "install", "--no-progress", "--python"])
                .arg(&venv_python)
                // pip writes each module's bytecode as it installs; uv does only when asked,
                // and without it the first kernel start compiles every module it imports.
                .arg("--compile-bytecode");
            if request.wheelhouse.is_none() {
                // Trust what the system trusts, as pip does: a company's TLS proxy included.
                command.arg("--system-certs");
                let options = &request.installer.uv_options;
                command.args(&options.args);
                command.envs(options.env.iter().map(|(name, value)| (name, value)));
            }
            (command, "uv pip install")
        }
        Installer::Pip => {
            let mut command = Command::new(&venv_python);
            command
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--no-input",
                ])
                .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
            (command, "pip install")
        }
    };
    if let Some(wheelhouse) = request.wheelhouse {
        install
            .arg("--no-index")
            .arg("--find-links")
            .arg(wheelhouse);
    }
    install.arg("-r").arg(&requirements_path);
    install.args(request.local_packages);
    let finished = run_with_lines(install, install_step, progress, Some(&mut count)).await?;
    if !finished.status.success() {
        return Err(Error::InstallFailed {
            step: install_step,
            status: hailer_platform::describe_exit(&finished.status),
            tail: finished.tail,
        });
    }

    let marker = Marker {
        fingerprint,
        implementation: base.implementation.clone(),
        base_version: base.version.to_string(),
        base_executable: base.executable.clone(),
        spellings: vec![base.path.clone()],
        installer: match request.installer.installer {
            Installer::Uv(_) => "uv".to_owned(),
            Installer::Pip => "pip".to_owned(),
        },
    };
    write_marker(dir, &marker)?;
    progress(Report::Note("The Python environment is ready"));
    Ok(ManagedVenv {
        dir: dir.to_owned(),
        python: venv_python,
        reused: false,
    })
}

/// A digest over the requirements and the local packages (the interpreter is kept beside it).
fn fingerprint(request: &VenvRequest<'_>) -> String {
    let mut hasher = Sha256::new();
    let mut field = |label: &str, value: &[u8]| {
        hasher.update(label.as_bytes());
        hasher.update((value.len() as u64).to_le_bytes());
        hasher.update(value);
    };
    field("requirements", request.requirements.as_bytes());
    for package in request.local_packages {
        field("local", package.as_os_str().as_encoded_bytes());
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
    let text = serde_json::to_string_pretty(marker).map_err(|e| {
        Error::io(
            format!("could not write {}", path.display()),
            std::io::Error::other(e),
        )
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

    fn pip() -> InstallerChoice {
        InstallerChoice {
            installer: Installer::Pip,
            reason: "with pip".to_owned(),
            uv_options: crate::UvOptions::default(),
        }
    }

    #[test]
    fn the_key_is_what_is_installed_not_where_it_comes_from() {
        let dir = Path::new("v");
        let packages = [PathBuf::from("pkg")];
        let wheels = Path::new("wheels");
        let installer = pip();
        let plain = VenvRequest {
            dir,
            requirements: "marimo==0.24.2\n",
            local_packages: &[],
            wheelhouse: None,
            installer: &installer,
        };
        let a = fingerprint(&plain);
        assert_eq!(a, fingerprint(&plain));
        let other_reqs = VenvRequest {
            requirements: "marimo==0.24.3\n",
            ..plain
        };
        let with_pkg = VenvRequest {
            local_packages: &packages,
            ..plain
        };
        for other in [other_reqs, with_pkg] {
            assert_ne!(a, fingerprint(&other));
        }
        let uv = InstallerChoice {
            installer: Installer::Uv(PathBuf::from("/bin/uv")),
            reason: String::new(),
            uv_options: crate::UvOptions::default(),
        };
        let offline_with_uv = VenvRequest {
            wheelhouse: Some(wheels),
            installer: &uv,
            ..plain
        };
        assert_eq!(a, fingerprint(&offline_with_uv));
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
