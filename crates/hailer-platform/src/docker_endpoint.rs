//! Where the Docker engine listens, found the way the docker CLI finds it: `DOCKER_HOST`, then
//! the current context (`DOCKER_CONTEXT`, else `currentContext` in the CLI's config.json), then
//! the system's usual place: the Unix socket on Linux (or Docker Desktop's per-user socket when
//! only that exists), Docker Desktop's per-user socket on macOS, the named pipe on Windows.
//!
//! The daemon and every client-side probe use this one resolution.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::Os;

/// The engine's socket on Linux, and on macOS when Docker Desktop links it there.
pub(crate) const SYSTEM_SOCKET: &str = "unix:///var/run/docker.sock";
/// Docker Desktop's named pipe on Windows.
pub(crate) const WINDOWS_PIPE: &str = "npipe:////./pipe/docker_engine";

/// An engine address and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `unix:///path`, `tcp://host:port`, `http://...` or `npipe:////./pipe/name`.
    pub host: String,
    /// Why this endpoint was chosen.
    pub source: EndpointSource,
}

/// Why this endpoint was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointSource {
    /// The `DOCKER_HOST` variable.
    DockerHost,
    /// A docker context, by name.
    Context(String),
    /// The engine's usual place on this system.
    Default,
}

/// How to reach an endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A Unix socket at this path.
    Unix(PathBuf),
    /// A Windows named pipe (`\\.\pipe\docker_engine`).
    NamedPipe(String),
    /// Plain HTTP to `host:port` (`tcp://` or `http://`).
    Tcp(String),
    /// Anything else (`ssh://`, `https://`, a typo).
    Unsupported,
}

impl Endpoint {
    /// How this endpoint is reached.
    pub fn transport(&self) -> Transport {
        transport(&self.host)
    }
}

/// How `host` is reached.
pub(crate) fn transport(host: &str) -> Transport {
    if let Some(path) = host.strip_prefix("unix://") {
        return Transport::Unix(PathBuf::from(path));
    }
    if let Some(pipe) = host.strip_prefix("npipe://") {
        return Transport::NamedPipe(pipe.replace('/', "\\"));
    }
    if let Some(address) = host
        .strip_prefix("tcp://")
        .or_else(|| host.strip_prefix("http://"))
    {
        return Transport::Tcp(address.trim_end_matches('/').to_owned());
    }
    Transport::Unsupported
}

/// A context that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{endpoint}: {reason}")]
pub struct EndpointError {
    /// `context NAME`.
    pub endpoint: String,
    /// What is wrong with it, for a person.
    pub reason: String,
}

/// What endpoint resolution reads from the system.
pub(crate) struct Lookup<'a> {
    /// The system whose conventions apply.
    pub os: Os,
    /// An environment variable's value.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The user's home folder.
    pub home: Option<PathBuf>,
    /// Whether a socket file exists.
    pub exists: &'a dyn Fn(&Path) -> bool,
    /// A file's text (the CLI's config.json and contexts).
    pub read: &'a dyn Fn(&Path) -> Option<String>,
}

impl Lookup<'_> {
    fn non_empty(&self, name: &str) -> Option<String> {
        (self.var)(name).filter(|value| !value.trim().is_empty())
    }
}

/// The engine endpoint for this process's environment.
pub fn resolve_from_process() -> Result<Endpoint, EndpointError> {
    let var = |name: &str| std::env::var(name).ok();
    let exists = |path: &Path| path.exists();
    let read = |path: &Path| std::fs::read_to_string(path).ok();
    resolve(&Lookup {
        os: Os::CURRENT,
        var: &var,
        home: std::env::home_dir(),
        exists: &exists,
        read: &read,
    })
}

