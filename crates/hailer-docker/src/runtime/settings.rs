//! The exact settings of the kernel, the forwarder and their network, as engine API bodies.

use std::collections::HashMap;
use std::path::Path;

use bollard::models::{
    ContainerCreateBody, HostConfig, Mount, MountType, NetworkCreateRequest, PortBinding,
};

use super::spec::{
    DATA_IN_KERNEL, HOME_IN_KERNEL, KERNEL_PORT, NOTEBOOKS_IN_KERNEL, TOKEN_IN_KERNEL,
};
use crate::labels::{Ownership, Role};

/// The notebooks folder's size limit (it counts towards the memory limit as it fills).
const NOTEBOOKS_SIZE: &str = "512m";
/// Processes the kernel may run.
const KERNEL_PIDS: i64 = 256;
/// The forwarder's limits.
const FORWARDER_PIDS: i64 = 64;
const FORWARDER_MEMORY: i64 = 64 * 1024 * 1024;

/// The kernel's settings that come from the start.
#[derive(Debug, Clone)]
pub(super) struct KernelSettings<'a> {
    pub image: &'a str,
    pub data_dir: &'a Path,
    pub token_file: &'a Path,
    pub user: (u32, u32),
    pub memory_bytes: i64,
    pub nano_cpus: i64,
    /// The internal network to join; `None` for the network-on variant, published directly.
    pub network: Option<&'a str>,
}

/// The internal network: no route out, and Docker publishes no port on it. Its bridge gets no
/// address on this machine: an internal network still gives the host its gateway address,
/// through which a container reaches every service listening on all of this machine's
/// interfaces.
pub(super) fn network_body(name: &str, ownership: &Ownership<'_>) -> NetworkCreateRequest {
    NetworkCreateRequest {
        name: name.to_owned(),
        driver: Some("bridge".to_owned()),
        internal: Some(true),
        options: Some(HashMap::from([(
            "com.docker.network.bridge.inhibit_ipv4".to_owned(),
            "true".to_owned(),
        )])),
        labels: Some(ownership.labels(Role::Network)),
        ..Default::default()
    }
}

/// marimo's command line: the notebooks folder, all interfaces of the container (only the
/// forwarder or the loopback publish reach it), the token from the mounted file. marimo is
/// started by the image's Python with the program kernels start sooner from
/// ([`hailer_marimo::MARIMO_EDIT_PROGRAM`]), as on the host.
pub fn kernel_command() -> Vec<String> {
    let marimo_arguments = [
        "edit",
        NOTEBOOKS_IN_KERNEL,
        "--headless",
        "--host",
        "0.0.0.0",
        "--port",
        "2718",
        "--token-password-file",
        TOKEN_IN_KERNEL,
        "--skip-update-check",
    ];
    ["python", "-c", hailer_marimo::MARIMO_EDIT_PROGRAM]
        .into_iter()
        .chain(marimo_arguments)
        .map(str::to_owned)
        .collect()
}

