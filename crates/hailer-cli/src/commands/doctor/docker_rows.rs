//! The rows on Docker, as hailerd finds it: does the engine answer, and is the kernel image of
//! this contract there?

use hailer_config::HailerHome;
use hailer_config::Loaded;
use hailer_protocol::{DockerEngine, KernelImageStatus};

use super::{Row, Verdict};
use crate::docker_probe;

/// The `docker` and `image` rows.
pub(super) async fn engine_and_image(home: &HailerHome, loaded: &Loaded) -> Vec<Row> {
    let contract = hailer_kernel_bundle::contract();
    let image = loaded
        .config
        .kernel
        .image
        .clone()
        .unwrap_or_else(|| hailer_kernel_bundle::default_image_name(&contract));
    let status = match docker_probe::status(home, &image).await {
        Ok(status) => status,
        Err(error) => {
            return vec![
                Row::new("docker", Verdict::Warn, format!("not checked: {error:#}")),
                Row::new("image", Verdict::Warn, format!("{image}: not checked")),
            ];
        }
    };
    let docker = match &status.engine {
        DockerEngine::Ready { version } => Row::new(
            "docker",
            Verdict::Ok,
            format!("Docker {version} (Linux engine, at {})", status.endpoint),
        ),
        DockerEngine::NotLinux { os } => Row::new(
            "docker",
            Verdict::Fail,
            format!("Docker runs {os} containers"),
        )
        .hint("Switch the engine to Linux containers."),
        DockerEngine::NoAccess { message } => {
            return vec![
                Row::new("docker", Verdict::Fail, message.clone())
                    .hint(docker_probe::RESTART_AFTER_GROUP),
                Row::new(
                    "image",
                    Verdict::Warn,
                    format!("{image}: not checked, Docker refuses you"),
                ),
            ];
        }
        DockerEngine::NotInstalled { message } | DockerEngine::NotRunning { message } => {
            return vec![
                Row::new("docker", Verdict::Fail, message.clone()).hint(
                    "Start Docker (or point DOCKER_HOST or the docker context at it, then run `hailer daemon stop` so hailerd starts again with it), or write runtime = \"unsafe-local\" under [kernel] to run notebook code as you, without isolation.",
                ),
                Row::new(
                    "image",
                    Verdict::Warn,
                    format!("{image}: not checked, Docker does not answer"),
                ),
            ];
        }
    };
    let image_row = match &status.image {
        Some(
            present @ KernelImageStatus::Present {
                contract: found, ..
            },
        ) => {
            if *found == contract {
                let base = docker_probe::describe_base(present)
                    .map(|base| format!("; {base}"))
                    .unwrap_or_default();
                Row::new(
                    "image",
                    Verdict::Ok,
                    format!("{image} (kernel contract {contract}{base})"),
                )
            } else {
                Row::new(
                    "image",
                    Verdict::Fail,
                    format!(
                        "{image} is for kernel contract '{found}', this Hailer needs {contract}"
                    ),
                )
                .hint("Download the right one with `hailer kernel pull`, or build it here with `hailer kernel build`; or set image under [kernel] to an image of this contract.")
            }
        }
        Some(KernelImageStatus::Missing) => Row::new(
            "image",
            Verdict::Warn,
            format!("{image} is not on this machine yet"),
        )
        .hint(
            "Download it with `hailer kernel pull`, or build it here with `hailer kernel build`.",
        ),
        Some(KernelImageStatus::Unknown { message }) => {
            Row::new("image", Verdict::Warn, format!("{image}: {message}"))
        }
        None => Row::new("image", Verdict::Warn, format!("{image}: not checked")),
    };
    vec![docker, image_row]
}
