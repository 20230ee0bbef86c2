//! A workspace session with the sandbox kernel: marimo in unsafe-local's environment, confined
//! by namespaces, Landlock and seccomp that hailerd makes itself. What the code inside can and
//! cannot reach is asked from inside, through `hailer exec`, as a user would.

use hailer_tests::TestWorkspace;
use hailer_tests::kernel_code::KERNEL_PROBES;
use std::os::unix::fs::PermissionsExt as _;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `code` in the workspace's kernel and returns what it printed; fails on a failed run.
fn run(workspace: &TestWorkspace, code: &str) -> String {
    let output = workspace.hailer(&["exec", "--timeout", "120", "-c", code]);
    assert!(output.status.success(), "{code}\n{output:?}");
    stdout(&output).trim().to_owned()
}

/// Tries `expression` in the kernel: `ok` when it ran, else the error's class.
fn attempt(workspace: &TestWorkspace, setup: &str, expression: &str) -> String {
    run(
        workspace,
        &format!(
            "{setup}\ntry:\n    {expression}\n    print('ok')\nexcept Exception as _e:\n    print(type(_e).__name__)"
        ),
    )
}

/// A C library call from the kernel: its result and errno, as `-1 1` for an EPERM refusal.
fn libc_call(workspace: &TestWorkspace, call: &str) -> String {
    run(
        workspace,
        &format!(
            "import ctypes as _c\n_l = _c.CDLL(None, use_errno=True)\n_r = _l.{call}\nprint(_r, _c.get_errno())"
        ),
    )
}

/// A 0600 file in the home folder of the user who runs the tests (and so the daemon), removed
/// when dropped.
struct PlantedFile(std::path::PathBuf);

