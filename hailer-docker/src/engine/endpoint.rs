//! Where the Docker engine listens, found the way the docker CLI finds it: `DOCKER_HOST`, then
//! the current context (`DOCKER_CONTEXT`, else `currentContext` in the CLI's config.json), then
//! the default socket.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// The engine's default socket on Linux.
pub const DEFAULT_SOCKET: &str = "unix:///var/run/docker.sock";

/// An engine address and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `unix:///path`, `tcp://host:port`, `http://...` or `npipe://...`.
    pub host: String,
    pub source: EndpointSource,
}

/// Why this endpoint was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointSource {
    /// The `DOCKER_HOST` variable.
    DockerHost,
    /// A docker context, by name.
    Context(String),
    /// The engine's usual socket.
    Default,
}

/// What endpoint resolution reads from the process.
pub struct Lookup<'a> {
    /// An environment variable's value.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The user's home folder.
    pub home: Option<PathBuf>,
}

impl Lookup<'_> {
    fn non_empty(&self, name: &str) -> Option<String> {
        (self.var)(name).filter(|value| !value.trim().is_empty())
    }
}

/// The engine endpoint for this process's environment.
pub fn resolve_from_process() -> Result<Endpoint> {
    let var = |name: &str| std::env::var(name).ok();
    resolve(&Lookup {
        var: &var,
        home: std::env::home_dir(),
    })
}

/// The engine endpoint `lookup` describes.
pub fn resolve(lookup: &Lookup<'_>) -> Result<Endpoint> {
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
    let context = lookup
        .non_empty("DOCKER_CONTEXT")
        .or_else(|| config_dir.as_deref().and_then(current_context));
    if let Some(name) = context.filter(|name| name != "default") {
        let dir = config_dir.ok_or_else(|| Error::BadEndpoint {
            endpoint: format!("context {name}"),
            reason: "there is no home folder to find the docker contexts in".to_owned(),
        })?;
        let host = context_host(&dir, &name)?;
        return Ok(Endpoint {
            host,
            source: EndpointSource::Context(name),
        });
    }
    Ok(Endpoint {
        host: default_socket(lookup.home.as_deref()),
        source: EndpointSource::Default,
    })
}

/// `currentContext` from the CLI's config.json, when set.
fn current_context(config_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(config_dir.join("config.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value
        .get("currentContext")?
        .as_str()
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
}

/// The docker endpoint of context `name`: `contexts/meta/<sha256 of the name>/meta.json`.
fn context_host(config_dir: &Path, name: &str) -> Result<String> {
    let digest = hex::encode(Sha256::digest(name.as_bytes()));
    let path = config_dir
        .join("contexts")
        .join("meta")
        .join(digest)
        .join("meta.json");
    let bad = |reason: String| Error::BadEndpoint {
        endpoint: format!("context {name}"),
        reason,
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        bad(format!(
            "its description {} cannot be read: {e}; run `docker context use default` or set \
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

/// The usual socket, or Docker Desktop's per-user socket when only that one exists.
fn default_socket(home: Option<&Path>) -> String {
    if cfg!(windows) {
        return "npipe:////./pipe/docker_engine".to_owned();
    }
    if Path::new(socket_path(DEFAULT_SOCKET)).exists() {
        return DEFAULT_SOCKET.to_owned();
    }
    home.map(|home| home.join(".docker").join("run").join("docker.sock"))
        .filter(|desktop| desktop.exists())
        .map(|desktop| format!("unix://{}", desktop.display()))
        .unwrap_or_else(|| DEFAULT_SOCKET.to_owned())
}

/// The file system path of a `unix://` endpoint.
pub fn socket_path(host: &str) -> &str {
    host.strip_prefix("unix://").unwrap_or(host)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::HashMap;

    use super::*;

    fn resolve_with(vars: &[(&str, &str)], home: &Path) -> Result<Endpoint> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let var = move |name: &str| vars.get(name).cloned();
        resolve(&Lookup {
            var: &var,
            home: Some(home.to_path_buf()),
        })
    }

    fn write_context(home: &Path, name: &str, host: &str) {
        let digest = hex::encode(Sha256::digest(name.as_bytes()));
        let dir = home.join(".docker/contexts/meta").join(digest);
        std::fs::create_dir_all(&dir).unwrap();
        let meta = serde_json::json!({"Name": name, "Endpoints": {"docker": {"Host": host}}});
        std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
    }

    #[test]
    fn docker_host_wins_over_contexts() {
        let home = tempfile::tempdir().unwrap();
        write_context(home.path(), "remote", "tcp://10.0.0.1:2375");
        let endpoint = resolve_with(
            &[
                ("DOCKER_HOST", "tcp://1.2.3.4:2375"),
                ("DOCKER_CONTEXT", "remote"),
            ],
            home.path(),
        )
        .unwrap();
        assert_eq!(endpoint.host, "tcp://1.2.3.4:2375");
        assert_eq!(endpoint.source, EndpointSource::DockerHost);
    }

    #[test]
    fn the_current_context_of_the_cli_config_is_used() {
        let home = tempfile::tempdir().unwrap();
        write_context(
            home.path(),
            "desktop-linux",
            "unix:///home/me/.docker/run/docker.sock",
        );
        std::fs::write(
            home.path().join(".docker/config.json"),
            r#"{"auths": {}, "currentContext": "desktop-linux"}"#,
        )
        .unwrap();
        let endpoint = resolve_with(&[], home.path()).unwrap();
        assert_eq!(endpoint.host, "unix:///home/me/.docker/run/docker.sock");
        assert_eq!(
            endpoint.source,
            EndpointSource::Context("desktop-linux".to_owned())
        );
    }

    #[test]
    fn docker_context_variable_beats_the_config_file() {
        let home = tempfile::tempdir().unwrap();
        write_context(home.path(), "a", "tcp://a:1");
        write_context(home.path(), "b", "tcp://b:2");
        std::fs::write(
            home.path().join(".docker/config.json"),
            r#"{"currentContext":"a"}"#,
        )
        .unwrap();
        let endpoint = resolve_with(&[("DOCKER_CONTEXT", "b")], home.path()).unwrap();
        assert_eq!(endpoint.host, "tcp://b:2");
    }

    #[test]
    fn a_missing_context_is_an_error_that_says_how_to_go_on() {
        let home = tempfile::tempdir().unwrap();
        let error = resolve_with(&[("DOCKER_CONTEXT", "gone")], home.path()).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("context gone"), "{text}");
        assert!(text.contains("docker context use default"), "{text}");
    }

    #[test]
    fn the_default_context_means_the_default_socket() {
        let home = tempfile::tempdir().unwrap();
        let endpoint = resolve_with(&[("DOCKER_CONTEXT", "default")], home.path()).unwrap();
        assert_eq!(endpoint.source, EndpointSource::Default);
        assert!(endpoint.host.starts_with("unix://"), "{}", endpoint.host);
    }

    #[test]
    fn a_garbled_config_file_falls_back_to_the_default() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".docker")).unwrap();
        std::fs::write(home.path().join(".docker/config.json"), "{not json").unwrap();
        let endpoint = resolve_with(&[], home.path()).unwrap();
        assert_eq!(endpoint.source, EndpointSource::Default);
    }
}
