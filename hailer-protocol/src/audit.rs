//! The audit trail's records: one JSON object per line of `.hailer/audit.jsonl`, and the reply
//! of `GET /v1/sessions/{id}/audit`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a record is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum AuditKind {
    /// Code ran in the kernel (an agent turn, `hailer exec`, another API client).
    Exec,
    /// A notebook cell was created or edited through marimo's code mode.
    Cell,
    /// A web page was fetched for the agent.
    Fetch,
    /// Notebooks were copied back from a docker kernel.
    CopyBack,
    /// A kernel started, with its runtime and isolation settings.
    KernelStart,
    /// A kernel stopped.
    KernelStop,
    /// The user agreed to something Hailer asks consent for.
    Trust,
}

/// How the recorded action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum AuditOutcome {
    Ok,
    Error,
    Cancelled,
    OutOfMemory,
}

impl AuditOutcome {
    pub fn label(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
            Self::OutOfMemory => "out of memory",
        }
    }
}

/// One record of the audit trail. `code` (or `url`) is stored in full, secrets masked;
/// `sha256` is the digest of the text as it ran, before masking. `prev` is the SHA-256 of the
/// previous line exactly as written (64 zeros on the first), so a changed or removed line
/// breaks the chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// Position in the trail, from 1, continuous across rotated files.
    pub seq: u64,
    /// When it happened, RFC 3339 in UTC with milliseconds.
    pub time: String,
    pub kind: AuditKind,
    pub session: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    /// Which client asked: `terminal`, `browser`, `api`, `doctor`, or `daemon` for what the
    /// daemon did by itself.
    pub client: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<AuditOutcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Bytes of output (stdout, stderr and the value; the page text for a fetch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<u64>,
    /// What else there is to say: the runtime and isolation of a kernel start, an error's
    /// message, the notebooks copied back, what was agreed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub prev: String,
}

/// `GET /v1/sessions/{id}/audit`: the records of the session's current conversation (its
/// session), oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditList {
    pub entries: Vec<AuditEntry>,
}
