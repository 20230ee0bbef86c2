//! A workspace made with `hailer init`, a Hailer home of its own, and the client run in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use hailer_protocol::RuntimeFile;

use crate::bins;

/// A temporary workspace and Hailer home; the daemon it started is stopped on drop.
pub struct TestWorkspace {
    /// The workspace folder (where hailer.toml lives and every `hailer` command runs), a
    /// temporary folder deleted on drop.
    pub root: tempfile::TempDir,
    /// The Hailer home given as `HAILER_HOME` to every `hailer` run and the daemon it
    /// starts, a temporary folder deleted on drop.
    pub home: tempfile::TempDir,
    /// Extra environment for every `hailer` run (and so for the daemon it starts).
    pub env: Vec<(String, String)>,
}

impl std::fmt::Debug for TestWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestWorkspace")
            .field("root", &self.root.path())
            .finish_non_exhaustive()
    }
}

/// The variable the scripted provider reads its key from.
pub const SCRIPTED_KEY_VARIABLE: &str = "SCRIPTED_KEY";
/// The key [`TestWorkspace::scripted`] puts in the client's environment.
pub const SCRIPTED_KEY: &str = "scripted-key-7f3a9c1e5b";

impl TestWorkspace {
    /// `hailer init --kernel unsafe-local` in a fresh folder, using the prepared kernel venv.
    pub fn unsafe_local() -> Self {
        Self::unsafe_local_with_env(Vec::new())
    }

