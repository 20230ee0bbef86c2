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
        .retain(|(name, _)| name != "HAILER_KERNEL_VENV");
    let wheels = wheelhouse();
    let python_arg = python.display().to_string();
    let wheels_arg = wheels.display().to_string();
    let args = [
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
