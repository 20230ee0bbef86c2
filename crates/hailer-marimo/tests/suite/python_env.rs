//! Creating real managed virtual environments (from PyPI, and offline from a wheelhouse).
//!
//! The offline tests install marimo 0.24.2 from HAILER_TEST_WHEELHOUSE, with pip and with the
//! pinned uv (HAILER_TEST_UV); scripts/test-prereqs.sh provides both.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hailer_marimo::{
    BasePython, Error, Installer, InstallerChoice, Python, VenvRequest, ensure_venv, find_python,
};

fn pip() -> InstallerChoice {
    InstallerChoice {
        installer: Installer::Pip,
        reason: "with pip".to_owned(),
        uv_options: hailer_marimo::UvOptions::default(),
    }
}

/// The pinned uv the test prerequisites install.
fn uv() -> InstallerChoice {
    let uv = std::env::var_os("HAILER_TEST_UV")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("HAILER_TEST_UV is not set: run scripts/test-prereqs.sh and source .cache/test-env.sh")
        });
    assert!(
        uv.is_file(),
        "{} is missing: run scripts/test-prereqs.sh",
        uv.display()
    );
    InstallerChoice {
        reason: format!("with uv ({})", uv.display()),
        installer: Installer::Uv(uv),
        uv_options: hailer_marimo::UvOptions::default(),
    }
}

/// The test wheelhouse (marimo and the kernel's packages, for this machine's Python).
fn wheelhouse() -> PathBuf {
    std::env::var_os("HAILER_TEST_WHEELHOUSE")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("HAILER_TEST_WHEELHOUSE is not set: run scripts/test-prereqs.sh and source .cache/test-env.sh")
        })
}

async fn base_python() -> Python {
    find_python(None, None).await.unwrap_or_else(|e| {
        panic!("these tests need a Python 3.11+ on PATH (install python3 from your package manager): {e}")
    })
}

/// Runs `code` with the venv's interpreter and returns its stdout.
fn run_python(python: &Path, code: &str) -> String {
    let output = Command::new(python).args(["-c", code]).output().unwrap();
    assert!(
        output.status.success(),
        "{} failed: {}",
        python.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A tiny local package (pure pyproject + setuptools).
fn local_package(root: &Path) -> PathBuf {
    let dir = root.join("probe_pkg");
    std::fs::create_dir_all(dir.join("hailer_probe")).unwrap();
    std::fs::write(
        dir.join("pyproject.toml"),
        "[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
         [project]\nname = \"hailer-probe\"\nversion = \"0.1.0\"\n\n\
         [tool.setuptools]\npackages = [\"hailer_probe\"]\n",
    )
    .unwrap();
    std::fs::write(dir.join("hailer_probe/__init__.py"), "ANSWER = 42\n").unwrap();
    dir
}

#[tokio::test]
async fn a_venv_from_pypi_with_a_local_package_is_reused_the_second_time() {
    let base = base_python().await;
    let temp = tempfile::tempdir().unwrap();
    let venv_dir = temp.path().join("kernel-venv");
    let packages = [local_package(temp.path())];
    let request = VenvRequest {
        dir: &venv_dir,
        requirements: "six==1.17.0\n",
        local_packages: &packages,
        wheelhouse: None,
        installer: &pip(),
    };
    let named = BasePython::Named(&base.path);
    let lines = Mutex::new(Vec::<String>::new());
    let progress = |report: hailer_marimo::Report<'_>| {
        if let Some(line) = report.text() {
            lines.lock().unwrap().push(line.to_owned());
        }
    };
    let venv = ensure_venv(named, &request, &progress).await.unwrap();
    assert!(!venv.reused);
    assert_eq!(venv.python, venv_dir.join("bin/python"));
    assert_eq!(
        run_python(
            &venv.python,
            "import six, hailer_probe; print(six.__version__, hailer_probe.ANSWER)"
        ),
        "1.17.0 42\n"
    );
    let lines = lines.into_inner().unwrap();
    assert!(
        lines.iter().any(|l| l.starts_with("Creating a Python")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("Successfully installed")),
        "{lines:?}"
    );

    let started = Instant::now();
    let again = ensure_venv(named, &request, &|_| {}).await.unwrap();
    assert!(again.reused);
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "{:?}",
        started.elapsed()
    );

    // Other requirements: the venv is rebuilt, not reused.
    let changed = VenvRequest {
        requirements: "six==1.16.0\n",
        local_packages: &[],
        ..request
    };
    let rebuilt = ensure_venv(named, &changed, &|_| {}).await.unwrap();
    assert!(!rebuilt.reused);
    assert_eq!(
        run_python(&rebuilt.python, "import six; print(six.__version__)"),
        "1.16.0\n"
    );
}

