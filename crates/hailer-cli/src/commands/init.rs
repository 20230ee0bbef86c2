//! `hailer init`: scaffold a workspace in the current (or given) folder.

use std::path::Path;

use anyhow::Context as _;

use hailer_config::{InitAction, Runtime};

use hailer_config::HailerHome;
use hailer_protocol::{DockerEngine, KernelImageStatus};

use crate::docker_probe;
use crate::output::outln;

pub(crate) async fn run(
    home: &HailerHome,
    workspace: &Path,
    force: bool,
    kernel: Option<Runtime>,
) -> anyhow::Result<()> {
    let report = hailer_config::init(workspace, force, kernel)?;
    // What `--kernel` wrote is the user's own choice, not a repository's.
    report
        .trust_the_written_config(&home.config_dir)
        .context("cannot record the new hailer.toml as trusted")?;
    outln!("Workspace: {}", report.workspace.display())?;
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
        outln!("  {verb} {shown}")?;
    }
    if let Some(mismatch) = &report.runtime_mismatch {
        outln!(
            "\nNote: {} was kept and sets runtime = {}; --kernel {} was not applied. \
             Run `hailer init --force --kernel {}` to rewrite it.",
            mismatch.config_file.display(),
            mismatch
                .kept
                .as_deref()
                .unwrap_or("docker (no [kernel] runtime line)"),
            mismatch.requested,
            mismatch.requested,
        )?;
    }

    let kept = what_the_file_says(workspace, kernel);
    let kernel_note = kernel_note(home, kept.runtime, &kept.image).await;
    outln!("\nNext steps:")?;
    let mut steps = vec![
        "Review hailer.toml (the model, its provider, the data folder).".to_owned(),
        format!(
            "Set {} in the shell you run hailer from (or run `hailer login`).",
            kept.key_variable
        ),
        format!(
            "Put CSV, Parquet, JSON or Excel files in {}.",
            kept.data_folder
        ),
    ];
    if kept.needs_trust {
        steps.push(
            "hailer.toml names programs to run, an endpoint for your key or the unsafe-local \
             runtime: none of them applies until you have read it and run `hailer trust` \
             (`hailer trust --show` lists them)."
                .to_owned(),
        );
    }
    if kernel_note.image_missing {
        steps.push(format!(
            "Get the kernel image: `hailer kernel pull` downloads {} (or `hailer kernel \
             build` builds it here).",
            kept.image
        ));
    }
    steps.push("Run `hailer` here and ask a question.".to_owned());
    for (number, step) in steps.iter().enumerate() {
        outln!("  {}. {step}", number + 1)?;
    }
    outln!()?;
    outln!("{}", kernel_note.text)?;
    Ok(())
}

/// What the workspace's file now says, a kept file included (it wins over `--kernel`).
struct Kept {
    runtime: Runtime,
    image: String,
    key_variable: String,
    /// The data folder as the user sees it: relative to the workspace when inside it.
    data_folder: String,
    /// The file names programs or endpoints that wait for `hailer trust`.
    needs_trust: bool,
}