/// The engine endpoint `lookup` describes.
pub(crate) fn resolve(lookup: &Lookup<'_>) -> Result<Endpoint, EndpointError> {
    if let Some(host) = lookup.non_empty("DOCKER_HOST") {
        return Ok(Endpoint {
            host,
            source: EndpointSource::DockerHost,
        });
    }
    let config_dir = lookup
        .non_empty("DOCKER_CONFIG")
        .map(PathBuf::from)
        .or_else(|| lookup.home.as_ref().map(|home| home.join(".docker")));
    let context = lookup.non_empty("DOCKER_CONTEXT").or_else(|| {
        config_dir
            .as_deref()
            .and_then(|dir| current_context(lookup, dir))
    });
    if let Some(name) = context.filter(|name| name != "default") {
        let dir = config_dir.ok_or_else(|| EndpointError {
            endpoint: format!("context {name}"),
            reason: "there is no home folder to find the docker contexts in".to_owned(),
        })?;
        let host = context_host(lookup, &dir, &name)?;
        return Ok(Endpoint {
            host,
            source: EndpointSource::Context(name),
        });
    }
    Ok(Endpoint {
        host: default_host(lookup),
        source: EndpointSource::Default,
    })
}

/// `currentContext` from the CLI's config.json, when set.
fn current_context(lookup: &Lookup<'_>, config_dir: &Path) -> Option<String> {
    let text = (lookup.read)(&config_dir.join("config.json"))?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value
        .get("currentContext")?
        .as_str()
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// The folder of context `name`'s description: `contexts/meta/<sha256 of the name>`.
pub(crate) fn context_meta_dir(config_dir: &Path, name: &str) -> PathBuf {
    let digest = hex::encode(Sha256::digest(name.as_bytes()));
    config_dir.join("contexts").join("meta").join(digest)
}

/// The docker endpoint of context `name`.
fn context_host(
    lookup: &Lookup<'_>,
    config_dir: &Path,
    name: &str,
) -> Result<String, EndpointError> {
    let path = context_meta_dir(config_dir, name).join("meta.json");
    let bad = |reason: String| EndpointError {
        endpoint: format!("context {name}"),
        reason,
    };
    let text = (lookup.read)(&path).ok_or_else(|| {
        bad(format!(
            "its description {} cannot be read; run `docker context use default` or set \
             DOCKER_CONTEXT to a context that exists",
            path.display()
        ))
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "its description {} is not JSON: {e}",
            path.display()
        ))
    })?;
    value
        .pointer("/Endpoints/docker/Host")
        .and_then(serde_json::Value::as_str)
        .filter(|host| !host.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| bad(format!("{} names no docker endpoint", path.display())))
}

/// The usual place on this system: the first of its candidates that exists, else the first.
fn default_host(lookup: &Lookup<'_>) -> String {
    let candidates = default_candidates(lookup.os, lookup.home.as_deref());
    candidates
        .iter()
        .find(|host| match transport(host) {
            Transport::Unix(path) => (lookup.exists)(&path),
            _ => true,
        })
        .or(candidates.first())
        .cloned()
        .unwrap_or_else(|| SYSTEM_SOCKET.to_owned())
}

/// Where the engine usually listens on `os`, most likely first.
pub(crate) fn default_candidates(os: Os, home: Option<&Path>) -> Vec<String> {
    let per_user = |parts: &[&str]| {
        // Joined as `os` writes paths, not as the host does: the same answer on every host.
        home.map(|home| {
            let path = crate::path_model::join_text(os, &home.to_string_lossy(), &parts.join("/"));
            format!("unix://{path}")
        })
    };
    match os {
        Os::Windows => vec![WINDOWS_PIPE.to_owned()],
        // Docker Desktop for Mac always has the per-user socket; /var/run/docker.sock only when
        // its "allow the default socket" setting is on.
        Os::MacOs => per_user(&[".docker", "run", "docker.sock"])
            .into_iter()
            .chain([SYSTEM_SOCKET.to_owned()])
            .collect(),
        // Docker Engine's socket; Docker Desktop for Linux keeps its own under the home folder.
        Os::Linux => [SYSTEM_SOCKET.to_owned()]
            .into_iter()
            .chain(per_user(&[".docker", "desktop", "docker.sock"]))
            .chain(per_user(&[".docker", "run", "docker.sock"]))
            .collect(),
    }
}

#[cfg(test)]
#[path = "docker_endpoint_tests.rs"]
mod tests;
