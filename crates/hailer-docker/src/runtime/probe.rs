//! `hailer doctor --probe` from outside the kernel: a fresh container made from the kernel
//! container's own image and settings runs the probes, and the engine tells what the kernel
//! container really has. Nothing run in the kernel before can change either.

use std::collections::HashMap;
use std::time::Duration;

use bollard::Docker;
use bollard::models::{ContainerCreateBody, ContainerInspectResponse, HostConfig};
use bollard::query_parameters::{CreateContainerOptions, LogsOptions, RemoveContainerOptions};
use futures_util::StreamExt;

use super::spec::DATA_IN_KERNEL;
use crate::engine::Engine;
use crate::error::{Error, Result, engine_status};
use crate::labels::{CONTRACT_LABEL, ROLE_LABEL, Role, WORKSPACE_LABEL, new_suffix, object_name};

/// At most this much of the probe container's output is read.
const OUTPUT_LIMIT: usize = 1024 * 1024;

/// What the engine says the kernel container has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelFacts {
    /// The network mode (`bridge` when the kernel may reach the network, else its network).
    pub network_mode: String,
    /// Whether that network is internal (no route out); `None` when the engine did not say.
    pub internal_network: Option<bool>,
    /// Whether the root filesystem is read-only.
    pub read_only_root: bool,
    /// The user the container runs as, as the engine has it (`1000:1000`).
    pub user: String,
    /// Whether every capability is dropped and none added, and the container is not privileged.
    pub no_capabilities: bool,
    /// Whether `no-new-privileges` is set.
    pub no_new_privileges: bool,
    /// The memory limit in bytes (0: none) and whether swap is limited to it.
    pub memory: i64,
    /// Whether memory plus swap is the memory limit (no swap beyond it).
    pub no_swap: bool,
    /// The process limit (0 or less: none).
    pub pids_limit: i64,
    /// Whether the data folder is mounted read-only; `None` when it is not mounted.
    pub data_read_only: Option<bool>,
    /// Mounts whose source is a Docker socket.
    pub docker_sockets: Vec<String>,
    /// The id of the image the container runs.
    pub image_id: String,
}

/// The image a kernel runs, as the engine has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageFacts {
    /// The configured image name.
    pub name: String,
    /// The image id (its content digest) the kernel container runs.
    pub id: String,
    /// The contract label of that image.
    pub contract: Option<String>,
    /// Whether the configured name still names that image.
    pub name_matches: bool,
    /// Whether it is the image Hailer builds or pulls for this contract (same id as
    /// [`crate::default_image_name`]); a derived image is not.
    pub ours: bool,
}

/// The engine's view of the kernel container `kernel_id`.
pub(super) async fn kernel_facts(docker: &Docker, kernel_id: &str) -> Result<KernelFacts> {
    let inspect = inspect(docker, kernel_id).await?;
    let host = inspect.host_config.clone().unwrap_or_default();
    let config = inspect.config.clone().unwrap_or_default();
    let network_mode = host.network_mode.clone().unwrap_or_default();
    let internal_network = match network_mode.as_str() {
        "" | "default" | "bridge" | "host" | "none" => Some(network_mode == "none"),
        name => docker
            .inspect_network(name, None)
            .await
            .ok()
            .and_then(|network| network.internal),
    };
    let caps_dropped = host
        .cap_drop
        .as_deref()
        .is_some_and(|caps| caps.iter().any(|cap| cap.eq_ignore_ascii_case("ALL")));
    let caps_added = host.cap_add.as_deref().is_some_and(|caps| !caps.is_empty());
    let mounts = inspect.mounts.clone().unwrap_or_default();
    let data_read_only = mounts
        .iter()
        .find(|mount| mount.destination.as_deref() == Some(DATA_IN_KERNEL))
        .map(|mount| mount.rw != Some(true));
    let docker_sockets = mounts
        .iter()
        .filter_map(|mount| mount.source.clone())
        .filter(|source| source.ends_with("docker.sock"))
        .collect();
    let memory = host.memory.unwrap_or(0);
    Ok(KernelFacts {
        network_mode,
        internal_network,
        read_only_root: host.readonly_rootfs == Some(true),
        user: config.user.unwrap_or_default(),
        no_capabilities: caps_dropped && !caps_added && host.privileged != Some(true),
        no_new_privileges: host.security_opt.as_deref().is_some_and(|options| {
            options
                .iter()
                .any(|option| option == "no-new-privileges" || option == "no-new-privileges:true")
        }),
        memory,
        no_swap: memory > 0 && host.memory_swap == Some(memory),
        pids_limit: host.pids_limit.unwrap_or(0),
        data_read_only,
        docker_sockets,
        image_id: inspect.image.unwrap_or_default(),
    })
}

