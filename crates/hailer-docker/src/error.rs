//! The one error type of this crate. Every message says what is wrong and what to do about it;
//! none carries a kernel's token.

use std::path::PathBuf;
use std::time::Duration;

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a user gets the right to open the engine's socket.
pub(crate) const SOCKET_ACCESS_FIX: &str = "On Linux, add yourself to the docker group (`sudo usermod \
     -aG docker $USER`) and log out and in again (or run `newgrp docker`); with Docker Desktop, \
     make sure it is running and that your user may use it.";

/// What a user can do when Docker itself is the problem and they accept running code as
/// themselves.
const UNSAFE_LOCAL_HINT: &str = "If you accept that notebook code then runs as you, with your \
     files and network, set runtime = \"unsafe-local\" under [kernel] in hailer.toml instead.";

/// Everything that can go wrong with the docker runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Nothing listens at the engine's unix socket and no `docker` program is on `PATH`.
    #[error(
        "Docker is not installed (no Docker engine answers at {endpoint}). Install Docker Engine \
         or Docker Desktop, start it, and try again. {UNSAFE_LOCAL_HINT}"
    )]
    NotInstalled {
        /// The endpoint that was tried, as a `DOCKER_HOST`-style address (`unix:///...`).
        endpoint: String,
    },

    /// The engine could not be reached, or did not answer its first requests within 20 s.
    /// A missing unix socket counts as this only when a `docker` program is on `PATH`.
    #[error(
        "Docker is not running: the engine at {endpoint} did not answer (docker said: {said}). \
         Start Docker and try again{context_hint}. {UNSAFE_LOCAL_HINT}"
    )]
    NotRunning {
        /// The endpoint that was tried, as a `DOCKER_HOST`-style address.
        endpoint: String,
        /// What the client or engine reported, or a sentence such as "there is no socket at ...".
        said: String,
        /// How to point Hailer at another engine, when the endpoint came from a docker context
        /// or from `DOCKER_HOST`; empty for the default endpoint.
        context_hint: String,
    },

    /// The engine's socket is there, but this user may not open it (on Linux: not in the
    /// `docker` group).
    #[error(
        "Docker is running, but you may not use it: permission denied on its socket {socket}. \
         {SOCKET_ACCESS_FIX} {UNSAFE_LOCAL_HINT}"
    )]
    SocketDenied {
        /// The endpoint that was tried, as a `DOCKER_HOST`-style address.
        endpoint: String,
        /// The socket's path on this machine.
        socket: String,
    },

    /// An engine named by `DOCKER_HOST` or a docker context, at a network address, did not
    /// answer.
    #[error(
        "the Docker engine at {endpoint}, {named_by}, cannot be reached (docker said: {said}). \
         Start that engine or check the network to it{context_hint}. {UNSAFE_LOCAL_HINT}"
    )]
    Unreachable {
        /// The endpoint that was tried.
        endpoint: String,
        /// Where the endpoint came from: "set by DOCKER_HOST", "from the docker context NAME",
        /// or "the default address".
        named_by: String,
        /// What the client reported.
        said: String,
        /// How to point Hailer at another engine (as in [`Error::NotRunning`]).
        context_hint: String,
    },

    /// The engine answered but runs containers for another operating system (Docker Desktop
    /// in Windows-containers mode).
    #[error(
        "Docker runs {os} containers, and the kernel needs Linux containers. Switch Docker \
         Desktop to Linux containers (its tray menu: \"Switch to Linux containers...\") and try \
         again. {UNSAFE_LOCAL_HINT}"
    )]
    NotLinux {
        /// The operating system the engine reported, or "non-Linux" when it reported none.
        os: String,
    },

    /// The configured endpoint cannot be resolved or parsed, or uses a scheme this crate does
    /// not speak (only `unix://`, `npipe://` on Windows, `tcp://` and `http://` work).
    #[error(
        "the docker endpoint {endpoint} is not one this program can use ({reason}); set \
         DOCKER_HOST to a unix:// socket or a tcp:// address, or pick another context with \
         `docker context use`"
    )]
    BadEndpoint {
        /// The endpoint address that was refused, or `context NAME` when a docker context
        /// could not be read.
        endpoint: String,
        /// Why it cannot be used, in words for the user.
        reason: String,
    },

    /// The engine has no image of this name.
    #[error(
        "the kernel image {image} is not on this machine. Run `hailer kernel pull` to download \
         it, or `hailer kernel build` to build it here"
    )]
    ImageMissing {
        /// The image reference that was looked up (by default the published repository
        /// tagged with the kernel contract).
        image: String,
    },

    /// The image exists but its kernel-contract label differs from the one this build of
    /// Hailer was made for.
    #[error(
        "the kernel image {image} is for kernel contract {found}, and this Hailer needs {needed}. \
         Run `hailer kernel pull` to download the right one, or `hailer kernel build` to build \
         it, or set image under [kernel] to an image of contract {needed}"
    )]
    ContractMismatch {
        /// The image reference that was checked.
        image: String,
        /// The image's contract label, or "(no contract label)" when it has none.
        found: String,
        /// The contract this build of Hailer requires.
        needed: String,
    },

    /// A pull failed with a registry answer that means the image is not there or not
    /// visible to this login (denied, not found, manifest unknown, unauthorized).
    #[error(
        "the kernel image {image} is not published (or not visible to you): docker said: {said}. \
         Build it here with `hailer kernel build`, or set image under [kernel] to your \
         organisation's mirror"
    )]
    NotPublished {
        /// The image reference that was pulled.
        image: String,
        /// The registry's message, as docker passed it on.
        said: String,
    },

    /// A pull failed for any other reason, such as no network or a registry error.
    #[error(
        "could not download {image}: docker said: {said}. Check the network and the registry \
         login (`docker login`), or build the image here with `hailer kernel build`"
    )]
    PullFailed {
        /// The image reference that was pulled.
        image: String,
        /// The engine's message.
        said: String,
    },

    /// The base image of a kernel build is not on this machine and could not be downloaded,
    /// so the build did not start.
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
    BaseImageUnavailable {
        /// The base image reference (`--base-image`, or the default Python image).
        image: String,
        /// The engine's message, with any user name and password in URLs masked.
        said: String,
    },

    /// The engine reported an error while building the kernel image.
    #[error("the kernel image build failed: {detail}\nIts last lines:\n{tail}")]
    BuildFailed {
        /// The engine's error message, with user names and passwords in URLs masked.
        detail: String,
        /// The last build output lines before the failure (at most 20, newline-separated,
        /// masked the same way).
        tail: String,
    },

    /// The engine offers no BuildKit, which the kernel image build needs (it hands package
    /// index settings to the build only as BuildKit secrets).
    #[error(
        "the kernel image is built with BuildKit, and this Docker engine does not offer it \
         (docker said: {said}). Use Docker Engine 18.09 or newer on Linux, or Docker Desktop, \
         or download the image with `hailer kernel pull`"
    )]
    BuildKitUnavailable {
        /// What the engine answered, with user names and passwords in URLs masked.
        said: String,
    },

    /// A file-system operation on the host failed.
    #[error("{what}: {path}: {source}")]
    File {
        /// What was being done, as the start of a sentence ("cannot read a wheel").
        what: String,
        /// The path it was done to; `<memory>` when packing the in-memory build context.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// An engine request failed for a reason with no variant of its own.
    #[error("Docker could not {what}: {said}")]
    Engine {
        /// The request, as a verb phrase that follows "Docker could not" ("create the
        /// kernel's network").
        what: String,
        /// The engine's message, without the client library's own wrapping.
        said: String,
    },

    /// A container stopped and the engine reports it was killed for exceeding its memory
    /// limit.
    #[error(
        "the {role} container ran out of memory and was stopped; raise memory under [kernel] \
         (now {memory}). Its last lines:\n{log_tail}"
    )]
    OutOfMemory {
        /// Which container: "kernel" or "forwarder".
        role: &'static str,
        /// The memory limit as written under `[kernel]` in hailer.toml (such as "4g").
        memory: String,
        /// The container's last output lines (at most 15), with the kernel's token masked;
        /// "(no output)" when there were none.
        log_tail: String,
    },

    /// A container stopped before the kernel was ready, for a reason other than memory.
    #[error("the {role} container exited early (code {code}). Its last lines:\n{log_tail}")]
    ExitedEarly {
        /// Which container: "kernel" or "forwarder".
        role: &'static str,
        /// The container's exit code, or -1 when the engine did not report one.
        code: i64,
        /// The container's last output lines (at most 15), with the kernel's token masked;
        /// "(no output)" when there were none.
        log_tail: String,
    },

    /// A container disappeared (the engine answered 404) while the kernel was starting.
    #[error("the {role} container was removed from outside while it started")]
    RemovedFromOutside {
        /// Which container: "kernel" or "forwarder".
        role: &'static str,
    },

    /// The containers kept running but marimo did not pass the readiness probe (healthy,
    /// refusing requests without the token, accepting ours) before the start timeout.
    #[error(
        "marimo in the kernel did not answer on {url} within {} s. The kernel's last lines:\n\
         {log_tail}",
        .waited.as_secs()
    )]
    NotReady {
        /// The kernel's base URL on the host, `http://127.0.0.1:PORT`.
        url: String,
        /// How long the start waited; the message shows it in whole seconds.
        waited: Duration,
        /// The kernel container's last output lines (at most 15), with the token masked;
        /// "(no output)" when there were none.
        log_tail: String,
    },

    /// A setting or input cannot be used (CPUs out of range, memory too large, a missing
    /// data folder, an empty wheelhouse, a non-empty export folder) or local preparation
    /// failed; the text is the whole message, saying what to change.
    #[error("{0}")]
    InvalidSetting(String),

    /// An error from the marimo client, such as when making the client for a started kernel.
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
            Self::NotInstalled { .. }
                | Self::NotRunning { .. }
                | Self::NotLinux { .. }
                | Self::SocketDenied { .. }
                | Self::Unreachable { .. }
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
