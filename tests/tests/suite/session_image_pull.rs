//! A docker session whose kernel image is not on this machine downloads it itself, showing the
//! download as the session's set-up, then answers; the audit trail names the image's digest.

use std::process::Command;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::workspace::{SCRIPTED_KEY, SCRIPTED_KEY_VARIABLE};
use serde_json::{Value, json};

const ANSWER: &str = "The kernel image came down and the kernel answered.";

fn docker(args: &[&str]) -> String {
    let output = Command::new("docker").args(args).output().unwrap();
    assert!(output.status.success(), "docker {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_docker_session_pulls_its_missing_image_with_progress_and_records_its_digest() {
    let local = hailer_tests::docker_image::kernel_image().await;
    let contract = hailer_kernel_bundle::contract();
    let repository = format!("{}/hailer/session-pull", hailer_tests::prereqs::registry());
    let remote = format!("{repository}:{contract}");
    // Published in the registry, and not on this machine.
    tokio::task::block_in_place(|| {
        docker(&["tag", &local, &remote]);
        docker(&["push", "--quiet", &remote]);
        docker(&["image", "rm", &remote]);
    });

    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(6*7)"}),
        ))
        .reply(Reply::text(ANSWER));
    let model = ScriptedModel::start(script).await.unwrap();
    let mut workspace = TestWorkspace::docker();
    workspace
        .env
        .push((SCRIPTED_KEY_VARIABLE.to_owned(), SCRIPTED_KEY.to_owned()));
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    let configured = toml.replacen("# image = \"\"", &format!("image = \"{remote}\""), 1);
    assert_ne!(toml, configured, "the [kernel] section has no image line");
    workspace.write("hailer.toml", &configured);
    workspace.use_scripted_model(&model.base_url(), "chat", true, "");

    let output =
        tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Is it ready?"]));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{output:?}");
    let values: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{line:?}: {error}")))
        .collect();
    let setup: Vec<&Value> = values
        .iter()
        .filter(|value| value["event"]["type"] == "kernelSetup")
        .map(|value| &value["event"]["line"])
        .collect();
    assert!(
        setup
            .iter()
            .any(|line| line["step"]["name"] == format!("Downloading {remote}")),
        "{stdout}"
    );
    assert_eq!(
        setup.last().map(|line| line["kind"].clone()),
        Some(json!("done")),
        "{stdout}"
    );
    assert!(stdout.contains(ANSWER), "{stdout}");
    let digests = docker(&[
        "image",
        "inspect",
        "--format",
        "{{json .RepoDigests}}",
        &remote,
    ]);
    let digests: Vec<String> = serde_json::from_str(&digests).unwrap();
    let pulled = digests
        .iter()
        .find(|digest| digest.starts_with(&format!("{repository}@sha256:")))
        .unwrap_or_else(|| panic!("not pulled from {repository}: {digests:?}"));

    let trail =
        std::fs::read_to_string(workspace.path().join(".hailer/audit.jsonl")).unwrap_or_default();
    let start = trail
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|record| record["kind"] == "kernelStart")
        .unwrap_or_else(|| panic!("no kernel start recorded: {trail}"));
    assert!(
        start["detail"]
            .as_str()
            .unwrap_or_default()
            .contains(&format!("image {pulled}")),
        "{start}"
    );

    // An image that is here is not downloaded again.
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    let again = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(6*7)"]));
    assert!(again.status.success(), "{again:?}");
    let logs = workspace.home.path().join("state/logs/jobs");
    let downloads = std::fs::read_dir(&logs)
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| {
                    std::fs::read_to_string(entry.path())
                        .is_ok_and(|text| text.contains(&format!("Downloading {remote}")))
                })
                .count()
        })
        .unwrap_or(0);
    assert_eq!(downloads, 1, "{}", logs.display());
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    docker(&["image", "rm", &remote]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_whose_image_cannot_be_pulled_names_it_the_reason_and_the_ways_on() {
    let contract = hailer_kernel_bundle::contract();
    let remote = format!(
        "{}/hailer/never-published:{contract}",
        hailer_tests::prereqs::registry()
    );
    let workspace = TestWorkspace::docker();
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replacen("# image = \"\"", &format!("image = \"{remote}\""), 1),
    );
    workspace.trust();
    let failed = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    let said = String::from_utf8_lossy(&failed.stderr).into_owned();
    assert!(!failed.status.success(), "{failed:?}");
    assert!(
        said.contains(&format!("the kernel image {remote} is not published")),
        "{said}"
    );
    assert!(said.contains("docker said:"), "{said}");
    assert!(said.contains("hailer kernel build"), "{said}");
}
