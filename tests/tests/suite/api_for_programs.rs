//! The API as a program uses it, with nothing but HTTP: an answer that waits for the turn, the
//! same turn as server-sent events, the JSON error body on every refusal, a standard
//! WebSocket client, and the OpenAPI document checked by a validator and by schemathesis
//! against a live daemon.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestDaemon;
use hailer_tests::daemon::http_client;
use hailer_tests::workspace::{SCRIPTED_KEY, SCRIPTED_KEY_VARIABLE};
use hailer_tests::{TestWorkspace, bins, prereqs};
use reqwest::StatusCode;
use serde_json::{Value, json};

const ANSWER: &str = "Six times seven is 42, computed in the kernel.";

/// A model that, `turns` times, runs one cell and answers.
fn one_tool_script(turns: usize) -> Script {
    let mut script = Script::new();
    for _ in 0..turns {
        script = script
            .reply(Reply::tool_call(
                "marimo_execute",
                json!({"code": "print(6 * 7)"}),
            ))
            .reply(Reply::text(ANSWER).in_deltas(4));
    }
    script
}

/// The repository's Python example, run with the test tools' Python as a user's script would
/// run: `hailer` on `PATH`, the key in its environment, the workspace as its folder.
fn run_example(workspace: &TestWorkspace, extra: &[&str], question: &str) -> Output {
    let example = repository().join("docs/examples/ask_over_http.py");
    let bin_dir = bins::path("hailer")
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(prereqs::kernel_venv().join("bin/python"));
    command
        .arg(example)
        .args(["--key-variable", SCRIPTED_KEY_VARIABLE, "--folder"])
        .arg(workspace.path())
        .args(extra)
        .arg(question);
    workspace.as_the_user(&mut command);
    command
        .env("PATH", path)
        .output()
        .unwrap_or_else(|error| panic!("cannot run the example: {error}"))
}

/// A loopback client that waits as long as a turn may take (a first kernel start included).
fn patient_client() -> reqwest::Client {
    hailer_tests::daemon::http_client_waiting(std::time::Duration::from_secs(300))
}

