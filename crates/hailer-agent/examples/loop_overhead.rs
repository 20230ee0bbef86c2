//! Measures the turn loop: the overhead it adds to each model round trip, and the memory of a
//! long conversation.
//!
//! ```text
//! cargo run --release -p hailer-agent --example loop_overhead
//! ```
//!
//! The scripted model runs in a child process (this same binary), so its bookkeeping is not
//! counted in this process's memory. Three phases:
//! 1. one turn of 201 tool-call round trips with a trivial tool; the time between two
//!    consecutive tool calls is one round trip through the loop (save the result, build the
//!    request, call the model, read the reply, save it, start the tool);
//! 2. the same 200 requests sent straight through the model client, without the loop;
//! 3. a 50-turn conversation whose every turn runs a tool returning 12,000 characters, then the
//!    process's resident memory.
//!
//! The loop's overhead is the difference of the two medians. Targets: <= 2 ms, <= 40 MB.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hailer_agent::ConversationStore;
use hailer_agent::{EventSink, Summariser, Turn, TurnEvent, TurnSettings};
use hailer_agent::{Tool, ToolContext, ToolRegistry};
use hailer_model::{
    ClientOptions, Item, ModelClient, ModelRequest, ProviderSettings, ToolSpec, WireApi,
};
use hailer_scripted_model::{Script, ScriptedModel};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const SERVER_VAR: &str = "HAILER_LOOP_BENCH_SCRIPT";
const ROUND_TRIPS: usize = 200;
const TURNS: usize = 50;
const BIG_RESULT_CHARS: usize = 12_000;

struct Noop;

impl Tool for Noop {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "noop".into(),
            description: "Does nothing.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        "ok".into()
    }
}

struct Big;

impl Tool for Big {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "big".into(),
            description: "Returns a long result.".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }
    }

    async fn call(&self, _arguments: Value, _ctx: &ToolContext) -> String {
        "x".repeat(BIG_RESULT_CHARS)
    }
}

#[derive(Clone, Default)]
struct Stamps(Arc<Mutex<Vec<(Instant, TurnEvent)>>>);

impl EventSink for Stamps {
    fn emit(&self, event: TurnEvent) {
        self.0.lock().unwrap().push((Instant::now(), event));
    }
}

fn script() -> Script {
    let mut script = Script::new();
    for _ in 0..=ROUND_TRIPS {
        script = script.tool_call("noop", json!({}));
    }
    script = script.reply_text("done");
    for _ in 0..ROUND_TRIPS {
        script = script.tool_call("noop", json!({}));
    }
    for _ in 0..TURNS {
        script = script
            .tool_call("big", json!({}))
            .reply_text("Here is what the long result shows.");
    }
    script
}

/// The child: serves the script until its standard input closes.
async fn serve(path: &str) {
    let script = Script::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
    // Small streamed frames must not wait for delayed acknowledgements (Nagle's algorithm):
    // accepted connections inherit TCP_NODELAY from the listening socket.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_nodelay(true).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let server = ScriptedModel::serve_on(socket.listen(64).unwrap(), script).unwrap();
    println!("{}", server.port());
    std::io::stdout().flush().unwrap();
    tokio::task::spawn_blocking(|| {
        let mut sink = String::new();
        while std::io::stdin().read_line(&mut sink).unwrap_or(0) > 0 {}
    })
    .await
    .unwrap();
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// CPU time this process has used, over all its threads, from `/proc` (Linux); `None` elsewhere.
fn cpu_time() -> Option<Duration> {
    let mut total = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        total += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(total))
}

fn per_trip(cpu: Option<Duration>) -> String {
    cpu.map_or_else(
        || "n/a".to_owned(),
        |cpu| format!("{:.0} µs", cpu.as_secs_f64() * 1e6 / ROUND_TRIPS as f64),
    )
}

/// This process's resident memory in MB, for the table.
fn resident_mb() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
        .map_or_else(|| "n/a".to_owned(), |kib| format!("{:.1} MB", kib / 1024.0))
}

fn resident_memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|line| line.starts_with(name))
            .map(|line| line[name.len()..].trim().to_owned())
            .unwrap_or_else(|| "n/a".into())
    };
    format!("{} (peak {})", field("VmRSS:"), field("VmHWM:"))
}

