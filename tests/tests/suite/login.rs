//! `hailer login` and `hailer logout` through hailerd: the stored key is used by the next session
//! and forgotten after logout; bad keys and unknown providers are refused and change nothing.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::process::{Output, Stdio};

use hailer_scripted_model::{Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use serde_json::{Value, json};

const KEY: &str = "sk-stored-4c1d8e2f9a";

/// A workspace whose model key is not in the client's environment and is kept in the file store
/// (headless machines have no OS credential store).
fn workspace_for(model: &ScriptedModel) -> TestWorkspace {
    let workspace = TestWorkspace::unsafe_local();
    workspace.use_scripted_model(
        &model.base_url(),
        "chat",
        true,
        "credentials_store = \"file\"\n",
    );
    workspace
}

fn with_stdin(workspace: &TestWorkspace, args: &[&str], input: &str) -> Output {
    let mut child = workspace
        .command(args)
        .env_remove("SCRIPTED_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

use hailer_tests::output_text as text;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_key_is_used_by_the_next_session_and_forgotten_after_logout() {
    let model = ScriptedModel::start(
        Script::new()
            .reply_text("Stored keys work.")
            .reply_text("x"),
    )
    .await
    .unwrap();
    let workspace = workspace_for(&model);

    let login = tokio::task::block_in_place(|| {
        with_stdin(&workspace, &["login", "scripted"], &format!("  {KEY}\n"))
    });
    assert!(login.status.success(), "{}", text(&login));
    assert!(
        text(&login).contains("Stored the key for provider 'scripted' in the key file"),
        "{}",
        text(&login)
    );
    let file = workspace
        .home
        .path()
        .join("config")
        .join("credentials")
        .join("credentials.json");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}", file.display());

    let run = tokio::task::block_in_place(|| {
        workspace
            .command(&["run", "Say something"])
            .env_remove("SCRIPTED_KEY")
            .output()
            .unwrap()
    });
    assert!(run.status.success(), "{}", text(&run));
    assert!(text(&run).contains("Stored keys work."), "{}", text(&run));
    let requests = model.requests();
    assert_eq!(
        requests[0].bearer_token(),
        Some(KEY),
        "the trimmed stored key is sent"
    );

    let logout = tokio::task::block_in_place(|| {
        workspace.command(&["logout", "scripted"]).output().unwrap()
    });
    assert!(logout.status.success(), "{}", text(&logout));
    assert!(
        text(&logout).contains("Removed the stored key of provider 'scripted'"),
        "{}",
        text(&logout)
    );
    let again = tokio::task::block_in_place(|| {
        workspace.command(&["logout", "scripted"]).output().unwrap()
    });
    assert!(
        text(&again).contains("No key was stored"),
        "{}",
        text(&again)
    );

    // The key reached neither the daemon's log nor any process's arguments.
    assert!(!workspace.daemon_log().contains(KEY));
    assert!(!hailer_tests::workspace::all_command_lines().contains(KEY));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_keys_and_unknown_providers_are_refused_and_nothing_is_stored() {
    let model = ScriptedModel::start(Script::new()).await.unwrap();
    let workspace = workspace_for(&model);

    let empty = tokio::task::block_in_place(|| with_stdin(&workspace, &["login"], "\n"));
    assert!(!empty.status.success());
    assert!(text(&empty).contains("no key given"), "{}", text(&empty));

    let unknown = tokio::task::block_in_place(|| {
        with_stdin(&workspace, &["login", "nonesuch"], "sk-whatever\n")
    });
    assert!(!unknown.status.success());
    assert!(
        text(&unknown).contains("no provider 'nonesuch'") && text(&unknown).contains("scripted"),
        "{}",
        text(&unknown)
    );

    // Straight at the API: keys with line breaks or control characters, oversized keys, and
    // malformed bodies.
    let (client, base, token) = workspace.api();
    let cwd = workspace.path().display().to_string();
    let hostile = [
        json!({"cwd": cwd, "provider": "scripted", "key": "first\nsecond"}),
        json!({"cwd": cwd, "provider": "scripted", "key": "sk-\u{7}bell"}),
        json!({"cwd": cwd, "provider": "scripted", "key": "k".repeat(5000)}),
        json!({"cwd": cwd, "provider": "scripted", "key": "   "}),
        json!({"cwd": "relative/folder", "provider": "scripted", "key": "sk-1"}),
        json!({"cwd": cwd, "provider": "scripted"}),
        json!({"cwd": cwd, "provider": "scripted", "key": 12}),
        json!({"provider": "scripted", "key": "sk-1"}),
    ];
    for body in hostile {
        let response = client
            .post(format!("{base}/v1/credentials/login"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let reply: Value = response.json().await.unwrap_or(Value::Null);
        assert_eq!(status, 400, "{body}: {reply}");
        assert!(
            reply["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}: {reply}"
        );
        let said = reply.to_string();
        assert!(!said.contains("sk-1") && !said.contains("bell"), "{said}");
    }
    let unauthenticated = client
        .post(format!("{base}/v1/credentials/login"))
        .json(&json!({"cwd": cwd, "provider": "scripted", "key": "sk-1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthenticated.status(), 401);

    let folder = workspace.home.path().join("config").join("credentials");
    assert!(
        !folder.join("credentials.json").exists(),
        "nothing was stored"
    );
}
