//! One docker kernel: an internal network, the kernel on it, and a forwarder published on
//! 127.0.0.1; or, with the network on, the kernel alone, published directly. Everything a start
//! creates is removed by its id when the kernel stops, when the start fails, and (best effort)
//! when the start or the kernel is dropped.

mod ended;
mod leftovers;
mod memory;
mod probe;
mod readiness;
mod removal;
mod settings;
mod spec;
mod token_file;

use bollard::Docker;
use bollard::models::{ContainerCreateBody, NetworkConnectRequest};
use bollard::query_parameters::CreateContainerOptions;
use hailer_marimo::MarimoClient;
use secrecy::SecretString;
use tokio::sync::Mutex;

pub use ended::Ended;
pub use leftovers::{
    cleanup_all_leftovers, cleanup_leftovers, list_kernels, list_workspace_objects, stop_workspace,
};
pub use memory::MemoryCheck;
pub use probe::{ImageFacts, KernelFacts, image_facts};
pub(crate) use removal::Object;
pub use removal::Removal;
use removal::Unanswered;
pub use settings::kernel_command;
pub use spec::{DockerSpec, kernel_user};
pub(crate) use spec::{NOTEBOOKS_IN_KERNEL, nano_cpus};

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::labels::{Ownership, Role, new_suffix, object_name};
use ended::WatchedContainer;
use readiness::Watched;
use removal::remove_in_background;
use settings::{KernelSettings, forwarder_body, kernel_body, network_body, port_key};
use token_file::TokenFile;

/// A running docker kernel.
#[derive(Debug)]
pub struct DockerKernel {
    /// `http://127.0.0.1:<port>`: the forwarder (or the kernel itself with the network on).
    pub base_url: String,
    /// marimo's access token (memory only).
    pub token: SecretString,
    /// The kernel container's name (for `docker logs`).
    pub kernel_name: String,
    /// The kernel container's id.
    pub kernel_id: String,
    /// Whether notebook code can reach the network.
    pub network: bool,
    objects: Mutex<Created>,
    /// The containers whose end ends the kernel: the kernel, then the forwarder.
    watched: Vec<WatchedContainer>,
    docker: Docker,
}

/// What a start created, in creation order, and the creates it is waiting on; removed on drop
/// unless emptied.
#[derive(Debug)]
struct Created {
    docker: Docker,
    containers: Vec<Object>,
    networks: Vec<Object>,
    unanswered: Vec<Unanswered>,
}

impl Created {
    /// Notes a create about to be sent, so a drop before its answer still removes the object.
    fn asking(&mut self, item: Unanswered) {
        self.unanswered.push(item);
    }

    /// Notes that a create was answered, with the object made or with an error.
    fn answered(&mut self, item: &Unanswered) {
        self.unanswered.retain(|other| other != item);
    }

    async fn remove(&mut self) -> Removal {
        // the forwarder before the kernel, then the network
        let containers: Vec<Object> = self.containers.drain(..).rev().collect();
        let networks: Vec<Object> = std::mem::take(&mut self.networks);
        removal::remove_all(&self.docker, &containers, &networks).await
    }
}

impl Drop for Created {
    fn drop(&mut self) {
        let containers: Vec<Object> = self.containers.drain(..).rev().collect();
        let networks = std::mem::take(&mut self.networks);
        let unanswered = std::mem::take(&mut self.unanswered);
        remove_in_background(self.docker.clone(), unanswered, containers, networks);
    }
}

