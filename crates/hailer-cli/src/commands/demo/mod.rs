//! `hailer demo`: a throwaway workspace with sample data, the kernel runtime that is available
//! (docker; unsafe-local only when asked for), and the scripted demo model built into hailerd,
//! which takes a fixed tour through the real tools. Prints the notebook and chat page links and
//! leaves the notebook holding the cells the answer announced.

mod runtime;
mod tour;
mod workspace;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use hailer_config::HailerHome;
use hailer_config::Runtime;
use hailer_protocol::{NotebookChange, NotebookRef};

use super::kernel_ready::{Wait, ctrl_c_presses, wait_for_kernel};
use crate::daemon_client;
use crate::output::outln;
use crate::session_client::{self, SessionFlags};
use tour::TourEnd;

const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) async fn run(
    home: &HailerHome,
    dir: Option<PathBuf>,
    kernel: Option<Runtime>,
) -> anyhow::Result<ExitCode> {
    let (runtime, why) = match runtime::choose(home, kernel).await {
        Ok(chosen) => chosen,
        Err(what_to_do) => {
            eprintln!("hailer: {what_to_do}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut presses = ctrl_c_presses();
    let workspace = workspace::create(dir.as_deref(), runtime, &home.config_dir)?;
    let root = &workspace.root;
    let row = |label: &str, value: &str| {
        let label = if label.is_empty() {
            String::new()
        } else {
            format!("{label}:")
        };
        outln!("  {label:<11} {value}")
    };
    outln!("Hailer demo")?;
    row(
        "Workspace",
        &format!(
            "{} (made for this demo; delete it when you are done)",
            root.display()
        ),
    )?;
    for (at, file) in workspace.files.iter().enumerate() {
        let label = if at == 0 { "Data" } else { "" };
        row(label, &format!("data/{}: {}", file.name, file.about))?;
    }
    row("Kernel", &why)?;
    row(
        "Model",
        &format!(
            "{}: built into hailerd, it takes fixed steps through the real tools and calls no \
             endpoint (no API key; nothing leaves this machine)",
            hailer_demo::MODEL_LABEL
        ),
    )?;

    let connected = daemon_client::find_or_start(home).await?;
    let endpoint = &connected.endpoint;
    // Flags win over the shell's HAILER_* variables: the demo runs what it wrote, whatever
    // they say.
    let flags = SessionFlags {
        workspace: Some(root.clone()),
        config: Some(root.join("hailer.toml")),
        kernel: Some(runtime.to_string()),
        model: Some(format!(
            "{}:{}",
            hailer_demo::PROVIDER_ID,
            hailer_demo::MODEL_LABEL
        )),
        new_thread: true,
        ..SessionFlags::default()
    };
    let started = session_client::start(endpoint, &flags).await?;
    let id = started.session.id.clone();
    let mut events = session_client::follow_events(endpoint, &id).await?;
    eprintln!("\nStarting the kernel ...");
    match wait_for_kernel(&mut events, &mut presses).await {
        Wait::Ready => {}
        Wait::Interrupted => return Ok(ExitCode::from(130)),
        ended => {
            ended.explain();
            return Ok(ExitCode::FAILURE);
        }
    }

    let answer = match tour::run(endpoint, &id, &mut events, &mut presses).await? {
        TourEnd::Answered(answer) => answer,
        TourEnd::Failed(why) => {
            eprintln!("hailer: the tour failed: {why}");
            return Ok(ExitCode::FAILURE);
        }
        TourEnd::Cancelled => {
            eprintln!("The tour was cancelled.");
            return Ok(ExitCode::from(130));
        }
    };

    // Opening the notebook brings a docker kernel's copies back first, and gives its link.
    let opened: NotebookChange = endpoint
        .post(
            &format!("/v1/sessions/{id}/notebooks/open"),
            &NotebookRef {
                notebook: hailer_demo::NOTEBOOK.to_owned(),
            },
            REQUEST_TIMEOUT,
        )
        .await?
        .json()?;
    let notebook_path = root.join("notebooks").join(hailer_demo::NOTEBOOK);
    let notebook = std::fs::read_to_string(&notebook_path).unwrap_or_default();
    let (announced, missing) = tour::missing_cells(&answer, &notebook);
    outln!()?;
    if announced.is_empty() || !missing.is_empty() {
        eprintln!(
            "hailer: {} does not hold the cells the answer announced (missing: {})",
            notebook_path.display(),
            missing.join(", ")
        );
    } else {
        outln!(
            "{} now holds the tour's {} cells: {}.",
            notebook_path.display(),
            announced.len(),
            announced.join(", ")
        )?;
    }
    outln!("\nOpen the notebook:  {}", opened.link.unwrap_or_default())?;
    outln!(
        "Open the chat page: {}",
        super::open::signed_link(endpoint.port, &endpoint.token, Some(&id))
    )?;
    outln!(
        "The links sign you in: keep them to yourself. They work while the session runs, which \
         is 5 minutes after the last client leaves. To go on in this terminal: cd {} && hailer \
         (the scripted model only knows the tour; set a real model in hailer.toml to ask your \
         own questions).",
        root.display()
    )?;
    Ok(if announced.is_empty() || !missing.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
