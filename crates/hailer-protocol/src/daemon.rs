use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What `GET /v1/daemon` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaemonInfo {
    /// hailerd's version.
    pub version: String,
    /// Process id of the daemon.
    pub pid: u32,
    /// TCP port the daemon listens on, on 127.0.0.1 only.
    pub port: u16,
    /// When the daemon started, in seconds since the Unix epoch.
    pub started_at: i64,
    /// Seconds since the daemon started.
    pub uptime_secs: u64,
    /// Live sessions.
    pub sessions: usize,
    /// Clients connected to an event stream right now.
    pub clients: usize,
    /// Seconds without sessions or clients before the daemon exits on its own; 0 means never.
    pub idle_exit_secs: u64,
}

/// What `POST /v1/status` looks at for `hailer status`: the asking shell's workspace as a session
/// start from it would send it, and the kernel image its configuration names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusParams {
    /// The shell's folder, flags and variables, judged as a session start would judge them.
    pub session: crate::StartSessionParams,
    /// The docker kernel's image to describe; absent under the other runtimes.
    #[serde(default)]
    pub image: Option<String>,
}

/// What `POST /v1/status` answers: everything `hailer status` prints, in one reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    /// The daemon's identity and counters.
    pub daemon: DaemonInfo,
    /// Every live session, in no particular order.
    pub sessions: Vec<crate::SessionInfo>,
    /// Whether the shell's session could reach its model; absent when it could not be judged
    /// (`modelCheckError` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_check: Option<crate::ModelCheck>,
    /// Why the model could not be judged (the configuration has fatal problems, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_check_error: Option<String>,
    /// The engine and the image asked about, as the daemon last found them (looked at again
    /// every few seconds while asked for, not at each request); absent when no image was asked
    /// about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docker: Option<crate::DockerStatus>,
}

/// The file hailerd writes (mode 0600) so clients can find it.
///
/// `Debug` is written by hand so the token never reaches a log line.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeFile {
    /// Process id of the daemon that wrote the file; the daemon removes the file on exit only
    /// while it still names this pid.
    pub pid: u32,
    /// TCP port the daemon listens on, on 127.0.0.1.
    pub port: u16,
    /// The access token of this run, generated anew at every start: clients send it as
    /// `Authorization: Bearer <token>`, or as the `hailer.token.<token>` WebSocket subprotocol.
    pub token: String,
    /// hailerd's version.
    pub version: String,
    /// When the daemon started, in seconds since the Unix epoch.
    pub started_at: i64,
}

impl std::fmt::Debug for RuntimeFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeFile")
            .field("pid", &self.pid)
            .field("port", &self.port)
            .field("token", &"<redacted>")
            .field("version", &self.version)
            .field("started_at", &self.started_at)
            .finish()
    }
}

/// What `POST /v1/daemon/shutdown` answers before the daemon stops.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShutdownResponse {
    /// Always `true`: the daemon accepted the request and is stopping (clients are told,
    /// sessions end, the runtime file is removed).
    pub stopping: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_file_debug_hides_the_token() {
        let file = RuntimeFile {
            pid: 1,
            port: 2,
            token: "very-secret".to_owned(),
            version: "0".to_owned(),
            started_at: 0,
        };
        let shown = format!("{file:?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        assert!(shown.contains("<redacted>"));
    }
}
