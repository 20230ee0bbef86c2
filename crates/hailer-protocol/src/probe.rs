//! `POST /v1/sessions/{id}/probe`: the session kernel's isolation, tested from outside it.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What the probe is told besides what the daemon knows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeParams {
    /// Files the kernel must not be able to read (the daemon's runtime file, which holds its
    /// token); only whether they are readable is reported, never their content. A path
    /// holding a NUL character names no file and is refused (400).
    #[serde(default)]
    #[schema(schema_with = token_paths_schema)]
    pub token_paths: Vec<String>,
}

/// `tokenPaths`: paths without NUL characters.
fn token_paths_schema() -> utoipa::openapi::Array {
    utoipa::openapi::ArrayBuilder::new()
        .items(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::Type::String)
                .pattern(Some(r"^[^\x00]*$")),
        )
        .description(Some(
            "Files the kernel must not be able to read (the daemon's runtime file, which holds \
             its token); only whether they are readable is reported, never their content. A \
             path holding a NUL character names no file and is refused (400).",
        ))
        .build()
}

/// The probes' verdicts, graded by the daemon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReport {
    /// Whether every probe passed.
    pub ok: bool,
    /// The image the docker kernel runs; absent for other runtimes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<ProbeImage>,
    /// One verdict per probe, in order.
    pub probes: Vec<ProbeVerdict>,
}

/// One probe's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeVerdict {
    /// What is tested (`uid not 0`, `no DNS`, ...).
    pub probe: String,
    /// Whether the protection holds, as the daemon grades the observations (and, for a docker
    /// kernel, what the engine says the container has).
    pub passed: bool,
    /// What was observed, in words.
    pub observed: String,
}

/// The image a docker kernel runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeImage {
    /// The image name the workspace configures (or Hailer's default).
    pub name: String,
    /// The image id (`sha256:...`) the kernel container runs.
    pub id: String,
    /// The image's kernel contract label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// Whether it is the image Hailer builds or pulls for its kernel contract; false for any
    /// other image, a derived one included (its probes and Python are not Hailer's).
    pub ours: bool,
}
