//! `/v1/kernel/...`: building, downloading and stopping the docker kernel, outside any session.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Exact names of the client's variables a build's host discovery reads, besides every
/// `PIP_*` and `UV_*` one.
pub(crate) const BUILD_DISCOVERY_VARIABLES: [&str; 6] = [
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "VIRTUAL_ENV",
    "REQUESTS_CA_BUNDLE",
    "SSL_CERT_FILE",
];

/// Whether the client sends variable `name` with a build (its value may hold credentials).
pub fn is_build_discovery_variable(name: &str) -> bool {
    name.starts_with("PIP_") || name.starts_with("UV_") || BUILD_DISCOVERY_VARIABLES.contains(&name)
}

/// `POST /v1/kernel/build`: build the kernel image through the engine, or write its build
/// context to a folder. The reply is a stream of [`KernelJobLine`]s. `Debug` hides `env`'s
/// values.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KernelBuildParams {
    /// The image name to build under.
    pub tag: String,
    /// Another base image than the Dockerfile's (Python 3.11+ with venv and ensurepip).
    #[serde(default)]
    pub base_image: Option<String>,
    /// A pip configuration file (absolute) for the build stage; no discovery then.
    #[serde(default)]
    pub pip_config: Option<String>,
    /// A PEM CA bundle (absolute) pip should trust during the build.
    #[serde(default)]
    pub pip_cert: Option<String>,
    /// A folder of wheels (absolute) to install from, offline; no discovery then.
    #[serde(default)]
    pub wheelhouse: Option<String>,
    /// Install every package again instead of reusing cached layers.
    #[serde(default)]
    pub no_cache: bool,
    /// Look for the host's pip and uv index settings in `env`, `cwd` and the files they name.
    #[serde(default)]
    pub host_config: bool,
    /// Write the build context to this folder (absolute, new or empty) and build nothing.
    #[serde(default)]
    pub export_to: Option<String>,
    /// The client's working folder (absolute), where uv's project settings are looked for.
    #[cfg_attr(not(windows), schema(pattern = "^/"))]
    #[cfg_attr(windows, schema(pattern = r"^([A-Za-z]:[\\/]|\\\\)"))]
    pub cwd: String,
    /// The client's variables discovery reads (see [`is_build_discovery_variable`]).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl std::fmt::Debug for KernelBuildParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelBuildParams")
            .field("tag", &self.tag)
            .field("base_image", &self.base_image)
            .field("pip_config", &self.pip_config)
            .field("pip_cert", &self.pip_cert)
            .field("wheelhouse", &self.wheelhouse)
            .field("no_cache", &self.no_cache)
            .field("host_config", &self.host_config)
            .field("export_to", &self.export_to)
            .field("cwd", &self.cwd)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// `POST /v1/kernel/pull`: download the kernel image and check its contract. The reply is a
/// stream of [`KernelJobLine`]s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KernelPullParams {
    /// The image to download, as `docker pull` takes it (`repository:tag`); surrounding spaces
    /// are ignored and a blank name ends the job with a `failed` line.
    pub image: String,
}

/// One line of a build's, a download's or an environment set-up's reply
/// (`application/x-ndjson`): progress lines, then `done` or `failed`.
///
/// The fields after `line` came later and are optional, so a client that knows only `line`
/// prints every line as before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum KernelJobLine {
    /// A line for the user, or of a tool's own output.
    Progress {
        /// One line of text, without its newline.
        line: String,
        /// `true` for a line of pip's, uv's or the Docker engine's own output: it is in the
        /// job's log, and a client shows it live only when asked to (`--verbose`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        output: bool,
        /// The step the job is at, on the line that starts it and on every line that counts
        /// within it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        step: Option<JobStep>,
    },
    /// Finished: the image now here (absent for an export), the kernel contract, and for an
    /// export the `docker build` command that builds the written context.
    #[serde(rename_all = "camelCase")]
    Done {
        /// The image built or downloaded, by the name it was asked for; absent for an export
        /// and for an environment set-up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        image: Option<String>,
        /// The kernel contract this hailerd speaks (`marimo<version>-<12 hex>`); an image
        /// built or downloaded by the job carries it.
        contract: String,
        /// For an export only: the `docker build` command that builds the written context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        command: Option<String>,
        /// The file (absolute) holding the job's whole output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log: Option<String>,
    },
    /// Failed: what happened and what to do.
    Failed {
        /// What went wrong, for a person.
        message: String,
        /// What to do about it, when there is something to do.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hint: Option<String>,
        /// The file (absolute) holding the job's whole output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log: Option<String>,
    },
}

impl KernelJobLine {
    /// A line for the user.
    pub fn say(line: impl Into<String>) -> Self {
        KernelJobLine::Progress {
            line: line.into(),
            output: false,
            step: None,
        }
    }

    /// A failure, with no log.
    pub fn failed(message: impl Into<String>, hint: Option<String>) -> Self {
        KernelJobLine::Failed {
            message: message.into(),
            hint,
            log: None,
        }
    }
}

/// A named step of a job, with its count where the total is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobStep {
    /// The step's name, the same on every line of the step.
    pub name: String,
    /// Items done so far (packages, build steps, image layers), once any is counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<u64>,
    /// How many items the step works through, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

/// `POST /v1/kernel/stop`: end the daemon's session of a workspace (its notebooks are copied
/// back) and remove every container and network labelled with the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KernelStopParams {
    /// The workspace folder (absolute).
    pub workspace: String,
}

/// Whether the Docker engine could be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum DockerAvailability {
    /// The engine answered; `removed` and `failed` say what became of the workspace's
    /// containers and networks.
    Available,
    /// No Docker engine is installed at the endpoint, so nothing was checked or removed.
    NotInstalled,
    /// Installed but not answering (or not usable): leftovers could not be checked.
    NotRunning,
}

/// What `POST /v1/kernel/stop` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KernelStopResponse {
    /// Names of the containers and networks removed.
    pub removed: Vec<String>,
    /// What could not be removed.
    pub failed: Vec<KernelStopFailure>,
    /// The id of the daemon's live session of the workspace, ended first.
    #[serde(default)]
    pub stopped_session: Option<String>,
    /// Whether the Docker engine could be asked for the workspace's containers and networks.
    pub docker: DockerAvailability,
    /// Why Docker could not be asked.
    #[serde(default)]
    pub docker_message: Option<String>,
}

/// A container or network that is still there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KernelStopFailure {
    /// The container's or network's name, or `this workspace's containers` when the engine
    /// could not even list them.
    pub name: String,
    /// What the engine said.
    pub said: String,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_progress_line_of_before_still_reads_and_a_new_one_keeps_its_old_shape() {
        let old: KernelJobLine =
            serde_json::from_str(r#"{"kind":"progress","line":"Step 1/2"}"#).unwrap();
        assert_eq!(old, KernelJobLine::say("Step 1/2"));
        assert_eq!(
            serde_json::to_string(&KernelJobLine::say("hi")).unwrap(),
            r#"{"kind":"progress","line":"hi"}"#
        );
        let counted = KernelJobLine::Progress {
            line: "Step 1/2 : FROM x".to_owned(),
            output: true,
            step: Some(JobStep {
                name: "Building".to_owned(),
                done: Some(1),
                total: Some(2),
            }),
        };
        let text = serde_json::to_string(&counted).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"progress","line":"Step 1/2 : FROM x","output":true,"step":{"name":"Building","done":1,"total":2}}"#
        );
        assert_eq!(
            serde_json::from_str::<KernelJobLine>(&text).unwrap(),
            counted
        );
    }
}