/// The image `configured` names, against the one the kernel runs (`running_id`) and the one
/// Hailer makes for `contract`.
pub async fn image_facts(
    engine: &Engine,
    configured: &str,
    running_id: &str,
    contract: &str,
) -> Result<ImageFacts> {
    let docker = engine.docker();
    let named_id = image_id(docker, configured).await?;
    let ours_id = image_id(docker, &crate::default_image_name(contract)).await?;
    let labels = docker
        .inspect_image(running_id)
        .await
        .map_err(Error::engine(format!("inspect the image {running_id}")))?
        .config
        .and_then(|config| config.labels)
        .unwrap_or_default();
    Ok(ImageFacts {
        name: configured.to_owned(),
        id: running_id.to_owned(),
        contract: labels.get(CONTRACT_LABEL).cloned(),
        name_matches: named_id.as_deref() == Some(running_id),
        ours: ours_id.as_deref() == Some(running_id),
    })
}

async fn image_id(docker: &Docker, name: &str) -> Result<Option<String>> {
    match docker.inspect_image(name).await {
        Ok(inspect) => Ok(inspect.id),
        Err(error) if engine_status(&error) == Some(404) => Ok(None),
        Err(error) => Err(Error::engine(format!("inspect the image {name}"))(error)),
    }
}

async fn inspect(docker: &Docker, id: &str) -> Result<ContainerInspectResponse> {
    docker
        .inspect_container(id, None)
        .await
        .map_err(Error::engine("inspect the kernel container"))
}

/// Runs `command` in a new container made like the kernel container `kernel_id`: its image (by
/// id), user, environment, network, limits, capabilities and read-only data mount, with no
/// port published and nothing else mounted. Returns what it printed on its standard output; the
/// container is removed whatever happens. It carries the kernel's labels (role `probe`), so
/// a daemon that dies meanwhile leaves it to the next one's cleanup.
pub(super) async fn run_like_kernel(
    docker: &Docker,
    kernel_id: &str,
    command: Vec<String>,
    timeout: Duration,
) -> Result<String> {
    let inspect = inspect(docker, kernel_id).await?;
    let config = inspect.config.clone().unwrap_or_default();
    let labels = probe_labels(config.labels.clone().unwrap_or_default());
    let workspace_id = labels.get(WORKSPACE_LABEL).cloned().unwrap_or_default();
    let name = object_name(Role::Probe, &workspace_id, &new_suffix());
    let body = ContainerCreateBody {
        image: inspect.image.clone(),
        cmd: Some(command),
        entrypoint: Some(Vec::new()),
        user: config.user.clone(),
        working_dir: config.working_dir.clone(),
        env: config.env.clone(),
        labels: Some(labels),
        host_config: Some(host_like(inspect.host_config.clone().unwrap_or_default())),
        ..Default::default()
    };
    let options = CreateContainerOptions {
        name: Some(name.clone()),
        ..Default::default()
    };
    let created = docker
        .create_container(Some(options), body)
        .await
        .map_err(Error::engine("create the probe container"))?;
    let ran = tokio::time::timeout(timeout, run_to_end(docker, &created.id)).await;
    let removed = docker
        .remove_container(
            &created.id,
            Some(RemoveContainerOptions {
                force: true,
                v: true,
                ..Default::default()
            }),
        )
        .await;
    if let Err(error) = removed {
        tracing::warn!(%error, name, "could not remove the probe container");
    }
    match ran {
        Ok(output) => output,
        Err(_) => Err(Error::Engine {
            what: format!("run the probes in {name}"),
            said: format!("they did not end within {} s", timeout.as_secs()),
        }),
    }
}

