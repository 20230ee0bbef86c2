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
    /// It did what was asked: the code ran without raising, the page was fetched, the kernel
    /// started or was stopped on request.
    Ok,
    /// It failed: the code raised, the fetch or kernel start failed, the kernel ended on its
    /// own, or (for `trust`) the settings were refused; `detail` usually says more.
    Error,
    /// It was interrupted before it finished (the turn was cancelled or the request dropped).
    Cancelled,
    /// The kernel ran out of memory (a docker kernel past its memory limit) and was stopped.
    OutOfMemory,
}

impl AuditOutcome {
    /// The outcome in words for a person (`ok`, `error`, `cancelled`, `out of memory`), as
    /// `hailer audit` prints it; not the JSON spelling, which is camelCase.
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
    /// What sort of action the record is about; it decides which optional fields are set.
    pub kind: AuditKind,
    /// Id of the daemon session the action belongs to (`s_` and 12 hex digits);
    /// `GET /v1/sessions/{id}/audit` returns the records carrying that id.
    pub session: String,
    /// Id of the agent turn whose tool did this; absent when a client asked directly or the
    /// daemon acted by itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    /// Which client asked: `terminal`, `browser`, `api`, `doctor`, or `daemon` for what the
    /// daemon did by itself.
    pub client: String,
    /// The notebook the code ran in or the cell was written to, relative to the notebooks
    /// folder with `/` separators; set for `exec` and `cell` records only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notebook: Option<String>,
    /// The code that ran (`exec`) or the cell's new source (`cell`), in full, with secrets
    /// masked; absent for other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The address fetched, secrets masked; set for `fetch` records only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Lowercase hex SHA-256 of `code` (or else `url`) as it ran, before masking, so a copy
    /// of the code can be checked against the record. For a `trust` record, the digest of the
    /// gated settings the decision is about (as `hailer trust` records it, without the
    /// `sha256:` prefix). Absent when there is nothing to digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// How the action ended; absent when the record does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<AuditOutcome>,
    /// Wall-clock time the action took, in milliseconds (for a kernel stop: how long the
    /// kernel had run); absent when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Bytes of output (stdout, stderr and the value; the page text for a fetch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_bytes: Option<u64>,
    /// What else there is to say: the runtime and isolation of a kernel start, an error's
    /// message, the notebooks copied back, what was agreed to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Lowercase hex SHA-256 of the previous line of the trail exactly as written, or 64
    /// zeros on the first line; what `hailer-audit` checks the chain with.
    pub prev: String,
}

/// `GET /v1/sessions/{id}/audit`: the records of the session's current conversation (its
/// session), oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditList {
    /// The records, oldest first; empty when the workspace turns the trail off
    /// (`[hailer] audit = false`).
    pub entries: Vec<AuditEntry>,
}
