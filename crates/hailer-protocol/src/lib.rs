//! Wire types of hailerd's HTTP and WebSocket API.
//!
//! This crate holds data only: serde types, no I/O and no business logic, so the daemon, the
//! `hailer` client and the tests agree on one definition. The fields of structs are camelCase
//! in JSON. Tagged enums rename only their variants: the fields inside a variant, for example
//! a [`SessionEvent`]'s `turn_id`, stay snake_case. Timestamps are `*_at` seconds since the
//! Unix epoch.

#![warn(missing_docs)]
#![cfg_attr(not(test), warn(clippy::print_stdout))]

mod audit;
mod charts;
mod conversation;
mod credentials;
mod daemon;
mod docker;
mod error;
mod events;
mod history;
mod kernel;
mod numbers;
mod probe;
mod render;
mod sessions;
mod turns;

pub use audit::{AuditEntry, AuditKind, AuditList, AuditOutcome};
pub use charts::{Chart, ChartImage};
pub use conversation::{ConversationReason, ConversationStarted, NewConversationParams};
pub use credentials::{CredentialTarget, CredentialsResponse, LoginParams, ModelCheck};
pub use daemon::{DaemonInfo, RuntimeFile, ShutdownResponse, StatusParams, StatusReport};
pub use docker::{DockerEngine, DockerStatus, DockerStatusParams, KernelImageStatus};
pub use error::{ErrorBody, ErrorCode};
pub use events::{DaemonEvent, EventEnvelope};
pub use history::{PastToolCall, PastTurn};
pub use kernel::{
    DockerAvailability, JobStep, KernelBuildParams, KernelJobLine, KernelPullParams,
    KernelStopFailure, KernelStopParams, KernelStopResponse, is_build_discovery_variable,
};
pub use probe::{ProbeImage, ProbeParams, ProbeReport, ProbeVerdict};
pub use render::{RenderParams, RenderResponse};
pub use sessions::{
    AgentProblem, CreateNotebookParams, ExecParams, ExecResponse, ExecValue, InstallLocalParams,
    KernelExit, KernelExitCause, KernelStatus, MAX_EXEC_TIMEOUT_SECS, NDJSON, NotebookChange,
    NotebookEntry, NotebookList, NotebookRef, NotebookTemplate, NoticeLevel, SessionEnvelope,
    SessionEvent, SessionInfo, SessionList, StartSessionParams, StartSessionResponse,
};
pub use turns::{
    CancelResponse, PromptList, PromptRequest, SkillEntry, SkillList, SkillRequest,
    StartTurnParams, StartTurnResponse, TurnError, TurnOutcome, TurnResult, TurnToolCall,
    TurnUsage,
};

/// The API version prefix every route lives under.
pub const API_PREFIX: &str = "/v1";

/// The WebSocket subprotocol hailerd speaks on its event streams.
pub const WS_PROTOCOL: &str = "hailer.v1";

/// Prefix of the subprotocol that carries the token for clients that cannot set headers.
pub const WS_TOKEN_PROTOCOL_PREFIX: &str = "hailer.token.";
