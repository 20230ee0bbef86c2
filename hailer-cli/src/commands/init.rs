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

    let (runtime, image) = effective_kernel(workspace, kernel);
    let kernel_note = kernel_note(runtime, &image).await;
    println!("\nNext steps:");
    let mut steps = vec![
        "Review hailer.toml (the model, its provider, the data folder).".to_owned(),
        "Set OPENAI_API_KEY (or your provider's key variable) in the shell you run hailer from."
            .to_owned(),
        "Put CSV, Parquet, JSON or Excel files in data/.".to_owned(),
    ];
    if kernel_note.image_missing {
        steps.push(format!(
            "Get the kernel image: `hailer kernel pull` downloads {image} (or `hailer kernel \
             build` builds it here)."
        ));
    }
    steps.push("Run `hailer` here and ask a question.".to_owned());
    for (number, step) in steps.iter().enumerate() {
        println!("  {}. {step}", number + 1);
    }
    println!();
    println!("{}", kernel_note.text);
    Ok(())
}

/// The runtime and image the workspace's file now says (a kept file wins over `--kernel`).
fn effective_kernel(workspace: &Path, asked: Option<Runtime>) -> (Runtime, String) {
    let default_image =
        || hailer_kernel_bundle::default_image_name(&hailer_kernel_bundle::contract());
    let mut inputs = hailer_config::LoadInputs::new(workspace);
    inputs.home = std::env::home_dir();
    match hailer_config::load(&inputs) {
        Ok(loaded) => (
            loaded.config.kernel.runtime,
            loaded.config.kernel.image.unwrap_or_else(default_image),
        ),
        Err(_) => (asked.unwrap_or(Runtime::Docker), default_image()),
    }
}

struct KernelNote {
    text: String,
    image_missing: bool,
}

/// What `init` says about the kernel: the runtime, whether Docker answers, whether the image
/// is here.
async fn kernel_note(runtime: Runtime, image: &str) -> KernelNote {
    let note = |text: String| KernelNote {
        text,
        image_missing: false,
    };
    match (runtime, probe().await) {
        (Runtime::UnsafeLocal, _) => note(
            "Kernel: unsafe-local. Notebook code will run as you, with your files and network; \
             it is not isolated."
                .to_owned(),
        ),
        (Runtime::Docker, DockerProbe::Answers) => {
            let contract = hailer_kernel_bundle::contract();
            let found = match crate::docker_probe::socket() {
                Ok(socket) => crate::docker_probe::image_contract(&socket, image)
                    .await
                    .ok(),
                Err(_) => None,
            };
            match found {
                Some(Some(found)) if found == contract => note(format!(
                    "Kernel: docker. A Docker engine answers here and the kernel image {image} \
                     is ready."
                )),
                Some(_) => KernelNote {
                    text: format!(
                        "Kernel: docker. A Docker engine answers here; the kernel image {image} \
                         of this Hailer's contract is not here yet:\n  \
                         hailer kernel pull     downloads it\n  \
                         hailer kernel build    builds it on this machine instead"
                    ),
                    image_missing: true,
                },
                None => note("Kernel: docker. A Docker engine answers on this machine.".to_owned()),
            }
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
            note(format!(
                "Kernel: docker, but no Docker engine answers here: {why}.\n  \
                 Install Docker Engine or Docker Desktop and start it, then run `hailer kernel \
                 pull`; or, if you accept that notebook code then runs as you, set runtime = \
                 \"unsafe-local\" under [kernel]."
            ))
        }
    }
}
