//! A connection to the Docker engine, with errors that tell "not installed", "not running" and
//! "Windows containers" apart.

pub(crate) mod endpoint;
mod failure;

use std::time::Duration;

use bollard::Docker;

pub(crate) use endpoint::Transport;
pub use endpoint::{Endpoint, EndpointSource};

use crate::error::{Error, Result};
use failure::{Failure, context_hint};

/// How long any one engine request may take.
const REQUEST_TIMEOUT_SECS: u64 = 60;
/// How long the first contact with the engine may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// A connected engine that runs Linux containers.
#[derive(Debug, Clone)]
pub struct Engine {
    docker: Docker,
    endpoint: Endpoint,
    version: String,
    cpus: Option<u32>,
}

impl Engine {
    /// Connects to the engine this process's environment points at (`DOCKER_HOST`, the current
    /// docker context, or the default socket).
    pub async fn connect() -> Result<Self> {
        Self::connect_to(endpoint::resolve_from_process()?).await
    }

    /// Connects to `endpoint` and checks that it answers and runs Linux containers.
    pub async fn connect_to(endpoint: Endpoint) -> Result<Self> {
        let docker = client_for(&endpoint)?;
        let not_running = |said: String| failure::to_error(&endpoint, Failure::NoAnswer(said));
        let failed =
            |error: &bollard::errors::Error| failure::to_error(&endpoint, Failure::of(error));
        let docker = match tokio::time::timeout(PROBE_TIMEOUT, docker.negotiate_version()).await {
            Ok(Ok(docker)) => docker,
            Ok(Err(error)) => return Err(failed(&error)),
            Err(_) => {
                return Err(not_running(format!(
                    "nothing within {} s",
                    PROBE_TIMEOUT.as_secs()
                )));
            }
        };
        let version = tokio::time::timeout(PROBE_TIMEOUT, docker.version())
            .await
            .map_err(|_| not_running("no version within 20 s".to_owned()))?
            .map_err(|error| failed(&error))?;
        let os = version.os.clone().unwrap_or_default();
        if !os.eq_ignore_ascii_case("linux") {
            return Err(Error::NotLinux {
                os: if os.is_empty() {
                    "non-Linux".to_owned()
                } else {
                    os
                },
            });
        }
        let cpus = match tokio::time::timeout(PROBE_TIMEOUT, docker.info()).await {
            Ok(Ok(info)) => info.ncpu.and_then(|n| u32::try_from(n).ok()),
            _ => None,
        };
        Ok(Self {
            docker,
            endpoint,
            version: version.version.unwrap_or_default(),
            cpus,
        })
    }

    /// The bollard client.
    pub fn docker(&self) -> &Docker {
        &self.docker
    }

    /// The endpoint this engine was reached at: its address and whether it came from
    /// `DOCKER_HOST`, a docker context or the default.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The engine's version, as it reports it.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// How many CPUs the engine has, when it said.
    pub fn cpus(&self) -> Option<u32> {
        self.cpus
    }

    /// `requested` CPUs, lowered to what the engine has, with a note when it was lowered.
    pub fn fit_cpus(&self, requested: f64) -> (f64, Option<String>) {
        fit_cpus(requested, self.cpus)
    }
}

/// `requested` CPUs, lowered to `available` when that is fewer, with a note saying so.
pub(crate) fn fit_cpus(requested: f64, available: Option<u32>) -> (f64, Option<String>) {
    match available {
        Some(available) if available > 0 && requested > f64::from(available) => (
            f64::from(available),
            Some(format!(
                "Docker has {available} CPU(s); the kernel gets {available} instead of the \
                 {requested} set under [kernel]."
            )),
        ),
        _ => (requested, None),
    }
}

