//! Measures the client's own cost per model call: the median round trip through `ModelClient`
//! against the scripted server at zero latency, next to a bare HTTP POST of the same body.
//!
//! Run with `cargo run --release -p hailer-model --example round_trip`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use hailer_model::{ClientOptions, Item, ModelClient, ModelRequest, ProviderSettings, WireApi};
use hailer_scripted_model::{Reply, Script, ScriptedModel};
use secrecy::SecretString;

const ROUNDS: usize = 200;
const WARM_UP: usize = 20;

fn reply() -> Reply {
    Reply::text("The median order value is 42.17 EUR across 1,204 orders.").in_deltas(8)
}

fn script(steps: usize) -> Script {
    (0..steps).fold(Script::new(), |script, _| script.reply(reply()))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn request() -> ModelRequest {
    ModelRequest {
        instructions: "You are a careful analyst.".to_owned(),
        items: vec![Item::user("What is the median order value?")],
        tools: Vec::new(),
        reasoning_effort: None,
    }
}

async fn client_median(server: &ScriptedModel, wire: WireApi, stream: bool) -> Duration {
    let mut settings = ProviderSettings::new("bench", server.base_url(), wire, "bench-model");
    settings.stream = stream;
    settings.api_key = Some(SecretString::from("sk-bench-0000000000000000"));
    let client = ModelClient::new(settings, ClientOptions::default()).unwrap();
    let request = request();
    server.push(script(ROUNDS + WARM_UP));
    let mut samples = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS + WARM_UP {
        let started = Instant::now();
        let completion = client.complete(&request).await.unwrap();
        let elapsed = started.elapsed();
        assert!(!completion.text.is_empty());
        if round >= WARM_UP {
            samples.push(elapsed);
        }
    }
    median(samples)
}

/// The same body posted with a bare HTTP client, the reply read whole and not parsed.
async fn bare_median(server: &ScriptedModel, wire: WireApi, stream: bool) -> Duration {
    let mut settings = ProviderSettings::new("bench", server.base_url(), wire, "bench-model");
    settings.stream = stream;
    let body = ModelClient::new(settings, ClientOptions::default())
        .unwrap()
        .request_body(&request())
        .to_string();
    let url = format!("{}/{}", server.base_url(), wire.path());
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    server.push(script(ROUNDS + WARM_UP));
    let mut samples = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS + WARM_UP {
        let started = Instant::now();
        let response = http
            .post(&url)
            .header("content-type", "application/json")
            .header("authorization", "Bearer sk-bench-0000000000000000")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let bytes = response.bytes().await.unwrap();
        let elapsed = started.elapsed();
        assert!(!bytes.is_empty());
        if round >= WARM_UP {
            samples.push(elapsed);
        }
    }
    median(samples)
}

#[tokio::main]
async fn main() {
    let server = ScriptedModel::start(Script::new()).await.unwrap();
    println!(
        "median of {ROUNDS} round trips (after {WARM_UP} warm-up), scripted server on loopback:"
    );
    println!(
        "{:<22} {:>12} {:>12} {:>12}",
        "mode", "bare HTTP", "ModelClient", "overhead"
    );
    for wire in [WireApi::Responses, WireApi::Chat] {
        for stream in [true, false] {
            let bare = bare_median(&server, wire, stream).await;
            let client = client_median(&server, wire, stream).await;
            let overhead = client.saturating_sub(bare);
            println!(
                "{:<22} {:>9.0} µs {:>9.0} µs {:>9.0} µs",
                format!("{wire} stream={stream}"),
                bare.as_secs_f64() * 1e6,
                client.as_secs_f64() * 1e6,
                overhead.as_secs_f64() * 1e6,
            );
            // A row of scripts/bench.sh's table.
            println!(
                "BENCH\tModelClient round trip, {wire} stream={stream} (floor: bare HTTP)\t{:.3} ms\t{:.3} ms\t-",
                client.as_secs_f64() * 1e3,
                bare.as_secs_f64() * 1e3,
            );
        }
    }
}
