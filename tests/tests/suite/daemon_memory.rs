//! hailerd gives memory back after a burst: 1,500 WebSocket clients follow a session's events
//! and leave, and the daemon's resident size returns to within 20 MB of where it was; a run that
//! prints without end costs it a bounded amount while it runs.

use std::time::Duration;

use futures_util::StreamExt as _;
use hailer_scripted_model::{Script, ScriptedModel};
use hailer_tests::TestWorkspace;
use hailer_tests::live::LiveSession;
use hailer_tests::system::resident_kib;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::http::HeaderValue;

const CLIENTS: usize = 1_500;
/// Clients connecting at once.
const BATCH: usize = 100;
const ALLOWED_GROWTH_KIB: u64 = 20 * 1024;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// One client following the session, once the daemon has sent it the session and the
/// conversation so far.
async fn follow(live: &LiveSession) -> Socket {
    let url = format!(
        "{}/v1/sessions/{}/events",
        live.base.replace("http://", "ws://"),
        live.id
    );
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert(
        "Authorization",
        HeaderValue::from_str(&format!("Bearer {}", live.token)).unwrap(),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    for expected in ["attached", "history"] {
        let message = tokio::time::timeout(Duration::from_secs(60), socket.next())
            .await
            .unwrap_or_else(|_| panic!("no {expected} event"))
            .unwrap()
            .unwrap();
        assert!(
            message
                .to_text()
                .unwrap()
                .contains(&format!(r#""type":"{expected}""#)),
            "{message:?}"
        );
    }
    socket
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_returns_after_a_burst_of_event_stream_clients() {
    let model = ScriptedModel::start(Script::new().reply_text("An answer for the history."))
        .await
        .unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let mut live = LiveSession::start(&workspace).await;
    live.ask("A question").await;
    live.until("turnFinished").await;
    let pid = workspace.runtime().pid;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let start = resident_kib(pid);

    let mut sockets = Vec::with_capacity(CLIENTS);
    while sockets.len() < CLIENTS {
        let batch = futures_util::future::join_all((0..BATCH).map(|_| follow(&live))).await;
        sockets.extend(batch);
    }
    let peak = resident_kib(pid);
    let clients = workspace.get_json("/v1/daemon").await["clients"].clone();
    assert!(clients.as_u64().unwrap() > CLIENTS as u64, "{clients}");

    for batch in sockets.chunks_mut(BATCH) {
        futures_util::future::join_all(batch.iter_mut().map(|socket| socket.close(None))).await;
    }
    drop(sockets);
    // The daemon counts them gone, then gives the memory back once things are quiet.
    for _ in 0..100 {
        if workspace.get_json("/v1/daemon").await["clients"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let end = resident_kib(pid);
    println!(
        "hailerd RSS: {} MB at the start, {} MB with {CLIENTS} clients, {} MB after they left",
        start / 1024,
        peak / 1024,
        end / 1024
    );
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(
        end <= start + ALLOWED_GROWTH_KIB,
        "RSS went from {start} KiB to {end} KiB (peak {peak} KiB)"
    );
}

/// The growth three 10 MB outputs may leave behind.
const ALLOWED_GROWTH_AFTER_OUTPUTS_KIB: u64 = 15 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_returns_after_a_turn_with_three_ten_megabyte_outputs() {
    use hailer_scripted_model::Reply;
    let big = serde_json::json!({"code": "print('x' * 10_000_000)"});
    let script = Script::new()
        // The first turn runs the same path with a small output: the kernel is up and the
        // daemon's pools are warm before the measure starts.
        .reply(Reply::tool_call(
            "marimo_execute",
            serde_json::json!({"code": "print('x' * 100_000)"}),
        ))
        .reply(Reply::text("Warm."))
        .reply(Reply::tool_call("marimo_execute", big.clone()))
        .reply(Reply::tool_call("marimo_execute", big.clone()))
        .reply(Reply::tool_call("marimo_execute", big))
        .reply(Reply::text("Three large outputs."));
    let model = ScriptedModel::start(script).await.unwrap();
    let workspace = TestWorkspace::scripted(&model.base_url());
    let run = |question: &str| {
        let output = tokio::task::block_in_place(|| workspace.hailer(&["run", question]));
        assert!(
            output.status.success(),
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert!(run("Warm up.").contains("Warm."));
    let pid = workspace.runtime().pid;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let start = resident_kib(pid);
    assert!(run("Print a lot.").contains("Three large outputs."));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let end = resident_kib(pid);
    println!(
        "hailerd RSS: {} MB before a turn with three 10 MB outputs, {} MB after it",
        start / 1024,
        end / 1024
    );
    // The model was handed each output capped, never the 10 MB.
    let requests = model.requests();
    let longest = requests
        .iter()
        .flat_map(hailer_scripted_model::RecordedRequest::conversation)
        .filter(|message| message["role"] == "tool")
        .map(|message| message["content"].as_str().unwrap_or_default().len())
        .max()
        .unwrap();
    assert!(longest < 100_000, "a tool result of {longest} bytes");
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(
        end <= start + ALLOWED_GROWTH_AFTER_OUTPUTS_KIB,
        "RSS went from {start} KiB to {end} KiB"
    );
}

/// What a run that prints 100 MB may add to the daemon's size while it runs: what is kept of one
/// run's output (16 MiB a stream), the reply made of it, and the reading buffers.
const ALLOWED_PEAK_WHILE_PRINTING_KIB: u64 = 100 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_prints_a_hundred_megabytes_is_kept_within_a_bound() {
    let workspace = TestWorkspace::unsafe_local();
    let warm = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", "print('warm')"]));
    assert!(warm.status.success(), "{warm:?}");
    let pid = workspace.runtime().pid;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let start = resident_kib(pid);
    let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let sampling = std::sync::Arc::clone(&sampling);
        std::thread::spawn(move || {
            let mut peak = 0;
            while sampling.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(resident_kib(pid));
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        })
    };
    let code = "import sys\nfor n in range(100):\n    sys.stdout.write(f'line {n} ' + 'x' * 1_000_000 + '\\n')\nprint('the last line')";
    let printed = tokio::task::block_in_place(|| workspace.hailer(&["exec", "-c", code]));
    sampling.store(false, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().unwrap();
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    println!(
        "hailerd RSS: {} MB before a run printing 100 MB, {} MB at its peak; {} MB printed",
        start / 1024,
        peak / 1024,
        stdout.len() / 1_000_000
    );
    // The start, a note of what was left out, and the end reach the user.
    assert!(
        stdout.starts_with("line 0 xxx"),
        "{}",
        &stdout[..80.min(stdout.len())]
    );
    assert!(stdout.contains("MB of output left out here"));
    assert!(stdout.trim_end().ends_with("the last line"));
    assert!(stdout.len() < 17_000_000, "{} bytes printed", stdout.len());
    let _ = tokio::task::block_in_place(|| workspace.hailer(&["daemon", "stop"]));
    assert!(
        peak <= start + ALLOWED_PEAK_WHILE_PRINTING_KIB,
        "RSS went from {start} KiB to a peak of {peak} KiB"
    );
}
