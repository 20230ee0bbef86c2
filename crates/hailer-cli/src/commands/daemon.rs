//! `hailer daemon start|stop|status|logs`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use hailer_config::HailerHome;
use hailer_protocol::{DaemonInfo, ShutdownResponse};
use serde::Serialize;

use crate::daemon_client::{self, Connected};
use crate::output::outln;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `stop` waits for the daemon to go.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);
/// How often `logs --follow` reads the log for new lines.
const FOLLOW_POLL: Duration = Duration::from_millis(200);

pub(crate) async fn start(home: &HailerHome) -> anyhow::Result<()> {
    let connected = daemon_client::find_or_start(home).await?;
    outln!(
        "hailerd is running (pid {}, port {}).",
        connected.info.pid,
        connected.info.port
    )?;
    Ok(())
}

pub(crate) async fn stop(home: &HailerHome) -> anyhow::Result<()> {
    let Some(connected) = daemon_client::find(home).await else {
        outln!("hailerd is not running.")?;
        return Ok(());
    };
    connected
        .endpoint
        .post(
            "/v1/daemon/shutdown",
            &serde_json::json!({}),
            REQUEST_TIMEOUT,
        )
        .await?
        .json::<ShutdownResponse>()?;
    let deadline = Instant::now() + STOP_TIMEOUT;
    while connected.runtime_path.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    outln!("hailerd stopped (pid {}).", connected.info.pid)?;
    Ok(())
}

/// What `hailer daemon status --json` prints.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusJson<'a> {
    #[serde(flatten)]
    info: &'a DaemonInfo,
    runtime_file: &'a Path,
    log_dir: PathBuf,
}

/// Shows the running daemon, starting one if none answers.
pub(crate) async fn status(home: &HailerHome, json: bool) -> anyhow::Result<()> {
    let Connected {
        info, runtime_path, ..
    } = daemon_client::find_or_start(home).await?;
    if json {
        let status = StatusJson {
            info: &info,
            runtime_file: &runtime_path,
            log_dir: home.log_dir(),
        };
        outln!("{}", serde_json::to_string_pretty(&status)?)?;
        return Ok(());
    }
    outln!("hailerd {}", info.version)?;
    outln!("  pid:          {}", info.pid)?;
    outln!("  listening:    127.0.0.1:{}", info.port)?;
    outln!("  uptime:       {}", human_duration(info.uptime_secs))?;
    outln!("  sessions:     {}", info.sessions)?;
    outln!("  clients:      {}", info.clients)?;
    outln!("  runtime file: {}", runtime_path.display())?;
    outln!("  logs:         {}", home.log_dir().display())?;
    Ok(())
}

/// Prints the last `lines` lines of the newest log file, then follows it if asked (until the
/// file is removed).
pub(crate) async fn logs(home: &HailerHome, lines: usize, follow: bool) -> anyhow::Result<()> {
    let dir = home.log_dir();
    let Some(newest) = newest_log(&dir)? else {
        outln!("No hailerd log yet in {}.", dir.display())?;
        return Ok(());
    };
    if !follow {
        let file = std::fs::File::open(&newest)
            .with_context(|| format!("cannot open {}", newest.display()))?;
        let all: Vec<String> = BufReader::new(&file)
            .lines()
            .map_while(Result::ok)
            .collect();
        let mut out = std::io::stdout().lock();
        for line in &all[all.len().saturating_sub(lines)..] {
            writeln!(out, "{line}")?;
        }
        return Ok(());
    }
    std::fs::File::open(&newest).with_context(|| format!("cannot open {}", newest.display()))?;
    let mut followed = hailer_platform::follow_file(newest, lines, FOLLOW_POLL, |line| line);
    while let Some(line) = followed.recv().await {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()?;
    }
    Ok(())
}

fn newest_log(dir: &Path) -> anyhow::Result<Option<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let mut logs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|entry| {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            name.starts_with("hailerd.") && name.ends_with(".log")
        })
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .collect();
    logs.sort();
    Ok(logs.pop().map(|(_, path)| path))
}

fn human_duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min {} s", secs / 60, secs % 60),
        _ => format!("{} h {} min", secs / 3600, (secs % 3600) / 60),
    }
}