    /// `hailer init` (the docker runtime) in a fresh folder.
    pub fn docker() -> Self {
        let workspace = Self {
            root: tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}")),
            home: tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}")),
            env: Vec::new(),
        };
        let init = workspace.hailer(&["init"]);
        assert!(init.status.success(), "hailer init failed: {init:?}");
        workspace
    }

    /// An empty folder and a Hailer home, with no `hailer init`: for commands that make their
    /// own workspace (`hailer demo`).
    pub fn empty(env: Vec<(String, String)>) -> Self {
        Self {
            root: tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}")),
            home: tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}")),
            env,
        }
    }

    /// The 16-hex id the workspace's docker objects carry in their names.
    pub fn runtime_id_hint(&self) -> String {
        hailer_docker::workspace_id(self.path())
    }

    /// [`Self::unsafe_local`] with `env` added to every `hailer` run, after the shared kernel
    /// environment's setting (so `env` can override it). Panics when `hailer init` fails.
    pub fn unsafe_local_with_env(env: Vec<(String, String)>) -> Self {
        Self::on_the_managed_environment("unsafe-local", env)
    }

    /// `hailer init --kernel sandbox` in a fresh folder, with the shared managed environment.
    pub fn sandbox() -> Self {
        Self::sandbox_with_env(Vec::new())
    }

    /// [`Self::sandbox`] with more client environment (planted secrets, say).
    pub fn sandbox_with_env(env: Vec<(String, String)>) -> Self {
        Self::on_the_managed_environment("sandbox", env)
    }

    /// `hailer init --kernel <runtime>` for a runtime that runs on the managed environment,
    /// with the shared environment's setting first in `env` (so `env` can override it).
    fn on_the_managed_environment(runtime: &str, env: Vec<(String, String)>) -> Self {
        let mut env = env;
        env.insert(0, crate::kernel_envs::setting());
        let workspace = Self {
            root: tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}")),
            home: tempfile::tempdir().unwrap_or_else(|error| panic!("temp dir: {error}")),
            env,
        };
        let init = workspace.hailer(&["init", "--kernel", runtime]);
        assert!(init.status.success(), "hailer init failed: {init:?}");
        workspace
    }

    /// An unsafe-local workspace whose model is the scripted server at `base_url` (provider
    /// `scripted`, chat completions, streamed), with its key in the client's environment.
    pub fn scripted(base_url: &str) -> Self {
        Self::scripted_with(base_url, "chat", true)
    }

    /// [`Self::scripted`] with the wire API (`chat` or `responses`) and streaming chosen.
    pub fn scripted_with(base_url: &str, wire_api: &str, stream: bool) -> Self {
        Self::scripted_with_env(base_url, wire_api, stream, Vec::new())
    }

    /// [`Self::scripted_with`] with more client environment on top (a later value of a name
    /// wins).
    pub fn scripted_with_env(
        base_url: &str,
        wire_api: &str,
        stream: bool,
        env: Vec<(String, String)>,
    ) -> Self {
        let mut all = vec![(SCRIPTED_KEY_VARIABLE.to_owned(), SCRIPTED_KEY.to_owned())];
        all.extend(env);
        let workspace = Self::unsafe_local_with_env(all);
        workspace.use_scripted_model(base_url, wire_api, stream, "");
        workspace
    }

    /// Rewrites hailer.toml so the model is provider `scripted` at `base_url`, reading its key
    /// from `SCRIPTED_KEY`; `model_lines` go into the `[model]` section.
    pub fn use_scripted_model(
        &self,
        base_url: &str,
        wire_api: &str,
        stream: bool,
        model_lines: &str,
    ) {
        let toml = std::fs::read_to_string(self.path().join("hailer.toml"))
            .unwrap_or_else(|error| panic!("hailer.toml: {error}"));
        let toml = toml.replace(
            "[model]\n",
            &format!("[model]\nprovider = \"scripted\"\n{model_lines}"),
        );
        self.write(
            "hailer.toml",
            &format!(
                "{toml}\n[model_providers.scripted]\nbase_url = \"{base_url}\"\nenv_key = \"{SCRIPTED_KEY_VARIABLE}\"\nwire_api = \"{wire_api}\"\nstream = {stream}\n"
            ),
        );
        self.trust();
    }

    /// This workspace with the scripted model at `base_url` (chat completions, streamed) and
    /// its key in the client's environment: for workspaces made by another constructor.
    pub fn answered_by(mut self, base_url: &str) -> Self {
        self.env
            .push((SCRIPTED_KEY_VARIABLE.to_owned(), SCRIPTED_KEY.to_owned()));
        self.use_scripted_model(base_url, "chat", true, "");
        self
    }

    /// `hailer trust`, as a user who read the workspace's hailer.toml runs it.
    pub fn trust(&self) {
        let trusted = self.hailer(&["trust", "--yes"]);
        assert!(trusted.status.success(), "hailer trust failed: {trusted:?}");
    }

    /// The workspace folder, as the temporary folder names it (not canonicalized).
    pub fn path(&self) -> &Path {
        self.root.path()
    }

    /// Writes `text` to `relative` under the workspace, making its folders first; panics when
    /// the file cannot be written.
    pub fn write(&self, relative: &str, text: &str) {
        let path = self.path().join(relative);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&path, text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    }

    /// A `hailer` command in the workspace, with the hermetic home and the extra environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(bins::path("hailer"));
        command.args(args);
        self.as_the_user(&mut command);
        command
    }

    /// Gives `command` what a `hailer` run of this workspace gets: the workspace as its folder,
    /// the hermetic home, the daemon to start and the extra environment.
    pub fn as_the_user(&self, command: &mut Command) {
        command
            .current_dir(self.path())
            .env("HAILER_HOME", self.home.path())
            .env("HAILER_DAEMON_BIN", bins::path("hailerd"))
            .env_remove("HAILER_KERNEL")
            .env_remove("HAILER_CONFIG")
            .env_remove("HAILER_WORKSPACE");
        for (name, value) in &self.env {
            command.env(name, value);
        }
    }

    /// Runs [`Self::command`] to the end and returns what it printed and its status; panics
    /// only when `hailer` cannot be started, not when it fails.
    pub fn hailer(&self, args: &[&str]) -> Output {
        self.command(args)
            .output()
            .unwrap_or_else(|error| panic!("cannot run hailer: {error}"))
    }

    /// The running daemon's runtime file.
    pub fn runtime(&self) -> RuntimeFile {
        let path = self.home.path().join("run").join("hailerd.json");
        let bytes =
            std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        serde_json::from_slice(&bytes).unwrap_or_else(|error| panic!("runtime file: {error}"))
    }

    /// Everything the daemon of this workspace's home has logged so far (the files of
    /// `state/logs`, joined); empty when there is no log yet.
    pub fn daemon_log(&self) -> String {
        let mut text = String::new();
        if let Ok(entries) = std::fs::read_dir(self.home.path().join("state").join("logs")) {
            for entry in entries.flatten() {
                text.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
            }
        }
        text
    }

    /// An authenticated client and base URL for the daemon's API.
    pub fn api(&self) -> (reqwest::Client, String, String) {
        let runtime = self.runtime();
        (
            crate::daemon::http_client(),
            format!("http://127.0.0.1:{}", runtime.port),
            runtime.token,
        )
    }

    /// An authenticated `GET` of the daemon's API, answered as JSON.
    pub async fn get_json(&self, path: &str) -> serde_json::Value {
        let (client, base, token) = self.api();
        client
            .get(format!("{base}{path}"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap_or_else(|error| panic!("GET {path}: {error}"))
            .json()
            .await
            .unwrap_or_else(|error| panic!("GET {path} reply: {error}"))
    }

    /// An authenticated `POST` of `body` to the daemon's API, answered as JSON.
    pub async fn post_json(&self, path: &str, body: &serde_json::Value) -> serde_json::Value {
        let (client, base, token) = self.api();
        client
            .post(format!("{base}{path}"))
            .bearer_auth(&token)
            .json(body)
            .send()
            .await
            .unwrap_or_else(|error| panic!("POST {path}: {error}"))
            .json()
            .await
            .unwrap_or_else(|error| panic!("POST {path} reply: {error}"))
    }

    /// The workspace's canonical path (what the daemon reports).
    pub fn canonical(&self) -> PathBuf {
        std::fs::canonicalize(self.path()).unwrap_or_else(|_| self.path().to_path_buf())
    }

    /// The names of the containers labelled with this workspace, sorted.
    pub fn docker_containers(&self) -> Vec<String> {
        self.docker_labelled(&["ps", "-a", "--format", "{{.Names}}"])
    }

    /// The names of the networks labelled with this workspace, sorted.
    pub fn docker_networks(&self) -> Vec<String> {
        self.docker_labelled(&["network", "ls", "--format", "{{.Name}}"])
    }

    /// The names of the containers and networks labelled with this workspace, sorted.
    pub fn docker_objects(&self) -> Vec<String> {
        let mut names = self.docker_containers();
        names.extend(self.docker_networks());
        names.sort();
        names
    }

    /// The output lines of `docker LISTING --filter label=<this workspace>`, sorted.
    fn docker_labelled(&self, listing: &[&str]) -> Vec<String> {
        let id = hailer_docker::workspace_id(&self.canonical());
        let filter = format!("label={}={id}", hailer_docker::WORKSPACE_LABEL);
        let output = std::process::Command::new("docker")
            .args(listing)
            .args(["--filter", &filter])
            .output()
            .unwrap_or_else(|error| panic!("cannot run docker: {error}"));
        assert!(output.status.success(), "{output:?}");
        let mut names: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect();
        names.sort();
        names
    }
}

impl Drop for TestWorkspace {
    fn drop(&mut self) {
        let runtime_file = self.home.path().join("run").join("hailerd.json");
        if !runtime_file.exists() {
            return;
        }
        let _ = self
            .command(&["daemon", "stop"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
        // Make sure nothing survives a failed stop.
        if let Ok(bytes) = std::fs::read(&runtime_file)
            && let Ok(file) = serde_json::from_slice::<RuntimeFile>(&bytes)
        {
            let _ = crate::daemon::signal(file.pid, nix::sys::signal::Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The unsafe-local marimo servers whose working folder is `root` (a workspace's canonical
/// path): `marimo edit` with a token on its stdin, as the daemon starts it.
pub fn marimo_servers_in(root: &Path) -> Vec<u32> {
    processes_with("--token-password-file - --headless")
        .into_iter()
        .filter(|(pid, line)| {
            line.contains("marimo")
                && line.contains(" edit ")
                && std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == root)
        })
        .map(|(pid, _)| pid)
        .collect()
}

/// Every process below `pid`, children first.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut queue = vec![pid];
    while let Some(parent) = queue.pop() {
        for child in children_of(parent) {
            found.push(child);
            queue.push(child);
        }
    }
    found
}

/// The notebook kernels below a marimo server: the processes below it that lead a session of
/// their own, as each marimo kernel does (the fork server and resource tracker beside them
/// do not).
pub fn kernels_of(server: u32) -> Vec<u32> {
    descendants(server)
        .into_iter()
        .filter(|&pid| {
            nix::unistd::getsid(Some(nix::unistd::Pid::from_raw(pid as i32)))
                .is_ok_and(|sid| sid.as_raw() as u32 == pid)
        })
        .collect()
}

/// Every process whose command line contains `needle`, with its pid.
pub fn processes_with(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
            let line = String::from_utf8_lossy(&bytes).replace('\0', " ");
            if line.contains(needle) {
                found.push((pid, line));
            }
        }
    }
    found
}

/// The children of `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The fields after the command name (which may contain spaces) start after ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let ppid = rest
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            found.push(child);
        }
    }
    found
}

/// Every process's command line, joined.
pub fn all_command_lines() -> String {
    processes_with("")
        .into_iter()
        .map(|(_, line)| line)
        .collect::<Vec<_>>()
        .join("\n")
}