pub(super) fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_waits_answers_over_plain_http() {
    let model = ScriptedModel::start(one_tool_script(2)).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let output =
        tokio::task::block_in_place(|| run_example(&workspace, &[], "What is six times seven?"));
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), ANSWER, "{stderr}");
    assert!(
        stderr.contains("[marimo_execute: ok]") && stderr.contains("print(6 * 7)"),
        "{stderr}"
    );
    assert!(stderr.contains("Notebook: "), "{stderr}");
    // The key went with the request, as a credential only.
    let requests = model.requests();
    assert_eq!(requests[0].bearer_token(), Some(SCRIPTED_KEY));

    // The same kind of request by hand: the whole turn in one reply.
    let (_, base, token) = workspace.api();
    let client = patient_client();
    let started = workspace
        .post_json(
            "/v1/sessions",
            &json!({"cwd": workspace.path(), "client": "api",
                    "env": {SCRIPTED_KEY_VARIABLE: SCRIPTED_KEY}}),
        )
        .await;
    let id = started["session"]["id"].as_str().unwrap();
    let reply: Value = client
        .post(format!("{base}/v1/sessions/{id}/turns"))
        .bearer_auth(&token)
        .json(&json!({"text": "And once more?", "wait": true}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let result = &reply["result"];
    assert_eq!(result["outcome"], "finished", "{reply}");
    assert_eq!(result["answer"], ANSWER);
    let call = &result["toolCalls"][0];
    assert_eq!(call["name"], "marimo_execute");
    assert_eq!(call["ok"], true, "{call}");
    assert_eq!(call["code"], "print(6 * 7)");
    assert!(call["result"].as_str().unwrap().contains("42"), "{call}");
    assert!(result["usage"].is_object(), "{result}");
    let notebook = result["notebook"].as_str().unwrap();
    assert!(Path::new(notebook).is_file(), "{notebook}");
    assert_eq!(reply["turnId"].as_str().map(str::len), Some(16), "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_turn_streams_as_server_sent_events() {
    let model = ScriptedModel::start(one_tool_script(1)).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let output = tokio::task::block_in_place(|| {
        run_example(&workspace, &["--stream"], "What is six times seven?")
    });
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(output.status.success(), "{stdout}\n{stderr}");
    // The deltas, printed as they came, add up to the answer.
    assert_eq!(stdout.trim(), ANSWER, "{stderr}");
    assert!(stderr.contains("[marimo_execute]"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_sent_events_carry_numbered_envelopes_and_end_with_the_turn() {
    let model = ScriptedModel::start(one_tool_script(1)).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let (_, base, token) = tokio::task::block_in_place(|| {
        let up = workspace.hailer(&["daemon", "start"]);
        assert!(up.status.success(), "{up:?}");
        workspace.api()
    });
    let client = patient_client();
    let started = workspace
        .post_json(
            "/v1/sessions",
            &json!({"cwd": workspace.path(), "env": {SCRIPTED_KEY_VARIABLE: SCRIPTED_KEY}}),
        )
        .await;
    let id = started["session"]["id"].as_str().unwrap();
    let reply = client
        .post(format!("{base}/v1/sessions/{id}/turns"))
        .bearer_auth(&token)
        .header("Accept", "text/event-stream")
        .json(&json!({"text": "What is six times seven?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), StatusCode::OK);
    assert!(
        reply.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    // The reply ends by itself when the turn does: reading it to the end returns.
    let body = reply.text().await.unwrap();
    let mut ids = Vec::new();
    let mut kinds = Vec::new();
    for block in body.split("\n\n").filter(|block| !block.trim().is_empty()) {
        for line in block.lines() {
            if let Some(id) = line.strip_prefix("id:") {
                ids.push(id.trim().parse::<u64>().unwrap());
            } else if let Some(data) = line.strip_prefix("data:") {
                let envelope: Value = serde_json::from_str(data.trim()).unwrap();
                kinds.push(envelope["event"]["type"].as_str().unwrap().to_owned());
            }
        }
    }
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
    // The stream starts when the request is taken: the session's own notices and kernel
    // states may come before the turn starts (a kernel still starting says so), nothing else.
    let started_at = kinds
        .iter()
        .position(|kind| kind == "turnStarted")
        .unwrap_or_else(|| panic!("no turnStarted: {kinds:?}"));
    assert!(
        kinds[..started_at]
            .iter()
            .all(|kind| kind == "notice" || kind == "kernel"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("turnFinished"),
        "{kinds:?}"
    );
    assert!(
        kinds.iter().any(|kind| kind == "toolCallFinished"),
        "{kinds:?}"
    );
}

/// An authenticated request with a raw body; the status and the JSON body of the reply.
async fn raw(
    daemon: &TestDaemon,
    method: &str,
    path: &str,
    auth: &str,
    body: Option<&str>,
) -> (StatusCode, Value) {
    let mut request = http_client()
        .request(method.parse().unwrap(), daemon.url(path))
        .header("Authorization", auth);
    if let Some(body) = body {
        request = request
            .header("Content-Type", "application/json")
            .body(body.to_owned());
    }
    let reply = request.send().await.unwrap();
    let status = reply.status();
    let text = reply.text().await.unwrap();
    let value = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{method} {path}: not a JSON body: {status} {text:?}"));
    (status, value)
}

#[tokio::test]
async fn every_refusal_is_the_json_error_body_and_the_schema_is_what_is_enforced() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let bearer = format!("Bearer {}", daemon.token());
    let cases: [(&str, &str, Option<&str>, u16, &str); 9] = [
        // A method the route does not take.
        ("DELETE", "/v1/daemon", None, 405, "method_not_allowed"),
        ("PUT", "/v1/sessions", Some("{}"), 405, "method_not_allowed"),
        // WebSocket routes asked without an upgrade.
        ("GET", "/v1/events", None, 400, "upgrade_required"),
        (
            "GET",
            "/v1/sessions/nope/events?after=-1",
            None,
            400,
            "bad_request",
        ),
        // A field the route does not know.
        (
            "POST",
            "/v1/sessions",
            Some(r#"{"cwd": "/tmp", "colour": "blue"}"#),
            400,
            "bad_request",
        ),
        ("GET", "/v1/no-such-route", None, 404, "not_found"),
        // A whole number written with a fraction is a whole number: the body is taken, and the
        // session is what is missing.
        (
            "POST",
            "/v1/sessions/nope/exec",
            Some(r#"{"code": "1", "timeoutSecs": 377.0}"#),
            404,
            "not_found",
        ),
        (
            "POST",
            "/v1/sessions/nope/exec",
            Some(r#"{"code": "1", "timeoutSecs": 377.5}"#),
            400,
            "bad_request",
        ),
        // A token path with a NUL character names no file: refused, not a failed probe.
        (
            "POST",
            "/v1/sessions/nope/probe",
            Some(r#"{"tokenPaths": ["/tmp/a\u0000b"]}"#),
            400,
            "bad_request",
        ),
    ];
    for (method, path, body, status, code) in cases {
        let (got, value) = raw(&daemon, method, path, &bearer, body).await;
        assert_eq!(got.as_u16(), status, "{method} {path}: {value}");
        assert_eq!(value["code"], code, "{method} {path}: {value}");
        assert!(value["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    // The scheme of `Authorization` is matched in any case, as HTTP requires.
    let lower = format!("bearer {}", daemon.token());
    let (got, value) = raw(&daemon, "GET", "/v1/daemon", &lower, None).await;
    assert_eq!(got, StatusCode::OK, "{value}");
}

/// Every path of the document, asked with each method it does not take, answers 405 with an
/// `Allow` header and the JSON error body, as the document's description and its
/// `MethodNotAllowed` response say.
#[tokio::test]
async fn every_path_answers_a_method_it_does_not_take_with_405_and_the_json_error_body() {
    let document: Value = serde_json::from_str(
        &std::fs::read_to_string(repository().join("docs/openapi.json")).unwrap(),
    )
    .unwrap();
    let stated = &document["components"]["responses"]["MethodNotAllowed"];
    assert_eq!(
        stated["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/ErrorBody",
        "{stated}"
    );
    assert!(stated["headers"]["Allow"].is_object(), "{stated}");
    assert!(
        document["info"]["description"]
            .as_str()
            .unwrap()
            .contains("MethodNotAllowed")
    );

    let daemon = TestDaemon::start(&[]).unwrap();
    let bearer = format!("Bearer {}", daemon.token());
    let paths = document["paths"].as_object().unwrap();
    let mut asked = 0;
    for (path, item) in paths {
        let path_here = path.replace("{id}", "s_000000000000");
        let taken: Vec<String> = item
            .as_object()
            .unwrap()
            .keys()
            .map(|method| method.to_uppercase())
            .collect();
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] {
            if taken.iter().any(|taken| taken == method) {
                continue;
            }
            let reply = http_client()
                .request(method.parse().unwrap(), daemon.url(&path_here))
                .header("Authorization", &bearer)
                .send()
                .await
                .unwrap();
            let status = reply.status();
            let allow = reply
                .headers()
                .get("allow")
                .map(|value| value.to_str().unwrap().to_owned());
            let text = reply.text().await.unwrap();
            let body: Value = serde_json::from_str(&text)
                .unwrap_or_else(|_| panic!("{method} {path}: not JSON: {status} {text:?}"));
            assert_eq!(
                status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path}: {body}"
            );
            assert_eq!(
                body["code"], "method_not_allowed",
                "{method} {path}: {body}"
            );
            assert!(
                body["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{method} {path}: {body}"
            );
            let allow = allow.unwrap_or_else(|| panic!("{method} {path}: no Allow header"));
            for taken in &taken {
                assert!(
                    allow.contains(taken.as_str()),
                    "{method} {path}: Allow {allow}"
                );
            }
            asked += 1;
        }
    }
    // Every path was asked something: 5 methods a path, minus those the paths take.
    let operations: usize = paths
        .values()
        .map(|item| item.as_object().unwrap().len())
        .sum();
    assert_eq!(asked, paths.len() * 5 - operations);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standard_websocket_client_offering_only_the_token_protocol_is_answered_with_it() {
    let daemon = TestDaemon::start(&[]).unwrap();
    let script = r#"
import asyncio, json, sys
from websockets.asyncio.client import connect

async def main(url, token):
    protocol = "hailer.token." + token
    async with connect(url, subprotocols=[protocol]) as socket:
        hello = json.loads(await socket.recv())
        print(socket.subprotocol == protocol, hello["event"]["type"])
    async with connect(url, subprotocols=["hailer.v1", protocol]) as socket:
        print(socket.subprotocol)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"#;
    let url = format!("{}/v1/events", daemon.base_url().replacen("http", "ws", 1));
    let output = tokio::task::block_in_place(|| {
        Command::new(prereqs::api_venv().join("bin/python"))
            .args(["-c", script, &url, daemon.token()])
            .output()
            .unwrap()
    });
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        ["True hello", "hailer.v1"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_is_valid_and_schemathesis_finds_nothing_against_a_live_daemon() {
    let venv = prereqs::api_venv();
    let document = repository().join("docs/openapi.json");
    let validated = tokio::task::block_in_place(|| {
        Command::new(venv.join("bin/openapi-spec-validator"))
            .arg(&document)
            .output()
            .unwrap()
    });
    assert!(
        validated.status.success(),
        "{}{}",
        String::from_utf8_lossy(&validated.stdout),
        String::from_utf8_lossy(&validated.stderr)
    );

    let daemon = TestDaemon::start(&[]).unwrap();
    let target = Target {
        base_url: daemon.base_url(),
        token: daemon.token().to_owned(),
        scratch: daemon.log_dir(),
        session: None,
    };
    let output = tokio::task::block_in_place(|| {
        schemathesis(&venv, &target, &document, DAEMON_EXCLUDED)
            .output()
            .unwrap()
    });
    let report = hailer_tests::output_text(&output);
    assert!(output.status.success(), "{report}");
    assert!(report.contains("passed"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_nothing_on_the_routes_of_a_live_session() {
    let venv = prereqs::api_venv();
    let document = repository().join("docs/openapi.json");
    let model = ScriptedModel::start(Script::new()).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let started = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print(1)"]));
    assert!(started.status.success(), "{started:?}");
    let id = workspace.get_json("/v1/sessions").await["sessions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, base_url, token) = workspace.api();
    let scratch = tempfile::tempdir().unwrap();
    let target = Target {
        base_url,
        token,
        scratch: scratch.path().to_path_buf(),
        session: Some(id.clone()),
    };
    let output = tokio::task::block_in_place(|| {
        schemathesis(&venv, &target, &document, SESSION_EXCLUDED)
            .args(["--include-path-regex", "^/v1/sessions/\\{id\\}"])
            .output()
            .unwrap()
    });
    let report = hailer_tests::output_text(&output);
    // The session lived through it, and schemathesis reached its routes.
    let session = workspace.get_json(&format!("/v1/sessions/{id}")).await;
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(output.status.success(), "{report}");
    assert!(report.contains("passed"), "{report}");
    assert_eq!(session["id"], id.as_str(), "{session}");
}

/// Where schemathesis sends its requests.
pub(super) struct Target {
    pub(super) base_url: String,
    pub(super) token: String,
    /// Its caches and Hypothesis's examples go here, not into the checkout.
    pub(super) scratch: PathBuf,
    /// The session every `{id}` names; schemathesis makes ids up when there is none.
    pub(super) session: Option<String>,
}

/// Operations left out against a bare daemon: those that act on the machine or end the daemon
/// (building and pulling images, installing environments, storing keys, stopping kernels,
/// shutting down), the session start, whose folder would be any path schemathesis makes up
/// (`api_for_programs_sandbox` fuzzes it with its folders confined), and the WebSocket routes,
/// which it cannot speak.
const DAEMON_EXCLUDED: &[&str] = &[
    "buildKernelImage",
    "pullKernelImage",
    "installLocalEnvironment",
    "stopWorkspaceKernels",
    "shutdownDaemon",
    "login",
    "logout",
    "startSession",
    "followDaemonEvents",
    "followSessionEvents",
    "followKernelLog",
];

/// Operations left out against this test's unsafe-local session: those that would run made-up
/// code in its kernel (a run, a turn and the isolation probe, which `api_for_programs_sandbox`
/// fuzzes in a sandbox kernel, and an MCP call) or end the session, and the WebSocket routes.
const SESSION_EXCLUDED: &[&str] = &[
    "execCode",
    "startTurn",
    "probe",
    "mcp_message",
    "stopSession",
    "followSessionEvents",
    "followKernelLog",
];

/// `st run` against the daemon: a bounded number of examples per operation, every default
/// check, leaving out the operations `excluded` names.
pub(super) fn schemathesis(
    venv: &Path,
    target: &Target,
    document: &Path,
    excluded: &[&str],
) -> Command {
    let mut command = Command::new(venv.join("bin/st"));
    let config = if target.session.is_some() {
        "tests/schemathesis-session.toml"
    } else {
        "tests/schemathesis.toml"
    };
    command
        .arg("--config-file")
        .arg(repository().join(config))
        .arg("run")
        .arg(document)
        .args(["--url", &target.base_url])
        .args([
            "--header",
            &format!("Authorization: Bearer {}", target.token),
        ])
        .args(["--max-examples", "30", "--seed", "1", "--no-color"])
        .args(["--request-timeout", "30"])
        .current_dir(&target.scratch)
        .env(
            "HYPOTHESIS_STORAGE_DIRECTORY",
            target.scratch.join("hypothesis"),
        );
    if let Some(id) = &target.session {
        command.env("HAILER_TEST_SESSION_ID", id);
    }
    for operation in excluded {
        command.args(["--exclude-operation-id", operation]);
    }
    command
}