impl DockerKernel {
    /// Starts a kernel as `spec` says and waits until its marimo answers to this start's token
    /// only. On any failure everything created is removed before the error returns.
    pub async fn start(engine: &Engine, spec: &DockerSpec) -> Result<Self> {
        let memory_bytes = i64::try_from(spec.memory.bytes).map_err(|_| {
            Error::InvalidSetting(format!(
                "memory = \"{}\" under [kernel] is more than Docker can take",
                spec.memory
            ))
        })?;
        let nano_cpus = nano_cpus(spec.cpus)?;
        if !spec.data_dir.is_dir() {
            return Err(Error::InvalidSetting(format!(
                "the data folder {} does not exist; create it or set data_dir under [hailer]",
                spec.data_dir.display()
            )));
        }
        let data_dir = std::fs::canonicalize(&spec.data_dir).map_err(Error::file(
            "cannot resolve the data folder",
            &spec.data_dir,
        ))?;
        let token = hailer_marimo::generate_token();
        let user = kernel_user();
        let token_file = TokenFile::create(&spec.state_dir(), &token, user)?;
        let mut created = Created {
            docker: engine.docker().clone(),
            containers: Vec::new(),
            networks: Vec::new(),
            unanswered: Vec::new(),
        };
        let settings = KernelSettings {
            image: &spec.image,
            data_dir: &data_dir,
            token_file: token_file.path(),
            user,
            memory_bytes,
            nano_cpus,
            network: None,
        };
        let started = create_and_wait(engine.docker(), spec, settings, &token, &mut created).await;
        // The token file goes once marimo has read it, and on every failure.
        drop(token_file);
        match started {
            Ok((base_url, kernel)) => {
                let watched = created
                    .containers
                    .iter()
                    .map(|object| WatchedContainer {
                        role: if object.id == kernel.id {
                            "kernel"
                        } else {
                            "forwarder"
                        },
                        object: object.clone(),
                    })
                    .collect();
                Ok(Self {
                    base_url,
                    token,
                    kernel_name: kernel.name,
                    kernel_id: kernel.id,
                    network: spec.network,
                    objects: Mutex::new(created),
                    watched,
                    docker: engine.docker().clone(),
                })
            }
            Err(error) => {
                let removal = created.remove().await;
                if !removal.is_complete() {
                    tracing::warn!(summary = %removal.summary(), "a failed start left objects behind");
                }
                Err(error)
            }
        }
    }

    /// A marimo client for this kernel.
    pub fn client(&self) -> Result<MarimoClient> {
        Ok(MarimoClient::new(&self.base_url, self.token.clone())?)
    }

    /// Whether the kernel ran out of memory since `since`, and whether its container still runs.
    pub async fn memory_check(&self, since: std::time::SystemTime) -> Result<MemoryCheck> {
        memory::check_memory(&self.docker, &self.kernel_id, since).await
    }

    /// Whether a container of the kernel ended, and how; `None` while both run.
    pub async fn ended(&self) -> Result<Option<Ended>> {
        ended::first_ended(&self.docker, &self.watched).await
    }

    /// The kernel's output from its last `tail` lines on, as marimo writes it (raw: it may
    /// hold the token, which the caller masks). Ends when the kernel container stops.
    pub fn follow_log(
        &self,
        tail: usize,
    ) -> impl futures_util::Stream<Item = Result<bytes::Bytes>> + Send + use<> {
        ended::follow(&self.docker, &self.kernel_id, tail)
    }

    /// What the engine says the kernel container has (its network, limits, user, mounts).
    pub async fn facts(&self) -> Result<KernelFacts> {
        probe::kernel_facts(&self.docker, &self.kernel_id).await
    }

    /// Runs `command` in a fresh container made like the kernel's (its image by id, user,
    /// environment, network, limits and read-only data mount; no port, nothing else mounted)
    /// and returns its standard output. The container is removed whatever happens.
    pub async fn run_like_kernel(
        &self,
        command: Vec<String>,
        timeout: std::time::Duration,
    ) -> Result<String> {
        probe::run_like_kernel(&self.docker, &self.kernel_id, command, timeout).await
    }

    /// Removes the kernel's containers and network. Safe to call again: later calls find
    /// nothing left to remove.
    pub async fn stop(&self) -> Removal {
        self.objects.lock().await.remove().await
    }
}