/// The kernel's host settings without its published ports and with only the data mount.
fn host_like(host: HostConfig) -> HostConfig {
    HostConfig {
        network_mode: host.network_mode,
        init: host.init,
        readonly_rootfs: host.readonly_rootfs,
        tmpfs: host.tmpfs,
        mounts: host.mounts.map(|mounts| {
            mounts
                .into_iter()
                .filter(|mount| mount.target.as_deref() == Some(DATA_IN_KERNEL))
                .collect()
        }),
        cap_drop: host.cap_drop,
        cap_add: host.cap_add,
        privileged: host.privileged,
        security_opt: host.security_opt,
        pids_limit: host.pids_limit,
        memory: host.memory,
        memory_swap: host.memory_swap,
        nano_cpus: host.nano_cpus,
        ..Default::default()
    }
}

async fn run_to_end(docker: &Docker, id: &str) -> Result<String> {
    docker
        .start_container(id, None)
        .await
        .map_err(Error::engine("start the probe container"))?;
    let mut waiting = docker.wait_container(id, None);
    // The wait ends with the container; a non-zero exit is an error value here, and the output
    // says why, so it is read either way.
    let _ = waiting.next().await;
    let options = LogsOptions {
        stdout: true,
        stderr: false,
        ..Default::default()
    };
    let mut stream = docker.logs(id, Some(options));
    let mut output = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(Error::engine("read the probe container's output"))?;
        output.extend_from_slice(&chunk.into_bytes());
        if output.len() > OUTPUT_LIMIT {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&output).into_owned())
}

/// The kernel's labels with the role `probe`.
fn probe_labels(mut labels: HashMap<String, String>) -> HashMap<String, String> {
    labels.insert(ROLE_LABEL.to_owned(), Role::Probe.as_str().to_owned());
    labels
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use bollard::models::{Mount, PortBinding};

    use super::*;

    #[test]
    fn the_probe_container_keeps_the_limits_and_only_the_data_mount() {
        let bind = |target: &str| Mount {
            target: Some(target.to_owned()),
            read_only: Some(true),
            ..Default::default()
        };
        let kernel = HostConfig {
            network_mode: Some("hailer-net-x".to_owned()),
            readonly_rootfs: Some(true),
            mounts: Some(vec![bind(DATA_IN_KERNEL), bind("/run/hailer/token")]),
            cap_drop: Some(vec!["ALL".to_owned()]),
            pids_limit: Some(256),
            memory: Some(1 << 30),
            port_bindings: Some(HashMap::from([(
                "2718/tcp".to_owned(),
                Some(vec![PortBinding::default()]),
            )])),
            ..Default::default()
        };
        let probe = host_like(kernel);
        assert_eq!(probe.network_mode.as_deref(), Some("hailer-net-x"));
        assert_eq!(probe.readonly_rootfs, Some(true));
        assert_eq!(probe.pids_limit, Some(256));
        assert_eq!(probe.memory, Some(1 << 30));
        assert!(probe.port_bindings.is_none());
        let mounts = probe.mounts.unwrap();
        assert_eq!(mounts.len(), 1);
        assert_eq!(mounts[0].target.as_deref(), Some(DATA_IN_KERNEL));
        let labels = probe_labels(HashMap::from([(
            ROLE_LABEL.to_owned(),
            "kernel".to_owned(),
        )]));
        assert_eq!(labels[ROLE_LABEL], "probe");
    }
}
