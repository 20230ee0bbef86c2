//! The docker runtime: the isolated kernel and its forwarder, with notebook copies in and out.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hailer_docker::Engine;
use hailer_docker::{CopyLimits, CopyState, copy_back, copy_in};
use hailer_docker::{DockerKernel, DockerSpec, cleanup_leftovers};
use hailer_marimo::MarimoClient;
use tokio::sync::Mutex;

use super::{KernelError, KernelSpec};

/// Where the kernel sees the notebooks folder.
pub(super) const KERNEL_NOTEBOOKS: &str = "/work/notebooks";
/// How often changed notebooks come back while the kernel runs.
const COPY_BACK_EVERY: Duration = Duration::from_secs(15);

/// A running docker kernel and what its copies remember.
pub(super) struct DockerServer {
    kernel: DockerKernel,
    pub client: MarimoClient,
    copies: Arc<Mutex<CopyState>>,
    notebooks_dir: PathBuf,
    state_dir: PathBuf,
    /// The memory limit as the user wrote it.
    pub memory: String,
    /// The image name the kernel was started from, and the kernel contract.
    image: String,
    /// The image's digest (`repository@sha256:...`, or its id), when the engine said.
    pub image_digest: Option<String>,
    contract: String,
    periodic: tokio::task::JoinHandle<()>,
    audit: crate::audit::Audit,
}

impl std::fmt::Debug for DockerServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DockerServer")
            .field("kernel", &self.kernel.kernel_name)
            .finish_non_exhaustive()
    }
}

impl DockerServer {
    pub(super) fn base_url(&self) -> &str {
        &self.kernel.base_url
    }

    pub(super) fn token(&self) -> &secrecy::SecretString {
        &self.kernel.token
    }

    /// Whether a container of the kernel ended, and how.
    pub(super) async fn ended(&self) -> hailer_docker::Result<Option<hailer_docker::Ended>> {
        self.kernel.ended().await
    }

    /// The kernel container's output from its last `tail` lines on (raw: holds the token).
    pub(super) fn follow_log(
        &self,
        tail: usize,
    ) -> impl futures_util::Stream<Item = hailer_docker::Result<bytes::Bytes>> + Send + use<> {
        self.kernel.follow_log(tail)
    }

    /// Copies changed notebooks back; a line for the user when something needs saying.
    pub(super) async fn copy_back(&self, last: bool) -> Option<String> {
        let limits = if last {
            CopyLimits::last()
        } else {
            CopyLimits::background()
        };
        let mut state = self.copies.lock().await;
        let report = copy_back(
            &self.client,
            &self.notebooks_dir,
            &self.state_dir,
            &mut state,
            limits,
        )
        .await;
        self.audit.copied_back(&report);
        describe(&report)
    }

    /// Whether the kernel ran out of memory since `since` (and whether its container still
    /// runs); `None` when the engine could not tell.
    pub(super) async fn memory_check(
        &self,
        since: std::time::SystemTime,
    ) -> Option<hailer_docker::MemoryCheck> {
        match self.kernel.memory_check(since).await {
            Ok(check) => Some(check),
            Err(error) => {
                tracing::warn!(%error, "could not check the kernel's memory");
                None
            }
        }
    }

    /// The probes run in a fresh container made like the kernel's, with the engine's view of
    /// the kernel container and of its image.
    pub(super) async fn probe(
        &self,
        command: Vec<String>,
        timeout: Duration,
    ) -> Result<super::probe::DockerProbe, KernelError> {
        let engine = Engine::connect().await?;
        let facts = self.kernel.facts().await?;
        let image =
            hailer_docker::image_facts(&engine, &self.image, &facts.image_id, &self.contract)
                .await?;
        let output = self.kernel.run_like_kernel(command, timeout).await?;
        Ok(super::probe::DockerProbe {
            output,
            facts,
            image,
            contract: self.contract.clone(),
        })
    }

    /// Copies the host's notebooks in again (a notebook created on this machine mid-session).
    pub(super) async fn copy_in(&self) -> Option<String> {
        let mut state = self.copies.lock().await;
        describe(&copy_in(&self.client, &self.notebooks_dir, &mut state).await)
    }

    /// Copies back one last time, then removes the containers and the network.
    pub(super) async fn stop(self) {
        self.periodic.abort();
        if let Some(line) = self.copy_back(true).await {
            tracing::info!(line, "last copy back");
        }
        let removal = self.kernel.stop().await;
        tracing::info!(?removal, "docker kernel removed");
    }
}

