//! The rows that ask the Docker engine: is it there, and is the kernel image of this contract?

use hailer_config::Loaded;

use super::{Row, Verdict};
use crate::docker_probe;

/// The `docker` and `image` rows.
pub async fn engine_and_image(loaded: &Loaded) -> Vec<Row> {
    let contract = hailer_kernel_bundle::contract();
    let image = loaded
        .config
        .kernel
        .image
        .clone()
        .unwrap_or_else(|| hailer_kernel_bundle::default_image_name(&contract));
    let socket = match docker_probe::socket() {
        Ok(socket) => socket,
        Err(host) => {
            return vec![
                Row::new(
                    "docker",
                    Verdict::Warn,
                    format!("DOCKER_HOST names a remote engine ({host}); not checked"),
                ),
                Row::new("image", Verdict::Warn, format!("{image}: not checked")),
            ];
        }
    };
    let Some((version, os)) = docker_probe::engine_version(&socket).await else {
        let why = if socket.exists() {
            format!("Docker does not answer at {}", socket.display())
        } else {
            format!(
                "Docker is not running here (no socket at {})",
                socket.display()
            )
        };
        return vec![
            Row::new("docker", Verdict::Fail, why).hint(
                "Start Docker (or point DOCKER_HOST at it), or write runtime = \"unsafe-local\" under [kernel] to run notebook code as you, without isolation.",
            ),
            Row::new(
                "image",
                Verdict::Warn,
                format!("{image}: not checked, Docker does not answer"),
            ),
        ];
    };
    let docker = if os == "linux" {
        Row::new(
            "docker",
            Verdict::Ok,
            format!("Docker {version} (Linux engine)"),
        )
    } else {
        Row::new(
            "docker",
            Verdict::Fail,
            format!("Docker {version} runs {os} containers"),
        )
        .hint("Switch the engine to Linux containers.")
    };
    vec![docker, image_row(&socket, &image, &contract).await]
}

async fn image_row(socket: &docker_probe::EngineSocket, image: &str, contract: &str) -> Row {
    match docker_probe::image_labels(socket, image).await {
        Ok(Some(labels)) => {
            let found = &labels.contract;
            if found == contract {
                let base = labels
                    .describe_base()
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
        Ok(None) => Row::new(
            "image",
            Verdict::Warn,
            format!("{image} is not on this machine yet"),
        )
        .hint(
            "Download it with `hailer kernel pull`, or build it here with `hailer kernel build`.",
        ),
        Err(error) => Row::new("image", Verdict::Warn, format!("{image}: {error:#}")),
    }
}

#[cfg(test)]
mod tests {
    use crate::docker_probe::ImageLabels;

    #[test]
    fn the_base_image_is_described_with_a_short_digest() {
        let labels = ImageLabels {
            contract: "c".to_owned(),
            base: Some("python:3.13-slim".to_owned()),
            base_digest: Some(format!("sha256:{}", "ab".repeat(32))),
        };
        assert_eq!(
            labels.describe_base().as_deref(),
            Some("built from python:3.13-slim (sha256:abababababab)")
        );
        assert_eq!(ImageLabels::default().describe_base(), None);
    }
}