fn what_the_file_says(workspace: &Path, asked: Option<Runtime>) -> Kept {
    let default_image =
        || hailer_kernel_bundle::default_image_name(&hailer_kernel_bundle::contract());
    let mut inputs = hailer_config::LoadInputs::new(workspace);
    inputs.home = std::env::home_dir();
    inputs.config_dir = hailer_config::HailerHome::from_env()
        .ok()
        .map(|home| home.config_dir);
    match hailer_config::load(&inputs) {
        Ok(loaded) => {
            let needs_trust = loaded.trust.state.refuses();
            // A provider waiting for `hailer trust` still names the variable it will read.
            let refused_key = loaded
                .trust
                .settings
                .iter()
                .find(|s| s.provider.as_deref() == Some(loaded.config.model.provider.as_str()))
                .and_then(|s| s.variables.first().cloned());
            // A runtime waiting for `hailer trust` is what the file asks for, and what the
            // next steps are about.
            let refused_runtime = loaded.trust.refused().any(|s| s.name == "[kernel] runtime");
            let config = loaded.config;
            let data = &config.hailer.data_dir;
            let data_folder = match data.strip_prefix(&loaded.workspace.root) {
                Ok(inside) => format!("{}/", inside.display()),
                Err(_) => data.display().to_string(),
            };
            Kept {
                runtime: if refused_runtime {
                    Runtime::UnsafeLocal
                } else {
                    config.kernel.runtime
                },
                key_variable: config
                    .active_provider()
                    .map(|p| p.env_key.clone())
                    .or(refused_key)
                    .unwrap_or_else(|| "OPENAI_API_KEY".to_owned()),
                needs_trust,
                image: config.kernel.image.unwrap_or_else(default_image),
                data_folder,
            }
        }
        Err(_) => Kept {
            runtime: asked.unwrap_or(Runtime::Docker),
            image: default_image(),
            key_variable: "OPENAI_API_KEY (or your provider's key variable)".to_owned(),
            data_folder: "data/".to_owned(),
            needs_trust: false,
        },
    }
}

struct KernelNote {
    text: String,
    image_missing: bool,
}

/// What `init` says about the kernel: the runtime, whether Docker answers (as hailerd finds
/// it), whether the image is here.
async fn kernel_note(home: &HailerHome, runtime: Runtime, image: &str) -> KernelNote {
    let note = |text: String| KernelNote {
        text,
        image_missing: false,
    };
    if runtime == Runtime::Sandbox {
        return note(match hailer_sandbox::not_offered_on(std::env::consts::OS) {
            None => "Kernel: sandbox. Notebook code runs in your Python, in this system's own \
                     sandbox: no network, the data folder read-only, only the notebooks folder \
                     writable."
                .to_owned(),
            Some(reason) => format!("Kernel: sandbox, but {reason}."),
        });
    }
    if runtime == Runtime::UnsafeLocal {
        return note(
            "Kernel: unsafe-local. Notebook code will run as you, with your files and network; \
             it is not isolated."
                .to_owned(),
        );
    }
    let why = match docker_probe::status(home, image).await {
        Ok(status) => match status.engine {
            DockerEngine::Ready { .. } => {
                let contract = hailer_kernel_bundle::contract();
                return match status.image {
                    Some(KernelImageStatus::Present {
                        contract: found, ..
                    }) if found == contract => note(format!(
                        "Kernel: docker. A Docker engine answers here and the kernel image \
                             {image} is ready."
                    )),
                    Some(KernelImageStatus::Unknown { .. }) | None => {
                        note("Kernel: docker. A Docker engine answers on this machine.".to_owned())
                    }
                    Some(_) => KernelNote {
                        text: format!(
                            "Kernel: docker. A Docker engine answers here; the kernel image \
                             {image} of this Hailer's contract is not here yet:\n  \
                             hailer kernel pull     downloads it\n  \
                             hailer kernel build    builds it on this machine instead"
                        ),
                        image_missing: true,
                    },
                };
            }
            DockerEngine::NotLinux { os } => format!("the engine runs {os} containers"),
            DockerEngine::NoAccess { message } => {
                return note(format!(
                    "Kernel: docker. {message}\n  {}",
                    docker_probe::RESTART_AFTER_GROUP
                ));
            }
            DockerEngine::NotInstalled { message } | DockerEngine::NotRunning { message } => {
                message.trim_end_matches('.').to_owned()
            }
        },
        Err(error) => format!("hailerd could not ask it ({error:#})"),
    };
    let sandbox = if hailer_sandbox::offered() {
        "; or set runtime = \"sandbox\" under [kernel] to run notebook code in this \
         system's own sandbox (no network, data read-only, no Docker needed)"
    } else {
        ""
    };
    note(format!(
        "Kernel: docker, but no Docker engine answers here: {why}.\n  \
         Install Docker Engine or Docker Desktop and start it, then run `hailer kernel \
         pull`{sandbox}; or, if you accept that notebook code then runs as you, set runtime = \
         \"unsafe-local\" under [kernel]."
    ))
}