#[tokio::main]
async fn main() {
    if let Ok(path) = std::env::var(SERVER_VAR) {
        serve(&path).await;
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, serde_json::to_string(&script()).unwrap()).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(SERVER_VAR, &script_path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    let base_url = format!("http://127.0.0.1:{}/v1", port.trim());
    let settings = ProviderSettings::new("bench", base_url, WireApi::Responses, "bench-model");
    let client = ModelClient::new(settings, ClientOptions::default()).unwrap();
    let mut store = ConversationStore::open_in_workspace(dir.path()).unwrap();
    let thread = store.new_thread("bench-model", "bench").unwrap().id;
    let tools = ToolRegistry::new().with(Noop).unwrap().with(Big).unwrap();
    let turn_settings = TurnSettings {
        max_model_calls: ROUND_TRIPS + 5,
        summariser: Summariser {
            after_tokens: 0,
            ..Summariser::default()
        },
        ..TurnSettings::default()
    };
    let cancel = CancellationToken::new();
    let instructions = "You are a careful analyst.";

    // 1. Round trips through the loop.
    let stamps = Stamps::default();
    let cpu_before_loop = cpu_time();
    let run = async |store: &mut ConversationStore, events: &dyn EventSink, text: &str| {
        Turn {
            client: &client,
            instructions,
            store,
            thread: &thread,
            tools: &tools,
            settings: &turn_settings,
            events,
            cancel: &cancel,
        }
        .run(text)
        .await
    };
    run(&mut store, &stamps, "Call noop again and again.").await;
    let loop_cpu = cpu_time()
        .zip(cpu_before_loop)
        .map(|(after, before)| after - before);
    let starts: Vec<Instant> = stamps
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, event)| matches!(event, TurnEvent::ToolCallStarted { .. }))
        .map(|(at, _)| *at)
        .collect();
    let loop_trips: Vec<Duration> = starts.windows(2).map(|pair| pair[1] - pair[0]).collect();
    assert_eq!(loop_trips.len(), ROUND_TRIPS);

    // 2. The same requests straight through the client.
    let history: Vec<Item> = store
        .load_items(&thread)
        .unwrap()
        .into_iter()
        .filter_map(|stored| match stored.item {
            hailer_agent::ThreadItem::User(text) => Some(Item::User(text)),
            hailer_agent::ThreadItem::Assistant(message) => Some(Item::Assistant(message)),
            hailer_agent::ThreadItem::ToolResult(result) => Some(Item::ToolResult(result)),
            hailer_agent::ThreadItem::Summary(_) => None,
        })
        .collect();
    let mut raw_trips = Vec::with_capacity(ROUND_TRIPS);
    let cpu_before_raw = cpu_time();
    for trip in 1..=ROUND_TRIPS {
        let request = ModelRequest {
            instructions: instructions.to_owned(),
            items: history[..1 + 2 * trip].to_vec(),
            tools: tools.specs(),
            reasoning_effort: None,
        };
        let started = Instant::now();
        client.complete(&request).await.unwrap();
        raw_trips.push(started.elapsed());
    }
    let raw_cpu = cpu_time()
        .zip(cpu_before_raw)
        .map(|(after, before)| after - before);
    let loop_median = median(loop_trips);
    let raw_median = median(raw_trips);
    println!("round trips measured:           {ROUND_TRIPS}");
    println!("median round trip via the loop: {loop_median:?}");
    println!("median bare model call:         {raw_median:?}");
    // Signed: on a busy machine the difference can fall below zero, which means "lost in noise".
    let overhead_us = loop_median.as_secs_f64() * 1e6 - raw_median.as_secs_f64() * 1e6;
    println!("loop overhead per round trip:   {overhead_us:.0} µs (target <= 2000 µs)");
    // A row of scripts/bench.sh's table.
    println!(
        "BENCH\tmodel round trip through the turn loop (floor: bare call)\t{:.3} ms\t{:.3} ms\t<= floor + 2 ms",
        loop_median.as_secs_f64() * 1e3,
        raw_median.as_secs_f64() * 1e3
    );
    // CPU time is steadier than wall time on a busy machine: what this process spent per trip.
    println!(
        "agent CPU per round trip:       {} via the loop, {} bare, overhead {}",
        per_trip(loop_cpu),
        per_trip(raw_cpu),
        per_trip(
            loop_cpu
                .zip(raw_cpu)
                .map(|(looped, raw)| looped.saturating_sub(raw))
        )
    );

    // 3. A long conversation.
    let thread_items_before = store.load_items(&thread).unwrap().len();
    let quiet = |_: TurnEvent| {};
    for turn in 0..TURNS {
        run(&mut store, &quiet, &format!("Question {turn}: run big.")).await;
    }
    let items = store.load_items(&thread).unwrap().len() - thread_items_before;
    println!(
        "conversation: {TURNS} turns, {items} items, tool results of {BIG_RESULT_CHARS} chars"
    );
    println!(
        "resident memory after it:       {} (target <= 40 MB)",
        resident_memory()
    );
    println!(
        "BENCH\tagent RSS after {TURNS} turns of 12,000-character results\t{}\t-\t<= 40 MB",
        resident_mb()
    );

    drop(child.stdin.take());
    let _ = child.wait();
}
