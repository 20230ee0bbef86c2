//! Where the Docker engine listens: `hailer_platform::resolve_docker_endpoint`, the one resolution the
//! daemon and the client's probes share, with its errors in this crate's terms.

pub(crate) use hailer_platform::Transport;
pub use hailer_platform::{Endpoint, EndpointSource};

use crate::error::{Error, Result};

/// The engine endpoint for this process's environment.
pub fn resolve_from_process() -> Result<Endpoint> {
    hailer_platform::resolve_docker_endpoint().map_err(|error| Error::BadEndpoint {
        endpoint: error.endpoint,
        reason: error.reason,
    })
}
