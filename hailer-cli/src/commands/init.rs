//! `hailer init`: scaffold a workspace in the current (or given) folder.

use std::path::Path;

use hailer_config::{InitAction, Runtime};

use crate::docker_probe::{DockerProbe, probe};

pub async fn run(workspace: &Path, force: bool, kernel: Option<Runtime>) -> anyhow::Result<()> {
    let report = hailer_config::init(workspace, force, kernel)?;
    println!("Workspace: {}", report.workspace.display());
    for entry in &report.entries {
        let shown = entry
            .path
            .strip_prefix(&report.workspace)
            .unwrap_or(&entry.path)
            .display()
            .to_string();
        let shown = if entry.is_folder {
            format!("{shown}/")
        } else {
            shown
        };
        let verb = match entry.action {
            InitAction::Created => "created",
            InitAction::Kept => "kept   ",
            InitAction::Rewritten => "rewrote",
        };
        println!("  {verb} {shown}");
    }
    if let Some(mismatch) = &report.runtime_mismatch {
        println!(
            "\nNote: {} was kept and sets runtime = {}; --kernel {} was not applied. \
             Run `hailer init --force --kernel {}` to rewrite it.",
            mismatch.config_file.display(),
            mismatch
                .kept
                .as_deref()
                .unwrap_or("docker (no [kernel] runtime line)"),
            mismatch.requested,
            mismatch.requested,
        );
    }

    println!("\nNext steps:");
    println!("  1. Review hailer.toml (the model, its provider, the data folder).");
    println!(
        "  2. Set OPENAI_API_KEY (or your provider's key variable) in the shell you run hailer from."
    );
    println!("  3. Put CSV, Parquet, JSON or Excel files in data/.");
    println!("  4. Run `hailer` here and ask a question.");

    let runtime = kernel.unwrap_or(Runtime::Docker);
    println!();
    match (runtime, probe().await) {
        (Runtime::UnsafeLocal, _) => println!(
            "Kernel: unsafe-local. Notebook code will run as you, with your files and network; \
             it is not isolated."
        ),
        (Runtime::Docker, DockerProbe::Answers) => {
            println!("Kernel: docker. A Docker engine answers on this machine.");
        }
        (Runtime::Docker, other) => {
            let why = match other {
                DockerProbe::NoSocket(path) => format!("no engine socket at {}", path.display()),
                DockerProbe::NotAnswering(reason) => {
                    format!("the engine does not answer ({reason})")
                }
                DockerProbe::Remote(host) => {
                    format!("DOCKER_HOST points elsewhere ({host}); not checked")
                }
                DockerProbe::Answers => String::new(),
            };
            println!(
                "Kernel: docker, but no Docker engine answers here: {why}.\n  \
                 Install Docker Engine or Docker Desktop and start it, or, if you accept that \
                 notebook code then runs as you, set runtime = \"unsafe-local\" under [kernel]."
            );
        }
    }
    Ok(())
}