/// The kernel container.
pub(super) fn kernel_body(
    settings: &KernelSettings<'_>,
    ownership: &Ownership<'_>,
) -> ContainerCreateBody {
    let (uid, gid) = settings.user;
    let tmpfs = HashMap::from([
        ("/tmp".to_owned(), "rw,nosuid,nodev,mode=1777".to_owned()),
        (
            HOME_IN_KERNEL.to_owned(),
            format!("rw,nosuid,nodev,uid={uid},gid={gid},mode=0700"),
        ),
        (
            NOTEBOOKS_IN_KERNEL.to_owned(),
            format!("rw,nosuid,nodev,size={NOTEBOOKS_SIZE},uid={uid},gid={gid},mode=0700"),
        ),
    ]);
    let mounts = vec![
        read_only_bind(settings.data_dir, DATA_IN_KERNEL),
        read_only_bind(settings.token_file, TOKEN_IN_KERNEL),
    ];
    let (network_mode, port_bindings, exposed) = match settings.network {
        Some(internal) => (internal.to_owned(), None, None),
        None => (
            "bridge".to_owned(),
            Some(loopback_publish()),
            Some(vec![port_key()]),
        ),
    };
    ContainerCreateBody {
        image: Some(settings.image.to_owned()),
        cmd: Some(kernel_command()),
        entrypoint: Some(Vec::new()),
        user: Some(format!("{uid}:{gid}")),
        working_dir: Some("/work".to_owned()),
        env: Some(vec![format!("HOME={HOME_IN_KERNEL}")]),
        labels: Some(ownership.labels(Role::Kernel)),
        exposed_ports: exposed,
        host_config: Some(HostConfig {
            network_mode: Some(network_mode),
            port_bindings,
            init: Some(true),
            readonly_rootfs: Some(true),
            tmpfs: Some(tmpfs),
            mounts: Some(mounts),
            cap_drop: Some(vec!["ALL".to_owned()]),
            security_opt: Some(vec!["no-new-privileges".to_owned()]),
            pids_limit: Some(KERNEL_PIDS),
            memory: Some(settings.memory_bytes),
            memory_swap: Some(settings.memory_bytes),
            nano_cpus: Some(settings.nano_cpus),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The forwarder: the same image, our own TCP forwarder, published on 127.0.0.1 only. It is
/// created on the default network (a port can only be published there) and joined to the
/// kernel's internal network before it starts.
pub(super) fn forwarder_body(
    image: &str,
    kernel_name: &str,
    ownership: &Ownership<'_>,
) -> ContainerCreateBody {
    ContainerCreateBody {
        image: Some(image.to_owned()),
        cmd: Some(
            [
                "python".to_owned(),
                "-m".to_owned(),
                "hailer_kernel.forward".to_owned(),
                KERNEL_PORT.to_string(),
                format!("{kernel_name}:{KERNEL_PORT}"),
            ]
            .to_vec(),
        ),
        entrypoint: Some(Vec::new()),
        env: Some(vec![format!("HOME={HOME_IN_KERNEL}")]),
        labels: Some(ownership.labels(Role::Forwarder)),
        exposed_ports: Some(vec![port_key()]),
        host_config: Some(HostConfig {
            network_mode: Some("bridge".to_owned()),
            port_bindings: Some(loopback_publish()),
            init: Some(true),
            readonly_rootfs: Some(true),
            cap_drop: Some(vec!["ALL".to_owned()]),
            security_opt: Some(vec!["no-new-privileges".to_owned()]),
            pids_limit: Some(FORWARDER_PIDS),
            memory: Some(FORWARDER_MEMORY),
            memory_swap: Some(FORWARDER_MEMORY),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `2718/tcp`.
pub(super) fn port_key() -> String {
    format!("{KERNEL_PORT}/tcp")
}

/// The kernel port published on 127.0.0.1 at a port the engine picks.
fn loopback_publish() -> HashMap<String, Option<Vec<PortBinding>>> {
    HashMap::from([(
        port_key(),
        Some(vec![PortBinding {
            host_ip: Some("127.0.0.1".to_owned()),
            host_port: Some(String::new()),
        }]),
    )])
}

fn read_only_bind(source: &Path, target: &str) -> Mount {
    Mount {
        typ: Some(MountType::BIND),
        source: Some(source.to_string_lossy().into_owned()),
        target: Some(target.to_owned()),
        read_only: Some(true),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn ownership() -> Ownership<'static> {
        Ownership {
            workspace_id: "0123456789abcdef",
            workspace: Path::new("/ws"),
            contract: "marimo0.24.2-abc",
            owner_id: "fedcba9876543210",
        }
    }

    fn settings(network: Option<&str>) -> KernelSettings<'_> {
        KernelSettings {
            image: "hailer-kernel:x",
            data_dir: Path::new("/ws/data"),
            token_file: Path::new("/ws/.hailer/kernel-token-1/token"),
            user: (1001, 1002),
            memory_bytes: 4 << 30,
            nano_cpus: 2_000_000_000,
            network,
        }
    }

    #[test]
    fn the_kernel_is_locked_down() {
        let body = kernel_body(&settings(Some("hailer-net-x")), &ownership());
        let host = body.host_config.unwrap();
        assert_eq!(host.network_mode.as_deref(), Some("hailer-net-x"));
        assert!(
            host.port_bindings.is_none(),
            "no port on the internal network"
        );
        assert_eq!(host.readonly_rootfs, Some(true));
        assert_eq!(host.init, Some(true));
        assert_eq!(host.cap_drop, Some(vec!["ALL".to_owned()]));
        assert_eq!(
            host.security_opt,
            Some(vec!["no-new-privileges".to_owned()])
        );
        assert_eq!(host.pids_limit, Some(256));
        assert_eq!(host.memory, host.memory_swap, "no swap on top of memory");
        assert_eq!(host.nano_cpus, Some(2_000_000_000));
        let tmpfs = host.tmpfs.unwrap();
        assert!(tmpfs["/work/notebooks"].contains("size=512m,uid=1001,gid=1002,mode=0700"));
        assert!(tmpfs.contains_key("/tmp"));
        assert!(tmpfs["/home/analyst"].contains("uid=1001,gid=1002,mode=0700"));
        let mounts = host.mounts.unwrap();
        assert!(mounts.iter().all(|m| m.read_only == Some(true)));
        assert_eq!(mounts.len(), 2);
        assert_eq!(body.user.as_deref(), Some("1001:1002"));
        assert_eq!(body.env, Some(vec!["HOME=/home/analyst".to_owned()]));
        assert_eq!(body.working_dir.as_deref(), Some("/work"));
        let command = body.cmd.unwrap();
        assert_eq!(command[..2], ["python", "-c"]);
        assert_eq!(command[2], hailer_marimo::MARIMO_EDIT_PROGRAM);
        let arguments = command[3..].join(" ");
        assert!(arguments.starts_with("edit /work/notebooks --headless --host 0.0.0.0"));
        assert!(arguments.contains("--token-password-file /run/secrets/hailer-token"));
    }

    #[test]
    fn with_network_on_the_kernel_is_published_on_loopback_only() {
        let body = kernel_body(&settings(None), &ownership());
        let host = body.host_config.unwrap();
        assert_eq!(host.network_mode.as_deref(), Some("bridge"));
        let bindings = host.port_bindings.unwrap();
        let binding = &bindings["2718/tcp"].as_ref().unwrap()[0];
        assert_eq!(binding.host_ip.as_deref(), Some("127.0.0.1"));
    }

    #[test]
    fn the_forwarder_is_published_on_loopback_and_locked_down() {
        let body = forwarder_body("img", "hailer-kernel-x-y", &ownership());
        assert_eq!(
            body.cmd.unwrap().join(" "),
            "python -m hailer_kernel.forward 2718 hailer-kernel-x-y:2718"
        );
        let host = body.host_config.unwrap();
        let binding = &host.port_bindings.unwrap()["2718/tcp"].as_ref().unwrap()[0].clone();
        assert_eq!(binding.host_ip.as_deref(), Some("127.0.0.1"));
        assert_eq!(host.readonly_rootfs, Some(true));
        assert_eq!(host.cap_drop, Some(vec!["ALL".to_owned()]));
    }

    #[test]
    fn the_network_is_internal_and_labelled() {
        let body = network_body("hailer-net-x", &ownership());
        assert_eq!(body.internal, Some(true));
        let options = body.options.unwrap();
        assert_eq!(options["com.docker.network.bridge.inhibit_ipv4"], "true");
        assert_eq!(body.labels.unwrap()["org.hailer.role"], "network");
    }
}