impl PlantedFile {
    fn new() -> Self {
        let home = std::env::var_os("HOME").expect("HOME is set");
        let path = std::path::Path::new(&home).join(format!(
            ".hailer-sandbox-test-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::write(&path, "the user's private words").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        Self(path)
    }
}

impl Drop for PlantedFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn sandboxed_code_reaches_only_the_data_notebooks_and_its_own_scratch_space() {
    let planted_key = "sk-planted-sandbox-key-0001";
    let workspace = TestWorkspace::sandbox_with_env(vec![
        ("OPENAI_API_KEY".to_owned(), planted_key.to_owned()),
        (
            "SOME_SERVICE_TOKEN".to_owned(),
            "planted-token-0002".to_owned(),
        ),
    ]);
    workspace.write("data/sales.csv", "region,amount\nnorth,10\n");
    let before = std::fs::read(workspace.path().join("data/sales.csv")).unwrap();
    let private = PlantedFile::new();

    // It runs, on the host's paths, as an ordinary user.
    assert_eq!(
        run(
            &workspace,
            "import os; print(os.getuid() != 0, str(DATA_DIR) == os.environ['HAILER_DATA_DIR'], [f.name for f in data_files])"
        ),
        "True True ['sales.csv']"
    );

    // No network: neither a public address nor the daemon's own loopback port.
    let runtime = workspace.runtime();
    for (host, port) in [("1.1.1.1", 53), ("127.0.0.1", runtime.port)] {
        let tried = attempt(
            &workspace,
            "import socket",
            &format!("socket.create_connection(('{host}', {port}), timeout=3).close()"),
        );
        assert!(
            ["OSError", "ConnectionRefusedError"].contains(&tried.as_str()),
            "{host}:{port}: {tried}"
        );
    }

    // The user's files: a private file in the home, Hailer's home with the runtime file,
    // the workspace's own state.
    for path in [
        private.0.clone(),
        workspace.home.path().join("run").join("hailerd.json"),
        workspace.path().join(".hailer"),
    ] {
        assert_eq!(
            attempt(
                &workspace,
                "import os",
                &format!("os.stat({:?})", path.display().to_string())
            ),
            "FileNotFoundError",
            "{} is in sight",
            path.display()
        );
    }
    // The home is a private, empty folder: what marimo writes there stays there, and of the
    // user's own entries only the folder holding the Python the environment was made from is
    // shown (read-only, for the interpreter).
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap());
    let inside = run(
        &workspace,
        "import os; open(os.path.expanduser('~/made-inside'), 'w').write('x'); print(chr(10).join(sorted(os.listdir(os.path.expanduser('~')))))",
    );
    assert!(!home.join("made-inside").exists());
    let python_home = std::fs::canonicalize(hailer_tests::kernel_envs::python())
        .unwrap()
        .strip_prefix(&home)
        .ok()
        .and_then(|inside_home| inside_home.components().next())
        .map(|first| first.as_os_str().to_string_lossy().into_owned());
    for entry in inside.lines() {
        let shown_for_python = python_home.as_deref() == Some(entry);
        let made_inside =
            [".cache", ".config", ".local", ".marimo", "made-inside"].contains(&entry);
        assert!(
            shown_for_python || made_inside,
            "the user's {entry} is in sight: {inside}"
        );
    }
    // /tmp is the sandbox's own.
    let host_tmp_marker =
        std::env::temp_dir().join(format!("hailer-sandbox-{}", std::process::id()));
    std::fs::write(&host_tmp_marker, "host").unwrap();
    assert_eq!(
        attempt(
            &workspace,
            "import os",
            &format!("os.stat({:?})", host_tmp_marker.display().to_string())
        ),
        "FileNotFoundError"
    );
    let _ = std::fs::remove_file(&host_tmp_marker);

    // Its own processes only: the daemon is not there, and neither is its environment.
    assert_eq!(
        attempt(
            &workspace,
            "",
            &format!("open('/proc/{}/environ').read()", runtime.pid)
        ),
        "FileNotFoundError"
    );
    let processes = run(
        &workspace,
        "import os\nfor p in sorted(int(p) for p in os.listdir('/proc') if p.isdigit()):\n    print(p, open(f'/proc/{p}/cmdline').read().replace(chr(0), ' ')[:60])",
    );
    assert!(
        processes.lines().count() < 12,
        "more processes than marimo's: {processes}"
    );
    for line in processes.lines() {
        assert!(
            line.contains("python") || line.contains("sandbox-exec") || line.contains("marimo"),
            "a process that is not the kernel's is in sight: {line}"
        );
    }

    // The data folder is read-only; the host's file is unchanged.
    assert_eq!(
        attempt(
            &workspace,
            "",
            "open(str(DATA_DIR / 'sales.csv'), 'w').write('x')"
        ),
        "OSError"
    );
    assert_eq!(
        attempt(
            &workspace,
            "",
            "open(str(DATA_DIR / 'new.csv'), 'w').write('x')"
        ),
        "OSError"
    );
    assert_eq!(
        std::fs::read(workspace.path().join("data/sales.csv")).unwrap(),
        before
    );
    assert!(!workspace.path().join("data/new.csv").exists());

    // A notebook written inside is on the host at once (the folder is bound writable).
    let notebook = workspace
        .path()
        .join("notebooks")
        .join("made_in_sandbox.py");
    run(
        &workspace,
        &format!(
            "open({:?}, 'w').write('import marimo\\napp = marimo.App()\\n')",
            notebook.display().to_string()
        ),
    );
    assert!(
        std::fs::read_to_string(&notebook)
            .unwrap()
            .contains("marimo.App()")
    );

    // Secrets are withheld.
    let environment = run(
        &workspace,
        "import os, json; print(json.dumps(dict(os.environ)))",
    );
    assert!(!environment.contains(planted_key), "{environment}");
    assert!(!environment.contains("planted-token-0002"), "{environment}");

    // No new namespaces, mounts, tracing or root. unshare(CLONE_NEWUSER) and mount are refused
    // by seccomp (EPERM); ptrace too; setuid(0) finds no uid 0 in the sandbox (EINVAL), and
    // would need a capability the kernel does not have.
    assert_eq!(libc_call(&workspace, "unshare(0x10000000)"), "-1 1");
    assert_eq!(
        libc_call(&workspace, "mount(b'none', b'/tmp', b'tmpfs', 0, None)"),
        "-1 1"
    );
    assert_eq!(libc_call(&workspace, "ptrace(0, 0, 0, 0)"), "-1 1");
    let setuid = libc_call(&workspace, "setuid(0)");
    assert!(setuid == "-1 22" || setuid == "-1 1", "setuid(0): {setuid}");
    assert_eq!(
        run(&workspace, "import os; print(os.getuid(), os.geteuid())"),
        run(&workspace, "import os; print(os.getuid(), os.getuid())")
    );

    // No Docker object was made for it.
    assert_eq!(workspace.docker_objects(), Vec::<String>::new());

    // `hailer status` names the runtime and what it keeps from the code.
    let status = workspace.hailer(&["status"]);
    assert!(stdout(&status).contains("sandbox ("), "{status:?}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}

#[test]
fn doctor_probe_runs_its_probes_in_the_sandbox_and_names_what_it_lacks() {
    let workspace = TestWorkspace::sandbox();
    let probed = workspace.hailer(&["doctor", "--probe"]);
    let text = stdout(&probed);
    let verdicts: Vec<(&str, bool)> = text
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let passed = line.starts_with("PASS");
            (passed || line.starts_with("FAIL")).then(|| {
                let probe = KERNEL_PROBES
                    .iter()
                    .find(|probe| line[4..].trim_start().starts_with(*probe))
                    .copied()
                    .unwrap_or(line);
                (probe, passed)
            })
        })
        .collect();
    assert_eq!(
        verdicts.iter().map(|(probe, _)| *probe).collect::<Vec<_>>(),
        KERNEL_PROBES,
        "{text}"
    );
    // The sandbox sets rlimits, not cgroup limits, which is what these two probes look for:
    // they fail unless the machine gives more, and the table says so at its top.
    let limits = ["pids limit holds", "memory limit holds"];
    for (probe, passed) in &verdicts {
        assert!(*passed || limits.contains(probe), "{probe} failed:\n{text}");
    }
    if verdicts.iter().any(|(_, passed)| !passed) {
        assert!(
            text.contains("This machine's sandbox does not give: "),
            "{text}"
        );
        assert_eq!(probed.status.code(), Some(1), "{probed:?}");
    }
    // The kernel still answers after the probes.
    assert_eq!(run(&workspace, "print(6 * 7)"), "42");
    let _ = workspace.hailer(&["daemon", "stop"]);
}

/// The cases `session_docker` and `docker_limits` check of the docker kernel, on the sandbox.
/// Differences: the kernel sees the host's paths (not `/work`); a notebook is written in place
/// rather than copied back, so any file the code writes in the notebooks folder stays there
/// (docker copies back notebooks only, never a `conftest.py`). The limit cases, whose
/// differences are the rlimits', are in `sandbox_limits`.
#[test]
fn the_docker_kernel_s_containment_cases_hold_in_the_sandbox() {
    let workspace = TestWorkspace::sandbox();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\n");
    let data = workspace.path().canonicalize().unwrap().join("data");
    assert_eq!(
        run(
            &workspace,
            "import os; print(os.getcwd() == str(WORKSPACE), os.getuid() != 0, [f.name for f in data_files])"
        ),
        "True True ['sales.csv']"
    );
    assert_eq!(
        run(&workspace, "print(DATA_DIR)"),
        data.display().to_string()
    );

    // Charts are drawn inside: read-only root, no network, not root.
    assert_eq!(
        run(
            &workspace,
            "import altair as _alt\nimport polars as _pl\nfrom hailer_kernel import charts as _charts\nfrom marimo._output.formatting import try_format as _format\n_out = _format(_alt.Chart(_pl.DataFrame({'a': [1, 2]})).mark_bar().encode(x='a:N', y='a:Q'))\n_c = _charts.render(_out.mimetype, _out.data)\nprint(_c['image']['mimetype'] if _c and _c['image'] else 'not drawn')",
        ),
        "image/svg+xml"
    );

    // A notebook written in the kernel is in the notebooks folder; so is any other file there
    // (the difference from docker's copy-back, which the README states).
    let notebooks = workspace.path().canonicalize().unwrap().join("notebooks");
    run(
        &workspace,
        &format!(
            "open({:?}, 'w').write('import marimo\\napp = marimo.App()\\n'); open({:?}, 'w').write('import os')",
            notebooks.join("made_in_kernel.py").display().to_string(),
            notebooks.join("conftest.py").display().to_string(),
        ),
    );
    assert!(
        std::fs::read_to_string(notebooks.join("made_in_kernel.py"))
            .unwrap()
            .contains("marimo.App()")
    );
    assert!(notebooks.join("conftest.py").exists());
    // The root is read-only; the rest of the workspace is not there: what the code writes
    // beside the data and notebooks folders lands in the sandbox's private folders only.
    assert_eq!(
        attempt(&workspace, "", "open('/usr/hailer-was-here', 'w')"),
        "OSError"
    );
    let settings = std::fs::read(workspace.path().join("hailer.toml")).unwrap();
    assert_eq!(
        attempt(
            &workspace,
            "",
            "open(str(WORKSPACE / 'hailer.toml'), 'w').write('[kernel]')"
        ),
        "ok"
    );
    assert_eq!(
        std::fs::read(workspace.path().join("hailer.toml")).unwrap(),
        settings
    );

    // The process limit (256) and the per-process memory limit ([kernel] memory, 4g) are set.
    assert_eq!(
        run(
            &workspace,
            "import resource as _r; print(_r.getrlimit(_r.RLIMIT_NPROC), _r.getrlimit(_r.RLIMIT_DATA))"
        ),
        format!("(256, 256) ({0}, {0})", 4u64 << 30)
    );
    // The fork bomb and the memory hog: `sandbox_limits`, as an ordinary user for the former.

    assert_eq!(workspace.docker_objects(), Vec::<String>::new());
    let _ = workspace.hailer(&["daemon", "stop"]);
}

/// When the daemon runs as root, the sandbox's user is root on the host: every entry of `/etc`
/// that others may not read is covered, not only the well-known secrets. Files others may read
/// stay readable.
#[test]
fn the_system_s_private_files_are_out_of_sight() {
    let workspace = TestWorkspace::sandbox();
    let stamp = format!("{}-{}", std::process::id(), line!());
    let secret = std::path::PathBuf::from(format!("/etc/hailer-sandbox-secret-{stamp}"));
    let folder = std::path::PathBuf::from(format!("/etc/hailer-sandbox-private-{stamp}"));
    let planted = nix::unistd::geteuid().is_root();
    if planted {
        // Only root may write here; for any other user these are root's, and unreadable anyway.
        std::fs::write(&secret, "root's private words").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("key.conf"), "a key in a closed folder").unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let read = |path: &str| {
        run(
            &workspace,
            &format!(
                "try:\n    print(repr(open({path:?}).read()))\nexcept OSError as _e:\n    print(type(_e).__name__)"
            ),
        )
    };
    let seen = read(&secret.display().to_string());
    let in_folder = read(&folder.join("key.conf").display().to_string());
    let shadow = read("/etc/shadow");
    let passwd = read("/etc/passwd");
    if planted {
        let _ = std::fs::remove_file(&secret);
        let _ = std::fs::remove_dir_all(&folder);
    }
    for (what, seen) in [
        ("a 0600 file", &seen),
        ("a file in a 0700 folder", &in_folder),
        ("/etc/shadow", &shadow),
    ] {
        assert!(
            seen == "''" || seen == "FileNotFoundError" || seen == "PermissionError",
            "{what} of /etc is readable in the sandbox: {seen}"
        );
    }
    assert!(passwd.contains("root:"), "/etc/passwd: {passwd}");
    let _ = workspace.hailer(&["daemon", "stop"]);
}
