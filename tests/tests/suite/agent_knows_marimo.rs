//! The agent works with marimo as it is: a run that raises reads as failed to the user (in
//! `hailer run` and the page) and to the model, `data_files` holds files added after the kernel
//! started, the notebook path the model is given is accepted back, and the prompt names the
//! kernel's real network. Real hailerd, real kernels (unsafe-local and docker), real Chromium,
//! a scripted model.

use std::time::Duration;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::browser::Browser;
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);
const KEY_VARIABLE: &str = "SCRIPTED_KEY";
const KEY: &str = "scripted-key-7f3a9c1e5b";

fn said(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn exec(workspace: &TestWorkspace, code: &str) -> String {
    let output = tokio::task::block_in_place(|| {
        workspace
            .command(&["exec", "-c", code])
            .env(KEY_VARIABLE, KEY)
            .output()
            .unwrap()
    });
    assert!(output.status.success(), "{}", said(&output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn run(workspace: &TestWorkspace, question: &str) -> String {
    let output = tokio::task::block_in_place(|| {
        workspace
            .command(&["run", question])
            .env(KEY_VARIABLE, KEY)
            .output()
            .unwrap()
    });
    assert!(output.status.success(), "{}", said(&output));
    said(&output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_raises_reads_as_failed_in_hailer_run_the_page_and_to_the_model() {
    let model = ScriptedModel::start(
        Script::new()
            .reply(Reply::tool_call("marimo_execute", json!({"code": "1 / 0"})))
            .reply_text("That failed."),
    )
    .await
    .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let output = run(&workspace, "Divide by zero");
    assert!(
        output.contains(
            "[marimo_execute] failed: the run failed: ZeroDivisionError: division by zero"
        ),
        "{output}"
    );
    let requests = model.requests();
    let result = requests[1].body.to_string();
    assert!(
        result.contains("ERROR: the run failed: ZeroDivisionError: division by zero"),
        "{result}"
    );

    let link = tokio::task::block_in_place(|| workspace.hailer(&["open", "--print"]));
    assert!(link.status.success(), "{}", said(&link));
    let link = String::from_utf8_lossy(&link.stdout).trim().to_owned();
    let browser = Browser::start().await.unwrap();
    browser.client.goto(&link).await.unwrap();
    let status = browser
        .wait_for(
            "the tool call's status",
            "const node = document.querySelector('.tool-status'); \
             return node && node.textContent !== 'running…' && \
             [node.textContent, node.className]",
            WAIT,
        )
        .await
        .unwrap();
    browser.close().await;
    let text = status[0].as_str().unwrap_or_default();
    assert!(
        text.starts_with("failed: the run failed: ZeroDivisionError"),
        "{status}"
    );
    assert!(
        status[1]
            .as_str()
            .unwrap_or_default()
            .contains("status-failed"),
        "{status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_files_lists_a_file_added_after_the_unsafe_local_kernel_started() {
    let workspace = TestWorkspace::unsafe_local();
    workspace.write("data/first.csv", "x\n1\n");
    let listing = "print(sorted(f.name for f in data_files))";
    assert!(exec(&workspace, listing).contains("['first.csv']"));
    workspace.write("data/later.csv", "x\n2\n");
    let seen = exec(&workspace, listing);
    assert!(seen.contains("['first.csv', 'later.csv']"), "{seen}");
    // The refreshed list stays: a later run without a change sees it too.
    let again = exec(&workspace, "print(len(data_files))");
    assert_eq!(again.trim(), "2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_kernel_sees_new_files_takes_its_own_notebook_path_and_is_named_with_its_network()
{
    hailer_tests::docker_image::kernel_image().await;
    let model = ScriptedModel::start(
        Script::new()
            .reply(Reply::tool_call(
                "notebook_open",
                json!({"notebook": "/work/notebooks/analysis.py"}),
            ))
            .reply(Reply::tool_call(
                "marimo_execute",
                json!({"code": "print(sorted(f.name for f in data_files))"}),
            ))
            .reply_text("Done."),
    )
    .await
    .unwrap();
    let workspace = TestWorkspace::docker();
    workspace.write("data/first.csv", "x\n1\n");
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replacen("# network = false", "network = true", 1),
    );
    workspace.use_scripted_model(&model.base_url(), "chat", true, "");
    assert!(exec(&workspace, "print(len(data_files))").contains('1'));
    workspace.write("data/later.csv", "x\n2\n");

    run(&workspace, "What is there?");
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let prompt = requests[0].body.to_string();
    assert!(prompt.contains("with network access"), "{prompt}");
    assert!(!prompt.contains("container: no network"), "{prompt}");
    let opened = requests[1].body.to_string();
    assert!(
        opened.contains("analysis.py is now the active notebook"),
        "{opened}"
    );
    let listed = requests[2].body.to_string();
    assert!(listed.contains("['first.csv', 'later.csv']"), "{listed}");
}