/// Starts the kernel: the engine, leftovers of dead sessions, the image's contract, the
/// containers, then the notebooks copied in.
pub(super) async fn start(
    spec: &KernelSpec,
    progress: hailer_marimo::Progress<'_>,
) -> Result<DockerServer, KernelError> {
    let docker = spec
        .docker
        .as_ref()
        .ok_or_else(|| KernelError::Invalid("the docker settings are missing".to_owned()))?;
    let engine = Engine::connect().await?;
    let workspace_id = hailer_docker::workspace_id(&spec.workspace);
    let state_dir = hailer_platform::state_folder_of(&spec.workspace);
    let is_owner_alive = |owner: &str| -> bool { owner_alive(&spec.workspace, owner) };
    let contract = hailer_kernel_bundle::contract();
    let image = docker
        .image
        .clone()
        .unwrap_or_else(|| hailer_docker::default_image_name(&contract));
    // Two independent questions to the engine, asked at once.
    let (removed, checked) = tokio::join!(
        cleanup_leftovers(&engine, &workspace_id, is_owner_alive),
        hailer_docker::ensure_image(&engine, &image, &contract)
    );
    let removed = removed?;
    tracing::info!(?removed, "leftovers of earlier sessions");
    match checked {
        // An image that is not here is downloaded, with progress; one that is here, of whatever
        // contract, is never downloaded again unasked.
        Err(hailer_docker::Error::ImageMissing { .. }) => {
            hailer_docker::pull(&engine, &image, &contract, progress).await?;
        }
        other => other?,
    }
    let image_digest = hailer_docker::image_digest(&engine, &image).await;
    progress(hailer_marimo::Report::Note("Starting the kernel container"));
    let (image_name, contract_name) = (image.clone(), contract.clone());
    let kernel = DockerKernel::start(
        &engine,
        &DockerSpec {
            workspace: spec.workspace.clone(),
            notebooks_dir: spec.notebooks_dir.clone(),
            data_dir: docker.data_dir.clone(),
            image,
            contract,
            memory: docker.memory.clone(),
            cpus: docker.cpus,
            network: docker.network,
            owner_id: docker.owner_id.clone(),
            workspace_id,
            ready_timeout: Duration::from_secs(60),
        },
    )
    .await?;
    let client = match kernel.client() {
        Ok(client) => client,
        Err(error) => {
            kernel.stop().await;
            return Err(error.into());
        }
    };
    let copies = Arc::new(Mutex::new(CopyState::new()));
    {
        let mut state = copies.lock().await;
        let report = copy_in(&client, &spec.notebooks_dir, &mut state).await;
        if let Some(line) = describe(&report) {
            progress(hailer_marimo::Report::Note(&line));
        }
    }
    let periodic = tokio::spawn(copy_back_periodically(
        client.clone(),
        Arc::clone(&copies),
        spec.notebooks_dir.clone(),
        state_dir.clone(),
        spec.audit.clone(),
    ));
    Ok(DockerServer {
        kernel,
        client,
        copies,
        notebooks_dir: spec.notebooks_dir.clone(),
        state_dir,
        memory: docker.memory.to_string(),
        image: image_name,
        image_digest,
        contract: contract_name,
        periodic,
        audit: spec.audit.clone(),
    })
}

/// Whether a session holds the owner lock `owner` of the workspace folder `workspace`.
fn owner_alive(workspace: &Path, owner: &str) -> bool {
    crate::owner_lock::OwnerLock::is_held(&super::docker_leftovers::owner_lock_path(
        workspace, owner,
    ))
}

async fn copy_back_periodically(
    client: MarimoClient,
    copies: Arc<Mutex<CopyState>>,
    notebooks_dir: PathBuf,
    state_dir: PathBuf,
    audit: crate::audit::Audit,
) {
    let mut every = tokio::time::interval(COPY_BACK_EVERY);
    every.tick().await;
    loop {
        every.tick().await;
        let mut state = copies.lock().await;
        let report = copy_back(
            &client,
            &notebooks_dir,
            &state_dir,
            &mut state,
            CopyLimits::background(),
        )
        .await;
        audit.copied_back(&report);
        if let Some(line) = describe(&report) {
            tracing::info!(line, "background copy back");
        }
    }
}

fn describe(report: &hailer_docker::CopyReport) -> Option<String> {
    let mut lines = Vec::new();
    if !report.backups.is_empty() {
        lines.push(format!(
            "Your own edits of {} notebook(s) were saved in .hailer/notebook-backups/ before the kernel's copies replaced them.",
            report.backups.len()
        ));
    }
    if let Some(refused) = report.refused_line() {
        lines.push(refused);
    }
    lines.extend(report.warnings.iter().cloned());
    if report.cut_short {
        lines.push(
            "A notebook copy was cut short; the files on this machine stay as they were and the rest follows on the next pass."
                .to_owned(),
        );
    }
    (!lines.is_empty()).then(|| lines.join(" "))
}

/// The path the kernel sees for a notebook on this machine.
pub(super) fn kernel_path_in(
    notebooks_dir: &Path,
    kernel_notebooks_dir: &Path,
    host: &Path,
) -> PathBuf {
    match host.strip_prefix(notebooks_dir) {
        Ok(relative) => kernel_notebooks_dir.join(relative),
        Err(_) => host.to_path_buf(),
    }
}
