use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use hailer_marimo::{descendants, kill_now, signal_group};
use hailer_marimo::{LaunchOptions, Result, launch, scrub_environment};
use nix::sys::signal::Signal;
use secrecy::ExposeSecret as _;
use tokio::io::AsyncWriteExt as _;

const NOTEBOOK: &str = "import marimo\n\n__generated_with = \"0.24.2\"\napp = marimo.App()\n\n\n\
@app.cell\ndef _():\n    import marimo as mo\n    return (mo,)\n\n\n\
if __name__ == \"__main__\":\n    app.run()\n";

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let round_trips: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(30);
    let Some(python) = std::env::var_os("HAILER_TEST_PYTHON").map(PathBuf::from) else {
        eprintln!(
            "Set HAILER_TEST_PYTHON to a Python with marimo==0.24.2 (scripts/test-prereqs.sh makes one)."
        );
        std::process::exit(2);
    };

    let mut floor = Vec::new();
    let mut ours = Vec::new();
    let mut samples = Samples::default();
    for run in 0..runs {
        // Alternate the order so neither side always gets the warmer disk cache.
        if run % 2 == 0 {
            floor.push(floor_once(&python).await?);
            ours.push(ours_once(&python, 0, &mut samples).await?);
        } else {
            ours.push(ours_once(&python, 0, &mut samples).await?);
            floor.push(floor_once(&python).await?);
        }
        eprintln!(
            "run {}: floor {:?}, ours {:?}",
            run + 1,
            floor[run],
            ours[run]
        );
    }
    ours_once(&python, round_trips, &mut samples).await?;

    let floor_median = median(&mut floor);
    let ours_median = median(&mut ours);
    println!("runs: {runs}");
    println!(
        "(a) floor: spawn -> /health -> /sse kernel-ready   median {:.3} s",
        floor_median.as_secs_f64()
    );
    println!(
        "(b) ours: launch() + ensure_session()              median {:.3} s",
        ours_median.as_secs_f64()
    );
    println!(
        "ratio ours / floor: {:.3} (target <= 1.15)",
        ours_median.as_secs_f64() / floor_median.as_secs_f64()
    );
    println!(
        "execute round trip of `pass` over {round_trips} calls: median {:.1} ms",
        median(&mut samples.executes).as_secs_f64() * 1000.0
    );
    println!(
        "bare POST /api/kernel/execute of `pass` (floor): median {:.1} ms",
        median(&mut samples.raw_executes).as_secs_f64() * 1000.0
    );
    println!(
        "stop() of server and kernel: median {:.3} s",
        median(&mut samples.stops).as_secs_f64()
    );
    // Rows of scripts/bench.sh's table.
    println!(
        "BENCH\tmarimo launch to first execute possible\t{:.3} s\t{:.3} s\t<= 1.15 x floor",
        ours_median.as_secs_f64(),
        floor_median.as_secs_f64()
    );
    println!(
        "BENCH\texecute round trip of `pass` (floor: bare POST)\t{:.1} ms\t{:.1} ms\t-",
        median(&mut samples.executes).as_secs_f64() * 1000.0,
        median(&mut samples.raw_executes).as_secs_f64() * 1000.0
    );
    Ok(())
}

#[derive(Default)]
struct Samples {
    executes: Vec<Duration>,
    raw_executes: Vec<Duration>,
    stops: Vec<Duration>,
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn workspace() -> Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    let root = std::fs::canonicalize(dir.path())
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    std::fs::create_dir_all(root.join("notebooks"))
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    std::fs::write(root.join("notebooks/bench.py"), NOTEBOOK)
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    Ok((dir, root))
}

async fn ours_once(python: &Path, round_trips: usize, samples: &mut Samples) -> Result<Duration> {
    let (_dir, root) = workspace()?;
    let notebook = root.join("notebooks/bench.py");
    let env = scrub_environment(std::env::vars(), &[]);
    let mut options = LaunchOptions::new(
        python.to_owned(),
        root.clone(),
        PathBuf::from("notebooks"),
        env,
    );
    options.preferred_port = 0;
    let started = Instant::now();
    let server = launch(&options).await?;
    let client = server.client()?;
    client.ensure_session(&notebook).await?;
    let elapsed = started.elapsed();
    let raw = reqwest::Client::builder()
        .no_proxy()
        .build()
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    let session = client.resolve_session(&notebook).await?.unwrap_or_default();
    for _ in 0..round_trips {
        let begun = Instant::now();
        client
            .execute(&notebook, "pass", Duration::from_secs(30))
            .await?;
        samples.executes.push(begun.elapsed());
        // The floor: one bare POST with a known session id, read to the end.
        let begun = Instant::now();
        let response = raw
            .post(format!("{}/api/kernel/execute", server.base_url()))
            .bearer_auth(server.token().expose_secret())
            .header("Marimo-Session-Id", &session)
            .header("Content-Type", "application/json")
            .body(r#"{"code": "pass"}"#)
            .send()
            .await
            .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
        let _ = response.bytes().await;
        samples.raw_executes.push(begun.elapsed());
    }
    let stopping = Instant::now();
    server.stop().await;
    samples.stops.push(stopping.elapsed());
    Ok(elapsed)
}

async fn floor_once(python: &Path) -> Result<Duration> {
    let (_dir, root) = workspace()?;
    let port = hailer_marimo::free_port()?;
    let token = "bench-floor-token";
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    let started = Instant::now();
    let mut child = tokio::process::Command::new(python)
        .args([
            "-m",
            "marimo",
            "edit",
            "notebooks",
            "--token-password-file",
            "-",
            "--headless",
            "--port",
        ])
        .arg(port.to_string())
        .arg("--skip-update-check")
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(token.as_bytes()).await;
    }
    let base = format!("http://127.0.0.1:{port}");
    loop {
        if let Ok(response) = http.get(format!("{base}/health")).send().await
            && response.status().is_success()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let file = root.join("notebooks/bench.py");
    let mut url = reqwest::Url::parse(&format!("{base}/sse"))
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    url.query_pairs_mut()
        .append_pair("session_id", "s_floor")
        .append_pair("file", &file.to_string_lossy());
    let mut response = http
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| hailer_marimo::Error::InvalidInput(e.to_string()))?;
    let mut seen = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        seen.extend_from_slice(&chunk);
        if String::from_utf8_lossy(&seen).contains("kernel-ready") {
            break;
        }
    }
    let elapsed = started.elapsed();
    drop(response);
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .unwrap_or(0);
    let processes: Vec<_> = descendants(pid).into_iter().map(|(p, _)| p).collect();
    signal_group(pid, Signal::SIGKILL);
    kill_now(&processes);
    let _ = child.wait().await;
    Ok(elapsed)
}
