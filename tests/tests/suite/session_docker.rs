//! A workspace session with the default docker kernel, driven through hailerd.

use hailer_tests::TestWorkspace;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn labelled_objects() -> String {
    let containers = std::process::Command::new("docker")
        .args([
            "ps",
            "-a",
            "--filter",
            "label=org.hailer.role",
            "--format",
            "{{.Names}}",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&containers.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_session_runs_isolated_and_copies_notebooks_back() {
    hailer_tests::docker_image::kernel_image().await;
    let workspace = TestWorkspace::docker();
    workspace.write("data/sales.csv", "region,amount\nnorth,10\n");
    let before = std::fs::read(workspace.path().join("data/sales.csv")).unwrap();

    let seen = tokio::task::block_in_place(|| {
        workspace.hailer(&[
            "exec",
            "-c",
            "import os; print(os.getcwd(), os.getuid() != 0, str(DATA_DIR), [f.name for f in data_files])",
        ])
    });
    assert!(seen.status.success(), "{seen:?}");
    assert_eq!(stdout(&seen).trim(), "/work True /work/data ['sales.csv']");

    // The data folder is read-only; the host's file is unchanged.
    let write = tokio::task::block_in_place(|| {
        workspace.hailer(&["exec", "-c", "open('/work/data/sales.csv', 'w').write('x')"])
    });
    assert_eq!(write.status.code(), Some(1));
    assert_eq!(
        std::fs::read(workspace.path().join("data/sales.csv")).unwrap(),
        before
    );

    // No network.
    let network = tokio::task::block_in_place(|| {
        workspace.hailer(&[
            "exec",
            "-c",
            "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=3)\n    print('reached')\nexcept OSError:\n    print('blocked')",
        ])
    });
    assert_eq!(stdout(&network).trim(), "blocked", "{network:?}");

    // Charts are drawn inside the isolated kernel: read-only root, no network, not root.
    let chart = tokio::task::block_in_place(|| {
        workspace.hailer(&[
            "exec",
            "-c",
            "import altair as _alt\nimport polars as _pl\nfrom hailer_kernel import charts as _charts\nfrom marimo._output.formatting import try_format as _format\n_out = _format(_alt.Chart(_pl.DataFrame({'a': [1, 2]})).mark_bar().encode(x='a:N', y='a:Q'))\n_c = _charts.render(_out.mimetype, _out.data)\nprint(_c['image']['mimetype'] if _c and _c['image'] else 'not drawn')",
        ])
    });
    assert_eq!(stdout(&chart).trim(), "image/svg+xml", "{chart:?}");

    // A notebook written in the kernel comes back; a test-runner hook does not.
    let notebook =
        "import marimo\\n\\napp = marimo.App()\\n\\n\\n@app.cell\\ndef _():\\n    return\\n";
    let planted = tokio::task::block_in_place(|| {
        workspace.hailer(&[
            "exec",
            "-c",
            &format!(
                "open('/work/notebooks/made_in_kernel.py', 'w').write('{notebook}'); open('/work/notebooks/conftest.py', 'w').write('import os')"
            ),
        ])
    });
    assert!(planted.status.success(), "{planted:?}");
    assert!(
        !labelled_objects().is_empty(),
        "the kernel's containers are labelled"
    );
    let stopped = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(stopped.status.success());
    let copied =
        std::fs::read_to_string(workspace.path().join("notebooks/made_in_kernel.py")).unwrap();
    assert!(copied.contains("marimo.App()"));
    assert!(!workspace.path().join("notebooks/conftest.py").exists());
    assert!(
        !labelled_objects().contains(&workspace.runtime_id_hint()),
        "the session's containers are removed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hailer_run_ends_with_the_answers_cell_already_in_the_host_notebook() {
    hailer_tests::docker_image::kernel_image().await;
    hailer_tests::notebook_cases::hailer_run_ends_with_the_answers_cell_in_the_host_notebook(
        TestWorkspace::docker,
        "copied_back_marker",
    )
    .await;
}
