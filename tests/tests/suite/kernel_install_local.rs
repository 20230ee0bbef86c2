//! The unsafe-local kernel's managed environment: built offline from a wheelhouse, reused, and
//! used by a session that was given no prepared environment.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use hailer_tests::TestWorkspace;
use hailer_tests::prereqs::{kernel_venv, wheelhouse};

#[test]
fn install_local_builds_offline_then_reuses_and_sessions_use_it() {
    let python = kernel_venv().join("bin/python");
    let mut workspace = TestWorkspace::unsafe_local();
    // This test is about the managed environment: no prepared one.
    workspace
        .env
        .retain(|(name, _)| name != hailer_tests::kernel_envs::VARIABLE);
    let wheels = wheelhouse();
    let python_arg = python.display().to_string();
    let wheels_arg = wheels.display().to_string();
    // With --verbose the installer's own lines are shown too.
    let args = [
        "--verbose",
        "kernel",
        "install-local",
        "--python",
        python_arg.as_str(),
        "--wheelhouse",
        wheels_arg.as_str(),
    ];

    // The first install streams its progress while it works: every line with when it came.
    let mut child = workspace
        .command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let lines: Vec<(Duration, String)> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| (started.elapsed(), line.unwrap()))
        .collect();
    let status = child.wait().unwrap();
    let said: String = lines.iter().map(|(_, line)| format!("{line}\n")).collect();
    assert!(status.success(), "{said}");
    assert!(said.contains("Created"), "{said}");
    let at = |needle: &str| {
        lines
            .iter()
            .find(|(_, line)| line.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{said}"))
            .0
    };
    let creating = at("Creating a Python");
    let installing = at("Installing packages");
    let done = at("Created");
    // pip's own lines come through as well, between the two.
    assert!(
        lines
            .iter()
            .any(|(when, line)| *when > installing && *when < done && line.contains("marimo")),
        "{said}"
    );
    // Streamed, not printed at the end: the first step was on screen well before the last.
    assert!(
        done - creating > Duration::from_secs(2),
        "progress arrived all at once ({creating:?} .. {done:?}):\n{said}"
    );
    let venv_root = workspace.home.path().join("data/kernels");
    let contract_dirs: Vec<_> = std::fs::read_dir(&venv_root).unwrap().flatten().collect();
    assert_eq!(contract_dirs.len(), 1);
    assert!(
        contract_dirs[0]
            .file_name()
            .to_string_lossy()
            .starts_with("marimo0.24.2-")
    );

    let started = Instant::now();
    let second = workspace.hailer(&args);
    assert!(second.status.success(), "{second:?}");
    assert!(String::from_utf8_lossy(&second.stdout).contains("Reused"));
    assert!(started.elapsed().as_secs() < 10, "a reuse is quick");

    // A session with no prepared environment runs in the managed one.
    workspace
        .env
        .push(("HAILER_WHEELHOUSE".to_owned(), wheels_arg.clone()));
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replace(
            "[kernel]\n",
            &format!("[kernel]\npython = \"{python_arg}\"\n"),
        ),
    );
    workspace.trust();
    let ran = workspace.hailer(&["exec", "-c", "import sys, hailer_kernel; print(sys.prefix)"]);
    assert!(ran.status.success(), "{ran:?}");
    let prefix = String::from_utf8_lossy(&ran.stdout).trim().to_owned();
    assert!(
        std::path::Path::new(&prefix).starts_with(contract_dirs[0].path()),
        "{prefix}"
    );

    // A wheelhouse that lacks the packages fails with pip's own words, and changes nothing.
    let empty = tempfile::tempdir().unwrap();
    let other_home = tempfile::tempdir().unwrap();
    let failed = workspace
        .command(&[
            "kernel",
            "install-local",
            "--python",
            python_arg.as_str(),
            "--wheelhouse",
            empty.path().to_str().unwrap(),
        ])
        .env("HAILER_HOME", other_home.path())
        .output()
        .unwrap();
    assert!(!failed.status.success());
    let said = String::from_utf8_lossy(&failed.stderr);
    assert!(said.contains("pip") || said.contains("install"), "{said}");
    let _ = std::process::Command::new(hailer_tests::bins::path("hailer"))
        .args(["daemon", "stop"])
        .env("HAILER_HOME", other_home.path())
        .output();
}

