//! Workspace trust end to end: a cloned workspace's hailer.toml that names a checker script and a
//! provider reading `GITHUB_TOKEN` runs nothing and sends nothing until `hailer trust`, does both
//! after it, and refuses the one setting that changes while the others still apply.

use std::process::Output;

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use serde_json::json;

const GITHUB_TOKEN: &str = "ghp_planted0123456789abcdefghijklmnop";

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A checker that leaves `marker` behind when it runs, then reports nothing.
fn write_checker(workspace: &TestWorkspace, relative: &str, marker: &str) {
    let marker = workspace.path().join(marker);
    workspace.write(
        relative,
        &format!("#!/bin/sh\ntouch '{}'\necho '[]'\n", marker.display()),
    );
    use std::os::unix::fs::PermissionsExt;
    let path = workspace.path().join(relative);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The cloned repository's settings: provider `gh` at the scripted server, ruff = `checker`.
fn write_cloned_config(workspace: &TestWorkspace, original: &str, base_url: &str, checker: &str) {
    let toml = original
        .replace("[model]\n", "[model]\nprovider = \"gh\"\n")
        .replacen(
            "\n[checks]\n",
            &format!("\n[checks]\nruff = \"{checker}\"\n"),
            1,
        );
    workspace.write(
        "hailer.toml",
        &format!(
            "{toml}\n[model_providers.gh]\nbase_url = \"{base_url}\"\nenv_key = \"GITHUB_TOKEN\"\nwire_api = \"chat\"\n"
        ),
    );
}

fn ask(workspace: &TestWorkspace) -> Output {
    tokio::task::block_in_place(|| workspace.hailer(&["run", "Work on it."]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cloned_config_runs_and_sends_nothing_until_trusted_and_again_nothing_after_a_change() {
    let code = "import marimo._code_mode as cm\nasync with cm.get_context() as ctx:\n    ctx.create_cell('value = 1 + 1', name='two')\n";
    let script = Script::new()
        .reply(Reply::tool_call("marimo_execute", json!({"code": code})))
        .reply(Reply::text("Done."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::unsafe_local_with_env(vec![(
        "GITHUB_TOKEN".to_owned(),
        GITHUB_TOKEN.to_owned(),
    )]);
    write_checker(&workspace, "tools/x.sh", "ran-x");
    write_checker(&workspace, "tools/y.sh", "ran-y");
    let original = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    write_cloned_config(&workspace, &original, &model.base_url(), "tools/x.sh");

    // Before `hailer trust`: the session starts without those settings and says so.
    let refused = ask(&workspace);
    let said = text(&refused);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("[checks] ruff runs tools/x.sh on this machine"),
        "{said}"
    );
    assert!(
        said.contains("[model_providers.gh] sends your requests and the value of GITHUB_TOKEN"),
        "{said}"
    );
    // The runtime `hailer init --kernel unsafe-local` wrote stays trusted: editing other
    // settings never revokes it.
    assert!(!said.contains("[kernel] runtime"), "{said}");
    assert!(said.contains("run `hailer trust` here"), "{said}");
    assert!(said.contains("the provider 'gh' is declared in"), "{said}");
    assert!(
        model.requests().is_empty(),
        "a request reached the endpoint before trust"
    );
    assert!(
        !workspace.path().join("ran-x").exists(),
        "the checker ran before trust"
    );
    let show = workspace.hailer(&["trust", "--show"]);
    assert!(
        text(&show).contains("not trusted: these settings"),
        "{}",
        text(&show)
    );
    let doctor = workspace.hailer(&["doctor"]);
    assert!(
        text(&doctor).contains(": not applied: [checks] ruff, [model_providers.gh]"),
        "{}",
        text(&doctor)
    );

    // After it: the key goes to the endpoint and the checker runs.
    let trusted = workspace.hailer(&["trust", "--yes"]);
    assert!(trusted.status.success(), "{}", text(&trusted));
    assert!(
        text(&trusted).contains("[checks] ruff runs tools/x.sh on this machine"),
        "{}",
        text(&trusted)
    );
    let answered = ask(&workspace);
    assert!(answered.status.success(), "{}", text(&answered));
    assert!(text(&answered).contains("Done."), "{}", text(&answered));
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {GITHUB_TOKEN}").as_str())
    );
    assert!(
        workspace.path().join("ran-x").exists(),
        "the trusted checker did not run"
    );
    let doctor = workspace.hailer(&["doctor"]);
    assert!(
        text(&doctor).contains("trusted ([checks] ruff, [kernel] runtime, [model_providers.gh])"),
        "{}",
        text(&doctor)
    );

    // The same checker path with other content (a `git pull`) asks again for it: the new script
    // never runs, while the trusted provider still answers.
    std::fs::remove_file(workspace.path().join("ran-x")).unwrap();
    write_checker(&workspace, "tools/x.sh", "ran-pulled");
    model.push(
        Script::new()
            .reply(Reply::tool_call("marimo_execute", json!({"code": code})))
            .reply(Reply::text("Done after the pull.")),
    );
    let pulled = ask(&workspace);
    let said = text(&pulled);
    assert!(pulled.status.success(), "{said}");
    assert!(said.contains("Done after the pull."), "{said}");
    assert!(
        said.contains("[checks] ruff runs tools/x.sh on this machine; it is not applied: it changed since you trusted this file"),
        "{said}"
    );
    assert!(!said.contains("[model_providers.gh] sends"), "{said}");
    assert_eq!(model.requests().len(), 4);
    assert!(
        !workspace.path().join("ran-pulled").exists(),
        "the changed script ran"
    );
    assert!(!workspace.path().join("ran-x").exists());

    // A changed checker path asks again for it: the new script never runs.
    model.push(
        Script::new()
            .reply(Reply::tool_call("marimo_execute", json!({"code": code})))
            .reply(Reply::text("Done again.")),
    );
    write_cloned_config(&workspace, &original, &model.base_url(), "tools/y.sh");
    let changed = ask(&workspace);
    let said = text(&changed);
    assert!(changed.status.success(), "{said}");
    assert!(
        said.contains("[checks] ruff runs tools/y.sh on this machine; it is not applied: it changed since you trusted this file"),
        "{said}"
    );
    assert!(
        !workspace.path().join("ran-y").exists(),
        "the changed checker ran"
    );
    let _ = workspace.hailer(&["daemon", "stop"]);

    // Every decision is in the audit trail, once each, in order.
    let trail = std::fs::read_to_string(workspace.path().join(".hailer/audit.jsonl")).unwrap();
    let decisions: Vec<String> = trail
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|entry| entry["kind"] == "trust")
        .filter_map(|entry| entry["detail"].as_str().map(str::to_owned))
        .collect();
    let starts: Vec<&str> = decisions
        .iter()
        .map(|detail| detail.split(" the settings of ").next().unwrap_or_default())
        .collect();
    assert_eq!(
        starts,
        ["refused", "applies", "refused", "refused"],
        "{decisions:#?}"
    );
    assert!(
        decisions[1].ends_with("[checks] ruff, [kernel] runtime, [model_providers.gh]"),
        "{decisions:#?}"
    );
    assert!(decisions[2].ends_with(": [checks] ruff"), "{decisions:#?}");
}

#[test]
fn hailer_trust_refuses_what_it_cannot_judge_with_a_clear_error() {
    // No workspace configuration at all.
    let empty = TestWorkspace::empty(Vec::new());
    let output = empty.hailer(&["trust"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("there is no hailer.toml in")
            && text(&output).contains("nothing to trust"),
        "{}",
        text(&output)
    );

    // A file that cannot be read as a configuration.
    empty.write("hailer.toml", "");
    std::fs::write(
        empty.path().join("hailer.toml"),
        b"[checks]\nruff = \"\xff\"\n",
    )
    .unwrap();
    let output = empty.hailer(&["trust"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("cannot be loaded, so it cannot be trusted"),
        "{}",
        text(&output)
    );
    assert!(text(&output).contains("not UTF-8"), "{}", text(&output));

    // A --config that does not exist.
    let output = empty.hailer(&["--config", "missing.toml", "trust"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("missing.toml does not exist"),
        "{}",
        text(&output)
    );

    // Nothing to trust is said as such, and recorded as nothing.
    empty.write("hailer.toml", "[model]\nname = \"m\"\n");
    let output = empty.hailer(&["trust"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("needs trust"), "{}", text(&output));

    // Revoking what was never trusted changes nothing.
    let output = empty.hailer(&["trust", "--revoke"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        text(&output).contains("was not trusted; nothing changed"),
        "{}",
        text(&output)
    );
}
