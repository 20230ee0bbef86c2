//! Against a real marimo 0.24.2 (the Python named by HAILER_TEST_PYTHON).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::{PLANTED_SECRETS, TestWorkspace, VISIBLE_VAR};
use hailer_marimo::{CellEdit, Error, KernelState, NewCell};
use hailer_marimo::{ProcessId, descendants, is_running, read_stat};
use secrecy::ExposeSecret;

const BUDGET: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_headless_session_runs_code_after_the_notebook_cells() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = server.client().unwrap();

    let outcome = client
        .execute(&workspace.notebook, "print(6*7)", BUDGET)
        .await
        .unwrap();
    assert_eq!(outcome.stdout, "42\n");
    assert!(outcome.success);
    assert!(!outcome.fresh_session);

    // The notebook's own cells ran, so their globals are visible to executed code.
    let outcome = client
        .execute(
            &workspace.notebook,
            "print(base_value + 2, pl.__name__)",
            BUDGET,
        )
        .await
        .unwrap();
    assert_eq!(outcome.stdout, "42 polars\n", "stderr: {}", outcome.stderr);

    let outcome = client
        .execute(&workspace.notebook, "print('before')\n1/0", BUDGET)
        .await
        .unwrap();
    assert!(!outcome.success);
    assert_eq!(outcome.stdout, "before\n");
    assert!(
        outcome.stderr.contains("ZeroDivisionError"),
        "{}",
        outcome.stderr
    );

    let outcome = client
        .execute(&workspace.notebook, "x = 1 + 41\nx", BUDGET)
        .await
        .unwrap();
    let output = outcome.output.unwrap();
    assert_eq!(output.mimetype, "text/html");
    assert!(output.data.contains("42"), "{}", output.data);

    let sessions = client.list_sessions().await.unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0].1, workspace.notebook);
    assert_eq!(
        client.kernel_status(&workspace.notebook).await.unwrap(),
        KernelState::Idle
    );
    client.interrupt(&workspace.notebook).await.unwrap();

    // A second ensure finds the same session instead of opening another.
    let handle = client.ensure_session(&workspace.notebook).await.unwrap();
    assert!(!handle.opened);
    assert_eq!(handle.id, sessions[0].0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_and_the_token_stay_out_of_the_kernel_and_stop_leaves_nothing() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = server.client().unwrap();
    let token = server.token().expose_secret().to_owned();

    let outcome = client
        .execute(
            &workspace.notebook,
            "import os, json\nprint(json.dumps(dict(os.environ)))",
            BUDGET,
        )
        .await
        .unwrap();
    let kernel_env: BTreeMap<String, String> = serde_json::from_str(outcome.stdout.trim()).unwrap();
    assert_eq!(
        kernel_env.get(VISIBLE_VAR).map(String::as_str),
        Some("visible")
    );
    for (name, value) in PLANTED_SECRETS {
        assert!(!kernel_env.contains_key(name), "{name} reached the kernel");
        assert!(
            kernel_env.values().all(|v| !v.contains(value)),
            "the value of {name} reached the kernel"
        );
    }
    assert!(
        kernel_env.values().all(|v| !v.contains(&token)),
        "the token is in the kernel's environment"
    );

    // The token is on no command line of any process on the machine.
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline);
            assert!(
                !text.contains(&token),
                "the token is on the command line of {:?}",
                entry.path()
            );
        }
    }
    // The log may hold it (marimo prints its signed-in URL), but the tail we show never does.
    let log = std::fs::read_to_string(server.log_path()).unwrap();
    let tail = server.log_tail();
    assert!(!tail.contains(&token), "{tail}");
    if log.contains(&token) {
        assert!(
            tail.contains("<token>") || !log.lines().rev().take(15).any(|l| l.contains(&token))
        );
    }

    let mut processes: Vec<ProcessId> = descendants(server.pid())
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    let server_stat = read_stat(server.pid()).unwrap();
    processes.push(ProcessId {
        pid: server.pid(),
        start_time: server_stat.start_time,
    });
    assert!(
        !server.kernel_pids().is_empty(),
        "no kernel process was found"
    );
    let log_path = server.log_path().to_owned();
    server.stop().await;
    let left: Vec<_> = processes.iter().filter(|p| is_running(**p)).collect();
    assert!(left.is_empty(), "still running after stop: {left:?}");
    assert!(!log_path.exists(), "the log was not deleted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_mode_cells_reach_the_file_exactly() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = server.client().unwrap();

    let code = r#"label = 'it\'s "quoted" \\ back\\slash'
doc = """triple "quotes" and ''' inside"""
greeting = "héllo wörld € 😀 \t tab"
print(label, doc, greeting)"#;
    let change = client
        .create_cell(
            &workspace.notebook,
            &NewCell {
                code: code.to_owned(),
                name: Some("special".to_owned()),
                hide_code: false,
                run: true,
                after: None,
            },
            BUDGET,
        )
        .await
        .unwrap();
    assert!(change.outcome.success, "{}", change.outcome.stderr);
    assert!(
        change
            .outcome
            .stdout
            .contains("it's \"quoted\" \\ back\\slash"),
        "{}",
        change.outcome.stdout
    );

    let indented: String = code.lines().map(|l| format!("    {l}\n")).collect();
    let on_disk = wait_for_file_containing(&workspace.notebook, &indented).await;
    assert!(on_disk.contains("def special("), "{on_disk}");

    let cells = client
        .list_cells(&workspace.notebook, BUDGET)
        .await
        .unwrap();
    let special = cells.iter().find(|c| c.id == change.cell_id).unwrap();
    assert_eq!(special.name, "special");
    assert_eq!(special.code, code);
    assert_eq!(cells.len(), 4, "{cells:?}");

    let edited = client
        .edit_cell(
            &workspace.notebook,
            &CellEdit {
                target: "special".to_owned(),
                code: Some("edited_value = 7\nprint('edited', edited_value)".to_owned()),
                run: true,
                ..CellEdit::default()
            },
            BUDGET,
        )
        .await
        .unwrap();
    assert_eq!(edited.cell_id, change.cell_id);
    assert!(
        edited.outcome.stdout.contains("edited 7"),
        "{}",
        edited.outcome.stdout
    );
    wait_for_file_containing(&workspace.notebook, "    edited_value = 7\n").await;

    // A cell whose code does not compile is refused with marimo's explanation.
    let error = client
        .create_cell(
            &workspace.notebook,
            &NewCell {
                code: "def broken(:".to_owned(),
                ..NewCell::default()
            },
            BUDGET,
        )
        .await
        .unwrap_err();
    assert!(matches!(error, Error::CodeMode { .. }), "{error}");
    assert!(error.to_string().contains("kernel said"), "{error}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_files_api_lists_reads_creates_updates_and_deletes() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = server.client().unwrap();
    let folder = workspace.notebooks.to_str().unwrap();

    let listing = client.list_files(Some(folder)).await.unwrap();
    assert!(
        listing
            .files
            .iter()
            .any(|f| f.name == "analysis.py" && f.is_marimo_file),
        "{listing:?}"
    );

    let notebook = workspace.notebook.to_str().unwrap();
    let details = client.file_details(notebook, Some(20)).await.unwrap();
    assert!(details.is_too_large);
    let whole = client.file_details(notebook, None).await.unwrap();
    assert!(whole.contents.unwrap().contains("base_value = 40"));

    let created = client
        .create_file(folder, "notes.txt", b"first\n")
        .await
        .unwrap();
    let created_path = created.info.unwrap().path;
    assert_eq!(
        std::fs::read_to_string(workspace.notebooks.join("notes.txt")).unwrap(),
        "first\n"
    );
    client.update_file(&created_path, "second\n").await.unwrap();
    assert_eq!(
        std::fs::read_to_string(workspace.notebooks.join("notes.txt")).unwrap(),
        "second\n"
    );
    client.delete_file(&created_path).await.unwrap();
    assert!(!workspace.notebooks.join("notes.txt").exists());

    let error = client
        .file_details("/definitely/not/here.py", None)
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Status { .. }), "{error}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_or_stuck_kernel_is_replaced_and_the_next_run_says_so() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = server.client().unwrap();
    client
        .execute(&workspace.notebook, "print(1)", BUDGET)
        .await
        .unwrap();

    // The kernel process dies in the middle of a run.
    let running = {
        let client = client.clone();
        let notebook = workspace.notebook.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let result = client
                .execute(
                    &notebook,
                    "import time\nprint('sleeping', flush=True)\ntime.sleep(120)",
                    Duration::from_secs(30),
                )
                .await;
            (result, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let kernels = server.kernel_pids();
    assert_eq!(kernels.len(), 1, "{kernels:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(kernels[0]),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let (result, elapsed) = running.await.unwrap();
    let error = result.unwrap_err();
    assert!(matches!(error, Error::KernelRestarted { .. }), "{error}");
    assert!(error.to_string().contains("stopped running"), "{error}");
    assert!(
        error.to_string().contains("restarted on a fresh session"),
        "{error}"
    );
    assert!(
        elapsed < Duration::from_secs(10),
        "the error took {elapsed:?}"
    );

    let outcome = client
        .execute(&workspace.notebook, "print(base_value + 2)", BUDGET)
        .await
        .unwrap();
    assert_eq!(outcome.stdout, "42\n", "{}", outcome.stderr);
    assert!(outcome.fresh_session);
    let outcome = client
        .execute(&workspace.notebook, "print('again')", BUDGET)
        .await
        .unwrap();
    assert!(!outcome.fresh_session);

    // A run that outlives its deadline: the call ends on time and the kernel is replaced.
    let started = Instant::now();
    let error = client
        .execute(
            &workspace.notebook,
            "import time\ntime.sleep(120)",
            Duration::from_secs(2),
        )
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("did not finish the run within 2.0 s"),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let outcome = client
        .execute(&workspace.notebook, "print('after')", BUDGET)
        .await
        .unwrap();
    assert_eq!(outcome.stdout, "after\n");
    assert!(outcome.fresh_session);
    assert_eq!(client.list_sessions().await.unwrap().len(), 1);
    server.stop().await;
}

/// The notebook file's text once it contains `needle` (marimo saves from a worker thread).
async fn wait_for_file_containing(path: &std::path::Path, needle: &str) -> String {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(path).unwrap();
        if text.contains(needle) {
            return text;
        }
        assert!(
            Instant::now() < until,
            "the file never contained {needle:?}; it holds:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_server_leaves_no_process_behind() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = server.client().unwrap();
    client.ensure_session(&workspace.notebook).await.unwrap();
    let server_stat = read_stat(server.pid()).unwrap();
    let mut processes: Vec<ProcessId> = descendants(server.pid())
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    processes.push(ProcessId {
        pid: server.pid(),
        start_time: server_stat.start_time,
    });
    assert!(!server.kernel_pids().is_empty());
    let log_path = server.log_path().to_owned();
    drop(server);
    let until = Instant::now() + Duration::from_secs(5);
    while processes.iter().any(|p| is_running(*p)) && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left: Vec<_> = processes.iter().filter(|p| is_running(**p)).collect();
    assert!(left.is_empty(), "still running after drop: {left:?}");
    assert!(!log_path.exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_silent_run_frees_the_kernel_at_once_and_keeps_the_session() {
    let workspace = TestWorkspace::new();
    let server = workspace.launch().await;
    let client = std::sync::Arc::new(server.client().unwrap());
    let notebook = workspace.notebook.clone();
    let marker = notebook.with_file_name("run-started");
    let code = format!(
        "import pathlib, time\npathlib.Path({:?}).touch()\nfor _ in range(600):\n    time.sleep(0.1)\nprint('never')",
        marker.display().to_string()
    );
    let running = {
        let client = std::sync::Arc::clone(&client);
        let notebook = notebook.clone();
        tokio::spawn(async move { client.execute(&notebook, &code, BUDGET).await })
    };
    for _ in 0..600 {
        if marker.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(marker.exists(), "the run never started");
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Dropping the request is what interrupts a run: marimo stops the code when its client goes.
    running.abort();
    let started = Instant::now();
    let outcome = client
        .execute(&notebook, "print('free')", Duration::from_secs(20))
        .await
        .unwrap();
    let took = started.elapsed();
    assert_eq!(outcome.stdout, "free\n", "{outcome:?}");
    assert!(!outcome.fresh_session, "{outcome:?}");
    // The run would take 60 s; on a loaded machine marimo can take a few seconds to notice the
    // dropped request, so "at once" is checked as "long before the run would have ended".
    assert!(
        took < Duration::from_secs(10),
        "the kernel was busy for {took:?}"
    );
    server.stop().await;
}
