//! `hailer demo`: a fresh workspace, sample data, the scripted demo model's tour through the
//! real tools, and a notebook left holding the cells the answer announced.

use hailer_tests::TestWorkspace;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The cells the answer says it added (the names in backquotes after "cells to the notebook:").
fn announced_cells(stdout: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find(|line| line.contains("cells to the notebook:"))
        .unwrap_or_else(|| panic!("the answer announces no cells:\n{stdout}"));
    line.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// What every demo run must show: the scripted model named, real numbers, both links, and the
/// notebook holding every announced cell.
fn assert_the_tour_ran(stdout: &str, demo: &std::path::Path) {
    assert!(
        stdout.contains("Model:      scripted demo model: built into hailerd"),
        "{stdout}"
    );
    assert!(stdout.contains("\nscripted demo model:\n"), "{stdout}");
    assert!(stdout.contains("`sales.csv` holds 360 rows"), "{stdout}");
    assert!(stdout.contains("reached their Q1 target"), "{stdout}");
    assert!(!stdout.contains("A step failed"), "{stdout}");
    assert!(
        stdout.contains("Open the notebook:  http://127.0.0.1:")
            && stdout.contains("access_token="),
        "{stdout}"
    );
    assert!(
        stdout.contains("Open the chat page: http://127.0.0.1:") && stdout.contains("/#token="),
        "{stdout}"
    );
    let cells = announced_cells(stdout);
    assert_eq!(
        cells,
        [
            "load_sales",
            "summarise_regions",
            "load_monthly_orders",
            "compare_targets",
            "chart_revenue"
        ]
    );
    let notebook = std::fs::read_to_string(demo.join("notebooks/analysis.py")).unwrap();
    for cell in &cells {
        assert!(
            notebook.contains(&format!("def {cell}(")),
            "{cell} is not in the notebook:\n{notebook}"
        );
    }
    assert!(notebook.contains("alt.Chart(target_check)"), "{notebook}");
    for file in [
        "sales.csv",
        "25-01 orders.parquet",
        "25-02 orders.parquet",
        "25-03 orders.parquet",
        "targets.xlsx",
    ] {
        assert!(demo.join("data").join(file).is_file(), "{file}");
    }
}

#[test]
fn the_demo_runs_end_to_end_with_the_unsafe_local_kernel_when_asked() {
    let (envs_variable, envs) = hailer_tests::kernel_envs::setting();
    // The shell's own Hailer settings do not change what the demo runs.
    let workspace = TestWorkspace::empty(
        [
            (envs_variable.as_str(), envs),
            ("HAILER_KERNEL", "docker".to_owned()),
            ("HAILER_MODEL", "gpt-elsewhere".to_owned()),
            ("HAILER_MODEL_PROVIDER", "openai".to_owned()),
            ("HAILER_CONFIG", "no-such.toml".to_owned()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect(),
    );
    let demo = workspace.path().join("demo");
    let output = workspace.hailer(&[
        "demo",
        "--dir",
        demo.to_str().unwrap(),
        "--kernel",
        "unsafe-local",
    ]);
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{output:?}\nstdout:\n{stdout}\nstderr:\n{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains("Kernel:     unsafe-local, as you asked"),
        "{stdout}"
    );
    assert_the_tour_ran(&stdout, &demo);
    let toml = std::fs::read_to_string(demo.join("hailer.toml")).unwrap();
    assert!(toml.contains("wire_api = \"demo\""), "{toml}");
    assert!(toml.contains("runtime = \"unsafe-local\""), "{toml}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_runs_end_to_end_in_docker_when_docker_is_ready() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::empty(Vec::new());
    let demo = workspace.path().join("demo");
    let output = tokio::task::block_in_place(|| {
        workspace.hailer(&["demo", "--dir", demo.to_str().unwrap()])
    });
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{output:?}\nstdout:\n{stdout}\nstderr:\n{}",
        text(&output.stderr)
    );
    assert!(stdout.contains("Kernel:     docker: Docker "), "{stdout}");
    assert_the_tour_ran(&stdout, &demo);

    // Stopping the daemon ends the session: the demo's containers go.
    let id = hailer_docker::workspace_id(&std::fs::canonicalize(&demo).unwrap());
    let stopped = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(stopped.status.success(), "{stopped:?}");
    let left = std::process::Command::new("docker")
        .args(["ps", "-a", "--filter"])
        .arg(format!("label=org.hailer.workspace={id}"))
        .args(["--format", "{{.Names}}"])
        .output()
        .unwrap();
    assert_eq!(text(&left.stdout).trim(), "", "containers left behind");
}

#[test]
fn without_docker_the_demo_says_what_to_do_and_runs_nothing() {
    let workspace = TestWorkspace::empty(vec![(
        "DOCKER_HOST".to_owned(),
        "unix:///nonexistent/docker.sock".to_owned(),
    )]);
    let demo = workspace.path().join("demo");
    let output = workspace.hailer(&["demo", "--dir", demo.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("Docker is not ready"), "{stderr}");
    assert!(
        stderr.contains("unix:///nonexistent/docker.sock"),
        "the engine hailerd looked at is named: {stderr}"
    );
    assert!(
        stderr.contains("hailer demo --kernel unsafe-local"),
        "the way on is named: {stderr}"
    );
    assert!(!demo.exists(), "nothing was written");
}

#[test]
fn the_demo_refuses_a_folder_that_holds_something() {
    let workspace = TestWorkspace::empty(Vec::new());
    workspace.write("mine/notes.txt", "my own file");
    let output = workspace.hailer(&[
        "demo",
        "--dir",
        workspace.path().join("mine").to_str().unwrap(),
        "--kernel",
        "unsafe-local",
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(
        text(&output.stderr).contains("is not empty"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        std::fs::read_dir(workspace.path().join("mine"))
            .unwrap()
            .count(),
        1,
        "the folder is left as it was"
    );
}
