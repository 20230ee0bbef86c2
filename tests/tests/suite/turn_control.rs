//! Controlling turns through hailerd: cancelling a streamed reply and a long kernel run, attaching
//! mid-turn, and a daemon killed mid-turn. Real unsafe-local kernel, scripted model.

use std::time::{Duration, Instant};

use hailer_scripted_model::{Reply, Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::LiveSession;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_streamed_reply_ends_the_turn_at_once_and_the_next_turn_is_valid() {
    let script = Script::new()
        .reply(
            Reply::text("word ".repeat(400))
                .in_deltas(400)
                .delta_delay(Duration::from_millis(50)),
        )
        .reply_text("Fresh answer after the cancel.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut live = LiveSession::start(&workspace).await;

    live.ask("Tell me a long story").await;
    live.until("textDelta").await;
    let asked = Instant::now();
    let (status, body) = live.post("/cancel", json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["cancelled"], true);
    let (ended, _, _) = live.until("turnCancelled").await;
    let took = ended.duration_since(asked);
    println!(
        "streamed reply: cancel to turnCancelled {} ms",
        took.as_millis()
    );
    assert!(took < Duration::from_millis(200), "took {took:?}");

    live.ask("Try again").await;
    let (_, finished, _) = live.until("turnFinished").await;
    assert_eq!(finished["text"], "Fresh answer after the cancel.");
    assert_eq!(
        model.requests().len(),
        2,
        "the strict endpoint accepted the history"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_long_kernel_run_interrupts_it_and_the_kernel_answers_at_once() {
    let marker = tempfile::tempdir().unwrap();
    let marker = marker.path().join("run-started");
    let code = format!(
        "import pathlib, time\npathlib.Path({:?}).touch()\nfor _ in range(600):\n    time.sleep(0.1)\nprint('never')",
        marker.display().to_string()
    );
    let script = Script::new()
        .reply(Reply::tool_call("marimo_execute", json!({"code": code})))
        .reply_text("After the interruption.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut live = LiveSession::start(&workspace).await;

    live.ask("Run something slow").await;
    live.until("toolCallStarted").await;
    for _ in 0..1200 {
        if marker.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(marker.exists(), "the run never reached the kernel");
    // The agent's run shows as the kernel running, to every client that asks.
    let info = workspace
        .get_json(&format!("/v1/sessions/{}", live.id))
        .await;
    assert_eq!(info["kernel"], "running", "{info}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let asked = Instant::now();
    let (status, _) = live.post("/cancel", json!({})).await;
    assert_eq!(status, 200);
    let (ended, _, seen) = live.until("turnCancelled").await;
    let took = ended.duration_since(asked);
    let ran = seen
        .iter()
        .filter(|event| event["type"] == "kernel")
        .any(|event| event["status"] == "running");
    assert!(ran, "{seen:?}");
    let info = workspace
        .get_json(&format!("/v1/sessions/{}", live.id))
        .await;
    assert_eq!(info["kernel"], "idle", "the cancelled run ended: {info}");
    println!(
        "kernel run: cancel to turnCancelled {} ms",
        took.as_millis()
    );
    assert!(took < Duration::from_millis(200), "took {took:?}");

    let exec_started = Instant::now();
    // Its own client timeout, past the bound below, so a slow answer fails the bound and says
    // how long it took rather than failing the request.
    let response = live
        .client
        .post(format!("{}/v1/sessions/{}/exec", live.base, live.id))
        .bearer_auth(&live.token)
        .timeout(Duration::from_secs(45))
        .json(&json!({"code": "print('kernel is free')", "timeoutSecs": 30}))
        .send()
        .await
        .unwrap();
    let exec_took = exec_started.elapsed();
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    assert_eq!(status, 200, "{body}");
    assert!(
        body["stdout"]
            .as_str()
            .unwrap_or("")
            .contains("kernel is free"),
        "{body}"
    );
    assert_eq!(
        body["freshKernel"], false,
        "the kernel was interrupted, not replaced: {body}"
    );
    println!("next exec after the cancel: {} ms", exec_took.as_millis());
    // The cancelled code would have run for 60 s. Alone, the kernel is free within 100 ms; on a
    // machine busy with the whole suite marimo has taken over 10 s to act on the dropped request,
    // which this bound still allows while proving the run was stopped, not waited out.
    assert!(exec_took < Duration::from_secs(25), "took {exec_took:?}");

    live.ask("And now?").await;
    let (_, finished, _) = live.until("turnFinished").await;
    assert_eq!(finished["text"], "After the interruption.");
    let requests = model.requests();
    assert_eq!(
        requests.len(),
        2,
        "the strict endpoint accepted the history"
    );
    let history = requests[1].body.to_string();
    assert!(
        history.contains("tool"),
        "the interrupted call has a result: {history}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_attaching_mid_turn_gets_the_turn_so_far_then_the_rest() {
    let text: String = (0..60).map(|i| format!("part{i} ")).collect();
    let script = Script::new().reply(
        Reply::text(text.clone())
            .in_deltas(60)
            .delta_delay(Duration::from_millis(40)),
    );
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut first = LiveSession::start(&workspace).await;
    first.ask("Count for me").await;
    for _ in 0..10 {
        first.until("textDelta").await;
    }
    let mut late = first.subscribe().await;
    let mut deltas = String::new();
    let mut kinds = Vec::new();
    loop {
        let (_, event) = tokio::time::timeout(Duration::from_secs(60), late.recv())
            .await
            .unwrap()
            .unwrap();
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        if kind == "textDelta" {
            deltas.push_str(event["delta"].as_str().unwrap());
        }
        kinds.push(kind.clone());
        if kind == "turnFinished" {
            assert_eq!(event["text"], text.as_str());
            break;
        }
    }
    assert_eq!(
        deltas, text,
        "the late client saw every piece exactly once, in order"
    );
    let started = kinds.iter().position(|k| k == "turnStarted").unwrap();
    let first_delta = kinds.iter().position(|k| k == "textDelta").unwrap();
    assert!(started < first_delta, "{kinds:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_killed_mid_turn_loses_no_completed_message() {
    let script = Script::new()
        .reply(Reply::tool_call(
            "marimo_execute",
            json!({"code": "print(40 + 2)"}),
        ))
        .reply(
            Reply::text("never finished ".repeat(200))
                .in_deltas(200)
                .delta_delay(Duration::from_millis(50)),
        )
        .reply_text("Resumed fine.");
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut live = LiveSession::start(&workspace).await;
    live.ask("Compute forty-two").await;
    live.until("toolCallFinished").await;
    live.until("textDelta").await;

    let pid = workspace.runtime().pid;
    let orphans: Vec<u32> = hailer_tests::workspace::children_of(pid);
    assert!(!orphans.is_empty(), "the kernel runs under the daemon");
    hailer_tests::daemon::signal(pid, nix::sys::signal::Signal::SIGKILL).unwrap();
    // The orphaned kernel belongs to the dead daemon; wait for the process to go.
    for _ in 0..100 {
        if nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None).is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let store = workspace.path().join(".hailer").join("threads.sqlite");
    let connection = rusqlite::Connection::open(&store).unwrap();
    let integrity: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    drop(connection);

    let run = tokio::task::block_in_place(|| workspace.hailer(&["run", "--json", "Go on"]));
    assert!(run.status.success(), "{run:?}");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(said.contains("Resumed fine."), "{said}");
    assert!(said.contains("Resumed the conversation"), "{said}");
    let requests = model.requests();
    let last = requests.last().unwrap().body.to_string();
    assert!(
        last.contains("Compute forty-two"),
        "the first question is kept: {last}"
    );
    assert!(last.contains("42"), "the tool result is kept: {last}");
    assert!(last.contains("Go on"), "{last}");

    // The new daemon ended the kernel the killed one left behind.
    // A process that ended but was not reaped yet (a zombie) counts as gone.
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .is_some_and(|state| state != "Z")
        })
    };
    for _ in 0..100 {
        if !orphans.iter().any(|pid| alive(*pid)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let left: Vec<u32> = orphans.into_iter().filter(|pid| alive(*pid)).collect();
    assert!(
        left.is_empty(),
        "kernel processes of the killed daemon still run: {left:?}"
    );
}