#[tokio::test]
async fn an_offline_install_uses_only_the_wheelhouse_with_pip_and_with_uv() {
    let base = base_python().await;
    let temp = tempfile::tempdir().unwrap();
    let wheelhouse = wheelhouse();
    for (name, installer, step) in [
        ("pip", pip(), "pip install"),
        ("uv", uv(), "uv pip install"),
    ] {
        let venv_dir = temp.path().join(format!("offline-{name}"));
        let request = VenvRequest {
            dir: &venv_dir,
            requirements: "marimo==0.24.2\n",
            local_packages: &[],
            wheelhouse: Some(&wheelhouse),
            installer: &installer,
        };
        let lines = Mutex::new(Vec::<String>::new());
        let progress = |report: hailer_marimo::Report<'_>| {
            if let Some(line) = report.text() {
                lines.lock().unwrap().push(line.to_owned());
            }
        };
        let started = Instant::now();
        let venv = ensure_venv(BasePython::Named(&base.path), &request, &progress)
            .await
            .unwrap();
        eprintln!(
            "{name}: an offline marimo environment in {:.1?}",
            started.elapsed()
        );
        assert_eq!(
            run_python(&venv.python, "import marimo; print(marimo.__version__)"),
            "0.24.2\n"
        );
        let lines = lines.into_inner().unwrap();
        assert!(
            lines
                .iter()
                .any(|line| line.starts_with("Creating a Python")
                    && line.contains(&format!("with {name}"))),
            "{name}: {lines:?}"
        );

        // A requirement the wheelhouse lacks fails offline, with the installer's own lines.
        let missing = VenvRequest {
            dir: &temp.path().join(format!("offline-missing-{name}")),
            requirements: "hailer-no-such-package-anywhere==9.9.9\n",
            local_packages: &[],
            wheelhouse: Some(&wheelhouse),
            installer: &installer,
        };
        let base_named = BasePython::Named(&base.path);
        let error = ensure_venv(base_named, &missing, &|_| {})
            .await
            .unwrap_err();
        assert!(
            matches!(&error, Error::InstallFailed { step: failed, .. } if *failed == step),
            "{name}: {error}"
        );
        let text = error.to_string();
        assert!(text.contains("hailer-no-such-package-anywhere"), "{text}");
        // A failed install is not mistaken for a finished one.
        let retry = ensure_venv(base_named, &missing, &|_| {})
            .await
            .unwrap_err();
        assert!(
            matches!(retry, Error::InstallFailed { .. }),
            "{name}: {retry}"
        );
    }
}

/// Writes an executable file.
fn executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn every_spelling_of_one_interpreter_reuses_one_environment_without_probing_again() {
    let base = base_python().await;
    let temp = tempfile::tempdir().unwrap();
    // One interpreter, three spellings: a link on one PATH, a shim script (as pyenv and IDEs
    // put first on PATH) on another, and the shim named explicitly. The shim counts its runs.
    let linked = temp.path().join("linked");
    let shims = temp.path().join("shims");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::create_dir_all(&shims).unwrap();
    std::os::unix::fs::symlink(&base.executable, linked.join("python3")).unwrap();
    let runs = temp.path().join("shim-runs");
    let shim = shims.join("python3");
    executable(
        &shim,
        &format!(
            "#!/bin/sh\necho run >> '{}'\nexec '{}' \"$@\"\n",
            runs.display(),
            base.executable.display()
        ),
    );
    let shim_runs = || {
        std::fs::read_to_string(&runs)
            .map(|text| text.lines().count())
            .unwrap_or(0)
    };

    let venv_dir = temp.path().join("venv");
    let request = VenvRequest {
        dir: &venv_dir,
        requirements: "six==1.17.0\n",
        local_packages: &[],
        wheelhouse: None,
        installer: &pip(),
    };
    let mut installs = 0;
    let mut ensure = async |base: BasePython<'_>| {
        let venv = ensure_venv(base, &request, &|_| {}).await.unwrap();
        if !venv.reused {
            installs += 1;
        }
        venv
    };
    let first = ensure(BasePython::Search(Some(linked.as_os_str()))).await;
    assert_eq!(shim_runs(), 0);
    let again = ensure(BasePython::Search(Some(shims.as_os_str()))).await;
    assert_eq!(again.python, first.python);
    assert_eq!(
        shim_runs(),
        0,
        "a ready environment runs no interpreter to find one"
    );
    ensure(BasePython::Named(&shim)).await;
    assert_eq!(shim_runs(), 1, "a new explicit spelling is probed once");
    ensure(BasePython::Named(&shim)).await;
    ensure(BasePython::Named(&linked.join("python3"))).await;
    ensure(BasePython::Search(Some(shims.as_os_str()))).await;
    assert_eq!(shim_runs(), 1, "and remembered");
    assert_eq!(installs, 1, "one interpreter, one install");
    assert_eq!(
        run_python(&first.python, "import six; print(six.__version__)"),
        "1.17.0\n"
    );

    // Another interpreter named explicitly makes the environment again.
    let other = temp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    executable(
        &other.join("python3"),
        "#!/bin/sh\nprintf '3.12.9\\ncpython\\n/nowhere/python3.12\\n'\n",
    );
    let error = ensure_venv(BasePython::Named(&other.join("python3")), &request, &|_| {})
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("could not start python -m venv"),
        "the environment is made again from the other interpreter: {error}"
    );
}

#[tokio::test]
async fn a_folder_holding_other_files_is_never_cleared() {
    let base = base_python().await;
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("precious.txt"), "keep me").unwrap();
    let request = VenvRequest {
        dir: temp.path(),
        requirements: "",
        local_packages: &[],
        wheelhouse: None,
        installer: &pip(),
    };
    let error = ensure_venv(BasePython::Named(&base.path), &request, &|_| {})
        .await
        .unwrap_err();
    assert!(matches!(error, Error::VenvFolderTaken { .. }), "{error}");
    assert_eq!(
        std::fs::read_to_string(temp.path().join("precious.txt")).unwrap(),
        "keep me"
    );
}
