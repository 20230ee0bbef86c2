//! What the tests against the real Docker engine share: the engine, the kernel image (built
//! once per machine through `hailer_docker::build` from the test wheelhouse, then reused while its
//! contract label matches), and throw-away workspaces.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hailer_docker::BuildOptions;
use hailer_docker::DockerSpec;
use hailer_docker::workspace_id;
use hailer_docker::{Engine, Error};
use hailer_kernel_bundle as bundle;

/// Text planted in the pip files of the test build: it must never be found in the image.
pub(crate) const PIP_MARKER: &str = "hailer-build-stage-only-7f3a";

/// A notebook marimo accepts.
pub(crate) const NOTEBOOK: &str = "import marimo\n\n__generated_with = \"0.24.2\"\napp = marimo.App()\n\n\n@app.cell\ndef _():\n    x = 1\n    return (x,)\n\n\nif __name__ == \"__main__\":\n    app.run()\n";

/// The engine; a test fails (never skips) when there is none.
pub(crate) async fn engine() -> Engine {
    match Engine::connect().await {
        Ok(engine) => engine,
        Err(error) => panic!(
            "these tests need a running Docker engine (Linux containers): {error}\n\
             Install and start Docker, then run them again."
        ),
    }
}

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: run scripts/test-prereqs.sh, then `source .cache/test-env.sh`, \
             and run the tests again"
        )
    })
}

/// The base image the test build starts from (Python 3.12+, made without a registry by
/// scripts/make-base-image.sh); it must exist, as no registry is reached here.
pub(crate) fn base_image() -> String {
    required_env("HAILER_TEST_BASE_IMAGE")
}

/// The kernel image of this contract, built now if it is not here yet. One build at a time
/// across test processes.
pub(crate) async fn kernel_image(engine: &Engine) -> String {
    let contract = bundle::contract();
    let name = hailer_docker::default_image_name(&contract);
    let lock_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hailer-kernel-image.lock");
    let lock = std::fs::File::create(&lock_path).unwrap();
    tokio::task::block_in_place(|| lock.lock()).unwrap();
    match hailer_docker::ensure_image(engine, &name, &contract).await {
        Ok(()) => return name,
        Err(Error::ImageMissing { .. } | Error::ContractMismatch { .. }) => {}
        Err(other) => panic!("cannot check the kernel image: {other}"),
    }
    let wheelhouse = PathBuf::from(required_env("HAILER_TEST_IMAGE_WHEELHOUSE"));
    let base = base_image();
    if engine.docker().inspect_image(&base).await.is_err() {
        panic!("the base image {base} is missing: run scripts/make-base-image.sh (as root)");
    }
    let pip = tempfile::tempdir().unwrap();
    let pip_config = pip.path().join("pip.conf");
    let pip_cert = pip.path().join("ca.pem");
    std::fs::write(
        &pip_config,
        format!("[global]\n# {PIP_MARKER}\nindex-url = https://pypi.org/simple\n"),
    )
    .unwrap();
    std::fs::write(&pip_cert, format!("# {PIP_MARKER}\n")).unwrap();
    let options = BuildOptions {
        tag: name.clone(),
        base_image: Some(base),
        base_digest: None,
        pip_config: Some(pip_config),
        host_pip_config: None,
        pip_cert: Some(pip_cert),
        wheelhouse: Some(wheelhouse),
        no_cache: false,
    };
    let started = std::time::Instant::now();
    let progress = |report: hailer_marimo::Report<'_>| {
        if let Some(line) = report.text() {
            eprintln!("build: {line}");
        }
    };
    hailer_docker::build(engine, &options, &contract, &progress)
        .await
        .unwrap_or_else(|error| panic!("building the kernel image failed: {error}"));
    eprintln!("built {name} in {:.0?}", started.elapsed());
    drop(lock);
    name
}

/// A workspace with a notebooks folder and a data folder the kernel's user can read.
pub(crate) struct Workspace {
    pub dir: tempfile::TempDir,
}

impl Workspace {
    pub(crate) fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("hailer-ws-")
            .tempdir()
            .unwrap();
        let ws = Self { dir };
        std::fs::create_dir_all(ws.notebooks()).unwrap();
        std::fs::create_dir_all(ws.data()).unwrap();
        std::fs::write(ws.data().join("sales.csv"), "region,amount\nnorth,1\n").unwrap();
        for path in [ws.path(), &ws.data()] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::set_permissions(
            ws.data().join("sales.csv"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        ws
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn notebooks(&self) -> PathBuf {
        self.path().join("notebooks")
    }

    pub(crate) fn data(&self) -> PathBuf {
        self.path().join("data")
    }

    pub(crate) fn state(&self) -> PathBuf {
        self.path().join(".hailer")
    }

    pub(crate) fn id(&self) -> String {
        workspace_id(self.path())
    }

    /// A start of a kernel for this workspace.
    pub(crate) fn spec(&self, image: &str, owner_id: &str) -> DockerSpec {
        DockerSpec {
            workspace: self.path().to_path_buf(),
            notebooks_dir: self.notebooks(),
            data_dir: self.data(),
            image: image.to_owned(),
            contract: bundle::contract(),
            memory: hailer_config::MemoryLimit::parse("1g").unwrap(),
            cpus: 1.0,
            network: false,
            owner_id: owner_id.to_owned(),
            workspace_id: self.id(),
            ready_timeout: Duration::from_secs(90),
        }
    }

    /// Token folders left in `.hailer/`.
    pub(crate) fn token_folders(&self) -> Vec<String> {
        std::fs::read_dir(self.state())
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|name| name.starts_with("kernel-token-"))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Names of the containers and networks labelled with `workspace_id`.
pub(crate) async fn labelled_objects(
    engine: &Engine,
    workspace_id: &str,
) -> (Vec<String>, Vec<String>) {
    use bollard::query_parameters::{ListContainersOptions, ListNetworksOptions};
    let filter = hailer_docker::workspace_filter(workspace_id);
    let containers = engine
        .docker()
        .list_containers(Some(ListContainersOptions {
            all: true,
            filters: Some(filter.clone()),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_iter()
        .flat_map(|c| c.names.unwrap_or_default())
        .map(|n| n.trim_start_matches('/').to_owned())
        .collect();
    let networks = engine
        .docker()
        .list_networks(Some(ListNetworksOptions {
            filters: Some(filter),
        }))
        .await
        .unwrap()
        .into_iter()
        .filter_map(|n| n.name)
        .collect();
    (containers, networks)
}
