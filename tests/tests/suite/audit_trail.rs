//! The audit trail as a careful user reads it: a turn's run and fetch, a `hailer exec`, each
//! with its exact code (or URL) and SHA-256 (a run recorded before it runs, and how it ended
//! after); secrets the code holds masked; an edited line named by `hailer audit verify`.

use axum::Router;
use axum::http::header;
use axum::routing::get;
use hailer_scripted_model::{Reply, Script, ScriptedModel};
use serde_json::{Value, json};
use sha2::Digest as _;

use super::agent_turns::{events, workspace_for};

fn sha256(text: &str) -> String {
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn page_server() -> u16 {
    let app = Router::new().route(
        "/guide",
        get(|| async {
            (
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                "<html><body><p>The fiscal year starts in April.</p></body></html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// The one record of `kind` whose code or URL is `text`.
fn record<'a>(records: &'a [Value], kind: &str, field: &str, text: &str) -> &'a Value {
    let found: Vec<&Value> = records
        .iter()
        .filter(|record| record["kind"] == kind && record[field] == text)
        .collect();
    assert_eq!(found.len(), 1, "{kind} {text:?} in {records:#?}");
    found[0]
}

/// The record of how the run with this digest ended (the one before it holds the code).
fn ended<'a>(records: &'a [Value], digest: &str) -> &'a Value {
    let found: Vec<&Value> = records
        .iter()
        .filter(|record| {
            record["kind"] == "exec"
                && record["sha256"] == digest
                && record.get("outcome").is_some()
        })
        .collect();
    assert_eq!(found.len(), 1, "the end of {digest} in {records:#?}");
    assert_eq!(found[0].get("code"), None, "{:#?}", found[0]);
    found[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_an_exec_and_a_fetch_are_audited_with_their_code_and_hash_and_an_edit_is_named() {
    let port = page_server().await;
    let url = format!("http://127.0.0.1:{port}/guide");
    let turn_code = "total = 6 * 7\nprint('the turn says', total)";
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": turn_code}),
        ))
        .reply(Reply::tool_call("fetch_page", json!({"url": url})))
        .reply(Reply::text("Done."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = workspace_for(&model, "chat", true);
    let toml = std::fs::read_to_string(workspace.path().join("hailer.toml")).unwrap();
    workspace.write(
        "hailer.toml",
        &toml.replace("allowed_domains = []", "allowed_domains = [\"127.0.0.1\"]"),
    );
    // A loopback address in the allow list is the user's to agree to.
    workspace.trust();

    let turn = tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Look around."]));
    assert!(turn.status.success(), "{turn:?}");
    let turn_id = events(&turn)
        .iter()
        .find(|event| event["type"] == "turnStarted")
        .and_then(|event| event["turn_id"].as_str())
        .unwrap()
        .to_owned();
    let exec_code = "print(6 * 8)";
    let exec = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", exec_code]));
    assert!(exec.status.success(), "{exec:?}");
    assert_eq!(stdout(&exec).trim(), "48");
    // A key planted in the code: the user sees what it printed, the trail never holds it.
    let planted = "sk-planted0123456789abcdef";
    let leaky = format!("key = '{planted}'\nprint(key)");
    let leak = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", &leaky]));
    assert!(leak.status.success(), "{leak:?}");
    assert_eq!(stdout(&leak).trim(), planted);

    let listed = tokio::task::block_in_place(|| workspace.hailer(&["audit", "--json"]));
    assert!(listed.status.success(), "{listed:?}");
    let records: Vec<Value> = serde_json::from_str(&stdout(&listed)).unwrap();

    let ran = record(&records, "exec", "code", turn_code);
    assert_eq!(ran["sha256"], sha256(turn_code));
    assert_eq!(ran["turn"], turn_id.as_str());
    assert_eq!(ran.get("outcome"), None, "written before the run: {ran}");
    assert_eq!(ran["notebook"], "analysis.py");
    let ran_end = ended(&records, &sha256(turn_code));
    assert!(ran_end["seq"].as_u64() > ran["seq"].as_u64());
    assert_eq!(ran_end["turn"], turn_id.as_str());
    assert_eq!(ran_end["outcome"], "ok");
    assert_eq!(ran_end["notebook"], "analysis.py");
    assert_eq!(ran_end["outputBytes"], "the turn says 42\n".len());
    let fetched = record(&records, "fetch", "url", &url);
    assert_eq!(fetched["sha256"], sha256(&url));
    assert_eq!(fetched["turn"], turn_id.as_str());
    assert_eq!(fetched["outcome"], "ok");
    let exec_record = record(&records, "exec", "code", exec_code);
    assert_eq!(exec_record["sha256"], sha256(exec_code));
    assert_eq!(exec_record["client"], "terminal");
    assert_eq!(exec_record.get("turn"), None);
    assert_eq!(ended(&records, &sha256(exec_code))["outcome"], "ok");
    let masked = record(
        &records,
        "exec",
        "code",
        "key = 'sk-[redacted]'\nprint(key)",
    );
    assert_eq!(
        masked["sha256"],
        sha256(&leaky),
        "the digest is of the code as it ran"
    );
    let started = records
        .iter()
        .find(|record| record["kind"] == "kernelStart")
        .unwrap();
    assert!(
        started["detail"]
            .as_str()
            .unwrap()
            .starts_with("unsafe-local"),
        "{started}"
    );

    let trail_path = workspace.path().join(".hailer/audit.jsonl");
    let trail = std::fs::read_to_string(&trail_path).unwrap();
    assert!(!trail.contains(planted), "{trail}");
    let runtime = workspace.runtime();
    assert!(
        !trail.contains(&runtime.token),
        "the daemon's token is in the trail"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&trail_path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // Text, newest last; --turn keeps the turn's three records.
    let text = stdout(&tokio::task::block_in_place(|| {
        workspace.hailer(&["audit"])
    }));
    let exec_at = text.find("  │ print(6 * 8)").unwrap();
    let turn_at = text.find("  │ total = 6 * 7").unwrap();
    assert!(turn_at < exec_at, "{text}");
    let of_turn =
        tokio::task::block_in_place(|| workspace.hailer(&["audit", "--json", "--turn", &turn_id]));
    let of_turn: Vec<Value> = serde_json::from_str(&stdout(&of_turn)).unwrap();
    let kinds: Vec<&str> = of_turn.iter().filter_map(|r| r["kind"].as_str()).collect();
    assert_eq!(kinds, ["exec", "exec", "fetch"]);

    let intact = tokio::task::block_in_place(|| workspace.hailer(&["audit", "verify"]));
    assert!(intact.status.success(), "{intact:?}");
    assert!(
        stdout(&intact).starts_with("The audit trail is intact: "),
        "{intact:?}"
    );

    // Someone changes what the exec ran.
    let number = trail
        .lines()
        .position(|line| line.contains("print(6 * 8)"))
        .unwrap()
        + 1;
    std::fs::write(&trail_path, trail.replace("print(6 * 8)", "print(6 * 9)")).unwrap();
    let broken = tokio::task::block_in_place(|| workspace.hailer(&["audit", "verify"]));
    assert_eq!(broken.status.code(), Some(1), "{broken:?}");
    assert_eq!(
        stdout(&broken).lines().next().unwrap(),
        format!(
            "The audit trail was tampered with: audit.jsonl line {number}: was changed: its code \
             no longer matches its SHA-256."
        )
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_since_is_refused_with_the_forms_it_takes() {
    let workspace = hailer_tests::TestWorkspace::unsafe_local();
    let output =
        tokio::task::block_in_place(|| workspace.hailer(&["audit", "--since", "yesterday"]));
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains(
            "--since \"yesterday\" is neither a duration (90s, 30m, 2h, 7d, 1w) nor a date"
        ),
        "{said}"
    );
    let none = tokio::task::block_in_place(|| workspace.hailer(&["audit"]));
    assert!(none.status.success());
    assert_eq!(stdout(&none), "No audit records yet.\n");
}
