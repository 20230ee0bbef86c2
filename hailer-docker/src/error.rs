//! The one error type of this crate. Every message says what is wrong and what to do about it;
//! none carries a kernel's token.

use std::path::PathBuf;
use std::time::Duration;

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What a user can do when Docker itself is the problem and they accept running code as
/// themselves.
const UNSAFE_LOCAL_HINT: &str = "If you accept that notebook code then runs as you, with your \
     files and network, set runtime = \"unsafe-local\" under [kernel] in hailer.toml instead.";

/// Everything that can go wrong with the docker runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "Docker is not installed (no Docker engine answers at {endpoint}). Install Docker Engine \
         or Docker Desktop, start it, and try again. {UNSAFE_LOCAL_HINT}"
    )]
    NotInstalled { endpoint: String },

    #[error(
        "Docker is not running: the engine at {endpoint} did not answer (docker said: {said}). \
         Start Docker and try again{context_hint}. {UNSAFE_LOCAL_HINT}"
    )]
    NotRunning {
        endpoint: String,
        said: String,
        /// Set when the endpoint came from a docker context: how to pick another one.
        context_hint: String,
    },

    #[error(
        "Docker runs {os} containers, and the kernel needs Linux containers. Switch Docker \
         Desktop to Linux containers (its tray menu: \"Switch to Linux containers...\") and try \
         again. {UNSAFE_LOCAL_HINT}"
    )]
    NotLinux { os: String },

    #[error(
        "the docker endpoint {endpoint} is not one this program can use ({reason}); set \
         DOCKER_HOST to a unix:// socket or a tcp:// address, or pick another context with \
         `docker context use`"
    )]
    BadEndpoint { endpoint: String, reason: String },

    #[error(
        "the kernel image {image} is not on this machine. Run `hailer kernel pull` to download \
         it, or `hailer kernel build` to build it here"
    )]
    ImageMissing { image: String },

    #[error(
        "the kernel image {image} is for kernel contract {found}, and this Hailer needs {needed}. \
         Run `hailer kernel pull` to download the right one, or `hailer kernel build` to build \
         it, or set image under [kernel] to an image of contract {needed}"
    )]
    ContractMismatch {
        image: String,
        found: String,
        needed: String,
    },

    #[error(
        "the kernel image {image} is not published (or not visible to you): docker said: {said}. \
         Build it here with `hailer kernel build`, or set image under [kernel] to your \
         organisation's mirror"
    )]
    NotPublished { image: String, said: String },

    #[error(
        "could not download {image}: docker said: {said}. Check the network and the registry \
         login (`docker login`), or build the image here with `hailer kernel build`"
    )]
    PullFailed { image: String, said: String },

    #[error(
        "cannot get the base image {image}, so nothing was built: docker said: {said}\n\
         Ways on:\n  \
         - build from a base image this machine has: `hailer kernel build --base-image IMAGE` \
         (any Linux image with Python 3.12 or newer, with venv and ensurepip, as python3);\n  \
         - behind a registry mirror, name the mirror's Python image the same way, after \
         `docker login` if it needs one;\n  \
         - with no registry at all, make a base image from a Linux folder with `docker import` \
         and install offline with `--wheelhouse DIR` (kernel-image/README.md, \
         \"Building without a registry\")"
    )]
    BaseImageUnavailable { image: String, said: String },

    #[error("the kernel image build failed: {detail}\nIts last lines:\n{tail}")]
    BuildFailed { detail: String, tail: String },

    #[error("{what}: {path}: {source}")]
    File {
        what: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("Docker could not {what}: {said}")]
    Engine { what: String, said: String },

    #[error("Docker did not {what} within {} s", .waited.as_secs())]
    EngineTimeout { what: String, waited: Duration },

    #[error(
        "the {role} container ran out of memory and was stopped; raise memory under [kernel] \
         (now {memory}). Its last lines:\n{log_tail}"
    )]
    OutOfMemory {
        role: &'static str,
        memory: String,
        log_tail: String,
    },

    #[error("the {role} container exited early (code {code}). Its last lines:\n{log_tail}")]
    ExitedEarly {
        role: &'static str,
        code: i64,
        log_tail: String,
    },

    #[error("the {role} container was removed from outside while it started")]
    RemovedFromOutside { role: &'static str },

    #[error(
        "marimo in the kernel did not answer on {url} within {} s. The kernel's last lines:\n\
         {log_tail}",
        .waited.as_secs()
    )]
    NotReady {
        url: String,
        waited: Duration,
        log_tail: String,
    },

    #[error("{0}")]
    InvalidSetting(String),

    #[error("{0}")]
    Marimo(#[from] hailer_marimo::Error),
}

impl Error {
    pub(crate) fn file(
        what: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let what = what.into();
        let path = path.into();
        move |source| Self::File { what, path, source }
    }

    pub(crate) fn engine(what: impl Into<String>) -> impl FnOnce(bollard::errors::Error) -> Self {
        let what = what.into();
        move |error| Self::Engine {
            what,
            said: engine_said(&error),
        }
    }

    /// The message without the closing suggestion to use the unsafe-local runtime: for
    /// commands that are about the docker kernel itself (`hailer kernel ...`).
    pub fn without_runtime_alternative(&self) -> String {
        self.to_string()
            .replace(&format!(" {UNSAFE_LOCAL_HINT}"), "")
            .replace(UNSAFE_LOCAL_HINT, "")
    }

    /// Whether the problem is Docker itself (not installed, not running, wrong kind), as opposed
    /// to the image or the kernel.
    pub fn is_docker_unavailable(&self) -> bool {
        matches!(
            self,
            Self::NotInstalled { .. } | Self::NotRunning { .. } | Self::NotLinux { .. }
        )
    }
}

/// What the engine said, without bollard's own wrapping where there is a message.
pub(crate) fn engine_said(error: &bollard::errors::Error) -> String {
    match error {
        bollard::errors::Error::DockerResponseServerError { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// The HTTP status the engine answered with, when it answered.
pub(crate) fn engine_status(error: &bollard::errors::Error) -> Option<u16> {
    match error {
        bollard::errors::Error::DockerResponseServerError { status_code, .. } => Some(*status_code),
        _ => None,
    }
}