/// Writes an executable file.
fn executable(path: &std::path::Path, text: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn one_environment_for_every_spelling_of_the_python_on_path_made_with_uv_and_ty_in_it() {
    let mut workspace = TestWorkspace::unsafe_local();
    workspace
        .env
        .retain(|(name, _)| name != hailer_tests::kernel_envs::VARIABLE);
    let tools = tempfile::tempdir().unwrap();
    // uv on PATH, as `uv tool install` or a package manager puts it there.
    let uv_dir = tools.path().join("uv-bin");
    std::fs::create_dir_all(&uv_dir).unwrap();
    std::os::unix::fs::symlink(hailer_tests::prereqs::uv(), uv_dir.join("uv")).unwrap();
    // The same Python once more, behind a shim that counts its runs (as pyenv's do).
    let real = std::process::Command::new(kernel_venv().join("bin/python"))
        .args([
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_owned();
    let shim_dir = tools.path().join("shims");
    std::fs::create_dir_all(&shim_dir).unwrap();
    let runs = tools.path().join("shim-runs");
    for name in ["python3", "python3.11", "python3.12", "python3.13"] {
        executable(
            &shim_dir.join(name),
            &format!(
                "#!/bin/sh\necho run >> '{}'\nexec '{real}' \"$@\"\n",
                runs.display()
            ),
        );
    }
    let real_dir = tools.path().join("real");
    std::fs::create_dir_all(&real_dir).unwrap();
    std::os::unix::fs::symlink(&real, real_dir.join("python3")).unwrap();
    // Only these folders: no other Python on PATH may be found first.
    let path_with = |first: &std::path::Path| {
        std::env::join_paths([first, uv_dir.as_path()])
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let wheels = wheelhouse().display().to_string();
    let install = |path: String| {
        workspace
            .command(&["kernel", "install-local", "--wheelhouse", &wheels])
            .env("PATH", path)
            .output()
            .unwrap()
    };

    let first = install(path_with(&real_dir));
    let said = String::from_utf8_lossy(&first.stdout).into_owned();
    assert!(
        first.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let creating = said
        .lines()
        .find(|line| line.starts_with("Creating a Python"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(creating.contains("with uv ("), "{creating}");
    let venv_root = workspace.home.path().join("data/kernels");
    let contract = std::fs::read_dir(&venv_root)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    assert!(
        contract.join("venv/bin/ty").is_file(),
        "ty is in the environment"
    );
    assert!(contract.join("venv/bin/ruff").is_file());
    // uv compiled the packages' bytecode at install, as pip does, so the first kernel start
    // does not.
    let marimo_cache = std::fs::read_dir(contract.join("venv/lib"))
        .unwrap()
        .flatten()
        .map(|python| python.path().join("site-packages/marimo/__pycache__"))
        .find(|cache| cache.is_dir())
        .unwrap_or_else(|| panic!("marimo has no bytecode in {}", contract.display()));
    let compiled = std::fs::read_dir(&marimo_cache)
        .unwrap()
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "pyc"))
        .count();
    assert!(
        compiled > 5,
        "{compiled} .pyc files in {}",
        marimo_cache.display()
    );

    let second = install(path_with(&shim_dir));
    let said_again = String::from_utf8_lossy(&second.stdout).into_owned();
    assert!(second.status.success(), "{said_again}");
    assert!(
        said_again.contains("Reused the environment"),
        "{said_again}"
    );
    let installs = [&said, &said_again]
        .iter()
        .filter(|text| text.contains("Creating a Python"))
        .count();
    assert_eq!(installs, 1, "one interpreter, one install");
    assert_eq!(
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count(),
        0,
        "a ready environment is reused without running any Python"
    );

    // A daemon started from the shim's PATH starts the kernel in it, probing nothing.
    let _ = workspace.hailer(&["daemon", "stop"]);
    let ran = workspace
        .command(&["exec", "-c", "import sys, shutil; print(sys.prefix)"])
        .env("PATH", path_with(&shim_dir))
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
    let prefix = String::from_utf8_lossy(&ran.stdout).trim().to_owned();
    assert!(
        std::path::Path::new(&prefix).starts_with(&contract),
        "{prefix}"
    );
    assert_eq!(
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count(),
        0,
        "the session start ran no Python to find one"
    );
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[test]
fn sessions_run_in_the_folder_hailer_kernel_envs_names_and_a_relative_one_is_refused() {
    let workspace = TestWorkspace::unsafe_local();
    let shared = hailer_tests::kernel_envs::shared();
    let ran = workspace.hailer(&["exec", "-c", "import sys; print(sys.prefix)"]);
    assert!(ran.status.success(), "{ran:?}");
    let prefix = std::path::PathBuf::from(String::from_utf8_lossy(&ran.stdout).trim());
    let contract = hailer_kernel_bundle::contract();
    assert_eq!(prefix, shared.join(&contract).join("venv"), "{prefix:?}");
    assert!(
        !workspace.home.path().join("data/kernels").exists(),
        "nothing was installed in the Hailer home"
    );
    let _ = workspace.hailer(&["daemon", "stop"]);

    for hostile in ["kernel-envs", "./envs", "../../etc"] {
        let refused = workspace
            .command(&["daemon", "start"])
            .env(hailer_tests::kernel_envs::VARIABLE, hostile)
            .output()
            .unwrap();
        assert!(!refused.status.success(), "{refused:?}");
        let said = hailer_tests::output_text(&refused);
        assert!(
            said.contains("HAILER_KERNEL_ENVS") && said.contains(hostile),
            "{said}"
        );
    }
}

#[test]
fn install_local_uses_uv_with_pips_ca_file_find_links_and_no_index_carried_over() {
    let mut workspace = TestWorkspace::unsafe_local();
    workspace
        .env
        .retain(|(name, _)| name != hailer_tests::kernel_envs::VARIABLE);
    let tools = tempfile::tempdir().unwrap();
    let uv_dir = tools.path().join("uv-bin");
    std::fs::create_dir_all(&uv_dir).unwrap();
    std::os::unix::fs::symlink(hailer_tests::prereqs::uv(), uv_dir.join("uv")).unwrap();
    let real = std::process::Command::new(kernel_venv().join("bin/python"))
        .args([
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_owned();
    let real_dir = tools.path().join("real");
    std::fs::create_dir_all(&real_dir).unwrap();
    std::os::unix::fs::symlink(&real, real_dir.join("python3")).unwrap();
    // A company's CA bundle, as pip's settings name it.
    let system_bundle = std::env::var("SSL_CERT_FILE")
        .unwrap_or_else(|_| "/etc/ssl/certs/ca-certificates.crt".to_owned());
    let ca = tools.path().join("company-ca.pem");
    std::fs::copy(&system_bundle, &ca)
        .unwrap_or_else(|error| panic!("the system's CA bundle {system_bundle}: {error}"));
    let path = std::env::join_paths([real_dir.as_path(), uv_dir.as_path()]).unwrap();
    // pip's settings say: this CA file, wheels from this folder, no index.
    let output = workspace
        .command(&["kernel", "install-local"])
        .env("PATH", path)
        .env("PIP_CERT", &ca)
        .env("PIP_FIND_LINKS", wheelhouse())
        .env("PIP_NO_INDEX", "1")
        .env_remove("PIP_CONFIG_FILE")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let creating = said
        .lines()
        .find(|line| line.starts_with("Creating a Python"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(creating.contains("with uv ("), "{creating}");
    assert!(creating.contains("of pip's settings"), "{creating}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}