/// Creates the network, the kernel and the forwarder, recording each id as soon as the engine
/// gives it, then waits for marimo. Returns the base URL and the kernel.
async fn create_and_wait(
    docker: &Docker,
    spec: &DockerSpec,
    mut settings: KernelSettings<'_>,
    token: &SecretString,
    created: &mut Created,
) -> Result<(String, Object)> {
    let began = std::time::Instant::now();
    let suffix = new_suffix();
    let ownership = Ownership {
        workspace_id: &spec.workspace_id,
        workspace: &spec.workspace,
        contract: &spec.contract,
        owner_id: &spec.owner_id,
    };
    let network_name = object_name(Role::Network, &spec.workspace_id, &suffix);
    if !spec.network {
        let asked = Unanswered::Network(network_name.clone());
        created.asking(asked.clone());
        let reply = docker
            .create_network(network_body(&network_name, &ownership))
            .await;
        created.answered(&asked);
        let reply = reply.map_err(Error::engine("create the kernel's network"))?;
        created.networks.push(Object {
            id: reply.id,
            name: network_name.clone(),
        });
        settings.network = Some(&network_name);
        tracing::debug!(elapsed = ?began.elapsed(), "network created");
    }
    let kernel_name = object_name(Role::Kernel, &spec.workspace_id, &suffix);
    let asked = Unanswered::Container(kernel_name.clone());
    created.asking(asked.clone());
    let kernel = create_container(
        docker,
        &kernel_name,
        kernel_body(&settings, &ownership),
        "kernel",
    )
    .await;
    created.answered(&asked);
    let kernel = kernel?;
    created.containers.push(kernel.clone());
    tracing::debug!(elapsed = ?began.elapsed(), "kernel container created");
    // The kernel boots (the long part) while the forwarder is made and joined to its network.
    let start_kernel = async {
        docker
            .start_container(&kernel.id, None)
            .await
            .map_err(Error::engine(format!("start {}", kernel.name)))?;
        tracing::debug!(elapsed = ?began.elapsed(), "kernel container started");
        Ok::<_, Error>(())
    };
    let published = if spec.network {
        start_kernel.await?;
        kernel.clone()
    } else {
        let name = object_name(Role::Forwarder, &spec.workspace_id, &suffix);
        let asked = Unanswered::Container(name.clone());
        created.asking(asked.clone());
        // The forwarder is made, joined and started while the kernel starts: it dials the kernel
        // only when a connection comes, and the readiness probe waits for both.
        let forwarder_started = async {
            let forwarder = create_container(
                docker,
                &name,
                forwarder_body(&spec.image, &kernel_name, &ownership),
                "forwarder",
            )
            .await;
            // Recorded before anything else can fail, so every exit path removes it.
            created.answered(&asked);
            let forwarder = forwarder?;
            created.containers.push(forwarder.clone());
            tracing::debug!(elapsed = ?began.elapsed(), "forwarder created");
            let connect = NetworkConnectRequest {
                container: forwarder.id.clone(),
                endpoint_config: None,
            };
            docker
                .connect_network(&network_name, connect)
                .await
                .map_err(Error::engine("join the forwarder to the kernel's network"))?;
            tracing::debug!(elapsed = ?began.elapsed(), "forwarder joined the network");
            docker
                .start_container(&forwarder.id, None)
                .await
                .map_err(Error::engine(format!("start {}", forwarder.name)))?;
            tracing::debug!(elapsed = ?began.elapsed(), "forwarder started");
            Ok::<_, Error>(forwarder)
        };
        let (kernel_started, forwarder) = tokio::join!(start_kernel, forwarder_started);
        kernel_started?;
        forwarder?
    };
    tracing::debug!(elapsed = ?began.elapsed(), "kernel containers started");
    let mut watched = vec![Watched {
        object: &kernel,
        role: "kernel",
    }];
    if !spec.network {
        watched.push(Watched {
            object: &published,
            role: "forwarder",
        });
    }
    // A container that stopped at once has no port: say why it stopped instead.
    for item in &watched {
        readiness::check_running(docker, item, token, &spec.memory.written).await?;
    }
    let port = published_port(docker, &published).await?;
    let base_url = format!("http://127.0.0.1:{port}");
    readiness::wait_ready(
        docker,
        &watched,
        &kernel,
        &base_url,
        token,
        &spec.memory.written,
        spec.ready_timeout,
    )
    .await?;
    tracing::info!(kernel = %kernel.name, %base_url, network = spec.network, elapsed = ?began.elapsed(), "docker kernel ready");
    Ok((base_url, kernel))
}

async fn create_container(
    docker: &Docker,
    name: &str,
    body: ContainerCreateBody,
    role: &str,
) -> Result<Object> {
    let options = CreateContainerOptions {
        name: Some(name.to_owned()),
        ..Default::default()
    };
    let reply = docker
        .create_container(Some(options), body)
        .await
        .map_err(Error::engine(format!("create the {role} container")))?;
    Ok(Object {
        id: reply.id,
        name: name.to_owned(),
    })
}

/// The host port the engine picked for the kernel port of `object`.
async fn published_port(docker: &Docker, object: &Object) -> Result<u16> {
    let inspect = docker
        .inspect_container(&object.id, None)
        .await
        .map_err(Error::engine(format!("inspect {}", object.name)))?;
    inspect
        .network_settings
        .and_then(|settings| settings.ports)
        .and_then(|ports| ports.get(&port_key()).cloned().flatten())
        .and_then(|bindings| {
            bindings
                .into_iter()
                .filter(|b| b.host_ip.as_deref() == Some("127.0.0.1"))
                .find_map(|b| b.host_port.and_then(|port| port.parse().ok()))
        })
        .ok_or_else(|| Error::Engine {
            what: format!("publish the port of {}", object.name),
            said: "the container has no port on 127.0.0.1".to_owned(),
        })
}
