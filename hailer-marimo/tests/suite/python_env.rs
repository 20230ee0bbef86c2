//! Creating real managed virtual environments (from PyPI, and offline from a wheelhouse).
//!
//! With HAILER_TEST_WHEELHOUSE set, the offline test installs marimo 0.24.2 from that folder;
//! without it, it downloads a small wheel into a temporary wheelhouse first.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hailer_marimo::{Error, Python, VenvRequest, ensure_venv, find_python};

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
    };
    let lines = Mutex::new(Vec::<String>::new());
    let progress = |line: &str| lines.lock().unwrap().push(line.to_owned());
    let venv = ensure_venv(&base, &request, &progress).await.unwrap();
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
    let again = ensure_venv(&base, &request, &|_| {}).await.unwrap();
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
    let rebuilt = ensure_venv(&base, &changed, &|_| {}).await.unwrap();
    assert!(!rebuilt.reused);
    assert_eq!(
        run_python(&rebuilt.python, "import six; print(six.__version__)"),
        "1.16.0\n"
    );
}

#[tokio::test]
async fn an_offline_install_uses_only_the_wheelhouse() {
    let base = base_python().await;
    let temp = tempfile::tempdir().unwrap();
    let (wheelhouse, requirements, check) = match std::env::var_os("HAILER_TEST_WHEELHOUSE") {
        Some(dir) if !dir.is_empty() => (
            PathBuf::from(dir),
            "marimo==0.24.2\n",
            ("import marimo; print(marimo.__version__)", "0.24.2\n"),
        ),
        _ => {
            let dir = temp.path().join("wheels");
            let status = Command::new(&base.path)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--disable-pip-version-check",
                    "--only-binary=:all:",
                    "six==1.17.0",
                    "-d",
                ])
                .arg(&dir)
                .status()
                .unwrap();
            assert!(
                status.success(),
                "pip download six failed: PyPI must be reachable for this test"
            );
            (
                dir,
                "six==1.17.0\n",
                ("import six; print(six.__version__)", "1.17.0\n"),
            )
        }
    };
    let venv_dir = temp.path().join("offline-venv");
    let request = VenvRequest {
        dir: &venv_dir,
        requirements,
        local_packages: &[],
        wheelhouse: Some(&wheelhouse),
    };
    let venv = ensure_venv(&base, &request, &|_| {}).await.unwrap();
    assert_eq!(run_python(&venv.python, check.0), check.1);

    // A requirement the wheelhouse lacks fails offline, with pip's own last lines.
    let missing = VenvRequest {
        dir: &temp.path().join("offline-missing"),
        requirements: "hailer-no-such-package-anywhere==9.9.9\n",
        local_packages: &[],
        wheelhouse: Some(&wheelhouse),
    };
    let error = ensure_venv(&base, &missing, &|_| {}).await.unwrap_err();
    assert!(
        matches!(
            error,
            Error::InstallFailed {
                step: "pip install",
                ..
            }
        ),
        "{error}"
    );
    let text = error.to_string();
    assert!(text.contains("hailer-no-such-package-anywhere"), "{text}");
    assert!(
        text.to_lowercase().contains("no matching distribution"),
        "{text}"
    );
    // A failed install is not mistaken for a finished one.
    let retry = ensure_venv(&base, &missing, &|_| {}).await.unwrap_err();
    assert!(matches!(retry, Error::InstallFailed { .. }));
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
    };
    let error = ensure_venv(&base, &request, &|_| {}).await.unwrap_err();
    assert!(matches!(error, Error::VenvFolderTaken { .. }), "{error}");
    assert_eq!(
        std::fs::read_to_string(temp.path().join("precious.txt")).unwrap(),
        "keep me"
    );
}
