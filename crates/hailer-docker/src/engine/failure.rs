//! Why the first contact with the engine failed, told apart so the message names the real
//! cause: no right to open the socket, an engine that is not running, or an address named by
//! `DOCKER_HOST` or a docker context that cannot be reached.

use super::endpoint::{Endpoint, EndpointSource, Transport};
use crate::error::Error;

/// What went wrong on the way to the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The system refused this user the socket or pipe.
    Denied,
    /// Nothing answered, or the answer was an error; what the client said.
    NoAnswer(String),
}

impl Failure {
    /// The failure `error` (from the client library, any depth of wrapping) stands for.
    pub(crate) fn of(error: &bollard::errors::Error) -> Self {
        if is_permission_denied(error) {
            Self::Denied
        } else {
            Self::NoAnswer(crate::error::engine_said(error))
        }
    }
}

/// Whether `error` or any error it wraps is the system's "permission denied".
pub(crate) fn is_permission_denied(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(io) = error.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::PermissionDenied
        {
            return true;
        }
        let text = error.to_string();
        if text.contains("Permission denied") || text.contains("os error 13") {
            return true;
        }
        current = error.source();
    }
    false
}

/// The error to show for `failure` at `endpoint`.
pub(crate) fn to_error(endpoint: &Endpoint, failure: Failure) -> Error {
    let host = endpoint.host.clone();
    match (failure, endpoint.transport()) {
        (Failure::Denied, Transport::Unix(path)) => Error::SocketDenied {
            endpoint: host,
            socket: path.display().to_string(),
        },
        (Failure::Denied, Transport::NamedPipe(pipe)) => Error::SocketDenied {
            endpoint: host,
            socket: pipe,
        },
        (Failure::Denied, _) => Error::SocketDenied {
            socket: host.clone(),
            endpoint: host,
        },
        (Failure::NoAnswer(said), Transport::Tcp(_)) => Error::Unreachable {
            endpoint: host,
            named_by: named_by(&endpoint.source),
            said,
            context_hint: context_hint(endpoint),
        },
        (Failure::NoAnswer(said), _) => Error::NotRunning {
            endpoint: host,
            said,
            context_hint: context_hint(endpoint),
        },
    }
}

/// Where the endpoint's address came from, for a message.
fn named_by(source: &EndpointSource) -> String {
    match source {
        EndpointSource::DockerHost => "set by DOCKER_HOST".to_owned(),
        EndpointSource::Context(name) => format!("from the docker context {name}"),
        EndpointSource::Default => "the usual address".to_owned(),
    }
}

/// How to get away from a docker context that points at an engine that is not there.
pub(crate) fn context_hint(endpoint: &Endpoint) -> String {
    match &endpoint.source {
        EndpointSource::Context(name) => format!(
            ", or leave the docker context {name} (`docker context use default`, or set \
             DOCKER_CONTEXT)"
        ),
        EndpointSource::DockerHost => ", or correct DOCKER_HOST".to_owned(),
        EndpointSource::Default => String::new(),
    }
}

/// Whether this user may open the unix socket at `path`: `Some(Failure::Denied)` when the
/// system says no. Root may always; a socket that is not there is for others to judge.
#[cfg(unix)]
pub(crate) fn socket_access(path: &std::path::Path) -> Option<Failure> {
    use nix::unistd::{AccessFlags, access};
    match access(path, AccessFlags::R_OK | AccessFlags::W_OK) {
        Err(nix::errno::Errno::EACCES | nix::errno::Errno::EPERM) => Some(Failure::Denied),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn endpoint(host: &str, source: EndpointSource) -> Endpoint {
        Endpoint {
            host: host.to_owned(),
            source,
        }
    }

    #[derive(Debug)]
    struct Wrapper(std::io::Error);

    impl std::fmt::Display for Wrapper {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("client error (Connect)")
        }
    }

    impl std::error::Error for Wrapper {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn permission_denied_is_found_under_any_wrapping() {
        let denied = Wrapper(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert!(is_permission_denied(&denied));
        let refused = Wrapper(std::io::Error::from(std::io::ErrorKind::ConnectionRefused));
        assert!(!is_permission_denied(&refused));
        let said = std::io::Error::other("Permission denied (os error 13)");
        assert!(is_permission_denied(&said));
    }

    #[test]
    fn a_denied_socket_names_the_socket_and_the_docker_group() {
        let error = to_error(
            &endpoint("unix:///var/run/docker.sock", EndpointSource::Default),
            Failure::Denied,
        );
        let text = error.to_string();
        assert!(error.is_docker_unavailable(), "{text}");
        assert!(
            text.starts_with(
                "Docker is running, but you may not use it: permission denied on its socket \
                 /var/run/docker.sock."
            ),
            "{text}"
        );
        assert!(text.contains("add yourself to the docker group"), "{text}");
        assert!(text.contains("log out and in again"), "{text}");
        assert!(text.contains("Docker Desktop"), "{text}");
        assert!(!text.contains("not running"), "{text}");
    }

    #[test]
    fn a_silent_local_socket_is_an_engine_that_is_not_running() {
        let error = to_error(
            &endpoint("unix:///var/run/docker.sock", EndpointSource::Default),
            Failure::NoAnswer("Connection refused (os error 111)".to_owned()),
        );
        let text = error.to_string();
        assert!(text.starts_with("Docker is not running"), "{text}");
        assert!(text.contains("Connection refused"), "{text}");
    }

    #[test]
    fn a_silent_address_names_where_it_came_from() {
        let from_context = to_error(
            &endpoint(
                "tcp://10.0.0.7:2375",
                EndpointSource::Context("remote".to_owned()),
            ),
            Failure::NoAnswer("Connection refused".to_owned()),
        )
        .to_string();
        assert!(
            from_context.starts_with(
                "the Docker engine at tcp://10.0.0.7:2375, from the docker context remote, \
                 cannot be reached"
            ),
            "{from_context}"
        );
        assert!(
            from_context.contains("`docker context use default`"),
            "{from_context}"
        );
        let from_variable = to_error(
            &endpoint("tcp://10.0.0.7:2375", EndpointSource::DockerHost),
            Failure::NoAnswer("timed out".to_owned()),
        )
        .to_string();
        assert!(
            from_variable.contains("set by DOCKER_HOST, cannot be reached"),
            "{from_variable}"
        );
        assert!(
            from_variable.contains("or correct DOCKER_HOST"),
            "{from_variable}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_socket_this_user_may_open_is_not_denied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docker.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        assert_eq!(socket_access(&path), None);
        assert_eq!(socket_access(&dir.path().join("absent.sock")), None);
    }
}
