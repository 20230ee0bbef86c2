//! `hailer run "question"`: one turn with no terminal interface, for scripts.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use hailer_config::HailerHome;
use hailer_protocol::{SessionEnvelope, SessionEvent, StartTurnParams, StartTurnResponse};

use crate::commands::kernel::job_view::JobView;
use crate::daemon_client;
use crate::output::{out, outln};
use crate::session_client::{self, SessionFlags};

const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The settings of the workspace's file that wait for `hailer trust`, as the loader words them.
fn trust_warnings(flags: &SessionFlags) -> Vec<String> {
    let overrides = hailer_config::Overrides {
        workspace: flags.workspace.clone(),
        config: flags.config.clone(),
        ..Default::default()
    };
    let Ok(loaded) = hailer_config::LoadInputs::from_process(overrides)
        .map(|inputs| hailer_config::load(&inputs))
    else {
        return Vec::new();
    };
    loaded
        .map(|loaded| {
            loaded
                .warnings
                .into_iter()
                .filter(|warning| warning.area == hailer_config::Area::Trust)
                .map(|warning| warning.message)
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) async fn run(
    home: &HailerHome,
    flags: &SessionFlags,
    question: &str,
    json: bool,
    verbose: bool,
) -> anyhow::Result<ExitCode> {
    let connected = daemon_client::find_or_start(home).await?;
    let started = session_client::start(&connected.endpoint, flags).await?;
    for warning in trust_warnings(flags) {
        eprintln!("warning: {}", hailer_render::clean(&warning));
    }
    let id = &started.session.id;
    let endpoint = &connected.endpoint;

    // Follow the session before sending, so no event of the turn is missed; a session this
    // command started is followed from its first event, its kernel's set-up included.
    let mut socket = if started.attached {
        session_client::follow_events(endpoint, id).await?
    } else {
        session_client::resume_events(endpoint, id, 0).await?
    };

    let turn: StartTurnResponse = endpoint
        .post(
            &format!("/v1/sessions/{id}/turns"),
            &StartTurnParams {
                text: question.to_owned(),
                client: "run".to_owned(),
                skill: None,
                prompt: None,
                wait: false,
                env: session_client::key_env(flags),
            },
            REQUEST_TIMEOUT,
        )
        .await?
        .json()?;

    let mut wrote_text = false;
    // The kernel's environment set-up, shown as a job is (on standard error: the answer is the
    // output).
    let mut setup: Option<JobView> = None;
    let mut charts: Vec<hailer_protocol::Chart> = Vec::new();
    // Why the kernel could not start or ended during the turn: the answer may be the model's
    // words about it, but the run did not do its work, so it exits non-zero.
    let mut kernel_failure: Option<(String, Option<String>)> = started
        .session
        .kernel_error
        .clone()
        .filter(|_| started.session.kernel == hailer_protocol::KernelStatus::Failed)
        .map(|message| (message, started.session.kernel_hint.clone()));
    while let Some(message) = socket.next().await {
        let message = message.context("the session's event stream broke")?;
        let Ok(text) = message.into_text() else {
            continue;
        };
        let Ok(envelope) = serde_json::from_str::<SessionEnvelope>(&text) else {
            continue;
        };
        if json {
            outln!("{}", hailer_render::escape_json_text(&text))?;
        }
        // Shown text passes the sanitiser; `--json` carries the daemon's JSON as it came.
        let Some(event) = hailer_render::clean_all(&envelope.event) else {
            continue;
        };
        match event {
            SessionEvent::Kernel {
                status: hailer_protocol::KernelStatus::Failed,
                message,
                hint,
                exit,
            } => {
                let message = message
                    .or_else(|| exit.map(|exit| exit.message))
                    .unwrap_or_else(|| "the kernel failed".to_owned());
                kernel_failure = Some((message, hint));
            }
            SessionEvent::KernelSetup { line } if !json => {
                let view = setup.get_or_insert_with(|| JobView::on_stderr(verbose));
                if let Some(summary) = view.show(&line) {
                    eprintln!("{summary}");
                    setup = None;
                }
            }
            SessionEvent::Chart { turn_id, chart, .. } if turn_id == turn.turn_id => {
                charts.push(chart);
            }
            SessionEvent::TextDelta { turn_id, delta } if turn_id == turn.turn_id && !json => {
                out!("{delta}")?;
                use std::io::Write;
                let _ = std::io::stdout().flush();
                wrote_text = true;
            }
            SessionEvent::ToolCallStarted {
                turn_id,
                name,
                preview,
                ..
            } if turn_id == turn.turn_id && !json => {
                let said = format!("[{name}] {}", preview.lines().next().unwrap_or_default());
                match setup.as_mut() {
                    Some(view) => view.println(&said),
                    None => eprintln!("{said}"),
                }
            }
            SessionEvent::ToolCallFinished {
                turn_id,
                name,
                ok: false,
                preview,
                output,
                ..
            } if turn_id == turn.turn_id && !json => {
                let said = failed_call_line(&name, &preview, &output, stderr_style());
                match setup.as_mut() {
                    Some(view) => view.println(&said),
                    None => eprintln!("{said}"),
                }
            }
            SessionEvent::Notice { level, message } if !json => {
                let said = match level {
                    hailer_protocol::NoticeLevel::Info => format!("note: {message}"),
                    hailer_protocol::NoticeLevel::Warning => format!("warning: {message}"),
                    hailer_protocol::NoticeLevel::Error => format!("error: {message}"),
                };
                match setup.as_mut() {
                    Some(view) => view.println(&said),
                    None => eprintln!("{said}"),
                }
            }
            SessionEvent::TurnFinished { turn_id, text, .. } if turn_id == turn.turn_id => {
                // The turn's last event comes after its notebook is on this machine.
                let notebook = active_notebook(endpoint, &started.session).await;
                if json {
                    outln!("{}", summary_line(notebook.as_deref(), &charts))?;
                } else {
                    if !wrote_text {
                        out!("{text}")?;
                    }
                    outln!()?;
                    for line in chart_lines(&charts) {
                        eprintln!("{line}");
                    }
                    if let Some(path) = notebook {
                        eprintln!(
                            "Notebook: {}",
                            hailer_render::clean(&path.display().to_string())
                        );
                    }
                }
                if let Some((message, hint)) = kernel_failure {
                    if !json {
                        eprintln!("hailer: the kernel could not run the code: {message}");
                        if let Some(hint) = hint {
                            eprintln!("  {hint}");
                        }
                    }
                    return Ok(ExitCode::FAILURE);
                }
                return Ok(ExitCode::SUCCESS);
            }
            SessionEvent::TurnFailed {
                turn_id,
                message,
                hint,
            } if turn_id == turn.turn_id => {
                if !json {
                    eprintln!("hailer: {message}");
                    if let Some(hint) = hint {
                        eprintln!("  {hint}");
                    }
                }
                return Ok(ExitCode::FAILURE);
            }
            SessionEvent::TurnCancelled { turn_id } if turn_id == turn.turn_id => {
                if !json {
                    eprintln!("hailer: the turn was cancelled");
                }
                return Ok(ExitCode::FAILURE);
            }
            SessionEvent::Stopped { reason } => bail!("the session stopped: {reason}"),
            _ => {}
        }
    }
    bail!("the session's event stream ended before the turn did")
}

/// Colours on standard error when it is a terminal and `NO_COLOR` is unset.
fn stderr_style() -> hailer_render::Style {
    use std::io::IsTerminal as _;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    hailer_render::Style::with_color(!no_color && std::io::stderr().is_terminal())
}

/// A tool call that failed, on one line: its name and the first line of its error.
fn failed_call_line(
    name: &str,
    preview: &str,
    output: &str,
    style: hailer_render::Style,
) -> String {
    let result = if output.trim().is_empty() {
        preview
    } else {
        output
    };
    let first = hailer_render::tool_error_line(result);
    style.red(&format!("[{name}] failed: {first}"))
}

/// What `hailer run` lists after the answer: the charts the turn made, each with its cell.
fn chart_lines(charts: &[hailer_protocol::Chart]) -> Vec<String> {
    if charts.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![match charts.len() {
        1 => "Chart:".to_owned(),
        n => format!("Charts ({n}):"),
    }];
    for chart in charts {
        let title = chart.title.as_deref().unwrap_or("untitled");
        lines.push(format!(
            "  {title} (cell {} in {})",
            chart.cell, chart.notebook
        ));
    }
    lines
}

/// The last line of `hailer run --json`: the notebook's path and the turn's charts (without
/// their pictures, which the chart events carry).
fn summary_line(notebook: Option<&std::path::Path>, charts: &[hailer_protocol::Chart]) -> String {
    let charts: Vec<serde_json::Value> = charts
        .iter()
        .map(|chart| {
            serde_json::json!({
                "id": chart.id,
                "title": chart.title,
                "library": chart.library,
                "cell": chart.cell,
                "notebook": chart.notebook,
                "drawn": chart.image.is_some(),
            })
        })
        .collect();
    serde_json::json!({
        "type": "runFinished",
        "notebook": notebook.map(|path| path.display().to_string()),
        "charts": charts,
    })
    .to_string()
}

/// The active notebook's path on this machine, as the session reports it now.
async fn active_notebook(
    endpoint: &crate::http::Endpoint,
    session: &hailer_protocol::SessionInfo,
) -> Option<std::path::PathBuf> {
    let list: hailer_protocol::NotebookList = endpoint
        .get(
            &format!("/v1/sessions/{}/notebooks", session.id),
            REQUEST_TIMEOUT,
        )
        .await
        .ok()?
        .json()
        .ok()?;
    Some(std::path::Path::new(&session.notebooks_dir).join(list.active?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(title: Option<&str>) -> hailer_protocol::Chart {
        hailer_protocol::Chart {
            id: "chart-1".to_owned(),
            title: title.map(str::to_owned),
            library: "altair".to_owned(),
            cell: "sales_chart".to_owned(),
            cell_id: "Hbol".to_owned(),
            notebook: "analysis.py".to_owned(),
            image: None,
        }
    }

    #[test]
    fn charts_are_listed_after_the_answer() {
        assert!(chart_lines(&[]).is_empty());
        assert_eq!(
            chart_lines(&[chart(Some("Sales"))]),
            ["Chart:", "  Sales (cell sales_chart in analysis.py)"]
        );
        assert_eq!(
            chart_lines(&[chart(Some("Sales")), chart(None)])[0],
            "Charts (2):"
        );
    }

    #[test]
    fn the_json_summary_names_the_notebook_and_the_charts() {
        let line = summary_line(
            Some(std::path::Path::new("/w/notebooks/analysis.py")),
            &[chart(Some("Sales"))],
        );
        let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        assert_eq!(value["type"], "runFinished");
        assert_eq!(value["notebook"], "/w/notebooks/analysis.py");
        assert_eq!(value["charts"][0]["title"], "Sales");
        assert_eq!(value["charts"][0]["drawn"], false);
    }
}
