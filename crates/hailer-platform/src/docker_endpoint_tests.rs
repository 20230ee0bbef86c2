#![allow(clippy::unwrap_used)]

use std::collections::{HashMap, HashSet};

use super::*;

/// A system as endpoint resolution sees it: variables, files and sockets, all in memory.
#[derive(Default)]
struct System {
    vars: HashMap<String, String>,
    files: HashMap<PathBuf, String>,
    sockets: HashSet<PathBuf>,
}

impl System {
    fn var(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_owned(), value.to_owned());
        self
    }

    fn socket(mut self, path: &str) -> Self {
        self.sockets.insert(PathBuf::from(path));
        self
    }

    fn file(mut self, path: PathBuf, text: &str) -> Self {
        self.files.insert(path, text.to_owned());
        self
    }

    fn context(self, config_dir: &str, name: &str, host: &str) -> Self {
        let meta = serde_json::json!({"Name": name, "Endpoints": {"docker": {"Host": host}}});
        let path = context_meta_dir(Path::new(config_dir), name).join("meta.json");
        self.file(path, &meta.to_string())
    }

    fn current(self, config_dir: &str, name: &str) -> Self {
        let path = Path::new(config_dir).join("config.json");
        self.file(
            path,
            &format!(r#"{{"auths": {{}}, "currentContext": "{name}"}}"#),
        )
    }

    fn resolve(&self, os: Os, home: &str) -> Result<Endpoint, EndpointError> {
        let var = |name: &str| self.vars.get(name).cloned();
        let exists = |path: &Path| self.sockets.contains(path);
        let read = |path: &Path| self.files.get(path).cloned();
        resolve(&Lookup {
            os,
            var: &var,
            home: Some(PathBuf::from(home)),
            exists: &exists,
            read: &read,
        })
    }
}

const LINUX_HOME: &str = "/home/zoë";
const MAC_HOME: &str = "/Users/Zoë Ås";

#[test]
fn each_system_finds_its_usual_engine() {
    let table = [
        // (what the system has, os, home, expected host)
        (
            System::default().socket("/var/run/docker.sock"),
            Os::Linux,
            LINUX_HOME,
            "unix:///var/run/docker.sock",
        ),
        (
            System::default(),
            Os::Linux,
            LINUX_HOME,
            "unix:///var/run/docker.sock",
        ),
        (
            System::default().socket("/home/zoë/.docker/desktop/docker.sock"),
            Os::Linux,
            LINUX_HOME,
            "unix:///home/zoë/.docker/desktop/docker.sock",
        ),
        (
            System::default().socket("/Users/Zoë Ås/.docker/run/docker.sock"),
            Os::MacOs,
            MAC_HOME,
            "unix:///Users/Zoë Ås/.docker/run/docker.sock",
        ),
        (
            System::default().socket("/var/run/docker.sock"),
            Os::MacOs,
            MAC_HOME,
            "unix:///var/run/docker.sock",
        ),
        (
            System::default(),
            Os::MacOs,
            MAC_HOME,
            "unix:///Users/Zoë Ås/.docker/run/docker.sock",
        ),
        (
            System::default(),
            Os::Windows,
            "C:\\Users\\Zoë",
            "npipe:////./pipe/docker_engine",
        ),
    ];
    for (system, os, home, expected) in table {
        let endpoint = system.resolve(os, home).unwrap();
        assert_eq!(endpoint.host, expected, "{os:?}");
        assert_eq!(endpoint.source, EndpointSource::Default);
    }
}

#[test]
fn docker_host_wins_everywhere() {
    for os in Os::ALL {
        let system = System::default()
            .var("DOCKER_HOST", "tcp://127.0.0.1:2375")
            .var("DOCKER_CONTEXT", "remote")
            .context("/h/.docker", "remote", "tcp://10.0.0.1:2375");
        let endpoint = system.resolve(os, "/h").unwrap();
        assert_eq!(endpoint.host, "tcp://127.0.0.1:2375", "{os:?}");
        assert_eq!(endpoint.source, EndpointSource::DockerHost);
    }
}

#[test]
fn the_current_context_of_the_cli_config_is_used() {
    let system = System::default()
        .context(
            "/Users/Zoë Ås/.docker",
            "desktop-linux",
            "unix:///Users/Zoë Ås/.docker/run/docker.sock",
        )
        .current("/Users/Zoë Ås/.docker", "desktop-linux");
    let endpoint = system.resolve(Os::MacOs, MAC_HOME).unwrap();
    assert_eq!(
        endpoint.host,
        "unix:///Users/Zoë Ås/.docker/run/docker.sock"
    );
    assert_eq!(
        endpoint.source,
        EndpointSource::Context("desktop-linux".to_owned())
    );
}

#[test]
fn docker_config_moves_the_contexts_and_docker_context_beats_the_file() {
    let system = System::default()
        .var("DOCKER_CONFIG", "/etc/dc")
        .context("/etc/dc", "a", "tcp://a:1")
        .context("/etc/dc", "b", "npipe:////./pipe/dockerDesktopLinuxEngine")
        .current("/etc/dc", "a");
    assert_eq!(
        system.resolve(Os::Linux, LINUX_HOME).unwrap().host,
        "tcp://a:1"
    );
    let system = system.var("DOCKER_CONTEXT", "b");
    let endpoint = system.resolve(Os::Windows, "C:\\Users\\z").unwrap();
    assert_eq!(endpoint.host, "npipe:////./pipe/dockerDesktopLinuxEngine");
}

#[test]
fn a_missing_context_is_an_error_that_says_how_to_go_on() {
    let system = System::default().var("DOCKER_CONTEXT", "gone");
    let text = system
        .resolve(Os::Linux, LINUX_HOME)
        .unwrap_err()
        .to_string();
    assert!(text.contains("context gone"), "{text}");
    assert!(text.contains("docker context use default"), "{text}");
}

#[test]
fn the_default_context_and_a_garbled_config_mean_the_usual_place() {
    let system = System::default().var("DOCKER_CONTEXT", "default");
    assert_eq!(
        system.resolve(Os::Linux, LINUX_HOME).unwrap().source,
        EndpointSource::Default
    );
    let system =
        System::default().file(PathBuf::from("/home/zoë/.docker/config.json"), "{not json");
    assert_eq!(
        system.resolve(Os::Linux, LINUX_HOME).unwrap().source,
        EndpointSource::Default
    );
}

#[test]
fn transports_of_every_kind_of_host() {
    let table = [
        (
            "unix:///var/run/docker.sock",
            Transport::Unix(PathBuf::from("/var/run/docker.sock")),
        ),
        (
            "unix:///Users/Zoë Ås/.docker/run/docker.sock",
            Transport::Unix(PathBuf::from("/Users/Zoë Ås/.docker/run/docker.sock")),
        ),
        (
            "npipe:////./pipe/docker_engine",
            Transport::NamedPipe(r"\\.\pipe\docker_engine".to_owned()),
        ),
        (
            "tcp://127.0.0.1:2375",
            Transport::Tcp("127.0.0.1:2375".to_owned()),
        ),
        (
            "http://localhost:2375/",
            Transport::Tcp("localhost:2375".to_owned()),
        ),
        ("ssh://me@box", Transport::Unsupported),
        ("https://box:2376", Transport::Unsupported),
    ];
    for (host, expected) in table {
        assert_eq!(transport(host), expected, "{host}");
    }
}