/// A bollard client for `endpoint`, refusing schemes we do not speak.
fn client_for(endpoint: &Endpoint) -> Result<Docker> {
    let host = endpoint.host.as_str();
    let version = bollard::API_DEFAULT_VERSION;
    let failed = |e: bollard::errors::Error| failure::to_error(endpoint, Failure::of(&e));
    let unsupported = || Error::BadEndpoint {
        endpoint: host.to_owned(),
        reason: "only unix:// sockets, npipe:// pipes (on Windows) and plain tcp:// or http:// \
                 addresses are supported"
            .to_owned(),
    };
    match endpoint.transport() {
        Transport::Unix(path) if matches!(path.try_exists(), Ok(false)) => {
            Err(if docker_cli_on_path() {
                Error::NotRunning {
                    endpoint: host.to_owned(),
                    said: format!("there is no socket at {}", path.display()),
                    context_hint: context_hint(endpoint),
                }
            } else {
                Error::NotInstalled {
                    endpoint: host.to_owned(),
                }
            })
        }
        #[cfg(unix)]
        Transport::Unix(path) => {
            if let Some(denied) = failure::socket_access(&path) {
                return Err(failure::to_error(endpoint, denied));
            }
            Docker::connect_with_unix(host, REQUEST_TIMEOUT_SECS, version).map_err(failed)
        }
        #[cfg(windows)]
        Transport::NamedPipe(_) => {
            Docker::connect_with_named_pipe(host, REQUEST_TIMEOUT_SECS, version).map_err(failed)
        }
        Transport::Tcp(_) => Docker::connect_with_http(host, REQUEST_TIMEOUT_SECS, version)
            .map_err(|e| Error::BadEndpoint {
                endpoint: host.to_owned(),
                reason: crate::error::engine_said(&e),
            }),
        _ => Err(unsupported()),
    }
}

/// Whether a `docker` program is on PATH (installed, maybe not running).
fn docker_cli_on_path() -> bool {
    let Some(path) = std::env::var_os("PATH") else {
        return false;
    };
    let name = hailer_platform::executable_name(hailer_platform::Os::CURRENT, "docker");
    std::env::split_paths(&path).any(|dir| dir.join(&name).is_file())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn cpus_are_lowered_to_what_the_engine_has_with_a_note() {
        assert_eq!(fit_cpus(2.0, Some(4)), (2.0, None));
        assert_eq!(fit_cpus(2.0, None), (2.0, None));
        let (cpus, note) = fit_cpus(8.0, Some(2));
        assert_eq!(cpus, 2.0);
        assert!(note.unwrap().contains("Docker has 2 CPU(s)"));
        assert_eq!(fit_cpus(1.5, Some(0)), (1.5, None));
    }

    #[tokio::test]
    async fn a_missing_socket_is_reported_as_docker_being_unavailable() {
        let endpoint = Endpoint {
            host: "unix:///nonexistent/hailer/docker.sock".to_owned(),
            source: EndpointSource::Context("stale".to_owned()),
        };
        let error = Engine::connect_to(endpoint).await.unwrap_err();
        assert!(error.is_docker_unavailable(), "{error}");
        let text = error.to_string();
        assert!(text.starts_with("Docker is not"), "{text}");
        assert!(text.contains("unsafe-local"), "{text}");
    }

    #[tokio::test]
    async fn an_address_that_does_not_answer_is_unreachable_with_what_it_said() {
        // A port nothing listens on: the connection is refused.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let endpoint = Endpoint {
            host: format!("tcp://127.0.0.1:{port}"),
            source: EndpointSource::DockerHost,
        };
        let error = Engine::connect_to(endpoint).await.unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with(&format!(
                "the Docker engine at tcp://127.0.0.1:{port}, set by DOCKER_HOST, cannot be \
                 reached"
            )),
            "{text}"
        );
        assert!(text.contains("docker said:"), "{text}");
        assert!(text.contains("correct DOCKER_HOST"), "{text}");
    }

    #[tokio::test]
    async fn unknown_schemes_are_refused() {
        let endpoint = Endpoint {
            host: "ssh://user@host".to_owned(),
            source: EndpointSource::DockerHost,
        };
        let error = Engine::connect_to(endpoint).await.unwrap_err();
        assert!(matches!(error, Error::BadEndpoint { .. }), "{error}");
    }
}
